"""The input rules, rows: labels (nulls, NaN, floats that are labels, ids past 2**53)
and pos_label (absent, mistyped; the default needs {0, 1} / {-1, 1}).

The stages, and what every rule promises: ``test_inputs.py``.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from _inputs_helpers import CURVES, METHODS, RANKING
from sklearn import metrics as skm

import pl_metrics as plm


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
