"""Per segment: the confusion matrix, per-class scores, over time, intervals, drift."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

import altair as alt
import polars as pl

from pl_metrics._core.names import INTERNAL as _INTERNAL
from pl_metrics._core.names import OUTPUTS
from pl_metrics._core.options import checked
from pl_metrics.plot._base import (
    _CONFUSION,
    _F_COLUMN,
    _PER_CLASS,
    _SEGMENT,
    _SEGMENT_ID,
    _by_found,
    _by_list,
    _checked,
    _free_x,
    _interval,
    _no_nan,
    _order,
    _segmented,
    _title,
    _values_tooltip,
)

_BIN_ORDER = f"{_INTERNAL}bin_order"  # a bin's position in its column's bins


def confusion_matrix(frame: pl.DataFrame, *, by: str | Sequence[str] | None = None) -> alt.Chart:
    """Heatmap of ``.metrics.confusion_matrix(...)``: colour = row-normalised rate
    (recall of the actual class), text = count (:func:`readable_count`: 1,803 or
    1.8M); one panel per segment."""
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
    data = data.with_columns(
        pl.Series("shown", [readable_count(c) for c in data["count"]], pl.String)
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
        text=alt.Text("shown:N"),
        color=alt.condition(alt.datum.rate > 0.5, alt.value("white"), alt.value("black")),
    )
    chart = (heat + text).properties(width=240, height=240)
    if names:
        facet = alt.Facet(f"{_SEGMENT}:N", title=_title(names), sort=_order(data))
        panels = data[_SEGMENT_ID].n_unique()
        chart = chart.facet(facet=facet, columns=2 if panels in (2, 4) else 3)
    return chart.properties(title="Confusion matrix")


def readable_count(count: float | None) -> str:
    """A count as a reader takes it in: below a million, a whole number with its
    thousands (``1,803``; a weighted count from 1,000 rounded to a whole number,
    below with 4 significant digits: ``12.5``); from a million, 3 significant
    digits and M, B or T (``1.8M``, ``12.3B``); null / NaN as empty.  (Vega's
    ``,.4~g`` wrote ``1.803e+6``, and ``1.235e+4`` for 12,345.)"""
    if count is None or math.isnan(count):
        return ""
    if abs(count) < 1e6:
        whole = float(count).is_integer() or abs(count) >= 1000
        return f"{count:,.0f}" if whole else f"{count:.4g}"
    size = abs(float(f"{count:.3g}"))  # 999,999,999 reads 1B, not 1e+03M
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if scale <= size < 1000 * scale:
            return f"{count / scale:.3g}{suffix}"
    return f"{count:.3g}"


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


def over_time(
    frame: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    dash: str | None = None,
) -> alt.Chart:
    """Metrics of ``.metrics.over_time(...)`` against the window's end: one line per
    segment, the ``low``-``high`` interval as a band when the frame has it, one
    panel per metric (each on its own y scale).

    ``dash``: one of the ``by`` columns drawn as the line's dash instead of its colour
    (the report's realized and estimated lines of a segment: one colour, solid and
    dashed)."""
    names = _checked(
        frame,
        by,
        "over_time",
        required=("window_end", "metric", "value"),
        known=_OVER_TIME.__contains__,
        point=["window_end", "metric"],
    )
    checked("chart dash", dash=dash, by_names=names)
    coloured = [n for n in names if n != dash]
    data = _no_nan(_segmented(frame, coloured)).with_columns(pl.col("window_end").alias("time"))
    band = "low" in data.columns
    detail: Any = f"{_SEGMENT_ID}:N"
    dashes: dict[str, Any] = {}  # on the line only: an area has no dash
    if dash is not None:
        detail = [detail, f"{dash}:N"]
        dashes["strokeDash"] = alt.StrokeDash(
            f"{dash}:N", title=f"{dash} (solid, dashed)", sort=_order(data, dash)
        )
    base = alt.Chart(data).encode(
        x=alt.X("time:T", title="window end", axis=alt.Axis(format="%Y-%m-%d", labelAngle=-40)),
        color=alt.Color(f"{_SEGMENT}:N", title=_title(coloured), sort=_order(data)),
        detail=detail,
    )
    tooltip = [
        *([f"{_SEGMENT}:N"] if coloured else []),
        *([f"{dash}:N"] if dash is not None else []),
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
        y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)), tooltip=tooltip, **dashes
    )
    layers = line
    if band:
        layers = base.mark_area(opacity=0.15).encode(y="low:Q", y2="high:Q") + line
    metrics = data["metric"].unique(maintain_order=True).to_list()
    chart = layers.properties(width=480, height=160).facet(
        row=alt.Row("metric:N", title=None, sort=metrics)
    )
    return chart.resolve_scale(y="independent").properties(title="Metrics over time")


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
    _by_found("forest", names, frame.columns)
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


def drift(
    frame: pl.DataFrame, *, by: str | Sequence[str] | None = None
) -> alt.FacetChart | alt.HConcatChart:
    """Bins of ``.metrics.drift_bins(...)``: per column a panel of bars, each bin's share
    of the reference rows (grey) beside its share of the current rows (colour), the
    bins in their order (numbers ascending, categories sorted, the null bin last,
    read ``"(null)"``); with ``by``, a row of panels per segment.

    The share axis starts at 0; each column's panel has its own bins.  A bin the
    current rows lack shows the reference's bar alone (the bins ``psi`` and
    ``js_distance`` sum over).
    """
    names = _checked(
        frame,
        by,
        "drift",
        required=("column", "bin", "reference_share", "current_share"),
        known=OUTPUTS["drift_bins"].__contains__,
        point=["column", "bin"],
    )
    # each column's bins in order whatever the rows' order: by lower edge (numbers),
    # else by name (categories), the null bin (no edge, no name) last
    data = _segmented(frame, names)
    bin_order = ["lower", "bin"] if "lower" in data.columns else ["bin"]
    data = data.sort([_SEGMENT_ID, "column", *bin_order], nulls_last=True).with_columns(
        pl.col("bin").fill_null("(null)"),
        pl.int_range(pl.len()).over(_SEGMENT_ID, "column").alias(_BIN_ORDER),
    )
    long = data.unpivot(
        on=["reference_share", "current_share"],
        index=[_SEGMENT_ID, _SEGMENT, "column", "bin", _BIN_ORDER],
        variable_name="side",
        value_name="share",
    ).with_columns(pl.col("side").str.strip_suffix("_share"))
    sides = ["reference", "current"]
    chart = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X(
                "bin:N",
                title=None,
                sort=alt.EncodingSortField(field=_BIN_ORDER, op="min"),
                axis=alt.Axis(labelAngle=-40, labelLimit=120),
            ),
            xOffset=alt.XOffset("side:N", sort=sides),
            y=alt.Y("share:Q", title="share of rows", scale=alt.Scale(domainMin=0)),
            color=alt.Color(
                "side:N",
                sort=sides,
                scale=alt.Scale(domain=sides, range=["#b0b0b0", "#4c78a8"]),
                title=None,
            ),
            tooltip=[
                *([f"{_SEGMENT}:N"] if names else []),
                "column:N",
                "bin:N",
                "side:N",
                alt.Tooltip("share:Q", format=".3f"),
            ],
        )
        .properties(width=alt.Step(14), height=160)
    )
    columns = frame["column"].unique(maintain_order=True).to_list()  # the order given
    title = "Drift: share of rows per bin, reference and current"
    if not names:
        return (
            chart.facet(column=alt.Facet("column:N", title=None, sort=columns))
            .resolve_scale(x="independent")
            .properties(title=title)
        )
    # by segment: a column of panels per drifted column (its bins, shared by its
    # segments), side by side; a grid of both facets would place the columns' titles
    # by the widest row's panels, over the wrong bins
    rows = _order(long)
    panels = [
        chart.transform_filter(alt.datum.column == column)
        .facet(
            row=alt.Row(
                f"{_SEGMENT}:N",
                title=_title(names) if i == 0 else None,
                sort=rows,
                header=alt.Header(labels=i == 0),
            )
        )
        .properties(title=alt.TitleParams(column, anchor="middle", fontSize=11))
        for i, column in enumerate(columns)
    ]
    return alt.hconcat(*panels).properties(title=title)
