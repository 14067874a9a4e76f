"""Shared timing helper for the benchmarks: medians over repeated runs."""

import statistics
import time
from collections.abc import Callable


def median_ms(fn: Callable[[], object], repeat: int = 30, warmup: int = 2) -> float:
    """Median wall time of `fn()` in milliseconds."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def report(label: str, value_ms: float, target_ms: float | None = None) -> None:
    verdict = "" if target_ms is None else ("  ok" if value_ms <= target_ms else "  OVER TARGET")
    target = "" if target_ms is None else f" (target <= {target_ms:g} ms)"
    print(f"   {label}: {value_ms:.2f} ms median{target}{verdict}", flush=True)


def median_cpu_ms(
    fn: Callable[[], object], repeat: int = 5, warmup: int = 1, before: Callable[[], object] = None
) -> float:
    """Median CPU time (this process) of `fn()` in milliseconds: on 2 cores shared by other
    work, wall time measures the neighbours as much as the code. `before()` runs untimed before
    each sample (to empty a cache the figure must not profit from)."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        if before is not None:
            before()
        started = time.process_time()
        fn()
        samples.append((time.process_time() - started) * 1000)
    return statistics.median(samples)


def compare(
    label: str, value_ms: float, baseline_ms: float | None, target_ms: float | None = None
) -> None:
    """One figure against its target and the baseline measured in the same run."""
    verdict = "" if target_ms is None else ("  ok" if value_ms <= target_ms else "  OVER TARGET")
    target = "" if target_ms is None else f" (target <= {target_ms:g} ms)"
    if baseline_ms:
        base = f"; baseline {baseline_ms:.2f} ms, {baseline_ms / value_ms:.1f}x"
    else:
        base = "; no baseline"
    print(f"   {label}: {value_ms:.2f} ms median{base}{target}{verdict}", flush=True)
