"""Confidence intervals from the sufficient statistics, not from the rows.

Bootstrap: a bootstrap sample of a segment's n rows (i.i.d., drawn with
replacement) has confusion counts distributed Multinomial(n, cell counts / n)
over the segment's cells — the (actual, predicted) pairs, or the (score, class)
pairs for the ranking metrics.  So each replicate is one multinomial draw per
segment, made in one of two exact ways, whichever costs less for the segment
(:func:`~pl_metrics._intervals.sampling._draw`): ``n`` rows drawn uniformly and
counted by cell (small segments: a drawn row costs far less than a binomial variate), or numpy's
multinomial, a chain of binomials in C, one per cell given the cells before
it (large segments: the cost is the size of the state, not the number of
rows).  The replicates' draws are reduced in numpy to their metrics
(:mod:`pl_metrics._intervals.replicates`) and then to their interval: no
frame with a row per replicate is built, and polars only sees the state and
the interval rows.  Intervals are the percentile interval of the replicates
(linear interpolation, as ``np.percentile``); replicates where a metric is
undefined (NaN) are skipped.

Segments are drawn and reduced a chunk at a time (:func:`redraw`): the
segments of a chunk lie side by side in one array of cells (replicate x cell),
so that counting, the metrics and the percentiles are a few numpy calls for
the whole chunk, segments with as many classes stacked (replicate x segment x
class); only the generator and the draw itself are made segment by segment.
10,000 small segments then cost about what a few large ones of the same total
size do.

Determinism: each segment draws from its own generator, seeded by ``seed`` and
a stable hash of the segment's key, over its cells in sorted order; the way
it is drawn (rows or binomials, blocks of replicates) depends on its own size
only.  A segment too large for one block of replicates draws its block j from
the generator of (``seed``, key, j) (:func:`segment_draws`): its blocks are
drawn and reduced on the threads in any order (:meth:`Blocks.map`), its rows
range by range (:class:`~pl_metrics._intervals.sampling._Ranges`).  The same seed
gives the same interval (with
the same pl_metrics and numpy versions) whatever the row order, the number of threads (chunks are
drawn in parallel) or the other segments in the frame (which chunk a segment
shares changes nothing: every reduction is per segment).  Segments are
resampled separately (stratified by segment).

Analytic intervals: Wilson's score interval for the metrics that are
proportions of counts; DeLong's variance for ROC AUC (its structural
components computed from the per-score counts, ties counted one half).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics._core import checks, names
from pl_metrics._core.catalogue import CATALOGUE, Ranked, names_of
from pl_metrics._core.names import NEG, ORD, POS, SCORE
from pl_metrics._intervals import replicates
from pl_metrics._intervals.sampling import (  # the drawing (re-exported: its callers')
    Blocks,
    Fold,
    Seed,
    _segments,
    draw_segment,
    entropy_of,
    generator,
    redraw,
    segment_draws,
)

if TYPE_CHECKING:
    import numpy as np


#: Columns of the confusion cells handed to :func:`label_intervals`.
A_ORD = f"{checks.INTERNAL}a_ord"
P_ORD = f"{checks.INTERNAL}p_ord"
N_LABELS = f"{checks.INTERNAL}n_labels"
#: Position of an interval row's average in ``AVERAGES`` (-1: not an average row).
AVG = f"{checks.INTERNAL}avg"


def _frame(
    df: pl.DataFrame,
    keys: Sequence[str],
    starts: np.ndarray,
    segment: np.ndarray,
    columns: dict[str, np.ndarray],
) -> pl.DataFrame:
    """``*keys, *columns``: the key of each output row's segment (its first row)."""
    out = df.select(keys)[starts[segment]]
    return out.with_columns(pl.Series(name, values) for name, values in columns.items())


def _starts(df: pl.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """The first row of each segment of ``df`` (sorted by ``keys``) and ``df.height``,
    and the segments' keys."""
    import numpy as np

    segments = _segments(df, keys)
    starts = np.array([a for a, _, _ in segments] + [df.height], dtype=np.int64)
    return starts, [key for *_, key in segments]


@dataclass(frozen=True)
class Chunk:
    """A chunk of segments side by side, as :func:`per_chunk` hands it to a reduction:
    its ``cells`` (rows of the frame), each cell's ``segment`` (0, 1, ... within
    the chunk) and each segment's first cell, then the number of cells
    (``starts``)."""

    cells: pl.DataFrame
    segment: np.ndarray
    starts: np.ndarray

    @property
    def size(self) -> int:
        """The chunk's number of segments."""
        return len(self.starts) - 1

    def first(self, column: str) -> np.ndarray:
        """``column``'s value in each segment's first cell (a per-segment constant)."""
        return self.cells[column].to_numpy()[self.starts[:-1]]


#: ``reduce(chunk, blocks)`` -> ``(segment of each output row, within the chunk;
#: output columns)``.
Reduce = Callable[[Chunk, Blocks], tuple["np.ndarray", dict[str, "np.ndarray"]]]


def per_chunk(
    df: pl.DataFrame,
    keys: Sequence[str],
    counts: np.ndarray,
    reduce: Reduce,
    *,
    n_boot: int,
    seed: Seed,
    threads: int,
) -> pl.DataFrame:
    """Redraw every segment of ``df`` (sorted by ``keys`` then its cells, whose counts
    are ``counts``) and reduce the draws a chunk of segments at a time:
    ``reduce(chunk, blocks)`` turns a chunk's blocks of draws (replicate x the
    chunk's cells) into its output rows, with numpy calls over the whole chunk (no
    loop over its segments).  The draws are :func:`redraw`'s.  Returns ``*keys``
    and the columns.
    """
    import numpy as np

    starts, segment_keys = _starts(df, keys)
    segment_of = np.repeat(np.arange(len(segment_keys)), np.diff(starts))

    def work(lo: int, hi: int, blocks: Blocks) -> tuple[np.ndarray, dict]:
        a, b = int(starts[lo]), int(starts[hi])
        chunk = Chunk(df[a:b], segment_of[a:b] - lo, starts[lo : hi + 1] - a)
        segment, columns = reduce(chunk, blocks)
        return segment + lo, columns

    segment, columns = redraw(
        counts, starts, segment_keys, work, n_boot=n_boot, seed=seed, threads=threads
    )
    return _frame(df, keys, starts, segment, columns)


def replicate_rows(chunk: Chunk, n_boot: int) -> np.ndarray:
    """The rows of a chunk's block of draws (replicate x cell, raveled) ordered by
    segment, then replicate, then cell: row ``i`` is the block's entry
    ``order[i]``, of replicate ``order[i] // cells`` and cell ``order[i] % cells``."""
    import numpy as np

    seg = chunk.segment
    first, length = chunk.starts[:-1][seg], np.diff(chunk.starts)[seg]
    cell = np.arange(len(seg)) - first  # the cell's place in its segment
    replicate = np.arange(n_boot)[:, None]
    position = n_boot * first[None, :] + replicate * length[None, :] + cell[None, :]
    order = np.empty(position.size, dtype=np.int64)
    order[position.ravel()] = np.arange(position.size)
    return order


# --------------------------------------------------------------------------- reductions
#: A block of at least this many cells gathers its columns with ``np.take``: a third
#: of fancy indexing's time on 4 x 1,000,000 cells, where fancy indexing is faster on
#: blocks that stay in the cache.
_TAKE_CELLS = 1 << 20


def take_columns(block: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``block[:, index]``, by whichever gather is faster for the block's size."""
    import numpy as np

    return np.take(block, index, axis=1) if block.size >= _TAKE_CELLS else block[:, index]


#: :func:`grouper` and :func:`in_cache` take a block this many cells (a few
#: replicates) at a time: their copies stay in the cache.
_GROUP_CELLS = 1 << 16


def _rows_in_cache(block: np.ndarray) -> int:
    """How many rows (replicates) of ``block`` make :data:`_GROUP_CELLS` cells (one
    at least)."""
    return max(1, _GROUP_CELLS // max(block.shape[1], 1))


def in_cache(fn: Callable[[np.ndarray], Any], block: np.ndarray) -> list[Any]:
    """``fn`` of a block's rows (replicates) a few at a time, :data:`_GROUP_CELLS` cells
    a call: a reduction making several passes over a chunk's block keeps its
    temporaries in the cache.  The results of each group of rows, in order."""
    step = _rows_in_cache(block)
    return [fn(block[lo : lo + step]) for lo in range(0, block.shape[0], step)]


def defined(
    values: np.ndarray, blocks: Blocks, rows: np.ndarray | Callable[[], np.ndarray]
) -> np.ndarray:
    """A chunk's replicate ``values`` (replicate x segment x ...) as they are where every
    replicate has each segment's rows (the multinomial: ``blocks.fixed_total``),
    else NaN where a Poisson replicate has none (``rows``: replicate x segment, or
    what computes them, called only then; ``replicates.undefined_without_rows``)."""
    if blocks.fixed_total:
        return values
    return replicates.undefined_without_rows(values, rows() if callable(rows) else rows)


def grouper(group: np.ndarray, k: int) -> Callable[[np.ndarray], np.ndarray]:
    """``sums(block)``: the sums of a block's columns (cells) by ``group`` (in
    ``0..k-1``; -1: left out), as a ``(rows, k)`` array; no dense indicator matrix."""
    import numpy as np

    order = np.argsort(group, kind="stable")
    sorted_group = group[order]
    starts = np.flatnonzero(np.r_[True, sorted_group[1:] != sorted_group[:-1]])
    targets = sorted_group[starts]
    kept = targets >= 0

    in_order = bool((order == np.arange(len(order))).all())  # no copy of the block

    def sums(block: np.ndarray) -> np.ndarray:
        out = np.zeros((block.shape[0], k), dtype=block.dtype)
        if not len(order):
            return out
        # a few replicates at a time: the gathered copy and its sums stay in the cache
        step = _rows_in_cache(block)
        for lo in range(0, block.shape[0], step):
            part = block[lo : lo + step]
            cells = part if in_order else take_columns(part, order)
            out[lo : lo + step, targets[kept]] = np.add.reduceat(cells, starts, axis=1)[:, kept]
        return out

    return sums


def class_counter(
    a: np.ndarray,
    p: np.ndarray,
    first: np.ndarray,
    segment: np.ndarray,
    n_slots: int,
    *,
    restrict: bool,
    fixed_total: bool,
) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """``count(block)``: ``tp, support, predicted`` (replicate x class slot) and ``n``
    (replicate x segment) of a block of draws of segments side by side.

    Cell ``j`` belongs to ``segment[j]`` (0, 1, ... in order), whose classes
    have the slots ``first[j] + 0 .. first[j] + k - 1`` (of ``n_slots``); ``a`` / ``p`` are the
    positions of its actual / predicted label in its segment's class list (-1
    outside ``labels=``).  ``restrict`` drops the cells outside ``labels=`` (as
    ``confusion_matrix``); otherwise they still count in ``n`` (as
    ``precision_recall_fscore_support``).  ``fixed_total``: the blocks'
    (:class:`~pl_metrics._intervals.sampling.Blocks`): whether every replicate has
    each segment's rows, so that ``n`` is read off the first replicate.
    """
    import numpy as np

    kept = (a >= 0) & (p >= 0) if restrict else np.ones(len(a), dtype=bool)
    support = grouper(np.where(kept & (a >= 0), first + a, -1), n_slots)
    predicted = grouper(np.where(kept & (p >= 0), first + p, -1), n_slots)
    n_segments = int(segment[-1]) + 1 if len(segment) else 0
    rows = grouper(np.where(kept, segment, -1), n_segments)
    diagonal = np.flatnonzero((a == p) & (a >= 0))  # one cell per class at most
    slots = first[diagonal] + a[diagonal]

    # every cell kept: each replicate has its segment's rows (a multinomial's total;
    # a Poisson replicate's vary)
    every_cell = fixed_total and (not restrict or bool(kept.all()))

    def count(draws: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        tp = np.zeros((draws.shape[0], n_slots), dtype=draws.dtype)
        tp[:, slots] = draws[:, diagonal]
        if every_cell:
            n = np.broadcast_to(rows(draws[:1]), (len(draws), n_segments))
        else:
            n = rows(draws)
        return tp, support(draws), predicted(draws), n

    return count


def square_counter(
    a: np.ndarray, p: np.ndarray, size: int, segments: int, *, fixed_total: bool
) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] | None:
    """:func:`class_counter`'s ``count`` for a chunk of ``segments`` segments of ``size``
    classes whose cells are every (actual, predicted) pair of their classes, in
    order (``a`` / ``p``: 0, 0; 0, 1; ...; segment after segment), else None.

    The block of draws is then a (replicate, segment, actual, predicted) array: the
    counts are its diagonal and its sums over each axis, with no copy of the block
    and no grouping (``size`` additions of strided views: for a few classes, a
    fifth of :func:`grouper`'s cost).  ``tp, support, predicted`` are (replicate x
    segment x class), ``n`` (replicate x segment); every cell is in ``labels=``, so
    ``n`` is each segment's rows in every replicate (a multinomial's total; with
    ``fixed_total`` False, a Poisson replicate's own rows).
    """
    import numpy as np

    grid = np.arange(size * size)
    square = len(a) == segments * size * size and bool(
        (a == np.tile(grid // size, segments)).all() and (p == np.tile(grid % size, segments)).all()
    )
    if not square:
        return None

    def count(draws: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        d = draws.reshape(len(draws), segments, size, size)
        tp = d.reshape(len(draws), segments, size * size)[..., :: size + 1]
        support, predicted = d[..., 0].copy(), d[..., 0, :].copy()
        for j in range(1, size):
            support += d[..., j]
            predicted += d[..., j, :]
        if fixed_total:
            n = np.broadcast_to(support[:1].sum(axis=-1), (len(draws), segments))
        else:
            n = support.sum(axis=-1)
        return tp, support, predicted, n

    return count


#: The metrics of each confusion frame that get a bootstrap interval ("f" is F-beta).
LABEL_METRICS = {
    "per_class": names.PER_CLASS,
    "averages": replicates.SCORES,
    "report": replicates.SCORES,
    "summary": names_of("summary"),  # the catalogue's summary family
}


def _label_values(
    kind: str,
    counts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    *,
    beta: float,
    zero_division: float,
) -> tuple[np.ndarray, np.ndarray, list[dict[str, np.ndarray]]]:
    """``ORD``, ``AVG`` of the rows of a segment of frame ``kind`` and each metric's
    replicates (replicate x segment x row), from the counts (replicate x segment x
    class; ``n``: replicate x segment) of segments with as many classes.  The
    replicates come in parts (the class rows, the average rows), whose rows follow
    each other in ``ORD`` / ``AVG`` order: their percentiles are taken part by part
    (joining them first would copy every replicate).

    Rows: a row per class (``ORD`` its position, ``AVG`` -1) for per_class and
    report, a row per average (``ORD`` -1, ``AVG`` its position in ``AVERAGES``)
    for averages and report, one row (both -1) for summary.
    """
    import numpy as np

    tp, support, predicted, n = counts
    k = tp.shape[-1]
    metrics = LABEL_METRICS[kind]
    opts = {"beta": beta, "zero_division": zero_division}
    parts = []  # (ORD, AVG, {metric: replicate x segment x row})
    if kind == "summary":
        one_row = {m: x[..., None] for m, x in replicates.summary(tp, support, predicted).items()}
        parts.append(([-1], [-1], one_row))
    per_class = None  # the per-class scores, reused by the averages
    if kind in ("per_class", "report"):
        specificity = "specificity" in metrics
        per_class = replicates.per_class(tp, support, predicted, n, **opts, specificity=specificity)
        parts.append((list(range(k)), [-1] * k, per_class))
    if kind in ("averages", "report"):
        by_average = replicates.averages(
            tp, support, predicted, **opts, per_class_scores=per_class, n=n
        )
        values = {
            m: np.stack([by_average[a][m] for a in replicates.AVERAGES], axis=-1) for m in metrics
        }
        parts.append(
            ([-1] * len(replicates.AVERAGES), list(range(len(replicates.AVERAGES))), values)
        )
    ords = np.concatenate([o for o, _, _ in parts]).astype(np.int64)
    avgs = np.concatenate([a for _, a, _ in parts]).astype(np.int64)
    return ords, avgs, [v for *_, v in parts]


def label_intervals(
    df: pl.DataFrame,
    keys: Sequence[str],
    kind: str,
    *,
    beta: float,
    zero_division: float,
    ci: float,
    f_column: str,
    n_boot: int,
    seed: Seed,
    threads: int,
    metrics: Sequence[str] | None = None,
) -> pl.DataFrame:
    """``*keys, ORD, AVG, <metric>_low, <metric>_high``: the bootstrap intervals of frame
    ``kind`` (``metrics``, by default ``LABEL_METRICS[kind]``; the F-beta ones named
    after ``f_column``).

    ``df``: the confusion cells ``*keys, ..., COUNT``, sorted by ``keys`` then
    their labels, with ``A_ORD`` / ``P_ORD`` (class positions, -1 outside
    ``labels=``) and ``N_LABELS``.  A chunk's segments are counted at once
    (:func:`class_counter`), and those with as many classes reduced together
    (:func:`_label_values`), rows as in :func:`_label_values`.
    """
    import numpy as np

    from pl_metrics._core.names import COUNT

    metrics = LABEL_METRICS[kind] if metrics is None else metrics
    names_ = [f_column if m == "f" else m for m in metrics]
    starts, segment_keys = _starts(df, keys)
    a_all, p_all = df[A_ORD].to_numpy(), df[P_ORD].to_numpy()
    classes = df[N_LABELS].to_numpy()[starts[:-1]].astype(np.int64)
    segment_of = np.repeat(np.arange(len(segment_keys)), np.diff(starts))
    opts = {"beta": beta, "zero_division": zero_division}

    def work(lo: int, hi: int, blocks: Blocks) -> tuple[np.ndarray, dict]:
        cells = slice(int(starts[lo]), int(starts[hi]))
        k = classes[lo:hi]
        first = np.cumsum(k) - k  # each segment's first class slot
        segment = segment_of[cells] - lo
        a, p = a_all[cells], p_all[cells]
        fixed = blocks.fixed_total
        count = None
        if (k == k[0]).all():
            count = square_counter(a, p, int(k[0]), hi - lo, fixed_total=fixed)
        if count is None:
            restrict = kind == "summary"
            count = class_counter(
                a, p, first[segment], segment, int(k.sum()), restrict=restrict, fixed_total=fixed
            )
        tp, support, predicted, n = (
            np.concatenate(x) for x in zip(*blocks.map(count), strict=True)
        )
        rows: list[np.ndarray] = []
        columns: dict[str, list[np.ndarray]] = {ORD: [], AVG: []}
        for size in np.unique(k):
            members = np.flatnonzero(k == size)
            if len(members) == hi - lo:  # one size: the slots are segment x class already
                shape = (tp.shape[0], len(members), int(size))
                chunk_counts = (
                    tp.reshape(shape),
                    support.reshape(shape),
                    predicted.reshape(shape),
                    n,
                )
            else:
                at = first[members][:, None] + np.arange(size)  # segment x class
                chunk_counts = (tp[:, at], support[:, at], predicted[:, at], n[:, members])
            ords, avgs, parts = _label_values(kind, chunk_counts, **opts)
            # a Poisson replicate without rows: undefined, skipped
            parts = [{m: defined(x, blocks, chunk_counts[3]) for m, x in p.items()} for p in parts]
            rows.append(np.repeat(lo + members, len(ords)))
            columns[ORD].append(np.tile(ords, len(members)))
            columns[AVG].append(np.tile(avgs, len(members)))
            for m, name in zip(metrics, names_, strict=True):
                bounds = [
                    replicates.percentiles(values[m], ci) for values in parts
                ]  # segment x row
                low, high = (np.concatenate(b, axis=-1) for b in zip(*bounds, strict=True))
                columns.setdefault(f"{name}_low", []).append(low.ravel())
                columns.setdefault(f"{name}_high", []).append(high.ravel())
        return np.concatenate(rows), {c: np.concatenate(v) for c, v in columns.items()}

    segment, columns = redraw(
        df[COUNT].to_numpy(),
        starts,
        segment_keys,
        work,
        n_boot=n_boot,
        seed=seed,
        threads=threads,
    )
    return _frame(df, keys, starts, segment, columns)


#: Each statistic of ranked scores (``catalogue.Ranked``) of a block of redrawn
#: per-score counts, whether runs of positive-only scores may merge for it (see
#: :func:`merge_runs`), and its fold as a large segment's replicates are drawn
#: (``sampling._Ranges.fold``): 1,000 replicates of 1M rows on two threads, the AUC
#: about 12% faster, the AP about 40% (docs/benchmarks.md).
_BY_STATISTIC: dict[Ranked, tuple[Callable[..., np.ndarray], bool, Callable[[int], Fold]]] = {
    Ranked.AUC: (replicates.roc_auc, True, replicates.AucFold),
    Ranked.AP: (replicates.average_precision, False, replicates.ApFold),
}
#: The ranking metrics of the catalogue computed (not derived) by those statistics.
_RANKED = {
    name: _BY_STATISTIC[m.ranked]
    for name, m in CATALOGUE.items()
    if m.derived is None and m.ranked in _BY_STATISTIC
}
SCORE_METRICS: dict[str, tuple[Callable[..., np.ndarray], bool]] = {
    name: (compute, merge) for name, (compute, merge, _) in _RANKED.items()
}
SCORE_FOLDS: dict[str, Callable[[int], Fold]] = {
    name: fold for name, (_, _, fold) in _RANKED.items()
}


def merge_runs(
    pos: np.ndarray, neg: np.ndarray, *, positive_runs: bool, starts: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge adjacent scores (descending) that hold a single class: fewer cells to draw.

    Exact for the metric of every replicate, as a merged cell's redrawn count is
    the sum of its cells' (a multinomial's cells add up).  Negative-only scores
    in a row all see the same positives above them, and add nothing to AP's
    sum: they merge for AUC and AP.  Positive-only scores in a row only matter to
    AUC through their total: with ``positive_runs`` (AUC) they merge too.
    Segments side by side (``starts``: their first rows) never merge across.
    Returns the merged ``pos``, ``neg`` and the first merged cell of each segment.
    """
    import numpy as np

    kind = np.where(pos == 0, 2, np.where((neg == 0) & positive_runs, 1, 0))
    start = np.ones(len(kind), dtype=bool)
    start[1:] = (kind[1:] != kind[:-1]) | (kind[1:] == 0)
    segments = np.zeros(1, dtype=np.int64) if starts is None else starts
    start[segments[segments < len(kind)]] = True
    first = np.flatnonzero(start)
    return (
        np.add.reduceat(pos, first),
        np.add.reduceat(neg, first),
        np.searchsorted(first, segments),
    )


def sorted_by_score(df: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """The per-score counts ``df`` by ``keys``, then score descending (nulls last): one
    sort by score, then a stable one by the keys (a sort by both at once encodes
    every row's keys and score: several times slower)."""
    return df.sort(SCORE, descending=True, nulls_last=True).sort(
        keys, maintain_order=True, nulls_last=True
    )


def score_intervals(
    state: pl.LazyFrame,
    keys: Sequence[str],
    metric: str,
    *,
    ci: float,
    n_boot: int,
    seed: Seed,
) -> pl.LazyFrame:
    """``*keys, <metric>_low, <metric>_high``: bootstrap interval of a ranking metric.

    ``state`` is the per-score counts ``*keys, score, pos, neg``; a replicate is a
    multinomial redraw of its ``(score, positive)`` and ``(score, negative)`` cells
    (after :func:`merge_runs`), each run's positive cell then its negative one.
    """
    schema = state.collect_schema()
    columns = names.interval_columns([metric])
    out_schema = pl.Schema({k: schema[k] for k in keys} | dict.fromkeys(columns, pl.Float64))
    compute, positive_runs = SCORE_METRICS[metric]
    threads = pl.thread_pool_size()

    def draw(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np

        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        df = sorted_by_score(df, keys)
        starts, segment_keys = _starts(df, keys)
        pos, neg, levels = merge_runs(
            df[POS].to_numpy(), df[NEG].to_numpy(), positive_runs=positive_runs, starts=starts
        )
        # run j's positive cell at 2 j, its negative one at 2 j + 1, drawn in pairs: a
        # chunk's block holds its runs' positives in its first half, their negatives
        # in its second, each read as a contiguous array
        counts = np.empty(2 * len(pos), dtype=np.int64)
        counts[0::2], counts[1::2] = pos, neg

        def work(lo: int, hi: int, blocks: Blocks) -> tuple[np.ndarray, dict]:
            segment_starts = levels[lo:hi] - levels[lo]

            def reduced(block: np.ndarray) -> np.ndarray:
                if blocks.folded:  # the replicates' metric already
                    return block
                half = block.shape[1] // 2
                values = compute(block[:, :half], block[:, half:], segment_starts)
                # each segment's rows: a Poisson replicate without any is undefined
                return defined(
                    values,
                    blocks,
                    lambda: np.add.reduceat(block[:, :half] + block[:, half:], segment_starts, 1),
                )

            values = np.concatenate(blocks.map(reduced))
            low, high = replicates.percentiles(values, ci)  # segment
            return np.arange(lo, hi), dict(zip(columns, (low, high), strict=True))

        segment, bounds = redraw(
            counts,
            2 * levels,
            segment_keys,
            work,
            n_boot=n_boot,
            seed=seed,
            threads=threads,
            pairs=True,
            fold=SCORE_FOLDS[metric],
        )
        out = _frame(df, keys, starts, segment, bounds)
        return out.select(list(out_schema)).cast(dict(out_schema))

    return state.map_batches(draw, schema=out_schema).with_columns(pl.col(columns).fill_nan(None))


def score_counts_of_block(
    positive: np.ndarray, score: np.ndarray, segment: np.ndarray | None = None
) -> tuple[Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """``(counts, starts)``: ``counts(block)`` turns a block of redrawn cells (replicate
    x cell) into one model's per-score positives and negatives, each segment's
    distinct scores descending, segments side by side (``segment``: each cell's,
    0, 1, ... in order; None: one); ``starts``: each segment's first score.
    Where every cell has its own score in its segment (continuous scores) that is
    one gather of the block in that order, split by class; else sums by score
    (:func:`grouper`)."""
    import numpy as np

    seg = np.zeros(len(score), dtype=np.int64) if segment is None else segment
    order = np.lexsort((-score, seg))  # by segment, then score descending
    s_seg, s_score = seg[order], score[order]
    new_segment = np.r_[True, s_seg[1:] != s_seg[:-1]]
    new = new_segment | np.r_[True, s_score[1:] != s_score[:-1]]
    rank = np.cumsum(new) - 1  # each sorted cell's score position
    starts = rank[new_segment]
    if bool(new.all()):  # a permutation: nothing to sum
        is_positive = positive[order]

        def gathered(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            cells = take_columns(block, order)
            pos = np.where(is_positive, cells, 0)
            return pos, cells - pos

        return gathered, starts
    k = int(rank[-1]) + 1
    position = np.empty(len(score), dtype=np.int64)
    position[order] = rank
    # one grouping for both classes: score j's positives at 2 j, negatives at 2 j + 1
    sums = grouper(2 * position + ~positive.astype(bool), 2 * k)

    def summed(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        both = sums(block)
        return both[:, 0::2], both[:, 1::2]

    return summed, starts


__all__ = [
    "AVG",
    "A_ORD",
    "LABEL_METRICS",
    "N_LABELS",
    "P_ORD",
    "SCORE_METRICS",
    "Blocks",
    "Chunk",
    "Reduce",
    "Seed",
    "class_counter",
    "defined",
    "draw_segment",
    "entropy_of",
    "generator",
    "grouper",
    "in_cache",
    "label_intervals",
    "merge_runs",
    "per_chunk",
    "redraw",
    "replicate_rows",
    "score_counts_of_block",
    "score_intervals",
    "segment_draws",
    "sorted_by_score",
    "square_counter",
    "take_columns",
]
