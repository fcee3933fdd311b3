"""Drawing bootstrap replicates of cell counts: exact multinomial or Poisson redraws, keyed.

Each replicate of a segment is one multinomial draw of its cell counts, made
in one of two exact ways, whichever costs less for the segment (:func:`_draw`):
``n`` rows drawn uniformly and counted by cell (small segments), or numpy's
multinomial, a chain of binomials (large segments).  Each segment draws from
its own generator (:func:`generator`: the seed and a stable hash of its key);
a segment too large for one block of replicates draws block j from the
generator of (seed, key, j), its rows range by range (:class:`_Ranges`), and
its blocks on the threads in any order (:class:`Blocks`); a ranking metric may
fold such a segment's replicates as they are drawn (:meth:`_Ranges.fold`)
instead of laying them out in blocks.  :func:`redraw`
packs segments in chunks and hands each chunk's draws to a reduction
(:mod:`pl_metrics._intervals.draws`).

The Poisson bootstrap (``ci_method="poisson"``, a seed wrapped in
:class:`Poisson`) gives each row a Poisson(1) count instead, so a cell of c
rows is Poisson(c) (a sum of independent Poissons), every cell independently.
Drawn the same two ways, from the same generators: a segment drawn by rows
first draws each replicate's total N ~ Poisson(n), then N rows uniformly (the
cells of a multinomial of N rows given N ~ Poisson(n) are independent
Poisson(c): "Poissonization"), at the multinomial's cost; one drawn by cells
draws each cell's Poisson(c) directly.  A replicate's row total varies: its
blocks say so (``Blocks.fixed_total`` False), and a reduction must not read a
replicate's rows off another replicate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import polars as pl

if TYPE_CHECKING:
    import numpy as np

#: A segment's replicates are drawn a block at a time, a block holding ~4M draws.
_BLOCK_CELLS = 1 << 22
#: Segments are packed in chunks (a task for a thread) of ~1M draws: memory
#: small, both cores busy, and few numpy calls per segment.
_CHUNK_CELLS = 1 << 20
#: A large segment's rows are drawn in ranges of this many (16 random bits a row;
#: a power of two, at most 2**16).
_RANGE = 1 << 16
#: A range's table of cells is uint16 when the range spans at most this many cells...
_SMALL_SPAN = 1 << 16
#: ... uint32 up to this many (a smaller table stays in the cache: 1.5x the draws of
#: an int64 one where a range spans 129,393 cells), int64 beyond.
_MEDIUM_SPAN = 1 << 32
#: A segment of n rows and k cells is redrawn row by row when n <= _ROW_COST k:
#: a uniform row costs about a sixteenth of a binomial variate.
_ROW_COST = 16
#: numpy's multinomial takes the shares as floats (count / rows) and subtracts them
#: as it goes: a conditional share is off by at most cells x rows x 2**-52,
#: relatively.  Up to cells x rows = 2**32 (1e-6 relatively, far below the
#: bootstrap's own noise) it draws; above, the chain of integer ratios does.
_FLOAT_CHAIN = 1 << 32

#: ``(lo, hi, blocks)`` of a chunk of segments ``lo..hi - 1`` -> ``(segment of
#: each output row, output columns)``; ``blocks``: the chunk's draws (replicate x
#: cell), all replicates in one block unless the chunk is one large segment.
Work = Callable[[int, int, "Blocks"], tuple["np.ndarray", dict[str, "np.ndarray"]]]


class Fold(Protocol):
    """A metric of a segment's replicates folded in their pairs of cells in order
    (:meth:`_Ranges.fold`; ``replicates.AucFold``)."""

    def add(self, r: int, pos: np.ndarray, neg: np.ndarray) -> None: ...

    def values(self) -> np.ndarray: ...


@dataclass(frozen=True)
class Poisson:
    """The seed of a Poisson bootstrap (``ci_method="poisson"``): passed wherever the
    multinomial bootstrap's ``seed`` goes, it makes :func:`redraw` and
    :func:`segment_draws` draw each cell of ``c`` rows as Poisson(c), from the
    generators the same ``seed`` gives the multinomial (:func:`generator`)."""

    seed: int | None


#: A bootstrap's seed: the multinomial's (an integer or None) or a Poisson one.
Seed: TypeAlias = "int | Poisson | None"


def resampling(ci_method: str | None, seed: int | None) -> tuple[str | None, Seed]:
    """``ci_method`` and ``seed`` as the bootstrap's code reads them: ``"poisson"`` is
    the bootstrap with its seed wrapped in :class:`Poisson`; others (None: each
    metric's default) are unchanged.

    Called once where a public method has checked its interval options, so that
    every path below dispatches on ``"bootstrap"`` and draws as the seed says.
    """
    if ci_method == "poisson":
        return "bootstrap", Poisson(seed)
    return ci_method, seed


def entropy_of(seed: Seed) -> tuple[int, bool]:
    """``SeedSequence(seed).entropy`` (``seed=None``: fresh) and whether the draws are
    Poisson."""
    import numpy as np

    poisson = isinstance(seed, Poisson)
    plain = seed.seed if isinstance(seed, Poisson) else seed
    return int(np.random.SeedSequence(plain).entropy), poisson  # type: ignore[arg-type]


def _stable_hash(key: tuple[Any, ...]) -> int:
    """A hash of a segment's key that is the same in every process and version."""
    return int.from_bytes(hashlib.blake2b(repr(key).encode(), digest_size=8).digest(), "little")


def generator(entropy: int, key: tuple[Any, ...], block: int | None = None) -> np.random.Generator:
    """The generator of the segment ``key``: ``SeedSequence(seed).entropy`` (read once
    per call, so that ``seed=None`` gives every segment the same fresh entropy)
    and a stable hash of the key; with ``block``, that of the segment's block of
    replicates ``block`` (a segment drawn in several blocks)."""
    import numpy as np

    spawn_key = (_stable_hash(key),) if block is None else (_stable_hash(key), block)
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=spawn_key))


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


def _by_rows(n: int, k: int) -> bool:
    """Whether a segment of ``n`` rows and ``k`` cells is drawn row by row."""
    return n <= _ROW_COST * k


def _width(n: int, k: int) -> int:
    """The draws a replicate of a segment of ``n`` rows and ``k`` cells makes: its rows
    when drawn row by row (a Poisson replicate's: n on average), else its cells."""
    return n if _by_rows(n, k) else k


def _block(n: int, k: int, n_boot: int) -> int:
    """The replicates of a segment drawn at once (a function of the segment only)."""
    width = _width(n, k)
    return max(1, min(n_boot, _BLOCK_CELLS // max(width, 1)))


def _binomials(counts: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` multinomial redraws of ``counts``: each cell Binomial(rows left, its
    share of the cells left), the last non-empty cell the rows left, an empty cell 0.

    Drawn by numpy's multinomial over the non-empty cells (the chain runs in C, per
    replicate: one call per segment; a numpy call per cell cost a quarter more,
    8 per segment of 3 classes), unless :data:`_FLOAT_CHAIN` says its float shares
    are not exact enough: then the chain is drawn here, a cell at a time, each
    share a ratio of integer counts.
    """
    import numpy as np

    cells = np.flatnonzero(counts)
    n = int(counts.sum())
    out = np.zeros((size, len(counts)), dtype=np.int64)
    if not len(cells):
        return out
    if len(cells) * n <= _FLOAT_CHAIN:
        out[:, cells] = rng.multinomial(n, counts[cells] / n, size=size)
        return out
    left = np.full(size, n, dtype=np.int64)
    rest = n
    for j in cells[:-1]:
        drawn = rng.binomial(left, int(counts[j]) / rest)
        out[:, j] = drawn
        left -= drawn
        rest -= int(counts[j])
    out[:, cells[-1]] = left
    return out


def _columns(k: int, pairs: bool) -> np.ndarray:
    """The column of each of ``k`` cells in a block: cell c at column c, or with
    ``pairs`` as :func:`_place` lays them out (cell 2 j at j, 2 j + 1 at k / 2 + j)."""
    import numpy as np

    cells = np.arange(k, dtype=np.intp)
    if not pairs:
        return cells
    return np.where(cells % 2 == 0, cells // 2, k // 2 + cells // 2)


def _draw(
    counts: np.ndarray,
    starts: np.ndarray,
    rngs: Sequence[np.random.Generator],
    size: int,
    poisson: bool = False,
    *,
    pairs: bool = False,
) -> np.ndarray:
    """``size`` multinomial redraws (replicate x cell) of the segments whose cells are
    ``counts[starts[i]:starts[i + 1]]``, each from its generator ``rngs[i]``.

    A segment of n rows is drawn as n uniform rows (when :func:`_by_rows`), or as
    a chain of binomials.  ``poisson``: each replicate's total is Poisson(n), its
    rows then drawn uniformly (by rows), or each cell of c rows is Poisson(c) (by
    cells).  ``pairs``: the block's columns are laid out as :func:`_place` says.

    The rows drawn are counted once for the whole chunk: each segment looks up
    the block position (replicate x column) of every row it draws, and one
    ``bincount`` of all of them is the block (a ``bincount`` and a ``_place`` per
    segment cost a fifth more on segments of 100 rows).
    """
    import numpy as np

    k = len(counts)
    bounds = starts.tolist()
    rows_of = np.add.reduceat(counts, starts[:-1]).tolist() if len(rngs) else []
    first_row = np.cumsum([0, *rows_of]).tolist()
    by_rows = [
        n > 0 and _by_rows(n, b - a)
        for n, a, b in zip(rows_of, bounds[:-1], bounds[1:], strict=True)
    ]
    # each row's column in the block, built once a segment is drawn by rows (not for
    # binomials: a row each cost 800 MB on 1e8 rows)
    column_of_row = None
    replicate = np.arange(size, dtype=np.intp) * k  # a replicate's first position
    # the positions drawn, in one buffer: a multinomial replicate draws each segment's
    # rows; a Poisson one draws Poisson(n) of them, drawn first (each segment's
    # generator draws its totals, then its rows, as before)
    if poisson:
        totals = {i: rngs[i].poisson(n, size) for i, n in enumerate(rows_of) if by_rows[i]}
        n_drawn = sum(int(t.sum()) for t in totals.values())
    else:
        n_drawn = size * sum(n for n, rows in zip(rows_of, by_rows, strict=True) if rows)
    positions = np.empty(n_drawn, dtype=np.intp)
    filled = 0
    # segments drawn by cells are added to the block as they are drawn (while in the
    # cache); with none, the block is the bincount of the rows drawn
    placed = not any(by_rows) or any(n and not r for n, r in zip(rows_of, by_rows, strict=True))
    out = np.zeros((size, k) if placed else (0, 0), dtype=np.int64)
    for i, rng in enumerate(rngs):
        a, b, n = bounds[i], bounds[i + 1], rows_of[i]
        if n == 0:
            continue
        if not by_rows[i]:
            drawn = (
                rng.poisson(counts[a:b], size=(size, b - a))
                if poisson
                else _binomials(counts[a:b], size, rng)
            )
            _place(out, drawn, a, pairs)
            continue
        if column_of_row is None:
            column_of_row = np.repeat(_columns(k, pairs), counts)
        table = column_of_row[first_row[i] : first_row[i] + n]
        width = np.uint16 if n < 1 << 16 else np.int64
        # np.take into the positions ("clip": not buffered; the rows are in range)
        if poisson:  # N ~ Poisson(n) rows a replicate, replicate after replicate
            count = int(totals[i].sum())
            rows = rng.integers(0, n, size=count, dtype=width)
            target = positions[filled : filled + count]
            np.take(table, rows, out=target, mode="clip")
            target += np.repeat(replicate, totals[i])
        else:
            count = size * n
            rows = rng.integers(0, n, size=(size, n), dtype=width)
            target = positions[filled : filled + count].reshape(size, n)
            np.take(table, rows, out=target, mode="clip")
            target += replicate[:, None]
        filled += count
    if not any(by_rows):
        return out
    counted = np.bincount(positions, minlength=size * k).reshape(size, k)
    if not placed:
        return counted
    out += counted
    return out


def _place(out: np.ndarray, drawn: np.ndarray, a: int, pairs: bool) -> None:
    """Add ``drawn`` (replicate x cell, or one replicate's cells), the draws of cells
    ``a, a + 1, ...``, to their columns of ``out``.

    ``pairs``: the cells come in pairs (2 j, 2 j + 1), ``a`` even, and ``out``
    holds the first cell of every pair in its first half, the second in its
    second half (cell 2 j at column j, 2 j + 1 at ``half + j``): a reduction reads
    each half as a contiguous array (a strided view of every other column costs
    it 2.5x).  Else cell c is at column c.
    """
    width = drawn.shape[-1]
    if not pairs:
        out[..., a : a + width] += drawn
        return
    half, j = out.shape[-1] // 2, a // 2
    out[..., j : j + (width + 1) // 2] += drawn[..., 0::2]
    out[..., half + j : half + j + width // 2] += drawn[..., 1::2]


def _bits16(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` uniform 16-bit values: the generator's raw 64-bit words, four values a
    word (``random_raw``: half ``Generator.bytes``' time for the same bits).  The
    words are split in the machine's byte order: a big-endian machine draws other
    replicates for a seed (the docs promise a seed's interval per version, not per
    platform)."""
    import numpy as np

    words = rng.bit_generator.random_raw(-(-count // 4))
    return np.asarray(words, dtype=np.uint64).view(np.uint16)[:count]


class _Ranges:
    """A large segment's rows in cache-sized ranges of :data:`_RANGE` rows (the last one
    shorter), drawn by :meth:`draw`: ``size`` multinomial redraws (replicate x cell)
    of its cell ``counts``, a replicate and a range at a time.

    A replicate's rows per range are one multinomial draw (:func:`_binomials`);
    each range's rows are then drawn uniformly within it (16 random bits a row,
    :func:`_bits16`,
    the last range by ``integers``), and counted by cell there: the cells a
    range covers, their counts and the rows drawn stay in the cache.  Exact: the
    rows are uniform among the n, given how many fall in each range.  ``poisson``
    (in :meth:`draw`): a replicate's rows per range are independent Poisson(range
    size) counts instead, the rows within each range drawn the same way.

    ``pairs``: the columns are laid out as :func:`_place` says.  A range's table then
    numbers its pairs' first cells, then their second cells (its local ``bincount``
    is two contiguous runs of the block's columns: adding them costs a third of
    adding every other cell of one run).
    """

    def __init__(self, counts: np.ndarray, *, pairs: bool = False) -> None:
        import numpy as np

        self.k, self.n, self.pairs = len(counts), int(counts.sum()), pairs
        n_ranges = -(-self.n // _RANGE)
        self.sizes = np.full(n_ranges, _RANGE, dtype=np.int64)
        self.sizes[-1] = self.n - _RANGE * (n_ranges - 1)
        cell_of_row = np.repeat(np.arange(self.k, dtype=np.int64), counts)
        first = np.arange(n_ranges, dtype=np.int64) * _RANGE
        # each range's first and last cell (with pairs: pair), and its rows' cells
        # (pairs) from its first
        lo, hi = cell_of_row[first], cell_of_row[first + self.sizes - 1] + 1
        if pairs:
            lo, hi = lo // 2, (hi + 1) // 2
        self.lo, self.width = lo, hi - lo
        start = np.repeat(lo, self.sizes)
        if pairs:  # a pair's first cell at its pair, its second one range width after
            local = cell_of_row // 2 - start + (cell_of_row % 2) * np.repeat(self.width, self.sizes)
            span = 2 * int(self.width.max())
        else:
            local, span = cell_of_row - start, int(self.width.max())
        # a table that stays in the cache: as small an integer as the widest range's
        # span of cells allows (empty cells lie between its rows' cells)
        wide = np.uint32 if span <= _MEDIUM_SPAN else np.int64
        self.local = local.astype(np.uint16 if span <= _SMALL_SPAN else wide)

    def _counted(
        self, size: int, rng: np.random.Generator, poisson: bool
    ) -> Iterator[tuple[int, int, np.ndarray]]:
        """``(replicate, range, counts)``: each replicate's rows drawn and counted range
        by range, in order; ``counts`` of the range's cells (with pairs: its pairs'
        first cells, then their second cells)."""
        import numpy as np

        if poisson:
            per_range = rng.poisson(self.sizes, size=(size, len(self.sizes)))
        else:
            per_range = _binomials(self.sizes, size, rng)
        last = len(self.sizes) - 1
        widths = (self.width * (2 if self.pairs else 1)).tolist()
        for r in range(size):
            drawn = per_range[r].tolist()
            bits = _bits16(rng, sum(drawn[:last]))
            ends = np.cumsum(drawn[:last]).tolist()
            for j in range(last + 1):
                if j < last:  # _RANGE a power of two: its low bits are uniform
                    rows = bits[ends[j] - drawn[j] : ends[j]]
                    if _RANGE < 1 << 16:
                        rows = rows & (_RANGE - 1)
                else:
                    rows = rng.integers(0, self.sizes[j], drawn[j])
                table = self.local[j * _RANGE : j * _RANGE + self.sizes[j]]
                # np.take: half the time of fancy indexing here; its cells counted as intp
                cells = np.take(table, rows.astype(np.intp)).astype(np.intp, copy=False)
                yield r, j, np.bincount(cells, minlength=widths[j])

    def draw(self, size: int, rng: np.random.Generator, poisson: bool = False) -> np.ndarray:
        import numpy as np

        out = np.zeros((size, self.k), dtype=np.int64)
        half = self.k // 2
        lows, widths = self.lo.tolist(), self.width.tolist()
        for r, j, counted in self._counted(size, rng, poisson):
            row, lo, width = out[r], lows[j], widths[j]
            row[lo : lo + width] += counted[:width]
            if self.pairs:
                row[half + lo : half + lo + width] += counted[width:]
        return out

    def fold(self, size: int, rng: np.random.Generator, poisson: bool, fold: Fold) -> np.ndarray:
        """``fold``'s values of the replicates :meth:`draw` draws (the same draws), each
        replicate's pairs handed to ``fold.add`` range by range, in order, and never
        laid out in a block (``pairs`` only): a block's passes over memory cost more
        than its replicates' reduction in the cache.

        A pair whose rows straddle two ranges is counted in both: its counts in the
        first are carried to the second, so that ``fold.add`` sees each pair once.
        """
        lows, widths = self.lo.tolist(), self.width.tolist()
        last = len(widths) - 1
        carried = None
        for r, j, counted in self._counted(size, rng, poisson):
            width = widths[j]
            pos, neg = counted[:width], counted[width:]
            if carried is not None:  # the previous range's last pair continues here
                pos[0] += carried[0]
                neg[0] += carried[1]
            carried = None
            if j < last and lows[j + 1] == lows[j] + width - 1:
                carried = (pos[-1], neg[-1])
                pos, neg = pos[:-1], neg[:-1]
            fold.add(r, pos, neg)
        return fold.values()


class Blocks:
    """The draws of a chunk of segments, a block of replicates (replicate x cell) at a
    time: iterated in order, or reduced with :meth:`map`, which draws and reduces
    the blocks of one large segment on ``threads`` threads.

    Block ``j`` of a segment drawn in several blocks comes from its own generator,
    keyed by the seed, the segment's key and ``j`` (:func:`generator`): the blocks
    are independent, so the threads may draw them in any order.

    ``fixed_total``: every replicate has each segment's rows (the multinomial); False
    for the Poisson bootstrap, whose replicates' row totals vary.  ``folded``: each
    block is already the metric of its replicates (replicate x 1), folded as they
    were drawn (:meth:`_Ranges.fold`), not their draws.
    """

    def __init__(
        self,
        make: Callable[[int], np.ndarray],
        n_blocks: int,
        threads: int = 1,
        *,
        fixed_total: bool,
        folded: bool = False,
    ) -> None:
        self._make, self._n, self._threads = make, n_blocks, threads
        self.fixed_total, self.folded = fixed_total, folded

    @classmethod
    def one(cls, block: np.ndarray, *, fixed_total: bool) -> Blocks:
        """Blocks of the single ``block``, already drawn."""
        return cls(lambda _: block, 1, fixed_total=fixed_total)

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self._make(j) for j in range(self._n))

    def map(self, fn: Callable[[np.ndarray], Any]) -> list[Any]:
        """``[fn(block) for block in self]``, the blocks drawn and reduced in parallel."""
        if self._n == 1 or self._threads == 1:
            return [fn(block) for block in self]
        with ThreadPoolExecutor(min(self._threads, self._n)) as pool:
            return list(pool.map(lambda j: fn(self._make(j)), range(self._n)))


def segment_draws(
    counts: np.ndarray,
    n_boot: int,
    entropy: int,
    key: tuple[Any, ...],
    threads: int = 1,
    *,
    poisson: bool = False,
    pairs: bool = False,
    fold: Callable[[int], Fold] | None = None,
) -> Blocks:
    """``n_boot`` redraws of one segment's cell ``counts`` (its key ``key``), a block
    of replicates at a time: the draws :func:`redraw` makes for that segment.

    A segment drawn in one block draws from ``generator(entropy, key)``, rows or
    binomials (or ``poisson`` counts) as :func:`_draw` says; one drawn in several
    blocks draws block ``j`` from ``generator(entropy, key, j)``, by
    :class:`_Ranges` when it is drawn by rows.  ``pairs``: the columns of a block
    are laid out as :func:`_place` says.  ``fold`` (with ``pairs``; a block's size
    -> its :class:`Fold`): a segment drawn by :class:`_Ranges` gives its blocks
    folded (``Blocks.folded``), the same draws.
    """
    import numpy as np

    counts = counts.astype(np.int64)
    n, k = int(counts.sum()), len(counts)
    block = _block(n, k, n_boot)
    fixed = not poisson
    if block >= n_boot:
        return Blocks(
            lambda _: _draw(
                counts, np.array([0, k]), [generator(entropy, key)], n_boot, poisson, pairs=pairs
            ),
            1,
            fixed_total=fixed,
        )

    ranges = _Ranges(counts, pairs=pairs) if _by_rows(n, k) else None
    folded = ranges is not None and pairs and fold is not None

    def make(j: int) -> np.ndarray:
        size = min(block, n_boot - j * block)
        rng = generator(entropy, key, j)
        if ranges is not None and fold is not None and pairs:
            return ranges.fold(size, rng, poisson, fold(size))[:, None]
        if ranges is not None:
            return ranges.draw(size, rng, poisson)
        drawn = rng.poisson(counts, size=(size, k)) if poisson else _binomials(counts, size, rng)
        if not pairs:
            return drawn
        out = np.zeros_like(drawn)
        _place(out, drawn, 0, pairs)
        return out

    return Blocks(make, -(-n_boot // block), threads, fixed_total=fixed, folded=folded)


def draw_segment(
    counts: np.ndarray, n_boot: int, entropy: int, key: tuple[Any, ...], *, poisson: bool = False
) -> np.ndarray:
    """All of :func:`segment_draws` (replicate x cell)."""
    import numpy as np

    blocks = segment_draws(counts, n_boot, entropy, key, poisson=poisson)
    return np.concatenate(blocks.map(lambda block: block))


def redraw(
    counts: np.ndarray,
    starts: np.ndarray,
    keys: Sequence[tuple[Any, ...]],
    work: Work,
    *,
    n_boot: int,
    seed: Seed,
    threads: int,
    pairs: bool = False,
    fold: Callable[[int], Fold] | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Redraw every segment and reduce its draws, a chunk of segments at a time.

    Segment ``i`` (key ``keys[i]``) has the cell counts
    ``counts[starts[i]:starts[i + 1]]``.  Segments drawn in one block are packed
    in chunks of about ``_CHUNK_CELLS`` draws; a larger one is a chunk alone,
    drawn a block of replicates at a time.  ``work(lo, hi, blocks)`` reduces a
    chunk's draws (see :data:`Work`).  Chunks run on ``threads`` threads (numpy
    releases the GIL; pass ``pl.thread_pool_size()`` read outside the query, as
    inside a streaming query it is 1).  Returns the segment of each output row
    and the columns, chunk after chunk.  ``seed``: a :class:`Poisson` one draws
    Poisson counts.  ``pairs``: the cells come in pairs (2 j, 2 j + 1), every segment
    starting at an even cell, and a chunk's blocks hold the first cell of every
    pair in their first half, the second in their second half (:func:`_place`).
    ``fold``: as :func:`segment_draws` (a large segment's blocks may come folded).
    """
    import numpy as np

    counts = counts.astype(np.int64)
    entropy, poisson = entropy_of(seed)
    n = np.add.reduceat(counts, starts[:-1]) if len(keys) else counts[:0]  # a cell at least
    chunks: list[tuple[int, int]] = []
    cells = _CHUNK_CELLS
    for i, (rows, k) in enumerate(zip(n.tolist(), np.diff(starts).tolist(), strict=True)):
        width = _width(rows, k) * n_boot
        # a segment without rows (width 0) may come first
        if not chunks or _block(rows, k, n_boot) < n_boot or cells + width > _CHUNK_CELLS:
            chunks.append((i, i + 1))
            cells = width
        else:
            chunks[-1] = (chunks[-1][0], i + 1)
            cells += width

    def chunk(bounds: tuple[int, int]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        lo, hi = bounds
        local = starts[lo : hi + 1] - starts[lo]
        part = counts[starts[lo] : starts[hi]]
        if hi - lo == 1:
            blocks = segment_draws(
                part, n_boot, entropy, keys[lo], threads, poisson=poisson, pairs=pairs, fold=fold
            )
            return work(lo, hi, blocks)
        rngs = [generator(entropy, key) for key in keys[lo:hi]]  # type: ignore[arg-type]
        drawn = _draw(part, local, rngs, n_boot, poisson, pairs=pairs)
        return work(lo, hi, Blocks.one(drawn, fixed_total=not poisson))

    with ThreadPoolExecutor(max(1, min(threads, len(chunks)))) as pool:
        done = list(pool.map(chunk, chunks))
    if not done:
        return np.zeros(0, dtype=np.int64), {}
    return (
        np.concatenate([segment for segment, _ in done]),
        {name: np.concatenate([c[name] for _, c in done]) for name in done[0][1]},
    )


__all__ = [
    "Blocks",
    "Fold",
    "Poisson",
    "Seed",
    "Work",
    "draw_segment",
    "entropy_of",
    "generator",
    "redraw",
    "resampling",
    "segment_draws",
]
