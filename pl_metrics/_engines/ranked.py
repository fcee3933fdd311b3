"""Exact ranking statistics of continuous scores on an engine with the driver's memory
bounded: the ROC AUC (and DeLong's interval), the average precision (and its logit
intervals) and the KS statistic, of counts of rows or of weights.

The per-score state of continuous scores has about one row per row, so merging it on
the driver needs the driver to hold all the rows' scores.  Instead the engine
range-partitions the rows by score (Spark's ``repartitionByRange``; on Dask, polars
splits each shard at boundaries sampled from the scores): equal scores meet in one
partition, and partition ``j``'s scores are all below partition ``j + 1``'s.  Each
partition computes its own per-score state (the frame method's, with all its checks)
and sends only a summary per segment (:func:`summary`): its positives ``P_j`` and
negatives ``N_j`` (Int128 counts, or Float64 weight sums) and

- counts: the pairs it orders right ``right_j`` and ties ``tied_j``.  A negative of
  partition ``j`` is below every positive of the partitions after it, so the
  segment's pairs ordered right are ``right = sum_j (right_j + N_j sum_{i > j} P_i)``
  and the AUC is ``from_counts.pairs_auc`` of (right, tied, P, N): the integers the
  merged state would sum, so the frame method's number to the bit;
- weights: its own AUC ``a_j`` (the frame method's formula on its rows: each class's
  shares of its partition total, so that products of huge or tiny weights stay
  finite).  With ``C_j`` the positives of the partitions above (a running sum) and
  ``X_j = a_j P_j + C_j`` (the weight of positives above each of its negatives, on
  average, ties one half), the AUC is ``sum_j (N_j / N) (X_j / P) / sum_j (N_j / N)``:
  where every positive is above every negative, ``X_j`` is the running sum ``P``
  itself and the two sums add the same floats: exactly 1.0, as the frame method;
- with DeLong's interval (counts): each class's placements (a positive's negatives
  below it plus half those tied; a negative's positives above it plus half) are its
  partition's own plus a count of the partitions beside it (the negatives below,
  the positives above), so each partition sends the mean ``b0`` of its positives'
  own placements and their sum of squares about it ``m2`` (and the same for its
  negatives), and the frame method's ``sum pos (below - AUC N)^2`` is
  ``sum_j m2_j + P_j (b0_j + N_below_j - AUC N)^2``: sums of squares, nothing
  cancels (as :mod:`.estimated`'s expected AUC).

The average precision and the KS statistic need, at each score, the positives and
negatives above it, which in partition ``j`` are its own running counts plus those of
the partitions after it: a second pass over the same partitions (persisted by the
engine) receives them and the segment's totals (:func:`prefix`, partitions x segments
rows) and sends per segment (:func:`second`):

- the sum of the AP's terms (counts: in rows, divided by P as the frame method;
  weights: in shares of P, over the sum of the shares, as the frame method);
- with the AP's logit interval (:mod:`pl_metrics._stats.ap_delta`): a positive's
  derivative is ``(precision + U_local + U_lower - AP) / P`` and a negative's
  ``(W_local + W_lower) / P``, ``U`` / ``W`` sums over the runs of equal scores at and
  below it, the lower partitions' part ``U_lower`` a constant of the partition; each
  partition sends its ``U`` / ``W`` totals and the first four centred moments of
  ``precision + U_local`` over its positives (and of ``W_local`` over its negatives),
  and ``S2 = sum x d^2``, ``S4 = sum x d^4`` follow from the binomial expansion
  about the mean (centred: bounded cancellation);
- the KS statistic's largest ``|tps N - fps P|`` (exact Int128 for counts, weights
  scaled as the frame method: ``formulas.overflow_safe``) and the highest score
  reaching it; the segment's is the largest over partitions, its threshold the
  highest of the partitions reaching it.

The driver holds partitions x segments rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from pl_metrics._core import catalogue, checks, formulas
from pl_metrics._core.messages import Bad
from pl_metrics._core.names import INTERNAL
from pl_metrics._intervals.analytic import ap_logit
from pl_metrics._ranking.from_counts import pairs_auc
from pl_metrics._stats import ap_delta
from pl_metrics._stats.normal import delong_bounds, z_value

#: The summary's partition index (its score range's rank) and its counts.
PART = f"{INTERNAL}part"
COUNTS = ("P", "N", "right", "tied")
#: A partition of fewer rows sums its pairs in Int64 (at most 2^60 of them).
_INT64_ROWS = 2**31
#: The prefix of a partition: the positives and negatives of the higher score ranges,
#: and the segment's totals.
_TP, _FP = f"{INTERNAL}tp_above", f"{INTERNAL}fp_above"
_P_ALL, _N_ALL = f"{INTERNAL}p_all", f"{INTERNAL}n_all"
_ALL = f"{INTERNAL}all"  # the one segment without ``by``
#: A weighted summary's own AUC.
_LOCAL = "local_auc"
_DType = pl.DataType | type[pl.DataType]


@dataclass(frozen=True)
class Asked:
    """What the partitions compute beyond the AUC's counts (picklable: it travels with
    the job): ``delong``, DeLong's placement moments (pass 1); ``ap`` / ``ap_moments``,
    the AP's terms and its logit interval's moments (pass 2); ``ks``, the KS's
    largest distance (pass 2)."""

    delong: bool = False
    ap: bool = True
    ap_moments: bool = False
    ks: bool = False

    @property
    def passes(self) -> int:
        """The passes over the partitions: a second where a prefix is needed."""
        return 2 if self.ap or self.ap_moments or self.ks else 1


#: The analytic intervals the partitions compute, by statistic and ``ci_method``.
INTERVALS: dict[catalogue.Ranked, tuple[str, ...]] = {
    catalogue.Ranked.AUC: ("delong",),
    catalogue.Ranked.AP: ("logit", "boyd"),
    catalogue.Ranked.KS: (),
}


def asked(
    statistics: Sequence[catalogue.Ranked], *, ci: float | None = None, ci_method: str | None = None
) -> Asked:
    """What to compute for ``statistics`` (with ``ci``: their ``ci_method`` interval)."""
    return Asked(
        delong=ci is not None and catalogue.Ranked.AUC in statistics,
        ap=catalogue.Ranked.AP in statistics,
        ap_moments=ci is not None and ci_method == "logit" and catalogue.Ranked.AP in statistics,
        ks=catalogue.Ranked.KS in statistics,
    )


def _keyed(frame: pl.DataFrame, segments: Sequence[str]) -> tuple[pl.DataFrame, list[str]]:
    """``frame`` and its segment keys (a constant one without ``by``)."""
    if segments:
        return frame, list(segments)
    return frame.with_columns(pl.lit(0, pl.Int8).alias(_ALL)), [_ALL]


def _out(frame: pl.DataFrame, segments: Sequence[str]) -> pl.DataFrame:
    """A finished frame: sorted by its segments, or without the constant key."""
    return frame.sort(list(segments), nulls_last=True) if segments else frame.drop(_ALL)


def _grouped(
    frame: pl.DataFrame, keys: list[str], aggs: list[pl.Expr], *, ordered: bool = False
) -> pl.DataFrame:
    """``frame``'s groups by ``keys`` aggregated; of no rows, no group (the dtypes from
    a row of nulls: polars infers no dtype of a conditional's running sum of none)."""
    if not frame.height:
        return frame.clear(1).group_by(keys).agg(aggs).clear()
    return frame.group_by(keys, maintain_order=ordered).agg(aggs)


def _weighted(frame: pl.DataFrame) -> bool:
    """Whether a per-score state (``pos``) or a summary (``P``) holds weight sums."""
    return frame.schema["pos" if "pos" in frame.schema else "P"].is_float()


# ------------------------------------------------------------------ the first pass
def summary(
    state: pl.DataFrame, segments: Sequence[str], part: int, asked: Asked | None = None
) -> pl.DataFrame:
    """Partition ``part``'s per-score ``state`` as its summary per segment (the rows
    sorted by score once: each segment's rows keep that order in its group)."""
    frame, keys = _keyed(state.sort("score", descending=True), segments)
    aggs = _weight_sums() if _weighted(state) else _pair_counts(state)
    if asked is not None and asked.delong:
        aggs += _placements()
    out = _grouped(frame, keys, aggs).with_columns(pl.lit(part, pl.Int64).alias(PART))
    if not _weighted(state):
        out = out.with_columns(pl.col(COUNTS).cast(pl.Int128))
    return out if segments else out.drop(_ALL)


def _pair_counts(state: pl.DataFrame) -> list[pl.Expr]:
    """Counts: P, N, the pairs ordered right and those tied."""
    # a segment's pairs are at most (its rows / 2)^2: Int64 sums below 2^31 rows
    rows = state.select(pl.col("pos", "neg").cast(pl.Int128).sum()).sum_horizontal().item()
    dtype = pl.Int64 if (rows or 0) < _INT64_ROWS else pl.Int128
    pos, neg = pl.col("pos").cast(dtype), pl.col("neg").cast(dtype)
    above = pos.cum_sum() - pos  # the positives above each score, in this partition
    return [
        pos.sum().alias("P"),
        neg.sum().alias("N"),
        (neg * above).sum().alias("right"),
        (neg * pos).sum().alias("tied"),
    ]


def _weight_sums() -> list[pl.Expr]:
    """Weights: P, N and the partition's own AUC (``from_counts``' weighted formula),
    0.0 where it has one class (its pairs are then all with other partitions)."""
    pos, neg = pl.col("pos").cast(pl.Float64), pl.col("neg").cast(pl.Float64)
    # running sums in score order, as the second pass's: a perfect ranking's KS reaches
    # the totals exactly
    p, n = pos.cum_sum().last(), neg.cum_sum().last()
    both = (p > 0) & (n > 0)
    share_pos = pl.when(both).then(pos / p).otherwise(0.0)
    share_neg = pl.when(both).then(neg / n).otherwise(0.0)
    tps = share_pos.cum_sum()
    u = formulas.roc_auc_terms(share_pos, share_neg, tps).cum_sum().last()
    full = formulas.roc_auc_terms(0.0, share_neg, tps.last()).cum_sum().last()
    local = pl.when(both).then(u / full).otherwise(0.0)
    return [p.alias("P"), n.alias("N"), local.alias(_LOCAL)]


def _placements() -> list[pl.Expr]:
    """DeLong's placements within the partition (counts): the positives' mean ``b0``
    (negatives below plus half tied) and sum of squares about it, the negatives' mean
    ``a0`` (positives above plus half tied) and theirs."""
    pos, neg = pl.col("pos").cast(pl.Float64), pl.col("neg").cast(pl.Float64)
    p, n = pos.sum(), neg.sum()
    below = formulas.placement(n - neg.cum_sum(), neg, 1.0)  # in descending score order
    above = formulas.placement(pos.cum_sum() - pos, pos, 1.0)
    b0 = pl.when(p > 0).then((pos * below).sum() / p).otherwise(0.0)
    a0 = pl.when(n > 0).then((neg * above).sum() / n).otherwise(0.0)
    return [
        b0.alias("b0"),
        (pos * (below - b0) * (below - b0)).sum().alias("m_pos"),
        a0.alias("a0"),
        (neg * (above - a0) * (above - a0)).sum().alias("m_neg"),
    ]


def merge(summaries: list[pl.DataFrame]) -> pl.DataFrame:
    """Summaries of several partitions: concatenated (each keeps its partition index)."""
    return pl.concat(summaries, how="vertical_relaxed")


def check_totals(summaries: pl.DataFrame, segments: Sequence[str], weight: str | None) -> None:
    """The frame method's refusal of a segment whose weights sum past the largest
    total (each partition's sum may be within it)."""
    if weight is None or not summaries.height:
        return
    frame, keys = _keyed(summaries, segments)
    totals = frame.group_by(keys).agg((pl.col("P") + pl.col("N")).sum().alias("total"))
    if totals.select(checks.weight_total_too_large(pl.col("total")).max()).item():
        raise Bad.weight_overflow(weight)


def _down(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The summaries by segment, in descending score ranges (the highest first)."""
    return frame.sort([*keys, PART], descending=[False] * len(keys) + [True], nulls_last=True)


def roc_auc(
    summaries: pl.DataFrame, segments: Sequence[str], *, ci: float | None = None
) -> pl.DataFrame:
    """``*by, roc_auc`` from every partition's summary; with ``ci`` (counts, the
    summaries' placements) DeLong's ``roc_auc_low`` / ``roc_auc_high``."""
    frame, keys = _keyed(summaries, segments)
    frame = _down(frame, keys)
    if _weighted(summaries):
        p, n = pl.col("P"), pl.col("N")
        p_all, n_all = p.cum_sum().last(), n.cum_sum().last()
        mean_above = pl.col(_LOCAL) * p + (p.cum_sum().shift(1, fill_value=0.0))
        num = ((n / n_all) * (mean_above / p_all)).cum_sum().last()
        den = (n / n_all).cum_sum().last()
        auc: pl.Expr = pl.when((p_all > 0) & (n_all > 0)).then(num / den)
    else:
        p_above = pl.col("P").cum_sum() - pl.col("P")  # positives of higher ranges
        right = (pl.col("right") + pl.col("N") * p_above).sum()
        auc = pairs_auc(right, pl.col("tied").sum(), pl.col("P").sum(), pl.col("N").sum())
    out = _grouped(frame, keys, [auc.alias("roc_auc")], ordered=True)
    if ci is not None:
        se = _delong_se(frame, keys, out)
        out = out.join(se, on=keys, how="left", nulls_equal=True, maintain_order="left")
        out = out.select(*keys, "roc_auc", *delong_bounds(pl.col("roc_auc"), pl.col("se"), ci))
    return _out(out, segments)


def _delong_se(frame: pl.DataFrame, keys: list[str], auc: pl.DataFrame) -> pl.DataFrame:
    """``*keys, se``: DeLong's standard error from the partitions' placement moments
    (null with fewer than two positives or negatives)."""
    p_int, n_int = pl.col("P"), pl.col("N")  # exact Int128 sums, then floats
    frame = frame.with_columns(
        (p_int.cum_sum() - p_int).over(keys).cast(pl.Float64).alias("p_above"),
        (n_int.sum() - n_int.cum_sum()).over(keys).cast(pl.Float64).alias("n_below"),
        p_int.sum().over(keys).cast(pl.Float64).alias("p_all"),
        n_int.sum().over(keys).cast(pl.Float64).alias("n_all"),
    )
    frame = frame.join(auc, on=keys, how="left", nulls_equal=True, maintain_order="left")
    p, n = pl.col("P").cast(pl.Float64), pl.col("N").cast(pl.Float64)
    p_all, n_all, r = pl.col("p_all"), pl.col("n_all"), pl.col("roc_auc")
    gap_pos = pl.col("b0") + pl.col("n_below") - r * n_all
    gap_neg = pl.col("a0") + pl.col("p_above") - r * p_all
    squares10 = (pl.col("m_pos") + p * gap_pos * gap_pos).sum() / n_all.first() ** 2
    squares01 = (pl.col("m_neg") + n * gap_neg * gap_neg).sum() / p_all.first() ** 2
    p1, n1 = p_all.first(), n_all.first()
    se = formulas.delong_se_of_squares(
        squares10, squares01, p_total=p1, n_total=n1, xp=formulas.POLARS
    )
    se = pl.when((p1 > 1) & (n1 > 1)).then(se)
    return _grouped(frame, keys, [se.alias("se")], ordered=True)


# ------------------------------------------------------------------ the second pass
def prefix(summaries: pl.DataFrame, segments: Sequence[str]) -> pl.DataFrame:
    """Per partition and segment: the positives and negatives of the partitions of
    higher score ranges, and the segment's (the summaries' dtype: Int128 counts or
    Float64 weights)."""
    frame, keys = _keyed(summaries, segments)
    frame = _down(frame, keys)
    p, n = pl.col("P"), pl.col("N")
    above = [(p.cum_sum() - p).over(keys).alias(_TP), (n.cum_sum() - n).over(keys).alias(_FP)]
    if _weighted(summaries):  # a running sum, not a difference: no rounding
        above = [
            p.cum_sum().shift(1, fill_value=0.0).over(keys).alias(_TP),
            n.cum_sum().shift(1, fill_value=0.0).over(keys).alias(_FP),
        ]
    totals = [
        p.cum_sum().last().over(keys).alias(_P_ALL),
        n.cum_sum().last().over(keys).alias(_N_ALL),
    ]
    return frame.select(*keys, PART, *above, *totals)


def second(
    state: pl.DataFrame,
    segments: Sequence[str],
    part: int,
    above: pl.DataFrame,
    asked: Asked | None = None,
) -> pl.DataFrame:
    """Partition ``part``'s second-pass sums per segment (``above``: the :func:`prefix`
    of every partition): the AP's terms, its interval's moments, the KS's distance,
    as ``asked``."""
    asked = Asked() if asked is None else asked
    frame, keys = _keyed(state.sort("score", descending=True), segments)
    mine = above.filter(pl.col(PART) == part).drop(PART)
    frame = frame.join(mine, on=keys, how="left", nulls_equal=True, maintain_order="left")
    weighted = _weighted(state)
    aggs: list[pl.Expr] = []
    if asked.ap or asked.ap_moments:
        aggs += _ap_terms(weighted)
    if asked.ap_moments:
        aggs += _ap_moments()
    if asked.ks:
        aggs += _ks_distance(weighted)
    out = _grouped(frame, keys, aggs).with_columns(pl.lit(part, pl.Int64).alias(PART))
    return out if segments else out.drop(_ALL)


def _first(column: str, dtype: _DType) -> pl.Expr:
    """A prefix column (one value per group), 0 where the partition has none."""
    return pl.col(column).first().cast(dtype).fill_null(0)


def _running(dtype: _DType) -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """pos, neg and the positives / negatives at or above each score, as ``dtype``."""
    pos, neg = pl.col("pos").cast(dtype), pl.col("neg").cast(dtype)
    tps = pos.cum_sum() + _first(_TP, dtype)
    fps = neg.cum_sum() + _first(_FP, dtype)
    return pos, neg, tps, fps


def _ap_terms(weighted: bool) -> list[pl.Expr]:
    """The AP's terms and their positives: counts in rows (the frame method's sum
    over P); weights in shares of P (its running sums of the terms and of the shares)."""
    pos, _, tps, fps = _running(pl.Float64)
    if not weighted:
        terms = formulas.average_precision_terms(pos, tps, fps).sum()
        return [terms.alias("terms"), pos.sum().alias("shares")]
    p_all = _first(_P_ALL, pl.Float64)
    share = pl.when(p_all > 0).then(pos / p_all).otherwise(0.0)
    terms = formulas.average_precision_terms(share, tps, fps).cum_sum().last()
    return [terms.alias("terms"), share.cum_sum().last().alias("shares")]


def _ap_moments() -> list[pl.Expr]:
    """The logit interval's sums of the partition (counts; :mod:`.ap_delta`): its ``U``
    and ``W`` totals, and the centred moments 0, 2, 3, 4 of ``precision + U_local``
    over its positives and of ``W_local`` over its negatives."""
    pos, neg, tps, fps = _running(pl.Float64)
    rows = tps + fps
    squared = rows * rows
    u_terms, w_terms = pos * (rows - tps) / squared, pos * tps / squared
    x = tps / rows + u_terms.cum_sum(reverse=True)
    y = w_terms.cum_sum(reverse=True)
    out = [u_terms.sum().alias("U"), w_terms.sum().alias("W")]
    for name, mass, value in (("x", pos, x), ("y", neg, y)):
        total = mass.sum()
        mean = pl.when(total > 0).then((mass * value).sum() / total).otherwise(0.0)
        dev = value - mean
        dev2 = dev * dev
        out += [
            mean.alias(f"{name}0"),
            (mass * dev2).sum().alias(f"{name}2"),
            (mass * dev2 * dev).sum().alias(f"{name}3"),
            (mass * dev2 * dev2).sum().alias(f"{name}4"),
        ]
    return out


def _ks_distance(weighted: bool) -> list[pl.Expr]:
    """The partition's largest ``|tps N - fps P|`` and the highest score reaching it:
    exact Int128 for counts; weights scaled as the frame method (``overflow_safe``)."""
    dtype = pl.Float64 if weighted else pl.Int128
    _, _, tps, fps = _running(dtype)
    p, n = _first(_P_ALL, dtype), _first(_N_ALL, dtype)
    if weighted:
        tps, fps, p, n = formulas.overflow_safe((tps, fps, p, n), p + n)
    distance = formulas.ks_distance(tps, fps, p, n)
    best = distance.max()
    threshold = pl.col("score").filter(distance == best).max()
    return [best.alias("ks_best"), threshold.cast(pl.Float64).alias("ks_threshold")]


def average_precision(
    summaries: pl.DataFrame,
    terms: pl.DataFrame,
    segments: Sequence[str],
    *,
    ci: float | None = None,
    ci_method: str | None = None,
) -> pl.DataFrame:
    """``*by, average_precision`` from the partitions' summaries and second-pass sums;
    with ``ci``: ``ci_method``'s interval (``"logit"``: from the moments, ``"boyd"``)."""
    counted, keys = _keyed(summaries, segments)
    summed, _ = _keyed(terms, segments)
    p = counted.group_by(keys).agg(pl.col("P").sum().cast(pl.Float64))
    summed = _down(summed, keys)
    t = _grouped(
        summed, keys, [pl.col("terms").cum_sum().last(), pl.col("shares").cum_sum().last()]
    )
    frame = p.join(t, on=keys, how="left", nulls_equal=True)
    ap = formulas.average_precision_of_sum(pl.col("terms").fill_null(0.0), pl.col("shares"))
    ap = pl.when(pl.col("P") > 0).then(ap).otherwise(0.0).alias("average_precision")
    out = frame.select(*keys, ap, "P")
    if ci is None:
        return _out(out.drop("P"), segments)
    if ci_method == "boyd":
        out = out.select(
            *keys, "average_precision", *ap_logit(pl.col("average_precision"), pl.col("P"), ci)
        )
        return _out(out, segments)
    moments = _ap_sums(counted, summed, keys, out)
    out = out.join(moments, on=keys, how="left", nulls_equal=True, maintain_order="left")
    low, high = ap_delta.bounds(
        out["average_precision"].to_numpy(),
        out["s2"].fill_null(0.0).to_numpy(),
        out["s4"].fill_null(0.0).to_numpy(),
        out["rows"].fill_null(0.0).to_numpy(),
        out["P"].fill_null(0.0).to_numpy(),
        z_value(ci),
    )
    bounds = [
        pl.Series(name, values, dtype=pl.Float64).fill_nan(None)
        for name, values in zip(
            ("average_precision_low", "average_precision_high"), (low, high), strict=True
        )
    ]
    out = out.select(*keys, "average_precision").with_columns(bounds)
    return _out(out, segments)


def _ap_sums(
    counted: pl.DataFrame, summed: pl.DataFrame, keys: list[str], ap: pl.DataFrame
) -> pl.DataFrame:
    """``*keys, s2, s4, rows``: the delta method's ``sum x d^2``, ``sum x d^4`` and the
    rows, from the partitions' moments (the lower partitions' ``U`` / ``W`` a constant
    of each partition: ``d`` its own centred value plus a shift, expanded)."""
    frame = summed.join(
        counted.select(*keys, PART, "P", "N"), on=[*keys, PART], how="left", nulls_equal=True
    )
    frame = _down(frame, keys).join(
        ap.select(*keys, pl.col("P").alias("p_all"), "average_precision"),
        on=keys, how="left", nulls_equal=True, maintain_order="left",
    )  # fmt: skip
    # the lower ranges' U and W: running sums from the lowest range up, shifted
    lower = [
        pl.col(c).cum_sum(reverse=True).shift(-1, fill_value=0.0).over(keys).alias(f"{c}_lower")
        for c in ("U", "W")
    ]
    frame = frame.with_columns(lower)
    b = pl.col("x0") + pl.col("U_lower") - pl.col("average_precision")
    c = pl.col("y0") + pl.col("W_lower")
    m_pos, m_neg = pl.col("P").cast(pl.Float64), pl.col("N").cast(pl.Float64)

    def fourth(shift: pl.Expr, mass: pl.Expr, name: str) -> pl.Expr:
        m2, m3, m4 = (pl.col(f"{name}{k}") for k in (2, 3, 4))
        s2 = shift * shift
        return m4 + 4.0 * shift * m3 + 6.0 * s2 * m2 + mass * s2 * s2

    second_ = pl.col("x2") + m_pos * b * b + pl.col("y2") + m_neg * c * c
    fourth_ = fourth(b, m_pos, "x") + fourth(c, m_neg, "y")
    p_all = pl.col("p_all").first()
    return _grouped(
        frame,
        keys,
        [
            (second_.sum() / (p_all * p_all)).alias("s2"),
            (fourth_.sum() / (p_all * p_all * p_all * p_all)).alias("s4"),
            (m_pos + m_neg).sum().alias("rows"),
        ],
        ordered=True,
    )


def ks(summaries: pl.DataFrame, second_: pl.DataFrame, segments: Sequence[str]) -> pl.DataFrame:
    """``*by, ks, threshold`` from the partitions' largest distances (null without
    positives or negatives)."""
    summed, keys = _keyed(second_, segments)
    totals = prefix(summaries, segments).group_by(keys).agg(pl.col(_P_ALL, _N_ALL).first())
    best = summed.group_by(keys).agg(
        pl.col("ks_best").max().alias("best"),
        pl.col("ks_threshold")
        .filter(pl.col("ks_best") == pl.col("ks_best").max())
        .max()
        .alias("threshold"),
    )
    frame = totals.join(best, on=keys, how="left", nulls_equal=True)
    p, n = pl.col(_P_ALL), pl.col(_N_ALL)
    if _weighted(summaries):
        p, n = formulas.overflow_safe((p, n), p + n)
    both = (pl.col(_P_ALL) > 0) & (pl.col(_N_ALL) > 0)
    value = pl.col("best").cast(pl.Float64) / (p * n).cast(pl.Float64)
    out = frame.select(
        *keys,
        pl.when(both).then(value).alias("ks"),
        pl.when(both).then(pl.col("threshold")).alias("threshold"),
    )
    return _out(out, segments)
