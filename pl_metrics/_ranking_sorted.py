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
and sorted when it is finished.  A segment of more than :data:`CHUNK_ROWS` rows
is finished alone, as above; the smaller ones a range of about that many rows
at a time, all the range's segments in one numpy pass (:func:`_chunk_metric`:
the same integer sums, by segment), never a Python step per segment.  Polars'
streaming ``group_by`` of lists would hold every column the query reads until
the end.

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

import importlib.util
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, Protocol

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

    def finish(df: pl.DataFrame, lists: Source) -> pl.DataFrame:
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
            lambda df: finish(df, _Ready(df)), schema=dict.fromkeys(metrics, pl.Float64)
        )
    result = _in_batches(rows, keys, lists, [*scalars, *minima], checked, finish, metrics)
    return names.restore_keys(result.sort(keys, nulls_last=True), segments.names)


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


def _flat(lists: pl.Series) -> tuple[Any, Any]:
    """The values of ``lists`` (no nulls), each list sorted, one after the other, and
    the lists' lengths (numpy); polars sorts the lists in parallel."""
    ready = lists.list.eval(pl.element().drop_nulls().sort())  # faster than list.sort
    values = ready.explode().drop_nulls()  # an empty list explodes to a null
    return values.to_numpy(), ready.list.len().to_numpy().astype("int64")


class _Ready:
    """The :class:`Source` of a frame whose list columns hold each segment's values."""

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    def sizes(self, lists: Sequence[str]) -> Any:
        return (
            self._df.select(pl.sum_horizontal(pl.col(c).list.len() for c in lists))
            .to_series()
            .to_numpy()
        )

    def segment(self, i: int, name: str) -> pl.Series:
        return self._df.get_column(name)[i]  # sorted by the query

    def chunk(self, a: int, b: int, name: str) -> tuple[Any, Any]:
        return _flat(self._df.get_column(name).slice(a, b - a))


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

    value = _METRICS[metric]

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
        if metric == "average_precision":
            return _chunk_ap(score[where], at, n_pos, n_neg, pos_before, beyond, z), n_pos
        sums = np.bincount(at, weights=beyond, minlength=n_segments)  # exact: integers
        ties = np.bincount(at, weights=np.broadcast_to(tied, at.shape), minlength=n_segments)
        defined = (n_pos > 0) & (n_neg > 0)
        auc = np.where(defined, fm.placement(sums, ties, n_total) / p_total, np.nan)
        if z is None:
            return [auc], n_pos
        v10 = fm.placement(beyond, tied, n_total[at])
        # each negative: the positives before it (its run's come after it), and tied
        where_n = np.flatnonzero(~positive)
        at_n = segment[where_n]
        below_n = where_n - starts[at_n] - (np.arange(where_n.size) - (starts - pos_before)[at_n])
        tied_n = 0 if run is None else pos_run[run[where_n]]
        v01 = fm.placement(p_total[at_n] - below_n - tied_n, tied_n, p_total[at_n])
        se = fm.delong_se_of_squares(
            np.bincount(at, weights=(v10 - auc[at]) ** 2, minlength=n_segments),
            np.bincount(at_n, weights=(v01 - auc[at_n]) ** 2, minlength=n_segments),
            p_total=p_total,
            n_total=n_total,
            xp=fm.NUMPY,
        )
        enough = (n_pos > 1) & (n_neg > 1)
        low = np.where(enough, np.clip(auc - z * se, 0.0, 1.0), np.nan)
        high = np.where(enough, np.clip(auc + z * se, 0.0, 1.0), np.nan)
        return [auc, low, high], n_pos


def _chunk_ap(  # noqa: PLR0917 - _chunk_metric's arrays, in its order
    scores: Any, at: Any, n_pos: Any, n_neg: Any, pos_before: Any, beyond: Any, z: float | None
) -> list[Any]:
    """:func:`_ap` of each segment of a range, from the positives' ``scores`` (each
    segment's ascending, one segment after the other; ``at``: their segments) and the
    negatives strictly below each (``beyond``)."""
    import numpy as np

    index = np.arange(scores.size)
    new = np.empty(scores.size, dtype=bool)  # a positive that starts a run of its segment
    new[:1] = True
    new[1:] = (scores[1:] != scores[:-1]) | (at[1:] != at[:-1])
    first = np.maximum.accumulate(np.where(new, index, 0)) - pos_before[at]
    tps = (n_pos[at] - first).astype(np.float64)
    fps = (n_neg[at] - beyond).astype(np.float64)
    terms = fm.average_precision_terms(1.0, tps, fps, n_pos[at].astype(np.float64), xp=fm.NUMPY)
    # as _ranking.ap_exprs: within [0, 1]; 0.0 without positives (as scikit-learn)
    ap = np.clip(np.bincount(at, weights=terms, minlength=n_pos.size), 0.0, 1.0)
    if z is None:
        return [ap]
    low, high = fm.ap_logit_bounds(ap, n_pos, z, xp=fm.NUMPY)  # NaN without positives
    return [ap, low, high]
