"""The report's performance over time: realized metrics per window and, with a
reference, the estimated ones beside them (one ``over_time`` call, one chart)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from pl_metrics._report.page import Chart, Section, Table
from pl_metrics._report.sections import Spec, _spec

ESTIMATED = "estimated_"
#: The segments drawn, at most: with more, those whose latest value is lowest.
MAX_SEGMENTS = 6


def realized_metrics(s: Spec) -> list[str]:
    """The realized metrics drawn: the ROC AUC of a binary score; F1 of ``pos_label``
    with a binary score and predicted labels, else the accuracy of the labels."""
    metrics = ["roc_auc"] if s.binary_score else []
    if s.y_pred is not None:
        metrics.append("f1" if s.binary_score else "accuracy")
    return metrics


def estimates(s: Spec) -> bool:
    """The section estimates the metrics: windows, a reference, predicted labels and
    scores (``estimated_performance``'s columns: a binary score, or a ``{label: column}``
    mapping, whose estimate is the accuracy's)."""
    return (
        s.index is not None
        and s.reference is not None
        and s.y_pred is not None
        and s.y_score is not None
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
    # a {label: column} mapping: the estimates read it (one map per class), the
    # realized accuracy reads the labels alone; pos_label is a binary score's
    scores = s.y_score if s.binary_score or estimated else None
    pos_label = s.pos_label if s.binary_score or not estimated else None
    frame = s.metrics(lf).over_time(
        s.y_true, index=s.index, every=s.every, metrics=[*realized, *estimated],
        y_pred=s.y_pred, y_score=scores, pos_label=pos_label, weight=s.weight,
        by=s.by or None, **options,
    ).collect()  # fmt: skip
    kind = "kind" if "kind" not in s.by_names else "realized or estimated"
    is_estimate = pl.col("metric").str.starts_with(ESTIMATED)
    drawn = frame.with_columns(
        pl.when(is_estimate).then(pl.lit("estimated")).otherwise(pl.lit("realized")).alias(kind),
        pl.col("metric").str.strip_prefix(ESTIMATED),
    )
    drawn, whose = _drawn_segments(drawn, s.by_names, (estimated or realized)[0], kind)
    chart = plot.over_time(drawn, by=[*s.by_names, kind], dash=kind)
    names = ", ".join(realized).replace("roc_auc", "ROC AUC").replace("f1", "F1")
    if estimated:
        intro = (
            f"{names} per {s.every} window of {s.index}, {whose}: realized from the "
            "rows whose label has arrived, and estimated from the scores alone "
            "(estimated_performance: the scores calibrated on the reference rows by "
            "isotonic regression"
            + ("" if s.binary_score else ", one map per class, one-vs-rest")
            + ", NannyML's CBPE). Where both lines run, the estimate "
            "is checked against the labels; where the labels stop, it is all there is. "
            "An estimate assumes the scores stay as calibrated as on the reference rows."
        )
    else:
        intro = f"{names} per {s.every} window of {s.index}, {whose}."
    if ci is not None:
        intro += (
            f" Bands: {ci:.0%} intervals (DeLong's for the ROC AUC, the delta method's "
            "for the labels"
            + ("; an estimate's: the realized metric's spread when each label is drawn "
               + ("Bernoulli(p)" if s.binary_score else "Categorical(p)")
               if estimated else "")
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


def _drawn_segments(
    drawn: pl.DataFrame, by: list[str], metric: str, kind: str
) -> tuple[pl.DataFrame, str]:
    """The rows of the segments drawn, and whose they are, in words: every segment up
    to :data:`MAX_SEGMENTS`, else those whose latest ``metric`` (its estimate where
    there is one) is lowest, the ones to look at first (the table holds them all)."""
    if not by:
        return drawn, "over all rows"
    segments = drawn.select(by).unique().height
    if segments <= MAX_SEGMENTS:
        return drawn, f"per segment of {', '.join(by)}"
    name = metric.removeprefix(ESTIMATED)
    which = "estimated" if metric.startswith(ESTIMATED) else "realized"
    latest = (
        drawn.filter(pl.col("metric") == name, pl.col(kind) == which, pl.col("value").is_not_nan())
        .sort("window_end")
        .group_by(by, maintain_order=True)
        .agg(pl.col("value").last())
        .sort("value", *by, nulls_last=True)
        .head(MAX_SEGMENTS)
        .select(by)
    )
    whose = (
        f"per segment of {', '.join(by)}: the {latest.height} of {segments} segments whose "
        f"latest {metric} is lowest (the table below holds every segment)"
    )
    return drawn.join(latest, on=by, how="semi", nulls_equal=True), whose
