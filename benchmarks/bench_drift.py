"""Drift (issue 27): ``drift`` / ``drift_bins`` beside their floors, in one process.

    .venv/bin/python benchmarks/bench_drift.py [--rows 1_000_000] [--segments 10]
        [--repeat 3] [--bins 10]

A reference frame and a current frame of ``--rows`` rows each: three numeric
columns (the current's shifted) and a text column, the current rows in
``--segments`` segments.  Floors: PSI / Jensen-Shannon need each side's rows per
bin, so their floor is one ``group_by().len()`` of the binned columns (the bins cut
at the reference's quantiles j / ``--bins``, computed outside the timing, a value's
bin counted as the library counts it: one comparison an edge up to 64 edges, a
binary search above) on each side; KS and
Wasserstein need the sorted values, so theirs is one sort of each numeric column
on each side.  The issue's targets: PSI / JS <= 3x the first, KS / Wasserstein <=
3x the second; ``drift`` computes all four, so it is also shown against both
floors together.  POLARS_MAX_THREADS sets the threads.
"""

from __future__ import annotations

import argparse
import os

import numpy as np
import polars as pl
from _common import print_table, side_by_side

import pl_metrics  # noqa: F401  (registers .metrics)

NUMERIC = ("a", "b", "c")


def frames(rows: int, segments: int, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(seed)

    def side(shift: float) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "seg": rng.integers(0, segments, rows),
                "a": rng.normal(shift, 1.0, rows),
                "b": rng.lognormal(0.0 + shift, 0.5, rows),
                "c": np.round(rng.random(rows) + shift, 2),
                "d": rng.choice(["ios", "android", "web"], rows),
            }
        )

    return side(0.0), side(0.1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=1_000_000)
    parser.add_argument("--segments", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bins", type=int, default=10)
    args = parser.parse_args()
    ref, cur = frames(args.rows, args.segments)
    columns = [*NUMERIC, "d"]
    bins = args.bins
    # the reference's quantiles, outside the timing (drift computes them inside)
    edges = {
        c: sorted(
            {float(ref[c].quantile(j / bins, interpolation="linear")) for j in range(1, bins)}
        )
        for c in NUMERIC
    }

    def binned(c: str) -> pl.Expr:
        if c not in edges:
            return pl.col(c).alias(f"{c}_bin")
        if len(edges[c]) > 64:
            below = pl.lit(pl.Series(edges[c])).search_sorted(pl.col(c), side="left")
            return below.alias(f"{c}_bin")
        return pl.sum_horizontal((pl.col(c) > e).cast(pl.Int64) for e in edges[c]).alias(f"{c}_bin")

    def bins_floor() -> object:
        queries = [ref.lazy().group_by(binned(c)).len() for c in columns]
        queries += [cur.lazy().group_by("seg", binned(c)).len() for c in columns]
        return pl.collect_all(queries)

    def sorts_floor() -> object:
        return [side.select(pl.col(c).sort()) for side in (ref, cur) for c in NUMERIC]

    def both_floors() -> object:
        return bins_floor(), sorts_floor()

    calls = {
        "group_by().len() of the binned columns, each side": bins_floor,
        "one sort of each numeric column, each side": sorts_floor,
        "both floors": both_floors,
        "drift_bins(by=seg)": lambda: cur.metrics.drift_bins(
            columns, reference=ref, by="seg", bins=bins
        ),
        "drift(by=seg)": lambda: cur.metrics.drift(columns, reference=ref, by="seg", bins=bins),
        "drift_counts(edges=, by=seg)": lambda: cur.metrics.drift_counts(
            columns, edges=edges, by="seg"
        ),
    }
    t = side_by_side(calls, args.repeat)
    floor_bins = "group_by().len() of the binned columns, each side"
    floor_sorts = "one sort of each numeric column, each side"
    rows = [
        ("drift_bins(by=seg) (PSI / JS bins)", "drift_bins(by=seg)", floor_bins, 3.0),
        ("drift_counts(edges=, by=seg)", "drift_counts(edges=, by=seg)", floor_bins, 3.0),
        ("drift(by=seg) (all four)", "drift(by=seg)", "both floors", 3.0),
        ("drift(by=seg) against the sorts alone", "drift(by=seg)", floor_sorts, None),
    ]
    table = [(name, t[a], b, t[b], target) for name, a, b, target in rows]
    # what KS / Wasserstein add to the bins (the reference's sort is shared: its
    # quantiles are the bins' edges)
    share = t["drift(by=seg)"] - t["drift_bins(by=seg)"]
    table.append(("drift - drift_bins (KS, Wasserstein)", share, floor_sorts, t[floor_sorts], None))
    threads = os.environ.get("POLARS_MAX_THREADS", str(pl.thread_pool_size()))
    print_table(
        table,
        f"### Drift: {args.rows:,} reference and {args.rows:,} current rows, "
        f"{args.segments} segments, {len(columns)} columns, {bins} bins, {threads} polars threads, "
        f"median of {args.repeat}",
    )


if __name__ == "__main__":
    main()
