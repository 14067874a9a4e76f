"""Climbing and levels in the movement judge (RULES.md 1.5): which feature a climb belongs to,
where a model may stand above the table, and which enemy bases are in the way on each stretch of
a path. Positions and distances worked by hand (32 mm base: radius 0.630"; 60 mm: 1.181")."""

from rules import adjudicate
from rules.wh40k.moving import may_stand

from .scenarios import model, move, rect, situation, terrain, unit
from .test_terrain_3d import ruin


def failures(verdict):
    return [(f.rule, f.stage, f.subject) for f in verdict.failures]


def texts(verdict):
    return [f.text for f in verdict.failures]


# -- 1.5: a climb bars the upper floors of the feature climbed, not of the next one -----------
def monster_over_a_wall_onto_a_floor(one_feature):
    """M1 (MONSTER, 60 mm, M 20) at (15, 11) goes straight to (24, 11) on a 2" floor covering
    x 21..27, y 5..17. On the way it crosses a 3" wall along x = 19 (y 0.6..43.4: no way round).
    Horizontal 9"; the wall is climbed 3" up and 3" down, the floor (2": no climb section)
    stepped up 2": 9 + 6 + 2 = 17" of 20. With `one_feature` the wall and the floor belong to one
    ruin R (x 18..27); otherwise the wall is ruin X's (x 18..20) and the floor ruin Y's."""
    wall = ([(19, 0.6), (19, 43.4)], 3, None)
    floor = (rect(21, 5, 27, 17), 2)
    if one_feature:
        pieces = [ruin("R", rect(18, 0.5, 27, 43.5), 3, walls=[wall], floors=[floor])]
    else:
        pieces = [
            ruin("X", rect(18, 0.5, 20, 43.5), 3, walls=[wall]),
            ruin("Y", rect(21, 5, 27, 17), 2, floors=[floor]),
        ]
    s = situation(
        [unit("M", "red", [model("M1", 15, 11, base=60)], keywords=("MONSTER",), move=20)], pieces
    )
    return adjudicate(s, move("M", "normal", {"M1": {"x": 24, "y": 11, "z": 2}}))


def test_a_monster_that_climbed_one_feature_may_end_on_another_features_low_floor():
    # The 3" wall it climbed is X's; Y's 2" floor is a separate feature it only stepped onto.
    v = monster_over_a_wall_onto_a_floor(one_feature=False)
    assert v.legal, texts(v)
    assert v.models["M1"]["distance_moved"] == 17.0


def test_a_monster_that_climbed_a_features_wall_may_not_end_on_its_floor():
    # The same crossing when the wall and the floor are one ruin's: refused at the end (13.06).
    v = monster_over_a_wall_onto_a_floor(one_feature=True)
    assert failures(v) == [("13.06", "end-of-move", "M1")]
    assert "R" in texts(v)[0]
    assert v.models["M1"]["distance_moved"] == 17.0


# -- 1.5: on an old-shape feature a model stands on its top -----------------------------------
def test_on_an_old_shape_block_a_model_stands_on_its_top_not_part_way_up():
    # A dense block 3" tall (no walls or floors: one block), x 20..26, y 8..14. A1 (INFANTRY,
    # M 10) from (17, 11) to (23, 11): 6" across, its base wholly over the block. On its top
    # (z = 3) it moves 6 + 3 = 9" of 10; at z = 1.5 it would stand inside the block, part-way
    # up, which is no floor (13.06, end-of-move); at 3.5 it would float above it.
    block = terrain("B", rect(20, 8, 26, 14), height=3)
    s = situation([unit("A", "red", [model("A1", 17, 11)], move=10)], [block])
    a1 = s.model("A1")
    for z, legal in ((3.0, True), (1.5, False), (3.5, False)):
        v = adjudicate(s, move("A", "normal", {"A1": {"x": 23, "y": 11, "z": z}}))
        assert v.legal is legal, (z, texts(v))
        assert may_stand(s, s.unit("A"), a1.placed(23, 11, z), a1) is legal, z
        if not legal:
            assert failures(v) == [("13.06", "end-of-move", "A1")], z
            finding = v.failures[0]
            assert (finding.measured, finding.limit) == (z, 3.0)
    v = adjudicate(s, move("A", "normal", {"A1": {"x": 23, "y": 11, "z": 1.5}}))
    assert "part-way up" in texts(v)[0]


# -- 1.5: bases are in each other's way only on one level, stretch by stretch ------------------
def tower_scene(a1, enemies):
    """A ruin T, x 20..26, y 8..14, its one floor 5.5" up over the whole footprint; unit A
    (INFANTRY, M 14) with `a1`; unit E (INFANTRY) with `enemies`."""
    whole = rect(20, 8, 26, 14)
    return situation(
        [unit("A", "red", [a1], move=14), unit("E", "blue", enemies)],
        [ruin("T", whole, 5.5, floors=[(whole, 5.5)])],
    )


def test_a_path_on_the_floor_passes_over_an_enemy_on_the_ground():
    # A1 from (17, 11) on the ground climbs at the ruin's edge (x = 20) to its waypoint
    # (20.7, 11) 5.5" up and walks on the floor over E1 (ground, (23, 11)) to (25.2, 11):
    # 3.7 + 4.5 = 8.2" plus 5.5" up = 13.7" of 14. On the ground its base reaches x = 20.63,
    # short of E1's edge at 22.37; on the floor E1 is not in its way. At the end it is 0.94"
    # from E1 horizontally but 5.5" above it: unengaged.
    s = tower_scene(model("A1", 17, 11), [model("E1", 23, 11)])
    v = adjudicate(
        s,
        move(
            "A", "normal", {"A1": {"x": 25.2, "y": 11, "z": 5.5}}, paths={"A1": [(20.7, 11, 5.5)]}
        ),
    )
    assert v.legal, texts(v)
    assert v.models["A1"]["distance_moved"] == 13.7
    # Control: E1 standing on the floor, (23, 11) 5.5" up, is in the way of the floor stretch.
    s = tower_scene(model("A1", 17, 11), [model("E1", 23, 11, z=5.5)])
    v = adjudicate(
        s,
        move(
            "A", "normal", {"A1": {"x": 25.2, "y": 11, "z": 5.5}}, paths={"A1": [(20.7, 11, 5.5)]}
        ),
    )
    assert ("03.01", "while-moving", "A1") in failures(v)
    # Control: the same climb from (13.5, 11) to the end (21.5, 11) 5.5" up (7.2 + 0.8 + 5.5
    # = 13.5" of 14), with G1 on the ground at (17, 11) (3.5 - 1.26 = 2.24" from A1 at the
    # start: unengaged) in the ground stretch 13.5..20: refused for crossing G1.
    s = tower_scene(model("A1", 13.5, 11), [model("E1", 23, 11), model("G1", 17, 11)])
    v = adjudicate(
        s,
        move(
            "A", "normal", {"A1": {"x": 21.5, "y": 11, "z": 5.5}}, paths={"A1": [(20.7, 11, 5.5)]}
        ),
    )
    assert failures(v) == [("03.01", "while-moving", "A1")]
    assert "enemy model G1" in texts(v)[0]


def test_a_path_that_comes_down_past_the_floors_edge_passes_over_an_enemy_below():
    # A1 on the floor at (21, 11) walks to the waypoint (25.3, 11) 5.5" up, then down past the
    # edge (x = 26) to (29, 11) on the ground: 4.3 + 3.7 = 8" plus 5.5" down = 13.5" of 14. E1
    # at (23, 11) on the ground is under the floor stretch; the ground stretch 26..29 keeps its
    # base from x = 25.37, clear of E1's edge at 23.63. At the end, 29 - 23 - 1.26 = 4.74" away.
    s = tower_scene(model("A1", 21, 11, z=5.5), [model("E1", 23, 11)])
    v = adjudicate(
        s, move("A", "normal", {"A1": {"x": 29, "y": 11, "z": 0}}, paths={"A1": [(25.3, 11, 5.5)]})
    )
    assert v.legal, texts(v)
    assert v.models["A1"]["distance_moved"] == 13.5


def test_a_model_may_end_on_the_floor_right_above_an_enemy_by_the_engines_own_path():
    # No waypoints: A1 from (17, 11) on the ground to (23, 11) 5.5" up, right above E1. The
    # straight line climbs at the edge (x = 20): on the ground its base reaches 20.63, short of
    # E1 (edge 22.37); on the floor E1 is not in the way. 6 + 5.5 = 11.5" of 14; 5.5" above E1
    # it is neither on it nor engaged (more than 5" vertically).
    s = tower_scene(model("A1", 17, 11), [model("E1", 23, 11)])
    v = adjudicate(s, move("A", "normal", {"A1": {"x": 23, "y": 11, "z": 5.5}}))
    assert v.legal, texts(v)
    assert v.models["A1"]["distance_moved"] == 11.5


def test_a_charge_up_to_a_floor_passes_over_an_enemy_on_the_ground():
    # A ruin x 18..30, y 4..18, floor 5.5". Target E1 on the floor at (23.8, 11); G1 (another
    # enemy unit) on the ground at (20.5, 11). A1 (INFANTRY) at (16, 11) rolls 12. With the
    # waypoint (18.63, 11) 5.5" up it climbs at the edge (x = 18; on the ground its base
    # reaches 18.63, short of G1's edge at 19.87), then walks on the floor over G1 to
    # (22.34, 11): 2.63 + 3.71 = 6.34" plus 5.5" = 11.84" of 12, ending 23.8 - 22.34 - 1.26 =
    # 0.2" from E1 and 5.5" above G1 (not engaged). Without the waypoint the engine's straight
    # line is the same path.
    whole = rect(18, 4, 30, 18)
    s = situation(
        [
            unit("A", "red", [model("A1", 16, 11)]),
            unit("E", "blue", [model("E1", 23.8, 11, z=5.5)]),
            unit("G", "blue", [model("G1", 20.5, 11)]),
        ],
        [ruin("T", whole, 5.5, floors=[(whole, 5.5)])],
    )
    end = {"A1": {"x": 22.34, "y": 11, "z": 5.5}}
    for paths in ({"A1": [(18.63, 11, 5.5)]}, None):
        v = adjudicate(s, move("A", "charge", end, dice=(6, 6), paths=paths, charge_targets=["E"]))
        assert v.legal, (paths, texts(v))
        assert abs(v.models["A1"]["distance_moved"] - 11.84) < 1e-9


def test_a_waypoint_up_in_the_air_with_nothing_to_climb_is_refused():
    # RULES.md 1.3, 1.5: a move is horizontal segments, and a model leaves the ground only by
    # climbing a feature, staying within 1/2" of it. A1 (M13) on an empty table, through
    # (13, 20) 3" up: 6" along and 3" up and down is 12" of 13", but there is nothing to climb.
    s = situation([unit("A", "red", [model("A1", 10, 20)], move=13)])
    v = adjudicate(s, move("A", "normal", {"A1": (16, 20)}, paths={"A1": [(13, 20, 3)]}))
    assert not v.legal
    assert any("nothing" in f.text and "climb" in f.text for f in v.failures), [
        f.text for f in v.failures
    ]


def test_a_waypoint_up_a_ruin_within_half_an_inch_of_it_is_climbing():
    # the same 3" up at (13, 20), now beside a 3" dense block whose edge is 0.4" away (x 13.4)
    block = terrain("R", rect(13.4, 18, 15, 22), category="dense", height=3)
    s = situation([unit("A", "red", [model("A1", 10, 20)], move=13)], [block])
    v = adjudicate(s, move("A", "normal", {"A1": (12, 20)}, paths={"A1": [(13, 20, 3)]}))
    assert not any("nothing" in f.text for f in v.findings), [f.text for f in v.failures]
