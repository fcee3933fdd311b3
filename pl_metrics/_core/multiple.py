"""Adjusted p-values for many comparisons at once (one home for every method).

When many segments (or many model pairs) are tested, some p-values are small by
chance.  ``adjust=`` corrects them within each family of tests:

- ``"bonferroni"``: ``min(1, m p)``; controls the family-wise error rate (the
  chance of at least one false positive) under any dependence.
- ``"holm"``: Holm's step-down version of Bonferroni; the same guarantee,
  never less powerful.
- ``"bh"``: Benjamini-Hochberg; controls the false discovery rate (the expected
  share of false positives among the rejections) when the tests are
  independent or positively dependent.  Segments are resampled separately,
  but ``compare`` tests each against the overall value they share: their tests
  are weakly dependent (two segments' differences are fully so).
- ``"by"``: Benjamini-Yekutieli; the false discovery rate under any dependence.

``m`` is the number of non-null p-values in the family; a null p-value (an
undefined test) stays null and does not count.  The values equal
``statsmodels.stats.multitest.multipletests``'s (tested).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pl_metrics._core.names import INTERNAL

_RANK = f"{INTERNAL}p_rank"
_M = f"{INTERNAL}p_m"


def adjusted(
    lf: pl.LazyFrame, p: str, out: str, family: Sequence[str], adjust: str | None
) -> pl.LazyFrame:
    """``lf`` with ``out``: the p-values of column ``p`` adjusted within each ``family``.

    ``adjust=None`` copies ``p``.  Row order is not kept (sort afterwards).  ``adjust``
    is checked by the calling method (``options.checked``).
    """
    if adjust is None:
        return lf.with_columns(pl.col(p).alias(out))
    part = list(family)
    over = (lambda e: e.over(part)) if part else (lambda e: e)
    lf = lf.sort([*part, p], nulls_last=True).with_columns(
        over(pl.col(p).is_not_null().cum_sum()).alias(_RANK),
        over(pl.col(p).count()).alias(_M),
    )
    p_, r, m = pl.col(p), pl.col(_RANK).cast(pl.Float64), pl.col(_M).cast(pl.Float64)
    if adjust == "bonferroni":
        value = p_ * m
    elif adjust == "holm":
        value = over(((m - r + 1.0) * p_).cum_max())
    else:
        scale = m
        if adjust == "by":
            scale = m * over(pl.when(p_.is_not_null()).then(1.0 / r).sum())
        raw = scale / r * p_
        value = over(raw.reverse().cum_min().reverse())
    return lf.with_columns(
        pl.when(p_.is_null()).then(None).otherwise(pl.min_horizontal(value, 1.0)).alias(out)
    ).drop(_RANK, _M)


__all__ = ["adjusted"]
