"""Scoring-model tables from the per-score counts: the KS statistic and the gains table.

Both are sums over :class:`~pl_metrics._core.scores.ScoreCounts` (one row per
segment and distinct score), so they are exact on in-memory data, on LazyFrames
over Parquet and on merged states alike.

- **KS**: the largest distance between the positive and the negative score
  distributions, ``max |F_pos(x) - F_neg(x)|`` (``scipy.stats.ks_2samp``'s
  statistic; weighted distributions with ``weight``).  At the curve point of the
  threshold ``t`` (a row is positive when its score is ``>= t``),
  ``F_pos(x) - F_neg(x)`` just below ``t`` is ``fpr(t) - tpr(t)``, so the statistic
  is the largest ``|tpr - fpr|`` over the ROC points; ``threshold`` is the
  (highest) threshold reaching it.
- **Gains**: the rows sorted by score, highest first, cut into buckets of equal
  shares of rows (deciles by default) or at given cumulative shares.  Tied
  scores are one block that goes to the bucket in which its first row falls, so a
  block never straddles two buckets; a bucket can then be larger than its share
  or empty (an empty bucket has no row in the table).
"""

from __future__ import annotations

import dataclasses

import polars as pl

from pl_metrics._core import formulas
from pl_metrics._core.names import INTERNAL, POS, SCORE
from pl_metrics._core.scores import NEG, ScoreCounts, aggregate, per_segment
from pl_metrics._ranking import sorted_tables
from pl_metrics._ranking.from_counts import curve_points

_BUCKET = "bucket"
_CUM_ROWS = f"{INTERNAL}cum_rows"
_CUM_POS = f"{INTERNAL}cum_pos"
_ALL_ROWS = f"{INTERNAL}all_rows"
_ALL_POS = f"{INTERNAL}all_pos"
_ALL_NEG = f"{INTERNAL}all_neg"
_DISTANCE = f"{INTERNAL}distance"
_SHARE = f"{INTERNAL}share"
_ROWS_BEFORE, _POS_BEFORE = f"{INTERNAL}rows_before", f"{INTERNAL}pos_before"


def ks(counts: ScoreCounts, *, error_bound: bool = False) -> pl.LazyFrame:
    """``*by, ks, threshold``; null for a segment without positives or negatives.

    The distance at a threshold is ``|tps N - fps P| / (P N)``; its numerator is
    compared in exact integers for counts (as Float64 where ``P N < 2^53``, else
    Int128), so two thresholds at the same distance tie exactly and the highest one
    is reported (as floats, ``2/3 - 0`` and ``1 - 1/3`` differ in the last bit).

    With ``error_bound`` (binned scores, ``bins=``) also ``ks_error_bound``: the
    largest share of the positives or of the negatives in one bin.  The exact
    statistic of the unbinned scores lies in ``[ks, ks + ks_error_bound]``: the
    binned curve has the exact value at every bin edge, and inside a bin the
    distance moves by at most the bin's share of either class.
    """
    keys = counts.keys
    wanted = [*keys, SCORE, "tps", "fps", "P", "N", *((POS, NEG) if error_bound else ())]
    weighted = counts.frame.collect_schema()[POS].is_float()

    def table(points: pl.LazyFrame) -> pl.LazyFrame:
        if weighted:
            return _ks(points, keys, pl.Float64, error_bound=error_bound, weights=True)
        # counts: exact in Float64 where P N < 2^53 (every product an integer below it;
        # the test itself exact), else in Int128
        small = pl.col("P") * pl.col("N") < 2.0**53
        points = points.cache()
        return pl.concat(
            [
                _ks(points.filter(small), keys, pl.Float64, error_bound=error_bound),
                _ks(points.filter(~small), keys, pl.Int128, error_bound=error_bound),
            ]
        )

    if counts.rows is not None and counts.rows.weight is None and not error_bound:
        # continuous scores: from the sorted curve's points, in numpy
        counted = dataclasses.replace(counts, rows=None)
        result = sorted_tables.deferred(
            counts.rows,
            curve_points(counted),
            curve_points(counted, wanted, table),
            sorted_tables.ks_columns,
        )
    else:
        result = curve_points(counts, wanted, table)
    return counts.finish(result.sort(keys, nulls_last=True))


def _ks(
    points: pl.LazyFrame,
    keys: list[str],
    exact: type[pl.DataType],
    *,
    error_bound: bool,
    weights: bool = False,
) -> pl.LazyFrame:
    """:func:`ks` of the curve points, their sums compared as ``exact``; ``weights``:
    float sums, scaled where their totals would overflow the products (counts here
    have P N < 2^53, or are Int128)."""
    # the curve's cumulative sums at each threshold, its totals the last of them (for
    # counts exact integers in Float64, below 2^53; weights in the curve's order)
    tps, fps, p, n = (pl.col(c).cast(exact) for c in ("tps", "fps", "P", "N"))
    columns = []
    if error_bound:
        pos, neg = (pl.col(c).cast(exact) for c in (POS, NEG))
        columns.append(pl.max_horizontal(pos / p, neg / n).cast(pl.Float64).alias(_SHARE))
    if weights:  # totals near 1e307 would overflow the products
        tps, fps, p, n = formulas.overflow_safe((tps, fps, p, n), p + n)
    numerator = formulas.ks_distance(tps, fps, p, n)
    columns += [numerator.alias(_DISTANCE), p.alias(_ALL_POS), n.alias(_ALL_NEG)]
    rows = points.select(*keys, SCORE, *columns)
    distance, best = pl.col(_DISTANCE), pl.col(_DISTANCE).max()
    p, n = pl.col(_ALL_POS).first(), pl.col(_ALL_NEG).first()
    both = (p > 0) & (n > 0)
    aggs = [
        pl.when(both)
        # over P N as one product, as the distance's own products (P / N with
        # weights: the last cumulative sums), so that a perfect ranking's KS is
        # exactly 1.0 (dividing by P, then by N, gave 0.9999999999999999)
        .then(best.cast(pl.Float64) / (p * n).cast(pl.Float64))
        .alias("ks"),
        # the first point (highest threshold) where the maximum is reached
        pl.when(both).then(pl.col(SCORE).filter(distance == best).max()).alias("threshold"),
    ]
    if error_bound:
        aggs.append(pl.when(both).then(pl.col(_SHARE).max()).alias("ks_error_bound"))
    return aggregate(rows, keys, aggs)


def gains(counts: ScoreCounts, *, cuts: list[tuple[int, int]]) -> pl.LazyFrame:
    """``*by, bucket, threshold, rows, positives, rate, cum_share, gain, lift, cum_lift``.

    ``bucket`` 1 holds the highest scores; ``threshold`` is the lowest score in the
    bucket (the rows of buckets 1..b are those with a score ``>= threshold``);
    ``rows`` / ``positives`` the bucket's (weighted) rows and positives;
    ``rate`` = positives / rows; ``cum_share`` the share of all rows in buckets
    1..b; ``gain`` the share of all positives in buckets 1..b; ``lift`` = rate /
    the segment's positive rate; ``cum_lift`` the same for buckets 1..b.  Without
    positives in the segment, ``gain``, ``lift`` and ``cum_lift`` are NaN.

    ``cuts``: the inner cuts as fractions ``(num, den)`` of the segment's rows.
    A block of tied scores goes to ``1 +`` the number of cuts at or below the
    share of rows ranked above it: ``before * den >= num * total``, exact for counts
    (in Float64 where ``total * den < 2^53``, else Int128), in Float64 for weights.
    """
    keys = counts.keys
    over = per_segment(keys)
    wanted = [*keys, SCORE, POS, NEG, "tps", "fps", "P", "N"]
    pos, neg = pl.col(POS).cast(pl.Float64), pl.col(NEG).cast(pl.Float64)
    counts_ = counts.count_type() == pl.Int64

    def bucket(exact: type[pl.DataType]) -> pl.Expr:
        total = (pl.col("P") + pl.col("N")).cast(exact)
        # rows ranked above the block (a higher score); exact integers for counts
        before = (pl.col("tps") + pl.col("fps") - pos - neg).cast(exact)
        if not cuts:
            return pl.lit(1, pl.Int64)
        k = cuts[-1][1]
        if exact == pl.Float64 and cuts == [(j, k) for j in range(1, k)] and counts_:
            # k equal shares of counts: the cuts reached are floor(before k / total)
            # (exact in Int64: before k <= total k < 2^53), one division for k - 1
            # comparisons
            whole = (before.cast(pl.Int64) * k) // total.cast(pl.Int64)
            return pl.min_horizontal(whole, pl.lit(k - 1, pl.Int64)) + 1
        reached = (before * den >= total * num for num, den in cuts)
        return pl.sum_horizontal(r.cast(pl.Int64) for r in reached) + 1

    def table(points: pl.LazyFrame) -> pl.LazyFrame:
        # a bucket's rows and positives as differences of the curve's running sums
        # (its last point's less the point before it): the same bits on every run,
        # where a sum of weights in a group_by adds in the threads' order
        tps, total = pl.col("tps"), pl.col("tps") + pl.col("fps")
        points = points.with_columns(
            over(total.shift(1)).fill_null(0.0).alias(_ROWS_BEFORE),
            over(tps.shift(1)).fill_null(0.0).alias(_POS_BEFORE),
        )
        if counts.count_type() == pl.Float64:
            bucketed = points.with_columns(bucket(pl.Float64).alias(_BUCKET))
        else:
            # counts: every product an exact integer as Float64 where total x den < 2^53
            # (the test itself exact), else in Int128
            small = (pl.col("P") + pl.col("N")) * max((den for _, den in cuts), default=1) < 2.0**53
            points = points.cache()
            bucketed = pl.concat(
                [
                    points.filter(small).with_columns(bucket(pl.Float64).alias(_BUCKET)),
                    points.filter(~small).with_columns(bucket(pl.Int128).alias(_BUCKET)),
                ]
            )
        return (
            bucketed.group_by(*keys, _BUCKET)
            .agg(
                pl.col(SCORE).min().alias("threshold"),
                (total.last() - pl.col(_ROWS_BEFORE).first()).alias("rows"),
                (tps.last() - pl.col(_POS_BEFORE).first()).alias("positives"),
            )
            .sort([*keys, _BUCKET], nulls_last=True)
        )

    if counts.rows is not None and counts.rows.weight is None:
        # continuous scores: from the sorted curve's points, in numpy
        counted = dataclasses.replace(counts, rows=None)
        per_bucket = sorted_tables.deferred(
            counts.rows,
            curve_points(counted),
            curve_points(counted, wanted, table),
            lambda points: sorted_tables.gains_columns(points, cuts),
        )
    else:
        per_bucket = curve_points(counts, wanted, table)
    rows, positives = pl.col("rows"), pl.col("positives")
    cum_rows, cum_pos = pl.col(_CUM_ROWS), pl.col(_CUM_POS)
    all_rows, all_pos = pl.col(_ALL_ROWS), pl.col(_ALL_POS)
    per_bucket = per_bucket.with_columns(
        over(rows.cum_sum()).alias(_CUM_ROWS),
        over(positives.cum_sum()).alias(_CUM_POS),
    ).with_columns(
        # totals as the last cumulative sums: cum_share and gain end at exactly 1 (a
        # column, in a window: per_segment says why)
        cum_rows.last().over(keys).alias(_ALL_ROWS),
        cum_pos.last().over(keys).alias(_ALL_POS),
    )
    nan = float("nan")
    base_rate = formulas.POLARS.ratio(all_pos, all_rows, nan)
    has_pos = all_pos > 0
    result = per_bucket.with_columns(
        formulas.POLARS.ratio(positives, rows, nan).alias("rate"),
        (cum_rows / all_rows).alias("cum_share"),
        pl.when(has_pos).then(cum_pos / all_pos).otherwise(nan).alias("gain"),
        pl.when(has_pos)
        .then(formulas.POLARS.ratio(positives, rows, nan) / base_rate)
        .otherwise(nan)
        .alias("lift"),
        pl.when(has_pos)
        .then(formulas.POLARS.ratio(cum_pos, cum_rows, nan) / base_rate)
        .otherwise(nan)
        .alias("cum_lift"),
    )
    result = result.select(
        *keys,
        _BUCKET,
        "threshold",
        rows.cast(counts.count_type()),
        positives.cast(counts.count_type()),
        "rate",
        "cum_share",
        "gain",
        "lift",
        "cum_lift",
    )
    return counts.finish(result)
