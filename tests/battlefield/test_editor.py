"""The scenario editor: every partial (whole page vs partial, 422 with the error partial, 409 when
stale, history restore gets the whole page), the edits, undo and redo, and the ruler."""

import math

import pytest
from shapely.geometry import Point

from battlefield.editor import (
    add_terrain,
    add_unit,
    block_positions,
    describe_field,
    measure,
    move_terrain,
    place_models,
    ring_overlays,
)
from battlefield.games import game
from battlefield.models import Scenario, ScenarioEdit, StaleScenario, UnitProfile
from battlefield.validation import validate_scenario
from rules import InvalidInput, Situation
from tests.documents import scenario as scenario_doc

pytestmark = pytest.mark.django_db
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}
FULL = {"HX-Request": "true", "HX-Request-Type": "full"}


@pytest.fixture
def player(client, django_user_model):
    """A signed-in player: the owner of the scenarios below (owners may edit, with or without
    clubs)."""
    user = django_user_model.objects.create_user("player", password="a long enough password")
    client.force_login(user)
    return user


@pytest.fixture
def mine(client, player):
    """A new, empty 40K table the player made from the home page's form."""
    response = client.post("/scenarios/new", {"name": "Club table", "table": "wh40k-11e:60x44"})
    assert response.status_code == 302
    return Scenario.objects.latest("pk")


@pytest.fixture
def squads(player):
    """The two-squad document, the player's."""
    return Scenario.objects.create(document=scenario_doc(), owner=player)


def post(client, url, data, **headers):
    return client.post(url, data, headers=headers)


# -- the page and its partials ---------------------------------------------------------------


def test_the_editor_page_shows_the_interactive_table_and_every_form(client, squads):
    html = client.get(f"/scenarios/{squads.pk}/edit").content.decode()
    assert "<!doctype html>" in html and 'id="editor"' in html
    assert "data-placement" in html and 'role="group"' in html and 'tabindex="0"' in html
    assert 'name="pose-B1-x" value="30"' in html and 'name="pose-C1-facing" value="90"' in html
    assert f'name="version" value="{squads.version}"' in html
    for preset in game("wh40k-11e").PRESETS.values():
        assert preset["label"].replace("″", "″") in html
    assert "Battle-shocked" in html and "Add a unit by hand" in html
    assert "js/table.js" in html and "css/table.css" in html
    assert "<script>" not in html  # no inline scripts (CSP)


def test_a_partial_request_gets_the_workspace_and_a_history_restore_the_whole_page(client, squads):
    partial = client.get(f"/scenarios/{squads.pk}/edit", headers=PARTIAL).content.decode()
    assert "<html" not in partial and partial.lstrip().startswith('<article id="editor"')
    full = client.get(f"/scenarios/{squads.pk}/edit", headers=FULL).content.decode()
    assert "<html" in full and 'id="editor"' in full


def test_only_someone_who_may_edit_the_scenario_sees_its_editor(client, squads):
    stranger = Scenario.objects.create(document=scenario_doc())
    assert client.get(f"/scenarios/{stranger.pk}/edit").status_code == 404
    response = client.post(
        f"/scenarios/{stranger.pk}/edit/terrain", {"version": 1, "preset": "crater", "x": 5, "y": 5}
    )
    assert response.status_code == 404
    stranger.refresh_from_db()
    assert len(stranger.document["terrain"]) == 1 and stranger.version == 1


def test_the_scenario_page_links_its_editor_for_the_owner_only(client, squads):
    assert (
        f'href="/scenarios/{squads.pk}/edit"'
        in client.get(f"/scenarios/{squads.pk}/").content.decode()
    )
    shared = client.get(squads.share_url()).content.decode()
    assert "/edit" not in shared


# -- terrain ---------------------------------------------------------------------------------


def test_adding_a_ruin_from_a_preset_saves_it_and_answers_the_new_workspace(client, mine):
    response = post(
        client,
        f"/scenarios/{mine.pk}/edit/terrain",
        {"version": 1, "preset": "ruin-medium", "x": 20, "y": 15, "rotation": 0},
        **PARTIAL,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<article id="editor"') and 'name="version" value="2"' in html
    mine.refresh_from_db()
    assert mine.version == 2
    (piece,) = mine.document["terrain"]
    assert piece["category"] == "dense" and piece["height"] == 5 and piece["type"] == "ruin"
    xs = [p[0] for p in piece["footprint"]]
    ys = [p[1] for p in piece["footprint"]]
    # 8 x 6 in medium ruin centred on (20, 15): x from 16 to 24, y from 12 to 18.
    assert (min(xs), max(xs), min(ys), max(ys)) == (16, 24, 12, 18)
    assert "Saved: Added terrain ruin-1" in html


def test_without_javascript_an_edit_redirects_back_to_the_editor(client, mine):
    response = client.post(
        f"/scenarios/{mine.pk}/edit/terrain", {"version": 1, "preset": "crater", "x": 5, "y": 5}
    )
    assert response.status_code == 302 and response["Location"] == f"/scenarios/{mine.pk}/edit"


def test_every_40k_and_warmaster_preset_makes_a_valid_scenario(client, player):
    for system, size in (("wh40k-11e", "60x44"), ("warmaster-revolution", "180x120")):
        client.post("/scenarios/new", {"name": "t", "table": f"{system}:{size}"})
        doc = Scenario.objects.latest("pk").document
        width, height = doc["table"]["width"], doc["table"]["height"]
        for i, preset in enumerate(game(system).PRESETS):
            x, y = width * (0.15 + 0.23 * (i % 4)), height * (0.15 + 0.3 * (i // 4))
            add_terrain(doc, preset, x, y, rotation=30 * i)
        validate_scenario(doc)
        assert len({t["id"] for t in doc["terrain"]}) == len(game(system).PRESETS)


def test_moving_and_turning_terrain_keeps_its_shape_about_the_new_centre(client, squads):
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/terrain/ruin-1",
        {"version": 1, "x": 10, "y": 10, "rotate_by": 90},
        **PARTIAL,
    )
    assert response.status_code == 200
    squads.refresh_from_db()
    # The 6 x 6 square ruin, centred at (23, 13), now centred at (10, 10): corners 7..13.
    points = sorted(tuple(p) for p in squads.document["terrain"][0]["footprint"])
    assert points == [(7, 7), (7, 13), (13, 7), (13, 13)]


def test_deleting_terrain_removes_it(client, squads):
    post(client, f"/scenarios/{squads.pk}/edit/terrain/ruin-1", {"version": 1, "delete": "1"})
    squads.refresh_from_db()
    assert squads.document["terrain"] == [] and squads.version == 2


def test_an_unknown_preset_is_422_with_the_error_partial_and_nothing_is_stored(client, mine):
    response = post(
        client,
        f"/scenarios/{mine.pk}/edit/terrain",
        {"version": 1, "preset": "volcano", "x": 5, "y": 5},
        **PARTIAL,
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "Not saved" in html and "choose a terrain preset" in html and "<article" not in html
    assert response["HX-Retarget"] == "#editor-messages" and response["HX-Reswap"] == "innerHTML"
    mine.refresh_from_db()
    assert mine.version == 1 and mine.document["terrain"] == []


def test_terrain_entirely_off_the_table_is_refused_by_the_validator(client, mine):
    response = post(
        client,
        f"/scenarios/{mine.pk}/edit/terrain",
        {"version": 1, "preset": "crater", "x": 500, "y": 5},
        **PARTIAL,
    )
    assert response.status_code == 422
    assert "terrain crater-1" in response.content.decode()
    assert "off the table" in response.content.decode()


def test_a_bad_number_names_the_field(client, mine):
    response = post(
        client,
        f"/scenarios/{mine.pk}/edit/terrain",
        {"version": 1, "preset": "crater", "x": "twelve", "y": 5},
        **PARTIAL,
    )
    assert response.status_code == 422
    assert "centre x (in) must be a number" in response.content.decode()


def test_without_javascript_an_invalid_edit_shows_the_whole_page_with_the_message(client, mine):
    response = client.post(
        f"/scenarios/{mine.pk}/edit/terrain", {"version": 1, "preset": "volcano", "x": 5, "y": 5}
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "<html" in html and "choose a terrain preset" in html and 'id="editor"' in html


# -- versions --------------------------------------------------------------------------------


def test_an_edit_from_a_stale_page_is_409_with_an_offer_to_reload(client, squads):
    squads.rename("Renamed elsewhere")  # version 2 now
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/terrain/ruin-1",
        {"version": 1, "delete": "1"},
        **PARTIAL,
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed elsewhere" in html and "now at version\n      2" in html.replace("  ", "  ")
    assert f'href="/scenarios/{squads.pk}/edit"' in html and "Reload the table" in html
    assert response["HX-Retarget"] == "#editor-messages"
    squads.refresh_from_db()
    assert len(squads.document["terrain"]) == 1 and squads.version == 2


def test_a_stale_page_hears_that_first_even_when_its_edit_is_also_invalid(client, squads):
    squads.rename("Renamed elsewhere")
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/terrain",
        {"version": 1, "preset": "volcano", "x": 5, "y": 5},
        **PARTIAL,
    )
    assert response.status_code == 409


def test_a_form_without_a_version_is_refused(client, squads):
    response = post(
        client, f"/scenarios/{squads.pk}/edit/terrain/ruin-1", {"delete": "1"}, **PARTIAL
    )
    assert response.status_code == 422
    assert "which version" in response.content.decode()


def test_apply_edit_refuses_a_stale_version_and_keeps_the_document(squads):
    doc = dict(squads.document, terrain=[])
    with pytest.raises(StaleScenario):
        squads.apply_edit(doc, "clear", version=7)
    squads.refresh_from_db()
    assert len(squads.document["terrain"]) == 1


def test_a_reload_shows_the_same_table_as_the_edit_answered(client, squads):
    answered = post(
        client,
        f"/scenarios/{squads.pk}/edit/place",
        {"version": 1, "pose-B1-x": "12.5", "pose-B1-y": "8.25"},
        **PARTIAL,
    ).content.decode()
    reloaded = client.get(f"/scenarios/{squads.pk}/edit", headers=PARTIAL).content.decode()
    start = answered.index("<svg")
    assert (
        answered[start : answered.index("</svg>")]
        == reloaded[reloaded.index("<svg") : reloaded.index("</svg>")]
    )
    assert 'transform="translate(12.5 8.25)"' in reloaded


# -- models ------------------------------------------------------------------------------------


def test_placing_models_saves_only_the_changed_poses(client, squads):
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/place",
        {
            "version": 1,
            "pose-B1-x": "30",
            "pose-B1-y": "20",
            "pose-B2-x": "33",
            "pose-B2-y": "20",
            "pose-C1-x": "40",
            "pose-C1-y": "30",
            "pose-C1-facing": "180",
        },
        **PARTIAL,
    )
    assert response.status_code == 200
    squads.refresh_from_db()
    b1, b2 = squads.document["units"][0]["models"]
    assert (b1["x"], b2["x"]) == (30.0, 33) and squads.document["units"][1]["models"][0][
        "facing"
    ] == 180
    assert ScenarioEdit.undoable(squads).label == "Moved B2, C1"


def test_saving_unchanged_positions_stores_nothing(client, squads):
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/place",
        {"version": 1, "pose-B1-x": "30", "pose-B1-y": "20"},
        **PARTIAL,
    )
    assert response.status_code == 200
    squads.refresh_from_db()
    assert squads.version == 1 and not squads.edits.exists()


def test_a_model_placed_on_another_is_422_naming_it_and_nothing_moves(client, squads):
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/place",
        {"version": 1, "pose-B2-x": "30.2", "pose-B2-y": "20"},
        **PARTIAL,
    )
    assert response.status_code == 422
    html = response.content.decode()
    assert "Khorne Berzerkers" in html and "overlap" in html
    squads.refresh_from_db()
    assert squads.document["units"][0]["models"][1]["x"] == 31.5


def test_a_model_off_the_table_is_422(client, squads):
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/place",
        {"version": 1, "pose-B1-x": "60", "pose-B1-y": "20"},
        **PARTIAL,
    )
    assert response.status_code == 422 and "off the table" in response.content.decode()


def test_a_pose_for_a_model_that_does_not_exist_is_422(client, squads):
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/place",
        {"version": 1, "pose-Z9-x": "6", "pose-Z9-y": "2"},
        **PARTIAL,
    )
    html = response.content.decode()
    assert response.status_code == 422 and "there is no model" in html and "Z9" in html


# -- units ---------------------------------------------------------------------------------------


def test_a_unit_from_the_catalogue_is_a_tidy_block_of_its_models(client, mine):
    profile = UnitProfile.objects.create(
        system="wh40k-11e",
        name="Intercessor Squad",
        keywords=["INFANTRY", "BATTLELINE"],
        move=6,
        base={"round": 32},
        model_count=5,
    )
    response = post(
        client,
        f"/scenarios/{mine.pk}/edit/units/catalogue",
        {"version": 1, "profile": profile.pk, "army": "blue", "count": "", "x": 30, "y": 22},
        **PARTIAL,
    )
    assert response.status_code == 200, response.content
    mine.refresh_from_db()
    (unit,) = mine.document["units"]
    assert unit["name"] == "Intercessor Squad" and unit["army"] == "blue" and unit["move"] == 6
    assert unit["keywords"] == ["BATTLELINE", "INFANTRY"]
    xs = [m["x"] for m in unit["models"]]
    # Five 32 mm bases (1.26 in) 0.5 in apart in one row about x = 30: spacing 1.76 in.
    assert (
        len(xs) == 5 and xs[2] == 30 and xs[3] - xs[2] == pytest.approx(32 / 25.4 + 0.5, abs=1e-3)
    )
    assert {m["y"] for m in unit["models"]} == {22}
    assert all(m["base"] == {"round": 32} for m in unit["models"])


def test_a_unit_by_hand_takes_its_name_keywords_move_and_base(client, mine):
    response = post(
        client,
        f"/scenarios/{mine.pk}/edit/units/new",
        {
            "version": 1,
            "name": "Crisis Suits",
            "army": "red",
            "keywords": "vehicle, fly",
            "move": "10",
            "base_kind": "oval",
            "base_a": "95",
            "base_b": "150",
            "count": "2",
            "x": "20",
            "y": "20",
            "facing": "90",
        },
        **PARTIAL,
    )
    assert response.status_code == 200, response.content
    mine.refresh_from_db()
    (unit,) = mine.document["units"]
    assert unit["keywords"] == ["FLY", "VEHICLE"] and unit["move"] == 10
    assert [m["base"] for m in unit["models"]] == [{"oval": [95, 150]}] * 2
    assert all(m["facing"] == 90 for m in unit["models"])
    assert unit["id"] == "CS-1" and [m["id"] for m in unit["models"]] == ["CS-1.1", "CS-1.2"]


def test_a_unit_in_an_unknown_army_is_422(client, mine):
    response = post(
        client,
        f"/scenarios/{mine.pk}/edit/units/new",
        {
            "version": 1,
            "name": "X",
            "army": "green",
            "base_kind": "round",
            "base_a": "32",
            "count": "1",
            "x": "20",
            "y": "20",
        },
        **PARTIAL,
    )
    assert response.status_code == 422 and "choose one of the table" in response.content.decode()


def test_warmaster_stands_in_a_block_touch_side_by_side():
    # Infantry stands 40 x 20 mm facing up (270 degrees): 4 cm frontage along x, touching.
    positions = block_positions({"rect": [40, 20]}, 3, 50, 50, 270, "warmaster-revolution")
    assert positions == [(46, 50), (50, 50), (54, 50)]


def test_unit_state_flags_are_set_and_cleared(client, squads):
    post(
        client,
        f"/scenarios/{squads.pk}/edit/unit/B",
        {"version": 1, "battle_shocked": "1", "moved_this_phase": "1"},
    )
    squads.refresh_from_db()
    assert squads.document["units"][0]["state"] == {
        "battle_shocked": True,
        "moved_this_phase": True,
    }
    post(client, f"/scenarios/{squads.pk}/edit/unit/B", {"version": 2})
    squads.refresh_from_db()
    assert "state" not in squads.document["units"][0]


def test_deleting_a_unit_removes_it_and_its_models(client, squads):
    post(client, f"/scenarios/{squads.pk}/edit/unit/C", {"version": 1, "delete": "1"})
    squads.refresh_from_db()
    assert [u["id"] for u in squads.document["units"]] == ["B"]


def test_deleting_a_unit_leaves_no_character_joined_to_it():
    # Warmaster 2.8: `joined` must name a unit of the scenario (Situation.from_document refuses
    # a scenario where it does not), so a character whose unit is deleted has joined nothing.
    from battlefield.editor import delete_unit

    doc = {
        "units": [
            {"id": "F", "models": []},
            {"id": "J", "state": {"joined": "F", "command": 9}, "models": []},
            {"id": "K", "state": {"joined": "F"}, "models": []},
        ]
    }
    delete_unit(doc, "F")
    assert doc["units"] == [
        {"id": "J", "state": {"command": 9}, "models": []},
        {"id": "K", "models": []},
    ]


def test_the_turn_sets_round_active_army_and_phase(client, squads):
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/turn",
        {"version": 1, "round": "3", "active_army": "red", "phase": "movement"},
        **PARTIAL,
    )
    assert response.status_code == 200
    squads.refresh_from_db()
    assert squads.document["turn"] == {"round": 3, "active_army": "red", "phase": "movement"}
    response = post(
        client,
        f"/scenarios/{squads.pk}/edit/turn",
        {"version": 2, "round": "3", "active_army": "red", "phase": "combat"},
        **PARTIAL,
    )
    assert response.status_code == 422 and "choose a phase" in response.content.decode()


def test_a_new_phase_clears_what_units_did_this_phase_and_a_new_turn_this_turn():
    from battlefield.editor import set_turn

    doc = {
        "system": "wh40k-11e",
        "armies": [{"id": "red"}, {"id": "blue"}],
        "turn": {"round": 2, "active_army": "red", "phase": "movement"},
        "units": [
            {
                "id": "B",
                "state": {
                    "moved_this_phase": True,
                    "advanced_this_turn": True,
                    "battle_shocked": True,
                },
            },
        ],
    }
    set_turn(doc, 2, "red", "shooting")  # same turn, next phase
    assert doc["units"][0]["state"] == {"advanced_this_turn": True, "battle_shocked": True}
    set_turn(doc, 2, "red", "shooting")  # nothing changed: nothing cleared
    assert doc["units"][0]["state"] == {"advanced_this_turn": True, "battle_shocked": True}
    set_turn(doc, 2, "blue", "movement")  # the other player's turn
    assert doc["units"][0]["state"] == {"battle_shocked": True}


def test_warmaster_confusion_lasts_until_its_own_sides_next_command_phase_ends():
    # RULES.md 2.9 (an umpire's review): red's F is confused in blue's Shooting phase; it stays
    # confused through the rest of blue's turn and red's next Command phase, and recovers when
    # that Command phase ends. A character's own move lasts for the phase.
    from battlefield.editor import set_turn

    doc = {
        "system": "warmaster-revolution",
        "armies": [{"id": "red"}, {"id": "blue"}],
        "turn": {"round": 1, "active_army": "blue", "phase": "shooting"},
        "units": [
            {"id": "F", "army": "red", "state": {"confused": True}},
            {"id": "X", "army": "blue", "state": {"confused": True}},
            {"id": "H", "army": "red", "state": {"moved_this_phase": True}},
        ],
    }
    set_turn(doc, 1, "blue", "combat")
    assert doc["units"][0]["state"] == {"confused": True}
    assert doc["units"][2]["state"] == {}  # the character's move was last phase's
    set_turn(doc, 2, "red", "command")  # red's turn: F is still confused while ordering
    assert doc["units"][0]["state"] == {"confused": True}
    set_turn(doc, 2, "red", "shooting")  # red's Command phase is over
    assert doc["units"][0]["state"] == {}
    assert doc["units"][1]["state"] == {"confused": True}  # blue's ends with blue's


def test_armies_get_new_names_and_keep_their_units(client, mine):
    response = post(
        client,
        f"/scenarios/{mine.pk}/edit/armies",
        {"version": 1, "army-red": "World Eaters", "army-blue": "Tau Empire"},
        **PARTIAL,
    )
    assert response.status_code == 200
    mine.refresh_from_db()
    assert [a["name"] for a in mine.document["armies"]] == ["World Eaters", "Tau Empire"]
    response = post(
        client, f"/scenarios/{mine.pk}/edit/armies", {"version": 2, "army-red": " "}, **PARTIAL
    )
    assert response.status_code == 422 and "every army needs a name" in response.content.decode()


# -- undo and redo -----------------------------------------------------------------------------


def test_undo_and_redo_walk_the_edit_history(client, mine):
    url = f"/scenarios/{mine.pk}/edit"
    post(client, f"{url}/terrain", {"version": 1, "preset": "crater", "x": 5, "y": 5})
    post(client, f"{url}/terrain", {"version": 2, "preset": "woods", "x": 20, "y": 20})
    response = post(client, f"{url}/undo", {"version": 3}, **PARTIAL)
    assert (
        response.status_code == 200 and "Undid: Added terrain woods-1" in response.content.decode()
    )
    mine.refresh_from_db()
    assert [t["id"] for t in mine.document["terrain"]] == ["crater-1"] and mine.version == 4
    post(client, f"{url}/undo", {"version": 4})
    mine.refresh_from_db()
    assert mine.document["terrain"] == []
    post(client, f"{url}/redo", {"version": 5})
    mine.refresh_from_db()
    assert [t["id"] for t in mine.document["terrain"]] == ["crater-1"] and mine.version == 6


def test_a_new_edit_after_undo_drops_the_redo(client, mine):
    url = f"/scenarios/{mine.pk}/edit"
    post(client, f"{url}/terrain", {"version": 1, "preset": "crater", "x": 5, "y": 5})
    post(client, f"{url}/undo", {"version": 2})
    post(client, f"{url}/terrain", {"version": 3, "preset": "woods", "x": 20, "y": 20})
    response = post(client, f"{url}/redo", {"version": 4}, **PARTIAL)
    assert response.status_code == 422 and "nothing to redo" in response.content.decode()


def test_undo_with_nothing_to_undo_is_422(client, mine):
    response = post(client, f"/scenarios/{mine.pk}/edit/undo", {"version": 1}, **PARTIAL)
    assert response.status_code == 422 and "nothing to undo" in response.content.decode()


def test_undo_from_a_stale_page_is_409(client, mine):
    post(
        client,
        f"/scenarios/{mine.pk}/edit/terrain",
        {"version": 1, "preset": "crater", "x": 5, "y": 5},
    )
    response = post(client, f"/scenarios/{mine.pk}/edit/undo", {"version": 1}, **PARTIAL)
    assert response.status_code == 409


def test_undo_keeps_a_rename_but_refuses_to_drop_a_change_made_elsewhere(client, mine):
    post(
        client,
        f"/scenarios/{mine.pk}/edit/terrain",
        {"version": 1, "preset": "crater", "x": 5, "y": 5},
    )
    mine.refresh_from_db()
    mine.rename("New name")  # version 3
    post(client, f"/scenarios/{mine.pk}/edit/undo", {"version": 3})
    mine.refresh_from_db()
    assert mine.document["terrain"] == [] and mine.name == "New name"
    post(client, f"/scenarios/{mine.pk}/edit/redo", {"version": 4})
    mine.refresh_from_db()
    mine.document = {**mine.document, "turn": {"round": 3, "active_army": "blue"}}
    mine.save()  # a change outside the editor (version 6)
    response = post(client, f"/scenarios/{mine.pk}/edit/undo", {"version": 6}, **PARTIAL)
    assert response.status_code == 422 and "changed outside the editor" in response.content.decode()


def test_the_history_keeps_only_the_latest_edits(mine):
    for i in range(ScenarioEdit.HISTORY + 3):
        doc = dict(mine.document, description=f"v{i}")
        mine.apply_edit(doc, f"edit {i}", version=mine.version)
    assert mine.edits.count() == ScenarioEdit.HISTORY


# -- the ruler -----------------------------------------------------------------------------------


def test_the_ruler_measures_models_edge_to_edge(client, squads):
    response = client.get(f"/scenarios/{squads.pk}/ruler", {"a": "model:B1", "b": "model:B2"})
    assert response.status_code == 200
    html = response.content.decode()
    # Centres 1.5 in apart, two 32 mm bases (radius 0.63 in each): 1.5 - 1.2598 = 0.24 in.
    assert "<strong>0.24″</strong>" in html and "base edge to base edge" in html
    assert "from B1 of Khorne Berzerkers to B2 of Khorne Berzerkers" in html  # names (#13)
    assert "engagement" not in html  # same army


def test_the_ruler_says_whether_enemies_are_in_engagement_range(client, squads):
    html = client.get(
        f"/scenarios/{squads.pk}/ruler", {"a": "model:B1@38,30,0", "b": "model:C1"}
    ).content.decode()
    assert "within engagement range" in html


def test_the_ruler_measures_points_centre_to_centre_and_a_point_to_a_base_edge(client, squads):
    html = client.get(
        f"/scenarios/{squads.pk}/ruler", {"a": "point:0,0", "b": "point:3,4"}
    ).content.decode()
    assert "<strong>5.00″</strong>" in html and 'data-x2="3" data-y2="4"' in html
    html = client.get(
        f"/scenarios/{squads.pk}/ruler", {"a": "point:30,25", "b": "model:B1"}
    ).content.decode()
    # 5 in from B1's centre, minus its 0.63 in radius: 4.37 in.
    assert "<strong>4.37″</strong>" in html


def test_the_ruler_refuses_nonsense_with_422(client, squads):
    response = client.get(f"/scenarios/{squads.pk}/ruler", {"a": "model:Z", "b": "point:1,1"})
    assert response.status_code == 422 and "no model" in response.content.decode()
    response = client.get(f"/scenarios/{squads.pk}/ruler", {"a": "nowhere", "b": "point:1,1"})
    assert response.status_code == 422


def test_the_ruler_works_on_a_shared_table_without_edit_rights(client):
    shared = Scenario.objects.create(document=scenario_doc(), visibility="public")
    response = client.get(f"/s/{shared.share_token}/ruler", {"a": "point:0,0", "b": "point:0,2"})
    assert response.status_code == 200 and "2.00″" in response.content.decode()
    elsewhere = client.get(f"/scenarios/{shared.pk}/ruler", {"a": "point:0,0", "b": "point:0,2"})
    assert elsewhere.status_code in (403, 404)  # the editor's own ruler needs the right to edit


def test_measure_uses_vertical_distance_between_models_at_different_heights():
    doc = scenario_doc()
    doc["units"][0]["models"][1]["z"] = 3
    situation = Situation.from_document(doc)
    result = measure(situation, ("model", situation.model("B1")), ("model", situation.model("B2")))
    # 0.24 in apart horizontally and 3 in vertically: straight sqrt(0.24^2 + 9) = 3.01 in.
    assert result["straight"] == pytest.approx(3.0096, abs=1e-3)


# -- pieces ------------------------------------------------------------------------------------


def test_rings_are_drawn_for_each_40k_model_and_none_for_warmaster():
    situation = Situation.from_document(scenario_doc())
    rings = ring_overlays(situation)
    assert [css.split()[-1] for _, css in rings] == ["ring-B1", "ring-B2", "ring-C1"]
    ring, _ = rings[0]
    # A 32 mm base (radius 0.63 in) grown by 2 in: outer radius 2.63 in.
    assert ring.bounds[2] - 30 == pytest.approx(2.63, abs=0.01)
    doc = scenario_doc(system="warmaster-revolution")
    doc["terrain"] = []  # 40K ruins are no Warmaster terrain (RULES.md 2.2)
    for unit in doc["units"]:  # Warmaster stands are 4 x 2 cm (RULES.md 2.1)
        for model in unit["models"]:
            model["base"] = {"rect": [40, 20]}
    doc["units"][0]["models"][1]["x"] = 36  # B1 spans x 29..31: B2 clear of it
    assert ring_overlays(Situation.from_document(doc)) == []


def test_place_models_refuses_unknown_models():
    doc = scenario_doc()
    with pytest.raises(InvalidInput):
        place_models(doc, {"nope": {"x": 1, "y": 1}})


def test_describe_field_names_models_and_terrain_in_words():
    doc = scenario_doc()
    assert describe_field(doc, "units[0].models[1]") == "model B2 of Khorne Berzerkers"
    assert describe_field(doc, "terrain[0].footprint") == "terrain ruin-1"
    assert describe_field(doc, "turn") == "turn"


def test_add_unit_picks_fresh_ids_even_when_names_repeat():
    doc = scenario_doc()
    first = add_unit(
        doc,
        army="red",
        name="Berzerkers",
        keywords=[],
        move=6,
        base={"round": 32},
        count=1,
        x=10,
        y=10,
    )
    second = add_unit(
        doc,
        army="red",
        name="Berzerkers",
        keywords=[],
        move=6,
        base={"round": 32},
        count=1,
        x=15,
        y=10,
    )
    assert first != second
    validate_scenario(doc)


def test_the_3d_presets_bring_their_walls_and_floors_and_move_with_them():
    doc = scenario_doc(terrain=[])
    tid = add_terrain(doc, "ruin-l-two-floors", 30, 22)
    piece = doc["terrain"][-1]
    assert [f["height"] for f in piece["floors"]] == [3.0, 6.0] and len(piece["walls"]) == 1
    move_terrain(doc, tid, 40, 30, rotate_by=90)
    situation = validate_scenario(doc)  # every part still inside the footprint
    (feature,) = situation.terrain
    assert feature.layered and feature.footprint.centroid.distance(Point(40, 30)) < 1e-3


def test_placing_a_model_on_a_floor_sets_its_elevation_and_on_open_ground_clears_it():
    # A tower (floors at 3" and 6" over its whole 5" square) at (30, 22); B1 (32 mm) put at its
    # centre stands on the top floor, 6" up; put back on open ground it stands on the table.
    doc = scenario_doc(terrain=[])
    add_terrain(doc, "tower", 30, 22)
    place_models(doc, {"B1": {"x": 30, "y": 22}})
    b1 = doc["units"][0]["models"][0]
    assert b1["z"] == 6
    place_models(doc, {"B1": {"x": 10, "y": 40}})
    assert b1["z"] == 0


# -- building faster (issue 13 item 10) --------------------------------------------------------


def intercessors() -> UnitProfile:
    return UnitProfile.objects.create(
        system="wh40k-11e",
        name="Intercessor Squad",
        faction="Space Marines",
        keywords=["INFANTRY"],
        move=6,
        base={"round": 32},
        model_count=5,
    )


def test_a_unit_added_where_another_stands_goes_to_the_nearest_free_spot(client, mine):
    profile = intercessors()
    spot = {"profile": profile.pk, "army": "blue", "x": 30, "y": 22}
    assert post(client, f"/scenarios/{mine.pk}/edit/units/catalogue", {"version": 1, **spot})
    response = post(
        client, f"/scenarios/{mine.pk}/edit/units/catalogue", {"version": 2, **spot}, **PARTIAL
    )
    assert response.status_code == 200, response.content
    assert "from where you chose: that spot was taken" in response.content.decode()
    mine.refresh_from_db()
    first, second = mine.document["units"]
    # The first squad is one row of 32 mm bases (1.26 in) at y = 22. The second keeps its
    # formation, at least the block's 0.5 in clear of every base of the first; the row straight
    # below (1.26 + 0.5 = 1.76 in) would do, so it is no further than that and one search step
    # (half a base, 0.63 in).
    xs, ys = [m["x"] for m in second["models"]], {m["y"] for m in second["models"]}
    assert len(ys) == 1
    shift = ((sum(xs) / 5 - 30) ** 2 + (ys.pop() - 22) ** 2) ** 0.5
    assert 0 < shift <= 1.76 + 0.63
    for a in first["models"]:
        for b in second["models"]:
            gap = ((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2) ** 0.5 - 32 / 25.4
            assert gap >= 0.5 - 1e-6


def test_a_unit_with_no_room_near_the_spot_says_what_to_do(client, player):
    small = scenario_doc(units=[], table={"width": 10, "height": 10}, terrain=[])
    scenario = Scenario.objects.create(document=small, owner=player)
    response = post(
        client,
        f"/scenarios/{scenario.pk}/edit/units/catalogue",
        {"version": 1, "profile": intercessors().pk, "army": "red", "count": 40, "x": 5, "y": 5},
        **PARTIAL,
    )
    # 40 bases of 1.26 in, 8 rows of 5 with 0.5 in gaps, need 13.6 in: more than 10 in.
    assert response.status_code == 422
    assert "no room for 40 models near there" in response.content.decode()


def test_a_new_unit_is_offered_for_the_army_with_fewest_units(client, mine):
    def offered() -> str:
        html = client.get(f"/scenarios/{mine.pk}/edit").content.decode()
        form = html[html.index("/edit/units/catalogue") :]
        return form[: form.index("</select>", form.index('name="army"'))]

    assert '<option value="red" selected>' in offered()
    add = {"version": 1, "profile": intercessors().pk, "army": "red", "x": 30, "y": 10}
    post(client, f"/scenarios/{mine.pk}/edit/units/catalogue", add)
    assert '<option value="blue" selected>' in offered()
    # The units list names the army as the player named it, not by its id.
    html = client.get(f"/scenarios/{mine.pk}/edit").content.decode()
    assert "IS-1 · Red army · 5 models" in html


def test_the_catalogue_is_grouped_by_faction_with_a_search(client, mine):
    intercessors()
    UnitProfile.objects.create(
        system="wh40k-11e",
        name="Khorne Berzerkers",
        faction="World Eaters",
        keywords=["INFANTRY"],
        move=6,
        base={"round": 32},
        model_count=10,
    )
    html = client.get(f"/scenarios/{mine.pk}/edit").content.decode()
    marines, eaters = (
        html.index('<optgroup label="Space Marines">'),
        html.index('<optgroup label="World Eaters">'),
    )
    assert marines < html.index("Intercessor Squad (5)") < eaters
    assert eaters < html.index("Khorne Berzerkers (10)")
    assert 'data-filter-for="catalogue-profile"' in html


def test_casualties_are_removed_and_restored_from_the_units_panel(client, squads):
    url = f"/scenarios/{squads.pk}/edit/unit/B/casualty"
    html = client.get(f"/scenarios/{squads.pk}/edit").content.decode()
    assert f'action="{url}"' in html
    response = post(client, url, {"version": 1}, **PARTIAL)  # no choice: the unit's last model
    assert response.status_code == 200, response.content
    squads.refresh_from_db()
    assert [m["id"] for m in squads.document["units"][0]["models"]] == ["B1"]
    assert "Restore B2" in response.content.decode()
    # B1 is now the last of its unit: the editor deletes a unit, it does not empty it.
    response = post(client, url, {"version": 2, "remove": "B1"}, **PARTIAL)
    assert response.status_code == 422
    assert "last model" in response.content.decode()
    response = post(client, url, {"version": 2, "restore": "B2"}, **PARTIAL)
    assert response.status_code == 200
    squads.refresh_from_db()
    b2 = squads.document["units"][0]["models"][1]
    assert (b2["id"], b2["x"], b2["y"]) == ("B2", 31.5, 20.0)
    # A model of another unit is not this unit's to remove.
    response = post(client, url, {"version": 3, "remove": "C1"}, **PARTIAL)
    assert response.status_code == 422


def test_a_warmaster_stand_added_on_another_goes_flush_beside_it():
    """Warmaster stands may touch (the block's gap is 0): a 4 x 2 cm stand (RULES.md 2.1) added
    on one standing at (50, 50) ends flush against it: its nearest clear spot is one stand's
    depth, 2 cm, away."""
    doc = {
        "format": "arbiter.scenario/1",
        "system": "warmaster-revolution",
        "name": "t",
        "table": {"width": 120, "height": 120},
        "armies": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        "units": [],
    }
    stand = {"rect": [40, 20]}
    first = add_unit(
        doc, army="red", name="A", keywords=[], move=20, base=stand, count=1, x=50, y=50
    )
    second = add_unit(
        doc, army="blue", name="B", keywords=[], move=20, base=stand, count=1, x=50, y=50
    )
    a = doc["units"][0]["models"][0]
    b = doc["units"][1]["models"][0]
    assert (first, a["x"], a["y"]) == ("A-1", 50, 50)
    assert second == "B-1" and math.hypot(b["x"] - 50, b["y"] - 50) == pytest.approx(2)
    validate_scenario(doc)  # touching, not overlapping


def test_the_by_hand_form_offers_a_warmaster_stand_on_a_warmaster_table(client, player):
    # RULES.md 2.1: a Warmaster stand is 4 x 2 cm; the form's defaults must be one, since any
    # other base is refused when the table is read. A 40K table keeps a round 32 mm base.
    def form(table):
        assert client.post("/scenarios/new", {"name": "T", "table": table}).status_code == 302
        return client.get(f"/scenarios/{Scenario.objects.latest('pk').pk}/edit").content.decode()

    page = form("warmaster-revolution:180x120")
    assert '<option value="rect" selected>rect</option>' in page
    assert 'name="base_a" value="40"' in page
    assert 'name="base_b" placeholder="oval, rect" value="20"' in page
    assert 'placeholder="INFANTRY, FLYING"' in page  # Warmaster's keyword (FORMAT.md), not FLY
    page = form("wh40k-11e:60x44")
    assert '<option value="round">round</option>' in page and 'name="base_a" value="32"' in page
    assert 'placeholder="INFANTRY, FLY"' in page
