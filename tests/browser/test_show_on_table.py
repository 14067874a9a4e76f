"""Browser journey (issue 13 "show it on the table"): in a lesson's Try it, a Berzerker left
short of the Crisis Battlesuits is checked, and the table shows where it could have gone (a
ghost base, an arrow from it, "could have ended here") inside the target's 2 in engagement
zone; the lesson's "After the surge" step shows the trails. At 1280 x 800 and on a 390 x 844
touch phone; screenshots in test-artifacts/."""

import re
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def lessons():
    call_command("load_demo", stdout=StringIO())


def check_a_short_berzerker(page, site, screenshot, name):
    page.goto(f"{site}/lessons/surge-basics/7/")
    table = page.locator("svg#table")
    expect(table.locator("g.target-zone text")).to_have_text(
        '2" engagement zone of Crisis Battlesuits'
    )
    page.locator("#suggest-button").click()
    expect(page.locator("#verdict")).to_contain_text("Press Check")
    x = page.locator('[name="pose-B1-x"]')
    x.fill(f"{float(x.input_value()) - 1.5:.2f}")  # B1 stops 1.5 in short
    page.locator("#check-button").click()
    expect(page.locator("#verdict")).to_contain_text("could have ended engaged")
    expect(table.locator("g.ghost")).to_have_count(1)
    expect(table.locator("g.arrow")).to_have_count(1)
    expect(table.locator("g.ghost text")).to_have_text("could have ended here")
    # the ghost stands where the finding says, in the table's own units
    spot = re.search(r"at \(([\d.]+), ([\d.]+)\)", page.locator("#verdict").inner_text())
    box = table.locator("g.ghost path").first.evaluate(
        "p => { const b = p.getBBox(); return [b.x + b.width / 2, b.y + b.height / 2]; }"
    )
    assert abs(box[0] - float(spot[1])) < 0.05 and abs(box[1] - float(spot[2])) < 0.05
    screenshot(page, f"{name}-ghost")


def test_where_a_model_could_have_gone_is_drawn_on_the_table(page, site, screenshot, lessons):
    check_a_short_berzerker(page, site, screenshot, "desktop")


def test_where_a_model_could_have_gone_on_a_phone(new_context, site, screenshot, lessons):
    context = new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    check_a_short_berzerker(context.new_page(), site, screenshot, "phone")


def test_the_lessons_after_step_shows_the_trails(page, site, screenshot, lessons):
    page.goto(f"{site}/lessons/surge-basics/6/")
    table = page.locator("svg#table")
    expect(table.locator("g.trail path")).to_have_count(8)
    expect(table.locator("g.target-zone")).to_have_count(1)
    expect(page.locator(".narration")).to_contain_text("Outlined on the table: Khorne Berzerkers.")
    screenshot(page, "after-step")
