"""Fairness metrics, group disparities and custom metrics against fairlearn (the oracle).

fairlearn's functions and ``MetricFrame`` (by_group, overall, group_min,
group_max, difference, ratio, control features) on hypothesis-generated binary
predictions with groups (a group may hold no positive rows: fairlearn's rate
is then 0, pl_metrics' default ``zero_division=0.0``), weights and control
strata.  ``compare``'s intervals and p-values: ``test_fairness_compare.py``; the
invariances (row order, eager = lazy = parquet, ...) run in the registry
(``tests/registry/``).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
import sklearn.metrics as skm
from _fairness_helpers import SKLEARN, _same, cases, fair_ratio
from fairlearn import metrics as flm
from hypothesis import given, settings
from hypothesis import strategies as st

import pl_metrics as plm


def _scalar(fn: object) -> object:
    """fairlearn's metric returning a float: fairlearn 0.14 (the newest on Python 3.10)
    returns ``selection_rate`` of a one-row group as an array, which its MetricFrame
    then treats as an error value (NaN); the definition is unchanged."""

    def metric(*args: object, **kwargs: object) -> float:
        return float(np.asarray(fn(*args, **kwargs)).squeeze())

    return metric


RATES = {
    "selection_rate": flm.selection_rate,
    "true_positive_rate": flm.true_positive_rate,
    "false_positive_rate": flm.false_positive_rate,
    "true_negative_rate": flm.true_negative_rate,
    "false_negative_rate": flm.false_negative_rate,
}


def _frame(case: dict[str, object], metrics: object) -> flm.MetricFrame:
    df = case["df"].to_pandas()
    weight = case["weight"]
    params = None
    if weight is not None:
        names = metrics if isinstance(metrics, dict) else {"m": metrics}
        params = {k: {"sample_weight": df[weight].to_numpy()} for k in names}
        if not isinstance(metrics, dict):
            params = params["m"]
    return flm.MetricFrame(
        metrics=metrics,
        y_true=df["y"],
        y_pred=df["p"],
        sensitive_features=df["g"],
        control_features=df["c"] if case["control"] else None,
        sample_params=params,
    )


@settings(max_examples=60, deadline=None)
@given(cases())
def test_group_rates_equal_fairlearn(case: dict[str, object]) -> None:
    df, weight = case["df"], case["weight"]
    got = df.metrics.group_rates("y", "p", by="g", weight=weight, pos_label=1)
    sel = df.metrics.selection_rate("y", "p", by="g", weight=weight, pos_label=1)
    # the same formula on the same counts; weighted sums may differ in the last bit
    assert got["selection_rate"].to_list() == pytest.approx(sel["selection_rate"].to_list())
    for row in got.iter_rows(named=True):
        part = df.filter(pl.col("g") == row["g"])
        w = None if weight is None else part[weight].to_numpy()
        y, p = part["y"].to_numpy(), part["p"].to_numpy()
        for name, fn in RATES.items():
            kwargs = {"pos_label": 1} if name != "selection_rate" else {}
            _same(row[name], fn(y, p, sample_weight=w, **kwargs))
        # the other rates of the crosstab, by hand from sklearn's confusion matrix
        tn, fp, fn_, tp = skm.confusion_matrix(y, p, labels=[0, 1], sample_weight=w).ravel()
        assert (row["tp"], row["fp"], row["fn"], row["tn"]) == pytest.approx((tp, fp, fn_, tn))
        _same(row["precision"], tp / (tp + fp) if tp + fp else 0.0)
        _same(row["negative_predictive_value"], tn / (tn + fn_) if tn + fn_ else 0.0)
        _same(row["false_omission_rate"], fn_ / (tn + fn_) if tn + fn_ else 0.0)
        _same(row["prevalence"], (tp + fn_) / (tp + fp + fn_ + tn))


@settings(max_examples=60, deadline=None)
@given(cases())
def test_fairness_equals_fairlearn(case: dict[str, object]) -> None:
    df, method, agg = case["df"], case["method"], case["agg"]
    got = df.metrics.fairness(
        "y",
        "p",
        by="g",
        control="c" if case["control"] else None,
        weight=case["weight"],
        method=method,
        agg=agg,
    )
    mf = _frame(
        case,
        {
            "sel": _scalar(flm.selection_rate),
            "tpr": _scalar(flm.true_positive_rate),
            "fpr": _scalar(flm.false_positive_rate),
        },
    )
    diff, ratio = mf.difference(method=method), mf.ratio(method=method)
    if not case["control"]:
        diff, ratio = diff.to_frame().T.assign(c="x"), ratio.to_frame().T.assign(c="x")
    else:
        diff, ratio = diff.reset_index(), ratio.reset_index()
    diff, ratio = diff.set_index("c"), ratio.set_index("c")

    def combine(a: float, b: float, kind: str) -> float:
        # mean: an undefined part (a ratio 0 / 0: every group's rate 0) is skipped, as
        # fairlearn's ``.mean()`` skips the NaN; worst case: undefined when a part
        # is (fairlearn's builtin min / max of the two gives NaN when the first,
        # the true positive rates', is NaN, and the other part when the second is:
        # pl_metrics gives null in both cases, never a worst case it cannot know)
        parts = [x for x in (a, b) if not math.isnan(x)]
        if not parts:
            return math.nan
        if agg == "mean":
            return sum(parts) / len(parts)
        if len(parts) < 2:
            return math.nan
        return max(parts) if kind == "difference" else min(parts)

    rows = got.rows(named=True)
    assert len(rows) == len(diff)
    for row in rows:
        key = row.get("c", "x")
        d, r = diff.loc[key], ratio.loc[key]
        _same(row["demographic_parity_difference"], d["sel"])
        _same(row["demographic_parity_ratio"], r["sel"])
        _same(row["equal_opportunity_difference"], d["tpr"])
        _same(row["equal_opportunity_ratio"], r["tpr"])
        _same(row["equalized_odds_difference"], combine(d["tpr"], d["fpr"], "difference"))
        _same(row["equalized_odds_ratio"], combine(r["tpr"], r["fpr"], "ratio"))


def test_fairness_functions_without_control_equal_fairlearn() -> None:
    """fairlearn's own functions (not MetricFrame), both aggregations, weights."""
    rng = np.random.default_rng(4)
    n = 3000
    g = rng.choice(["a", "b", "c"], n)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.select([g == "a", g == "b"], [0.9, 0.6], 0.75), y, 1 - y)
    w = rng.random(n) + 0.1
    df = pl.DataFrame({"g": g, "y": y, "p": p, "w": w})
    for method in ("between_groups", "to_overall"):
        for agg in ("worst_case", "mean"):
            got = df.metrics.fairness("y", "p", by="g", weight="w", method=method, agg=agg)
            kw = {"sensitive_features": g, "sample_weight": w, "method": method}
            assert got["demographic_parity_difference"][0] == pytest.approx(
                flm.demographic_parity_difference(y, p, **kw)
            )
            assert got["demographic_parity_ratio"][0] == pytest.approx(
                flm.demographic_parity_ratio(y, p, **kw)
            )
            assert got["equalized_odds_difference"][0] == pytest.approx(
                flm.equalized_odds_difference(y, p, agg=agg, **kw)
            )
            assert got["equalized_odds_ratio"][0] == pytest.approx(
                flm.equalized_odds_ratio(y, p, agg=agg, **kw)
            )
            assert got["equal_opportunity_difference"][0] == pytest.approx(
                flm.equal_opportunity_difference(y, p, **kw)
            )
            assert got["equal_opportunity_ratio"][0] == pytest.approx(
                flm.equal_opportunity_ratio(y, p, **kw)
            )


@settings(max_examples=40, deadline=None)
@given(cases(), st.sampled_from(sorted(SKLEARN)))
def test_disparity_equals_metric_frame(case: dict[str, object], metric: str) -> None:
    df, method = case["df"], case["method"]
    got = df.metrics.disparity(
        "y",
        "p",
        by="g",
        metric=metric,
        control="c" if case["control"] else None,
        weight=case["weight"],
        method=method,
    )
    mf = _frame(case, SKLEARN[metric])
    expected = {
        "overall": mf.overall,
        "group_min": mf.group_min(),
        "group_max": mf.group_max(),
        "difference": mf.difference(method=method),
        "ratio": mf.ratio(method=method),
    }
    for row in got.rows(named=True):
        assert row["metric"] == metric
        for column, values in expected.items():
            value = float(values.loc[row["c"]] if case["control"] else values)
            if column == "ratio":
                value = fair_ratio(metric, value, row["group_min"], row["overall"], method)
            _same(row[column], value)


def test_disparity_of_scores_and_several_metrics() -> None:
    rng = np.random.default_rng(5)
    n = 2000
    g = rng.choice(["a", "b", "c"], n)
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1).round(2)
    df = pl.DataFrame({"g": g, "y": y, "s": s})
    got = df.metrics.disparity("y", "s", by="g", metric=["roc_auc", "log_loss"])
    assert got["metric"].to_list() == ["roc_auc", "log_loss"]
    mf = flm.MetricFrame(
        metrics={"roc_auc": skm.roc_auc_score, "log_loss": skm.log_loss},
        y_true=y,
        y_pred=s,
        sensitive_features=g,
    )
    for row in got.rows(named=True):
        m = row["metric"]
        assert row["overall"] == pytest.approx(mf.overall[m])
        assert row["group_min"] == pytest.approx(mf.group_min()[m])
        assert row["difference"] == pytest.approx(mf.difference()[m])
        assert row["ratio"] == pytest.approx(mf.ratio()[m])


# ------------------------------------------------------------------------ custom metrics
#: scikit-learn-shaped callables (a custom metric is any such function).
CUSTOM = {
    "acc": skm.accuracy_score,
    "mcc": skm.matthews_corrcoef,
    "rate": _scalar(flm.selection_rate),
}


@settings(max_examples=60, deadline=None)
@given(cases())
def test_custom_metrics_equal_fairlearn_metric_frame(case: dict[str, object]) -> None:
    """``custom`` is MetricFrame's ``by_group`` (and, without ``by``, its ``overall``);
    ``disparity(metric={name: fn})`` its ``overall``, ``group_min``, ``group_max``,
    ``difference`` and ``ratio``, per control stratum."""
    df, weight = case["df"], case["weight"]
    frame = _frame(case, CUSTOM)
    by = ["c", "g"] if case["control"] else ["g"]
    got = df.metrics.custom(CUSTOM, "y", "p", by=by, weight=weight)
    # fairlearn also lists the (control, group) pairs without rows, all NaN: no row here
    present = set(df.select(by).unique().rows())
    expected = frame.by_group.reset_index()
    keys = [tuple(k) for k in expected[by].itertuples(index=False)]
    assert got.select(by).rows() == [k for k in keys if k in present]
    for key, (_, want) in zip(keys, expected.iterrows(), strict=True):
        if key not in present:
            assert all(math.isnan(want[name]) for name in CUSTOM)
            continue
        row = got.filter(pl.all_horizontal(pl.col(c) == v for c, v in zip(by, key, strict=True)))
        for name in CUSTOM:
            _same(row[name].item(), want[name])
    if not case["control"]:
        overall = df.metrics.custom(CUSTOM, "y", "p", weight=weight).row(0, named=True)
        for name in CUSTOM:
            _same(overall[name], frame.overall[name])
    method = case["method"]
    spread = df.metrics.disparity(
        "y",
        "p",
        by="g",
        control="c" if case["control"] else None,
        metric=CUSTOM,
        method=method,
        weight=weight,
    )
    stats = {
        "overall": frame.overall,
        "group_min": frame.group_min(),
        "group_max": frame.group_max(),
        "difference": frame.difference(method=method),
        "ratio": frame.ratio(method=method),
    }
    for row in spread.iter_rows(named=True):
        for stat, values in stats.items():
            value = (values.loc[row["c"]] if case["control"] else values)[row["metric"]]
            if stat == "ratio":
                value = fair_ratio(
                    row["metric"], value, row["group_min"], row["overall"], method, False
                )
            _same(row[stat], value)


def test_custom_metrics_refuse_bad_callables_and_inputs() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b"], "y": [1, 0, 1], "p": [1, 1, 0]})
    with pytest.raises(TypeError, match=r"`metrics` must be a non-empty \{name: callable\}"):
        df.metrics.custom({"acc": "accuracy"}, "y", "p")
    with pytest.raises(TypeError, match="`metrics` must be"):
        df.metrics.custom({}, "y", "p")
    with pytest.raises(ValueError, match=r"custom metric 'per_class' returned array"):
        df.metrics.custom(
            {"per_class": lambda y, p: skm.recall_score(y, p, average=None)}, "y", "p"
        )
    with pytest.raises(plm.DataError, match="'y' has 1 rows that are not class labels"):
        df.with_columns(pl.Series("y", [1.0, float("nan"), 0.0])).metrics.custom(
            {"acc": skm.accuracy_score}, "y", "p"
        )
    with pytest.raises(plm.DataError, match="'p' has 1 null rows"):
        df.with_columns(pl.Series("p", [1, None, 0])).metrics.custom(
            {"acc": skm.accuracy_score}, "y", "p"
        )
    with pytest.raises(ValueError, match="`by` column 'acc' collides"):
        df.rename({"g": "acc"}).metrics.custom({"acc": skm.accuracy_score}, "y", "p", by="acc")
    with pytest.raises(ValueError, match="`ci` is not offered with custom metrics"):
        df.metrics.disparity("y", "p", by="g", metric={"acc": skm.accuracy_score}, ci=0.9)
    # None and NaN are null; an integer or numpy number is a float
    got = df.metrics.custom(
        {"none": lambda y, p: None, "nan": lambda y, p: float("nan"), "n": lambda y, p: len(y)},
        "y",
        "p",
        by="g",
    )
    assert got.rows() == [("a", None, None, 2.0), ("b", None, None, 1.0)]


def test_disparity_ratio_of_a_signed_metric_is_null() -> None:
    """A ratio of values of two signs is no measure of disparity (fairlearn's ratio of
    the MCCs below is -0.47, of two negative values it would exceed 1): null for the
    metrics whose range holds negative values; the difference stays."""
    df = pl.DataFrame(
        {
            "g": ["a"] * 6 + ["b"] * 6,
            "y": [0, 1, 0, 1, 0, 1] * 2,
            "p": [1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1],
        }
    )
    got = df.metrics.disparity("y", "p", by="g", metric=["mcc", "accuracy"])
    mcc, accuracy = got.rows(named=True)
    # group a: tp 1, fp 2, fn 2, tn 1 -> MCC (1 - 4) / 9 = -1/3; group b: tp 3, fp 1,
    # fn 0, tn 2 -> (6 - 0) / sqrt(4 * 3 * 3 * 2) = 0.7071; accuracy 2/6 and 5/6
    assert mcc["group_min"] == pytest.approx(-1 / 3)
    assert mcc["group_max"] == pytest.approx(6 / math.sqrt(72))
    assert mcc["difference"] == pytest.approx(6 / math.sqrt(72) + 1 / 3)
    assert mcc["ratio"] is None
    assert accuracy["ratio"] == pytest.approx((2 / 6) / (5 / 6))
    overall = df.metrics.disparity("y", "p", by="g", metric="cohen_kappa", method="to_overall")
    assert overall["ratio"][0] is None
