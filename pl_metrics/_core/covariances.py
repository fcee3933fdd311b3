"""MCC's covariances of float (weighted) class counts, without the cancellation of
their difference form (:func:`pl_metrics._core.formulas.mcc_from_covariances` takes
them): used by the frame methods' ``summary`` and by the ``plm.mcc`` expression."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl


def others(x: pl.Expr, total: pl.Expr, over: Sequence[str] | None = None) -> pl.Expr:
    """Each class's sum of the other classes' ``x`` (non-negative; ``total``: their sum
    over the class rows of a group, or with ``over`` a column of each segment's sum,
    the sums below then windows): ``total - x_k``, at least half the total, except
    for a class holding more than half (at most one), whose others are summed
    directly: no difference loses more than a bit or two.  For
    :func:`weighted_mcc_covariances`.  (A window of ``x.sum().over()`` inside this
    one's sum is evaluated in the wrong groups: pass the total as a column.)"""
    dominant = x > total / 2
    others_of_dominant = pl.when(dominant).then(0.0).otherwise(x).sum()
    if over:
        others_of_dominant = others_of_dominant.over(over)
    return pl.when(dominant).then(others_of_dominant).otherwise(total - x)


def weighted_mcc_covariances(  # noqa: PLR0917 - the class counts, then their others'
    t: pl.Expr, p: pl.Expr, tp: pl.Expr, miss: pl.Expr, t_others: pl.Expr, p_others: pl.Expr
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """MCC's covariances times n^2 (``formulas.mcc_from_covariances``) of float (weighted)
    class counts, as aggregations over a group's class rows: ``t`` actual, ``p``
    predicted, ``tp`` correct weight of each class, ``miss`` its actual weight
    predicted as another class (summed over those cells, not ``t - tp``), and the
    other classes' ``t`` and ``p`` (:func:`others`).

    ``n^2 - sum p_k^2`` is ``sum_k p_k P_k'`` and ``n^2 - sum t_k^2`` is
    ``sum_k t_k T_k'``; ``c n - sum t_k p_k`` is ``sum_k (P_k' tp_k - p_k miss_k)``
    (n = p_k + P_k', t_k = tp_k + miss_k).  The differences of nearly equal
    products that these replace kept only the digits that a class holding most of
    the weight has beyond the others (an MCC 2% off, and changing with the order
    of summation, with one weight of 1e15 among weights of 1; scikit-learn's
    differences are off too).  With a perfect prediction the three sums are the
    same products: the MCC is 1.
    """
    t, p, tp, miss = (c.cast(pl.Float64) for c in (t, p, tp, miss))
    cov_tp = (p_others * tp).sum() - (p * miss).sum()
    return cov_tp, (p * p_others).sum(), (t * t_others).sum()


__all__ = ["others", "weighted_mcc_covariances"]
