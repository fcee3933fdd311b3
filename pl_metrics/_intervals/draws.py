"""Confidence intervals from the sufficient statistics, not from the rows.

Bootstrap: a bootstrap sample of a segment's n rows (i.i.d., drawn with
replacement) has confusion counts distributed Multinomial(n, cell counts / n)
over the segment's cells — the (actual, predicted) pairs, or the (score, class)
pairs for the ranking metrics.  So each replicate is one multinomial draw per
segment: its cost is the size of the state, not the number of rows.  Each
segment's draws (a block of replicates at a time) are reduced in numpy to the
replicates' metrics (:mod:`pl_metrics._replicates`) and then to their interval:
no frame with a row per replicate is built, and polars only sees the state and
the interval rows.  Intervals are the percentile interval of the replicates
(linear interpolation, as ``np.percentile``); replicates where a metric is
undefined (NaN) are skipped.

Determinism: each segment draws from its own generator, seeded by ``seed`` and
a stable hash of the segment's key, over its cells in sorted order.  The same
seed gives the same interval (with the same pl_metrics and numpy versions)
whatever the row order, the number of threads (segments are drawn in
parallel) or the other segments in the frame.  Segments are resampled
separately (stratified by segment).

Analytic intervals: Wilson's score interval for the metrics that are
proportions of counts; DeLong's variance for ROC AUC (its structural
components computed from the per-score counts, ties counted one half).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics._core import checks as v
from pl_metrics._core import names
from pl_metrics._core.names import NEG, ORD, POS, SCORE
from pl_metrics._intervals import replicates as rp

if TYPE_CHECKING:
    import numpy as np


#: Columns of the confusion cells handed to :func:`label_intervals`.
A_ORD = f"{v.INTERNAL}a_ord"
P_ORD = f"{v.INTERNAL}p_ord"
N_LABELS = f"{v.INTERNAL}n_labels"
#: Position of an interval row's average in ``AVERAGES`` (-1: not an average row).
AVG = f"{v.INTERNAL}avg"
#: Replicates drawn at once per segment are capped so a block holds ~4M cells.
_BLOCK_CELLS = 1 << 22


# --------------------------------------------------------------------------- drawing
def _stable_hash(key: tuple[Any, ...]) -> int:
    """A hash of a segment's key that is the same in every process and version."""
    return int.from_bytes(hashlib.blake2b(repr(key).encode(), digest_size=8).digest(), "little")


def _segments(df: pl.DataFrame, keys: Sequence[str]) -> list[tuple[int, int, tuple[Any, ...]]]:
    """``(start, end, key)`` of each segment of ``df`` (sorted by ``keys``)."""
    if df.height == 0:
        return []
    bounds = (
        df.select(pl.struct(keys).rle_id().alias("s"))
        .with_row_index("i")
        .group_by("s", maintain_order=True)
        .agg(pl.col("i").first().alias("a"), (pl.col("i").last() + 1).alias("b"))
    )
    key_rows = df.select(keys)[bounds["a"].to_list()].rows()
    return list(zip(bounds["a"].to_list(), bounds["b"].to_list(), key_rows, strict=True))


def _draw_blocks(counts: np.ndarray, n_boot: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """``n_boot`` multinomial redraws of ``counts`` (int64 rows), a block at a time.

    Cells with a zero count stay zero (numpy returns at once for them).
    """
    import numpy as np

    n = int(counts.sum())
    block = max(1, _BLOCK_CELLS // max(len(counts), 1))
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        if n == 0:
            yield np.zeros((size, len(counts)), dtype=np.int64)
        else:
            yield rng.multinomial(n, counts / n, size=size)


#: Segments are drawn and finished a chunk at a time (a task for a thread):
#: chunks of ~1M drawn cells keep memory small and both cores busy.
_CHUNK_CELLS = 1 << 20


def per_segment(
    df: pl.DataFrame,
    keys: Sequence[str],
    counts: Callable[[pl.DataFrame], np.ndarray],
    draw: Callable[[pl.DataFrame, Iterator[np.ndarray]], Any],
    finish: Callable[[list[Any]], list[dict[str, np.ndarray]]],
    *,
    n_boot: int,
    seed: int | None,
    threads: int,
) -> pl.DataFrame:
    """Redraw every segment of ``df`` (sorted by ``keys`` then its cells) and reduce.

    ``counts(segment)`` gives the cell counts to redraw; ``draw(segment, blocks)``
    reduces the blocks of draws of one segment; ``finish(drawn)`` turns a chunk
    of segments' results into their interval rows, one dict of equal-length
    columns per segment, vectorized across the chunk.  Chunks run on
    ``threads`` threads (numpy releases the GIL; pass ``pl.thread_pool_size()``
    read outside the query, as inside a streaming query it is 1).  Returns
    ``*keys`` and the columns.
    """
    import numpy as np

    root = np.random.SeedSequence(seed)
    segments = _segments(df, keys)

    def one(segment: tuple[int, int, tuple[Any, ...]]) -> Any:
        start, end, key = segment
        rng = np.random.default_rng(
            np.random.SeedSequence(root.entropy, spawn_key=(_stable_hash(key),))
        )
        part = df[start:end]
        return draw(part, _draw_blocks(counts(part).astype(np.int64), n_boot, rng))

    def chunk(members: list[tuple[int, int, tuple[Any, ...]]]) -> list[dict[str, np.ndarray]]:
        return finish([one(segment) for segment in members])

    chunks: list[list[tuple[int, int, tuple[Any, ...]]]] = [[]]
    cells = 0
    for segment in segments:
        if cells >= _CHUNK_CELLS:
            chunks.append([])
            cells = 0
        chunks[-1].append(segment)
        cells += (segment[1] - segment[0]) * n_boot
    with ThreadPoolExecutor(max(1, min(threads, len(chunks)))) as pool:
        rows = [row for done in pool.map(chunk, chunks) for row in done]
    lengths = np.array([len(next(iter(r.values()))) for r in rows])
    first_rows = np.array([a for a, _, _ in segments])
    out = df.select(keys)[np.repeat(first_rows, lengths)]
    return out.with_columns(
        pl.Series(name, np.concatenate([r[name] for r in rows])) for name in rows[0]
    )


# --------------------------------------------------------------------------- reductions
def grouper(group: np.ndarray, k: int) -> Callable[[np.ndarray], np.ndarray]:
    """``sums(block)``: the sums of a block's columns (cells) by ``group`` (in
    ``0..k-1``; -1: left out), as a ``(rows, k)`` array; no dense indicator matrix."""
    import numpy as np

    order = np.argsort(group, kind="stable")
    sorted_group = group[order]
    starts = np.flatnonzero(np.r_[True, sorted_group[1:] != sorted_group[:-1]])
    targets = sorted_group[starts]
    kept = targets >= 0

    def sums(block: np.ndarray) -> np.ndarray:
        out = np.zeros((block.shape[0], k), dtype=block.dtype)
        if len(order):
            out[:, targets[kept]] = np.add.reduceat(block[:, order], starts, axis=1)[:, kept]
        return out

    return sums


def class_counts(
    part: pl.DataFrame, blocks: Iterator[np.ndarray], restrict: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``tp, support, predicted`` (replicate x class) and ``n`` (replicate) of a segment.

    The segment's cells carry ``A_ORD`` / ``P_ORD`` (position of the actual /
    predicted label in the class list, -1 outside ``labels=``) and ``N_LABELS``.
    ``restrict`` drops the cells outside ``labels=`` (as ``confusion_matrix``);
    otherwise they still count in ``n`` (as ``precision_recall_fscore_support``).
    """
    import numpy as np

    a, p = part[A_ORD].to_numpy(), part[P_ORD].to_numpy()
    k = int(part[N_LABELS][0])
    kept = (a >= 0) & (p >= 0) if restrict else np.ones(len(a), dtype=bool)
    support = grouper(np.where(kept, a, -1), k)
    predicted = grouper(np.where(kept, p, -1), k)
    diagonal = np.flatnonzero((a == p) & (a >= 0))  # one cell per class at most
    sums: list[list[np.ndarray]] = [[], [], [], []]
    for draws in blocks:
        tp = np.zeros((draws.shape[0], k), dtype=draws.dtype)
        tp[:, a[diagonal]] = draws[:, diagonal]
        for total, value in zip(
            sums, (tp, support(draws), predicted(draws), draws[:, kept].sum(axis=1)), strict=True
        ):
            total.append(value)
    tp, support_, predicted_, n = (np.concatenate(t) for t in sums)
    return tp, support_, predicted_, n


#: The metrics of each confusion frame that get a bootstrap interval ("f" is F-beta).
LABEL_METRICS = {
    "per_class": ("precision", "recall", "specificity", "f", "jaccard"),
    "averages": rp.SCORES,
    "report": rp.SCORES,
    "summary": ("accuracy", "balanced_accuracy", "mcc", "cohen_kappa"),
}


def _same_classes(drawn: list[tuple[np.ndarray, ...]]) -> dict[int, list[int]]:
    """The positions of the segments in ``drawn``, by their number of classes."""
    groups: dict[int, list[int]] = {}
    for i, arrays in enumerate(drawn):
        groups.setdefault(arrays[0].shape[-1], []).append(i)
    return groups


def label_intervals(
    kind: str, *, beta: float, zero_division: float, ci: float, f_column: str
) -> tuple[Callable[..., tuple[np.ndarray, ...]], Callable[..., list[dict[str, np.ndarray]]]]:
    """``draw`` and ``finish`` (see :func:`per_segment`) for the intervals of frame ``kind``.

    ``draw``: a segment's per-class counts of every replicate.  ``finish``: the
    metrics of the replicates of segments with as many classes at once, and
    their intervals.  Rows of a segment: a row per class (``ORD`` its position,
    ``AVG`` -1) for per_class and report, a row per average (``ORD`` -1, ``AVG``
    its position in ``AVERAGES``) for averages and report, one row (both -1)
    for summary; the columns ``<metric>_low`` / ``<metric>_high`` of
    ``LABEL_METRICS[kind]``, the F-beta ones named after ``f_column``.
    """
    import numpy as np

    metrics = LABEL_METRICS[kind]
    names = [f_column if m == "f" else m for m in metrics]

    def draw(part: pl.DataFrame, blocks: Iterator[np.ndarray]) -> tuple[np.ndarray, ...]:
        return class_counts(part, blocks, restrict=kind == "summary")

    def bounds(values: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        return {name: rp.percentiles(values[m], ci) for m, name in zip(metrics, names, strict=True)}

    def finish(drawn: list[tuple[np.ndarray, ...]]) -> list[dict[str, np.ndarray]]:
        out: list[dict[str, np.ndarray]] = [{} for _ in drawn]
        for k, members in _same_classes(drawn).items():
            # replicate x segment x class (n: replicate x segment)
            tp, support, predicted, n = (
                np.stack([drawn[i][j] for i in members], axis=1) for j in range(4)
            )
            opts = {"beta": beta, "zero_division": zero_division}
            parts = []  # (ORD, AVG, {metric: (low, high)}), bounds: segment x row
            if kind == "summary":
                one_row = {m: x[..., None] for m, x in rp.summary(tp, support, predicted).items()}
                parts.append(([-1], [-1], bounds(one_row)))
            values = None  # the per-class scores, reused by the averages
            if kind in ("per_class", "report"):
                values = rp.per_class(tp, support, predicted, n, **opts)
                parts.append((list(range(k)), [-1] * k, bounds(values)))
            if kind in ("averages", "report"):
                by_average = rp.averages(tp, support, predicted, **opts, per_class_scores=values)
                values = {
                    m: np.stack([by_average[a][m] for a in rp.AVERAGES], axis=-1) for m in metrics
                }
                parts.append(
                    ([-1] * len(rp.AVERAGES), list(range(len(rp.AVERAGES))), bounds(values))
                )
            ords = np.concatenate([o for o, _, _ in parts])
            avgs = np.concatenate([a for _, a, _ in parts])
            for s, i in enumerate(members):
                columns = {ORD: ords, AVG: avgs}
                for name in names:
                    columns[f"{name}_low"] = np.concatenate([b[name][0][s] for *_, b in parts])
                    columns[f"{name}_high"] = np.concatenate([b[name][1][s] for *_, b in parts])
                out[i] = columns
        return out

    return draw, finish


#: Ranking metrics of a block of redrawn per-score counts, and whether runs of
#: positive-only scores may merge for them (see :func:`merge_runs`).
SCORE_METRICS: dict[str, tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], bool]] = {
    "roc_auc": (rp.roc_auc, True),
    "average_precision": (rp.average_precision, False),
}


def merge_runs(
    pos: np.ndarray, neg: np.ndarray, *, positive_runs: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Merge adjacent scores (descending) that hold a single class: fewer cells to draw.

    Exact for the metric of every replicate, as a merged cell's redrawn count is
    the sum of its cells' (a multinomial's cells add up).  Negative-only scores
    in a row all see the same positives above them, and add nothing to AP's
    sum: they merge for AUC and AP.  Positive-only scores in a row only matter to
    AUC through their total: with ``positive_runs`` (AUC) they merge too.
    """
    import numpy as np

    kind = np.where(pos == 0, 2, np.where((neg == 0) & positive_runs, 1, 0))
    start = np.ones(len(kind), dtype=bool)
    start[1:] = (kind[1:] != kind[:-1]) | (kind[1:] == 0)
    first = np.flatnonzero(start)
    return np.add.reduceat(pos, first), np.add.reduceat(neg, first)


def score_intervals(
    state: pl.LazyFrame,
    keys: Sequence[str],
    metric: str,
    *,
    ci: float,
    n_boot: int,
    seed: int | None,
) -> pl.LazyFrame:
    """``*keys, <metric>_low, <metric>_high``: bootstrap interval of a ranking metric.

    ``state`` is the per-score counts ``*keys, score, pos, neg``; a replicate is a
    multinomial redraw of its ``(score, positive)`` and ``(score, negative)`` cells.
    """
    schema = state.collect_schema()
    columns = names.interval_columns([metric])
    out_schema = pl.Schema({k: schema[k] for k in keys} | dict.fromkeys(columns, pl.Float64))
    compute, positive_runs = SCORE_METRICS[metric]
    threads = pl.thread_pool_size()

    def cells(part: pl.DataFrame) -> np.ndarray:
        import numpy as np

        pos, neg = part[POS].to_numpy(), part[NEG].to_numpy()
        return np.concatenate(merge_runs(pos, neg, positive_runs=positive_runs))

    def replicates(part: pl.DataFrame, blocks: Iterator[np.ndarray]) -> np.ndarray:
        import numpy as np

        return np.concatenate([compute(*np.split(d, 2, axis=1)) for d in blocks])

    def finish(drawn: list[np.ndarray]) -> list[dict[str, np.ndarray]]:
        import numpy as np

        low, high = rp.percentiles(np.stack(drawn, axis=1), ci)  # replicate x segment
        return [
            dict(zip(columns, pair, strict=True))
            for pair in zip(low[:, None], high[:, None], strict=True)
        ]

    def draw(df: pl.DataFrame) -> pl.DataFrame:
        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        df = df.sort([*keys, SCORE], descending=[False] * len(keys) + [True], nulls_last=True)
        out = per_segment(
            df, keys, cells, replicates, finish, n_boot=n_boot, seed=seed, threads=threads
        )
        return out.select(list(out_schema)).cast(dict(out_schema))

    return state.map_batches(draw, schema=out_schema).with_columns(pl.col(columns).fill_nan(None))


__all__ = [
    "AVG",
    "A_ORD",
    "LABEL_METRICS",
    "N_LABELS",
    "P_ORD",
    "SCORE_METRICS",
    "class_counts",
    "grouper",
    "label_intervals",
    "merge_runs",
    "per_segment",
    "score_intervals",
]
