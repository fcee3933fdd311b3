"""Multiclass expressions: the per-class counts of a group inside one aggregation.

The frame methods count ``(actual, predicted)`` pairs with a ``group_by`` and
derive everything from that small frame.  An expression cannot ``group_by``
inside ``group_by().agg()``, so it works on class positions instead:

- each row's true and predicted label become their position in the group's
  label set (:func:`label_codes`): the dense rank of the labels of both columns
  (``labels=None``: the sorted union, as the frame methods), or the index in
  ``labels=`` (null outside it);
- the per-class counts are vectors of K values, one per position, in order:
  unweighted, the positions appended once to each column's, sorted and counted
  (``unique_counts``; exact integers, no Python call); weighted, one ``numpy``
  ``bincount`` per group (polars has no weighted count within an aggregation: a
  window partitioned by a computed column is refused there);
- every metric is a reduction of those vectors with the formulas of
  :mod:`pl_metrics._core.formulas`; macro / weighted averages skip NaN values
  (``zero_division=nan``) as scikit-learn's ``_nanaverage`` and the frame methods.

The expressions are usable in ``select``, ``group_by().agg()`` and ``over()``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import polars as pl

from pl_metrics._core import checks, covariances, formulas
from pl_metrics._core.names import score_column
from pl_metrics._core.options import checked
from pl_metrics._expr.inputs import (
    Check,
    bad_float_rows,
    binary_counts,
    equal_labels,
    guard,
    label_inputs,
    name_of,
    nonempty,
    numpy,
    weighted_sum,
)
from pl_metrics._typing import IntoColumn

if TYPE_CHECKING:
    import numpy as np

_NAN = float("nan")
#: What :func:`_check_labels` returns per row: the two class positions (null outside
#: ``labels=``, or when ``labels=None``) and whether each label is a bad float label.
_CODES = pl.Struct({"t": pl.Int64, "p": pl.Int64, "bad_t": pl.Boolean, "bad_p": pl.Boolean})


# ------------------------------------------------------------------------ options
def check_average(average: object, labels: object) -> str:
    """``average`` is one of binary / micro / macro / weighted; ``labels`` only with the
    multiclass averages."""
    checked("expressions", average=average, labels=labels)
    return str(average)


def check_labels(labels: object) -> list[object] | None:
    """``labels=`` checked as far as it can be without the columns' dtype (a non-empty
    sequence of distinct labels without None: ``checks.labels_series``' rules); each
    value is converted to the columns' label dtype at evaluation (``ValueError``
    naming the column when it cannot be a label of it)."""
    if labels is None:
        return None
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, pl.Series)):
        checks.labels_series(labels, pl.String(), "labels")  # raises its message
    values = list(labels)  # type: ignore[call-overload]
    try:
        dtype = pl.Series(values).dtype
    except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
        dtype = None  # several kinds of values: converted (or refused) at evaluation
    if dtype is not None or not values:
        checks.labels_series(values, dtype or pl.String(), "labels")
    checked: list[object] = values
    return checked


# ------------------------------------------------------------------ class positions
def _check_labels(s: pl.Series, names: tuple[str, str], labels: list[object] | None) -> pl.Series:
    """Row-wise: the positions of both labels in ``labels`` and the bad float labels.

    The dtypes must be compatible (``SchemaError``, the frame methods' rule) and
    ``labels`` convertible to their common dtype (``ValueError``).  No polars query
    runs here (see :mod:`pl_metrics._expr.inputs`).
    """
    both = s.struct.unnest()
    t, p = both.to_series(0), both.to_series(1)
    if names[0] == names[1]:
        types = checks.label_types(pl.Schema({names[0]: t.dtype}), names[0], names[0])
    else:
        types = checks.label_types(pl.Schema({names[0]: t.dtype, names[1]: p.dtype}), *names)
    np = numpy()
    columns = []
    given = None if labels is None else checks.labels_series(labels, types.compute, names[0])
    for key, series in (("t", t), ("p", p)):
        if given is None:  # the positions are the dense ranks (label_codes)
            codes = pl.Series(key, np.zeros(len(series), dtype=np.int64))
        else:  # each label's position in `labels` (null outside them), vectorised
            positions = pl.int_range(given.len(), dtype=pl.Int64, eager=True)
            compared = series.cast(types.compute, strict=False)
            codes = compared.replace_strict(given, positions, default=None, return_dtype=pl.Int64)
        columns.append(codes.alias(key))
    columns += [bad_float_rows(t).alias("bad_t"), bad_float_rows(p).alias("bad_p")]
    return pl.DataFrame(columns).to_struct(s.name)


def _coded_rows(
    t: pl.Expr,
    p: pl.Expr,
    w: pl.Expr | None,
    names: tuple[str, str],
    labels: list[object] | None,
    *,
    restrict: bool,
) -> tuple[pl.Expr, list[Check]]:
    """Per group, one list of its rows as ``{a, b, w}``: the class positions of the
    true and predicted label (Int64, 0 .. K - 1 in label order; null outside
    ``labels``) and the weight (1 without); and the label checks.

    ``labels=None``: the dense rank of the labels of both columns (the sorted
    union, as the frame methods; the append casts to the common dtype, and
    incompatible dtypes are refused by the check).  Rows outside ``labels`` are
    dropped with ``restrict``.
    """

    def check(s: pl.Series) -> pl.Series:  # a function: polars calls a partial twice
        return _check_labels(s, names=names, labels=labels)

    checked = pl.struct(t.alias("t"), p.alias("p")).map_batches(
        check, return_dtype=_CODES, is_elementwise=True
    )
    data_checks: list[Check] = [
        (checked.struct.field("bad_t").sum(), partial(checks.Bad.not_labels, names[0])),
        (checked.struct.field("bad_p").sum(), partial(checks.Bad.not_labels, names[1])),
    ]
    weight = pl.lit(1.0) if w is None else w
    if labels is not None:
        fields = [checked.struct.field("t").alias("a"), checked.struct.field("p").alias("b")]
        rows = pl.struct(*fields, weight.alias("w")).implode()
        if restrict:
            inside = pl.element().struct.field("a").is_not_null()
            inside &= pl.element().struct.field("b").is_not_null()
            rows = rows.list.eval(pl.element().filter(inside)).first()
        return rows, data_checks
    rows = pl.struct(t.alias("t"), p.alias("p"), weight.alias("w")).implode()
    e = pl.element().struct
    codes = e.field("t").append(e.field("p")).rank("dense").cast(pl.Int64) - 1
    n = e.field("t").len()
    coded = pl.struct(codes.slice(0, n).alias("a"), codes.slice(n).alias("b"), e.field("w"))
    return rows.list.eval(coded).first(), data_checks


# -------------------------------------------------------------------- class counts
@dataclass(frozen=True)
class ClassCounts:
    """The per-class counts of each group, evaluated once: reduce them with :meth:`reduce`."""

    classes: pl.Expr  # per group: a list of K {support, predicted, tp}, in label order
    coded: pl.Expr  # per group: the rows' {a, b, w} (_coded_rows)
    exact: bool  # integer counts (no weight)
    rows: pl.Expr  # the rows of non-zero weight (null result without them)
    checks: list[Check]

    def reduce(self, value: Callable[[pl.Expr, pl.Expr, pl.Expr, pl.Expr], pl.Expr]) -> pl.Expr:
        """``value(support, predicted, tp, tn)`` (vectors of the K classes) per group;
        ``tn`` exists where :func:`class_counts` was asked for ``negatives`` (or with
        weights).

        The counts are computed once and each metric reads them inside one
        ``list.eval``: an expression used twice in an aggregation is computed twice.
        """
        f = pl.element().struct
        metric = value(f.field("support"), f.field("predicted"), f.field("tp"), f.field("tn"))
        return self.classes.list.eval(metric).first().list.first()


def _bincount(codes: pl.Expr, k: pl.Expr) -> pl.Expr:
    """The number of rows of each class position 0 .. k - 1 (Int64): each position
    appended once, sorted, counted, minus the one appended."""
    positions = pl.int_range(k, dtype=pl.Int64)
    return codes.drop_nulls().append(positions).sort().unique_counts().cast(pl.Int64) - 1


def _weighted_bincounts(s: pl.Series, k: int | None, kappa_weights: str | None) -> pl.Series:
    """Each group's summed weights per actual class, per predicted class, of the
    correct rows and of the actual class's rows predicted as another (``miss``,
    summed directly: ``support - tp`` loses it beside a large ``tp``), as one list
    of K ``{support, predicted, tp, observed, miss}`` (:func:`class_counts`).

    ``s`` holds one list of coded rows ``{a, b, w}`` per group, all the groups of a
    ``group_by`` at once (the expression is element-wise over the groups' lists):
    one ``bincount`` of each kind over all groups, the classes of group ``g`` at
    ``start[g] + position``, never a Python call per group."""
    np = numpy()
    # the groups' rows in order (an empty or null list: none)
    rows = s.explode(empty_as_null=False, keep_nulls=False).struct.unnest()
    lengths = s.list.len().fill_null(0).to_numpy().astype(np.int64)
    group = np.repeat(np.arange(s.len(), dtype=np.int64), lengths)
    a, b, w = (rows.to_series(i).to_numpy() for i in range(3))  # null positions: NaN
    a, b, w = a.astype(np.float64), b.astype(np.float64), w.astype(np.float64)
    a_ok, b_ok = ~np.isnan(a), ~np.isnan(b)
    if k is None:  # labels=None: every position 0 .. K - 1 of a group occurs in it
        top = np.full(s.len(), -1.0)
        np.maximum.at(top, group[a_ok], a[a_ok])
        np.maximum.at(top, group[b_ok], b[b_ok])
        classes = top.astype(np.int64) + 1
    else:
        classes = np.full(s.len(), k, dtype=np.int64)
    start = np.cumsum(classes) - classes  # the group's first class in the flat layout
    size = int(classes.sum())

    def summed(rows_of: np.ndarray, position: np.ndarray) -> np.ndarray:
        cells = start[group[rows_of]] + position[rows_of].astype(np.int64)
        return np.bincount(cells, w[rows_of], minlength=size)

    correct = a_ok & b_ok & (a == b)
    support, predicted, tp = summed(a_ok, a), summed(b_ok, b), summed(correct, a)
    # tn = the group's weight - support - predicted + tp, exactly 0 where no row is of
    # neither label (counted in rows: float sums could leave a residue of ~1e-17 there,
    # as confusion.class_counts says)
    owner = np.repeat(np.arange(s.len()), classes)
    rows_of_group = np.bincount(group, minlength=s.len())[owner]
    total = np.bincount(group, w, minlength=s.len())[owner]

    def rows_of(kept: np.ndarray, position: np.ndarray) -> np.ndarray:
        cells = start[group[kept]] + position[kept].astype(np.int64)
        return np.bincount(cells, minlength=size)

    neither = rows_of_group - rows_of(a_ok, a) - rows_of(b_ok, b) + rows_of(correct, a)
    tn = np.where(neither == 0, 0.0, total - support - predicted + tp)
    observed = np.zeros(s.len())
    if kappa_weights is not None and size:
        # divided by the group's largest class count (the scale of _scaled, from these
        # same sums) row by row: a sum of (a - b)^2 x weights near 1e307 would overflow
        largest = np.zeros(s.len())
        np.maximum.at(largest, owner, np.maximum(support, predicted))
        largest[largest == 0] = 1.0
        both = a_ok & b_ok
        disagreement = formulas.kappa_weight(kappa_weights, a[both], b[both], formulas.NUMPY)
        scaled = disagreement * (w[both] / largest[group[both]])
        observed = np.bincount(group[both], scaled, minlength=s.len())
    sums = pl.DataFrame(
        {
            "support": support,
            "predicted": predicted,
            "tp": tp,
            "observed": np.repeat(observed, classes),
            "miss": summed(a_ok & ~correct, a),
            "tn": tn,
        },
    )
    return _cut(sums, classes)


def _cut(flat: pl.DataFrame, lengths: np.ndarray) -> pl.Series:
    """The rows of ``flat`` as one list of structs per group, group ``g`` taking the
    next ``lengths[g]`` rows (a group of none: an empty list)."""
    np = numpy()
    groups = pl.DataFrame({_GROUP: np.arange(lengths.size)})
    owner = pl.Series(_GROUP, np.repeat(np.arange(lengths.size), lengths))
    listed = (
        flat.select(pl.struct(pl.all()).alias(_LISTED), owner)
        .group_by(_GROUP, maintain_order=True)
        .agg(_LISTED)
    )
    joined = groups.join(listed, on=_GROUP, how="left", maintain_order="left")
    empty = pl.lit([], dtype=_WEIGHTED)
    return joined.select(pl.col(_LISTED).fill_null(empty)).to_series().cast(_WEIGHTED)


_WEIGHTED = pl.List(
    pl.Struct(
        {
            "support": pl.Float64,
            "predicted": pl.Float64,
            "tp": pl.Float64,
            "observed": pl.Float64,
            "miss": pl.Float64,
            "tn": pl.Float64,
        }
    )
)
#: :func:`_cut`'s columns (of its own frames: no user column can meet them)
_GROUP, _LISTED = "group", "classes"


def class_counts(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    labels: list[object] | None,
    weight: IntoColumn | None,
    restrict: bool,
    kappa_weights: str | None = None,
    negatives: bool = False,
) -> ClassCounts:
    """The per-class counts of ``y_true`` against ``y_pred`` in each group.

    Rows of weight 0 are absent.  ``restrict=False`` (precision, recall, ... as
    ``precision_recall_fscore_support``): rows whose labels lie outside
    ``labels`` still count as false negatives / positives of the listed classes
    (and in tn); ``restrict=True`` (mcc, kappa, ... as ``confusion_matrix``): they
    are dropped.  With ``kappa_weights``, each group's list also holds the observed
    disagreement ``sum_rows w |a - b|`` (or ``(a - b)^2``) in the field ``observed``.
    ``negatives``: the field ``tn`` holds each class's rows of neither label (always
    with weights: :func:`_weighted_bincounts`).
    """
    names = (name_of(y_true), name_of(y_pred))
    t, p, w, checks = label_inputs(y_true, y_pred, weight)
    coded, label_checks = _coded_rows(t, p, w, names, labels, restrict=restrict)
    k_given = None if labels is None else len(labels)
    if w is None:
        e = pl.element().struct
        a, b = e.field("a"), e.field("b")
        k = pl.lit(k_given) if k_given is not None else (pl.max_horizontal(a.max(), b.max()) + 1)
        k = k.fill_null(0)
        observed = pl.lit(0.0)
        if kappa_weights is not None:
            observed = (formulas.kappa_weight(kappa_weights, a, b) * e.field("w")).sum()
        # the group's rows (in ``tn`` until the counts are there to subtract)
        rows = [a.len().alias("tn")] if negatives else []
        counts = pl.struct(
            _bincount(a, k).alias("support"),
            _bincount(b, k).alias("predicted"),
            _bincount(a.filter(a == b), k).alias("tp"),
            observed.alias("observed"),
            *rows,
        )
        classes = coded.list.eval(counts).first()
        if negatives:  # tn = rows - support - predicted + tp, exact integers
            f = pl.element().struct
            tn = f.field("tn") - f.field("support") - f.field("predicted") + f.field("tp")
            classes = classes.list.eval(f.with_fields(tn.alias("tn")))
    else:
        # once over all the groups' lists (element-wise: no Python call per group); a
        # function, not a functools.partial, which polars 2.1 called twice per batch
        def sums(s: pl.Series) -> pl.Series:
            return _weighted_bincounts(s, k_given, kappa_weights)

        classes = coded.map_batches(sums, return_dtype=_WEIGHTED, is_elementwise=True)
    return ClassCounts(classes, coded, w is None, t, [*checks, *label_checks])


# ------------------------------------------------------------------------ averages
def score(  # noqa: PLR0917 - the counts, then the options, as every formula
    metric: str,
    tp: pl.Expr,
    support: pl.Expr,
    predicted: pl.Expr,
    tn: pl.Expr,
    beta: float,
    zd: float,
) -> pl.Expr:
    """Per-class score ``metric`` (of ``formulas.SCORES``) of ``tp``, ``support``,
    ``predicted`` and ``tn`` (vectors or sums)."""
    return formulas.SCORES[metric].value(tp, support, predicted, tn, beta, zd)


def averaged_score(
    metric: str,
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    average: str,
    labels: object,
    weight: IntoColumn | None,
    beta: float,
    zero_division: float,
) -> pl.Expr:
    """``metric`` (of ``formulas.SCORES``) averaged over the classes:
    micro (the score of the summed counts), macro or weighted; named
    ``{metric}_{average}`` (``f1_macro``, ``f0.5_weighted``)."""
    counts = class_counts(
        y_true,
        y_pred,
        labels=check_labels(labels),
        weight=weight,
        restrict=False,
        negatives=formulas.SCORES[metric].reads_tn,
    )

    def value(support: pl.Expr, predicted: pl.Expr, tp: pl.Expr, tn: pl.Expr) -> pl.Expr:
        if average == "micro":
            sums = (tp.sum(), support.sum(), predicted.sum(), tn.sum())
            return score(metric, *sums, beta, zero_division)
        per_class = score(metric, tp, support, predicted, tn, beta, zero_division)
        macro, weighted = formulas.class_averages(
            per_class, support, skip_nan=math.isnan(zero_division), integer=counts.exact
        )
        return macro if average == "macro" else weighted

    return _finish(counts.reduce(value), counts, f"{score_column(metric, beta)}_{average}")


def label_score(  # noqa: PLR0917 - the metric, the columns, then the options
    metric: str,
    y_true: IntoColumn,
    y_pred: IntoColumn,
    average: str,
    pos_label: object,
    labels: object,
    weight: IntoColumn | None,
    zero_division: float,
    beta: float = 1.0,
) -> pl.Expr:
    """A per-class score (of ``formulas.SCORES``): binary (``pos_label``) or averaged
    (:func:`averaged_score`), the expressions of :mod:`pl_metrics.expr`."""
    (zd,) = checked("expressions", zero_division=zero_division)
    if check_average(average, labels) != "binary":
        return averaged_score(
            metric,
            y_true,
            y_pred,
            average=average,
            labels=labels,
            weight=weight,
            beta=beta,
            zero_division=zd,
        )
    tp, fp, fn, tn, guarded = binary_counts(y_true, y_pred, pos_label, weight)
    value = score(metric, tp, tp + fn, tp + fp, tn, beta, zd) + guarded
    return value.alias(score_column(metric, beta))


# ---------------------------------------------------------------- summary metrics
@dataclass(frozen=True)
class _Sums:
    """A group's sums over classes (``_classification.summary``'s)."""

    n: pl.Expr
    correct: pl.Expr
    tp: pl.Expr  # sum of support x predicted
    pp: pl.Expr
    tt: pl.Expr
    actual_classes: pl.Expr
    predicted_classes: pl.Expr
    both_classes: pl.Expr


def _scaled(
    support: pl.Expr, predicted: pl.Expr, tp: pl.Expr, exact: bool
) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """support, predicted, tp and the scale: weighted counts divided by the group's
    largest class count, so that products of sums cannot overflow (as the frame's
    summary); integer counts as they are (their products are taken in Int128)."""
    if exact:
        return support, predicted, tp, pl.lit(1.0)
    largest = pl.max_horizontal(support.max(), predicted.max())
    scale = pl.when(largest > 0).then(largest).otherwise(1.0)
    return support / scale, predicted / scale, tp / scale, scale


def _sums(t: pl.Expr, p: pl.Expr, c: pl.Expr, exact: bool) -> _Sums:
    def product(a: pl.Expr, b: pl.Expr) -> pl.Expr:
        if exact:
            return (a.cast(pl.Int128) * b.cast(pl.Int128)).sum()
        return (a * b).sum()

    cast = pl.Int128 if exact else pl.Float64
    return _Sums(
        n=t.sum().cast(cast),
        correct=c.sum().cast(cast),
        tp=product(t, p),
        pp=product(p, p),
        tt=product(t, t),
        actual_classes=(t > 0).sum(),
        predicted_classes=(p > 0).sum(),
        both_classes=((t > 0) & (p > 0)).sum(),
    )


def _finish(value: pl.Expr, counts: ClassCounts, name: str) -> pl.Expr:
    return nonempty(value + guard(counts.checks), counts.rows).alias(name)


def _summary_counts(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    labels: object,
    weight: IntoColumn | None,
    kappa_weights: str | None = None,
) -> ClassCounts:
    return class_counts(
        y_true,
        y_pred,
        labels=check_labels(labels),
        weight=weight,
        restrict=True,
        kappa_weights=kappa_weights,
    )


def mcc_expr(
    y_true: IntoColumn, y_pred: IntoColumn, *, labels: object, weight: IntoColumn | None
) -> pl.Expr:
    """Matthews correlation of the group's confusion matrix (``summary``'s ``mcc``)."""
    counts = _summary_counts(y_true, y_pred, labels, weight)

    def value(support: pl.Expr, predicted: pl.Expr, tp: pl.Expr, _tn: pl.Expr) -> pl.Expr:
        t, p, c, scale = _scaled(support, predicted, tp, counts.exact)
        s = _sums(t, p, c, counts.exact)
        # the degenerate cases are found by counting classes (as the frame's summary)
        if counts.exact:  # differences of Int128 sums, exact
            cov_tp = (s.correct * s.n - s.tp).cast(pl.Float64)
            pp = (s.n * s.n - s.pp).cast(pl.Float64)
            tt = (s.n * s.n - s.tt).cast(pl.Float64)
        else:  # weights: sums without the differences' cancellation, as the frame's
            miss = pl.element().struct.field("miss") / scale
            # each against its own sum (the two sums of scaled weights may differ in
            # the last bit: p's classes 0.6000000000000001 twice against t's 1.2)
            others = [
                covariances.others(x, x.sum(), covariances.dominant(x, x.sum())) for x in (t, p)
            ]
            cov_tp, pp, tt = covariances.weighted_mcc_covariances(t, p, c, miss, *others)
        cov_pp = pl.when(s.predicted_classes <= 1).then(0.0).otherwise(pp)
        cov_tt = pl.when(s.actual_classes <= 1).then(0.0).otherwise(tt)
        mcc: pl.Expr = formulas.mcc_from_covariances(cov_tp, cov_pp, cov_tt, s.n)
        return mcc

    return _finish(counts.reduce(value), counts, "mcc")


def balanced_accuracy_expr(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    labels: object,
    weight: IntoColumn | None,
    adjusted: bool = False,
) -> pl.Expr:
    """The mean recall of the classes with actual rows (``summary``'s); ``adjusted``:
    for chance, over those classes (``formulas.chance_adjusted``)."""
    counts = _summary_counts(y_true, y_pred, labels, weight)

    def value(support: pl.Expr, predicted: pl.Expr, tp: pl.Expr, _tn: pl.Expr) -> pl.Expr:
        # the macro mean of recall over the classes with actual rows (exact sums)
        recall = pl.when(support > 0).then(tp.cast(pl.Float64) / support)
        balanced, _ = formulas.class_averages(recall, support, skip_nan=False, integer=counts.exact)
        return formulas.chance_adjusted(balanced, recall.count()) if adjusted else balanced

    return _finish(counts.reduce(value), counts, "balanced_accuracy")


def cohen_kappa_expr(
    y_true: IntoColumn,
    y_pred: IntoColumn,
    *,
    weights: str | None,
    labels: object,
    weight: IntoColumn | None,
    replace_undefined_by: float = math.nan,
) -> pl.Expr:
    """Cohen's kappa, or the weighted kappa over the label order (``summary``'s)."""
    # float (weighted) counts: the unweighted kappa by its disagreement weights, as
    # the frame's summary (no cancellation); integer counts: exact covariances
    kind = formulas.DISAGREEMENT if weights is None and weight is not None else weights
    counts = _summary_counts(y_true, y_pred, labels, weight, kind)

    def value(support: pl.Expr, predicted: pl.Expr, tp: pl.Expr, _tn: pl.Expr) -> pl.Expr:
        s = _sums(*_scaled(support, predicted, tp, counts.exact)[:3], counts.exact)
        n = s.n.cast(pl.Float64)
        if kind is None:
            cov_tp = (s.correct * s.n - s.tp).cast(pl.Float64)
            kappa = formulas.kappa_from_covariances(cov_tp, (s.n * s.n - s.tp).cast(pl.Float64))
        else:
            # expected: every pair of classes (K^2 terms, all >= 0, as the frame's summary)
            t, p, _, _ = _scaled(support, predicted, tp, counts.exact)
            k = support.len()
            pair = pl.int_range(k * k, dtype=pl.Int64)
            i, j = pair // k, pair % k
            terms = formulas.kappa_weight(kind, i, j) * t.gather(i).cast(pl.Float64)
            expected = (terms * p.gather(j).cast(pl.Float64)).sum()
            # observed: each row's disagreement (the frame sums it over the cells),
            # already divided by the scale for weights (1 for integer counts)
            observed = pl.element().struct.field("observed").first()
            kappa = formulas.weighted_kappa(n * observed, expected)
        single = (s.actual_classes == 1) & (s.predicted_classes == 1) & (s.both_classes == 1)
        return formulas.kappa_or_undefined(kappa, n, single, replace_undefined_by)

    return _finish(counts.reduce(value), counts, "cohen_kappa")


def hamming_loss_expr(
    y_true: IntoColumn, y_pred: IntoColumn, *, weight: IntoColumn | None
) -> pl.Expr:
    """The (weighted) share of rows whose prediction is not the label."""
    t, p, w, checks = label_inputs(y_true, y_pred, weight)
    wrong = ~equal_labels(t, p)
    total = wrong.len().cast(pl.Float64) if w is None else w.sum()  # the rows given
    value = formulas.POLARS.ratio(weighted_sum(wrong, w), total, _NAN) + guard(checks)
    return nonempty(value, t).alias("hamming_loss")
