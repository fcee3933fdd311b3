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

from collections.abc import Callable, Sequence
from functools import partial

import polars as pl

from pl_metrics._core import checks as v
from pl_metrics._core import formulas as fm
from pl_metrics._core import scores as sc
from pl_metrics._core.names import f_name
from pl_metrics._typing import IntoColumn
from pl_metrics.exceptions import DataError

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
    if isinstance(column, str):
        return pl.col(column)
    if isinstance(column, pl.Expr):
        return column
    msg = f"a column argument must be a column name or a polars expression, got {column!r}"
    raise TypeError(msg)


def _name(column: IntoColumn) -> str:
    """The column's name for messages: its name, or an expression's output name."""
    if isinstance(column, str):
        return column
    try:
        return column.meta.output_name()
    except pl.exceptions.PolarsError:
        return "<expr>"


#: A check of an expression: the count of bad rows in a group, and its error.
_Check = tuple[pl.Expr, Callable[[int], DataError]]


def guard(checks: Sequence[_Check]) -> pl.Expr:
    """A Float64 0 per group that raises the first failing check's :class:`DataError`.

    One Python call per group on the group's few counts (not per row); the
    error is the same object, with the same message, as on the frame methods.
    """
    counts = pl.struct(
        *(count.cast(pl.Int64).alias(f"c{i}") for i, (count, _) in enumerate(checks))
    )

    def check(values: pl.Series) -> pl.Series:
        for row in values.to_list():
            for i, (_, error) in enumerate(checks):
                n = row[f"c{i}"] if row else 0
                if n:
                    raise error(int(n))
        return pl.Series([0.0] * len(values), dtype=pl.Float64)

    return counts.map_batches(check, return_dtype=pl.Float64, returns_scalar=True)


def _null_checks(*columns: IntoColumn) -> list[_Check]:
    return [(_col(c).null_count(), partial(v.Bad.nulls, _name(c))) for c in columns]


def is_label(column: IntoColumn, value: object, argument: str = "pos_label") -> pl.Expr:
    """Row-wise ``column == value``, ``value`` converted exactly to the column's dtype
    (a clear ``ValueError`` when it cannot be a label of that column; a
    :class:`DataError` for float labels that are not whole numbers)."""
    name = _name(column)

    def compare(s: pl.Series) -> pl.Series:
        if s.dtype.is_float():
            n_bad = int(pl.select(v.not_a_label(pl.lit(s))).to_series().sum())
            if n_bad:
                raise v.Bad.not_labels(name, n_bad)
        label = _default_label(s.dtype, name) if value is None else value
        return s == v.label_value(label, s.dtype, argument, name)

    return _col(column).map_batches(compare, return_dtype=pl.Boolean, is_elementwise=True)


def _default_label(dtype: pl.DataType, name: str) -> object:
    """The default ``pos_label``: True for booleans, 1 for numbers; required for strings."""
    if dtype == pl.Boolean:
        return True
    if dtype.is_numeric():
        return 1
    msg = (
        f"`pos_label` is required when {name!r} holds {dtype} labels: "
        "pass the positive class, e.g. pos_label='yes'"
    )
    raise ValueError(msg)


def _default_pos_check(y_true: IntoColumn) -> _Check:
    """With the default ``pos_label``, a group's labels must be {0, 1} or {-1, 1}
    (the frame methods' rule, ``scores.default_pos_label_aggs``, per group)."""
    y = _col(y_true).cast(pl.Float64, strict=False)
    name = _name(y_true)
    return pl.min_horizontal(sc.default_pos_label_aggs(y)), lambda _: v.Bad.pos_label_needed(
        name, []
    )


def _nonempty(value: pl.Expr, rows: pl.Expr) -> pl.Expr:
    """``value``, or null for a group without rows (of non-zero weight): the frame
    methods give such a segment no row."""
    return pl.when(rows.len() > 0).then(value)


def equal_labels(y_true: IntoColumn, y_pred: IntoColumn) -> pl.Expr:
    """Row-wise ``y_true == y_pred`` compared as the frame methods compare them: float
    labels must be whole numbers (:class:`DataError`), and the two columns are cast
    to their lossless common dtype (``SchemaError`` for strings against numbers)."""
    names = (_name(y_true), _name(y_pred))

    def compare(s: pl.Series) -> pl.Series:
        t, p = s.struct.field("t"), s.struct.field("p")
        for series, name in ((t, names[0]), (p, names[1])):
            if series.dtype.is_float():
                n_bad = int(pl.select(v.not_a_label(pl.lit(series))).to_series().sum())
                if n_bad:
                    raise v.Bad.not_labels(name, n_bad)
        schema = pl.Schema({names[0]: t.dtype}) | pl.Schema({names[1]: p.dtype})
        if names[0] == names[1]:
            return t == p
        types = v.label_types(pl.Schema(schema), *names)
        return t.cast(types.compute) == p.cast(types.compute)

    both = pl.struct(_col(y_true).alias("t"), _col(y_pred).alias("p"))
    return both.map_batches(compare, return_dtype=pl.Boolean, is_elementwise=True)


def valid_weight(weight: IntoColumn) -> tuple[pl.Expr, _Check]:
    """The weight as Float64, and the check of bad values (``checks.weight_is_bad``)."""
    w = _col(weight).cast(pl.Float64)
    return w, (v.weight_is_bad(w).sum(), partial(v.Bad.bad_weights, _name(weight)))


def _sum(condition: pl.Expr, weight: pl.Expr | None) -> pl.Expr:
    if weight is None:
        return condition.sum().cast(pl.Float64)
    return (condition.cast(pl.Float64) * weight).sum()


def _pos_label_check(positives: pl.Expr, labels: Sequence[IntoColumn], pos_label: object) -> _Check:
    """scikit-learn's rule: ``pos_label`` absent from a group holding two or more labels
    is an error (a group holding one other label has no positives: fine)."""
    first = _col(labels[0]).drop_nulls().first()
    several = pl.any_horizontal(*((_col(c) != first).any() for c in labels))
    absent = (positives == 0) & several.fill_null(False)
    names = [_name(c) for c in labels]
    shown = "1 (the default)" if pos_label is None else repr(pos_label)
    return (
        absent.cast(pl.Int64),
        lambda _: DataError(
            f"`pos_label`={shown} occurs in none of the columns {names} of a group "
            "that holds two or more other labels; pass one of its labels as pos_label"
        ),
    )


def without_zero_weights(
    weight: IntoColumn | None, *columns: IntoColumn
) -> tuple[pl.Expr | None, list[pl.Expr]]:
    """The weight and the columns without the rows of weight 0: such rows are absent,
    as in the frame methods (null, NaN and negative weights stay, for the check)."""
    if weight is None:
        return None, [_col(c) for c in columns]
    keep = (_col(weight).cast(pl.Float64) != 0).fill_null(True)
    return _col(weight).filter(keep), [_col(c).filter(keep) for c in columns]


def _label_inputs(
    y_true: IntoColumn, y_pred: IntoColumn, weight: IntoColumn | None
) -> tuple[pl.Expr, pl.Expr, pl.Expr | None, list[_Check]]:
    """The two label columns and the weight without the rows of weight 0, and their
    checks (null labels, bad weights)."""
    weight, (y_true, y_pred) = without_zero_weights(weight, y_true, y_pred)
    checks = _null_checks(y_true, y_pred)
    w = None
    if weight is not None:
        w, weight_check = valid_weight(weight)
        checks.append(weight_check)
    return y_true, y_pred, w, checks


def _binary_counts(
    y_true: IntoColumn, y_pred: IntoColumn, pos_label: object, weight: IntoColumn | None
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """tp, fp, fn, tn (Float64) of ``pos_label`` against the rest, and the guard (0.0)."""
    y_true, y_pred, w, checks = _label_inputs(y_true, y_pred, weight)
    actual = is_label(y_true, pos_label)
    predicted = is_label(y_pred, pos_label)
    checks.append(_pos_label_check(actual.sum() + predicted.sum(), [y_true, y_pred], pos_label))
    tp = _sum(actual & predicted, w)
    fp = _sum(~actual & predicted, w)
    fn = _sum(actual & ~predicted, w)
    tn = _sum(~actual & ~predicted, w)
    return tp, fp, fn, tn, _nonempty(guard(checks), y_true)


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
    y_true, y_pred, w, checks = _label_inputs(y_true, y_pred, weight)
    correct = equal_labels(y_true, y_pred)
    total = pl.len().cast(pl.Float64) if w is None else w.sum()
    value = fm.accuracy(_sum(correct, w), total, float("nan")) + guard(checks)
    return _nonempty(value, y_true).alias("accuracy")


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
    tp, fp, _, _, checked = _binary_counts(y_true, y_pred, pos_label, weight)
    return (fm.precision(tp, tp + fp, zd) + checked).alias("precision")


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
    tp, _, fn, _, checked = _binary_counts(y_true, y_pred, pos_label, weight)
    return (fm.recall(tp, tp + fn, zd) + checked).alias("recall")


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
    tp, fp, fn, _, checked = _binary_counts(y_true, y_pred, pos_label, weight)
    value = fm.f_beta(tp, tp + fn, tp + fp, b, zd) + checked
    return value.alias(f_name(b))


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
    tp, fp, fn, _, checked = _binary_counts(y_true, y_pred, pos_label, weight)
    return (fm.jaccard(tp, tp + fn, tp + fp, zd) + checked).alias("jaccard")


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
    _, fp, _, tn, checked = _binary_counts(y_true, y_pred, pos_label, weight)
    return (fm.specificity(tn, fp, zd) + checked).alias("specificity")


def _score_check(score: IntoColumn) -> _Check:
    """Null, NaN or infinite scores (the frame methods' message)."""
    n_bad = (~_col(score).cast(pl.Float64).is_finite()).fill_null(True).sum()
    return n_bad, partial(v.Bad.bad_scores, [_name(score)])


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
    positive = is_label(y_true, pos_label)
    ranks = _col(y_score).cast(pl.Float64).rank("average")
    p = positive.sum().cast(pl.Float64)
    n = pl.len().cast(pl.Float64) - p
    u = ranks.filter(positive).sum() - p * (p + 1) / 2
    value = pl.when((p > 0) & (n > 0)).then((u / p) / n)
    checks = [
        *_null_checks(y_true),
        _score_check(y_score),
        _pos_label_check(positive.sum(), [y_true], pos_label),
        *([_default_pos_check(y_true)] if pos_label is None else []),
    ]
    # the checks are added to the one value per group, not to every row
    return (value + guard(checks)).alias("roc_auc")


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
    positive = is_label(y_true, pos_label)
    score = _col(y_score).cast(pl.Float64)
    p = positive.sum().cast(pl.Float64)
    n_rows = pl.len().cast(pl.Float64)
    # rows with a score >= s, and positives with a score >= s, for each positive row
    at_or_above = n_rows - score.rank("min").filter(positive).cast(pl.Float64) + 1
    pos_at_or_above = p - score.filter(positive).rank("min").cast(pl.Float64) + 1
    ap = (pos_at_or_above / at_or_above).sum() / p
    value = pl.when(p > 0).then(ap).otherwise(0.0)
    checks = [
        *_null_checks(y_true),
        _score_check(y_score),
        _pos_label_check(positive.sum(), [y_true], pos_label),
        *([_default_pos_check(y_true)] if pos_label is None else []),
    ]
    return _nonempty(value + guard(checks), _col(y_true)).alias("average_precision")


def _probability_check(y_prob: IntoColumn) -> _Check:
    """Null, NaN or out-of-[0, 1] probabilities (the frame methods' message)."""
    p = _col(y_prob).cast(pl.Float64)
    n_bad = (p.is_nan() | (p < 0) | (p > 1)).fill_null(True).sum()
    return n_bad, partial(v.Bad.bad_probabilities, [_name(y_prob)])


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
    from pl_metrics._probability import EPS

    weight, (y_true, y_prob) = without_zero_weights(weight, y_true, y_prob)
    p = y_prob.cast(pl.Float64)
    positive = is_label(y_true, pos_label)
    loss = (
        -pl.when(positive)
        .then(p.clip(EPS, 1 - EPS).log())
        .otherwise((1 - p).clip(EPS, 1 - EPS).log())
    )
    return _mean(loss, weight, y_true, y_prob, positive, pos_label).alias("log_loss")


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
    weight, (y_true, y_prob) = without_zero_weights(weight, y_true, y_prob)
    p = y_prob.cast(pl.Float64)
    positive = is_label(y_true, pos_label)
    loss = (positive.cast(pl.Float64) - p) ** 2
    return _mean(loss, weight, y_true, y_prob, positive, pos_label).alias("brier_score")


def _mean(  # noqa: PLR0917 - the per-row loss and the columns it was computed from
    loss: pl.Expr,
    weight: IntoColumn | None,
    y_true: IntoColumn,
    y_prob: IntoColumn,
    positive: pl.Expr,
    pos_label: object,
) -> pl.Expr:
    """The (weighted) mean of a per-row loss, with the checks of the probability
    metrics (the frame methods' rules for ``pos_label``); null for an empty group."""
    checks = [
        *_null_checks(y_true),
        _probability_check(y_prob),
        _pos_label_check(positive.sum(), [y_true], pos_label),
        *([_default_pos_check(y_true)] if pos_label is None else []),
    ]
    if weight is None:
        value = loss.mean() + guard(checks)
    else:
        w, weight_check = valid_weight(weight)
        value = fm.weighted_mean(loss, w) + guard([*checks, weight_check])
    return _nonempty(value, _col(y_true))
