"""``drift``'s sorted distances: two-sample KS and Wasserstein against one reference.

The reference is sorted once (its values, their running integral); each segment of
the current values (sorted within the segment) finds its place in it by one binary
search per value, and everything else is elementwise.  The current values go in
chunks of :data:`CHUNK` values (a segment may span chunks), so the elementwise
work's temporaries are bounded; the chunks run on the polars thread pool's number
of threads (numpy releases the GIL).  The current values may come in slices of
ascending value ranges (:class:`Sweep`), each value's count of the segment's values
below it carried from slice to slice, so they need not be in memory at once.
Memory beside the sorted reference and a slice of the current values: about two
more values per reference value (three with ties), and a few integers per current
value of the slice (its runs of equal values and their counts).

KS: between two current values the current ECDF is flat and the reference's
rises, so |F_r - F_c| is largest at a current value (both right-continuous) or just
before one (both left limits): the counts there are those SciPy's ``ks_2samp``
divides, so the statistic is the same number (SciPy's exact mode may restate it as
a fraction of the sample sizes, a last bit apart).

Wasserstein: the integral of |F_r - F_c|, over each stretch between two current
values (F_c = k / m there) from the reference's running integral H(x) = int F_r,
split where F_r reaches k / m (the reference's value of rank ceil(k n / m)); before
a segment's first value it is H there, after its last the area where F_r < 1.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import polars as pl

#: Current values worked on at once (a chunk's temporaries are a few dozen arrays
#: of this length).
CHUNK = 1 << 18


class _Reference:
    """The sorted reference and what every chunk reads of it."""

    def __init__(self, values: Any) -> None:
        import numpy as np

        self.values = values
        self.n = n = values.size
        # H at the reference's values: H(r_1) = 0, H(r_i+1) = H(r_i) + (i / n)(r_i+1 - r_i)
        # (ties add 0, so a run of equal values shares one H)
        self.grid = np.r_[0.0, np.cumsum(np.arange(1, n) / n * np.diff(values))]
        starts = np.ones(n, dtype=bool)
        starts[1:] = values[1:] != values[:-1]
        # with ties, each value's run of equals: the index where it starts
        self.run_start = (
            None if starts.all() else np.maximum.accumulate(np.where(starts, np.arange(n), 0))
        )


class _Current:
    """A slice of the current values, a run of equal values of a segment once:
    ``values`` its distinct values, ``starts`` / ``ends`` each segment's among them,
    ``size`` each segment's count of values (all of them, not only this slice's);
    ``at_or_below`` / ``tied`` each distinct value's count of the segment's values at
    or below it, and of equal ones; ``held`` the values whose stretch to the
    segment's next value ends in a later slice (their area is counted there).  Ties
    add nothing to either distance: the ECDFs are read at the run's ends, and a
    stretch between equal values has no area."""

    def __init__(  # noqa: PLR0917 - the arrays above
        self, values: Any, starts: Any, ends: Any, size: Any, at_or_below: Any, tied: Any, held: Any
    ) -> None:
        self.values, self.starts, self.ends, self.size = values, starts, ends, size
        self.at_or_below, self.tied, self.held = at_or_below, tied, held


class Sweep:
    """KS and Wasserstein between the sorted ``reference`` and each of ``sizes.size``
    segments of current values, the current values added in slices of ascending
    value ranges (:meth:`add`; one slice holds them all when they fit in memory).
    A segment's last value of a slice (not its last of all) is held back: its
    stretch to the segment's next value is worked out with the next slice that
    has the segment's values.  The sums are the same numbers in any slicing, up to
    the order they are added in."""

    def __init__(self, reference: Any, sizes: Any) -> None:
        import numpy as np

        self.reference = reference
        self.ref = _Reference(reference) if reference.size else None
        self.size = sizes.astype(np.int64)
        segments = sizes.size
        self.largest = np.zeros(segments)
        self.area = np.zeros(segments)
        self.infinite = np.zeros(segments, dtype=bool)
        self.below = np.zeros(segments, dtype=np.int64)  # values in earlier slices
        empty = np.zeros(0, dtype=np.int64)
        # the held values: their segments (ascending), values and counts
        self.held: tuple[Any, Any, Any] = (empty, np.zeros(0), empty)

    def add(self, ids: Any, counts: Any, values: Any, weights: Any = None) -> None:
        """One slice, above every earlier one: segments ``ids`` (ascending), each with
        ``counts`` entries of ``values`` (sorted within the segment, one segment
        after the other), each entry ``weights`` values (None: one)."""
        import numpy as np

        keep = counts > 0
        if self.ref is None or not keep.any():
            return
        if not keep.all():
            ids, counts = ids[keep], counts[keep]
        cur, union = self._current(ids, counts, values, weights)
        bounds = _cuts(cur, CHUNK)
        threads = min(pl.thread_pool_size(), len(bounds) - 1)
        tasks = list(itertools.pairwise(bounds))
        ref = self.ref

        def run(task: tuple[int, int]) -> tuple[Any, Any, Any, Any]:
            with np.errstate(all="ignore"):  # infinities: the area is left undefined
                return _chunk(ref, cur, *task)

        if threads > 1:
            with ThreadPoolExecutor(threads) as pool:
                parts = list(pool.map(run, tasks))
        else:
            parts = [run(task) for task in tasks]
        for seg, ks_part, w_part, inf_part in parts:  # a few per chunk: the segments it spans
            np.maximum.at(self.largest, union[seg], ks_part)
            np.add.at(self.area, union[seg], w_part)
            self.infinite[union[seg]] |= inf_part
        last = cur.ends - 1
        held = cur.held[last]
        self.below[union] = cur.at_or_below[last] - np.where(held, cur.tied[last], 0)
        self.held = (union[held], cur.values[last[held]], cur.tied[last[held]])

    def _current(self, ids: Any, counts: Any, values: Any, weights: Any) -> tuple[_Current, Any]:
        """(this slice's :class:`_Current`, with the held values first in their
        segments; the segments it has, ascending)."""
        import numpy as np

        ends = np.cumsum(counts)
        starts = ends - counts
        # a run of equal values of a segment starts at each True
        new = np.ones(values.size, dtype=bool)
        new[1:] = values[1:] != values[:-1]
        new[starts[counts > 0]] = True
        if weights is None and new.all():
            distinct, tied = values, np.ones(values.size, dtype=np.int64)
        else:
            first = np.flatnonzero(new)
            distinct = values[first]
            tied = (
                np.diff(np.r_[first, values.size])
                if weights is None
                else np.add.reduceat(weights.astype(np.int64), first)
            )
            runs = np.r_[0, np.cumsum(new)]
            counts = runs[ends] - runs[starts]
        held_ids, held_values, held_tied = self.held
        if held_ids.size:  # each held value goes before its segment's values here
            union = np.union1d(ids, held_ids)
            pieces = np.zeros(union.size, dtype=np.int64)
            pieces[np.searchsorted(union, ids)] = counts
            has_held = np.isin(union, held_ids, assume_unique=True)
            pieces += has_held
            ends = np.cumsum(pieces)
            at_held = (ends - pieces)[has_held]
            rest = np.ones(int(ends[-1]), dtype=bool)
            rest[at_held] = False
            merged = np.empty(rest.size)
            merged[at_held], merged[rest] = held_values, distinct
            merged_tied = np.empty(rest.size, dtype=np.int64)
            merged_tied[at_held], merged_tied[rest] = held_tied, tied
            distinct, tied, counts = merged, merged_tied, pieces
        else:
            union = ids
            ends = np.cumsum(counts)
        starts = ends - counts
        total = np.cumsum(tied)
        # each value's count of its segment's values at or below it
        at_or_below = total - np.repeat(np.r_[0, total][starts] - self.below[union], counts)
        size = self.size[union]
        held = np.zeros(distinct.size, dtype=bool)
        held[ends - 1] = at_or_below[ends - 1] < size
        return _Current(distinct, starts, ends, size, at_or_below, tied, held), union

    def result(self) -> tuple[Any, Any]:
        """(KS, Wasserstein) of each segment: NaN where a side is empty, and the
        Wasserstein distance NaN where a value of either side is infinite (SciPy:
        inf or nan) or a sum overflows (values near the ends of the float range,
        where SciPy may still give a number)."""
        import numpy as np

        if self.held[0].size:  # pragma: no cover - a slice above every value is added
            msg = "a segment's last slice was not added"
            raise AssertionError(msg)
        ks = np.full(self.size.size, np.nan)
        w = np.full(self.size.size, np.nan)
        if self.ref is None:
            return ks, w
        has = self.size > 0
        ks[has] = self.largest[has]
        w[has] = self.area[has]
        infinite = self.infinite
        if not np.isfinite(self.reference).all():
            infinite[:] = True
        w[infinite | ~np.isfinite(w)] = np.nan  # before the clip: an overflow to -inf is no 0
        np.maximum(w, 0.0, out=w, where=~np.isnan(w))  # equal ECDFs' area may sum to -1e-16
        return ks, w


def distances(reference: Any, values: Any, counts: Any) -> tuple[Any, Any]:
    """(KS, Wasserstein) between the sorted ``reference`` and each segment of
    ``values`` (each segment's sorted, one after the other, ``counts`` values each),
    all in memory: :class:`Sweep` with one slice."""
    import numpy as np

    sweep = Sweep(reference, counts)
    sweep.add(np.arange(counts.size), counts, values)
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


def _chunk(ref: _Reference, cur: _Current, lo: int, hi: int) -> tuple[Any, Any, Any, Any]:
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
    return chunk.spanned, chunk.largest_gaps(), chunk.areas(), infinite


class _Chunk:
    """Values ``lo:hi`` of the current: where each stands in its segment and in the
    reference."""

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
            self.m = m = cur.size[self.spanned[0]]
        else:
            self.m = m = cur.size[np.repeat(self.spanned, pieces)]
        # the current ECDF (times m) at and just below each value
        self.k = cur.at_or_below[lo:hi]
        self.below = self.k - cur.tied[lo:hi]
        # the pieces' first values where a segment starts here, and their last where
        # it ends here
        self.firsts = offsets[self.below[offsets] == 0]
        lasts = offsets + pieces - 1
        self.lasts = lasts[self.k[lasts] == (m if np.ndim(m) == 0 else m[lasts])]
        # the reference's values <= x (searched), the largest of them r_j
        self.i = np.searchsorted(ref.values, x, side="right")
        self.j = np.maximum(self.i - 1, 0)
        self.at_j = ref.values[self.j]

    def largest_gaps(self) -> Any:
        """Each piece's largest |F_r - F_c|, at its values and just below them."""
        import numpy as np

        ref, i, j, n, m = self.ref, self.i, self.j, self.ref.n, self.m
        below_r = i  # the reference's values < x: the same unless x is one of them
        if ref.run_start is not None or (self.at_j == self.x).any():
            equal = (i > 0) & (self.at_j == self.x)
            below_r = np.where(equal, j if ref.run_start is None else ref.run_start[j], i)
        gap = np.maximum(np.abs(i / n - self.k / m), np.abs(below_r / n - self.below / m))
        return np.maximum.reduceat(gap, self.offsets)

    def areas(self) -> Any:
        """Each piece's area between the ECDFs, from each value to the segment's next
        (the stretch [x, b), F_c = t there), plus before a segment's first value and
        after its last."""
        import numpy as np

        ref, cur, lo, hi, x = self.ref, self.cur, self.lo, self.hi, self.x
        n, reference, grid, values = ref.n, ref.values, ref.grid, cur.values
        # H at each value (an infinite x is caught by the caller)
        h = _h(ref, x, self.i, self.j, self.at_j)
        # the next value may be the next chunk's first; a segment's last is patched below
        if hi < values.size:
            b = values[lo + 1 : hi + 1]
            h_b = np.r_[h[1:], _h_at(ref, values[hi : hi + 1])]
        else:  # the last value of all is a segment's last
            b = np.r_[values[lo + 1 : hi], x[-1:]]
            h_b = np.r_[h[1:], h[-1:]]
        k, m = self.k, self.m
        t = k / m
        rank = np.minimum(-(-k * n // m), n)  # ceil(k n / m): F_r >= t from r_rank on
        crossing = reference[rank - 1]
        e = np.clip(crossing, x, b)
        h_e = np.where(crossing < x, h, np.where(crossing > b, h_b, grid[rank - 1]))
        area = (h_b - h) - t * (b - x) + 2 * (t * (e - x) - (h_e - h))
        # after a segment's last value F_c = 1: the area where F_r < 1, up to the
        # reference's largest (H there is grid's last)
        top, lasts, firsts = reference[-1], self.lasts, self.firsts
        x_last = x[lasts]
        area[lasts] = np.where(x_last < top, (top - x_last) - (grid[-1] - h[lasts]), 0.0)
        area[firsts] += h[firsts]  # before a segment's first value (F_c = 0): H there
        area[cur.held[lo:hi]] = 0.0  # its stretch ends in a later slice: counted there
        return np.add.reduceat(area, self.offsets)


def _h(ref: _Reference, x: Any, i: Any, j: Any, at_j: Any) -> Any:
    """H(x) = int_-inf^x F_r, from the reference's ``i`` values <= x, the largest of
    them ``at_j`` = r_j (j = max(i - 1, 0)): H(r_j) + (i / n)(x - r_j); i = 0 gives 0."""
    return ref.grid[j] + (i / ref.n) * (x - at_j)


def _h_at(ref: _Reference, x: Any) -> Any:
    """:func:`_h` of values not searched yet (a binary search each)."""
    import numpy as np

    i = np.searchsorted(ref.values, x, side="right")
    j = np.maximum(i - 1, 0)
    return _h(ref, x, i, j, ref.values[j])


__all__ = ["CHUNK", "distances"]
