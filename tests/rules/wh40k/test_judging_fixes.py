"""Issue 12's bugs, each a worked test from the rule text: turning on the spot (RULES.md 1.3), one
surge per phase (1.6), negative elevations, the 11th-edition charge (1.4) and units where only
some models have FLY (1.7)."""

import pytest

from rules import InvalidInput, Move, adjudicate
from rules.wh40k.move_types import charge_target_options

from .scenarios import R32, model, move, rect, situation, terrain, unit
from .test_surge_eligibility import BLOOD_SURGE

#: A 60 x 35.5 mm oval: 2.362" long, 1.398" wide (half: 1.181" x 0.699").
OVAL = {"oval": [60, 35.5]}
HALF_LENGTH, HALF_WIDTH = 30 / 25.4, 17.75 / 25.4


def failures(verdict):
    return [(f.rule, f.stage) for f in verdict.failures]


# -- 1.3: a model that only turns has moved for the end-of-move checks --------------------------
def test_an_oval_turned_on_the_spot_onto_a_friend_is_refused():
    # A1 (oval, facing 0 = long axis along x) at (10, 10); friend A2 (32 mm) at (10, 11.5).
    # Facing 0: the oval reaches 0.699" down, A2 reaches 0.63" up: 1.33 < 1.5, clear.
    # Turned to 90: the oval reaches 1.181" down: 1.181 + 0.63 = 1.811 > 1.5, they overlap.
    assert HALF_WIDTH + R32 < 1.5 < HALF_LENGTH + R32
    s = situation([unit("A", "red", [model("A1", 10, 10, base=OVAL), model("A2", 10, 11.5)])])
    v = adjudicate(s, move("A", "normal", {"A1": {"x": 10, "y": 10, "facing": 90}}))
    assert ("03.01", "end-of-move") in failures(v)
    assert any("A1 on A2" in f.text for f in v.failures)
    # Turning it back to 0 (no move at all) is fine.
    v = adjudicate(s, move("A", "normal", {"A1": {"x": 10, "y": 10, "facing": 0}}))
    assert v.legal, failures(v)


def test_an_oval_turned_on_the_spot_across_the_table_edge_gets_a_verdict_not_a_crash():
    # A1 at x = 1, facing 90: it reaches 0.699" left, on the table. Turned to 0 it would reach
    # 1.181" left, to x = -0.181: across the table edge.
    s = situation([unit("A", "red", [model("A1", 1, 10, base=OVAL, facing=90)])])
    v = adjudicate(s, move("A", "normal", {"A1": {"x": 1, "y": 10, "facing": 0}}))
    assert not v.legal
    assert any("leave the table" in f.text for f in v.failures)
    assert v.as_dict()["legal"] is False  # the whole verdict can be built


# -- 1.6: one surge per phase, whatever the ability -------------------------------------------
def test_a_unit_that_surged_this_phase_with_another_ability_cannot_surge_again():
    # B surged earlier this shooting phase (round 2, blue's turn) with "fury", an ability other
    # than Blood Surge; the record was kept, the moved flag was not set. A surge is a move.
    used = [{"ability": "fury", "round": 2, "turn": "blue", "phase": "shooting"}]
    s = situation(
        [
            unit("A", "blue", [model("A1", 40, 10)]),
            unit(
                "B",
                "red",
                [model("B1", 10, 10)],
                state={"surges_used": used},
                abilities=[BLOOD_SURGE],
            ),
        ],
        phase="shooting",
        active="blue",
    )
    mv = Move.from_document(
        {
            "format": "arbiter.move/1",
            "unit": "B",
            "type": "surge",
            "declarations": {
                "ability": "blood-surge",
                "trigger": {"event": "shot", "by": "A", "models_destroyed": 1},
            },
            "dice": [3],
            "end": {"B1": {"x": 13, "y": 10}},
        },
        "wh40k-11e",
    )
    v = adjudicate(s, mv)
    assert ("21.02", "eligible-if") in failures(v)
    assert any("surged" in f.text and f.stage == "eligible-if" for f in v.failures)


# -- negative elevation is invalid input ---------------------------------------------------------
def test_a_negative_end_elevation_is_refused_naming_the_field():
    s = situation([unit("A", "red", [model("A1", 10, 10)])])
    with pytest.raises(InvalidInput) as err:
        adjudicate(s, move("A", "normal", {"A1": {"x": 12, "y": 10, "z": -1}}))
    assert err.value.field == "end.A1.z"


# -- 1.4: the 11th-edition charge -----------------------------------------------------------------
def charge_scene(gap, target_keywords=("INFANTRY",), charger_keywords=("INFANTRY",)):
    """A1 at (10, 10); E1 with its near edge `gap` inches from A1's edge, straight to the east."""
    return situation(
        [
            unit("A", "red", [model("A1", 10, 10)], keywords=charger_keywords),
            unit("E", "blue", [model("E1", 10 + 2 * R32 + gap, 10)], keywords=target_keywords),
        ]
    )


def test_a_target_beyond_the_roll_cannot_be_charged_even_if_a_shorter_move_would_engage():
    # E is 8.5" away (edge to edge); a roll of 7 (3 + 4). Moving 6.5" would end 2" away, engaged,
    # but 11.02 picks targets after the roll among the units within the roll: 8.5 > 7.
    s = charge_scene(8.5)
    v = adjudicate(s, move("A", "charge", {"A1": (16.5, 10)}, dice=[3, 4], charge_targets=["E"]))
    assert not v.legal
    (bad,) = [f for f in v.failures if f.stage == "before-moving"]
    assert bad.rule == "11.02" and bad.measured == pytest.approx(8.5) and bad.limit == 7
    # With a roll of 9 the same target may be picked (and A1 must then get within 1": it moves
    # 8.5" into base contact, E1's centre being 10 + 2 x 0.63 + 8.5 = 19.76).
    v = adjudicate(s, move("A", "charge", {"A1": (18.5, 10)}, dice=[4, 5], charge_targets=["E"]))
    assert v.legal, failures(v)


def test_an_unmodified_roll_of_two_always_fails_the_charge():
    # E1 is 1.5" away: a 2" move would reach base contact, but a double one fails every charge.
    s = charge_scene(1.5)
    v = adjudicate(s, move("A", "charge", {"A1": (11.5, 10)}, dice=[1, 1], charge_targets=["E"]))
    assert not v.legal
    assert any(f.rule == "11.02" and "2" in f.text for f in v.failures)


def test_only_a_unit_that_can_fly_may_pick_an_aircraft_as_a_charge_target():
    s = charge_scene(3, target_keywords=("AIRCRAFT", "FLY"))
    v = adjudicate(s, move("A", "charge", {"A1": (13, 10)}, dice=[3, 3], charge_targets=["E"]))
    assert ("11.02", "before-moving") in failures(v)
    assert any("AIRCRAFT" in f.text for f in v.failures)
    flyers = charge_scene(3, target_keywords=("AIRCRAFT", "FLY"), charger_keywords=("FLY",))
    v = adjudicate(flyers, move("A", "charge", {"A1": (13, 10)}, dice=[3, 3], charge_targets=["E"]))
    assert ("11.02", "before-moving") not in failures(v)


def test_the_targets_on_offer_after_the_roll_are_the_enemies_within_the_roll_and_12_inches():
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("E", "blue", [model("E1", 10 + 2 * R32 + 5, 10)]),  # 5" away
            unit("F", "blue", [model("F1", 10, 10 + 2 * R32 + 8)]),  # 8" away
            unit("G", "blue", [model("G1", 10 + 2 * R32 + 7, 20)], keywords=("AIRCRAFT",)),
        ]
    )
    assert charge_target_options(s, "A", [3, 4]) == ["E"]
    assert charge_target_options(s, "A", [4, 4]) == ["E", "F"]
    assert charge_target_options(s, "A", [1, 1]) == []
    # Taking to the skies: the roll less 2" (HOVER keeps it).
    assert charge_target_options(s, "A", [4, 4], take_to_the_skies=True) == ["E"]


# -- 1.7: only the FLY models of a mixed unit get the skies' freedoms ---------------------------
def test_in_a_mixed_unit_only_the_models_with_fly_cross_enemy_models_in_the_skies():
    # A1 has FLY (its own keyword), A2 does not; M 14", 12" in the skies. Both go straight east
    # 12" across the enemy line E at x = 13 (y 6 to 14.9, bases touching). A1 flies over it; A2
    # walks and may not cross enemy models (03.01), so only A2's path is refused.
    wall = [model(f"E{i}", 13, 6 + 2 * R32 * i) for i in range(8)]
    s = situation(
        [
            unit(
                "A",
                "red",
                [{**model("A1", 7, 9), "keywords": ["FLY"]}, model("A2", 7, 10.5)],
                move=14,
            ),
            unit("E", "blue", wall),
        ]
    )
    v = adjudicate(
        s,
        move(
            "A",
            "normal",
            {"A1": (19, 9), "A2": (19, 10.5)},
            paths={"A1": [(13, 9)], "A2": [(13, 10.5)]},
            take_to_the_skies=True,
        ),
    )
    assert v.move["max_distance"] == 12
    assert {f.subject for f in v.failures} == {"A2"}, [f.text for f in v.failures]
    assert any("crosses enemy model" in f.text for f in v.failures)


# -- 1.5: a MONSTER that climbed may not end on an upper floor -------------------------------------
def test_a_monster_that_climbed_a_ruin_cannot_end_on_its_upper_floor():
    # A 4" tall dense ruin with an upper floor at 3" over its whole footprint. The MONSTER M1
    # (60 mm) climbs onto it: it had to climb a section taller than 2" (13.06), so it may not
    # end on the ruin's upper floors (RULES.md 1.5).
    ruin = {
        **terrain("ruin", rect(12, 5, 18, 15), height=4),
        "floors": [{"footprint": [list(p) for p in rect(12, 5, 18, 15)], "height": 3}],
    }
    s = situation(
        [unit("M", "red", [model("M1", 9, 10, base=60)], keywords=("MONSTER",), move=12)], [ruin]
    )
    v = adjudicate(s, move("M", "normal", {"M1": {"x": 15, "y": 10, "z": 3}}))
    assert ("13.06", "end-of-move") in failures(v)
    assert any("climb" in f.text and f.subject == "M1" for f in v.failures)
