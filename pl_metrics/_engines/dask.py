"""The Dask shard provider of :mod:`pl_metrics.dask`: a state job run on every shard
(a Parquet file read by polars, or a partition of a ``dask.dataframe`` converted to
polars), the shards' errors and label samples gathered first, then the states cast to
one schema and merged ``split_every`` at a time where they were made (on the
workers of a ``distributed`` client; in this process with Dask's default scheduler).
The rest (errors combined, label sets, merge, dtypes) is :mod:`.jobs`'."""

from __future__ import annotations

import glob
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pl_metrics._core.names import INTERNAL
from pl_metrics._core.options import checked
from pl_metrics._engines import jobs
from pl_metrics._engines.jobs import Job

Paths = str | Path | Sequence[str | Path]

#: The errors of reading one file (or converting one partition) kept as the shard's own.
_FILE_ERRORS = (pl.exceptions.PolarsError, ValueError, TypeError, OSError)


def require_dask() -> None:
    try:
        import dask  # noqa: F401
    except ImportError as exc:
        msg = "pl_metrics.dask needs dask: pip install 'pl_metrics[dask]'"
        raise ImportError(msg) from exc


# ------------------------------------------------------------------ the shards
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


def is_dask_frame(data: object) -> bool:
    """A ``dask.dataframe.DataFrame`` (without importing dask for paths)."""
    return hasattr(data, "to_delayed") and hasattr(data, "npartitions")


@dataclass(frozen=True)
class Shards:
    """The shards of ``data``: the tasks that read them (a file's path, or a delayed
    partition), their names in messages (a file's path; None for a partition, or
    ``partition i`` in a schema message), and the schema the driver checks."""

    sources: list[Any]
    names: list[str | None]
    schema: pl.Schema
    where: str | None  # the shard the schema was read from (named in its errors)
    data: Any = None  # the dask.dataframe or the files, as given

    def label(self, i: int) -> str:
        return self.names[i] or f"partition {i}"


def ranked(given: Shards, job: Job, passes: int, *, client: Any, split_every: int) -> Shards:
    """The shards' rows range-partitioned by ``job``'s score (equal scores in one
    partition, the partitions in ascending score ranges; :mod:`.ranked`), by polars on
    the workers: each shard read once and kept there, a sample of its scores to the
    client (:func:`_sample`), which picks one boundary per shard from them
    (:func:`_bounds`); each shard split at the boundaries (:func:`_split`) and the
    pieces of each range concatenated where they meet.  The client holds the samples
    (shards x :data:`_SAMPLE` scores), never the rows; the ranges stay on the workers
    for a second pass."""
    del passes, split_every
    runner = _runner(client)
    if not given.sources:
        return given
    score = job.args[1]
    frames = runner.read(given.sources, job.columns)
    samples = runner.gather([runner.submit(_sample, f, score) for f in frames])
    errors = [(given.names[i], e) for i, e in enumerate(samples) if isinstance(e, Exception)]
    jobs.raise_errors(errors, job, "dask")
    jobs.raise_first(errors, "dask")
    bounds = _bounds(samples, len(frames))
    parts = len(bounds) + 1
    splits = [runner.submit(_split, f, score, bounds) for f in frames]
    del frames  # on the workers: the splits hold the rows now
    ranges = [
        runner.submit(_concat, *(runner.submit(operator.getitem, s, j) for s in splits))
        for j in range(parts)
    ]
    return Shards(ranges, [None] * parts, given.schema, given.where, given.data)


#: The scores each shard sends for the boundaries of the score ranges.
_SAMPLE = 4096


def _read(source: Any, columns: Sequence[str]) -> pl.DataFrame | Exception:
    """A shard's columns read by polars (on a worker), or its reading error."""
    try:
        frame = _polars(source)
        present = [c for c in columns if c in frame.collect_schema()]
        return frame.select(present).collect()
    except _FILE_ERRORS as exc:
        return exc


def _scores(frame: pl.DataFrame, score: str) -> pl.Series:
    """The scores as Float64, the order of the ranges: a monotone map (equal scores stay
    equal, so they meet in one range; a null score goes to the first range, NaN to the
    last, where the range's checks count it)."""
    return frame[score].cast(pl.Float64)


def _sample(frame: pl.DataFrame | Exception, score: str) -> tuple[int, pl.Series] | Exception:
    """A shard's rows and about :data:`_SAMPLE` of its scores, every k-th row's (or the
    shard's reading error, or the error of its scores' dtype)."""
    if isinstance(frame, Exception):
        return frame
    try:
        scores = _scores(frame, score).gather_every(max(frame.height // _SAMPLE, 1))
    except (pl.exceptions.PolarsError, TypeError) as exc:
        return exc
    return frame.height, scores.drop_nulls().drop_nans()


def _bounds(samples: list[Any], parts: int) -> pl.Series:
    """``parts - 1`` boundaries (or fewer: distinct ones) at the rows' quantiles, each
    sampled score standing for its share of its shard's rows."""
    frames = [
        pl.DataFrame({"score": s, "rows": pl.repeat(n / s.len(), s.len(), eager=True)})
        for n, s in samples
        if s.len()
    ]
    if not frames or parts < 2:
        return pl.Series("score", [], pl.Float64)
    pooled = pl.concat(frames).sort("score")
    share = pooled["rows"].cum_sum() / pooled["rows"].sum()
    wanted = pl.Series([k / parts for k in range(1, parts)])
    at = share.search_sorted(wanted).clip(0, pooled.height - 1)
    return pooled["score"].gather(at).unique().sort()


def _split(frame: pl.DataFrame, score: str, bounds: pl.Series) -> tuple[pl.DataFrame, ...]:
    """A shard's rows split at the boundaries: one frame per score range, in order."""
    part = f"{INTERNAL}range"
    index = bounds.search_sorted(_scores(frame, score), side="right")
    pieces = frame.with_columns(index.alias(part)).partition_by(
        part, as_dict=True, include_key=False
    )
    return tuple(pieces.get((j,), frame.clear()) for j in range(bounds.len() + 1))


def _concat(*pieces: pl.DataFrame) -> pl.DataFrame | Exception:
    """A score range's pieces from every shard (their dtypes widened as polars does),
    or the error of pieces that cannot meet (raised by the range's shard)."""
    try:
        return pl.concat(pieces, how="vertical_relaxed")
    except _FILE_ERRORS as exc:
        return exc


def release(given: Shards) -> None:
    """Nothing to drop: the persisted partitions go with the last reference."""
    del given


def shards(data: object, columns: Sequence[str]) -> Shards:
    """Parquet path(s) or a ``dask.dataframe``: its shards and the schema of its rows
    (of the first file; of the frame's ``_meta``)."""
    require_dask()
    if is_dask_frame(data):
        frame: Any = data
        present = [c for c in columns if c in frame.columns]
        parts = list(frame[present].to_delayed())
        schema = _frame_schema(frame, present)
        return Shards(parts, [None] * frame.npartitions, schema, None, frame)
    files = expand(data)  # type: ignore[arg-type]
    try:
        schema = pl.scan_parquet(files[0]).collect_schema()
    except _FILE_ERRORS as exc:
        raise jobs.named(exc, [files[0]]) from exc
    return Shards(files, list(files), schema, files[0], files)


def _frame_schema(frame: Any, read: list[str]) -> pl.Schema:
    """The polars schema of a ``dask.dataframe``'s rows, from its ``_meta``; a column
    read whose pandas dtype is ``object`` (lists: multilabel sets) from the first
    partition with rows, as a worker converts it."""
    schema = dict(pl.from_pandas(frame._meta).schema)
    opaque = [c for c in read if str(frame._meta.dtypes[c]) == "object"]
    for i in range(frame.npartitions if opaque else 0):  # the first partition with rows
        rows = pl.from_pandas(frame.partitions[i][opaque].compute())
        if rows.height:
            schema |= {c: d for c, d in rows.head(1).schema.items() if d != pl.Null}
            break
    return pl.Schema(schema)


def prepare(data: object, columns: Sequence[str]) -> tuple[Shards, pl.Schema, str | None]:
    """The engine's first step (:class:`.declared.Engine`): the shards, their schema and
    the shard it was read from."""
    given = shards(data, columns)
    return given, given.schema, given.where


def _polars(source: Any) -> pl.LazyFrame:
    """A shard's rows: a Parquet file scanned, or a partition (pandas, Arrow, polars)."""
    if isinstance(source, Exception):  # a score range whose pieces could not meet
        raise source
    if isinstance(source, str):
        return pl.scan_parquet(source)
    if isinstance(source, (pl.DataFrame, pl.LazyFrame)):
        return source.lazy()
    arrow = hasattr(source, "schema") and hasattr(source, "column")  # an Arrow table
    frame = pl.from_arrow(source) if arrow else pl.from_pandas(source)
    assert isinstance(frame, pl.DataFrame)
    return frame.lazy()


def _shard(source: Any, job: Job, index: int) -> jobs.Shard:
    """One shard's :class:`.jobs.Shard` (on a worker), its reading errors its own
    (``index``: its rank, :func:`.jobs.shard`)."""
    try:
        return jobs.shard(job, [_polars(source)], index)
    except _FILE_ERRORS as exc:
        return jobs.Shard(0, None, errors=[exc])


def _meta(shard: jobs.Shard) -> tuple[jobs.Shard, list[tuple[str, pl.DataType]] | None]:
    """What the client reads of a shard first: all but its state, and its state's schema."""
    schema = list(shard.state.schema.items()) if shard.state is not None else None
    return jobs.Shard(shard.rows, None, shard.labels, shard.positives, shard.errors), schema


# ------------------------------------------------------------------ where tasks run
class _Local:
    """Dask's default scheduler: the shards computed by ``dask.compute``, the merges here."""

    def start(self, sources: list[Any], job: Job) -> list[Any]:
        """Each shard's :class:`.jobs.Shard` (a source: a path, a delayed partition, or a
        materialized one)."""
        import dask

        return list(dask.compute(*_tasks(sources, job)))

    def read(self, sources: list[Any], columns: list[str]) -> list[Any]:
        """Each shard's columns as a polars frame (or its reading error)."""
        import dask

        return list(dask.compute(*(dask.delayed(_read)(s, columns) for s in sources)))

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return fn(*args)

    def gather(self, items: list[Any]) -> list[Any]:
        return items

    def result(self, item: Any) -> Any:
        return item


@dataclass
class _Distributed:
    """A ``distributed`` client: the states stay on the workers until merged."""

    client: Any

    def start(self, sources: list[Any], job: Job) -> list[Any]:
        from distributed import Future

        if sources and all(isinstance(s, Future) for s in sources):  # materialized
            return [self.submit(_shard, s, job, i) for i, s in enumerate(sources)]
        return list(self.client.compute(_tasks(sources, job)))

    def read(self, sources: list[Any], columns: list[str]) -> list[Any]:
        """Each shard's columns as a polars frame kept on a worker (or its reading error)."""
        import dask

        return list(self.client.compute([dask.delayed(_read)(s, columns) for s in sources]))

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False)

    def gather(self, items: list[Any]) -> list[Any]:
        return list(self.client.gather(items))

    def result(self, item: Any) -> Any:
        return item.result()


def _tasks(sources: list[Any], job: Job) -> list[Any]:
    import dask

    return [dask.delayed(_shard)(source, job, i) for i, source in enumerate(sources)]


def _runner(client: Any) -> _Local | _Distributed:
    """``client``, else the current ``distributed`` client, else Dask's default scheduler."""
    if client is None:
        try:
            from distributed import get_client

            client = get_client()
        except (ImportError, ValueError):
            return _Local()
    return _Distributed(client)


# ------------------------------------------------------------------ driver: merge
def run(
    given: Shards, job: Job, schema: pl.Schema, *, client: Any, split_every: int
) -> pl.DataFrame:
    """The state ``job`` of every shard, merged ``split_every`` at a time where the
    states are: with the frame method's count dtypes, sorted by its keys."""

    (split_every,) = checked(job.method, split_every=split_every)
    runner = _runner(client)
    states = runner.start(given.sources, job)
    # a ranked job's states are summaries (segments rows each): gathered whole, at once
    whole = runner.gather(states) if job.ranked else None
    read = (
        [_meta(s) for s in whole]
        if whole is not None
        else runner.gather([runner.submit(_meta, s) for s in states])
    )
    metas = [m for m, _ in read]
    errors = [(given.names[i], e) for i, m in enumerate(metas) for e in m.errors]
    # the rows' checks come first (counted: "has N rows"), then the label-set checks
    jobs.raise_errors(errors, job, "dask")
    if job.labelled:
        jobs.check_labels(metas, job, schema.get(job.args[1], pl.Float64()))
    jobs.raise_first(errors, "dask")
    if not states:
        empty = job.state(pl.LazyFrame(schema=schema))
        return jobs.as_frame_dtypes(empty, empty, job)
    if whole is not None:
        summaries = [s.state for s in whole if s.state is not None]
        return jobs.as_frame_dtypes(job.merge(summaries), pl.DataFrame(), job)
    # The states' dtypes may differ between shards (Int32 labels here, Int64 there):
    # all are cast to one schema, or the shards and dtypes that cannot meet are named.
    labels = [given.label(i) for i in range(len(states))]
    schema = _common_schema(labels, [s for _, s in read])
    states = [
        runner.submit(_cast, state, schema, label)
        for state, label in zip(states, labels, strict=True)
    ]
    while len(states) > 1:
        states = [
            runner.submit(_merge, job, *states[i : i + split_every])
            for i in range(0, len(states), split_every)
        ]
    # the counts as the frame method gives them: Int64 (a shard of chunks summed in Int128)
    counts = {c: pl.Int64() if d == pl.Int128 else d for c, d in schema.items()}
    return jobs.as_frame_dtypes(runner.result(states[0]), pl.DataFrame(schema=counts), job)


def _merge(job: Job, *states: jobs.Shard | pl.DataFrame) -> pl.DataFrame:
    frames = [s.state if isinstance(s, jobs.Shard) else s for s in states]
    return job.merge([f for f in frames if f is not None])


def _common_dtype(column: str, seen: dict[pl.DataType, list[str]]) -> pl.DataType:
    """The dtype that holds every shard's ``column`` losslessly, else a SchemaError.

    Integers widen to an integer type that holds them all; integers and floats
    meet in Float64 (the cast of each value is checked); String, Categorical and
    Enum meet in String; Null (a column of an empty shard) meets anything.
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
    found = "; ".join(f"{d} in {_listed(names)}" for d, names in seen.items())
    msg = f"cannot merge the shards' states: column {column!r} is {found}"
    raise pl.exceptions.SchemaError(msg)


def _listed(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown} and {len(names) - limit} more"


def _common_schema(
    labels: list[str], schemas: list[list[tuple[str, pl.DataType]] | None]
) -> pl.Schema:
    """The schema all the shards' states are cast to before they are merged."""
    columns: dict[str, dict[pl.DataType, list[str]]] = {}
    for label, schema in zip(labels, schemas, strict=True):
        for column, dtype in schema or []:
            columns.setdefault(column, {}).setdefault(dtype, []).append(label)
    return pl.Schema({c: _common_dtype(c, seen) for c, seen in columns.items()})


def _cast(shard: jobs.Shard, schema: pl.Schema, label: str) -> pl.DataFrame:
    """The shard's state cast to ``schema``, refusing a cast that changes a value."""
    state = shard.state
    assert state is not None
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
                f"{label}: column {column!r} ({before.dtype}) has values that {dtype} "
                "cannot hold exactly; cannot merge it with the other shards' states"
            )
            raise pl.exceptions.SchemaError(msg)
    return cast
