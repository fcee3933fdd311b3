"""Average precision of two models on the same rows: the delta method's test.

The rows of a segment are a multinomial sample of its cells (a row's class and
both models' scores); AP(model) - AP(baseline) is a function of the cells'
counts, its gradient written out per model (:func:`_ap_gradient_numpy`), its
variance the multinomial's (:func:`ap_delta_se`).  The cells and the test's
columns are :mod:`pl_metrics._groups.paired`'s.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import polars as pl

from pl_metrics._core.names import ALL
from pl_metrics._groups.paired import COUNT, SE, A, B, Y
from pl_metrics._groups.paired_delong import _GROUP, _SAME, _SS, dense_groups

if TYPE_CHECKING:
    import numpy as np


def _ap_gradient_numpy(
    group: np.ndarray | None, positive: np.ndarray, score: np.ndarray, count: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's partial derivative of its segment's average precision by the rows of
    its class at its score, and the segment of each cell (dense, 0 for one segment).

    With the runs of equal scores of a segment descending, ``pos_r`` / ``neg_r``
    their rows, ``TP_r`` / ``A_r`` the positives / rows down to run ``r`` and ``P``
    the positives, AP = S / P with S = sum_r pos_r TP_r / A_r
    (``formulas.average_precision``'s steps).  Then

    - dS / dpos_q = TP_q / A_q + sum_{r >= q} pos_r (A_r - TP_r) / A_r^2,
    - dS / dneg_q = - sum_{r >= q} pos_r TP_r / A_r^2,
    - dAP / dpos_q = (dS / dpos_q - AP) / P, dAP / dneg_q = (dS / dneg_q) / P,

    the sums over run q and the lower runs of its segment (suffix sums).  AP is
    homogeneous of degree 0 in the counts, so the cells' counts times these sum
    to 0 (Euler): ``tests/test_compare_models.py`` checks both against numerical
    derivatives of scikit-learn's ``average_precision_score`` by sample weight.
    """
    import numpy as np

    n = score.size
    dense = np.zeros(n, dtype=np.int64) if group is None else group.astype(np.int64)
    if not n:
        return np.zeros(0), dense
    order = np.argsort(-score, kind="stable")  # descending; equal scores make one run
    if group is not None:
        order = order[np.argsort(group[order], kind="stable")]
    s, c, is_pos, g = score[order], count[order], positive[order], dense[order]
    opens = np.zeros(n, dtype=bool)  # the cell opens its segment
    opens[0] = True
    np.not_equal(g[1:], g[:-1], out=opens[1:])
    new = opens.copy()  # the cell opens a run of equal scores of its segment
    new[1:] |= s[1:] != s[:-1]
    starts = np.flatnonzero(new)
    pos_c = np.where(is_pos, c, 0)
    pos = np.add.reduceat(pos_c, starts).astype(np.float64)
    rows = np.add.reduceat(c, starts).astype(np.float64)
    run_opens = opens[starts]
    run_segment = np.cumsum(run_opens) - 1  # the segment of each run, 0, 1, ...
    first = np.flatnonzero(run_opens)  # each segment's first run

    def within(x: np.ndarray) -> np.ndarray:
        """Running sums of ``x`` (whole counts: exact) over the runs, restarting at each
        segment."""
        total = np.cumsum(x)
        return total - (total - x)[first][run_segment]

    def from_here(x: np.ndarray) -> np.ndarray:
        """Sums of ``x`` (floats) over each run and the later runs of its segment, summed
        from the segment's last run (a running sum over every segment less its value
        after the segment would carry the other segments' rounding into this one's)."""
        if first.size == 1:
            return np.cumsum(x[::-1])[::-1]
        runs = pl.DataFrame({"s": run_segment, "x": x})
        return runs.select(pl.col("x").cum_sum(reverse=True).over("s"))["x"].to_numpy()

    tp, a = within(pos), within(rows)
    p_total = np.add.reduceat(pos, first)[run_segment]
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = (np.add.reduceat(pos * tp / a, first)[run_segment]) / p_total
        d_pos = (tp / a + from_here(pos * (a - tp) / a**2) - ap) / p_total
        d_neg = -from_here(pos * tp / a**2) / p_total
    run = np.cumsum(new) - 1
    out = np.empty(n, dtype=np.float64)
    out[order] = np.where(is_pos, d_pos[run], d_neg[run])
    return out, dense


#: Two derivatives of a cell within this share of their size are the same (rounding).
_SAME_WITHIN = 1e-12


def _ap_variances_numpy(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` (as ``paired_delong._differences_numpy``'s) with ``_SS``, the delta method's variance
    of AP(model) - AP(baseline) in each cell's segment, and ``_SAME``, whether every
    derivative of the segment is 0.

    Each cell's derivative ``d`` by its rows is the model's less the baseline's
    (:func:`_ap_gradient_numpy`); the variance ``sum x d^2 - (sum x d)^2 / n`` is
    summed over the cells sorted by their values (segment, class, scores), so that
    the same rows in another order (stacked, or in other batches) give the same
    bits."""
    import numpy as np

    positive = df[Y].fill_null(value=False).to_numpy()
    count = df[COUNT].to_numpy()
    group = dense_groups(df)
    scores = [df[s].cast(pl.Float64).to_numpy() for s in (A, B)]
    with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        (a, segment), (b, _) = pool.map(
            lambda s: _ap_gradient_numpy(group, positive, s, count), scores
        )
    d = b - a
    order = np.lexsort((scores[1], scores[0], positive, segment))
    starts = np.flatnonzero(np.r_[True, segment[order][1:] != segment[order][:-1]])
    if not df.height:
        starts = np.zeros(0, dtype=np.int64)
    x, d_sorted = count[order].astype(np.float64), d[order]

    def sums(values: np.ndarray) -> np.ndarray:
        return np.add.reduceat(values, starts) if starts.size else values[:0]

    variance = sums(x * d_sorted * d_sorted) - sums(x * d_sorted) ** 2 / sums(x)
    # equal derivatives found by other sums may differ in the last bits (4e-17 of
    # 0.012: the same AP in every resample, the models' rankings differing only
    # above every negative): within 1e-12 of their size, they are the same
    differs = np.abs(d) > _SAME_WITHIN * (np.abs(a) + np.abs(b))
    same = sums(differs[order].astype(np.int64)) == 0
    of_segment = np.empty(df.height, dtype=np.int64)  # each cell's segment's position
    of_segment[order] = np.cumsum(np.r_[True, np.diff(segment[order]) != 0]) - 1
    return df.with_columns(
        pl.Series(_SS, variance[of_segment], dtype=pl.Float64),
        pl.Series(_SAME, same[of_segment], dtype=pl.Boolean),
    )


def ap_delta_se(cells: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """``*keys, SE``: the delta method's standard error of ``AP(B) - AP(A)`` per segment.

    The segment's rows are a multinomial sample of its cells (a row's class and
    both models' scores); the difference is a function of the cells' counts ``x``
    with gradient ``d`` (:func:`_ap_gradient_numpy` of each model), and its
    variance ``sum x d^2 - (sum x d)^2 / n`` (``Cov(x) = diag(x) - x x' / n``,
    :func:`_ap_variances_numpy`).  SE is 0 where every ``d`` is 0 (the models rank
    the rows alike, or the segment has no negatives: the difference is 0 in
    every resample, statistic 0, p-value 1), else null where P < 2 or N < 2 or
    the variance is 0 (as ``paired_delong.delong_se``).  ``cells`` may repeat a ``(Y, A, B)``.
    """
    keys = list(keys)
    cells = cells.select(*keys, Y, A, B, COUNT)
    if keys != [ALL]:  # the first row of each segment (a window evaluates per group)
        cells = cells.with_row_index(_GROUP).with_columns(pl.col(_GROUP).first().over(keys))
    schema = cells.collect_schema()
    schema[_SS], schema[_SAME] = pl.Float64, pl.Boolean
    cells = cells.map_batches(_ap_variances_numpy, schema=schema)
    c, positive = pl.col(COUNT), pl.col(Y)
    variance, same = pl.col(_SS).first(), pl.col(_SAME).first()
    p_total, n_total = c.filter(positive).sum(), c.filter(~positive).sum()
    defined = (p_total > 0) & (same | ((p_total > 1) & (n_total > 1) & (variance > 0)))
    se = pl.when(same).then(0.0).otherwise(variance.clip(lower_bound=0.0).sqrt())
    return cells.group_by(keys).agg(pl.when(defined).then(se).alias(SE))


__all__ = ["ap_delta_se"]
