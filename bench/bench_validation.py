"""The one validator (JSON Schema, then the engine's geometric checks) and the API's request
handling, on the pictures bench's busy 40K table (25 terrain pieces, 60 models) and on a scenario
at the size limits' scale (100 units, 600 models). No database needed."""

import json
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings")


def big_table() -> dict:
    """100 units of 6 round 25 mm models on a 300 x 200 in table: the model limit, no overlaps."""
    units = []
    for u in range(100):
        row, col = divmod(u, 10)
        models = [
            {
                "id": f"u{u}m{i}",
                "base": {"round": 25},
                "x": 10 + col * 28 + (i % 3) * 2,
                "y": 10 + row * 18 + (i // 3) * 2,
            }
            for i in range(6)
        ]
        units.append(
            {
                "id": f"u{u}",
                "army": "red" if u % 2 else "blue",
                "keywords": ["INFANTRY"],
                "move": 6,
                "models": models,
            }
        )
    return {
        "format": "arbiter.scenario/1",
        "system": "wh40k-11e",
        "name": "big",
        "table": {"width": 300, "height": 200},
        "terrain": [],
        "armies": [{"id": "red"}, {"id": "blue"}],
        "units": units,
    }


def main() -> None:
    import django

    django.setup()
    from bench_pictures import busy_table
    from timing import median_ms, report

    from battlefield.validation import check_schema, parse_json, validate_scenario

    for label, doc in (
        ("busy 40K table (60 models)", busy_table()),
        ("600 models in 100 units", big_table()),
    ):
        data = json.dumps(doc).encode()
        validate_scenario(doc)
        report(
            f"{label}: parse JSON ({len(data) // 1000} kB)",
            median_ms(lambda data=data: parse_json(data)),
        )
        report(f"{label}: JSON Schema", median_ms(lambda doc=doc: check_schema(doc)))
        report(
            f"{label}: whole validator",
            median_ms(lambda doc=doc: validate_scenario(doc), repeat=10),
        )


if __name__ == "__main__":
    main()
