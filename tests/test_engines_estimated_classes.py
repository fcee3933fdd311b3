"""estimated_performance of ``{label: column}`` scores (multiclass CBPE) on the engines
(``_engines/estimated_classes.py``): equal to the frame method on the same rows however
they are partitioned, the driver holding partitions x segments x classes rows.

The frame method is the oracle (itself checked against NannyML's multiclass CBPE
formulas and scikit-learn's ``IsotonicRegression`` / ``roc_auc_score`` in
tests/test_estimated_multiclass*.py).  Dask on its default scheduler (threads); Spark
in one test (one session: tests/conftest.py).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from test_engines_estimated import no_jobs  # noqa: F401  (a fixture)

import pl_metrics  # noqa: F401  (registers the .metrics namespace)
import pl_metrics.dask as pmd
import pl_metrics.spark as pms
from pl_metrics import DataError
from pl_metrics._engines import estimated as engine_estimated

METRICS = ["roc_auc", "precision", "recall", "f1", "specificity", "accuracy", "jaccard"]
#: Class 3 has a score column but no reference row and few current rows (in one
#: partition only); the mapping's keys out of order (the frame method sorts them).
SCORES: Mapping[object, str] = {2: "s2", 0: "s0", 3: "s3", 1: "s1"}


def _rows(seed: int, n: int = 500, *, ties: bool = False) -> pl.DataFrame:
    """Rows of two weeks (week 1 labelled: the reference); segments of uneven sizes
    ("d": a handful of rows); weights spanning 1e-3 .. 1e3 and zero; scores that are
    probabilities (rows summing to 1, some all 0: 1 / K each), ties where asked."""
    rng = np.random.default_rng(seed)
    s = rng.dirichlet([1.0, 1.0, 1.0, 0.2], n)
    if ties:
        s = np.round(s, 1)
    s[rng.random(n) < 0.02] = 0.0
    y = np.array([rng.choice(3, p=r[:3] / r[:3].sum()) if r[:3].sum() else 0 for r in s])
    pred = s[:, :3].argmax(axis=1)
    pred[:3] = 3  # class 3 predicted by three rows (the first partition's, below)
    weight = 10.0 ** rng.uniform(-3, 3, n)
    weight[rng.random(n) < 0.05] = 0.0
    week = rng.integers(1, 3, n)
    week[:3] = 2
    return pl.DataFrame(
        {
            "week": week,
            "g": rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.19, 0.01]),
            "y": y,
            "pred": pred,
            **{f"s{i}": s[:, i] for i in range(4)},
            "w": weight,
        }
    )


def _files(root: Path, parts: list[pl.DataFrame], stem: str = "part") -> list[str]:
    paths = [str(root / f"{stem}{i}.parquet") for i in range(len(parts))]
    for part, path in zip(parts, paths, strict=True):
        part.write_parquet(path)
    return paths


def _uneven(df: pl.DataFrame, seed: int) -> list[pl.DataFrame]:
    """``df`` in uneven partitions: the first rows (class 3's predictions), an empty
    one, segment "d" in one only, the rest cut at random points."""
    rng = np.random.default_rng(seed)
    head, rest = df.head(3), df.tail(-3)
    others = rest.filter(pl.col("g") != "d")
    cuts = np.sort(rng.integers(0, others.height, 3)).tolist()
    bounds = [0, *cuts, others.height]
    pieces = [others.slice(a, b - a) for a, b in itertools.pairwise(bounds)]
    return [head, df.clear(), rest.filter(pl.col("g") == "d"), *pieces]


REFERENCE = pl.col("week") == 1
#: The count metrics: their ``ci`` is a function of sums over the rows.
COUNTED = [m for m in METRICS if m != "roc_auc"] + ["fowlkes_mallows"]
CASES: list[dict[str, Any]] = [
    {"reference": REFERENCE, "y_true": "y", "by": "g", "metrics": METRICS},
    {"reference": REFERENCE, "y_true": "y", "by": "g", "weight": "w", "metrics": METRICS},
    {"reference": REFERENCE, "y_true": "y", "weight": "w", "metrics": ["roc_auc"]},
    {"calibration": None, "by": ["g", "week"], "metrics": METRICS},
    {"calibration": None, "weight": "w", "by": "g", "metrics": ["f1", "accuracy"]},
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_dask_equals_the_frame_method_on_uneven_partitions(
    seed: int, ties: bool, case: int, tmp_path: Path
) -> None:
    df = _rows(seed, ties=ties)
    kw = CASES[case]
    expected = df.metrics.estimated_performance("pred", SCORES, **kw)
    assert expected.filter(pl.col("label") == 3).height  # class 3 is reported
    paths = _files(tmp_path, _uneven(df, seed))
    got = pmd.estimated_performance(paths, "pred", SCORES, **kw)
    assert_frame_equal(got, expected, rel_tol=1e-9)


def test_a_reference_of_its_own_dask_and_polars(tmp_path: Path) -> None:
    """The reference a second frame of the engine (files, a dask.dataframe) or polars
    rows: the frame method's numbers with that reference."""
    import dask.dataframe as dd

    df = _rows(3)
    ref, current = df.filter(REFERENCE), df.filter(~REFERENCE)
    kw: dict[str, Any] = {"y_true": "y", "by": "g", "weight": "w", "metrics": METRICS}
    expected = current.metrics.estimated_performance("pred", SCORES, reference=ref, **kw)
    paths = _files(tmp_path, _uneven(current, 3))
    ref_paths = _files(tmp_path, [ref.head(40), ref.clear(), ref.tail(-40)], stem="ref")
    for reference in (ref_paths, dd.from_pandas(ref.to_pandas(), npartitions=3), ref):
        got = pmd.estimated_performance(paths, "pred", SCORES, reference=reference, **kw)
        assert_frame_equal(got, expected, rel_tol=1e-9)


def test_spark_reference_expression(spark: Any) -> None:
    df = _rows(4, n=300)
    kw: dict[str, Any] = {"reference": REFERENCE, "y_true": "y", "by": "g", "weight": "w"}
    kw["metrics"] = METRICS
    expected = df.metrics.estimated_performance("pred", SCORES, **kw)
    sdf = spark.createDataFrame(df.to_pandas()).repartition(3)
    assert_frame_equal(pms.estimated_performance(sdf, "pred", SCORES, **kw), expected, rel_tol=1e-9)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(8, 80),
    cuts=st.lists(st.integers(0, 80), max_size=4),
    weighted=st.booleans(),
    calibrated=st.booleans(),
    interval=st.booleans(),
)
def test_hypothesis_equal_to_the_frame_method(
    seed: int,
    n: int,
    cuts: list[int],
    weighted: bool,
    calibrated: bool,
    interval: bool,
    tmp_path_factory: Any,
) -> None:
    """Any rows cut anywhere (empty partitions included), with or without the count
    metrics' ``ci``: the frame method's table, or its error (a reference without
    rows, say)."""
    df = _rows(seed, n=n, ties=seed % 2 == 0)
    kw: dict[str, Any] = {"by": "g", "metrics": METRICS, "weight": "w" if weighted else None}
    kw |= {"reference": REFERENCE, "y_true": "y"} if calibrated else {"calibration": None}
    kw |= {"metrics": COUNTED, "ci": 0.9} if interval else {}
    bounds = [0, *sorted(min(c, n) for c in cuts), n]
    parts = [df.slice(a, b - a) for a, b in itertools.pairwise(bounds)]
    paths = _files(tmp_path_factory.mktemp("h"), parts)
    try:
        expected = df.metrics.estimated_performance("pred", SCORES, **kw)
    except DataError as error:
        message = str(error)
    else:
        message = None
    if message is not None:
        with pytest.raises(DataError) as got:
            pmd.estimated_performance(paths, "pred", SCORES, **kw)
        assert re.sub(r"^\S+\.parquet: ", "", str(got.value)) == message
        return
    assert_frame_equal(
        pmd.estimated_performance(paths, "pred", SCORES, **kw),
        expected,
        rel_tol=1e-9,
        abs_tol=1e-12,
    )


def test_the_driver_holds_partitions_x_segments_x_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the driver merges: one summary row per partition, segment and class (the
    AUC's score ranges: one job per class), and each class's knots, not its scores."""
    seen: dict[str, list[int]] = {"summaries": [], "blocks": []}
    finish, knots = engine_estimated._finish, engine_estimated.knots

    def spy_finish(summaries: pl.DataFrame, *args: Any, **kw: Any) -> pl.DataFrame:
        seen["summaries"].append(summaries.height)
        return finish(summaries, *args, **kw)

    def spy_knots(summaries: pl.DataFrame) -> Any:
        seen["blocks"].append(summaries.height)
        return knots(summaries)

    monkeypatch.setattr(engine_estimated, "_finish", spy_finish)
    monkeypatch.setattr(engine_estimated, "knots", spy_knots)
    df = _rows(5, n=2000)
    kw: dict[str, Any] = {"reference": REFERENCE, "y_true": "y", "by": "g", "metrics": METRICS}
    parts = _uneven(df, 5)
    got = pmd.estimated_performance(_files(tmp_path, parts), "pred", SCORES, **kw)
    assert_frame_equal(got, df.metrics.estimated_performance("pred", SCORES, **kw), rel_tol=1e-9)
    segments, classes = df.get_column("g").n_unique(), len(SCORES)
    assert seen["summaries"] == [seen["summaries"][0]]
    assert 0 < seen["summaries"][0] <= len(parts) * segments * classes
    assert len(seen["blocks"]) == classes  # one reference job per class
    assert all(0 < b <= len(parts) for b in seen["blocks"])  # a row per score range


def test_errors_counted_over_all_shards(tmp_path: Path) -> None:
    """A label of ``y_pred`` without a score column and null scores, in two shards:
    the frame method's error with the rows of both counted."""
    df = _rows(6, n=80)
    for bad in (
        df.with_columns(pred=pl.when(pl.int_range(pl.len()) % 9 == 0).then(7).otherwise("pred")),
        df.with_columns(s1=pl.when(pl.int_range(pl.len()) % 7 == 0).then(None).otherwise("s1")),
    ):
        for kw in ({"calibration": None}, {"reference": REFERENCE, "y_true": "y"}):
            with pytest.raises(DataError) as expected:
                bad.metrics.estimated_performance("pred", SCORES, **kw)
            paths = _files(tmp_path, [bad.head(40), bad.tail(40)])
            with pytest.raises(DataError) as got:
                pmd.estimated_performance(paths, "pred", SCORES, **kw)
            assert re.sub(r"^\S+\.parquet(, \S+\.parquet)?: ", "", str(got.value)) == str(
                expected.value
            )


def test_an_empty_reference_is_the_frame_methods_error(tmp_path: Path) -> None:
    df = _rows(7, n=60)
    kw: dict[str, Any] = {"reference": pl.col("week") == 9, "y_true": "y"}
    with pytest.raises(DataError) as expected:
        df.metrics.estimated_performance("pred", SCORES, **kw)
    with pytest.raises(DataError) as got:
        pmd.estimated_performance(
            _files(tmp_path, [df.head(30), df.tail(30)]), "pred", SCORES, **kw
        )
    assert str(got.value) == str(expected.value)


# ------------------------------------------------------------------ ci of the count metrics
CI_CASES: list[dict[str, Any]] = [
    {"reference": REFERENCE, "y_true": "y", "by": "g", "metrics": COUNTED, "ci": 0.9},
    {"reference": REFERENCE, "y_true": "y", "by": "g", "weight": "w", "metrics": COUNTED,
     "ci": 0.9},
    {"calibration": None, "by": ["g", "week"], "metrics": COUNTED, "ci": 0.8},
    {"calibration": None, "weight": "w", "metrics": ["f1", "accuracy"], "ci": 0.95},
]  # fmt: skip


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("case", range(len(CI_CASES)))
def test_ci_of_the_count_metrics_equals_the_frame_method(
    case: int, ties: bool, tmp_path: Path
) -> None:
    """``ci`` without ``roc_auc`` on uneven partitions (an empty one, segment "d" in
    one only, class 3 predicted in the first only): a class row's interval from the
    merged squares, an average's from the merged pairs' sums
    (``class_draws.pair_sums``), the frame method's bounds (its variances summed row
    by row) to 1e-9."""
    df = _rows(10 + case, ties=ties)
    kw = CI_CASES[case]
    expected = df.metrics.estimated_performance("pred", SCORES, **kw)
    metric = kw["metrics"][0]
    for rows in (pl.col("label").is_not_null(), pl.col("average").is_not_null()):
        spread = expected.filter(rows).select(pl.col(f"{metric}_high") - pl.col(f"{metric}_low"))
        assert spread.to_series().drop_nulls().gt(1e-3).any()  # intervals to compare
    paths = _files(tmp_path, _uneven(df, case))
    got = pmd.estimated_performance(paths, "pred", SCORES, **kw)
    assert_frame_equal(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def test_the_pairs_sums_give_the_rows_variance() -> None:
    """``class_draws.summed_variances`` (the engines': per segment and predicted class
    the sums of w^2 p_c p_d) equals ``average_variances`` (the frame method's, row by
    row) on rows with a class never predicted, one-hot rows and weights 1e-3 .. 1e3."""
    from pl_metrics._intervals import class_draws

    rng = np.random.default_rng(11)
    classes, segments, n = 4, 3, 400
    segment = np.sort(rng.integers(0, segments, n))
    weight = 10.0 ** rng.uniform(-3, 3, n)
    p = rng.dirichlet(np.ones(classes), n)
    p[:40] = np.eye(classes)[rng.integers(0, classes, 40)]  # labels certain
    predicted = rng.integers(0, classes - 1, n)  # the last class never predicted
    total = np.bincount(segment, weights=weight, minlength=segments)

    def summed(values: Any) -> Any:
        return np.column_stack(
            [np.bincount(segment, weights=weight * values[:, c], minlength=segments)
             for c in range(classes)]
        )  # fmt: skip

    mine = predicted[:, None] == np.arange(classes)
    counts = (summed(p * mine), summed((1 - p) * mine), summed(p * ~mine), summed((1 - p) * ~mine))
    metrics = COUNTED
    rows = class_draws.average_variances(
        metrics, counts, np.full((segments, classes), np.nan),
        (segment, weight / total[segment], predicted, p), None,
    )  # fmt: skip
    sums = class_draws.pair_sums((segment, weight, predicted, p), segments)
    pairs = class_draws.summed_variances(metrics, counts, sums, total)
    assert set(pairs) == set(rows)
    for key, variance in rows.items():
        assert np.all(variance > 0)
        np.testing.assert_allclose(pairs[key], variance, rtol=1e-12, err_msg=str(key))


@pytest.mark.usefixtures("no_jobs")
def test_ci_with_roc_auc_is_refused_before_any_job(tmp_path: Path) -> None:
    """The interval of the ROC AUC's average holds each row's placements in two
    classes' rankings: refused on the driver, naming what to do."""
    paths = _files(tmp_path, [_rows(0, n=20)])
    for metrics in (METRICS, ["f1", "roc_auc"]):
        with pytest.raises(
            NotImplementedError,
            match=r"pl_metrics engines: estimated_performance .* with ci and roc_auc .*leave "
            r"them out .*\.metrics method",
        ):
            pmd.estimated_performance(
                paths, "pred", SCORES, calibration=None, metrics=metrics, ci=0.9
            )


def test_sums_that_overflow_are_counted_by_segment(tmp_path: Path) -> None:
    """Weights the frame method scales: the engine's merged sums overflow Float64 and
    are refused, counting the segments (not their classes' rows): ``ci``'s squares of
    weights 1e200 in every segment; without ``ci``, segment "a"'s weight 4e307 in each of
    five partitions (each partition's total below the limit, their sum infinite)."""
    df = _rows(12, n=60).with_columns(pl.lit(1e200).alias("w"))
    kw: dict[str, Any] = {"calibration": None, "by": "g", "weight": "w", "metrics": COUNTED}
    assert df.metrics.estimated_performance("pred", SCORES, ci=0.9, **kw).height
    segments = df.get_column("g").n_unique()
    with pytest.raises(DataError, match=rf"overflow Float64 in {segments} segments .*`weight`"):
        pmd.estimated_performance(_files(tmp_path, [df]), "pred", SCORES, ci=0.9, **kw)
    heavy = df.head(10).with_columns(
        g=pl.when(pl.int_range(pl.len()) < 5).then(pl.lit("a")).otherwise(pl.lit("b")),
        w=pl.when(pl.int_range(pl.len()) < 5).then(4e307).otherwise(1.0),
    )
    parts = [heavy.slice(i, 1) for i in range(5)] + [heavy.tail(5)]
    with pytest.raises(DataError, match=r"overflow Float64 in 1 segment .*`weight`"):
        pmd.estimated_performance(_files(tmp_path, parts, stem="heavy"), "pred", SCORES, **kw)
