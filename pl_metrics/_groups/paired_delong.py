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
from typing import TYPE_CHECKING, Literal

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
_CLASS_SCHEMA: dict[str, pl.DataType] = {
    _N: pl.Float64(),
    _SS: pl.Float64(),
    _LO: pl.Int64(),
    _HI: pl.Int64(),
}


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


#: The width of the sort keys of :func:`_keyed_order` (tests narrow it, so that
#: distinct scores share a key's prefix and the re-sort of such runs is reached).
_KEY_BITS = 64


def _ordered_bits(score: np.ndarray) -> np.ndarray:
    """The scores' IEEE bits as unsigned integers that order as the scores do (a new
    array; no NaN): a negative's bits flipped, a positive's sign bit set (none
    negative: the bits as they are; -0.0 is 0.0 here, ``scores.as_score``)."""
    import numpy as np

    bits = score.view(np.uint64)
    if not (score < 0).any():
        return bits.copy()
    flip = (bits >> np.uint64(63)) * np.uint64((1 << 63) - 1)
    flip ^= bits
    flip ^= np.uint64(1 << 63)
    return flip


def _keyed_order(
    group: np.ndarray | None, groups: int, score: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(order, new)``: the cells sorted by segment then score (``order``), and whether
    each sorted cell opens a run of equal scores (within its segment: a run may also
    continue across two segments, which the caller opens); None where the key below
    cannot hold them.

    One sort of values, not an argsort per model then per segment (3x faster on 5M
    rows): a uint64 key per cell holds, from the highest bits, its segment, its
    score's order (:func:`_ordered_bits` less their minimum, shifted right as far as
    the bits left need) and its row, which the sorted keys give back.  Where the
    shift merged distinct scores into one prefix (rare: 5M continuous scores, a few
    hundred), those runs are sorted again by score (``lexsort``, over the rows of
    those runs alone); if they hold more than a quarter of the rows, or a score is
    NaN (refused by the data checks), None: the argsort's way.  Whole-array
    temporaries are few (a fresh 40 MB array costs its page faults each call)."""
    import numpy as np

    n = score.size
    low = max(1, (n - 1).bit_length())  # the row under the score's prefix
    group_bits = 0 if group is None else (groups - 1).bit_length()
    room = _KEY_BITS - low - group_bits
    if room < 20 or np.isnan(score).any():
        return None
    key = _ordered_bits(score)
    least, most = key.min(), key.max()
    key -= least
    shift = max(0, int(most - least).bit_length() - room)
    key >>= np.uint64(shift)
    key <<= np.uint64(low)
    rows = np.arange(n, dtype=np.uint64)
    key |= rows
    if group_bits:
        np.copyto(rows, group, casting="unsafe")  # type: ignore[arg-type]  # not negative
        rows <<= np.uint64(low + room)
        key |= rows
    key.sort()
    order = np.bitwise_and(key, np.uint64((1 << low) - 1), out=rows).view(np.int64)
    key >>= np.uint64(low)  # the segment and the score's prefix
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    del key
    if shift and not new.all():  # an equal prefix: the scores themselves decide
        at = np.flatnonzero(~new)
        differ = score[order[at]] != score[order[at - 1]]
        if differ.any():  # distinct scores in one prefix: their runs sorted by score
            run = np.cumsum(new) - 1
            merged = np.zeros(int(run[-1]) + 1, dtype=bool)
            merged[run[at[differ]]] = True
            merged_rows = np.flatnonzero(merged[run])
            if merged_rows.size > n // 4:
                return None
            cells = order[merged_rows]
            order[merged_rows] = cells[np.lexsort((score[cells], run[merged_rows]))]
            new[at] = score[order[at]] != score[order[at - 1]]
    return order, new


def _argsorted(group: np.ndarray | None, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_keyed_order`'s pair by an argsort of the scores, then a stable one of
    their segments (radix for up to 65,536): where the key cannot serve."""
    import numpy as np

    order = np.argsort(score)  # equal scores in any order: they make one run
    if group is not None:
        order = order[np.argsort(group[order], kind="stable")]
    s = score[order]
    new = np.empty(order.size, dtype=bool)
    new[0] = True
    np.not_equal(s[1:], s[:-1], out=new[1:])
    return order, new


def _class_rows(
    is_pos: np.ndarray, count: np.ndarray, order: np.ndarray, itype: type
) -> tuple[np.ndarray, np.ndarray]:
    """The sorted cells' positive and negative rows (a cell per row: the classes as 0 /
    1, no gather)."""
    import numpy as np

    if bool((count == 1).all()):
        return is_pos.view(np.int8), (~is_pos).view(np.int8)
    c = count[order].astype(itype, copy=False)
    neg: np.ndarray = np.where(is_pos, 0, c).astype(itype, copy=False)
    return c - neg, neg


def _placements_numpy(
    group: np.ndarray | None,
    positive: np.ndarray,
    score: np.ndarray,
    count: np.ndarray,
    groups: int | None = None,
) -> np.ndarray:
    """Each cell's placement under ``score`` as :func:`_placements` finds it (the same
    integers), in numpy: the cells sorted by segment then score (``group``: the
    dense segment numbers, ``groups`` of them; None: one segment;
    :func:`_keyed_order`), runs of equal scores within a segment summed with
    ``add.reduceat`` (exact integers), the running totals over the runs less those
    before the segment, and each cell's value put back in its row."""
    import numpy as np

    n = score.size
    if not n:
        return np.zeros(0, dtype=np.int64)
    # the running counts and placements (at most 2 x the rows counted) in Int32 where
    # they fit: half the memory of Int64 (5M rows: the two models' placements at
    # once held 1.1 GB over the frame)
    small = 2 * int(count.sum()) + 1 < 2**31
    itype = np.int32 if small else np.int64
    first = None  # each segment's first sorted cell (then its first run)
    if group is not None:
        sizes = np.bincount(group, minlength=groups or 0)
        groups, first = sizes.size, np.cumsum(sizes) - sizes
    found = _keyed_order(group, groups or 1, score)
    order, new = found or _argsorted(group, score)
    if first is not None:
        new[first] = True  # a segment opens a run
    is_pos = positive[order]
    pos, neg = _class_rows(is_pos, count, order, itype)
    run = None
    if not new.all():  # ties: a run's cells summed (continuous scores: no ties)
        starts = np.flatnonzero(new)
        neg = np.add.reduceat(neg, starts, dtype=itype)
        pos = np.add.reduceat(pos, starts, dtype=itype)
        run = np.cumsum(new, dtype=itype) - 1
        if first is not None:
            first = run[first]
        del starts
    del new
    neg_to, pos_to = np.cumsum(neg, dtype=itype), np.cumsum(pos, dtype=itype)
    k10 = neg_to - neg  # 2 (negatives below) + tied: before the run + to its end
    k10 += neg_to
    k01 = pos_to - pos  # 2 (positives above) + tied: 2 to the segment's end - these
    k01 += pos_to
    if first is None:  # one segment: from its first to its last run
        k01 -= 2 * pos_to[-1]
    else:  # less twice the segment's negatives before it / its positives
        sizes = np.diff(first, append=k10.size)
        k10 -= np.repeat(2 * (neg_to[first] - neg[first]), sizes)
        k01 -= np.repeat(2 * pos_to[first + sizes - 1], sizes)
    np.negative(k01, out=k01)
    del neg_to, pos_to, pos, neg
    if run is not None:
        k10, k01 = k10[run], k01[run]
    out = np.empty(n, dtype=itype)
    out[order] = np.where(is_pos, k10, k01)
    return out


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


def _difference_array(df: pl.DataFrame) -> tuple[np.ndarray, np.ndarray | None]:
    """The placement differences (model less baseline, :func:`_placements_numpy`) of the
    cells of ``df`` (``Y, A, B, COUNT`` and ``_GROUP`` when there are segments), and
    each cell's segment (:func:`dense_groups`): one vectorised call over all the
    segments, the two models on two threads (numpy's sorts and gathers release the
    GIL)."""
    import numpy as np

    positive = df[Y].fill_null(value=False).to_numpy()
    count = df[COUNT].to_numpy()
    group = dense_groups(df)
    groups = None if group is None else int(group.max()) + 1
    small = None
    if group is not None:  # radix sort for up to 65,536 segments (the argsort's way)
        small = group.astype(np.uint16 if groups <= 1 << 16 else np.int64)  # type: ignore[operator]
    scores = [df[s].cast(pl.Float64).to_numpy() for s in (A, B)]
    with ThreadPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        a, b = pool.map(lambda s: _placements_numpy(small, positive, s, count, groups), scores)
    b -= a  # |b - a| <= 2 x the rows counted: within the placements' dtype
    return b, group


def _differences_numpy(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` (``Y, A, B, COUNT`` and the first row of each cell's segment, ``_GROUP``,
    when there are segments) with ``_D``, the placement differences
    (:func:`_difference_array`)."""
    d, _ = _difference_array(df)
    return df.with_columns(pl.Series(_D, d, dtype=pl.Int64))


def _classes_numpy(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """``*keys, Y, _N, _SS, _LO, _HI``: each class of each segment of the cells ``df``
    (as :func:`_differences_numpy`'s), its rows, and its placement differences' sum
    of squared deviations, minimum and maximum, as :func:`delong_se`'s query
    aggregates them, but by ``bincount`` over the cells (a ``group_by`` of 5M
    cells whose aggregation reads each group's mean cost a second there).  A null
    class is a class of its own, as in the ``group_by``."""
    import numpy as np

    if not df.height:
        return (
            df.select(*keys, Y)
            .clear()
            .with_columns(pl.lit(None, dtype).alias(c) for c, dtype in _CLASS_SCHEMA.items())
        )
    d, group = _difference_array(df)
    is_null = df[Y].is_null().to_numpy() if df[Y].null_count() else None
    key = df[Y].fill_null(value=False).to_numpy().astype(np.intp)  # the class: 0, 1
    if is_null is not None:
        key[is_null] = 2
    if group is not None:  # segment x 3 + class
        key += 3 * group
    slots = 3 * (1 if group is None else int(group.max()) + 1)
    count = df[COUNT].to_numpy()
    c = None if bool((count == 1).all()) else count.astype(np.float64)  # None: a cell a row
    cells = np.bincount(key, minlength=slots)
    n = cells.astype(np.float64) if c is None else np.bincount(key, weights=c, minlength=slots)
    present = np.flatnonzero(cells)
    # the mean of the integers d: sums of integers below 2^53, exact
    mean = np.bincount(key, weights=d if c is None else c * d, minlength=slots)
    np.divide(mean, n, out=mean, where=n > 0)
    deviation = mean[key]
    np.subtract(d, deviation, out=deviation)
    deviation *= deviation
    if c is not None:
        deviation *= c
    ss = np.bincount(key, weights=deviation, minlength=slots)
    del deviation
    # in d's own dtype: ufunc.at's fast path (an Int64 target for Int32 values: 10x slower)
    lo = np.full(slots, np.iinfo(d.dtype).max, dtype=d.dtype)
    hi = np.full(slots, np.iinfo(d.dtype).min, dtype=d.dtype)
    np.minimum.at(lo, key, d)
    np.maximum.at(hi, key, d)
    firsts = np.zeros(1, dtype=np.int64)
    if group is not None:  # each segment's first cell, in the order of group
        seen = np.zeros(df.height, dtype=bool)
        seen[df[_GROUP].to_numpy()] = True
        firsts = np.flatnonzero(seen)
    classes = present % 3
    y = pl.Series(Y, classes == 1, dtype=pl.Boolean)
    if is_null is not None:
        y = y.scatter(np.flatnonzero(classes == 2), None)
    return df.select(keys)[firsts[present // 3]].with_columns(
        y,
        pl.Series(_N, n[present]),
        pl.Series(_SS, ss[present]),
        pl.Series(_LO, lo[present].astype(np.int64)),
        pl.Series(_HI, hi[present].astype(np.int64)),
    )


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
        schema = pl.Schema({k: schema[k] for k in keys} | {Y: schema[Y]} | _CLASS_SCHEMA)
        classes = cells.map_batches(lambda df: _classes_numpy(df, keys), schema=schema)
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
