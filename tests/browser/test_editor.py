"""Browser journeys through the scenario editor (Playwright, Debian's Chromium): build a 40K table
from the home page with presets and units, place a model with the keyboard only, drag one,
measure with the ruler, meet a stale page. Screenshots go to test-artifacts/."""

import json
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from battlefield.models import Scenario, ScenarioEdit, UnitProfile
from tests.documents import scenario as scenario_doc

pytestmark = pytest.mark.django_db(transaction=True)
PROFILES = Path(__file__).resolve().parents[2] / "battlefield" / "demo" / "unit_profiles.json"


@pytest.fixture
def player(django_user_model):
    return django_user_model.objects.create_user("player", password="a long enough password")


@pytest.fixture
def owned(player, login):
    """owned(page, document): a scenario of the player's, with the page signed in as them."""

    def make(page, document) -> Scenario:
        login(page, player)
        return Scenario.objects.create(document=document, owner=player)

    return make


def on_screen(page, x: float, y: float) -> tuple[float, float]:
    """Where table point (x, y) is in the page's pixels (through the SVG's own transform)."""
    return page.evaluate(
        """([x, y]) => {
            const svg = document.querySelector("#placement svg");
            const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )


def editor_version(page) -> int:
    return int(page.locator("#editor").get_attribute("data-version"))


def test_create_a_40k_scenario_from_presets_and_units(page, site, screenshot, player, login):
    for entry in json.loads(PROFILES.read_text()):
        UnitProfile.objects.create(
            system=entry["system"],
            name=entry["name"],
            keywords=entry["keywords"],
            move=entry.get("move"),
            base=entry["base"],
            model_count=entry["models"],
            abilities=entry.get("abilities", []),
        )
    login(page, player)
    page.goto(f"{site}/")
    new = page.locator("form[action='/scenarios/new']")
    new.get_by_label("Name").fill("Club night")
    new.get_by_label("Game and table").select_option("wh40k-11e:60x44")
    new.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/scenarios/\d+/$"))
    page.get_by_role("link", name="Edit table").click()
    expect(page.get_by_role("heading", name="Editing: Club night")).to_be_visible()

    terrain = page.locator("form[action$='/edit/terrain']")
    for preset, x, y in (("ruin-large", 15, 12), ("woods", 45, 30), ("crater", 30, 22)):
        version = editor_version(page)
        terrain.get_by_label("Preset").select_option(preset)
        terrain.get_by_label("Centre x").fill(str(x))
        terrain.get_by_label("Centre y").fill(str(y))
        terrain.get_by_role("button", name="Add terrain").click()
        expect(page.locator("#editor")).to_have_attribute("data-version", str(version + 1))
    expect(page.locator("svg.table .terrain-layer path")).to_have_count(3)

    catalogue = page.locator("form[action$='/edit/units/catalogue']")
    catalogue.get_by_label("From the catalogue").select_option(label="Intercessor Squad (5)")
    catalogue.get_by_label("Army").select_option("blue")
    catalogue.get_by_label("Centre x").fill("40")
    catalogue.get_by_label("Centre y").fill("10")
    catalogue.get_by_role("button", name="Add unit").click()
    expect(page.locator("svg.table g.model")).to_have_count(5)

    page.get_by_text("Add a unit by hand").click()
    by_hand = page.locator("form[action$='/edit/units/new']")
    by_hand.get_by_label("Name").fill("Khorne Berzerkers")
    by_hand.get_by_label("Keywords").fill("infantry")
    by_hand.get_by_label("Move").fill("6")
    by_hand.get_by_label("Models", exact=True).fill("3")
    by_hand.get_by_label("Centre x").fill("20")
    by_hand.get_by_label("Centre y").fill("30")
    by_hand.get_by_role("button", name="Add unit").click()
    expect(page.locator("svg.table g.model")).to_have_count(8)
    expect(page.locator("#editor-messages")).to_contain_text("Added Khorne Berzerkers")
    screenshot(page, "editor-desktop")
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "editor-1280x800", full_page=False)

    # A reload shows the same table: it was saved on the server.
    scenario = Scenario.objects.latest("pk")
    page.goto(f"{site}/scenarios/{scenario.pk}/")
    expect(page.locator("svg.table g.model")).to_have_count(8)
    expect(page.locator("svg.table .terrain-layer path")).to_have_count(3)
    assert [u["name"] for u in scenario.document["units"]] == [
        "Intercessor Squad",
        "Khorne Berzerkers",
    ]


def test_keyboard_only_placement_of_a_model(page, site, owned, screenshot):
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    # Tab until the focus is on a model on the table (the table is a single tab stop).
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('g.model')"):
            break
    focused = page.evaluate("document.activeElement.dataset.model")
    assert focused == "B1"
    # One tab stop: Tab leaves the table, Shift+Tab comes back to the same model.
    page.keyboard.press("Tab")
    assert page.evaluate("!document.activeElement.closest('svg')")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.dataset.model") == "B1"
    page.keyboard.press("]")  # next model: B2
    assert page.evaluate("document.activeElement.dataset.model") == "B2"
    page.keyboard.press("Shift+ArrowDown")  # 1 in down
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("ArrowRight")  # 0.1 in right
    page.keyboard.press("e")  # turn 15 degrees
    expect(page.locator("input[name='pose-B2-y']")).to_have_value("22")
    page.keyboard.press("Enter")
    expect(page.locator("#editor")).to_have_attribute("data-version", "2")
    scenario.refresh_from_db()
    b2 = scenario.document["units"][0]["models"][1]
    # Started at (31.5, 20): two Shift+Down (2 in) and one Right (0.1 in).
    assert (b2["x"], b2["y"], b2["facing"]) == (31.6, 22, 15)
    # The focus stays on the model after the table is redrawn.
    assert page.evaluate("document.activeElement.dataset.model") == "B2"
    screenshot(page, "keyboard-placed", locator=page.locator("#placement svg"))

    # The ruler from the keyboard: R on two models.
    page.keyboard.press("r")
    page.keyboard.press("[")
    page.keyboard.press("r")
    # B1 at (30, 20) and B2 now at (31.6, 22): centres 2.56 in apart, less 1.26 in of bases.
    expect(page.locator("[data-ruler-output]")).to_contain_text("1.30″")


def test_dragging_a_model_saves_where_it_was_dropped(page, site, owned):
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    start = on_screen(page, 30, 20)  # B1's centre
    middle = on_screen(page, 27.5, 22)
    end = on_screen(page, 25, 24)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*middle, steps=8)
    page.mouse.move(*end, steps=8)
    page.mouse.up()
    expect(page.locator("#editor")).to_have_attribute("data-version", "2")
    scenario.refresh_from_db()
    b1 = scenario.document["units"][0]["models"][0]
    # Dragged 5 in left and 4 in down from (30, 20), within a pixel's worth.
    assert b1["x"] == pytest.approx(25, abs=0.2) and b1["y"] == pytest.approx(24, abs=0.2)


def test_a_drag_while_the_last_save_is_on_its_way_is_saved_next(page, site, owned, monkeypatch):
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    record = ScenarioEdit.record.__func__

    def slow_record(cls, *args, **kwargs):
        time.sleep(0.6)  # a slow server: the next drag ends before this save is answered
        return record(cls, *args, **kwargs)

    monkeypatch.setattr(ScenarioEdit, "record", classmethod(slow_record))
    for (x0, y0), (x1, y1) in (((30, 20), (30, 5)), ((40, 30), (50, 38))):
        page.mouse.move(*on_screen(page, x0, y0))
        page.mouse.down()
        page.mouse.move(*on_screen(page, (x0 + x1) / 2, (y0 + y1) / 2), steps=4)
        page.mouse.move(*on_screen(page, x1, y1), steps=4)
        page.mouse.up()
    expect(page.locator("#editor")).to_have_attribute("data-version", "3", timeout=10_000)
    expect(page.locator("#editor-messages [role=alert]")).to_have_count(0)
    scenario.refresh_from_db()
    b1 = scenario.document["units"][0]["models"][0]
    c1 = scenario.document["units"][1]["models"][0]
    assert (b1["x"], b1["y"]) == (pytest.approx(30, abs=0.2), pytest.approx(5, abs=0.2))
    assert (c1["x"], c1["y"]) == (pytest.approx(50, abs=0.2), pytest.approx(38, abs=0.2))


def test_dragging_terrain_moves_it(page, site, owned):
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    page.mouse.move(*on_screen(page, 21, 11))  # inside the ruin (20..26, 10..16)
    page.mouse.down()
    page.mouse.move(*on_screen(page, 26, 13), steps=6)
    page.mouse.move(*on_screen(page, 31, 15), steps=6)
    page.mouse.up()
    expect(page.locator("#editor")).to_have_attribute("data-version", "2")
    scenario.refresh_from_db()
    xs = [p[0] for p in scenario.document["terrain"][0]["footprint"]]
    # Moved 10 in right (and 4 in down): x from 30 to 36, within a pixel's worth.
    assert min(xs) == pytest.approx(30, abs=0.2) and max(xs) == pytest.approx(36, abs=0.2)


def test_click_to_place_and_the_ruler_figure(page, site, owned, screenshot):
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    page.get_by_role("button", name="Ruler").click()
    page.locator("svg.table g.model[data-model='B1']").click()
    page.locator("svg.table g.model[data-model='B2']").click()
    output = page.locator("[data-ruler-output]")
    # Centres 1.5 in apart, 32 mm bases (0.63 in radius each): 0.24 in edge to edge.
    expect(output).to_contain_text("0.24″")
    expect(output).to_contain_text("base edge to base edge")
    expect(output).to_be_in_viewport()  # above the table: on an 800 px screen, not below it
    expect(page.locator("svg.table .ruler-layer line.ruler-line")).to_have_count(1)
    expect(page.locator("svg.table .ruler-layer .ruler-reading")).to_have_text("0.24″")
    screenshot(page, "ruler", locator=page.locator("#placement"))

    # Without dragging: select a model, then click where it should go.
    page.get_by_role("button", name="Move models").click()
    page.locator("svg.table g.model[data-model='C1']").click()
    page.mouse.click(*on_screen(page, 50, 10))
    expect(page.locator("#editor")).to_have_attribute("data-version", "2")
    scenario.refresh_from_db()
    c1 = scenario.document["units"][1]["models"][0]
    assert c1["x"] == pytest.approx(50, abs=0.2) and c1["y"] == pytest.approx(10, abs=0.2)

    # The turn buttons turn the selected model (and save it).
    page.locator("svg.table g.model[data-model='C1']").click()
    page.get_by_role("button", name="Turn right 15°").click()
    expect(page.locator("#editor")).to_have_attribute("data-version", "3")
    scenario.refresh_from_db()
    assert scenario.document["units"][1]["models"][0]["facing"] == 105  # 90 + 15
    page.locator("svg.table g.model[data-model='C1']").click()  # let it go again

    # With nothing selected, a click on the table chooses where new terrain goes.
    page.mouse.click(*on_screen(page, 8, 36))
    terrain = page.locator("form[action$='/edit/terrain']")
    expect(terrain.get_by_label("Centre x")).to_have_value(re.compile(r"^(7\.9|8|8\.1)$"))
    expect(terrain.get_by_label("Centre y")).to_have_value(re.compile(r"^(35\.9|36|36\.1)$"))


def test_an_edit_from_a_stale_page_offers_to_reload(page, site, owned):
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    scenario.rename("Changed in another tab")
    page.locator("form[action$='/edit/terrain/ruin-1']").get_by_role(
        "button", name="Delete"
    ).click()
    alert = page.locator("#editor-messages [role=alert]")
    expect(alert).to_contain_text("changed elsewhere")
    alert.get_by_role("link", name="Reload the table").click()
    expect(page.get_by_role("heading", name="Editing: Changed in another tab")).to_be_visible()
    expect(page.locator("svg.table .terrain-layer path")).to_have_count(1)


def test_an_invalid_placement_is_refused_and_named(page, site, owned):
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    page.get_by_text("Type coordinates").click()
    page.locator("input[name='pose-B2-x']").fill("30.3")
    page.get_by_role("button", name="Save positions").click()
    alert = page.locator("#editor-messages [role=alert]")
    expect(alert).to_contain_text("Not saved")
    expect(alert).to_contain_text("B2")
    scenario.refresh_from_db()
    assert scenario.version == 1


@pytest.mark.viewport(390, 844)
def test_the_editor_at_phone_width(page, site, owned, screenshot):
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    page.locator("svg.table g.model[data-model='B1']").click()
    expect(page.locator("svg.table g.overlay.rings.shown")).to_have_count(2)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways ({width} px)"
    screenshot(page, "editor-phone")


def test_without_javascript_the_forms_still_edit_the_table(new_context, site, owned):
    page = new_context(java_script_enabled=False).new_page()
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    terrain = page.locator("form[action$='/edit/terrain']")
    terrain.get_by_label("Preset").select_option("crater")
    terrain.get_by_label("Centre x").fill("10")
    terrain.get_by_label("Centre y").fill("35")
    terrain.get_by_role("button", name="Add terrain").click()
    expect(page.locator("svg.table .terrain-layer path")).to_have_count(2)
    page.locator("details.coordinates summary").click()
    page.locator("input[name='pose-B1-y']").fill("25")
    page.get_by_role("button", name="Save positions").click()
    expect(page.locator("#editor")).to_have_attribute("data-version", "3")
    scenario.refresh_from_db()
    assert scenario.document["units"][0]["models"][0]["y"] == 25


def test_a_table_outside_its_form_is_found_through_data_table(page, site, owned):
    """The move stepper keeps its board outside the placement form (swapped on its own)."""
    scenario = owned(page, scenario_doc())
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    page.evaluate(
        """() => {
            const form = document.querySelector("#placement");
            const board = document.createElement("figure");
            board.id = "elsewhere";
            board.appendChild(form.querySelector("svg.table"));
            form.before(board);
            form.dataset.table = "#elsewhere";
            form.removeAttribute("data-autosave");
        }"""
    )
    page.locator("#elsewhere g.model[data-model='C1']").click()
    page.keyboard.press("Shift+ArrowLeft")
    expect(page.locator("input[name='pose-C1-x']")).to_have_value("39")
    assert page.evaluate("document.activeElement.dataset.model") == "C1"


def test_snap_to_contact_in_the_editor_saves_the_model_touching_the_enemy(page, site, owned):
    """Issue 13 item 10: the toolbar's "Snap to contact" works on the editor's table too."""
    document = scenario_doc()
    document["units"][1]["models"] = [{"id": "C1", "base": {"round": 32}, "x": 40.0, "y": 20.0}]
    scenario = owned(page, document)
    page.goto(f"{site}/scenarios/{scenario.pk}/edit")
    page.locator("svg.table g.model[data-model='B2']").click()
    page.get_by_role("button", name="Snap to contact").click()
    expect(page.locator("#editor")).to_have_attribute("data-version", "2")
    expect(page.locator("#editor-messages [role=alert]")).to_have_count(0)
    scenario.refresh_from_db()
    b2 = scenario.document["units"][0]["models"][1]
    # B2 (31.5, 20) and C1 (40, 20), both 32 mm (1.26 in across): B2 ends 1.26 in short of
    # C1's centre along the line between them, touching it.
    assert b2["x"] == pytest.approx(40 - 32 / 25.4, abs=1e-3) and b2["y"] == pytest.approx(20)
