"""Issue 10: a move type added to the registry needs no schema file. The move schema takes its
move types and the declarations it does not word itself from the registry when it is loaded."""

import json

import pytest
from jsonschema import Draft202012Validator

from battlefield.registry_schema import KIND_SCHEMAS, declaration_schema, with_registry
from battlefield.validation import MOVE_SCHEMA_PATH
from rules import SYSTEMS
from rules.systems import DECLARATION_KINDS, Declaration, MoveType


def loaded_move_schema() -> dict:
    """The move schema as the validator loads it, read afresh (validation caches its own)."""
    return with_registry(json.loads(MOVE_SCHEMA_PATH.read_text()))


@pytest.fixture
def a_new_move_type(monkeypatch):
    """A 40K move type with a declaration of each of two kinds, registered for the test only."""
    sprint = MoveType(
        name="sprint",
        title="Sprint",
        rule="99.01",
        adjudicate=None,
        declarations=(
            Declaration(
                name="sprint_side",
                kind="choice",
                label="Which side",
                choices=(("left", "Left"), ("right", "Right")),
            ),
            Declaration(name="sprint_laps", kind="count", label="Laps"),
        ),
    )
    monkeypatch.setitem(SYSTEMS["wh40k-11e"].move_types, "sprint", sprint)
    return sprint


def errors(schema: dict, move: dict) -> list[str]:
    return [e.message for e in Draft202012Validator(schema).iter_errors(move)]


def test_a_move_type_added_to_the_registry_is_in_the_move_schema(a_new_move_type):
    schema = loaded_move_schema()
    assert "sprint" in schema["properties"]["type"]["enum"]
    move = {"unit": "A", "type": "sprint", "declarations": {"sprint_side": "left"}}
    assert errors(schema, move) == []
    assert errors(schema, {**move, "declarations": {"sprint_side": "up"}})
    assert errors(schema, {**move, "declarations": {"sprint_laps": -1}})
    assert errors(schema, {**move, "declarations": {"sprint_speed": 3}})  # still unknown


def test_without_it_the_move_type_is_refused():
    schema = loaded_move_schema()
    assert errors(schema, {"unit": "A", "type": "sprint"})


def test_the_declarations_the_file_words_itself_are_kept_as_written():
    on_disk = json.loads(MOVE_SCHEMA_PATH.read_text())["$defs"]["declarations"]["properties"]
    loaded = loaded_move_schema()["$defs"]["declarations"]["properties"]
    assert all(loaded[name] == schema for name, schema in on_disk.items())
    assert on_disk["charge_targets"]["maxItems"] == 100  # a limit the kind alone does not give


def test_every_declaration_kind_has_a_schema():
    assert set(KIND_SCHEMAS) == set(DECLARATION_KINDS)


@pytest.mark.parametrize("kind", sorted(DECLARATION_KINDS))
def test_a_declaration_s_schema_accepts_its_kind_s_json_type(kind):
    """A value of the JSON type the registry gives the kind passes the kind's schema (ids and
    the trigger are resolved through the move schema's own definitions)."""
    sample = {
        bool: True,
        str: "B",
        int: 2,
        list: ["B"],
        dict: {"event": "shot", "by": "B", "hits": 1},
    }[DECLARATION_KINDS[kind]]
    declaration = Declaration(name="d", kind=kind, label="D", choices=(("B", "B"),))
    defs = loaded_move_schema()["$defs"]
    schema = {"$defs": defs, **declaration_schema(declaration)}
    assert errors(schema, sample) == []
