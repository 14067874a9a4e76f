"""40K terrain in three dimensions (issue 12, RULES.md 1.5): a 60 x 44 in table with 12 ruins,
each with two walls (an L, 6 in tall) and two upper floors (3 in and 6 in), and 60 models.

Figures: table preparation (the navigator of a vehicle, which meets the walls and floors as
sections to climb, and of infantry, which walks through them), a path query for the vehicle
against the ground-only query (the same table without its ruins) in the same run, adjudicating a
10-model move among the ruins, and the surge suggestion for 20 models whose target stands on a
floor. The table is built by a seeded generator, so every run measures the same board.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time

MM = 25.4
R32 = 16 / MM


def ruin(i: int, x: float, y: float) -> dict:
    """A 7 x 7 in ruin at (x, y): an L of walls on its north and west sides (6 in), a 3 in floor
    over its northern half and a 6 in floor over its north-west corner."""
    return {
        "id": f"ruin{i}",
        "type": "ruin",
        "category": "dense",
        "height": 6,
        "footprint": [[x, y], [x + 7, y], [x + 7, y + 7], [x, y + 7]],
        "walls": [
            {"path": [[x + 0.125, y + 7], [x + 0.125, y + 0.125], [x + 5, y + 0.125]], "height": 6},
            {"path": [[x + 6, y + 0.125], [x + 7, y + 0.125]], "height": 6},
        ],
        "floors": [
            {"footprint": [[x, y], [x + 7, y], [x + 7, y + 3.5], [x, y + 3.5]], "height": 3},
            {"footprint": [[x, y], [x + 3.5, y], [x + 3.5, y + 3.5], [x, y + 3.5]], "height": 6},
        ],
    }


def build_table(seed: int = 12) -> dict:
    """12 ruins on a 4 x 3 grid (jittered), enemy units on open ground, the 10-model mover M,
    and (for the surge) the 20-model unit B and its target T on a ruin's 3 in floor."""
    rng = random.Random(seed)
    terrain = []
    for i in range(12):
        col, row = i % 4, i // 4
        terrain.append(
            ruin(i, 3 + col * 14.5 + rng.uniform(0, 2), 2 + row * 14 + rng.uniform(0, 2))
        )
    from shapely.geometry import Point, Polygon

    def line(uid, army, count, x, y, per_row=5, keywords=("INFANTRY",), z=None):
        models = []
        for k in range(count):
            m = {
                "id": f"{uid}{k + 1}",
                "base": {"round": 32},
                "x": round(x + (k % per_row) * 1.4, 3),
                "y": round(y + (k // per_row) * 1.4, 3),
            }
            if z is not None:
                m["z"] = z
            models.append(m)
        return {
            "id": uid,
            "army": army,
            "name": uid,
            "keywords": list(keywords),
            "move": 6,
            "models": models,
        }

    # B (20 models) just east of ruin 5, its target T (4 models) on that ruin's 3 in floor, then
    # 5 enemy units of 5 and the mover M (10) on open ground, every unit more than 2 in from the
    # others (nobody starts engaged): 60 models, and the shooter A in a corner.
    fx, fy = terrain[5]["footprint"][0]
    units = [
        line("B", "red", 20, fx + 9.5, fy + 0.5, per_row=4),
        line("T", "blue", 4, fx + 1.2, fy + 1.75, z=3),
        line("A", "blue", 1, 58, 42),
    ]
    units[0]["abilities"] = [
        {"id": "surge", "kind": "surge", "trigger": "models-hit-by-shooting", "distance": "D6+2"}
    ]
    taken = [
        Polygon([(fx + 8, fy - 1), (fx + 16, fy - 1), (fx + 16, fy + 8), (fx + 8, fy + 8)]),
        Point(58, 42).buffer(3),
    ]
    ruins = [Polygon(t["footprint"]).buffer(0.2) for t in terrain]
    for uid, count in (("E0", 5), ("E1", 5), ("E2", 5), ("E3", 5), ("E4", 5), ("M", 10)):
        for _ in range(10000):
            x, y = rng.uniform(2, 50), rng.uniform(2, 38)
            rows = math.ceil(count / 5)
            shape = Polygon(
                [(x - 1, y - 1), (x + 7, y - 1), (x + 7, y + 1.4 * rows), (x - 1, y + 1.4 * rows)]
            )
            if all(not shape.buffer(2.1).intersects(t) for t in taken) and all(
                not shape.intersects(r) for r in ruins
            ):
                taken.append(shape)
                units.append(line(uid, "red" if uid == "M" else "blue", count, x, y))
                break
        else:
            raise RuntimeError(f"no room for {uid}")
    return {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "name": "bench 3-D",
        "table": {"width": 60, "height": 44},
        "terrain": terrain,
        "armies": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
        "units": units,
        "turn": {"round": 1, "active_army": "blue", "phase": "shooting"},
    }


def main() -> None:
    from timing import median_cpu_ms, report

    from rules import Move, Situation, adjudicate, pathfinding, suggest
    from rules.situation import Unit
    from rules.wh40k.moving import ground_obstacles

    doc = build_table()
    situation = Situation.from_document(doc)
    models = sum(len(u.models) for u in situation.units)
    print(f"   {len(situation.terrain)} ruins, {models} models", flush=True)
    mover = situation.unit("M")
    vehicle = Unit("V", "red", "V", frozenset({"VEHICLE"}), mover.models, 10)
    base = mover.models[0].base

    def prepare(unit):
        def run():
            pathfinding.clear_cache()
            hard, climbs = ground_obstacles(situation, unit, base, "normal")
            return pathfinding.navigator(60, 44, base.radius, hard, climbs)

        return run

    print("   CPU medians (2 cores shared with other work: wall time would measure it too)")
    report(
        "prepare the table, vehicle (walls and floors climbed)",
        median_cpu_ms(prepare(vehicle), repeat=9, warmup=1),
        200,
    )
    report("prepare the table, infantry", median_cpu_ms(prepare(mover), repeat=9, warmup=1), 200)
    nav = prepare(vehicle)()
    ground_doc = {**doc, "terrain": []}
    ground = Situation.from_document(ground_doc)
    g_hard, g_climbs = ground_obstacles(ground, vehicle, base, "normal")
    ground_nav = pathfinding.navigator(60, 44, base.radius, g_hard, g_climbs)

    from shapely.geometry import Point

    rng = random.Random(7)
    queries = []
    while len(queries) < 300:
        x, y = rng.uniform(1, 59), rng.uniform(1, 43)
        a, d = rng.uniform(0, 2 * math.pi), rng.uniform(4, 20)
        gx, gy = x + d * math.cos(a), y + d * math.sin(a)
        if all(
            n.free_space.contains(Point(p)) for n in (nav, ground_nav) for p in ((x, y), (gx, gy))
        ):
            queries.append(((x, y), (gx, gy)))

    def timed(n):
        times = []
        for s, g in queries:
            t = time.perf_counter()
            n.shortest_path(s, g)
            times.append((time.perf_counter() - t) * 1000)
        return statistics.median(times)

    three_d, flat = timed(nav), timed(ground_nav)
    report(f"path query, vehicle among the ruins ({len(nav.nodes)} nodes)", three_d, 2)
    report("path query, the same table without ruins", flat)
    print(f"   ratio 3-D / ground-only: {three_d / flat:.2f}", flush=True)

    move = None
    for dx, dy in ((5, 3), (-5, 3), (5, -3), (-5, -3), (6, 0), (-6, 0), (0, 6), (0, -6)):
        end = {m.id: {"x": m.x + dx, "y": m.y + dy} for m in mover.models}
        move = Move.from_document(
            {"format": "arbiter.move/1", "unit": "M", "type": "normal", "end": end}
        )
        if adjudicate(situation, move).legal:
            break
    moving = {**doc, "turn": {"round": 1, "active_army": "red", "phase": "movement"}}
    moving_situation = Situation.from_document(moving)
    report(
        f"adjudicate a 10-model move (legal={adjudicate(moving_situation, move).legal})",
        median_cpu_ms(lambda: adjudicate(moving_situation, move), repeat=20),
        20,
    )
    surge = Move.from_document(
        {
            "format": "arbiter.move/1",
            "unit": "B",
            "type": "surge",
            "dice": [6],
            "declarations": {"trigger": {"event": "shot", "by": "A", "hits": 1}},
        },
        "wh40k-11e",
    )
    suggested = suggest(situation, surge)
    verdict = adjudicate(situation, suggested)
    up = sum(1 for p in suggested.end.values() if (p.z or 0) > 0)
    report(
        f"surge suggest, 20 models, target on a floor (legal={verdict.legal}, "
        f"target={verdict.move.get('target')}, {up} placed on floors)",
        median_cpu_ms(lambda: suggest(situation, surge), repeat=5, warmup=1),
        250,
    )


if __name__ == "__main__":
    sys.path[:0] = [
        str(__import__("pathlib").Path(__file__).resolve().parent.parent),
        str(__import__("pathlib").Path(__file__).resolve().parent),
    ]
    main()
