"""Command phase for flyers (RULES.md 2.3, 2.5): orders, initiative, order moves and charges.

Geometry: unit F is three 4 x 2 cm stands facing +x at x = 10, y = 50, 54, 58: its front edge is
x = 11. A rect character or enemy stand centred at x = c spans c - 1 .. c + 1, so the gap from F
is c - 12 cm.
"""

import pytest

from rules import InvalidInput

from .builders import (
    character,
    enemy,
    failed_rules,
    flyers,
    judge,
    line_of_flyers,
    scenario,
    stand,
    terrain,
)

F_END = (("F1", 50), ("F2", 54), ("F3", 58))


def to_x(x):
    return {m: {"x": x, "y": y} for m, y in F_END}


def order(end_x, dice=(3, 3), move_type="order-move", **declarations):
    return {
        "unit": "F",
        "type": move_type,
        "dice": list(dice),
        "end": to_x(end_x),
        "declarations": {"ordered_by": "C", **declarations},
    }


@pytest.mark.parametrize(
    "cx, legal",
    [
        (32.0, True),  # gap (32 - 1) - 11 = 20 cm: within 20, the flyers may be ordered
        (32.1, False),  # gap 20.1 cm: too far for a flyer
    ],
)
def test_a_flyer_takes_orders_only_from_a_character_within_20_cm(cx, legal):
    doc = scenario([line_of_flyers("F", 10, 54), character("C", cx, 54, rect=True)])
    verdict = judge(doc, order(60))
    assert verdict.legal is legal, failed_rules(verdict)
    finding = next(
        f for f in verdict.findings if f.rule == "flying-units/orders" and f.measured is not None
    )
    assert finding.measured == pytest.approx(cx - 12) and finding.limit == 20


def test_the_order_roll_must_not_exceed_command_with_its_penalties():
    # Command 8, an enemy within 20 cm (-1), 1 earlier order (-1), 1 stand lost (-1): need 5 or less
    doc = scenario(
        [
            line_of_flyers(
                "F", 10, 54, state={"orders_this_phase": 1, "ordered_by": "C", "stands_lost": 1}
            ),
            character("C", 20, 54, command=8, rect=True),
            enemy("E", 10, 75),
        ]
    )
    passed = judge(doc, order(40, dice=(2, 3)))
    failed = judge(doc, order(40, dice=(3, 3)))
    assert passed.legal, failed_rules(passed)
    roll = next(
        f for f in failed.findings if f.rule == "command/orders" and f.stage == "before-moving"
    )
    # a failed roll's finding is a passed record with no limit (2.9: the failure is reported
    # by the findings that follow); the 5 needed is in its text
    assert not failed.legal and (roll.measured, roll.limit) == (6, None)
    assert roll.text.endswith(": 5. The order fails.")
    assert passed.after.unit("F").state["orders_this_phase"] == 2


def test_a_failed_order_roll_is_recorded_without_a_limit_it_exceeds():
    """RULES.md 2.9: a failed first order still lets the unit move half pace (10 cm for flyers),
    so a failed roll does not refuse the move: the finding after the roll says what the unit may
    still do, and the event `order-failed` reports the failure. The roll's own finding records
    the roll, passed: so it must not carry a limit its measure exceeds. Passed, it gives the 2D6
    against Command after penalties; failed, the 2D6 only (the number needed is in its text)."""
    # Command 8, an enemy within 20 cm (-1): 7 or less passes
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 20, 70, command=8, rect=True)]
        + [enemy("E", 10, 75)]
    )

    def roll_of(verdict):
        return next(
            f
            for f in verdict.findings
            if f.rule == "command/orders" and f.measured is not None and f.stage == "before-moving"
        )

    failed = judge(doc, order(16, dice=(4, 4)))  # 6 cm: within a failed first order's 10 cm
    assert failed.legal, failed_rules(failed)
    roll = roll_of(failed)
    assert (roll.passed, roll.measured, roll.limit) == (True, 8, None)
    assert roll.text.endswith(": 7. The order fails.")
    assert {"event": "order-failed", "unit": "F", "roll": 8, "by": "C"} in failed.events
    half = [f for f in failed.findings if f.text.startswith("A failed first order")]
    assert [(f.passed, f.limit) for f in half] == [(True, 10)]
    passed = judge(doc, order(16, dice=(3, 4)))
    assert passed.legal, failed_rules(passed)
    roll = roll_of(passed)
    assert (roll.passed, roll.measured, roll.limit) == (True, 7, 7)
    assert roll.text.endswith(": 7. The order is passed.")


def test_a_confused_flyer_cannot_be_ordered_and_no_dice_are_used():
    doc = scenario(
        [line_of_flyers("F", 10, 54, state={"confused": True}), character("C", 20, 54, rect=True)]
    )
    verdict = judge(doc, order(40))
    assert not verdict.legal
    assert any("confused" in t for _, _, t in failed_rules(verdict))


def test_all_of_a_units_orders_come_from_one_character():
    doc = scenario(
        [
            line_of_flyers("F", 10, 54, state={"orders_this_phase": 1, "ordered_by": "D"}),
            character("C", 20, 54, rect=True),
            character("D", 20, 70, rect=True),
        ]
    )
    assert not judge(doc, order(40, dice=(1, 1))).legal


def test_the_character_needs_a_command_value():
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 20, 54, rect=True, command=None)])
    with pytest.raises(InvalidInput) as err:
        judge(doc, order(40))
    assert err.value.field == "units[1].state.command"


@pytest.mark.parametrize("end_x, legal", [(110.0, True), (110.1, False)])
def test_an_order_move_reaches_100_cm(end_x, legal):
    # from x = 10 to 110: every corner moves 100 cm
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True)])
    verdict = judge(doc, order(end_x))
    assert verdict.legal is legal, failed_rules(verdict)
    assert verdict.move["max_distance"] == 100


def test_an_about_face_on_the_spot_costs_the_stands_diagonal():
    # a 4 x 2 cm stand turned 180 degrees in place: each corner moves sqrt(4^2 + 2^2) = 4.47 cm
    doc = scenario([flyers("F", [stand("F1", 50, 50)]), character("C", 50, 60, rect=True)])
    verdict = judge(
        doc,
        {
            "unit": "F",
            "type": "order-move",
            "dice": [1, 1],
            "declarations": {"ordered_by": "C"},
            "end": {"F1": {"x": 50, "y": 50, "facing": 180}},
        },
    )
    assert verdict.models["F1"]["distance_moved"] == pytest.approx(20**0.5, abs=1e-4)


@pytest.mark.parametrize(
    "kind, legal",
    [
        ("woods", False),
        ("scrub", False),
        ("impassable", False),
        ("building", False),
        ("mountain", False),
        ("hill", True),
        ("village", True),
        ("river", True),
        ("ford", True),
        ("low-obstacle", True),
    ],
)
def test_flyers_may_not_end_over_woods_or_terrain_infantry_cannot_enter(kind, legal):
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True)],
        [terrain("t", kind, 55, 40, 70, 70)],
    )
    verdict = judge(doc, order(60))
    assert verdict.legal is legal, failed_rules(verdict)


def test_an_unknown_terrain_type_is_invalid_input_naming_the_field():
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True)],
        [terrain("t", "lava", 55, 40, 70, 70)],
    )
    with pytest.raises(InvalidInput) as err:
        judge(doc, order(60))
    assert err.value.field == "terrain[0].type"


def test_flyers_fly_over_anything_but_may_not_end_on_friends_or_touching_enemies():
    units = [
        line_of_flyers("F", 10, 54),
        character("C", 20, 70, rect=True),
        flyers("G", [stand("G1", 60, 54)], keywords=("INFANTRY",)),
        enemy("E", 80, 54),
    ]
    doc = scenario(units, [terrain("cliff", "cliffs", 30, 40, 40, 70)])
    assert judge(doc, order(70)).legal  # over the cliff and G, 10 cm short of E
    assert not judge(doc, order(60)).legal  # on top of G1
    touching = judge(doc, order(78))  # front edge 79 touches E1 (79..81)
    assert any("only a charge" in t for _, _, t in failed_rules(touching))


def test_stands_of_a_unit_must_stay_in_touch():
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True)])
    end = {"F1": {"x": 60, "y": 45}, "F2": {"x": 60, "y": 54}, "F3": {"x": 60, "y": 58}}
    verdict = judge(doc, {**order(60), "end": end})
    assert [r for r, _, _ in failed_rules(verdict)] == ["units/formation"]


def test_an_order_charge_reaches_60_cm_and_must_end_touching_an_enemy():
    # enemy E1 at 72 spans 71..73; F ending at 70 has its front edge on 71: a 60 cm charge
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True), enemy("E", 72, 54)]
    )
    verdict = judge(doc, order(70, move_type="order-charge"))
    assert verdict.legal, failed_rules(verdict)
    assert verdict.move["max_distance"] == 60
    short = judge(doc, order(69, move_type="order-charge"))
    assert any("must end touching" in t for _, _, t in failed_rules(short))


def _irregular_flyers():
    """F with F2 stepped 1 cm back (x 8..10 against 9..11): fronts not level, irregular."""
    unit = line_of_flyers("F", 10, 54)
    unit["models"][1]["x"] = 9
    return unit


def _irregular_order_charge(x):
    move = order(x, move_type="order-charge")
    move["end"]["F2"]["x"] = x - 1
    return move


def test_a_charge_from_irregular_formation_reaches_only_10_cm():
    # F1 and F3 (fronts at 11) fly 10 cm to x = 20 and touch E1 (21..23): 10 cm, the limit.
    doc = scenario([_irregular_flyers(), character("C", 20, 70, rect=True), enemy("E", 22, 54)])
    verdict = judge(doc, _irregular_order_charge(20))
    assert verdict.legal and verdict.move["max_distance"] == 10, failed_rules(verdict)
    too_far = scenario([_irregular_flyers(), character("C", 20, 70, rect=True), enemy("E", 23, 54)])
    assert not judge(too_far, _irregular_order_charge(21)).legal


def test_the_stands_not_a_declaration_say_whether_a_charge_is_from_irregular_formation():
    # 2.5 ties the 10 cm cap to the formation the unit is in. F stands in a line: its charge may
    # go 60 cm, so 30 cm (x 10 to 40, front edge 41 on E1 at 41..43) is within the limit; a
    # declaration that it is irregular contradicts the stands and is refused as such, not
    # taken as a 10 cm cap.
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True), enemy("E", 42, 54)]
    )
    assert judge(doc, order(40, move_type="order-charge")).legal
    declared = judge(doc, order(40, move_type="order-charge", irregular=True))
    assert declared.move["max_distance"] == 60
    [(rule, subject, text)] = failed_rules(declared)
    assert (rule, subject) == ("flying-units/moving", "F")
    assert "irregular" in text and "line" in text
    # and the other way round: a unit whose stands are irregular cannot declare itself regular
    irregular = scenario(
        [_irregular_flyers(), character("C", 20, 70, rect=True), enemy("E", 22, 54)]
    )
    claimed = judge(
        irregular,
        {**_irregular_order_charge(20), "declarations": {"ordered_by": "C", "irregular": False}},
    )
    assert claimed.move["max_distance"] == 10
    [(rule, subject, text)] = failed_rules(claimed)
    assert (rule, subject) == ("flying-units/moving", "F") and "irregular" in text


def test_an_order_move_declared_irregular_for_a_line_is_refused_like_a_charge():
    # 2.9: an ordered move from irregular formation goes half pace (10 cm), so the formation
    # matters to an order move as to a charge, and the stands decide it. F stands in a line: a
    # declaration that it is irregular contradicts them and is refused with the charge's
    # finding, before the order roll; the move's limit stays the line's 100 cm.
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True)])
    assert judge(doc, order(40)).legal
    declared = judge(doc, order(40, irregular=True))
    assert declared.move["max_distance"] == 100
    [(rule, subject, text)] = failed_rules(declared)
    assert (rule, subject) == ("flying-units/moving", "F")
    assert "irregular" in text and "line" in text
    assert not any(f.rule == "command/orders" for f in declared.findings)  # no roll made
    # and an irregular unit declared regular
    irregular = scenario([_irregular_flyers(), character("C", 20, 70, rect=True)])
    claimed = judge(
        irregular, order(19, irregular=False) | {"end": _irregular_order_charge(19)["end"]}
    )
    [(rule, subject, text)] = failed_rules(claimed)
    assert (rule, subject) == ("flying-units/moving", "F") and "irregular" in text
    assert judge(irregular, order(19) | {"end": _irregular_order_charge(19)["end"]}).legal


def test_an_initiative_charge_in_line_is_not_capped_by_a_declared_irregular_formation():
    # E1 (x 25..27) is 14 cm from F's front (11): within initiative's 20 cm, beyond 10 cm.
    doc = scenario([line_of_flyers("F", 10, 54), enemy("E", 26, 54)])
    move = {"unit": "F", "type": "initiative-charge", "end": to_x(24)}
    assert judge(doc, move).legal
    declared = judge(doc, {**move, "declarations": {"irregular": True}})
    assert declared.move["max_distance"] == 60
    assert [r for r, _, _ in failed_rules(declared)] == ["flying-units/moving"]


def test_flyers_may_charge_fortified_units_which_still_count_as_fortified():
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 20, 70, rect=True),
            enemy("E", 72, 54, state={"fortified": True}),
        ]
    )
    verdict = judge(doc, order(70, move_type="order-charge"))
    assert verdict.legal
    assert any(
        f.rule == "flying-units/fortified" and "still counts as fortified" in f.text
        for f in verdict.findings
    )


def initiative(end_x, **declarations):
    return {
        "unit": "F",
        "type": "initiative-charge",
        "end": to_x(end_x),
        "declarations": declarations,
    }


@pytest.mark.parametrize("ex, legal", [(32.0, True), (32.1, False)])
def test_initiative_charges_the_closest_visible_enemy_within_20_cm(ex, legal):
    # enemy E1 at ex spans ex - 1 .. ex + 1: gap ex - 12 cm (20 passes, 20.1 fails)
    doc = scenario([line_of_flyers("F", 10, 54), enemy("E", ex, 54)])
    verdict = judge(doc, initiative(ex - 2))
    assert verdict.legal is legal, failed_rules(verdict)


def test_initiative_ignores_an_enemy_the_flyers_cannot_see():
    # H (x 24..26, y 42..46) is nearer, gap sqrt(13^2 + 2^2) = 13.15 cm, but a building (x 14..18,
    # y 20..56) stands between: the flattest line from F's front edge, (11, 60) to H's corner
    # (26, 46), is at y = 53.5 where it leaves the building (x = 18). E (x 24..26, y 64..68, gap
    # sqrt(13^2 + 4^2) = 13.6 cm) is in view.
    doc = scenario(
        [line_of_flyers("F", 10, 54), enemy("H", 25, 44), enemy("E", 25, 66)],
        [terrain("house", "building", 14, 20, 18, 56)],
    )
    verdict = judge(
        doc,
        {
            "unit": "F",
            "type": "initiative-charge",
            "end": {"F1": {"x": 23, "y": 62}, "F2": {"x": 23, "y": 66}, "F3": {"x": 23, "y": 70}},
        },
    )
    assert verdict.move["target"] == "E"
    assert verdict.legal, failed_rules(verdict)


def test_a_confused_flyer_does_not_use_initiative():
    doc = scenario([line_of_flyers("F", 10, 54, state={"confused": True}), enemy("E", 30, 54)])
    assert not judge(doc, initiative(28)).legal


def test_moves_of_ground_units_are_refused_not_passed():
    doc = scenario(
        [
            flyers("F", [stand("F1", 10, 54)], keywords=("CAVALRY",)),
            character("C", 20, 70, rect=True),
        ]
    )
    verdict = judge(
        doc,
        {
            "unit": "F",
            "type": "order-move",
            "dice": [1, 1],
            "declarations": {"ordered_by": "C"},
            "end": {"F1": {"x": 20, "y": 54}},
        },
    )
    assert not verdict.legal and verdict.failures[0].rule == "engine"


def test_move_options_list_what_a_flyer_may_do_now():
    from rules import Situation, move_options

    units = [line_of_flyers("F", 10, 54), character("C", 60, 54, rect=True), enemy("E", 40, 20)]
    doc = scenario(units)
    options = move_options(Situation.from_document(doc), "F")
    assert set(options) >= {"home-back", "order-move", "initiative-charge"}
    assert all(f.passed for f in options["home-back"])  # 47 cm from C: may home back
    assert not all(f.passed for f in options["order-move"])  # too far from C for orders
    assert not all(f.passed for f in options["initiative-charge"])  # E is beyond 20 cm


@pytest.mark.parametrize("cx, legal", [(32.0, True), (32.01, False)])
def test_a_round_character_is_measured_from_its_true_circle(cx, legal):
    # round 20 mm character: edge at cx - 1, so the gap is cx - 12 cm: 20 passes, 20.01 fails
    doc = scenario([line_of_flyers("F", 10, 54), character("C", cx, 54)])
    assert judge(doc, order(60)).legal is legal


def test_moves_of_another_phase_are_not_offered_in_the_command_phase():
    """Drive backs belong to the shooting phase, retreats and pursuits to the combat phase: in
    the command phase the move list says so instead of offering them."""
    from rules import Situation, move_options

    from .builders import character, line_of_flyers, scenario

    s = Situation.from_document(
        scenario([line_of_flyers("F", 10, 54), character("C", 50, 54)], phase="command")
    )
    options = move_options(s, "F")
    for move_type in ("drive-back", "retreat", "pursuit"):
        assert options[move_type] and not all(f.passed for f in options[move_type]), move_type
    assert all(f.passed for f in options["home-back"] or [])
