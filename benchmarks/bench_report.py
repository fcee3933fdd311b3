"""Benchmark of the confusion-matrix metrics, side by side in one process.

    make bench          # or: .venv/bin/python benchmarks/bench_report.py [--rows N]

Prints a markdown table of median wall times over repeated, interleaved runs and
the ratio of each to its bare polars baseline (``group_by(...).len()``, the
least any exact method must do), plus scikit-learn's ``classification_report``
and fairlearn's ``MetricFrame`` on the same data.  The data are generated here
(seeded), never committed.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable

import numpy as np
import polars as pl
from _common import side_by_side, timed

import pl_metrics  # noqa: F401


def make_labels(n: int, k: int, rng: np.random.Generator, *, strings: bool) -> pl.DataFrame:
    y_true = rng.integers(0, k, n)
    wrong = rng.random(n) < 0.3
    y_pred = np.where(wrong, rng.integers(0, k, n), y_true)
    df = pl.DataFrame({"y_true": y_true, "y_pred": y_pred})
    if strings:
        names = pl.Series([f"class_{i:02d}" for i in range(k)])
        df = df.select(pl.col("y_true", "y_pred").map_batches(names.gather))
    return df


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--seg-rows", type=int, default=1_000_000)
    parser.add_argument("--segments", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--peers", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    rng = np.random.default_rng(42)
    rows = []

    for strings in (False, True):
        df = make_labels(args.rows, 10, rng, strings=strings)
        kind = "string" if strings else "integer"
        t = side_by_side(
            {
                "bare": lambda df=df: df.group_by("y_true", "y_pred").len(),
                "report": lambda df=df: df.metrics.report("y_true", "y_pred"),
            },
            args.repeat,
        )
        rows.append((f"report, {args.rows:,} rows, 10 {kind} classes", t["report"], t["bare"], 1.5))
        if args.peers:
            from sklearn.metrics import classification_report

            y_true, y_pred = df["y_true"].to_numpy(), df["y_pred"].to_numpy()
            sk = timed(
                lambda y_true=y_true, y_pred=y_pred: classification_report(
                    y_true, y_pred, output_dict=True
                ),
                1,
            )
            rows.append(
                (f"  scikit-learn classification_report (numpy in), {kind}", sk, t["bare"], None)
            )

    seg = make_labels(args.seg_rows, 10, rng, strings=False).with_columns(
        segment=pl.Series(rng.integers(0, args.segments, args.seg_rows))
    )
    t = side_by_side(
        {
            "bare": lambda: seg.group_by("segment", "y_true", "y_pred").len(),
            "report": lambda: seg.metrics.report("y_true", "y_pred", by="segment"),
        },
        args.repeat,
    )
    label = f"report(by=segment), {args.seg_rows:,} rows x {args.segments:,} segments"
    rows.append((label, t["report"], t["bare"], 2.0))
    if args.peers:
        rows.extend(peers_by_segment(seg, t["bare"]))

    print(f"polars {pl.__version__}, median of {args.repeat} interleaved runs\n")
    print("| case | time (s) | bare group_by().len() (s) | ratio | target |")
    print("|---|---:|---:|---:|---:|")
    for name, value, base, target in rows:
        ratio = value / base
        verdict = "" if target is None else f"<= {target}x {'met' if ratio <= target else 'MISSED'}"
        print(f"| {name} | {value:.4f} | {base:.4f} | {ratio:.2f}x | {verdict} |")


def peers_by_segment(seg: pl.DataFrame, bare: float) -> list[tuple]:
    """fairlearn's MetricFrame (per-segment macro P/R/F1) and a pandas+sklearn loop."""
    import pandas as pd
    from sklearn.metrics import f1_score, precision_score, recall_score

    out = []
    pdf = seg.to_pandas()

    def sk_loop() -> None:
        for _, g in pdf.groupby("segment"):
            precision_score(g["y_true"], g["y_pred"], average="macro", zero_division=0)
            recall_score(g["y_true"], g["y_pred"], average="macro", zero_division=0)
            f1_score(g["y_true"], g["y_pred"], average="macro", zero_division=0)

    out.append(
        ("  pandas groupby + scikit-learn loop (macro P/R/F1)", timed(sk_loop, 1), bare, None)
    )
    try:
        from fairlearn.metrics import MetricFrame
    except ImportError:
        return out

    def macro(name: str) -> Callable:
        fn = {"p": precision_score, "r": recall_score, "f": f1_score}[name]
        return lambda t, p: fn(t, p, average="macro", zero_division=0)

    def fair() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return MetricFrame(
                metrics={"precision": macro("p"), "recall": macro("r"), "f1": macro("f")},
                y_true=pdf["y_true"],
                y_pred=pdf["y_pred"],
                sensitive_features=pd.Series(pdf["segment"], name="segment"),
            ).by_group

    out.append(("  fairlearn MetricFrame (macro P/R/F1)", timed(fair, 1), bare, None))
    return out


if __name__ == "__main__":
    main()
