"""The report's performance over time: realized metrics per window and, with a
reference, the estimated ones beside them (one ``over_time`` call, one chart)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from pl_metrics._report.page import Chart, Section, Table
from pl_metrics._report.sections import Spec, _spec

ESTIMATED = "estimated_"


def realized_metrics(s: Spec) -> list[str]:
    """The realized metrics drawn: the ROC AUC of a binary score; F1 of ``pos_label``
    with a binary score and predicted labels, else the accuracy of the labels."""
    metrics = ["roc_auc"] if s.binary_score else []
    if s.y_pred is not None:
        metrics.append("f1" if s.binary_score else "accuracy")
    return metrics


def estimates(s: Spec) -> bool:
    """The section estimates the metrics: windows, a reference, predicted labels and a
    binary score (``estimated_performance``'s columns)."""
    return (
        s.index is not None and s.reference is not None and s.y_pred is not None and s.binary_score
    )


def over_time_section(
    lf: pl.LazyFrame, reference: pl.DataFrame | pl.LazyFrame | None, s: Spec,
    step: Callable[[str], None],
) -> Section:  # fmt: skip
    """``over_time`` of the rows ``lf`` per ``s.every`` window of ``s.index``: the
    realized metrics (of the rows whose label has arrived, with estimates) and, with
    ``reference`` (the reference rows, as a frame), their ``estimated_*`` beside them;
    a chart of each metric's lines (realized, estimated) against the window's end."""
    from pl_metrics import plot

    assert s.index is not None
    assert s.every is not None
    realized = realized_metrics(s)
    estimated = [f"{ESTIMATED}{m}" for m in realized] if reference is not None else []
    # the estimates' intervals are their own (ci_method None): analytic throughout
    ci = s.ci if s.ci_method is None else None
    options: dict[str, Any] = {"ci": ci} if ci is not None else {}
    if estimated:
        options |= {"reference": reference}
    step("performance over time" + (" (estimated beside realized)" if estimated else ""))
    frame = s.metrics(lf).over_time(
        s.y_true, index=s.index, every=s.every, metrics=[*realized, *estimated],
        y_pred=s.y_pred, y_score=s.y_score if s.binary_score else None,
        pos_label=s.pos_label, weight=s.weight, **options,
    ).collect()  # fmt: skip
    kind = pl.when(pl.col("metric").str.starts_with(ESTIMATED)).then(pl.lit("estimated"))
    drawn = frame.with_columns(
        kind.otherwise(pl.lit("realized")).alias("kind"),
        pl.col("metric").str.strip_prefix(ESTIMATED),
    )
    chart = plot.over_time(drawn, by="kind")
    names = ", ".join(realized).replace("roc_auc", "ROC AUC").replace("f1", "F1")
    if estimated:
        intro = (
            f"{names} per {s.every} window of {s.index}, over all rows: realized from the "
            "rows whose label has arrived, and estimated from the scores alone "
            "(estimated_performance: the scores calibrated on the reference rows by "
            "isotonic regression, NannyML's CBPE). Where both lines run, the estimate "
            "is checked against the labels; where the labels stop, it is all there is. "
            "An estimate assumes the scores stay as calibrated as on the reference rows."
        )
    else:
        intro = f"{names} per {s.every} window of {s.index}, over all rows."
    if ci is not None:
        intro += (
            f" Bands: {ci:.0%} intervals (DeLong's for the ROC AUC, the delta method's "
            "for the labels"
            + ("; an estimate's: the realized metric's spread when each label is drawn "
               "Bernoulli(p)" if estimated else "")
            + ")."
        )  # fmt: skip
    elif s.ci is not None:
        intro += f" No intervals here (the {s.bootstrap} of every window: not drawn)."
    caption = "Each metric against the window's end" + (
        ": realized and estimated." if estimated else "."
    )
    return Section(
        "over-time",
        "Performance over time" + (": estimated and realized" if estimated else ""),
        intro,
        [
            Chart("over_time_chart", _spec(chart), caption),
            Table("over_time", frame, "Per window: over_time's rows.", collapsed=True),
        ],
    )
