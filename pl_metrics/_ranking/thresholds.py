"""Threshold analysis from the per-score counts: sweep, best threshold, DET curve.

A row is predicted positive when its score is ``>= threshold``.  At each
distinct score (descending), the cumulative positives / negatives of the curve
are the ``tp`` / ``fp`` of that threshold; ``fn = P - tp`` and ``tn = N - fp``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import polars as pl

from pl_metrics._core import formulas, scores
from pl_metrics._core.names import INTERNAL, ORD, f_name
from pl_metrics._core.scores import SCORE, ScoreCounts, per_segment
from pl_metrics._ranking.from_counts import CURVE, curve_points, descending_in_segments, with_start

_PC = f"{INTERNAL}pc"
_RANK = f"{INTERNAL}rank"
_FPR, _FNR = f"{INTERNAL}fpr", f"{INTERNAL}fnr"
_SHARES = tuple(f"{INTERNAL}share_{c}" for c in ("tp", "fp", "fn", "tn"))
#: The columns of a threshold sweep after ``*by, threshold``.
SWEEP_COUNTS = ("tp", "fp", "fn", "tn")


def _points(counts: ScoreCounts, then: Callable[[pl.LazyFrame], pl.LazyFrame]) -> pl.LazyFrame:
    """``then`` of the curve points that the tables read
    (:data:`~pl_metrics._ranking.from_counts.CURVE`; see
    :func:`~pl_metrics._ranking.from_counts.curve_points`)."""
    return curve_points(counts, [*counts.keys, *CURVE], then)


def _confusion() -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """tp, fp, fn, tn at each curve point (``score >= threshold`` is positive)."""
    tp, fp = pl.col("tps"), pl.col("fps")
    return tp, fp, pl.col("P") - tp, pl.col("N") - fp


def _threshold_columns(counts: ScoreCounts) -> list[pl.Expr]:
    """``threshold, tp, fp, fn, tn``: the first columns of the threshold tables.

    The curve sums counts as Float64 (exact below 2**53); row counts are cast back
    to Int64 here, weights stay Float64."""
    dtype = counts.count_type()
    # whole row counts below 2**53: no value to check, the cast without checks (2.6x)
    wrap = dtype.is_integer()
    cells = (
        c.cast(dtype, wrap_numerical=wrap).alias(n)
        for c, n in zip(_confusion(), SWEEP_COUNTS, strict=True)
    )
    return [pl.col(SCORE).alias("threshold"), *cells]


def sweep(counts: ScoreCounts, *, beta: float, zero_division: float) -> pl.LazyFrame:
    """``*by, threshold, tp, fp, fn, tn, precision, recall, f, specificity, accuracy, mcc``.

    One row per distinct score, thresholds descending.  Equal to thresholding the
    scores (``>=``) and computing the binary metrics of scikit-learn.
    """
    keys = counts.keys
    tp, fp, fn, tn = _confusion()
    # MCC's shares as columns first (one expression would repeat the total in each),
    # of the segment's rows P + N (every threshold's tp + fp + fn + tn): 5 operations
    # a point, not 20 (MCC was half of the sweep's cost)
    shares = [pl.col(name) for name in _SHARES]
    total = pl.col("P") + pl.col("N")
    support, predicted = tp + fn, tp + fp
    columns = _threshold_columns(counts)

    def table(curve: pl.LazyFrame) -> pl.LazyFrame:
        return curve.with_columns(
            s.alias(name)
            for s, name in zip(
                formulas.mcc_shares(tp, fp, fn, tn, total=total), _SHARES, strict=True
            )
        ).select(
            *keys,
            *columns,
            formulas.precision(tp, predicted, zero_division).alias("precision"),
            formulas.recall(tp, support, zero_division).alias("recall"),
            formulas.f_beta(tp, support, predicted, beta, zero_division).alias(f_name(beta)),
            formulas.specificity(tn, fp, zero_division).alias("specificity"),
            formulas.accuracy(tp + tn, total, zero_division).alias("accuracy"),
            formulas.mcc_of_shares(shares[0], shares[1], shares[2], shares[3]).alias("mcc"),
        )

    return counts.finish(
        _points(counts, table)
    )  # in the curve's order: by segment, thresholds descending


def best(
    table: pl.LazyFrame, keys: list[str], *, metric: str, where: pl.Expr | None
) -> pl.LazyFrame:
    """The row of ``table`` (a sweep) with the largest ``metric`` per segment.

    Rows failing ``where`` are left out first; among equal values the highest
    threshold wins (the first row: thresholds are descending).  A segment with
    no row passing ``where`` gets no row.
    """
    if where is not None:
        table = table.filter(where)
    value = pl.col(metric).fill_nan(None)
    # one filter of the sweep (an undefined value is never the maximum), then the
    # first of the few tied rows: no row position over the whole sweep
    if not keys:
        return table.filter(value == value.max()).head(1)
    top = table.filter(value == value.max().over(keys))
    return top.group_by(keys, maintain_order=True).head(1).sort(keys, nulls_last=True)


def det_curve(counts: ScoreCounts, *, drop_intermediate: bool) -> pl.LazyFrame:
    """``*by, threshold, fpr, fnr``: the points of ``sklearn.metrics.det_curve``.

    Thresholds ascending; the curve starts at the last threshold with the
    smallest false positive count and ends at the first with every positive
    found.  A segment with a single class has no DET curve (no rows).
    """
    keys = counts.keys

    def table(points: pl.LazyFrame) -> pl.LazyFrame:
        # sklearn 1.9 starts the curve at (threshold +inf, tps 0, fps 0) too
        curve = with_start(points, keys).filter((pl.col("P") > 0) & (pl.col("N") > 0))
        tps, over = pl.col("tps"), per_segment(keys)
        if drop_intermediate:
            # sklearn: keep the ends and the points where tps changes on either side
            changes = (tps != over(tps.shift(1))) | (over(tps.shift(-1)) != tps)
            first = pl.col(ORD) == over(pl.col(ORD).min())
            last = pl.col(ORD) == over(pl.col(ORD).max())
            curve = curve.filter(first | last | changes.fill_null(True))
        fps = pl.col("fps")
        first = over(pl.col(ORD).filter(fps == fps.first()).max())
        last_needed = over(pl.col(ORD).filter(tps == tps.last()).min())
        curve = curve.filter((pl.col(ORD) >= first) & (pl.col(ORD) <= last_needed))
        return descending_in_segments(curve, keys).select(
            *keys,
            pl.col(SCORE).alias("threshold"),
            (fps / pl.col("N")).alias("fpr"),
            ((pl.col("P") - tps) / pl.col("P")).alias("fnr"),
        )

    return counts.finish(_points(counts, table))


def expected_cost(counts: ScoreCounts, *, matrix: list[list[float]], best: bool) -> pl.LazyFrame:
    """``*by, threshold, tp, fp, fn, tn, cost``: the expected cost per row of predicting
    positive when ``score >= threshold``, at +inf (every row negative) and at every
    distinct score, thresholds descending; ``best``: the row of least cost per
    segment (the highest threshold among ties).

    ``matrix[actual][predicted]`` (negative first): cost = ``formulas.total_cost /
    (P + N)``.  With counts (no weights) the costs are compared as exact integers
    (each cost as the decimal it was written as, times a common denominator), so
    thresholds of equal cost tie exactly (0.07 is not 0.06999999999999999).
    """
    keys = counts.keys
    tp, fp, fn, tn = _confusion()
    rows = pl.col("P") + pl.col("N")
    cost = formulas.total_cost(tp, fp, fn, tn, matrix) / rows
    fractions = [[Fraction(repr(c)) for c in row] for row in matrix]
    scale = math.lcm(*(f.denominator for row in fractions for f in row))
    whole = [[int(f * scale) for f in row] for row in fractions]
    # exact while every integer cost x count stays far inside Int128 (counts < 2^63)
    fits = max(abs(c) for row in whole for c in row) < 2**60
    rank = cost
    if fits and counts.count_type() == pl.Int64:
        exact = [x.cast(pl.Int128) for x in (tp, fp, fn, tn)]
        rank = formulas.total_cost(*exact, [[pl.lit(c, pl.Int128) for c in row] for row in whole])
    columns = _threshold_columns(counts)

    def table(points: pl.LazyFrame) -> pl.LazyFrame:
        # in with_start's order: by segment, thresholds descending
        table = with_start(points, keys).select(
            *keys, *columns, cost.alias("cost"), rank.alias(_RANK), ORD
        )
        if best:
            over = per_segment(keys)
            least = pl.col(_RANK) == over(pl.col(_RANK).min())
            table = table.filter(least).filter(pl.col(ORD) == over(pl.col(ORD).min()))
        return table.drop(ORD, _RANK)

    return counts.finish(_points(counts, table))


def cost_curve(counts: ScoreCounts, *, points: int) -> pl.LazyFrame:
    """``*by, probability_cost, normalized_cost``: Drummond and Holte's cost curve,
    the lower envelope of the lines ``(1 - tpr) pc + fpr (1 - pc)`` of every ROC
    point (the trivial classifiers at thresholds +inf and the lowest score
    included), evaluated at ``points`` equally spaced probability costs ``pc`` in
    [0, 1].  A segment without positives or negatives has no rows.
    """
    keys = counts.keys
    tps, fps = pl.col("tps"), pl.col("fps")
    # A point whose fpr and fnr are both no lower than another point's is never below
    # it (a line is monotone in both, and so is each rounding): of a run of equal fps
    # only the last point (most tps), of a run of equal tps only the first (least fps)
    # can be the minimum.  The same minima from about a fifth of the points of
    # continuous scores.
    lowest = (scores.segment_edge(keys, -1) | fps.ne_missing(fps.shift(-1))) & (
        scores.segment_edge(keys, 1) | tps.ne_missing(tps.shift(1))
    )
    fpr, fnr = fps / pl.col("N"), 1 - tps / pl.col("P")
    grid = [i / (points - 1) for i in range(points)] if points > 1 else [0.5]

    def table(curve: pl.LazyFrame) -> pl.LazyFrame:
        curve = with_start(curve.filter(lowest), keys, ordered=False).filter(
            (pl.col("P") > 0) & (pl.col("N") > 0)
        )
        curve = curve.select(*keys, fpr.alias(_FPR), fnr.alias(_FNR))
        fpr_, fnr_ = pl.col(_FPR), pl.col(_FNR)
        lines = [
            (fnr_ * pc + fpr_ * (1 - pc)).min().alias(f"{_PC}{i}") for i, pc in enumerate(grid)
        ]
        return scores.aggregate(curve, keys, lines)

    envelope = _points(counts, table)
    long = envelope.unpivot(index=keys, variable_name=_PC, value_name="normalized_cost")
    position = pl.col(_PC).str.strip_prefix(_PC).cast(pl.Int64)
    result = long.with_columns(position.alias(ORD)).with_columns(
        pl.col(ORD)
        .replace_strict(list(range(len(grid))), grid, return_dtype=pl.Float64)
        .alias("probability_cost")
    )
    result = result.sort([*keys, ORD], nulls_last=True).select(
        *keys, "probability_cost", "normalized_cost"
    )
    return counts.finish(result)
