"""Moving groups and the stepper's flow (issue 13 items 4, 8-9, 13-15), as a player sees them:
a whole unit dragged at once, a Warmaster initiative charge snapped into contact on a phone,
keyboard focus on the new step's heading, the phase bar, and choices that can work."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from battlefield.models import Scenario
from rules import SYSTEMS

pytestmark = pytest.mark.django_db(transaction=True)
DEMO = Path(__file__).resolve().parents[2] / "battlefield" / "demo" / "scenarios"
PHONE = {"width": 390, "height": 844}
SURGE = (
    "unit=B&type=surge&ability=blood-surge&trigger-event=shot&trigger-by=A"
    "&trigger-models_destroyed=2&roll=hand&dice=4&after=done"
)


@pytest.fixture
def phone(new_context):
    context = new_context(PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert not errors, errors


@pytest.fixture
def player(django_user_model):
    return django_user_model.objects.create_user("player", password="a long enough password")


def stand(model_id, x, y, facing=0):
    """A Warmaster 4 x 2 cm stand (RULES.md 2.1): facing 0 is +x, its 4 cm front along y."""
    return {"id": model_id, "base": {"rect": [40, 20]}, "x": x, "y": y, "facing": facing}


def initiative_table() -> dict:
    """Giant Eagles F (stands at x 50, y 50 / 54 / 58, fronts at x 51) and one Orc stand E1 at
    x 65 facing the eagles (x 64 to 66, y 52 to 56): 13 cm from F's front, the closest enemy, in
    sight (RULES.md 2.3: within 20 cm, so F may charge it on its initiative)."""
    return {
        "format": "arbiter.scenario/1",
        "system": "warmaster-revolution",
        "name": "Initiative",
        "table": {"width": 180, "height": 120},
        "terrain": [],
        "armies": [{"id": "red", "name": "High Elves"}, {"id": "blue", "name": "Orcs"}],
        "units": [
            {
                "id": "F",
                "army": "red",
                "name": "Giant Eagles",
                "keywords": ["MONSTER", "FLYING"],
                "models": [stand(f"F{i + 1}", 50.0, 50.0 + 4 * i) for i in range(3)],
            },
            {
                "id": "E",
                "army": "blue",
                "name": "Orc Boyz",
                "keywords": ["INFANTRY"],
                "models": [stand("E1", 65.0, 54.0, 180)],
            },
        ],
        "turn": {"round": 1, "active_army": "red", "phase": "command"},
    }


def tap_model(page, model_id: str, across: float = 0.5):
    """Tap a model's base, `across` of the way along it (the unit's label may sit on its middle)."""
    page.locator(f'#board g.model[data-model="{model_id}"]').scroll_into_view_if_needed()
    box = page.locator(f'#board g.model[data-model="{model_id}"] .base').bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] * across, box["y"] + box["height"] / 2)


def pose(page, model_id: str, part: str) -> float:
    return float(page.locator(f"#pose-{model_id}-{part}").input_value())


@pytest.mark.skipif(
    "initiative-charge" not in SYSTEMS["warmaster-revolution"].move_types,
    reason="the engine has no initiative charges",
)
def test_a_warmaster_initiative_charge_snapped_into_contact_on_a_phone(
    phone, player, login, screenshot
):
    login(phone, player)
    s = Scenario.objects.create(document=initiative_table(), owner=player)
    phone.goto(f"/scenarios/{s.pk}/move?unit=F&type=initiative-charge")
    phone.get_by_label("Orc Boyz (E)").check()
    phone.get_by_role("button", name="Roll and go to placement").click()
    phone.locator("#pose-F2-x").wait_for()
    phone.wait_for_load_state("networkidle")
    phone.locator("#board svg.table.viewable").wait_for()
    tap_model(phone, "F2", across=0.2)
    expect(phone.locator('#board g.model[data-model="F2"]')).to_have_class("model selected")
    phone.get_by_role("button", name="Whole unit").click()
    expect(phone.get_by_role("button", name="Whole unit")).to_have_attribute("aria-pressed", "true")
    phone.get_by_role("button", name="Snap to contact").click()
    # E1's edge facing the eagles is x 64: F2's front (1 cm ahead of its centre) flush on it,
    # centred on the closest point (64, 54); F1 and F3 keep the formation, 4 cm either side
    for model, y in (("F1", 50), ("F2", 54), ("F3", 58)):
        assert pose(phone, model, "x") == pytest.approx(63, abs=1e-3)
        assert pose(phone, model, "y") == pytest.approx(y, abs=1e-3)
        assert pose(phone, model, "facing") % 360 == pytest.approx(0, abs=1e-3)
    expect(phone.locator("[data-status]")).to_contain_text("F2 in base contact with E1")
    phone.get_by_role("button", name="Check").click()
    expect(phone.locator("#verdict-bar")).to_contain_text("Legal.")
    expect(phone.locator("#verdict-bar")).to_be_in_viewport()
    screenshot(phone, "snapped", full_page=False)


@pytest.mark.skipif(
    "surge" not in SYSTEMS["wh40k-11e"].move_types, reason="the engine has no surge moves"
)
def test_whole_unit_drags_and_nudges_every_model_together(phone, player, login, screenshot):
    login(phone, player)
    document = json.loads((DEMO / "surge-berzerkers.json").read_text())
    s = Scenario.objects.create(document=document, owner=player)
    phone.goto(f"/scenarios/{s.pk}/move?{SURGE}")
    phone.locator("#board svg.table.viewable").wait_for()
    before = {f"B{i}": (pose(phone, f"B{i}", "x"), pose(phone, f"B{i}", "y")) for i in range(1, 9)}
    phone.get_by_role("button", name="Whole unit").click()
    box = phone.locator('#board g.model[data-model="B1"] .base').bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    phone.mouse.move(x, y)
    phone.mouse.down()
    phone.mouse.move(x + 10, y, steps=3)
    phone.mouse.move(x + 40, y + 20, steps=5)
    phone.mouse.up()
    dx = pose(phone, "B1", "x") - before["B1"][0]
    dy = pose(phone, "B1", "y") - before["B1"][1]
    assert abs(dx) > 0.5 and abs(dy) > 0.2
    for model, (x0, y0) in before.items():  # every Berzerker went the same way, formation kept
        assert pose(phone, model, "x") - x0 == pytest.approx(dx, abs=2e-3), model
        assert pose(phone, model, "y") - y0 == pytest.approx(dy, abs=2e-3), model
    # a keyboard nudge carries the unit too: 1 in to the right with Shift
    phone.locator('#board g.model[data-model="B3"]').focus()
    phone.keyboard.press("Shift+ArrowRight")
    for model, (x0, _) in before.items():
        assert pose(phone, model, "x") - x0 == pytest.approx(dx + 1, abs=2e-3), model
    screenshot(phone, "whole-unit", full_page=False)


def test_focus_goes_to_the_new_steps_heading_and_is_announced(page, player, login):
    login(page, player)
    document = json.loads((DEMO / "surge-berzerkers.json").read_text())
    s = Scenario.objects.create(document=document, owner=player)
    page.goto(f"/scenarios/{s.pk}/move")
    page.get_by_role("link", name=re.compile(r"^Khorne Berzerkers")).first.click()
    heading = page.locator("#type-h")
    expect(heading).to_be_focused()
    expect(page.locator("#step-announce")).to_have_text(heading.inner_text())
    page.keyboard.press("Tab")  # the next Tab goes on from the heading, not from the page top
    focused = page.evaluate("document.activeElement.closest('#stepper') !== null")
    assert focused


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_phase_bar_moves_the_table_to_the_next_phase(
    new_context, player, login, screenshot, size
):
    viewport = PHONE if size == "phone" else {"width": 1280, "height": 800}
    context = new_context(viewport, has_touch=size == "phone")
    page = context.new_page()
    login(page, player)
    s = Scenario.objects.create(document=initiative_table(), owner=player)
    page.goto(f"/scenarios/{s.pk}/")
    bar = page.locator("#phase-bar")
    expect(bar).to_contain_text("Round 1")
    expect(bar).to_contain_text("High Elves to play")
    expect(bar).to_contain_text("Command phase")
    screenshot(page, "phase-bar", full_page=False)
    page.get_by_role("button", name="Next phase").click()
    expect(page.locator("#phase-bar")).to_contain_text("Shooting phase")
    page.get_by_role("button", name="Next turn").click()
    expect(page.locator("#phase-bar")).to_contain_text("Orcs to play")
    expect(page.locator("#phase-bar")).to_contain_text("Command phase")


@pytest.mark.skipif(
    "surge" not in SYSTEMS["wh40k-11e"].move_types, reason="the engine has no surge moves"
)
def test_a_casualty_tapped_on_the_table_is_removed_and_restored_on_a_phone(
    phone, player, login, screenshot
):
    login(phone, player)
    document = json.loads((DEMO / "surge-berzerkers.json").read_text())
    s = Scenario.objects.create(document=document, owner=player)
    phone.goto(f"/scenarios/{s.pk}/move?{SURGE}")
    phone.locator("#board svg.table.viewable").wait_for()
    tap_model(phone, "B8")
    expect(phone.get_by_label("Casualty")).to_have_value("B8")
    phone.get_by_role("button", name="Remove it from the table").tap()
    expect(phone.locator(".messages")).to_contain_text("Casualty: B8 of Khorne Berzerkers removed.")
    expect(phone.locator('#board g.model[data-model="B8"]')).to_have_count(0)
    units = Scenario.objects.get(pk=s.pk).document["units"]
    assert "B8" not in {m["id"] for u in units for m in u["models"]}
    screenshot(phone, "casualty", full_page=False)
    phone.get_by_role("button", name="Restore B8").tap()
    expect(phone.locator(".messages")).to_contain_text("Restored B8 to Khorne Berzerkers.")
    expect(phone.locator('#board g.model[data-model="B8"]')).to_have_count(1)


@pytest.mark.skipif(
    "initiative-charge" not in SYSTEMS["warmaster-revolution"].move_types,
    reason="the engine has no initiative charges",
)
def test_a_zoomed_phone_view_follows_the_stands_snapped_into_contact(phone, player, login):
    """Issue 13: after "Snap to contact" the view keeps the moved stands on screen."""
    login(phone, player)
    s = Scenario.objects.create(document=initiative_table(), owner=player)
    phone.goto(f"/scenarios/{s.pk}/move?unit=F&type=initiative-charge")
    phone.get_by_label("Orc Boyz (E)").check()
    phone.get_by_role("button", name="Roll and go to placement").click()
    phone.locator("#pose-F2-x").wait_for()
    phone.wait_for_load_state("networkidle")
    table = phone.locator("#board svg.table.viewable")
    table.wait_for()
    tap_model(phone, "F2", across=0.2)
    phone.get_by_role("button", name="Whole unit").click()
    # Zoomed in on the eagles so far that the Orcs, 13 cm away, are off the view.
    for _ in range(3):
        phone.get_by_role("button", name="Zoom in").click()
    table.focus()
    phone.keyboard.press("Alt+ArrowLeft")

    def on_view(model_id: str) -> bool:
        view = table.bounding_box()
        box = phone.locator(f'#board g.model[data-model="{model_id}"] .base').bounding_box()
        return (
            view["x"] <= box["x"]
            and box["x"] + box["width"] <= view["x"] + view["width"]
            and view["y"] <= box["y"]
            and box["y"] + box["height"] <= view["y"] + view["height"]
        )

    assert not on_view("E1")
    phone.get_by_role("button", name="Snap to contact").click()
    assert pose(phone, "F2", "x") == pytest.approx(63, abs=1e-3)  # flush on E1's edge, x 64
    assert all(on_view(m) for m in ("F1", "F2", "F3"))
