"""21.02 while moving: "engaged with the surge target if possible, else as close as possible",
judged exactly as RULES.md 1.6 defines it, and the engine's suggested placement.

The test for one model m (RULES.md 1.6): leave every other model where the proposal puts it and
look for a position m could have ended at instead: reachable within the maximum distance along a
legal path, not overlapping any model, not engaged with an enemy unit other than the target,
keeping the unit in coherency. If such a position is engaged with the target while m is not, or
(when m cannot be engaged) is closer to the target by more than PLACEMENT_TOLERANCE, m broke the
rule, and the finding names that position.

How: the set of such positions is built as shapely regions of base centres (the navigator's
reachable region, minus the bases of other models, minus the engagement zones of the other enemy
units, minus the walls and low enclosed parts a base may pass through but not end in, intersected
with the coherency discs). Circles stand in as polygons, so every region is
shrunk by a margin where it must be inside something and grown by it where it must stay out: the
regions never contain an illegal position. A position found there is then checked exactly (path
length, overlaps, engagement, coherency) before it is used against a model. So a model is only
ever faulted with a position that is really legal, and the search may miss an alternative by at
most the margin, well inside PLACEMENT_TOLERANCE.

The suggestion (`suggest_placement`): closest models first, each takes the best position left
(engaged if it can, else nearest the target) linked to the models already placed; when that
greedy pass cannot keep the unit coherent (GEOMETRY-NOTES.md: 2 runs in 12), it starts instead
from the whole unit slid rigidly toward the target as far as every model can go (coherency and
spacing are kept by construction). Then it repairs and improves: every model in turn moves to
its best position with the others fixed, until no model can improve by more than SOLVER_STEP.
That end state passes the test above by construction, so `adjudicate(suggest(x))` is legal
whenever the search started from a legal placement.

Upper floors (RULES.md 1.5: "if possible" weighs every level): when target models stand on a
floor, spots round them on that floor (rings at a few edge gaps, like the charge's) are tried as
well, each checked exactly (a stable stand on the floor, the climb counted in the path). A model
not engaged that could have stood engaged up there is faulted with that spot, and the suggestion
moves models up to such spots when that engages them. When nothing on the ground is better, each
upper floor the model could reach is searched too (`floor_rooms`: its whole base over the floor,
within the maximum distance less the climb as the crow flies): a spot there nearer the target
in 3-D (a model on a 3" floor is nearer a target 6" up than one on the ground below it) faults a
model that cannot engage, and the suggestion climbs to it.

Climbing (RULES.md 1.5, last bullet: "if possible" weighs what the model reaches with the climb
counted): the regions above are the reach on foot, which stops at a dense section a MONSTER or
VEHICLE would climb. When such a section lies within the move less its climb, the ground beyond
it (`over_climbs`, from `climbing_reach`) is searched too, for a model not engaged that found
nothing better on foot (or nothing engaged); its spots are checked exactly like the others
(`legal_for`: the path the move judge takes, the climb counted), so the suggestion climbs over a
low wall when that engages a model or gets it closer, and is never faulted for stopping at one.

Simplifications (stated for the UI): the floor search takes, on each floor, the spot nearest the
target horizontally (the nearest in 3-D when the target models stand on one level) and keeps the
unit's other models out of the way on every level; the tops of walls and enclosed parts are not
searched; a model whose base is not round is placed keeping its facing, or (only to engage the
target, when its own facing cannot) turned end on to the target or across that (`turned`: 1.3,
rotations are free): its outline held at that facing (`held_at`) decides its reach, its
engagement with the target, how near it may end to walls, enclosed parts and other models and its
2" links to its own unit's, while the 9" span and the floors measure it with its inner radius
where it must reach something and its outer radius where it must keep clear.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import Point
from shapely.ops import nearest_points, unary_union

from ..budget import check_now
from ..geometry import EPSILON
from ..memory import Kept, geometry_bytes
from ..pathfinding import Navigator
from ..situation import Model, Situation, Unit, overlap
from .measuring import (
    COHERENCY_RANGE,
    COHERENCY_SPAN,
    ENGAGEMENT_RANGE,
    coherency,
    in_engagement_range,
    model_distance,
)
from .moving import (
    ENCLOSED_LOW,
    MAY_END_ABOVE,
    PLACEMENT_TOLERANCE,
    Mode,
    climbing_reach,
    held_at,
    may_stand,
    navigator_for,
    plan_path,
)

#: A surge is a ground move with no through-model permission of its own (21.02: take to the
#: skies is not for surges; AIRCRAFT can still be crossed, 23.02, as for every ground move).
SURGE_MODE = Mode()

#: How far inside the true limits the regions stay: the judge's margin, and the solver's (larger,
#: so every position the solver picks lies strictly inside the judge's regions: a placement the
#: solver packed tightly is never lost to the judge's search).
JUDGE_MARGIN = 0.004
#: `SurgeSpace._nearest_engaging_spot` tries only straight moves longer than the maximum less
#: this: the regions fall short of the true reach by the judge's margin and the inscribed arcs
#: (~0.01" in all), so a shorter engaging move already shows in them.
EXACT_SPOT_SLACK = 0.02
SOLVER_MARGIN = 0.01
#: How far past engagement range a model's closest possible end (`lower_bound`) may lie and the
#: regions still show an engaging spot: their discs are drawn a hair around the true circles.
_NEVER_ENGAGED_SLACK = 0.01
#: The solver keeps improving a model while it gains more than this (< PLACEMENT_TOLERANCE).
SOLVER_STEP = 0.01
MAX_PASSES = 40
CIRCLE_QUAD_SEGS = 32  # 128-gon discs: inscribed ones fall short of the circle by < 0.0004 r
#: Spots tried round a target model standing on a floor: edge gaps and points per ring.
FLOOR_RING_GAPS = (0.0, 0.5, 1.0, ENGAGEMENT_RANGE.horizontal - 0.01)
FLOOR_RING_POINTS = 36
_CIRCUMSCRIBE = 1.0 / math.cos(math.pi / (4 * CIRCLE_QUAD_SEGS))
#: The inner radius of the inscribed polygon `disc` builds, over the circle's radius.
_INSCRIBED = math.cos(math.pi / (4 * CIRCLE_QUAD_SEGS))


def outer_radius(base) -> float:
    return base.radius


def inner_radius(base) -> float:
    """The radius of the largest circle about the centre inside the base."""
    if base.kind == "round":
        return base.size[0] / 2
    if base.kind in ("oval", "rect"):
        return min(base.size) / 2
    shape = base.footprint(0, 0, 0)
    return shape.exterior.distance(Point(0, 0))


@lru_cache(maxsize=8)
def _unit_circle(quad_segs: int) -> np.ndarray:
    """The closed ring of 4 * quad_segs vertices GEOS's buffer puts round a point, for a unit
    radius: from angle 0, clockwise on screen (y down), the last vertex repeating the first."""
    n = 4 * quad_segs
    angles = -2 * np.pi * np.arange(n + 1) / n
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    ring[-1] = ring[0]
    return ring


@lru_cache(maxsize=4096)
def _circle(x: float, y: float, radius: float, quad_segs: int):
    """A disc as GEOS's buffer of a point makes it (the same vertices to within an ulp), shared:
    a surge search asks for the same discs about the same models hundreds of times (mates stay
    put while one model is tried). Built from the unit ring in half the time of the buffer.
    Geometries are immutable, so sharing them is safe across threads. Every entry is one disc
    of at most 4 x CIRCLE_QUAD_SEGS + 1 vertices (~3.3 KB, `rules.memory.geometry_bytes`), so
    the count bounds the bytes too: under 14 MB (a C-level cache: this is the solver's most
    frequent call)."""
    if radius <= 0:
        return shapely.Polygon()
    return shapely.polygons(_unit_circle(quad_segs) * radius + (x, y))


#: Unions of discs kept between surges (`_union_of_circles`): their size grows with the number
#: of discs (a 60-model unit's union is ~10 000 vertices, ~250 KB), so they are bounded in bytes
#: (issue 16), not only in count.
UNIONS_KEPT_BYTES = 16 * 2**20
_UNIONS = Kept(UNIONS_KEPT_BYTES, most=1024)


def _union_of_circles(circles: tuple[tuple[float, float, float], ...], quad_segs: int):
    """The union of discs (x, y, radius), in the order given (the same result as before)."""
    return _UNIONS.get(
        (circles, quad_segs),
        lambda: shapely.union_all([_circle(x, y, r, quad_segs) for x, y, r in circles]),
        geometry_bytes,
    )


def disc(x: float, y: float, r: float):
    """A disc as an inscribed polygon (never larger than the circle): for "must be inside"."""
    return _circle(x, y, max(r, 0.0), CIRCLE_QUAD_SEGS)


def disc_around(x: float, y: float, r: float):
    """A disc as a circumscribed polygon (never smaller than the circle): for "must keep out"."""
    return _circle(x, y, max(r, 0.0) * _CIRCUMSCRIBE, CIRCLE_QUAD_SEGS)


def _safe(op, a, b):
    """A shapely overlay, retried on cleaned-up inputs if GEOS meets a topology error."""
    try:
        return op(a, b)
    except shapely.errors.GEOSException:
        return op(shapely.make_valid(a.buffer(0)), shapely.make_valid(b.buffer(0)))


@dataclass(frozen=True)
class Alternative:
    """Where model `model` could have ended instead, and what it would have achieved there."""

    model: Model
    engaged: bool
    distance: float  # straight distance to the surge target from there
    moved: float  # path length from its start


class SurgeSpace:
    """Everything the test and the solver need for one surge: the unit, the target, the maximum
    distance, and (cached) each model's reachable ground.

    Regions are built with a `margin` (how far inside the true limits they stay): JUDGE_MARGIN
    for the judge, SOLVER_MARGIN for the solver.
    """

    def __init__(self, situation: Situation, unit: Unit, target: str, max_distance: float):
        self.situation = situation
        self.unit = unit
        self.target = situation.unit(target)
        self.max_distance = max_distance
        self.starts: dict[str, Model] = {m.id: m for m in unit.models}
        self.other_enemies = [e for e in situation.enemies_of(unit) if e.id != target]
        self.bystanders = [m for u in situation.units if u.id != unit.id for m in u.models]
        # centres and enclosing radii as arrays, to pick out the few models near a position
        # before the exact tests (`_around`)
        self._bystander_at = _centres(self.bystanders)
        self._other_enemy_models = [t for e in self.other_enemies for t in e.models]
        self._other_enemy_at = _centres(self._other_enemy_models)
        self._bystander_z = np.array([m.z for m in self.bystanders], dtype=float)
        self._other_enemy_z = np.array([m.z for m in self._other_enemy_models], dtype=float)
        self._round_targets = (
            [(t.x, t.y, t.z, t.base.radius) for t in self.target.models]
            if all(t.base.kind == "round" for t in self.target.models)
            else None
        )
        self.target_shape = unary_union([m.footprint for m in self.target.models])
        shapely.prepare(self.target_shape)
        self._table = situation.table.area.buffer(EPSILON)
        shapely.prepare(self._table)
        self._reach: dict[str, object] = {}
        self._static: dict[tuple[str, float], object] = {}
        self._zone: dict[tuple, object] = {}
        self._best: dict[tuple[str, float], tuple[bool, float]] = {}
        self._floor_spots: dict[str, list[Model]] = {}
        # per surge (this object lives for one judgement or one suggestion): the ring spots per
        # base radius and `may_stand` per spot and kind of model (bounded by the rings' size)
        self._rings: dict[float, tuple] = {}
        self._stand: dict[tuple, dict[tuple, bool]] = {}
        self._joins: dict[tuple[int, ...], tuple[list, object]] = {}
        self._lower: dict[str, float] = {}
        self._near_target: dict[float, object] = {}
        self._static_near_cache: dict[tuple[str, float, float], object] = {}
        self._unions: dict[tuple, object] = {}
        self._floor_rooms: dict[tuple[str, float], list[tuple[float, object]]] = {}
        self._over: dict[tuple[str, float, bool], tuple[object, bool, float] | None] = {}
        # 1.3 rotations are free: this surge with one model turned before it moves (`turned`)
        self._turned: dict[tuple[str, float], SurgeSpace] = {}
        self._grown: dict[tuple, tuple] = {}
        self._helds: dict[tuple, object] = {}

    # -- measuring against the target -------------------------------------------------------
    def target_distance(self, model: Model) -> float:
        """The straight distance (RULES.md 1.1) from `model` to the nearest target model."""
        if model.base.kind == "round" and self._round_targets is not None:
            # model_distance's arithmetic, in its order, without a Distance a pair: the solver
            # asks this thousands of times a surge
            x, y, z, r = model.x, model.y, model.z, model.base.radius
            return min(
                math.hypot(max(0.0, math.hypot(x - tx, y - ty) - r - tr), abs(z - tz))
                for tx, ty, tz, tr in self._round_targets
            )
        return min(model_distance(model, t).straight for t in self.target.models)

    def engaged_with_target(self, model: Model) -> bool:
        return any(in_engagement_range(model, t) for t in self.target.models)

    def engaged_with_others(self, model: Model) -> list[str]:
        # only models whose enclosing circles come within engagement range can be engaged (the
        # same quick test in_engagement_range starts with): the exact test runs on those alone
        near = {
            id(self._other_enemy_models[i])
            for i in _around(self._other_enemy_at, model, ENGAGEMENT_RANGE.horizontal)
        }
        if not near:
            return []
        return [
            e.id
            for e in self.other_enemies
            if any(id(t) in near and in_engagement_range(model, t) for t in e.models)
        ]

    # -- regions of base centres ------------------------------------------------------------
    def reach(self, mid: str):
        """The navigator's region of centres on the ground model `mid` can reach within the
        maximum distance (a model on a floor pays its way down first, RULES.md 1.5)."""
        if mid not in self._reach:
            start = self.starts[mid]
            self._reach[mid] = self._held_reach_if_needed(start, self._reach_of(start, None))
        return self._reach[mid]

    def reach_every_model(self) -> None:
        """`reach` for every model of the unit not asked for yet (a search that places them all),
        the enclosing circles of those that share a navigator worked out together
        (`Navigator.reachable_regions`): the same regions, for less."""
        waiting: dict[int, tuple[Navigator, list[Model]]] = {}
        for mid, start in self.starts.items():
            if mid not in self._reach and self._ground_budget(start) > 0:
                nav = self._navigator(start, None)
                waiting.setdefault(id(nav), (nav, []))[1].append(start)
        for nav, models in waiting.values():
            try:
                regions = nav.reachable_regions(
                    [(m.x, m.y) for m in models], [self._ground_budget(m) for m in models]
                )
            except shapely.errors.GEOSException:
                continue  # each model on its own then, with `_reach_of`'s fallback
            for start, region in zip(models, regions, strict=True):
                self._reach[start.id] = self._held_reach_if_needed(start, region)

    def _held_reach_if_needed(self, start: Model, region):
        """A base that is not round is placed keeping its facing (see the module docstring),
        so it reaches what its outline held at that facing reaches, not its enclosing circle
        (`region`): up to a wall's face with its side, 0.69" nearer for a Carnifex's oval.
        Where nothing stops the circle within the move the two are the same disc, and the held
        base's own navigator (one per facing and start) is not needed."""
        if start.base.kind != "round" and region.area < _disc_area(self._ground_budget(start)):
            return self._reach_of(start, start.facing)
        return region

    def _navigator(self, start: Model, facing: float | None) -> Navigator:
        """The navigator `start`'s reach is measured on: its enclosing circle's (`facing`
        None), or its base held at `facing` with only the obstacles within its move."""
        near = None if facing is None else (start.x, start.y, self._ground_budget(start))
        return navigator_for(
            self.situation, self.unit, start.base, SURGE_MODE, None, facing, model=start, near=near
        )

    def _reach_of(self, start: Model, facing: float | None):
        """`start`'s reach within the maximum distance, as its enclosing circle (`facing` None)
        or its base held at `facing`."""
        budget = self._ground_budget(start)
        if budget <= 0:
            return shapely.Polygon()
        nav = self._navigator(start, facing)
        try:
            return nav.reachable_region((start.x, start.y), budget)
        except shapely.errors.GEOSException:
            # GEOS can fail on degenerate overlays (seen where a shadow meets the table edge).
            # Fall back to the free space within the distance as the crow flies: a superset of
            # the reach, which is safe here because every position taken from a region is
            # checked exactly (path length included) before it is used.
            crow = disc_around(start.x, start.y, budget)
            return _safe(shapely.intersection, crow, nav.free_space)

    def _ground_budget(self, start: Model) -> float:
        """What is left of the maximum distance for walking on the ground once `start` has
        climbed down from its floor (RULES.md 1.5: each inch down counts)."""
        return self.max_distance - start.z

    def static_region(self, mid: str, margin: float = JUDGE_MARGIN):
        """Centres model `mid` can reach and end at, ignoring its own unit: its reach minus other
        units' bases and the engagement zones of enemy units other than the target."""
        key = (mid, margin)
        if key not in self._static:
            start = self.starts[mid]
            region = self.reach(mid)
            bbox = region.bounds if not region.is_empty else (0, 0, 0, 0)
            keep_out = self._keep_out_at(start, 0.0, bbox, margin)
            if keep_out and not region.is_empty:
                region = _safe(shapely.difference, region, self._joined(keep_out))
            shapely.prepare(region)
            self._static[key] = region
        return self._static[key]

    def engagement_zone(self, mid: str, margin: float = JUDGE_MARGIN):
        """Centres at which model `mid` (at ground level) is engaged with the target (the same
        for every model with the same base: built once per base size; for a base that is not
        round, per base and facing, its outline held at that facing)."""
        start = self.starts[mid]
        r_in = inner_radius(start.base) - margin
        held = self._held(start)
        key = (r_in, margin) if held is None else (start.base, start.facing, margin)
        if key not in self._zone:
            parts = [
                t.footprint.buffer(ENGAGEMENT_RANGE.horizontal + r_in, quad_segs=CIRCLE_QUAD_SEGS)
                if held is None
                else _held_reach(held, t, ENGAGEMENT_RANGE.horizontal - margin)
                for t in self.target.models
                if abs(t.z) <= ENGAGEMENT_RANGE.vertical
            ]
            zone = unary_union(parts) if parts else shapely.Polygon()
            shapely.prepare(zone)
            self._zone[key] = zone
        return self._zone[key]

    def over_climbs(
        self, mid: str, margin: float = JUDGE_MARGIN, one_section: bool = False
    ) -> tuple[object, bool, float] | None:
        """RULES.md 1.5 (last bullet): the ground model `mid` reaches only by climbing a dense
        section over 2" (`climbing_reach`), less what `static_region` leaves out, with whether it
        holds a spot engaged with the target and how close to the target it gets (ignoring the
        unit, as `static_best`); None when there is nothing to climb within the move. Spots from
        here are candidates: `legal_for` measures their exact path, the climb counted.
        `one_section`: each section crossed on its own (`climbing_reach`)."""
        key = (mid, margin, one_section)
        if key not in self._over:
            start = self.starts[mid]
            region = climbing_reach(
                self.situation,
                self.unit,
                start,
                self._ground_budget(start),
                SURGE_MODE,
                one_section,
            )
            found = None
            if region is not None and not region.is_empty:
                keep_out = self._keep_out_at(start, 0.0, region.bounds, margin)
                if keep_out:
                    region = _safe(shapely.difference, region, self._joined(keep_out))
            if region is not None and not region.is_empty:
                shapely.prepare(region)
                p = nearest_points(region, self.target_shape)[0]
                found = (
                    region,
                    region.intersects(self.engagement_zone(mid, margin)),
                    self.target_distance(start.placed(p.x, p.y, 0.0)),
                )
            self._over[key] = found
        return self._over[key]

    def static_best(self, mid: str, margin: float = JUDGE_MARGIN) -> tuple[bool, float]:
        """Ignoring its own unit: can `mid` engage the target at all, and how close can it get?
        (Bounds for the full test: the unit's other models only take positions away.)"""
        key = (mid, margin)
        if key not in self._best:
            region = self.static_region(mid, margin)
            if region.is_empty:
                self._best[key] = (False, math.inf)
            else:
                can_engage = region.intersects(self.engagement_zone(mid, margin))
                p = nearest_points(region, self.target_shape)[0]
                start = self.starts[mid]
                self._best[key] = (can_engage, self.target_distance(start.placed(p.x, p.y, 0.0)))
        return self._best[key]

    def region_among(
        self, mid: str, mates: list[Model], margin: float = JUDGE_MARGIN, groups=None, within=None
    ):
        """Centres for `mid` with its unit mates `mates` fixed: no overlap with them and the unit
        in coherency (a 2" link to every group the mates form, within 9" of each). `within`
        replaces the model's static region (to search a smaller area, or a larger one)."""
        region = self.static_region(mid, margin) if within is None else within
        if region.is_empty or not mates:
            return region
        base = self.starts[mid].base
        r_out, r_in = outer_radius(base) + margin, inner_radius(base) - margin
        bbox = region.bounds
        # Each mate's gap to the region, once: a disc that cannot reach the region changes
        # nothing there, so it is left out of the unions (they grow with every disc).
        gap = dict(zip((m.id for m in mates), _gaps(region, mates).tolist(), strict=True))
        near = [m for m in mates if gap[m.id] <= (r_out + m.base.radius) * _CIRCUMSCRIBE + 0.1]
        by_id = {m.id: m for m in mates}
        link = COHERENCY_RANGE.horizontal + r_in
        # Bases that are not round (hulls, ovals: the mover's or a mate's) are measured by their
        # outlines, the mover's held at its facing: circles round a 5 x 3" hull (2.9" across
        # the corners) would keep two hulls side by side 1.9" apart from both fitting and linking.
        outlines = base.kind != "round" or any(m.base.kind != "round" for m in mates)
        start = self.starts[mid]
        held = self._held(start)
        linking = []
        for group in groups if groups is not None else coherency(mates).groups:
            every = [by_id[g] for g in group]
            if outlines:
                reach = [link + r_out - r_in + m.base.radius for m in every]
            else:
                reach = [link + inner_radius(m.base) for m in every]
            members = [m for m, r in zip(every, reach, strict=True) if gap[m.id] <= r + 0.1]
            if not members:
                return shapely.Polygon()
            linking.append((every, members, reach))
        if near:
            keep_out = (
                unary_union([self._clear_of(m, 0.0, r_out, held, margin) for m in near])
                if outlines
                else self._discs(mates, near, [r_out + m.base.radius for m in mates], around=True)
            )
            region = _safe(shapely.difference, region, keep_out)
            # Where the mates' bases cover the region (a model boxed in behind the others, the
            # common case when the solver checks a placement), the coherency discs need no union.
            if region.is_empty:
                return region
        # 64-gons: inscribed, short of the circle by < 0.004" at these radii, which the gap
        # between the two margins (SOLVER_MARGIN - JUDGE_MARGIN) covers
        inside = [
            unary_union([self._linked_to(start, m, margin) for m in members])
            if outlines
            else self._discs(every, members, reach, quad_segs=16)
            for every, members, reach in linking
        ]
        for part in sorted(inside, key=lambda g: g.area):
            if region.is_empty:
                return region
            region = _safe(shapely.intersection, region, part)
        # 9" from every mate: a disc holding the whole region already (its bounding box within
        # the circle, or its vertices within the polygon's inner radius) changes nothing.
        if region.is_empty:
            return region
        spans = np.array([COHERENCY_SPAN.horizontal + r_in + inner_radius(m.base) for m in mates])
        centres = np.array([(m.x, m.y) for m in mates])
        outside = (_farthest_from(centres, bbox) > spans) & (
            _farthest_of(centres, shapely.get_coordinates(region)) > spans * _INSCRIBED - EPSILON
        )
        for k in np.flatnonzero(outside).tolist():
            m = mates[k]
            region = _safe(shapely.intersection, region, disc(m.x, m.y, float(spans[k])))
            if region.is_empty:
                return region
        return region

    def _discs(
        self,
        models: list[Model],
        near: list[Model],
        radii: list[float],
        around: bool = False,
        quad_segs: int = CIRCLE_QUAD_SEGS,
    ):
        """The union of discs about the centres of `models` (radius by model, circumscribed when
        `around`), as far as it matters near the region: only the discs of `near` (a subset)
        reach it. The solver places one model after another, so the union for n models is
        usually the union for the first n - 1 (kept from the call before) and one disc more,
        far cheaper than n discs anew; otherwise only the `near` discs are joined."""
        factor = 1.0 / math.cos(math.pi / (4 * quad_segs)) if around else 1.0
        every = tuple((m.x, m.y, r * factor) for m, r in zip(models, radii, strict=True))
        key = (every, quad_segs)
        found = self._unions.get(key)
        if found is not None:
            return found
        before = self._unions.get((every[:-1], quad_segs))
        if before is not None or len(every) == 1:
            x, y, r = every[-1]
            last = _circle(x, y, r, quad_segs)
            union = last if before is None else shapely.union(before, last)
            self._unions[key] = union
            return union
        ids = {m.id for m in near}
        return _union_of_circles(
            tuple(c for m, c in zip(models, every, strict=True) if m.id in ids), quad_segs
        )

    # -- the exact check of one position ---------------------------------------------------------
    def floor_spots(self, mid: str) -> list[Model]:
        """Spots engaged with a target model that stands on a floor, on that floor, where model
        `mid` may stand (RULES.md 1.5), cheapest first (as the crow flies plus the climb), within
        the maximum distance. Empty when no target model is above the table."""
        if mid not in self._floor_spots:
            start = self.starts[mid]
            rings, xs, ys, zs = self._ring_spots(start.base.radius)
            spots = []
            if rings:
                # the arrays only narrow the loop (a hair generous); the cost that decides and
                # sorts is the exact one below, as before
                rough = np.hypot(xs - start.x, ys - start.y) + np.abs(zs - start.z)
                limit = self.max_distance + EPSILON
                for i in np.flatnonzero(rough <= limit + 1e-9).tolist():
                    t, gap, k, x, y = rings[i]
                    cost = math.hypot(x - start.x, y - start.y) + abs(t.z - start.z)
                    if cost <= limit and self._may_stand_at(start, x, y, t.z):
                        spots.append((cost, gap, k, start.placed(x, y, t.z)))
            spots.sort(key=lambda item: item[:3])
            self._floor_spots[mid] = [spot for *_, spot in spots]
        return self._floor_spots[mid]

    def _ring_spots(self, radius: float):
        """[(target model, edge gap, index, x, y)] of every ring spot about the target models
        on a floor for a base of `radius`, and their x, y and z as arrays (the same for every
        model of that radius: built once per surge)."""
        if radius not in self._rings:
            rings = []
            for t in self.target.models:
                if t.z <= EPSILON:
                    continue
                for gap in FLOOR_RING_GAPS:
                    reach = t.base.radius + radius + gap + 1e-4
                    for k in range(FLOOR_RING_POINTS):
                        a = 2 * math.pi * k / FLOOR_RING_POINTS
                        x, y = t.x + reach * math.cos(a), t.y + reach * math.sin(a)
                        rings.append((t, gap, k, x, y))
            xs = np.array([r[3] for r in rings], dtype=float)
            ys = np.array([r[4] for r in rings], dtype=float)
            zs = np.array([r[0].z for r in rings], dtype=float)
            self._rings[radius] = (rings, xs, ys, zs)
        return self._rings[radius]

    def _may_stand_at(self, start: Model, x: float, y: float, z: float) -> bool:
        """`may_stand` for `start` placed at (x, y, z), remembered for this surge: the answer
        depends on the base, its facing, the model's keywords, the spot and whether it climbs
        (start.z against z), so models alike share it (the floor search asks it of every model
        for the same ring spots). At most one entry per spot tried."""
        kind = (start.base, start.facing, start.keywords)
        answers = self._stand.get(kind)
        if answers is None:
            answers = self._stand[kind] = {}
        key = (abs(start.z - z) > EPSILON, x, y, z)
        found = answers.get(key)
        if found is None:
            found = may_stand(self.situation, self.unit, start.placed(x, y, z), start)
            answers[key] = found
        return found

    def engaged_on_a_floor(self, mid: str, mates: list[Model], together=None) -> Alternative | None:
        """The cheapest legal spot on a target's floor (others fixed) engaged with the target."""
        for spot in self.floor_spots(mid):
            found = self.legal_for(mid, spot.x, spot.y, mates, together, z=spot.z)
            if found and self.engaged_with_target(found[0]):
                return Alternative(found[0], True, self.target_distance(found[0]), found[1])
        return None

    def floor_rooms(self, mid: str, margin: float = JUDGE_MARGIN) -> list[tuple[float, object]]:
        """RULES.md 1.5 and 1.6: [(height, centres)] on each upper floor model `mid` might end on
        (ignoring its own unit): within the maximum distance as the crow flies less the climb,
        its whole base over the floor, clear of other units' bases on that level and of the
        engagement range of enemy units other than the target. A superset of nothing: every
        spot taken from here is still checked exactly (path, climb, stability) before use.
        Empty for a model that may not end above the table, and on tables without floors."""
        key = (mid, margin)
        if key not in self._floor_rooms:
            start = self.starts[mid]
            rooms = []
            if (self.unit.keywords | start.keywords) & MAY_END_ABOVE:
                r_out = outer_radius(start.base) + margin
                for t in self.situation.terrain:
                    for floor in t.floors:
                        budget = self.max_distance - abs(floor.height - start.z) - margin
                        if budget <= 0:
                            continue
                        crow = disc(start.x, start.y, budget)
                        if not crow.intersects(floor.footprint):
                            continue
                        room = _safe(shapely.intersection, floor.footprint.buffer(-r_out), crow)
                        if room.is_empty:
                            continue
                        keep_out = self._keep_out_at(start, floor.height, room.bounds, margin)
                        if keep_out:
                            room = _safe(shapely.difference, room, self._joined(keep_out))
                        if not room.is_empty:
                            rooms.append((floor.height, room))
            self._floor_rooms[key] = rooms
        return self._floor_rooms[key]

    def _joined(self, shapes: list):
        """unary_union(shapes), remembered for this surge: models of one unit standing close
        together keep out of the same bases (the same cached disc objects, in the same order),
        so their static regions need the same union. Keyed by the shapes' identities, which
        stay unique because the entry keeps the shapes alive; at most one entry per static
        region or floor room built."""
        key = tuple(map(id, shapes))
        found = self._joins.get(key)
        if found is None:
            found = (shapes, unary_union(shapes))
            self._joins[key] = found
        return found[1]

    def _keep_out_at(self, start: Model, z: float, bbox, margin: float) -> list:
        """Centres of `start`'s base (grown by `margin`) at height `z` that overlap another
        unit's base on that level, are engaged with an enemy unit other than the target (2" h,
        5" v), or stand partway through a wall or a low enclosed part (RULES.md 1.3, 1.5: a
        model may pass through them but not end there, so the nearest point of a region must
        not lie in one). Each shape is kept for this surge, so that `_joined` meets the same
        objects for every model of one base size."""
        r_out = outer_radius(start.base) + margin
        held = self._held(start)
        keep_out = [
            self._clear_of(part, 0.0, r_out, held, margin)
            for part in self._no_end_at(z, bbox, r_out)
        ]
        enemies = self._other_enemy_at
        close = (np.abs(self._other_enemy_z - z) <= ENGAGEMENT_RANGE.vertical + EPSILON) & _near(
            enemies, bbox, ENGAGEMENT_RANGE.horizontal + r_out
        )
        keep_out += [
            self._clear_of(
                self._other_enemy_models[i], ENGAGEMENT_RANGE.horizontal, r_out, held, margin
            )
            for i in np.flatnonzero(close).tolist()
        ]
        close = (np.abs(self._bystander_z - z) <= EPSILON) & _near(self._bystander_at, bbox, r_out)
        keep_out += [
            self._clear_of(self.bystanders[i], 0.0, r_out, held, margin)
            for i in np.flatnonzero(close).tolist()
        ]
        return keep_out

    def _clear_of(self, thing, gap: float, r_out: float, held, margin: float):
        """Centres at which a base comes within `gap` of `thing` (a model or a wall's or
        enclosed part's outline), never smaller than the true zone: for a round base of radius
        `r_out` (its margin included) the thing grown by `gap` + `r_out`; for a base held at
        its facing (`held`), grown by that outline and then by `gap` + `margin`. Kept for this
        surge."""
        key = (id(thing), gap, r_out, id(held))
        found = self._grown.get(key)
        if found is None:
            if held is None:
                shape = (
                    _clearance(thing, gap + r_out)
                    if isinstance(thing, Model)
                    else thing.buffer((gap + r_out) * _CIRCUMSCRIBE, quad_segs=CIRCLE_QUAD_SEGS)
                )
            elif isinstance(thing, Model) and thing.base.kind == "round":
                shape = held.disc(thing.x, thing.y, thing.base.radius + gap + margin)
            else:
                outline = thing.footprint if isinstance(thing, Model) else thing
                shape = held.grown(outline).buffer((gap + margin) * _CIRCUMSCRIBE, quad_segs=8)
            found = self._grown[key] = (thing, held, shape)
        return found[2]

    def _linked_to(self, start: Model, mate: Model, margin: float):
        """Centres at which `start`'s base (held at its facing) is within 2" of `mate`'s
        (03.03), never larger than the true zone (inscribed arcs, shrunk by `margin`)."""
        held = self._held(start)
        gap = COHERENCY_RANGE.horizontal - margin
        if held is not None:
            return _held_reach(held, mate, gap)
        r = inner_radius(start.base)
        if mate.base.kind == "round":
            return disc(mate.x, mate.y, gap + r + mate.base.radius)
        return mate.footprint.buffer(gap + r, quad_segs=CIRCLE_QUAD_SEGS)

    def _held(self, start: Model):
        """`start`'s base held at its facing (rules/wh40k/moving.py), None for a round base."""
        if start.base.kind == "round":
            return None
        key = (start.base, start.facing)
        found = self._helds.get(key)
        if found is None:
            found = self._helds[key] = held_at(start.base, start.facing)
        return found

    def _no_end_at(self, z: float, bbox, r_out: float) -> list:
        """The walls (below their top) and enclosed parts (below their top and under 3") a base
        at height `z` would stand partway through, as `may_stand` judges them: their outlines,
        for those within `r_out` of the box `bbox`."""
        parts = []
        for t in self.situation.terrain:
            if not (t.walls or t.enclosed) or not _boxes_near(t.footprint.bounds, bbox, r_out):
                continue
            parts += [w.shape for w in t.walls if z < w.height - EPSILON]
            if z < ENCLOSED_LOW - EPSILON:
                parts += [e.footprint for e in t.enclosed if z < e.height - EPSILON]
        return parts

    def closer_on_a_floor(
        self,
        mid: str,
        mates: list[Model],
        together,
        below: float,
        margin: float = JUDGE_MARGIN,
        engaging: bool = False,
    ) -> Alternative | None:
        """RULES.md 1.5 "if possible" weighs every level: the spot on an upper floor (others
        fixed) nearest the target, if it is engaged or nearer than `below` (straight distance,
        the climb counted in the path). The nearest of each floor is tried; the best wins.
        `engaging`: only the floors within engagement range of a target model's level."""
        best: Alternative | None = None
        levels = [t.z for t in self.target.models]
        for height, room in self.floor_rooms(mid, margin):
            if engaging and not any(
                abs(height - z) <= ENGAGEMENT_RANGE.vertical + EPSILON for z in levels
            ):
                continue
            region = self.region_among(mid, mates, margin, together.groups, room)
            if region.is_empty:
                continue
            for x, y in _candidates(region, None, self.target_shape):
                found = self.legal_for(mid, x, y, mates, together, z=height)
                if found is None:
                    continue
                d = self.target_distance(found[0])
                engaged = self.engaged_with_target(found[0])
                if (engaged or d < below) and (
                    best is None or (engaged, -d) > (best.engaged, -best.distance)
                ):
                    best = Alternative(found[0], engaged, d, found[1])
                break
        return best

    def legal_for(
        self, mid: str, x: float, y: float, mates: list[Model], mates_coherency=None, z=0.0
    ) -> tuple[Model, float] | None:
        """Model `mid` ended at (x, y, z) with `mates` fixed: (the placed model, path length)
        if every condition holds exactly, else None. `mates_coherency` is coherency(mates) when
        the caller has it already."""
        check_now("placing the surging models")
        start = self.starts[mid]
        if not self._may_stand_at(start, x, y, z):
            return None
        model = start.placed(x, y, z)
        if model.base.kind == "round":
            r = model.base.radius
            table = self.situation.table
            if not (
                r - EPSILON <= x <= table.width - r + EPSILON
                and r - EPSILON <= y <= table.height - r + EPSILON
            ):
                return None
            centre = Point(x, y)
            if any(
                f.solid and f.footprint.distance(centre) < r - EPSILON
                for f in self.situation.terrain
            ):
                return None
        else:
            fp = model.footprint
            if not self._table.contains(fp):
                return None
            if any(
                f.solid and f.footprint.intersection(fp).area > EPSILON
                for f in self.situation.terrain
            ):
                return None
        if any(
            overlap(model, b)
            for b in (self.bystanders[i] for i in _around(self._bystander_at, model, 0.0))
            if abs(b.z - model.z) <= EPSILON and _close(model, b)
        ):
            return None
        if any(
            overlap(model, m) for m in mates if abs(m.z - model.z) <= EPSILON and _close(model, m)
        ):
            return None
        if self.engaged_with_others(model):
            return None
        if mates and not joins_in_coherency(model, mates, mates_coherency or coherency(mates)):
            return None
        # the same path the move judge (rules/wh40k/moving.py) will take and measure
        _, horizontal, vertical, found = plan_path(
            self.situation, self.unit, start, model, SURGE_MODE, limit=self.max_distance
        )
        if not found or horizontal + vertical > self.max_distance + EPSILON:
            return None
        return model, horizontal + vertical

    # -- the 1.6 test -----------------------------------------------------------------------------
    def lower_bound(self, mid: str) -> float:
        """No end position of `mid` is nearer the target horizontally than this (straight line)."""
        if mid not in self._lower:
            start = self.starts[mid]
            gap = start.footprint.distance(self.target_shape)
            self._lower[mid] = max(0.0, gap - self.max_distance)
        return self._lower[mid]

    def _closer_in(
        self, region, mid: str, mates: list[Model], together, below: float
    ) -> Alternative | None:
        """A legal spot for `mid` in `region` nearer the target than `below` (RULES.md 1.6: as
        close as possible), the region's nearest to the target first, or None."""
        for x, y in _candidates(region, None, self.target_shape):
            found = self.legal_for(mid, x, y, mates, together)
            if found:
                d = self.target_distance(found[0])
                if d < below:
                    return Alternative(found[0], self.engaged_with_target(found[0]), d, found[1])
        return None

    def _engaged_in(
        self, region, mid: str, current: Model, mates: list[Model], together, margin: float
    ) -> Alternative | None:
        """A legal spot for `mid` in `region` engaged with the target (RULES.md 1.6), the
        nearest to where it stands first (it leaves the ground nearer the target to the
        others), or None."""
        zone = _safe(shapely.intersection, region, self.engagement_zone(mid, margin))
        if zone.is_empty:
            return None
        for x, y in _candidates(zone, (current.x, current.y)):
            found = self.legal_for(mid, x, y, mates, together)
            if found and self.engaged_with_target(found[0]):
                return Alternative(found[0], True, self.target_distance(found[0]), found[1])
        return None

    def better_position(
        self, mid: str, placed: Mapping[str, Model], tolerance: float, margin: float = JUDGE_MARGIN
    ) -> Alternative | None:
        """RULES.md 1.6 for one model: a legal position (others fixed) engaged with the target while
        the model is not, or closer to it by more than `tolerance`. None if there is none."""
        found = self._better_held(mid, placed, tolerance, margin)
        if (found is None or not found.engaged) and self._may_engage_turned(mid, placed[mid]):
            # 1.3: rotations are free. The search holds the base at its start facing; a hull
            # broadside to a gap may pass it turned end on (review case v14). Weighed for
            # engaging only: getting closer is searched at the start facing (a turned search
            # costs a surge's regions again, per facing)
            for facing in self._turns(mid):
                turned = self.turned(mid, facing)._better_held(mid, placed, tolerance, margin)
                if turned is not None and turned.engaged:
                    return turned
        return found

    def _may_engage_turned(self, mid: str, current: Model) -> bool:
        """Is model `mid`, a base that is not round and not engaged, near enough the target that
        some facing might engage it (its centre within the move, its enclosing radius and 2")?"""
        start = self.starts[mid]
        if start.base.kind == "round" or self.engaged_with_target(current):
            return False
        gap = Point(start.x, start.y).distance(self.target_shape) - start.base.radius
        return gap - self.max_distance <= ENGAGEMENT_RANGE.horizontal + EPSILON

    def _better_held(
        self, mid: str, placed: Mapping[str, Model], tolerance: float, margin: float
    ) -> Alternative | None:
        """`better_position` with the base held at its start facing."""
        current = placed[mid]
        if self.engaged_with_target(current):
            return None
        now = self.target_distance(current)
        lower = self.lower_bound(mid)
        may_engage = lower <= ENGAGEMENT_RANGE.horizontal + EPSILON
        if not may_engage and now <= lower + tolerance:
            return None
        mates = [m for k, m in placed.items() if k != mid]
        together = _Together(mates)
        if may_engage and self.floor_spots(mid):
            upstairs = self.engaged_on_a_floor(mid, mates, together)
            if upstairs is not None:
                return upstairs
        found = self._better_on_the_ground(
            mid, current, mates, together, may_engage, tolerance, margin
        )
        if found is None and self.floor_rooms(mid, margin):
            found = self.closer_on_a_floor(mid, mates, together, now - tolerance, margin)
        elif (
            may_engage and found is not None and not found.engaged and self.floor_rooms(mid, margin)
        ):
            # every level is weighed (1.5): an engaged spot on another floor beats a merely
            # closer one on the ground, and the finding names it
            upstairs = self.closer_on_a_floor(mid, mates, together, -math.inf, margin, True)
            if upstairs is not None:
                found = upstairs
        if found is None or (may_engage and not found.engaged):
            # 1.5: ground reached only by climbing is weighed too (the regions above leave it
            # out): an engaged spot there, or one closer than any found
            over = self._better_by_climbing(
                mid, current, mates, together, may_engage, found, tolerance, margin
            )
            if over is not None:
                found = over
        return found

    def _turns(self, mid: str) -> list[float]:
        """The facings, other than its own, that model `mid` (a base that is not round) is also
        tried at: its length along the line to the nearest target point (end on through a gap),
        and across it."""
        start = self.starts[mid]
        p = nearest_points(self.target_shape, Point(start.x, start.y))[0]
        heading = math.degrees(math.atan2(p.y - start.y, p.x - start.x))
        facings = [round(heading % 360.0, 6), round((heading + 90.0) % 360.0, 6)]
        return [f for f in facings if abs((f - start.facing + 180.0) % 360.0 - 180.0) > 1e-6]

    def turned(self, mid: str, facing: float) -> SurgeSpace:
        """This surge with model `mid` turned on the spot to `facing` before it moves (1.3:
        rotations are free), so its base is held at that facing; kept for this surge."""
        key = (mid, facing)
        found = self._turned.get(key)
        if found is None:
            start = self.starts[mid]
            found = SurgeSpace(self.situation, self.unit, self.target.id, self.max_distance)
            found.starts = {**self.starts, mid: start.placed(start.x, start.y, start.z, facing)}
            self._turned[key] = found
        return found

    def _better_by_climbing(
        self,
        mid: str,
        current: Model,
        mates: list[Model],
        together,
        may_engage: bool,
        found: Alternative | None,
        tolerance: float,
        margin: float,
    ) -> Alternative | None:
        """`better_position` over the ground reached only by climbing (`over_climbs`), as
        `_better_on_the_ground` searches its regions: a spot engaged there, or (when nothing
        better was `found` elsewhere) one closer to the target than `current` by more than
        `tolerance`. The ground past every section in reach first; then, if nothing there
        passes its exact path, past each section on its own (`climbing_reach`'s `one_section`:
        between two low walls, where past both costs too much)."""
        for one_section in (False, True):
            over = self.over_climbs(mid, margin, one_section)
            if over is None:
                continue
            reach, can_engage, best = over
            engaging = may_engage and can_engage
            below = self.target_distance(current) - tolerance
            if not engaging and (found is not None or best >= below):
                continue
            region = self.region_among(mid, mates, margin, together.groups, reach)
            if region.is_empty:
                continue
            if engaging:
                engaged = self._engaged_in(region, mid, current, mates, together, margin)
                if engaged is not None:
                    return engaged
            if found is not None:
                continue
            closer = self._closer_in(region, mid, mates, together, below)
            if closer is not None:
                return closer
        return None

    def near_target(self, reach: float):
        """Centres within `reach` of the target (generous: circumscribed 32-gons),
        remembered for this surge by `reach`: a model that has not moved since it was last
        tried asks again with the same reach (the solver's passes). One entry per distinct
        reach (at most one per model tried)."""
        found = self._near_target.get(reach)
        if found is None:
            # a 32-gon round each target model, circumscribed about its base grown by `reach`
            # (a round base's polygon lies inside its circle): a tenth of the cost of buffering
            # the target's whole outline, and never smaller
            grow = 1.0 / math.cos(math.pi / 32)
            if self._round_targets is not None:
                # the same polygons `_circle` makes, all in one call (none is asked for twice)
                centres = np.array([(x, y) for x, y, _, _ in self._round_targets])
                radii = np.array([(r + reach) * grow for _, _, _, r in self._round_targets])
                found = shapely.union_all(
                    shapely.polygons(
                        _unit_circle(8)[None] * radii[:, None, None] + centres[:, None, :]
                    )
                )
            else:
                found = shapely.union_all(
                    [
                        _circle(t.x, t.y, (t.base.radius + reach) * grow, 8)
                        if t.base.kind == "round"
                        else t.footprint.buffer(reach * grow, quad_segs=8)
                        for t in self.target.models
                    ]
                )
            self._near_target[reach] = found
        return found

    def _static_near(self, mid: str, margin: float, reach: float):
        """static_region(mid, margin) within `reach` of the target (`near_target`), remembered
        for this surge like `near_target` (the same model asking again, unmoved)."""
        key = (mid, margin, reach)
        found = self._static_near_cache.get(key)
        if found is None:
            found = _safe(
                shapely.intersection, self.static_region(mid, margin), self.near_target(reach)
            )
            self._static_near_cache[key] = found
        return found

    def _nearest_engaging_spot(self, mid: str, mates: list[Model], together) -> Alternative | None:
        """For an engagement that takes the whole move: the ground spots nearest model `mid`'s
        start (as the crow flies) at exactly engagement range of each target model, nearest
        first, if it may end there and reach it within the maximum distance (checked exactly,
        path included). Round bases are measured analytically (centre distance less the radii,
        RULES.md 1.1); other bases from the nearest point of the engagement zone."""
        start = self.starts[mid]
        reach = ENGAGEMENT_RANGE.horizontal
        # only spots the regions can miss: a straight move within a hair of the maximum (their
        # shortfall is at most ~0.01"); a shorter one lies in them, or its path is obstructed
        shortest = self.max_distance - EXACT_SPOT_SLACK
        spots: list[tuple[float, float, float]] = []
        for t in self.target.models:
            if abs(t.z) > ENGAGEMENT_RANGE.vertical:
                continue
            if start.base.kind == "round" and t.base.kind == "round":
                d = math.hypot(t.x - start.x, t.y - start.y)
                move = d - (t.base.radius + start.base.radius + reach)
                if d > 0 and shortest < move <= self.max_distance + EPSILON:
                    f = move / d
                    spots.append(
                        (move, start.x + (t.x - start.x) * f, start.y + (t.y - start.y) * f)
                    )
            else:
                held = self._held(start)
                zone = (
                    t.footprint.buffer(reach + inner_radius(start.base))
                    if held is None
                    else _held_reach(held, t, reach)
                )
                origin = Point(start.x, start.y)
                move = zone.distance(origin)
                if shortest < move <= self.max_distance + EPSILON:
                    p = nearest_points(zone, origin)[0]
                    spots.append((move, p.x, p.y))
        for _, x, y in sorted(spots):
            found = self.legal_for(mid, x, y, mates, together)
            if found is not None and self.engaged_with_target(found[0]):
                return Alternative(found[0], True, self.target_distance(found[0]), found[1])
        return None

    def _better_on_the_ground(
        self,
        mid: str,
        current: Model,
        mates: list[Model],
        together,
        may_engage: bool,
        tolerance: float,
        margin: float,
    ) -> Alternative | None:
        """`better_position` on the ground: a spot engaged there, or closer than `current` by
        more than `tolerance`."""
        now = self.target_distance(current)
        # Only ground nearer the target than `now` (less the tolerance), or engaged, can hold a
        # better position: search there alone (a generous polygon: it only narrows the search).
        start = self.starts[mid]
        reach_out = max(now - tolerance, ENGAGEMENT_RANGE.horizontal) + outer_radius(start.base)
        improving = self.near_target(reach_out)
        # First without the navigator: within the maximum distance as the crow flies, which holds
        # every reachable position. If even that has nothing better, neither has the true reach.
        # (Once the reach is known the test saves nothing: the search below holds less ground,
        # so it comes out empty whenever this one would, and the answer is None either way.)
        if mid not in self._reach:
            crow = _safe(
                shapely.intersection,
                disc_around(start.x, start.y, self.max_distance + 0.01),
                improving,
            )
            if self.region_among(mid, mates, margin, together.groups, crow).is_empty:
                return None
        can_engage, best = self.static_best(mid, margin)
        if may_engage and not can_engage:
            # The regions are a hair short (inscribed arcs, the margin): an engagement that takes
            # the whole move shows in none of them. "Engaged if possible" has no tolerance
            # (RULES.md 1.6), so try the exact spot too.
            exact = self._nearest_engaging_spot(mid, mates, together)
            if exact is not None:
                return exact
        may_engage = may_engage and can_engage
        if not may_engage and now <= best + tolerance:
            return None
        region = self.region_among(
            mid,
            mates,
            margin,
            together.groups,
            self._static_near(mid, margin, reach_out),
        )
        if region.is_empty:
            return None
        if may_engage:
            engaged = self._engaged_in(region, mid, current, mates, together, margin)
            if engaged is not None:
                return engaged
        return self._closer_in(region, mid, mates, together, now - tolerance)


class _Together:
    """coherency(mates), worked out when first asked for: most models `better_position` checks
    are turned away before it is needed (engaged already, or as close as they can get)."""

    def __init__(self, mates: list[Model]):
        self._mates = mates

    @cached_property
    def _found(self):
        return coherency(self._mates)

    @property
    def groups(self):
        return self._found.groups

    @property
    def too_far(self):
        return self._found.too_far


def joins_in_coherency(model: Model, mates: list[Model], mates_coherency) -> bool:
    """03.03 for the unit `mates` + `model`, given coherency(mates): no pair of the mates too far
    apart, `model` within 9" of each mate, and linked within 2" to every group the mates form
    (so the whole unit is one linked group). Equivalent to coherency([*mates, model]).ok."""
    if mates_coherency.too_far:
        return False
    linked = set()
    for m in mates:
        d = model_distance(model, m)
        if not COHERENCY_SPAN.holds(d):
            return False
        if COHERENCY_RANGE.holds(d):
            linked.add(m.id)
    return all(any(g in linked for g in group) for group in mates_coherency.groups)


def _candidates(region, towards_point=None, towards_shape=None):
    """A few points of `region` nearest a point or a shape: the nearest one, then the same pulled
    slightly inside (a boundary point can fail an exact check by a hair)."""
    goal = Point(towards_point) if towards_point is not None else towards_shape
    p = nearest_points(region, goal)[0]
    yield p.x, p.y
    inner = region.buffer(-0.002)
    if not inner.is_empty:
        q = nearest_points(inner, goal)[0]
        yield q.x, q.y
    rp = region.representative_point()
    yield rp.x, rp.y


def _disc_area(radius: float) -> float:
    """The area of the disc polygon a reachable region with nothing in the way is (the
    navigator's 64-gon), less a hair."""
    return float(shapely.buffer(Point(0.0, 0.0), radius, quad_segs=16).area) * (1 - 1e-9)


def _held_reach(held, t: Model, gap: float):
    """Centres at which a base held at its facing (`held`) comes within `gap` of model `t`
    (inscribed arcs: never larger than the true zone, for "must be inside")."""
    if t.base.kind == "round":
        return shapely.affinity.translate(
            held.reflected.buffer(t.base.radius + gap, quad_segs=CIRCLE_QUAD_SEGS), t.x, t.y
        )
    return held.grown(t.footprint.buffer(gap, quad_segs=CIRCLE_QUAD_SEGS))


def _clearance(model: Model, r: float):
    """Centres within which a base of radius r would come closer to `model` than allowed
    (circumscribed: never smaller than the true zone)."""
    if model.base.kind == "round":
        return disc_around(model.x, model.y, model.base.radius + r)
    return model.footprint.buffer(r * _CIRCUMSCRIBE, quad_segs=CIRCLE_QUAD_SEGS)


def _near(centres, bbox, reach: float):
    """For each model (rows of `centres`, from `_centres`), does its base come within `reach`
    (a hair generously) of the box `bbox`? A boolean array."""
    minx, miny, maxx, maxy = bbox
    x, y = centres[:, 0], centres[:, 1]
    dx = np.maximum(np.maximum(minx - x, 0.0), x - maxx)
    dy = np.maximum(np.maximum(miny - y, 0.0), y - maxy)
    return np.hypot(dx, dy) <= reach + centres[:, 2] + 0.1


def _boxes_near(a, b, reach: float) -> bool:
    """Do bounding boxes `a` and `b` (minx, miny, maxx, maxy) come within `reach` (a hair
    generously) of each other?"""
    return (
        a[0] <= b[2] + reach + 0.1
        and b[0] <= a[2] + reach + 0.1
        and a[1] <= b[3] + reach + 0.1
        and b[1] <= a[3] + reach + 0.1
    )


def _close(a: Model, b: Model) -> bool:
    return math.hypot(a.x - b.x, a.y - b.y) <= a.base.radius + b.base.radius + EPSILON


def _centres(models: list[Model]):
    """(x, y, enclosing radius) of each model as an n x 3 array."""
    if not models:
        return np.zeros((0, 3))
    return np.array([(m.x, m.y, m.base.radius) for m in models], dtype=float)


def _around(centres, model: Model, reach: float) -> list[int]:
    """Indices of the models (rows of `centres`, from `_centres`) whose enclosing circle comes
    within `reach` of `model`'s, a hair generously (1e-6: the exact tests that follow decide;
    this only spares them for models far away)."""
    if not len(centres):
        return []
    gaps = np.hypot(centres[:, 0] - model.x, centres[:, 1] - model.y) - centres[:, 2]
    limit = model.base.radius + reach + EPSILON + 1e-6
    return np.flatnonzero(gaps <= limit).tolist()


def _gaps(region, models: list[Model]):
    """Distances from each model's centre to `region` (0 inside it), as an array."""
    centres = shapely.points([(m.x, m.y) for m in models])
    return shapely.distance(region, centres)


def _farthest_of(centres, corners):
    """For each centre (an n x 2 array), the farthest of the points `corners` (m x 2)."""
    dx = corners[None, :, 0] - centres[:, None, 0]
    dy = corners[None, :, 1] - centres[:, None, 1]
    return np.hypot(dx, dy).max(axis=1)


def _farthest_from(centres, bbox):
    """For each centre (an n x 2 array), the farthest corner of the box `bbox`."""
    minx, miny, maxx, maxy = bbox
    return _farthest_of(centres, np.array([(minx, miny), (minx, maxy), (maxx, miny), (maxx, maxy)]))


# -- the suggestion -------------------------------------------------------------------------------
def suggest_placement(space: SurgeSpace) -> dict[str, Model]:
    """A placement meeting 21.02 while moving (see the module docstring): the most models engaged
    with the target that the search finds, then each other model as close as it can get.
    Returns {model id: Model}; the unit's start positions when nothing legal was found.

    Several starting placements are tried, because one greedy order can crowd the ground near
    the target and leave models that could all have engaged short of it: closest models first,
    farthest first (the models with least to spare choose first), every model straight at the
    target, and the whole unit slid rigidly. Each is improved; the best (most models engaged,
    then least total gap) wins, and the search stops at the first that engages every model that
    could engage at all.
    """
    # No placement engages more models than can each engage with the rest of the unit ignored
    # (counted only when a placement falls short of the whole unit: it costs a region a model).
    most: int | None = None
    best: dict[str, Model] | None = None
    for attempt in _ATTEMPTS:
        placed = attempt(space)
        if placed is None:
            continue
        placed = improve(space, placed, SOLVER_MARGIN, SOLVER_STEP)
        if best is None or _score(space, placed) < _score(space, best):
            best = placed
        engaged = -_score(space, best)[0]
        if engaged >= len(space.starts):
            break
        if most is None:
            # a model whose base starts more than the move plus 2" from the target can never
            # engage it (its static region lies within the move of its start): not worth a region
            most = sum(
                space.lower_bound(mid) <= ENGAGEMENT_RANGE.horizontal + _NEVER_ENGAGED_SLACK
                and space.static_best(mid, 0.0)[0]
                for mid in space.starts
            )
        if engaged >= most:
            break
    if best is None:
        return dict(space.starts)
    # Finally the judge's own test: whatever it would still fault is moved to the position it
    # names (exactly legal), so the judge passes the suggestion by construction.
    return improve(space, best, JUDGE_MARGIN, PLACEMENT_TOLERANCE)


def _score(space: SurgeSpace, placed: Mapping[str, Model]) -> tuple[int, float]:
    """Lower is better: (minus the models engaged with the target, the others' total gap)."""
    engaged, gap = 0, 0.0
    for m in placed.values():
        if space.engaged_with_target(m):
            engaged += 1
        else:
            gap += space.target_distance(m)
    return -engaged, gap


def improve(
    space: SurgeSpace, placed: dict[str, Model], margin: float, step: float
) -> dict[str, Model]:
    """Move each model in turn to a better position (others fixed) until none improves by more
    than `step`. Each move strictly improves one model and keeps the unit legal, so it ends."""
    placed = dict(placed)
    for _ in range(MAX_PASSES):
        changed = False
        for mid in sorted(placed, key=lambda k: space.target_distance(placed[k])):
            better = space.better_position(mid, placed, step, margin)
            if better is not None:
                placed[mid] = better.model
                changed = True
        if not changed:
            break
    return placed


def _greedy(space: SurgeSpace, farthest_first: bool = False) -> dict[str, Model] | None:
    """Closest model first (or farthest first), each to the best position linked to those
    already placed."""
    space.reach_every_model()  # every model is placed: each needs its reach
    placed: dict[str, Model] = {}
    order = sorted(
        space.starts,
        key=lambda k: space.target_distance(space.starts[k]),
        reverse=farthest_first,
    )
    for mid in order:
        start = space.starts[mid]
        mates = list(placed.values())
        together = coherency(mates) if mates else None
        region = space.region_among(
            mid, mates, SOLVER_MARGIN, together.groups if together else None
        )
        if region.is_empty:
            return None
        chosen = None
        zone = _safe(shapely.intersection, region, space.engagement_zone(mid, SOLVER_MARGIN))
        if not zone.is_empty:
            # engaged, with the least travel: leaves the ground nearer the target to the others
            for x, y in _candidates(zone, (start.x, start.y)):
                found = space.legal_for(mid, x, y, mates, together)
                if found and space.engaged_with_target(found[0]):
                    chosen = found[0]
                    break
        if chosen is None:
            for x, y in _candidates(region, None, space.target_shape):
                found = space.legal_for(mid, x, y, mates, together)
                if found:
                    chosen = found[0]
                    break
        if chosen is None:
            return None
        placed[mid] = chosen
    return {mid: placed[mid] for mid in space.starts}


def _slide(space: SurgeSpace) -> dict[str, Model] | None:
    """The whole unit slid rigidly toward the target as far as every model can legally go
    (spacing and coherency kept as they were); None when even staying put is not legal."""
    starts = list(space.starts.values())
    if not coherency(starts).ok:
        return None
    first = min(starts, key=space.target_distance)
    goal = nearest_points(space.target_shape, Point(first.x, first.y))[0]
    dx, dy = goal.x - first.x, goal.y - first.y
    length = math.hypot(dx, dy)
    if length < EPSILON:
        return dict(space.starts)
    ux, uy = dx / length, dy / length
    steps = 24
    for k in range(steps, -1, -1):
        t = space.max_distance * k / steps
        moved = {m.id: m.placed(m.x + ux * t, m.y + uy * t, 0.0) for m in starts}
        if k and not all(
            space.static_region(mid, SOLVER_MARGIN).contains(Point(m.x, m.y))
            for mid, m in moved.items()
        ):
            continue
        mates = list(moved.values())
        if all(
            space.legal_for(mid, m.x, m.y, [o for o in mates if o.id != mid])
            for mid, m in moved.items()
        ):
            return moved
    return None


def _straight(space: SurgeSpace) -> dict[str, Model] | None:
    """Every model straight at the nearest point of the target, just far enough to be engaged
    (or as far as it may go), as a player would push them; None unless all of it is legal."""
    # stop this far inside engagement range, so the exact check is not lost to rounding
    inside = 0.05
    moved: dict[str, Model] = {}
    for mid, start in space.starts.items():
        goal = nearest_points(space.target_shape, Point(start.x, start.y))[0]
        dx, dy = goal.x - start.x, goal.y - start.y
        length = math.hypot(dx, dy)
        gap = space.target_distance(start)
        step = min(space.max_distance, max(0.0, gap - ENGAGEMENT_RANGE.horizontal + inside))
        if length < EPSILON or step <= 0:
            moved[mid] = start
            continue
        moved[mid] = start.placed(start.x + dx / length * step, start.y + dy / length * step, 0.0)
    mates = list(moved.values())
    for mid, model in moved.items():
        if not space.legal_for(mid, model.x, model.y, [o for o in mates if o.id != mid]):
            return None
    return moved


_ATTEMPTS = (
    _greedy,
    lambda space: _greedy(space, farthest_first=True),
    _straight,
    _slide,
)
