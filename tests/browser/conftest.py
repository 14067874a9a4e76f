"""Shared Playwright fixtures for the browser journeys (tests/browser/).

Debian's Chromium (/usr/bin/chromium) drives the pages, never a downloaded browser. Each test gets
a fresh browser context (its own cookies and storage) against pytest-django's ``live_server``;
the browser process itself is shared by a module's tests to keep the journeys fast.

Fixtures:
- ``browser``: the Chromium browser, launched headless with the flags below and a fresh
  user-data directory; one per test module (module scope, not session: Playwright's sync API
  allows one running instance per thread, so a module with its own `sync_playwright()` must
  find ours stopped).
- ``context`` / ``page``: a new context and page per test, 1280 x 800 unless the test asks for
  another viewport with ``@pytest.mark.viewport(width, height)``.
- ``new_context``: a factory for further contexts in the same test (e.g. "open the step link in a
  fresh browser context without logging in"); all are closed after the test.
- ``screenshot``: ``screenshot(page, "name")`` saves test-artifacts/<test>-<name>.png and returns
  the path (the folder is gitignored; CI can keep it as an artefact).
- ``site``: the live server's base URL (a string without the trailing slash).
- ``login``: ``login(context_or_page, user)`` signs that browser context in as ``user`` (a
  session made by Django's test client, its cookie handed to the browser), so journeys need no
  sign-in form.

Every test in this folder is marked ``browser`` automatically; deselect them with
``-m "not browser"``. If Chromium is missing the tests are skipped with a plain reason.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django refuses ORM calls from a thread
# with a running loop unless told this is deliberate (the test thread only sets up data).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "viewport(width, height): the browser viewport for this test's page"
    )


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def _playwright():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Debian's Chromium is not installed at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="module")
def browser(_playwright):
    """Chromium, headless. Playwright's launch() gives it a fresh temporary user-data directory
    of its own (and removes it on close); every context on top is fresh as well."""
    browser = _playwright.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    yield browser
    browser.close()


@pytest.fixture
def new_context(browser, live_server):
    """A factory for fresh browser contexts (no cookies, no storage) based at the live server."""
    opened = []

    def make(viewport: dict | None = None, **options):
        context = browser.new_context(
            base_url=live_server.url, viewport=viewport or DESKTOP, **options
        )
        context.set_default_timeout(10_000)
        # Table pictures (PNG thumbnails, link previews) are not what these tests look at, and a
        # picture still being drawn by the live server when a test ends races the database
        # flush (the live server shares the test's in-memory SQLite connection).
        context.route("**/*.png*", lambda route: route.abort())
        opened.append(context)
        return context

    yield make
    for context in opened:
        context.close()


@pytest.fixture
def context(new_context, request):
    marker = request.node.get_closest_marker("viewport")
    viewport = None
    if marker is not None:
        width, height = marker.args
        viewport = {"width": width, "height": height}
    return new_context(viewport)


@pytest.fixture
def page(context):
    """A page in a fresh context; JavaScript errors and Content Security Policy violations fail
    the test (they are collected and checked when the test ends)."""
    page = context.new_page()
    errors: list[str] = []
    page.errors = errors  # tests may also assert on it mid-way
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and errors.append(message.text),
    )
    yield page
    assert not errors, f"JavaScript errors or CSP violations on the page: {errors}"


@pytest.fixture
def site(live_server) -> str:
    return live_server.url.rstrip("/")


@pytest.fixture
def screenshot(request):
    """Save a screenshot into test-artifacts/ (``full_page`` by default) and return its path."""

    def take(page, name: str, *, full_page: bool = True, locator=None) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        test = re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.name)
        path = ARTIFACTS / f"{test}-{name}.png"
        if locator is not None:
            locator.screenshot(path=str(path))
        else:
            page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


@pytest.fixture
def login(live_server):
    """Sign a browser context (or a page's context) in as a user."""
    from django.conf import settings
    from django.test import Client

    def sign_in(target, user):
        context = getattr(target, "context", target)
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME]
        context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": live_server.url}]
        )

    return sign_in
