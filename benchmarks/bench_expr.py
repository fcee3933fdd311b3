"""The expressions' costs beside their peers: weighted multiclass expressions in
``group_by().agg()``, and frame-wide expressions beside a column on the streaming
engine.

    .venv/bin/python benchmarks/bench_expr.py [--rows 2_000_000]
        [--segments 10_000] [--repeat 5]

1. Three classes, random float weights, ``--segments`` groups.  A weighted
   expression's per-class sums are one numpy ``bincount`` over all the groups'
   rows (``_expr/multiclass._weighted_bincounts``, element-wise over the groups'
   lists; before, a Python call per group).  Each is set beside the same
   expression without weights (per-class counts in polars) and the frame method
   on the same segments (``summary(weight=, by=)``: a ``group_by`` of the counts).
2. ``lf.select("y", plm.f1(...))`` on the streaming engine (a metric of all rows,
   repeated on each row) beside the same expression alone: a scalar broadcast to
   the rows before the checks (or the per-class sums) cost a Python loop over the
   rows (or n copies of the rows' list); now the same time.

Data are generated here (seeded); no target ratio: the rows say what a weight,
or a column beside, costs.
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl
from _common import print_table, side_by_side

import pl_metrics as plm


def frame(rows: int, segments: int) -> pl.DataFrame:
    rng = np.random.default_rng(28)
    y = rng.integers(0, 3, rows)
    return pl.DataFrame(
        {
            "seg": rng.integers(0, segments, rows),
            "y": y,
            "p": np.where(rng.random(rows) < 0.7, y, rng.integers(0, 3, rows)),
            "w": rng.random(rows),
        }
    )


def weighted_rows(df: pl.DataFrame, segments: int, repeat: int) -> list:
    summary = "summary(weight=, by=seg)"
    plain = "the same expression, no weight"
    cases = {
        summary: lambda: df.metrics.summary("y", "p", weight="w", by="seg"),
        "f1": lambda: df.group_by("seg").agg(plm.f1("y", "p", average="macro", weight="w")),
        "f1 plain": lambda: df.group_by("seg").agg(plm.f1("y", "p", average="macro")),
        "mcc": lambda: df.group_by("seg").agg(plm.mcc("y", "p", weight="w")),
        "mcc plain": lambda: df.group_by("seg").agg(plm.mcc("y", "p")),
    }
    t = side_by_side(cases, repeat)
    where = f"{df.height:,} rows x {segments:,} segments"
    f1 = "plm.f1(average='macro', weight=)"
    return [
        (f"{f1} in group_by, {where}", t["f1"], summary, t[summary], None),
        (f"{f1}, same", t["f1"], plain, t["f1 plain"], None),
        (f"plm.mcc(weight=) in group_by, {where}", t["mcc"], summary, t[summary], None),
        ("plm.mcc(weight=), same", t["mcc"], plain, t["mcc plain"], None),
    ]


def beside_rows(df: pl.DataFrame, repeat: int) -> list:
    lf = df.lazy()
    exprs = {
        "plm.f1(average='macro')": plm.f1("y", "p", average="macro"),
        "plm.mcc(weight=)": plm.mcc("y", "p", weight="w"),
        "plm.accuracy": plm.accuracy("y", "p"),
    }
    cases = {}
    for name, expr in exprs.items():
        cases[f"{name} alone"] = lambda e=expr: lf.select(e).collect(engine="streaming")
        cases[name] = lambda e=expr: lf.select("y", e).collect(engine="streaming")
    t = side_by_side(cases, repeat)
    where = f"{df.height:,} rows, streaming"
    return [
        (f"select('y', {name}), {where}", t[name], "alone", t[f"{name} alone"], None)
        for name in exprs
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--segments", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    df = frame(args.rows, args.segments)
    rows = weighted_rows(df, args.segments, args.repeat) + beside_rows(df, args.repeat)
    print_table(rows, f"polars {pl.__version__}, median of {args.repeat} interleaved runs")


if __name__ == "__main__":
    main()
