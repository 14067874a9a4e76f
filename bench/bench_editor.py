"""The editor's table (interactive SVG with every model's 2 in ring) and the ruler, on the
pictures bench's busy 40K table (44 x 60 in, 25 terrain pieces, 60 models). No database needed:
the pieces timed are the ones each editor answer and each ruler click run."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings")


def main() -> None:
    import django

    django.setup()
    from bench_pictures import busy_table
    from timing import median_cpu_ms, report

    from battlefield.editor import measure, ring_overlays
    from battlefield.pictures import table_svg
    from rules import Situation

    situation = Situation.from_document(busy_table())
    models = list(situation.models())
    a, b = models[0], models[-1]
    print("editor on the busy 40K table (25 terrain pieces, 60 models):")
    # CPU medians: on 2 cores shared with other work, wall time measures the neighbours too.
    plain = median_cpu_ms(lambda: table_svg(situation, interactive=True), repeat=20)
    report("interactive table SVG (CPU)", plain)
    report("2 in rings for every model (CPU)", median_cpu_ms(lambda: ring_overlays(situation)))
    with_rings = median_cpu_ms(
        lambda: table_svg(situation, overlays=ring_overlays(situation), interactive=True),
        repeat=20,
    )
    report("interactive table SVG with rings and labels (CPU)", with_rings, 60)
    report(
        "ruler, model to model (CPU)",
        median_cpu_ms(lambda: measure(situation, ("model", a), ("model", b)), repeat=200),
        5,
    )


if __name__ == "__main__":
    main()
