"""The input rules, stage by stage: options -> schema -> rows -> states, and the
expressions' own.

Every bad input is a clear error naming the argument or the column that holds
the bad values (``test_errors.py`` before), and every class of input that once
gave a wrong number without an error (issue 11; ``test_never_silently_wrong.py``
before) now gives the right number or an error: each of those tests failed on
the code before its fix, and its expected numbers come from scikit-learn or from
a hand computation in a comment.  The registry (``tests/registry/``) runs the
common bad inputs through every method and path (``registry/bad.py``).
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import warnings
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from polars.exceptions import ColumnNotFoundError, SchemaError
from polars.testing import assert_frame_equal
from scipy import stats
from sklearn import metrics as skm

import pl_metrics as plm
from pl_metrics._core import names

DF = pl.DataFrame(
    {"y_true": [0, 1, 1], "y_pred": [0, 1, 0], "s": ["a", "b", "c"], "w": [1.0, 2.0, 0.5]}
)


METHODS = ["report", "per_class", "averages", "summary", "confusion_matrix"]


CURVES = pl.DataFrame(
    {"y": [1, 1, 0, 1, 0, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.3, 0.1, 0.5, 0.6, 0.2]}
).with_columns(seg=pl.Series([1, 1, 1, 1, 2, 2, 2, 2]))


RANKING = ["roc_auc", "average_precision", "roc_curve", "pr_curve", "det_curve", "thresholds"]


# ------------------ options: checked at the call, before the schema, naming the argument
@pytest.mark.parametrize("beta", [0, -1.0, math.inf, math.nan, "2", True])
def test_bad_beta(beta: object) -> None:
    with pytest.raises(ValueError, match="`beta` must be a finite float > 0, got"):
        DF.metrics.report("y_true", "y_pred", beta=beta)


@pytest.mark.parametrize("zd", [0.5, -1, "warn", None, 2])
def test_bad_zero_division(zd: object) -> None:
    with pytest.raises(
        ValueError, match=r"`zero_division` must be one of 0.0, 1.0 or float\('nan'\)"
    ):
        DF.metrics.per_class("y_true", "y_pred", zero_division=zd)


def test_bad_labels() -> None:
    with pytest.raises(ValueError, match="`labels` must not be empty"):
        DF.metrics.report("y_true", "y_pred", labels=[])
    with pytest.raises(ValueError, match="`labels` must not repeat"):
        DF.metrics.report("y_true", "y_pred", labels=[0, 1, 0])
    with pytest.raises(ValueError, match=r"`labels`.*cannot be a label of column"):
        DF.metrics.report("y_true", "y_pred", labels=["cat"])
    with pytest.raises(ValueError, match="`labels` must be a sequence"):
        DF.metrics.report("y_true", "y_pred", labels="01")


def test_expression_bad_options() -> None:
    with pytest.raises(ValueError, match="`beta`"):
        plm.f_beta("t", "p", beta=-2)
    with pytest.raises(ValueError, match="`zero_division`"):
        plm.precision("t", "p", zero_division=3)


#: A call of every method that draws random replicates, with a bad ``seed``.
_SEEDED = {
    "average_precision": lambda m, kw: m.average_precision("y", "s", **kw),
    "averages": lambda m, kw: m.averages("y", "p", **kw),
    "compare": lambda m, kw: m.compare("y", "p", by="g", **kw),
    "compare_models": lambda m, kw: m.compare_models("y", ["s", "s2"], **kw),
    "disparity": lambda m, kw: m.disparity("y", "p", by="g", **kw),
    "fairness": lambda m, kw: m.fairness("y", "p", by="g", **kw),
    "html_report": lambda m, kw: m.html_report("y", "p", **kw),
    "over_time": lambda m, kw: m.over_time("y", y_pred="p", index="t", every="1d", **kw),
    "per_class": lambda m, kw: m.per_class("y", "p", **kw),
    "report": lambda m, kw: m.report("y", "p", **kw),
    "roc_auc": lambda m, kw: m.roc_auc("y", "s", **kw),
    "summary": lambda m, kw: m.summary("y", "p", **kw),
}


def test_every_seeded_method_is_listed() -> None:
    import inspect

    seeded = {
        name
        for name, method in inspect.getmembers(plm.MetricsLazyFrame)
        if not name.startswith("_") and "seed" in inspect.signature(method).parameters
    }
    assert seeded == set(_SEEDED)


@pytest.mark.parametrize("seed", [-1, 1.5, "a", True])
@pytest.mark.parametrize("method", sorted(_SEEDED))
def test_a_bad_seed_is_refused_at_the_call(method: str, seed: object) -> None:
    """A bad ``seed`` names ``seed`` before anything is computed (was numpy's
    'expected non-negative integer' for some methods)."""
    df = pl.DataFrame(
        {
            "y": [0, 1, 1, 0],
            "p": [0, 1, 0, 0],
            "s": [0.1, 0.9, 0.4, 0.3],
            "s2": [0.2, 0.8, 0.6, 0.1],
            "g": ["a", "a", "b", "b"],
            "t": [dt.date(2026, 1, d) for d in (1, 1, 2, 2)],
        }
    )
    with pytest.raises(ValueError, match=r"`seed` must be None or an integer >= 0"):
        _SEEDED[method](df.lazy().metrics, {"ci": 0.9, "seed": seed})


def test_calibration_with_a_mapping_of_too_few_classes_is_a_clear_error() -> None:
    # a mapping is multiclass calibration now (top-label / per-class, issue 12): a row
    # whose class has no probability column is refused, never read as a miss
    df = pl.DataFrame({"y": [0, 1, 2], "a": [0.4, 0.6, 0.5], "b": [0.6, 0.4, 0.5]})
    with pytest.raises(plm.DataError, match=r"1 rows whose label.*has no score column"):
        df.metrics.calibration_error("y", {0: "a", 1: "b"})


def test_options_are_checked_before_the_schema() -> None:
    with pytest.raises(ValueError, match="`ci` must be None or a confidence level"):
        CURVES.metrics.summary("nope", "y", ci=2.0)
    with pytest.raises(ValueError, match="`beta`"):
        CURVES.metrics.report("nope", "y", beta=-1)


def test_unhelpful_arguments_get_clear_messages() -> None:
    with pytest.raises(TypeError, match="`by` must be a column name or a list"):
        CURVES.metrics.summary("y", "y", by=3)
    with pytest.raises(TypeError, match="`y_score` must be a column name or a mapping"):
        CURVES.metrics.roc_auc("y", ["s"])
    got = CURVES.metrics.report("y", "y", beta=np.float32(2))  # numpy scalars are numbers
    assert "f2" in got.columns


def test_same_message_eager_and_lazy() -> None:
    df = pl.DataFrame({"y": [0, 1, 1], "s": [0.1, math.nan, 0.3]})
    messages = set()
    with pytest.raises(plm.DataError) as info:
        df.metrics.roc_auc("y", "s")
    messages.add(str(info.value).splitlines()[0])
    lazy = df.lazy().metrics.roc_auc("y", "s")
    with pytest.raises(plm.DataError) as info:
        lazy.collect()
    messages.add(str(info.value).splitlines()[0])
    with pytest.raises(plm.DataError) as info:
        df.select(plm.roc_auc("y", "s"))
    messages.add(str(info.value).splitlines()[0])
    assert len(messages) == 1, messages


def test_label_dtypes_that_cannot_be_compared_losslessly() -> None:
    df = pl.DataFrame({"a": ["x"], "b": [1]})
    with pytest.raises(SchemaError, match="incompatible"):
        df.metrics.summary("a", "b")


def test_expression_accuracy_compares_labels_as_the_frames_do() -> None:
    df = pl.DataFrame({"a": [2**53 + 1, 1], "b": [float(2**53), 1.0]})
    # 2**53 + 1 != 2**53: one of the two rows is correct
    assert df.select(plm.accuracy("a", "b")).item() == 0.5
    nan = pl.DataFrame({"a": [1.0, math.nan], "b": [1.0, math.nan]})
    with pytest.raises(plm.DataError, match="column 'a' has 1 rows that are not class labels"):
        nan.select(plm.accuracy("a", "b"))


def test_states_refuse_by_named_like_an_output_column() -> None:
    state = CURVES.rename({"seg": "precision"}).metrics.counts("y", "y", by="precision")
    with pytest.raises(ValueError, match="`by` column 'precision' collides"):
        plm.from_counts(state, by="precision").per_class()
    scores = CURVES.rename({"seg": "recall"}).metrics.score_counts("y", "s", by="recall")
    with pytest.raises(ValueError, match="`by` column 'recall' collides"):
        plm.from_score_counts(scores, by="recall").pr_curve()


def test_merged_states_with_signed_zero_scores_have_one_threshold() -> None:
    a = pl.DataFrame({"y": [1, 0], "s": [0.0, 0.5]}).metrics.score_counts("y", "s")
    b = pl.DataFrame({"y": [0, 1], "s": [-0.0, 0.5]}).metrics.score_counts("y", "s")
    curve = plm.from_score_counts(pl.concat([a, b])).roc_curve(drop_intermediate=False)
    rows = pl.DataFrame({"y": [1, 0, 0, 1], "s": [0.0, 0.5, -0.0, 0.5]})
    fpr, tpr, thr = skm.roc_curve(rows["y"], rows["s"], drop_intermediate=False)
    assert curve["threshold"].to_list() == thr.tolist()  # [inf, 0.5, 0.0]
    assert curve["fpr"].to_list() == fpr.tolist()
    assert curve["tpr"].to_list() == tpr.tolist()


def test_labels_option_accepts_whole_floats_for_integer_labels() -> None:
    df = pl.DataFrame({"t": [0, 1, 1], "p": [0, 1, 0]})
    got = df.metrics.per_class("t", "p", labels=[1.0, 0.0])
    assert got["label"].to_list() == [1, 0]


def test_expressions_treat_zero_weight_rows_as_absent() -> None:
    df = pl.DataFrame(
        {
            "t": [1, None, 0, 1],
            "p": [1, 1, 0, 0],
            "w": [1.0, 0.0, 2.0, 1.0],
            "q": [0.9, None, 0.1, 0.4],
        }
    )
    exprs = [
        plm.precision("t", "p", weight="w"),
        plm.accuracy("t", "p", weight="w"),
        plm.log_loss("t", "q", weight="w"),
        plm.brier_score("t", "q", weight="w"),
    ]
    assert_frame_equal(df.select(exprs), df.filter(pl.col("w") > 0).select(exprs))


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


# --------------------- rows: labels (nulls, NaN, floats that are labels, ids past 2**53)
@pytest.mark.parametrize("method", METHODS)
def test_nulls_in_labels_name_the_column_and_count(method: str) -> None:
    df = pl.DataFrame({"y_true": [0, None, None, 1], "y_pred": [0, 1, 1, None]})
    with pytest.raises(plm.DataError, match="column 'y_true' has 2 null rows"):
        getattr(df.metrics, method)("y_true", "y_pred")
    lazy = df.lazy().metrics.report("y_true", "y_pred")  # no error before collect
    with pytest.raises(plm.DataError, match="column 'y_true' has 2 null rows"):
        lazy.collect()
    with pytest.raises(plm.DataError, match="column 'y_pred' has 1 null rows"):
        df.drop_nulls("y_true").metrics.report("y_true", "y_pred")


def test_nan_label_is_a_data_error() -> None:
    df = pl.DataFrame({"a": [1.0, math.nan, 0.0], "b": [1.0, math.nan, 1.0]})
    with pytest.raises(plm.DataError, match="column 'a' has 1 rows that are not class labels"):
        df.metrics.summary("a", "b")


def test_probabilities_as_predictions_are_a_data_error() -> None:
    df = pl.DataFrame({"a": [1, 0, 1], "b": [0.7, 0.2, 0.9]})
    with pytest.raises(plm.DataError, match=r"column 'b' has 3 rows.*ranking methods"):
        df.metrics.report("a", "b")


def test_whole_float_labels_are_labels() -> None:
    df = pl.DataFrame({"a": [1, 0, 1, 2], "b": [1.0, 0.0, 2.0, -0.0]})
    got = df.metrics.summary("a", "b")["accuracy"][0]
    assert got == skm.accuracy_score([1, 0, 1, 2], [1.0, 0.0, 2.0, 0.0])  # 0.5


def test_nan_y_true_in_ranking_is_a_data_error() -> None:
    df = pl.DataFrame({"y": [1.0, math.nan, 0.0], "s": [0.9, 0.5, 0.1]})
    with pytest.raises(plm.DataError, match="column 'y' has 1 rows that are not class labels"):
        df.metrics.roc_auc("y", "s")


def test_int_ids_beyond_2_53_are_not_merged_with_floats() -> None:
    big = 2**53 + 1
    df = pl.DataFrame({"a": [big, 1], "b": [float(2**53), 1.0]})
    # 2**53 + 1 != 2**53: one of two rows is correct (a Float64 compare said both)
    assert df.metrics.summary("a", "b")["accuracy"][0] == 0.5


def test_integer_scores_beyond_2_53_are_a_data_error() -> None:
    df = pl.DataFrame({"y": [0, 1], "s": [2**53 + 1, 2**53 + 2]})
    with pytest.raises(plm.DataError, match=r"integer scores at or beyond \+-2\*\*53"):
        df.metrics.roc_auc("y", "s")


# ---------------- rows: pos_label (absent, mistyped; the default needs {0, 1} / {-1, 1})
@pytest.mark.parametrize("method", RANKING)
def test_pos_label_absent_from_the_input_is_an_error(method: str) -> None:
    with pytest.raises(plm.DataError, match=r"`pos_label`=2 does not occur.*\[0, 1\]"):
        getattr(CURVES.metrics, method)("y", "s", pos_label=2)
    with pytest.raises(plm.DataError, match=r"`pos_label`=2 does not occur"):
        getattr(CURVES.lazy().metrics, method)("y", "s", pos_label=2).collect()


def test_pos_label_absent_from_one_segment_gives_that_segment_one_class() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y": [0, 1, 0, 0], "s": [0.1, 0.9, 0.2, 0.3]})
    got = df.metrics.roc_auc("y", "s", by="g")
    assert got["roc_auc"].to_list() == [1.0, None]


@pytest.mark.parametrize("method", RANKING)
def test_pos_label_of_the_wrong_dtype_is_a_value_error(method: str) -> None:
    with pytest.raises(ValueError, match="`pos_label`='a' cannot be a label of column 'y'"):
        getattr(CURVES.metrics, method)("y", "s", pos_label="a")


def test_expression_pos_label_checks() -> None:
    df = pl.DataFrame({"y": [0, 1, 2], "p": [0, 1, 1]})
    with pytest.raises(plm.DataError, match="`pos_label`=5 occurs in none"):
        df.select(plm.precision("y", "p", pos_label=5))
    strings = pl.DataFrame({"y": ["a", "b"]})
    with pytest.raises(ValueError, match="`pos_label`=1 cannot be a label of column 'y'"):
        strings.select(plm.f1("y", "y"))


LABELS_12 = pl.DataFrame({"y": [1, 2, 1, 2, 2, 1], "s": [0.1, 0.9, 0.4, 0.6, 0.8, 0.3]})


@pytest.mark.parametrize(
    "method",
    [
        "roc_auc",
        "average_precision",
        "roc_curve",
        "pr_curve",
        "det_curve",
        "thresholds",
        "ks",
        "gains",
        "score_counts",
        "log_loss",
        "brier_score",
        "calibration_curve",
        "calibration_error",
        "d2_log_loss_score",
        "d2_brier_score",
        "cost_curve",
    ],
)
def test_default_pos_label_with_labels_1_and_2_is_refused(method: str) -> None:
    # scikit-learn: roc_auc_score takes 2 as positive (1.0 here), log_loss too
    # (0.302), average_precision_score takes 1, brier_score_loss raises: the
    # positive class must be said.  pl_metrics gave roc_auc 0.0 (1 as positive).
    with pytest.raises(plm.DataError, match=r"labels \[1, 2\].*pass `pos_label`"):
        getattr(LABELS_12.metrics, method)("y", "s")
    lazy = getattr(LABELS_12.lazy().metrics, method)("y", "s")
    with pytest.raises(plm.DataError, match=r"labels \[1, 2\].*pass `pos_label`"):
        lazy.collect()


def test_default_pos_label_on_the_sorted_roc_auc_path() -> None:
    # the DataFrame roc_auc sorts continuous scores instead of counting them
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"y": rng.integers(1, 3, 2000), "s": rng.random(2000)})
    with pytest.raises(plm.DataError, match="pass `pos_label`"):
        df.metrics.roc_auc("y", "s")
    got = df.metrics.roc_auc("y", "s", pos_label=2).item()
    assert got == pytest.approx(skm.roc_auc_score(df["y"] == 2, df["s"]), rel=1e-12)


def test_explicit_pos_label_with_labels_1_and_2_equals_sklearn() -> None:
    y, s = LABELS_12["y"].to_numpy(), LABELS_12["s"].to_numpy()
    m = LABELS_12.metrics
    assert m.roc_auc("y", "s", pos_label=2).item() == pytest.approx(skm.roc_auc_score(y, s))
    assert m.log_loss("y", "s", pos_label=2).item() == pytest.approx(skm.log_loss(y, s))
    assert m.brier_score("y", "s", pos_label=2).item() == pytest.approx(
        skm.brier_score_loss(y, s, pos_label=2)
    )


def test_methods_with_more_arguments_refuse_the_default_pos_label_with_labels_1_and_2() -> None:
    # class_likelihood_ratios: scikit-learn takes 2 as positive here, (2.0, 0.0); was (nan, 0.5)
    df = LABELS_12.with_columns(p=pl.Series([1, 2, 2, 2, 2, 1]), day=pl.date(2026, 1, 1))
    calls = [
        lambda: df.metrics.class_likelihood_ratios("y", "p"),
        lambda: df.metrics.expected_cost("y", "s", cost_matrix=[[0, 1], [1, 0]]),
        lambda: df.metrics.over_time("y", y_score="s", index="day", every="1d", metrics="roc_auc"),
    ]
    for call in calls:
        with pytest.raises(plm.DataError, match="pass `pos_label`"):
            call()
    got = df.metrics.class_likelihood_ratios("y", "p", pos_label=2).row(0)
    assert got == pytest.approx(skm.class_likelihood_ratios(df["y"], df["p"]))


_SK_BINARY = {
    plm.roc_auc: lambda y, s: skm.roc_auc_score(y == 2, s),
    plm.average_precision: lambda y, s: skm.average_precision_score(y == 2, s),
    plm.log_loss: lambda y, s: skm.log_loss(y == 2, s),
    plm.brier_score: lambda y, s: skm.brier_score_loss(y == 2, s),
}


@pytest.mark.parametrize("make", list(_SK_BINARY))
def test_expressions_refuse_the_default_pos_label_with_labels_1_and_2(make) -> None:
    with pytest.raises(plm.DataError, match="pass `pos_label`"):
        LABELS_12.select(make("y", "s"))
    got = LABELS_12.select(make("y", "s", pos_label=2)).item()
    assert got == pytest.approx(_SK_BINARY[make](LABELS_12["y"].to_numpy(), LABELS_12["s"]))


@pytest.mark.parametrize("make", [plm.log_loss, plm.brier_score])
def test_probability_expressions_refuse_a_mistyped_pos_label(make) -> None:
    # gave 0.9588 / 0.3375 (every row a negative); correct: 0.1976 / 0.0375
    df = pl.DataFrame({"y": ["no", "yes", "no", "yes"], "p": [0.1, 0.9, 0.2, 0.7]})
    with pytest.raises(plm.DataError, match="`pos_label`='Yes' occurs in none"):
        df.select(make("y", "p", pos_label="Yes"))
    expected = {plm.log_loss: skm.log_loss, plm.brier_score: skm.brier_score_loss}[make](
        [0, 1, 0, 1], [0.1, 0.9, 0.2, 0.7]
    )
    assert df.select(make("y", "p", pos_label="yes")).item() == pytest.approx(expected)


# ------- rows: weights (zero weights are absent rows; bad, huge and overflowing weights)
@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf, None])
def test_bad_weights_are_counted(bad: float | None) -> None:
    df = pl.DataFrame({"y_true": [0, 1, 1], "y_pred": [0, 1, 0], "w": [1.0, bad, bad]})
    with pytest.raises(plm.DataError, match=r"column 'w' \(argument `weight`\) has 2 rows"):
        df.metrics.report("y_true", "y_pred", weight="w")


def test_zero_weight_rows_are_absent() -> None:
    df = pl.DataFrame(
        {"y": [1, 1, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.3, 0.1], "w": [0.0, 1, 1, 1, 1]}
    )
    ap = df.metrics.average_precision("y", "s", weight="w")["average_precision"][0]
    # scikit-learn drops zero-weight rows in _binary_clf_curve: 0.8333...
    assert ap == pytest.approx(skm.average_precision_score(df["y"], df["s"], sample_weight=df["w"]))
    kept = df.filter(pl.col("w") > 0)
    for method in ["roc_curve", "pr_curve", "det_curve", "thresholds"]:
        assert_frame_equal(
            getattr(df.metrics, method)("y", "s", weight="w"),
            getattr(kept.metrics, method)("y", "s", weight="w"),
        )
    labels = pl.DataFrame({"t": [0, 1, 2], "p": [0, 1, 2], "w": [1.0, 1.0, 0.0]})
    # class 2 only in a zero-weight row: absent, so the macro F1 is 1.0 (2 classes)
    report = labels.metrics.report("t", "p", weight="w")
    assert report["label"].drop_nulls().to_list() == [0, 1]


def test_huge_equal_weights_give_the_unweighted_auc() -> None:
    df = CURVES.with_columns(w=pl.lit(1e200))
    got = df.metrics.roc_auc("y", "s", weight="w")["roc_auc"][0]
    assert got == pytest.approx(skm.roc_auc_score(df["y"], df["s"]))


def test_weights_summing_to_infinity_are_a_data_error() -> None:
    df = CURVES.with_columns(w=pl.lit(1e308))
    for method in ["summary", "report"]:
        with pytest.raises(plm.DataError, match=r"sum to more than 4\.5e307"):
            getattr(df.metrics, method)("y", "y", weight="w")
    with pytest.raises(plm.DataError, match=r"sum to more than 4\.5e307"):
        df.metrics.roc_auc("y", "s", weight="w")


def test_weights_whose_sums_of_totals_overflow_are_a_data_error() -> None:
    # a segment's weights summing to 1.5e308 (finite) made tp + fp + fn, n + tp and
    # 2 tp overflow: Jaccard 0.0 where every row is right (1.0), tn and F1 NaN, and
    # the averages a cast error. Every path now refuses totals above a quarter of the
    # largest float (checks.MAX_WEIGHT_TOTAL, 2**1022 ~ 4.5e307)
    rows = {"t": [0, 0, 1], "p": [0, 0, 1], "s": [0.1, 0.2, 0.9]}
    df = pl.DataFrame({**rows, "w": [0.75e308, 0.75e308, 1.0]})
    match = r"to more than 4\.5e307"
    calls = {
        "per_class": lambda d: d.metrics.per_class("t", "p", weight="w"),
        "averages": lambda d: d.metrics.averages("t", "p", weight="w"),
        "report": lambda d: d.metrics.report("t", "p", weight="w", by="t"),
        "summary": lambda d: d.metrics.summary("t", "p", weight="w"),
        "roc_auc": lambda d: d.metrics.roc_auc("t", "s", weight="w"),
        "roc_curve": lambda d: d.metrics.roc_curve("t", "s", weight="w"),
        "average_precision": lambda d: d.metrics.average_precision("t", "s", weight="w"),
        "ks": lambda d: d.metrics.ks("t", "s", weight="w"),
        "log_loss": lambda d: d.metrics.log_loss("t", "s", weight="w"),
        "calibration_error": lambda d: d.metrics.calibration_error("t", "s", weight="w"),
        "f1 macro expression": lambda d: d.select(plm.f1("t", "p", average="macro", weight="w")),
        "jaccard expression": lambda d: d.select(plm.jaccard("t", "p", weight="w")),
        "balanced_accuracy expression": (
            lambda d: d.select(plm.balanced_accuracy("t", "p", weight="w"))
        ),
        "log_loss expression": lambda d: d.select(plm.log_loss("t", "s", weight="w")),
        "multilabel": lambda d: d.select(
            pl.concat_list("t").alias("t"), pl.concat_list("p").alias("p"), "w"
        ).metrics.averages("t", "p", weight="w"),
    }
    for name, call in calls.items():
        with pytest.raises(plm.DataError, match=match):  # noqa: PT012 - names the call
            call(df)
            pytest.fail(f"{name}: no error")
    # merged states: each shard's total (3e307) is below the bound, the merge's is not
    df = pl.DataFrame({**rows, "w": [3e307, 3e307, 1.0]})
    shards = [
        df[:1].metrics.counts("t", "p", weight="w"),
        df[1:].metrics.counts("t", "p", weight="w"),
    ]
    with pytest.raises(plm.DataError, match=match):
        plm.from_counts(pl.concat(shards)).averages()
    # below the bound: every row right, so every score is 1.0 (by hand), tn exact
    fine = pl.DataFrame({**rows, "w": [1.5e307, 1.5e307, 1e307]})  # 4e307 in all
    extra = {"weight": "w", "extra_scores": "fowlkes_mallows"}
    per_class = fine.metrics.per_class("t", "p", **extra)
    assert per_class["tn"].to_list() == pytest.approx([1e307, 3e307], rel=1e-12)
    for column in ("precision", "recall", "f1", "jaccard", "fowlkes_mallows"):
        assert per_class[column].to_list() == [1.0, 1.0], column
        assert fine.metrics.averages("t", "p", **extra)[column].to_list() == [1.0] * 3
    assert fine.select(plm.f1("t", "p", average="macro", weight="w")).item() == 1.0


def _state(cells: dict[tuple[int, int], int]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "actual": [a for a, _ in cells],
            "predicted": [p for _, p in cells],
            "count": list(cells.values()),
        }
    )


def test_mcc_and_kappa_exact_at_large_counts() -> None:
    # [[9e18, 1], [1, 1]]: cov(t,p) = c n - sum t p with n = 9e18 + 3, c = 9e18 + 1;
    # exact: MCC = (c n - sum t p) / sqrt(...) = 0.5 (by hand, in integers, below)
    cells = {(0, 0): 9 * 10**18, (0, 1): 1, (1, 0): 1, (1, 1): 1}
    t = [9 * 10**18 + 1, 2]
    p = [9 * 10**18 + 1, 2]
    n, c = sum(t), 9 * 10**18 + 1
    cov_tp = c * n - sum(a * b for a, b in zip(t, p, strict=True))
    cov_tt = n * n - sum(a * a for a in t)
    mcc = cov_tp / math.sqrt(cov_tt * cov_tt)
    kappa = cov_tp / (n * n - sum(a * b for a, b in zip(t, p, strict=True)))
    got = plm.from_counts(_state(cells)).summary()
    assert got["mcc"][0] == pytest.approx(mcc, rel=1e-12)
    assert got["cohen_kappa"][0] == pytest.approx(kappa, rel=1e-12)
    # a rare class at n ~ 1e9: scikit-learn in float64 on the expanded rows is the oracle
    small = {(0, 0): 10**6, (0, 1): 5, (1, 0): 5, (1, 1): 10}
    rows = [(a, b) for (a, b), k in small.items() for _ in range(k)]
    y_t, y_p = np.array([a for a, _ in rows]), np.array([b for _, b in rows])
    got = plm.from_counts(_state(small)).summary()
    assert got["mcc"][0] == pytest.approx(skm.matthews_corrcoef(y_t, y_p), rel=1e-12)


def _exact_mcc(y: list[int], p: list[int], w: list[float]) -> tuple[float, float]:
    """scikit-learn's MCC formula in exact fractions of the float weights, and its
    condition: the numerator's terms, sum_k (P_k' tp_k + p_k miss_k) (P_k': the other
    classes' predicted weight; miss_k: class k's weight predicted as another), over
    the denominator.  A float sum of those terms is off by a few units in the last
    place of their size; the MCC by that times the condition."""
    from fractions import Fraction

    weights = [Fraction(x) for x in w]
    n = sum(weights)
    classes = sorted({*y, *p})
    t = [sum(x for a, x in zip(y, weights, strict=True) if a == k) for k in classes]
    q = [sum(x for b, x in zip(p, weights, strict=True) if b == k) for k in classes]
    c = sum(x for a, b, x in zip(y, p, weights, strict=True) if a == b)
    tp = [sum(x for a, b, x in zip(y, p, weights, strict=True) if a == b == k) for k in classes]
    cov_tp = c * n - sum(a * b for a, b in zip(t, q, strict=True))
    cov_pp, cov_tt = n * n - sum(b * b for b in q), n * n - sum(a * a for a in t)
    if cov_pp == 0 or cov_tt == 0:
        return 0.0, 0.0
    terms = sum((n - b) * d + b * (a - d) for a, b, d in zip(t, q, tp, strict=True))
    root = math.sqrt(float(cov_pp / n**2) * float(cov_tt / n**2))
    return float(cov_tp / n**2) / root, float(terms / n**2) / root


@settings(max_examples=60, deadline=None)
@example(  # a class holding just over half the predicted weight (a window inside a
    # window's sum, in a first version, gave 13.4): found by 1,500 random frames
    rows=[
        *[(1, 1, 2.5), (4, 1, 7e8), (1, 4, 3e12), (1, 1, 3e12)],
        *[(2, 4, 2.5), (1, 3, 2.5), (2, 1, 2.5), (4, 2, 7e8)],
    ]
)
@given(
    rows=st.lists(
        st.tuples(st.integers(1, 4), st.integers(1, 4), st.sampled_from([1.0, 2.5, 1e15, 3e12])),
        min_size=2,
        max_size=12,
    )
)
def test_weighted_mcc_with_huge_weights_is_exact(rows: list[tuple[int, int, float]]) -> None:
    # n^2 - sum(p_k^2) and c n - sum(t_k p_k) in Float64 kept only the digits that a
    # class holding 1e15 has beyond the others: a new user's example (below) gave
    # -0.2944 or -0.2837 by the order polars summed in, for the exact -0.288675
    # (scikit-learn: -0.2870).  Now sums of products without those differences
    # (covariances.weighted_mcc_covariances): within a few units in the last place of
    # the numerator's terms (the condition, _exact_mcc), where the old form was 2%
    # off on that example (condition 0.3).  A first version that rewrote the
    # denominator alone gave 1.11 for a perfect prediction
    y, p, w = (list(c) for c in zip(*rows, strict=True))
    df = pl.DataFrame({"y": y, "p": p, "w": w, "g": [0] * len(y)})
    expected, condition = _exact_mcc(y, p, w)
    got = [
        df.metrics.summary("y", "p", weight="w")["mcc"][0],
        df.lazy().metrics.summary("y", "p", weight="w", by="g").collect()["mcc"][0],
        df.select(plm.mcc("y", "p", weight="w")).item(),
        df.group_by("g").agg(plm.mcc("y", "p", weight="w"))["mcc"][0],
    ]
    tolerance = 32 * 2.0**-52 * condition + 1e-15
    assert got == pytest.approx([expected] * 4, rel=1e-12, abs=tolerance)
    assert all(-1.0 <= value <= 1.0 for value in got)


def _all_small_frames() -> pl.DataFrame:
    """Every pair of label lists of 1-4 rows over {0, 1, 2} and of 5-6 rows over {0, 1}
    (12,500 groups ``g``), one row a label pair."""
    rows, group = [], 0
    for n, classes in [(1, 3), (2, 3), (3, 3), (4, 3), (5, 2), (6, 2)]:
        for y in itertools.product(range(classes), repeat=n):
            for p in itertools.product(range(classes), repeat=n):
                rows += [(group, a, b) for a, b in zip(y, p, strict=True)]
                group += 1
    return pl.DataFrame(rows, schema=["g", "y", "p"], orient="row")


@pytest.mark.parametrize("weight", [1.0, 0.1, 1 / 3, 3.0])
def test_weighted_mcc_with_equal_weights_is_the_unweighted_one(weight: float) -> None:
    # equal weights scale every count alike: the MCC of the counts of rows (exact, in
    # integers).  plm.mcc(weight=) was 0 where it is -1/sqrt(5) = -0.4472 for
    # y = [0, 0, 0, 0, 0, 1], p = [1, 1, 1, 0, 0, 0] (by hand: c n - sum t p = 2 x 6 -
    # (5 x 3 + 1 x 3) = -6, n^2 - sum p^2 = 18, n^2 - sum t^2 = 10; -6 / sqrt(180)),
    # and wrong in 240 to 480 of these 12,500 frames: the predicted classes, 3/5 of the
    # scale each, were computed as 0.6000000000000001 against a total of 1.2, so both
    # counted as holding more than half (covariances.dominant)
    df = _all_small_frames()
    weighted = df.with_columns(w=pl.lit(weight))
    exact = df.metrics.summary("y", "p", by="g").select("g", "mcc")
    expression = weighted.group_by("g").agg(plm.mcc("y", "p", weight="w"))
    frame = weighted.metrics.summary("y", "p", by="g", weight="w").select("g", "mcc")
    for got in (expression, frame):
        assert_frame_equal(got.sort("g"), exact.sort("g"), check_exact=False, abs_tol=1e-12)
    example = pl.DataFrame({"y": [0, 0, 0, 0, 0, 1], "p": [1, 1, 1, 0, 0, 0], "w": [weight] * 6})
    value = example.select(plm.mcc("y", "p", weight="w")).item()
    assert value == pytest.approx(-1 / math.sqrt(5), rel=1e-12)


def test_weighted_mcc_of_a_new_users_example() -> None:
    y, p, w = [3, 1, 3, 1, 4, 4], [4, 4, 1, 3, 4, 3], [1.0, 1e15, 1.0, 1.0, 1.0, 1.0]
    # exact, by hand from the confusion matrix (rows actual 1, 3, 4; columns
    # predicted 1, 3, 4): [[0, 1, 1e15], [1, 0, 1], [0, 1, 1]]; n = 1e15 + 5,
    # c = 1, t = (1e15 + 1, 2, 2), p = (1, 2, 1e15 + 2): with N = 1e15 the MCC is
    # -(2N + 4) / sqrt((6N + 16) (8N + 16)), -1/sqrt(12) = -0.288675... to 1e-15
    assert _exact_mcc(y, p, w)[0] == pytest.approx(-1 / math.sqrt(12), rel=1e-12)
    df = pl.DataFrame({"y": y, "p": p, "w": w})
    values = {df.metrics.summary("y", "p", weight="w")["mcc"][0] for _ in range(20)}
    # were -0.2944 and -0.2837 by the order polars summed in; now that order moves
    # the last bit at most
    assert max(values) - min(values) <= 1e-15
    assert sorted(values) == pytest.approx([-1 / math.sqrt(12)] * len(values), rel=1e-12)


def test_merged_counts_past_int64_are_an_error_not_a_wrap() -> None:
    half = 2**62
    state = pl.concat([_state({(0, 0): half}), _state({(0, 0): half}), _state({(1, 1): 1})])
    with pytest.raises(plm.DataError, match="pass 2\\*\\*63 - 1"):
        plm.from_counts(state).summary()


def test_calibration_error_refuses_weights_that_overflow_in_the_segment() -> None:
    # each bin's weights are finite, the segment's sum is not: ECE was 0.0
    rng = np.random.default_rng(13)
    df = pl.DataFrame({"y": rng.integers(0, 2, 50), "s": rng.random(50), "w": [1e307] * 50})
    with pytest.raises(plm.DataError, match=r"sum to more than 4\.5e307"):
        df.metrics.calibration_error("y", "s", weight="w")


def test_weighted_log_loss_does_not_overflow() -> None:
    # loss x weight overflowed to inf although the weights' sum is finite
    df = pl.DataFrame({"y": [1, 1, 0], "p": [0.0, 0.0, 1.0], "w": [1e307] * 3})
    expected = skm.log_loss([1, 1, 0], [0.0, 0.0, 1.0])  # equal weights: the plain mean
    assert df.metrics.log_loss("y", "p", weight="w").item() == pytest.approx(expected)
    assert df.select(plm.log_loss("y", "p", weight="w")).item() == pytest.approx(expected)


@pytest.mark.parametrize("scale", [1.0, 1e76, 1e160, 1e300])
def test_threshold_mcc_does_not_overflow(scale: float) -> None:
    # equal weights must give the un-weighted MCC: was 0.0 at 1e76 and NaN at 1e160
    y = [1, 0, 1, 0, 1, 0, 0, 1]
    s = [0.9, 0.1, 0.4, 0.35, 0.8, 0.7, 0.2, 0.6]
    df = pl.DataFrame({"y": y, "s": s, "w": [scale] * 8})
    got = df.metrics.best_threshold("y", "s", metric="mcc", weight="w")
    predicted = [int(x >= got["threshold"].item()) for x in s]
    assert got["mcc"].item() == pytest.approx(skm.matthews_corrcoef(y, predicted), rel=1e-12)
    assert got["threshold"].item() == 0.4  # the unweighted best threshold


@pytest.mark.parametrize(
    "scale", [1.0, 2.0**520, 1e154, 1e200, 7e306, 0.3, 1e-160, 1e-200, 2.0**-700, 1e-306]
)
def test_ks_and_likelihood_ratios_do_not_overflow(scale: float) -> None:
    # tps N - fps P and tp (tn + fp) / (fp (tp + fn)) multiply two weight sums: KS was
    # inf and both likelihood ratios NaN from 1e154 (scikit-learn's ratios: NaN, with an
    # overflow warning); they underflowed from below: KS 0.0 and ratios NaN at 1e-200,
    # 0.6666592 at 1e-160 (found by an audit). Equal weights must give the unweighted
    # numbers
    y = [1, 0, 1, 0, 1, 0]
    s = [0.9, 0.1, 0.4, 0.35, 0.8, 0.7]
    p = [1, 0, 0, 1, 1, 0]
    df = pl.DataFrame({"y": y, "s": s, "p": p, "w": [scale] * 6})
    positives = [x for x, t in zip(s, y, strict=True) if t]
    negatives = [x for x, t in zip(s, y, strict=True) if not t]
    expected_ks = stats.ks_2samp(positives, negatives).statistic  # 2/3
    scored = df.lazy().metrics.score_counts("y", "s", weight="w").collect()
    over_time = df.with_columns(day=pl.date(2026, 1, 1)).metrics.over_time(
        "y", y_score="s", index="day", every="1d", metrics=["ks"], weight="w"
    )
    for got in (
        df.metrics.ks("y", "s", weight="w")["ks"].item(),
        df.metrics.ks("y", "s", weight="w", bins=5)["ks"].item(),
        plm.from_score_counts(scored).ks()["ks"].item(),
        over_time["value"].item(),
    ):
        assert got == pytest.approx(expected_ks, rel=1e-12)
    if math.frexp(scale)[0] == 0.5:  # a power of two: the sums exact, the tie exact too
        assert df.metrics.ks("y", "s", weight="w")["threshold"].item() == 0.8  # as unweighted
    lr = df.metrics.class_likelihood_ratios("y", "p", weight="w").row(0)
    assert lr == pytest.approx(skm.class_likelihood_ratios(y, p), rel=1e-12)


@pytest.mark.parametrize("small", [1e-130, 1e-110, 1.0])
@pytest.mark.parametrize("big", [1e154, 1e300, 4e306, 1e-100])
def test_ks_and_likelihood_ratios_keep_small_weights_beside_huge_ones(small, big) -> None:
    # a fixed scale of 2**-600 took positives of 1e-130 beside negatives of 1e154 to
    # the subnormals: KS 0.0 and both ratios NaN (found by the review); the smallest
    # scale that avoids the overflow keeps them
    y = [1, 0, 1, 0, 1, 0]
    s = [0.9, 0.1, 0.4, 0.35, 0.8, 0.7]
    p = [1, 0, 0, 1, 1, 0]
    w = [small if t else big for t in y]
    df = pl.DataFrame({"y": y, "s": s, "p": p, "w": w})
    for bins in (None, 5):
        got = df.metrics.ks("y", "s", weight="w", bins=bins)["ks"].item()
        assert got == pytest.approx(2 / 3, rel=1e-12)  # equal-weight classes: as unweighted
    lr = df.metrics.class_likelihood_ratios("y", "p", weight="w").row(0)
    assert lr == pytest.approx((2.0, 0.5), rel=1e-12)  # each class's own rows: unweighted


@pytest.mark.parametrize("t", [1e-160, 1e-162, 1e-200])
def test_likelihood_ratios_of_mixed_scale_weights(t: float) -> None:
    # weights [tp, fn, fp, tn] = [t, t, t, 1]: recall t / 2t = 1/2, false alarms
    # t / (t + 1), so LR+ = (1/2) (t + 1) / t and LR- = (1/2) / (1 / (t + 1)).
    # tp (tn + fp) underflowed: NaN at 1e-162, 5.00005566e159 at 1e-160, while the same
    # weights times 2**-300 (a power of two changes nothing) gave 5e161 (a review)
    df = pl.DataFrame({"y": [1, 1, 0, 0], "p": [1, 0, 1, 0], "w": [t, t, t, 1.0]})
    expected = (0.5 * (t + 1) / t, 0.5 * (t + 1))
    for scale in (1.0, 2.0**-300, 2.0**300):
        frame = df.with_columns(pl.col("w") * scale)
        lr = frame.metrics.class_likelihood_ratios("y", "p", weight="w").row(0)
        assert lr == pytest.approx(expected, rel=1e-12), scale


def test_subnormal_weights_are_refused() -> None:
    # 5e-324 holds one bit: AP was inf and AUC NaN
    df = pl.DataFrame({"y": [0, 1, 1], "s": [0.3, 0.9, 0.2], "w": [5e-324] * 3})
    for call in (
        lambda: df.metrics.average_precision("y", "s", weight="w"),
        lambda: df.metrics.brier_score("y", "s", weight="w"),
        lambda: df.select(plm.log_loss("y", "s", weight="w")),
    ):
        with pytest.raises(plm.DataError, match="subnormal"):
            call()


# --------------------------------------------- states: bad or inconsistent merged states
@pytest.mark.parametrize(
    ("state", "match"),
    [
        (
            _state({(0, 0): -5, (1, 1): 3}),
            "'count' has 1 rows that are null, NaN, infinite or negative",
        ),
        (
            pl.DataFrame({"actual": [0, None], "predicted": [0, 1], "count": [1, 1]}),
            "'actual' has 1 rows that are null labels",
        ),
        (
            pl.DataFrame({"actual": [0, 1], "predicted": [0, 1], "count": [1, None]}),
            "'count' has 1 rows that are null",
        ),
    ],
)
def test_bad_counts_states_are_refused(state: pl.DataFrame, match: str) -> None:
    with pytest.raises(plm.DataError, match=match):
        plm.from_counts(state).summary()


@pytest.mark.parametrize(
    ("column", "value", "match"),
    [("score", math.nan, "'score' has 1 rows"), ("pos", -1, "'pos' has 1 rows")],
)
def test_bad_score_states_are_refused(column: str, value: float, match: str) -> None:
    state = pl.DataFrame({"score": [0.1, 0.9], "pos": [1, 1], "neg": [1, 0]}).with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(value).otherwise(pl.col(column)).alias(column)
    )
    with pytest.raises(plm.DataError, match=match):
        plm.from_score_counts(state).roc_auc()


def test_a_state_without_any_positive_is_refused() -> None:
    # every shard made with a mistyped pos_label: AP 0.0 and a null AUC
    df = pl.DataFrame({"y": ["no", "yes", "no"], "s": [0.1, 0.9, 0.3]})
    state = pl.concat([df.metrics.score_counts("y", "s", pos_label="Yes")] * 2)
    with pytest.raises(plm.DataError, match="no positive row"):
        plm.from_score_counts(state).average_precision()


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
    from pl_metrics._ranking import sorted_path as rs

    monkeypatch.setattr(rs, "MIN_DISTINCT", 10**9 if how == "count" else -1)
    monkeypatch.setattr(rs, "USE_KEYS", how == "keys")
    rng = np.random.default_rng(24)
    n = 3000
    y, p0, p1 = rng.integers(0, 3, n), rng.random(n), rng.random(n)
    seg = rng.integers(0, 2, n)
    df = pl.DataFrame({"seg": seg, "y": y, "p0": p0, "p1": p1})
    assert rs.strategy(df, {0: "p0", 1: "p1", 2: "p1"}) == how
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


# ------------------------------------------------- dependencies: polars alone at runtime
def test_import_and_frame_methods_need_polars_only() -> None:
    """The runtime dependency is polars: `import pl_metrics` and the frame methods work
    without numpy (a module-level numpy import once broke `make demo` in a fresh clone);
    an expression that needs numpy says so."""
    import subprocess
    import sys

    code = """
import sys
sys.modules["numpy"] = None  # numpy absent
import polars as pl
import pl_metrics as plm
df = pl.DataFrame({"y": ["a", "b", "a"], "p": ["a", "a", "a"]})
assert df.metrics.report("y", "p").height == 5
assert df.select(plm.f1("y", "p", pos_label="a")).item() > 0
try:
    df.select(plm.f1("y", "p", average="macro"))
except ModuleNotFoundError as exc:
    assert "pip install numpy" in str(exc)
else:
    raise AssertionError("no error without numpy")
"""
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_nan_label_is_refused_as_nan() -> None:
    # labels=[nan, 1.0]: the expression said "cannot be a label of column 'labels'
    # (Float64)" (its call-time check has no column yet), the frame method "of column
    # 'y' (Int64)"; NaN is no label of any column (NaN labels are refused in the data)
    df = pl.DataFrame({"y": [0, 1, 1], "p": [0, 1, 0]})
    calls = [
        lambda: df.select(plm.f1("y", "p", average="macro", labels=[math.nan, 1.0])),
        lambda: df.select(plm.mcc("y", "p", labels=[1.0, math.nan])),
        lambda: df.metrics.averages("y", "p", labels=[math.nan, 1.0]),
        lambda: df.metrics.summary("y", "p", labels=[0, float("nan")]),
        lambda: plm.from_counts(df.metrics.counts("y", "p")).summary(labels=[math.nan]),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="`labels` must not contain NaN"):
            call()
