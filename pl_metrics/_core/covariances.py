"""MCC's covariances of float (weighted) class counts, without the cancellation of
their difference form (:func:`pl_metrics._core.formulas.mcc_from_covariances` takes
them): used by the frame methods' ``summary`` and by the ``plm.mcc`` expression."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl


def dominant(x: pl.Expr, total: pl.Expr, over: Sequence[str] | None = None) -> pl.Expr:
    """Whether a class holds more than half of ``total`` (the sum of ``x`` over the
    class rows of a group, or with ``over`` per segment as windows): at most one
    class, the first of the largest.  In exact sums at most one class can; in float
    sums two classes of nearly half each can both compare above a half of the
    rounded total (3/5 computed as 0.6000000000000001 twice, against a total of
    1.2): taking both as dominant left their other classes' sums 0, and the MCC
    0 where it was -0.447.  For :func:`others`; with ``over``, make it a column
    before :func:`others` reads it (a window inside a window's sum is evaluated in
    the wrong groups)."""
    position, first_largest = pl.int_range(x.len()), x.arg_max()
    if over:
        position, first_largest = position.over(over), first_largest.over(over)
    return (x > total / 2) & (position == first_largest)


def others(
    x: pl.Expr, total: pl.Expr, is_dominant: pl.Expr, over: Sequence[str] | None = None
) -> pl.Expr:
    """Each class's sum of the other classes' ``x`` (non-negative; ``total``: their sum
    over the class rows of a group, or with ``over`` a column of each segment's sum,
    the sums below then windows): ``total - x_k``, at least about half the total,
    except for the one class holding more than half (``is_dominant``,
    :func:`dominant`), whose others are summed directly: no difference loses more
    than a bit or two.  For :func:`weighted_mcc_covariances`.  (A window of
    ``x.sum().over()`` inside this one's sum is evaluated in the wrong groups: pass
    the total, and ``is_dominant``, as columns.)"""
    others_of_dominant = pl.when(is_dominant).then(0.0).otherwise(x).sum()
    if over:
        others_of_dominant = others_of_dominant.over(over)
    return pl.when(is_dominant).then(others_of_dominant).otherwise(total - x)


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


__all__ = ["dominant", "others", "weighted_mcc_covariances"]
