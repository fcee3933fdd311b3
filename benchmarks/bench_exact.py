"""Issue 16's in-memory targets, side by side in one process (ratios to the floors).

    .venv/bin/python benchmarks/bench_exact.py [--rows N] [--repeat R]

- exact ROC AUC of continuous scores (10M rows), DataFrame and LazyFrame, against
  one polars sort of the scores;
- DeLong's interval on continuous scores (1M rows) against one plain ``roc_auc``;
- ``report(by=seg)`` with 100,000 segments against the streaming
  ``group_by(seg, y, p).len()`` that forms its state;
- the ``plm.roc_auc`` / ``plm.average_precision`` expressions in
  ``group_by().agg()`` over 1,000 segments against the bare rank formula.

Data are generated here (seeded).  The out-of-core case (100M rows of Parquet,
DuckDB beside) is ``bench_out_of_core.py``.
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl
from _common import print_table, side_by_side

import pl_metrics as plm


def rank_formula(y: str, s: str) -> pl.Expr:
    """The bare rank formula (no checks): ``(sum of the positives' average ranks -
    P (P + 1) / 2) / (P N)``."""
    positive = pl.col(y) == 1
    p = positive.sum().cast(pl.Float64)
    n = pl.len().cast(pl.Float64) - p
    u = pl.col(s).rank("average").filter(positive).sum() - p * (p + 1) / 2
    return (u / (p * n)).alias("auc")


def binary(n: int, segments: int, rng: np.random.Generator) -> pl.DataFrame:
    y = rng.integers(0, 2, n)
    s = rng.random(n) * 0.7 + 0.3 * y * rng.random(n)
    return pl.DataFrame({"seg": rng.integers(0, segments, n), "y": y, "s": s})


def labels(n: int, segments: int, rng: np.random.Generator) -> pl.DataFrame:
    y = rng.integers(0, 3, n)
    p = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    return pl.DataFrame({"seg": rng.integers(0, segments, n), "y": y, "p": p})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--delong-rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(16)
    rows = []
    n = f"{args.rows:,} rows"

    df = binary(args.rows, 100, rng)
    sort = "one polars sort of the scores"
    t = side_by_side(
        {
            sort: lambda: df.select(pl.col("s").sort()),
            "df": lambda: df.metrics.roc_auc("y", "s"),
            "lazy": lambda: df.lazy().metrics.roc_auc("y", "s").collect(),
        },
        args.repeat,
    )
    rows += [
        (f"exact roc_auc, {n}, continuous, DataFrame", t["df"], sort, t[sort], 1.2),
        (f"exact roc_auc, {n}, continuous, LazyFrame", t["lazy"], sort, t[sort], 2.0),
    ]

    small = binary(args.delong_rows, 1, rng)
    plain = "one plain roc_auc"
    t = side_by_side(
        {
            plain: lambda: small.metrics.roc_auc("y", "s"),
            "delong": lambda: small.metrics.roc_auc("y", "s", ci=0.95, ci_method="delong"),
        },
        args.repeat,
    )
    rows.append(
        (
            f"DeLong interval, {args.delong_rows:,} rows, continuous",
            t["delong"],
            plain,
            t[plain],
            2.0,
        )
    )

    many = labels(args.rows, 100_000, rng)
    floor = "streaming group_by(seg, y, p).len()"
    t = side_by_side(
        {
            floor: lambda: many.lazy().group_by("seg", "y", "p").len().collect(),
            "report": lambda: many.metrics.report("y", "p", by="seg"),
        },
        args.repeat,
    )
    rows.append((f"report(by=seg), {n} x 100,000 segments", t["report"], floor, t[floor], 1.5))

    rank = "bare rank formula in group_by().agg()"
    segs = binary(args.rows, 1_000, rng)
    t = side_by_side(
        {
            rank: lambda: segs.group_by("seg").agg(rank_formula("y", "s")),
            "auc": lambda: segs.group_by("seg").agg(plm.roc_auc("y", "s")),
            "ap": lambda: segs.group_by("seg").agg(plm.average_precision("y", "s")),
        },
        args.repeat,
    )
    rows += [
        (f"plm.roc_auc in group_by().agg(), {n} x 1,000 segments", t["auc"], rank, t[rank], 1.0),
        ("plm.average_precision, same", t["ap"], rank, t[rank], 1.0),
    ]
    print_table(rows, f"polars {pl.__version__}, median of {args.repeat} interleaved runs")


if __name__ == "__main__":
    main()
