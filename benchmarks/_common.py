"""Timing helpers shared by the benchmarks: medians of interleaved runs."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def side_by_side(cases: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Interleave the cases ``repeat`` times (noise hits all alike); medians."""
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, fn in cases.items():
            samples[name].append(timed(fn, 1))
    return {name: statistics.median(ts) for name, ts in samples.items()}


def print_table(rows: list[tuple[str, float, str, float, float | None]], header: str) -> None:
    """Rows of (case, time, baseline name, baseline time, target ratio or None)."""
    print(header + "\n")
    print("| case | time (s) | baseline | baseline (s) | ratio | target |")
    print("|---|---:|---|---:|---:|---|")
    for name, value, base_name, base, target in rows:
        ratio = value / base
        verdict = (
            "" if target is None else f"<= {target}x: {'met' if ratio <= target else 'MISSED'}"
        )
        print(f"| {name} | {value:.3f} | {base_name} | {base:.3f} | {ratio:.3g}x | {verdict} |")
