"""The curves: ROC, precision-recall, reliability, metrics by threshold, gains."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import altair as alt
import polars as pl

from pl_metrics._core.names import INTERNAL as _INTERNAL
from pl_metrics._core.names import OUTPUTS
from pl_metrics._core.options import checked
from pl_metrics.plot import _thin
from pl_metrics.plot._base import (
    _F_COLUMN,
    _ORDER,
    _PR,
    _ROC,
    _SEGMENT,
    _SEGMENT_ID,
    _by_list,
    _checked,
    _diagonal,
    _key,
    _no_nan,
    _order,
    _parts,
    _segment_colour,
    _segmented,
    _title,
    _unit_x,
    _unit_y,
)


def _curves(
    frame: pl.DataFrame,
    by: list[str],
    *,
    x: str,
    y: str,
    sort: Callable[[pl.DataFrame], pl.DataFrame],
    area: pl.Expr,
    name: str,
    extra: Sequence[str] = (),
    steps: bool = False,
) -> pl.DataFrame:
    """The points drawn of each segment in curve order, its ``area`` and legend
    label (``extra``: columns of ``frame`` carried along, constant within a segment).

    ``area`` (the legend's number) is computed from every point; the points drawn
    are thinned to keep that area (:func:`_thin.keeping_area`: about
    :data:`_thin.MAX_POINTS` a curve, the ends exact).  ``steps``: the curve is a
    staircase (``y[i]`` holds from ``x[i]`` to ``x[i + 1]``), drawn as the polyline
    of its corners, ``(x[i + 1], y[i])`` after each point (without a threshold):
    the trapezoid area of the corners is the staircase's.

    Points with a NaN coordinate are left out.  A segment without points (no
    positives or no negatives) keeps its place in the legend, marked "no curve",
    with one row of null coordinates (not drawn): every segment keeps its colour
    in every chart, and none disappears without a word.
    """
    columns = [c for c in ("threshold", x, y) if c in frame.columns]
    out = [
        pl.DataFrame(
            schema={_ORDER: pl.Int64, _SEGMENT_ID: pl.Int64, _SEGMENT: pl.String}
            | {c: frame.schema[c] for c in extra}
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
                .select(_SEGMENT_ID, _SEGMENT, *extra)
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
        drawn = points.select(_SEGMENT_ID, _SEGMENT, *extra, *columns)
        if steps:
            drawn = _corners(drawn, x, y)
        kept = _thin.keeping_area(drawn[x].to_numpy(), drawn[y].to_numpy())
        out.append(
            drawn[kept]
            .with_row_index(_ORDER)
            .with_columns(
                pl.col(_ORDER).cast(pl.Int64),
                pl.lit(value, pl.Float64).alias(name.lower()),
                pl.lit(legend).alias("legend"),
            )
        )
    return pl.concat(out)


def _corners(points: pl.DataFrame, x: str, y: str) -> pl.DataFrame:
    """The staircase through ``points`` as a polyline: after each point but the
    last, its step's corner ``(x[i + 1], y[i])`` (no threshold: not a point of the
    curve)."""
    position = f"{_INTERNAL}position"
    rows = points.with_row_index(position).with_columns(pl.col(position) * 2)
    unset = [pl.lit(None, points.schema[c]).alias(c) for c in ("threshold",) if c in rows.columns]
    corners = rows.with_columns(pl.col(position) + 1, pl.col(x).shift(-1), *unset)
    return pl.concat([rows, corners.head(max(points.height - 1, 0))]).sort(position).drop(position)


#: Columns of a faceted curve chart: the panel (the ``facet`` values) and the series
#: (the other keys: one colour, the same in every panel).
_PANEL, _SERIES = f"{_INTERNAL}panel", f"{_INTERNAL}series"


def _facet_keys(by: str | Sequence[str] | None, panels: list[str]) -> list[str]:
    """The ``by`` columns, then the ``facet`` columns not among them: every key of a
    curve (the chart's checks read them all)."""
    names = _by_list(by)
    return [*names, *(f for f in panels if f not in names)]


def _faceted_frame(
    frame: pl.DataFrame, names: list[str], facet: list[str]
) -> tuple[pl.DataFrame, list[str], list[str]]:
    """With ``facet``: ``frame`` with its panel and series names (``_key`` of the
    ``facet`` columns and of the other keys ``names``), every key (one curve per
    combination), and those two columns to carry along; without, as it was."""
    if not facet:
        return frame, names, []
    keys = [*facet, *[n for n in names if n not in facet]]
    series = [n for n in names if n not in facet]
    panel = frame.with_columns(_key(facet).alias(_PANEL), _key(series).alias(_SERIES))
    return panel, keys, [_PANEL, _SERIES]


def _facets(
    data: pl.DataFrame,
    layers: Callable[[alt.Chart], list[alt.Chart]],
    *,
    series_title: str,
    name: str | None,
    facet: list[str],
    y: alt.Y,
    corner: str = "right",
) -> alt.FacetChart:
    """Small multiples: a panel per ``facet`` value (in table order), a colour per
    series (the same in every panel), and with ``name`` in each panel's lower
    ``corner`` a line per curve: its series and ``name`` (AUC / AP)."""
    series = data[_SERIES].unique(maintain_order=True).to_list()
    panels = data[_PANEL].unique(maintain_order=True).to_list()
    colour = alt.Color(
        f"{_SERIES}:N", title=series_title, sort=series, scale=alt.Scale(domain=series)
    )
    base = alt.Chart().encode(color=colour)
    facets = alt.Facet(f"{_PANEL}:N", title=_title(facet), sort=panels)
    if name is None:
        return alt.layer(*layers(base), data=data).facet(facet=facets, columns=3)
    value = name.lower()
    label = alt.Text("label:N")
    text = (
        base.transform_filter(f"datum.{_ORDER} == 0")
        .transform_window(rank="row_number()", groupby=[_PANEL], sort=[{"field": _SEGMENT_ID}])
        .transform_joinaggregate(curves="count()", groupby=[_PANEL])
        .transform_calculate(  # the first curve on top, as in the legend
            label=f"datum.{_SERIES} + ' ({name} ' + "
            f"(datum.{value} == null ? 'undefined' : format(datum.{value}, '.3f')) + ')'",
            # the panel's y field (its axis is the lines'): the label's height
            **{y.shorthand.split(":")[0]: "0.02 + 0.07 * (datum.curves - datum.rank)"},
        )
        .mark_text(align=corner, baseline="bottom", dx=-4 if corner == "right" else 4, fontSize=10)
        .encode(x=alt.datum(1.0 if corner == "right" else 0.0), y=y, text=label)
    )
    return alt.layer(*layers(base), text, data=data).facet(facet=facets, columns=3)


def _faceted_diagonal() -> alt.Chart:
    """The dashed diagonal of a panel (one rule per panel: on its first row)."""
    return (
        alt.Chart()
        .transform_window(rank="row_number()", groupby=[_PANEL])
        .transform_filter("datum.rank == 1")
        .mark_rule(strokeDash=[4, 4], color="gray")
        .encode(x=alt.datum(0.0), y=alt.datum(0.0), x2=alt.datum(1.0), y2=alt.datum(1.0))
    )


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


def roc_curve(
    frame: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    facet: str | Sequence[str] | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """ROC curves of ``.metrics.roc_curve(...)``: one line per segment, AUC in the legend,
    the chance diagonal dashed.

    The AUC is the trapezoid area under the segment's points in curve order (fpr,
    then tpr, ascending) - ``sklearn.metrics.roc_auc_score`` of the data the curve
    came from.  Points with a NaN rate (a segment without positives or negatives)
    are left out.  A curve of more than :data:`MAX_POINTS` points is drawn from
    about that many (:func:`pl_metrics.plot._thin.keeping_area`): its first and
    last points, points evenly spaced along its length and both ends of each long
    straight stretch, and more where needed for the trapezoid area of the points
    drawn to be within :data:`AREA_TOLERANCE` (1e-4) of the AUC printed.

    Multiclass: the one-vs-rest curves of ``.metrics.roc_curve`` with a ``{label:
    column}`` score mapping have a ``label`` column and are drawn one per class (and
    per segment of ``by``; ``label`` is the last part of the key)::

        roc_curve(df.metrics.roc_curve("y", {c: f"p_{c}" for c in classes}))

    ``facet``: column(s) of small multiples, a panel per value (in table order), the
    other keys a colour each, the same in every panel, with each curve's AUC in
    the panel's lower right: many curves (classes x models, say) stay apart
    instead of cycling ten colours over thirty lines::

        roc_curve(frame, by="model", facet="model")  # a panel per model, a colour per class
    """
    panels = _by_list(facet)
    names = _checked(
        frame,
        _with_classes(frame, _facet_keys(by, panels)),
        "roc_curve",
        required=("fpr", "tpr"),
        known=_ROC.__contains__,
        point=["threshold"],
    )
    fpr, tpr = pl.col("fpr"), pl.col("tpr")
    auc = ((fpr - fpr.shift(1)) * (tpr + tpr.shift(1)) / 2).sum()
    frame, names, extra = _faceted_frame(frame, names, panels)
    data = _curves(
        frame,
        names,
        x="fpr",
        y="tpr",
        sort=lambda points: points.sort("fpr", "tpr", maintain_order=True),
        area=auc,
        name="AUC",
        extra=extra,
    )
    x = alt.X("fpr:Q", title="false positive rate", scale=alt.Scale(domain=[0, 1]))
    y = alt.Y("tpr:Q", title="true positive rate", scale=alt.Scale(domain=[0, 1]))
    tooltip = ["legend:N", *_threshold(data), "fpr:Q", "tpr:Q"]
    if panels:
        series = [n for n in names if n not in panels]

        def layers(base: alt.Chart) -> list[alt.Chart]:
            line = base.mark_line(interpolate="linear").encode(
                x=x, y=y, detail=f"{_SEGMENT_ID}:N", order=f"{_ORDER}:Q", tooltip=tooltip
            )
            return [_faceted_diagonal(), line]

        return _facets(
            data, layers, series_title=_title(series), name="AUC", facet=panels, y=y
        ).properties(title="ROC curve")
    lines = (
        alt.Chart(data)
        .mark_line(interpolate="linear")
        .encode(
            x=x,
            y=y,
            color=_legend(data, names),
            detail=f"{_SEGMENT_ID}:N",
            order=f"{_ORDER}:Q",
            tooltip=tooltip,
        )
    )
    diagonal = (
        alt.Chart(pl.DataFrame({"fpr": [0.0, 1.0], "tpr": [0.0, 1.0]}))
        .mark_line(strokeDash=[4, 4], color="gray")
        .encode(x="fpr:Q", y="tpr:Q")
    )
    return (diagonal + lines).properties(title="ROC curve", width=360, height=360)


def pr_curve(
    frame: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    facet: str | Sequence[str] | None = None,
) -> alt.Chart | alt.FacetChart:
    """Precision-recall curves of ``.metrics.pr_curve(...)``, average precision in the legend.

    The AP is scikit-learn's step-wise sum over the segment's points in curve
    order (recall descending, then precision ascending):
    ``sum((recall[i] - recall[i + 1]) * precision[i])`` - the area of the steps drawn.
    The steps are drawn as the line through their corners (a corner is no
    operating point: its threshold is null in the tooltip); a curve of more than
    :data:`MAX_POINTS` points and corners is thinned as :func:`roc_curve`'s, the
    area drawn within :data:`AREA_TOLERANCE` of the AP printed.
    One-vs-rest curves with a ``label`` column: one curve per class, and ``facet``
    small multiples, as :func:`roc_curve` (the APs in each panel's lower left).
    """
    panels = _by_list(facet)
    names = _checked(
        frame,
        _with_classes(frame, _facet_keys(by, panels)),
        "pr_curve",
        required=("precision", "recall"),
        known=_PR.__contains__,
        point=["threshold"],
    )
    recall, precision = pl.col("recall"), pl.col("precision")
    ap = ((recall - recall.shift(-1)) * precision).sum()
    frame, names, extra = _faceted_frame(frame, names, panels)
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
        extra=extra,
        steps=True,
    )
    x = alt.X("recall:Q", scale=alt.Scale(domain=[0, 1]))
    y = alt.Y("precision:Q", scale=alt.Scale(domain=[0, 1]))
    tooltip = ["legend:N", *_threshold(data), "recall:Q", "precision:Q"]
    # points run from recall 1 to 0 and precision[i] holds on (recall[i+1], recall[i]]:
    # horizontal first (as scikit-learn's display, drawstyle="steps-post"), the steps'
    # corners among the points (_curves(steps=True)): straight lines between them
    step = {"interpolate": "linear"}
    if panels:
        series = [n for n in names if n not in panels]

        def layers(base: alt.Chart) -> list[alt.Chart]:
            return [
                base.mark_line(**step).encode(
                    x=x, y=y, detail=f"{_SEGMENT_ID}:N", order=f"{_ORDER}:Q", tooltip=tooltip
                )
            ]

        return _facets(
            data, layers, series_title=_title(series), name="AP", facet=panels, y=y, corner="left"
        ).properties(title="Precision-recall curve")
    return (
        alt.Chart(data)
        .mark_line(**step)
        .encode(
            x=x,
            y=y,
            color=_legend(data, names),
            detail=f"{_SEGMENT_ID}:N",
            order=f"{_ORDER}:Q",
            tooltip=tooltip,
        )
        .properties(title="Precision-recall curve", width=360, height=360)
    )


#: A bin with fewer rows than this is drawn hollow in the reliability diagram: its
#: observed frequency is too noisy to read a gap to the diagonal from.
FEW_ROWS = 30
_INTERVAL = ("prob_true_low", "prob_true_high")


def reliability(
    frame: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    facet: str | Sequence[str] | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """Reliability diagram of ``.metrics.calibration_curve(...)``: observed frequency
    (``prob_true``) against mean predicted probability (``prob_pred``) per bin, one
    line per segment, each point sized by its bin's (weighted) row count; the
    diagonal (perfect calibration) dashed.

    Both axes run from 0 to 1: a curve below the diagonal is over-confident, above
    it under-confident.  A bin without rows has no point (the frame has no row for it).
    With ``calibration_curve(ci=...)``, each bin's interval of its observed
    frequency is a vertical line; a bin of fewer than :data:`FEW_ROWS` rows is drawn
    hollow (its frequency is noise), and the tooltip says so.  ``facet``: a panel
    per value of its column(s), a colour per remaining key, as :func:`roc_curve`'s.
    """
    panels = _by_list(facet)
    names = _checked(
        frame,
        # calibration_curve(multi_class="per_class"): per class
        _with_classes(frame, _facet_keys(by, panels)),
        "reliability",
        required=("prob_true", "prob_pred"),
        known=lambda c: c in OUTPUTS["calibration_curve"] or c in _INTERVAL,
        point=["bin"],
    )
    frame, names, extra = _faceted_frame(frame, names, panels)
    data = _no_nan(_segmented(frame, names))
    sort = [_SEGMENT_ID, "prob_pred"]
    shown = [*OUTPUTS["calibration_curve"], *_INTERVAL]
    data = data.sort(sort, maintain_order=True).select(
        _SEGMENT_ID, _SEGMENT, *extra, *[c for c in shown if c in data.columns]
    )
    size = "count" in data.columns
    interval = all(c in data.columns for c in _INTERVAL)
    # rows, not weights: a bin of few rows is marked only where count counts rows
    few_rows = size and data.schema["count"].is_integer()
    if few_rows:
        few = pl.col("count") < FEW_ROWS
        data = data.with_columns(
            pl.when(few).then(pl.lit(f"fewer than {FEW_ROWS} rows")).otherwise(None).alias("note")
        )
    tooltip = [
        *([f"{_SEGMENT}:N"] if names else []),
        *(["bin:O"] if "bin" in data.columns else []),
        alt.Tooltip("prob_pred:Q", format=".3f"),
        alt.Tooltip("prob_true:Q", format=".3f"),
        *([alt.Tooltip(f"{c}:Q", format=".3f") for c in _INTERVAL] if interval else []),
        *([alt.Tooltip("count:Q", format=",.4~g")] if size else []),
        *(["note:N"] if few_rows else []),
    ]
    y = _unit_y("prob_true", "observed frequency")
    encoding = {"x": _unit_x("prob_pred", "mean predicted probability"), "y": y}
    if panels:  # the data and the colour come with the panels (_facets)
        base = alt.Chart().encode(**encoding, order="prob_pred:Q", detail=f"{_SEGMENT_ID}:N")
    else:
        base = alt.Chart(data).encode(
            **encoding,
            order="prob_pred:Q",
            **(_segment_colour(names, data) if names else {}),
        )
    sized = {"size": alt.Size("count:Q", title="rows")} if size else {}
    points = [base.mark_circle(opacity=0.85).encode(tooltip=tooltip, **sized)]
    if few_rows:  # a bin of few rows: its outline only
        points = [
            points[0].transform_filter("datum.note == null"),
            base.mark_point(filled=False, strokeWidth=1.5, opacity=1)
            .encode(tooltip=tooltip, **sized)
            .transform_filter("datum.note != null"),
        ]
    lines = base.mark_line(strokeWidth=1.5)
    layers = [_faceted_diagonal() if panels else _diagonal("prob_pred", "prob_true"), lines]
    if interval:
        layers.append(
            base.mark_rule(strokeWidth=1.5, opacity=0.6).encode(
                y=_unit_y("prob_true_low", "observed frequency"), y2="prob_true_high:Q"
            )
        )
    layers += points
    notes = [
        *(["line: the bin's interval"] if interval else []),
        *([f"hollow: fewer than {FEW_ROWS} rows"] if few_rows else []),
    ]
    subtitle = "; ".join(notes)
    if panels:
        series = [n for n in names if n not in panels]

        def coloured(base: alt.Chart) -> list[alt.Chart]:
            colour = base.encoding.color  # the series' colour, the same in every panel
            return [layers[0], *(layer.encode(color=colour) for layer in layers[1:])]

        chart: alt.LayerChart | alt.FacetChart = _facets(
            data, coloured, series_title=_title(series), name=None, facet=panels, y=y
        )
    else:
        chart = alt.layer(*layers).properties(width=360, height=360)
    return chart.properties(
        title=alt.TitleParams("Reliability diagram", subtitle=subtitle)
        if subtitle
        else "Reliability diagram"
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
    panel; undefined (NaN) values are left out, not drawn as 0.  A segment of more
    than :data:`MAX_POINTS` thresholds is drawn at that many, evenly spaced in the
    frame's order, the first and the last kept (:func:`pl_metrics.plot._thin.evenly`).
    """
    metrics = list(metrics)
    checked("threshold_metrics", metrics=metrics, rates=_RATES)
    names = _checked(
        frame,
        by,
        "threshold_metrics",
        required=("threshold", *metrics),
        known=lambda c: c in _THRESHOLDS or bool(_F_COLUMN.fullmatch(c)),
        point=["threshold"],
    )
    data = _segmented(frame.filter(pl.col("threshold").is_finite()), names)
    if data.height > _thin.MAX_POINTS:
        parts = data.partition_by(_SEGMENT_ID, maintain_order=True)
        data = pl.concat([part[_thin.evenly(part.height)] for part in parts])
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


def gains(
    frame: pl.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    facet: str | Sequence[str] | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """Cumulative gains of ``.metrics.gains(...)``: the share of the positives found
    (``gain``) against the share of rows taken, highest scores first
    (``cum_share``), one line per segment from (0, 0); the diagonal is a random
    order.  Axes from 0 to 1.  ``facet``: a panel per value of its column(s), a
    colour per remaining key, as :func:`roc_curve`'s."""
    panels = _by_list(facet)
    names = _checked(
        frame,
        _facet_keys(by, panels),
        "gains",
        required=("cum_share", "gain"),
        known=OUTPUTS["gains"].__contains__,
        point=["bucket"],
    )
    frame, names, extra = _faceted_frame(frame, names, panels)
    data = _no_nan(_segmented(frame, names)).select(
        _SEGMENT_ID, _SEGMENT, *extra, *[c for c in OUTPUTS["gains"] if c in frame.columns]
    )
    origin = (
        data.unique(_SEGMENT_ID, maintain_order=True)
        .select(_SEGMENT_ID, _SEGMENT, *extra)
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
    x = _unit_x("cum_share", "share of rows (highest scores first)")
    y = _unit_y("gain", "share of positives found")
    if panels:
        series = [n for n in names if n not in panels]

        def layers(base: alt.Chart) -> list[alt.Chart]:
            line = base.mark_line(point=True).encode(
                x=x, y=y, order="cum_share:Q", detail=f"{_SEGMENT_ID}:N", tooltip=tooltip
            )
            return [_faceted_diagonal(), line]

        chart = _facets(data, layers, series_title=_title(series), name=None, facet=panels, y=y)
        return chart.properties(title="Cumulative gains")
    lines = (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=x,
            y=y,
            order="cum_share:Q",
            tooltip=tooltip,
            **(_segment_colour(names, data) if names else {}),
        )
    )
    return (_diagonal("cum_share", "gain") + lines).properties(
        title="Cumulative gains", width=360, height=360
    )
