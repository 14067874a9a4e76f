"""RULES.md 2.9 "Leaving the table", and joined characters, which share their unit's fate.

Geometry (cm, table 180 x 120): unit F is three 4 x 2 cm stands facing +x at x = 10, y = 50, 54,
58, so it spans x 9..11, y 48..60. Moved to centres at x = 0 it spans x -1..1: part of every stand
is over the left edge (x = 0), so the whole unit leaves; where it left is x = 1 (x 0..2, touching
the edge). The enemy E at (12, 54) spans x 11..13, y 52..56, touching F's front.
A joined character at (10, 62) (a 4 x 2 cm Hero: x 9..11, y 60..64) touches F3 (y 56..60).
"""

import pytest

from .builders import character, enemy, failed_rules, judge, line_of_flyers, scenario

F_YS = (("F1", 50), ("F2", 54), ("F3", 58))


def to_x(x):
    return {m: {"x": x, "y": y} for m, y in F_YS}


def order_to(x):
    """An order from C, rolled 3 + 3, moving F's centres to x."""
    return {
        "unit": "F",
        "type": "order-move",
        "dice": [3, 3],
        "end": to_x(x),
        "declarations": {"ordered_by": "C"},
    }


def hero(x, y, joined="F"):
    return {
        "id": "H",
        "army": "red",
        "name": "H",
        "keywords": ["CHARACTER", "HERO"],
        "state": {"joined": joined},
        "models": [{"id": "H1", "base": {"rect": [40, 20]}, "x": x, "y": y}],
    }


def fall_back(end_x=0, dice=(4, 4, 4), roll=None):
    move = {"unit": "F", "type": "combat-fall-back", "dice": list(dice), "end": to_x(end_x)}
    if roll is not None:
        move["declarations"] = {"leave_table_roll": roll}
    return move


def table(*extra, lost=0):
    state = {"stands_lost": lost} if lost else {}
    return scenario(
        [line_of_flyers("F", 10, 54, state=state), enemy("E", 12, 54), *extra], phase="combat"
    )


def leave_event(verdict):
    return next(e for e in verdict.events if e["event"] == "leave-table-roll")


def after_x(verdict, model_id):
    for u in verdict.after.document["units"]:
        for m in u["models"]:
            if m["id"] == model_id:
                return m["x"]
    return None


def test_a_fall_back_over_the_edge_takes_the_whole_unit_off_and_owes_the_d6():
    # 3D6 = 12 cm; each stand moves 10 cm, to x -1..1: over the edge.
    verdict = judge(table(), fall_back())
    assert verdict.legal, failed_rules(verdict)
    assert leave_event(verdict) == {
        "event": "leave-table-roll",
        "unit": "F",
        "dice": "D6",
        "modifier": 0,
    }
    finding = next(f for f in verdict.findings if f.rule == "general/leaving-the-table")
    assert "Roll a D6" in finding.text and "0 or less" in finding.text
    assert after_x(verdict, "F1") == 1  # shown where it left, touching the edge


def test_a_fall_back_that_stays_on_the_table_owes_no_roll():
    verdict = judge(table(), fall_back(end_x=1))  # x 0..2: on the table, touching the edge
    assert verdict.legal, failed_rules(verdict)
    assert not [e for e in verdict.events if e["event"] == "leave-table-roll"]


def test_a_roll_of_1_with_a_stand_lost_destroys_the_unit_and_its_joined_character():
    # 1 - 1 = 0: destroyed; the Hero who joined F dies with it.
    verdict = judge(table(hero(10, 62), lost=1), fall_back(roll=1))
    assert verdict.legal, failed_rules(verdict)
    event = leave_event(verdict)
    assert (event["roll"], event["modifier"], event["outcome"]) == (1, -1, "destroyed")
    assert event["characters"] == ["H"]
    assert {"event": "destroyed", "unit": "F"} in verdict.events
    assert {"event": "slain", "unit": "H", "general": False} in verdict.events
    assert after_x(verdict, "F1") is None and after_x(verdict, "H1") is None


@pytest.mark.parametrize(
    "roll, lost, outcome",
    [
        (2, 0, "off-table"),
        (3, 0, "returns-may-not-move"),
        (5, 1, "returns-may-not-move"),
        (5, 0, "returns"),
        (6, 1, "returns"),
    ],
)
def test_the_leave_the_table_d6_bands(roll, lost, outcome):
    verdict = judge(table(lost=lost), fall_back(roll=roll))
    assert verdict.legal, failed_rules(verdict)
    assert leave_event(verdict)["outcome"] == outcome
    assert after_x(verdict, "F1") == 1


def test_a_joined_general_who_does_not_return_at_once_ends_the_battle():
    general = character("G", 10, 61, state={"joined": "F"})  # round, 2 cm across: y 60..62
    verdict = judge(table(general), fall_back(roll=2))
    event = leave_event(verdict)
    assert event["outcome"] == "off-table" and event["battle_over"] is True
    assert after_x(verdict, "G1") == 1  # it went with its unit


def test_a_returning_unit_brings_its_joined_character_back_beside_it():
    verdict = judge(table(hero(10, 62)), fall_back(roll=6))
    assert verdict.legal, failed_rules(verdict)
    assert "battle_over" not in leave_event(verdict)
    assert after_x(verdict, "H1") == 1


def _edge_enemy_table():
    """F (in combat, its enemy destroyed) faces -x at x = 10 (x 9..11); the enemy E at (2, 54)
    faces it (x 1..3, y 52..56), 6 cm ahead. To touch E's far side F must stand at x = 0
    (x -1..1): over the left edge."""
    return scenario(
        [
            line_of_flyers("F", 10, 54, state={"in_combat": True}, facing=180),
            enemy("E", 2, 54, facing=0),
        ],
        phase="combat",
    )


def _advance_to(x, **declarations):
    return {
        "unit": "F",
        "type": "combat-advance",
        "end": {m: {"x": x, "y": y, "facing": 180} for m, y in F_YS},
        "declarations": declarations,
    }


def test_an_advance_into_its_enemy_that_crosses_the_edge_owes_the_d6_too():
    # 2.9: an advance is one of the moves that may take a unit over the edge; it is still an
    # advance, into contact with the closest enemy it can see and reach. F flies 10 cm.
    verdict = judge(_edge_enemy_table(), _advance_to(0))
    assert verdict.legal, failed_rules(verdict)
    assert leave_event(verdict)["unit"] == "F"
    assert any("advances into E" in f.text for f in verdict.findings)


@pytest.mark.parametrize("enemy_x", [20, 40])
def test_an_advance_over_the_edge_that_touches_no_enemy_is_refused(enemy_x):
    """Umpire's review (K02, K02b): F (x 7..9, in combat, nothing touching it) hops 7.5 cm back
    to x -0.5..1.5, over the edge, touching nobody. E at x = 20 (x 19..21) is 10 cm ahead, seen
    and reachable; at x = 40 it is 30 cm away, out of reach. Either way this is no advance (2.9:
    into the closest enemy it can see and reach), so it is refused, not sent off the table."""
    doc = scenario(
        [line_of_flyers("F", 8, 54, state={"in_combat": True}), enemy("E", enemy_x, 54)],
        phase="combat",
    )
    verdict = judge(doc, {"unit": "F", "type": "combat-advance", "end": to_x(0.5)})
    assert not verdict.legal
    assert any("ends touching none" in text for _, _, text in failed_rules(verdict))
    assert not [e for e in verdict.events if e["event"] == "leave-table-roll"]


def test_a_fall_back_forward_over_its_enemy_and_off_the_far_edge_is_refused():
    """Umpire's review (K09): F (x 169..171) is touched at its front by E (x 171..173); with
    3D6 = 18 it flies forward over E to x 178.5..180.5, past the right edge (x = 180). No stand
    ends behind the line of contact (x = 171), so it is no fall back (2.9): refused."""
    doc = scenario([line_of_flyers("F", 170, 54), enemy("E", 172, 54)], phase="combat")
    verdict = judge(doc, fall_back(end_x=179.5, dice=(6, 6, 6)))
    assert not verdict.legal
    assert any("line of contact" in text for _, _, text in failed_rules(verdict))
    assert not [e for e in verdict.events if e["event"] == "leave-table-roll"]


def test_a_leave_the_table_roll_must_be_a_d6():
    from rules import InvalidInput

    with pytest.raises(InvalidInput) as err:
        judge(table(), fall_back(roll=7))
    assert err.value.field == "declarations.leave_table_roll"


def test_house_an_order_may_not_take_a_stand_off_the_table():
    # C (x 19..21, y 68..72) is 11.3 cm from F: the order 3 + 3 passes, but the end is off.
    doc = scenario([line_of_flyers("F", 10, 54), character("C", 20, 70, rect=True)])
    verdict = judge(doc, order_to(0))
    assert not verdict.legal
    assert any("[house]" in t and "off the table" in t for _, _, t in failed_rules(verdict))


# -- joined characters move with their unit in the Shooting and Combat phases ---------------------

# Drive back: F at x = 100 (x 99..101), the shooter S at (120, 54): 3 + 4 = 7 cm straight back
# (-x), so F ends at x = 93. Its joined Hero at (100, 62) ends at (93, 62).


def _drive_table(*extra):
    return scenario([line_of_flyers("F", 100, 54), enemy("S", 120, 54), *extra], phase="shooting")


def _drive(dice):
    return {
        "unit": "F",
        "type": "drive-back",
        "dice": list(dice),
        "declarations": {"shooter": "S1", "hits": len(dice)},
    }


def test_a_joined_character_is_driven_back_with_its_unit():
    verdict = judge(_drive_table(hero(100, 62)), _drive([3, 4]))
    assert verdict.legal, failed_rules(verdict)
    assert after_x(verdict, "F1") == 93 and after_x(verdict, "H1") == 93
    assert any(f.subject == "H1" and "[house]" in f.text for f in verdict.findings)
    assert not [e for e in verdict.events if e["event"] == "character-moved-aside"]


def test_a_joined_character_dies_with_a_unit_driven_back_beyond_its_pace():
    # 17 hits of 6: 102 cm, more than the flyers' 100 cm pace: destroyed, and the Hero with it
    verdict = judge(_drive_table(hero(100, 62)), _drive([6] * 17))
    assert verdict.legal, failed_rules(verdict)
    assert {"event": "slain", "unit": "H", "general": False} in verdict.events
    assert after_x(verdict, "H1") is None


def test_a_joined_character_stays_put_when_its_unit_moves_by_order():
    # Command phase: F flies 20 cm by order (to x = 30); H, joined, does not go with it. C
    # (round, x 19..21, y 69..71) is 12 cm from F.
    doc = scenario([line_of_flyers("F", 10, 54), hero(10, 62), character("C", 20, 70)])
    verdict = judge(doc, order_to(30))
    assert verdict.legal, failed_rules(verdict)
    assert after_x(verdict, "F1") == 30 and after_x(verdict, "H1") == 10


# Retreat (combat.py geometry): F at x = 50 (x 49..51), the enemy E1 at (52, 54) touching F2's
# front; a combat lost by 5 moves F 5 cm straight back (-x), to x = 45. Its joined Hero at
# (50, 62) goes with it, to (45, 62).


def _fought(*extra, x=50):
    return scenario([line_of_flyers("F", x, 54), enemy("E", x + 2, 54), *extra], phase="combat")


def test_a_joined_character_retreats_with_its_unit():
    verdict = judge(
        _fought(hero(50, 62)), {"unit": "F", "type": "retreat", "declarations": {"hits": 5}}
    )
    assert verdict.legal, failed_rules(verdict)
    assert after_x(verdict, "F1") == 45 and after_x(verdict, "H1") == 45


def test_a_joined_character_dies_with_a_unit_that_retreats_off_the_table():
    # F at x = 4 (x 3..5): 5 cm back crosses the left edge: the unit and its Hero are destroyed
    verdict = judge(
        _fought(hero(4, 62), x=4), {"unit": "F", "type": "retreat", "declarations": {"hits": 5}}
    )
    assert verdict.legal, failed_rules(verdict)
    assert {"event": "destroyed", "unit": "F"} in verdict.events
    assert {"event": "slain", "unit": "H", "general": False} in verdict.events
    assert after_x(verdict, "H1") is None


def test_a_drive_back_over_the_edge_with_the_d6_given_is_judged():
    # F at x = 8 (x 7..9), the shooter at x = 28: 5 + 4 = 9 cm crosses the edge after 7 cm.
    # One stand already lost: a 3 counts 2, off the table until its side's next turn.
    doc = scenario(
        [line_of_flyers("F", 8, 54, state={"stands_lost": 1}), enemy("S", 28, 54)],
        phase="shooting",
    )
    drive = {
        "unit": "F",
        "type": "drive-back",
        "dice": [5, 4],
        "declarations": {"shooter": "S1", "hits": 2, "leave_table_roll": 3},
    }
    verdict = judge(doc, drive)
    assert verdict.legal, failed_rules(verdict)
    event = leave_event(verdict)
    assert (event["roll"], event["modifier"], event["outcome"]) == (3, -1, "off-table")
    assert after_x(verdict, "F1") == 1


def test_a_character_between_its_unit_and_the_edge_comes_back_with_it_keeping_its_place():
    """Found by the odd-tables property test: a joined Hero standing between its unit and the
    edge was carried off with it and, when the unit came back on, left beyond the edge (the
    judgement then failed to build the table after the move). [house] The unit and its
    characters come back together, keeping their places: the Hero (4 cm across, centre 3 cm to
    the left of F1's) ends touching the edge, F1 still 3 cm to its right."""
    verdict = judge(table(hero(7, 50)), fall_back(roll=6))
    assert verdict.legal, failed_rules(verdict)
    hero_x, stand_x = after_x(verdict, "H1"), after_x(verdict, "F1")
    assert hero_x == pytest.approx(1)  # its left edge on the table's edge
    assert stand_x - hero_x == pytest.approx(10 - 7)


def unit_state(verdict, unit_id):
    return next(u for u in verdict.after.document["units"] if u["id"] == unit_id).get("state", {})


def test_a_unit_back_on_a_3_or_4_carries_may_not_move_for_the_rest_of_the_turn():
    # 2.9: 3-4, back at once where it left, and it may not move again this turn; its joined
    # Hero shares its fate. 5-6 carries nothing.
    verdict = judge(table(hero(10, 62)), fall_back(roll=3))
    assert verdict.legal, failed_rules(verdict)
    assert unit_state(verdict, "F")["may_not_move"] is True
    assert unit_state(verdict, "H")["may_not_move"] is True
    back = judge(table(), fall_back(roll=5))
    assert "may_not_move" not in unit_state(back, "F")


def test_may_not_move_lasts_the_turn():
    from rules.systems import SYSTEMS

    flag = next(f for f in SYSTEMS["warmaster-revolution"].state_flags if f.name == "may_not_move")
    assert flag.lasts == "turn"


@pytest.mark.parametrize(
    "move",
    [
        {"unit": "F", "type": "combat-advance", "end": to_x(20)},
        {"unit": "F", "type": "combat-fall-back", "dice": [4, 4, 4], "end": to_x(2)},
    ],
)
def test_a_unit_that_may_not_move_again_this_turn_is_refused_its_own_moves(move):
    doc = scenario([line_of_flyers("F", 10, 54, state={"may_not_move": True})], phase="combat")
    verdict = judge(doc, move)
    assert not verdict.legal
    assert "general/leaving-the-table" in [rule for rule, *_ in failed_rules(verdict)]


def test_a_unit_that_may_not_move_again_is_still_driven_back():
    # [house] the moves the enemy forces on it (drive back, retreat) still happen: the rules give
    # no other way to settle them.
    doc = scenario(
        [line_of_flyers("F", 100, 54, state={"may_not_move": True}), enemy("E", 130, 54)],
        phase="shooting",
    )
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [2],
        "declarations": {"shooter": "E1", "hits": 1},
    }
    verdict = judge(doc, move)
    assert verdict.legal, failed_rules(verdict)


def test_an_advance_over_the_edge_still_counts_as_the_phases_advance():
    # 2.9: at most one advance per Combat phase, even when the first went over the edge and the
    # unit came straight back on a 5.
    verdict = judge(_edge_enemy_table(), _advance_to(0, leave_table_roll=5))
    assert verdict.legal, failed_rules(verdict)
    assert unit_state(verdict, "F")["advanced"] is True
