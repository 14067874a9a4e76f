"""The registry (rules/systems.py): one description per game, read by the engine and the web app.
These tests hold each description to its own rules (phases, kinds, flags) and to RULES.md."""

import copy
import json
import pathlib

import pytest

from rules import SYSTEMS, InvalidInput, Move, Situation, adjudicate
from rules.systems import DECLARATION_KINDS, LASTS

ROOT = pathlib.Path(__file__).resolve().parents[2]
WARMASTER = "warmaster-revolution"


def demo(kind: str, name: str) -> dict:
    return json.loads((ROOT / "battlefield" / "demo" / kind / f"{name}.json").read_text())


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_each_move_type_is_made_in_phases_of_its_game_and_declares_known_kinds(system):
    described = SYSTEMS[system]
    assert described.move_types, "a game with no move types"
    for move_type in described.move_types.values():
        assert set(move_type.phases) <= set(described.phases), move_type.name
        assert move_type.title and move_type.rule and move_type.dice
        for declaration in move_type.declarations:
            assert declaration.kind in DECLARATION_KINDS
            if declaration.kind == "choice":
                assert declaration.choices, f"{declaration.name} offers no choices"


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_each_state_flag_says_how_long_it_lasts(system):
    flags = SYSTEMS[system].state_flags
    assert len({f.name for f in flags}) == len(flags)
    assert all(f.lasts in LASTS for f in flags)


def test_a_new_phase_clears_what_a_unit_did_this_phase_and_a_new_turn_also_this_turn():
    wh40k = SYSTEMS["wh40k-11e"]
    assert wh40k.flags_cleared(new_turn=False) == ("moved_this_phase",)
    assert set(wh40k.flags_cleared(new_turn=True)) == {
        "moved_this_phase",
        "advanced_this_turn",
        "fell_back_this_turn",
    }
    assert "battle_shocked" not in wh40k.flags_cleared(new_turn=True)


def test_every_terrain_name_belongs_to_exactly_one_kind():
    for system in SYSTEMS.values():
        names = [n for kind in system.terrain_kinds for n in kind.names]
        assert len(names) == len(set(names)), system.name
        assert set(system.terrain_aliases.values()) <= set(names), system.name


# -- one Warmaster terrain vocabulary (RULES.md 2.2) --------------------------------------------

#: Names players give terrain, and the kind RULES.md 2.2 gives what they name: hills are open
#: ground, a forest is woods, a town a village, streams and marshes are crossed like shallow
#: rivers, walls, hedges and fences are low obstacles, lakes and "water" are deep water.
COMMON_NAMES = {
    "hills": "open",
    "forest": "woods",
    "town": "village",
    "stream": "water",
    "marsh": "water",
    "obstacle": "water",
    "wall": "water",
    "hedge": "water",
    "fence": "water",
    "lake": "impassable",
    "water": "impassable",
}


@pytest.mark.parametrize("name, kind", sorted(COMMON_NAMES.items()))
def test_a_common_warmaster_terrain_name_is_a_kind_the_engine_judges(name, kind):
    assert SYSTEMS[WARMASTER].terrain_kind(name).name == kind
    assert SYSTEMS[WARMASTER].terrain_kind(name.title()).name == kind  # case does not matter


def home_back_table(terrain_type: str, under_the_end: bool = False) -> dict:
    """The home back demo (Giant Eagles at y 52 home back to their General at y 100, ending at
    y 98) with its woods renamed; or moved under where EA1 ends (88, 98)."""
    doc = copy.deepcopy(demo("scenarios", "warmaster-home-back"))
    doc["terrain"][0]["type"] = terrain_type
    if under_the_end:
        doc["terrain"][0]["footprint"] = [[84, 95], [87, 95], [87, 101], [84, 101]]
    return doc


@pytest.mark.parametrize("name", sorted(COMMON_NAMES))
def test_a_table_whose_terrain_has_a_common_name_is_judged_like_the_rulebook_name(name):
    # The piece lies between the eagles and their General (y 60-76); flyers hop over terrain
    # (2.5), so the home back is legal whatever the piece is called.
    situation = Situation.from_document(home_back_table(name))
    verdict = adjudicate(situation, Move.from_document(demo("moves", "warmaster-home-back")))
    assert verdict.legal, [f.text for f in verdict.failures]


def test_a_flyer_may_not_end_over_a_forest_but_may_end_in_a_town():
    # 2.2 / 2.5: never over woods; villages are open to flyers. EA1 ends on the piece's edge.
    move = Move.from_document(demo("moves", "warmaster-home-back"))
    forest = adjudicate(Situation.from_document(home_back_table("forest", True)), move)
    assert not forest.legal
    assert any("woods-1" in f.text for f in forest.failures)
    town = adjudicate(Situation.from_document(home_back_table("town", True)), move)
    assert town.legal, [f.text for f in town.failures]


def test_an_unknown_warmaster_terrain_name_is_refused_when_the_scenario_is_read():
    with pytest.raises(InvalidInput) as err:
        Situation.from_document(home_back_table("lava field"))
    assert err.value.field == "terrain[0].type"
    assert "'lava field'" in err.value.message and "forest" in err.value.message
