"""Bases, footprints and distances, shared by both game systems (RULES.md 0, 1.1, 2.1).

Conventions, stated once:
- Coordinates are in the system's unit (40K inches, Warmaster centimetres); base sizes arrive in
  millimetres and are converted once, by `Base.from_document`.
- Origin top-left, x to the right, y downwards (as in SVG). Facing is degrees clockwise from +x,
  which with y downwards is the ordinary mathematical rotation of the drawn shape.
- "Within D" means distance <= D + EPSILON; "touching" means distance <= EPSILON.
- Round bases are measured analytically (centre distance minus radii): exact, and fast. Where a
  polygon must stand for a circle (overlap, free space), it is circumscribed, never inscribed, so a
  placement the engine accepts never overlaps in reality (GEOMETRY-NOTES.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import Any

import shapely
from shapely import affinity
from shapely.geometry import Point, Polygon

EPSILON = 1e-6
MM_PER_INCH = 25.4
MM_PER_CM = 10.0
CIRCLE_SEGMENTS = 64  # vertices of a polygon standing for a circle or an ellipse


def within(distance: float, limit: float) -> bool:
    """RULES.md 0: "within D" means distance <= D + 1e-6."""
    return distance <= limit + EPSILON


def fmt(value: float, unit: str = "", digits: int = 2) -> str:
    """Distances in findings, in every game: two decimals (or `digits`), no trailing zeros, never
    "-0"; the system's unit (`'"'`, `" cm"`) appended when given."""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return (text if text != "-0" else "0") + unit


def fmt_beside(value: float, limit: float, unit: str = "") -> str:
    """`fmt(value)` for a sentence that sets `value` against `limit`: with as many decimals as
    it takes (up to 7) to tell them apart when they differ but two decimals read the same (RULES.md
    0: 1.002" against a 1" limit fails, and must not read "ends 1" ... within 1"")."""
    for digits in range(2, 8) if value != limit else ():
        if fmt(value, digits=digits) != fmt(limit, digits=digits):
            return fmt(value, unit, digits)
    return fmt(value, unit)


def touching(distance: float) -> bool:
    """RULES.md 0: base contact means distance <= 1e-6 (never exact equality)."""
    return distance <= EPSILON


def circumscribed_circle(
    cx: float, cy: float, radius: float, segments: int = CIRCLE_SEGMENTS
) -> Polygon:
    """A regular polygon whose edges touch the circle from outside (never smaller than it)."""
    r = radius / math.cos(math.pi / segments)
    return Polygon(
        [
            (
                cx + r * math.cos(2 * math.pi * i / segments),
                cy + r * math.sin(2 * math.pi * i / segments),
            )
            for i in range(segments)
        ]
    )


@dataclass(frozen=True)
class Base:
    """A model's base in table units: round, oval, rect or hull (FORMAT.md `models[].base`).

    `kind` is one of "round", "oval", "rect", "hull"; `size` holds (diameter,) for round,
    (length, width) for oval (length along the facing), (frontage, depth) for rect (depth along
    the facing), and `hull` the outline's vertices relative to the centre, facing +x.
    `mm` keeps what the document said, so export gives back the same numbers.
    """

    kind: str
    size: tuple[float, ...] = ()
    hull: tuple[tuple[float, float], ...] = ()

    @classmethod
    def from_document(cls, doc: dict[str, Any], mm_per_unit: float) -> Base:
        (kind,) = doc.keys()
        value = doc[kind]
        if kind == "round":
            return cls("round", (float(value) / mm_per_unit,))
        if kind in ("oval", "rect"):
            return cls(kind, (float(value[0]) / mm_per_unit, float(value[1]) / mm_per_unit))
        if kind == "hull":
            return cls("hull", hull=tuple((float(x), float(y)) for x, y in value))
        raise ValueError(f"unknown base kind {kind!r}")

    @cached_property
    def radius(self) -> float:
        """Radius of a round base; for other shapes, the radius of the smallest enclosing circle
        about the centre (an upper bound used to prune distance checks). Cached: distance
        checks read it tens of thousands of times in one surge search."""
        if self.kind == "round":
            return self.size[0] / 2
        if self.kind == "oval":
            return max(self.size) / 2
        if self.kind == "rect":
            return math.hypot(self.size[0], self.size[1]) / 2
        return max(math.hypot(x, y) for x, y in self.hull)

    @cached_property
    def _unit_shape(self) -> Polygon:
        """The footprint centred on the origin, facing +x (circles circumscribed)."""
        if self.kind == "round":
            return circumscribed_circle(0.0, 0.0, self.size[0] / 2)
        if self.kind == "oval":
            length, width = self.size
            circle = circumscribed_circle(0.0, 0.0, 1.0)
            return affinity.scale(circle, length / 2, width / 2, origin=(0, 0))
        if self.kind == "rect":
            frontage, depth = self.size
            # Depth runs along the facing (+x), frontage across it.
            return Polygon(
                [
                    (-depth / 2, -frontage / 2),
                    (depth / 2, -frontage / 2),
                    (depth / 2, frontage / 2),
                    (-depth / 2, frontage / 2),
                ]
            )
        return Polygon(self.hull)

    def footprint(self, x: float, y: float, facing: float = 0.0) -> Polygon:
        """The base placed with its centre at (x, y), rotated to `facing` degrees."""
        shape = self._unit_shape
        if facing % 360 and self.kind != "round":
            shape = affinity.rotate(shape, facing, origin=(0, 0))
        return affinity.translate(shape, x, y)

    def to_document(self, mm_per_unit: float) -> dict[str, Any]:
        if self.kind == "round":
            return {"round": _tidy(self.size[0] * mm_per_unit)}
        if self.kind in ("oval", "rect"):
            return {self.kind: [_tidy(v * mm_per_unit) for v in self.size]}
        return {"hull": [list(p) for p in self.hull]}


def _tidy(value: float) -> float | int:
    rounded = round(value, 6)
    return int(rounded) if rounded == int(rounded) else rounded


def footprint_distance(
    a_base: Base, a_pos: tuple[float, float, float], b_base: Base, b_pos: tuple[float, float, float]
) -> float:
    """Horizontal distance between two placed bases (0 if they overlap), RULES.md 1.1.

    `*_pos` is (x, y, facing). Round to round is analytic; anything else uses shapely on the
    footprints (ellipses are polygons circumscribing the true ellipse within 0.1 %). For two
    placed models, rules.situation.base_distance is the measure: it differs here for a round base
    beside a polygon, which it measures from the true circle, not its circumscribed polygon.
    """
    if a_base.kind == "round" and b_base.kind == "round":
        centres = math.hypot(a_pos[0] - b_pos[0], a_pos[1] - b_pos[1])
        return max(0.0, centres - a_base.radius - b_base.radius)
    return float(a_base.footprint(*a_pos).distance(b_base.footprint(*b_pos)))


def point_footprint_distance(
    base: Base, pos: tuple[float, float, float], point: tuple[float, float]
) -> float:
    """Distance from a point on the table to a placed base (0 inside it)."""
    if base.kind == "round":
        return max(0.0, math.hypot(pos[0] - point[0], pos[1] - point[1]) - base.radius)
    return float(base.footprint(*pos).distance(Point(point)))


def is_simple_polygon(points: Sequence[tuple[float, float]]) -> bool:
    """A footprint must be a simple polygon: at least 3 distinct vertices, no self-intersection."""
    if len(points) < 3:
        return False
    polygon = Polygon(points)
    return bool(polygon.is_valid and polygon.area > EPSILON and shapely.is_simple(polygon.exterior))


# -- moving bases (RULES.md 1.3). Free space and shortest paths: rules/pathfinding.py. ----------
def segment_point_distance(
    a: tuple[float, float], b: tuple[float, float], p: tuple[float, float]
) -> float:
    """Distance from point p to the segment a-b (a round base sliding along a-b meets a round
    base at p when this is less than the sum of their radii)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2
    t = max(0.0, min(1.0, t))
    return math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy))


def swept_footprint(
    base: Base, a: tuple[float, float], b: tuple[float, float], facing: float = 0.0
) -> Polygon:
    """The area a base covers sliding straight from a to b at a fixed facing.

    Exact for convex bases (round, oval, rect, convex hulls): the convex hull of the base at
    both ends. For a concave hull it is a little larger than the truth (never smaller).
    """
    if base.kind == "round":
        if a[0] == b[0] and a[1] == b[1]:
            return Point(a).buffer(base.radius)
        return shapely.LineString([a, b]).buffer(base.radius)
    return base.footprint(a[0], a[1], facing).union(base.footprint(b[0], b[1], facing)).convex_hull


# -- ovals measured as true ellipses (RULES.md 0, 1.1) -------------------------------------------
# An oval's footprint polygon circumscribes its ellipse (up to 0.12 % of the half length too
# large: 0.004" on a 150 mm oval), which is right for "may not overlap" but not for distances:
# RULES.md 0 measures to 1e-6. Distances from an oval are therefore taken from the ellipse.


_XY = tuple[float, float]


def _ellipse_root(r0: float, z0: float, z1: float, g: float) -> float:
    """The root s of (r0 z0 / (s + r0))^2 + (z1 / (s + 1))^2 = 1 by bisection, as in D. Eberly,
    "Distance from a Point to an Ellipse, an Ellipsoid, or a Hyperellipsoid" (robust to
    rounding), to a bracket of a few units in the last place."""
    n0 = r0 * z0
    s0 = z1 - 1.0
    s1 = 0.0 if g < 0 else math.hypot(n0, z1) - 1.0
    s = 0.0
    for _ in range(200):
        s = (s0 + s1) / 2
        if s1 - s0 <= 4e-16 * max(abs(s), 1.0):
            break
        ratio0, ratio1 = n0 / (s + r0), z1 / (s + 1.0)
        value = ratio0 * ratio0 + ratio1 * ratio1 - 1.0
        if value > 0:
            s0 = s
        elif value < 0:
            s1 = s
        else:
            break
    return s


def ellipse_boundary_distance(a: float, b: float, x: float, y: float) -> float:
    """Distance from (x, y) to the curve x^2/a^2 + y^2/b^2 = 1 (half axes a along x and b along
    y, centred on the origin), from inside or outside: the closest point by Eberly's method,
    exact to rounding."""
    if a < b:
        a, b, x, y = b, a, y, x
    x, y = abs(x), abs(y)
    if y > 0:
        if x > 0:
            z0, z1 = x / a, y / b
            g = z0 * z0 + z1 * z1 - 1.0
            if g == 0:
                return 0.0
            r0 = (a / b) ** 2
            s = _ellipse_root(r0, z0, z1, g)
            return math.hypot(r0 * x / (s + r0) - x, y / (s + 1.0) - y)
        return abs(y - b)
    numer, denom = a * x, a * a - b * b
    if numer < denom:
        t = numer / denom
        return math.hypot(a * t - x, b * math.sqrt(1.0 - t * t))
    return abs(x - a)


class _Oval:
    """An oval placed on the table as its true ellipse: half axes `a` (along its facing) and `b`
    (across it), and the maps between table coordinates and its own frame (centre at the origin,
    facing along +x), where the curve is (a cos t, b sin t)."""

    def __init__(self, base: Base, pos: tuple[float, float, float]):
        self.a, self.b = base.size[0] / 2, base.size[1] / 2
        self.cx, self.cy = pos[0], pos[1]
        angle = math.radians(pos[2])
        self.cos, self.sin = math.cos(angle), math.sin(angle)

    def local(self, x: float, y: float) -> _XY:
        """A table point in the oval's frame."""
        dx, dy = x - self.cx, y - self.cy
        return self.cos * dx + self.sin * dy, -self.sin * dx + self.cos * dy

    def point(self, t: float) -> _XY:
        """The curve's point at parameter t, on the table."""
        x, y = self.a * math.cos(t), self.b * math.sin(t)
        return self.cx + self.cos * x - self.sin * y, self.cy + self.sin * x + self.cos * y

    def tangent(self, t: float) -> _XY:
        """The curve's derivative at parameter t, on the table (its own derivative points back
        at the centre: -(point(t) - centre))."""
        x, y = -self.a * math.sin(t), self.b * math.cos(t)
        return self.cos * x - self.sin * y, self.sin * x + self.cos * y

    def level(self, x: float, y: float) -> float:
        """The ellipse's implicit function at a table point: at most 1 on or inside it."""
        lx, ly = self.local(x, y)
        return (lx / self.a) ** 2 + (ly / self.b) ** 2

    def parameter(self, x: float, y: float) -> float:
        """The curve parameter of the point of the curve in the direction of a table point."""
        lx, ly = self.local(x, y)
        return math.atan2(ly / self.b, lx / self.a)


def _ellipse_segment_distance(a: float, b: float, p: _XY, q: _XY) -> float:
    """Distance between the ellipse's curve and the inside of the segment p-q (both in the
    ellipse's frame; the segment known to miss the filled ellipse; the ends are the caller's):
    where it falls within the segment, the distance from the line of the ellipse point whose
    tangent is parallel to it, else infinity."""
    best = math.inf
    ux, uy = q[0] - p[0], q[1] - p[1]
    length = math.hypot(ux, uy)
    if length == 0:
        return best
    ux, uy = ux / length, uy / length
    theta = math.atan2(-b * ux, a * uy)
    for sign in (1.0, -1.0):
        ex, ey = sign * a * math.cos(theta), sign * b * math.sin(theta)
        along = (ex - p[0]) * ux + (ey - p[1]) * uy
        if 0.0 < along < length:
            best = min(best, abs((ex - p[0]) * uy - (ey - p[1]) * ux))
    return best


def _segment_meets_ellipse(a: float, b: float, p: _XY, q: _XY) -> bool:
    """Does the segment p-q (in the ellipse's frame) touch the filled ellipse? Scaled by the half
    axes the ellipse is the unit disc, and the segment a segment."""
    return segment_point_distance((p[0] / a, p[1] / b), (q[0] / a, q[1] / b), (0.0, 0.0)) <= 1.0


def oval_distance(
    a_base: Base,
    a_pos: tuple[float, float, float],
    b_base: Base,
    b_pos: tuple[float, float, float],
    footprints: tuple[Polygon, Polygon] | None = None,
) -> float:
    """Horizontal distance between an oval and another placed base (0 if they overlap), RULES.md
    1.1, measured from the true ellipse (`a_base` is the oval): to a round base from its centre,
    to a rect or hull from its edges, to another oval by the common normal. `footprints`: the
    two bases' footprints when the caller has them (a placed model keeps its own)."""
    if footprints is None:
        footprints = (a_base.footprint(*a_pos), b_base.footprint(*b_pos))
    oval = _Oval(a_base, a_pos)
    a, b = oval.a, oval.b
    if b_base.kind == "round":
        if oval.level(b_pos[0], b_pos[1]) <= 1.0:
            return 0.0
        x, y = oval.local(b_pos[0], b_pos[1])
        return max(0.0, ellipse_boundary_distance(a, b, x, y) - b_base.radius)
    if b_base.kind == "oval":
        return _two_ovals_distance(oval, _Oval(b_base, b_pos), *footprints)
    ring = [oval.local(x, y) for x, y in footprints[1].exterior.coords]
    edges = list(zip(ring, ring[1:], strict=False))
    if any(_segment_meets_ellipse(a, b, p, q) for p, q in edges):
        return 0.0
    if Polygon(ring).contains(Point(0.0, 0.0)):
        return 0.0  # the oval lies inside the outline
    corners = min(ellipse_boundary_distance(a, b, x, y) for x, y in ring[:-1])
    return min(corners, *(_ellipse_segment_distance(a, b, p, q) for p, q in edges))


def _two_ovals_distance(oval_a: _Oval, oval_b: _Oval, poly_a: Polygon, poly_b: Polygon) -> float:
    """Two ovals: 0 when they overlap (the least of A's implicit function over B's curve is at
    most 1, or one centre lies in the other), else the length of their common normal, found by
    Newton's method from the closest points of the footprint polygons (within 0.12 % of the
    ellipses, so the method starts next to the answer)."""
    rough = float(poly_a.distance(poly_b))

    # overlap: B's curve dips into A (A's implicit function below 1 somewhere on it)
    def dip(t: float) -> float:
        return oval_a.level(*oval_b.point(t))

    if rough == 0:
        # (the polygons hold the ellipses: apart, the ellipses are apart too)
        if oval_a.level(oval_b.cx, oval_b.cy) <= 1.0 or oval_b.level(oval_a.cx, oval_a.cy) <= 1.0:
            return 0.0
        samples = [2 * math.pi * k / 128 for k in range(128)]
        values = [dip(t) for t in samples]
        if min(values) <= 1.0:
            return 0.0
        for k in sorted(range(128), key=values.__getitem__)[:2]:
            lo, hi = samples[k] - 2 * math.pi / 128, samples[k] + 2 * math.pi / 128
            if _golden_min(dip, lo, hi) <= 1.0:
                return 0.0
    # the closest points of the polygons, as parameters on each ellipse
    pa, pb = shapely.shortest_line(poly_a, poly_b).coords
    ta, tb = oval_a.parameter(*pa), oval_b.parameter(*pb)
    for _ in range(50):
        (pax, pay), (pbx, pby) = oval_a.point(ta), oval_b.point(tb)
        dx, dy = pax - pbx, pay - pby
        (tax, tay), (tbx, tby) = oval_a.tangent(ta), oval_b.tangent(tb)
        f1, f2 = dx * tax + dy * tay, dx * tbx + dy * tby
        j11 = tax * tax + tay * tay - (dx * (pax - oval_a.cx) + dy * (pay - oval_a.cy))
        j12 = -(tbx * tax + tby * tay)
        j21 = tax * tbx + tay * tby
        j22 = -(tbx * tbx + tby * tby) - (dx * (pbx - oval_b.cx) + dy * (pby - oval_b.cy))
        det = j11 * j22 - j12 * j21
        if det == 0:
            break
        step_a = (-f1 * j22 + f2 * j12) / det
        step_b = (-j11 * f2 + j21 * f1) / det
        ta, tb = ta + step_a, tb + step_b
        if abs(step_a) < 1e-15 and abs(step_b) < 1e-15:
            break
    exact = math.dist(oval_a.point(ta), oval_b.point(tb))
    # each ellipse lies inside its polygon, within 0.12 % of its half length: an answer outside
    # that band is not the common normal of the closest points (never expected), so the polygons
    # answer instead
    slack = 0.003 * (max(oval_a.a, oval_a.b) + max(oval_b.a, oval_b.b)) + EPSILON
    return exact if rough - EPSILON <= exact <= rough + slack else rough


def _golden_min(f: Callable[[float], float], lo: float, hi: float) -> float:
    """The least value of f on [lo, hi] (f unimodal there), by golden-section search."""
    ratio = (math.sqrt(5) - 1) / 2
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(80):
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = f(x2)
    return min(f1, f2)


# -- overlap measured on the true curves (RULES.md 0: "touching" is within 1e-6) ----------------
def ellipse_segment_gap(base: Base, pos: tuple[float, float, float], p: _XY, q: _XY) -> float:
    """Distance from the segment p-q (a point when p == q) to the filled ellipse of the oval
    `base` placed at `pos` (x, y, facing): 0 when the segment touches or enters it, else the
    exact distance from the true curve (RULES.md 1.1). A round base meets the oval when its
    centre, or the segment its centre slides along, is within its radius of it."""
    oval = _Oval(base, pos)
    a, b = oval.a, oval.b
    lp, lq = oval.local(*p), oval.local(*q)
    if _segment_meets_ellipse(a, b, lp, lq):
        return 0.0
    ends = min(ellipse_boundary_distance(a, b, *lp), ellipse_boundary_distance(a, b, *lq))
    return min(ends, _ellipse_segment_distance(a, b, lp, lq))


def _shrunk(base: Base) -> Base:
    """The oval with both half axes EPSILON shorter: its curve lies inside the true one, at most
    EPSILON from it, so a shape that meets it has gone more than touching into the oval."""
    length, width = base.size
    return Base("oval", (length - 2 * EPSILON, width - 2 * EPSILON))


def polygon_enters_oval(
    base: Base, pos: tuple[float, float, float], outline: Sequence[tuple[float, float]]
) -> bool:
    """Does the polygon with these vertices (table coordinates, closed or not) overlap the oval
    `base` at `pos` by more than touching (RULES.md 0)? It does when one of its edges meets
    the oval shrunk by EPSILON, or the oval's centre lies inside it (the oval wholly inside)."""
    inner = _shrunk(base)
    ring = list(outline)
    if ring[0] != ring[-1]:
        ring.append(ring[0])
    if any(ellipse_segment_gap(inner, pos, p, q) == 0.0 for p, q in pairwise(ring)):
        return True
    return bool(Polygon(ring).contains(Point(pos[0], pos[1])))


def ovals_overlap(
    a_base: Base, a_pos: tuple[float, float, float], b_base: Base, b_pos: tuple[float, float, float]
) -> bool:
    """Do two ovals overlap by more than touching (RULES.md 0)? Their ellipses, each shrunk by
    EPSILON, meet (`oval_distance` is 0 only for ellipses that touch or overlap)."""
    return oval_distance(_shrunk(a_base), a_pos, _shrunk(b_base), b_pos) <= 0.0
