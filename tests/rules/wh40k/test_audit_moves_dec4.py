"""An umpire's audit of RULES.md sections 0 and 1.1-1.4, 4 December: measuring with round, oval
and hull bases, engagement and coherency, moving (paths through friends and enemies, the table
edge, turning), and the move types (normal, advance, fall back, the 11th-edition charge).

Every position, distance and verdict below is worked out by hand from RULES.md before the engine
was run. Bases: a 32 mm round base has radius 16 / 25.4 = 0.630" (R32); a 75 x 25 mm oval is
2.953" long and 0.984" wide (half: 1.476" x 0.492"); hulls are given in inches round the centre,
the model facing +x (FORMAT.md)."""

import math

import pytest

from rules import adjudicate, suggest
from rules.wh40k.measuring import coherency, in_engagement_range, model_distance, unit_distance
from rules.wh40k.move_types import charge_target_options

from .scenarios import R32, model, move, rect, situation, terrain, unit

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


# -- 1.1: a hull is measured to its outline, turned by its facing ------------------------------
@pytest.mark.parametrize(("facing", "gap"), [(0, 4.0), (90, 2.0), (180, 4.0), (270, 4.0)])
def test_an_off_centre_hull_turned_by_its_facing_measures_to_its_outline(facing, gap):
    # A hull from x = -1 to 3 and y = -1 to 1 round the model's centre (a gun reaching 3"
    # ahead), at (10, 10). E1 (32 mm) at (10, 15.63): its edge is the line y = 15.
    # Facing 0: the hull spans y 9..11, gap 4. Facing 90 (clockwise with y down, RULES.md 0) the
    # gun points down: y 9..13, gap 2, engaged. Facing 180: y 9..11 again, 4. Facing 270 the gun
    # points up and the 1" tail down: y 7..11, 4.
    hull = {"hull": [[-1, -1], [3, -1], [3, 1], [-1, 1]]}
    s = situation(
        [
            unit("O", "red", [model("O1", 10, 10, base=hull, facing=facing)]),
            unit("E", "blue", [model("E1", 10, 15 + R32)]),
        ]
    )
    o, e = s.model("O1"), s.model("E1")
    assert math.isclose(model_distance(o, e).horizontal, gap, abs_tol=1e-9)
    assert in_engagement_range(o, e) is (gap <= 2.0)


# -- 1.2: coherency between hulls, to the outline ---------------------------------------------
@pytest.mark.parametrize(("gap", "ok"), [(2.0, True), (2.0 + 5e-7, True), (2.001, False)])
def test_two_hulls_are_in_coherency_with_their_outlines_2_inches_apart_and_not_2_001(gap, ok):
    # A1 (the 4 x 2" box) turned to 90 spans x 9..11; A2 (facing 0) spans 4" along x. Centres
    # 1 + gap + 2 apart along x: the outlines are `gap` apart (2" within 1e-6 is within 2").
    s = situation(
        [
            unit(
                "A",
                "red",
                [
                    model("A1", 10, 10, base=BOX, facing=90),
                    model("A2", 10 + 1 + gap + 2, 10, base=BOX),
                ],
                keywords=("VEHICLE",),
            )
        ]
    )
    c = coherency(s.unit("A").models)
    assert c.ok is ok
    if not ok:
        assert c.isolated == ("A1", "A2")


# -- 1.1: the distance between two units is the least straight distance over model pairs ------
def test_a_unit_on_a_3_inch_block_is_measured_in_3d_from_the_closest_pair():
    # A1 on the ground at (10, 10); E1 on a 3" dense block 1" beyond A1's edge horizontally
    # (centres 1.26 + 1 = 2.26" apart): h 1, v 3, straight sqrt(1 + 9) = 3.162". E2 on the
    # ground 4" beyond A1's edge: straight 4". The units are 3.162" apart.
    block = terrain("B", rect(11.5, 8, 14, 12), height=3)
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit(
                "E", "blue", [model("E1", 10 + 2 * R32 + 1, 10, z=3), model("E2", 10, 14 + 2 * R32)]
            ),
        ],
        [block],
    )
    d = model_distance(s.model("A1"), s.model("E1"))
    assert math.isclose(d.horizontal, 1.0, abs_tol=1e-9) and d.vertical == 3.0
    assert math.isclose(unit_distance(s.unit("A"), s.unit("E")), math.sqrt(10), abs_tol=1e-9)


# -- 1.4 normal: ending exactly 2" from an enemy is engaged --------------------------------------
@pytest.mark.parametrize(("gap", "legal"), [(2.0, False), (2.0 + 5e-7, False), (2.001, True)])
def test_a_normal_move_ending_2_inches_from_an_enemy_ends_engaged_and_2_001_does_not(gap, legal):
    # A1 (M 10) from (10, 10) east to 20 - 1.26 - gap, E1 at (20, 10): 8.74 - gap <= 10 moved.
    s = situation(
        [unit("A", "red", [model("A1", 10, 10)], move=10), unit("E", "blue", [model("E1", 20, 10)])]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (20 - 2 * R32 - gap, 10)}))
    assert v.legal is legal
    if not legal:
        assert failures(v) == [("09.05", "after-moving")]


# -- 1.4 advance: M + D6, and no charge afterwards ---------------------------------------------
def test_an_advance_of_m_plus_the_die_exactly_is_legal_and_the_unit_cannot_then_charge():
    # M 6 + D6 6 = 12": (10, 10) to (22, 10) is 12" exactly; 22.01 is 12.01". E1 at (30, 10) is
    # 8 - 1.26 = 6.74" from A1 after the advance, within 12", but A advanced this turn.
    s = situation(
        [unit("A", "red", [model("A1", 10, 10)]), unit("E", "blue", [model("E1", 30, 10)])]
    )
    v = adjudicate(s, move("A", "advance", {"A1": (22.01, 10)}, dice=[6]))
    assert failures(v) == [("09.06", "while-moving")]
    v = adjudicate(s, move("A", "advance", {"A1": (22, 10)}, dice=[6]))
    assert v.legal and v.move["max_distance"] == 12.0
    after = v.after
    assert after.unit("A").flag("advanced_this_turn")
    charge = adjudicate(after, move("A", "charge", dice=[4, 4], charge_targets=["E"]))
    assert ("11.04", "eligible-if") in failures(charge)
    assert any("advanced this turn" in f.text for f in charge.failures)


# -- 1.4 fall back ------------------------------------------------------------------------------
def test_a_battle_shocked_vehicle_unit_falls_back_as_a_desperate_escape_without_declaring_it():
    # A (VEHICLE, battle-shocked) A1 (10, 10), A2 (10, 11.5); E1 (11.5, 10), E2 (11.5, 11.5):
    # 1.5 - 1.26 = 0.24" apart, engaged. No mode declared: battle-shocked means Desperate Escape
    # (RULES.md 1.4), so both drive 6" straight east through E's models. Owed: one hazard roll
    # per model, 3 mortal wounds on a 1-2 (every model a VEHICLE); no battle-shock roll (the
    # unit is already battle-shocked). Ends 4.5 - 1.26 = 3.24" from E: unengaged.
    s = situation(
        [
            unit(
                "A",
                "red",
                [model("A1", 10, 10), model("A2", 10, 11.5)],
                keywords=("VEHICLE",),
                state={"battle_shocked": True},
            ),
            unit("E", "blue", [model("E1", 11.5, 10), model("E2", 11.5, 11.5)]),
        ]
    )
    ends = {"A1": (16, 10), "A2": (16, 11.5)}
    paths = {"A1": [(16, 10, 0)], "A2": [(16, 11.5, 0)]}
    v = adjudicate(s, move("A", "fall-back", ends, paths=paths))
    assert v.legal, failures(v)
    assert v.move["fall_back_mode"] == "desperate-escape"
    assert [(e["event"], e.get("model"), e.get("mortal_wounds")) for e in v.events] == [
        ("hazard-roll", "A1", 3),
        ("hazard-roll", "A2", 3),
    ]
    assert {f.rule for f in v.findings if f.stage == "while-moving"} >= {"09.07"}


def test_the_fall_back_finding_says_the_unit_cannot_charge_shoot_or_start_an_action():
    # RULES.md 1.4: after a fall back the unit cannot charge, shoot or start an action this turn.
    # A1 at (10, 10) engaged with E1 at (11.5, 10) (0.24"), retreats 6" west to (4, 10).
    s = situation(
        [unit("A", "red", [model("A1", 10, 10)]), unit("E", "blue", [model("E1", 11.5, 10)])]
    )
    v = adjudicate(s, move("A", "fall-back", {"A1": (4, 10)}))
    assert v.legal, failures(v)
    (told,) = [f for f in v.findings if f.stage == "after-moving" and "this turn" in f.text]
    assert "charge" in told.text and "shoot" in told.text and "action" in told.text
    assert v.after.unit("A").flag("fell_back_this_turn")


# -- 1.4 charge -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("gap", "legal"), [(2.0, False), (2.001, True)])
def test_a_charge_ending_2_inches_from_an_enemy_it_did_not_target_fails_and_2_001_passes(
    gap, legal
):
    # A1 (10, 10) charges E1 (16, 10), 6 - 1.26 = 4.74" away, on a roll of 6, ending in base
    # contact at (14.74, 10) (4.74" moved). G1, not a target, stands `gap` below that end:
    # (14.74, 10 + 1.26 + gap). Before the move G1 is hypot(4.74, 3.26) - 1.26 = 4.49" from A1
    # (A is unengaged); the straight path passes 3.26" from G1's centre, clear. Engaged with G
    # at exactly 2" (11.04 after moving: no enemy but the targets), not at 2.001".
    end_x = 16 - 2 * R32
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("E", "blue", [model("E1", 16, 10)]),
            unit("G", "blue", [model("G1", end_x, 10 + 2 * R32 + gap)]),
        ],
        phase="charge",
    )
    v = adjudicate(s, move("A", "charge", {"A1": (end_x, 10)}, dice=[3, 3], charge_targets=["E"]))
    assert v.legal is legal, failures(v)
    if not legal:
        assert failures(v) == [("11.04", "after-moving")]


def test_a_charge_target_3_inches_up_is_measured_in_3d_on_foot_and_flat_in_the_skies():
    # E1 stands on a 3" dense block, 7.9" from A1's edge horizontally: straight sqrt(7.9^2 + 9)
    # = 8.45". Roll 4 + 4 = 8. On foot: 8.45 > 8, no target. In the skies without HOVER: the
    # charge is 8 - 2 = 6", measured flat: 7.9 > 6, no target. With HOVER: 8", 7.9 <= 8: E.
    block = terrain("B", rect(28, 8, 32, 12), height=3)

    def options(keywords, skies):
        s = situation(
            [
                unit("A", "red", [model("A1", 20, 10)], keywords=keywords),
                unit("E", "blue", [model("E1", 20 + 2 * R32 + 7.9, 10, z=3)]),
            ],
            [block],
            phase="charge",
        )
        assert math.isclose(unit_distance(s.unit("A"), s.unit("E")), math.hypot(7.9, 3))
        return charge_target_options(s, "A", [4, 4], take_to_the_skies=skies)

    assert options(("INFANTRY", "FLY", "HOVER"), False) == []
    assert options(("INFANTRY", "FLY"), True) == []
    assert options(("INFANTRY", "FLY", "HOVER"), True) == ["E"]


def test_a_charging_model_may_not_move_through_a_target_model_to_reach_the_one_behind():
    # E1 (14, 10) and E2 (16, 10) are one unit (0.74" apart). A1 at (10, 10) charges on a 6 and
    # is sent straight to base contact below E2, at (16, 11.26): the straight line passes
    # |4 x 1.26| / hypot(6, 1.26) = 0.82" from E1's centre, less than 1.26: through E1.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)]),
            unit("E", "blue", [model("E1", 14, 10), model("E2", 16, 10)]),
        ],
        phase="charge",
    )
    end = {"A1": (16, 10 + 2 * R32)}
    v = adjudicate(
        s,
        move("A", "charge", end, dice=[3, 3], charge_targets=["E"], paths={"A1": [(16, 11.26, 0)]}),
    )
    assert ("03.01", "while-moving") in failures(v)


# -- 1.4: any model moves through AIRCRAFT, but never ends on one -------------------------------
def test_a_model_may_cross_an_enemy_aircraft_but_not_end_on_it():
    # E1 (an AIRCRAFT, the 4 x 2" box) at (15, 10). A1 (M 12) at (10, 10) walks straight to
    # (20, 10) through it: 3" beyond its end (20 - 17 - 0.63 = 2.37" > 2), legal (23.02).
    # Ending at (15, 10), on top of it: an overlap (03.01) whatever the path allowed.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10)], move=12),
            unit(
                "E",
                "blue",
                [model("E1", 15, 10, base=BOX)],
                keywords=("AIRCRAFT", "VEHICLE", "FLY"),
            ),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (20, 10)}, paths={"A1": [(20, 10, 0)]}))
    assert v.legal, failures(v)
    assert any(f.rule == "23.02" for f in v.findings)
    v = adjudicate(s, move("A", "normal", {"A1": (15, 10)}, paths={"A1": [(15, 10, 0)]}))
    assert ("03.01", "end-of-move") in failures(v)
    assert ("03.01", "while-moving") not in failures(v)


@pytest.mark.parametrize(("gap", "legal"), [(1.0, True), (1.0 + 5e-7, True), (1.001, False)])
def test_an_oval_charger_ending_1_inch_from_its_target_is_within_1_and_1_001_is_not(gap, legal):
    # A1 (oval, facing 0, CAVALRY) at (10, 10) charges E1 (32 mm) at (18, 10) on a roll of 8:
    # 8 - 1.476 - 0.63 = 5.89" away, within the roll. It ends on the same line with its tip `gap`
    # from E1's edge: centre x = 18 - 0.63 - gap - 1.476 (about 4.9" moved). Engaged either way,
    # but a model that could end within 1" must (it had 3.1" to spare): 1.001" is refused.
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10, base=OVAL)], keywords=("CAVALRY",)),
            unit("E", "blue", [model("E1", 18, 10)]),
        ],
        phase="charge",
    )
    end = {"A1": (18 - R32 - gap - HALF_LENGTH, 10)}
    v = adjudicate(s, move("A", "charge", end, dice=[4, 4], charge_targets=["E"]))
    assert v.legal is legal, failures(v)
    if not legal:
        assert failures(v) == [("11.04", "while-moving")]
        assert any("could have got within 1" in f.text for f in v.failures)


def test_an_engaged_unit_cannot_declare_a_charge():
    # A1 at (10, 10), E1 at (12, 10): 2 - 1.26 = 0.74" apart, engaged (11.04 eligible-if).
    s = situation(
        [unit("A", "red", [model("A1", 10, 10)]), unit("E", "blue", [model("E1", 12, 10)])],
        phase="charge",
    )
    v = adjudicate(
        s, move("A", "charge", {"A1": (12 - 2 * R32, 10)}, dice=[3, 3], charge_targets=["E"])
    )
    assert ("11.04", "eligible-if") in failures(v)
    assert any("engaged" in f.text for f in v.failures if f.stage == "eligible-if")


def test_the_engagement_finding_measures_the_closest_enemy_beside_a_long_hull():
    # A1 walks to (10, 10). E1, a 10 x 1" hull (a long vehicle, facing 0), lies side on with its
    # edge 3" below A1's edge: its centre is 0.63 + 3 + 0.5 below A1's. G1 (32 mm) stands 1.7"
    # left of A1's edge. A ends engaged with G (1.7 <= 2), and the finding must measure 1.7"
    # against the 2" limit, not E1's 3" (E1's enclosing circle, 5.02" round its centre, comes
    # far nearer A1 than its side does).
    long_hull = {"hull": [[-5, -0.5], [5, -0.5], [5, 0.5], [-5, 0.5]]}
    s = situation(
        [
            unit("A", "red", [model("A1", 20, 30)]),
            unit(
                "E",
                "blue",
                [model("E1", 10, 10 + R32 + 3.5, base=long_hull)],
                keywords=("VEHICLE",),
            ),
            unit("G", "blue", [model("G1", 10 - 2 * R32 - 1.7, 10)]),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (10, 10)}, paths={"A1": [(10, 10, 0)]}))
    (engaged,) = [f for f in v.findings if f.stage == "after-moving"]
    assert not engaged.passed and "G" in engaged.text
    assert math.isclose(engaged.measured, 1.7, abs_tol=1e-9) and engaged.limit == 2.0


def test_a_charge_with_no_target_within_the_roll_fails_with_a_finding_not_an_input_error():
    # A1 (20, 10); E1 (25, 10) is 5 - 1.26 = 3.74" away. Roll 1 + 2 = 3: no enemy unit is within
    # 12" and within 3", so no target can be picked (charge_targets []): the charge fails and
    # the unit does not move (RULES.md 1.4). On a 4 (2 + 2) E could have been picked: picking
    # none is told so, naming E.
    s = situation(
        [unit("A", "red", [model("A1", 20, 10)]), unit("E", "blue", [model("E1", 25, 10)])],
        phase="charge",
    )
    v = adjudicate(s, move("A", "charge", {"A1": (21, 10)}, dice=[1, 2], charge_targets=[]))
    assert failures(v) == [("11.02", "before-moving")]
    assert "the charge fails" in v.failures[0].text and v.after is None
    v = adjudicate(s, move("A", "charge", {"A1": (21, 10)}, dice=[2, 2], charge_targets=[]))
    assert failures(v) == [("11.02", "before-moving")]
    assert "No charge target was picked" in v.failures[0].text and "E" in v.failures[0].text


def test_two_targets_on_either_side_that_no_placement_engages_both_fail_the_charge():
    # A1 (20, 10) between E1 (25, 10) and G1 (15, 10), each 3.74" away, roll 6: both may be
    # picked, but one 32 mm model cannot end within 2" of both (their edges are 8.74" apart).
    # The engine's own suggestion is refused for the target it cannot reach.
    s = situation(
        [
            unit("A", "red", [model("A1", 20, 10)]),
            unit("E", "blue", [model("E1", 25, 10)]),
            unit("G", "blue", [model("G1", 15, 10)]),
        ],
        phase="charge",
    )
    v = adjudicate(s, suggest(s, move("A", "charge", dice=[3, 3], charge_targets=["E", "G"])))
    assert failures(v) == [("11.04", "after-moving")]
    assert "every charge target" in v.failures[0].text


def test_a_hull_turned_on_the_spot_across_the_table_edge_is_refused_and_after_a_step_is_not():
    # A1 (the 4 x 2" box) at (1.5, 10) facing 90 spans x 0.5..2.5. Turned to 0 on the spot it
    # would span x -0.5..3.5: across the edge. Stepping to x = 2 first (0.5" moved) it spans
    # 0..4, touching the edge: legal.
    s = situation(
        [unit("A", "red", [model("A1", 1.5, 10, base=BOX, facing=90)], keywords=("VEHICLE",))]
    )
    v = adjudicate(s, move("A", "normal", {"A1": {"x": 1.5, "y": 10, "facing": 0}}))
    assert failures(v) == [("03.01", "while-moving")]
    v = adjudicate(s, move("A", "normal", {"A1": {"x": 2.0, "y": 10, "facing": 0}}))
    assert v.legal and v.models["A1"]["distance_moved"] == 0.5


@pytest.mark.parametrize(("into", "legal"), [(0.0, True), (0.003, False)])
def test_an_oval_and_a_hull_sliding_past_each_other_may_touch_but_not_cut_in(into, legal):
    # An oval (facing 0, CAVALRY, M 12) slides along y = 10 from (10, 10) to (22, 10), its side
    # the line y = 10.492; an enemy VEHICLE box (facing 0) at (16, 10.492 + 1 - into) has its top
    # side there (into 0) or 0.003" above it. Start and end: 6 - 1.476 - 2 = 2.52" apart along
    # x, not engaged. Then the roles swapped: the box (VEHICLE, M 12) drives along y = 10, its
    # lower side y = 11, past an enemy oval (MONSTER) at (16, 11 + 0.492 - into).
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10, base=OVAL)], move=12, keywords=("CAVALRY",)),
            unit(
                "E",
                "blue",
                [model("E1", 16, 10 + HALF_WIDTH + 1 - into, base=BOX)],
                keywords=("VEHICLE",),
            ),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (22, 10)}, paths={"A1": [(22, 10, 0)]}))
    assert v.legal is legal, failures(v)
    s = situation(
        [
            unit("A", "red", [model("A1", 10, 10, base=BOX)], move=12, keywords=("VEHICLE",)),
            unit(
                "E",
                "blue",
                [model("E1", 16, 11 + HALF_WIDTH - into, base=OVAL)],
                keywords=("MONSTER",),
            ),
        ]
    )
    v = adjudicate(s, move("A", "normal", {"A1": (22, 10)}, paths={"A1": [(22, 10, 0)]}))
    assert v.legal is legal, failures(v)


def test_a_table_stored_with_a_base_0_004_inches_inside_a_hull_still_opens():
    # Before the exact overlap test a move could end a round base up to about 0.008" inside a
    # hull; a table stored after such a move must still open (reading a scenario keeps the old
    # test), while a new move ending there is refused (test above).
    s = situation(
        [unit("A", "red", [model("A1", 22 + R32 - 0.004, 10), model("A2", 20, 10, base=BOX)])]
    )
    assert s.model("A1").x < 22 + R32


def test_a_charge_with_only_an_aircraft_in_range_says_why_it_cannot_be_picked():
    # A1 (20, 10) cannot FLY; the only enemy, the AIRCRAFT J1 (25, 10), is 5 - 1.26 = 3.74"
    # away, within 12" and within the 8" roll, but may not be picked (1.4, 23.02). The finding
    # and the stepper's offer both say so, rather than that no enemy is in range.
    from rules.dice import Dice
    from rules.wh40k.move_types import charge_target_offer

    s = situation(
        [
            unit("A", "red", [model("A1", 20, 10)]),
            unit("J", "blue", [model("J1", 25, 10)], keywords=("VEHICLE", "AIRCRAFT", "FLY")),
        ],
        phase="charge",
    )
    v = adjudicate(s, move("A", "charge", {"A1": (21, 10)}, dice=[4, 4], charge_targets=[]))
    (why,) = [f for f in v.failures if f.stage == "before-moving"]
    assert "J" in why.text and "only a unit that can FLY may pick an AIRCRAFT unit" in why.text
    offer = charge_target_offer(s, "A", Dice((4, 4)), {})
    assert offer.choices == ()
    assert "only a unit that can FLY may pick an AIRCRAFT unit" in offer.empty
