"""Likelihood ratios, D^2 scores, weighted kappa, normalized confusion matrices and the
PR curve's drop_intermediate against scikit-learn, per segment, over every option."""

from __future__ import annotations

import math
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics as plm

NAN = np.nan  # scikit-learn checks replace_undefined_by against np.nan itself
WEIGHTS = st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0])  # dyadic (exact sums), 0 included
REPLACE = [NAN, 1.0, {"LR+": math.inf, "LR-": 0.0}, {"LR+": 2.5, "LR-": NAN}]
#: label kinds of a binary problem: (negative, positive, pos_label to pass)
BINARY_LABELS = {"int": (0, 1, None), "str": ("neg", "pos", "pos"), "bool": (False, True, None)}


def _segments_and_weights(draw: st.DrawFn, n: int, data: dict) -> tuple[list[str], str | None]:
    by: list[str] = []
    if draw(st.booleans()):
        data["g"] = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
        by = ["g"]
    weight = None
    if draw(st.booleans()):
        data["w"] = draw(st.lists(WEIGHTS, min_size=n, max_size=n))
        weight = "w"
    return by, weight


def _kw(case: dict) -> dict:
    return {"by": case["by"] or None, "weight": case["weight"]}


def _compare(got: pl.DataFrame, expected: pl.DataFrame | None) -> None:
    if expected is None:  # every row weighs 0: no segment
        assert got.height == 0
    else:
        oracle.assert_close(got, expected)


# ---------------------------------------------------------------------- likelihood ratios
@st.composite
def binary_predictions(draw: st.DrawFn) -> dict:
    kind = draw(st.sampled_from(list(BINARY_LABELS)))
    neg, pos, pos_label = BINARY_LABELS[kind]
    n = draw(st.integers(1, 40))
    # either column may hold one label only (fp = 0, tn = 0, no positives ...)
    true_from = draw(st.sampled_from([[neg, pos], [neg], [pos]]))
    pred_from = draw(st.sampled_from([[neg, pos], [neg], [pos]]))
    data = {
        "t": draw(st.lists(st.sampled_from(true_from), min_size=n, max_size=n)),
        "p": draw(st.lists(st.sampled_from(pred_from), min_size=n, max_size=n)),
    }
    by, weight = _segments_and_weights(draw, n, data)
    return {
        "df": pl.DataFrame(data),
        "by": by,
        "weight": weight,
        "labels": [neg, pos],
        "pos_label": pos_label,
    }


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary_predictions(), replace=st.sampled_from(REPLACE))
def test_class_likelihood_ratios_equal_sklearn(case: dict, replace: object) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lr_pos, lr_neg = skm.class_likelihood_ratios(
                seg["t"].to_numpy(),
                seg["p"].to_numpy(),
                labels=case["labels"],
                replace_undefined_by=replace,
                **oracle.sample_weight(seg, case["weight"]),
            )
        return pl.DataFrame(
            {"positive_likelihood_ratio": [lr_pos], "negative_likelihood_ratio": [lr_neg]}
        )

    got = case["df"].metrics.class_likelihood_ratios(
        "t", "p", pos_label=case["pos_label"], replace_undefined_by=replace, **_kw(case)
    )
    _compare(got, oracle.by_segment(case["df"], case["by"], build, weight=case["weight"]))


@pytest.mark.parametrize(
    ("t", "p", "replace", "expected"),
    [
        # fp = 0: LR+ replaced; LR- = fn (tn + fp) / (tn (tp + fn)) = 1 * 2 / (2 * 2)
        ([0, 0, 1, 1], [0, 0, 1, 0], NAN, (NAN, 0.5)),
        ([0, 0, 1, 1], [0, 0, 1, 0], 1.0, (1.0, 0.5)),
        ([0, 0, 1, 1], [0, 0, 1, 0], {"LR+": math.inf, "LR-": 0.0}, (math.inf, 0.5)),
        # tn = 0: LR- replaced; LR+ = tp (tn + fp) / (fp (tp + fn)) = 1 * 2 / (2 * 2)
        ([0, 0, 1, 1], [1, 1, 1, 0], {"LR+": 3.0, "LR-": 0.25}, (0.5, 0.25)),
        # no positives, fp > 0 and tn > 0: both NaN whatever the replacement
        ([0, 0, 0], [0, 1, 1], 1.0, (NAN, NAN)),
        # no positives, nothing predicted positive (fp = 0): LR+ replaced, LR- NaN
        ([0, 0, 0], [0, 0, 0], {"LR+": 2.0, "LR-": 0.5}, (2.0, NAN)),
        # only positives: fp = tn = 0, both replaced
        ([1, 1], [1, 0], 1.0, (1.0, 1.0)),
    ],
)
def test_class_likelihood_ratios_undefined_cases(t, p, replace, expected) -> None:
    got = pl.DataFrame({"t": t, "p": p}).metrics.class_likelihood_ratios(
        "t", "p", replace_undefined_by=replace
    )
    row = got.row(0)
    for value, want in zip(row, expected, strict=True):
        assert (math.isnan(value) and math.isnan(want)) or value == pytest.approx(want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = skm.class_likelihood_ratios(t, p, labels=[0, 1], replace_undefined_by=replace)
    for value, want in zip(row, sk, strict=True):
        assert (math.isnan(value) and math.isnan(want)) or value == pytest.approx(want)


def test_class_likelihood_ratios_refuses_more_than_two_labels() -> None:
    df = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "t": [0, 1, 2, 0, 1, 1], "p": [0, 1, 1] * 2})
    with pytest.raises(
        plm.DataError, match=r"1 segment\(s\).*'t'.*'p'.*two or more labels besides"
    ):
        df.metrics.class_likelihood_ratios("t", "p", by="g", pos_label=1)
    # without pos_label, labels {0, 1, 2} ask for it first (the default 1 needs {0, 1})
    with pytest.raises(plm.DataError, match="pass `pos_label`"):
        df.metrics.class_likelihood_ratios("t", "p", by="g")
    # segment b alone is binary
    ok = df.filter(pl.col("g") == "b").metrics.class_likelihood_ratios("t", "p", by="g")
    assert ok.height == 1
    # two labels, neither pos_label: two different classes would be merged as negatives
    with pytest.raises(plm.DataError, match="besides `pos_label`=1"):
        pl.DataFrame({"t": [0, 2], "p": [2, 0]}).metrics.class_likelihood_ratios(
            "t", "p", pos_label=1
        )


def test_class_likelihood_ratios_bad_options() -> None:
    df = pl.DataFrame({"t": ["x", "y"], "p": ["x", "x"]})
    with pytest.raises(ValueError, match="`pos_label` is required"):
        df.metrics.class_likelihood_ratios("t", "p")
    for bad in (0.5, {"LR+": 0.5, "LR-": 0.5}, {"LR+": 2.0, "LR-": 2.0}, {"LR+": 2.0}, "nan"):
        with pytest.raises(ValueError, match="`replace_undefined_by` must be"):
            df.metrics.class_likelihood_ratios("t", "p", pos_label="y", replace_undefined_by=bad)
    with pytest.raises(ValueError, match="collides"):
        df.with_columns(positive_likelihood_ratio=1).metrics.class_likelihood_ratios(
            "t", "p", pos_label="y", by="positive_likelihood_ratio"
        )


# ------------------------------------------------------------------------------------ D^2
@st.composite
def binary_probabilities(draw: st.DrawFn) -> dict:
    kind = draw(st.sampled_from(["int", "str_low", "str_high"]))
    n = draw(st.integers(1, 40))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    probs = st.sampled_from([0.0, 0.05, 0.2, 0.5, 0.75, 0.9, 1.0])
    data = {"y": y, "p": draw(st.lists(probs, min_size=n, max_size=n))}
    by, weight = _segments_and_weights(draw, n, data)
    df = pl.DataFrame(data)
    pos_label = None
    if kind != "int":  # the positive class sorts first or last
        names = ["a", "b"] if kind == "str_low" else ["b", "a"]
        df = df.with_columns(pl.col("y").replace_strict({0: names[1], 1: names[0]}))
        pos_label = names[0]
    # pos_label absent from the whole input with another label is an error (tested elsewhere)
    if pos_label is not None and pos_label not in df["y"]:
        df = df.with_columns(pl.lit(pos_label).alias("y"))
    return {"df": df, "by": by, "weight": weight, "pos_label": pos_label}


def _d2_brier_score(y: np.ndarray, proba: np.ndarray, labels: list | None, **kw: object) -> float:
    """``sklearn.metrics.d2_brier_score`` (scikit-learn >= 1.8); for the older
    releases the floor's Python 3.10 gets, its definition written out from that
    source: 1 - Brier / Brier of the (weighted) class priors, summed over classes."""
    if hasattr(skm, "d2_brier_score"):
        return skm.d2_brier_score(y, proba, labels=labels, **kw)
    proba = np.asarray(proba, dtype=float)
    if proba.ndim == 1:  # binary: y is 0/1 with 1 the positive class
        classes, proba = np.array([0, 1]), np.column_stack([1 - proba, proba])
    else:
        classes = np.asarray(labels if labels is not None else np.unique(y))
    if len(y) < 2:
        return float("nan")
    onehot = (np.asarray(y)[:, None] == classes[None, :]).astype(float)
    w = kw.get("sample_weight")
    null = np.average(onehot, axis=0, weights=w)
    brier = np.average(((onehot - proba) ** 2).sum(axis=1), weights=w)
    brier_null = np.average(((onehot - null) ** 2).sum(axis=1), weights=w)
    return float(1 - brier / brier_null)


def _d2_oracle(y: np.ndarray, proba: np.ndarray, kw: dict, labels: list | None = None) -> dict:
    """scikit-learn's D^2 scores of a segment; NaN with one class (scikit-learn raises,
    or divides by a null loss of ~0)."""
    if len(np.unique(y)) < 2:
        return {"d2_log_loss_score": [NAN], "d2_brier_score": [NAN]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "d2_log_loss_score": [skm.d2_log_loss_score(y, proba, labels=labels, **kw)],
            "d2_brier_score": [_d2_brier_score(y, proba, labels, **kw)],
        }


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary_probabilities())
def test_binary_d2_scores_equal_sklearn(case: dict) -> None:
    pos = 1 if case["pos_label"] is None else case["pos_label"]

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y = (seg["y"] == pos).cast(pl.Int64).to_numpy()  # 1 = pos_label, the larger label
        kw = oracle.sample_weight(seg, case["weight"])
        return pl.DataFrame(_d2_oracle(y, seg["p"].to_numpy(), kw))

    expected = oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])
    for metric in ("d2_log_loss_score", "d2_brier_score"):
        got = getattr(case["df"].metrics, metric)(
            "y", "p", pos_label=case["pos_label"], **_kw(case)
        )
        _compare(got, None if expected is None else expected.select(*case["by"], metric))


@st.composite
def multiclass_probabilities(draw: st.DrawFn) -> dict:
    k = draw(st.integers(2, 4))
    n = draw(st.integers(1, 40))
    # some classes of the mapping may be absent, a segment may hold one class
    y = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    raw = np.array(
        draw(st.lists(st.lists(st.integers(0, 4), min_size=k, max_size=k), min_size=n, max_size=n)),
        dtype=float,
    )
    raw = raw + np.eye(k)[y] * 0.5
    proba = raw / raw.sum(axis=1, keepdims=True)
    data = {"y": y} | {f"q{i}": proba[:, i] for i in range(k)}
    by, weight = _segments_and_weights(draw, n, data)
    return {"df": pl.DataFrame(data), "by": by, "weight": weight, "k": k}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=multiclass_probabilities())
def test_multiclass_d2_scores_equal_sklearn(case: dict) -> None:
    labels = list(range(case["k"]))
    columns = [f"q{i}" for i in labels]
    mapping = {i: f"q{i}" for i in reversed(labels)}  # mapping order does not matter

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        kw = oracle.sample_weight(seg, case["weight"])
        proba = seg.select(columns).to_numpy()
        return pl.DataFrame(_d2_oracle(seg["y"].to_numpy(), proba, kw, labels=labels))

    expected = oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])
    for metric in ("d2_log_loss_score", "d2_brier_score"):
        got = getattr(case["df"].metrics, metric)("y", mapping, **_kw(case))
        _compare(got, None if expected is None else expected.select(*case["by"], metric))


def test_d2_undefined_cases_by_hand() -> None:
    df = pl.DataFrame(
        {
            "g": ["one row", "one class", "one class", "two", "two", "zero", "zero"],
            "y": [1, 0, 0, 0, 1, 1, 0],
            "p": [0.9, 0.2, 0.4, 0.3, 0.6, 0.7, 0.1],
            "w": [1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 0.0],  # "zero" keeps one class, one row
        }
    )
    for metric in ("d2_log_loss_score", "d2_brier_score"):
        got = getattr(df.metrics, metric)("y", "p", by="g", weight="w")
        values = dict(zip(got["g"], got[metric], strict=True))
        assert math.isnan(values["one row"])
        assert math.isnan(values["one class"])
        assert math.isnan(values["zero"])
        two = df.filter(pl.col("g") == "two")
        y, p = two["y"].to_numpy(), two["p"].to_numpy()
        sk = (
            skm.d2_log_loss_score(y, p)
            if metric == "d2_log_loss_score"
            else _d2_brier_score(y, p, None)
        )
        assert values["two"] == pytest.approx(sk, rel=1e-12)
    # by hand: priors 1/2, null Brier 1/4; the model's (0.3^2 + 0.4^2) / 2 = 0.125
    got = df.filter(pl.col("g") == "two").metrics.d2_brier_score("y", "p")
    assert got["d2_brier_score"][0] == pytest.approx(0.5, rel=1e-12)


# ------------------------------------------------------------------- labels: kappa, normalize
@st.composite
def label_frames(draw: st.DrawFn) -> dict:
    kind = draw(st.sampled_from(["int", "str"]))
    names = [0, 1, 2, 3, 4] if kind == "int" else ["ant", "bee", "cat", "dog", "eel"]
    k = draw(st.integers(1, 5))
    n = draw(st.integers(1, 40))
    data = {
        "t": draw(st.lists(st.sampled_from(names[:k]), min_size=n, max_size=n)),
        "p": draw(st.lists(st.sampled_from(names), min_size=n, max_size=n)),
    }
    by, weight = _segments_and_weights(draw, n, data)
    labels = None
    if draw(st.booleans()):  # any order, absent classes, a subset
        labels = draw(st.lists(st.sampled_from(names), min_size=1, max_size=5, unique=True))
    return {"df": pl.DataFrame(data), "by": by, "weight": weight, "labels": labels}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=label_frames(), kappa_weights=st.sampled_from(["linear", "quadratic"]))
def test_weighted_kappa_equals_sklearn(case: dict, kappa_weights: str) -> None:
    labels = case["labels"]

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        t, p = seg["t"].to_numpy(), seg["p"].to_numpy()
        w = None if case["weight"] is None else seg["w"].to_numpy()
        if labels is not None:  # the summary's rows: those inside labels
            keep = np.isin(t, labels) & np.isin(p, labels)
            t, p, w = t[keep], p[keep], None if w is None else w[keep]
        if len(t) == 0:
            kappa = NAN  # nothing to score: scikit-learn raises
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kappa = skm.cohen_kappa_score(
                    t, p, labels=labels, weights=kappa_weights, **oracle._sw(w)
                )
        return pl.DataFrame({"cohen_kappa": [kappa]})

    kw = {**_kw(case), "labels": labels}
    got = case["df"].metrics.summary("t", "p", kappa_weights=kappa_weights, **kw)
    expected = oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])
    _compare(got.select(*case["by"], "cohen_kappa"), expected)
    # the other columns are the unweighted summary's, untouched
    plain = case["df"].metrics.summary("t", "p", **kw)
    oracle.assert_close(got.drop("cohen_kappa"), plain.drop("cohen_kappa"))
    # the merged state finishes the same
    state = case["df"].metrics.counts("t", "p", **_kw(case))
    finished = plm.from_counts(state, by=case["by"] or None).summary(
        labels=labels, kappa_weights=kappa_weights
    )
    oracle.assert_close(finished, got)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=label_frames(), normalize=st.sampled_from(["true", "pred", "all"]))
def test_normalized_confusion_matrix_equals_sklearn(case: dict, normalize: str) -> None:
    labels = case["labels"]

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        t, p = seg["t"].to_numpy(), seg["p"].to_numpy()
        labs = oracle._labels(t, p, labels)
        w = None if case["weight"] is None else seg["w"].to_numpy()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cm = skm.confusion_matrix(t, p, labels=labs, normalize=normalize, **oracle._sw(w))
            counts = oracle.confusion_matrix(t, p, labels=labels, weight=w)
        except ValueError:  # "At least one label specified must be in y_true": all zeros
            cm = np.zeros((len(labs), len(labs)))
            counts = oracle.confusion_matrix(t, p, labels=labels, weight=w)
        return counts.with_columns(pl.Series("normalized", cm.ravel(), pl.Float64))

    got = case["df"].metrics.confusion_matrix(
        "t", "p", normalize=normalize, labels=labels, **_kw(case)
    )
    expected = oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])
    _compare(got, expected)
    assert got.schema["normalized"] == pl.Float64
    assert got.columns[-2:] == ["count", "normalized"]
    state = case["df"].metrics.counts("t", "p", **_kw(case))
    finished = plm.from_counts(state, by=case["by"] or None).confusion_matrix(
        labels=labels, normalize=normalize
    )
    oracle.assert_close(finished, got)


def test_normalized_zero_rows_and_columns_are_zero() -> None:
    # label 2 is never actual and never predicted in segment "a"
    df = pl.DataFrame({"g": ["a", "a", "b"], "t": [0, 1, 2], "p": [1, 1, 2]})
    got = df.metrics.confusion_matrix("t", "p", by="g", normalize="true", labels=[0, 1, 2])
    a = got.filter(pl.col("g") == "a")
    assert a["normalized"].to_list() == [0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert a["count"].to_list() == [0, 1, 0, 0, 1, 0, 0, 0, 0]  # the counts stay counts
    pred = df.metrics.confusion_matrix("t", "p", by="g", normalize="pred", labels=[0, 1, 2])
    assert pred.filter(pl.col("g") == "a")["normalized"].to_list()[:3] == [0.0, 0.5, 0.0]


def test_label_options_are_checked() -> None:
    df = pl.DataFrame({"t": [0, 1, 1], "p": [0, 1, 0]})
    for bad in ("rows", True, "True"):
        with pytest.raises(ValueError, match="`normalize` must be None or one of"):
            df.metrics.confusion_matrix("t", "p", normalize=bad)
        with pytest.raises(ValueError, match="`kappa_weights` must be None or one of"):
            df.metrics.summary("t", "p", kappa_weights=bad)
    with pytest.raises(ValueError, match="`kappa_weights` must be None or one of"):
        plm.from_counts(df.metrics.counts("t", "p")).summary(kappa_weights="cubic")
    with pytest.raises(ValueError, match=r"kappa_weights.*ci_method='bootstrap'"):
        df.metrics.summary("t", "p", kappa_weights="linear", ci=0.9, ci_method="bootstrap")
    with pytest.raises(ValueError, match=r"kappa_weights.*ci_method='delta'"):  # the default
        df.metrics.summary("t", "p", kappa_weights="linear", ci=0.9)
    # Wilson gives the accuracy's interval only: no conflict
    wilson = df.metrics.summary("t", "p", kappa_weights="linear", ci=0.9, ci_method="wilson")
    assert wilson["cohen_kappa_low"].is_null().all()
    with pytest.raises(ValueError, match="`by` column 'normalized' collides"):
        df.with_columns(normalized=1).metrics.confusion_matrix("t", "p", by="normalized")


def test_weighted_kappa_follows_the_given_label_order() -> None:
    t, p = ["lo", "mid", "hi", "hi", "mid"], ["mid", "mid", "hi", "lo", "lo"]
    df = pl.DataFrame({"t": t, "p": p})
    order = ["lo", "mid", "hi"]
    got = df.metrics.summary("t", "p", labels=order, kappa_weights="quadratic")
    sk = skm.cohen_kappa_score(t, p, labels=order, weights="quadratic")
    assert got["cohen_kappa"][0] == pytest.approx(sk, rel=1e-12)
    sorted_order = df.metrics.summary("t", "p", kappa_weights="quadratic")
    assert sorted_order["cohen_kappa"][0] == pytest.approx(
        skm.cohen_kappa_score(t, p, weights="quadratic"), rel=1e-12
    )
    assert sorted_order["cohen_kappa"][0] != pytest.approx(sk)  # the order matters
    # one class, all agreed: the expected disagreement is 0, kappa NaN (as scikit-learn)
    one = pl.DataFrame({"t": [1, 1], "p": [1, 1]}).metrics.summary("t", "p", kappa_weights="linear")
    assert math.isnan(one["cohen_kappa"][0])


# ------------------------------------------------------------------ pr_curve drop_intermediate
@st.composite
def scored(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 50))
    scores = st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.integers(0, 20).map(lambda i: i / 20))
    data = {
        "y": oracle.with_a_positive(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))),
        "s": draw(st.lists(scores, min_size=n, max_size=n)),
    }
    by, weight = _segments_and_weights(draw, n, data)
    df = pl.DataFrame(data)
    if weight is not None:  # a positive of non-zero weight somewhere (pos_label present)
        df = df.with_columns(
            pl.when(pl.int_range(pl.len()) == 0).then(1.0).otherwise(pl.col("w")).alias("w"),
            pl.when(pl.int_range(pl.len()) == 0).then(1).otherwise(pl.col("y")).alias("y"),
        )
    return {"df": df, "by": by, "weight": weight}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=scored(), drop=st.booleans())
def test_pr_curve_drop_intermediate_equals_sklearn(case: dict, drop: bool) -> None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p, r, thr = skm.precision_recall_curve(
                seg["y"].to_numpy(),
                seg["s"].to_numpy(),
                drop_intermediate=drop,
                **oracle.sample_weight(seg, case["weight"]),
            )
        return pl.DataFrame(
            {"threshold": [*thr, None], "precision": p, "recall": r},
            schema={"threshold": pl.Float64, "precision": pl.Float64, "recall": pl.Float64},
        )

    got = case["df"].metrics.pr_curve("y", "s", drop_intermediate=drop, **_kw(case))
    _compare(got, oracle.by_segment(case["df"], case["by"], build, weight=case["weight"]))
    state = case["df"].metrics.score_counts("y", "s", pos_label=1, **_kw(case))
    finished = plm.from_score_counts(state, by=case["by"] or None).pr_curve(drop_intermediate=drop)
    assert_frame_equal(finished, got)


def test_pr_curve_drop_intermediate_by_hand() -> None:
    # scores descending 0.9 .. 0.1: tps 1, 1, 1, 2, 3; 0.8 has the tps of both
    # neighbours and is dropped; 0.7 (tps changes after it) and the ends stay
    df = pl.DataFrame({"y": [1, 0, 0, 1, 1], "s": [0.9, 0.8, 0.7, 0.6, 0.1]})
    got = df.metrics.pr_curve("y", "s", drop_intermediate=True)
    assert got["threshold"].to_list() == [0.1, 0.6, 0.7, 0.9, None]
    with pytest.raises(ValueError, match="`drop_intermediate` must be True or False"):
        df.metrics.pr_curve("y", "s", drop_intermediate="yes")
