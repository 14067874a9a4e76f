"""Warmaster terrain types (RULES.md 2.2) and sight between stands (2.3, 2.9).

Terrain kinds, from `terrain[].type` (what matters to flyers: where they may end, what blocks
their moves along the ground, what is dense for the order roll):
- "open": open ground, hills, bridges, roads - everyone enters, flyers may end there.
- "woods": woods and tall scrub - only infantry enter; a flyer may never end over them. Dense.
- "village": everyone enters; flyers may end there. Dense.
- "broken": broken or marshy ground - everyone enters; flyers may end there. Dense.
- "water": shallow rivers, fords, low obstacles, loose terrain, high linear obstacles - infantry
  enter (others by type); flyers may end there.
- "impassable": buildings, boulders, cliffs, mountains, deep water, lakes, ravines - nobody enters
  and no flyer ends there.

Sight (2.2 / 2.3), by the name, not the kind: hills block unless the viewer or the target stands
on it; woods and villages block any sight line crossing them, except that a stand inside sees and
is seen up to 2 cm into the piece it stands in; high linear obstacles, buildings, boulders, cliffs
and mountains block; deep water, lakes and ravines do not. A stand sees only what lies in front of
the line through its front corners (a 180-degree arc) unless it has all-round sight (keyword
ALL-ROUND-SIGHT; a round character base has no front). Characters never block sight (2.9); stands
of any other unit do.

The engine's simplification, stated to users: two stands see each other when one of a few
straight lines is clear - between their closest points, and from the viewer's front corners and
front-edge centre to the corners and centre of the part of the target in front of it. Heights are
not modelled otherwise: flyers see exactly as ground units do.
"""

from __future__ import annotations

from shapely.geometry import LineString, Point, Polygon
from shapely.ops import nearest_points

from ..geometry import EPSILON, touching, within
from ..situation import Model, Situation, TerrainFeature
from ..systems import SYSTEMS
from .stands import board, corners, overlaps

#: The game's terrain vocabulary (RULES.md 2.2) is the registry's: `SYSTEM.terrain_kinds` in
#: rules/warmaster/__init__.py, where every accepted name maps to a kind judged here.
SYSTEM = SYSTEMS["warmaster-revolution"]

#: 2.2: how each canonical terrain name (the registry's) blocks sight: "hill", "woods" (woods and
#: villages), "blocks"; the others (open ground, water, deep water, lakes, ravines) do not.
SIGHT = {
    "hill": "hill",
    "woods": "woods",
    "wood": "woods",
    "scrub": "woods",
    "tall-scrub": "woods",
    "village": "woods",
    "high-linear-obstacle": "blocks",
    "impassable": "blocks",
    "building": "blocks",
    "buildings": "blocks",
    "boulders": "blocks",
    "cliff": "blocks",
    "cliffs": "blocks",
    "mountain": "blocks",
    "mountains": "blocks",
}

#: Keyword of a unit whose army list gives it all-round sight (e.g. the Dwarf Gyrocopter, 2.3).
ALL_ROUND_SIGHT = "ALL-ROUND-SIGHT"

#: Kinds a flyer may not end a move in or over (2.2, 2.5), and that block its ground moves (2.7).
NO_FLYER_END = frozenset({"woods", "impassable"})

#: Depth of woods (cm) a stand inside sees out and is seen into (2.2).
WOODS_SIGHT_DEPTH = 2.0


def _name(feature: TerrainFeature) -> str | None:
    """The canonical (registry) name of a piece's type."""
    return SYSTEM.terrain_name(feature.type)


def kind_of(situation: Situation, feature: TerrainFeature) -> str:
    """The kind of a terrain piece, or InvalidInput naming `terrain[i].type` if unknown."""
    kind = SYSTEM.terrain_kind(feature.type)
    if kind is None:  # Situation.from_document refuses these; a hand-built situation may not
        index = situation.terrain.index(feature)
        raise SYSTEM.unknown_terrain(feature.type, f"terrain[{index}].type")
    return kind.name


def no_flyer_end_terrain(situation: Situation) -> list[tuple[TerrainFeature, str]]:
    """Terrain a flyer may not end in or over, with its kind (worked out once per situation)."""
    cache = board(situation).cache
    if "no-flyer-end" not in cache:
        out = []
        for feature in situation.terrain:
            kind = kind_of(situation, feature)
            if kind in NO_FLYER_END:
                out.append((feature, kind))
        cache["no-flyer-end"] = out
    return cache["no-flyer-end"]


def in_piece(where: Model | Polygon, piece: Polygon) -> bool:
    """2.2: a stand (or a stand's footprint) is in or over a terrain piece when they share more
    than a sliver of area; touching the piece's edge is not being in it. A round character stand
    is judged by its true circle (RULES.md 0), as stands_overlap judges it against stands: the
    polygon drawn round the circle reaches up to 0.12 % of the radius further, so a character
    exactly touching a wood's edge would otherwise count as over the wood."""
    if isinstance(where, Model) and where.base.kind == "round":
        centre = Point(where.x, where.y)
        return piece.contains(centre) or piece.distance(centre) < where.base.radius - EPSILON
    return overlaps(where.footprint if isinstance(where, Model) else where, piece)


def forbidden_terrain_under(
    situation: Situation, where: Model | Polygon
) -> list[tuple[TerrainFeature, str]]:
    """The pieces a stand (or a stand's footprint) would be in or over that a flyer may not end
    on (in_piece: a round stand by its true circle)."""
    return [(f, k) for f, k in no_flyer_end_terrain(situation) if in_piece(where, f.footprint)]


# -- sight ---------------------------------------------------------------------------------------


def _front_part(a: Model, b: Model, all_round: bool) -> Polygon | None:
    """The part of stand b lying in front of stand a's front edge (all of b with all-round
    sight or a round viewer), or None when none of it does (2.3: a 180-degree arc)."""
    if all_round or a.base.kind != "rect":
        return b.footprint
    front = corners(a.base, a.x, a.y, a.facing)[:2]
    (x0, y0), (x1, y1) = front
    # the half-plane ahead of the front edge, as a large quadrilateral
    ex, ey = x1 - x0, y1 - y0
    length = (ex * ex + ey * ey) ** 0.5
    ex, ey = ex / length, ey / length
    fx, fy = ey, -ex  # perpendicular: pick the one pointing away from the stand's centre
    if (x0 - a.x) * fx + (y0 - a.y) * fy < 0:
        fx, fy = -fx, -fy
    big = 1e5
    half = Polygon(
        [
            (x0 - ex * big, y0 - ey * big),
            (x1 + ex * big, y1 + ey * big),
            (x1 + ex * big + fx * big, y1 + ey * big + fy * big),
            (x0 - ex * big + fx * big, y0 - ey * big + fy * big),
        ]
    )
    part = b.footprint.intersection(half)
    if part.is_empty or part.area <= EPSILON:
        return None
    return part


def sight_lines(a: Model, target: Polygon) -> list[LineString]:
    """Sight lines from stand a to (the visible part of) a target: between closest points, and
    from a's front corners and front-edge centre (its centre if round) to the target's corners
    and centre."""
    pa, pb = nearest_points(a.footprint, target)
    lines = []
    if pa.distance(pb) > 0:
        lines.append(LineString([pa, pb]))
    if a.base.kind == "rect":
        (x0, y0), (x1, y1) = corners(a.base, a.x, a.y, a.facing)[:2]
        origins = [(x0, y0), (x1, y1), ((x0 + x1) / 2, (y0 + y1) / 2)]
    else:
        origins = [(a.x, a.y)]
    c = target.centroid
    ends = list(getattr(target, "exterior", target.convex_hull.exterior).coords)[:-1]
    ends.append((c.x, c.y))
    for o in origins:
        lines.extend(LineString([o, e]) for e in ends if o != e)
    return lines


def line_blocked(situation: Situation, line: LineString, a: Model, b: Model) -> bool:
    """2.2 / 2.3: is this sight line from a to b blocked by terrain or a third unit's stand?"""
    outside = line.difference(a.footprint).difference(b.footprint)
    if outside.is_empty or outside.length <= EPSILON:
        return False
    for feature in situation.terrain:
        kind_of(situation, feature)  # an unknown name is refused
        sight = SIGHT.get(_name(feature) or "")
        fp = feature.footprint
        if sight is None or not outside.intersects(fp):
            continue
        crossed = outside.intersection(fp)
        if crossed.length <= EPSILON:
            continue
        if sight == "blocks":
            return True
        if sight == "hill":
            on_it = fp.intersects(Point(a.x, a.y)) or fp.intersects(Point(b.x, b.y))
            if not on_it:
                return True
            continue
        # woods / village: only the stretch next to a stand standing in that piece is seen
        # through, up to 2 cm.
        for piece in getattr(crossed, "geoms", [crossed]):
            if piece.length <= EPSILON:
                continue
            inside_edge = any(
                overlaps(s.footprint, fp) and touching(piece.distance(s.footprint)) for s in (a, b)
            )
            if not (inside_edge and within(piece.length, WOODS_SIGHT_DEPTH)):
                return True
    b_index = board(situation)
    for o in b_index.stands_near(outside.envelope):
        if o.unit in (a.unit, b.unit) or not b_index.counts(o):
            continue  # 2.9: characters never block sight
        if outside.intersects(o.footprint) and outside.intersection(o.footprint).length > EPSILON:
            return True
    return False


def can_see(situation: Situation, a: Model, b: Model, all_round: bool = False) -> bool:
    """2.3: stand a sees stand b (the engine's simplification, see the module docstring)."""
    part = _front_part(a, b, all_round)
    if part is None:
        return False
    if touching(a.footprint.distance(part)):
        return True
    return any(not line_blocked(situation, line, a, b) for line in sight_lines(a, part))


def unit_sees(situation: Situation, viewer, target) -> bool:
    """A unit sees another when any of its stands sees any stand of the other."""
    all_round = viewer.has(ALL_ROUND_SIGHT)
    return any(can_see(situation, a, b, all_round) for a in viewer.models for b in target.models)


__all__ = [
    "NO_FLYER_END",
    "kind_of",
    "no_flyer_end_terrain",
    "forbidden_terrain_under",
    "can_see",
    "SIGHT",
    "unit_sees",
]
