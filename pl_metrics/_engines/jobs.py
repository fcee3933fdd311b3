"""The engine-neutral half of running a state method on shards: the job (a state
method, its arguments, the columns it reads, how its states merge), one shard's
result, and on the driver the shards' errors combined, the label sets checked and
the merged state given the frame method's dtypes.

The shard providers (:mod:`.spark`: ``mapInArrow``; :mod:`.dask`: Parquet files or a
``dask.dataframe``'s partitions) only run :func:`shard` on each of their partitions
and hand the results back; everything here is the same for both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from pl_metrics import metrics
from pl_metrics._core import checks
from pl_metrics._core.messages import Bad, in_engine_terms, retyped
from pl_metrics._core.names import COUNTS_STATE, MULTILABEL_STATE, SCORE_STATE
from pl_metrics._engines import calibration, class_scores, drift_states, losses, ranked, row_means
from pl_metrics._engines.ranked import Asked
from pl_metrics._engines.shards import check_label_sets, label_sample
from pl_metrics.state import sum_states

#: The errors a shard's rows raise that come back to the driver as values (never a
#: raise on the executor or worker: the driver counts the bad rows of every shard).
RAISED = (pl.exceptions.PolarsError, ValueError, TypeError, ArithmeticError)
#: A shard's states merged there once this many chunks' states have piled up.
MERGE_EVERY = 8

#: Each state method: its key columns after ``*by``, its summed columns, the columns
#: whose sum is a segment's total weight.
_STATES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "counts": (tuple(COUNTS_STATE)[:2], ("count",), ("count",)),
    "score_counts": (tuple(SCORE_STATE)[:1], ("pos", "neg"), ("pos", "neg")),
    "multilabel_counts": (
        ("part", "label", "n_true", "n_pred", "n_common"),
        ("support", "predicted", "tp", "count"),
        ("count",),
    ),
    # the engines' own states (no .metrics method)
    "loss_sums": losses.SHAPE,
    "calibration_sums": calibration.SHAPE,
    "calibration_totals": calibration.TOTALS_SHAPE,
    "calibration_values": calibration.VALUES_SHAPE,
    "cost_sums": losses.COST_SHAPE,
    **dict.fromkeys(row_means.MAKERS, row_means.SHAPE),
    **class_scores.SHAPES,  # multiclass scores (:mod:`.class_scores`)
    # drift's states of each side (:mod:`.drift_states`)
    "drift_rows": drift_states.ROWS_SHAPE,
    "drift_values": drift_states.VALUES_SHAPE,
    "drift_bins": drift_states.BINS_SHAPE,
}
_MAKERS: dict[str, Callable[..., Any]] = {
    "loss_sums": losses.loss_sums,
    "calibration_sums": calibration.calibration_sums,
    "calibration_totals": calibration.calibration_totals,
    "calibration_values": calibration.calibration_values,
    "cost_sums": losses.cost_sums,
    **row_means.MAKERS,
    **class_scores.MAKERS,
    "drift_rows": drift_states.side_rows,
    "drift_values": drift_states.side_values,
    "drift_bins": drift_states.side_bins,
}
#: The multilabel state's two parts: their keys and their summed columns.
_MULTILABEL_PARTS = {
    "label": (["label"], ["support", "predicted", "tp"]),
    "rows": (["n_true", "n_pred", "n_common"], ["count"]),
}


@dataclass(frozen=True)
class Job:
    """One state method, its arguments and the columns it reads (picklable: it
    travels to the executors and workers)."""

    method: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    keys: list[str]
    values: list[str]
    columns: list[str]
    chunk_rows: int
    totals: tuple[str, ...] = ()
    #: The exact AUC of rows range-partitioned by score: each shard sends its counts
    #: per segment (:mod:`.ranked`), not its per-score state.
    ranked: bool = False
    #: ... and its second pass (the average precision, KS): each partition's prefix.
    prefix: pl.DataFrame | None = None
    #: ... and what its partitions compute beyond the AUC's counts (:class:`.ranked.Asked`;
    #: None: the AP's terms in the second pass).
    asked: Asked | None = None

    @property
    def y_true(self) -> Any:
        return self.args[0]

    @property
    def labelled(self) -> bool:
        """Its shards send a sample of their labels (:meth:`sample`), whose union the
        driver checks (:meth:`check_samples`): the score state forgets the labels."""
        return self.method == "score_counts"

    def sample(self, frame: pl.DataFrame | pl.LazyFrame) -> pl.Series:
        """A chunk's labels that the label-set checks read (:func:`.shards.label_sample`)."""
        rows = checks.without_zero_weights(frame.lazy(), self.kwargs["weight"])
        return label_sample(rows.select(self.y_true).collect().to_series())

    def check_samples(
        self, samples: list[pl.Series], positives: float | None, score_dtype: pl.DataType
    ) -> None:
        """On the driver: the frame method's label-set checks of all rows, on the
        shards' samples (:func:`.shards.check_label_sets`)."""
        y_true, y_score = self.args
        check_label_sets(
            samples,
            positives,
            y_true=y_true,
            y_score=y_score,
            score_dtype=score_dtype,
            pos_label=self.kwargs["pos_label"],
            bins=self.kwargs["bins"],
        )

    def summary(self, state: pl.DataFrame, index: int) -> pl.DataFrame:
        """A ranked shard's state as what it sends: its counts per segment (or, with a
        prefix, its second pass's sums; :mod:`.ranked`); ``index``: its score range's rank."""
        segments = self.keys[:-1]
        if self.prefix is None:
            return ranked.summary(state, segments, index, self.asked)
        return ranked.second(state, segments, index, self.prefix, self.asked)

    def state(self, lf: pl.LazyFrame) -> pl.DataFrame:
        if self.method in _MAKERS:  # the engines' own states
            return _MAKERS[self.method](lf, *self.args, **self.kwargs).collect()
        return getattr(metrics(lf), self.method)(*self.args, **self.kwargs).collect()

    def merge(self, states: list[pl.DataFrame]) -> pl.DataFrame:
        """The states summed over equal keys (Int128 sums of integer counts)."""
        state = pl.concat(states, how="vertical_relaxed")
        if self.ranked and ranked.PART in state.columns:  # partitions' summaries
            return state
        if self.method != "multilabel_counts":
            return sum_states(state, self.keys, self.values)
        segments = self.keys[: len(self.keys) - len(_STATES["multilabel_counts"][0])]
        parts = []
        for part, (keys, values) in _MULTILABEL_PARTS.items():
            rows = state.filter(pl.col("part") == part)
            parts.append(sum_states(rows, [*segments, "part", *keys], values))
        both = pl.concat(parts, how="diagonal_relaxed")
        return both.select(*segments, *MULTILABEL_STATE)


def read_columns(items: Iterable[object]) -> list[str]:
    """The columns named by a method's column arguments (a name, an expression's roots,
    a mapping's or a list's names), each once, in order."""
    columns: list[str] = []
    for item in items:
        if item is None:
            continue
        if isinstance(item, pl.Expr):
            roots: list[object] = list(item.meta.root_names())
        elif isinstance(item, Mapping):
            roots = [c for c in item.values() if isinstance(c, str)]
        elif isinstance(item, (list, tuple)):
            roots = list(read_columns(item))
        else:
            roots = [item]
        columns += [c for c in roots if isinstance(c, str) and c not in columns]
    return columns


def job(
    method: str,
    args: tuple[Any, ...],
    *,
    by: object = None,
    weight: str | None = None,
    chunk_rows: int = 0,
    **kwargs: Any,
) -> Job:
    """The job of state ``method`` (``counts``, ``score_counts``, ``multilabel_counts``)
    called with ``args`` and the keyword arguments."""
    segments = checks.normalize_by(by)
    keys, values, totals = _STATES[method]
    return Job(
        method,
        args,
        {"by": list(segments.given) or None, "weight": weight, **kwargs},
        [*segments.names, *keys],
        list(values),
        read_columns([*args, weight, *segments.given]),
        chunk_rows,
        totals,
    )


# ------------------------------------------------------------------ on each shard
@dataclass
class Shard:
    """What one shard sends back: its rows read, its state (None after an error), a
    sample of its ``y_true`` labels (score states), its positives and its errors."""

    rows: int
    state: pl.DataFrame | None
    labels: pl.Series | None = None
    positives: float | None = None
    errors: list[Exception] = field(default_factory=list)


def shard(job: Job, frames: Iterable[pl.DataFrame | pl.LazyFrame], index: int = 0) -> Shard:
    """The state of a shard's rows (given as chunks: frames, or a scan whose rows are
    not counted), never a raise: the errors are returned (the driver combines the bad
    rows counted by every shard).  ``index``: the shard's rank among the score ranges
    of a ranked job, whose state is then its summary (:mod:`.ranked`)."""
    states: list[pl.DataFrame] = []
    labels: list[pl.Series] = []
    errors: list[Exception] = []
    read = 0
    for frame in frames:
        read += frame.height if isinstance(frame, pl.DataFrame) else 0
        try:
            if job.labelled:
                labels.append(job.sample(frame))
            states.append(job.state(frame.lazy()))
        except RAISED as exc:
            errors.append(exc)
        if len(states) >= MERGE_EVERY:
            states = [job.merge(states)]
    state = (states[0] if len(states) == 1 else job.merge(states)) if states else None
    state = None if errors else state
    positives = float(state["pos"].sum()) if state is not None and "pos" in state.columns else None
    if job.ranked and state is not None:
        state = job.summary(state, index)
    sample = pl.concat(labels).unique() if labels else None
    return Shard(read, state, sample, positives, errors)


# ------------------------------------------------------------------ on the driver
#: A message's count of bad rows, after its verb ("has 3 ", or of several columns
#: "have, in one of them or more, 3 ").
COUNT = re.compile(r"\b(has|have|have, in one of them or more,) (\d+) ")


def raise_errors(errors: Sequence[tuple[str | None, Exception]], job: Job, engine: str) -> None:
    """Raise the shards' errors of counted bad rows as the frame method's error on all
    rows (their counts summed; the shards named where they have names: files), in
    the engine's idiom.  Errors that count no rows are left to :func:`raise_first`."""
    counted = [(n, e) for n, e in errors if len(COUNT.findall(masked(str(e), job.columns))) == 1]
    if not counted:
        return
    error = combined([e for _, e in counted], job)
    names = [n for n, _ in counted] if error is not counted[0][1] else [counted[0][0]]
    raise in_engine_terms(named(error, names), engine)


def raise_first(errors: Sequence[tuple[str | None, Exception]], engine: str) -> None:
    """Raise the first shard's error (its name in front), in the engine's idiom."""
    if errors:
        name, error = errors[0]
        raise in_engine_terms(named(error, [name]), engine)


def named(exc: Exception, names: Sequence[str | None], limit: int = 3) -> Exception:
    """``exc`` with the shards' names (files' paths) in front; unchanged without names."""
    given = [n for n in names if n is not None]
    if not given:
        return exc
    shown = ", ".join(given[:limit])
    shown = shown if len(given) <= limit else f"{shown} and {len(given) - limit} more"
    return retyped(exc, f"{shown}: {exc}")


def combined(errors: list[Exception], job: Job) -> Exception:
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
    texts = [masked(str(e), job.columns) for e in errors]
    skeleton = COUNT.sub(r"\1 # ", texts[0])
    one_check = all(
        type(e) is type(first) and COUNT.sub(r"\1 # ", m) == skeleton
        for e, m in zip(errors, texts, strict=True)
    )
    if not one_check or len(errors) == 1:
        return first
    total = sum(int(COUNT.findall(m)[0][1]) for m in texts)
    text = COUNT.sub(rf"\g<1> {total} ", texts[0])
    for i, column in enumerate(job.columns):
        text = text.replace(f"\0{i}\0", repr(column))
    return retyped(first, text)


def masked(message: str, columns: Sequence[str]) -> str:
    """``message`` with the quoted column names replaced (a name holding "has 3 ")."""
    for i, column in enumerate(columns):
        message = message.replace(repr(column), f"\0{i}\0")
    return message


def check_labels(shards: Sequence[Shard], job: Job, score_dtype: pl.DataType) -> None:
    """The label-set checks of all rows of a score state (the default ``pos_label``
    meets labels other than {0, 1} and {-1, 1}; ``pos_label`` absent): the frame
    method's own checks on a few rows holding the shards' label samples."""
    if not job.labelled:
        return
    positives = [s.positives for s in shards if s.positives is not None]
    samples = [s.labels for s in shards if s.labels is not None]
    job.check_samples(samples, sum(positives) if positives else None, score_dtype)


def as_frame_dtypes(merged: pl.DataFrame, empty: pl.DataFrame, job: Job) -> pl.DataFrame:
    """The merged state with the frame method's count dtypes (Int128 sums back to
    Int64, refusing one that does not fit), sorted by its keys; weights whose sum over a
    segment is infinite are refused (each shard's sum may be finite).  A ranked job's
    summaries as they are."""
    if job.ranked:
        return merged
    if job.kwargs.get("weight") is not None and job.totals:
        segments = job.keys[: len(job.keys) - len(_STATES[job.method][0])]
        total = pl.sum_horizontal(job.totals).sum()
        totals = merged.group_by(segments).agg(total) if segments else merged.select(total)
        if totals.select(checks.weight_total_too_large(pl.col(totals.columns[-1])).max()).item():
            raise Bad.weight_overflow(job.kwargs["weight"])
    counts = [pl.col(c).cast(empty.schema[c], strict=True) for c in job.values]
    merged = merged.with_columns(counts).select(empty.columns)
    return merged.sort(job.keys, nulls_last=False, maintain_order=True)
