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
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
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


def fmt(value: float, unit: str = "") -> str:
    """Distances in findings, in every game: two decimals, no trailing zeros, never "-0"; the
    system's unit (`'"'`, `" cm"`) appended when given."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return (text if text != "-0" else "0") + unit


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
