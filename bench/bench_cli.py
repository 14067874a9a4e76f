"""The command line (issue 16): `python -m rules` against `manage.py adjudicate`, judging the
demo surge (battlefield/demo: surge-berzerkers), each started afresh. Figures are the CPU time
of the child process (user + system, medians of 7): start-up and judging together, with compiled
bytecode kept as on an installed site. Target: 0.3 s.
"""

import os
import pathlib
import resource
import statistics
import subprocess
import sys

from timing import compare

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEMO = ROOT / "battlefield" / "demo"
FILES = [
    str(DEMO / "scenarios" / "surge-berzerkers.json"),
    str(DEMO / "moves" / "surge-berzerkers.json"),
]


#: Compiled bytecode kept (outside the checkout), as on any installed site: without it every
#: start compiles the engine afresh, which is most of the cost.
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": "/tmp/arbiter-bench-pycache",
}


def child_cpu_ms(command: list[str], repeat: int = 7) -> float:
    subprocess.run(command, cwd=ROOT, capture_output=True, env=ENV)  # writes the bytecode
    samples = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, cwd=ROOT, capture_output=True, env=ENV)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        assert done.returncode in (0, 1), done.stderr.decode()[-500:]
        samples.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return statistics.median(samples)


def main() -> None:
    django = child_cpu_ms([sys.executable, "manage.py", "adjudicate", *FILES])
    bare = child_cpu_ms([sys.executable, "-m", "rules", *FILES])
    python = child_cpu_ms([sys.executable, "-c", "pass"])
    print(f"   (a bare `python -c pass` costs {python:.0f} ms here)")
    compare("python -m rules, start to verdict (CPU)", bare, django, 300)
    compare("manage.py adjudicate, start to verdict (CPU), for comparison", django, None)


if __name__ == "__main__":
    main()
