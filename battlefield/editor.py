"""The scenario editor and the ruler (issue 6).

The editor works on the table itself (templates/battlefield/editor.html, static/js/table.js):
terrain from presets (dragged, or moved and turned in its form), units from the catalogue or by
hand, models dragged or placed without dragging, unit state, army names, the turn, undo and
redo. Each edit is a small pure function from the stored document
to a new one (below); `Scenario.apply_edit` then checks the result with the one validator, checks
the version the page was showing (StaleScenario -> 409), saves it and records it for undo
(`ScenarioEdit`: the documents before and after each edit; undo and redo are saves as well, so
the version always moves on and every page knows it is stale).

Answers: success is the `workspace` partial for htmx (the whole editing area, so every form
carries the new version) or a redirect to the editor; an invalid edit is 422 with the `error`
partial naming the problem (nothing stored); a stale version is 409 with the `stale` partial,
which offers to reload. For htmx both are retargeted to the message area (HX-Retarget), since
htmx 4 swaps error responses too.

The ruler (`ruler`, `share_ruler`) measures on the server with the engine's own geometry so the
figure is the one the engine would use: edge to edge between models (RULES.md 1.1), to the edge of
a model from a point, centre to centre between points.
"""

from __future__ import annotations

import copy
import math
import re
from typing import Any

import shapely
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from shapely import affinity
from shapely.geometry import MultiPoint, Point, Polygon
from shapely.ops import nearest_points, unary_union

from rules import InvalidInput
from rules.geometry import EPSILON, Base, fmt, footprint_distance, point_footprint_distance
from rules.naming import named, naming
from rules.situation import LIMITS, Situation
from rules.systems import SYSTEMS

from . import permissions, ratelimit
from .catalogues import editor_extras
from .games import game
from .models import Scenario, ScenarioEdit, StaleScenario, UnitProfile
from .pagecache import situation_of
from .permissions import editable_scenario
from .pictures import table_svg
from .views import page

TEMPLATE = "battlefield/editor.html"
#: Overlap (square units) below which two footprints only touch (round bases are polygons).
AREA_TOLERANCE = 1e-6

# -- presets ---------------------------------------------------------------------------------


#: The parts of a 40K terrain feature that move with it (FORMAT.md `walls`, `floors`, `enclosed`).
PART_FIELDS = {"walls": "path", "floors": "footprint", "enclosed": "footprint"}


def offered_flags(system: str) -> list[tuple[str, str]]:
    """The state flags the editor offers as tick boxes (FORMAT.md `units[].state`): (name,
    label) from the game's registry."""
    return [(f.name, f.label) for f in SYSTEMS[system].state_flags if f.offers]


BASE_KINDS = ("round", "oval", "rect")

# -- reading form input ----------------------------------------------------------------------


def number(data, name: str, *, default=None, minimum=None, maximum=None, label=None) -> float:
    """A finite number from form input, or InvalidInput naming the field in plain words."""
    raw = str(data.get(name, "")).strip()
    what = label or name.replace("_", " ")
    if raw == "":
        if default is not None:
            return default
        raise InvalidInput(name, f"{what} is missing")
    try:
        value = float(raw)
    except ValueError:
        raise InvalidInput(name, f"{what} must be a number, not “{raw[:40]}”") from None
    if not math.isfinite(value):
        raise InvalidInput(name, f"{what} must be a finite number")
    if minimum is not None and value < minimum:
        raise InvalidInput(name, f"{what} must be at least {minimum:g}")
    if maximum is not None and value > maximum:
        raise InvalidInput(name, f"{what} must be at most {maximum:g}")
    return value


def tidy(value: float) -> float | int:
    rounded = round(float(value), 4) + 0.0
    return int(rounded) if rounded == int(rounded) else rounded


def _all_ids(doc: dict) -> set[str]:
    ids = {t.get("id") for t in doc.get("terrain", [])}
    ids |= {a.get("id") for a in doc.get("armies", [])}
    for u in doc.get("units", []):
        ids.add(u.get("id"))
        ids |= {m.get("id") for m in u.get("models", [])}
    return ids


def fresh_id(doc: dict, stem: str) -> str:
    """An id not used anywhere in the document, from `stem` (ids share one namespace)."""
    stem = re.sub(r"[^A-Za-z0-9_.:-]+", "-", stem).strip("-.:_")[:30] or "x"
    if not stem[0].isalnum():
        stem = "x" + stem
    used = _all_ids(doc)
    for n in range(1, 10_000):
        candidate = f"{stem}-{n}"
        if candidate not in used:
            return candidate
    raise InvalidInput("", "too many ids in use")


def _find(items: list[dict], ident: str, what: str) -> dict:
    for item in items:
        if item.get("id") == ident:
            return item
    raise InvalidInput("id", f"there is no {what} {ident!r} on this table")


# -- edits: document -> document -------------------------------------------------------------


def add_terrain(doc: dict, preset: str, x: float, y: float, rotation: float = 0.0) -> str:
    """Put a terrain piece from a preset with its centre at (x, y), turned `rotation` degrees."""
    presets = game(doc["system"]).PRESETS
    if preset not in presets:
        raise InvalidInput("preset", f"choose a terrain preset ({', '.join(presets)})")
    spec = presets[preset]
    piece = {"id": fresh_id(doc, spec["type"]), "type": spec["type"]}
    for key in ("category", "height", "solid"):
        if key in spec:
            piece[key] = spec[key]
    piece["footprint"] = spec["footprint"]
    for name in PART_FIELDS:
        if name in spec:
            piece[name] = [dict(part) for part in spec[name]]
    _turn_and_shift(piece, (0.0, 0.0), rotation, x, y)
    doc.setdefault("terrain", []).append(piece)
    return piece["id"]


def _turn_and_shift(piece: dict, origin, angle: float, dx: float, dy: float) -> None:
    """Turn a piece `angle` degrees about `origin`, then shift it by (dx, dy): its footprint and
    its walls, floors and enclosed parts together (RULES.md 1.5), so they stay inside it."""

    def moved(points):
        coords = [(float(px), float(py)) for px, py in points]
        turned = affinity.rotate(MultiPoint(coords), angle, origin=origin)
        return [[tidy(p.x + dx), tidy(p.y + dy)] for p in turned.geoms]

    piece["footprint"] = moved(piece["footprint"])
    for name, key in PART_FIELDS.items():
        for part in piece.get(name, []):
            part[key] = moved(part[key])


def terrain_centre(piece: dict) -> tuple[float, float]:
    """The centre of a piece's bounding box: where a preset was put, whatever its shape."""
    minx, miny, maxx, maxy = Polygon(piece["footprint"]).bounds
    return (minx + maxx) / 2, (miny + maxy) / 2


def move_terrain(doc: dict, terrain_id: str, x: float, y: float, rotate_by: float = 0.0) -> None:
    """Move a terrain piece so its centre is at (x, y), turning it `rotate_by` degrees."""
    piece = _find(doc.get("terrain", []), terrain_id, "terrain piece")
    cx, cy = terrain_centre(piece)
    _turn_and_shift(piece, (cx, cy), rotate_by, x - cx, y - cy)


#: What can be drawn point by point (#12 item 5): a new feature's footprint, or a wall or an
#: upper floor of a feature already on the table (RULES.md 1.5), with the fewest points each
#: needs.
DRAWN_PARTS = {"footprint": 3, "wall": 2, "floor": 3}
#: A wall's thickness when none is typed (FORMAT.md `walls[].thickness`, inches).
WALL_THICKNESS = 0.25


def parse_points(text: str, field: str = "points") -> list[list[float]]:
    """Points typed or clicked as "x,y x,y ..." (spaces, semicolons or new lines between
    points), each a finite number; InvalidInput naming the field otherwise."""
    points = []
    for i, item in enumerate(p for p in re.split(r"[\s;]+", text.strip()) if p):
        parts = item.split(",")
        if len(parts) != 2:
            raise InvalidInput(field, f"point {i + 1} (“{item[:30]}”) must be x,y")
        pair = {"x": parts[0], "y": parts[1]}
        points.append(
            [
                tidy(number(pair, "x", label=f"point {i + 1} x")),
                tidy(number(pair, "y", label=f"point {i + 1} y")),
            ]
        )
    return points


def draw_terrain(doc: dict, part: str, points: list[list[float]], **fields) -> str:
    """Add what was drawn: a new feature with `points` as its footprint (fields: type,
    category, height), or a wall (height, thickness) or floor (height) of the feature
    `fields["feature"]`. The document's validator then checks the result (a floor outside
    its footprint or a negative height is refused naming the field). Returns the history label."""
    if part not in DRAWN_PARTS:
        raise InvalidInput("part", f"choose what to draw ({', '.join(DRAWN_PARTS)})")
    if len(points) < DRAWN_PARTS[part]:
        raise InvalidInput("points", f"a {part} needs at least {DRAWN_PARTS[part]} points")
    if part == "footprint":
        kind = str(fields.get("type") or "").strip()
        if not kind:
            raise InvalidInput("type", "say what the terrain is (its type)")
        piece: dict = {"id": fresh_id(doc, kind), "type": kind, "footprint": points}
        if fields.get("category"):
            piece["category"] = fields["category"]
        if fields.get("height") is not None:
            piece["height"] = tidy(fields["height"])
        doc.setdefault("terrain", []).append(piece)
        return f"Drew terrain {piece['id']}"
    piece = _find(doc.get("terrain", []), str(fields.get("feature", "")), "terrain piece")
    height = tidy(fields.get("height") or 0.0)
    # A feature is as tall as its tallest part (FORMAT.md: no part above `height`).
    piece["height"] = tidy(max(float(piece.get("height", 0) or 0), height))
    if part == "wall":
        wall = {"path": points, "height": height}
        wall["thickness"] = tidy(fields.get("thickness") or WALL_THICKNESS)
        piece.setdefault("walls", []).append(wall)
        return f"Drew a wall of {piece['id']}"
    piece.setdefault("floors", []).append({"footprint": points, "height": height})
    return f"Drew a floor of {piece['id']}"


def delete_terrain(doc: dict, terrain_id: str) -> None:
    piece = _find(doc.get("terrain", []), terrain_id, "terrain piece")
    doc["terrain"].remove(piece)


def block_positions(
    base: dict, count: int, x: float, y: float, facing: float, system: str, per_row: int = 5
):
    """`count` centres in a tidy block centred on (x, y): rows of up to `per_row` (five), the
    bases a little apart (40K: 0.5 in, well inside coherency's 2 in, 03.03) or touching
    (Warmaster stands form a block side by side)."""
    mm = SYSTEMS[system].mm_per_unit
    shape = Base.from_document(base, mm)
    if shape.kind == "round":  # exact: the footprint polygon is a little bigger (circumscribed)
        minx = miny = -shape.radius
        maxx = maxy = shape.radius
    else:
        minx, miny, maxx, maxy = shape.footprint(0, 0, facing).bounds
    gap = game(system).BLOCK_GAP
    step_x, step_y = (maxx - minx) + gap, (maxy - miny) + gap
    per_row = max(1, min(count, per_row))
    rows = math.ceil(count / per_row)
    positions = []
    for i in range(count):
        row, col = divmod(i, per_row)
        in_row = min(per_row, count - row * per_row)
        px = x + (col - (in_row - 1) / 2) * step_x
        py = y + (row - (rows - 1) / 2) * step_y
        positions.append((tidy(px), tidy(py)))
    return positions


def add_unit(
    doc: dict,
    *,
    army: str,
    name: str,
    keywords,
    move,
    base: dict,
    count: int,
    x: float,
    y: float,
    facing: float = 0.0,
    abilities=(),
) -> str:
    """A unit of `count` models with the same base, in a tidy block centred at (x, y)."""
    if army not in {a["id"] for a in doc.get("armies", [])}:
        raise InvalidInput("army", "choose one of the table's armies")
    if not 1 <= count <= LIMITS["models_per_unit"]:
        raise InvalidInput("count", f"a unit has 1 to {LIMITS['models_per_unit']} models")
    name = name.strip() or "Unit"
    stem = "".join(w[0] for w in re.findall(r"[A-Za-z0-9]+", name))[:6].upper() or "U"
    unit_id = fresh_id(doc, stem)
    unit: dict[str, Any] = {
        "id": unit_id,
        "army": army,
        "name": name[:100],
        "keywords": sorted({k.strip().upper() for k in keywords if k.strip()}),
    }
    if move is not None:
        unit["move"] = tidy(move)
    if abilities:
        unit["abilities"] = copy.deepcopy(list(abilities))
    positions = block_positions(base, count, x, y, facing, doc["system"])
    positions = free_spot(doc, base, positions, facing)
    models = []
    for i, (px, py) in enumerate(positions, 1):
        model = {"id": f"{unit_id}.{i}", "base": copy.deepcopy(base), "x": px, "y": py}
        if facing:
            model["facing"] = tidy(facing)
        models.append(model)
    unit["models"] = models
    doc.setdefault("units", []).append(unit)
    return unit_id


#: How far the editor looks for room for a new unit, in steps of half its block's spacing.
FREE_SPOT_RINGS = 120
#: Directions tried on each ring around the chosen spot.
FREE_SPOT_DIRECTIONS = 16


def free_spot(doc: dict, base: dict, positions: list, facing: float) -> list:
    """Issue 13: a unit added where something already stands goes to the nearest spot where
    its block fits: on the table and clear of every model standing on the ground (touching is
    fine in Warmaster, 40K keeps the block's own gap), searched on rings around the chosen spot.
    The positions as given when they fit; InvalidInput saying what to do when nothing near
    does."""
    system = SYSTEMS[doc["system"]]
    shape = Base.from_document(base, system.mm_per_unit)
    gap = game(doc["system"]).BLOCK_GAP
    table = doc["table"]
    standing = [
        Base.from_document(m["base"], system.mm_per_unit).footprint(
            m["x"], m["y"], m.get("facing", 0)
        )
        for u in doc.get("units", [])
        for m in u["models"]
        if abs(float(m.get("z", 0) or 0)) <= EPSILON
    ]
    blocked = unary_union(standing).buffer(gap) if standing else None
    if blocked is not None:
        shapely.prepare(blocked)  # many candidates are tested against it
    block = unary_union([shape.footprint(px, py, facing) for px, py in positions])
    minx, miny, maxx, maxy = block.bounds
    if shape.kind == "round":  # the true circles: the polygons are a little bigger
        slack = shape.footprint(0, 0).bounds[2] - shape.radius
        minx, miny, maxx, maxy = minx + slack, miny + slack, maxx - slack, maxy - slack

    def fits(dx: float, dy: float) -> bool:
        inside = (
            minx + dx >= -EPSILON
            and miny + dy >= -EPSILON
            and maxx + dx <= table["width"] + EPSILON
            and maxy + dy <= table["height"] + EPSILON
        )
        if not inside or blocked is None:
            return inside
        moved = affinity.translate(block, dx, dy)
        return (
            not blocked.intersects(moved)
            or blocked.intersection(moved).area <= AREA_TOLERANCE  # touching only
        )

    if fits(0.0, 0.0):
        return positions
    step = max(min(maxx - minx, maxy - miny) / 2, gap, 0.25)
    for ring in range(1, FREE_SPOT_RINGS + 1):
        for k in range(FREE_SPOT_DIRECTIONS):
            angle = 2 * math.pi * k / FREE_SPOT_DIRECTIONS
            dx, dy = ring * step * math.cos(angle), ring * step * math.sin(angle)
            if fits(dx, dy):
                return [(tidy(px + dx), tidy(py + dy)) for px, py in positions]
    raise InvalidInput(
        "",  # not one field's fault: the words say what to do
        f"there is no room for {len(positions)} models near there: tap an open part of the "
        "table, or use fewer models",
    )


def delete_unit(doc: dict, unit_id: str) -> None:
    unit = _find(doc.get("units", []), unit_id, "unit")
    doc["units"].remove(unit)
    # Warmaster 2.8: a character whose unit is gone has joined nothing (`joined` must name a unit)
    for other in doc["units"]:
        state = other.get("state", {})
        if state.get("joined") == unit_id:
            del state["joined"]
            if not state:
                other.pop("state")


# -- casualties (issue 13 item 4): single models off the table and back -----------------------

#: How a casualty's removal is labelled in the editor's history (where restoring finds it).
CASUALTY = "Casualty: "


def casualties(scenario: Scenario, unit_id: str) -> list[dict]:
    """The models of a unit removed as casualties (`remove_casualty`) and not back on the table,
    newest first, as their documents: read from the edit history, which keeps the document from
    before each removal (its last ScenarioEdit.HISTORY edits)."""
    return all_casualties(scenario).get(unit_id, [])


def all_casualties(scenario: Scenario) -> dict[str, list[dict]]:
    """`casualties` of every unit at once ({unit id: models}), in one reading of the history."""
    on_table = {m["id"] for u in scenario.document.get("units", ()) for m in u["models"]}
    found: dict[str, dict[str, dict]] = {}
    for edit in scenario.edits.filter(label__startswith=CASUALTY, undone=False).order_by("-seq"):
        after = {m["id"] for u in edit.after.get("units", ()) for m in u["models"]}
        for unit in edit.before.get("units", ()):
            for model in unit["models"]:
                if model["id"] not in on_table and model["id"] not in after:
                    found.setdefault(unit["id"], {}).setdefault(model["id"], model)
    return {unit_id: list(models.values()) for unit_id, models in found.items()}


def unit_holding(document: dict, model_id: str) -> dict:
    for unit in document.get("units", ()):
        if any(m["id"] == model_id for m in unit["models"]):
            return unit
    raise InvalidInput("remove", f"there is no model {model_id!r} on this table")


def remove_casualty(document: dict, model_id: str) -> str:
    """Take one model off the table (a casualty); a unit keeps at least one model (a unit that
    is wiped out is deleted in the editor)."""
    unit = unit_holding(document, model_id)
    name = unit.get("name") or unit["id"]
    if len(unit["models"]) == 1:
        raise InvalidInput(
            "remove",
            f"{model_id} is the last model of {name}: delete the unit in the editor instead",
        )
    unit["models"] = [m for m in unit["models"] if m["id"] != model_id]
    return f"{CASUALTY}{model_id} of {name} removed"


def restore_casualty(document: dict, scenario: Scenario, model_id: str) -> str:
    """Put a casualty back where it was removed, in its unit."""
    for unit in document.get("units", ()):
        model = next((m for m in casualties(scenario, unit["id"]) if m["id"] == model_id), None)
        if model is not None:
            unit["models"].append(copy.deepcopy(model))
            return f"Restored {model_id} to {unit.get('name') or unit['id']}"
    raise InvalidInput("restore", f"{model_id} is not a casualty that can be put back")


def set_unit_state(doc: dict, unit_id: str, flags: dict[str, bool]) -> None:
    """Set the editor's state flags of a unit (missing flags are false, FORMAT.md)."""
    unit = _find(doc.get("units", []), unit_id, "unit")
    state = {k: v for k, v in unit.get("state", {}).items() if k not in flags}
    state.update({k: True for k, v in flags.items() if v})
    if state:
        unit["state"] = state
    else:
        unit.pop("state", None)


def set_turn(doc: dict, round_: int, active_army: str, phase: str) -> None:
    """The battle round, the player whose turn it is and the phase (FORMAT.md `turn`): move
    types are only open in their phase, so the stepper reads this."""
    if active_army not in {a["id"] for a in doc.get("armies", [])}:
        raise InvalidInput("active_army", "choose one of the table's armies")
    phases = SYSTEMS[doc["system"]].phases
    if phase and phase not in phases:
        raise InvalidInput("phase", f"choose a phase ({', '.join(phases)})")
    turn = {"round": round_, "active_army": active_army}
    if phase:
        turn["phase"] = phase
    before = doc.get("turn", {})
    new_turn = (before.get("round"), before.get("active_army")) != (round_, active_army)
    if new_turn or before.get("phase") != turn.get("phase"):
        # What a unit did "this phase" (or "this turn") is over once the phase (turn) is: clear
        # those flags so the engine's once-per-phase checks judge the new phase afresh.
        system = SYSTEMS[doc["system"]]
        stale = system.flags_cleared(new_turn=new_turn)
        # a side's Command phase has ended: what lasts until then (confusion) ends for its units
        ending = before.get("phase") == "command"
        own = system.flags_cleared(new_turn=new_turn, own_command_over=True) if ending else stale
        for unit in doc.get("units", []):
            mine = ending and unit.get("army") == before.get("active_army")
            for flag in own if mine else stale:
                unit.get("state", {}).pop(flag, None)
    doc["turn"] = turn


def name_armies(doc: dict, names: dict[str, str]) -> None:
    """Give the armies new names ({army id: name}); ids stay, so units keep their army."""
    for army in doc.get("armies", []):
        name = names.get(army["id"], "").strip()
        if not name:
            raise InvalidInput(f"army-{army['id']}", "every army needs a name")
        army["name"] = name[:100]


def place_models(doc: dict, poses: dict[str, dict]) -> list[str]:
    """Set model positions ({model id: {x, y, facing?}}); returns the ids that changed."""
    changed = []
    found = set()
    for unit in doc.get("units", []):
        for model in unit["models"]:
            pose = poses.get(model["id"])
            if pose is None:
                continue
            found.add(model["id"])
            new = {"x": tidy(pose["x"]), "y": tidy(pose["y"])}
            if pose.get("facing") is not None:
                facing = tidy(pose["facing"] % 360)
                if facing or "facing" in model:
                    new["facing"] = facing
            z = elevation_at(doc, model, new["x"], new["y"], new.get("facing"))
            if z is not None and (z or "z" in model):
                new["z"] = z
            old = {k: model.get(k) for k in new}
            if any(abs((old[k] or 0) - new[k]) > 5e-5 for k in new):
                model.update(new)
                changed.append(model["id"])
    missing = set(poses) - found
    if missing:
        raise InvalidInput("pose", f"there is no model {sorted(missing)[0]!r} on this table")
    return changed


def elevation_at(doc: dict, model: dict, x: float, y: float, facing=None) -> float | None:
    """RULES.md 1.5: a model put down where an upper floor holds its whole base stands on that
    floor (the highest such floor): its elevation. On open ground (no terrain under it) it
    stands on the table (0). Elsewhere (a ruin's ground floor, an old-shape block) None: keep
    the elevation it has. (Only 40K terrain has floors.)"""
    system = SYSTEMS[doc["system"]]
    base = Base.from_document(dict(model["base"]), system.mm_per_unit)
    turn = model.get("facing", 0) if facing is None else facing
    footprint = base.footprint(x, y, turn)
    slack = system.placement_tolerance
    best = None
    on_terrain = False
    for piece in doc.get("terrain", []):
        if not Polygon(piece["footprint"]).intersects(footprint):
            continue
        on_terrain = True
        for floor in piece.get("floors", []):
            if Polygon(floor["footprint"]).buffer(slack).covers(footprint):
                best = max(best or 0.0, float(floor["height"]))
    if best is not None:
        return tidy(best)
    return None if on_terrain else 0.0


POSE = re.compile(r"^pose-(?P<id>[A-Za-z0-9][A-Za-z0-9_.:-]*)-(?P<part>x|y|facing)$")


def poses_from(data) -> dict[str, dict]:
    """The `pose-<model id>-x|y|facing` inputs of a placement form (static/js/table.js writes
    them; they are also the visible way to type coordinates)."""
    poses: dict[str, dict] = {}
    for key in data:
        match = POSE.fullmatch(key)
        if match:
            poses.setdefault(match["id"], {})
    for model_id, pose in poses.items():
        label = f"model {model_id}"
        pose["x"] = number(data, f"pose-{model_id}-x", label=f"{label} x")
        pose["y"] = number(data, f"pose-{model_id}-y", label=f"{label} y")
        if str(data.get(f"pose-{model_id}-facing", "")).strip():
            pose["facing"] = number(data, f"pose-{model_id}-facing", label=f"{label} facing")
    return poses


# -- messages --------------------------------------------------------------------------------

_MODEL_PATH = re.compile(r"^units\[(\d+)\](?:\.models\[(\d+)\])?")
_TERRAIN_PATH = re.compile(r"^terrain\[(\d+)\]")


def describe_field(doc: dict, field: str) -> str:
    """A validator field path in words a player knows: `units[1].models[0]` -> the model's id and
    its unit's name."""
    try:
        match = _MODEL_PATH.match(field)
        if match:
            unit = doc["units"][int(match[1])]
            if match[2] is not None:
                return (
                    f"model {unit['models'][int(match[2])]['id']} of {unit.get('name', unit['id'])}"
                )
            return f"unit {unit.get('name', unit['id'])}"
        match = _TERRAIN_PATH.match(field)
        if match:
            piece = doc["terrain"][int(match[1])]
            return f"terrain {piece['id']}"
    except (IndexError, KeyError, TypeError):
        pass
    return field


# -- rings -----------------------------------------------------------------------------------


def ring_overlays(situation: Situation) -> list[tuple]:
    """A ring around every model at the game's ring distance (40K: its base grown by 2 in,
    battlefield/games/wh40k.py): enemies whose bases reach into it are in engagement range
    (03.04), and each model needs another of its unit inside it for coherency (03.03). Hidden
    until the page's script shows the selected unit's rings; the css classes
    `rings ring-<model id>` let it find them. A game without such ranges (Warmaster): none."""
    ring = game(situation.system).RINGS
    if ring is None:
        return []
    rings = []
    for model in situation.models():
        if model.base.kind == "round":
            grown = Point(model.x, model.y).buffer(model.base.radius + ring, quad_segs=8)
        else:
            grown = model.footprint.buffer(ring, quad_segs=8)
        # Only the outline: a filled band would be drawn over the bases it surrounds.
        rings.append((grown.exterior, f"engagement coherency rings ring-{model.id}"))
    return rings


# -- views -------------------------------------------------------------------------------------


def default_army(doc: dict) -> str:
    """The army a new unit is offered for: the one with the fewest units (the first on a tie),
    so building two sides needs no choosing (issue 13 item 10)."""
    armies = [a["id"] for a in doc.get("armies", [])]
    counts = {a: 0 for a in armies}
    for unit in doc.get("units", []):
        if unit.get("army") in counts:
            counts[unit["army"]] += 1
    return min(armies, key=lambda a: counts[a], default="")


def editor_context(request, scenario: Scenario, **extra) -> dict:
    situation = scenario.situation
    system = scenario.system
    units = []
    army_names = {a.id: a.name or a.id for a in situation.armies}
    removed = all_casualties(scenario)
    for unit_doc, unit in zip(scenario.document.get("units", []), situation.units, strict=True):
        units.append(
            {
                "id": unit.id,
                "name": unit.name,
                "army": unit.army,
                "army_name": army_names.get(unit.army, unit.army),
                "keywords": sorted(unit.keywords),
                "move": unit.move,
                "models": [
                    {"id": m.id, "x": tidy(m.x), "y": tidy(m.y), "facing": tidy(m.facing)}
                    for m in unit.models
                ],
                "casualties": [m["id"] for m in removed.get(unit.id, [])],
                "flags": [
                    {"name": flag, "label": label, "on": bool(unit_doc.get("state", {}).get(flag))}
                    for flag, label in offered_flags(system)
                ],
            }
        )
    terrain = []
    for piece in scenario.document.get("terrain", []):
        cx, cy = terrain_centre(piece)
        terrain.append(
            {
                "id": piece["id"],
                "type": piece.get("type", ""),
                "category": piece.get("category", ""),
                "x": tidy(round(cx, 2)),
                "y": tidy(round(cy, 2)),
            }
        )
    undo = ScenarioEdit.undoable(scenario)
    redo = ScenarioEdit.redoable(scenario)
    table = situation.table
    return {
        "scenario": scenario,
        "situation": situation,
        "svg": table_svg(situation, overlays=ring_overlays(situation), interactive=True),
        "unit_name": situation.unit_name,
        "presets": [(key, spec["label"]) for key, spec in game(system).PRESETS.items()],
        "draw": draw_options(system),
        # a drawing refused keeps its points and fields, to be corrected rather than redrawn
        "drawn": request.POST
        if request.method == "POST"
        and getattr(request.resolver_match, "url_name", "") == "editor_terrain_draw"
        and extra.get("error")
        else None,
        "profiles": UnitProfile.objects.filter(system=system),
        "armies": situation.armies,
        "default_army": default_army(scenario.document),
        "units": units,
        "terrain": terrain,
        "undo": undo,
        "redo": redo,
        "centre": {"x": tidy(table.width / 2), "y": tidy(table.height / 2)},
        "default_facing": game(system).DEFAULT_FACING,
        "rings": game(system).RINGS,
        "base_kinds": BASE_KINDS,
        "ruler_url": reverse("editor_ruler", args=[scenario.pk]),
        "phases": SYSTEMS[system].phases,
        "turn": scenario.document.get("turn", {}),
        **editor_extras(scenario),  # the setup panels (battlefield/armylists.py)
        **extra,
    }


def draw_options(system: str) -> dict:
    """What the "Draw terrain" form offers: the parts this game draws (walls and floors only
    where its terrain has levels), the terrain kinds (when the game reads a kind field apart
    from the type) and the types its presets use."""
    described = SYSTEMS[system]
    levels = getattr(game(system), "DRAWS_LEVELS", False)
    parts = [("footprint", "a new feature's footprint")]
    if levels:
        parts += [("wall", "a wall of a feature"), ("floor", "an upper floor of a feature")]
    kinds = (
        [(k.name, k.label) for k in described.terrain_kinds]
        if described.terrain_field != "type"
        else []
    )
    types = list(dict.fromkeys(spec["type"] for spec in game(system).PRESETS.values()))
    # clicks snap to half the minor grid (40K: 0.5 in; Warmaster: 5 cm)
    snap = game(system).GRID_STEPS[0] / 2
    return {"parts": parts, "kinds": kinds, "types": types, "levels": levels, "snap": snap}


@require_GET
def editor(request, pk: int):
    """The editor page (or its workspace partial): the table and every editing form."""
    scenario = editable_scenario(request, pk)
    return page(request, TEMPLATE, editor_context(request, scenario), partial="workspace")


def _answer(request, scenario: Scenario, *, status: int = 200, **extra):
    """Success: the workspace (htmx) or back to the editor page. Errors: the error or stale
    partial, retargeted to the message area for htmx; the whole page otherwise."""
    if status == 200:
        if request.htmx:
            context = editor_context(request, scenario, **extra)
            return TemplateResponse(request, f"{TEMPLATE}#workspace", context)
        return redirect("editor", pk=scenario.pk)
    partial = "stale" if status == 409 else "error"
    if request.htmx:
        scenario.refresh_from_db()
        context = {"scenario": scenario, **extra}
        response = TemplateResponse(request, f"{TEMPLATE}#{partial}", context, status=status)
        response["HX-Retarget"] = "#editor-messages"
        response["HX-Reswap"] = "innerHTML"
        return response
    scenario.refresh_from_db()
    context = editor_context(request, scenario, **extra)
    context["message_partial"] = partial
    return TemplateResponse(request, TEMPLATE, context, status=status)


def _for_edit(request, pk: int):
    """(scenario, None) if this visitor may edit it, else permissions' 404; or (None, a 409
    answer) when permissions itself finds the posted version stale (it checks the version only
    after the visitor's right to edit, so answering with the stale partial reveals nothing)."""
    try:
        return editable_scenario(request, pk), None
    except StaleScenario:
        scenario = get_object_or_404(Scenario, pk=pk)
        posted = request.POST.get("version", "")
        return None, _answer(request, scenario, status=409, posted_version=posted)


def _edit(request, pk: int, change):
    """Run one edit: `change(document, POST)` changes a copy of the document in place and
    returns a label for the history. Everything goes through Scenario.apply_edit."""
    scenario, refused = _for_edit(request, pk)
    if refused:
        return refused
    try:
        version = int(request.POST.get("version", ""))
    except ValueError:
        return _answer(
            request,
            scenario,
            status=422,
            error_field="",
            error="the form did not say which version of the table it was showing",
        )
    if version != scenario.version:  # a stale page hears that first: reload, then edit
        return _answer(request, scenario, status=409, posted_version=version)
    document = copy.deepcopy(scenario.document)
    try:
        label = change(document, request.POST)
        if label is None:  # nothing changed: nothing to save, nothing to undo
            return _answer(request, scenario)
        scenario.apply_edit(document, label, version=version)
    except StaleScenario:
        return _answer(request, scenario, status=409, posted_version=version)
    except InvalidInput as exc:
        return _answer(
            request,
            scenario,
            status=422,
            error=exc.message,
            error_field=describe_field(document, exc.field),
        )
    return _answer(request, scenario, saved=label)


@require_POST
def place(request, pk: int):
    """Save model positions from the placement form (dragging, click to place, arrow keys or
    typed coordinates all end here)."""

    def change(doc, data):
        changed = place_models(doc, poses_from(data))
        if not changed:
            return None
        return f"Moved {', '.join(changed[:3])}{' and more' if len(changed) > 3 else ''}"

    return _edit(request, pk, change)


@require_POST
def terrain_add(request, pk: int):
    def change(doc, data):
        unit = SYSTEMS[doc["system"]].unit
        piece = add_terrain(
            doc,
            str(data.get("preset", "")),
            number(data, "x", label=f"centre x ({unit})"),
            number(data, "y", label=f"centre y ({unit})"),
            number(data, "rotation", default=0.0, label="rotation (degrees)"),
        )
        return f"Added terrain {piece}"

    return _edit(request, pk, change)


@require_POST
def terrain_draw(request, pk: int):
    """Add a footprint, wall or floor drawn point by point (editor-terrain.js fills the points
    from clicks on the table; they can be typed as well)."""

    def change(doc, data):
        part = str(data.get("part", ""))
        height = data.get("height", "")
        return draw_terrain(
            doc,
            part,
            parse_points(str(data.get("points", ""))),
            type=str(data.get("type", "")),
            category=str(data.get("category", "")),
            feature=str(data.get("feature", "")),
            height=number(data, "height", minimum=0, label="height")
            if str(height).strip()
            else None,
            thickness=number(
                data, "thickness", default=WALL_THICKNESS, minimum=0, label="wall thickness"
            ),
        )

    return _edit(request, pk, change)


@require_POST
def terrain_change(request, pk: int, terrain_id: str):
    """Move and turn a terrain piece, or delete it (the button pressed says which)."""

    def change(doc, data):
        if "delete" in data:
            delete_terrain(doc, terrain_id)
            return f"Deleted terrain {terrain_id}"
        # a "turn" button turns the piece where it stands, walls and floors with it
        turn = number(data, "turn", label="turn (degrees)") if "turn" in data else None
        move_terrain(
            doc,
            terrain_id,
            number(data, "x", label="centre x"),
            number(data, "y", label="centre y"),
            turn
            if turn is not None
            else number(data, "rotate_by", default=0.0, label="turn by (degrees)"),
        )
        return f"Turned terrain {terrain_id}" if turn is not None else f"Moved terrain {terrain_id}"

    return _edit(request, pk, change)


def _block_args(data, doc, count: int | None = None) -> dict:
    return {
        "army": str(data.get("army", "")),
        "count": int(
            number(
                data,
                "count",
                default=count,
                minimum=1,
                maximum=LIMITS["models_per_unit"],
                label="number of models",
            )
        ),
        "x": number(data, "x", label="block centre x"),
        "y": number(data, "y", label="block centre y"),
        "facing": number(data, "facing", default=0.0, label="facing (degrees)"),
    }


@require_POST
def unit_add_profile(request, pk: int):
    """A unit from the catalogue (UnitProfile): its keywords, move, base and abilities."""

    def change(doc, data):
        try:
            profile = UnitProfile.objects.get(pk=int(data.get("profile", "")), system=doc["system"])
        except (ValueError, UnitProfile.DoesNotExist):
            raise InvalidInput("profile", "choose a unit from the catalogue") from None
        block = _block_args(data, doc, profile.model_count)
        unit = add_unit(
            doc,
            name=profile.name,
            keywords=profile.keywords,
            move=profile.move,
            base=profile.base,
            abilities=profile.abilities,
            **block,
        )
        return added(doc, unit, block)

    return _edit(request, pk, change)


def base_from(data) -> dict:
    """A base from the by-hand form: kind plus size(s) in mm (FORMAT.md `models[].base`)."""
    kind = str(data.get("base_kind", "round"))
    if kind not in BASE_KINDS:
        raise InvalidInput("base_kind", "choose round, oval or rect")
    first = number(data, "base_a", minimum=1, maximum=1000, label="base size (mm)")
    if kind == "round":
        return {"round": tidy(first)}
    second = number(data, "base_b", minimum=1, maximum=1000, label="second base size (mm)")
    return {kind: [tidy(first), tidy(second)]}


def added(doc: dict, unit_id: str, block: dict) -> str:
    """The history label of an added unit, saying so when the spot chosen was taken and the
    unit went to the nearest free one (`free_spot`)."""
    unit = _find(doc["units"], unit_id, "unit")
    xs = [m["x"] for m in unit["models"]]
    ys = [m["y"] for m in unit["models"]]
    shift = math.dist(((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2), (block["x"], block["y"]))
    label = f"Added {unit['name']} ({unit_id})"
    if shift > 0.01:
        symbol = SYSTEMS[doc["system"]].unit
        label += f", {fmt(shift)} {symbol} from where you chose: that spot was taken"
    return label


@require_POST
def unit_add_manual(request, pk: int):
    """A unit by hand: name, army, keywords, move and base."""

    def change(doc, data):
        move_text = str(data.get("move", "")).strip()
        block = _block_args(data, doc)
        unit = add_unit(
            doc,
            name=str(data.get("name", "")),
            keywords=re.split(r"[,\s]+", str(data.get("keywords", ""))),
            move=number(data, "move", minimum=0, maximum=1000) if move_text else None,
            base=base_from(data),
            **block,
        )
        return added(doc, unit, block)

    return _edit(request, pk, change)


@require_POST
def unit_change(request, pk: int, unit_id: str):
    """Set a unit's state flags, or delete the unit."""

    def change(doc, data):
        if "delete" in data:
            delete_unit(doc, unit_id)
            return f"Deleted unit {unit_id}"
        flags = {flag: flag in data for flag, _ in offered_flags(doc["system"])}
        set_unit_state(doc, unit_id, flags)
        return f"Changed the state of {unit_id}"

    return _edit(request, pk, change)


@require_POST
def unit_casualty(request, pk: int, unit_id: str):
    """Remove one model of a unit as a casualty (the one chosen, by default its last), or put
    one back where it was removed: the stepper's casualties, from the editor's units panel."""

    def change(doc, data):
        if data.get("restore"):
            return restore_casualty(doc, Scenario.objects.get(pk=pk), str(data["restore"]))
        unit = _find(doc.get("units", []), unit_id, "unit")
        chosen = str(data.get("remove") or unit["models"][-1]["id"])
        if chosen not in {m["id"] for m in unit["models"]}:
            raise InvalidInput("remove", f"{unit.get('name', unit_id)} has no model {chosen!r}")
        return remove_casualty(doc, chosen)

    return _edit(request, pk, change)


@require_POST
def turn(request, pk: int):
    """Set the round, the active army and the phase."""

    def change(doc, data):
        set_turn(
            doc,
            int(number(data, "round", minimum=1, maximum=99, label="battle round")),
            str(data.get("active_army", "")),
            str(data.get("phase", "")),
        )
        return "Changed the turn"

    return _edit(request, pk, change)


@require_POST
def armies(request, pk: int):
    """Rename the armies."""

    def change(doc, data):
        name_armies(doc, {a["id"]: str(data.get(f"army-{a['id']}", "")) for a in doc["armies"]})
        return "Renamed the armies"

    return _edit(request, pk, change)


def _history(request, pk: int, redo: bool):
    scenario, refused = _for_edit(request, pk)
    if refused:
        return refused
    try:
        version = int(request.POST.get("version", ""))
    except ValueError:
        return _answer(
            request,
            scenario,
            status=422,
            error_field="",
            error="the form did not say which version of the table it was showing",
        )
    try:
        edit = scenario.redo_edit(version=version) if redo else scenario.undo_edit(version=version)
    except StaleScenario:
        return _answer(request, scenario, status=409, posted_version=version)
    except InvalidInput as exc:
        return _answer(request, scenario, status=422, error=exc.message, error_field="")
    return _answer(request, scenario, saved=f"{'Redid' if redo else 'Undid'}: {edit.label}")


@require_POST
def undo(request, pk: int):
    return _history(request, pk, redo=False)


@require_POST
def redo(request, pk: int):
    return _history(request, pk, redo=True)


# -- ruler -------------------------------------------------------------------------------------

_END = re.compile(
    r"^(?:model:(?P<model>[A-Za-z0-9][A-Za-z0-9_.:-]*)(?:@(?P<pose>[-0-9.eE]+,[-0-9.eE]+(?:,[-0-9.eE]+)?))?"
    r"|point:(?P<point>[-0-9.eE]+,[-0-9.eE]+))$"
)


#: Largest coordinate the ruler measures to (any table is at most 1,000 units a side).
RULER_LIMIT = 100_000


def _end(situation: Situation, text: str, field: str):
    """One end of the ruler: ("model", Model) or ("point", (x, y)). A model may carry the pose
    the page shows (`model:B1@x,y,facing`) so a model being placed is measured where it is."""
    match = _END.fullmatch(text or "")  # fullmatch: `$` would let a trailing newline in
    if not match:
        raise InvalidInput(field, "give a model (model:ID) or a point (point:X,Y)")
    text = match["point"] or match["pose"] or ""
    try:
        values = [float(v) for v in text.split(",")] if text else []
    except ValueError:
        values = [math.nan]
    # Bounded (issue 15): 1e308 is finite, but the geometry of such a point overflows.
    if not all(math.isfinite(v) and abs(v) <= RULER_LIMIT for v in values):
        raise InvalidInput(
            field, f"coordinates must be numbers between -{RULER_LIMIT:,} and {RULER_LIMIT:,}"
        )
    if match["point"]:
        return "point", (values[0], values[1])
    model = situation.model(match["model"])
    if values:
        model = model.placed(values[0], values[1], facing=values[2] if len(values) > 2 else None)
    return "model", model


def measure(situation: Situation, a, b) -> dict:
    """The ruler's figure and the line to draw, measured with the engine's geometry (RULES.md
    1.1): between models the shortest distance between their bases (and the straight distance
    when they stand at different heights), from a point to the nearest edge of a model's base,
    between points centre to centre."""
    (kind_a, a_val), (kind_b, b_val) = a, b
    if kind_a == "point" and kind_b == "point":
        distance = math.dist(a_val, b_val)
        line = (a_val, b_val)
        vertical = 0.0
        what = "between the two points"
    elif kind_a == "model" and kind_b == "model":
        distance = footprint_distance(a_val.base, a_val.pos, b_val.base, b_val.pos)
        vertical = abs(a_val.z - b_val.z)
        p, q = nearest_points(a_val.footprint, b_val.footprint)
        line = ((p.x, p.y), (q.x, q.y))
        with naming(situation):  # models by the names players know them by (issue 13)
            what = f"from {named(a_val)} to {named(b_val)}, base edge to base edge"
    else:
        model, point = (a_val, b_val) if kind_a == "model" else (b_val, a_val)
        distance = point_footprint_distance(model.base, model.pos, point)
        vertical = 0.0
        p, _ = nearest_points(model.footprint, Point(point))
        line = ((p.x, p.y), point)
        with naming(situation):
            what = f"from the edge of {named(model)}'s base to the point"
    result = {
        "horizontal": distance,
        "vertical": vertical,
        "straight": math.hypot(distance, vertical),
        "line": line,
        "what": what,
        "engagement": None,
    }
    engagement = game(situation.system).ENGAGEMENT
    if kind_a == "model" and kind_b == "model" and engagement is not None:
        unit_a, unit_b = situation.unit(a_val.unit), situation.unit(b_val.unit)
        if unit_a.army != unit_b.army:
            # 03.04: within 2 in horizontally and 5 in vertically (RULES.md 1.2).
            across, up = engagement
            result["engagement"] = distance <= across + EPSILON and vertical <= up + EPSILON
    return result


def ruler_answer(request, situation: Situation):
    """The ruler's answer on `situation` (the table the page shows): GET ?a=...&b=..., rendered
    into editor_ruler.html. Every measurement runs the engine's geometry, so each one counts
    against the "api" rate limit like Check and Suggest (a GET: counted here, not by
    `rate_limit`, which counts POSTs)."""
    ratelimit.check(request, "api")
    try:
        a = _end(situation, request.GET.get("a", ""), "a")
        b = _end(situation, request.GET.get("b", ""), "b")
    except InvalidInput as exc:
        return TemplateResponse(
            request, "battlefield/editor_ruler.html", {"error": exc.message}, status=422
        )
    result = measure(situation, a, b)
    (x1, y1), (x2, y2) = result["line"]
    context = {
        "result": result,
        "unit_name": situation.unit_name,
        "symbol": "″" if situation.unit_name == "in" else " cm",
        "line": {"x1": tidy(x1), "y1": tidy(y1), "x2": tidy(x2), "y2": tidy(y2)},
    }
    response = TemplateResponse(request, "battlefield/editor_ruler.html", context)
    response["Cache-Control"] = "no-store"
    return response


@require_GET
def ruler(request, pk: int):
    """GET ?a=model:B1&b=point:30,20: the distance (a small fragment the page's script shows)."""
    return ruler_answer(request, editable_scenario(request, pk).situation)


@require_GET
def share_ruler(request, token: str):
    """The ruler on a shared (read-only) table, for whoever may see it through its link (the
    share page, the scenario page and the move pages measure through it)."""
    scenario = permissions.shared_scenario(request, token, document=False)
    return ruler_answer(request, situation_of(scenario))
