"""What the charts share: the checks of a frame, its segments, axes and colours."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import altair as alt
import polars as pl

from pl_metrics._core import forms
from pl_metrics._core.names import F_NAME, OUTPUTS
from pl_metrics._core.names import INTERNAL as _INTERNAL

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
_F_COLUMN = F_NAME


#: ``by``: None, a column name or a list of distinct names (the form's home: forms)
_by_list = forms.segment_columns


def _by_found(chart: str, names: Sequence[str], columns: Sequence[str]) -> None:
    """The chart's ``by`` columns (``names``) are columns of its frame (``columns``)."""
    missing = [c for c in names if c not in columns]
    if missing:
        msg = f"{chart}: by column(s) {missing} not in the frame (columns: {columns})"
        raise ValueError(msg)


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
    _by_found(chart, names, columns)
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
    if point and _repeats(frame, names, point):
        where = f"per {names} value" if names else "in the frame"
        msg = (
            f"{chart}: {point} repeats {where}: the frame holds several segments; "
            "pass the columns that tell them apart as by="
        )
        raise ValueError(msg)
    return names


def _repeats(frame: pl.DataFrame, names: list[str], point: list[str]) -> bool:
    """Whether a ``point`` key repeats within a segment (``names``).  The library's
    curves hold each segment's rows together, their one point column strictly
    monotonic: that is read in one pass over the rows; any other frame is hashed
    (2.5-3.5 s on a 5M-row curve, most of a chart's time)."""
    if len(point) == 1:
        x = pl.col(point[0])
        first = pl.int_range(pl.len()) == 0
        same = ~first
        for c in names:
            same &= pl.col(c).eq_missing(pl.col(c).shift())
        same_next = same.shift(-1).fill_null(value=False)
        # each segment one run of rows (its first rows' keys distinct), the point
        # strictly down (or up) within it, a null only at a run's last row (the PR
        # curve's point of recall 0): no repeat; anything else (NaN too) is hashed
        step_ok = x.is_null() | x.shift().is_null() | ~same
        read = frame.select(
            (~same).sum().alias("runs"),
            ((x < x.shift()).fill_null(value=False) | step_ok).all().alias("down"),
            ((x > x.shift()).fill_null(value=False) | step_ok).all().alias("up"),
            (x.is_null() & same_next).any().alias("inner_null"),
        ).row(0)
        runs, down, up, inner_null = read
        if (down or up) and not inner_null:
            segments = frame.filter(~same).select(names).unique().height if names else 1
            if runs in (segments, 0):
                return False
    return bool(frame.select(pl.struct(*names, *point).is_duplicated().any()).item())


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
