"""The engine is safe to share between threads (issue 15): gunicorn's gthread workers judge moves
for several requests at once, sharing the navigator cache (rules/pathfinding.py) and, through the
stepper's situation cache, the very same Situation objects and what they memoise.

Prepared shapely geometries (GEOS prepared geometry) are not thread-safe: two threads asking a
predicate of the same prepared polygon at once can crash the process. The workload below judges
the same 40K normal and surge moves and Warmaster moves from 8 threads at once, on Situations
shared by all threads, and compares every verdict with the one judged alone. It runs in a child
process so that a crash is a failed test with its exit status, not a lost test worker.
"""

import copy
import json
import random
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "battlefield" / "demo"
THREADS = 8
EPOCHS = 4


def _load(folder: str, name: str) -> dict:
    return json.loads((DEMO / folder / f"{name}.json").read_text())


def _normal(unit: str, dx: float, dy: float, scenario: dict) -> dict:
    """A normal move of every model of `unit` by (dx, dy) inches."""
    models = next(u for u in scenario["units"] if u["id"] == unit)["models"]
    return {
        "format": "arbiter.move/1",
        "unit": unit,
        "type": "normal",
        "end": {m["id"]: {"x": m["x"] + dx, "y": m["y"] + dy} for m in models},
    }


def cases() -> list[tuple[dict, dict]]:
    """(scenario, move) pairs: 40K normal moves on the busy demo table (paths around terrain and
    enemy bases, so navigators), the demo surge and fly moves, and the Warmaster demo moves."""
    battlefield = _load("scenarios", "40k-battlefield")
    pairs = [
        (battlefield, _normal("intercessors", 5.0, 0.0, battlefield)),
        (battlefield, _normal("outriders", 10.0, -3.0, battlefield)),
        (battlefield, _normal("redemptor", 6.0, 1.0, battlefield)),
        (battlefield, _normal("hormagaunts", -2.0, 5.5, battlefield)),
    ]
    for name in (
        "surge-berzerkers",
        "surge-ignores-aircraft",
        "riptide-takes-to-the-skies",
        "warmaster-home-back",
        "warmaster-drive-back",
    ):
        pairs.append((_load("scenarios", name), _load("moves", name)))
    return pairs


def run_workload() -> list[str]:
    """Judge every case alone, then from THREADS threads at once on shared Situations; return
    a description of every verdict that differs (empty when all agree)."""
    from rules import Move, Situation, adjudicate, pathfinding

    pairs = cases()
    expected = [
        json.dumps(
            adjudicate(Situation.from_document(copy.deepcopy(s)), Move.from_document(m)).as_dict(),
            sort_keys=True,
        )
        for s, m in pairs
    ]
    differences: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)
    shared: list = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _epoch in range(EPOCHS):
                # Every epoch starts afresh (new situations, empty navigator caches), so that
                # the first questions asked of each new prepared geometry come from all threads
                # at once: that lazy first use is where GEOS is least safe.
                pathfinding.clear_cache()
                start.wait()
                if seed == 0:
                    shared[:] = [Situation.from_document(copy.deepcopy(s)) for s in scenarios]
                start.wait()
                order = list(range(len(pairs)))
                rng.shuffle(order)
                for i in order:
                    verdict = adjudicate(shared[scenario_of[i]], moves[i])
                    got = json.dumps(verdict.as_dict(), sort_keys=True)
                    if got != expected[i]:
                        differences.append(f"thread {seed}, case {i}: verdict differs")
        except BaseException as error:  # reported below, with the thread
            start.abort()
            errors.append(error)

    scenarios: list[dict] = []
    scenario_of = []
    for s, _m in pairs:
        if not any(s is other for other in scenarios):
            scenarios.append(s)
        scenario_of.append(next(k for k, other in enumerate(scenarios) if other is s))
    moves = [Move.from_document(m) for _s, m in pairs]
    threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return differences + [f"{type(e).__name__}: {e}" for e in errors]


def test_eight_threads_judge_shared_situations_like_one():
    result = subprocess.run(
        [sys.executable, __file__],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, (
        f"exit status {result.returncode} (negative: killed by that signal, -11 a segfault)\n"
        f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )


def test_navigator_cache_is_per_thread():
    """Each thread gets its own navigator for the same board: a prepared geometry is never
    asked questions by two threads."""
    from rules import pathfinding

    pathfinding.clear_cache()
    found = []

    def build() -> None:
        found.append(pathfinding.navigator(20.0, 20.0, 0.5))

    threads = [threading.Thread(target=build) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert found[0] is not found[1]
    assert pathfinding.navigator(20.0, 20.0, 0.5) is pathfinding.navigator(20.0, 20.0, 0.5)


def test_situation_memo_is_per_thread():
    """What engine modules keep in a situation's memo (prepared footprints, obstacles) is made
    and used by one thread, even when the situation itself is shared (the stepper caches them)."""
    from rules import Situation

    situation = Situation.from_document(_load("scenarios", "warmaster-home-back"))
    seen = []
    thread = threading.Thread(target=lambda: seen.append(situation.memo))
    thread.start()
    thread.join()
    assert seen[0] is not situation.memo
    assert situation.memo is situation.memo


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    problems = run_workload()
    print("\n".join(problems) or "all verdicts agree")
    sys.exit(1 if problems else 0)
