"""Warmaster terrain types (RULES.md 2.2) and sight between stands (2.3).

Terrain kinds, from `terrain[].type`:
- "open": open ground, hills, bridges, roads - everyone enters, flyers may end there.
- "woods": woods and tall scrub - only infantry enter; a flyer may never end over them.
- "village": everyone enters; flyers may end there.
- "water": shallow rivers, fords, low obstacles - infantry, cavalry and monsters enter; flyers may
  end there.
- "impassable": buildings, boulders, deep water, ravines, cliffs, mountains - nobody enters and no
  flyer ends there.

Sight (the engine's simplification of 2.3, stated to users): two stands see each other when one of
a few straight sight lines between them (closest points, centre to centre, and centre to each
corner of the target) is clear. A line is blocked by any stand of a third unit it crosses, by
impassable terrain (buildings and the like) it crosses, by more than 2 cm of woods along it, and by
a hill that lies between the two stands (neither stand standing on it). Heights are not modelled
otherwise: flyers see exactly as ground units do.
"""

from __future__ import annotations

from shapely.geometry import LineString, Point
from shapely.ops import nearest_points

from ..situation import Model, Situation, TerrainFeature
from ..systems import SYSTEMS
from .stands import overlaps

#: The game's terrain vocabulary (RULES.md 2.2) is the registry's: `SYSTEM.terrain_kinds` in
#: rules/warmaster/__init__.py, where every accepted name maps to a kind judged here.
SYSTEM = SYSTEMS["warmaster-revolution"]

#: Kinds a flyer may not end a move in or over (2.2, 2.5), and that block its ground moves (2.7).
NO_FLYER_END = frozenset({"woods", "impassable"})

#: Depth of woods (cm) a sight line may pass through before it is blocked (2.3, as we read it).
WOODS_SIGHT_DEPTH = 2.0


def kind_of(situation: Situation, feature: TerrainFeature) -> str:
    """The kind of a terrain piece, or InvalidInput naming `terrain[i].type` if unknown."""
    kind = SYSTEM.terrain_kind(feature.type)
    if kind is None:  # Situation.from_document refuses these; a hand-built situation may not
        index = situation.terrain.index(feature)
        raise SYSTEM.unknown_terrain(feature.type, f"terrain[{index}].type")
    return kind.name


def no_flyer_end_terrain(situation: Situation) -> list[tuple[TerrainFeature, str]]:
    """Terrain a flyer may not end in or over, with its kind."""
    out = []
    for feature in situation.terrain:
        kind = kind_of(situation, feature)
        if kind in NO_FLYER_END:
            out.append((feature, kind))
    return out


def forbidden_terrain_under(situation: Situation, footprint) -> list[tuple[TerrainFeature, str]]:
    """The pieces a stand footprint would be in or over that a flyer may not end on."""
    return [(f, k) for f, k in no_flyer_end_terrain(situation) if overlaps(footprint, f.footprint)]


# -- sight ---------------------------------------------------------------------------------------


def sight_lines(a: Model, b: Model) -> list[LineString]:
    """A few sight lines from stand a to stand b: closest points, centres, centre to b's corners."""
    pa, pb = nearest_points(a.footprint, b.footprint)
    lines = []
    if pa.distance(pb) > 0:
        lines.append(LineString([pa, pb]))
    if (a.x, a.y) != (b.x, b.y):
        lines.append(LineString([(a.x, a.y), (b.x, b.y)]))
    if b.base.kind == "rect":
        lines.extend(LineString([(a.x, a.y), c]) for c in list(b.footprint.exterior.coords)[:4])
    return lines


def line_blocked(situation: Situation, line: LineString, a: Model, b: Model) -> bool:
    for feature in situation.terrain:
        kind = kind_of(situation, feature)
        if kind == "open" and SYSTEM.terrain_name(feature.type) == "hill":
            on_it = feature.footprint.intersects(Point(a.x, a.y)) or feature.footprint.intersects(
                Point(b.x, b.y)
            )
            if not on_it and line.intersection(feature.footprint).length > 1e-6:
                return True
        elif kind == "impassable":
            if line.intersection(feature.footprint).length > 1e-6:
                return True
        elif kind == "woods":
            if line.intersection(feature.footprint).length > WOODS_SIGHT_DEPTH:
                return True
    for unit in situation.units:
        if unit.id in (a.unit, b.unit):
            continue
        for m in unit.models:
            if line.intersects(m.footprint) and line.intersection(m.footprint).length > 1e-6:
                return True
    return False


def can_see(situation: Situation, a: Model, b: Model) -> bool:
    """2.3: stand a sees stand b (the engine's simplification, see the module docstring)."""
    if a.footprint.distance(b.footprint) <= 1e-6:
        return True
    return any(not line_blocked(situation, line, a, b) for line in sight_lines(a, b))


def unit_sees(situation: Situation, viewer, target) -> bool:
    """A unit sees another when any of its stands sees any stand of the other."""
    return any(can_see(situation, a, b) for a in viewer.models for b in target.models)


__all__ = [
    "NO_FLYER_END",
    "kind_of",
    "no_flyer_end_terrain",
    "forbidden_terrain_under",
    "can_see",
    "unit_sees",
]
