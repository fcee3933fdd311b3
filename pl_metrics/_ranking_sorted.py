"""ROC AUC (and DeLong's interval) and average precision of continuous scores by sorting.

The per-score counts of :mod:`pl_metrics._ranking` are exact, stream, and are
fastest when scores take few distinct values; on continuous scores every row is
its own group, and counting them costs several sorts.  There it is faster to
sort.  For every positive score s, the negatives below s plus half those equal
to s is its placement (DeLong's V10), and the mean placement is the ROC AUC -
the Mann-Whitney U / (P N) with ties one half, the same number as the trapezoid
under the ROC curve.  DeLong's variance needs the negatives' placements too.

Two ways to find the placements, both exact (:func:`strategy` picks one):

- :class:`_Keyed` (scores not negative: probabilities): each score's IEEE bits
  shifted left by one, its label in the freed lowest bit, sorted once per
  segment.  The bits of non-negative floats order as the floats do, so the
  sorted keys are the sorted scores with, among equal scores, the negatives
  first; a positive's placement is its position less its rank among the
  positives (less half the negatives tied with it).  One sort, no search; the
  keys are a polars expression (streamed, on polars' threads), and the sorted
  keys are scanned in cache-sized blocks, a large segment in two halves on two
  threads.
- :class:`_Searched` (any sign): the positives' and the negatives' scores
  sorted apart (one query, both sorts in parallel), one binary-searched in the
  other.

By segment, the rows are read in batches (:func:`_in_batches`): each batch's keys
(or scores) grouped by segment in memory, each segment's pieces concatenated
and sorted when it is finished, one segment at a time.  Polars' streaming
``group_by`` of lists would hold every column the query reads until the end.

Average precision is a sum over the positives of the precision at their score:
the rows at or above it are the positives from its run of ties on, and the
negatives not below it.

Used by ``roc_auc`` (un-weighted, binary or the one-vs-rest macro / weighted
mean; ``ci_method="delong"`` too) and the binary ``average_precision`` (un-weighted,
no interval), on a DataFrame or a LazyFrame, when the first
rows' scores look continuous (:func:`strategy`).  The lazy result is a
LazyFrame like the counting path's: the rows are read when it is collected.
Memory: 8 bytes a row (the keys, or the scores), where counting holds one row
per distinct score; on continuous scores these are the same size.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import polars as pl

from pl_metrics._core import checks as v
from pl_metrics._core import formulas as fm
from pl_metrics._core import names
from pl_metrics._core import scores as sc
from pl_metrics._intervals import analytic as an

_POS, _NEG = f"{names.INTERNAL}pos", f"{names.INTERNAL}neg"
_KEY, _MIN = f"{names.INTERNAL}key", f"{names.INTERNAL}min"
_POSITIVES = f"{names.INTERNAL}positives"
_UNKNOWN = f"{names.INTERNAL}unknown"

#: Distinct scores among the first rows above which the sorted path is used.
MIN_DISTINCT = 2_000
_SAMPLE = 10_000
#: Whether scores that are not negative are sorted with their labels as one key
#: (:class:`_Keyed`); False: always the two sorts and a search (:class:`_Searched`).
USE_KEYS = True

Strategy = Literal["count", "search", "keys"]


class MixedSigns(Exception):  # noqa: N818 - a signal, not an error: the plan falls back
    """Raised by a keyed plan that met a negative score (the keys need one sign)."""


def strategy(frame: pl.DataFrame | pl.LazyFrame, y_score: str | Mapping[object, str]) -> Strategy:
    """How to compute an un-weighted ranking metric, from the first 10,000 rows:

    - ``"count"``: per distinct score (:mod:`pl_metrics._ranking`) when any score
      column has at most :data:`MIN_DISTINCT` distinct values there, or numpy (an
      optional dependency) is missing;
    - ``"keys"``: one sort of each score with its label (:class:`_Keyed`) when no
      score there is negative (a later negative one falls back to ``"search"``,
      :class:`MixedSigns`);
    - ``"search"``: sort the positives' and the negatives' scores, binary-search
      one in the other (:class:`_Searched`).

    ``y_score`` is checked already (numeric columns of ``frame``).  On a LazyFrame
    this reads the first rows of the score columns (a Parquet scan: its first row
    group)."""
    if importlib.util.find_spec("numpy") is None:
        return "count"
    # a column may serve several classes (sklearn's score matrix may repeat a column)
    columns = [y_score] if isinstance(y_score, str) else list(dict.fromkeys(y_score.values()))
    head = frame.lazy().select(columns).head(_SAMPLE).collect()
    if not all(head.get_column(c).n_unique() > MIN_DISTINCT for c in columns):
        return "count"
    signs = head.select(pl.min_horizontal(pl.all().min()) >= 0).item()
    return "keys" if USE_KEYS and signs is not False else "search"


def use_sorted_path(
    frame: pl.DataFrame | pl.LazyFrame, y_score: str | Mapping[object, str]
) -> bool:
    """Whether :func:`strategy` sorts (``"keys"`` or ``"search"``)."""
    return strategy(frame, y_score) != "count"


#: Scores searched at once; more are split over the threads (numpy releases the GIL).
#: Also the size from which :class:`_Keyed` scans a segment's keys in two halves.
_SEARCH_CHUNK = 1 << 20


def _search(others: Any, mine: Any, side: Literal["left", "right"]) -> Any:
    """``np.searchsorted(others, mine, side)``, in parallel chunks when ``mine`` is large."""
    import numpy as np

    threads = min(os.cpu_count() or 1, -(-mine.size // _SEARCH_CHUNK))
    if threads <= 1:
        return np.searchsorted(others, mine, side=side)
    chunks = np.array_split(mine, threads)
    with ThreadPoolExecutor(threads) as pool:
        found = list(pool.map(lambda c: np.searchsorted(others, c, side=side), chunks))
    return np.concatenate(found)


def _beyond_and_tied(mine: Any, others: Any) -> tuple[Any, Any]:
    """For each of the sorted scores ``mine``: how many of the sorted ``others`` are
    strictly below it, and how many equal it."""
    import numpy as np  # only this path needs numpy

    below = _search(others, mine, "left")
    # ties are rare for continuous scores: search again only where one exists
    tied = np.zeros(mine.size, dtype=np.int64)
    if not others.size:
        return below, tied
    maybe = others[np.minimum(below, others.size - 1)] == mine
    if maybe.any():
        tied[maybe] = np.searchsorted(others, mine[maybe], side="right") - below[maybe]
    return below, tied


class _Searched:
    """A segment's sorted scores as two arrays, the positives' and the negatives'; what
    one class's score beats of the other's is found by binary search."""

    def __init__(self, pos: pl.Series, neg: pl.Series) -> None:
        self.n_pos, self.n_neg = pos.len(), neg.len()
        self._p, self._n = pos.to_numpy(), neg.to_numpy()

    def positives(self) -> Any:
        """The positives' scores, ascending (equal scores: equal items)."""
        return self._p

    def per_positive(self) -> tuple[Any, Any]:
        """For each positive (ascending): the negatives strictly below it, and tied."""
        return _beyond_and_tied(self._p, self._n)

    def per_negative(self) -> tuple[Any, Any]:
        """For each negative (ascending): the positives strictly below it, and tied."""
        return _beyond_and_tied(self._n, self._p)

    def sums(self) -> tuple[int, int]:
        """The sums over the positives of :meth:`per_positive` (exact integers)."""
        below, tied = self.per_positive()
        return int(below.sum()), int(tied.sum())


#: Rows scanned at once by :class:`_Keyed` (1 MiB of keys).
_SCAN_BLOCK = 1 << 17


def _label_bits(keys: Any) -> Any:
    """The label bit of each key (``bool``: True for a positive)."""
    import numpy as np

    if sys.byteorder == "little":  # the lowest byte of each key holds its label bit
        return (keys.view(np.uint8)[::8] & np.uint8(1)).view(bool)
    return (keys & np.uint64(1)).astype(bool)


class _Keyed:
    """A segment's scores sorted once with their labels: key = the score's IEEE bits
    shifted left by one, the label (1: positive) in the lowest bit (:func:`_key`).
    For scores that are not negative (after -0.0 became 0.0) the bits order as the
    scores do, so the sorted keys are the sorted scores, and among equal scores the
    negatives come first.  Then at a positive's position i, the negatives at or
    before it are i minus the positives before it (its rank among the positives),
    those tied with it included."""

    def __init__(self, keys: pl.Series) -> None:
        import numpy as np

        k = self._k = keys.to_numpy()

        def scan(a: int, b: int) -> tuple[int, int, bool]:
            """Rows ``a..b - 1``: the positives, the sum of their positions, and whether
            one is a positive right after a negative of the same score (keys differing
            in the label bit only: the only way a score can be shared by the two
            classes; the row before ``a`` included).  A block at a time, in buffers
            that stay in the cache (whole-array temporaries cost more in page faults
            than in arithmetic)."""
            n_pos = total = 0
            cross = False
            xor = np.empty(_SCAN_BLOCK, dtype=np.uint64)
            hit = np.empty(_SCAN_BLOCK, dtype=bool)
            for lo in range(a, b, _SCAN_BLOCK):
                hi = min(lo + _SCAN_BLOCK, b)
                where = np.flatnonzero(_label_bits(k[lo:hi])) + lo
                n_pos += where.size
                total += int(where.sum(dtype=np.int64))
                first = max(lo, 1)  # row i is compared with row i - 1
                if not cross and hi > first:
                    m = hi - first
                    np.bitwise_xor(k[first:hi], k[first - 1 : hi - 1], out=xor[:m])
                    cross = bool(np.equal(xor[:m], 1, out=hit[:m]).any())
            return n_pos, total, cross

        # a large segment in two halves on two threads (numpy releases the GIL)
        halves = 2 if k.size > _SEARCH_CHUNK and (os.cpu_count() or 1) > 1 else 1
        bounds = [k.size * i // halves for i in range(halves + 1)]
        if halves == 1:
            parts = [scan(0, k.size)]
        else:
            with ThreadPoolExecutor(halves) as pool:
                parts = list(pool.map(scan, bounds[:-1], bounds[1:]))
        self.n_pos = sum(n for n, _, _ in parts)
        self.n_neg = k.size - self.n_pos
        self._sum_where = sum(total for _, total, _ in parts)
        self._cross_ties = any(cross for _, _, cross in parts)
        self._positive_rows: Any = None
        self._positions: Any = None

    # made when a caller needs every row (DeLong, AP), once; not functools'
    # cached_property, whose lock (Python < 3.12) would serialise the segments that
    # are finished two at a time
    @property
    def _positive(self) -> Any:
        """Which rows are positive."""
        if self._positive_rows is None:
            self._positive_rows = _label_bits(self._k)
        return self._positive_rows

    @property
    def _where(self) -> Any:
        """The positives' positions, ascending."""
        import numpy as np

        if self._positions is None:
            self._positions = np.flatnonzero(self._positive)
        return self._positions

    def positives(self) -> Any:
        """The positives' score bits, ascending (equal scores: equal items)."""
        import numpy as np

        return self._k[self._positive] >> np.uint64(1)

    def _runs(self) -> tuple[Any, Any, Any]:
        """Each row's run of equal scores, and the positives and negatives of each run."""
        import numpy as np

        values = self._k >> np.uint64(1)
        new = np.empty(values.size, dtype=bool)
        new[:1] = True
        np.not_equal(values[1:], values[:-1], out=new[1:])
        run = np.cumsum(new) - 1
        runs = int(run[-1]) + 1 if run.size else 0
        pos = np.bincount(run[self._positive], minlength=runs)
        neg = np.bincount(run[~self._positive], minlength=runs)
        return run, pos, neg

    @staticmethod
    def _at_or_before(mask: Any) -> Any:
        """For each row of ``mask`` (ascending): the rows of the other class before it
        (its position less its rank in its class)."""
        import numpy as np

        return np.flatnonzero(mask) - np.arange(np.count_nonzero(mask))

    def per_positive(self) -> tuple[Any, Any]:
        """For each positive (ascending): the negatives strictly below it, and tied (0,
        not an array of zeros, when no score is shared by the classes)."""
        import numpy as np

        at_or_before = self._where - np.arange(self.n_pos)
        if not self._cross_ties:
            return at_or_before, 0
        run, _, neg = self._runs()
        tied = neg[run[self._positive]]
        return at_or_before - tied, tied  # a run's negatives come before its positives

    def per_negative(self) -> tuple[Any, Any]:
        """For each negative (ascending): the positives strictly below it, and tied (0
        when no score is shared by the classes)."""
        below = self._at_or_before(~self._positive)
        if not self._cross_ties:
            return below, 0
        run, pos, _ = self._runs()
        return below, pos[run[~self._positive]]  # a run's positives come after

    def sums(self) -> tuple[int, int]:
        """The sums over the positives of :meth:`per_positive` (exact integers): the
        positives' positions, less their ranks among themselves, are the negatives at
        or before them; of those, the tied ones are each run's positives x negatives."""
        import numpy as np

        p = self.n_pos
        at_or_before = self._sum_where - p * (p - 1) // 2
        if not self._cross_ties:
            return at_or_before, 0
        _, pos, neg = self._runs()
        tied = int((pos * neg).sum(dtype=np.int64))
        return at_or_before - tied, tied


#: Every bit of a Float64 but its sign.
_NO_SIGN = (1 << 63) - 1


def _key(score: pl.Expr, positive: pl.Expr) -> pl.Expr:
    """The sort key of :class:`_Keyed`: the score's IEEE bits less the sign bit, times
    two (no overflow: below 2^64), plus 1 for a positive.  A polars expression (no
    copy to numpy): it streams and runs on polars' threads.  -0.0 and 0.0 get one
    key; a negative score gets a wrong one: the plan checks the scores' minimum
    (:class:`MixedSigns`).  Null scores or labels (refused by the checks before the
    keys are read) get a key all the same."""
    bits = score.reinterpret(dtype=pl.UInt64) & pl.lit(_NO_SIGN, pl.UInt64)
    label = positive.fill_null(value=False).cast(pl.UInt64)
    return (bits * pl.lit(2, pl.UInt64) + label).fill_null(0)


def _auc(s: _Searched | _Keyed, z: float | None) -> tuple[float | None, ...]:
    """AUC (and with ``z``: DeLong's interval) of a segment's sorted scores; None where
    undefined (one class; the interval: fewer than 2 of one)."""

    n_pos, n_neg = s.n_pos, s.n_neg
    if n_pos == 0 or n_neg == 0:
        return (None,) if z is None else (None, None, None)
    p_total, n_total = float(n_pos), float(n_neg)
    # the mean placement of the positives (summed first: exact integers)
    beyond, ties = s.sums()
    auc = float(fm.placement(float(beyond), float(ties), n_total) / p_total)
    if z is None:
        return (auc,)
    if n_pos < 2 or n_neg < 2:
        return auc, None, None
    below, tied = s.per_positive()
    v10 = fm.placement(below, tied, n_total)
    # a negative's placement: the positives above it, plus half those tied
    below_n, tied_n = s.per_negative()
    v01 = fm.placement(p_total - below_n - tied_n, tied_n, p_total)
    se = float(
        fm.delong_se(1.0, v10, 1.0, v01, auc=auc, p_total=p_total, n_total=n_total, xp=fm.NUMPY)
    )
    return auc, min(max(auc - z * se, 0.0), 1.0), min(max(auc + z * se, 0.0), 1.0)


def _ap(s: _Searched | _Keyed, z: float | None) -> tuple[float | None, ...]:
    """Average precision of a segment's sorted scores: each positive adds 1 / P times
    the precision at its score's threshold (the rows scoring at least as high), so
    tied positives add their threshold's term together as scikit-learn's step-wise
    sum does; 0.0 without positives (as scikit-learn).  With ``z``: and its logit
    interval (``formulas.ap_logit_bounds``; there are positives here)."""
    import numpy as np

    n_pos = s.n_pos
    if n_pos == 0:
        return (0.0,) if z is None else (0.0, None, None)
    p = s.positives()
    # positives at or above each positive's score: P minus the first index of its run
    index = np.arange(n_pos)
    first = np.maximum.accumulate(np.where(np.r_[True, p[1:] != p[:-1]], index, 0))
    tps = (n_pos - first).astype(np.float64)
    below, _ = s.per_positive()
    fps = (s.n_neg - below).astype(np.float64)
    terms = fm.average_precision_terms(1.0, tps, fps, float(n_pos), xp=fm.NUMPY)
    ap = min(max(float(terms.sum()), 0.0), 1.0)  # as _ranking.ap_exprs: within [0, 1]
    if z is None:
        return (ap,)
    low, high = fm.ap_logit_bounds(ap, n_pos, z, xp=fm.NUMPY)
    return ap, float(low), float(high)


#: The metric of a segment's sorted scores.
_METRICS = {"roc_auc": _auc, "average_precision": _ap}


def sorted_metric(
    frame: pl.DataFrame | pl.LazyFrame,
    y_true: str,
    y_score: str | Mapping[object, str],
    *,
    by: object,
    pos_label: object,
    average: str,
    reserved: Sequence[str],
    ci: float | None = None,
    metric: str = "roc_auc",
    keyed: bool = False,
) -> pl.LazyFrame:
    """``*by, roc_auc``: binary, or the one-vs-rest macro / weighted mean (un-weighted
    rows); with ``ci`` (binary): also DeLong's ``roc_auc_low``, ``roc_auc_high``.
    ``metric="average_precision"``: ``*by, average_precision`` (binary; with ``ci``:
    also its logit interval; or the one-vs-rest macro / weighted mean).

    The same checks and messages as the counting path (``_ranking``): only the
    way the AUC is summed differs.
    """
    mapping = None if isinstance(y_score, str) else v.check_score_map("y_score", y_score)
    columns = [y_score] if mapping is None else list(mapping.values())
    lf = frame.lazy()
    schema, segments, types = sc.prepare(lf, y_true, columns, by=by, weight=None, reserved=reserved)
    dtype = schema[y_true]
    if mapping is None:
        label = sc.resolve_pos_label(schema, y_true, pos_label)
        tasks = [(pl.col(y_true) == pl.lit(label, dtype), y_score)]
        known = None
    else:
        keys_ = [v.label_value(k, dtype, "y_score", y_true) for k in mapping]
        tasks = [
            (pl.col(y_true) == pl.lit(k, dtype), c) for k, c in zip(keys_, columns, strict=True)
        ]
        known = pl.Series(keys_, dtype=dtype)
    score_aggs, checks = sc.score_checks(schema, list(dict.fromkeys(columns)))
    true_aggs, true_checks = sc.true_checks(y_true, types)
    scalars = [*score_aggs, *true_aggs]
    checks += true_checks
    default_pos = mapping is None and sc.defaults_pos_label(schema, y_true, pos_label)
    if default_pos:
        scalars += sc.default_pos_label_aggs(pl.col(y_true))
    if known is None:
        scalars.append(tasks[0][0].sum().alias(_POSITIVES))
    else:
        unknown = pl.col(y_true).is_not_null() & ~pl.col(y_true).is_in(known.implode())
        scalars.append(unknown.sum().alias(_UNKNOWN))
        checks.append((_UNKNOWN, lambda n: v.Bad.unknown_classes(y_true, n, known.to_list())))
    key_columns, lists, minima = _lists(tasks, keyed=keyed)
    keys = names.segment_keys(segments)
    rows = (names.with_segment_keys(lf, segments) if segments else lf).with_columns(key_columns)
    z = None if ci is None else an.z_value(ci)
    metrics = [metric] if z is None else [metric, *names.interval_columns([metric])]

    def checked(grouped: pl.LazyFrame) -> pl.LazyFrame:
        grouped = v.raise_if_bad(grouped, checks)
        return sc.check_default_pos_label(grouped, lf, y_true) if default_pos else grouped

    def finish(df: pl.DataFrame, lists: Lists) -> pl.DataFrame:
        if known is None and df.height and not df[_POSITIVES].sum():
            raise v.Bad.pos_label_absent(label, y_true, v.labels_present(lf, y_true))
        if keyed and any((df[f"{_MIN}{i}"] < 0).any() for i in range(len(tasks))):
            raise MixedSigns
        out = _values(
            df.height,
            lists,
            len(tasks),
            metric,
            binary=mapping is None,
            z=z,
            average=average,
            keyed=keyed,
        )
        out = [s.alias(m) for s, m in zip(out, metrics, strict=True)]
        return df.select(*keys).with_columns(out) if segments else pl.DataFrame(out)

    if not segments:
        grouped = rows.select(*(e.sort().implode() for e in lists), *scalars, *minima)
        return checked(grouped).map_batches(
            lambda df: finish(df, _ready(df)), schema=dict.fromkeys(metrics, pl.Float64)
        )
    result = _in_batches(rows, keys, lists, [*scalars, *minima], checked, finish, metrics)
    return names.restore_keys(result.sort(keys, nulls_last=True), segments.names)


#: At most this many segments are finished two at a time (more: one at a time).
_THREADED_SEGMENTS = 1_000
#: Rows per batch of :func:`_in_batches`.
BATCH_ROWS = 1 << 20
_PART_ROW = f"{names.INTERNAL}part_row"

#: ``lists(name)``: for each segment, a function that makes its sorted values of the
#: list aggregation ``name`` (called when the segment is finished).
Lists = Callable[[str], Iterable[Callable[[], pl.Series]]]


def _ready(df: pl.DataFrame) -> Lists:
    """The :data:`Lists` of a frame whose list columns hold the sorted values."""
    return lambda name: [functools.partial(lambda s: s, s) for s in df.get_column(name)]


def _in_batches(  # noqa: PLR0917 - the plan's parts, in order
    rows: pl.LazyFrame,
    keys: list[str],
    lists: list[pl.Expr],
    scalars: list[pl.Expr],
    checked: Callable[[pl.LazyFrame], pl.LazyFrame],
    finish: Callable[[pl.DataFrame, Lists], pl.DataFrame],
    metrics: list[str],
) -> pl.LazyFrame:
    """``finish`` of ``rows.group_by(keys).agg(*lists, *scalars)`` (the lists sorted), made
    a batch of rows at a time: each batch's lists grouped in memory and its scalars
    summed over the batch; the batches' groups merged, the scalars' totals
    ``checked`` (counts summed, minima of minima) and set on every segment's row;
    each segment's lists gathered from its batches and sorted only when ``finish``
    reads them, one segment at a time.  Polars' streaming ``group_by`` of lists
    holds every input column of the query until the end (100M rows of Parquet:
    3 GiB); this holds the lists' values, once.

    ``scalars``: counts of rows (the checks, which the callers sum over the
    segments) and the scores' minima (:data:`_MIN`), read over all the rows.
    """
    import numpy as np

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

    def run() -> pl.DataFrame:
        grouped, sums = [], [no_rows.select(scalars)]
        for batch in batches.collect_batches(chunk_size=BATCH_ROWS, maintain_order=False):
            lazy = batch.lazy()
            per_segment, total = pl.collect_all(
                [lazy.group_by(keys).agg(lists), lazy.select(scalars)], engine="in-memory"
            )
            grouped.append(per_segment)
            sums.append(total)
        totals = checked(pl.concat(sums).lazy().select(map(merge, counts))).collect()
        parts = pl.concat(grouped or [pl.DataFrame(schema=part_schema)])
        df = (
            parts.select(keys)  # not the lists: grouping the frame would copy them
            .with_row_index(_PART_ROW)
            .group_by(keys)
            .agg(_PART_ROW)
            .with_columns(pl.lit(totals.get_column(c).item()).alias(c) for c in totals.columns)
        )
        # a segment's row of each batch, read from the batch's own frame: a gather from
        # the concatenation (a chunk per batch) costs ~1 ms a row
        offsets = np.cumsum([0, *(g.height for g in grouped)])

        def segment(columns: list[pl.Series], at: Any) -> pl.Series:
            batch = np.searchsorted(offsets, at, side="right") - 1
            pieces = [columns[b][int(r - offsets[b])] for b, r in zip(batch, at, strict=True)]
            return pl.concat(pieces).sort()

        def lists_(name: str) -> Iterable[Callable[[], pl.Series]]:
            columns = [g.get_column(name) for g in grouped]
            for rows_ in df.get_column(_PART_ROW):
                yield functools.partial(segment, columns, rows_.to_numpy())

        return finish(df, lists_)

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


def _values(
    height: int,
    lists: Lists,
    n_tasks: int,
    metric: str,
    *,
    binary: bool,
    z: float | None,
    average: str,
    keyed: bool,
) -> list[pl.Series]:
    """The metric (binary; the AUC with ``z``: and DeLong's bounds) or the mean of the
    one-vs-rest AUCs of each of the ``height`` rows (segments) of the sorted lists;
    a segment at a time (its arrays are freed before the next one's are made)."""
    if keyed:
        tasks = [
            (functools.partial(lambda k: _Keyed(k()), k) for k in lists(f"{_KEY}{i}"))
            for i in range(n_tasks)
        ]
    else:
        tasks = [
            (
                functools.partial(lambda p, n: _Searched(p(), n()), p, n)
                for p, n in zip(lists(f"{_POS}{i}"), lists(f"{_NEG}{i}"), strict=True)
            )
            for i in range(n_tasks)
        ]
    value = _METRICS[metric]

    def row(segments: tuple[Callable[[], _Searched | _Keyed], ...]) -> tuple[float | None, ...]:
        """One row: a segment's classes, sorted and finished (freed after)."""
        if binary:
            return value(segments[0](), z)
        # the mean over the classes of the segment's one-vs-rest AUCs (APs: a class
        # without positives has AP 0.0 and counts, as on the counting path)
        aucs, positives = [], []
        for make in segments:
            sorted_ = make()
            aucs.append(value(sorted_, None)[0])
            positives.append(sorted_.n_pos)
        return (_average(aucs, positives, average),)

    # a few large segments: two at a time (polars' sort and numpy release the GIL)
    threads = min(os.cpu_count() or 1, 2) if 1 < height <= _THREADED_SEGMENTS else 1
    with ThreadPoolExecutor(threads) as pool:
        rows = list(pool.map(row, zip(*tasks, strict=True)))
    assert len(rows) == height
    width = 1 if z is None else 3
    values = list(zip(*rows, strict=True)) if rows else [()] * width
    return [pl.Series(values=list(c), dtype=pl.Float64) for c in values]


def _average(aucs: list[float | None], positives: list[int], average: str) -> float | None:
    """Mean of the defined AUCs (or APs): plain (macro) or weighted by the positives
    (prevalence)."""
    kept = [(a, p) for a, p in zip(aucs, positives, strict=True) if a is not None]
    if not kept:
        return None
    if average == "weighted":
        total = sum(p for _, p in kept)
        return sum(a * p for a, p in kept) / total
    return sum(a for a, _ in kept) / len(kept)
