"""The declarations of arguments beyond one option's value: the rules across a
method's arguments, and the forms of the arguments that are lists or mappings.

:mod:`pl_metrics._core.options` declares each option's own check (``beta``,
``bins`` ...); this module declares what one value's check cannot say:

- :data:`RULES`: per method, the :class:`Rule` records on several of its arguments
  (they go together, exclude each other, or one form of an argument refuses
  another: ``max_fpr`` with ``{label: column}`` scores), and on the arguments that
  are no option (``title``, a ``where`` expression).  :func:`options.checked` runs a
  method's rules as soon as every argument a rule reads is given, so a method
  declares its rules here and calls the one entry point where the check belongs in
  the order of :mod:`pl_metrics._core.inputs` (options, schema, rows); a rule on a
  fact of the schema (the input is multilabel) reads that fact as an argument;
- the rules of the stages (arguments checked against what a stage has read: the
  schema, the input's form) are :mod:`pl_metrics._core.stage_rules`, merged into
  :data:`RULES`; the :class:`Rule` record is :mod:`pl_metrics._core.rule`;
- the forms of list and mapping arguments are :mod:`pl_metrics._core.forms`.

Every error names the argument and what was given, as a ``ValueError`` or a
``TypeError`` (a wrong kind of value); ``tests/test_front_door.py`` counts the
``raise`` statements left outside the front door (this module and
:mod:`~pl_metrics._core.stage_rules`, :mod:`~pl_metrics._core.options`,
:mod:`~pl_metrics._core.forms`, :mod:`~pl_metrics._core.labels`,
:mod:`~pl_metrics._core.checks` and :mod:`~pl_metrics._core.table_options`), each
with its reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import get_args

import polars as pl

from pl_metrics._core import catalogue, stage_rules
from pl_metrics._core.names import F_NAME
from pl_metrics._core.rule import Rule
from pl_metrics._typing import EstimatedMetric

#: compare_models' metrics by kind (the catalogue's, as ``_groups.paired`` reads them)
_PAIRED_LABELS = catalogue.names_of("summary", paired=True)
#: over_time's estimated metrics (``_monitoring.estimated_windows.METRICS``)
_ESTIMATED = tuple(f"estimated_{m}" for m in get_args(EstimatedMetric))
_PAIRED_BINARY = (
    *catalogue.names_of("binary", paired=True),
    *catalogue.names_of("ranking", paired=True),
)


def _not_column(value: object) -> bool:
    return value is not None and not isinstance(value, str)


def _distinct_names(metric: object) -> bool:
    """``metric``: a name, or a non-empty list of distinct names."""
    names = [metric] if isinstance(metric, str) else list(metric)  # type: ignore[call-overload]
    return bool(names) and len(set(names)) == len(names)


def _ci_with_weight(ci: object, weight: object) -> bool:
    return ci is not None and not isinstance(ci, str) and weight is not None


def _unweighted_ci(advice: str) -> Rule:
    """The weight rule of the intervals, one wording: they resample counts of rows."""
    return Rule(
        ("ci", "weight"),
        _ci_with_weight,
        f"`ci` needs un-weighted rows (the intervals resample counts of rows); {advice}",
    )


#: ``ci`` with ``weight``: refused by every method's interval check (``checks.wants_ci``)
UNWEIGHTED_CI = _unweighted_ci("drop `weight` or compute the weighted point estimate alone")

#: Per method, its rules across arguments, in the order they are checked (a
#: rule runs as soon as :func:`options.checked` has every argument it reads).
RULES: Mapping[str, tuple[Rule, ...]] = MappingProxyType(
    {
        "compare": (
            Rule(
                ("ci",),
                lambda ci: ci is None,
                "`ci` is required: compare gives every segment an interval (e.g. ci=0.95)",
            ),
            Rule(
                ("metric", "ci_method", "analytic"),
                lambda metric, ci_method, analytic: (
                    ci_method not in ("bootstrap", "poisson") and metric not in analytic
                ),
                lambda metric, ci_method, analytic: (
                    f"ci_method={ci_method!r} is an analytic interval of "
                    f"{', '.join(sorted(analytic))} only, not of {metric!r}; "
                    "use ci_method='bootstrap'"
                ),
            ),
        ),
        "compare_models": (
            Rule(
                ("metric", "pos_label"),
                lambda metric, pos_label: pos_label is not None and metric in _PAIRED_LABELS,
                lambda metric, pos_label: (
                    f"`pos_label` is for the binary metrics {list(_PAIRED_BINARY)}; "
                    f"{metric!r} counts every class alike: drop pos_label"
                ),
            ),
            Rule(
                ("ci",),
                lambda ci: ci is None,
                "`ci` is required: compare_models gives every difference an interval (e.g. 0.95)",
            ),
            Rule(
                ("metric", "ci_method", "ci_methods"),
                lambda metric, ci_method, ci_methods: (
                    ci_method is not None and ci_method not in ci_methods
                ),
                lambda metric, ci_method, ci_methods: (
                    f"`ci_method` of compare_models(metric={metric!r}) must be one of "
                    f"{list(ci_methods)}; got {ci_method!r}"
                ),
            ),
            Rule(
                ("y_true", "models", "model", "id"),
                lambda *columns: len(set(columns)) < len(columns),
                lambda y_true, models, model, id_: (
                    "`y_true`, `models`, `model` and `id` must be four different columns, got "
                    f"{ {'y_true': y_true, 'models': models, 'model': model, 'id': id_} }"
                ),
            ),
        ),
        "disparity": (
            Rule(
                ("metric",),
                lambda metric: not isinstance(metric, Mapping) and not _distinct_names(metric),
                lambda metric: (
                    f"`metric` must be a metric name or a list of distinct names, got {metric!r}"
                ),
            ),
            Rule(
                ("metric", "ci"),
                lambda metric, ci: isinstance(metric, Mapping) and ci is not None,
                "`ci` is not offered with custom metrics (each replicate would call "
                "them once per group): give ci=None",
            ),
        ),
        "summary": (
            Rule(
                ("multilabel", "replace_undefined_by"),
                lambda multilabel, undefined: multilabel and not math.isnan(undefined),
                "`replace_undefined_by` is for single-label rows (kappa); drop it",
            ),
            Rule(
                ("multilabel", "kappa_weights", "adjusted"),
                lambda multilabel, kappa_weights, adjusted: (
                    multilabel and (kappa_weights is not None or adjusted)
                ),
                lambda multilabel, kappa_weights, adjusted: (
                    f"`{'kappa_weights' if kappa_weights is not None else 'adjusted'}` is for "
                    "single-label rows; drop it for multilabel input"
                ),
            ),
        ),
        "hinge_loss": (
            Rule(
                ("y_score",),
                lambda y_score: isinstance(y_score, Mapping) and len(y_score) < 3,
                lambda y_score: (
                    f"`y_score` maps {len(y_score)} classes: the multiclass hinge loss needs "
                    "three or more; for two classes pass one column of decision scores "
                    "(the positive class's) and pos_label"
                ),
            ),
            Rule(
                ("y_score", "labels"),
                lambda y_score, labels: isinstance(y_score, str) and labels is not None,
                "`labels` is for {label: column} scores: a single column of decision "
                "scores is of `pos_label` against the rest",
            ),
        ),
        "decision_cost": (
            Rule(
                ("y_prob",),
                lambda y_prob: isinstance(y_prob, str),
                "`y_prob` of decision_cost is a mapping {label: column} (binary: expected_cost)",
                TypeError,
            ),
        ),
        "best_threshold": (
            Rule(
                ("where",),
                lambda where: where is not None and not isinstance(where, pl.Expr),
                lambda where: (
                    "`where` must be a polars expression such as pl.col('recall') >= 0.9, "
                    f"got {where!r}"
                ),
                TypeError,
            ),
        ),
        "over_time": (
            Rule(
                ("y_pred", "label_metrics"),
                lambda y_pred, label_metrics: y_pred is None and label_metrics,
                "`y_pred` is required for the label metrics (accuracy, f1_macro, ...)",
            ),
            Rule(
                ("y_score", "score_metrics"),
                lambda y_score, score_metrics: y_score is None and score_metrics,
                "`y_score` is required for the ranking and probability metrics (roc_auc, "
                "average_precision, ks, log_loss, brier_score, calibration_error) and the "
                "estimated ones (estimated_roc_auc, ...)",
            ),
            Rule(
                ("estimated", "reference"),
                lambda estimated, reference: not estimated and reference is not None,
                "`reference` fits the calibration map of the estimated metrics "
                f"({', '.join(_ESTIMATED[:2])}, ...): name one in `metrics`, or drop "
                "`reference`",
            ),
            Rule(
                ("estimated", "ci", "ci_method"),
                lambda estimated, ci, ci_method: (
                    bool(estimated) and ci is not None and ci_method is not None
                ),
                lambda estimated, ci, ci_method: (
                    f"ci_method={ci_method!r}: the estimated metrics ({', '.join(estimated)}) "
                    "have their own interval (the spread of the realized metric when each "
                    "label is drawn Bernoulli(p), as estimated_performance's); leave "
                    "ci_method=None"
                ),
            ),
            Rule(
                ("realized", "ci", "ci_method", "analytic", "free"),
                lambda realized, ci, ci_method, analytic, free: (
                    ci is not None and analytic is not None and not set(realized) <= analytic
                ),
                lambda realized, ci, ci_method, analytic, free: (
                    f"ci_method={ci_method!r} gives intervals for {sorted(analytic - free)} "
                    f"only; use ci_method='bootstrap' for {sorted(set(realized) - analytic)}"
                ),
            ),
        ),
        "expressions": (
            Rule(
                ("average", "labels"),
                lambda average, labels: average == "binary" and labels is not None,
                "`labels` selects the classes of the multiclass averages: pass "
                "average='micro', 'macro' or 'weighted' with it (average='binary' scores "
                "pos_label against the rest)",
            ),
        ),
        "metric_names": (
            Rule(
                ("family",),
                lambda family: family is not None and family not in catalogue.FAMILIES,
                lambda family: (
                    f"`family` must be None or one of {list(catalogue.FAMILIES)}; got {family!r}"
                ),
            ),
        ),
        "estimated_performance": (
            Rule(
                ("calibration", "reference", "y_true"),
                lambda calibration, reference, y_true: (
                    calibration is None and (reference is not None or y_true is not None)
                ),
                "calibration=None takes the scores as probabilities and reads no "
                "`reference` or `y_true`; drop them, or pass calibration='isotonic' to "
                "calibrate the scores on the reference rows",
            ),
            Rule(
                ("calibration", "reference", "y_true"),
                lambda calibration, reference, y_true: (
                    calibration is not None and (reference is None or y_true is None)
                ),
                "calibration='isotonic' fits the calibration map on labelled reference rows: "
                "pass `reference` (a frame, or a Boolean expression marking rows of this "
                "frame) and `y_true` (its label column); or calibration=None when the "
                "scores are probabilities already",
            ),
        ),
        # plot.threshold_metrics (``rates``: the thresholds frame's rate columns)
        "threshold_metrics": (
            Rule(
                ("metrics", "rates"),
                lambda metrics, rates: (
                    not metrics or any(m not in rates and not F_NAME.fullmatch(m) for m in metrics)
                ),
                lambda metrics, rates: (
                    "threshold_metrics: metrics must be rates of the thresholds frame "
                    f"({', '.join(rates)} or f<beta>), got {metrics!r}"
                ),
            ),
        ),
        "html_report": (
            Rule(
                ("y_pred", "y_score"),
                lambda y_pred, y_score: y_pred is None and y_score is None,
                "html_report needs `y_pred` (predicted labels) or `y_score` (scores), or both",
            ),
            Rule(
                ("y_true",),
                _not_column,
                lambda y_true: f"`y_true` must be a column name, got {y_true!r}",
                TypeError,
            ),
            Rule(  # after y_true's (reads it: runs once it is given)
                ("y_pred", "y_true"),
                lambda y_pred, y_true: _not_column(y_pred),
                lambda y_pred, y_true: f"`y_pred` must be a column name, got {y_pred!r}",
                TypeError,
            ),
            Rule(
                ("ci",),
                lambda ci: isinstance(ci, str) and ci != "auto",
                lambda ci: (
                    "`ci` must be a confidence level in (0, 1), None, or one of ['auto'], "
                    f"got {ci!r}"
                ),
            ),
            _unweighted_ci(
                "with `weight`, leave html_report's ci at its default 'auto' (no intervals) "
                "or drop `weight`"
            ),
            Rule(
                ("reference", "drift_columns"),
                lambda reference, drift_columns: reference is None and drift_columns is not None,
                "`drift_columns` needs `reference`: the rows the columns are compared with",
            ),
            Rule(
                ("index", "every"),
                lambda index, every: (index is None) != (every is None),
                lambda index, every: (
                    "`index` and `every` go together: the over-time section's windows of "
                    "`every` (a polars duration such as '1w') by the column `index`; got "
                    f"index={index!r}, every={every!r}"
                ),
            ),
            Rule(
                ("every", "drawn"),
                lambda every, drawn: every is not None and not drawn,
                "`index` / `every`: the over-time section draws the labels' metrics "
                "(`y_pred`) or a binary score's ROC AUC (`y_score` a column); class "
                "scores alone have none per window",
            ),
            Rule(
                ("title",),
                lambda title: not isinstance(title, str),
                lambda title: f"`title` must be a string, got {title!r}",
                TypeError,
            ),
            Rule(
                ("progress",),
                lambda progress: not isinstance(progress, bool),
                lambda progress: f"`progress` must be True or False, got {progress!r}",
                TypeError,
            ),
        ),
        # the stages' rules (arguments checked against what a stage has read)
        **stage_rules.RULES,
    }
)

#: The arguments that rules read and that are no option of the table (columns,
#: the interval options, the input's form): :func:`options.checked` passes them
#: through unchanged.
READ_ONLY = frozenset(
    (
        *("y_true", "y_pred", "y_score", "weight", "ci", "ci_method", "reference"),
        *("drift_columns", "index", "every", "drawn", "title", "progress", "metric", "analytic"),
        *("pos_label", "ci_methods", "models", "model", "id", "groups", "strata", "caller"),
        *("multilabel", "labels", "y_prob", "where", "estimated", "realized", "free"),
        *("label_metrics", "score_metrics", "family", "metrics", "rates", "by_names", "edges"),
    )
)


#: The keys of :data:`RULES` that are stages, not methods: their rules read values
#: the method has checked already, so :func:`options.checked` passes every one through.
STAGES = frozenset(stage_rules.RULES)


def rules_of(method: str) -> tuple[Rule, ...]:
    """The rules of ``method`` (none for most)."""
    return RULES.get(method, ())


__all__ = ["READ_ONLY", "RULES", "STAGES", "UNWEIGHTED_CI", "Rule", "rules_of"]
