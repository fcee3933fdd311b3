"""Analytic intervals: Wilson's score interval for proportions of counts, DeLong's
variance for ROC AUC (its structural components from the per-score counts,
ties counted one half), the logit interval of the average precision."""

from __future__ import annotations

from statistics import NormalDist

import polars as pl

from pl_metrics._core import formulas as fm
from pl_metrics._core.names import NEG, POS, SCORE


def z_value(ci: float) -> float:
    return NormalDist().inv_cdf(0.5 + ci / 2)


def wilson(successes: pl.Expr, trials: pl.Expr, ci: float) -> tuple[pl.Expr, pl.Expr]:
    """Wilson's score interval of ``successes / trials`` (null when trials == 0)."""
    z = z_value(ci)
    n = trials.cast(pl.Float64)
    p = successes.cast(pl.Float64) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)).sqrt()) / (1 + z * z / n)
    valid = n > 0
    return pl.when(valid).then(centre - half), pl.when(valid).then(centre + half)


def delong_exprs(ci: float) -> list[pl.Expr]:
    """Per-segment aggregations over the per-score counts (``score, pos, neg``):
    ``roc_auc_low`` / ``roc_auc_high`` from DeLong's variance, clipped to [0, 1].

    V10 of a positive at score s = (negatives below s + half those at s) / N;
    V01 of a negative at s = (positives above s + half those at s) / P;
    var = S10 / P + S01 / N with S the sample variances (denominators P - 1, N - 1).
    """
    z = z_value(ci)
    pos = pl.col(POS).sort_by(SCORE).cast(pl.Float64)
    neg = pl.col(NEG).sort_by(SCORE).cast(pl.Float64)
    p_total, n_total = pos.sum(), neg.sum()
    neg_below = neg.cum_sum() - neg
    pos_above = p_total - pos.cum_sum()
    v10 = fm.placement(neg_below, neg, n_total)
    v01 = fm.placement(pos_above, pos, p_total)
    auc = ((pos / p_total) * v10).sum()
    se = fm.delong_se(pos, v10, neg, v01, auc=auc, p_total=p_total, n_total=n_total, xp=fm.POLARS)
    valid = (p_total > 1) & (n_total > 1)
    return [
        pl.when(valid).then((auc - z * se).clip(0.0, 1.0)).alias("roc_auc_low"),
        pl.when(valid).then((auc + z * se).clip(0.0, 1.0)).alias("roc_auc_high"),
    ]


def ap_logit(ap: pl.Expr, positives: pl.Expr, ci: float) -> list[pl.Expr]:
    """``average_precision_low`` / ``_high``: the logit interval
    (``formulas.ap_logit_bounds``); null without positives."""
    low, high = fm.ap_logit_bounds(ap, positives, z_value(ci), xp=fm.POLARS)
    return [
        low.fill_nan(None).alias("average_precision_low"),
        high.fill_nan(None).alias("average_precision_high"),
    ]
