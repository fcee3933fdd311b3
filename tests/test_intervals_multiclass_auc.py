"""Multiclass (one-vs-rest) ROC AUC intervals: DeLong's and the bootstrap's."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from _interval_helpers import _delong_by_hand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics  # noqa: F401 - registers .metrics


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
    got = ovr.auc_replicates(counters, block, average)  # replicate x segment (x class)
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
