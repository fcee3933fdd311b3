"""The input rules of the expressions: the same rules inside ``group_by().agg()``.

The stages, and what every rule promises: ``test_inputs.py``.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import polars as pl
import pytest
from polars.exceptions import SchemaError
from sklearn import metrics as skm

import pl_metrics as plm


# ----------------------------------- expressions: the same rules inside group_by().agg()
def test_expression_nulls_fail_with_the_column_and_count() -> None:
    # one bad column at a time: with nulls in both, either message may come first
    df = pl.DataFrame({"t": [1, None, 0], "p": [1, 1, 0]})
    with pytest.raises(plm.DataError, match="column 't' has 1 null rows"):
        df.select(plm.precision("t", "p"))
    df = pl.DataFrame({"t": [1, 1, 0], "p": [1, 1, None]})
    with pytest.raises(plm.DataError, match="column 'p' has 1 null rows"):
        df.select(plm.accuracy("t", "p"))
    w = pl.DataFrame({"t": [1, 0], "p": [1, 1], "w": [-1.0, 1.0]})
    with pytest.raises(plm.DataError, match=r"column 'w' \(argument `weight`\) has 1"):
        w.select(plm.recall("t", "p", weight="w"))


def test_expressions_on_a_group_without_rows_are_null() -> None:
    # f1 / precision gave 0.0 and accuracy NaN; the frame methods give no row
    df = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "y": [1, 0, 1, 0], "p": [1, 1, 1, 0], "w": [0.0, 0.0, 1.0, 1.0]}
    )
    got = (
        df.group_by("g")
        .agg(
            plm.f1("y", "p", weight="w"),
            plm.precision("y", "p", weight="w"),
            plm.accuracy("y", "p", weight="w"),
            plm.log_loss("y", "p", weight="w"),
        )
        .sort("g")
    )
    assert got.row(0) == ("a", None, None, None, None)
    assert got.row(1)[1:4] == (1.0, 1.0, 1.0)  # b: one tp, one tn


_BIG = pl.DataFrame(
    {"g": [1, 1, 1, 1], "y": [0, 1, 0, 1], "s": [2**60, 2**60 + 1, 2**60 + 2, 2**60 + 3]}
)


_SCORE_EXPRESSIONS = {"roc_auc": plm.roc_auc, "average_precision": plm.average_precision}


@pytest.mark.parametrize("name", list(_SCORE_EXPRESSIONS))
@pytest.mark.parametrize("dtype", [pl.Int64, pl.UInt64])
def test_expressions_refuse_integer_scores_beyond_2_53(name: str, dtype: pl.DataType) -> None:
    """Cast to Float64, the four scores above became ties: 0.5 for both expressions,
    where scikit-learn gives ROC AUC 0.75 and AP 0.8333 (the frame methods refused)."""
    df = _BIG.with_columns(pl.col("s").cast(dtype))
    with pytest.raises(plm.DataError) as frame:
        getattr(df.metrics, name)("y", "s")
    expr = _SCORE_EXPRESSIONS[name]("y", "s")
    for run in (
        lambda: df.group_by("g").agg(expr),
        lambda: df.with_columns(expr.over("g")),
        lambda: df.select(expr),
        lambda: df.lazy().group_by("g").agg(expr).collect(engine="streaming"),
    ):
        with pytest.raises(plm.DataError) as got:
            run()
        assert str(got.value).startswith(str(frame.value))  # polars may add the expression
    # below 2**53 the same integers are exact: scikit-learn's numbers
    small = df.with_columns(pl.col("s") - 2**60)
    sk = {"roc_auc": skm.roc_auc_score, "average_precision": skm.average_precision_score}
    assert small.select(expr).item() == pytest.approx(sk[name]([0, 1, 0, 1], [0, 1, 2, 3]))


@pytest.mark.parametrize(
    ("make", "argument"),
    [
        (plm.roc_auc, "y_score"),
        (plm.average_precision, "y_score"),
        (plm.log_loss, "y_prob"),
        (plm.brier_score, "y_prob"),
    ],
)
@pytest.mark.parametrize(
    "values",
    [["0.1", "0.8", "0.3", "0.9"], [dt.date(2020, 1, d) for d in (1, 4, 2, 3)]],
    ids=["string", "date"],
)
def test_expressions_refuse_scores_that_are_not_numbers(make, argument, values) -> None:
    """String scores of numeric text gave 0.75 (the frame methods and scikit-learn refuse
    them); other text a raw polars cast error; dates a number."""
    df = pl.DataFrame({"y": [0, 1, 0, 1], "s": values})
    method = make.__name__
    with pytest.raises(SchemaError) as frame:
        getattr(df.metrics, method)("y", "s")
    assert f"(argument `{argument}`) must be numeric" in str(frame.value)
    with pytest.raises(SchemaError) as got:
        df.select(make("y", "s"))
    assert str(got.value).startswith(str(frame.value))  # polars may add the expression


def test_score_states_refuse_integer_scores_beyond_2_53() -> None:
    """A hand-made state of integer scores 2**60 and 2**60 + 1 finished to 0.5 (one
    tied threshold); scikit-learn's AUC of these two rows is 1.0."""
    state = pl.DataFrame({"score": [2**60, 2**60 + 1], "pos": [0, 1], "neg": [1, 0]})
    with pytest.raises(plm.DataError, match=r"'score' has 2 rows that are integer scores"):
        plm.from_score_counts(state).roc_auc()
    exact = state.with_columns(pl.col("score") - 2**60)  # 0 and 1: sklearn's 1.0
    assert plm.from_score_counts(exact).roc_auc()["roc_auc"].item() == skm.roc_auc_score(
        [0, 1], [0, 1]
    )


@pytest.mark.parametrize("how", ["count", "search", "keys"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_a_score_column_shared_by_two_classes(
    monkeypatch: pytest.MonkeyPatch, how: str, average: str
) -> None:
    """A mapping whose classes share a column (a score matrix with a repeated column) was
    a raw polars DuplicateError on the sorted path's sampling of the columns."""
    from pl_metrics._ranking import sorted_path

    monkeypatch.setattr(sorted_path, "MIN_DISTINCT", 10**9 if how == "count" else -1)
    monkeypatch.setattr(sorted_path, "USE_KEYS", how == "keys")
    rng = np.random.default_rng(24)
    n = 3000
    y, p0, p1 = rng.integers(0, 3, n), rng.random(n), rng.random(n)
    seg = rng.integers(0, 2, n)
    df = pl.DataFrame({"seg": seg, "y": y, "p0": p0, "p1": p1})
    assert sorted_path.strategy(df, {0: "p0", 1: "p1", 2: "p1"}) == how
    got = df.metrics.roc_auc("y", {0: "p0", 1: "p1", 2: "p1"}, average=average, by="seg")
    scores = np.c_[p0, p1, p1]
    for g in (0, 1):
        rows = seg == g
        # scikit-learn refuses rows not summing to 1: its one-vs-rest mean by hand
        aucs = [skm.roc_auc_score(y[rows] == k, scores[rows, k]) for k in range(3)]
        weights = None if average == "macro" else [np.mean(y[rows] == k) for k in range(3)]
        expected = np.average(aucs, weights=weights)
        assert got.filter(seg=g)["roc_auc"].item() == pytest.approx(expected, rel=1e-12)


_B = 2**60


def test_top_k_accuracy_refuses_integer_scores_beyond_2_53() -> None:
    """As Float64 the scores below tie and top-1 accuracy was 0.25; scikit-learn's
    top_k_accuracy_score on the exact integers is 0.5 (rows 1 and 3 are hits)."""
    df = pl.DataFrame(
        {
            "y": [0, 1, 2, 0],
            "a": [_B, _B + 1, _B, _B + 5],
            "b": [_B + 1, _B, _B, _B + 3],
            "c": [_B, _B, _B + 1, _B + 4],
        }
    )
    scores = {0: "a", 1: "b", 2: "c"}
    with pytest.raises(plm.DataError, match=r"integer scores at or beyond \+-2\*\*53"):
        df.metrics.top_k_accuracy("y", scores, k=1)
    small = df.with_columns(pl.col("a", "b", "c") - _B)
    got = small.metrics.top_k_accuracy("y", scores, k=1)["top_k_accuracy"].item()
    expected = skm.top_k_accuracy_score(
        [0, 1, 2, 0], small.select("a", "b", "c").to_numpy(), k=1, labels=[0, 1, 2]
    )
    assert expected == 0.5
    assert got == expected


def test_decimal_scores_beyond_2_53_are_refused_on_every_path() -> None:
    """Decimal(38, 0) scores 2**60 .. 2**60 + 3 became four Float64 ties: ROC AUC 0.5
    from the frame method, the expression and a state, where scikit-learn's on the
    exact values is 0.75 (positives at 2**60 + 1 and + 3)."""
    df = pl.DataFrame(
        {"y": [0, 1, 0, 1], "s": pl.Series([_B + i for i in range(4)], dtype=pl.Decimal(38, 0))}
    )
    match = r"integer scores at or beyond \+-2\*\*53"
    with pytest.raises(plm.DataError, match=match):
        df.metrics.roc_auc("y", "s")
    with pytest.raises(plm.DataError, match=match):
        df.select(plm.roc_auc("y", "s"))
    state = pl.DataFrame({"score": df["s"], "pos": [0, 1, 0, 1], "neg": [1, 0, 1, 0]})
    with pytest.raises(plm.DataError, match=r"'score' has 4 rows that are integer scores"):
        plm.from_score_counts(state).roc_auc()
    exact = df.with_columns(pl.col("s") - _B)  # 0 .. 3: the same order, exact
    assert exact.metrics.roc_auc("y", "s")["roc_auc"].item() == skm.roc_auc_score(
        [0, 1, 0, 1], [0, 1, 2, 3]
    )


def test_threshold_report_compares_integer_scores_exactly() -> None:
    """2**53 + 3 rounds to 2**53 + 4 as Float64, so with threshold 2**53 + 4 it was
    predicted positive (class 1's precision 0.5); exactly it is below the threshold:
    predictions [0, 1], scikit-learn's precision 1.0 for both classes."""
    df = pl.DataFrame({"y": [0, 1], "s": [2**53 + 3, 2**53 + 5]})
    got = df.metrics.threshold_report("y", "s", threshold=float(2**53 + 4))
    p, r, _, _ = skm.precision_recall_fscore_support([0, 1], [0, 1], labels=[0, 1])
    rows = got.filter(pl.col("average").is_null()).sort("label")
    assert rows["precision"].to_list() == list(p)
    assert rows["recall"].to_list() == list(r)


_WEIGHTED = pl.DataFrame(
    {
        "t": [1, 0, 1],
        "p": [1, 1, 0],
        "s": [0.9, 0.2, 0.4],
        "date": [dt.date(1970, 1, 2), dt.date(1970, 1, 3), dt.date(1970, 1, 4)],
        "text": ["1", "0", "1"],
        "junk": ["x", "y", "z"],
    }
)


@pytest.mark.parametrize("weight", ["date", "text", "junk"])
@pytest.mark.parametrize(
    "make",
    [
        lambda w: plm.accuracy("t", "p", weight=w),
        lambda w: plm.f1("t", "p", pos_label=1, weight=w),
        lambda w: plm.mcc("t", "p", weight=w),
        lambda w: plm.log_loss("t", "s", weight=w),
        lambda w: plm.brier_score("t", "s", weight=w),
    ],
    ids=["accuracy", "f1", "mcc", "log_loss", "brier_score"],
)
def test_expressions_refuse_weights_that_are_not_numbers(make, weight: str) -> None:
    """Dates as weights gave accuracy 0.1667 (their day numbers: (1 * 1) / (1 + 2 + 3)),
    numeric text 0.5, other text a raw polars cast error; the frame methods refuse
    all three with this SchemaError."""
    with pytest.raises(SchemaError) as frame:
        _WEIGHTED.metrics.summary("t", "p", weight=weight)
    with pytest.raises(SchemaError) as got:
        _WEIGHTED.select(make(weight))
    assert str(got.value).startswith(str(frame.value))  # polars may add the expression


@pytest.mark.parametrize(
    "call",
    [
        lambda df: df.metrics.report("t", "p", by="g"),
        lambda df: df.metrics.counts("t", "p", by="g", weight="w"),  # was a Rust panic
        lambda df: df.metrics.counts("t", "p", by="g"),  # was Object keys in the state
        lambda df: df.metrics.roc_auc("t", "w", by="g"),
        lambda df: df.metrics.summary("t", "p", by=pl.col("g")),
    ],
    ids=["report", "counts_weighted", "counts", "roc_auc", "expression"],
)
def test_a_by_column_of_python_objects_is_a_clear_error(call) -> None:
    df = pl.DataFrame(
        {
            "t": [0, 1, 1, 0],
            "p": [0, 1, 0, 0],
            "w": [1.0, 0.0, 2.0, 1.0],
            "g": np.array([None, "u", "v", "u"], dtype=object),
        }
    )
    assert df.schema["g"] == pl.Object
    with pytest.raises(SchemaError, match=r"`by` column 'g' holds Python objects"):
        call(df)


def test_worst_case_of_an_undefined_part_is_undefined() -> None:
    """Both groups have a true positive rate of 0: its ratio is 0 / 0.  The worst case
    was the false positive rates' ratio alone, 1.0 ("fair"); fairlearn's
    equalized_odds_ratio and equal_opportunity_ratio are NaN (null here)."""
    from fairlearn import metrics as flm

    t, p, g = [0, 0, 1, 0, 0, 1, 0, 0], [0, 0, 0, 1, 0, 0, 0, 1], [1, 1, 0, 1, 0, 0, 0, 0]
    got = pl.DataFrame({"t": t, "p": p, "g": g}).metrics.fairness("t", "p", by="g")
    assert math.isnan(flm.equalized_odds_ratio(t, p, sensitive_features=g))
    assert got["equalized_odds_ratio"].item() is None
    assert got["equal_opportunity_ratio"].item() is None
    # the differences are defined: fairlearn's
    assert got["equalized_odds_difference"].item() == pytest.approx(
        flm.equalized_odds_difference(t, p, sensitive_features=g)
    )
    mean = pl.DataFrame({"t": t, "p": p, "g": g}).metrics.fairness("t", "p", by="g", agg="mean")
    assert mean["equalized_odds_ratio"].item() == pytest.approx(
        flm.equalized_odds_ratio(t, p, sensitive_features=g, agg="mean")
    )


def test_mcc_of_a_segment_without_rows_in_labels_is_nan() -> None:
    """Segment a has no row of label 1: its summary row has n = 0 and accuracy NaN, but
    MCC was 0.0 (a made-up number; scikit-learn raises); the expression gave 0.0 too."""
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "t": [0, 0, 1, 1], "p": [0, 1, 1, 1]})
    frame = df.metrics.summary("t", "p", labels=[1], by="g").sort("g")
    assert frame["n"].to_list() == [0, 2]
    assert math.isnan(frame["mcc"][0])
    assert frame["mcc"][1] == skm.matthews_corrcoef([1, 1], [1, 1])  # 0.0: one class
    expr = df.group_by("g").agg(plm.mcc("t", "p", labels=[1])).sort("g")
    assert math.isnan(expr["mcc"][0])
    state = plm.from_counts(df.metrics.counts("t", "p", by="g"), by="g")
    assert math.isnan(state.summary(labels=[1]).sort("g")["mcc"][0])


@pytest.mark.parametrize("how", ["count", "search", "keys"])
def test_signed_zero_scores_are_one_threshold_on_every_strategy(how: str) -> None:
    """-0.0 and 0.0 are one score in scikit-learn (ties across the classes here).
    Polars' optimizer drops a ``+ 0.0`` meant to merge them: the keyed sort relies on
    its keys dropping the sign bit, the search on comparing floats."""
    import _oracle as oracle

    y, s = [1, 0, 1, 0, 1, 0], [-0.0, 0.0, 0.0, -0.0, 0.5, 0.25]
    df = pl.DataFrame({"y": y, "s": s})
    with oracle.ranking_strategy(how):
        auc = df.metrics.roc_auc("y", "s")["roc_auc"].item()
        ap = df.metrics.average_precision("y", "s")["average_precision"].item()
    assert auc == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12)  # 5/9
    assert ap == pytest.approx(skm.average_precision_score(y, s), rel=1e-12)


def test_integer_pos_label_and_labels_beyond_2_53_are_exact() -> None:
    """pos_label=2**53 + 1 went through a float and became 2**53, the other class:
    ROC AUC 0.0 where scikit-learn gives 1.0; labels=[2**53 + 1] reported class 2**53;
    threshold_report said pos_label and neg_label were equal."""
    big = 2**53
    df = pl.DataFrame(
        {
            "y": [big, big + 1, big, big + 1, big + 1],
            "s": [0.1, 0.9, 0.2, 0.8, 0.3],
            "p": [big, big + 1, big + 1, big + 1, big],
        }
    )
    y = np.array(df["y"].to_list()) == big + 1  # exact Python ints: the positives
    s = df["s"].to_numpy()
    for pos in (big + 1, np.int64(big + 1)):
        assert df.metrics.roc_auc("y", "s", pos_label=pos).item() == skm.roc_auc_score(y, s)
        assert df.metrics.average_precision("y", "s", pos_label=pos).item() == pytest.approx(
            skm.average_precision_score(y, s), rel=1e-12
        )
        assert df.metrics.log_loss("y", "s", pos_label=pos).item() == pytest.approx(
            skm.log_loss(y, s), rel=1e-12
        )
        assert df.select(plm.roc_auc("y", "s", pos_label=pos)).item() == skm.roc_auc_score(y, s)
    got = df.metrics.report("y", "p", labels=[big + 1]).filter(pl.col("average").is_null())
    assert got["label"].to_list() == [big + 1]
    p, r, _, _ = skm.precision_recall_fscore_support(
        df["y"].to_list(), df["p"].to_list(), labels=[big + 1]
    )
    assert got["precision"].to_list() == list(p)
    assert got["recall"].to_list() == list(r)
    rows = df.metrics.threshold_report("y", "s", threshold=0.5, pos_label=big + 1, neg_label=big)
    assert rows.filter(pl.col("average").is_null())["label"].to_list() == [big, big + 1]


def test_bins_refuse_scores_just_above_one() -> None:
    """floor(1.5 * 1) = 1 and floor(1.04 * 10) = 10 are the top bins: such scores were
    counted in them (ROC AUC 0.75 for the first frame below, no error), where every
    score outside [0, 1] is refused with bins."""
    for scores, bins in (([0.1, 0.9, 0.2, 1.5], 1), ([0.1, 0.9, 0.2, 1.04], 10)):
        df = pl.DataFrame({"y": [0, 1, 0, 1], "s": scores})
        with pytest.raises(plm.DataError, match=r"`bins` needs scores in \[0, 1\].* 1 rows"):
            df.metrics.roc_auc("y", "s", bins=bins)
    ok = pl.DataFrame({"y": [0, 1, 0, 1], "s": [0.1, 0.9, 0.2, 1.0]})
    assert ok.metrics.roc_auc("y", "s", bins=10)["roc_auc"].item() == skm.roc_auc_score(
        [0, 1, 0, 1], [0.1, 0.9, 0.2, 1.0]
    )
    with pytest.raises(ValueError, match=r"`bins` must be .* \(at most 2\*\*53\)"):
        ok.metrics.roc_auc("y", "s", bins=2**53 + 1)


def test_a_numpy_integer_pos_label_on_a_float_column_is_exact() -> None:
    """np.int64(2**53 + 1) compared equal to the float 2**53 in numpy: the rows of 2**53
    were scored as its positives (ROC AUC 1.0, no error); a Python int was refused."""
    from fractions import Fraction

    df = pl.DataFrame({"y": [2.0**53, 0.0, 2.0**53, 0.0], "s": [0.9, 0.1, 0.8, 0.2]})
    for value in (np.int64(2**53 + 1), np.uint64(2**53 + 1), 2**53 + 1, Fraction(2**53 + 1)):
        with pytest.raises(ValueError, match="cannot be a label of column 'y' \\(Float64\\)"):
            df.metrics.roc_auc("y", "s", pos_label=value)
    for value in (np.int64(2**53), 2**53, 2.0**53):  # the label itself: sklearn's 1.0
        assert df.metrics.roc_auc("y", "s", pos_label=value).item() == skm.roc_auc_score(
            [1, 0, 1, 0], [0.9, 0.1, 0.8, 0.2]
        )
