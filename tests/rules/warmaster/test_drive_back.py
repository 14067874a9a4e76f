"""Drive backs of flyers (RULES.md 2.6, section 3 item 5), at the rules level.

Geometry: unit F is three 4 x 2 cm stands facing +x at x = 100, y = 50, 54, 58 (x 99..101). The
shooter S1 stands at (120, 54), so "straight away from it" is the -x direction. A drive back of
d cm puts the stands' centres at x = 100 - d.
"""

import pytest

from rules import InvalidInput

from .builders import (
    enemy,
    failed_rules,
    flyers,
    judge,
    line_of_flyers,
    scenario,
    stand,
    suggested,
    terrain,
)


def drive(dice, hits=None, **declarations):
    return {
        "unit": "F",
        "type": "drive-back",
        "dice": list(dice),
        "declarations": {"shooter": "S1", "hits": hits or len(dice), **declarations},
    }


def units(*extra):
    return [line_of_flyers("F", 100, 54), enemy("S", 120, 54), *extra]


def xs(verdict):
    return sorted({round(v["end"]["x"], 4) for v in verdict.models.values()})


def events(verdict):
    return [e["event"] for e in verdict.events]


def test_flyers_are_driven_straight_away_from_the_shooter_by_the_dice():
    # 3 + 4 = 7 cm: centres from 100 to 93, facing unchanged
    verdict = judge(scenario(units(), phase="shooting"), drive([3, 4]))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [93.0] and verdict.move["max_distance"] == 7
    assert all(v["end"]["facing"] == 0 for v in verdict.models.values())
    assert events(verdict) == []


def test_a_drive_back_is_judged_whichever_side_the_scenario_says_is_shooting():
    # 2.6 gives the drive back from the hits the players resolved; it says nothing of whose
    # turn the shot was in, so a table that names the flyers' own side as the active army (a
    # scenario written loosely) still has its drive back judged, the same way (our reading,
    # docs/rules-coverage.md).
    blue_shoots = judge(scenario(units(), phase="shooting", active_army="blue"), drive([3, 4]))
    red_turn = judge(scenario(units(), phase="shooting", active_army="red"), drive([3, 4]))
    assert blue_shoots.legal and red_turn.legal
    assert blue_shoots.models == red_turn.models


def test_flyers_driven_back_over_a_wood_fly_over_it():
    # wood x 90..95; 5 + 6 = 11 cm puts the stands at x 88..90, just clear of it; the 6 confuses.
    doc = scenario(units(), [terrain("wood", "woods", 90, 40, 95, 70)], phase="shooting")
    verdict = judge(doc, drive([5, 6]))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [89.0]
    assert verdict.events == [{"event": "confused", "unit": "F", "because": ["a 6"]}]


def test_flyers_that_would_end_over_a_wood_stop_in_front_of_it():
    # wood x 80..95; 7 cm would end at x 92..94, over it: they stop touching its edge x = 95,
    # centres at 96 (4 cm). No 6 was rolled, so they are not confused.
    doc = scenario(units(), [terrain("wood", "woods", 80, 40, 95, 70)], phase="shooting")
    verdict = judge(doc, drive([3, 4]))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [96.0] and "confused" not in events(verdict)


def test_flyers_end_short_of_impassable_terrain():
    # cliffs x 85..94.5: 2 + 5 = 7 cm would end at x 92..94; stop at its edge 94.5 -> centres 95.5
    doc = scenario(units(), [terrain("cliff", "cliffs", 85, 40, 94.5, 70)], phase="shooting")
    verdict = judge(doc, drive([2, 5]))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [95.5]
    assert verdict.models["F1"]["distance_moved"] == pytest.approx(4.5)


def test_flyers_halt_on_touching_friends_who_do_not_make_way_and_are_confused():
    # friend G1 at x 92..94: 7 cm would land on it; they halt touching it at x = 94, centres 95.
    doc = scenario(
        units(flyers("G", [stand("G1", 93, 54)], keywords=("INFANTRY",))), phase="shooting"
    )
    verdict = judge(doc, drive([3, 4]))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [95.0]
    assert {"event": "confused", "unit": "F", "because": ["friends"]} in verdict.events
    assert verdict.after.unit("F").flag("confused")


@pytest.mark.parametrize(
    "obstacle, friend_x, end_x",
    [
        # A wood x 85..93.5: 7 cm would end at x 92..94, over it, so F stops in front of it (rear
        # edge 93.5, 5.5 cm), where it is over friend G1 (x 95..97) ...
        (terrain("wood", "woods", 85, 40, 93.5, 70), 96, 98),
        # An enemy stand E1, x 89.5..91.5: 7 cm would end 0.5 cm from it, so F stops 1 cm in front
        # (rear edge 92.5, 6.5 cm), where it is over friend G1 (x 94..96) ...
        (enemy("E", 90.5, 54), 95, 97),
    ],
)
def test_a_stop_the_flyers_never_reach_is_not_reported(obstacle, friend_x, end_x):
    # ... who does not make way: F halts as it first touches G1 (2 or 3 cm, centres at end_x),
    # well short of the wood or 4.5 cm from the enemy. It halted on the friends alone: confused
    # by them, no D6 owed for halting at terrain, no word of the wood or enemy it never reached.
    friend = flyers("G", [stand("G1", friend_x, 54)], keywords=("INFANTRY",))
    if obstacle["id"] == "wood":
        doc = scenario(units(friend), [obstacle], phase="shooting")
    else:
        doc = scenario(units(friend, obstacle), phase="shooting")
    verdict = judge(doc, drive([3, 4]))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [end_x]
    assert [e for e in verdict.events if e["event"] in ("confused", "confusion-roll")] == [
        {"event": "confused", "unit": "F", "because": ["friends"]}
    ]
    moving = [f.text for f in verdict.findings if f.stage == "while-moving"]
    assert len(moving) == 1 and "friends (G)" in moving[0], moving


def test_friends_who_make_way_let_the_flyers_end_where_the_dice_say():
    doc = scenario(
        units(flyers("G", [stand("G1", 93, 54)], keywords=("INFANTRY",))), phase="shooting"
    )
    verdict = judge(doc, drive([3, 4], friends_make_way=True))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [93.0]
    assert {"event": "make-way", "unit": "F", "friends": ["G"]} in verdict.events


def test_flyers_stop_1_cm_in_front_of_an_enemy_and_are_confused():
    # enemy E1 at x 92..94: they stop with their rear edge 1 cm from it, at x = 95, centres 96.
    doc = scenario(units(enemy("E", 93, 54)), phase="shooting")
    verdict = judge(doc, drive([3, 4]))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [96.0]
    after = verdict.after
    assert after.model("F2").footprint.distance(after.model("E1").footprint) == pytest.approx(
        1.0, abs=1e-3
    )
    assert {"event": "confused", "unit": "F", "because": ["enemy"]} in verdict.events


def test_flyers_driven_back_further_than_full_pace_are_destroyed():
    # 17 hits of 6 = 102 cm > 100 cm
    verdict = judge(scenario(units(), phase="shooting"), drive([6] * 17))
    assert verdict.legal
    assert "destroyed" in events(verdict)
    assert not verdict.after.has_unit("F")


def birdmen(*extra):
    """F as infantry flyers (e.g. Birdmen): the only flyers that can be defended or fortified."""
    f = line_of_flyers("F", 100, 54)
    f["keywords"] = ["FLYING", "INFANTRY"]
    return [f, enemy("S", 120, 54), *extra]


def test_defended_and_fortified_infantry_flyers_roll_fewer_dice():
    # 3 hits: defended rolls 2 dice, fortified 1
    doc = scenario(birdmen(), phase="shooting")
    assert judge(doc, drive([2, 2], hits=3, defended=True)).move["max_distance"] == 4
    assert judge(doc, drive([2], hits=3, fortified=True)).move["max_distance"] == 2
    with pytest.raises(InvalidInput):
        judge(doc, drive([2, 2, 2], hits=3, fortified=True))


@pytest.mark.parametrize("declared", ["defended", "fortified"])
def test_only_infantry_and_artillery_can_be_defended_or_fortified(declared):
    # 2.9: F is a unit of flying monsters: the declaration is refused, not a die fewer
    verdict = judge(scenario(units(), phase="shooting"), drive([2, 2], hits=3, **{declared: True}))
    assert not verdict.legal
    assert any("Only infantry and artillery" in t for _, _, t in failed_rules(verdict))


def test_a_unit_in_combat_is_not_driven_back():
    # E (x 101..103, y 48..52) touches F's front edge x = 101
    verdict = judge(scenario(units(enemy("E", 102, 50)), phase="shooting"), drive([3]))
    assert not verdict.legal
    assert any("not driven back" in t for _, _, t in failed_rules(verdict))


def test_the_direction_runs_from_the_shooters_closest_point_to_the_units_closest_point():
    # Shooter S1 (x 119..121, y 32..36) is up and to the right of F (x 99..101, y 48..60):
    # closest points (119, 36) and (101, 48), direction (-18, 12) / 21.63. Centre to centre
    # would be (100 - 120, 54 - 34) = (-20, 20) / 28.28, a different direction.
    # 5 + 5 = 10 cm: the centres move by (-8.321, 5.547).
    doc = scenario([line_of_flyers("F", 100, 54), enemy("S", 120, 34)], phase="shooting")
    verdict = judge(doc, drive([5, 5]))
    assert verdict.legal, failed_rules(verdict)
    end = verdict.models["F2"]["end"]
    assert (end["x"], end["y"]) == (
        pytest.approx(100 - 180 / 21.6333, abs=1e-3),
        pytest.approx(54 + 120 / 21.6333, abs=1e-3),
    )


def test_halting_in_front_of_terrain_owes_a_separate_confusion_die():
    # the wood case above: no 6 among the drive-back dice, but a D6 is owed for halting
    doc = scenario(units(), [terrain("wood", "woods", 80, 40, 95, 70)], phase="shooting")
    verdict = judge(doc, drive([3, 4]))
    assert {
        "event": "confusion-roll",
        "unit": "F",
        "dice": "1D6",
        "because": "halted in front of terrain",
    } in verdict.events
    assert "confused" not in events(verdict)


def test_friends_that_make_way_and_the_flyers_each_owe_confusion_dice():
    doc = scenario(
        units(
            flyers("G", [stand("G1", 93, 54)], keywords=("INFANTRY",)),
            flyers("H", [stand("H1", 93, 58)], keywords=("INFANTRY",)),
        ),
        phase="shooting",
    )
    verdict = judge(doc, drive([3, 4], friends_make_way=True))
    rolls = [(e["unit"], e["dice"]) for e in verdict.events if e["event"] == "confusion-roll"]
    assert sorted(rolls) == [("F", "2D6"), ("G", "1D6"), ("H", "1D6")]


def test_friends_in_combat_cannot_make_way_the_flyers_halt_1_cm_short_confused():
    # G1 (x 92..94) is in combat with K (x 90..92), which touches it. 7 cm would land F on G1:
    # G cannot make way, so F halts 1 cm short of G1's edge x = 94, at x 95..97 (centres 96),
    # and is confused.
    g = flyers("G", [stand("G1", 93, 54)], keywords=("INFANTRY",))
    doc = scenario(units(g, enemy("K", 91, 54)), phase="shooting")
    verdict = judge(doc, drive([3, 4], friends_make_way=True))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [96.0]
    assert "make-way" not in events(verdict)
    confused = next(e for e in verdict.events if e["event"] == "confused")
    assert "busy" in confused["because"]


def test_a_friendly_hero_does_not_halt_the_flyers_and_is_moved_aside():
    hero = {
        "id": "H",
        "army": "red",
        "name": "H",
        "keywords": ["CHARACTER", "HERO"],
        "state": {},
        "models": [{"id": "H1", "base": {"rect": [40, 20]}, "x": 93, "y": 54}],
    }
    verdict = judge(scenario(units(hero), phase="shooting"), drive([3, 4]))
    assert verdict.legal, failed_rules(verdict)
    assert xs(verdict) == [93.0]  # the full 7 cm
    assert "confused" not in events(verdict)
    assert any(e["event"] == "character-moved-aside" and e["unit"] == "H" for e in verdict.events)


def test_a_drive_back_over_the_table_edge_takes_the_unit_off_and_owes_the_d6():
    # F at x = 8 (x 7..9), shooter at x = 28: 5 + 4 = 9 cm crosses the edge after 7 cm
    doc = scenario(
        [line_of_flyers("F", 8, 54, state={"stands_lost": 1}), enemy("S", 28, 54)],
        phase="shooting",
    )
    verdict = judge(doc, drive([5, 4]))
    assert verdict.legal, failed_rules(verdict)
    assert {"event": "leave-table-roll", "unit": "F", "dice": "D6", "modifier": -1} in (
        verdict.events
    )
    assert xs(verdict) == [1.0]  # shown where it left, touching the edge


def test_a_hand_placement_that_is_not_where_the_drive_back_ends_is_refused():
    doc = scenario(units(), phase="shooting")
    end = {m: {"x": 95, "y": y} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
    verdict = judge(doc, {**drive([3, 4]), "end": end})
    assert not verdict.legal
    assert verdict.failures[0].measured == pytest.approx(2.0)


def test_suggest_fills_in_the_end_and_keeps_the_server_roll():
    doc = scenario(units(), phase="shooting")
    move = suggested(
        doc,
        {
            "unit": "F",
            "type": "drive-back",
            "seed": 5,
            "declarations": {"shooter": "S1", "hits": 2},
        },
    )
    assert set(move.end) == {"F1", "F2", "F3"} and move.seed == 5
    again = judge(doc, move.to_document())
    assert again.legal and again.move["dice"][0]["source"] == "server"


def test_the_shooter_must_be_an_enemy_stand():
    doc = scenario(
        units(flyers("G", [stand("G1", 60, 54)], keywords=("INFANTRY",))), phase="shooting"
    )
    with pytest.raises(InvalidInput) as err:
        judge(doc, {**drive([3]), "declarations": {"shooter": "G1", "hits": 1}})
    assert err.value.field == "declarations.shooter"


# -- property: the engine's drive back always ends where a flyer may end ---------------------------

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rules import Move, adjudicate, suggest  # noqa: E402

from .builders import legal_start  # noqa: E402


@st.composite
def drive_back_cases(draw):
    x, y = draw(st.floats(30, 150)), draw(st.floats(25, 95))
    shooter = enemy("S", x + draw(st.floats(8, 30)), y + draw(st.floats(-10, 10)))
    units = [line_of_flyers("F", x, y), shooter]
    pieces = []
    for i in range(draw(st.integers(0, 4))):
        px, py = x - draw(st.floats(0, 25)), y + draw(st.floats(-12, 12))
        if draw(st.booleans()):
            army = draw(st.sampled_from(["red", "blue"]))
            units.append(
                flyers(
                    f"O{i}",
                    [stand(f"O{i}s", px, py, draw(st.sampled_from([0, 30, 90])))],
                    army=army,
                    keywords=("INFANTRY",),
                )
            )
        else:
            kind = draw(st.sampled_from(["woods", "impassable", "hill"]))
            w, h = draw(st.floats(1, 12)), draw(st.floats(1, 12))
            pieces.append(terrain(f"t{i}", kind, px, py, px + w, py + h))
    dice = draw(st.lists(st.integers(1, 6), min_size=1, max_size=6))
    return scenario(units, pieces, phase="shooting"), dice


@settings(
    max_examples=int(__import__("os").environ.get("WM_EXAMPLES", 40)),
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much],
)
@given(drive_back_cases())
def test_the_engines_drive_back_is_always_legal(case):
    doc, dice = case
    situation = legal_start(doc)
    assume(situation is not None)
    move = Move.from_document(drive(dice), "warmaster-revolution")
    verdict = adjudicate(situation, suggest(situation, move))
    assert verdict.legal, failed_rules(verdict)
