"""The Spark shard provider of :mod:`pl_metrics.spark`: a state job run on every
partition (``mapInArrow``, on the executors), each partition's state, label sample
and errors sent back, the check that every partition's state arrived; the rest (errors
combined, label sets, merge, dtypes) is :mod:`.jobs`'."""

from __future__ import annotations

import io
import pickle
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics._engines import jobs
from pl_metrics._engines.jobs import Job

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame as SparkFrame

_BINARY = ("state", "labels", "errors")
_ROW = "partition int, rows long, positives double, " + ", ".join(f"{c} binary" for c in _BINARY)


def require_pyspark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError as exc:
        msg = "pl_metrics.spark needs pyspark: pip install 'pl_metrics[spark]'"
        raise ImportError(msg) from exc


# ------------------------------------------------------------------ driver: schema
def schema(sdf: SparkFrame, columns: Sequence[str]) -> pl.Schema:
    """The Polars schema the executors see: the Spark columns read, through Arrow;
    every other column as Null (only its name matters to the checks)."""
    require_pyspark()
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
def _partition_states(job: Job, seen: Any) -> Any:
    """The ``mapInArrow`` function: one row per partition with its id, its count of
    rows, its state (Arrow IPC), a sample of its ``y_true`` labels and its errors
    (pickled), never a raise (:func:`.jobs.shard`); the id and count also go to the
    accumulator ``seen`` (:func:`_check_received`; None: none, on Spark Connect)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow as pa
        from pyspark import TaskContext

        context = TaskContext.get()

        def frames() -> Iterator[pl.DataFrame]:
            for chunk in _chunks(batches, job.chunk_rows):
                table = pa.Table.from_batches(chunk).rename_columns(job.columns)
                frame = pl.from_arrow(table)
                assert isinstance(frame, pl.DataFrame)
                yield frame

        partition = context.partitionId() if context else 0
        result = jobs.shard(job, frames(), partition)
        if seen is not None:
            seen.add({partition: result.rows})
        state, labels = result.state, result.labels
        row = {
            "partition": [partition],
            "rows": [result.rows],
            "positives": [result.positives],
            "state": [_ipc(state) if state is not None else None],
            "labels": [_ipc(labels.to_frame()) if labels is not None else None],
            "errors": [pickle.dumps(result.errors) if result.errors else None],
        }
        binary = pa.binary()
        fields = [("partition", pa.int32()), ("rows", pa.int64()), ("positives", pa.float64())]
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
def run(sdf: SparkFrame, job: Job, schema: pl.Schema) -> pl.DataFrame:
    """The merged state of all partitions (the frame method's dtypes), or the error
    the frame method raises on all rows (``schema``: :func:`schema`'s)."""
    from pyspark.sql.functions import col

    empty = job.state(pl.LazyFrame(schema=schema))
    # positional names: mapInArrow resolves the selected columns again by name, which
    # fails for a name with a dot ("a.b" is read as a struct field)
    selected = sdf.select(*(col(_quoted(c)).alias(f"c{i}") for i, c in enumerate(job.columns)))
    seen = _accumulator(sdf)
    rows = selected.mapInArrow(_partition_states(job, seen), _ROW).collect()
    rows = sorted(rows, key=lambda r: r["partition"])
    if seen is not None:
        _check_received(rows, seen.value, job)
    shards = [
        jobs.Shard(
            r["rows"],
            pl.read_ipc(r["state"]) if r["state"] else None,
            pl.read_ipc(r["labels"]).to_series() if r["labels"] else None,
            r["positives"],
            pickle.loads(r["errors"]) if r["errors"] else [],
        )
        for r in rows
    ]
    errors = [(None, e) for s in shards for e in s.errors]
    # the rows' checks come first (counted: "has N rows"), then the label-set checks
    jobs.raise_errors(errors, job, "spark")
    if job.method == "score_counts":
        jobs.check_labels(shards, job, schema[job.args[1]])
    # a label-set error of a chunk is one of all rows: raised just above
    jobs.raise_first(errors, "spark")
    states = [s.state for s in shards if s.state is not None]
    merged = job.merge(states) if states else empty
    return jobs.as_frame_dtypes(merged, empty, job)


def ranked(sdf: SparkFrame, job: Job, passes: int) -> SparkFrame:
    """The rows range-partitioned by ``job``'s score (equal scores in one partition, the
    partitions in ascending score ranges; :mod:`.ranked`), persisted for a second pass."""
    from pyspark.sql.functions import col

    frame = sdf.repartitionByRange(_partitions(sdf), col(_quoted(job.args[1])))
    return frame.persist() if passes > 1 else frame


def release(sdf: SparkFrame) -> None:
    """The persisted partitions of :func:`ranked` dropped."""
    if sdf.is_cached:
        sdf.unpersist()


def _partitions(sdf: SparkFrame) -> int:
    """The frame's partitions (on Spark Connect, which has no RDD: the session's
    ``spark.sql.shuffle.partitions``)."""
    try:
        return max(sdf.rdd.getNumPartitions(), 1)
    except Exception:  # pyspark's Connect session: JVM_ATTRIBUTE_NOT_SUPPORTED
        return int(sdf.sparkSession.conf.get("spark.sql.shuffle.partitions") or 200)


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


def _check_received(rows: list[Any], seen: dict[int, int], job: Job) -> None:
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
