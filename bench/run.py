"""`make bench`: runs every bench/bench_*.py module's main() and prints its figures.

Benchmarks print medians (machines here are 2 noisy cores) and, where an issue says so, a ratio
against a baseline measured in the same run. They are not tests: nothing here fails the build.
"""

import importlib
import os
import pathlib
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings")


def main(selected: list[str]) -> None:
    names = sorted(p.stem for p in (ROOT / "bench").glob("bench_*.py"))
    if selected:
        names = [n for n in names if any(s in n for s in selected)]
    failed = []
    for name in names:
        print(f"== {name} ==", flush=True)
        started = time.perf_counter()
        try:
            importlib.import_module(name).main()
        except Exception:  # report it and go on: one broken bench must not hide the others
            traceback.print_exc()
            failed.append(name)
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    if failed:
        sys.exit(f"benchmarks that failed: {', '.join(failed)}")


if __name__ == "__main__":
    main(sys.argv[1:])
