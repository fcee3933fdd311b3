"""The input rules, rows: weights (zero weights are absent rows; bad, huge and
overflowing weights).

The stages, and what every rule promises: ``test_inputs.py``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from _inputs_helpers import CURVES, _state
from hypothesis import example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats
from sklearn import metrics as skm

import pl_metrics as plm


# ------- rows: weights (zero weights are absent rows; bad, huge and overflowing weights)
@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf, None])
def test_bad_weights_are_counted(bad: float | None) -> None:
    df = pl.DataFrame({"y_true": [0, 1, 1], "y_pred": [0, 1, 0], "w": [1.0, bad, bad]})
    with pytest.raises(plm.DataError, match=r"column 'w' \(argument `weight`\) has 2 rows"):
        df.metrics.report("y_true", "y_pred", weight="w")


def test_zero_weight_rows_are_absent() -> None:
    df = pl.DataFrame(
        {"y": [1, 1, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.3, 0.1], "w": [0.0, 1, 1, 1, 1]}
    )
    ap = df.metrics.average_precision("y", "s", weight="w")["average_precision"][0]
    # scikit-learn drops zero-weight rows in _binary_clf_curve: 0.8333...
    assert ap == pytest.approx(skm.average_precision_score(df["y"], df["s"], sample_weight=df["w"]))
    kept = df.filter(pl.col("w") > 0)
    for method in ["roc_curve", "pr_curve", "det_curve", "thresholds"]:
        assert_frame_equal(
            getattr(df.metrics, method)("y", "s", weight="w"),
            getattr(kept.metrics, method)("y", "s", weight="w"),
        )
    labels = pl.DataFrame({"t": [0, 1, 2], "p": [0, 1, 2], "w": [1.0, 1.0, 0.0]})
    # class 2 only in a zero-weight row: absent, so the macro F1 is 1.0 (2 classes)
    report = labels.metrics.report("t", "p", weight="w")
    assert report["label"].drop_nulls().to_list() == [0, 1]


def test_huge_equal_weights_give_the_unweighted_auc() -> None:
    df = CURVES.with_columns(w=pl.lit(1e200))
    got = df.metrics.roc_auc("y", "s", weight="w")["roc_auc"][0]
    assert got == pytest.approx(skm.roc_auc_score(df["y"], df["s"]))


def test_weights_summing_to_infinity_are_a_data_error() -> None:
    df = CURVES.with_columns(w=pl.lit(1e308))
    for method in ["summary", "report"]:
        with pytest.raises(plm.DataError, match=r"sum to more than 4\.5e307"):
            getattr(df.metrics, method)("y", "y", weight="w")
    with pytest.raises(plm.DataError, match=r"sum to more than 4\.5e307"):
        df.metrics.roc_auc("y", "s", weight="w")


def test_weights_whose_sums_of_totals_overflow_are_a_data_error() -> None:
    # a segment's weights summing to 1.5e308 (finite) made tp + fp + fn, n + tp and
    # 2 tp overflow: Jaccard 0.0 where every row is right (1.0), tn and F1 NaN, and
    # the averages a cast error. Every path now refuses totals above a quarter of the
    # largest float (checks.MAX_WEIGHT_TOTAL, 2**1022 ~ 4.5e307)
    rows = {"t": [0, 0, 1], "p": [0, 0, 1], "s": [0.1, 0.2, 0.9]}
    df = pl.DataFrame({**rows, "w": [0.75e308, 0.75e308, 1.0]})
    match = r"to more than 4\.5e307"
    calls = {
        "per_class": lambda d: d.metrics.per_class("t", "p", weight="w"),
        "averages": lambda d: d.metrics.averages("t", "p", weight="w"),
        "report": lambda d: d.metrics.report("t", "p", weight="w", by="t"),
        "summary": lambda d: d.metrics.summary("t", "p", weight="w"),
        "roc_auc": lambda d: d.metrics.roc_auc("t", "s", weight="w"),
        "roc_curve": lambda d: d.metrics.roc_curve("t", "s", weight="w"),
        "average_precision": lambda d: d.metrics.average_precision("t", "s", weight="w"),
        "ks": lambda d: d.metrics.ks("t", "s", weight="w"),
        "log_loss": lambda d: d.metrics.log_loss("t", "s", weight="w"),
        "calibration_error": lambda d: d.metrics.calibration_error("t", "s", weight="w"),
        "f1 macro expression": lambda d: d.select(plm.f1("t", "p", average="macro", weight="w")),
        "jaccard expression": lambda d: d.select(plm.jaccard("t", "p", weight="w")),
        "balanced_accuracy expression": (
            lambda d: d.select(plm.balanced_accuracy("t", "p", weight="w"))
        ),
        "log_loss expression": lambda d: d.select(plm.log_loss("t", "s", weight="w")),
        "multilabel": lambda d: d.select(
            pl.concat_list("t").alias("t"), pl.concat_list("p").alias("p"), "w"
        ).metrics.averages("t", "p", weight="w"),
    }
    for name, call in calls.items():
        with pytest.raises(plm.DataError, match=match):  # noqa: PT012 - names the call
            call(df)
            pytest.fail(f"{name}: no error")
    # merged states: each shard's total (3e307) is below the bound, the merge's is not
    df = pl.DataFrame({**rows, "w": [3e307, 3e307, 1.0]})
    shards = [
        df[:1].metrics.counts("t", "p", weight="w"),
        df[1:].metrics.counts("t", "p", weight="w"),
    ]
    with pytest.raises(plm.DataError, match=match):
        plm.from_counts(pl.concat(shards)).averages()
    # below the bound: every row right, so every score is 1.0 (by hand), tn exact
    fine = pl.DataFrame({**rows, "w": [1.5e307, 1.5e307, 1e307]})  # 4e307 in all
    extra = {"weight": "w", "extra_scores": "fowlkes_mallows"}
    per_class = fine.metrics.per_class("t", "p", **extra)
    assert per_class["tn"].to_list() == pytest.approx([1e307, 3e307], rel=1e-12)
    for column in ("precision", "recall", "f1", "jaccard", "fowlkes_mallows"):
        assert per_class[column].to_list() == [1.0, 1.0], column
        assert fine.metrics.averages("t", "p", **extra)[column].to_list() == [1.0] * 3
    assert fine.select(plm.f1("t", "p", average="macro", weight="w")).item() == 1.0


def test_mcc_and_kappa_exact_at_large_counts() -> None:
    # [[9e18, 1], [1, 1]]: cov(t,p) = c n - sum t p with n = 9e18 + 3, c = 9e18 + 1;
    # exact: MCC = (c n - sum t p) / sqrt(...) = 0.5 (by hand, in integers, below)
    cells = {(0, 0): 9 * 10**18, (0, 1): 1, (1, 0): 1, (1, 1): 1}
    t = [9 * 10**18 + 1, 2]
    p = [9 * 10**18 + 1, 2]
    n, c = sum(t), 9 * 10**18 + 1
    cov_tp = c * n - sum(a * b for a, b in zip(t, p, strict=True))
    cov_tt = n * n - sum(a * a for a in t)
    mcc = cov_tp / math.sqrt(cov_tt * cov_tt)
    kappa = cov_tp / (n * n - sum(a * b for a, b in zip(t, p, strict=True)))
    got = plm.from_counts(_state(cells)).summary()
    assert got["mcc"][0] == pytest.approx(mcc, rel=1e-12)
    assert got["cohen_kappa"][0] == pytest.approx(kappa, rel=1e-12)
    # a rare class at n ~ 1e9: scikit-learn in float64 on the expanded rows is the oracle
    small = {(0, 0): 10**6, (0, 1): 5, (1, 0): 5, (1, 1): 10}
    rows = [(a, b) for (a, b), k in small.items() for _ in range(k)]
    y_t, y_p = np.array([a for a, _ in rows]), np.array([b for _, b in rows])
    got = plm.from_counts(_state(small)).summary()
    assert got["mcc"][0] == pytest.approx(skm.matthews_corrcoef(y_t, y_p), rel=1e-12)


def _exact_mcc(y: list[int], p: list[int], w: list[float]) -> tuple[float, float]:
    """scikit-learn's MCC formula in exact fractions of the float weights, and its
    condition: the numerator's terms, sum_k (P_k' tp_k + p_k miss_k) (P_k': the other
    classes' predicted weight; miss_k: class k's weight predicted as another), over
    the denominator.  A float sum of those terms is off by a few units in the last
    place of their size; the MCC by that times the condition."""
    from fractions import Fraction

    weights = [Fraction(x) for x in w]
    n = sum(weights)
    classes = sorted({*y, *p})
    t = [sum(x for a, x in zip(y, weights, strict=True) if a == k) for k in classes]
    q = [sum(x for b, x in zip(p, weights, strict=True) if b == k) for k in classes]
    c = sum(x for a, b, x in zip(y, p, weights, strict=True) if a == b)
    tp = [sum(x for a, b, x in zip(y, p, weights, strict=True) if a == b == k) for k in classes]
    cov_tp = c * n - sum(a * b for a, b in zip(t, q, strict=True))
    cov_pp, cov_tt = n * n - sum(b * b for b in q), n * n - sum(a * a for a in t)
    if cov_pp == 0 or cov_tt == 0:
        return 0.0, 0.0
    terms = sum((n - b) * d + b * (a - d) for a, b, d in zip(t, q, tp, strict=True))
    root = math.sqrt(float(cov_pp / n**2) * float(cov_tt / n**2))
    return float(cov_tp / n**2) / root, float(terms / n**2) / root


@settings(max_examples=60, deadline=None)
@example(  # a class holding just over half the predicted weight (a window inside a
    # window's sum, in a first version, gave 13.4): found by 1,500 random frames
    rows=[
        *[(1, 1, 2.5), (4, 1, 7e8), (1, 4, 3e12), (1, 1, 3e12)],
        *[(2, 4, 2.5), (1, 3, 2.5), (2, 1, 2.5), (4, 2, 7e8)],
    ]
)
@given(
    rows=st.lists(
        st.tuples(st.integers(1, 4), st.integers(1, 4), st.sampled_from([1.0, 2.5, 1e15, 3e12])),
        min_size=2,
        max_size=12,
    )
)
def test_weighted_mcc_with_huge_weights_is_exact(rows: list[tuple[int, int, float]]) -> None:
    # n^2 - sum(p_k^2) and c n - sum(t_k p_k) in Float64 kept only the digits that a
    # class holding 1e15 has beyond the others: a new user's example (below) gave
    # -0.2944 or -0.2837 by the order polars summed in, for the exact -0.288675
    # (scikit-learn: -0.2870).  Now sums of products without those differences
    # (covariances.weighted_mcc_covariances): within a few units in the last place of
    # the numerator's terms (the condition, _exact_mcc), where the old form was 2%
    # off on that example (condition 0.3).  A first version that rewrote the
    # denominator alone gave 1.11 for a perfect prediction
    y, p, w = (list(c) for c in zip(*rows, strict=True))
    df = pl.DataFrame({"y": y, "p": p, "w": w, "g": [0] * len(y)})
    expected, condition = _exact_mcc(y, p, w)
    got = [
        df.metrics.summary("y", "p", weight="w")["mcc"][0],
        df.lazy().metrics.summary("y", "p", weight="w", by="g").collect()["mcc"][0],
        df.select(plm.mcc("y", "p", weight="w")).item(),
        df.group_by("g").agg(plm.mcc("y", "p", weight="w"))["mcc"][0],
    ]
    tolerance = 32 * 2.0**-52 * condition + 1e-15
    assert got == pytest.approx([expected] * 4, rel=1e-12, abs=tolerance)
    assert all(-1.0 <= value <= 1.0 for value in got)


def _all_small_frames() -> pl.DataFrame:
    """Every pair of label lists of 1-4 rows over {0, 1, 2} and of 5-6 rows over {0, 1}
    (12,500 groups ``g``), one row a label pair."""
    rows, group = [], 0
    for n, classes in [(1, 3), (2, 3), (3, 3), (4, 3), (5, 2), (6, 2)]:
        for y in itertools.product(range(classes), repeat=n):
            for p in itertools.product(range(classes), repeat=n):
                rows += [(group, a, b) for a, b in zip(y, p, strict=True)]
                group += 1
    return pl.DataFrame(rows, schema=["g", "y", "p"], orient="row")


@pytest.mark.parametrize("weight", [1.0, 0.1, 1 / 3, 3.0])
def test_weighted_mcc_with_equal_weights_is_the_unweighted_one(weight: float) -> None:
    # equal weights scale every count alike: the MCC of the counts of rows (exact, in
    # integers).  plm.mcc(weight=) was 0 where it is -1/sqrt(5) = -0.4472 for
    # y = [0, 0, 0, 0, 0, 1], p = [1, 1, 1, 0, 0, 0] (by hand: c n - sum t p = 2 x 6 -
    # (5 x 3 + 1 x 3) = -6, n^2 - sum p^2 = 18, n^2 - sum t^2 = 10; -6 / sqrt(180)),
    # and wrong in 240 to 480 of these 12,500 frames: the predicted classes, 3/5 of the
    # scale each, were computed as 0.6000000000000001 against a total of 1.2, so both
    # counted as holding more than half (covariances.dominant)
    df = _all_small_frames()
    weighted = df.with_columns(w=pl.lit(weight))
    exact = df.metrics.summary("y", "p", by="g").select("g", "mcc")
    expression = weighted.group_by("g").agg(plm.mcc("y", "p", weight="w"))
    frame = weighted.metrics.summary("y", "p", by="g", weight="w").select("g", "mcc")
    for got in (expression, frame):
        assert_frame_equal(got.sort("g"), exact.sort("g"), check_exact=False, abs_tol=1e-12)
    example = pl.DataFrame({"y": [0, 0, 0, 0, 0, 1], "p": [1, 1, 1, 0, 0, 0], "w": [weight] * 6})
    value = example.select(plm.mcc("y", "p", weight="w")).item()
    assert value == pytest.approx(-1 / math.sqrt(5), rel=1e-12)


def test_weighted_mcc_of_a_new_users_example() -> None:
    y, p, w = [3, 1, 3, 1, 4, 4], [4, 4, 1, 3, 4, 3], [1.0, 1e15, 1.0, 1.0, 1.0, 1.0]
    # exact, by hand from the confusion matrix (rows actual 1, 3, 4; columns
    # predicted 1, 3, 4): [[0, 1, 1e15], [1, 0, 1], [0, 1, 1]]; n = 1e15 + 5,
    # c = 1, t = (1e15 + 1, 2, 2), p = (1, 2, 1e15 + 2): with N = 1e15 the MCC is
    # -(2N + 4) / sqrt((6N + 16) (8N + 16)), -1/sqrt(12) = -0.288675... to 1e-15
    assert _exact_mcc(y, p, w)[0] == pytest.approx(-1 / math.sqrt(12), rel=1e-12)
    df = pl.DataFrame({"y": y, "p": p, "w": w})
    values = {df.metrics.summary("y", "p", weight="w")["mcc"][0] for _ in range(20)}
    # were -0.2944 and -0.2837 by the order polars summed in; now that order moves
    # the last bit at most
    assert max(values) - min(values) <= 1e-15
    assert sorted(values) == pytest.approx([-1 / math.sqrt(12)] * len(values), rel=1e-12)


def test_merged_counts_past_int64_are_an_error_not_a_wrap() -> None:
    half = 2**62
    state = pl.concat([_state({(0, 0): half}), _state({(0, 0): half}), _state({(1, 1): 1})])
    with pytest.raises(plm.DataError, match="pass 2\\*\\*63 - 1"):
        plm.from_counts(state).summary()


def test_calibration_error_refuses_weights_that_overflow_in_the_segment() -> None:
    # each bin's weights are finite, the segment's sum is not: ECE was 0.0
    rng = np.random.default_rng(13)
    df = pl.DataFrame({"y": rng.integers(0, 2, 50), "s": rng.random(50), "w": [1e307] * 50})
    with pytest.raises(plm.DataError, match=r"sum to more than 4\.5e307"):
        df.metrics.calibration_error("y", "s", weight="w")


def test_weighted_log_loss_does_not_overflow() -> None:
    # loss x weight overflowed to inf although the weights' sum is finite
    df = pl.DataFrame({"y": [1, 1, 0], "p": [0.0, 0.0, 1.0], "w": [1e307] * 3})
    expected = skm.log_loss([1, 1, 0], [0.0, 0.0, 1.0])  # equal weights: the plain mean
    assert df.metrics.log_loss("y", "p", weight="w").item() == pytest.approx(expected)
    assert df.select(plm.log_loss("y", "p", weight="w")).item() == pytest.approx(expected)


@pytest.mark.parametrize("scale", [1.0, 1e76, 1e160, 1e300])
def test_threshold_mcc_does_not_overflow(scale: float) -> None:
    # equal weights must give the un-weighted MCC: was 0.0 at 1e76 and NaN at 1e160
    y = [1, 0, 1, 0, 1, 0, 0, 1]
    s = [0.9, 0.1, 0.4, 0.35, 0.8, 0.7, 0.2, 0.6]
    df = pl.DataFrame({"y": y, "s": s, "w": [scale] * 8})
    got = df.metrics.best_threshold("y", "s", metric="mcc", weight="w")
    predicted = [int(x >= got["threshold"].item()) for x in s]
    assert got["mcc"].item() == pytest.approx(skm.matthews_corrcoef(y, predicted), rel=1e-12)
    assert got["threshold"].item() == 0.4  # the unweighted best threshold


@pytest.mark.parametrize(
    "scale", [1.0, 2.0**520, 1e154, 1e200, 7e306, 0.3, 1e-160, 1e-200, 2.0**-700, 1e-306]
)
def test_ks_and_likelihood_ratios_do_not_overflow(scale: float) -> None:
    # tps N - fps P and tp (tn + fp) / (fp (tp + fn)) multiply two weight sums: KS was
    # inf and both likelihood ratios NaN from 1e154 (scikit-learn's ratios: NaN, with an
    # overflow warning); they underflowed from below: KS 0.0 and ratios NaN at 1e-200,
    # 0.6666592 at 1e-160 (found by an audit). Equal weights must give the unweighted
    # numbers
    y = [1, 0, 1, 0, 1, 0]
    s = [0.9, 0.1, 0.4, 0.35, 0.8, 0.7]
    p = [1, 0, 0, 1, 1, 0]
    df = pl.DataFrame({"y": y, "s": s, "p": p, "w": [scale] * 6})
    positives = [x for x, t in zip(s, y, strict=True) if t]
    negatives = [x for x, t in zip(s, y, strict=True) if not t]
    expected_ks = stats.ks_2samp(positives, negatives).statistic  # 2/3
    scored = df.lazy().metrics.score_counts("y", "s", weight="w").collect()
    over_time = df.with_columns(day=pl.date(2026, 1, 1)).metrics.over_time(
        "y", y_score="s", index="day", every="1d", metrics=["ks"], weight="w"
    )
    for got in (
        df.metrics.ks("y", "s", weight="w")["ks"].item(),
        df.metrics.ks("y", "s", weight="w", bins=5)["ks"].item(),
        plm.from_score_counts(scored).ks()["ks"].item(),
        over_time["value"].item(),
    ):
        assert got == pytest.approx(expected_ks, rel=1e-12)
    if math.frexp(scale)[0] == 0.5:  # a power of two: the sums exact, the tie exact too
        assert df.metrics.ks("y", "s", weight="w")["threshold"].item() == 0.8  # as unweighted
    lr = df.metrics.class_likelihood_ratios("y", "p", weight="w").row(0)
    assert lr == pytest.approx(skm.class_likelihood_ratios(y, p), rel=1e-12)


@pytest.mark.parametrize("small", [1e-130, 1e-110, 1.0])
@pytest.mark.parametrize("big", [1e154, 1e300, 4e306, 1e-100])
def test_ks_and_likelihood_ratios_keep_small_weights_beside_huge_ones(small, big) -> None:
    # a fixed scale of 2**-600 took positives of 1e-130 beside negatives of 1e154 to
    # the subnormals: KS 0.0 and both ratios NaN (found by the review); the smallest
    # scale that avoids the overflow keeps them
    y = [1, 0, 1, 0, 1, 0]
    s = [0.9, 0.1, 0.4, 0.35, 0.8, 0.7]
    p = [1, 0, 0, 1, 1, 0]
    w = [small if t else big for t in y]
    df = pl.DataFrame({"y": y, "s": s, "p": p, "w": w})
    for bins in (None, 5):
        got = df.metrics.ks("y", "s", weight="w", bins=bins)["ks"].item()
        assert got == pytest.approx(2 / 3, rel=1e-12)  # equal-weight classes: as unweighted
    lr = df.metrics.class_likelihood_ratios("y", "p", weight="w").row(0)
    assert lr == pytest.approx((2.0, 0.5), rel=1e-12)  # each class's own rows: unweighted


@pytest.mark.parametrize("t", [1e-160, 1e-162, 1e-200])
def test_likelihood_ratios_of_mixed_scale_weights(t: float) -> None:
    # weights [tp, fn, fp, tn] = [t, t, t, 1]: recall t / 2t = 1/2, false alarms
    # t / (t + 1), so LR+ = (1/2) (t + 1) / t and LR- = (1/2) / (1 / (t + 1)).
    # tp (tn + fp) underflowed: NaN at 1e-162, 5.00005566e159 at 1e-160, while the same
    # weights times 2**-300 (a power of two changes nothing) gave 5e161 (a review)
    df = pl.DataFrame({"y": [1, 1, 0, 0], "p": [1, 0, 1, 0], "w": [t, t, t, 1.0]})
    expected = (0.5 * (t + 1) / t, 0.5 * (t + 1))
    for scale in (1.0, 2.0**-300, 2.0**300):
        frame = df.with_columns(pl.col("w") * scale)
        lr = frame.metrics.class_likelihood_ratios("y", "p", weight="w").row(0)
        assert lr == pytest.approx(expected, rel=1e-12), scale


def test_subnormal_weights_are_refused() -> None:
    # 5e-324 holds one bit: AP was inf and AUC NaN
    df = pl.DataFrame({"y": [0, 1, 1], "s": [0.3, 0.9, 0.2], "w": [5e-324] * 3})
    for call in (
        lambda: df.metrics.average_precision("y", "s", weight="w"),
        lambda: df.metrics.brier_score("y", "s", weight="w"),
        lambda: df.select(plm.log_loss("y", "s", weight="w")),
    ):
        with pytest.raises(plm.DataError, match="subnormal"):
            call()
