"""Caches bounded in bytes, not only in entries (issue 16): the size estimate they use, and the
navigator cache (rules/pathfinding.py) kept within its byte bound."""

import numpy as np
import pytest
from shapely.geometry import Point, box

from rules import pathfinding
from rules.memory import approximate_bytes
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
