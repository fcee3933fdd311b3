"""Charts of the tidy frames (optional extra ``pl_metrics[plot]``: Altair + vl-convert).

Each function takes a frame returned by ``.metrics`` and returns an
:class:`altair.Chart`; ``chart.save("x.png")`` / ``.svg`` / ``.html`` writes it.

    import pl_metrics.plot as plp
    plp.roc_curve(df.metrics.roc_curve("y", "score", by="country"), by="country").save("roc.png")
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import polars as pl

_SEGMENT = "segment"


def _segments(frame: pl.DataFrame, by: str | None, value: pl.Expr, name: str) -> pl.DataFrame:
    """The frame with a ``segment`` column labelled ``"<segment> (<NAME> 0.xxx)"``."""
    key = pl.lit("all") if by is None else pl.col(by).cast(pl.String).fill_null("null")
    frame = frame.with_columns(key.alias(_SEGMENT))
    summary = frame.group_by(_SEGMENT, maintain_order=True).agg(value.alias("value"))
    label = pl.format("{} ({} {})", pl.col(_SEGMENT), pl.lit(name), pl.col("value").round(3))
    return frame.join(summary.select(_SEGMENT, label.alias("legend")), on=_SEGMENT)


def roc_curve(frame: pl.DataFrame, *, by: str | None = None) -> alt.LayerChart:
    """ROC curves of ``.metrics.roc_curve(...)``: one line per segment, AUC in the legend,
    the chance diagonal dashed."""
    fpr, tpr = pl.col("fpr"), pl.col("tpr")
    auc = ((fpr - fpr.shift(1)) * (tpr + tpr.shift(1)) / 2).sum()  # trapezoid of the points
    data = _segments(frame.filter(fpr.is_not_nan() & tpr.is_not_nan()), by, auc, "AUC")
    lines = (
        alt.Chart(data)
        .mark_line(interpolate="linear")
        .encode(
            x=alt.X("fpr:Q", title="false positive rate", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("tpr:Q", title="true positive rate", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("legend:N", title=by or "segment"),
            order="fpr:Q",
        )
    )
    diagonal = (
        alt.Chart(pl.DataFrame({"fpr": [0.0, 1.0], "tpr": [0.0, 1.0]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="fpr:Q", y="tpr:Q")
    )
    return (diagonal + lines).properties(title="ROC curve", width=360, height=360)


def pr_curve(frame: pl.DataFrame, *, by: str | None = None) -> alt.Chart:
    """Precision-recall curves of ``.metrics.pr_curve(...)``, average precision in the legend."""
    recall, precision = pl.col("recall"), pl.col("precision")
    ap = ((recall - recall.shift(-1)) * precision).sum()  # step-wise, as scikit-learn's AP
    data = _segments(frame, by, ap, "AP").with_row_index("order")
    return (
        alt.Chart(data)
        .mark_line(interpolate="step-before")
        .encode(
            x=alt.X("recall:Q", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("precision:Q", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("legend:N", title=by or "segment"),
            order="order:Q",
        )
        .properties(title="Precision-recall curve", width=360, height=360)
    )


def confusion_matrix(frame: pl.DataFrame, *, by: str | None = None) -> alt.Chart:
    """Heatmap of ``.metrics.confusion_matrix(...)``: colour = row-normalised rate
    (recall of the actual class), text = count; one panel per segment."""
    keys = [by] if by else []
    data = frame.with_columns(
        pl.col("actual", "predicted").cast(pl.String),
        (pl.col("count") / pl.col("count").sum().over([*keys, "actual"]))
        .fill_nan(0.0)
        .alias("rate"),
    )
    base = alt.Chart(data).encode(x=alt.X("predicted:N", sort=None), y=alt.Y("actual:N", sort=None))
    heat = base.mark_rect().encode(
        color=alt.Color("rate:Q", scale=alt.Scale(scheme="blues", domain=[0, 1]), title="row rate"),
        tooltip=["actual:N", "predicted:N", "count:Q", alt.Tooltip("rate:Q", format=".3f")],
    )
    text = base.mark_text(baseline="middle").encode(
        text=alt.Text("count:Q", format=",.4~g"),
        color=alt.condition(alt.datum.rate > 0.5, alt.value("white"), alt.value("black")),
    )
    chart = (heat + text).properties(width=240, height=240)
    if by:
        chart = chart.facet(column=alt.Column(f"{by}:N"))
    return chart.properties(title="Confusion matrix")


def per_class(
    frame: pl.DataFrame,
    *,
    by: str | None = None,
    metrics: Sequence[str] = ("precision", "recall", "f1"),
) -> alt.Chart:
    """Grouped bars of per-class metrics from ``.metrics.per_class(...)`` (or the
    per-class rows of ``.report(...)``), one panel per segment."""
    keys = [by] if by else []
    rows = frame.filter(pl.col("average").is_null()) if "average" in frame.columns else frame
    long = rows.select(*keys, pl.col("label").cast(pl.String), *metrics).unpivot(
        index=[*keys, "label"], variable_name="metric", value_name="value"
    )
    chart = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X("label:N", title="class"),
            xOffset="metric:N",
            y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1])),
            color="metric:N",
            tooltip=[
                *(f"{k}:N" for k in keys),
                "label:N",
                "metric:N",
                alt.Tooltip("value:Q", format=".3f"),
            ],
        )
        .properties(width=280, height=200)
    )
    if by:
        chart = chart.facet(row=alt.Row(f"{by}:N"))
    return chart.properties(title="Per-class metrics")
