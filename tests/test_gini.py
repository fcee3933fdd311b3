"""gini (Somers' D, 2 x ROC AUC - 1): scikit-learn's ``roc_auc_score`` is the oracle of
its value on every path that offers ``roc_auc``; its intervals, error bound,
replicates and paired differences are roc_auc's mapped (``catalogue.Affine``), which
the tests of roc_auc check against their own oracles."""

from __future__ import annotations

import datetime as dt

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import roc_auc_score

import pl_metrics as plm
from pl_metrics import DataError
from pl_metrics._core import catalogue


def _sk_gini(y: np.ndarray, s: np.ndarray, w: np.ndarray | None = None, **kw: object) -> float:
    if len(np.unique(y)) < 2:
        return float("nan")
    return 2.0 * roc_auc_score(y, s, sample_weight=w, **kw) - 1.0


@st.composite
def _binary_frames(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(1, 60))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    # few distinct scores: ties
    s = draw(st.lists(st.integers(0, 6).map(lambda k: k / 6), min_size=n, max_size=n))
    g = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    w = draw(
        st.lists(
            st.one_of(st.just(0.0), st.floats(0.01, 5.0), st.just(1e12)), min_size=n, max_size=n
        )
    )
    return pl.DataFrame({"y": y, "s": s, "g": g, "w": w})


@settings(max_examples=60, deadline=None)
@given(_binary_frames(), st.booleans())
def test_gini_is_twice_sklearns_auc_minus_one(df: pl.DataFrame, weighted: bool) -> None:
    weight = "w" if weighted else None
    if weighted:  # rows of weight 0 are rows removed
        df = df.filter(pl.col("w") > 0)
    if df.is_empty():  # no rows (every weight 0): no segment, as every method
        assert df.metrics.gini("y", "s", by="g", weight=weight).is_empty()
        return
    if not (df["y"] == 1).any():  # pos_label absent from the whole input: roc_auc's error
        with pytest.raises(DataError, match="`pos_label`=1 does not occur in column 'y'"):
            df.metrics.gini("y", "s", by="g", weight=weight)
        return
    got = df.metrics.gini("y", "s", by="g", weight=weight).sort("g")
    for g, value in got.iter_rows():
        part = df.filter(pl.col("g") == g)
        w = part["w"].to_numpy() if weighted else None
        expected = _sk_gini(part["y"].to_numpy(), part["s"].to_numpy(), w)
        if np.isnan(expected):
            assert value is None or np.isnan(value), (g, value)
        else:
            assert value == pytest.approx(expected, rel=1e-9, abs=1e-12), g
    # the expression, per group
    if not weighted:
        expr = df.group_by("g").agg(plm.gini("y", "s")).sort("g")
        assert_frame_equal(expr, got, check_exact=False, rel_tol=1e-12)


def test_hand_computed_value() -> None:
    # positives 0.35, 0.8; negatives 0.1, 0.4: 3 of 4 pairs ordered, AUC 0.75, gini 0.5
    df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
    assert df.metrics.gini("y", "s")["gini"].item() == 0.5
    assert df.select(plm.gini("y", "s")).item() == 0.5


@pytest.mark.parametrize("average", ["macro", "weighted", None])
def test_one_vs_rest(average: str | None) -> None:
    rng = np.random.default_rng(4)
    n = 400
    y = rng.integers(0, 3, n)
    p = rng.dirichlet([1, 1, 1], n).round(2)
    df = pl.DataFrame({"y": y, "q0": p[:, 0], "q1": p[:, 1], "q2": p[:, 2]})
    got = df.metrics.gini("y", {0: "q0", 1: "q1", 2: "q2"}, average=average)
    if average is None:
        for label, value in got.select("label", "gini").iter_rows():
            expected = _sk_gini((y == label).astype(int), p[:, label])
            assert value == pytest.approx(expected, rel=1e-12)
    else:
        probs = p / p.sum(axis=1, keepdims=True)
        expected = 2 * roc_auc_score(y, probs, multi_class="ovr", average=average) - 1
        # the scores as given (rows need not sum to 1 here): compare to the mapped AUC
        auc = df.metrics.roc_auc("y", {0: "q0", 1: "q1", 2: "q2"}, average=average)
        assert got["gini"].item() == pytest.approx(2 * auc["roc_auc"].item() - 1, rel=1e-12)
        if np.allclose(p.sum(axis=1), 1.0):
            assert got["gini"].item() == pytest.approx(expected, rel=1e-9)


def test_partial_area_bins_and_intervals_are_rocs_mapped() -> None:
    rng = np.random.default_rng(5)
    n = 2000
    y = rng.integers(0, 2, n)
    s = np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1)
    df = pl.DataFrame({"y": y, "s": s, "g": rng.integers(0, 3, n)})
    partial = df.metrics.gini("y", "s", max_fpr=0.3)["gini"].item()
    assert partial == pytest.approx(_sk_gini(y, s, max_fpr=0.3), rel=1e-9)
    binned = df.metrics.gini("y", "s", bins=20)
    auc_binned = df.metrics.roc_auc("y", "s", bins=20)
    assert binned["gini"].item() == pytest.approx(2 * auc_binned["roc_auc"].item() - 1)
    assert binned["gini_error_bound"].item() == pytest.approx(
        2 * auc_binned["roc_auc_error_bound"].item()
    )
    for method in ("delong", "bootstrap"):
        got = df.metrics.gini("y", "s", by="g", ci=0.9, ci_method=method, n_boot=200)
        auc = df.metrics.roc_auc("y", "s", by="g", ci=0.9, ci_method=method, n_boot=200)
        mapped = auc.select(
            "g",
            *(pl.col(f"roc_auc{x}").mul(2).sub(1).alias(f"gini{x}") for x in ("", "_low", "_high")),
        )
        assert_frame_equal(got.sort("g"), mapped.sort("g"), check_exact=False, rel_tol=1e-12)


def test_by_names() -> None:
    df = pl.DataFrame({"y": [0, 1, 0, 1, 0, 1], "s": [0.1, 0.9, 0.4, 0.3, 0.2, 0.8]})
    df = df.with_columns(roc_auc=pl.Series([1, 1, 1, 2, 2, 2]))
    # a segment named as roc_auc's output is a segment like any other
    got = df.metrics.gini("y", "s", by="roc_auc").sort("roc_auc")
    assert got.columns == ["roc_auc", "gini"]
    # by hand: segment 1 positive 0.9 above negatives 0.1, 0.4; segment 2 positives
    # 0.3, 0.8 above negative 0.2: both AUCs 1, both ginis 1
    assert got["gini"].to_list() == [1.0, 1.0]
    with pytest.raises(ValueError, match="`by` column 'gini' collides"):
        df.metrics.gini("y", "s", by=pl.col("roc_auc").alias("gini"))
    # the merged state's finisher: the same frame, the same by rules
    state = plm.from_score_counts(df.metrics.score_counts("y", "s", by="roc_auc"), by="roc_auc")
    assert_frame_equal(state.gini().sort("roc_auc"), got)
    with pytest.raises(ValueError, match="`by` column 'gini' collides"):
        plm.from_score_counts(
            df.rename({"roc_auc": "gini"}).metrics.score_counts("y", "s", by="gini"), by="gini"
        ).gini()
    empty = df.clear().metrics.gini("y", "s", by="roc_auc")
    assert empty.height == 0
    assert empty.columns == ["roc_auc", "gini"]


def test_over_time_compare_and_compare_models() -> None:
    rng = np.random.default_rng(6)
    n = 1500
    y = rng.integers(0, 2, n)
    a, b = rng.random(n) + 0.3 * y, rng.random(n) + 0.6 * y
    day = [dt.date(2026, 1, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 14, n)]
    df = pl.DataFrame({"y": y, "a": a, "b": b, "g": rng.integers(0, 2, n), "day": day})
    windows = df.metrics.over_time(
        "y", y_score="a", index="day", every="1w", metrics=["roc_auc", "gini"], ci=0.9
    )
    auc = windows.filter(pl.col("metric") == "roc_auc").drop("metric")
    gini = windows.filter(pl.col("metric") == "gini").drop("metric")
    for c in ("value", "low", "high"):
        assert gini[c].to_list() == pytest.approx((2 * auc[c] - 1).to_list(), rel=1e-12)
    start, end = gini.row(0)[:2]
    first = df.filter((pl.col("day") >= start) & (pl.col("day") < end))
    assert gini["value"][0] == pytest.approx(_sk_gini(first["y"].to_numpy(), first["a"].to_numpy()))

    # compare: the point per group is the oracle's, the bootstrap's p-value roc_auc's
    cg = df.metrics.compare("y", "a", metric="gini", by="g", ci=0.9, n_boot=200).sort("g")
    ca = df.metrics.compare("y", "a", metric="roc_auc", by="g", ci=0.9, n_boot=200).sort("g")
    for g, value in cg.select("g", "value").iter_rows():
        part = df.filter(pl.col("g") == g)
        assert value == pytest.approx(_sk_gini(part["y"].to_numpy(), part["a"].to_numpy()))
    assert cg["p_value"].to_list() == ca["p_value"].to_list()
    assert cg["diff"].to_list() == pytest.approx((2 * ca["diff"]).to_list(), rel=1e-12)

    # compare_models: DeLong's test of the AUCs; values, differences and bounds mapped
    mg = df.metrics.compare_models("y", ["a", "b"], metric="gini")
    ma = df.metrics.compare_models("y", ["a", "b"], metric="roc_auc")
    assert mg["metric"].to_list() == ["gini"]
    assert mg["value"].item() == pytest.approx(_sk_gini(y, b))
    assert mg["baseline_value"].item() == pytest.approx(_sk_gini(y, a))
    assert mg["diff"].item() == pytest.approx(_sk_gini(y, b) - _sk_gini(y, a))
    for c in ("low", "high"):
        assert mg[c].item() == pytest.approx(2 * ma[c].item(), rel=1e-12)
    assert mg["p_value"].item() == pytest.approx(ma["p_value"].item(), rel=1e-9)


def test_metric_names() -> None:
    assert plm.metric_names("ranking") == ["roc_auc", "gini", "average_precision", "ks"]
    assert plm.metric_names() == list(catalogue.CATALOGUE)
    assert set(plm.metric_names("averaged")) >= {"f1_macro", "jaccard_weighted"}
    with pytest.raises(ValueError, match="`family` must be None or one of"):
        plm.metric_names("rankings")
    # each derived metric's base is in the catalogue, and offered where it is
    for name, m in catalogue.CATALOGUE.items():
        if m.derived is not None:
            base = catalogue.CATALOGUE[m.derived.base]
            assert (base.over_time, base.compare) >= (m.over_time, m.compare), name
            assert set(m.paired) <= set(base.paired), name
