"""Expressions against scikit-learn in select, group_by().agg() and over()."""

from __future__ import annotations

import inspect
import math
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import pl_metrics as plm


def _sk(name: str, y_true, y_pred, *, pos_label, weight, zero_division, beta=1.0) -> float:
    kw = {"sample_weight": weight} if weight is not None else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "accuracy":
            return skm.accuracy_score(y_true, y_pred, **kw)
        if name == "f1":  # pos_label against the rest, as scikit-learn's binary F1
            labels = [pos_label]
            return skm.f1_score(
                y_true, y_pred, labels=labels, average=None, zero_division=zero_division, **kw
            )[0]
        # binary: pos_label against the rest, as average=None, labels=[pos_label]
        labels = [pos_label]
        if name in ("precision", "recall", "f_beta"):
            p, r, f, _ = skm.precision_recall_fscore_support(
                y_true,
                y_pred,
                labels=labels,
                average=None,
                beta=beta,
                zero_division=zero_division,
                **kw,
            )
            return {"precision": p, "recall": r, "f_beta": f}[name][0]
        if name == "fowlkes_mallows":
            return oracle.fowlkes_mallows(
                y_true, y_pred, labels=labels, zero_division=zero_division, **kw
            )[0]
        if name == "jaccard":
            if math.isnan(zero_division):
                mcm = skm.multilabel_confusion_matrix(y_true, y_pred, labels=labels, **kw)
                tp, fp, fn = mcm[0, 1, 1], mcm[0, 0, 1], mcm[0, 1, 0]
                return tp / (tp + fp + fn) if tp + fp + fn else math.nan
            return skm.jaccard_score(
                y_true, y_pred, labels=labels, average=None, zero_division=zero_division, **kw
            )[0]
        # specificity = recall of "not pos_label"
        return skm.recall_score(
            np.asarray(y_true) != pos_label,
            np.asarray(y_pred) != pos_label,
            pos_label=True,
            zero_division=zero_division,
            **kw,
        )


NAMES = [
    "accuracy",
    "precision",
    "recall",
    "f1",
    "f_beta",
    "jaccard",
    "fowlkes_mallows",
    "specificity",
]


def _expr(name: str, *, pos_label, weight, zero_division, beta) -> pl.Expr:
    if name == "accuracy":
        return plm.accuracy("t", "p", weight=weight)
    kw = {"pos_label": pos_label, "weight": weight, "zero_division": zero_division}
    if name == "f_beta":
        kw["beta"] = beta
    return getattr(plm, name)("t", "p", **kw)


@settings(max_examples=95, deadline=None)  # about 13 examples per metric
@given(
    data=st.lists(
        st.tuples(
            st.integers(0, 2),
            st.integers(0, 2),
            st.integers(0, 2),
            st.sampled_from([0.5, 1.0, 2.0]),
        ),
        min_size=1,
        max_size=40,
    ),
    name=st.sampled_from(NAMES),
    weighted=st.booleans(),
    zero_division=st.sampled_from([0.0, 1.0, math.nan]),
    beta=st.sampled_from([1.0, 0.5, 2.0]),
    pos_label=st.sampled_from([1, 2]),
)
def test_group_by_agg_equals_sklearn(data, name, weighted, zero_division, beta, pos_label):
    df = pl.DataFrame(data, schema=["g", "t", "p", "w"], orient="row")
    weight = "w" if weighted else None
    expr = _expr(name, pos_label=pos_label, weight=weight, zero_division=zero_division, beta=beta)

    def invalid(seg: pl.DataFrame) -> bool:
        present = set(seg["t"]) | set(seg["p"])
        return name != "accuracy" and pos_label not in present and len(present) >= 2

    if any(invalid(seg) for _, seg in df.group_by("g")):
        with pytest.raises(plm.DataError, match=f"`pos_label`={pos_label} occurs in none"):
            df.group_by("g").agg(expr.alias("value"))
        return
    got = df.group_by("g").agg(expr.alias("value")).sort("g")
    over = (
        df.with_columns(expr.over("g").alias("value"))
        .group_by("g")
        .agg(pl.col("value").first())
        .sort("g")
    )
    for g, value in got.iter_rows():
        seg = df.filter(pl.col("g") == g)
        present = set(seg["t"]) | set(seg["p"])
        assert name == "accuracy" or pos_label in present or len(present) < 2, (
            "scikit-learn's rule (precision_score etc. raise 'pos_label=... is not a valid "
            "label'): such a group must have raised"
        )
        expected = _sk(
            name,
            seg["t"].to_numpy(),
            seg["p"].to_numpy(),
            pos_label=pos_label,
            weight=seg["w"].to_numpy() if weighted else None,
            zero_division=zero_division,
            beta=beta,
        )
        assert value == pytest.approx(expected, rel=1e-9, nan_ok=True)
        assert over.filter(pl.col("g") == g)["value"][0] == pytest.approx(value, nan_ok=True)


def test_select_with_string_labels_and_names() -> None:
    df = pl.DataFrame({"t": ["spam", "ham", "spam", "ham"], "p": ["spam", "spam", "ham", "ham"]})
    out = df.select(
        plm.precision("t", "p", pos_label="spam"),
        plm.recall("t", "p", pos_label="spam"),
        plm.f1("t", "p", pos_label="spam"),
        plm.f_beta("t", "p", beta=2, pos_label="spam"),
        plm.jaccard("t", "p", pos_label="spam"),
        plm.specificity("t", "p", pos_label="spam"),
        plm.accuracy("t", "p"),
    )
    assert out.columns == ["precision", "recall", "f1", "f2", "jaccard", "specificity", "accuracy"]
    t, p = df["t"].to_numpy(), df["p"].to_numpy()
    assert out["precision"][0] == pytest.approx(skm.precision_score(t, p, pos_label="spam"))
    assert out["f2"][0] == pytest.approx(skm.fbeta_score(t, p, beta=2, pos_label="spam"))


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("log_loss", {0: "s", 1: "s"}),  # a new user's: the frame methods' probabilities
        ("brier_score", {1: "s"}),
        ("roc_auc", ["s"]),
        ("average_precision", 3),
        ("f1", pl.Series([0, 1])),
    ],
)
def test_a_column_argument_that_is_not_a_column_is_a_type_error(name: str, bad: object) -> None:
    # was an AttributeError ('dict' object has no attribute 'meta') for log_loss,
    # brier_score, roc_auc and average_precision
    df = pl.DataFrame({"y": [0, 1], "s": [0.2, 0.8]})
    with pytest.raises(TypeError, match="column names or polars expressions, got") as info:
        df.select(getattr(plm, name)("y", bad))
    assert ("frame methods'" in str(info.value)) == isinstance(bad, dict)


def test_bool_labels_default_pos_label() -> None:
    df = pl.DataFrame({"t": [True, False, True], "p": [True, True, False]})
    got = df.select(plm.precision("t", "p"))["precision"][0]
    assert got == pytest.approx(skm.precision_score([True, False, True], [True, True, False]))


def test_default_pos_label_reads_decimal_labels_exactly() -> None:
    """A Decimal label 1.00000000000000000001 is 1 as a Float64 (the default
    pos_label's {0, 1} rule passes), but it is not the label 1: a group of it and 0
    holds two labels and no positive, an error (scikit-learn's rule), as on the
    frame methods, not a number."""
    from decimal import Decimal

    y = pl.Series([Decimal("0"), Decimal("1.00000000000000000001")], dtype=pl.Decimal(38, 20))
    df = pl.DataFrame({"y": y, "s": [0.1, 0.9]})
    for expr in (plm.roc_auc("y", "s"), plm.average_precision("y", "s"), plm.log_loss("y", "s")):
        with pytest.raises(plm.DataError, match="occurs in none"):
            df.select(expr)
    with pytest.raises(plm.DataError):
        df.metrics.roc_auc("y", "s")


def _filtered_case(name: str, weight: pl.Expr | None, average: str) -> object:
    """``plm.<name>`` of the columns given (a recipe per expression, its weight if it
    takes one, ``average`` where it averages)."""
    fn = getattr(plm, name)
    takes = inspect.signature(fn).parameters
    kw: dict[str, object] = {}
    if "weight" in takes:
        kw["weight"] = weight
    if "average" in takes:
        kw["average"] = average
    scored = name in ("roc_auc", "average_precision", "log_loss", "brier_score", "hinge_loss")
    return lambda cols: fn(cols["t"], cols["s" if scored else "p"], **kw)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(
        st.tuples(
            st.integers(0, 2),
            st.integers(0, 1),
            st.integers(0, 1),
            st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
            st.sampled_from([0.5, 1.0, 2.0]),
            st.booleans(),
        ),
        min_size=1,
        max_size=30,
    ),
    name=st.sampled_from(sorted(plm.expr.__all__)),
    weighted=st.booleans(),
    average=st.sampled_from(["binary", "macro", "weighted", "micro"]),
)
def test_filtered_inputs_equal_the_filtered_frame(data, name, weighted, average):
    """An expression of filtered columns (fewer rows than the group) equals the same
    expression on the frame filtered first: every count is of the rows given (the
    group's ``pl.len()`` made accuracy, hamming_loss, roc_auc and average_precision
    divide by the unfiltered rows)."""
    df = pl.DataFrame(data, schema=["g", "t", "p", "s", "w", "keep"], orient="row")
    keep = pl.col("keep")
    weight = pl.col("w") if weighted else None
    filtered = _filtered_case(name, None if weight is None else weight.filter(keep), average)(
        {c: pl.col(c).filter(keep) for c in "tps"}
    )
    plain = _filtered_case(name, weight, average)({c: pl.col(c) for c in "tps"})
    got = df.group_by("g").agg(filtered.alias("v")).sort("g")
    expected = dict(df.filter(keep).group_by("g").agg(plain.alias("v")).iter_rows())
    for g, value in got.iter_rows():
        if g not in expected:  # every row of the group filtered out: no rows, null
            assert value is None
            continue
        want = expected[g]
        assert (value is None) == (want is None)
        if value is not None:
            assert value == pytest.approx(want, rel=1e-12, nan_ok=True)
    whole = df.select(filtered.alias("v"))["v"][0]
    alone = df.filter(keep).select(plain.alias("v"))["v"][0]
    assert (whole is None) == (alone is None)
    if whole is not None:
        assert whole == pytest.approx(alone, rel=1e-12, nan_ok=True)


@pytest.mark.parametrize(
    ("name", "oracle"),
    [
        ("roc_auc", skm.roc_auc_score),
        ("average_precision", skm.average_precision_score),
        ("log_loss", lambda y, s: skm.log_loss(y, s, labels=[0, 1])),
        ("brier_score", skm.brier_score_loss),
        # the documented margin (docs/probability.md): s for pos_label's rows, -s for
        # the others; scikit-learn's where both classes are present, and a one-class
        # segment of positives scored as positives (scikit-learn codes them negative)
        ("hinge_loss", lambda y, s: np.mean(np.maximum(0, 1 - np.where(y == 1, 1, -1) * s))),
    ],
)
@pytest.mark.parametrize("filtered", [False, True])
def test_a_constant_score_is_repeated_along_the_labels(name, oracle, filtered) -> None:
    # pl.lit(0.4) as the score is 0.4 on every row, as in polars' element-wise
    # operations: average_precision gave 4.0 and roc_auc null once the rows were
    # counted by the score's own length (1), roc_auc -0.5 before (found by the review)
    y = [1, 0, 1, 0, 1, 1, 0, 0]
    df = pl.DataFrame({"y": y, "g": [1, 1, 1, 1, 2, 2, 2, 2], "keep": [True, False] * 4})
    truth = pl.col("y").filter(pl.col("keep")) if filtered else pl.col("y")
    expr = getattr(plm, name)(truth, pl.lit(0.4)).alias("v")
    rows = df.filter(pl.col("keep")) if filtered else df
    assert df.select(expr).item() == pytest.approx(oracle(rows["y"], [0.4] * rows.height))
    for g, value in df.group_by("g").agg(expr).sort("g").iter_rows():
        seg = rows.filter(pl.col("g") == g)["y"]
        if seg.n_unique() < 2 and name == "roc_auc":  # one class: null, scikit-learn raises
            assert value is None
            continue
        assert value == pytest.approx(oracle(seg, [0.4] * len(seg)))


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in sorted(plm.expr.__all__)
        if "weight" in inspect.signature(getattr(plm, n)).parameters
    ],
)
def test_a_constant_weight_is_repeated_along_the_rows(name) -> None:
    # weight=pl.lit(2.0) is 2.0 on every row, so every number equals the unweighted
    # one: accuracy was 5.0, hamming_loss 2.0, log_loss 7x (the weight summed once)
    df = pl.DataFrame(
        {
            "y": [1, 0, 1, 0, 1, 1, 0],
            "p": [1, 0, 0, 0, 1, 1, 1],
            "s": [0.1, 0.5, 0.3, 0.3, 0.9, 0.2, 0.4],
            "g": [1, 1, 1, 2, 2, 2, 2],
        }
    )
    scored = name in ("log_loss", "brier_score", "hinge_loss")
    fn = getattr(plm, name)
    weighted = fn("y", "s" if scored else "p", weight=pl.lit(2.0)).alias("w")
    plain = fn("y", "s" if scored else "p").alias("u")
    for frame in (df.select(weighted, plain), df.group_by("g").agg(weighted, plain)):
        for w, u in frame.select("w", "u").iter_rows():
            assert w == pytest.approx(u, rel=1e-12)


@pytest.mark.parametrize("name", ["accuracy", "f1", "roc_auc", "log_loss", "mcc", "hamming_loss"])
def test_a_frame_wide_check_beside_columns_sees_every_row(name: str) -> None:
    # beside a column on the streaming engine, a frame-wide expression's checks (one
    # count per group, broadcast to the rows) still raise for a bad row anywhere, and
    # a good frame gives the value of the expression alone on every row.  (The counts
    # were broadcast to every row before the check: a Python loop over all rows, 40x
    # the metric's time; now one row of counts, each count's max)
    n = 5_000
    rng = np.random.default_rng(3)
    df = pl.DataFrame({"t": rng.integers(0, 2, n), "p": rng.integers(0, 2, n), "s": rng.random(n)})
    scored = name in ("roc_auc", "log_loss")
    expr = getattr(plm, name)("t", "s" if scored else "p").alias("v")
    streamed = df.lazy().select("t", expr).collect(engine="streaming")
    assert streamed["v"].to_list() == pytest.approx([df.select(expr).item()] * n, rel=1e-12)
    late = pl.int_range(pl.len()) == n - 7
    bad = df.with_columns(pl.when(late).then(None).otherwise("t").alias("t"))
    with pytest.raises(plm.DataError, match="null"):
        bad.lazy().select("p", expr).collect(engine="streaming")
