"""The drawing list: one description of a picture of the table, drawn twice.

`scene(situation, highlight=..., overlays=...)` turns a `rules.Situation` into a `Scene` of plain
shapes (grid lines, terrain areas, model marks, labels, overlays, a legend). The SVG template
(templates/battlefield/table.svg) and the Pillow painter (battlefield/pictures.py) both draw that
same list, so the PNG shows the same table as the SVG.

Conventions (RULES.md 0): every coordinate is in table units (40K inches, Warmaster cm), origin at
the table's top-left corner, x to the right, y downwards, as in SVG: nothing is flipped. Facing is
degrees clockwise from +x. Line widths and text sizes are given in table units too, derived from
`px`, the size of one pixel when the whole picture is about 1200 pixels wide, so pictures of a
small and a large table look alike.

Styling:
- Armies take colours from the Okabe-Ito palette (distinguishable with the common kinds of colour
  blindness): an army whose name (or id) names a colour takes it ("Red army" red), the others
  the free colours in the order the scenario lists them (`army_palette`). Each army also has a
  mark on its bases and in its legend swatch (none, an inner ring, a dot, both: ARMY_MARKS), so
  armies differ by more than colour.
- Labels (unit names, terrain names and heights, overlay labels) are placed greedily
  (`LabelPlacer`): each takes the first candidate spot that stays on the table and covers no
  model, ghost, objective or label placed before it; one that fits nowhere becomes a numbered
  marker, spelled out in the legend ("1 = Khorne Berzerkers").
- Terrain is styled by the engine's kind of terrain (the registry's, rules.systems), with finer
  looks under a kind kept by the game's presentation module (battlefield/games): 40K by category
  (RULES.md 1.5: exposed light sand with a dashed edge, light green, dense brown, `solid`
  darkest); Warmaster by type (RULES.md 2.2: open, hill, woods, river/ford, village, road/bridge,
  low obstacle, deep water, impassable).
- A facing tick (a line from the centre to the front edge) is drawn on every base whose facing
  matters: every non-round base, and round bases turned away from the default facing.
- A highlighted model gets a ring just outside its base: a black line between two white lines,
  so it stands out at better than 3:1 against any table, terrain or army colour.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import numpy as np
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry

from rules.geometry import Base
from rules.memory import Kept, approximate_bytes
from rules.situation import Model, Situation, TerrainFeature, Unit
from rules.systems import SYSTEMS

from .games import game
from .games.base import TerrainStyle

#: Okabe-Ito colours, in the order armies take them (LIMITS allows at most 8 armies).
ARMY_COLOURS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#56B4E9",
    "#CC79A7",
    "#F0E442",
    "#000000",
)
ARMY_COLOUR_NAMES = (
    "blue",
    "orange",
    "green",
    "red",
    "sky blue",
    "purple",
    "yellow",
    "black",
)

PAGE_COLOUR = "#FFFFFF"
TABLE_COLOUR = "#EEEADF"
INK = "#1A1A1A"
HALO = "#FFFFFF"

#: Reference width of a picture in pixels: `px` is one of these pixels in table units.
REFERENCE_PX = 1200
MARGIN_PX = 28
LABEL_PX = 14
AXIS_PX = 11
LEGEND_PX = 13


@dataclass(frozen=True)
class Paint:
    """How a shape is filled and stroked. Colours are "#RRGGBB"; widths and dashes in table
    units; `opacity` applies to the fill only (overlays are see-through, terrain is not)."""

    fill: str | None = None
    stroke: str | None = None
    width: float = 0.0
    dash: tuple[float, ...] = ()
    opacity: float = 1.0

    @property
    def attrs(self) -> str:
        """SVG presentation attributes (our own colours and numbers only: safe markup)."""
        parts = [f'fill="{self.fill or "none"}"']
        if self.fill and self.opacity < 1:
            parts.append(f'fill-opacity="{num(self.opacity)}"')
        if self.stroke and self.width > 0:
            parts.append(f'stroke="{self.stroke}" stroke-width="{num(self.width)}"')
            if self.dash:
                parts.append(f'stroke-dasharray="{" ".join(num(d) for d in self.dash)}"')
            parts.append('stroke-linejoin="round"')
        else:
            parts.append('stroke="none"')
        return " ".join(parts)


@dataclass(frozen=True)
class LevelMark:
    """The upper floors and walls of one 40K terrain feature (RULES.md 1.5): floors shaded and
    labelled with their heights, walls drawn as thick lines labelled with theirs."""

    feature: str
    floors: tuple[Area, ...]
    walls: tuple[Path, ...]
    labels: tuple[Label, ...]


#: Overlay looks by css class; the first known class of an overlay picks its paint.
#: Widths and dashes are in reference pixels, scaled to table units per scene.
OVERLAY_STYLES = {
    "reachable": ("#0072B2", 0.18, "#0072B2", 1.5, (6, 4)),
    "engagement": ("#D55E00", 0.08, "#D55E00", 1.5, (5, 3)),
    "coherency": (None, 1.0, "#009E73", 1.5, (2, 3)),
    "blocked": ("#D55E00", 0.25, "#D55E00", 1.0, ()),
    "path": (None, 1.0, INK, 1.5, (4, 3)),
    "ruler": (None, 1.0, INK, 2.0, ()),
    "ghost": ("#FFFFFF", 0.55, INK, 1.5, (3, 2)),
    "arrow": (INK, 1.0, INK, 2.0, ()),
    "trail": (None, 1.0, "#4A4438", 1.5, (1, 3)),
    "trail-start": (None, 1.0, "#4A4438", 1.0, ()),
    "target-zone": ("#D55E00", 0.1, "#D55E00", 2.0, (6, 3)),
    "flyer-reach": ("#56B4E9", 0.1, "#0072B2", 1.5, (8, 4)),
    "order-range": (None, 1.0, "#CC79A7", 2.0, (6, 3)),
    "initiative-range": (None, 1.0, "#D55E00", 2.0, (2, 3)),
    "overlay": ("#333333", 0.12, "#333333", 1.5, ()),
}


def num(value: float) -> str:
    """A coordinate for SVG: three decimals at most (1/1000 in or cm is far below a pixel)."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _points_text(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{num(x)},{num(y)}" for x, y in points)


def _path_data(rings: Sequence[Sequence[tuple[float, float]]], closed: bool = True) -> str:
    parts = []
    for ring in rings:
        if not ring:
            continue
        head, *rest = ring
        parts.append(
            f"M{num(head[0])} {num(head[1])}"
            + "".join(f"L{num(x)} {num(y)}" for x, y in rest)
            + ("Z" if closed else "")
        )
    return "".join(parts)


# -- the shapes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lines:
    """Straight segments ((x1, y1), (x2, y2)) sharing one paint (grid lines)."""

    css: str
    segments: tuple[tuple[tuple[float, float], tuple[float, float]], ...]
    paint: Paint

    @property
    def d(self) -> str:
        return "".join(
            f"M{num(a[0])} {num(a[1])}L{num(b[0])} {num(b[1])}" for a, b in self.segments
        )


@dataclass(frozen=True)
class Area:
    """Filled polygons (each ring list: exterior first, then holes), e.g. terrain or a region."""

    id: str
    css: str
    polygons: tuple[tuple[tuple[tuple[float, float], ...], ...], ...]
    paint: Paint
    title: str = ""
    data: tuple[tuple[str, str], ...] = ()

    @property
    def d(self) -> str:
        return _path_data([ring for polygon in self.polygons for ring in polygon])


@dataclass(frozen=True)
class Path:
    """An open polyline (a ruler, a path moved)."""

    points: tuple[tuple[float, float], ...]
    paint: Paint

    @property
    def d(self) -> str:
        return _path_data([self.points], closed=False)


@dataclass(frozen=True)
class Disc:
    """A circle (a point overlay, or an army swatch in the legend)."""

    x: float
    y: float
    r: float
    paint: Paint

    @property
    def cx(self) -> str:
        return num(self.x)

    @property
    def cy(self) -> str:
        return num(self.y)

    @property
    def radius(self) -> str:
        return num(self.r)


@dataclass(frozen=True)
class Label:
    """A line of text with a white halo. `anchor` is "start", "middle" or "end"; y is the
    baseline, as in SVG."""

    text: str
    x: float
    y: float
    size: float
    fill: str = INK
    anchor: str = "middle"
    halo: float = 0.0
    weight: str = "normal"

    @property
    def attrs(self) -> str:
        parts = [
            f'x="{num(self.x)}" y="{num(self.y)}" font-size="{num(self.size)}"',
            f'text-anchor="{self.anchor}" fill="{self.fill}"',
        ]
        if self.weight != "normal":
            parts.append(f'font-weight="{self.weight}"')
        if self.halo:
            parts.append(
                f'stroke="{HALO}" stroke-width="{num(self.halo)}" '
                'stroke-linejoin="round" paint-order="stroke"'
            )
        return " ".join(parts)


@dataclass(frozen=True)
class ModelMark:
    """One model's base, drawn at its centre and turned to its facing.

    The shape is given in the model's own frame (centre at the origin, facing +x) so the SVG can
    place it with one transform (easy to drag); `outline` is the same shape on the table, for
    Pillow. `shape` is "circle" (r), "ellipse" (rx along the facing, ry) or "polygon" (local)."""

    id: str
    unit: str
    army: str
    x: float
    y: float
    facing: float
    shape: str
    r: float
    rx: float
    ry: float
    local: tuple[tuple[float, float], ...]
    outline: tuple[tuple[float, float], ...]
    paint: Paint
    tick: tuple[float, float] | None  # local x from, to along the facing; None: no tick
    tick_paint: Paint
    title: str
    highlighted: bool = False
    ring_local: tuple[tuple[float, float], ...] = ()
    ring_outline: tuple[tuple[float, float], ...] = ()
    ring_r: float = 0.0
    ring_width: float = 0.0
    #: The army's second cue (ARMY_MARKS): an inner ring (radius, or outline for a non-round
    #: base, in the model's frame) and/or a centre dot, in the ink that reads on the colour.
    mark_ring_r: float = 0.0
    mark_ring_local: tuple[tuple[float, float], ...] = ()
    mark_dot_r: float = 0.0
    mark_paint: Paint = Paint()

    @property
    def mark_ring_points(self) -> str:
        return _points_text(self.mark_ring_local)

    @property
    def svg_mark_ring_r(self) -> str:
        return num(self.mark_ring_r)

    @property
    def svg_mark_dot_r(self) -> str:
        return num(self.mark_dot_r)

    @property
    def transform(self) -> str:
        turn = f" rotate({num(self.facing % 360)})" if self.facing % 360 else ""
        return f"translate({num(self.x)} {num(self.y)}){turn}"

    @property
    def points(self) -> str:
        return _points_text(self.local)

    @property
    def ring_points(self) -> str:
        return _points_text(self.ring_local)

    @property
    def svg_r(self) -> str:
        return num(self.r)

    @property
    def svg_rx(self) -> str:
        return num(self.rx)

    @property
    def svg_ry(self) -> str:
        return num(self.ry)

    @property
    def svg_ring_r(self) -> str:
        return num(self.ring_r)

    @property
    def tick_d(self) -> str:
        return f"M{num(self.tick[0])} 0L{num(self.tick[1])} 0" if self.tick else ""

    @property
    def ring_outer(self) -> str:
        return num(self.ring_width * 3)

    @property
    def ring_inner(self) -> str:
        return num(self.ring_width)

    def to_table(self, local: Iterable[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
        """Points from the model's frame to table coordinates (turn by the facing, then move)."""
        return _place(local, self.x, self.y, self.facing)


@dataclass(frozen=True)
class UnitGroup:
    id: str
    army: str
    name: str
    colour: str
    models: tuple[ModelMark, ...]
    label: Label | None


@dataclass(frozen=True)
class OverlayMark:
    css: str
    areas: tuple[Area, ...]
    paths: tuple[Path, ...]
    discs: tuple[Disc, ...]
    label: Label | None


@dataclass(frozen=True)
class ObjectiveMark:
    """An objective marker: a 40 mm disc (the size of the marker on the table) and its name."""

    id: str
    disc: Disc
    label: Label
    title: str


@dataclass(frozen=True)
class LegendEntry:
    """One legend line: a swatch ("disc" for an army, "square" for terrain, "zone" for a
    deployment zone, "objective" for the objective markers) and its text.
    The page template may render these itself (`legend_entries`); the pictures draw them in the
    strip under the table."""

    kind: str
    text: str
    paint: Paint
    swatch: Disc | Area | None = None
    label: Label | None = None
    #: An army's second cue (ARMY_MARKS), drawn in its swatch as on its bases.
    mark: str = ""

    @property
    def mark_ring_r(self) -> str:
        r = self.swatch.r if isinstance(self.swatch, Disc) and "ring" in self.mark else 0.0
        return num(r * MARK_RING) if r else ""

    @property
    def mark_dot_r(self) -> str:
        r = self.swatch.r if isinstance(self.swatch, Disc) and "dot" in self.mark else 0.0
        return num(r * MARK_DOT) if r else ""

    @property
    def mark_width(self) -> str:
        return num(self.paint.width)

    @property
    def mark_ink(self) -> str:
        return _ink_on(self.paint.fill) if self.paint.fill else INK


@dataclass(frozen=True)
class Scene:
    system: str
    unit: str
    width: float
    height: float
    view: tuple[float, float, float, float]  # min x, min y, width, height (table units)
    px: float
    title: str
    desc: str
    grid_minor: Lines
    grid_major: Lines
    border: Paint
    terrain: tuple[Area, ...]
    units: tuple[UnitGroup, ...]
    overlays: tuple[OverlayMark, ...]
    axis: tuple[Label, ...]
    legend: tuple[LegendEntry, ...]
    legend_title: Label | None = None
    zones: tuple[Area, ...] = ()
    objectives: tuple[ObjectiveMark, ...] = ()
    #: The layout's name and where it came from (scenario `source`), under the legend.
    caption: Label | None = None
    font_family: str = "DejaVu Sans, Verdana, Arial, sans-serif"
    extra: dict = field(default_factory=dict, compare=False)
    #: 40K terrain in three dimensions (RULES.md 1.5): floors and walls over the terrain areas.
    levels: tuple[LevelMark, ...] = ()
    #: Terrain names (and a block's height), placed among the other labels.
    terrain_labels: tuple[Label, ...] = ()

    @property
    def view_box(self) -> str:
        return " ".join(num(v) for v in self.view)

    @property
    def page(self) -> tuple[str, str, str, str]:
        """The whole picture (table, margins, legend) as SVG numbers: x, y, width, height."""
        return tuple(num(v) for v in self.view)  # type: ignore[return-value]

    @property
    def svg_width(self) -> str:
        return num(self.width)

    @property
    def svg_height(self) -> str:
        return num(self.height)

    @property
    def border_width(self) -> str:
        return num(self.border.width)


# -- building the scene -----------------------------------------------------------------------


def terrain_style(system: str, feature: TerrainFeature) -> TerrainStyle:
    """The look of a terrain feature: by the engine's kind of terrain (the registry's), finer
    looks by its canonical name kept by the game's presentation module (battlefield/games)."""
    described = SYSTEMS[system]
    name = getattr(feature, described.terrain_field)
    return game(system).terrain_look(
        feature, described.terrain_kind(name), described.terrain_name(name)
    )


#: Colour words in an army's name (or id) -> the palette colour that looks like it, so that
#: "Red army" is drawn red (vermillion is Okabe-Ito's red).
COLOUR_WORDS = {
    "blue": 0,
    "navy": 0,
    "orange": 1,
    "green": 2,
    "red": 3,
    "crimson": 3,
    "scarlet": 3,
    "vermillion": 3,
    "sky": 4,
    "cyan": 4,
    "purple": 5,
    "pink": 5,
    "violet": 5,
    "yellow": 6,
    "gold": 6,
    "black": 7,
}


def army_palette(situation: Situation) -> dict[str, int]:
    """Army id -> index into ARMY_COLOURS: an army whose name (else id) names a colour takes
    that colour ("Red army" red, the first such army keeping it); the others take the free
    colours in the order the scenario lists them."""
    chosen: dict[str, int] = {}
    for army in situation.armies:
        for text in (army.name, army.id):
            words = [w for w in _words(text) if w in COLOUR_WORDS]
            index = COLOUR_WORDS[words[0]] if words else None
            if index is not None and index not in chosen.values():
                chosen[army.id] = index
                break
    free = [i for i in range(len(ARMY_COLOURS)) if i not in chosen.values()]
    for army in situation.armies:
        if army.id not in chosen:
            chosen[army.id] = free.pop(0) if free else len(chosen) % len(ARMY_COLOURS)
    return chosen


def _words(text: str) -> list[str]:
    return "".join(c.lower() if c.isalpha() else " " for c in text or "").split()


def army_colours(situation: Situation) -> dict[str, str]:
    """Army id -> colour (see `army_palette`)."""
    return {army: ARMY_COLOURS[i] for army, i in army_palette(situation).items()}


#: A second cue besides colour, by the order the scenario lists the armies (colour-blind
#: players, greyscale prints): nothing, an inner ring, a centre dot, both.
ARMY_MARKS = ("", "ring", "dot", "ring dot")


def army_marks(situation: Situation) -> dict[str, str]:
    return {a.id: ARMY_MARKS[i % len(ARMY_MARKS)] for i, a in enumerate(situation.armies)}


@lru_cache(maxsize=64)
def _ink_on(colour: str) -> str:
    """Black or white, whichever reads better on `colour` (WCAG relative luminance)."""
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    return INK if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else HALO


def _polygons(geometry: BaseGeometry) -> list[Polygon]:
    if geometry.is_empty:
        return []
    if isinstance(geometry, Polygon):
        return [geometry]
    return [g for part in getattr(geometry, "geoms", ()) for g in _polygons(part)]


def _rings(polygon: Polygon) -> tuple[tuple[tuple[float, float], ...], ...]:
    return tuple(
        tuple((float(x), float(y)) for x, y in ring.coords[:-1])
        for ring in (polygon.exterior, *polygon.interiors)
    )


@lru_cache(maxsize=256)
def _base_shape(base: Base) -> tuple[str, float, float, float, tuple, float]:
    """A base in its own frame (centre at the origin, facing +x): the SVG shape, its sizes, the
    outline's points, and how far the front edge is from the centre along the facing."""
    if base.kind == "round":
        return "circle", base.radius, 0.0, 0.0, (), base.radius
    if base.kind == "oval":
        rx, ry = base.size[0] / 2, base.size[1] / 2
        local = tuple(
            (rx * math.cos(2 * math.pi * i / 64), ry * math.sin(2 * math.pi * i / 64))
            for i in range(64)
        )
        return "ellipse", 0.0, rx, ry, local, rx
    if base.kind == "rect":
        frontage, depth = base.size
        local = (
            (-depth / 2, -frontage / 2),
            (depth / 2, -frontage / 2),
            (depth / 2, frontage / 2),
            (-depth / 2, frontage / 2),
        )
        return "polygon", 0.0, 0.0, 0.0, local, depth / 2
    local = tuple(base.hull)
    # A hull's front is where the facing ray from the centre leaves the outline.
    ray = LineString([(0, 0), (base.radius * 2 + 1, 0)]).intersection(Polygon(local).exterior)
    front = max((p.x for p in _points(ray)), default=base.radius)
    return "polygon", 0.0, 0.0, 0.0, local, front


@lru_cache(maxsize=256)
def _grown(local: tuple[tuple[float, float], ...], gap: float) -> tuple[tuple[float, float], ...]:
    """An outline pushed out by `gap` (rounded corners): where a highlight ring goes."""
    grown = Polygon(local).buffer(gap, 8)
    return tuple((float(x), float(y)) for x, y in grown.exterior.coords[:-1])


def _place(
    points: Iterable[tuple[float, float]], x: float, y: float, facing: float
) -> tuple[tuple[float, float], ...]:
    """Points from a model's frame to the table: turn by the facing (clockwise with y down),
    then move to the centre."""
    a = math.radians(facing)
    c, s = math.cos(a), math.sin(a)
    return tuple((x + px * c - py * s, y + px * s + py * c) for px, py in points)


#: The army mark's inner ring and dot, as fractions of the base's size.
MARK_RING, MARK_DOT = 0.55, 0.22


def _model_mark(
    model: Model,
    army: str,
    colour: str,
    title: str,
    px: float,
    highlighted: bool,
    mark: str = "",
) -> ModelMark:
    shape, r, rx, ry, local, front = _base_shape(model.base)
    half = r if shape == "circle" else min(rx, ry) if shape == "ellipse" else _half_size(local)
    ink = _ink_on(colour)
    turned = bool(model.facing % 360)
    tick = (front * 0.35, front) if shape != "circle" or turned else None
    ring_gap = 2.5 * px
    ring_local = _grown(local, ring_gap) if highlighted and shape != "circle" else ()
    return ModelMark(
        id=model.id,
        unit=model.unit,
        army=army,
        x=model.x,
        y=model.y,
        facing=model.facing,
        shape=shape,
        r=r,
        rx=rx,
        ry=ry,
        local=local,
        outline=_place(local, model.x, model.y, model.facing),
        paint=Paint(colour, INK, 1.0 * px),
        tick=tick,
        tick_paint=Paint(None, _ink_on(colour), 2.0 * px),
        title=title,
        highlighted=highlighted,
        ring_local=ring_local,
        ring_outline=_place(ring_local, model.x, model.y, model.facing),
        ring_r=r + ring_gap if highlighted and shape == "circle" else 0.0,
        ring_width=2.0 * px if highlighted else 0.0,
        mark_ring_r=r * MARK_RING if "ring" in mark and shape == "circle" else 0.0,
        mark_ring_local=tuple((x * MARK_RING, y * MARK_RING) for x, y in local)
        if "ring" in mark and shape != "circle"
        else (),
        mark_dot_r=half * MARK_DOT if "dot" in mark else 0.0,
        mark_paint=Paint(None, ink, max(1.2 * px, half * 0.12)),
    )


@lru_cache(maxsize=256)
def _half_size(local: tuple[tuple[float, float], ...]) -> float:
    """Half the smaller side of an outline's bounding box (how big an army mark may be)."""
    xs, ys = [x for x, _ in local], [y for _, y in local]
    return min(max(xs) - min(xs), max(ys) - min(ys)) / 2


def _points(geometry: BaseGeometry) -> list[Point]:
    if geometry.is_empty:
        return []
    if isinstance(geometry, Point):
        return [geometry]
    if hasattr(geometry, "geoms"):
        return [p for g in geometry.geoms for p in _points(g)]
    return [Point(c) for c in geometry.coords]


#: Overlays no label may cover (drawn where a model could have gone, and the arrow to it).
KEEP_CLEAR = ("ghost", "arrow")


def _css_of(overlay) -> str:
    """An overlay's css class, whether it is an Overlay-like object or a tuple."""
    return str(overlay[1] if isinstance(overlay, tuple) else getattr(overlay, "css_class", ""))


#: Looks kept between drawings (issue 16), at most this many bytes (approximately): what a
#: drawing takes from the board (`_board_layer`), a unit's bases (`_unit_marks`) and an
#: overlay's shapes (`_overlay_shapes`), each by the very objects it is drawn from.
KEPT_LOOKS_BYTES = 32 * 2**20
#: What one kept unit's bases count for, per model, the unit they are kept by included
#: (rules.memory on the busy bench table: the marks ~3.5 KB, the unit ~2.6 KB a model; a unit
#: is kept on every Check, so it is not measured each time).
MODEL_MARK_BYTES = 7000


class KeptLooks(Kept):
    """Values derived from objects that a Situation shares with its copies: a scenario's
    Situation is kept per version (battlefield/pagecache.py) and the stepper's pictures are
    copies with one unit moved (stepper.placed), which share its table, terrain, armies and
    the units that did not move. Kept by the objects' identity, with the objects themselves
    held (so an id is never reused while its entry lives) and by every other value the looks
    depend on, in a `rules.memory.Kept` store (least recently used first out, within its bytes).
    The objects (which may carry GEOS geometry) are only held, never used from here."""

    def get(self, objects: tuple, values: tuple, build, size=None):  # type: ignore[override]
        """The value kept for `objects` (by identity) and `values` (by equality), else
        `build()` kept, at `size(value)` bytes (rules.memory's measure of it without `size`)."""
        key = (tuple(map(id, objects)), values)
        kept = self.look_up(key)
        if kept is not None and all(a is b for a, b in zip(kept[0][0], objects, strict=True)):
            return kept[0][1]
        value = build()
        cost = size(value) if size is not None else approximate_bytes(value)
        self.keep(key, (objects, value), cost)
        return value


_KEPT = KeptLooks(KEPT_LOOKS_BYTES)


def forget_looks() -> None:
    """Empty the kept looks (tests, benchmarks)."""
    _KEPT.clear()


def kept_looks() -> tuple[int, int]:
    """(how many looks are kept, their approximate bytes)."""
    return _KEPT.usage()


def _overlay_shapes(overlay, index: int, px: float, label_size: float) -> tuple:
    """An overlay's drawing apart from where its label goes: (css, areas, paths, discs, label
    text, the label's candidate spots). An overlay is any object with `geometry` (shapely),
    `css_class` and optional `label`, or a tuple (geometry, css_class[, label])."""
    if isinstance(overlay, tuple):
        overlay = SimpleNamespace(
            geometry=overlay[0],
            css_class=(overlay[1:2] or ("",))[0],
            label=(overlay[2:3] or ("",))[0],
        )
    css = str(getattr(overlay, "css_class", "") or "overlay")
    key = next((c for c in css.split() if c in OVERLAY_STYLES), "overlay")
    fill, opacity, stroke, width, dash = OVERLAY_STYLES[key]
    paint = Paint(fill, stroke, width * px, tuple(d * px for d in dash), opacity)
    line_paint = Paint(None, stroke, width * px, tuple(d * px for d in dash))
    geometry = overlay.geometry
    areas: list[Any] = []
    paths: list[Any] = []
    discs: list[Any] = []
    parts = (
        list(getattr(geometry, "geoms", [geometry]))
        if not isinstance(geometry, Polygon)
        else [geometry]
    )
    for part in parts:
        if part.is_empty:
            continue
        if part.geom_type in ("Polygon", "MultiPolygon"):
            areas.append(
                Area(
                    f"overlay-{index}-{len(areas)}",
                    css,
                    tuple(_rings(p) for p in _polygons(part)),
                    paint,
                )
            )
        elif part.geom_type in ("LineString", "LinearRing", "MultiLineString"):
            for line in getattr(part, "geoms", [part]):
                paths.append(Path(tuple((float(x), float(y)) for x, y in line.coords), line_paint))
        elif part.geom_type in ("Point", "MultiPoint"):
            for p in _points(part):
                discs.append(Disc(p.x, p.y, 3 * px, Paint(stroke, HALO, 1 * px)))
        else:  # a nested collection
            _, inner_areas, inner_paths, inner_discs, _, _ = _overlay_shapes(
                (part, css), index, px, label_size
            )
            areas += inner_areas
            paths += inner_paths
            discs += inner_discs
    spots: list[tuple[float, float, str]] = []
    text = str(getattr(overlay, "label", "") or "")
    if text and not geometry.is_empty:
        if geometry.geom_type in ("LineString", "MultiLineString"):
            at = geometry.interpolate(0.5, normalized=True)
            spots = [(at.x, at.y - 4 * px, "middle"), (at.x, at.y + label_size + 4 * px, "middle")]
        else:
            # Near the top of a region, inside it, so it does not sit on the models it is for.
            minx, miny, maxx, maxy = geometry.bounds
            at = Point(geometry.centroid.x, miny + label_size * 1.4)
            if not geometry.contains(at):
                at = geometry.representative_point()
            inside = geometry.representative_point()
            spots = [
                (at.x, at.y, "middle"),
                (inside.x, inside.y, "middle"),
                (geometry.centroid.x, maxy - label_size * 0.5, "middle"),
            ]
        spots += _around(geometry.bounds, label_size, px)
    else:
        text = ""
    return css, tuple(areas), tuple(paths), tuple(discs), text, tuple(spots)


#: What an overlay's kept shapes take, per point and per overlay (rules.memory on an editor's
#: rings: ~140 bytes a point), counted without measuring each (many are drawn only once).
OVERLAY_POINT_BYTES, OVERLAY_BYTES = 160, 1000


def _overlay_bytes(shapes: tuple) -> int:
    _, areas, paths, discs, _, spots = shapes
    points = sum(len(ring) for area in areas for polygon in area.polygons for ring in polygon)
    points += sum(len(path.points) for path in paths) + len(discs) + len(spots)
    return OVERLAY_POINT_BYTES * points + OVERLAY_BYTES


def _overlay_mark(
    overlay,
    index: int,
    px: float,
    label_size: float,
    placer: LabelPlacer | None = None,
    numbered: list[tuple[str, str]] | None = None,
) -> OverlayMark:
    """An overlay (see `_overlay_shapes`) with its label placed by `placer`, or at its first
    spot without one. The shapes are kept for an overlay drawn again (the stepper's reach
    overlays are the same objects on every Check of a version: stepper.reach_overlays)."""
    frozen = getattr(getattr(type(overlay), "__dataclass_params__", None), "frozen", False)
    if isinstance(overlay, tuple) or frozen:
        css, areas, paths, discs, text, spots = _KEPT.get(
            (overlay,),
            ("overlay", index, px, label_size),
            lambda: _overlay_shapes(overlay, index, px, label_size),
            size=_overlay_bytes,
        )
    else:  # an object that might change between drawings: not kept
        css, areas, paths, discs, text, spots = _overlay_shapes(overlay, index, px, label_size)
    label = None
    if text:
        if placer is None:
            x, y, anchor = spots[0]
            label = Label(text, x, y, label_size, fill=INK, halo=3 * px, weight="bold")
        else:
            label = placer.place(text, label_size, spots, numbered, halo=3 * px)
    return OverlayMark(css, areas, paths, discs, label)


@dataclass(frozen=True)
class _BoardLayer:
    """What a drawing takes from the board alone (the table, terrain, deployment zones,
    objectives and armies): the same for every drawing of a scenario's version."""

    grid_minor: Lines
    grid_major: Lines
    terrain: tuple[Area, ...]
    styles: tuple[tuple[str, TerrainStyle], ...]  # the terrain styles used, in order
    zones: tuple[Area, ...]
    objectives: tuple[ObjectiveMark, ...]
    levels: tuple[LevelMark, ...]
    #: Labels' boxes no other label may cover (the floors' and walls' heights, the objectives).
    taken: tuple[Box, ...]
    #: Each terrain feature's name, its size and the spots it may take, for `LabelPlacer`.
    terrain_names: tuple[tuple[str, float, tuple[tuple[float, float, str], ...]], ...]
    axis: tuple[Label, ...]


def _board_layer(situation: Situation, px: float) -> _BoardLayer:
    """The `_BoardLayer` of a situation, drawn at `px` (see `scene`)."""
    width, height = situation.table.width, situation.table.height
    unit = situation.unit_name
    margin = MARGIN_PX * px
    colours = army_colours(situation)
    army_names = {a.id: a.name for a in situation.armies}
    minor, major = game(situation.system).GRID_STEPS

    def segments(step: float, skip: float | None):
        out = []
        for i in range(1, int(math.floor(width / step + 1e-9)) + 1):
            x = i * step
            if x < width - 1e-9 and (skip is None or abs(x / skip - round(x / skip)) > 1e-9):
                out.append(((x, 0.0), (x, height)))
        for i in range(1, int(math.floor(height / step + 1e-9)) + 1):
            y = i * step
            if y < height - 1e-9 and (skip is None or abs(y / skip - round(y / skip)) > 1e-9):
                out.append(((0.0, y), (width, y)))
        return tuple(out)

    grid_minor = Lines("grid-minor", segments(minor, major), Paint(None, "#CFC8B4", 0.6 * px))
    grid_major = Lines("grid-major", segments(major, None), Paint(None, "#A89F86", 1.2 * px))

    terrain = []
    used_styles: dict[str, TerrainStyle] = {}
    for feature in situation.terrain:
        style = terrain_style(situation.system, feature)
        used_styles.setdefault(style.key, style)
        paint = Paint(style.fill, style.stroke, 1.5 * px, (5 * px, 3 * px) if style.dashed else ())
        if situation.table.area.contains(feature.footprint):
            polygons: tuple = ((feature.points,),)  # as entered, vertex order kept
        else:
            clipped = feature.footprint.intersection(situation.table.area)
            polygons = tuple(_rings(p) for p in _polygons(clipped))
        title = game(situation.system).terrain_title(feature, style)
        data: tuple[tuple[str, str], ...] = (("terrain", feature.id), ("type", feature.type))
        if feature.category:
            data += (("category", feature.category),)
        terrain.append(
            Area(
                f"terrain-{feature.id}",
                f"terrain terrain-{style.key}",
                polygons,
                paint,
                title,
                data,
            )
        )

    zones = tuple(
        Area(
            f"zone-{i}",
            "deployment-zone",
            ((zone.points,),),
            _zone_paint(colours.get(zone.army, ARMY_COLOURS[-1]), px),
            f"Deployment zone of {army_names.get(zone.army, zone.army)}"
            + (f" ({zone.name})" if zone.name else ""),
            (("army", zone.army),),
        )
        for i, zone in enumerate(situation.deployment_zones)
    )
    objective_r = OBJECTIVE_MM / 2 / situation.mm_per_unit
    objectives = tuple(
        ObjectiveMark(
            o.id,
            Disc(o.x, o.y, objective_r, OBJECTIVE_PAINT(px)),
            Label(
                o.name or o.id,
                o.x,
                o.y + LABEL_PX * px * 0.35,
                LABEL_PX * px * 0.85,
                halo=2.5 * px,
                weight="bold",
            ),
            f"Objective {o.name or o.id} at ({o.x:g}, {o.y:g})",
        )
        for o in situation.objectives
    )
    levels = terrain_levels(situation, px)
    taken = (
        [_label_box(label) for level in levels for label in level.labels]
        # objective markers and their names are fixed: the other labels keep off them
        + [
            (o.disc.x - o.disc.r, o.disc.y - o.disc.r, o.disc.x + o.disc.r, o.disc.y + o.disc.r)
            for o in objectives
        ]
        + [_label_box(o.label) for o in objectives]
    )
    terrain_names = tuple(
        spots
        for feature in situation.terrain
        if (spots := _terrain_label_spots(situation, feature, px)) is not None
    )

    axis = [Label(unit, -margin * 0.5, -margin * 0.35, AXIS_PX * px, fill="#6B6455")]
    x = major
    while x < width - 1e-9:
        axis.append(Label(f"{x:g}", x, -margin * 0.35, AXIS_PX * px, fill="#6B6455"))
        x += major
    y = major
    while y < height - 1e-9:
        axis.append(
            Label(
                f"{y:g}",
                -margin * 0.2,
                y + AXIS_PX * px * 0.35,
                AXIS_PX * px,
                fill="#6B6455",
                anchor="end",
            )
        )
        y += major
    return _BoardLayer(
        grid_minor,
        grid_major,
        tuple(terrain),
        tuple(used_styles.items()),
        zones,
        objectives,
        levels,
        tuple(taken),
        terrain_names,
        tuple(axis),
    )


#: What a kept board layer takes with the board's objects it is kept by (held too, though the
#: version's Situation may hold them as well), per point it draws: 165 to 204 bytes on the
#: bench table and every demo scenario (rules.memory), so counted as 250 (measuring each costs
#: a quarter of drawing a version's first picture).
BOARD_POINT_BYTES = 250


def _board_bytes(layer: _BoardLayer) -> int:
    points = sum(len(r) for a in layer.terrain + layer.zones for p in a.polygons for r in p)
    points += sum(len(r) for lv in layer.levels for a in lv.floors for p in a.polygons for r in p)
    points += sum(len(wall.points) for lv in layer.levels for wall in lv.walls)
    points += 2 * (len(layer.grid_minor.segments) + len(layer.grid_major.segments))
    points += len(layer.axis) + len(layer.taken) + 4 * len(layer.objectives)
    points += sum(len(spots) for _, _, spots in layer.terrain_names)
    return BOARD_POINT_BYTES * points


def _unit_marks(
    situation: Situation,
    u: Unit,
    colours: dict[str, str],
    army_names: dict[str, str],
    px: float,
    highlight: frozenset[str],
    mark: str,
) -> tuple[ModelMark, ...]:
    """A unit's bases (`_model_mark`), kept for a unit drawn again: only the unit that moved
    is new on a Check."""
    colour = colours.get(u.army, ARMY_COLOURS[-1])
    army_name = army_names.get(u.army, u.army)
    unit = situation.unit_name
    lit = frozenset(m.id for m in u.models if m.id in highlight)
    return _KEPT.get(
        (u,),
        ("unit", colour, army_name, unit, px, lit, mark),
        lambda: tuple(
            _model_mark(
                m, u.army, colour, _model_title(m, u.name, army_name, unit), px, m.id in lit, mark
            )
            for m in u.models
        ),
        size=lambda marks: MODEL_MARK_BYTES * max(1, len(marks)),
    )


def scene(situation: Situation, *, highlight: Iterable[str] = (), overlays: Sequence = ()) -> Scene:
    """The drawing list for a situation (see the module docstring)."""
    width, height = situation.table.width, situation.table.height
    unit = situation.unit_name
    px = max(width, height * 4 / 3) / (REFERENCE_PX - 2 * MARGIN_PX)
    margin = MARGIN_PX * px
    highlight = frozenset(highlight)
    colours = army_colours(situation)
    army_names = {a.id: a.name for a in situation.armies}
    # What the board alone gives is kept by the board's own objects (shared by every copy of a
    # version's Situation, e.g. stepper.placed): a Check draws only what moved.
    parts = (
        situation.table,
        situation.terrain,
        situation.deployment_zones,
        situation.objectives,
        situation.armies,
    )
    board = _KEPT.get(
        parts,
        ("board", situation.system, px),
        lambda: _board_layer(situation, px),
        size=_board_bytes,
    )

    label_size = LABEL_PX * px
    marks_of = army_marks(situation)
    placer = LabelPlacer(
        width,
        height,
        [_model_box(m) for u in situation.units for m in u.models]
        # ghosts and arrows (battlefield/showing.py) are as much "on the table" as models
        + [
            (o[0] if isinstance(o, tuple) else o.geometry).bounds
            for o in overlays
            if _css_of(o) in KEEP_CLEAR
        ],
        board.taken,
    )
    numbered: list[tuple[str, str]] = []  # (number, what it stands for), for the legend
    units = []
    for u in situation.units:
        marks = _unit_marks(
            situation, u, colours, army_names, px, highlight, marks_of.get(u.army, "")
        )
        label = None
        if u.name and u.models:
            # Warmaster 2.9: a unit off the table keeps its stands where it left, for its
            # return; the picture says it is not there
            text = f"{u.name} (off the table)" if u.state.get("off_table") else u.name
            label = placer.place(
                text, label_size, _around(_bounds(u.models), label_size, px), numbered
            )
        units.append(
            UnitGroup(u.id, u.army, u.name, colours.get(u.army, ARMY_COLOURS[-1]), marks, label)
        )

    overlay_marks = tuple(
        _overlay_mark(o, i, px, label_size, placer, numbered) for i, o in enumerate(overlays)
    )
    terrain_labels = tuple(
        replace(label, fill="#3A342A")
        for text, size, spots in board.terrain_names
        if (label := placer.place(text, size, spots, numbered, halo=2 * px, weight="normal"))
        is not None
    )

    used_styles = dict(board.styles)
    legend, legend_bottom = _legend(
        situation, colours, used_styles, width, height + margin, px, numbered
    )
    caption = None
    if text := source_caption(situation.source):
        legend_bottom += 22 * px
        caption = Label(
            text, 0.0, legend_bottom, LEGEND_PX * px * 0.9, fill="#4A4438", anchor="start"
        )
    view = (-margin, -margin, width + 2 * margin, legend_bottom + margin * 0.5 + margin)

    return Scene(
        system=situation.system,
        unit=unit,
        width=width,
        height=height,
        view=view,
        px=px,
        title=situation.name or "Table",
        desc=_description(situation, colours, used_styles),
        grid_minor=board.grid_minor,
        grid_major=board.grid_major,
        border=Paint(None, "#4A4438", 2.0 * px),
        terrain=board.terrain,
        units=tuple(units),
        overlays=overlay_marks,
        axis=board.axis,
        legend=legend,
        zones=board.zones,
        objectives=board.objectives,
        caption=caption,
        levels=board.levels,
        terrain_labels=terrain_labels,
    )


#: Objective markers are 40 mm across (the core rules' marker); drawn at that size.
OBJECTIVE_MM = 40.0


def OBJECTIVE_PAINT(px: float) -> Paint:  # noqa: N802 (a paint that scales with the picture)
    return Paint("#FFFFFF", INK, 2.0 * px)


def _zone_paint(colour: str, px: float) -> Paint:
    """A deployment zone: its army's colour, see-through, with a dashed edge of that colour."""
    return Paint(colour, colour, 2.0 * px, (8 * px, 4 * px), opacity=0.14)


def source_caption(source) -> str:
    """One line naming the layout and where the data came from (scenario `source`), or ""."""
    if not source:
        return ""
    parts = []
    layout = source.get("layout") or {}
    if layout.get("name"):
        where = ", ".join(v for v in (layout.get("deployment"), layout.get("mission")) if v)
        parts.append(f"Layout: {layout['name']}" + (f" ({where})" if where else ""))
    data = " ".join(v for v in (source.get("dataset"), source.get("version")) if v)
    slates = sorted(
        {
            *(source.get("unit_dataslates") or ()),
            *([layout["dataslate"]] if layout.get("dataslate") else []),
        }
    )
    if data:
        parts.append(f"data: {data}" + (f", dataslate {', '.join(slates)}" if slates else ""))
    if source.get("licence"):
        parts.append(source["licence"])
    return " · ".join(parts)


#: Floors: a dark veil, darker for higher floors; walls: near-black lines.
FLOOR_SHADE, WALL_INK = "#2B2824", "#1F1B16"


def terrain_levels(situation: Situation, px: float) -> tuple[LevelMark, ...]:
    """The walls and upper floors of every layered 40K feature (RULES.md 1.5), as drawing marks.

    Each floor is veiled darker the higher it stands and labelled with its height at its centre;
    each wall is a line as thick as the wall (at least 2 px) labelled with its height at its
    middle. Features without walls or floors add nothing."""
    marks = []
    size = LABEL_PX * 0.8 * px
    for feature in situation.terrain:
        if not (feature.walls or feature.floors):
            continue
        top = max((f.height for f in feature.floors), default=1.0) or 1.0
        floors = tuple(
            Area(
                f"floor-{feature.id}-{i}",
                "terrain-floor",
                ((floor.points,),),
                Paint(
                    FLOOR_SHADE,
                    FLOOR_SHADE,
                    0.8 * px,
                    (3 * px, 2 * px),
                    0.12 + 0.18 * floor.height / top,
                ),
                f'{feature.id}: floor {floor.height:g}" up',
            )
            for i, floor in enumerate(feature.floors)
        )
        walls = tuple(
            Path(wall.path, Paint(None, WALL_INK, max(wall.thickness, 2 * px)))
            for wall in feature.walls
        )
        labels = []
        for floor in feature.floors:
            c = floor.footprint.representative_point()
            labels.append(
                Label(
                    f'{floor.height:g}"', c.x, c.y + size * 0.35, size, halo=2 * px, weight="bold"
                )
            )
        for wall in feature.walls:
            mid = LineString(wall.path).interpolate(0.5, normalized=True)
            labels.append(
                Label(f'wall {wall.height:g}"', mid.x, mid.y - size * 0.4, size * 0.85, halo=2 * px)
            )
        marks.append(LevelMark(feature.id, floors, walls, tuple(labels)))
    return tuple(marks)


def _model_title(model: Model, unit_name: str, army_name: str, unit: str) -> str:
    """What a tooltip or screen reader says about a model, its elevation included."""
    up = f", {model.z:g} {unit} up" if model.z > 0 else ""
    return f"{model.id}: {unit_name} ({army_name}){up}"


# -- placing labels ---------------------------------------------------------------------------

Box = tuple[float, float, float, float]  # min x, min y, max x, max y


def _label_box(label: Label) -> Box:
    """The box a label's text covers (estimated, as `_text_width`), its halo included."""
    w = _text_width(label.text, label.size)
    x0 = {"start": label.x, "end": label.x - w}.get(label.anchor, label.x - w / 2)
    pad = label.halo / 2
    return (
        x0 - pad,
        label.y - 0.8 * label.size - pad,
        x0 + w + pad,
        label.y + 0.25 * label.size + pad,
    )


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _model_box(model: Model) -> Box:
    """A box round a model's base: its enclosing circle's (exact for a round base, a little
    generous for others, and far cheaper than the footprint's bounds)."""
    r = model.base.radius
    return (model.x - r, model.y - r, model.x + r, model.y + r)


def _bounds(models) -> Box:
    boxes = [_model_box(m) for m in models]
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _around(box: Box, size: float, px: float) -> list[tuple[float, float, str]]:
    """Where a label for something covering `box` may go, best first: above, below, right,
    left, then the corners, then a line further out (x, baseline y, anchor)."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    gap = 4 * px
    above, below = y0 - gap - 0.25 * size, y1 + gap + 0.8 * size
    side = cy + 0.3 * size
    return [
        (cx, above, "middle"),
        (cx, below, "middle"),
        (x1 + gap, side, "start"),
        (x0 - gap, side, "end"),
        (x0, above, "start"),
        (x1, above, "end"),
        (x0, below, "start"),
        (x1, below, "end"),
        (x1 + gap, y0 + 0.8 * size, "start"),
        (x0 - gap, y0 + 0.8 * size, "end"),
        (x1 + gap, y1, "start"),
        (x0 - gap, y1, "end"),
        (cx, above - 1.2 * size, "middle"),
        (cx, below + 1.2 * size, "middle"),
    ]


class LabelPlacer:
    """Greedy label placement: each label takes the first of its candidate spots that stays on
    the table and covers no model and no label placed before it. A label that fits nowhere is
    replaced by a numbered marker (a short label, placed the same way, or at its first spot if
    even that cannot fit) and listed in the legend as "number  text"."""

    def __init__(self, width: float, height: float, models: Iterable[Box], taken: Iterable[Box]):
        self.table: Box = (0.0, 0.0, width, height)
        self.models = list(models)
        # the models' boxes as columns: one vectorised test per candidate spot
        self._boxes = np.array(self.models, dtype=float).reshape(-1, 4)
        self.taken = list(taken)

    def fits(self, box: Box) -> bool:
        t = self.table
        if box[0] < t[0] or box[1] < t[1] or box[2] > t[2] or box[3] > t[3]:
            return False
        b = self._boxes
        if len(b) and np.any(
            (box[0] < b[:, 2]) & (b[:, 0] < box[2]) & (box[1] < b[:, 3]) & (b[:, 1] < box[3])
        ):
            return False
        return not any(_overlaps(box, o) for o in self.taken)

    def take(self, label: Label) -> Label:
        self.taken.append(_label_box(label))
        return label

    def place(
        self,
        text: str,
        size: float,
        spots: Sequence[tuple[float, float, str]],
        numbered: list[tuple[str, str]] | None,
        *,
        halo: float | None = None,
        weight: str = "bold",
    ) -> Label | None:
        """The label at its first free spot; else a numbered marker (or None when `numbered`
        is None: the caller can do without the label)."""
        halo = size * 3 / LABEL_PX if halo is None else halo
        for x, y, anchor in spots:
            label = Label(text, x, y, size, anchor=anchor, halo=halo, weight=weight)
            if self.fits(_label_box(label)):
                return self.take(label)
        if numbered is None or not spots:
            return None
        number = str(len(numbered) + 1)
        numbered.append((number, text))
        for x, y, anchor in spots:
            label = Label(number, x, y, size, anchor=anchor, halo=halo, weight="bold")
            if self.fits(_label_box(label)):
                return self.take(label)
        # Nowhere free: the spot that covers the fewest models and labels.
        tries = [Label(number, x, y, size, anchor=a, halo=halo, weight="bold") for x, y, a in spots]
        return self.take(min(tries, key=self.covered))

    def covered(self, label: Label) -> int:
        box = _label_box(label)
        return sum(_overlaps(box, o) for o in self.models) + sum(
            _overlaps(box, o) for o in self.taken
        )


def _terrain_label_spots(
    situation: Situation, feature: TerrainFeature, px: float
) -> tuple[str, float, tuple[tuple[float, float, str], ...]] | None:
    """What a feature's label says (its type, as the scenario names it, and for a block its
    height: "Ruin 5\"", layered features carrying their heights on the floors and walls), its
    size and the spots it may take, best first: inside the feature if it fits there, else beside
    it (`scene` places it, or a numbered marker); None for a feature with no name on the
    table."""
    text = game(situation.system).terrain_name(feature, situation.unit_name)
    if not text:
        return None
    size = LABEL_PX * 0.8 * px
    x0, y0, x1, y1 = feature.footprint.bounds
    table = situation.table
    on_table = 0 <= x0 and 0 <= y0 and x1 <= table.width and y1 <= table.height
    shape = feature.footprint if on_table else feature.footprint.intersection(table.area)
    if shape.is_empty:
        return None
    inside = shape.representative_point()
    x0, y0, x1, y1 = shape.bounds
    spots = [
        (inside.x, inside.y + 0.35 * size, "middle"),
        ((x0 + x1) / 2, y0 + 1.2 * size, "middle"),
        ((x0 + x1) / 2, y1 - 0.4 * size, "middle"),
        *_around(shape.bounds, size, px),
    ]
    return text, size, tuple(spots)


def _text_width(text: str, size: float) -> float:
    """A text's width estimated from its length (both painters lay out the legend alike)."""
    return 0.55 * size * len(text)


def _legend(
    situation: Situation,
    colours: dict[str, str],
    styles: dict[str, TerrainStyle],
    width: float,
    top: float,
    px: float,
    numbered: Sequence[tuple[str, str]] = (),
) -> tuple[tuple[LegendEntry, ...], float]:
    """Legend entries laid out in rows under the table; returns them and the bottom y."""
    size = LEGEND_PX * px
    row = 22 * px
    swatch = 12 * px
    entries = [("disc", a.name, Paint(colours[a.id], INK, 1.0 * px)) for a in situation.armies]
    marks = {a.name: army_marks(situation)[a.id] for a in situation.armies}
    entries += [
        ("square", s.label, Paint(s.fill, s.stroke, 1.5 * px, (3 * px, 2 * px) if s.dashed else ()))
        for s in styles.values()
    ]
    names = {a.id: a.name for a in situation.armies}
    for army in dict.fromkeys(z.army for z in situation.deployment_zones):
        paint = _zone_paint(colours.get(army, ARMY_COLOURS[-1]), px)
        entries.append(
            (
                "zone",
                f"Deployment zone: {names.get(army, army)}",
                replace(paint, dash=(3 * px, 2 * px), opacity=0.3),
            )
        )
    if situation.objectives:
        entries.append(("objective", "Objective marker", OBJECTIVE_PAINT(px)))
    # Labels that did not fit on the table: their numbers, spelled out.
    entries += [("number", f"{number} = {text}", Paint()) for number, text in numbered]
    laid = []
    x, y = 0.0, top + row * 0.8
    for kind, text, paint in entries:
        span = swatch + 6 * px + _text_width(text, size) + 16 * px
        if x > 0 and x + span > width:
            x, y = 0.0, y + row
        if kind == "number":
            laid.append(
                LegendEntry(kind, text, paint, None, Label(text, x, y, size, anchor="start"))
            )
            x += _text_width(text, size) + 16 * px
            continue
        if kind in ("disc", "objective"):
            sw: Disc | Area = Disc(x + swatch / 2, y - swatch / 2 + size * 0.15, swatch / 2, paint)
        else:
            y0 = y - swatch + size * 0.15
            sw = Area(
                "",
                "legend-swatch",
                ((((x, y0), (x + swatch, y0), (x + swatch, y0 + swatch), (x, y0 + swatch)),),),
                paint,
            )
        laid.append(
            LegendEntry(
                kind,
                text,
                paint,
                sw,
                Label(text, x + swatch + 6 * px, y, size, anchor="start"),
                marks.get(text, "") if kind == "disc" else "",
            )
        )
        x += span
    return tuple(laid), (y if laid else top)


def _description(
    situation: Situation, colours: dict[str, str], styles: dict[str, TerrainStyle]
) -> str:
    """A sentence or two for screen readers: the table, its terrain and who is on it."""
    t = situation.table
    unit = situation.unit_name
    parts = [
        f"A {t.width:g} by {t.height:g} {unit} table with "
        f"{_count(len(situation.terrain), 'terrain feature')}"
    ]
    palette = army_palette(situation)
    for army in situation.armies:
        units = [u for u in situation.units if u.army == army.id]
        models = sum(len(u.models) for u in units)
        colour_name = ARMY_COLOUR_NAMES[palette[army.id]]
        parts.append(
            f"{army.name} ({colour_name}): {_count(len(units), 'unit')}, {_count(models, 'model')}"
        )
    return "; ".join(parts) + "."


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
