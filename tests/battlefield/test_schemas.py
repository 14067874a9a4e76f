"""The JSON Schemas Arbiter ships (battlefield/schemas/): they are valid schemas, the demo data and
the engines' output obey them, unknown fields are refused by name, and every extension they
describe is documented in docs/format.md."""

import copy
import json
import pathlib
import re

import pytest
from django.test import Client
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from battlefield.validation import (
    SCHEMA_DIR,
    move_schema,
    scenario_schema,
    validate_move,
    validate_scenario,
    verdict_schema,
)
from rules import SYSTEMS, InvalidInput, Move, Situation, adjudicate
from tests.documents import move, scenario

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEMO = ROOT / "battlefield" / "demo"
SCENARIOS = sorted((DEMO / "scenarios").glob("*.json"))
MOVES = sorted((DEMO / "moves").glob("*.json"))
LESSONS = sorted((DEMO / "lessons").glob("*.json"))
DOCS = (ROOT / "docs" / "format.md").read_text()


def read(path: pathlib.Path):
    return json.loads(path.read_text())


def lesson_tries() -> list[tuple[str, dict, str]]:
    """(lesson slug, its "Try it" move, its scenario's stem)."""
    tries = []
    for path in LESSONS:
        lesson = read(path)
        for step in lesson["steps"]:
            if isinstance(step.get("try"), dict):
                tries.append((lesson["slug"], step["try"], lesson["scenario"]))
    return tries


def verdict_validator() -> Draft202012Validator:
    """verdict.schema.json, with scenario.schema.json resolvable for its `scenario` field."""
    scenario = Resource.from_contents(scenario_schema())
    registry = Registry().with_resource(scenario_schema()["$id"], scenario)
    return Draft202012Validator(verdict_schema(), registry=registry)


def errors(validator, doc) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]


# -- the schemas themselves ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["scenario", "move", "verdict"])
def test_each_shipped_schema_is_a_valid_draft_2020_12_schema(name):
    schema = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_move_schema_knows_every_move_type_and_declaration_the_engine_parses():
    from rules.move import MOVE_FIELDS
    from rules.systems import declarations_of, move_types_of

    schema = move_schema()
    assert set(schema["properties"]) == MOVE_FIELDS
    assert set(schema["properties"]["type"]["enum"]) == set(move_types_of())
    assert set(schema["$defs"]["declarations"]["properties"]) == set(declarations_of())


def test_the_scenario_schema_s_terrain_names_are_the_registry_s():
    schema = scenario_schema()
    warmaster = SYSTEMS["warmaster-revolution"]
    names = schema["$defs"]["warmaster_terrain_type"]["examples"]
    assert set(names) == set(warmaster.terrain_names)
    categories = schema["properties"]["terrain"]["items"]["properties"]["category"]["enum"]
    assert set(categories) == {k.name for k in SYSTEMS["wh40k-11e"].terrain_kinds}


def test_the_trigger_schema_matches_the_engine_s_trigger_fields():
    from rules.wh40k.surge import EVENTS, SURGE_TRIGGERS, TRIGGER_FIELDS

    trigger = move_schema()["$defs"]["trigger"]
    assert set(trigger["properties"]) == TRIGGER_FIELDS
    assert trigger["properties"]["event"]["enum"] == list(EVENTS)
    surge = scenario_schema()["$defs"]["ability"]["then"]["properties"]["trigger"]["enum"]
    assert set(surge) == set(SURGE_TRIGGERS)


# -- demo data obeys them -----------------------------------------------------------------------


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_demo_scenario_validates(path):
    assert validate_scenario(read(path)).system in SYSTEMS


@pytest.mark.parametrize("path", MOVES, ids=lambda p: p.stem)
def test_every_demo_move_validates_against_the_move_schema(path):
    system = read(DEMO / "scenarios" / path.name)["system"]
    assert isinstance(validate_move(read(path), system), Move)


@pytest.mark.parametrize("slug, try_move, stem", lesson_tries(), ids=lambda v: str(v)[:30])
def test_every_lesson_s_try_move_validates(slug, try_move, stem):
    system = read(DEMO / "scenarios" / f"{stem}.json")["system"]
    assert validate_move(try_move, system).unit == try_move["unit"]


def test_there_are_demo_moves_and_lesson_tries_to_check():
    # Guards the parametrised tests above against an empty glob passing silently.
    assert len(MOVES) >= 5 and len(lesson_tries()) >= 10


# -- the engines' output obeys them -------------------------------------------------------------


def judged(scenario_doc: dict, move_doc: dict) -> dict:
    situation = Situation.from_document(scenario_doc)
    return adjudicate(situation, Move.from_document(move_doc, situation.system)).as_dict()


@pytest.mark.parametrize("path", MOVES, ids=lambda p: p.stem)
def test_the_verdict_of_every_demo_move_validates_against_the_verdict_schema(path):
    verdict = judged(read(DEMO / "scenarios" / path.name), read(path))
    assert verdict["legal"], "the demo moves are the worked examples, all legal"
    assert errors(verdict_validator(), verdict) == []


def suggested_tries():
    """Lesson tries whose move type the engine places itself (surge, drive back, home back)."""
    out = []
    for slug, try_move, stem in lesson_tries():
        system = read(DEMO / "scenarios" / f"{stem}.json")["system"]
        rule = SYSTEMS[system].move_types.get(try_move["type"])
        if rule is not None and rule.suggest is not None:
            out.append((slug, try_move, stem))
    return out


@pytest.mark.parametrize("slug, try_move, stem", suggested_tries(), ids=lambda v: str(v)[:30])
def test_the_verdict_of_every_lesson_try_the_engine_places_validates(slug, try_move, stem):
    try:
        verdict = judged(read(DEMO / "scenarios" / f"{stem}.json"), try_move)
    except InvalidInput as err:  # the move needs the player's hand placement after all
        assert err.field == "end"
        return
    assert errors(verdict_validator(), verdict) == []


def test_a_verdict_with_server_rolled_dice_carries_the_seed_and_validates():
    doc = read(MOVES[0])
    scenario_doc = read(DEMO / "scenarios" / MOVES[0].name)
    doc.pop("dice", None)
    doc["seed"] = 11
    verdict = judged(scenario_doc, doc)
    assert verdict["move"]["seed"] == 11
    assert all(d["source"] == "server" for d in verdict["move"]["dice"])
    assert errors(verdict_validator(), verdict) == []


def test_a_desperate_escape_s_owed_rolls_fit_the_event_shapes():
    # C1 (32 mm = 1.26" base) 1.3" below B1's centre: a 0.04" gap, so B is engaged and must fall
    # back; battle-shocked, it makes a Desperate Escape 5" straight up (M 6").
    doc = scenario(turn={"round": 2, "active_army": "red", "phase": "movement"})
    doc["units"][0]["state"] = {"battle_shocked": True}
    doc["units"][1]["models"] = [{"id": "C1", "base": {"round": 32}, "x": 30.0, "y": 21.3}]
    verdict = judged(
        doc,
        move(type="fall-back", end={"B1": {"x": 30.0, "y": 15.0}, "B2": {"x": 31.5, "y": 15.0}}),
    )
    assert verdict["legal"], verdict["findings"]
    assert [e["event"] for e in verdict["events"]] == ["hazard-roll", "hazard-roll"]
    assert errors(verdict_validator(), verdict) == []


@pytest.mark.parametrize("roll", [1, 3, 6])
def test_a_return_to_the_table_and_the_off_table_state_fit_the_schemas(roll):
    # Warmaster 2.9: F, off the table where it left (x 0..2), rolls to return at the start of
    # red's turn; the verdict's event and the scenario after (off_table, may_not_move) validate.
    stands = [
        {"id": f"F{i}", "base": {"rect": [40, 20]}, "x": 1, "y": 50 + 4 * i} for i in range(3)
    ]
    doc = {
        "format": "arbiter.scenario/1",
        "system": "warmaster-revolution",
        "name": "Off the table",
        "table": {"width": 180, "height": 120},
        "armies": [{"id": "red", "name": "Red"}],
        "units": [
            {
                "id": "F",
                "army": "red",
                "keywords": ["FLYING"],
                "state": {"off_table": True, "stands_lost": 1},
                "models": stands,
            }
        ],
        "turn": {"round": 2, "active_army": "red", "phase": "command"},
    }
    verdict = judged(doc, {"unit": "F", "type": "return-to-table", "dice": [roll]})
    assert verdict["legal"], verdict["findings"]
    assert [e["event"] for e in verdict["events"]][0] == "return-roll"
    assert errors(verdict_validator(), verdict) == []


def test_the_verdict_schema_refuses_an_event_it_does_not_describe():
    verdict = judged(read(DEMO / "scenarios" / MOVES[0].name), read(MOVES[0]))
    verdict["events"].append({"event": "teleported", "unit": "B"})
    assert errors(verdict_validator(), verdict)


# -- unknown fields are refused by name ---------------------------------------------------------

API = "/api/v1/adjudicate"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change, field",
    [
        (lambda m: m.update(colour="red"), "colour"),
        (lambda m: m.setdefault("declarations", {}).update(colour="red"), "declarations.colour"),
        (lambda m: m["end"]["B1"].update(colour="red"), "end.B1.colour"),
        (
            lambda m: m.update(
                type="surge",
                declarations={"trigger": {"event": "shot", "by": "C", "colour": "red"}},
            ),
            "declarations.trigger.colour",
        ),
    ],
)
def test_an_unknown_field_in_a_move_is_a_400_naming_it(change, field):
    doc = move()
    change(doc)
    response = Client().post(
        API, json.dumps({"scenario": scenario(), "move": doc}), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["field"] == field
    assert "unknown" in response.json()["error"]


@pytest.mark.django_db
def test_a_move_over_a_list_limit_is_a_413_and_a_bad_die_a_400():
    def post(doc):
        payload = json.dumps({"scenario": scenario(), "move": doc})
        return Client().post(API, payload, content_type="application/json")

    response = post(move(dice=[3] * 41))  # the schema's limit is 40 dice
    assert response.status_code == 413 and response.json()["field"] == "dice"
    response = post(move(dice=[3, 7]))
    assert response.status_code == 400
    assert response.json() == {"field": "dice", "error": "must be a list of die values from 1 to 6"}


def test_a_move_s_wrong_types_are_named_by_the_schema():
    doc = move(declarations={"take_to_the_skies": "yes"})
    with pytest.raises(InvalidInput) as err:
        validate_move(doc, "wh40k-11e")
    assert (err.value.field, err.value.message) == (
        "declarations.take_to_the_skies",
        "must be true or false",
    )
    with pytest.raises(InvalidInput) as err:
        validate_move(move(declarations={"fall_back_mode": "run"}), "wh40k-11e")
    assert err.value.field == "declarations.fall_back_mode" and "ordered-retreat" in str(err.value)


def test_an_unknown_state_flag_is_an_error_naming_it():
    doc = scenario()
    doc["units"][0]["state"] = {"battle_shocked": False, "has_banner": True}
    with pytest.raises(InvalidInput) as err:
        validate_scenario(doc)
    assert err.value.field == "units[0].state.has_banner"
    assert "unknown state flag" in err.value.message


def test_arbiter_s_state_fields_are_typed():
    doc = scenario()
    doc["units"][0]["state"] = {"surges_used": [{"ability": "blood-surge", "round": "two"}]}
    with pytest.raises(InvalidInput) as err:
        validate_scenario(doc)
    assert err.value.field == "units[0].state.surges_used[0].round"


def test_a_surge_ability_must_name_its_trigger_and_distance():
    doc = scenario()
    doc["units"][0]["abilities"] = [{"id": "zeal", "kind": "surge", "distance": "D6"}]
    with pytest.raises(InvalidInput) as err:
        validate_scenario(copy.deepcopy(doc))
    assert (err.value.field, err.value.message) == ("units[0].abilities[0].trigger", "is required")
    doc["units"][0]["abilities"][0]["trigger"] = "models-eaten"
    with pytest.raises(InvalidInput) as err:
        validate_scenario(doc)
    assert err.value.field == "units[0].abilities[0].trigger" and "one of" in err.value.message


# -- every field the engines read or write is in the schema and in the docs ----------------------

_STATE_READS = (
    r'\.flag\("(\w+)"\)',
    r'state\.get\("(\w+)"',
    r'state\["(\w+)"\]',
    r'state = \{"(\w+)"',
    r'\{unit\.id: \{"(\w+)"',
    r', "(\w+)": (?:earlier|character|use_record)',
    r'^\s+\("(\w+)", "',  # (flag, word) tables, each read with unit.flag(flag)
)


def engine_state_fields() -> set[str]:
    found = set()
    for path in (ROOT / "rules").rglob("*.py"):
        text = path.read_text()
        for pattern in _STATE_READS:
            found |= set(re.findall(pattern, text, re.MULTILINE))
    return found


def test_every_state_field_the_engines_read_or_write_is_typed_in_the_scenario_schema():
    fields = engine_state_fields()
    known = set(scenario_schema()["$defs"]["state"]["properties"])
    assert {"surges_used", "stands_lost", "ordered_by", "joined", "homed_back"} <= fields
    assert fields <= known, sorted(fields - known)
    registered = {f.name for system in SYSTEMS.values() for f in system.state_flags}
    assert registered <= known, sorted(registered - known)


@pytest.mark.parametrize(
    "name",
    sorted(
        set(scenario_schema()["$defs"]["state"]["properties"])
        | set(move_schema()["$defs"]["declarations"]["properties"])
        | set(move_schema()["$defs"]["trigger"]["properties"])
        | set(verdict_schema()["$defs"]["move"]["properties"])
        | {e["properties"]["event"]["const"] for e in verdict_schema()["$defs"]["event"]["oneOf"]}
        | {"seed", "proposed", "limit", "name", "kind"}
    ),
)
def test_every_field_the_schemas_describe_is_documented_in_docs_format_md(name):
    # Written alone (`seed`) or as the last part of a dotted name (`move.roll_basis`).
    assert re.search(rf"`(?:[\w<>]+\.)*{re.escape(name)}`", DOCS), name


COVERAGE = (ROOT / "docs" / "rules-coverage.md").read_text()


@pytest.mark.parametrize(
    "module",
    sorted(
        str(p.relative_to(ROOT))
        for package in ("wh40k", "warmaster")
        for p in (ROOT / "rules" / package).glob("*.py")
        if p.name != "__init__.py"
    ),
)
def test_docs_rules_coverage_names_every_rules_module(module):
    assert f"`{module}`" in COVERAGE


#: The rules contract sits beside the checkout in the design documents (absent: nothing to check).
RULES_MD = ROOT.parent / "shared" / "RULES.md"
RULES_SECTIONS = (
    re.findall(r"^### (\d\.\d)", RULES_MD.read_text(), re.M) if RULES_MD.exists() else []
)


@pytest.mark.parametrize("section", RULES_SECTIONS)
def test_docs_rules_coverage_has_a_row_for_every_rules_section(section):
    assert f"| {section} " in COVERAGE
