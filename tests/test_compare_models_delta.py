"""compare_models' delta-method tests: average precision's and the label metrics'
against the delta method on scikit-learn's metrics (numerical derivatives by sample
weight), their edge cases and their coverage beside the bootstrap."""

from __future__ import annotations

import math

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import norm
from sklearn import metrics as skm

import pl_metrics  # noqa: F401 - registers .metrics
from pl_metrics._groups import paired_ap


# ------------------------------------------------------------- average precision: delta
def _ap_difference(y: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray) -> float:
    """scikit-learn's AP(b) - AP(a) of the cells ``(y, a, b)`` weighted by ``w``."""
    return float(
        skm.average_precision_score(y, b, sample_weight=w)
        - skm.average_precision_score(y, a, sample_weight=w)
    )


def ap_delta_reference(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The delta method's se of AP(b) - AP(a) from numerical derivatives of
    scikit-learn: the distinct (y, a, b) cells with their row counts x, the
    difference as a function of x (``sample_weight``), its gradient d by central
    differences, and var = sum x d^2 - (sum x d)^2 / n (the multinomial's
    covariance diag(x) - x x' / n)."""
    cells, x = np.unique(np.c_[y, a, b], axis=0, return_counts=True)
    yc, ac, bc = cells[:, 0] == 1, cells[:, 1], cells[:, 2]
    x = x.astype(float)
    h = 1e-6
    d = np.empty(len(x))
    for i in range(len(x)):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        d[i] = (_ap_difference(yc, ac, bc, up) - _ap_difference(yc, ac, bc, down)) / (2 * h)
    variance = (x * d * d).sum() - (x * d).sum() ** 2 / x.sum()
    return math.sqrt(max(variance, 0.0))


def test_ap_delta_of_rankings_alike_above_every_negative() -> None:
    # found by the property test below: the models' rankings differ only among
    # positives above the one negative, so AP is the same in every resample; the
    # two gradients, summed in their own orders, differed by 4e-17 (of 0.012), and
    # with one negative the test was null instead of statistic 0, p-value 1
    df = pl.DataFrame(
        {
            "y": [1, 1, 1, 1, 0, 1],
            "a": [0.1, 0.1, 0.1, 0.1, 0.0, 0.0],
            "b": [0.1, 0.1, 0.1, 0.35, 0.0, 0.0],
        }
    )
    out = df.metrics.compare_models("y", ["a", "b"], metric="average_precision", ci=0.9)
    # AP = 4/5 + 1/5 x 5/6 for both (every positive above the negative at precision 1)
    assert out["value"][0] == pytest.approx(0.8 + 1 / 6, rel=1e-15)
    assert out["diff"][0] == pytest.approx(0.0, abs=1e-15)
    assert (out["statistic"][0], out["p_value"][0]) == (0.0, 1.0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_ap_delta_equals_the_delta_method_on_scikit_learn(data: st.DataObject) -> None:
    """The delta method's se, interval and test of AP(model) - AP(baseline) per segment
    equal those built from numerical derivatives of scikit-learn's AP (ties, repeated
    cells, segments of one class)."""
    n = data.draw(st.integers(4, 40))
    values = st.sampled_from([0.0, 0.1, 0.35, 0.5, 0.8, 1.0])
    df = pl.DataFrame(
        {
            "g": data.draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n)),
            "y": oracle.with_a_positive(
                data.draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
            ),
            "a": data.draw(st.lists(values, min_size=n, max_size=n)),
            "b": data.draw(st.lists(values, min_size=n, max_size=n)),
        }
    )
    out = df.metrics.compare_models("y", ["a", "b"], by="g", metric="average_precision", ci=0.9)
    z = norm.ppf(0.95)
    checked: set[str] = set()
    for row in out.iter_rows(named=True):
        part = df.filter(pl.col("g") == row["g"])
        y, a, b = (part[c].to_numpy() for c in ("y", "a", "b"))
        assert row["test"] == "delta"
        if y.sum() == 0:  # AP undefined: no test
            assert row["p_value"] is None
            continue
        se = ap_delta_reference(y == 1, a, b)
        assert row["diff"] == pytest.approx(_ap_difference(y == 1, a, b, np.ones(len(y))))
        if se < 1e-6:  # a variance of 0: every derivative 0 (the same ranking, no negatives)
            # the two APs summed in their own orders may differ in the last bit (-1.1e-16)
            assert row["diff"] == pytest.approx(0.0, abs=1e-15)
            assert (row["statistic"], row["p_value"]) == (0.0, 1.0)
            checked.add("same")
            continue
        if y.sum() < 2 or (y == 0).sum() < 2:  # as DeLong: no test
            assert (row["statistic"], row["p_value"], row["low"]) == (None, None, None)
            continue
        checked.add("z")
        expected_z = row["diff"] / se
        assert row["statistic"] == pytest.approx(expected_z, rel=1e-5, abs=1e-6)
        assert row["p_value"] == pytest.approx(2 * norm.sf(abs(expected_z)), rel=1e-5, abs=1e-9)
        assert row["low"] == pytest.approx(max(-1.0, row["diff"] - z * se), rel=1e-6, abs=1e-8)
        assert row["high"] == pytest.approx(min(1.0, row["diff"] + z * se), rel=1e-6, abs=1e-8)
    AP_DELTA_CASES.update(checked)


#: The cases the hypothesis test met (a variance of 0, a z statistic): see the next test.
AP_DELTA_CASES: set[str] = set()


def test_ap_delta_cases_were_met() -> None:
    """The hypothesis test above compared z statistics, not only undefined tests (it
    runs first in this module's order; on its own, it is run here)."""
    if not AP_DELTA_CASES:
        test_ap_delta_equals_the_delta_method_on_scikit_learn()
    assert sorted(AP_DELTA_CASES) == ["same", "z"]


def test_ap_gradient_equals_numerical_derivatives() -> None:
    """Each cell's derivative of its segment's AP (written out in _groups.paired) equals
    scikit-learn's AP differentiated by that cell's weight, and the counts times
    the derivatives sum to 0 (AP is homogeneous of degree 0 in the counts)."""
    rng = np.random.default_rng(7)
    for trial in range(30):
        n = int(rng.integers(3, 30))
        y = rng.integers(0, 2, n).astype(bool)
        y[0] = True
        score = np.round(rng.normal(size=n), 1)  # ties
        count = rng.integers(1, 4, n)
        group = rng.integers(0, 3, n) if trial % 2 else None
        grad, _ = paired_ap._ap_gradient_numpy(group, y, score, count)
        for g in [None] if group is None else range(3):
            rows = np.ones(n, dtype=bool) if g is None else group == g
            if not y[rows].any():
                continue
            w = count[rows].astype(float)
            expected = np.empty(int(rows.sum()))
            for i in range(len(expected)):
                up, down = w.copy(), w.copy()
                up[i] += 1e-6
                down[i] -= 1e-6
                ap = (
                    skm.average_precision_score(y[rows], score[rows], sample_weight=x)
                    for x in (up, down)
                )
                expected[i] = (next(ap) - next(ap)) / 2e-6
            np.testing.assert_allclose(grad[rows], expected, rtol=1e-5, atol=1e-7)
            assert abs((w * grad[rows]).sum()) < 1e-12


def test_ap_delta_edge_cases() -> None:
    """The same ranking: se 0, statistic 0, p-value 1; fewer than two positives or
    negatives: no test (as DeLong); the bootstrap's interval and the delta
    method's agree on 20,000 rows."""
    rng = np.random.default_rng(3)
    n = 20_000
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    df = pl.DataFrame({"y": y, "a": s, "b": 2 * s + 1, "c": rng.normal(size=n) + 0.8 * y})
    same = df.metrics.compare_models("y", ["a", "b"], metric="average_precision").row(0, named=True)
    assert (same["diff"], same["statistic"], same["p_value"]) == (0.0, 0.0, 1.0)
    assert same["low"] == same["high"] == 0.0
    one = pl.DataFrame({"y": [1, 0, 0, 0], "a": [0.9, 0.1, 0.2, 0.3], "b": [0.2, 0.1, 0.9, 0.3]})
    row = one.metrics.compare_models("y", ["a", "b"], metric="average_precision").row(0, named=True)
    assert row["diff"] == pytest.approx(1 / 3 - 1.0)
    assert row["statistic"] is None
    assert row["p_value"] is None
    kw = {"metric": "average_precision", "n_boot": 2000, "seed": 1}
    delta = df.metrics.compare_models("y", ["a", "c"], **kw).row(0, named=True)
    boot = df.metrics.compare_models("y", ["a", "c"], ci_method="bootstrap", **kw)
    width = delta["high"] - delta["low"]
    assert abs(boot["high"][0] - boot["low"][0] - width) < 0.1 * width
    assert abs(boot["low"][0] - delta["low"]) < 0.1 * width


# --------------------------------------------------------------- label metrics: delta
#: The label metrics with the delta method's test (their default), scikit-learn's by
#: sample weights, and whether each model's metric is a smooth function of its
#: confusion counts there (no denominator 0).
LABEL_DELTA = {
    "balanced_accuracy": skm.balanced_accuracy_score,
    "mcc": skm.matthews_corrcoef,
    "cohen_kappa": skm.cohen_kappa_score,
    "precision": lambda y, p, **w: skm.precision_score(y, p, zero_division=0, **w),
    "recall": lambda y, p, **w: skm.recall_score(y, p, zero_division=0, **w),
    "f1": lambda y, p, **w: skm.f1_score(y, p, zero_division=0, **w),
}


def _smooth(metric: str, y: np.ndarray, p: np.ndarray) -> bool:
    """Whether ``metric`` of the predictions ``p`` has a non-zero denominator."""
    n = len(y)
    classes = np.union1d(y, p)
    t = np.array([(y == k).sum() for k in classes], dtype=float)
    q = np.array([(p == k).sum() for k in classes], dtype=float)
    tp, fp, fn = (
        ((y == 1) & (p == 1)).sum(),
        ((y != 1) & (p == 1)).sum(),
        ((y == 1) & (p != 1)).sum(),
    )
    return {
        "balanced_accuracy": True,
        "mcc": (n * n - (t * t).sum()) * (n * n - (q * q).sum()) > 0,
        "cohen_kappa": n * n - (t * q).sum() != 0,
        "precision": tp + fp > 0,
        "recall": tp + fn > 0,
        "f1": 2 * tp + fp + fn > 0,
    }[metric]


def label_delta_reference(metric: str, y: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The delta method's se of metric(b) - metric(a), from numerical derivatives of
    scikit-learn's metric by each joint cell's weight (central differences) and the
    multinomial's covariance: sum x d^2 - (sum x d)^2 / n."""
    fn = LABEL_DELTA[metric]
    cells, inverse = np.unique(np.c_[y, a, b], axis=0, return_inverse=True)
    x = np.bincount(inverse.ravel()).astype(float)
    ys, as_, bs_ = cells.T

    def diff(w: np.ndarray) -> float:
        return fn(ys, bs_, sample_weight=w) - fn(ys, as_, sample_weight=w)

    eps = 1e-6
    d = np.array([(diff(x + eps * e) - diff(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])
    return math.sqrt(max(x @ d**2 - (x @ d) ** 2 / x.sum(), 0.0))


@pytest.mark.parametrize("metric", sorted(LABEL_DELTA))
def test_label_delta_equals_the_delta_method_on_scikit_learn(metric: str) -> None:
    """The default test of a label metric (accuracy aside): the delta method over the
    joint cells, its se equal to one from numerical derivatives of scikit-learn's
    metric (to 1e-6 relative: the differences' error), per segment, two and three
    classes (the binary metrics: two), repeated cells, segments where a
    denominator is 0 (no test) or where the models predict alike (se 0)."""
    binary = metric in ("precision", "recall", "f1")

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        n = data.draw(st.integers(2, 40))
        labels = st.sampled_from([0, 1] if binary else [0, 1, 2])
        draw = lambda: data.draw(st.lists(labels, min_size=n, max_size=n))  # noqa: E731
        y, a = draw(), draw()
        b = a if data.draw(st.integers(0, 9)) == 0 else draw()  # alike, now and then
        g = data.draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n))
        df = pl.DataFrame({"g": g, "y": y, "a": a, "b": b})
        out = df.metrics.compare_models("y", ["a", "b"], by="g", metric=metric, ci=0.9)
        z = norm.ppf(0.95)
        for row in out.iter_rows(named=True):
            part = df.filter(pl.col("g") == row["g"])
            y_, a_, b_ = (part[c].to_numpy() for c in ("y", "a", "b"))
            assert row["test"] == "delta"
            expected = LABEL_DELTA[metric](y_, b_) - LABEL_DELTA[metric](y_, a_)
            if math.isnan(expected):  # kappa of one label: undefined, no test
                assert row["diff"] is None or math.isnan(row["diff"])
                assert row["statistic"] is None
                continue
            assert row["diff"] == pytest.approx(expected, abs=1e-12)
            if (a_ == b_).all():  # the same predictions: the same value in every resample
                assert (row["statistic"], row["p_value"]) == (0.0, 1.0)
                continue
            if not (_smooth(metric, y_, a_) and _smooth(metric, y_, b_)):
                assert row["statistic"] is None
                assert row["low"] is None
                continue
            se = label_delta_reference(metric, y_, a_, b_)
            if se < 1e-9:  # the gradients agree at every cell: se 0
                if abs(row["diff"]) <= 1e-12:  # no difference: statistic 0, p-value 1
                    assert (row["statistic"], row["p_value"]) == (0.0, 1.0)
                else:  # both models at an end of the range: no interval, no test
                    assert row["statistic"] is None
                    assert row["p_value"] is None
                    assert row["low"] is None
                continue
            bound = 2.0 if metric in ("mcc", "cohen_kappa") else 1.0
            low, high = max(row["diff"] - z * se, -bound), min(row["diff"] + z * se, bound)
            assert row["low"] == pytest.approx(low, rel=1e-6, abs=1e-9)
            assert row["high"] == pytest.approx(high, rel=1e-6, abs=1e-9)
            assert row["statistic"] == pytest.approx(row["diff"] / se, rel=1e-6, abs=1e-9)
            assert row["p_value"] == pytest.approx(
                2 * norm.sf(abs(row["diff"] / se)), rel=1e-5, abs=1e-9
            )

    run()


def test_label_delta_says_nothing_at_the_ends_of_the_range() -> None:
    # found by a review helper: at an end of the metric's range every derivative is
    # 0 (recall 1 against 0, a perfect model against a constant one), so se is 0
    # while the difference is not: the test was statistic 0, p-value 1 beside a
    # difference of -1.  No interval and no test now (the bootstrap has them)
    df = pl.DataFrame({"y": [1] * 30 + [0] * 70, "all_pos": [1] * 100, "all_neg": [0] * 100})
    out = df.metrics.compare_models("y", ["all_pos", "all_neg"], metric="recall", ci=0.95)
    assert out.select("value", "baseline_value", "diff").row(0) == (0.0, 1.0, -1.0)
    assert out.select("low", "high", "statistic", "p_value").row(0) == (None,) * 4
    df = pl.DataFrame({"y": [0, 1, 2] * 20, "const": [0] * 60, "perfect": [0, 1, 2] * 20})
    for metric in ("balanced_accuracy", "mcc", "cohen_kappa"):
        out = df.metrics.compare_models("y", ["const", "perfect"], metric=metric, ci=0.95)
        assert out["diff"][0] > 0.5, metric
        assert out.select("low", "high", "statistic", "p_value").row(0) == (None,) * 4, metric
    # identical models: no difference, statistic 0 and p-value 1, the interval (0, 0)
    df = df.with_columns(twin=pl.col("perfect"))
    out = df.metrics.compare_models("y", ["perfect", "twin"], metric="mcc", ci=0.95)
    assert out.select("diff", "low", "high", "statistic", "p_value").row(0) == (0, 0, 0, 0, 1)


def test_label_delta_covers_like_the_bootstrap() -> None:
    # the delta method's interval of a difference of F1 / MCC on 1,500 paired rows is
    # the paired bootstrap's (4,000 replicates) within Monte-Carlo tolerance: width
    # within 10%, centre within a tenth of the width
    rng = np.random.default_rng(4)
    n = 1500
    y = rng.integers(0, 3, n)
    df = pl.DataFrame(
        {
            "y": y,
            "a": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)),
            "b": np.where(rng.random(n) < 0.75, y, rng.integers(0, 3, n)),
        }
    )
    for metric in ("mcc", "cohen_kappa", "balanced_accuracy"):
        kw = {"metric": metric, "ci": 0.95}
        delta = df.metrics.compare_models("y", ["a", "b"], **kw)
        boot = df.metrics.compare_models("y", ["a", "b"], ci_method="bootstrap", n_boot=4000, **kw)
        width = boot["high"][0] - boot["low"][0]
        assert abs((delta["high"][0] - delta["low"][0]) - width) < 0.1 * width, metric
        centre = (boot["high"][0] + boot["low"][0]) / 2
        assert abs((delta["high"][0] + delta["low"][0]) / 2 - centre) < 0.1 * width, metric
