"""over_time on the engines: equal to the frame method on the same rows however they
are partitioned (an empty partition, a segment or a bucket in one partition only,
rolling windows, weights, estimated metrics with a reference expression), the driver
holding partitions x segments x windows rows on the ranked path.

The frame method is the oracle (itself checked against scikit-learn per window in
tests/test_over_time*.py).  Dask on its default scheduler (threads); Spark where a
test says so (one session: tests/conftest.py).
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics  # noqa: F401  (registers the .metrics namespace)
import pl_metrics.dask as pmd
import pl_metrics.spark as pms
from pl_metrics import DataError
from pl_metrics._engines import over_time

START = dt.date(2026, 3, 1)


def _rows(seed: int, n: int = 500, *, ties: bool = False, days: int = 12) -> pl.DataFrame:
    """Rows over ``days`` days: segments of uneven sizes ("d": a handful of rows, all
    on the last day, so a bucket and a segment of one partition), three labels, a
    binary label and score, weights spanning 1e-3 .. 1e3 and zero."""
    rng = np.random.default_rng(seed)
    score = rng.random(n)
    if ties:
        score = np.round(score, 1)
    label = (rng.random(n) < score).astype(np.int64)
    weight = 10.0 ** rng.uniform(-3, 3, n)
    weight[rng.random(n) < 0.05] = 0.0
    segment = rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.17, 0.03])
    day = rng.integers(0, days - 1, n)
    day[segment == "d"] = days - 1
    y3 = rng.integers(0, 3, n)
    return pl.DataFrame(
        {
            "day": [START + dt.timedelta(days=int(d)) for d in day],
            "g": segment,
            "y": label,
            "s": score,
            "pred": (score >= 0.4).astype(np.int64),
            "y3": y3,
            "p3": np.where(rng.random(n) < 0.7, y3, rng.integers(0, 3, n)),
            "w": weight,
        }
    )


def _uneven(df: pl.DataFrame, seed: int) -> list[pl.DataFrame]:
    """``df`` in uneven partitions: an empty one, segment "d" (the last day's only
    rows of it) in one only, the rest cut at random points."""
    rng = np.random.default_rng(seed)
    rest = df.filter(pl.col("g") != "d")
    cuts = np.sort(rng.integers(0, rest.height, 3)).tolist()
    bounds = [0, *cuts, rest.height]
    pieces = [rest.slice(a, b - a) for a, b in itertools.pairwise(bounds)]
    return [df.clear(), df.filter(pl.col("g") == "d"), *pieces]


def _files(root: Path, parts: list[pl.DataFrame]) -> list[str]:
    paths = [str(root / f"part{i}.parquet") for i in range(len(parts))]
    for part, path in zip(parts, paths, strict=True):
        part.write_parquet(path)
    return paths


def _same(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    assert_frame_equal(got, expected, rel_tol=1e-9, abs_tol=1e-12)


LABELS = ["n", "accuracy", "balanced_accuracy", "mcc", "cohen_kappa", "f1_macro"]
POSITIVE = ["precision", "recall", "f1", "specificity", "jaccard"]
SCORES = ["roc_auc", "gini", "average_precision"]
CASES: list[dict[str, Any]] = [
    # the label metrics, rolling, weighted, by segment
    {"y_true": "y3", "y_pred": "p3", "metrics": LABELS, "period": "3d", "by": "g", "weight": "w"},
    # their intervals (the delta method) and the bootstrap, from the merged counts
    {"y_true": "y3", "y_pred": "p3", "metrics": LABELS[1:], "period": "2d", "ci": 0.9},
    {"y_true": "y3", "y_pred": "p3", "metrics": ["accuracy", "mcc"], "by": "g", "ci": 0.9,
     "ci_method": "bootstrap", "n_boot": 50},
    # the positive class, with Wilson's interval
    {"y_pred": "pred", "metrics": POSITIVE[:2], "period": "4d", "by": "g", "ci": 0.9,
     "ci_method": "wilson"},
    {"y_pred": "pred", "metrics": POSITIVE, "period": "2d", "weight": "w"},
    # ranking of un-weighted rows from score ranges: tumbling and rolling
    {"y_score": "s", "metrics": SCORES, "by": "g"},
    {"y_score": "s", "metrics": SCORES, "period": "3d", "by": "g"},
    # ... and from the merged per-score state: ks, weights, DeLong's interval
    {"y_score": "s", "metrics": [*SCORES, "ks"], "period": "2d", "by": "g"},
    {"y_score": "s", "metrics": SCORES, "period": "2d", "weight": "w"},
    {"y_score": "s", "metrics": ["roc_auc"], "period": "2d", "by": "g", "ci": 0.9},
    # probabilities
    {"y_score": "s", "metrics": ["log_loss", "brier_score", "calibration_error"], "period": "3d",
     "by": "g", "weight": "w"},
    {"y_score": "s", "metrics": ["log_loss", "calibration_error"], "every": "2d"},
    # estimated beside realized, calibrated on the first week's rows
    {"y_pred": "pred", "y_score": "s",
     "metrics": ["estimated_roc_auc", "estimated_f1", "roc_auc", "f1"],
     "reference": pl.col("day") < START + dt.timedelta(days=6), "period": "2d", "by": "g"},
    {"y_pred": "pred", "y_score": "s", "metrics": ["estimated_roc_auc", "estimated_accuracy"],
     "reference": pl.col("day") < START + dt.timedelta(days=6), "weight": "w"},
    {"y_pred": "pred", "y_score": "s", "metrics": ["estimated_recall", "estimated_roc_auc"],
     "reference": pl.col("day") < START + dt.timedelta(days=6), "ci": 0.9, "period": "2d"},
    {"y_pred": "pred", "y_score": "s", "metrics": ["estimated_precision"], "calibration": None,
     "period": "3d", "by": "g"},
]  # fmt: skip


def _call(kw: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    kw = {"every": "1d", **kw}
    return kw.pop("y_true", "y"), {"index": "day", **kw}


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_dask_equals_the_frame_method_on_uneven_partitions(
    case: int, ties: bool, tmp_path: Path
) -> None:
    df = _rows(case, ties=ties)
    y_true, kw = _call(CASES[case])
    expected = df.metrics.over_time(y_true, **kw)
    assert expected.height  # the windows are there to compare
    paths = _files(tmp_path, _uneven(df, case))
    _same(pmd.over_time(paths, y_true, **kw), expected)


def test_a_dask_dataframe_with_a_derived_column(tmp_path: Path) -> None:
    import dask.dataframe as dd

    df = _rows(7)
    paths = _files(tmp_path, _uneven(df, 7))
    ddf = dd.read_parquet(paths)
    ddf = ddf.assign(high=(ddf["s"] >= 0.7).astype("int64"))
    kw: dict[str, Any] = {"index": "day", "every": "1d", "period": "2d", "by": "g"}
    kw["metrics"] = ["accuracy", "roc_auc", "average_precision"]
    expected = df.with_columns((pl.col("s") >= 0.7).cast(pl.Int64).alias("high"))
    expected_out = expected.metrics.over_time("y", y_pred="high", y_score="s", **kw)
    _same(pmd.over_time(ddf, "y", y_pred="high", y_score="s", **kw), expected_out)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    k=st.integers(1, 4),
    parts=st.integers(1, 5),
    metrics=st.sampled_from([["accuracy", "mcc"], SCORES, ["roc_auc", "ks"], ["brier_score"]]),
    weighted=st.booleans(),
    segmented=st.booleans(),
)
def test_hypothesis_partitions_windows_and_weights(
    seed: int, k: int, parts: int, metrics: list[str], weighted: bool, segmented: bool,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:  # fmt: skip
    """Random rows (continuous or tied scores), random cuts, k-bucket windows."""
    df = _rows(seed, n=120, ties=seed % 2 == 0, days=6)
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, df.height, parts - 1)).tolist()
    pieces = [df.slice(a, b - a) for a, b in itertools.pairwise([0, *cuts, df.height])]
    kw: dict[str, Any] = {"index": "day", "every": "1d", "period": f"{k}d", "metrics": metrics}
    kw |= {"y_pred": "pred", "y_score": "s"}
    kw |= {"weight": "w"} if weighted else {}
    kw |= {"by": "g"} if segmented else {}
    expected = df.metrics.over_time("y", **kw)
    paths = _files(tmp_path_factory.mktemp("ot"), pieces)
    _same(pmd.over_time(paths, "y", **kw), expected)


def test_hard_cases(tmp_path: Path) -> None:
    """One class in a window (AUC null, AP 0 as the frame method), a window of one
    row, zero weights only in the last bucket, odd column names, a by expression."""
    df = pl.DataFrame(
        {
            "the day": [START, START, START + dt.timedelta(days=1), START + dt.timedelta(days=3)],
            "y.true": [1, 1, 0, 1],
            "p q": [0.9, 0.2, 0.2, 0.6],
            "w": [1.0, 2.0, 3.0, 0.0],
            "g": ["x", "x", "y", "x"],
        }
    )
    paths = _files(tmp_path, [df.head(1), df.clear(), df.tail(3)])
    for kw in (
        {"by": [pl.col("g").alias("seg")], "period": "2d"},
        {"weight": "w", "period": "3d"},
        {"by": "g"},
    ):
        args: dict[str, Any] = {"index": "the day", "every": "1d", "y_score": "p q", **kw}
        args["metrics"] = ["roc_auc", "average_precision", "ks", "log_loss"]
        expected = df.metrics.over_time("y.true", **args)
        _same(pmd.over_time(paths, "y.true", **args), expected)


def test_unlabelled_rows_are_estimated_beside_the_realized_metrics(tmp_path: Path) -> None:
    """The realized metrics read the rows whose label arrived, the estimated ones all
    the current rows: the windows after the labels stop are estimated (the engine's
    estimated job read only the labelled rows when realized metrics were beside)."""
    late = pl.col("day") >= START + dt.timedelta(days=8)
    df = _rows(13).with_columns(pl.when(late).then(None).otherwise(pl.col("y")).alias("y"))
    kw: dict[str, Any] = {"index": "day", "every": "1d", "y_pred": "pred", "y_score": "s"}
    kw |= {"metrics": ["estimated_f1", "estimated_roc_auc", "f1", "roc_auc"], "by": "g"}
    kw |= {"reference": pl.col("day") < START + dt.timedelta(days=5), "period": "2d"}
    expected = df.metrics.over_time("y", **kw)
    estimated = expected.filter(pl.col("metric") == "estimated_f1")
    assert estimated.get_column("window_end").max() > START + dt.timedelta(days=10)
    _same(pmd.over_time(_files(tmp_path, _uneven(df, 13)), "y", **kw), expected)


def test_a_null_index_is_the_frame_methods_error(tmp_path: Path) -> None:
    df = _rows(3).with_columns(
        pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(pl.col("day")).alias("day")
    )
    paths = _files(tmp_path, _uneven(df, 3))
    for metrics in (["accuracy"], ["roc_auc"], ["log_loss"], ["estimated_f1"]):
        kw: dict[str, Any] = {"index": "day", "every": "1d", "period": "2d", "metrics": metrics}
        kw |= {"y_pred": "pred", "y_score": "s", "calibration": None}
        with pytest.raises(DataError) as expected:
            df.metrics.over_time("y", **kw)
        with pytest.raises(DataError) as got:
            pmd.over_time(paths, "y", **kw)
        assert str(got.value) == str(expected.value)


def test_bad_rows_are_counted_over_all_partitions(tmp_path: Path) -> None:
    df = _rows(4).with_columns(
        pl.when(pl.int_range(pl.len()) % 50 == 0).then(None).otherwise(pl.col("s")).alias("s")
    )
    paths = _files(tmp_path, _uneven(df, 4))
    kw: dict[str, Any] = {"index": "day", "every": "1d", "y_score": "s", "metrics": ["roc_auc"]}
    with pytest.raises(DataError) as expected:
        df.metrics.over_time("y", **kw)
    with pytest.raises(DataError) as got:
        pmd.over_time(paths, "y", **kw)
    assert str(got.value) == str(expected.value)


def test_the_ranked_path_holds_no_row_on_the_driver(tmp_path: Path) -> None:
    """Un-weighted AUC / AP of continuous scores over rolling windows: every frame the
    engine hands the driver has at most partitions x segments x windows rows (one
    score per row: the per-score state would hold a row per row)."""
    df = _rows(11, n=3000)
    parts = _uneven(df, 11)
    paths = _files(tmp_path, parts)
    sizes: list[int] = []
    engine = pmd._ENGINE

    def run(*args: Any, **kw: Any) -> pl.DataFrame:
        out = engine.run(*args, **kw)
        sizes.append(out.height)
        return out

    spy = replace(engine, run=run)
    kw: dict[str, Any] = {"index": "day", "every": "1d", "period": "3d", "by": "g"}
    kw["metrics"] = SCORES
    expected = df.metrics.over_time("y", y_score="s", **kw)
    full = pmd.over_time.__signature__.bind(paths, "y", y_score="s", **kw)
    full.apply_defaults()
    values = dict(full.arguments)
    data = values.pop("data")
    options = {"client": values.pop("client"), "split_every": values.pop("split_every")}
    got = over_time.call(spy, data, values, options)
    _same(got, expected)
    windows = df.get_column("day").n_unique() + 2  # at most every bucket's k windows
    bound = len(paths) * df.get_column("g").n_unique() * windows
    assert sizes
    assert max(sizes) <= bound < df.height


def test_spark_equals_the_frame_method(spark: Any) -> None:
    """Rolling windows on Spark partitions: ranked AUC / AP, weighted label metrics,
    the estimated ones with a reference expression."""
    df = _rows(5, n=400, ties=True)
    parts = _uneven(df, 5)
    schema = spark.createDataFrame(df.head(1).to_arrow()).schema
    rows = [p.rows() for p in parts]
    slices = spark.sparkContext.parallelize(range(len(rows)), len(rows))
    sdf = spark.createDataFrame(slices.mapPartitionsWithIndex(lambda i, _: iter(rows[i])), schema)
    for case in (CASES[0], CASES[6], CASES[7], CASES[12]):
        y_true, kw = _call(case)
        expected = df.metrics.over_time(y_true, **kw)
        _same(pms.over_time(sdf, y_true, **kw), expected)


def test_label_sets_are_checked_over_all_shards(tmp_path: Path) -> None:
    """{-1, 1} in one file and {0, 1} in the other: each file's own checks pass, and
    the frame method on all the rows refuses {-1, 0, 1} without a pos_label (every
    family: the same error, the same message)."""
    p = [0.2, 0.7, 0.4, 0.9]
    days = [START] * 4
    parts = [
        pl.DataFrame({"y": [-1, 1, -1, 1], "p": p, "q": [-1, 1, 1, 1], "day": days}),
        pl.DataFrame({"y": [0, 1, 0, 0], "p": p, "q": [0, 1, 1, 0], "day": days}),
    ]
    paths = _files(tmp_path, parts)
    rows = pl.concat(parts)
    for metrics in (["log_loss"], ["calibration_error"], ["roc_auc"], ["ks"], ["precision"]):
        kw: dict[str, Any] = {"index": "day", "every": "1d", "metrics": metrics}
        kw |= {"y_score": "p", "y_pred": "q"}
        with pytest.raises(DataError) as expected:
            rows.metrics.over_time("y", **kw)
        with pytest.raises(DataError) as got:
            pmd.over_time(paths, "y", **kw)
        assert str(got.value) == str(expected.value)
