"""Pictures of the table: SVG (Django template) and PNG (Pillow) for a busy 40K table.

The table is generated from a fixed seed: 44 x 60 in, 25 terrain pieces, 60 models in 10 units
(round, oval and hull bases). Target: PNG at most 100 ms median (issue 2).
"""

import math
import os
import random

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings")


def busy_table(seed: int = 2, terrain: int = 25, units: int = 10, per_unit: int = 6) -> dict:
    """A seeded 40K scenario document with no overlapping models."""
    rng = random.Random(seed)
    pieces = []
    categories = ["exposed", "light", "dense", "dense"]
    for i in range(terrain):
        cx, cy = rng.uniform(4, 56), rng.uniform(4, 40)
        w, h = rng.uniform(2, 7), rng.uniform(2, 6)
        turn = math.radians(rng.choice([0, 0, 15, 30, 45]))
        corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
        points = [
            [
                round(cx + x * math.cos(turn) - y * math.sin(turn), 3),
                round(cy + x * math.sin(turn) + y * math.cos(turn), 3),
            ]
            for x, y in corners
        ]
        solid = i % 8 == 7
        pieces.append(
            {
                "id": f"t{i}",
                "type": "building" if solid else "ruin",
                "category": rng.choice(categories),
                "height": rng.choice([1, 3, 5]),
                "solid": solid,
                "footprint": points,
            }
        )
    placed: list[tuple[float, float, float]] = []
    unit_docs = []
    for u in range(units):
        army = "red" if u % 2 == 0 else "blue"
        kind = ["round", "round", "oval", "hull"][u % 4]
        base = {
            "round": {"round": 32},
            "oval": {"oval": [60, 35.5]},
            "hull": {"hull": [[-1.5, -1], [1.5, -1], [2, 0], [1.5, 1], [-1.5, 1]]},
        }[kind]
        radius = {"round": 0.63, "oval": 1.19, "hull": 2.0}[kind]
        models = []
        while len(models) < per_unit:
            x, y = rng.uniform(3, 57), rng.uniform(3, 41)
            if all(math.hypot(x - px, y - py) > radius + pr + 0.05 for px, py, pr in placed):
                placed.append((x, y, radius))
                models.append(
                    {
                        "id": f"u{u}m{len(models)}",
                        "base": base,
                        "x": round(x, 3),
                        "y": round(y, 3),
                        "facing": rng.choice([0, 90, 180, 270, 45]),
                    }
                )
        unit_docs.append(
            {
                "id": f"u{u}",
                "army": army,
                "name": f"Squad {u}",
                "keywords": ["INFANTRY"],
                "move": 6,
                "models": models,
            }
        )
    return {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "name": "Busy table",
        "table": {"width": 60, "height": 44},
        "terrain": pieces,
        "armies": [{"id": "red", "name": "World Eaters"}, {"id": "blue", "name": "Tau Empire"}],
        "units": unit_docs,
        "turn": {"round": 1, "active_army": "red", "phase": "movement"},
    }


def main() -> None:
    import django

    django.setup()
    from timing import median_cpu_ms, median_ms, report

    from battlefield.pictures import forget_svg_pieces, table_png, table_svg
    from battlefield.scene import forget_looks, scene
    from rules import Situation

    def forget() -> None:
        """Nothing kept between pictures (the drawing caches, issue 16)."""
        forget_svg_pieces()
        forget_looks()

    situation = Situation.from_document(busy_table())
    print(
        f"   table 60 x 44 in, {len(situation.terrain)} terrain pieces, "
        f"{sum(len(u.models) for u in situation.units)} models"
    )
    report("drawing list (scene)", median_ms(lambda: scene(situation)))
    report("table_svg", median_ms(lambda: table_svg(situation)))
    # the same picture drawn with nothing kept: what a version's first picture costs
    report(
        "drawing list (scene), nothing kept (CPU)",
        median_cpu_ms(lambda: scene(situation), before=forget),
    )
    report(
        "table_svg, nothing kept (CPU)", median_cpu_ms(lambda: table_svg(situation), before=forget)
    )
    report("table_png 1200 px", median_ms(lambda: table_png(situation), repeat=20), 100)
    print(
        f"   sizes: svg {len(table_svg(situation)) / 1024:.1f} KB, "
        f"png {len(table_png(situation)) / 1024:.1f} KB"
    )


if __name__ == "__main__":
    import sys

    sys.path[:0] = [
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        os.path.dirname(os.path.abspath(__file__)),
    ]
    main()
