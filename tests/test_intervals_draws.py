"""The bootstrap's draws: the multinomial (row by row, binomials, range by range)
and the Poisson bootstrap, on every call that takes ``ci_method="poisson"``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from _interval_helpers import _frame
from sklearn import metrics as skm

import pl_metrics
from pl_metrics._intervals import draws, sampling


@pytest.mark.parametrize("float_chain", [True, False])
@pytest.mark.parametrize("counts", [[3, 0, 5, 1, 1], [400, 0, 250, 900, 50]])
def test_both_ways_of_drawing_are_the_multinomial(
    counts: list[int], float_chain: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a small segment is drawn row by row, a large one as a chain of binomials
    # (numpy's multinomial, or the chain of integer ratios past _FLOAT_CHAIN):
    # all have the multinomial's means and covariances
    if not float_chain:
        monkeypatch.setattr(sampling, "_FLOAT_CHAIN", 0)
    counts_ = np.array(counts)
    n = counts_.sum()
    assert sampling._by_rows(int(n), len(counts)) == (n < 100)
    drawn = draws.draw_segment(counts_, 40_000, 3, ("segment",))
    assert (drawn.sum(axis=1) == n).all()
    assert (drawn[:, counts_ == 0] == 0).all()
    share = counts_ / n
    expected = n * (np.diag(share) - np.outer(share, share))
    np.testing.assert_allclose(drawn.mean(axis=0), n * share, atol=4 * np.sqrt(n / 40_000))
    np.testing.assert_allclose(np.cov(drawn.T), expected, atol=0.05 * n)


@pytest.mark.parametrize("poisson", [False, True])
@pytest.mark.parametrize("width", [np.uint16, np.uint32, np.int64])
def test_rows_drawn_range_by_range_are_the_multinomial(
    width: type, poisson: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a large segment draws a replicate's rows per range of _RANGE rows (a multinomial
    # over the ranges), then uniformly within each range, counted by cell there: the
    # multinomial's means and covariances, empty cells included, with the range's
    # table of cells in each of its integer widths (the spans that choose them made
    # small here: the widest range below spans 4 cells).  The Poisson bootstrap's
    # ranges: independent cells of mean and variance c
    monkeypatch.setattr(sampling, "_RANGE", 4)
    if width is not np.uint16:
        monkeypatch.setattr(sampling, "_SMALL_SPAN", 1)
    if width is np.int64:
        monkeypatch.setattr(sampling, "_MEDIUM_SPAN", 1)
    counts = np.array([3, 0, 5, 1, 0, 0, 2, 1, 4, 0])  # 16 rows, 4 ranges
    ranges = sampling._Ranges(counts)
    assert ranges.local.dtype == width
    draws = ranges.draw(40_000, np.random.default_rng(3), poisson)
    n = counts.sum()
    assert (draws.sum(axis=1) == n).all() != poisson  # a Poisson replicate's total varies
    assert (draws[:, counts == 0] == 0).all()
    share = counts / n
    expected = n * (np.diag(share) - np.outer(share, share))
    if poisson:  # poisson: each range's rows Poisson(its size), so each cell Poisson(c)
        expected = np.diag(counts)
    np.testing.assert_allclose(draws.mean(axis=0), n * share, atol=4 * np.sqrt(n / 40_000))
    np.testing.assert_allclose(np.cov(draws.T), expected, atol=0.05 * n)


@pytest.mark.parametrize("block_cells", [None, 12])
@pytest.mark.parametrize("counts", [[3, 0, 5, 1, 1], [400, 0, 250, 900, 50]])
def test_poisson_draws_are_independent_poisson_counts(
    counts: list[int], block_cells: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the Poisson bootstrap gives each row a Poisson(1) count: a cell of c rows is
    # Poisson(c) (a sum of independent Poissons), cells independent, so each cell's
    # mean and variance are c, covariances 0, and a replicate's total is
    # Poisson(n); empty cells stay empty.  In one block, and in several
    # (block_cells=12: a replicate a block for the small segment, drawn by rows,
    # range by range; two for the large one, by cells; several generators, (seed,
    # key, j))
    if block_cells is not None:
        monkeypatch.setattr(sampling, "_BLOCK_CELLS", block_cells)
    counts_ = np.array(counts)
    n = counts_.sum()
    # the small segment by rows (a Poisson total, then rows), the large by cells
    assert sampling._by_rows(int(n), len(counts)) == (n < 100)
    drawn = draws.draw_segment(counts_, 40_000, 3, ("segment",), poisson=True)
    again = draws.draw_segment(counts_, 40_000, 3, ("segment",), poisson=True)
    np.testing.assert_array_equal(drawn, again)  # keyed: the same seed, the same draws
    assert (drawn[:, counts_ == 0] == 0).all()
    se = 4 * np.sqrt(counts_ / 40_000)  # 4 standard errors of a mean of 40,000
    np.testing.assert_allclose(drawn.mean(axis=0), counts_, atol=se.max())
    np.testing.assert_allclose(np.cov(drawn.T), np.diag(counts_), atol=0.05 * counts_.max())
    totals = drawn.sum(axis=1)
    assert totals.mean() == pytest.approx(n, abs=4 * np.sqrt(n / 40_000))
    assert totals.var() == pytest.approx(n, rel=0.05)
    # not the multinomial's draws (fixed totals), from the same generators
    fixed = draws.draw_segment(counts_, 40_000, 3, ("segment",))
    assert (fixed.sum(axis=1) == n).all()
    assert not np.array_equal(drawn, fixed)


def test_poisson_bootstrap_is_the_row_poisson_bootstrap() -> None:
    # each row's count Poisson(1), drawn row by row here (scikit-learn's weighted
    # metrics for AUC and AP): intervals within Monte-Carlo tolerance of ci_method=
    # "poisson", whose draws are per cell.  Specificity reads each replicate's own
    # total (tn = n - support - predicted + tp)
    rng = np.random.default_rng(21)
    df = _frame(3000, rng)
    boot = {"ci": 0.95, "n_boot": 2000, "seed": 1, "ci_method": "poisson"}
    sm = df.metrics.summary("t", "p", **boot)
    pc = df.metrics.per_class("t", "p", **boot)
    auc = df.metrics.roc_auc("y", "s", **boot)
    ap = df.metrics.average_precision("y", "s", **boot)
    t, p, y, s = (df[c].to_numpy() for c in ("t", "p", "y", "s"))
    acc, prec0, spec0, aucs, aps = [], [], [], [], []
    for _ in range(2000):
        w = rng.poisson(1.0, len(t))
        acc.append((w * (t == p)).sum() / w.sum())
        prec0.append((w * ((t == 0) & (p == 0))).sum() / (w * (p == 0)).sum())
        spec0.append((w * ((t != 0) & (p != 0))).sum() / (w * (t != 0)).sum())
    for _ in range(500):
        w = rng.poisson(1.0, len(y))
        aucs.append(skm.roc_auc_score(y, s, sample_weight=w))
        aps.append(skm.average_precision_score(y, s, sample_weight=w))
    for row_reps, frame, row, metric in (
        (acc, sm, 0, "accuracy"),
        (prec0, pc, 0, "precision"),
        (spec0, pc, 0, "specificity"),
        (aucs, auc, 0, "roc_auc"),
        (aps, ap, 0, "average_precision"),
    ):
        low, high, point = (frame[c][row] for c in (f"{metric}_low", f"{metric}_high", metric))
        r_low, r_high = np.percentile(row_reps, [2.5, 97.5])
        width = r_high - r_low
        assert abs((high - low) - width) < 0.15 * width, metric  # same width
        assert abs((high + low) / 2 - (r_high + r_low) / 2) < 0.15 * width, metric  # centre
        assert low < point < high
    # specificity of the majority class: 40 true negatives of 1,000 rows, read as
    # n - support - predicted + tp; with the original n in place of a replicate's
    # own total (sd ~32 rows) its interval would be several times too wide
    t = np.r_[np.ones(950), np.zeros(50)].astype(np.int64)
    p = np.r_[np.ones(900), np.zeros(50), np.zeros(40), np.ones(10)].astype(np.int64)
    skewed = pl.DataFrame({"t": t, "p": p}).metrics.per_class("t", "p", **boot)
    spec1 = []
    for _ in range(2000):
        w = rng.poisson(1.0, len(t))
        spec1.append((w * ((t != 1) & (p != 1))).sum() / (w * (t != 1)).sum())
    r_low, r_high = np.percentile(spec1, [2.5, 97.5])
    low, high = skewed["specificity_low"][1], skewed["specificity_high"][1]
    assert skewed["specificity"][1] == 0.8  # 40 / (40 + 10)
    assert abs((high - low) - (r_high - r_low)) < 0.15 * (r_high - r_low)


def _ovr_frame() -> pl.DataFrame:
    rng = np.random.default_rng(4)
    df = _frame(400, rng).with_columns(pl.Series("g", rng.choice(["a", "b"], 400)))
    return df.with_columns(
        pl.Series("day", np.datetime64("2026-01-01") + rng.integers(0, 3, 400)).cast(pl.Date),
        *(pl.Series(f"c{k}", rng.random(400)) for k in range(3)),
        pl.Series("s2", np.round(df["s"].to_numpy() + rng.normal(size=400), 2)),
        pl.Series(
            "p2", np.where(rng.random(400) < 0.8, df["p"].to_numpy(), rng.integers(0, 3, 400))
        ),
    )


#: Every call that takes ci_method="poisson", on _ovr_frame's rows (the states'
#: finishers too: Dask and Spark finish through them).
_POISSON_CALLS: dict[str, Callable[[pl.DataFrame, str], object]] = {
    "per_class": lambda df, m: df.metrics.per_class("t", "p", by="g", ci=0.9, ci_method=m),
    "averages": lambda df, m: df.metrics.averages("t", "p", ci=0.9, ci_method=m),
    "report": lambda df, m: df.metrics.report("t", "p", ci=0.9, ci_method=m),
    "summary": lambda df, m: df.metrics.summary("t", "p", ci=0.9, ci_method=m),
    "roc_auc": lambda df, m: df.metrics.roc_auc("y", "s", by="g", ci=0.9, ci_method=m),
    "roc_auc ovr": lambda df, m: df.metrics.roc_auc(
        "t", {0: "c0", 1: "c1", 2: "c2"}, average="macro", ci=0.9, ci_method=m
    ),
    "average_precision": lambda df, m: df.metrics.average_precision("y", "s", ci=0.9, ci_method=m),
    "compare": lambda df, m: df.metrics.compare(
        "t", "p", by="g", metric="accuracy", ci=0.9, ci_method=m
    ),
    "compare roc_auc": lambda df, m: df.metrics.compare(
        "y", "s", by="g", metric="roc_auc", ci=0.9, ci_method=m
    ),
    "compare_models": lambda df, m: df.metrics.compare_models(
        "t", ["p", "p2"], metric="accuracy", ci=0.9, ci_method=m
    ),
    "compare_models ap": lambda df, m: df.metrics.compare_models(
        "y", ["s", "s2"], metric="average_precision", ci=0.9, ci_method=m
    ),
    "over_time": lambda df, m: df.metrics.over_time(
        "t",
        y_pred="p",
        index="day",
        every="1d",
        metrics=["accuracy", "f1_macro"],
        ci=0.9,
        ci_method=m,
    ),
    "over_time scores": lambda df, m: df.metrics.over_time(
        "y", y_score="s", index="day", every="1d", metrics=["roc_auc"], ci=0.9, ci_method=m
    ),
    "multilabel": lambda df, m: df.with_columns(
        pl.concat_list(pl.col("t").cast(pl.String)).alias("mt"),
        pl.concat_list(pl.col("p", "p2").cast(pl.String)).list.unique().list.sort().alias("mp"),
    ).metrics.averages("mt", "mp", ci=0.9, ci_method=m),
    "counts state": lambda df, m: plm_from_counts(df).report(ci=0.9, ci_method=m),
    "score state": lambda df, m: plm_from_score_counts(df).average_precision(ci=0.9, ci_method=m),
}


def plm_from_counts(df: pl.DataFrame) -> object:
    return pl_metrics.from_counts(df.metrics.counts("t", "p", by="g"), by="g")


def plm_from_score_counts(df: pl.DataFrame) -> object:
    return pl_metrics.from_score_counts(df.metrics.score_counts("y", "s"))


@pytest.mark.parametrize("call", list(_POISSON_CALLS))
def test_every_call_taking_poisson_draws_poisson_counts(
    call: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ci_method="poisson" reaches the draws as a Poisson seed on every path (a path
    # that dropped it would give the multinomial's interval, a wrong label on a
    # right-looking number); "bootstrap" never does.  Every draw starts from
    # sampling.entropy_of, which says which
    seen: list[bool] = []
    real = sampling.entropy_of

    def spy(seed: object) -> tuple[int, bool]:
        entropy, poisson = real(seed)  # type: ignore[arg-type]
        seen.append(poisson)
        return entropy, poisson

    monkeypatch.setattr(sampling, "entropy_of", spy)
    monkeypatch.setattr(draws, "entropy_of", spy)
    df = _ovr_frame()
    run = _POISSON_CALLS[call]
    out = {}
    for method in ("bootstrap", "poisson"):
        seen.clear()
        result = run(df, method)
        out[method] = result.collect() if isinstance(result, pl.LazyFrame) else result
        assert seen, (call, method)  # it drew
        assert set(seen) == {method == "poisson"}, (call, method)
    assert not out["bootstrap"].equals(out["poisson"])
    if call == "compare_models ap":  # the test column names the bootstrap
        for method, name in (
            ("bootstrap", "paired_bootstrap"),
            ("poisson", "paired_poisson_bootstrap"),
        ):
            assert set(out[method]["test"]) == {name}
