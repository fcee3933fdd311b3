"""estimated_performance on the engines: equal to the frame method on the same rows
however they are partitioned, its calibration map from each score range's PAV blocks,
its errors those of the frame method (on the driver, before any job, where they can be).

The frame method is the oracle (itself checked against scikit-learn's
``IsotonicRegression`` and ``roc_auc_score(sample_weight=)`` in
tests/test_estimated*.py).  Dask on its default scheduler (threads); Spark where a
test says so (one session: tests/conftest.py).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics  # noqa: F401  (registers the .metrics namespace)
import pl_metrics.dask as pmd
import pl_metrics.spark as pms
from pl_metrics import DataError
from pl_metrics._engines import estimated as engine_estimated
from pl_metrics._monitoring import calibration

METRICS = [
    "roc_auc",
    "precision",
    "recall",
    "f1",
    "jaccard",
    "fowlkes_mallows",
    "specificity",
    "accuracy",
]


def _rows(seed: int, n: int = 600, *, ties: bool = False) -> pl.DataFrame:
    """Rows of two weeks: week 1 labelled (the reference), week 2 not; segments of
    uneven sizes (``"d"``: a handful of rows), weights spanning 1e-3 .. 1e3 and zero."""
    rng = np.random.default_rng(seed)
    score = rng.random(n)
    if ties:
        score = np.round(score, 1)
    label = (rng.random(n) < score).astype(np.int64)
    weight = 10.0 ** rng.uniform(-3, 3, n)
    weight[rng.random(n) < 0.05] = 0.0
    segment = rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.19, 0.01])
    return pl.DataFrame(
        {
            "week": rng.integers(1, 3, n),
            "g": segment,
            "y": label,
            "s": score,
            "pred": (score >= 0.4).astype(np.int64),
            "w": weight,
        }
    )


def _files(root: Path, parts: list[pl.DataFrame]) -> list[str]:
    paths = [str(root / f"part{i}.parquet") for i in range(len(parts))]
    for part, path in zip(parts, paths, strict=True):
        part.write_parquet(path)
    return paths


def _uneven(df: pl.DataFrame, seed: int) -> list[pl.DataFrame]:
    """``df`` in uneven partitions: an empty one, segment "d" in one only, the rest cut
    at random points."""
    rng = np.random.default_rng(seed)
    rest = df.filter(pl.col("g") != "d")
    cuts = np.sort(rng.integers(0, rest.height, 3)).tolist()
    bounds = [0, *cuts, rest.height]
    pieces = [rest.slice(a, b - a) for a, b in itertools.pairwise(bounds)]
    return [df.clear(), df.filter(pl.col("g") == "d"), *pieces]


CASES: list[dict[str, Any]] = [
    {"reference": pl.col("week") == 1, "y_true": "y", "by": "g", "metrics": METRICS},
    {"reference": pl.col("week") == 1, "y_true": "y", "by": "g", "weight": "w", "ci": 0.9},
    {"reference": pl.col("week") == 1, "y_true": "y", "weight": "w", "metrics": ["roc_auc"]},
    {"calibration": None, "by": ["g", "week"], "ci": 0.95, "metrics": METRICS},
    {"calibration": None, "weight": "w", "by": "g", "metrics": ["f1", "accuracy"], "ci": 0.8},
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_dask_equals_the_frame_method_on_uneven_partitions(
    seed: int, ties: bool, case: int, tmp_path: Path
) -> None:
    df = _rows(seed, ties=ties)
    kw = CASES[case]
    expected = df.metrics.estimated_performance("pred", "s", **kw)
    paths = _files(tmp_path, _uneven(df, seed))
    assert_frame_equal(pmd.estimated_performance(paths, "pred", "s", **kw), expected, rel_tol=1e-9)


def test_a_reference_of_its_own_dask_and_polars(tmp_path: Path) -> None:
    """The reference a second frame of the engine (files, a dask.dataframe) or polars
    rows: the map fitted on it, the current rows all the data's."""
    import dask.dataframe as dd

    df = _rows(3)
    reference, current = df.filter(pl.col("week") == 1), df.filter(pl.col("week") == 2)
    kw: dict[str, Any] = {"y_true": "y", "by": "g", "weight": "w", "ci": 0.9}
    expected = current.metrics.estimated_performance("pred", "s", reference=reference, **kw)
    (tmp_path / "ref").mkdir()
    ref_paths = _files(tmp_path / "ref", _uneven(reference, 1))
    cur_root = tmp_path / "cur"
    cur_root.mkdir()
    cur_paths = _files(cur_root, _uneven(current, 2))
    refs: list[Any] = [ref_paths, dd.read_parquet(ref_paths), reference, reference.lazy()]
    for ref in refs:
        got = pmd.estimated_performance(cur_paths, "pred", "s", reference=ref, **kw)
        assert_frame_equal(got, expected, rel_tol=1e-9)


def test_spark_reference_expression_and_frame(spark: Any) -> None:
    df = _rows(5, n=400, ties=True)
    sdf = spark.createDataFrame(df.to_arrow()).repartition(3)
    kw: dict[str, Any] = {"y_true": "y", "by": "g", "weight": "w", "ci": 0.9, "metrics": METRICS}
    flag = pl.col("week") == 1
    expected = df.metrics.estimated_performance("pred", "s", reference=flag, **kw)
    assert_frame_equal(
        pms.estimated_performance(sdf, "pred", "s", reference=flag, **kw), expected, rel_tol=1e-9
    )
    reference, current = df.filter(flag), df.filter(~flag)
    expected = current.metrics.estimated_performance("pred", "s", reference=reference, **kw)
    s_ref = spark.createDataFrame(reference.to_arrow()).repartition(2)
    s_cur = spark.createDataFrame(current.to_arrow()).repartition(4)
    got = pms.estimated_performance(s_cur, "pred", "s", reference=s_ref, **kw)
    assert_frame_equal(got, expected, rel_tol=1e-9)


# ------------------------------------------------------------------ the map's knots
@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 30), st.booleans(), st.sampled_from([0.5, 1.0, 2.0, 7.0])),
        min_size=1,
        max_size=60,
    ),
    st.lists(st.integers(0, 60), max_size=4),
)
def test_knots_from_score_ranges_are_the_frame_methods(
    rows: list[tuple[int, bool, float]], cuts: list[int]
) -> None:
    """PAV per contiguous score range, then over the ranges' blocks: the knots of PAV
    over all the distinct scores (:func:`calibration.knots`), values to 1e-12."""
    frame = pl.DataFrame(rows, schema=["score", "label", "w"], orient="row")
    sums = (
        frame.group_by("score")
        .agg(
            (pl.col("w") * pl.col("label")).sum().alias("pos"),
            pl.col("w").sum().alias("w"),
        )
        .sort("score")
    )
    scores = sums["score"].cast(pl.Float64).to_numpy() / 30
    positive, weight = sums["pos"].to_numpy(), sums["w"].to_numpy()
    want_x, want_y = calibration.knots(scores, calibration.isotonic(positive, weight))
    bounds = sorted({0, scores.size, *(min(c, scores.size) for c in cuts)})
    summaries = []
    for part, (a, b) in enumerate(itertools.pairwise(bounds)):
        state = pl.DataFrame(
            {
                engine_estimated._SCORE: scores[a:b],
                engine_estimated._POSITIVE: positive[a:b],
                engine_estimated._WEIGHT: weight[a:b],
                engine_estimated._NULLS: [0] * (b - a),
            }
        )
        summaries.append(engine_estimated._blocks(state, part))
    got_x, got_y = engine_estimated.knots(pl.concat(summaries[::-1]))
    grid = np.linspace(-0.1, 1.1, 97)
    np.testing.assert_allclose(
        np.interp(grid, got_x, got_y), np.interp(grid, want_x, want_y), rtol=0, atol=1e-12
    )
    assert got_x.size <= want_x.size + 1  # the map's knots, not the distinct scores


# ------------------------------------------------------------------ errors
def _never(*_: object) -> pl.DataFrame:
    msg = "a job ran"
    raise AssertionError(msg)


@pytest.fixture
def no_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any job on Dask fails the test: the error must come first, from the driver."""
    from pl_metrics._engines import dask as dask_engine
    from pl_metrics._engines import jobs

    monkeypatch.setattr(jobs, "shard", _never)  # a shard's state
    monkeypatch.setattr(dask_engine, "_read", _never)  # a shard read for score ranges


@pytest.mark.parametrize(
    ("kw", "error", "match"),
    [
        (
            {"reference": pl.col("week") == 1, "y_true": "nope"},
            pl.exceptions.ColumnNotFoundError,
            "nope",
        ),
        ({"reference": pl.col("week") == 1}, ValueError, "y_true"),
        ({"calibration": None, "y_true": "y"}, ValueError, "calibration=None"),
        ({"calibration": None, "metrics": ["auc"]}, ValueError, "metrics"),
        ({"calibration": None, "ci": 1.5}, ValueError, "ci"),
        ({"calibration": None, "by": "nope"}, pl.exceptions.ColumnNotFoundError, "nope"),
        ({"reference": pl.col("s"), "y_true": "y"}, Exception, "Boolean"),
        ({"reference": 3, "y_true": "y"}, TypeError, "reference"),
    ],
)
def test_errors_on_the_driver_before_any_job(
    kw: dict[str, Any], error: type[Exception], match: str, tmp_path: Path, no_jobs: None
) -> None:
    df = _rows(0, n=40)
    paths = _files(tmp_path, [df])
    with pytest.raises(error, match=match) as expected:
        df.metrics.estimated_performance("pred", "s", **kw)
    with pytest.raises(error, match=match) as got:
        pmd.estimated_performance(paths, "pred", "s", **kw)
    assert str(got.value).endswith(str(expected.value))


def test_a_mapping_of_scores_with_ci_is_refused(tmp_path: Path, no_jobs: None) -> None:
    """Multiclass scores compute on the engines (tests/test_engines_estimated_classes.py)
    but for ``ci`` of the ROC AUC (among the default metrics): refused on the driver,
    before any job."""
    paths = _files(tmp_path, [_rows(0, n=20)])
    with pytest.raises(NotImplementedError, match=r"pl_metrics engines: .* with ci and roc_auc"):
        pmd.estimated_performance(paths, "pred", {0: "s", 1: "s"}, calibration=None, ci=0.9)  # type: ignore[arg-type]


def _same_error(paths: list[str], rows: pl.DataFrame, **kw: Any) -> None:
    with pytest.raises(DataError) as expected:
        rows.metrics.estimated_performance("pred", "s", **kw)
    with pytest.raises(DataError) as got:
        pmd.estimated_performance(paths, "pred", "s", **kw)
    assert re.sub(r"^\S+\.parquet: ", "", str(got.value)) == str(expected.value)


def test_data_errors_are_counted_over_all_shards(tmp_path: Path) -> None:
    df = _rows(1, n=60)
    bad = df.with_columns(s=pl.when(pl.int_range(pl.len()) % 7 == 0).then(None).otherwise("s"))
    parts = [bad.head(30), bad.tail(30)]
    flag = pl.col("week") == 1
    # null scores in both shards, of the reference rows and of the current rows
    _same_error(_files(tmp_path, parts), bad, reference=flag, y_true="y")
    current = bad.filter(~flag)
    _same_error(_files(tmp_path, [current.head(15), current.tail(-15)]), current, calibration=None)
    # a null reference flag in both shards
    nulls = df.with_columns(
        week=pl.when(pl.int_range(pl.len()) % 9 == 0).then(None).otherwise("week")
    )
    _same_error(
        _files(tmp_path, [nulls.head(30), nulls.tail(30)]), nulls, reference=flag, y_true="y"
    )


def test_huge_weights_give_the_frame_methods_interval_or_are_refused(tmp_path: Path) -> None:
    """Weights the frame method scales by their largest: the engine's sums are of the
    weights as given.  Where they stay finite the interval is the frame method's
    (weights 1e153: the segment's total squared overflows, so the variance is
    divided by the total twice, not by its square, which read 0); where a sum
    overflows (the AUC's moments of weights 1e78, a w^2 of 1e200 beside a score of 0
    or 1: inf times 0 read NaN) the call is refused, never NaN or null bounds."""
    df = _rows(9, n=80).with_columns(
        pl.when(pl.int_range(pl.len()) < 4).then(0.0).otherwise("s").alias("s")
    )
    kw: dict[str, Any] = {"calibration": None, "by": "g", "weight": "w", "ci": 0.9}
    for weight in (1e153, 1e78, 1e200):
        rows = df.with_columns(pl.lit(weight).alias("w"))
        paths = _files(tmp_path, [rows.head(30), rows.tail(-30)])
        for metrics in (["f1", "recall", "accuracy"], ["roc_auc", "f1"]):
            expected = rows.metrics.estimated_performance("pred", "s", metrics=metrics, **kw)
            bounds = expected.select(pl.col("^.*_(low|high)$"))
            assert bounds.null_count().sum_horizontal().item() == 0
            finite = {1e153: metrics[0] == "f1", 1e78: "roc_auc" not in metrics}
            if finite.get(weight, False):
                got = pmd.estimated_performance(paths, "pred", "s", metrics=metrics, **kw)
                assert_frame_equal(got, expected, rel_tol=1e-9, abs_tol=1e-12)
                continue
            with pytest.raises(DataError, match=r"overflow Float64 in \d+ segments? .*`weight`"):
                pmd.estimated_performance(paths, "pred", "s", metrics=metrics, **kw)


def test_label_sets_are_checked_over_all_shards(tmp_path: Path) -> None:
    """Each shard's labels pass its own checks; all the rows' do not (the frame
    method's message on all of them)."""
    df = _rows(2, n=40)
    # y_pred {0, 1} in one shard, {-1, 1} in the other: the default pos_label refuses
    split = [df.head(20), df.tail(20).with_columns(pred=pl.col("pred") * 2 - 1)]
    _same_error(_files(tmp_path, split), pl.concat(split), calibration=None)
    # three labels of y_pred with pos_label given: 0 and 1 here, 2 and 1 there
    split = [df.head(20), df.tail(20).with_columns(pred=pl.col("pred") + 1)]
    _same_error(_files(tmp_path, split), pl.concat(split), calibration=None, pos_label=1)
    # a reference of one class: no positive in any shard
    neg = df.with_columns(y=pl.lit(0, pl.Int64))
    flag = pl.col("week") == 1
    _same_error(_files(tmp_path, [neg.head(20), neg.tail(20)]), neg, reference=flag, y_true="y")
    # the positives in one shard only: fine, and equal
    one = df.with_columns(y=pl.when(pl.int_range(pl.len()) < 20).then(0).otherwise("y"))
    paths = _files(tmp_path, [one.head(20), one.tail(20)])
    assert_frame_equal(
        pmd.estimated_performance(paths, "pred", "s", reference=flag, y_true="y"),
        one.metrics.estimated_performance("pred", "s", reference=flag, y_true="y"),
        rel_tol=1e-9,
    )
