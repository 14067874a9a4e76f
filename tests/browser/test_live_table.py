"""The live table in two browsers (issue 17): one player commits a step, the other, halfway
through placing a move of their own on the same scenario, sees a banner within 3 s and loses
nothing they typed. A page in a background tab stops polling.

Browsers come from the shared tests/browser/conftest.py (one Chromium launch)."""

from __future__ import annotations

import time

import pytest

from battlefield.models import Scenario
from tests.battlefield.test_steps import rolled_normal_move
from tests.documents import scenario
from tests.registry import judge_move_type

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PLACE = "unit=B&type=normal&roll=hand&dice=3"
MOVED = "pose-B1-x=30&pose-B1-y=25&pose-B2-x=31.5&pose-B2-y=25"
#: Set the Page Visibility API's state as the browser does for a background / foreground tab.
SET_VISIBILITY = """(state) => {
    Object.defineProperty(document, "visibilityState", {configurable: true, get: () => state});
    document.dispatchEvent(new Event("visibilitychange"));
}"""


@pytest.fixture
def table(monkeypatch, django_user_model):
    """A shared scenario whose 40K normal moves a plumbing rule judges legal (the engine's own
    rules are tested elsewhere; this is about the page)."""
    judge_move_type(monkeypatch, "wh40k-11e", "normal", adjudicate=rolled_normal_move)
    owner = django_user_model.objects.create_user("owner")
    return Scenario.objects.create(
        document=scenario(), owner=owner, visibility=Scenario.Visibility.UNLISTED
    )


def watch(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and errors.append(message.text),
    )
    return errors


def test_a_committed_step_reaches_the_other_phone_within_3_s_and_keeps_its_typing(
    new_context, login, table
):
    mover = new_context().new_page()
    login(mover, table.owner)
    watcher = new_context().new_page()  # another player, no account: the share link
    errors, watcher_errors = watch(mover), watch(watcher)

    mover.goto(f"/scenarios/{table.pk}/move?{PLACE}&{MOVED}")
    mover.locator("#commit-button").wait_for()
    watcher.goto(f"/s/{table.share_token}/move?{PLACE}")
    half_placed = watcher.locator('[name="pose-B1-x"]')
    half_placed.fill("29.5")  # typed, not checked: a half-placed move
    watcher_url = watcher.url
    assert watcher.locator(".live-banner").count() == 0

    mover.locator("#commit-button").click()
    mover.wait_for_selector("text=Step 0 committed")
    committed_at = time.monotonic()
    banner = watcher.locator(".live-banner")
    banner.wait_for(timeout=3000)
    seen_after = time.monotonic() - committed_at
    assert seen_after < 3.0

    assert "The table changed" in banner.inner_text()
    assert banner.get_by_role("link", name="Step 0").get_attribute("href") == (
        f"/s/{table.share_token}/steps/0/"
    )
    assert (
        banner.get_by_role("link", name="Show version 2")
        .get_attribute("href")
        .startswith(f"/s/{table.share_token}/move?")
    )
    assert half_placed.input_value() == "29.5"  # nothing typed is lost
    assert watcher.url == watcher_url  # no reload
    assert not errors and not watcher_errors


def test_a_background_tab_stops_polling_and_asks_again_when_shown(new_context, table):
    page = new_context().new_page()
    errors = watch(page)
    polls: list[str] = []
    page.on("request", lambda request: "/live?" in request.url and polls.append(request.url))
    page.goto(table.share_url())
    page.wait_for_event("request", lambda r: "/live?" in r.url, timeout=5000)  # polling
    # Hide the page as a background tab would be (the Page Visibility API's state).
    page.evaluate(SET_VISIBILITY, "hidden")
    time.sleep(0.3)
    asked = len(polls)
    page.wait_for_timeout(4500)  # two poll intervals and more
    assert len(polls) == asked, "a background tab must not poll"
    table.rename("Changed while hidden")
    with page.expect_request(lambda r: "/live?" in r.url, timeout=1500):
        page.evaluate(SET_VISIBILITY, "visible")
    page.locator(".live-banner").wait_for(timeout=3000)
    assert not errors
