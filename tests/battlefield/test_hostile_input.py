"""Any text, any number (issue 15): names and ids are checked at every way in (API, import,
command line, forms), numbers are bounded there too (query strings included), and the answer
is a 400 / 422 naming the field (exit 2 on the command line), never a 500. A scenario already
stored with bad text can still be opened and deleted."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client

from battlefield.models import Scenario
from tests.battlefield.cli import adjudicate_cli
from tests.documents import move, scenario

pytestmark = pytest.mark.django_db

LONE_SURROGATE = "\ud800"
BIDI_OVERRIDE = "\u202e"
ZERO_WIDTH = "\u200b"


def api(body: str | bytes, content_type: str = "application/json"):
    return Client().post("/api/v1/adjudicate", body, content_type=content_type)


def named(doc_text: str) -> dict:
    doc = scenario()
    doc["units"][0]["name"] = doc_text
    return {"scenario": doc, "move": move()}


@pytest.mark.parametrize(
    "name, why",
    [
        (f"Berzerkers{LONE_SURROGATE}", "surrogate"),
        ("Berzerkers\x00", "NUL"),
        (f"{BIDI_OVERRIDE}srekrezreB", "bidi"),
        (f"Ber{ZERO_WIDTH}zerkers", "zero-width"),
        ("Berzerkers\x07", "control"),
    ],
)
def test_a_name_with_text_that_breaks_or_spoofs_pages_is_refused_naming_the_field(name, why):
    # json.dumps writes a lone surrogate as the escape \ud800, which Python's parser accepts.
    response = api(json.dumps(named(name)))
    assert response.status_code == 400, (why, response.content)
    assert response.json()["field"] == "units[0].name"


def test_a_name_is_normalised_to_nfc_and_then_accepted():
    response = api(json.dumps(named("Cafe\u0301 crew")))  # e + combining acute
    assert response.status_code == 200


@pytest.mark.parametrize(
    "where", [("units", 0, "id"), ("armies", 0, "id"), ("units", 0, "keywords", 0)]
)
def test_an_id_or_keyword_with_a_trailing_newline_is_refused(where):
    doc = scenario()
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    parent[where[-1]] = parent[where[-1]] + "\n"
    response = api(json.dumps({"scenario": doc, "move": move()}))
    assert response.status_code == 400, response.content


def test_a_model_id_with_a_trailing_newline_is_refused_in_the_move_too():
    body = {"scenario": scenario(), "move": move()}
    body["move"]["unit"] = "B\n"
    assert api(json.dumps(body)).status_code == 400


@pytest.mark.parametrize(
    "number", ["1" * 5000, "1" * 400, "1e400", "-1e400", "1e308", "123456789012345678901234567890"]
)
def test_huge_numbers_anywhere_in_a_document_are_refused_naming_the_field(number):
    text = json.dumps({"scenario": scenario(), "move": move()})
    text = text.replace('"x": 30.0', f'"x": {number}', 1)
    response = api(text)
    assert response.status_code == 400, response.content
    assert response.json()["field"] == "units[0].models[0].x"


def test_a_facing_near_the_largest_float_is_refused_not_a_crash():
    doc = scenario()
    doc["units"][1]["models"][0]["facing"] = 1.7e308
    response = api(json.dumps({"scenario": doc, "move": move()}))
    assert response.status_code == 400
    assert response.json()["field"] == "units[1].models[0].facing"


def test_deep_nesting_is_refused():
    text = '{"scenario": ' + "[" * 100_000 + "]" * 100_000 + ', "move": {}}'
    assert api(text).status_code in (400, 413)


def test_the_command_line_refuses_huge_numbers_with_exit_status_2(tmp_path):
    doc = scenario()
    (tmp_path / "s.json").write_text(json.dumps(doc).replace('"x": 30.0', '"x": ' + "9" * 5000))
    (tmp_path / "m.json").write_text(json.dumps(move()))
    from io import StringIO

    from django.core.management import call_command

    err = StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("adjudicate", str(tmp_path / "s.json"), str(tmp_path / "m.json"), stderr=err)
    assert exit_.value.code == 2
    assert "units[0].models[0].x" in err.getvalue()


def test_the_command_line_refuses_a_surrogate_name_with_exit_status_2(tmp_path):
    result = adjudicate_cli(tmp_path, named(f"x{LONE_SURROGATE}")["scenario"], move())
    assert result.status == 2
    assert "units[0].name" in result.stderr


@pytest.fixture
def player(client):
    user = get_user_model().objects.create_user("ann", password="a long passphrase 1")
    client.force_login(user)
    return client, user


def test_import_refuses_a_surrogate_name_with_the_form_not_a_500(player):
    client, _user = player
    text = json.dumps(named(f"x{LONE_SURROGATE}")["scenario"]).encode()
    upload = SimpleUploadedFile("s.json", text, content_type="application/json")
    response = client.post("/scenarios/import", {"file": upload})
    assert response.status_code == 422
    assert Scenario.objects.count() == 0


@pytest.mark.parametrize("name", ["Raid\x00", f"Raid{BIDI_OVERRIDE}", f"R{ZERO_WIDTH}aid"])
def test_new_scenario_and_rename_refuse_names_with_control_characters(player, name):
    client, user = player
    response = client.post("/scenarios/new", {"table": "wh40k-11e:60x44", "name": name})
    assert response.status_code == 422
    s = Scenario.objects.create(document=scenario(), owner=user)
    response = client.post(f"/scenarios/{s.pk}/", {"name": name, "version": s.version})
    assert response.status_code == 422
    s.refresh_from_db()
    assert s.name == scenario()["name"]


def test_a_scenario_stored_with_bad_text_can_still_be_opened_and_deleted(player):
    client, user = player
    doc = scenario()
    doc["name"] = f"Old{BIDI_OVERRIDE}"  # the name column cannot even hold a surrogate
    # PostgreSQL's JSON cannot store a lone surrogate at all, so there only the bidi override
    # can have been stored before the checks; SQLite keeps both.
    surrogate = "" if connection.vendor == "postgresql" else LONE_SURROGATE
    doc["units"][0]["name"] = f"Berzerkers{surrogate}{BIDI_OVERRIDE}"
    s = Scenario.objects.create(document=doc, owner=user)
    for url in (f"/scenarios/{s.pk}/", f"/scenarios/{s.pk}/scenario.json", f"/s/{s.share_token}/"):
        assert client.get(url).status_code == 200, url
    assert client.get(f"/scenarios/{s.pk}/move").status_code == 200
    assert client.get(f"/scenarios/{s.pk}/edit").status_code == 200
    assert client.post(f"/scenarios/{s.pk}/delete").status_code == 302
    s.refresh_from_db()
    assert s.deleted_at is not None


def test_log_in_and_sign_up_forms_with_nul_and_surrogates_answer_a_form_not_a_500():
    client = Client()
    for body in (
        "username=ann%00&password=x",
        "username=ann&password=x%00",
        "username=ann%ED%A0%80&password=x%ED%A0%80",  # a surrogate's UTF-8 bytes
        f"username={'9' * 5000}&password=x",
    ):
        response = client.post(
            "/accounts/login/", body, content_type="application/x-www-form-urlencoded"
        )
        assert response.status_code in (200, 422), body
    response = client.post(
        "/accounts/signup/",
        {
            "username": f"ann{BIDI_OVERRIDE}",
            "email": "ann@example.org",
            "password1": "a long passphrase 1",
            "password2": "a long passphrase 1",
        },
    )
    assert response.status_code == 422
    assert not get_user_model().objects.exists()


@pytest.mark.parametrize(
    "query",
    [
        "unit=B&type=normal&roll=hand&dice=4&pose-B1-x=1e308&pose-B1-y=20",
        "unit=B&type=normal&roll=hand&dice=4&pose-B1-x=30&pose-B1-y=20&pose-B1-facing=1.7e308",
        "unit=B&type=normal&roll=hand&dice=4&pose-B1-x=" + "9" * 5000 + "&pose-B1-y=20",
        "unit=B&type=normal&roll=server&seed=" + "9" * 5000,
        "unit=B%ED%A0%80",  # a surrogate's UTF-8 bytes: not valid UTF-8
        "unit=B%00",
    ],
)
def test_the_stepper_refuses_huge_numbers_in_its_query_string(query):
    s = Scenario.objects.create(document=scenario(), visibility="public")
    response = Client().get(f"/s/{s.share_token}/move?{query}")
    if response.status_code == 302:  # a server roll: sent on to the step's own seed (issue 13)
        assert "9999" not in response["Location"]
        response = Client().get(response["Location"])
    assert response.status_code in (200, 400, 422), response.status_code
    data = dict(pair.split("=", 1) for pair in query.replace("%00", "\x00").split("&"))
    response = Client().post(f"/s/{s.share_token}/move/check", data)
    assert response.status_code in (200, 400, 422), response.status_code


@pytest.mark.parametrize(
    "a, b",
    [
        ("point:1e308,1e308", "point:-1e308,-1e308"),
        ("point:" + "9" * 5000 + ",1", "point:1,1"),
        ("model:B1", "point:1e300,1"),
        ("model:B1\x00", "point:1,1"),
    ],
)
def test_the_ruler_refuses_huge_coordinates(a, b):
    s = Scenario.objects.create(document=scenario(), visibility="public")
    response = Client().get(f"/s/{s.share_token}/ruler", {"a": a, "b": b})
    assert response.status_code in (400, 422), response.status_code
