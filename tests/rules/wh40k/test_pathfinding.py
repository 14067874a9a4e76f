"""Shortest ground paths and reachable regions (rules/pathfinding.py, RULES.md 1.3 and 1.5)."""

import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon, box

from rules.pathfinding import Navigator, Obstacle, inflate, inflated_disc

R = 16 / 25.4  # a 32 mm base


def block_navigator(climb_height=None):
    """A 4 x 4 in block at (10..14, 10..14) on a 30 x 24 table, solid unless a climb height is "
    "given."""
    shape = inflate(box(10, 10, 14, 14), R)
    obstacle = Obstacle(("block",), shape, climb_height)
    if climb_height is None:
        return Navigator(30, 24, R, hard=[obstacle])
    return Navigator(30, 24, R, climbs=[obstacle])


def test_open_ground_path_is_the_straight_line():
    nav = block_navigator()
    length, waypoints = nav.shortest_path((2, 2), (8, 5))
    assert waypoints == [(2, 2), (8, 5)]
    assert math.isclose(length, math.hypot(6, 3))


def test_path_goes_around_a_solid_block_and_is_as_short_as_the_true_curve_allows():
    nav = block_navigator()
    length, waypoints = nav.shortest_path((8, 12), (16, 12))
    # True shortest path over the top: tangent from (8,12) to the rounded corner at (10,10), r=0.63:
    # centre distance 2*sqrt(2) = 2.8284, tangent sqrt(8 - 0.3969) = 2.7574, arc 1.0100 rad * 0.63
    # = 0.6363, then 4" along the top and the mirror image: 2 * (2.7574 + 0.6363) + 4 = 10.7874.
    true = (
        2
        * (
            math.sqrt(8 - R * R)
            + R
            * (
                math.atan2(-1, 0) % (2 * math.pi)
                - (math.atan2(2, -2) + math.acos(R / math.sqrt(8)))
            )
        )
        + 4
    )
    assert abs(true - 10.7874) < 1e-3
    # circumscribed arcs (2 % of 0.63" outside the true corner): never shorter, barely longer
    assert true - 1e-9 <= length <= true + 0.03
    assert not box(10, 10, 14, 14).buffer(R - 1e-6).intersects(LineString(waypoints))


def test_a_climber_pays_height_up_and_down_to_cross_a_three_inch_ruin():
    nav = block_navigator(climb_height=3)
    # straight through: 12 - 0 = 12" plus 3 up + 3 down = 18"; around the corners costs about 13.9"
    assert nav.path_cost([(6, 12), (18, 12)]) == (12.0, 6.0)
    length, waypoints = nav.shortest_path((6, 12), (18, 12))
    assert length < 18 and len(waypoints) > 2


def test_a_short_crossing_of_a_ruin_is_cheaper_than_going_round():
    # a thin 3" tall wall 0.2 x 20 in: going round is far longer than 0.2 + 1.26 + 6
    nav = Navigator(30, 24, R, climbs=[Obstacle(("wall",), inflate(box(15, 2, 15.2, 22), R), 3.0)])
    length, waypoints = nav.shortest_path((13, 12), (17, 12))
    assert waypoints == [(13, 12), (17, 12)]
    assert math.isclose(length, 4 + 6)


def test_ending_on_top_of_a_ruin_pays_only_the_climb_up():
    nav = block_navigator(climb_height=3)
    # 4" of ground then onto the ruin at z=3: 4 + 3
    assert nav.path_cost([(8, 12), (12, 12)], 0, 3) == (4.0, 3.0)


def test_no_path_into_a_walled_off_pocket():
    ring = Polygon([(5, 5), (15, 5), (15, 15), (5, 15)], [[(7, 7), (13, 7), (13, 13), (7, 13)]])
    nav = Navigator(30, 24, R, hard=[Obstacle(("ring",), inflate(ring, R))])
    assert nav.shortest_path((2, 2), (10, 10)) is None


def test_a_start_in_base_contact_with_an_enemy_is_snapped_not_refused():
    # enemy 32 mm base at (10, 10); our centre 2r away (touching) is inside the circumscribed
    # polygon by a sliver; the path still starts there.
    enemy = Obstacle(("e",), inflated_disc(10, 10, 2 * R))
    nav = Navigator(30, 24, R, hard=[enemy])
    found = nav.shortest_path((10 + 2 * R, 10), (16, 10))
    assert found is not None and found[1][0] == (10 + 2 * R, 10)
    assert math.isclose(found[0], 6 - 2 * R, abs_tol=0.05)


def test_reachable_region_does_not_leak_behind_a_wall():
    wall = Obstacle(("wall",), inflate(box(10, 0, 11, 20), R))
    nav = Navigator(30, 24, R, hard=[wall])
    region = nav.reachable_region((8, 10), 6)
    assert region.contains(Point(4, 10))  # 4" away in the open
    assert not region.intersects(
        Point(13, 10).buffer(0.2)
    )  # 5" away as the crow flies, but behind the wall
    # going round the wall's end at y = 20.63 is far longer than 6"
    assert region.area <= math.pi * 36


@settings(max_examples=40, deadline=None)
@given(st.tuples(st.floats(1, 29), st.floats(1, 23)), st.tuples(st.floats(1, 29), st.floats(1, 23)))
def test_a_ground_path_is_never_shorter_than_the_straight_line_and_never_crosses_an_obstacle(a, b):
    blocks = [box(8, 4, 12, 9), Polygon([(16, 10), (22, 12), (18, 18)]), box(5, 14, 7, 22)]
    nav = Navigator(
        30, 24, R, hard=[Obstacle(("b", k), inflate(p, R)) for k, p in enumerate(blocks)]
    )
    for p in (a, b):  # start and goal are legal places for the base
        assume(all(Point(p).distance(blk) >= R for blk in blocks))
    found = nav.shortest_path(a, b)
    if found is None:
        assert not nav.covers(a) or not nav.covers(b)
        return
    length, waypoints = found
    assert length >= math.dist(a, b) - 1e-9
    line = LineString(waypoints)
    for k in range(51):  # sample the path: the base never overlaps a block (touching allowed)
        p = line.interpolate(k / 50, normalized=True)
        assert all(p.distance(blk) >= R - 1e-6 for blk in blocks)


def test_the_reachable_region_matches_shortest_paths_on_sampled_points():
    blocks = [
        box(8, 4, 12, 9),
        Polygon([(16, 10), (22, 12), (18, 18)]),
        box(5, 14, 7, 22),
        box(13, 12, 14, 23),
    ]
    nav = Navigator(
        30, 24, R, hard=[Obstacle(("b", k), inflate(p, R)) for k, p in enumerate(blocks)]
    )
    start, limit = (10, 12), 10.0
    region = nav.reachable_region(start, limit)
    for x in range(1, 30):
        for y in range(1, 24):
            if not nav.covers((x, y)):
                continue
            found = nav.shortest_path(start, (x, y))
            length = found[0] if found else math.inf
            if region.contains(Point(x, y)):
                assert length <= limit + 1e-6  # never includes unreachable ground
            else:
                assert length >= limit - 0.05  # and leaves out almost nothing that is reachable


def test_the_navigator_cache_is_bounded_by_memory_not_only_by_count(monkeypatch):
    # Two navigators of one table for two base sizes; a budget that holds one of them but not
    # both: building the second forgets the first (least recently used), never the new one.
    from rules import pathfinding

    pathfinding.clear_cache()
    block = [Obstacle("block", inflate(box(20, 20, 24, 24), 0.63))]
    first = pathfinding.navigator(60, 44, 0.63, block)
    monkeypatch.setattr(pathfinding, "_CACHE_BYTES", first.footprint_bytes + 1)
    assert pathfinding.navigator(60, 44, 0.63, block) is first  # asked again: kept
    second = pathfinding.navigator(60, 44, 0.79, block)
    assert pathfinding.navigator(60, 44, 0.79, block) is second
    assert pathfinding.navigator(60, 44, 0.63, block) is not first  # forgotten, built anew
    pathfinding.clear_cache()
