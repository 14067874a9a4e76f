"""What the table shows (issue 13): the step partial's table and the editor's table on the
pictures bench's busy 40K table (60 x 44 in, 25 terrain pieces, 60 models), with the overlays
of "show it on the table" (the reach, the surge target's engagement zone, ghosts and arrows
where failing models could have gone) and every label placed (greedy placement, numbered
markers). Targets: <= 60 ms each (median). Baseline in the same run: the same pictures with
no overlays, and the label placement alone.

No database: the pieces timed are the ones the step partial and the editor draw each answer
(the engine's verdict is judged once, outside the timing, as the page keeps it).
"""

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

TARGET_MS = 60


def surge_on_the_busy_table():
    """The busy table, the first unit free to surge (not engaged) surging at the closest enemy
    (one D6 of 4), each model moved half an inch down: a placement the engine judges (and
    faults, naming the spots where models could have gone)."""
    from bench_pictures import busy_table

    from rules import Move, Situation, adjudicate

    document = busy_table()
    for unit in document["units"]:
        unit["abilities"] = [
            {
                "id": "blood-surge",
                "kind": "surge",
                "trigger": "models-destroyed-by-shooting",
                "distance": "D6",
            }
        ]
    situation = Situation.from_document(document)
    for unit in document["units"]:
        enemy = next(u for u in document["units"] if u["army"] != unit["army"])
        move = Move.from_document(
            {
                "format": "arbiter.move/1",
                "unit": unit["id"],
                "type": "surge",
                "declarations": {
                    "ability": "blood-surge",
                    "trigger": {"event": "shot", "by": enemy["id"], "models_destroyed": 1},
                },
                "dice": [4],
                "end": {m["id"]: {"x": m["x"], "y": m["y"] + 0.5} for m in unit["models"]},
            }
        )
        if adjudicate(situation, move).move.get("target"):
            return situation, move
    raise RuntimeError("no unit of the busy table can surge")


def main() -> None:
    import django

    django.setup()
    from timing import median_cpu_ms, median_ms, report

    from battlefield.editor import ring_overlays
    from battlefield.pictures import table_svg
    from battlefield.scene import scene
    from battlefield.showing import shown_overlays
    from battlefield.stepper import placed, reach_overlays
    from rules import adjudicate

    situation, move = surge_on_the_busy_table()
    verdict = adjudicate(situation, move)
    unit = situation.unit(move.unit)
    shown = placed(situation, unit, {mid: {"x": p.x, "y": p.y} for mid, p in move.end.items()})
    reach = reach_overlays(situation, move.with_end({}), verdict)
    overlays = reach + shown_overlays(situation, verdict, placed=shown, trails=False)
    ghosts = sum(o.css_class == "ghost" for o in overlays)
    drawing = scene(shown, overlays=overlays)
    numbered = sum(e.kind == "number" for e in drawing.legend)
    print(
        f"   busy 40K table: {len(situation.terrain)} terrain pieces, "
        f"{sum(len(u.models) for u in situation.units)} models, {len(situation.units)} units; "
        f"{len(overlays)} overlays ({ghosts} ghosts), {numbered} labels numbered in the legend "
        "(machine shared: medians)"
    )
    failing = [f.subject for f in verdict.failures]
    report(
        "baseline: table SVG, no overlays", median_ms(lambda: table_svg(shown, interactive=True))
    )
    report("label placement and scene, no overlays", median_ms(lambda: scene(shown)))
    report(
        "what the move shows (overlays only)",
        median_ms(lambda: shown_overlays(situation, verdict, placed=shown, trails=False)),
    )
    step_table = (  # noqa: E731 (timed twice: wall and CPU)
        lambda: table_svg(
            shown,
            highlight=failing,
            overlays=reach + shown_overlays(situation, verdict, placed=shown, trails=False),
            dom_id="table",
            interactive=True,
        )
    )
    editor_table = (  # noqa: E731
        lambda: table_svg(situation, overlays=ring_overlays(situation), interactive=True)
    )
    report(
        "baseline: table SVG, no overlays (CPU)",
        median_cpu_ms(lambda: table_svg(shown, interactive=True), repeat=15),
    )
    report("step partial's table (CPU)", median_cpu_ms(step_table, repeat=15), TARGET_MS)
    report("editor SVG (CPU)", median_cpu_ms(editor_table, repeat=15), TARGET_MS)
    report(
        "step partial's table: reach, target zone, ghosts, labels placed",
        median_ms(
            lambda: table_svg(
                shown,
                highlight=failing,
                overlays=reach + shown_overlays(situation, verdict, placed=shown, trails=False),
                dom_id="table",
                interactive=True,
            )
        ),
        TARGET_MS,
    )
    report(
        "editor SVG: rings, labels placed",
        median_ms(
            lambda: table_svg(situation, overlays=ring_overlays(situation), interactive=True)
        ),
        TARGET_MS,
    )


if __name__ == "__main__":
    main()
