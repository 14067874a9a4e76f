"""The two commands: `adjudicate` (exit 0 / 1 / 2) and `load_demo` (idempotent)."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from battlefield.models import Scenario, UnitProfile
from rules.situation import LIMITS
from tests.documents import move, scenario
from tests.registry import judge_move_type

DEMO = Path(__file__).resolve().parents[2] / "battlefield" / "demo"


def run_adjudicate(tmp_path, scenario_doc, move_doc):
    files = []
    for name, doc in (("scenario.json", scenario_doc), ("move.json", move_doc)):
        path = tmp_path / name
        path.write_bytes(doc if isinstance(doc, bytes) else json.dumps(doc).encode())
        files.append(str(path))
    out, err = StringIO(), StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("adjudicate", *files, stdout=out, stderr=err)
    return exit_.value.code, out.getvalue(), err.getvalue()


def test_an_illegal_move_prints_the_verdict_and_exits_1(tmp_path, judge_normal_moves_as):
    judge_normal_moves_as(legal=False)
    code, out, err = run_adjudicate(tmp_path, scenario(), move())
    verdict = json.loads(out)
    assert code == 1 and verdict["legal"] is False and verdict["format"] == "arbiter.verdict/1"
    assert err == ""


def test_a_legal_move_exits_0(tmp_path, judge_normal_moves_as):
    judge_normal_moves_as(legal=True)
    code, out, _ = run_adjudicate(tmp_path, scenario(), move())
    assert code == 0 and json.loads(out)["legal"] is True


def test_a_move_the_engine_does_not_cover_is_refused_not_passed(tmp_path, monkeypatch):
    judge_move_type(monkeypatch, "wh40k-11e", "normal", adjudicate=None)
    code, out, _ = run_adjudicate(tmp_path, scenario(), move())
    verdict = json.loads(out)
    assert (
        code == 1
        and verdict["legal"] is False
        and "does not judge" in verdict["findings"][0]["text"]
    )


@pytest.mark.parametrize(
    "scenario_doc, move_doc, message",
    [
        (scenario(colour="red"), move(), "invalid input: colour: unknown field 'colour'"),
        (scenario(), move(dice=[9]), "invalid input: dice: must be a list of die values"),
        (scenario(), move(unit="Z"), "invalid input: unit: no unit with id 'Z'"),
        (b"{", move(), "is not valid JSON"),
        (b" " * (LIMITS["document_bytes"] + 1), move(), "the limit is 1,000,000 bytes"),
    ],
)
def test_invalid_input_exits_2_naming_the_field_on_stderr(
    tmp_path, scenario_doc, move_doc, message
):
    code, out, err = run_adjudicate(tmp_path, scenario_doc, move_doc)
    assert code == 2 and out == "" and message in err


def test_a_missing_file_exits_2(tmp_path):
    err = StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command(
            "adjudicate", str(tmp_path / "none.json"), str(tmp_path / "none.json"), stderr=err
        )
    assert exit_.value.code == 2 and "cannot read" in err.getvalue()


def write_demo(folder: Path, name="one"):
    (folder / "scenarios").mkdir(parents=True, exist_ok=True)
    (folder / "scenarios" / f"{name}.json").write_text(json.dumps(scenario(name=f"Demo {name}")))
    (folder / "unit_profiles.json").write_text(
        json.dumps(
            [
                {
                    "system": "wh40k-11e",
                    "name": "Khorne Berzerkers",
                    "keywords": ["INFANTRY"],
                    "move": 6,
                    "base": {"round": 32},
                    "models": 10,
                    "abilities": [
                        {
                            "id": "blood-surge",
                            "kind": "surge",
                            "trigger": "models-destroyed-by-shooting",
                            "distance": "D6",
                            "limit": None,
                        }
                    ],
                },
                {
                    "system": "warmaster-revolution",
                    "name": "Giant Eagles",
                    "keywords": ["MONSTER", "FLYING"],
                    "move": 100,
                    "base": {"rect": [40, 20]},
                    "models": 3,
                    "abilities": [],
                },
            ]
        )
    )


@pytest.mark.django_db
def test_load_demo_is_idempotent(tmp_path):
    write_demo(tmp_path)
    call_command("load_demo", dir=str(tmp_path), stdout=StringIO())
    first = list(Scenario.objects.values_list("pk", "share_token", "version", "visibility"))
    out = StringIO()
    call_command("load_demo", dir=str(tmp_path), stdout=out)
    assert list(Scenario.objects.values_list("pk", "share_token", "version", "visibility")) == first
    assert first[0][3] == "public" and UnitProfile.objects.count() == 2
    assert "0 added, 0 updated; unit profiles: 0 added, 0 updated" in out.getvalue()
    assert UnitProfile.objects.get(name="Khorne Berzerkers").model_count == 10


@pytest.mark.django_db
def test_load_demo_updates_a_changed_file_in_place(tmp_path):
    write_demo(tmp_path)
    call_command("load_demo", dir=str(tmp_path), stdout=StringIO())
    before = Scenario.objects.get()
    changed = scenario(name="Demo one, revised")
    (tmp_path / "scenarios" / "one.json").write_text(json.dumps(changed))
    call_command("load_demo", dir=str(tmp_path), stdout=StringIO())
    after = Scenario.objects.get()
    assert (after.pk, after.share_token) == (before.pk, before.share_token)
    assert after.name == "Demo one, revised" and after.version == before.version + 1


@pytest.mark.django_db
def test_load_demo_refuses_an_invalid_file_naming_it_and_the_field(tmp_path):
    write_demo(tmp_path)
    (tmp_path / "scenarios" / "bad.json").write_text(json.dumps(scenario(system="chess")))
    with pytest.raises(CommandError, match=r"bad.json: system: must be one of"):
        call_command("load_demo", dir=str(tmp_path), stdout=StringIO())
    assert Scenario.objects.count() == 0  # all or nothing


DEMO_FILES = sorted((DEMO / "scenarios").glob("*.json")) if (DEMO / "scenarios").exists() else []


@pytest.mark.django_db
@pytest.mark.skipif(not DEMO_FILES, reason="no demo scenarios in this checkout yet")
def test_the_shipped_demo_data_loads_and_every_scenario_exports_unchanged(client):
    call_command("load_demo", stdout=StringIO())
    assert Scenario.objects.filter(visibility="public").count() == len(DEMO_FILES)
    assert UnitProfile.objects.count() >= 30
    for path in DEMO_FILES:
        s = Scenario.objects.get(demo_key=path.stem)
        original = json.loads(path.read_text())
        exported = json.loads(client.get(f"/s/{s.share_token}/scenario.json").content)
        assert exported == original, path.name
        assert client.get(s.share_url()).status_code == 200
        assert client.get(f"/s/{s.share_token}/table.png").status_code == 200


def test_a_negative_end_elevation_exits_2_naming_the_field(tmp_path):
    end = {"B1": {"x": 30.0, "y": 22.0, "z": -1}, "B2": {"x": 31.5, "y": 22.0}}
    code, out, err = run_adjudicate(tmp_path, scenario(), move(end=end))
    assert code == 2 and out == "" and "end.B1.z" in err and "Traceback" not in err


def test_an_oval_turned_across_the_table_edge_gets_a_verdict_exit_1(tmp_path):
    # C1's oval is 95 mm (3.74") along its facing and 150 mm (5.91") across. Facing 0 at x = 2.5
    # it reaches 1.87" left; turned to 90 it would reach 2.95" left, past the edge (RULES.md
    # 1.3: turning on the spot is a move for the end-of-move checks).
    doc = scenario(turn={"round": 2, "active_army": "blue", "phase": "movement"})
    doc["units"][1]["models"][0].update(x=2.5, facing=0)
    turn = {
        "format": "arbiter.move/1",
        "unit": "C",
        "type": "normal",
        "end": {"C1": {"x": 2.5, "y": 30.0, "facing": 90}},
    }
    code, out, err = run_adjudicate(tmp_path, doc, turn)
    assert code == 1 and err == "" and json.loads(out)["legal"] is False


def test_a_failure_inside_the_engine_is_reported_without_a_traceback(tmp_path, monkeypatch):
    def broken(situation, move):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr("battlefield.management.commands.adjudicate.adjudicate", broken)
    code, out, err = run_adjudicate(tmp_path, scenario(), move())
    assert code == 3 and out == "" and "Traceback" not in err
    assert "could not judge" in err and "ZeroDivisionError" in err
