"""Metric expressions for ``select``, ``group_by().agg()`` and ``over()``.

Each function returns one :class:`polars.Expr` that reduces a group to one
Float64 value.  The confusion-matrix expressions are binary: ``pos_label``
against every other label (scikit-learn's ``average="binary"``, or
``average=None, labels=[pos_label]`` on multiclass data).

Nulls in the label columns raise a :class:`polars.exceptions.ComputeError` at
evaluation whose message names the column and the number of null rows.
"""

from __future__ import annotations

import polars as pl

from pl_metrics._classification import ratio
from pl_metrics._core import checks as v
from pl_metrics._typing import IntoColumn

__all__ = [
    "accuracy",
    "average_precision",
    "brier_score",
    "f1",
    "f_beta",
    "jaccard",
    "log_loss",
    "precision",
    "recall",
    "roc_auc",
    "specificity",
]


def _col(column: IntoColumn) -> pl.Expr:
    return pl.col(column) if isinstance(column, str) else column


def _name(column: IntoColumn) -> str:
    return (
        column
        if isinstance(column, str)
        else column.meta.output_name(raise_if_undefined=False) or "<expr>"
    )


def no_nulls(*columns: IntoColumn) -> pl.Expr:
    """An Int64 0 that fails evaluation when a column holds nulls.

    Polars has no "raise" expression; a strict parse of a message string is the
    cheapest native way to stop with a readable error (no Python call per group).
    """
    guards = []
    for column in columns:
        n_null = _col(column).null_count()
        message = pl.format(f"pl_metrics: column '{_name(column)}' has {{}} null rows", n_null)
        guards.append(
            pl.when(n_null > 0).then(message).otherwise(pl.lit("0")).str.to_integer(strict=True)
        )
    return pl.sum_horizontal(guards)


def valid_weight(weight: IntoColumn) -> pl.Expr:
    """The weight as Float64, failing evaluation on null, NaN, infinite or negative values."""
    w = _col(weight).cast(pl.Float64)
    n_bad = (w.is_null() | ~w.is_finite().fill_null(False) | (w < 0).fill_null(False)).sum()
    message = pl.format(
        f"pl_metrics: column '{_name(weight)}' (argument `weight`) has {{}} rows with a "
        "null, NaN, infinite or negative weight",
        n_bad,
    )
    guard = pl.when(n_bad > 0).then(message).otherwise(pl.lit("0")).str.to_integer(strict=True)
    return w + guard


def _sum(condition: pl.Expr, weight: pl.Expr | None) -> pl.Expr:
    if weight is None:
        return condition.sum().cast(pl.Float64)
    return (condition.cast(pl.Float64) * weight).sum()


def _binary_counts(
    y_true: IntoColumn, y_pred: IntoColumn, pos_label: object, weight: IntoColumn | None
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """tp, fp, fn, tn (Float64) of ``pos_label`` against the rest."""
    actual = _col(y_true) == pos_label
    predicted = _col(y_pred) == pos_label
    w = None if weight is None else valid_weight(weight)
    guard = no_nulls(y_true, y_pred)
    tp = _sum(actual & predicted, w) + guard
    fp = _sum(~actual & predicted, w)
    fn = _sum(actual & ~predicted, w)
    tn = _sum(~actual & ~predicted, w)
    return tp, fp, fn, tn


def accuracy(
    y_true: IntoColumn, y_pred: IntoColumn, *, weight: IntoColumn | None = None
) -> pl.Expr:
    """Fraction (or weighted fraction) of rows whose prediction equals the label.

    Equals ``sklearn.metrics.accuracy_score(y_true, y_pred, sample_weight=weight)``;
    NaN for an empty group.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "t": [1, 0, 1], "p": [1, 1, 1]})
    >>> df.group_by("g").agg(plm.accuracy("t", "p")).sort("g")
    shape: (2, 2)
    ┌─────┬──────────┐
    │ g   ┆ accuracy │
    │ --- ┆ ---      │
    │ str ┆ f64      │
    ╞═════╪══════════╡
    │ a   ┆ 0.5      │
    │ b   ┆ 1.0      │
    └─────┴──────────┘
    """
    correct = _col(y_true) == _col(y_pred)
    w = None if weight is None else valid_weight(weight)
    total = pl.len().cast(pl.Float64) if w is None else w.sum()
    value = ratio(_sum(correct, w), total, float("nan")) + no_nulls(y_true, y_pred)
    return value.alias("accuracy")


def precision(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    pos_label: object = 1,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``tp / (tp + fp)`` for ``pos_label``; ``zero_division`` when nothing is predicted positive.

    Equals ``sklearn.metrics.precision_score(..., pos_label=pos_label)``.
    """
    zd = v.check_zero_division(zero_division)
    tp, fp, _, _ = _binary_counts(y_true, y_pred, pos_label, weight)
    return ratio(tp, tp + fp, zd).alias("precision")


def recall(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    pos_label: object = 1,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``tp / (tp + fn)`` for ``pos_label``; ``zero_division`` when no row is actually positive.

    Equals ``sklearn.metrics.recall_score(..., pos_label=pos_label)``.
    """
    zd = v.check_zero_division(zero_division)
    tp, _, fn, _ = _binary_counts(y_true, y_pred, pos_label, weight)
    return ratio(tp, tp + fn, zd).alias("recall")


def f_beta(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    beta: float = 1.0,
    pos_label: object = 1,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``(1 + b^2) tp / (b^2 (tp + fn) + tp + fp)`` for ``pos_label``.

    Equals ``sklearn.metrics.fbeta_score(..., beta=beta, pos_label=pos_label)``; named
    ``f1`` for beta 1, else ``f{beta:g}``.
    """
    b = v.check_beta(beta)
    zd = v.check_zero_division(zero_division)
    tp, fp, fn, _ = _binary_counts(y_true, y_pred, pos_label, weight)
    b2 = b * b
    value = ratio((1 + b2) * tp, b2 * (tp + fn) + (tp + fp), zd)
    return value.alias("f1" if b == 1 else f"f{b:g}")


def f1(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    pos_label: object = 1,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """F1 for ``pos_label``: :func:`f_beta` with ``beta=1``."""
    return f_beta(
        y_true, y_pred, beta=1.0, pos_label=pos_label, weight=weight, zero_division=zero_division
    )


def jaccard(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    pos_label: object = 1,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``tp / (tp + fp + fn)`` for ``pos_label``.

    Equals ``sklearn.metrics.jaccard_score(..., pos_label=pos_label)``.
    """
    zd = v.check_zero_division(zero_division)
    tp, fp, fn, _ = _binary_counts(y_true, y_pred, pos_label, weight)
    return ratio(tp, tp + fp + fn, zd).alias("jaccard")


def specificity(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    pos_label: object = 1,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``tn / (tn + fp)``: the recall of the rows that are not ``pos_label``."""
    zd = v.check_zero_division(zero_division)
    _, fp, _, tn = _binary_counts(y_true, y_pred, pos_label, weight)
    return ratio(tn, tn + fp, zd).alias("specificity")


def score_guard(score: IntoColumn) -> pl.Expr:
    """An Int64 0 that fails evaluation when the score has null, NaN or infinite values."""
    n_bad = (~_col(score).cast(pl.Float64).is_finite()).fill_null(True).sum()
    message = pl.format(
        f"pl_metrics: column '{_name(score)}' (argument `y_score`) has {{}} null, NaN or "
        "infinite rows",
        n_bad,
    )
    return pl.when(n_bad > 0).then(message).otherwise(pl.lit("0")).str.to_integer(strict=True)


def roc_auc(y_true: IntoColumn, y_score: IntoColumn, *, pos_label: object = 1) -> pl.Expr:
    """Binary ROC AUC of ``y_score`` for ``pos_label`` (null with a single class).

    The rank formula with averaged ranks for ties:
    ``(sum of the positives' ranks - P (P + 1) / 2) / (P N)``, equal to
    ``sklearn.metrics.roc_auc_score``.  Un-weighted; for weights use
    ``.metrics.roc_auc(..., weight=...)``.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
    >>> df.select(plm.roc_auc("y", "s"))["roc_auc"].to_list()
    [0.75]
    """
    positive = _col(y_true) == pos_label
    ranks = _col(y_score).cast(pl.Float64).rank("average")
    p = positive.sum().cast(pl.Float64)
    n = pl.len().cast(pl.Float64) - p
    u = ranks.filter(positive).sum() - p * (p + 1) / 2
    value = pl.when((p > 0) & (n > 0)).then(u / (p * n))
    # the checks are added to the one value per group, not to every row
    return (value + no_nulls(y_true) + score_guard(y_score)).alias("roc_auc")


def average_precision(y_true: IntoColumn, y_score: IntoColumn, *, pos_label: object = 1) -> pl.Expr:
    """Binary average precision of ``y_score`` for ``pos_label`` (un-weighted).

    For each positive row, the precision at its score's threshold (tied scores
    form one threshold), averaged over the positives: equal to
    ``sklearn.metrics.average_precision_score``; 0.0 without positives.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
    >>> df.select(plm.average_precision("y", "s").round(6))["average_precision"].to_list()
    [0.833333]
    """
    positive = _col(y_true) == pos_label
    score = _col(y_score).cast(pl.Float64)
    p = positive.sum().cast(pl.Float64)
    n_rows = pl.len().cast(pl.Float64)
    # rows with a score >= s, and positives with a score >= s, for each positive row
    at_or_above = n_rows - score.rank("min").filter(positive).cast(pl.Float64) + 1
    pos_at_or_above = p - score.filter(positive).rank("min").cast(pl.Float64) + 1
    ap = (pos_at_or_above / at_or_above).sum() / p
    value = pl.when(p > 0).then(ap).otherwise(0.0)
    return (value + no_nulls(y_true) + score_guard(y_score)).alias("average_precision")


def _probability_guard(y_prob: IntoColumn) -> pl.Expr:
    """An Int64 0 that fails evaluation on null, NaN or out-of-[0, 1] probabilities."""
    p = _col(y_prob).cast(pl.Float64)
    n_bad = (p.is_nan() | (p < 0) | (p > 1)).fill_null(True).sum()
    message = pl.format(
        f"pl_metrics: column '{_name(y_prob)}' has {{}} null, NaN or out-of-[0, 1] probabilities",
        n_bad,
    )
    return pl.when(n_bad > 0).then(message).otherwise(pl.lit("0")).str.to_integer(strict=True)


def log_loss(
    y_true: IntoColumn,
    y_prob: IntoColumn,
    *,
    pos_label: object = 1,
    weight: IntoColumn | None = None,
) -> pl.Expr:
    """Binary log loss of the probability of ``pos_label`` (clipped to [eps, 1 - eps]).

    Equals ``sklearn.metrics.log_loss(y_true == pos_label, y_prob)``.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> # by hand: -(ln 0.9 + ln 0.8 + ln 0.6) / 3 = 0.279777
    >>> df = pl.DataFrame({"y": [0, 1, 1], "p": [0.1, 0.8, 0.6]})
    >>> df.select(plm.log_loss("y", "p").round(6))["log_loss"].to_list()
    [0.279777]
    """
    from pl_metrics._probability import EPS

    p = _col(y_prob).cast(pl.Float64)
    positive = _col(y_true) == pos_label
    loss = (
        -pl.when(positive)
        .then(p.clip(EPS, 1 - EPS).log())
        .otherwise((1 - p).clip(EPS, 1 - EPS).log())
    )
    value = (
        loss.mean()
        if weight is None
        else (loss * valid_weight(weight)).sum() / _col(weight).cast(pl.Float64).sum()
    )
    return (value + no_nulls(y_true) + _probability_guard(y_prob)).alias("log_loss")


def brier_score(
    y_true: IntoColumn,
    y_prob: IntoColumn,
    *,
    pos_label: object = 1,
    weight: IntoColumn | None = None,
) -> pl.Expr:
    """Binary Brier score: the mean of ``(1[y == pos_label] - p)^2``.

    Equals ``sklearn.metrics.brier_score_loss(y_true, y_prob, pos_label=pos_label)``.
    """
    p = _col(y_prob).cast(pl.Float64)
    loss = ((_col(y_true) == pos_label).cast(pl.Float64) - p) ** 2
    value = (
        loss.mean()
        if weight is None
        else (loss * valid_weight(weight)).sum() / _col(weight).cast(pl.Float64).sum()
    )
    return (value + no_nulls(y_true) + _probability_guard(y_prob)).alias("brier_score")
