"""The normal approximation's pieces that the domains and the intervals share:
``z`` quantiles and two-sided p-values, Wilson's interval of a proportion, and
DeLong's standard error of the ROC AUC with its clipped bounds."""

from __future__ import annotations

import math
from statistics import NormalDist

import polars as pl

from pl_metrics._core import formulas
from pl_metrics._core.names import NEG, POS, SCORE


def z_value(ci: float) -> float:
    return NormalDist().inv_cdf(0.5 + ci / 2)


def normal_p_value(z: pl.Series) -> pl.Series:
    """Two-sided p-value of a standard normal statistic, ``erfc(|z| / sqrt 2)``."""
    return pl.Series(
        [None if x is None else math.erfc(abs(x) / math.sqrt(2)) for x in z.to_list()],
        dtype=pl.Float64,
    )


def wilson(successes: pl.Expr, trials: pl.Expr, ci: float) -> tuple[pl.Expr, pl.Expr]:
    """Wilson's score interval of ``successes / trials`` (null when trials == 0).

    Its bounds are exactly 0 at no success and 1 at all (the closed form's
    centre -+ half cancel there, which floats leave at 1e-17 from the bound), and
    hold the estimate."""
    z = z_value(ci)
    n = trials.cast(pl.Float64)
    p = successes.cast(pl.Float64) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)).sqrt()) / (1 + z * z / n)
    low = pl.when(p <= 0).then(0.0).otherwise(pl.min_horizontal(centre - half, p))
    high = pl.when(p >= 1).then(1.0).otherwise(pl.max_horizontal(centre + half, p))
    valid = n > 0
    return pl.when(valid).then(low), pl.when(valid).then(high)


def delong_se() -> pl.Expr:
    """Per-segment aggregation over the per-score counts (``score, pos, neg``): DeLong's
    standard error of the ROC AUC; null with fewer than two positives or negatives.

    V10 of a positive at score s = (negatives below s + half those at s) / N;
    V01 of a negative at s = (positives above s + half those at s) / P;
    var = S10 / P + S01 / N with S the sample variances (denominators P - 1, N - 1),
    about the mean placement.  Computed on the placements times N (or P), the
    totals the running sums' last values and the mean a ratio of two running sums,
    so that a perfect ranking's deviations are exactly 0 (polars divides a column
    by a group's total through its reciprocal: 49 * (1 / 49) is 0.9999999999999999,
    and the bounds of an AUC of 1.0 came out at 0.9999999999999999).  Counts only
    (intervals refuse weights): the squares of counts stay finite.
    """
    pos = pl.col(POS).sort_by(SCORE).cast(pl.Float64)
    neg = pl.col(NEG).sort_by(SCORE).cast(pl.Float64)
    pos_seen, neg_seen = pos.cum_sum(), neg.cum_sum()
    p_total, n_total = pos_seen.last(), neg_seen.last()
    below = formulas.placement(neg_seen - neg, neg, 1.0)  # N V10
    above = formulas.placement(p_total - pos_seen, pos, 1.0)  # P V01
    auc = (pos * below).cum_sum().last() / (pos * n_total).cum_sum().last()
    squares10 = (pos * (below - auc * n_total) ** 2).sum() / n_total**2
    squares01 = (neg * (above - auc * p_total) ** 2).sum() / p_total**2
    se = formulas.delong_se_of_squares(
        squares10, squares01, p_total=p_total, n_total=n_total, xp=formulas.POLARS
    )
    return pl.when((p_total > 1) & (n_total > 1)).then(se)


def delong_bounds(auc: pl.Expr, se: pl.Expr, ci: float) -> list[pl.Expr]:
    """``roc_auc_low`` / ``roc_auc_high``: ``auc -+ z se`` clipped to [0, 1], around the
    point itself (null where either is)."""
    z = z_value(ci)
    return [
        (auc - z * se).clip(0.0, 1.0).alias("roc_auc_low"),
        (auc + z * se).clip(0.0, 1.0).alias("roc_auc_high"),
    ]


__all__ = ["delong_bounds", "delong_se", "normal_p_value", "wilson", "z_value"]
