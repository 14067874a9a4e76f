"""Shortest ground paths and reachable regions for a base among obstacles (RULES.md 1.3, 1.5).

A `Navigator` answers, for one base radius on one board state:

- `free_space`: where the base centre may stand or pass (table shrunk by the radius, minus the
  hard obstacles inflated by the radius);
- `shortest_path(start, goal, z_start=0, z_end=0) -> (length, waypoints) | None`: the length
  includes the climbing cost (`path_cost`); waypoints are (x, y) tuples from start to goal;
- `reachable_region(start, distance)`: the centres reachable within `distance`, conservative
  (never includes unreachable ground; see below);
- `segment_clear(a, b)`, `path_cost(waypoints, z_start, z_end)`.

Use `navigator(width, height, radius, hard, climbs)`: it caches one navigator per board state
(the obstacles' keys), radius and table, so a move judging several models builds it once.

How it works (GEOMETRY-NOTES.md): a visibility graph over the inflated obstacles. Nodes are the
convex corners of the inflated obstacles (the reflex vertices of the free space), edges join
pairs of nodes that see each other and whose segment is tangent to the obstacle at both ends
(other edges can never be on a shortest path). A query tests the straight segment first, then
runs A* (heapq, Euclidean heuristic) with the edges from the start and to the goal checked lazily,
only when A* reaches them: the start's tangent nodes are sorted by their estimate once (numpy)
and enter the heap one at a time, a node's edge to the goal is considered when the node is
closed, and a path the search charged no climbing is not measured for climbing again.

The graph costs corners squared to build whole. A table of more than `EAGER_GRAPH_CORNERS`
corners (a crowded 600-model table has 3,500) builds it row by row instead: a node's edges the
first time a search reaches the node, by the same tests on the same pairs, so every row is the
one the whole graph has and every answer is the same (issue 16: a surge on such a table reaches
80 of its 3,500 rows). Once searches have built 1 in `LAZY_GRAPH_FRACTION` rows the rest is
built whole, so a search over the whole table costs little more than the whole graph would.

Approximations, named:
- Inflation is a circumscribed buffer: arcs are replaced by polygon edges lying outside the true
  arc (by at most 0.9 % of the radius for discs, 2 % at polygon corners: `DISC_FACTOR`,
  `ARC_FACTOR`), while straight faces are offset by exactly the radius (`inflate`), so the free
  space is never larger than the true one and a path found never cuts into an obstacle.
- A start or goal that lies inside that sliver (a model in base contact with an enemy, say) is
  snapped to the nearest free point when it is within `snap` of it; the short hop is part of the
  path and its length counts.
- Bases that are not round are inflated by their enclosing circle (the base can turn freely while
  it moves, and the circle covers every turn); callers that must be exact about an oval's sweep
  check the swept footprint themselves (rules.wh40k.moving does).
- Climbing (1.5): "climb" obstacles are not blocking; a segment crossing one pays
  `height` up and `height` down (less at an end that is already on it, see `path_cost`). The
  search adds that per edge, so a path that bends inside one feature is charged once per edge
  during search (conservative), while the reported length uses `path_cost` on the whole path.
- `reachable_region` treats climb obstacles as blocking (conservative: ground reachable only by
  climbing is left out; the "if it can" searches add it, rules/wh40k/moving.py `climbing_reach`).
"""

from __future__ import annotations

import heapq
import math
import threading
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.ops import nearest_points

from . import budget
from .geometry import EPSILON

#: Quarter-circle segments of an inflation arc (6 -> 24 per full circle). Fewer make the graph
#: smaller (its preparation grows with the square of the corners), more make it tighter.
ARC_QUAD_SEGMENTS = 6
#: Circumscribing factor for a circle of 4 * ARC_QUAD_SEGMENTS equal sides: edges never cut
#: inside the true circle.
DISC_FACTOR = 1.0 / math.cos(math.pi / (4 * ARC_QUAD_SEGMENTS)) + 1e-9
#: The same for the rounded corners of a buffered polygon. GEOS splits a corner's arc into a
#: rounded number of equal steps, so one step can span up to 1.5 quanta: the factor covers that.
ARC_FACTOR = 1.0 / math.cos(0.75 * math.pi / (2 * ARC_QUAD_SEGMENTS)) + 1e-9
#: How far a start or goal may lie inside the circumscribed sliver and still be snapped to free
#: space (more than the sliver for any pair of bases up to 170 mm: 6.7" x 0.9 % = 0.06"). The hop
#: is part of the path, and the move judge checks every segment exactly.
DEFAULT_SNAP = 0.08
#: CPU seconds per (corners squared) to build the path graph, measured (bench/cost_model.py):
#: a search is refused before this step when its estimate exceeds the time left (rules/budget.py).
GRAPH_SECONDS = 1.1e-7
_TANGENT_EPS = 1e-12
#: The graph's all-pairs tangent test runs on blocks of rows of about this many pairs (a few
#: arrays of 8 bytes each: ~50 MB), so a table with thousands of corners stays in memory.
GRAPH_BLOCK_CELLS = 1_000_000
#: A graph of more corners than this is built row by row, each row the first time a search
#: reaches its node (a surge on a crowded table reaches a few dozen of its thousands of corners;
#: the whole graph costs `GRAPH_SECONDS` x corners squared). Smaller ones are built whole at
#: once: a table that serves many queries pays no row on the way.
EAGER_GRAPH_CORNERS = 2000
#: ... until searches have built one row in this many: then the rest is built whole (a search
#: that reaches that much of the table is likely to reach all of it, and the whole graph tests
#: each pair once where rows test it from both ends).
LAZY_GRAPH_FRACTION = 16


def inflate(geometry, radius: float):
    """The Minkowski sum of `geometry` with a disc of `radius`, circumscribed (never smaller),
    and exact along every straight face.

    It is the intersection of two shapes that each contain the true sum: the round buffer of
    `radius * ARC_FACTOR` (its arcs' edges lie outside the true arcs, but so do its flat faces,
    by 2 % of the radius) and the mitred buffer of `radius` (flat faces exactly `radius` out,
    corners pointed). So a base that clears a gap between two walls by a hair fits through it,
    and one gliding along a wall touching it does not cross it (RULES.md 0, 1.3, 1.5).
    """
    if radius <= 0:
        return geometry
    rounded = geometry.buffer(radius * ARC_FACTOR, quad_segs=ARC_QUAD_SEGMENTS)
    # a mitre limit of at least 1 keeps any bevel outside the true sum; the round buffer cuts
    # the points anyway
    mitred = geometry.buffer(radius, join_style="mitre", mitre_limit=10.0)
    return rounded.intersection(mitred)


def inflated_disc(x: float, y: float, radius: float) -> Polygon:
    """A circle of `radius` as a circumscribed polygon with the same arc resolution as `inflate`."""
    return Point(x, y).buffer(radius * DISC_FACTOR, quad_segs=ARC_QUAD_SEGMENTS)


def inflated_discs(centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """`inflated_disc` for many circles at once (n x 2 centres, n radii): the same polygons, from
    one call (a crowded table inflates hundreds of enemy bases)."""
    centres = np.asarray(centres, dtype=float).reshape(-1, 2)
    radii = np.asarray(radii, dtype=float)
    return shapely.buffer(shapely.points(centres), radii * DISC_FACTOR, quad_segs=ARC_QUAD_SEGMENTS)


@dataclass(frozen=True)
class Obstacle:
    """Something a ground move cannot cross (`height is None`) or must climb (`height` set).

    `shape` is the obstacle already inflated for the mover's base (see `inflate`); `key`
    identifies it for the cache (e.g. ("model", id, x, y, facing, radius)).
    """

    key: Hashable
    shape: Polygon
    height: float | None = None


#: A run of segments casts one shadow while it turns through at most this angle about the eye
#: (the shadow's far side stays well beyond the disc: see `_shadows`).
_SHADOW_SWEEP = 2 * math.pi / 3


def _shadows(V, rho, segs, centre, seg, da, db):
    """The shadows the segments `segs[seg]` cast seen from the centres `V[centre]` (pairs sorted
    by centre, then by segment), out beyond the discs of radius `rho`: (polygons, the centre of
    each). Every pair faces its centre and neither end is at it (`_visible_pieces`).

    Consecutive segments of one ring facing the same eye turn one way about it, so a run of them
    hides one star-shaped region: the run itself, then back along its vertices projected far
    beyond the disc (with a point twice as far between each pair, so the far side never cuts
    in). One polygon per run instead of one per segment: the union of the shadows, which costs
    most of a reach region, has 3-6 times fewer pieces to join (1,211 segments in 353 runs for
    the 20 reaches of the 3-D bench's surge). Runs are cut where the eye
    changes, the segments stop touching, or the turn passes `_SHADOW_SWEEP`; the far side then
    lies at least 0.89 x `far` from the eye, beyond the disc and both ends of every segment.
    """
    n = len(seg)
    if not n:
        return np.empty(0, dtype=object), np.empty(0, dtype=int)
    ax, ay, bx, by = (c[seg] for c in segs.T)
    vx, vy = V[centre, 0], V[centre, 1]
    turn = np.arctan2(
        np.abs((ax - vx) * (by - vy) - (ay - vy) * (bx - vx)),
        (ax - vx) * (bx - vx) + (ay - vy) * (by - vy),
    )
    cut = np.ones(n, dtype=bool)
    if n > 1:
        cut[1:] = (
            (centre[1:] != centre[:-1])
            | (seg[1:] != seg[:-1] + 1)
            | (ax[1:] != bx[:-1])
            | (ay[1:] != by[:-1])
        )
    starts = np.flatnonzero(cut)
    # a long run is cut again where its turn passes the limit (rare: a ring wrapped round the eye)
    sums = np.add.reduceat(turn, starts)
    if (sums > _SHADOW_SWEEP).any():
        bounds = np.append(starts, n).tolist()
        for k in np.flatnonzero(sums > _SHADOW_SWEEP).tolist():
            total = 0.0
            for j in range(bounds[k], bounds[k + 1]):
                if total + turn[j] > _SHADOW_SWEEP and j > bounds[k]:
                    cut[j] = True
                    total = 0.0
                total += turn[j]
        starts = np.flatnonzero(cut)
    run = np.cumsum(cut) - 1
    # far enough beyond the disc and beyond both ends of every segment of the run
    far = np.maximum(rho[centre] * 2.5 + 1.0, 2 * np.maximum(da, db))
    far = np.maximum.reduceat(far, starts)[run]
    fax, fay = vx + (ax - vx) * far / da, vy + (ay - vy) * far / da
    fbx, fby = vx + (bx - vx) * far / db, vy + (by - vy) * far / db
    mx, my = (fax + fbx) / 2 - vx, (fay + fby) / 2 - vy
    m = np.hypot(mx, my)
    m[m == 0] = 1.0
    fmx, fmy = vx + mx / m * far * 2, vy + my / m * far * 2
    A, B = np.stack([ax, ay], 1), np.stack([bx, by], 1)
    FA, FB, FM = np.stack([fax, fay], 1), np.stack([fbx, fby], 1), np.stack([fmx, fmy], 1)
    last = np.append(starts[1:], n)
    parts, rings = [], []
    for k, (i, j) in enumerate(zip(starts.tolist(), last.tolist(), strict=True)):
        # the run a_i, b_i .. b_(j-1), then back: F(b_(j-1)), M_(j-1), .., F(b_i), M_i, F(a_i)
        back = np.empty((2 * (j - i), 2))
        back[0::2] = FB[i:j][::-1]
        back[1::2] = FM[i:j][::-1]
        ring = np.concatenate([A[i : i + 1], B[i:j], back, FA[i : i + 1], A[i : i + 1]])
        parts.append(ring)
        rings.append(np.full(len(ring), k))
    polygons = shapely.polygons(
        shapely.linearrings(np.concatenate(parts), indices=np.concatenate(rings))
    )
    return polygons, centre[starts]


def _polygons(geometry) -> list[Polygon]:
    if geometry.is_empty:
        return []
    if isinstance(geometry, Polygon):
        return [geometry]
    if isinstance(geometry, MultiPolygon):
        return list(geometry.geoms)
    return [g for g in getattr(geometry, "geoms", []) if isinstance(g, Polygon)]


def _ring_corners(coords: np.ndarray, want_reflex: bool):
    """Vertices of a closed ring (first == last) with their neighbours, keeping the reflex ones
    (want_reflex: right turns, interior on the left) or the convex ones (left turns)."""
    pts = coords[:-1]
    if len(pts) < 3:
        return np.empty((0, 2)), np.empty((0, 2)), np.empty((0, 2))
    prev = np.roll(pts, 1, axis=0)
    nxt = np.roll(pts, -1, axis=0)
    cross = (pts[:, 0] - prev[:, 0]) * (nxt[:, 1] - pts[:, 1]) - (pts[:, 1] - prev[:, 1]) * (
        nxt[:, 0] - pts[:, 0]
    )
    keep = cross < -_TANGENT_EPS if want_reflex else cross > _TANGENT_EPS
    return pts[keep], prev[keep], nxt[keep]


_NAN_ALLOWED = np.intc(0)  # shapely's HandleNaN.allow, `shapely.linestrings`' default


def _segments(ends: np.ndarray) -> np.ndarray:
    """`shapely.linestrings(ends)` for an array of segments (k x 2 x 2), made by the ufunc that
    function calls, without its wrappers: they were half the cost of a path query's edge test
    (issue 16). Tested equal to the public function. Given one segment's ends (2 x 2), the
    same ufunc makes one LineString, in two thirds of the time of an array of one."""
    return shapely.lib.linestrings(ends, _NAN_ALLOWED)


# GEOS's predicates on one geometry, without the array wrappers of `shapely.intersects` and
# `shapely.intersects_xy` (a path query calls them up to a dozen times: 0.8 and 0.4 us each
# against 2.8 and 3.5). Tested equal to the public functions.
_intersects = shapely.lib.intersects_scalar
_intersects_xy = shapely.lib.intersects_xy_scalar


#: No node indices (an empty answer shared by the queries; never written to).
_NO_NODES = np.empty(0, dtype=int)
_NO_NODES.flags.writeable = False


def _horizontal(points: Sequence[tuple[float, float]]) -> float:
    """The length of a path on the table (the sum of its segments)."""
    return sum(math.dist(points[k], points[k + 1]) for k in range(len(points) - 1))


class _GraphRows(Sequence[list[tuple[int, float]]]):
    """The rows of a navigator's graph (`Navigator.adjacency`: `rows[k]` lists node k's
    neighbours and edge costs), each built the first time it is asked for. A row is the one the
    whole graph has (see `Navigator._build_row`), so a search sees the same graph either way."""

    __slots__ = ("_navigator", "_store")

    def __init__(self, navigator: Navigator, store: list[list[tuple[int, float]] | None]):
        self._navigator, self._store = navigator, store

    def __len__(self) -> int:
        return len(self._store)

    def __getitem__(self, k):  # type: ignore[override]
        row = self._store[k]
        if row is None:
            self._navigator._build_row(k)
            row = self._store[k]
        return row

    def __iter__(self):
        if not self._navigator.graph_built:
            self._navigator._build_whole_graph()
        return iter(self._store)


class Navigator:
    """Shortest paths and reachable regions for one base radius on one board (see module doc)."""

    def __init__(
        self,
        width: float,
        height: float,
        radius: float,
        hard: Sequence[Obstacle] = (),
        climbs: Sequence[Obstacle] = (),
        snap: float = DEFAULT_SNAP,
    ):
        self.width, self.height, self.radius, self.snap = width, height, radius, snap
        inner = (
            box(radius, radius, width - radius, height - radius)
            if 2 * radius < min(width, height)
            else Polygon()
        )
        blocked = shapely.union_all([o.shape for o in hard]) if hard else Polygon()
        free = inner.difference(blocked) if not blocked.is_empty else inner
        free = shapely.orient_polygons(free, exterior_cw=False) if not free.is_empty else free
        self.free_space = free
        shapely.prepare(free)
        # The obstacles' interiors (an inward offset of 1e-7, mitred so corners stay put): a
        # segment between two free points is clear exactly when it misses these.
        self._blocked_core = (
            shapely.buffer(blocked, -1e-7, join_style="mitre") if not blocked.is_empty else blocked
        )
        shapely.prepare(self._blocked_core)
        self.climbs = tuple(climbs)
        self._climb_shapes = [c.shape for c in self.climbs]
        self._climb_heights = np.array([c.height for c in self.climbs], dtype=float)
        # Interiors only: grazing a climb feature's edge is not crossing it.
        self._climb_cores = [c.shape.buffer(-1e-7) for c in self.climbs]
        for g in self._climb_cores + self._climb_shapes:
            shapely.prepare(g)
        self._climb_tree = STRtree(self._climb_cores) if self.climbs else None
        self._segments: dict[int, np.ndarray] = {}  # see _blocking_segments
        self._build_graph()

    # -- graph -------------------------------------------------------------------------------
    def _build_graph(self) -> None:
        budget.check_now("building the path graph")
        pts: list[np.ndarray] = []
        prev: list[np.ndarray] = []
        nxt: list[np.ndarray] = []
        for poly in _polygons(self.free_space):
            for ring in [poly.exterior, *poly.interiors]:
                p, a, b = _ring_corners(np.asarray(ring.coords), want_reflex=True)
                pts.append(p)
                prev.append(a)
                nxt.append(b)
        # which climb feature each node is a corner of (-1: a corner of the free space)
        features: list[np.ndarray] = [np.full(sum(len(p) for p in pts), -1)]
        # Corners of climb obstacles (the walls and floors of 3-D ruins overlap a lot): a corner
        # lying inside another climb obstacle, or repeating one already taken, adds nothing but
        # graph size (the graph grows with the square of its corners), so it is left out.
        seen: set[tuple[float, float]] = set()
        cores = self._climb_cores
        tree = STRtree(cores) if len(cores) > 1 else None
        for k, shape in enumerate(self._climb_shapes):
            for poly in _polygons(shapely.orient_polygons(shape, exterior_cw=False)):
                p, a, b = _ring_corners(np.asarray(poly.exterior.coords), want_reflex=False)
                if len(p):
                    points = shapely.points(p)
                    keep = shapely.covers(self.free_space, points)
                    if tree is not None:
                        hit_p, hit_c = tree.query(points, predicate="within")
                        buried = hit_p[hit_c != k]
                        keep[buried] = False
                    for idx in np.nonzero(keep)[0]:
                        key = (round(float(p[idx, 0]), 9), round(float(p[idx, 1]), 9))
                        if key in seen:
                            keep[idx] = False
                        seen.add(key)
                    pts.append(p[keep])
                    prev.append(a[keep])
                    nxt.append(b[keep])
                    features.append(np.full(int(keep.sum()), k))
        self.nodes = np.concatenate(pts) if pts else np.empty((0, 2))
        self._prev = np.concatenate(prev) if prev else np.empty((0, 2))
        self._next = np.concatenate(nxt) if nxt else np.empty((0, 2))
        # for the queries: each node as a pair of Python floats (indexing a numpy array one
        # element at a time costs more than the arithmetic), and its two edges as vectors
        self._points: list[tuple[float, float]] = [(x, y) for x, y in self.nodes.tolist()]
        self._to_prev, self._to_next = self._prev - self.nodes, self._next - self.nodes
        self._corner_feature = np.concatenate(features)
        n = len(self.nodes)
        # The graph's rows (a node's edges, by neighbour index): None until built. A small graph
        # is built whole at once; a large one row by row, each the first time a search reaches
        # its node (`_GraphRows`), and whole once it has built `_row_limit` rows.
        self._rows: list[list[tuple[int, float]] | None] = [None] * n
        self._zero_rows: list[list[tuple[int, float]] | None] = [None] * n
        self._row_entries = 0  # edges held in built rows (each edge is in two rows)
        self._rows_built = 0
        self._row_limit = max(1, n // LAZY_GRAPH_FRACTION)
        self._whole = n < 2
        self.adjacency: Sequence[list[tuple[int, float]]]
        self._zero_adjacency: Sequence[list[tuple[int, float]]]
        if n <= EAGER_GRAPH_CORNERS:
            self._build_whole_graph()
        else:
            self.adjacency = _GraphRows(self, self._rows)
            self._zero_adjacency = _GraphRows(self, self._zero_rows)

    def _build_whole_graph(self) -> None:
        """Every row of the graph at once: all pairs (i < j), tested in blocks of rows."""
        n = len(self.nodes)
        budget.afford(GRAPH_SECONDS * n * n, f"a path graph of {n:,} corners")
        rows: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        zero_rows: list[list[tuple[int, float]]] = [[] for _ in range(n)]
        edges = 0
        if n >= 2:
            # Tangent at both ends, visible: the pairs (i < j) in blocks of rows, so that memory
            # stays bounded however many corners the table has (the graph is the same).
            found_i, found_j, found_lines = [], [], []
            block = max(1, GRAPH_BLOCK_CELLS // n)
            for first in range(0, n, block):
                i, j = self._tangent_pairs(first, min(n, first + block))
                if not len(i):
                    continue
                lines = shapely.linestrings(np.stack([self.nodes[i], self.nodes[j]], axis=1))
                visible = ~shapely.intersects(self._blocked_core, lines)
                found_i.append(i[visible])
                found_j.append(j[visible])
                found_lines.append(lines[visible])
            i = np.concatenate(found_i) if found_i else np.empty(0, dtype=int)
            j = np.concatenate(found_j) if found_j else np.empty(0, dtype=int)
            lines = np.concatenate(found_lines) if found_lines else np.empty(0, dtype=object)
            lengths = np.hypot(*(self.nodes[j] - self.nodes[i]).T)
            penalty = self._penalties(lines)
            # pairs come by rows (i, then j): each node's row lists its neighbours in order
            for a, b, length, pen in zip(
                i.tolist(), j.tolist(), lengths.tolist(), penalty.tolist(), strict=True
            ):
                budget.check("building the path graph")
                cost = length + pen
                rows[a].append((b, cost))
                rows[b].append((a, cost))
                if pen == 0:
                    zero_rows[a].append((b, length))
                    zero_rows[b].append((a, length))
            edges = len(i)
        # In place: a `_GraphRows` view (and a search holding it) sees the whole graph now. The
        # rows built before are equal to these (the same tests on the same pairs).
        self._rows[:] = rows
        self._zero_rows[:] = zero_rows
        self._row_entries, self._rows_built, self._whole = 2 * edges, n, True
        self._edge_count = edges
        # plain lists from now on (a view's lookup costs a Python call per node reached)
        self.adjacency, self._zero_adjacency = rows, zero_rows

    def _build_row(self, k: int) -> None:
        """Node k's row of the graph: the same tests as `_build_whole_graph` makes for the pairs
        (k, j), in the same order (by neighbour), so the row is the one the whole graph has."""
        if self._rows_built >= self._row_limit:
            # a search reaching this much of the graph is likely to reach the rest: build it
            # whole (each pair tested once, not once from each end)
            self._build_whole_graph()
            return
        budget.check("building the path graph")
        P = self.nodes
        ok = self._tangent_rows(k, k + 1)[0]
        ok[k] = False
        j = np.nonzero(ok)[0]
        # each segment drawn from its lower-numbered end, as the whole graph draws it
        lo, hi = np.minimum(j, k), np.maximum(j, k)
        lines = shapely.linestrings(np.stack([P[lo], P[hi]], axis=1))
        visible = ~shapely.intersects(self._blocked_core, lines)
        j, lo, hi, lines = j[visible], lo[visible], hi[visible], lines[visible]
        lengths = np.hypot(*(P[hi] - P[lo]).T)
        penalty = self._penalties(lines)
        row: list[tuple[int, float]] = []
        zero_row: list[tuple[int, float]] = []
        for b, length, pen in zip(j.tolist(), lengths.tolist(), penalty.tolist(), strict=True):
            row.append((b, length + pen))
            if pen == 0:
                zero_row.append((b, length))
        self._rows[k], self._zero_rows[k] = row, zero_row
        self._row_entries += len(row)
        self._rows_built += 1

    @property
    def graph_built(self) -> bool:
        """Is the whole graph built (not only the rows searches have reached)?"""
        return self._whole

    @property
    def edge_count(self) -> int:
        """The number of edges of the whole graph (building the rows not built yet)."""
        if not self._whole:
            self._build_whole_graph()
        return self._edge_count

    def _tangent_rows(self, first: int, last: int) -> np.ndarray:
        """For nodes first <= i < last and every node j: is the segment i-j tangent to the
        obstacle at both ends (both neighbours of each end on one side of the line, or on it)?
        A (last - first) x n array; the whole graph and a single row ask the same test."""
        P, A, B = self.nodes, self._to_prev, self._to_next
        rows = slice(first, last)
        # at i: d[i, j] = P[j] - P[i]
        dx = P[None, :, 0] - P[rows, None, 0]
        dy = P[None, :, 1] - P[rows, None, 1]
        c1 = dx * A[rows, None, 1]
        c1 -= dy * A[rows, None, 0]
        c2 = dx * B[rows, None, 1]
        c2 -= dy * B[rows, None, 0]
        c1 *= c2  # both neighbours on one side of the line (or on it): not negative
        ok = c1 >= -_TANGENT_EPS
        # at j, looking back at i: d[j, i] = P[i] - P[j]
        dx = P[None, rows, 0] - P[:, None, 0]
        dy = P[None, rows, 1] - P[:, None, 1]
        c1 = dx * A[:, None, 1]
        c1 -= dy * A[:, None, 0]
        c2 = dx * B[:, None, 1]
        c2 -= dy * B[:, None, 0]
        c1 *= c2
        ok &= (c1 >= -_TANGENT_EPS).T
        return ok

    def _tangent_pairs(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """Pairs (i, j), first <= i < last, i < j, tangent at both ends (`_tangent_rows`), in
        row order."""
        i, j = np.nonzero(np.triu(self._tangent_rows(first, last), first + 1))
        return i + first, j

    def _penalties(self, lines) -> np.ndarray:
        """Climbing cost of segments from ground to ground: 2 x height per feature crossed."""
        penalty = np.zeros(len(lines))
        if self._climb_tree is None or not len(lines):
            return penalty
        li, ci = self._climb_tree.query(lines, predicate="intersects")
        np.add.at(penalty, li, 2 * self._climb_heights[ci])
        return penalty

    @property
    def footprint_bytes(self) -> int:
        """About how much memory this navigator holds now (for the cache's budget): its arrays,
        the graph's edges built so far (two Python tuples and list slots each, ~150 bytes a
        pair) and the coordinates of its geometries (16 bytes a point, twice over for prepared
        copies). A graph built row by row grows as searches reach more of it."""
        return self._fixed_bytes + 2 * self._row_entries * 75

    @cached_property
    def _fixed_bytes(self) -> int:
        arrays = sum(
            a.nbytes for a in (self.nodes, self._prev, self._next, self._to_prev, self._to_next)
        )
        points = shapely.get_num_coordinates(
            [self.free_space, self._blocked_core, *self._climb_shapes, *self._climb_cores]
        ).sum()
        # the nodes as Python tuples (~100 bytes each), and the query's tables built on the first
        # query (`_tangent_table`, `_corner_edges`: ~300 bytes a node)
        return int(arrays + 32 * points + 400 * len(self._points))

    # -- queries -----------------------------------------------------------------------------
    def covers(self, point: tuple[float, float]) -> bool:
        """May the base centre stand at `point` (within the free space)?"""
        # a point intersects a polygon exactly when the polygon covers it (interior or boundary)
        return bool(_intersects_xy(self.free_space, float(point[0]), float(point[1])))

    def segment_clear(self, a, b) -> bool:
        """Can the base centre travel straight from a to b without touching a hard obstacle?"""
        if a[0] == b[0] and a[1] == b[1]:
            return self.covers(a)
        if not (self.covers(a) and self.covers(b)):
            return False
        return self._sees(a, b)

    def _sees(self, a, b) -> bool:
        """`segment_clear` for two points already known to be free (a snapped start or goal, a
        node: nodes are corners of the free space, or climb corners kept only where free)."""
        if a[0] == b[0] and a[1] == b[1]:
            return True
        ends = np.array(((a[0], a[1]), (b[0], b[1])), dtype=float)
        return not _intersects(self._blocked_core, _segments(ends))

    def _edge_penalty(self, a, b, scratch: np.ndarray | None = None) -> float | None:
        """One edge of a search from or to a free point: None when a hard obstacle blocks it
        (`_sees`), else its climbing cost during the search (`_segment_penalty`). One segment
        geometry serves both tests, where the search used to build it twice. `scratch`, a
        2 x 2 array the caller owns (one per search: nothing shared between threads), holds
        the segment's ends: a geometry is built from an array faster than from tuples."""
        ends = np.empty((2, 2)) if scratch is None else scratch
        ends[0, 0], ends[0, 1], ends[1, 0], ends[1, 1] = a[0], a[1], b[0], b[1]
        line = _segments(ends)
        if not (a[0] == b[0] and a[1] == b[1]) and _intersects(self._blocked_core, line):
            return None
        if self._climb_tree is None:
            return 0.0
        # the sum `_penalties` makes for this one segment: the same features, added in the same
        # order from 0 (so the same float); as an array of one, the segment goes to the tree
        # without the tree's scalar wrapping
        lines = np.empty(1, dtype=object)
        lines[0] = line
        penalty = 0.0
        for k in self._climb_tree.query(lines, predicate="intersects")[1].tolist():
            penalty += self._climb_costs[k]
        return penalty

    @cached_property
    def _climb_costs(self) -> list[float]:
        """What crossing each climb feature from ground to ground costs a search: 2 x height."""
        return (2 * self._climb_heights).tolist()

    def snapped(self, point) -> tuple[float, float] | None:
        """`point` if free, else the nearest free point within `snap`, else None."""
        if self.covers(point):
            return (float(point[0]), float(point[1]))
        return self._snapped_outside(point)

    def _snapped_outside(self, point) -> tuple[float, float] | None:
        """`snapped` for a point known not to be free."""
        p = Point(point)
        if self.free_space.is_empty or self.free_space.distance(p) > self.snap:
            return None
        q = nearest_points(self.free_space, p)[0]
        # Nudge the snapped point onto the free side of the boundary (floating point).
        for t in (0.0, 1e-9, 1e-7, 1e-5):
            cand = (
                q.x + (q.x - p.x) * t / max(p.distance(q), 1e-12),
                q.y + (q.y - p.y) * t / max(p.distance(q), 1e-12),
            )
            if self.free_space.covers(Point(cand)):
                return cand
        return None

    def climb_cost(self, waypoints: Sequence, z_start: float = 0.0, z_end: float = 0.0) -> float:
        """RULES.md 1.5 vertical distance of a path, as the engine models it.

        The model's height along the path is a sequence of levels: its start elevation, then for
        every stretch where the centre is over a climb feature (the feature inflated by the base,
        so whenever the base overlaps it) that feature's height with the ground (0) between
        stretches, then its end elevation. The cost is the sum of the changes: crossing a 3"
        ruin from ground to ground costs 3 + 3; ending on top of it costs 3; a path over no climb
        feature costs |z_end - z_start| (an infantry model stepping up to a floor).
        """
        pts = [(float(p[0]), float(p[1])) for p in waypoints]
        pieces: list[tuple[bool, bool, float]] = []  # (starts at path start, ends at path end, h)
        if self._climb_tree is not None and len(pts) >= 2:
            line = LineString(pts)
            start, end = Point(pts[0]), Point(pts[-1])
            for k in self._climb_tree.query(line, predicate="intersects"):
                core, h = self._climb_cores[k], float(self._climb_heights[k])
                parts = shapely.line_merge(line.intersection(core))
                parts = [
                    g
                    for g in getattr(parts, "geoms", [parts])
                    if isinstance(g, LineString) and g.length > 1e-9
                ]
                if not parts:
                    continue
                at_start = core.distance(start) < EPSILON
                at_end = core.distance(end) < EPSILON
                count = len(parts)
                if count == 1:
                    pieces.append((at_start, at_end, h))
                else:
                    pieces.append((at_start, False, h))
                    pieces.extend((False, False, h) for _ in range(count - 2))
                    pieces.append((False, at_end, h))
        if not pieces:
            return abs(z_end - z_start)
        total = 0.0
        starts, ends = any(p[0] for p in pieces), any(p[1] for p in pieces)
        if not starts:
            total += z_start
        if not ends:
            total += z_end
        for at_start, at_end, h in pieces:
            total += abs(h - z_start) if at_start else h
            total += abs(h - z_end) if at_end else h
        return total

    def climbed(self, waypoints: Sequence) -> list[Obstacle]:
        """The climb features a path crosses (its centre over their inflated interiors, as
        `climb_cost` counts them), in the order of `climbs`: who the climbing belongs to."""
        pts = [(float(p[0]), float(p[1])) for p in waypoints]
        if self._climb_tree is None or len(pts) < 2:
            return []
        found = self._climb_tree.query(LineString(pts), predicate="intersects")
        return [self.climbs[k] for k in sorted(found.tolist())]

    def path_cost(
        self, waypoints: Sequence, z_start: float = 0.0, z_end: float = 0.0
    ) -> tuple[float, float]:
        """(horizontal length, climbing cost) of a path given as waypoints."""
        pts = [(float(p[0]), float(p[1])) for p in waypoints]
        return _horizontal(pts), self.climb_cost(pts, z_start, z_end)

    @cached_property
    def _tangent_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, set]:
        """For `_tangent_mask`: the nodes' x and y, the y and the x components of their two
        edge vectors stacked as 2 x n arrays (both edges tested in one array operation), and
        the node positions. Built on the first query, from the graph's arrays."""
        x = np.ascontiguousarray(self.nodes[:, 0])
        y = np.ascontiguousarray(self.nodes[:, 1])
        edge_y = np.stack([self._to_prev[:, 1], self._to_next[:, 1]])
        edge_x = np.stack([self._to_prev[:, 0], self._to_next[:, 0]])
        return x, y, edge_y, edge_x, set(self._points)

    @cached_property
    def _corner_edges(self) -> list[tuple[float, float, float, float]]:
        """Each node's edge vectors to the previous and the next corner as Python floats: y and
        x of the first, y and x of the second (the tangent test of one node, see `_search`)."""
        return [
            (py, px, ny, nx)
            for (px, py), (nx, ny) in zip(
                self._to_prev.tolist(), self._to_next.tolist(), strict=True
            )
        ]

    def _own_corners(self, point) -> np.ndarray:
        """The nodes that are corners of the climb features `point` lies in. A path from or to
        `point` may bend there any way, not only round the corner: crossing a feature costs its
        height, not its width (1.5), so reaching a goal on a ruin's floor by entering the floor
        at its corner can be cheaper than any path wrapping round that corner (it avoids a
        second feature the straight leg would cross). The search tries the legs between the
        start, these corners and the goal whatever their tangency; graph edges between nodes
        keep the tangent test (letting every climb corner bend any way multiplied the graph's
        edges by dozens: 3-D bench table preparation 38 ms -> 1.8 s)."""
        boxes, corners = self._climb_corner_index
        if not len(boxes):
            return _NO_NODES
        x, y = float(point[0]), float(point[1])
        # bounding boxes first (most points lie in no feature): this runs twice per query
        near = (boxes[:, 0] <= x) & (x <= boxes[:, 2]) & (boxes[:, 1] <= y) & (y <= boxes[:, 3])
        found = [
            corners[k]
            for k in near.nonzero()[0].tolist()
            if len(corners[k]) and self._climb_cores[k].intersects(Point(x, y))
        ]
        if not found:
            return _NO_NODES
        return np.concatenate(found) if len(found) > 1 else found[0]

    @cached_property
    def _climb_corner_index(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """For `_own_corners`: each climb feature's bounding box, and the nodes at its corners."""
        if not self._climb_cores or not len(self.nodes):
            return np.empty((0, 4)), []
        boxes = shapely.bounds(np.array(self._climb_cores, dtype=object))
        corners = [(self._corner_feature == k).nonzero()[0] for k in range(len(boxes))]
        return boxes, corners

    def _tangent_mask(self, point) -> np.ndarray:
        """For each node, whether a segment from `point` could use it (tangent at the node: both
        its neighbours on one side of the line, or on it; a node at `point` itself is not)."""
        return self._tangent_test(point)[0]

    def _tangent_test(self, point) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`_tangent_mask`, and the vectors from every node to `point` (x and y) it used."""
        x, y, edge_y, edge_x, at = self._tangent_table
        px, py = float(point[0]), float(point[1])
        # e = point - node and its cross products with both edges, in the order of operations
        # (and so the rounding) of the test written one edge at a time
        ex, ey = px - x, py - y
        c = ex * edge_y
        c -= ey * edge_x
        # both at least -eps, or both at most eps: the smaller and the larger of the two
        ok = np.minimum(c[0], c[1]) >= -_TANGENT_EPS
        ok |= np.maximum(c[0], c[1]) <= _TANGENT_EPS
        if (px, py) in at:
            ok &= (ex != 0) | (ey != 0)
        return ok, ex, ey

    def _candidates(self, point) -> np.ndarray:
        """Node indices that a segment from `point` could use (tangent at the node)."""
        if not len(self.nodes):
            return np.empty(0, dtype=int)
        return np.flatnonzero(self._tangent_mask(point))

    @cached_property
    def _climbs_always_cost(self) -> bool:
        """Does every climb feature cost something to cross (height > 0)? Then a path whose
        every segment the search found free of climbing crosses no feature at all, and its
        climbing cost is the change of elevation alone (`climb_cost` with no pieces)."""
        return bool((self._climb_heights > 0).all())

    def shortest_path(self, start, goal, z_start: float = 0.0, z_end: float = 0.0):
        """The shortest legal path from start to goal: (length incl. climbing, waypoints) or None.

        Waypoints are (x, y) tuples, beginning with `start` and ending with `goal` exactly as
        given (a snapped start or goal adds the tiny hop to its snapped point).
        """
        s_orig, g_orig = (float(start[0]), float(start[1])), (float(goal[0]), float(goal[1]))
        # `snapped`, its cover test made here on the floats
        free = self.free_space
        s = s_orig if _intersects_xy(free, *s_orig) else self._snapped_outside(start)
        g = g_orig if _intersects_xy(free, *g_orig) else self._snapped_outside(goal)
        if s is None or g is None:
            return None
        found = self._search(s, g)
        if found is None:
            return None
        waypoints, climb_free = found
        if waypoints[0] != s_orig:
            waypoints = [s_orig, *waypoints]
            climb_free = False  # the hop to the snapped start was not looked at
        if waypoints[-1] != g_orig:
            waypoints = [*waypoints, g_orig]
            climb_free = False
        if climb_free or self._climb_tree is None:
            # no segment crosses a climb feature (see `_climbs_always_cost`): `path_cost` with
            # nothing to intersect
            horizontal, vertical = _horizontal(waypoints), abs(z_end - z_start)
        else:
            horizontal, vertical = self.path_cost(waypoints, z_start, z_end)
        return horizontal + vertical, waypoints

    def _segment_penalty(self, a, b) -> float:
        if self._climb_tree is None:
            return 0.0
        return float(self._penalties(np.array([LineString([a, b])])).sum())

    def _search(self, s, g) -> tuple[list, bool] | None:
        """A* from the free point `s` to the free point `g` over the graph (module doc): the
        waypoints, and whether the search charged no climbing on any of their segments (only
        then known free of climb features: see `_climbs_always_cost`); None when there is no
        path.

        The edges from `s` are tested lazily, when the search reaches them, and enter the search
        lazily too: sorted by their estimate once with numpy, then fed to the heap one at a time
        (a query pops a few of them and pushed them all before). Heap entries are
        (estimate, tie, cost so far, node, parent); the start, the goal and the feed are the
        node numbers past the graph's.
        """
        scratch = np.empty((2, 2))
        direct = self._edge_penalty(s, g, scratch)
        free_of_climbs = self._climb_tree is None or self._climbs_always_cost
        if direct == 0:
            return [s, g], free_of_climbs
        points, adjacency = self._points, self.adjacency
        n = len(points)
        START, GOAL, REACHED, FEED = n, n + 1, n + 2, n + 3  # REACHED: a goal entry tested
        sx, sy = s
        gx, gy = g
        hypot = math.hypot
        heap: list = []
        counter = 0
        if direct is not None:
            cost = math.dist(s, g) + direct
            heap.append((cost, -1, cost, REACHED, START))
        # The start's edges in the order the heap would pop them (ties by node number, as when
        # they were pushed in that order), by their estimates.
        ok, ex, ey = self._tangent_test(s)
        # corners where the first or last leg may bend any way (`_own_corners`): the legs from
        # the start to them, and from them to the goal, are tried whatever their tangency
        own_s, own_g = self._own_corners(s), self._own_corners(g)
        own = own_s if not len(own_g) else own_g if not len(own_s) else np.union1d(own_s, own_g)
        if len(own):
            ok[own] = True
            ok &= (ex != 0) | (ey != 0)
        first = ok.nonzero()[0]
        x, y = self._tangent_table[:2]
        # (the length from the node to the start or back is the same float: hypot ignores signs)
        estimate = np.hypot(ex[first], ey[first])
        estimate += np.hypot(x[first] - gx, y[first] - gy)
        order = estimate.argsort(kind="stable")
        # kept as arrays: a query takes a few of them as Python numbers (`item`), where turning
        # every candidate into a list cost more than the search's edge tests
        feed_estimate, feed_node = estimate[order], first[order]
        feeds = len(feed_node)
        if feeds:
            heap.append((feed_estimate.item(0), 0, 0.0, FEED, 0))
        heapq.heapify(heap)
        corners = self._corner_edges
        goal_corners = set(own.tolist())
        eps = _TANGENT_EPS
        parent: dict[int, int] = {}  # also the closed set
        best: dict[int, float] = {}
        charged: set[int] = set()  # nodes whose edge from the start was charged climbing
        push, pop, check = heapq.heappush, heapq.heappop, budget.check
        edge_penalty, inf = self._edge_penalty, math.inf
        while heap:
            check("finding the shortest path")
            f, _, cost, node, par = pop(heap)
            if node >= n:
                if node == FEED:  # the next edge from the start: tested only now
                    if par + 1 < feeds:
                        i = par + 1
                        push(heap, (feed_estimate.item(i), 0, 0.0, FEED, i))
                    node, par = feed_node.item(par), START
                    if node in parent:
                        continue
                    # its length and estimate as Python's hypot makes them (numpy's may differ
                    # in the last bit): the costs the search carries are those it always had
                    px, py = points[node]
                    cost = hypot(px - sx, py - sy)
                    f = cost + hypot(px - gx, py - gy)
                    pen = edge_penalty(s, points[node], scratch)
                    if pen is None:
                        continue
                    if pen > 0:
                        counter += 1
                        charged.add(node)
                        push(heap, (f + pen, counter, cost + pen, node, START))
                        continue
                elif node == GOAL:  # the edge to the goal, tested only now
                    pen = edge_penalty(points[par], g, scratch)
                    if pen is None:
                        continue
                    if pen > 0:
                        counter += 1
                        push(heap, (cost + pen, counter, cost + pen, REACHED, par))
                        continue
                    break
                else:  # REACHED: its edge was charged climbing
                    free_of_climbs = False
                    break
            elif node in parent:
                continue
            parent[node] = par
            # may the edge to the goal leave from here? `_tangent_mask(g)`, one node at a time
            # (the same operations on the same floats)
            px, py = points[node]
            prev_y, prev_x, next_y, next_x = corners[node]
            ex, ey = gx - px, gy - py
            c1, c2 = ex * prev_y - ey * prev_x, ex * next_y - ey * next_x
            if (
                (c1 >= -eps and c2 >= -eps) or (c1 <= eps and c2 <= eps) or node in goal_corners
            ) and (ex or ey):
                c = cost + hypot(ex, ey)
                counter += 1
                push(heap, (c, counter, c, GOAL, node))
            for nb, w in adjacency[node]:
                if nb in parent:
                    continue
                c = cost + w
                if c < best.get(nb, inf) - 1e-12:
                    best[nb] = c
                    counter += 1
                    px, py = points[nb]
                    push(heap, (c + hypot(px - gx, py - gy), counter, c, nb, node))
        else:
            return None
        return self._trace_back(s, g, par, parent, charged, free_of_climbs)

    def _trace_back(self, s, g, last, parent, charged, free_of_climbs: bool) -> tuple[list, bool]:
        """`_search`'s waypoints from its parents (`last`: the node before the goal), and
        whether no segment was charged climbing (edges from the start: `charged`; edges of the
        graph: those not in `_zero_adjacency`)."""
        START = len(self._points)
        path = [g]
        k = last
        climbs = self._climb_tree is not None
        while k != START:
            path.append(self._points[k])
            before = parent[k]
            if climbs and free_of_climbs:
                if before == START:
                    free_of_climbs = k not in charged
                else:
                    free_of_climbs = any(nb == k for nb, _ in self._zero_adjacency[before])
            k = before
        path.append(s)
        path.reverse()
        return path, free_of_climbs

    # -- reachable region ----------------------------------------------------------------------
    def _distances_from(self, s, limit: float) -> tuple[dict[int, float], dict[int, int]]:
        """Dijkstra from `s` over edges with no climbing, up to `limit`: distances and parents
        (-1 for the start)."""
        cand = self._candidates(s)
        # Only corners nearer than `limit` can start a path (the exact test is below): a crowded
        # table has thousands of candidates, and testing each one's segment costs most here.
        if len(cand):
            near = np.hypot(*(self.nodes[cand] - np.asarray(s, dtype=float)).T)
            cand = cand[near < limit + 1e-6]
        dist: dict[int, float] = {}
        parent: dict[int, int] = {}
        if len(cand):
            lines = shapely.linestrings([[s, tuple(self.nodes[k])] for k in cand])
            ok = ~shapely.intersects(self._blocked_core, lines)
            if self._climb_tree is not None:
                ok &= self._penalties(lines) == 0
            heap = []
            for k in cand[ok].tolist():
                d = math.dist(s, self.nodes[k])
                if d < limit:
                    heap.append((d, k, -1))
            heapq.heapify(heap)
            while heap:
                budget.check("measuring how far models can reach")
                d, k, par = heapq.heappop(heap)
                if k in dist:
                    continue
                dist[k], parent[k] = d, par
                for nb, w in self._zero_adjacency[k]:
                    if nb not in dist and d + w < limit:
                        heapq.heappush(heap, (d + w, nb, k))
        return dist, parent

    def _wedges(self, ks: np.ndarray, came_from: np.ndarray, rho: np.ndarray) -> np.ndarray:
        """The ground newly opened up by wrapping round corner ks[i] when coming from
        came_from[i]: between the straight continuation of the path and the obstacle's edge at
        the corner. (Every point a shortest path reaches with its last bend there lies in that
        sector; anything else is reached more directly.) For each corner a convex polygon
        covering the sector out to rho[i], or None where the path does not turn there."""
        w = self.nodes[ks]
        d = w - came_from
        n = np.hypot(d[:, 0], d[:, 1])
        ok = n >= 1e-12
        d = d / np.where(ok, n, 1.0)[:, None]
        # the obstacle's edge at the corner nearest the straight continuation (prev on a tie)
        best_e, best_angle = np.zeros_like(d), np.full(len(ks), np.inf)
        for nb in (self._prev[ks], self._next[ks]):
            e = nb - w
            le = np.hypot(e[:, 0], e[:, 1])
            usable = le >= 1e-12
            e = e / np.where(usable, le, 1.0)[:, None]
            angle = np.arctan2(
                np.abs(d[:, 0] * e[:, 1] - d[:, 1] * e[:, 0]), d[:, 0] * e[:, 0] + d[:, 1] * e[:, 1]
            )
            better = usable & (angle < best_angle)
            best_e[better], best_angle[better] = e[better], angle[better]
        ok &= np.isfinite(best_angle)
        bis = d + best_e
        nb_ = np.hypot(bis[:, 0], bis[:, 1])
        ok &= nb_ >= 1e-9
        bis = bis / np.where(ok, nb_, 1.0)[:, None]
        L = (2 * rho + 1.0)[:, None]
        pts = np.stack([w, w + d * L, w + bis * 2 * L, w + best_e * L], axis=1)
        out = np.full(len(ks), None, dtype=object)
        if ok.any():
            out[ok] = shapely.convex_hull(shapely.multipoints(pts[ok]))
        return out

    def _visible_pieces(self, centres: list, segs: np.ndarray) -> list:
        """For each (v, rho, wedge) of `centres`: the part of a disc of radius `rho` around v
        (within the wedge, if any) that v sees. Exact but for the disc being an inscribed
        polygon, which only makes it smaller. All centres at once: the same operations, one
        geometry or one number at a time, as for a single centre.

        Each blocking segment facing v casts a shadow: the part of the cone from v through the
        segment that lies beyond it (`_shadows`, a run of touching segments at once). Obstacles
        and the table's edge need no clipping of their own: every point inside them lies behind
        one of their edges that faces v, so the shadows remove it.
        """
        if not centres:
            return []
        V = np.array([v for v, _, _ in centres], dtype=float)
        rho = np.array([r for _, r, _ in centres], dtype=float)
        discs = shapely.buffer(shapely.points(V), rho, quad_segs=16)
        areas = discs.copy()
        wedged = np.array([w is not None for _, _, w in centres])
        wedges = np.array([w for _, _, w in centres if w is not None], dtype=object)
        box = np.stack([V[:, 0] - rho, V[:, 1] - rho, V[:, 0] + rho, V[:, 1] + rho], axis=1)
        if wedged.any():
            areas[wedged] = shapely.intersection(discs[wedged], wedges)
            bounds = shapely.bounds(wedges)
            box[wedged, :2] = np.maximum(box[wedged, :2], bounds[:, :2])
            box[wedged, 2:] = np.minimum(box[wedged, 2:], bounds[:, 2:])
        if not len(segs):
            return list(areas)
        # every (centre, segment) pair: near the centre's box, and facing v
        ax, ay, bx, by = (c[None, :] for c in segs.T)
        vx, vy = V[:, 0, None], V[:, 1, None]
        near = (
            (np.minimum(segs[:, 0], segs[:, 2])[None, :] <= box[:, 2, None])
            & (np.maximum(segs[:, 0], segs[:, 2])[None, :] >= box[:, 0, None])
            & (np.minimum(segs[:, 1], segs[:, 3])[None, :] <= box[:, 3, None])
            & (np.maximum(segs[:, 1], segs[:, 3])[None, :] >= box[:, 1, None])
        )
        # only segments facing v matter (back faces lie behind front faces of the same outline)
        side = (bx - ax) * (vy - ay) - (by - ay) * (vx - ax)
        da, db = np.hypot(ax - vx, ay - vy), np.hypot(bx - vx, by - vy)
        keep = near & (side > 1e-12) & (da > 1e-9) & (db > 1e-9)
        centre, seg = np.nonzero(keep)  # by centre, then in the segments' order
        shadows, owner = _shadows(V, rho, segs, centre, seg, da[centre, seg], db[centre, seg])
        ends = np.searchsorted(owner, np.arange(len(centres) + 1))
        pieces = []
        for k, area in enumerate(areas):
            budget.check_now("drawing where models can reach")
            first, last = ends[k], ends[k + 1]
            if first == last or area.is_empty:
                pieces.append(area)
            else:
                pieces.append(area.difference(shapely.union_all(shadows[first:last])))
        return pieces

    def _component_at(self, point) -> int | None:
        """The index (in `_polygons(free_space)`) of the free-space piece holding `point`."""
        p = Point(point)
        return next(
            (k for k, poly in enumerate(_polygons(self.free_space)) if poly.covers(p)), None
        )

    def _blocking_segments(self, component: int) -> np.ndarray:
        """The edges that can hide ground from a point of free-space piece `component` (its
        rings, and the climb obstacles' outlines reversed so their outside faces count as
        facing a point outside them): an n x 4 array (ax, ay, bx, by), built once per piece."""
        cache = self._segments
        if component not in cache:
            piece = _polygons(self.free_space)[component]
            segments = []
            for ring in [piece.exterior, *piece.interiors]:
                c = shapely.get_coordinates(ring)
                segments.append(np.hstack([c[:-1], c[1:]]))
            for shape in self._climb_shapes:
                for poly in _polygons(shapely.orient_polygons(shape, exterior_cw=True)):
                    c = shapely.get_coordinates(poly.exterior)
                    segments.append(np.hstack([c[:-1], c[1:]]))
            cache[component] = np.concatenate(segments) if segments else np.empty((0, 4))
        return cache[component]

    def reachable_region(self, start, distance: float):
        """RULES.md 1.3: the centres the base can reach within `distance` (a shapely geometry).

        Exact for hard obstacles up to the disc polygons (inscribed, so only ever smaller);
        conservative for climb obstacles, which it treats as blocking. Never includes ground that
        cannot be reached.
        """
        return self.reachable_regions([start], [distance])[0]

    def reachable_regions(self, starts: Sequence, distances: Sequence[float]) -> list:
        """`reachable_region` for each start within its distance (a unit's models): the same
        geometry each would get alone, with the elementwise numpy and GEOS work of all of them
        (`_wedges`, `_visible_pieces`) done in one call each (issue 16: a surge asks for twenty
        at once, and each alone paid those calls' fixed cost)."""
        out: list = [Polygon() for _ in starts]
        # per start that reaches anything: its index, snapped start, distance, free-space piece
        # and the corners Dijkstra reached (with their parents)
        found: list[tuple[int, tuple[float, float], float, int, dict, dict]] = []
        for i, (start, distance) in enumerate(zip(starts, distances, strict=True)):
            s = self.snapped(start)
            if s is None or distance <= 0:
                continue
            component = self._component_at(s)
            if component is None:
                continue
            dist, parent = self._distances_from(s, distance)
            found.append((i, s, distance, component, dist, parent))
        # the corners each path may wrap round, every start's at once
        ks, came_from, left = [], [], []
        for _, s, distance, _, dist, parent in found:
            k = np.fromiter(dist, dtype=np.intp, count=len(dist))
            ks.append(k)
            left.append(distance - np.fromiter(dist.values(), dtype=float, count=len(dist)))
            parents = np.fromiter((parent[k] for k in dist), dtype=np.intp, count=len(dist))
            came_from.append(
                np.where((parents < 0)[:, None], np.asarray(s, dtype=float), self.nodes[parents])
            )
        wedges = (
            self._wedges(np.concatenate(ks), np.concatenate(came_from), np.concatenate(left))
            if found
            else np.empty(0, dtype=object)
        ).tolist()
        centres: dict[int, list] = {}  # by free-space piece: each start's centres in turn
        owners: dict[int, list[tuple[int, int]]] = {}  # by piece: (start's index, its centres)
        at = 0
        for (i, s, distance, component, _, _), k, rho in zip(found, ks, left, strict=True):
            mine = [(s, distance, None)]
            for node, r, wedge in zip(
                k.tolist(), rho.tolist(), wedges[at : at + len(k)], strict=True
            ):
                if wedge is not None:
                    mine.append(
                        ((float(self.nodes[node][0]), float(self.nodes[node][1])), r, wedge)
                    )
            at += len(k)
            mine = [c for c in mine if c[1] > 1e-9]
            centres.setdefault(component, []).extend(mine)
            owners.setdefault(component, []).append((i, len(mine)))
        for component, every in centres.items():
            segs = self._blocking_segments(component)
            # in blocks of centres (each centre's pieces are its own, the same either way): the
            # centre-by-segment arrays stay within GRAPH_BLOCK_CELLS, whatever a unit reaches
            block = max(1, GRAPH_BLOCK_CELLS // max(1, len(segs)))
            pieces = [
                piece
                for first in range(0, len(every), block)
                for piece in self._visible_pieces(every[first : first + block], segs)
            ]
            at = 0
            for i, count in owners[component]:
                budget.check_now("drawing where models can reach")
                mine = pieces[at : at + count]
                at += count
                region = shapely.union_all(mine) if mine else Polygon()
                for core in self._climb_shapes:
                    region = region.difference(core)
                out[i] = region
        return out


#: Navigators hold prepared GEOS geometries, which are not thread-safe (two threads asking the
#: same prepared polygon a question at once can crash the process; libgeos/geos#825), so each
#: thread keeps its own cache: a navigator is only ever used by the thread that built it.
_LOCAL = threading.local()
#: Each thread keeps at most this many navigators, and at most this many bytes of them (issue
#: 16: a 600-model table's navigator is tens of MB, so a count alone does not bound memory).
_CACHE_SIZE = 32
#: (`Navigator.footprint_bytes`): one navigator of a 600-model, 200-piece table weighs tens of
#: MB, a bench table's one or two.
_CACHE_BYTES = 96 * 2**20


def _cache() -> dict:
    """This thread's navigators: key -> navigator, least recently used first. A plain dict, not
    an OrderedDict: iterating an OrderedDict's values looks each key up again, and a key (every
    obstacle's key) takes ~35 us to hash, so measuring the cache's bytes on every look-up cost
    more than the look-up."""
    cache = getattr(_LOCAL, "navigators", None)
    if cache is None:
        cache = _LOCAL.navigators = {}
    return cache


def clear_cache() -> None:
    """Forget this thread's navigators (tests, benchmarks)."""
    _cache().clear()


def cached_bytes() -> int:
    """The approximate bytes of this thread's navigators now (a graph built row by row grows
    as it is searched: its size is measured again at every look-up)."""
    return sum(nav.footprint_bytes for nav in _cache().values())


def navigator(
    width: float,
    height: float,
    radius: float,
    hard: Iterable[Obstacle] = (),
    climbs: Iterable[Obstacle] = (),
    snap: float = DEFAULT_SNAP,
) -> Navigator:
    """A cached `Navigator` for this table, radius and set of obstacles (keyed by their keys),
    private to the calling thread."""
    hard, climbs = tuple(hard), tuple(climbs)
    key = (
        width,
        height,
        round(radius, 9),
        snap,
        tuple(o.key for o in hard),
        tuple((o.key, o.height) for o in climbs),
    )
    cache = _cache()
    nav = cache.pop(key, None)
    if nav is None:
        nav = Navigator(width, height, radius, hard, climbs, snap)
    cache[key] = nav  # the most recently used last
    # The newest is always kept (it is in use); older ones go while over either bound. (Also on
    # a hit: the rows searches built since the last look-up count now.)
    while len(cache) > 1 and (len(cache) > _CACHE_SIZE or cached_bytes() > _CACHE_BYTES):
        del cache[next(iter(cache))]
    return nav


__all__ = [
    "ARC_FACTOR",
    "EPSILON",
    "Navigator",
    "Obstacle",
    "cached_bytes",
    "clear_cache",
    "inflate",
    "inflated_disc",
    "inflated_discs",
    "navigator",
]
