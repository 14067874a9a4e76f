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
