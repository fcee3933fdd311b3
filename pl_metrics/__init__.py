"""pl_metrics: classification metrics as Polars queries.

Importing the package registers the ``.metrics`` namespace on
:class:`polars.DataFrame` and :class:`polars.LazyFrame`::

    import polars as pl
    import pl_metrics as plm

    df.metrics.report("y_true", "y_pred", by="segment")
    df.group_by("segment").agg(plm.accuracy("y_true", "y_pred"))
"""

from __future__ import annotations

from pl_metrics import _namespace  # registers `.metrics`
from pl_metrics.exceptions import DataError
from pl_metrics.expr import (
    accuracy,
    average_precision,
    brier_score,
    f1,
    f_beta,
    jaccard,
    log_loss,
    precision,
    recall,
    roc_auc,
    specificity,
)
from pl_metrics.state import CountsState, ScoreCountsState, from_counts, from_score_counts

__version__ = "0.1.0"

MetricsDataFrame = _namespace.MetricsDataFrame
MetricsLazyFrame = _namespace.MetricsLazyFrame

__all__ = [
    "CountsState",
    "DataError",
    "MetricsDataFrame",
    "MetricsLazyFrame",
    "ScoreCountsState",
    "accuracy",
    "average_precision",
    "brier_score",
    "f1",
    "f_beta",
    "from_counts",
    "from_score_counts",
    "jaccard",
    "log_loss",
    "precision",
    "recall",
    "roc_auc",
    "specificity",
]
