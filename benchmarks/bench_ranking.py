"""Benchmark of the ranking metrics, side by side in one process.

    .venv/bin/python benchmarks/bench_ranking.py [--rows N] [--repeat R]

Baselines: the plain rank formula ``((rank("average") of positives).sum() -
P(P+1)/2) / (P N)`` in Polars, polars-ds (``query_roc_auc``,
``query_multi_roc_auc``), polarbearings (``roc_auc``) and scikit-learn
(``roc_auc_score``).  Data are generated here (seeded).
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl
from _common import print_table, side_by_side, timed

import pl_metrics as plm


def rank_formula(y: str, s: str) -> pl.Expr:
    positive = pl.col(y) == 1
    p = positive.sum().cast(pl.Float64)
    n = pl.len().cast(pl.Float64) - p
    return ((pl.col(s).rank("average").filter(positive).sum() - p * (p + 1) / 2) / (p * n)).alias(
        "auc"
    )


def binary_data(n: int, rng: np.random.Generator, segments: int) -> pl.DataFrame:
    y = rng.integers(0, 2, n)
    s = rng.random(n) * 0.7 + 0.3 * y * rng.random(n)
    return pl.DataFrame(
        {"segment": rng.integers(0, segments, n), "y": y, "s": s, "s2": np.round(s, 2)}
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--multi-rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    import polarbearings as pb
    import polars_ds as pds
    from sklearn.metrics import roc_auc_score

    df = binary_data(args.rows, rng, 1_000)
    rows = []
    rank = "rank formula"
    t = side_by_side(
        {
            rank: lambda: df.select(rank_formula("y", "s")),
            "ours": lambda: df.metrics.roc_auc("y", "s"),
            "lazy": lambda: df.lazy().metrics.roc_auc("y", "s").collect(),
            "pds": lambda: df.select(pds.query_roc_auc("y", "s")),
            "pb": lambda: df.select(pb.roc_auc("y", "s")),
        },
        args.repeat,
    )
    n = f"{args.rows:,} rows"
    rows += [
        (f"roc_auc, {n}, continuous scores (DataFrame)", t["ours"], rank, t[rank], 0.5),
        ("  same, LazyFrame (per-score counts)", t["lazy"], rank, t[rank], None),
        ("  polars-ds query_roc_auc", t["pds"], rank, t[rank], None),
        ("  polarbearings roc_auc", t["pb"], rank, t[rank], None),
    ]
    y_np, s_np, s2_np = df["y"].to_numpy(), df["s"].to_numpy(), df["s2"].to_numpy()
    rows.append(
        (
            "  scikit-learn roc_auc_score",
            timed(lambda: roc_auc_score(y_np, s_np), 1),
            rank,
            t[rank],
            None,
        )
    )

    pds_name = "polars-ds query_roc_auc"
    t = side_by_side(
        {
            pds_name: lambda: df.select(pds.query_roc_auc("y", "s2")),
            "ours": lambda: df.metrics.roc_auc("y", "s2"),
            "lazy": lambda: df.lazy().metrics.roc_auc("y", "s2").collect(),
            rank: lambda: df.select(rank_formula("y", "s2")),
            "pb": lambda: df.select(pb.roc_auc("y", "s2")),
        },
        args.repeat,
    )
    rows += [
        (f"roc_auc, {n}, 2-decimal scores", t["ours"], pds_name, t[pds_name], 1.0),
        ("  same, LazyFrame", t["lazy"], pds_name, t[pds_name], 1.0),
        ("  rank formula", t[rank], pds_name, t[pds_name], None),
        ("  polarbearings roc_auc", t["pb"], pds_name, t[pds_name], None),
    ]
    rows.append(
        (
            "  scikit-learn roc_auc_score",
            timed(lambda: roc_auc_score(y_np, s2_np), 1),
            pds_name,
            t[pds_name],
            None,
        )
    )

    rank_by = "rank formula in group_by().agg()"
    for col, kind in (("s", "continuous"), ("s2", "2-decimal")):
        t = side_by_side(
            {
                rank_by: lambda col=col: df.group_by("segment").agg(rank_formula("y", col)),
                "ours": lambda col=col: df.metrics.roc_auc("y", col, by="segment"),
                "lazy": lambda col=col: df.lazy().metrics.roc_auc("y", col, by="segment").collect(),
                "expr": lambda col=col: df.group_by("segment").agg(plm.roc_auc("y", col)),
            },
            args.repeat,
        )
        rows += [
            (
                f"roc_auc(by=segment), {n} x 1,000 segments, {kind}",
                t["ours"],
                rank_by,
                t[rank_by],
                1.0,
            ),
            ("  same, LazyFrame", t["lazy"], rank_by, t[rank_by], None),
            ("  plm.roc_auc expression in group_by().agg()", t["expr"], rank_by, t[rank_by], 1.25),
        ]

    # 10-class one-vs-rest macro AUC
    m = args.multi_rows
    k = 10
    y = rng.integers(0, k, m)
    logits = rng.normal(size=(m, k))
    logits[np.arange(m), y] += 1.5
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    multi = pl.DataFrame({"y": y} | {f"p{i}": proba[:, i] for i in range(k)}).with_columns(
        pl.concat_list([f"p{i}" for i in range(k)]).alias("proba")
    )
    mapping = {i: f"p{i}" for i in range(k)}
    pds_multi = "polars-ds query_multi_roc_auc"
    t = side_by_side(
        {
            pds_multi: lambda: multi.select(pds.query_multi_roc_auc("y", "proba", k, "macro")),
            "ours": lambda: multi.metrics.roc_auc("y", mapping),
        },
        args.repeat,
    )
    rows.append(
        (f"roc_auc ovr macro, {m:,} rows x {k} classes", t["ours"], pds_multi, t[pds_multi], 0.5)
    )
    rows.append(
        (
            "  scikit-learn roc_auc_score(multi_class='ovr')",
            timed(lambda: roc_auc_score(y, proba, multi_class="ovr"), 1),
            pds_multi,
            t[pds_multi],
            None,
        )
    )
    print_table(rows, f"polars {pl.__version__}, median of {args.repeat} interleaved runs")


if __name__ == "__main__":
    main()
