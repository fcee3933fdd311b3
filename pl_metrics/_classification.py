"""Confusion-matrix metrics as pure functions of the small counts frames.

Every function here takes the output of :mod:`pl_metrics._counts` (a few rows
per segment and class) and returns a lazy frame; none of them reads the rows.
The formulas and the undefined cases are scikit-learn's
(``precision_recall_fscore_support``, ``jaccard_score``, ``balanced_accuracy_score``,
``matthews_corrcoef``, ``cohen_kappa_score``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import polars as pl

from pl_metrics._core import covariances, formulas
from pl_metrics._core.catalogue import AVERAGES
from pl_metrics._core.checks import raise_if_bad
from pl_metrics._core.confusion import LABEL, Counts, class_counts, label_set, restricted
from pl_metrics._core.names import (
    ACTUAL,
    COUNT,
    COUNTS_STATE,
    INTERNAL,
    ORD,
    PREDICTED,
    output_columns,
    score_column,
)
from pl_metrics.exceptions import DataError

#: Sort key of the report: per-class rows (0) before the averages (1).
_PART = f"{INTERNAL}part"
_ORD_A, _ORD_P = f"{INTERNAL}ord_a", f"{INTERNAL}ord_p"
_NAN = float("nan")
_COUNT_SCALE = f"{INTERNAL}count_scale"
#: The columns of a class's counts that its scores read (``_scores``' arguments).
_COUNTS = (pl.col("tp"), pl.col("support"), pl.col("predicted"), pl.col("tn"))
#: Internal -> public names of the confusion-count columns.
_PUBLIC_COUNTS = {internal: public for public, internal in COUNTS_STATE.items()}


def ratio(numerator: pl.Expr, denominator: pl.Expr, zero_division: float) -> pl.Expr:
    """``numerator / denominator`` in Float64, ``zero_division`` where the denominator is 0."""
    return formulas.POLARS.ratio(numerator, denominator, zero_division)


def _scores(  # noqa: PLR0917 - the counts, then the options, as every formula
    tp: pl.Expr,
    support: pl.Expr,
    predicted: pl.Expr,
    tn: pl.Expr,
    beta: float,
    zero_division: float,
) -> list[pl.Expr]:
    """The per-class scores (``formulas.SCORES``) from tp, actual and predicted positives
    and the rows of neither (tn)."""
    return [
        score.value(tp, support, predicted, tn, beta, zero_division).alias(score_column(name, beta))
        for name, score in formulas.SCORES.items()
    ]


def score_columns(beta: float) -> list[str]:
    """The per-class scores' columns (``formulas.SCORES``), in order."""
    return [score_column(name, beta) for name in formulas.SCORES]


def _class_order(counts: Counts) -> list[str]:
    """What orders a segment's rows: with ``labels=None`` the class rows by their label
    (their ORD is not computed, see ``class_counts(order=False)``), then ORD (the
    average rows', which have no label); else ORD (``labels``' order)."""
    return [LABEL, ORD] if counts.labels is None else [ORD]


def per_class(counts: Counts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, label``, the counts ``support .. tn`` and the five scores of each class."""
    specificity = formulas.specificity(pl.col("tn"), pl.col("fp"), zero_division)
    result = (
        per_class_with_ord(counts, beta=beta, zero_division=zero_division, order=False)
        .with_columns(specificity.alias("specificity"))
        .sort([*counts.keys, *_class_order(counts)], nulls_last=True)
    )
    result = result.select(*counts.keys, *output_columns("per_class", beta=beta))
    return counts.finish(result, [LABEL])


def _product(a: pl.Expr, b: pl.Expr, exact: bool) -> pl.Expr:
    """``a * b`` exactly in Int128 for integer counts, else in Float64 (weights)."""
    if exact:
        return a.cast(pl.Int128) * b.cast(pl.Int128)
    return a.cast(pl.Float64) * b.cast(pl.Float64)


def _integer_counts(classes: pl.LazyFrame) -> bool:
    return classes.collect_schema()["support"].is_integer()


def _term(metric: str, part: str) -> str:
    return f"{INTERNAL}{metric}_{part}"


def _average_rows(
    counts: Counts, classes: pl.LazyFrame, beta: float, zero_division: float
) -> pl.LazyFrame:
    """``*keys, average``, the scores, ``support, ORD`` from the per-class rows.

    micro: the scores of the summed counts (tn too: for K classes of n rows, the summed
    tn counts each row K - 1 or K - 2 times); macro and weighted:
    ``formulas.class_averages`` of each score over a segment's class rows (exact
    sums: a segment's averages do not depend on the order of its class rows).  One
    ``group_by`` gives the three rows.
    """
    metrics = score_columns(beta)
    integer = _integer_counts(classes)
    means = []
    for m in metrics:
        macro, weighted = formulas.class_averages(
            pl.col(m), pl.col("support"), skip_nan=math.isnan(zero_division), integer=integer
        )
        means += [macro.alias(_term(m, "macro")), weighted.alias(_term(m, "weighted"))]
    summed = pl.col("tp", "support", "predicted", "tn").sum()
    sums = classes.group_by(counts.keys).agg(summed, *means)
    micro = _scores(*_COUNTS, beta, zero_division)
    rows = {
        "micro": micro,
        **{a: [pl.col(_term(m, a)).alias(m) for m in metrics] for a in ("macro", "weighted")},
    }
    return pl.concat(
        [
            sums.select(
                *counts.keys,
                *rows[name],
                pl.col("support"),
                pl.lit(name).alias("average"),
                pl.lit(i, pl.Int64).alias(ORD),
            )
            for i, name in enumerate(AVERAGES)
        ]
    )


def per_class_with_ord(
    counts: Counts, *, beta: float, zero_division: float, order: bool = True
) -> pl.LazyFrame:
    """Per-class counts and scores, keeping the internal key and label order columns
    (``order``: see :func:`class_counts`)."""
    stats = class_counts(counts, restrict=False, order=order)
    return stats.with_columns(_scores(*_COUNTS, beta, zero_division))


def averages(counts: Counts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, average``, the scores, ``support``: micro, macro, weighted rows."""
    classes = per_class_with_ord(counts, beta=beta, zero_division=zero_division, order=False)
    result = (
        _average_rows(counts, classes, beta, zero_division)
        .sort([*counts.keys, ORD], nulls_last=True)
        .select(*counts.keys, *output_columns("averages", beta=beta))
    )
    return counts.finish(result)


def report(counts: Counts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, label, average``, the scores, ``support``.

    The per-class rows (``average`` null) come first, then micro, macro, weighted
    (``label`` null).
    """
    keys = counts.keys
    columns = list(output_columns("report", beta=beta))
    # computed once for the class rows and the averages (polars would plan it twice)
    classes = per_class_with_ord(
        counts, beta=beta, zero_division=zero_division, order=False
    ).cache()
    class_rows = classes.with_columns(
        pl.lit(None, pl.String).alias("average"), pl.lit(0, pl.Int8).alias(_PART)
    )
    average_rows = _average_rows(counts, classes, beta, zero_division).with_columns(
        pl.lit(None, counts.types.compute).alias(LABEL),
        pl.lit(1, pl.Int8).alias(_PART),
    )
    result = (
        pl.concat(
            [
                class_rows.select(*keys, *columns, ORD, _PART),
                average_rows.select(*keys, *columns, ORD, _PART),
            ]
        )
        .sort([*keys, _PART, *_class_order(counts)], nulls_last=True)
        .select(*keys, *columns)
    )
    return counts.finish(result, [LABEL])


#: ``normalize=`` of confusion_matrix: the cells each count is divided by the sum of.
_NORMALIZE_OVER = {"true": [ACTUAL], "pred": [PREDICTED], "all": []}


def confusion_matrix(counts: Counts, *, normalize: str | None = None) -> pl.LazyFrame:
    """``*by, actual, predicted, count``: every (actual, predicted) pair of the label set.

    With ``normalize`` also ``normalized``: the count over its row's (``"true"``),
    column's (``"pred"``) or the segment's (``"all"``) total, 0.0 where that total
    is 0 (``sklearn.metrics.confusion_matrix(normalize=...)``).
    """
    keys = counts.keys
    classes = label_set(counts)
    pairs = classes.rename({LABEL: ACTUAL, ORD: _ORD_A}).join(
        classes.rename({LABEL: PREDICTED, ORD: _ORD_P}), on=keys, nulls_equal=True
    )
    result = (
        pairs.join(
            restricted(counts),
            on=[*keys, ACTUAL, PREDICTED],
            how="left",
            nulls_equal=True,
        )
        .with_columns(pl.col(COUNT).fill_null(0))
        .sort([*keys, _ORD_A, _ORD_P], nulls_last=True)
    )
    columns = [ACTUAL, PREDICTED, COUNT]
    if normalize is not None:
        total = pl.col(COUNT).sum().over([*keys, *_NORMALIZE_OVER[normalize]])
        result = result.with_columns(ratio(pl.col(COUNT), total, 0.0).alias("normalized"))
        columns.append("normalized")
    result = result.select(*keys, *columns)
    return counts.finish(result, [ACTUAL, PREDICTED]).rename(_PUBLIC_COUNTS)


def _disagreements(stats: pl.LazyFrame, keys: list[str]) -> tuple[pl.LazyFrame, list[pl.Expr]]:
    """The class rows ``stats`` with the columns, and the aggregations, of the
    unweighted kappa's observed (``D``) and expected (``E``) disagreements of float
    counts, sums without the covariance form's cancellation (n^2 - sum t_k p_k
    subtracts nearly equal products where one class holds most of the weight).

    ``D``: the cells off the diagonal (the classes' ``miss``).  ``E`` =
    sum_{i != j} t_i p_j: T P - sum t_i p_i where no class holds more than half of
    the predicted weight P (then sum t_i p_i <= T P / 2); else, that class m apart,
    P T' - sum' t_i p_i + t_m R, with T', sum' and R (the others' p) summed over the
    other classes directly, each difference again at least half its first term.
    """
    t, p = pl.col("support").cast(pl.Float64), pl.col("predicted").cast(pl.Float64)
    other = p < p.max().over(keys)  # all classes but the one of the largest p
    rows = stats.with_columns(
        pl.when(other).then(p).otherwise(0.0).alias(_term("kappa", "R")),
        pl.when(other).then(t).otherwise(0.0).alias(_term("kappa", "T")),
        pl.when(other).then(t * p).otherwise(0.0).alias(_term("kappa", "TP")),
        pl.when(other).then(0.0).otherwise(t).alias(_term("kappa", "Tm")),
    )
    total_t, total_p = t.sum(), p.sum()
    r, t_other, tp_other, t_m = (pl.col(_term("kappa", x)).sum() for x in ("R", "T", "TP", "Tm"))
    dominant = p.max() > total_p / 2
    expected = (
        pl.when(dominant)
        .then(total_p * t_other - tp_other + t_m * r)
        .otherwise(total_t * total_p - (t * p).sum())
    )
    return rows, [
        pl.col("miss").cast(pl.Float64).sum().alias(_term("kappa", "D")),
        expected.alias(_term("kappa", "E")),
    ]


def _weighted_disagreement(counts: Counts, stats: pl.LazyFrame, kappa_weights: str) -> pl.LazyFrame:
    """``*keys, D, E``: the observed ``sum w_ij C_ij`` (over the confusion cells) and
    the expected ``sum w_ij t_i p_j`` (over the pairs of classes) disagreement.

    All terms are >= 0, summed in Float64 (as scikit-learn): no cancellation.
    """
    keys = counts.keys
    labels = label_set(counts)
    cells = (
        restricted(counts)
        .join(labels.rename({LABEL: ACTUAL, ORD: _ORD_A}), on=[*keys, ACTUAL], nulls_equal=True)
        .join(
            labels.rename({LABEL: PREDICTED, ORD: _ORD_P}), on=[*keys, PREDICTED], nulls_equal=True
        )
    )
    w_cell = formulas.kappa_weight(kappa_weights, pl.col(_ORD_A), pl.col(_ORD_P))
    observed = cells.group_by(keys).agg(
        (w_cell * pl.col(COUNT).cast(pl.Float64)).sum().alias(_term("kappa", "D"))
    )
    rows = stats.select(*keys, pl.col(ORD).alias(_ORD_A), pl.col("support").cast(pl.Float64))
    columns = stats.select(*keys, pl.col(ORD).alias(_ORD_P), pl.col("predicted").cast(pl.Float64))
    w_pair = formulas.kappa_weight(kappa_weights, pl.col(_ORD_A), pl.col(_ORD_P))
    expected = (
        rows.join(columns, on=keys, nulls_equal=True)
        .group_by(keys)
        .agg((w_pair * pl.col("support") * pl.col("predicted")).sum().alias(_term("kappa", "E")))
    )
    return expected.join(observed, on=keys, how="left", nulls_equal=True).with_columns(
        pl.col(_term("kappa", "D")).fill_null(0.0)
    )


def _covariance_sums(t: pl.Expr, p: pl.Expr, tp: pl.Expr, exact: bool) -> list[pl.Expr]:
    """The aggregations over a segment's class rows that MCC's covariances are made
    of (:func:`_covariances`): integer counts, ``sum p_k^2`` and ``sum t_k^2`` in
    Int128 (the covariances are differences taken exactly); float counts, the
    covariances themselves (``covariances.weighted_mcc_covariances``, from the classes'
    ``miss`` and the other classes' counts, :data:`_OTHER_COUNTS`)."""
    if exact:
        return [
            _product(p, p, exact).sum().alias(_term("summary", "pp")),
            _product(t, t, exact).sum().alias(_term("summary", "tt")),
        ]
    t_others, p_others = (pl.col(c) for c in _OTHER_COUNTS)
    covs = covariances.weighted_mcc_covariances(t, p, tp, pl.col("miss"), t_others, p_others)
    return [c.alias(_term("cov", x)) for c, x in zip(covs, _COVARIANCES, strict=True)]


#: The other classes' actual and predicted weight, on each class row (float counts).
_OTHER_COUNTS = (_term("others", "t"), _term("others", "p"))
_COVARIANCES = ("tp", "pp", "tt")


def _covariances(
    n: pl.Expr, correct: pl.Expr, tp: pl.Expr, exact: bool
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """MCC's covariances times n^2 as Float64, after :func:`_covariance_sums`: ``c n -
    sum t_k p_k``, ``n^2 - sum p_k^2``, ``n^2 - sum t_k^2``."""
    if not exact:
        cov_tp, pp, tt = (pl.col(_term("cov", x)) for x in _COVARIANCES)
        return cov_tp, pp, tt
    pp, tt = (pl.col(_term("summary", x)) for x in ("pp", "tt"))
    return (
        (correct * n - tp).cast(pl.Float64),
        (n * n - pp).cast(pl.Float64),
        (n * n - tt).cast(pl.Float64),
    )


def summary(
    counts: Counts, *, kappa_weights: str | None = None, replace_undefined_by: float = math.nan
) -> pl.LazyFrame:
    """``*by, n, accuracy, balanced_accuracy, mcc, cohen_kappa``: one row per segment.

    Computed on the confusion matrix (rows with labels outside ``labels=`` dropped).
    ``kappa_weights`` (``"linear"`` / ``"quadratic"``): ``cohen_kappa`` is the
    weighted kappa over the segment's label order (:func:`_weighted_disagreement`).
    """
    keys = counts.keys
    weighted = counts.frame.collect_schema()[COUNT].is_float()
    if weighted:
        # Every metric here is unchanged when all counts are scaled: divide the
        # weighted counts by the segment's largest, so the products of sums
        # (n^2 near 1e154 for weights near 1e77) cannot overflow; n is scaled back.
        largest = pl.col(COUNT).max().over(keys)
        largest = pl.when(largest > 0).then(largest).otherwise(1.0)
        scales = counts.frame.group_by(keys).agg(pl.col(COUNT).max().alias(_COUNT_SCALE))
        counts = replace(counts, frame=counts.frame.with_columns(pl.col(COUNT) / largest))
    # float counts: the unweighted kappa by its disagreements (no cancellation)
    disagreements = weighted and kappa_weights is None
    # float counts: each class's misses summed over their cells (MCC's covariances
    # and kappa's disagreements without the difference form's cancellation)
    integer = counts.frame.collect_schema()[COUNT].is_integer()
    stats = class_counts(counts, restrict=True, misses=not integer)
    kappa_sums: list[pl.Expr] = []
    if disagreements:
        stats, kappa_sums = _disagreements(stats, keys)
    exact = _integer_counts(stats)
    t, p, tp = pl.col("support"), pl.col("predicted"), pl.col("tp")
    recall = pl.when(t > 0).then(tp.cast(pl.Float64) / t)
    # balanced accuracy: the macro mean of recall over the classes with actual rows
    balanced, _ = formulas.class_averages(recall, t, skip_nan=False, integer=exact)
    if not exact:  # the other classes' weights, windows per segment (cheaper than in
        # the aggregation below: 0.15-0.17 s against 0.24-0.27 s by 10,000 segments)
        totals = [_term("total", "t"), _term("total", "p")]
        dominants = [_term("dominant", "t"), _term("dominant", "p")]
        stats = (
            stats.with_columns(
                c.cast(pl.Float64).sum().over(keys).alias(name)
                for c, name in zip((t, p), totals, strict=True)
            )
            .with_columns(
                covariances.dominant(c.cast(pl.Float64), pl.col(total), keys).alias(name)
                for c, total, name in zip((t, p), totals, dominants, strict=True)
            )
            .with_columns(
                covariances.others(c.cast(pl.Float64), pl.col(total), pl.col(flag), keys).alias(
                    name
                )
                for c, total, flag, name in zip(
                    (t, p), totals, dominants, _OTHER_COUNTS, strict=True
                )
            )
        )
    sums = stats.group_by(keys).agg(
        t.sum().alias("n"),
        tp.sum().alias(_term("summary", "correct")),
        _product(t, p, exact).sum().alias(_term("summary", "tp")),  # sum of row x column sums
        *_covariance_sums(t, p, tp, exact),
        balanced.alias("balanced_accuracy"),
        recall.count().alias(_term("recall", "n")),
        (p > 0).sum().alias(_term("predicted", "classes")),
        ((t > 0) & (p > 0)).sum().alias(_term("both", "classes")),
        *kappa_sums,
    )
    n_, correct_, tp_ = (
        pl.col(c) for c in ("n", *(_term("summary", x) for x in ("correct", "tp")))
    )
    # The covariances (times n^2) are differences of nearly equal products: with
    # integer counts they are taken exactly in Int128 (n < 2^63, so every term is
    # below 2^126) and rounded once; with weights, in Float64.
    if exact:
        n_, correct_ = n_.cast(pl.Int128), correct_.cast(pl.Int128)
    n, correct = n_.cast(pl.Float64), correct_.cast(pl.Float64)
    # The degenerate cases are found by counting classes, not by comparing float
    # sums that are equal in exact arithmetic (with weights they may differ by
    # rounding): n^2 - sum(p^2) is 0 iff at most one class is predicted, and the
    # expected disagreement is 0 iff one class is both all actual and all predicted.
    recall_n = pl.col(_term("recall", "n"))  # classes with actual rows
    predicted_n = pl.col(_term("predicted", "classes"))
    both_n = pl.col(_term("both", "classes"))
    cov_tp, pp, tt = _covariances(n_, correct_, tp_, exact)
    cov_pp = pl.when(predicted_n <= 1).then(0.0).otherwise(pp)
    cov_tt = pl.when(recall_n <= 1).then(0.0).otherwise(tt)
    mcc = formulas.mcc_from_covariances(cov_tp, cov_pp, cov_tt, n)
    single = (recall_n == 1) & (predicted_n == 1) & (both_n == 1)
    expected = (n_ * n_ - tp_).cast(pl.Float64)
    if kappa_weights is None and not weighted:  # exact in Int128
        kappa = formulas.kappa_from_covariances(cov_tp, expected)
    elif disagreements:
        kappa = formulas.weighted_kappa(
            n * pl.col(_term("kappa", "D")), pl.col(_term("kappa", "E"))
        )
    else:
        sums = sums.join(
            _weighted_disagreement(counts, stats, kappa_weights),
            on=keys,
            how="left",
            nulls_equal=True,
        )
        kappa = formulas.weighted_kappa(
            n * pl.col(_term("kappa", "D")), pl.col(_term("kappa", "E"))
        )
    kappa = formulas.kappa_or_undefined(kappa, n, single, replace_undefined_by)
    n_out = pl.col("n")
    if weighted:
        sums = sums.join(scales, on=keys, how="left", nulls_equal=True)
        scale = pl.col(_COUNT_SCALE)
        n_out = n_out * pl.when(scale > 0).then(scale).otherwise(1.0)
    result = sums.select(
        *keys,
        n_out.alias("n"),
        formulas.accuracy(correct, n, _NAN).alias("accuracy"),
        pl.col("balanced_accuracy"),
        mcc.alias("mcc"),
        kappa.alias("cohen_kappa"),
    )
    return counts.finish(result.sort(keys, nulls_last=True))


#: Per segment: the labels other than ``pos_label`` (class_likelihood_ratios' check).
_OTHERS = f"{INTERNAL}other_labels"


def binary_counts(
    counts: Counts, *, pos_label: object, error: Callable[[int], DataError]
) -> pl.LazyFrame:
    """``*keys, tp, fp, fn, tn``: the 2x2 counts of ``pos_label`` against the one other label.

    ``pos_label`` is a label of the compute dtype; ``error(n)`` the error raised
    at collect when ``n`` segments hold two or more labels besides ``pos_label``
    (not binary: never a one-vs-rest merge).
    """
    keys = counts.keys
    pos = pl.lit(pos_label, counts.types.compute)
    actual, predicted = pl.col(ACTUAL) == pos, pl.col(PREDICTED) == pos
    c = pl.col(COUNT)
    others = pl.col(ACTUAL).filter(~actual).append(pl.col(PREDICTED).filter(~predicted))
    sums = counts.frame.group_by(keys).agg(
        c.filter(actual & predicted).sum().alias("tp"),
        c.filter(~actual & predicted).sum().alias("fp"),
        c.filter(actual & ~predicted).sum().alias("fn"),
        c.filter(~actual & ~predicted).sum().alias("tn"),
        (others.n_unique() > 1).cast(pl.Int64).alias(_OTHERS),
    )
    return raise_if_bad(sums, [(_OTHERS, error)]).drop(_OTHERS)


def likelihood_ratios(
    counts: Counts,
    *,
    pos_label: object,
    undefined: tuple[float, float],
    error: Callable[[int], DataError],
) -> pl.LazyFrame:
    """``*by, positive_likelihood_ratio, negative_likelihood_ratio``: scikit-learn's
    ``class_likelihood_ratios`` of ``pos_label`` against the one other label
    (:func:`binary_counts`); ``undefined`` the values of LR+ / LR- where fp / tn is 0.
    """
    keys = counts.keys
    sums = binary_counts(counts, pos_label=pos_label, error=error)
    lr_pos, lr_neg = formulas.likelihood_ratios(
        pl.col("tp"), pl.col("fp"), pl.col("fn"), pl.col("tn"), *undefined
    )
    result = sums.select(
        *keys,
        lr_pos.alias("positive_likelihood_ratio"),
        lr_neg.alias("negative_likelihood_ratio"),
    )
    return counts.finish(result.sort(keys, nulls_last=True))
