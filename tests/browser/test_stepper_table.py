"""The stepper's table in the browser: models placed with the keyboard alone and by dragging
(static/js/table.js paired with the placement form through `data-table`), and the pairing kept
after every htmx swap (Check, Suggest, the verdict's redrawn table)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from battlefield.models import Scenario

pytestmark = [pytest.mark.django_db(transaction=True)]
DEMO = Path(__file__).resolve().parents[2] / "battlefield" / "demo" / "scenarios"
# The Berzerkers' surge of the worked example, 4 on the die (the step's own URL).
SURGE = (
    "unit=B&type=surge&ability=blood-surge&trigger-event=shot&trigger-by=A"
    "&trigger-models_destroyed=2&roll=hand&dice=4&after=done"
)


@pytest.fixture
def surge(django_user_model, login, page) -> Scenario:
    """The surge worked example, owned by a player the page is signed in as."""
    player = django_user_model.objects.create_user("player", password="a long enough password")
    login(page, player)
    document = json.loads((DEMO / "surge-berzerkers.json").read_text())
    return Scenario.objects.create(document=document, owner=player)


def tab_to_the_table(page) -> str:
    """Press Tab until a model on the table has the focus; its id."""
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.matches('g.model')"):
            return page.evaluate("document.activeElement.dataset.model")
    raise AssertionError("Tab never reached the table")


def on_screen(page, x: float, y: float) -> tuple[float, float]:
    """Where table point (x, y) is on the page, through the SVG's own transform."""
    return page.evaluate(
        """([x, y]) => {
            const svg = document.querySelector("#board svg.table");
            const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )


def test_keyboard_only_placement_in_the_stepper(page, site, surge, screenshot):
    page.goto(f"{site}/scenarios/{surge.pk}/move?{SURGE}")
    # The table is one tab stop, and it starts on the first model that may move here.
    assert tab_to_the_table(page) == "B1"
    page.keyboard.press("Shift+ArrowRight")  # 1 in toward the enemy
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("ArrowRight")  # and 0.1 in
    # B1 started at x 24.4: 24.4 + 1 + 1 + 0.1 = 26.5
    expect(page.locator("input[name='pose-B1-x']")).to_have_value("26.5")
    expect(page.locator("[data-status]")).to_contain_text("B1 at 26.5, 19.4")
    page.keyboard.press("Enter")  # Check
    verdict = page.locator("#verdict")
    expect(verdict.locator(".verdict-body")).to_be_visible()
    assert verdict.get_attribute("aria-live") == "polite"
    expect(verdict).to_contain_text(re.compile(r"legal move\.", re.IGNORECASE))
    # The table was redrawn with the verdict; the focus and the binding survive the swap.
    page.wait_for_function("document.activeElement.dataset.model === 'B1'")
    assert page.locator("#board g.model[data-model='B1']").get_attribute("tabindex") == "0"
    page.keyboard.press("]")  # the next model: B2, still movable after the swap
    assert page.evaluate("document.activeElement.dataset.model") == "B2"
    page.keyboard.press("Shift+ArrowDown")
    # B2 started at y 21.1: 21.1 + 1 = 22.1
    expect(page.locator("input[name='pose-B2-y']")).to_have_value("22.1")
    screenshot(page, "keyboard", locator=page.locator("#board"))


def test_dragging_a_model_in_the_stepper_changes_its_pose_fields(page, site, surge):
    page.goto(f"{site}/scenarios/{surge.pk}/move?{SURGE}")
    page.wait_for_selector("#board svg.table.interactive")
    start = on_screen(page, 24.4, 19.4)  # B1
    end = on_screen(page, 27.4, 19.4)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 10, start[1], steps=3)
    page.mouse.move(*end, steps=5)
    page.mouse.up()
    x = float(page.locator("input[name='pose-B1-x']").input_value())
    y = float(page.locator("input[name='pose-B1-y']").input_value())
    # dropped 3 in to the right of where it stood (24.4 + 3), give or take a pixel
    assert x == pytest.approx(27.4, abs=0.1) and y == pytest.approx(19.4, abs=0.1)
    # Check judges the dragged placement: the verdict names the model that moved.
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict .verdict-body")).to_be_visible()


def test_suggest_then_a_drag_on_the_redrawn_table(page, site, surge):
    page.goto(f"{site}/scenarios/{surge.pk}/move?{SURGE}")
    page.get_by_role("button", name="Suggest").click()
    expect(page.locator("#verdict")).to_contain_text("Press Check")
    x0 = float(page.locator("input[name='pose-B1-x']").input_value())
    y0 = float(page.locator("input[name='pose-B1-y']").input_value())
    # The redrawn table is bound again: a drag still writes the (new) pose fields.
    page.wait_for_selector("#board svg.table.interactive")
    start = on_screen(page, x0, y0)
    end = on_screen(page, x0, y0 + 2)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0], start[1] + 10, steps=3)
    page.mouse.move(*end, steps=5)
    page.mouse.up()
    y = float(page.locator("input[name='pose-B1-y']").input_value())
    assert y == pytest.approx(y0 + 2, abs=0.1)
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict .verdict-body")).to_be_visible()


def test_the_lesson_try_it_table_moves_with_the_keyboard(page, site):
    from io import StringIO

    from django.core.management import call_command

    call_command("load_demo", stdout=StringIO())
    page.goto(f"{site}/lessons/surge-basics/")
    last = page.locator(".lesson-steps a").last.get_attribute("href")
    page.goto(f"{site}{last}")
    page.wait_for_selector("#board svg.table.interactive")
    model = tab_to_the_table(page)
    field = page.locator(f"input[name='pose-{model}-x']")
    before = float(field.input_value())
    page.keyboard.press("Shift+ArrowRight")
    expect(field).to_have_value(str(round(before + 1, 3)).removesuffix(".0"))
    page.keyboard.press("Enter")
    expect(page.locator("#verdict .verdict-body")).to_be_visible()


def test_an_anonymous_visitor_tries_a_move_from_the_share_page_and_nothing_is_saved(
    page, site, django_user_model, screenshot
):
    owner = django_user_model.objects.create_user("owner", password="a long enough password")
    document = json.loads((DEMO / "warmaster-home-back.json").read_text())
    s = Scenario.objects.create(document=document, owner=owner, visibility="unlisted")
    page.goto(f"{site}{s.share_url()}")  # not signed in
    page.get_by_role("link", name="Try a move").click()
    expect(page.get_by_role("heading", name="Try a move")).to_be_visible()
    page.get_by_role("link", name="Giant Eagles", exact=True).click()
    page.get_by_role("link", name="Home back (flyers)").click()
    page.get_by_label("Enter physical dice:").check()
    page.get_by_label("Dice values, separated by spaces").fill("5")
    page.get_by_role("button", name="Roll and go on").click()
    # the character to home back to is chosen after the roll, on a step of its own
    page.get_by_label("Home back to", exact=True).select_option("elf-general")
    page.get_by_role("button", name="Go to placement").click()
    expect(page.locator("#max-distance")).to_have_text("50 cm")  # 5 on the die: 5 x 10 cm
    assert f"/s/{s.share_token}/move?" in page.url
    # The placement step came by an htmx swap: its table is bound to the form all the same.
    page.locator("#board g.model[data-model='EA1']").focus()
    page.keyboard.press("Shift+ArrowLeft")
    expect(page.locator("input[name='pose-EA1-x']")).to_have_value("87")  # from 88, 1 cm left
    page.get_by_role("button", name="Suggest").click()
    expect(page.locator("#verdict")).to_contain_text("Press Check")
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#verdict .verdict-body")).to_contain_text("Legal move.")
    # No Commit or Undo for a visitor who may not edit: how to keep a move instead.
    expect(page.get_by_role("button", name="Commit")).to_have_count(0)
    expect(page.get_by_role("button", name="Undo the last step")).to_have_count(0)
    sign_in = page.locator(".place .save-note a")
    expect(sign_in).to_have_text("Sign in")
    assert sign_in.get_attribute("href").startswith("/accounts/login/?next=")
    screenshot(page, "tried")
    s.refresh_from_db()
    assert s.version == 1 and s.steps.count() == 0
