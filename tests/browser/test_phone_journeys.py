"""The phone journeys of issue 13 (Done when), at 390 x 844 with touch: the 21.01 situation built
from an empty table in at most 15 actions, the 21.01 surge made with Suggest, Check and Commit
from the unit list, and a whole lesson taken step by step. Each asserts what the player sees: the
table, the step headings, the dice, the verdict's words, the step link.
(The Warmaster initiative charge snapped into contact is in test_groups_and_flow.py.)"""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from battlefield.models import Scenario, UnitProfile, blank_document
from rules import SYSTEMS

pytestmark = pytest.mark.django_db(transaction=True)
DEMO = Path(__file__).resolve().parents[2] / "battlefield" / "demo" / "scenarios"
PHONE = {"width": 390, "height": 844}
PROFILES = DEMO.parent / "unit_profiles.json"


@pytest.fixture
def phone(new_context):
    context = new_context(PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert not errors, errors


class Actions:
    """What the player does, counted: a tap, a typed field or a chosen option is one action
    (issue 13's measure of how fast a table is built)."""

    def __init__(self, page):
        self.page = page
        self.count = 0

    def tap(self, locator):
        locator.tap()
        self.count += 1

    def fill(self, locator, text: str):
        locator.fill(text)
        self.count += 1

    def choose(self, locator, **option):
        locator.select_option(**option)
        self.count += 1

    def tap_table(self, x: float, y: float):
        """A tap on the editor's table at table point (x, y), with no model chosen: where the
        next terrain piece or unit goes."""
        table = self.page.locator("#placement svg")
        table.scroll_into_view_if_needed()
        at = self.page.evaluate(
            """([x, y]) => {
                const svg = document.querySelector("#placement svg");
                const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
                return [p.x, p.y];
            }""",
            [x, y],
        )
        self.page.touchscreen.tap(*at)
        self.count += 1


def test_building_the_21_01_table_on_a_phone_in_at_most_15_actions(
    phone, django_user_model, login, screenshot
):
    """Issue 13 (Done when): from an empty 40K table, a ruin, ten Khorne Berzerkers less two
    casualties, five Intercessors and the phase set (the Intercessors' shooting phase, RULES.md
    21.01's example), on a phone, in at most 15 actions."""
    for entry in json.loads(PROFILES.read_text()):
        UnitProfile.objects.create(
            system=entry["system"],
            name=entry["name"],
            faction=entry["faction"],
            keywords=entry["keywords"],
            move=entry.get("move"),
            base=entry["base"],
            model_count=entry["models"],
            abilities=entry.get("abilities", []),
        )
    player = django_user_model.objects.create_user("player")
    login(phone, player)
    s = Scenario.objects.create(document=blank_document("wh40k-11e", "21.01", 60, 44), owner=player)
    phone.goto(f"/scenarios/{s.pk}/edit")
    act = Actions(phone)
    table = phone.locator("#placement svg")
    models = phone.locator("#placement svg g.model")

    def saved(version: int):
        expect(phone.locator("#editor")).to_have_attribute("data-version", str(version))

    # A ruin, its centre where the player taps.
    terrain = phone.locator("form[action$='/edit/terrain']")
    act.choose(terrain.get_by_label("Preset"), value="ruin-large")
    act.tap_table(20, 33)
    expect(terrain.get_by_label("Centre x")).to_have_value("20")
    act.tap(terrain.get_by_role("button", name="Add terrain"))
    saved(2)
    expect(phone.locator("svg.table .terrain-layer path")).to_have_count(1)
    expect(table).to_be_in_viewport()  # the table is not scrolled away after an add

    # Ten Khorne Berzerkers from the World Eaters in the catalogue, for the first army.
    catalogue = phone.locator("form[action$='/edit/units/catalogue']")
    expect(catalogue.locator("optgroup[label='World Eaters']")).to_have_count(1)
    act.choose(catalogue.get_by_label("From the catalogue"), label="Khorne Berzerkers (10)")
    act.tap_table(24, 22)
    act.tap(catalogue.get_by_role("button", name="Add unit"))
    saved(3)
    expect(models).to_have_count(10)
    expect(table).to_be_in_viewport()
    # The form kept its choices: the catalogue entry and the spot tapped.
    expect(catalogue.get_by_label("From the catalogue")).to_have_value(
        str(UnitProfile.objects.get(name="Khorne Berzerkers").pk)
    )
    expect(catalogue.get_by_label("Centre x")).to_have_value("24")

    # Two casualties, from the units panel.
    remove = phone.get_by_role("button", name="Remove a model of Khorne Berzerkers")
    act.tap(remove)
    saved(4)
    act.tap(remove)
    saved(5)
    expect(models).to_have_count(8)
    expect(phone.get_by_role("button", name=re.compile(r"^Restore "))).to_have_count(2)
    screenshot(phone, "casualties", locator=phone.locator("section[aria-labelledby='units-h']"))

    # Five Intercessors: the army offered is now the one without units.
    expect(catalogue.get_by_label("Army")).to_have_value("blue")
    # Found by typing, in the catalogue's search (Assault Intercessors come first in the list).
    act.fill(catalogue.get_by_label("Search the catalogue"), "Intercessor")
    expect(catalogue.locator("#catalogue-search-found")).to_have_text("2 found")
    expect(catalogue.get_by_label("From the catalogue")).to_have_value(
        str(UnitProfile.objects.get(name="Intercessor Squad").pk)
    )
    act.tap_table(40, 22)
    act.tap(catalogue.get_by_role("button", name="Add unit"))
    saved(6)
    expect(models).to_have_count(13)

    # The Intercessors' shooting phase.
    turn = phone.locator("form[action$='/edit/turn']")
    act.choose(turn.get_by_label("Whose turn"), value="blue")
    act.choose(turn.get_by_label("Phase"), value="shooting")
    act.tap(turn.get_by_role("button", name="Set turn"))
    saved(7)
    table.scroll_into_view_if_needed()
    screenshot(phone, "built", full_page=False)
    act.tap(phone.get_by_role("link", name="Done"))
    expect(phone.locator(".phase-now")).to_have_text("Round 1 · Blue army to play · Shooting phase")
    assert act.count <= 15, act.count

    s.refresh_from_db()
    doc = s.document
    (ruin,) = doc["terrain"]
    berzerkers, intercessors = doc["units"]
    assert ruin["type"] == "ruin"
    assert (berzerkers["name"], berzerkers["army"], len(berzerkers["models"])) == (
        "Khorne Berzerkers",
        "red",
        8,
    )
    assert (intercessors["name"], intercessors["army"], len(intercessors["models"])) == (
        "Intercessor Squad",
        "blue",
        5,
    )
    assert doc["turn"] == {"round": 1, "active_army": "blue", "phase": "shooting"}
    # Where the player tapped (the block's centre), within the block's own rounding.
    xs = [m["x"] for m in berzerkers["models"][:5]]
    assert (min(xs) + max(xs)) / 2 == pytest.approx(24, abs=0.05)

    # It is the 21.01 situation: the Berzerkers' blood surge after the Intercessors' shooting
    # killed two, a roll of 4, is suggested and judged legal on the table just built.
    if "surge" in SYSTEMS["wh40k-11e"].move_types:
        phone.goto(
            f"/scenarios/{s.pk}/move?unit={berzerkers['id']}&type=surge&ability=blood-surge"
            f"&trigger-event=shot&trigger-by={intercessors['id']}&trigger-models_destroyed=2"
            "&roll=hand&dice=4&after=done"
        )
        expect(phone.locator("#max-distance")).to_have_text("4 in")
        phone.get_by_role("button", name="Suggest").tap()
        expect(phone.locator("#verdict")).to_contain_text("Press Check")
        phone.get_by_role("button", name="Check").tap()
        expect(phone.locator("#verdict-bar")).to_contain_text("Legal.")


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
