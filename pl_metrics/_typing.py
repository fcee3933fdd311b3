"""Type aliases shared by the public API (one place for every ``Literal``).

Each ``Literal`` lists the values the runtime accepts; where a runtime catalogue
lists the same names (``_groups.fairness.METRICS``, ``_groups.over_time.METRICS``, ...),
``tests/test_typing.py`` asserts that the two are equal, and it checks every
``Literal`` parameter of the namespace against the values its method accepts.
The aliases are exported by :mod:`pl_metrics` for annotating user variables
(``metric: plm.FairnessMetric = "f1_macro"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypeAlias

import polars as pl

# ----------------------------------------------------------------------- options
#: Averages produced by :meth:`averages` / :meth:`report`, in output order.
Average: TypeAlias = Literal["micro", "macro", "weighted"]
#: ``average=`` of the expressions ``plm.precision`` & co: ``pos_label`` against the
#: rest, or one of the multiclass averages of :meth:`averages`.
ExprAverage: TypeAlias = Literal["binary", "micro", "macro", "weighted"]
#: Averages of the multiclass ROC AUC and average precision (``average=None``: one
#: row per class; ``"micro"``: one-vs-rest only; ``"samples"``: multilabel only).
AucAverage: TypeAlias = Literal["micro", "macro", "weighted", "samples"]
#: Multiclass ROC AUC strategies.
MultiClass: TypeAlias = Literal["ovr", "ovo"]
#: How ``ci=`` intervals are computed: every method (``compare``, ``over_time``).
CiMethod: TypeAlias = Literal["bootstrap", "poisson", "wilson", "delong", "logit"]
#: ``ci_method`` of ``per_class`` (``checks.CI_METHODS``; the first, the default: Wilson
#: for the per-class proportions, the delta method for F-beta; ``"wilson"``: the
#: proportions only).
LabelCiMethod: TypeAlias = Literal["delta", "bootstrap", "wilson", "poisson"]
#: ``ci_method`` of ``averages`` and ``report`` (the first, the default: the delta method).
AverageCiMethod: TypeAlias = Literal["delta", "bootstrap", "poisson"]
#: ``ci_method`` of ``summary`` (``checks.CI_METHODS``; the first, the default: Wilson
#: for the accuracy, the delta method for balanced accuracy, MCC and kappa).
SummaryCiMethod: TypeAlias = Literal["delta", "bootstrap", "wilson", "poisson"]
#: ``ci_method`` of ``roc_auc`` (DeLong's variance).
AucCiMethod: TypeAlias = Literal["delong", "bootstrap", "poisson"]
#: ``ci_method`` of average_precision (``checks.CI_METHODS``; the first, the default: the
#: delta method's variance on the logit scale; ``"boyd"``: Boyd, Eng & Page's).
ApCiMethod: TypeAlias = Literal["logit", "bootstrap", "poisson", "boyd"]
#: ``ci_method`` of ``compare_models`` (``_groups.paired.CI_METHODS``: DeLong for roc_auc,
#: McNemar / Agresti-Min for accuracy, the delta method for the others).
PairedCiMethod: TypeAlias = Literal["agresti_min", "bootstrap", "poisson", "delta", "delong"]
#: ``ci_method`` of the methods whose intervals are bootstraps only (multinomial or Poisson).
BootstrapCiMethod: TypeAlias = Literal["bootstrap", "poisson"]
#: ``adjust=``: the adjustment of many p-values (``_core.multiple``).
Adjust: TypeAlias = Literal["bonferroni", "holm", "bh", "by"]
#: ``normalize=`` of ``confusion_matrix``: divide by the row, column or total count.
Normalize: TypeAlias = Literal["true", "pred", "all"]
#: ``kappa_weights=`` of ``summary`` (Cohen's weighted kappa).
KappaWeights: TypeAlias = Literal["linear", "quadratic"]
#: ``strategy=`` of ``calibration_curve`` / ``calibration_error``: the bin edges.
BinStrategy: TypeAlias = Literal["uniform", "quantile"]
#: ``multi_class=`` of ``calibration_curve`` / ``calibration_error`` with ``{label: column}``:
#: the top label's confidence, or each class's probability against the rest.
CalibrationMultiClass: TypeAlias = Literal["top_label", "per_class"]
#: ``method=`` of ``fairness`` / ``disparity``: differences between groups or to overall.
DisparityMethod: TypeAlias = Literal["between_groups", "to_overall"]
#: ``agg=`` of ``fairness``: fairlearn's aggregate of the parts of equalized odds.
FairnessAgg: TypeAlias = Literal["worst_case", "mean"]
#: ``extra_scores=`` of ``per_class`` / ``averages`` / ``report``: the opt-in per-class
#: scores (``names.EXTRA_SCORES``), columns beside the default four.
ExtraScore: TypeAlias = Literal["fowlkes_mallows", "informedness", "markedness"]

# ------------------------------------------------------------------ metric names
#: The label metrics that every comparison and ``over_time`` accept (nested in the
#: Literals below, which Python flattens: ``typing.get_args`` lists them in order).
_LabelMetric: TypeAlias = Literal[
    "accuracy",
    "balanced_accuracy",
    "mcc",
    "cohen_kappa",
    "precision_micro",
    "precision_macro",
    "precision_weighted",
    "recall_micro",
    "recall_macro",
    "recall_weighted",
    "f1_micro",
    "f1_macro",
    "f1_weighted",
    "jaccard_micro",
    "jaccard_macro",
    "jaccard_weighted",
    "fowlkes_mallows_micro",
    "fowlkes_mallows_macro",
    "fowlkes_mallows_weighted",
    "informedness_micro",
    "informedness_macro",
    "informedness_weighted",
    "markedness_micro",
    "markedness_macro",
    "markedness_weighted",
]
#: The score metrics of ``compare`` / ``disparity`` and ``over_time``.
_ScoreMetric: TypeAlias = Literal[
    "roc_auc", "gini", "average_precision", "ks", "log_loss", "brier_score"
]
#: The metrics of ``compare`` / ``disparity`` (``_groups.fairness.METRICS`` but ``n``).
FairnessMetric: TypeAlias = Literal[
    _LabelMetric,
    "selection_rate",
    "prevalence",
    "true_positive_rate",
    "false_positive_rate",
    "true_negative_rate",
    "false_negative_rate",
    "precision",
    "false_discovery_rate",
    "negative_predictive_value",
    "false_omission_rate",
    "recall",
    "f1",
    "jaccard",
    "fowlkes_mallows",
    "informedness",
    "markedness",
    "specificity",
    _ScoreMetric,
]
#: The metrics of ``compare_models`` (``_groups.paired.METRICS``).
PairedMetric: TypeAlias = Literal[
    "accuracy",
    "balanced_accuracy",
    "mcc",
    "cohen_kappa",
    "precision",
    "recall",
    "f1",
    "roc_auc",
    "gini",
    "average_precision",
]
#: ``metric=`` of ``best_threshold``: a column of ``thresholds`` (beta 1).  With
#: another ``beta`` the F column is ``f{beta:g}`` (``"f2"``), outside this list:
#: ``typing.cast(plm.ThresholdMetric, "f2")``.
ThresholdMetric: TypeAlias = Literal[
    "tp", "fp", "fn", "tn", "precision", "recall", "f1", "specificity", "accuracy", "mcc"
]
#: ``metrics=`` of ``estimated_performance`` (``_monitoring.estimated.METRICS``), in the
#: order of the docs.
EstimatedMetric: TypeAlias = Literal[
    "roc_auc",
    "precision",
    "recall",
    "f1",
    "jaccard",
    "fowlkes_mallows",
    "specificity",
    "accuracy",
]
#: The estimated metrics ``over_time`` takes (``_monitoring.estimated_windows.METRICS``):
#: ``estimated_<m>`` for each metric of ``estimated_performance`` (one score column),
#: then the averages over the classes of ``{label: column}`` scores,
#: ``estimated_<m>_<average>`` (``estimated_accuracy`` is of both).
OverTimeEstimatedMetric: TypeAlias = Literal[
    "estimated_roc_auc",
    "estimated_precision",
    "estimated_recall",
    "estimated_f1",
    "estimated_jaccard",
    "estimated_fowlkes_mallows",
    "estimated_specificity",
    "estimated_accuracy",
    "estimated_roc_auc_macro",
    "estimated_roc_auc_weighted",
    "estimated_precision_micro",
    "estimated_precision_macro",
    "estimated_precision_weighted",
    "estimated_recall_micro",
    "estimated_recall_macro",
    "estimated_recall_weighted",
    "estimated_f1_micro",
    "estimated_f1_macro",
    "estimated_f1_weighted",
    "estimated_jaccard_micro",
    "estimated_jaccard_macro",
    "estimated_jaccard_weighted",
    "estimated_fowlkes_mallows_micro",
    "estimated_fowlkes_mallows_macro",
    "estimated_fowlkes_mallows_weighted",
    "estimated_specificity_micro",
    "estimated_specificity_macro",
    "estimated_specificity_weighted",
]
#: ``calibration=`` of ``estimated_performance``: the map from scores to probabilities
#: fitted on the reference rows (``None``: the scores are probabilities).
Calibration: TypeAlias = Literal["isotonic"]
#: ``metrics=`` of ``over_time`` (``_groups.over_time.METRICS``).
OverTimeMetric: TypeAlias = Literal[
    "n",
    _LabelMetric,
    "precision",
    "recall",
    "f1",
    "jaccard",
    "fowlkes_mallows",
    "informedness",
    "markedness",
    "specificity",
    _ScoreMetric,
    "calibration_error",
]
#: ``metrics=`` of ``over_time``: its realized metrics and the estimated ones.
OverTimeAnyMetric: TypeAlias = Literal[OverTimeMetric, OverTimeEstimatedMetric]

# ------------------------------------------------------------------------ inputs
#: A column given by name or as an expression.
IntoColumn: TypeAlias = str | pl.Expr
#: The ``by=`` argument: nothing, one column name or expression, or several.
By: TypeAlias = str | pl.Expr | Sequence[str | pl.Expr] | None
#: The ``labels=`` argument.
Labels: TypeAlias = Sequence[object] | pl.Series | None
#: The ``y_score=`` argument: one column (binary) or ``{label: column}`` (multiclass).
Score: TypeAlias = str | Mapping[object, str]
#: ``y_true`` / ``y_pred`` of the set-based methods: a label column, a List column of
#: label sets (multilabel) or ``{label: indicator column}`` (multilabel).
Target: TypeAlias = str | Mapping[object, str]
