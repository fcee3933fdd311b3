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
- the forms of list and mapping arguments (:func:`name_list`, :func:`column_list`,
  :func:`indicator_keys` ...), called by the stage that reads them.

Every error names the argument and what was given, as a ``ValueError`` or a
``TypeError`` (a wrong kind of value); ``tests/test_front_door.py`` counts the
``raise`` statements left outside the front door (this module,
:mod:`~pl_metrics._core.options`, :mod:`~pl_metrics._core.checks` and
:mod:`~pl_metrics._core.table_options`), each with its reason.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import get_args

import polars as pl

from pl_metrics._core import catalogue as cat
from pl_metrics._core import checks as v
from pl_metrics._typing import EstimatedMetric

#: compare_models' metrics by kind (the catalogue's, as ``_groups.paired`` reads them)
_PAIRED_LABELS = cat.names_of("summary", paired=True)
#: over_time's estimated metrics (``_monitoring.estimated_windows.METRICS``)
_ESTIMATED = tuple(f"estimated_{m}" for m in get_args(EstimatedMetric))
_PAIRED_BINARY = (*cat.names_of("binary", paired=True), *cat.names_of("ranking", paired=True))


@dataclass(frozen=True)
class Rule:
    """A rule on arguments ``reads`` of a method: ``breaks`` (called with their values,
    in that order) says whether a call breaks it, ``message`` (a text, or called like
    ``breaks``) says why, naming them; ``error``: ``ValueError``, or ``TypeError`` for a wrong
    kind of value."""

    reads: tuple[str, ...]
    breaks: Callable[..., bool]
    message: str | Callable[..., str]
    error: type[ValueError] | type[TypeError] = ValueError

    def check(self, values: Mapping[str, object]) -> None:
        """Raise when ``values`` (holding every argument the rule reads) break it."""
        given = [values[name] for name in self.reads]
        if self.breaks(*given):
            msg = self.message if isinstance(self.message, str) else self.message(*given)
            raise self.error(msg)


def _not_column(value: object) -> bool:
    return value is not None and not isinstance(value, str)


def _distinct_names(metric: object) -> bool:
    """``metric``: a name, or a non-empty list of distinct names."""
    names = [metric] if isinstance(metric, str) else list(metric)  # type: ignore[call-overload]
    return bool(names) and len(set(names)) == len(names)


def _ci_with_weight(ci: object, weight: object) -> bool:
    return ci is not None and not isinstance(ci, str) and weight is not None


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
        # the groups of the fairness methods (``caller``: the method's name)
        "fairness groups": (
            Rule(
                ("groups", "caller"),
                lambda groups, caller: not groups,
                lambda groups, caller: (
                    f"`by` is required: {caller} needs the groups (sensitive features) to compare"
                ),
            ),
            Rule(
                ("groups", "strata"),
                lambda groups, strata: bool(set(groups.names) & set(strata.names)),
                lambda groups, strata: (
                    f"`by` and `control` share the column(s) "
                    f"{sorted(set(groups.names) & set(strata.names))}: a column is one or the other"
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
        "multilabel input": (
            Rule(
                ("ci", "ci_method", "caller"),
                lambda ci, ci_method, caller: ci is not None and ci_method != "bootstrap",
                lambda ci, ci_method, caller: (
                    f"`ci_method={ci_method!r}` is not available for multilabel input in "
                    f"{caller}: its intervals resample whole rows (a row's labels go "
                    "together); use ci_method='bootstrap'"
                ),
            ),
            Rule(
                ("y_true", "y_pred", "multilabel"),
                lambda y_true, y_pred, multilabel: not multilabel and isinstance(y_pred, Mapping),
                lambda y_true, y_pred, multilabel: (
                    f"`y_pred` is a mapping but `y_true` {y_true!r} is a single-label column; "
                    "give both as {label: indicator column} (multilabel) or both as columns"
                ),
                TypeError,
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
        "html_report": (
            Rule(
                ("y_pred", "y_score"),
                lambda y_pred, y_score: y_pred is None and y_score is None,
                "html_report needs `y_pred` (predicted labels) or `y_score` (scores), or both",
            ),
            *(
                Rule(
                    (name,),
                    _not_column,
                    lambda value, n=name: f"`{n}` must be a column name, got {value!r}",
                    TypeError,
                )
                for name in ("y_true", "y_pred")
            ),
            Rule(
                ("ci",),
                lambda ci: isinstance(ci, str) and ci != "auto",
                lambda ci: (
                    "`ci` must be a confidence level in (0, 1), None, or one of ['auto'], "
                    f"got {ci!r}"
                ),
            ),
            Rule(
                ("ci", "weight"),
                _ci_with_weight,
                "html_report: intervals (`ci`) need un-weighted rows (the bootstrap "
                "resamples rows); with `weight`, leave ci at its default 'auto' (no "
                "intervals) or drop `weight`",
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
    }
)

#: The arguments that rules read and that are no option of the table (columns,
#: the interval options, the input's form): :func:`options.checked` passes them
#: through unchanged.
READ_ONLY = frozenset(
    {
        "y_true",
        "y_pred",
        "y_score",
        "weight",
        "ci",
        "ci_method",
        "reference",
        "drift_columns",
        "index",
        "every",
        "drawn",
        "title",
        "progress",
        "metric",
        "analytic",
        "pos_label",
        "ci_methods",
        "models",
        "model",
        "id",
        "groups",
        "strata",
        "caller",
        "multilabel",
        "labels",
        "y_prob",
        "where",
        "estimated",
        "realized",
        "free",
    }
)


# ------------------------------------------------------------ the forms of arguments
def model_columns(models: object) -> list[tuple[str, str]]:
    """``compare_models(models=)`` side by side as ``(name, column)`` pairs, the
    baseline first: a mapping ``{name: column}`` or a list of columns."""
    if isinstance(models, Mapping):
        items = list(models.items())
    elif isinstance(models, Sequence) and not isinstance(models, str):
        items = [(column, column) for column in models]
    else:
        msg = (
            "`models` must be a mapping {name: column} or a list of columns (the first is "
            f"the baseline), got {models!r}"
        )
        raise TypeError(msg)
    if len(items) < 2:
        msg = (
            "`models` needs at least two models, the baseline first and the models compared "
            f"with it, got {models!r}"
        )
        raise ValueError(msg)
    for name, column in items:
        if not isinstance(name, str):
            msg = f"`models` names must be strings, got {name!r}"
            raise TypeError(msg)
        v.check_column_name("models", column)
    given = [name for name, _ in items]
    repeated = sorted({name for name in given if given.count(name) > 1})
    if repeated:
        msg = f"`models` names a model more than once: {repeated!r}; give each model one name"
        raise ValueError(msg)
    return items


def is_stacked(models: object, model: object, id_: object, baseline: object) -> bool:
    """Whether ``compare_models`` reads stacked rows (``models`` one column, with
    ``model=`` and ``id=``); the single-column call without them says how."""
    if not isinstance(models, str):
        if model is not None or id_ is not None or baseline is not None:
            msg = (
                "`model`, `id` and `baseline` are for models stacked in rows (one row per id "
                "and model): `models` then names the one column of their predictions, got "
                f"{models!r}; with models side by side in columns, the first is the baseline"
            )
            raise ValueError(msg)
        return False
    if model is None or id_ is None:
        msg = (
            f"`models` is one column ({models!r}): for models stacked in rows (one row per "
            "id and model) name the column of the model and the column pairing the rows, "
            f"compare_models(y_true, {models!r}, model='model', id='id'); for models side by "
            "side pass a list of their columns (the first is the baseline) or a mapping "
            "{name: column} (pl-metrics: --model-column COLUMN --id COLUMN, or --model "
            "once per model)"
        )
        if model is None and id_ is None:
            raise TypeError(msg)  # today's call: `models` a mapping or a list
        missing, given = ("id", f"model={model!r}") if id_ is None else ("model", f"id={id_!r}")
        msg = f"`{missing}` is missing: {given} is given, and stacked rows need both. {msg}"
        raise ValueError(msg)
    return True


def rules_of(method: str) -> tuple[Rule, ...]:
    """The rules of ``method`` (none for most)."""
    return RULES.get(method, ())


__all__ = ["READ_ONLY", "RULES", "Rule", "is_stacked", "model_columns", "rules_of"]
