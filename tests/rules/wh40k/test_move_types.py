"""Normal, advance, fall back, charge and taking to the skies, through `rules.adjudicate`
(RULES.md 1.4, 1.7 and the worked examples of section 3)."""

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules import InvalidInput, adjudicate, move_options, suggest
from rules.wh40k.moving import mode_for

from .scenarios import R32, model, move, rect, situation, terrain, unit


def rule_failures(verdict):
    return [(f.rule, f.stage) for f in verdict.failures]


# -- normal ---------------------------------------------------------------------------------------
def test_a_normal_move_of_exactly_m_is_legal_and_updates_the_scenario():
    s = situation([unit("A", "red", [model("A1", 10, 10), model("A2", 11.5, 10)])])
    v = adjudicate(s, move("A", "normal", {"A1": (16, 10), "A2": (17.5, 10)}))
    assert v.legal, rule_failures(v)
    assert v.move["max_distance"] == 6
    assert v.models["A1"]["distance_moved"] == 6.0 and v.models["A1"]["end"]["x"] == 16
    after = v.after.unit("A")
    assert after.model("A2").x == 17.5 and after.flag("moved_this_phase")
    doc = v.as_dict()
    assert doc["scenario"]["units"][0]["models"][0]["x"] == 16


def test_a_normal_move_0_01_over_m_is_illegal_and_changes_nothing():
    s = situation([unit("A", "red", [model("A1", 10, 10)])])
    v = adjudicate(s, move("A", "normal", {"A1": (16.01, 10)}))
    assert not v.legal and rule_failures(v) == [("09.05", "while-moving")]
    assert v.after is None and "scenario" not in v.as_dict()


def test_an_engaged_unit_cannot_make_a_normal_move():
    # A1 to E1: 3 - 1.26 = 1.74" (within 2")
    s = situation(
        [unit("A", "red", [model("A1", 10, 10)]), unit("E", "blue", [model("E1", 13, 10)])]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (10, 4)}))
    assert ("09.05", "eligible-if") in rule_failures(v)


def test_a_normal_move_must_end_unengaged():
    s = situation(
        [unit("A", "red", [model("A1", 10, 10)]), unit("E", "blue", [model("E1", 17, 10)])]
    )
    # ends at 14: 3 - 1.26 = 1.74" from E1
    v = adjudicate(s, move("A", "normal", {"A1": (14, 10)}))
    assert rule_failures(v) == [("09.05", "after-moving")]


def test_without_end_positions_a_normal_move_is_an_input_error():
    s = situation([unit("A", "red", [model("A1", 10, 10)])])
    with pytest.raises(InvalidInput) as err:
        adjudicate(s, move("A", "normal"))
    assert err.value.field == "end"


# -- advance ---------------------------------------------------------------------------------------
def test_an_advance_adds_a_d6_and_records_the_die():
    s = situation([unit("A", "red", [model("A1", 10, 10)])])
    v = adjudicate(s, move("A", "advance", {"A1": (19, 10)}, dice=[3]))  # 6 + 3 = 9
    assert (
        v.legal
        and v.move["max_distance"] == 9
        and v.move["dice"] == [{"value": 3, "source": "user"}]
    )
    assert v.after.unit("A").flag("advanced_this_turn")
    v = adjudicate(s, move("A", "advance", {"A1": (19.01, 10)}, dice=[3]))
    assert rule_failures(v) == [("09.06", "while-moving")]


def test_the_server_rolls_with_a_recorded_seed_when_no_dice_are_entered():
    s = situation([unit("A", "red", [model("A1", 10, 10)])])
    v = adjudicate(s, move("A", "advance", {"A1": (11, 10)}))
    assert v.move["dice"][0]["source"] == "server" and "seed" in v.move
    assert v.move["max_distance"] == 6 + v.move["dice"][0]["value"]


# -- fall back -----------------------------------------------------------------------------------
def engaged_pair(shocked=False):
    return situation(
        [
            unit(
                "A",
                "red",
                [model("A1", 10, 10), model("A2", 10, 11.5)],
                state={"battle_shocked": shocked},
            ),
            unit("E", "blue", [model("E1", 10 + 2 * R32, 10), model("E2", 10 + 2 * R32, 11.5)]),
        ]
    )


def test_an_ordered_retreat_leaves_engagement_and_owes_nothing():
    s = engaged_pair()
    v = adjudicate(s, move("A", "fall-back", {"A1": (5, 10), "A2": (5, 11.5)}))
    assert v.legal, rule_failures(v)
    assert v.events == [] and v.after.unit("A").flag("fell_back_this_turn")


def test_a_fall_back_that_stays_engaged_is_illegal():
    s = engaged_pair()
    v = adjudicate(s, move("A", "fall-back", {"A1": (9, 10), "A2": (9, 11.5)}))
    assert rule_failures(v) == [("09.07", "after-moving")]


def test_a_desperate_escape_goes_through_enemies_and_owes_hazard_and_battle_shock_rolls():
    s = engaged_pair()
    # straight through the enemy line to x = 15 (5" of 6")
    end = {"A1": (15, 10), "A2": (15, 11.5)}
    through = {"A1": [(12, 10)], "A2": [(12, 11.5)]}
    v = adjudicate(s, move("A", "fall-back", end, paths=through, fall_back_mode="ordered-retreat"))
    assert not v.legal  # an ordered retreat may not cross E1/E2
    v = adjudicate(s, move("A", "fall-back", end, paths=through, fall_back_mode="desperate-escape"))
    assert v.legal, rule_failures(v)
    kinds = [e["event"] for e in v.events]
    assert kinds == ["hazard-roll", "hazard-roll", "battle-shock-roll"]
    assert v.events[0]["mortal_wounds"] == 1 and v.events[0]["fails_on"] == [1, 2]


def test_a_battle_shocked_unit_cannot_make_an_ordered_retreat_and_takes_no_battle_shock_roll():
    s = engaged_pair(shocked=True)
    v = adjudicate(
        s,
        move("A", "fall-back", {"A1": (5, 10), "A2": (5, 11.5)}, fall_back_mode="ordered-retreat"),
    )
    assert rule_failures(v) == [("09.07", "eligible-if")]
    v = adjudicate(
        s, move("A", "fall-back", {"A1": (5, 10), "A2": (5, 11.5)})
    )  # defaults to desperate
    assert v.legal and [e["event"] for e in v.events] == ["hazard-roll", "hazard-roll"]


def test_a_vehicle_desperate_escape_risks_three_mortal_wounds():
    s = situation(
        [
            unit("V", "red", [model("V1", 10, 10, base=60)], keywords=("VEHICLE",), move=10),
            unit("E", "blue", [model("E1", 10 + 30 / 25.4 + R32, 10)]),
        ]
    )
    v = adjudicate(s, move("V", "fall-back", {"V1": (3, 10)}, fall_back_mode="desperate-escape"))
    assert v.legal and v.events[0]["mortal_wounds"] == 3


# -- charge ---------------------------------------------------------------------
def charge_scene(extra=()):
    return situation(
        [
            unit("A", "red", [model("A1", 10, 10), model("A2", 10, 11.5)]),
            unit("E", "blue", [model("E1", 18, 10), model("E2", 18, 11.5)]),
            *extra,
        ]
    )


def test_a_charge_into_base_contact_with_its_target_is_legal():
    s = charge_scene()
    contact = 18 - 2 * R32  # touching E1/E2: 6.74" travelled, roll 7
    v = adjudicate(
        s,
        move(
            "A",
            "charge",
            {"A1": (contact, 10), "A2": (contact, 11.5)},
            dice=[3, 4],
            charge_targets=["E"],
        ),
    )
    assert v.legal, rule_failures(v)
    assert v.models["A1"]["engaged_with"] == ["E"] and v.move["max_distance"] == 7


def test_a_charge_that_ends_engaged_with_a_unit_it_did_not_target_is_illegal():
    other = unit("F", "blue", [model("F1", 18 - 2 * R32, 13.5)])
    s = charge_scene([other])
    contact = 18 - 2 * R32
    # A2 ends 2 - 1.26 = 0.74" from F1: engaged with F, not a target
    v = adjudicate(
        s,
        move(
            "A",
            "charge",
            {"A1": (contact, 10), "A2": (contact - 2 * R32 - 0.2, 11.5)},
            dice=[4, 4],
            charge_targets=["E"],
        ),
    )
    assert ("11.04", "after-moving") in rule_failures(v)


def test_a_charging_model_that_could_reach_within_one_inch_must():
    s = charge_scene()
    contact = 18 - 2 * R32
    # A2 stops 2.5" short although 7" would reach contact (6.74")
    v = adjudicate(
        s,
        move(
            "A",
            "charge",
            {"A1": (contact, 10), "A2": (contact - 2.5, 11.5)},
            dice=[3, 4],
            charge_targets=["E"],
        ),
    )
    assert ("11.04", "while-moving") in rule_failures(v)
    assert any(f.subject == "A2" and 'within 1"' in f.text for f in v.failures)


def test_a_charge_target_beyond_twelve_inches_is_refused_before_moving():
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("E", "blue", [model("E1", 18, 10)]),
            unit("G", "blue", [model("G1", 40, 10)]),
        ]
    )
    v = adjudicate(
        s, move("A", "charge", {"A1": (18 - 2 * R32, 10)}, dice=[6, 6], charge_targets=["E", "G"])
    )
    assert ("11.02", "before-moving") in rule_failures(v)


def test_a_unit_that_advanced_cannot_charge():
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)], state={"advanced_this_turn": True}),
            unit("E", "blue", [model("E1", 18, 10)]),
        ]
    )
    v = adjudicate(
        s, move("A", "charge", {"A1": (18 - 2 * R32, 10)}, dice=[6, 6], charge_targets=["E"])
    )
    assert rule_failures(v) == [("11.04", "eligible-if")]


def test_the_engine_suggests_a_legal_charge_when_none_is_given():
    s = charge_scene()
    v = adjudicate(s, move("A", "charge", dice=[4, 4], charge_targets=["E"]))
    assert v.legal, rule_failures(v)
    assert set(v.models["A1"]["engaged_with"]) == {"E"}


def test_a_suggested_server_rolled_charge_keeps_its_dice():
    s = charge_scene()
    mv = suggest(s, move("A", "charge", charge_targets=["E"]))
    assert mv.seed is not None and mv.end is not None
    first = adjudicate(s, mv)
    assert adjudicate(s, mv).move["dice"] == first.move["dice"]


# -- take to the skies (21.03) ------------------------------------------------------------------
def riptide_scene():
    """RULES.md 3 example 2: a Riptide (FLY) advances with a maximum of 16" (M 12 + a 4), takes to
    the skies for 14", and goes straight over an enemy vehicle and a solid ruin."""
    return situation(
        [
            unit("R", "red", [model("R1", 10, 22, base=80)], keywords=("MONSTER", "FLY"), move=12),
            unit(
                "V",
                "blue",
                [model("V1", 16, 22, base={"oval": [150, 95]}, facing=90)],
                keywords=("VEHICLE",),
            ),
            unit("W", "blue", [model("W1", 30, 22, base=60)], keywords=("VEHICLE",)),
        ],
        [terrain("ruin", rect(19, 17, 21, 27), height=6, solid=True, kind="building")],
    )


def test_riptide_example_takes_to_the_skies_for_fourteen_inches_over_vehicles_and_terrain():
    s = riptide_scene()
    end = {"R1": (24, 22)}  # 14" due east, straight through V1 and the ruin
    v = adjudicate(s, move("R", "advance", end, dice=[4], take_to_the_skies=True))
    assert v.legal, rule_failures(v)
    assert v.move["max_distance"] == 14 and v.move["max_distance_before_skies"] == 16
    assert v.models["R1"]["distance_moved"] == 14.0
    v = adjudicate(s, move("R", "advance", {"R1": (24.01, 22)}, dice=[4], take_to_the_skies=True))
    assert rule_failures(v) == [("09.06", "while-moving")]
    v = adjudicate(s, move("R", "advance", end, dice=[4], paths={"R1": [(24, 22)]}))
    assert not v.legal  # on the ground the same line crosses the vehicle and the ruin


def test_taking_to_the_skies_declared_after_the_roll_is_refused():
    s = riptide_scene()
    v = adjudicate(
        s,
        move(
            "R",
            "advance",
            {"R1": (24, 22)},
            dice=[4],
            take_to_the_skies=True,
            declared_after_roll=True,
        ),
    )
    assert rule_failures(v) == [("21.03", "before-moving")]
    assert "before the advance roll" in v.failures[0].text


def test_hover_keeps_the_full_distance_and_a_unit_without_fly_cannot_take_to_the_skies():
    s = situation(
        [
            unit(
                "H",
                "red",
                [model("H1", 10, 10, base=60)],
                keywords=("VEHICLE", "FLY", "HOVER"),
                move=10,
            ),
            unit("I", "red", [model("I1", 10, 30)]),
        ]
    )
    v = adjudicate(s, move("H", "normal", {"H1": (20, 10)}, take_to_the_skies=True))
    assert v.legal and v.move["max_distance"] == 10
    v = adjudicate(s, move("I", "normal", {"I1": (13, 30)}, take_to_the_skies=True))
    assert rule_failures(v) == [("21.03", "before-moving")]


def test_flying_ignores_vertical_distance_but_the_unit_still_ends_where_it_may():
    s = situation(
        [unit("F", "red", [model("F1", 10, 10)], keywords=("INFANTRY", "FLY"), move=8)],
        [terrain("ruin", rect(14, 5, 20, 15), height=5)],
    )
    # onto a 5" floor 6" away: 6 of 6" in the skies (8 - 2), no vertical cost
    v = adjudicate(
        s, move("F", "normal", {"F1": {"x": 16, "y": 10, "z": 5}}, take_to_the_skies=True)
    )
    assert v.legal and v.models["F1"]["distance_moved"] == 6.0
    v = adjudicate(s, move("F", "normal", {"F1": {"x": 16, "y": 10, "z": 5}}))
    assert not v.legal  # on the ground: 6 + 5 climbed = 11" of 8"


def test_move_options_lists_eligibility_per_move_type():
    s = charge_scene()
    options = move_options(s, "A")
    assert all(f.passed for f in options["normal"])
    assert not all(f.passed for f in options["fall-back"])
    assert math.isfinite(len(options["charge"]))


@settings(max_examples=30, deadline=None)
@given(
    st.floats(8, 40),
    st.floats(8, 30),
    st.lists(st.floats(0.7, 1.3), min_size=0, max_size=3),
    st.floats(0, 2 * math.pi),
    st.floats(0.5, 6),
    st.floats(0.5, 1.0),
)
def test_a_legal_move_stays_legal_when_each_model_moves_a_little_less_far_in_open_ground(
    x0, y0, gaps, angle, length, fraction
):
    xs = [x0]
    for g in gaps:  # a line of models with 0.7-1.3" gaps
        xs.append(xs[-1] + 2 * R32 + g)
    s = situation([unit("A", "red", [model(f"A{i}", x, y0) for i, x in enumerate(xs)])])
    dx, dy = length * math.cos(angle), length * math.sin(angle)
    full = adjudicate(
        s, move("A", "normal", {f"A{i}": (x + dx, y0 + dy) for i, x in enumerate(xs)})
    )
    assume(full.legal)
    # every model stops short at the same fraction of its straight path
    shorter = {f"A{i}": (x + dx * fraction, y0 + dy * fraction) for i, x in enumerate(xs)}
    v = adjudicate(s, move("A", "normal", shorter))
    assert v.legal, rule_failures(v)


def test_a_charge_needs_an_enemy_within_exactly_twelve_inches():
    # centres 12 + 2r apart: 12.00" edge to edge passes; 0.01" more fails
    for gap, ok in ((12.0, True), (12.01, False)):
        s = situation(
            [
                unit("A", "red", [model("A1", 10, 10)]),
                unit("E", "blue", [model("E1", 10 + gap + 2 * R32, 10)]),
            ]
        )
        v = adjudicate(
            s, move("A", "charge", {"A1": (10 + gap, 10)}, dice=[6, 6], charge_targets=["E"])
        )
        assert (("11.04", "eligible-if") not in rule_failures(v)) is ok
        assert v.legal is ok  # 12" roll: exactly into base contact


def test_taking_to_the_skies_never_leaves_a_negative_maximum():
    s = situation([unit("F", "red", [model("F1", 10, 10)], keywords=("INFANTRY", "FLY"), move=1)])
    v = adjudicate(s, move("F", "normal", {"F1": (10.5, 10)}, take_to_the_skies=True))
    assert v.move["max_distance"] == 0 and rule_failures(v) == [("09.05", "while-moving")]


def test_coherency_span_of_exactly_nine_inches_holds_and_9_01_breaks():
    # five models in a line with equal gaps g: first to last edge = 4g + 3 diameters (3 x 1.26");
    # span 9" needs g = (9 - 3.78) / 4 = 1.305" (all links within 2"); 9.01" needs g = 1.3075"
    for span, ok in ((9.0, True), (9.01, False)):
        g = (span - 3 * 2 * R32) / 4
        xs = [10 + i * (g + 2 * R32) for i in range(5)]
        s = situation([unit("A", "red", [model(f"A{i}", x, 20) for i, x in enumerate(xs)])])
        v = adjudicate(
            s, move("A", "normal", {"A2": (xs[2], 20)})
        )  # nobody moves: the end state is judged
        assert v.legal is ok, rule_failures(v)


def test_a_charge_suggestion_walks_round_terrain_and_engages_every_target():
    s = situation(
        [
            unit("A", "red", [model(f"A{i}", 10, 8 + 1.4 * i) for i in range(5)]),
            unit("E", "blue", [model("E1", 20, 10), model("E2", 20, 12)]),
            unit("G", "blue", [model("G1", 20, 30)]),
        ],
        [terrain("wall", rect(14, 9, 15, 14), solid=True, kind="building")],
    )
    v = adjudicate(s, move("A", "charge", dice=[5, 5], charge_targets=["E"]))
    assert v.legal, [f.text for f in v.failures]
    assert all(m["engaged_with"] == ["E"] for m in v.models.values() if m["distance_moved"] > 0)


def test_the_riptide_example_files_give_the_verdicts_the_command_line_prints():
    """tests/rules/wh40k/examples/: the documents an end-to-end command-line test can use."""
    import json
    import pathlib

    from rules import Move, Situation

    here = pathlib.Path(__file__).parent / "examples"
    s = Situation.from_document(json.loads((here / "riptide.scenario.json").read_text()))
    legal = adjudicate(s, Move.from_document(json.loads((here / "riptide.move.json").read_text())))
    assert legal.legal and legal.as_dict()["move"]["max_distance"] == 14
    late_doc = json.loads((here / "riptide-declared-after-roll.move.json").read_text())
    late = adjudicate(s, Move.from_document(late_doc))
    assert not late.legal and [f.rule for f in late.failures] == ["21.03"]


def test_the_overlay_region_of_a_model_stops_at_solid_terrain_but_not_in_the_skies():
    from shapely.geometry import Point

    from rules.wh40k.moving import reachable_region

    s = riptide_scene()
    ground = reachable_region(s, "R1", 14, "advance")
    skies = reachable_region(
        s, "R1", 14, mode_for(s.unit("R"), "advance", {"take_to_the_skies": True})
    )
    behind_ruin = Point(23, 22)  # 13" due east, past the vehicle and the ruin
    assert skies.contains(behind_ruin) and not ground.contains(behind_ruin)


def test_ten_models_charging_one_model_crowd_round_it_and_those_left_out_may_stop_short():
    s = situation(
        [
            unit(
                "A",
                "red",
                [model(f"A{i}", 8 + 1.4 * (i % 5), 10 + 1.4 * (i // 5)) for i in range(10)],
            ),
            unit("E", "blue", [model("E1", 18, 10.7)]),
        ]
    )
    v = adjudicate(s, move("A", "charge", dice=[6, 6], charge_targets=["E"]))
    assert v.legal, [f.text for f in v.failures]
    # six 32 mm bases fit round a seventh in base contact (a hexagon: centres 2r apart all
    # round); the other four stand in a second ring, still within 1" (the 0.99" ring)
    gaps = [
        math.hypot(m["end"]["x"] - 18, m["end"]["y"] - 10.7) - 2 * R32 for m in v.models.values()
    ]
    assert sum(g < 1e-3 for g in gaps) == 6
    assert all(g <= 1 + 1e-6 for g in gaps)


def test_a_charging_model_that_cannot_get_within_one_inch_may_stop_short_but_must_engage():
    # A1 (10, 10) is 4.5" from E1 (edge to edge; E1's centre at 10 + 1.26 + 4.5 = 15.76), A2 is
    # 2" behind it at (8, 10). Roll 5 (2 + 3): E is within the roll (11.02). A1 reaches base
    # contact at 14.5 (4.5"); A2 needs 7.76 - 2.26 = 5.5" to get within 1" of E1, more than 5",
    # so it may stop at 13 (5"), 1.5" away: engaged, not within 1".
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10), model("A2", 8, 10)]),
            unit("E", "blue", [model("E1", 14.5 + 2 * R32, 10)]),
        ]
    )
    contact = 14.5
    v = adjudicate(
        s,
        move(
            "A", "charge", {"A1": (contact, 10), "A2": (13, 10)}, dice=[2, 3], charge_targets=["E"]
        ),
    )
    assert v.legal, rule_failures(v)
    assert any(f.subject == "A2" and 'could not get within 1"' in f.text for f in v.findings)
    # stopping at 12.49 (4.49" moved) leaves A2 2.01" away, unengaged, although 5" would engage
    v = adjudicate(
        s,
        move(
            "A",
            "charge",
            {"A1": (contact, 10), "A2": (12.49, 10)},
            dice=[2, 3],
            charge_targets=["E"],
        ),
    )
    assert rule_failures(v) == [("11.04", "while-moving")]


def test_reach_gives_the_overlay_for_the_move_and_needs_the_roll_for_an_advance():
    from shapely.geometry import Point

    from rules.wh40k.move_types import reach

    s = riptide_scene()
    ((skies, kind),) = reach(s, move("R", "advance", dice=[4], take_to_the_skies=True))
    assert kind == "skies" and skies.contains(Point(23, 22))  # 13" east, within 14"
    assert not skies.contains(Point(10, 22 + 14.2))  # beyond 14"
    ((ground, kind),) = reach(s, move("R", "normal"))
    assert kind == "ground" and not ground.contains(Point(23, 22))  # walled off by V1 and the ruin
    with pytest.raises(InvalidInput):
        reach(s, move("R", "advance"))


def test_a_suggested_charge_on_two_targets_engages_both():
    s = situation(
        [
            unit("A", "red", [model(f"A{i}", 10, 8 + 1.4 * i) for i in range(5)]),
            unit("E", "blue", [model("E1", 14, 10.5)]),
            unit("F", "blue", [model("F1", 17, 12.5)]),  # further: nobody would pick it unasked
        ]
    )
    v = adjudicate(s, move("A", "charge", dice=[4, 4], charge_targets=["E", "F"]))
    assert v.legal, [f.text for f in v.failures]
    engaged = {u for m in v.models.values() for u in m["engaged_with"]}
    assert engaged == {"E", "F"}


def test_a_charging_model_only_has_to_end_closer_to_one_of_its_targets():
    # 11.04: closer to *a* target. Roll 2 (1 + 1): nobody can reach 1" or engagement.
    # A2 (10, 12) starts 9 - 1.26 = 7.74" from F1 (10, 21) and hypot(10, 2) - 1.26 = 8.94" from
    # E1 (20, 10). It steps 1" towards E1, to (10.98, 11.80): 7.94" from E1 (closer to E) and
    # hypot(0.98, 9.2) - 1.26 = 7.99" from F1 (farther from F). That meets "closer to a target".
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10), model("A2", 10, 12)]),
            unit("E", "blue", [model("E1", 20, 10)]),
            unit("F", "blue", [model("F1", 10, 21)]),
        ]
    )
    v = adjudicate(
        s,
        move(
            "A",
            "charge",
            {"A1": (11, 10), "A2": (10.98, 11.80)},
            dice=[1, 1],
            charge_targets=["E", "F"],
        ),
    )
    assert not [f for f in v.failures if f.stage == "while-moving"], rule_failures(v)
    closer = [f for f in v.findings if f.subject == "A2" and "closer" in f.text]
    assert closer and closer[0].passed and "E" in closer[0].text
    # Stepping back to (9, 11.9) is farther from both: hypot(11, 1.9) - 1.26 = 9.90" > 8.94"
    # from E1 and hypot(1, 9.1) - 1.26 = 7.90" > 7.74" from F1, so A2 breaks the rule.
    v = adjudicate(
        s,
        move(
            "A",
            "charge",
            {"A1": (11, 10), "A2": (9, 11.9)},
            dice=[1, 1],
            charge_targets=["E", "F"],
        ),
    )
    assert any(f.subject == "A2" and "closer" in f.text for f in v.failures)


def test_the_charge_eligibility_finding_reads_fallen_back():
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("E", "blue", [model("E1", 16, 10)]),
        ]
    )
    v = adjudicate(
        s, move("A", "charge", {"A1": (16 - 2 * R32, 10)}, dice=[6, 6], charge_targets=["E"])
    )
    assert any(f.text == "A has not fallen back this turn." for f in v.findings)


def test_a_charger_coming_down_from_a_ruin_floor_pays_the_descent_when_judging_if_it_can():
    # A1 stands on a 3" ruin floor at (10, 10); E1 is on the ground at (16, 10), 6 - 1.26 =
    # 4.74" away horizontally. Roll 6. Within 1" of E1 on the ground needs 3.74" across plus 3"
    # down = 6.74" > 6, so it cannot; engaging needs 2.74 + 3 = 5.74" <= 6. Ending engaged at
    # (12.75, 10), 1.99" away (2.75 + 3 = 5.75" moved), meets both obligations.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10, z=3)]),
            unit("E", "blue", [model("E1", 16, 10)]),
        ],
        [terrain("R", rect(8, 8, 12, 12), height=3)],
    )
    v = adjudicate(
        s,
        move(
            "A",
            "charge",
            {"A1": {"x": 12.75, "y": 10, "z": 0}},
            dice=[3, 3],
            charge_targets=["E"],
        ),
    )
    assert v.legal, rule_failures(v)


def test_a_unit_that_surged_this_phase_cannot_move_again_until_the_next_phase():
    # 21.02 after moving: no further move this phase. The scenario is round 2, red's turn,
    # movement phase; a surge recorded then refuses the normal move, one from the shooting
    # phase does not.
    def with_surge(phase):
        used = [{"ability": "s", "round": 2, "turn": "red", "phase": phase}]
        return situation([unit("A", "red", [model("A1", 10, 10)], state={"surges_used": used})])

    v = adjudicate(with_surge("movement"), move("A", "normal", {"A1": (12, 10)}))
    assert ("21.02", "eligible-if") in rule_failures(v)
    v = adjudicate(with_surge("shooting"), move("A", "normal", {"A1": (12, 10)}))
    assert v.legal, rule_failures(v)


def test_a_unit_that_cannot_fly_is_refused_the_skies_and_judged_on_foot():
    # No FLY: the declaration is refused, and the rest of the move is judged as the ground move
    # it has to be: M 6" (not 6 - 2 = 4"), so a 5" move fails only the declaration.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("E", "blue", [model("E1", 13, 20)]),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (15, 10)}, take_to_the_skies=True))
    assert v.move["max_distance"] == 6
    assert rule_failures(v) == [("21.03", "before-moving")]


def test_coherency_and_engagement_findings_carry_their_measurements():
    # RULES.md 0: a finding gives the measured value and its limit. A1 and A2 (32 mm) end 1.5"
    # apart centre to centre: 1.5 - 1.26 = 0.24" between bases, against 2"; the enemy E1 stands
    # 4" from A2's centre: 4 - 1.26 = 2.74", against engagement range (2").
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10), model("A2", 11.5, 10)]),
            unit("E", "blue", [model("E1", 19.5, 10)]),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (14, 10), "A2": (15.5, 10)}))
    assert v.legal, rule_failures(v)
    coherent = next(f for f in v.findings if f.rule == "03.03")
    assert coherent.measured == pytest.approx(1.5 - 2 * R32) and coherent.limit == 2
    unengaged = next(f for f in v.findings if "ends unengaged" in f.text)
    assert unengaged.measured == pytest.approx(4 - 2 * R32) and unengaged.limit == 2
