"""Distributed evaluation on Spark: states per partition on the executors, finished here.

Needs the optional extra ``pl_metrics[spark]`` (and ``pl_metrics`` installed on
the executors).  Only the columns a metric reads are selected; each partition's
Arrow batches become Polars frames (``mapInArrow``) and one small mergeable
state (``.metrics.counts`` or ``.metrics.score_counts``); the driver collects
the states, sums them (:func:`pl_metrics.state.sum_states`) and finishes the
metrics with :func:`pl_metrics.from_counts` / :func:`pl_metrics.from_score_counts`
- the same functions as on one machine::

    import pl_metrics.spark as pms

    sdf = spark.read.parquet("s3://bucket/preds/")
    pms.report(sdf, "y_true", "y_pred", by="country")

Why the states meet on the driver (not in a Spark ``groupBy``): the finishing
step needs the whole merged state there anyway, and a ``groupBy`` only removes
keys repeated across partitions.  The confusion state has at most segments x
K^2 rows per partition and a binned (``bins=``) or rounded score state at most
segments x (bins + 1); for exact continuous scores the distinct scores are
about the rows, so the merged state is as large as the partitions' states
together.  The states travel as Arrow IPC, so their dtypes are exactly those
of Polars (no Spark type mapping of the labels and counts).

Intervals (``ci=``, ``n_boot``, ``seed``, ``ci_method``) of ``per_class``,
``averages``, ``report``, ``summary``, ``roc_auc`` and ``average_precision`` come
from the merged state on the driver: the bootstrap redraws the merged counts, so
for a seed the interval is the frame method's on the same rows, however they
are partitioned.  As the frame methods, they need un-weighted rows (``weight``
with ``ci`` is refused before any job).

Errors: the columns, dtypes and options are checked on the driver before any
job runs (the checks of the frame methods, on an empty frame of the Spark
schema).  Bad rows (nulls, NaN scores, negative weights, ...) are found on the
executors; their errors come back to the driver as the same exception, with
the rows counted over all partitions: the message is the one the frame method
gives on all rows (not a Py4J stack trace).
"""

from __future__ import annotations

import io
import pickle
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics import _drift_state as ds
from pl_metrics import metrics
from pl_metrics._core import checks as v
from pl_metrics._core.messages import Bad
from pl_metrics._drift_state import shard_job as drift_shard_job
from pl_metrics._shards import check_label_sets, label_sample
from pl_metrics._typing import (
    ApCiMethod,
    AucCiMethod,
    AverageCiMethod,
    By,
    KappaWeights,
    LabelCiMethod,
    Labels,
    SummaryCiMethod,
)
from pl_metrics.state import (
    COUNTS_COLUMNS,
    SCORE_COUNTS_COLUMNS,
    from_counts,
    from_score_counts,
    sum_states,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame as SparkFrame

#: Rows of Arrow batches gathered into one Polars frame on an executor (read on the
#: driver when a function is called).
CHUNK_ROWS = 1_000_000
#: Per-partition states merged on the executor once this many have piled up.
_MERGE_EVERY = 8
_BINARY = ("state", "labels", "errors")
_ROW = "partition int, " + ", ".join(f"{c} binary" for c in _BINARY)
_RAISED = (pl.exceptions.PolarsError, ValueError, TypeError, ArithmeticError)


def _require_pyspark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError as exc:
        msg = "pl_metrics.spark needs pyspark: pip install 'pl_metrics[spark]'"
        raise ImportError(msg) from exc


@dataclass(frozen=True)
class _Job:
    """One state method, its arguments and the columns it reads (picklable)."""

    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    keys: list[str]
    values: list[str]
    columns: list[str]
    chunk_rows: int

    @property
    def y_true(self) -> str:
        return self.args[0]

    def state(self, lf: pl.LazyFrame) -> pl.DataFrame:
        return getattr(metrics(lf), self.method)(*self.args, **self.kwargs).collect()

    def merge(self, states: list[pl.DataFrame]) -> pl.DataFrame:
        return sum_states(pl.concat(states, how="vertical_relaxed"), self.keys, self.values)


def _job(
    method: str, args: tuple[str, str], by: By = None, weight: str | None = None, **kwargs: Any
) -> _Job:
    segments = v.normalize_by(by)
    state_columns = COUNTS_COLUMNS if method == "counts" else SCORE_COUNTS_COLUMNS
    n_keys = 2 if method == "counts" else 1
    columns: list[str] = []
    for item in [*args, weight, *segments.given]:
        roots = item.meta.root_names() if isinstance(item, pl.Expr) else [item]
        columns += [c for c in roots if isinstance(c, str) and c not in columns]
    return _Job(
        method,
        args,
        {"by": list(segments.given) or None, "weight": weight, **kwargs},
        [*segments.names, *state_columns[:n_keys]],
        list(state_columns[n_keys:]),
        columns,
        CHUNK_ROWS,
    )


# ------------------------------------------------------------------ driver: schema
def _polars_schema(sdf: SparkFrame, columns: Sequence[str]) -> pl.Schema:
    """The Polars schema the executors see: the Spark columns read, through Arrow;
    every other column as Null (only its name matters to the checks)."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import StructType

    fields = {f.name: f for f in sdf.schema.fields}
    read = StructType([fields[c] for c in columns if c in fields])
    # timestamps reach the executors in the session's time zone
    timezone = sdf.sparkSession.conf.get("spark.sql.session.timeZone")
    arrow = pl.from_arrow(to_arrow_schema(read, timezone=timezone).empty_table())
    assert isinstance(arrow, pl.DataFrame)
    return pl.Schema({name: arrow.schema.get(name, pl.Null()) for name in fields})


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


# ---------------------------------------------------------------- executor: states
def _partition_states(job: _Job) -> Any:
    """The ``mapInArrow`` function: one row per partition with its state (Arrow IPC),
    a sample of its ``y_true`` labels and its errors (pickled), never a raise."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow as pa
        from pyspark import TaskContext

        context = TaskContext.get()
        states: list[pl.DataFrame] = []
        labels: list[pl.Series] = []
        errors: list[Exception] = []
        for chunk in _chunks(batches, job.chunk_rows):
            frame = pl.from_arrow(pa.Table.from_batches(chunk).rename_columns(job.columns))
            assert isinstance(frame, pl.DataFrame)
            if job.method == "score_counts":
                rows = v.without_zero_weights(frame.lazy(), job.kwargs["weight"])
                labels.append(label_sample(rows.select(job.y_true).collect().to_series()))
            try:
                states.append(job.state(frame.lazy()))
            except _RAISED as exc:
                errors.append(exc)
            if len(states) >= _MERGE_EVERY:
                states = [job.merge(states)]
        row = {
            "partition": [context.partitionId() if context else 0],
            "state": [_ipc(job.merge(states)) if states and not errors else None],
            "labels": [_ipc(pl.concat(labels).to_frame()) if labels else None],
            "errors": [pickle.dumps(errors) if errors else None],
        }
        binary = pa.binary()
        schema = pa.schema([("partition", pa.int32()), *((c, binary) for c in _BINARY)])
        yield pa.RecordBatch.from_pydict(row, schema=schema)

    return run


def _chunks(batches: Iterator[pa.RecordBatch], size: int) -> Iterator[list[pa.RecordBatch]]:
    chunk: list[pa.RecordBatch] = []
    rows = 0
    for batch in batches:
        chunk.append(batch)
        rows += batch.num_rows
        if rows >= size:
            yield chunk
            chunk, rows = [], 0
    if chunk:
        yield chunk


def _ipc(frame: pl.DataFrame) -> bytes:
    out = io.BytesIO()
    frame.write_ipc(out)
    return out.getvalue()


# ---------------------------------------------------------------- driver: merge
def _run(sdf: SparkFrame, job: _Job, check: Callable[[pl.LazyFrame], object]) -> pl.DataFrame:
    """The merged state of all partitions (the frame method's dtypes), or the error
    the frame method raises on all rows.

    ``check``: the frame method itself, called on a LazyFrame of no rows with the
    Spark frame's schema: the option and schema checks, in the frame method's order
    and with its messages, before any Spark job.
    """
    _require_pyspark()
    from pyspark.sql.functions import col

    schema = _polars_schema(sdf, job.columns)
    check(pl.LazyFrame(schema=schema))
    empty = job.state(pl.LazyFrame(schema=schema))
    # positional names: mapInArrow resolves the selected columns again by name, which
    # fails for a name with a dot ("a.b" is read as a struct field)
    selected = sdf.select(*(col(_quoted(c)).alias(f"c{i}") for i, c in enumerate(job.columns)))
    rows = selected.mapInArrow(_partition_states(job), _ROW).collect()
    rows = sorted(rows, key=lambda r: r["partition"])
    errors = [e for r in rows if r["errors"] for e in pickle.loads(r["errors"])]
    # the rows' checks come first (counted: "has N rows"), then the label-set checks
    counted = [e for e in errors if len(_COUNT.findall(_masked(str(e), job.columns))) == 1]
    if counted:
        raise _combined(counted, job)
    if job.method == "score_counts":
        _check_labels(rows, job, schema)
    if errors:  # a label-set error of a chunk is one of all rows: raised just above
        raise errors[0]
    states = [pl.read_ipc(r["state"]) for r in rows if r["state"]]
    merged = job.merge(states) if states else empty
    return _as(merged, empty, job)


_COUNT = re.compile(r"\bhas (\d+) ")


def _combined(errors: list[Exception], job: _Job) -> Exception:
    """The error of all rows from the chunks' errors that count bad rows.

    A chunk raises its first failing check; every chunk whose error is the first
    failing check of all rows counted all its bad rows (a chunk that failed an
    earlier check would make that one first).  When all errors are one check
    (one type, one message but for the count of rows), the count is their sum:
    the frame method's message.  Otherwise (chunks failing different checks,
    whose order is not known here) the first error is raised unchanged: the right
    type and check, its count that of one chunk.
    """
    first = errors[0]
    masked = [_masked(str(e), job.columns) for e in errors]
    skeleton = _COUNT.sub("has # ", masked[0])
    one_check = all(
        type(e) is type(first) and _COUNT.sub("has # ", m) == skeleton
        for e, m in zip(errors, masked, strict=True)
    )
    if not one_check or len(errors) == 1:
        return first
    total = sum(int(_COUNT.findall(m)[0]) for m in masked)
    text = _COUNT.sub(f"has {total} ", masked[0])
    for i, column in enumerate(job.columns):
        text = text.replace(f"\0{i}\0", repr(column))
    try:
        return type(first)(text)
    except Exception:  # a type that cannot be built from one message
        return first


def _masked(message: str, columns: Sequence[str]) -> str:
    """``message`` with the quoted column names replaced (a name holding "has 3 ")."""
    for i, column in enumerate(columns):
        message = message.replace(repr(column), f"\0{i}\0")
    return message


def _check_labels(rows: list[Any], job: _Job, schema: pl.Schema) -> None:
    """The label-set checks of all rows (the default ``pos_label`` meets labels other
    than {0, 1} and {-1, 1}; ``pos_label`` absent): the frame method's own checks on
    a few rows holding the partitions' label samples, which decide those checks as
    all rows would and whose first 20 labels are those of all rows."""
    y_true, y_score = job.args
    samples = [pl.read_ipc(r["labels"]).to_series() for r in rows if r["labels"]]
    positives = [pl.read_ipc(r["state"])["pos"].sum() for r in rows if r["state"]]
    check_label_sets(
        samples,
        sum(positives) if positives else None,
        y_true=y_true,
        y_score=y_score,
        score_dtype=schema[y_score],
        pos_label=job.kwargs["pos_label"],
        bins=job.kwargs["bins"],
    )


def _as(merged: pl.DataFrame, empty: pl.DataFrame, job: _Job) -> pl.DataFrame:
    """The merged state with the frame method's count dtypes (Int128 sums back to
    Int64, refusing one that does not fit), sorted by its keys; weights whose sum over a
    segment is infinite are refused (each partition's sum may be finite)."""
    if job.kwargs.get("weight") is not None:  # as the frame methods: a segment's total
        segments = job.keys[: len(job.keys) - (2 if job.method == "counts" else 1)]
        total = pl.sum_horizontal(job.values).sum()
        totals = merged.group_by(segments).agg(total) if segments else merged.select(total)
        if not totals.to_series(len(segments)).is_finite().all():
            raise Bad.weight_overflow(job.kwargs["weight"])
    counts = [pl.col(c).cast(empty.schema[c], strict=True) for c in job.values]
    merged = merged.select(*job.keys, *counts)
    return merged.sort(job.keys, nulls_last=False, maintain_order=True)


# ---------------------------------------------------------------- public functions
def _confusion(
    sdf: SparkFrame,
    method: str,
    y_true: str,
    y_pred: str,
    *,
    by: By,
    weight: str | None,
    options: dict[str, Any],
) -> pl.DataFrame:
    """A confusion method: the merged counts state finished by ``from_counts``."""
    job = _job("counts", (y_true, y_pred), by, weight)

    def check(lf: pl.LazyFrame) -> object:
        return getattr(metrics(lf), method)(y_true, y_pred, by=by, weight=weight, **options)

    state = _run(sdf, job, check)
    return getattr(from_counts(state, by=v.by_names(by)), method)(**options)


def _ranking(
    sdf: SparkFrame,
    method: str,
    y_true: str,
    y_score: str,
    *,
    common: dict[str, Any],
    options: dict[str, Any],
    finish: dict[str, Any],
) -> pl.DataFrame:
    """A ranking method: the merged per-score state finished by ``from_score_counts``
    (``common``: by, pos_label, weight, bins; ``options``: the frame method's other
    options; ``finish``: the finisher's)."""
    by = common["by"]
    job = _job("score_counts", (y_true, y_score), **common)

    def check(lf: pl.LazyFrame) -> object:
        return getattr(metrics(lf), method)(y_true, y_score, **common, **options)

    state = _run(sdf, job, check)
    return getattr(from_score_counts(state, by=v.by_names(by)), method)(**finish)


def counts(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    weight: str | None = None,
) -> pl.DataFrame:
    """The merged confusion-counts state of all partitions (``*by, actual, predicted,
    count``): ``.metrics.counts`` on all rows, sorted by its keys."""
    job = _job("counts", (y_true, y_pred), by, weight)
    return _run(sdf, job, job.state)


def score_counts(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
) -> pl.DataFrame:
    """The merged per-score state of all partitions (``*by, score, pos, neg``):
    ``.metrics.score_counts`` on all rows, sorted by its keys."""
    job = _job("score_counts", (y_true, y_score), by, weight, pos_label=pos_label, bins=bins)
    return _run(sdf, job, job.state)


def confusion_matrix(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    normalize: str | None = None,
) -> pl.DataFrame:
    """``.metrics.confusion_matrix`` of all rows of the Spark frame."""
    options = {"labels": labels, "normalize": normalize}
    return _confusion(
        sdf, "confusion_matrix", y_true, y_pred, by=by, weight=weight, options=options
    )


def per_class(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: LabelCiMethod = "delta",
) -> pl.DataFrame:
    """``.metrics.per_class`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_pred, by, labels, weight, beta, zero_division
        As :meth:`MetricsLazyFrame.per_class`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.per_class` (``"delta"``, ``"bootstrap"`` or
        ``"wilson"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.per_class`` of all rows of the Spark frame.
    """
    options = {"labels": labels, "beta": beta, "zero_division": zero_division}
    options |= {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    return _confusion(sdf, "per_class", y_true, y_pred, by=by, weight=weight, options=options)


def averages(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: AverageCiMethod = "delta",
) -> pl.DataFrame:
    """``.metrics.averages`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_pred, by, labels, weight, beta, zero_division
        As :meth:`MetricsLazyFrame.averages`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.averages` (``"delta"`` or ``"bootstrap"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.averages`` of all rows of the Spark frame.
    """
    options = {"labels": labels, "beta": beta, "zero_division": zero_division}
    options |= {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    return _confusion(sdf, "averages", y_true, y_pred, by=by, weight=weight, options=options)


def report(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: AverageCiMethod = "delta",
) -> pl.DataFrame:
    """``.metrics.report`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_pred, by, labels, weight, beta, zero_division
        As :meth:`MetricsLazyFrame.report`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.report` (``"delta"`` or ``"bootstrap"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.report`` of all rows of the Spark frame.
    """
    options = {"labels": labels, "beta": beta, "zero_division": zero_division}
    options |= {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    return _confusion(sdf, "report", y_true, y_pred, by=by, weight=weight, options=options)


def summary(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: SummaryCiMethod = "delta",
    kappa_weights: KappaWeights | None = None,
    replace_undefined_by: float = float("nan"),
) -> pl.DataFrame:
    """``.metrics.summary`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_pred, by, labels, weight, kappa_weights, replace_undefined_by
        As :meth:`MetricsLazyFrame.summary`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.summary` (``"delta"``, the default,
        ``"bootstrap"`` or ``"wilson"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.summary`` of all rows of the Spark frame.
    """
    options = {"labels": labels, "kappa_weights": kappa_weights}
    options |= {"replace_undefined_by": replace_undefined_by}
    options |= {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    return _confusion(sdf, "summary", y_true, y_pred, by=by, weight=weight, options=options)


def roc_auc(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    max_fpr: float | None = None,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: AucCiMethod = "delong",
) -> pl.DataFrame:
    """Binary ``.metrics.roc_auc`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_score, by, pos_label, weight, bins, max_fpr
        As :meth:`MetricsLazyFrame.roc_auc`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.roc_auc` (``"delong"``, the default, or ``"bootstrap"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.roc_auc`` of all rows of the Spark frame; with ``bins``, also
        ``roc_auc_error_bound``.
    """
    options = {"max_fpr": max_fpr, "ci": ci, "n_boot": n_boot, "seed": seed}
    options |= {"ci_method": ci_method}
    finish = {"error_bound": bins is not None, **options}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(sdf, "roc_auc", y_true, y_score, common=common, options=options, finish=finish)


def average_precision(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: ApCiMethod = "logit",
) -> pl.DataFrame:
    """Binary ``.metrics.average_precision`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_score, by, pos_label, weight, bins
        As :meth:`MetricsLazyFrame.average_precision`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.average_precision` (``"logit"``, the default, or
        ``"bootstrap"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.average_precision`` of all rows of the Spark frame.
    """
    options = {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(
        sdf, "average_precision", y_true, y_score, common=common, options=options, finish=options
    )


def roc_curve(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    drop_intermediate: bool = True,
) -> pl.DataFrame:
    """``.metrics.roc_curve`` of all rows of the Spark frame."""
    options = {"drop_intermediate": drop_intermediate}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(
        sdf, "roc_curve", y_true, y_score, common=common, options=options, finish=options
    )


def pr_curve(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    drop_intermediate: bool = False,
) -> pl.DataFrame:
    """``.metrics.pr_curve`` of all rows of the Spark frame."""
    options = {"drop_intermediate": drop_intermediate}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(
        sdf, "pr_curve", y_true, y_score, common=common, options=options, finish=options
    )


def ks(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
) -> pl.DataFrame:
    """``.metrics.ks`` of all rows of the Spark frame; with ``bins``, also
    ``ks_error_bound``."""
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(
        sdf,
        "ks",
        y_true,
        y_score,
        common=common,
        options={},
        finish={"error_bound": bins is not None},
    )


def gains(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    buckets: int | Sequence[float] = 10,
) -> pl.DataFrame:
    """``.metrics.gains`` of all rows of the Spark frame."""
    options = {"buckets": buckets}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(sdf, "gains", y_true, y_score, common=common, options=options, finish=options)


def drift_counts(
    sdf: SparkFrame,
    columns: str | Sequence[str],
    *,
    edges: Mapping[str, Sequence[float]],
    by: By = None,
) -> pl.DataFrame:
    """The merged ``.metrics.drift_counts`` state of all partitions (``*by, column, bin,
    lower, upper, rows``), counted at the reference's ``edges``
    (``pl_metrics.drift_edges(reference_state)``); :func:`pl_metrics.from_drift_counts`
    finishes it."""
    chosen, kwargs, keys, read = drift_shard_job(columns, edges, by)
    job = _Job("drift_counts", (chosen,), kwargs, keys, ["rows"], read, CHUNK_ROWS)
    return ds.in_bin_order(_run(sdf, job, job.state), keys)
