"""Threshold sweep benchmark, side by side with polarbearings' threshold_sweep.

    .venv/bin/python benchmarks/bench_thresholds.py [--rows N] [--repeat R]

10 million rows x 100 segments, 2-decimal scores (101 distinct thresholds).
pl_metrics' ``thresholds`` gives tp/fp/fn/tn, precision, recall, F1,
specificity, accuracy and MCC at every distinct score of every segment;
polarbearings' ``threshold_sweep`` is asked for precision, recall and F1 at the
same 101 thresholds in ``group_by().agg()``.
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl
from _common import print_table, side_by_side

import pl_metrics  # noqa: F401


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import polarbearings as pb

    rng = np.random.default_rng(3)
    n = args.rows
    y = rng.integers(0, 2, n)
    df = pl.DataFrame(
        {
            "segment": rng.integers(0, 100, n),
            "y": y,
            "p": np.round(rng.random(n) * 0.7 + 0.3 * y * rng.random(n), 2),
        }
    )
    grid = [i / 100 for i in range(101)]

    def peer() -> pl.DataFrame:
        sweeps = [
            *pb.threshold_sweep(pb.precision, "y", "p", grid),
            *pb.threshold_sweep(pb.recall, "y", "p", grid),
            *pb.threshold_sweep(pb.f1_score, "y", "p", grid),
        ]
        return df.group_by("segment").agg(sweeps)

    peer_name = "polarbearings threshold_sweep (P, R, F1 at 101 thresholds)"
    t = side_by_side(
        {
            peer_name: peer,
            "ours": lambda: df.metrics.thresholds("y", "p", by="segment"),
            "best": lambda: df.metrics.best_threshold("y", "p", by="segment", metric="f1"),
        },
        args.repeat,
    )
    rows = [
        (
            f"thresholds(by=segment), {n:,} rows x 100 segments (all metrics, every score)",
            t["ours"],
            peer_name,
            t[peer_name],
            1.0,
        ),
        ("  best_threshold(metric='f1', by=segment)", t["best"], peer_name, t[peer_name], None),
    ]
    print_table(rows, f"polars {pl.__version__}, median of {args.repeat} interleaved runs")


if __name__ == "__main__":
    main()
