"""Benchmark of the calibration bins, side by side in one process.

    .venv/bin/python benchmarks/bench_calibration.py [--rows N] [--segments S] [--repeat R]

``calibration_curve`` with quantile bins (unweighted and weighted) and uniform
bins, by ``--segments`` segments, against the floor of quantile bins (one polars
sort of the probabilities by segment) and the user's loop today (scikit-learn's
``calibration_curve`` per segment, from ``partition_by``), then
without segments against scikit-learn on the whole column.  Data are generated
here (seeded).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import polars as pl
from _common import print_table, side_by_side, timed

import pl_metrics  # noqa: F401 - registers .metrics


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--segments", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(3)
    n = args.rows
    p = rng.random(n)
    df = pl.DataFrame(
        {
            "seg": rng.integers(0, args.segments, n),
            "y": (rng.random(n) < p).astype(np.int64),
            "p": p,
            "w": rng.integers(1, 5, n).astype(np.float64),
        }
    )
    quantile = {"n_bins": 10, "strategy": "quantile"}
    sort = "one polars sort by (segment, p)"
    t = side_by_side(
        {
            sort: lambda: df.sort("seg", "p"),
            "quantile": lambda: df.metrics.calibration_curve("y", "p", by="seg", **quantile),
            "weighted": lambda: df.metrics.calibration_curve(
                "y", "p", by="seg", weight="w", **quantile
            ),
            "uniform": lambda: df.metrics.calibration_curve("y", "p", by="seg", n_bins=10),
        },
        args.repeat,
    )
    parts = df.partition_by("seg")

    def sklearn_loop() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for part in parts:
                calibration_curve(part["y"].to_numpy(), part["p"].to_numpy(), **quantile)

    where = f"{n:,} rows x {args.segments:,} segments, 10 bins"
    rows = [
        (f"calibration_curve(strategy='quantile', by=seg), {where}", t["quantile"], sort, t[sort]),
        ("  same, weight=w (integer weights 1-4)", t["weighted"], sort, t[sort]),
        ("  strategy='uniform'", t["uniform"], sort, t[sort]),
        ("  scikit-learn calibration_curve per segment", timed(sklearn_loop, 1), sort, t[sort]),
    ]
    y_np, p_np = df["y"].to_numpy(), df["p"].to_numpy()
    sk = "scikit-learn calibration_curve (quantile)"
    t = side_by_side(
        {
            sk: lambda: calibration_curve(y_np, p_np, **quantile),
            "ours": lambda: df.metrics.calibration_curve("y", "p", **quantile),
        },
        args.repeat,
    )
    rows.append((f"calibration_curve(strategy='quantile'), {n:,} rows", t["ours"], sk, t[sk]))
    print_table(
        [(*row, None) for row in rows],
        f"polars {pl.__version__}, median of {args.repeat} interleaved runs",
    )


if __name__ == "__main__":
    main()
