"""The phone journeys of issue 13 (Done when), at 390 x 844 with touch: the 21.01 surge made
with Suggest, Check and Commit from the unit list, and a whole lesson taken step by step. Each
asserts what the player sees: the step headings, the dice, the verdict's words, the step link.
(The Warmaster initiative charge snapped into contact is in test_groups_and_flow.py.)"""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from battlefield.models import Scenario
from rules import SYSTEMS

pytestmark = pytest.mark.django_db(transaction=True)
DEMO = Path(__file__).resolve().parents[2] / "battlefield" / "demo" / "scenarios"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(new_context):
    context = new_context(PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert not errors, errors


@pytest.mark.skipif(
    "surge" not in SYSTEMS["wh40k-11e"].move_types, reason="the engine has no surge moves"
)
def test_the_surge_on_a_phone_with_suggest_check_and_commit(
    phone, django_user_model, login, screenshot
):
    """RULES.md 21.01's worked example (the surge demo): two Berzerkers shot down by the
    Intercessors; a roll of 4 sends the eight left 4 in towards them, as far as possible."""
    player = django_user_model.objects.create_user("player")
    login(phone, player)
    document = json.loads((DEMO / "surge-berzerkers.json").read_text())
    s = Scenario.objects.create(document=document, owner=player)
    phone.goto(f"/scenarios/{s.pk}/move")
    unit = next(u for u in document["units"] if u["id"] == "B")
    phone.get_by_role("link", name=re.compile(rf"^{re.escape(unit['name'])}")).first.tap()
    expect(phone.locator("#type-h")).to_be_focused()
    phone.get_by_role("link", name="Surge move").tap()
    expect(phone.locator("#declare-h")).to_be_focused()
    phone.get_by_label("Ability").select_option("blood-surge")
    phone.get_by_label("Event").select_option("shot")
    phone.get_by_label("Models destroyed").fill("2")
    phone.get_by_label("Enter physical dice:").check()
    phone.get_by_label("Dice values, separated by spaces").fill("4")
    phone.get_by_role("button", name="Roll and go on").tap()
    expect(phone.locator("#after-h")).to_be_focused()
    phone.get_by_role("button", name="Go to placement").tap()
    expect(phone.locator("#place-h")).to_be_visible()
    expect(phone.locator("#max-distance")).to_have_text("4 in")
    phone.get_by_role("button", name="Suggest").tap()
    expect(phone.locator("#verdict")).to_contain_text("Press Check")
    phone.get_by_role("button", name="Check").tap()
    bar = phone.locator("#verdict-bar")
    expect(bar).to_contain_text("Legal.")
    expect(bar).to_be_in_viewport()
    expect(phone.locator("#verdict")).to_contain_text("Legal move.")
    screenshot(phone, "checked", full_page=False)
    phone.get_by_role("button", name="Commit").tap()
    expect(phone.locator(".stepper-log")).to_contain_text("Step 0: Surge move by Khorne Berzerkers")
    step = s.steps.get()
    assert step.verdict["legal"] is True and step.dice["dice"] == [{"value": 4, "source": "user"}]


def test_a_whole_lesson_on_a_phone(phone, screenshot):
    call_command("load_demo", stdout=StringIO())
    phone.goto("/lessons/surge-basics/")
    count = int(re.search(r"of (\d+)", phone.locator(".narration .muted").first.inner_text())[1])
    seen = []
    for number in range(count):
        title = phone.locator("#narration-h").inner_text()
        seen.append(title)
        expect(phone.locator(".narration")).to_contain_text(f"Step {number + 1} of {count}")
        expect(phone.locator("#board svg.table")).to_be_visible()
        if number == count - 1:
            break
        target = phone.get_by_role("link", name="Next").get_attribute("href")
        phone.get_by_role("link", name="Next").tap()
        phone.wait_for_url(f"**{target}")
        expect(phone.locator("#narration-h")).not_to_have_text(title)
    assert len(set(seen)) == count  # every step its own title
    assert seen[-1] == "Try it"
    phone.get_by_role("button", name="Suggest").tap()
    expect(phone.locator("#verdict")).to_contain_text("Press Check")
    phone.get_by_role("button", name="Check").tap()
    expect(phone.locator("#verdict-bar")).to_contain_text("Legal.")
    expect(phone.locator("#verdict")).to_contain_text("Legal move.")
    screenshot(phone, "try-it", full_page=False)
