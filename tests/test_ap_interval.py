"""The average precision's default interval (issue 49): the delta method on the logit
scale, Student's t at Satterthwaite's degrees of freedom, Wilson's at AP = 1.

The oracle writes the formula out (docs/intervals.md): the AP's derivatives by each
row's cell (checked against central differences of scikit-learn's
``average_precision_score`` by sample weight), their moments, SciPy's t quantile,
statsmodels' Wilson interval.  ``benchmarks/sim_ap_interval.py`` is the coverage
simulation behind the choice; a small one runs here.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy import stats
from sklearn import metrics as skm
from statsmodels.stats.proportion import proportion_confint

import pl_metrics
from pl_metrics._ranking import batches
from pl_metrics._stats import ap_delta


def _gradient(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Each row's derivative of the AP by its cell's count, written out with a loop
    over the distinct scores (descending): TP_r / A_r the positives / rows down to
    score r, a positive's ``(TP_q / A_q + sum_{r >= q} pos_r (A_r - TP_r) / A_r^2 -
    AP) / P``, a negative's ``-sum_{r >= q} pos_r TP_r / A_r^2 / P``."""
    scores = np.unique(s)[::-1]
    pos = np.array([y[s == v].sum() for v in scores], dtype=float)
    rows = np.array([(s == v).sum() for v in scores], dtype=float)
    tp, a = np.cumsum(pos), np.cumsum(rows)
    p_total = tp[-1]
    ap = (pos * tp / a).sum() / p_total
    d_pos, d_neg = {}, {}
    for q, v in enumerate(scores):
        below = slice(q, None)
        u = (pos[below] * (a[below] - tp[below]) / a[below] ** 2).sum()
        w = (pos[below] * tp[below] / a[below] ** 2).sum()
        d_pos[v] = (tp[q] / a[q] + u - ap) / p_total
        d_neg[v] = -w / p_total
    return np.array([d_pos[v] if t else d_neg[v] for t, v in zip(y, s, strict=True)])


def _oracle(y: np.ndarray, s: np.ndarray, ci: float) -> tuple[float, float, float]:
    """AP (scikit-learn) and the default interval, written out."""
    theta = skm.average_precision_score(y, s)
    d = _gradient(y, s)
    s2, s4, n = (d**2).sum(), (d**4).sum(), y.size
    p_total = int(y.sum())
    if s2 == 0:  # a perfect ranking: Wilson's interval with P (P + 1) trials
        trials = p_total * (p_total + 1)
        low, high = proportion_confint(round(theta * trials), trials, 1 - ci, method="wilson")
        return theta, low, high
    df = 2 * s2**2 / (s4 - s2**2 / n)
    t = stats.t.ppf(0.5 + ci / 2, df)
    eta, tau = math.log(theta / (1 - theta)), math.sqrt(s2) / (theta * (1 - theta))
    return theta, 1 / (1 + math.exp(-(eta - t * tau))), 1 / (1 + math.exp(-(eta + t * tau)))


def test_the_gradient_is_scikit_learns() -> None:
    # central differences of average_precision_score by one row's weight (its cell's
    # count), ties included: the oracle's derivatives are the AP's
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    s = np.round(rng.normal(size=60) + y, 1)
    d = _gradient(y, s)
    h = 1e-4
    for i in range(60):
        up, down = np.ones(60), np.ones(60)
        up[i], down[i] = 1 + h, 1 - h
        numeric = (
            skm.average_precision_score(y, s, sample_weight=up)
            - skm.average_precision_score(y, s, sample_weight=down)
        ) / (2 * h)
        # a cell of c rows: one row's weight moves the cell's count as the derivative says
        assert d[i] == pytest.approx(numeric, rel=1e-6, abs=1e-10)
    assert (d).sum() == pytest.approx(0.0, abs=1e-12)  # homogeneous of degree 0: sum x d = 0


def _frame(rng: np.random.Generator, ties: bool) -> pl.DataFrame:
    n = 3000
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + 1.5 * y
    g = rng.choice(["a", "b", "c", "d", "e"], n)
    # d: every positive ranked first (AP 1); e: one negative among the lowest positives
    s = np.where(g == "d", y + rng.random(n) / 2, s)
    s = np.where(g == "e", 3 * y + rng.random(n), s)
    df = pl.DataFrame({"y": y, "s": s.round(1) if ties else s, "g": g})
    intruder = pl.DataFrame({"y": [0], "s": [3.05], "g": ["e"]})  # above a few positives
    df = pl.concat([df, intruder.cast(df.schema)])
    # c: a few rows
    return df.filter((pl.col("g") != "c") | (pl.int_range(pl.len()).over("g") < 12))


@pytest.mark.parametrize("how", oracle.RANKING_STRATEGIES)
@pytest.mark.parametrize("vectorised", [False, True], ids=["alone", "vectorised"])
@pytest.mark.parametrize("ties", [False, True], ids=["continuous", "ties"])
@pytest.mark.parametrize("ci", [0.9, 0.95])
def test_the_default_interval_is_the_formula(
    how: str, vectorised: bool, ties: bool, ci: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    df = _frame(np.random.default_rng(11), ties)
    with oracle.ranking_strategy(how):
        if vectorised:  # every segment finished in one numpy pass of the range
            monkeypatch.setattr(batches, "CHUNK_ROWS", 1 << 20)
        got = df.metrics.average_precision("y", "s", by="g", ci=ci).sort("g")
        explicit = df.metrics.average_precision("y", "s", by="g", ci=ci, ci_method="logit")
        assert_frame_equal(explicit.sort("g"), got)
    state = pl_metrics.from_score_counts(df.metrics.score_counts("y", "s", by="g"), by="g")
    counted = state.average_precision(ci=ci).sort("g")
    for row, from_state in zip(got.iter_rows(named=True), counted.iter_rows(), strict=True):
        part = df.filter(pl.col("g") == row["g"])
        ap, low, high = _oracle(part["y"].to_numpy(), part["s"].to_numpy(), ci)
        assert row["average_precision"] == pytest.approx(ap, rel=1e-12)
        assert row["average_precision_low"] == pytest.approx(low, rel=1e-9), row
        assert row["average_precision_high"] == pytest.approx(high, rel=1e-9), row
        assert row["average_precision_low"] < ap <= row["average_precision_high"]
        assert from_state[1:] == pytest.approx(tuple(row.values())[1:], rel=1e-9)
    perfect = got.filter(pl.col("g") == "d").row(0)
    assert perfect[1] == 1.0
    assert perfect[3] == 1.0


def test_the_t_quantile_is_scipys() -> None:
    df = np.r_[np.linspace(2, 10, 161), np.geomspace(10, 1e13, 120), np.inf]
    for ci in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
        z = NormalDist().inv_cdf(0.5 + ci / 2)
        got = ap_delta.t_quantile(z, df)
        assert got == pytest.approx(stats.t.ppf(0.5 + ci / 2, df), rel=1e-10)


def _issue_frame(intruder: bool) -> pl.DataFrame:
    """Issue 49's segment: 161 positives above 10,000 negatives; with ``intruder``
    one negative between the 5th and 4th lowest positives: AP = 1 - (1 / 161) (1 /
    159 + 1 / 160 + 1 / 161 + 1 / 162) = 0.99984520 (each of the 4 positives below
    it has precision i / (i + 1), i = 158 .. 161)."""
    positives = np.arange(161, 0, -1) + 10_000.0
    negatives = np.r_[[10_004.5] if intruder else [], np.arange(9_999, 0, -1.0)]
    y = np.r_[np.ones(161, dtype=np.int64), np.zeros(negatives.size, dtype=np.int64)]
    return pl.DataFrame({"y": y, "s": np.r_[positives, negatives] / 20_000})


def test_issue_49_a_near_perfect_ranking_gets_a_narrow_interval() -> None:
    df = _issue_frame(intruder=True)
    ap, low, high = df.metrics.average_precision("y", "s", ci=0.95).row(0)
    expected = 1 - (1 / 159 + 1 / 160 + 1 / 161 + 1 / 162) / 161
    assert ap == pytest.approx(expected, rel=1e-12)
    assert ap == pytest.approx(0.99985, abs=1e-5)
    assert (ap, low, high) == pytest.approx(
        _oracle(df["y"].to_numpy(), df["s"].to_numpy(), 0.95), rel=1e-9
    )
    assert 0.99 < low < ap < high < 1  # was [0.0255, 1.0] (Boyd's: below)
    boyd = df.metrics.average_precision("y", "s", ci=0.95, ci_method="boyd").row(0)
    assert boyd[1] < 0.03
    assert boyd[2] > 0.999999
    # a perfect ranking of the same positives: Wilson's [m / (m + z^2), 1], m = 161 x 162
    ap, low, high = _issue_frame(intruder=False).metrics.average_precision("y", "s", ci=0.95).row(0)
    z = NormalDist().inv_cdf(0.975)
    trials = 161 * 162
    assert (ap, high) == (1.0, 1.0)
    assert low == pytest.approx(trials / (trials + z * z), rel=1e-12)  # 0.99985


def _true_ap(mu: float, prevalence: float) -> float:
    """The binormal population's AP (positives N(mu, 1), negatives N(0, 1)): the mean
    over the positives' scores of the precision at their threshold."""
    s = np.linspace(mu - 12, mu + 12, 200_001)
    log_ratio = stats.norm.logsf(s) - stats.norm.logsf(s - mu)
    precision = 1 / (1 + (1 - prevalence) / prevalence * np.exp(log_ratio))
    return float(np.trapezoid(precision * stats.norm.pdf(s - mu), s))


def test_coverage_near_one() -> None:
    # 400 segments of about 100 positives and 900 negatives at AP ~ 0.99 (binormal):
    # the 95 % interval covers the population's AP in at least 93 % of them (96 %,
    # median width 0.027; on these segments the bootstrap of 200 replicates covered
    # 86 % at 0.018, Boyd's 99.75 % at 0.070; benchmarks/sim_ap_interval.py has the
    # other cells)
    rng = np.random.default_rng(49)
    mu, prevalence, segments, rows = 4.216, 0.1, 400, 1000
    truth = _true_ap(mu, prevalence)
    assert truth == pytest.approx(0.99, abs=1e-4)
    y = rng.random(segments * rows) < prevalence
    df = pl.DataFrame(
        {
            "g": np.repeat(np.arange(segments), rows),
            "y": y,
            "s": rng.normal(size=y.size) + mu * y,
        }
    )
    got = df.metrics.average_precision("y", "s", by="g", ci=0.95)
    low, high = pl.col("average_precision_low"), pl.col("average_precision_high")
    assert got.select(((low <= truth) & (truth <= high)).mean()).item() >= 0.93
