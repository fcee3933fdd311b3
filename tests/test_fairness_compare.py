"""``compare``: each segment against its stratum's overall value, for any metric.

The bootstrap intervals and p-values are checked for determinism, for containing
the point estimate's neighbourhood and against statsmodels' adjustments; the
analytic test of proportions against Agresti and Caffo's interval by hand.
"""

from __future__ import annotations

import math
import re

import numpy as np
import polars as pl
import pytest
import sklearn.metrics as skm
from _fairness_helpers import SKLEARN, _same, cases
from fairlearn import metrics as flm
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

import pl_metrics as plm


# ----------------------------------------------------------- compare for any metric
def _segments(n_groups: int = 12, n: int = 6000, seed: int = 2) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n)
    y = rng.integers(0, 2, n)
    skill = np.where(g == 0, 0.6, 0.8)  # segment 0 is worse, by design
    p = np.where(rng.random(n) < skill, y, 1 - y)
    return pl.DataFrame({"g": g, "c": g % 2, "y": y, "p": p})


@pytest.mark.parametrize("metric", ["accuracy", "f1", "false_positive_rate", "f1_macro", "mcc"])
def test_compare_any_metric_values_and_adjustment(metric: str) -> None:
    df = _segments()
    out = df.metrics.compare("y", "p", by="g", metric=metric, n_boot=200, adjust="holm")
    per_group = df.metrics.disparity("y", "p", by="g", metric=metric)  # the same evaluation
    fn = SKLEARN.get(metric) or (
        lambda y, p: flm.false_positive_rate(y, p, pos_label=1)  # fairlearn's definition
    )
    for row in out.rows(named=True):
        part = df.filter(pl.col("g") == row["g"])
        _same(row["value"], fn(part["y"].to_numpy(), part["p"].to_numpy()))
        _same(row["overall"], per_group["overall"][0])
        assert row["diff"] == pytest.approx(row["value"] - row["overall"])
        assert 0 < row["p_value"] <= 1
    # Holm across the segments, as statsmodels
    expected = multipletests(out["p_value"].to_numpy(), method="holm")[1]
    assert out["p_adjusted"].to_numpy() == pytest.approx(expected)
    if metric in ("accuracy", "f1", "mcc"):  # segment 0 is worse by design, beyond noise
        worst = out.filter(pl.col("g") == 0).row(0, named=True)
        assert worst["diff_high"] < 0
        if metric == "accuracy":  # a proportion: Agresti & Caffo's z, analytic by default
            assert worst["p_value"] < 1e-6
        else:  # no replicate crosses 0: the smallest p-value 200 replicates give
            assert worst["p_value"] == pytest.approx(2 / 201)


@pytest.mark.parametrize("adjust", ["bonferroni", "holm", "bh", "by"])
def test_compare_adjustments_equal_statsmodels(adjust: str) -> None:
    df = _segments()
    out = df.metrics.compare("y", "p", by="g", control="c", n_boot=100, adjust=adjust)
    method = {"bh": "fdr_bh", "by": "fdr_by"}.get(adjust, adjust)
    for c in (0, 1):  # each control stratum is its own family of tests
        part = out.filter(pl.col("c") == c)
        expected = multipletests(part["p_value"].to_numpy(), method=method)[1]
        assert part["p_adjusted"].to_numpy() == pytest.approx(expected)


def test_compare_with_control_uses_the_stratum_overall() -> None:
    df = _segments()
    out = df.metrics.compare("y", "p", by="g", control="c", n_boot=50)
    for c in (0, 1):
        part = df.filter(pl.col("c") == c)
        expected = skm.accuracy_score(part["y"], part["p"])
        assert out.filter(pl.col("c") == c)["overall"].unique().to_list() == [
            pytest.approx(expected)
        ]
    assert out.columns[:2] == ["c", "g"]


def test_compare_best_follows_the_metric_direction() -> None:
    df = _segments()
    loss = df.metrics.compare("y", "p", by="g", metric="false_positive_rate", n_boot=20)
    assert loss["best"][0] == loss["value"].min()  # a lower error rate is better
    gain = df.metrics.compare("y", "p", by="g", metric="accuracy", n_boot=20)
    assert gain["best"][0] == gain["value"].max()
    neutral = df.metrics.compare("y", "p", by="g", metric="selection_rate", n_boot=20)
    assert neutral["best"].null_count() == neutral.height  # no better side


def test_bootstrap_intervals_are_deterministic_and_cover_the_estimate() -> None:
    df = _segments(n_groups=4)
    a = df.metrics.fairness("y", "p", by="g", ci=0.95, n_boot=300, seed=4)
    b = df.sample(fraction=1.0, shuffle=True, seed=1).metrics.fairness(
        "y", "p", by="g", ci=0.95, n_boot=300, seed=4
    )
    assert a.equals(b)  # same seed, any row order: the same intervals
    for name in ("demographic_parity_difference", "equal_opportunity_ratio"):
        assert a[f"{name}_low"][0] <= a[name][0] <= a[f"{name}_high"][0]
    d = df.metrics.disparity("y", "p", by="g", metric=["accuracy", "f1"], ci=0.9, n_boot=200)
    assert (d["difference_low"] <= d["difference"]).all()
    assert (d["difference"] <= d["difference_high"]).all()


def test_bad_input_is_a_clear_error() -> None:
    df = _segments(n_groups=3).with_columns(pl.col("y").alias("three"))
    df = df.with_columns(pl.when(pl.col("g") == 1).then(2).otherwise(pl.col("y")).alias("three"))
    with pytest.raises(ValueError, match="`by` is required"):
        df.metrics.fairness("y", "p", by=None)
    with pytest.raises(ValueError, match="`method` must be one of"):
        df.metrics.fairness("y", "p", by="g", method="overall")
    with pytest.raises(ValueError, match="`agg` must be one of"):
        df.metrics.fairness("y", "p", by="g", agg="max")
    with pytest.raises(ValueError, match="`metric` must be one of"):
        df.metrics.disparity("y", "p", by="g", metric="f1_score")
    with pytest.raises(ValueError, match="list of distinct names"):
        df.metrics.disparity("y", "p", by="g", metric=["accuracy", "accuracy"])
    with pytest.raises(ValueError, match="share the column"):
        df.metrics.fairness("y", "p", by="g", control="g")
    with pytest.raises(ValueError, match="collides"):
        df.rename({"c": "ratio"}).metrics.disparity("y", "p", by="g", control="ratio")
    with pytest.raises(ValueError, match="`adjust` must be one of"):
        df.metrics.compare("y", "p", by="g", adjust="fdr")
    with pytest.raises(ValueError, match="analytic interval"):
        df.metrics.compare("y", "p", by="g", metric="f1", ci_method="wilson")
    with pytest.raises(ValueError, match="un-weighted rows"):
        df.with_columns(w=1.0).metrics.fairness("y", "p", by="g", weight="w", ci=0.9)
    # three labels: binary rates are refused, never a one-vs-rest merge
    with pytest.raises(plm.DataError, match="group_rates is binary"):
        df.metrics.group_rates("three", "p", by="g", pos_label=1)
    with pytest.raises(plm.DataError, match="fairness is binary"):
        df.metrics.fairness("three", "p", by="g", pos_label=1)
    # string labels need pos_label (no default), as every binary method
    strings = df.with_columns(pl.col("y", "p").replace_strict({0: "no", 1: "yes"}))
    with pytest.raises(ValueError, match="`pos_label` is required"):
        strings.metrics.selection_rate("y", "p", by="g")
    assert strings.metrics.selection_rate("y", "p", by="g", pos_label="yes").equals(
        df.metrics.selection_rate("y", "p", by="g")
    )
    big = pl.DataFrame({"g": [0, 1] * 50_000, "y": [0, 1] * 50_000})
    big = big.with_columns(s=pl.int_range(pl.len()) / 100_000)
    with pytest.raises(
        ValueError, match=r"distinct \(segment, 's'\) rows x 2 cells each x n_boot=1000"
    ):
        big.metrics.compare("y", "s", by="g", metric="roc_auc", n_boot=1000)


@pytest.mark.parametrize(
    ("metric", "method", "column"),
    [
        ("accuracy", "summary", "accuracy"),
        ("mcc", "summary", "mcc"),
        ("cohen_kappa", "summary", "cohen_kappa"),
        ("f1_macro", "averages", "f1"),
        ("recall_weighted", "averages", "recall"),
    ],
)
def test_compare_draws_the_replicates_of_the_methods_own_interval(
    metric: str, method: str, column: str
) -> None:
    """A segment's bootstrap interval in compare is its method's (issue 6): the same
    cells, redrawn with the same seed per segment key, reduced by the same formulas."""
    df = _segments(n_groups=5, n=3000).with_columns(
        pl.when(pl.col("g") == 1).then(2).otherwise(pl.col("p")).alias("p3")  # 3 classes
    )
    got = df.metrics.compare(
        "y", "p3", by="g", metric=metric, n_boot=300, seed=5, ci_method="bootstrap"
    )
    own = getattr(df.metrics, method)(
        "y", "p3", by="g", ci=0.95, n_boot=300, seed=5, ci_method="bootstrap"
    )
    if method == "averages":
        own = own.filter(pl.col("average") == metric.rsplit("_", 1)[1])
    assert got["g"].to_list() == own["g"].to_list()
    assert got["low"].to_list() == pytest.approx(own[f"{column}_low"].to_list(), abs=1e-12)
    assert got["high"].to_list() == pytest.approx(own[f"{column}_high"].to_list(), abs=1e-12)


@pytest.mark.parametrize(
    ("metric", "score"),
    [
        ("accuracy", False),
        ("f1", False),
        ("false_positive_rate", False),
        ("roc_auc", True),
        ("average_precision", True),
        ("log_loss", True),
    ],
)
def test_one_segment_is_its_overall_in_every_replicate(metric: str, score: bool) -> None:
    """The overall value of a replicate is that of the union of its segments' drawn
    rows: with a single segment, every replicate's difference is exactly 0."""
    rng = np.random.default_rng(3)
    n = 500
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + rng.random(n) * 0.7, 0.01, 0.99).round(2)
    df = pl.DataFrame({"g": ["only"] * n, "y": y, "p": (s > 0.5).astype(np.int64), "s": s})
    out = df.metrics.compare("y", "s" if score else "p", by="g", metric=metric, n_boot=60)
    row = out.row(0, named=True)
    assert (row["diff"], row["diff_low"], row["diff_high"], row["p_value"]) == (0, 0, 0, 1)
    d = df.metrics.disparity("y", "s" if score else "p", by="g", metric=metric, ci=0.9, n_boot=60)
    assert d.select("difference", "difference_low", "difference_high").row(0) == (0, 0, 0)


@settings(max_examples=40, deadline=None)
@given(cases(), st.booleans())
def test_reference_disparities_divide_by_the_reference_group(
    case: dict[str, object], largest: bool
) -> None:
    """aequitas's disparities: each group's rate over the reference group's, by hand
    from group_rates (checked against fairlearn above) of the same rows."""
    df, weight = case["df"], case["weight"]
    control = "c" if case["control"] else None
    reference = "largest" if largest else "g0"
    if not largest and df.group_by("c").agg((pl.col("g") == "g0").any())["g"].not_().any():
        return  # g0 absent from a stratum: the error case, tested below
    got = df.metrics.reference_disparities(
        "y", "p", by="g", reference=reference, control=control, weight=weight, pos_label=1
    )
    keys = ["c", "g"] if control else ["g"]
    rates = df.metrics.group_rates("y", "p", by=keys, weight=weight, pos_label=1)
    for row in got.rows(named=True):
        stratum = rates.filter(pl.col("c") == row["c"]) if control else rates
        if largest:
            size = stratum.select(pl.sum_horizontal("tp", "fp", "fn", "tn"))[:, 0]
            # ties: the first in order (Series.arg_max does not promise the first of
            # tied maxima: at polars 2.0 it returned the second of two)
            ref = stratum.row(int((size == size.max()).arg_true()[0]), named=True)
        else:
            ref = stratum.filter(pl.col("g") == "g0").row(0, named=True)
        own = stratum.filter(pl.col("g") == row["g"]).row(0, named=True)
        assert row["reference"] == (own["g"] == ref["g"])
        for rate in ("selection_rate", "false_positive_rate", "precision", "prevalence"):
            a, b = own[rate], ref[rate]
            expected = None if a == 0 and b == 0 else (math.inf if b == 0 else a / b)
            got_value = row[f"{rate}_disparity"]
            if expected is None or math.isinf(expected):
                assert got_value == expected, (rate, a, b, got_value)
            else:
                assert got_value == pytest.approx(expected), (rate, a, b)


def test_reference_disparities_refuse_an_absent_or_malformed_reference() -> None:
    df = _segments(n_groups=3)
    with pytest.raises(plm.DataError, match="reference group 'zz' has no rows in 1 stratum"):
        df.with_columns(pl.col("g").cast(pl.String)).metrics.reference_disparities(
            "y", "p", by="g", reference="zz"
        )
    without = df.filter((pl.col("c") == 0) | (pl.col("g") != 1))
    with pytest.raises(plm.DataError, match="no rows in 1 stratum"):
        without.lazy().metrics.reference_disparities(
            "y", "p", by="g", control="c", reference=1
        ).collect(engine="streaming")
    with pytest.raises(ValueError, match="a key of 1 value"):
        df.metrics.reference_disparities("y", "p", by="g", reference=(1, 2))
    with pytest.raises(ValueError, match="must name every `by` column"):
        df.metrics.reference_disparities("y", "p", by="g", reference={"h": 1})
    with pytest.raises(ValueError, match="is not a value of the `by` column 'g'"):
        df.metrics.reference_disparities("y", "p", by="g", reference="one")


def test_compare_p_values_hold_their_level_when_segments_are_alike() -> None:
    """300 segments of the same skill: the share of p < 0.05 is within Monte-Carlo
    tolerance of 0.05 (or below: a segment shares rows with the overall value), and
    the difference's interval covers 0 (the true difference) about 95% of the time."""
    rng = np.random.default_rng(21)
    n_groups, per = 300, 200
    g = np.repeat(np.arange(n_groups), per)
    y = rng.integers(0, 2, g.size)
    p = np.where(rng.random(g.size) < 0.8, y, 1 - y)
    df = pl.DataFrame({"g": g, "y": y, "p": p})
    out = df.metrics.compare("y", "p", by="g", n_boot=400, seed=2)
    level = (out["p_value"] < 0.05).mean()
    covered = ((out["diff_low"] <= 0) & (out["diff_high"] >= 0)).mean()
    # binomial sd of a 5% rate over 300 segments: 1.3%; 3.5 sd either side
    assert 0.005 <= level <= 0.05 + 3.5 * 0.0126, level
    assert 0.95 - 3.5 * 0.0126 <= covered <= 0.995, covered
    holm = df.metrics.compare("y", "p", by="g", n_boot=400, seed=2, adjust="holm")
    assert (holm["p_adjusted"] < 0.05).sum() == 0  # no family-wise false positive here


def test_undefined_values_are_never_a_tie() -> None:
    """A segment whose value is undefined (kappa of one class, NaN) has an undefined
    difference, not 0 with p-value 1; undefined replicates are skipped."""
    df = pl.DataFrame(
        {
            "g": ["a"] * 6 + ["b"] * 3,
            "y": [0, 1, 0, 1, 0, 1, 1, 1, 1],
            "p": [0, 1, 1, 1, 0, 0, 1, 1, 1],
        }
    )
    out = df.metrics.compare("y", "p", by="g", metric="cohen_kappa", n_boot=50)
    b = out.row(1, named=True)
    assert b["g"] == "b"
    assert b["value"] is None or math.isnan(b["value"])  # sklearn: NaN (one class)
    assert b["diff"] is None or math.isnan(b["diff"])
    assert b["p_value"] is None
    assert b["diff_low"] is None
    # a small segment whose replicates are often undefined (no positive drawn): the
    # defined ones decide; its AUC of 0 against ~0.97 overall is far from noise
    rng = np.random.default_rng(8)
    n = 400
    y = rng.integers(0, 2, n)
    s = np.clip(0.6 * y + rng.random(n) * 0.4, 0, 1).round(3)
    big = pl.DataFrame({"g": ["big"] * n, "y": y, "s": s})
    small = pl.DataFrame(
        {"g": ["small"] * 12, "y": [1, 1] + [0] * 10, "s": [0.0, 0.01] + [0.9] * 10}
    )
    auc = pl.concat([big, small]).metrics.compare("y", "s", by="g", metric="roc_auc", n_boot=400)
    row = auc.filter(pl.col("g") == "small").row(0, named=True)
    assert row["value"] == 0.0
    assert row["diff_high"] < -0.5
    assert row["p_value"] < 0.01


def test_reference_must_be_exactly_a_group_key() -> None:
    df = _segments(n_groups=3)
    for bad in (1.5, True, "1"):
        with pytest.raises(ValueError, match="is not a value of the `by` column 'g'"):
            df.metrics.reference_disparities("y", "p", by="g", reference=bad)
    assert df.metrics.reference_disparities("y", "p", by="g", reference=1.0)["reference"].sum() == 1


def test_bad_seed_names_the_argument() -> None:
    df = _segments(n_groups=3)
    for call in (
        lambda s: df.metrics.compare("y", "p", by="g", seed=s),
        lambda s: df.metrics.fairness("y", "p", by="g", ci=0.9, seed=s),
        lambda s: df.metrics.disparity("y", "p", by="g", ci=0.9, seed=s),
    ):
        for seed in (-1, 1.5, "a"):
            with pytest.raises(ValueError, match="`seed` must be None or an integer >= 0"):
                call(seed)


def test_data_errors_of_the_scores_count_rows_not_replicates() -> None:
    df = pl.DataFrame({"g": ["a", "b"] * 20, "y": [0, 1] * 20, "s": [0.5] * 13 + [1.5] * 27})
    with pytest.raises(plm.DataError, match=" 27 "):
        df.metrics.compare("y", "s", by="g", metric="log_loss", n_boot=20)


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("selection_rate", {}),
        ("group_rates", {}),
        ("class_likelihood_ratios", {}),
        ("fairness", {"by": "g"}),
    ],
)
@pytest.mark.parametrize(
    ("pred", "message"),
    [
        # y_pred alone holds a third label: it is named, with its labels
        ([0, 1, 2, 1], r"column 'p' holds the labels \[0, 1, 2\]; with labels other"),
        # each column alone is {0, 1} or {-1, 1}; together {-1, 0, 1}: y_pred named
        (
            [-1, 1, 1, -1],
            r"column 'p' holds the labels \[-1, 1\], which with the labels "
            r"\[0, 1\] of column 'y'",
        ),
    ],
)
def test_default_pos_label_error_names_the_column_with_the_other_labels(
    method: str, kwargs: dict, pred: list, message: str
) -> None:
    # y is {0, 1}: the message said "column 'y' holds the labels [0, 1]" for both
    df = pl.DataFrame({"y": [0, 1, 0, 1], "p": pred, "g": ["a", "a", "b", "b"]})
    with pytest.raises(plm.DataError, match=message):
        pl.DataFrame(getattr(df.metrics, method)("y", "p", **kwargs))
    with pytest.raises(plm.DataError, match=r"column 'y' holds the labels \[0, 1, 2\]"):
        df.with_columns(y=pl.Series([0, 1, 2, 1])).pipe(
            lambda d: pl.DataFrame(getattr(d.metrics, method)("y", "y", **kwargs))
        )


# ------------------------------------------- compare: the analytic test of proportions
def _agresti_caffo(x: np.ndarray, m: np.ndarray, ci: float) -> dict[str, np.ndarray]:
    """compare's analytic columns by hand (numpy), one stratum of segments with x
    successes of m trials: v~ = (x + 1) / (m + 2), var = v~ (1 - v~) / (m + 2),
    w = m / sum m, o~ = sum w v~, W = sum w^2 var; diff = v~ - o~ with variance
    (1 - w)^2 var + sum over the other segments of w^2 var; the ratio's interval
    1 + the difference's / o~, at least 0."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + ci / 2)
    v = (x + 1) / (m + 2)
    var = v * (1 - v) / (m + 2)
    w = m / m.sum()
    o = (w * v).sum()
    big = (w * w * var).sum()
    se = np.sqrt((1 - w) ** 2 * var + (big - w * w * var))
    d = v - o
    p = np.array([math.erfc(abs(t) / math.sqrt(2)) for t in d / se])
    return {
        "diff_low": d - z * se,
        "diff_high": d + z * se,
        "ratio_low": np.maximum(1 + (d - z * se) / o, 0.0),
        "ratio_high": 1 + (d + z * se) / o,
        "p_value": p,
    }


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 200), min_size=2, max_size=6),
    skill=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    ci=st.sampled_from([0.9, 0.95]),
)
def test_compare_proportions_are_agresti_caffo(
    sizes: list[int], skill: float, seed: int, ci: float
) -> None:
    from statsmodels.stats.proportion import (
        confint_proportions_2indep,
        proportion_confint,
        test_proportions_2indep,
    )

    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.integers(0, 2, len(g))
    p = np.where(rng.random(len(g)) < skill, y, 1 - y)
    df = pl.DataFrame({"g": g, "y": y, "p": p})
    out = df.metrics.compare("y", "p", by="g", ci=ci)  # accuracy: analytic by default
    assert out["g"].to_list() == list(range(len(sizes)))
    x = np.array([(y[g == k] == p[g == k]).sum() for k in range(len(sizes))], dtype=float)
    m = np.array(sizes, dtype=float)
    expected = _agresti_caffo(x, m, ci)
    for column, values in expected.items():
        assert out[column].to_numpy() == pytest.approx(values, rel=1e-9, abs=1e-12), column
    # the segment's own interval: Wilson's (statsmodels)
    low, high = proportion_confint(x, m, alpha=1 - ci, method="wilson")
    assert out["low"].to_numpy() == pytest.approx(low, abs=1e-12)
    assert out["high"].to_numpy() == pytest.approx(high, abs=1e-12)
    if len(sizes) == 2:  # a segment against the overall value: the two-sample test
        test = test_proportions_2indep(x[0], m[0], x[1], m[1], method="agresti-caffo")
        assert out["p_value"][0] == pytest.approx(test.pvalue, rel=1e-9)
        bounds = confint_proportions_2indep(
            x[0], m[0], x[1], m[1], method="agresti-caffo", alpha=1 - ci
        )
        share = m[1] / m.sum()  # diff = v0 - o = share of the other x (v0 - v1)
        assert out["diff_low"][0] == pytest.approx(share * bounds[0], rel=1e-9)
        assert out["diff_high"][0] == pytest.approx(share * bounds[1], rel=1e-9)


def test_compare_proportions_analytic_by_stratum_and_for_rates() -> None:
    df = _segments(n_groups=6, n=3000)
    out = df.metrics.compare("y", "p", by="g", control="c", metric="false_positive_rate")
    for c in (0, 1):
        part = df.filter(pl.col("c") == c).sort("g")
        negatives = part.filter(pl.col("y") == 0)
        x = negatives.group_by("g").agg((pl.col("p") == 1).sum()).sort("g")["p"].to_numpy()
        m = negatives.group_by("g").len().sort("g")["len"].to_numpy()
        expected = _agresti_caffo(x.astype(float), m.astype(float), 0.95)
        got = out.filter(pl.col("c") == c).sort("g")
        for column, values in expected.items():
            assert got[column].to_numpy() == pytest.approx(values, rel=1e-9), column


def test_compare_proportions_p_values_are_calibrated() -> None:
    # 300 segments of one true accuracy (0.8): under the null, about 5 % of the
    # p-values fall below 0.05 and the difference's interval covers 0 about 95 %
    rng = np.random.default_rng(7)
    g = rng.integers(0, 300, 60_000)
    y = rng.integers(0, 2, len(g))
    p = np.where(rng.random(len(g)) < 0.8, y, 1 - y)
    out = pl.DataFrame({"g": g, "y": y, "p": p}).metrics.compare("y", "p", by="g")
    rejected = (out["p_value"] < 0.05).mean()
    covered = ((out["diff_low"] <= 0) & (out["diff_high"] >= 0)).mean()
    # 300 segments: the binomial sd of a 5 % rate is 1.3 %
    assert 0.015 <= rejected <= 0.09, rejected
    assert 0.91 <= covered <= 0.985, covered


def test_compare_proportions_ratio_interval_agrees_with_the_p_value() -> None:
    # recall 0 of 8 in one segment, 60 of 100 in the other (the reviewer's case): the
    # p-value rejects, so neither interval may hold "no difference"
    y = np.ones(108, dtype=np.int64)
    p = np.r_[np.zeros(8), np.ones(60), np.zeros(40)].astype(np.int64)
    g = np.r_[np.zeros(8), np.ones(100)].astype(np.int64)
    out = pl.DataFrame({"g": g, "y": y, "p": p}).metrics.compare("y", "p", by="g", metric="recall")
    row = out.filter(pl.col("g") == 0).row(0, named=True)
    assert row["p_value"] < 0.001
    assert row["diff_high"] < 0
    assert row["ratio_high"] < 1
    assert row["ratio_low"] <= row["ratio"] <= row["ratio_high"]  # 0 inside [0, ...]


@pytest.mark.parametrize("ci", [None, 0.9])
def test_an_empty_input_has_no_rows(ci: float | None) -> None:
    # fairness and disparity without `control` gave one row of nulls for no rows (an
    # audit); every method gives no rows there, with the schema of a non-empty result
    full = pl.DataFrame({"y": [0, 1, 1, 0], "p": [1, 1, 0, 0], "s": [0.2, 0.9, 0.4, 0.1]})
    full = full.with_columns(g=pl.Series(["a", "b", "a", "b"]), c=pl.Series(["x"] * 4))
    calls = {
        "fairness": lambda m, **kw: m.fairness("y", "p", by="g", ci=ci, **kw),
        "disparity": lambda m, **kw: m.disparity("y", "p", by="g", ci=ci, **kw),
        "disparity[scores]": lambda m, **kw: m.disparity(
            "y", "s", by="g", metric="roc_auc", ci=ci, **kw
        ),
    }
    for name, call in calls.items():
        for control in (None, "c"):
            expected = call(full.metrics, control=control)
            got = call(full.head(0).metrics, control=control)
            assert got.height == 0, (name, control)
            assert got.schema == expected.schema, (name, control)
            assert expected.height > 0


def test_a_bootstrap_too_large_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    # past MAX_ROWS replicate cells the bootstrap of the differences is refused with
    # the remedy that fits: label columns have few cells a segment (the segments x
    # n_boot are many: rounding labels would not help), a score column has one a
    # distinct score (round it, named)
    from pl_metrics._intervals import resample

    monkeypatch.setattr(resample, "MAX_ROWS", 1_000)
    rng = np.random.default_rng(3)
    n = 600
    df = pl.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "pred": rng.integers(0, 2, n),
            "score": rng.random(n),
            "g": rng.integers(0, 3, n),
            "c": rng.integers(0, 50, n),
        }
    )
    with pytest.raises(ValueError, match="n_boot=20") as labels:
        df.metrics.fairness("y", "pred", by="g", control="c", ci=0.95, n_boot=20)
    assert "use fewer replicates (n_boot=) or fewer segments" in str(labels.value)
    assert "round" not in str(labels.value)
    assert "'y', 'pred'" in str(labels.value)
    with pytest.raises(ValueError, match="n_boot=20") as scores:
        df.metrics.disparity(
            "y", "score", metric="roc_auc", by="g", control="c", ci=0.95, n_boot=20
        )
    message = str(scores.value)
    assert "round the scores (e.g. pl.col('score').round(3))" in message
    # a distinct score draws a positive and a negative cell: the count said is the one
    # refused (it printed half of it)
    rows, cells = re.search(r"needs ([\d,]+) distinct .* = ([\d,]+) replicate", message).groups()
    assert int(cells.replace(",", "")) == int(rows.replace(",", "")) * 2 * 20 > 1_000
    assert "x 2 cells each x n_boot=20" in message
    # the metrics evaluated on replicate rows (log loss reads scores)
    with pytest.raises(ValueError, match="n_boot=20") as rows:
        df.metrics.disparity(
            "y", "score", metric="log_loss", by="g", control="c", ci=0.95, n_boot=20
        )
    assert "round the scores (e.g. pl.col('score').round(3))" in str(rows.value)


def test_compare_ratio_of_a_signed_metric_is_null() -> None:
    """disparity's rule (docs/fairness.md): segment a's MCC -1/3 over the overall
    0.169 was a ratio of -1.97, and -0.47 of the best segment's; the differences stay."""
    df = pl.DataFrame(
        {
            "g": ["a"] * 6 + ["b"] * 6,
            "y": [0, 1, 0, 1, 0, 1] * 2,
            "p": [1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1],
        }
    )
    mcc = df.metrics.compare("y", "p", by="g", metric="mcc")
    for column in ("ratio", "ratio_best", "ratio_low", "ratio_high"):
        assert mcc[column].null_count() == 2, column
    assert mcc["diff"].null_count() == 0
    # accuracy: a 2/6, b 5/6, overall 7/12: ratios (2/6) / (7/12) and (2/6) / (5/6)
    accuracy = df.metrics.compare("y", "p", by="g", metric="accuracy").row(0, named=True)
    assert accuracy["ratio"] == pytest.approx((2 / 6) / (7 / 12))
    assert accuracy["ratio_best"] == pytest.approx((2 / 6) / (5 / 6))
