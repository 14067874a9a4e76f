"""Shortest ground paths and reachable regions (rules/pathfinding.py, RULES.md 1.3 and 1.5)."""

import math

import pytest
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


# -- the query against a brute force (issue 16: the query was made faster, its answers kept) ----


def _random_board(seed: int, climbing: bool) -> tuple[Navigator, list[Polygon]]:
    """A 30 x 24 table with 6-9 random blobs (solid) and, if `climbing`, 3 low walls and floors
    to climb (1-4 in): the shapes rotate, overlap and sometimes wall pockets off."""
    import random

    rng = random.Random(seed)
    hard, climbs, solid = [], [], []
    for k in range(rng.randint(6, 9)):
        cx, cy, size = rng.uniform(3, 27), rng.uniform(3, 21), rng.uniform(0.8, 3.0)
        corners = rng.randint(3, 8)
        angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(corners))
        poly = Polygon(
            [(cx + size * math.cos(a), cy + size * math.sin(a)) for a in angles]
        ).convex_hull
        solid.append(poly)
        hard.append(Obstacle(("blob", seed, k), inflate(poly, R)))
    for k in range(3 if climbing else 0):
        x, y = rng.uniform(3, 24), rng.uniform(3, 18)
        w, h = (rng.uniform(3, 6), 0.3) if k % 2 else (rng.uniform(2, 4), rng.uniform(2, 4))
        shape = inflate(box(x, y, x + w, y + h), R)
        climbs.append(Obstacle(("climb", seed, k), shape, rng.choice([1.0, 2.5, 4.0])))
    return Navigator(30, 24, R, hard=hard, climbs=climbs), solid


def _brute_force(nav: Navigator, s, g, z_start=0.0, z_end=0.0, tangent_only=False):
    """Dijkstra over the full visibility graph (every pair of nodes, start and goal that see
    each other, no heuristic), each segment charged its climbing as the search charges it; the
    path's length as `shortest_path` reports it, or None. `tangent_only`: only the pairs the
    navigator's graph considers (its edges, the start's and goal's tangent nodes, and the
    corners of the climb features they lie in)."""
    import heapq

    import numpy as np
    import shapely

    points = [tuple(p) for p in nav.nodes.tolist()] + [s, g]
    n = len(points)
    i, j = np.triu_indices(n, 1)
    if tangent_only:
        graph = {(a, b) for a, edges in enumerate(nav.adjacency) for b, _ in edges}
        graph |= {(k, n - 2) for k in nav._candidates(s).tolist()}
        graph |= {(k, n - 1) for k in nav._candidates(g).tolist()}
        # the corners of the climb features the start or goal lie in: legs to them bend any way
        own = np.union1d(nav._own_corners(s), nav._own_corners(g)).tolist()
        graph |= {(k, end) for k in own for end in (n - 2, n - 1)}
        graph.add((n - 2, n - 1))
        keep = np.array([(a, b) in graph for a, b in zip(i.tolist(), j.tolist(), strict=True)])
        i, j = i[keep], j[keep]
    xy = np.array(points)
    lines = shapely.linestrings(np.stack([xy[i], xy[j]], axis=1))
    seen = ~shapely.intersects(nav._blocked_core, lines)
    cost = np.hypot(*(xy[j] - xy[i]).T) + nav._penalties(lines)
    edges: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for a, b, c in zip(i[seen].tolist(), j[seen].tolist(), cost[seen].tolist(), strict=True):
        edges[a].append((b, c))
        edges[b].append((a, c))
    best, parent, heap = {n - 2: 0.0}, {n - 2: -1}, [(0.0, n - 2)]
    done = set()
    while heap:
        d, k = heapq.heappop(heap)
        if k in done:
            continue
        done.add(k)
        for nb, c in edges[k]:
            if d + c < best.get(nb, math.inf):
                best[nb], parent[nb] = d + c, k
                heapq.heappush(heap, (d + c, nb))
    if n - 1 not in done:
        return None
    path, k = [], n - 1
    while k != -1:
        path.append(points[k])
        k = parent[k]
    horizontal, vertical = nav.path_cost(path[::-1], z_start, z_end)
    return horizontal + vertical


@pytest.mark.parametrize("climbing", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_the_query_finds_the_brute_force_shortest_path_on_random_boards(seed, climbing):
    """Solid obstacles only: the shortest path over the whole visibility graph. With climbing:
    the cheapest over the pairs the graph considers (see the next test for why not all)."""
    import random

    nav, solid = _random_board(seed, climbing)
    rng = random.Random(100 + seed)
    asked = missing = 0
    while asked < 12:
        s = (rng.uniform(0.7, 29.3), rng.uniform(0.7, 23.3))
        g = (rng.uniform(0.7, 29.3), rng.uniform(0.7, 23.3))
        if not (nav.covers(s) and nav.covers(g)):
            continue
        asked += 1
        z_start, z_end = (0.0, 0.0) if asked % 3 else (1.0, 2.5)
        found = nav.shortest_path(s, g, z_start, z_end)
        expected = _brute_force(nav, s, g, z_start, z_end, tangent_only=climbing)
        if expected is None:
            missing += 1
            assert found is None
            continue
        assert found is not None
        length, waypoints = found
        assert waypoints[0] == s and waypoints[-1] == g
        assert math.isclose(length, expected, rel_tol=0, abs_tol=1e-9)
        # the length is the path's own cost, whether the query measured its climbing or knew
        # there was none to measure
        assert length == sum(nav.path_cost(waypoints, z_start, z_end))
        assert not any(LineString(waypoints).intersects(p.buffer(R - 1e-6)) for p in solid)


def test_with_climbing_the_query_finds_the_cheapest_path_over_all_segments():
    nav, _ = _random_board(4, climbing=True)
    s, g = (12.41397138062582, 11.239480363325004), (16.039026532875262, 6.538582354254125)
    # straight: 5.94 in, two features crossed (2 x 2.5 + 2 x 1 in): 12.94; bending at a corner of
    # the 1 in wall the goal lies within avoids the 2.5 in feature: 6.00 in and 2 x 1 in
    assert math.isclose(nav.shortest_path(s, g)[0], _brute_force(nav, s, g), abs_tol=1e-9)


def test_a_goal_walled_off_by_random_blobs_has_no_path():
    # the same brute force on a pocket: a ring of blobs around (15, 12)
    ring = Polygon([(10, 7), (20, 7), (20, 17), (10, 17)], [[(12, 9), (18, 9), (18, 15), (12, 15)]])
    nav = Navigator(30, 24, R, hard=[Obstacle(("ring",), inflate(ring, R))])
    for goal in [(15, 12), (13.5, 10.5), (16.6, 13.9)]:
        assert _brute_force(nav, (3, 3), goal) is None
        assert nav.shortest_path((3, 3), goal) is None
        assert nav.shortest_path(goal, (3, 3)) is None


@pytest.mark.parametrize("seed", range(4))
def test_the_fast_tangent_test_and_edge_test_match_the_plain_ones(seed):
    import random

    import numpy as np

    nav, _ = _random_board(seed, climbing=True)
    rng = random.Random(seed)
    points = [(rng.uniform(0, 30), rng.uniform(0, 24)) for _ in range(40)]
    points += [tuple(p) for p in nav.nodes[:5].tolist()]  # a node is not its own candidate
    for p in points:
        # the test as first written: e = point - node against both edge vectors
        e = np.asarray(p) - nav.nodes
        A, B = nav._to_prev, nav._to_next
        c1 = e[:, 0] * A[:, 1] - e[:, 1] * A[:, 0]
        c2 = e[:, 0] * B[:, 1] - e[:, 1] * B[:, 0]
        ok = ((c1 >= -1e-12) & (c2 >= -1e-12)) | ((c1 <= 1e-12) & (c2 <= 1e-12))
        ok &= (np.abs(e[:, 0]) + np.abs(e[:, 1])) > 0
        assert nav._candidates(p).tolist() == np.nonzero(ok)[0].tolist()
    free = [p for p in points if nav.covers(p)]
    for a in free:
        for b in free[:10]:
            expected = nav._segment_penalty(a, b) if nav._sees(a, b) else None
            assert nav._edge_penalty(a, b) == expected


def test_a_climb_feature_of_no_height_still_counts_in_the_path_cost():
    # Crossing a 0 in feature is charged nothing in the search, yet the base's level drops to
    # the feature's between its start and end elevations (RULES.md 1.5): the query must measure
    # the climbing rather than assume a path charged nothing crosses nothing.
    slab = Obstacle(("slab",), inflate(box(14, 2, 15, 22), R), 0.0)
    nav = Navigator(30, 24, R, climbs=[slab])
    length, waypoints = nav.shortest_path((10, 12), (20, 12), 2.0, 2.0)
    assert waypoints == [(10, 12), (20, 12)]
    assert length == 10 + nav.climb_cost(waypoints, 2.0, 2.0) == 10 + 4.0


def test_the_edge_tests_segments_are_the_public_functions_segments():
    # `_segments` calls shapely's ufunc without its wrappers (issue 16): the same geometries,
    # for one segment and for several.
    import numpy as np
    import shapely

    from rules.pathfinding import _segments

    rng = np.random.default_rng(5)
    for count in (1, 3):
        ends = rng.uniform(-50, 50, (count, 2, 2))
        ours, theirs = _segments(ends), shapely.linestrings(ends)
        assert ours.shape == theirs.shape == (count,)
        assert shapely.to_wkb(ours).tolist() == shapely.to_wkb(theirs).tolist()
    one = rng.uniform(-50, 50, (2, 2))  # one segment's ends: one geometry
    assert shapely.to_wkb(_segments(one)) == shapely.to_wkb(shapely.linestrings(one))


def test_the_edge_tests_predicates_are_the_public_functions_predicates():
    # the scalar predicates a path query calls (issue 16) answer as the public functions do,
    # on prepared and unprepared polygons, for points and segments inside, outside, on the
    # boundary and touching a corner
    import numpy as np
    import shapely
    from shapely.geometry import box

    from rules.pathfinding import _intersects, _intersects_xy, _segments

    rng = np.random.default_rng(8)
    shape = shapely.union(box(0, 0, 10, 10), box(10, 10, 20, 12))
    prepared = shapely.union(box(0, 0, 10, 10), box(10, 10, 20, 12))
    shapely.prepare(prepared)
    points = [(0.0, 0.0), (10.0, 10.0), (5.0, 10.0), (15.0, 9.0), *rng.uniform(-5, 25, (40, 2))]
    for polygon in (shape, prepared):
        for x, y in points:
            assert _intersects_xy(polygon, float(x), float(y)) == shapely.intersects_xy(
                polygon, x, y
            )
        for a, b in zip(points, points[1:], strict=False):
            line = _segments(np.array([a, b], dtype=float))
            assert _intersects(polygon, line) == shapely.intersects(polygon, line)


@pytest.mark.parametrize("seed", range(4))
def test_regions_asked_together_are_the_ones_asked_alone(seed):
    # `reachable_regions` works a unit's regions out in one call (issue 16); each start's
    # region must not borrow from another's: the same geometry as asked alone, for starts in
    # free space, inside an obstacle (nothing), off the board (nothing) and with no distance.
    import random

    import shapely

    nav, _ = _random_board(seed, climbing=seed % 2 == 1)
    rng = random.Random(seed)
    starts = [(rng.uniform(0, 30), rng.uniform(0, 24)) for _ in range(12)] + [(-5.0, -5.0)]
    distances = [rng.choice([0.0, 3.0, 6.0, 9.5]) for _ in starts]
    together = nav.reachable_regions(starts, distances)
    alone = [nav.reachable_regions([s], [d])[0] for s, d in zip(starts, distances, strict=True)]
    assert [shapely.to_wkb(g) for g in together] == [shapely.to_wkb(g) for g in alone]
    assert any(not g.is_empty for g in together) and together[-1].is_empty
