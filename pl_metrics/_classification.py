"""Confusion-matrix metrics as pure functions of the small counts frames.

Every function here takes the output of :mod:`pl_metrics._counts` (a few rows
per segment and class) and returns a lazy frame; none of them reads the rows.
The formulas and the undefined cases are scikit-learn's
(``precision_recall_fscore_support``, ``jaccard_score``, ``balanced_accuracy_score``,
``matthews_corrcoef``, ``cohen_kappa_score``).
"""

from __future__ import annotations

import polars as pl

from pl_metrics._counts import (
    ACTUAL,
    COUNT,
    LABEL,
    ORD,
    PREDICTED,
    Counts,
    class_counts,
    label_set,
    restricted,
)

AVERAGES = ("micro", "macro", "weighted")
_NAN = float("nan")


def f_name(beta: float) -> str:
    """The F column's name: ``f1`` for beta 1, else ``f{beta:g}`` (``f2``, ``f0.5``)."""
    return "f1" if beta == 1 else f"f{beta:g}"


def ratio(numerator: pl.Expr, denominator: pl.Expr, zero_division: float) -> pl.Expr:
    """``numerator / denominator`` in Float64, ``zero_division`` where the denominator is 0."""
    den = denominator.cast(pl.Float64)
    return (
        pl.when(den == 0)
        .then(pl.lit(zero_division, pl.Float64))
        .otherwise(numerator.cast(pl.Float64) / den)
    )


def _scores(
    tp: pl.Expr, support: pl.Expr, predicted: pl.Expr, beta: float, zero_division: float
) -> list[pl.Expr]:
    """precision, recall, F-beta and Jaccard from tp, actual and predicted positives."""
    beta2 = beta * beta
    tp = tp.cast(pl.Float64)
    return [
        ratio(tp, predicted, zero_division).alias("precision"),
        ratio(tp, support, zero_division).alias("recall"),
        # scikit-learn: (1 + b^2) tp / (b^2 (tp + fn) + (tp + fp))
        ratio(
            (1 + beta2) * tp,
            beta2 * support.cast(pl.Float64) + predicted.cast(pl.Float64),
            zero_division,
        ).alias(f_name(beta)),
        ratio(tp, support + predicted - tp, zero_division).alias("jaccard"),
    ]


def per_class(counts: Counts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, label``, the counts ``support .. tn`` and the five scores of each class."""
    specificity = ratio(pl.col("tn"), pl.col("tn") + pl.col("fp"), zero_division)
    result = (
        per_class_with_ord(counts, beta=beta, zero_division=zero_division)
        .with_columns(specificity.alias("specificity"))
        .sort([*counts.keys, ORD], nulls_last=True)
    )
    columns = ["support", "predicted", "tp", "fp", "fn", "tn", "precision", "recall"]
    result = result.select(*counts.keys, LABEL, *columns, "specificity", f_name(beta), "jaccard")
    return counts.finish(result, [LABEL])


def _skip_nan_mean(x: pl.Expr, weights: pl.Expr | None) -> pl.Expr:
    """scikit-learn's ``_nanaverage``: NaN entries are skipped; NaN if nothing is left.

    With weights whose kept entries sum to 0 it falls back to the plain mean.
    """
    kept = x.fill_nan(None)
    mean = kept.mean()
    if weights is not None:
        w = pl.when(kept.is_not_null()).then(weights.cast(pl.Float64))
        w_sum = w.sum()
        mean = pl.when(w_sum > 0).then((kept * w).sum() / w_sum).otherwise(mean)
    return mean.fill_null(_NAN)


def in_label_order(column: str) -> pl.Expr:
    """A per-class column in label order: float sums over classes then add in one
    fixed order, so results do not depend on row order or threads (bit for bit)."""
    return pl.col(column).sort_by(ORD)


def _average_exprs(average: str, beta: float, zero_division: float) -> list[pl.Expr]:
    """Aggregations of the per-class rows of one segment into one ``average`` row."""
    f = f_name(beta)
    col = in_label_order
    if average == "micro":
        sums = [col(c).sum() for c in ("tp", "support", "predicted")]
        scores = _scores(*sums, beta, zero_division)
    else:
        weights = col("support") if average == "weighted" else None
        scores = [
            _skip_nan_mean(col(name), weights).alias(name)
            for name in ("precision", "recall", f, "jaccard")
        ]
    return [*scores, col("support").sum().alias("support")]


def _average_rows(
    counts: Counts, classes: pl.LazyFrame, beta: float, zero_division: float
) -> pl.LazyFrame:
    """``*keys, average, precision, recall, f, jaccard, support, ORD`` from the per-class rows."""
    return pl.concat(
        [
            classes.group_by(counts.keys)
            .agg(_average_exprs(name, beta, zero_division))
            .with_columns(pl.lit(name).alias("average"), pl.lit(i, pl.Int64).alias(ORD))
            for i, name in enumerate(AVERAGES)
        ]
    )


def per_class_with_ord(counts: Counts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """Per-class counts and scores, keeping the internal key and label order columns."""
    stats = class_counts(counts, restrict=False)
    return stats.with_columns(
        _scores(pl.col("tp"), pl.col("support"), pl.col("predicted"), beta, zero_division)
    )


def averages(counts: Counts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, average, precision, recall, f, jaccard, support``: micro, macro, weighted rows."""
    classes = per_class_with_ord(counts, beta=beta, zero_division=zero_division)
    columns = ["average", "precision", "recall", f_name(beta), "jaccard", "support"]
    result = (
        _average_rows(counts, classes, beta, zero_division)
        .sort([*counts.keys, ORD], nulls_last=True)
        .select(*counts.keys, *columns)
    )
    return counts.finish(result)


def report(counts: Counts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, label, average, precision, recall, f, jaccard, support``.

    The per-class rows (``average`` null) come first, then micro, macro, weighted
    (``label`` null).
    """
    keys = counts.keys
    columns = [
        LABEL,
        "average",
        "precision",
        "recall",
        f_name(beta),
        "jaccard",
        "support",
    ]
    classes = per_class_with_ord(counts, beta=beta, zero_division=zero_division)
    class_rows = classes.with_columns(
        pl.lit(None, pl.String).alias("average"), pl.lit(0, pl.Int8).alias("part")
    )
    average_rows = _average_rows(counts, classes, beta, zero_division).with_columns(
        pl.lit(None, counts.types.compute).alias(LABEL),
        pl.lit(1, pl.Int8).alias("part"),
    )
    result = (
        pl.concat(
            [
                class_rows.select(*keys, *columns, ORD, "part"),
                average_rows.select(*keys, *columns, ORD, "part"),
            ]
        )
        .sort([*keys, "part", ORD], nulls_last=True)
        .select(*keys, *columns)
    )
    return counts.finish(result, [LABEL])


def confusion_matrix(counts: Counts) -> pl.LazyFrame:
    """``*by, actual, predicted, count``: every (actual, predicted) pair of the label set."""
    keys = counts.keys
    classes = label_set(counts)
    pairs = classes.rename({LABEL: ACTUAL, ORD: "ord_a"}).join(
        classes.rename({LABEL: PREDICTED, ORD: "ord_p"}), on=keys, nulls_equal=True
    )
    result = (
        pairs.join(
            restricted(counts),
            on=[*keys, ACTUAL, PREDICTED],
            how="left",
            nulls_equal=True,
        )
        .with_columns(pl.col(COUNT).fill_null(0))
        .sort([*keys, "ord_a", "ord_p"], nulls_last=True)
        .select(*keys, ACTUAL, PREDICTED, COUNT)
    )
    return counts.finish(result, [ACTUAL, PREDICTED])


def summary(counts: Counts) -> pl.LazyFrame:
    """``*by, n, accuracy, balanced_accuracy, mcc, cohen_kappa``: one row per segment.

    Computed on the confusion matrix (rows with labels outside ``labels=`` dropped).
    """
    keys = counts.keys
    stats = class_counts(counts, restrict=True)
    t = in_label_order("support").cast(pl.Float64)  # row sums of the confusion matrix
    p = in_label_order("predicted").cast(pl.Float64)  # column sums
    n = t.sum()
    correct = in_label_order("tp").cast(pl.Float64).sum()
    # matthews_corrcoef: covariances of the one-hot actual / predicted labels
    cov_tp = correct * n - (t * p).sum()
    cov_pp = n * n - (p * p).sum()
    cov_tt = n * n - (t * t).sum()
    mcc = pl.when(cov_pp * cov_tt == 0).then(0.0).otherwise(cov_tp / (cov_pp * cov_tt).sqrt())
    # cohen_kappa_score: 1 - observed disagreement / expected disagreement
    expected_disagreement = (n * n - (t * p).sum()) / n
    kappa = (
        pl.when((n == 0) | (expected_disagreement == 0))
        .then(_NAN)
        .otherwise(1 - (n - correct) / expected_disagreement)
    )
    recall = pl.when(t > 0).then(in_label_order("tp") / t)
    result = (
        stats.group_by(keys)
        .agg(
            in_label_order("support").sum().alias("n"),
            ratio(correct, n, _NAN).alias("accuracy"),
            recall.mean().fill_null(_NAN).alias("balanced_accuracy"),
            mcc.alias("mcc"),
            kappa.alias("cohen_kappa"),
        )
        .sort(keys, nulls_last=True)
    )
    return counts.finish(result)
