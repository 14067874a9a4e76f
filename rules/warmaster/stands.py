"""Warmaster stands, units and formations, and the geometry only Warmaster needs (RULES.md 2.1).

Conventions (RULES.md 0 and 2.1), stated once for the Warmaster half:
- Table units are centimetres; a stand is a `rect` base (frontage x depth, depth along the facing)
  or, for a character, a round base. Footprints come from `rules.geometry.Base.footprint`.
- Distances between stands and units are measured between the closest points of the stands.
- "Touching" is a distance <= EPSILON; a stand is "on" another stand or "in" a terrain piece when
  their footprints share area (more than EPSILON), so stands may touch terrain edges and each other.
- The distance a stand moves is the greatest distance any point of it travels (2.1). For a hop from
  one pose to another that is the largest corner displacement of a rectangle (the displacement of
  a point is an affine function of the point, so its length peaks at a corner); an about-face on
  the spot therefore costs the diagonal. A round base is the same shape whatever its facing, so
  only its centre's travel counts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import LineString, Point, Polygon, box

from ..geometry import EPSILON, Base
from ..situation import Model, Situation, Unit, base_distance

#: Keywords that make a unit a character (a General, Hero or Wizard stand), FORMAT.md.
CHARACTER_KEYWORDS = frozenset({"CHARACTER", "GENERAL", "HERO", "WIZARD"})

#: How far apart (cm) two stands may sit and still count as aligned in a line or column when the
#: formation is recognised from positions: stands placed by hand are never exactly aligned.
FORMATION_SLACK = 0.1

#: A gap (cm) the engine leaves between its own placements and enemy stands, so that a stand it
#: places "not touching" an enemy is not touching it after rounding of stored coordinates.
ENEMY_CLEARANCE = 1e-3


def is_character(unit: Unit) -> bool:
    return bool(unit.keywords & CHARACTER_KEYWORDS)


#: 2.1: a stand is 4 x 2 cm (mm in the document, frontage first: either edge may face front).
STAND_MM = (40.0, 20.0)
#: 2.1: a character stand may instead be round, up to 2.5 cm across.
CHARACTER_ROUND_MM = 25.0
#: How far (mm) a size in the document may be from the rulebook's: only a float's rounding.
SIZE_SLACK_MM = 1e-6


def stand_size_problem(keywords: frozenset[str], base: Mapping[str, Any]) -> str | None:
    """2.1: None when `base` (a scenario's `models[].base`, in mm) is a stand of the rulebook's
    size for a unit with these keywords, else what 2.1 allows, for the error naming the field.

    Every distance the engine measures (moves, gaps, sight, touching) is between stands, so a
    stand of another size would be judged wrongly rather than not judged: it is refused when the
    scenario is read (the registry's `System.bases`).

    >>> stand_size_problem(frozenset({"INFANTRY"}), {"rect": [40, 20]}) is None
    True
    >>> stand_size_problem(frozenset({"HERO"}), {"round": 25}) is None
    True
    """
    ((kind, size),) = base.items()
    if kind == "rect" and any(
        all(abs(float(a) - b) <= SIZE_SLACK_MM for a, b in zip(size, way, strict=True))
        for way in (STAND_MM, STAND_MM[::-1])
    ):
        return None
    character = bool(keywords & CHARACTER_KEYWORDS)
    if character and kind == "round" and float(size) <= CHARACTER_ROUND_MM + SIZE_SLACK_MM:
        return None
    found = "a hull" if kind == "hull" else f"{kind} {json.dumps(size)}"
    rect = "a 4 x 2 cm rectangle (rect [40, 20] or [20, 40], in mm: either edge may face front)"
    if character:
        return (
            f"{found} is not a Warmaster character stand: it is {rect} or round, up to 2.5 cm "
            "across (round 25 or less) (RULES.md 2.1)"
        )
    return f"{found} is not a Warmaster stand: a stand is {rect} (RULES.md 2.1)"


# -- moving a stand ---------------------------------------------------------------------------


def corners(base: Base, x: float, y: float, facing: float) -> list[tuple[float, float]]:
    """The four corners of a rect stand at a pose (table coordinates)."""
    frontage, depth = base.size
    a = math.radians(facing)
    c, s = math.cos(a), math.sin(a)
    out = []
    for fx, fy in (
        (depth / 2, -frontage / 2),
        (depth / 2, frontage / 2),
        (-depth / 2, frontage / 2),
        (-depth / 2, -frontage / 2),
    ):
        out.append((x + fx * c - fy * s, y + fx * s + fy * c))
    return out


def distance_moved(model: Model, x: float, y: float, facing: float | None = None) -> float:
    """2.1: the distance a stand moves hopping from its pose to (x, y, facing): the greatest
    distance travelled by any of its points (largest corner displacement for a rectangle).

    >>> # an infantry stand turning about on the spot moves its diagonal, sqrt(4^2 + 2^2) = 4.47 cm
    """
    facing = model.facing if facing is None else facing
    if model.base.kind == "rect":
        before = corners(model.base, model.x, model.y, model.facing)
        after = corners(model.base, x, y, facing)
        return max(
            math.hypot(bx - ax, by - ay) for (ax, ay), (bx, by) in zip(before, after, strict=True)
        )
    centre = math.hypot(x - model.x, y - model.y)
    if model.base.kind == "round":
        return centre
    # Other shapes (not used by Warmaster stands): centre travel plus the turn of the far rim.
    turn = math.radians((facing - model.facing + 180) % 360 - 180)
    return centre + 2 * model.base.radius * abs(math.sin(turn / 2))


def same_facing(a: float, b: float, slack: float = EPSILON) -> bool:
    return abs((a - b + 180) % 360 - 180) <= slack


# -- distances between stands and units ---------------------------------------------------------


#: 2.1: the closest-points distance between two stands, measured like any two bases (a round
#: character from its true circle, so "within 20 cm" is exact).
stand_distance = base_distance


def stands_overlap(a: Model, b: Model) -> bool:
    """One stand is on another: they share more than a sliver of area (touching is fine).

    Kept apart from rules.situation.overlap on purpose: that one shrinks curved polygons by
    CURVE_SLACK before testing, this one measures a round base from its true circle with an
    EPSILON margin, so the two can disagree on slivers at the edge of touching.

    A round base is judged by its true circle, like stand_distance: the polygon standing for it
    pokes about 0.001 cm past the circle, and a character placed exactly in touch is not on top."""
    if a.base.kind != "round" and b.base.kind != "round":
        return overlaps(a.footprint, b.footprint)
    if b.base.kind == "round":
        a, b = b, a
    if b.base.kind == "round":
        reach = math.hypot(a.x - b.x, a.y - b.y)
        return reach < a.base.radius + b.base.radius - EPSILON
    centre = Point(a.x, a.y)
    return b.footprint.contains(centre) or b.footprint.distance(centre) < a.base.radius - EPSILON


def unit_distance(a: Iterable[Model], b: Iterable[Model]) -> float:
    """2.1: distance between units = the least distance between their stands."""
    b = list(b)
    return min((stand_distance(x, y) for x in a for y in b), default=math.inf)


def overlaps(a: Polygon, b: Polygon) -> bool:
    """One footprint is on another: they share more than a sliver of area (touching is fine)."""
    return a.intersects(b) and a.intersection(b).area > EPSILON


# -- formations ----------------------------------------------------------------------------------


def stands_together(stands: Sequence[Model], tolerance: float = EPSILON) -> bool:
    """2.1: every stand touches another stand of the unit (edge or corner), in one group."""
    if len(stands) <= 1:
        return True
    seen = {0}
    frontier = [0]
    while frontier:
        i = frontier.pop()
        for j, other in enumerate(stands):
            if j not in seen and stands[i].footprint.distance(other.footprint) <= tolerance:
                seen.add(j)
                frontier.append(j)
    return len(seen) == len(stands)


def formation(stands: Sequence[Model]) -> str:
    """2.1: "line", "column" or "irregular", recognised from the stands' positions.

    A line: every stand faces the same way, fronts level, side by side edge to edge. A column:
    every stand faces the same way, one behind another, each front edge against the rear edge of
    the stand ahead. Anything else is irregular. Hand-placed stands may be out by FORMATION_SLACK.
    A single stand counts as a line.
    """
    if len(stands) <= 1:
        return "line"
    first = stands[0]
    if any(
        m.base.kind != "rect"
        or any(
            abs(a - b) > FORMATION_SLACK for a, b in zip(m.base.size, first.base.size, strict=True)
        )
        or not same_facing(m.facing, first.facing, 0.5)
        for m in stands
    ):
        return "irregular"
    frontage, depth = first.base.size
    a = math.radians(first.facing)
    fx, fy = math.cos(a), math.sin(a)  # forward
    rx, ry = -fy, fx  # to the stand's right
    forward = [(m.x - first.x) * fx + (m.y - first.y) * fy for m in stands]
    across = [(m.x - first.x) * rx + (m.y - first.y) * ry for m in stands]

    def evenly(values: list[float], spacing: float) -> bool:
        ordered = sorted(values)
        return all(
            abs((b - a_) - spacing) <= FORMATION_SLACK
            for a_, b in zip(ordered, ordered[1:], strict=False)
        )

    if all(abs(f) <= FORMATION_SLACK for f in forward) and evenly(across, frontage):
        return "line"
    if all(abs(c) <= FORMATION_SLACK for c in across) and evenly(forward, depth):
        return "column"
    return "irregular"


# -- sweeping a shape along a straight line --------------------------------------------------------


def convex_pieces(obstacles: Iterable[Polygon]) -> list[Polygon]:
    """Convex pieces of the obstacles, in order (a convex polygon is its own piece)."""
    return [piece for pieces in _convex_pieces_each(obstacles) for piece in pieces]


def _convex_pieces_each(obstacles: Iterable[Polygon]) -> list[list[Polygon]]:
    """The convex pieces of each obstacle. Which are convex is asked of all of them at once:
    most are."""
    obstacles = np.asarray(list(obstacles), dtype=object)
    if not len(obstacles):
        return []
    convex = shapely.area(shapely.convex_hull(obstacles)) - shapely.area(obstacles) <= EPSILON
    out = []
    for obstacle, whole in zip(obstacles, convex, strict=True):
        if whole:
            out.append([obstacle])
        else:
            triangles = shapely.constrained_delaunay_triangles(obstacle)
            out.append([g for g in triangles.geoms if g.area > 0])
    return out


def sweep_intervals(
    shape: Polygon, ux: float, uy: float, t_max: float, obstacles: Iterable[Polygon]
) -> list[tuple[float, float]]:
    """The parameter ranges t in [0, t_max] where `shape` moved by t*(ux, uy) meets an obstacle.

    `shape` must be convex (a stand). Exact: the moved shape meets obstacle O exactly when t*u lies
    in the Minkowski sum O + (-shape), which for each convex piece of O is the convex hull of the
    pairwise vertex differences. The ends of an interval are touching positions.
    """
    obstacles = list(obstacles)
    if not obstacles:
        return []
    if t_max <= EPSILON:
        return [(0.0, 0.0)] if any(shape.intersects(o) for o in obstacles) else []
    region = shapely.union_all(touching_regions(obstacles, np.asarray(shape.exterior.coords[:-1])))
    path = LineString([(0.0, 0.0), (ux * t_max, uy * t_max)])
    hit = path.intersection(region)
    intervals = []
    for g in getattr(hit, "geoms", [hit]):
        if g.is_empty:
            continue
        ts = [px * ux + py * uy for px, py in g.coords]
        intervals.append((max(0.0, min(ts)), min(t_max, max(ts))))
    return merge_intervals(intervals)


def merge_intervals(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + 1e-9:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def interval_containing(
    intervals: list[tuple[float, float]], t: float
) -> tuple[float, float] | None:
    for a, b in intervals:
        if a - 1e-9 <= t <= b + 1e-9:
            return (a, b)
    return None


def swept_hull(shape: Polygon, dx: float, dy: float) -> Polygon:
    """The region a convex shape covers moving straight by (dx, dy): the hull of its corners at
    both ends (read from a line through them, as in touching_regions)."""
    corners = shapely.get_coordinates(shape.exterior)
    return shapely.convex_hull(shapely.linestrings(np.concatenate([corners, corners + (dx, dy)])))


# -- an index of the table, built once per situation -----------------------------------------------


@dataclass
class Board:
    """Stands and terrain of one situation, indexed for the repeated questions moves ask."""

    stands: list[Model]
    footprints: list[Polygon]
    tree: STRtree
    army_of: dict[str, str]
    table: Polygon
    characters: frozenset[str] = frozenset()  # ids of character units (2.9: not units)
    cache: dict = field(default_factory=dict)  # other per-situation indexes, by name

    @cached_property
    def on_table(self) -> Polygon:
        """The table grown by EPSILON: a footprint within it is on the table (touching the edge
        at most), asked of every spot the engine places a stand on."""
        return self.table.buffer(EPSILON)

    def counts(self, stand: Model) -> bool:
        """2.9: a stand that counts as part of a unit for closest enemy, sight, touching and
        blocking questions: every stand but a character's (alone or joined)."""
        return stand.unit not in self.characters

    def stands_near(self, region: Polygon, margin: float = 0.0) -> list[Model]:
        query = region if margin <= 0 else region.buffer(margin, join_style="mitre")
        return [self.stands[int(i)] for i in self.tree.query(query)]


def board(situation: Situation) -> Board:
    """The Board for a situation (kept in the situation's memo while it lives)."""
    cached = situation.memo.get("warmaster.board")
    if cached is not None:
        return cached
    stands = [m for u in situation.units for m in u.models]
    # Not prepared: the footprints belong to the situation's models, which threads may share,
    # and a prepared GEOS geometry must not be asked questions by two threads at once (issue
    # 15). A stand is a 4-corner rectangle, which preparing barely speeds up anyway.
    footprints = [m.footprint for m in stands]
    result = Board(
        stands,
        footprints,
        STRtree(footprints),
        {u.id: u.army for u in situation.units},
        box(0, 0, situation.table.width, situation.table.height),
        frozenset(u.id for u in situation.units if is_character(u)),
    )
    situation.memo["warmaster.board"] = result
    return result


def block_intervals(
    stands: Iterable[Model], ux: float, uy: float, t_max: float, obstacles: Iterable[Polygon]
) -> list[tuple[float, float]]:
    """sweep_intervals for a unit moving as a block: where any of its stands meets an obstacle."""
    obstacles = list(obstacles)
    out: list[tuple[float, float]] = []
    for m in stands:
        out.extend(sweep_intervals(m.footprint, ux, uy, t_max, obstacles))
    return merge_intervals(out)


def table_limit(table: Polygon, footprints: Iterable[Polygon], ux: float, uy: float) -> float:
    """How far footprints can move along the unit vector (ux, uy) and stay on the table."""
    x0, y0, x1, y1 = table.bounds
    limit = math.inf
    for fp in footprints:
        for cx, cy in list(fp.exterior.coords)[:-1]:
            for c, u, low, top in ((cx, ux, x0, x1), (cy, uy, y0, y1)):
                if u > EPSILON:
                    limit = min(limit, (top - c) / u)
                elif u < -EPSILON:
                    limit = min(limit, (low - c) / u)
    return max(0.0, limit)


def shape_offsets(stand: Model) -> np.ndarray:
    """The corners of a stand's footprint relative to its centre (the stand keeps its facing)."""
    return shapely.get_coordinates(stand.footprint.exterior)[:-1] - (stand.x, stand.y)


def touching_regions(obstacles: Iterable[Polygon], offsets: np.ndarray) -> np.ndarray:
    """For each convex piece of each obstacle, the centres where a convex stand shape (corners at
    `offsets` from its centre) meets it: the Minkowski sum piece + (-shape), the convex hull of
    the pairwise corner differences. Exact: the stand centred inside the region overlaps the
    piece, on its boundary it touches it, outside it is clear of it."""
    return touching_pieces(convex_pieces(obstacles), offsets)


def touching_pieces(pieces: list[Polygon], offsets: np.ndarray) -> np.ndarray:
    """touching_regions of convex pieces, one region each, in order."""
    if not pieces:
        return np.empty(0, dtype=object)
    # Every piece's corners in one array, each ring's closing corner left out.
    corners, piece = shapely.get_coordinates(shapely.get_exterior_ring(pieces), return_index=True)
    last = np.append(piece[1:] != piece[:-1], True)
    corners, piece = corners[~last], piece[~last]
    cloud = (corners[:, None, :] - offsets[None, :, :]).reshape(-1, 2)
    index = np.repeat(piece, len(offsets))
    # The hull of each piece's cloud of points, read from a line through them: GEOS takes the
    # same coordinates in the same order (the same hull, bit for bit), and a line is built in
    # one go where a multipoint is built a point object at a time.
    return shapely.convex_hull(shapely.linestrings(cloud, indices=index))


#: How much smaller (cm) the regions where a stand may not stand are made, so that touching their
#: edge is not taken for being on them (an overlap of TOUCH x 4 cm is far below EPSILON's area).
TOUCH = 1e-8

#: Segments per quarter circle of the ring of centres where a round stand touches an anchor
#: (free_contacts): the ring's corners lie on the true arcs and its straight pieces sag inside
#: them by at most r * (1 - cos(pi / 4 / RING_QUAD_SEGS)), 4e-7 cm for the largest character
#: base (25 mm), under EPSILON: a centre anywhere on the ring touches the anchor (RULES.md 0).
RING_QUAD_SEGS = 1024


def free_contacts(
    stand: Model,
    anchors: Sequence[Polygon],
    toward: tuple[float, float],
    *,
    table: Polygon,
    not_on: Iterable[Polygon] = (),
    clear_of: Iterable[Polygon] = (),
    clearance: float = 0.0,
    forbidden: Iterable[Polygon] = (),
    true_touch: bool = False,
) -> list[tuple[float, float]]:
    """Centres where `stand` (keeping its facing) touches one of the convex `anchors` and is on
    the table, not on any of `not_on` (touching is fine), more than `clearance` from each of
    `clear_of`, and outside the centre regions `forbidden`: the nearest to `toward` of each free
    stretch, nearest first. Exact, not sampled: the centres touching an anchor are the boundary
    of a convex region (touching_regions), the centres on an obstacle are regions of the same
    kind (made TOUCH smaller, so touching stays allowed; grown by `clearance` for `clear_of`), and
    each free stretch is what the boundary keeps outside them. Callers check the spot they take
    once more with their own rule (floating point at the ends of a stretch).

    `true_touch`: a round stand must touch an anchor with its circle (RULES.md 0), not merely
    with the polygon drawn round the circle, which reaches up to 0.12 % of the radius further
    (0.0012 cm for a 20 mm base: enough to stop a 30 cm escape short of contact, or to pass one
    a hair too long). Its ring is then each anchor grown by the radius (RING_QUAD_SEGS), which
    no ring enters but another anchor's (kept off that region, when there are several): an
    anchor also given in `not_on` is left out there, as its polygon's region would cover the
    whole ring. The regions of `not_on`, `clear_of` and the table stay the polygon's, the side
    on which it is safe. Without it (a spot that need only be clear of the anchors), the
    polygon touches them."""
    offsets = shape_offsets(stand)
    anchors, not_on, clear_of = list(anchors), list(not_on), list(clear_of)
    circle = true_touch and stand.base.kind == "round"
    if circle:
        not_on = [p for p in not_on if not any(p is a for a in anchors)]
    if not anchors:
        return []
    ringed = [] if circle else anchors  # the anchors whose rings are their regions' boundary
    each = _convex_pieces_each(ringed + not_on + clear_of)  # which are convex, asked once
    a, b = len(ringed), len(ringed) + len(not_on)
    anchor_pieces, on, clear = (sum(part, []) for part in (each[:a], each[a:b], each[b:]))
    if not circle and not anchor_pieces:
        return []
    # The regions of all three in one go (each region is the same as on its own).
    regions = touching_pieces(anchor_pieces + on + clear, offsets)
    own: list[np.ndarray] = []
    if circle:
        rings = shapely.buffer(
            np.asarray(anchors, dtype=object), stand.base.radius, quad_segs=RING_QUAD_SEGS
        )
        if len(rings) > 1:  # never on another anchor (a ring never enters its own)
            own = [shapely.buffer(rings, -TOUCH, join_style="mitre")]
    else:
        rings = regions[: len(anchor_pieces)]
    grow = np.repeat([-TOUCH, clearance + TOUCH], [len(on), len(clear)])
    blocked = [
        *own,
        shapely.buffer(regions[len(anchor_pieces) :], grow, join_style="mitre"),
        np.asarray(list(forbidden), dtype=object),
    ]
    x0, y0, x1, y1 = table.bounds
    on_table = box(  # touching the edge at most
        x0 - offsets[:, 0].min(),
        y0 - offsets[:, 1].min(),
        x1 - offsets[:, 0].max(),
        y1 - offsets[:, 1].max(),
    )
    free = shapely.intersection(
        shapely.difference(
            shapely.get_exterior_ring(rings), shapely.union_all(np.concatenate(blocked))
        ),
        on_table,
    )
    pieces = shapely.get_parts(free)
    pieces = pieces[~shapely.is_empty(pieces)]
    # Of a free stretch, its point nearest `toward`; a free point (a stretch of none), itself.
    stretches = shapely.get_type_id(pieces) == shapely.GeometryType.LINESTRING
    pieces[stretches] = shapely.line_interpolate_point(
        pieces[stretches], shapely.line_locate_point(pieces[stretches], Point(toward))
    )
    points = [(x, y) for x, y in shapely.get_coordinates(pieces).tolist()]
    return sorted(points, key=lambda c: math.hypot(c[0] - toward[0], c[1] - toward[1]))


def centroid(stands: Iterable[Model]) -> tuple[float, float]:
    stands = list(stands)
    return (sum(m.x for m in stands) / len(stands), sum(m.y for m in stands) / len(stands))
