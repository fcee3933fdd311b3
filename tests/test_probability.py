"""Probability metrics and threshold analysis against scikit-learn (a one-hot
``y_true``: ``test_probability_one_hot.py``)."""

from __future__ import annotations

import math
import re
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

import pl_metrics as plm

PROBS = st.sampled_from([0.0, 0.05, 0.2, 0.2, 0.5, 0.75, 0.9, 1.0])  # ties, 0 and 1, edges


@st.composite
def binary(draw: st.DrawFn, probs=PROBS) -> dict:
    n = draw(st.integers(1, 50))
    data = {
        "y": oracle.with_a_positive(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))),
        "p": draw(st.lists(probs, min_size=n, max_size=n)),
    }
    by: list[str] = []
    if draw(st.booleans()):
        data["g"] = draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
        by = ["g"]
    weighted = draw(st.booleans())
    if weighted:
        data["w"] = draw(st.lists(st.sampled_from([0.25, 0.5, 1.0, 2.0]), min_size=n, max_size=n))
    return {"df": pl.DataFrame(data), "by": by, "weight": "w" if weighted else None}


def _kw(case: dict) -> dict:
    return {"by": case["by"] or None, "weight": case["weight"]}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary(), normalize=st.booleans())
def test_log_loss_and_brier_equal_sklearn(case: dict, normalize: bool) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y, p = seg["y"].to_numpy(), seg["p"].to_numpy()
        ll = skm.log_loss(
            y, p, labels=[0, 1], normalize=normalize, **oracle.sample_weight(seg, case["weight"])
        )
        brier = skm.brier_score_loss(y, p, pos_label=1, **oracle.sample_weight(seg, case["weight"]))
        return pl.DataFrame({"log_loss": [ll], "brier_score": [brier]})

    expected = oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])
    got_ll = case["df"].metrics.log_loss("y", "p", normalize=normalize, **_kw(case))
    got_b = case["df"].metrics.brier_score("y", "p", **_kw(case))
    keys = case["by"]
    oracle.assert_close(got_ll, expected.select(*keys, "log_loss"))
    oracle.assert_close(got_b, expected.select(*keys, "brier_score"))


@st.composite
def multiclass(draw: st.DrawFn) -> pl.DataFrame:
    k = draw(st.integers(3, 4))
    n = draw(st.integers(k, 40))
    y = [*range(k), *draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))]
    raw = (
        np.array(
            draw(
                st.lists(
                    st.lists(st.integers(0, 4), min_size=k, max_size=k), min_size=n, max_size=n
                )
            ),
            dtype=float,
        )
        + np.eye(k)[y] * 0.5
    )
    proba = raw / raw.sum(axis=1, keepdims=True)
    return pl.DataFrame({"y": y} | {f"p{i}": proba[:, i] for i in range(k)})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=multiclass(), k=st.integers(1, 3))
def test_multiclass_log_loss_brier_top_k_equal_sklearn(df: pl.DataFrame, k: int) -> None:
    columns = sorted(c for c in df.columns if c != "y")
    labels = list(range(len(columns)))
    mapping = {i: f"p{i}" for i in labels}
    y, proba = df["y"].to_numpy(), df.select(columns).to_numpy()
    assert df.metrics.log_loss("y", mapping)["log_loss"][0] == pytest.approx(
        skm.log_loss(y, proba, labels=labels), rel=1e-9
    )
    assert df.metrics.brier_score("y", mapping)["brier_score"][0] == pytest.approx(
        skm.brier_score_loss(y, proba, labels=labels), rel=1e-9
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected_top_k = skm.top_k_accuracy_score(y, proba, k=k, labels=labels)
    got = df.metrics.top_k_accuracy("y", mapping, k=k)["top_k_accuracy"][0]
    assert got == pytest.approx(expected_top_k, rel=1e-12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=binary(probs=st.one_of(PROBS, st.floats(0, 1))),
    n_bins=st.integers(1, 8),
    strategy=st.sampled_from(["uniform", "quantile"]),
)
def test_calibration_curve_equals_sklearn(case: dict, n_bins: int, strategy: str) -> None:
    case = case | {"weight": None}  # scikit-learn's calibration_curve has no weights

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y, p = seg["y"].to_numpy(), seg["p"].to_numpy()
        prob_true, prob_pred = calibration_curve(
            y, p, n_bins=n_bins, strategy=strategy, pos_label=1
        )
        return pl.DataFrame({"prob_true": prob_true, "prob_pred": prob_pred})

    got = case["df"].metrics.calibration_curve(
        "y", "p", n_bins=n_bins, strategy=strategy, **_kw(case)
    )
    expected = oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])
    oracle.assert_close(got.select(*case["by"], "prob_true", "prob_pred"), expected)
    # ECE / MCE by hand from the same bins: count-weighted mean and max of the gaps
    err = case["df"].metrics.calibration_error(
        "y", "p", n_bins=n_bins, strategy=strategy, **_kw(case)
    )
    gap = (got["prob_true"] - got["prob_pred"]).abs()
    if not case["by"]:
        ece = float((gap * got["count"]).sum() / got["count"].sum())
        assert err["ece"][0] == pytest.approx(ece, rel=1e-12, abs=1e-15)
        assert err["mce"][0] == pytest.approx(float(gap.max()), rel=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=binary(probs=st.one_of(PROBS, st.floats(0, 1))),
    n_bins=st.integers(1, 6),
    ci=st.sampled_from([0.9, 0.95]),
)
def test_calibration_curve_intervals_are_wilsons(case: dict, n_bins: int, ci: float) -> None:
    """``ci=``: each bin's prob_true_low / high is statsmodels' Wilson interval of its
    positives among its rows (the rows with the bin's scores, counted here); the
    rest of the frame is the one without ``ci``; a weight is refused."""
    from statsmodels.stats.proportion import proportion_confint

    case = case | {"weight": None}
    kw = {"n_bins": n_bins, **_kw(case)}
    got = case["df"].metrics.calibration_curve("y", "p", ci=ci, **kw)
    plain = case["df"].metrics.calibration_curve("y", "p", **kw)
    assert_frame_equal(got.drop("prob_true_low", "prob_true_high"), plain)
    edges = np.linspace(0, 1, n_bins + 1)[1:-1]
    df = case["df"].with_columns(
        pl.Series("bin", np.searchsorted(edges, case["df"]["p"].to_numpy(), side="left"))
    )
    keys = [*case["by"], "bin"]
    counted = df.group_by(keys).agg(
        (pl.col("y") == 1).sum().alias("positives"), pl.len().alias("n")
    )
    joined = got.join(counted, on=keys, how="left", nulls_equal=True)
    assert joined["n"].to_list() == got["count"].to_list()
    low, high = proportion_confint(
        joined["positives"].to_numpy(), joined["n"].to_numpy(), alpha=1 - ci, method="wilson"
    )
    np.testing.assert_allclose(got["prob_true_low"].to_numpy(), low, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got["prob_true_high"].to_numpy(), high, rtol=1e-9, atol=1e-12)
    assert (got["prob_true_low"] <= got["prob_true"]).all()
    assert (got["prob_true"] <= got["prob_true_high"]).all()
    with pytest.raises(ValueError, match="un-weighted"):
        case["df"].with_columns(w=1.0).metrics.calibration_curve("y", "p", ci=ci, weight="w")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary(), beta=st.sampled_from([1.0, 2.0]), zd=st.sampled_from([0.0, 1.0]))
def test_threshold_sweep_equals_metrics_at_each_threshold(
    case: dict, beta: float, zd: float
) -> None:
    df, weight = case["df"], case["weight"]
    sweep = df.metrics.thresholds("y", "p", beta=beta, zero_division=zd, **_kw(case))
    f = "f1" if beta == 1 else f"f{beta:g}"
    for row in sweep.iter_rows(named=True):
        seg = df.filter(pl.col("g") == row["g"]) if case["by"] else df
        y = seg["y"].to_numpy()
        pred = (seg["p"] >= row["threshold"]).cast(pl.Int64).to_numpy()
        kw = oracle.sample_weight(seg, weight)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tn, fp, fn, tp = skm.confusion_matrix(y, pred, labels=[0, 1], **kw).ravel()
            # both classes' scores in one call (what precision_score, recall_score and
            # fbeta_score compute for their pos_label=1): class 1's precision, recall
            # and F-beta; specificity = the recall of class 0
            precision, recall, fbeta, _ = skm.precision_recall_fscore_support(
                y, pred, beta=beta, labels=[0, 1], zero_division=zd, **kw
            )
            expected = {
                "tp": tp,
                "fp": fp,
                "fn": fn,
                "tn": tn,
                "precision": precision[1],
                "recall": recall[1],
                f: fbeta[1],
                "accuracy": skm.accuracy_score(y, pred, **kw),
                "mcc": skm.matthews_corrcoef(y, pred, **kw),
                "specificity": recall[0],
            }
        for name, value in expected.items():
            assert row[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary(probs=st.one_of(PROBS, st.floats(0, 1))), drop=st.booleans())
def test_det_curve_equals_sklearn(case: dict, drop: bool) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        schema = {"threshold": pl.Float64, "fpr": pl.Float64, "fnr": pl.Float64}
        if seg["y"].n_unique() < 2:
            return pl.DataFrame(schema=schema)  # scikit-learn raises; no rows here
        fpr, fnr, thr = skm.det_curve(
            seg["y"], seg["p"], drop_intermediate=drop, **oracle.sample_weight(seg, case["weight"])
        )
        return pl.DataFrame({"threshold": thr, "fpr": fpr, "fnr": fnr}, schema=schema)

    got = case["df"].metrics.det_curve("y", "p", drop_intermediate=drop, **_kw(case))
    expected = oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])
    if expected is None or expected.height == 0:
        assert got.height == 0
    else:
        oracle.assert_close(got, expected)


def test_best_threshold_with_a_constraint() -> None:
    df = pl.DataFrame(
        {
            "g": ["a"] * 6 + ["b"] * 4,
            "y": [1, 1, 0, 1, 0, 0, 1, 0, 1, 0],
            "p": [0.9, 0.8, 0.7, 0.6, 0.3, 0.1, 0.9, 0.8, 0.2, 0.1],
        }
    )
    best = df.metrics.best_threshold(
        "y", "p", by="g", metric="precision", where=pl.col("recall") >= 1.0
    )
    sweep = df.metrics.thresholds("y", "p", by="g")
    for g, threshold in best.select("g", "threshold").iter_rows():
        allowed = sweep.filter((pl.col("g") == g) & (pl.col("recall") >= 1.0))
        top = allowed["precision"].max()
        # the highest threshold among the best
        assert threshold == allowed.filter(pl.col("precision") == top)["threshold"].max()
    assert best["g"].to_list() == ["a", "b"]
    none = df.metrics.best_threshold("y", "p", metric="f1", where=pl.col("precision") > 1.0)
    assert none.height == 0


def test_threshold_report_equals_report_of_thresholded_predictions() -> None:
    rng = np.random.default_rng(2)
    df = pl.DataFrame({"y": rng.choice(["spam", "ham"], 500), "s": np.round(rng.random(500), 2)})
    got = df.metrics.threshold_report("y", "s", threshold=0.37, pos_label="spam", neg_label="ham")
    pred = df.with_columns(
        pl.when(pl.col("s") >= 0.37).then(pl.lit("spam")).otherwise(pl.lit("ham")).alias("pred")
    )
    oracle.assert_close(got, pred.metrics.report("y", "pred"))
    # neg_label: the other label of y_true (issue 26; it was required for strings)
    inferred = df.metrics.threshold_report("y", "s", threshold=0.37, pos_label="spam")
    oracle.assert_close(inferred, got)
    bad = df.with_columns(pl.when(pl.col("s") > 0.9).then(None).otherwise(pl.col("s")).alias("s"))
    with pytest.raises(plm.DataError, match="column 's' has"):
        bad.metrics.threshold_report("y", "s", pos_label="spam", neg_label="ham")


@pytest.mark.parametrize(
    ("labels", "pos_label"), [((0, 1), 0), ((0, 1), None), ((-1, 1), None), ((1, 2), 2)]
)
def test_threshold_report_infers_neg_label(labels: tuple[int, int], pos_label: int | None) -> None:
    """Issue 26: pos_label=0 on {0, 1} said "`neg_label` must differ from `pos_label`", an
    argument never passed; {-1, 1} and {1, 2} said their labels were not the default
    neg_label 0.  The negative class is the other label of y_true, as in the binary
    methods; every number from scikit-learn on the thresholded predictions."""
    rng = np.random.default_rng(6)
    y = rng.choice(labels, 300)
    s = np.round(rng.random(300), 2)
    df = pl.DataFrame({"y": y, "s": s})
    pos = 1 if pos_label is None else pos_label
    neg = next(label for label in labels if label != pos)
    got = df.metrics.threshold_report("y", "s", threshold=0.4, pos_label=pos_label)
    predicted = np.where(s >= 0.4, pos, neg)
    p, r, f, n = skm.precision_recall_fscore_support(y, predicted, labels=sorted(labels))
    rows = got.filter(pl.col("average").is_null())
    assert rows["label"].to_list() == sorted(labels)
    np.testing.assert_allclose(rows["precision"], p, rtol=1e-12)
    np.testing.assert_allclose(rows["recall"], r, rtol=1e-12)
    np.testing.assert_allclose(rows["f1"], f, rtol=1e-12)
    assert rows["support"].to_list() == n.tolist()


def test_threshold_report_refuses_what_it_cannot_infer() -> None:
    """neg_label is inferred only from exactly one label besides pos_label (rows of
    weight 0 do not count); the default pos_label 1 only on {0, 1} or {-1, 1}."""
    s = [0.1, 0.9, 0.4, 0.6, 0.5]
    df = pl.DataFrame({"y": [1, 2, 1, 2, 3], "s": s, "w": [1, 1, 1, 1, 0]})
    with pytest.raises(plm.DataError, match=r"`neg_label` is not given .* \[1, 2, 3\]"):
        df.metrics.threshold_report("y", "s", pos_label=2)
    weighted = df.metrics.threshold_report("y", "s", pos_label=2, weight="w")
    explicit = df.metrics.threshold_report("y", "s", pos_label=2, neg_label=1, weight="w")
    oracle.assert_close(weighted, explicit)
    with pytest.raises(plm.DataError, match="pass `pos_label`"):
        df.filter(pl.col("y") < 3).metrics.threshold_report("y", "s")
    only = pl.DataFrame({"y": ["spam"] * 5, "s": s})
    with pytest.raises(plm.DataError, match=r"`neg_label` is not given .* \['spam'\]"):
        only.metrics.threshold_report("y", "s", pos_label="spam")
    with pytest.raises(plm.DataError, match="`neg_label` is not given"):
        pl.DataFrame({"y": [0] * 5, "s": s}).metrics.threshold_report("y", "s", pos_label=0)
    # numbers with only pos_label 1: the default 0, as before (a class of no rows)
    ones = pl.DataFrame({"y": [1] * 5, "s": s}).metrics.threshold_report("y", "s")
    assert ones.filter(pl.col("average").is_null())["label"].to_list() == [0, 1]


def test_threshold_report_on_booleans_defaults_to_true_vs_false() -> None:
    """Boolean labels need no pos_label / neg_label (True vs False); this raised a raw
    polars error ('is_in' cannot check for Int64 values in List(Boolean) data)."""
    rng = np.random.default_rng(4)
    df = pl.DataFrame({"y": rng.random(300) < 0.4, "s": np.round(rng.random(300), 2)})
    got = df.metrics.threshold_report("y", "s", threshold=0.5)
    explicit = df.metrics.threshold_report("y", "s", threshold=0.5, pos_label=True, neg_label=False)
    oracle.assert_close(got, explicit)
    pred = df.with_columns((pl.col("s") >= 0.5).alias("pred"))
    oracle.assert_close(got, pred.metrics.report("y", "pred"))
    recall = skm.recall_score(df["y"].to_numpy(), pred["pred"].to_numpy())
    assert got.filter(pl.col("label") == 1)["recall"].item() == pytest.approx(recall, rel=1e-12)


def test_probabilities_not_summing_to_1_show_how_to_renormalise() -> None:
    """Issue 26: the message names the fix, docs/faq.md's expression written with the
    user's columns; run as it is written, it gives scikit-learn's loss of the
    renormalised rows."""
    multi = pl.DataFrame(
        {"y": [0, 1, 2], "p a": [0.5, 0.2, 0.2], "b": [0.3, 0.7, 0.2], "c": [0.2, 0.2, 0.6]}
    )
    mapping = {0: "p a", 1: "b", 2: "c"}
    with pytest.raises(plm.DataError, match="renormalise them") as info:
        multi.metrics.log_loss("y", mapping)
    code = re.search(r"`(df\.with_columns\(.*\))`", str(info.value))
    assert code is not None, str(info.value)
    fixed = eval(code.group(1), {"pl": pl, "df": multi})  # the message's code, as written
    probs = multi.select("p a", "b", "c").to_numpy()
    expected = skm.log_loss(multi["y"], probs / probs.sum(axis=1, keepdims=True))
    assert fixed.metrics.log_loss("y", mapping).item() == pytest.approx(expected, rel=1e-12)


def test_bad_probabilities_are_clear_errors() -> None:
    df = pl.DataFrame({"y": [0, 1, 1], "p": [0.1, 1.2, math.nan]})
    for method in ("log_loss", "brier_score", "calibration_curve", "calibration_error"):
        with pytest.raises(
            plm.DataError, match=r"column 'p' has 2 null, NaN, infinite or out-of-\[0, 1\]"
        ):
            getattr(df.metrics, method)("y", "p")
    multi = pl.DataFrame(
        {"y": [0, 1, 2], "a": [0.5, 0.2, 0.2], "b": [0.3, 0.7, 0.2], "c": [0.2, 0.2, 0.6]}
    )
    with pytest.raises(
        plm.DataError, match="1 rows of the probabilities 'a', 'b', 'c' do not sum to 1"
    ):
        multi.metrics.log_loss("y", {0: "a", 1: "b", 2: "c"})
    with pytest.raises(plm.DataError, match="has 1 rows whose label has no score column"):
        multi.metrics.top_k_accuracy("y", {0: "a", 1: "b"})
    with pytest.raises(ValueError, match="`n_bins` must be an integer >= 1"):
        df.metrics.calibration_curve("y", "p", n_bins=0)
    with pytest.raises(ValueError, match="`strategy` must be one of"):
        df.metrics.calibration_curve("y", "p", strategy="kmeans")
    with pytest.raises(ValueError, match="`metric` must be one of"):
        df.metrics.best_threshold("y", "p", metric="auc")
    with pytest.raises(ValueError, match="`k` must be an integer >= 1"):
        multi.metrics.top_k_accuracy("y", {0: "a", 1: "b", 2: "c"}, k=0)


def test_lazy_and_streaming_equal_eager() -> None:
    rng = np.random.default_rng(8)
    df = pl.DataFrame(
        {
            "g": rng.integers(0, 3, 2000),
            "y": rng.integers(0, 2, 2000),
            "p": np.round(rng.random(2000), 3),
        }
    )
    for method in (
        "log_loss",
        "brier_score",
        "calibration_curve",
        "calibration_error",
        "thresholds",
        "det_curve",
    ):
        eager = getattr(df.metrics, method)("y", "p", by="g")
        lazy = getattr(df.lazy().metrics, method)("y", "p", by="g")
        assert isinstance(lazy, pl.LazyFrame)
        oracle.assert_close(lazy.collect(engine="streaming"), eager)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary())
def test_expressions_equal_sklearn(case: dict) -> None:
    df = case["df"].with_columns(pl.lit("all").alias("g")) if not case["by"] else case["df"]
    w = case["weight"]
    got = df.group_by("g").agg(
        plm.log_loss("y", "p", weight=w), plm.brier_score("y", "p", weight=w)
    )
    for g, ll, brier in got.iter_rows():
        seg = df.filter(pl.col("g") == g)
        y, p = seg["y"].to_numpy(), seg["p"].to_numpy()
        assert ll == pytest.approx(
            skm.log_loss(y, p, labels=[0, 1], **oracle.sample_weight(seg, w)), rel=1e-9
        )
        assert brier == pytest.approx(
            skm.brier_score_loss(y, p, pos_label=1, **oracle.sample_weight(seg, w)), rel=1e-9
        )
    bad = pl.DataFrame({"y": [0, 1], "p": [0.5, 1.5]})
    with pytest.raises(plm.DataError, match=r"column .p. has 1 null, NaN, infinite or out-of"):
        bad.select(plm.log_loss("y", "p"))


def test_quantile_bin_edges_are_numpys_to_the_last_bit() -> None:
    # An edge next to a data value decides the bin of that value: numpy's edge is
    # 0.19999999999999998 here, polars' quantile gave 0.2 (found by hypothesis).
    from pl_metrics._probability import _interpolated, _order_statistics

    rng = np.random.default_rng(0)
    for _ in range(500):
        x = np.round(rng.random(rng.integers(1, 30)), rng.integers(1, 3))
        q = rng.choice([rng.random(), 1 / 3, 2 / 3, 0.0, 1.0])
        rank = pl.col("x").rank("ordinal")  # the rows' counts of order statistics passed
        a, b = _order_statistics(pl.col("x"), q, rank)
        edge = _interpolated(a, b, pl.len(), q)
        ours = pl.DataFrame({"x": x}).select(edge).item()
        assert ours == np.quantile(x, q), (x, q)
    df = pl.DataFrame({"y": [0] * 4, "p": [0.05, 0.2, 0.2, 0.2]})
    ours = df.metrics.calibration_curve("y", "p", n_bins=3, strategy="quantile")
    prob_true, prob_pred = calibration_curve(df["y"], df["p"], n_bins=3, strategy="quantile")
    assert ours["prob_pred"].to_list() == prob_pred.tolist()
    assert ours["prob_true"].to_list() == prob_true.tolist()


def test_best_threshold_where_is_checked_at_the_call() -> None:
    """A misspelled column in ``where`` names ``where`` and the columns it may read (was
    polars' error at collect time, with a query plan of internal columns)."""
    df = pl.DataFrame({"y": [0, 1, 1, 0], "s": [0.1, 0.8, 0.6, 0.4], "g": ["a", "a", "b", "b"]})
    lazy = df.lazy().metrics
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"`where` expression .*recal"):
        lazy.best_threshold("y", "s", metric="precision", where=pl.col("recal") >= 0.9)
    with pytest.raises(TypeError, match="`where` must be a Boolean condition"):
        lazy.best_threshold("y", "s", metric="precision", where=pl.col("recall") * 2)
    by_segment = df.metrics.best_threshold(
        "y", "s", by="g", metric="precision", where=(pl.col("g") == "a") & (pl.col("recall") > 0)
    )
    assert by_segment["g"].to_list() == ["a"]


#: binary scores for top_k_accuracy: some segments in [0, 1] (threshold 0.5), some
#: beyond (threshold 0): 0.5 and 0 themselves are not above their threshold
TOP_K_SCORES = st.sampled_from([0.0, 0.2, 0.5, 0.5, 0.7, 1.0, -0.5, 1.5])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary(probs=TOP_K_SCORES), k=st.integers(1, 3), flip=st.booleans())
def test_top_k_accuracy_of_one_score_column_equals_sklearn(case: dict, k: int, flip: bool) -> None:
    """scikit-learn's 1-D ``y_score`` (the score of the greater label) per segment, on
    the rows of non-zero weight; ``pos_label=0`` is scikit-learn's on labels 1 - y."""
    df, weight = case["df"], case["weight"]
    pos = 0 if flip else 1
    got = df.metrics.top_k_accuracy("y", "p", k=k, pos_label=pos, **_kw(case))
    rows = df if weight is None else df.filter(pl.col("w") > 0)
    parts = rows.partition_by(case["by"], as_dict=True) if case["by"] else {(): rows}
    assert got.height == len(parts)
    for key, part in parts.items():
        coded = (part["y"] == pos).cast(pl.Int64).to_numpy()
        w = None if weight is None else part["w"].to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # k >= 2 classes: "meaningless", 1.0
            expected = skm.top_k_accuracy_score(
                coded, part["p"].to_numpy(), k=k, labels=[0, 1], sample_weight=w
            )
        value = got.filter(pl.col("g") == key[0]) if key else got
        assert value["top_k_accuracy"].item() == pytest.approx(expected, rel=1e-12)


def test_top_k_accuracy_of_one_column_threshold_and_pos_label() -> None:
    """By hand: scores beyond [0, 1] are thresholded at 0 (0.3 > 0: predicted 1, a hit
    for y = 1; -1 -> 0, a hit for y = 0; 2 -> 1, a miss for y = 0): 2 / 3; string
    labels need pos_label; a mapping refuses pos_label."""
    df = pl.DataFrame({"y": [1, 0, 0], "s": [0.3, -1.0, 2.0]})
    assert df.metrics.top_k_accuracy("y", "s", k=1)["top_k_accuracy"].item() == 2 / 3
    assert skm.top_k_accuracy_score(df["y"], df["s"], k=1) == 2 / 3
    text = df.with_columns(pl.col("y").replace_strict({1: "b", 0: "a"}))
    with pytest.raises(ValueError, match="pos_label"):
        text.metrics.top_k_accuracy("y", "s", k=1)
    got = text.metrics.top_k_accuracy("y", "s", k=1, pos_label="b")
    assert got["top_k_accuracy"].item() == 2 / 3
    with pytest.raises(ValueError, match="pos_label"):
        df.metrics.top_k_accuracy("y", {0: "s", 1: "s"}, k=1, pos_label=1)


def test_weighted_quantile_positions_on_an_integer_are_compared_exactly() -> None:
    # 8 rows at 1/3 and 2 at 1/2, weights 1, 1, 1, 1, 1, 3, 3, 3, 3, 3 (n = 10, W = 20):
    # cumulative normalised weights C n / W = 0.5, 1, 1.5, 2, 2.5, 4, 5.5, 7, 8.5, 10.
    # The 0.8 edge, numpy position 9 * 0.8 = 7.2, lies between order statistics 7 and
    # 8; the first cumulative weight above 7 is the 9th (8.5, not the 8th at exactly 7),
    # so both are 1/2 and the edge is 1/2; the other edges are 1/3.  A row on an edge
    # goes to the lower bin: the 1/3 rows in bin 0, the 1/2 rows in bin 3.  C / W * n
    # computed 7.000000000000001 for C = 14 and put the 1/2 rows in bin 4 (hypothesis)
    df = pl.DataFrame(
        {"y": [1] * 8 + [0] * 2, "s": [1 / 3] * 8 + [0.5] * 2, "w": [1] * 5 + [3] * 5}
    )
    for weight in ("w", pl.col("w").cast(pl.Float64)):
        frame = df.with_columns(weight.alias("w")) if isinstance(weight, pl.Expr) else df
        got = frame.metrics.calibration_curve("y", "s", weight="w", n_bins=5, strategy="quantile")
        assert got.select("bin", "prob_true", "count").rows() == [(0, 1.0, 14.0), (3, 0.0, 6.0)]
        # the weighted mean of 1/3 may round its last bit (the sum's order)
        assert got["prob_pred"].to_list() == pytest.approx([1 / 3, 0.5], rel=1e-15)
    # the same weights at other scales: whole ones beyond 2**53 in all, and powers of
    # two (exact: they change no product's rounding), from Int128 to floats
    for scale in (10**15, 2.0**-20, 2.0**20, 2.0**-1000, 2.0**1000, 0.5, 0.25):
        got = df.with_columns(pl.col("w") * scale).metrics.calibration_curve(
            "y", "s", weight="w", n_bins=5, strategy="quantile"
        )
        assert got["bin"].to_list() == [0, 3], scale


def test_weighted_quantile_bins_do_not_move_with_a_power_of_two() -> None:
    # weights 2**50 + 1, 2**50, 2**50 (n = 3): C n / W for the first row is
    # 3 (2**50 + 1) / (3 2**50 + 1) > 1, so it passes order statistic 1 and the
    # edges are 1/6 and 1/2: bins 0 and 2.  Times 2**-20 (no longer whole) or 2**20
    # (a total beyond 2**53) a rounding tolerance read it as a tie: bins 0, 1, 2
    # (a review helper)
    w = [2.0**50 + 1, 2.0**50, 2.0**50]
    for scale in (1.0, 2.0**-20, 2.0**20):
        df = pl.DataFrame({"y": [0, 1, 1], "s": [1 / 6, 1 / 2, 5 / 6], "w": w})
        got = df.with_columns(pl.col("w") * scale).metrics.calibration_curve(
            "y", "s", weight="w", n_bins=3, strategy="quantile"
        )
        assert got["bin"].to_list() == [0, 2], scale


@pytest.mark.parametrize("n_bins", [3, 4, 5, 6, 8, 10, 12])
def test_weighted_quantile_positions_of_whole_weights_near_2_53(n_bins: int) -> None:
    # whole weights summing just under 2**53 are compared exactly (Int128); C / W * n
    # in floats gave other bins than the definition (a review helper)
    w = [2.0**52, 1, 1, 1, 1, 2.0**51]
    p = np.array([0.05, 0.2, 0.35, 0.5, 0.65, 0.8])
    y = np.array([0, 1, 0, 1, 1, 0])
    df = pl.DataFrame({"y": y, "s": p, "w": w})
    got = df.metrics.calibration_curve("y", "s", weight="w", n_bins=n_bins, strategy="quantile")
    expected = oracle.calibration_bins(y, p, np.array(w), n_bins, "quantile")  # exact rationals
    assert got["bin"].to_list() == expected["bin"].to_list()


def test_equal_weights_of_any_size_give_the_unweighted_quantile_bins() -> None:
    # equal weights read as unweighted rows, exactly: 1e154 moved the edges
    # ([(0.6, 0.45), (1.0, 1.0)] for the unweighted [(2/3, 0.25), (2/3, 5/6)]), and a
    # total of 2**53 or more was refused; 1/6 (summing to 1) collapsed the bins
    df = pl.DataFrame({"y": [1, 1, 0, 1, 1, 0], "s": [0.25, 1.0, 0.5, 0.0, 0.75, 0.75]})
    for n_bins in (2, 3, 4):
        options = {"strategy": "quantile", "n_bins": n_bins}
        unweighted = df.metrics.calibration_curve("y", "s", **options)
        for w in (1.0, 0.1, 1 / 6, 1e154, 1e-300, 2.0**53, 3.0):
            heavy = df.with_columns(w=pl.lit(w)).metrics.calibration_curve(
                "y", "s", weight="w", **options
            )
            assert heavy["bin"].to_list() == unweighted["bin"].to_list()  # the same bins
            # the same means (a weighted mean may round its last bit otherwise)
            for column in ("prob_true", "prob_pred"):
                assert heavy[column].to_list() == pytest.approx(unweighted[column].to_list())
            error = df.with_columns(w=pl.lit(w)).metrics.calibration_error(
                "y", "s", weight="w", **options
            )
            expected = df.metrics.calibration_error("y", "s", **options).row(0)
            assert error.row(0) == pytest.approx(expected, rel=1e-12)
