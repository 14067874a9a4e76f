"""Moving (03.01) over terrain (13.06), as RULES.md 1.3 and 1.5 describe it.

One reusable judge for every ground move (normal, advance, fall back, charge, surge) and for
moves made taking to the skies (21.03):

    outcome = judge_move(situation, move, verdict, max_distance, rule="09.05")

It adds the while-moving and end-of-move findings to `verdict`, fills `verdict.models`, and
returns a `MoveOutcome` (per-model `ModelMove`s, the end placements, and `poses` ready for
`Situation.moved`). The caller adds its own eligible-if / before-moving / after-moving findings
and decides the state flags. Other public helpers: `Mode` and `mode_for` (what the mover may pass
through), `ground_obstacles` and `navigator_for` (the cached pathfinder for a unit's base and
mode), `segment_blocker` (what stops a base on one straight segment).

What the engine models, and what it simplifies (say so to users):
- Each model follows its own path: the waypoints given in `move.paths`, or else the shortest
  legal ground path (rules/pathfinding.py). A straight segment is tried first.
- Through models: friends always; enemies never on the ground, except MONSTER/VEHICLE models in
  a normal or advance move through models that are neither (17.01), anyone through AIRCRAFT
  (23.02), and a Desperate Escape fall back through every enemy (09.07). Taking to the skies
  passes through every model and every terrain feature (21.03). A model has its unit's
  keywords and its own (`keywords_of`), the mover and each model it meets alike.
- Terrain (1.5): solid features block ground moves; dense features taller than 2" are climbed
  by models that are not INFANTRY, BEASTS, SWARM or MOBILE, paying the height up and down
  (see `Navigator.climb_cost`). Exposed and light features cost nothing.
- A base that is not round is swept with its end facing (it may turn freely at the start), or
  failing that its start facing; the pathfinder treats it as its enclosing circle, and, when
  that finds no path within the move, as the base held at its end or start facing
  (`_held_path`).
- Elevation changes of INFANTRY and the like on a ruin (z) count as |z_end - z_start|; a path
  that leaves the floors on the way (ruin to ruin over open ground) pays the way down and up.
- Enemy bases are in the way only on the model's level, stretch by stretch (`_trace`,
  `_stretches`); the path search avoids those on the start's and end's levels (cautious).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from .. import pathfinding
from ..budget import afford
from ..errors import InvalidInput
from ..geometry import (
    EPSILON,
    Base,
    ellipse_segment_gap,
    fmt,
    fmt_beside,
    polygon_enters_oval,
    segment_point_distance,
    swept_footprint,
    within,
)
from ..move import Move, Pose
from ..naming import named
from ..situation import CURVE_SLACK, Model, Situation, TerrainFeature, Unit, overlap
from ..systems import SYSTEMS
from ..verdict import Verdict
from .measuring import COHERENCY_RANGE, COHERENCY_SPAN, coherency, engaged_with_model

#: 13.06: dense features are climbed (not walked through) above this height.
DENSE_CLIMB_HEIGHT = 2.0
#: Keywords whose models move through dense features horizontally (13.06).
THROUGH_DENSE = frozenset({"INFANTRY", "BEASTS", "SWARM", "MOBILE"})
#: Keywords whose models may end above the table (RULES.md 1.5).
MAY_END_ABOVE = frozenset({"INFANTRY", "BEASTS", "SWARM", "FLY", "MONSTER"})
BIG = frozenset({"MONSTER", "VEHICLE"})

#: A point a model's centre passes through, (x, y) on its level.
Waypoint = tuple[float, float]
#: `plan_path`'s answer: (waypoints, horizontal, vertical, found).
PlannedPath = tuple[list[Waypoint], float, float, bool]
#: `ground_obstacles`' answer: (hard, climbs).
Obstacles = tuple[list[pathfinding.Obstacle], list[pathfinding.Obstacle]]
#: RULES.md 0: how far a placement may be from the exact one (here: a base over a floor's edge).
PLACEMENT_TOLERANCE = SYSTEMS["wh40k-11e"].placement_tolerance

# Who a mover may pass through (Mode.through).
THROUGH_NONE = "none"  # 03.01: no enemy models
THROUGH_SMALL = "small"  # 17.01: enemy models that are not MONSTER/VEHICLE
THROUGH_ALL = "all"  # 09.07 Desperate Escape, 21.03 take to the skies


@dataclass(frozen=True)
class Mode:
    """How a move travels: on the ground or in the skies, and which enemy models it may cross.

    `through_rule` names the rule granting the through permission (for findings).
    """

    skies: bool = False
    through: str = THROUGH_NONE
    through_rule: str = "03.01"

    @property
    def key(self) -> tuple[bool, str]:
        return (self.skies, self.through)


def mode_for(
    unit: Unit,
    move_type: str,
    declarations: Mapping[str, Any] | None = None,
    model: Model | None = None,
) -> Mode:
    """The movement mode of `unit` making a `move_type` move with these declarations; with a
    `model`, of that model, by its unit's keywords and its own (RULES.md 1.4, 1.7: a model of
    an INFANTRY unit that is itself a MONSTER crosses smaller models as a MONSTER does, and in a
    unit taking to the skies only the models with FLY fly)."""
    declarations = declarations or {}
    if declarations.get("take_to_the_skies"):
        if model is None or model_has(unit, model, "FLY"):
            return Mode(True, THROUGH_ALL, "21.03")
        # RULES.md 1.7: in a unit where only some models have FLY, the others move on foot
        declarations = {k: v for k, v in declarations.items() if k != "take_to_the_skies"}
    if move_type == "fall-back" and fall_back_mode(unit, declarations) == "desperate-escape":
        return Mode(False, THROUGH_ALL, "09.07")
    if move_type in ("normal", "advance") and keywords_of(unit, model) & BIG:
        return Mode(False, THROUGH_SMALL, "17.01")
    return Mode()


def fall_back_mode(unit: Unit, declarations: Mapping[str, Any]) -> str:
    """09.07: the declared fall back mode; a battle-shocked unit defaults to Desperate Escape."""
    default = "desperate-escape" if unit.flag("battle_shocked") else "ordered-retreat"
    return str(declarations.get("fall_back_mode", default))


def passable(mover_mode: Mode, enemy: Unit, model: Model | None = None) -> str | None:
    """The rule that lets a mover in `mover_mode` pass through `enemy`'s models (with a `model`,
    through that one, judged by its own keywords too: RULES.md 1.4), or None."""
    if mover_mode.through == THROUGH_ALL:
        return mover_mode.through_rule
    keywords = keywords_of(enemy, model)
    if "AIRCRAFT" in keywords:
        return "23.02"
    if mover_mode.through == THROUGH_SMALL and not (keywords & BIG):
        return "17.01"
    return None


def keywords_of(unit: Unit, model: Model | None = None) -> frozenset[str]:
    """A model's keywords: its unit's and its own (`Model.keywords`, docs/format.md; RULES.md
    1.7). Without a model, the unit's."""
    if model is None or not model.keywords:
        return unit.keywords
    return unit.keywords | model.keywords


def model_has(unit: Unit, model: Model, keyword: str) -> bool:
    """A model has its unit's keywords and its own (`Model.keywords`: units where only some
    models have FLY, RULES.md 1.7)."""
    return keyword in keywords_of(unit, model)


def climbs_dense(unit: Unit, model: Model | None = None) -> bool:
    """13.06: does this unit's model (with a `model`, that one, by its own keywords too) have
    to climb tall dense features (not walk through)?"""
    return not (keywords_of(unit, model) & THROUGH_DENSE)


def inscribed_radius(base: Base) -> float:
    """The radius of the largest circle about the centre inside the base."""
    if base.kind == "round":
        return base.radius
    if base.kind in ("oval", "rect"):
        return min(base.size) / 2
    return float(base.footprint(0, 0).exterior.distance(Point(0, 0)))


def same_level(z: float, levels: Iterable[float] | None) -> bool:
    """RULES.md 1.5: bases are in each other's way only at the same elevation. `levels` are the
    elevations the mover stands at (its start and end); None means every level (the cautious
    answer for callers that do not say)."""
    return levels is None or any(abs(z - level) <= EPSILON for level in levels)


def ground_obstacles(
    situation: Situation,
    unit: Unit,
    base: Base,
    mode: Mode | str,
    levels: Iterable[float] | None = None,
    facing: float | None = None,
    model: Model | None = None,
) -> Obstacles:
    """(hard, climbs): pathfinding obstacles for a model of `unit` with `base` moving in `mode`.

    `mode` may be a `Mode` or a move type (then the default mode for it). Hard: enemy
    models it may not pass (each judged by its unit's keywords and its own) standing at one of
    `levels` (the mover's start and end elevations; None: every enemy model), and solid
    terrain. Climbs: the sections of dense terrain over 2" (the block of an old-shape feature;
    the walls, floors and enclosed parts of a layered one, RULES.md 1.5) for a model that must
    climb them (`model`'s own keywords count; without one, the unit's). Everything is inflated
    by the base's enclosing radius; with a `facing`, by the base itself held at that facing
    (`held_at`: where its centre may go without turning).
    """
    if isinstance(mode, str):
        mode = mode_for(unit, mode, model=model)
    r = base.radius
    held = held_at(base, facing) if facing is not None else None
    hard: list[pathfinding.Obstacle] = []
    climbs: list[pathfinding.Obstacle] = []
    if mode.skies:
        return hard, climbs
    models: list[Model] = []
    for enemy in situation.enemies_of(unit):
        blocks = not passable(mode, enemy)
        models.extend(
            m
            for m in enemy.models
            # a model's own keywords (AIRCRAFT, MONSTER) can change what it lets through
            if (not passable(mode, enemy, m) if m.keywords else blocks) and same_level(m.z, levels)
        )
    if held is not None:
        grow = held.grown
        discs = iter([held.disc(m.x, m.y, m.base.radius) for m in models if m.base.kind == "round"])
    else:

        def grow(shape: Any) -> Any:
            return pathfinding.inflate(shape, r)

        # round bases (most of a crowded table) all at once
        round_bases = [m for m in models if m.base.kind == "round"]
        discs = iter(
            pathfinding.inflated_discs(
                np.array([(m.x, m.y) for m in round_bases], dtype=float),
                np.array([m.base.radius for m in round_bases], dtype=float) + r,
            ).tolist()
        )
    for m in models:
        shape = next(discs) if m.base.kind == "round" else grow(m.footprint)
        hard.append(pathfinding.Obstacle(("model", m.id, m.x, m.y, m.facing, m.base), shape))
    climber = climbs_dense(unit, model)
    for t in situation.terrain:
        key = ("terrain", t.id, t.points, t.category, t.height, t.solid)
        if t.solid:
            hard.append(pathfinding.Obstacle(key, grow(t.footprint)))
        elif climber and t.category == "dense" and not t.layered:
            if t.height > DENSE_CLIMB_HEIGHT + EPSILON:
                climbs.append(pathfinding.Obstacle(key, grow(t.footprint), t.height))
        elif climber and t.category == "dense":
            parts = (*t.walls, *t.floors, *t.enclosed)
            for part, (shape, height) in zip(parts, t.sections, strict=True):
                if height > DENSE_CLIMB_HEIGHT + EPSILON:
                    climbs.append(
                        pathfinding.Obstacle(("terrain-part", t.id, part), grow(shape), height)
                    )
    return hard, climbs


@dataclass(frozen=True)
class _Held:
    """A base held at one facing, reflected through its centre (the convex hull of its
    outline: never smaller): an obstacle grown by it (their Minkowski sum) is where the base's
    centre may not go without turning (`ground_obstacles` with a facing)."""

    reflected: Polygon

    def grown(self, shape: Any) -> Any:
        """`shape` grown by the held base: the shape and every edge of it swept by the base
        (exact for a convex base containing its centre: a point of the sum outside the shape
        is reached from its boundary, an edge, along the base)."""
        rings = [shapely.get_coordinates(r) for r in shapely.get_rings(shapely.get_parts(shape))]
        edges = np.concatenate([np.stack([c[:-1], c[1:]], axis=1) for c in rings])
        corners = shapely.get_coordinates(self.reflected.exterior)[:-1]
        swept = np.concatenate(
            [edges[:, 0, None, :] + corners[None], edges[:, 1, None, :] + corners[None]], axis=1
        )
        return shapely.union_all([shape, *shapely.convex_hull(shapely.multipoints(swept))])

    def disc(self, x: float, y: float, radius: float) -> Any:
        """A round base of `radius` at (x, y) grown by the held base."""
        return shapely.affinity.translate(
            self.reflected.buffer(radius * pathfinding.DISC_FACTOR, quad_segs=16), x, y
        )


def held_at(base: Base, facing: float) -> _Held:
    """`base` held at `facing` (its convex hull reflected through its centre), for growing
    obstacles by it (`_Held.grown`)."""
    hull = base.footprint(0.0, 0.0, facing).convex_hull
    return _Held(shapely.affinity.scale(hull, -1.0, -1.0, origin=(0.0, 0.0)))


def situation_cache(situation: Situation) -> dict[Any, Any]:
    """This module's part of the situation's memo (Situation.memo)."""
    cache: dict[Any, Any] = situation.memo.setdefault("wh40k.moving", {})
    return cache


def _cached_obstacles(
    situation: Situation,
    unit: Unit,
    base: Base,
    mode: Mode,
    levels: Iterable[float] | None = None,
    facing: float | None = None,
    model: Model | None = None,
) -> Obstacles:
    """`ground_obstacles`, built once per situation, unit, base, mode, levels, facing and
    whether the model climbs dense terrain (inflating every enemy base costs more than judging
    a whole move)."""
    cache = situation_cache(situation)
    if levels is not None:
        levels = tuple(sorted({round(z, 6) for z in levels}))
        if all(same_level(m.z, levels) for e in situation.enemies_of(unit) for m in e.models):
            levels = None  # every enemy stands at these levels: share the cache entry
    climber = climbs_dense(unit, model)
    key = ("obstacles", unit.id, base, mode.key, levels, facing, climber)
    if key not in cache:
        # the model matters only through `climber` (its mode is already in `mode`)
        cache[key] = ground_obstacles(situation, unit, base, mode, levels, facing, model)
    obstacles: Obstacles = cache[key]
    return obstacles


def terrain_bounds(
    situation: Situation,
) -> list[tuple[TerrainFeature, tuple[float, float, float, float]]]:
    """[(feature, (x0, y0, x1, y1))] for every terrain feature, computed once per situation."""
    cache = situation_cache(situation)
    if "terrain_bounds" not in cache:
        cache["terrain_bounds"] = [(t, t.footprint.bounds) for t in situation.terrain]
    bounds: list[tuple[TerrainFeature, tuple[float, float, float, float]]]
    bounds = cache["terrain_bounds"]
    return bounds


@dataclass(frozen=True, eq=False)
class EnemyBases:
    """The models of a unit's enemies, unit by unit in the situation's order, with their
    centres and base radii as arrays: a path segment's near models found in one numpy step
    (a crowded table has hundreds; `_trace` used to test each one in Python)."""

    units: tuple[Unit, ...]
    models: tuple[Model, ...]
    owner: np.ndarray  # index in `units` of each model's unit
    x: np.ndarray
    y: np.ndarray
    radius: np.ndarray

    def near(self, a: Waypoint, b: Waypoint, radius: float) -> np.ndarray:
        """Indices (in order) of the models whose base may touch a base of `radius` on the
        segment a-b: within the segment's box grown by both radii (the test `_trace` made)."""
        reach = radius + self.radius
        far = (
            (self.x < min(a[0], b[0]) - reach)
            | (self.x > max(a[0], b[0]) + reach)
            | (self.y < min(a[1], b[1]) - reach)
            | (self.y > max(a[1], b[1]) + reach)
        )
        return np.flatnonzero(~far)


def enemy_bases(situation: Situation, unit: Unit) -> EnemyBases:
    """`EnemyBases` for `unit`'s enemies, built once per situation and army."""
    cache = situation_cache(situation)
    key = ("enemy_bases", unit.army)
    if key not in cache:
        units = situation.enemies_of(unit)
        models = tuple(m for e in units for m in e.models)
        cache[key] = EnemyBases(
            units,
            models,
            np.array([k for k, e in enumerate(units) for _ in e.models], dtype=np.intp),
            np.array([m.x for m in models], dtype=float),
            np.array([m.y for m in models], dtype=float),
            np.array([m.base.radius for m in models], dtype=float),
        )
    bases: EnemyBases = cache[key]
    return bases


def navigator_for(
    situation: Situation,
    unit: Unit,
    base: Base,
    mode: Mode | str,
    levels: Iterable[float] | None = None,
    facing: float | None = None,
    model: Model | None = None,
    near: tuple[float, float, float] | None = None,
) -> pathfinding.Navigator:
    """The cached navigator for this board, base and mode (see rules/pathfinding.py); `levels`
    are the mover's elevations (only enemy models standing there block it, RULES.md 1.5; None:
    every enemy model). With a `facing` (a base that is not round), for the base held at that
    facing instead of its enclosing circle: the table's edges are then obstacles too, as far
    in as the base reaches at that facing; with `near` (x, y, reach) as well, only the obstacles
    within `reach` of (x, y), for a search that goes no farther (a reachable region within a
    move: a path that short never leaves that disc), so the graph is a few corners, not the
    whole table's. With the moving `model`, its own keywords count for the dense terrain it
    climbs (without one, the unit's)."""
    if isinstance(mode, str):
        mode = mode_for(unit, mode, model=model)
    if facing is not None and base.kind != "round":
        hard, climbs = _cached_obstacles(situation, unit, base, mode, levels, facing, model)
        w, h = situation.table.width, situation.table.height
        x0, y0, x1, y1 = base.footprint(0.0, 0.0, facing).bounds
        edges = [
            box(-1.0, -1.0, -x0, h + 1.0),
            box(w - x1, -1.0, w + 1.0, h + 1.0),
            box(-1.0, -1.0, w + 1.0, -y0),
            box(-1.0, h - y1, w + 1.0, h + 1.0),
        ]
        hard = [
            *hard,
            *(
                pathfinding.Obstacle(("table-edge", k, base, facing), e)
                for k, e in enumerate(edges)
            ),
        ]
        if near is not None:
            disc = Point(near[0], near[1]).buffer(near[2] + 0.01, quad_segs=4)
            hard = [o for o in hard if o.shape.intersects(disc)]
            climbs = [o for o in climbs if o.shape.intersects(disc)]
        return pathfinding.navigator(w, h, 0.0, hard, climbs)
    hard, climbs = _cached_obstacles(situation, unit, base, mode, levels, model=model)
    snap = pathfinding.DEFAULT_SNAP + (base.radius - inscribed_radius(base))
    return pathfinding.navigator(
        situation.table.width, situation.table.height, base.radius, hard, climbs, snap=snap
    )


def reachable_region(
    situation: Situation, model_id: str, max_distance: float, mode: Mode | str
) -> Any:
    """The centres a model can reach within `max_distance` in `mode` (a Mode or a move type),
    for the table overlay and for solvers: a shapely geometry that never includes ground the
    model cannot reach (rules/pathfinding.py). In the skies: a disc, kept on the table."""
    return reachable_regions(situation, [situation.model(model_id)], max_distance, [mode])[0]


#: CPU seconds a reachable region costs per corner of its path graph within the model's reach
#: (`reachable_regions`' estimate): 0.19 to 0.5 ms measured on the development machine (the
#: worst documents' Move 20 units, bench/cost_model.py sizes), taken at about half the cheapest,
#: so that an overlay the time left could draw is not refused for its estimate.
REGION_CORNER_SECONDS = 1e-4


def reachable_regions(
    situation: Situation,
    models: Sequence[Model],
    max_distance: float,
    modes: Sequence[Mode | str],
    estimate_first: bool = False,
) -> list[Any]:
    """`reachable_region` for each model in its mode: the models that share a navigator (a
    unit's, on the ground) worked out together (`Navigator.reachable_regions`), the same regions
    for less.

    `estimate_first` (a unit's overlay): refused at once (`OutOfTime`, rules/budget.py) when the
    estimate, `REGION_CORNER_SECONDS` per corner of the path graph within `max_distance` of each
    model on the ground, exceeds the time left: each region is drawn from every corner a path
    reaches, so a fast unit on a crowded table (60 models with a thousand corners each within
    20") costs half a minute, and drawn until it ran out it would take the request's whole
    budget with it."""
    out: list[Any] = [None] * len(models)
    waiting: dict[int, tuple[pathfinding.Navigator, list[int]]] = {}
    for i, (model, mode) in enumerate(zip(models, modes, strict=True)):
        unit = situation.unit(model.unit)
        if isinstance(mode, str):
            mode = mode_for(unit, mode, model=model)
        if mode.skies:
            r = model.base.radius
            table = box(r, r, situation.table.width - r, situation.table.height - r)
            out[i] = Point(model.x, model.y).buffer(max_distance, quad_segs=16).intersection(table)
            continue
        nav = navigator_for(situation, unit, model.base, mode, model=model)
        waiting.setdefault(id(nav), (nav, []))[1].append(i)
    if estimate_first:
        corners = 0
        for nav, indices in waiting.values():
            for i in indices:
                gap = np.hypot(*(nav.nodes - (models[i].x, models[i].y)).T)
                corners += int(np.count_nonzero(gap < max_distance))
        afford(
            REGION_CORNER_SECONDS * corners,
            f"drawing where {len(models)} models can reach "
            f'({corners:,} corners within {fmt(max_distance)}")',
        )
    for nav, indices in waiting.values():
        regions = nav.reachable_regions(
            [(models[i].x, models[i].y) for i in indices], [max_distance] * len(indices)
        )
        for i, region in zip(indices, regions, strict=True):
            out[i] = region
    return out


#: `climbing_reach` searches the ground past each climbable section in reach on its own up to
#: this many sections (one navigator each, of the few obstacles near the model), and groups
#: them by height beyond (a ruin's many wall pieces).
CLIMB_SECTIONS_APART = 8


def climbing_reach(
    situation: Situation,
    unit: Unit,
    start: Model,
    budget: float,
    mode: Mode,
    one_section: bool = False,
) -> Any | None:
    """RULES.md 1.5 (last bullet), for the "if it can" / "if possible" searches: the ground
    centres `start`'s model reaches within `budget` by climbing over a dense section taller than
    2", the ground `reachable_region` leaves out (it treats those sections as walls). None when
    no section could be crossed within the budget (nearer than the budget less its climb up and
    down), so a board with nothing to climb in reach pays nothing.

    For each height h of those sections: the reach, as the crow is let through the sections up
    to h tall, within the budget less 2h (up and down, as `Navigator.climb_cost` charges a
    crossing from ground to ground). Exact for a path over one section; a path over two, or over
    one twice, pays more than that, so a spot taken from here is a candidate only: the caller
    measures its exact path (`plan_path`, the climb counted) before using it. The ground past
    two low walls is offered as if one were crossed, so the spots nearest a target can all fail
    while the ground between the walls holds one that does not: with `one_section`, each section
    is let through on its own instead, every other still a wall (up to `CLIMB_SECTIONS_APART`
    of them; beyond, grouped by height as above), which reaches the ground between two walls
    and not past both. The base is its enclosing circle (a base that is not round reaches at
    least that far)."""
    if mode.skies or not climbs_dense(unit, start) or budget <= 0:
        return None
    hard, climbs = _cached_obstacles(situation, unit, start.base, mode, model=start)
    origin = Point(start.x, start.y)
    crossable = [
        c for c in climbs if c.shape.distance(origin) + 2 * (c.height or 0.0) < budget - EPSILON
    ]
    if not crossable:
        return None
    # a path within the budget never leaves this disc: obstacles beyond it change nothing, and
    # a navigator of the few near ones is cheap to build
    near = origin.buffer(budget + 0.01, quad_segs=4)
    hard = [o for o in hard if o.shape.intersects(near)]
    climbs = [c for c in climbs if c.shape.intersects(near)]
    snap = pathfinding.DEFAULT_SNAP + (start.base.radius - inscribed_radius(start.base))
    w, h = situation.table.width, situation.table.height
    regions = []
    if one_section and len(crossable) <= CLIMB_SECTIONS_APART:
        for section in crossable:
            kept = [c for c in climbs if c is not section]
            nav = pathfinding.navigator(w, h, start.base.radius, hard, kept, snap=snap)
            height = float(section.height or 0.0)
            regions.append(nav.reachable_region((start.x, start.y), budget - 2 * height))
        return unary_union(regions)
    for height in sorted({float(c.height or 0.0) for c in crossable}):
        kept = [c for c in climbs if (c.height or 0.0) > height]
        nav = pathfinding.navigator(w, h, start.base.radius, hard, kept, snap=snap)
        regions.append(nav.reachable_region((start.x, start.y), budget - 2 * height))
    return unary_union(regions)


class MoveVerdict(Verdict):
    """A Verdict whose `after` situation can be given as a function and is built on first use:
    re-reading the whole scenario after a move costs more than judging the move.

        verdict.after_move(lambda: situation.moved(poses, state))
    """

    def after_move(self, build: Callable[[], Situation]) -> None:
        self.__dict__["_after"] = None
        self.__dict__["_build_after"] = build

    @property
    def after(self) -> Situation | None:
        build = self.__dict__.get("_build_after")
        if build is not None:
            self.__dict__["_after"] = build()
            self.__dict__["_build_after"] = None
        return self.__dict__.get("_after")

    @after.setter
    def after(self, value: Situation | None) -> None:
        self.__dict__["_after"] = value
        self.__dict__["_build_after"] = None


# -- exact checks along a segment ------------------------------------------------------------
def _segment_geometry(a: Waypoint, b: Waypoint) -> Point | LineString:
    return Point(a) if a[0] == b[0] and a[1] == b[1] else LineString([a, b])


def segment_blocker(
    base: Base,
    a: Waypoint,
    b: Waypoint,
    facing: float,
    other: Model | None = None,
    footprint: Any = None,
) -> bool:
    """Does a base sliding from a to b overlap `other` model (or a terrain `footprint`)?

    Touching is allowed (RULES.md 0). Round against round is analytic; round, oval and hull
    against each other are measured on the true circles and ellipses; an oval against an oval
    or terrain allows the circumscribed polygons' slack.
    """
    if other is not None and base.kind == "round" and other.base.kind == "round":
        d = segment_point_distance(a, b, (other.x, other.y))
        return d < base.radius + other.base.radius - EPSILON
    if other is not None and {base.kind, other.base.kind} == {"round", "oval"}:
        # RULES.md 0, 1.3: measured on the true ellipse (touching allowed, 1e-6 deeper not). A
        # round base's centre slides along a-b; an oval sliding past a round base is the round
        # base's centre sliding the other way past the oval held where it starts.
        if base.kind == "round":
            gap = ellipse_segment_gap(other.base, other.pos, a, b)
        else:
            c = (other.x, other.y)
            gap = ellipse_segment_gap(
                base, (*a, facing), c, (c[0] - b[0] + a[0], c[1] - b[1] + a[1])
            )
        return gap < (base if base.kind == "round" else other.base).radius - EPSILON
    if other is not None and other.base.kind == "round" and base.kind in ("hull", "rect"):
        # a hull's sweep is exact (a polygon): measured to the round base's true circle
        sweep = swept_footprint(base, a, b, facing)
        return bool(sweep.distance(Point(other.x, other.y)) < other.base.radius - EPSILON)
    if other is not None and {base.kind, other.base.kind} in ({"hull", "oval"}, {"rect", "oval"}):
        # the hull's sweep is a polygon, measured to the oval's true ellipse; an oval sliding
        # past a hull is the hull sliding the other way past the oval held where it starts
        if base.kind == "oval":
            ox, oy = other.x, other.y
            back = (ox - b[0] + a[0], oy - b[1] + a[1])
            sweep = swept_footprint(other.base, (ox, oy), back, other.facing)
            return polygon_enters_oval(base, (*a, facing), sweep.exterior.coords)
        sweep = swept_footprint(base, a, b, facing)
        return polygon_enters_oval(other.base, other.pos, sweep.exterior.coords)
    shape = other.footprint if other is not None else footprint
    curved = other is not None and other.base.kind in ("round", "oval")
    if base.kind == "round":
        return bool(
            _segment_geometry(a, b).distance(shape)
            < base.radius - EPSILON - (CURVE_SLACK if curved else 0)
        )
    sweep = swept_footprint(base, a, b, facing)
    if curved or base.kind == "oval":
        return bool(
            sweep.buffer(-CURVE_SLACK).intersects(shape.buffer(-CURVE_SLACK if curved else 0))
        )
    return bool(sweep.intersection(shape).area > EPSILON)


def on_table(situation: Situation, base: Base, point: Waypoint, facing: float) -> bool:
    """03.01: the whole base lies on the table."""
    w, h = situation.table.width, situation.table.height
    if base.kind == "round":
        r = base.radius - EPSILON
        return r <= point[0] <= w - r and r <= point[1] <= h - r
    if base.kind == "oval":
        # the true ellipse's reach along x and y at this facing (RULES.md 0: touching the edge
        # is on the table; the polygon drawn round it reaches up to 0.12 % further)
        a, b = base.size[0] / 2, base.size[1] / 2
        turn = math.radians(facing)
        rx = math.hypot(a * math.cos(turn), b * math.sin(turn)) - EPSILON
        ry = math.hypot(a * math.sin(turn), b * math.cos(turn)) - EPSILON
        return rx <= point[0] <= w - rx and ry <= point[1] <= h - ry
    x0, y0, x1, y1 = base.footprint(point[0], point[1], facing).bounds
    return bool(x0 >= -EPSILON and y0 >= -EPSILON and x1 <= w + EPSILON and y1 <= h + EPSILON)


# -- results ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelMove:
    """One model's move: where it started and ended, its path, and the distance it used."""

    model: str
    start: Model
    end: Model
    path: tuple[tuple[float, float], ...]
    horizontal: float
    vertical: float
    found_path: bool = True  # False when no legal path exists (the straight line is reported)
    passed_through: tuple[tuple[str, str], ...] = ()  # (enemy model id, rule allowing it)
    #: Ids of the dense features with a section over 2" the path climbs (RULES.md 1.5: their
    #: upper floors are barred), found only for a model ending above the table.
    climbed: tuple[str, ...] = ()

    @property
    def distance(self) -> float:
        return self.horizontal + self.vertical

    @property
    def moved(self) -> bool:
        """RULES.md 1.3: a model that only turns on the spot has moved for the end-of-move
        checks (a turned oval or hull may not end on a model or across the table edge)."""
        if self.distance > EPSILON:
            return True
        start, end = self.start, self.end
        if (start.x, start.y, start.z) != (end.x, end.y, end.z):
            return True
        return start.base.kind != "round" and (end.facing - start.facing) % 360 > EPSILON


@dataclass
class MoveOutcome:
    """What `judge_move` found: per-model moves, end placements and the poses for `moved`."""

    models: dict[str, ModelMove] = field(default_factory=dict)
    placements: dict[str, Model] = field(default_factory=dict)
    legal: bool = True

    @property
    def poses(self) -> dict[str, dict[str, float]]:
        return {
            mid: {"x": m.x, "y": m.y, "z": m.z, "facing": m.facing}
            for mid, m in self.placements.items()
        }

    def end_models(self, unit: Unit) -> tuple[Model, ...]:
        return tuple(self.placements.get(m.id, m) for m in unit.models)


def article(move_type: str) -> str:
    """'a normal move', 'an advance move'."""
    return ("an " if move_type[0] in "aeiou" else "a ") + move_type


def unit_mark(situation: Situation) -> str:
    """How distances are written in findings: 6" (40K inches), 20 cm (Warmaster)."""
    return '"' if situation.unit_name == "in" else " " + situation.unit_name


def feature_height_under(situation: Situation, x: float, y: float) -> float:
    """The highest surface a model could stand on above the point (0 on open ground): the top of
    an old-shape feature, the highest floor (or enclosed part, or wall) of a layered one."""
    p = Point(x, y)
    return max(
        (h for t in situation.terrain for shape, h in t.standing_levels if shape.covers(p)),
        default=0.0,
    )


def end_placement(situation: Situation, start: Model, pose: Pose | None) -> Model:
    """The model at its proposed end pose. Without a z, it keeps its elevation while it is still
    over a feature that tall, and is on the ground otherwise; without a facing, it keeps its own."""
    if pose is None:
        return start
    if pose.z is not None:
        z = pose.z
    elif start.z > 0 and feature_height_under(situation, pose.x, pose.y) + EPSILON >= start.z:
        z = start.z
    else:
        z = 0.0
    return start.placed(pose.x, pose.y, z, start.facing if pose.facing is None else pose.facing)


def _check_ids(unit: Unit, move: Move) -> None:
    ids = {m.id for m in unit.models}
    for mid, pose in (move.end or {}).items():
        if mid not in ids:
            raise InvalidInput(f"end.{mid}", f"{mid!r} is not a model of unit {named(unit)}")
        if pose is not None and pose.z is not None and pose.z < 0:
            # 1.1: elevation is measured up from the table; nothing stands below it.
            raise InvalidInput(f"end.{mid}.z", "an elevation must be 0 (on the table) or more")
    for mid in move.paths:
        if mid not in ids:
            raise InvalidInput(f"paths.{mid}", f"{mid!r} is not a model of unit {named(unit)}")


def _stretches(
    situation: Situation, a: Waypoint, b: Waypoint, za: float, zb: float
) -> list[tuple[Waypoint, Waypoint, tuple[float, ...]]]:
    """RULES.md 1.5: the stretches of the segment a-b from level `za` to level `zb`, each with
    the level the model moves on there: one stretch on one level; between two levels, the model
    climbs at the higher level's edge, so it is on the higher level where its centre is over a
    surface that high and on the lower one elsewhere (a point where it climbs ends a stretch of
    each)."""
    if abs(za - zb) <= EPSILON:
        return [(a, b, (za,))]
    low, high = min(za, zb), max(za, zb)
    cache = situation_cache(situation)
    key = ("surfaces_from", round(high, 6))
    if key not in cache:
        cache[key] = unary_union(
            [
                shape
                for t in situation.terrain
                for shape, h in t.standing_levels
                if h >= high - EPSILON
            ]
        )
    surfaces = cache[key]
    segment = _segment_geometry(a, b)
    if surfaces.is_empty or isinstance(segment, Point):
        return [(a, b, (low, high))]
    out: list[tuple[Waypoint, Waypoint, tuple[float, ...]]] = []
    for part, level in (
        (segment.intersection(surfaces), high),
        (segment.difference(surfaces), low),
    ):
        for piece in getattr(part, "geoms", [part]):
            if isinstance(piece, LineString) and not piece.is_empty:
                coords = piece.coords
                out.append((coords[0][:2], coords[-1][:2], (level,)))
    return out or [(a, b, (low, high))]


def _trace(
    situation: Situation,
    unit: Unit,
    start: Model,
    end: Model,
    waypoints: Sequence[Waypoint],
    mode: Mode,
    given: Sequence[Sequence[float]] | None = None,
    turned: float | None = None,
) -> tuple[tuple[str, str] | None, tuple[tuple[str, str], ...], bool]:
    """Check a path segment by segment: (first blocking thing or None, passed-through list,
    table edge ok).

    A base that is not round may turn freely on the way (RULES.md 1.3): each segment is clear
    when the base passes it at its end facing, its start facing, `turned` (the facing a path was
    searched at, `_held_path`), or pointed along the segment or across it (`_along`).

    Enemy bases are in the way only on the model's level (RULES.md 1.5), stretch by stretch
    (`_stretches`): each point's level is the start's and end's elevation and the z the player
    gave a waypoint (`given`, when it is above 0). A point of unknown level (a waypoint given at
    0 or without z, which stands on whatever is under it, or a corner of a path the engine
    found) is taken to be on the start's and end's levels both, as cautious as before."""
    blocked = None
    if len(waypoints) == 2:
        heights: list[float | None] = [start.z, end.z]
    else:
        inner: list[float | None] = [None] * (len(waypoints) - 2)
        if given is not None and len(given) == len(inner):
            inner = [p[2] if len(p) > 2 and p[2] > EPSILON else None for p in given]
        heights = [start.z, *inner, end.z]
    either = (start.z, end.z)
    through: dict[str, str] = {}
    # The base is on the table at its start facing where it starts and at its end facing where
    # it ends; on the way it may turn freely, so either facing will do at a waypoint.
    turns = (end.facing, start.facing) if turned is None else (end.facing, start.facing, turned)
    edge_ok = (
        on_table(situation, start.base, waypoints[0], start.facing)
        and on_table(situation, start.base, waypoints[-1], end.facing)
        and all(
            any(on_table(situation, start.base, p, facing) for facing in dict.fromkeys(turns))
            for p in waypoints[1:-1]
        )
    )
    bases = enemy_bases(situation, unit)
    rules = [passable(mode, e) for e in bases.units]
    solids = (
        [] if mode.skies else [(t, bounds) for t, bounds in terrain_bounds(situation) if t.solid]
    )
    for (a, za), (b, zb) in pairwise(zip(waypoints, heights, strict=True)):
        if za is None or zb is None:
            known = tuple(z for z in (za, zb) if z is not None)
            stretches = [(a, b, either + known)]
        else:
            stretches = _stretches(situation, a, b, za, zb)
        facings = (*turns, *_along(a, b)) if start.base.kind != "round" else turns[:1]
        for facing in dict.fromkeys(facings):
            hit = None
            reach = start.base.radius
            for t, (x0, y0, x1, y1) in solids:
                if (
                    min(a[0], b[0]) - reach > x1
                    or max(a[0], b[0]) + reach < x0
                    or min(a[1], b[1]) - reach > y1
                    or max(a[1], b[1]) + reach < y0
                ):
                    continue
                if segment_blocker(start.base, a, b, facing, footprint=t.footprint):
                    hit = ("terrain", t.id)
                    break
            # the enemy models near each stretch, unit by unit in order
            for p, q, levels in stretches if hit is None else ():
                for k in bases.near(p, q, start.base.radius).tolist():
                    m = bases.models[k]
                    rule = rules[bases.owner[k]]
                    if m.keywords:  # its own keywords (AIRCRAFT, MONSTER) count too (1.4)
                        rule = passable(mode, bases.units[bases.owner[k]], m)
                    if rule is not None and mode.skies:
                        continue  # flying over: nothing to record
                    if not same_level(m.z, levels):
                        continue  # 1.5: bases on other levels are not in the way
                    if segment_blocker(start.base, p, q, facing, other=m):
                        if rule is None:
                            hit = ("model", m.id)
                            break
                        through[m.id] = rule
                if hit is not None:
                    break
            if hit is None or start.base.kind == "round":
                break
        if hit is not None:
            blocked = hit
            break
    return blocked, tuple(through.items()), edge_ok


def lowest_support(situation: Situation, pts: Sequence[Waypoint]) -> float:
    """The lowest level a model's centre passes over along the path: the height of the tallest
    feature under each point, least over the path (0 where it crosses open ground). It is the
    tallest height h such that features at least h tall cover the whole path."""
    path = _segment_geometry(pts[0], pts[-1]) if len(pts) == 2 else LineString(pts)
    levels = [lv for t in situation.terrain for lv in t.standing_levels]
    for h in sorted({h for _, h in levels}, reverse=True):
        floors = unary_union([shape for shape, height in levels if height >= h])
        if floors.covers(path):
            return h
    return 0.0


def level_change(
    situation: Situation, pts: Sequence[Waypoint], z_start: float, z_end: float
) -> float:
    """1.5 vertical distance between elevations: |z_end - z_start| while the path stays over
    floors that high; a path that leaves them (from one ruin to another across open ground, say)
    goes down to the lowest level it passes over and back up, and pays both."""
    if min(z_start, z_end) <= EPSILON or len(pts) < 2:
        return abs(z_end - z_start)
    low = lowest_support(situation, pts)
    if low + EPSILON >= min(z_start, z_end):
        return abs(z_end - z_start)
    return (z_start - low) + (z_end - low)


def plan_path(
    situation: Situation,
    unit: Unit,
    start: Model,
    end: Model,
    mode: Mode,
    given: Sequence[Sequence[float]] | None = None,
    limit: float | None = None,
) -> PlannedPath:
    """The waypoints a model follows and their cost: (waypoints, horizontal, vertical, found).

    Given waypoints are used as they are; otherwise the straight line when it is clear and
    climbs nothing, else the shortest legal path. `found` is False when no legal path exists
    (the straight line is returned so the caller can report it). `limit`, the move's maximum:
    a base that is not round whose enclosing circle finds no path within it is searched again
    held at its facing (`_held_path`).
    """
    a, b = (start.x, start.y), (end.x, end.y)
    if mode.skies:  # 21.03: straight over everything, vertical distance ignored
        pts = [a, *[(p[0], p[1]) for p in (given or ())], b]
        return pts, sum(math.dist(p, q) for p, q in pairwise(pts)), 0.0, True
    pts, horizontal, vertical, found = _ground_path(situation, unit, start, end, mode, given, limit)
    # A model never floats between floors: leaving them, it climbs down and up again (1.5).
    vertical = max(vertical, level_change(situation, pts, start.z, end.z))
    if given:
        # Elevations the player gave on the waypoints are climbed too (a waypoint at 0, or
        # without z, stands on whatever is under it: leaving a floor is `level_change`'s job).
        levels = [start.z, *[p[2] for p in given if len(p) > 2 and p[2] > EPSILON], end.z]
        vertical = max(vertical, sum(abs(q - p) for p, q in pairwise(levels)))
    return pts, horizontal, vertical, found


def climbed_features(
    situation: Situation,
    unit: Unit,
    start: Model,
    end: Model,
    pts: Sequence[Waypoint],
    mode: Mode,
) -> tuple[str, ...]:
    """RULES.md 1.5: the ids of the dense features whose sections over 2" a ground path climbs
    (the climb sections `plan_path` paid for), for a model that climbs them; none in the
    skies (21.03: a flyer does not climb)."""
    if mode.skies or not climbs_dense(unit, start) or not _tall_dense(situation):
        return ()
    nav = navigator_for(situation, unit, start.base, mode, (start.z, end.z), model=start)
    # an obstacle's key is ("terrain" | "terrain-part", feature id, ...)
    return tuple(dict.fromkeys(str(c.key[1]) for c in nav.climbed(pts)))  # type: ignore[index]


def _tall_dense(situation: Situation) -> bool:
    """Is there a dense feature over 2" tall (not solid) on the table, something to climb?"""
    return any(
        t.category == "dense" and not t.solid and t.height > DENSE_CLIMB_HEIGHT + EPSILON
        for t in situation.terrain
    )


def _ground_path(
    situation: Situation,
    unit: Unit,
    start: Model,
    end: Model,
    mode: Mode,
    given: Sequence[Sequence[float]] | None,
    limit: float | None = None,
) -> PlannedPath:
    """`plan_path` on the ground, before the floors-to-floor check."""
    a, b = (start.x, start.y), (end.x, end.y)
    need_climb = climbs_dense(unit, start) and _tall_dense(situation)
    if given:
        pts = [a, *[(p[0], p[1]) for p in given], b]
        horizontal = sum(math.dist(p, q) for p, q in pairwise(pts))
        vertical = (
            _given_climb(situation, unit, start, end, mode, pts)
            if need_climb
            else abs(end.z - start.z)
        )
        return pts, horizontal, vertical, True
    straight = [a, b]
    blocked, _, _ = _trace(situation, unit, start, end, straight, mode)
    if blocked is None:
        if not need_climb:
            return straight, math.dist(a, b), abs(end.z - start.z), True
        nav = navigator_for(situation, unit, start.base, mode, (start.z, end.z), model=start)
        vertical = nav.climb_cost(straight, start.z, end.z)
        if vertical <= abs(end.z - start.z) + EPSILON:
            return straight, math.dist(a, b), vertical, True
    nav = navigator_for(situation, unit, start.base, mode, (start.z, end.z), model=start)
    found = nav.shortest_path(a, b, start.z, end.z)
    best = _planned(found) if found is not None else None
    if start.base.kind != "round" and limit is not None:
        if best is None or best[1] + best[2] > limit + EPSILON:
            best = _held_path(situation, unit, start, end, mode, best)
    if best is None:
        return straight, math.dist(a, b), abs(end.z - start.z), False
    return best


def _held_path(
    situation: Situation,
    unit: Unit,
    start: Model,
    end: Model,
    mode: Mode,
    best: PlannedPath | None,
) -> PlannedPath | None:
    """RULES.md 1.3 for a base that is not round, whose enclosing circle (the navigator's view)
    found no path within the move, or none: the circle may not fit where the base does (a Rhino
    3.6" wide down a 4" alley, its circle 6.2" across). The shortest path of the base held at
    its end facing, then at its start facing (as every path is swept, `_trace`), if clear and
    on the table and shorter than `best`."""
    for facing in dict.fromkeys((end.facing, start.facing, *_along(start, end))):
        nav = navigator_for(
            situation, unit, start.base, mode, (start.z, end.z), facing, model=start
        )
        found = nav.shortest_path((start.x, start.y), (end.x, end.y), start.z, end.z)
        if found is None or (best is not None and found[0] >= best[1] + best[2] - EPSILON):
            continue
        blocked, _, edge_ok = _trace(situation, unit, start, end, found[1], mode, turned=facing)
        if blocked is None and edge_ok:
            best = _planned(found)
    return best


def _given_climb(
    situation: Situation, unit: Unit, start: Model, end: Model, mode: Mode, pts: list[Waypoint]
) -> float:
    """RULES.md 1.5: the climbing a path the player gave costs. A round base (or any base whose
    enclosing circle climbs nothing more than the change of level) as the circle climbs; a base
    that is not round may turn on the way (1.3), so held at its end or start facing or pointed
    along or across one of the path's segments, whichever climbs least (a hull turned to drive
    through a gap in a wall climbs nothing)."""
    z = (start.z, end.z)
    cost = navigator_for(situation, unit, start.base, mode, z, model=start).climb_cost(pts, *z)
    if start.base.kind == "round" or cost <= abs(end.z - start.z) + EPSILON:
        return cost
    turns = [end.facing, start.facing, *(f for p, q in pairwise(pts) for f in _along(p, q))]
    for facing in dict.fromkeys(turns):
        nav = navigator_for(situation, unit, start.base, mode, z, facing, model=start)
        cost = min(cost, nav.climb_cost(pts, *z))
    return cost


def _along(a: Sequence[float] | Model, b: Sequence[float] | Model) -> tuple[float, ...]:
    """The facings that point a base along the way from a to b and across it (RULES.md 1.3:
    rotations are free, so a hull may turn to drive lengthwise or sideways through a gap its
    start and end facings do not fit, and turn back after it); none for a hop of no length."""
    (ax, ay), (bx, by) = (_xy(a), _xy(b))
    if ax == bx and ay == by:
        return ()
    along = math.degrees(math.atan2(by - ay, bx - ax)) % 360
    return (along, (along + 90) % 360)


def _xy(p: Sequence[float] | Model) -> tuple[float, float]:
    return (p.x, p.y) if isinstance(p, Model) else (p[0], p[1])


def _planned(found: tuple[float, list[Waypoint]]) -> PlannedPath:
    """A navigator's (length with climbing, waypoints) as a found `PlannedPath`."""
    length, pts = found
    horizontal = sum(math.dist(p, q) for p, q in pairwise(pts))
    return pts, horizontal, length - horizontal, True


def judge_move(
    situation: Situation,
    move: Move,
    verdict: Verdict,
    max_distance: float,
    *,
    rule: str,
    mode: Mode | None = None,
    ends: Mapping[str, Pose] | None = None,
) -> MoveOutcome:
    """Judge the models' paths and end positions of `move` (03.01, 13.06, 21.03 while moving).

    - `max_distance`: the move's maximum distance (after any take-to-the-skies reduction).
    - `rule`: the move type's section, cited on each model's distance finding ("09.05"...).
    - `mode`: defaults to `mode_for(unit, move.type, move.declarations)`.
    - `ends`: end poses to judge instead of `move.end` (a solver's candidate, say).

    Adds to `verdict`: per model its distance (while-moving, measured/limit), its path (through
    enemies, solid terrain, table edge), then end-of-move: no overlap, not inside solid
    terrain, elevation, coherency. Fills `verdict.models`. Returns the `MoveOutcome`.
    """
    unit = situation.unit(move.unit)
    _check_ids(unit, move)
    mode = mode or mode_for(unit, move.type, move.declarations)
    ends = move.end if ends is None else ends
    ends = ends or {}
    outcome = MoveOutcome()
    u = unit_mark(situation)
    ok = True
    # 21.03 (RULES.md 1.7): in a unit where only some models have FLY, the others move on the
    # ground as the move type lets them (the 2" reduction still applies to the whole move).
    on_foot_declarations = {k: v for k, v in move.declarations.items() if k != "take_to_the_skies"}
    on_foot = mode_for(unit, move.type, on_foot_declarations) if mode.skies else mode
    mixed_fly = (
        mode.skies and not unit.has("FLY") and any(model_has(unit, m, "FLY") for m in unit.models)
    )
    for start in unit.models:
        end = end_placement(situation, start, ends.get(start.id))
        given = move.paths.get(start.id)
        model_mode = (
            on_foot if mode.skies and mixed_fly and not model_has(unit, start, "FLY") else mode
        )
        if start.keywords and model_mode.through == THROUGH_NONE:
            # 17.01 (RULES.md 1.4, 1.7): a model that is a MONSTER or VEHICLE by its own
            # keyword crosses smaller models although its unit mates may not.
            model_mode = mode_for(unit, move.type, on_foot_declarations, start)
        pts, horizontal, vertical, found = plan_path(
            situation, unit, start, end, model_mode, tuple(given) if given else None, max_distance
        )
        blocked, through, edge_ok = _trace(
            situation, unit, start, end, pts, model_mode, tuple(given) if given else None
        )
        mm = ModelMove(
            start.id,
            start,
            end,
            tuple(pts),
            horizontal,
            vertical,
            found and blocked is None,
            through,
            climbed_features(situation, unit, start, end, pts, model_mode)
            if end.z > EPSILON and vertical > EPSILON
            else (),
        )
        outcome.models[start.id] = mm
        outcome.placements[start.id] = end
        if not mm.moved:
            continue
        dist = mm.distance
        climb = f" (including {fmt(vertical)}{u} climbing)" if vertical > EPSILON else ""
        ok &= verdict.check(
            rule=rule,
            stage="while-moving",
            passed=within(dist, max_distance),
            subject=start.id,
            pass_text=f"{named(start)} moves {fmt(dist)}{u}{climb} of the {fmt(max_distance)}{u} "
            "allowed.",
            fail_text=f"{named(start)} would need {fmt_beside(dist, max_distance)}{u}{climb}, "
            "more than the "
            f"{fmt(max_distance)}{u} this move allows.",
            measured=dist,
            limit=max_distance,
        )
        if not found:
            ok &= verdict.check(
                rule="03.01",
                stage="while-moving",
                passed=False,
                subject=start.id,
                text=(
                    f"{named(start)} has no legal path to that spot: enemy models or solid "
                    "terrain block every way there."
                ),
            )
        elif blocked is not None:
            what = (
                "enemy model " + blocked[1]
                if blocked[0] == "model"
                else "solid terrain " + blocked[1]
            )
            ok &= verdict.check(
                rule="03.01",
                stage="while-moving",
                passed=False,
                subject=start.id,
                text=(
                    f"{named(start)}'s path crosses {what}; a model cannot move through "
                    f"{'enemy models' if blocked[0] == 'model' else 'solid terrain'}."
                ),
            )
        for enemy_model, why in through:
            verdict.check(
                rule=why,
                stage="while-moving",
                passed=True,
                subject=start.id,
                text=_THROUGH_TEXT[why].format(model=named(start), enemy=named(enemy_model)),
            )
        if not edge_ok:
            ok &= verdict.check(
                rule="03.01",
                stage="while-moving",
                passed=False,
                subject=start.id,
                text=(
                    f"{named(start)}'s base would leave the table; no part of a model may "
                    "cross the table edge."
                ),
            )
        floating = [] if model_mode.skies or not given else _in_mid_air(situation, given)
        if floating:
            x, y, z = floating[0]
            ok &= verdict.check(
                rule="13.06",
                stage="while-moving",
                passed=False,
                subject=start.id,
                text=(
                    f"{named(start)}'s path has it {fmt(z)}{u} up at ({fmt(x)}, {fmt(y)}) with "
                    f"nothing within {fmt(CLIMB_REACH)}{u} to climb or stand on; a model leaves "
                    "the ground only by climbing terrain."
                ),
            )
    ok &= _end_of_move(situation, unit, outcome, verdict)
    for mid, mm in outcome.models.items():
        end = mm.end
        verdict.models[mid] = {
            "distance_moved": round(mm.distance, 4),
            "end": {"x": end.x, "y": end.y, "z": end.z, "facing": end.facing},
            "engaged_with": list(engaged_with_model(situation, unit, end)),
        }
    outcome.legal = ok
    return outcome


_THROUGH_TEXT = {
    "17.01": "{model} passes through {enemy}: a MONSTER or VEHICLE making a normal or advance move "
    "may cross models that are neither.",
    "23.02": "{model} passes through {enemy}: any model may cross AIRCRAFT models.",
    "09.07": "{model} passes through {enemy}: in a Desperate Escape models may cross enemy models "
    "(and owe a hazard roll).",
    "21.03": "{model} flies over {enemy}: taking to the skies crosses every model.",
}


#: RULES.md 1.5: a climbing model stays within this of the feature it climbs (inches).
CLIMB_REACH = 0.5


def _in_mid_air(
    situation: Situation, given: Sequence[Sequence[float]]
) -> list[tuple[float, float, float]]:
    """RULES.md 1.3, 1.5: the waypoints a player gave above the table (z > 0) with no feature at
    least that tall within `CLIMB_REACH` of them: a model there would be neither climbing a
    feature nor standing on one."""
    return [
        (p[0], p[1], p[2])
        for p in given
        if len(p) > 2
        and p[2] > EPSILON
        and not any(
            t.height >= p[2] - EPSILON
            and t.footprint.distance(Point(p[0], p[1])) <= CLIMB_REACH + EPSILON
            for t in situation.terrain
        )
    ]


def _base_overlaps_area(
    model: Model, feature: TerrainFeature, bounds: tuple[float, float, float, float]
) -> bool:
    """Does the model's base overlap a terrain footprint by more than touching?"""
    return _base_overlaps_shape(model, feature.footprint, bounds)


def _base_overlaps_shape(
    model: Model, shape: BaseGeometry, bounds: tuple[float, float, float, float]
) -> bool:
    """Does the model's base overlap `shape` (with its `bounds`) by more than touching?"""
    x0, y0, x1, y1 = bounds
    r = model.base.radius
    if model.x + r < x0 or model.x - r > x1 or model.y + r < y0 or model.y - r > y1:
        return False
    if model.base.kind == "round":
        return bool(shape.distance(Point(model.x, model.y)) < r - EPSILON)
    fp = model.footprint.buffer(-CURVE_SLACK) if model.base.kind == "oval" else model.footprint
    return bool(fp.intersection(shape).area > EPSILON)


def _end_of_move(situation: Situation, unit: Unit, outcome: MoveOutcome, verdict: Verdict) -> bool:
    """1.3 end of move: no overlap, not inside solid terrain, elevation (1.5), coherency."""
    moved = [mm for mm in outcome.models.values() if mm.moved]
    u = unit_mark(situation)
    ok = True
    if moved:
        others = [m for other in situation.units if other.id != unit.id for m in other.models]
        mine = list(outcome.end_models(unit))
        clashes = []
        for mm in moved:
            a = mm.end
            for b in others + [m for m in mine if m.id != a.id]:
                if (
                    abs(a.z - b.z) > EPSILON
                    or abs(a.x - b.x) > a.base.radius + b.base.radius + 0.1
                    or abs(a.y - b.y) > a.base.radius + b.base.radius + 0.1
                ):
                    continue
                if overlap(a, b) and (a.id, b.id)[::-1] not in clashes:
                    clashes.append((a.id, b.id))
        ok &= verdict.check(
            rule="03.01",
            stage="end-of-move",
            passed=not clashes,
            subject=unit.id,
            pass_text="No model ends on top of another model.",
            fail_text="Models would end overlapping: "
            + ", ".join(f"{named(a)} on {named(b)}" for a, b in clashes)
            + ".",
        )
        inside = []
        for mm in moved:
            a = mm.end
            for t, bounds in terrain_bounds(situation):
                if t.solid and a.z < t.height - EPSILON and _base_overlaps_area(a, t, bounds):
                    inside.append((a.id, t.id))
        ok &= verdict.check(
            rule="13.06",
            stage="end-of-move",
            passed=not inside,
            subject=unit.id,
            pass_text="No model ends inside solid terrain.",
            fail_text="A model cannot end inside solid terrain: "
            + ", ".join(f"{named(m)} in {t}" for m, t in inside)
            + ".",
        )
        ok &= _end_in_enclosed(situation, unit, moved, verdict)
        astride = [(mm.end.id, t) for mm in moved for t in _through_walls(situation, mm.end)]
        if astride:
            # RULES.md 1.3: a model may cross a wall it can move through, never end partway
            # through one (on top of it, at its height, is standing on it: 1.5).
            ok &= verdict.check(
                rule="13.06",
                stage="end-of-move",
                passed=False,
                subject=unit.id,
                text="A model cannot end partway through a wall: "
                + ", ".join(f"{named(m)} across a wall of {t}" for m, t in astride)
                + ".",
            )
        for mm in moved:
            a = mm.end
            if a.z <= EPSILON:
                continue
            allowed = bool((unit.keywords | a.keywords) & MAY_END_ABOVE)
            if not allowed:
                ok &= verdict.check(
                    rule="13.06",
                    stage="end-of-move",
                    passed=False,
                    subject=a.id,
                    text=(
                        f"{named(a)} cannot end above the table (z = {fmt(a.z)}{u}): only "
                        "INFANTRY, "
                        "BEASTS, SWARM, FLY and MONSTER models may stand on a terrain floor."
                    ),
                    measured=a.z,
                    limit=0.0,
                )
                continue
            ok &= _end_on_a_floor(situation, unit, mm, verdict)

    c = coherency(outcome.end_models(unit))
    # The horizontal measurement only when it is what breaks the rule: a model cut off by more
    # than 5" vertically has no finite nearest link (and a horizontal span within 9" says nothing).
    value, bound = (
        (c.nearest_link, COHERENCY_RANGE.horizontal)
        if c.isolated
        else (c.farthest, COHERENCY_SPAN.horizontal)
    )
    broken = not c.ok and math.isfinite(value) and not within(value, bound)
    measured, limit = (value, bound) if broken else (None, None)
    if c.ok and len(c.groups) == 1 and len(c.groups[0]) > 1:
        # in coherency: the farthest any model is from its closest unit mate, against 2"
        measured, limit = c.nearest_link, COHERENCY_RANGE.horizontal
    ok &= verdict.check(
        rule="03.03",
        stage="end-of-move",
        passed=c.ok,
        subject=unit.id,
        pass_text=f"{named(unit)} ends in coherency.",
        fail_text=f"{named(unit)} would end out of coherency ({'; '.join(c.failures())}): every "
        "model "
        'needs a unit mate within 2", every pair within 9" and no pair more than 5" apart '
        "vertically, all in one connected group.",
        measured=measured,
        limit=limit,
    )
    return ok


#: RULES.md 1.5 (the core Solid rule): no model ends through an enclosed part this low.
ENCLOSED_LOW = 3.0


def _floors_at(situation: Situation, z: float, footprint: Any) -> list[tuple[Any, TerrainFeature]]:
    """The surfaces at height `z` near a base: [(polygon, feature)]. Bounding boxes first (the
    searches ask this for hundreds of spots): a surface whose box misses the base's cannot meet
    it, so the shapely tests run only where they can."""
    box = footprint.bounds
    return [
        (shape, t)
        for t, t_box, levels in _standing_boxes(situation)
        if not t.layered or (_boxes_meet(t_box, box) and t.footprint.intersects(footprint))
        for shape, h, s_box in levels
        if abs(h - z) <= EPSILON and _boxes_meet(s_box, box) and shape.intersects(footprint)
    ]


def floor_reach(situation: Situation, unit: Unit, max_distance: float) -> list[tuple[Any, str]]:
    """RULES.md 1.5, for the overlay: the upper floors the unit's models can end on within
    `max_distance`: [(geometry of base centres, 'floor 3"')], one entry per floor height.

    A model reaches a spot of a floor as the crow flies plus the climb |floor - its z| (models
    that may end above the table only; a model that climbs dense terrain only on the floor it
    stands on or on a floor of 2" or less, as `may_stand`), and stands there only with its
    whole base on the floor. Enemy models in the way are not taken into account: the overlay
    may show a little more than a move can reach on a crowded floor; the judge measures the
    real path."""
    out: dict[float, list[Any]] = {}
    for m in unit.models:
        keywords = unit.keywords | m.keywords
        if not keywords & MAY_END_ABOVE:
            continue
        for t in situation.terrain:
            climber = t.category == "dense" and not keywords & THROUGH_DENSE
            for floor in t.floors:
                if climber and _climbs_tall(m.z, floor.height):
                    continue
                budget = max_distance - abs(floor.height - m.z)
                if budget <= EPSILON:
                    continue
                room = floor.footprint.buffer(-max(m.base.radius - PLACEMENT_TOLERANCE, 0.0))
                if room.is_empty:
                    continue
                out.setdefault(floor.height, []).append(
                    room.intersection(Point(m.x, m.y).buffer(budget, quad_segs=16))
                )
    regions = []
    for height in sorted(out):
        geometry = unary_union(out[height])
        if not geometry.is_empty:
            regions.append((geometry, f'floor {height:g}"'))
    return regions


def level_text(model: Model) -> str:
    """The level a model stands on, for findings (RULES.md 1.5): 'on the ground' or 'on the
    floor 3" up'."""
    return "on the ground" if model.z <= EPSILON else f'on the floor {fmt(model.z)}" up'


def overhang(footprint: Any, surfaces: Sequence[Any]) -> float:
    """How far a base reaches beyond the surfaces under it: the largest distance from a point of
    its outline to the nearest of `surfaces` (0 when the whole base lies over them; a point's
    distance to their union is its least distance to any one, so no union is built)."""
    points = shapely.points(shapely.get_coordinates(footprint.exterior))
    gaps = shapely.distance(surfaces[0], points)
    for surface in surfaces[1:]:
        np.minimum(gaps, shapely.distance(surface, points), out=gaps)
    return float(gaps.max())


def on_block_top(z: float, height: float) -> bool:
    """RULES.md 1.5: does a model `z` up stand on the top of the old-shape features under it,
    the tallest `height` of them (one block each: no level part-way up, and standing on a lower
    one's top it would be part-way up the taller)?"""
    return abs(z - height) <= EPSILON


def _end_on_a_floor(situation: Situation, unit: Unit, mm: ModelMove, verdict: Verdict) -> bool:
    """RULES.md 1.5: ending above the table. On old-shape features (blocks) the model stands
    on the top of the tallest under its base (`on_block_top`); wherever a layered feature
    (walls, floors) is under the base it must stand at the height of a floor (or of the top of
    a wall or an enclosed part), stable: its whole base over that surface, with no overhang
    beyond PLACEMENT_TOLERANCE. A model that is not INFANTRY, BEASTS, SWARM or MOBILE and had to
    climb a section of a dense feature over 2" in this move cannot end on its upper floors."""
    a = mm.end
    u = unit_mark(situation)
    keywords = unit.keywords | a.keywords
    ok = True
    layered = any(t.layered and t.footprint.intersects(a.footprint) for t in situation.terrain)
    if not layered:
        features = [t for t in situation.terrain if t.footprint.intersects(a.footprint)]
        height = max((t.height for t in features), default=0.0)
        tallest = max(features, key=lambda t: t.height).id if features else None
        ok &= verdict.check(
            rule="13.06",
            stage="end-of-move",
            passed=on_block_top(a.z, height),
            subject=a.id,
            pass_text=f"{named(a)} ends {fmt(a.z)}{u} up, on top of {tallest}.",
            fail_text=f"{named(a)} would end {fmt(a.z)}{u} up, but the terrain under it is only "
            f"{fmt(height)}{u} tall: a model cannot float."
            if a.z > height
            else f"{named(a)} would end {fmt(a.z)}{u} up, part-way up {tallest} "
            f"({fmt(height)}{u} tall, one block): a model stands on its top or on the table.",
            measured=a.z,
            limit=height,
        )
    else:
        floors = _floors_at(situation, a.z, a.footprint)
        hang = overhang(a.footprint, [shape for shape, _ in floors]) if floors else math.inf
        tolerance = PLACEMENT_TOLERANCE
        stable = hang <= tolerance + CURVE_SLACK + EPSILON
        ok &= verdict.check(
            rule="13.06",
            stage="end-of-move",
            passed=stable,
            subject=a.id,
            pass_text=f"{named(a)} stands on a floor {fmt(a.z)}{u} up, its whole base over it.",
            fail_text=f"{named(a)} would end {fmt(a.z)}{u} up with no floor at that height under "
            "it: a "
            "model stands on a floor or on the table, never in mid-air."
            if not floors
            else f"{named(a)} would end on the floor {fmt(a.z)}{u} up with its base reaching "
            f"{fmt(hang)}{u} beyond the floor's edge: a model must stand with its whole base "
            f"on the floor (at most {fmt(tolerance)}{u} over).",
            measured=hang if floors else None,
            limit=tolerance if floors else None,
        )
        features = [t for _, t in floors]
    # Only a climb over a section taller than 2" bars the upper floors (RULES.md 1.5), and only
    # of the feature climbed: the floor it ends on is itself such a section, or the path climbed
    # one of that feature on the way (`ModelMove.climbed`). A MONSTER may step up onto a 1.5"
    # platform, or onto a low floor of a ruin beside the one whose wall it climbed.
    climbed = set(mm.climbed)
    if mm.vertical > EPSILON and _climbs_tall(mm.start.z, a.z):
        climbed.update(t.id for t in features)
    barred = [t.id for t in features if t.category == "dense" and t.id in climbed]
    if barred and not keywords & THROUGH_DENSE and mm.vertical > EPSILON:
        ok &= verdict.check(
            rule="13.06",
            stage="end-of-move",
            passed=False,
            subject=a.id,
            text=(
                f"{named(a)} had to climb over {barred[0]} (a section taller than "
                f"{fmt(DENSE_CLIMB_HEIGHT)}{u}), and only "
                "INFANTRY, BEASTS, SWARM and MOBILE models may end on a dense feature's upper "
                "floors after climbing it."
            ),
            measured=mm.vertical,
            limit=0.0,
        )
    return ok


def _through_enclosed(situation: Situation, model: Model) -> list[tuple[str, float]]:
    """(feature id, height) of each enclosed part the model would stand through (1.5): some of
    it below the part's top and below 3". A base standing exactly 3" up only touches that
    level (RULES.md 0), so no part of the model is through the part 3" or less above the
    ground."""
    return [
        (t.id, part.height)
        for t in situation.terrain
        for part in t.enclosed
        if model.z < part.height - EPSILON
        and model.z < ENCLOSED_LOW - EPSILON
        and model.footprint.intersection(part.footprint).area > EPSILON
    ]


def _through_walls(situation: Situation, model: Model) -> list[str]:
    """Ids of the features with a wall the model's base would stand partway through (RULES.md
    1.3): below the wall's top and overlapping it by more than touching."""
    cache = situation_cache(situation)
    if "wall_boxes" not in cache:
        cache["wall_boxes"] = [
            (t.id, t.footprint.bounds, [(w.height, w.shape, w.shape.bounds) for w in t.walls])
            for t in situation.terrain
            if t.walls
        ]
    r = model.base.radius
    found = []
    for tid, (x0, y0, x1, y1), walls in cache["wall_boxes"]:
        # Walls lie inside their feature's footprint: a base clear of its box is clear of them.
        if not (x0 - r <= model.x <= x1 + r and y0 - r <= model.y <= y1 + r):
            continue
        if any(
            model.z < height - EPSILON and _base_overlaps_shape(model, shape, bounds)
            for height, shape, bounds in walls
        ):
            found.append(tid)
    return found


def may_stand(situation: Situation, unit: Unit, spot: Model, start: Model | None = None) -> bool:
    """RULES.md 1.5, for the "if it can" searches: may a model of `unit` end at `spot` (x, y, z)?
    Never through a low enclosed part; above the table only for INFANTRY, BEASTS, SWARM, FLY and
    MONSTER models, on the top of the old-shape blocks under it (`on_block_top`), or stable on
    a floor at exactly that height (layered); a model that climbs dense terrain (not INFANTRY,
    BEASTS, SWARM, MOBILE) only on the level it started on or on a floor of 2" or less; never
    partway through a wall (1.3). The same tests as the end-of-move checks."""
    if _through_enclosed(situation, spot) or _through_walls(situation, spot):
        return False
    if spot.z <= EPSILON:
        return True
    keywords = unit.keywords | spot.keywords
    if not keywords & MAY_END_ABOVE:
        return False
    footprint = spot.footprint
    box = footprint.bounds
    # Bounding boxes first (the searches ask this for hundreds of spots): a feature or surface
    # whose box misses the base's cannot meet it, so the shapely tests run only where they can.
    under = [
        t
        for t, t_box, _ in _standing_boxes(situation)
        if _boxes_meet(t_box, box) and t.footprint.intersects(footprint)
    ]
    if not any(t.layered for t in under):
        if not on_block_top(spot.z, max((t.height for t in under), default=0.0)):
            return False
        dense = [t for t in under if t.category == "dense"]
    else:
        floors = _floors_at(situation, spot.z, footprint)
        if not floors:
            return False
        if (
            overhang(footprint, [shape for shape, _ in floors])
            > PLACEMENT_TOLERANCE + CURVE_SLACK + EPSILON
        ):
            return False
        dense = [t for _, t in floors if t.category == "dense"]
    # as `_end_on_a_floor`: only a climb over a section taller than 2" bars the upper floors,
    # and ending on one that high is such a climb (a MONSTER may step onto a 1.5" platform). The
    # search knows no path here: a tall section crossed on the way to a low floor is judged by
    # the end-of-move check of the move proposed.
    climbed_tall = _climbs_tall(None if start is None else start.z, spot.z)
    return not (dense and not keywords & THROUGH_DENSE and climbed_tall)


def _climbs_tall(from_z: float | None, to_z: float) -> bool:
    """RULES.md 1.5, with no path known: is ending at height `to_z`, coming from `from_z` (None:
    unknown), a climb over a section taller than 2"? Only a change of level to a floor above
    2" is (a MONSTER may step onto a 1.5" platform)."""
    return (from_z is None or abs(from_z - to_z) > EPSILON) and to_z > DENSE_CLIMB_HEIGHT + EPSILON


def _standing_boxes(situation: Situation) -> list[tuple[TerrainFeature, Any, list[Any]]]:
    """Per feature, once per situation: (feature, its footprint's bounds, [(surface, height,
    bounds)] of its standing levels), for `may_stand`'s bounding-box tests."""
    cache = situation_cache(situation)
    if "standing_boxes" not in cache:
        cache["standing_boxes"] = [
            (t, t.footprint.bounds, [(shape, h, shape.bounds) for shape, h in t.standing_levels])
            for t in situation.terrain
        ]
    boxes: list[tuple[TerrainFeature, Any, list[Any]]] = cache["standing_boxes"]
    return boxes


def _boxes_meet(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Do two bounding boxes (minx, miny, maxx, maxy) touch or overlap?"""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _end_in_enclosed(
    situation: Situation, unit: Unit, moved: Iterable[ModelMove], verdict: Verdict
) -> bool:
    """RULES.md 1.5 (the core Solid rule): no model ends with any part of it through an enclosed
    part of a feature, up to 3" above the ground (on top of one is fine)."""
    inside = [(mm.end.id, t, h) for mm in moved for t, h in _through_enclosed(situation, mm.end)]
    if not inside:
        return True
    return verdict.check(
        rule="13.06",
        stage="end-of-move",
        passed=False,
        subject=unit.id,
        text=(
            'A model cannot end through an enclosed part of a building or container (3" or less '
            "above the ground): "
            + ", ".join(f'{named(m)} inside {t} (enclosed, {fmt(h)}" tall)' for m, t, h in inside)
            + "."
        ),
    )


__all__ = [
    "DENSE_CLIMB_HEIGHT",
    "ENCLOSED_LOW",
    "MAY_END_ABOVE",
    "THROUGH_DENSE",
    "Mode",
    "ModelMove",
    "MoveOutcome",
    "MoveVerdict",
    "article",
    "climbed_features",
    "climbing_reach",
    "climbs_dense",
    "end_placement",
    "fall_back_mode",
    "ground_obstacles",
    "held_at",
    "judge_move",
    "keywords_of",
    "level_change",
    "floor_reach",
    "level_text",
    "may_stand",
    "mode_for",
    "model_has",
    "navigator_for",
    "on_table",
    "passable",
    "plan_path",
    "segment_blocker",
    "situation_cache",
    "terrain_bounds",
    "unit_mark",
]
