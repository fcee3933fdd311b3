"""Benchmark of the engine functions (issue 51's targets), each beside its floor or peer.

    .venv/bin/python benchmarks/bench_engines.py [--rows N] [--segments S] [--repeat R]
        [--files F] [--engines spark,dask] [--driver-memory 1g] [--loop-segments K]

The rows (4-class labels and predictions, a binary label and a continuous score, a
segment column) are written once as ``--files`` Parquet files; both engines read them.

- Spark (``local[2]``, ``--driver-memory``, Spark's default 1g unless given):
  ``pms.report(by)`` against ``groupBy(seg, y_true, y_pred).count()``; exact
  ``pms.roc_auc(by)`` against ``BinaryClassificationEvaluator(numBins=0)`` looped
  over ``--loop-segments`` segments (scaled to all), and against one global sort of
  the scores (``orderBy("s")`` written to the ``noop`` sink); ``roc_auc(by, bins=1000)``.
- Dask (``LocalCluster`` of 2 worker processes): ``pmd.report(by)`` against
  ``ddf.groupby([seg, y_true, y_pred]).size()``; exact ``pmd.roc_auc(by)`` against
  polars on one machine (``pl.scan_parquet(...).metrics.roc_auc(by)``).

The peak resident memory of this process (the driver / client) is printed after each
engine's cases (``ru_maxrss``: a high-water mark, not per case).  The Spark driver's
Python memory of exact ``pms.roc_auc(by)`` alone is measured apart, in a fresh process
reading the same Parquet files (its peak RSS before and after the call; issue 51's
target: at most 300 MB).  Results are checked against polars on one machine before
the times are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl
from _common import print_table, side_by_side
from polars.testing import assert_frame_equal

CLASSES = 4


def write_rows(root: Path, rows: int, segments: int, files: int) -> list[str]:
    rng = np.random.default_rng(51)
    y_true = rng.integers(0, CLASSES, rows)
    y_pred = np.where(rng.random(rows) < 0.7, y_true, rng.integers(0, CLASSES, rows))
    y = (rng.random(rows) < 0.3).astype(np.int64)
    frame = pl.DataFrame(
        {
            "seg": rng.integers(0, segments, rows),
            "y_true": y_true,
            "y_pred": y_pred,
            "y": y,
            "s": rng.random(rows) * 0.7 + y * rng.random(rows) * 0.3,
        }
    )
    paths = []
    for i, part in enumerate(frame.iter_slices(-(-rows // files))):
        paths.append(str(root / f"part{i}.parquet"))
        part.write_parquet(paths[-1])
    return paths


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


#: Exact ``roc_auc(by)`` in a fresh driver process: its peak RSS before and after the call.
DRIVER_SCRIPT = """
import resource, sys
from pyspark.sql import SparkSession
import pl_metrics.spark as pms

def peak():  # this process's high-water mark (VmHWM: ru_maxrss keeps the forking parent's)
    try:
        status = open("/proc/self/status").read().split("VmHWM:")[1]
        return float(status.split()[0]) / 1024
    except (OSError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

spark = (
    SparkSession.builder.master("local[2]").appName("bench_engines_driver")
    .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
    .config("spark.driver.memory", sys.argv[1]).getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
sdf = spark.read.parquet(*sys.argv[2:])
sdf.schema
before = peak()
pms.roc_auc(sdf, "y", "s", by="seg")
print(f"{before:.0f} {peak():.0f}")
spark.stop()
"""


def driver_memory(paths: list[str], args: argparse.Namespace) -> tuple[float, float]:
    """The fresh driver's Python peak RSS (MiB) before and after exact ``roc_auc(by)``."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER_SCRIPT, args.driver_memory, *paths],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    before, after = (float(x) for x in done.stdout.split()[-2:])
    return before, after


def spark_cases(paths: list[str], args: argparse.Namespace) -> list[tuple]:
    from pyspark.ml.evaluation import BinaryClassificationEvaluator
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as sf

    import pl_metrics.spark as pms

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("bench_engines")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", args.driver_memory)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    sdf = spark.read.parquet(*paths).withColumn("y_double", sf.col("y").cast("double"))
    sdf = sdf.cache()
    sdf.count()
    one = pl.scan_parquet(paths)
    assert_frame_equal(
        pms.report(sdf, "y_true", "y_pred", by="seg"),
        one.metrics.report("y_true", "y_pred", by="seg").collect(),
    )
    loop = sorted(r["seg"] for r in sdf.select("seg").distinct().collect())[: args.loop_segments]
    evaluator = BinaryClassificationEvaluator(
        rawPredictionCol="s", labelCol="y_double", metricName="areaUnderROC", numBins=0
    )

    def looped() -> None:
        for seg in loop:
            evaluator.evaluate(sdf.where(sf.col("seg") == seg))

    t = side_by_side(
        {
            "report": lambda: pms.report(sdf, "y_true", "y_pred", by="seg"),
            "groupBy count": lambda: sdf.groupBy("seg", "y_true", "y_pred").count().collect(),
            "roc_auc": lambda: pms.roc_auc(sdf, "y", "s", by="seg"),
            "evaluator looped": looped,
            "sort": lambda: sdf.orderBy("s").write.format("noop").mode("overwrite").save(),
            "roc_auc bins": lambda: pms.roc_auc(sdf, "y", "s", by="seg", bins=1000),
        },
        args.repeat,
    )
    scale = args.segments / max(len(loop), 1)
    print(f"Spark: driver peak RSS {peak_mib():,.0f} MiB (this process)")
    spark.stop()
    before, after = driver_memory(paths, args)
    verdict = "met" if after * 2**20 <= 300e6 else "MISSED"
    print(
        f"Spark: exact roc_auc(by) in a fresh driver on the Parquet files: peak RSS "
        f"{after:,.0f} MiB ({before:,.0f} MiB before the call; <= 300 MB: {verdict})"
    )
    return [
        ("spark report(by)", t["report"], "groupBy(seg, y, p).count()", t["groupBy count"], 2),
        (
            "spark roc_auc(by), exact",
            t["roc_auc"],
            f"evaluator numBins=0 x {args.segments} segments (from {len(loop)})",
            t["evaluator looped"] * scale,
            1,
        ),
        ("spark roc_auc(by), exact", t["roc_auc"], "one global sort of s", t["sort"], 3),
        (
            "spark roc_auc(by, bins=1000)",
            t["roc_auc bins"],
            "groupBy count",
            t["groupBy count"],
            None,
        ),
    ]


def dask_cases(paths: list[str], args: argparse.Namespace) -> list[tuple]:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import pl_metrics.dask as pmd

    one = pl.scan_parquet(paths)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster),
    ):
        ddf = dd.read_parquet(paths)
        assert_frame_equal(
            pmd.report(ddf, "y_true", "y_pred", by="seg"),
            one.metrics.report("y_true", "y_pred", by="seg").collect(),
        )
        t = side_by_side(
            {
                "report": lambda: pmd.report(ddf, "y_true", "y_pred", by="seg"),
                "report files": lambda: pmd.report(paths, "y_true", "y_pred", by="seg"),
                "groupby size": lambda: ddf.groupby(["seg", "y_true", "y_pred"]).size().compute(),
                "roc_auc": lambda: pmd.roc_auc(ddf, "y", "s", by="seg"),
                "polars roc_auc": lambda: one.metrics.roc_auc("y", "s", by="seg").collect(),
            },
            args.repeat,
        )
        print(f"Dask: client peak RSS {peak_mib():,.0f} MiB (this process)")
    return [
        (
            "dask report(by), dask.dataframe",
            t["report"],
            "groupby(...).size()",
            t["groupby size"],
            2,
        ),
        (
            "dask report(by), Parquet paths",
            t["report files"],
            "groupby(...).size()",
            t["groupby size"],
            2,
        ),
        ("dask roc_auc(by), exact", t["roc_auc"], "polars on one machine", t["polars roc_auc"], 5),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--segments", type=int, default=100)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--engines", default="spark,dask")
    parser.add_argument("--driver-memory", default="1g")
    parser.add_argument("--loop-segments", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        paths = write_rows(Path(root), args.rows, args.segments, args.files)
        rows: list[tuple] = []
        engines = args.engines.split(",")
        if "spark" in engines:
            rows += spark_cases(paths, args)
        if "dask" in engines:
            rows += dask_cases(paths, args)
    print_table(
        [(*r[:4], r[4] or None) for r in rows],  # target 0: none
        f"pl_metrics engines ({args.rows:,} rows, {args.segments} segments, "
        f"{args.files} files; median of {args.repeat})",
    )


if __name__ == "__main__":
    main()
