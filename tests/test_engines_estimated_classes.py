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
)
def test_hypothesis_equal_to_the_frame_method(
    seed: int, n: int, cuts: list[int], weighted: bool, calibrated: bool, tmp_path_factory: Any
) -> None:
    """Any rows cut anywhere (empty partitions included): the frame method's table,
    or its error (a reference without rows, say)."""
    df = _rows(seed, n=n, ties=seed % 2 == 0)
    kw: dict[str, Any] = {"by": "g", "metrics": METRICS, "weight": "w" if weighted else None}
    kw |= {"reference": REFERENCE, "y_true": "y"} if calibrated else {"calibration": None}
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
        pmd.estimated_performance(paths, "pred", SCORES, **kw), expected, rel_tol=1e-9
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
