"""Umpire's audit (4 December) of RULES.md 2.1-2.5, 2.8 and the Command-phase and character parts
of 2.9: cases worked by hand from RULES.md, then run through the engine.

Geometry (cm, y grows downwards, facing 0 = +x). `line_of_flyers("F", x, y)` is three 4 x 2 cm
stands facing +x centred at (x, y - 4), (x, y), (x, y + 4): it spans x - 1 .. x + 1 and
y - 6 .. y + 6, its front edge is x + 1. A rect character or `enemy` stand centred at (cx, cy)
spans cx - 1 .. cx + 1, cy - 2 .. cy + 2; a round character of 20 mm has radius 1 cm.
"""

import math

import pytest

from rules import Move, Situation, adjudicate
from rules.warmaster.terrain import unit_sees

from .builders import (
    character,
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

LINE = (("F1", -4), ("F2", 0), ("F3", 4))


def line_at(x, y, facing=0):
    """End poses of the line F with its middle stand at (x, y)."""
    return {m: {"x": x, "y": y + dy, "facing": facing} for m, dy in LINE}


def order(end, dice=(3, 3), move_type="order-move", unit="F", by="C", **declarations):
    return {
        "unit": unit,
        "type": move_type,
        "dice": list(dice),
        "end": end,
        "declarations": {"ordered_by": by, **declarations},
    }


def hero(unit_id, x, y, army="red", command=8, state=None):
    """A rect Hero (no GENERAL keyword), centred at (x, y)."""
    return {
        "id": unit_id,
        "army": army,
        "name": unit_id,
        "keywords": ["CHARACTER", "HERO"],
        "state": {"command": command, **(state or {})},
        "models": [{"id": f"{unit_id}1", "base": {"rect": [40, 20]}, "x": x, "y": y}],
    }


def then(verdict, move_doc):
    """Judge the next move of the phase on the table the previous one left."""
    assert verdict.legal, failed_rules(verdict)
    situation = verdict.after
    return adjudicate(situation, Move.from_document(move_doc, situation.system))


def events(verdict, name):
    return [e for e in verdict.events if e["event"] == name]


# -- 2.1 distance moved: the furthest-moving corner ------------------------------------------------


@pytest.mark.parametrize(
    "shift, legal",
    [
        # One stand F1 at (10, 54) facing 0 hops T cm along +x and turns to facing 90. Its corners
        # (depth 2 along x, frontage 4 along y) sit at (+-1, +-2) from the centre; turned 90 they
        # go to (-fy, fx), so corner (fx, fy) moves (T - fy - fx, fx - fy): the four moves are
        # (T+1, 3), (T-3, -1), (T-1, -3), (T+3, 1). The longest is sqrt((T+3)^2 + 1):
        (96.0, True),  # sqrt(99^2 + 1) = 99.005 cm <= 100 although the centre moved 96
        (97.0, False),  # sqrt(100^2 + 1) = 100.005 cm > 100, although the centre moved only 97
    ],
)
def test_a_turn_during_an_order_move_counts_the_furthest_corner(shift, legal):
    doc = scenario([flyers("F", [stand("F1", 10, 54)]), character("C", 20, 40, rect=True)])
    end = {"F1": {"x": 10 + shift, "y": 54, "facing": 90}}
    verdict = judge(doc, order(end))
    assert verdict.legal is legal, failed_rules(verdict)
    assert verdict.models["F1"]["distance_moved"] == pytest.approx(math.hypot(shift + 3, 1), 1e-4)


@pytest.mark.parametrize(
    "stagger, limit",
    [
        (0.05, 100.0),  # F3 0.05 cm ahead: hand-placed stands within 0.1 cm still form a line
        (0.5, 10.0),  # 0.5 cm ahead: not a line (fronts not level), so irregular: half pace
    ],
)
def test_a_line_with_one_stand_pushed_forward_is_irregular_beyond_the_slack(stagger, limit):
    # F2 spans y 52..56 and F3 y 56..60, so they still touch along y = 56 (2.1: a unit).
    unit = line_of_flyers("F", 10, 54)
    unit["models"][2]["x"] = 10 + stagger
    doc = scenario([unit, character("C", 20, 40, rect=True)])
    end = {"F1": {"x": 20, "y": 50}, "F2": {"x": 20, "y": 54}, "F3": {"x": 20 + stagger, "y": 58}}
    verdict = judge(doc, order(end))  # each stand moves 10 cm
    assert verdict.legal, failed_rules(verdict)
    assert verdict.move["max_distance"] == limit
    further = {m: {"x": p["x"] + 0.01, "y": p["y"]} for m, p in end.items()}  # 10.01 cm
    assert judge(doc, order(further)).legal is (limit == 100.0)


# -- 2.2 where a flyer may end ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "wood_x0, legal",
    [
        (41.0, True),  # the wood starts at x 41, exactly F's new front edge: touching it is fine
        (40.999, False),  # 0.001 cm under F (0.012 cm2 of each stand): over the wood
    ],
)
def test_a_flyer_may_end_touching_a_wood_but_not_over_it(wood_x0, legal):
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 20, 30, rect=True)],
        [terrain("W", "woods", wood_x0, 40, 60, 70)],
    )
    verdict = judge(doc, order(line_at(40, 54)))  # F spans x 39..41
    assert verdict.legal is legal, failed_rules(verdict)


@pytest.mark.parametrize(
    "cx, legal",
    [
        (49.0, True),  # a round flying Hero (r = 1) centred 1 cm from the wood (x 50..): touching
        (49.01, False),  # 0.01 cm of its circle over the wood
    ],
)
def test_a_round_flying_character_may_end_exactly_touching_a_wood(cx, legal):
    doc = scenario(
        [character("H", 10, 54, flying=True), line_of_flyers("F", 100, 100)],
        [terrain("W", "woods", 50, 40, 70, 80)],
    )
    verdict = judge(doc, {"unit": "H", "type": "character-move", "end": {"H1": {"x": cx, "y": 60}}})
    assert verdict.legal is legal, failed_rules(verdict)


# -- 2.3 sight and initiative ----------------------------------------------------------------------

# F at x 40 spans x 39..41, y 48..60; its front corners are on the line x = 41. B behind it at
# x 28 spans x 27..29 (10 cm behind); A ahead at x 57 spans x 56..58 (15 cm ahead).


def _front_and_back(all_round=False):
    unit = line_of_flyers("F", 40, 54)
    if all_round:
        unit["keywords"].append("ALL-ROUND-SIGHT")
    return scenario([unit, enemy("A", 57, 52), enemy("B", 28, 52)])


def _charge_a():
    # F flies 15 cm to x 55 (spans 54..56): its front edge touches A's at x 56.
    return {"unit": "F", "type": "initiative-charge", "end": line_at(55, 54)}


def test_initiative_passes_over_a_nearer_enemy_behind_the_front_corners():
    verdict = judge(_front_and_back(), _charge_a())
    assert verdict.legal, failed_rules(verdict)
    assert verdict.move["target"] == "A"
    closest = next(f for f in verdict.findings if f.measured is not None)
    assert closest.measured == pytest.approx(15.0)


def test_with_all_round_sight_the_enemy_behind_is_the_only_initiative_target():
    # B, 10 cm behind, is now seen and is closer than A (15 cm): charging A is refused.
    verdict = judge(_front_and_back(all_round=True), _charge_a())
    assert not verdict.legal
    assert verdict.move["target"] == "B"


@pytest.mark.parametrize(
    "ex, seen",
    [
        (42.0, True),  # target spans x 41..43: wholly in front of the line x = 41 (touching it)
        (40.5, True),  # spans x 39.5..41.5: the half ahead of the line is seen
        (40.0, False),  # spans x 39..41: wholly behind the line (its front edge on it)
    ],
)
def test_a_stand_sees_what_lies_ahead_of_its_front_corners(ex, seen):
    # The target is beside F (y 20..24, F spans y 48..60), so only the arc decides.
    situation = Situation.from_document(scenario([line_of_flyers("F", 40, 54), enemy("E", ex, 20)]))
    assert unit_sees(situation, situation.unit("F"), situation.unit("E")) is seen


def test_initiative_measures_to_the_enemy_unit_not_its_joined_character():
    # Enemy unit E at x 64 spans 63..65: 22 cm from F's front (41). Its joined General J (round,
    # r = 1) at (46, 54) is 4 cm away: characters are not units, so the closest visible enemy
    # unit is 22 cm away and initiative is refused.
    doc = scenario(
        [
            line_of_flyers("F", 40, 54),
            enemy("E", 64, 52),
            character("J", 46, 54, army="blue", state={"joined": "E"}),
        ]
    )
    verdict = judge(doc, {"unit": "F", "type": "initiative-charge", "end": line_at(62, 54)})
    assert not verdict.legal
    closest = next(f for f in verdict.findings if f.measured is not None)
    assert closest.measured == pytest.approx(22.0) and closest.limit == 20.0


# -- 2.3 / 2.9 orders ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "village_x1, dice, legal",
    [
        # C: Command 9 (rect at (15, 40), 6.7 cm from F). Enemy E at x 30 (29..31): 18 cm from
        # F's front (11), -1. The village x 0..village_x1 beside F's rear edge (x 9):
        (9.0, (4, 4), True),  # only touching F: not in dense terrain, need 9 - 1 = 8: 8 passes
        (9.001, (4, 4), False),  # 0.001 cm under F: -1 more, need 7: 8 fails, 30 cm is too far
        (9.001, (4, 3), True),  # 7 <= 7 passes
    ],
)
def test_an_order_roll_against_the_village_edge_and_a_near_enemy(village_x1, dice, legal):
    doc = scenario(
        [line_of_flyers("F", 10, 54), character("C", 15, 40, rect=True), enemy("E", 30, 52)],
        [terrain("V", "village", 0, 40, village_x1, 70)],
    )
    verdict = judge(doc, order(line_at(10, 84), dice=dice))  # 30 cm down the table
    assert verdict.legal is legal, failed_rules(verdict)
    roll = next(f for f in verdict.findings if f.text.startswith("The order roll"))
    assert roll.text.endswith("The order is passed." if legal else "The order fails.")


def test_a_joined_enemy_character_within_20_cm_costs_no_order_penalty():
    # Enemy unit E at x 38 (37..39): 26 cm from F's front. Its joined Hero J at (15, 70), round
    # r = 1: 10 cm below F (y 60 -> 69). Command 9 with no penalty: 5 + 4 = 9 passes.
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 15, 40, rect=True),
            enemy("E", 38, 52),
            character("J", 15, 70, army="blue", state={"joined": "E"}),
        ]
    )
    verdict = judge(doc, order(line_at(10, 24), dice=(5, 4)))
    assert verdict.legal, failed_rules(verdict)
    roll = next(f for f in verdict.findings if f.text.startswith("The order roll"))
    assert "no modifiers" in roll.text and roll.limit == 9


def test_a_heros_failed_order_leaves_the_general_free_to_order():
    # Hero H (Command 8, rect at (15, 40)) fails G's order 5 + 4 = 9 > 8: G may move 10 cm; the
    # Hero's orders are over. The General C (Command 9, rect at (15, 90), 6.7 cm from K) then
    # orders K (line at x 10, y 96 centre: spans y 90..102) with 3 + 3: passed. The Hero trying
    # again with K is refused.
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            line_of_flyers("K", 10, 96),
            hero("H", 15, 40),
            character("C", 15, 84, rect=True),
        ]
    )
    doc["units"][1]["models"] = [stand(f"K{i + 1}", 10, 92 + 4 * i) for i in range(3)]
    failed = judge(doc, order(line_at(20, 54), dice=(5, 4), by="H"))  # 10 cm
    assert failed.legal, failed_rules(failed)
    assert events(failed, "order-failed")[0]["by"] == "H"
    k_end = {f"K{i + 1}": {"x": 40, "y": 92 + 4 * i} for i in range(3)}
    general = then(failed, order(k_end, unit="K", by="C"))
    assert general.legal, failed_rules(general)
    hero_again = adjudicate(
        failed.after, Move.from_document(order(k_end, unit="K", by="H"), failed.after.system)
    )
    assert not hero_again.legal
    assert any("failed an order" in t for _, _, t in failed_rules(hero_again))


def test_an_order_move_leaves_a_joined_character_where_it_stands():
    # 2.9: joined characters never move with their unit in the Command phase.
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 15, 40, rect=True),
            character("J", 10, 61, state={"joined": "F"}),
        ]
    )
    verdict = judge(doc, order(line_at(60, 54)))
    assert verdict.legal, failed_rules(verdict)
    j = verdict.after.unit("J").models[0]
    assert (j.x, j.y) == (10, 61)


# -- 2.9 the order of the sub-phases ---------------------------------------------------------------


def test_a_home_back_after_another_units_initiative_is_in_order():
    # Initiative comes before home back (2.3), so a unit that used initiative does not stop
    # another unit homing back. F: 50 cm from C (rect at (62, 54), x 61..63); roll 3 -> 30 cm.
    doc = scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C", 62, 54, rect=True),
            line_of_flyers("I", 120, 20, state={"initiative_moved": True}),
        ]
    )
    move = {"unit": "F", "type": "home-back", "dice": [3], "declarations": {"home_back_to": "C"}}
    verdict = judge(doc, {**move, "end": line_at(40, 54)})
    assert verdict.legal, failed_rules(verdict)


# -- 2.4 home back ---------------------------------------------------------------------------------

HOME = {"unit": "F", "type": "home-back", "declarations": {"home_back_to": "C2"}}


def _two_characters():
    # F spans x 9..11, y 48..60. C1 (rect at (10, 16), y 14..18) is 30 cm above F: the nearest,
    # so F is more than 20 cm from every character and may home back. C2 (rect at (62, 54),
    # x 61..63) is 50 cm ahead.
    return scenario(
        [
            line_of_flyers("F", 10, 54),
            character("C1", 10, 16, rect=True),
            character("C2", 62, 54, rect=True),
        ]
    )


def test_home_back_may_go_to_a_character_further_than_the_nearest():
    # Roll 6: 60 cm > the 50 cm gap to C2, so the unit flies straight at C2 into touch: every
    # stand 50 cm along +x, ending at x 60 (front edge 61 on C2's rear edge), in line.
    move = {**HOME, "dice": [6]}
    placed = suggested(_two_characters(), move)
    ends = {m: (p.x, p.y) for m, p in placed.end.items()}
    for m, xy in {"F1": (60, 50), "F2": (60, 54), "F3": (60, 58)}.items():
        assert ends[m] == pytest.approx(xy)
    verdict = judge(_two_characters(), {**move, "end": line_at(60, 54)})
    assert verdict.legal, failed_rules(verdict)
    assert events(verdict, "may-be-ordered")


@pytest.mark.parametrize(
    "x, legal",
    [
        (59.95, True),  # 0.05 cm short of touch: within PLACEMENT_TOLERANCE (0.1 cm)
        (59.85, False),  # 0.15 cm short: the unit could have gone further
    ],
)
def test_a_hand_placed_home_back_short_of_touch(x, legal):
    verdict = judge(_two_characters(), {**HOME, "dice": [6], "end": line_at(x, 54)})
    assert verdict.legal is legal, failed_rules(verdict)


def test_a_roll_equal_to_the_gap_flies_the_full_roll_and_so_touches():
    # C2 rect at (42, 54): gap 41 - 11 = 30. Roll 3 = 30 cm is not more than the gap: the full
    # roll, which is exactly into touch (front edge 41).
    doc = scenario([line_of_flyers("F", 10, 54), character("C2", 42, 54, rect=True)])
    move = {**HOME, "dice": [3]}
    placed = suggested(doc, move)
    assert placed.end["F2"].x == pytest.approx(40.0)
    verdict = judge(doc, {**move, "end": line_at(40, 54)})
    assert verdict.legal, failed_rules(verdict)
    flight = next(f for f in verdict.findings if f.text.startswith("The roll"))
    assert "not more than the gap" in flight.text and flight.measured == pytest.approx(0.0)


# F line at x 20 (stands (20, 56), (20, 60), (20, 64); spans x 19..21, y 54..66). C round (r = 1)
# at (60, 90). The stand nearest C is F3, whose corner (21, 66) is the closest point: the line to
# C's centre is (39, 24), 45.793 cm long, so the gap is 44.793 and the flight direction is
# (0.85166, 0.52410). Roll 2: 20 cm < gap, the full roll: every stand moves (17.0332, 10.4820).
DIAG = (17.0332, 10.4820)


def _diagonal():
    unit = flyers("F", [stand(f"F{i + 1}", 20, 56 + 4 * i) for i in range(3)])
    return scenario([unit, character("C", 60, 90)])


def _diag_end(aside=0.0):
    # `aside`: pushed this far across the flight line, toward +x/-y (the normal (0.5241, -0.8517))
    ax, ay = 0.52410 * aside, -0.85166 * aside
    return {f"F{i + 1}": {"x": 20 + DIAG[0] + ax, "y": 56 + 4 * i + DIAG[1] + ay} for i in range(3)}


def test_home_back_flies_straight_along_the_line_to_the_character():
    move = {"unit": "F", "type": "home-back", "dice": [2], "declarations": {"home_back_to": "C"}}
    placed = suggested(_diagonal(), move)
    for m, p in _diag_end().items():
        assert (placed.end[m].x, placed.end[m].y) == pytest.approx((p["x"], p["y"]), abs=1e-3)
    verdict = judge(_diagonal(), {**move, "end": _diag_end()})
    assert verdict.legal, failed_rules(verdict)
    assert verdict.models["F3"]["distance_moved"] == pytest.approx(20.0, abs=1e-3)
    off_line = judge(_diagonal(), {**move, "end": _diag_end(aside=0.2)})  # 0.2 cm off the line
    assert not off_line.legal
    assert any("straight" in t for _, _, t in failed_rules(off_line))


# -- 2.8 / 2.9 characters --------------------------------------------------------------------------


def _displacement_table():
    # Blue General G (round, r = 1) at (100, 60) and blue stand B1 at (105, 60) facing 180
    # (x 104..106, y 58..62): a 3 cm gap. Red flyers F (one stand) hop to (102, 60), x 101..103:
    # touching G at x 101, and 1 cm short of B1.
    units = [
        flyers("F", [stand("F1", 80, 60)]),
        character("C", 70, 60, command=10),
        character("G", 100, 60, army="blue"),
        flyers("B", [stand("B1", 105, 60, 180)], army="blue", keywords=("INFANTRY",)),
    ]
    return scenario(units)


def test_a_displaced_enemy_general_goes_round_the_flyers_that_touched_it():
    # G must join B within 30 cm, clear of the flyers' end stand (not on it, not touching it).
    # The 1 cm slot between F1 and B1 is narrower than G (2 cm across), so G goes round F1's
    # corner (103, 58): its centre on the ring 1 cm round B1's corner (104, 58), more than 1 cm
    # from (103, 58): (104 - a, 58 - sqrt(1 - a^2)) with a < 0.5, the nearest to (100, 60) at
    # a -> 0.5: (103.5, 57.134) (or its mirror (103.5, 62.866)), sqrt(3.5^2 + 2.866^2) = 4.524
    # cm away.
    verdict = judge(_displacement_table(), order({"F1": {"x": 102, "y": 60}}))
    assert verdict.legal, failed_rules(verdict)
    (moved,) = events(verdict, "character-displaced")
    assert moved["distance"] == pytest.approx(4.524, abs=2e-3)
    assert moved["to"]["x"] == pytest.approx(103.5, abs=2e-3)
    assert abs(moved["to"]["y"] - 60) == pytest.approx(2.866, abs=2e-3)
    g = verdict.after.unit("G").models[0]
    f1 = verdict.after.unit("F").models[0]
    assert f1.footprint.distance(g.footprint) > 0


@pytest.mark.parametrize(
    "gap, displaced",
    [
        (0.0, True),  # F1's front edge on G's circle: touching, G is displaced
        (0.001, False),  # 0.001 cm short of G's circle: not touching (RULES.md 0), G stays
    ],
)
def test_a_lone_enemy_character_is_touched_only_by_its_true_circle(gap, displaced):
    # G (round, r = 1) at (100, 60), B1 far off at (105, 90). F1 hops to x = 98 - gap, so its
    # front edge is at 99 - gap: G's circle reaches x 99 on the line y = 60 (where the polygon
    # drawn round the circle pokes out furthest).
    doc = _displacement_table()
    doc["units"][3]["models"][0]["y"] = 90
    verdict = judge(doc, order({"F1": {"x": 98 - gap, "y": 60}}))
    assert verdict.legal, failed_rules(verdict)
    assert bool(events(verdict, "character-displaced")) is displaced


def test_flyers_ending_exactly_touching_their_own_character_do_not_move_it():
    # C (round, r = 1) at (70, 60); F1 hops to (72, 60): x 71..73, touching C's circle at x 71.
    # Nothing to move aside: a friendly character is moved only when a stand ends on it.
    verdict = judge(_displacement_table(), order({"F1": {"x": 72, "y": 60}}))
    assert verdict.legal, failed_rules(verdict)
    assert not events(verdict, "character-moved-aside")
    on_it = judge(_displacement_table(), order({"F1": {"x": 71.9, "y": 60}}))  # 0.1 cm on C
    assert on_it.legal and events(on_it, "character-moved-aside")


def test_an_order_move_may_end_touching_a_joined_enemy_character():
    # G joined to B (B1 far off at (105, 90)): not a lone character, and characters are not
    # units, so ending touching G is neither a contact with the enemy nor a displacement.
    doc = _displacement_table()
    doc["units"][3]["models"][0]["y"] = 90
    doc["units"][2]["state"]["joined"] = "B"
    verdict = judge(doc, order({"F1": {"x": 98, "y": 60}}))
    assert verdict.legal, failed_rules(verdict)
    assert not events(verdict, "character-displaced") and not events(verdict, "slain")


# -- 2.4 home back: what it flies over and where it may not land -----------------------------------

# F line at x 10 (x 9..11, y 48..60), C rect at (62, 54) (x 61..63, y 52..56): 50 cm ahead. Each
# stand is 50 cm from C (F1's corner (11, 52) to C's corner (61, 52)): F1, the first listed, is
# placed first, flying straight along +x.
HOME_C = {"unit": "F", "type": "home-back", "declarations": {"home_back_to": "C"}}


def _home_table(*others):
    return scenario([line_of_flyers("F", 10, 54), character("C", 62, 54, rect=True), *others])


def test_home_back_flies_over_an_enemy_unit_in_the_way():
    # Roll 3: 30 cm, F lands at x 39..41. Enemy E at x 25 (24..26, y 52..56) lies under the
    # flight, not under the landing: only the end position counts (2.5 hopping).
    doc = _home_table(enemy("E", 25, 54))
    verdict = judge(doc, {**HOME_C, "dice": [3], "end": line_at(40, 54)})
    assert verdict.legal, failed_rules(verdict)


@pytest.mark.parametrize(
    "x, legal",
    [
        (39.45, True),  # 0.05 cm short of the furthest spot (39.499): within the tolerance
        (39.3, False),  # 0.2 cm short: it could have landed nearer C
        (39.6, False),  # front edge 40.6, on E (x 40.5..): landing on an enemy stand
    ],
)
def test_home_back_lands_short_of_an_enemy_where_it_would_land(x, legal):
    # Roll 3: 30 cm would put F at x 39..41. Enemy E at (41.5, 54) spans x 40.5..42.5, y 52..56:
    # F1 (y 48..52) and F2 (y 52..56) would touch or cover it, and no stand may end touching an
    # enemy stand. So F goes as far as it can: front edge just short of x 40.5, centre 39.499.
    doc = _home_table(enemy("E", 41.5, 54))
    move = {**HOME_C, "dice": [3]}
    placed = suggested(doc, move)
    assert placed.end["F1"].x == pytest.approx(39.5, abs=2e-3)
    assert placed.end["F1"].x < 39.5
    verdict = judge(doc, {**move, "end": line_at(x, 54)})
    assert verdict.legal is legal, failed_rules(verdict)


def test_home_back_into_touch_places_a_stand_off_an_enemy_beside_the_character():
    # Roll 6: 60 cm > 50, into touch: F1 to (60, 50), F2 to (60, 54). In line F3 would go to
    # (60, 58), x 59..61, y 56..60, touching enemy E at (60, 62) (x 59..61, y 60..64). F3 goes
    # instead to the nearest spot touching a placed stand and clear of E: on the left side of
    # F2's ring of touching centres (x = 58), just above y = 58 (where F3's corner would meet
    # E's), 2.0 cm from its place in line. (The right side, x = 62, puts F3 on C.)
    doc = _home_table(enemy("E", 60, 62))
    move = {**HOME_C, "dice": [6]}
    placed = suggested(doc, move)
    assert (placed.end["F1"].x, placed.end["F1"].y) == pytest.approx((60, 50))
    assert (placed.end["F2"].x, placed.end["F2"].y) == pytest.approx((60, 54))
    assert (placed.end["F3"].x, placed.end["F3"].y) == pytest.approx((58, 58), abs=2e-3)
    assert placed.end["F3"].y < 58
    by_hand = {**line_at(60, 54), "F3": {"x": 58, "y": 57.9}}
    assert judge(doc, {**move, "end": by_hand}).legal
    in_line = judge(doc, {**move, "end": line_at(60, 54)})
    assert not in_line.legal
    assert any("touching enemy" in t for _, _, t in failed_rules(in_line))


# -- 2.5 / 2.9 a character's own move among other characters ---------------------------------------

# Flying Hero H (round, r = 1) at (10, 54); friendly General K (round, r = 1) at (40, 54); lone
# enemy General G (round, r = 1) at (60, 54).


def _characters_table():
    return scenario(
        [
            character("H", 10, 54, flying=True),
            character("K", 40, 54),
            line_of_flyers("F", 100, 100),
            character("G", 60, 54, army="blue"),
            enemy("B", 150, 20),
        ]
    )


def _hop(x):
    return {"unit": "H", "type": "character-move", "end": {"H1": {"x": x, "y": 54}}}


def test_a_character_may_end_on_its_own_general_who_is_moved_aside():
    # 2.9: any friendly move may end on a friendly character; its owner moves it the least
    # distance needed. H lands at (40.5, 54), 0.5 cm from K's centre: K goes 1.5 cm back, to
    # (38.5, 54), where the two circles touch (centres 2 cm apart).
    verdict = judge(_characters_table(), _hop(40.5))
    assert verdict.legal, failed_rules(verdict)
    (aside,) = events(verdict, "character-moved-aside")
    assert aside["unit"] == "K" and aside["distance"] == pytest.approx(1.5, abs=5e-3)
    k, h = verdict.after.unit("K").models[0], verdict.after.unit("H").models[0]
    assert math.hypot(k.x - h.x, k.y - h.y) >= 2 - 1e-6


@pytest.mark.parametrize(
    "x, legal",
    [
        (57.9, True),  # circles 0.1 cm apart: clear of the enemy General
        (58.0, False),  # circles touching: a character never moves into touch with the enemy
        (59.0, False),  # on top of G
    ],
)
def test_a_character_may_not_end_touching_or_on_an_enemy_character(x, legal):
    verdict = judge(_characters_table(), _hop(x))
    assert verdict.legal is legal, failed_rules(verdict)
    assert not events(verdict, "character-displaced")


# -- end to end: home back, then orders (RULES.md 3, worked example 4) -----------------------------


@pytest.mark.parametrize("confused", [False, True])
def test_a_unit_that_homed_back_into_touch_is_then_ordered_unless_confused(confused):
    # As test_home_back_may_go_to_a_character_further_than_the_nearest: roll 6 takes F into touch
    # with C2 (F at x 59..61). Then C2 (Command 9, no penalties) orders it 3 + 3 = 6: passed, F
    # flies 40 cm back to x 20. A confused F homes back just the same but takes no order.
    doc = _two_characters()
    if confused:
        doc["units"][0]["state"]["confused"] = True
    homed = judge(doc, {**HOME, "dice": [6], "end": line_at(60, 54)})
    assert bool(events(homed, "may-be-ordered")) is not confused
    ordered = then(homed, order(line_at(20, 54), by="C2"))
    assert ordered.legal is not confused, failed_rules(ordered)


# -- 2.5 a column's charge -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gap, legal",
    [
        (0.0, True),  # enemy front at x 72: the column flies exactly 60 cm into touch
        (0.001, False),  # 60.001 cm: beyond a flyer's 60 cm charge
    ],
)
def test_a_column_of_flyers_charges_exactly_60_cm(gap, legal):
    # Three cavalry-sized stands (2 cm frontage, 4 cm deep) facing +x in a column at x 10, 6, 2
    # (lead x 8..12, y 53..55). C rect at (10, 40) is 11 cm away. Enemy E at (73 + gap, 54),
    # x 72 + gap .. 74 + gap. Every stand moves 60 + gap cm along +x.
    column = flyers("F", [stand(f"F{i + 1}", 10 - 4 * i, 54, 0, [20, 40]) for i in range(3)])
    doc = scenario([column, character("C", 10, 40, rect=True), enemy("E", 73 + gap, 54)])
    end = {f"F{i + 1}": {"x": 70 + gap - 4 * i, "y": 54} for i in range(3)}
    verdict = judge(doc, order(end, move_type="order-charge", charge_targets=["E"]))
    assert verdict.legal is legal, failed_rules(verdict)
    assert verdict.move["max_distance"] == 60.0


# -- 2.2 / 2.3 a hill hides the enemy from initiative ----------------------------------------------


@pytest.mark.parametrize(
    "ex, legal",
    [
        (57.0, False),  # E (x 56..58) beyond the hill x 45..50: neither stands on it, hidden
        (48.0, True),  # E on the hill (centre inside): seen, 6 cm away, charged at x 47
    ],
)
def test_a_hill_between_hides_the_enemy_from_initiative(ex, legal):
    doc = scenario(
        [line_of_flyers("F", 40, 54), enemy("E", ex, 52)], [terrain("H", "hill", 45, 40, 50, 70)]
    )
    end = line_at(ex - 2, 54)  # front edge on E's rear edge
    verdict = judge(doc, {"unit": "F", "type": "initiative-charge", "end": end})
    assert verdict.legal is legal, failed_rules(verdict)
    if not legal:
        assert any("can see no enemy" in t for _, _, t in failed_rules(verdict))


# -- 2.8: a character that joined a unit in combat stays with it --------------------------------


@pytest.mark.parametrize(
    "enemy_x, in_combat_flag, legal",
    [
        # the line F spans x 99..101, y 94..106; the joined Hero H stands behind it at (97, 100).
        (102, False, False),  # enemy stand E1 (x 101..103) touches F's front edge: F fights
        (103, False, True),  # E1 1 cm away: F is not in combat, H may fly off
        (150, True, False),  # F marked in combat (its enemy already removed this phase)
    ],
)
def test_a_character_joined_to_a_unit_in_combat_cannot_fly_off(enemy_x, in_combat_flag, legal):
    # 2.8: a flying character that joined a unit in combat stays with it as it fights; only a
    # retreat, fall back, pursuit or advance into terrain it cannot enter makes it leave (its
    # escape). Its own Command-phase move away from the fight is refused.
    unit_state = {"in_combat": True} if in_combat_flag else None
    doc = scenario(
        [
            line_of_flyers("F", 100, 100, state=unit_state),
            character("H", 97, 100, flying=True, state={"joined": "F"}),
            enemy("E", enemy_x, 100),
        ]
    )
    verdict = judge(doc, {"unit": "H", "type": "character-move", "end": {"H1": {"x": 60, "y": 60}}})
    assert verdict.legal is legal, failed_rules(verdict)
    assert [f.stage for f in verdict.failures] == ([] if legal else ["eligible-if"])
