"""Drift from mergeable states: each side's rows per bin, summed over shards.

:func:`drift_counts` is a frame's rows per bin of each column (a numeric column's
every bin, so that its edges travel with the state); the states of shards (files,
partitions, days) merge by summing ``rows``.  The reference's edges are fixed
first: its state gives them (:func:`drift_edges`), and the current rows' states are
counted at them.  :func:`from_drift_counts` then gives :func:`~pl_metrics._drift.metrics.drift`'s
PSI and Jensen-Shannon distance (the sorted-value distances, KS and Wasserstein,
need the values: not from counts), with the same shares and the same sums.
"""

from __future__ import annotations

import polars as pl

from pl_metrics._core import checks, forms, names
from pl_metrics._core.options import checked
from pl_metrics._drift.metrics import (
    _BIN,
    _CUR,
    _REF,
    COUNT_COLUMNS,
    _bin,
    _bin_names,
    _check_exact,
    _divergence_table,
    _edges,
    _in_order,
    _kinds,
    _shares,
    _value,
    check_column_list,
)


def drift_counts(
    lf: pl.LazyFrame, columns: list[str], *, edges: object, by: object, bins: int
) -> pl.LazyFrame:
    """``*by, column, bin, lower, upper, rows``: each segment's rows per bin of each column
    (a numeric column's every bin, empty ones included; the categories and the null
    bin that have rows), mergeable by summing ``rows`` over the other columns."""
    segments = checks.normalize_by(by)
    schema = lf.collect_schema()
    checks.check_by(schema, segments, COUNT_COLUMNS)
    kinds = _kinds(columns, schema, schema)
    given = forms.drift_edges(edges, [c for c, kind in kinds.items() if kind == "numeric"])
    keys = names.segment_keys(segments) if segments else [names.ALL]
    if segments:
        keyed = names.with_segment_keys(lf, segments)
    else:
        keyed = lf.with_columns(pl.lit(True).alias(names.ALL))
    out_schema = pl.Schema(
        {k: keyed.collect_schema()[k] for k in keys}
        | {"column": pl.String, "bin": pl.String, "lower": pl.Float64, "upper": pl.Float64}
        | {"rows": pl.Int64}
    )

    def one(column: str, rows: int | None) -> pl.DataFrame:
        value = _value(column, kinds[column])
        numeric = kinds[column] == "numeric"
        cut = (given[column] if given else _edges(keyed, value, bins, rows)) if numeric else None
        counted = (
            keyed.group_by(*keys, _bin(value, cut).alias(_BIN))
            .agg(pl.len().cast(pl.Int64).alias("rows"))
            .collect()
        )
        if cut is not None:  # every bin, so that the edges travel with the state
            every = pl.DataFrame({_BIN: list(range(len(cut) + 1))}, schema={_BIN: pl.Int64})
            grid = counted.select(keys).unique().join(every, how="cross")
            counted = grid.join(
                counted, on=[*keys, _BIN], how="full", coalesce=True, nulls_equal=True
            )
            counted = counted.with_columns(pl.col("rows").fill_null(0))
        name, lower, upper = _bin_names(cut)
        return counted.sort([*keys, _BIN], nulls_last=True).select(
            *keys,
            pl.lit(column).alias("column"),
            name.alias("bin"),
            lower.alias("lower"),
            upper.alias("upper"),
            "rows",
        )

    def run() -> pl.DataFrame:
        numeric = [c for c in columns if kinds[c] == "numeric"]
        _check_exact(keyed, keyed, numeric)
        # the rows, counted once for every column's edges (none to cut: not counted)
        rows = keyed.select(pl.len()).collect().item() if numeric and not given else None
        out = pl.concat([one(column, rows) for column in columns], how="vertical_relaxed")
        return _in_order(out, keys, columns).select(list(out_schema)).cast(dict(out_schema))

    return names.restore_keys(pl.defer(run, schema=out_schema), segments.names)


def drift_edges(state: pl.DataFrame | pl.LazyFrame) -> dict[str, list[float]]:
    """The edges of each numeric column of a ``.metrics.drift_counts`` state (its bins'
    finite upper edges): ``edges=`` of the current rows' counts.

    Exported as ``pl_metrics.drift_edges``."""
    frame = state.lazy().collect() if isinstance(state, pl.LazyFrame) else state
    missing = [c for c in COUNT_COLUMNS if c not in frame.columns]
    if missing:
        msg = f"drift_edges: not a drift_counts state: it has no column(s) {missing}"
        raise ValueError(msg)
    upper = frame.filter(pl.col("upper").is_finite()).group_by("column", maintain_order=True)
    edges = upper.agg(pl.col("upper").unique().sort())
    numeric = frame.filter(pl.col("lower").is_not_null())["column"].unique(maintain_order=True)
    out = {c: [] for c in numeric.to_list()}  # one bin: no edge
    out |= dict(zip(edges["column"].to_list(), edges["upper"].to_list(), strict=True))
    return out


def _merged_counts(state: pl.DataFrame, keys: list[str], what: str) -> pl.DataFrame:
    """A state's rows summed over equal keys (states of shards concatenated)."""
    missing = [c for c in (*keys, *COUNT_COLUMNS) if c not in state.columns]
    extra = [c for c in state.columns if c not in (*keys, *COUNT_COLUMNS)]
    if missing or extra:
        msg = (
            f"from_drift_counts: the {what} state must have the columns "
            f"{[*keys, *COUNT_COLUMNS]} (drift_counts' with by={keys or None}); "
            f"missing {missing}, unexpected {extra}"
            + (
                " (the reference is one sample: no segments)"
                if what == "reference" and extra
                else ""
            )
        )
        raise ValueError(msg)
    group = [*keys, "column", "bin", "lower", "upper"]
    return state.group_by(group, maintain_order=True).agg(pl.col("rows").sum().cast(pl.Int64))


def from_drift_counts(
    reference: pl.DataFrame | pl.LazyFrame,
    current: pl.DataFrame | pl.LazyFrame,
    *,
    by: object = None,
    eps: float = 1e-4,
) -> pl.DataFrame:
    """``*by, column, n_reference, n_current, psi, js_distance`` from ``.metrics.drift_counts``
    states: the reference's (no segments) and the current rows' (``by``: its segment
    columns), each possibly concatenated shards.  The same numbers as ``.metrics.drift``
    on the rows (the current rows binned at the reference's edges); ``eps`` as there.

    Exported as ``pl_metrics.from_drift_counts``."""
    (eps,) = checked("from_drift_counts", eps=eps)
    keys = checks.by_names(by)
    ref = _merged_counts(reference.lazy().collect(), [], "reference")
    cur = _merged_counts(current.lazy().collect(), keys, "current")
    columns = ref["column"].unique(maintain_order=True).to_list()
    current_columns = cur["column"].unique(maintain_order=True).to_list()
    if cur.height and set(current_columns) != set(columns):
        msg = (
            "from_drift_counts: the reference and the current states must count the same "
            f"columns; the reference has {columns}, the current {current_columns}"
        )
        raise ValueError(msg)
    parts = []
    for column in columns:
        r = ref.filter(pl.col("column") == column)
        c = cur.filter(pl.col("column") == column)
        numeric = [side.select(pl.col("lower").is_not_null().any()).item() for side in (r, c)]
        if c.height and numeric[0] != numeric[1]:  # as drift: the same kind on both sides
            kinds = ["numeric" if n else "text / categorical / boolean" for n in numeric]
            msg = (
                f"from_drift_counts: column {column!r} is {kinds[1]} in the current state and "
                f"{kinds[0]} in the reference: drift compares columns of the same kind"
            )
            raise pl.exceptions.SchemaError(msg)
        grid = r.filter(pl.col("lower").is_not_null()).select("lower", "upper")
        off = c.filter(pl.col("lower").is_not_null()).join(grid, on=["lower", "upper"], how="anti")
        if off.height:
            msg = (
                f"from_drift_counts: the current rows of {column!r} were not binned at the "
                "reference's edges: make their counts with "
                "edges=pl_metrics.drift_edges(reference_state)"
            )
            raise ValueError(msg)
        ref_df = r.select(pl.col("bin").alias(_BIN), pl.col("rows").alias(_REF))
        cur_df = c.select(*keys, pl.col("bin").alias(_BIN), pl.col("rows").alias(_CUR))
        if not keys:
            cur_df = cur_df.with_columns(pl.lit(True).alias(names.ALL))
        inner = keys or [names.ALL]
        table, n_ref = _shares(ref_df, cur_df, inner)
        result = _divergence_table(table, inner, n_ref, eps).with_columns(
            pl.lit(column).alias("column")
        )
        parts.append(
            result.select(*keys, "column", "n_reference", "n_current", "psi", "js_distance")
        )
    out_schema = {k: cur.schema[k] for k in keys} | {
        "column": pl.String,
        "n_reference": pl.Int64,
        "n_current": pl.Int64,
        "psi": pl.Float64,
        "js_distance": pl.Float64,
    }
    if not parts:
        return pl.DataFrame(schema=out_schema)
    out = pl.concat(parts, how="vertical_relaxed").cast(out_schema)
    return _in_order(out, keys, columns)


def shard_job(
    columns: object, edges: object, by: object
) -> tuple[list[str], dict[str, object], list[str], list[str]]:
    """For the shards of Dask and Spark: ``(columns, drift_counts' keyword arguments, the
    state's keys, the columns the shards read)``.  ``edges`` are required: each shard's
    own quantiles would bin each shard differently."""
    chosen = check_column_list(columns)
    checked("drift shards", edges=edges)
    segments = checks.normalize_by(by)
    read = list(chosen)
    for item in segments.given:
        roots = item.meta.root_names() if isinstance(item, pl.Expr) else [item]
        read += [c for c in roots if c not in read]
    kwargs: dict[str, object] = {"edges": edges, "by": list(segments.given) or None}
    return chosen, kwargs, [*segments.names, *COUNT_COLUMNS[:-1]], read


def in_bin_order(state: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """A merged state (``keys``: its segments, then ``column, bin, lower, upper``) with
    Int64 rows, sorted by segment, column, then bin (a numeric column's by its lower
    edge, categories by name, the null bin last)."""
    segments = keys[: len(keys) - 4]
    order = [*segments, "column", "lower", "bin"]
    return state.with_columns(pl.col("rows").cast(pl.Int64)).sort(order, nulls_last=True)


__all__ = ["drift_counts", "drift_edges", "from_drift_counts", "in_bin_order", "shard_job"]
