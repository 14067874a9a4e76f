"""The one validator: every kind of invalid scenario is refused with the field named."""

import json

import pytest
from jsonschema import Draft202012Validator

from battlefield.validation import (
    TooLarge,
    adjudication_request,
    field_path,
    parse_json,
    scenario_schema,
    validate_move,
    validate_scenario,
)
from rules import InvalidInput
from rules.situation import LIMITS
from tests.documents import move, scenario


def refused(doc) -> InvalidInput:
    with pytest.raises(InvalidInput) as err:
        validate_scenario(doc)
    return err.value


def test_a_valid_scenario_becomes_a_situation():
    situation = validate_scenario(scenario())
    assert [u.id for u in situation.units] == ["B", "C"]


def test_the_shipped_schema_is_a_valid_json_schema():
    Draft202012Validator.check_schema(scenario_schema())


def test_the_schema_limits_are_the_documented_limits():
    schema = scenario_schema()
    props, defs = schema["properties"], schema["$defs"]
    assert props["units"]["maxItems"] == LIMITS["units"]
    assert props["terrain"]["maxItems"] == LIMITS["terrain"]
    assert props["armies"]["maxItems"] == LIMITS["armies"]
    assert props["units"]["items"]["properties"]["models"]["maxItems"] == LIMITS["models_per_unit"]
    assert props["terrain"]["items"]["properties"]["footprint"]["maxItems"] == LIMITS["vertices"]
    assert defs["base"]["properties"]["hull"]["maxItems"] == LIMITS["vertices"]
    assert props["table"]["properties"]["width"]["maximum"] == LIMITS["table_side"]


def test_jsonschema_paths_read_like_format_md():
    assert field_path(["units", 2, "models", 0, "base"]) == "units[2].models[0].base"
    assert field_path([]) == ""


def mutate(doc, fn):
    fn(doc)
    return doc


# One case per kind of invalid input: (what is wrong, change, field named, words in the message).
CASES = [
    ("unknown top-level field", lambda d: d.update(colour="red"), "colour", "unknown field"),
    (
        "unknown nested field",
        lambda d: d["units"][0]["models"][1].update(heading=3),
        "units[0].models[1].heading",
        "unknown field",
    ),
    (
        "missing required field",
        lambda d: d["units"][1]["models"][0].pop("y"),
        "units[1].models[0].y",
        "required",
    ),
    ("wrong type", lambda d: d["table"].update(width="60"), "table.width", "number"),
    ("unknown system", lambda d: d.update(system="chess"), "system", "one of"),
    (
        "wrong format",
        lambda d: d.update(format="arbiter.scenario/2"),
        "format",
        "arbiter.scenario/1",
    ),
    (
        "two base shapes",
        lambda d: d["units"][0]["models"][0]["base"].update(oval=[60, 35]),
        "units[0].models[0].base",
        "exactly one",
    ),
    (
        "unknown base shape",
        lambda d: d["units"][0]["models"][0].update(base={"square": 30}),
        "units[0].models[0].base.square",
        "unknown field",
    ),
    (
        "negative base size",
        lambda d: d["units"][0]["models"][0].update(base={"round": -3}),
        "units[0].models[0].base.round",
        "more than 0",
    ),
    (
        "lower-case keyword",
        lambda d: d["units"][0].update(keywords=["infantry"]),
        "units[0].keywords[0]",
        "upper-case",
    ),
    (
        "unknown terrain category",
        lambda d: d["terrain"][0].update(category="heavy"),
        "terrain[0].category",
        "one of",
    ),
    (
        "bad surge distance",
        lambda d: d["units"][0]["abilities"][0].update(distance="2D6"),
        "units[0].abilities[0].distance",
        "D6",
    ),
    (
        "badly named state flag",
        lambda d: d["units"][0]["state"].update({"Battle Shocked": True}),
        "units[0].state.Battle Shocked",
        "snake_case",
    ),
    (
        "state flag of the wrong type",
        lambda d: d["units"][0]["state"].update(battle_shocked="no"),
        "units[0].state.battle_shocked",
        "true or false",
    ),
    (
        "self-intersecting footprint",
        lambda d: d["terrain"][0].update(footprint=[[0, 0], [4, 4], [4, 0], [0, 4]]),
        "terrain[0].footprint",
        "simple polygon",
    ),
    (
        "terrain off the table",
        lambda d: d["terrain"][0].update(footprint=[[70, 50], [75, 50], [75, 55]]),
        "terrain[0].footprint",
        "off the table",
    ),
    (
        "model off the table",
        lambda d: d["units"][0]["models"][0].update(x=59.9),
        "units[0].models[0]",
        "off the table",
    ),
    (
        "overlapping models",
        lambda d: d["units"][0]["models"][1].update(x=30.5),
        "units[0].models[1]",
        "overlaps",
    ),
    (
        "duplicate id",
        lambda d: d["units"][1]["models"][0].update(id="B1"),
        "units[1].models[0].id",
        "already used",
    ),
    ("unknown army", lambda d: d["units"][0].update(army="green"), "units[0].army", "green"),
    (
        "unknown active army",
        lambda d: d["turn"].update(active_army="green"),
        "turn.active_army",
        "green",
    ),
    (
        "unit without models",
        lambda d: d["units"][0].update(models=[]),
        "units[0].models",
        "at least 1",
    ),
]


@pytest.mark.parametrize("change, field, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_an_invalid_scenario_is_refused_naming_the_field(change, field, words):
    err = refused(mutate(scenario(), change))
    assert err.field == field
    assert words in err.message


def test_a_scenario_that_is_not_an_object_is_refused():
    assert refused([1, 2]).message == "must be an object"


def test_too_many_units_is_a_size_limit():
    doc = scenario()
    doc["units"] = [
        dict(doc["units"][0], id=f"U{i}", models=[]) for i in range(LIMITS["units"] + 1)
    ]
    err = refused(doc)
    assert isinstance(err, TooLarge) and err.field == "units"


def test_too_many_vertices_is_a_size_limit():
    doc = scenario()
    doc["terrain"][0]["footprint"] = [
        [i * 0.1, (i % 2) * 0.1] for i in range(LIMITS["vertices"] + 1)
    ]
    err = refused(doc)
    assert isinstance(err, TooLarge) and err.field == "terrain[0].footprint"


def test_too_many_models_in_all_is_a_size_limit():
    doc = scenario(table={"width": 1000, "height": 1000}, terrain=[])
    units = []
    for u in range(LIMITS["models"] // LIMITS["models_per_unit"] + 1):  # 11 units of 60 = 660
        models = [
            {"id": f"m{u}-{i}", "base": {"round": 25}, "x": 2 + 2 * i, "y": 2 + 2 * u}
            for i in range(LIMITS["models_per_unit"])
        ]
        units.append({"id": f"u{u}", "army": "red", "models": models})
    doc["units"] = units
    err = refused(doc)
    assert isinstance(err, TooLarge) and err.field == "units" and "600" in err.message


def test_a_file_over_the_byte_limit_is_too_large():
    with pytest.raises(TooLarge) as err:
        parse_json(b" " * (LIMITS["document_bytes"] + 1))
    assert "1,000,001 bytes" in err.value.message


@pytest.mark.parametrize(
    "data, words",
    [
        (b'{"format": ', "not valid JSON"),
        (b'{"x": NaN}', "NaN"),
        (b"\xff\xfe{}", "UTF-8"),
        (b"[" * 100_000, "nested too deeply"),
    ],
)
def test_text_that_is_not_json_is_refused(data, words):
    with pytest.raises(InvalidInput) as err:
        parse_json(data)
    assert words in err.value.message


def test_json_with_a_byte_order_mark_is_read():
    assert parse_json("\ufeff{}".encode()) == {}


def test_moves_are_checked_by_the_engine_s_parser():
    with pytest.raises(InvalidInput) as err:
        validate_move(move(colour="red"), "wh40k-11e")
    assert err.value.field == "colour"
    with pytest.raises(InvalidInput) as err:
        validate_move(move(type="order-move"), "wh40k-11e")
    assert err.value.field == "type"


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"scenario": scenario()}, "move"),
        ({"move": move()}, "scenario"),
        ({"scenario": scenario(), "move": move(), "extra": 1}, "extra"),
        ({"scenario": scenario(system="chess"), "move": move()}, "system"),
        ({"scenario": scenario(), "move": move(dice=[7])}, "dice"),
    ],
)
def test_an_adjudication_request_names_the_field_within_its_document(payload, field):
    with pytest.raises(InvalidInput) as err:
        adjudication_request(json.loads(json.dumps(payload)))
    assert err.value.field == field
