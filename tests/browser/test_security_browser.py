"""In Chromium: signing up, the owner's controls and a stale rename work under the Content
Security Policy, and no page reports a CSP violation."""

import os
from pathlib import Path

import pytest

from battlefield.models import Scenario
from tests.documents import scenario

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_then_share_rename_and_delete_without_csp_violations(page, live_server, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    base = live_server.url
    page.goto(f"{base}/")
    assert page.locator(".account-needed").is_visible()
    page.click("text=Sign up")
    page.fill("#id_username", "alice")
    page.fill("#id_email", "alice@example.org")
    page.fill("#id_password1", "correct horse battery staple")
    page.fill("#id_password2", "correct horse battery staple")
    page.click("button:has-text('Create my account')")
    page.wait_for_url(f"{base}/")
    assert page.locator("nav.account").inner_text().count("alice") == 1

    page.click("button:has-text('Create scenario')")
    page.wait_for_url(f"{base}/scenarios/*/")
    s = Scenario.objects.get()
    page.select_option("#id_visibility", "private")
    page.click("#sharing-form button[type=submit]")
    page.wait_for_load_state()
    s.refresh_from_db()
    assert s.visibility == "private"

    # someone else renames it meanwhile: this page's rename is then refused, theirs kept
    Scenario.objects.get(pk=s.pk).rename("Renamed elsewhere")
    page.fill("#id_name", "My name")
    page.click("button:has-text('Rename')")
    alert = page.locator("[role=alert]").filter(has_text="Someone else changed")
    alert.wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "accounts-stale-rename.png"), full_page=True)
    s.refresh_from_db()
    assert s.name == "Renamed elsewhere"

    page.goto(f"{base}{s.get_absolute_url()}")
    page.click("button:has-text('Delete scenario')")
    page.wait_for_url(f"{base}/")
    s.refresh_from_db()
    assert s.deleted_at is not None
    assert page.errors == []


def test_shared_pages_and_forms_report_no_csp_violation(page, live_server):
    public = Scenario.objects.create(document=scenario(), visibility="public")
    for path in ("/", public.share_url(), "/accounts/login/", "/accounts/password_reset/"):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
    assert page.evaluate("typeof htmx") == "object"  # the vendored script ran under the policy
    assert page.errors == []
