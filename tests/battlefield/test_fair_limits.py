"""Fair limits (issue 15): guessing a password slows the guesser without locking the owner out,
the admin's log-in is under the same limits, signed-in users are counted per user (a club's wifi
is one address), refused requests write no counter rows, and the API reads only JSON."""

import json

import pytest
from django.test import Client

from battlefield.models import RateCounter
from tests.documents import move, scenario

pytestmark = pytest.mark.django_db
RIGHT = "right password 1"


@pytest.fixture
def limits(settings, django_user_model):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.RATE_LIMITS = {
        "login": (3, 300),
        "login_address": (20, 300),
        "login_account": (5, 3600),
        "api": (2, 60),
    }
    django_user_model.objects.create_user("ann", password=RIGHT)
    return settings.RATE_LIMITS


def log_in(client: Client, password: str, name: str = "ann", url: str = "/accounts/login/"):
    return client.post(url, {"username": name, "password": password})


def test_wrong_passwords_from_one_address_do_not_lock_the_owner_out_elsewhere(limits):
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(3):
        assert log_in(attacker, "guess").status_code == 200
    assert log_in(attacker, "guess").status_code == 429
    assert log_in(attacker, RIGHT).status_code == 429  # the guesser is slowed down
    owner = Client(REMOTE_ADDR="198.51.100.7")
    assert log_in(owner, RIGHT).status_code == 302
    assert "_auth_user_id" in owner.session


def test_a_slow_guess_from_many_addresses_meets_the_account_back_off(limits):
    for i in range(5):
        assert log_in(Client(REMOTE_ADDR=f"203.0.113.{i}"), "guess").status_code == 200
    # A new address, even with the right password: the account is backing off.
    assert log_in(Client(REMOTE_ADDR="192.0.2.1"), RIGHT).status_code == 429


def test_the_owner_passes_the_account_back_off_from_a_known_device(limits):
    owner = Client(REMOTE_ADDR="198.51.100.7")
    assert log_in(owner, RIGHT).status_code == 302  # this browser is now known for "ann"
    owner.post("/accounts/logout/")
    for i in range(6):
        log_in(Client(REMOTE_ADDR=f"203.0.113.{i}"), "guess")
    assert log_in(Client(REMOTE_ADDR="192.0.2.1"), RIGHT).status_code == 429
    assert log_in(owner, RIGHT).status_code == 302
    assert "_auth_user_id" in owner.session


def test_the_admin_log_in_is_under_the_same_limits(limits):
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(3):
        log_in(attacker, "guess", url="/admin/login/")
    assert log_in(attacker, "guess", url="/admin/login/").status_code == 429
    assert log_in(attacker, "guess").status_code == 429  # the same count as the site's log-in
    for i in range(5):
        log_in(Client(REMOTE_ADDR=f"192.0.2.{i}"), "guess", url="/admin/login/")
    assert log_in(Client(REMOTE_ADDR="192.0.2.77"), RIGHT, url="/admin/login/").status_code == 429


def test_refused_log_ins_write_no_counter_rows(limits):
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(3):
        log_in(attacker, "guess")
    rows = RateCounter.objects.count()
    counts = sorted(RateCounter.objects.values_list("key", "count"))
    for _ in range(10):
        assert log_in(attacker, "guess").status_code == 429
    assert RateCounter.objects.count() == rows
    assert sorted(RateCounter.objects.values_list("key", "count")) == counts


def test_a_log_in_name_with_any_characters_makes_a_short_key(limits):
    log_in(Client(), "x", name="\x00" * 100 + "a" * 1000)
    assert all(
        len(key) <= 200 and "\x00" not in key
        for key in RateCounter.objects.values_list("key", flat=True)
    )


def test_signed_in_users_behind_one_address_are_counted_apart(limits, django_user_model):
    body = json.dumps({"scenario": scenario(), "move": move()})
    first, second = Client(REMOTE_ADDR="10.9.9.9"), Client(REMOTE_ADDR="10.9.9.9")
    first.force_login(django_user_model.objects.get(username="ann"))
    second.force_login(django_user_model.objects.create_user("bob"))
    for _ in range(2):
        assert (
            first.post("/api/v1/adjudicate", body, content_type="application/json").status_code
            == 200
        )
    assert (
        first.post("/api/v1/adjudicate", body, content_type="application/json").status_code == 429
    )
    assert (
        second.post("/api/v1/adjudicate", body, content_type="application/json").status_code == 200
    )


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_the_api_reads_only_json(content_type, settings):
    settings.RATE_LIMITS = {}
    body = json.dumps({"scenario": scenario(), "move": move()})
    response = Client().post("/api/v1/adjudicate", body, content_type=content_type)
    assert response.status_code == 415
    assert "application/json" in response.json()["error"]
    ok = Client().post("/api/v1/adjudicate", body, content_type="application/json; charset=utf-8")
    assert ok.status_code == 200


# -- the smaller items -------------------------------------------------------------------------


def test_debug_is_off_unless_the_environment_turns_it_on():
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DJANGO_SETTINGS_MODULE")}
    code = "from django.conf import settings; print(settings.DEBUG)"
    run = dict(cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True)
    env["DJANGO_SETTINGS_MODULE"] = "arbiter.settings"
    off = subprocess.run([sys.executable, "-c", code], env={**env, "SECRET_KEY": "k"}, **run)
    assert off.stdout.strip() == "False", off.stderr
    on = subprocess.run([sys.executable, "-c", code], env={**env, "DEBUG": "true"}, **run)
    assert on.stdout.strip() == "True", on.stderr
    unset = subprocess.run([sys.executable, "-c", code], env=env, **run)
    assert unset.returncode != 0 and "SECRET_KEY must be set" in unset.stderr


@pytest.fixture
def editor_of(django_user_model):
    from battlefield.models import Scenario

    user = django_user_model.objects.create_user("ed")
    client = Client()
    client.force_login(user)
    return client, Scenario.objects.create(document=scenario(), owner=user)


def test_a_rename_must_say_which_version_it_was_made_on(editor_of):
    client, s = editor_of
    response = client.post(f"/scenarios/{s.pk}/", {"name": "Renamed"})
    assert response.status_code == 400
    s.refresh_from_db()
    assert s.name == scenario()["name"]
    assert (
        client.post(f"/scenarios/{s.pk}/", {"name": "Renamed", "version": s.version}).status_code
        == 302
    )


def test_changing_who_may_see_it_must_say_the_version_too(editor_of):
    client, s = editor_of
    assert client.post(f"/scenarios/{s.pk}/sharing", {"visibility": "public"}).status_code == 400


def test_an_undo_without_the_version_takes_nothing_back(editor_of):
    from battlefield.models import Step

    client, s = editor_of
    before = s.document
    s.document = {**s.document, "name": "after a step"}
    s.save()
    Step.append(s, move(), {"legal": True}, before=before)
    steps = Step.objects.count()
    response = client.post(f"/scenarios/{s.pk}/move/undo")
    assert response.status_code == 409
    assert Step.objects.count() == steps


def test_head_on_pictures_works():
    from battlefield.models import Scenario

    s = Scenario.objects.create(document=scenario(), visibility="public")
    response = Client().head(f"/s/{s.share_token}/table.png")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"


def test_backups_are_readable_by_their_owner_only(tmp_path, settings):
    import sqlite3

    from django.core.management import call_command

    if not settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        pytest.skip("the SQLite backup")
    source = tmp_path / "live.sqlite3"
    sqlite3.connect(source).close()
    # A new DATABASES (the settings fixture restores it), never the live dict changed in place:
    # that leaked this path into every later test of the worker.
    default = {**settings.DATABASES["default"], "NAME": str(source)}
    settings.DATABASES = {**settings.DATABASES, "default": default}
    out = tmp_path / "backups"
    call_command("backup", "--output", str(out), stdout=open("/dev/null", "w"))
    (backup,) = out.iterdir()
    assert backup.stat().st_mode & 0o077 == 0
    assert out.stat().st_mode & 0o077 == 0


def test_a_form_body_over_the_memory_limit_is_413_even_before_the_csrf_check(editor_of, settings):
    client, s = editor_of
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = client.cookies
    response = strict.post(
        f"/scenarios/{s.pk}/",
        "name=" + "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10),
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 413


def test_the_stepper_preview_counts_against_the_adjudication_limit(limits):
    from battlefield.models import Scenario

    s = Scenario.objects.create(document=scenario(), visibility="public")
    url = f"/s/{s.share_token}/move?unit=B&type=normal"
    statuses = [Client().get(url).status_code for _ in range(3)]
    assert statuses[:2] == [200, 200] and statuses[2] == 429
    assert Client().get(f"/s/{s.share_token}/move").status_code == 200  # choosing is free
