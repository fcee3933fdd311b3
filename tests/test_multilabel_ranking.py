"""Multilabel ranking metrics against scikit-learn: roc_auc / average_precision (micro,
macro, weighted, samples, per label), coverage_error, label_ranking_average_precision,
label_ranking_loss, dcg and ndcg; both input forms, ties, weights, segments, bad input.

Where scikit-learn raises (a ROC AUC of one class), the expected number is still
scikit-learn's: the mean of ``roc_auc_score`` over the labels (rows) where it is
defined, the documented rule; a segment with none is null.
"""

# ruff: noqa: N803 - Y, S, W: scikit-learn's matrix names
from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics as plm

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROW_METRICS = {
    "coverage_error": skm.coverage_error,
    "label_ranking_average_precision": skm.label_ranking_average_precision_score,
    "label_ranking_loss": skm.label_ranking_loss,
}
AVERAGES = ["micro", "macro", "weighted", "samples", None]


def _labels(n_labels: int) -> list[str]:
    return [f"l{j}" for j in range(n_labels)]


def _frame(
    Y: np.ndarray,
    S: np.ndarray,
    W: np.ndarray | None = None,
    G: np.ndarray | None = None,
    R: np.ndarray | None = None,
) -> pl.DataFrame:
    """Both input forms of the same rows: ``y`` (List of label names) / ``t{j}``
    (indicators), ``s`` (List of scores) / ``s{j}``, relevances ``r`` / ``r{j}``."""
    labels = _labels(Y.shape[1])
    cols: dict[str, object] = {
        "y": pl.Series(
            [[labels[j] for j in np.flatnonzero(row)] for row in Y], dtype=pl.List(pl.String)
        ),
        "s": pl.Series(S.tolist(), dtype=pl.List(pl.Float64)),
    }
    for j in range(Y.shape[1]):
        cols[f"t{j}"] = pl.Series(Y[:, j].astype(bool), dtype=pl.Boolean)
        cols[f"s{j}"] = pl.Series(S[:, j], dtype=pl.Float64)
    if R is not None:
        cols["r"] = pl.Series(R.tolist(), dtype=pl.List(pl.Float64))
        for j in range(Y.shape[1]):
            cols[f"r{j}"] = pl.Series(R[:, j], dtype=pl.Float64)
    if W is not None:
        cols["w"] = pl.Series(W, dtype=pl.Float64)
    if G is not None:
        cols["g"] = pl.Series(list(G), dtype=pl.String)
    return pl.DataFrame(cols)


def _forms(n_labels: int) -> list[tuple[object, object, object]]:
    """(y_true, y_score, labels) of the list form, the mapping form and the two mixed."""
    labels = _labels(n_labels)
    t_map = {lab: f"t{j}" for j, lab in enumerate(labels)}
    s_map = {lab: f"s{j}" for j, lab in enumerate(labels)}
    return [("y", "s", labels), (t_map, s_map, None), ("y", s_map, None), (t_map, "s", labels)]


@st.composite
def multilabel(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 24))
    n_labels = draw(st.integers(2, 5))
    Y = np.array(
        draw(
            st.lists(
                st.lists(st.booleans(), min_size=n_labels, max_size=n_labels),
                min_size=n,
                max_size=n,
            )
        ),
        dtype=np.int64,
    )
    # one decimal: many ties, within a row and across rows
    S = (
        np.array(
            draw(
                st.lists(
                    st.lists(st.integers(0, 10), min_size=n_labels, max_size=n_labels),
                    min_size=n,
                    max_size=n,
                )
            ),
            dtype=np.float64,
        )
        / 10
    )
    W = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.5]), min_size=n, max_size=n)))
    return Y, S, W


def _close(got: object, expected: object) -> None:
    if expected is None:
        assert got is None
        return
    assert got is not None
    assert np.isclose(got, expected, rtol=1e-9, atol=1e-12), (got, expected)


def _value(frame: pl.DataFrame, column: str) -> object:
    assert frame.height == 1
    return frame[column][0]


def _auc_or_none(
    y: np.ndarray, s: np.ndarray, w: np.ndarray | None, max_fpr: float | None = None
) -> float | None:
    if len(np.unique(y)) < 2:
        return None
    return float(skm.roc_auc_score(y, s, sample_weight=w, max_fpr=max_fpr))


def _expected_auc(
    Y: np.ndarray,
    S: np.ndarray,
    W: np.ndarray | None,
    average: str | None,
    max_fpr: float | None = None,
) -> object:
    """scikit-learn's roc_auc_score of the labels (rows) with both classes, averaged
    (``max_fpr``: each label's standardised partial AUC)."""
    if average == "micro":
        w = None if W is None else np.repeat(W, Y.shape[1])
        return _auc_or_none(Y.ravel(), S.ravel(), w, max_fpr)
    if average == "samples":
        # each row's AUC un-weighted (max_fpr: its partial AUC), the rows' mean weighted
        per_row = [(i, _auc_or_none(Y[i], S[i], None, max_fpr)) for i in range(len(Y))]
        defined = [(i, a) for i, a in per_row if a is not None]
        if not defined:
            return None
        weights = None if W is None else W[[i for i, _ in defined]]
        return float(np.average([a for _, a in defined], weights=weights))
    per_label = [_auc_or_none(Y[:, j], S[:, j], W, max_fpr) for j in range(Y.shape[1])]
    if average is None:
        return per_label
    defined = [(j, a) for j, a in enumerate(per_label) if a is not None]
    if not defined:
        return None
    if average == "macro":
        return float(np.mean([a for _, a in defined]))
    support = (Y * (1.0 if W is None else W[:, None])).sum(axis=0)
    weights = np.array([support[j] for j, _ in defined])
    return (
        float(np.average([a for _, a in defined], weights=weights)) if weights.sum() > 0 else None
    )


def _expected_ap(Y: np.ndarray, S: np.ndarray, W: np.ndarray | None, average: str | None) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = skm.average_precision_score(Y, S, average=average, sample_weight=W)
    return value.tolist() if average is None else float(value)


# ------------------------------------------------------------------------ the oracle
@SETTINGS
@given(data=multilabel(), weighted=st.booleans(), form=st.integers(0, 3))
def test_row_metrics_equal_sklearn(data: tuple, weighted: bool, form: int) -> None:
    Y, S, W = data
    w = W if weighted else None
    df = _frame(Y, S, W)
    y_true, y_score, labels = _forms(Y.shape[1])[form]
    for name, oracle in ROW_METRICS.items():
        got = getattr(df.metrics, name)(
            y_true, y_score, labels=labels, weight="w" if weighted else None
        )
        _close(_value(got, name), float(oracle(Y, S, sample_weight=w)))


@SETTINGS
@given(data=multilabel(), weighted=st.booleans(), form=st.integers(0, 3))
def test_label_ranking_average_precision_of_one_label_equals_sklearn(
    data: tuple, weighted: bool, form: int
) -> None:
    """One label: every row is all true or all false, scikit-learn's LRAP is 1 (its
    own rule); it was refused ("at least two")."""
    Y, S, W = (x[:, :1] if x.ndim == 2 else x for x in data)
    w = W if weighted else None
    df = _frame(Y, S, W)
    y_true, y_score, labels = _forms(1)[form]
    name = "label_ranking_average_precision"
    got = df.metrics.label_ranking_average_precision(
        y_true, y_score, labels=labels, weight="w" if weighted else None
    )
    expected = skm.label_ranking_average_precision_score(Y, S, sample_weight=w)
    _close(_value(got, name), float(expected))


@SETTINGS
@given(data=multilabel(), weighted=st.booleans(), form=st.integers(0, 3))
def test_roc_auc_and_average_precision_equal_sklearn(
    data: tuple, weighted: bool, form: int
) -> None:
    Y, S, W = data
    w = W if weighted else None
    df = _frame(Y, S, W)
    y_true, y_score, labels = _forms(Y.shape[1])[form]
    kw = {"labels": labels, "weight": "w" if weighted else None}
    for average in AVERAGES:
        auc = df.metrics.roc_auc(y_true, y_score, average=average, **kw)
        ap = df.metrics.average_precision(y_true, y_score, average=average, **kw)
        if average is None:
            assert auc["label"].to_list() == _labels(Y.shape[1])
            assert ap["label"].to_list() == _labels(Y.shape[1])
            for got, expected in zip(auc["roc_auc"], _expected_auc(Y, S, w, None), strict=True):
                _close(got, expected)
            for got, expected in zip(
                ap["average_precision"], _expected_ap(Y, S, w, None), strict=True
            ):
                _close(got, expected)
        else:
            _close(_value(auc, "roc_auc"), _expected_auc(Y, S, w, average))
            _close(_value(ap, "average_precision"), _expected_ap(Y, S, w, average))


@SETTINGS
@given(
    data=multilabel(),
    weighted=st.booleans(),
    form=st.integers(0, 3),
    max_fpr=st.sampled_from([0.1, 0.3, 0.75]),
)
def test_partial_roc_auc_equals_sklearn(
    data: tuple, weighted: bool, form: int, max_fpr: float
) -> None:
    """``max_fpr``: scikit-learn's standardised partial AUC of each label (of the
    raveled cells for micro, of each row for samples), averaged; a label or row of
    one class null and left out (scikit-learn raises there)."""
    Y, S, W = data
    w = W if weighted else None
    df = _frame(Y, S, W)
    y_true, y_score, labels = _forms(Y.shape[1])[form]
    kw = {"labels": labels, "weight": "w" if weighted else None, "max_fpr": max_fpr}
    for average in ("micro", "macro", "weighted", "samples", None):
        got = df.metrics.roc_auc(y_true, y_score, average=average, **kw)
        expected = _expected_auc(Y, S, w, average, max_fpr)
        if average is None:
            for g, e in zip(got["roc_auc"], expected, strict=True):  # type: ignore[call-overload]
                _close(g, e)
        else:
            _close(_value(got, "roc_auc"), expected)
    # every row of both classes: scikit-learn's own samples average (it raises otherwise)
    both = (Y.sum(axis=1) > 0) & (Y.sum(axis=1) < Y.shape[1])
    if w is not None:
        both &= w > 0
    if both.any():
        sub = _frame(Y[both], S[both], W[both])
        got = sub.metrics.roc_auc(y_true, y_score, average="samples", **kw)
        sk = skm.roc_auc_score(
            Y[both],
            S[both],
            average="samples",
            max_fpr=max_fpr,
            sample_weight=None if w is None else W[both],
        )
        _close(_value(got, "roc_auc"), float(sk))


@st.composite
def graded(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 20))
    n_labels = draw(st.integers(2, 6))
    R = np.array(
        draw(
            st.lists(
                st.lists(st.integers(0, 3), min_size=n_labels, max_size=n_labels),
                min_size=n,
                max_size=n,
            )
        ),
        dtype=np.float64,
    )
    S = (
        np.array(
            draw(
                st.lists(
                    st.lists(st.integers(0, 6), min_size=n_labels, max_size=n_labels),
                    min_size=n,
                    max_size=n,
                )
            ),
            dtype=np.float64,
        )
        / 10
    )
    W = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n)))
    return R, S, W


@SETTINGS
@given(
    data=graded(),
    k=st.sampled_from([None, 1, 2, 4, 9]),
    weighted=st.booleans(),
    mapping=st.booleans(),
)
def test_dcg_and_ndcg_equal_sklearn(
    data: tuple, k: int | None, weighted: bool, mapping: bool
) -> None:
    R, S, W = data
    w = W if weighted else None
    df = _frame(R > 0, S, W, R=R)
    labels = _labels(R.shape[1])
    if mapping:
        y_true, y_score, lab = (
            {lab: f"r{j}" for j, lab in enumerate(labels)},
            {lab: f"s{j}" for j, lab in enumerate(labels)},
            None,
        )
    else:
        y_true, y_score, lab = "r", "s", labels
    kw = {"labels": lab, "k": k, "weight": "w" if weighted else None}
    _close(
        _value(df.metrics.dcg(y_true, y_score, **kw), "dcg"),
        float(skm.dcg_score(R, S, k=k, sample_weight=w)),
    )
    _close(
        _value(df.metrics.ndcg(y_true, y_score, **kw), "ndcg"),
        float(skm.ndcg_score(R, S, k=k, sample_weight=w)),
    )
    _close(
        _value(df.metrics.dcg(y_true, y_score, log_base=10, **kw), "dcg"),
        float(skm.dcg_score(R, S, k=k, log_base=10, sample_weight=w)),
    )


def test_ignore_ties_equals_sklearn_without_ties() -> None:
    rng = np.random.default_rng(4)
    R = rng.integers(0, 4, (30, 6)).astype(float)
    S = rng.random((30, 6))  # continuous: no ties
    df = _frame(R > 0, S, R=R)
    labels = _labels(6)
    for k in (None, 2):
        for name, oracle in (("dcg", skm.dcg_score), ("ndcg", skm.ndcg_score)):
            got = getattr(df.metrics, name)("r", "s", labels=labels, k=k, ignore_ties=True)
            _close(_value(got, name), float(oracle(R, S, k=k, ignore_ties=True)))
            tied = getattr(df.metrics, name)("r", "s", labels=labels, k=k)
            _close(_value(tied, name), float(oracle(R, S, k=k)))


def test_ignore_ties_with_ties_puts_the_later_label_first() -> None:
    """A reversed stable order: of the tied labels 0 and 4 (score 1), label 4 first.
    By hand: dcg@1 = R[4] / log2(2) = 5; the ideal order puts R = 10 first, so
    ndcg@1 = 5 / 10.  (scikit-learn's argsort is not stable: not the oracle here.)"""
    R = np.array([[10.0, 0, 0, 1, 5]])
    S = np.array([[1.0, 0, 0, 0, 1]])
    df = _frame(R > 0, S, R=R)
    got = df.metrics.dcg("r", "s", labels=_labels(5), k=1, ignore_ties=True)
    _close(_value(got, "dcg"), 5.0)
    got = df.metrics.ndcg("r", "s", labels=_labels(5), k=1, ignore_ties=True)
    _close(_value(got, "ndcg"), 0.5)


# -------------------------------------------------------------------------- segments
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=multilabel(), groups=st.lists(st.sampled_from(["a", "b", None]), min_size=24, max_size=24)
)
def test_segments_equal_sklearn_per_segment(data: tuple, groups: list[str | None]) -> None:
    Y, S, W = data
    G = np.array(groups[: len(Y)], dtype=object)
    df = _frame(Y, S, W, G)
    labels = _labels(Y.shape[1])
    for name, oracle in ROW_METRICS.items():
        got = getattr(df.metrics, name)("y", "s", labels=labels, by="g", weight="w")
        assert got["g"].to_list() == sorted(set(groups[: len(Y)]), key=lambda g: (g is None, g))
        for g, value in got.iter_rows():
            rows = np.array([x == g for x in G])
            _close(value, float(oracle(Y[rows], S[rows], sample_weight=W[rows])))
    for average in ("micro", "macro", "samples"):
        got = df.metrics.roc_auc("y", "s", labels=labels, by="g", weight="w", average=average)
        ap = df.metrics.average_precision("y", "s", labels=labels, by="g", average=average)
        for (g, value), (_, ap_value) in zip(got.iter_rows(), ap.iter_rows(), strict=True):
            rows = np.array([x == g for x in G])
            _close(value, _expected_auc(Y[rows], S[rows], W[rows], average))
            _close(ap_value, _expected_ap(Y[rows], S[rows], None, average))
    per_label = df.metrics.roc_auc("y", "s", labels=labels, by="g", average=None)
    assert per_label.columns == ["g", "label", "roc_auc"]
    assert per_label.height == got.height * len(labels)


# ------------------------------------------------------------------------ hard cases
def _hard() -> tuple[np.ndarray, np.ndarray]:
    Y = np.array([[0, 0, 0], [1, 1, 1], [1, 0, 0], [0, 1, 1], [1, 0, 1]])
    S = np.array(
        [[0.2, 0.2, 0.2], [0.1, 0.5, 0.5], [0.3, 0.3, 0.1], [0.9, 0.2, 0.2], [0.5, 0.5, 0.5]]
    )
    return Y, S


def test_rows_without_true_labels_and_all_true() -> None:
    Y, S = _hard()
    df = _frame(Y, S)
    for name, oracle in ROW_METRICS.items():
        _close(
            _value(getattr(df.metrics, name)("y", "s", labels=_labels(3)), name),
            float(oracle(Y, S)),
        )
    for average in ("micro", "macro", "weighted", None):
        _close(
            _value(df.metrics.roc_auc("y", "s", labels=_labels(3), average="micro"), "roc_auc"),
            float(skm.roc_auc_score(Y, S, average="micro")),
        )
        ap = df.metrics.average_precision("y", "s", labels=_labels(3), average=average)
        expected = _expected_ap(Y, S, None, average)
        assert np.allclose(ap["average_precision"].to_numpy(), expected)
    # samples AUC: rows 0 and 1 are one class (scikit-learn raises): the others' mean
    got = df.metrics.roc_auc("y", "s", labels=_labels(3), average="samples")
    _close(
        _value(got, "roc_auc"), float(np.mean([skm.roc_auc_score(Y[i], S[i]) for i in (2, 3, 4)]))
    )


def test_label_of_one_class_is_null_and_left_out() -> None:
    Y = np.array([[1, 0, 1], [1, 1, 0], [1, 0, 1], [1, 1, 0]])  # l0 always true
    S = np.array([[0.1, 0.2, 0.9], [0.4, 0.8, 0.3], [0.5, 0.1, 0.6], [0.7, 0.9, 0.2]])
    df = _frame(Y, S)
    per = df.metrics.roc_auc("y", "s", labels=_labels(3), average=None)
    assert per["roc_auc"][0] is None
    expected = [skm.roc_auc_score(Y[:, j], S[:, j]) for j in (1, 2)]
    assert np.allclose(per["roc_auc"].to_list()[1:], expected)
    _close(
        _value(df.metrics.roc_auc("y", "s", labels=_labels(3)), "roc_auc"), float(np.mean(expected))
    )
    # no label of two classes, and all the cells one class: null, never a number
    none = _frame(np.ones((3, 2), dtype=int), np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]))
    for average in ("micro", "macro", "weighted", "samples"):
        assert (
            _value(none.metrics.roc_auc("y", "s", labels=_labels(2), average=average), "roc_auc")
            is None
        )


def test_empty_frame_and_empty_segment() -> None:
    Y, S = _hard()
    empty = _frame(Y, S).head(0)
    for name in [*ROW_METRICS, "ndcg", "dcg"]:
        y_true = "y" if name in ROW_METRICS else {"a": "s0", "b": "s1"}
        y_score = "s" if name in ROW_METRICS else {"a": "s0", "b": "s1"}
        labels = _labels(3) if name in ROW_METRICS else None
        assert getattr(empty.metrics, name)(y_true, y_score, labels=labels).height == 0
        assert getattr(empty.metrics, name)(y_true, y_score, labels=labels, by="y").height == 0


def test_zero_weights_are_rows_removed_and_huge_weights() -> None:
    Y, S = _hard()
    W = np.array([1.0, 0.0, 2.0, 0.0, 3.0])
    df = _frame(Y, S, W)
    kept = _frame(Y[W > 0], S[W > 0], W[W > 0])
    labels = _labels(3)
    for name in ROW_METRICS:
        got = getattr(df.metrics, name)("y", "s", labels=labels, weight="w")
        assert_frame_equal(got, getattr(kept.metrics, name)("y", "s", labels=labels, weight="w"))
    for average in AVERAGES:
        for method in ("roc_auc", "average_precision"):
            got = getattr(df.metrics, method)("y", "s", labels=labels, weight="w", average=average)
            expected = getattr(kept.metrics, method)(
                "y", "s", labels=labels, weight="w", average=average
            )
            assert_frame_equal(got, expected)
    huge = _frame(Y, S, np.array([1e300, 1e300, 2e300, 1e300, 3e300]))
    for name, oracle in ROW_METRICS.items():
        got = _value(getattr(huge.metrics, name)("y", "s", labels=labels, weight="w"), name)
        _close(got, float(oracle(Y, S, sample_weight=[1, 1, 2, 1, 3])))


def test_integer_scores_and_ties_only() -> None:
    Y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    S = np.zeros((3, 3))
    df = _frame(Y, S).with_columns(pl.col("s").cast(pl.List(pl.Int64)))
    for name, oracle in ROW_METRICS.items():
        _close(
            _value(getattr(df.metrics, name)("y", "s", labels=_labels(3)), name),
            float(oracle(Y, S)),
        )
    _close(_value(df.metrics.roc_auc("y", "s", labels=_labels(3)), "roc_auc"), 0.5)


def test_integer_labels_and_odd_column_names() -> None:
    Y, S = _hard()
    df = pl.DataFrame(
        {
            "y true": [np.flatnonzero(r).tolist() for r in Y],
            "label": S.tolist(),  # a column named like an output column
        }
    ).with_columns(pl.col("y true").cast(pl.List(pl.Int16)))
    got = df.metrics.roc_auc("y true", "label", labels=[0, 1, 2], average=None)
    assert got["label"].dtype == pl.Int16
    assert got["label"].to_list() == [0, 1, 2]
    _close(
        _value(df.metrics.coverage_error("y true", "label", labels=[0, 1, 2]), "coverage_error"),
        float(skm.coverage_error(Y, S)),
    )


# ------------------------------------------------------------------- lazy, streaming
def test_lazy_never_collects_and_streaming_agrees(tmp_path: object) -> None:
    rng = np.random.default_rng(1)
    Y = (rng.random((200, 4)) < 0.35).astype(int)
    S = np.round(rng.random((200, 4)), 1)
    df = _frame(Y, S, np.round(rng.random(200) * 2 + 0.1, 2), rng.choice(["a", "b"], 200))
    labels = _labels(4)
    calls = [
        *((name, {}) for name in ROW_METRICS),
        *(("roc_auc", {"average": a}) for a in AVERAGES),
        *(("average_precision", {"average": a}) for a in AVERAGES),
    ]
    path = f"{tmp_path}/rows.parquet"
    df.write_parquet(path)
    for name, kw in calls:
        eager = getattr(df.metrics, name)("y", "s", labels=labels, by="g", weight="w", **kw)
        lazy = getattr(df.lazy().metrics, name)("y", "s", labels=labels, by="g", weight="w", **kw)
        assert isinstance(lazy, pl.LazyFrame)
        assert_frame_equal(lazy.collect(engine="streaming"), eager)
        scanned = getattr(pl.scan_parquet(path).metrics, name)(
            "y", "s", labels=labels, by="g", weight="w", **kw
        )
        assert_frame_equal(scanned.collect(engine="streaming"), eager, rel_tol=1e-12)
    for name in ("dcg", "ndcg"):
        args = (
            {lab: f"t{j}" for j, lab in enumerate(labels)},
            {lab: f"s{j}" for j, lab in enumerate(labels)},
        )
        eager = getattr(df.metrics, name)(*args, k=2, by="g")
        lazy = getattr(df.lazy().metrics, name)(*args, k=2, by="g")
        assert_frame_equal(lazy.collect(engine="streaming"), eager)


# -------------------------------------------------------------------------- bad input
def _bad_frame() -> pl.DataFrame:
    Y, S = _hard()
    return _frame(Y, S, np.ones(5))


def test_score_lists_must_be_aligned_with_labels() -> None:
    df = _bad_frame().with_columns(
        pl.when(pl.int_range(pl.len()) < 2).then(pl.col("s").list.head(2)).otherwise("s").alias("s")
    )
    for name in ROW_METRICS:
        with pytest.raises(
            plm.DataError, match=r"'s' \(argument `y_score`\) has 2 rows whose list"
        ):
            getattr(df.metrics, name)("y", "s", labels=_labels(3))
        with pytest.raises(plm.DataError, match="has 2 rows whose list"):
            getattr(df.lazy().metrics, name)("y", "s", labels=_labels(3)).collect(
                engine="streaming"
            )
    with pytest.raises(plm.DataError, match="has 2 rows whose list"):
        df.metrics.roc_auc("y", "s", labels=_labels(3), average="macro")


def test_labels_are_required_with_score_lists() -> None:
    df = _bad_frame()
    with pytest.raises(ValueError, match="`labels` is required with a List column of scores"):
        df.metrics.coverage_error("y", "s")
    with pytest.raises(ValueError, match="`labels` is required"):
        df.lazy().metrics.roc_auc("y", "s", average="macro")


def test_bad_scores_truth_and_weights_are_counted() -> None:
    df = _bad_frame()
    nan = df.with_columns(
        pl.when(pl.int_range(pl.len()) == 1).then(float("nan")).otherwise("s1").alias("s1")
    )
    s_map = {lab: f"s{j}" for j, lab in enumerate(_labels(3))}
    with pytest.raises(
        plm.DataError,
        match=r"'s0', 's1', 's2' \(argument `y_score`\) have, in one of them or more, 1 null",
    ):
        nan.metrics.label_ranking_loss("y", s_map)
    with pytest.raises(plm.DataError, match="more, 1 null"):
        nan.metrics.roc_auc("y", s_map, average="micro")
    unknown = df.with_columns(pl.lit(["l0", "zz"]).alias("y"))
    with pytest.raises(plm.DataError, match=r"'y' has 5 rows whose label .*no score column"):
        unknown.metrics.coverage_error("y", "s", labels=_labels(3))
    null_list = df.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise("y").alias("y")
    )
    with pytest.raises(plm.DataError, match="'y' has 1 null rows"):
        null_list.metrics.label_ranking_average_precision("y", "s", labels=_labels(3))
    repeated = df.with_columns(pl.lit(["l0", "l0"]).alias("y"))
    with pytest.raises(plm.DataError, match="more than once"):
        repeated.metrics.average_precision("y", "s", labels=_labels(3), average="samples")
    negative = df.with_columns(pl.lit(-1.0).alias("w"))
    with pytest.raises(plm.DataError, match="'w'"):
        negative.metrics.coverage_error("y", "s", labels=_labels(3), weight="w")
    with pytest.raises(plm.DataError, match="'w'"):
        negative.metrics.roc_auc("y", "s", labels=_labels(3), weight="w", average=None)


def test_relevance_checks() -> None:
    df = _bad_frame().with_columns(pl.col("s").alias("r"))
    negative = df.with_columns(pl.col("r").list.eval(pl.element() - 0.3))
    with pytest.raises(
        plm.DataError, match=r"'r' \(argument `y_true`: relevances\) has 4 rows with a negative"
    ):
        negative.metrics.ndcg("r", "s", labels=_labels(3))
    negative.metrics.dcg("r", "s", labels=_labels(3))  # signed gains: fine for dcg
    null = df.with_columns(pl.lit([1.0, None, 2.0]).alias("r"))
    with pytest.raises(plm.DataError, match="relevances\\) has 5 rows with a null"):
        null.metrics.dcg("r", "s", labels=_labels(3))
    with pytest.raises(
        pl.exceptions.SchemaError, match="'y' \\(argument `y_true`\\) must be a List of numbers"
    ):
        df.metrics.ndcg("y", "s", labels=_labels(3))


def test_options_are_checked_first() -> None:
    df = _bad_frame()
    for bad in (0, -1, 1.5, "2"):
        with pytest.raises(ValueError, match="`k` must be an integer >= 1"):
            df.metrics.ndcg("missing", "s", labels=_labels(3), k=bad)
    for bad in (1, 0, -2.0, float("inf"), "e"):
        with pytest.raises(ValueError, match="`log_base` must be"):
            df.metrics.dcg("missing", "s", labels=_labels(3), log_base=bad)
    with pytest.raises(ValueError, match="`ignore_ties` must be True or False"):
        df.metrics.dcg("missing", "s", labels=_labels(3), ignore_ties=1)
    with pytest.raises(ValueError, match="`average` must be"):
        df.metrics.roc_auc("y", "s", labels=_labels(3), average="sample")


def test_mapping_labels_must_match() -> None:
    df = _bad_frame()
    t_map = {"l0": "t0", "l1": "t1"}
    s_map = {"l0": "s0", "l1": "s1", "l2": "s2"}
    with pytest.raises(ValueError, match="give both the same labels"):
        df.metrics.coverage_error(t_map, s_map)
    with pytest.raises(ValueError, match="must be the labels of the `y_score` mapping"):
        df.metrics.coverage_error("y", s_map, labels=["l0", "l1"])
    with pytest.raises(ValueError, match="`by` column 'coverage_error' collides"):
        df.metrics.coverage_error("y", s_map, by=pl.col("y").list.len().alias("coverage_error"))


def test_refused_options_of_multilabel_scores() -> None:
    df = _bad_frame()
    s_map = {lab: f"s{j}" for j, lab in enumerate(_labels(3))}
    for kwargs in (
        {"ci": 0.9},
        {"bins": 10},
        {"pos_label": 1},
        {"multi_class": "ovo"},
    ):
        with pytest.raises(ValueError, match="multilabel"):
            df.metrics.roc_auc("y", s_map, **kwargs)
    with pytest.raises(ValueError, match="multilabel"):
        df.metrics.average_precision("y", s_map, ci=0.9)


def test_partial_samples_auc_hard_cases() -> None:
    """average="samples" with max_fpr: segments, a row of weight 0 (absent), rows of one
    class (left out; a segment of only such rows is null), the empty frame, odd names."""
    df = pl.DataFrame(
        {
            "t 0!": [True, False, True, False],
            "__t1": [False, False, True, True],
            "s(0)": [0.2, 0.5, 0.1, 0.7],
            "s(1)": [0.4, 0.5, 0.3, 0.7],
            "w": [1.0, 0.0, 2.0, 1e12],
            "g": ["a", "b", "a", "a"],
        }
    )
    truth, scores = {0: "t 0!", 1: "__t1"}, {0: "s(0)", 1: "s(1)"}
    # segment a: rows 0 and 3 have both classes, row 2 has one; segment b: row 1, one class
    rows = {0: ([1, 0], [0.2, 0.4]), 3: ([0, 1], [0.7, 0.7])}
    auc = {i: skm.roc_auc_score(y, s, max_fpr=0.5) for i, (y, s) in rows.items()}
    got = df.metrics.roc_auc(truth, scores, average="samples", max_fpr=0.5, by="g")
    assert got["g"].to_list() == ["a", "b"]
    _close(got["roc_auc"][0], (auc[0] + auc[3]) / 2)
    assert got["roc_auc"][1] is None
    weighted = df.lazy().metrics.roc_auc(
        truth, scores, average="samples", max_fpr=0.5, by="g", weight="w"
    )
    weighted = weighted.collect(engine="streaming")
    assert weighted["g"].to_list() == ["a"]  # b's only row weighs 0
    _close(weighted["roc_auc"][0], (auc[0] * 1.0 + auc[3] * 1e12) / (1.0 + 1e12))
    for by in (None, "g"):
        empty = df.clear().metrics.roc_auc(truth, scores, average="samples", max_fpr=0.5, by=by)
        assert empty.height == 0
        assert empty.columns == [*([by] if by else []), "roc_auc"]
