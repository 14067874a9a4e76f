"""Pictures of the table: an SVG for the page and a PNG for sharing and download.

Both are drawn from one drawing list, `battlefield.scene.scene(situation)`, so they show the same
table: terrain styled by 40K category or Warmaster type, bases in army colours with facing ticks,
unit names, a grid (1 in / 6 in for 40K, 10 cm / 50 cm for Warmaster), axis numbers and a legend
strip under the table.

Public API (the web app codes against these names):
- `table_svg(situation, *, highlight=(), overlays=(), dom_id="table", interactive=False)`: a
  whole `<svg>` element (safe markup) rendered by templates/battlefield/table.svg. Its viewBox
  is in table units with the origin at the table's top-left corner, so a click maps to table
  coordinates directly (the viewBox also holds a margin and the legend strip below the table;
  `data-width` / `data-height` give the table). Models are `<g class="model" data-model
  data-unit data-army id="{dom_id}-model-{id}" transform="translate(x y) rotate(facing)">`
  inside `<g class="unit" data-unit data-army>`; highlighted models get class `highlighted` and
  child rings of class `highlight`. No <style> element and no inline style: looks are
  presentation attributes (so a downloaded file is self-contained and CSP has nothing to allow),
  and the page's CSS may override them through the classes.
- `table_png(situation, *, width_px=1200, highlight=(), overlays=()) -> bytes`: the same picture
  drawn with Pillow (antialiased: drawn at 2x, then `Image.reduce(2)`; saved as a palette PNG).
- `Overlay(geometry, css_class, label="")`: something extra to draw on the table (a reachable
  region, an engagement or coherency ring, a ruler line). Any object with `geometry` (shapely),
  `css_class` and optionally `label` will do, and so will a tuple (geometry, css_class[, label]).
  Known classes, which pick the look: reachable,
  engagement, coherency, blocked, path, ruler, and those of battlefield/showing.py (ghost,
  arrow, trail, trail-start, target-zone, flyer-reach, order-range, initiative-range); the
  first known class of an overlay wins; anything else is drawn in neutral grey.
- `legend_entries(situation)`: the legend as (kind, text, fill, stroke) rows, for a page that
  wants to render the legend itself (the pictures already carry it under the table).
"""

from __future__ import annotations

import io
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe
from PIL import Image, ImageColor, ImageDraw, ImageFont
from shapely.geometry.base import BaseGeometry

from rules.situation import Situation

from .scene import (
    HALO,
    PAGE_COLOUR,
    TABLE_COLOUR,
    Area,
    KeptLooks,
    Label,
    Paint,
    Scene,
    scene,
)

__all__ = ["Overlay", "legend_entries", "table_png", "table_svg"]


@dataclass(frozen=True)
class Overlay:
    """A shape drawn over the table: shapely geometry in table units, a css class choosing its
    look (reachable, engagement, coherency, blocked, path, ruler) and an optional label."""

    geometry: BaseGeometry
    css_class: str = "overlay"
    label: str = ""


@dataclass(frozen=True)
class LegendRow:
    kind: str  # "army", "terrain", "zone" (a deployment zone) or "objective"
    text: str
    fill: str
    stroke: str


def table_svg(
    situation: Situation,
    *,
    highlight: Iterable[str] = (),
    overlays: Sequence = (),
    dom_id: str = "table",
    interactive: bool = False,
) -> SafeString:
    """The table as a whole `<svg>` element: safe markup to put straight into a page.

    `dom_id` prefixes every id (two pictures on one page need different ones). With
    `interactive`, the svg is a group rather than an image and each model is focusable
    (tabindex 0, role button, its description as aria-label) for pages that let users pick and
    move models with a keyboard."""
    drawing = scene(situation, highlight=highlight, overlays=overlays)
    return svg_of(drawing, dom_id=dom_id, interactive=interactive)


def legend_entries(situation: Situation) -> list[LegendRow]:
    """The legend of a situation's picture: armies (by colour) then the terrain styles used."""
    return _legend_rows(scene(situation))


def _legend_rows(drawing) -> list[LegendRow]:
    rows = []
    for entry in drawing.legend:
        kind = {"disc": "army", "square": "terrain"}.get(entry.kind, entry.kind)
        rows.append(LegendRow(kind, entry.text, entry.paint.fill or "", entry.paint.stroke or ""))
    return rows


def table_svg_and_legend(
    situation: Situation, *, interactive: bool = False
) -> tuple[SafeString, list[LegendRow]]:
    """`table_svg(situation, interactive=...)` and `legend_entries(situation)` from one drawing
    (a page showing both need not draw the table twice)."""
    drawing = scene(situation)
    return svg_of(drawing, dom_id="table", interactive=interactive), _legend_rows(drawing)


# -- SVG ----------------------------------------------------------------------------------------

TABLE_SVG = "battlefield/table.svg"
#: Rendered pieces of the table SVG (the board, a unit, an overlay's shapes, the labels, the axis
#: and legend: table.svg's partials), at most this many bytes (keys and text, approximately).
SVG_PIECES_BYTES = 16 * 2**20
_PIECES = KeptLooks(SVG_PIECES_BYTES)
#: What a kept piece's key holds (the scene's marks it is drawn from), per character of its
#: text: 2 to 9 bytes on the busy bench table (rules.memory: the labels 1.8, the legend 4.7,
#: the board and units 6, an editor's rings 8.5), so counted as 10.
PIECE_BYTES_PER_CHARACTER = 10


def _piece(name: str, objects: tuple, values: tuple, context: dict) -> SafeString:
    """table.svg's partial `name` rendered with `context`, kept by what it is drawn from: the
    scene's own `objects` (immutable tuples of frozen dataclasses, by identity: a Scene takes
    the board's and the unchanged units' marks from what scene.py keeps, so they are the very
    same objects on every Check of a version) and `values` (by equality). A kept piece is so
    only ever reused for a drawing it would render the same (issue 16: a Check redraws only the
    unit that moved, the overlays and the labels; the board is the version's)."""

    def render() -> SafeString:
        return mark_safe(get_template(f"{TABLE_SVG}#{name}").render(context))  # noqa: S308

    def size(text: str) -> int:
        # (measured rather than estimated, a piece drawn once, e.g. an editor's rings, would
        # cost more to measure than to draw)
        return PIECE_BYTES_PER_CHARACTER * len(text) + sys.getsizeof(text)

    return _PIECES.get(objects, (name, *values), render, size)


def forget_svg_pieces() -> None:
    """Empty the rendered pieces (tests, benchmarks)."""
    _PIECES.clear()


def kept_svg_pieces() -> tuple[int, int]:
    """(how many rendered pieces are kept, their approximate bytes)."""
    return _PIECES.usage()


def svg_of(drawing: Scene, *, dom_id: str = "table", interactive: bool = False) -> SafeString:
    """A Scene as a whole `<svg>` element (templates/battlefield/table.svg), its pieces
    rendered once per drawing they come from (`_piece`)."""
    d = drawing
    context = {"scene": d, "dom_id": dom_id, "interactive": interactive}
    pieces = {
        "board": _piece(
            "board",
            (d.grid_minor, d.grid_major, d.zones, d.terrain, d.levels, d.objectives),
            (dom_id, d.width, d.height, d.border),
            context,
        ),
        "units": [
            _piece(
                "unit",
                (u.models,),
                (dom_id, interactive, u.id, u.army),
                {"unit": u, "dom_id": dom_id, "interactive": interactive},
            )
            for u in d.units
        ],
        "overlays": [
            (o, _piece("overlay-shapes", (o.areas, o.paths, o.discs), (), {"o": o}))
            for o in d.overlays
        ],
        "labels": _piece(
            "labels",
            (),
            (d.terrain_labels, tuple((u.id, u.label) for u in d.units)),
            {"scene": d},
        ),
        "legend": _piece("legend", (), (d.axis, d.legend, d.caption), {"scene": d}),
    }
    return SafeString(get_template(TABLE_SVG).render({**context, "pieces": pieces}))


# -- PNG ----------------------------------------------------------------------------------------

SUPERSAMPLE = 2
#: Picture sizes allowed (pixels a side): bigger would cost hundreds of MB while drawing at 2x.
MIN_PX, MAX_PX = 16, 4000


def table_png(
    situation: Situation,
    *,
    width_px: int = 1200,
    highlight: Iterable[str] = (),
    overlays: Sequence = (),
) -> bytes:
    """The table as PNG bytes, `width_px` wide (16 to 4000); the height follows the picture's
    proportions, at most 4000 px (a very tall table gets a narrower picture)."""
    drawing = scene(situation, highlight=highlight, overlays=overlays)
    return _Painter(drawing, width_px).png()


def picture_size(view: tuple[float, float, float, float], width_px: int = 1200) -> tuple[int, int]:
    """The PNG's (width, height) in pixels for a scene's view box, as `table_png` draws it (for
    link previews, which want the picture's size in advance)."""
    vw, vh = view[2], view[3]
    # A very tall table gets a narrower picture rather than one taller than MAX_PX.
    width = max(MIN_PX, min(int(width_px), int(MAX_PX * vw / vh)))
    return width, max(1, round(width * vh / vw))


@lru_cache(maxsize=64)
def _rgba(colour: str, opacity: float = 1.0) -> tuple[int, ...]:
    """An ink: (r, g, b) when opaque, (r, g, b, a) for the blending draw."""
    r, g, b = ImageColor.getrgb(colour)[:3]
    return (r, g, b) if opacity >= 1 else (r, g, b, round(255 * opacity))


@lru_cache(maxsize=32)
def _font(size_px: int, bold: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans, as the SVG asks for, where the machine has it; else Pillow's own font."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for path in (f"/usr/share/fonts/truetype/dejavu/{name}", name):
        try:
            return ImageFont.truetype(path, size_px)
        except OSError:
            continue
    return ImageFont.load_default(size_px)


_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}


class _Painter:
    """Draws a Scene with Pillow at SUPERSAMPLE times the size, then shrinks it."""

    def __init__(self, drawing: Scene, width_px: int):
        if not MIN_PX <= width_px <= MAX_PX:
            raise ValueError(f"width_px must be between {MIN_PX} and {MAX_PX}")
        self.scene = drawing
        vx, vy, vw, vh = drawing.view
        self.width, self.height = picture_size(drawing.view, width_px)
        self.s = self.width * SUPERSAMPLE / vw
        self.ox, self.oy = vx, vy
        self.image = Image.new(
            "RGB", (self.width * SUPERSAMPLE, self.height * SUPERSAMPLE), _rgba(PAGE_COLOUR)
        )
        self.draw = ImageDraw.Draw(self.image)
        # Blending is only for see-through fills: it makes every shape several times slower.
        self.blend = ImageDraw.Draw(self.image, "RGBA")

    # coordinates and sizes
    def xy(self, points: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
        s, ox, oy = self.s, self.ox, self.oy
        return [((x - ox) * s, (y - oy) * s) for x, y in points]

    def w(self, width: float) -> int:
        return max(1, round(width * self.s))

    def png(self) -> bytes:
        d = self.scene
        self.fill_polygon([(0, 0), (d.width, 0), (d.width, d.height), (0, d.height)], TABLE_COLOUR)
        for lines in (d.grid_minor, d.grid_major):
            for a, b in lines.segments:
                self.draw.line(
                    self.xy([a, b]), fill=_rgba(lines.paint.stroke), width=self.w(lines.paint.width)
                )
        for area in d.zones:
            self.area(area)
        for area in d.terrain:
            self.area(area)
        self.levels(d.levels, labels=False)
        for objective in d.objectives:
            self.disc(objective.disc.x, objective.disc.y, objective.disc.r, objective.disc.paint)
            self.text(objective.label)
        self.draw.rectangle(
            [*self.xy([(0, 0)])[0], *self.xy([(d.width, d.height)])[0]],
            outline=_rgba(d.border.stroke),
            width=self.w(d.border.width),
        )
        for unit in d.units:
            for mark in unit.models:
                self.model(mark)
        for overlay in d.overlays:
            for area in overlay.areas:
                self.area(area)
            for path in overlay.paths:
                self.polyline(path.points, path.paint)
            for disc in overlay.discs:
                self.disc(disc.x, disc.y, disc.r, disc.paint)
            if overlay.label:
                self.text(overlay.label)
        self.levels(d.levels, labels=True)
        for label in d.terrain_labels:
            self.text(label)
        for unit in d.units:
            if unit.label:
                self.text(unit.label)
        for label in d.axis:
            self.text(label)
        for entry in d.legend:
            self.legend_entry(entry)
        if d.caption:
            self.text(d.caption)
        small = self.image.reduce(SUPERSAMPLE)
        # An adaptive palette keeps the antialiased edges; FASTOCTREE is the quick quantizer
        # (median cut costs ~50 ms here, GEOMETRY-NOTES "Pictures").
        paletted = small.quantize(256, method=Image.Quantize.FASTOCTREE)
        out = io.BytesIO()
        paletted.save(out, "PNG")
        return out.getvalue()

    def legend_entry(self, entry) -> None:
        """A legend line: its swatch (an army's with the army's mark) and its text."""
        if isinstance(entry.swatch, Area):
            self.area(entry.swatch)
        elif entry.swatch is not None:
            sw = entry.swatch
            self.disc(sw.x, sw.y, sw.r, entry.paint)
            if entry.mark_ring_r:
                self.ring(sw.x, sw.y, float(entry.mark_ring_r), entry.mark_ink, entry.paint.width)
            if entry.mark_dot_r:
                self.disc(sw.x, sw.y, float(entry.mark_dot_r), Paint(entry.mark_ink))
        if entry.label:
            self.text(entry.label)

    def levels(self, levels, labels: bool) -> None:
        """40K floors and walls (RULES.md 1.5): the shapes over the terrain, or their height
        labels over everything but the axis and legend."""
        for level in levels:
            if labels:
                for label in level.labels:
                    self.text(label)
                continue
            for area in level.floors:
                self.area(area)
            for wall in level.walls:
                self.polyline(wall.points, wall.paint)

    # primitives
    def fill_polygon(self, points, colour: str, opacity: float = 1.0) -> None:
        draw = self.draw if opacity >= 1 else self.blend
        draw.polygon(self.xy(points), fill=_rgba(colour, opacity))

    def area(self, area: Area) -> None:
        paint = area.paint
        for polygon in area.polygons:
            exterior, *holes = polygon
            if paint.fill:
                if holes:
                    self._fill_with_holes(exterior, holes, paint)
                else:
                    draw = self.draw if paint.opacity >= 1 else self.blend
                    draw.polygon(self.xy(exterior), fill=_rgba(paint.fill, paint.opacity))
            if paint.stroke and paint.width > 0:
                for ring in polygon:
                    self.polyline([*ring, ring[0]], paint)

    def _fill_with_holes(self, exterior, holes, paint: Paint) -> None:
        """Pillow has no even-odd fill: paint through a mask with the holes cut out."""
        pts = self.xy(exterior)
        x0 = max(0, int(min(x for x, _ in pts)))
        y0 = max(0, int(min(y for _, y in pts)))
        x1 = min(self.image.width, int(math.ceil(max(x for x, _ in pts))) + 1)
        y1 = min(self.image.height, int(math.ceil(max(y for _, y in pts))) + 1)
        if x1 <= x0 or y1 <= y0:
            return
        mask = Image.new("L", (x1 - x0, y1 - y0), 0)
        md = ImageDraw.Draw(mask)
        md.polygon([(x - x0, y - y0) for x, y in pts], fill=round(255 * paint.opacity))
        for hole in holes:
            md.polygon([(x - x0, y - y0) for x, y in self.xy(hole)], fill=0)
        self.image.paste(_rgba(paint.fill), (x0, y0, x1, y1), mask)

    def polyline(self, points, paint: Paint) -> None:
        if not paint.stroke or paint.width <= 0:
            return
        colour, width = _rgba(paint.stroke), self.w(paint.width)
        pts = self.xy(points)
        if not paint.dash:
            self.draw.line(pts, fill=colour, width=width, joint="curve")
            return
        for segment in _dashes(pts, [d * self.s for d in paint.dash]):
            self.draw.line(segment, fill=colour, width=width)

    def disc(self, x: float, y: float, r: float, paint: Paint) -> None:
        ((cx, cy),) = self.xy([(x, y)])
        rr = r * self.s
        draw = self.draw if paint.opacity >= 1 else self.blend
        draw.ellipse(
            [cx - rr, cy - rr, cx + rr, cy + rr],
            fill=_rgba(paint.fill, paint.opacity) if paint.fill else None,
            outline=_rgba(paint.stroke) if paint.stroke else None,
            width=self.w(paint.width) if paint.stroke else 0,
        )

    def ring(self, x: float, y: float, r: float, colour: str, width: float) -> None:
        ((cx, cy),) = self.xy([(x, y)])
        rr, half = r * self.s, width * self.s / 2
        self.draw.ellipse(
            [cx - rr - half, cy - rr - half, cx + rr + half, cy + rr + half],
            outline=_rgba(colour),
            width=max(1, round(width * self.s)),
        )

    def model(self, m) -> None:
        if m.highlighted:
            for colour, width in ((HALO, m.ring_width * 3), ("#000000", m.ring_width)):
                if m.shape == "circle":
                    self.ring(m.x, m.y, m.ring_r, colour, width)
                else:
                    self.polyline([*m.ring_outline, m.ring_outline[0]], Paint(None, colour, width))
        if m.shape == "circle":
            self.disc(m.x, m.y, m.r, m.paint)
        else:
            self.draw.polygon(self.xy(m.outline), fill=_rgba(m.paint.fill))
            self.polyline([*m.outline, m.outline[0]], m.paint)
        if m.mark_ring_r:
            self.ring(m.x, m.y, m.mark_ring_r, m.mark_paint.stroke, m.mark_paint.width)
        elif m.mark_ring_local:
            ring = m.to_table(m.mark_ring_local)
            self.polyline([*ring, ring[0]], m.mark_paint)
        if m.mark_dot_r:
            self.disc(m.x, m.y, m.mark_dot_r, Paint(m.mark_paint.stroke))
        if m.tick:
            self.polyline(m.to_table([(m.tick[0], 0.0), (m.tick[1], 0.0)]), m.tick_paint)

    def text(self, label: Label) -> None:
        size = max(6, round(label.size * self.s))
        font = _font(size, label.weight == "bold")
        ((x, y),) = self.xy([(label.x, label.y)])
        halo = round(label.halo * self.s / 2) if label.halo else 0
        self.draw.text(
            (x, y),
            label.text,
            fill=_rgba(label.fill),
            font=font,
            anchor=_ANCHORS.get(label.anchor, "ms"),
            stroke_width=halo,
            stroke_fill=_rgba(HALO) if halo else None,
        )


def _dashes(points: list[tuple[float, float]], pattern: list[float]):
    """Split a polyline into dash segments (on, off, on, ...), carrying the phase over corners."""
    if not pattern or sum(pattern) <= 0:
        yield points
        return
    index, left, on = 0, pattern[0], True
    current = [points[0]] if points else []
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        length = math.hypot(x1 - x0, y1 - y0)
        done = 0.0
        while length - done > left:
            done += left
            t = done / length
            p = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
            if on:
                current.append(p)
                yield current
            current = [p]
            on = not on
            index = (index + 1) % len(pattern)
            left = pattern[index]
        left -= length - done
        if on:
            current.append((x1, y1))
    if on and len(current) > 1:
        yield current
