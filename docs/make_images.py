"""Render the chart images of docs/charts.md from the bundled example (run by `make docs`)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl

import pl_metrics  # noqa: F401
import pl_metrics.plot as plp

ROOT = Path(__file__).parents[1]


def main() -> None:
    df = pl.read_parquet(ROOT / "examples" / "predictions.parquet")
    out = ROOT / "docs" / "img"
    out.mkdir(exist_ok=True)
    curves = {"y_true": "is_cat", "y_score": "cat_score", "by": "region"}
    plp.roc_curve(df.metrics.roc_curve(**curves), by="region").save(out / "roc.png")
    plp.pr_curve(df.metrics.pr_curve(**curves), by="region").save(out / "pr.png")
    cm = df.metrics.confusion_matrix("y_true", "y_pred", by="region")
    plp.confusion_matrix(cm, by="region").save(out / "confusion.png")
    pc = df.metrics.per_class("y_true", "y_pred", by="region")
    plp.per_class(pc, by="region").save(out / "per_class.png")
    # the example has no time column: spread its rows over 40 days
    days = pl.lit(dt.date(2026, 1, 1)) + pl.duration(days=pl.int_range(pl.len()) % 40)
    daily = df.with_columns(days.alias("day"))
    ot = daily.metrics.over_time(
        "is_cat",
        y_score="cat_score",
        index="day",
        every="1d",
        period="7d",
        metrics=["roc_auc", "average_precision"],
        by="region",
        ci=0.95,
    )
    plp.over_time(ot, by="region").save(out / "over_time.png")


if __name__ == "__main__":
    main()
