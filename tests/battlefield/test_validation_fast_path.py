"""The validator's fast path (jsonschema-rs) changes no answer and no word of any message.

jsonschema-rs only says whether a document passes; an error is always found and worded by
`jsonschema`. These tests take valid documents (the shared test scenario and move, every demo
scenario and move), break them in every way we can enumerate at every place (a field removed,
a wrong type, an unknown field, a bad id, too long a text, a number out of range) and check that
the validator answers byte for byte the same with the fast path on and off.
"""

import copy
import json
import pathlib

import pytest

from battlefield import validation
from battlefield.validation import validate_move, validate_scenario
from rules import InvalidInput
from tests import documents

DEMO = pathlib.Path(__file__).resolve().parents[2] / "battlefield" / "demo"
SCENARIOS = [json.loads(p.read_text()) for p in sorted((DEMO / "scenarios").glob("*.json"))]
MOVES = [
    (json.loads((DEMO / "scenarios" / p.name).read_text())["system"], json.loads(p.read_text()))
    for p in sorted((DEMO / "moves").glob("*.json"))
]

#: What each place in a document is broken with.
BAD_VALUES = ["x", -1, 1.5, 10**6, None, True, [], {}, "a b", "Ä" * 300]


def places(node, path=()):
    """Every (path, value) inside a JSON document."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from places(value, (*path, i))


#: Stands for "remove the field" in a break.
REMOVE = object()


def breaks(doc):
    """Every way to break the document, as (path, value): each place removed (REMOVE) or
    replaced by each bad value, and every object given an unknown field."""
    for path, value in places(doc):
        if path:
            yield path, REMOVE
            for bad in BAD_VALUES:
                if bad != value:
                    yield path, bad
        if isinstance(value, dict):
            yield (*path, "unknown_field" if path else "zz"), 1


def broken_at(doc, path, value):
    """A copy of `doc` with the break applied."""
    out = copy.deepcopy(doc)
    node = out
    for part in path[:-1]:
        node = node[part]
    if value is REMOVE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def broken(doc, at_most=None):
    """The document broken in every way, or in about `at_most` ways spread evenly over them all
    (every place of a large document gets its turn, not only its first fields)."""
    every = list(breaks(doc))
    step = 1 if at_most is None else max(1, len(every) // at_most)
    for path, value in every[::step]:
        yield broken_at(doc, path, value)


def answer(check, doc, fast: bool):
    validation.FAST_PATH = fast
    try:
        check(doc)
    except InvalidInput as exc:
        return type(exc).__name__, exc.field, exc.message
    finally:
        validation.FAST_PATH = True
    return "valid"


def test_the_fast_path_is_on():
    """jsonschema-rs is installed and passes a valid document without `jsonschema`."""
    assert validation._fast_validators()
    assert validation._passes_fast("scenario", documents.scenario())
    assert validation._passes_fast("move", documents.move())
    assert not validation._passes_fast("move", documents.move(type=3))


@pytest.mark.parametrize(
    "scenario",
    [documents.scenario(), *(s for s in SCENARIOS if s["system"] == "warmaster-revolution")][:2],
)
def test_scenario_answers_are_byte_identical(scenario):
    """About 300 breaks spread over the whole scenario (wording an error in a large document
    costs some 10 ms each way; a break of every kind still lands on every part of it)."""
    checked = 0
    for doc in broken(scenario, at_most=300):
        assert answer(validate_scenario, doc, True) == answer(validate_scenario, doc, False)
        checked += 1
    assert checked > 200


@pytest.mark.parametrize(("system", "move"), [("wh40k-11e", documents.move()), *MOVES])
def test_move_answers_are_byte_identical(system, move):
    def check(doc):
        validate_move(doc, system)

    for doc in broken(move):
        assert answer(check, doc, True) == answer(check, doc, False)


def test_a_few_answers_by_hand():
    """The words a player sees, written here from FORMAT.md "Errors" (not copied from output)."""
    doc = documents.scenario()
    del doc["units"][0]["models"][0]["x"]
    assert answer(validate_scenario, doc, True) == (
        "InvalidInput",
        "units[0].models[0].x",
        "is required",
    )
    assert answer(validate_scenario, documents.scenario(name=3), True) == (
        "InvalidInput",
        "name",
        "must be a string",
    )
