"""The ruler on the pages that only show a table (issue 13, "Measuring everywhere"): the share
page and both tables of a step page measure model to model with the editor's ruler, on a
390 x 844 touch phone and at 1280 x 800, for a visitor without an account."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from battlefield.models import Scenario, Step
from rules import Move, Situation, adjudicate

pytestmark = pytest.mark.django_db(transaction=True)
DEMO = Path(__file__).resolve().parents[2] / "battlefield" / "demo"
PHONE = {"width": 390, "height": 844}

# B1 (32 mm base, radius 0.630 in) starts at 24.4, 19.4; C1 (50 mm, radius 0.984 in) stands at
# 30, 19.5: centres 5.601 in apart, 3.99 in between the bases, out of engagement range.
BEFORE = "3.99″"
# The surge ends B1 at 28, 19.4: centres 2.0025 in apart, 0.39 in between the bases.
AFTER = "0.39″"


@pytest.fixture
def surge() -> Scenario:
    """The surge scenario, shared by link, with the demo surge committed as step 0."""
    document = json.loads((DEMO / "scenarios" / "surge-berzerkers.json").read_text())
    scenario = Scenario.objects.create(
        document=document, name="Surge", visibility=Scenario.Visibility.UNLISTED
    )
    move_doc = json.loads((DEMO / "moves" / "surge-berzerkers.json").read_text())
    situation = Situation.from_document(document)
    verdict = adjudicate(situation, Move.from_document(move_doc, situation.system))
    assert verdict.legal
    Step.append(scenario, move_doc, verdict.as_dict(), before=document)
    return scenario


@pytest.fixture
def phone(new_context):
    page = new_context(PHONE, has_touch=True, is_mobile=True).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert not errors, errors


@pytest.fixture
def desktop(new_context):
    page = new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert not errors, errors


def centre(page, board: str, model: str) -> tuple[float, float]:
    base = page.locator(f'{board} g.model[data-model="{model}"] .base')
    base.scroll_into_view_if_needed()
    box = base.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def measure(page, board: str, ends=("B1", "C1"), *, touch: bool) -> None:
    """Press the board's Ruler button, then tap (or click) the two models."""
    ruler = page.locator(f"{board} [data-tool='ruler']")
    ruler.click()
    expect(ruler).to_have_attribute("aria-pressed", "true")
    for model in ends:
        x, y = centre(page, board, model)
        if touch:
            page.touchscreen.tap(x, y)
        else:
            page.mouse.click(x, y)


def test_measuring_model_to_model_on_the_share_page_on_a_phone(surge, phone, screenshot):
    phone.goto(f"/s/{surge.share_token}/")
    measure(phone, "#scenario-board", touch=True)
    output = phone.locator("#scenario-board [data-ruler-output]")
    expect(output.locator("strong")).to_have_text(BEFORE)
    expect(output).to_contain_text("not in engagement range")
    expect(phone.locator("#scenario-board .ruler-reading")).to_have_text(BEFORE)
    screenshot(phone, "share-phone")


def test_measuring_on_a_step_pages_before_and_after_tables_on_a_phone(surge, phone, screenshot):
    phone.goto(f"/s/{surge.share_token}/steps/0/")
    measure(phone, "#after-board", touch=True)
    expect(phone.locator("#after-board [data-ruler-output] strong")).to_have_text(AFTER)
    measure(phone, "#before-board", touch=True)
    expect(phone.locator("#before-board [data-ruler-output] strong")).to_have_text(BEFORE)
    screenshot(phone, "step-phone")


def test_measuring_model_to_model_on_the_share_page_at_desktop_size(surge, desktop, screenshot):
    desktop.goto(f"/s/{surge.share_token}/")
    measure(desktop, "#scenario-board", touch=False)
    expect(desktop.locator("#scenario-board [data-ruler-output] strong")).to_have_text(BEFORE)
    screenshot(desktop, "share-desktop")


def test_measuring_on_a_step_page_at_desktop_size_and_with_keys(surge, desktop, screenshot):
    desktop.goto(f"/s/{surge.share_token}/steps/0/")
    measure(desktop, "#after-board", touch=False)
    output = desktop.locator("#after-board [data-ruler-output]")
    expect(output.locator("strong")).to_have_text(AFTER)
    expect(output).to_contain_text("within engagement range")
    expect(desktop.locator("#after-board .ruler-reading")).to_have_text(AFTER)
    screenshot(desktop, "step-desktop")
    # The keys: R on a model, then R on another (the before table, from the keyboard).
    desktop.locator('#before-board g.model[data-model="B1"]').focus()
    desktop.keyboard.press("r")
    desktop.locator('#before-board g.model[data-model="C1"]').focus()
    desktop.keyboard.press("r")
    expect(desktop.locator("#before-board [data-ruler-output] strong")).to_have_text(BEFORE)
    # Enter on a table only looked at sends nothing: the page and its reading stay.
    here = desktop.url
    desktop.keyboard.press("Enter")
    desktop.wait_for_load_state()
    expect(desktop.locator("#before-board [data-ruler-output] strong")).to_have_text(BEFORE)
    assert desktop.url == here
