"""Warmaster: `suggest` for a home back (issue 11 target: <= 10 ms median) and a flying
character's escape (issue 11 target: <= 50 ms median).

A 3-stand flying unit homes back toward a character 80 cm away on a 180 x 120 cm table with 20
terrain pieces, 30 units (90 stands) and 6 characters, with a wood and friendly stands on the way
so the placement is blocked and must go as far as possible. A lone flying Hero touched by an
enemy stand escapes up to 30 cm to the nearest friendly unit it may join. Timed both on a freshly
built situation (as a request would, the per-situation index built inside the timing) and on a
situation already indexed.
"""

import math
import random

from timing import median_ms, report

from rules import InvalidInput, Move, Situation, suggest

KINDS = ["woods", "hill", "impassable", "river", "village", "open", "scrub", "boulders"]


def build(seed: int = 7) -> dict:
    rng = random.Random(seed)
    terrain = [
        {
            "id": "wood-on-the-way",
            "type": "woods",
            "footprint": [[70, 52], [84, 50], [86, 66], [72, 68]],
        }
    ]
    while len(terrain) < 20:
        x, y = rng.uniform(0, 165), rng.uniform(0, 105)
        r = rng.uniform(4, 9)
        sides = rng.randint(4, 9)
        pts = [
            [
                round(x + r * math.cos(2 * math.pi * k / sides), 3),
                round(y + r * math.sin(2 * math.pi * k / sides), 3),
            ]
            for k in range(sides)
        ]
        if abs(y - 58) < 14 and x < 40:  # keep the homing unit's start clear
            continue
        terrain.append({"id": f"t{len(terrain)}", "type": rng.choice(KINDS), "footprint": pts})

    def line(uid, army, x, y, facing=0, keywords=("INFANTRY",)):
        a = math.radians(facing)
        rx, ry = -math.sin(a), math.cos(a)
        return {
            "id": uid,
            "army": army,
            "name": uid,
            "keywords": list(keywords),
            "models": [
                {
                    "id": f"{uid}-{i}",
                    "base": {"rect": [40, 20]},
                    "x": x + rx * 4 * (i - 1),
                    "y": y + ry * 4 * (i - 1),
                    "facing": facing,
                }
                for i in range(3)
            ],
        }

    units = [
        line("F", "red", 20, 58, keywords=("FLYING", "MONSTER")),
        {
            "id": "C",
            "army": "red",
            "name": "General",
            "keywords": ["CHARACTER", "GENERAL"],
            "state": {"command": 9},
            "models": [{"id": "C-1", "base": {"round": 20}, "x": 101, "y": 58}],
        },
        line("G", "red", 78, 58, keywords=("INFANTRY",)),
        # the escaping Hero, touched by an enemy stand, with friends 10-30 cm away
        {
            "id": "H",
            "army": "red",
            "name": "Hero on a Griffon",
            "keywords": ["CHARACTER", "HERO", "FLYING"],
            "state": {"command": 8},
            "models": [{"id": "H-1", "base": {"round": 25}, "x": 140, "y": 30}],
        },
        line("K", "blue", 142.25, 30, facing=180),
        line("R1", "red", 125, 45, keywords=("INFANTRY",)),
        line("R2", "red", 155, 52, facing=90, keywords=("INFANTRY",)),
    ]
    for i, (cx, cy, army) in enumerate(
        [(60, 100, "red"), (120, 100, "blue"), (160, 95, "blue"), (100, 15, "blue")]
    ):
        units.append(
            {
                "id": f"CH{i}",
                "army": army,
                "name": f"Character {i}",
                "keywords": ["CHARACTER", "HERO"],
                "state": {"command": 8},
                "models": [{"id": f"CH{i}-1", "base": {"round": 20}, "x": cx, "y": cy}],
            }
        )
    doc = {
        "format": "arbiter.scenario/1",
        "system": "warmaster-revolution",
        "name": "bench",
        "table": {"width": 180, "height": 120},
        "terrain": terrain,
        "armies": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        "units": units,
        "turn": {"round": 1, "active_army": "red", "phase": "command"},
    }
    while len(doc["units"]) < 30:
        uid = f"U{len(doc['units'])}"
        candidate = line(
            uid,
            rng.choice(["red", "blue"]),
            rng.uniform(8, 172),
            rng.uniform(8, 112),
            rng.choice([0, 90, 180, 270, 45]),
        )
        if abs(candidate["models"][1]["y"] - 58) < 12 and candidate["models"][1]["x"] < 110:
            continue  # keep the way clear of enemies that would engage F
        if math.hypot(candidate["models"][1]["x"] - 140, candidate["models"][1]["y"] - 30) < 12:
            continue  # and H's corner clear (it must be touched by K only)
        doc["units"].append(candidate)
        try:
            Situation.from_document(doc)
        except InvalidInput:
            doc["units"].pop()
    return doc


def main() -> None:
    doc = build()
    move = Move.from_document(
        {"unit": "F", "type": "home-back", "dice": [6], "declarations": {"home_back_to": "C"}},
        "warmaster-revolution",
    )
    fresh = iter([Situation.from_document(doc) for _ in range(40)])
    result = suggest(Situation.from_document(doc), move)
    first = Situation.from_document(doc).model("F-1")
    print(
        f"   home back: F-1 ends at ({result.end['F-1'].x:.2f}, {result.end['F-1'].y:.2f}) "
        f"from ({first.x:.2f}, {first.y:.2f})"
    )
    report(
        "suggest home back, 3 stands, 20 terrain, 30 units, 6 characters (fresh situation)",
        median_ms(lambda: suggest(next(fresh), move)),
    )
    situation = Situation.from_document(doc)
    report(
        "suggest home back on a situation already indexed",
        median_ms(lambda: suggest(situation, move)),
        10,
    )
    escape = Move.from_document({"unit": "H", "type": "character-escape"}, "warmaster-revolution")
    result = suggest(Situation.from_document(doc), escape)
    print(f"   escape: H-1 goes to {dict(result.end)}")
    fresh = iter([Situation.from_document(doc) for _ in range(40)])
    report(
        "suggest character escape, 30 cm search (fresh situation)",
        median_ms(lambda: suggest(next(fresh), escape)),
        50,
    )
    report(
        "suggest character escape on a situation already indexed",
        median_ms(lambda: suggest(situation, escape)),
        50,
    )


if __name__ == "__main__":
    main()
