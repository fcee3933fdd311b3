"""The set-based multilabel metrics, pure functions of :class:`~.counts.MultilabelCounts`.

The definitions are scikit-learn's on the indicator matrix: per label the
scores of ``precision_recall_fscore_support(average=None)``; micro / macro /
weighted through the single-label averaging path
(:func:`pl_metrics._classification._average_rows`, one home for it); ``samples``
the (weighted) mean over rows of each row's precision, recall, F-beta and
Jaccard of its two label sets, ``zero_division`` for a row whose denominator is 0,
NaN rows skipped with ``zero_division=nan`` (``_nanaverage``); the subset
accuracy (``accuracy_score``), ``hamming_loss``, ``zero_one_loss`` and
``multilabel_confusion_matrix``.  Each per-row metric is a formula of
:mod:`pl_metrics._core.formulas` applied to the row histogram's triple
(``tp`` = ``n_common``, ``support`` = ``n_true``, ``predicted`` = ``n_pred``).
"""

from __future__ import annotations

import math

import polars as pl

from pl_metrics import _classification
from pl_metrics._core import formulas
from pl_metrics._core.confusion import Counts
from pl_metrics._core.names import ACTUAL, COUNT, INTERNAL, ORD, PREDICTED, output_columns
from pl_metrics._multilabel.counts import COUNT as ROWS
from pl_metrics._multilabel.counts import (
    N_COMMON,
    N_LABELS,
    N_PRED,
    N_TRUE,
    MultilabelCounts,
)
from pl_metrics._multilabel.inputs import LABEL, PRED, ROW, TRUE, WEIGHT, Multilabel

_NAN = float("nan")
_PART = f"{INTERNAL}part"
_W = f"{INTERNAL}ml_w"
_SUPPORT = f"{INTERNAL}ml_support"
#: Position of the samples row after micro, macro, weighted.
_SAMPLES_ORD = len(_classification.AVERAGES)


def _classes(counts: MultilabelCounts, beta: float, zero_division: float) -> pl.LazyFrame:
    """The label counts with the four scores of each label (``ORD`` kept)."""
    counted = (pl.col(c) for c in ("tp", "support", "predicted", "tn"))
    return counts.labels.with_columns(_classification._scores(*counted, beta, zero_division))


def per_class(counts: MultilabelCounts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, label, support, predicted, tp, fp, fn, tn`` and the scores of each label."""
    keys = counts.keys
    specificity = formulas.specificity(pl.col("tn"), pl.col("fp"), zero_division)
    result = (
        _classes(counts, beta, zero_division)
        .with_columns(specificity.alias("specificity"))
        .sort([*keys, ORD], nulls_last=True)
        .select(*keys, *output_columns("per_class", beta=beta))
    )
    return counts.ml.finish(result, [LABEL])


def _row_metrics(beta: float, zero_division: float) -> list[pl.Expr]:
    """Each row's per-class scores (``formulas.SCORES``) from its histogram triple and
    the size K of the label set (``N_LABELS``): the row's tn, the labels in neither
    set, is K - n_true - n_pred + n_common."""
    common, true, pred = pl.col(N_COMMON), pl.col(N_TRUE), pl.col(N_PRED)
    neither = pl.col(N_LABELS) - true - pred + common
    return _classification._scores(common, true, pred, neither, beta, zero_division)


def _sum(values: pl.Expr) -> pl.Expr:
    """The sum of a segment's histogram values (floats) added in the order of their
    triple, unique in a segment: the same to the last bit on every path (the rows, a
    merged state, the streaming engine, whose ``sum`` in ``agg`` adds partial sums in
    the order its threads finish; ``cum_sum`` of the sorted values does not).  Nulls
    are skipped, as by ``sum``."""
    return values.fill_null(0.0).sort_by(N_TRUE, N_PRED, N_COMMON).cum_sum().last()


def _samples_rows(counts: MultilabelCounts, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*keys`` and the scores: the samples averages of each segment.

    The mean of each per-row metric over the rows (weighted by their count or
    weight); with ``zero_division=nan`` the NaN rows are skipped, NaN if all are.
    """
    keys = counts.keys
    metrics = _classification.score_columns(beta)
    nan = math.isnan(zero_division)
    rows = counts.rows.join(counts.n_labels, how="cross").with_columns(
        _row_metrics(beta, zero_division)
    )
    sums = []
    for m in metrics:
        kept = pl.col(m).fill_nan(None) if nan else pl.col(m)
        w = pl.when(kept.is_not_null()).then(pl.col(ROWS)).cast(pl.Float64)
        mean = _sum(kept * w) / _sum(w)
        sums.append(pl.when(_sum(w) > 0).then(mean).otherwise(_NAN).alias(m))
    return rows.group_by(keys).agg(sums)


def _as_counts(counts: MultilabelCounts) -> Counts:
    """A single-label :class:`Counts` with the segment keys (for the averaging path)."""
    ml = counts.ml
    return Counts(counts.labels, ml.by, ml.keys, ml.types, ml.labels)


def _average_rows(counts: MultilabelCounts, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*keys, average``, the scores, ``support, ORD``: micro, macro, weighted (the
    single-label path on the label counts), then samples."""
    keys = counts.keys
    classes = _classes(counts, beta, zero_division)
    averages = _classification._average_rows(_as_counts(counts), classes, beta, zero_division)
    support = counts.labels.group_by(keys).agg(pl.col("support").sum().alias(_SUPPORT))
    samples = (
        _samples_rows(counts, beta, zero_division)
        .join(support, on=keys, how="left", nulls_equal=True)
        .with_columns(
            pl.lit("samples").alias("average"),
            pl.col(_SUPPORT).alias("support"),
            pl.lit(_SAMPLES_ORD, pl.Int64).alias(ORD),
        )
    )
    columns = [*output_columns("averages", beta=beta), ORD]
    return pl.concat([averages.select(*keys, *columns), samples.select(*keys, *columns)])


def averages(counts: MultilabelCounts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, average``, the scores, ``support``: micro, macro, weighted, samples."""
    keys = counts.keys
    result = (
        _average_rows(counts, beta, zero_division)
        .sort([*keys, ORD], nulls_last=True)
        .select(*keys, *output_columns("averages", beta=beta))
    )
    return counts.ml.finish(result)


def report(counts: MultilabelCounts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, label, average``, the scores, ``support``: the labels' rows, then micro,
    macro, weighted and samples."""
    keys = counts.keys
    columns = list(output_columns("report", beta=beta))
    class_rows = _classes(counts, beta, zero_division).with_columns(
        pl.lit(None, pl.String).alias("average"), pl.lit(0, pl.Int8).alias(_PART)
    )
    average_rows = _average_rows(counts, beta, zero_division).with_columns(
        pl.lit(None, counts.ml.types.compute).alias(LABEL), pl.lit(1, pl.Int8).alias(_PART)
    )
    result = (
        pl.concat(
            [
                class_rows.select(*keys, *columns, ORD, _PART),
                average_rows.select(*keys, *columns, ORD, _PART),
            ]
        )
        .sort([*keys, _PART, ORD], nulls_last=True)
        .select(*keys, *columns)
    )
    return counts.ml.finish(result, [LABEL])


def confusion_matrix(counts: MultilabelCounts) -> pl.LazyFrame:
    """``*by, label, tp, fp, fn, tn``: scikit-learn's ``multilabel_confusion_matrix``."""
    keys = counts.keys
    result = counts.labels.sort([*keys, ORD], nulls_last=True).select(
        *keys, LABEL, "tp", "fp", "fn", "tn"
    )
    return counts.ml.finish(result, [LABEL])


def samplewise_confusion_matrix(ml: Multilabel, n_labels: pl.LazyFrame) -> pl.LazyFrame:
    """``*by, sample, tp, fp, fn, tn``: each row's counts over the labels (times its
    weight, as ``multilabel_confusion_matrix(samplewise=True, sample_weight=...)``).

    ``sample`` is the row's position in the input; rows of weight 0 are absent.
    ``n_labels``: one row, the size of the label set.  The data checks run on
    an aggregation of the rows joined to it.
    """
    checked = ml.raise_if_bad(ml.rows.select(*ml.check_aggs(), pl.lit(0, pl.Int8).alias(_W))).drop(
        _W
    )
    n_labels = n_labels.join(checked, how="cross")
    common = pl.col(TRUE).list.set_intersection(pl.col(PRED)).list.len().cast(pl.Int64)
    t, p = pl.col(TRUE).list.len().cast(pl.Int64), pl.col(PRED).list.len().cast(pl.Int64)
    cells = {
        "tp": common,
        "fp": p - common,
        "fn": t - common,
        "tn": pl.col(N_LABELS) - t - p + common,
    }
    if ml.weighted:
        cells = {k: c.cast(pl.Float64) * pl.col(WEIGHT) for k, c in cells.items()}
    result = (
        ml.rows.join(n_labels, how="cross")
        .select(
            *ml.group_keys, pl.col(ROW).alias("sample"), *(c.alias(k) for k, c in cells.items())
        )
        .sort([*ml.group_keys, "sample"], nulls_last=True)
    )
    return ml.finish(ml.with_all(result))


def _ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """A loss or share of rows; NaN for a segment without rows (none is empty)."""
    return _classification.ratio(numerator, denominator, _NAN)


def _wrong_labels() -> pl.Expr:
    """A row's number of wrong labels: the symmetric difference of its two sets."""
    return pl.col(N_TRUE) + pl.col(N_PRED) - 2 * pl.col(N_COMMON)


def _exact() -> pl.Expr:
    """A row whose predicted set is its true set."""
    return (pl.col(N_TRUE) == pl.col(N_COMMON)) & (pl.col(N_PRED) == pl.col(N_COMMON))


def _weighted(flag: pl.Expr) -> pl.Expr:
    return _sum(flag.cast(pl.Float64) * pl.col(ROWS).cast(pl.Float64))


def _per_segment(counts: MultilabelCounts, exprs: list[pl.Expr]) -> pl.LazyFrame:
    keys = counts.keys
    result = (
        counts.rows.join(counts.n_labels, how="cross")
        .group_by(keys)
        .agg(exprs)
        .sort(keys, nulls_last=True)
    )
    return counts.ml.finish(result)


def _n() -> pl.Expr:
    return pl.col(ROWS).sum()


def hamming_loss(counts: MultilabelCounts) -> pl.LazyFrame:
    """``*by, hamming_loss``: the (weighted) share of wrong (row, label) cells."""
    n_labels = pl.col(N_LABELS).first().cast(pl.Float64)
    loss = _ratio(_weighted(_wrong_labels()), _n().cast(pl.Float64) * n_labels)
    return _per_segment(counts, [loss.alias("hamming_loss")])


def zero_one_loss(counts: MultilabelCounts, *, normalize: bool) -> pl.LazyFrame:
    """``*by, zero_one_loss``: the (weighted) share, or number, of rows not predicted exactly."""
    wrong = _weighted(~_exact())
    if normalize:
        loss = _ratio(wrong, _n().cast(pl.Float64))
    elif counts.ml.weighted:
        loss = wrong
    else:
        loss = (pl.col(ROWS) * (~_exact()).cast(pl.Int64)).sum()
    return _per_segment(counts, [loss.alias("zero_one_loss")])


def summary(counts: MultilabelCounts) -> pl.LazyFrame:
    """``*by, n, subset_accuracy, hamming_loss, jaccard_samples`` (Jaccard of a row with
    two empty sets: 0, scikit-learn's default ``zero_division``)."""
    n = _n()
    jaccard = formulas.jaccard(pl.col(N_COMMON), pl.col(N_TRUE), pl.col(N_PRED), 0.0)
    n_labels = pl.col(N_LABELS).first().cast(pl.Float64)
    return _per_segment(
        counts,
        [
            n.alias("n"),
            _ratio(_weighted(_exact()), n.cast(pl.Float64)).alias("subset_accuracy"),
            _ratio(_weighted(_wrong_labels()), n.cast(pl.Float64) * n_labels).alias("hamming_loss"),
            _ratio(_weighted(jaccard), n.cast(pl.Float64)).alias("jaccard_samples"),
        ],
    )


# ----------------------------------------------------------------------- single-label
def _label_loss(counts: Counts, name: str, *, normalize: bool = True) -> pl.LazyFrame:
    """``*by, <name>``: the (weighted) share, or number, of rows whose prediction is wrong
    (``hamming_loss`` and ``zero_one_loss`` of single-label rows)."""
    keys = counts.keys
    wrong = pl.col(COUNT).filter(pl.col(ACTUAL) != pl.col(PREDICTED)).sum()
    value = (
        _ratio(wrong.cast(pl.Float64), pl.col(COUNT).sum().cast(pl.Float64)) if normalize else wrong
    )
    result = counts.frame.group_by(keys).agg(value.alias(name)).sort(keys, nulls_last=True)
    return counts.finish(result)


def label_hamming_loss(counts: Counts) -> pl.LazyFrame:
    """``*by, hamming_loss`` of single-label rows: 1 - accuracy."""
    return _label_loss(counts, "hamming_loss")


def label_zero_one_loss(counts: Counts, *, normalize: bool) -> pl.LazyFrame:
    """``*by, zero_one_loss`` of single-label rows: 1 - accuracy, or the number wrong."""
    return _label_loss(counts, "zero_one_loss", normalize=normalize)
