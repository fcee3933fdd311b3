"""Fairness and segment comparison benchmarks (issue 13), side by side in one run.

    .venv/bin/python benchmarks/bench_fairness.py [--rows N] [--groups G] [--repeat R]

On 10M rows x 1,000 groups of binary labels and predictions:

1. ``fairness(by=group)`` (fairlearn's six disparity metrics) and
   ``compare(metric=...)``'s point part, ``disparity(metric=["accuracy", "f1"])``,
   against the bare ``group_by(group, y, pred).len()`` that forms their state
   (target <= 1.5x);
2. fairlearn's ``MetricFrame`` with the same metrics (selection rate, TPR, FPR;
   its ``difference`` / ``ratio``) on the same rows (pandas in, timed once: the
   ratio is reported);
3. ``fairness(ci=0.95, n_boot=1000)`` and ``compare(metric="accuracy", n_boot=1000)``
   against one plain ``fairness`` call (target <= 5x).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl
from _common import print_table, side_by_side

import pl_metrics  # noqa: F401


def data(rows: int, groups: int) -> pl.DataFrame:
    rng = np.random.default_rng(13)
    g = rng.integers(0, groups, rows)
    y = rng.integers(0, 2, rows)
    skill = 0.7 + 0.2 * (g % 7) / 6
    return pl.DataFrame({"group": g, "y": y, "p": np.where(rng.random(rows) < skill, y, 1 - y)})


def fairlearn_time(df: pl.DataFrame) -> float:
    from fairlearn import metrics as flm

    pdf = df.to_pandas()
    start = time.perf_counter()
    mf = flm.MetricFrame(
        metrics={
            "selection_rate": flm.selection_rate,
            "tpr": flm.true_positive_rate,
            "fpr": flm.false_positive_rate,
        },
        y_true=pdf["y"],
        y_pred=pdf["p"],
        sensitive_features=pdf["group"],
    )
    mf.difference()
    mf.ratio()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-fairlearn", action="store_true")
    args = parser.parse_args()
    df = data(args.rows, args.groups)
    base = "bare group_by(group, y, p).len()"
    plain = "fairness(by=group)"
    t = side_by_side(
        {
            base: lambda: df.group_by("group", "y", "p").len(),
            plain: lambda: df.metrics.fairness("y", "p", by="group"),
            "disparity": lambda: df.metrics.disparity(
                "y", "p", by="group", metric=["accuracy", "f1"]
            ),
            "fairness ci": lambda: df.metrics.fairness("y", "p", by="group", ci=0.95, n_boot=1000),
            "compare": lambda: df.metrics.compare("y", "p", by="group", n_boot=1000),
        },
        args.repeat,
    )
    head = f"{args.rows:,} rows x {args.groups:,} groups"
    rows = [
        (f"fairness(by=group), {head}", t[plain], base, t[base], 1.5),
        (f'disparity(metric=["accuracy", "f1"]), {head}', t["disparity"], base, t[base], 1.5),
        (f"fairness(ci=0.95, n_boot=1000), {head}", t["fairness ci"], plain, t[plain], 5.0),
        (
            f'compare(metric="accuracy", ci=0.95, n_boot=1000, p-values), {head}',
            t["compare"],
            plain,
            t[plain],
            5.0,
        ),
    ]
    if not args.skip_fairlearn:
        rows.append(
            (
                f"fairlearn MetricFrame (3 rates, difference, ratio), {head}",
                fairlearn_time(df),
                plain,
                t[plain],
                None,
            )
        )
    print_table(rows, f"polars {pl.__version__}, median of {args.repeat} interleaved runs")


if __name__ == "__main__":
    main()
