"""``drift``'s sorted distances: two-sample KS and Wasserstein against one reference.

Both sides go through :class:`Sweep` in slices of ascending value ranges (low,
high], each side's distinct values with their counts: one slice holding every value
when they fit in memory, else as many as keep each slice's values bounded
(``_drift.metrics._sliced_distances``), so that neither side is held at once.  Within a
slice, each current value finds its place in the slice's reference by one binary
search, and everything else is elementwise; a segment's values go in chunks of
:data:`CHUNK` (a segment may span chunks), so the elementwise work's temporaries are
bounded, and the chunks run on the polars thread pool's number of threads (numpy
releases the GIL).  What a slice needs of the slices below it is carried: the
reference's largest value below the slice, its count of values at or below it and
H there, and each segment's count of values below the slice.

KS: between two current values the current ECDF is flat and the reference's
rises, so |F_r - F_c| is largest at a current value (both right-continuous) or just
before one (both left limits): the counts there are those SciPy's ``ks_2samp``
divides, so the statistic is the same number (SciPy's exact mode may restate it as
a fraction of the sample sizes, a last bit apart).

Wasserstein: the integral of |F_r - F_c|, over each stretch where F_c is constant
(F_c = t = k / m), from the integral of F_r, split where F_r reaches t (the
reference's value of rank ceil(k n / m)) and where it exceeds t.  The stretches
are cut at the slices' bounds: within a slice, from the bound below to a segment's
first value there (t its share of values below the slice), from each value to the
next, and from its last value there to the bound above; a segment without values
in a slice has one stretch over all of it.  Before a segment's first value t = 0
(the area is H there), after its last t = 1 (up to the reference's largest value).
With one slice the sums are those of the values in memory, bit for bit.

Each area is read from local quantities, never as a difference of two values of
H (a running sum from the reference's smallest value, which may be far larger
than the areas read from it: a reference value at -1e15 among values in [0, 3]
makes H about 2e14 there, whose last bit is 0.03, and the areas 0.02).  The
integral of F_r between two points (:meth:`_Reference.integral`) is F_r times the
distance where both lie between the same two reference values; else F_r times
the distance from the lower point up to the next reference value, plus the
running sums between the reference values, plus F_r times the distance from the
last reference value up to the higher point.  The running sums are held in two
floats, the sums and their rounding errors (Knuth's two-sum, exact per step; the
errors' own sum rounds at about 2**-104 of H), so their differences carry about
n 2**-104 of H.  Where F_r = t the area is 0, not a difference of two equal
integrals (:meth:`_Reference.stretches`).  So each stretch's area carries the
rounding of its own terms, as SciPy's sum of |F_r - F_c| times each gap does,
plus that floor (found by hypothesis: 2.4e-33 off an area of 2.2e-24 beside
values at 1 and 2).
"""

from __future__ import annotations

import itertools
import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import polars as pl

#: Current values worked on at once (a chunk's temporaries are a few dozen arrays
#: of this length).
CHUNK = 1 << 16


def _running(start: complex, steps: Any) -> Any:
    """``start`` then its running sums with ``steps``, as complex numbers: the real
    part the sums, the imaginary part their rounding errors, summed apart (two-sum
    of the sum before and the step: numpy's cumulative sum adds one step at a time,
    so each error is exact).  One gather reads both parts, one subtraction takes
    both parts' differences (:func:`_between`)."""
    import numpy as np

    sums = np.empty(steps.size + 1, dtype=np.complex128)
    hi, lo = sums.real, sums.imag  # views: written in place
    np.cumsum(np.r_[start.real, steps], out=hi)
    before, after = hi[:-1], hi[1:]
    step = after - before
    errors = (before - (after - step)) + (steps - step)
    np.cumsum(np.r_[start.imag, errors], out=lo)
    return sums


def _between(low: Any, high: Any) -> Any:
    """``high`` less ``low`` (running sums of :func:`_running`), part by part: the
    sums' difference is exact (Sterbenz) or as large as the result."""
    difference = high - low
    return difference.real + difference.imag


class _At:
    """Points x of the line where the integral of F_r is read, with what
    :meth:`_Reference.integral` needs of each, worked out once (``ref.point``): ``i``
    the reference's count of values <= x, ``j`` the index of the largest of them
    (0 where none), ``after`` the index of the first value above x (``after_at``
    within the slice), ``f`` = F_r(x) = i / n, ``head`` = f (r_after - x), ``down`` =
    f (x - r_j), and the running sums at r_after and r_j (0 where i = 0)."""

    __slots__ = ("after", "after_at", "down", "f", "g_after", "g_j", "head", "i", "j", "x")

    def __init__(self, **fields: Any) -> None:
        for name, value in fields.items():
            setattr(self, name, value)

    def __getitem__(self, at: Any) -> _At:
        return _At(**{name: _item(getattr(self, name), at) for name in self.__slots__})

    @staticmethod
    def where(condition: Any, a: _At, b: _At) -> _At:
        import numpy as np

        fields = {
            name: np.where(condition, getattr(a, name), getattr(b, name)) for name in a.__slots__
        }
        return _At(**fields)


def _counted(counted: Any, value: Any) -> Any:
    """``value`` where ``counted``, else 0 (a point below every reference value)."""
    import numpy as np

    return value if np.ndim(counted) and counted.all() else np.where(counted, value, 0.0)


def _item(value: Any, at: Any) -> Any:
    """value[at], for an array, or a scalar (one point for all)."""
    import numpy as np

    return value if np.ndim(value) == 0 else value[at]


class _Reference:
    """A slice of the sorted reference: ``values`` its distinct values, ``tied`` their
    counts (None: one each), ``at_or_below`` each one's count of the reference's
    values at or below it (``n`` in all; None: ``first`` + its index), ``grid`` H
    there (:func:`_running`); first, when there is one, the largest value below the
    slice (``carry``: value, at or below, H), which a value of the slice may need."""

    def __init__(self, n: int, values: Any, tied: Any, carry: tuple[float, int, complex] | None):
        import numpy as np

        self.n = n
        tied = tied.astype(np.int64) if tied is not None else None
        # one value per rank (tied None): the count at index j is first + j, and a
        # rank's index is rank - first (no search)
        self.distinct = tied is None or bool((tied == 1).all())
        if carry is None:
            self.values, self.tied, self.first = values, tied, 1
            # H(r_1) = 0, H(r_i+1) = H(r_i) + F_r(r_i)(r_i+1 - r_i), F_r(r_i) = its
            # at_or_below / n (a run of equal values adds (i / n) 0 = 0: one H per run)
            if self.distinct:
                self.at_or_below = None
                steps = np.arange(1, values.size) / n * np.diff(values)
            else:
                self.at_or_below = np.cumsum(tied)
                steps = self.at_or_below[:-1] / n * np.diff(values)
            self.grid = _running(0j, steps)
        else:
            value, count, h = carry
            self.values, self.first = np.r_[value, values], count
            if self.distinct:  # the carried value is below the slice: it adds 0
                self.tied, self.at_or_below = None, None
                steps = np.arange(count, count + values.size) / n * np.diff(self.values)
            else:
                self.tied = np.r_[0, tied]
                self.at_or_below = count + np.cumsum(self.tied)
                steps = self.at_or_below[:-1] / n * np.diff(self.values)
            self.grid = _running(h, steps)  # the same sums as one slice's

    def last(self) -> tuple[float, int, complex] | None:
        """The carry of the next slice: the largest value so far (None: no value yet)."""
        if not self.values.size:
            return None
        last = (
            self.first + self.values.size - 1 if self.at_or_below is None else self.at_or_below[-1]
        )
        return float(self.values[-1]), int(last), self.grid[-1]

    def search(self, x: Any) -> tuple[Any, Any]:
        """(the reference's count of values <= x, the index here of the largest of them;
        0 where there is none: its count is then 0)."""
        import numpy as np

        if not self.values.size:  # no value at or below this slice's bound above
            return np.zeros(np.shape(x), dtype=np.int64), np.zeros(np.shape(x), dtype=np.int64)
        found = np.searchsorted(self.values, x, side="right")
        j = np.maximum(found - 1, 0)
        if self.at_or_below is None:  # the count at index j is first + j
            return (found if self.first == 1 else found + (self.first - 1)), j
        return np.where(found > 0, self.at_or_below[j], 0), j

    def point(self, x: Any, i: Any = None, j: Any = None) -> _At:
        """:class:`_At` of the points ``x`` (``i``, ``j``: :meth:`search`'s, if read
        already; -inf has count 0)."""
        import numpy as np

        if i is None:
            i, j = self.search(x) if np.ndim(x) or x != -math.inf else (0, 0)
        size = self.values.size
        if not size:  # no reference value up to here: F_r = 0, nothing to integrate
            zero = np.zeros(np.shape(x))
            return _At(
                x=x, i=i, j=j, after=zero, after_at=0, f=zero, head=zero, down=zero,
                g_after=zero, g_j=zero,
            )  # fmt: skip
        counted = i > 0
        f = i / self.n
        after = np.where(counted, j + 1, 0)
        after_at = np.minimum(after, size - 1)
        values, grid = self.values, self.grid
        return _At(
            x=x,
            i=i,
            j=j,
            after=after,
            after_at=after_at,
            f=f,
            head=_counted(counted, f * (values.take(after_at) - x)),
            down=_counted(counted, f * (x - values.take(j))),
            g_after=grid.take(after_at),
            g_j=grid.take(j),
        )

    def _value(self, at: Any) -> tuple[Any, Any]:
        """The reference's values of indices ``at``, and the running sums there."""
        return self.values.take(at), self.grid.take(at)

    def integral(self, a: _At, b: _At) -> Any:
        """int_a^b F_r (a <= b) from local terms: f (b - a) where no reference value
        lies in (a, b]; else a's head (up to the first reference value r' above a),
        the running sums from r' to b's r_j, and b's down (from r_j to b).  A point of
        count 0 adds nothing, even at -inf."""
        import numpy as np

        across = a.head + _between(a.g_after, b.g_j) + b.down
        return np.where(a.after > b.j, a.f * (b.x - a.x), across)

    def stretches(  # noqa: PLR0917 - the stretches' ends, F_c there, their points
        self, u: Any, v: Any, k: Any, m: Any, h_u: _At, h_v: _At, *, positive: bool = False
    ) -> Any:
        """int_u^v |F_r - t|, F_c = t = k / m on [u, v] (finite unless t is 0 or 1), in
        three parts: up to e where F_r reaches t (the reference's value of rank
        ceil(k n / m)) F_r < t, the area t (e - u) less F_r's integral; from e' where
        F_r exceeds t (rank floor(k n / m) + 1; e' = e unless k n / m is a whole
        number) F_r > t, F_r's integral less t (v - e'); between them F_r = t and the
        area is 0, not a difference of two large equal numbers (e, e' clipped to
        [u, v]).  ``positive``: every k >= 1 (stretches from a value)."""
        import numpy as np

        n, t = self.n, k / m
        zero = None if positive else k == 0  # t = 0: F_r - 0 (u may be -inf)
        if not self.values.size:  # no reference value up to here: F_r = 0
            return np.where(k == 0, 0.0, t * (v - u))
        whole = self.integral(h_u, h_v)
        # F_r >= t from the value of rank `reaches` on, F_r > t from `exceeds`'s
        (e, g_e), (e2, g_e2) = self._crossings(*_ranks(k, n, m), zero)
        left = np.where(e <= u, 0.0, np.where(e >= v, whole, h_u.head + _between(h_u.g_after, g_e)))
        right = np.where(e2 >= v, 0.0, np.where(e2 <= u, whole, _between(g_e2, h_v.g_j) + h_v.down))
        area = (t * (np.clip(e, u, v) - u) - left) + (right - t * (v - np.clip(e2, u, v)))
        return area if zero is None else np.where(zero, whole, area)

    def _crossings(
        self, reaches: Any, exceeds: Any, zero: Any
    ) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
        """The reference's values of ranks ``reaches`` and ``exceeds`` (-inf where
        ``zero`` for the first; +inf where a rank is above the slice or above n), and
        the running sums there; the second read only where the ranks differ (k n / m
        a whole number, t = 0 included)."""
        import numpy as np

        first = self._crossing(reaches)
        if np.ndim(reaches) == 0 or np.ndim(first[0]) == 0:  # one k for all
            second = first if exceeds == reaches else self._crossing(exceeds)
        else:
            differ = np.flatnonzero(exceeds != reaches)
            second = first
            if differ.size > reaches.size // 4:  # (n = m: every k) all read again
                second = self._crossing(exceeds)
            elif differ.size:
                value, sums = first[0].copy(), first[1].copy()
                value[differ], sums[differ] = self._crossing(exceeds[differ])
                second = value, sums
        if zero is not None:
            first = np.where(zero, -np.inf, first[0]), first[1]
        return first, second

    def _crossing(self, rank: Any) -> tuple[Any, Any]:
        """The reference's value of ``rank`` (+inf where the rank is above the slice or
        above n), and the running sums there."""
        import numpy as np

        size = self.values.size
        if self.at_or_below is None:  # a rank below the slice: its first
            at = np.maximum(rank - self.first, 0)
        else:
            at = np.searchsorted(self.at_or_below, rank, side="left")
        value, sums = self._value(np.minimum(at, size - 1))
        return np.where(at >= size, np.inf, value), sums

    def bounded(  # noqa: PLR0917 - as stretches
        self, u: Any, v: Any, k: Any, m: Any, h_u: Any, h_v: Any
    ) -> Any:
        """:meth:`stretches` of stretches from or to a slice's (finite) bound: where the
        slice holds the reference's largest value, above it F_r = 1 and the area is
        (1 - t) times the length there, exactly; H's increase less t times the length
        would lose a small area to rounding at large values (0 after a segment's last
        value, F_c = 1, read as 0.016 at 1e14)."""
        import numpy as np

        last = self.last()
        if last is None or last[1] < self.n:
            return self.stretches(u, v, k, m, h_u, h_v)
        top = last[0]
        h_top = self.point(top)
        above = np.maximum(v, top) - np.maximum(u, top)
        below = self.stretches(
            np.minimum(u, top),
            np.minimum(v, top),
            k,
            m,
            _At.where(u > top, h_top, h_u),
            _At.where(v > top, h_top, h_v),
        )
        # t = 1: 0, not 0 times a length that overflows to inf near 1.8e308
        return below + np.where(k == m, 0.0, (1 - k / m) * above)

    def tail(self, u: Any, h_u: Any) -> Any:
        """int_u^inf (1 - F_r): after a segment's last value, up to the largest value."""
        import numpy as np

        top = self.values[-1]
        return np.where(u < top, (top - u) - self.integral(h_u, self.point(top)), 0.0)


class _Current:
    """A slice's current values, a run of equal values of a segment once: ``values``
    its distinct values, ``starts`` / ``ends`` each segment's among them, ``size`` each
    segment's count of values (all of them, not only this slice's), ``below`` its
    count below the slice, ``at_or_below`` / ``tied`` each distinct value's count of
    the segment's values at or below it, and of equal ones (both None when each value
    is there once: :class:`_Chunk` counts them).  Ties add nothing to
    either distance: the ECDFs are read at the run's ends, and a stretch between
    equal values has no area."""

    def __init__(  # noqa: PLR0917 - the arrays above
        self,
        values: Any,
        starts: Any,
        ends: Any,
        size: Any,
        below: Any,
        at_or_below: Any,
        tied: Any,
    ) -> None:
        self.values, self.starts, self.ends, self.size = values, starts, ends, size
        self.below, self.at_or_below, self.tied = below, at_or_below, tied


class _Slice:
    """A slice's bounds (low, high] and their points (:class:`_At`, where the
    integral of F_r is read)."""

    def __init__(self, ref: _Reference, low: float, high: float) -> None:
        self.low, self.high = low, high
        self.h_low = ref.point(low)  # (-inf: count 0)
        self.h_high = ref.point(low if high == math.inf else high)  # (unused at inf)


class Sweep:
    """KS and Wasserstein between a reference of ``n`` values and each of
    ``sizes.size`` segments of current values, both sides added in slices of
    ascending value ranges that cover the line (:meth:`add`)."""

    def __init__(self, n: int, sizes: Any) -> None:
        import numpy as np

        self.n = n
        self.size = sizes.astype(np.int64)
        segments = sizes.size
        self.largest = np.zeros(segments)
        self.area = np.zeros(segments)
        self.infinite = np.zeros(segments, dtype=bool)
        self.below = np.zeros(segments, dtype=np.int64)  # values in earlier slices
        self.carry: tuple[float, int, complex] | None = None
        self.reference_infinite = False

    def add(  # noqa: PLR0917 - the bounds, the reference's values, the current's
        self,
        low: float,
        high: float,
        ref_values: Any,
        ref_tied: Any,
        ids: Any,
        counts: Any,
        values: Any,
        weights: Any = None,
    ) -> None:
        """The slice (low, high], above every earlier one: the reference's distinct
        values there (ascending) with their counts, and segments ``ids`` (ascending)
        with ``counts`` entries of ``values`` each (sorted within the segment, one
        segment after the other), each entry ``weights`` values (None: one)."""
        import numpy as np

        if self.n == 0:
            return
        with np.errstate(all="ignore"):  # infinities: the area is left undefined
            ref = _Reference(self.n, ref_values, ref_tied, self.carry)
            self.carry = ref.last()
            if ref_values.size and not np.isfinite(ref_values[[0, -1]]).all():
                self.reference_infinite = True
            bounds = _Slice(ref, low, high)
            keep = counts > 0
            ids, counts = ids[keep], counts[keep]
            if ids.size:
                cur = self._current(ids, counts, values, weights)
                self._values(ref, cur, bounds, ids)
            # the segments without values here: one stretch over the slice (finite
            # unless its t is 0 or 1: below the first value, or above the last)
            absent = np.ones(self.size.size, dtype=bool)
            absent[ids] = False
            absent &= self.size > 0
            k, m = self.below[absent], self.size[absent]
            if k.size and high == math.inf:  # after their last values (t = 1)
                self.area[absent] += ref.tail(np.full(k.size, low), bounds.h_low)
            elif k.size:
                h_low, h_high = bounds.h_low, bounds.h_high
                self.area[absent] += ref.bounded(low, high, k, m, h_low, h_high)
            if ids.size:
                tied = (
                    cur.ends - cur.starts
                    if cur.tied is None
                    else np.add.reduceat(cur.tied, cur.starts)
                )
                np.add.at(self.below, ids, tied)

    def _current(self, ids: Any, counts: Any, values: Any, weights: Any) -> _Current:
        """This slice's :class:`_Current`."""
        import numpy as np

        ends = np.cumsum(counts)
        starts = ends - counts
        # a run of equal values of a segment starts at each True
        new = np.ones(values.size, dtype=bool)
        new[1:] = values[1:] != values[:-1]
        new[starts] = True
        below = self.below[ids]
        if weights is None and new.all():  # each value once: counts worked out per chunk
            return _Current(values, starts, ends, self.size[ids], below, None, None)
        first = np.flatnonzero(new)
        distinct = values[first]
        tied = (
            np.diff(np.r_[first, values.size])
            if weights is None
            else np.add.reduceat(weights.astype(np.int64), first)
        )
        runs = np.r_[0, np.cumsum(new)]
        counts = runs[ends] - runs[starts]
        ends = np.cumsum(counts)
        starts = ends - counts
        total = np.cumsum(tied)
        # each value's count of its segment's values at or below it
        at_or_below = total - np.repeat(np.r_[0, total][starts] - below, counts)
        return _Current(distinct, starts, ends, self.size[ids], below, at_or_below, tied)

    def _values(self, ref: _Reference, cur: _Current, bounds: _Slice, ids: Any) -> None:
        """The segments with values in the slice: their gaps and stretches, in chunks."""
        import numpy as np

        cuts = _cuts(cur, CHUNK)
        threads = min(pl.thread_pool_size(), len(cuts) - 1)
        tasks = list(itertools.pairwise(cuts))

        def run(task: tuple[int, int]) -> tuple[Any, Any, Any, Any]:
            with np.errstate(all="ignore"):  # infinities: the area is left undefined
                return _chunk(ref, cur, bounds, *task)

        if threads > 1:
            with ThreadPoolExecutor(threads) as pool:
                parts = list(pool.map(run, tasks))
        else:
            parts = [run(task) for task in tasks]
        for seg, ks_part, w_part, inf_part in parts:  # a few per chunk: the segments it spans
            np.maximum.at(self.largest, ids[seg], ks_part)
            np.add.at(self.area, ids[seg], w_part)
            self.infinite[ids[seg]] |= inf_part

    def result(self) -> tuple[Any, Any]:
        """(KS, Wasserstein) of each segment: NaN where a side is empty, and the
        Wasserstein distance NaN where a value of either side is infinite (SciPy:
        inf or nan) or a sum overflows (values near the ends of the float range,
        where SciPy may still give a number)."""
        import numpy as np

        ks = np.full(self.size.size, np.nan)
        w = np.full(self.size.size, np.nan)
        if self.n == 0:
            return ks, w
        has = self.size > 0
        ks[has] = self.largest[has]
        w[has] = self.area[has]
        infinite = self.infinite
        if self.reference_infinite:
            infinite[:] = True
        w[infinite | ~np.isfinite(w)] = np.nan  # before the clip: an overflow to -inf is no 0
        np.maximum(w, 0.0, out=w, where=~np.isnan(w))  # equal ECDFs' area may sum to -1e-16
        return ks, w


def _ranks(k: Any, n: int, m: Any) -> tuple[Any, Any]:
    """(ceil(k n / m), floor(k n / m) + 1): the reference's ranks from which F_r >= t
    and F_r > t (t = k / m; k <= m), exact for counts below 2**32 (k n in uint64: in
    int64 it would wrap at about 3e9 rows a side); the second may be n + 1."""
    import numpy as np

    m64 = np.asarray(m).astype(np.uint64)
    floor, rest = np.divmod(np.asarray(k).astype(np.uint64) * np.uint64(n), m64)
    floor = floor.astype(np.int64)
    return floor + (rest > 0), floor + 1


def distances(reference: Any, values: Any, counts: Any) -> tuple[Any, Any]:
    """(KS, Wasserstein) between the sorted ``reference`` and each segment of
    ``values`` (each segment's sorted, one after the other, ``counts`` values each),
    all in memory: :class:`Sweep` with one slice."""
    import numpy as np

    sweep = Sweep(reference.size, counts)
    if reference.size:
        new = np.ones(reference.size, dtype=bool)
        new[1:] = reference[1:] != reference[:-1]
        if new.all():
            distinct, tied = reference, None
        else:
            first = np.flatnonzero(new)
            distinct, tied = reference[first], np.diff(np.r_[first, reference.size])
        ids = np.arange(counts.size)
        sweep.add(-math.inf, math.inf, distinct, tied, ids, counts, values)
    return sweep.result()


def _cuts(cur: _Current, chunk: int) -> list[int]:
    """Chunk bounds: segments together up to about ``chunk`` values, and a segment of
    more cut every ``chunk`` values from its own start (so a segment's pieces, and
    the order its sums are taken in, do not depend on the other segments)."""
    import numpy as np

    starts, ends = cur.starts, cur.ends
    total = int(ends[-1])
    bounds = {0, total}
    bounds.update(ends[np.searchsorted(ends, np.arange(chunk, total, chunk))].tolist())
    large = ends - starts > chunk
    for start, end in zip(starts[large].tolist(), ends[large].tolist(), strict=True):
        bounds.update(range(start, end, chunk))
        bounds.add(end)
    return sorted(bounds)


def _chunk(
    ref: _Reference, cur: _Current, bounds: _Slice, lo: int, hi: int
) -> tuple[Any, Any, Any, Any]:
    """(the segments ``cur.values[lo:hi]`` spans, each one's largest KS gap there, its
    area there, whether it has an infinite value there)."""
    import numpy as np

    chunk = _Chunk(ref, cur, lo, hi)
    x, offsets = chunk.x, chunk.offsets
    finite = np.isfinite(x)
    infinite = (
        np.zeros(offsets.size, dtype=bool)
        if finite.all()
        else np.logical_or.reduceat(~finite, offsets)
    )
    return chunk.spanned, chunk.largest_gaps(), chunk.areas(bounds), infinite


class _Chunk:
    """Values ``lo:hi`` of the slice's current values: where each stands in its
    segment and in the reference."""

    def __init__(self, ref: _Reference, cur: _Current, lo: int, hi: int) -> None:
        import numpy as np

        self.ref, self.cur, self.lo, self.hi = ref, cur, lo, hi
        starts, ends = cur.starts, cur.ends
        self.x = x = cur.values[lo:hi]
        first_seg = int(np.searchsorted(ends, lo, side="right"))
        last_seg = int(np.searchsorted(ends, hi - 1, side="right"))
        spanned = np.arange(first_seg, last_seg + 1)
        pieces = np.minimum(ends[spanned], hi) - np.maximum(starts[spanned], lo)
        keep = pieces > 0  # segments with no values lie between
        self.spanned, pieces = spanned[keep], pieces[keep]
        self.offsets = offsets = np.cumsum(pieces) - pieces  # each piece's start here
        if self.spanned.size == 1:  # within one segment (a large one's chunks)
            self.m = cur.size[self.spanned[0]]
            self.below_slice = cur.below[self.spanned[0]]
        else:
            self.m = cur.size[np.repeat(self.spanned, pieces)]
            self.below_slice = cur.below[self.spanned]
        # the current ECDF (times m) at and just below each value
        if cur.at_or_below is None or cur.tied is None:  # each value once
            if self.spanned.size == 1:
                start = starts[self.spanned[0]]
                at = np.arange(lo - start, hi - start) + self.below_slice
            else:
                at = np.arange(lo, hi) - np.repeat(starts[self.spanned] - self.below_slice, pieces)
            self.k, self.below = at + 1, at
        else:
            self.k = cur.at_or_below[lo:hi]
            self.below = self.k - cur.tied[lo:hi]
        # the pieces' first values where a segment's values in the slice start, and
        # their last where they end
        is_first = lo + offsets == starts[self.spanned]
        self.firsts, self.firsts_of = offsets[is_first], np.flatnonzero(is_first)
        lasts = offsets + pieces - 1
        self.lasts = lasts[lo + lasts == ends[self.spanned] - 1]
        # the reference's values <= x, and the index of the largest
        # and of the next value (the last of all: itself), for :meth:`areas`
        self.ext = cur.values[lo : hi + 1] if hi < cur.values.size else np.r_[x, x[-1:]]
        self.i_ext, self.j_ext = ref.search(self.ext)
        self.i, self.j = self.i_ext[:-1], self.j_ext[:-1]
        self.at_j = ref.values[self.j] if ref.values.size else None

    def largest_gaps(self) -> Any:
        """Each piece's largest |F_r - F_c|, at its values and just below them."""
        import numpy as np

        ref, i, j, n, m = self.ref, self.i, self.j, self.ref.n, self.m
        below_r = i  # the reference's values < x: the same unless x is one of them
        if ref.values.size:
            equal = self.at_j == self.x
            if equal.any():
                equal &= i > 0
                tied = 1 if ref.tied is None else ref.tied[j]
                below_r = np.where(equal, i - tied, i)
        gap = np.maximum(np.abs(i / n - self.k / m), np.abs(below_r / n - self.below / m))
        return np.maximum.reduceat(gap, self.offsets)

    def areas(self, bounds: _Slice) -> Any:
        """Each piece's area between the ECDFs: from each value to the segment's next
        in the slice (the stretch [x, b), F_c = t there), from its last in the slice
        to the slice's bound above, and from the bound below to its first."""
        import numpy as np

        ref, x, k, m = self.ref, self.x, self.k, self.m
        # the points of these values and of the next one (the next chunk's first, or
        # the last value of all again: a segment's last is patched below)
        h_ext = ref.point(self.ext, self.i_ext, self.j_ext)  # an infinite x: the caller
        h, h_b = h_ext[:-1], h_ext[1:]
        lasts, firsts = self.lasts, self.firsts
        area = ref.stretches(x, h_b.x, k, m, h, h_b, positive=True)
        if bounds.high == math.inf:  # after a segment's last value, F_c = 1
            area[lasts] = ref.tail(x[lasts], h[lasts])
        else:  # a segment's last here: up to the slice's bound
            k_last = k[lasts]
            m_last = m if np.ndim(m) == 0 else m[lasts]
            high = np.full(lasts.size, bounds.high)
            area[lasts] = ref.bounded(x[lasts], high, k_last, m_last, h[lasts], bounds.h_high)
        # from the slice's bound below to a segment's first value here (F_c = its
        # share of values below the slice; 0 below the first: the area is H there)
        below = self.below_slice
        k0 = below if np.ndim(below) == 0 else below[self.firsts_of]
        m0 = m if np.ndim(m) == 0 else m[firsts]
        low = np.full(firsts.size, bounds.low)
        from_low = ref.stretches if bounds.low == -math.inf else ref.bounded
        area[firsts] += from_low(low, x[firsts], k0, m0, bounds.h_low, h[firsts])
        return np.add.reduceat(area, self.offsets)


__all__ = ["CHUNK", "Sweep", "distances"]
