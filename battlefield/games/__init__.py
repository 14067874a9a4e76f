"""Web-only presentation, one module per game: what the engine's registry (`rules.systems`)
does not hold because only the web app needs it: terrain presets and looks, table sizes, grid
steps, how the editor lays out a new unit, the rings it draws.

Everything else about a game (its move types, declarations, phases, state flags, terrain kinds,
unit) is read from `rules.SYSTEMS`. These modules are the only place in `battlefield/` and
`templates/` that spell a game id; `tests/battlefield/test_registry_use.py` holds the app to that.

Each module has the same names:

- `SYSTEM`: the game id it presents (FORMAT.md `system`).
- `TABLE_SIZES`: [(size "WxH", label)] offered for a new scenario, in the game's unit.
- `GRID_STEPS`: (minor, major) grid spacing of the picture, in the game's unit.
- `PRESETS`: {preset key: {"label", "type", "footprint", and the terrain fields it sets}}.
- `TERRAIN_LOOKS`: {engine terrain kind: {None: its look, canonical name: a finer look}}.
- `terrain_look(feature, kind)`: the `TerrainStyle` of a feature of that kind (`kind` is the
  registry's `TerrainKind`, or None when the game has no such kind).
- `terrain_title(feature, style)`: the feature's tooltip.
- `BLOCK_GAP`: the gap between bases when the editor places a new unit as a block.
- `DEFAULT_FACING`: the facing the editor offers for a new unit.
- `RINGS`: the radius of the rings the editor draws round the selected unit's models, or None.
- `ENGAGEMENT`: (horizontal, vertical) engagement range the ruler reports, or None.
"""

from __future__ import annotations

from types import ModuleType

from . import warmaster, wh40k

GAMES: dict[str, ModuleType] = {module.SYSTEM: module for module in (wh40k, warmaster)}


def game(system: str) -> ModuleType:
    """The presentation module of a game system."""
    return GAMES[system]
