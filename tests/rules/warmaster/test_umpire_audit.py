"""An umpire's audit of the Warmaster engine against RULES.md section 2 (and section 0).

Every case is worked by hand from the rule text; the positions and the expected distances and
findings are written here from that working, never copied from the engine's output. Unless a test
says otherwise, stands are 4 x 2 cm, facing +x, and `line_of_flyers(id, x, y)` is three such stands
side by side at (x, y - 4), (x, y), (x, y + 4): x - 1 .. x + 1 by y - 6 .. y + 6.
"""

import pytest

from rules import InvalidInput, Situation
from rules.warmaster.terrain import can_see

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


def confusion_rolls(verdict):
    return sorted(
        (e["unit"], e["dice"], e["because"])
        for e in verdict.events
        if e["event"] == "confusion-roll"
    )


def texts(verdict):
    return " ".join(f.text for f in verdict.findings)


# --- 2.9 "Confusion and making way": each confusion roll is reported once ---------------------
#
# F (x 99..101, y 48..60) is shot by S1 at (120, 54) and driven back 3 + 4 = 7 cm in -x: its stands
# would end at x 92..94. G1 at (93, 54) and H1 at (93, 58) (x 92..94) stand right there, so G and H
# make way. 2.9: G and H each roll one D6 (confused on a 6); F rolls one D6 per unit it forced
# aside, 2D6, with its drive back. G is a flyer: its D6 belongs to its own make-way move. H is
# infantry, whose make-way move Arbiter does not judge: its D6 is reported with the drive back.
# No roll is reported twice.


def _driven_onto_friends():
    return scenario(
        [
            line_of_flyers("F", 100, 54),
            enemy("S", 120, 54),
            flyers("G", [stand("G1", 93, 54)]),
            flyers("H", [stand("H1", 93, 58)], keywords=("INFANTRY",)),
        ],
        phase="shooting",
    )


def test_the_drive_back_reports_no_roll_a_flying_friend_makes_with_its_own_move():
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [3, 4],
        "declarations": {"shooter": "S1", "hits": 2, "friends_make_way": True},
    }
    verdict = judge(_driven_onto_friends(), move)
    assert verdict.legal, failed_rules(verdict)
    assert confusion_rolls(verdict) == [
        ("F", "2D6", "forced friends to make way"),
        ("H", "1D6", "made way for F"),
    ]
    # the finding says where G's own die is reported
    assert "G: each rolls its own D6 (confused on a 6) with its make-way move" in texts(verdict)


def test_the_friends_make_way_move_reports_only_its_own_roll():
    # G makes way 10 cm back (-x): G1 from x 92..94 to x 82..84, clear of every stand.
    move = {
        "unit": "G",
        "type": "make-way",
        "end": {"G1": {"x": 83, "y": 54}},
        "declarations": {"made_way_for": "F"},
    }
    verdict = judge(_driven_onto_friends(), move)
    assert verdict.legal, failed_rules(verdict)
    assert confusion_rolls(verdict) == [("G", "1D6", "made way for F")]
    # and it says where the 2D6 of F (the unit that forced it aside) are reported
    assert "F's own verdict" in texts(verdict)


def test_a_retreat_through_friends_reports_only_the_retreating_units_roll():
    # F (x 49..51) lost a combat against E1 (x 51..53, touching F2's front) and retreats 8 cm in
    # -x, to x 41..43; flying friend G1 (x 43..45, y 52..56) is in the way and makes way. F rolls
    # 1D6 for forcing one unit aside; G's own D6 belongs to G's make-way move.
    doc = scenario(
        [
            line_of_flyers("F", 50, 54),
            enemy("E", 52, 54),
            flyers("G", [stand("G1", 44, 54)]),
        ],
        phase="combat",
    )
    move = {"unit": "F", "type": "retreat", "declarations": {"hits": 8, "friends_make_way": True}}
    verdict = judge(doc, move)
    assert verdict.legal, failed_rules(verdict)
    assert confusion_rolls(verdict) == [("F", "1D6", "forced friends to make way")]
    assert "make-way move" in texts(verdict)


# --- 2.2 the terrain table: where a flyer may end a move, and what blocks sight ----------------
#
# F (x 9..11, y 48..60) is ordered by C (x 19..21, y 68..72, 11.31 cm from F3's corner (11, 60))
# and flies 50 cm to x 59..61. The piece spans x 55..70, y 40..70: every stand ends over it.


def _ordered_to_60(pieces=(), f=None, extra=(), dice=(3, 3), **state):
    doc = scenario(
        [f or line_of_flyers("F", 10, 54, state=state), character("C", 20, 70, rect=True), *extra],
        pieces,
    )
    move = {
        "unit": "F",
        "type": "order-move",
        "dice": list(dice),
        "end": {m: {"x": 60, "y": y} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))},
        "declarations": {"ordered_by": "C"},
    }
    return judge(doc, move)


@pytest.mark.parametrize(
    "name, may_end",
    [
        ("open", True),
        ("bridge", True),
        ("road", True),
        ("hill", True),
        ("village", True),
        ("shallow-river", True),
        ("ford", True),
        ("low-obstacle", True),
        ("broken-ground", True),
        ("marshy-ground", True),
        ("loose-terrain", True),
        ("high-linear-obstacle", True),  # infantry may cross it, so flyers may end there
        ("woods", False),
        ("wood", False),
        ("tall-scrub", False),
        ("buildings", False),
        ("boulders", False),
        ("cliffs", False),
        ("mountains", False),
        ("deep-water", False),
        ("lake", False),
        ("ravine", False),
    ],
)
def test_the_terrain_table_says_where_a_flyer_may_end(name, may_end):
    verdict = _ordered_to_60([terrain("t", name, 55, 40, 70, 70)])
    assert verdict.legal is may_end, failed_rules(verdict)
    if not may_end:
        assert any(
            subject.startswith("F") and "t" in text for _, subject, text in failed_rules(verdict)
        )


# F1 (x 9..11, y 52..56) faces +x; the enemy stand E1 (x 29..31, y 52..56) is straight ahead.
# A strip of terrain x 19..21 lies between them, across the whole sight line.
@pytest.mark.parametrize(
    "name, blocks",
    [
        ("open", False),
        ("road", False),
        ("bridge", False),
        ("ford", False),
        ("low-obstacle", False),
        ("broken-ground", False),
        ("marshy-ground", False),
        ("loose-terrain", False),
        ("tall-scrub", True),  # as woods
        ("boulders", True),
        ("cliff", True),
        ("mountains", True),
    ],
)
def test_the_terrain_table_says_what_blocks_sight(name, blocks):
    doc = scenario(
        [flyers("F", [stand("F1", 10, 54)]), enemy("E", 30, 54)],
        [terrain("t", name, 19, 40, 21, 70)],
    )
    s = Situation.from_document(doc)
    assert can_see(s, s.unit("F").models[0], s.unit("E").models[0]) is not blocks


def test_a_hill_does_not_block_sight_to_a_target_standing_on_it():
    # the hill x 22..40 holds E1 (x 29..31); F1 (x 9..11) stands off it and sees E1
    doc = scenario(
        [flyers("F", [stand("F1", 10, 54)]), enemy("E", 30, 54)],
        [terrain("t", "hill", 22, 40, 40, 70)],
    )
    s = Situation.from_document(doc)
    assert can_see(s, s.unit("F").models[0], s.unit("E").models[0])


# --- 2.3 / 2.9 the order roll's penalties -------------------------------------------------------
#
# C has Command 9. With no penalty a roll of 9 passes; each -1 takes one off what the dice may show.


@pytest.mark.parametrize(
    "piece, dense",
    [
        # one stand only partly in it: F3 (x 9..11, y 56..60) overlaps x 9..9.5, y 57..60
        (("village", 0, 57, 9.5, 70), True),
        (("broken-ground", 0, 57, 9.5, 70), True),
        (("marshy-ground", 0, 57, 9.5, 70), True),
        (("hill", 0, 57, 9.5, 70), False),
        (("shallow-river", 0, 57, 9.5, 70), False),
        (("loose-terrain", 0, 57, 9.5, 70), False),
    ],
)
def test_a_stand_even_partly_in_dense_terrain_costs_one(piece, dense):
    pieces = [terrain("t", *piece)]
    assert _ordered_to_60(pieces, dice=(4, 4)).legal  # 8 passes either way
    assert _ordered_to_60(pieces, dice=(4, 5)).legal is not dense  # 9 passes only without -1


@pytest.mark.parametrize(
    "ey, penalty",
    [
        (82.0, True),  # E1 (frontage 4 cm along y) spans y 80..84: 20 cm below F3's edge y = 60
        (82.1, False),  # 20.1 cm
    ],
)
def test_an_enemy_unit_exactly_20_cm_away_costs_one(ey, penalty):
    verdict = _ordered_to_60(extra=[enemy("E", 10, ey)], dice=(4, 5))
    assert verdict.legal is not penalty, failed_rules(verdict)


def test_an_enemy_unit_within_20_cm_costs_one_even_when_unseen():
    # E1 (x 3..5, y 52..56) is 4 cm behind F2's rear edge x = 9: out of F's sight (2.3, 180
    # degrees) but the penalty counts the closest enemy visible or not.
    verdict = _ordered_to_60(extra=[enemy("E", 4, 54)], dice=(4, 5))
    assert not verdict.legal
    assert _ordered_to_60(extra=[enemy("E", 4, 54)], dice=(4, 4)).legal


@pytest.mark.parametrize(
    "earlier, last_pass",
    [
        (1, (4, 4)),  # the 2nd order: -1, 8 passes
        (2, (3, 4)),  # the 3rd order: -2, 7 passes
    ],
)
def test_the_2nd_order_costs_one_and_the_3rd_two(earlier, last_pass):
    state = {"orders_this_phase": earlier, "ordered_by": "C"}
    assert _ordered_to_60(dice=last_pass, **state).legal
    a, b = last_pass
    assert not _ordered_to_60(dice=(a, b + 1), **state).legal


def test_a_4th_order_is_refused_whatever_the_dice():
    verdict = _ordered_to_60(dice=(1, 1), orders_this_phase=3, ordered_by="C")
    assert not verdict.legal


def test_the_penalties_add_up():
    # 2nd order (-1), an enemy 4 cm behind (-1), a stand partly in a marsh (-1), 2 stands lost
    # (-2): Command 9 - 5 = 4. A 4 passes, a 5 fails.
    marsh = [terrain("t", "marshy-ground", 0, 57, 9.5, 70)]
    state = {"orders_this_phase": 1, "ordered_by": "C", "stands_lost": 2}
    e = [enemy("E", 4, 54)]
    assert _ordered_to_60(marsh, extra=e, dice=(2, 2), **state).legal
    assert not _ordered_to_60(marsh, extra=e, dice=(2, 3), **state).legal


# --- 2.6 / 2.9 a drive back of exactly full pace is survived -----------------------------------


@pytest.mark.parametrize("last, destroyed", [(4, False), (5, True)])
def test_a_drive_back_of_exactly_100_cm_is_survived_and_101_destroys(last, destroyed):
    # F (x 149..151) is shot by S1 at (170, 54): straight away is -x. Sixteen 6s and a 4 make
    # 100 cm, exactly full pace: F ends at x 49..51, confused (6s). A 5 instead makes 101 cm.
    doc = scenario([line_of_flyers("F", 150, 54), enemy("S", 170, 54)], phase="shooting")
    dice = [6] * 16 + [last]
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": dice,
        "declarations": {"shooter": "S1", "hits": 17},
    }
    verdict = judge(doc, move)
    assert verdict.legal, failed_rules(verdict)
    assert verdict.after.has_unit("F") is not destroyed
    if not destroyed:
        assert sorted({round(v["end"]["x"], 4) for v in verdict.models.values()}) == [50.0]
        assert verdict.after.unit("F").state.get("confused")


# --- 2.4 only friendly characters matter for home back ----------------------------------------


def test_an_enemy_character_near_the_flyers_does_not_stop_them_homing_back():
    # 2.4: more than 20 cm from every FRIENDLY character. The enemy General X (round, 2 cm across,
    # centre (20, 30)) is 19.12 cm from F1's corner (11, 48): hypot(9, 18) - 1. The friendly C
    # (centre (50, 54), edge x 49) is 38 cm away. A roll of 1 flies F 10 cm toward C, to x 19..21,
    # clear of X (y 29..31).
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 50, 54),
            character("X", 20, 30, army="blue"),
        ]
    )
    move = {
        "unit": "F",
        "type": "home-back",
        "dice": [1],
        "declarations": {"home_back_to": "C"},
    }
    verdict = judge(doc, move)
    assert verdict.legal, failed_rules(verdict)
    assert sorted({round(v["end"]["x"], 4) for v in verdict.models.values()}) == [20.0]


# --- 2.9 formation: an ordered move from irregular formation is 10 cm; dice-set moves are not --
#
# F2 stepped 1 cm forward of F1 and F3 (x 10..12 against 9..11): still touching, fronts not level,
# irregular formation.


def _irregular(x):
    return flyers("F", [stand("F1", x, 50), stand("F2", x + 1, 54), stand("F3", x, 58)])


@pytest.mark.parametrize("dx, legal", [(10.0, True), (10.5, False)])
def test_an_order_move_from_irregular_formation_is_at_most_10_cm(dx, legal):
    doc = scenario([_irregular(10), character("C", 20, 70, rect=True)])
    move = {
        "unit": "F",
        "type": "order-move",
        "dice": [3, 3],
        "end": {
            "F1": {"x": 10 + dx, "y": 50},
            "F2": {"x": 11 + dx, "y": 54},
            "F3": {"x": 10 + dx, "y": 58},
        },
        "declarations": {"ordered_by": "C"},
    }
    verdict = judge(doc, move)
    assert verdict.legal is legal, failed_rules(verdict)


def test_a_drive_back_of_an_irregular_unit_goes_the_full_dice():
    # S1 (x 119..121) shoots F (F2's front at x 12 + 90 = 102): straight away is -x. 5 + 5 + 5 + 5
    # = 20 cm, twice the 10 cm of an ordered move in irregular formation: the dice decide.
    doc = scenario([_irregular(100), enemy("S", 120, 54)], phase="shooting")
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [5, 5, 5, 5],
        "declarations": {"shooter": "S1", "hits": 4},
    }
    verdict = judge(doc, move)
    assert verdict.legal, failed_rules(verdict)
    ends = {k: v["end"]["x"] for k, v in verdict.models.items()}
    assert ends == {"F1": 80.0, "F2": 81.0, "F3": 80.0}


# --- 2.1 a round character base up to 2.5 cm across is measured from its circle ---------------


@pytest.mark.parametrize("cx, legal", [(32.25, True), (32.35, False)])
def test_orders_from_a_25_mm_round_character_are_measured_from_its_edge(cx, legal):
    # C's circle, radius 1.25 cm, centre (cx, 54); F's front edge x = 11: gap cx - 12.25 cm,
    # 20 at 32.25 (ordered), 20.1 at 32.35 (too far for flyers).
    doc = scenario([line_of_flyers("F", 10, 54), character("C", cx, 54, round_mm=25)])
    move = {
        "unit": "F",
        "type": "order-move",
        "dice": [3, 3],
        "end": {m: {"x": 10, "y": y} for m, y in (("F1", 40), ("F2", 44), ("F3", 48))},
        "declarations": {"ordered_by": "C"},
    }
    verdict = judge(doc, move)
    assert verdict.legal is legal, failed_rules(verdict)


def test_a_unit_that_charged_takes_no_more_orders():
    verdict = _ordered_to_60(dice=(1, 1), charged=True)
    assert not verdict.legal
    assert any("charged" in text for _, _, text in failed_rules(verdict))


# --- 0 tolerance: touching is within 1e-6 cm ----------------------------------------------------


@pytest.mark.parametrize("ex, legal", [(62.0000005, False), (62.001, True)])
def test_an_ordered_move_may_not_end_touching_an_enemy_within_the_tolerance(ex, legal):
    # F flies to x 59..61; E1 (x ex - 1 .. ex + 1) is 5e-7 cm away (touching: <= 1e-6) or 0.001
    # cm away (not touching). Only a charge may end touching an enemy (2.5).
    verdict = _ordered_to_60(extra=[enemy("E", ex, 54)])
    assert verdict.legal is legal, failed_rules(verdict)


# --- 2.9 fall back: at least 1 cm from enemies and from units in combat, friend or foe ----------
#
# F (x 49..51) fell back from E1 (x 51..53, touching F2's front) by 3D6 = 18 cm, to x 31..33.
# F3 then spans y 56..60.


def _fall_back(*extra):
    doc = scenario(
        [line_of_flyers("F", 50, 54), enemy("E", 52, 54), *extra],
        phase="combat",
    )
    end = {m: {"x": 32, "y": y} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
    move = {"unit": "F", "type": "combat-fall-back", "dice": [6, 6, 6], "end": end}
    return judge(doc, move)


def test_a_fall_back_ending_exactly_1_cm_from_an_enemy_is_not_confused():
    # D1 (x 31..33, frontage along y: y 61..65) is 1 cm below F3's edge y = 60
    verdict = _fall_back(enemy("D", 32, 63))
    assert verdict.legal, failed_rules(verdict)
    assert "confused" not in [e["event"] for e in verdict.events]


def test_a_fall_back_ending_within_1_cm_of_a_friend_in_combat_is_confused():
    # the red unit K1 (x 31..33, y 60.5..64.5) is in combat, 0.5 cm below F3; the same friend
    # out of combat does not matter.
    k = flyers("K", [stand("K1", 32, 62.5, 180)], state={"in_combat": True})
    verdict = _fall_back(k)
    assert verdict.legal, failed_rules(verdict)
    assert verdict.after.unit("F").state.get("confused") is True
    k["state"] = {}
    assert "confused" not in [e["event"] for e in _fall_back(k).events]


# --- 2.9 blocked retreats: touching an enemy of another engagement blocks, of this one does not --
#
# F (x 49..51, y 48..60) lost its combat and retreats 5 cm straight back (-x), to x 44..46.


def _retreat_5(*units):
    doc = scenario([line_of_flyers("F", 50, 54), *units], phase="combat")
    return judge(doc, {"unit": "F", "type": "retreat", "declarations": {"hits": 5}})


def test_a_retreat_ending_in_touch_with_an_enemy_of_another_engagement_loses_that_stand():
    # E1 (x 51..53, y 52..56) touches F2's front: the engagement. X1, an enemy stand facing a
    # short edge (2 cm wide: x 40..44, y 53..55), 5 cm behind F and touching nothing, is not
    # part of it. F2 would end with its rear edge x = 44 on X1's front edge: blocked, destroyed.
    # F1 (y 48..52) and F3 (y 56..60) clear X1 by 1 cm and complete the retreat.
    x = flyers("X", [stand("X1", 42, 54, 180, base=[20, 40])], army="blue", keywords=("CAVALRY",))
    verdict = _retreat_5(enemy("E", 52, 54), x)
    assert verdict.legal, failed_rules(verdict)
    assert {"event": "stand-destroyed", "unit": "F", "stand": "F2"} in verdict.events
    assert {k: v["end"]["x"] for k, v in verdict.models.items() if k != "F2"} == {
        "F1": 45.0,
        "F3": 45.0,
    }


def test_a_retreat_may_end_in_touch_with_an_enemy_of_the_same_engagement():
    # E1 (y 50..54) and E2 (y 54..58), x 51..53, touch F's front: two stands on that side.
    # L, an enemy line facing -y (x 40..52, y 60..62), touches F3's right edge with L3 (x
    # 48..52): one stand on that side. F retreats away from the front, -x, and F3 ends (x 44..46)
    # still along L2's edge: L is of this engagement, so nothing is blocked.
    line = flyers(
        "L",
        [stand(f"L{i + 1}", 42 + 4 * i, 61, 270) for i in range(3)],
        army="blue",
        keywords=("INFANTRY",),
    )
    verdict = _retreat_5(enemy("E", 52, 52, count=2), line)
    assert verdict.legal, failed_rules(verdict)
    assert "stand-destroyed" not in [e["event"] for e in verdict.events]
    assert sorted({v["end"]["x"] for v in verdict.models.values()}) == [45.0]


# --- 2.9 a lone enemy character in the way: flown moves only where they end, ground moves anywhere


def test_a_flown_move_over_a_lone_enemy_character_leaves_it_alone():
    # X, a lone blue General (circle 2 cm across at (35, 54)), lies under F's path from x 9..11 to
    # x 59..61 but nowhere near where F ends: a flown move is judged at its end only.
    verdict = _ordered_to_60(extra=[character("X", 35, 54, army="blue")])
    assert verdict.legal, failed_rules(verdict)
    kinds = [e["event"] for e in verdict.events]
    assert "character-displaced" not in kinds and "slain" not in kinds


def test_a_retreat_along_the_ground_through_a_lone_enemy_character_displaces_it():
    # X (circle at (46, 54), x 45..47) stands behind F2 (x 49..51): F2's 5 cm retreat (to x 44..46)
    # sweeps through it, so it must move at once up to 30 cm into touch with a friendly unit: E
    # (3 cm away) is one. F's retreat is not blocked by it (characters never block).
    verdict = _retreat_5(enemy("E", 52, 54), character("X", 46, 54, army="blue"))
    assert verdict.legal, failed_rules(verdict)
    assert "stand-destroyed" not in [e["event"] for e in verdict.events]
    assert sorted({v["end"]["x"] for v in verdict.models.values()}) == [45.0]
    assert any(e["event"] == "character-displaced" and e["unit"] == "X" for e in verdict.events)


# --- 2.9 fall back: the first stand ends behind the line of contact ---------------------------
#
# F (x 49..51) drew with E1 (x 51..53, y 52..56), which touches F2's front: the line of contact is
# x = 51, and F's side of it is x <= 51. 3D6 = 6 + 6 + 6 = 18 cm.


def _fall_back_to(x, dy=0.0):
    doc = scenario([line_of_flyers("F", 50, 54), enemy("E", 52, 54)], phase="combat")
    end = {m: {"x": x, "y": y + dy} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
    return judge(doc, {"unit": "F", "type": "combat-fall-back", "dice": [6, 6, 6], "end": end})


def test_a_fall_back_over_the_enemy_to_its_far_side_is_refused():
    # F hops 10 cm forward, over E1, to x 59..61: every stand ends 8 cm beyond the line x = 51
    verdict = _fall_back_to(60)
    assert not verdict.legal
    assert any("line of contact" in text for _, _, text in failed_rules(verdict))


@pytest.mark.parametrize(
    "x, dy",
    [
        (45, 0),  # 5 cm straight back: x 44..46
        (50, 12),  # 12 cm sideways: the front edges stay on the line x = 51, not beyond it
    ],
)
def test_a_fall_back_ending_behind_the_line_of_contact_is_legal(x, dy):
    verdict = _fall_back_to(x, dy)
    assert verdict.legal, failed_rules(verdict)


# --- 2.9 advance: only once no enemy of the engagement is left ---------------------------------


def test_a_combat_advance_is_refused_while_an_enemy_still_touches_the_unit():
    # E1 (x 51..53, y 52..56) still touches F2's front: the engagement is not over, so F may not
    # advance (here 1 cm to the side, staying in contact with E1).
    doc = scenario([line_of_flyers("F", 50, 54), enemy("E", 52, 54)], phase="combat")
    end = {m: {"x": 50, "y": y + 1} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
    verdict = judge(doc, {"unit": "F", "type": "combat-advance", "end": end})
    assert not verdict.legal
    assert any("E" in text and "advance" in text for _, _, text in failed_rules(verdict))


# --- 2.3 / 2.9 sub-phases in order across the army: no initiative once any unit homed back ------


def test_initiative_is_refused_once_another_unit_of_the_army_has_homed_back():
    # 2.4: home back comes after the initiative moves. G, another red flying unit, has homed back
    # this phase, so F may no longer charge E (x 25..27, 14 cm away) on initiative.
    g = flyers("G", [stand("G1", 100, 100)], state={"homed_back": True})
    end = {m: {"x": 24, "y": y} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
    move = {"unit": "F", "type": "initiative-charge", "end": end}
    fresh = scenario([line_of_flyers("F", 10, 54), enemy("E", 26, 54)])
    assert judge(fresh, move).legal
    verdict = judge(scenario([line_of_flyers("F", 10, 54), enemy("E", 26, 54), g]), move)
    assert not verdict.legal
    assert any(
        subject == "F" and "G" in text and "home" in text
        for _, subject, text in failed_rules(verdict)
    )


def test_a_unit_advances_at_most_once_per_combat_phase():
    # F (x 49..51) won and E is gone; D1 (x 59..61, y 52..56) is 8 cm ahead, the closest enemy
    # unit F can see. F advances 8 cm to x 57..59, into contact with D1. Then, had D been
    # destroyed in the next round, F would be free of enemies again but may not advance twice.
    end = {m: {"x": 58, "y": y} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
    move = {"unit": "F", "type": "combat-advance", "end": end}
    won = line_of_flyers("F", 50, 54, state={"in_combat": True})
    first = judge(scenario([won, enemy("D", 60, 54)], phase="combat"), move)
    assert first.legal, failed_rules(first)
    assert first.after.unit("F").state["advanced"] is True
    again = line_of_flyers("F", 50, 54, state={"advanced": True, "in_combat": True})
    verdict = judge(scenario([again, enemy("D", 60, 54)], phase="combat"), move)
    assert not verdict.legal
    assert any("once per Combat phase" in text for _, _, text in failed_rules(verdict))


def test_a_unit_marked_in_combat_is_not_driven_back():
    # 2.9: units in combat are not driven back. F touches no enemy, but the scenario marks it in
    # combat (state in_combat: its combat is not over this turn).
    f = line_of_flyers("F", 100, 54, state={"in_combat": True})
    doc = scenario([f, enemy("S", 120, 54)], phase="shooting")
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [3, 4],
        "declarations": {"shooter": "S1", "hits": 2},
    }
    verdict = judge(doc, move)
    assert not verdict.legal
    assert any("not driven back" in text for _, _, text in failed_rules(verdict))


@pytest.mark.parametrize("move_type", ["home-back", "order-move", "initiative-charge"])
def test_a_unit_marked_in_combat_makes_no_command_phase_move(move_type):
    # 2.4 (home back: "not engaged"), 2.9 (units in combat do not take orders or use initiative):
    # F touches no enemy but is marked in combat. C (round, centre (20, 70)) is 12.45 cm from F3's
    # corner (11, 60) for an order; E1 (x 25..27) is 14 cm ahead for initiative; for home back C
    # stands at (82, 54).
    f = line_of_flyers("F", 10, 54, state={"in_combat": True})
    end = {m: {"x": 24, "y": y} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
    moves = {
        "home-back": (
            [character("C", 82, 54)],
            {"dice": [3], "declarations": {"home_back_to": "C"}},
        ),
        "order-move": (
            [character("C", 20, 70)],
            {"dice": [3, 3], "end": end, "declarations": {"ordered_by": "C"}},
        ),
        "initiative-charge": ([enemy("E", 26, 54)], {"end": end}),
    }
    others, rest = moves[move_type]
    verdict = judge(scenario([f, *others]), {"unit": "F", "type": move_type, **rest})
    assert not verdict.legal
    assert any("in combat" in text for _, _, text in failed_rules(verdict))


# --- 2.8 a flying General slain for want of a unit within 30 cm ends the battle ------------------


@pytest.mark.parametrize("rank, battle_over", [("GENERAL", True), ("HERO", False)])
def test_a_flying_general_slain_on_escape_ends_the_battle(rank, battle_over):
    # C (round, centre (10, 54)) is touched by E1 (x 11..13); its only friend G1 (x 49..51) is
    # 38 cm away, beyond the 30 cm escape: C is slain, and a General's death ends the battle.
    c = character("C", 10, 54, flying=True)
    c["keywords"] = ["CHARACTER", rank, "FLYING"]
    g = flyers("G", [stand("G1", 50, 54)], keywords=("INFANTRY",))
    doc = scenario([c, enemy("E", 12, 54), g], phase="combat")
    verdict = judge(doc, {"unit": "C", "type": "character-escape"})
    assert verdict.legal, failed_rules(verdict)
    assert {"event": "slain", "unit": "C", "general": battle_over} in verdict.events
    assert ("battle is over" in " ".join(f.text for f in verdict.findings)) is battle_over


# --- 2.5 charges: 10 cm from irregular formation (initiative too); no charge after a failed order


def test_an_initiative_charge_from_irregular_formation_reaches_only_10_cm():
    # F2 (x 10..12) is 13 cm from E1 (x 25..27): in initiative range (20 cm), but the charge of an
    # irregular unit is at most 10 cm, and 13 are needed to reach E1.
    doc = scenario([_irregular(10), enemy("E", 26, 54)])
    end = {"F1": {"x": 23, "y": 50}, "F2": {"x": 24, "y": 54}, "F3": {"x": 23, "y": 58}}
    verdict = judge(doc, {"unit": "F", "type": "initiative-charge", "end": end})
    assert not verdict.legal
    assert all(measured == 13 for measured in _failed_measures(verdict))


def _failed_measures(verdict):
    return [round(f.measured, 6) for f in verdict.failures if f.measured is not None]


def test_a_failed_order_charge_may_not_reach_the_enemy():
    # Command 9, roll 6 + 5 = 11: failed first order, 10 cm half pace and no charge. E1 (x 25..27)
    # is 14 cm from F's front: reaching it is refused; 8 cm short of it is the half-pace move.
    doc = scenario(
        [line_of_flyers("F", 10, 54), enemy("E", 26, 54), character("C", 20, 70, rect=True)]
    )

    def charge(x):
        end = {m: {"x": x, "y": y} for m, y in (("F1", 50), ("F2", 54), ("F3", 58))}
        declarations = {"ordered_by": "C", "charge_targets": ["E"]}
        move = {"unit": "F", "type": "order-charge", "dice": [6, 5], "end": end}
        return judge(doc, {**move, "declarations": declarations})

    reached = charge(24)
    assert not reached.legal
    assert any("only a charge" in text for _, _, text in failed_rules(reached))
    short = charge(18)
    assert short.legal, failed_rules(short)
    assert {"event": "order-failed", "unit": "F", "roll": 11, "by": "C"} in short.events


# --- 2.6 drive back: halting 1 cm from enemies -----------------------------------------------
#
# F (x 99..101) is driven back 3 + 4 = 7 cm from S1 (x 119..121), toward x 92..94.


@pytest.mark.parametrize(
    "xx, end_x, confused",
    [
        (90.5, 93.5, True),  # X1 x 89.5..91.5: F would end 0.5 cm from it; stops at 1 cm
        (90.0, 93.0, False),  # X1 x 89..91: F ends exactly 1 cm from it, as the dice say
    ],
)
def test_a_drive_back_halts_1_cm_from_an_enemy(xx, end_x, confused):
    doc = scenario(
        [line_of_flyers("F", 100, 54), enemy("S", 120, 54), enemy("X", xx, 54)], phase="shooting"
    )
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [3, 4],
        "declarations": {"shooter": "S1", "hits": 2},
    }
    verdict = judge(doc, move)
    assert verdict.legal, failed_rules(verdict)
    assert {v["end"]["x"] for v in verdict.models.values()} == {end_x}
    assert ("confused" in [e["event"] for e in verdict.events]) is confused


# --- 2.9 pursuit: straight toward a retreating enemy the pursuer can see ------------------------


@pytest.mark.parametrize("kind", ["hill", "village"])
def test_a_pursuit_needs_sight_of_the_retreating_enemy(kind):
    # E1 has retreated to x 59..61. A hill (or a village) x 53..57 between F (front edge 51) and
    # E1 blocks sight (neither stands on or in it) but not the way on the ground: F cannot see E,
    # so it cannot pursue it (2.9); it stands or falls back instead.
    doc = scenario(
        [line_of_flyers("F", 50, 54), enemy("E", 60, 54)],
        [terrain("h", kind, 53, 40, 57, 70)],
        phase="combat",
    )
    verdict = judge(
        doc, {"unit": "F", "type": "pursuit", "declarations": {"charge_targets": ["E"]}}
    )
    assert not verdict.legal
    assert any("cannot see" in text for _, _, text in failed_rules(verdict))


# --- 0 dice entered by the user: one D6 per hit, and the message counts what is missing --------


def test_a_drive_back_with_a_die_missing_says_one_more_is_needed():
    # 3 hits: 3D6 (2.9). Two values entered: one more is needed, not three.
    doc = scenario([line_of_flyers("F", 100, 54), enemy("S", 120, 54)], phase="shooting")
    move = {
        "unit": "F",
        "type": "drive-back",
        "dice": [3, 4],
        "declarations": {"shooter": "S1", "hits": 3},
    }
    with pytest.raises(InvalidInput) as err:
        judge(doc, move)
    assert err.value.field == "dice"
    assert "needs 1 more die value" in str(err.value)


@pytest.mark.parametrize("cx, legal", [(32.0000005, True), (32.000002, False)])
def test_within_20_cm_allows_the_1e_6_tolerance_and_no_more(cx, legal):
    # Section 0: "within D" is distance <= D + 1e-6. C (rect, x cx - 1 .. cx + 1) is cx - 12 cm
    # from F's front edge x = 11: 20.0000005 is within 20, 20.000002 is not.
    doc = scenario([line_of_flyers("F", 10, 54), character("C", cx, 54, rect=True)])
    end = {m: {"x": 10, "y": y} for m, y in (("F1", 40), ("F2", 44), ("F3", 48))}
    move = {"unit": "F", "type": "order-move", "dice": [3, 3], "end": end}
    verdict = judge(doc, {**move, "declarations": {"ordered_by": "C"}})
    assert verdict.legal is legal, failed_rules(verdict)


def test_an_order_charge_at_a_lone_enemy_character_is_refused_for_its_target():
    """RULES.md 2.9 (an umpire's review): a unit can never charge a character. Flying into
    touch with a lone enemy General displaces it, but declared as the charge's target it is
    refused for that reason, not for failing to touch it."""
    doc = scenario(
        [
            line_of_flyers("F", 20, 60),
            character("G", 30, 80),
            character("X", 40, 60, army="blue"),
        ]
    )
    charge = {
        "unit": "F",
        "type": "order-charge",
        "declarations": {"ordered_by": "G", "charge_targets": ["X"]},
        "dice": [3, 3],
        "end": {"F1": {"x": 38, "y": 56}, "F2": {"x": 38, "y": 60}, "F3": {"x": 38, "y": 64}},
    }
    verdict = judge(doc, charge)
    reasons = [text for _, _, text in failed_rules(verdict)]
    assert not verdict.legal
    assert any("never charge a character" in text for text in reasons), reasons
    assert not any("must end touching X" in text for text in reasons), reasons
    # the refused move moves nothing: X is not displaced, let alone slain (battle over)
    assert not [e for e in verdict.events if e["event"] in ("slain", "character-displaced")]
