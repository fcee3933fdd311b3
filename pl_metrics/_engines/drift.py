"""``drift`` on the engines: the frame method's numbers from states of counts, with the
driver's memory bounded by segments, categories and one slice of values, never by
the rows.

``reference=`` is a Boolean polars expression (evaluated on each shard: its rows
are the reference, the others the current rows) or a second frame of the same
engine.  Each step is one job per side (:mod:`.drift_states`, summed on the
driver), in the frame method's order:

1. **rows** (:func:`.drift_states.side_rows`): each side's rows per segment, each
   column's non-null values, the integers at or beyond +-2**53 and the flag's
   nulls: the frame method's data checks, with its messages, from the counts of all
   shards (the options and schema checks ran before any job: the frame method on
   an empty frame of the engine's schema);
2. **the sorted values** of each numeric column, in slices (low, high] of its value
   range, each slice's distinct (segment, value) pairs counted on the shards and
   summed here: the reference's quantile edges (its values of the ranks that
   ``numpy.quantile`` reads, :class:`pl_metrics._drift.metrics._Picked`) and KS and
   Wasserstein (:class:`pl_metrics._drift.distances.Sweep`, which carries what a
   slice needs of the slices below it) are read from them exactly as the frame
   method reads its own slices out of core.  One slice holds every value up to
   ``pl_metrics._drift.metrics.SLICE`` rows of both sides; above it the slices'
   bounds come from a hashed sample of the pairs (the frame method's), each slice
   about SLICE / 2 distinct pairs: the driver holds one slice at a time;
3. **bins** (:func:`.drift_states.side_bins`): each side's rows per bin, a numeric
   column's bins cut at the edges of step 2, a category's bin per value (bounded by
   the categories), then PSI and Jensen-Shannon from the frame method's own shares
   (``_shares``, ``_divergence_table``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics import metrics
from pl_metrics._core import checks, names
from pl_metrics._drift import metrics as drift_metrics
from pl_metrics._drift.distances import Sweep
from pl_metrics._engines import jobs

if TYPE_CHECKING:
    from pl_metrics._engines.declared import Engine

#: How the engine computes it (its docstring's first line).
HOW = (
    "each side's counts per segment, per bin and per value (in slices of each numeric "
    "column's range), summed on the driver"
)
_ID = f"{names.INTERNAL}id"


class _Side:
    """One side's rows: the engine's handle and schema, the flag marking it (None: a
    frame of its own) and its segments."""

    def __init__(  # noqa: PLR0917 - the side's parts
        self,
        engine: Engine,
        handle: Any,
        schema: pl.Schema,
        flag: pl.Expr | None,
        reference: bool,
        by: object,
        options: dict[str, Any],
    ) -> None:
        self.engine, self.handle, self.schema = engine, handle, schema
        self.flag, self.reference, self.by, self.options = flag, reference, by, options

    def run(self, method: str, *args: Any) -> pl.DataFrame:
        """The state ``method`` of this side's rows, summed over the shards."""
        job = jobs.job(
            method,
            (*args[:1], self.flag, self.reference, *args[1:]),
            by=self.by,
            chunk_rows=self.engine.chunk_rows(),
        )
        return self.engine.run(self.handle, job, self.schema, **self.options)


def _is_engine_frame(engine: Engine, reference: object) -> bool:
    """``reference`` is rows of ``engine``: a Spark frame; a ``dask.dataframe`` or
    Parquet path(s)."""
    if engine.name == "Spark":
        return hasattr(reference, "sparkSession") and hasattr(reference, "schema")
    if hasattr(reference, "to_delayed") and hasattr(reference, "npartitions"):
        return True
    items = [reference] if isinstance(reference, (str, Path)) else reference
    return (
        isinstance(items, (list, tuple))
        and bool(items)
        and all(isinstance(i, (str, Path)) for i in items)
    )


def _reference_type(engine: Engine, reference: object) -> TypeError:
    frame = "a Spark DataFrame" if engine.name == "Spark" else "a dask.dataframe or Parquet path(s)"
    return TypeError(
        f"`reference` on {engine.name} must be a Boolean polars expression marking the "
        f"reference rows (evaluated on each partition) or {frame} of the reference rows, "
        f"got {type(reference).__module__}.{type(reference).__qualname__}"
    )


def _sides(
    engine: Engine, data: Any, values: dict[str, Any], options: dict[str, Any]
) -> tuple[_Side, _Side]:
    """(the reference side, the current side) after the frame method's option and
    schema checks on no rows of the engines' schemas (before any job)."""
    columns = drift_metrics.check_column_list(values["columns"])
    reference, by = values["reference"], values["by"]
    flag = reference if isinstance(reference, pl.Expr) else None
    if flag is None and not _is_engine_frame(engine, reference):
        raise _reference_type(engine, reference)
    segments = checks.normalize_by(by)
    read = jobs.read_columns([columns, flag, *segments.given])
    handle, schema, where = engine.prepare(data, read)
    ref_handle, ref_schema, ref_where = handle, schema, None
    if flag is None:
        ref_handle, ref_schema, ref_where = engine.prepare(reference, columns)
    given = flag if flag is not None else pl.LazyFrame(schema=ref_schema)
    try:
        metrics(pl.LazyFrame(schema=schema)).drift(
            columns, reference=given, by=by, bins=values["bins"], eps=values["eps"]
        )
    except (pl.exceptions.ColumnNotFoundError, pl.exceptions.SchemaError) as exc:
        raise jobs.named(exc, [where if ref_where is None else None]) from exc
    return (
        _Side(engine, ref_handle, ref_schema, flag, True, None, options),
        _Side(engine, handle, schema, flag, False, by, options),
    )


def call(
    engine: Engine, data: Any, values: dict[str, Any], options: dict[str, Any]
) -> pl.DataFrame:
    """``.metrics.drift`` of the engine's rows (``values``: its arguments)."""
    reference, current = _sides(engine, data, values, options)
    columns = drift_metrics.check_column_list(values["columns"])
    kinds = drift_metrics._kinds(columns, current.schema, reference.schema)
    numeric = [c for c in columns if kinds[c] == "numeric"]
    exact = [
        c for c in numeric if not (current.schema[c].is_float() and reference.schema[c].is_float())
    ]
    ref_rows = reference.run("drift_rows", columns, numeric, exact)
    cur_rows = current.run("drift_rows", columns, numeric, exact)
    _check(ref_rows, cur_rows, reference.flag, exact)
    given = list(checks.normalize_by(values["by"]).names)
    found = _distances((reference, current), (ref_rows, cur_rows), numeric, values["bins"], given)
    edges = {c: e for c, (e, _) in found.items()}
    ref_bins = reference.run("drift_bins", columns, numeric, edges)
    cur_bins = current.run("drift_bins", columns, numeric, edges)
    parts = []
    for column in columns:
        table = _divergences(ref_bins, cur_bins, column, given, values["eps"])
        if column in found and given:
            table = table.join(found[column][1], on=given, how="left", nulls_equal=True)
        elif column in found:  # one segment: a row on both sides where there are rows
            # (no current row: no row; the counts of no by have one row regardless)
            table = pl.concat([table, found[column][1].head(table.height)], how="horizontal")
        else:
            nothing = pl.lit(None, pl.Float64)
            table = table.with_columns(nothing.alias("ks"), nothing.alias("wasserstein"))
        parts.append(table.with_columns(pl.lit(column).alias("column")))
    out_schema: dict[str, Any] = {k: cur_rows.schema[k] for k in given} | {
        "column": pl.String,
        "n_reference": pl.Int64,
        "n_current": pl.Int64,
        **dict.fromkeys(("psi", "js_distance", "ks", "wasserstein"), pl.Float64),
    }
    schema = pl.Schema(out_schema)
    out = pl.concat([p.select(list(schema)).cast(schema) for p in parts])
    return drift_metrics._in_order(out, given, columns)


def _check(
    ref_rows: pl.DataFrame, cur_rows: pl.DataFrame, flag: pl.Expr | None, exact: Sequence[str]
) -> None:
    """The frame method's data checks, in its order, from the counts of all shards:
    the flag's nulls, integers beyond +-2**53, no reference rows."""
    if flag is not None and ref_rows.height and (nulls := int(ref_rows["flag_nulls"][0])):
        raise checks.Bad.reference_nulls(nulls)
    for column in exact:
        n = sum(
            int(s.filter(pl.col("column") == column)["inexact"].sum()) for s in (ref_rows, cur_rows)
        )
        if n:
            raise checks.Bad.inexact_scores([column], n, argument="columns", what="values")
    if not ref_rows.height or not int(ref_rows["rows"][0]):
        raise checks.Bad.no_reference_rows()


def _divergences(
    ref_bins: pl.DataFrame, cur_bins: pl.DataFrame, column: str, given: list[str], eps: float
) -> pl.DataFrame:
    """``*by, n_reference, n_current, psi, js_distance`` of one column from both sides'
    rows per bin: the frame method's shares and sums (:func:`drift_metrics._shares`)."""
    mine = pl.col("column") == column
    ref_df = ref_bins.filter(mine).select(
        pl.col("bin").alias(drift_metrics._BIN), pl.col("rows").alias(drift_metrics._REF)
    )
    cur_df = cur_bins.filter(mine).select(
        *given, pl.col("bin").alias(drift_metrics._BIN), pl.col("rows").alias(drift_metrics._CUR)
    )
    keys = given or [names.ALL]
    if not given:
        cur_df = cur_df.with_columns(pl.lit(True).alias(names.ALL))
    table, n_ref = drift_metrics._shares(ref_df, cur_df, keys)
    out = drift_metrics._divergence_table(table, keys, n_ref, eps)
    return out if given else out.drop(names.ALL)


def _distances(
    sides: tuple[_Side, _Side],
    counts: tuple[pl.DataFrame, pl.DataFrame],
    numeric: list[str],
    bins: int,
    given: list[str],
) -> dict[str, tuple[list[float], pl.DataFrame]]:
    """Each numeric column's (reference's quantile edges, ``*by, ks, wasserstein``)
    from its slices of distinct values (:func:`_sweep`): one slice of every column up
    to :data:`drift_metrics.SLICE` rows of both sides (one job per side for all of them), else
    the frame method's slices (``_sliced_distances``), a job per side and slice."""
    reference, current = sides
    whole, sliced = [], {}
    for column in numeric:
        mine = pl.col("column") == column
        rows, values = (
            sum(int(c.filter(mine)[n].sum()) for c in counts) for n in ("rows", "values")
        )
        if rows <= drift_metrics.SLICE:
            whole.append(column)
        else:
            sliced[column] = _slice_bounds(reference, current, column, values)
    every = [(c, -math.inf, math.inf, 1) for c in whole]
    together = [side.run("drift_values", every) for side in sides] if every else []
    out = {}
    for column in numeric:
        if column in sliced:
            bounds = sliced[column]
            ranges = zip([-math.inf, *bounds], [*bounds, math.inf], strict=True)
            found: Iterator[tuple[float, float, pl.DataFrame, pl.DataFrame]] = (
                (low, high, reference.run("drift_values", [(column, low, high, 1)]),
                 current.run("drift_values", [(column, low, high, 1)]))
                for low, high in ranges
            )  # fmt: skip
        else:
            mine = pl.col("column") == column
            ref_found, cur_found = (f.filter(mine) for f in together)
            found = iter([(-math.inf, math.inf, ref_found, cur_found)])
        out[column] = _sweep(found, counts, column, bins, given)
    return out


def _sweep(
    slices: Iterator[tuple[float, float, pl.DataFrame, pl.DataFrame]],
    counts: tuple[pl.DataFrame, pl.DataFrame],
    column: str,
    bins: int,
    given: list[str],
) -> tuple[list[float], pl.DataFrame]:
    """(the reference's quantile edges, ``*by, ks, wasserstein``) of one column from its
    slices, ascending: (low, high, the reference's values there, the current's),
    read as the frame method reads its own (:class:`Sweep`, ``_Picked``)."""
    import numpy as np

    ref_rows, cur_rows = counts
    mine = pl.col("column") == column
    n = int(ref_rows.filter(mine)["values"].sum())
    segments = cur_rows.filter(mine).select(*given, pl.col("values").alias(drift_metrics._COUNT))
    segments = segments.with_row_index(_ID)
    sizes = segments[drift_metrics._COUNT].to_numpy().astype(np.int64)
    sweep = Sweep(n, sizes)
    picked = drift_metrics._Picked(drift_metrics._ranks(n, bins) if n else set())
    ids = segments.select(*given, _ID)
    for low, high, ref_found, cur_found in slices:
        ref = ref_found.sort("value")
        ref_values = ref["value"].to_numpy().astype(np.float64)
        ref_tied = ref["rows"].to_numpy().astype(np.int64)
        picked.read(ref_values, ref_tied)
        if given:
            cur = cur_found.join(ids, on=given, nulls_equal=True)
        else:
            cur = cur_found.with_columns(pl.lit(0, pl.UInt32).alias(_ID))
        cur = cur.sort(_ID, "value")
        present, per_segment = np.unique(cur[_ID].to_numpy(), return_counts=True)
        values = cur["value"].to_numpy().astype(np.float64)
        weights = cur["rows"].to_numpy()
        sweep.add(low, high, ref_values, ref_tied, present, per_segment, values, weights)
    drift_metrics._read_whole(
        picked.seen == n and (n == 0 or bool((sweep.below == sweep.size).all()))
    )
    ks, w = sweep.result()
    edges = drift_metrics._edges_of(picked.at, n, bins)
    return edges, segments.select(*given, _ID).with_columns(
        pl.Series("ks", ks).fill_nan(None), pl.Series("wasserstein", w).fill_nan(None)
    ).drop(_ID)


def _slice_bounds(reference: _Side, current: _Side, column: str, values: int) -> list[float]:
    """The slices' bounds of one column: the frame method's (``_slice_bounds``) from a
    sample of both sides' distinct (segment, value) pairs, those whose hash is a
    multiple of ``values`` // ``SAMPLE``."""
    step = max(1, values // drift_metrics.SAMPLE)
    found = [
        side.run("drift_values", [(column, -math.inf, math.inf, step)])
        for side in (reference, current)
    ]
    return slice_bounds(pl.concat([f["value"] for f in found]), step)


def slice_bounds(sample: pl.Series, step: int) -> list[float]:
    """The bounds of slices of about ``drift_metrics.SLICE // 2`` distinct pairs each, from a
    ``sample`` of them (those whose hash is a multiple of ``step``; the frame
    method's ``_slice_bounds``): ascending, finite, distinct; none for one slice."""
    import numpy as np

    values = np.sort(sample.to_numpy().astype(np.float64))
    slices = -(-values.size * step // max(1, drift_metrics.SLICE // 2))
    if slices <= 1:
        return []
    at = np.arange(1, slices) * values.size // slices
    bounds = np.unique(values[at])
    return bounds[np.isfinite(bounds)].tolist()


__all__ = ["HOW", "call", "slice_bounds"]
