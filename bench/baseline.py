"""Baselines measured in the same run: the engine as it was before issue 16, side by side.

`measure("bench_surge", "suggest_curve", [5, 10])` runs `bench_surge.suggest_curve([5, 10])` in a
child process whose `rules` package (and `battlefield/validation.py` with its schemas) come from
the baseline commit, checked out with `git archive` into a temporary folder; the bench modules
themselves (board generators, timing) are today's, so both sides measure the same work. The
function returns JSON; so does `measure`. On a machine without git history it returns None and
the benchmarks print "no baseline".

BENCH_BASELINE names the commit (default: main before issue 16's speed work).
"""

from __future__ import annotations

import functools
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASELINE = os.environ.get("BENCH_BASELINE", "c877424")
PATHS = ["rules", "battlefield/__init__.py", "battlefield/validation.py", "battlefield/schemas"]


@functools.cache
def checkout(commit: str = BASELINE) -> pathlib.Path | None:
    """The baseline's files in a temporary folder (removed when the process ends)."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="arbiter-baseline-"))
    try:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, *PATHS],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    import atexit
    import shutil

    atexit.register(shutil.rmtree, folder, True)
    return folder


def measure(module: str, function: str, *args, commit: str = BASELINE):
    """`module.function(*args)` run against the baseline engine (`commit`: another baseline
    commit than BENCH_BASELINE, for a benchmark whose issue has its own); its JSON result, or
    None."""
    folder = checkout(commit)
    if folder is None:
        return None
    code = (
        "import json, sys; "
        f"sys.path[:0] = [{str(folder)!r}, {str(ROOT)!r}, {str(ROOT / 'bench')!r}]; "
        f"import {module}; "
        f"print(json.dumps({module}.{function}(*json.loads(sys.argv[1]))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "arbiter.settings"},
    )
    if done.returncode != 0:
        print(f"   baseline {module}.{function} failed:\n{done.stderr[-2000:]}", flush=True)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])
