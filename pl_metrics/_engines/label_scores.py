"""The mergeable state of multilabel scores per label on the engines, and its
finishers: ``roc_auc`` (its partial AUC with ``max_fpr``) and ``average_precision``
of multilabel ``y_true`` (a List column or ``{label: indicator column}``) per label,
their macro / weighted means and micro.

Each shard makes the frame method's own per-label state
(``_multilabel.ranking._score_counts`` of its checked ``ranking_rows``: per segment,
label and distinct score, the rows' positives and negatives, or their weights): the
counts merge by addition, and the finishers are the frame method's own computations
on the merged state (``_multilabel.ranking.label_value``, ``label_mean``).  The
exact path of un-weighted rows (:mod:`.label_ranked`) ranks each label's scores from
partitions of its score column's ranges instead, with :func:`label_totals` (this
state summed over the scores: every data check of all rows, each label's positives)
and :func:`label_scores` (one label's per-score state, what a ranked shard
summarises).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from pl_metrics._core import names
from pl_metrics._core.names import INTERNAL, NEG, POS, SCORE
from pl_metrics._core.scores import ScoreCounts
from pl_metrics._multilabel import inputs, ranking
from pl_metrics._multilabel.ranking_rows import J, ranking_rows
from pl_metrics._typing import AucAverage, By, Labels, Score

#: Each label's value in the output dtype of the ``label`` column (a key of the state).
LABEL = f"{INTERNAL}label"
#: The states' keys after ``*by``, their summed columns, those summing to the weight
#: (:data:`pl_metrics._engines.jobs._STATES`' shape; a segment's total weight is
#: summed over its labels: the overflow check is of that sum).
SHAPE = ((J, LABEL, SCORE), (POS, NEG), (POS, NEG))
TOTALS_SHAPE = ((J, LABEL), (POS, NEG), (POS, NEG))
#: One label's per-score state, as the score state's columns (:mod:`.ranked` reads them).
RANKED_SHAPE = (("score",), ("pos", "neg"), ("pos", "neg"))


def label_score_counts(
    lf: pl.LazyFrame,
    y_true: Score,
    y_score: Score,
    *,
    labels: Labels = None,
    by: By = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, J, LABEL, SCORE, POS, NEG`` of ``lf``'s rows: the frame method's
    per-label state (every check of its rows), its labels in the output dtype."""
    rows = ranking_rows(lf, y_true, y_score, labels=labels, by=by, weight=weight, reserved=())
    counts = ranking._score_counts(rows, per_label=True, weight=weight)
    label_frame = ranking._label_frame(rows).rename({inputs.LABEL: LABEL})
    frame = counts.frame.join(label_frame, on=J)
    frame = rows.ml.finish(frame, [LABEL])
    return frame.select(*rows.ml.by, J, LABEL, SCORE, POS, NEG)


def label_totals(
    lf: pl.LazyFrame,
    y_true: Score,
    y_score: Score,
    *,
    labels: Labels = None,
    by: By = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, J, LABEL, POS, NEG``: :func:`label_score_counts` summed over the scores
    (each label's positives and negatives per segment, with all the rows' checks)."""
    state = label_score_counts(lf, y_true, y_score, labels=labels, by=by, weight=weight)
    keys = [c for c in state.collect_schema().names() if c not in (SCORE, POS, NEG)]
    return state.group_by(keys).agg(pl.col(POS, NEG).sum())


def label_scores(
    lf: pl.LazyFrame,
    y_true: Score,
    score: str,
    y_score: Mapping[object, str],
    index: int,
    *,
    labels: Labels = None,
    by: By = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, score, pos, neg``: the per-score state of the label at ``index`` (in the
    label order), whose scores are the column ``score`` (the column the engine
    range-partitions the rows by), checked with all the rows' scores."""
    del score  # y_score's column of the label: read by the engine, not here
    state = label_score_counts(lf, y_true, y_score, labels=labels, by=by, weight=weight)
    by_names = [c for c in state.collect_schema().names() if c not in (J, LABEL, SCORE, POS, NEG)]
    return state.filter(pl.col(J) == index).select(
        *by_names, pl.col(SCORE).alias("score"), pl.col(POS).alias("pos"), pl.col(NEG).alias("neg")
    )


#: The engines' states of multilabel scores per label, by name: the function making
#: each, and its shape.
MAKERS: dict[str, Callable[..., pl.LazyFrame]] = {
    "label_score_counts": label_score_counts,
    "label_totals": label_totals,
    "label_scores": label_scores,
}
SHAPES = {
    "label_score_counts": SHAPE,
    "label_totals": TOTALS_SHAPE,
    "label_scores": RANKED_SHAPE,
}


class LabelScores:
    """A merged :func:`label_score_counts` state as the frame method's per-label
    ``ScoreCounts`` (keys: the segments' internal names, or ``[ALL]``, and ``J``), its
    labels (``J, label``) and its segments (``by`` names)."""

    def __init__(self, state: pl.DataFrame, *, by: list[str]) -> None:
        self.by, self.keys = list(by), names.segment_keys(by)
        #: the keys of a segment's counts, as the frame method's: ``ALL`` among them
        self.segment = [*self.keys, names.ALL] if by else [names.ALL]
        frame = internal(state.lazy(), by)
        self.counts = ScoreCounts(frame.drop(LABEL), [], [*self.segment, J])
        self.labels = state.lazy().select(J, pl.col(LABEL).alias(inputs.LABEL)).unique(J)


def internal(frame: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``frame`` with its ``by`` columns under the internal segment keys and the
    constant key ``ALL`` (the segment without ``by``; the frame method's per-label
    counts carry it either way, and their finishers drop it)."""
    if by:
        frame = frame.rename(dict(zip(by, names.segment_keys(by), strict=True)))
    return frame.with_columns(pl.lit(0, pl.Int8).alias(names.ALL))


def finish(
    state: LabelScores, metric: str, average: str | None, max_fpr: float | None = None
) -> pl.DataFrame:
    """``metric`` of the merged state: per label, their means (the frame method's
    ``label_mean``) or micro (every label's counts together)."""
    counts, keys = state.counts, state.keys

    def value(counts: ScoreCounts) -> pl.LazyFrame:  # ALL dropped without by: back
        found = ranking.label_value(metric, max_fpr)(counts)
        return found if state.by else found.with_columns(pl.lit(0, pl.Int8).alias(names.ALL))

    if average == "micro":
        summed = counts.frame.group_by(*state.segment, SCORE).agg(pl.col(POS, NEG).sum())
        result = value(ScoreCounts(summed, [], state.segment)).sort(keys, nulls_last=True)
        result = result.select(*keys, metric)
    else:
        per_label = value(counts)
        result = ranking.label_mean(
            per_label, ranking.support(counts), keys, metric, average, state.labels
        )
    return names.restore_keys(result, state.by).collect()


def roc_auc(
    state: LabelScores, *, average: AucAverage | None = "macro", max_fpr: float | None = None
) -> pl.DataFrame:
    """As :meth:`MetricsLazyFrame.roc_auc` of multilabel input per label (``average``
    None), their macro / weighted mean or micro; the partial AUC with ``max_fpr``."""
    return finish(state, "roc_auc", average, max_fpr)


def average_precision(state: LabelScores, *, average: AucAverage | None = "macro") -> pl.DataFrame:
    """As :meth:`MetricsLazyFrame.average_precision` of multilabel input per label
    (``average`` None), their macro / weighted mean or micro."""
    return finish(state, "average_precision", average)


#: The finishers above, by the frame method they equal.
FINISHERS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (roc_auc, average_precision)}
