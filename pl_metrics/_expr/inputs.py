"""What every expression of :mod:`pl_metrics.expr` is made of: its column arguments,
the checks of its inputs (null labels, bad weights, labels that are not labels)
and :func:`guard`, which raises the frame methods' errors once per group.

The Python functions that run inside the expressions (``map_batches``) use
numpy and Series methods that call no lazy polars query: a query started inside
a user function can wait on the threads that run it.  One exception, small and
eager: ``multiclass._cut`` groups its own frame of class sums (a row per class
of each group) into one list per group with ``group_by`` and ``join``; run on
the streaming and in-memory engines with 1, 2 and 4 threads, several such
expressions in one ``agg`` and as windows, without a wait.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from types import ModuleType

import polars as pl

from pl_metrics._core import checks, scores
from pl_metrics._core.labels import default_pos_label
from pl_metrics._core.options import checked
from pl_metrics._typing import IntoColumn
from pl_metrics.exceptions import DataError


def col(column: IntoColumn) -> pl.Expr:
    """The column as an expression; a clear ``TypeError`` for anything but a name or
    an expression."""
    if isinstance(column, str):
        return pl.col(column)
    checked("expression column", column=column)
    return column  # type: ignore[return-value]  # checked: an expression


def aligned(*columns: IntoColumn) -> tuple[IntoColumn, ...]:
    """An expression's inputs at one length: column names as given; other expressions
    through one struct, which repeats a literal (a constant score or weight) along
    the other inputs, as polars' element-wise operations do (alone, a literal's
    rank, length and sum are of one row)."""
    if all(isinstance(c, str) or col(c).meta.is_column() for c in columns):
        return columns
    fields = pl.struct(*(col(c).alias(f"c{i}") for i, c in enumerate(columns)))
    return tuple(fields.struct.field(f"c{i}").alias(name_of(c)) for i, c in enumerate(columns))


def name_of(column: IntoColumn) -> str:
    """The column's name for messages: its name, or an expression's output name."""
    if isinstance(column, str):
        return column
    try:
        return col(column).meta.output_name()
    except pl.exceptions.PolarsError:
        return "<expr>"


#: A check of an expression: the count of bad rows in a group, and its error.
Check = tuple[pl.Expr, Callable[[int], DataError]]


def guard(checks: Sequence[Check]) -> pl.Expr:
    """A Float64 0 per group that raises the first failing check's :class:`DataError`.

    The counts are aggregations, one row per group; the check is elementwise over
    them, so that polars calls it once on every group's counts (in
    ``group_by().agg()``: one Python call in all, where a call per group cost
    a fifth of ``roc_auc``'s time over 1,000 groups).  The error is the same
    object, with the same message, as on the frame methods.
    """
    # each count's .max() (of one value: itself) keeps the struct a scalar per group
    # (in a select, of all rows): beside a column on the streaming engine it was
    # broadcast to every row before the check, a Python loop over the rows (40x the
    # metric's own time); a count that is not an aggregation keeps its largest
    counts = pl.struct(
        *(count.cast(pl.Int64).max().alias(f"c{i}") for i, (count, _) in enumerate(checks))
    )

    def check(values: pl.Series) -> pl.Series:
        for row in values.to_list():
            for i, (_, error) in enumerate(checks):
                n = row[f"c{i}"] if row else 0
                if n:
                    raise error(int(n))
        return pl.Series([0.0] * len(values), dtype=pl.Float64)

    return counts.map_batches(check, return_dtype=pl.Float64, is_elementwise=True)


def numeric_input(column: IntoColumn, argument: str, *, exact: bool = True) -> pl.Expr:
    """``column`` as Float64, checked row-wise as the frame methods check a score or
    probability column (``scores.prepare``, ``scores.score_checks``): a column that is
    not numeric raises their ``SchemaError`` (strings and temporals are not scores),
    and with ``exact`` integers at or beyond +-2**53, which Float64 would tie, their
    :class:`DataError` (nulls, NaN and infinities are the callers' checks)."""
    name = name_of(column)

    def checked(s: pl.Series) -> pl.Series:
        checks.check_numeric(pl.Schema({name: s.dtype}), argument, name)
        if exact and checks.ties_as_float(s.dtype):
            # checks.beyond_exact_float on a Series (no polars query inside a UDF); the
            # count is of the rows this call sees (a streaming engine's batch)
            n_inexact = int((s.cast(pl.Float64).abs() >= checks.MAX_EXACT_FLOAT_INT).sum())
            if n_inexact:
                raise checks.Bad.inexact_scores([name], n_inexact)
        return s.cast(pl.Float64)

    return col(column).map_batches(checked, return_dtype=pl.Float64, is_elementwise=True)


def null_checks(*columns: IntoColumn) -> list[Check]:
    return [(col(c).null_count(), partial(checks.Bad.nulls, name_of(c))) for c in columns]


def is_label(column: IntoColumn, value: object, argument: str = "pos_label") -> pl.Expr:
    """Row-wise ``column == value``, ``value`` converted exactly to the column's dtype
    (a clear ``ValueError`` when it cannot be a label of that column; a
    :class:`DataError` for float labels that are not whole numbers)."""
    name = name_of(column)

    def compare(s: pl.Series) -> pl.Series:
        n_bad = bad_float_labels(s)
        if n_bad:
            raise checks.Bad.not_labels(name, n_bad)
        if value is None:  # the frame methods' default (labels.default_pos_label)
            label = default_pos_label(s.dtype, name)
        else:
            label = checks.label_value(value, s.dtype, argument, name)
        equal: pl.Series = s == label
        return equal

    return col(column).map_batches(compare, return_dtype=pl.Boolean, is_elementwise=True)


def default_pos_check(y_true: IntoColumn) -> Check:
    """With the default ``pos_label``, a group's labels must be {0, 1} or {-1, 1}
    (the frame methods' rule, ``scores.default_pos_label_aggs``, per group)."""
    y = col(y_true).cast(pl.Float64, strict=False)
    name = name_of(y_true)
    return pl.min_horizontal(
        scores.default_pos_label_aggs(y)
    ), lambda _: checks.Bad.pos_label_needed(name, [])


def pos_checks(positive: pl.Expr, y_true: IntoColumn, pos_label: object) -> list[Check]:
    """The ``pos_label`` rules of a binary score metric: scikit-learn's
    (:func:`pos_label_check`), and with the default ``pos_label`` also its {0, 1} /
    {-1, 1} rule.  The first is not implied by the second: the rule reads the labels
    as Float64, where a Decimal 1.00000000000000000001 is 1, but ``positive``
    compares them exactly."""
    checks = [pos_label_check(positive.sum(), [y_true], pos_label)]
    return [*checks, default_pos_check(y_true)] if pos_label is None else checks


def nonempty(value: pl.Expr, rows: pl.Expr) -> pl.Expr:
    """``value``, or null for a group without rows (of non-zero weight): the frame
    methods give such a segment no row."""
    return pl.when(rows.len() > 0).then(value)


def equal_labels(y_true: IntoColumn, y_pred: IntoColumn) -> pl.Expr:
    """Row-wise ``y_true == y_pred`` compared as the frame methods compare them: float
    labels must be whole numbers (:class:`DataError`), and the two columns are cast
    to their lossless common dtype (``SchemaError`` for strings against numbers)."""
    names = (name_of(y_true), name_of(y_pred))

    def compare(s: pl.Series) -> pl.Series:
        both = s.struct.unnest()
        t, p = both.to_series(0), both.to_series(1)
        for series, name in ((t, names[0]), (p, names[1])):
            n_bad = bad_float_labels(series)
            if n_bad:
                raise checks.Bad.not_labels(name, n_bad)
        schema = pl.Schema({names[0]: t.dtype}) | pl.Schema({names[1]: p.dtype})
        if names[0] == names[1]:
            return t == p
        types = checks.label_types(pl.Schema(schema), *names)
        return t.cast(types.compute) == p.cast(types.compute)

    both = pl.struct(col(y_true).alias("t"), col(y_pred).alias("p"))
    return both.map_batches(compare, return_dtype=pl.Boolean, is_elementwise=True)


def valid_weight(weight: IntoColumn) -> tuple[pl.Expr, list[Check]]:
    """The weight as Float64, and its checks: bad values (``checks.weight_is_bad``),
    a group's total too large (``checks.weight_total_too_large``)."""
    w = col(weight).cast(pl.Float64)
    name = name_of(weight)
    bad, overflow = checks.weight_errors(name)
    return w, [
        (checks.weight_is_bad(w).sum(), bad),
        (checks.weight_total_too_large(w.sum()), overflow),
    ]


def weighted_sum(condition: pl.Expr, weight: pl.Expr | None) -> pl.Expr:
    if weight is None:
        return condition.sum().cast(pl.Float64)
    return (condition.cast(pl.Float64) * weight).sum()


def pos_label_check(positives: pl.Expr, labels: Sequence[IntoColumn], pos_label: object) -> Check:
    """scikit-learn's rule: ``pos_label`` absent from a group holding two or more labels
    is an error (a group holding one other label has no positives: fine)."""
    first = col(labels[0]).drop_nulls().first()
    several = pl.any_horizontal(*((col(c) != first).any() for c in labels))
    absent = (positives == 0) & several.fill_null(False)
    names = [name_of(c) for c in labels]
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
    """The weight (as Float64: a column that is not numeric raises the frame methods'
    ``SchemaError``, :func:`numeric_input`) and the columns without the rows of
    weight 0: such rows are absent, as in the frame methods (null, NaN and negative
    weights stay, for the check)."""
    if weight is None:
        return None, [col(c) for c in columns]
    weight, *columns = aligned(weight, *columns)  # a literal weight: on every row
    w = numeric_input(weight, "weight", exact=False)
    keep = checks.weight_kept(w)
    return w.filter(keep), [col(c).filter(keep) for c in columns]


def label_inputs(
    y_true: IntoColumn, y_pred: IntoColumn, weight: IntoColumn | None
) -> tuple[pl.Expr, pl.Expr, pl.Expr | None, list[Check]]:
    """The two label columns and the weight without the rows of weight 0, and their
    checks (null labels, bad weights)."""
    weight, (y_true, y_pred) = without_zero_weights(weight, y_true, y_pred)
    checks = null_checks(y_true, y_pred)
    w = None
    if weight is not None:
        w, weight_checks = valid_weight(weight)
        checks += weight_checks
    return y_true, y_pred, w, checks


def binary_counts(
    y_true: IntoColumn, y_pred: IntoColumn, pos_label: object, weight: IntoColumn | None
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """tp, fp, fn, tn (Float64) of ``pos_label`` against the rest, and the guard (0.0)."""
    y_true, y_pred, w, checks = label_inputs(y_true, y_pred, weight)
    actual = is_label(y_true, pos_label)
    predicted = is_label(y_pred, pos_label)
    checks.append(pos_label_check(actual.sum() + predicted.sum(), [y_true, y_pred], pos_label))
    tp = weighted_sum(actual & predicted, w)
    fp = weighted_sum(~actual & predicted, w)
    fn = weighted_sum(actual & ~predicted, w)
    tn = weighted_sum(~actual & ~predicted, w)
    return tp, fp, fn, tn, nonempty(guard(checks), y_true)


def numpy() -> ModuleType:
    """numpy, imported when an expression first needs it (the multiclass counts, the
    float-label check): ``import pl_metrics`` needs polars only."""
    try:
        import numpy as np
    except ModuleNotFoundError:
        msg = "this expression needs numpy (multiclass averages, float labels): pip install numpy"
        raise ModuleNotFoundError(msg) from None
    return np


def bad_float_rows(s: pl.Series) -> pl.Series:
    """Row-wise: a float label that is NaN, infinite or not a whole Int64
    (``checks.not_a_label`` in numpy); all false for other dtypes.  A null label is
    NaN in numpy and flagged too: the null check comes first with its own error."""
    np = numpy()
    if not s.dtype.is_float():
        return pl.Series(np.zeros(len(s), dtype=bool))
    x = s.cast(pl.Float64).to_numpy()
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(x) | (x != np.round(x)) | (np.abs(x) >= 2.0**63)
    return pl.Series(bad)


def bad_float_labels(s: pl.Series) -> int:
    """The number of :func:`bad_float_rows` (nulls not counted: their own check)."""
    if not s.dtype.is_float():
        return 0
    return int(bad_float_rows(s).sum()) - s.null_count()
