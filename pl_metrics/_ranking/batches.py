"""The sorted path by segment: rows read in batches, each segment's sorted scores
(or keys) gathered, and the metric of many small segments in one vectorised numpy
pass (:func:`_chunk_metric`), a large one alone (:mod:`pl_metrics._ranking.placements`).
:mod:`pl_metrics._ranking.sorted_path` plans the query.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import polars as pl

from pl_metrics._core import catalogue, formulas, names
from pl_metrics._ranking.placements import _key, _Keyed, _label_bits, _Searched, metric_of
from pl_metrics._stats import ap_delta

_POS, _NEG = f"{names.INTERNAL}pos", f"{names.INTERNAL}neg"
_KEY, _MIN = f"{names.INTERNAL}key", f"{names.INTERNAL}min"

#: Segments of at most this many rows are finished together, a range of them at a
#: time (about this many rows, one vectorised numpy pass: :func:`_chunk_metric`); a
#: larger segment, or one alone in its range, on its own (:class:`_Keyed`,
#: :class:`_Searched`).
CHUNK_ROWS = 1 << 18
#: Rows per batch of :func:`_in_batches`.
BATCH_ROWS = 1 << 20
_PART_ROW = f"{names.INTERNAL}part_row"
_SEG = f"{names.INTERNAL}seg"


class Source(Protocol):
    """The sorted values of each segment's list aggregations (one row per segment)."""

    def sizes(self, lists: Sequence[str]) -> Any:
        """How many values each segment has in the lists ``lists`` together (numpy)."""

    def segment(self, i: int, name: str) -> pl.Series:
        """Segment ``i``'s values of the list ``name``, sorted."""

    def chunk(self, a: int, b: int, name: str) -> tuple[Any, Any]:
        """Segments ``a`` to ``b - 1``'s values of the list ``name``, each segment's
        sorted, one after the other (numpy), and how many each has."""


def _flat(lists: pl.Series, *, ready: bool = False) -> tuple[Any, Any]:
    """The values of ``lists`` (no nulls), each list sorted, one after the other, and
    the lists' lengths (numpy); polars sorts the lists in parallel (``ready``: the
    lists are sorted, without nulls, already)."""
    if not ready:
        lists = lists.list.eval(pl.element().drop_nulls().sort())  # faster than list.sort
    values = lists.explode().drop_nulls()  # an empty list explodes to a null
    return values.to_numpy(), lists.list.len().to_numpy().astype("int64")


class _Ready:
    """The :class:`Source` of a frame whose list columns hold each segment's values
    (``ready``: sorted, without nulls, by the query that made them)."""

    def __init__(self, df: pl.DataFrame, *, ready: bool = False) -> None:
        self._df, self._ready = df, ready

    def sizes(self, lists: Sequence[str]) -> Any:
        return (
            self._df.select(pl.sum_horizontal(pl.col(c).list.len() for c in lists))
            .to_series()
            .to_numpy()
        )

    def segment(self, i: int, name: str) -> pl.Series:
        return self._df.get_column(name)[i]  # sorted by the query

    def chunk(self, a: int, b: int, name: str) -> tuple[Any, Any]:
        return _flat(self._df.get_column(name).slice(a, b - a), ready=self._ready)


class _Parts:
    """The :class:`Source` of :func:`_in_batches`: each batch's lists per segment
    (``grouped``), and for each segment (``part_rows``) its rows of their
    concatenation."""

    def __init__(self, grouped: list[pl.DataFrame], part_rows: pl.Series) -> None:
        import numpy as np

        self._grouped = grouped
        self._part_rows = part_rows
        self._offsets = np.cumsum([0, *(g.height for g in grouped)])
        # the segment of each row of the concatenation
        at = part_rows.explode().to_numpy()
        self._segment_of = np.empty(at.size, dtype=np.int64)
        self._segment_of[at] = np.repeat(
            np.arange(part_rows.len()), part_rows.list.len().to_numpy()
        )

    def _column(self, name: str) -> pl.Series:
        return pl.concat([g.get_column(name) for g in self._grouped])

    def sizes(self, lists: Sequence[str]) -> Any:
        import numpy as np

        lengths = sum(self._column(c).list.len().to_numpy().astype(np.int64) for c in lists)
        return np.bincount(
            self._segment_of, weights=lengths, minlength=self._part_rows.len()
        ).astype(np.int64)

    def segment(self, i: int, name: str) -> pl.Series:
        import numpy as np

        # a segment's row of each batch, read from the batch's own frame: a gather from
        # the concatenation (a chunk per batch) costs ~1 ms a row
        at = self._part_rows[i].to_numpy()
        batch = np.searchsorted(self._offsets, at, side="right") - 1
        columns = [g.get_column(name) for g in self._grouped]
        pieces = [columns[b][int(r - self._offsets[b])] for b, r in zip(batch, at, strict=True)]
        return pl.concat(pieces).sort()

    def chunk(self, a: int, b: int, name: str) -> tuple[Any, Any]:
        import numpy as np

        mine = (self._segment_of >= a) & (self._segment_of < b)
        parts = pl.DataFrame(
            [pl.Series(_SEG, self._segment_of[mine]), self._column(name).filter(pl.Series(mine))]
        )
        if parts.height == b - a:  # a row per segment (one batch)
            merged = parts.sort(_SEG)
        else:  # a segment's rows of its batches concatenated
            merged = parts.group_by(_SEG).agg(pl.col(name).explode()).sort(_SEG)
        assert np.array_equal(merged.get_column(_SEG).to_numpy(), np.arange(a, b))
        return _flat(merged.get_column(name))


def _in_batches(  # noqa: PLR0917 - the plan's parts, in order
    rows: pl.LazyFrame,
    keys: list[str],
    lists: list[pl.Expr],
    scalars: list[pl.Expr],
    checked: Callable[[pl.LazyFrame], pl.LazyFrame],
    finish: Callable[[pl.DataFrame, Source], pl.DataFrame],
    metrics: list[str],
) -> pl.LazyFrame:
    """``finish`` of ``rows.group_by(keys).agg(*lists, *scalars)`` (the lists sorted), made
    a batch of rows at a time: each batch's lists grouped in memory and its scalars
    summed over the batch; the batches' groups merged, the scalars' totals
    ``checked`` (counts summed, minima of minima) and set on every segment's row;
    each segment's lists gathered from its batches and sorted only when ``finish``
    reads them (:class:`_Parts`), a segment or a range of small ones at a time.
    Polars' streaming ``group_by`` of lists holds every input column of the query
    until the end (100M rows of Parquet: 3 GiB); this holds the lists' values, once.

    ``scalars``: counts of rows (the checks, which the callers sum over the
    segments) and the scores' minima (:data:`_MIN`), read over all the rows.
    """
    needed = sorted({c for e in (*lists, *scalars) for c in e.meta.root_names()} - set(keys))
    batches = rows.select(*keys, *needed)
    counts = [e.meta.output_name() for e in scalars]

    def merge(name: str) -> pl.Expr:
        if name.startswith(_MIN):
            return pl.col(name).min()
        return pl.col(name).cast(pl.Int64).sum()  # a count of rows

    part_schema = batches.group_by(keys).agg(lists).collect_schema()
    key_schema = {k: part_schema[k] for k in keys}
    schema = {**key_schema, **dict.fromkeys(metrics, pl.Float64)}
    no_rows = pl.DataFrame(schema=batches.collect_schema())

    def totals_of(sums: list[pl.DataFrame]) -> pl.DataFrame:
        return checked(pl.concat(sums).lazy().select(map(merge, counts))).collect()

    def run() -> pl.DataFrame:
        grouped, sums = [], [no_rows.select(scalars)]
        read = batches.collect_batches(chunk_size=BATCH_ROWS, maintain_order=False)
        first = next(read, None)
        second = None if first is None else next(read, None)
        if first is not None and second is None:
            # one batch (in-memory rows, a small scan): the lists sorted by the grouping
            # query itself, on polars' threads, and read as they are (500k rows in
            # 1,000 segments: 45 ms -> 30 ms)
            lazy = first.lazy()
            per_segment, total = pl.collect_all(
                [
                    lazy.group_by(keys).agg(e.drop_nulls().sort() for e in lists),
                    lazy.select(scalars),
                ],
                engine="in-memory",
            )
            totals = totals_of([*sums, total])
            df = per_segment.with_columns(
                pl.lit(totals.get_column(c).item()).alias(c) for c in totals.columns
            )
            return finish(df, _Ready(df, ready=True))
        for batch in itertools.chain((b for b in (first, second) if b is not None), read):
            lazy = batch.lazy()
            per_segment, total = pl.collect_all(
                [lazy.group_by(keys).agg(lists), lazy.select(scalars)], engine="in-memory"
            )
            grouped.append(per_segment)
            sums.append(total)
        totals = totals_of(sums)
        grouped = grouped or [pl.DataFrame(schema=part_schema)]
        df = (
            pl.concat([g.select(keys) for g in grouped])  # not the lists: grouping would copy them
            .with_row_index(_PART_ROW)
            .group_by(keys)
            .agg(_PART_ROW)
            .with_columns(pl.lit(totals.get_column(c).item()).alias(c) for c in totals.columns)
        )
        return finish(df, _Parts(grouped, df.get_column(_PART_ROW)))

    return pl.defer(run, schema=schema)


def _lists(
    tasks: Sequence[tuple[pl.Expr, str]], *, keyed: bool
) -> tuple[list[pl.Expr], list[pl.Expr], list[pl.Expr]]:
    """For each (positive, score column): the key columns to add to the rows, the values
    whose sorted lists are aggregated per segment, and the scores' minima (keyed: the
    sign check)."""
    key_columns, lists, minima = [], [], []
    for i, (positive, column) in enumerate(tasks):
        # -0.0 and 0.0 are one threshold: polars' optimizer drops this + 0.0 (-0.0 stays),
        # so the keys clear the sign bit (_key) and the search compares them as floats
        score = pl.col(column).cast(pl.Float64) + 0.0
        if keyed:
            key_columns.append(_key(score, positive).alias(f"{_KEY}{i}"))
            lists.append(pl.col(f"{_KEY}{i}"))
            minima.append(score.min().alias(f"{_MIN}{i}"))
        else:
            lists += [
                score.filter(positive).alias(f"{_POS}{i}"),
                score.filter(~positive).alias(f"{_NEG}{i}"),
            ]
    return key_columns, lists, minima


def _ranges(sizes: Any) -> list[tuple[int, int]]:
    """The segments (``sizes``: their rows) in ranges finished together: consecutive
    segments of at most :data:`CHUNK_ROWS` rows starting within the same
    :data:`CHUNK_ROWS` rows (at most twice that many rows in all), a larger segment
    alone."""
    import numpy as np

    if not sizes.size:
        return []
    rows = max(CHUNK_ROWS, 1)
    before = np.cumsum(sizes) - sizes
    large = sizes > rows
    new = np.ones(sizes.size, dtype=bool)
    new[1:] = (before[1:] // rows != before[:-1] // rows) | large[1:] | large[:-1]
    starts = np.flatnonzero(new).tolist()
    return list(zip(starts, [*starts[1:], sizes.size], strict=True))


def _values(
    height: int,
    lists: Source,
    n_tasks: int,
    metric: str,
    *,
    binary: bool,
    z: float | None,
    average: str,
    keyed: bool,
) -> list[pl.Series]:
    """The metric (binary; with ``z``: and its bounds) or the mean of the one-vs-rest
    metrics of each of the ``height`` rows (segments) of the sorted lists: a large
    segment (or one alone) at a time, its arrays freed before the next one's are
    made; the small ones a range at a time (:func:`_ranges`, :func:`_chunk_metric`).
    Two ranges at a time when there are several (polars' sorts and numpy release
    the GIL)."""
    import numpy as np

    width = 1 if z is None else 3
    sizes = lists.sizes([f"{_KEY}0"] if keyed else [f"{_POS}0", f"{_NEG}0"])
    assert sizes.size == height

    def alone(i: int, task: int) -> _Searched | _Keyed:
        if keyed:
            return _Keyed(lists.segment(i, f"{_KEY}{task}"))
        return _Searched(lists.segment(i, f"{_POS}{task}"), lists.segment(i, f"{_NEG}{task}"))

    def sorted_keys(a: int, b: int, task: int) -> tuple[Any, Any]:
        if keyed:
            return lists.chunk(a, b, f"{_KEY}{task}")
        return _as_keys(lists.chunk(a, b, f"{_POS}{task}"), lists.chunk(a, b, f"{_NEG}{task}"))

    value = metric_of(metric)

    def one_range(bounds: tuple[int, int]) -> list[Any]:
        a, b = bounds
        per_task = []
        for task in range(n_tasks):
            if b - a == 1:
                segment = alone(a, task)
                row = value(segment, z if binary else None)
                columns = [np.array([np.nan if x is None else x], dtype=np.float64) for x in row]
                per_task.append((columns, np.array([segment.n_pos])))
                del segment  # freed before the next class's
            else:
                keys, counts = sorted_keys(a, b, task)
                per_task.append(_chunk_metric(keys, counts, metric, z if binary else None))
        if binary:
            return per_task[0][0]
        return [_mean_over_classes(per_task, average)]

    ranges = _ranges(sizes)
    threads = min(os.cpu_count() or 1, 2) if len(ranges) > 1 else 1
    with ThreadPoolExecutor(threads) as pool:
        done = list(pool.map(one_range, ranges))
    columns = [np.concatenate([d[j] for d in done]) if done else np.empty(0) for j in range(width)]
    # undefined (NaN here) is null; no defined value is NaN
    return [pl.Series(values=c, dtype=pl.Float64).fill_nan(None) for c in columns]


def _mean_over_classes(per_task: list[tuple[list[Any], Any]], average: str) -> Any:
    """For each segment: the mean of the defined (not NaN) per-class metrics, plain
    (macro) or weighted by the classes' positives (prevalence); NaN where none is
    defined.  Summed class by class, in the classes' order."""
    import numpy as np

    total = count = 0
    for values, positives in per_task:
        metric = values[0]
        defined = ~np.isnan(metric)
        if average == "weighted":
            total = total + np.where(defined, metric * positives, 0.0)
            count = count + np.where(defined, positives, 0)
        else:
            total = total + np.where(defined, metric, 0.0)
            count = count + defined
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)


def _as_keys(positives: tuple[Any, Any], negatives: tuple[Any, Any]) -> tuple[Any, Any]:
    """The positives' and the negatives' scores of a range of segments (each segment's
    sorted, and how many each has), as one sorted key per score (of any sign) in the
    form of :class:`_Keyed`'s: the segment, the score's rank among the range's
    distinct scores, and the label in the lowest bit.  Scores of different segments
    never share a key."""
    import numpy as np

    (pos, n_pos), (neg, n_neg) = positives, negatives
    segments = np.arange(n_pos.size, dtype=np.uint64)
    scores = np.concatenate([pos, neg]).astype(np.float64) + 0.0  # -0.0 is 0.0
    bits = scores.view(np.uint64)
    # IEEE bits that order as the floats do: negative ones reversed, the others above
    ordered = np.where(bits >> np.uint64(63), ~bits, bits | np.uint64(1 << 63))
    _, rank = np.unique(ordered, return_inverse=True)
    rank = rank.astype(np.uint64).reshape(-1)
    shift = np.uint64(int(rank.max(initial=0)).bit_length() + 1)
    assert int(segments.size).bit_length() + int(shift) <= 64
    segment = np.concatenate([np.repeat(segments, n_pos), np.repeat(segments, n_neg)])
    label = np.concatenate([np.ones(pos.size, np.uint64), np.zeros(neg.size, np.uint64)])
    keys = (segment << shift) | (rank << np.uint64(1)) | label
    keys.sort()
    return keys, n_pos + n_neg


def _chunk_metric(keys: Any, counts: Any, metric: str, z: float | None) -> tuple[list[Any], Any]:
    """The metric (with ``z``: and its bounds) of each segment of a range, from its
    keys (:class:`_Keyed`'s form: score above the lowest bit, label in it), each
    segment's sorted, one after the other (``counts``: how many each has); and each
    segment's positives.  Undefined values are NaN.

    The same integers as :class:`_Keyed`'s, for all the segments at once: a
    positive's negatives at or before it are its position in its segment less its
    rank among the segment's positives; those tied with it are its run's negatives
    (a run: the equal scores of a segment; its negatives come first).  The per-row
    terms are summed per segment in row order (``np.bincount``): the AUC's integer
    sums are exact; DeLong's squares and the AP's terms may differ from a
    segment's own sum in the last bits."""
    import numpy as np

    n_segments = counts.size
    starts = np.cumsum(counts) - counts
    segment = np.repeat(np.arange(n_segments), counts)
    positive = _label_bits(keys)
    score = keys >> np.uint64(1)
    new = np.empty(keys.size, dtype=bool)  # each row: whether it starts a run
    new[:1] = True
    np.not_equal(score[1:], score[:-1], out=new[1:])
    new[starts[counts > 0]] = True
    where = np.flatnonzero(positive)
    at = segment[where]  # each positive's segment
    n_pos = np.bincount(at, minlength=n_segments)
    n_neg = counts - n_pos
    pos_before = np.cumsum(n_pos) - n_pos  # the positives of the segments before
    at_or_before = where - starts[at] - (np.arange(where.size) - pos_before[at])
    run: Any = None
    tied: Any = 0
    # a positive right after a negative of its run: the classes share a score
    if (positive[1:] & ~positive[:-1] & ~new[1:]).any():
        run = np.cumsum(new) - 1
        runs = int(run[-1]) + 1
        pos_run = np.bincount(run[where], minlength=runs)
        neg_run = np.bincount(run, minlength=runs) - pos_run
        tied = neg_run[run[where]]
    beyond = at_or_before - tied
    p_total, n_total = n_pos.astype(np.float64), n_neg.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if catalogue.CATALOGUE[metric].ranked is catalogue.Ranked.AP:
            return _chunk_ap(score[where], at, n_pos, n_neg, pos_before, beyond, z), n_pos
        sums = np.bincount(at, weights=beyond, minlength=n_segments)  # exact: integers
        ties = np.bincount(at, weights=np.broadcast_to(tied, at.shape), minlength=n_segments)
        defined = (n_pos > 0) & (n_neg > 0)
        auc = np.where(defined, formulas.placement(sums, ties, n_total) / p_total, np.nan)
        if z is None:
            return [auc], n_pos
        v10 = formulas.placement(beyond, tied, n_total[at])
        # each negative: the positives before it (its run's come after it), and tied
        where_n = np.flatnonzero(~positive)
        at_n = segment[where_n]
        below_n = where_n - starts[at_n] - (np.arange(where_n.size) - (starts - pos_before)[at_n])
        tied_n = 0 if run is None else pos_run[run[where_n]]
        v01 = formulas.placement(p_total[at_n] - below_n - tied_n, tied_n, p_total[at_n])
        se = formulas.delong_se_of_squares(
            np.bincount(at, weights=(v10 - auc[at]) ** 2, minlength=n_segments),
            np.bincount(at_n, weights=(v01 - auc[at_n]) ** 2, minlength=n_segments),
            p_total=p_total,
            n_total=n_total,
            xp=formulas.NUMPY,
        )
        enough = (n_pos > 1) & (n_neg > 1)
        low = np.where(enough, np.clip(auc - z * se, 0.0, 1.0), np.nan)
        high = np.where(enough, np.clip(auc + z * se, 0.0, 1.0), np.nan)
        return [auc, low, high], n_pos


def _chunk_ap(  # noqa: PLR0917 - _chunk_metric's arrays, in its order
    scores: Any, at: Any, n_pos: Any, n_neg: Any, pos_before: Any, beyond: Any, z: float | None
) -> list[Any]:
    """``_ranking.placements._ap`` of each segment of a range, from the positives'
    ``scores`` (each segment's ascending, one segment after the other; ``at``: their
    segments) and the negatives strictly below each (``beyond``)."""
    import numpy as np

    index = np.arange(scores.size)
    new = np.empty(scores.size, dtype=bool)  # a positive that starts a run of its segment
    new[:1] = True
    new[1:] = (scores[1:] != scores[:-1]) | (at[1:] != at[:-1])
    first = np.maximum.accumulate(np.where(new, index, 0)) - pos_before[at]
    tps = (n_pos[at] - first).astype(np.float64)
    fps = (n_neg[at] - beyond).astype(np.float64)
    terms = formulas.average_precision_terms(1.0, tps, fps, xp=formulas.NUMPY)
    # each segment's terms summed pairwise, as _ranking.placements._ap sums one
    # segment's (np.bincount adds them one by one: 1e-12 off at 100,000 terms; the
    # two may group the additions apart, a last bit); a perfect ranking's: P ones;
    # reduceat's empty ranges give a term, not 0: only segments with positives
    sums = np.zeros(n_pos.size)
    has = n_pos > 0
    if scores.size:
        sums[has] = np.add.reduceat(terms, pos_before[has])
    # 0.0 without positives (as scikit-learn)
    ap = np.where(has, formulas.average_precision_of_sum(sums, np.maximum(n_pos, 1)), 0.0)
    if z is None:
        return [ap]
    s2, s4 = ap_delta.sorted_moments(tps, fps, new, at, ap, n_pos, n_pos.size)
    low, high = ap_delta.bounds(ap, s2, s4, n_pos + n_neg, n_pos, z)  # NaN without positives
    return [ap, low, high]
