"""The one validator for scenario and move documents: import, API, command line and admin.

A scenario is checked in two layers (FORMAT.md "Errors", docs/format.md):
1. the JSON Schema shipped in `battlefield/schemas/scenario.schema.json` (types, required and
   unknown fields, size limits per list), its first error turned into FORMAT.md's field syntax
   (`units[2].models[0].base`);
2. `rules.Situation.from_document`, for what a schema cannot say (simple footprints, models on
   the table, no overlaps at rest, unique and existing ids, the total number of models).

A move is checked the same two ways: `battlefield/schemas/move.schema.json` (types, unknown
fields, declarations, the surge trigger), then `rules.Move.from_document` (the move types of the
scenario's system) and the engines (ids that must exist). Every failure is
`InvalidInput(field, message)`; input over a documented size limit is `TooLarge`, its subclass (the
API answers 413 for it). Verdicts are only written, never read: `verdict.schema.json` documents
them and the tests hold the engines to it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from rules import InvalidInput, Move, Situation
from rules.situation import LIMITS
from rules.systems import move_types_of

from .registry_schema import with_registry
from .text import clean_document, json_int

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"
SCHEMA_PATH = SCHEMA_DIR / "scenario.schema.json"
MOVE_SCHEMA_PATH = SCHEMA_DIR / "move.schema.json"
VERDICT_SCHEMA_PATH = SCHEMA_DIR / "verdict.schema.json"

#: Largest body the adjudication API reads: a scenario at its limit plus room for the move.
API_BODY_BYTES = LIMITS["document_bytes"] + 100_000


class TooLarge(InvalidInput):
    """Input over a documented size limit (README "Limits")."""


@cache
def scenario_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


@cache
def move_schema() -> dict:
    """move.schema.json with the registry's move types and declarations (registry_schema)."""
    return with_registry(json.loads(MOVE_SCHEMA_PATH.read_text()))


@cache
def verdict_schema() -> dict:
    return json.loads(VERDICT_SCHEMA_PATH.read_text())


if TYPE_CHECKING:
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (see above)
    from jsonschema.exceptions import ValidationError


# Two validators per schema: jsonschema-rs (compiled, ~10x faster) only answers "does the
# document pass?"; when it does not, the `jsonschema` validator finds the error and words it, so
# every message is the one it always was. Importing `jsonschema` is deferred to the first invalid
# document (it is a third of the command line's start-up).
@cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (see above)

    schema = scenario_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(_inline_refs(schema, schema["$defs"]))


@cache
def _move_validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (see above)

    schema = move_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(_inline_refs(schema, schema["$defs"]))


@cache
def _fast_validators() -> dict:
    """jsonschema-rs validators by schema name; empty if the package is not installed."""
    try:
        import jsonschema_rs  # noqa: PLC0415 (optional: the slow path still works)
    except ImportError:  # pragma: no cover - it is a dependency; the slow path still works
        return {}
    return {
        name: jsonschema_rs.Draft202012Validator(_inline_refs(schema, schema["$defs"]))
        for name, schema in (("scenario", scenario_schema()), ("move", move_schema()))
    }


#: Off only in tests that compare the two paths.
FAST_PATH = True


def _passes_fast(name: str, doc) -> bool:
    """True when jsonschema-rs says `doc` passes schema `name`. False means "ask jsonschema":
    not passing, no fast validator, or a document jsonschema-rs cannot take (an integer beyond
    64 bits, say). Only "passes" is trusted; an error is always found and worded by jsonschema,
    which also has the last word when the two disagree about a failure."""
    validator = _fast_validators().get(name) if FAST_PATH else None
    if validator is None:
        return False
    try:
        return validator.is_valid(doc)
    except (ValueError, TypeError, OverflowError):
        return False


def _inline_refs(node, defs: dict):
    """The schema with each local `$ref` replaced by the definition itself (the same object):
    a quarter faster to check (the schema has no recursive definitions)."""
    if isinstance(node, dict):
        ref = node.get("$ref", "")
        if ref.startswith("#/$defs/") and len(node) == 1:
            return _inline_refs(defs[ref.removeprefix("#/$defs/")], defs)
        return {k: v if k == "$defs" else _inline_refs(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    return node


# -- parsing ------------------------------------------------------------------------------


def _refuse_constant(name: str):
    raise InvalidInput("", f"{name} is not a number JSON allows")


def parse_json(data: bytes | str, *, limit: float = LIMITS["document_bytes"], what: str = "file"):
    """Parse JSON text, refusing more than `limit` bytes, NaN/Infinity and non-UTF-8 input."""
    size = len(data.encode() if isinstance(data, str) else data)
    if size > limit:
        raise TooLarge("", f"the {what} is {size:,} bytes; the limit is {limit:,} bytes")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InvalidInput("", f"the {what} is not UTF-8 text") from None
    try:
        # Over-long integers become infinity here and are refused, naming their field, by
        # clean_document (Python itself refuses integers over 4,300 digits with a ValueError).
        return json.loads(data, parse_constant=_refuse_constant, parse_int=json_int)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            "", f"the {what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise InvalidInput("", f"the {what} is nested too deeply") from None
    except ValueError as exc:  # anything else the parser refuses
        raise InvalidInput("", f"the {what} is not valid JSON: {exc}") from None


# -- scenario -------------------------------------------------------------------------------


def field_path(parts) -> str:
    """jsonschema's path (deque of keys and indices) in FORMAT.md's syntax: `units[2].models[0]`."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


_TYPE_NAMES = {
    "number": "a number",
    "integer": "a whole number",
    "string": "a string",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}

BASES = {"round", "oval", "rect", "hull"}

#: The schema's per-list size limits, which the API reports as 413 (too large), not 400.
_SIZE_VALIDATORS = {"maxItems", "maxProperties"}


def _describe(error: ValidationError) -> InvalidInput:
    """One schema error as InvalidInput naming the field, in plain words."""
    path = list(error.absolute_path)
    kind, value = error.validator, error.validator_value
    if "propertyNames" in error.absolute_schema_path:
        return InvalidInput(
            field_path([*path, str(error.instance)]),
            "model ids are letters, digits and - _ . : (starting with a letter or digit)",
        )
    if kind == "additionalProperties" and path and path[-1] == "state":
        extra = next(k for k in error.instance if k not in error.schema.get("properties", {}))
        return InvalidInput(
            field_path([*path, extra]),
            f"unknown state flag {extra!r}: state flags are the snake_case names docs/format.md "
            "lists",
        )
    if kind == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        extra = next(k for k in error.instance if k not in known)
        return InvalidInput(field_path([*path, extra]), f"unknown field {extra!r}")
    if kind == "required" and isinstance(error.instance, dict):
        missing = next(k for k in value if k not in error.instance)
        return InvalidInput(field_path([*path, missing]), "is required")
    field = field_path(path)
    if kind == "type":
        types = [value] if isinstance(value, str) else value
        message = "must be " + " or ".join(_TYPE_NAMES.get(t, t) for t in types)
    elif kind == "enum":
        message = "must be one of " + ", ".join(json.dumps(v) for v in value)
    elif kind == "const":
        message = f"must be {json.dumps(value)}"
    elif kind == "minimum":
        message = f"must be at least {value}"
    elif kind == "exclusiveMinimum":
        message = f"must be more than {value}"
    elif kind == "maximum":
        message = f"must be at most {value}"
    elif kind == "minItems":
        message = f"needs at least {value} item(s)"
    elif kind == "maxItems":
        message = f"may hold at most {value} items (a documented limit)"
    elif kind == "maxLength":
        message = f"may be at most {value} characters long"
    elif (
        kind in ("minProperties", "maxProperties")
        and set(error.schema.get("properties", ())) == BASES
    ):
        return InvalidInput(field_path(path), "needs exactly one of round, oval, rect, hull")
    elif kind == "maxProperties":
        message = f"may hold at most {value} entries (a documented limit)"
    elif kind == "pattern":
        if len(path) >= 2 and path[-2] == "keywords":
            message = "keywords are upper-case words, like INFANTRY"
        elif path and path[-1] == "distance":
            message = 'must be a number or a dice expression like "D6" or "D6+2"'
        elif path and path[-1] in ("id", "army", "active_army"):
            message = "ids are letters, digits and - _ . : (starting with a letter or digit)"
        else:
            message = "has characters that are not allowed here"
    elif kind == "oneOf" and path and path[-1] == "distance":
        message = 'must be a number or a dice expression like "D6" or "D6+2"'
    else:
        message = error.message
    cls = TooLarge if kind in _SIZE_VALIDATORS else InvalidInput
    return cls(field, message)


def check_schema(doc) -> None:
    """Raise InvalidInput for the first schema error (naming its field), if any."""
    if _passes_fast("scenario", doc):
        return
    from jsonschema.exceptions import best_match  # noqa: PLC0415 (start-up, see above)

    error = best_match(_validator().iter_errors(doc))
    if error is not None:
        raise _describe(error)


def validate_scenario(doc) -> Situation:
    """The scenario document as a Situation, or InvalidInput naming the field.

    Schema first (structure, unknown fields, per-list limits), then the total model count, then
    the engine's geometric checks.
    """
    if isinstance(doc, (dict, list)):
        clean_document(doc)
    check_schema(doc)
    total = sum(len(u["models"]) for u in doc["units"])
    if total > LIMITS["models"]:
        raise TooLarge("units", f"{total} models; a scenario may hold at most {LIMITS['models']}")
    check_cost(doc)
    return Situation.from_document(doc)


def outline_vertices(doc: dict) -> tuple[int, int]:
    """(terrain vertices, hull-base vertices) of a scenario that passed its schema: the corners
    the path graph may have to join (README "Limits"). A wall counts twice (it is drawn and
    avoided as a strip, both sides of its path)."""
    terrain = 0
    for piece in doc.get("terrain", []):
        terrain += len(piece.get("footprint", []))
        terrain += sum(2 * len(w.get("path", [])) for w in piece.get("walls", []))
        for name in ("floors", "enclosed"):
            terrain += sum(len(part.get("footprint", [])) for part in piece.get(name, []))
    hulls = sum(
        len(m["base"]["hull"]) for u in doc["units"] for m in u["models"] if "hull" in m["base"]
    )
    return terrain, hulls


def check_cost(doc: dict) -> None:
    """Refuse (TooLarge, 413) a scenario whose outlines are too costly to judge here: the path
    graph joins every corner to every other it sees, so judging grows with the square of the
    outline vertices (bench/cost_model.py measures it; README "Limits" has the table)."""
    terrain, hulls = outline_vertices(doc)
    limit = LIMITS["outline_vertices"]
    if terrain + hulls <= limit:
        return
    pieces = len(doc.get("terrain", []))
    hull_models = sum(1 for u in doc["units"] for m in u["models"] if "hull" in m["base"])
    raise TooLarge(
        "terrain" if terrain >= hulls else "units",
        f"this table has {pieces:,} terrain pieces with {terrain:,} vertices in all and "
        f"{hull_models:,} hull bases with {hulls:,} vertices in all; at most {limit:,} vertices "
        "(terrain and hull bases together) are judged here: use fewer or simpler terrain "
        "outlines, or round bases",
    )


@cache
def _relevance():
    from jsonschema.exceptions import by_relevance  # noqa: PLC0415 (start-up, see above)

    return by_relevance()


def _deepest_first(error: ValidationError):
    """Of a move's schema errors, report the most specific: a pose's wrong `x` before the pose's
    other gaps, as the engine's own parser did."""
    return (len(error.path), *_relevance()(error)[2:])


def validate_move(doc, system: str | None = None) -> Move:
    """A move document as a Move, or InvalidInput naming the field: move.schema.json first, then
    `rules.Move.from_document` (which knows the move types of each system)."""
    if not isinstance(doc, dict):
        raise InvalidInput("", "a move must be a JSON object")
    clean_document(doc)
    if _passes_fast("move", doc):
        return Move.from_document(doc, system)
    from jsonschema.exceptions import best_match  # noqa: PLC0415 (start-up, see above)

    error = best_match(_move_validator().iter_errors(doc), key=_deepest_first)
    if error is not None:
        path = list(error.absolute_path)
        if path[:1] == ["type"]:
            known = move_types_of(system)
            raise InvalidInput("type", f"must be one of {', '.join(known)}")
        if path[:1] == ["dice"] and error.validator != "maxItems":
            raise InvalidInput("dice", "must be a list of die values from 1 to 6")
        raise _describe(error)
    return Move.from_document(doc, system)


def adjudication_request(payload) -> tuple[Situation, Move]:
    """The API's and command line's input: {"scenario": {...}, "move": {...}}."""
    if not isinstance(payload, dict):
        raise InvalidInput("", 'the request must be a JSON object {"scenario": ..., "move": ...}')
    for key in payload:
        if key not in ("scenario", "move"):
            raise InvalidInput(key, f"unknown field {key!r}")
    for key in ("scenario", "move"):
        if key not in payload:
            raise InvalidInput(key, "is required")
    # Fields are named within their own document, as FORMAT.md "Errors" shows (the command line
    # reads the two documents from two files and names fields the same way).
    situation = validate_scenario(payload["scenario"])
    return situation, validate_move(payload["move"], situation.system)


def profile_as_scenario(profile) -> dict:
    """A catalogue profile (UnitProfile or its JSON) as a one-unit scenario, so the catalogue is
    checked by the same validator as scenarios: keywords, move, base and abilities."""
    get = profile.get if isinstance(profile, dict) else lambda k, d=None: getattr(profile, k, d)
    unit = {
        "id": "U",
        "army": "A",
        "name": get("name") or "unit",
        "keywords": get("keywords") or [],
        "abilities": get("abilities") or [],
        "models": [{"id": "U1", "base": get("base"), "x": 500, "y": 500}],
    }
    if get("move") is not None:
        unit["move"] = get("move")
    return {
        "format": "arbiter.scenario/1",
        "system": get("system"),
        "name": "profile",
        "table": {"width": 1000, "height": 1000},
        "armies": [{"id": "A"}],
        "units": [unit],
    }
