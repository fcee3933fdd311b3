"""KS and the gains table of continuous scores from the sorted curve's points, in numpy.

:func:`pl_metrics._ranking.gains.ks` and :func:`~pl_metrics._ranking.gains.gains` are
tables over the curve points (:func:`pl_metrics._ranking.from_counts.curve_points`).
On continuous scores the curve has a point per row: its sorting path
(:func:`pl_metrics._ranking.sorted_curve.sorted_curve`, the same checks) then builds
columns the tables barely need (each point's own counts, the totals, the
positions, in windows), and the tables a window and a ``group_by`` over every
point: on 5M rows the gains table cost 7x a sort of the scores, KS over weekly
windows 2.2x their ROC AUC.  Here the sorting path gives only each point's score
and running counts (``tps``, ``fps``: the segment's rows at or above it), and one
numpy pass over them the table:

- **KS**: ``|tps N - fps P|`` at each point, exact in Float64 (``P N`` below 2^53,
  as the curve path has it; else the counting plan), each segment's largest
  (``maximum.reduceat``) and the highest score reaching it; ``ks`` that largest
  over ``P N`` as one product, as the curve path divides it.
- **gains**: a point (a block of tied scores) goes to ``1 +`` the cuts at or below
  the rows above it (``before den >= num total``), so each bucket is a run of
  points: each cut's first point is found by ``searchsorted`` over the rows at or
  above each point (counted over all the segments: increasing), and a bucket's
  rows, positives and lowest score are differences and reads at its bounds.

The same numbers as the curve path, bit for bit (integers, and the same float
divisions); un-weighted rows only (weights: the curve path).  :func:`deferred`
takes the counting plan where the first rows show few distinct scores, as the
curve does (:func:`pl_metrics._ranking.sorted_curve.way`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics._core import scores
from pl_metrics._core.names import ALL, INTERNAL, SCORE
from pl_metrics._core.scores import RankingInput, segment_edge
from pl_metrics._ranking import placements, sorted_curve, sorted_path

if TYPE_CHECKING:
    import numpy as np

#: Counts below this are exact in Float64, and so are their products below it.
_EXACT = 2.0**53
_KEYS = f"{INTERNAL}sorted_keys"


class Points:
    """A segment's curve points one after the other (its highest score first), as
    numpy: ``score``, ``tps`` and ``fps`` (the segment's positives and negatives at
    or above the point's score: integers in Float64, exact), ``starts`` each
    segment's first point (then the number of points), ``keys`` each segment's key
    columns (a frame, a row a segment)."""

    def __init__(
        self, score: np.ndarray, tps: np.ndarray, fps: np.ndarray, starts: np.ndarray, keys: Any
    ) -> None:
        self.score, self.tps, self.fps, self.starts, self.keys = score, tps, fps, starts, keys
        self.sizes = starts[1:] - starts[:-1]  # each segment's points
        self.positives, self.negatives = tps[starts[1:] - 1], fps[starts[1:] - 1]


def _read(rows: RankingInput, schema: pl.Schema, *, keyed: bool) -> Points:
    """The curve points of the sorted rows (``sorted_curve.sorted_curve``: the checks
    raised as there), only their scores and running counts;
    :class:`~pl_metrics._ranking.sorted_path.MixedSigns` where ``keyed`` meets a
    negative score."""
    import numpy as np

    if keyed and rows.keys:
        return _read_segments(rows)
    keys = rows.keys or [ALL]
    points = sorted_curve.sorted_curve(rows, schema, [*keys, SCORE, "tps", "fps"], keyed=keyed)
    if rows.keys:
        first = np.flatnonzero(points.select(segment_edge(keys, 1)).to_series().to_numpy())
    else:
        first = np.zeros(min(points.height, 1), dtype=np.int64)
    starts = np.append(first, points.height).astype(np.int64)
    score, tps, fps = (points.get_column(c).to_numpy() for c in (SCORE, "tps", "fps"))
    return Points(score, tps, fps, starts, points.select(keys)[first])


def _read_segments(rows: RankingInput) -> Points:
    """:func:`_read` of keyed rows by segment: each segment's keys sorted (descending)
    in one ``group_by`` on polars' threads, the curve points found in numpy (the last
    row of each run of equal scores; the running positives and rows less the
    segment's before it: integers, as ``sorted_curve`` counts them, bit for bit).  The
    ``sorted_curve`` steps after the sort, in polars, cost as much as the sort
    (500k rows in 1,000 segments: KS 45 ms -> 35 ms)."""
    import numpy as np

    positive = pl.col(rows.y_true) == pl.lit(rows.pos_label, rows.schema[rows.y_true])
    gate, _ = sorted_curve._gate(rows, positive, keyed=True)
    key = placements._key(scores.as_score(rows.y_score, rows.schema[rows.y_score]), positive)
    grouped = (  # the segments in the keys' order, as sorted_curve's (the tables keep it)
        rows.rows.group_by(rows.keys)
        .agg(key.sort(descending=True).alias(_KEYS))
        .sort(rows.keys, nulls_last=True)
    )
    checked, grouped = pl.collect_all([gate, grouped], engine="in-memory")
    sorted_curve._raise(rows, checked, grouped, keyed=True)
    lists = grouped.get_column(_KEYS)
    sorted_keys = lists.explode().to_numpy()  # a segment has a row at least: no null
    counts = lists.list.len().to_numpy().astype(np.int64)
    row_starts = np.cumsum(counts) - counts
    score = sorted_keys >> np.uint64(1)
    # the last row of each run of equal scores, and of each segment
    end = np.ones(sorted_keys.size, dtype=bool)
    np.not_equal(score[:-1], score[1:], out=end[:-1])
    end[row_starts[1:] - 1] = True
    at = np.flatnonzero(end)
    first = np.searchsorted(at, row_starts)  # each segment's first point
    sizes = np.diff(np.append(first, at.size))
    # the running positives (integers, exact in Float64 below 2^53, as all below), less
    # the segment's before it; the rows seen less the positives: in place, few arrays
    # of the rows' size (5M rows in 6 segments: 178 ms -> 134 ms)
    running = np.cumsum(np.bitwise_and(sorted_keys, np.uint64(1)).view(np.int64))
    before = np.concatenate([[0], running])[row_starts]
    tps = running.take(at).astype(np.float64)
    del running
    tps -= np.repeat(before.astype(np.float64), sizes)
    fps = at.astype(np.float64)
    fps += 1.0
    fps -= np.repeat(row_starts.astype(np.float64), sizes)
    fps -= tps
    starts = np.append(first, at.size).astype(np.int64)
    return Points(score.take(at).view(np.float64), tps, fps, starts, grouped.select(rows.keys))


def deferred(
    rows: RankingInput,
    curve: pl.LazyFrame,
    counted: pl.LazyFrame,
    table: Callable[[Points], dict[str, Any] | None],
) -> pl.LazyFrame:
    """``counted`` (the table from the counted ``curve``), or the same table from the
    curve points of the sorted rows (``table``: its columns after the keys, a row a
    segment or a bucket of one; their ``keys`` a row index into
    :attr:`Points.keys`; None: counts too large for Float64, the counting plan),
    picked at collect as the curve picks its way
    (:func:`~pl_metrics._ranking.sorted_curve.way`)."""
    schema, curve_schema = counted.collect_schema(), curve.collect_schema()

    def run() -> pl.DataFrame:
        how = sorted_curve.way(rows)
        if how == "count":
            return counted.collect()
        try:
            data = _read(rows, curve_schema, keyed=how == "keys")
        except sorted_path.MixedSigns:  # a negative score after the first rows
            data = _read(rows, curve_schema, keyed=False)
        columns = table(data)
        if columns is None:
            return counted.collect()
        at = columns.pop("keys")
        out = data.keys[at].with_columns(
            v.alias(c) if isinstance(v, pl.Series) else pl.Series(c, v) for c, v in columns.items()
        )
        return out.select(pl.col(c).cast(dtype) for c, dtype in schema.items())

    return pl.defer(run, schema=schema)


def ks_columns(data: Points) -> dict[str, Any] | None:
    """``keys, ks, threshold`` of each segment (``gains.ks``' table): the largest
    ``|tps N - fps P|`` over its points (exact in Float64 where ``P N < 2^53``, as
    the curve path computes it; else None), over ``P N``; the highest score reaching
    it; null without positives or negatives."""
    import numpy as np

    starts, sizes = data.starts, data.sizes
    segments = sizes.size
    p, n = data.positives, data.negatives
    products = p * n
    if segments and products.max() >= _EXACT:
        return None
    distance = data.tps * np.repeat(n, sizes)
    distance -= data.fps * np.repeat(p, sizes)
    np.abs(distance, out=distance)
    best = np.maximum.reduceat(distance, starts[:-1]) if segments else distance[:0]
    # the first point (highest score) reaching the segment's largest distance
    hits = np.flatnonzero(distance == np.repeat(best, sizes))
    del distance
    top = hits[
        np.searchsorted(np.searchsorted(starts, hits, side="right") - 1, np.arange(segments))
    ]
    both = (p > 0) & (n > 0)
    # over P N as one product, as the curve path divides (a perfect ranking: 1.0)
    ks = np.divide(best, products, out=np.zeros(segments), where=both)
    undefined = np.flatnonzero(~both)  # null, as the curve path's when(both)
    return {
        "keys": np.arange(segments),
        "ks": pl.Series("ks", ks).scatter(undefined, None),
        "threshold": pl.Series("threshold", data.score[top]).scatter(undefined, None),
    }


def gains_columns(data: Points, cuts: list[tuple[int, int]]) -> dict[str, Any] | None:
    """``keys, bucket, threshold, rows, positives`` of each non-empty bucket of each
    segment (``gains.gains``' table), buckets in order.  A point (a block of tied
    scores) goes to ``1 +`` the cuts at or below the rows above it
    (``before den >= num total``): bucket ``b`` runs from cut ``b - 1``'s first
    point to cut ``b``'s, each found by ``searchsorted`` over the rows at or above
    each point counted over all the segments (increasing, exact in Float64 below
    2^53; else None); the buckets' rows and positives are differences at their
    bounds."""
    import numpy as np

    starts = data.starts
    segments = starts.size - 1
    total = (data.positives + data.negatives).astype(np.int64)
    offset = np.cumsum(total) - total  # the rows of the segments before
    if segments and float(offset[-1] + total[-1]) >= _EXACT:
        return None
    # the rows at or above each point, over all the segments: increasing
    rows_to = data.tps + data.fps
    rows_to += np.repeat(offset, data.sizes)
    # the bounds of the buckets in points: segment x (cuts + 2), its first and end
    bounds = np.empty((segments, len(cuts) + 2), dtype=np.int64)
    bounds[:, 0], bounds[:, -1] = starts[:-1], starts[1:]
    for j, (num, den) in enumerate(cuts, start=1):
        # the fewest rows above the cut's first point: before den >= num total (at
        # least 1: never the segment's first point, above which no row is)
        before = (num * total + den - 1) // den
        bounds[:, j] = np.searchsorted(rows_to, offset + before) + 1
    low, high = bounds[:, :-1].ravel(), bounds[:, 1:].ravel()
    kept = np.flatnonzero(high > low)  # an empty bucket has no row
    low, high = low[kept], high[kept]
    segment = kept // (len(cuts) + 1)
    first = starts[:-1][segment]

    def above(running: np.ndarray, bound: np.ndarray, base: Any) -> np.ndarray:
        """``running`` before the point ``bound`` (``base`` at its segment's first)."""
        return np.where(bound > first, running[np.maximum(bound - 1, 0)], base)

    return {
        "keys": segment,
        "bucket": kept % (len(cuts) + 1) + 1,
        "threshold": data.score[high - 1],
        "rows": rows_to[high - 1] - above(rows_to, low, offset[segment]),
        "positives": data.tps[high - 1] - above(data.tps, low, 0),
    }


__all__ = ["Points", "deferred", "gains_columns", "ks_columns"]
