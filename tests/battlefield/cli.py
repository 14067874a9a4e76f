"""Run `manage.py adjudicate` as a user would: files in, verdict JSON and exit status out."""

import io
import json
from dataclasses import dataclass

from django.core.management import call_command


@dataclass
class CliResult:
    status: int
    verdict: dict | None
    stderr: str

    def model_end(self, model_id: str) -> tuple[float, float]:
        end = self.verdict["models"][model_id]["end"]
        return end["x"], end["y"]

    def events(self) -> list[str]:
        return [e["event"] for e in self.verdict["events"]]


def adjudicate_cli(tmp_path, scenario: dict, move: dict) -> CliResult:
    scenario_file, move_file = tmp_path / "scenario.json", tmp_path / "move.json"
    scenario_file.write_text(json.dumps(scenario))
    move_file.write_text(json.dumps({"format": "arbiter.move/1", **move}))
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("adjudicate", str(scenario_file), str(move_file), stdout=out, stderr=err)
        status = 0
    except SystemExit as exit_:
        status = exit_.code
    text = out.getvalue()
    return CliResult(status, json.loads(text) if text.strip() else None, err.getvalue())
