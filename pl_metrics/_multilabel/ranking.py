"""Ranking metrics of multilabel scores: ROC AUC and average precision (micro, macro,
weighted, samples, per label), coverage error, label ranking average precision,
label ranking loss, DCG and NDCG - scikit-learn's definitions, ties included.

The truth comes from :mod:`pl_metrics._multilabel.inputs` (a List column of label
sets or ``{label: indicator column}``); the scores (``{label: score column}`` or a
List column aligned with ``labels=``) are read here.  Each row becomes one List
of structs ``{t, s}`` (its truth and score for every label, in label order):

- the **per-row** metrics (samples averages, coverage, LRAP, ranking loss, DCG,
  NDCG) are list expressions on that column (ranks within the row), then one
  ``group_by(*by).agg`` of their (weighted) mean: row-wise, streaming;
- the **per-label** and **micro** AUC / AP explode it into one row per (row,
  label) and count positives and negatives per distinct score: the per-score
  state of the binary metrics (:mod:`pl_metrics._core.scores`), whose sums
  (:mod:`pl_metrics._ranking.from_counts`) give the AUC and AP of each label (or of all the
  (row, label) cells for micro).

Per row, with ``rank_max(x)`` = the number of the row's labels scored ``>= x``
(scikit-learn's ``rankdata(-score, "max")``), and ``T`` the true labels:

- precision at the true labels: ``mean over j in T of rank_max among T (s_j) /
  rank_max (s_j)`` - the row's LRAP, and also its average precision (the
  step-wise AP of the row's labels as one binary problem: each true label adds
  ``1/|T|`` recall at the precision of its threshold; tied scores are one
  threshold);
- ROC AUC: ``sum over j in T of (avg_rank(s_j) - avg_rank among T (s_j)) /
  (|T| |F|)`` with ascending average ranks: the falses below a true label, ties
  one half (Mann-Whitney);
- ranking loss: the (true, false) pairs with ``s_true <= s_false``, over
  ``|T| |F|``: ``sum over f in F of rank_asc_max(s_f) - rank_asc_max among F (s_f)``;
- coverage: the number of labels scored ``>=`` the lowest-scored true label (0
  without true labels);
- DCG: tie-averaged (McSherry & Najork, as scikit-learn): a label tied with others
  takes the mean discount of the positions the tie spans.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import polars as pl

from pl_metrics._core import catalogue, checks, forms, formulas, names
from pl_metrics._core.names import ALL, NEG, POS, SCORE
from pl_metrics._core.options import checked
from pl_metrics._core.scores import ScoreCounts
from pl_metrics._multilabel import inputs
from pl_metrics._multilabel.ranking_rows import (
    _OVERFLOW,
    _S,
    _T,
    PAIRS,
    J,
    RankingRows,
    ranking_rows,
)
from pl_metrics._ranking import from_counts as ranking_from_counts

# ------------------------------------------------------------------------- per row
_E = pl.element()


def _field(name: str) -> pl.Expr:
    return _E.struct.field(name)


def _precision_at_true() -> pl.Expr:
    """Mean over the true labels of (true labels scored >= it) / (labels scored >= it):
    the row's LRAP and its step-wise average precision (ties one threshold)."""
    t, s = _field(_T), _field(_S)
    among_true = s.filter(t).rank("max", descending=True).cast(pl.Float64)
    among_all = s.rank("max", descending=True).filter(t).cast(pl.Float64)
    return (among_true / among_all).mean()


def _counts() -> tuple[pl.Expr, pl.Expr]:
    """The row's number of true labels and of labels (Float64)."""
    return _field(_T).cast(pl.Float64).sum(), pl.len().cast(pl.Float64)


def _one_class() -> pl.Expr:
    n_true, n = _counts()
    return (n_true == 0) | (n_true == n)


def _discount(k: int | None, log_base: float) -> pl.Expr:
    """Discount of each position 0..n-1: ``1 / log_base(p + 2)``, 0 from position ``k``."""
    position = pl.int_range(pl.len())
    discount = math.log(log_base) / (position + 2).cast(pl.Float64).log()
    return discount if k is None else pl.when(position < k).then(discount).otherwise(0.0)


def _dcg(k: int | None, log_base: float, ignore_ties: bool) -> pl.Expr:
    """The row's DCG: each label's relevance times the discount of its position; tied
    scores share the mean discount of the positions they span (scikit-learn's
    ``_tie_averaged_dcg``).  ``ignore_ties``: positions by descending score, ties in
    the order of a reversed stable sort (the later label first).  scikit-learn's
    ``argsort(...)[::-1]`` is not a stable sort (its order of ties depends on numpy's
    sort kernel): with ``ignore_ties`` and tied scores the two may differ, which is
    why both document the option for scores without ties."""
    r, s = _field(_T), _field(_S)
    discount = _discount(k, log_base)
    if ignore_ties:
        position = pl.len() - s.rank("ordinal").cast(pl.Int64)
        return (r * discount.gather(position)).sum()
    cumulative = discount.cum_sum()
    last = s.rank("max", descending=True).cast(pl.Int64)  # positions first..last, 1-based
    before = s.rank("min", descending=True).cast(pl.Int64) - 1
    span = cumulative.gather(last - 1) - pl.when(before > 0).then(
        cumulative.gather((before - 1).clip(0))
    ).otherwise(0.0)
    return (r * span / (last - before).cast(pl.Float64)).sum()


def _ideal_dcg(k: int | None) -> pl.Expr:
    return (_field(_T).sort(descending=True) * _discount(k, 2.0)).sum()


def row_value(
    metric: str, *, k: int | None = None, log_base: float = 2.0, ignore_ties: bool = False
) -> pl.Expr:
    """The per-row value of ``metric`` (a ``ranking_rows.ROW_METRICS`` name, ``"roc_auc"`` or
    ``"average_precision"``: the samples averages) as a Float64 column (null: undefined)."""
    t, s = _field(_T), _field(_S)
    n_true, n = _counts()
    ranked = catalogue.CATALOGUE[metric].ranked if metric in catalogue.CATALOGUE else None
    if metric == "coverage_error":
        value = (s >= s.filter(t).min()).sum().cast(pl.Float64)  # 0 without true labels
    elif metric == "label_ranking_average_precision":
        value = pl.when(_one_class()).then(1.0).otherwise(_precision_at_true())
    elif ranked is catalogue.Ranked.AP:
        value = pl.when(n_true == 0).then(0.0).otherwise(_precision_at_true())
    elif metric == "label_ranking_loss":
        wrong = (
            s.rank("max").cast(pl.Float64).filter(~t) - s.filter(~t).rank("max").cast(pl.Float64)
        ).sum()
        value = pl.when(_one_class()).then(0.0).otherwise(wrong / (n_true * (n - n_true)))
    elif ranked is catalogue.Ranked.AUC:
        beaten = (s.rank("average").filter(t) - s.filter(t).rank("average")).sum()
        value = pl.when(~_one_class()).then(beaten / (n_true * (n - n_true)))
    elif metric == "dcg":
        value = _dcg(k, log_base, ignore_ties)
    elif metric == "ndcg":
        ideal = _ideal_dcg(k)
        value = pl.when(ideal == 0).then(0.0).otherwise(_dcg(k, 2.0, ignore_ties) / ideal)
    else:
        msg = f"no per-row multilabel metric {metric!r}"
        raise KeyError(msg)
    return pl.col(PAIRS).list.eval(value.cast(pl.Float64)).list.first()


def _mean(value: pl.Expr, weighted: bool) -> pl.Expr:
    """The (weighted) mean of the defined values; null when none is defined."""
    defined = value.is_not_null()
    if weighted:
        mean = formulas.weighted_mean(value, pl.when(defined).then(pl.col(inputs.WEIGHT)))
    else:
        mean = value.mean()
    return pl.when(defined.any()).then(mean)


def row_metric(rows: RankingRows, metric: str, output: str, **options: object) -> pl.LazyFrame:
    """``*by, <output>``: the (weighted) mean over the rows of a segment of the per-row
    value (:func:`row_value`); rows where it is undefined are left out."""
    value = row_value(metric, **options)  # type: ignore[arg-type]
    frame = rows.ml.with_all(rows.frame)
    result = frame.group_by(rows.keys).agg(
        _mean(value, rows.ml.weighted).alias(output), *rows.check_aggs(), *_aggregate_checks(rows)
    )
    result = _raise(rows, result).sort(rows.keys, nulls_last=True)
    return rows.finish(result.select(*rows.keys, output))


def _aggregate_checks(rows: RankingRows) -> list[pl.Expr]:
    """The input's checks that aggregate (the weights' sum), counted over the rows."""
    schema = rows.frame.collect_schema()
    return [
        expr.sum().cast(pl.Int64).alias(name)
        for name, expr, _ in rows.ml.checks
        if name not in schema
    ]


def _raise(rows: RankingRows, frame: pl.LazyFrame) -> pl.LazyFrame:
    """Every check of ``rows`` and of the input raised at collect (columns dropped)."""
    schema = rows.frame.collect_schema()
    extra = [(n, e) for n, _, e in rows.ml.checks if n not in schema]
    frame = checks.raise_if_bad(frame, extra).drop([n for n, _ in extra])
    return rows.raise_if_bad(frame)


# ----------------------------------------------------------------------- per label
def _score_counts(
    rows: RankingRows, *, per_label: bool, weight: str | None, per_row: bool = False
) -> ScoreCounts:
    """The per-score state of every label (``per_label``: keys ``*keys, ALL, J``) or of
    all the (row, label) cells together (micro: ``*keys, ALL``); ``per_row``: of each
    row's labels (keys ``*keys, ALL, ROW[, WEIGHT]``), counted un-weighted (the row's
    weight weighs its value in the samples mean, as scikit-learn's)."""
    frame = rows.frame.with_columns(pl.int_ranges(0, pl.col(PAIRS).list.len()).alias(J))
    if per_row:
        frame = frame.with_row_index(inputs.ROW)
    frame = frame.explode(PAIRS, J)
    frame = frame.with_columns(pl.lit(0, pl.Int8).alias(ALL))
    keys = [*rows.ml.group_keys, ALL, *([J] if per_label else [])]
    if per_row:
        keys += [inputs.ROW, *([inputs.WEIGHT] if rows.ml.weighted else [])]
    t = pl.col(PAIRS).struct.field(_T)
    if rows.ml.weighted and not per_row:
        w = pl.col(inputs.WEIGHT)
        pos, neg = (t.cast(pl.Float64) * w).sum(), ((~t).cast(pl.Float64) * w).sum()
    else:
        pos, neg = t.sum().cast(pl.Int64), (~t).sum().cast(pl.Int64)
    counts = frame.group_by(*keys, pl.col(PAIRS).struct.field(_S).alias(SCORE)).agg(
        pos.alias(POS), neg.alias(NEG), *rows.check_aggs(row=pl.col(J) == 0)
    )
    counts = rows.raise_if_bad(counts)
    if weight is not None:
        total = (pl.col(POS) + pl.col(NEG)).sum().over(keys)
        counts = counts.with_columns(checks.weight_total_too_large(total).alias(_OVERFLOW))
        counts = checks.raise_if_bad(
            counts, [(_OVERFLOW, lambda _: checks.Bad.weight_overflow(weight))]
        )
    return ScoreCounts(counts.select(*keys, SCORE, POS, NEG).cache(), [], keys)


def _row_partial_auc(rows: RankingRows, max_fpr: float) -> pl.LazyFrame:
    """``*by, roc_auc`` of ``average="samples"`` with ``max_fpr``: each row's labels as
    one binary problem (its true labels the positives), the row's standardised partial
    AUC by the binary formula (:func:`_ranking.from_counts.roc_auc`) on its per-score counts, then
    the (weighted) mean over the rows; a row of one class is left out (as for the full
    AUC, :func:`row_metric`).  scikit-learn's ``roc_auc_score(average="samples",
    max_fpr=)``: ``_binary_roc_auc_score`` per row, averaged with the sample weights."""
    value = _mean(pl.col("roc_auc"), rows.ml.weighted).alias("roc_auc")
    result = row_partial_aucs(rows, max_fpr, value).sort(rows.keys, nulls_last=True)
    return rows.finish(result.select(*rows.keys, "roc_auc"))


def row_partial_aucs(rows: RankingRows, max_fpr: float, *aggs: pl.Expr) -> pl.LazyFrame:
    """``*keys, <aggs>``: ``aggs`` over each segment's rows' partial AUCs (column
    ``roc_auc``, null for a row of one class; the row's weight ``inputs.WEIGHT``), every
    check of the input raised (also the engines' per-shard sums of them,
    ``pl_metrics._engines.row_means``)."""
    per_row = rows.ml.with_all(
        ranking_from_counts.roc_auc(
            _score_counts(rows, per_label=False, weight=None, per_row=True), max_fpr=max_fpr
        )
    )
    result = per_row.group_by(rows.keys).agg(*aggs, *_aggregate_checks(rows))
    extra = [(n, e) for n, _, e in rows.ml.checks if n not in rows.frame.collect_schema()]
    return checks.raise_if_bad(result, extra)


def _label_frame(rows: RankingRows) -> pl.LazyFrame:
    return pl.LazyFrame({J: range(rows.labels.len()), inputs.LABEL: rows.labels}).cast(
        {J: pl.Int64}
    )


def averaged(
    rows: RankingRows,
    metric: str,
    average: str | None,
    *,
    weight: str | None,
    max_fpr: float | None = None,
) -> pl.LazyFrame:
    """``*by, <metric>`` (``average=None``: ``*by, label, <metric>``, labels in order) for
    ``metric`` ``"roc_auc"`` or ``"average_precision"``.

    A label (macro, weighted) or row (samples) whose ROC AUC is undefined (one class)
    is left out of the mean (as the multiclass one-vs-rest AUC here and torchmetrics'
    macro AUROC; scikit-learn's mean is NaN then, with a warning); the mean of none is
    null.  Average precision
    is defined everywhere (0 without positives, scikit-learn's value) and averaged
    exactly as scikit-learn (weighted: 0 when no label has a positive).

    ``max_fpr`` (ROC AUC): each label's (or the micro cells', or each row's for
    samples) McClish-standardised partial AUC, averaged as the full one
    (scikit-learn's ``roc_auc_score(max_fpr=)`` of an indicator matrix).
    """
    finish = label_value(metric, max_fpr)
    if average == "samples" and max_fpr is not None:
        return _row_partial_auc(rows, max_fpr)
    if average == "samples":
        return row_metric(rows, metric, metric)
    keys = rows.keys
    if average == "micro":
        result = rows.ml.with_all(finish(_score_counts(rows, per_label=False, weight=weight)))
        return rows.finish(result.sort(keys, nulls_last=True).select(*keys, metric))
    counts = _score_counts(rows, per_label=True, weight=weight)
    per_label = rows.ml.with_all(finish(counts))
    result = label_mean(per_label, support(counts), keys, metric, average, _label_frame(rows))
    return rows.finish(result, label=average is None)


def label_value(metric: str, max_fpr: float | None) -> Callable[[ScoreCounts], pl.LazyFrame]:
    """The binary ``metric`` (``roc_auc``, its partial AUC with ``max_fpr``, or
    ``average_precision``) of each group of per-score counts: ``*keys, <metric>``."""
    if catalogue.CATALOGUE[metric].ranked is catalogue.Ranked.AUC:
        return functools.partial(ranking_from_counts.roc_auc, max_fpr=max_fpr)
    return ranking_from_counts.average_precision


def support(counts: ScoreCounts) -> pl.LazyFrame:
    """``*keys, POS``: each group's (weighted) positives, Float64 (a label's support)."""
    return counts.frame.group_by(counts.keys).agg(pl.col(POS).cast(pl.Float64).sum())


def label_mean(  # noqa: PLR0917 - the per-label values, their support, then the options
    per_label: pl.LazyFrame,
    positives: pl.LazyFrame,
    keys: list[str],
    metric: str,
    average: str | None,
    labels: pl.LazyFrame,
) -> pl.LazyFrame:
    """``*keys, <metric>`` (``average=None``: ``*keys, label, <metric>``, labels in
    order) from each segment's per-label values ``per_label`` (``*keys, J, <metric>``;
    ``keys``: the segments' internal keys, or ``[ALL]``), their ``positives``
    (``*keys, J, POS``: :func:`support`) and the ``labels`` (``J, label``): the macro
    or the support-weighted mean of the labels with a value (also the engines'
    finisher of their merged per-label states, ``pl_metrics._engines.label_scores``)."""
    if average is None:
        result = per_label.join(labels, on=J).sort([*keys, J], nulls_last=True)
        return result.select(*keys, inputs.LABEL, metric)
    value = pl.col(metric)
    if average == "macro":
        mean: pl.Expr = pl.when(value.is_not_null().any()).then(value.mean())
    else:
        per_label = per_label.join(positives, on=[*keys, J], nulls_equal=True)
        p = pl.when(value.is_not_null()).then(pl.col(POS))
        defined = pl.when(p.sum() > 0).then(formulas.weighted_mean(value, p))
        empty = catalogue.CATALOGUE[metric].empty_mean  # no label with a positive
        mean = defined if empty is None else defined.otherwise(empty)
    result = per_label.group_by(keys).agg(mean.alias(metric)).sort(keys, nulls_last=True)
    return result.select(*keys, metric)


# ------------------------------------------------------------------ the two methods
def is_multilabel_call(lf: pl.LazyFrame, y_true: object) -> bool:
    """``y_true`` is multilabel: a mapping, or a List column (reads the schema only;
    a missing column is refused here)."""
    if isinstance(y_true, str):
        checks.check_columns(lf.collect_schema(), y_true=y_true)  # a missing column first
    return inputs.is_multilabel(lf, y_true)


def check_single_label(average: object, labels: object) -> None:
    """``average="samples"`` and ``labels`` are for multilabel ``y_true`` only."""
    checked("single-label ranking", labels=labels, average=average)


#: Refuse the options that have no multilabel meaning (given as not None; a
#: ``multi_class`` other than ``"ovr"``).
check_options = forms.refuse_for_multilabel


def ranking_metric(
    lf: pl.LazyFrame,
    metric: str,
    y_true: inputs.MultilabelColumn,
    y_score: object,
    *,
    labels: object,
    by: object,
    weight: str | None,
    average: str | None,
    max_fpr: float | None = None,
) -> pl.LazyFrame:
    """``roc_auc`` / ``average_precision`` of multilabel ``y_true`` (:func:`averaged`;
    ``average`` checked by the caller)."""
    rows = ranking_rows(
        lf,
        y_true,
        y_score,
        labels=labels,
        by=by,
        weight=weight,
        reserved=names.output_columns(metric),
    )
    return averaged(rows, metric, average, weight=weight, max_fpr=max_fpr)
