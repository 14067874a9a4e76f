"""Warmaster (Revolution) on the web: presets, table sizes, grid and terrain looks."""

from __future__ import annotations

from .base import OTHER, TerrainStyle, blob, rect, styles

SYSTEM = "warmaster-revolution"

#: Table sizes offered for a new scenario, in cm (RULES.md 2.1: 180 x 120 cm by default).
TABLE_SIZES = [
    ("180x120", "180 × 120 cm"),
    ("120x120", "120 × 120 cm"),
    ("240x120", "240 × 120 cm"),
]

#: Minor and major grid spacing: 10 cm and 50 cm.
GRID_STEPS = (10.0, 50.0)

#: Warmaster stands form a block side by side, touching (2.1).
BLOCK_GAP = 0.0
#: New units face up the table (270 degrees: towards y = 0).
DEFAULT_FACING = 270

#: Warmaster has no engagement or coherency ranges to ring.
RINGS = None
ENGAGEMENT = None

#: Terrain presets: footprint relative to the centre, in cm, and the terrain type (RULES.md 2.2).
PRESETS: dict[str, dict] = {
    "woods": {"label": "Woods", "type": "woods", "footprint": blob(12, 9, 12, 0.12)},
    "hill": {"label": "Hill", "type": "hill", "footprint": blob(18, 11, 14, 0.05)},
    "river": {"label": "River (60 cm stretch)", "type": "river", "footprint": rect(60, 6)},
    "village": {"label": "Village", "type": "village", "footprint": rect(12, 10)},
    "impassable": {
        "label": "Impassable (rocks, cliffs)",
        "type": "impassable",
        "footprint": blob(8, 6, 8, 0.1),
    },
}

STYLES = styles(
    ("open", "Open ground", "#E4DEC6", "#ADA27C", True),
    ("hill", "Hill", "#D8C08C", "#8A6A36"),
    ("woods", "Woods", "#7FA36B", "#3B6530"),
    ("river", "River, ford", "#9CC8E8", "#2F78B0"),
    ("village", "Village", "#C99A78", "#784828"),
    ("road", "Road, bridge", "#CBC3B0", "#7D7566"),
    ("obstacle", "Low obstacle", "#B09A70", "#5C4C2E"),
    ("deep-water", "Deep water (impassable)", "#3F6F9F", "#1F3F5F"),
    ("impassable", "Impassable", "#5E5A53", "#2B2824"),
)

#: Terrain by the engine's kind (RULES.md 2.2), with finer looks for some of the rulebook's
#: names under a kind: a hill is open ground to the rules of movement, but looks like a hill.
TERRAIN_LOOKS: dict[str, dict[str | None, TerrainStyle]] = {
    "open": {
        None: STYLES["open"],
        "hill": STYLES["hill"],
        "road": STYLES["road"],
        "bridge": STYLES["road"],
    },
    "woods": {None: STYLES["woods"]},
    "village": {None: STYLES["village"]},
    "water": {None: STYLES["river"], "low-obstacle": STYLES["obstacle"]},
    "impassable": {None: STYLES["impassable"], "deep-water": STYLES["deep-water"]},
}


def terrain_look(feature, kind, name: str | None = None) -> TerrainStyle:
    """The look of a piece of kind `kind`, finer by its canonical name `name` when one is kept."""
    if kind is None:
        return OTHER
    looks = TERRAIN_LOOKS[kind.name]
    return looks.get(name, looks[None])


def terrain_title(feature, style: TerrainStyle) -> str:
    return f"{feature.id}: {feature.type or 'terrain'} ({style.label.lower()})"
