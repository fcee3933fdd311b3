"""The losses of a one-hot ``y_true`` (a label indicator column per class): equal to
the label column's and to scikit-learn's, hard cases by hand, bad rows and arguments."""

from __future__ import annotations

import math
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from test_practitioner import _d2_brier_score  # scikit-learn's, or its definition

import pl_metrics as plm

# ------------------------------------------------------------------ one-hot y_true
#: The losses that take a one-hot ``y_true`` (scikit-learn: a label indicator matrix).
ONE_HOT_METRICS = ("log_loss", "brier_score", "d2_log_loss_score", "d2_brier_score")
#: Indicator dtypes: Boolean, 0/1 integers, exact 0.0/1.0 floats.
ONE_HOT_DTYPES = (pl.Boolean, pl.Int8, pl.Float64)
#: Weights: 0 (the row is absent), dyadic, large (a ratio of 1e12 makes the null model's
#: loss of D^2 lose digits in both libraries: 1 - prior is within eps of 1e-12).
ONE_HOT_WEIGHTS = st.sampled_from([0.0, 0.5, 1.0, 3.0, 1e6])


@st.composite
def one_hot_frames(draw: st.DrawFn) -> dict:
    """k classes as ints or strings, each row's class one-hot in odd-named columns of one
    dtype; a class may be absent, a segment may hold one class or one row."""
    k = draw(st.integers(2, 4))
    n = draw(st.integers(1, 30))
    classes = draw(st.sampled_from([list(range(k)), ["b", "a c", "d", "0"][:k]]))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), dtype=int)
    raw = np.array(
        draw(st.lists(st.lists(st.integers(0, 4), min_size=k, max_size=k), min_size=n, max_size=n)),
        dtype=float,
    )
    raw = raw + np.eye(k)[y] * 0.5
    proba = raw / raw.sum(axis=1, keepdims=True)
    dtype = draw(st.sampled_from(ONE_HOT_DTYPES))
    truth = {c: f"is {c!s}: 1?" for c in classes}
    probs = {c: f"p({c!s})" for c in classes}
    data: dict[str, object] = {"y": [classes[i] for i in y]}
    data |= {truth[c]: pl.Series((y == i).astype(int)).cast(dtype) for i, c in enumerate(classes)}
    data |= {probs[c]: proba[:, i] for i, c in enumerate(classes)}
    by: list[str] = []
    if draw(st.booleans()):
        data["by"] = draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
        by = ["by"]
    weight = None
    if draw(st.booleans()):
        data["w"] = draw(st.lists(ONE_HOT_WEIGHTS, min_size=n, max_size=n))
        weight = "w"
    return {
        "df": pl.DataFrame(data),
        "truth": truth,
        "probs": probs,
        "by": by,
        "weight": weight,
    }


def _indicator_oracle(seg: pl.DataFrame, case: dict) -> pl.DataFrame:
    """scikit-learn's four losses of a segment, on its label indicator matrix (columns
    in the order of the sorted labels, as the probabilities'); D^2 is NaN with one
    class (scikit-learn divides by a null loss of ~0)."""
    labels = sorted(case["truth"])
    indicators = seg.select(pl.col(case["truth"][c]).cast(pl.Int64) for c in labels).to_numpy()
    proba = seg.select(case["probs"][c] for c in labels).to_numpy()
    kw = oracle.sample_weight(seg, case["weight"])
    one_class = (indicators.sum(axis=0) > 0).sum() < 2
    # D^2 from the labels the rows' indicators set: scikit-learn 1.9 takes the indicator
    # matrix there too (the same number), 1.7 (the floor's) only labels
    y = np.asarray(labels)[indicators.argmax(axis=1)] if len(seg) else np.asarray(labels)[:0]
    d2 = {"labels": labels, **kw}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pl.DataFrame(
            {
                "log_loss": [skm.log_loss(indicators, proba, **kw)],
                "brier_score": [skm.brier_score_loss(indicators, proba, **kw)],
                "d2_log_loss_score": [
                    math.nan if one_class else skm.d2_log_loss_score(y, proba, **d2)
                ],
                "d2_brier_score": [
                    math.nan if one_class else _d2_brier_score(y, proba, labels, **kw)
                ],
            }
        )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=one_hot_frames())
def test_one_hot_y_true_equals_the_label_column_and_sklearn(case: dict) -> None:
    df, kw = case["df"], {"by": case["by"] or None, "weight": case["weight"]}
    expected = oracle.by_segment(
        df, case["by"], lambda seg: _indicator_oracle(seg, case), weight=case["weight"]
    )
    for metric in ONE_HOT_METRICS:
        got = getattr(df.metrics, metric)(case["truth"], case["probs"], **kw)
        assert_frame_equal(got, getattr(df.metrics, metric)("y", case["probs"], **kw))
        lazy = getattr(df.lazy().metrics, metric)(case["truth"], case["probs"], **kw)
        assert_frame_equal(lazy.collect(engine="streaming"), got)
        if expected is None:  # every row weighs 0: no segment
            assert got.height == 0
        else:
            oracle.assert_close(got, expected.select(*case["by"], metric))


def _one_hot_frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "t0": [1, 0, 0, 0],
            "t1": [0, 1, 0, 1],
            "t2": [0, 0, 1, 0],
            "p0": [0.7, 0.2, 0.1, 0.3],
            "p1": [0.2, 0.5, 0.1, 0.3],
            "p2": [0.1, 0.3, 0.8, 0.4],
            "w": [1.0, 0.0, 1.0, 2.0],
        }
    )


ONE_HOT = {0: "t0", 1: "t1", 2: "t2"}
ONE_HOT_PROBS = {0: "p0", 1: "p1", 2: "p2"}


def test_one_hot_hard_cases_by_hand() -> None:
    df = _one_hot_frame()
    # by hand: the probabilities of the set classes 0.7, 0.5, 0.8, 0.3
    expected = -(math.log(0.7) + math.log(0.5) + math.log(0.8) + math.log(0.3)) / 4
    assert df.metrics.log_loss(ONE_HOT, ONE_HOT_PROBS).item() == pytest.approx(expected, 1e-12)
    # float 0.0 / -0.0 / 1.0 indicators are the integers'; the mapping's order is free
    floats = df.with_columns(
        pl.col("t0", "t1", "t2").cast(pl.Float64) * pl.lit(-1.0).pow(pl.int_range(4) % 2)
    )
    floats = floats.with_columns(pl.col("t0", "t1", "t2").abs().replace(0.0, -0.0))
    reversed_map = dict(reversed(ONE_HOT.items()))
    for metric in ONE_HOT_METRICS:
        got = getattr(floats.metrics, metric)(reversed_map, ONE_HOT_PROBS, weight="w")
        assert_frame_equal(got, getattr(df.metrics, metric)(ONE_HOT, ONE_HOT_PROBS, weight="w"))
    # a row of weight 0 is absent: its indicators are not read
    zero = df.with_columns(pl.when(pl.col("w") == 0).then(1).otherwise("t0").alias("t0"))
    same = zero.metrics.brier_score(ONE_HOT, ONE_HOT_PROBS, weight="w")
    assert_frame_equal(same, df.metrics.brier_score(ONE_HOT, ONE_HOT_PROBS, weight="w"))
    # the empty frame: as the label column
    empty = df.clear().with_columns(pl.lit(0).alias("y"))
    for metric in ONE_HOT_METRICS:
        for by in (None, "w"):
            got = getattr(empty.metrics, metric)(ONE_HOT, ONE_HOT_PROBS, by=by)
            assert_frame_equal(got, getattr(empty.metrics, metric)("y", ONE_HOT_PROBS, by=by))


@pytest.mark.parametrize(
    ("row", "match"),
    [
        ((0, 0, 0), "'t0', 't1', 't2' \\(the one-hot indicator columns of `y_true`\\) have 1 "),
        ((1, 1, 0), "'t0', 't1', 't2' \\(the one-hot indicator columns of `y_true`\\) have 1 "),
        ((1, None, 0), "column 't1' \\(an indicator column of `y_true`\\) has 1 rows"),
        ((1, 0, 2), "column 't2' \\(an indicator column of `y_true`\\) has 1 rows"),
        ((0.5, 0.5, 0.0), "column 't0' \\(an indicator column of `y_true`\\) has 1 rows"),
        ((1.0, math.nan, 0.0), "column 't1' \\(an indicator column of `y_true`\\) has 1 rows"),
        ((True, True, False), "indicator columns of `y_true`\\) have 1 rows with no indicator"),
        ((False, None, True), "column 't1' \\(an indicator column of `y_true`\\) has 1 rows"),
    ],
)
def test_one_hot_bad_rows_are_data_errors_naming_the_columns(row: tuple, match: str) -> None:
    df = _one_hot_frame().drop("w").head(3)
    dtype = pl.Boolean if isinstance(row[0], bool) else pl.Float64 if 0.5 in row else None
    if any(isinstance(x, float) and math.isnan(x) for x in row):
        dtype = pl.Float64
    dtype = dtype or pl.Int64
    bad = pl.DataFrame(
        {c: pl.Series([x], dtype=dtype) for c, x in zip(("t0", "t1", "t2"), row, strict=True)}
    )
    bad = pl.concat(
        [
            df.with_columns(pl.col("t0", "t1", "t2").cast(dtype)),
            bad.with_columns(p0=pl.lit(0.2), p1=pl.lit(0.3), p2=pl.lit(0.5)),
        ]
    )
    for metric in ONE_HOT_METRICS:
        with pytest.raises(plm.DataError, match=match):
            getattr(bad.metrics, metric)(ONE_HOT, ONE_HOT_PROBS)
        lazy = getattr(bad.lazy().metrics, metric)(ONE_HOT, ONE_HOT_PROBS, by="t0")
        with pytest.raises(plm.DataError, match=match):
            lazy.collect(engine="streaming")


def test_one_hot_bad_arguments_are_refused_at_the_call() -> None:
    df = _one_hot_frame()
    for metric in ONE_HOT_METRICS:
        method = getattr(df.lazy().metrics, metric)
        with pytest.raises(TypeError, match=r"one-hot `y_true`.*needs `y_prob` as"):
            method(ONE_HOT, "p1")
        with pytest.raises(ValueError, match="only in y_true: \\[\\], only in y_prob: \\[2\\]"):
            method({0: "t0", 1: "t1"}, ONE_HOT_PROBS)
        with pytest.raises(ValueError, match="`pos_label` is for binary scores"):
            method(ONE_HOT, ONE_HOT_PROBS, pos_label=1)
        with pytest.raises(pl.exceptions.ColumnNotFoundError, match="'t9' \\(argument `y_true"):
            method({0: "t0", 1: "t1", 2: "t9"}, ONE_HOT_PROBS)
        with pytest.raises(pl.exceptions.SchemaError, match="'t0' \\(an indicator column of"):
            df.lazy().with_columns(pl.col("t0").cast(pl.String)).metrics.log_loss(
                ONE_HOT, ONE_HOT_PROBS
            )
    # the other probability methods take a label column only
    with pytest.raises(TypeError, match="`y_true` must be a column name"):
        df.metrics.calibration_curve(ONE_HOT, ONE_HOT_PROBS)


@pytest.mark.parametrize("seed", range(12))
def test_weighted_quantile_bins_are_the_rows_repeated_by_normalised_weights(seed: int) -> None:
    # quantile bins of weighted rows: the quantiles of the rows repeated by their
    # weights normalised to the segment's rows, so the weights' scale changes nothing.
    # They repeated the rows by the weights as given: weights summing to 1 put every
    # edge on the smallest probability (5 bins became 2, ECE 0.265 became 0.073), and
    # weights times 0.5 moved the edges (an audit)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    y = rng.integers(0, 2, n)
    p = np.round(rng.random(n), int(rng.integers(1, 4)))  # ties
    w = rng.integers(1, 5, n).astype(float) if seed % 2 else rng.random(n) + 0.01
    n_bins = int(rng.integers(2, 9))
    options = {"strategy": "quantile", "n_bins": n_bins}
    expected = oracle.calibration_bins(y, p, w, n_bins, "quantile")  # by hand in numpy
    for scale in (1.0, 0.5, 1 / w.sum(), 1e-300 / w.min(), 1e300 / w.sum()):
        df = pl.DataFrame({"y": y, "s": p, "w": w * scale})
        got = df.metrics.calibration_curve("y", "s", weight="w", **options)
        oracle.assert_close(got.with_columns(pl.col("count") / scale), expected)
