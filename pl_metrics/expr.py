"""Metric expressions for ``select``, ``group_by().agg()`` and ``over()``.

Each function returns one :class:`polars.Expr` that reduces a group to one
Float64 value.  The confusion-matrix expressions are binary: ``pos_label``
against every other label (scikit-learn's ``average="binary"``, or
``average=None, labels=[pos_label]`` on multiclass data).

Bad data raises the frame methods' :class:`pl_metrics.DataError` at evaluation,
with the same message (the column and the number of bad rows in the group); a
``pos_label`` that cannot be a label of the column raises ``ValueError``.  The
checks cost one Python call per group on its few counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import polars as pl

from pl_metrics._core import checks, formulas, options
from pl_metrics._core.catalogue import CATALOGUE
from pl_metrics._expr import multiclass
from pl_metrics._expr.inputs import (
    Check,
    aligned,
    binary_counts,
    col,
    equal_labels,
    guard,
    is_label,
    label_inputs,
    name_of,
    nonempty,
    null_checks,
    numeric_input,
    pos_checks,
    valid_weight,
    weighted_sum,
    without_zero_weights,
)
from pl_metrics._typing import ExprAverage, IntoColumn, KappaWeights

__all__ = [
    "accuracy",
    "average_precision",
    "balanced_accuracy",
    "brier_score",
    "cohen_kappa",
    "f1",
    "f_beta",
    "fowlkes_mallows",
    "gini",
    "hamming_loss",
    "hinge_loss",
    "informedness",
    "jaccard",
    "log_loss",
    "markedness",
    "mcc",
    "precision",
    "recall",
    "roc_auc",
    "specificity",
]


def accuracy(
    y_true: IntoColumn, y_pred: IntoColumn, *, weight: IntoColumn | None = None
) -> pl.Expr:
    """Fraction (or weighted fraction) of rows whose prediction equals the label.

    Equals ``sklearn.metrics.accuracy_score(y_true, y_pred, sample_weight=weight)``;
    null for a group without rows (of non-zero weight), as every expression here.

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
    y_true, y_pred, w, checks = label_inputs(y_true, y_pred, weight)
    correct = equal_labels(y_true, y_pred)
    # the rows given (a filtered or sliced input has fewer than the group)
    total = correct.len().cast(pl.Float64) if w is None else w.sum()
    value = formulas.accuracy(weighted_sum(correct, w), total, float("nan")) + guard(checks)
    return nonempty(value, y_true).alias("accuracy")


def precision(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    average: ExprAverage = "binary",
    pos_label: object = 1,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``tp / (tp + fp)``; ``zero_division`` when nothing is predicted.

    Equals ``sklearn.metrics.precision_score(..., average=average, pos_label=pos_label,
    labels=labels)``.

    Parameters
    ----------
    y_true, y_pred
        The label columns (names or expressions).
    average, labels
    average
        ``"binary"`` (default): ``pos_label`` against every other label.
        ``"micro"``, ``"macro"`` or ``"weighted"``: the multiclass averages of
        :meth:`~pl_metrics.MetricsLazyFrame.averages` (equal to scikit-learn's
        ``average=``) over ``labels``; the expression is then named
        ``{name}_{average}`` and ignores ``pos_label``.
    labels
        The classes of a multiclass average, in any order; rows whose labels lie
        outside them still count as false positives / negatives of the listed
        classes.  ``None``: the sorted union of the labels of the group.
    pos_label
        The positive class of ``average="binary"``.
    weight
        A column of sample weights (rows of weight 0 are absent).
    zero_division
        Value of a ratio whose denominator is 0: 0.0, 1.0 or NaN (NaN values are
        left out of the macro / weighted means).

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> t, p = [0, 1, 2, 2, 0, 1], [0, 2, 2, 2, 1, 1]
    >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 2, "t": t, "p": p})
    >>> df.group_by("g").agg(plm.precision("t", "p", average="macro")).sort("g")
    shape: (2, 2)
    ┌─────┬─────────────────┐
    │ g   ┆ precision_macro │
    │ --- ┆ ---             │
    │ str ┆ f64             │
    ╞═════╪═════════════════╡
    │ a   ┆ 0.555556        │
    │ b   ┆ 0.25            │
    └─────┴─────────────────┘
    """
    return multiclass.label_score(
        "precision", y_true, y_pred, average, pos_label, labels, weight, zero_division
    )


def recall(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    average: ExprAverage = "binary",
    pos_label: object = 1,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``tp / (tp + fn)``; ``zero_division`` when no row is actually of the class.

    Equals ``sklearn.metrics.recall_score(..., average=average, pos_label=pos_label,
    labels=labels)``; the arguments as :func:`precision`.
    """
    return multiclass.label_score(
        "recall", y_true, y_pred, average, pos_label, labels, weight, zero_division
    )


def f_beta(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    beta: float = 1.0,
    average: ExprAverage = "binary",
    pos_label: object = 1,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``(1 + b^2) tp / (b^2 (tp + fn) + tp + fp)``.

    Equals ``sklearn.metrics.fbeta_score(..., beta=beta, average=average,
    pos_label=pos_label, labels=labels)``; named ``f1`` for beta 1, else
    ``f{beta:g}`` (``f1_macro`` with an average); the other arguments as
    :func:`precision`.
    """
    (b,) = options.checked("expressions", beta=beta)
    return multiclass.label_score(
        "f", y_true, y_pred, average, pos_label, labels, weight, zero_division, b
    )


def f1(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    average: ExprAverage = "binary",
    pos_label: object = 1,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """F1: :func:`f_beta` with ``beta=1``.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"t": ["a", "b", "c", "c"], "p": ["a", "c", "c", "c"]})
    >>> df.select(plm.f1("t", "p", average="weighted").round(6))["f1_weighted"].item()
    0.65
    """
    return f_beta(
        y_true,
        y_pred,
        beta=1.0,
        average=average,
        pos_label=pos_label,
        labels=labels,
        weight=weight,
        zero_division=zero_division,
    )


def jaccard(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    average: ExprAverage = "binary",
    pos_label: object = 1,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``tp / (tp + fp + fn)``.

    Equals ``sklearn.metrics.jaccard_score(..., average=average, pos_label=pos_label,
    labels=labels)``; the arguments as :func:`precision`.
    """
    return multiclass.label_score(
        "jaccard", y_true, y_pred, average, pos_label, labels, weight, zero_division
    )


def fowlkes_mallows(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    average: ExprAverage = "binary",
    pos_label: object = 1,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """The Fowlkes-Mallows index of a class: ``sqrt(precision x recall)`` =
    ``tp / sqrt((tp + fp) (tp + fn))``.

    Equals ``sqrt(sklearn.metrics.precision_score(...) * recall_score(...))`` with the
    same ``pos_label``, ``labels`` and ``zero_division`` (each of precision and
    recall is ``zero_division`` where its denominator is 0); micro: of the summed
    counts, macro / weighted: the mean of the classes' values (NaN ones skipped,
    as scikit-learn's averages). Not ``sklearn.metrics.fowlkes_mallows_score``,
    which scores a clustering by pairs of rows. The arguments as :func:`precision`.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"t": [1, 1, 1, 0], "p": [1, 1, 0, 1]})
    >>> df.select(plm.fowlkes_mallows("t", "p").round(6))["fowlkes_mallows"].item()
    0.666667
    """
    return multiclass.label_score(
        "fowlkes_mallows", y_true, y_pred, average, pos_label, labels, weight, zero_division
    )


def informedness(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    average: ExprAverage = "binary",
    pos_label: object = 1,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """Youden's J of a class, ``recall + specificity - 1`` = ``tp / (tp + fn) -
    fp / (fp + tn)``, in [-1, 1]; ``zero_division`` where tp + fn or fp + tn is 0.

    Binary: ``2 x sklearn.metrics.balanced_accuracy_score(...) - 1`` (its
    ``adjusted=True``) of the two classes.  micro: of the counts summed over the
    classes, macro / weighted: the mean of the classes' values (NaN ones skipped).
    The arguments as :func:`precision`.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"t": [1, 1, 1, 0, 0], "p": [1, 1, 0, 1, 0]})
    >>> df.select(plm.informedness("t", "p").round(6))["informedness"].item()
    0.166667
    """
    return multiclass.label_score(
        "informedness", y_true, y_pred, average, pos_label, labels, weight, zero_division
    )


def markedness(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    average: ExprAverage = "binary",
    pos_label: object = 1,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``precision + negative predictive value - 1`` of a class = ``tp / (tp + fp) -
    fn / (fn + tn)``, in [-1, 1]; ``zero_division`` where tp + fp or fn + tn is 0.
    The averages and arguments as :func:`informedness`.
    """
    return multiclass.label_score(
        "markedness", y_true, y_pred, average, pos_label, labels, weight, zero_division
    )


def specificity(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    pos_label: object = 1,
    weight: IntoColumn | None = None,
    zero_division: float = 0.0,
) -> pl.Expr:
    """``tn / (tn + fp)``: the recall of the rows that are not ``pos_label``."""
    (zd,) = options.checked("expressions", zero_division=zero_division)
    _, fp, _, tn, checked = binary_counts(y_true, y_pred, pos_label, weight)
    value: pl.Expr = formulas.specificity(tn, fp, zd) + checked
    return value.alias("specificity")


def mcc(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
) -> pl.Expr:
    """Matthews correlation coefficient of the group's (multiclass) confusion matrix.

    Equals :meth:`~pl_metrics.MetricsLazyFrame.summary`'s ``mcc`` and
    ``sklearn.metrics.matthews_corrcoef(y_true, y_pred, sample_weight=weight)``:
    ``(c n - sum_k t_k p_k) / sqrt((n^2 - sum_k p_k^2)(n^2 - sum_k t_k^2))`` with
    ``c`` the correct rows and ``t_k`` / ``p_k`` the actual / predicted rows of
    class k; 0.0 when a factor of the denominator is 0.

    Parameters
    ----------
    y_true, y_pred
        The label columns (names or expressions).
    labels
        As ``summary``'s: the classes of the confusion matrix (rows whose labels
        lie outside them are dropped); ``None``: the labels of the group.
    weight
        A column of sample weights (rows of weight 0 are absent).

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"t": [0, 1, 2, 2, 1], "p": [0, 2, 2, 2, 1]})
    >>> df.select(plm.mcc("t", "p").round(6))["mcc"].item()
    0.734968
    """
    return multiclass.mcc_expr(y_true, y_pred, labels=labels, weight=weight)


def balanced_accuracy(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    adjusted: bool = False,
) -> pl.Expr:
    """The mean recall of the classes that occur in ``y_true`` (in the group).

    Equals :meth:`~pl_metrics.MetricsLazyFrame.summary`'s ``balanced_accuracy`` and
    ``sklearn.metrics.balanced_accuracy_score(y_true, y_pred, sample_weight=weight,
    adjusted=adjusted)``; the arguments as :func:`mcc`.  ``adjusted``: adjusted for
    chance, (score - 1/K) / (1 - 1/K) over the K classes in ``y_true`` (NaN for
    one class, where scikit-learn divides by 0), as ``summary(adjusted=True)``.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"t": [0, 0, 0, 1], "p": [0, 0, 1, 1]})
    >>> df.select(plm.balanced_accuracy("t", "p").round(6))["balanced_accuracy"].item()
    0.833333
    """
    (adjusted,) = options.checked("expressions", adjusted=adjusted)
    return multiclass.balanced_accuracy_expr(
        y_true, y_pred, labels=labels, weight=weight, adjusted=adjusted
    )


def cohen_kappa(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    kappa_weights: KappaWeights | None = None,
    labels: Sequence[object] | None = None,
    weight: IntoColumn | None = None,
    replace_undefined_by: float = float("nan"),
    weights: KappaWeights | None = None,
) -> pl.Expr:
    """Cohen's kappa of ``y_pred`` against ``y_true``; ``replace_undefined_by`` (default
    NaN) when the expected disagreement is 0 (one class, all actual and all predicted).

    Equals :meth:`~pl_metrics.MetricsLazyFrame.summary`'s ``cohen_kappa`` (with the
    same ``kappa_weights``) and ``sklearn.metrics.cohen_kappa_score(y_true, y_pred,
    weights=kappa_weights, labels=labels, sample_weight=weight,
    replace_undefined_by=replace_undefined_by)``.

    Parameters
    ----------
    kappa_weights
        ``None``, ``"linear"`` or ``"quadratic"``: a disagreement between the i-th
        and j-th label weighs ``|i - j|`` or ``(i - j)^2`` in the group's label order
        (the sorted labels, or ``labels``: pass it when the sorted order is not
        the classes' order).  Not the sample weights: those are ``weight``.
    y_true, y_pred, labels, weight
        As :func:`mcc`.
    replace_undefined_by
        The value where kappa is undefined: NaN (default) or a number in [-1, 1].
    weights
        Deprecated: ``kappa_weights``' former name here (``summary`` and the command
        line always called it ``kappa_weights``; beside ``weight``, the sample
        weights, one letter told them apart).  Still accepted, with a
        ``DeprecationWarning``.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"t": [0, 1, 2, 2, 1], "p": [0, 2, 2, 2, 1]})
    >>> df.select(plm.cohen_kappa("t", "p", kappa_weights="linear").round(6))["cohen_kappa"].item()
    0.761905
    """
    if weights is not None:
        kappa_weights = checks.renamed_option("weights", "kappa_weights", weights, kappa_weights)
    checked, undefined = options.checked(
        "expressions", kappa_weights=kappa_weights, replace_undefined_by=replace_undefined_by
    )
    return multiclass.cohen_kappa_expr(
        y_true,
        y_pred,
        weights=checked,
        labels=labels,
        weight=weight,
        replace_undefined_by=undefined,
    )


def hamming_loss(
    y_true: IntoColumn, y_pred: IntoColumn, *, weight: IntoColumn | None = None
) -> pl.Expr:
    """The (weighted) fraction of rows whose prediction is not the label.

    Single-label: ``1 - accuracy``, equal to ``sklearn.metrics.hamming_loss(y_true,
    y_pred, sample_weight=weight)``; null for a group without rows.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"t": ["x", "y", "z", "x"], "p": ["x", "y", "x", "y"]})
    >>> df.select(plm.hamming_loss("t", "p"))["hamming_loss"].item()
    0.5
    """
    return multiclass.hamming_loss_expr(y_true, y_pred, weight=weight)


def _score_check(score: pl.Expr, name: str) -> Check:
    """Null, NaN or infinite scores (the frame methods' message); ``score``: the column
    ``name`` as :func:`numeric_input` made it."""
    n_bad = (~score.is_finite()).fill_null(True).sum()
    return n_bad, partial(checks.Bad.bad_scores, [name])


def roc_auc(y_true: IntoColumn, y_score: IntoColumn, *, pos_label: object = None) -> pl.Expr:
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
    value, checks = _roc_auc_parts(y_true, y_score, pos_label)
    # the checks are added to the one value per group, not to every row
    return (value + guard(checks)).alias("roc_auc")


def gini(y_true: IntoColumn, y_score: IntoColumn, *, pos_label: object = None) -> pl.Expr:
    """Binary Gini coefficient (Somers' D) of ``y_score`` for ``pos_label``:
    2 x :func:`roc_auc` - 1 (null with a single class).  Un-weighted.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
    >>> df.select(plm.gini("y", "s"))["gini"].to_list()
    [0.5]
    """
    value, checks = _roc_auc_parts(y_true, y_score, pos_label)
    derived = CATALOGUE["gini"].derived
    assert derived is not None
    return (derived.value(value) + guard(checks)).alias("gini")  # type: ignore[operator]


def _roc_auc_parts(
    y_true: IntoColumn, y_score: IntoColumn, pos_label: object
) -> tuple[pl.Expr, list[Check]]:
    """:func:`roc_auc`'s value (the rank formula) and its checks, apart
    (``benchmarks/expr_checks.py`` times each check on its own)."""
    y_true, y_score = aligned(y_true, y_score)
    positive = is_label(y_true, pos_label)
    score = numeric_input(y_score, "y_score")
    ranks = score.rank("average")
    p = positive.sum().cast(pl.Float64)
    n = score.len().cast(pl.Float64) - p  # the rows given, not the group's
    u = ranks.filter(positive).sum() - p * (p + 1) / 2
    value = pl.when((p > 0) & (n > 0)).then((u / p) / n)
    checks = [
        *null_checks(y_true),
        _score_check(score, name_of(y_score)),
        *pos_checks(positive, y_true, pos_label),
    ]
    return value, checks


def average_precision(
    y_true: IntoColumn, y_score: IntoColumn, *, pos_label: object = None
) -> pl.Expr:
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
    y_true, y_score = aligned(y_true, y_score)
    positive = is_label(y_true, pos_label)
    score = numeric_input(y_score, "y_score")
    p = positive.sum().cast(pl.Float64)
    n_rows = score.len().cast(pl.Float64)  # the rows given, not the group's
    # rows with a score >= s, and positives with a score >= s, for each positive row
    at_or_above = n_rows - score.rank("min").filter(positive).cast(pl.Float64) + 1
    pos_at_or_above = p - score.filter(positive).rank("min").cast(pl.Float64) + 1
    ap = (pos_at_or_above / at_or_above).sum() / p
    value = pl.when(p > 0).then(ap).otherwise(0.0)
    checks = [
        *null_checks(y_true),
        _score_check(score, name_of(y_score)),
        *pos_checks(positive, y_true, pos_label),
    ]
    return nonempty(value + guard(checks), col(y_true)).alias("average_precision")


def _probability_check(p: pl.Expr, name: str) -> Check:
    """Null, NaN or out-of-[0, 1] probabilities (the frame methods' message); ``p``: the
    column ``name`` as :func:`numeric_input` made it."""
    n_bad = (p.is_nan() | (p < 0) | (p > 1)).fill_null(True).sum()
    return n_bad, partial(checks.Bad.bad_probabilities, [name])


def log_loss(
    y_true: IntoColumn,
    y_prob: IntoColumn,
    *,
    pos_label: object = None,
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
    name = name_of(y_prob)
    weight, (y_true, y_prob) = without_zero_weights(weight, y_true, y_prob)
    p = numeric_input(y_prob, "y_prob", exact=False)
    positive = is_label(y_true, pos_label)
    y = positive.cast(pl.Float64)
    loss = formulas.log_loss_terms([1 - y, y], [1 - p, p])
    check = _probability_check(p, name)
    return _mean(loss, weight, y_true, check, positive, pos_label).alias("log_loss")


def brier_score(
    y_true: IntoColumn,
    y_prob: IntoColumn,
    *,
    pos_label: object = None,
    weight: IntoColumn | None = None,
) -> pl.Expr:
    """Binary Brier score: the mean of ``(1[y == pos_label] - p)^2``.

    Equals ``sklearn.metrics.brier_score_loss(y_true, y_prob, pos_label=pos_label)``.
    """
    name = name_of(y_prob)
    weight, (y_true, y_prob) = without_zero_weights(weight, y_true, y_prob)
    p = numeric_input(y_prob, "y_prob", exact=False)
    positive = is_label(y_true, pos_label)
    loss = formulas.brier_terms([positive.cast(pl.Float64)], [p])
    check = _probability_check(p, name)
    return _mean(loss, weight, y_true, check, positive, pos_label).alias("brier_score")


def hinge_loss(
    y_true: IntoColumn,
    y_score: IntoColumn,
    *,
    pos_label: object = None,
    weight: IntoColumn | None = None,
) -> pl.Expr:
    """Binary hinge loss of the decision score of ``pos_label``: the mean of
    ``max(0, 1 - margin)``, margin = the score for a row of ``pos_label``, minus
    the score for the others.

    Equals :meth:`~pl_metrics.MetricsLazyFrame.hinge_loss` and
    ``sklearn.metrics.hinge_loss(y_true, y_score, sample_weight=weight)`` (whose
    positive class is the greater label).

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> # by hand: max(0, 1 + 0.5) = 1.5, max(0, 1 - 2) = 0, max(0, 1 - 0.25) = 0.75
    >>> df = pl.DataFrame({"y": [0, 1, 1], "s": [0.5, 2.0, 0.25]})
    >>> df.select(plm.hinge_loss("y", "s"))["hinge_loss"].to_list()
    [0.75]
    """
    name = name_of(y_score)
    weight, (y_true, y_score) = without_zero_weights(weight, y_true, y_score)
    score = numeric_input(y_score, "y_score")
    positive = is_label(y_true, pos_label)
    loss = formulas.hinge(formulas.binary_margin(positive, score))
    check = _score_check(score, name)
    return _mean(loss, weight, y_true, check, positive, pos_label).alias("hinge_loss")


def _mean(  # noqa: PLR0917 - the per-row loss and the columns it was computed from
    loss: pl.Expr,
    weight: IntoColumn | None,
    y_true: IntoColumn,
    score_check: Check,
    positive: pl.Expr,
    pos_label: object,
) -> pl.Expr:
    """The (weighted) mean of a per-row loss, with the checks of the probability
    metrics (the frame methods' rules for ``pos_label``) and ``score_check`` (of the
    probabilities or scores); null for an empty group."""
    checks = [
        *null_checks(y_true),
        score_check,
        *pos_checks(positive, y_true, pos_label),
    ]
    if weight is None:
        value = loss.mean() + guard(checks)
    else:
        w, weight_checks = valid_weight(weight)
        value = formulas.weighted_mean(loss, w) + guard([*checks, *weight_checks])
    return nonempty(value, col(y_true))
