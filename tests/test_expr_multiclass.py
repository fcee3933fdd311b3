"""Multiclass expressions against scikit-learn and the frame methods, per group."""

from __future__ import annotations

import math
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.utils.extmath import _nanaverage

import pl_metrics as plm


def _jaccard(y_true, y_pred, *, average, labels, zero_division, sample_weight) -> float:
    """``jaccard_score``; with ``zero_division=nan`` (which it refuses) its own steps
    by hand: the per-class ratios of ``multilabel_confusion_matrix``, NaN where the
    denominator is 0, averaged by scikit-learn's ``_nanaverage``."""
    kw = {"labels": labels, "sample_weight": sample_weight}
    if not math.isnan(zero_division):
        return skm.jaccard_score(y_true, y_pred, average=average, zero_division=zero_division, **kw)
    mcm = skm.multilabel_confusion_matrix(y_true, y_pred, **kw)
    tp, fp, fn = mcm[:, 1, 1], mcm[:, 0, 1], mcm[:, 1, 0]
    if average == "micro":
        tp, fp, fn = tp.sum(keepdims=True), fp.sum(keepdims=True), fn.sum(keepdims=True)
    den = tp + fp + fn
    ratios = np.divide(tp, den, out=np.full(len(den), np.nan), where=den > 0)
    return float(_nanaverage(ratios, weights=(tp + fn) if average == "weighted" else None))


SCORES = {
    "precision": skm.precision_score,
    "recall": skm.recall_score,
    "f_beta": lambda **kw: skm.fbeta_score(beta=0.5, **kw),
    "f1": skm.f1_score,
    "jaccard": _jaccard,
    "fowlkes_mallows": oracle.fowlkes_mallows,
}


def _expr(name: str, **kw: object) -> pl.Expr:
    if name == "f_beta":
        kw["beta"] = 0.5
    return getattr(plm, name)("t", "p", **kw).alias("value")


def _rows(max_size: int = 40) -> st.SearchStrategy[list[tuple[int, int, int, float]]]:
    """(group, true, predicted, weight): few labels, so that classes are often absent
    from a group, predicted only or true only; weights include 0."""
    return st.lists(
        st.tuples(
            st.integers(0, 2),
            st.integers(0, 3),
            st.integers(0, 4),
            st.sampled_from([0.0, 0.5, 1.0, 3.0]),
        ),
        min_size=1,
        max_size=max_size,
    )


def _segments(df: pl.DataFrame, weighted: bool):
    """Each group's rows as sklearn sees them (rows of weight 0 removed)."""
    for (g,), seg in df.group_by("g"):
        kept = seg.filter(pl.col("w") > 0) if weighted else seg
        yield g, kept["t"].to_numpy(), kept["p"].to_numpy(), kept["w"].to_numpy()


def _check_over(df: pl.DataFrame, expr: pl.Expr, got: pl.DataFrame) -> None:
    """``over()`` broadcasts the ``group_by().agg()`` value to the group's rows."""
    over = df.select("g", expr.over("g")).unique().sort("g")
    assert_frame_equal(over, got, check_exact=False, rel_tol=1e-12)


@settings(max_examples=50, deadline=None)
@given(
    data=_rows(),
    name=st.sampled_from(sorted(SCORES)),
    average=st.sampled_from(["micro", "macro", "weighted"]),
    weighted=st.booleans(),
    zero_division=st.sampled_from([0.0, 1.0, math.nan]),
    labels=st.sampled_from([None, [2, 0, 5], [3]]),
)
def test_averages_equal_sklearn_per_group(
    data, name, average, weighted, zero_division, labels
) -> None:
    df = pl.DataFrame(data, schema=["g", "t", "p", "w"], orient="row")
    kw = {"average": average, "labels": labels, "zero_division": zero_division}
    expr = _expr(name, weight="w" if weighted else None, **kw)
    got = df.group_by("g").agg(expr).sort("g")
    _check_over(df, expr, got)
    values = dict(got.iter_rows())
    for g, t, p, w in _segments(df, weighted):
        if len(t) == 0:  # every row of weight 0: no row in the frame methods either
            assert values[g] is None
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = SCORES[name](
                y_true=t,
                y_pred=p,
                sample_weight=w if weighted else None,
                **kw,
            )
        assert values[g] == pytest.approx(expected, rel=1e-9, abs=1e-12, nan_ok=True)


@settings(max_examples=40, deadline=None)
@given(
    data=_rows(),
    average=st.sampled_from(["micro", "macro", "weighted"]),
    weighted=st.booleans(),
    labels=st.sampled_from([None, [2, 0, 5]]),
)
def test_averages_equal_the_frame_method(data, average, weighted, labels) -> None:
    df = pl.DataFrame(data, schema=["g", "t", "p", "w"], orient="row")
    w = "w" if weighted else None
    got = df.group_by("g").agg(
        plm.precision("t", "p", average=average, labels=labels, weight=w),
        plm.recall("t", "p", average=average, labels=labels, weight=w),
        plm.f1("t", "p", average=average, labels=labels, weight=w),
        plm.jaccard("t", "p", average=average, labels=labels, weight=w),
        plm.fowlkes_mallows("t", "p", average=average, labels=labels, weight=w),
    )
    frame = df.metrics.averages(
        "t", "p", by="g", labels=labels, weight=w, extra_scores="fowlkes_mallows"
    )
    expected = frame.filter(pl.col("average") == average).select(
        "g",
        *(
            pl.col(m).alias(f"{m}_{average}")
            for m in ("precision", "recall", "f1", "jaccard", "fowlkes_mallows")
        ),
    )
    # a group whose rows all weigh 0 has no row in the frame: the expression is null
    got = got.drop_nulls().sort("g")
    assert_frame_equal(got, expected.sort("g"), check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


def _summary_sk(name: str, t, p, w, weights, labels) -> float | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if labels is not None:  # summary drops the rows outside labels
            inside = np.isin(t, labels) & np.isin(p, labels)
            t, p, w = t[inside], p[inside], None if w is None else w[inside]
        if len(t) == 0:  # sklearn refuses no rows: compared with summary below
            return None
        if name == "mcc":
            return skm.matthews_corrcoef(t, p, sample_weight=w)
        if name == "balanced_accuracy":
            return skm.balanced_accuracy_score(t, p, sample_weight=w)
        if name == "cohen_kappa":
            return skm.cohen_kappa_score(t, p, weights=weights, labels=labels, sample_weight=w)
        return skm.hamming_loss(t, p, sample_weight=w)


@settings(max_examples=60, deadline=None)
@given(
    data=_rows(),
    name=st.sampled_from(["mcc", "balanced_accuracy", "cohen_kappa", "hamming_loss"]),
    weighted=st.booleans(),
    weights=st.sampled_from([None, "linear", "quadratic"]),
    labels=st.sampled_from([None, [3, 0, 1], [1, 2, 3, 4, 0]]),
)
def test_summary_metrics_equal_sklearn_and_summary(data, name, weighted, weights, labels) -> None:
    df = pl.DataFrame(data, schema=["g", "t", "p", "w"], orient="row")
    w = "w" if weighted else None
    kw: dict[str, object] = {"weight": w}
    if name == "cohen_kappa":
        kw["kappa_weights"] = weights
    if name != "hamming_loss":
        kw["labels"] = labels
    else:
        labels = None
    expr = getattr(plm, name)("t", "p", **kw).alias("value")
    got = df.group_by("g").agg(expr).sort("g")
    _check_over(df, expr, got)
    values = dict(got.iter_rows())
    for g, t, p, sw in _segments(df, weighted):
        if len(t) == 0:
            assert values[g] is None
            continue
        expected = _summary_sk(name, t, p, sw if weighted else None, weights, labels)
        if expected is not None:
            assert values[g] == pytest.approx(expected, rel=1e-9, abs=1e-12, nan_ok=True)
    # summary's columns (kappa_weights), 1 - accuracy for the Hamming loss
    summary = df.metrics.summary("t", "p", by="g", weight=w, labels=labels, kappa_weights=weights)
    column = (1 - pl.col("accuracy")) if name == "hamming_loss" else pl.col(name)
    expected = summary.select("g", column.alias("value"))
    assert_frame_equal(
        got.drop_nulls().sort("g"),
        expected.sort("g"),
        check_exact=False,
        rel_tol=1e-9,
        abs_tol=1e-12,
    )


NAMES = ["precision", "recall", "f1", "f_beta", "jaccard", "fowlkes_mallows"]
ALL = [
    *(lambda n=n, **kw: _expr(n, average="macro", **kw) for n in NAMES),
    lambda **kw: plm.mcc("t", "p", **kw),
    lambda **kw: plm.balanced_accuracy("t", "p", **kw),
    lambda **kw: plm.cohen_kappa("t", "p", kappa_weights="quadratic", **kw),
    lambda **kw: plm.hamming_loss("t", "p", **kw),
]
ALL_IDS = [*NAMES, "mcc", "balanced_accuracy", "cohen_kappa", "hamming_loss"]


@pytest.mark.parametrize("make", ALL, ids=ALL_IDS)
def test_empty_frame_and_all_zero_weights(make) -> None:
    empty = pl.DataFrame(schema={"g": pl.Int64, "t": pl.Int64, "p": pl.Int64, "w": pl.Float64})
    assert empty.group_by("g").agg(make()).height == 0
    assert empty.select(make()).item() is None
    zero = pl.DataFrame({"g": [1, 1], "t": [0, 1], "p": [1, 1], "w": [0.0, 0.0]})
    assert zero.select(make(weight="w")).item() is None


@pytest.mark.parametrize("make", ALL, ids=ALL_IDS)
def test_one_class_and_string_labels(make) -> None:
    one = pl.DataFrame({"t": ["a", "a"], "p": ["a", "a"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = one.select(make()).item()
        name = one.select(make()).columns[0]
        if name.startswith("mcc"):
            assert value == skm.matthews_corrcoef(["a", "a"], ["a", "a"])
        elif name.startswith("cohen_kappa"):
            assert math.isnan(value)  # sklearn: NaN (0 / 0 expected disagreement)
        elif name.startswith("hamming_loss"):
            assert value == 0.0
        else:
            assert value == 1.0


@pytest.mark.parametrize("make", ALL, ids=ALL_IDS)
def test_zero_weights_are_rows_removed(make) -> None:
    rng = np.random.default_rng(3)
    df = pl.DataFrame(
        {"t": rng.integers(0, 3, 50), "p": rng.integers(0, 3, 50), "w": rng.random(50) + 0.1}
    )
    # rows of weight 0 holding a class seen nowhere else leave no trace
    extra = pl.DataFrame({"t": [7, 7], "p": [8, 0], "w": [0.0, 0.0]})
    both = pl.concat([df, extra])
    assert both.select(make(weight="w")).item() == pytest.approx(
        df.select(make(weight="w")).item(), rel=1e-12
    )


@pytest.mark.parametrize("make", ALL, ids=ALL_IDS)
def test_bad_input_names_the_column(make) -> None:
    nulls = pl.DataFrame({"t": [0, None, 1], "p": [0, 1, 1], "w": [1.0, 1.0, 1.0]})
    with pytest.raises(plm.DataError, match=r"'t'.*1"):
        nulls.select(make())
    bad_weight = nulls.with_columns(t=pl.lit(1), w=pl.Series([1.0, -1.0, 1.0]))
    with pytest.raises(plm.DataError, match="'w'"):
        bad_weight.select(make(weight="w"))
    floats = pl.DataFrame({"t": [0.0, 1.5, 1.0], "p": [0, 1, 1]})
    with pytest.raises(plm.DataError, match="'t'"):
        floats.select(make())
    mixed = pl.DataFrame({"t": ["a", "b"], "p": [0, 1]})
    with pytest.raises(pl.exceptions.SchemaError, match=r"'t'.*'p'"):
        mixed.select(make())


def test_float_and_integer_labels_are_one_label() -> None:
    df = pl.DataFrame({"t": [0.0, 1.0, 2.0, 2.0], "p": [0, 2, 2, 1]})
    got = df.select(plm.f1("t", "p", average="macro")).item()
    assert got == pytest.approx(skm.f1_score([0, 1, 2, 2], [0, 2, 2, 1], average="macro"))


def test_options_are_checked_at_the_call() -> None:
    with pytest.raises(ValueError, match=r"`average` must be one of"):
        plm.f1("t", "p", average="samples")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="`labels` selects the classes"):
        plm.precision("t", "p", labels=[0, 1])
    with pytest.raises(ValueError, match="`labels` must not be empty"):
        plm.recall("t", "p", average="macro", labels=[])
    with pytest.raises(ValueError, match="`labels` must not repeat"):
        plm.mcc("t", "p", labels=[1, 1])
    with pytest.raises(ValueError, match="`kappa_weights` must be None or one of"):
        plm.cohen_kappa("t", "p", kappa_weights="w")  # type: ignore[arg-type]


def test_kappa_weights_former_name_is_deprecated() -> None:
    # kappa's weights are kappa_weights= everywhere (summary, the CLI, the expression)
    df = pl.DataFrame({"t": [0, 1, 2, 2, 1], "p": [0, 2, 2, 2, 1]})
    now = df.select(plm.cohen_kappa("t", "p", kappa_weights="linear")).item()
    with pytest.warns(DeprecationWarning, match="`weights=` is deprecated: it is `kappa_weights=`"):
        before = df.select(plm.cohen_kappa("t", "p", weights="linear")).item()
    assert (
        before == now == df.metrics.summary("t", "p", kappa_weights="linear")["cohen_kappa"].item()
    )
    with pytest.raises(TypeError, match="pass `kappa_weights` only"):
        plm.cohen_kappa("t", "p", kappa_weights="linear", weights="linear")


def test_labels_of_another_dtype_name_the_column() -> None:
    df = pl.DataFrame({"t": ["a", "b"], "p": ["a", "a"]})
    with pytest.raises(ValueError, match=r"`labels`=0 cannot be a label of column 't'"):
        df.select(plm.f1("t", "p", average="macro", labels=[0, 1]))


def test_names_and_several_averages_in_one_select() -> None:
    df = pl.DataFrame({"t": [0, 1, 2, 2], "p": [0, 2, 2, 1]})
    out = df.select(
        plm.f1("t", "p", average="macro"),
        plm.f1("t", "p", average="weighted"),
        plm.f_beta("t", "p", beta=2, average="micro"),
        plm.precision("t", "p", average="macro"),
    )
    assert out.columns == ["f1_macro", "f1_weighted", "f2_micro", "precision_macro"]


@pytest.mark.parametrize("make", ALL[:-1], ids=ALL_IDS[:-1])  # not the Hamming loss: no classes
def test_weighted_class_sums_are_one_call_over_all_groups(make, monkeypatch) -> None:
    # the weighted per-class sums are computed by one numpy call over every group's
    # rows (no Python call per group): 40 groups, one call (before: 80, two per group,
    # each with the group's rows); each group's value is the expression's on its rows
    from pl_metrics._expr import multiclass

    calls: list[int] = []
    original = multiclass._weighted_bincounts

    def counted(s: pl.Series, *args: object, **kwargs: object) -> pl.Series:
        calls.append(s.len())
        return original(s, *args, **kwargs)

    monkeypatch.setattr(multiclass, "_weighted_bincounts", counted)
    rng = np.random.default_rng(5)
    n = 2_000
    df = pl.DataFrame(
        {
            "g": rng.integers(0, 40, n),
            "t": rng.integers(0, 3, n),
            "p": rng.integers(0, 3, n),
            "w": rng.random(n) * 3,
        }
    )
    got = df.group_by("g").agg(make(weight="w").alias("v")).sort("g")
    assert calls == [40]
    for g, v in got.iter_rows():
        alone = df.filter(pl.col("g") == g).select(make(weight="w").alias("v"))["v"][0]
        assert v == pytest.approx(alone, rel=1e-12, nan_ok=True)


@pytest.mark.parametrize("labels", [None, [0, 1, 2]])
@pytest.mark.parametrize("make", ALL[:-1], ids=ALL_IDS[:-1])
def test_a_frame_wide_expression_beside_columns_is_one_list(make, labels, monkeypatch) -> None:
    # lf.select("y", plm.mcc(...)) on the streaming engine: the rows' list, a scalar,
    # was broadcast to each morsel's rows before the per-class sums (list.eval is
    # element-wise), so they ran on n copies of it: time and memory n^2 (2,000 rows:
    # 526 MB; 8,000: out of memory), the unweighted path too (mcc on 4,000 rows:
    # 3.6 s against 0.006 s in memory).  Now one list, one call, the same values
    from pl_metrics._expr import multiclass

    calls: list[tuple[int, int]] = []
    original = multiclass._weighted_bincounts

    def counted(s: pl.Series, *args: object, **kwargs: object) -> pl.Series:
        calls.append((s.len(), int(s.list.len().sum())))
        return original(s, *args, **kwargs)

    monkeypatch.setattr(multiclass, "_weighted_bincounts", counted)
    rng = np.random.default_rng(8)
    n = 3_000
    df = pl.DataFrame(
        {"t": rng.integers(0, 3, n), "p": rng.integers(0, 3, n), "w": rng.random(n) * 2}
    )
    kw = {} if labels is None else {"labels": labels}
    for weight in ("w", None):
        expr = make(weight=weight, **kw).alias("v")
        streamed = df.lazy().select("t", expr).collect(engine="streaming")
        alone = df.select(expr).item()
        assert streamed.height == n
        assert streamed["v"].to_list() == pytest.approx([alone] * n, rel=1e-12, nan_ok=True)
    assert calls
    assert all(call == (1, n) for call in calls)


def _adjusted_sk(t, p, w) -> float:
    """scikit-learn's ``balanced_accuracy_score(adjusted=True)``; with one class in
    ``t`` it divides by 0 (-inf, or NaN where every row is right), where pl_metrics
    gives NaN: no chance level below a perfect score."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = skm.balanced_accuracy_score(t, p, sample_weight=w, adjusted=True)
    if len(np.unique(t)) == 1:
        assert value == -math.inf or math.isnan(value)
        return math.nan
    return value


@settings(max_examples=80, deadline=None)
@given(
    data=_rows(),
    weighted=st.booleans(),
    labels=st.sampled_from([None, [3, 0, 1], [1, 2, 3, 4, 0], [2]]),
)
def test_adjusted_balanced_accuracy_equals_sklearn(data, weighted, labels) -> None:
    """``adjusted=True`` (issue 49): the expression, ``summary`` and a merged state
    equal scikit-learn's ``balanced_accuracy_score(adjusted=True)`` per group, with
    absent classes (``labels=`` naming classes a group lacks), one class and weights
    (0 included)."""
    df = pl.DataFrame(data, schema=["g", "t", "p", "w"], orient="row")
    w = "w" if weighted else None
    expr = plm.balanced_accuracy("t", "p", labels=labels, weight=w, adjusted=True)
    got = df.group_by("g").agg(expr.alias("value")).sort("g")
    _check_over(df, expr.alias("value"), got)
    values = dict(got.iter_rows())
    summary = df.metrics.summary("t", "p", by="g", weight=w, labels=labels, adjusted=True)
    frame = dict(summary.select("g", "balanced_accuracy").iter_rows())
    for g, t_all, p_all, w_all in _segments(df, weighted):
        # summary drops the rows outside labels
        inside = np.ones(len(t_all), bool) if labels is None else np.isin(t_all, labels)
        inside &= True if labels is None else np.isin(p_all, labels)
        t, p, sw = t_all[inside], p_all[inside], w_all[inside]
        if len(t) == 0:  # no rows (sklearn refuses them): NaN, as the unadjusted one
            assert g not in frame or math.isnan(frame[g])
            continue
        expected = _adjusted_sk(t, p, sw if weighted else None)
        assert values[g] == pytest.approx(expected, rel=1e-9, abs=1e-12, nan_ok=True)
        assert frame[g] == pytest.approx(expected, rel=1e-9, abs=1e-12, nan_ok=True)
    state = df.metrics.counts("t", "p", by="g", weight=w)
    merged = plm.from_counts(state, by="g").summary(labels=labels, adjusted=True)
    assert_frame_equal(merged, summary, check_exact=not weighted, rel_tol=1e-12)


def test_adjusted_balanced_accuracy_by_hand_and_its_interval() -> None:
    """By hand: classes 0, 1, 2 with recalls 1, 1/2, 1 -> balanced accuracy 5/6, adjusted
    (5/6 - 1/3) / (2/3) = 3/4 (scikit-learn: 0.75); one class: NaN.  The interval's
    bounds go through the same map; multilabel rows refuse it."""
    df = pl.DataFrame({"t": [0, 1, 1, 2], "p": [0, 1, 2, 2]})
    assert skm.balanced_accuracy_score(df["t"], df["p"], adjusted=True) == pytest.approx(0.75)
    plain = df.metrics.summary("t", "p", ci=0.9)
    adjusted = df.metrics.summary("t", "p", ci=0.9, adjusted=True)
    assert adjusted["balanced_accuracy"].item() == pytest.approx(0.75)
    for column in ("balanced_accuracy", "balanced_accuracy_low", "balanced_accuracy_high"):
        assert adjusted[column].item() == pytest.approx((plain[column].item() - 1 / 3) / (2 / 3))
    rest = [c for c in plain.columns if not c.startswith("balanced")]
    assert_frame_equal(adjusted.select(rest), plain.select(rest))
    one = pl.DataFrame({"t": [1, 1, 1], "p": [1, 0, 1]})
    assert math.isnan(one.metrics.summary("t", "p", adjusted=True)["balanced_accuracy"].item())
    assert math.isnan(one.select(plm.balanced_accuracy("t", "p", adjusted=True)).item())
    with pytest.raises(ValueError, match="adjusted"):
        df.metrics.summary("t", "p", adjusted="yes")  # type: ignore[arg-type]
    multilabel = pl.DataFrame({"t": [[0], [1]], "p": [[0], [0, 1]]})
    with pytest.raises(ValueError, match="`adjusted` is for single-label rows"):
        multilabel.metrics.summary("t", "p", adjusted=True)
