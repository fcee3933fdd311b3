"""Every column name pl_metrics writes: the internal ones and each method's output schema.

Internal columns all start with :data:`INTERNAL`.  A method evaluates the user's
``by`` (column names or expressions, :class:`Segments`) into internal keys
(:func:`with_segment_keys`, :func:`segment_keys`) at the root, before any other
column is made, and renames them to their output names at the end
(:func:`restore_keys`), so a user's column can never meet an internal one.  What
a ``by`` column may not be named is then exactly the method's output columns,
declared once in :data:`OUTPUTS` (and the ``*_low`` / ``*_high`` columns of ``ci=``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence, Sized
from dataclasses import dataclass

import polars as pl

from pl_metrics._core import formulas
from pl_metrics._core.catalogue import CATALOGUE, names_of

#: Prefix of every internal column; user columns may not start with it.
INTERNAL = "__plm_"

#: Constant segment key used internally when ``by`` is empty.
ALL = f"{INTERNAL}all"
#: Position of a row in the output order (labels, averages, thresholds).
ORD = f"{INTERNAL}ord"
#: Root columns of the confusion counts: the two labels and the (weighted) count.
ACTUAL = f"{INTERNAL}actual"
PREDICTED = f"{INTERNAL}predicted"
COUNT = f"{INTERNAL}count"
#: Root columns of the per-score counts: the score, positives and negatives.
SCORE = f"{INTERNAL}score"
POS = f"{INTERNAL}pos"
NEG = f"{INTERNAL}neg"
#: Un-weighted number of rows of an aggregated group (for the data checks).
ROWS = f"{INTERNAL}rows"
#: Number of rows whose weight is null, NaN, infinite or negative.
BAD_WEIGHT = f"{INTERNAL}bad_weight"


def f_name(beta: float) -> str:
    """The F column's name: ``f1`` for beta 1, else ``f{beta:g}`` (``f2``, ``f0.5``)."""
    return "f1" if beta == 1 else f"f{beta:g}"


#: The F columns' names as :func:`f_name` writes them (``f1``, ``f2``, ``f0.5``).
F_NAME = re.compile(r"f\d+(\.\d+)?")


#: The public state columns (what ``.metrics.counts`` / ``.score_counts`` return and
#: ``from_counts`` / ``from_score_counts`` read) and their internal names.
COUNTS_STATE = {"actual": ACTUAL, "predicted": PREDICTED, "count": COUNT}
SCORE_STATE = {"score": SCORE, "pos": POS, "neg": NEG}

#: The per-class scores (``formulas.SCORES``' keys, "f": F-beta), as ``averages`` and
#: ``report`` give them, and ``per_class``'s: specificity (the recall of the rest, not
#: averaged) after recall; then as columns ("{f}": the F column's name).
SCORES = tuple(formulas.SCORES)
#: The scores ``per_class`` / ``averages`` / ``report`` give by default, the contract's
#: (scikit-learn's report and Jaccard); the others of ``SCORES`` are opt-in, columns
#: only with ``extra_scores=`` (:func:`output_columns`, :func:`without_scores`).
DEFAULT_SCORES = ("precision", "recall", "f", "jaccard")
EXTRA_SCORES = tuple(s for s in SCORES if s not in DEFAULT_SCORES)
#: The methods whose per-class scores are those (``threshold_report`` is a report).
LABEL_SCORE_METHODS = frozenset({"per_class", "averages", "report", "threshold_report"})
_AFTER_RECALL = SCORES.index("recall") + 1
PER_CLASS = (*SCORES[:_AFTER_RECALL], "specificity", *SCORES[_AFTER_RECALL:])
SCORE_COLUMNS = tuple("{f}" if s == "f" else s for s in SCORES)
PER_CLASS_SCORES = tuple("{f}" if s == "f" else s for s in PER_CLASS)


def score_column(score: str, beta: float = 1.0) -> str:
    """The column of per-class score ``score`` (a key of ``formulas.SCORES``, or
    ``specificity``): F-beta's is :func:`f_name`."""
    return f_name(beta) if score == "f" else score


#: Each frame method's output columns after ``*by`` ("{f}": the F column's name).
#: ``summary``'s columns for single-label input, and for multilabel input.
SUMMARY_LABELS = names_of("size", "summary")  # the catalogue's n and summary family
SUMMARY_MULTILABEL = ("n", "subset_accuracy", "hamming_loss", "jaccard_samples")

OUTPUTS: dict[str, tuple[str, ...]] = {
    # "normalized": only with ``normalize=``; declared here so that ``by`` may not take it
    # (so is "label" of the scores' per-class views: one-vs-rest rows with ``{label: column}``)
    "confusion_matrix": ("actual", "predicted", "count", "normalized"),
    "counts": tuple(COUNTS_STATE),
    "per_class": ("label", "support", "predicted", "tp", "fp", "fn", "tn", *PER_CLASS_SCORES),
    "averages": ("average", *SCORE_COLUMNS, "support"),
    "report": ("label", "average", *SCORE_COLUMNS, "support"),
    # single-label, then (instead of accuracy .. cohen_kappa) multilabel input's
    "summary": tuple(dict.fromkeys((*SUMMARY_LABELS, *SUMMARY_MULTILABEL))),
    "roc_auc": ("label", "roc_auc", "roc_auc_error_bound"),
    "average_precision": ("label", "average_precision"),
    "roc_curve": ("label", "threshold", "fpr", "tpr"),
    "pr_curve": ("label", "threshold", "precision", "recall"),
    "score_counts": tuple(SCORE_STATE),
    "log_loss": ("log_loss",),
    "brier_score": ("brier_score",),
    "d2_log_loss_score": ("d2_log_loss_score",),
    "d2_brier_score": ("d2_brier_score",),
    "class_likelihood_ratios": ("positive_likelihood_ratio", "negative_likelihood_ratio"),
    "calibration_curve": ("label", "bin", "prob_true", "prob_pred", "count"),
    "calibration_error": ("label", "ece", "mce"),
    "top_k_accuracy": ("top_k_accuracy",),
    "hinge_loss": ("hinge_loss",),
    "thresholds": (
        "threshold",
        "tp",
        "fp",
        "fn",
        "tn",
        "precision",
        "recall",
        "{f}",
        "specificity",
        "accuracy",
        "mcc",
    ),
    "det_curve": ("threshold", "fpr", "fnr"),
    "ks": ("ks", "threshold", "ks_error_bound"),
    "expected_cost": ("threshold", "tp", "fp", "fn", "tn", "cost"),
    "decision_cost": ("cost",),
    "cost_curve": ("probability_cost", "normalized_cost"),
    "over_time": ("window_start", "window_end", "metric", "value", "low", "high"),
    # low / high only with ``ci``
    "check": ("rule", "metric", "value", "low", "high", "threshold", "status"),
    "custom": (),  # *by, then one column per name of ``metrics``
    "drift": ("column", "n_reference", "n_current", "psi", "js_distance", "ks", "wasserstein"),
    # the metrics asked for, in the order given (``_typing.EstimatedMetric``); label and
    # average: {label: column} scores' per-class and average rows
    "estimated_performance": (
        "label",
        "average",
        "n",
        "roc_auc",
        "precision",
        "recall",
        "f1",
        "jaccard",
        "fowlkes_mallows",
        "specificity",
        "accuracy",
    ),
    "drift_counts": ("column", "bin", "lower", "upper", "rows"),
    "drift_bins": (
        "column",
        "bin",
        "lower",
        "upper",
        "reference_share",
        "current_share",
        "current_rows",
    ),
    "gains": (
        "bucket",
        "threshold",
        "rows",
        "positives",
        "rate",
        "cum_share",
        "gain",
        "lift",
        "cum_lift",
    ),
    "compare": (
        "metric",
        "value",
        "low",
        "high",
        "overall",
        "diff",
        "ratio",
        "best",
        "diff_best",
        "ratio_best",
        "outside",
        "diff_low",
        "diff_high",
        "ratio_low",
        "ratio_high",
        "p_value",
        "p_adjusted",
    ),
    "selection_rate": ("selection_rate",),
    "group_rates": (
        "tp",
        "fp",
        "fn",
        "tn",
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
    ),
    "fairness": (
        "demographic_parity_difference",
        "demographic_parity_ratio",
        "equalized_odds_difference",
        "equalized_odds_ratio",
        "equal_opportunity_difference",
        "equal_opportunity_ratio",
    ),
    "disparity": ("metric", "overall", "group_min", "group_max", "difference", "ratio"),
    "reference_disparities": (
        "reference",
        "selection_rate_disparity",
        "prevalence_disparity",
        "true_positive_rate_disparity",
        "false_positive_rate_disparity",
        "true_negative_rate_disparity",
        "false_negative_rate_disparity",
        "precision_disparity",
        "false_discovery_rate_disparity",
        "negative_predictive_value_disparity",
        "false_omission_rate_disparity",
    ),
    "compare_models": (
        "metric",
        "model",
        "baseline",
        "value",
        "baseline_value",
        "diff",
        "low",
        "high",
        "test",
        "statistic",
        "p_value",
        "p_adjusted",
    ),
}
OUTPUTS["best_threshold"] = OUTPUTS["thresholds"]
# threshold_report: the report of the thresholded scores, its default scores only
OUTPUTS["threshold_report"] = tuple(c for c in OUTPUTS["report"] if c not in EXTRA_SCORES)
# multilabel ranking: the mean over the rows of a per-row ranking metric
for _method in (
    "coverage_error",
    "label_ranking_average_precision",
    "label_ranking_loss",
    "ndcg",
    "dcg",
):
    OUTPUTS[_method] = (_method,)
# multilabel: per label (or per row with ``samplewise``) and the set losses
OUTPUTS["multilabel_confusion_matrix"] = ("label", "sample", "tp", "fp", "fn", "tn")
OUTPUTS["hamming_loss"] = ("hamming_loss",)
OUTPUTS["zero_one_loss"] = ("zero_one_loss",)
# the multilabel mergeable state: per-label sums ("label" rows) and the row histogram
# ("rows" rows) in one concatenable frame (``from_multilabel_counts``)
MULTILABEL_STATE = (
    "part",
    "label",
    "support",
    "predicted",
    "tp",
    "n_true",
    "n_pred",
    "n_common",
    "count",
)
OUTPUTS["multilabel_counts"] = MULTILABEL_STATE

#: The metric columns that ``ci=`` gives ``<metric>_low`` / ``<metric>_high``.
INTERVAL_METRICS: dict[str, tuple[str, ...]] = {
    "per_class": PER_CLASS_SCORES,
    "averages": SCORE_COLUMNS,
    "report": SCORE_COLUMNS,
    # single-label, then multilabel input's (bootstrap of whole rows)
    "summary": (
        *SUMMARY_LABELS[1:],
        "subset_accuracy",
        "hamming_loss",
        "jaccard_samples",
    ),
    "roc_auc": ("roc_auc",),
    "average_precision": ("average_precision",),
    "disparity": ("difference", "ratio"),
    "calibration_curve": ("prob_true",),
    "estimated_performance": (
        "roc_auc",
        "precision",
        "recall",
        "f1",
        "jaccard",
        "fowlkes_mallows",
        "specificity",
        "accuracy",
    ),
}
INTERVAL_METRICS["fairness"] = OUTPUTS["fairness"]


def _derived_columns(columns: tuple[str, ...], base: str, name: str) -> tuple[str, ...]:
    """A derived metric's columns: its base's, the base's name in them renamed
    (``roc_auc_error_bound`` -> ``gini_error_bound``), as ``catalogue.derive`` maps them."""
    return tuple(name + c[len(base) :] if c.startswith(base) else c for c in columns)


# a metric computed from another (gini from roc_auc) has its base's columns, renamed
for _name, _metric in CATALOGUE.items():
    if _metric.derived is not None and _metric.method == _name:
        _base = _metric.derived.base
        OUTPUTS[_name] = _derived_columns(OUTPUTS[_base], _base, _name)
        INTERVAL_METRICS[_name] = _derived_columns(INTERVAL_METRICS[_base], _base, _name)


def output_columns(
    method: str,
    *,
    beta: float = 1.0,
    ci: bool = False,
    extra_scores: Collection[str] | None = None,
) -> tuple[str, ...]:
    """The columns ``method`` writes after ``*by`` (with ``ci``: and its interval columns).

    ``extra_scores``: the opt-in scores asked for (:data:`EXTRA_SCORES`); None: every
    column the method can write, the names a ``by`` column may not take."""
    f = f_name(beta)
    left_out = _left_out(method, extra_scores)
    columns = [f if c == "{f}" else c for c in OUTPUTS[method] if c not in left_out]
    if ci:
        for metric in INTERVAL_METRICS.get(method, ()):
            m = f if metric == "{f}" else metric
            columns += [] if metric in left_out else [f"{m}_low", f"{m}_high"]
    return tuple(columns)


def _left_out(method: str, extra_scores: Collection[str] | None) -> set[str]:
    """The opt-in scores ``method`` does not write (none but for the label scores)."""
    if extra_scores is None or method not in LABEL_SCORE_METHODS:
        return set()
    return set(EXTRA_SCORES) - set(extra_scores)


def without_scores(
    frame: pl.LazyFrame, method: str, extra_scores: Collection[str], *, ci: bool
) -> pl.LazyFrame:
    """``frame`` (``per_class`` / ``averages`` / ``report``, every score computed) without
    the opt-in scores not in ``extra_scores``, and their interval columns."""
    left_out = sorted(_left_out(method, extra_scores))
    bounds = interval_columns(left_out) if ci else []
    return frame.drop(*left_out, *bounds) if left_out else frame


def interval_metrics(method: str, *, beta: float = 1.0) -> tuple[str, ...]:
    """The metric columns that ``ci=`` gives intervals in ``method``'s frame."""
    return tuple(f_name(beta) if m == "{f}" else m for m in INTERVAL_METRICS.get(method, ()))


def interval_columns(metrics: Sequence[str]) -> list[str]:
    """``<metric>_low``, ``<metric>_high`` for each metric, in order."""
    return [c for m in metrics for c in (f"{m}_low", f"{m}_high")]


@dataclass(frozen=True, eq=False)
class Segments:
    """A method's ``by=``, normalised once (``checks.normalize_by``).

    ``given``: each item as the user wrote it, a column name or an expression;
    ``names``: the output name of each (the name, or ``expr.meta.output_name()``),
    distinct.  A ``by`` expression is just another key: :func:`with_segment_keys`
    evaluates every item on the input rows under its internal key.
    """

    given: tuple[str | pl.Expr, ...] = ()
    names: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.names)

    @property
    def exprs(self) -> list[pl.Expr]:
        """Each item as an expression (``pl.col(name)`` for a column name)."""
        return [pl.col(item) if isinstance(item, str) else item for item in self.given]


def segment_keys(by: Sized) -> list[str]:
    """The internal names of the ``by`` columns (``[ALL]`` when there are none)."""
    return [f"{INTERNAL}by{i}" for i in range(len(by))] or [ALL]


def with_segment_keys(lf: pl.LazyFrame, by: Segments) -> pl.LazyFrame:
    """``lf`` with each ``by`` item evaluated on its rows under its internal key name
    (a copy of a ``by`` column; the value of a ``by`` expression).

    With no ``by``, the frame is returned as is: :data:`ALL` is added after the
    aggregation (a constant key is cheaper there).
    """
    if not by:
        return lf
    return lf.with_columns(
        expr.alias(key) for expr, key in zip(by.exprs, segment_keys(by), strict=True)
    )


def stand_in_keys(by: Sized, taken: Collection[str]) -> list[str]:
    """Names under which a method built on another (``compare``, ``threshold_report``)
    evaluates its segments on the input rows and hands them to the inner method:
    ``segment{i}``, with ``_`` appended until no column in ``taken`` (the columns the
    inner method reads) has it.  The outer method checks ``by`` itself
    (``checks.check_by``) and renames the keys back to the output names."""
    keys = []
    for i in range(len(by)):
        key = f"segment{i}"
        while key in taken:
            key += "_"
        keys.append(key)
    return keys


def restore_keys(frame: pl.LazyFrame, by: Sequence[str]) -> pl.LazyFrame:
    """The internal segment keys renamed back to the ``by`` output names."""
    if not by:
        return frame.drop(ALL)
    return frame.rename(dict(zip(segment_keys(by), by, strict=True)))
