"""The Spark shard provider of :mod:`pl_metrics.spark`: a state job run on every
partition (``mapInArrow``, on the executors), each partition's state, label sample
and errors sent back, the check that every partition's state arrived; the rest (errors
combined, label sets, merge, dtypes) is :mod:`.jobs`'."""

from __future__ import annotations

import io
import pickle
from collections.abc import Iterator, Sequence
from dataclasses import replace
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
    the frame method raises on all rows (``schema``: :func:`schema`'s): the confusion
    counts from Spark's own ``groupBy`` where it can (:func:`_grouped_counts`), else
    each partition's state from polars (``mapInArrow``)."""
    grouped = _grouped_counts(sdf, job, schema)
    if grouped is not None:
        return grouped
    return _partition_run(sdf, job, schema)


def _partition_run(sdf: SparkFrame, job: Job, schema: pl.Schema) -> pl.DataFrame:
    """:func:`run` by ``mapInArrow``: every partition's state made by polars, merged here."""
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
    if job.labelled:
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


# ------------------------------------------------- the confusion counts by groupBy
#: Spark's types that group as polars groups them (no float segments: Spark merges
#: -0.0 with 0.0 and every NaN; no string with a collation other than binary).
_GROUPED_TYPES = (
    "BooleanType",
    "ByteType",
    "ShortType",
    "IntegerType",
    "LongType",
    "StringType",
    "DateType",
    "TimestampType",
    "TimestampNTZType",
    "DecimalType",
)
_FLOAT_TYPES = ("FloatType", "DoubleType")  # labels only: polars' checks see each value
#: Counts of rows up to this are exact as Float64 (the proxy's weights, below).
_EXACT_COUNT = 2**53


def _grouped_keys(sdf: SparkFrame, job: Job) -> list[str] | None:
    """The columns a ``counts`` job groups by (its labels and ``by`` columns), where
    Spark's ``groupBy`` can make its state: named columns (no ``by`` expression: polars
    evaluates those), of types Spark groups as polars does; else None (a job of its own,
    a subclass, reads its rows its own way: over_time's and check's rows of a shard)."""
    if job.method != "counts" or job.ranked or type(job) is not Job:
        return None
    weight, by = job.kwargs["weight"], job.kwargs["by"] or []
    items = [*job.args, *by]
    if not all(isinstance(c, str) for c in items) or weight in items:
        return None
    keys = jobs.read_columns(items)
    types = {f.name: f.dataType for f in sdf.schema.fields}
    for i, name in enumerate(keys):
        kind = type(types[name]).__name__
        allowed = _GROUPED_TYPES + (_FLOAT_TYPES if i < len(job.args) else ())
        if kind not in allowed or getattr(types[name], "collation", "UTF8_BINARY") != "UTF8_BINARY":
            return None
    return keys


def _bad_weight(w: Any) -> Any:
    """Spark's :func:`pl_metrics._core.checks.weight_is_bad`: null, NaN, infinite,
    negative or subnormal (a row the frame method refuses)."""
    from pyspark.sql import functions as sf

    from pl_metrics._core.checks import MIN_NORMAL_WEIGHT

    infinite = sf.abs(w) == sf.lit(float("inf"))
    subnormal = (w > 0) & (w < sf.lit(MIN_NORMAL_WEIGHT))
    bad = w.isNull() | sf.isnan(w) | infinite | (w < 0) | subnormal
    return sf.when(bad, 1).otherwise(0)


def _grouped_counts(sdf: SparkFrame, job: Job, schema: pl.Schema) -> pl.DataFrame | None:
    """A ``counts`` job's merged state from Spark's ``groupBy(labels, *by)``: its count
    and weight per group (and the group's bad weights) are the rows of a small polars
    frame that the frame method's own ``counts`` reads, each group one row weighted by
    its rows (or summed weights).  The frame method's checks see every distinct key
    (a null label, a NaN); where one fails, or a weight is bad, None: the states of
    :func:`_partition_run` then raise the frame method's error with the rows counted.
    The groups are checked against their count and rows observed by Spark
    (:func:`_check_grouped`).  None where the job is not one Spark groups as polars
    does (:func:`_grouped_keys`)."""
    keys = _grouped_keys(sdf, job)
    if keys is None:
        return None
    from pyspark.sql import Observation
    from pyspark.sql import functions as sf

    weight = job.kwargs["weight"]
    names = [f"c{i}" for i in range(len(keys))]  # positional: a name with a dot
    columns = [sf.col(_quoted(c)).alias(n) for c, n in zip(keys, names, strict=True)]
    aggs = [sf.count(sf.lit(1)).alias("n")]
    if weight is not None:
        w = sf.col("w")
        columns.append(sf.col(_quoted(weight)).cast("double").alias("w"))
        aggs += [sf.sum(w).alias("w"), sf.sum(_bad_weight(w)).alias("bad")]
    grouped = sdf.select(*columns).groupBy(*names).agg(*aggs)
    # the groups' count and rows, computed beside them and sent apart (an Observation)
    total = Observation()
    grouped = grouped.observe(total, sf.count(sf.lit(1)).alias("groups"), sf.sum("n").alias("n"))
    rows = pl.from_arrow(grouped.toArrow())
    assert isinstance(rows, pl.DataFrame)
    _check_grouped(rows, total.get)
    if weight is not None and rows["bad"].sum() > 0:
        return None
    if weight is None and rows["n"].sum() >= _EXACT_COUNT:
        return None
    by_rows = weight or "rows" + "_" * max(map(len, keys))  # longer than every key
    proxy = rows.select(
        *(pl.col(n).cast(schema[c]).alias(c) for n, c in zip(names, keys, strict=True)),
        pl.col("n" if weight is None else "w").alias(by_rows),
    )
    try:
        state = replace(job, kwargs={**job.kwargs, "weight": by_rows}).state(proxy.lazy())
    except jobs.RAISED:
        return None  # the error of all rows, with its counts: from the partitions
    return jobs.as_frame_dtypes(state, job.state(pl.LazyFrame(schema=schema)), job)


def _check_grouped(rows: pl.DataFrame, total: dict[str, Any]) -> None:
    """The groups collected are all of them and hold all the rows: their count and
    rows against those Spark observed of the same groups (PySpark can return part of a
    result without raising when the driver runs short of memory: :func:`_check_received`)."""
    got = (rows.height, int(rows["n"].sum()))
    observed = (int(total.get("groups") or 0), int(total.get("n") or 0))
    if got == observed:
        return
    msg = (
        f"Spark returned {got[0]:,} groups of {got[1]:,} rows of the counts (of "
        f"{observed[0]:,} groups of {observed[1]:,} rows): the driver likely ran short "
        "of memory while collecting them; raise spark.driver.memory (and "
        "spark.driver.maxResultSize)"
    )
    raise RuntimeError(msg)
