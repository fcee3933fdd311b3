"""Confidence intervals: equivalence to the row bootstrap, coverage, determinism,
the analytic intervals of the scores (DeLong, Boyd) and each method's default.

The rest, by feature: the replicates' metrics (``test_intervals_replicates.py``),
the draws (``test_intervals_draws.py``), segments drawn in chunks and blocks
(``test_intervals_chunks.py``), multiclass ROC AUC (``test_intervals_multiclass_auc.py``)
and the delta method (``test_intervals_delta.py``).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from _interval_helpers import _delong_by_hand, _frame
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics


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

    import pl_metrics.spark as pms
    from pl_metrics._core import checks
    from pl_metrics.state import CountsState, ScoreCountsState

    seen: dict[object, set[str]] = {}
    for owner in (pl_metrics.MetricsLazyFrame, CountsState, ScoreCountsState, pms):
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
            seen.setdefault(owner, set()).add(name)
    # every method with intervals is a frame method; the states finish all but the
    # ranking ones of the counts and the label ones of the scores; Spark its own
    assert seen[pl_metrics.MetricsLazyFrame] == set(checks.CI_METHODS)
    assert seen[CountsState] == {"per_class", "averages", "report", "summary"}
    assert seen[ScoreCountsState] == {"roc_auc", "gini", "average_precision"}
    assert seen[pms] >= {"report", "summary", "roc_auc", "average_precision"}
