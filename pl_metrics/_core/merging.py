"""The merge of mergeable states (:mod:`pl_metrics.state`): the sum of concatenated
states over equal keys, and the data checks a state passes before it is finished."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import TypeVar

import polars as pl

from pl_metrics._core import checks, names
from pl_metrics._core.names import ALL

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
_INT64_MAX = 2**63 - 1


def sum_states(state: FrameT, keys: Sequence[str], values: Sequence[str]) -> FrameT:
    """The merge of concatenated states: the ``values`` summed over equal ``keys``.

    Integer counts are summed in Int128, so a merge never wraps around; the
    finishing step (:func:`merged`) refuses sums beyond Int64.
    """
    schema = state.collect_schema()
    sums = [
        pl.col(c).cast(pl.Int128).sum() if schema[c].is_integer() else pl.col(c).sum()
        for c in values
    ]
    return state.group_by(list(keys)).agg(sums)


def row_checks(
    schema: pl.Schema,
    columns: Mapping[str, str],
    values: Sequence[str],
    label_columns: Sequence[str],
) -> list[tuple[pl.Expr, checks.Check]]:
    """The row checks of :func:`merged` (on the internal names): each a count of bad
    rows and its error."""
    bad: list[tuple[pl.Expr, checks.Check]] = []

    def check(public: str, kind: str, wrong: pl.Expr, what: str) -> None:
        name = f"{names.INTERNAL}{kind}_{public}"
        bad.append((wrong.sum().alias(name), (name, partial(_state_error, public, what))))

    for public, internal in columns.items():
        x = pl.col(internal)
        if public in values:
            finite = x.cast(pl.Float64).is_finite() if schema[public].is_float() else pl.lit(True)
            wrong = (x.is_null() | ~finite | (x < 0)).fill_null(True)
            check(public, "bad", wrong, "null, NaN, infinite or negative counts")
        elif public == "score":
            wrong = (x.is_null() | ~x.cast(pl.Float64).is_finite()).fill_null(True)
            check(public, "bad", wrong, "null, NaN or infinite scores")
            if checks.ties_as_float(
                schema[public]
            ):  # Float64 would tie them: the frames refuse them
                what = "integer scores at or beyond +-2**53 (Float64 would tie them)"
                check(public, "inexact", checks.beyond_exact_float(x), what)
        else:
            check(public, "bad", x.is_null(), "null labels")
    for public in label_columns:
        check(public, "nan", checks.not_a_label(columns[public]), "not class labels")
    return bad


def merged(
    state: pl.LazyFrame,
    by: names.Segments,
    columns: Mapping[str, str],
    values: Sequence[str],
    label_columns: Sequence[str] = (),
) -> pl.LazyFrame:
    """Check the state, rename its columns to the internal names and sum equal keys.

    ``columns``: public -> internal names of the state's own columns; ``values``
    (public names) are the counts.  The data checks run at collect: counts must
    be non-null, finite and >= 0, the labels / scores non-null (scores finite,
    integer or decimal ones below 2^53), and integer counts of a segment must sum
    below 2^63.  A ``score`` column is merged as Float64, -0.0 and 0.0 as one.
    """
    schema = state.collect_schema()
    checks.check_columns(schema, **{f"state column {c}": c for c in [*by.names, *columns]})
    for column in values:
        if not (schema[column].is_numeric() and schema[column] != pl.Boolean):
            msg = f"state column {column!r} must be numeric, got {schema[column]}"
            raise pl.exceptions.SchemaError(msg)
    keys = names.segment_keys(by) if by else []
    frame = names.with_segment_keys(state, by).select(
        *keys, *(pl.col(public).alias(internal) for public, internal in columns.items())
    )
    bad = row_checks(schema, columns, values, label_columns)

    def check_rows(df: pl.DataFrame) -> pl.DataFrame:
        counts = df.select(expr for expr, _ in bad)
        for column, error in (c for _, c in bad):
            if counts[column][0]:
                raise error(int(counts[column][0]))
        return df

    internal_values = [columns[c] for c in values]
    internal_keys = [c for c in columns.values() if c not in internal_values]
    checked = frame.map_batches(check_rows)
    if "score" in columns:  # as Float64; -0.0 and 0.0 one threshold, merged as one
        checked = checked.with_columns(pl.col(columns["score"]).cast(pl.Float64) + 0.0)
    merged = sum_states(checked, [*keys, *internal_keys], internal_values)
    integer = [columns[c] for c in values if schema[c].is_integer()]
    floats = [c for c in values if schema[c].is_float()]  # public names (the message's)
    whole, weighted = f"{names.INTERNAL}total_int", f"{names.INTERNAL}total_float"

    def check_totals(df: pl.DataFrame) -> pl.DataFrame:
        """Each segment's total: integer counts below 2^63, weighted counts within
        ``checks.weight_total_too_large``."""
        sums = [
            pl.sum_horizontal(pl.col(c) for c in counted).sum().alias(name)
            for name, counted in ((whole, integer), (weighted, [columns[c] for c in floats]))
            if counted
        ]
        totals = df.group_by(keys).agg(sums) if keys else df.select(sums)
        if integer and (over := int((totals[whole] > _INT64_MAX).sum())):
            raise checks.Bad.count_overflow(over)
        if floats:
            over = int(totals.select(checks.weight_total_too_large(pl.col(weighted)).sum()).item())
            if over:
                raise checks.Bad.state_weight_overflow(floats[0], over)
        return df

    if integer or floats:
        merged = merged.map_batches(check_totals)
    merged = merged.with_columns(pl.col(c).cast(pl.Int64) for c in integer)
    if not by:
        merged = merged.with_columns(pl.lit(0, pl.Int8).alias(ALL))
    return merged


def _state_error(column: str, what: str, n: int) -> checks.DataError:
    return checks.Bad.state(column, n, what)


__all__ = ["merged", "row_checks", "sum_states"]
