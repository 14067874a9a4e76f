"""What a move shows on the table (issue #13 "show it on the table"), as overlays for
`pictures.table_svg` / `table_png`:

- where a model could have gone: a failing finding that names a spot ("... could have ended
  engaged with it at (12.5, 8.25) ...", rules/wh40k/surge.py, move_types.spot_text) gets a ghost
  of the model's base on that spot and an arrow to it from where the model was placed;
- the target's engagement zone: every model of the charge or surge target grown by the
  engagement range (03.04: 2" horizontally), so "end engaged" can be seen;
- trails: a line from each model's start to its end, with a dot at the start;
- the game's own ranges for the move (battlefield/games: Warmaster's flyer reach, the 20 cm
  order and initiative ranges).

Every overlay is drawn from what the engine said (the verdict's move facts and findings) and the
positions on the table: nothing here judges anything.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from shapely.geometry import LineString, MultiLineString, MultiPoint, Polygon
from shapely.ops import unary_union

from rules import InvalidInput
from rules.situation import Situation

from .games import game
from .pictures import Overlay

#: A spot named in a finding's text: "at (12.5, 8.25)" (table units).
SPOT = re.compile(r"\bat \((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\)")
#: A spot's level as the text names it: 'on the floor 3" up'.
SPOT_LEVEL = re.compile(r"at \([^)]*\) on the floor (\d+(?:\.\d+)?)")
#: Moves shorter than this draw no trail (table units): the model stayed where it was.
STILL = 1e-6


def _get(item: Any, name: str, default: Any = None) -> Any:
    """A field of a finding or verdict: the engine's objects, or their stored dicts."""
    if isinstance(item, Mapping):
        return item.get(name, default)
    return getattr(item, name, default)


def shown_overlays(
    situation: Situation,
    verdict: Any = None,
    *,
    placed: Situation | None = None,
    ghosts: bool = True,
    trails: bool = True,
) -> list[Overlay]:
    """Everything a move shows, bottom to top: the game's ranges, the target's engagement
    zone, the trails from `situation` (before the move) to `placed` (where the models stand in
    the picture) and, with `ghosts`, where failing models could have gone.

    `verdict` is the engine's Verdict or its stored dict (its `move` facts say the unit, type
    and target); without one only the trails are drawn."""
    overlays: list[Overlay] = []
    move = _get(verdict, "move") or {}
    unit_id = move.get("unit")
    if unit_id and situation.has_unit(unit_id):
        unit = situation.unit(unit_id)
        overlays += [
            Overlay(geometry, css, label)
            for geometry, css, label in game(situation.system).move_overlays(
                situation, unit, str(move.get("type") or "")
            )
        ]
        overlays += target_zones(situation, move)
        if trails and placed is not None:
            overlays += trail_overlays(situation, placed, unit_id)
    if ghosts and verdict is not None:
        overlays += ghost_overlays(situation, verdict, placed or situation)
    return overlays


def target_zones(situation: Situation, move: Mapping) -> list[Overlay]:
    """The engagement zone round each target the engine named (`target`, or a charge's
    `targets`), when the game has an engagement range."""
    reach = getattr(game(situation.system), "ENGAGEMENT", None)
    if not reach:
        return []
    targets = [move["target"]] if move.get("target") else list(move.get("targets") or ())
    out = []
    for target in targets:
        if not situation.has_unit(target):
            continue
        unit = situation.unit(target)
        zone = unary_union([m.footprint.buffer(reach[0], 32) for m in unit.models])
        zone = zone.intersection(situation.table.area)
        unit_word = '"' if situation.unit_name == "in" else f" {situation.unit_name}"
        out.append(
            Overlay(
                zone,
                "target-zone engagement",
                f"{reach[0]:g}{unit_word} engagement zone of {unit.name or unit.id}",
            )
        )
    return out


def trail_overlays(before: Situation, after: Situation, unit_id: str) -> list[Overlay]:
    """A line from each model's start to its end (models that did not move draw none), and a
    dot where each started."""
    if not (before.has_unit(unit_id) and after.has_unit(unit_id)):
        return []
    ends = {m.id: m for m in after.unit(unit_id).models}
    lines, starts = [], []
    for m in before.unit(unit_id).models:
        end = ends.get(m.id)
        if end is None or math.hypot(end.x - m.x, end.y - m.y) <= STILL:
            continue
        lines.append(LineString([(m.x, m.y), (end.x, end.y)]))
        starts.append((m.x, m.y))
    if not lines:
        return []
    return [
        Overlay(MultiLineString(lines), "trail path"),
        Overlay(MultiPoint(starts), "trail-start"),
    ]


def finding_spot(finding: Any) -> tuple[float, float, float] | None:
    """(x, y, height) of the spot a failing finding says the model could have used, or None."""
    text = str(_get(finding, "text", "") or "")
    found = SPOT.search(text)
    if not found:
        return None
    level = SPOT_LEVEL.search(text)
    return float(found[1]), float(found[2]), float(level[1]) if level else 0.0


def ghost_overlays(situation: Situation, verdict: Any, placed: Situation) -> list[Overlay]:
    """For each failing finding about a model that names a spot: the model's base drawn on the
    spot (a ghost) and an arrow from the model's placement to it."""
    out: list[Overlay] = []
    for finding in _get(verdict, "findings") or ():
        if _get(finding, "passed", True):
            continue
        spot = finding_spot(finding)
        if spot is None:
            continue
        try:
            model = placed.model(str(_get(finding, "subject", "")))
        except (InvalidInput, KeyError):
            continue
        x, y, z = spot
        ghost = model.placed(x, y, z).footprint
        label = "could have ended here" if not out else ""
        if z > 0:
            label = f"could have ended here, {z:g}{_unit(situation)} up" if not out else ""
        out.append(Overlay(ghost, "ghost", label))
        arrow = _arrow((model.x, model.y), (x, y), model.base.radius)
        if arrow is not None:
            out.append(Overlay(arrow, "arrow"))
    return out


def _unit(situation: Situation) -> str:
    return '"' if situation.unit_name == "in" else f" {situation.unit_name}"


def _arrow(start: tuple[float, float], end: tuple[float, float], size: float):
    """A line from `start` to `end` with a head at `end` (a triangle `size` long, at most a
    third of the line), or None when the two are the same point."""
    (x0, y0), (x1, y1) = start, end
    length = math.hypot(x1 - x0, y1 - y0)
    if length <= STILL:
        return None
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    head = min(max(size, length * 0.1), length / 3)
    bx, by = x1 - ux * head, y1 - uy * head
    wing = head * 0.45
    triangle = Polygon(
        [(x1, y1), (bx - uy * wing, by + ux * wing), (bx + uy * wing, by - ux * wing)]
    )
    return unary_union([LineString([(x0, y0), (bx, by)]), triangle])
