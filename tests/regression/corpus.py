"""The verdict regression corpus: hundreds of moves judged by the engine, compared with goldens.

Speed work (issue 16) must not change a single verdict. This module builds a seeded corpus of
moves (the demo moves, every lesson's "try it" move, and moves generated over every move type on
the demo tables and on random 40K tables with terrain) and judges each one. The goldens in
`goldens/` hold what the engine said when they were recorded; `test_verdict_corpus.py` compares.

When a change SHOULD change verdicts (a rule fixed, terrain judged in 3-D, ...), regenerate the
goldens and review the diff like code:

    .venv/bin/python -m tests.regression.corpus --write      # or: make goldens

Each golden file is one JSON object keyed by case id ("demo/...", "lesson/...", "gen/...") with
one verdict per key, pretty-printed and sorted, so `git diff` shows exactly which moves changed
and how. A case whose input is refused records {"invalid": [field, message]}.
"""

from __future__ import annotations

import copy
import json
import math
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEMO = ROOT / "battlefield" / "demo"
GOLDENS = pathlib.Path(__file__).resolve().parent / "goldens"
GROUPS = ("demo", "lessons", "generated-40k", "generated-warmaster")
#: Floats are compared to this many decimals: a last-bit difference in a suggested position is
#: not a verdict change; anything a player could see (findings round to 4 places) is.
DECIMALS = 6


def _rounded(value):
    if isinstance(value, float):
        return round(value, DECIMALS) + 0.0  # + 0.0: no "-0.0" in the goldens
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def judge(scenario: dict, move: dict) -> dict:
    """The engine's verdict on one move as a JSON-ready dict (the after-scenario left out: the
    verdict's `models` and `proposed` already say where everything ended; so is `judged_by`)."""
    from rules import InvalidInput, Move, Situation, adjudicate

    try:
        situation = Situation.from_document(scenario)
        verdict = adjudicate(situation, Move.from_document(move, situation.system))
    except InvalidInput as exc:
        return {"invalid": [exc.field, exc.message]}
    out = verdict.as_dict()
    out.pop("scenario", None)
    # Which engine and RULES.md revision judged: changes with every edit of RULES.md, and is
    # not a verdict (it would bury the one case that changed under 620 that did not).
    out.pop("judged_by", None)
    return _rounded(out)


def _load(path: pathlib.Path) -> dict:
    return json.loads(path.read_text())


def _scenarios() -> dict[str, dict]:
    return {p.stem: _load(p) for p in sorted((DEMO / "scenarios").glob("*.json"))}


def demo_cases() -> dict[str, tuple[dict, dict]]:
    scenarios = _scenarios()
    return {
        f"demo/{p.stem}": (scenarios[p.stem], _load(p))
        for p in sorted((DEMO / "moves").glob("*.json"))
        if p.stem in scenarios
    }


def lesson_cases() -> dict[str, tuple[dict, dict]]:
    scenarios = _scenarios()
    cases = {}
    for path in sorted((DEMO / "lessons").glob("*.json")):
        lesson = _load(path)
        scenario = lesson["scenario"]
        if isinstance(scenario, str):
            scenario = scenarios[scenario]
        for i, step in enumerate(lesson["steps"]):
            if "try" in step:
                cases[f"lesson/{lesson['slug']}/{i}"] = (scenario, step["try"])
    return cases


# -- generated moves -------------------------------------------------------------------------------
def _shifted(unit: dict, rng: random.Random, reach: float, table: dict) -> dict:
    """End poses for every model of `unit`: the unit moved as a block by up to `reach` in a
    random direction, each model jittered a little (some end states legal, many not)."""
    angle = rng.uniform(0, 2 * math.pi)
    length = rng.uniform(0, reach)
    dx, dy = length * math.cos(angle), length * math.sin(angle)
    end = {}
    for m in unit["models"]:
        x = min(max(m["x"] + dx + rng.uniform(-0.3, 0.3), 0.5), table["width"] - 0.5)
        y = min(max(m["y"] + dy + rng.uniform(-0.3, 0.3), 0.5), table["height"] - 0.5)
        pose = {"x": round(x, 3), "y": round(y, 3)}
        if "facing" in m:
            pose["facing"] = m["facing"]
        end[m["id"]] = pose
    return end


def _nearest_enemy(scenario: dict, unit: dict) -> dict | None:
    enemies = [u for u in scenario["units"] if u["army"] != unit["army"]]
    if not enemies:
        return None
    ux = sum(m["x"] for m in unit["models"]) / len(unit["models"])
    uy = sum(m["y"] for m in unit["models"]) / len(unit["models"])
    return min(
        enemies,
        key=lambda e: min(math.hypot(m["x"] - ux, m["y"] - uy) for m in e["models"]),
    )


def _moves_40k(scenario: dict, unit: dict, rng: random.Random) -> list[tuple[str, dict]]:
    move_inches = unit.get("move", 6)
    out = []
    fly = "FLY" in unit.get("keywords", [])
    for move_type in ("normal", "advance", "fall-back"):
        declarations = {"take_to_the_skies": True} if fly and rng.random() < 0.5 else {}
        move = {"format": "arbiter.move/1", "unit": unit["id"], "type": move_type}
        if declarations:
            move["declarations"] = declarations
        if move_type == "advance":
            move["dice"] = [rng.randint(1, 6)]
        move["end"] = _shifted(unit, rng, move_inches * 1.4, scenario["table"])
        out.append((move_type, move))
    target = _nearest_enemy(scenario, unit)
    if target is not None:
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        charge = {
            "format": "arbiter.move/1",
            "unit": unit["id"],
            "type": "charge",
            "declarations": {"charge_targets": [target["id"]]},
            "dice": dice,
        }
        placed = dict(charge, end=_shifted(unit, rng, sum(dice), scenario["table"]))
        if len(unit["models"]) <= 5:  # charges of big units cost the suite seconds each
            out.append(("charge-suggested", charge))
            out.append(("charge", placed))
    for ability in unit.get("abilities", []):
        if ability.get("kind") != "surge":
            continue
        shooters = [u for u in scenario["units"] if u["army"] != unit["army"]]
        if not shooters:
            continue
        by = rng.choice(shooters)
        surge = {
            "format": "arbiter.move/1",
            "unit": unit["id"],
            "type": "surge",
            "declarations": {
                "ability": ability["id"],
                "trigger": {"event": "shot", "by": by["id"], "models_destroyed": 1},
            },
            "dice": [rng.randint(1, 6)],
        }
        out.append(("surge-suggested", surge))
        out.append(("surge", dict(surge, end=_shifted(unit, rng, 6, scenario["table"]))))
        again = dict(surge, dice=[rng.randint(1, 6)])
        out.append(("surge-suggested-2", again))
        out.append(("surge-2", dict(again, end=_shifted(unit, rng, 4, scenario["table"]))))
    return out


def _moves_warmaster(scenario: dict, unit: dict, rng: random.Random) -> list[tuple[str, dict]]:
    from rules.systems import move_types_of

    out = []
    enemies = [u for u in scenario["units"] if u["army"] != unit["army"]]
    friends = [u for u in scenario["units"] if u["army"] == unit["army"] and u is not unit]
    characters = [u for u in friends if "CHARACTER" in u.get("keywords", [])]
    for move_type in move_types_of("warmaster-revolution"):
        declarations: dict = {}
        if move_type == "drive-back" and enemies:
            declarations = {"shooter": rng.choice(enemies)["id"], "hits": rng.randint(1, 3)}
        if move_type == "home-back" and characters:
            declarations = {"home_back_to": rng.choice(characters)["id"]}
        if move_type in ("order-move", "order-charge") and characters:
            declarations = {"ordered_by": rng.choice(characters)["id"]}
        move = {
            "format": "arbiter.move/1",
            "unit": unit["id"],
            "type": move_type,
            "dice": [rng.randint(1, 6) for _ in range(rng.choice((1, 2)))],
        }
        if declarations:
            move["declarations"] = declarations
        if rng.random() < 0.5:
            continue  # half of them: enough for a regression check, and quick
        if rng.random() < 0.4:
            out.append((f"{move_type}-suggested", move))
        else:
            out.append((move_type, dict(move, end=_shifted(unit, rng, 15, scenario["table"]))))
    return out


def random_table(seed: int) -> dict:
    """A 40K table with 6-14 terrain pieces and four units (one able to surge), seeded."""
    rng = random.Random(seed)
    terrain = []
    for i in range(rng.randint(6, 14)):
        cx, cy = rng.uniform(4, 56), rng.uniform(4, 40)
        n, size = rng.randint(4, 8), rng.uniform(1.5, 3.5)
        angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(n))
        kind = rng.choice(["light", "dense", "solid"])
        terrain.append(
            {
                "id": f"t{i}",
                "type": "ruin" if kind != "solid" else "building",
                "category": "dense" if kind == "solid" else kind,
                "height": rng.choice([1, 3, 5]),
                "solid": kind == "solid",
                "footprint": [
                    [
                        round(cx + size * rng.uniform(0.6, 1) * math.cos(a), 3),
                        round(cy + size * rng.uniform(0.6, 1) * math.sin(a), 3),
                    ]
                    for a in angles
                ],
            }
        )

    def block(prefix, n, x0, y0, base, cols=5, step=1.6):
        return [
            {
                "id": f"{prefix}{i + 1}",
                "base": {"round": base},
                "x": round(x0 + (i % cols) * step, 3),
                "y": round(y0 + (i // cols) * step, 3),
            }
            for i in range(n)
        ]

    x0, y0 = rng.uniform(8, 40), rng.uniform(6, 16)
    units = [
        {
            "id": "B",
            "army": "red",
            "name": "Berzerkers",
            "keywords": ["INFANTRY"],
            "move": 6,
            "abilities": [
                {
                    "id": "blood-surge",
                    "kind": "surge",
                    "trigger": "models-destroyed-by-shooting",
                    "distance": "D6",
                }
            ],
            "models": block("B", rng.randint(3, 10), x0, y0, 32),
        },
        {
            "id": "J",
            "army": "red",
            "name": "Jump pack",
            "keywords": ["INFANTRY", "FLY"],
            "move": 12,
            "models": block("J", 5, rng.uniform(4, 50), rng.uniform(30, 38), 32),
        },
        {
            "id": "C",
            "army": "blue",
            "name": "Crisis",
            "keywords": ["INFANTRY"],
            "move": 6,
            "models": block(
                "C", rng.randint(3, 8), x0 + rng.uniform(-4, 4), y0 + rng.uniform(7, 11), 40
            ),
        },
        {
            "id": "A",
            "army": "blue",
            "name": "Fire Warriors",
            "keywords": ["INFANTRY"],
            "move": 6,
            "models": block("A", 5, rng.uniform(4, 50), rng.uniform(20, 30), 25),
        },
    ]
    # keep terrain off the bases (a scenario with a model inside a solid piece is refused)
    from shapely.geometry import Point, Polygon

    bases = [Point(m["x"], m["y"]).buffer(1.2) for u in units for m in u["models"]]
    terrain = [
        t
        for t in terrain
        if Polygon(t["footprint"]).is_valid
        and not any(Polygon(t["footprint"]).intersects(b) for b in bases)
    ]
    return {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "name": f"corpus table {seed}",
        "table": {"width": 60, "height": 44},
        "terrain": terrain,
        "armies": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        "units": units,
        "turn": {"round": 2, "active_army": rng.choice(["red", "blue"]), "phase": "shooting"},
    }


#: Random 40K tables in the corpus (seeds), on top of the demo tables.
RANDOM_TABLES = range(10)


def generated_cases(system: str) -> dict[str, tuple[dict, dict]]:
    tables = [(name, doc) for name, doc in _scenarios().items() if doc["system"] == system]
    if system == "wh40k-11e":
        tables += [(f"random-{seed}", random_table(seed)) for seed in RANDOM_TABLES]
    maker = _moves_40k if system == "wh40k-11e" else _moves_warmaster
    cases = {}
    for name, scenario in tables:
        rng = random.Random(f"{system}/{name}")
        for unit in scenario["units"]:
            for label, move in maker(scenario, unit, rng):
                cases[f"gen/{name}/{unit['id']}/{label}"] = (scenario, move)
    return cases


def cases(group: str) -> dict[str, tuple[dict, dict]]:
    if group == "demo":
        return demo_cases()
    if group == "lessons":
        return lesson_cases()
    if group == "generated-40k":
        return generated_cases("wh40k-11e")
    if group == "generated-warmaster":
        return generated_cases("warmaster-revolution")
    raise ValueError(group)


def verdicts(group: str) -> dict[str, dict]:
    return {key: judge(copy.deepcopy(s), m) for key, (s, m) in cases(group).items()}


def golden_path(group: str) -> pathlib.Path:
    return GOLDENS / f"{group}.json"


def dumps(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> None:
    """`python -m tests.regression.corpus [--write] [GROUP...]`: compare with (or rewrite) the
    goldens and print which cases differ."""
    write = "--write" in argv
    groups = [a for a in argv if not a.startswith("-")] or list(GROUPS)
    changed = 0
    for group in groups:
        got = verdicts(group)
        path = golden_path(group)
        old = json.loads(path.read_text()) if path.exists() else {}
        diff = sorted(k for k in got.keys() | old.keys() if got.get(k) != old.get(k))
        changed += len(diff)
        print(f"{group}: {len(got)} cases, {len(diff)} differ from the goldens")
        for key in diff:
            print(f"   {key}")
        if write:
            GOLDENS.mkdir(exist_ok=True)
            path.write_text(dumps(got))
    if write:
        print("goldens written: review them with `git diff tests/regression/goldens`")
    elif changed:
        sys.exit(1)


if __name__ == "__main__":
    sys.path[:0] = [str(ROOT)]
    main(sys.argv[1:])
