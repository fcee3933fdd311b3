"""Ranking metrics against scikit-learn: AUC, AP, ROC and PR curves, per segment."""

from __future__ import annotations

import math
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.exceptions import SchemaError
from sklearn import metrics as skm

import pl_metrics as plm

SCORE_KINDS = {
    "tied": st.sampled_from([0.0, 0.5, 1.0]),
    "two_decimals": st.integers(0, 100).map(lambda i: i / 100),
    "continuous": st.floats(-5, 5, allow_nan=False, allow_infinity=False, width=64),
}


@st.composite
def binary_frames(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 50))
    kind = draw(st.sampled_from(list(SCORE_KINDS)))
    scores = draw(st.lists(SCORE_KINDS[kind], min_size=n, max_size=n))
    y = oracle.with_a_positive(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    data = {"y": y, "s": scores}
    by: list[str] = []
    if draw(st.booleans()):
        data["seg"] = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
        by = ["seg"]
    weighted = draw(st.booleans())
    if weighted:
        # dyadic weights: every partial sum is exact, so the curve's bends
        # (drop_intermediate) do not depend on the order of summation
        data["w"] = draw(st.lists(st.sampled_from([0.25, 0.5, 1.0, 2.0]), min_size=n, max_size=n))
    return {"df": pl.DataFrame(data), "by": by, "weight": "w" if weighted else None}


def _one_class(seg: pl.DataFrame) -> bool:
    return seg["y"].n_unique() < 2


def _expected(case: dict, build) -> pl.DataFrame:
    return oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])


def _kw(case: dict) -> dict:
    return {"by": case["by"] or None, "weight": case["weight"]}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary_frames(), how=st.sampled_from(oracle.RANKING_STRATEGIES))
def test_roc_auc_equals_sklearn(case: dict, how: str) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        if _one_class(seg):
            value = None  # scikit-learn raises: "Only one class present in y_true"
        else:
            value = skm.roc_auc_score(
                seg["y"], seg["s"], **oracle.sample_weight(seg, case["weight"])
            )
        return pl.DataFrame({"roc_auc": [value]}, schema={"roc_auc": pl.Float64})

    with oracle.ranking_strategy(how):
        got = case["df"].metrics.roc_auc("y", "s", **_kw(case))
    oracle.assert_close(got, _expected(case, build))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary_frames(), how=st.sampled_from(oracle.RANKING_STRATEGIES))
def test_average_precision_equals_sklearn(case: dict, how: str) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = skm.average_precision_score(
                seg["y"], seg["s"], **oracle.sample_weight(seg, case["weight"])
            )
        return pl.DataFrame({"average_precision": [value]})

    with oracle.ranking_strategy(how):
        got = case["df"].metrics.average_precision("y", "s", **_kw(case))
    oracle.assert_close(got, _expected(case, build))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary_frames(), drop=st.booleans())
def test_roc_curve_equals_sklearn(case: dict, drop: bool) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fpr, tpr, thr = skm.roc_curve(
                seg["y"],
                seg["s"],
                drop_intermediate=drop,
                **oracle.sample_weight(seg, case["weight"]),
            )
        return pl.DataFrame({"threshold": thr, "fpr": fpr, "tpr": tpr})

    got = case["df"].metrics.roc_curve("y", "s", drop_intermediate=drop, **_kw(case))
    oracle.assert_close(got, _expected(case, build))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary_frames())
def test_pr_curve_equals_sklearn(case: dict) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p, r, thr = skm.precision_recall_curve(
                seg["y"], seg["s"], **oracle.sample_weight(seg, case["weight"])
            )
        return pl.DataFrame(
            {"threshold": [*thr.tolist(), None], "precision": p, "recall": r},
            schema={"threshold": pl.Float64, "precision": pl.Float64, "recall": pl.Float64},
        )

    got = case["df"].metrics.pr_curve("y", "s", **_kw(case))
    oracle.assert_close(got, _expected(case, build))


def test_sklearn_toy_examples() -> None:
    # the examples of scikit-learn's roc_curve / roc_auc_score / average_precision docs
    df = pl.DataFrame({"y": [1, 1, 2, 2], "s": [0.1, 0.4, 0.35, 0.8]})
    fpr, tpr, thr = skm.roc_curve(df["y"], df["s"], pos_label=2)
    got = df.metrics.roc_curve("y", "s", pos_label=2)
    oracle.assert_close(got, pl.DataFrame({"threshold": thr, "fpr": fpr, "tpr": tpr}))
    got_auc = df.metrics.roc_auc("y", "s", pos_label=2)["roc_auc"][0]
    assert got_auc == pytest.approx(skm.roc_auc_score(df["y"] == 2, df["s"]), rel=1e-12)


def test_string_labels_need_pos_label() -> None:
    df = pl.DataFrame({"y": ["spam", "ham", "spam"], "s": [0.9, 0.2, 0.4]})
    with pytest.raises(ValueError, match="`pos_label` is required"):
        df.metrics.roc_auc("y", "s")
    got = df.metrics.roc_auc("y", "s", pos_label="spam")["roc_auc"][0]
    assert got == pytest.approx(
        skm.roc_auc_score(
            df["y"],
            df["s"],
        ),
        rel=1e-12,
    )


def test_single_class_segment_is_null_not_an_error() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y": [0, 1, 1, 1], "s": [0.2, 0.7, 0.1, 0.3]})
    got = df.metrics.roc_auc("y", "s", by="g")
    assert got["roc_auc"].to_list() == [1.0, None]
    ap = df.metrics.average_precision("y", "s", by="g")["average_precision"].to_list()
    assert ap == [1.0, 1.0]


@pytest.mark.parametrize("bad", [None, math.nan, math.inf])
def test_bad_scores_are_counted(bad: float | None) -> None:
    df = pl.DataFrame({"y": [0, 1, 1], "s": [0.1, bad, bad]})
    for method in ("roc_auc", "average_precision", "roc_curve", "pr_curve"):
        with pytest.raises(plm.DataError, match=r"column 's' \(argument `y_score`\) has 2 null"):
            getattr(df.metrics, method)("y", "s")


def test_non_numeric_score_and_bad_options() -> None:
    df = pl.DataFrame({"y": [0, 1], "s": ["a", "b"], "f": [0.1, 0.9]})
    with pytest.raises(SchemaError, match=r"'s'.*y_score.*numeric"):
        df.metrics.roc_auc("y", "s")
    with pytest.raises(ValueError, match="`multi_class` must be one of"):
        df.metrics.roc_auc("y", "f", multi_class="ova")
    with pytest.raises(ValueError, match="`average` must be None or one of"):
        df.metrics.roc_auc("y", "f", average="mean")
    with pytest.raises(plm.DataError, match="column 'y' has 1 null rows"):
        pl.DataFrame({"y": [0, None], "f": [0.1, 0.2]}).metrics.roc_auc("y", "f")


# ----------------------------------------------------------------------- multiclass
def _iris_predictions() -> pl.DataFrame:
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    x, y = load_iris(return_X_y=True)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.5, random_state=0)
    proba = LogisticRegression(max_iter=200, C=0.05).fit(x_tr, y_tr).predict_proba(x_te)
    return pl.DataFrame(
        {
            "y": y_te,
            "p0": proba[:, 0],
            "p1": proba[:, 1],
            "p2": proba[:, 2],
            "w": np.linspace(0.5, 2.0, len(y_te)),
        }
    )


@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_ovr_on_a_fitted_model(average: str, weighted: bool) -> None:
    df = _iris_predictions()
    kw = {"sample_weight": df["w"].to_numpy()} if weighted else {}
    expected = skm.roc_auc_score(
        df["y"], df.select("p0", "p1", "p2").to_numpy(), multi_class="ovr", average=average, **kw
    )
    got = df.metrics.roc_auc(
        "y", {0: "p0", 1: "p1", 2: "p2"}, average=average, weight="w" if weighted else None
    )["roc_auc"][0]
    assert got == pytest.approx(expected, rel=1e-9)


def test_multiclass_unknown_label_is_an_error() -> None:
    df = pl.DataFrame({"y": [0, 1, 3], "p0": [0.5, 0.2, 0.1], "p1": [0.5, 0.8, 0.9]})
    with pytest.raises(plm.DataError, match=r"rows whose label \(\[3\]\) has no score column"):
        df.metrics.roc_auc("y", {0: "p0", 1: "p1"})
    with pytest.raises(SchemaError, match="keys of `y_score`"):
        df.metrics.roc_auc("y", {"a": "p0", "b": "p1"})


def test_lazy_streaming_and_parquet(tmp_path) -> None:
    rng = np.random.default_rng(3)
    n = 4000
    df = pl.DataFrame(
        {
            "seg": rng.choice(["x", "y"], n),
            "y": rng.integers(0, 2, n),
            "s": np.round(rng.random(n), 2),
        }
    )
    for i in range(4):
        df.slice(i * 1000, 1000).write_parquet(tmp_path / f"p{i}.parquet")
    lf = pl.scan_parquet(tmp_path / "*.parquet")
    for method in ("roc_auc", "average_precision", "roc_curve", "pr_curve"):
        lazy = getattr(lf.metrics, method)("y", "s", by="seg")
        assert isinstance(lazy, pl.LazyFrame)
        oracle.assert_close(
            lazy.collect(engine="streaming"), getattr(df.metrics, method)("y", "s", by="seg")
        )


# ----------------------------------------------------------------------- expressions
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary_frames())
def test_expressions_in_group_by_equal_sklearn(case: dict) -> None:
    df = case["df"].with_columns(pl.lit("all").alias("seg")) if not case["by"] else case["df"]
    got = df.group_by("seg").agg(plm.roc_auc("y", "s"), plm.average_precision("y", "s")).sort("seg")
    for seg_name, auc, ap in got.iter_rows():
        seg = df.filter(pl.col("seg") == seg_name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected_ap = skm.average_precision_score(seg["y"], seg["s"])
        assert ap == pytest.approx(expected_ap, rel=1e-9)
        if _one_class(seg):
            assert auc is None
        else:
            assert auc == pytest.approx(skm.roc_auc_score(seg["y"], seg["s"]), rel=1e-9)
    over = df.with_columns(plm.roc_auc("y", "s").over("seg").alias("auc_over"))
    first = over.group_by("seg").agg(pl.col("auc_over").first()).sort("seg")
    assert first["auc_over"].to_list() == pytest.approx(got["roc_auc"].to_list(), nan_ok=True)


def test_expression_errors() -> None:
    df = pl.DataFrame({"y": [0, 1, None], "s": [0.1, 0.2, 0.3]})
    with pytest.raises(plm.DataError, match="column 'y' has 1 null rows"):
        df.select(plm.roc_auc("y", "s"))
    df = pl.DataFrame({"y": [0, 1, 1], "s": [0.1, math.nan, None]})
    with pytest.raises(plm.DataError, match=r"column 's' \(argument `y_score`\) has 2"):
        df.select(plm.average_precision("y", "s"))


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_multiclass_ovo_on_a_fitted_model(average: str) -> None:
    df = _iris_predictions()
    expected = skm.roc_auc_score(
        df["y"], df.select("p0", "p1", "p2").to_numpy(), multi_class="ovo", average=average
    )
    got = df.metrics.roc_auc("y", {0: "p0", 1: "p1", 2: "p2"}, multi_class="ovo", average=average)
    assert got["roc_auc"][0] == pytest.approx(expected, rel=1e-9)


@st.composite
def multiclass_frames(draw: st.DrawFn) -> pl.DataFrame:
    k = draw(st.integers(2, 4))
    n = draw(st.integers(k, 40))
    # every class present in every segment (scikit-learn refuses otherwise)
    y = [*range(k), *draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))]
    raw = draw(
        st.lists(st.lists(st.integers(1, 4), min_size=k, max_size=k), min_size=n, max_size=n)
    )
    proba = np.array(raw, dtype=float)
    proba /= proba.sum(axis=1, keepdims=True)  # few distinct values: heavy ties
    data = {"y": [f"c{i}" for i in y]} | {f"c{i}": proba[:, i] for i in range(k)}
    return pl.DataFrame(data).sample(fraction=1.0, shuffle=True, seed=draw(st.integers(0, 99)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    df=multiclass_frames(),
    multi_class=st.sampled_from(["ovr", "ovo"]),
    average=st.sampled_from(["macro", "weighted"]),
)
def test_multiclass_equals_sklearn(df: pl.DataFrame, multi_class: str, average: str) -> None:
    columns = sorted(c for c in df.columns if c != "y")
    if len(columns) == 2:
        # scikit-learn treats two classes as binary (multi_class is ignored); with
        # probabilities summing to 1 both one-vs-rest AUCs and both pair AUCs equal it
        expected = skm.roc_auc_score(df["y"] == "c1", df["c1"])
    else:
        expected = skm.roc_auc_score(
            df["y"].to_numpy(),
            df.select(columns).to_numpy(),
            multi_class=multi_class,
            average=average,
            labels=columns,
        )
    mapping = {c: c for c in columns}
    got = df.metrics.roc_auc("y", mapping, multi_class=multi_class, average=average)
    assert got["roc_auc"][0] == pytest.approx(expected, rel=1e-9)
    # by= gives the same per segment
    doubled = pl.concat([df.with_columns(seg=pl.lit("a")), df.with_columns(seg=pl.lit("b"))])
    per_seg = doubled.metrics.roc_auc(
        "y", mapping, multi_class=multi_class, average=average, by="seg"
    )
    assert per_seg["roc_auc"].to_list() == pytest.approx([expected, expected], rel=1e-9)


def test_ovo_with_weight_is_refused() -> None:
    df = _iris_predictions()
    with pytest.raises(ValueError, match="`weight` is not supported with multi_class='ovo'"):
        df.metrics.roc_auc("y", {0: "p0", 1: "p1", 2: "p2"}, multi_class="ovo", weight="w")


# ----------------------------------------------------------- sorted (in-memory) path
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary_frames(), keyed=st.booleans())
def test_sorted_path_equals_sklearn(case: dict, keyed: bool) -> None:
    from pl_metrics._ranking.sorted_path import MixedSigns, sorted_metric

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        value = None if _one_class(seg) else skm.roc_auc_score(seg["y"], seg["s"])
        return pl.DataFrame({"roc_auc": [value]}, schema={"roc_auc": pl.Float64})

    plan = sorted_metric(
        case["df"],
        "y",
        "s",
        by=case["by"] or None,
        pos_label=None,
        average="macro",
        reserved=("roc_auc",),
        keyed=keyed,
    )
    if keyed and case["df"]["s"].min() < 0:  # the keys need scores of one sign
        with pytest.raises(MixedSigns):
            plan.collect()
        return
    oracle.assert_close(plan.collect(), _expected(case, build))


@pytest.mark.parametrize("scores", ["continuous", "signed", "two_decimals"])
@pytest.mark.parametrize("weighted", [False, True])
def test_a_perfect_ranking_scores_exactly_one(scores: str, weighted: bool) -> None:
    # Every positive scores above every negative, so every precision is 1, every
    # negative is below every positive and the classes part completely: AP, ROC
    # AUC and KS are exactly 1.0 (scikit-learn's AP too). Terms of 1 / P summed one by
    # one (np.bincount, by segment) gave an AP of 0.9999999999999999 at P = 10 and
    # 0.9999999999980838 at P = 100,000, and a bootstrap point below its own
    # interval (1.0, 1.0); the per-score counts' AUC, each term normalised before
    # the sum, gave 0.9999999999999994 and 1.0000000000000007 (above its DeLong
    # interval), and the weighted KS, divided by P then by N, 0.9999999999999999
    # (a review helper). Segments of P = 10 .. 100,000 positives, half of them with
    # negatives below; "continuous" / "signed": the sorted path (keys / search),
    # "two_decimals" and weights: the per-score counts.
    rng = np.random.default_rng(3)
    parts = []
    for i, p in enumerate([10, 49, 1_000, 100_000]):
        n = 0 if i % 2 == 0 else p // 3
        parts.append(
            pl.DataFrame(
                {
                    "g": np.full(p + n, i),
                    "y": np.r_[np.ones(p, np.int64), np.zeros(n, np.int64)],
                    "s": np.r_[rng.uniform(0.6, 1.0, p), rng.uniform(0.0, 0.5, n)],
                }
            )
        )
    # filler segments, so the perfect ones are finished among others
    filler = pl.DataFrame(
        {
            "g": np.repeat(np.arange(4, 504), 20),
            "y": rng.integers(0, 2, 10_000),
            "s": rng.random(10_000),
        }
    )
    df = pl.concat([*parts, filler]).with_columns(w=pl.lit(0.1))
    if scores == "signed":
        df = df.with_columns(pl.col("s") - 0.7)
    elif scores == "two_decimals":
        df = df.with_columns(pl.col("s").round(2))
    weight = {"weight": "w"} if weighted else {}
    got = df.metrics.average_precision("y", "s", by="g", **weight).filter(pl.col("g") < 4)
    assert got.sort("g")["average_precision"].to_list() == [1.0, 1.0, 1.0, 1.0]
    seg = df.filter(pl.col("g") == 3)
    assert skm.average_precision_score(seg["y"], seg["s"]) == 1.0
    # scikit-learn's trapezoids round a step below 1 on the 2-decimal scores
    assert skm.roc_auc_score(seg["y"], seg["s"]) == pytest.approx(1.0, abs=2e-16)
    # the segments with negatives: ROC AUC (with its interval) and KS
    ci = {} if weighted else {"ci": 0.95}
    both = pl.col("g").is_in([1, 3])
    auc = df.metrics.roc_auc("y", "s", by="g", **weight, **ci).filter(both)
    ks = df.metrics.ks("y", "s", by="g", **weight).filter(both)
    assert auc["roc_auc"].to_list() == [1.0, 1.0]
    if not weighted:
        assert auc["roc_auc_low"].to_list() == auc["roc_auc_high"].to_list() == [1.0, 1.0]
    assert ks["ks"].to_list() == [1.0, 1.0]
    if not weighted and scores != "signed":
        for metric in ("average_precision", "roc_auc"):
            boot = getattr(df.metrics, metric)(
                "y", "s", by="g", ci=0.95, ci_method="bootstrap", n_boot=20, seed=0
            ).filter(both)
            for column in (metric, f"{metric}_low", f"{metric}_high"):
                assert boot[column].to_list() == [1.0, 1.0], column


@pytest.mark.parametrize(
    ("y", "s", "w"),
    [
        # positives of 1e-300 below a negative of weight 1: the precisions are 1e-300,
        # so each term pos x precision is 1e-600, zero in floats: the AP was 0.0
        ([1, 0], [0.1, 0.9], [1e-300, 1.0]),
        # the same, in part: 1.0833328009796428e-18 for 1.0833333333333333e-18
        ([1, 1, 0, 0, 0], [0.5, 0.4, 0.9, 0.8, 0.0], [1e-300, 3e-300, 1e-282, 2e-282, 1.0]),
        ([1, 1, 1, 0, 0], [0.1, 0.2, 0.3, 0.9, 0.8], [1e-300] * 3 + [1e-293] * 2),
    ],
)
def test_average_precision_of_tiny_positives_below_heavy_negatives(
    y: list[int], s: list[float], w: list[float]
) -> None:
    # Found by a review helper: the terms pos x precision (summed before the
    # division by P) underflowed where pos / P x precision had not; the positives
    # are now scaled by a power of two first (exact, so nothing else moves).
    df = pl.DataFrame({"y": y, "s": s, "w": w, "g": [0] * len(y)})
    expected = skm.average_precision_score(y, s, sample_weight=w)
    for by in ({}, {"by": "g"}):
        got = df.metrics.average_precision("y", "s", weight="w", **by)["average_precision"]
        assert got[0] == pytest.approx(expected, rel=1e-12, abs=0.0)


def test_dataframe_takes_the_sorted_path_on_continuous_scores() -> None:
    from pl_metrics._ranking.sorted_path import use_sorted_path

    rng = np.random.default_rng(11)
    n = 30_000
    y = rng.integers(0, 2, n)
    df = pl.DataFrame(
        {"g": rng.choice(["a", "b", "c"], n), "y": y, "s": rng.normal(size=n) + y}
    ).with_columns(pl.when(pl.col("g") == "c").then(1).otherwise(pl.col("y")).alias("y"))
    assert use_sorted_path(df, "s")
    eager = df.metrics.roc_auc("y", "s", by="g")
    lazy = df.lazy().metrics.roc_auc("y", "s", by="g").collect()  # the counting path
    oracle.assert_close(eager, lazy)
    for g, value in eager.iter_rows():
        seg = df.filter(pl.col("g") == g)
        if g == "c":
            assert value is None  # one class only
        else:
            assert value == pytest.approx(skm.roc_auc_score(seg["y"], seg["s"]), rel=1e-9)
    bad = df.with_columns(pl.when(pl.col("g") == "a").then(None).otherwise(pl.col("s")).alias("s"))
    with pytest.raises(plm.DataError, match=r"column 's' \(argument `y_score`\) has \d+ null"):
        bad.metrics.roc_auc("y", "s", by="g")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(df=multiclass_frames(), average=st.sampled_from(["macro", "weighted"]))
def test_sorted_path_multiclass_ovr_equals_the_counting_path(
    df: pl.DataFrame, average: str
) -> None:
    from pl_metrics._ranking.sorted_path import sorted_metric

    mapping = {c: c for c in sorted(c for c in df.columns if c != "y")}
    got = sorted_metric(
        df, "y", mapping, by=None, pos_label=None, average=average, reserved=("roc_auc",)
    ).collect()
    # the counting path is checked against scikit-learn above
    expected = df.lazy().metrics.roc_auc("y", mapping, average=average).collect()
    oracle.assert_close(got, expected)


def test_dataframe_multiclass_continuous_equals_sklearn() -> None:
    rng = np.random.default_rng(5)
    n, k = 20_000, 4
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k))
    logits[np.arange(n), y] += 1.0
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    df = pl.DataFrame({"y": y} | {f"p{i}": proba[:, i] for i in range(k)})
    mapping = {i: f"p{i}" for i in range(k)}
    for average in ("macro", "weighted"):
        got = df.metrics.roc_auc("y", mapping, average=average)["roc_auc"][0]
        expected = skm.roc_auc_score(y, proba, multi_class="ovr", average=average)
        assert got == pytest.approx(expected, rel=1e-9)
    with pytest.raises(plm.DataError, match="no score column"):
        df.with_columns(pl.lit(9).alias("y")).metrics.roc_auc("y", mapping)


@pytest.mark.parametrize("how", ["search", "keys"])
def test_sorted_path_counts_bad_rows_over_batches(how: str) -> None:
    """Sorting by segment reads the rows in batches (3 rows under ``ranking_strategy``):
    a check's count is the whole input's, as the counting path's message says."""
    rng = np.random.default_rng(3)
    n = 40
    df = pl.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n)})
    df = df.with_columns(s=pl.Series(rng.random(n)))
    every_4th = pl.int_range(pl.len()) % 4 == 0
    bad = df.with_columns(pl.when(every_4th).then(None).otherwise(pl.col("s")).alias("s"))
    messages = []
    for strategy in ("count", how):
        with oracle.ranking_strategy(strategy), pytest.raises(plm.DataError) as error:
            bad.lazy().metrics.roc_auc("y", "s", by="g").collect()
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert "10 null" in messages[0]  # rows 0, 4, ..., 36


@pytest.mark.parametrize("by", [None, "g"])
def test_curve_ends_are_exact_with_one_segment_or_several(by: str | None) -> None:
    # 49 positives: polars divides by a broadcast scalar through its reciprocal
    # (49 * (1 / 49) is 0.9999999999999999); the totals must divide as columns, as
    # scikit-learn divides arrays.  Compared exactly, not within a tolerance.
    df = pl.DataFrame({"y": [0] * 49 + [1] * 49, "s": [i / 98 for i in range(98)], "g": ["a"] * 98})
    y, s = df["y"].to_numpy(), df["s"].to_numpy()
    for drop in (False, True):
        fpr, tpr, _ = skm.roc_curve(y, s, drop_intermediate=drop)
        got = df.metrics.roc_curve("y", "s", by=by, drop_intermediate=drop)
        assert np.array_equal(got["fpr"].to_numpy(), fpr)
        assert np.array_equal(got["tpr"].to_numpy(), tpr)
    precision, recall, _ = skm.precision_recall_curve(y, s)
    got = df.metrics.pr_curve("y", "s", by=by)
    assert np.array_equal(got["precision"].to_numpy(), precision)
    assert np.array_equal(got["recall"].to_numpy(), recall)
    gains = df.metrics.gains("y", "s", by=by)
    assert gains["gain"][-1] == 1.0  # every positive
    assert gains["cum_share"][-1] == 1.0  # every row
    # the lowest threshold predicts every row positive: accuracy 49 / 98 = 0.5 exactly
    assert df.metrics.thresholds("y", "s", by=by)["accuracy"][-1] == 0.5


def _segments_of_every_size(scores: str, seed: int = 5) -> pl.DataFrame:
    """150 segments of 1 to 40 rows (some of one class, some tied across the classes),
    rows shuffled so that each segment spans several batches."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 41, 150)
    seg = np.repeat(np.arange(150), sizes)
    n = seg.size
    y = rng.integers(0, 2, n)
    y[seg % 17 == 0] = 1  # one class: no AUC; AP of all positives
    y[seg % 19 == 0] = 0  # no positive: AP 0.0
    raw = {
        "probabilities": rng.random(n),
        "signed": rng.normal(size=n) * 1e3,
        "tied": np.round(rng.normal(size=n), 1) * np.where(rng.random(n) < 0.1, -0.0, 1.0),
    }[scores]
    t = rng.integers(0, 3, n)
    q = rng.dirichlet([1.0, 1.0, 1.0], n)
    return pl.DataFrame(
        {"seg": seg, "y": y, "s": raw, "t": t, "q0": q[:, 0], "q1": q[:, 1], "q2": q[:, 2]}
    ).sample(fraction=1.0, shuffle=True, seed=seed)


@pytest.mark.parametrize("how", ["search", "keys"])
@pytest.mark.parametrize("scores", ["probabilities", "signed", "tied"])
def test_many_small_segments_vectorised_equal_scikit_learn(
    scores: str, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small segments are finished a range at a time in one numpy pass (``CHUNK_ROWS``):
    each segment's AUC and AP equal scikit-learn's on its rows; the AUC is the same
    float as one segment alone, the AP and every bound within 1e-12 of it (a
    segment's terms summed in another order)."""
    from pl_metrics._ranking import batches, sorted_path

    df = _segments_of_every_size(scores)
    monkeypatch.setattr(sorted_path, "MIN_DISTINCT", -1)  # sorted, whatever the scores look like
    monkeypatch.setattr(sorted_path, "USE_KEYS", how == "keys")
    monkeypatch.setattr(batches, "BATCH_ROWS", 400)  # segments over several batches
    chunks = []
    chunk = batches._chunk_metric
    monkeypatch.setattr(batches, "_chunk_metric", lambda *a: chunks.append(1) or chunk(*a))
    q = {0: "q0", 1: "q1", 2: "q2"}
    calls = {
        "roc_auc": lambda m: m.roc_auc("y", "s", by="seg", ci=0.9),
        "average_precision": lambda m: m.average_precision("y", "s", by="seg", ci=0.9),
        "roc_auc macro": lambda m: m.roc_auc("t", q, by="seg"),
        "roc_auc weighted": lambda m: m.roc_auc("t", q, by="seg", average="weighted"),
        "average_precision macro": lambda m: m.average_precision("t", q, by="seg"),
        "average_precision weighted": (
            lambda m: m.average_precision("t", q, by="seg", average="weighted")
        ),
    }
    for name, call in calls.items():
        monkeypatch.setattr(batches, "CHUNK_ROWS", 1_000)  # ranges of about 50 segments
        vectorised = call(df.metrics).sort("seg")
        monkeypatch.setattr(batches, "CHUNK_ROWS", 0)  # every segment alone
        alone = call(df.metrics).sort("seg")
        metric = name.split()[0]
        if metric == "roc_auc":
            assert vectorised[metric].equals(alone[metric]), name
        oracle.assert_close(vectorised, alone)  # rtol 1e-9; nulls in the same places
        gap = (vectorised.drop("seg") - alone.drop("seg")).select(pl.all().abs().max())
        assert all(g is None or g <= 1e-12 for g in gap.row(0)), (name, gap)
    assert len(chunks) >= 3 * 8  # every call took ranges of segments (3 classes each)

    got = calls["roc_auc"](df.metrics).sort("seg")
    got_ap = calls["average_precision"](df.metrics).sort("seg")
    for (key,), rows in df.partition_by("seg", as_dict=True).items():
        y, s = rows["y"].to_numpy(), rows["s"].to_numpy()
        auc = got.filter(pl.col("seg") == key)["roc_auc"].item()
        ap = got_ap.filter(pl.col("seg") == key)["average_precision"].item()
        if np.unique(y).size < 2:
            assert auc is None  # scikit-learn raises
        else:
            assert auc == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12, abs=1e-15)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no positive: scikit-learn warns, returns 0.0
            assert ap == pytest.approx(skm.average_precision_score(y, s), rel=1e-12, abs=1e-15)


def _spy_sorted_curve(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record each sort of the curve points (True: keyed)."""
    from pl_metrics._ranking import sorted_curve

    taken: list[bool] = []
    sort = sorted_curve.sorted_curve

    def spy(*args: object, keyed: bool) -> pl.DataFrame:
        taken.append(keyed)
        return sort(*args, keyed=keyed)  # type: ignore[arg-type]

    monkeypatch.setattr(sorted_curve, "sorted_curve", spy)
    return taken


def test_continuous_scores_sort_the_curve_as_sklearn(monkeypatch: pytest.MonkeyPatch) -> None:
    """5,000 continuous scores (more than 2,000 distinct): the curve is sorted, keyed
    (no negative score); the points are scikit-learn's, the KS statistic SciPy's."""
    from scipy.stats import ks_2samp

    taken = _spy_sorted_curve(monkeypatch)
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 5000)
    s = rng.random(5000) + 0.3 * y
    df = pl.DataFrame({"y": y, "s": s})
    got = df.metrics.roc_curve("y", "s", drop_intermediate=False)
    fpr, tpr, thresholds = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_array_equal(got["fpr"].to_numpy(), fpr)
    np.testing.assert_array_equal(got["tpr"].to_numpy(), tpr)
    np.testing.assert_array_equal(got["threshold"].to_numpy(), thresholds)
    ks = df.metrics.ks("y", "s")["ks"].item()
    assert ks == pytest.approx(ks_2samp(s[y == 1], s[y == 0]).statistic, rel=1e-12)
    assert taken == [True, True]


def test_sorted_curve_falls_back_on_a_later_negative_score(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first rows (5 here) have no negative score, so the scores are sorted as keys
    (their bits, which order as the scores only without a sign); a negative score
    after them is met at collect and the rows are sorted with their labels instead:
    scikit-learn's points all the same."""
    from pl_metrics._ranking import sorted_path

    monkeypatch.setattr(sorted_path, "MIN_DISTINCT", -1)
    monkeypatch.setattr(sorted_path, "_SAMPLE", 5)
    taken = _spy_sorted_curve(monkeypatch)
    rng = np.random.default_rng(12)
    n = 600
    s = np.r_[rng.random(5), rng.normal(size=n - 5)]
    y = rng.integers(0, 2, n)
    got = pl.DataFrame({"y": y, "s": s}).metrics.roc_curve("y", "s", drop_intermediate=False)
    fpr, tpr, thresholds = skm.roc_curve(y, s, drop_intermediate=False)
    assert taken == [True, False]
    np.testing.assert_array_equal(got["fpr"].to_numpy(), fpr)
    np.testing.assert_array_equal(got["tpr"].to_numpy(), tpr)
    np.testing.assert_array_equal(got["threshold"].to_numpy(), thresholds)
