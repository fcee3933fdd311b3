"""DeLong's standard error of the difference of two correlated AUCs, from the
placements of the joint cells of :mod:`pl_metrics._groups.paired` (see its
docstring for the test): one vectorised numpy call over all segments
(:func:`_placements_numpy`), or without numpy one polars query
(:func:`_placements`)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from pl_metrics._core.names import ALL, INTERNAL
from pl_metrics._groups.paired import COUNT, SE, A, B, Y

if TYPE_CHECKING:
    import numpy as np

#: Whether DeLong's placements are found in numpy where it is installed (one
#: vectorised call over all segments, :func:`_placements_numpy`); False: always
#: the polars query (:func:`_placements`), the path without numpy.
USE_NUMPY = True
_K, _GROUP = f"{INTERNAL}placement", f"{INTERNAL}group"
_N, _SS, _LO, _HI = (f"{INTERNAL}{c}" for c in ("n", "ss", "lo", "hi"))
_D, _SAME = f"{INTERNAL}d", f"{INTERNAL}same"


def _placements(cells: pl.LazyFrame, segment: list[str], score: str) -> pl.LazyFrame:
    """The cells sorted by ``*segment, score`` (nulls last), with ``_K + score``: each
    cell's placement under ``score`` as an integer, ``2 (negatives below) +
    (negatives tied)`` for a positive, ``2 (positives above) + (positives tied)``
    for a negative (those of its segment; ``segment`` empty: one segment).

    From running sums over the sorted cells, no join: with ``C`` the running total
    of a class's rows (Int64: exact) and ``c`` the cell's own, a run of equal scores
    (or a segment) has ``C - c`` at its first cell: the rows of that class before
    it, and ``C`` at its last cell: those up to its end; forward / backward filled
    over the run (the segment).  Then ``2 below + tied = before the run + end of the
    run - 2 before the segment`` and ``2 above + tied = 2 end of the segment - end
    of the run - before the run``."""
    count, positive = pl.col(COUNT), pl.col(Y)
    row = pl.int_range(pl.len())

    def bound(columns: list[str], step: int) -> pl.Expr:
        """Whether a cell is the first (``step`` 1) / last (-1) of its ``columns``."""
        edge = row == (0 if step == 1 else pl.len() - 1)
        if not columns:
            return edge
        same = pl.all_horizontal(pl.col(c).eq_missing(pl.col(c).shift(step)) for c in columns)
        return edge | ~same

    def filled(at: pl.Expr, value: pl.Expr, strategy: Literal["forward", "backward"]) -> pl.Expr:
        return pl.when(at).then(value).otherwise(None).fill_null(strategy=strategy)

    run = [*segment, score]
    neg = pl.when(positive).then(0).otherwise(count)
    pos = count - neg
    neg_sum, pos_sum = neg.cum_sum(), pos.cum_sum()
    neg_before_run = filled(bound(run, 1), neg_sum - neg, "forward")
    neg_end_run = filled(bound(run, -1), neg_sum, "backward")
    neg_before = filled(bound(segment, 1), neg_sum - neg, "forward")
    pos_before_run = filled(bound(run, 1), pos_sum - pos, "forward")
    pos_end_run = filled(bound(run, -1), pos_sum, "backward")
    pos_end = filled(bound(segment, -1), pos_sum, "backward")
    k10 = neg_before_run + neg_end_run - 2 * neg_before
    k01 = 2 * pos_end - pos_end_run - pos_before_run
    placement = pl.when(positive).then(k10).otherwise(k01)
    return cells.sort(run, nulls_last=True).with_columns(placement.alias(_K + score))


def _placements_numpy(
    group: np.ndarray | None, positive: np.ndarray, score: np.ndarray, count: np.ndarray
) -> np.ndarray:
    """Each cell's placement under ``score`` as :func:`_placements` finds it (the same
    integers), in numpy: the cells sorted by score (then, stably, by ``group``, the
    dense segment numbers; None: one segment), runs of equal scores within a
    segment summed with ``add.reduceat`` (Int64: exact), the running totals over
    the runs less those before the segment, and each cell's value put back in its
    row."""
    import numpy as np

    order = np.argsort(score)  # equal scores in any order: they make one run
    if group is not None:  # radix sort for up to 65,536 segments
        order = order[np.argsort(group[order], kind="stable")]
    n = order.size
    if not n:
        return np.zeros(0, dtype=np.int64)
    # the running counts and placements (at most 2 x the rows counted) in Int32 where
    # they fit: half the memory of Int64 (5M rows: the two models' placements at
    # once held 1.1 GB over the frame)
    small = 2 * int(count.sum()) + 1 < 2**31
    itype = np.int32 if small else np.int64
    s, is_pos = score[order], positive[order]
    opens = np.zeros(n, dtype=bool)  # the cell opens its segment
    opens[0] = True
    if group is not None:
        g = group[order]
        np.not_equal(g[1:], g[:-1], out=opens[1:])
        del g
    new = opens.copy()  # the cell opens a run of equal scores of its segment
    new[1:] |= s[1:] != s[:-1]
    del s
    c = count[order].astype(itype, copy=False)
    neg = np.where(is_pos, 0, c).astype(itype, copy=False)
    pos = c - neg
    del c
    run = None
    if not new.all():  # ties: a run's cells summed (continuous scores: no ties)
        starts = np.flatnonzero(new)
        neg, pos, opens = np.add.reduceat(neg, starts), np.add.reduceat(pos, starts), opens[starts]
        run = np.cumsum(new, dtype=np.int64) - 1
        del starts
    del new
    neg_before = np.cumsum(neg, dtype=itype)
    neg_before -= neg
    pos_to = np.cumsum(pos, dtype=itype)
    if group is None:  # one segment: from its first to its last run
        segment_before: Any = 0
        segment_to = pos_to[-1]
    else:
        segment_before, segment_to = _segment_bounds(opens, neg_before, pos_to)
    k10 = 2 * (neg_before - segment_before) + neg  # 2 (negatives below) + tied
    del neg_before, neg
    k01 = 2 * (segment_to - pos_to) + pos  # 2 (positives above) + tied
    del pos_to, pos
    if run is not None:
        k10, k01 = k10[run], k01[run]
    out = np.empty(n, dtype=itype)
    out[order] = np.where(is_pos, k10, k01)
    return out


def _segment_bounds(opens: np.ndarray, neg_before: np.ndarray, pos_to: np.ndarray) -> tuple:
    """Each run's segment's negatives before it and positives up to its end (``opens``:
    the run opens its segment)."""
    import numpy as np

    runs = np.arange(opens.size, dtype=neg_before.dtype)
    first = np.maximum.accumulate(np.where(opens, runs, 0))
    closes = np.append(opens[1:], True)
    last = np.minimum.accumulate(np.where(closes, runs, opens.size)[::-1])[::-1]
    del runs, closes
    return neg_before[first], pos_to[last]


def dense_groups(df: pl.DataFrame) -> np.ndarray | None:
    """Each cell's segment as 0, 1, ... (in row order) from ``_GROUP``, the first row of
    its segment; None for one segment (no ``_GROUP``) or no cells."""
    import numpy as np

    if _GROUP not in df.columns or not df.height:
        return None
    first = df[_GROUP].to_numpy()
    seen = np.zeros(df.height, dtype=bool)
    seen[first] = True
    return (np.cumsum(seen) - 1)[first]


def _differences_numpy(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` (``Y, A, B, COUNT`` and the first row of each cell's segment, ``_GROUP``,
    when there are segments) with ``_D``, the placement differences
    (:func:`_placements_numpy`): one vectorised call over all the segments."""
    import numpy as np

    positive = df[Y].fill_null(value=False).to_numpy()
    count = df[COUNT].to_numpy()
    group = dense_groups(df)
    if group is not None:  # radix sort for up to 65,536 segments
        group = group.astype(np.uint16 if group.max() < 1 << 16 else np.int64)
    scores = [df[s].cast(pl.Float64).to_numpy() for s in (A, B)]
    # the two models on two threads (numpy's sorts and gathers release the GIL)
    with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        a, b = pool.map(lambda s: _placements_numpy(group, positive, s, count), scores)
    # |b - a| <= 2 x the rows counted: within the placements' dtype
    return df.with_columns(pl.Series(_D, b - a, dtype=pl.Int64))


def delong_se(cells: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """``*keys, SE``: DeLong's standard error of ``AUC(B) - AUC(A)`` per segment.

    A positive's placement (``formulas.placement``) is the share of negatives
    it beats, ties one half; here as the integer ``2 N x placement = 2
    (negatives below) + (negatives tied)`` (and ``2 P x`` for a negative), so
    that a placement difference constant over the positives and over the
    negatives, a variance of exactly 0, is found exactly.  SE is 0 where every
    placement difference is 0 (the two models rank the rows alike: statistic 0,
    p-value 1, as McNemar's and the bootstrap's for the same predictions), null
    where they are another constant (the test is undefined) and where P < 2 or N < 2.

    ``cells`` may repeat a ``(Y, A, B)`` (rows with ``COUNT`` 1 serve): the
    placements come from sorting them once per model (:func:`_placements`), all
    segments in one query.
    """
    keys = list(keys)
    count, positive = pl.col(COUNT), pl.col(Y)
    segment = [] if keys == [ALL] else keys  # ALL: the constant of one segment
    if USE_NUMPY and importlib.util.find_spec("numpy") is not None:
        cells = cells.select(*keys, Y, A, B, COUNT)
        if segment:  # the first row of each segment (a window evaluates per group)
            first = pl.col(_GROUP).first().over(keys)
            cells = cells.with_row_index(_GROUP).with_columns(first)
        schema = cells.collect_schema()
        schema[_D] = pl.Int64
        cells = cells.map_batches(_differences_numpy, schema=schema)
    else:
        cells = cells.select(*keys, Y, A, B, COUNT)
        for score in (A, B):
            cells = _placements(cells, segment, score)
        cells = cells.with_columns((pl.col(_K + B) - pl.col(_K + A)).alias(_D))
    # each class of each segment: its rows, and its placement differences' sum of
    # squared deviations, minimum and maximum (integers: a constant found exactly)
    c, d = count.cast(pl.Float64), pl.col(_D)
    mean = (c * d.cast(pl.Float64)).sum() / c.sum()
    classes = cells.group_by(*keys, Y).agg(
        c.sum().alias(_N),
        (c * (d.cast(pl.Float64) - mean) ** 2).sum().alias(_SS),
        d.min().alias(_LO),
        d.max().alias(_HI),
    )

    def of(rows: pl.Expr, column: str) -> pl.Expr:
        return pl.col(column).filter(rows).first()

    positive = pl.col(Y)
    p_total, n_total = of(positive, _N).fill_null(0.0), of(~positive, _N).fill_null(0.0)

    def variance(rows: pl.Expr, total: pl.Expr, other: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
        """Sample variance of the placements differences ``d / (2 other)`` of ``rows``
        (that of ``d`` over ``(2 other)^2``), and whether they are constant."""
        s = of(rows, _SS) / (total - 1) / (2 * other) ** 2
        return s, (of(rows, _LO) == of(rows, _HI)).fill_null(value=True)

    s10, constant10 = variance(positive, p_total, n_total)
    s01, constant01 = variance(~positive, n_total, p_total)
    se = (s10 / p_total + s01 / n_total).sqrt()
    # every placement alike: the same ranking, se 0
    same = (pl.col(_LO).min() == 0) & (pl.col(_HI).max() == 0)
    defined = (p_total > 1) & (n_total > 1) & (~(constant10 & constant01) | same)
    return classes.group_by(keys).agg(
        pl.when(defined).then(pl.when(same).then(0.0).otherwise(se)).alias(SE)
    )


__all__ = ["USE_NUMPY", "delong_se", "dense_groups"]
