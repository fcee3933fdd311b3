"""Spark local mode: pl_metrics.spark on a partitioned Spark frame equals one machine.

Every expected value is the ``.metrics`` method on the same rows in Polars (tested
against scikit-learn elsewhere).  The Spark frame has 5 partitions and Arrow batches
of 500 rows, and the executors gather chunks of 700 rows: states of many chunks and
partitions are merged, and bad rows are counted in several of them.
"""

from __future__ import annotations

import datetime as dt
import functools
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from pyspark.sql import DataFrame as SparkFrame  # the `spark` extra, part of `test`
from pyspark.sql import SparkSession

import pl_metrics as plm
import pl_metrics.spark as pms
from pl_metrics._core.messages import in_engine_terms
from pl_metrics._core.options import check_of
from pl_metrics.exceptions import DataError

# one worker runs them all under `pytest -n auto --dist loadgroup`: one Spark session

N = 12_000


# the session: tests/conftest.py's `spark` fixture (one for the whole suite)


def test_a_library_warning_is_an_error_on_the_workers(spark: SparkSession) -> None:
    # the Python workers did not have the suite's filter: a warning from pl_metrics
    # went unseen there
    def warn_from_the_library(_: object) -> None:  # local: pickled by value
        warnings.warn_explicit("seen", DeprecationWarning, "x.py", 1, module="pl_metrics.spark")

    with pytest.raises(Exception, match="DeprecationWarning: seen"):
        spark.sparkContext.parallelize([1], 1).foreach(warn_from_the_library)


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pms, "CHUNK_ROWS", 700)


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(16)
    animals = np.array(["bird", "cat", "dog"])
    seg = pl.Series(rng.choice(["de", "fr", "us", ""], N)).replace("", None)
    w = np.where(rng.random(N) < 0.2, 0.0, rng.random(N) * 3)
    return pl.DataFrame(
        {
            "seg": seg,
            "odd name.x": pl.Series(rng.choice(["a", "b", ""], N)).replace("", None),
            "y_true": rng.integers(0, 4, N),
            "y_pred": rng.integers(0, 4, N),
            "t32": pl.Series(rng.integers(0, 3, N), dtype=pl.Int32),
            "p32": pl.Series(rng.integers(0, 3, N), dtype=pl.Int32),
            "t_str": animals[rng.integers(0, 3, N)],
            "p_str": animals[rng.integers(0, 3, N)],
            "t_bool": rng.random(N) < 0.3,
            "p_bool": rng.random(N) < 0.4,
            "t_float": rng.integers(0, 3, N).astype(float),
            "p_float": rng.integers(0, 3, N).astype(float),
            "y": rng.integers(0, 2, N),
            "s": rng.random(N),
            "s2": np.round(rng.random(N), 2),
            "w": w,
        }
    )


@pytest.fixture(scope="module")
def df() -> pl.DataFrame:
    return _frame()


def _spark(spark: SparkSession, frame: pl.DataFrame, partitions: int = 5) -> SparkFrame:
    sdf = spark.createDataFrame(frame.to_arrow()).repartition(partitions).cache()
    sdf.count()
    return sdf


@pytest.fixture(scope="module")
def sdf(spark: SparkSession, df: pl.DataFrame) -> SparkFrame:
    return _spark(spark, df)


def _equal(got: pl.DataFrame, expected: pl.DataFrame, close: bool) -> None:
    """Exact (counts), or ``close`` to 1e-12: weighted sums (added in another order),
    and results the frame method computes another way (it sorts continuous
    un-weighted scores for roc_auc and average_precision instead of counting them).
    The ``bins`` error bounds (float sums of the per-bin products in the state's
    row order) are always compared to 1e-12."""
    bounds = [c for c in expected.columns if c.endswith("_error_bound")]
    if bounds and not close:
        assert_frame_equal(got.drop(bounds), expected.drop(bounds), check_exact=True)
        assert_frame_equal(got, expected, rel_tol=1e-12, abs_tol=1e-15)
    elif close:
        assert_frame_equal(got, expected, rel_tol=1e-12, abs_tol=1e-12)
    else:
        assert_frame_equal(got, expected, check_exact=True)


def test_the_spark_frame_has_several_partitions_and_spark_types(sdf: SparkFrame) -> None:
    assert sdf.rdd.getNumPartitions() == 5
    types = {f.name: f.dataType.simpleString() for f in sdf.schema.fields}
    assert types["y_true"] == "bigint"
    assert types["t32"] == "int"
    assert types["t_str"] == "string"
    assert types["t_bool"] == "boolean"
    assert types["t_float"] == "double"


# every label dtype, weighted or not (each Spark job costs ~0.5 s: one weight each)
LABELS = [
    ("y_true", "y_pred", None),
    ("t32", "p32", "w"),
    ("t_str", "p_str", "w"),
    ("t_bool", "p_bool", None),
]


@pytest.mark.parametrize(("y_true", "y_pred", "weight"), LABELS)
def test_confusion_methods_equal_one_machine(
    df: pl.DataFrame, sdf: SparkFrame, y_true: str, y_pred: str, weight: str | None
) -> None:
    for method in ("report", "summary", "confusion_matrix"):
        got = getattr(pms, method)(sdf, y_true, y_pred, by="seg", weight=weight)
        expected = getattr(df.metrics, method)(y_true, y_pred, by="seg", weight=weight)
        _equal(got, expected, weight is not None)


def test_confusion_options_equal_one_machine(df: pl.DataFrame, sdf: SparkFrame) -> None:
    # float labels (whole numbers), labels=, beta=, zero_division=, normalize=, kappa_weights=
    cases: list[tuple[str, dict[str, object]]] = [
        ("per_class", {"labels": [2.0, 0.0, 5.0], "beta": 2.0}),
        ("averages", {"zero_division": float("nan"), "labels": [0.0, 1.0, 7.0]}),
        ("confusion_matrix", {"normalize": "true", "by": ["seg", "odd name.x"]}),
        ("summary", {"kappa_weights": "quadratic", "weight": "w"}),
        ("summary", {"adjusted": True, "labels": [0.0, 1.0, 5.0], "by": "seg"}),
        ("report", {"extra_scores": ["fowlkes_mallows"], "beta": 2.0, "by": "seg"}),
    ]
    for method, options in cases:
        got = getattr(pms, method)(sdf, "t_float", "p_float", **options)
        expected = getattr(df.metrics, method)("t_float", "p_float", **options)
        _equal(got, expected, "weight" in options)


def test_a_bad_option_gets_the_tables_message(sdf: SparkFrame) -> None:
    # pl_metrics._core.options: the message of the frame method, the states and Dask
    # (tests/test_options.py), before any Spark job
    cases: list[tuple[str, tuple[str, str], str, dict[str, object]]] = [
        ("per_class", ("t_float", "p_float"), "per_class", {"beta": 0}),
        ("report", ("t_float", "p_float"), "report", {"zero_division": 0.5}),
        ("confusion_matrix", ("t_float", "p_float"), "confusion_matrix", {"normalize": "rows"}),
        ("summary", ("t_float", "p_float"), "summary", {"kappa_weights": "cubic"}),
        ("roc_auc", ("y", "s"), "roc_auc", {"max_fpr": 2}),
        ("roc_curve", ("y", "s"), "roc_curve", {"drop_intermediate": "yes"}),
        ("gains", ("y", "s"), "gains", {"buckets": 0}),
        ("ks", ("y", "s"), "ks", {"bins": 0}),
    ]
    for method, columns, table_method, bad in cases:
        ((name, value),) = bad.items()
        with pytest.raises(ValueError, match=f"`{name}`") as want:
            check_of(table_method, name)(value)
        with pytest.raises(ValueError, match=f"`{name}`") as got:
            getattr(pms, method)(sdf, *columns, **bad)
        assert str(got.value) == str(want.value), method


@pytest.mark.parametrize(
    ("score", "bins", "weight"),
    [("s", None, "w"), ("s", None, None), ("s2", None, None), ("s", 100, None), ("s2", 10, "w")],
)
def test_ranking_methods_equal_one_machine(
    df: pl.DataFrame, sdf: SparkFrame, score: str, bins: int | None, weight: str | None
) -> None:
    sorted_by_frame = weight is None and bins is None and score == "s"
    for method in ("roc_auc", "average_precision", "ks"):
        # the exact AP of un-weighted rows comes from partitions of score ranges (its
        # terms added per partition, then over them: to 1e-12, not bit for bit)
        ranked = method == "average_precision" and weight is None and bins is None
        got = getattr(pms, method)(sdf, "y", score, by="seg", weight=weight, bins=bins)
        expected = getattr(df.metrics, method)("y", score, by="seg", weight=weight, bins=bins)
        _equal(got, expected, weight is not None or sorted_by_frame or ranked)
        if weight is None:  # one machine's state and the same finisher: bit for bit
            state = df.metrics.score_counts("y", score, by="seg", bins=bins)
            bound = {"error_bound": bins is not None} if method != "average_precision" else {}
            one = getattr(plm.from_score_counts(state, by="seg"), method)(**bound)
            _equal(got, one, close=ranked)


def test_curves_and_gains_equal_one_machine(df: pl.DataFrame, sdf: SparkFrame) -> None:
    calls: list[tuple[str, dict[str, object]]] = [
        ("roc_curve", {"by": "seg"}),
        ("roc_curve", {"drop_intermediate": False, "bins": 20, "weight": "w"}),
        ("pr_curve", {"by": "seg", "weight": "w"}),
        ("gains", {"buckets": 5, "by": "seg"}),
        ("roc_auc", {"max_fpr": 0.3}),
    ]
    for method, options in calls:
        got = getattr(pms, method)(sdf, "y", "s2", **options)
        expected = getattr(df.metrics, method)("y", "s2", **options)
        _equal(got, expected, "weight" in options)


def test_string_and_bool_labels_with_pos_label(df: pl.DataFrame, sdf: SparkFrame) -> None:
    got = pms.roc_auc(sdf, "t_str", "s", pos_label="cat", by="odd name.x")
    expected = df.metrics.roc_auc("t_str", "s", pos_label="cat", by="odd name.x")
    _equal(got, expected, close=True)  # continuous, un-weighted: the frame method sorts
    got = pms.average_precision(sdf, "t_bool", "s2", weight="w")
    _equal(got, df.metrics.average_precision("t_bool", "s2", weight="w"), close=True)


def test_float_labels(spark: SparkSession, df: pl.DataFrame) -> None:
    """A double y_true crashed every partition's label sample (is_in of Float64 labels
    in an Int64 list); the frame method scores it."""
    frame = df.with_columns(pl.col("y").cast(pl.Float64))
    got = pms.roc_auc(_spark(spark, frame), "y", "s2", by="seg")
    _equal(got, frame.metrics.roc_auc("y", "s2", by="seg"), close=False)


def test_states_equal_one_machine(df: pl.DataFrame, sdf: SparkFrame) -> None:
    by = ["seg", "odd name.x"]
    got = pms.counts(sdf, "t_str", "p_str", by=by)
    expected = df.metrics.counts("t_str", "p_str", by=by).sort([*by, "actual", "predicted"])
    _equal(got, expected, close=False)
    got = pms.score_counts(sdf, "y", "s2", by="seg", weight="w")
    expected = df.metrics.score_counts("y", "s2", by="seg", weight="w").sort("seg", "score")
    _equal(got, expected, close=True)


def test_drift_counts_equal_one_machine(df: pl.DataFrame, sdf: SparkFrame) -> None:
    """The drift state of every partition at the reference's edges is the one
    machine's (null segments and a column named with a dot included); finished, it
    is drift's PSI / JS."""
    reference = df.head(500).with_columns(pl.col("s") ** 2)
    columns = ["s", "t_str"]
    ref_state = reference.metrics.drift_counts(columns, bins=4)
    edges = plm.drift_edges(ref_state)
    by = ["seg", "odd name.x"]
    got = pms.drift_counts(sdf, columns, edges=edges, by=by)
    expected = df.metrics.drift_counts(columns, edges=edges, by=by)
    _equal(got, expected.sort([*by, "column", "lower", "bin"], nulls_last=True), close=False)
    drift = plm.from_drift_counts(ref_state, got, by=by)
    one = df.metrics.drift(columns, reference=reference, by=by, bins=4)
    chosen = [*by, "column", "n_reference", "n_current", "psi", "js_distance"]
    _equal(drift, one.select(chosen), close=True)


def test_intervals_equal_one_machine(df: pl.DataFrame, sdf: SparkFrame) -> None:
    # the bootstrap redraws the merged state, a segment's draws seeded by the seed and
    # its key: for a seed, the frame method's interval on the same rows, bit for bit
    ci = {"ci": 0.95, "n_boot": 200, "seed": 1}
    calls: list[tuple[str, tuple[str, str], dict[str, object]]] = [
        ("report", ("t_str", "p_str"), {"by": "seg", **ci}),
        ("per_class", ("y_true", "y_pred"), {"ci": 0.9, "ci_method": "wilson", "beta": 2.0}),
        ("summary", ("t_bool", "p_bool"), {"by": "odd name.x", **ci}),
        ("roc_auc", ("y", "s2"), {"by": "seg", **ci}),
        ("roc_auc", ("y", "s"), {"by": "seg", "bins": 100, **ci}),
        ("average_precision", ("y", "s2"), {"by": "seg", "ci": 0.9, "n_boot": 100, "seed": 7}),
    ]
    for method, args, options in calls:
        got = getattr(pms, method)(sdf, *args, **options)
        assert any(c.endswith("_low") for c in got.columns), method
        # the AP's terms are summed in another order than the frame method's (one ulp
        # apart seen, polars 2.2): to 1e-12; the others bit for bit
        close = method == "average_precision"
        _equal(got, getattr(df.metrics, method)(*args, **options), close=close)
    # DeLong: the frame method sorts continuous scores, the state counts them (1e-12)
    got = pms.roc_auc(sdf, "y", "s", by="seg", ci=0.95, ci_method="delong")
    _equal(got, df.metrics.roc_auc("y", "s", by="seg", ci=0.95, ci_method="delong"), close=True)


def test_intervals_with_weights_are_refused_before_any_job(
    spark: SparkSession, df: pl.DataFrame, sdf: SparkFrame
) -> None:
    context = spark.sparkContext
    context.setJobGroup("pl_metrics weight ci", "must run no job")
    try:
        for method, args in (("report", ("y_true", "y_pred")), ("roc_auc", ("y", "s"))):
            _same_error(
                lambda m=method, a=args: getattr(pms, m)(sdf, *a, weight="w", ci=0.9),
                lambda m=method, a=args: getattr(df.metrics, m)(*a, weight="w", ci=0.9),
            )
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)  # type: ignore[arg-type]
    assert list(context.statusTracker().getJobIdsForGroup("pl_metrics weight ci")) == []


def test_by_expressions_are_evaluated_on_the_executors(df: pl.DataFrame, sdf: SparkFrame) -> None:
    upper = pl.col("odd name.x").str.to_uppercase().alias("X")
    got = pms.summary(sdf, "y_true", "y_pred", by=upper)
    _equal(got, df.metrics.summary("y_true", "y_pred", by=upper), close=False)
    by = ["seg", (pl.col("s") > 0.5).alias("high")]
    _equal(pms.roc_auc(sdf, "y", "s2", by=by), df.metrics.roc_auc("y", "s2", by=by), False)


def test_dates_timestamps_and_decimals(spark: SparkSession) -> None:
    # Spark DateType / TimestampType segments (with nulls) and DecimalType scores
    day, noon = dt.date(2026, 1, 1), dt.datetime(2026, 1, 1, 12)
    rows = pl.DataFrame(
        {
            "d": [day, day + dt.timedelta(days=1), None] * 5,
            "ts": [noon, None, noon + dt.timedelta(hours=30)] * 5,
            "t": [0, 1, 1, 0, 1] * 3,
            "p": [0, 1, 0, 0, 0] * 3,
            "dec": [0.25, 1.5, 2.5, 0.5, 0.75] * 3,
        }
    ).with_columns(pl.col("ts").dt.replace_time_zone("UTC"), pl.col("dec").cast(pl.Decimal(6, 2)))
    sdf = _spark(spark, rows, partitions=3)
    got = pms.summary(sdf, "t", "p", by=["d", "ts"])
    # a Spark timestamp has no time zone of its own: it comes back in the session's
    assert isinstance(got.schema["ts"], pl.Datetime)
    got = got.with_columns(pl.col("ts").dt.convert_time_zone("UTC"))
    _equal(got, rows.metrics.summary("t", "p", by=["d", "ts"]), close=False)
    _equal(pms.roc_auc(sdf, "t", "dec", by="d"), rows.metrics.roc_auc("t", "dec", by="d"), False)


def test_zero_weight_rows_are_absent(spark: SparkSession, df: pl.DataFrame) -> None:
    # rows of weight 0 holding a label, a score and a segment seen nowhere else
    extra = df.head(300).with_columns(
        pl.lit("zz").alias("seg"), pl.lit("fish").alias("t_str"), pl.lit(0.0).alias("w")
    )
    frame = pl.concat([df, extra])
    sdf = _spark(spark, frame, partitions=4)
    got = pms.report(sdf, "t_str", "p_str", by="seg", weight="w")
    _equal(got, frame.metrics.report("t_str", "p_str", by="seg", weight="w"), close=True)
    got = pms.roc_auc(sdf, "y", "s", by="seg", weight="w")
    _equal(got, frame.metrics.roc_auc("y", "s", by="seg", weight="w"), close=True)


def test_empty_frames_and_empty_partitions(spark: SparkSession, df: pl.DataFrame) -> None:
    tiny = df.head(3)
    sdf = _spark(spark, tiny, partitions=5)  # at least two partitions hold no row
    _equal(pms.report(sdf, "t_str", "p_str"), tiny.metrics.report("t_str", "p_str"), False)
    empty = sdf.limit(0)
    _equal(
        pms.report(empty, "t_str", "p_str"), tiny.clear().metrics.report("t_str", "p_str"), False
    )
    _equal(pms.counts(empty, "y", "y"), tiny.clear().metrics.counts("y", "y"), False)


# ------------------------------------------------------------------------ errors
def _same_error(spark_call: Callable[[], object], frame_call: Callable[[], object]) -> None:
    """Both calls raise; the Spark one raises the frame method's type and message, with
    Spark's idiom where the message shows polars' (``in_engine_terms``)."""
    with pytest.raises(Exception) as expected:  # noqa: PT011 - any error, compared below
        frame_call()
    with pytest.raises(type(expected.value)) as got:
        spark_call()
    assert type(got.value) is type(expected.value)
    assert str(got.value) == str(in_engine_terms(expected.value, "spark"))


def test_schema_and_option_errors_are_the_frame_methods(df: pl.DataFrame, sdf: SparkFrame) -> None:
    calls: list[tuple[str, tuple[str, str], dict[str, object]]] = [
        ("report", ("nope", "y_pred"), {}),
        ("report", ("y_true", "y_pred"), {"by": "missing"}),
        ("summary", ("y_true", "y_pred"), {"weight": "nowhere"}),
        ("report", ("y_true", "y_pred"), {"by": "SEG"}),  # Spark would resolve it, polars not
        ("report", ("t_str", "y_pred"), {}),  # String vs Int64
        ("report", ("y_true", "y_pred"), {"beta": 0}),
        ("report", ("nope", "y_pred"), {"beta": -1}),  # the option first, as the frame method
        ("report", ("y_true", "y_pred"), {"by": "precision"}),  # collides with the output
        ("summary", ("y_true", "y_pred"), {"weight": "t_str"}),
        ("roc_auc", ("y", "t_str"), {}),  # a String score
        ("roc_auc", ("t_str", "s"), {}),  # String labels need pos_label
        ("roc_auc", ("y", "s"), {"bins": 0}),
        ("roc_auc", ("y", "s"), {"by": pl.col("nope").alias("k")}),
        ("summary", ("y_true", "y_pred"), {"ci": 0.9, "kappa_weights": "linear"}),
        ("report", ("y_true", "y_pred"), {"ci": 0.9, "ci_method": "wilson"}),
        ("roc_auc", ("y", "s"), {"ci": 0.9, "max_fpr": 0.5}),
        ("average_precision", ("y", "s"), {"ci": 0.9, "n_boot": 0}),
    ]
    for method, args, options in calls:
        _same_error(
            lambda m=method, a=args, o=options: getattr(pms, m)(sdf, *a, **o),
            lambda m=method, a=args, o=options: getattr(df.metrics, m)(*a, **o),
        )


def test_bad_rows_counted_over_all_partitions(spark: SparkSession, df: pl.DataFrame) -> None:
    frame = df.head(4000)
    every = pl.int_range(pl.len()) % 97 == 0  # 42 rows, in every partition and many chunks
    cases: list[tuple[str, tuple[str, str], dict[str, object], str, object]] = [
        ("report", ("y_true", "y_pred"), {}, "y_true", None),
        ("summary", ("t_str", "p_str"), {"by": "seg"}, "p_str", None),
        ("report", ("t_float", "p_float"), {}, "t_float", float("nan")),
        ("report", ("y_true", "y_pred"), {"weight": "w"}, "w", -1.0),
        ("roc_auc", ("y", "s"), {"by": "seg"}, "s", float("nan")),
        ("roc_auc", ("y", "s"), {"weight": "w"}, "w", None),
        ("average_precision", ("y", "s"), {}, "y", None),
        ("roc_auc", ("y", "s"), {"bins": 10}, "s", 1.5),
    ]
    # one Spark frame: each case's bad column next to the good ones, under the same name
    bad = frame.with_columns(
        pl.when(every).then(pl.lit(value, frame.schema[c])).otherwise(pl.col(c)).alias(f"{c}{i}")
        for i, (_, _, _, c, value) in enumerate(cases)
    )
    sdf = _spark(spark, bad, partitions=3)
    for i, (method, args, options, column, _) in enumerate(cases):
        rows = bad.drop(column).rename({f"{column}{i}": column})
        spark_rows = sdf.drop(column).withColumnRenamed(f"{column}{i}", column)
        _same_error(
            lambda m=method, a=args, o=options, s=spark_rows: getattr(pms, m)(s, *a, **o),
            lambda m=method, a=args, o=options, r=rows: getattr(r.metrics, m)(*a, **o),
        )


def test_bad_rows_of_different_checks_in_different_chunks_are_an_error(
    spark: SparkSession, df: pl.DataFrame
) -> None:
    # null labels in one partition, negative weights in another: which check the frame
    # method reports first is not known to the chunks; the error is one of the two
    frame = df.head(2000).select("y_true", "y_pred", "w")
    first, second = frame.head(1000), frame.tail(1000)
    first = first.with_columns(
        pl.when(pl.col("w") > 2).then(None).otherwise("y_true").alias("y_true")
    )
    second = second.with_columns(pl.when(pl.col("w") > 2).then(-1.0).otherwise("w").alias("w"))
    sdf = spark.createDataFrame(first.to_arrow()).union(spark.createDataFrame(second.to_arrow()))
    with pytest.raises(DataError, match=r"'y_true'|'w'"):
        pms.report(sdf, "y_true", "y_pred", weight="w")
    with pytest.raises(DataError):
        pl.concat([first, second]).metrics.report("y_true", "y_pred", weight="w")


def _split(spark: SparkSession, parts: list[pl.DataFrame], column: str) -> SparkFrame:
    """One Spark frame whose partitions each hold the rows of one of ``parts``
    (a union of one Spark frame per part), checked: their ``column`` values differ."""
    frames = [spark.createDataFrame(part.to_arrow()) for part in parts]
    sdf = functools.reduce(SparkFrame.union, frames)
    values = sdf.rdd.glom().map(lambda rows: sorted({r[column] for r in rows})).collect()
    values = [v for v in values if v]
    assert len({tuple(v) for v in values}) >= len(parts)
    return sdf


def test_label_set_errors_of_all_rows(spark: SparkSession, df: pl.DataFrame) -> None:
    frame = df.head(3000).select("y", "s", "t_str", "seg")
    # labels -1 in one partition, 0 in another, 1 in both: each partition alone is
    # {-1, 1} or {0, 1}, all rows are neither: the default pos_label must refuse them
    part = pl.int_range(pl.len()) % 2
    mixed = frame.with_columns(
        pl.when(pl.col("y") == 1).then(1).when(part == 0).then(-1).otherwise(0).alias("y"),
        part.alias("part"),
    )
    sdf = _split(spark, mixed.partition_by("part"), "y")
    _same_error(lambda: pms.roc_auc(sdf, "y", "s"), lambda: mixed.metrics.roc_auc("y", "s"))
    # 25 labels, 8 or 9 per partition: the message shows the first 20 of all rows
    many = frame.with_columns((pl.int_range(pl.len()) * 25 // pl.len() + 2).alias("y"))
    sdf = _split(spark, [many.filter(pl.col("y") // 9 == i) for i in range(3)], "y")
    _same_error(lambda: pms.roc_auc(sdf, "y", "s"), lambda: many.metrics.roc_auc("y", "s"))
    # pos_label absent from all rows (String labels; and the default 1 of 0-only labels)
    sdf = _spark(spark, frame, partitions=3)
    _same_error(
        lambda: pms.roc_auc(sdf, "t_str", "s", pos_label="fish", by="seg"),
        lambda: frame.metrics.roc_auc("t_str", "s", pos_label="fish", by="seg"),
    )
    zeros = frame.with_columns(pl.lit(0).alias("y"))
    sdf = _spark(spark, zeros, partitions=3)
    _same_error(
        lambda: pms.average_precision(sdf, "y", "s"),
        lambda: zeros.metrics.average_precision("y", "s"),
    )


def test_weights_summing_to_infinity_over_partitions(spark: SparkSession) -> None:
    # each partition's sum of weights is finite, their sum is not
    halves = [
        pl.DataFrame({"t": [1, 0], "p": [1, 1], "s": [0.9, 0.2], "w": [1e308, 1.0], "h": [h, h]})
        for h in (0, 1)
    ]
    sdf = _split(spark, halves, "h")
    rows = pl.concat(halves)
    for method, score in (("summary", "p"), ("roc_auc", "s")):
        _same_error(
            lambda m=method, c=score: getattr(pms, m)(sdf, "t", c, weight="w"),
            lambda m=method, c=score: getattr(rows.metrics, m)("t", c, weight="w"),
        )


def test_without_pyspark_a_clear_import_error(
    monkeypatch: pytest.MonkeyPatch, sdf: SparkFrame
) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)
    with pytest.raises(ImportError, match=r"pip install 'pl_metrics\[spark\]'"):
        pms.report(sdf, "y_true", "y_pred")


def test_a_partition_lost_by_the_driver_is_an_error(
    spark: SparkSession, df: pl.DataFrame, sdf: SparkFrame
) -> None:
    """PySpark's ``collect()`` can return part of the partitions' rows without raising
    when the driver runs short of memory (an outside run: an empty or wrong AUC, one
    partition's state of two).  Simulated by a ``collect`` that drops the last row:
    an error naming the memory setting and ``bins=``, not a number of part of the rows
    (the AUC of the 4 partitions kept is not the AUC of all rows)."""
    assert sdf.rdd.getNumPartitions() == 5
    expected = df.metrics.roc_auc("y", "s")["roc_auc"].item()
    assert pms.roc_auc(sdf, "y", "s")["roc_auc"].item() == pytest.approx(expected, rel=1e-12)
    frames = type(sdf)  # pyspark's classic DataFrame (pyspark.sql.DataFrame is its base)
    collect, to_arrow = frames.collect, frames.toArrow

    def short(self: SparkFrame) -> list:
        return collect(self)[:-1]

    def short_arrow(self: SparkFrame) -> object:  # the counts of Spark's groupBy
        table = to_arrow(self)
        return table.slice(0, table.num_rows - 1)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(frames, "collect", short)
        patch.setattr(frames, "toArrow", short_arrow)
        with pytest.raises(RuntimeError, match=r"4 of 5 partitions .*spark\.driver\.memory.*bins="):
            pms.roc_auc(sdf, "y", "s")
        # a by expression: the counts of each partition's polars state
        with pytest.raises(RuntimeError, match=r"4 of 5 partitions") as caught:
            pms.report(sdf, "t_bool", "p_bool", by=pl.col("seg"))
        assert "bins=" not in str(caught.value)  # a counts state: no bins to offer
        for by in (None, "seg"):  # the groups or their total row lost
            with pytest.raises(RuntimeError, match=r"of the counts .*spark\.driver\.memory"):
                pms.report(sdf, "t_bool", "p_bool", by=by)


def test_confusion_counts_come_from_sparks_group_by(
    spark: SparkSession, df: pl.DataFrame, sdf: SparkFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counts state of named columns is Spark's groupBy (no Python worker): equal
    to the frame method with weights, zero weights, null segments and a name with a
    dot; a by expression, a float segment, bad rows (their counts over all rows):
    each partition's polars state."""
    from pl_metrics._engines import spark as spark_engine

    ran: list[int] = []
    partition_run = spark_engine._partition_run

    def spy(*args: object) -> pl.DataFrame:
        ran.append(1)
        return partition_run(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(spark_engine, "_partition_run", spy)
    for weight in (None, "w"):
        for by in (None, ["seg", "odd name.x"]):
            for y_true, y_pred in (("t_str", "p_str"), ("t_float", "p_float")):
                got = pms.counts(sdf, y_true, y_pred, by=by, weight=weight)
                expected = df.metrics.counts(y_true, y_pred, by=by, weight=weight)
                expected = expected.sort([*(by or []), "actual", "predicted"])
                _equal(got, expected, weight is not None)
    assert not ran
    _equal(pms.report(sdf, "t32", "p32", by="s2"), df.metrics.report("t32", "p32", by="s2"), False)
    assert len(ran) == 1  # a float segment: polars groups it
    frame = df.head(500).with_columns(
        pl.when(pl.col("w") > 2.5).then(None).otherwise("t32").alias("t32")
    )
    _same_error(
        lambda: pms.report(_spark(spark, frame, partitions=3), "t32", "p32", weight="w"),
        lambda: frame.metrics.report("t32", "p32", weight="w"),
    )
    assert len(ran) == 2  # a null label: the error of all rows, counted by the partitions


def test_a_data_error_shows_sparks_idiom(spark: SparkSession, df: pl.DataFrame) -> None:
    """Null labels: the frame method suggests polars' `.drop_nulls('y_true')`, the Spark
    function Spark's own `sdf.dropna(subset=['y_true'])` (the same count of rows)."""
    frame = df.head(300).with_columns(
        pl.when(pl.col("w") > 2).then(None).otherwise("y_true").alias("y_true")
    )
    nulls = frame["y_true"].null_count()
    assert nulls > 0
    with pytest.raises(DataError, match=r"\.drop_nulls\('y_true'\)"):
        frame.metrics.report("y_true", "y_pred")
    with pytest.raises(DataError) as caught:
        pms.report(_spark(spark, frame, partitions=3), "y_true", "y_pred")
    message = str(caught.value)
    assert f"column 'y_true' has {nulls} null rows" in message
    assert "`sdf.dropna(subset=['y_true'])`" in message
    assert "drop_nulls" not in message


def test_a_session_without_a_spark_context_runs_without_the_check(
    df: pl.DataFrame, sdf: SparkFrame
) -> None:
    """Spark Connect has no SparkContext (pyspark raises JVM_ATTRIBUTE_NOT_SUPPORTED):
    no accumulator there, the states merged as before (simulated: the accumulator's
    maker finds none)."""
    from pl_metrics._engines import spark as spark_engine

    expected = df.metrics.roc_auc("y", "s")["roc_auc"].item()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spark_engine, "_accumulator", lambda _: None)
        got = pms.roc_auc(sdf, "y", "s")["roc_auc"].item()
    assert got == pytest.approx(expected, rel=1e-12)


def test_exact_ranking_sends_only_partition_summaries(
    df: pl.DataFrame, sdf: SparkFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exact AUC and AP of un-weighted rows: range-partitioned by score on the
    executors, each partition's counts per segment to the driver (partitions x
    segments rows, not a row per distinct score: 12,000 continuous scores here; the
    AP's second pass its terms), the frame method's AUC to the bit and AP to 1e-12;
    weighted too (to 1e-12: tests/test_engines_ranked.py)."""
    from pl_metrics._engines import ranked

    seen: list[int] = []
    auc, ap = ranked.roc_auc, ranked.average_precision

    def spy_auc(summaries: pl.DataFrame, segments: list[str], **kw: Any) -> pl.DataFrame:
        seen.append(summaries.height)
        return auc(summaries, segments, **kw)

    def spy_ap(
        summaries: pl.DataFrame, terms: pl.DataFrame, segments: list[str], **kw: Any
    ) -> pl.DataFrame:
        seen.extend([summaries.height, terms.height])
        return ap(summaries, terms, segments, **kw)

    monkeypatch.setattr(ranked, "roc_auc", spy_auc)
    monkeypatch.setattr(ranked, "average_precision", spy_ap)
    for by in ("seg", ["seg", "odd name.x"], None):
        expected = df.metrics.roc_auc("y", "s", by=by)
        assert_frame_equal(pms.roc_auc(sdf, "y", "s", by=by), expected, check_exact=True)
        expected = df.metrics.average_precision("y", "s", by=by)
        got = pms.average_precision(sdf, "y", "s", by=by)
        assert_frame_equal(got, expected, rel_tol=1e-12, abs_tol=0)
    assert len(seen) == 3 * 3
    assert max(seen) <= 5 * 4 * 3  # partitions x segments
    # weighted: the partitions' weight sums (:mod:`.ranked`), one summary more
    _equal(pms.roc_auc(sdf, "y", "s", weight="w"), df.metrics.roc_auc("y", "s", weight="w"), True)
    assert len(seen) == 3 * 3 + 1
    empty = sdf.where("y < 0")  # no rows: no row, as the frame method
    for method in ("roc_auc", "average_precision"):
        expected = getattr(df.clear().metrics, method)("y", "s")
        assert_frame_equal(getattr(pms, method)(empty, "y", "s"), expected)
