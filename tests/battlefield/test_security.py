"""Hardening (issue 7): Content Security Policy on every page with no inline script, the
production settings pass `check --deploy`, the health endpoint, request size limits, and edits
against a stale version answered with 409 without losing the other person's change."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

from battlefield.models import Club, Invite, Membership, Scenario
from tests.documents import scenario

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}

#: The production environment of README "Deploying for a club" (with example values).
PRODUCTION_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "arbiter.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://arbiter.example.org",
    "EMAIL_HOST": "smtp.example.org",
    "DEFAULT_FROM_EMAIL": "arbiter@example.org",
}


def test_the_production_environment_passes_djangos_deployment_check(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(PRODUCTION_ENV, SQLITE_PATH=str(tmp_path / "db.sqlite3"))
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update(DEBUG="false")
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


# -- CSP on every page -------------------------------------------------------------------------


@pytest.fixture
def site(django_user_model):
    """One of everything a page can show, and a signed-in organiser."""
    user = django_user_model.objects.create_user("alice")
    club = Club.objects.create(name="Dice Club", slug="dice-club")
    Membership.objects.create(club=club, user=user, role="organiser")
    mine = Scenario.objects.create(document=scenario(), owner=user, club=club, visibility="club")
    public = Scenario.objects.create(document=scenario(), visibility="public")
    invite = Invite.objects.create(club=club, created_by=user)
    from battlefield.models import Step

    Step.append(mine, {"unit": "B", "type": "normal"}, {"legal": False}, before=mine.document)
    deleted = Scenario.objects.create(document=scenario(), owner=user)
    deleted.soft_delete()
    client, newcomer = Client(), Client()
    client.force_login(user)
    newcomer.force_login(django_user_model.objects.create_user("bob"))
    return {
        "client": client,
        "newcomer": newcomer,
        "mine": mine,
        "public": public,
        "club": club,
        "invite": invite,
    }


def every_page(site) -> list[tuple[Client, str]]:
    signed_in, anonymous = site["client"], Client()
    return [
        (anonymous, "/"),
        (signed_in, "/"),
        (anonymous, site["public"].share_url()),
        (signed_in, site["mine"].get_absolute_url()),
        (signed_in, site["mine"].share_url()),
        (anonymous, "/accounts/login/"),
        (anonymous, "/accounts/signup/"),
        (anonymous, "/accounts/password_reset/"),
        (anonymous, "/accounts/password_reset/done/"),
        (anonymous, "/accounts/reset/MQ/set-password/"),
        (anonymous, "/accounts/reset/done/"),
        (signed_in, "/accounts/password_change/"),
        (signed_in, "/accounts/password_change/done/"),
        (signed_in, "/clubs/"),
        (signed_in, site["club"].get_absolute_url()),
        (site["newcomer"], site["invite"].get_absolute_url()),
        (signed_in, "/scenarios/deleted"),
        (signed_in, f"/scenarios/{site['mine'].pk}/move"),
        (signed_in, f"/scenarios/{site['mine'].pk}/move?unit=B"),
        (signed_in, f"{site['mine'].share_url()}steps/0/"),
        (signed_in, f"/scenarios/{site['mine'].pk}/edit"),
    ]


def assert_policy_and_no_inline_script(response, url):
    assert response.status_code == 200, url
    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy, url
    assert "'unsafe-inline'" not in policy and "frame-ancestors 'none'" in policy, url
    html = response.content.decode()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), url
    assert not re.search(r"\s(on[a-z]+|hx-on[:\w-]*)\s*=", html), url
    assert "javascript:" not in html, url


def test_every_page_carries_the_content_security_policy_and_no_inline_script(site):
    for client, url in every_page(site):
        assert_policy_and_no_inline_script(client.get(url), url)


def test_every_lesson_page_carries_the_policy_too():
    from io import StringIO

    from django.core.management import call_command

    from battlefield.models import Lesson

    call_command("load_demo", stdout=StringIO())
    lessons = list(Lesson.objects.all())
    assert lessons, "the demo data has lessons"
    client = Client()
    for lesson in lessons[:3]:
        for number in range(1, len(lesson.steps) + 1):
            url = f"/lessons/{lesson.slug}/{number}/"
            assert_policy_and_no_inline_script(client.get(url), url)


def test_error_answers_carry_the_policy_too(site):
    s = site["mine"]
    stale = site["client"].post(s.get_absolute_url(), {"name": "x", "version": "0"})
    assert stale.status_code == 409 and "Content-Security-Policy" in stale
    missing = Client().get("/scenarios/999999/")
    assert missing.status_code == 404 and "Content-Security-Policy" in missing


def test_pages_may_not_be_framed_or_sniffed(site):
    response = Client().get("/")
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


# -- health ------------------------------------------------------------------------------------


def test_the_health_endpoint_pings_the_database():
    response = Client().get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok", "database": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_the_health_endpoint_answers_503_when_the_database_is_down(monkeypatch):
    def broken():
        raise connection.Database.OperationalError("database is locked")

    monkeypatch.setattr(connection, "cursor", broken)
    response = Client().get("/healthz")
    assert response.status_code == 503 and response.json()["status"] == "error"


# -- request size ------------------------------------------------------------------------------


def test_a_request_body_over_the_limit_is_refused_unread(settings):
    settings.MAX_REQUEST_BYTES = 1000
    response = Client().post("/accounts/login/", "x" * 1001, content_type="text/plain")
    assert response.status_code == 413 and "the limit is 1,000 bytes" in response.content.decode()
    api = Client().post("/api/v1/adjudicate", "x" * 1001, content_type="application/json")
    assert api.status_code == 413 and api.json()["error"].endswith("the limit is 1,000 bytes.")


def test_a_form_over_djangos_memory_limit_is_413_not_400(settings, django_user_model):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    client = Client()
    client.force_login(django_user_model.objects.create_user("alice"))
    s = Scenario.objects.create(document=scenario(), owner=django_user_model.objects.get())
    response = client.post(s.get_absolute_url(), {"name": "x" * 500})
    assert response.status_code == 413


# -- concurrent edits ----------------------------------------------------------------------------


@pytest.fixture
def two_editors(django_user_model):
    owner = django_user_model.objects.create_user("owner")
    member = django_user_model.objects.create_user("member")
    club = Club.objects.create(name="Dice Club", slug="dice-club")
    for user in (owner, member):
        Membership.objects.create(club=club, user=user)
    s = Scenario.objects.create(document=scenario(), owner=owner, club=club, visibility="club")
    clients = []
    for user in (owner, member):
        client = Client()
        client.force_login(user)
        clients.append(client)
    return s, clients


def test_a_rename_made_on_a_stale_version_is_refused_with_409_and_loses_nothing(two_editors):
    s, (owner, member) = two_editors
    # both opened version 1; the member saves first
    page = owner.get(s.get_absolute_url()).content.decode()
    assert 'name="version" value="1"' in page
    saved = member.post(s.get_absolute_url(), {"name": "Member's name", "version": "1"})
    assert saved.status_code == 302
    response = owner.post(
        s.get_absolute_url(),
        {"name": "Owner's name", "version": "1"},
        headers={**PARTIAL, "HX-Current-URL": f"http://testserver{s.get_absolute_url()}"},
    )
    html = response.content.decode()
    assert response.status_code == 409 and "Reload" in html and "theirs is kept" in html
    assert f'href="http://testserver{s.get_absolute_url()}"' in html
    s.refresh_from_db()
    assert s.name == "Member's name" and s.version == 2


def test_the_version_may_come_in_a_header_and_a_current_one_is_accepted(two_editors):
    s, (owner, member) = two_editors
    ok = owner.post(s.get_absolute_url(), {"name": "First"}, headers={"X-Scenario-Version": "1"})
    assert ok.status_code == 302
    stale = member.post(
        s.get_absolute_url(), {"name": "Second"}, headers={"X-Scenario-Version": "1"}
    )
    assert stale.status_code == 409
    s.refresh_from_db()
    assert s.name == "First" and s.version == 2


def test_a_version_that_is_not_a_number_is_a_bad_request(two_editors):
    s, (owner, _) = two_editors
    assert owner.post(s.get_absolute_url(), {"name": "x", "version": "one"}).status_code == 400


def test_changing_visibility_on_a_stale_version_is_refused(two_editors):
    s, (owner, member) = two_editors
    member.post(s.get_absolute_url(), {"name": "Moved on", "version": "1"})
    response = owner.post(
        f"/scenarios/{s.pk}/sharing", {"visibility": "public", "club": "", "version": "1"}
    )
    s.refresh_from_db()
    assert response.status_code == 409 and s.visibility == "club" and s.name == "Moved on"


def test_a_stale_api_style_request_gets_json(two_editors):
    s, (owner, member) = two_editors
    member.post(s.get_absolute_url(), {"name": "Moved on", "version": "1"})
    response = owner.post(
        s.get_absolute_url(), {"name": "x", "version": "1"}, headers={"Accept": "application/json"}
    )
    assert response.status_code == 409 and "Reload" in response.json()["error"]


def test_shared_caches_may_keep_only_pictures_anyone_with_the_link_may_see(django_user_model):
    owner = django_user_model.objects.create_user("owner")
    client = Client()
    client.force_login(owner)
    # Shared caches must ask again before each use (issue 15): a picture stops being served
    # once the scenario is made private or its link rotated.
    for visibility, cache in [
        ("private", "private, max-age=300"),
        ("unlisted", "public, no-cache"),
        ("public", "public, no-cache"),
    ]:
        s = Scenario.objects.create(document=scenario(), owner=owner, visibility=visibility)
        response = client.get(f"/s/{s.share_token}/table.png")
        assert response["Cache-Control"] == cache, visibility


def test_in_production_http_is_redirected_except_the_health_check_and_hsts_is_sent(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(
        PRODUCTION_ENV,
        ALLOWED_HOSTS="testserver",
        SQLITE_PATH=str(tmp_path / "db.sqlite3"),
        PYTHONWARNINGS="ignore",
    )
    code = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'arbiter.settings'; "
        "django.setup(); from django.test import Client; c = Client(); "
        "print(c.get('/healthz').status_code, c.get('/').status_code, c.get('/').get('Location'), "
        "c.get('/healthz', secure=True).get('Strict-Transport-Security'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.split() == [
        "200",  # /healthz answers over plain HTTP (the database file is created on first use)
        "301",
        "https://testserver/",
        "max-age=31536000;",
        "includeSubDomains;",
        "preload",
    ], result.stderr
