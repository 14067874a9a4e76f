"""An umpire's audit of RULES.md sections 0 and 1.1-1.4, 4 December: measuring with round, oval
and hull bases, engagement and coherency, moving (paths through friends and enemies, the table
edge, turning), and the move types (normal, advance, fall back, the 11th-edition charge).

Every position, distance and verdict below is worked out by hand from RULES.md before the engine
was run. Bases: a 32 mm round base has radius 16 / 25.4 = 0.630" (R32); a 75 x 25 mm oval is
2.953" long and 0.984" wide (half: 1.476" x 0.492"); hulls are given in inches round the centre,
the model facing +x (FORMAT.md)."""

import math

import pytest

from rules import adjudicate

from .scenarios import R32, model, move, situation, unit

#: A 75 x 25 mm oval (long axis along the facing): half length 1.476", half width 0.492".
OVAL = {"oval": [75, 25]}
HALF_LENGTH, HALF_WIDTH = 37.5 / 25.4, 12.5 / 25.4
#: A 4 x 2" box hull (a small tank), centred on the model.
BOX = {"hull": [[-2, -1], [2, -1], [2, 1], [-2, 1]]}


def failures(verdict):
    return [(f.rule, f.stage) for f in verdict.failures]


# -- 0 and 1.3: "touching" is within 1e-6; anything deeper is an overlap ------------------------
@pytest.mark.parametrize(
    ("into", "legal"), [(0.0, True), (5e-7, True), (0.002, False), (0.008, False)]
)
def test_a_round_base_ending_into_a_friendly_hull_overlaps_by_any_depth_over_1e_6(into, legal):
    # A2 (the 4 x 2" box, facing 0) at (20, 10): its right edge is the line x = 22. A1 (32 mm)
    # walks from (26, 10) to (22 + 0.630 - into, 10), 3.37" of its 6". Touching (into 0, or
    # 5e-7 <= 1e-6) is allowed (RULES.md 0); 0.002" or 0.008" into the hull is an overlap, and
    # 1.3 forbids ending on another model, friend or not.
    s = situation([unit("A", "red", [model("A1", 26, 10), model("A2", 20, 10, base=BOX)])])
    v = adjudicate(s, move("A", "normal", {"A1": (22 + R32 - into, 10)}))
    assert v.legal is legal, failures(v)
    if not legal:
        assert failures(v) == [("03.01", "end-of-move")]


@pytest.mark.parametrize(("into", "legal"), [(0.0, True), (0.002, False), (0.004, False)])
def test_a_round_base_ending_against_the_end_of_a_friendly_oval_overlaps_past_1e_6(into, legal):
    # A2 (75 x 25 mm oval, facing 0) at (10, 10): its end is at x = 10 + 1.476. A1 (32 mm) ends
    # centred on the oval's axis at x = 11.476 + 0.630 - into: touching at 0, overlapping at
    # 0.002" and 0.004" (the true ellipse, RULES.md 0, not the polygon drawn round it).
    s = situation([unit("A", "red", [model("A1", 16, 10), model("A2", 10, 10, base=OVAL)])])
    v = adjudicate(s, move("A", "normal", {"A1": (10 + HALF_LENGTH + R32 - into, 10)}))
    assert v.legal is legal, failures(v)


@pytest.mark.parametrize(("into", "legal"), [(0.0, True), (0.003, False)])
def test_an_oval_ending_against_a_friendly_hull_overlaps_past_1e_6(into, legal):
    # A2 (the box) at (20, 10), left edge x = 18. A1 (oval, facing 0) moves from (12, 10) to end
    # with its tip at x = 18 + into: centre 18 - 1.476 + into.
    s = situation(
        [unit("A", "red", [model("A1", 12, 10, base=OVAL), model("A2", 20, 10, base=BOX)])]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (18 - HALF_LENGTH + into, 10)}))
    assert v.legal is legal, failures(v)


@pytest.mark.parametrize(("into", "legal"), [(0.0, True), (0.003, False)])
def test_two_ovals_side_by_side_overlap_past_1e_6(into, legal):
    # A2 (oval, facing 0) at (10, 10); A1 (oval, facing 0) ends straight below it, side to side:
    # centres 2 x 0.492 = 0.984" apart touch; 0.003" closer overlaps.
    s = situation(
        [unit("A", "red", [model("A1", 10, 14, base=OVAL), model("A2", 10, 10, base=OVAL)])]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (10, 10 + 2 * HALF_WIDTH - into)}))
    assert v.legal is legal, failures(v)


# -- 1.3: the swept base may touch an enemy base but not cross it -----------------------------
@pytest.mark.parametrize(("into", "legal"), [(0.0, True), (0.003, False)])
def test_an_oval_sliding_past_an_enemy_round_base_may_touch_it_but_not_cut_into_it(into, legal):
    # A1 (oval, facing 0, M 10, CAVALRY: no keyword that crosses enemies) slides along y = 10
    # from (10, 10) to (20, 10). E1 (32 mm) stands
    # at (15, 10 + 0.492 + 0.630 - into): the oval's side, 0.492" below its axis, touches E1's
    # edge as it passes (into 0) or cuts 0.003" into it. Start and end are 5" from E1's centre
    # along x: 5 - 1.476 - 0.63 = 2.89" > 2", never engaged. The straight line is given, so no
    # detour is searched.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10, base=OVAL)], move=10, keywords=("CAVALRY",)),
            unit("E", "blue", [model("E1", 15, 10 + HALF_WIDTH + R32 - into)]),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (20, 10)}, paths={"A1": [(20, 10, 0)]}))
    assert v.legal is legal, failures(v)
    if not legal:
        assert ("03.01", "while-moving") in failures(v)


@pytest.mark.parametrize(("into", "legal"), [(0.0, True), (0.003, False)])
def test_a_round_base_sliding_past_an_enemy_oval_may_touch_it_but_not_cut_into_it(into, legal):
    # The same with the roles swapped: A1 (32 mm, M 10) from (10, 10) to (20, 10) along a given
    # straight path; E1 (oval, facing 0) at (15, 10 + 0.630 + 0.492 - into).
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)], move=10),
            unit("E", "blue", [model("E1", 15, 10 + R32 + HALF_WIDTH - into, base=OVAL)]),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (20, 10)}, paths={"A1": [(20, 10, 0)]}))
    assert v.legal is legal, failures(v)


# -- 1.3: the table edge, measured to the true ellipse ----------------------------------------
@pytest.mark.parametrize(
    ("facing", "reach"),
    [
        (0, HALF_LENGTH),  # its end towards the edge: 1.476"
        (90, HALF_WIDTH),  # its side: 0.492"
        # turned 45 degrees the ellipse reaches sqrt((1.476^2 + 0.492^2) / 2) = 1.100" along x
        (45, math.sqrt((HALF_LENGTH**2 + HALF_WIDTH**2) / 2)),
    ],
)
def test_an_oval_may_end_touching_the_table_edge_but_not_0_001_inches_over_it(facing, reach):
    # A1 (oval) at (5, 10) moves left to x = reach: its base touches the left edge x = 0
    # (RULES.md 0: touching is not crossing, 1.3). At x = reach - 0.001 it crosses by 0.001".
    s = situation([unit("A", "red", [model("A1", 5, 10, base=OVAL, facing=facing)])])
    v = adjudicate(s, move("A", "normal", {"A1": (reach, 10)}))
    assert v.legal, failures(v)
    v = adjudicate(s, move("A", "normal", {"A1": (reach - 0.001, 10)}))
    assert failures(v) == [("03.01", "while-moving")]


def test_a_hull_turned_30_degrees_may_end_touching_the_table_edge_but_not_over_it():
    # The 4 x 2" box turned 30 degrees reaches 2 cos 30 + 1 sin 30 = 2.232" along x (a corner).
    s = situation([unit("A", "red", [model("A1", 5, 10, base=BOX, facing=30)])])
    reach = 2 * math.cos(math.radians(30)) + math.sin(math.radians(30))
    assert adjudicate(s, move("A", "normal", {"A1": (reach, 10)})).legal
    v = adjudicate(s, move("A", "normal", {"A1": (reach - 0.001, 10)}))
    assert failures(v) == [("03.01", "while-moving")]


@pytest.mark.parametrize(("into", "legal"), [(0.0, True), (0.003, False)])
def test_a_hull_sliding_past_an_enemy_round_base_may_touch_it_but_not_cut_into_it(into, legal):
    # A1 (the 4 x 2" box, facing 0, VEHICLE, M 12) drives along y = 10 from (10, 10) to (22, 10);
    # its lower side is the line y = 11. E1 (a 32 mm VEHICLE, which a VEHICLE may not cross) at
    # (16, 11 + 0.630 - into): touched as the box passes, or cut 0.003" into. Start and end are
    # 6" from E1 along x: 6 - 2 - 0.63 = 3.37" apart, never engaged.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10, base=BOX)], move=12, keywords=("VEHICLE",)),
            unit("E", "blue", [model("E1", 16, 11 + R32 - into)], keywords=("VEHICLE",)),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (22, 10)}, paths={"A1": [(22, 10, 0)]}))
    assert v.legal is legal, failures(v)
    if not legal:
        assert ("03.01", "while-moving") in failures(v)
