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
units, intersected with the coherency discs). Circles stand in as polygons, so every region is
shrunk by SLACK where it must be inside something and grown by SLACK where it must stay out: the
regions never contain an illegal position. A position found there is then checked exactly (path
length, overlaps, engagement, coherency) before it is used against a model. So a model is only
ever faulted with a position that is really legal, and the search may miss an alternative by at
most SLACK, well inside PLACEMENT_TOLERANCE.

The suggestion (`suggest_placement`): closest models first, each takes the best position left
(engaged if it can, else nearest the target) linked to the models already placed; when that
greedy pass cannot keep the unit coherent (GEOMETRY-NOTES.md: 2 runs in 12), it starts instead
from the whole unit slid rigidly toward the target as far as every model can go (coherency and
spacing are kept by construction). Then it repairs and improves: every model in turn moves to
its best position with the others fixed, until no model can improve by more than SOLVER_STEP.
That end state passes the test above by construction, so `adjudicate(suggest(x))` is legal
whenever the search started from a legal placement.

Simplifications (stated for the UI): candidate positions are at ground level (z = 0); a model
whose base is not round is placed keeping its facing, its base measured with its inner radius
where it must reach something and its outer radius where it must keep clear.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import shapely
from shapely.geometry import Point
from shapely.ops import nearest_points, unary_union

from ..geometry import EPSILON
from ..situation import Model, Situation, Unit, overlap
from .measuring import ENGAGEMENT_RANGE, COHERENCY_RANGE, COHERENCY_SPAN, coherency, in_engagement_range, model_distance

#: Margin for polygons standing in for circles (64-gon buffers err by < 0.005" at 3" radius).
SLACK = 0.01
#: The solver keeps improving a model while it gains more than this (< PLACEMENT_TOLERANCE).
SOLVER_STEP = 0.01
MAX_PASSES = 40
CIRCLE_QUAD_SEGS = 16


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


def disc(x: float, y: float, r: float):
    return Point(x, y).buffer(max(r, 0.0), quad_segs=CIRCLE_QUAD_SEGS)


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

    `navigate(model) -> navigator` gives the 40K navigator for the model's base (pathfinding).
    """

    def __init__(self, situation: Situation, unit: Unit, target: str, max_distance: float, navigate):
        self.situation = situation
        self.unit = unit
        self.target = situation.unit(target)
        self.max_distance = max_distance
        self.navigate = navigate
        self.starts: dict[str, Model] = {m.id: m for m in unit.models}
        self.other_enemies = [e for e in situation.enemies_of(unit) if e.id != target]
        self.bystanders = [m for u in situation.units if u.id != unit.id for m in u.models]
        self.target_shape = unary_union([m.footprint for m in self.target.models])
        shapely.prepare(self.target_shape)
        self._static: dict[str, object] = {}
        self._zone: dict[str, object] = {}

    # -- measuring against the target -------------------------------------------------------
    def target_distance(self, model: Model) -> float:
        return min(model_distance(model, t).straight for t in self.target.models)

    def engaged_with_target(self, model: Model) -> bool:
        return any(in_engagement_range(model, t) for t in self.target.models)

    def engaged_with_others(self, model: Model) -> list[str]:
        return [e.id for e in self.other_enemies if any(in_engagement_range(model, t) for t in e.models)]

    # -- regions of base centres ------------------------------------------------------------
    def static_region(self, mid: str):
        """Centres model `mid` can reach and end at, ignoring its own unit: the navigator's
        reachable region minus other units' bases and other enemies' engagement zones."""
        if mid not in self._static:
            start = self.starts[mid]
            nav = self.navigate(start)
            region = nav.reachable_region((start.x, start.y), self.max_distance)
            r_out = outer_radius(start.base) + SLACK
            bbox = region.bounds
            keep_out = []
            for e in self.other_enemies:
                for t in e.models:
                    if abs(t.z) <= ENGAGEMENT_RANGE.vertical + EPSILON and _near(t, bbox, ENGAGEMENT_RANGE.horizontal + r_out + t.base.radius):
                        keep_out.append(t.footprint.buffer(ENGAGEMENT_RANGE.horizontal + r_out, quad_segs=CIRCLE_QUAD_SEGS))
            for b in self.bystanders:
                if abs(b.z) <= EPSILON + 1e-9 and _near(b, bbox, r_out + b.base.radius):
                    keep_out.append(_clearance(b, r_out))
            if keep_out:
                region = region.difference(unary_union(keep_out))
            shapely.prepare(region)
            self._static[mid] = region
        return self._static[mid]

    def engagement_zone(self, mid: str):
        """Centres at which model `mid` (at ground level) is engaged with the target."""
        if mid not in self._zone:
            r_in = inner_radius(self.starts[mid].base) - SLACK
            parts = [t.footprint.buffer(ENGAGEMENT_RANGE.horizontal + r_in, quad_segs=CIRCLE_QUAD_SEGS)
                     for t in self.target.models if abs(t.z) <= ENGAGEMENT_RANGE.vertical]
            zone = unary_union(parts) if parts else shapely.Polygon()
            shapely.prepare(zone)
            self._zone[mid] = zone
        return self._zone[mid]

    def region_among(self, mid: str, mates: list[Model]):
        """Centres for `mid` with its unit mates `mates` fixed: no overlap with them and the unit
        in coherency (a 2" link to every group the mates form, within 9" of each)."""
        region = self.static_region(mid)
        if region.is_empty or not mates:
            return region
        base = self.starts[mid].base
        r_out, r_in = outer_radius(base) + SLACK, inner_radius(base) - SLACK
        bbox = region.bounds
        keep_out = [_clearance(m, r_out) for m in mates if _near(m, bbox, r_out + m.base.radius)]
        inside = []
        groups = coherency(mates).groups
        by_id = {m.id: m for m in mates}
        for group in groups:
            inside.append(unary_union([disc(by_id[g].x, by_id[g].y,
                                            COHERENCY_RANGE.horizontal + r_in + inner_radius(by_id[g].base) - SLACK)
                                       for g in group]))
        for m in mates:
            reach = COHERENCY_SPAN.horizontal + r_in + inner_radius(m.base) - SLACK
            if _farthest(m, bbox) > reach:
                inside.append(disc(m.x, m.y, reach))
        if keep_out:
            region = region.difference(unary_union(keep_out))
        for part in sorted(inside, key=lambda g: g.area):
            if region.is_empty:
                break
            region = region.intersection(part)
        return region

    # -- the exact check of one position ---------------------------------------------------------
    def legal_for(self, mid: str, x: float, y: float, mates: list[Model]) -> tuple[Model, float] | None:
        """Model `mid` ended at (x, y, z=0) with `mates` fixed: (the placed model, path length)
        if every condition holds exactly, else None."""
        start = self.starts[mid]
        model = start.placed(x, y, 0.0)
        fp = model.footprint
        if not self.situation.table.area.buffer(EPSILON).contains(fp):
            return None
        for f in self.situation.terrain:
            if f.solid and f.footprint.intersection(fp).area > EPSILON:
                return None
        if any(overlap(model, b) for b in self.bystanders if abs(b.z - model.z) <= EPSILON and _close(model, b)):
            return None
        if any(overlap(model, m) for m in mates if abs(m.z - model.z) <= EPSILON and _close(model, m)):
            return None
        if self.engaged_with_others(model):
            return None
        if mates and not coherency([*mates, model]).ok:
            return None
        path = self.navigate(start).shortest_path((start.x, start.y), (x, y))
        if path is None:
            return None
        length = path[0] if isinstance(path, tuple) else path
        if length > self.max_distance + 1e-6:
            return None
        return model, length

    # -- the 1.6 test -----------------------------------------------------------------------------
    def lower_bound(self, mid: str) -> float:
        """No end position of `mid` is nearer the target horizontally than this (straight line)."""
        start = self.starts[mid]
        return max(0.0, start.footprint.distance(self.target_shape) - self.max_distance)

    def better_position(self, mid: str, placed: Mapping[str, Model], tolerance: float) -> Alternative | None:
        """RULES.md 1.6 for one model: a legal position (others fixed) engaged with the target while
        the model is not, or closer to it by more than `tolerance`. None if there is none."""
        current = placed[mid]
        if self.engaged_with_target(current):
            return None
        now = self.target_distance(current)
        lower = self.lower_bound(mid)
        may_engage = lower <= ENGAGEMENT_RANGE.horizontal + EPSILON
        if not may_engage and now <= lower + tolerance:
            return None
        mates = [m for k, m in placed.items() if k != mid]
        region = self.region_among(mid, mates)
        if region.is_empty:
            return None
        if may_engage:
            zone = region.intersection(self.engagement_zone(mid))
            if not zone.is_empty:
                for x, y in _candidates(zone, (current.x, current.y)):
                    found = self.legal_for(mid, x, y, mates)
                    if found and self.engaged_with_target(found[0]):
                        return Alternative(found[0], True, self.target_distance(found[0]), found[1])
        for x, y in _candidates(region, None, self.target_shape):
            found = self.legal_for(mid, x, y, mates)
            if found:
                d = self.target_distance(found[0])
                if d < now - tolerance:
                    return Alternative(found[0], self.engaged_with_target(found[0]), d, found[1])
        return None


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


def _clearance(model: Model, r: float):
    """Centres within which a base of radius r would overlap `model`."""
    if model.base.kind == "round":
        return disc(model.x, model.y, model.base.radius + r)
    return model.footprint.buffer(r, quad_segs=CIRCLE_QUAD_SEGS)


def _near(model: Model, bbox, reach: float) -> bool:
    minx, miny, maxx, maxy = bbox
    dx = max(minx - model.x, 0.0, model.x - maxx)
    dy = max(miny - model.y, 0.0, model.y - maxy)
    return math.hypot(dx, dy) <= reach


def _close(a: Model, b: Model) -> bool:
    return math.hypot(a.x - b.x, a.y - b.y) <= a.base.radius + b.base.radius + EPSILON


def _farthest(model: Model, bbox) -> float:
    minx, miny, maxx, maxy = bbox
    return max(math.hypot(cx - model.x, cy - model.y) for cx in (minx, maxx) for cy in (miny, maxy))


# -- the suggestion ---------------------------------------------------------------------------------
def suggest_placement(space: SurgeSpace) -> dict[str, Model]:
    """A placement meeting 21.02 while moving (see the module docstring): the most models engaged
    with the target that the search finds, then each other model as close as it can get.
    Returns {model id: Model}; the unit's start positions when nothing legal was found."""
    placed = _greedy(space) or _slide(space)
    if placed is None:
        return dict(space.starts)
    return improve(space, placed)


def improve(space: SurgeSpace, placed: dict[str, Model]) -> dict[str, Model]:
    """Move each model in turn to a better position (others fixed) until none improves."""
    placed = dict(placed)
    for _ in range(MAX_PASSES):
        changed = False
        for mid in sorted(placed, key=lambda k: space.target_distance(placed[k])):
            better = space.better_position(mid, placed, SOLVER_STEP)
            if better is not None:
                placed[mid] = better.model
                changed = True
        if not changed:
            break
    return placed


def _greedy(space: SurgeSpace) -> dict[str, Model] | None:
    """Closest model first, each to the best position linked to those already placed."""
    placed: dict[str, Model] = {}
    order = sorted(space.starts, key=lambda k: space.target_distance(space.starts[k]))
    for mid in order:
        start = space.starts[mid]
        mates = list(placed.values())
        region = space.region_among(mid, mates)
        if region.is_empty:
            return None
        chosen = None
        zone = region.intersection(space.engagement_zone(mid))
        if not zone.is_empty:
            # engaged, with the least travel: leaves the ground nearer the target to the others
            for x, y in _candidates(zone, (start.x, start.y)):
                found = space.legal_for(mid, x, y, mates)
                if found and space.engaged_with_target(found[0]):
                    chosen = found[0]
                    break
        if chosen is None:
            for x, y in _candidates(region, None, space.target_shape):
                found = space.legal_for(mid, x, y, mates)
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
        if all(space.static_region(mid).contains(Point(m.x, m.y)) for mid, m in moved.items()):
            mates = list(moved.values())
            if all(space.legal_for(mid, m.x, m.y, [o for o in mates if o.id != mid]) for mid, m in moved.items()):
                return moved
    return dict(space.starts)
