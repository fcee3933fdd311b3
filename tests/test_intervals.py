"""Confidence intervals: equivalence to the row bootstrap, coverage, determinism."""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable
from statistics import NormalDist

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from statsmodels.stats.proportion import proportion_confint

import pl_metrics
from pl_metrics._intervals import draws as bs
from pl_metrics._intervals import replicates as rp
from pl_metrics._intervals import sampling


def _frame(n: int, rng: np.random.Generator) -> pl.DataFrame:
    y_true = rng.integers(0, 3, n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, rng.integers(0, 3, n))
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 2)
    return pl.DataFrame({"t": y_true, "p": y_pred, "y": y, "s": s})


def test_equivalent_to_the_row_bootstrap() -> None:
    # the multinomial draw of the counts is the row bootstrap: compare both
    # intervals (2,000 replicates each) within Monte-Carlo tolerance
    rng = np.random.default_rng(0)
    df = _frame(3000, rng)
    boot = {"ci": 0.95, "n_boot": 2000, "seed": 1, "ci_method": "bootstrap"}
    ours = df.metrics.summary("t", "p", **boot)
    pc = df.metrics.per_class("t", "p", **boot)
    auc = df.metrics.roc_auc("y", "s", **boot)
    t, p, y, s = (df[c].to_numpy() for c in ("t", "p", "y", "s"))
    acc, prec0, aucs = [], [], []
    for _ in range(2000):
        i = rng.integers(0, len(t), len(t))
        acc.append((t[i] == p[i]).mean())
        prec0.append(((t[i] == 0) & (p[i] == 0)).sum() / (p[i] == 0).sum())
    for _ in range(500):  # scikit-learn per replicate is slower: fewer replicates
        i = rng.integers(0, len(y), len(y))
        aucs.append(skm.roc_auc_score(y[i], s[i]))
    for row_reps, low, high, point in (
        (acc, ours["accuracy_low"][0], ours["accuracy_high"][0], ours["accuracy"][0]),
        (prec0, pc["precision_low"][0], pc["precision_high"][0], pc["precision"][0]),
        (aucs, auc["roc_auc_low"][0], auc["roc_auc_high"][0], auc["roc_auc"][0]),
    ):
        r_low, r_high = np.percentile(row_reps, [2.5, 97.5])
        width = r_high - r_low
        assert abs((high - low) - width) < 0.15 * width  # same width
        assert abs((high + low) / 2 - (r_high + r_low) / 2) < 0.15 * width  # same centre
        assert low < point < high


def _coverage(draw, estimate, truth: float, repeats: int) -> float:
    hits = 0
    for i in range(repeats):
        low, high = estimate(draw(np.random.default_rng(1000 + i)), i)
        hits += low <= truth <= high
    return hits / repeats


@pytest.mark.parametrize("method", ["bootstrap", "wilson"])
def test_accuracy_interval_covers_the_truth_95_percent(method: str) -> None:
    truth = 0.8  # each row is correct with probability 0.8

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        t = rng.integers(0, 2, 400)
        return pl.DataFrame({"t": t, "p": np.where(rng.random(400) < truth, t, 1 - t)})

    def estimate(df: pl.DataFrame, i: int) -> tuple[float, float]:
        out = df.metrics.summary("t", "p", ci=0.95, n_boot=400, seed=i, ci_method=method)
        return out["accuracy_low"][0], out["accuracy_high"][0]

    cover = _coverage(draw, estimate, truth, 300)
    # 300 repeats: the Monte-Carlo sd of a 95 % coverage is 1.3 %
    assert 0.91 <= cover <= 0.99, cover


@pytest.mark.parametrize("method", ["bootstrap", "delong"])
def test_auc_interval_covers_the_truth_95_percent(method: str) -> None:
    shift = 1.0
    truth = NormalDist().cdf(shift / 2**0.5)  # AUC of N(1, 1) vs N(0, 1)

    def draw(rng: np.random.Generator) -> pl.DataFrame:
        y = rng.integers(0, 2, 300)
        return pl.DataFrame({"y": y, "s": rng.normal(size=300) + shift * y})

    def estimate(df: pl.DataFrame, i: int) -> tuple[float, float]:
        out = df.lazy().metrics.roc_auc("y", "s", ci=0.95, n_boot=300, seed=i, ci_method=method)
        out = out.collect()
        return out["roc_auc_low"][0], out["roc_auc_high"][0]

    cover = _coverage(draw, estimate, truth, 200)
    assert 0.90 <= cover <= 0.99, cover


def test_same_seed_same_interval_whatever_the_row_order() -> None:
    df = _frame(2000, np.random.default_rng(5)).with_columns(
        pl.Series("g", np.random.default_rng(6).choice(["x", "y"], 2000))
    )
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=3)
    boot = {"ci": 0.9, "n_boot": 300, "ci_method": "bootstrap"}
    for method, args in (("report", ("t", "p")), ("roc_auc", ("y", "s"))):
        a = getattr(df.metrics, method)(*args, by="g", seed=7, **boot)
        b = getattr(shuffled.metrics, method)(*args, by="g", seed=7, **boot)
        assert_frame_equal(a, b)
        c = getattr(df.metrics, method)(*args, by="g", seed=8, **boot)
        assert not a.equals(c)
        # the point estimates are the usual ones
        plain = getattr(df.metrics, method)(*args, by="g")
        assert_frame_equal(a.select(plain.columns), plain)


def test_wilson_by_hand() -> None:
    # 8 correct of 10, z = 1.959964: (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)
    df = pl.DataFrame({"t": [1] * 10, "p": [1] * 8 + [0] * 2})
    out = df.metrics.summary("t", "p", ci=0.95, ci_method="wilson")
    z, n, p = 1.959963984540054, 10, 0.8
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    assert out["accuracy_low"][0] == pytest.approx(centre - half, rel=1e-12)
    assert out["accuracy_high"][0] == pytest.approx(centre + half, rel=1e-12)


def test_bad_interval_options() -> None:
    df = _frame(100, np.random.default_rng(1)).with_columns(w=pl.lit(1.0))
    for ci in (0, 1, 1.5, -0.1, True):
        with pytest.raises(ValueError, match="`ci` must be None or a confidence level"):
            df.metrics.summary("t", "p", ci=ci)
    for n_boot in (0, -5, 2.5):
        with pytest.raises(ValueError, match="`n_boot` must be an integer >= 1"):
            df.metrics.report("t", "p", ci=0.9, n_boot=n_boot)
    with pytest.raises(ValueError, match="`ci_method` must be one of"):
        df.metrics.report("t", "p", ci=0.9, ci_method="jackknife")
    with pytest.raises(ValueError, match="`ci_method` must be one of"):
        df.metrics.averages("t", "p", ci=0.9, ci_method="wilson")
    with pytest.raises(ValueError, match="`ci_method` must be one of"):
        df.metrics.summary("t", "p", ci=0.9, ci_method="delong")
    with pytest.raises(ValueError, match="`ci` needs un-weighted rows"):
        df.metrics.summary("t", "p", ci=0.9, weight="w")
    with pytest.raises(ValueError, match="interval of one-vs-rest ROC AUCs"):
        df.metrics.roc_auc("t", {0: "s", 1: "s", 2: "s"}, ci=0.9, multi_class="ovo")


def test_compare_segments_with_overall_and_best() -> None:
    rng = np.random.default_rng(9)
    n = 4000
    g = rng.choice(["good", "bad", "ok"], n)
    t = rng.integers(0, 2, n)
    skill = np.select([g == "good", g == "bad"], [0.95, 0.6], 0.85)
    p = np.where(rng.random(n) < skill, t, 1 - t)
    df = pl.DataFrame({"g": g, "t": t, "p": p, "s": rng.normal(size=n) + t * skill})
    out = df.metrics.compare("t", "p", by="g", n_boot=300)
    summary = df.metrics.summary("t", "p", by="g")
    overall = df.metrics.summary("t", "p")["accuracy"][0]
    assert out["g"].to_list() == ["bad", "good", "ok"]
    assert out["value"].to_list() == summary["accuracy"].to_list()
    assert out["overall"].unique().to_list() == [overall]
    assert out["diff"].to_list() == pytest.approx((summary["accuracy"] - overall).to_list())
    best = summary["accuracy"].max()
    assert out["ratio_best"].to_list() == pytest.approx((summary["accuracy"] / best).to_list())
    # "bad" and "good" are far from overall, beyond noise; the test knows it by design
    flags = dict(zip(out["g"], out["outside"], strict=True))
    assert flags["bad"]
    assert flags["good"]
    manual = (out["overall"] < out["low"]) | (out["overall"] > out["high"])
    assert out["outside"].to_list() == manual.to_list()
    auc = df.metrics.compare("t", "s", by="g", metric="roc_auc", ci_method="delong")
    assert (
        auc["value"].to_list()
        == df.lazy().metrics.roc_auc("t", "s", by="g").collect()["roc_auc"].to_list()
    )
    with pytest.raises(ValueError, match="`by` is required"):
        df.metrics.compare("t", "p", by=None)
    with pytest.raises(ValueError, match="`metric` must be one of"):
        df.metrics.compare("t", "p", by="g", metric="f1_score")


# ----------------------------------------------------------- the replicate metrics
# The bootstrap computes each replicate's metrics in numpy (pl_metrics._replicates),
# the point estimates in polars: both must be the same functions of the counts.
def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    matrix=st.integers(1, 4).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(0, 4), min_size=k, max_size=k), min_size=k, max_size=k
        )
    ),
    beta=st.sampled_from([0.5, 1.0, 2.0]),
    zero_division=st.sampled_from([0.0, 1.0, math.nan]),
)
def test_replicate_metrics_equal_the_frame_metrics(
    matrix: list[list[int]], beta: float, zero_division: float
) -> None:
    cm = np.array(matrix)
    rows = [(a, p) for a in range(len(cm)) for p in range(len(cm)) for _ in range(cm[a, p])]
    assume(rows)
    df = pl.DataFrame(rows, schema=["t", "p"], orient="row")
    seen = (cm.sum(axis=0) + cm.sum(axis=1)) > 0  # the label set: labels seen in t or p
    cm = cm[seen][:, seen]
    tp, support, predicted = (x[None, :] for x in (np.diag(cm), cm.sum(1), cm.sum(0)))
    n = np.array([cm.sum()])
    f = "f1" if beta == 1 else f"f{beta:g}"
    opts = {"beta": beta, "zero_division": zero_division}

    frame = df.metrics.per_class("t", "p", **opts)
    ours = rp.per_class(tp, support, predicted, n, **opts)
    for name, column in (("precision",) * 2, ("recall",) * 2, ("f", f), ("jaccard",) * 2):
        assert all(map(_same, ours[name][0], frame[column]))
    assert all(map(_same, ours["specificity"][0], frame["specificity"]))

    frame = df.metrics.averages("t", "p", **opts)
    ours = rp.averages(tp, support, predicted, **opts)
    for i, average in enumerate(rp.AVERAGES):
        for name, column in (("precision",) * 2, ("recall",) * 2, ("f", f), ("jaccard",) * 2):
            assert _same(ours[average][name][0], frame[column][i]), (average, name)

    frame = df.metrics.summary("t", "p")
    for name, value in rp.summary(tp, support, predicted).items():
        assert _same(value[0], frame[name][0]), name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    counts=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3)).filter(lambda c: sum(c) > 0),
        min_size=1,
        max_size=12,
    )
)
def test_replicate_auc_and_ap_equal_scikit_learn_and_survive_merging(
    counts: list[tuple[int, int]],
) -> None:
    pos, neg = (np.array(c, dtype=np.int64) for c in zip(*counts, strict=True))
    scores = -np.arange(len(pos), dtype=float)  # the state's scores, descending
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    s, w = np.r_[scores, scores], np.r_[pos, neg]
    auc = rp.roc_auc(pos[None, :], neg[None, :])[0]
    ap = rp.average_precision(pos[None, :], neg[None, :])[0]
    if pos.sum() and neg.sum():
        assert auc == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    else:
        assert math.isnan(auc)
    if pos.sum():
        assert ap == pytest.approx(skm.average_precision_score(y, s, sample_weight=w), rel=1e-12)
    else:
        assert ap == 0.0
    # merging one-class runs of scores leaves each metric as it was
    merged = bs.merge_runs(pos, neg, positive_runs=True)[:2]
    assert _same(rp.roc_auc(*(x[None, :] for x in merged))[0], auc)
    merged = bs.merge_runs(pos, neg, positive_runs=False)[:2]
    assert _same(rp.average_precision(*(x[None, :] for x in merged))[0], ap)


def test_percentiles_are_numpys_skipping_nan() -> None:
    rng = np.random.default_rng(4)
    values = rng.normal(size=(101, 4))
    values[rng.random((101, 4)) < 0.2] = np.nan
    values[:, 3] = np.nan  # no value at all
    values[:100, 2] = np.nan  # a single value
    low, high = rp.percentiles(values, 0.9)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanpercentile(values, [5, 95], axis=0)
    np.testing.assert_allclose(low, expected[0], rtol=1e-12)
    np.testing.assert_allclose(high, expected[1], rtol=1e-12)


def test_labels_option_bootstraps_like_the_rows() -> None:
    # labels= keeps rows outside the labels as FP/FN and in tn (per_class), drops
    # them (summary), and keeps a label absent from the data: each replicate must too
    rng = np.random.default_rng(3)
    df = _frame(3000, rng)
    labels = [2, 0, 7]
    boot = {"ci": 0.95, "n_boot": 2000, "seed": 2, "ci_method": "bootstrap"}
    pc = df.metrics.per_class("t", "p", labels=labels, **boot)
    sm = df.metrics.summary("t", "p", labels=labels, **boot)
    assert pc["label"].to_list() == labels
    assert pc.filter(pl.col("label") == 7)["recall_low"].to_list() == [0.0]  # zero_division
    t, p = df["t"].to_numpy(), df["p"].to_numpy()
    spec2, rec0, acc = [], [], []
    for _ in range(500):
        i = rng.integers(0, len(t), len(t))
        _, rec, _, _ = skm.precision_recall_fscore_support(
            t[i], p[i], labels=labels, zero_division=0.0
        )
        rec0.append(rec[1])
        negatives = t[i] != 2  # every row whose actual label is not 2, labelled or not
        spec2.append((negatives & (p[i] != 2)).sum() / negatives.sum())
        kept = np.isin(t[i], labels) & np.isin(p[i], labels)
        acc.append((t[i][kept] == p[i][kept]).mean())
    for row_reps, low, high in (
        (rec0, pc["recall_low"][1], pc["recall_high"][1]),
        (spec2, pc["specificity_low"][0], pc["specificity_high"][0]),
        (acc, sm["accuracy_low"][0], sm["accuracy_high"][0]),
    ):
        r_low, r_high = np.percentile(row_reps, [2.5, 97.5])
        width = r_high - r_low
        assert abs((high - low) - width) < 0.2 * width
        assert abs((high + low) / 2 - (r_high + r_low) / 2) < 0.2 * width


def test_a_segments_interval_does_not_depend_on_the_other_segments() -> None:
    # each segment draws from its own generator (seed + its key), and segments
    # are stacked for the metrics: filtering to one segment changes nothing
    rng = np.random.default_rng(8)
    df = _frame(3000, rng).with_columns(pl.Series("g", rng.choice(["x", "y", "z"], 3000)))
    z = pl.col("g") == "z"  # two classes in "z", three elsewhere
    df = df.with_columns(pl.when(z).then(pl.col(c) % 2).otherwise(c).alias(c) for c in ("t", "p"))
    for method, args in (("report", ("t", "p")), ("summary", ("t", "p")), ("roc_auc", ("y", "s"))):
        run = getattr(df.metrics, method)
        boot = {"ci": 0.9, "n_boot": 200, "seed": 4, "ci_method": "bootstrap"}
        every = run(*args, by="g", **boot)
        for g in ("x", "z"):
            alone = getattr(df.filter(pl.col("g") == g).metrics, method)
            one = alone(*args, by="g", **boot)
            assert_frame_equal(every.filter(pl.col("g") == g), one)


def _delong_by_hand(y: np.ndarray, s: np.ndarray, z: float) -> tuple[float, float, float]:
    """DeLong, DeLong & Clarke-Pearson (1988) over every (positive, negative) pair:
    psi = 1 if the positive scores higher, 1/2 if tied; V10 the positives' row means,
    V01 the negatives' column means; var = S10 / P + S01 / N (sample variances)."""
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    auc = psi.mean()
    if pos.size < 2 or neg.size < 2:
        return auc, math.nan, math.nan
    se = (v10.var(ddof=1) / pos.size + v01.var(ddof=1) / neg.size) ** 0.5
    return auc, max(auc - z * se, 0.0), min(auc + z * se, 1.0)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 60),
    ties=st.sampled_from([1, 4, 1000]),
    seed=st.integers(0, 2**32 - 1),
    how=st.sampled_from(oracle.RANKING_STRATEGIES),
    negative=st.booleans(),
)
def test_delong_equals_the_pairwise_definition_on_every_strategy(
    n: int, ties: int, seed: int, how: str, negative: bool
) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[0] = 1  # a positive somewhere (none at all is the documented error)
    s = rng.integers(0, ties, n) / ties  # few distinct scores: many ties between classes
    if negative:  # scores of both signs: the keys fall back to the search
        s -= 0.5
    df = pl.DataFrame({"y": y, "s": s, "g": rng.choice(["a", "b"], n)})
    with oracle.ranking_strategy(how):
        got = df.metrics.roc_auc("y", "s", by="g", ci=0.9, ci_method="delong")
    z = NormalDist().inv_cdf(0.95)
    for g, auc, low, high in got.iter_rows():
        seg = df.filter(pl.col("g") == g)
        ys, ss = seg["y"].to_numpy(), seg["s"].to_numpy()
        p, q = int(ys.sum()), int((1 - ys).sum())
        if p == 0 or q == 0:
            assert (auc, low, high) == (None, None, None)
            continue
        expected = _delong_by_hand(ys, ss, z)
        assert auc == pytest.approx(expected[0], rel=1e-12, abs=1e-12)
        if p < 2 or q < 2:  # a sample variance needs two of each class
            assert (low, high) == (None, None)
        else:
            assert (low, high) == pytest.approx(expected[1:], rel=1e-9, abs=1e-12)


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
    draws = bs.draw_segment(counts_, 40_000, 3, ("segment",))
    assert (draws.sum(axis=1) == n).all()
    assert (draws[:, counts_ == 0] == 0).all()
    share = counts_ / n
    expected = n * (np.diag(share) - np.outer(share, share))
    np.testing.assert_allclose(draws.mean(axis=0), n * share, atol=4 * np.sqrt(n / 40_000))
    np.testing.assert_allclose(np.cov(draws.T), expected, atol=0.05 * n)


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
    draws = bs.draw_segment(counts_, 40_000, 3, ("segment",), poisson=True)
    again = bs.draw_segment(counts_, 40_000, 3, ("segment",), poisson=True)
    np.testing.assert_array_equal(draws, again)  # keyed: the same seed, the same draws
    assert (draws[:, counts_ == 0] == 0).all()
    se = 4 * np.sqrt(counts_ / 40_000)  # 4 standard errors of a mean of 40,000
    np.testing.assert_allclose(draws.mean(axis=0), counts_, atol=se.max())
    np.testing.assert_allclose(np.cov(draws.T), np.diag(counts_), atol=0.05 * counts_.max())
    totals = draws.sum(axis=1)
    assert totals.mean() == pytest.approx(n, abs=4 * np.sqrt(n / 40_000))
    assert totals.var() == pytest.approx(n, rel=0.05)
    # not the multinomial's draws (fixed totals), from the same generators
    fixed = bs.draw_segment(counts_, 40_000, 3, ("segment",))
    assert (fixed.sum(axis=1) == n).all()
    assert not np.array_equal(draws, fixed)


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
    monkeypatch.setattr(bs, "entropy_of", spy)
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
        draws = rng.poisson(50 / cells, size=(7, segments * cells))
    else:
        draws = rng.multinomial(50, np.full(cells, 1 / cells), size=(7, segments)).reshape(7, -1)
    fixed = not poisson
    square = bs.square_counter(a, p, size, segments, fixed_total=fixed)
    assert square is not None
    general = bs.class_counter(
        a, p, segment * size, segment, segments * size, restrict=True, fixed_total=fixed
    )
    for got, want in zip(square(draws), general(draws), strict=True):
        np.testing.assert_array_equal(got, want.reshape(got.shape))
    # n by hand: each replicate's rows of each segment
    totals = draws.reshape(7, segments, cells).sum(axis=-1)
    np.testing.assert_array_equal(square(draws)[3], totals)
    np.testing.assert_array_equal(general(draws)[3], totals)
    assert poisson == (totals != 50).any()  # the Poisson totals vary (seeded: they do)
    # by hand, replicate 0, segment 0: tp is the diagonal, support the row sums
    first = draws[0, :cells].reshape(size, size)
    np.testing.assert_array_equal(square(draws)[0][0, 0], np.diag(first))
    np.testing.assert_array_equal(square(draws)[1][0, 0], first.sum(axis=1))
    # a missing cell, another order or another size: not a square chunk
    assert bs.square_counter(a[1:], p[1:], size, segments, fixed_total=fixed) is None
    if size > 1:
        assert bs.square_counter(p, a, size, segments, fixed_total=fixed) is None
    assert bs.square_counter(a, p, size + 1, segments, fixed_total=fixed) is None


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


def _boyd_oracle(y: np.ndarray, s: np.ndarray, ci: float) -> tuple[float, float, float]:
    """AP from scikit-learn and Boyd, Eng & Page's (2013) logit interval written out
    (``ci_method="boyd"``, the default before issue 49; the default's oracle is in
    ``tests/test_ap_interval.py``): theta = AP, P positives, eta = log(theta / (1 -
    theta)), tau = 1 / sqrt(P theta (1 - theta)), bounds 1 / (1 + exp(-(eta -+ z
    tau))); at theta = 1
    their limits, 0 and 1 (eta - z tau -> -inf: tau ~ 1 / sqrt(1 - theta) outgrows
    eta ~ -log(1 - theta))."""
    theta = skm.average_precision_score(y, s)
    n_pos = int(y.sum())
    if theta == 1:
        return theta, 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + ci / 2)
    eta = math.log(theta / (1 - theta))
    tau = 1 / math.sqrt(n_pos * theta * (1 - theta))
    return theta, 1 / (1 + math.exp(-(eta - z * tau))), 1 / (1 + math.exp(-(eta + z * tau)))


@pytest.mark.parametrize("scores", ["continuous", "ties"])  # the sorted and counting paths
@pytest.mark.parametrize("ci", [0.9, 0.95])
def test_average_precision_boyd_interval_stays_available(scores: str, ci: float) -> None:
    rng = np.random.default_rng(11)
    n = 3000
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    g = rng.choice(["a", "b", "c", "d"], n)
    # segment d: all positives ranked first (AP 1: no interval); c: a few rows
    s = np.where(g == "d", y + rng.random(n) / 2, s)
    df = pl.DataFrame({"y": y, "s": s.round(1) if scores == "ties" else s, "g": g})
    df = df.filter((pl.col("g") != "c") | (pl.int_range(pl.len()).over("g") < 12))
    got = df.metrics.average_precision("y", "s", by="g", ci=ci, ci_method="boyd").sort("g")
    state = pl_metrics.from_score_counts(df.metrics.score_counts("y", "s", by="g"), by="g")
    counted = state.average_precision(ci=ci, ci_method="boyd").sort("g")
    assert_frame_equal(counted, got, check_row_order=False)
    for row in got.iter_rows(named=True):
        part = df.filter(pl.col("g") == row["g"])
        ap, low, high = _boyd_oracle(part["y"].to_numpy(), part["s"].to_numpy(), ci)
        assert row["average_precision"] == pytest.approx(ap, rel=1e-12)
        # (a float a step below 1 gives 0 and 1 within 1e-12 too)
        assert row["average_precision_low"] == pytest.approx(low, rel=1e-9, abs=1e-12), row
        assert row["average_precision_high"] == pytest.approx(high, rel=1e-9, abs=1e-12), row
        assert row["average_precision_low"] < ap <= row["average_precision_high"]
    assert got.filter(pl.col("g") == "d")["average_precision"].item() == pytest.approx(1.0)
    # a segment without positives: AP 0.0 (scikit-learn's), no interval
    none = df.with_columns(y=pl.when(pl.col("g") == "a").then(0).otherwise("y"))
    for method in ("logit", "boyd"):
        got = none.metrics.average_precision("y", "s", by="g", ci=ci, ci_method=method)
        assert got.filter(pl.col("g") == "a").row(0) == ("a", 0.0, None, None)


def test_roc_auc_delong_is_the_default() -> None:
    rng = np.random.default_rng(12)
    df = _frame(2000, rng).with_columns(g=pl.Series(rng.choice(["x", "y"], 2000)))
    for s in ("s", pl.col("s") + pl.Series(rng.random(2000) / 1000)):  # ties; continuous
        frame = df.with_columns(s=s)
        got = frame.metrics.roc_auc("y", "s", by="g", ci=0.9)
        assert_frame_equal(got, frame.metrics.roc_auc("y", "s", by="g", ci=0.9, ci_method="delong"))
        state = pl_metrics.from_score_counts(frame.metrics.score_counts("y", "s", by="g"), by="g")
        assert_frame_equal(state.roc_auc(ci=0.9), got, check_row_order=False, rel_tol=1e-12)


def test_over_time_scores_take_their_analytic_default() -> None:
    import datetime as dt

    rng = np.random.default_rng(13)
    n = 600
    df = _frame(n, rng).with_columns(
        day=pl.Series(
            [dt.date(2026, 1, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 3, n)]
        )
    )
    got = df.metrics.over_time(
        "y", y_score="s", index="day", every="1d", metrics=["roc_auc", "average_precision"], ci=0.9
    )
    for row in got.iter_rows(named=True):
        part = df.filter(pl.col("day") == row["window_start"])
        method = getattr(part.metrics, row["metric"])
        expected = method("y", "s", ci=0.9).row(0)  # DeLong / logit, each metric's default
        assert (row["value"], row["low"], row["high"]) == pytest.approx(expected, rel=1e-12)


def test_every_signature_default_is_the_catalogues() -> None:
    # the default ci_method of each method (frame, state finisher, Spark) is the first
    # of checks.CI_METHODS, the one the checks and compare / over_time read
    import inspect

    from pl_metrics import spark
    from pl_metrics._core import checks
    from pl_metrics.state import CountsState, ScoreCountsState

    seen = 0
    for owner in (pl_metrics.MetricsLazyFrame, CountsState, ScoreCountsState, spark):
        for name, methods in checks.CI_METHODS.items():
            function = getattr(owner, name, None)
            if function is None:
                continue
            default = inspect.signature(function).parameters["ci_method"].default
            if owner is pl_metrics.MetricsLazyFrame and name in {
                "summary",
                "per_class",
                "averages",
                "report",
            }:
                # None: the first for single-label rows, the bootstrap for multilabel ones
                assert default is None
            else:
                assert default == methods[0], (owner, name)
            seen += 1
    assert seen == 18  # six frame methods, the two states six, Spark six


# ------------------------------------------------------- multiclass ROC AUC intervals
def _delong_mean_by_hand(
    y: np.ndarray, scores: np.ndarray, average: str
) -> tuple[float, float] | None:
    """The macro / weighted one-vs-rest ROC AUC and the standard error documented in
    ``_ranking.multiclass.delong_mean_se``, over every (positive, negative) pair:
    class k's kernel psi = 1 if a positive of k outscores a negative on column k, 1/2
    if tied; its placements V10 (positives' row means) and V01 (negatives' column
    means); C_kk = DeLong's S10 / P + S01 / N; C_kl = sum over the rows of
    infl_k * infl_l, infl_k = (V - A_k) / P_k for a positive of k, / N_k for a
    negative; var = c' C c, c = 1/K (macro) or P_k / sum P (weighted) over the
    classes with an AUC.  None when a class of the mean has fewer than 2 of one."""
    n, k_total = scores.shape
    aucs, influence, variances, weights = [], [], [], []
    for k in range(k_total):
        pos = y == k
        if pos.sum() == 0 or (~pos).sum() == 0:
            continue
        if pos.sum() < 2 or (~pos).sum() < 2:
            return None
        s = scores[:, k]
        kernel = (s[pos][:, None] > s[~pos][None, :]) + 0.5 * (s[pos][:, None] == s[~pos][None, :])
        v10, v01 = kernel.mean(axis=1), kernel.mean(axis=0)
        auc = kernel.mean()
        infl = np.empty(n)
        infl[pos] = (v10 - auc) / pos.sum()
        infl[~pos] = (v01 - auc) / (~pos).sum()
        aucs.append(auc)
        influence.append(infl)
        variances.append(v10.var(ddof=1) / pos.sum() + v01.var(ddof=1) / (~pos).sum())
        weights.append(1.0 if average == "macro" else float(pos.sum()))
    c = np.array(weights) / sum(weights)
    cov = np.array(influence) @ np.array(influence).T
    np.fill_diagonal(cov, variances)
    return float(c @ np.array(aucs)), float(math.sqrt(c @ cov @ c))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(3, 50),
    ties=st.sampled_from([3, 1000]),
    seed=st.integers(0, 2**32 - 1),
    average=st.sampled_from(["macro", "weighted"]),
)
def test_multiclass_roc_auc_delong_equals_the_pairwise_definition(
    n: int, ties: int, seed: int, average: str
) -> None:
    """Per class (``average=None``): DeLong's interval of each class against the rest
    (``_delong_by_hand``); the macro / weighted mean: the documented covariance of the
    classes' AUCs (``_delong_mean_by_hand``), per segment."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    scores = rng.integers(0, ties, (n, 3)) / ties
    df = pl.DataFrame({"y": y, "g": rng.choice(["a", "b"], n)}).with_columns(
        pl.Series(f"q{k}", scores[:, k]) for k in range(3)
    )
    q = {k: f"q{k}" for k in range(3)}
    z = NormalDist().inv_cdf(0.95)
    per_class = df.metrics.roc_auc("y", q, by="g", average=None, ci=0.9)
    mean = df.metrics.roc_auc("y", q, by="g", average=average, ci=0.9)
    for g, rows in df.partition_by("g", as_dict=True).items():
        ys, ss = rows["y"].to_numpy(), rows.select("q0", "q1", "q2").to_numpy()
        for k in range(3):
            got = per_class.filter((pl.col("g") == g[0]) & (pl.col("label") == k))
            auc, low, high = got.select("roc_auc", "roc_auc_low", "roc_auc_high").row(0)
            if (ys == k).all() or not (ys == k).any():
                assert (auc, low, high) == (None, None, None)
                continue
            expected = _delong_by_hand((ys == k).astype(int), ss[:, k], z)
            assert auc == pytest.approx(expected[0], rel=1e-12)
            if math.isnan(expected[1]):
                assert (low, high) == (None, None)
            else:
                assert (low, high) == pytest.approx(expected[1:], rel=1e-9, abs=1e-12)
        got = mean.filter(pl.col("g") == g[0]).row(0, named=True)
        if got["roc_auc"] is None:
            assert np.unique(ys).size < 2  # no class with an AUC
            continue
        expected_mean = _delong_mean_by_hand(ys, ss, average)
        if expected_mean is None:
            assert (got["roc_auc_low"], got["roc_auc_high"]) == (None, None)
            continue
        auc, se = expected_mean
        assert got["roc_auc"] == pytest.approx(auc, rel=1e-12)
        bounds = (min(max(auc - z * se, 0.0), 1.0), min(max(auc + z * se, 0.0), 1.0))
        assert (got["roc_auc_low"], got["roc_auc_high"]) == pytest.approx(
            bounds, rel=1e-9, abs=1e-12
        )


def test_multiclass_roc_auc_interval_matches_the_bootstrap_spread() -> None:
    """The macro interval's standard error against scikit-learn's macro AUC over 300
    bootstrap resamples of 2,000 rows: within 10 % (an analytic interval that
    ignored the classes' covariance would be off by far more here)."""
    rng = np.random.default_rng(11)
    n = 2000
    y = rng.integers(0, 3, n)
    logits = rng.normal(size=(n, 3)) + np.eye(3)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    df = pl.DataFrame({"y": y, "q0": p[:, 0], "q1": p[:, 1], "q2": p[:, 2]})
    got = df.metrics.roc_auc("y", {0: "q0", 1: "q1", 2: "q2"}, ci=0.95)
    se = (got["roc_auc_high"][0] - got["roc_auc_low"][0]) / (2 * NormalDist().inv_cdf(0.975))
    draws = [
        skm.roc_auc_score(y[i], p[i], multi_class="ovr")
        for i in (rng.integers(0, n, n) for _ in range(300))
    ]
    assert se == pytest.approx(np.std(draws, ddof=1), rel=0.1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 30),
    ties=st.sampled_from([3, 1000]),
    seed=st.integers(0, 2**32 - 1),
    average=st.sampled_from([None, "macro", "weighted"]),
)
def test_multiclass_bootstrap_replicates_are_sklearns_auc_on_redrawn_rows(
    n: int, ties: int, seed: int, average: str | None
) -> None:
    """A replicate's value (the rows' redrawn counts) is scikit-learn's one-vs-rest AUC
    on the rows weighted by those counts: per class (roc_auc_score of y == k), and
    the macro / weighted mean over the classes with an AUC (weighted by the
    replicate's rows of each class); NaN where no class has one."""
    from pl_metrics._intervals import ovr

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    scores = rng.integers(0, ties, (n, 3)) / ties
    block = rng.integers(0, 3, (4, n))
    counters = ovr.class_counters(y, [scores[:, k] for k in range(3)])
    got = ovr.replicates(counters, block, average)  # replicate x segment (x class)
    got = got[:, 0] if average is None else got  # the one segment's classes
    for r in range(block.shape[0]):
        w = block[r].astype(float)
        aucs, support = [], []
        for k in range(3):
            pos, neg = ((y == k) * w).sum(), ((y != k) * w).sum()
            defined = pos > 0 and neg > 0
            aucs.append(
                skm.roc_auc_score(y == k, scores[:, k], sample_weight=w) if defined else np.nan
            )
            support.append(pos)
        if average is None:
            np.testing.assert_allclose(got[r], aucs, rtol=1e-12)
            continue
        kept = ~np.isnan(aucs)
        weights = np.where(kept, np.array(support) if average == "weighted" else 1.0, 0.0)
        if weights.sum() == 0:
            assert math.isnan(got[r, 0])
        else:
            expected = float((np.where(kept, aucs, 0.0) * weights).sum() / weights.sum())
            assert got[r, 0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("average", [None, "macro", "weighted"])
def test_multiclass_roc_auc_bootstrap_is_the_row_bootstrap(average: str | None) -> None:
    """ci_method="bootstrap": the percentile interval of scikit-learn's AUC over rows
    resampled here (width and centre within Monte-Carlo tolerance), the same for the
    rows in another order, and a segment alone gets its interval within the frame."""
    rng = np.random.default_rng(21)
    n = 1500
    y = rng.integers(0, 3, n)
    logits = rng.normal(size=(n, 3)) + np.eye(3)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    df = pl.DataFrame({"y": y, "q0": p[:, 0], "q1": p[:, 1], "q2": p[:, 2]})
    q = {0: "q0", 1: "q1", 2: "q2"}
    kw = {"average": average, "ci": 0.95, "ci_method": "bootstrap", "n_boot": 1000, "seed": 3}
    got = df.metrics.roc_auc("y", q, **kw)
    draws = [rng.integers(0, n, n) for _ in range(400)]
    if average is None:
        rows = [[skm.roc_auc_score(y[i] == k, p[i, k]) for k in range(3)] for i in draws]
    else:
        rows = [[skm.roc_auc_score(y[i], p[i], multi_class="ovr", average=average)] for i in draws]
    low, high = np.percentile(np.array(rows), [2.5, 97.5], axis=0)
    width = high - low
    np.testing.assert_array_less(
        np.abs(got["roc_auc_high"] - got["roc_auc_low"] - width), 0.15 * width
    )
    centre = (got["roc_auc_high"] + got["roc_auc_low"]).to_numpy() / 2
    np.testing.assert_array_less(np.abs(centre - (high + low) / 2), 0.15 * width)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=2).metrics.roc_auc("y", q, **kw)
    assert_frame_equal(shuffled, got)
    alone = df.with_columns(g=pl.lit("a"))
    both = pl.concat([alone, df.head(300).with_columns(g=pl.lit("b"))])
    by_segment = both.metrics.roc_auc("y", q, by="g", **kw).filter(pl.col("g") == "a")
    assert_frame_equal(by_segment, alone.metrics.roc_auc("y", q, by="g", **kw))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"average": "micro"}, "average='micro'"),
        ({"multi_class": "ovo"}, "multi_class='ovo'"),
    ],
)
def test_multiclass_roc_auc_intervals_are_ovr(kwargs: dict, match: str) -> None:
    df = pl.DataFrame({"y": [0, 1, 2, 0, 1, 2], "a": [0.6, 0.2, 0.2] * 2})
    df = df.with_columns(b=1 - pl.col("a") - 0.1, c=pl.lit(0.1))
    with pytest.raises(ValueError, match=match):
        df.metrics.roc_auc("y", {0: "a", 1: "b", 2: "c"}, ci=0.9, **kwargs)


# ------------------------------------------------ summary: the delta method (default)
def _cells_oracle(t: np.ndarray, p: np.ndarray, labels: list) -> tuple[np.ndarray, np.ndarray]:
    """The confusion cells (actual x predicted over ``labels``) as rows with weights."""
    cm = skm.confusion_matrix(t, p, labels=labels)
    k = len(labels)
    return cm.ravel().astype(float), np.array([(i, j) for i in range(k) for j in range(k)])


def _delta_se_by_hand(metric, cm_shares: np.ndarray, pairs: np.ndarray, n: int) -> float:
    """The multinomial delta method: var = (sum pi g^2 - (sum pi g)^2) / n, g_ij the
    derivative of ``metric`` (scikit-learn's, on the cells as weighted rows) in the
    share pi_ij of cell ij, by central differences of the renormalised shares."""

    def f(shares: np.ndarray) -> float:
        kept = shares > 0
        return metric(pairs[kept, 0], pairs[kept, 1], sample_weight=shares[kept])

    g = np.zeros(len(cm_shares))
    h = 1e-6
    for c in np.flatnonzero(cm_shares):  # empty cells weigh nothing in the sums
        up, down = cm_shares.copy(), cm_shares.copy()
        up[c] += h
        down[c] -= h
        g[c] = (f(up / up.sum()) - f(down / down.sum())) / (2 * h)
    var = (cm_shares @ (g * g) - (cm_shares @ g) ** 2) / n
    return math.sqrt(max(var, 0.0))


def _balanced_accuracy(t, p, sample_weight):
    return skm.balanced_accuracy_score(t, p, sample_weight=sample_weight)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(8, 300),
    k=st.integers(2, 4),
    accuracy=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    ci=st.sampled_from([0.8, 0.95]),
)
def test_summary_delta_is_statsmodels_kappa_and_the_delta_method(
    n: int, k: int, accuracy: float, seed: int, ci: float
) -> None:
    from statsmodels.stats.inter_rater import cohens_kappa

    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < accuracy, t, rng.integers(0, k, n))
    df = pl.DataFrame({"t": t, "p": p})
    out = df.metrics.summary("t", "p", ci=ci)  # the default: ci_method="delta"
    z = NormalDist().inv_cdf(0.5 + ci / 2)
    labels = sorted(set(t) | set(p))
    cm = skm.confusion_matrix(t, p, labels=labels)
    shares, pairs = _cells_oracle(t, p, labels)
    shares /= shares.sum()

    # kappa: estimate +- z statsmodels' std_kappa (Fleiss, Cohen & Everitt), clipped to
    # [-1, 1]; at 95 % statsmodels' own kappa_low / kappa_upp (its level is fixed)
    if len(labels) > 1:
        res = cohens_kappa(cm, return_results=True)
        low, high = res.kappa - z * res.std_kappa, res.kappa + z * res.std_kappa
        if ci == 0.95:
            low, high = res.kappa_low, res.kappa_upp
        if math.isnan(res.std_kappa):  # statsmodels' 0 / 0 at perfect agreement: se 0
            assert np.trace(cm) == n
            low = high = 1.0
        assert out["cohen_kappa_low"][0] == pytest.approx(max(low, -1.0), abs=1e-12)
        assert out["cohen_kappa_high"][0] == pytest.approx(min(high, 1.0), abs=1e-12)
    else:  # one class, all actual and predicted: kappa undefined (NaN), no interval
        assert out["cohen_kappa_low"][0] is None

    # MCC: estimate +- z se, se by the delta method on scikit-learn's MCC
    mcc = out["mcc"][0]
    if len(set(t)) > 1 and len(set(p)) > 1:
        se = _delta_se_by_hand(skm.matthews_corrcoef, shares, pairs, n)
        assert out["mcc_low"][0] == pytest.approx(max(mcc - z * se, -1.0), abs=1e-6)
        assert out["mcc_high"][0] == pytest.approx(min(mcc + z * se, 1.0), abs=1e-6)
    else:  # MCC is 0 by convention there, with no derivative
        assert out["mcc_low"][0] is None

    # balanced accuracy: Wilson with the effective rows BA (1 - BA) / var, capped at
    # (and where var = 0 equal to) K^2 / sum(1 / n_k), K the classes with actual rows
    ba = out["balanced_accuracy"][0]
    se = _delta_se_by_hand(_balanced_accuracy, shares, pairs, n)
    support = cm.sum(axis=1)[cm.sum(axis=1) > 0]
    design = len(support) ** 2 / (1.0 / support).sum()
    effective = min(ba * (1 - ba) / se**2, design) if se > 1e-9 else design
    centre = (ba + z * z / (2 * effective)) / (1 + z * z / effective)
    half = (z * math.sqrt(ba * (1 - ba) / effective + z * z / (4 * effective**2))) / (
        1 + z * z / effective
    )
    assert out["balanced_accuracy_low"][0] == pytest.approx(centre - half, abs=1e-6)
    assert out["balanced_accuracy_high"][0] == pytest.approx(centre + half, abs=1e-6)
    # accuracy: Wilson's interval, as ci_method="wilson"
    wilson = df.metrics.summary("t", "p", ci=ci, ci_method="wilson")
    assert_frame_equal(
        out.select("accuracy_low", "accuracy_high"), wilson.select("accuracy_low", "accuracy_high")
    )


def test_summary_delta_balanced_accuracy_with_a_class_only_predicted() -> None:
    """A class predicted but never actual, sorted last: the balanced accuracy's
    effective rows are still capped at K^2 / sum(1 / n_k) over the actual classes
    (the running sum of 1 / n_k ended on that class's null: no cap, an interval
    too narrow).  BA = (2/4 + 4/4) / 2; its variance (1/2)^2 (1/2)(1/2) / 4 gives
    12 effective rows, capped at 2^2 / (1/4 + 1/4) = 8: Wilson's interval of 6 of 8."""
    df = pl.DataFrame({"t": [1, 1, 0, 1, 0, 0, 0, 1], "p": [1, 1, 2, 1, 0, 0, 1, 1]})
    out = df.metrics.summary("t", "p", ci=0.8)
    low, high = proportion_confint(6, 8, alpha=0.2, method="wilson")
    assert out["balanced_accuracy_low"][0] == pytest.approx(low, rel=1e-12)
    assert out["balanced_accuracy_high"][0] == pytest.approx(high, rel=1e-12)


def test_summary_delta_one_class_is_the_wilson_interval_of_its_recall() -> None:
    # every row actually 1: balanced accuracy = the recall of 1 = 7 / 10
    df = pl.DataFrame({"t": [1] * 10, "p": [1] * 7 + [0] * 3})
    out = df.metrics.summary("t", "p", ci=0.9)
    recall = (
        pl.DataFrame({"t": [1] * 10, "p": [1] * 7 + [0] * 3})
        .metrics.per_class("t", "p", ci=0.9, ci_method="wilson")
        .filter(pl.col("label") == 1)
    )
    assert out["balanced_accuracy_low"][0] == pytest.approx(recall["recall_low"][0], rel=1e-12)
    assert out["balanced_accuracy_high"][0] == pytest.approx(recall["recall_high"][0], rel=1e-12)
    assert out["mcc_low"][0] is None  # one actual class: MCC has no derivative
    # fewer than 2 rows: no interval but the accuracy's
    one = pl.DataFrame({"t": [1], "p": [0]}).metrics.summary("t", "p", ci=0.9)
    bounds = one.select(pl.col("^(balanced_accuracy|mcc|cohen_kappa)_(low|high)$"))
    assert bounds.null_count().row(0) == (1,) * 6


def test_summary_delta_is_the_same_bits_on_every_path() -> None:
    rng = np.random.default_rng(11)
    n = 3000
    t = rng.integers(0, 3, n)
    df = pl.DataFrame(
        {
            "g": rng.choice(["a", "b", None], n),
            "t": t,
            "p": np.where(rng.random(n) < 0.6, t, rng.integers(0, 4, n)),
        }
    )
    expected = df.metrics.summary("t", "p", by="g", ci=0.95, labels=[0, 1, 2, 3]).sort("g")
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=2).lazy()
    got = shuffled.metrics.summary("t", "p", by="g", ci=0.95, labels=[0, 1, 2, 3])
    for engine in ("streaming", "in-memory"):
        assert_frame_equal(got.collect(engine=engine).sort("g"), expected, check_exact=True)
    # each segment alone has its interval in the segmented frame
    alone = df.filter(pl.col("g") == "a").metrics.summary("t", "p", ci=0.95, labels=[0, 1, 2, 3])
    assert_frame_equal(expected.filter(pl.col("g") == "a").drop("g"), alone, check_exact=True)


def test_summary_delta_covers_the_truth_95_percent() -> None:
    # 3 classes with shares 0.5 / 0.3 / 0.2; a row is predicted right with probability
    # 0.7, else uniformly over the classes: the population cells pi_ij are known, and
    # the population metrics are scikit-learn's on those cells as weights
    share, right = np.array([0.5, 0.3, 0.2]), 0.7
    pi = np.diag(share * right) + np.outer(share, np.full(3, (1 - right) / 3))
    pairs = np.array([(i, j) for i in range(3) for j in range(3)])
    truth = {
        "balanced_accuracy": skm.balanced_accuracy_score(*pairs.T, sample_weight=pi.ravel()),
        "mcc": skm.matthews_corrcoef(*pairs.T, sample_weight=pi.ravel()),
        "cohen_kappa": skm.cohen_kappa_score(*pairs.T, sample_weight=pi.ravel()),
    }
    rng = np.random.default_rng(3)
    repeats, n = 400, 300
    cells = rng.choice(9, size=(repeats, n), p=pi.ravel())
    df = pl.DataFrame(
        {"r": np.repeat(np.arange(repeats), n), "t": (cells // 3).ravel(), "p": (cells % 3).ravel()}
    )
    out = df.metrics.summary("t", "p", by="r", ci=0.95)
    for metric, value in truth.items():
        cover = ((out[f"{metric}_low"] <= value) & (value <= out[f"{metric}_high"])).mean()
        # 400 repeats: the Monte-Carlo sd of a 95 % coverage is 1.1 %
        assert 0.915 <= cover <= 0.985, (metric, cover)


@pytest.mark.parametrize(
    "df",
    [
        pl.DataFrame({"t": [5, 5, 6], "p": [5, 6, 6]}),  # labels= outside every row
        pl.DataFrame({"t": [], "p": []}, schema={"t": pl.Int64, "p": pl.Int64}),  # no rows
    ],
)
def test_summary_delta_of_no_counted_rows_has_null_bounds(df: pl.DataFrame) -> None:
    out = df.metrics.summary("t", "p", ci=0.95, labels=[1, 2])
    wilson = df.metrics.summary("t", "p", ci=0.95, labels=[1, 2], ci_method="wilson")
    # the plain summary's rows: one of n = 0 when rows exist outside labels=, none
    # without rows
    assert out.height == df.metrics.summary("t", "p", labels=[1, 2]).height
    if out.is_empty():
        assert out.columns == wilson.columns
        return
    assert out["n"][0] == 0
    assert out.drop(pl.col("^.*_(low|high)$")).equals(wilson.drop(pl.col("^.*_(low|high)$")))
    bounds = out.select(pl.col("^.*_(low|high)$"))
    assert bounds.null_count().row(0) == (1,) * 8
    state = pl_metrics.from_counts(df.metrics.counts("t", "p")).summary(ci=0.95, labels=[1, 2])
    assert_frame_equal(state, out)


def _wilson_at(value: float, se: float, trials: float, z: float) -> tuple[float, float]:
    """Wilson's interval at the effective rows value (1 - value) / se^2 (``trials``
    where the variance is 0), as ``analytic.wilson_at_variance`` documents it."""
    spread = value * (1 - value)
    n = spread / se**2 if se > 1e-7 and spread > 0 else trials
    centre = (value + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(value * (1 - value) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(8, 200),
    k=st.integers(2, 4),
    accuracy=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    ci=st.sampled_from([0.8, 0.95]),
    beta=st.sampled_from([1.0, 0.5, 2.0]),
    zero_division=st.sampled_from([0.0, math.nan]),
    subset=st.booleans(),
)
def test_label_delta_is_the_delta_method_on_scikit_learn(
    n: int,
    k: int,
    accuracy: float,
    seed: int,
    ci: float,
    beta: float,
    zero_division: float,
    subset: bool,
) -> None:
    # per_class / averages / report(ci) by default (ci_method="delta"): Wilson's
    # interval for the per-class proportions; for F-beta and every average, Wilson's
    # interval at the effective rows M (1 - M) / var, var by the multinomial delta
    # method on scikit-learn's metric (its numerical derivatives in each cell's
    # share), at the score's trials where var is 0
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < accuracy, t, rng.integers(0, k, n))
    df = pl.DataFrame({"t": t, "p": p})
    every = sorted(set(t) | set(p))
    labels = every[:-1] if subset and len(every) > 2 else every
    kwargs = {"ci": ci, "beta": beta, "zero_division": zero_division, "labels": labels}
    kwargs["extra_scores"] = ["fowlkes_mallows"]  # the opt-in score's interval too
    per_class = df.metrics.per_class("t", "p", **kwargs)
    averages = df.metrics.averages("t", "p", **kwargs)
    z = NormalDist().inv_cdf(0.5 + ci / 2)
    shares, positions = _cells_oracle(t, p, every)
    shares /= shares.sum()
    pairs = np.asarray(every)[positions]  # the cells' labels
    f = "f1" if beta == 1 else f"f{beta:g}"

    def sk_metric(name: str, average: str | None, label: object = None):
        """scikit-learn's score ``name`` (its ``average``, else the class ``label``) of
        weighted rows, for :func:`_delta_se_by_hand`."""

        def metric(y, yhat, sample_weight):
            options = {"labels": labels, "average": average, "zero_division": zero_division}
            options["sample_weight"] = sample_weight
            if name == "jaccard":
                out = skm.jaccard_score(y, yhat, **options)
            elif name == "fowlkes_mallows":
                out = oracle.fowlkes_mallows(y, yhat, **options)
            else:
                out = skm.precision_recall_fscore_support(y, yhat, beta=beta, **options)
                out = out[("precision", "recall", "f").index(name)]
            return out if average else out[labels.index(label)]

        return metric

    for row, c in enumerate(labels):
        tp, fp, fn = (per_class[x][row] for x in ("tp", "fp", "fn"))
        value = per_class[f][row]
        if tp + fp + fn == 0:
            assert per_class[f"{f}_low"][row] is None
            continue
        for name, formula in ((f, "f"), ("fowlkes_mallows", "fowlkes_mallows")):
            value = per_class[name][row]
            if math.isnan(value):  # FM: precision or recall undefined, zero_division=nan
                assert per_class[f"{name}_low"][row] is None
                continue
            se = _delta_se_by_hand(sk_metric(formula, None, c), shares, pairs, n)
            low, high = _wilson_at(value, se, tp + fp + fn, z)
            assert per_class[f"{name}_low"][row] == pytest.approx(low, abs=1e-6), (c, se)
            assert per_class[f"{name}_high"][row] == pytest.approx(high, abs=1e-6), (c, se)
        for name, trials in (
            ("precision", tp + fp),
            ("recall", tp + fn),
            ("jaccard", tp + fp + fn),
        ):
            if trials:
                low, high = _wilson_at(tp / trials, 0.0, trials, z)
                assert per_class[f"{name}_low"][row] == pytest.approx(low, abs=1e-12)
    for row, average in enumerate(("micro", "macro", "weighted")):
        tp_, fp_, fn_ = (per_class[x].sum() for x in ("tp", "fp", "fn"))
        trials = {"precision": tp_ + fp_, "recall": tp_ + fn_}
        scores = [
            ("precision", "precision"),
            ("recall", "recall"),
            (f, "f"),
            ("fowlkes_mallows", "fowlkes_mallows"),
        ]
        if not math.isnan(zero_division):  # scikit-learn's jaccard_score refuses nan
            scores.append(("jaccard", "jaccard"))
        for name, formula in scores:
            value = averages[name][row]
            if math.isnan(value):
                assert averages[f"{name}_low"][row] is None
                continue
            se = _delta_se_by_hand(sk_metric(formula, average), shares, pairs, n)
            fallback = trials.get(name, tp_ + fp_ + fn_) if average == "micro" else n
            low, high = _wilson_at(value, se, fallback, z)
            assert averages[f"{name}_low"][row] == pytest.approx(low, abs=1e-6), (average, name)
            assert averages[f"{name}_high"][row] == pytest.approx(high, abs=1e-6), (average, name)
    # the report's rows are the per-class rows' and the averages'
    report = df.metrics.report("t", "p", **kwargs)
    columns = [c for c in report.columns if c.endswith(("_low", "_high"))]
    assert_frame_equal(report.head(len(labels)).select(columns), per_class.select(columns))
    assert_frame_equal(report.tail(3).select(columns), averages.select(columns))


def test_label_delta_covers_the_truth_95_percent() -> None:
    # the population of test_summary_delta_covers_the_truth_95_percent: per-class F1
    # and the averages of scikit-learn on the population cells are the truth
    share, right = np.array([0.5, 0.3, 0.2]), 0.7
    pi = np.diag(share * right) + np.outer(share, np.full(3, (1 - right) / 3))
    pairs = np.array([(i, j) for i in range(3) for j in range(3)])
    rng = np.random.default_rng(4)
    repeats, n = 400, 300
    cells = rng.choice(9, size=(repeats, n), p=pi.ravel())
    df = pl.DataFrame(
        {"r": np.repeat(np.arange(repeats), n), "t": (cells // 3).ravel(), "p": (cells % 3).ravel()}
    )
    per_class = df.metrics.per_class("t", "p", by="r", ci=0.95)
    truth = skm.f1_score(*pairs.T, sample_weight=pi.ravel(), average=None)
    for c in range(3):
        rows = per_class.filter(pl.col("label") == c)
        value = float(truth[c])
        cover = ((rows["f1_low"] <= value) & (value <= rows["f1_high"])).mean()
        assert 0.915 <= cover <= 0.985, (c, cover)
    averages = df.metrics.averages("t", "p", by="r", ci=0.95)
    for average in ("macro", "weighted"):
        rows = averages.filter(pl.col("average") == average)
        for name, truth_ in (
            ("precision", skm.precision_score(*pairs.T, sample_weight=pi.ravel(), average=average)),
            ("recall", skm.recall_score(*pairs.T, sample_weight=pi.ravel(), average=average)),
            ("f1", skm.f1_score(*pairs.T, sample_weight=pi.ravel(), average=average)),
            ("jaccard", skm.jaccard_score(*pairs.T, sample_weight=pi.ravel(), average=average)),
        ):
            value = float(truth_)
            cover = ((rows[f"{name}_low"] <= value) & (value <= rows[f"{name}_high"])).mean()
            # 400 repeats: the Monte-Carlo sd of a 95 % coverage is 1.1 %
            assert 0.915 <= cover <= 0.985, (average, name, cover)


def test_wilson_bounds_hold_the_estimate_exactly_at_0_and_1() -> None:
    # the closed form's centre -+ half cancel at 0 and 1 (floats left 1e-17 there):
    # every Wilson bound of a score of 0 is exactly 0, of 1 exactly 1, and each
    # interval holds its estimate (per_class' proportions, F1 at its trials,
    # summary's accuracy), for every size
    for n in range(1, 61):
        right = pl.DataFrame({"t": [1] * n + [0], "p": [1] * n + [0]})
        row = right.metrics.per_class("t", "p", ci=0.95).row(1, named=True)
        assert row["recall_high"] == row["f1_high"] == row["precision_high"] == 1.0, n
        wrong = pl.DataFrame({"t": [1] * n + [0], "p": [0] * (n + 1)})
        row = wrong.metrics.per_class("t", "p", ci=0.95).row(1, named=True)
        assert row["recall_low"] == row["f1_low"] == row["jaccard_low"] == 0.0, n
        acc = wrong.head(n).metrics.summary("t", "p", ci=0.95)
        assert acc["accuracy_low"][0] == 0.0, n
    rng = np.random.default_rng(5)
    df = _frame(400, rng).with_columns(g=pl.Series(rng.integers(0, 40, 400)))
    for method in ("per_class", "averages"):
        out = getattr(df.metrics, method)("t", "p", by="g", ci=0.9, extra_scores="fowlkes_mallows")
        for name in ("precision", "recall", "f1", "jaccard", "fowlkes_mallows"):
            assert (out[f"{name}_low"] <= out[name]).all(), (method, name)
            assert (out[name] <= out[f"{name}_high"]).all(), (method, name)


def test_averages_delta_of_one_row_and_of_labels_without_rows() -> None:
    # one row: the variance is 0, so each average gets Wilson's interval of 1 of 1
    # (micro precision: exactly Wilson's, as per_class' recall and summary's accuracy);
    # listed labels that no row holds: every average is the constant zero_division,
    # with no interval (as the per-class rows)
    one = pl.DataFrame({"t": ["x"], "p": ["x"]}).metrics.averages("t", "p", ci=0.9)
    z = NormalDist().inv_cdf(0.95)
    wilson_low = 1 / (1 + z * z)  # Wilson's lower bound of 1 success in 1 trial
    assert one["precision_low"].to_list() == pytest.approx([wilson_low] * 3, rel=1e-12)
    assert one["f1_high"].to_list() == [1.0] * 3
    absent = pl.DataFrame({"t": [0, 0, 0, 1, 1], "p": [0, 2, 2, 1, 0]}).metrics.averages(
        "t", "p", ci=0.95, labels=[7, 8], zero_division=1.0, extra_scores=["fowlkes_mallows"]
    )
    assert absent["precision"].to_list() == [1.0] * 3
    bounds = absent.select(pl.col("^.*_(low|high)$").is_null().all())
    assert bounds.width == 10  # precision, recall, f1, jaccard, fowlkes_mallows
    assert bounds.row(0) == (True,) * 10


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "f1_macro"])
def test_compare_replicates_do_not_depend_on_the_chunks(
    metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # compare's replicates (a segment's, and its stratum's overall one summed over
    # its segments' redrawn counts) are reduced a chunk of segments at a time; the
    # strata's sums gathered from every chunk: chunks of one segment give the same
    rng = np.random.default_rng(19)
    df = _frame(4000, rng).with_columns(
        pl.Series("g", rng.integers(0, 30, 4000)), pl.Series("c", rng.integers(0, 3, 4000))
    )
    y, pred = ("t", "p") if metric == "f1_macro" else ("y", "s")
    kwargs = {"by": "g", "control": "c", "metric": metric, "ci": 0.9, "n_boot": 100}
    every = df.metrics.compare(y, pred, **kwargs, ci_method="bootstrap").sort("c", "g")
    assert every["diff_low"].is_not_null().mean() > 0.5  # intervals, not nulls, compared
    monkeypatch.setattr(sampling, "_CHUNK_CELLS", 1)
    one_by_one = df.metrics.compare(y, pred, **kwargs, ci_method="bootstrap").sort("c", "g")
    assert_frame_equal(every, one_by_one)


def test_a_poisson_replicate_without_rows_is_skipped() -> None:
    # a Poisson replicate of a 2-row segment holds no row with probability e^-2
    # (13.5 %): every metric is undefined there and skipped, as a 0/0 is, not its
    # zero_division value (or AP's 0), which would put the lower bound of a 90 %
    # interval at 0.  The segment's one class is always right: every replicate with
    # a row has precision, recall, F1 and AP 1
    tiny = pl.DataFrame({"g": ["tiny"] * 2, "t": [1, 1], "p": [1, 1], "s": [0.9, 0.8]})
    rng = np.random.default_rng(23)
    big = pl.DataFrame(
        {"g": ["big"] * 200, "t": rng.integers(0, 2, 200), "p": rng.integers(0, 2, 200)}
    ).with_columns(s=pl.col("p") * 0.5 + 0.2)
    df = pl.concat([tiny, big])
    boot = {"ci": 0.9, "n_boot": 2000, "seed": 1, "ci_method": "poisson"}
    kinds = {
        "per_class": df.metrics.per_class("t", "p", by="g", **boot),
        "report": df.metrics.report("t", "p", by="g", **boot),
        "averages": df.metrics.averages("t", "p", by="g", **boot),
    }
    for kind, out in kinds.items():
        row = out.filter(pl.col("g") == "tiny")
        for m in ("precision", "recall", "f1"):
            bounds = row.select(f"{m}_low", f"{m}_high")
            assert bounds.height, (kind, m)
            assert (bounds.to_numpy() == 1.0).all(), (kind, m, bounds)
    ap = df.metrics.average_precision("t", "s", by="g", **boot).filter(pl.col("g") == "tiny")
    assert (ap["average_precision_low"][0], ap["average_precision_high"][0]) == (1.0, 1.0)
    compared = df.metrics.compare("t", "p", by="g", metric="f1_macro", **boot)
    row = compared.filter(pl.col("g") == "tiny")
    assert (row["low"][0], row["high"][0]) == (1.0, 1.0)


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
def test_a_nan_control_is_one_stratum(metric: str) -> None:
    # segments whose control value is NaN form one stratum, as any other value: a
    # segment's difference to its stratum's overall value varies over the
    # replicates (it was always 0 when each NaN segment was a stratum of its own,
    # its own overall value)
    rng = np.random.default_rng(29)
    n = 3000
    df = pl.DataFrame(
        {
            "g": rng.integers(0, 6, n),
            "y": rng.integers(0, 2, n),
            "s": rng.random(n).round(2),
        }
    ).with_columns(c=pl.when(pl.col("g") < 3).then(float("nan")).otherwise(1.0))
    df = df.with_columns(s=pl.col("s") + 0.3 * pl.col("y") * (pl.col("g") == 0))
    out = df.metrics.compare(
        "y", "s", by="g", control="c", metric=metric, ci=0.9, n_boot=200, ci_method="bootstrap"
    )
    nan_stratum = out.filter(pl.col("c").is_nan())
    assert nan_stratum.height == 3
    assert (nan_stratum["diff_high"] > nan_stratum["diff_low"]).all()
    # segment 0 scores its positives higher: it differs from its stratum
    top = nan_stratum.filter(pl.col("g") == 0)
    assert top["diff_low"][0] > 0


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
        plain = bs.draw_segment(counts, 30, 4, ("s",), poisson=poisson)
        blocks = sampling.segment_draws(counts, 30, 4, ("s",), poisson=poisson, pairs=True)
        paired = np.concatenate(blocks.map(lambda block: block))
        np.testing.assert_array_equal(paired, np.c_[plain[:, 0::2], plain[:, 1::2]])
    counts = np.concatenate(small)
    starts = np.cumsum([0] + [len(c) for c in small])
    keys = [(i,) for i in range(len(small))]
    seed = sampling.Poisson(4) if poisson else 4

    def chunks(pairs: bool) -> dict[int, np.ndarray]:
        drawn = {}  # each chunk's draws, by its first segment

        def reduce(lo: int, hi: int, blocks: bs.Blocks) -> tuple[np.ndarray, dict]:
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
        for fold, metric in ((rp.AucFold, rp.roc_auc), (rp.ApFold, rp.average_precision)):
            folded = ranges.fold(7, np.random.default_rng(seed), poisson, fold(7))
            reduced = rp.undefined_without_rows(metric(block[:, :half], block[:, half:]), rows)
            if fold is rp.AucFold:
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
    monkeypatch.setattr(bs, "SCORE_FOLDS", {"roc_auc": None, "average_precision": None})
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

    def keep(lo: int, hi: int, blocks: bs.Blocks) -> tuple[np.ndarray, dict]:
        drawn[lo] = np.concatenate(blocks.map(lambda b: b))
        assert hi - lo == len(segments)  # one chunk of all of them
        return np.arange(lo, hi), {}

    sampling.redraw(counts, starts, keys, keep, n_boot=25, seed=seed, threads=1, pairs=pairs)
    block = drawn[0]
    half = len(counts) // 2
    for i, cells in enumerate(segments):
        alone = bs.draw_segment(cells, 25, sampling.entropy_of(9)[0], keys[i], poisson=poisson)
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
