"""Ranking metrics from per-score counts: ROC AUC, average precision, ROC and PR curves.

The counts come from :mod:`pl_metrics._core.scores`.  Sorting them by descending
score and taking cumulative sums per segment gives the curve (``tps``, ``fps``
at every distinct threshold); AUC and AP are sums over it
(:mod:`pl_metrics._core.formulas`: the trapezoids of DeLong's placements, and
scikit-learn's step-wise AP).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from pl_metrics._core import formulas
from pl_metrics._core.names import ALL, ORD
from pl_metrics._core.scores import (
    CLASS,
    N_ROWS,
    NEG,
    OTHER,
    POS,
    SCORE,
    TRUE,
    ScoreCounts,
    aggregate,
    per_segment,
)
from pl_metrics._ranking import sorted_curve


def _sorted(column: str) -> pl.Expr:
    return pl.col(column).sort_by(SCORE, descending=True)


def _auc_exprs(integer: bool = False) -> list[pl.Expr]:
    """Per-group aggregations: P, N and the ROC AUC (null with a single class).

    ``integer`` (counts of rows): the pairs counted exactly (:func:`_integer_auc`), the
    frame method's number on continuous scores to the bit; else (weights) the
    running sums of each class's shares."""
    if integer:
        return _integer_auc()
    pos, neg = _sorted(POS).cast(pl.Float64), _sorted(NEG).cast(pl.Float64)
    # exact for counts; with float weights in whatever order polars sums (it drops
    # a sort before an order-independent aggregation such as sum)
    p_total, n_total = pos.sum(), neg.sum()
    # U over its value were every positive above, both running sums in score order
    # of the same terms but for tps: equal, exactly 1.0, for a perfect ranking; the
    # counts as shares of their class first, so that the products of huge or tiny
    # weights neither overflow nor underflow
    pos, neg = pos / p_total, neg / n_total
    tps = pos.cum_sum()
    u = formulas.roc_auc_terms(pos, neg, tps).cum_sum().last()
    full = formulas.roc_auc_terms(0.0, neg, tps.last()).cum_sum().last()
    auc = pl.when((p_total > 0) & (n_total > 0)).then(u / full)
    return [p_total.alias("P"), n_total.alias("N"), auc.alias("roc_auc")]


def _integer_auc() -> list[pl.Expr]:
    """:func:`_auc_exprs` of integer counts: the (positive, negative) pairs ordered
    right and those tied, summed as integers (Int128: a merged state's P x N may pass
    Int64), divided once, as the sorted path divides them
    (``formulas.placement(beyond, tied, N) / P``).  The shares' running sums in
    Float64 were up to 5.9e-11 off the frame method's number on continuous scores
    (a merged state's ``from_score_counts``, issue 49)."""
    pos, neg = _sorted(POS).cast(pl.Int128), _sorted(NEG).cast(pl.Int128)
    above = pos.cum_sum() - pos  # the positives above each score
    right = (neg * above).sum()  # pairs: the positive scored higher
    auc = pairs_auc(right, (neg * pos).sum(), pos.sum(), neg.sum())
    p_total, n_total = pos.sum().cast(pl.Float64), neg.sum().cast(pl.Float64)
    return [p_total.alias("P"), n_total.alias("N"), auc.alias("roc_auc")]


def pairs_auc(right: pl.Expr, tied: pl.Expr, p_total: pl.Expr, n_total: pl.Expr) -> pl.Expr:
    """The ROC AUC of Int128 counts: ``right`` (positive, negative) pairs ordered right,
    ``tied`` pairs tied, of ``p_total`` positives and ``n_total`` negatives; null with
    a single class.  Also the engines' exact AUC, whose ``right`` is summed over
    partitions of score ranges (``_engines.ranked``)."""
    beyond, tied = right.cast(pl.Float64), tied.cast(pl.Float64)
    p_float, n_float = p_total.cast(pl.Float64), n_total.cast(pl.Float64)
    auc = formulas.placement(beyond, tied, n_float) / p_float
    # every pair right: exactly 1.0 (beyond 2**53 pairs the two divisions of the
    # rounded count could give 0.9999999999999999: 220 of 2,000 random P x N there)
    auc = pl.when(right == p_total * n_total).then(1.0).otherwise(auc)
    return pl.when((p_float > 0) & (n_float > 0)).then(auc)


def _partial_auc_exprs(max_fpr: float) -> list[pl.Expr]:
    """Per-group aggregations: P, N and McClish's standardised partial AUC up to
    ``max_fpr`` (scikit-learn's ``roc_auc_score(max_fpr=...)``; null with a single class)."""
    pos, neg = _sorted(POS).cast(pl.Float64), _sorted(NEG).cast(pl.Float64)
    tps, fps = pos.cum_sum(), neg.cum_sum()
    # the totals are the last cumulative sums (as curve_points): fpr reaches exactly 1
    p_total, n_total = tps.last(), fps.last()
    x1, y1 = fps / n_total, tps / p_total
    x0, y0 = x1.shift(1, fill_value=0.0), y1.shift(1, fill_value=0.0)
    area = formulas.partial_roc_auc_terms(x0, y0, x1, y1, max_fpr).sum()
    auc = pl.when((p_total > 0) & (n_total > 0)).then(formulas.mcclish(area, max_fpr))
    return [p_total.alias("P"), n_total.alias("N"), auc.alias("roc_auc")]


def auc_exprs(max_fpr: float | None = None, *, integer: bool = False) -> list[pl.Expr]:
    """Per-group aggregations of the per-score counts: P, N and the ROC AUC (with
    ``max_fpr``: the standardised partial AUC; ``integer``: the counts are of rows,
    :func:`_auc_exprs`)."""
    return _auc_exprs(integer) if max_fpr is None else _partial_auc_exprs(max_fpr)


def integer_counts(frame: pl.LazyFrame) -> bool:
    """Whether the per-score counts of ``frame`` count rows (no ``weight``)."""
    return frame.collect_schema()[POS].is_integer()


def roc_auc(
    counts: ScoreCounts, *, error_bound: bool = False, max_fpr: float | None = None
) -> pl.LazyFrame:
    """``*by, roc_auc`` for a binary problem.

    With ``error_bound`` (binned scores) also ``roc_auc_error_bound``: the pairs
    of a positive and a negative in one bin count one half, their true share is
    between 0 and 1, so ``|binned - exact| <= sum_b pos_b neg_b / (2 P N)``.
    With ``max_fpr``: McClish's standardised partial AUC (:func:`auc_exprs`).
    """
    exprs = auc_exprs(max_fpr, integer=integer_counts(counts.frame))
    columns = [*counts.keys, "roc_auc"]
    if error_bound:
        pos, neg = pl.col(POS).cast(pl.Float64), pl.col(NEG).cast(pl.Float64)
        bound = ((pos / pos.sum()) * (neg / neg.sum())).sum() / 2
        exprs.append(
            pl.when((pos.sum() > 0) & (neg.sum() > 0)).then(bound).alias("roc_auc_error_bound")
        )
        columns.append("roc_auc_error_bound")
    result = counts.frame.group_by(counts.keys).agg(exprs).sort(counts.keys, nulls_last=True)
    return counts.finish(result.select(columns))


def one_vs_rest(counts: ScoreCounts) -> pl.LazyFrame:
    """``*keys, CLASS, score, pos, neg`` from the multiclass state."""
    n, is_class = pl.col(N_ROWS), pl.col(TRUE) == pl.col(CLASS)
    return counts.frame.group_by(*counts.keys, CLASS, SCORE).agg(
        n.filter(is_class).sum().alias(POS), n.filter(~is_class).sum().alias(NEG)
    )


def _one_vs_one(counts: ScoreCounts) -> pl.LazyFrame:
    """``*keys, CLASS, OTHER, score, pos, neg``: CLASS's score on the rows of CLASS
    (positives) and OTHER (negatives), for every ordered pair of classes present."""
    keys, frame = counts.keys, counts.frame
    own = frame.filter(pl.col(TRUE) == pl.col(CLASS))
    present = own.select(*keys, CLASS).unique()
    pairs = present.join(present.rename({CLASS: OTHER}), on=keys, nulls_equal=True).filter(
        pl.col(CLASS) != pl.col(OTHER)
    )
    zero = pl.lit(0).cast(frame.collect_schema()[N_ROWS])
    positives = pairs.join(own, on=[*keys, CLASS], nulls_equal=True).select(
        *keys, CLASS, OTHER, SCORE, pl.col(N_ROWS).alias(POS), zero.alias(NEG)
    )
    # rows of OTHER scored by CLASS's column (the join keeps TRUE, equal to OTHER)
    negatives = frame.join(
        pairs, left_on=[*keys, CLASS, TRUE], right_on=[*keys, CLASS, OTHER], nulls_equal=True
    ).select(
        *keys, CLASS, pl.col(TRUE).alias(OTHER), SCORE, zero.alias(POS), pl.col(N_ROWS).alias(NEG)
    )
    return (
        pl.concat([positives, negatives])
        .group_by(*keys, CLASS, OTHER, SCORE)
        .agg(pl.col(POS).sum(), pl.col(NEG).sum())
    )


def roc_auc_multiclass(counts: ScoreCounts, *, multi_class: str, average: str) -> pl.LazyFrame:
    """``*by, roc_auc``: macro or prevalence-weighted mean of the one-vs-rest AUCs, or of
    the one-vs-one pair AUCs (Hand & Till: the mean of AUC(a|b) and AUC(b|a)).

    Classes absent from a segment's ``y_true`` are left out of its mean
    (scikit-learn refuses such input for one-vs-rest and skips them for one-vs-one).
    """
    keys = counts.keys
    auc = pl.col("roc_auc")
    if multi_class == "ovr":
        per_class = one_vs_rest(counts)
        per_class = per_class.group_by(*keys, CLASS).agg(_auc_exprs(integer_counts(per_class)))
        weight = pl.col("P")
    else:
        directed = _one_vs_one(counts)
        directed = directed.group_by(*keys, CLASS, OTHER).agg(_auc_exprs(integer_counts(directed)))
        lo = pl.min_horizontal(CLASS, OTHER).alias("lo")
        hi = pl.max_horizontal(CLASS, OTHER).alias("hi")
        # pair prevalence: the rows of a or b (P + N of either direction)
        per_class = directed.group_by(*keys, lo, hi).agg(
            auc.mean(), (pl.col("P") + pl.col("N")).first().alias("P")
        )
        weight = pl.col("P")
    return counts.finish(class_mean(per_class, keys, "roc_auc", weight, average))


def class_mean(
    per_class: pl.LazyFrame, keys: list[str], metric: str, weight: pl.Expr, average: str
) -> pl.LazyFrame:
    """``*keys, metric``: the macro (``average="macro"``) or ``weight``-weighted mean
    of the per-class (or per-pair) values of ``metric`` in each segment; null values
    (a class absent from the segment) are left out, null when every one is."""
    value = pl.col(metric)
    if average == "macro":
        mean = value.mean()
    else:
        w = pl.when(value.is_not_null()).then(weight)
        mean = (value * w).sum() / w.sum()
    result = per_class.group_by(keys).agg(
        pl.when(value.is_not_null().any()).then(mean).alias(metric)
    )
    return result.sort(keys, nulls_last=True)


def average_precision(counts: ScoreCounts) -> pl.LazyFrame:
    """``*by, average_precision``: sum over thresholds of delta-recall x precision.

    scikit-learn's values for one class: 0.0 without positives, 1.0 without negatives.
    """
    _, ap = ap_exprs(integer_counts(counts.frame))
    result = (
        counts.frame.group_by(counts.keys)
        .agg(ap.alias("average_precision"))
        .sort(counts.keys, nulls_last=True)
    )
    return counts.finish(result)


def ap_exprs(integer: bool = False) -> tuple[pl.Expr, pl.Expr]:
    """Per-group aggregations of the per-score counts: P, and the AP.

    The one rule for a group without positives (a segment of the binary form, a class
    absent from a segment, a label true in no row): its AP is 0.0, scikit-learn's value
    (``precision_recall_curve`` sets the recall to 1 at every threshold, so the sum
    is 0; it warns "No positive class found in y_true").  Every form averages it as
    any other class's AP.

    ``integer`` (counts of rows): the terms in rows, each positive's precision, summed
    by polars' pairwise sum and divided once by P, as the sorted path sums its
    per-positive terms (numpy's pairwise sum): within a last bit of it on continuous
    scores, where the shares' running sum of a merged state was 2.4e-11 off at 2M
    rows (issue 49).  A perfect ranking's terms are the counts themselves, whole
    numbers summed exactly in any order: its AP is exactly 1.0.
    """
    pos, neg = _sorted(POS).cast(pl.Float64), _sorted(NEG).cast(pl.Float64)
    tps, fps = pos.cum_sum(), neg.cum_sum()
    p_total = tps.last()  # as curve_points: recall reaches exactly 1
    if integer:
        terms = formulas.average_precision_terms(pos, tps, fps).sum()
        ap = formulas.average_precision_of_sum(terms, p_total)
        return p_total, pl.when(p_total > 0).then(ap).otherwise(0.0)
    # weights: the terms summed as the positives are, running sums in score order:
    # where every precision is 1 the terms are the positives and the two sums the
    # same float, so the AP is exactly 1.0 (a .sum() may add the same values in
    # another order than another .sum() or a cum_sum: ten weights of 0.1 gave 1.0
    # and 0.9999999999999999); the positives as shares of P first, so that pos x
    # precision does not underflow (weights of 1e-300 gave 0.0)
    share = pos / p_total
    terms = formulas.average_precision_terms(share, tps, fps).cum_sum().last()
    ap = formulas.average_precision_of_sum(terms, share.cum_sum().last())
    return p_total, pl.when(p_total > 0).then(ap).otherwise(0.0)


def by_score_descending(counts: ScoreCounts) -> pl.LazyFrame:
    """The per-score counts sorted by segment, then score from the highest."""
    return in_segments(counts.frame, counts.keys, SCORE, descending=True)


#: The curve's columns that the curves and threshold tables read (not pos / neg).
CURVE = (SCORE, "tps", "fps", "P", "N", ORD)


def curve_points(
    counts: ScoreCounts,
    columns: Sequence[str] | None = None,
    then: Callable[[pl.LazyFrame], pl.LazyFrame] | None = None,
) -> pl.LazyFrame:
    """``*keys, score, pos, neg, tps, fps, P, N, ORD`` with ORD 0 at the highest score;
    with :attr:`ScoreCounts.rows`, of continuous scores by sorting the rows
    (:mod:`pl_metrics._ranking.sorted_curve`, the same points).  ``columns``: only these
    (keys, P and N among them), so that the sorting path computes no other.

    ``then``: the table a method builds from the points, applied to them (the
    sorting path applies it to its points in memory, inside its deferred step: the
    streaming engine runs what follows a deferred frame on one thread)."""
    counted = _counted_curve(counts)
    if counts.rows is not None:
        return sorted_curve.deferred(counts.rows, counted, columns, then)
    counted = counted if columns is None else counted.select(columns)
    return counted if then is None else then(counted)


def _counted_curve(counts: ScoreCounts) -> pl.LazyFrame:
    """:func:`curve_points` from the per-score counts."""
    keys = counts.keys
    over = per_segment(keys)
    return (
        by_score_descending(counts)
        .with_columns(
            over(pl.col(POS).cast(pl.Float64).cum_sum()).alias("tps"),
            over(pl.col(NEG).cast(pl.Float64).cum_sum()).alias("fps"),
            over(pl.int_range(pl.len())).alias(ORD),
        )
        .with_columns(
            # The totals are the last cumulative sums (scikit-learn's tps[-1]), not a
            # separate sum: P - tps is then exactly 0 at the lowest threshold, and no
            # float residue of weights summed in another order makes fn = 1e-14 (an
            # MCC of 1e-9 where scikit-learn has 0, a tpr of 0.9999999999999999).
            # A column, in a window even for one segment: polars divides by a
            # broadcast scalar as a product with its reciprocal (49 * (1 / 49) is
            # 0.9999999999999999), by a column exactly.
            pl.col("tps").last().over(keys).alias("P"),
            pl.col("fps").last().over(keys).alias("N"),
        )
    )


def in_segments(
    frame: pl.LazyFrame, keys: list[str], column: str, *, descending: bool = False
) -> pl.LazyFrame:
    """``frame`` sorted by segment, then ``column``: by ``column`` alone for one
    segment (the constant key; a sort by several columns encodes every row)."""
    if keys == [ALL]:
        return frame.sort(column, descending=descending, nulls_last=True)
    order = [False] * len(keys) + [descending]
    return frame.sort([*keys, column], descending=order, nulls_last=True)


def descending_in_segments(curve: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """A curve in :func:`curve_points`' order (by segment, ORD ascending) in the order of
    ORD descending: reversed for one segment, no sort."""
    if keys == [ALL]:
        return curve.reverse()
    return _segments_in_order(curve.reverse(), keys)


def _segments_in_order(frame: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """``frame``'s segments in the order of their keys (nulls last), each segment's rows
    in the order they had: a stable sort by the keys alone (a sort by the keys and a
    position encodes every row, 2x slower)."""
    return frame.sort(keys, maintain_order=True, nulls_last=True)


def _rate(num: str, den: str) -> pl.Expr:
    return pl.when(pl.col(den) > 0).then(pl.col(num) / pl.col(den)).otherwise(float("nan"))


def with_start(curve: pl.LazyFrame, keys: list[str], *, ordered: bool = True) -> pl.LazyFrame:
    """The curve with its (threshold +inf, tps 0, fps 0) point first (ORD -1), sorted
    (``ordered=False``: the start points after the curves, for a use that reads no
    order)."""
    start = aggregate(
        curve,
        keys,
        [
            pl.lit(float("inf")).alias(SCORE),
            pl.lit(0.0).alias("tps"),
            pl.lit(0.0).alias("fps"),
            pl.col("P").first(),
            pl.col("N").first(),
            pl.lit(-1, pl.Int64).alias(ORD),
        ],
    )
    columns = [*keys, SCORE, "tps", "fps", "P", "N", ORD]
    both = pl.concat([start.select(columns), curve.select(columns).cast({ORD: pl.Int64})])
    if keys == [ALL] or not ordered:  # one segment: in ORD order already, after its start
        return both
    return _segments_in_order(both, keys)  # in ORD order in each segment, its start first


def roc_curve(counts: ScoreCounts, *, drop_intermediate: bool) -> pl.LazyFrame:
    """``*by, threshold, fpr, tpr``: sklearn's points, the first at threshold +inf."""
    keys = counts.keys

    def table(curve: pl.LazyFrame) -> pl.LazyFrame:
        if drop_intermediate:
            # sklearn: keep the ends and every point where the slope changes
            # (np.diff(fps, 2) or np.diff(tps, 2) non-zero), computed the same way.
            over = per_segment(keys)

            def bend(c: str) -> pl.Expr:
                col = pl.col(c)
                nxt, prv = over(col.shift(-1)), over(col.shift(1))
                return ((nxt - col) - (col - prv)) != 0

            last = pl.col(ORD) == over(pl.len()) - 1
            curve = curve.filter((pl.col(ORD) == 0) | last | bend("fps") | bend("tps"))
        return with_start(curve, keys).select(
            *keys,
            pl.col(SCORE).alias("threshold"),
            _rate("fps", "N").alias("fpr"),
            _rate("tps", "P").alias("tpr"),
        )

    result = curve_points(counts, [*keys, *CURVE], table)
    return counts.finish(result)


def pr_curve(counts: ScoreCounts, *, drop_intermediate: bool = False) -> pl.LazyFrame:
    """``*by, threshold, precision, recall``: sklearn's points, thresholds ascending,
    then the (precision 1, recall 0) point with a null threshold.

    ``drop_intermediate``: as scikit-learn, keep the first and last threshold
    and those where tps differs from the previous or the next threshold's (the
    ends of each vertical run of equal recall)."""
    keys = counts.keys

    def table(curve: pl.LazyFrame) -> pl.LazyFrame:
        if drop_intermediate:
            tps, over = pl.col("tps"), per_segment(keys)
            changes = (tps != over(tps.shift(1))) | (tps != over(tps.shift(-1)))
            ends = (pl.col(ORD) == 0) | (pl.col(ORD) == over(pl.len()) - 1)
            curve = curve.filter(ends | changes.fill_null(False))
        curve = curve.with_columns(
            pl.when(pl.col("tps") + pl.col("fps") != 0)
            .then(pl.col("tps") / (pl.col("tps") + pl.col("fps")))
            .otherwise(0.0)
            .alias("precision"),
            pl.when(pl.col("P") > 0)
            .then(pl.col("tps") / pl.col("P"))
            .otherwise(1.0)
            .alias("recall"),
        )
        end = curve.group_by(keys).agg(
            pl.lit(None, pl.Float64).alias(SCORE),
            pl.lit(1.0).alias("precision"),
            pl.lit(0.0).alias("recall"),
            pl.lit(-1, pl.Int64).alias(ORD),
        )
        columns = [*keys, SCORE, "precision", "recall", ORD]
        points = curve.select(columns).cast({ORD: pl.Int64})
        # each segment's curve reversed (ORD descending), then its end
        ordered = pl.concat([points.reverse(), end.select(columns)])
        if keys != [ALL]:
            ordered = _segments_in_order(ordered, keys)
        return ordered.select(*keys, pl.col(SCORE).alias("threshold"), "precision", "recall")

    result = curve_points(counts, [*keys, *CURVE], table)
    return counts.finish(result)
