"""Every 40K demo move, judged: the baseline the 3-D terrain work must not change (issue 12).

The moves are the demo moves (battlefield/demo/moves), each lesson's "Try it" move through
`suggest` and then `adjudicate`, and a fixed set of normal and advance moves of every unit of
every 40K demo scenario (each model shifted the same way), so the terrain, ruins included, is
crossed in many ways. Charges are left out: the 11th-edition charge (RULES.md 1.4) changed
on purpose.

`python -m tests.rules.wh40k.demo_regression` rewrites the baseline
(tests/rules/wh40k/examples/demo_verdicts.json); do that only for a change of meaning that is
meant, and say so in the commit.
"""

from __future__ import annotations

import json
import pathlib

from rules import InvalidInput, Move, Situation, adjudicate, suggest

ROOT = pathlib.Path(__file__).resolve().parents[3]
DEMO = ROOT / "battlefield" / "demo"
BASELINE = pathlib.Path(__file__).resolve().parent / "examples" / "demo_verdicts.json"
#: (dx, dy, move type, dice): the synthetic moves made by every unit of every demo scenario.
SHIFTS = ((1.0, 0.0, "normal", None), (0.0, 1.5, "normal", None), (-2.5, 0.0, "advance", [3]))


def _load(path: pathlib.Path) -> dict:
    return json.loads(path.read_text())


def _scenario(name: str) -> Situation:
    return Situation.from_document(_load(DEMO / "scenarios" / f"{name}.json"))


def _summary(situation: Situation, move_doc: dict, *, suggested: bool = False) -> dict:
    try:
        move = Move.from_document(move_doc, situation.system)
        if suggested:
            move = suggest(situation, move)
        verdict = adjudicate(situation, move)
    except InvalidInput as exc:
        # The field is the judgment; the message's wording is not a verdict (and is reworded).
        return {"invalid": exc.field}
    return {
        "legal": verdict.legal,
        "findings": [[f.rule, f.stage, f.passed, f.subject, f.text] for f in verdict.findings],
        "models": verdict.models,
    }


def cases() -> dict[str, tuple[Situation, dict, bool]]:
    """{case name: (situation, move document, through suggest first)} for every demo move."""
    out: dict[str, tuple[Situation, dict, bool]] = {}
    for path in sorted((DEMO / "moves").glob("*.json")):
        situation = _scenario(path.stem)
        if situation.system == "wh40k-11e":
            out[f"move:{path.stem}"] = (situation, _load(path), False)
    for path in sorted((DEMO / "lessons").glob("*.json")):
        lesson = _load(path)
        if lesson.get("system") != "wh40k-11e":
            continue
        for i, step in enumerate(lesson["steps"]):
            if "try" in step and step["try"].get("type") != "charge":
                out[f"lesson:{path.stem}:{i}"] = (_scenario(lesson["scenario"]), step["try"], True)
    for path in sorted((DEMO / "scenarios").glob("*.json")):
        doc = _load(path)
        if doc.get("system") != "wh40k-11e":
            continue
        situation = Situation.from_document(doc)
        for unit in situation.units:
            if unit.move is None:
                continue
            for dx, dy, move_type, dice in SHIFTS:
                move = {
                    "format": "arbiter.move/1",
                    "unit": unit.id,
                    "type": move_type,
                    "end": {m.id: {"x": m.x + dx, "y": m.y + dy} for m in unit.models},
                }
                if dice:
                    move["dice"] = dice
                out[f"shift:{path.stem}:{unit.id}:{move_type}:{dx}:{dy}"] = (situation, move, False)
    return out


def verdicts() -> dict[str, dict]:
    return {
        name: _summary(situation, move, suggested=suggested)
        for name, (situation, move, suggested) in cases().items()
    }


def _jsonable(value):
    return json.loads(json.dumps(value))


if __name__ == "__main__":
    BASELINE.write_text(json.dumps(_jsonable(verdicts()), indent=1, sort_keys=True) + "\n")
    print(f"wrote {BASELINE}")
