"""The table on a 390 x 844 touch phone (issue 13): the move page opens zoomed to the moving unit
with bases a finger can hit (at least 24 CSS px), tap a model then tap a spot moves that model
(not a neighbour), the view zooms and pans with buttons, keys and two fingers, and the verdict's
summary stays in view with the table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from battlefield.models import Scenario
from rules import SYSTEMS

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        "surge" not in SYSTEMS["wh40k-11e"].move_types, reason="the engine has no surge moves"
    ),
]
DEMO = Path(__file__).resolve().parents[2] / "battlefield" / "demo" / "scenarios"
SURGE = (
    "unit=B&type=surge&ability=blood-surge&trigger-event=shot&trigger-by=A"
    "&trigger-models_destroyed=2&roll=hand&dice=4&after=done"
)
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(new_context):
    context = new_context(PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert not errors, errors


@pytest.fixture
def surge(django_user_model, login, phone) -> Scenario:
    player = django_user_model.objects.create_user("player", password="a long enough password")
    login(phone, player)
    document = json.loads((DEMO / "surge-berzerkers.json").read_text())
    return Scenario.objects.create(document=document, owner=player)


def model_box(page, model_id: str) -> dict:
    return page.locator(f'#board g.model[data-model="{model_id}"] .base').bounding_box()


def view_width(page) -> float:
    return page.evaluate(
        "+document.querySelector('#board svg.table').getAttribute('viewBox').split(' ')[2]"
    )


def table_point(page, px: float, py: float) -> tuple[float, float]:
    return page.evaluate(
        """([x, y]) => {
            const svg = document.querySelector("#board svg.table");
            const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM().inverse());
            return [p.x, p.y];
        }""",
        [px, py],
    )


def screen_point(page, x: float, y: float) -> tuple[float, float]:
    return page.evaluate(
        """([x, y]) => {
            const svg = document.querySelector("#board svg.table");
            const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )


def test_the_move_page_opens_zoomed_to_the_moving_unit_with_bases_a_finger_can_hit(
    surge, phone, screenshot
):
    phone.goto(f"/scenarios/{surge.pk}/move?{SURGE}")
    phone.locator("#board svg.table.viewable").wait_for()
    for i in range(1, 9):
        box = model_box(phone, f"B{i}")
        assert box["width"] >= 24 and box["height"] >= 24, (f"B{i}", box)
        assert 0 <= box["x"] and box["x"] + box["width"] <= PHONE["width"], (f"B{i}", box)
    screenshot(phone, "zoomed", full_page=False)


@pytest.mark.parametrize("whole_table", [False, True], ids=["default-zoom", "whole-table"])
def test_tap_a_model_then_tap_a_spot_moves_that_model(surge, phone, whole_table):
    phone.goto(f"/scenarios/{surge.pk}/move?{SURGE}")
    phone.locator("#board svg.table.viewable").wait_for()
    if whole_table:  # bases of 7 px: the browser's touch adjustment used to pick a neighbour
        phone.get_by_role("button", name="Show the whole table").click()
    b2_before = phone.locator("#pose-B2-x").input_value()
    box = model_box(phone, "B1")
    phone.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(phone.locator('#board g.model[data-model="B1"]')).to_have_class("model selected")
    # a spot just beside B2's base (a finger's width from it)
    b2 = model_box(phone, "B2")
    spot = (b2["x"] + b2["width"] + (4 if whole_table else 12), b2["y"] + b2["height"] / 2)
    x, y = table_point(phone, *spot)
    phone.touchscreen.tap(*spot)
    assert abs(float(phone.locator("#pose-B1-x").input_value()) - x) < 0.3
    assert abs(float(phone.locator("#pose-B1-y").input_value()) - y) < 0.3
    assert phone.locator("#pose-B2-x").input_value() == b2_before


def test_zoom_and_pan_with_buttons_and_keys(surge, phone):
    phone.goto(f"/scenarios/{surge.pk}/move?{SURGE}")
    phone.locator("#board svg.table.viewable").wait_for()
    opened = view_width(phone)
    phone.get_by_role("button", name="Show the whole table").click()
    whole = view_width(phone)
    assert whole > opened
    phone.get_by_role("button", name="Zoom in").click()
    assert view_width(phone) == pytest.approx(whole / 1.5, rel=1e-3)
    before = phone.locator("#board svg.table").get_attribute("viewBox")
    phone.get_by_role("button", name="Zoom in").focus()
    phone.keyboard.press("Alt+ArrowRight")  # the pan buttons are for mice: fingers drag
    after = phone.locator("#board svg.table").get_attribute("viewBox")
    assert float(after.split()[0]) > float(before.split()[0])
    phone.get_by_role("button", name="Zoom to the moving unit").focus()
    phone.keyboard.press("0")
    assert view_width(phone) == pytest.approx(whole)


def test_two_fingers_pinch_to_zoom(surge, phone):
    phone.goto(f"/scenarios/{surge.pk}/move?{SURGE}")
    phone.locator("#board svg.table.viewable").wait_for()
    phone.get_by_role("button", name="Show the whole table").click()
    whole = view_width(phone)
    svg = phone.locator("#board svg.table").bounding_box()
    cx, cy = svg["x"] + svg["width"] / 2, svg["y"] + svg["height"] / 2
    cdp = phone.context.new_cdp_session(phone)

    def touch(kind, spread):
        points = (
            []
            if kind == "touchEnd"
            else [
                {"x": cx - spread, "y": cy, "id": 1},
                {"x": cx + spread, "y": cy, "id": 2},
            ]
        )
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", 20)
    for spread in (30, 45, 60):
        touch("touchMove", spread)
    touch("touchEnd", 0)
    assert view_width(phone) == pytest.approx(whole / 3, rel=0.05)


def test_dragging_shows_the_ghost_the_path_and_the_distance_and_the_verdict_stays_in_view(
    surge, phone, screenshot
):
    phone.goto(f"/scenarios/{surge.pk}/move?{SURGE}")
    phone.locator("#board svg.table.viewable").wait_for()
    view = phone.locator("#board svg.table").get_attribute("viewBox")
    box = model_box(phone, "B1")
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    start = table_point(phone, x, y)
    # 2 in to the right: within the 4 in of the roll; then 5 in: past it
    two_in, _ = screen_point(phone, start[0] + 2, start[1])
    five_in, _ = screen_point(phone, start[0] + 5, start[1])
    phone.mouse.move(x, y)
    phone.mouse.down()
    phone.mouse.move(x + 10, y, steps=3)
    phone.mouse.move(two_in, y, steps=5)
    label = phone.locator('#board .move-distance[data-model="B1"]')
    expect(label).to_have_text("moved 2.0 of 4 in")
    assert "over" not in label.get_attribute("class")
    ghost = phone.locator("#board .measure-trails .ghost")
    expect(ghost).to_have_count(1)
    transform = ghost.get_attribute("transform")
    ghost_x, ghost_y = re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", transform).groups()
    assert (float(ghost_x), float(ghost_y)) == (24.4, 19.4)  # B1's start (the worked example)
    phone.mouse.move(five_in, y, steps=5)
    expect(label).to_have_class("move-distance over")
    expect(label).to_have_text("moved 5.0 of 4 in")
    phone.mouse.up()
    screenshot(phone, "dragged", full_page=False)
    phone.get_by_role("button", name="Check").click()
    bar = phone.locator("#verdict-bar")
    expect(bar).to_contain_text("Not legal.")
    expect(bar).to_be_in_viewport()
    # the redrawn table keeps the view and the trail
    expect(phone.locator("#board svg.table.viewable")).to_have_attribute("viewBox", view)
    expect(phone.locator('#board .trail[data-model="B1"]')).to_have_count(1)


def test_the_ruler_on_the_move_page_measures_model_to_model(surge, phone):
    phone.goto(f"/scenarios/{surge.pk}/move?{SURGE}")
    phone.locator("#board svg.table.viewable").wait_for()
    phone.get_by_role("button", name="Ruler").click()
    for model in ("B1", "C1"):
        box = model_box(phone, model)
        phone.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    output = phone.locator("[data-ruler-output]")
    # B1 (32 mm base) at 24.4, 19.4 and C1 (50 mm) at 30, 19.5: centres 5.601 in apart, less
    # the two radii (0.630 and 0.984 in): 3.99 in between the bases
    expect(output.locator("strong")).to_have_text("3.99″")
    expect(phone.locator("#board .ruler-reading")).to_have_text("3.99″")
