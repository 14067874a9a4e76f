"""What the per-game presentation modules share: the look of terrain and preset outlines."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from shapely.ops import unary_union


@dataclass(frozen=True)
class TerrainStyle:
    """The look of one kind of terrain: css class key, legend label, fill, stroke, dashed edge."""

    key: str
    label: str
    fill: str
    stroke: str
    dashed: bool = False


def styles(*rows: tuple) -> dict[str, TerrainStyle]:
    return {row[0]: TerrainStyle(*row) for row in rows}


#: The look of terrain a game's looks do not cover.
OTHER = TerrainStyle("other", "Other terrain", "#D0D0D0", "#777777", True)


def rect(width: float, depth: float) -> list[list[float]]:
    w, d = width / 2, depth / 2
    return [[-w, -d], [w, -d], [w, d], [-w, d]]


def blob(rx: float, ry: float, sides: int = 10, wobble: float = 0.0) -> list[list[float]]:
    """An irregular-looking closed outline (woods, hills, craters) around the centre."""
    points = []
    for i in range(sides):
        angle = 2 * math.pi * i / sides
        scale = 1 - wobble * (i % 2)
        points.append(
            [round(rx * scale * math.cos(angle), 2), round(ry * scale * math.sin(angle), 2)]
        )
    return points


def within(
    situation, stands: Iterable, distance: float, css: str, label: str
) -> tuple[Any, str, str]:
    """A range round some stands (everything within `distance` of them), clipped to the table,
    as a move overlay (geometry, css class, label): see `move_overlays`."""
    shape = unary_union([m.footprint.buffer(distance, 32) for m in stands])
    return shape.intersection(situation.table.area), css, label
