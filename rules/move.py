"""A proposed move (FORMAT.md "Move"), parsed and checked at the boundary: its move type and
declarations must be ones the registry (`rules.systems`) describes."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import InvalidInput
from .systems import declarations_of, move_types_of

MOVE_FORMAT = "arbiter.move/1"

MOVE_FIELDS = {"format", "unit", "type", "declarations", "dice", "end", "paths", "seed"}

POSE_FIELDS = {"x", "y", "z", "facing"}


@dataclass(frozen=True)
class Pose:
    x: float
    y: float
    z: float | None = None
    facing: float | None = None

    def as_dict(self) -> dict[str, float]:
        d = {"x": self.x, "y": self.y}
        if self.z is not None:
            d["z"] = self.z
        if self.facing is not None:
            d["facing"] = self.facing
        return d


@dataclass(frozen=True)
class Move:
    """A proposed move: unit, type, declarations, dice, end poses and optional paths.

    `end` is None when the player asks the engine to suggest a placement.
    """

    unit: str
    type: str
    declarations: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    dice: tuple[int, ...] | None = None
    end: Mapping[str, Pose] | None = None
    paths: Mapping[str, tuple[tuple[float, float, float], ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    seed: int | None = None

    def declared(self, name: str, default: Any = None) -> Any:
        return self.declarations.get(name, default)

    def with_end(
        self,
        end: Mapping[str, Pose],
        paths: Mapping[str, tuple[tuple[float, float, float], ...]] | None = None,
    ) -> Move:
        return Move(
            self.unit,
            self.type,
            self.declarations,
            self.dice,
            MappingProxyType(dict(end)),
            MappingProxyType(dict(paths or {})),
            self.seed,
        )

    def to_document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"format": MOVE_FORMAT, "unit": self.unit, "type": self.type}
        if self.declarations:
            doc["declarations"] = dict(self.declarations)
        if self.dice is not None:
            doc["dice"] = list(self.dice)
        if self.end is not None:
            doc["end"] = {k: v.as_dict() for k, v in self.end.items()}
        if self.paths:
            doc["paths"] = {k: [list(p) for p in v] for k, v in self.paths.items()}
        if self.seed is not None:
            doc["seed"] = self.seed
        return doc

    @classmethod
    def from_document(cls, doc: Mapping[str, Any], system: str | None = None) -> Move:
        """Parse a move document, raising InvalidInput naming the field.

        >>> Move.from_document({"format": "arbiter.move/1", "unit": "A", "type": "normal"}).type
        'normal'
        >>> Move.from_document({"unit": "A", "type": "normal", "speed": 6})
        Traceback (most recent call last):
        ...
        rules.errors.InvalidInput: speed: unknown field 'speed'
        """
        if not isinstance(doc, Mapping):
            raise InvalidInput("", "a move must be a JSON object")
        for key in doc:
            if key not in MOVE_FIELDS:
                raise InvalidInput(key, f"unknown field {key!r}")
        if doc.get("format", MOVE_FORMAT) != MOVE_FORMAT:
            raise InvalidInput("format", f"must be {MOVE_FORMAT!r}")
        unit = doc.get("unit")
        if not isinstance(unit, str) or not unit:
            raise InvalidInput("unit", "must be a unit id")
        move_type = doc.get("type")
        known = move_types_of(system)
        if move_type not in known:
            raise InvalidInput("type", f"must be one of {', '.join(known)}")
        declarations = doc.get("declarations", {})
        if not isinstance(declarations, Mapping):
            raise InvalidInput("declarations", "must be an object")
        # Any game's declaration is accepted in any move (a move type ignores what it does not
        # read); the registry gives each its JSON type.
        accepted = declarations_of()
        for key, value in declarations.items():
            if key not in accepted:
                raise InvalidInput(f"declarations.{key}", f"unknown declaration {key!r}")
            expected = accepted[key].json_type
            if expected is int:
                ok = isinstance(value, int) and not isinstance(value, bool)
            else:
                ok = isinstance(value, expected)
            if not ok:
                raise InvalidInput(f"declarations.{key}", f"must be a {expected.__name__}")
        dice = doc.get("dice")
        if dice is not None:
            if (
                not isinstance(dice, list)
                or len(dice) > 40
                or not all(
                    isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice
                )
            ):
                raise InvalidInput("dice", "must be a list of die values from 1 to 6")
            dice = tuple(dice)
        end = doc.get("end")
        if end is not None:
            if not isinstance(end, Mapping):
                raise InvalidInput("end", "must map model ids to poses")
            end = MappingProxyType({mid: _pose(p, f"end.{mid}") for mid, p in end.items()})
        paths = doc.get("paths", {})
        if not isinstance(paths, Mapping):
            raise InvalidInput("paths", "must map model ids to lists of [x, y, z] waypoints")
        parsed_paths = {}
        for mid, points in paths.items():
            if not isinstance(points, list) or len(points) > 100:
                raise InvalidInput(
                    f"paths.{mid}", "must be a list of at most 100 [x, y, z] waypoints"
                )
            parsed = []
            for i, p in enumerate(points):
                if (
                    not isinstance(p, list)
                    or len(p) not in (2, 3)
                    or not all(_finite(v) for v in p)
                ):
                    raise InvalidInput(f"paths.{mid}[{i}]", "must be [x, y] or [x, y, z]")
                parsed.append((float(p[0]), float(p[1]), float(p[2]) if len(p) == 3 else 0.0))
            parsed_paths[mid] = tuple(parsed)
        seed = doc.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise InvalidInput("seed", "must be an integer")
        return cls(
            unit,
            move_type,
            MappingProxyType(dict(declarations)),
            dice,
            end,
            MappingProxyType(parsed_paths),
            seed,
        )


def _finite(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _pose(p: object, path: str) -> Pose:
    if not isinstance(p, Mapping):
        raise InvalidInput(path, "must be an object with x and y")
    for key in p:
        if key not in POSE_FIELDS:
            raise InvalidInput(f"{path}.{key}", f"unknown field {key!r}")
    for key in ("x", "y"):
        if not _finite(p.get(key)):
            raise InvalidInput(f"{path}.{key}", "must be a finite number")
    for key in ("z", "facing"):
        if key in p and not _finite(p[key]):
            raise InvalidInput(f"{path}.{key}", "must be a finite number")
    return Pose(
        float(p["x"]),
        float(p["y"]),
        float(p["z"]) if "z" in p else None,
        float(p["facing"]) if "facing" in p else None,
    )
