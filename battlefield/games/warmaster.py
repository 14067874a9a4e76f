"""Warmaster (Revolution) on the web: presets, table sizes, grid and terrain looks."""

from __future__ import annotations

from rules.warmaster.command import INITIATIVE_RANGE
from rules.warmaster.flying import COMMAND_RANGE, FLYER_CHARGE, FLYER_PACE
from rules.warmaster.stands import is_character

from .base import OTHER, TerrainStyle, blob, rect, styles, within

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
#: The editor's setup panels for this game: the flyer catalogue (battlefield/demo data file).
SETUP_PANELS = "flyers"
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
    ("broken", "Broken or marshy ground", "#C8BE9A", "#7A6E48"),
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
    "broken": {None: STYLES["broken"]},
    "water": {
        None: STYLES["river"],
        "low-obstacle": STYLES["obstacle"],
        "high-linear-obstacle": STYLES["obstacle"],
    },
    "impassable": {
        None: STYLES["impassable"],
        "deep-water": STYLES["deep-water"],
        "lake": STYLES["deep-water"],
    },
}


def terrain_look(feature, kind, name: str | None = None) -> TerrainStyle:
    """The look of a piece of kind `kind`, finer by its canonical name `name` when one is kept."""
    if kind is None:
        return OTHER
    looks = TERRAIN_LOOKS[kind.name]
    return looks.get(name, looks[None])


def terrain_title(feature, style: TerrainStyle) -> str:
    return f"{feature.id}: {feature.type or 'terrain'} ({style.label.lower()})"


def terrain_name(feature, unit: str) -> str:
    """The name drawn on the table: the feature's type as the scenario names it (RULES.md 2.2)."""
    return (feature.type or "terrain").replace("-", " ").capitalize()


#: Moves of a flying unit and the reach drawn for them (RULES.md 2.5: 100 cm under orders and
#: homing back as its pace, 60 cm when charging).
FLYER_REACH = {
    "order-move": FLYER_PACE,
    "home-back": FLYER_PACE,
    "order-charge": FLYER_CHARGE,
    "initiative-charge": FLYER_CHARGE,
}
#: Moves after which a flyer within 20 cm of a character may be ordered (RULES.md 2.3, 2.4).
ORDER_RANGE_MOVES = ("order-move", "order-charge", "home-back")


def move_overlays(situation, unit, move_type: str) -> list:
    """The ranges that matter to a move (battlefield/showing.py), as (geometry, css, label):
    a flyer's reach (RULES.md 2.5), the 20 cm round each friendly character within which a
    flyer may be ordered (2.3, 2.4) and the 20 cm initiative range (2.9)."""
    out = []
    flying = unit.has("FLYING") and not is_character(unit)
    if flying and move_type in FLYER_REACH:
        reach = FLYER_REACH[move_type]
        out.append(
            within(situation, unit.models, reach, "range flyer-reach", f"{reach:g} cm flyer reach")
        )
    if flying and move_type in ORDER_RANGE_MOVES:
        for character in situation.units:
            if character.army == unit.army and is_character(character) and character.models:
                out.append(
                    within(
                        situation,
                        character.models,
                        COMMAND_RANGE,
                        "range order-range",
                        f"{COMMAND_RANGE:g} cm order range of {character.name or character.id}",
                    )
                )
    if move_type == "initiative-charge":
        out.append(
            within(
                situation,
                unit.models,
                INITIATIVE_RANGE,
                "range initiative-range",
                f"{INITIATIVE_RANGE:g} cm initiative range",
            )
        )
    return out
