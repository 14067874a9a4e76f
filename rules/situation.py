"""The state of the table: frozen value objects built from a scenario document (FORMAT.md).

A `Situation` is never mutated; `Situation.moved(...)` returns the situation after a move.
`Situation.from_document` makes the checks a JSON Schema cannot express (unique and existing ids,
simple footprints, models on the table, no overlapping models, size limits) and raises
`InvalidInput` naming the field. The structural checks (types, unknown fields) are the JSON
Schema's, run before this by the app; anything malformed that slips through still ends here as
`InvalidInput`, never as a crash.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Any, NoReturn

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import LineString, Point, Polygon, box

from .errors import InvalidInput
from .geometry import (
    EPSILON,
    Base,
    ellipse_segment_gap,
    is_simple_polygon,
    oval_distance,
    ovals_overlap,
    polygon_enters_oval,
)
from .systems import SYSTEMS

SCENARIO_FORMAT = "arbiter.scenario/1"

#: Documented size limits of a scenario (README "Limits"); bigger input is refused.
LIMITS = {
    "document_bytes": 1_000_000,
    "table_side": 1000.0,
    "armies": 8,
    "units": 100,
    "models": 600,
    "models_per_unit": 60,
    "terrain": 200,
    "vertices": 100,
    "parts": 50,  # walls, floors, enclosed parts of one terrain feature (each)
    # Outline vertices in all, of terrain (footprints and parts) and hull bases: the corners of
    # the path graph, whose cost grows with their square (README "Limits", bench/cost_model.py).
    "outline_vertices": 3000,
}


@dataclass(frozen=True)
class Table:
    width: float
    height: float

    @cached_property
    def area(self) -> Polygon:
        return box(0, 0, self.width, self.height)


#: FORMAT.md: a wall's thickness when the document does not give one (inches).
WALL_THICKNESS = 0.25


@dataclass(frozen=True)
class Wall:
    """A wall of a 40K terrain feature (RULES.md 1.5, FORMAT.md `walls`): a polyline (closed when
    its last point repeats the first) with a height and a thickness."""

    path: tuple[tuple[float, float], ...]
    height: float
    thickness: float = WALL_THICKNESS

    @cached_property
    def shape(self) -> Polygon:
        """The wall's footprint: its path widened by half the thickness on each side, flat at the
        ends (a wall stops where its path stops)."""
        return LineString(self.path).buffer(
            self.thickness / 2, cap_style="flat", join_style="mitre"
        )


@dataclass(frozen=True)
class Level:
    """A floor (FORMAT.md `floors`) or an enclosed part (`enclosed`) of a 40K terrain feature: a
    polygon at a height above the table (RULES.md 1.5)."""

    points: tuple[tuple[float, float], ...]
    height: float
    footprint: Polygon = field(compare=False)


@dataclass(frozen=True)
class TerrainFeature:
    """A terrain feature: footprint polygon plus the attributes each system reads.

    40K reads `category` (exposed / light / dense), `height` and `solid`, and the optional parts
    of RULES.md 1.5: `walls`, `floors` (upper floors; the ground inside the footprint is floor 0)
    and `enclosed` parts. A feature without them is a block of `height` over its whole footprint,
    as it always was. Warmaster reads `type` (RULES.md 2.2).
    """

    id: str
    type: str
    footprint: Polygon = field(compare=False)
    points: tuple[tuple[float, float], ...]
    category: str | None = None
    height: float = 0.0
    solid: bool = False
    walls: tuple[Wall, ...] = ()
    floors: tuple[Level, ...] = ()
    enclosed: tuple[Level, ...] = ()

    @property
    def layered(self) -> bool:
        """Does the document describe the feature in three dimensions (walls, floors or enclosed
        parts), rather than as one block of `height` (RULES.md 1.5)?"""
        return bool(self.walls or self.floors or self.enclosed)

    @cached_property
    def standing_levels(self) -> tuple[tuple[Polygon, float], ...]:
        """(polygon, height) of every surface above the table a model may stand on: the block's
        top for an old-shape feature; the floors, the enclosed parts' tops and the walls' tops
        (wide enough or not: the stability check decides) of a layered one."""
        if not self.layered:
            return ((self.footprint, self.height),) if self.height > 0 else ()
        levels = [(f.footprint, f.height) for f in (*self.floors, *self.enclosed) if f.height > 0]
        levels += [(w.shape, w.height) for w in self.walls if w.height > 0]
        return tuple(levels)

    @cached_property
    def sections(self) -> tuple[tuple[Polygon, float], ...]:
        """(polygon, height) of the parts a model crossing at ground level meets (RULES.md 1.5:
        "a wall, the edge of a floor, a block"): the whole footprint for an old-shape feature;
        the walls, floors and enclosed parts of a layered one (the open ground between walls is
        no section)."""
        if not self.layered:
            return ((self.footprint, self.height),)
        return tuple(
            [(w.shape, w.height) for w in self.walls]
            + [(f.footprint, f.height) for f in (*self.floors, *self.enclosed)]
        )


@dataclass(frozen=True)
class Army:
    id: str
    name: str


@dataclass(frozen=True)
class Model:
    """One model (40K) or stand (Warmaster): base, centre, elevation and facing."""

    id: str
    unit: str
    base: Base
    x: float
    y: float
    z: float = 0.0
    facing: float = 0.0
    #: Keywords this model has beyond its unit's (docs/format.md `models[].keywords`): a unit in
    #: which only some models have FLY (RULES.md 1.7).
    keywords: frozenset[str] = frozenset()

    @property
    def pos(self) -> tuple[float, float, float]:
        """(x, y, facing): what the footprint needs."""
        return (self.x, self.y, self.facing)

    @cached_property
    def footprint(self) -> Polygon:
        return self.base.footprint(self.x, self.y, self.facing)

    def placed(
        self, x: float, y: float, z: float | None = None, facing: float | None = None
    ) -> Model:
        return replace(
            self,
            x=x,
            y=y,
            z=self.z if z is None else z,
            facing=self.facing if facing is None else facing,
        )


@dataclass(frozen=True)
class Unit:
    id: str
    army: str
    name: str
    keywords: frozenset[str]
    models: tuple[Model, ...]
    move: float | None = None
    state: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), compare=False)
    abilities: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)

    def has(self, keyword: str) -> bool:
        return keyword in self.keywords

    def flag(self, name: str) -> bool:
        """A state flag; missing flags are false (FORMAT.md `units[].state`)."""
        return bool(self.state.get(name, False))

    def model(self, model_id: str) -> Model:
        for m in self.models:
            if m.id == model_id:
                return m
        raise KeyError(model_id)

    def ability(self, ability_id: str) -> Mapping[str, Any] | None:
        return next((a for a in self.abilities if a.get("id") == ability_id), None)


@dataclass(frozen=True)
class Turn:
    round: int = 1
    active_army: str | None = None
    phase: str | None = None


@dataclass(frozen=True)
class DeploymentZone:
    """Where an army sets up (FORMAT.md scenario markers): a polygon on the table."""

    army: str
    footprint: Polygon
    points: tuple[tuple[float, float], ...]
    name: str = ""


@dataclass(frozen=True)
class Objective:
    """An objective marker (FORMAT.md scenario markers): a point on the table."""

    id: str
    x: float
    y: float
    name: str = ""


@dataclass(frozen=True)
class Situation:
    """Everything on the table at one moment. Built by `from_document`, never mutated."""

    system: str
    table: Table
    terrain: tuple[TerrainFeature, ...]
    armies: tuple[Army, ...]
    units: tuple[Unit, ...]
    turn: Turn
    name: str = ""
    document: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    deployment_zones: tuple[DeploymentZone, ...] = ()
    objectives: tuple[Objective, ...] = ()
    #: Where the layout and units came from (dataset, version, dataslate); {} when unsaid.
    source: Mapping[str, Any] = field(default_factory=dict, compare=False)
    #: Bases the game does not allow (RULES.md 2.1's stands), as (field, what the game allows),
    #: kept only when the document was read with `odd_bases_kept` (a scenario stored before the
    #: check): such a table can be shown and mended, and every move on it is refused.
    odd_bases: tuple[tuple[str, str], ...] = ()

    # -- lookups ---------------------------------------------------------------------------
    @property
    def unit_name(self) -> str:
        return SYSTEMS[self.system].unit

    @property
    def mm_per_unit(self) -> float:
        return SYSTEMS[self.system].mm_per_unit

    @cached_property
    def _units_by_id(self) -> dict[str, Unit]:
        return {u.id: u for u in self.units}

    @cached_property
    def _models_by_id(self) -> dict[str, Model]:
        return {m.id: m for u in self.units for m in u.models}

    @cached_property
    def _memos(self) -> threading.local:
        return threading.local()

    @property
    def memo(self) -> dict[str, Any]:
        """A scratch dict living exactly as long as this situation, for engine modules to keep
        values that are costly to derive and asked for again and again while judging moves on it
        (a Situation never changes, so nothing kept here goes stale). Keys are namespaced by the
        module that owns them.

        One dict per thread: what is kept here (prepared geometries, STRtrees, navigators'
        obstacles) is then only ever used by the thread that made it, so a Situation may be
        shared between threads (the web app caches them per scenario version) without sharing
        a prepared GEOS geometry, which is not thread-safe."""
        memos = self._memos
        memo = getattr(memos, "memo", None)
        if memo is None:
            memo = memos.memo = {}
        return memo

    def __getstate__(self) -> dict[str, Any]:
        """Copies and pickles start with an empty memo (a thread-local cannot be pickled, and a
        copy must not share its original's)."""
        state = dict(self.__dict__)
        state.pop("_memos", None)
        return state

    def unit(self, unit_id: str) -> Unit:
        try:
            return self._units_by_id[unit_id]
        except KeyError:
            raise InvalidInput("unit", f"no unit with id {unit_id!r} in this scenario") from None

    def has_unit(self, unit_id: str) -> bool:
        return unit_id in self._units_by_id

    def model(self, model_id: str) -> Model:
        try:
            return self._models_by_id[model_id]
        except KeyError:
            raise InvalidInput("model", f"no model with id {model_id!r} in this scenario") from None

    def models(self) -> Iterable[Model]:
        return self._models_by_id.values()

    def enemies_of(self, unit: Unit) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.army != unit.army)

    def friends_of(self, unit: Unit) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.army == unit.army and u.id != unit.id)

    # -- applying a move ---------------------------------------------------------------------
    def moved(
        self,
        poses: Mapping[str, Mapping[str, Any]] | None = None,
        state: Mapping[str, Mapping[str, Any]] | None = None,
        removed: Iterable[str] = (),
    ) -> Situation:
        """The situation after a move: new model poses ({model id: {x, y, z?, facing?}}),
        unit state updates ({unit id: {flag: value}}; a value of None removes the flag, which no
        longer holds) and removed models (destroyed or slain). Returns a new Situation; `self` is
        unchanged."""
        poses = poses or {}
        state = state or {}
        removed = set(removed)
        doc = _copied(self.document)
        for u in doc.get("units", []):
            if u["id"] in state:
                merged = {**u.get("state", {}), **state[u["id"]]}
                u["state"] = {flag: value for flag, value in merged.items() if value is not None}
            kept = []
            for m in u["models"]:
                if m["id"] in removed:
                    continue
                if m["id"] in poses:
                    pose = poses[m["id"]]
                    m["x"], m["y"] = _tidy(pose["x"]), _tidy(pose["y"])
                    if pose.get("z") is not None and (pose["z"] or "z" in m):
                        m["z"] = _tidy(pose["z"])
                    if pose.get("facing") is not None and (pose["facing"] or "facing" in m):
                        m["facing"] = _tidy(pose["facing"])
                kept.append(m)
            u["models"] = kept
        doc["units"] = [u for u in doc.get("units", []) if u["models"]]
        return Situation.from_document(doc, check_overlaps=False)

    def to_document(self) -> dict[str, Any]:
        """The scenario document (FORMAT.md), exactly as it was imported or produced by a move."""
        return _copied(self.document)

    # -- building ------------------------------------------------------------------------------
    @classmethod
    def from_document(
        cls, doc: Mapping[str, Any], *, check_overlaps: bool = True, odd_bases_kept: bool = False
    ) -> Situation:
        """Build a Situation from a scenario document, or raise InvalidInput naming the field.

        `odd_bases_kept`: a base the game does not allow (RULES.md 2.1's stands) is kept and
        listed in `odd_bases` instead of refused, for a scenario stored before the game checked
        its bases: the site shows it and lets it be mended, and `adjudicate` refuses every move.

        >>> from rules.examples import one_squad_and_a_target
        >>> doc = one_squad_and_a_target()
        >>> Situation.from_document(doc).unit("A").name
        'Intercessors'
        >>> doc["units"][0]["models"][0]["base"] = {"round": 32, "oval": [60, 35]}
        >>> try:
        ...     Situation.from_document(doc)
        ... except InvalidInput as error:
        ...     print(error.field)
        units[0].models[0].base
        """
        return _Builder(doc, check_overlaps, odd_bases_kept).build()


def _tidy(value: float) -> float:
    """Round stored coordinates to 1e-6 so documents stay readable and stable."""
    return round(float(value), 6) + 0.0


class _Builder:
    def __init__(self, doc: Mapping[str, Any], check_overlaps: bool, odd_bases_kept: bool = False):
        self.doc = doc
        self.check_overlaps = check_overlaps
        self.odd_bases_kept = odd_bases_kept
        self.odd_bases: list[tuple[str, str]] = []
        self.ids: dict[str, str] = {}
        # round bases met so far, by size in mm: a 600-model army has a handful of sizes
        self.round_bases: dict[float, Base] = {}

    def fail(self, path: str, message: str) -> NoReturn:
        raise InvalidInput(path, message)

    def unique(self, ident: object, path: str) -> None:
        if not isinstance(ident, str) or not ident:
            self.fail(path, "must be a non-empty string")
        if ident in self.ids:
            self.fail(path, f"id {ident!r} is already used by {self.ids[ident]}")
        self.ids[ident] = path

    def number(self, value: object, path: str, minimum: float | None = None) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            self.fail(path, "must be a finite number")
        if minimum is not None and value < minimum:
            self.fail(path, f"must be at least {minimum}")
        return float(value)

    def build(self) -> Situation:
        doc = self.doc
        if not isinstance(doc, Mapping):
            self.fail("", "a scenario must be a JSON object")
        try:
            return self._build(doc)
        except InvalidInput:
            raise
        except KeyError as exc:  # a field FORMAT.md requires is missing: name it
            self.fail(getattr(self, "where", ""), f"the required field {exc.args[0]!r} is missing")
        except (TypeError, ValueError, AttributeError) as exc:  # malformed structure
            self.fail(
                getattr(self, "where", ""), f"malformed scenario ({exc.__class__.__name__}: {exc})"
            )

    def _build(self, doc: Mapping[str, Any]) -> Situation:
        if doc.get("format") != SCENARIO_FORMAT:
            self.fail("format", f"must be {SCENARIO_FORMAT!r}")
        system = str(doc.get("system"))
        if system not in SYSTEMS:
            self.fail("system", f"must be one of {', '.join(SYSTEMS)}")
        mm = SYSTEMS[system].mm_per_unit
        self.where = "table"
        t = doc["table"]
        table = Table(
            self.number(t["width"], "table.width", 1), self.number(t["height"], "table.height", 1)
        )
        if max(table.width, table.height) > LIMITS["table_side"]:
            self.fail(
                "table", f"a side may be at most {LIMITS['table_side']:g} {SYSTEMS[system].unit}"
            )

        terrain = []
        pieces = doc.get("terrain", [])
        if len(pieces) > LIMITS["terrain"]:
            self.fail("terrain", f"at most {LIMITS['terrain']} terrain pieces")
        for i, piece in enumerate(pieces):
            path = f"terrain[{i}]"
            self.where = path
            self.unique(piece.get("id"), f"{path}.id")
            points = piece.get("footprint", [])
            if len(points) > LIMITS["vertices"]:
                self.fail(f"{path}.footprint", f"at most {LIMITS['vertices']} vertices")
            pts = tuple(
                (self.number(p[0], f"{path}.footprint"), self.number(p[1], f"{path}.footprint"))
                for p in points
            )
            if not is_simple_polygon(pts):
                self.fail(
                    f"{path}.footprint",
                    "must be a simple polygon (3 or more vertices, no self-intersection)",
                )
            polygon = Polygon(pts)
            if not polygon.intersects(table.area):
                self.fail(f"{path}.footprint", "lies entirely off the table")
            terrain.append(
                TerrainFeature(
                    id=piece["id"],
                    type=str(piece.get("type", "")),
                    footprint=polygon,
                    points=pts,
                    category=self._category(piece, system, path),
                    height=self.number(piece.get("height", 0), f"{path}.height", 0),
                    solid=bool(piece.get("solid", False)),
                    **self._parts(piece, polygon, path),
                )
            )

        armies = []
        army_docs = doc.get("armies", [])
        if len(army_docs) > LIMITS["armies"]:
            self.fail("armies", f"at most {LIMITS['armies']} armies")
        for i, a in enumerate(army_docs):
            self.where = f"armies[{i}]"
            self.unique(a.get("id"), f"armies[{i}].id")
            armies.append(Army(a["id"], str(a.get("name", a["id"]))))
        army_ids = {a.id for a in armies}

        units = []
        unit_docs = doc.get("units", [])
        if len(unit_docs) > LIMITS["units"]:
            self.fail("units", f"at most {LIMITS['units']} units")
        total_models = 0
        for i, u in enumerate(unit_docs):
            path = f"units[{i}]"
            self.where = path
            self.unique(u.get("id"), f"{path}.id")
            if u.get("army") not in army_ids:
                self.fail(f"{path}.army", f"no army with id {u.get('army')!r}")
            model_docs = u.get("models", [])
            if not model_docs:
                self.fail(f"{path}.models", "a unit needs at least one model")
            if len(model_docs) > LIMITS["models_per_unit"]:
                self.fail(f"{path}.models", f"at most {LIMITS['models_per_unit']} models in a unit")
            total_models += len(model_docs)
            if total_models > LIMITS["models"]:
                self.fail("units", f"at most {LIMITS['models']} models in a scenario")
            models = []
            unit_keywords = frozenset(k.upper() for k in u.get("keywords", []))
            for j, m in enumerate(model_docs):
                mpath = f"{path}.models[{j}]"
                self.where = mpath
                self.unique(m.get("id"), f"{mpath}.id")
                base_doc = m.get("base")
                if (
                    not isinstance(base_doc, Mapping)
                    or len(base_doc) != 1
                    or next(iter(base_doc)) not in ("round", "oval", "rect", "hull")
                ):
                    self.fail(f"{mpath}.base", "needs exactly one of round, oval, rect, hull")
                base = self._base(base_doc, mm, f"{mpath}.base")
                keywords = frozenset(str(k).upper() for k in m.get("keywords", []))
                self._allowed_base(system, unit_keywords | keywords, base_doc, f"{mpath}.base")
                model = Model(
                    id=m["id"],
                    unit=u["id"],
                    base=base,
                    x=self.number(m["x"], f"{mpath}.x"),
                    y=self.number(m["y"], f"{mpath}.y"),
                    z=self.number(m.get("z", 0), f"{mpath}.z", 0),
                    facing=self.number(m.get("facing", 0), f"{mpath}.facing"),
                    keywords=keywords,
                )
                if not on_table(model, table):
                    self.fail(mpath, f"model {model.id} is off the table")
                models.append(model)
            move = u.get("move")
            units.append(
                Unit(
                    id=u["id"],
                    army=u["army"],
                    name=str(u.get("name", u["id"])),
                    keywords=unit_keywords,
                    models=tuple(models),
                    move=None if move is None else self.number(move, f"{path}.move", 0),
                    state=MappingProxyType(dict(u.get("state", {}))),
                    abilities=tuple(MappingProxyType(dict(a)) for a in u.get("abilities", [])),
                )
            )

        self._check_joined(units, SYSTEMS[system].character_keywords)
        if self.check_overlaps:
            self._check_overlaps(units, unit_docs)

        turn_doc = doc.get("turn", {})
        if turn_doc.get("active_army") is not None and turn_doc["active_army"] not in army_ids:
            self.fail("turn.active_army", f"no army with id {turn_doc['active_army']!r}")
        turn = Turn(
            int(turn_doc.get("round", 1)), turn_doc.get("active_army"), turn_doc.get("phase")
        )
        zones, objectives = self._markers(doc, table, army_ids)
        return Situation(
            system=system,
            table=table,
            terrain=tuple(terrain),
            armies=tuple(armies),
            units=tuple(units),
            turn=turn,
            name=str(doc.get("name", "")),
            document=_copied(doc),
            deployment_zones=zones,
            objectives=objectives,
            source=MappingProxyType(dict(doc.get("source") or {})),
            odd_bases=tuple(self.odd_bases),
        )

    def _markers(
        self, doc: Mapping[str, Any], table: Table, army_ids: set[str]
    ) -> tuple[tuple[DeploymentZone, ...], tuple[Objective, ...]]:
        """Deployment zones and objective markers (FORMAT.md scenario markers, optional).
        They are markers, not terrain: nothing in the engine judges by them. Objective ids have
        their own namespace (an objective may share an id with a model)."""
        zones = []
        for i, z in enumerate(doc.get("deployment_zones", [])):
            path = f"deployment_zones[{i}]"
            self.where = path
            if z.get("army") not in army_ids:
                self.fail(f"{path}.army", f"no army with id {z.get('army')!r}")
            points = z["footprint"]
            if len(points) > LIMITS["vertices"]:
                self.fail(f"{path}.footprint", f"at most {LIMITS['vertices']} vertices")
            pts = tuple(
                (self.number(p[0], f"{path}.footprint"), self.number(p[1], f"{path}.footprint"))
                for p in points
            )
            if not is_simple_polygon(pts):
                self.fail(
                    f"{path}.footprint",
                    "must be a simple polygon (3 or more vertices, no self-intersection)",
                )
            polygon = Polygon(pts)
            if not polygon.intersects(table.area):
                self.fail(f"{path}.footprint", "lies entirely off the table")
            zones.append(DeploymentZone(z["army"], polygon, pts, str(z.get("name", ""))))
        objectives = []
        seen: set[str] = set()
        for i, o in enumerate(doc.get("objectives", [])):
            path = f"objectives[{i}]"
            self.where = path
            ident = o.get("id")
            if not isinstance(ident, str) or not ident:
                self.fail(f"{path}.id", "must be a non-empty string")
            if ident in seen:
                self.fail(f"{path}.id", f"objective id {ident!r} is used twice")
            seen.add(ident)
            x, y = self.number(o["x"], f"{path}.x"), self.number(o["y"], f"{path}.y")
            if not (0 <= x <= table.width and 0 <= y <= table.height):
                self.fail(path, f"objective {ident} is off the table")
            objectives.append(Objective(ident, x, y, str(o.get("name", ""))))
        return tuple(zones), tuple(objectives)

    def _points(self, points: object, path: str, minimum: int) -> tuple[tuple[float, float], ...]:
        if not isinstance(points, list) or len(points) > LIMITS["vertices"]:
            self.fail(path, f"must be a list of at most {LIMITS['vertices']} [x, y] points")
        if len(points) < minimum:
            self.fail(path, f"needs at least {minimum} points")
        return tuple((self.number(p[0], path), self.number(p[1], path)) for p in points)

    def _parts(self, piece: Mapping[str, Any], footprint: Polygon, path: str) -> dict[str, Any]:
        """RULES.md 1.5 / FORMAT.md: a feature's walls, floors and enclosed parts, each checked
        against the footprint (a part outside it, a negative height, enclosed parts that
        overlap are refused naming the field)."""
        parts: dict[str, Any] = {}
        # Parts on the footprint's edge may stray outside it by rounding (an editor turning a
        # feature stores 4 decimals): a thousandth of an inch is no part outside it.
        inside = footprint.buffer(1e-3, join_style="mitre")
        height = piece.get("height", 0)
        for name in ("walls", "floors", "enclosed"):
            items = piece.get(name)
            if items is None:
                continue
            if not isinstance(items, list) or len(items) > LIMITS["parts"]:
                self.fail(f"{path}.{name}", f"must be a list of at most {LIMITS['parts']} parts")
            out: list[Any] = []  # Walls, or Levels (floors, enclosed parts)
            for j, item in enumerate(items):
                where = f"{path}.{name}[{j}]"
                self.where = where
                if not isinstance(item, Mapping):
                    self.fail(where, "must be an object")
                h = self.number(item.get("height"), f"{where}.height", 0)
                if h > height + EPSILON:
                    self.fail(
                        f"{where}.height",
                        f"is {h:g}, taller than the feature's height {height:g} (its tallest part)",
                    )
                if name == "walls":
                    pts = self._points(item.get("path"), f"{where}.path", 2)
                    thickness = item.get("thickness", WALL_THICKNESS)
                    wall = Wall(pts, h, self.number(thickness, f"{where}.thickness", 0.01))
                    if LineString(pts).length <= EPSILON:
                        self.fail(f"{where}.path", "must have some length")
                    if not inside.buffer(wall.thickness / 2 + EPSILON).covers(LineString(pts)):
                        self.fail(f"{where}.path", "must lie inside the feature's footprint")
                    out.append(wall)
                    continue
                pts = self._points(item.get("footprint"), f"{where}.footprint", 3)
                if not is_simple_polygon(pts):
                    self.fail(
                        f"{where}.footprint",
                        "must be a simple polygon (3 or more vertices, no self-intersection)",
                    )
                polygon = Polygon(pts)
                if not inside.covers(polygon):
                    self.fail(f"{where}.footprint", "must lie inside the feature's footprint")
                if name == "floors" and h <= EPSILON:
                    self.fail(
                        f"{where}.height",
                        "must be above 0: the ground inside the footprint is already floor 0",
                    )
                if name == "enclosed":
                    for k, other in enumerate(out):
                        if polygon.intersection(other.footprint).area > EPSILON:
                            self.fail(
                                f"{where}.footprint", f"overlaps enclosed part {k} of this feature"
                            )
                out.append(Level(pts, h, polygon))
            parts[name] = tuple(out)
        return parts

    def _category(self, piece: Mapping[str, Any], system: str, path: str) -> str | None:
        """The piece's terrain name must be one the game's registry knows (RULES.md 1.5: a 40K
        category; 2.2: a Warmaster type), refused here, when the scenario is read."""
        described = SYSTEMS[system]
        name = described.terrain_field
        if described.terrain_kind(piece.get(name)) is None:
            raise described.unknown_terrain(piece.get(name), f"{path}.{name}")
        return piece.get("category")

    def _allowed_base(
        self, system: str, keywords: frozenset[str], base_doc: Mapping[str, Any], path: str
    ) -> None:
        """The base must be one the game allows (RULES.md 2.1: Warmaster's stands), refused
        here, when the scenario is read, like an unknown terrain name."""
        allowed = SYSTEMS[system].bases
        problem = allowed(keywords, base_doc) if allowed is not None else None
        if problem is not None:
            if not self.odd_bases_kept:
                self.fail(path, problem)
            self.odd_bases.append((path, problem))

    def _base(self, base_doc: Mapping[str, Any], mm: float, path: str) -> Base:
        kind, value = next(iter(base_doc.items()))
        if kind == "round" and type(value) in (int, float):
            found = self.round_bases.get(value)
            if found is None:
                self.number(value, f"{path}.round", 1)
                found = self.round_bases[value] = _shared_base(
                    Base.from_document(dict(base_doc), mm)
                )
            return found
        if kind == "round":
            self.number(value, f"{path}.round", 1)
        elif kind in ("oval", "rect"):
            if not isinstance(value, list) or len(value) != 2:
                self.fail(f"{path}.{kind}", "must be two numbers in mm")
            for v in value:
                self.number(v, f"{path}.{kind}", 1)
        else:
            if len(value) > LIMITS["vertices"]:
                self.fail(f"{path}.hull", f"at most {LIMITS['vertices']} vertices")
            points = [tuple(p) for p in value]
            if not is_simple_polygon(points) or not Polygon(points).contains(Point(0, 0)):
                self.fail(f"{path}.hull", "must be a simple polygon around the model's centre")
        return _shared_base(Base.from_document(dict(base_doc), mm))

    def _check_joined(self, units: list[Unit], characters: frozenset[str]) -> None:
        """Warmaster 2.8: a character joins a friendly unit, so `state.joined` must name another
        unit of the scenario, of the character's own army (a reference checked like
        `units[].army`), and not a character (one with a keyword of `characters`): characters
        are not units (2.9)."""
        by_id = {u.id: u for u in units}
        for i, u in enumerate(units):
            host_id = u.state.get("joined")
            if host_id is None:
                continue
            path = f"units[{i}].state.joined"
            host = by_id.get(host_id)
            if host is None:
                self.fail(path, f"no unit with id {host_id!r}")
            if host is u:
                self.fail(path, f"unit {u.id} cannot have joined itself")
            if host.army != u.army:
                self.fail(
                    path,
                    f"unit {host.id} is of army {host.army!r}, not {u.army!r}: a character joins "
                    "only a friendly unit (RULES.md 2.8)",
                )
            if host.keywords & characters:
                self.fail(
                    path,
                    f"unit {host.id} is a character: a character joins a unit, and characters "
                    "are not units (RULES.md 2.8, 2.9)",
                )

    def _check_overlaps(self, units: list[Unit], unit_docs: list[Mapping[str, Any]]) -> None:
        """No two models overlap at rest (at the same elevation); touching is fine. A unit
        marked `off_table` (Warmaster 2.9, "Leaving the table") is not on the table: its models
        keep the poses where it left, which another unit may have taken since."""
        on = [(i, u) for i, u in enumerate(units) if not u.flag("off_table")]
        models = [m for _, u in on for m in u.models]
        where = {m.id: f"units[{i}].models[{j}]" for i, u in on for j, m in enumerate(u.models)}
        if len(models) < 2:
            return
        _place_footprints(models)
        footprints = [m.footprint for m in models]
        tree = STRtree(footprints)
        # every pair whose boxes meet, in one query; only a table with an overlap goes on to
        # the loop below, which names the first pair as it always has
        first, second = tree.query(footprints)
        pairs = first < second
        if not any(
            abs(models[a].z - models[b].z) <= EPSILON and overlap_at_rest(models[a], models[b])
            for a, b in zip(first[pairs].tolist(), second[pairs].tolist(), strict=True)
        ):
            return
        for i, a in enumerate(models):
            for j in tree.query(a.footprint):
                if j <= i:
                    continue
                b = models[int(j)]
                if abs(a.z - b.z) > EPSILON:
                    continue
                if overlap_at_rest(a, b):
                    self.fail(where[b.id], f"model {b.id} overlaps model {a.id}")


def _place_footprints(models: list[Model]) -> None:
    """Each round model's footprint, built for all of them in one numpy step (the shared base's
    outline moved to each centre: the same coordinates `Base.footprint` gives, at a tenth of the
    cost for a 600-model scenario). Other bases keep building theirs when first asked."""
    by_base: dict[Base, list[Model]] = {}
    for m in models:
        if m.base.kind == "round" and "footprint" not in m.__dict__:
            by_base.setdefault(m.base, []).append(m)
    for base, group in by_base.items():
        outline = shapely.get_coordinates(base.footprint(0.0, 0.0).exterior)
        centres = np.array([(m.x, m.y) for m in group])
        rings = shapely.polygons(outline[None, :, :] + centres[:, None, :])
        for m, ring in zip(group, rings, strict=True):
            m.__dict__["footprint"] = ring  # what the cached_property would hold


def _copied(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a JSON document (dicts, lists and immutable scalars) that shares nothing with
    it: what `copy.deepcopy` gives such a tree, in a third of the time (no memo to keep)."""

    def copied(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: copied(v) for k, v in value.items()}
        if isinstance(value, list):
            return [copied(v) for v in value]
        if isinstance(value, tuple):
            return tuple(copied(v) for v in value)
        return value

    return {k: copied(v) for k, v in doc.items()}


@lru_cache(maxsize=1024)
def _shared_base(base: Base) -> Base:
    """One Base object per distinct base: its outline (a cached 64-gon) is then built once per
    base size, not once per model (600 models of one size: one outline, not 600)."""
    return base


def on_table(model: Model, table: Table) -> bool:
    """The whole base is on the table (touching the edge is fine). Round bases are judged by
    the true circle; curved polygons are allowed their CURVE_SLACK."""
    if model.base.kind == "round":
        r = model.base.radius - EPSILON
        return r <= model.x <= table.width - r and r <= model.y <= table.height - r
    slack = CURVE_SLACK if model.base.kind == "oval" else EPSILON
    return bool(table.area.buffer(slack, join_style="mitre").contains(model.footprint))


#: How much larger than the true curve a circumscribed polygon may be (64 sides, bases up to
#: 170 mm): 0.1 % of the radius, rounded up.
CURVE_SLACK = 0.005


def base_distance(a: Model, b: Model) -> float:
    """Shortest horizontal distance between two placed bases, 0 when they overlap (RULES.md 1.1;
    Warmaster 2.1 measures between stands the same way). A round base is measured from its true
    circle (distance to its centre minus the radius), and an oval from its true ellipse
    (`oval_distance`), not from the slightly larger polygons that stand for them, so "within D"
    is exact for them (RULES.md 0)."""
    if a.base.kind == "round" and b.base.kind == "round":
        return max(0.0, math.hypot(a.x - b.x, a.y - b.y) - a.base.radius - b.base.radius)
    if a.base.kind == "oval":
        return oval_distance(a.base, a.pos, b.base, b.pos, (a.footprint, b.footprint))
    if b.base.kind == "oval":
        return oval_distance(b.base, b.pos, a.base, a.pos, (b.footprint, a.footprint))
    if b.base.kind == "round":
        return max(0.0, float(a.footprint.distance(Point(b.x, b.y))) - b.base.radius)
    if a.base.kind == "round":
        return max(0.0, float(b.footprint.distance(Point(a.x, a.y))) - a.base.radius)
    return float(a.footprint.distance(b.footprint))


def overlap(a: Model, b: Model) -> bool:
    """True when two bases overlap by more than touching (RULES.md 0: touching is within 1e-6),
    measured on the true curves: a round base from its centre and radius, an oval from its
    ellipse, a rect or hull from its outline. (The polygons drawn round the curves are up to
    0.12 % too large and once stood for them here, shrunk by CURVE_SLACK, which let a round
    base end 0.008" inside a hull.)"""
    if a.base.kind == "round" and b.base.kind == "round":
        gap = math.hypot(a.x - b.x, a.y - b.y) - a.base.radius - b.base.radius
        return gap < -EPSILON
    # each model's own footprint, built once (a search tests one spot against many models);
    # the polygons hold the true shapes, so polygons apart are bases apart
    if a.footprint.distance(b.footprint) > 0:
        return False
    if b.base.kind == "round":
        a, b = b, a
    if a.base.kind == "round":
        if b.base.kind == "oval":
            gap = ellipse_segment_gap(b.base, b.pos, (a.x, a.y), (a.x, a.y))
        else:
            gap = float(b.footprint.distance(Point(a.x, a.y)))
        return gap < a.base.radius - EPSILON
    if a.base.kind == "oval" and b.base.kind == "oval":
        return ovals_overlap(a.base, a.pos, b.base, b.pos)
    if b.base.kind == "oval":
        a, b = b, a
    if a.base.kind == "oval":
        return polygon_enters_oval(a.base, a.pos, b.footprint.exterior.coords)
    return bool(a.footprint.intersection(b.footprint).area > EPSILON)


def overlap_at_rest(a: Model, b: Model) -> bool:
    """Reading a scenario: do two models overlap by more than the polygons drawn round their
    curves can tell (both shrunk by CURVE_SLACK)? More lenient than `overlap`, which judges a
    move's end exactly: tables stored when the move judge measured so still open."""
    if a.base.kind == "round" and b.base.kind == "round":
        return overlap(a, b)
    if a.footprint.distance(b.footprint) > 0:
        return False
    if {"round", "oval"} & {a.base.kind, b.base.kind}:
        return bool(a.footprint.buffer(-CURVE_SLACK).intersects(b.footprint.buffer(-CURVE_SLACK)))
    return bool(a.footprint.intersection(b.footprint).area > EPSILON)
