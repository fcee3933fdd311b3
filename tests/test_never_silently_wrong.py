"""Each class of input that once gave a wrong number without an error (issue 11).

Every test here failed on the code before the core rewrite; expected numbers
come from scikit-learn or from a hand computation in a comment.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from polars.exceptions import SchemaError
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics as plm
from pl_metrics._core import names

CURVES = pl.DataFrame(
    {"y": [1, 1, 0, 1, 0, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.3, 0.1, 0.5, 0.6, 0.2]}
).with_columns(seg=pl.Series([1, 1, 1, 1, 2, 2, 2, 2]))

RANKING = ["roc_auc", "average_precision", "roc_curve", "pr_curve", "det_curve", "thresholds"]


# --------------------------------------------------------------------------- by names
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


# --------------------------------------------------------------------------- zero weights
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


# --------------------------------------------------------------------------- labels
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


# --------------------------------------------------------------------------- pos_label
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


# --------------------------------------------------------------------------- overflow
def test_huge_equal_weights_give_the_unweighted_auc() -> None:
    df = CURVES.with_columns(w=pl.lit(1e200))
    got = df.metrics.roc_auc("y", "s", weight="w")["roc_auc"][0]
    assert got == pytest.approx(skm.roc_auc_score(df["y"], df["s"]))


def test_weights_summing_to_infinity_are_a_data_error() -> None:
    df = CURVES.with_columns(w=pl.lit(1e308))
    for method in ["summary", "report"]:
        with pytest.raises(plm.DataError, match="sum to infinity"):
            getattr(df.metrics, method)("y", "y", weight="w")
    with pytest.raises(plm.DataError, match="sum to infinity"):
        df.metrics.roc_auc("y", "s", weight="w")


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


def test_merged_counts_past_int64_are_an_error_not_a_wrap() -> None:
    half = 2**62
    state = pl.concat([_state({(0, 0): half}), _state({(0, 0): half}), _state({(1, 1): 1})])
    with pytest.raises(plm.DataError, match="pass 2\\*\\*63 - 1"):
        plm.from_counts(state).summary()


# --------------------------------------------------------------------------- states
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


# --------------------------------------------------------------------------- crashes, options
def test_calibration_with_a_mapping_is_a_clear_error() -> None:
    df = pl.DataFrame({"y": [0, 1], "a": [0.4, 0.6], "b": [0.6, 0.4]})
    with pytest.raises(TypeError, match="`y_prob` must be a column name"):
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
