"""Benchmark of the defaults a new user found slow on 2M rows, side by side in one process.

    .venv/bin/python benchmarks/bench_slow_defaults.py [--rows N] [--repeat R]

- ``over_time`` with 7-day trailing windows of continuous scores, ``roc_auc`` with
  ``ci=0.95``, against the user's loop: one ``filter`` and ``roc_auc(ci=0.95)`` per
  window;
- ``compare_models`` of accuracy (its default metric) by 10,000 segments, against
  the ``group_by`` of the discordant counts that McNemar's test reads.

Data are generated here (seeded).  Run with ``PYTHONPATH`` pointing at an older
checkout (``git archive <rev> pl_metrics``) for the before column.
"""

from __future__ import annotations

import argparse
import datetime as dt

import numpy as np
import polars as pl
from _common import print_table, side_by_side

import pl_metrics  # noqa: F401 - registers .metrics


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.rows
    y = (rng.random(n) < 0.3).astype(np.int64)
    days = rng.integers(0, 90, n).astype("timedelta64[D]")
    df = pl.DataFrame(
        {
            "y": y,
            "score": 1 / (1 + np.exp(-(rng.normal(0, 1, n) + 1.2 * y))),
            "day": np.datetime64("2026-01-01") + days,
            "seg": rng.integers(0, 10_000, n),
            "a": (rng.random(n) < 0.3 + 0.4 * y).astype(np.int64),
            "b": (rng.random(n) < 0.3 + 0.3 * y).astype(np.int64),
        }
    )
    window = {"index": "day", "every": "1d", "period": "7d", "metrics": ["roc_auc"]}
    ends = df.select(pl.col("day").dt.offset_by("1d").unique().sort())["day"]

    def loop() -> None:
        for end in ends:
            rows = df.filter((pl.col("day") >= end - dt.timedelta(days=7)) & (pl.col("day") < end))
            rows.metrics.roc_auc("y", "score", ci=0.95)

    right = (pl.col("a") == pl.col("y")) & (pl.col("b") != pl.col("y"))
    left = (pl.col("a") != pl.col("y")) & (pl.col("b") == pl.col("y"))
    loop_name = "a loop of filter + roc_auc(ci=0.95) per window"
    counts_name = "group_by(seg) of the discordant counts"
    t = side_by_side(
        {
            "over_time": lambda: df.metrics.over_time("y", y_score="score", ci=0.95, **window),
            loop_name: loop,
            "compare_models": lambda: df.metrics.compare_models("y", ["a", "b"], by="seg"),
            counts_name: lambda: df.group_by("seg").agg(right.sum(), left.sum().alias("c")),
        },
        args.repeat,
    )
    rows = [
        (
            f"over_time(every='1d', period='7d', roc_auc, ci=0.95), {n:,} rows, 90 days",
            t["over_time"],
            loop_name,
            t[loop_name],
            None,
        ),
        (
            "compare_models(['a', 'b'], by=seg) (accuracy), 10,000 segments",
            t["compare_models"],
            counts_name,
            t[counts_name],
            None,
        ),
    ]
    print_table(rows, f"polars {pl.__version__}, median of {args.repeat} interleaved runs")


if __name__ == "__main__":
    main()
