"""``check``: quality gates decided per segment from intervals.

Every expected interval is computed here, independently of the library: Wilson's
interval by statsmodels, ROC AUC by scikit-learn with DeLong's variance from the
placements in numpy, the difference to a reference by statsmodels' Newcombe
interval (Wilson) or the two-sample normal interval (DeLong), PSI by numpy.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import log_loss, roc_auc_score
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

import pl_metrics as plm
from pl_metrics._core.catalogue import CATALOGUE
from pl_metrics._monitoring.check import METRICS, parse_rule

Z95 = NormalDist().inv_cdf(0.975)


def _delong(y: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    """(AUC, DeLong's variance) by brute force over the pairs of each positive and
    negative (scikit-learn's AUC; the placements' sample variances)."""
    pos, neg = s[y == 1], s[y == 0]
    pairs = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10, v01 = pairs.mean(axis=1), pairs.mean(axis=0)
    variance = v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg)
    auc = roc_auc_score(y, s)
    assert math.isclose(auc, pairs.mean())
    return auc, variance


def _scores(n: int, signal: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, np.round(rng.normal(signal * y, 1.0), 3)


def _segments() -> pl.DataFrame:
    """Three segments whose ROC AUC intervals lie above 0.7, around it, below it."""
    parts = []
    for g, (n, signal, seed) in {"a": (400, 2.0, 1), "b": (60, 1.0, 2), "c": (400, 0.2, 3)}.items():
        y, s = _scores(n, signal, seed)
        parts.append(pl.DataFrame({"g": g, "y": y, "s": s}))
    return pl.concat(parts)


# ---------------------------------------------------------------------------- statuses
def test_each_status_from_the_delong_interval() -> None:
    df = _segments()
    out = df.metrics.check(["roc_auc >= 0.7", "roc_auc < 0.7"], y_true="y", y_score="s", by="g")
    assert out.columns == ["g", "rule", "metric", "value", "low", "high", "threshold", "status"]
    expected = {}
    for g in ("a", "b", "c"):
        part = df.filter(pl.col("g") == g)
        auc, var = _delong(part["y"].to_numpy(), part["s"].to_numpy())
        low, high = auc - Z95 * math.sqrt(var), auc + Z95 * math.sqrt(var)
        row = out.filter((pl.col("g") == g) & (pl.col("rule") == "roc_auc >= 0.7")).row(
            0, named=True
        )
        assert row["value"] == pytest.approx(auc, rel=1e-12)
        assert (row["low"], row["high"]) == pytest.approx((low, high), rel=1e-9)
        expected[g] = "pass" if low >= 0.7 else "fail" if high < 0.7 else "inconclusive"
    # the three segments were drawn to give the three statuses
    assert expected == {"a": "pass", "b": "inconclusive", "c": "fail"}
    ge = out.filter(pl.col("rule") == "roc_auc >= 0.7")
    assert dict(zip(ge["g"], ge["status"], strict=True)) == expected
    lt = out.filter(pl.col("rule") == "roc_auc < 0.7")  # the mirror rule
    assert lt["status"].to_list() == ["fail", "inconclusive", "pass"]
    assert out["g"].to_list() == ["a", "a", "b", "b", "c", "c"]  # segment, then rule order


def test_wilson_statuses_of_the_label_metrics() -> None:
    """accuracy, recall (over_time's: Wilson) and false_positive_rate (compare's
    rates: Wilson) against statsmodels' Wilson interval; each status by hand."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 300)
    p = np.where(rng.random(300) < 0.75, y, 1 - y)
    df = pl.DataFrame({"y": y, "p": p})
    rules = ["accuracy >= 0.7", "recall > 0.9", "false_positive_rate <= 0.4"]
    out = df.metrics.check(rules, y_true="y", y_pred="p")
    counts = {
        "accuracy": ((y == p).sum(), len(y)),
        "recall": (((y == 1) & (p == 1)).sum(), (y == 1).sum()),
        "false_positive_rate": (((y == 0) & (p == 1)).sum(), (y == 0).sum()),
    }
    for row in out.iter_rows(named=True):
        hits, trials = counts[row["metric"]]
        low, high = proportion_confint(hits, trials, alpha=0.05, method="wilson")
        assert row["value"] == pytest.approx(hits / trials, rel=1e-12)
        assert (row["low"], row["high"]) == pytest.approx((low, high), rel=1e-9)
        threshold = row["threshold"]
        if row["metric"] == "accuracy":  # >=
            want = "pass" if low >= threshold else "fail" if high < threshold else "inconclusive"
        elif row["metric"] == "recall":  # >
            want = "pass" if low > threshold else "fail" if high <= threshold else "inconclusive"
        else:  # <=
            want = "pass" if high <= threshold else "fail" if low > threshold else "inconclusive"
        assert row["status"] == want
    assert out["status"].to_list() == ["inconclusive", "fail", "pass"]


def test_ci_none_the_point_decides() -> None:
    df = pl.DataFrame({"y": [0, 1, 1, 0, 1, 0], "p": [0, 1, 0, 0, 1, 1]})  # accuracy 4/6
    rules = ["accuracy >= 0.6", "accuracy > 0.7", "accuracy <= 0.6", "accuracy < 0.7"]
    out = df.metrics.check(rules, y_true="y", y_pred="p", ci=None)
    assert out.columns == ["rule", "metric", "value", "threshold", "status"]
    assert out["value"].to_list() == pytest.approx([4 / 6] * 4)
    assert out["status"].to_list() == ["pass", "fail", "fail", "pass"]
    # at the threshold: >= and <= pass, > and < fail
    edge = ["accuracy >= 0.5", "accuracy <= 0.5", "accuracy > 0.5", "accuracy < 0.5"]
    half = pl.DataFrame({"y": [0, 1], "p": [0, 0]})
    got = half.metrics.check(edge, y_true="y", y_pred="p", ci=None)["status"].to_list()
    assert got == ["pass", "pass", "fail", "fail"]


def test_metrics_without_an_interval_are_decided_by_the_point() -> None:
    y, s = _scores(200, 1.0, 5)
    p = 1 / (1 + np.exp(-s))
    df = pl.DataFrame({"y": y, "p": p})
    out = df.metrics.check(["log_loss < 0.9", "n >= 200"], y_true="y", y_score="p", y_pred="y")
    assert out["value"].to_list() == pytest.approx([log_loss(y, p), 200.0], rel=1e-12)
    assert out["low"].null_count() == 2
    assert out["high"].null_count() == 2
    want = "pass" if log_loss(y, p) < 0.9 else "fail"
    assert out["status"].to_list() == [want, "pass"]


def test_undefined_is_inconclusive() -> None:
    """A segment with one class has no ROC AUC; a segment of two positives has no
    DeLong interval: both inconclusive, with ci and (the first) without."""
    df = pl.DataFrame(
        {
            "g": ["one"] * 3 + ["few"] * 3,
            "y": [1, 1, 1, 1, 1, 0],
            "s": [0.2, 0.4, 0.9, 0.8, 0.6, 0.1],
        }
    )
    out = df.metrics.check("roc_auc >= 0.5", y_true="y", y_score="s", by="g")
    assert out["g"].to_list() == ["few", "one"]
    assert out["status"].to_list() == ["inconclusive", "inconclusive"]
    assert out["value"][0] == 1.0  # defined, but its interval is not (one negative)
    point = df.metrics.check("roc_auc >= 0.5", y_true="y", y_score="s", by="g", ci=None)
    assert point["status"].to_list() == ["pass", "inconclusive"]


def test_an_empty_frame_is_inconclusive_but_fails_a_rule_on_n() -> None:
    empty = pl.DataFrame(schema={"y": pl.Int64, "p": pl.Int64, "g": pl.String})
    out = empty.metrics.check(["accuracy >= 0.5", "n >= 100"], y_true="y", y_pred="p")
    assert out.select("value", "status").rows() == [(None, "inconclusive"), (0.0, "fail")]
    assert empty.metrics.check("n >= 100", y_true="y", y_pred="p", by="g").height == 0


def test_weighted_point_decisions_equal_sklearn() -> None:
    y, s = _scores(150, 1.0, 6)
    w = np.random.default_rng(6).random(150) * 3
    df = pl.DataFrame({"y": y, "s": s, "w": w})
    out = df.metrics.check("roc_auc >= 0.6", y_true="y", y_score="s", weight="w", ci=None)
    assert out["value"][0] == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    with pytest.raises(ValueError, match="`ci` needs un-weighted rows"):
        df.metrics.check("roc_auc >= 0.6", y_true="y", y_score="s", weight="w")


# ---------------------------------------------------------------------------- reference
def test_non_inferiority_is_the_two_sample_delong_interval() -> None:
    """``roc_auc >= reference - 0.02``: the value is AUC - reference AUC per segment,
    its interval d -+ z sqrt(var + var_reference) (each DeLong's, by brute force)."""
    current = _segments()
    reference = pl.concat(
        pl.DataFrame({"g": g, "y": y, "s": s})
        for g, (y, s) in {"a": _scores(300, 2.1, 7), "b": _scores(80, 1.2, 8)}.items()
    )
    rule = "roc_auc >= reference - 0.02"
    out = current.metrics.check(rule, y_true="y", y_score="s", by="g", reference=reference)
    assert out["metric"].to_list() == ["roc_auc - reference"] * 3
    assert out["threshold"].to_list() == [-0.02] * 3
    for g in ("a", "b"):
        now = current.filter(pl.col("g") == g)
        then = reference.filter(pl.col("g") == g)
        auc, var = _delong(now["y"].to_numpy(), now["s"].to_numpy())
        auc_r, var_r = _delong(then["y"].to_numpy(), then["s"].to_numpy())
        d, half = auc - auc_r, Z95 * math.sqrt(var + var_r)
        row = out.filter(pl.col("g") == g).row(0, named=True)
        assert row["value"] == pytest.approx(d, rel=1e-9)
        assert (row["low"], row["high"]) == pytest.approx((d - half, d + half), rel=1e-9)
        want = "pass" if d - half >= -0.02 else "fail" if d + half < -0.02 else "inconclusive"
        assert row["status"] == want
    # a reference segment of one class has no AUC: no difference
    one_class = reference.with_columns(y=pl.when(pl.col("g") == "b").then(1).otherwise("y"))
    lone = current.metrics.check(rule, y_true="y", y_score="s", by="g", reference=one_class)
    assert lone.filter(pl.col("g") == "b").select("value", "status").row(0) == (
        None,
        "inconclusive",
    )
    # c has no reference rows: no difference
    assert out.filter(pl.col("g") == "c").select("value", "status").row(0) == (
        None,
        "inconclusive",
    )
    # the same rows marked by an expression in one frame give the same table
    both = pl.concat([current.with_columns(ref=False), reference.with_columns(ref=True)])
    marked = both.metrics.check(rule, y_true="y", y_score="s", by="g", reference=pl.col("ref"))
    assert_frame_equal(marked, out)


def test_non_inferiority_without_ci_is_the_point_difference() -> None:
    """ci=None: the difference of scikit-learn's two AUCs decides; a derived metric
    (gini = 2 AUC - 1) takes the same rules."""
    y, s = _scores(200, 1.0, 11)
    y_r, s_r = _scores(200, 1.6, 12)
    df = pl.DataFrame({"y": np.r_[y, y_r], "s": np.r_[s, s_r], "old": [False] * 200 + [True] * 200})
    rules = ["roc_auc >= reference - 0.02", "gini > 0.4"]
    out = df.metrics.check(rules, y_true="y", y_score="s", reference=pl.col("old"), ci=None)
    d = roc_auc_score(y, s) - roc_auc_score(y_r, s_r)
    gini = 2 * roc_auc_score(y, s) - 1
    assert out["value"].to_list() == pytest.approx([d, gini], rel=1e-12)
    assert out["status"].to_list() == [
        "pass" if d >= -0.02 else "fail",
        "pass" if gini > 0.4 else "fail",
    ]


def test_non_inferiority_of_a_proportion_is_newcombe() -> None:
    """Two Wilson intervals combined (MOVER) are Newcombe's interval of a difference
    of proportions (statsmodels' ``method="newcomb"``)."""
    rng = np.random.default_rng(9)
    y, y_r = rng.integers(0, 2, 250), rng.integers(0, 2, 180)
    p = np.where(rng.random(250) < 0.7, y, 1 - y)
    p_r = np.where(rng.random(180) < 0.8, y_r, 1 - y_r)
    df = pl.DataFrame({"y": np.r_[y, y_r], "p": np.r_[p, p_r], "old": [False] * 250 + [True] * 180})
    out = df.metrics.check(
        "recall >= reference - 0.05", y_true="y", y_pred="p", reference=pl.col("old")
    )
    hits, trials = ((y == 1) & (p == 1)).sum(), (y == 1).sum()
    hits_r, trials_r = ((y_r == 1) & (p_r == 1)).sum(), (y_r == 1).sum()
    low, high = confint_proportions_2indep(
        hits, trials, hits_r, trials_r, method="newcomb", compare="diff"
    )
    row = out.row(0, named=True)
    assert row["value"] == pytest.approx(hits / trials - hits_r / trials_r, rel=1e-12)
    assert (row["low"], row["high"]) == pytest.approx((low, high), rel=1e-9)
    assert row["status"] == ("pass" if low >= -0.05 else "fail" if high < -0.05 else "inconclusive")


def _psi(reference: np.ndarray, current: np.ndarray, bins: int = 10, eps: float = 1e-4) -> float:
    """PSI over the reference's deciles (bins (e_j, e_j+1]), 0 proportions as eps."""
    edges = np.unique(np.quantile(reference, np.arange(1, bins) / bins))
    p = np.bincount(np.searchsorted(edges, reference), minlength=len(edges) + 1) / len(reference)
    q = np.bincount(np.searchsorted(edges, current), minlength=len(edges) + 1) / len(current)
    p, q = np.where(p == 0, eps, p), np.where(q == 0, eps, q)
    return float(np.sum((q - p) * np.log(q / p)))


def test_psi_rule_is_drifts_psi() -> None:
    rng = np.random.default_rng(10)
    train = pl.DataFrame({"income": rng.lognormal(3.5, 0.4, 2000)})
    week = pl.DataFrame(
        {"region": ["eu"] * 300 + ["us"] * 300, "income": rng.lognormal(3.5, 0.4, 600)}
    ).with_columns(
        pl.when(pl.col("region") == "eu").then(pl.col("income") * 1.5).otherwise("income")
    )
    out = week.metrics.check(
        ["psi(income) < 0.2", "js_distance(income) < 0.5"], by="region", reference=train
    )
    assert out.columns == [
        "region",
        "rule",
        "metric",
        "value",
        "low",
        "high",
        "threshold",
        "status",
    ]
    drift = week.metrics.drift("income", reference=train, by="region")
    psi = out.filter(pl.col("metric") == "psi(income)")
    # drift's own PSI: the same sums, in the order polars adds them (polars 2.2: the
    # last bit apart, 0.9016685236668626 against ...625)
    assert psi["value"].to_list() == pytest.approx(drift["psi"].to_list(), rel=1e-12)
    for region, value in zip(psi["region"], psi["value"], strict=True):
        current = week.filter(pl.col("region") == region)["income"].to_numpy()
        assert value == pytest.approx(_psi(train["income"].to_numpy(), current), rel=1e-9)
    assert psi["status"].to_list() == ["fail", "pass"]
    assert out["low"].null_count() == out.height  # no interval: the point decides


def test_reference_expression_with_nulls_is_refused() -> None:
    df = pl.DataFrame({"y": [0, 1, 0, 1], "p": [0, 1, 1, 1], "old": [True, None, False, False]})
    with pytest.raises(plm.DataError, match="`reference` is null on 1 rows"):
        df.metrics.check("accuracy >= reference", y_true="y", y_pred="p", reference=pl.col("old"))


# ---------------------------------------------------------------------------- rules
def test_rules_parse() -> None:
    rule = parse_rule("  roc_auc>=reference-0.02 ")
    assert (rule.name, rule.op, rule.threshold, rule.relative) == ("roc_auc", ">=", -0.02, True)
    assert rule.metric == "roc_auc - reference"
    assert parse_rule("f1 > reference + 1e-2").threshold == 0.01
    assert parse_rule("recall >= reference").threshold == 0.0
    drift = parse_rule("psi(net income) < 0.2")
    assert (drift.name, drift.column, drift.metric) == ("psi", "net income", "psi(net income)")
    assert parse_rule("ks < -1").column is None  # the scores' KS, not drift's
    assert set(METRICS) == set(CATALOGUE)  # every metric a call takes by name


@pytest.mark.parametrize(
    ("rule", "match"),
    [
        ("roc_auc = 0.8", "is not '<metric> <op> <number>'"),
        ("roc_auc >= high", "is not '<metric> <op> <number>'"),
        ("roc_auc >= nan", "is not '<metric> <op> <number>'"),
        (">= 0.8", "is not '<metric> <op> <number>'"),
        ("rocauc >= 0.8", "unknown metric 'rocauc'; known metrics: n, accuracy, .*roc_auc"),
        ("psi >= 0.8", "unknown metric 'psi'.*psi\\(column\\)"),
        ("roc_auc(s) >= 0.8", "names a column, which only the drift metrics"),
        ("psi(x) < reference + 0.1", "a drift metric already compares with the reference"),
    ],
)
def test_bad_rules_are_named(rule: str, match: str) -> None:
    df = pl.DataFrame({"y": [0, 1], "s": [0.2, 0.8]})
    with pytest.raises(ValueError, match=match) as error:
        df.metrics.check(rule, y_true="y", y_score="s")
    assert repr(rule) in str(error.value)


def test_bad_rule_lists() -> None:
    df = pl.DataFrame({"y": [0, 1], "s": [0.2, 0.8]})
    with pytest.raises(TypeError, match="`rules` must be a rule or a non-empty list"):
        df.metrics.check([], y_true="y", y_score="s")
    with pytest.raises(TypeError, match="a rule must be a string"):
        df.metrics.check([0.8], y_true="y", y_score="s")
    with pytest.raises(ValueError, match=re.escape("gives rule 'roc_auc > 0.5' twice")):
        df.metrics.check(["roc_auc > 0.5", "roc_auc > 0.5"], y_true="y", y_score="s")


@pytest.mark.parametrize(
    ("rule", "kwargs", "argument"),
    [
        ("roc_auc >= 0.8", {"y_true": "y"}, "y_score"),
        ("accuracy >= 0.8", {"y_true": "y", "y_score": "s"}, "y_pred"),
        ("accuracy >= 0.8", {"y_pred": "p"}, "y_true"),
        ("psi(s) < 0.2", {}, "reference"),
        ("accuracy >= reference", {"y_true": "y", "y_pred": "p"}, "reference"),
    ],
)
def test_a_missing_argument_is_named_with_the_rule(
    rule: str, kwargs: dict[str, str], argument: str
) -> None:
    df = pl.DataFrame({"y": [0, 1], "p": [0, 1], "s": [0.2, 0.8]})
    with pytest.raises(ValueError, match=re.escape(f"rule {rule!r} needs `{argument}`")):
        df.metrics.check(rule, **kwargs)


#: Rows of a reference frame (the data: these and a segment column `g`).
_REFERENCE = pl.DataFrame(
    {"y": [0, 1, 0, 1], "p": [0, 1, 1, 1], "s": [0.1, 0.9, 0.6, 0.8], "w": [1.0] * 4}
)
_NOT_FOUND = pl.exceptions.ColumnNotFoundError


@pytest.mark.parametrize(
    ("rule", "kwargs", "reference", "error", "said"),
    [
        (
            "roc_auc >= reference - 0.02",
            {"by": "g"},
            _REFERENCE,  # no `g`
            _NOT_FOUND,
            "column 'g' (argument `by`) not found in the reference; "
            "available columns: ['y', 'p', 's', 'w']",
        ),
        (
            "roc_auc >= reference - 0.02",
            {"by": pl.col("g").str.len_bytes()},
            _REFERENCE,
            _NOT_FOUND,
            "cannot be evaluated in the reference (columns: ['y', 'p', 's', 'w'])",
        ),
        (
            "roc_auc >= reference - 0.02",
            {},
            _REFERENCE.with_columns(pl.col("s").cast(pl.String)),
            pl.exceptions.SchemaError,
            "column 's' (argument `y_score`) in the reference must be numeric, got String",
        ),
        (  # the calibration rows' check (estimated_performance's)
            "estimated_roc_auc >= 0.5",
            {},
            _REFERENCE.with_columns(pl.col("s").cast(pl.String)),
            pl.exceptions.SchemaError,
            "column 's' (argument `y_score`) in the reference must be numeric, got String",
        ),
        (
            "accuracy >= reference",
            {"weight": "w", "ci": None},
            _REFERENCE.with_columns(pl.col("w").cast(pl.String)),
            pl.exceptions.SchemaError,
            "column 'w' (argument `weight`) in the reference must be numeric, got String",
        ),
        (
            "roc_auc >= reference - 0.02",
            {},
            _REFERENCE.rename({"y": "label"}),
            _NOT_FOUND,
            "column 'y' (argument `y_true`) not found in the reference; "
            "available columns: ['label', 'p', 's', 'w']",
        ),
        (
            "f1 >= reference - 0.1",
            {},
            _REFERENCE.rename({"p": "pred"}),
            _NOT_FOUND,
            "column 'p' (argument `y_pred`) not found in the reference; "
            "available columns: ['y', 'pred', 's', 'w']",
        ),
    ],
)
def test_a_reference_frame_s_columns_are_named_as_the_reference_s(
    rule: str, kwargs: dict, reference: pl.DataFrame, error: type[Exception], said: str
) -> None:
    """A reference frame's missing or mistyped column is named as the reference's, with
    the reference's own columns (not the data's, nor those the method adds on the way:
    its window's ``day`` and ``window_end``)."""
    data = _REFERENCE.with_columns(g=pl.Series(["a", "a", "b", "b"]))
    with pytest.raises(error) as raised:
        data.lazy().metrics.check(
            rule, y_true="y", y_pred="p", y_score="s", reference=reference, **kwargs
        )
    assert said in str(raised.value)


def test_the_data_s_missing_column_is_named_before_the_reference_s() -> None:
    """Both lack ``y``: the data's error comes first (its own message, no reference)."""
    data = _REFERENCE.drop("y")
    with pytest.raises(_NOT_FOUND, match=r"^column 'y' \(argument `y_true`\) not found; "):
        data.metrics.check(
            "roc_auc >= reference", y_true="y", y_score="s", reference=_REFERENCE.drop("y")
        )


def test_drift_rules_take_no_weight() -> None:
    df = pl.DataFrame({"s": [0.2, 0.8], "w": [1.0, 2.0]})
    with pytest.raises(ValueError, match="takes no `weight`"):
        df.metrics.check("psi(s) < 0.2", weight="w", reference=df, ci=None)


def test_lazy_stays_lazy_and_equals_eager(tmp_path: Path) -> None:
    df = _segments()
    rules = ["roc_auc >= 0.7", "psi(s) < 0.3"]
    eager = df.metrics.check(rules, y_true="y", y_score="s", by="g", reference=df.head(500))
    path = tmp_path / "rows.parquet"
    df.write_parquet(path)
    lazy = pl.scan_parquet(path).metrics.check(
        rules, y_true="y", y_score="s", by="g", reference=df.head(500).lazy()
    )
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(engine="streaming"), eager)


def test_by_may_take_the_names_the_inner_methods_write() -> None:
    """A segment named like over_time's or drift's columns is just a segment."""
    df = _segments().rename({"g": "window_start"}).with_columns(column=pl.lit("x"))
    out = df.metrics.check(
        ["roc_auc >= 0.7", "psi(s) < 1"],
        y_true="y",
        y_score="s",
        by=["window_start", "column"],
        reference=df,
    )
    assert out.columns[:2] == ["window_start", "column"]
    assert out.height == 6
    with pytest.raises(ValueError, match="collides"):
        df.rename({"column": "status"}).metrics.check(
            "roc_auc >= 0.7", y_true="y", y_score="s", by="status"
        )


# ---------------------------------------------------------------------------- the CLI
@pytest.fixture
def rows_file(tmp_path: Path) -> Path:
    path = tmp_path / "rows.parquet"
    _segments().write_parquet(path)
    return path


def test_cli_exit_status_and_json(
    rows_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """0 when no row fails (inconclusive included), 1 when one does, 2 on bad input
    (one line on stderr naming the rule / the column); ``--format json`` writes the
    frame's rows."""
    from pl_metrics import cli

    base = [str(rows_file), "--y-true", "y", "--score", "s", "--by", "g"]
    assert cli.main(["check", *base, "--rule", "roc_auc >= 0.5", "--format", "json"]) == 0
    passed = json.loads(capsys.readouterr().out)
    expected = _segments().metrics.check("roc_auc >= 0.5", y_true="y", y_score="s", by="g")
    assert passed == expected.to_dicts()
    assert cli.main(["check", *base, "--rule", "roc_auc > 0.6", "--rule", "ks > 0"]) == 1
    table = capsys.readouterr().out
    assert "fail" in table
    assert "inconclusive" in table
    out = tmp_path / "gate.json"
    status = cli.main(["check", *base, "--rule", "roc_auc >= 0.7", "-o", str(out), "--ci", "none"])
    assert status == 1  # c's AUC is below 0.7: written, and the exit status says it
    rows = json.loads(out.read_text())
    df = _segments()
    aucs = [roc_auc_score(*df.filter(pl.col("g") == g).select("y", "s")) for g in "abc"]
    assert [r["status"] for r in rows] == ["pass" if a >= 0.7 else "fail" for a in aucs]
    assert "low" not in rows[0]
    capsys.readouterr()
    for args, named in [
        (["--rule", "roc_auc >= high"], "rule 'roc_auc >= high'"),
        (["--rule", "rocauc >= 0.5"], "unknown metric 'rocauc'"),
        (["--rule", "psi(s) < 0.2"], "needs `reference`"),
    ]:
        assert cli.main(["check", *base, *args]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert named in err
    assert (
        cli.main(["check", str(rows_file), "--y-true", "t", "--score", "s", "--rule", "ks > 0"])
        == 2
    )
    assert "'t'" in capsys.readouterr().err


def test_cli_reference_file(rows_file: Path, tmp_path: Path) -> None:
    """``--reference-file``: the reference rows of another file, as the method's frame."""
    from pl_metrics import cli

    reference = tmp_path / "reference.parquet"
    _segments().head(500).write_parquet(reference)
    out = tmp_path / "gate.parquet"
    args = ["--y-true", "y", "--score", "s", "--by", "g", "--reference-file", str(reference)]
    rules = ["--rule", "roc_auc >= reference - 0.1", "--rule", "psi(s) < 0.2"]
    assert cli.main(["check", str(rows_file), *args, *rules, "-o", str(out)]) in (0, 1)
    expected = _segments().metrics.check(
        ["roc_auc >= reference - 0.1", "psi(s) < 0.2"],
        y_true="y",
        y_score="s",
        by="g",
        reference=_segments().head(500),
    )
    assert_frame_equal(pl.read_parquet(out), expected)


# ---------------------------------------------------------------------------- the report
def _rounded(page: str) -> str:
    return re.sub(r"\d+\.\d{9,}", lambda m: f"{float(m.group()):.9g}", page)


def _section(page: str) -> str:
    found = re.search(r'<section id="checks">.*?</section>', page, flags=re.DOTALL)
    assert found is not None
    return found.group()


def test_html_report_shows_failing_and_inconclusive_checks_first(tmp_path: Path) -> None:
    df = _segments().with_columns((1 / (1 + (-pl.col("s")).exp())).alias("s"))  # probabilities
    rules = ["roc_auc >= 0.7", "psi(s) < 0.05", "roc_auc >= reference - 0.5"]
    reference = df.sample(fraction=0.5, seed=1)
    page = df.metrics.html_report("y", y_score="s", by="g", rules=rules, reference=reference)
    table = df.metrics.check(rules, y_true="y", y_score="s", by="g", reference=reference)
    # above the headline cards and every other section
    assert page.index('<section id="checks">') < page.index('id="headline"')
    section = _section(page)
    shown, folded = section.split("<details>")
    statuses = re.findall(r'data-col="status" data-kind="text" data-value="(\w+)"', shown)
    open_ = table.filter(pl.col("status") != "pass")
    assert statuses == sorted(open_["status"].to_list(), key=lambda s: s != "fail")
    passing = re.findall(r'data-col="status" data-kind="text" data-value="(\w+)"', folded)
    assert passing == ["pass"] * (table.height - open_.height)
    counts = {k: (table["status"] == k).sum() for k in ("fail", "inconclusive", "pass")}
    assert f"<strong>{counts['fail']} failing</strong>, {counts['inconclusive']} inconclusive" in (
        section
    )
    # the command line's page has the same section
    from pl_metrics import cli

    rows, ref, out = tmp_path / "rows.parquet", tmp_path / "ref.parquet", tmp_path / "page.html"
    df.write_parquet(rows)
    reference.write_parquet(ref)
    args = ["--y-true", "y", "--score", "s", "--by", "g", "--reference-file", str(ref)]
    args += [a for rule in rules for a in ("--rule", rule)]
    assert cli.main(["html", str(rows), *args, "-o", str(out)]) == 0
    # the same numbers but for the last bits of sums over another file's batches
    assert _rounded(_section(out.read_text(encoding="utf-8"))) == _rounded(section)
    with pytest.raises(ValueError, match="unknown metric 'auc'"):
        df.metrics.html_report("y", y_score="s", rules="auc > 0.5")


@pytest.mark.parametrize("ci", [None, 0.95])
def test_an_undefined_binary_metric_is_inconclusive_never_a_pass(ci: float | None) -> None:
    # segment a has no negatives: its false positive rate and specificity (fp / (fp +
    # tn), tn / (tn + fp)) divide by 0; scikit-learn and over_time say 0.0, which a
    # `<= 0.05` gate would pass. Its recall is 3 / 4 (by hand).
    df = pl.DataFrame(
        {"g": ["a"] * 4 + ["b"] * 4, "y": [1, 1, 1, 1, 0, 1, 0, 1], "p": [1, 1, 0, 1, 0, 1, 1, 1]}
    )
    rules = ["false_positive_rate <= 0.05", "specificity >= 0.5", "recall >= 0.5"]
    out = df.metrics.check(rules, y_true="y", y_pred="p", by="g", ci=ci)
    a = out.filter(pl.col("g") == "a")
    assert a["status"].to_list()[:2] == ["inconclusive", "inconclusive"]
    assert all(math.isnan(v) for v in a["value"].to_list()[:2])
    assert a["value"][2] == 0.75
    # segment b: 1 false positive of 2 negatives (by hand: 0.5), defined as before
    b = out.filter(pl.col("g") == "b")
    assert b["value"].to_list()[:2] == [0.5, 0.5]
    assert b["status"][0] == "fail"
