"""check on the engines: equal to the frame method on the same rows however they are
partitioned (an empty partition, a segment in one partition only, uneven cuts), with
the reference as an expression evaluated on each partition or as a second frame,
drift and estimated rules, ``ci=None`` and intervals; statuses pass, fail and
inconclusive; the frame method's errors, raised on the driver before any job.

The frame method is the oracle (itself checked rule by rule against its metrics'
frame methods and scikit-learn in tests/test_check*.py).  Dask on its default
scheduler (threads); Spark where a test says so (one session: tests/conftest.py).
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
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

START = dt.date(2026, 3, 1)
#: The reference rows: the first week.
WEEK_ONE = pl.col("ts") < START + dt.timedelta(days=7)


def _rows(seed: int, n: int = 400) -> pl.DataFrame:
    """Rows over three weeks: segments of uneven sizes ("d": a handful of rows, all in
    the last week, so a segment of one partition and none of the reference rows; "e":
    one class), a binary label and score, a predicted label, weights spanning
    1e-3 .. 1e3 and zero, a drifting column ``x``."""
    rng = np.random.default_rng(seed)
    score = rng.random(n)
    label = (rng.random(n) < score).astype(np.int64)
    segment = rng.choice(["a", "b", "c", "d", "e"], n, p=[0.45, 0.3, 0.12, 0.03, 0.1])
    label[segment == "e"] = 1
    day = rng.integers(0, 20, n)
    day[segment == "d"] = 20
    weight = 10.0 ** rng.uniform(-3, 3, n)
    weight[rng.random(n) < 0.05] = 0.0
    return pl.DataFrame(
        {
            "ts": [START + dt.timedelta(days=int(d)) for d in day],
            "g": segment,
            "y": label,
            "s": score,
            "pred": (score >= 0.45).astype(np.int64),
            "w": weight,
            "x": rng.normal(0, 1, n) + day / 10,
        }
    )


def _uneven(df: pl.DataFrame, seed: int) -> list[pl.DataFrame]:
    """``df`` in uneven partitions: an empty one, segment "d" in one only, the rest cut
    at random points."""
    rng = np.random.default_rng(seed)
    rest = df.filter(pl.col("g") != "d")
    cuts = np.sort(rng.integers(0, rest.height, 3)).tolist()
    bounds = [0, *cuts, rest.height]
    pieces = [rest.slice(a, b - a) for a, b in itertools.pairwise(bounds)]
    return [df.clear(), df.filter(pl.col("g") == "d"), *pieces]


def _files(root: Path, parts: list[pl.DataFrame], name: str = "part") -> list[str]:
    paths = [str(root / f"{name}{i}.parquet") for i in range(len(parts))]
    for part, path in zip(parts, paths, strict=True):
        part.write_parquet(path)
    return paths


def _same(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    assert_frame_equal(got, expected, rel_tol=1e-9, abs_tol=1e-12)


COLUMNS = {"y_true": "y", "y_pred": "pred", "y_score": "s"}
#: Each form of rule, with and without intervals, by a column, an expression or none.
CASES: dict[str, dict[str, Any]] = {
    "labels scores probabilities, ci=None, weights": {
        "rules": [
            "accuracy >= 0.6",
            "recall > 0.5",
            "false_positive_rate <= 0.3",
            "roc_auc >= 0.75",
            "log_loss < 0.6",
            "n >= 30",
        ],
        "by": "g",
        "weight": "w",
        "ci": None,
    },
    "intervals, reference expression, drift, estimated": {
        "rules": [
            "roc_auc >= reference - 0.05",
            "psi(x) < 0.2",
            "ks(s) < 0.3",
            "recall >= 0.6",
            "average_precision > 0.7",
            "selection_rate < 0.6",
            "estimated_roc_auc >= reference - 0.05",
            "estimated_accuracy > 0.7",
            "f1 >= reference - 0.1",
        ],
        "by": "g",
        "reference": WEEK_ONE,
        "ci": 0.9,
    },
    "no by, default ci": {
        "rules": ["accuracy >= 0.7", "specificity > 0.5", "brier_score < 0.2", "ks > 0.3"],
    },
    "a by expression, estimated with ci": {
        "rules": ["estimated_precision > 0.6", "precision >= reference", "mcc > 0.3"],
        "by": [pl.col("s") > 0.8, "g"],
        "reference": ~WEEK_ONE,
        "ci": 0.8,
    },
}


@pytest.mark.parametrize("case", list(CASES))
def test_dask_files_equal_the_frame_method(case: str, tmp_path: Path) -> None:
    df = _rows(0)
    paths = _files(tmp_path, _uneven(df, 0))
    kw = COLUMNS | CASES[case]
    _same(pmd.check(paths, **kw), df.metrics.check(**kw))


def test_every_status_occurs(tmp_path: Path) -> None:
    """The cases decide every way: a pass, a fail and an inconclusive (an interval across
    the threshold, a segment of one class, a segment the reference lacks)."""
    df = _rows(0)
    paths = _files(tmp_path, _uneven(df, 0))
    kw = COLUMNS | CASES["intervals, reference expression, drift, estimated"]
    got = pmd.check(paths, **kw)
    _same(got, df.metrics.check(**kw))
    assert set(got["status"]) == {"pass", "fail", "inconclusive"}
    # segment "e" has one class: its AUC is undefined; "d" has no reference rows
    undefined = got.filter(pl.col("metric") == "roc_auc - reference", pl.col("g").is_in(["d", "e"]))
    assert undefined["status"].to_list() == ["inconclusive"] * 2


def test_a_dask_dataframe_with_a_derived_column(tmp_path: Path) -> None:
    import dask.dataframe as dd

    df = _rows(1)
    ddf = dd.read_parquet(_files(tmp_path, _uneven(df, 1)))
    ddf = ddf.assign(high=(ddf["s"] >= 0.5).astype("int64"))
    kw = COLUMNS | {"y_pred": "high", "by": "g", "reference": WEEK_ONE}
    kw["rules"] = ["accuracy >= 0.6", "roc_auc >= reference - 0.05", "psi(x) < 0.2"]
    expected = df.with_columns(high=(pl.col("s") >= 0.5).cast(pl.Int64)).metrics.check(**kw)
    _same(pmd.check(ddf, **kw), expected)


def test_the_reference_as_a_second_frame(tmp_path: Path) -> None:
    """The reference rows in files of their own (drift, estimated and reference rules),
    and as polars rows (the reference rules; drift on the engines takes an engine's)."""
    df = _rows(2)
    current, reference = df.filter(~WEEK_ONE), df.filter(WEEK_ONE)
    paths = _files(tmp_path, _uneven(current, 2))
    ref_paths = _files(
        tmp_path, [reference.head(30), reference.clear(), reference.tail(-30)], "ref"
    )
    kw = COLUMNS | {"by": "g", "ci": 0.9}
    kw["rules"] = [
        "roc_auc >= reference - 0.05",
        "psi(x) < 0.2",
        "estimated_roc_auc >= reference - 0.05",
        "recall >= reference - 0.1",
    ]
    expected = current.metrics.check(**kw, reference=reference)
    _same(pmd.check(paths, **kw, reference=ref_paths), expected)
    kw["rules"] = [r for r in kw["rules"] if "psi" not in r]
    expected = current.metrics.check(**kw, reference=reference)
    _same(pmd.check(paths, **kw, reference=reference), expected)
    with pytest.raises(TypeError, match=r"dask.dataframe or Parquet path"):
        pmd.check(paths, ["psi(x) < 0.2"], reference=reference)


def test_no_rows(tmp_path: Path) -> None:
    """Without ``by``, no rows give each rule one row: n is 0 (fails), the rest
    inconclusive."""
    df = _rows(3).clear()
    paths = _files(tmp_path, [df, df])
    kw = COLUMNS | {"rules": ["n >= 10", "accuracy > 0.5", "roc_auc > 0.5"], "ci": None}
    got = pmd.check(paths, **kw)
    _same(got, df.metrics.check(**kw))
    assert got["status"].to_list() == ["fail", "inconclusive", "inconclusive"]


@given(
    seed=st.integers(0, 2**16),
    n=st.integers(30, 150),
    ci=st.sampled_from([None, 0.9]),
    weighted=st.booleans(),
    by=st.sampled_from([None, "g"]),
)
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_hypothesis_rows_and_partitions(
    seed: int, n: int, ci: float | None, weighted: bool, by: str | None, tmp_path: Path
) -> None:
    df = _rows(seed, n)
    folder = tmp_path / str(seed)
    folder.mkdir(exist_ok=True)
    paths = _files(folder, _uneven(df, seed))
    kw = COLUMNS | {"by": by, "ci": None if weighted else ci, "weight": "w" if weighted else None}
    kw["rules"] = [
        "accuracy >= 0.6",
        "roc_auc >= reference - 0.1",
        "precision > 0.5",
        "false_negative_rate < 0.4",
        "log_loss < 0.7",
        "estimated_f1 > 0.6",
    ]
    kw["reference"] = WEEK_ONE
    try:
        expected = df.metrics.check(**kw)
    except DataError:  # too few rows: a side of one class, say
        # the frame method's lazy query raises the first error polars meets of those
        # the data has (here: one side's labels, or the reference's); the engine one
        # of them, of all partitions' rows
        with pytest.raises(DataError):
            pmd.check(paths, **kw)
        return
    _same(pmd.check(paths, **kw), expected)


# ------------------------------------------------------------------ Spark
def test_spark_equals_the_frame_method(spark: Any) -> None:
    df = _rows(4)
    parts = [p.rows() for p in _uneven(df, 4)]
    schema = spark.createDataFrame(df.head(1).to_arrow()).schema
    rdd = spark.sparkContext.parallelize(range(len(parts)), len(parts)).mapPartitionsWithIndex(
        lambda i, _: iter(parts[i])
    )
    sdf = spark.createDataFrame(rdd, schema=schema)
    for case in CASES.values():
        kw = COLUMNS | case
        _same(pms.check(sdf, **kw), df.metrics.check(**kw))
    current, reference = df.filter(~WEEK_ONE), df.filter(WEEK_ONE)
    kw = COLUMNS | {"by": "g", "rules": ["roc_auc >= reference - 0.05", "psi(x) < 0.2"]}
    got = pms.check(
        spark.createDataFrame(current.to_arrow()),
        **kw,
        reference=spark.createDataFrame(reference.to_arrow()),
    )
    _same(got, current.metrics.check(**kw, reference=reference))


# ------------------------------------------------------------------ errors
def _never(*args: object, **kwargs: object) -> None:
    raise AssertionError("a job ran before the error")


@pytest.fixture
def no_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any job on Dask fails the test: the error must come first, from the driver."""
    from pl_metrics._engines import dask as dask_engine
    from pl_metrics._engines import jobs

    monkeypatch.setattr(jobs, "shard", _never)  # a shard's state
    monkeypatch.setattr(dask_engine, "_read", _never)  # a shard read for score ranges


@pytest.mark.parametrize(
    ("kw", "error"),
    [
        ({"rules": "auc >= 0.8"}, ValueError),  # an unknown metric
        ({"rules": "roc_auc => 0.8"}, ValueError),  # malformed
        ({"rules": ["recall > 0.1", "recall > 0.1"]}, ValueError),  # twice
        ({"rules": "psi(x) < 0.2"}, ValueError),  # needs a reference
        ({"rules": "roc_auc > 0.5", "y_score": None}, ValueError),  # needs y_score
        ({"rules": "roc_auc > 0.5", "ci": 1.5}, ValueError),
        ({"rules": "roc_auc > 0.5", "weight": "w"}, ValueError),  # weights: ci=None
        ({"rules": "psi(x) < 0.2", "reference": WEEK_ONE, "weight": "w", "ci": None}, ValueError),
        ({"rules": "roc_auc > 0.5", "by": "rule"}, ValueError),  # an output name
        ({"rules": "roc_auc > 0.5", "y_true": "nope"}, pl.exceptions.ColumnNotFoundError),
        ({"rules": "roc_auc >= reference", "reference": pl.col("x")}, TypeError),  # not Boolean
        ({"rules": 3}, TypeError),
    ],
)
def test_errors_on_the_driver_before_any_job(
    kw: dict[str, Any], error: type[Exception], tmp_path: Path, no_jobs: None
) -> None:
    df = _rows(5, n=40).with_columns(rule=pl.lit("r"))
    paths = _files(tmp_path, [df])
    kw = COLUMNS | kw
    with pytest.raises(error) as expected:
        df.metrics.check(**kw)
    with pytest.raises(error) as got:
        pmd.check(paths, **kw)
    assert str(got.value).endswith(str(expected.value))


def test_a_missing_column_is_named_with_its_own_files(tmp_path: Path, no_jobs: None) -> None:
    """A column missing from the reference files is named with their path, one missing
    from the data with the data's, also where a column of the data is named for the
    reference (its name in the message made it the reference's error)."""
    df = _rows(5, n=60)
    current = df.filter(~WEEK_ONE).with_columns(is_reference=pl.lit(value=False))
    paths = _files(tmp_path, [current])
    no_score = _files(tmp_path, [df.filter(WEEK_ONE).drop("s")], "ref")
    kw = COLUMNS | {"rules": ["estimated_roc_auc >= reference - 0.05"], "reference": no_score}
    said = r"ref0\.parquet: column 's' \(argument `y_score`\) not found in the reference;"
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=said):
        pmd.check(paths, **kw)
    kw |= {"rules": ["roc_auc >= reference - 0.05"], "by": "h"}
    kw["reference"] = _files(tmp_path, [df.filter(WEEK_ONE)], "whole")
    said = r"part0\.parquet: column 'h' \(argument `by`\) not found; .*'is_reference'\]$"
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=said):
        pmd.check(paths, **kw)


@pytest.mark.parametrize(
    ("kw", "change", "error", "said"),
    [
        (
            {"by": "g"},
            lambda ref: ref.drop("g"),
            pl.exceptions.ColumnNotFoundError,
            "column 'g' (argument `by`) not found in the reference; available columns: ",
        ),
        (
            {},
            lambda ref: ref.with_columns(pl.col("s").cast(pl.String)),
            pl.exceptions.SchemaError,
            "column 's' (argument `y_score`) in the reference must be numeric, got String",
        ),
        (
            {},
            lambda ref: ref.rename({"y": "label"}),
            pl.exceptions.ColumnNotFoundError,
            "column 'y' (argument `y_true`) not found in the reference; available columns: ",
        ),
    ],
)
def test_the_reference_files_columns_are_named_with_their_files(
    kw: dict[str, Any],
    change: Callable[[pl.DataFrame], pl.DataFrame],
    error: type[Exception],
    said: str,
    tmp_path: Path,
    no_jobs: None,
) -> None:
    """A reference rule's column (``by``, the scores' dtype, ``y_true``) missing from the
    reference files or of the wrong dtype: named with their path and their own columns,
    as the frame method names it."""
    df = _rows(5, n=60)
    current, reference = df.filter(~WEEK_ONE), change(df.filter(WEEK_ONE))
    paths = _files(tmp_path, [current])
    ref_paths = _files(tmp_path, [reference], "ref")
    kw = COLUMNS | kw | {"rules": ["roc_auc >= reference - 0.02"]}
    with pytest.raises(error) as expected:
        current.metrics.check(**kw, reference=reference)
    with pytest.raises(error, match=r"ref0\.parquet: ") as got:
        pmd.check(paths, **kw, reference=ref_paths)
    assert str(got.value).endswith(str(expected.value))
    if "available columns" in said:  # the reference's own, none added on the way
        said += str(reference.columns)
    assert said in str(got.value)


def test_a_null_flag_is_counted_over_all_partitions(tmp_path: Path) -> None:
    df = _rows(6, n=60)
    flag = pl.when(pl.int_range(pl.len()) % 9 == 0).then(None).otherwise(pl.col("s") > 0.5)
    bad = df.with_columns(flag.alias("ref"))
    paths = _files(tmp_path, [bad.head(30), bad.tail(30)])
    kw = COLUMNS | {"rules": ["roc_auc >= reference - 0.1"], "reference": pl.col("ref")}
    with pytest.raises(DataError) as expected:
        bad.metrics.check(**kw)
    with pytest.raises(DataError) as got:
        pmd.check(paths, **kw)
    assert str(got.value) == str(expected.value)
    assert "null on 7 rows" in str(got.value)  # rows 0, 9, ..., 54
