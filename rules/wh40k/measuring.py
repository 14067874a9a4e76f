"""Measuring between models and units: distances, engagement and coherency (RULES.md 1.1, 1.2).

Public names other modules rely on (keep them stable):

- `ENGAGEMENT_RANGE`, `COHERENCY_RANGE`, `COHERENCY_SPAN`: `Range(horizontal, vertical)` values.
- `model_distance(a, b) -> Distance(horizontal, vertical, straight)` between two `Model`s.
- `unit_distance(unit_a, unit_b) -> float`: the least straight distance over model pairs
  (accepts `Unit`s or plain iterables of `Model`s).
- `in_engagement_range(a, b) -> bool` for two models.
- `engaged_enemy_units(situation, unit, placements=None) -> tuple[str, ...]`: ids of the enemy
  units engaged with `unit`, optionally with some of its models replaced by proposed placements.
- `coherency(models) -> Coherency`: which of the two 03.03 conditions fails, for which models.

Round bases are measured analytically (exact); any other base through shapely on the model's
(cached) footprint, whose curves are circumscribed polygons (GEOMETRY-NOTES.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from shapely.geometry import Point

from ..geometry import EPSILON, Base, within
from ..situation import Model, Situation, Unit, base_distance


@dataclass(frozen=True)
class Range:
    """A range with a horizontal and a vertical limit, both "within" (RULES.md 0)."""

    horizontal: float
    vertical: float

    def holds(self, distance: Distance) -> bool:
        return within(distance.horizontal, self.horizontal) and within(
            distance.vertical, self.vertical
        )

    def describe(self, unit: str = '"') -> str:
        return f"{self.horizontal:g}{unit} horizontally and {self.vertical:g}{unit} vertically"


#: 03.04: opposing models within 2" horizontally and 5" vertically are engaged.
ENGAGEMENT_RANGE = Range(2.0, 5.0)
#: 03.03: each model within 2" h / 5" v of at least one other model of its unit...
COHERENCY_RANGE = Range(2.0, 5.0)
#: ...and within 9" h / 5" v of every other model of its unit.
COHERENCY_SPAN = Range(9.0, 5.0)


class Distance(NamedTuple):
    """RULES.md 1.1: horizontal (between footprints), vertical (|z1 - z2|) and straight."""

    horizontal: float
    vertical: float
    straight: float


#: RULES.md 1.1 calls the distance between two placed bases the horizontal distance.
horizontal_distance = base_distance


def model_distance(a: Model, b: Model) -> Distance:
    """RULES.md 1.1: the distance between two models, e.g. two 32 mm bases with centres 1.5"
    apart on the same level give Distance(horizontal=0.24, vertical=0.0, straight=0.24)."""
    h = horizontal_distance(a, b)
    v = abs(a.z - b.z)
    return Distance(h, v, math.hypot(h, v))


def _models(unit_or_models: Unit | Iterable[Model]) -> tuple[Model, ...]:
    if isinstance(unit_or_models, Unit):
        return unit_or_models.models
    return tuple(unit_or_models)


#: `unit_distance` bounds every pair at once from this many pairs up (fewer: each is measured).
_BOUNDED_PAIRS = 64
#: What a bound computed over arrays may exceed the exact distance by (rounding), far above it.
_BOUND_SLACK = 1e-9


def unit_distance(unit_a: Unit | Iterable[Model], unit_b: Unit | Iterable[Model]) -> float:
    """RULES.md 1.1: distance between two units = the least straight distance over model pairs.

    Either argument may be a `Unit` or an iterable of `Model`s (e.g. proposed placements).
    """
    models_a, models_b = _models(unit_a), _models(unit_b)
    if len(models_a) * len(models_b) < _BOUNDED_PAIRS:
        return min(model_distance(a, b).straight for a in models_a for b in models_b)
    # Many pairs (a surge's unit against each enemy unit): every pair's distance bounded below
    # at once, from the enclosing circles, and measured exactly only while the bound can still
    # beat the least found (a few pairs, nearest first). The same least distance.
    ax, ay, az, ar = (
        np.array(c, dtype=float)
        for c in zip(*((m.x, m.y, m.z, m.base.radius) for m in models_a), strict=True)
    )
    bx, by, bz, br = (
        np.array(c, dtype=float)
        for c in zip(*((m.x, m.y, m.z, m.base.radius) for m in models_b), strict=True)
    )
    gap = np.hypot(ax[:, None] - bx[None, :], ay[:, None] - by[None, :])
    gap -= ar[:, None] + br[None, :]
    bound = np.hypot(np.maximum(gap, 0.0), az[:, None] - bz[None, :]).ravel()
    least = math.inf
    for k in bound.argsort().tolist():
        if bound[k] > least + _BOUND_SLACK:
            break
        i, j = divmod(k, len(models_b))
        least = min(least, model_distance(models_a[i], models_b[j]).straight)
    return least


def closest_pair(
    unit_a: Unit | Iterable[Model], unit_b: Unit | Iterable[Model]
) -> tuple[Model, Model, Distance]:
    """The pair of models realising `unit_distance`, with their distance."""
    best = None
    for a in _models(unit_a):
        for b in _models(unit_b):
            d = model_distance(a, b)
            if best is None or d.straight < best[2].straight:
                best = (a, b, d)
    assert best is not None
    return best


def in_engagement_range(a: Model, b: Model) -> bool:
    """03.04: two models are in engagement range within 2" horizontally and 5" vertically.

    (Whether they are opposing is the caller's business: friends are never engaged.)
    """
    if not within(abs(a.z - b.z), ENGAGEMENT_RANGE.vertical):
        return False
    # Quick reject on the enclosing circles: engagement checks run over every enemy model.
    gap = math.hypot(a.x - b.x, a.y - b.y) - a.base.radius - b.base.radius
    if not within(gap, ENGAGEMENT_RANGE.horizontal):
        return False
    if a.base.kind == "round" and b.base.kind == "round":
        return within(gap, ENGAGEMENT_RANGE.horizontal)
    return ENGAGEMENT_RANGE.holds(model_distance(a, b))


def units_engaged(models_a: Iterable[Model], models_b: Iterable[Model]) -> bool:
    """03.04: two opposing units are engaged when any pair of their models is in range."""
    models_b = tuple(models_b)
    return any(in_engagement_range(a, b) for a in models_a for b in models_b)


def placed_models(
    unit: Unit, placements: Mapping[str, Model] | Iterable[Model] | None
) -> tuple[Model, ...]:
    """The unit's models with some replaced by proposed placements (by model id)."""
    if not placements:
        return unit.models
    if not isinstance(placements, Mapping):
        placements = {m.id: m for m in placements}
    return tuple(placements.get(m.id, m) for m in unit.models)


@lru_cache(maxsize=256)
def _inner_radius(base: Base) -> float:
    """The radius of a disc about the base's centre that lies inside it: how far its outline
    reaches at least, in every direction (0 for a hull drawn round a centre outside it)."""
    if base.kind == "round":
        return base.radius
    if base.kind in ("oval", "rect"):
        return min(base.size) / 2
    outline = base.footprint(0.0, 0.0)
    centre = Point(0.0, 0.0)
    return float(outline.exterior.distance(centre)) if outline.contains(centre) else 0.0


def engagement_gap(models: Iterable[Model], enemies: Iterable[Model]) -> float | None:
    """03.04, the number behind an engagement finding: the least horizontal distance from
    `models` to an enemy model within 5" of them vertically (engaged when it is 2" or less), or
    None when no enemy model is that close vertically. Each pair's distance lies between its
    enclosing circles' gap and its inner discs' gap (`_inner_radius`); a pair is measured exactly
    only when its enclosing circles come nearer than some pair's inner discs (a 10" long hull
    side on is 4.5" further than its enclosing circle, a round base exactly as far)."""
    mine, theirs = tuple(models), tuple(enemies)
    if not mine or not theirs:
        return None
    a = np.array([(m.x, m.y, m.z, m.base.radius, _inner_radius(m.base)) for m in mine])
    b = np.array([(m.x, m.y, m.z, m.base.radius, _inner_radius(m.base)) for m in theirs])
    # enclosing circles and inner discs over arrays (a 60-model unit among 600 in one go), the
    # exact distance only for the pairs that can be the closest
    level = np.abs(a[:, None, 2] - b[None, :, 2]) <= ENGAGEMENT_RANGE.vertical + EPSILON
    if not level.any():
        return None
    centres = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
    rough = centres - (a[:, None, 3] + b[None, :, 3])
    rough[~level] = np.inf
    at_most = np.maximum(centres - (a[:, None, 4] + b[None, :, 4]), 0.0)
    at_most[~level] = np.inf
    close = np.argwhere(rough <= at_most.min() + EPSILON)
    return min(horizontal_distance(mine[i], theirs[j]) for i, j in close.tolist())


def engaged_enemy_units(
    situation: Situation,
    unit: Unit | str,
    placements: Mapping[str, Model] | Iterable[Model] | None = None,
) -> tuple[str, ...]:
    """03.04: ids of the enemy units engaged with `unit`, in scenario order.

    `placements` (model id -> Model, or an iterable of Models) replaces some of the unit's models
    by proposed placements, so a move's end state can be tested before it is applied.
    """
    if isinstance(unit, str):
        unit = situation.unit(unit)
    mine = placed_models(unit, placements)
    return tuple(e.id for e in situation.enemies_of(unit) if units_engaged(mine, e.models))


def engaged_with_model(situation: Situation, unit: Unit, model: Model) -> tuple[str, ...]:
    """Ids of the enemy units with a model in engagement range of `model`."""
    return tuple(
        e.id
        for e in situation.enemies_of(unit)
        if any(in_engagement_range(model, m) for m in e.models)
    )


@dataclass(frozen=True)
class Coherency:
    """03.03 for a set of models.

    - `isolated`: models with no other model within 2" h / 5" v (first condition).
    - `too_far`: pairs of models more than 9" h or 5" v apart (second condition).
    - `groups`: the connected groups formed by the 2" links; more than one breaks coherency.
    - `farthest`: the largest pair distance (for the finding's measurement).
    """

    isolated: tuple[str, ...]
    too_far: tuple[tuple[str, str], ...]
    groups: tuple[tuple[str, ...], ...]
    farthest: float = 0.0
    nearest_link: float = 0.0  # the largest "distance to the closest unit mate" over all models

    @property
    def ok(self) -> bool:
        return not self.isolated and not self.too_far and len(self.groups) <= 1

    @property
    def split(self) -> bool:
        return len(self.groups) > 1

    def failures(self) -> list[str]:
        """Which conditions fail, in words, for findings."""
        out = []
        if self.isolated:
            out.append('no unit mate within 2": ' + ", ".join(self.isolated))
        if self.too_far:
            out.append(
                'more than 9" apart horizontally or 5" vertically: '
                + ", ".join(f"{a}-{b}" for a, b in self.too_far)
            )
        if self.split:
            out.append("split into " + " | ".join(", ".join(g) for g in self.groups))
        return out


def coherency(models: Iterable[Model]) -> Coherency:
    """03.03: is this set of models (one unit) in coherency, and if not, why.

    A single model is always in coherency. Round bases (nearly every unit) are measured all at
    once over numpy arrays (centre distance minus both radii, RULES.md 1.1: exact, and the same
    numbers `model_distance` gives); any other base pair by pair through shapely.
    """
    models = tuple(models)
    n = len(models)
    if n <= 1:
        return Coherency((), (), (tuple(m.id for m in models),) if models else ())
    if all(m.base.kind == "round" for m in models):
        return _coherency_round(models)
    linked = np.zeros((n, n), dtype=bool)
    nearest = [math.inf] * n
    too_far = []
    farthest = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = model_distance(models[i], models[j])
            farthest = max(farthest, d.horizontal)
            nearest[i] = min(
                nearest[i],
                d.horizontal if within(d.vertical, COHERENCY_RANGE.vertical) else math.inf,
            )
            nearest[j] = min(
                nearest[j],
                d.horizontal if within(d.vertical, COHERENCY_RANGE.vertical) else math.inf,
            )
            if COHERENCY_RANGE.holds(d):
                linked[i, j] = linked[j, i] = True
            if not COHERENCY_SPAN.holds(d):
                too_far.append((models[i].id, models[j].id))
    return _coherency_from_links(models, linked, too_far, farthest, max(nearest))


def _coherency_round(models: tuple[Model, ...]) -> Coherency:
    """`coherency` for round bases only, over arrays: the n x n horizontal and vertical distances
    in one go (a 60-model unit in ~0.2 ms where the pairwise loop took ~20 ms)."""
    n = len(models)
    x, y, z, r = np.array([(m.x, m.y, m.z, m.base.radius) for m in models], dtype=float).T
    horizontal = np.maximum(
        np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :]) - r[:, None] - r[None, :], 0.0
    )
    vertical = np.abs(z[:, None] - z[None, :])
    off_diagonal, upper = _pair_masks(n)
    farthest = float(horizontal[upper].max())
    reachable = vertical <= COHERENCY_RANGE.vertical + EPSILON
    nearest = np.where(reachable & off_diagonal, horizontal, np.inf).min(axis=1)
    linked = reachable & (horizontal <= COHERENCY_RANGE.horizontal + EPSILON) & off_diagonal
    apart = upper & (
        (horizontal > COHERENCY_SPAN.horizontal + EPSILON)
        | (vertical > COHERENCY_SPAN.vertical + EPSILON)
    )
    too_far = (
        tuple((models[i].id, models[j].id) for i, j in zip(*np.nonzero(apart), strict=True))
        if apart.any()
        else ()
    )
    return _coherency_from_links(models, linked, too_far, farthest, float(nearest.max()))


@lru_cache(maxsize=128)
def _pair_masks(n: int) -> tuple[np.ndarray, np.ndarray]:
    """For n models: every pair but a model with itself, and each pair once (i < j); read-only
    (shared by every call for n models)."""
    off_diagonal = ~np.eye(n, dtype=bool)
    upper = np.triu(off_diagonal)
    off_diagonal.flags.writeable = upper.flags.writeable = False
    return off_diagonal, upper


def _coherency_from_links(
    models: tuple[Model, ...],
    linked: np.ndarray,
    too_far: Iterable[tuple[str, str]],
    farthest: float,
    nearest: float,
) -> Coherency:
    """The isolated models and the linked groups (in model order) from the 2" links (`linked`,
    n x n and symmetric)."""
    n = len(models)
    rows, cols = np.nonzero(linked)
    ends = np.searchsorted(rows, np.arange(n + 1)).tolist()
    cols = cols.tolist()
    links = [cols[ends[i] : ends[i + 1]] for i in range(n)]
    isolated = tuple(models[i].id for i in range(n) if not links[i])
    seen = [False] * n
    groups = []
    for i in range(n):
        if seen[i]:
            continue
        stack, group = [i], []
        seen[i] = True
        while stack:
            k = stack.pop()
            group.append(k)
            for j in links[k]:
                if not seen[j]:
                    seen[j] = True
                    stack.append(j)
        groups.append(tuple(models[k].id for k in sorted(group)))
    return Coherency(isolated, tuple(too_far), tuple(groups), farthest, nearest)


__all__ = [
    "COHERENCY_RANGE",
    "COHERENCY_SPAN",
    "ENGAGEMENT_RANGE",
    "EPSILON",
    "Coherency",
    "Distance",
    "Range",
    "closest_pair",
    "coherency",
    "engaged_enemy_units",
    "engagement_gap",
    "engaged_with_model",
    "horizontal_distance",
    "in_engagement_range",
    "model_distance",
    "placed_models",
    "unit_distance",
    "units_engaged",
]
