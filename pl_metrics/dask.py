"""Distributed evaluation on Dask: states per Parquet file on the workers, merged in a tree.

Needs the optional extra ``pl_metrics[dask]``.  Each worker reads one file with
Polars and computes the small mergeable state (``.metrics.counts`` or
``.metrics.score_counts``); states are merged ``split_every`` at a time on the
workers; the client finishes the metrics with :func:`pl_metrics.from_counts` /
:func:`pl_metrics.from_score_counts` - the same functions as on one machine::

    from distributed import Client
    import pl_metrics.dask as pmd

    client = Client("scheduler:8786")
    pmd.report("s3://bucket/preds/**/*.parquet", "y_true", "y_pred", by="country", client=client)
"""

from __future__ import annotations

import glob
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from pl_metrics._core import checks as v
from pl_metrics._core.messages import in_engine_terms, retyped
from pl_metrics._core.options import checked
from pl_metrics._drift import state as ds
from pl_metrics._drift.state import shard_job as drift_shard_job
from pl_metrics._engines.shards import check_label_sets, label_sample
from pl_metrics._engines.spark import _COUNT, _as, _combined, _Job, _masked
from pl_metrics._typing import By, ExtraScore, Labels
from pl_metrics.spark import _job
from pl_metrics.state import from_counts, from_score_counts, sum_states

Paths = str | Path | Sequence[str | Path]


def expand(paths: Paths) -> list[str]:
    """Files of a path, a glob, a directory (its ``**/*.parquet``) or a list of those,
    each file once: a file that several of them name (a directory and a file in it,
    two overlapping globs, a relative and an absolute path) is read once, where it
    first appears, not counted twice."""
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    files: dict[str, str] = {}  # the file's resolved path: the path as given
    for item in items:
        text = str(item)
        if Path(text).is_dir():
            found = sorted(str(p) for p in Path(text).rglob("*.parquet"))
        elif any(ch in text for ch in "*?["):
            found = sorted(glob.glob(text, recursive=True))
        else:
            found = [text]
        for path in found:
            files.setdefault(_resolved(path), path)
    if not files:
        msg = f"no Parquet files found at {paths!r}"
        raise FileNotFoundError(msg)
    return list(files.values())


def _resolved(path: str) -> str:
    """A local path made absolute, links followed; a URL (``s3://...``) as written."""
    return path if "://" in path else str(Path(path).resolve())


#: The errors of reading one file that are raised again with the file's path in front.
_FILE_ERRORS = (pl.exceptions.PolarsError, ValueError, TypeError, OSError)


def _state_of_file(path: str, job: _Job) -> pl.DataFrame | Exception:
    """The state of one file, or the error its rows or its reading raised (returned,
    not raised: the client counts the bad rows of every file, :func:`_file_errors`).

    The error keeps its type (``ColumnNotFoundError``, ``SchemaError``, ``DataError``,
    a ``ComputeError`` for a corrupt file, ...).
    """
    try:
        return job.state(pl.scan_parquet(path))
    except _FILE_ERRORS as exc:
        return exc


def _schema_or_error(state: pl.DataFrame | Exception) -> list[tuple[str, pl.DataType]] | Exception:
    """What the client reads of a file's state first: its schema, or its error."""
    return state if isinstance(state, Exception) else list(state.schema.items())


def _file_errors(errors: list[tuple[str, Exception]], job: _Job) -> Exception:
    """The error of all the files, as Spark's of all partitions: where files fail the
    same count of bad rows, that count summed over them (the frame method's message
    on all the rows), the files named in front; else the first file's error, its
    path in front.  In Dask's idiom (``messages.in_engine_terms``)."""
    counted = [(p, e) for p, e in errors if len(_COUNT.findall(_masked(str(e), job.columns))) == 1]
    if counted:
        combined = _combined([e for _, e in counted], job)
        paths = [p for p, _ in counted] if combined is not counted[0][1] else [counted[0][0]]
        return in_engine_terms(_with_path(combined, _files(paths)), "dask")
    path, first = errors[0]
    return in_engine_terms(_with_path(first, path), "dask")


def _labels_of_file(path: str, y_true: str, weight: str | None) -> pl.Series:
    """The sample of one file's ``y_true`` labels (rows of weight 0 left out) that the
    label-set checks read (:func:`pl_metrics._engines.shards.label_sample`)."""
    try:
        rows = v.without_zero_weights(pl.scan_parquet(path), weight)
        return label_sample(rows.select(y_true).collect().to_series())
    except _FILE_ERRORS as exc:
        raise _with_path(exc, path) from exc


def _with_path(exc: Exception, path: str) -> Exception:
    """``exc`` as the same type with ``path`` in front of its message (else unchanged)."""
    return retyped(exc, f"{path}: {exc}")


def _files(paths: list[str], limit: int = 3) -> str:
    shown = ", ".join(paths[:limit])
    return shown if len(paths) <= limit else f"{shown} and {len(paths) - limit} more"


def _common_dtype(column: str, seen: dict[pl.DataType, list[str]]) -> pl.DataType:
    """The dtype that holds every file's ``column`` losslessly, else a SchemaError.

    Integers widen to an integer type that holds them all; integers and floats
    meet in Float64 (the cast of each value is checked); String, Categorical and
    Enum meet in String; Null (a column of an empty file) meets anything.
    """
    dtypes = [d for d in seen if d != pl.Null]
    if len(dtypes) <= 1:
        return dtypes[0] if dtypes else pl.Null()
    if all(d.is_integer() for d in dtypes):
        empty = [pl.DataFrame(schema={column: d}) for d in dtypes]
        return pl.concat(empty, how="vertical_relaxed").schema[column]
    if all(d.is_integer() or d.is_float() for d in dtypes):
        return pl.Float64()
    if all(d == pl.String or isinstance(d, (pl.Categorical, pl.Enum)) for d in dtypes):
        return pl.String()
    found = "; ".join(f"{d} in {_files(files)}" for d, files in seen.items())
    msg = f"cannot merge the files' states: column {column!r} is {found}"
    raise pl.exceptions.SchemaError(msg)


def _common_schema(files: list[str], schemas: list[list[tuple[str, pl.DataType]]]) -> pl.Schema:
    """The schema all the files' states are cast to before they are merged."""
    columns: dict[str, dict[pl.DataType, list[str]]] = {}
    for path, schema in zip(files, schemas, strict=True):
        for column, dtype in schema:
            columns.setdefault(column, {}).setdefault(dtype, []).append(path)
    return pl.Schema({c: _common_dtype(c, seen) for c, seen in columns.items()})


def _cast(state: pl.DataFrame, schema: pl.Schema, path: str) -> pl.DataFrame:
    """``state`` cast to ``schema``, refusing a cast that changes a value."""
    changed = {c: d for c, d in schema.items() if state.schema[c] != d}
    if not changed:
        return state
    cast = state.with_columns(pl.col(c).cast(d) for c, d in changed.items())
    for column, dtype in changed.items():
        before = state[column]
        if before.dtype == pl.Null:
            continue
        back = cast[column].cast(before.dtype, strict=False)
        if not (back.eq_missing(before).all() and cast[column].null_count() == before.null_count()):
            msg = (
                f"{path}: column {column!r} ({before.dtype}) has values that {dtype} "
                "cannot hold exactly; cannot merge it with the other files' states"
            )
            raise pl.exceptions.SchemaError(msg)
    return cast


def _merge(group_keys: list[str], values: list[str], *states: pl.DataFrame) -> pl.DataFrame:
    return sum_states(pl.concat(states), group_keys, values)


def _map_reduce(client: Any, files: list[str], job: _Job, split_every: int) -> pl.DataFrame:
    """The state ``job`` of every file, merged ``split_every`` at a time on the workers:
    with the frame method's count dtypes (Int64 rows, not the merge's Int128), sorted by
    its keys (``_engines.spark._as``, as Spark returns it)."""
    (split_every,) = checked(job.method, split_every=split_every)
    futures = [client.submit(_state_of_file, f, job, pure=False) for f in files]
    # The states' dtypes may differ between files (Int32 labels here, Int64 there):
    # all are cast to one schema, or the files and dtypes that cannot meet are named.
    read = client.gather([client.submit(_schema_or_error, f, pure=False) for f in futures])
    errors = [(f, r) for f, r in zip(files, read, strict=True) if isinstance(r, Exception)]
    if errors:
        raise _file_errors(errors, job)
    schema = _common_schema(files, read)
    futures = [
        client.submit(_cast, state, schema, path, pure=False)
        for state, path in zip(futures, files, strict=True)
    ]
    keys, values = job.keys, job.values
    while len(futures) > 1:
        futures = [
            client.submit(_merge, keys, values, *futures[i : i + split_every], pure=False)
            for i in range(0, len(futures), split_every)
        ]
    return _as(futures[0].result(), pl.DataFrame(schema=schema), job)


def counts(
    paths: Paths,
    y_true: str,
    y_pred: str,
    *,
    client: Any,
    by: By = None,
    weight: str | None = None,
    split_every: int = 8,
) -> pl.DataFrame:
    """The merged confusion-counts state of all files (``*by, actual, predicted, count``),
    as ``.metrics.counts`` gives it (``count`` Int64, Float64 with ``weight``), sorted
    by its keys: it concatenates with a state of polars."""
    job = _job("counts", (y_true, y_pred), by, weight)
    return _map_reduce(client, expand(paths), job, split_every)


def score_counts(
    paths: Paths,
    y_true: str,
    y_score: str,
    *,
    client: Any,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    split_every: int = 8,
) -> pl.DataFrame:
    """The merged per-score state of all files (``*by, score, pos, neg``), as
    ``.metrics.score_counts`` gives it (``pos`` / ``neg`` Int64, Float64 with
    ``weight``), sorted by its keys.

    Each file is checked as the frame method checks it, and the label sets of all
    the files together (:func:`pl_metrics._engines.shards.check_label_sets`): {-1, 1} in one
    file and {0, 1} in another is the frame method's error on all the rows."""
    bins, split_every = checked("score_counts", bins=bins, split_every=split_every)
    job = _job("score_counts", (y_true, y_score), by, weight, pos_label=pos_label, bins=bins)
    files = expand(paths)
    labels = [client.submit(_labels_of_file, f, y_true, weight, pure=False) for f in files]
    state = _map_reduce(client, files, job, split_every)
    check_label_sets(
        client.gather(labels),
        float(state["pos"].sum()),  # a weight below 1 is not 0
        y_true=y_true,
        y_score=y_score,
        score_dtype=pl.Float64(),
        pos_label=pos_label,
        bins=bins,
    )
    return state


def report(
    paths: Paths,
    y_true: str,
    y_pred: str,
    *,
    client: Any,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    extra_scores: ExtraScore | Sequence[ExtraScore] = (),
    split_every: int = 8,
) -> pl.DataFrame:
    """``.metrics.report`` over all files, computed on the Dask cluster (the options
    checked first, as the frame method checks them)."""
    beta, zero_division, extra_scores = checked(
        "report", beta=beta, zero_division=zero_division, extra_scores=extra_scores
    )
    state = counts(
        paths, y_true, y_pred, client=client, by=by, weight=weight, split_every=split_every
    )
    return from_counts(state, by=v.by_names(by)).report(
        labels=labels, beta=beta, zero_division=zero_division, extra_scores=extra_scores
    )


def summary(
    paths: Paths,
    y_true: str,
    y_pred: str,
    *,
    client: Any,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    adjusted: bool = False,
    split_every: int = 8,
) -> pl.DataFrame:
    """``.metrics.summary`` over all files, computed on the Dask cluster (``adjusted``:
    the balanced accuracy adjusted for chance, as the frame method's)."""
    (adjusted,) = checked("summary", adjusted=adjusted)
    state = counts(
        paths, y_true, y_pred, client=client, by=by, weight=weight, split_every=split_every
    )
    return from_counts(state, by=v.by_names(by)).summary(labels=labels, adjusted=adjusted)


def roc_auc(
    paths: Paths,
    y_true: str,
    y_score: str,
    *,
    client: Any,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    split_every: int = 8,
) -> pl.DataFrame:
    """Binary ``.metrics.roc_auc`` over all files, computed on the Dask cluster."""
    state = score_counts(
        paths,
        y_true,
        y_score,
        client=client,
        by=by,
        pos_label=pos_label,
        weight=weight,
        bins=bins,
        split_every=split_every,
    )
    return from_score_counts(state, by=v.by_names(by)).roc_auc(error_bound=bins is not None)


def drift_counts(
    paths: Paths,
    columns: str | Sequence[str],
    *,
    edges: Mapping[str, Sequence[float]],
    client: Any,
    by: By = None,
    split_every: int = 8,
) -> pl.DataFrame:
    """The merged ``.metrics.drift_counts`` state of all files (``*by, column, bin, lower,
    upper, rows``), counted at the reference's ``edges`` (``pl_metrics.drift_edges(
    reference_state)``); :func:`pl_metrics.from_drift_counts` finishes it."""
    chosen, kwargs, keys, read = drift_shard_job(columns, edges, by)
    job = _Job("drift_counts", (chosen,), kwargs, keys, ["rows"], read, 0)
    return ds.in_bin_order(_map_reduce(client, expand(paths), job, split_every), keys)


#: The public functions (``from pl_metrics.dask import *``, ``dir``, ``help``): not the
#: names this module imports (``pl``, ``glob``, ``Any`` ...).
__all__ = [
    "counts",
    "drift_counts",
    "expand",
    "report",
    "roc_auc",
    "score_counts",
    "summary",
]


def __dir__() -> list[str]:
    """``dir(pl_metrics.dask)``: :data:`__all__` (PEP 562)."""
    return sorted(__all__)
