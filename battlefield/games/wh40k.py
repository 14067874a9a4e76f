"""Warhammer 40,000 (11th edition) on the web: presets, table sizes, grid, looks, rings."""

from __future__ import annotations

from rules.wh40k.measuring import COHERENCY_RANGE, ENGAGEMENT_RANGE

from .base import OTHER, TerrainStyle, blob, rect, styles

SYSTEM = "wh40k-11e"

#: Table sizes offered for a new scenario, in inches (RULES.md 1.1).
TABLE_SIZES = [
    ("60x44", "60 × 44 in (Strike Force)"),
    ("44x30", "44 × 30 in (Combat Patrol)"),
    ("72x48", "72 × 48 in (6 × 4 ft)"),
]

#: Minor and major grid spacing: 1 in and 6 in.
GRID_STEPS = (1.0, 6.0)

#: A new unit's bases are placed 0.5 in apart, well inside coherency's 2 in (03.03).
BLOCK_GAP = 0.5
#: The editor's setup panels for this game (templates/battlefield/armylists.html): the
#: 11th-edition dataset's catalogue, roster import and surge abilities.
SETUP_PANELS = "dataset"
DEFAULT_FACING = 0

#: 03.04 engagement range and 03.03 coherency are both 2 in horizontally (RULES.md 1.2): the
#: editor rings the selected unit's models at this distance.
RINGS = COHERENCY_RANGE.horizontal
#: 03.04: within 2 in horizontally and 5 in vertically.
ENGAGEMENT = (ENGAGEMENT_RANGE.horizontal, ENGAGEMENT_RANGE.vertical)


def _ruin_l(width: float, depth: float) -> list[list[float]]:
    """A ruin's L-shaped footprint: two walls meeting at a corner, with the floor between."""
    w, d = width / 2, depth / 2
    return [
        [-w, -d],
        [w, -d],
        [w, -d + depth * 0.45],
        [-w + width * 0.45, -d + depth * 0.45],
        [-w + width * 0.45, d],
        [-w, d],
    ]


def _ruin_3d(width: float, depth: float, floors: tuple[float, ...]) -> dict:
    """A ruin in three dimensions (RULES.md 1.5): a rectangle with an L of walls on two sides
    (as tall as the top floor plus 1") and upper floors over the walled corner, each higher one
    smaller, like the ruins clubs build."""
    w, d, t = width / 2, depth / 2, 0.125
    top = max(floors) + 1
    parts: dict = {
        "walls": [{"path": [[-w + t, d], [-w + t, -d + t], [w, -d + t]], "height": top}],
        "floors": [],
    }
    for k, height in enumerate(floors):
        share = 0.6 - 0.15 * k  # each floor covers a little less of the ruin
        parts["floors"].append(
            {
                "footprint": [
                    [-w, -d],
                    [round(-w + width * share, 2), -d],
                    [round(-w + width * share, 2), round(-d + depth * share, 2)],
                    [-w, round(-d + depth * share, 2)],
                ],
                "height": height,
            }
        )
    return {"height": top, "footprint": rect(width, depth), **parts}


def _tower(side: float, storeys: int, storey: float = 3.0) -> dict:
    """A tower of `storeys` storeys: floors over the whole footprint every `storey` inches, walls
    on all four sides with a doorway in the south wall."""
    h, t = side / 2, 0.125
    top = storey * (storeys - 1) + 1
    return {
        "height": top,
        "footprint": rect(side, side),
        "walls": [
            {
                "path": [
                    [-1, h - t],
                    [-h + t, h - t],
                    [-h + t, -h + t],
                    [h - t, -h + t],
                    [h - t, h - t],
                    [1, h - t],
                ],
                "height": top,
            },
        ],
        "floors": [
            {"footprint": rect(side, side), "height": storey * k} for k in range(1, storeys)
        ],
    }


#: The editor draws walls and upper floors of features point by point (RULES.md 1.5).
DRAWS_LEVELS = True

#: Terrain presets: footprint relative to the centre, in inches, and the fields FORMAT.md gives
#: 40K terrain (category, height, solid, walls, floors, enclosed).
PRESETS: dict[str, dict] = {
    "ruin-small": {
        "label": "Ruin, small (dense, 3″ high)",
        "type": "ruin",
        "category": "dense",
        "height": 3,
        "footprint": _ruin_l(6, 4),
    },
    "ruin-medium": {
        "label": "Ruin, medium (dense, 5″ high)",
        "type": "ruin",
        "category": "dense",
        "height": 5,
        "footprint": _ruin_l(8, 6),
    },
    "ruin-large": {
        "label": "Ruin, large (dense, 8″ high)",
        "type": "ruin",
        "category": "dense",
        "height": 8,
        "footprint": _ruin_l(12, 6),
    },
    "ruin-l-one-floor": {
        "label": "Ruin, L-shaped walls, one upper floor (3″)",
        "type": "ruin",
        "category": "dense",
        **_ruin_3d(8, 6, (3.0,)),
    },
    "ruin-l-two-floors": {
        "label": "Ruin, L-shaped walls, two upper floors (3″, 6″)",
        "type": "ruin",
        "category": "dense",
        **_ruin_3d(10, 8, (3.0, 6.0)),
    },
    "tower": {
        "label": "Tower, three storeys (floors 3″, 6″)",
        "type": "ruin",
        "category": "dense",
        **_tower(5, 3),
    },
    "container": {
        "label": "Container (dense, enclosed, 2.5″ high)",
        "type": "container",
        "category": "dense",
        "height": 2.5,
        "footprint": rect(6, 2.5),
        "enclosed": [{"footprint": rect(6, 2.5), "height": 2.5}],
    },
    "barricade-line": {
        "label": "Barricade line (light, walls 1.5″ high)",
        "type": "barricade",
        "category": "light",
        "height": 1.5,
        "footprint": rect(9, 1),
        "walls": [
            {"path": [[-4.5, 0], [-1.5, 0]], "height": 1.5},
            {"path": [[-1, 0], [1, 0]], "height": 1.5},
            {"path": [[1.5, 0], [4.5, 0]], "height": 1.5},
        ],
    },
    "crater-field": {
        "label": "Crater field (exposed)",
        "type": "crater",
        "category": "exposed",
        "height": 0,
        "footprint": blob(5, 4, 12, 0.1),
    },
    "woods": {
        "label": "Woods (light)",
        "type": "woods",
        "category": "light",
        "height": 4,
        "footprint": blob(4.5, 3.5, 12, 0.12),
    },
    "crater": {
        "label": "Crater (exposed)",
        "type": "crater",
        "category": "exposed",
        "height": 0,
        "footprint": blob(2.5, 2.5, 10, 0.08),
    },
    "building": {
        "label": "Building (solid, 6″ high)",
        "type": "building",
        "category": "dense",
        "height": 6,
        "solid": True,
        "footprint": rect(5, 5),
    },
}

#: Terrain by the engine's kind, its category (RULES.md 1.5); `solid` wins over the category.
STYLES = styles(
    ("exposed", "Exposed terrain", "#DDD3B2", "#8A7F5C", True),
    ("light", "Light terrain", "#B9CC9C", "#5A7040"),
    ("dense", "Dense terrain", "#A8967A", "#54452F"),
    ("solid", "Solid terrain (no entry)", "#5E5A53", "#2B2824"),
    ("other", "Terrain without a category", "#D0D0D0", "#777777", True),
)
TERRAIN_LOOKS: dict[str, dict[str | None, TerrainStyle]] = {
    kind: {None: STYLES[kind]} for kind in ("exposed", "light", "dense")
}


def terrain_look(feature, kind, name: str | None = None) -> TerrainStyle:
    """The look of a piece: by its category (the engine's kind), darkest when solid."""
    if feature.solid:
        return STYLES["solid"]
    if kind is None:
        return STYLES.get("other", OTHER)
    return TERRAIN_LOOKS[kind.name][None]


def terrain_title(feature, style: TerrainStyle) -> str:
    what = feature.category or "no category"
    extra = ", solid" if feature.solid else ""
    return f"{feature.id}: {feature.type or 'terrain'}, {what}{extra}, {feature.height:g} in tall"


def terrain_name(feature, unit: str) -> str:
    """The name drawn on the table: the feature's type, and a block's height ('Ruin 5"');
    a layered feature's heights are drawn on its floors and walls (RULES.md 1.5)."""
    name = (feature.type or "terrain").replace("-", " ").capitalize()
    if feature.height > 0 and not feature.layered:
        return f'{name} {feature.height:g}"'
    return name


def move_overlays(situation, unit, move_type: str) -> list:
    """The game's own ranges drawn for a move (battlefield/showing.py): 40K draws the target's
    engagement zone (from `ENGAGEMENT`) and the reach the engine gives, nothing more."""
    return []
