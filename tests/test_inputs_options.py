"""The input rules, options: checked at the call, before the schema, naming the
argument.

The stages, and what every rule promises: ``test_inputs.py``.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import polars as pl
import pytest
from _inputs_helpers import CURVES, DF
from polars.exceptions import SchemaError
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics as plm


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
    "gini": lambda m, kw: m.gini("y", "s", **kw),
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
