"""The placements of one segment's sorted scores: ROC AUC (and DeLong's variance)
and average precision from a sort, two ways (:mod:`pl_metrics._ranking.sorted_path`
says which is used where).

- :class:`_Keyed` (scores not negative): each score's IEEE bits shifted left by
  one, its label in the freed lowest bit (:func:`_key`), sorted once; scanned in
  cache-sized blocks, a large segment in two halves on two threads.
- :class:`_Searched` (any sign): the positives' and the negatives' scores sorted
  apart, one binary-searched in the other (in parallel chunks).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import polars as pl

from pl_metrics._core import catalogue, formulas
from pl_metrics._stats import ap_delta

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
    (``_ranking.sorted_path.MixedSigns``).  Null scores or labels (refused by the checks
    before the keys are read) get a key all the same."""
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
    auc = float(formulas.placement(float(beyond), float(ties), n_total) / p_total)
    if z is None:
        return (auc,)
    if n_pos < 2 or n_neg < 2:
        return auc, None, None
    below, tied = s.per_positive()
    v10 = formulas.placement(below, tied, n_total)
    # a negative's placement: the positives above it, plus half those tied
    below_n, tied_n = s.per_negative()
    v01 = formulas.placement(p_total - below_n - tied_n, tied_n, p_total)
    se = float(
        formulas.delong_se(
            1.0, v10, 1.0, v01, auc=auc, p_total=p_total, n_total=n_total, xp=formulas.NUMPY
        )
    )
    return auc, min(max(auc - z * se, 0.0), 1.0), min(max(auc + z * se, 0.0), 1.0)


def _ap(s: _Searched | _Keyed, z: float | None) -> tuple[float | None, ...]:
    """Average precision of a segment's sorted scores: each positive adds 1 / P times
    the precision at its score's threshold (the rows scoring at least as high), so
    tied positives add their threshold's term together as scikit-learn's step-wise
    sum does; 0.0 without positives (as scikit-learn).  With ``z``: and its logit
    interval (``_stats.ap_delta``: the delta method's moments of the sorted
    positives; there are positives here)."""
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
    terms = formulas.average_precision_terms(1.0, tps, fps, xp=formulas.NUMPY)
    ap = float(formulas.average_precision_of_sum(terms.sum(), np.float64(n_pos)))
    if z is None:
        return (ap,)
    new = np.r_[True, p[1:] != p[:-1]]
    ap_, positives = np.array([ap]), np.array([n_pos])
    s2, s4 = ap_delta.sorted_moments(tps, fps, new, np.zeros(n_pos, np.int64), ap_, positives, 1)
    low, high = ap_delta.bounds(ap_, s2, s4, n_pos + s.n_neg, positives, z)
    return ap, float(low[0]), float(high[0])


#: The metric of a segment's sorted scores, by its statistic (``catalogue.Ranked``).
_METRICS = {catalogue.Ranked.AUC: _auc, catalogue.Ranked.AP: _ap}


def metric_of(metric: str) -> Any:
    """The function giving ``metric`` (a ranking metric of the catalogue: its
    ``ranked`` statistic) of a segment's sorted scores."""
    return _METRICS[catalogue.CATALOGUE[metric].ranked]  # type: ignore[index]
