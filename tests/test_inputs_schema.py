"""The input rules, schema: missing columns, dtypes, by names (at the call, from the
schema alone).

The stages, and what every rule promises: ``test_inputs.py``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from _inputs_helpers import CURVES, DF, METHODS, RANKING
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.exceptions import ColumnNotFoundError, SchemaError
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics as plm
from pl_metrics._core import names


# -------- schema: missing columns, dtypes, by names (at the call, from the schema alone)
@pytest.mark.parametrize("method", METHODS)
def test_missing_column_names_it_and_the_available_ones(method: str) -> None:
    with pytest.raises(ColumnNotFoundError, match=r"'nope'.*available columns.*y_true"):
        getattr(DF.metrics, method)("nope", "y_pred")
    with pytest.raises(ColumnNotFoundError, match="'zz'"):
        getattr(DF.metrics, method)("y_true", "y_pred", by="zz")
    with pytest.raises(ColumnNotFoundError, match="'ww'"):
        getattr(DF.metrics, method)("y_true", "y_pred", weight="ww")


@pytest.mark.parametrize("method", METHODS)
def test_lazy_errors_at_the_call_when_the_schema_shows_it(method: str) -> None:
    with pytest.raises(ColumnNotFoundError):
        getattr(DF.lazy().metrics, method)("nope", "y_pred")  # no collect


def test_a_decimal_label_column_beside_an_integer_one_says_what_to_cast() -> None:
    # the message said "cast one of them so both are numeric": both were numeric
    df = pl.DataFrame({"y": [1, 2, 3], "p": [1, 2, 2]}).cast({"y": pl.Decimal(10, 2)})
    with pytest.raises(SchemaError, match=r"a Decimal\(precision=10, scale=2\) label column"):
        df.metrics.summary("y", "p")
    assert df.cast({"y": pl.Int64}).metrics.summary("y", "p").height == 1


def test_incompatible_label_dtypes_name_both_columns() -> None:
    with pytest.raises(
        SchemaError,
        match=r"columns 'y_true' \(Int64\) and 's' \(String\) hold labels of incompatible",
    ):
        DF.metrics.report("y_true", "s")
    enum_a = pl.Enum(["x", "y"])
    enum_b = pl.Enum(["y", "x", "z"])
    df = pl.DataFrame({"a": ["x"], "b": ["x"]}).cast({"a": enum_a, "b": enum_b})
    with pytest.raises(SchemaError, match="Enum"):
        df.metrics.report("a", "b")


def test_non_numeric_weight_is_a_schema_error() -> None:
    with pytest.raises(SchemaError, match=r"'s'.*weight.*numeric"):
        DF.metrics.report("y_true", "y_pred", weight="s")


@pytest.mark.parametrize("name", ["label", "precision", "support", "tp", "f2"])
def test_by_column_colliding_with_output(name: str) -> None:
    df = DF.with_columns(pl.col("s").alias(name))
    method = "per_class"
    with pytest.raises(ValueError, match=f"`by` column '{name}' collides"):
        getattr(df.metrics, method)("y_true", "y_pred", by=name, beta=2.0)


@pytest.mark.parametrize("name", ["count", "actual", "n", "score", "pos", "P", "part"])
def test_by_column_named_like_an_internal_column_is_just_a_segment(name: str) -> None:
    # not an output column of per_class: the segments are computed as with any name
    df = DF.with_columns(pl.col("s").alias(name))
    got = df.metrics.per_class("y_true", "y_pred", by=name, beta=2.0)
    expected = df.rename({name: "seg"}).metrics.per_class("y_true", "y_pred", by="seg", beta=2.0)
    assert_frame_equal(got, expected.rename({"seg": name}))


def test_by_listing_a_column_twice() -> None:
    with pytest.raises(ValueError, match="more than once"):
        DF.metrics.report("y_true", "y_pred", by=["s", "s"])


@pytest.mark.parametrize("method", RANKING)
@pytest.mark.parametrize("name", ["P", "N", "tps", "fps", "score", "pos", "neg", "n", "part"])
def test_by_named_like_an_internal_column_gives_the_segments(method: str, name: str) -> None:
    df = CURVES.rename({"seg": name})
    got = getattr(df.metrics, method)("y", "s", by=name)
    plain = getattr(CURVES.metrics, method)("y", "s", by="seg").rename({"seg": name})
    assert_frame_equal(got, plain)
    assert got[name].dtype == pl.Int64  # the segment column is the user's, untouched


@pytest.mark.parametrize(
    "method", ["roc_curve", "pr_curve", "thresholds", "best_threshold", "det_curve"]
)
def test_by_named_like_an_output_column_is_refused(method: str) -> None:
    for name in names.output_columns(method):
        df = CURVES.rename({"seg": name})
        with pytest.raises(ValueError, match=f"`by` column '{name}' collides"):
            getattr(df.metrics, method)("y", "s", by=name)


def test_compare_refuses_by_named_like_its_output() -> None:
    df = pl.DataFrame({"diff": ["a", "a", "b", "b"], "t": [0, 1, 0, 1], "p": [0, 1, 1, 1]})
    with pytest.raises(ValueError, match="`by` column 'diff' collides"):
        df.metrics.compare("t", "p", by="diff", ci_method="wilson")


def test_merged_score_state_with_by_named_p() -> None:
    df = CURVES.rename({"seg": "P"})
    state = df.metrics.score_counts("y", "s", by="P")
    got = plm.from_score_counts(state, by="P").pr_curve()
    assert_frame_equal(got, df.metrics.pr_curve("y", "s", by="P"))


def test_enum_beside_a_string_with_values_outside_the_enum() -> None:
    # was a raw InvalidOperationError (cast of "c" to the Enum)
    df = pl.DataFrame({"y": pl.Series(["a", "b"], dtype=pl.Enum(["a", "b"])), "p": ["a", "c"]})
    got = df.metrics.summary("y", "p")
    assert got["accuracy"].item() == skm.accuracy_score(["a", "b"], ["a", "c"])
    assert got["mcc"].item() == pytest.approx(skm.matthews_corrcoef(["a", "b"], ["a", "c"]))


def test_float32_probabilities_use_float32_tolerance() -> None:
    # predict_proba as float32 sums to 1 within float32's precision only: refused before
    rng = np.random.default_rng(1)
    raw = rng.random((200, 3)).astype(np.float32)
    probs = (raw / raw.sum(axis=1, keepdims=True)).astype(np.float32)
    y = rng.integers(0, 3, 200)
    df = pl.DataFrame({"y": y, "a": probs[:, 0], "b": probs[:, 1], "c": probs[:, 2]})
    got = df.metrics.log_loss("y", {0: "a", 1: "b", 2: "c"}).item()
    assert got == pytest.approx(skm.log_loss(y, probs.astype(np.float64)), rel=1e-6)


def test_a_mapping_missing_a_class_is_a_clear_error() -> None:
    # average_precision takes {label: column} now (one-vs-rest, issue 12): a class of
    # y_true without a score column is refused, never counted as a negative
    df = pl.DataFrame({"y": [0, 1, 2], "a": [0.2, 0.3, 0.5], "b": [0.3, 0.3, 0.4]})
    with pytest.raises(plm.DataError, match=r"1 rows whose label.*has no score column"):
        df.metrics.average_precision("y", {0: "a", 1: "b"})


@pytest.mark.parametrize("scale", [1.0, 1e100, 1e200, 1e300])
def test_weighted_summary_does_not_overflow(scale: float) -> None:
    # n^2 overflowed: MCC and kappa were NaN at 1e200 (scikit-learn: MCC NaN too)
    y = [1, 0, 1, 0, 1, 0, 0, 1, 2, 2]
    p = [1, 1, 1, 0, 0, 0, 2, 1, 2, 0]
    df = pl.DataFrame({"y": y, "p": p, "w": [scale] * 10})
    got = df.metrics.summary("y", "p", weight="w").row(0, named=True)
    assert got["n"] == pytest.approx(10 * scale, rel=1e-12)
    assert got["mcc"] == pytest.approx(skm.matthews_corrcoef(y, p), rel=1e-9)
    assert got["cohen_kappa"] == pytest.approx(skm.cohen_kappa_score(y, p), rel=1e-9)
    quadratic = df.metrics.summary("y", "p", weight="w", kappa_weights="quadratic")
    expected = skm.cohen_kappa_score(y, p, weights="quadratic")
    assert quadratic["cohen_kappa"].item() == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("big", [1e8, 1e12, 1e20])
@pytest.mark.parametrize("kappa_weights", [None, "linear", "quadratic"])
def test_kappa_with_one_weight_far_above_the_others(big: float, kappa_weights) -> None:
    # the covariance form (c n - sum t_k p_k) / (n^2 - sum t_k p_k) subtracted nearly
    # equal products: 0.6666790 for scikit-learn's 0.66666666666567 at 1e12, NaN at
    # 1e20. Float counts now sum the disagreements (terms >= 0), as scikit-learn
    y, p = [1, 0, 1, 0, 1, 0, 2], [1, 0, 0, 0, 1, 1, 2]
    w = [big, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0]
    df = pl.DataFrame({"y": y, "p": p, "w": w})
    expected = skm.cohen_kappa_score(y, p, sample_weight=w, weights=kappa_weights)
    state = plm.from_counts(df.metrics.counts("y", "p", weight="w"))
    for got in (
        df.metrics.summary("y", "p", weight="w", kappa_weights=kappa_weights)["cohen_kappa"],
        state.summary(kappa_weights=kappa_weights)["cohen_kappa"],
        df.select(plm.cohen_kappa("y", "p", weight="w", weights=kappa_weights)).to_series(),
    ):
        assert got.item() == pytest.approx(expected, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 3), st.integers(0, 3), st.sampled_from([1e-3, 1.0, 7.0, 1e6, 1e12])
        ),
        min_size=2,
        max_size=25,
    )
)
def test_weighted_kappa_equals_scikit_learn_under_skewed_weights(rows) -> None:
    # both branches of the expected disagreement (a class above half of the predicted
    # weight, or none), against scikit-learn's sum over the pairs of classes
    y, p, w = (list(c) for c in zip(*rows, strict=True))
    df = pl.DataFrame({"y": y, "p": p, "w": w})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = skm.cohen_kappa_score(y, p, sample_weight=w)
    got = df.metrics.summary("y", "p", weight="w")["cohen_kappa"].item()
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("kappa_weights", [None, "linear", "quadratic"])
def test_weighted_kappa_expression_does_not_overflow(kappa_weights) -> None:
    # the expression summed (a - b)^2 x weight over weights of 8e306 (a total of 4e307,
    # inside the documented range): -inf where the frame and scikit-learn give 0.0
    y, p = [0, 4, 0, 4, 2], [4, 0, 0, 4, 2]
    df = pl.DataFrame({"y": y, "p": p, "w": [8e306] * 5})
    labels = [0, 1, 2, 3, 4]
    expected = skm.cohen_kappa_score(y, p, weights=kappa_weights, labels=labels)  # equal w
    expr = plm.cohen_kappa("y", "p", weight="w", weights=kappa_weights, labels=labels)
    assert df.select(expr).item() == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_threshold_report_needs_its_labels() -> None:
    # labels {1, 2} with the default pos_label 1 / neg_label 0 reported a class 0 with
    # no rows and every metric 0.0; pos_label 7 (absent) reported as if it were a class
    # (since issue 26 neg_label is the other label of y_true: with the default pos_label
    # 1 on {1, 2}, which label is positive is unsaid, as in the binary methods)
    df = pl.DataFrame({"y": [1, 2, 1, 2], "s": [0.1, 0.9, 0.4, 0.6]})
    with pytest.raises(plm.DataError, match="pass `pos_label`"):
        df.metrics.threshold_report("y", "s")
    with pytest.raises(plm.DataError, match="`neg_label` is not given"):
        df.with_columns(y=pl.Series([1, 2, 3, 2])).metrics.threshold_report("y", "s", pos_label=2)
    with pytest.raises(plm.DataError, match="`pos_label`=7 does not occur"):
        df.metrics.threshold_report("y", "s", pos_label=7, neg_label=1)
    got = df.metrics.threshold_report("y", "s", pos_label=2, neg_label=1)
    predicted = [2 if s >= 0.5 else 1 for s in df["s"]]
    macro = got.filter(pl.col("average") == "macro")["f1"].item()
    assert macro == pytest.approx(skm.f1_score(df["y"], predicted, average="macro"))


_SETS = pl.DataFrame(
    {
        "t": [["a"], ["a", "b"], [], ["b"]],
        "p": [["a"], ["b"], ["a"], ["b"]],
        "g": [1, 1, 2, 2],
        "ia": [1.0, 0.0, 1.0, 0.0],
        "ib": [0.0, 1.0, 0.0, 1.0],
    }
)


@pytest.mark.parametrize(
    "call",
    [
        lambda: _SETS.select(plm.hamming_loss("t", "p")),
        lambda: _SETS.select(plm.f1("t", "p", average="macro")),
        lambda: _SETS.select(plm.precision("t", "p", pos_label="a")),
        lambda: _SETS.select(plm.accuracy("t", "p")),
        lambda: _SETS.metrics.confusion_matrix("t", "p"),
        lambda: _SETS.metrics.counts("t", "p"),
        lambda: _SETS.metrics.compare("t", "p", by="g"),
        lambda: _SETS.metrics.log_loss("t", {"a": "ia", "b": "ib"}),
        lambda: _SETS.metrics.html_report("t", "p", ci=None),
    ],
    ids=["hamming", "f1", "precision", "accuracy", "cm", "counts", "compare", "log_loss", "html"],
)
def test_label_sets_on_a_single_label_path_are_refused(call: Callable[[], object]) -> None:
    """A List column of label sets read as one label per row scored each set as a class
    of its own (plm.hamming_loss 0.5 where scikit-learn's multilabel value is 0.25)."""
    with pytest.raises(SchemaError, match="not one label per row: multilabel input"):
        call()
    assert _SETS.metrics.hamming_loss("t", "p")["hamming_loss"].item() == pytest.approx(0.25)


def test_a_list_of_relevances_needs_its_labels() -> None:
    """With a score mapping, a List of relevances was read in the mapping's sorted key
    order (ndcg 0.631 instead of scikit-learn's 1.0 for the order the user meant)."""
    df = pl.DataFrame({"rel": [[3.0, 0.0], [0.0, 1.0]], "sz": [0.9, 0.2], "sa": [0.1, 0.8]})
    with pytest.raises(ValueError, match="`labels` is required with a List column of relevances"):
        df.metrics.ndcg("rel", {"z": "sz", "a": "sa"})
    got = df.metrics.ndcg("rel", {"z": "sz", "a": "sa"}, labels=["z", "a"])["ndcg"].item()
    expected = skm.ndcg_score(
        np.array([[3.0, 0.0], [0.0, 1.0]]), np.array([[0.9, 0.1], [0.2, 0.8]])
    )
    assert got == pytest.approx(expected, rel=1e-12)


def test_an_array_of_scores_is_refused_with_the_cast_to_use() -> None:
    df = pl.DataFrame({"t": [["a"], ["b"], ["a", "b"]], "s": [[0.9, 0.1], [0.2, 0.8], [0.5, 0.4]]})
    arrays = df.with_columns(pl.col("s").cast(pl.Array(pl.Float64, 2)))
    with pytest.raises(SchemaError, match=r"arr\.to_list\(\)"):
        arrays.metrics.coverage_error("t", "s", labels=["a", "b"])
