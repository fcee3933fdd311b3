"""The ``.metrics`` namespace on :class:`polars.LazyFrame` and :class:`polars.DataFrame`.

The LazyFrame methods (one mixin per domain: ``labels``, ``ranking``,
``probability``, ``compare``) build a query and never collect (they read the
schema only).  Every DataFrame method is the same method followed by
``collect()`` (:func:`~pl_metrics._namespace._common.eager`).
"""

from __future__ import annotations

import polars as pl

from pl_metrics._namespace._common import eager, same_result
from pl_metrics._namespace.check import CheckMethods
from pl_metrics._namespace.compare import CompareMethods
from pl_metrics._namespace.estimated import EstimatedMethods
from pl_metrics._namespace.fairness import FairnessMethods
from pl_metrics._namespace.labels import LabelMethods
from pl_metrics._namespace.monitoring import MonitoringMethods
from pl_metrics._namespace.multilabel import MultilabelMethods
from pl_metrics._namespace.multilabel_ranking import MultilabelRankingMethods
from pl_metrics._namespace.paired import PairedMethods
from pl_metrics._namespace.practitioner import PractitionerMethods
from pl_metrics._namespace.probability import ProbabilityMethods
from pl_metrics._namespace.ranking import RankingMethods
from pl_metrics._namespace.report import ReportMethods
from pl_metrics._namespace.scoring import ScoringMethods
from pl_metrics._namespace.thresholds import ThresholdMethods


@pl.api.register_lazyframe_namespace("metrics")
class MetricsLazyFrame(
    LabelMethods,
    MultilabelMethods,
    ScoringMethods,
    PractitionerMethods,
    RankingMethods,
    MultilabelRankingMethods,
    ProbabilityMethods,
    ThresholdMethods,
    CompareMethods,
    FairnessMethods,
    PairedMethods,
    MonitoringMethods,
    EstimatedMethods,
    CheckMethods,
    ReportMethods,
):
    """Classification metrics of a LazyFrame's rows, as lazy tidy frames."""

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf


@pl.api.register_dataframe_namespace("metrics")
class MetricsDataFrame:
    """Classification metrics of a DataFrame's rows, as tidy DataFrames.

    Each method is ``df.lazy().metrics.<method>(...).collect()`` (un-weighted
    ``roc_auc`` on continuous scores sorts instead; same number).
    """

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    @property
    def _lazy(self) -> MetricsLazyFrame:
        return MetricsLazyFrame(self._df.lazy())

    confusion_matrix = eager(MetricsLazyFrame.confusion_matrix)
    per_class = eager(MetricsLazyFrame.per_class)
    averages = eager(MetricsLazyFrame.averages)
    report = eager(MetricsLazyFrame.report)
    summary = eager(MetricsLazyFrame.summary)
    custom = eager(MetricsLazyFrame.custom)
    drift = eager(MetricsLazyFrame.drift)
    drift_bins = eager(MetricsLazyFrame.drift_bins)
    drift_counts = eager(MetricsLazyFrame.drift_counts)
    estimated_performance = eager(MetricsLazyFrame.estimated_performance)
    counts = eager(MetricsLazyFrame.counts)
    gini = eager(MetricsLazyFrame.gini)
    average_precision = eager(MetricsLazyFrame.average_precision)
    roc_curve = eager(MetricsLazyFrame.roc_curve)
    pr_curve = eager(MetricsLazyFrame.pr_curve)
    score_counts = eager(MetricsLazyFrame.score_counts)
    log_loss = eager(MetricsLazyFrame.log_loss)
    brier_score = eager(MetricsLazyFrame.brier_score)
    calibration_curve = eager(MetricsLazyFrame.calibration_curve)
    calibration_error = eager(MetricsLazyFrame.calibration_error)
    top_k_accuracy = eager(MetricsLazyFrame.top_k_accuracy)
    hinge_loss = eager(MetricsLazyFrame.hinge_loss)
    thresholds = eager(MetricsLazyFrame.thresholds)
    best_threshold = eager(MetricsLazyFrame.best_threshold)
    det_curve = eager(MetricsLazyFrame.det_curve)
    threshold_report = eager(MetricsLazyFrame.threshold_report)
    compare = eager(MetricsLazyFrame.compare)
    selection_rate = eager(MetricsLazyFrame.selection_rate)
    group_rates = eager(MetricsLazyFrame.group_rates)
    fairness = eager(MetricsLazyFrame.fairness)
    disparity = eager(MetricsLazyFrame.disparity)
    reference_disparities = eager(MetricsLazyFrame.reference_disparities)
    compare_models = eager(MetricsLazyFrame.compare_models)
    ks = eager(MetricsLazyFrame.ks)
    expected_cost = eager(MetricsLazyFrame.expected_cost)
    decision_cost = eager(MetricsLazyFrame.decision_cost)
    cost_curve = eager(MetricsLazyFrame.cost_curve)
    over_time = eager(MetricsLazyFrame.over_time)
    check = eager(MetricsLazyFrame.check)
    gains = eager(MetricsLazyFrame.gains)
    class_likelihood_ratios = eager(MetricsLazyFrame.class_likelihood_ratios)
    d2_log_loss_score = eager(MetricsLazyFrame.d2_log_loss_score)
    d2_brier_score = eager(MetricsLazyFrame.d2_brier_score)
    coverage_error = eager(MetricsLazyFrame.coverage_error)
    label_ranking_average_precision = eager(MetricsLazyFrame.label_ranking_average_precision)
    label_ranking_loss = eager(MetricsLazyFrame.label_ranking_loss)
    ndcg = eager(MetricsLazyFrame.ndcg)
    dcg = eager(MetricsLazyFrame.dcg)
    multilabel_confusion_matrix = eager(MetricsLazyFrame.multilabel_confusion_matrix)
    hamming_loss = eager(MetricsLazyFrame.hamming_loss)
    zero_one_loss = eager(MetricsLazyFrame.zero_one_loss)
    multilabel_counts = eager(MetricsLazyFrame.multilabel_counts)

    roc_auc = eager(MetricsLazyFrame.roc_auc)

    # not a frame: the page of the LazyFrame's (same arguments, same page)
    html_report = same_result(MetricsLazyFrame.html_report)


__all__ = ["MetricsDataFrame", "MetricsLazyFrame"]
