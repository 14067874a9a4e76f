"""The reach region's shadows (rules/pathfinding.py `_shadows`, RULES.md 1.3): a run of touching
segments facing the eye casts one polygon, which must hide exactly what one shadow per segment
(the convex hull of the segment and its ends projected far away) hides within the disc."""

import math

import numpy as np
import pytest
import shapely
from shapely.geometry import Point, Polygon

from rules.pathfinding import _shadows


def facing_pairs(eye, rho, rings):
    """(V, rho, segs, centre, seg, da, db) for one eye and the segments of `rings` facing it,
    as `Navigator._visible_pieces` builds them."""
    segs = np.concatenate(
        [np.hstack([np.asarray(r[:-1], float), np.asarray(r[1:], float)]) for r in rings]
    )
    vx, vy = eye
    ax, ay, bx, by = segs.T
    side = (bx - ax) * (vy - ay) - (by - ay) * (vx - ax)
    da, db = np.hypot(ax - vx, ay - vy), np.hypot(bx - vx, by - vy)
    seg = np.flatnonzero((side > 1e-12) & (da > 1e-9) & (db > 1e-9))
    centre = np.zeros(len(seg), dtype=np.intp)
    return np.array([eye], float), np.array([rho], float), segs, centre, seg, da[seg], db[seg]


def one_per_segment(eye, rho, segs, seg):
    """The definition: each facing segment's own convex shadow, far beyond the disc."""
    shadows = []
    for a0, a1, b0, b1 in segs[seg]:
        a, b, v = np.array([a0, a1]), np.array([b0, b1]), np.asarray(eye, float)
        far = max(rho * 2.5 + 1.0, 2 * max(np.hypot(*(a - v)), np.hypot(*(b - v))))
        fa = v + (a - v) * far / np.hypot(*(a - v))
        fb = v + (b - v) * far / np.hypot(*(b - v))
        mid = (fa + fb) / 2 - v
        fm = v + mid / np.hypot(*mid) * far * 2
        shadows.append(shapely.convex_hull(shapely.multipoints([a, b, fb, fm, fa])))
    return shapely.union_all(shadows)


def ring(cx, cy, r, n, start=0.0):
    pts = [
        (
            cx + r * math.cos(start + 2 * math.pi * k / n),
            cy + r * math.sin(start + 2 * math.pi * k / n),
        )
        for k in range(n)
    ]
    return [*pts, pts[0]]


CASES = {
    # an octagon beside the eye (a run of 3-4 facing sides)
    "octagon": ((0.0, 0.0), 8.0, [ring(4, 1, 1.5, 8)[::-1]]),
    # a long wall very close to the eye: its face turns through nearly 180 degrees
    "close wall": (
        (0.0, 0.0),
        6.0,
        [[(-20, 0.05), (20, 0.05), (20, 0.5), (-20, 0.5), (-20, 0.05)]],
    ),
    # the eye inside a ring wrapped all round it (the table's edge seen from inside): the run is
    # cut so no shadow turns more than the limit
    "all round": ((0.3, -0.2), 5.0, [ring(0, 0, 3.0, 24)]),
    # two obstacles, one hiding part of the other
    "two": ((0.0, 0.0), 10.0, [ring(3, 0, 1.0, 12)[::-1], ring(7, 1, 2.0, 6)[::-1]]),
}


@pytest.mark.parametrize("name", CASES)
def test_a_run_of_segments_hides_what_its_segments_hide(name):
    eye, rho, rings = CASES[name]
    V, R, segs, centre, seg, da, db = facing_pairs(eye, rho, rings)
    assert len(seg), "the case must have segments facing the eye"
    polygons, owner = _shadows(V, R, segs, centre, seg, da, db)
    assert all(p.is_valid for p in polygons)
    assert (owner == 0).all()
    assert len(polygons) <= len(seg)
    disc = Point(eye).buffer(rho, quad_segs=64)
    runs = disc.intersection(shapely.union_all(polygons))
    each = disc.intersection(one_per_segment(eye, rho, segs, seg))
    assert runs.symmetric_difference(each).area < 1e-9
    assert runs.area > 0


def test_the_ring_round_the_eye_is_cut_into_several_runs():
    eye, rho, rings = CASES["all round"]
    V, R, segs, centre, seg, da, db = facing_pairs(eye, rho, rings)
    polygons, _ = _shadows(V, R, segs, centre, seg, da, db)
    assert len(seg) == 24  # every side faces an eye inside
    assert 3 <= len(polygons) < 24
    # what the ring hides from inside is everything beyond it
    disc = Point(eye).buffer(rho, quad_segs=64)
    inside = Polygon(rings[0])
    assert (
        disc.intersection(shapely.union_all(polygons))
        .symmetric_difference(disc.difference(inside))
        .area
        < 1e-9
    )


def test_no_segments_no_shadows():
    polygons, owner = _shadows(
        np.zeros((1, 2)),
        np.ones(1),
        np.empty((0, 4)),
        np.empty(0, np.intp),
        np.empty(0, np.intp),
        np.empty(0),
        np.empty(0),
    )
    assert len(polygons) == 0 and len(owner) == 0
