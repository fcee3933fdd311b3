"""The rules of the stages: arguments checked against what a stage has read (the
schema, the input's form, values a method has checked already), declared as
:class:`~pl_metrics._core.rule.Rule` records under the stage's name.

:func:`pl_metrics._core.options.checked` runs a stage's rules as it runs a method's
(:data:`pl_metrics._core.arguments.RULES` holds both): the stage calls
``checked("<stage>", name=value, ...)`` where the check belongs in the order of
:mod:`pl_metrics._core.inputs`, and every value comes back as given.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import polars as pl

from pl_metrics._core.rule import Rule


def _expression_column_message(column: object) -> str:
    msg = (
        "an expression's column arguments are column names or polars expressions, got "
        f"{type(column).__name__} {' '.join(repr(column).split())[:80]}"
    )
    if isinstance(column, Mapping):
        msg += (
            ": the expressions take one column of scores or probabilities (binary); a "
            "mapping of labels to probability columns is the frame methods', e.g. "
            "df.metrics.log_loss('y', {0: 'p0', 1: 'p1'})"
        )
    return msg


def _frame_message(frame: object) -> str:
    kind = type(frame)
    msg = (
        "`frame` must be a polars DataFrame or LazyFrame, "
        f"got {kind.__module__}.{kind.__qualname__}"
    )
    if kind.__module__.split(".")[0] == "pandas":
        msg += "; convert it first: plm.metrics(pl.from_pandas(frame))"
    return msg


#: Per stage, its rules, in the order they are checked (a rule runs as soon as
#: :func:`options.checked` has every argument it reads).
RULES: Mapping[str, tuple[Rule, ...]] = MappingProxyType(
    {
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
        # the {label: column} scores of the ranking methods (their options checked)
        "class scores": (
            Rule(
                ("max_fpr",),
                lambda max_fpr: max_fpr is not None,
                "`max_fpr` (partial AUC) is for binary scores, as in scikit-learn: with "
                "{label: column} scores, drop it, or pass one class's score column with "
                "its pos_label",
            ),
            Rule(
                ("ci", "multi_class", "average"),
                lambda ci, multi_class, average: (
                    ci is not None and (multi_class != "ovr" or average == "micro")
                ),
                lambda ci, multi_class, average: (
                    "`ci` with {label: column} scores is the interval of one-vs-rest ROC AUCs "
                    "(multi_class='ovr', average None, 'macro' or 'weighted'; DeLong's, or "
                    f"ci_method='bootstrap' or 'poisson'); not with multi_class={multi_class!r}, "
                    f"average={average!r}"
                ),
            ),
            Rule(
                ("bins",),
                lambda bins: bins is not None,
                "`bins` is for binary scores (a column name as `y_score`)",
            ),
            Rule(
                ("multi_class", "weight"),
                lambda multi_class, weight: multi_class == "ovo" and weight is not None,
                "`weight` is not supported with multi_class='ovo' (as in scikit-learn)",
            ),
            Rule(
                ("multi_class", "average"),
                lambda multi_class, average: (
                    multi_class == "ovo" and average not in ("macro", "weighted")
                ),
                lambda multi_class, average: (
                    f"`average={average!r}` is for multi_class='ovr' (one-vs-rest); with "
                    "multi_class='ovo' use 'macro' or 'weighted', as scikit-learn"
                ),
            ),
        ),
        # the ranking methods' options of multilabel y_true, given single-label rows
        "single-label ranking": (
            Rule(
                ("labels",),
                lambda labels: labels is not None,
                "`labels` is for multilabel y_true (a List column of label sets or "
                "{label: indicator column}) with a List column of scores; drop it",
            ),
            Rule(
                ("average",),
                lambda average: average == "samples",
                "`average='samples'` is for multilabel y_true (a List column of label sets or "
                "{label: indicator column}): the mean over the rows of each row's score; with "
                "a single label column use 'macro', 'weighted', 'micro' or None",
            ),
        ),
        # the multilabel ranking rows (dcg, coverage ...): scores and relevances
        "multilabel scores": (
            Rule(
                ("y_true",),
                lambda y_true: not isinstance(y_true, (str, Mapping)),
                lambda y_true: (
                    "`y_true` must be a List column of label sets or a mapping {label: "
                    f"indicator column}} for multilabel scores, got {y_true!r}"
                ),
                TypeError,
            ),
            Rule(
                ("y_score", "labels"),
                lambda y_score, labels: not isinstance(y_score, Mapping) and labels is None,
                lambda y_score, labels: (
                    f"`labels` is required with a List column of scores (`y_score`={y_score!r}): "
                    "the labels its positions stand for, in order, e.g. labels=['cat', 'dog']; "
                    "or pass a mapping {label: score column}"
                ),
            ),
            Rule(
                ("labels", "at_least"),
                lambda labels, at_least: len(labels) < at_least,
                lambda labels, at_least: (
                    f"`labels` must hold at least {'one label' if at_least == 1 else 'two labels'}"
                    f", got {labels!r}"
                ),
            ),
        ),
        "graded relevances": (
            Rule(
                ("y_true", "labels"),
                lambda y_true, labels: not isinstance(y_true, Mapping) and labels is None,
                lambda y_true, labels: (
                    "`labels` is required with a List column of relevances "
                    f"(`y_true`={y_true!r}): the labels its positions stand for, in order, "
                    "e.g. labels=['cat', 'dog']; or pass a mapping {label: relevance column}"
                ),
            ),
        ),
        # a one-hot y_true ({label: indicator column}) with its probabilities
        "one-hot y_true": (
            Rule(
                ("scores", "argument"),
                lambda scores, argument: not isinstance(scores, Mapping),
                lambda scores, argument: (
                    "a one-hot `y_true` ({label: indicator column}) needs "
                    f"`{argument}` as {{label: column}} of the same labels, got {scores!r}"
                ),
                TypeError,
            ),
            Rule(
                ("truth", "scores", "argument"),
                lambda truth, scores, argument: set(truth) != set(scores),
                lambda truth, scores, argument: (
                    f"a one-hot `y_true` and `{argument}` must map the same labels; only in "
                    f"y_true: {sorted(set(truth) - set(scores), key=repr)}, only in "
                    f"{argument}: {sorted(set(scores) - set(truth), key=repr)}"
                ),
            ),
        ),
        "indicator labels": (
            Rule(
                ("argument", "keys", "series"),
                lambda argument, keys, series: (
                    series is None
                    or not (series.dtype.is_integer() or series.dtype in (pl.String, pl.Boolean))
                ),
                lambda argument, keys, series: (
                    f"the labels of `{argument}` must be all strings or all integers (one "
                    f"dtype), got {keys!r}"
                ),
            ),
        ),
        # over_time's windows: ``every`` and ``period`` parsed (``exact``: a whole
        # number of buckets of one kind of unit)
        "windows": (
            Rule(
                ("every", "period", "exact"),
                lambda every, period, exact: not exact,
                lambda every, period, exact: (
                    f"`period` ({period!r}) must be a whole number of `every` ({every!r}) "
                    "buckets, in the same kind of unit (hours and less, days and weeks, or "
                    "months, quarters and years): a window is the sum of its buckets' states"
                ),
            ),
        ),
        "expression column": (
            Rule(
                ("column",),
                lambda column: not isinstance(column, (str, pl.Expr)),
                _expression_column_message,
                TypeError,
            ),
        ),
        "plm.metrics": (
            Rule(
                ("frame",),
                lambda frame: not isinstance(frame, (pl.DataFrame, pl.LazyFrame)),
                _frame_message,
                TypeError,
            ),
        ),
        # the binary options refused with {label: column} scores (estimated_performance)
        "estimated class scores": (
            Rule(
                ("pos_label",),
                lambda pos_label: pos_label is not None,
                "`pos_label` is for binary scores (a column name as `y_score`), not for "
                "{label: column} scores: drop it",
            ),
        ),
        # the fairness methods' `reference` group (``by_names``: the `by` columns' names)
        "fairness reference": (
            Rule(
                ("reference", "by_names"),
                lambda reference, by_names: (
                    isinstance(reference, dict) and sorted(map(str, reference)) != sorted(by_names)
                ),
                lambda reference, by_names: (
                    f"`reference` must name every `by` column {by_names}, got {list(reference)}"
                ),
            ),
            Rule(
                ("reference", "by_names"),
                lambda reference, by_names: (
                    not isinstance(reference, dict)
                    and (len(reference) if isinstance(reference, tuple) else 1) != len(by_names)
                ),
                lambda reference, by_names: (
                    f"`reference` must be 'largest' or a key of {len(by_names)} value(s) for "
                    f"the `by` columns {by_names}, got {reference!r}"
                ),
            ),
        ),
        # drift_counts on shards (Spark, Dask)
        "drift shards": (
            Rule(
                ("edges",),
                lambda edges: edges is None,
                "`edges` is required on shards (each shard's own quantiles would bin it "
                "differently): count the reference rows first, then pass "
                "edges=pl_metrics.drift_edges(reference_state)",
            ),
        ),
        # the multilabel ranking rows: two arguments' labels, each as a list in the
        # labels' dtype (``keys``: the `y_score` mapping's; ``truth``: the `y_true`
        # mapping's, ``scored``: the labels scored)
        "scored labels": (
            Rule(
                ("labels", "keys"),
                lambda labels, keys: set(labels) != set(keys),
                lambda labels, keys: (
                    f"`labels` {labels!r} must be the labels of the `y_score` "
                    f"mapping {keys!r} (in the order wanted), or None"
                ),
            ),
            Rule(
                ("truth", "scored"),
                lambda truth, scored: set(truth) != set(scored),
                lambda truth, scored: (
                    f"`y_true` maps the labels {truth!r} and `y_score` scores "
                    f"{scored!r}: give both the same labels"
                ),
            ),
        ),
        # over_time's bucket index (``dtype``: the `index` column's)
        "window index": (
            Rule(
                ("every", "unit", "index", "dtype"),
                lambda every, unit, index, dtype: dtype == pl.Date and unit == "ns",
                lambda every, unit, index, dtype: (
                    f"`every` {every!r} is shorter than a day but column {index!r} holds dates"
                ),
            ),
        ),
        # best_threshold's `where` (``dtype``: its dtype on the thresholds table)
        "where on the table": (
            Rule(
                ("where", "dtype"),
                lambda where, dtype: dtype != pl.Boolean,
                lambda where, dtype: (
                    "`where` must be a Boolean condition such as pl.col('recall') >= 0.9, "
                    f"got {dtype}"
                ),
                TypeError,
            ),
        ),
        # plot.over_time's `dash` (``by_names``: the chart's `by` columns, checked)
        "chart dash": (
            Rule(
                ("dash", "by_names"),
                lambda dash, by_names: dash is not None and dash not in by_names,
                lambda dash, by_names: (
                    f"over_time: `dash` ({dash!r}) must be one of the `by` columns {by_names}"
                ),
            ),
        ),
        # check's rules, one at a time (``needs``: the arguments the rule reads, as
        # given; ``drift``: a drift rule, of a column)
        "check rule": (
            Rule(
                ("rule", "needs"),
                lambda rule, needs: any(given is None for given in needs.values()),
                lambda rule, needs: (
                    f"rule {rule!r} needs `{next(a for a, g in needs.items() if g is None)}`"
                ),
            ),
            Rule(
                ("rule", "drift", "weight"),
                lambda rule, drift, weight: drift and weight is not None,
                lambda rule, drift, weight: (
                    f"rule {rule!r} takes no `weight`: drift compares rows (drop `weight`, "
                    "or check the drift rules in a call of their own)"
                ),
            ),
        ),
    }
)


__all__ = ["RULES"]
