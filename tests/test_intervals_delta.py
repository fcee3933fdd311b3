"""The delta method (the default of summary, per_class and averages) against
statsmodels, scikit-learn and by-hand derivatives, and its coverage."""

from __future__ import annotations

import math
from statistics import NormalDist

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from _interval_helpers import _frame
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from statsmodels.stats.proportion import proportion_confint

import pl_metrics


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


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
