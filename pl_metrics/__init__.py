"""pl_metrics: classification metrics as Polars queries.

Importing the package registers the ``.metrics`` namespace on
:class:`polars.DataFrame` and :class:`polars.LazyFrame`::

    import polars as pl
    import pl_metrics as plm

    df.metrics.report("y_true", "y_pred", by="segment")
    df.group_by("segment").agg(plm.accuracy("y_true", "y_pred"))

``plm.metrics(df)`` is the same namespace, typed for static checkers (which do not
see ``df.metrics``): see ``docs/typing.md``.
"""

from __future__ import annotations

from typing import overload

import polars as pl

from pl_metrics import (
    _namespace,  # registers `.metrics`
    expr,
)
from pl_metrics._core.catalogue import metric_names
from pl_metrics._core.options import checked
from pl_metrics._drift.state import drift_edges, from_drift_counts
from pl_metrics._typing import (
    Adjust,
    AucAverage,
    AucCiMethod,
    Average,
    AverageCiMethod,
    BinStrategy,
    BootstrapCiMethod,
    Calibration,
    CalibrationMultiClass,
    CiMethod,
    DisparityMethod,
    EstimatedMetric,
    ExprAverage,
    FairnessAgg,
    FairnessMetric,
    KappaWeights,
    LabelCiMethod,
    MultiClass,
    Normalize,
    OverTimeEstimatedMetric,
    OverTimeMetric,
    PairedCiMethod,
    PairedMetric,
    SummaryCiMethod,
    ThresholdMetric,
)
from pl_metrics._version import VERSION
from pl_metrics.exceptions import DataError
from pl_metrics.expr import *  # noqa: F403 - the expressions: expr.__all__, below
from pl_metrics.state import (
    CountsState,
    MultilabelCountsState,
    ScoreCountsState,
    from_counts,
    from_multilabel_counts,
    from_score_counts,
)

__version__ = VERSION  # from the package metadata (pyproject.toml)

MetricsDataFrame = _namespace.MetricsDataFrame
MetricsLazyFrame = _namespace.MetricsLazyFrame


@overload
def metrics(frame: pl.DataFrame) -> MetricsDataFrame: ...
@overload
def metrics(frame: pl.LazyFrame) -> MetricsLazyFrame: ...
def metrics(frame: pl.DataFrame | pl.LazyFrame) -> MetricsDataFrame | MetricsLazyFrame:
    """The ``.metrics`` namespace of ``frame``, typed: ``plm.metrics(df)`` is ``df.metrics``.

    Type checkers do not see the namespaces that polars registers at run time
    (``df.metrics`` is an unknown attribute to mypy and pyright); this function
    returns the same object with its class, so that every method's parameters
    (with their ``Literal`` option values) and its result are checked.

    Parameters
    ----------
    frame
        A :class:`polars.DataFrame` or :class:`polars.LazyFrame`.

    Returns
    -------
    MetricsDataFrame or MetricsLazyFrame
        The namespace ``frame.metrics``: its methods return DataFrames for a
        DataFrame and LazyFrames (never collected) for a LazyFrame.

    Raises
    ------
    TypeError
        When ``frame`` is neither (a pandas DataFrame, a Series, a state, ...).

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> df = pl.DataFrame({"y": [0, 1, 1, 0], "p": [0, 1, 0, 0]})
    >>> plm.metrics(df).summary("y", "p")["accuracy"].item()
    0.75
    >>> type(plm.metrics(df.lazy()).summary("y", "p")).__name__
    'LazyFrame'
    """
    if isinstance(frame, pl.DataFrame):
        return MetricsDataFrame(frame)
    checked("plm.metrics", frame=frame)
    return MetricsLazyFrame(frame)  # type: ignore[arg-type]  # checked: a LazyFrame


__all__ = [
    "Adjust",
    "AucAverage",
    "AucCiMethod",
    "Average",
    "AverageCiMethod",
    "BinStrategy",
    "BootstrapCiMethod",
    "Calibration",
    "CalibrationMultiClass",
    "CiMethod",
    "CountsState",
    "DataError",
    "DisparityMethod",
    "EstimatedMetric",
    "ExprAverage",
    "FairnessAgg",
    "FairnessMetric",
    "KappaWeights",
    "LabelCiMethod",
    "MetricsDataFrame",
    "MetricsLazyFrame",
    "MultiClass",
    "MultilabelCountsState",
    "Normalize",
    "OverTimeEstimatedMetric",
    "OverTimeMetric",
    "PairedCiMethod",
    "PairedMetric",
    "ScoreCountsState",
    "SummaryCiMethod",
    "ThresholdMetric",
    "drift_edges",
    "from_counts",
    "from_drift_counts",
    "from_multilabel_counts",
    "from_score_counts",
    "metric_names",
    "metrics",
]
# every expression of pl_metrics.expr (plm.f1, plm.roc_auc, ...)
__all__ += expr.__all__
