"""-0.0 and 0.0 are one score on the engines' exact ranking paths, as in the frame
method (``scores.as_score``: one threshold, as in numpy): the partitions of score
ranges (Spark's range partitioner, Dask's sampled boundaries) must not split a tie
of the two zeros into two ranges, which would order half of its pairs (a wrong AUC,
silently).  The oracle is scikit-learn, which ties them (numpy compares -0.0 == 0.0)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import pl_metrics  # noqa: F401 - registers .metrics

dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="module")
def zeros() -> pl.DataFrame:
    """Scores mostly a tie of -0.0 and 0.0 (half each), a few either side."""
    rng = np.random.default_rng(7)
    n = 3000
    s = rng.choice([-0.5, 0.0, 0.0, 0.0, 0.5, 1.0], n)
    s = np.where((s == 0) & (rng.random(n) < 0.5), -0.0, s)
    assert 0 < int(np.sum(np.signbit(s) & (s == 0))) < int(np.sum(s == 0))
    y = rng.random(n) < 0.4
    seg = rng.choice(["a", "b"], n)
    return pl.DataFrame({"y": y, "s": s, "seg": seg})


def _oracle(df: pl.DataFrame, metric: Any) -> dict[str, float]:
    return {
        g: metric(part["y"].to_numpy(), part["s"].to_numpy())
        for (g,), part in df.partition_by("seg", as_dict=True).items()
    }


@pytest.mark.parametrize(
    ("method", "oracle"),
    [("roc_auc", roc_auc_score), ("average_precision", average_precision_score)],
)
def test_the_two_zeros_are_one_score_on_dask(zeros: pl.DataFrame, method: str, oracle: Any) -> None:
    import pl_metrics.dask as pmd

    data = dd.from_pandas(zeros.to_pandas(), npartitions=7)
    got = getattr(pmd, method)(data, "y", "s", by="seg")
    assert dict(got.select("seg", method).iter_rows()) == pytest.approx(
        _oracle(zeros, oracle), rel=1e-12
    )


@pytest.mark.parametrize(
    ("method", "oracle"),
    [("roc_auc", roc_auc_score), ("average_precision", average_precision_score)],
)
def test_the_two_zeros_are_one_score_on_spark(
    spark: Any, zeros: pl.DataFrame, method: str, oracle: Any
) -> None:
    import pl_metrics.spark as pms

    data = spark.createDataFrame(zeros.to_arrow()).repartition(5)
    got = getattr(pms, method)(data, "y", "s", by="seg")
    assert dict(got.select("seg", method).iter_rows()) == pytest.approx(
        _oracle(zeros, oracle), rel=1e-12
    )


def test_the_expected_auc_ties_the_two_zeros_on_both_engines(
    spark: Any, zeros: pl.DataFrame
) -> None:
    """estimated_performance's expected AUC ranks by the raw score on the engines'
    weighted score ranges: equal to the frame method's (which ties them)."""
    import pl_metrics.dask as pmd
    import pl_metrics.spark as pms

    # probabilities: -0.5 -> 0.25 (-0.0 < 0 is false: the negative zeros stay)
    rows = zeros.with_columns(
        s=pl.when(pl.col("s") < 0).then(0.25).otherwise(pl.col("s")), p=pl.col("s") > 0.25
    )
    assert rows.filter(pl.col("s").cast(pl.String) == "-0.0").height
    options: dict[str, Any] = {"by": "seg", "calibration": None, "metrics": ["roc_auc"]}
    want = rows.metrics.estimated_performance("p", "s", **options).sort("seg")
    on_dask = pmd.estimated_performance(
        dd.from_pandas(rows.to_pandas(), npartitions=7), "p", "s", **options
    )
    on_spark = pms.estimated_performance(
        spark.createDataFrame(rows.to_arrow()).repartition(5), "p", "s", **options
    )
    for got in (on_dask, on_spark):
        assert got.sort("seg")["roc_auc"].to_list() == pytest.approx(
            want["roc_auc"].to_list(), rel=1e-9
        )
