"""The spread of a metric whose labels are not known yet: each row's label drawn
Bernoulli(p) given its calibrated probability p (``estimated_performance(ci=)``).

The model: row i (weight w, probability p, prediction d: 1 where it predicts the
positive class) has the label Y ~ Bernoulli(p), the rows independent.  The realized
counts are TP = sum w d Y and FN = sum w (1 - d) Y, random, and FP = A - TP,
TN = B - FN, where A = sum w d and B = sum w (1 - d) are fixed: TP and FN are
independent (disjoint rows), Var TP = sum w^2 d p (1 - p) and Var FN = sum w^2
(1 - d) p (1 - p) (Poisson-binomial sums), and TP and FP are perfectly negatively
correlated.  A metric m(tp, fp, fn, tn) of the counts moves with TP by
m_tp - m_fp and with FN by m_fn - m_tn, so the delta method's variance is

    Var m = (m_tp - m_fp)^2 Var TP + (m_fn - m_tn)^2 Var FN

(exact for precision = TP / A and accuracy = (TP + B - FN) / n, which are linear
in the draws).  The ROC AUC of the drawn labels, R = U / (P N) with U = sum over
pairs of w_i Y_i w_j (1 - Y_j) [s_i > s_j, ties 1/2], P = sum w Y, N = sum w (1 - Y),
moves with Y_k by

    dR / dY_k = w_k ((V10_k - R) / P - (V01_k - R) / N)

at Y = p, where V10_k is row k's placement as a positive (the expected negative
weight ranked below it, ties one half, over N) and V01_k its placement as a
negative (the expected positive weight ranked above it over P): DeLong's
placements of the rows counted as both classes.  Var R = sum_k (dR / dY_k)^2
p_k (1 - p_k).  Both variances are first order (the delta method); the tests
check them against 10,000 drawn label sets.

Every sum is taken scale-free: the per-score weights as shares of their largest
(``M``: the squares ``Q`` = sum (w / M)^2), the counts as shares of the segment's
total, so that weights near 2**1000 or 2**-1000 neither overflow nor underflow.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from pl_metrics._core import catalogue, formulas


def count_gradient(  # noqa: PLR0917 - the counts, then the backend, as formulas'
    name: str, tp: Any, fp: Any, fn: Any, tn: Any, xp: formulas.Backend = formulas.POLARS
) -> tuple[Any, Any]:
    """(dm / dTP, dm / dFN) of metric ``name`` (a key of ``formulas.SCORES``, ``f1``,
    ``specificity`` or ``accuracy``) at the counts given, where FP = A - TP and
    TN = B - FN: ``m_tp - m_fp`` and ``m_fn - m_tn``.  With the counts as shares of
    the segment's total, the derivatives are in shares too (the caller scales the
    variances by the same total).  0 where the metric's denominator is 0.  ``xp``:
    polars expressions or numpy arrays (:mod:`pl_metrics._core.backends`)."""
    if catalogue.CATALOGUE[name].correct_share:  # accuracy: (tp + tn) / n, n fixed
        n = tp + fp + fn + tn
        one = xp.ratio(n * 0.0 + 1.0, n, 0.0)
        return one, -one
    score = formulas.score_key(name)
    if (
        score not in formulas.SCORES
    ):  # specificity = tn / (tn + fp): d_tn = fp / D^2, d_fp = -tn / D^2
        square = (tn + fp) * (tn + fp)
        return xp.ratio(tn, square, 0.0), -xp.ratio(fp, square, 0.0)
    d_tp, d_fp, d_fn, d_tn = formulas.score_partials(score, tp, fp, fn, tn, 1.0, xp)
    return d_tp - d_fp, d_fn - d_tn


def count_variance(gradient: tuple[Any, Any], squares: tuple[Any, Any]) -> Any:
    """Var m = g_TP^2 Var TP + g_FN^2 Var FN (``squares``: the two variances, in the
    unit of the gradient's counts)."""
    (g_tp, g_fn), (var_tp, var_fn) = gradient, squares
    return g_tp * g_tp * var_tp + g_fn * g_fn * var_fn


def auc_slopes(totals: tuple[Any, Any], sums: tuple[Any, Any, Any]) -> tuple[Any, Any]:
    """Per distinct score of a segment (numpy arrays): (A, B) such that
    dR / dY_k = A - R B for the rows of the score, times w_k / M (the module's
    formula with the placements written out), R the expected AUC.

    ``totals``: the score's expected weight T (positive and negative: its rows'
    weight) and its running sum R_T from the highest score down to it; ``sums``:
    the segment's expected positive and negative weight P, N and the score's
    largest weight M.  The placements are V10 = (N - fps + neg / 2) / N and
    V01 = (tps - pos / 2) / P, where tps + fps = R_T and pos + neg = T, so

        A = M / P V10 - M / N V01 = M (N - R_T + T / 2) / (P N),
        B = M / P - M / N."""
    (total, running), (p_total, n_total, scale) = totals, sums
    a = (n_total + total / 2 - running) * (scale / (p_total * n_total))
    return a, scale / p_total - scale / n_total


def auc_derivative(slopes: tuple[Any, Any], auc: Any) -> Any:
    """dR / dY_k (times M / w_k) from :func:`auc_slopes`: A - R B.  Var R is the sum of
    p (1 - p) Q (A - R B)^2 over the distinct scores (Q = sum (w / M)^2 of the
    score's rows)."""
    a, b = slopes
    return a - auc * b


def normal_bounds(value: pl.Expr, variance: pl.Expr, z: float, name: str) -> list[pl.Expr]:
    """``<name>_low`` / ``<name>_high``: ``value -+ z sqrt(variance)`` clipped to [0, 1]
    (null where the value is)."""
    se = variance.clip(lower_bound=0.0).sqrt()
    return [
        (value - z * se).clip(0.0, 1.0).alias(f"{name}_low"),
        (value + z * se).clip(0.0, 1.0).alias(f"{name}_high"),
    ]
