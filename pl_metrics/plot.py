"""Charts of the tidy frames (optional extra ``pl_metrics[plot]``: Altair + vl-convert).

Each function takes a frame returned by ``.metrics`` and returns an Altair chart;
``chart.save("x.png")`` / ``.svg`` / ``.html`` writes it.

    import pl_metrics.plot as plp
    plp.roc_curve(df.metrics.roc_curve("y", "score", by="country"), by="country").save("roc.png")

``by`` is a column name or a list of names: one line (or panel, or row) per
combination of their values, labelled ``"north / v1"`` (a null value reads
``"null"``), in the order of the tables (keys sorted, nulls last).  A frame column
that is neither one the chart expects nor named in ``by`` is an error, and so is a
frame whose points repeat within a segment: a chart never merges segments silently.

Charts: :func:`roc_curve` and :func:`pr_curve` (AUC / AP in the legend; one curve
per class of one-vs-rest frames with a ``label`` column), :func:`confusion_matrix`,
:func:`per_class` (dots and intervals on an axis that shows differences),
:func:`reliability`, :func:`threshold_metrics`, :func:`gains`, :func:`forest`
(intervals per segment) and :func:`over_time` (with the interval as a band).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from pl_metrics._core.checks import require_plot_extra
from pl_metrics._core.names import INTERNAL as _INTERNAL
from pl_metrics._core.names import OUTPUTS

require_plot_extra("pl_metrics.plot")  # the error names the extra to install

import altair as alt  # noqa: E402 - after the check of the extra

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


def _segmented(frame: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """``frame`` with its segment's name and position instead of its ``by`` columns,
    sorted by segment.

    Segments are in the order of the tables (``by`` values sorted, nulls last),
    whatever the order of the rows; rows keep their order within a segment.  Two
    keys that read alike (``("a / b", "c")`` and ``("a", "b / c")``) get distinct
    names (``"a / b / c [2]"``): they are never one line or one colour.  The ``by``
    columns are dropped, so that a user's column named like a column of the chart
    data (``segment``, ``value``, ...) cannot collide with it.
    """
    if not by:
        return frame.with_columns(
            pl.lit("all").alias(_SEGMENT), pl.lit(0, pl.Int64).alias(_SEGMENT_ID)
        )
    keys = frame.select(by).unique().sort(by, nulls_last=True)
    names: list[str] = []
    for name in keys.select(_key(by)).to_series().to_list():
        label, n = name, 1
        while label in names:
            n += 1
            label = f"{name} [{n}]"
        names.append(label)
    segment, position = f"{_INTERNAL}segment", f"{_INTERNAL}segment_id"
    keys = keys.with_columns(
        pl.Series(segment, names, pl.String),
        pl.int_range(pl.len(), dtype=pl.Int64).alias(position),
    )
    return (
        frame.join(keys, on=by, how="left", nulls_equal=True, maintain_order="left")
        .drop(by)
        .rename({segment: _SEGMENT, position: _SEGMENT_ID})
        .sort(_SEGMENT_ID, maintain_order=True)
    )


def _parts(frame: pl.DataFrame, by: list[str]) -> list[pl.DataFrame]:
    """One frame per segment, in the order of the tables, with its name and position."""
    keyed = _segmented(frame, by)
    return keyed.partition_by(_SEGMENT_ID, maintain_order=True) if keyed.height else []


def _order(data: pl.DataFrame, column: str = _SEGMENT) -> list[str]:
    """The values of ``column`` in the order of the data (the segments': the tables')."""
    return data[column].unique(maintain_order=True).to_list()


def _no_nan(data: pl.DataFrame) -> pl.DataFrame:
    """NaN (an undefined value) as null: left out of the chart, not drawn as a number."""
    return data.with_columns(pl.col(pl.Float32, pl.Float64).fill_nan(None))


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

    Points with a NaN coordinate are left out.  A segment without points (no
    positives or no negatives) keeps its place in the legend, marked "no curve",
    with one row of null coordinates (not drawn): every segment keeps its colour
    in every chart, and none disappears without a word.
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
            legend = f"{part[_SEGMENT][0]} (no curve: {name} undefined)"
            out.append(
                part.head(1)
                .select(_SEGMENT_ID, _SEGMENT)
                .with_columns(
                    pl.lit(0, pl.Int64).alias(_ORDER),
                    *(pl.lit(None, frame.schema[c]).alias(c) for c in columns),
                    pl.lit(None, pl.Float64).alias(name.lower()),
                    pl.lit(legend).alias("legend"),
                )
                .select(out[0].columns)
            )
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
    # the domain fixed to every segment in table order: the same segment has the same
    # colour in the ROC and the PR chart, whichever segments have no curve
    return alt.Color(
        "legend:N", title=_title(by), sort=order.to_list(), scale=alt.Scale(domain=order.to_list())
    )


def _with_classes(frame: pl.DataFrame, by: str | Sequence[str] | None) -> list[str]:
    """``by``, and ``label`` last when the frame has it: one-vs-rest curves of several
    classes (a ``{label: column}`` score mapping) are one curve per class, never one
    merged curve."""
    names = _by_list(by)
    return [*names, "label"] if "label" in frame.columns and "label" not in names else names


def roc_curve(frame: pl.DataFrame, *, by: str | Sequence[str] | None = None) -> alt.LayerChart:
    """ROC curves of ``.metrics.roc_curve(...)``: one line per segment, AUC in the legend,
    the chance diagonal dashed.

    The AUC is the trapezoid area under the segment's points in curve order (fpr,
    then tpr, ascending) - ``sklearn.metrics.roc_auc_score`` of the data the curve
    came from.  Points with a NaN rate (a segment without positives or negatives)
    are left out.

    Multiclass: the one-vs-rest curves of ``.metrics.roc_curve`` with a ``{label:
    column}`` score mapping have a ``label`` column and are drawn one per class (and
    per segment of ``by``; ``label`` is the last part of the key)::

        roc_curve(df.metrics.roc_curve("y", {c: f"p_{c}" for c in classes}))
    """
    names = _checked(
        frame,
        _with_classes(frame, by),
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
    One-vs-rest curves with a ``label`` column: one curve per class, as :func:`roc_curve`.
    """
    names = _checked(
        frame,
        _with_classes(frame, by),
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
        facet = alt.Facet(f"{_SEGMENT}:N", title=_title(names), sort=_order(data))
        panels = data[_SEGMENT_ID].n_unique()
        chart = chart.facet(facet=facet, columns=2 if panels in (2, 4) else 3)
    return chart.properties(title="Confusion matrix")


def _interval(data: pl.DataFrame, value: str, low: str, high: str) -> list[pl.Expr]:
    """``value``, ``low`` and ``high`` (the bounds null where the frame has none)."""
    bounds = [
        (pl.col(bound) if bound in data.columns else pl.lit(None)).cast(pl.Float64).alias(name)
        for bound, name in ((low, "low"), (high, "high"))
    ]
    return [pl.col(value).cast(pl.Float64).alias("value"), *bounds]


def _values_tooltip(names: list[str], *fields: str) -> list[str | alt.Tooltip]:
    return [
        *([f"{_SEGMENT}:N"] if names else []),
        *(f"{f}:N" for f in fields),
        *(alt.Tooltip(f"{c}:Q", format=".4f") for c in ("value", "low", "high")),
    ]


def _free_x(field: str, title: str) -> alt.X:
    """An x axis around the data (not from 0), which says so."""
    return alt.X(
        f"{field}:Q",
        title=f"{title} (axis not from 0)",
        scale=alt.Scale(zero=False),
        axis=alt.Axis(tickCount=6),
    )


def per_class(
    frame: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    metrics: Sequence[str] = ("precision", "recall", "f1"),
) -> alt.FacetChart:
    """Per-class metrics of ``.metrics.per_class(...)`` (or the per-class rows of
    ``.report(...)``) as dots, with their interval as a line when the frame has
    ``<metric>_low`` / ``<metric>_high`` (``ci=``): one panel per metric, one row
    per class, one colour (and sub-row) per segment.

    The value axis is not forced to start at 0: bars from 0 would hide a 0.91 vs
    0.93 difference; dots on an axis around the data show it, and the intervals
    show whether it is more than noise.  The panels share the axis.
    """
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
    data = _segmented(rows, names).with_columns(pl.col("label").cast(pl.String).fill_null("null"))
    long = _no_nan(
        pl.concat(
            [
                data.select(
                    _SEGMENT_ID,
                    _SEGMENT,
                    "label",
                    pl.lit(m).alias("metric"),
                    *_interval(data, m, f"{m}_low", f"{m}_high"),
                )
                for m in metrics
            ]
        )
    )
    segments, labels = _order(long), _order(long, "label")
    by_segment: dict[str, Any] = (
        {
            "color": alt.Color(f"{_SEGMENT}:N", title=_title(names), sort=segments),
            "yOffset": alt.YOffset(f"{_SEGMENT}:N", sort=segments),
        }
        if names
        else {}
    )
    base = alt.Chart(long).encode(y=alt.Y("label:N", title="class", sort=labels), **by_segment)
    dots = base.mark_point(filled=True, size=45, opacity=1).encode(
        x=_free_x("value", "value"), tooltip=_values_tooltip(names, "label", "metric")
    )
    layers: alt.Chart | alt.LayerChart = dots
    if long["low"].is_not_null().any():
        rules = base.mark_rule(strokeWidth=1.5).encode(x=_free_x("low", "value"), x2="high:Q")
        layers = rules + dots
    height = max(120, 14 * len(labels) * max(1, len(segments)))
    return (
        layers.properties(width=200, height=height)
        .facet(column=alt.Column("metric:N", title=None, sort=metrics))
        .properties(title="Per-class metrics")
    )


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
    data = _no_nan(_segmented(frame, names)).with_columns(pl.col("window_end").alias("time"))
    band = "low" in data.columns
    base = alt.Chart(data).encode(
        x=alt.X("time:T", title="window end", axis=alt.Axis(format="%Y-%m-%d", labelAngle=-40)),
        color=alt.Color(f"{_SEGMENT}:N", title=_title(names), sort=_order(data)),
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


def _segment_colour(names: list[str], data: pl.DataFrame) -> dict[str, Any]:
    """Colour per segment (in the tables' order), one line each (``detail``)."""
    return {
        "color": alt.Color(f"{_SEGMENT}:N", title=_title(names), sort=_order(data)),
        "detail": f"{_SEGMENT_ID}:N",
    }


def _diagonal(x: str, y: str) -> alt.Chart:
    return (
        alt.Chart(pl.DataFrame({x: [0.0, 1.0], y: [0.0, 1.0]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x=f"{x}:Q", y=f"{y}:Q")
    )


def _unit_x(field: str, title: str) -> alt.X:
    return alt.X(f"{field}:Q", title=title, scale=alt.Scale(domain=[0, 1]))


def _unit_y(field: str, title: str) -> alt.Y:
    return alt.Y(f"{field}:Q", title=title, scale=alt.Scale(domain=[0, 1]))


def reliability(frame: pl.DataFrame, *, by: str | Sequence[str] | None = None) -> alt.LayerChart:
    """Reliability diagram of ``.metrics.calibration_curve(...)``: observed frequency
    (``prob_true``) against mean predicted probability (``prob_pred``) per bin, one
    line per segment, each point sized by its bin's (weighted) row count; the
    diagonal (perfect calibration) dashed.

    Both axes run from 0 to 1: a curve below the diagonal is over-confident, above
    it under-confident.  A bin without rows has no point (the frame has no row for it).
    """
    names = _checked(
        frame,
        _with_classes(frame, by),  # calibration_curve(multi_class="per_class"): per class
        "reliability",
        required=("prob_true", "prob_pred"),
        known=OUTPUTS["calibration_curve"].__contains__,
        point=["bin"],
    )
    data = _no_nan(_segmented(frame, names))
    sort = [_SEGMENT_ID, "prob_pred"]
    data = data.sort(sort, maintain_order=True).select(
        _SEGMENT_ID, _SEGMENT, *[c for c in OUTPUTS["calibration_curve"] if c in data.columns]
    )
    size = "count" in data.columns
    tooltip = [
        *([f"{_SEGMENT}:N"] if names else []),
        *(["bin:O"] if "bin" in data.columns else []),
        alt.Tooltip("prob_pred:Q", format=".3f"),
        alt.Tooltip("prob_true:Q", format=".3f"),
        *([alt.Tooltip("count:Q", format=",.4~g")] if size else []),
    ]
    base = alt.Chart(data).encode(
        x=_unit_x("prob_pred", "mean predicted probability"),
        y=_unit_y("prob_true", "observed frequency"),
        order="prob_pred:Q",
        **(_segment_colour(names, data) if names else {}),
    )
    points = base.mark_circle(opacity=0.8).encode(
        tooltip=tooltip, **({"size": alt.Size("count:Q", title="rows")} if size else {})
    )
    lines = base.mark_line(strokeWidth=1.5)
    return (_diagonal("prob_pred", "prob_true") + lines + points).properties(
        title="Reliability diagram", width=360, height=360
    )


_THRESHOLDS = OUTPUTS["thresholds"]
#: Columns of ``.metrics.thresholds(...)`` that are rates (the others are counts).
_RATES = ("precision", "recall", "specificity", "accuracy", "mcc")


def threshold_metrics(
    frame: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    metrics: Sequence[str] = ("precision", "recall", "f1"),
) -> alt.Chart | alt.FacetChart:
    """Metrics of ``.metrics.thresholds(...)`` against the threshold: one line per
    metric (colour), one panel per segment.

    The value axis runs from 0 to 1 (from -1 with ``mcc``), the same in every
    panel; undefined (NaN) values are left out, not drawn as 0.
    """
    metrics = list(metrics)
    counts = [m for m in metrics if not (m in _RATES or _F_COLUMN.fullmatch(m))]
    if counts or not metrics:
        msg = (
            f"threshold_metrics: metrics must be rates of the thresholds frame "
            f"({', '.join(_RATES)} or f<beta>), got {metrics!r}"
        )
        raise ValueError(msg)
    names = _checked(
        frame,
        by,
        "threshold_metrics",
        required=("threshold", *metrics),
        known=lambda c: c in _THRESHOLDS or bool(_F_COLUMN.fullmatch(c)),
        point=["threshold"],
    )
    data = _segmented(frame.filter(pl.col("threshold").is_finite()), names)
    long = _no_nan(
        data.unpivot(
            on=metrics,
            index=[_SEGMENT_ID, _SEGMENT, "threshold"],
            variable_name="metric",
            value_name="value",
        )
    )
    low = -1 if "mcc" in metrics else 0
    chart = (
        alt.Chart(long)
        # a row is positive when its score is >= the threshold: between two thresholds
        # t1 < t2 the decisions (and metrics) are those of t2, the step's right end
        .mark_line(interpolate="step-before")
        .encode(
            x=alt.X("threshold:Q"),
            y=alt.Y("value:Q", title=None, scale=alt.Scale(domain=[low, 1])),
            color=alt.Color("metric:N", sort=metrics),
            order="threshold:Q",
            tooltip=[
                *([f"{_SEGMENT}:N"] if names else []),
                alt.Tooltip("threshold:Q", format=".4f"),
                "metric:N",
                alt.Tooltip("value:Q", format=".4f"),
            ],
        )
        .properties(width=300, height=220)
    )
    if names:
        facet = alt.Facet(f"{_SEGMENT}:N", title=_title(names), sort=_order(long))
        chart = chart.facet(facet=facet, columns=2)
    return chart.properties(title="Metrics by threshold")


def gains(frame: pl.DataFrame, *, by: str | Sequence[str] | None = None) -> alt.LayerChart:
    """Cumulative gains of ``.metrics.gains(...)``: the share of the positives found
    (``gain``) against the share of rows taken, highest scores first
    (``cum_share``), one line per segment from (0, 0); the diagonal is a random
    order.  Axes from 0 to 1."""
    names = _checked(
        frame,
        by,
        "gains",
        required=("cum_share", "gain"),
        known=OUTPUTS["gains"].__contains__,
        point=["bucket"],
    )
    data = _no_nan(_segmented(frame, names)).select(
        _SEGMENT_ID, _SEGMENT, *[c for c in OUTPUTS["gains"] if c in frame.columns]
    )
    origin = (
        data.unique(_SEGMENT_ID, maintain_order=True)
        .select(_SEGMENT_ID, _SEGMENT)
        .with_columns(pl.lit(0.0).alias("cum_share"), pl.lit(0.0).alias("gain"))
    )
    data = pl.concat([origin, data], how="diagonal_relaxed").sort(
        _SEGMENT_ID, "cum_share", maintain_order=True
    )
    tooltip = [
        *([f"{_SEGMENT}:N"] if names else []),
        *(["bucket:O"] if "bucket" in data.columns else []),
        alt.Tooltip("cum_share:Q", format=".3f"),
        alt.Tooltip("gain:Q", format=".3f"),
        *([alt.Tooltip("cum_lift:Q", format=".3f")] if "cum_lift" in data.columns else []),
    ]
    lines = (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=_unit_x("cum_share", "share of rows (highest scores first)"),
            y=_unit_y("gain", "share of positives found"),
            order="cum_share:Q",
            tooltip=tooltip,
            **(_segment_colour(names, data) if names else {}),
        )
    )
    return (_diagonal("cum_share", "gain") + lines).properties(
        title="Cumulative gains", width=360, height=360
    )


def _forest_columns(frame: pl.DataFrame, metric: str) -> tuple[pl.DataFrame, str, str, str]:
    """The rows of ``metric`` and its value / low / high columns in ``frame``."""
    if f"{metric}_low" in frame.columns and f"{metric}_high" in frame.columns:
        if metric not in frame.columns:
            msg = f"forest: the frame has {metric}_low / {metric}_high but no {metric!r} column"
            raise ValueError(msg)
        return frame, metric, f"{metric}_low", f"{metric}_high"
    if {"value", "low", "high"} <= set(frame.columns):
        if "baseline_value" in frame.columns and metric != "diff":
            # compare_models: low / high bound diff (model - baseline), not value
            msg = (
                "forest: in a compare_models frame low / high are the interval of `diff`, "
                f"not of the metric's value; pass metric='diff', got metric={metric!r}"
            )
            raise ValueError(msg)
        if "metric" in frame.columns and "baseline_value" not in frame.columns:
            available = frame["metric"].unique(maintain_order=True).to_list()
            if metric not in available:
                msg = (
                    f"forest: metric {metric!r} is not in the frame's `metric` column: {available}"
                )
                raise ValueError(msg)
            frame = frame.filter(pl.col("metric") == metric)
        value = "diff" if "baseline_value" in frame.columns else "value"
        return frame, value, "low", "high"
    msg = (
        f"forest: the frame has no interval of {metric!r}: it needs the columns "
        f"{metric}, {metric}_low, {metric}_high (a method called with ci=) or value, "
        f"low, high; columns: {frame.columns}"
    )
    raise ValueError(msg)


def forest(
    frame: pl.DataFrame,
    *,
    metric: str,
    by: str | Sequence[str] | None = None,
    overall: float | None = None,
) -> alt.LayerChart:
    """Interval ("forest") plot: one row per segment, its value as a dot and its
    interval as a line, a dashed reference line at the overall value.

    Parameters
    ----------
    frame
        A frame with the columns ``<metric>``, ``<metric>_low``, ``<metric>_high``
        (``summary(..., ci=)``, ``averages(..., ci=)`` with ``by=[..., "average"]``,
        ...) or ``value``, ``low``, ``high`` (``compare(...)``: the rows of
        ``metric``; ``compare_models(...)``: ``diff`` and its interval, with a
        reference at 0).
    metric
        The metric drawn.
    by
        The segment column(s): one row each (in the tables' order, nulls last).
        Rows that repeat a segment are refused (segments merged before the call).
    overall
        The reference value; by default the frame's ``overall`` column
        (``compare``), 0 for the differences of ``compare_models``, else none.

    Notes
    -----
    The value axis is not forced to start at 0, so that intervals that do not
    overlap are seen not to.
    """
    names = _by_list(by)
    missing = [c for c in names if c not in frame.columns]
    if missing:
        msg = f"forest: by column(s) {missing} not in the frame (columns: {frame.columns})"
        raise ValueError(msg)
    rows, value, low, high = _forest_columns(frame, metric)
    key = pl.struct(*names) if names else pl.repeat(0, pl.len())  # a literal is one row
    if rows.select(key.is_duplicated().any()).item():
        keys = [c for c in rows.columns if c not in names and not rows.schema[c].is_numeric()]
        keys = [
            c for c in keys if c not in ("metric", "test", "baseline") and rows[c].n_unique() > 1
        ]
        msg = (
            f"forest: {metric!r} has several rows per {names or 'frame'} value: the frame "
            f"holds several segments; pass the columns that tell them apart as "
            f"by={[*names, *keys]!r}"
        )
        raise ValueError(msg)
    data = _no_nan(
        _segmented(rows, names).select(_SEGMENT_ID, _SEGMENT, *_interval(rows, value, low, high))
    )
    reference = overall
    if reference is None and value == "diff":
        reference = 0.0
    elif reference is None and value == "value" and "overall" in rows.columns:
        values = rows["overall"].unique()
        if values.len() > 1:
            msg = (
                "forest: the frame's `overall` differs between rows (control strata); "
                "draw one stratum at a time or pass overall="
            )
            raise ValueError(msg)
        reference = values[0]
    title = "difference to baseline" if value == "diff" else metric
    base = alt.Chart(data).encode(
        y=alt.Y(f"{_SEGMENT}:N", title=_title(names) if names else None, sort=_order(data))
    )
    rules = base.mark_rule(strokeWidth=2).encode(x=_free_x("low", title), x2="high:Q")
    dots = base.mark_point(filled=True, size=60, opacity=1).encode(
        x=_free_x("value", title), tooltip=_values_tooltip(names)
    )
    chart = rules + dots
    if reference is not None:
        ref = pl.DataFrame({"reference": [float(reference)]})
        line = (
            alt.Chart(ref)
            .mark_rule(strokeDash=[4, 4], color="gray")
            .encode(x=_free_x("reference", title), tooltip=alt.Tooltip("reference:Q", format=".4f"))
        )
        chart = line + chart
    height = max(60, 22 * data.height)
    subtitle = "dot: value, line: interval"
    if reference is not None:
        ref_name = "no difference" if value == "diff" and overall is None else "overall"
        subtitle += f", dashed: {ref_name} ({reference:.4g})"
    return chart.properties(
        title=alt.TitleParams(title, subtitle=subtitle),
        width=360,
        height=height,
    )
