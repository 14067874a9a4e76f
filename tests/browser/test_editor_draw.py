"""Browser journey: draw a ruin by clicking its corners on the table, then an upper floor of it
with a typed height (issue #12 item 5), at 1280 x 800 and on a 390 x 844 touch phone. Asserts
what the user sees: the preview of the points, the drawn ruin and its floor's height label."""

import pytest
from playwright.sync_api import expect

from battlefield.models import Scenario
from tests.documents import scenario as scenario_doc

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table(django_user_model):
    player = django_user_model.objects.create_user("player", password="a long enough password")
    doc = scenario_doc()
    doc["terrain"] = []
    return player, Scenario.objects.create(document=doc, owner=player)


def click_table(page, x: float, y: float) -> None:
    """Click (or tap) table point (x, y), found through the SVG's own transform."""
    page.locator("#placement svg").scroll_into_view_if_needed()
    sx, sy = page.evaluate(
        """([x, y]) => {
            const svg = document.querySelector("#placement svg");
            const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )
    page.mouse.click(sx, sy)


def draw_a_ruin(page, site, scenario, screenshot, name: str) -> None:
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    page.locator(".draw-terrain > summary").click()
    form = page.locator("[data-draw-form]")
    form.locator("[data-draw-toggle]").click()
    expect(form.locator("[data-draw-toggle]")).to_have_attribute("aria-pressed", "true")
    for x, y in ((40, 6), (50, 6), (50, 14), (40, 14)):
        click_table(page, x, y)
    expect(form.locator("[data-draw-points]")).to_have_value("40,6 50,6 50,14 40,14")
    expect(page.locator("#placement svg g.draw-preview polygon")).to_have_count(1)
    expect(form.locator("[data-draw-status]")).to_contain_text("Point 4 at 40, 14")
    screenshot(page, f"{name}-drawn")
    form.locator("[name=type]").fill("ruin")
    form.locator("[name=category]").select_option("dense")
    form.locator("button[type=submit]").click()
    expect(page.locator('#placement svg path[data-terrain="ruin-1"]')).to_have_count(1)
    expect(page.locator("#placement svg text.terrain-label")).to_have_text(
        ['Ruin 3"']
    )  # a block 3 high until it has walls or floors

    # An upper floor of it, over its left half, 3 up: chosen, typed, clicked.
    page.locator(".draw-terrain > summary").click()
    form = page.locator("[data-draw-form]")
    form.locator("[data-draw-part]").select_option("floor")
    expect(form.locator("[name=type]")).to_be_hidden()  # a floor has no type of its own
    form.locator("[name=height]").fill("3")
    form.locator("[data-draw-toggle]").click()
    for x, y in ((40, 6), (45, 6), (45, 14), (40, 14), (41, 13)):
        click_table(page, x, y)
    form.locator("[data-draw-undo]").click()  # the last click was a slip
    expect(form.locator("[data-draw-points]")).to_have_value("40,6 45,6 45,14 40,14")
    form.locator("button[type=submit]").click()
    expect(page.locator("#placement svg text.terrain-height")).to_have_text(['3"'])
    screenshot(page, f"{name}-floor")
    scenario.refresh_from_db()
    floors = scenario.document["terrain"][0]["floors"]
    assert floors == [{"footprint": [[40, 6], [45, 6], [45, 14], [40, 14]], "height": 3}]


def test_draw_a_ruin_and_its_floor_point_by_point(page, site, screenshot, table, login):
    player, scenario = table
    login(page, player)
    draw_a_ruin(page, site, scenario, screenshot, "desktop")


def test_draw_a_ruin_on_a_phone(new_context, site, screenshot, table, login):
    player, scenario = table
    context = new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    login(page, player)
    draw_a_ruin(page, site, scenario, screenshot, "phone")
