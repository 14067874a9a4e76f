"""The path graph built row by row (rules/pathfinding.py `EAGER_GRAPH_CORNERS`, issue 16): a
large table's graph is built one node's row at a time, as searches reach it, and whole once
searches have reached `1 / LAZY_GRAPH_FRACTION` of it. Every row is the one the whole graph has,
so every query answers exactly as on the whole graph (no window, no fallback: nothing is left
out, only built later)."""

import random

import pytest
import shapely
from shapely.geometry import Polygon, box

from rules import budget, pathfinding
from rules.pathfinding import Navigator, Obstacle, inflate, inflated_disc

R = 16 / 25.4  # a 32 mm base
W, H = 44.0, 30.0


def random_board(seed: int) -> tuple[list[Obstacle], list[Obstacle]]:
    """Enemy bases (discs, some touching), walls and triangles, and overlapping climb features
    (so a segment can cross several, and their corners bury one another)."""
    rng = random.Random(seed)
    hard: list[Obstacle] = []
    for k in range(rng.randint(15, 40)):
        x, y = rng.uniform(2, W - 2), rng.uniform(2, H - 2)
        hard.append(Obstacle(("model", k), inflated_disc(x, y, rng.choice([0.5, 0.63, 1.0]) + R)))
    for k in range(rng.randint(2, 6)):
        x, y = rng.uniform(3, W - 6), rng.uniform(3, H - 6)
        shape = (
            box(x, y, x + rng.uniform(0.3, 4), y + rng.uniform(0.3, 4))
            if rng.random() < 0.5
            else Polygon([(x, y), (x + rng.uniform(1, 5), y), (x, y + rng.uniform(1, 5))])
        )
        hard.append(Obstacle(("wall", k), inflate(shape, R)))
    climbs: list[Obstacle] = []
    for k in range(rng.randint(0, 5)):
        x, y = rng.uniform(3, W - 8), rng.uniform(3, H - 8)
        w, h = rng.uniform(2, 6), rng.uniform(2, 6)
        climbs.append(Obstacle(("ruin", k), inflate(box(x, y, x + w, y + h), R), 3.0))
        if rng.random() < 0.5:  # a floor overlapping it
            climbs.append(
                Obstacle(("floor", k), inflate(box(x + 1, y + 1, x + w + 1, y + 2), R), 1.5)
            )
    return hard, climbs


def both_ways(seed: int, monkeypatch) -> tuple[Navigator, Navigator]:
    """The same board as a whole graph and as a graph built row by row (never whole early)."""
    hard, climbs = random_board(seed)
    monkeypatch.setattr(pathfinding, "EAGER_GRAPH_CORNERS", 10**9)
    whole = Navigator(W, H, R, hard, climbs)
    monkeypatch.setattr(pathfinding, "EAGER_GRAPH_CORNERS", 0)
    monkeypatch.setattr(pathfinding, "LAZY_GRAPH_FRACTION", 1)
    rows = Navigator(W, H, R, hard, climbs)
    assert whole.graph_built and not rows.graph_built
    return whole, rows


@pytest.mark.parametrize("seed", range(6))
def test_every_row_built_alone_is_the_row_of_the_whole_graph(seed, monkeypatch):
    whole, rows = both_ways(seed, monkeypatch)
    n = len(whole.nodes)
    assert n > 50
    order = list(range(n))
    random.Random(seed).shuffle(order)  # in any order: a row does not depend on the others
    for k in order:
        assert rows.adjacency[k] == whole.adjacency[k]  # same neighbours, order, exact costs
        assert rows._zero_adjacency[k] == whole._zero_adjacency[k]
    assert rows.edge_count == whole.edge_count


def random_points(rng: random.Random, count: int) -> list[tuple[float, float]]:
    return [(rng.uniform(0.5, W - 0.5), rng.uniform(0.5, H - 0.5)) for _ in range(count)]


@pytest.mark.parametrize("seed", range(6))
def test_paths_and_reachable_regions_are_the_same_on_a_graph_built_row_by_row(seed, monkeypatch):
    whole, rows = both_ways(seed, monkeypatch)
    rng = random.Random(100 + seed)
    points = random_points(rng, 60)
    bent = 0
    for start, goal in zip(points[::2], points[1::2], strict=True):
        z_end = rng.choice([0.0, 3.0])  # ending on a floor or on the ground
        ours = rows.shortest_path(start, goal, z_end=z_end)
        theirs = whole.shortest_path(start, goal, z_end=z_end)
        assert ours == theirs  # lengths and waypoints, exactly
        bent += ours is not None and len(ours[1]) > 2
    assert bent > 0  # some paths used the graph
    for start in points[:5]:
        a = rows.reachable_region(start, 6.0)
        b = whole.reachable_region(start, 6.0)
        assert shapely.to_wkb(shapely.normalize(a)) == shapely.to_wkb(shapely.normalize(b))
    assert not rows.graph_built  # the searches built only the rows they reached
    assert 0 < rows._rows_built < len(rows.nodes)


def test_a_search_that_reaches_much_of_the_graph_builds_it_whole(monkeypatch):
    hard, climbs = random_board(3)
    monkeypatch.setattr(pathfinding, "EAGER_GRAPH_CORNERS", 0)
    monkeypatch.setattr(pathfinding, "LAZY_GRAPH_FRACTION", 16)
    nav = Navigator(W, H, R, hard, climbs)
    limit = nav._row_limit
    assert limit == len(nav.nodes) // 16
    for k in range(limit):
        nav.adjacency[k]
    assert nav._rows_built == limit and not nav.graph_built
    row = nav.adjacency[limit]  # one more: the whole graph, in place
    assert nav.graph_built and nav._rows_built == len(nav.nodes)
    assert isinstance(nav.adjacency, list)  # plain lists for the searches from now on
    monkeypatch.setattr(pathfinding, "EAGER_GRAPH_CORNERS", 10**9)
    whole = Navigator(W, H, R, hard, climbs)
    assert row == whole.adjacency[limit]
    assert nav.adjacency == whole.adjacency and nav._zero_adjacency == whole._zero_adjacency


def test_iterating_over_the_rows_builds_the_whole_graph(monkeypatch):
    monkeypatch.setattr(pathfinding, "EAGER_GRAPH_CORNERS", 0)
    nav = Navigator(W, H, R, *random_board(1))
    view = nav.adjacency
    assert len(view) == len(nav.nodes) and not nav.graph_built
    assert sum(len(row) for row in view) == 2 * nav.edge_count
    assert nav.graph_built


def test_a_large_table_builds_rows_only_as_searches_reach_them(monkeypatch):
    # a crowd: 20 x 5 bases 3" apart (24 corners each), a short path bending round one of them
    hard = [
        Obstacle(("model", i, j), inflated_disc(4 + 3 * i, 4 + 3 * j, 0.63 + R))
        for i in range(20)
        for j in range(5)
    ]
    monkeypatch.setattr(pathfinding, "EAGER_GRAPH_CORNERS", 2000)
    nav = Navigator(70, 24, R, hard)
    assert len(nav.nodes) > 2000 and not nav.graph_built
    before = nav.footprint_bytes
    found = nav.shortest_path((5.5, 4.0), (4.0, 5.5))
    assert found is not None and len(found[1]) > 2
    assert 0 < nav._rows_built < 40
    assert nav.footprint_bytes > before  # the rows built count in the cache's budget


def test_the_cache_counts_rows_built_since_a_navigator_was_stored(monkeypatch):
    pathfinding.clear_cache()
    monkeypatch.setattr(pathfinding, "EAGER_GRAPH_CORNERS", 0)
    monkeypatch.setattr(pathfinding, "LAZY_GRAPH_FRACTION", 1)
    hard, climbs = random_board(2)
    nav = pathfinding.navigator(W, H, R, hard, climbs)
    stored = pathfinding.cached_bytes()
    for k in range(len(nav.nodes)):
        nav.adjacency[k]
    assert pathfinding.cached_bytes() == nav.footprint_bytes > stored
    # a budget the navigator fitted when it was stored, but not now: the next look-up of
    # another navigator lets it go
    monkeypatch.setattr(pathfinding, "_CACHE_BYTES", stored + stored // 2)
    other = pathfinding.navigator(W, H, 0.5, hard[:3])
    assert list(pathfinding._cache().values()) == [other]
    pathfinding.clear_cache()


def test_building_rows_stops_at_the_deadline(monkeypatch):
    monkeypatch.setattr(pathfinding, "EAGER_GRAPH_CORNERS", 0)
    monkeypatch.setattr(pathfinding, "LAZY_GRAPH_FRACTION", 1)
    monkeypatch.setattr(budget, "EVERY", 1)
    nav = Navigator(W, H, R, *random_board(4))
    with budget.deadline(1e-9), pytest.raises(budget.OutOfTime):
        for k in range(len(nav.nodes)):
            nav.adjacency[k]


@pytest.mark.parametrize("seed", range(4))
def test_distances_within_a_limit_are_those_of_the_unlimited_search(seed):
    # `_distances_from` tries only the corners nearer than the limit from the start: the same
    # distances and parents as the search that tries every corner, cut at the limit
    nav = Navigator(W, H, R, *random_board(seed))
    rng = random.Random(seed)
    tried = 0
    for start in random_points(rng, 12):
        if not nav.covers(start):
            continue
        every, every_parent = nav._distances_from(start, float("inf"))
        for limit in (2.0, 6.0, 15.0):
            dist, parent = nav._distances_from(start, limit)
            assert dist == {k: d for k, d in every.items() if d < limit}
            assert parent == {k: every_parent[k] for k in dist}
            tried += len(dist)
    assert tried > 0


def test_discs_inflated_together_are_those_inflated_one_by_one():
    rng = random.Random(11)
    centres = [(rng.uniform(0, 60), rng.uniform(0, 44)) for _ in range(200)]
    radii = [rng.choice([0.49, 0.63, 1.0, 1.57]) + R for _ in centres]
    together = pathfinding.inflated_discs(centres, radii)
    for (x, y), r, disc in zip(centres, radii, together, strict=True):
        assert shapely.to_wkb(disc) == shapely.to_wkb(inflated_disc(x, y, r))
    assert len(pathfinding.inflated_discs([], [])) == 0
