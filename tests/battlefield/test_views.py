"""Every page: status, content, whole page versus htmx partial; import, export, share, copy."""

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from battlefield.models import Lesson, Scenario
from rules.situation import LIMITS
from tests.documents import scenario

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}
FULL = {"HX-Request": "true", "HX-Request-Type": "full"}


@pytest.fixture
def client(client, django_user_model):
    """A signed-in visitor: creating, importing and copying need an account (issue 7)."""
    client.force_login(django_user_model.objects.create_user("owner"))
    return client


def upload(client, doc, name="scenario.json", **headers):
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return client.post(
        "/scenarios/import", {"file": SimpleUploadedFile(name, data)}, headers=headers
    )


def imported(client, doc=None) -> Scenario:
    response = upload(client, doc or scenario())
    assert response.status_code == 302, response.content[:500]
    return Scenario.objects.latest("pk")


def public_scenario(**fields) -> Scenario:
    return Scenario.objects.create(document=scenario(), visibility="public", **fields)


# -- home ----------------------------------------------------------------------------------


def test_the_home_page_lists_demo_scenarios_lessons_and_both_forms(client):
    demo = public_scenario()
    Lesson.objects.create(slug="surge", title="Surge moves", system="wh40k-11e", scenario=demo)
    Scenario.objects.create(document=scenario(name="Somebody's private table"))
    html = client.get("/").content.decode()
    assert "<!doctype html>" in html and demo.share_url() in html
    assert "Surge moves" in html
    assert "Somebody&#x27;s private table" not in html and "Somebody's private table" not in html
    assert 'action="/scenarios/new"' in html and 'action="/scenarios/import"' in html
    assert 'enctype="multipart/form-data"' in html


def test_every_page_carries_the_csrf_header_for_htmx_on_the_body(client):
    html = client.get("/").content.decode()
    match = re.search(
        r"<body hx-headers:inherited='\{\"X-CSRFToken\": \"([A-Za-z0-9]{32,})\"\}'>", html
    )
    assert match is not None


def test_an_htmx_partial_request_gets_only_the_partial(client):
    public_scenario()
    partial = client.get("/", headers=PARTIAL).content.decode()
    assert "<html" not in partial and "Demo scenarios" in partial
    full = client.get("/", headers=FULL).content.decode()
    assert "<html" in full


def test_the_vendored_htmx_is_4_0_1_and_matches_its_noted_hash(client):
    folder = ROOT / "static" / "vendor" / "htmx"
    digest = base64.b64encode(
        hashlib.sha384((folder / "htmx.min.js").read_bytes()).digest()
    ).decode()
    note = (folder / "VERSION").read_text()
    assert "4.0.1" in note and f"sha384-{digest}" in note
    html = client.get("/").content.decode()
    assert f'integrity="sha384-{digest}"' in html


def test_pages_have_no_inline_scripts(client):
    s = public_scenario()
    for url in ("/", s.share_url()):
        html = client.get(url).content.decode()
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), url
        assert " hx-on" not in html and " onclick=" not in html


# -- new and import --------------------------------------------------------------------------


def test_a_new_scenario_is_an_empty_table_of_the_chosen_size(client):
    response = client.post(
        "/scenarios/new", {"name": "Skirmish", "table": "warmaster-revolution:180x120"}
    )
    s = Scenario.objects.get()
    assert response.status_code == 302 and response["Location"] == s.get_absolute_url()
    assert s.system == "warmaster-revolution" and s.document["table"] == {
        "width": 180,
        "height": 120,
    }
    assert client.get(s.get_absolute_url()).status_code == 200


def test_a_new_scenario_with_htmx_redirects_the_browser(client):
    response = client.post(
        "/scenarios/new", {"name": "Skirmish", "table": "wh40k-11e:60x44"}, headers=PARTIAL
    )
    assert (
        response.status_code == 200
        and response["HX-Redirect"] == Scenario.objects.get().get_absolute_url()
    )


def test_a_new_scenario_form_with_errors_answers_its_partial_with_422(client):
    response = client.post("/scenarios/new", {"name": "", "table": "chess:8x8"}, headers=PARTIAL)
    html = response.content.decode()
    assert response.status_code == 422 and html.lstrip().startswith('<form id="new-form"')
    assert Scenario.objects.count() == 0


def test_an_imported_scenario_opens_on_its_own_page(client):
    response = upload(client, scenario())
    s = Scenario.objects.get()
    assert response.status_code == 302 and response["Location"] == s.get_absolute_url()
    html = client.get(response["Location"]).content.decode()
    assert "Two squads and a ruin" in html and "<svg" in html
    assert "Khorne Berzerkers" in html and "World Eaters" in html  # the legend


@pytest.mark.parametrize(
    "data, message",
    [
        (json.dumps(scenario(colour="red")).encode(), "colour: unknown field"),
        (
            json.dumps(scenario(units=[dict(scenario()["units"][0], army="green")])).encode(),
            "units[0].army: no army with id",
        ),
        (b'{"format": "arbiter', "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_a_wrong_import_names_the_field_and_stores_nothing(client, data, message):
    response = upload(client, data)
    assert response.status_code == 422
    assert message in response.content.decode().replace("&#x27;", "'")
    assert Scenario.objects.count() == 0


def test_a_wrong_import_over_htmx_swaps_only_the_import_form(client):
    response = upload(client, scenario(system="chess"), **PARTIAL)
    html = response.content.decode()
    assert response.status_code == 422 and html.lstrip().startswith('<form id="import-form"')
    assert "system: must be one of" in html


def test_an_import_over_the_size_limit_is_refused(client):
    response = upload(client, b" " * (LIMITS["document_bytes"] + 1))
    assert response.status_code == 413 and "limit is 1,000,000 bytes" in response.content.decode()
    assert Scenario.objects.count() == 0


# -- the owner's page --------------------------------------------------------------------------


def test_only_the_owner_may_edit_a_scenario(client):
    s = imported(client)
    assert client.get(s.get_absolute_url()).status_code == 200
    stranger = Client()
    assert stranger.get(s.get_absolute_url()).status_code == 404
    assert stranger.post(s.get_absolute_url(), {"name": "Mine now"}).status_code == 404
    assert stranger.get(f"/scenarios/{s.pk}/scenario.json").status_code == 404


def test_renaming_moves_the_version_on_and_answers_the_heading_partial(client):
    s = imported(client)
    response = client.post(
        s.get_absolute_url(), {"name": "Renamed", "version": s.version}, headers=PARTIAL
    )
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<div id="heading"')
    assert "Renamed" in html and "version 2" in html


def test_the_scenario_page_partial_is_the_content_only(client):
    s = imported(client)
    html = client.get(s.get_absolute_url(), headers=PARTIAL).content.decode()
    assert "<html" not in html and "<svg" in html and 'id="heading"' in html


def test_export_gives_back_the_imported_document(client):
    doc = scenario()
    s = imported(client, doc)
    response = client.get(f"/scenarios/{s.pk}/scenario.json")
    assert response["Content-Type"].startswith("application/json")
    assert 'attachment; filename="two-squads-and-a-ruin.json"' == response["Content-Disposition"]
    assert json.loads(response.content) == doc
    # and it imports again unchanged
    again = imported(client, json.loads(response.content))
    assert again.document == doc


# -- sharing --------------------------------------------------------------------------------


def test_the_share_page_is_read_only(client):
    s = imported(client)
    stranger = Client()
    response = stranger.get(s.share_url())
    html = response.content.decode()
    assert response.status_code == 200 and "<svg" in html and "read-only" in html
    assert 'class="rename"' not in html and 'name="name"' not in html
    assert "Copy to edit" in html
    assert stranger.post(s.share_url(), {"name": "x"}).status_code == 405
    assert client.post(s.share_url(), {"name": "x"}).status_code == 405  # even for the owner
    assert Scenario.objects.get(pk=s.pk).version == 1


def test_a_guessed_token_or_a_primary_key_in_its_place_is_not_found(client):
    s = public_scenario()
    assert client.get(f"/s/{s.pk}/").status_code == 404
    neighbour = s.share_token[:-1] + ("B" if s.share_token.endswith("A") else "A")
    assert client.get(f"/s/{neighbour}/").status_code == 404
    assert client.get("/s/" + "A" * 32 + "/").status_code == 404
    assert client.get(f"/s/{s.pk}/table.png").status_code == 404
    assert client.get(f"/s/{s.pk}/scenario.json").status_code == 404


def test_the_share_page_has_open_graph_tags_with_the_absolute_png_url(client):
    s = public_scenario()
    html = client.get(s.share_url()).content.decode()
    image = re.search(r'<meta property="og:image" content="([^"]+)">', html).group(1)
    assert image.startswith("http://testserver/s/") and s.share_token in image
    assert '<meta property="og:title" content="Two squads and a ruin">' in html
    assert f'<meta property="og:url" content="http://testserver{s.share_url()}">' in html
    response = client.get(image.removeprefix("http://testserver"))
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response.content.startswith(b"\x89PNG")


def test_the_png_answers_not_modified_for_the_same_version(client):
    s = public_scenario()
    first = client.get(f"/s/{s.share_token}/table.png")
    again = client.get(f"/s/{s.share_token}/table.png", headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304
    download = client.get(f"/s/{s.share_token}/table.png?download=1")
    assert download["Content-Disposition"].startswith("attachment;")


def test_the_share_page_offers_the_json_download_to_anyone(client):
    s = public_scenario()
    response = Client().get(f"/s/{s.share_token}/scenario.json")
    assert response.status_code == 200 and json.loads(response.content) == s.document


def test_copy_to_edit_gives_this_visitor_an_editable_copy(client):
    original = public_scenario()
    response = client.post(f"/s/{original.share_token}/copy")
    copy = Scenario.objects.exclude(pk=original.pk).get()
    assert response.status_code == 302 and response["Location"] == copy.get_absolute_url()
    page = client.get(copy.get_absolute_url())
    assert page.status_code == 200 and 'class="rename"' in page.content.decode()
    assert copy.document == original.document and copy.forked_from == original
    # the original, public, stays read-only for this visitor
    original_page = client.get(original.get_absolute_url())
    assert original_page.status_code == 200
    assert 'class="rename"' not in original_page.content.decode()


def test_copy_to_edit_needs_a_post(client):
    s = public_scenario()
    assert client.get(f"/s/{s.share_token}/copy").status_code == 405


def test_the_share_page_partial_is_the_content_only(client):
    s = public_scenario()
    html = client.get(s.share_url(), headers=PARTIAL).content.decode()
    assert "<html" not in html and "<svg" in html and "og:image" not in html


def test_a_warmaster_table_is_drawn_with_its_grid_note_in_cm(client):
    s = Scenario.objects.create(
        document={
            "format": "arbiter.scenario/1",
            "system": "warmaster-revolution",
            "name": "Flyers",
            "table": {"width": 180, "height": 120},
            "terrain": [],
            "armies": [{"id": "a"}],
            "units": [
                {
                    "id": "E",
                    "army": "a",
                    "name": "Giant Eagles",
                    "keywords": ["FLYING"],
                    "move": 100,
                    "models": [{"id": "E1", "base": {"rect": [40, 20]}, "x": 50, "y": 50}],
                }
            ],
        }
    )
    html = client.get(s.share_url()).content.decode()
    assert "10 cm" in html and "180 × 120 cm" in html and "Giant Eagles" in html


def test_an_unknown_url_is_not_found(client):
    assert client.get("/scenarios/999999/").status_code == 404
    assert client.get("/scenarios/999999/scenario.json").status_code == 404


def test_only_public_scenarios_may_be_indexed_by_search_engines(client):
    public, private = public_scenario(), Scenario.objects.create(document=scenario())
    assert 'name="robots"' not in client.get(public.share_url()).content.decode()
    assert (
        '<meta name="robots" content="noindex">' in client.get(private.share_url()).content.decode()
    )
