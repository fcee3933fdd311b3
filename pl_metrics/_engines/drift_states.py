"""The states of ``drift`` on the engines, made by polars on each shard (a Spark
partition, a Dask partition or file) and summed on the driver (:mod:`.drift`).

Each state is of one side: the reference rows or the current rows, either the rows
of their own frame (``flag`` None) or the rows of one frame that ``flag`` (the
Boolean ``reference=`` expression, evaluated on each shard) marks as the reference
(``side`` True) or not.  All are counts, so the shards' states merge by summing
over equal keys (:func:`pl_metrics.state.sum_states`):

- :func:`side_rows`: per segment and column, the side's rows, its non-null values
  (a numeric column's, as ``drift`` compares them: NaN as null), its integers at or
  beyond +-2**53 (refused) and the flag's nulls (refused);
- :func:`side_values`: per segment, column and value, the side's rows holding the
  value, within one slice (low, high] of each numeric column's value range (or a
  hashed sample of the distinct (segment, value) pairs, for the slices' bounds);
- :func:`side_bins`: per segment, column and bin, the side's rows (a numeric
  column's bins cut at the reference's edges, found before; a category's bin its
  value; the null bin null).

Every function takes ``weight`` (always None: drift compares rows) because the
engines' job passes it to every state maker.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from pl_metrics._core import checks, names
from pl_metrics._drift import metrics as drift_metrics

#: The states' keys after ``*by``, their summed columns and their weight totals
#: (:data:`pl_metrics._engines.jobs._STATES`' shape).
ROWS_SHAPE = (("column",), ("rows", "values", "inexact", "flag_nulls"), ())
VALUES_SHAPE = (("column", "value"), ("rows",), ())
BINS_SHAPE = (("column", "bin"), ("rows",), ())


def _keyed(
    lf: pl.LazyFrame, flag: pl.Expr | None, side: bool, by: object
) -> tuple[pl.LazyFrame, list[str], list[str]]:
    """The side's rows (a null flag: on neither side, counted by :func:`side_rows`)
    with their segment keys under internal names; those names and the output ones."""
    rows = lf if flag is None else lf.filter(flag if side else ~flag)
    segments = checks.normalize_by(by)
    if segments:
        return (
            names.with_segment_keys(rows, segments),
            names.segment_keys(segments),
            list(segments.names),
        )
    return rows.with_columns(pl.lit(True).alias(names.ALL)), [names.ALL], []


def _value(column: str, numeric: Sequence[str]) -> pl.Expr:
    """The column as ``drift`` compares it (``numeric``: the numeric columns)."""
    return drift_metrics._value(column, "numeric" if column in numeric else "categorical")


def _named(frame: pl.DataFrame, keys: list[str], given: list[str]) -> pl.LazyFrame:
    """``frame`` with its internal keys renamed to the ``by`` names (no ``by``: dropped)."""
    if not given:
        return frame.drop(keys).lazy()
    return frame.rename(dict(zip(keys, given, strict=True))).lazy()


def side_rows(  # noqa: PLR0917 - the side, then its numeric columns
    lf: pl.LazyFrame,
    columns: Sequence[str],
    flag: pl.Expr | None,
    side: bool,
    numeric: Sequence[str],
    exact: Sequence[str],
    *,
    by: object = None,
    weight: None = None,
) -> pl.LazyFrame:
    """``*by, column, rows, values, inexact, flag_nulls``: per segment and column, the
    side's rows, the column's non-null values (numeric columns; else 0), its values
    at or beyond +-2**53 (the ``exact`` columns: integers or decimals on a side) and
    the flag's nulls on the shard's rows (the same on every row of the state)."""
    del weight
    keyed, keys, given = _keyed(lf, flag, side, by)
    aggs = [pl.len().cast(pl.Int64).alias("rows")]
    for i, column in enumerate(columns):
        counted = (
            drift_metrics._value(column, "numeric").count() if column in numeric else pl.lit(0)
        )
        aggs.append(counted.cast(pl.Int64).alias(f"v{i}"))
        inexact = checks.beyond_exact_float(pl.col(column)).sum() if column in exact else pl.lit(0)
        aggs.append(inexact.cast(pl.Int64).alias(f"x{i}"))
    # without segments one row, rows or not: it carries the shard's null flags
    grouped = (
        keyed.group_by(keys).agg(aggs)
        if given
        else keyed.select(*aggs, pl.lit(True).alias(keys[0]))
    )
    nulls = lf.select(flag.null_count()) if flag is not None else pl.LazyFrame({"n": [0]})
    found, null_count = pl.collect_all([grouped, nulls])
    flag_nulls = pl.lit(int(null_count.item()), pl.Int64).alias("flag_nulls")
    parts = [
        found.select(
            *keys,
            pl.lit(column, pl.String).alias("column"),
            "rows",
            pl.col(f"v{i}").alias("values"),
            pl.col(f"x{i}").alias("inexact"),
            flag_nulls,
        )
        for i, column in enumerate(columns)
    ]
    return _named(pl.concat(parts), keys, given)


def side_values(
    lf: pl.LazyFrame,
    slices: Sequence[tuple[str, float, float, int]],
    flag: pl.Expr | None,
    side: bool,
    *,
    by: object = None,
    weight: None = None,
) -> pl.LazyFrame:
    """``*by, column, value, rows``: per segment, the side's rows of each distinct
    value of each ``(column, low, high, step)`` slice (low, high] (a low of -inf:
    every non-null value up to high), numeric columns as ``drift`` compares them
    (Float64, NaN as null, -0.0 as 0.0); ``step`` > 1: only the (segment, value)
    pairs whose hash is a multiple of ``step`` (``drift``'s sample for the slices'
    bounds)."""
    del weight
    keyed, keys, given = _keyed(lf, flag, side, by)
    x = pl.col(drift_metrics._VALUE)
    # drift's sample: the reference's values, the current's pairs
    hashed = pl.struct(*([] if side else keys), drift_metrics._VALUE).hash(seed=0)
    queries = []
    for column, low, high, step in slices:
        inside = in_slice(x, low, high, step, hashed)
        query = (
            keyed.select(*keys, drift_metrics._value(column, "numeric").alias(drift_metrics._VALUE))
            .filter(inside)
            .group_by(*keys, drift_metrics._VALUE)
            .agg(pl.len().cast(pl.Int64).alias("rows"))
            .select(*keys, pl.lit(column, pl.String).alias("column"), x.alias("value"), "rows")
        )
        queries.append(query)
    found = pl.concat(pl.collect_all(queries)) if queries else None
    if found is None:
        empty = keyed.select(*keys).head(0).collect()
        schema = {"column": pl.String, "value": pl.Float64, "rows": pl.Int64}
        found = empty.with_columns(pl.lit(None, d).alias(c) for c, d in schema.items())
    return _named(found, keys, given)


def in_slice(x: pl.Expr, low: float, high: float, step: int, hashed: pl.Expr) -> pl.Expr:
    """Row-wise: ``x`` lies in the slice (low, high] of its range (a low of -inf: every
    non-null value up to high); ``step`` > 1: only where ``hashed`` (of the value, or
    of the (segment, value) pair) is a multiple of ``step``, the hashed sample the
    slices' bounds are read from (:func:`.drift.slice_bounds`; also calibration's
    quantile bins, :mod:`.calibration_edges`)."""
    inside = x.is_not_null() if low == -math.inf else x > low
    if high != math.inf:
        inside &= x <= high
    return inside & (hashed % step == 0) if step > 1 else inside


def side_bins(  # noqa: PLR0917 - the side, its numeric columns and their edges
    lf: pl.LazyFrame,
    columns: Sequence[str],
    flag: pl.Expr | None,
    side: bool,
    numeric: Sequence[str],
    edges: dict[str, list[float]],
    *,
    by: object = None,
    weight: None = None,
) -> pl.LazyFrame:
    """``*by, column, bin, rows``: per segment, the side's rows in each bin of each
    column (``drift``'s bins: a numeric column's index among its ``edges``, as text; a
    category's value; null: the null bin)."""
    del weight
    keyed, keys, given = _keyed(lf, flag, side, by)
    queries = [
        keyed.group_by(
            *keys, drift_metrics._bin(_value(c, numeric), edges.get(c)).cast(pl.String).alias("bin")
        )
        .agg(pl.len().cast(pl.Int64).alias("rows"))
        .select(*keys, pl.lit(c, pl.String).alias("column"), "bin", "rows")
        for c in columns
    ]
    return _named(pl.concat(pl.collect_all(queries)), keys, given)


__all__ = [
    "BINS_SHAPE",
    "ROWS_SHAPE",
    "VALUES_SHAPE",
    "in_slice",
    "side_bins",
    "side_rows",
    "side_values",
]
