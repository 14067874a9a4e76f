"""Caches bounded in bytes, not only in entries (issue 16): the size estimate they use, and the
navigator cache (rules/pathfinding.py) kept within its byte bound."""

import numpy as np
import pytest
from shapely.geometry import Point, box

from rules import pathfinding
from rules.memory import Kept, approximate_bytes, geometry_bytes
from rules.pathfinding import Obstacle, inflate


def test_the_estimate_counts_what_python_and_numpy_and_geos_hold():
    floats = [float(i) for i in range(10_000)]  # a float is 24 bytes, plus 8 for its pointer
    assert 10_000 * 32 <= approximate_bytes(floats) <= 10_000 * 32 * 1.5
    assert approximate_bytes(np.zeros(1_000_000)) >= 8_000_000
    fine = Point(0, 0).buffer(10, quad_segs=250)  # 1,001 coordinates
    coarse = box(0, 0, 1, 1)  # 5
    assert approximate_bytes(fine) - approximate_bytes(coarse) >= 996 * 16


def test_what_two_entries_share_is_counted_once():
    shared = np.zeros(100_000)
    one = approximate_bytes({"a": shared})
    assert approximate_bytes({"a": shared, "b": shared}) < one + 1_000


def test_objects_are_measured_through_their_fields():
    class Holder:
        def __init__(self):
            self.graph = np.zeros((500, 500))

    assert approximate_bytes(Holder()) >= 500 * 500 * 8


@pytest.fixture
def fresh_navigators():
    pathfinding.clear_cache()
    yield
    pathfinding.clear_cache()


def navigators_for(radii):
    walls = [box(10 + 6 * i, 5, 12 + 6 * i, 25) for i in range(5)]
    return [
        pathfinding.navigator(
            44, 30, r, [Obstacle(("wall", i, r), inflate(w, r)) for i, w in enumerate(walls)]
        )
        for r in radii
    ]


def test_the_navigator_cache_keeps_within_its_byte_bound(fresh_navigators, monkeypatch):
    (first,) = navigators_for([0.5])
    one = pathfinding.cached_bytes()
    assert one > 0
    monkeypatch.setattr(pathfinding, "_CACHE_BYTES", int(one * 2.5))
    navigators_for([0.6, 0.7, 0.8, 0.9])
    assert pathfinding.cached_bytes() <= one * 2.5
    assert len(pathfinding._cache()) == 2
    (newest,) = navigators_for([0.9])
    assert navigators_for([0.9])[0] is newest  # the newest is kept
    assert navigators_for([0.5])[0] is not first  # the oldest went


def test_a_navigator_over_the_bound_alone_is_still_kept_while_in_use(fresh_navigators, monkeypatch):
    monkeypatch.setattr(pathfinding, "_CACHE_BYTES", 1)
    (nav,) = navigators_for([0.5])
    assert navigators_for([0.5])[0] is nav
    navigators_for([0.6])
    assert len(pathfinding._cache()) == 1


def test_code_and_modules_an_entry_refers_to_are_not_counted():
    import rules

    entry = {"reach": rules.reach, "module": rules, "rows": [1.5] * 10}
    assert approximate_bytes(entry) < 2_000


def test_kept_values_stay_within_the_byte_bound_least_recently_used_out():
    store = Kept(limit=1_000)
    for key in "abcd":
        store.get(key, lambda k=key: k.upper(), lambda _: 250)
    assert store.usage() == (4, 1_000)
    assert store.get("a", lambda: "built again", lambda _: 250) == "A"  # kept: now the newest
    store.get("e", lambda: "E", lambda _: 250)
    assert store.usage() == (4, 1_000)
    assert store.look_up("b") is None  # the least recently used went, not "a"
    assert store.look_up("a") == ("A", 250)


def test_kept_values_are_also_bounded_in_count_and_one_value_cannot_empty_the_store():
    store = Kept(limit=1_000, most=2)
    for key in "abc":
        store.get(key, lambda k=key: k, lambda _: 1)
    assert store.usage() == (2, 2)
    assert store.get("huge", lambda: "H", lambda _: 251) == "H"  # over a quarter: not kept
    assert store.usage() == (2, 2)
    assert store.look_up("huge") is None


def test_geometry_bytes_counts_the_coordinates():
    fine = Point(0, 0).buffer(10, quad_segs=250)  # 1,001 coordinates
    assert geometry_bytes(fine) == approximate_bytes(fine)
    assert geometry_bytes(fine) >= 1_001 * 16


def test_the_surge_solvers_unions_of_discs_are_bounded_in_bytes(monkeypatch):
    """A union of many discs weighs hundreds of KB: the store between surges counts bytes."""
    from rules.wh40k import surge_solver

    store = Kept(limit=2_000_000, most=1024)
    monkeypatch.setattr(surge_solver, "_UNIONS", store)
    for shift in range(40):
        discs = tuple((shift + 3.0 * i, 3.0 * j, 1.0) for i in range(10) for j in range(6))
        union = surge_solver._union_of_circles(discs, surge_solver.CIRCLE_QUAD_SEGS)
        assert union.area == pytest.approx(60 * np.pi, rel=1e-3)
    entries, kept = store.usage()
    assert kept <= 2_000_000
    assert entries < 40  # each union of 60 discs is ~190 KB: a count bound alone kept them all
    assert geometry_bytes(union) > 100_000
