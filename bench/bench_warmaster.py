"""Warmaster: `suggest` for a home back (issue 11 target: <= 10 ms median) and a flying
character's escape (issue 11 target: <= 50 ms median), each against a baseline measured in the
same run: the engine before issue 11's search work (commit ISSUE_11_BASELINE, bench/baseline.py).

A 3-stand flying unit homes back toward a character 80 cm away on a 180 x 120 cm table with 20
terrain pieces, 30 units (90 stands) and 6 characters, with a wood and friendly stands on the way
so the placement is blocked and must go as far as possible. A lone flying Hero touched by an
enemy stand escapes up to 30 cm to the nearest friendly unit it may join. Timed both on a freshly
built situation (as a request would, the per-situation index built inside the timing) and on a
situation already indexed. A third figure puts two friendly stands where the homing unit's
other stands would land in line ("pocket"), so they are placed round the first one; a fourth
puts woods round the landing place so that the unit must stop 7.5 cm short ("no room").
"""

import math
import random

from timing import compare, median_cpu_ms

from rules import InvalidInput, Move, Situation, suggest

#: main before issue 11's search work (exact rings for home back, the escape search).
ISSUE_11_BASELINE = "45fe6a7"
#: Friendly stands where F-0 and F-2 would land beside F-1 in line (F-1 ends at (69.5, 58)).
POCKET = [("P1", 67.5, 53.0), ("P2", 67.5, 63.0)]

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


def build_pocket() -> dict:
    """The bench table with two more friendly stands where the formation would land."""
    doc = build()
    for uid, x, y in POCKET:
        doc["units"].append(
            {
                "id": uid,
                "army": "red",
                "name": uid,
                "keywords": ["INFANTRY"],
                "models": [
                    {"id": f"{uid}-1", "base": {"rect": [40, 20]}, "x": x, "y": y, "facing": 0}
                ],
            }
        )
    return doc


#: Woods round F-1's way in (it ends at (69.5, 58), x 68.5..70.5, y 56..60): above and below its
#: line, and on it from x 63 to 67, so the others find no room beside F-1 until it is back at
#: x 62 (7.5 cm short): the search must step back past the spots with no room.
NO_ROOM = [("above", 60, 48, 72, 56), ("below", 60, 60, 72, 68), ("on", 63, 56, 67, 60)]


def build_no_room() -> dict:
    """The bench table with woods where the homing unit's other stands would go."""
    doc = build()
    for name, x0, y0, x1, y1 in NO_ROOM:
        doc["terrain"].append(
            {
                "id": f"wood-{name}",
                "type": "woods",
                "footprint": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]],
            }
        )
    return doc


def medians(repeat: int = 30) -> dict:
    """Median CPU ms of each figure (plain JSON: the baseline engine runs it too). CPU time of
    this process, not wall time: the 2 cores are shared with other work."""
    doc = build()
    home = Move.from_document(
        {"unit": "F", "type": "home-back", "dice": [6], "declarations": {"home_back_to": "C"}},
        "warmaster-revolution",
    )
    escape = Move.from_document({"unit": "H", "type": "character-escape"}, "warmaster-revolution")
    fresh = {}

    def new_situation():
        fresh["situation"] = Situation.from_document(doc)

    def timed(move, situation=None):
        if situation is None:  # a fresh situation each time: its index is built in the timing
            new_situation()  # (for the warm-up run)
            return median_cpu_ms(
                lambda: suggest(fresh["situation"], move), repeat, before=new_situation
            )
        return median_cpu_ms(lambda: suggest(situation, move), repeat)

    situation = Situation.from_document(doc)
    return {
        "home fresh": timed(home),
        "home indexed": timed(home, situation),
        "home pocket": timed(home, Situation.from_document(build_pocket())),
        "home no room": timed(home, Situation.from_document(build_no_room())),
        "escape fresh": timed(escape),
        "escape indexed": timed(escape, situation),
    }


def main() -> None:
    from baseline import measure

    doc = build()
    home = Move.from_document(
        {"unit": "F", "type": "home-back", "dice": [6], "declarations": {"home_back_to": "C"}},
        "warmaster-revolution",
    )
    first = Situation.from_document(doc).model("F-1")
    tables = (("busy table", doc), ("pocket", build_pocket()), ("no room", build_no_room()))
    for label, table in tables:
        result = suggest(Situation.from_document(table), home)
        placed = ", ".join(f"{k} ({v.x:.2f}, {v.y:.2f})" for k, v in result.end.items())
        print(f"   home back, {label}: from F-1 ({first.x:.2f}, {first.y:.2f}) to {placed}")
    escape = Move.from_document({"unit": "H", "type": "character-escape"}, "warmaster-revolution")
    print(f"   escape: H-1 goes to {dict(suggest(Situation.from_document(doc), escape).end)}")
    now = medians()
    before = measure("bench_warmaster", "medians", 3, commit=ISSUE_11_BASELINE) or {}
    print(f"   (CPU medians; baseline: commit {ISSUE_11_BASELINE}, 3 runs each, same run)")
    for key, label, target in (
        (
            "home fresh",
            "suggest home back, 3 stands, 20 terrain, 30 units, 6 characters (fresh situation)",
            None,
        ),
        ("home indexed", "suggest home back on a situation already indexed", 10),
        ("home pocket", "suggest home back, formation does not fit (pocket), indexed", 10),
        ("home no room", "suggest home back, no room beside the first for 7.5 cm, indexed", 10),
        ("escape fresh", "suggest character escape, 30 cm search (fresh situation)", 50),
        ("escape indexed", "suggest character escape on a situation already indexed", 50),
    ):
        compare(label, now[key], before.get(key), target)


if __name__ == "__main__":
    main()
