"""Segments drawn in chunks and blocks: on any thread, packed or alone, in pairs,
folded range by range, and the replicates a seed draws, pinned."""

from __future__ import annotations

import sys

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from pl_metrics._intervals import draws, replicates, sampling


@pytest.mark.parametrize(
    ("method", "args"),
    [("report", ("t", "p")), ("roc_auc", ("y", "s")), ("average_precision", ("y", "s"))],
)
@pytest.mark.parametrize("ci_method", ["bootstrap", "poisson"])
def test_large_segments_draw_their_blocks_on_any_thread(
    method: str, args: tuple[str, str], ci_method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a segment too large for one block of replicates draws block j from the
    # generator of (seed, key, j), by ranges of rows: the blocks are drawn and
    # reduced on the threads, and the interval is the same on one thread, packed
    # with other segments or alone
    monkeypatch.setattr(sampling, "_BLOCK_CELLS", 500)  # a few replicates a block
    monkeypatch.setattr(sampling, "_RANGE", 16)  # several ranges a replicate
    df = _many_segments(np.random.default_rng(13))
    kwargs = {"by": "g", "ci": 0.9, "n_boot": 150, "seed": 5, "ci_method": ci_method}
    every = getattr(df.metrics, method)(*args, **kwargs).sort("g", maintain_order=True)
    defined = every.select(pl.col("^.*_low$").is_not_null().mean()).row(0)
    assert min(defined) > 0.5  # intervals, not nulls, are compared
    monkeypatch.setattr(pl, "thread_pool_size", lambda: 1)
    one_thread = getattr(df.metrics, method)(*args, **kwargs).sort("g", maintain_order=True)
    assert_frame_equal(every, one_thread)
    for g in (0, 33):
        alone = df.filter(pl.col("g") == g)
        assert_frame_equal(
            every.filter(pl.col("g") == g), getattr(alone.metrics, method)(*args, **kwargs)
        )


@pytest.mark.parametrize("poisson", [False, True])
@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_square_counts_are_the_grouped_counts(size: int, poisson: bool) -> None:
    # a chunk of segments with every (actual, predicted) cell of their classes, in
    # order, is counted as a (replicate, segment, actual, predicted) array: the same
    # tp / support / predicted / n as the general grouping (class_counter).  A
    # multinomial replicate has each segment's 50 rows; a Poisson one its own total,
    # which n must be (fixed_total=False), not the first replicate's
    rng = np.random.default_rng(size)
    segments, cells = 4, size * size
    a = np.tile(np.arange(cells) // size, segments)
    p = np.tile(np.arange(cells) % size, segments)
    segment = np.repeat(np.arange(segments), cells)
    if poisson:
        drawn = rng.poisson(50 / cells, size=(7, segments * cells))
    else:
        drawn = rng.multinomial(50, np.full(cells, 1 / cells), size=(7, segments)).reshape(7, -1)
    fixed = not poisson
    square = draws.square_counter(a, p, size, segments, fixed_total=fixed)
    assert square is not None
    general = draws.class_counter(
        a, p, segment * size, segment, segments * size, restrict=True, fixed_total=fixed
    )
    for got, want in zip(square(drawn), general(drawn), strict=True):
        np.testing.assert_array_equal(got, want.reshape(got.shape))
    # n by hand: each replicate's rows of each segment
    totals = drawn.reshape(7, segments, cells).sum(axis=-1)
    np.testing.assert_array_equal(square(drawn)[3], totals)
    np.testing.assert_array_equal(general(drawn)[3], totals)
    assert poisson == (totals != 50).any()  # the Poisson totals vary (seeded: they do)
    # by hand, replicate 0, segment 0: tp is the diagonal, support the row sums
    first = drawn[0, :cells].reshape(size, size)
    np.testing.assert_array_equal(square(drawn)[0][0, 0], np.diag(first))
    np.testing.assert_array_equal(square(drawn)[1][0, 0], first.sum(axis=1))
    # a missing cell, another order or another size: not a square chunk
    assert draws.square_counter(a[1:], p[1:], size, segments, fixed_total=fixed) is None
    if size > 1:
        assert draws.square_counter(p, a, size, segments, fixed_total=fixed) is None
    assert draws.square_counter(a, p, size + 1, segments, fixed_total=fixed) is None


def _many_segments(rng: np.random.Generator) -> pl.DataFrame:
    # 60 segments: small ones (drawn row by row) and large ones (binomials), two to
    # four classes, segments with a single row or a single class
    sizes = np.r_[rng.integers(1, 40, 50), rng.integers(2000, 4000, 10)]
    g = np.repeat(np.arange(len(sizes)), sizes)
    k = np.array([2, 3, 4])[g % 3]
    t = rng.integers(0, 1 << 20, len(g)) % k
    p = np.where(rng.random(len(g)) < 0.6, t, rng.integers(0, 1 << 20, len(g)) % k)
    y = rng.integers(0, 2, len(g))
    s = np.round(rng.normal(size=len(g)) + y, 1)
    order = rng.permutation(len(g))
    return pl.DataFrame({"g": g, "t": t, "p": p, "y": y, "s": s})[order]


@pytest.mark.parametrize(
    ("method", "args"),
    [
        ("report", ("t", "p")),
        ("per_class", ("t", "p")),
        ("averages", ("t", "p")),
        ("summary", ("t", "p")),
        ("roc_auc", ("y", "s")),
        ("average_precision", ("y", "s")),
    ],
)
@pytest.mark.parametrize("ci_method", ["bootstrap", "poisson"])
def test_segments_drawn_together_are_the_segments_drawn_alone(
    method: str, args: tuple[str, str], ci_method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # segments are packed in chunks and reduced together (stacked by number of
    # classes): a frame of many segments gives each the interval it gets alone,
    # whatever the packing (here: the default chunks, and chunks of ~1 segment)
    df = _many_segments(np.random.default_rng(12))
    kwargs = {"by": "g", "ci": 0.9, "n_boot": 150, "seed": 5, "ci_method": ci_method}
    every = getattr(df.metrics, method)(*args, **kwargs).sort("g", maintain_order=True)
    defined = every.select(pl.col("^.*_low$").is_not_null().mean()).row(0)
    assert min(defined) > 0.5  # intervals, not nulls, are compared
    monkeypatch.setattr(sampling, "_CHUNK_CELLS", 1)
    one_by_one = getattr(df.metrics, method)(*args, **kwargs).sort("g", maintain_order=True)
    assert_frame_equal(every, one_by_one)
    for g in (0, 7, 33, 52, 59):
        alone = df.filter(pl.col("g") == g)
        assert_frame_equal(
            every.filter(pl.col("g") == g), getattr(alone.metrics, method)(*args, **kwargs)
        )


@pytest.mark.parametrize("poisson", [False, True])
@pytest.mark.parametrize("block_cells", [None, 40])
def test_draws_in_pairs_are_the_same_draws_split_by_pair(
    block_cells: int | None, poisson: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the score bootstrap draws its (positive, negative) cells in pairs: a block holds
    # the first cell of every pair in its first half, the second in its second
    # half, each half contiguous for the reduction.  The same draws as without
    # pairs, columns 0, 2, 4, ... then 1, 3, 5, ...: by rows, by binomials (the
    # large segment), range by range with ranges starting on either cell of a pair
    # (_RANGE=2, a few replicates a block: block_cells=40), and in a chunk of
    # segments side by side
    monkeypatch.setattr(sampling, "_RANGE", 2 if block_cells else 4)
    if block_cells is not None:
        monkeypatch.setattr(sampling, "_BLOCK_CELLS", block_cells)
    rng = np.random.default_rng(7)
    small = [rng.integers(0, 4, 2 * k) for k in (1, 3, 6)]
    large = rng.integers(0, 60, 8)  # 8 cells, ~240 rows: by binomials
    for counts in [*small, large]:
        plain = draws.draw_segment(counts, 30, 4, ("s",), poisson=poisson)
        blocks = sampling.segment_draws(counts, 30, 4, ("s",), poisson=poisson, pairs=True)
        paired = np.concatenate(blocks.map(lambda block: block))
        np.testing.assert_array_equal(paired, np.c_[plain[:, 0::2], plain[:, 1::2]])
    counts = np.concatenate(small)
    starts = np.cumsum([0] + [len(c) for c in small])
    keys = [(i,) for i in range(len(small))]
    seed = sampling.Poisson(4) if poisson else 4

    def chunks(pairs: bool) -> dict[int, np.ndarray]:
        drawn = {}  # each chunk's draws, by its first segment

        def reduce(lo: int, hi: int, blocks: draws.Blocks) -> tuple[np.ndarray, dict]:
            drawn[lo] = np.concatenate(blocks.map(lambda b: b))
            return np.arange(lo, hi), {}

        sampling.redraw(counts, starts, keys, reduce, n_boot=30, seed=seed, threads=1, pairs=pairs)
        return drawn

    plain, paired = chunks(False), chunks(True)
    assert plain.keys() == paired.keys()
    for lo, block in plain.items():
        np.testing.assert_array_equal(paired[lo], np.c_[block[:, 0::2], block[:, 1::2]])


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.integers(0, 9), min_size=2, max_size=24).filter(lambda c: sum(c) > 0),
    tie=st.integers(0, 40),
    range_rows=st.sampled_from([2, 4, 16]),
    poisson=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_folded_replicates_equal_the_reduced_draws(
    counts: list[int], tie: int, range_rows: int, poisson: bool, seed: int
) -> None:
    # a large segment's score bootstrap folds each replicate's pairs (positive,
    # negative count of a run of scores) range by range instead of laying the
    # replicate out in a block: the same draws, so the AUC is the block's bit for
    # bit (integer sums), the AP to a few units in the last place (summed a range at
    # a time).  Pairs straddle ranges (ranges of 2 to 16 rows; ``tie`` rows more in
    # one pair: a tied score across several ranges), single-class and empty
    # replicates (Poisson: NaN, as ``defined`` makes the block's)
    counts = counts + [0] * (len(counts) % 2)  # pairs
    counts[len(counts) // 2 & ~1] += tie
    counts_a = np.array(counts, dtype=np.int64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sampling, "_RANGE", range_rows)
        ranges = sampling._Ranges(counts_a, pairs=True)
        block = ranges.draw(7, np.random.default_rng(seed), poisson)
        half = block.shape[1] // 2
        rows = block.sum(axis=1)
        for fold, metric in (
            (replicates.AucFold, replicates.roc_auc),
            (replicates.ApFold, replicates.average_precision),
        ):
            folded = ranges.fold(7, np.random.default_rng(seed), poisson, fold(7))
            reduced = replicates.undefined_without_rows(
                metric(block[:, :half], block[:, half:]), rows
            )
            if fold is replicates.AucFold:
                np.testing.assert_array_equal(folded, reduced)
            else:
                np.testing.assert_allclose(folded, reduced, rtol=1e-13, atol=0)


def test_score_bootstrap_of_a_large_segment_is_folded(monkeypatch: pytest.MonkeyPatch) -> None:
    # the ranking intervals of a segment drawn in ranges come from folded blocks
    # (none laid out), and equal those reduced from the laid-out draws: the AUC's
    # bounds bit for bit, the AP's to 1e-12
    monkeypatch.setattr(sampling, "_BLOCK_CELLS", 2_000)  # a few replicates a block
    monkeypatch.setattr(sampling, "_RANGE", 64)  # several ranges a replicate
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 900)
    df = pl.DataFrame({"y": y, "s": np.round(rng.random(900) + 0.3 * y, 2)})
    kwargs = {"ci": 0.9, "n_boot": 60, "seed": 3, "ci_method": "bootstrap"}
    folded = []
    draw = sampling._Ranges.draw

    def no_block(*args: object, **kw: object) -> np.ndarray:
        folded.append(False)
        return draw(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(sampling._Ranges, "draw", no_block)
    got = {m: getattr(df.metrics, m)("y", "s", **kwargs) for m in ("roc_auc", "average_precision")}
    assert folded == []
    monkeypatch.setattr(draws, "SCORE_FOLDS", {"roc_auc": None, "average_precision": None})
    for metric, frame in got.items():
        laid_out = getattr(df.metrics, metric)("y", "s", **kwargs)
        assert folded  # the draws were laid out this time
        if metric == "roc_auc":
            assert_frame_equal(frame, laid_out)
        else:
            assert_frame_equal(frame, laid_out, check_exact=False, rel_tol=1e-12)


#: Replicates a seed draws, pinned: drawn by 62c8928 (and the same by 1bf797d and later,
#: which count a chunk's rows by one bincount and a large segment's ranges in two
#: contiguous runs).  A change of the draws is a change of every bootstrap interval
#: for a seed: make it on purpose, and say so in the changelog.
_PINNED_CHUNK = {
    False: [
        [1, 0, 2, 2, 33, 0, 1, 3, 2, 0, 0, 37, 0, 0],
        [0, 0, 3, 1, 40, 0, 1, 3, 3, 0, 0, 30, 0, 0],
        [2, 0, 0, 1, 43, 0, 1, 2, 2, 0, 3, 27, 0, 0],
    ],
    True: [
        [3, 0, 2, 1, 37, 0, 1, 1, 1, 0, 1, 30, 0, 0],
        [1, 0, 0, 1, 40, 0, 1, 3, 2, 0, 0, 36, 0, 0],
        [1, 0, 2, 0, 36, 0, 2, 2, 1, 0, 1, 32, 0, 0],
    ],
}
_PINNED_RANGES = {
    (False, False): [[4, 0, 3, 1, 0, 0, 2, 2, 4, 0], [4, 0, 6, 0, 0, 0, 2, 1, 3, 0]],
    (False, True): [[4, 3, 0, 2, 4, 0, 1, 0, 2, 0], [4, 6, 0, 2, 3, 0, 0, 0, 1, 0]],
    (True, False): [[3, 0, 9, 1, 0, 0, 2, 1, 7, 0], [4, 0, 5, 1, 0, 0, 2, 2, 3, 0]],
    (True, True): [[3, 9, 0, 2, 7, 0, 1, 0, 1, 0], [4, 5, 0, 2, 3, 0, 1, 0, 2, 0]],
}


@pytest.mark.skipif(sys.byteorder != "little", reason="16-bit draws split words by byte order")
@pytest.mark.parametrize("poisson", [False, True])
def test_a_seed_draws_the_replicates_it_drew_before(
    poisson: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a chunk of four segments (three drawn by rows, one of 70 rows in 2 cells by
    # binomials: 70 > 16 x 4 cells) in pairs, 3 replicates; a large segment range by
    # range (ranges of 4 rows), 2 replicates, pairs or not
    counts = np.array([1, 2, 0, 3, 2, 0, 1, 1, 40, 30, 0, 0, 1, 0])
    starts = np.array([0, 4, 8, 12, 14])
    entropy = sampling.entropy_of(5)[0]
    rngs = [sampling.generator(entropy, (i, "s")) for i in range(4)]
    drawn = sampling._draw(counts, starts, rngs, 3, poisson, pairs=True)
    np.testing.assert_array_equal(drawn, _PINNED_CHUNK[poisson])
    monkeypatch.setattr(sampling, "_RANGE", 4)
    counts = np.array([3, 0, 5, 1, 0, 0, 2, 1, 4, 0])
    for pairs in (False, True):
        ranges = sampling._Ranges(counts, pairs=pairs)
        drawn = ranges.draw(2, sampling.generator(entropy, ("r",), 1), poisson)
        np.testing.assert_array_equal(drawn, _PINNED_RANGES[poisson, pairs])


@pytest.mark.parametrize("poisson", [False, True])
@pytest.mark.parametrize("pairs", [False, True])
def test_a_segment_draws_the_same_in_a_chunk_as_alone(poisson: bool, pairs: bool) -> None:
    # the keyed contract: segment i's draws come from its own generator (the seed and
    # its key), so in a chunk beside others they are its draws alone
    # (draw_segment).  A chunk counts all of its segments' rows drawn by one
    # bincount (sampling._draw): each segment's replicates must land in its own
    # columns.  Segments drawn by rows (small), by binomials (a few cells of many
    # rows), empty ones, and one of a single cell
    rng = np.random.default_rng(11)
    segments = [rng.integers(0, 4, 2 * k) for k in (1, 3, 6, 2)]  # by rows: rows <= 16 x cells
    segments += [
        rng.integers(200, 400, 2),  # by binomials
        np.zeros(4, dtype=np.int64),  # no rows
        np.array([0, 5]),  # one non-empty cell
        rng.integers(0, 3, 40),
    ]
    counts = np.concatenate(segments)
    starts = np.cumsum([0] + [len(c) for c in segments])
    keys = [(i, "k") for i in range(len(segments))]
    seed = sampling.Poisson(9) if poisson else 9
    drawn: dict[int, np.ndarray] = {}

    def keep(lo: int, hi: int, blocks: draws.Blocks) -> tuple[np.ndarray, dict]:
        drawn[lo] = np.concatenate(blocks.map(lambda b: b))
        assert hi - lo == len(segments)  # one chunk of all of them
        return np.arange(lo, hi), {}

    sampling.redraw(counts, starts, keys, keep, n_boot=25, seed=seed, threads=1, pairs=pairs)
    block = drawn[0]
    half = len(counts) // 2
    for i, cells in enumerate(segments):
        alone = draws.draw_segment(cells, 25, sampling.entropy_of(9)[0], keys[i], poisson=poisson)
        a, b = starts[i], starts[i + 1]
        mine = np.c_[block[:, a // 2 : b // 2], block[:, half + a // 2 : half + b // 2]]
        expected = np.c_[alone[:, 0::2], alone[:, 1::2]] if pairs else alone
        np.testing.assert_array_equal(mine if pairs else block[:, a:b], expected)
        # the multinomial keeps each replicate's rows; every cell is drawn from its own
        if not poisson:
            assert (alone.sum(axis=1) == cells.sum()).all()
        assert (alone[:, cells == 0] == 0).all()


@pytest.mark.parametrize("method", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("decimals", [None, 1])
@pytest.mark.parametrize("by", [None, "g"])
def test_the_bootstrap_point_is_the_plain_call(
    method: str, decimals: int | None, by: str | None
) -> None:
    # with the bootstrap, the point comes from the plain call's path (sorting
    # continuous scores) and the interval from the per-score counts: the point is
    # the plain call's to the bit, continuous or tied scores, with and without by
    rng = np.random.default_rng(17)
    df = _many_segments(rng)
    df = df.with_columns(s=pl.Series(rng.random(df.height)))
    if decimals is not None:
        df = df.with_columns(pl.col("s").round(decimals))
    call = getattr(df.metrics, method)
    plain = call("y", "s", by=by)
    boot = call("y", "s", by=by, ci=0.9, n_boot=20, ci_method="bootstrap")
    keys = [] if by is None else [by]
    assert_frame_equal(boot.select(*keys, method), plain, check_row_order=by is None)
    assert boot[f"{method}_low"].null_count() < boot.height  # intervals were drawn
