"""The per-class view of multiclass scores ``{label: column}`` against scikit-learn.

``roc_auc(average=None | "micro")``, ``max_fpr`` (binary partial AUC),
``average_precision`` (macro / weighted / micro / None), one-vs-rest
``roc_curve`` / ``pr_curve``, and the multiclass calibration (top label and per
class).  Expected numbers come from scikit-learn on each segment's rows (rows of
weight 0 dropped first, the library's rule); scikit-learn has no multiclass
calibration: the top-label curve is ``calibration_curve`` of (argmax == y, max
probability) and the per-class curves ``calibration_curve`` of (y == k, p_k).
"""

from __future__ import annotations

import math
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve
from sklearn.preprocessing import label_binarize

import pl_metrics as plm

CLASSES = (0, 1, 2)
MAP = {k: f"q{k}" for k in CLASSES}
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def multiclass_frames(draw: st.DrawFn) -> dict:
    """Rows of classes 0, 1, 2 (a class may be absent, from a segment or all rows) with
    probabilities of one decimal (ties), segments and weights (zeros included)."""
    n = draw(st.integers(1, 40))
    y = draw(st.lists(st.sampled_from(CLASSES), min_size=n, max_size=n))
    raw = draw(
        st.lists(st.lists(st.integers(0, 6), min_size=3, max_size=3), min_size=n, max_size=n)
    )
    q = np.array([[v + 1 for v in row] for row in raw], dtype=np.float64)
    q = q / q.sum(axis=1, keepdims=True)
    data: dict[str, object] = {"y": y, **{f"q{k}": q[:, k] for k in CLASSES}}
    by: list[str] = []
    if draw(st.booleans()):
        data["g"] = draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
        by = ["g"]
    weight = draw(st.sampled_from([None, "w"]))
    if weight:
        data["w"] = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    return {"df": pl.DataFrame(data), "by": by, "weight": weight}


def _kw(case: dict) -> dict:
    return {"by": case["by"] or None, "weight": case["weight"]}


def _arrays(seg: pl.DataFrame, weight: str | None) -> tuple[np.ndarray, np.ndarray, dict]:
    y = seg["y"].to_numpy()
    scores = seg.select(MAP.values()).to_numpy()
    return y, scores, oracle.sample_weight(seg, weight)


def _expected(case: dict, build) -> pl.DataFrame | None:
    return oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])


def _check(got: pl.DataFrame, expected: pl.DataFrame | None) -> None:
    if expected is None:  # every row weighs 0: no segment
        assert got.height == 0
    else:
        oracle.assert_close(got, expected)


def _per_class(values: list[float | None], name: str) -> pl.DataFrame:
    return pl.DataFrame(
        {"label": list(CLASSES), name: values}, schema={"label": pl.Int64, name: pl.Float64}
    )


def _binary_auc(y: np.ndarray, s: np.ndarray, sw: dict) -> float | None:
    if len(np.unique(y)) < 2:
        return None  # scikit-learn: NaN with a warning; the library: null
    return float(skm.roc_auc_score(y, s, **sw))


# ------------------------------------------------------------------------ ROC AUC
@SETTINGS
@given(case=multiclass_frames())
def test_roc_auc_per_class_equals_sklearn(case: dict) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y, scores, sw = _arrays(seg, case["weight"])
        values = [_binary_auc(y == k, scores[:, k], sw) for k in CLASSES]
        if set(np.unique(y)) == set(CLASSES):  # sklearn's own multiclass call agrees
            direct = skm.roc_auc_score(y, scores, multi_class="ovr", average=None, **sw)
            np.testing.assert_allclose(values, direct, rtol=1e-12)
        return _per_class(values, "roc_auc")

    got = case["df"].metrics.roc_auc("y", MAP, average=None, **_kw(case))
    _check(got, _expected(case, build))


@SETTINGS
@given(case=multiclass_frames())
def test_roc_auc_micro_equals_sklearn(case: dict) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y, scores, sw = _arrays(seg, case["weight"])
        indicator = label_binarize(y, classes=list(CLASSES))
        repeated = {"sample_weight": np.repeat(sw["sample_weight"], 3)} if sw else {}
        value = _binary_auc(indicator.ravel(), scores.ravel(), repeated)
        if value is not None and set(np.unique(y)) == set(CLASSES):
            micro = skm.roc_auc_score(y, scores, multi_class="ovr", average="micro", **sw)
            assert math.isclose(value, micro, rel_tol=1e-12)
        return pl.DataFrame({"roc_auc": [value]}, schema={"roc_auc": pl.Float64})

    got = case["df"].metrics.roc_auc("y", MAP, average="micro", **_kw(case))
    _check(got, _expected(case, build))
    # the DataFrame, the lazy streaming and the in-memory paths agree
    lazy = case["df"].lazy().metrics.roc_auc("y", MAP, average="micro", **_kw(case))
    oracle.assert_close(lazy.collect(engine="streaming"), got)


def test_macro_is_the_mean_of_the_per_class_rows_present() -> None:
    # class 2 is absent from segment "b": its ROC AUC is null there, left out of b's
    # macro mean; its average precision is 0.0 (the rule of the multilabel form and
    # scikit-learn's indicator matrix), counted in the mean
    df = pl.DataFrame(
        {
            "g": ["a"] * 6 + ["b"] * 4,
            "y": [0, 1, 2, 0, 1, 2, 0, 1, 0, 1],
            "q0": [0.6, 0.2, 0.1, 0.3, 0.3, 0.2, 0.5, 0.4, 0.2, 0.3],
            "q1": [0.3, 0.5, 0.3, 0.3, 0.4, 0.2, 0.3, 0.4, 0.6, 0.6],
            "q2": [0.1, 0.3, 0.6, 0.4, 0.3, 0.6, 0.2, 0.2, 0.2, 0.1],
        }
    )
    for method in ("roc_auc", "average_precision"):
        rows = getattr(df.metrics, method)("y", MAP, by="g", average=None)
        absent = None if method == "roc_auc" else 0.0
        assert rows.filter(pl.col("g") == "b", pl.col("label") == 2)[method].to_list() == [absent]
        macro = getattr(df.metrics, method)("y", MAP, by="g")
        mean = rows.group_by("g").agg(pl.col(method).mean()).sort("g")
        oracle.assert_close(macro, mean)
    seg = df.filter(pl.col("g") == "a")
    scores = seg.select(MAP.values()).to_numpy()
    expected = skm.roc_auc_score(seg["y"], scores, multi_class="ovr", average=None)
    got = df.metrics.roc_auc("y", MAP, by="g", average=None).filter(pl.col("g") == "a")
    np.testing.assert_allclose(got["roc_auc"].to_numpy(), expected, rtol=1e-12)


# ----------------------------------------------------------------------- max_fpr
@st.composite
def binary_frames(draw: st.DrawFn) -> dict:
    n = draw(st.integers(2, 40))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    y[0] = 1  # pos_label present in the input
    s = draw(st.lists(st.integers(0, 10).map(lambda i: i / 10), min_size=n, max_size=n))
    data: dict[str, object] = {"y": y, "s": s}
    by: list[str] = []
    if draw(st.booleans()):
        data["g"] = draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
        by = ["g"]
    weight = draw(st.sampled_from([None, "w"]))
    if weight:
        w = draw(st.lists(st.sampled_from([0.0, 0.25, 1.0, 2.0]), min_size=n, max_size=n))
        w[0] = 1.0  # a row of weight 0 is removed: keep the positive row
        data["w"] = w
    return {"df": pl.DataFrame(data), "by": by, "weight": weight}


@SETTINGS
@given(case=binary_frames(), max_fpr=st.sampled_from([0.05, 0.2, 0.25, 0.5, 0.7, 1.0]))
def test_partial_auc_equals_sklearn(case: dict, max_fpr: float) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        sw = oracle.sample_weight(seg, case["weight"])
        y, s = seg["y"].to_numpy(), seg["s"].to_numpy()
        value = None
        if len(np.unique(y)) == 2:
            value = skm.roc_auc_score(y, s, max_fpr=max_fpr, **sw)
        return pl.DataFrame({"roc_auc": [value]}, schema={"roc_auc": pl.Float64})

    got = case["df"].metrics.roc_auc("y", "s", max_fpr=max_fpr, **_kw(case))
    _check(got, _expected(case, build))
    # merged states of two shards: the same partial AUC
    df = case["df"].with_row_index("i")
    shards = [df.filter(pl.col("i") % 2 == r).drop("i") for r in (0, 1)]
    state = pl.concat([s.metrics.score_counts("y", "s", **_kw(case)) for s in shards])
    merged = plm.from_score_counts(state, by=case["by"] or None).roc_auc(max_fpr=max_fpr)
    if got.height:
        oracle.assert_close(merged, got)


def test_partial_auc_hand_example() -> None:
    # sklearn's docs example: fpr 0, 0, .5, .5, 1 and tpr 0, .5, .5, 1, 1; up to fpr 0.5 the
    # area is 0.5 * 0.5 = 0.25 (the vertical step at 0.5 adds none), McClish:
    # 0.5 * (1 + (0.25 - 0.125) / (0.5 - 0.125)) = 2/3
    df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
    got = df.metrics.roc_auc("y", "s", max_fpr=0.5)["roc_auc"][0]
    assert math.isclose(got, 2 / 3, rel_tol=1e-12)
    assert math.isclose(got, skm.roc_auc_score(df["y"], df["s"], max_fpr=0.5), rel_tol=1e-12)


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, math.nan, True, "0.5"])
def test_bad_max_fpr_is_refused(bad: object) -> None:
    df = pl.DataFrame({"y": [0, 1], "s": [0.2, 0.7]})
    with pytest.raises(ValueError, match=r"`max_fpr` must be None or a number in \(0, 1\]"):
        df.metrics.roc_auc("y", "s", max_fpr=bad)  # type: ignore[arg-type]


# ------------------------------------------------------------- average precision
@SETTINGS
@given(
    case=multiclass_frames(),
    average=st.sampled_from([None, "macro", "weighted", "micro"]),
    how=st.sampled_from(oracle.RANKING_STRATEGIES),  # macro / weighted: sorted or counted
)
def test_average_precision_equals_sklearn(case: dict, average: str | None, how: str) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        # sklearn's average_precision_score of the label-binarized y_true (three columns
        # whatever the segment holds): a class absent from the segment is a column
        # without positives, whose AP is 0.0 (with a warning) and counts in the mean
        y, scores, sw = _arrays(seg, case["weight"])
        indicator = label_binarize(y, classes=list(CLASSES))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = skm.average_precision_score(indicator, scores, average=average, **sw)
            if set(np.unique(y)) == set(CLASSES):  # sklearn's multiclass call agrees
                direct = skm.average_precision_score(y, scores, average=average, **sw)
                np.testing.assert_allclose(value, direct, rtol=1e-12)
        if average is None:
            return _per_class([float(x) for x in value], "average_precision")
        return pl.DataFrame({"average_precision": [float(value)]})

    with oracle.ranking_strategy(how):
        got = case["df"].metrics.average_precision("y", MAP, average=average, **_kw(case))
    _check(got, _expected(case, build))


@SETTINGS
@given(case=multiclass_frames(), average=st.sampled_from([None, "macro", "weighted", "micro"]))
def test_average_precision_one_rule_in_the_multiclass_and_multilabel_forms(
    case: dict, average: str | None
) -> None:
    """The same rows as a label column, as {label: indicator column} and as a List of
    label sets: one number (a class without positives in a segment: 0.0 in each), and
    scikit-learn's on the indicator matrix."""
    df = case["df"].with_columns(
        *(pl.col("y").eq(k).alias(f"t{k}") for k in CLASSES), pl.concat_list("y").alias("ys")
    )
    multiclass = df.metrics.average_precision("y", MAP, average=average, **_kw(case))
    indicators = {k: f"t{k}" for k in CLASSES}
    by_map = df.metrics.average_precision(indicators, MAP, average=average, **_kw(case))
    by_list = df.metrics.average_precision("ys", MAP, average=average, **_kw(case))
    oracle.assert_close(by_map, multiclass)
    oracle.assert_close(by_list, multiclass)


def test_average_precision_of_a_class_without_positives_is_sklearns_zero() -> None:
    # class "c" has no row: sklearn's AP of its indicator column is 0.0 (it warns), and
    # the macro mean is (5/6 + 1 + 0) / 3 = 0.6111 (a: positives at 0.6 and 0.3, the
    # 0.3 tied with one negative: 1/2 x 1 + 1/2 x 2/3 = 5/6; b: both on top: 1)
    df = pl.DataFrame(
        {"y": ["a", "b", "a", "b"], "pa": [0.6, 0.2, 0.3, 0.5], "pb": [0.3, 0.5, 0.3, 0.4]}
    ).with_columns(pc=1 - pl.col("pa") - pl.col("pb"))
    scores = {"a": "pa", "b": "pb", "c": "pc"}
    indicator = df.select((pl.col("y") == k).cast(pl.Int64).alias(k) for k in scores).to_numpy()
    probs = df.select(scores.values()).to_numpy()
    with pytest.warns(UserWarning, match="No positive class found"):
        expected = skm.average_precision_score(indicator, probs, average=None)
    assert expected.tolist() == pytest.approx([5 / 6, 1.0, 0.0])
    per_class = df.metrics.average_precision("y", scores, average=None)
    assert per_class["average_precision"].to_list() == pytest.approx(expected.tolist())
    macro = df.metrics.average_precision("y", scores)["average_precision"].item()
    assert macro == pytest.approx((5 / 6 + 1.0) / 3)


# ----------------------------------------------------------------------- curves
@SETTINGS
@given(case=multiclass_frames(), drop=st.booleans())
def test_one_vs_rest_roc_curves_equal_sklearn(case: dict, drop: bool) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y, scores, sw = _arrays(seg, case["weight"])
        parts = []
        for k in CLASSES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a class absent: tpr NaN
                fpr, tpr, thr = skm.roc_curve(y == k, scores[:, k], drop_intermediate=drop, **sw)
            parts.append(pl.DataFrame({"label": k, "threshold": thr, "fpr": fpr, "tpr": tpr}))
        return pl.concat(parts)

    got = case["df"].metrics.roc_curve("y", MAP, drop_intermediate=drop, **_kw(case))
    _check(got, _expected(case, build))


@SETTINGS
@given(case=multiclass_frames(), drop=st.booleans())
def test_one_vs_rest_pr_curves_equal_sklearn(case: dict, drop: bool) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y, scores, sw = _arrays(seg, case["weight"])
        parts = []
        for k in CLASSES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a class absent: recall 1
                p, r, thr = skm.precision_recall_curve(
                    y == k, scores[:, k], drop_intermediate=drop, **sw
                )
            parts.append(
                pl.DataFrame(
                    {"label": k, "threshold": [*thr.tolist(), None], "precision": p, "recall": r},
                    schema_overrides={"threshold": pl.Float64},
                )
            )
        return pl.concat(parts)

    got = case["df"].metrics.pr_curve("y", MAP, drop_intermediate=drop, **_kw(case))
    _check(got, _expected(case, build))


def test_curves_per_class_equal_the_binary_curves_with_pos_label() -> None:
    rng = np.random.default_rng(4)
    n = 300
    y = rng.choice(["cat", "dog", "owl"], n)
    raw = rng.random((n, 3))
    q = raw / raw.sum(axis=1, keepdims=True)
    df = pl.DataFrame({"y": y, "a": q[:, 0], "b": q[:, 1], "c": q[:, 2]})
    scores = {"cat": "a", "dog": "b", "owl": "c"}
    for method in ("roc_curve", "pr_curve"):
        got = getattr(df.metrics, method)("y", scores)
        for label, column in scores.items():
            binary = getattr(df.metrics, method)("y", column, pos_label=label)
            oracle.assert_close(got.filter(pl.col("label") == label).drop("label"), binary)
    ap = df.metrics.average_precision("y", scores, average=None)
    auc = df.metrics.roc_auc("y", scores, average=None)
    for label, column in scores.items():
        for frame, method in ((ap, "average_precision"), (auc, "roc_auc")):
            binary = getattr(df.metrics, method)("y", column, pos_label=label)
            oracle.assert_close(frame.filter(pl.col("label") == label).drop("label"), binary)


# ------------------------------------------------------------------- calibration
def _top_label(y: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # argmax over the columns in sorted label order: the first of tied maxima
    return (np.argmax(scores, axis=1) == y), scores.max(axis=1)


def _curve(y: np.ndarray, p: np.ndarray, n_bins: int, strategy: str) -> pl.DataFrame:
    """sklearn's calibration_curve with the bin index and the row count of each bin."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    if strategy == "quantile":
        edges = np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)
    else:
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], p)
    counts = np.bincount(ids, minlength=len(edges))
    bins = np.flatnonzero(counts)
    return pl.DataFrame(
        {"bin": bins, "prob_true": prob_true, "prob_pred": prob_pred, "count": counts[bins]}
    )


@SETTINGS
@given(
    case=multiclass_frames(),
    multi_class=st.sampled_from(["top_label", "per_class"]),
    strategy=st.sampled_from(["uniform", "quantile"]),
    n_bins=st.integers(1, 6),
)
def test_calibration_equals_sklearn(
    case: dict, multi_class: str, strategy: str, n_bins: int
) -> None:
    df = case["df"]
    weight = case["weight"]
    if weight is not None:  # weights as repeated rows (calibration_curve has none)
        df = df.with_columns(pl.col(weight).cast(pl.Int64))
        repeated = df.select(pl.all().repeat_by(weight).explode()).drop(weight)
    else:
        repeated = df

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y, scores, _ = _arrays(seg, None)
        if multi_class == "top_label":
            return _curve(*_top_label(y, scores), n_bins, strategy)
        return pl.concat(
            _curve(y == k, scores[:, k], n_bins, strategy).select(
                pl.lit(k).alias("label"), pl.all()
            )
            for k in CLASSES
        )

    def weighted(seg: pl.DataFrame) -> pl.DataFrame:
        # quantile bins of weighted rows: the rows repeated by their weights normalised
        # to the rows (not the repeated rows' bins), by hand in numpy
        y, scores, _ = _arrays(seg, None)
        w = seg[weight].to_numpy()
        if multi_class == "top_label":
            return oracle.calibration_bins(*_top_label(y, scores), w, n_bins, strategy)
        return pl.concat(
            oracle.calibration_bins(y == k, scores[:, k], w, n_bins, strategy).select(
                pl.lit(k).alias("label"), pl.all()
            )
            for k in CLASSES
        )

    kw = {"n_bins": n_bins, "strategy": strategy, "multi_class": multi_class}
    got = df.metrics.calibration_curve("y", MAP, by=case["by"] or None, weight=weight, **kw)
    if weight is not None and strategy == "quantile":
        expected = oracle.by_segment(df, case["by"], weighted, weight=weight)
    else:
        expected = oracle.by_segment(repeated, case["by"], build) if repeated.height else None
    _check(got, expected)
    # ECE / MCE: the count-weighted mean and the max gap of those bins, per curve
    error = df.metrics.calibration_error("y", MAP, by=case["by"] or None, weight=weight, **kw)
    keys = [*case["by"], *(["label"] if multi_class == "per_class" else [])]
    gap = (pl.col("prob_true") - pl.col("prob_pred")).abs()
    expected = got.group_by(keys or pl.lit(0), maintain_order=True).agg(
        ((gap * pl.col("count")).sum() / pl.col("count").sum()).alias("ece"), gap.max().alias("mce")
    )
    if not keys:
        expected = expected.drop("literal")
    if got.is_empty():  # no rows (all weights 0): no curve, no row (group_by(lit) gives one)
        expected = expected.clear()
    oracle.assert_close(error, expected.sort(keys) if keys else expected)


def test_top_label_ties_take_the_first_class_in_label_order() -> None:
    # row 1: "b" and "c" tie at 0.4 -> "b" (sorted first), the actual class: correct;
    # row 2: "a" and "b" tie at 0.5 -> "a", the actual is "b": wrong.  One bin (0, 1]:
    # accuracy 1/2, confidence (0.4 + 0.5) / 2
    df = pl.DataFrame({"y": ["b", "b"], "pc": [0.4, 0.0], "pa": [0.2, 0.5], "pb": [0.4, 0.5]})
    scores = {"c": "pc", "a": "pa", "b": "pb"}  # mapping order does not matter
    curve = df.metrics.calibration_curve("y", scores, n_bins=1)
    assert curve.select("prob_true", "prob_pred").row(0) == (0.5, 0.45)
    error = df.metrics.calibration_error("y", scores, n_bins=1)
    assert math.isclose(error["ece"][0], 0.05, rel_tol=1e-12)


def _torchmetrics_ece(y: np.ndarray, scores: np.ndarray, n_bins: int) -> tuple[float, float]:
    """torchmetrics' multiclass_calibration_error (norm "l1" and "max"), transcribed:
    confidences = max prob, accuracies = argmax == target, bucketize(right=True) - 1 on
    linspace(0, 1, n_bins + 1), ECE = sum(|acc - conf| * prop), MCE = max |acc - conf|."""
    accuracies, confidences = _top_label(y, scores)
    edges = np.linspace(0, 1, n_bins + 1)
    ids = np.searchsorted(edges, confidences, side="right") - 1
    count = np.bincount(ids, minlength=len(edges)).astype(float)
    with np.errstate(invalid="ignore"):
        acc = np.nan_to_num(np.bincount(ids, accuracies, len(edges)) / count)
        conf = np.nan_to_num(np.bincount(ids, confidences, len(edges)) / count)
    gaps = np.abs(acc - conf)
    return float((gaps * count / count.sum()).sum()), float(gaps.max())


def test_top_label_error_equals_torchmetrics_off_the_edges() -> None:
    # confidences never on a bin edge: torchmetrics' and scikit-learn's bins agree
    rng = np.random.default_rng(12)
    n = 500
    y = rng.integers(0, 3, n)
    raw = rng.random((n, 3)) + 0.8 * np.eye(3)[y]
    q = raw / raw.sum(axis=1, keepdims=True)
    df = pl.DataFrame({"y": y, **{f"q{k}": q[:, k] for k in CLASSES}})
    for n_bins in (5, 10, 15):
        ece, mce = _torchmetrics_ece(y, q, n_bins)
        got = df.metrics.calibration_error("y", MAP, n_bins=n_bins)
        assert math.isclose(got["ece"][0], ece, rel_tol=1e-12)
        assert math.isclose(got["mce"][0], mce, rel_tol=1e-12)


# --------------------------------------------------------------- refusals, paths
def test_options_of_binary_scores_are_refused_with_a_mapping() -> None:
    df = pl.DataFrame({"y": [0, 1, 2], "q0": [0.5, 0.2, 0.2], "q1": [0.3, 0.6, 0.2]})
    df = df.with_columns(q2=1 - pl.col("q0") - pl.col("q1"))
    m = df.lazy().metrics  # refused at the call: nothing is collected
    with pytest.raises(ValueError, match=r"`max_fpr` .*binary scores"):
        m.roc_auc("y", MAP, max_fpr=0.5)
    with pytest.raises(ValueError, match=r"`max_fpr` .*binary scores"):
        df.metrics.roc_auc("y", MAP, max_fpr=0.5)
    for average in (None, "micro"):
        with pytest.raises(ValueError, match="multi_class='ovr'"):
            m.roc_auc("y", MAP, multi_class="ovo", average=average)
    for method in ("roc_auc", "average_precision", "roc_curve", "pr_curve"):
        with pytest.raises(ValueError, match="`pos_label` is for binary scores"):
            getattr(m, method)("y", MAP, pos_label=1)
        with pytest.raises(ValueError, match="`bins` is for binary scores"):
            getattr(m, method)("y", MAP, bins=10)
    with pytest.raises(ValueError, match="`pos_label` is for binary scores"):
        df.metrics.roc_auc("y", MAP, pos_label=1)  # the DataFrame's sorted path too
    with pytest.raises(ValueError, match="`ci` is for binary"):
        m.average_precision("y", MAP, ci=0.9)
    for method in ("calibration_curve", "calibration_error"):
        with pytest.raises(ValueError, match="`pos_label` is for binary scores"):
            getattr(m, method)("y", MAP, pos_label=1)
        with pytest.raises(ValueError, match="`multi_class` must be one of"):
            getattr(m, method)("y", MAP, multi_class="ovr")
    with pytest.raises(ValueError, match="`average` must be None or one of"):
        m.average_precision("y", MAP, average="samples_")
    binary = pl.DataFrame({"y": [0, 1, 1], "s": [0.1, 0.7, 0.4]})
    with pytest.raises(ValueError, match="`max_fpr` takes neither `bins`"):
        binary.metrics.roc_auc("y", "s", max_fpr=0.5, bins=10)
    with pytest.raises(ValueError, match="`max_fpr` takes neither"):
        binary.metrics.roc_auc("y", "s", max_fpr=0.5, ci=0.9)


def test_data_errors_of_the_mapping_name_the_column() -> None:
    df = pl.DataFrame({"y": [0, 1, 3], "q0": [0.5, 0.2, 0.2], "q1": [0.3, 0.6, 0.2]})
    df = df.with_columns(q2=1 - pl.col("q0") - pl.col("q1"))
    for method in ("roc_auc", "average_precision", "roc_curve", "pr_curve", "calibration_curve"):
        with pytest.raises(plm.DataError, match="'y'"):  # 3 has no score column
            getattr(df.metrics, method)("y", MAP)
    bad = df.with_columns(pl.col("y").replace(3, 2), q1=pl.lit(0.9))  # rows sum above 1
    with pytest.raises(plm.DataError, match="do not sum to 1"):
        bad.metrics.calibration_error("y", MAP, multi_class="per_class")


def test_empty_frame_gives_no_rows() -> None:
    schema = {"y": pl.Int64, "g": pl.String, **dict.fromkeys(MAP.values(), pl.Float64)}
    empty = pl.DataFrame(schema=schema)
    assert empty.metrics.roc_auc("y", MAP, by="g", average=None).columns == [
        "g",
        "label",
        "roc_auc",
    ]
    for frame in (
        empty.metrics.roc_auc("y", MAP, by="g", average=None),
        empty.metrics.average_precision("y", MAP, by="g", average="micro"),
        empty.metrics.roc_curve("y", MAP, by="g"),
        empty.metrics.calibration_curve("y", MAP, by="g", multi_class="per_class"),
        empty.metrics.calibration_error("y", MAP, by="g"),
    ):
        assert frame.height == 0


def test_string_labels_and_lazy_paths(tmp_path) -> None:
    rng = np.random.default_rng(8)
    n = 400
    y = rng.choice(["x", "y", "z"], n)
    raw = rng.random((n, 3)) + np.eye(3)[np.searchsorted(["x", "y", "z"], y)]
    q = np.round(raw / raw.sum(axis=1, keepdims=True), 2)
    q[:, 2] = 1 - q[:, 0] - q[:, 1]
    df = pl.DataFrame({"t": y, "px": q[:, 0], "py": q[:, 1], "pz": q[:, 2], "seg": y == "x"})
    scores = {"x": "px", "y": "py", "z": "pz"}
    df.write_parquet(tmp_path / "rows.parquet")
    calls = [
        lambda m: m.roc_auc("t", scores, by="seg", average=None),
        lambda m: m.roc_auc("t", scores, average="micro"),
        lambda m: m.average_precision("t", scores, by="seg", average="weighted"),
        lambda m: m.pr_curve("t", scores),
        lambda m: m.calibration_curve("t", scores, multi_class="per_class", strategy="quantile"),
        lambda m: m.calibration_error("t", scores, by="seg"),
    ]
    for call in calls:
        eager = call(df.metrics)
        oracle.assert_close(call(df.lazy().metrics).collect(engine="streaming"), eager)
        scanned = call(pl.scan_parquet(tmp_path / "rows.parquet").metrics)
        oracle.assert_close(scanned.collect(engine="streaming"), eager)
