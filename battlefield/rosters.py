"""Army lists: read a roster export, show what it resolves to, put the units in a deployment zone.

`read_roster(text)` reads any format the wh40kdc package reads (New Recruit JSON and text, the
WTC texts, ListForge share JSON and text, the GW app's text, Rosterizer, 40kdc roster JSON) and
resolves each entry against the dataset's units (battlefield/dataset.py). Nothing is stored: the
page shows the preview, each unresolved entry with its closest candidates to pick from, and only
"Place these units" changes the scenario. A malformed file raises `InvalidInput` naming the line
(or the JSON field) that is wrong.

`place_units(doc, army, picks)` adds the picked units to the army, in its deployment zone (or its
half of the table when the scenario has no zone): each unit a block of rows (the editor's
`block_positions`, bases 0.5 in apart, so in coherency, 03.03), the blocks packed row by row
from the front of the zone, touching neither another model nor a terrain feature.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon, box
from shapely.ops import unary_union

from rules import InvalidInput
from rules.geometry import Base
from rules.situation import LIMITS
from rules.systems import SYSTEMS

from .dataset import CatalogueUnit, catalogue, dataset, package, source_record
from .editor import block_positions, fresh_id, tidy

#: Largest roster file read (a 3,000-point New Recruit JSON export is about 150 kB).
ROSTER_BYTES = 500_000

#: The importers' format ids, in words.
FORMATS = {
    "newrecruit-json": "New Recruit (JSON)",
    "newrecruit-simple": "New Recruit (text)",
    "newrecruit-wtc-compact": "New Recruit (WTC compact text)",
    "newrecruit-wtc-full": "New Recruit (WTC text)",
    "listforge": "ListForge (JSON)",
    "listforge-text": "ListForge (text)",
    "gw": "GW app (text)",
    "gw-headerless": "GW app or plain text list",
    "rosterizer": "Rosterizer",
    "roster-json": "40kdc roster (JSON)",
}

#: Gap between unit blocks in a deployment zone, in inches: clear of other units' coherency.
BLOCK_GAP = 0.5
#: The gap when the zone is too full for BLOCK_GAP (bases never touch: 0.1 in).
TIGHT_GAP = 0.1
#: Rows tried for a unit's block, in order: five abreast, then deeper or wider blocks where five
#: abreast finds no room.
ROW_LENGTHS = (5, 3, 10, 2, 4, 1)
#: Step of the search for a free spot, in inches.
STEP = 0.5


@dataclass
class Entry:
    """One unit line of a roster and what it resolved to."""

    index: int
    raw_name: str
    count: int
    points: int | None
    unit: CatalogueUnit | None
    candidates: list[CatalogueUnit] = field(default_factory=list)

    @property
    def models(self) -> int:
        return self.unit.count(self.count) if self.unit else self.count


@dataclass
class RosterPreview:
    format: str
    name: str
    faction: str
    points: int | None
    entries: list[Entry]
    warnings: list[str]

    @property
    def resolved(self) -> list[Entry]:
        return [e for e in self.entries if e.unit is not None]

    @property
    def unresolved(self) -> list[Entry]:
        return [e for e in self.entries if e.unit is None]


def _decode(text: str):
    """The payload the importers take: parsed JSON for a JSON export, else the text itself.
    Bad JSON is refused naming its line and column."""
    trimmed = text.strip()
    if not trimmed:
        raise InvalidInput("list", "the list is empty: paste an export or choose a file")
    if trimmed[0] in "{[":
        try:
            return json.loads(trimmed)
        except json.JSONDecodeError as exc:
            raise InvalidInput(
                f"line {exc.lineno}",
                f"line {exc.lineno}, column {exc.colno}: this JSON export is broken ({exc.msg})",
            ) from None
    return text


def _first_line(text: str) -> tuple[int, str]:
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            return number, line.strip()
    return 1, ""


def read_roster(text: str) -> RosterPreview:
    """Read a roster export and resolve it (nothing stored); InvalidInput when malformed."""
    if len(text.encode("utf-8", "surrogatepass")) > ROSTER_BYTES:
        raise InvalidInput("list", f"a list may be at most {ROSTER_BYTES:,} bytes")
    importers = package().imports
    decoded = _decode(text)
    adapter = next((a for a in importers.ADAPTERS if a.matches(decoded)), None)
    if adapter is None:
        if isinstance(decoded, (dict, list)):
            where = "roster.forces" if isinstance(decoded, dict) else "(top level)"
            raise InvalidInput(
                where,
                f"{where}: this JSON is not a roster export Arbiter reads (New Recruit or "
                "ListForge JSON have a roster with its forces)",
            )
        number, line = _first_line(text)
        raise InvalidInput(
            f"line {number}",
            f"line {number} (“{line[:60]}”) does not begin a list export Arbiter reads: New "
            "Recruit, ListForge or the GW app (paste the whole export, headers included)",
        )
    try:
        parsed = adapter.parse(decoded)
        roster = importers.resolve(parsed, dataset(), adapter.id)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidInput(
            "list", f"{FORMATS.get(adapter.id, adapter.id)}: this export is malformed ({exc})"
        ) from None
    units = roster.get("units") or []
    if not units:
        raise InvalidInput(
            "list",
            f"{FORMATS.get(adapter.id, adapter.id)}: no units found in this list; is it the "
            "whole export?",
        )
    return _preview(roster, adapter.id)


def _preview(roster: dict, format_id: str) -> RosterPreview:
    cat = catalogue()
    faction = roster.get("faction_id") or ""
    entries = []
    for i, unit in enumerate(roster["units"]):
        ref = unit.get("ref") or {}
        raw_name = str(ref.get("raw_name") or "").strip() or "(no name)"
        count = max(1, int(unit.get("model_count") or 1))
        found = None
        if ref.get("id"):
            found = cat.by_key.get(f"{faction}/{ref['id']}") or next(
                (u for u in cat.units if u.id == ref["id"]), None
            )
        candidates = [] if found else cat.closest(raw_name, faction)
        entries.append(Entry(i, raw_name, count, unit.get("points"), found, candidates))
    faction_name = next((name for fid, name in cat.factions if fid == faction), faction)
    points = (roster.get("points") or {}).get("total_reported")
    warnings = [
        w.get("message", "") + (f" ({w['raw_name']})" if w.get("raw_name") else "")
        for w in (roster.get("diagnostics") or {}).get("warnings", [])
        if w.get("code") not in ("battle-size-unmapped", "weapon-unresolved")
    ]
    return RosterPreview(
        FORMATS.get(format_id, format_id),
        str(roster.get("name") or ""),
        faction_name,
        points,
        entries,
        warnings,
    )


# -- placing ----------------------------------------------------------------------------------


def army_area(doc: dict, army: str) -> Polygon:
    """Where an army sets up: its deployment zones, or without any its half of the table (the
    first army the top half, the others the bottom)."""
    zones = [Polygon(z["footprint"]) for z in doc.get("deployment_zones", []) if z["army"] == army]
    table = box(0, 0, doc["table"]["width"], doc["table"]["height"])
    if zones:
        return unary_union([z.buffer(0) for z in zones]).intersection(table)
    w, h = doc["table"]["width"], doc["table"]["height"]
    first = [a["id"] for a in doc["armies"]].index(army) == 0
    return box(0, 0, w, h / 2) if first else box(0, h / 2, w, h)


def _facing(area: Polygon, doc: dict) -> float:
    """Towards the middle of the table, to the nearest quarter turn (where the enemy is)."""
    c = area.centroid
    dx, dy = doc["table"]["width"] / 2 - c.x, doc["table"]["height"] / 2 - c.y
    if abs(dx) < 1e-9 and abs(dy) < 1e-9:
        return 0.0
    return (round(math.degrees(math.atan2(dy, dx)) / 90) * 90) % 360


class NoRoom(InvalidInput):
    pass


def place_units(doc: dict, army: str, picks: list[tuple[CatalogueUnit, int | None]]) -> list[str]:
    """Add the picked units (catalogue unit, model count) to `army` in its zone; returns the new
    unit ids. Raises NoRoom naming the first unit that does not fit (nothing is kept then: the
    caller works on a copy)."""
    if army not in {a["id"] for a in doc.get("armies", [])}:
        raise InvalidInput("army", "choose one of the table's armies")
    if len(doc.get("units", [])) + len(picks) > LIMITS["units"]:
        raise InvalidInput("units", f"a scenario holds at most {LIMITS['units']} units")
    mm = SYSTEMS[doc["system"]].mm_per_unit
    area = army_area(doc, army)
    facing = _facing(area, doc)
    shapely.prepare(area)
    blocked = _blocked(doc)
    if blocked is not None:
        shapely.prepare(blocked)
    taken: list = []  # bounds of the models already down
    for unit in doc.get("units", []):
        for m in unit["models"]:
            x0, y0, x1, y1 = _bounds(m["base"], m.get("facing", 0), mm)
            taken.append((x0 + m["x"], y0 + m["y"], x1 + m["x"], y1 + m["y"]))
    cx, cy = _spots(area, facing)

    # The biggest blocks first: they need the widest free space, the small ones fill the gaps.
    order = sorted(range(len(picks)), key=lambda i: -_block_area(picks[i], facing, mm))
    placed: dict[int, dict] = {}
    for index in order:
        cu, wanted = picks[index]
        unit_id = fresh_id(doc, _stem(cu.name))
        unit_doc = cu.document(unit_id, army, wanted)
        bases = [m["base"] for m in unit_doc["models"]]
        biggest = max(bases, key=lambda b: _size(_bounds(b, facing, mm)))
        spot = None
        for gap in (BLOCK_GAP, TIGHT_GAP):  # blocks a little apart, or nearly touching if full
            for per_row in ROW_LENGTHS:
                offsets = block_positions(
                    biggest, len(bases), 0.0, 0.0, facing, doc["system"], per_row=per_row
                )
                bounds = [
                    _moved(_bounds(b, facing, mm), ox, oy)
                    for b, (ox, oy) in zip(bases, offsets, strict=True)
                ]
                spot = _first_free(bounds, cx, cy, area, blocked, taken, gap)
                if spot is not None or per_row >= len(bases):
                    break
            if spot is not None:
                break
        if spot is None:
            raise NoRoom(
                "army",
                f"there is no room left for {cu.name} ({len(bases)} models) in the deployment "
                "zone; place fewer units, or add it by hand",
            )
        for model, (ox, oy), b in zip(unit_doc["models"], offsets, bounds, strict=True):
            model["x"], model["y"] = tidy(spot[0] + ox), tidy(spot[1] + oy)
            if facing:
                model["facing"] = tidy(facing)
            taken.append((b[0] + spot[0], b[1] + spot[1], b[2] + spot[0], b[3] + spot[1]))
        doc.setdefault("units", []).append(unit_doc)
        placed[index] = unit_doc
    # The units are listed in the roster's order, whatever order they were put down in.
    new = [placed[i] for i in range(len(picks))]
    doc["units"] = [u for u in doc["units"] if all(u is not n for n in new)] + new
    added = [u["id"] for u in new]
    _note_dataslates(doc, [cu for cu, _ in picks])
    return added


def _moved(b: tuple, dx: float, dy: float) -> tuple[float, float, float, float]:
    return (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)


def _first_free(bounds, cx, cy, area, blocked, taken, gap) -> tuple[float, float] | None:
    """The first candidate centre where a block (model bounds about the centre) is inside the
    zone, clear of terrain and clear of the models already down by `gap`. Cheap tests on
    every candidate at once (numpy) first, then the exact shapely tests, in order, on the few
    that pass."""
    bx0, by0 = min(b[0] for b in bounds), min(b[1] for b in bounds)
    bx1, by1 = max(b[2] for b in bounds), max(b[3] for b in bounds)
    zx0, zy0, zx1, zy1 = area.bounds
    free = (cx + bx0 >= zx0) & (cx + bx1 <= zx1) & (cy + by0 >= zy0) & (cy + by1 <= zy1)
    if taken:
        t = np.asarray(taken)
        clash = (
            ((cx + bx0)[:, None] < t[:, 2] + gap)
            & ((cx + bx1)[:, None] > t[:, 0] - gap)
            & ((cy + by0)[:, None] < t[:, 3] + gap)
            & ((cy + by1)[:, None] > t[:, 1] - gap)
        ).any(axis=1)
        free &= ~clash
    remaining = np.flatnonzero(free)
    for chunk in range(0, len(remaining), 256):
        pick = remaining[chunk : chunk + 256]
        boxes = shapely.box(cx[pick] + bx0, cy[pick] + by0, cx[pick] + bx1, cy[pick] + by1)
        ok = shapely.contains(area, boxes)
        if blocked is not None:
            ok &= ~shapely.intersects(blocked, boxes)
        if ok.any():
            first = int(pick[int(np.argmax(ok))])
            return float(cx[first]), float(cy[first])
    return None


def _blocked(doc: dict):
    """Where a unit is not set up: a feature's walls (RULES.md 1.5), a solid feature, and the
    whole footprint of a feature of the old shape (a block of its height, FORMAT.md) that is not
    open ground. Inside a ruin with walls the ground is floor 0, open to models."""
    parts = []
    for t in doc.get("terrain", []):
        if t.get("walls") or t.get("floors"):
            for wall in t.get("walls", []):
                half = wall.get("thickness", 0.25) / 2
                parts.append(LineString(wall["path"]).buffer(half + 0.05))
            for part in t.get("enclosed", []):
                parts.append(Polygon(part["footprint"]).buffer(0))
            if t.get("solid"):
                parts.append(Polygon(t["footprint"]).buffer(0))
        elif t.get("solid") or t.get("category") != "exposed":
            parts.append(Polygon(t["footprint"]).buffer(0))
    if not parts:
        return None
    return unary_union(parts)


def _spots(area: Polygon, facing: float):
    """Candidate block centres over the zone, STEP apart, in the order they are tried: the front
    row (towards the enemy) first, each row from one end to the other (the blocks pack tightly,
    as in a bottom-left fill)."""
    minx, miny, maxx, maxy = area.bounds
    grid_x, grid_y = np.meshgrid(
        np.arange(minx, maxx + 1e-9, STEP), np.arange(miny, maxy + 1e-9, STEP)
    )
    xs, ys = grid_x.ravel(), grid_y.ravel()
    ux, uy = math.cos(math.radians(facing)), math.sin(math.radians(facing))
    mx, my = (minx + maxx) / 2, (miny + maxy) / 2
    ahead = np.round(((xs - mx) * ux + (ys - my) * uy) / STEP)
    side = np.round(((xs - mx) * -uy + (ys - my) * ux) / STEP)
    order = np.lexsort((side, -ahead))
    return xs[order], ys[order]


def _block_area(pick: tuple[CatalogueUnit, int | None], facing: float, mm: float) -> float:
    cu, wanted = pick
    return sum(_size(_bounds(b, facing, mm)) ** 2 for b in cu.bases(cu.count(wanted)))


def _size(bounds: tuple[float, float, float, float]) -> float:
    return max(bounds[2] - bounds[0], bounds[3] - bounds[1])


@lru_cache(maxsize=512)
def _bounds_of(base_json: str, facing: float, mm: float) -> tuple[float, float, float, float]:
    shape = Base.from_document(json.loads(base_json), mm)
    if shape.kind == "round":  # exact (the footprint polygon is a little bigger)
        return (-shape.radius, -shape.radius, shape.radius, shape.radius)
    return shape.footprint(0, 0, facing).bounds


def _bounds(base: dict, facing: float, mm: float) -> tuple[float, float, float, float]:
    """A base's bounding box about its centre, turned to `facing` (table units)."""
    return _bounds_of(json.dumps(base, sort_keys=True), float(facing) % 360, mm)


def _stem(name: str) -> str:
    return "".join(w[0] for w in re.findall(r"[A-Za-z0-9]+", name))[:6].upper() or "U"


def _note_dataslates(doc: dict, units: list[CatalogueUnit]) -> None:
    """Record in the scenario's `source` the dataset and the dataslates its units came from."""
    slates = {u.dataslate for u in units if u.dataslate}
    if not units:
        return
    source = {**source_record(), **doc.get("source", {})}
    source["version"] = source_record()["version"]
    source["unit_dataslates"] = sorted({*source.get("unit_dataslates", []), *slates})[:20]
    doc["source"] = source
