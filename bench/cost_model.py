"""The cost model behind README "Limits" (issue 15): what validating, judging, reaching and
drawing cost as the document grows, in models x hull vertices x terrain pieces x terrain
vertices, on the worst layout of each size (tests/documents.py `worst_document`: every piece a
solid obstacle, the moving unit's path round a wall).

    DEBUG=true .venv/bin/python bench/cost_model.py [--deadline SECONDS]

Prints a Markdown table of CPU seconds (one run each: the figures are seconds, the noise of a
busy machine is small beside them), with the path graph's corners. Without `--deadline` it
measures the full cost, each step cut off after 60 s of CPU (slow: several minutes); with it,
what the site answers within that deadline (`--deadline 2`). Not part of `make bench`
(bench_worst.py is: the worst case within the limits per endpoint). The budget derived from
it: the path graph's build costs about `rules.pathfinding.GRAPH_SECONDS` x corners squared (and
30 bytes x corners squared of memory), so the outlines in all (terrain and hull bases,
`LIMITS["outline_vertices"]`) are held to 3,000, and the engine refuses a graph whose estimate
exceeds the time left.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings")

#: (models, hull vertices per base (0: round), terrain pieces, vertices per piece)
SIZES = [
    (60, 0, 10, 8),
    (120, 0, 20, 8),
    (600, 0, 20, 8),
    (600, 0, 30, 100),  # at the limit: 3,000 terrain vertices
    (100, 20, 10, 100),  # at the limit: 2,000 hull vertices + 1,000 terrain
    (60, 30, 12, 50),  # 1,800 hull + 600 terrain
    (120, 60, 40, 100),  # over the limit: 7,200 + 4,000
    (60, 60, 60, 100),  # over: the graph alone is 12,000 corners (3 GB, ~20 s)
]


#: Without `--deadline`, each judgement and reach is still cut off after this many CPU seconds
#: (printed as "> 60 (too complex)"): past it, the figure says all there is to say.
CAP = 60.0


def cpu(fn):
    started = time.process_time()
    result = fn()
    return time.process_time() - started, result


def measure(size, seconds: float | None) -> dict:
    import django

    django.setup()
    from battlefield.pictures import table_png
    from battlefield.validation import (
        TooLarge,
        outline_vertices,
        parse_json,
        validate_move,
        validate_scenario,
    )
    from rules import Move, adjudicate, pathfinding, reach
    from rules.budget import TooComplex, deadline
    from tests.documents import worst_document, worst_move

    doc = worst_document(*size)
    data = json.dumps(doc).encode()
    terrain, hulls = outline_vertices(doc)
    row = {"size": size, "bytes": len(data), "outlines": terrain + hulls}
    try:
        row["validate"], situation = cpu(lambda: validate_scenario(parse_json(data)))
    except TooLarge:
        # over the door's budget: measured anyway (what the door saves), without the door
        from rules import Situation

        row["refused"] = True
        row["validate"], situation = cpu(lambda: Situation.from_document(parse_json(data)))
    move = validate_move(worst_move(doc), situation.system)
    pathfinding.clear_cache()
    with deadline(seconds):
        row["judge"], verdict = cpu(lambda: adjudicate(situation, move))
    row["judged"] = "too complex" if any(f.rule == "engine" for f in verdict.failures) else "ok"
    nav = pathfinding._cache()
    row["corners"] = max((len(n.nodes) for n in nav.values()), default=0)
    pathfinding.clear_cache()
    preview = Move.from_document({"format": "arbiter.move/1", "unit": "u0", "type": "normal"})
    started = time.process_time()
    try:
        with deadline(seconds):
            row["reach"], _ = cpu(lambda: reach(situation, preview))
    except TooComplex:
        row["reach"] = f"{time.process_time() - started:.2f} (too complex)"
    row["draw"], _ = cpu(lambda: table_png(situation))
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--deadline", type=float, default=CAP, help=f"CPU seconds per step (default {CAP:g})"
    )
    parser.add_argument("--skip-over", action="store_true", help="skip sizes over the limit")
    options = parser.parse_args(argv)
    print(
        "| models x hull vertices, terrain x vertices | bytes | outline vertices | graph corners "
        '| validate s | judge 17" move s | reach s | draw PNG s |'
    )
    print("|---|---|---|---|---|---|---|---|")
    for size in SIZES:
        from rules.situation import LIMITS

        over = (size[0] * size[1] + size[2] * size[3]) > LIMITS["outline_vertices"]
        if over and options.skip_over:
            continue
        row = measure(size, options.deadline)
        models, hv, pieces, tv = size

        def s(v):
            return f"{v:.2f}" if isinstance(v, float) else str(v)

        judged = s(row["judge"]) + (" (too complex)" if row["judged"] != "ok" else "")
        refused = " (refused at the door)" if row.get("refused") else ""
        print(
            f"| {models} x {hv or 'round'}, {pieces} x {tv} | {row['bytes']:,} "
            f"| {row['outlines']:,}{refused} | {row['corners']:,} | {s(row['validate'])} "
            f"| {judged} | {s(row['reach'])} | {s(row['draw'])} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
