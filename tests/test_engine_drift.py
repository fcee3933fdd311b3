"""``drift`` on Spark and Dask (``pl_metrics._engines.drift``): the frame method's frame on
the same rows however they are partitioned (uneven partitions, an empty one, a
segment in one partition only, a category absent from some), the reference as a
Boolean expression and as a second frame of the engine, in one slice and in many
(the out-of-core path), and its errors, raised on the driver before any job where
they can be.  The oracle is the frame method (itself tested against SciPy and numpy
in tests/test_drift*.py); hypothesis draws the rows and the partitions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics.dask as pmd
import pl_metrics.spark as pms
from pl_metrics._drift import metrics as drift_metrics

REFERENCE = pl.col("day") < 3
COLUMNS = ["x", "k", "c"]


def _rows(n: int = 400, seed: int = 0) -> pl.DataFrame:
    """Scores with ties, nulls, NaN, -0.0 and an infinite value; integers; a category
    column; segments (one of them, "solo", only in the last rows)."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=n), 1)
    x[::17] = np.nan
    x[5], x[6] = -0.0, 0.0
    day = rng.integers(0, 6, size=n)
    frame = pl.DataFrame(
        {
            "x": x,
            "k": rng.integers(-3, 4, size=n),
            "c": rng.choice(["u", "v", "w"], size=n),
            "g": rng.choice(["a", "b"], size=n),
            "day": day,
        }
    )
    frame = frame.with_columns(
        pl.when(pl.int_range(pl.len()) % 23 == 0).then(None).otherwise(pl.col("x")).alias("x"),
        pl.when(pl.int_range(pl.len()) % 29 == 0).then(None).otherwise(pl.col("c")).alias("c"),
    )
    solo = frame.tail(15).with_columns(pl.lit("solo").alias("g"), pl.lit(5, pl.Int64).alias("day"))
    return pl.concat([frame.head(n - 15), solo])


def _partitions(rows: pl.DataFrame) -> list[pl.DataFrame]:
    """Uneven partitions: an empty one, segment "solo" in the last only, category "w"
    absent from the second."""
    head = rows.filter(pl.col("g") != "solo")
    third = head.height // 3
    return [
        rows.clear(),
        head.head(third).filter(pl.col("c").ne_missing("w")),
        pl.concat([head.head(third).filter(pl.col("c") == "w"), head.slice(third, 7)]),
        head.slice(third + 7),
        rows.filter(pl.col("g") == "solo"),
    ]


def _spark_frame(spark: Any, parts: list[pl.DataFrame]) -> Any:
    """One Spark partition per part (an RDD of its slices), the rows' Spark types."""
    rows = [p.rows() for p in parts]
    schema = spark.createDataFrame(pl.concat(parts).head(1).to_arrow()).schema
    slices = spark.sparkContext.parallelize(range(len(rows)), len(rows))
    sdf = spark.createDataFrame(slices.mapPartitionsWithIndex(lambda i, _: iter(rows[i])), schema)
    assert sdf.rdd.glom().map(len).collect() == [len(r) for r in rows]
    return sdf


def _files(root: Path, parts: list[pl.DataFrame], name: str) -> list[str]:
    root.mkdir(exist_ok=True)
    paths = [str(root / f"{name}{i}.parquet") for i in range(len(parts))]
    for part, path in zip(parts, paths, strict=True):
        part.write_parquet(path)
    return paths


def _dask_frame(parts: list[pl.DataFrame]) -> Any:
    import dask
    import dask.dataframe as dd

    meta = parts[0].clear().to_pandas()
    return dd.from_delayed([dask.delayed(p.to_pandas)() for p in parts], meta=meta)


def _same(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


@pytest.fixture(scope="module")
def rows() -> pl.DataFrame:
    return _rows()


@pytest.fixture(scope="module")
def engines(spark: Any, rows: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The rows on each engine, as one frame, and split into reference and current."""
    root = tmp_path_factory.mktemp("drift_engines")
    parts = _partitions(rows)
    ref_parts = [p.filter(REFERENCE) for p in parts]
    cur_parts = [p.filter(~REFERENCE) for p in parts]
    return {
        "spark": (
            pms,
            _spark_frame(spark, parts),
            _spark_frame(spark, ref_parts),
            _spark_frame(spark, cur_parts),
        ),
        "dask files": (
            pmd,
            _files(root, parts, "all"),
            _files(root, ref_parts, "ref"),
            _files(root, cur_parts, "cur"),
        ),
        "dask frame": (pmd, _dask_frame(parts), _dask_frame(ref_parts), _dask_frame(cur_parts)),
    }


ENGINES = ["spark", "dask files", "dask frame"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("by", "bins"), [(None, 1), ("g", 10), (["g", (pl.col("k") > 0).alias("positive")], 4)]
)
def test_the_reference_as_an_expression(
    engines: dict, rows: pl.DataFrame, engine: str, by: object, bins: int
) -> None:
    module, data, _, _ = engines[engine]
    expected = rows.metrics.drift(COLUMNS, reference=REFERENCE, by=by, bins=bins, eps=1e-3)
    got = module.drift(data, COLUMNS, reference=REFERENCE, by=by, bins=bins, eps=1e-3)
    _same(got, expected)
    assert expected.filter(pl.col("column") == "x")["ks"].null_count() == 0


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("by", [None, "g"])
def test_the_reference_as_a_second_frame(
    engines: dict, rows: pl.DataFrame, engine: str, by: object
) -> None:
    module, _, reference, current = engines[engine]
    expected = rows.filter(~REFERENCE).metrics.drift(
        COLUMNS, reference=rows.filter(REFERENCE), by=by, bins=5
    )
    _same(module.drift(current, COLUMNS, reference=reference, by=by, bins=5), expected)
    # the frame method's own frame, as the engine's data: the same
    expected = rows.metrics.drift(["x", "c"], reference=rows.filter(REFERENCE), by=by)
    _, data, _, _ = engines[engine]
    _same(module.drift(data, ["x", "c"], reference=reference, by=by), expected)


@pytest.mark.parametrize("engine", ENGINES)
def test_in_many_slices_of_values(
    engines: dict, rows: pl.DataFrame, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above ``SLICE`` rows both the frame method and the engines read the values in
    slices of their range (the engines: one job per slice and side), the bounds from a
    hashed sample of the pairs: the same numbers."""
    module, data, _, _ = engines[engine]
    one = rows.metrics.drift(["x", "k"], reference=REFERENCE, by="g", bins=7)
    monkeypatch.setattr(drift_metrics, "SLICE", 40)
    monkeypatch.setattr(drift_metrics, "SAMPLE", 16)
    expected = rows.metrics.drift(["x", "k"], reference=REFERENCE, by="g", bins=7)
    _same(expected, one)
    _same(module.drift(data, ["x", "k"], reference=REFERENCE, by="g", bins=7), expected)


def test_no_current_rows_and_a_segment_without_values(engines: dict, rows: pl.DataFrame) -> None:
    for engine in ENGINES:
        module, data, _, _ = engines[engine]
        everything = pl.col("day") >= 0
        _same(
            module.drift(data, ["x", "c"], reference=everything),
            rows.metrics.drift(["x", "c"], reference=everything),
        )
        # a segment whose x is all null (its KS and Wasserstein are null)
        by = pl.col("x").fill_nan(None).is_null().alias("missing")  # NaN: pandas' null
        expected = rows.metrics.drift(["x"], reference=REFERENCE, by=by)
        assert expected["ks"].null_count() == 1
        _same(module.drift(data, ["x"], reference=REFERENCE, by=by), expected)


# ------------------------------------------------------------------ hypothesis
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=st.lists(
        st.one_of(
            st.none(),
            st.sampled_from([-1.5, 0.0, 0.25, 2.0, 1e9]),
            st.floats(-100, 100, allow_nan=False),
        ),
        min_size=1,
        max_size=60,
    ),
    data=st.data(),
)
def test_equal_to_the_frame_method_on_drawn_rows_and_partitions(values: list, data: Any) -> None:
    n = len(values)
    frame = pl.DataFrame(
        {
            "x": pl.Series(values, dtype=pl.Float64),
            "g": data.draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n)),
            "ref": data.draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        }
    )
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=4)))
    parts = [frame.slice(a, b - a) for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
    bins = data.draw(st.integers(1, 6))
    reference = pl.col("ref")
    if not frame["ref"].any():  # no reference rows: the frame method's error
        _same_error(
            lambda: pmd.drift(_dask_frame(parts), ["x"], reference=reference, by="g", bins=bins),
            lambda: frame.metrics.drift(["x"], reference=reference, by="g", bins=bins),
        )
        return
    expected = frame.metrics.drift(["x"], reference=reference, by="g", bins=bins)
    _same(pmd.drift(_dask_frame(parts), ["x"], reference=reference, by="g", bins=bins), expected)


# ------------------------------------------------------------------ errors
def _same_error(engine_call: Any, frame_call: Any) -> None:
    with pytest.raises(Exception) as expected:  # noqa: PT011 - the frame method's, whatever it is
        frame_call()
    with pytest.raises(type(expected.value)) as got:
        engine_call()
    assert str(got.value) == str(expected.value)


def test_option_and_schema_errors_before_any_job(
    spark: Any, engines: dict, rows: pl.DataFrame
) -> None:
    """The frame method's errors, raised on the driver: Spark runs no job."""
    sdf = engines["spark"][1]
    context = spark.sparkContext
    context.setJobGroup("pl_metrics drift checks", "must run no job")
    bad = [
        (["nope"], {"reference": REFERENCE}),
        (["x"], {"reference": pl.col("x")}),  # not Boolean
        (["x"], {"reference": REFERENCE, "bins": 0}),
        (["x"], {"reference": REFERENCE, "eps": -1.0}),
        ("x", {"reference": REFERENCE, "by": "column"}),  # an output column's name
        ([], {"reference": REFERENCE}),
    ]
    try:
        for columns, options in bad:
            _same_error(
                lambda c=columns, o=options: pms.drift(sdf, c, **o),
                lambda c=columns, o=options: rows.metrics.drift(c, **o),
            )
        with pytest.raises(TypeError, match="Spark DataFrame"):
            pms.drift(sdf, ["x"], reference=rows)
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)  # type: ignore[arg-type]
    assert list(context.statusTracker().getJobIdsForGroup("pl_metrics drift checks")) == []
    with pytest.raises(TypeError, match=r"dask.dataframe or Parquet path"):
        pmd.drift(engines["dask files"][1], ["x"], reference=rows.lazy())


@pytest.mark.parametrize("engine", ENGINES)
def test_data_errors_count_the_rows_of_every_partition(
    engines: dict, rows: pl.DataFrame, engine: str
) -> None:
    module, data, _, _ = engines[engine]
    # null flags in several partitions: their count over all of them
    flag = pl.when(pl.col("k") == 3).then(None).otherwise(REFERENCE)
    _same_error(
        lambda: module.drift(data, ["x"], reference=flag),
        lambda: rows.metrics.drift(["x"], reference=flag),
    )
    nothing = pl.col("day") > 100
    _same_error(
        lambda: module.drift(data, ["x"], reference=nothing),
        lambda: rows.metrics.drift(["x"], reference=nothing),
    )


def test_integers_beyond_2_53_are_refused_with_their_count(tmp_path: Path) -> None:
    big = pl.DataFrame({"i": [1, 2**53, -(2**53) - 5, 3], "r": [True, False, True, False]})
    paths = _files(tmp_path, [big.head(2), big.tail(2)], "big")
    _same_error(
        lambda: pmd.drift(paths, ["i"], reference=pl.col("r")),
        lambda: big.metrics.drift(["i"], reference=pl.col("r")),
    )
