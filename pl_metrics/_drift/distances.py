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
(F_c = t = k / m), from the reference's running integral H(x) = int F_r, split
where F_r reaches t (the reference's value of rank ceil(k n / m)).  The stretches
are cut at the slices' bounds: within a slice, from the bound below to a segment's
first value there (t its share of values below the slice), from each value to the
next, and from its last value there to the bound above; a segment without values
in a slice has one stretch over all of it.  Before a segment's first value t = 0
(the area is H there), after its last t = 1 (up to the reference's largest value).
With one slice the sums are those of the values in memory, bit for bit.
"""

from __future__ import annotations

import itertools
import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import polars as pl

#: Current values worked on at once (a chunk's temporaries are a few dozen arrays
#: of this length).
CHUNK = 1 << 18


class _Reference:
    """A slice of the sorted reference: ``values`` its distinct values, ``tied`` their
    counts (None: one each), ``at_or_below`` each one's count of the reference's
    values at or below it (``n`` in all; None: ``first`` + its index), ``grid`` H
    there; first, when there is one, the largest value below the slice (``carry``:
    value, at or below, H), which a value of the slice may need."""

    def __init__(self, n: int, values: Any, tied: Any, carry: tuple[float, int, float] | None):
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
            self.grid = np.r_[0.0, np.cumsum(steps)]
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
            self.grid = np.cumsum(np.r_[h, steps])  # the same sums as one slice's

    def last(self) -> tuple[float, int, float] | None:
        """The carry of the next slice: the largest value so far (None: no value yet)."""
        if not self.values.size:
            return None
        last = (
            self.first + self.values.size - 1 if self.at_or_below is None else self.at_or_below[-1]
        )
        return float(self.values[-1]), int(last), float(self.grid[-1])

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

    def h(self, x: Any, i: Any, j: Any, at_j: Any = None) -> Any:
        """H(x) = int_-inf^x F_r, from :meth:`search`'s ``i`` values <= x, the largest
        of them r_j (``at_j``, if read already): H(r_j) + (i / n)(x - r_j); i = 0
        gives 0."""
        import numpy as np

        if not self.values.size:
            return np.zeros(np.shape(x))
        return self.grid[j] + (i / self.n) * (x - (self.values[j] if at_j is None else at_j))

    def h_at(self, x: float) -> float:
        """H at one point (a slice's bound): 0 at -inf."""
        if x == -math.inf:
            return 0.0
        i, j = self.search(x)
        return float(self.h(x, i, j))

    def stretches(  # noqa: PLR0917 - the stretches' ends, F_c there, H at the ends
        self, u: Any, v: Any, k: Any, m: Any, h_u: Any, h_v: Any, *, positive: bool = False
    ) -> Any:
        """int_u^v |F_r - t|, F_c = t = k / m on [u, v] (finite unless t is 0 or 1): H's
        increase less t (v - u), and twice the area where F_r < t, up to e where F_r
        reaches t (the reference's value of rank ceil(k n / m), clipped to [u, v]).
        ``positive``: every k >= 1 (stretches from a value)."""
        import numpy as np

        n, t = self.n, k / m
        rank = _ceil_ratio(k, n, m)  # ceil(k n / m): F_r >= t from r_rank on
        zero = None if positive else k == 0  # t = 0: F_r - 0 (u may be -inf)
        if not self.values.size:  # no reference value up to here: F_r = 0
            return np.where(k == 0, h_v - h_u, t * (v - u))
        size = self.values.size
        if self.at_or_below is None:
            at = rank - self.first
            if self.first > 1 or zero is not None:  # a rank below the slice: its first
                at = np.maximum(at, 0)
        else:
            at = np.searchsorted(self.at_or_below, rank, side="left")
        # a rank above the slice (where it does not reach the reference's largest)
        beyond = at >= size if self.last()[1] < n else None  # type: ignore[index]
        if beyond is not None:
            at = np.minimum(at, size - 1)
        crossing, h_crossing = self.values[at], self.grid[at]
        if beyond is not None:
            crossing = np.where(beyond, np.inf, crossing)
        if zero is not None:
            crossing = np.where(zero, -np.inf, crossing)
        e = np.clip(crossing, u, v)
        h_e = np.where(crossing < u, h_u, np.where(crossing > v, h_v, h_crossing))
        area = (h_v - h_u) - t * (v - u) + 2 * (t * (e - u) - (h_e - h_u))
        return area if zero is None else np.where(zero, h_v - h_u, area)

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
        top, _, h_top = last
        above = np.maximum(v, top) - np.maximum(u, top)
        below = self.stretches(
            np.minimum(u, top),
            np.minimum(v, top),
            k,
            m,
            np.where(u > top, h_top, h_u),
            np.where(v > top, h_top, h_v),
        )
        # t = 1: 0, not 0 times a length that overflows to inf near 1.8e308
        return below + np.where(k == m, 0.0, (1 - k / m) * above)

    def tail(self, u: Any, h_u: Any) -> Any:
        """int_u^inf (1 - F_r): after a segment's last value, up to the largest value."""
        import numpy as np

        top = self.values[-1]
        return np.where(u < top, (top - u) - (self.grid[-1] - h_u), 0.0)


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
    """A slice's bounds (low, high] and H there."""

    def __init__(self, ref: _Reference, low: float, high: float) -> None:
        self.low, self.high = low, high
        self.h_low = ref.h_at(low)
        self.h_high = math.nan if high == math.inf else ref.h_at(high)


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
        self.carry: tuple[float, int, float] | None = None
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


def _ceil_ratio(k: Any, n: int, m: Any) -> Any:
    """ceil(k n / m), at most n (k <= m), exact for counts below 2**32 (k n in
    uint64: in int64 it would wrap at about 3e9 rows a side)."""
    import numpy as np

    k64 = np.asarray(k).astype(np.uint64)
    m64 = np.asarray(m).astype(np.uint64)
    rank = (k64 * np.uint64(n) + (m64 - np.uint64(1))) // m64
    return np.minimum(rank, np.uint64(n)).astype(np.int64)


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
        self.i, self.j = ref.search(x)
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

        ref, cur, lo, hi, x = self.ref, self.cur, self.lo, self.hi, self.x
        values, k, m = cur.values, self.k, self.m
        h = ref.h(x, self.i, self.j, self.at_j)  # an infinite x is caught by the caller
        # the next value may be the next chunk's first; a segment's last is patched below
        if hi < values.size:
            b = values[lo + 1 : hi + 1]
            i, j = ref.search(values[hi : hi + 1])
            h_b = np.r_[h[1:], ref.h(values[hi : hi + 1], i, j)]
        else:  # the last value of all is a segment's last
            b = np.r_[values[lo + 1 : hi], x[-1:]]
            h_b = np.r_[h[1:], h[-1:]]
        lasts, firsts = self.lasts, self.firsts
        area = ref.stretches(x, b, k, m, h, h_b, positive=True)
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
