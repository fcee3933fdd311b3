"""Weighted multiclass expressions in ``group_by().agg()``, beside their peers.

    .venv/bin/python benchmarks/bench_expr_weighted.py [--rows 2_000_000]
        [--segments 10_000] [--repeat 5]

Three classes, random float weights, ``--segments`` groups.  A weighted
expression's per-class sums are one numpy ``bincount`` over all the groups' rows
(``_expr/multiclass._weighted_bincounts``, element-wise over the groups' lists);
before, a Python call per group.  Each is set beside the same expression without
weights (per-class counts in polars) and the frame method on the same segments
(``summary(weight=, by=)``: a ``group_by`` of the counts).  Data are generated
here (seeded); no target ratio: the rows say what a weight costs.
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl
from _common import print_table, side_by_side

import pl_metrics as plm


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--segments", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(28)
    n = args.rows
    y = rng.integers(0, 3, n)
    df = pl.DataFrame(
        {
            "seg": rng.integers(0, args.segments, n),
            "y": y,
            "p": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)),
            "w": rng.random(n),
        }
    )
    frame = "summary(weight=, by=seg)"
    unweighted = "the same expression, no weight"
    cases = {
        frame: lambda: df.metrics.summary("y", "p", weight="w", by="seg"),
        "f1": lambda: df.group_by("seg").agg(plm.f1("y", "p", average="macro", weight="w")),
        "f1 plain": lambda: df.group_by("seg").agg(plm.f1("y", "p", average="macro")),
        "mcc": lambda: df.group_by("seg").agg(plm.mcc("y", "p", weight="w")),
        "mcc plain": lambda: df.group_by("seg").agg(plm.mcc("y", "p")),
    }
    t = side_by_side(cases, args.repeat)
    where = f"{n:,} rows x {args.segments:,} segments"
    rows = [
        (f"plm.f1(average='macro', weight=) in group_by, {where}", t["f1"], frame, t[frame], None),
        ("plm.f1(average='macro', weight=), same", t["f1"], unweighted, t["f1 plain"], None),
        (f"plm.mcc(weight=) in group_by, {where}", t["mcc"], frame, t[frame], None),
        ("plm.mcc(weight=), same", t["mcc"], unweighted, t["mcc plain"], None),
    ]
    print_table(rows, f"polars {pl.__version__}, median of {args.repeat} interleaved runs")


if __name__ == "__main__":
    main()
