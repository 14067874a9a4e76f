"""`python -m rules`: the same answers as `manage.py adjudicate`, without Django."""

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

from rules.__main__ import main
from rules.situation import LIMITS
from tests.documents import move, scenario

from .test_commands import run_adjudicate

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "battlefield" / "demo"


def write_files(tmp_path, scenario_doc, move_doc) -> list[str]:
    files = []
    for name, doc in (("scenario.json", scenario_doc), ("move.json", move_doc)):
        path = tmp_path / name
        path.write_bytes(doc if isinstance(doc, bytes) else json.dumps(doc).encode())
        files.append(str(path))
    return files


def run_rules(tmp_path, scenario_doc, move_doc):
    """`python -m rules` on the two documents: (exit status, stdout, stderr)."""
    done = subprocess.run(
        [sys.executable, "-m", "rules", *write_files(tmp_path, scenario_doc, move_doc)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return done.returncode, done.stdout, done.stderr


def call_rules(tmp_path, scenario_doc, move_doc):
    """`rules.__main__.main` on the two documents, in this process (what `python -m rules`
    runs; the tests below that start it as a command check the exit status and the imports):
    (exit status, stdout, stderr)."""
    out, err = StringIO(), StringIO()
    status = main(write_files(tmp_path, scenario_doc, move_doc), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def demo(name: str) -> tuple[dict, dict]:
    return (
        json.loads((DEMO / "scenarios" / f"{name}.json").read_text()),
        json.loads((DEMO / "moves" / f"{name}.json").read_text()),
    )


@pytest.mark.parametrize(
    "scenario_doc, move_doc",
    [
        demo("surge-berzerkers"),  # legal: exit 0
        (scenario(), move()),  # the shared documents
        (scenario(), move(end={"B1": {"x": 50.0, "y": 22.0}, "B2": {"x": 31.5, "y": 22.0}})),
        (scenario(colour="red"), move()),  # invalid: exit 2 naming the field
        (scenario(), move(dice=[9])),
        (scenario(), move(unit="Z")),
        (b"{", move()),
        (b" " * (LIMITS["document_bytes"] + 1), move()),
    ],
)
def test_the_same_answer_as_manage_py_adjudicate(tmp_path, scenario_doc, move_doc):
    assert call_rules(tmp_path, scenario_doc, move_doc) == run_adjudicate(
        tmp_path, scenario_doc, move_doc
    )


def test_exit_codes_by_hand(tmp_path):
    """A 7" normal move for a 6" unit is illegal (exit 1); a bad field is exit 2 on stderr."""
    code, out, err = run_rules(
        tmp_path, scenario(), move(end={"B1": {"x": 30.0, "y": 27.0}, "B2": {"x": 31.5, "y": 27.0}})
    )
    assert code == 1 and json.loads(out)["legal"] is False and err == ""
    code, out, err = run_rules(tmp_path, scenario(colour="red"), move())
    assert (code, out, err) == (2, "", "invalid input: colour: unknown field 'colour'\n")


def test_a_missing_file_exits_2(tmp_path, capsys):
    assert main([str(tmp_path / "none.json"), str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_it_loads_no_django(tmp_path):
    scenario_doc, move_doc = demo("surge-berzerkers")
    (tmp_path / "s.json").write_text(json.dumps(scenario_doc))
    (tmp_path / "m.json").write_text(json.dumps(move_doc))
    code = (
        "import sys; from rules.__main__ import main; "
        f"status = main([{str(tmp_path / 's.json')!r}, {str(tmp_path / 'm.json')!r}, "
        "'--compact']); "
        "sys.exit(10 + status if any(m.split('.')[0] == 'django' for m in sys.modules) else status)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
