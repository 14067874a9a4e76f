"""Making way (RULES.md 2.9 "Confusion and making way"): the move type `make-way`.

Geometry (cm): the friend that makes way, F, is three 4 x 2 cm flying stands facing +x at
x = 50, y = 50, 54, 58 (x 49..51, y 48..60), a line. D, the red unit being driven back onto it,
stands at x = 80 (its stands are ignored: they are the ones moving). Moving F by (dx, dy) moves
every point of every stand by that much, so each stand moves hypot(dx, dy) cm.
"""

import pytest

from .builders import enemy, failed_rules, flyers, judge, line_of_flyers, scenario, stand, terrain

F_YS = (("F1", 50), ("F2", 54), ("F3", 58))


def moved(dx, dy=0, x=50):
    return {m: {"x": x + dx, "y": y + dy} for m, y in F_YS}


def make_way(end, **declarations):
    return {
        "unit": "F",
        "type": "make-way",
        "end": end,
        "declarations": {"made_way_for": "D", **declarations},
    }


def table(*extra, f=None, phase="shooting", terrain_pieces=()):
    return scenario(
        [f or line_of_flyers("F", 50, 54), line_of_flyers("D", 80, 54), *extra],
        terrain_pieces,
        phase=phase,
    )


def test_a_friend_moves_back_out_of_the_way_and_owes_its_confusion_d6():
    verdict = judge(table(), make_way(moved(-10)))
    assert verdict.legal, failed_rules(verdict)
    assert {
        "event": "confusion-roll",
        "unit": "F",
        "dice": "1D6",
        "because": "made way for D",
    } in verdict.events


def test_a_line_may_make_way_up_to_its_full_pace():
    # a line of flyers: normal move 100 cm; 60 cm back is within it
    assert judge(table(), make_way(moved(-40))).legal


# F2 stepped 1 cm forward (x 50..52): it still touches F1 and F3 along their long edges, but the
# fronts are not level: irregular formation, normal move 10 cm (half pace, as an order).
IRREGULAR = flyers("F", [stand("F1", 50, 50), stand("F2", 51, 54), stand("F3", 50, 58)], army="red")


@pytest.mark.parametrize("dx, legal", [(-10, True), (-10.5, False)])
def test_an_irregular_unit_makes_way_at_most_10_cm(dx, legal):
    end = moved(dx)
    end["F2"] = {"x": 51 + dx, "y": 54}
    verdict = judge(table(f=IRREGULAR), make_way(end))
    assert verdict.legal is legal, failed_rules(verdict)


def test_a_unit_in_combat_cannot_make_way():
    # the enemy E (x 51..53, y 52..56) touches F's front edge
    verdict = judge(table(enemy("E", 52, 54)), make_way(moved(-10)))
    assert not verdict.legal
    busy = line_of_flyers("F", 50, 54, state={"in_combat": True})
    assert not judge(table(f=busy), make_way(moved(-10))).legal


def test_a_unit_held_by_a_spell_cannot_make_way_but_a_confused_one_can():
    held = line_of_flyers("F", 50, 54, state={"spell_prevents_movement": True})
    assert not judge(table(f=held), make_way(moved(-10))).legal
    confused = line_of_flyers("F", 50, 54, state={"confused": True})  # [house]
    assert judge(table(f=confused), make_way(moved(-10))).legal


def test_making_way_may_not_cross_impassable_terrain():
    # a building spans x 42..46: F's stands would cross it on the way to x 34..36
    building = terrain("b", "building", 42, 40, 46, 70)
    verdict = judge(table(terrain_pieces=[building]), make_way(moved(-15)))
    assert not verdict.legal
    assert any("b" in t and "impassable" in t for _, _, t in failed_rules(verdict))
    # a ravine beside the path (y 62..70) is not crossed
    ravine = terrain("r", "ravine", 42, 62, 46, 70)
    assert judge(table(terrain_pieces=[ravine]), make_way(moved(-15))).legal


def test_making_way_may_not_touch_enemies_or_units_in_combat():
    # the enemy E at (37, 54) spans x 36..38, y 52..56; F moved 11 cm back spans x 38..40:
    # F2's rear edge touches E.
    verdict = judge(table(enemy("E", 37, 54)), make_way(moved(-11)))
    assert not verdict.legal
    # K, a red unit in combat (state in_combat) at (40, 66): x 39..41, y 64..68. F moved by
    # (-10, +4) spans x 39..41, y 52..64: F3 touches K's edge y = 64.
    k = flyers("K", [stand("K1", 40, 66)], army="red", state={"in_combat": True})
    verdict = judge(table(k), make_way(moved(-10, 4)))
    assert not verdict.legal
    assert any("K" in t and "combat" in t for _, _, t in failed_rules(verdict))
    # the same move with K not in combat only ends touching a friend, which is allowed
    k["state"] = {}
    assert judge(table(k), make_way(moved(-10, 4))).legal


def test_making_way_may_not_break_formation():
    end = moved(-10)
    end["F3"] = {"x": 40, "y": 62}  # 2 cm below F2 (y 52..56 -> F3 y 60..64): apart
    verdict = judge(table(), make_way(end))
    assert not verdict.legal


def test_making_way_may_end_in_another_formation_while_every_stand_touches():
    """Umpire's review (K04), a reading (docs/rules-coverage.md): "may not break formation"
    (2.9) is every stand touching another (2.1), not keeping the line: the stands that move may
    "form round" the first. F3 ends 2 cm ahead of F2 (x 41..43 against 39..41), touching it only
    at the corner (41, 56)."""
    end = moved(-10)
    end["F3"] = {"x": 42, "y": 58}
    verdict = judge(table(), make_way(end))
    assert verdict.legal, failed_rules(verdict)


def test_making_way_is_for_the_shooting_and_combat_phases():
    assert judge(table(phase="combat"), make_way(moved(-10))).legal
    assert not judge(table(phase="command"), make_way(moved(-10))).legal


def test_making_way_over_the_table_edge_leaves_the_table():
    # F at x = 10 (x 9..11) makes way 10 cm back: x -1..1, over the left edge
    f = line_of_flyers("F", 10, 54)
    verdict = judge(table(f=f), make_way(moved(-10, x=10), leave_table_roll=5))
    assert verdict.legal, failed_rules(verdict)
    event = next(e for e in verdict.events if e["event"] == "leave-table-roll")
    assert event["outcome"] == "returns"
    assert any(e["event"] == "confusion-roll" and e["unit"] == "F" for e in verdict.events)


def test_making_way_over_a_cliff_and_off_the_table_is_refused():
    """Umpire's review (K10): F (x 98..102, y 4..16) makes way 7 cm up, to y -3..9: F1 ends
    over the top edge, and F1's path and F2's end cross the cliff (y 1..3.5). Making way may
    not cross impassable terrain (2.9), over the edge or not: refused, no leave-the-table D6."""
    f = line_of_flyers("F", 100, 10)
    cliff = terrain("c", "cliff", 95, 1, 105, 3.5)
    end = {m: {"x": 100, "y": y - 7} for m, y in (("F1", 6), ("F2", 10), ("F3", 14))}
    verdict = judge(table(f=f, terrain_pieces=[cliff]), make_way(end))
    assert not verdict.legal
    assert any("impassable" in text for _, _, text in failed_rules(verdict))
    assert not [e for e in verdict.events if e["event"] == "leave-table-roll"]


def test_only_a_friendly_unit_can_be_made_way_for():
    move = {**make_way(moved(-10)), "declarations": {"made_way_for": "E"}}
    verdict = judge(table(enemy("E", 120, 54)), move)
    assert not verdict.legal
