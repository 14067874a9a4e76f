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


def figures() -> dict[str, float]:
    """CPU medians (ms) of each step on both tables; needs no Django (the baseline runs it)."""
    from bench_pictures import busy_table
    from timing import median_cpu_ms

    from battlefield.validation import check_schema, parse_json, validate_scenario

    out = {}
    for label, doc in (("busy", busy_table()), ("600", big_table())):
        data = json.dumps(doc).encode()
        validate_scenario(doc)
        out[f"{label} parse"] = median_cpu_ms(lambda data=data: parse_json(data), repeat=15)
        out[f"{label} schema"] = median_cpu_ms(lambda doc=doc: check_schema(doc), repeat=15)
        out[f"{label} whole"] = median_cpu_ms(lambda doc=doc: validate_scenario(doc), repeat=11)
    return out


def main() -> None:
    from baseline import measure
    from timing import compare

    now = figures()
    before = measure("bench_validation", "figures") or {}
    for key, label, target in (
        ("busy parse", "busy 40K table (60 models): parse JSON", None),
        ("busy schema", "busy 40K table (60 models): JSON Schema", None),
        ("busy whole", "busy 40K table (60 models): whole validator", None),
        ("600 parse", "600 models in 100 units: parse JSON", None),
        ("600 schema", "600 models in 100 units: JSON Schema (jsonschema-rs when it passes)", None),
        ("600 whole", "600 models in 100 units: whole validator", 35.0),
    ):
        compare(label + " (CPU)", now[key], before.get(key), target)


if __name__ == "__main__":
    import pathlib
    import sys

    sys.path[:0] = [str(pathlib.Path(__file__).resolve().parent.parent)]
    main()
