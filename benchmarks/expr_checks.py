"""What the checks of ``plm.roc_auc`` cost in ``group_by().agg()``, one at a time.

    .venv/bin/python benchmarks/expr_checks.py [--rows 2_000_000] [--segments 1000]
        [--repeat 15]

Issue 25 asks the expression for at most 1.25x the bare rank formula.  This
prints, against that formula (``bench_exact.rank_formula``): the expression as
shipped; its value without any check (``expr._roc_auc_parts``: the same rank
formula behind the inputs' conversions); and that value with each of its four
checks alone.  Medians of ``--repeat`` interleaved runs; the rows are noisy on a
shared machine (a few hundredths of the ratio between runs).
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl
from _common import print_table, side_by_side
from bench_exact import binary, rank_formula

import pl_metrics as plm
from pl_metrics._expr.inputs import guard
from pl_metrics.expr import _roc_auc_parts

#: The checks in the order ``_roc_auc_parts`` lists them (default ``pos_label``).
CHECKS = (
    "nulls in y_true",
    "null / NaN / infinite scores",
    "pos_label absent from a group of two labels",
    "default pos_label: labels {0, 1} or {-1, 1}",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=2_000_000)
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    df = binary(args.rows, args.segments, np.random.default_rng(25))
    value, checks = _roc_auc_parts("y", "s", None)
    if len(checks) != len(CHECKS):
        raise SystemExit(f"roc_auc has {len(checks)} checks; CHECKS names {len(CHECKS)}")
    rank = "bare rank formula"
    cases = {
        rank: lambda: df.group_by("seg").agg(rank_formula("y", "s")),
        "plm.roc_auc": lambda: df.group_by("seg").agg(plm.roc_auc("y", "s")),
        "its value, no check": lambda: df.group_by("seg").agg(value.alias("auc")),
    }
    for name, check in zip(CHECKS, checks, strict=True):
        cases[f"its value + {name}"] = lambda check=check: df.group_by("seg").agg(
            (value + guard([check])).alias("auc")
        )
    t = side_by_side(cases, args.repeat)
    rows = [(name, t[name], rank, t[rank], 1.25 if name == "plm.roc_auc" else None) for name in t]
    print_table(
        rows[1:],
        f"{args.rows:,} rows x {args.segments:,} segments, polars {pl.__version__}, "
        f"{pl.thread_pool_size()} threads, median of {args.repeat} interleaved runs",
    )


if __name__ == "__main__":
    main()
