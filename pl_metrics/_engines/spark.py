"""The engine of :mod:`pl_metrics.spark`: a state method run on every partition
(``mapInArrow``, on the executors), the states merged on the driver, the rows'
errors raised as the frame method raises them on all rows.  See that module."""

from __future__ import annotations

import io
import pickle
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics import metrics
from pl_metrics._core import checks as v
from pl_metrics._core.messages import Bad, in_engine_terms, retyped
from pl_metrics._engines.shards import check_label_sets, label_sample
from pl_metrics.state import sum_states

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame as SparkFrame

#: Per-partition states merged on the executor once this many have piled up.
_MERGE_EVERY = 8
_BINARY = ("state", "labels", "errors")
_ROW = "partition int, rows long, " + ", ".join(f"{c} binary" for c in _BINARY)
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
def _partition_states(job: _Job, seen: Any) -> Any:
    """The ``mapInArrow`` function: one row per partition with its id, its count of
    rows, its state (Arrow IPC), a sample of its ``y_true`` labels and its errors
    (pickled), never a raise; the id and count also go to the accumulator ``seen``
    (:func:`_check_received`; None: none, on Spark Connect)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow as pa
        from pyspark import TaskContext

        context = TaskContext.get()
        states: list[pl.DataFrame] = []
        labels: list[pl.Series] = []
        errors: list[Exception] = []
        read = 0
        for chunk in _chunks(batches, job.chunk_rows):
            frame = pl.from_arrow(pa.Table.from_batches(chunk).rename_columns(job.columns))
            assert isinstance(frame, pl.DataFrame)
            read += frame.height
            if job.method == "score_counts":
                rows = v.without_zero_weights(frame.lazy(), job.kwargs["weight"])
                labels.append(label_sample(rows.select(job.y_true).collect().to_series()))
            try:
                states.append(job.state(frame.lazy()))
            except _RAISED as exc:
                errors.append(exc)
            if len(states) >= _MERGE_EVERY:
                states = [job.merge(states)]
        partition = context.partitionId() if context else 0
        if seen is not None:
            seen.add({partition: read})
        row = {
            "partition": [partition],
            "rows": [read],
            "state": [_ipc(job.merge(states)) if states and not errors else None],
            "labels": [_ipc(pl.concat(labels).to_frame()) if labels else None],
            "errors": [pickle.dumps(errors) if errors else None],
        }
        binary = pa.binary()
        fields = [("partition", pa.int32()), ("rows", pa.int64())]
        schema = pa.schema([*fields, *((c, binary) for c in _BINARY)])
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
    seen = _accumulator(sdf)
    rows = selected.mapInArrow(_partition_states(job, seen), _ROW).collect()
    rows = sorted(rows, key=lambda r: r["partition"])
    if seen is not None:
        _check_received(rows, seen.value, job)
    errors = [e for r in rows if r["errors"] for e in pickle.loads(r["errors"])]
    # the rows' checks come first (counted: "has N rows"), then the label-set checks
    counted = [e for e in errors if len(_COUNT.findall(_masked(str(e), job.columns))) == 1]
    if counted:
        raise in_engine_terms(_combined(counted, job), "spark")
    if job.method == "score_counts":
        _check_labels(rows, job, schema)
    if errors:  # a label-set error of a chunk is one of all rows: raised just above
        raise in_engine_terms(errors[0], "spark")
    states = [pl.read_ipc(r["state"]) for r in rows if r["state"]]
    merged = job.merge(states) if states else empty
    return _as(merged, empty, job)


def _accumulator(sdf: SparkFrame) -> Any:
    """A :class:`_Seen` accumulator of the session; None on Spark Connect, which has no
    SparkContext (its results come back over gRPC, not through the driver's socket
    whose out-of-memory :func:`_check_received` catches)."""
    try:
        context = sdf.sparkSession.sparkContext
    except Exception:  # pyspark's Connect session: JVM_ATTRIBUTE_NOT_SUPPORTED
        return None
    return context.accumulator({}, _Seen())


class _Seen:
    """PySpark's ``AccumulatorParam`` (its two methods; a plain class, so that this
    module imports without pyspark) of {partition id: rows read}: a partition's task
    run again adds the same entry (a union, not a sum)."""

    def zero(self, value: dict[int, int]) -> dict[int, int]:
        return {}

    def addInPlace(self, a: dict[int, int], b: dict[int, int]) -> dict[int, int]:  # noqa: N802
        a.update(b)
        return a


def _check_received(rows: list[Any], seen: dict[int, int], job: _Job) -> None:
    """Every partition the executors ran sent its row, and the rows it counted: PySpark's
    ``collect()`` can return part of the rows without raising when the driver runs
    short of memory (an outside run of 10M rows at 2g of driver memory: one
    partition's state of two, and a wrong AUC).  The executors' ids and counts come
    back through an accumulator, apart from the collected rows."""
    received = {r["partition"]: r["rows"] for r in rows}
    if len(received) == len(rows) and received == seen:
        return
    missing = sorted(set(seen) - set(received))
    read, got = sum(seen.values()), sum(r["rows"] for r in rows)
    advice = "raise spark.driver.memory (and spark.driver.maxResultSize)"
    if job.method == "score_counts" and job.kwargs.get("bins") is None:
        advice += ", or pass bins= (a state of bins, not of every distinct score)"
    msg = (
        f"Spark returned the states of {len(received)} of {len(seen)} partitions "
        f"({got:,} of {read:,} rows read; partitions missing: {missing[:10]}): the driver "
        f"likely ran short of memory while collecting them; {advice}"
    )
    raise RuntimeError(msg)


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
    return retyped(first, text)


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
        if totals.select(v.weight_total_too_large(pl.col(totals.columns[-1])).max()).item():
            raise Bad.weight_overflow(job.kwargs["weight"])
    counts = [pl.col(c).cast(empty.schema[c], strict=True) for c in job.values]
    merged = merged.select(*job.keys, *counts)
    return merged.sort(job.keys, nulls_last=False, maintain_order=True)
