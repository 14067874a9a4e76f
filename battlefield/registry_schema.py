"""What the move schema takes from the game registry (issue 10: each game describes itself once).

`battlefield/schemas/move.schema.json` words the move document, but its move types and the
declarations of each are the registry's (`rules/systems.py`). They are filled in when the schema
is loaded (`validation.move_schema`, which validates and which the API serves), so adding a move
type, or a declaration of a kind the web app already asks, touches no schema file: the file
keeps only the declarations it describes more finely than their kind says (limits, descriptions,
the trigger's shape). Django-free, like the validator.
"""

from __future__ import annotations

import copy
from typing import Any

from rules.systems import Declaration, declarations_of, move_types_of

#: Most charge targets a move may name (the schema's limit on a list of units).
UNITS_LIST_LIMIT = 100

#: The JSON Schema of a declaration of each kind (rules.systems.DECLARATION_KINDS), for the
#: declarations the schema file does not describe itself; "choice" takes its declaration's
#: choices.
KIND_SCHEMAS: dict[str, dict[str, Any]] = {
    "flag": {"type": "boolean"},
    "yes-no": {"type": "boolean"},
    "choice": {"type": "string"},
    "count": {"type": "integer", "minimum": 0},
    "enemy-units": {
        "type": "array",
        "maxItems": UNITS_LIST_LIMIT,
        "items": {"$ref": "#/$defs/id"},
    },
    "enemy-unit": {"$ref": "#/$defs/id"},
    "friendly-unit": {"$ref": "#/$defs/id"},
    "enemy-model": {"$ref": "#/$defs/id"},
    "ability": {"$ref": "#/$defs/id"},
    "trigger": {"$ref": "#/$defs/trigger"},
}


def declaration_schema(declaration: Declaration) -> dict[str, Any]:
    """The schema of one declaration from its kind (and its choices, for a "choice").

    >>> from rules.systems import Declaration
    >>> declaration_schema(Declaration(name="side", kind="choice", label="Side",
    ...                                choices=(("left", "Left"), ("right", "Right"))))
    {'enum': ['left', 'right'], 'description': 'Side'}
    """
    if declaration.kind == "choice" and declaration.choices:
        schema: dict[str, Any] = {"enum": [value for value, _ in declaration.choices]}
    else:
        schema = copy.deepcopy(KIND_SCHEMAS[declaration.kind])
    schema["description"] = declaration.label
    return schema


def with_registry(schema: dict[str, Any]) -> dict[str, Any]:
    """The move schema with the registry's move types, and a schema for every declaration the
    file does not describe (a copy; the file's own entries are kept as written)."""
    schema = copy.deepcopy(schema)
    schema["properties"]["type"]["enum"] = list(move_types_of())
    described = schema["$defs"]["declarations"]["properties"]
    for name, declaration in declarations_of().items():
        if name not in described:
            described[name] = declaration_schema(declaration)
    return schema
