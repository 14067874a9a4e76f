"""Issue 14: the 11th-edition dataset and roster import.

- Loading the dataset (wh40kdc's embedded bundle, our unit catalogue and layouts) happens once per
  process; timed in fresh processes, with the memory it takes (Python allocations at their peak,
  tracemalloc, and the growth of the process's resident size).
- Importing the 2,000-point GW app list of the tests (18 units, 84 models) and placing it in a
  layout's deployment zone: target <= 2 s (issue 14 "Done when"). The dataset is already loaded,
  as it is for every request after a process's first."""

import copy
import json
import os
import pathlib
import statistics
import subprocess
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings")
ROOT = pathlib.Path(__file__).resolve().parent.parent
LIST = ROOT / "tests" / "battlefield" / "rosters" / "gw_2000.txt"

_LOAD = """
import json, resource, sys, time, tracemalloc
sys.path.insert(0, {root!r})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
started = time.perf_counter()
from battlefield import dataset
dataset.catalogue(); dataset.layouts()
seconds = time.perf_counter() - started
current, peak = tracemalloc.get_traced_memory()
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"s": seconds, "held": current, "peak": peak, "rss": (after - before) * 1024}}))
"""


def _load_in_fresh_process() -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _LOAD.format(root=str(ROOT))],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _load_untraced() -> float:
    code = (
        f"import sys, time; sys.path.insert(0, {str(ROOT)!r}); t = time.perf_counter(); "
        "from battlefield import dataset; dataset.catalogue(); dataset.layouts(); "
        "print(time.perf_counter() - t)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    import django

    django.setup()
    from timing import median_ms, report

    from battlefield import dataset, rosters

    print("the 11th-edition dataset (wh40kdc", dataset.version() + "), once per process:")
    loads = [_load_untraced() for _ in range(3)]
    report("load: bundle, 1,096 units, 46 layouts (fresh process)", statistics.median(loads) * 1000)
    traced = _load_in_fresh_process()
    print(
        f"   memory: {traced['held'] / 2**20:.0f} MB held after loading "
        f"(peak {traced['peak'] / 2**20:.0f} MB, Python allocations), "
        f"resident size +{traced['rss'] / 2**20:.0f} MB",
        flush=True,
    )

    dataset.catalogue()
    layouts = dataset.layouts()
    text = LIST.read_text()
    table = layouts.document("bm-take-vs-disrupt-01", ("Sisters", "Orks"))

    def import_and_place() -> None:
        preview = rosters.read_roster(text)
        doc = copy.deepcopy(table)
        rosters.place_units(doc, "attacker", [(e.unit, e.count) for e in preview.resolved])

    preview = rosters.read_roster(text)
    models = sum(e.models for e in preview.entries)
    print(f"a 2,000-point list ({len(preview.entries)} units, {models} models):")
    report("read the list", median_ms(lambda: rosters.read_roster(text), repeat=10))
    report("import and place it in a deployment zone", median_ms(import_and_place, repeat=10), 2000)
    report(
        "build a layout's scenario",
        median_ms(lambda: layouts.document("bm-take-vs-disrupt-01"), repeat=10),
    )
