"""Benchmark of pl_metrics.spark against Spark's own metrics, side by side in one run.

    .venv/bin/python benchmarks/bench_spark.py [--rows N] [--repeat R] [--partitions P]

Spark local mode (``--master``, default ``local[2]``).  The rows are generated in
Spark (seeded ``rand`` columns), cached and counted before any timing, so every
case reads the same cached frame.  Cases and baselines:

- ``report`` (4 classes): :func:`pl_metrics.spark.report` against mllib's
  ``MulticlassMetrics`` built in the JVM from the DataFrame (the constructor
  pyspark's own wrapper calls, without its detour through a Python RDD), asked
  for the confusion matrix, every label's precision / recall / F1 and the
  weighted averages (one pass over the rows, as ``report``);
- exact ROC AUC on continuous scores: :func:`pl_metrics.spark.roc_auc` against
  ``BinaryClassificationEvaluator(numBins=0)`` (Spark's exact AUC: a distributed
  sort by score);
- ROC AUC with 1,000 bins: ``roc_auc(bins=1000)`` against the evaluator's
  default ``numBins=1000`` (not the same approximation: Spark down-samples the
  sorted curve; ours bins the scores, with an error bound).

The floor: the same columns through ``mapInArrow`` to the Python workers, each
partition only counting its rows (what any Arrow-batch evaluation in Python
pays before it computes anything).  The results are checked against each
other before the times are printed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import polars as pl
from _common import print_table, side_by_side

import pl_metrics.spark as pms

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkFrame
    from pyspark.sql import SparkSession

CLASSES = 4


def session(master: str, partitions: int, memory: str) -> SparkSession:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(master)
        .appName("bench_spark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(partitions))
        .config("spark.driver.memory", memory)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def data(spark: SparkSession, rows: int, partitions: int) -> SparkFrame:
    """Seeded rows: 4-class labels and predictions (70% right), a binary label and
    a continuous score that ranks it better than chance."""
    from pyspark.sql import functions as sf

    y_true = sf.floor(sf.rand(1) * CLASSES).cast("long")
    y_pred = sf.when(sf.rand(2) < 0.7, y_true).otherwise(
        sf.floor(sf.rand(3) * CLASSES).cast("long")
    )
    y = (sf.rand(4) < 0.3).cast("long")
    frame = spark.range(0, rows, numPartitions=partitions).select(
        y_true.alias("y_true"), y_pred.alias("y_pred"), y.alias("y")
    )
    frame = frame.withColumn("s", sf.rand(5) * 0.7 + sf.col("y") * sf.rand(6) * 0.3)
    frame = frame.withColumn("y_double", sf.col("y").cast("double"))
    frame = frame.withColumn("t_double", sf.col("y_true").cast("double"))
    frame = frame.withColumn("p_double", sf.col("y_pred").cast("double")).cache()
    frame.count()
    return frame


def mllib_report(spark: SparkSession, frame: SparkFrame) -> dict[str, object]:
    """mllib's MulticlassMetrics on (prediction, label), built in the JVM."""
    from pyspark.mllib.evaluation import MulticlassMetrics

    pairs = frame.select("p_double", "t_double")
    metrics = MulticlassMetrics.__new__(MulticlassMetrics)
    java = spark.sparkContext._jvm.org.apache.spark.mllib.evaluation.MulticlassMetrics
    super(MulticlassMetrics, metrics).__init__(java(pairs._jdf))
    labels = [float(c) for c in range(CLASSES)]
    return {
        "confusion": metrics.confusionMatrix().toArray(),
        "precision": [metrics.precision(c) for c in labels],
        "recall": [metrics.recall(c) for c in labels],
        "f1": [metrics.fMeasure(c, 1.0) for c in labels],
        "weighted": (
            metrics.weightedPrecision,
            metrics.weightedRecall,
            metrics.weightedFMeasure(1.0),
        ),
    }


def spark_auc(frame: SparkFrame, bins: int) -> float:
    from pyspark.ml.evaluation import BinaryClassificationEvaluator

    evaluator = BinaryClassificationEvaluator(
        rawPredictionCol="s", labelCol="y_double", metricName="areaUnderROC", numBins=bins
    )
    return evaluator.evaluate(frame)


def floor(frame: SparkFrame, columns: list[str]) -> int:
    """The floor of any mapInArrow evaluation: the same columns through Arrow to
    Python workers, each partition only counting its rows."""
    import pyarrow as pa

    def count(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        yield pa.RecordBatch.from_pydict({"n": [sum(b.num_rows for b in batches)]})

    rows = frame.select(*columns).mapInArrow(count, "n long").collect()
    return sum(r["n"] for r in rows)


def check(ours: pl.DataFrame, theirs: dict[str, object], auc: float, spark_exact: float) -> None:
    """The two sides agree (else the times compare different work)."""
    per_class = ours.filter(pl.col("average").is_null()).sort("label")
    for metric in ("precision", "recall", "f1"):
        got, expected = per_class[metric].to_list(), theirs[metric]
        assert all(abs(a - b) < 1e-12 for a, b in zip(got, expected, strict=True)), metric
    weighted = ours.filter(pl.col("average") == "weighted").row(0, named=True)
    mine = (weighted["precision"], weighted["recall"], weighted["f1"])
    assert all(abs(a - b) < 1e-12 for a, b in zip(mine, theirs["weighted"], strict=True))
    assert abs(auc - spark_exact) < 1e-9, (auc, spark_exact)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="4g")
    args = parser.parse_args()
    spark = session(args.master, args.partitions, args.driver_memory)
    frame = data(spark, args.rows, args.partitions)

    ours = pms.report(frame, "y_true", "y_pred")
    auc = pms.roc_auc(frame, "y", "s")["roc_auc"][0]
    check(ours, mllib_report(spark, frame), auc, spark_auc(frame, 0))

    t = side_by_side(
        {
            "report": lambda: pms.report(frame, "y_true", "y_pred"),
            "MulticlassMetrics": lambda: mllib_report(spark, frame),
            "floor 2": lambda: floor(frame, ["y_true", "y_pred"]),
            "roc_auc": lambda: pms.roc_auc(frame, "y", "s"),
            "evaluator exact": lambda: spark_auc(frame, 0),
            "roc_auc bins": lambda: pms.roc_auc(frame, "y", "s", bins=1000),
            "evaluator bins": lambda: spark_auc(frame, 1000),
        },
        args.repeat,
    )
    n = f"{args.rows:,} rows, {args.partitions} partitions, {args.master}"
    print_table(
        [
            (
                "pl_metrics.spark.report, 4 classes",
                t["report"],
                "MulticlassMetrics",
                t["MulticlassMetrics"],
                None,
            ),
            (
                "  floor: mapInArrow of y_true, y_pred counting rows",
                t["floor 2"],
                "MulticlassMetrics",
                t["MulticlassMetrics"],
                None,
            ),
            (
                "pl_metrics.spark.report against that floor",
                t["report"],
                "the floor",
                t["floor 2"],
                None,
            ),
            (
                "pl_metrics.spark.roc_auc, exact, continuous",
                t["roc_auc"],
                "evaluator numBins=0",
                t["evaluator exact"],
                None,
            ),
            (
                "pl_metrics.spark.roc_auc, bins=1000",
                t["roc_auc bins"],
                "evaluator numBins=1000",
                t["evaluator bins"],
                None,
            ),
        ],
        f"Spark local mode: pl_metrics.spark against Spark's metrics ({n}; "
        f"median of {args.repeat})",
    )
    spark.stop()


if __name__ == "__main__":
    main()
