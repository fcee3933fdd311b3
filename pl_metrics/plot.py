"""Charts of the tidy frames (optional extra ``pl_metrics[plot]``: Altair + vl-convert).

Each function takes a frame returned by ``.metrics`` and returns an Altair chart;
``chart.save("x.png")`` / ``.svg`` / ``.html`` writes it.

    import pl_metrics.plot as plp
    plp.roc_curve(df.metrics.roc_curve("y", "score", by="country"), by="country").save("roc.png")

``by`` is a column name or a list of names: one line (or panel) per combination
of their values, labelled ``"north / v1"`` (a null value reads ``"null"``).  A
frame column that is neither one the chart expects nor named in ``by`` is an
error: a chart never merges segments silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import altair as alt
import polars as pl

from pl_metrics._core.names import OUTPUTS

#: Columns of the chart data made here (the user's ``by`` columns are not passed on).
_SEGMENT = "segment"  # the combined key, e.g. "north / v1"
_SEGMENT_ID = "segment_id"  # position of the segment (two keys may read alike)
_ORDER = "order"  # position of a point along its curve
_SEPARATOR = " / "

#: The columns of the frames each chart draws (declared once, in ``_core.names``).
_ROC = OUTPUTS["roc_curve"]
_PR = OUTPUTS["pr_curve"]
_CONFUSION = OUTPUTS["confusion_matrix"]
#: Columns of ``.per_class`` / ``.report`` frames (besides ``f<beta>`` and ``*_low/_high``).
_PER_CLASS = tuple(c for c in (*OUTPUTS["per_class"], *OUTPUTS["report"]) if c != "{f}")
_F_COLUMN = re.compile(r"f\d+(\.\d+)?")


def _by_list(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    names = [by] if isinstance(by, str) else list(by)
    if not all(isinstance(name, str) for name in names):
        msg = f"`by` must be a column name or a list of column names, got {by!r}"
        raise TypeError(msg)
    if len(set(names)) != len(names):
        msg = f"`by` names a column twice: {names!r}"
        raise ValueError(msg)
    return names


def _checked(
    frame: pl.DataFrame,
    by: str | Sequence[str] | None,
    chart: str,
    *,
    required: Sequence[str],
    known: Callable[[str], bool],
    point: Sequence[str],
) -> list[str]:
    """The ``by`` list, after checking that ``frame`` is one of ``chart``'s frames.

    Refuses ``by`` / ``required`` columns that are missing, columns neither
    ``known`` nor in ``by`` (unnamed segments), and a ``point`` key repeated within
    a segment (segments merged before the call).
    """
    names = _by_list(by)
    columns = frame.columns
    missing = [c for c in names if c not in columns]
    if missing:
        msg = f"{chart}: by column(s) {missing} not in the frame (columns: {columns})"
        raise ValueError(msg)
    missing = [c for c in required if c not in columns]
    if missing:
        msg = f"{chart}: the frame has no column(s) {missing}; columns: {columns}"
        raise ValueError(msg)
    extra = [c for c in columns if c not in names and not known(c)]
    if extra:
        msg = (
            f"{chart}: column(s) {extra} are not {chart} columns and would merge segments "
            f"into one; pass them as by={[*names, *extra]!r}"
        )
        raise ValueError(msg)
    point = [c for c in point if c in columns]
    if point and frame.select(pl.struct(*names, *point).is_duplicated().any()).item():
        where = f"per {names} value" if names else "in the frame"
        msg = (
            f"{chart}: {point} repeats {where}: the frame holds several segments; "
            "pass the columns that tell them apart as by="
        )
        raise ValueError(msg)
    return names


def _key(by: list[str]) -> pl.Expr:
    """The segment's name: its ``by`` values as text joined by " / " (null as "null")."""
    if not by:
        return pl.lit("all")
    parts = [pl.col(c).cast(pl.String).fill_null("null") for c in by]
    return pl.concat_str(parts, separator=_SEPARATOR)


def _parts(frame: pl.DataFrame, by: list[str]) -> list[pl.DataFrame]:
    """One frame per segment, in order of first appearance, with its name and position."""
    parts = frame.partition_by(by, maintain_order=True) if by else [frame]
    return [
        part.with_columns(_key(by).alias(_SEGMENT), pl.lit(i, pl.Int64).alias(_SEGMENT_ID))
        for i, part in enumerate(parts)
    ]


def _title(by: list[str]) -> str:
    return _SEPARATOR.join(by) if by else "segment"


def _curves(
    frame: pl.DataFrame,
    by: list[str],
    *,
    x: str,
    y: str,
    sort: Callable[[pl.DataFrame], pl.DataFrame],
    area: pl.Expr,
    name: str,
) -> pl.DataFrame:
    """The points of each segment in curve order, its ``area`` and legend label.

    Points with a NaN coordinate are left out; a segment without points is not drawn.
    """
    columns = [c for c in ("threshold", x, y) if c in frame.columns]
    out = [
        pl.DataFrame(
            schema={_ORDER: pl.Int64, _SEGMENT_ID: pl.Int64, _SEGMENT: pl.String}
            | {c: frame.schema[c] for c in columns}
            | {name.lower(): pl.Float64, "legend": pl.String}
        )
    ]
    for part in _parts(frame, by):
        points = sort(part.filter(pl.col(x).is_not_nan() & pl.col(y).is_not_nan()))
        if points.height == 0:
            continue
        value = points.select(area).item()
        legend = f"{points[_SEGMENT][0]} ({name} {value:.3f})"
        out.append(
            points.select(_SEGMENT_ID, _SEGMENT, *columns)
            .with_row_index(_ORDER)
            .with_columns(
                pl.col(_ORDER).cast(pl.Int64),
                pl.lit(value, pl.Float64).alias(name.lower()),
                pl.lit(legend).alias("legend"),
            )
        )
    return pl.concat(out)


def _threshold(data: pl.DataFrame) -> list[str]:
    return ["threshold:Q"] if "threshold" in data.columns else []


def _legend(data: pl.DataFrame, by: list[str]) -> alt.Color:
    order = data.unique(_SEGMENT_ID, maintain_order=True)["legend"].unique(maintain_order=True)
    return alt.Color("legend:N", title=_title(by), sort=order.to_list())


def roc_curve(frame: pl.DataFrame, *, by: str | Sequence[str] | None = None) -> alt.LayerChart:
    """ROC curves of ``.metrics.roc_curve(...)``: one line per segment, AUC in the legend,
    the chance diagonal dashed.

    The AUC is the trapezoid area under the segment's points in curve order (fpr,
    then tpr, ascending) - ``sklearn.metrics.roc_auc_score`` of the data the curve
    came from.  Points with a NaN rate (a segment without positives or negatives)
    are left out.
    """
    names = _checked(
        frame,
        by,
        "roc_curve",
        required=("fpr", "tpr"),
        known=_ROC.__contains__,
        point=["threshold"],
    )
    fpr, tpr = pl.col("fpr"), pl.col("tpr")
    auc = ((fpr - fpr.shift(1)) * (tpr + tpr.shift(1)) / 2).sum()
    data = _curves(
        frame,
        names,
        x="fpr",
        y="tpr",
        sort=lambda points: points.sort("fpr", "tpr", maintain_order=True),
        area=auc,
        name="AUC",
    )
    lines = (
        alt.Chart(data)
        .mark_line(interpolate="linear")
        .encode(
            x=alt.X("fpr:Q", title="false positive rate", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("tpr:Q", title="true positive rate", scale=alt.Scale(domain=[0, 1])),
            color=_legend(data, names),
            detail=f"{_SEGMENT_ID}:N",
            order=f"{_ORDER}:Q",
            tooltip=["legend:N", *_threshold(data), "fpr:Q", "tpr:Q"],
        )
    )
    diagonal = (
        alt.Chart(pl.DataFrame({"fpr": [0.0, 1.0], "tpr": [0.0, 1.0]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="fpr:Q", y="tpr:Q")
    )
    return (diagonal + lines).properties(title="ROC curve", width=360, height=360)


def pr_curve(frame: pl.DataFrame, *, by: str | Sequence[str] | None = None) -> alt.Chart:
    """Precision-recall curves of ``.metrics.pr_curve(...)``, average precision in the legend.

    The AP is scikit-learn's step-wise sum over the segment's points in curve
    order (recall descending, then precision ascending):
    ``sum((recall[i] - recall[i + 1]) * precision[i])`` - the area of the steps drawn.
    """
    names = _checked(
        frame,
        by,
        "pr_curve",
        required=("precision", "recall"),
        known=_PR.__contains__,
        point=["threshold"],
    )
    recall, precision = pl.col("recall"), pl.col("precision")
    ap = ((recall - recall.shift(-1)) * precision).sum()
    data = _curves(
        frame,
        names,
        x="recall",
        y="precision",
        sort=lambda points: points.sort(
            "recall", "precision", descending=[True, False], maintain_order=True
        ),
        area=ap,
        name="AP",
    )
    return (
        alt.Chart(data)
        # points run from recall 1 to 0 and precision[i] holds on (recall[i+1], recall[i]]:
        # horizontal first (as scikit-learn's display, drawstyle="steps-post")
        .mark_line(interpolate="step-after")
        .encode(
            x=alt.X("recall:Q", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("precision:Q", scale=alt.Scale(domain=[0, 1])),
            color=_legend(data, names),
            detail=f"{_SEGMENT_ID}:N",
            order=f"{_ORDER}:Q",
            tooltip=["legend:N", *_threshold(data), "recall:Q", "precision:Q"],
        )
        .properties(title="Precision-recall curve", width=360, height=360)
    )


def _segmented(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    return (
        pl.concat(_parts(frame, by))
        if frame.height
        else frame.with_columns(_key(by).alias(_SEGMENT), pl.lit(0, pl.Int64).alias(_SEGMENT_ID))
    )


def _facet_order(data: pl.DataFrame) -> list[str]:
    return data[_SEGMENT].unique(maintain_order=True).to_list()


def confusion_matrix(frame: pl.DataFrame, *, by: str | Sequence[str] | None = None) -> alt.Chart:
    """Heatmap of ``.metrics.confusion_matrix(...)``: colour = row-normalised rate
    (recall of the actual class), text = count; one panel per segment."""
    names = _checked(
        frame,
        by,
        "confusion_matrix",
        required=_CONFUSION[:3],  # "normalized" is there only with normalize=
        known=_CONFUSION.__contains__,
        point=["actual", "predicted"],
    )
    count = pl.col("count")
    data = (
        _segmented(frame, names)
        .with_columns(
            pl.col("actual", "predicted").cast(pl.String).fill_null("null"),
            (count / count.sum().over(_SEGMENT_ID, "actual")).fill_nan(0.0).alias("rate"),
        )
        .select(_SEGMENT_ID, _SEGMENT, "actual", "predicted", "count", "rate")
    )
    base = alt.Chart(data).encode(x=alt.X("predicted:N", sort=None), y=alt.Y("actual:N", sort=None))
    heat = base.mark_rect().encode(
        color=alt.Color("rate:Q", scale=alt.Scale(scheme="blues", domain=[0, 1]), title="row rate"),
        tooltip=[
            *([f"{_SEGMENT}:N"] if names else []),
            "actual:N",
            "predicted:N",
            "count:Q",
            alt.Tooltip("rate:Q", format=".3f"),
        ],
    )
    text = base.mark_text(baseline="middle").encode(
        text=alt.Text("count:Q", format=",.4~g"),
        color=alt.condition(alt.datum.rate > 0.5, alt.value("white"), alt.value("black")),
    )
    chart = (heat + text).properties(width=240, height=240)
    if names:
        facet = alt.Facet(f"{_SEGMENT}:N", title=_title(names), sort=_facet_order(data))
        chart = chart.facet(facet=facet, columns=3)
    return chart.properties(title="Confusion matrix")


def per_class(
    frame: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    metrics: Sequence[str] = ("precision", "recall", "f1"),
) -> alt.Chart:
    """Grouped bars of per-class metrics from ``.metrics.per_class(...)`` (or the
    per-class rows of ``.report(...)``), one panel per segment."""
    metrics = list(metrics)
    base_names = {*_PER_CLASS, *metrics}

    def known(column: str) -> bool:
        stem = re.sub(r"_(low|high)$", "", column)
        return any(c in base_names or _F_COLUMN.fullmatch(c) for c in (column, stem))

    names = _checked(
        frame,
        by,
        "per_class",
        required=["label", *metrics],
        known=known,
        point=["label", "average"],
    )
    rows = frame.filter(pl.col("average").is_null()) if "average" in frame.columns else frame
    long = (
        _segmented(rows, names)
        .select(_SEGMENT_ID, _SEGMENT, pl.col("label").cast(pl.String).fill_null("null"), *metrics)
        .unpivot(index=[_SEGMENT_ID, _SEGMENT, "label"], variable_name="metric", value_name="value")
    )
    chart = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X("label:N", title="class", sort=None),
            xOffset=alt.XOffset("metric:N", sort=metrics),
            y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("metric:N", sort=metrics),
            tooltip=[
                *([f"{_SEGMENT}:N"] if names else []),
                "label:N",
                "metric:N",
                alt.Tooltip("value:Q", format=".3f"),
            ],
        )
        .properties(width=280, height=200)
    )
    if names:
        chart = chart.facet(
            row=alt.Row(f"{_SEGMENT}:N", title=_title(names), sort=_facet_order(long))
        )
    return chart.properties(title="Per-class metrics")


_OVER_TIME = OUTPUTS["over_time"]


def over_time(frame: pl.DataFrame, *, by: str | Sequence[str] | None = None) -> alt.Chart:
    """Metrics of ``.metrics.over_time(...)`` against the window's end: one line per
    segment, the ``low``-``high`` interval as a band when the frame has it, one
    panel per metric (each on its own y scale)."""
    names = _checked(
        frame,
        by,
        "over_time",
        required=("window_end", "metric", "value"),
        known=_OVER_TIME.__contains__,
        point=["window_end", "metric"],
    )
    data = _segmented(frame, names).with_columns(pl.col("window_end").alias("time"))
    band = "low" in data.columns
    base = alt.Chart(data).encode(
        x=alt.X("time:T", title="window end"),
        color=alt.Color(f"{_SEGMENT}:N", title=_title(names), sort=_facet_order(data)),
        detail=f"{_SEGMENT_ID}:N",
    )
    tooltip = [
        *([f"{_SEGMENT}:N"] if names else []),
        "window_start:T",
        "window_end:T",
        "metric:N",
        alt.Tooltip("value:Q", format=".4f"),
        *(
            [alt.Tooltip("low:Q", format=".4f"), alt.Tooltip("high:Q", format=".4f")]
            if band
            else []
        ),
    ]
    line = base.mark_line(point=True).encode(
        y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)), tooltip=tooltip
    )
    layers = line
    if band:
        layers = base.mark_area(opacity=0.2).encode(y="low:Q", y2="high:Q") + line
    metrics = data["metric"].unique(maintain_order=True).to_list()
    chart = layers.properties(width=480, height=160).facet(
        row=alt.Row("metric:N", title=None, sort=metrics)
    )
    return chart.resolve_scale(y="independent").properties(title="Metrics over time")
