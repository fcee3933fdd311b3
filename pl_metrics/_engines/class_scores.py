"""The mergeable state of multiclass scores (``{label: column}``, one-vs-rest) on the
engines, and its finishers.

Each shard makes the frame method's own multiclass state
(``_core.scores.multiclass_score_counts``, with all its data checks: null or unknown
labels, bad scores, bad weights): per segment, score column (its class), distinct
score and actual label, the rows' count (or weight).  The counts merge by addition,
and every one-vs-rest metric is a function of the merged state
(``_ranking.multiclass``: per class, micro, macro / weighted means, the curves,
DeLong's interval of each class's AUC), so the finishers are the frame method's own
computations on it.  :func:`class_totals`, the same state summed over the scores
(segments x classes x labels rows), is the first pass of the exact path of
un-weighted rows (:mod:`.classes`): the data checks of all rows and each class's
positives, without the rows' scores on the driver.

What the merged state cannot answer is refused (``NotImplementedError``, before any
job where it can be): the interval of the macro / weighted mean (its covariances of
the classes' AUCs are sums over the rows of each row's placements in every class)
and the bootstrap (it redraws whole rows, each with all its classes' scores).

Multilabel scores with ``average="samples"`` are a mean over the rows of each row's
own AUC or AP (its true labels against its other labels): the engines' per-row sums
(:mod:`.row_means`, the frame method's ``row_value`` of the frame method's checked
rows; with ``max_fpr`` each row's partial AUC, ``row_partial_aucs``), whose finisher
divides them (:data:`SAMPLES_FINISHERS`).  Per label, their macro / weighted means
and micro: :mod:`.label_scores`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from pl_metrics._core import catalogue, names, scores
from pl_metrics._core.scores import CLASS, N_ROWS, SCORE, TRUE
from pl_metrics._engines import label_scores, row_means
from pl_metrics._ranking import multiclass
from pl_metrics._typing import AucAverage, AucCiMethod, By, MultiClass

#: The states' keys after ``*by``, their summed columns, those summing to the weight
#: (:data:`pl_metrics._engines.jobs._STATES`' shape).
SHAPE = ((CLASS, SCORE, TRUE), (N_ROWS,), (N_ROWS,))
TOTALS_SHAPE = ((CLASS, TRUE), (N_ROWS,), (N_ROWS,))


def class_score_counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: Mapping[object, str],
    *,
    by: By = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, CLASS, SCORE, TRUE, N_ROWS`` of ``lf``'s rows: the state a shard sends
    (the frame method's multiclass state, its ``by`` names restored)."""
    state = scores.multiclass_score_counts(lf, y_true, y_score, by=by, weight=weight, reserved=())
    return state.finish(state.frame)


def class_totals(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: Mapping[object, str],
    *,
    by: By = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, CLASS, TRUE, N_ROWS``: :func:`class_score_counts` summed over the scores
    (each class's rows per actual label, with all the rows' checks)."""
    state = class_score_counts(lf, y_true, y_score, by=by, weight=weight)
    keys = [c for c in state.collect_schema().names() if c not in (SCORE, N_ROWS)]
    return state.group_by(keys).agg(pl.col(N_ROWS).sum())


#: The ranking metrics whose multilabel ``average="samples"`` is a mean of per-row values.
SAMPLES = ("roc_auc", "average_precision")
#: The engines' states of multiclass and multilabel scores, by name: the function
#: making each.
MAKERS: dict[str, Callable[..., pl.LazyFrame]] = {
    "class_score_counts": class_score_counts,
    "class_totals": class_totals,
    **{f"samples_{m}_sums": functools.partial(row_means.row_sums, metric=m) for m in SAMPLES},
    "samples_partial_roc_auc_sums": row_means.partial_auc_sums,
    **label_scores.MAKERS,  # multilabel scores per label
}
SHAPES = {
    "class_score_counts": SHAPE,
    "class_totals": TOTALS_SHAPE,
    **{f"samples_{m}_sums": row_means.SHAPE for m in SAMPLES},
    "samples_partial_roc_auc_sums": row_means.SHAPE,
    **label_scores.SHAPES,
}


class ClassScores:
    """A merged :func:`class_score_counts` state, as the frame method's
    ``ScoreCounts`` (internal segment keys) and its segments (``by`` names)."""

    def __init__(self, state: pl.DataFrame, *, by: list[str]) -> None:
        keys = names.segment_keys(by)
        frame = state.lazy()
        if by:
            frame = frame.rename(dict(zip(by, keys, strict=True)))
        else:  # one segment: the constant key
            frame = frame.with_columns(pl.lit(0, pl.Int8).alias(names.ALL))
        self.counts = scores.ScoreCounts(frame, list(by), keys)


def refused(method: str, what: str, why: str) -> NotImplementedError:
    """The error of an option the engines do not compute from merged states."""
    return NotImplementedError(
        f"pl_metrics engines: {method} of {{label: column}} scores with {what} is not "
        f"computed on the engines yet ({why}); use the .metrics method on polars rows"
    )


def check_interval(method: str, average: str | None, ci: float | None, ci_method: str) -> None:
    """Refuse the intervals that are no function of the merged state: the bootstrap
    (whole rows redrawn) and DeLong's interval of the macro / weighted mean."""
    if ci is None:
        return
    if ci_method != "delong":
        why = "the bootstrap redraws whole rows, which no merged state holds"
        raise refused(method, f"ci_method={ci_method!r}", why)
    if average is not None:
        why = "the covariances of the classes' AUCs are sums over the rows, not of a merged state"
        raise refused(method, f"ci and average={average!r}", why)


def roc_auc(
    state: ClassScores,
    *,
    multi_class: MultiClass = "ovr",
    average: AucAverage | None = "macro",
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: AucCiMethod = "delong",
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.roc_auc` of ``{label: column}`` scores, of a merged
    :func:`class_score_counts` state: per class (DeLong's interval of each with
    ``ci``), micro, or the macro / weighted mean (``n_boot`` and ``seed``: the
    bootstrap's, refused)."""
    del n_boot, seed
    check_interval("roc_auc", average, ci, ci_method)
    return _roc_auc(state.counts, multi_class=multi_class, average=average, ci=ci)


def _roc_auc(
    counts: scores.ScoreCounts, *, multi_class: str, average: str | None, ci: float | None
) -> pl.LazyFrame:
    if ci is not None:
        return multiclass.roc_auc_delong_per_class(counts, ci)
    return multiclass.roc_auc(counts, multi_class=multi_class, average=average)


def gini(
    state: ClassScores,
    *,
    multi_class: MultiClass = "ovr",
    average: AucAverage | None = "macro",
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: AucCiMethod = "delong",
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.gini` of ``{label: column}`` scores: :func:`roc_auc`
    mapped (its segments under stand-in names: a ``by`` named ``roc_auc``)."""
    del n_boot, seed
    check_interval("gini", average, ci, ci_method)
    counts = state.counts
    inner = names.stand_in_keys(counts.by, names.output_columns("roc_auc", ci=True))
    stand_in = dataclasses.replace(counts, by=inner)
    auc = _roc_auc(stand_in, multi_class=multi_class, average=average, ci=ci)
    return catalogue.derive(auc, "gini").rename(dict(zip(inner, counts.by, strict=True)))


def average_precision(state: ClassScores, *, average: AucAverage | None = "macro") -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.average_precision` of ``{label: column}`` scores, of
    a merged :func:`class_score_counts` state."""
    return multiclass.average_precision(state.counts, average=average)


def roc_curve(state: ClassScores, *, drop_intermediate: bool = True) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.roc_curve` of ``{label: column}`` scores."""
    return multiclass.roc_curve(state.counts, drop_intermediate=drop_intermediate)


def pr_curve(state: ClassScores, *, drop_intermediate: bool = False) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.pr_curve` of ``{label: column}`` scores."""
    return multiclass.pr_curve(state.counts, drop_intermediate=drop_intermediate)


#: The finishers above, by the frame method they equal.
FINISHERS: dict[str, Callable[..., Any]] = {
    f.__name__: f for f in (roc_auc, gini, average_precision, roc_curve, pr_curve)
}


def _multilabel(y_true: object, schema: pl.Schema) -> bool:
    """Multilabel ``y_true``: ``{label: indicator column}`` or a List (Array) column."""
    dtype = schema.get(y_true) if isinstance(y_true, str) else None
    return isinstance(y_true, Mapping) or isinstance(dtype, (pl.List, pl.Array))


def is_class_scores(values: Mapping[str, Any], schema: pl.Schema) -> bool:
    """The input form of :func:`class_score_counts`: a single-label ``y_true`` column
    and ``{label: column}`` scores."""
    y_true = values.get("y_true")
    return (
        isinstance(y_true, str)
        and not _multilabel(y_true, schema)
        and isinstance(values.get("y_score"), Mapping)
    )


def is_samples(values: Mapping[str, Any], schema: pl.Schema) -> bool:
    """The input form of the samples sums: multilabel ``y_true``, ``average="samples"``
    and no ``max_fpr``."""
    return (
        _multilabel(values.get("y_true"), schema)
        and values.get("average") == "samples"
        and values.get("max_fpr") is None
    )


def is_samples_partial(values: Mapping[str, Any], schema: pl.Schema) -> bool:
    """The input form of the sums of each row's partial AUC: multilabel ``y_true``,
    ``average="samples"`` and ``max_fpr``."""
    return (
        _multilabel(values.get("y_true"), schema)
        and values.get("average") == "samples"
        and values.get("max_fpr") is not None
    )


def is_label_scores(values: Mapping[str, Any], schema: pl.Schema) -> bool:
    """The input form of the per-label state: multilabel ``y_true``, an average other
    than ``"samples"`` (per label, macro, weighted, micro)."""
    return _multilabel(values.get("y_true"), schema) and values.get("average") != "samples"


def _samples(metric: str) -> Callable[..., pl.DataFrame]:
    def finish(sums: row_means.RowSums, *, average: AucAverage | None = "macro") -> pl.DataFrame:
        del average  # "samples": the form of the input that chose this state
        return sums.mean(metric)

    finish.__name__ = metric
    finish.__doc__ = (
        f"As :meth:`MetricsLazyFrame.{metric}` of multilabel input with "
        "``average='samples'``: the (weighted) mean of the rows' values where defined."
    )
    return finish


#: The samples averages' finishers, by state (each row's partial AUC: roc_auc's
#: with ``max_fpr``), and the input form each state takes.
SAMPLES_FINISHERS: dict[str, dict[str, Callable[..., Any]]] = {
    **{f"samples_{m}_sums": {m: _samples(m)} for m in SAMPLES},
    "samples_partial_roc_auc_sums": {"roc_auc": _samples("roc_auc")},
}
SAMPLES_FORMS: dict[str, Callable[[Mapping[str, Any], pl.Schema], bool]] = {
    **{f"samples_{m}_sums": is_samples for m in SAMPLES},
    "samples_partial_roc_auc_sums": is_samples_partial,
}
