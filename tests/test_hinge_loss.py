"""hinge_loss (frame method and expression) against scikit-learn's ``hinge_loss``."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import pl_metrics as plm

#: decision scores: ties, zero, the margin's edges +-1, negatives, large values
SCORES = st.sampled_from([-1e100, -3.0, -1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 1.0, 2.5, 1e100])
WEIGHTS = st.sampled_from([0.0, 0.25, 1.0, 3.0, 1e200])


def _sk_binary(y: np.ndarray, s: np.ndarray, w: np.ndarray | None, pos: object) -> float:
    """scikit-learn's hinge loss with ``pos`` as +1: the rows coded 1 / 0, and one row of
    each code appended with weight 0 (no effect on the mean), so that scikit-learn's
    LabelBinarizer sees both classes and codes 1 as +1 even when a segment holds one."""
    coded = np.r_[(y == pos).astype(np.int64), [0, 1]]
    weights = np.r_[np.ones(len(y)) if w is None else w, [0.0, 0.0]]
    return skm.hinge_loss(coded, np.r_[s, [0.0, 0.0]], sample_weight=weights)


@st.composite
def binary(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 40))
    strings = draw(st.booleans())
    values = ["no", "yes"] if strings else [0, 1]
    y = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    data: dict[str, list] = {"y": y, "s": draw(st.lists(SCORES, min_size=n, max_size=n))}
    data["g"] = draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n))
    weighted = draw(st.booleans())
    if weighted:
        w = draw(st.lists(WEIGHTS, min_size=n, max_size=n))
        w[0] = 1.0  # a row of non-zero weight: the frame is not empty
        data["w"] = w
    pos = draw(st.sampled_from(values)) if strings else draw(st.sampled_from([None, 0, 1]))
    if pos is not None and pos not in y:
        pos = y[0]  # pos_label must occur in the input (as roc_auc)
    if pos is None and set(y) == {0}:
        pos = 0
    return {"df": pl.DataFrame(data), "weight": "w" if weighted else None, "pos": pos}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=binary())
def test_binary_equals_sklearn_per_segment(case: dict) -> None:
    df, weight, pos = case["df"], case["weight"], case["pos"]
    got = df.metrics.hinge_loss("y", "s", by="g", weight=weight, pos_label=pos)
    expr = (
        df.lazy()
        .group_by("g")
        .agg(plm.hinge_loss("y", "s", pos_label=pos, weight=weight))
        .collect(engine="streaming")
    )
    positive = 1 if pos is None else pos
    rows = df if weight is None else df.filter(pl.col("w") > 0)
    assert got["g"].to_list() == sorted(rows["g"].unique().to_list(), key=lambda g: (g is None, g))
    for g, value in got.iter_rows():
        part = df.filter(pl.col("g").is_null() if g is None else pl.col("g") == g)
        w = None if weight is None else part["w"].to_numpy()
        expected = _sk_binary(part["y"].to_numpy(), part["s"].to_numpy(), w, positive)
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-300)
        from_expr = expr.filter(pl.col("g").is_null() if g is None else pl.col("g") == g)
        assert from_expr["hinge_loss"].item() == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_binary_default_pos_label_is_sklearns_greater_label() -> None:
    """Labels {-1, 1} and {0, 1} with the default pos_label: scikit-learn as is."""
    s = np.array([0.3, -2.0, 1.0, 0.0, 4.0])
    for y in ([-1, 1, 1, -1, -1], [0, 1, 1, 0, 0]):
        df = pl.DataFrame({"y": y, "s": s})
        got = df.metrics.hinge_loss("y", "s")["hinge_loss"].item()
        assert got == pytest.approx(skm.hinge_loss(y, s), rel=1e-15)


def test_binary_labels_1_2_need_pos_label_and_pos_label_flips_the_sign() -> None:
    df = pl.DataFrame({"y": [1, 2, 2, 1], "s": [0.5, 1.5, -0.5, -2.0]})
    with pytest.raises(plm.DataError, match="pos_label"):
        df.metrics.hinge_loss("y", "s")
    # scikit-learn: 2 (the greater label) is +1
    got = df.metrics.hinge_loss("y", "s", pos_label=2)["hinge_loss"].item()
    assert got == pytest.approx(skm.hinge_loss(df["y"], df["s"]), rel=1e-15)
    # pos_label=1: the scores of class 1, i.e. scikit-learn's on the negated scores
    got = df.metrics.hinge_loss("y", "s", pos_label=1)["hinge_loss"].item()
    assert got == pytest.approx(skm.hinge_loss(df["y"], -df["s"].to_numpy()), rel=1e-15)


def test_one_class_segments() -> None:
    """A segment of negatives only is scikit-learn's; one of positives only is scored
    as positives, where scikit-learn (a single class: LabelBinarizer codes it -1)
    gives max(0, 1 + s): by hand (max(0, 1 - 2) + max(0, 1 - 0.5)) / 2 = 0.25
    (scikit-learn: (3 + 1.5) / 2 = 2.25)."""
    df = pl.DataFrame({"g": ["n", "n", "p", "p"], "y": [0, 0, 1, 1], "s": [2.0, 0.5] * 2})
    got = df.metrics.hinge_loss("y", "s", by="g")
    assert got["hinge_loss"].to_list()[0] == pytest.approx(skm.hinge_loss([0, 0], [2.0, 0.5]))
    assert got["hinge_loss"].to_list()[1] == 0.25
    assert skm.hinge_loss([1, 1], [2.0, 0.5]) == 2.25  # the documented difference


@st.composite
def multiclass(draw: st.DrawFn) -> dict:
    n_classes = draw(st.integers(3, 4))
    n = draw(st.integers(1, 40))
    y = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    data: dict[str, list] = {
        "y": y,
        "g": draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n)),
    }
    for k in range(n_classes):
        data[f"c {k}"] = draw(st.lists(SCORES, min_size=n, max_size=n))  # odd names
    weighted = draw(st.booleans())
    if weighted:
        data["w"] = draw(st.lists(WEIGHTS, min_size=n, max_size=n))
    return {
        "df": pl.DataFrame(data),
        "n_classes": n_classes,
        "weight": "w" if weighted else None,
        "labels": draw(st.booleans()),
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=multiclass())
def test_multiclass_equals_sklearn_per_segment(case: dict) -> None:
    df, k, weight = case["df"], case["n_classes"], case["weight"]
    keys = list(range(k))
    mapping = {c: f"c {c}" for c in reversed(keys)}  # any mapping order
    labels = list(reversed(keys)) if case["labels"] else None
    rows = df if weight is None else df.filter(pl.col("w") > 0)  # weight 0: rows removed
    parts = rows.partition_by("g", as_dict=True)
    complete = all(set(p["y"]) == set(keys) for p in parts.values())
    call = lambda: df.metrics.hinge_loss("y", mapping, by="g", weight=weight, labels=labels)  # noqa: E731
    if labels is None and not complete:
        with pytest.raises(plm.DataError, match="labels="):
            call()
        return
    got = call()
    assert got["g"].to_list() == sorted(p[0] for p in parts)
    for (g,), part in sorted(parts.items()):
        scores = part.select(f"c {c}" for c in keys).to_numpy()
        w = None if weight is None else part["w"].to_numpy()
        expected = skm.hinge_loss(part["y"].to_numpy(), scores, labels=keys, sample_weight=w)
        value = got.filter(pl.col("g") == g)["hinge_loss"].item()
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_multiclass_ties_and_absent_classes_with_labels() -> None:
    """Ties between the actual class and another: margin 0, loss 1 (by hand); class "c"
    absent (labels=): scikit-learn's value."""
    df = pl.DataFrame(
        {"y": ["a", "b", "a"], "sa": [1.0, 0.0, 0.5], "sb": [1.0, 2.0, 0.5], "sc": [0.0, 0.0, 3.0]}
    )
    mapping = {"a": "sa", "b": "sb", "c": "sc"}
    got = df.metrics.hinge_loss("y", mapping, labels=["c", "a", "b"])["hinge_loss"].item()
    scores = df.select("sa", "sb", "sc").to_numpy()
    assert got == pytest.approx(skm.hinge_loss(df["y"], scores, labels=["a", "b", "c"]))
    # by hand: row 1 margin 1 - 1 = 0 -> 1; row 2 margin 2 - 0 = 2 -> 0; row 3 0.5 - 3 -> 3.5
    assert got == pytest.approx((1 + 0 + 3.5) / 3, rel=1e-15)
    with pytest.raises(plm.DataError, match=r"lacks some classes.*labels="):
        df.metrics.hinge_loss("y", mapping)


def test_empty_frame_lazy_and_streaming() -> None:
    empty = pl.DataFrame(schema={"y": pl.Int64, "s": pl.Float64, "g": pl.String})
    assert empty.metrics.hinge_loss("y", "s", by="g").shape == (0, 2)
    df = pl.DataFrame({"y": [0, 1, 1, 0], "s": [0.2, 0.9, -1.0, 3.0], "g": ["x", "x", "y", "y"]})
    eager = df.metrics.hinge_loss("y", "s", by=pl.col("g").str.to_uppercase())
    lazy = df.lazy().metrics.hinge_loss("y", "s", by=pl.col("g").str.to_uppercase())
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect(engine="streaming").equals(eager)
    assert eager["g"].to_list() == ["X", "Y"]


def test_bad_input_is_a_clear_error() -> None:
    df = pl.DataFrame(
        {"y": [0, 1, 2], "a": [0.1, float("nan"), 0.2], "b": [1.0, 0.0, 0.0], "c": [0.0] * 3}
    )
    mapping = {0: "a", 1: "b", 2: "c"}
    with pytest.raises(plm.DataError, match=r"'a'"):
        df.metrics.hinge_loss("y", mapping)
    with pytest.raises(ValueError, match="three or more"):
        df.metrics.hinge_loss("y", {0: "b", 1: "c"})
    with pytest.raises(ValueError, match="`labels`"):
        df.metrics.hinge_loss("y", mapping, labels=[0, 1])
    with pytest.raises(ValueError, match="`labels` is for"):
        df.metrics.hinge_loss("y", "b", labels=[0, 1])
    with pytest.raises(ValueError, match="pos_label"):
        df.metrics.hinge_loss("y", mapping, pos_label=1)
    clean = df.with_columns(pl.col("a").fill_nan(0.0))
    with pytest.raises(plm.DataError, match="no score column"):
        clean.metrics.hinge_loss("y", {0: "a", 1: "b", 5: "c"}, labels=[0, 1, 5])
    with pytest.raises(plm.DataError, match="'w'"):
        df.with_columns(w=pl.lit(-1.0)).metrics.hinge_loss("y", "b", pos_label=1, weight="w")
