"""The forms of the arguments that are lists, mappings, durations or ``check``'s rule
texts, checked by the stage that reads them (a method's rules across arguments are
:mod:`pl_metrics._core.arguments`, each option's own check :mod:`pl_metrics._core.options`).

Each check raises the ``ValueError`` (a wrong value) or ``TypeError`` (a wrong
kind of value) that names the argument and what was given.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TypeVar

from pl_metrics._core import checks

#: A polars duration of one unit (``every``, ``period``): its count and unit.
_DURATION = re.compile(r"(\d+)(ns|us|ms|s|m|h|d|w|mo|q|y)")
#: A rule of ``check``: ``<left> <op> <right>``, the left a metric's name (with a
#: column: ``psi(income)``), the right a number or ``reference [+-] <number>``.
_RULE = re.compile(r"\s*(?P<left>.+?)\s*(?P<op>>=|<=|>|<)\s*(?P<right>.+?)\s*")
_LEFT = re.compile(r"(?P<name>[A-Za-z_]\w*)(?:\s*\((?P<column>.+)\))?")
_RIGHT = re.compile(r"reference(?:\s*(?P<sign>[+-])\s*(?P<margin>.+))?")

_T = TypeVar("_T")


def duration(argument: str, text: object) -> tuple[int, str]:
    """``text``: a positive polars duration of one unit (``"1d"``, ``"6h"``), as
    (count, unit)."""
    match = _DURATION.fullmatch(text) if isinstance(text, str) else None
    if match is None or int(match[1]) == 0:
        msg = (
            f"`{argument}` must be a positive polars duration of one unit such as '1h', "
            f"'1d', '7d', '1w', '1mo', '1q', '1y', got {text!r}"
        )
        raise ValueError(msg)
    return int(match[1]), match[2]


def _malformed(text: str) -> ValueError:
    return ValueError(
        f"rule {text!r} is not '<metric> <op> <number>' (op one of >=, >, <=, <), e.g. "
        "'roc_auc >= 0.8', 'psi(income) < 0.2' or 'roc_auc >= reference - 0.02'"
    )


def _number(text: str, rule: str) -> float:
    try:
        number = float(text)
    except ValueError:
        raise _malformed(rule) from None
    if not math.isfinite(number):
        raise _malformed(rule)
    return number


def rule_text(
    text: object,
    *,
    metrics: Sequence[str],
    estimated: Sequence[str],
    comparable: Collection[str],
    prefix: str,
    drift: Sequence[str],
) -> tuple[str, str | None, str, float, bool]:
    """One rule of ``check`` (``"roc_auc >= 0.8"``, ``"psi(income) < 0.2"``,
    ``"roc_auc >= reference - 0.02"``) as ``(name, column, op, threshold, relative)``
    (``column``: drift's; ``relative``: against the reference, ``threshold`` then the
    signed margin).  The names a rule may take: ``metrics`` (the catalogue's),
    ``estimated`` (``prefix`` + a metric; those of ``comparable`` also against the
    reference) and ``drift``'s, of a column; the error names the rule and them."""
    if not isinstance(text, str):
        msg = f"a rule must be a string such as 'roc_auc >= 0.8', got {text!r}"
        raise TypeError(msg)
    whole = _RULE.fullmatch(text)
    left = _LEFT.fullmatch(whole["left"]) if whole else None
    if whole is None or left is None:
        raise _malformed(text)
    name, column = left["name"], left["column"]
    if column is not None and name not in drift:
        msg = (
            f"rule {text!r}: {name}(...) names a column, which only the drift metrics "
            f"{', '.join(f'{d}(column)' for d in drift)} do; known metrics: {', '.join(metrics)}"
        )
        raise ValueError(msg)
    if column is None and name not in metrics and name not in estimated:
        msg = (
            f"rule {text!r}: unknown metric {name!r}; known metrics: {', '.join(metrics)}, "
            f"the estimated ones {', '.join(estimated)}, and the drift metrics of a "
            f"column {', '.join(f'{d}(column)' for d in drift)}"
        )
        raise ValueError(msg)
    right = _RIGHT.fullmatch(whole["right"])
    if right is None:
        return name, column, whole["op"], _number(whole["right"], text), False
    if column is not None or (name in estimated and name not in comparable):
        msg = (
            f"rule {text!r}: a drift metric already compares with the reference; "
            f"give a number, e.g. '{name}({column}) < 0.2'"
            if column is not None
            else f"rule {text!r}: {name} has no realized metric on the reference rows to "
            f"compare with ({name.removeprefix(prefix)} is no metric of "
            f"check's); give a number, e.g. '{name} >= 0.7'"
        )
        raise ValueError(msg)
    margin = 0.0 if right["margin"] is None else _number(right["margin"], text)
    return name, None, whole["op"], -margin if right["sign"] == "-" else margin, True


def rule_list(rules: object, parse: Callable[[object], _T]) -> list[_T]:
    """``check``'s ``rules`` (a rule or a non-empty list of distinct rules), each
    parsed by ``parse`` (which checks its text), in order."""
    items = [rules] if isinstance(rules, str) else rules
    if not isinstance(items, Sequence) or not items:
        msg = (
            f"`rules` must be a rule or a non-empty list of rules such as "
            f"'roc_auc >= 0.8', got {rules!r}"
        )
        raise TypeError(msg)
    parsed = [parse(item) for item in items]
    seen: set[object] = set()
    for text in items:  # each a string: parsed
        if text in seen:
            msg = f"`rules` gives rule {text!r} twice"
            raise ValueError(msg)
        seen.add(text)
    return parsed


def name_list(argument: str, given: object, allowed: Collection[str]) -> list[str]:
    """``given``: one name of ``allowed`` or a non-empty list of them, each once."""
    chosen = [given] if isinstance(given, str) else given
    if (
        not isinstance(chosen, Sequence)
        or not chosen
        or not all(isinstance(m, str) for m in chosen)
    ):
        msg = f"`{argument}` must be a metric name or a non-empty list of names, got {given!r}"
        raise TypeError(msg)
    for m in chosen:
        checks.check_choice(argument, m, allowed)
    if len(set(chosen)) != len(chosen):
        msg = f"`{argument}` names a metric twice: {list(chosen)!r}"
        raise ValueError(msg)
    return list(chosen)


def callables(argument: str, metrics: object) -> dict[str, Callable[..., object]]:
    """``metrics`` as ``{name: callable}`` (a non-empty mapping of text names that do
    not start with the internal prefix)."""
    if (
        not isinstance(metrics, Mapping)
        or not metrics
        or not all(isinstance(k, str) and k for k in metrics)
        or not all(callable(f) for f in metrics.values())
    ):
        msg = (
            f"`{argument}` must be a non-empty {{name: callable}} of scikit-learn-shaped "
            f"functions fn(y_true, y_pred), e.g. {{'mcc': matthews_corrcoef}}, got {metrics!r}"
        )
        raise TypeError(msg)
    internal = [k for k in metrics if k.startswith(checks.INTERNAL)]
    if internal:
        msg = f"`{argument}` names may not start with {checks.INTERNAL!r}: {internal}"
        raise ValueError(msg)
    return dict(metrics)


def indicator_map(argument: str, mapping: Mapping[object, str]) -> dict[object, str]:
    """A ``{label: indicator column}`` mapping: at least one label, no None label,
    every column a column name."""
    if len(mapping) == 0:
        msg = f"`{argument}` must map at least one label to an indicator column, got {{}}"
        raise ValueError(msg)
    if any(key is None for key in mapping):
        msg = f"`{argument}` must not have None as a label, got {dict(mapping)!r}"
        raise ValueError(msg)
    for column in mapping.values():
        checks.check_column_name(argument, column)
    return dict(mapping)


def multilabel_pair(y_true: object, y_pred: object) -> None:
    """Multilabel ``y_true`` and ``y_pred`` (None: absent) in one form: both List
    columns or both mappings; two mappings of the same labels."""
    pair = {"y_true": y_true} if y_pred is None else {"y_true": y_true, "y_pred": y_pred}
    mappings = {a: c for a, c in pair.items() if isinstance(c, Mapping)}
    if mappings and len(mappings) != len(pair):
        msg = (
            "`y_true` and `y_pred` must be given in the same multilabel form: both List "
            "columns or both mappings {label: indicator column}; got "
            f"y_true={y_true!r}, y_pred={y_pred!r}"
        )
        raise TypeError(msg)


def same_indicator_labels(maps: Mapping[str, Mapping[object, str]]) -> None:
    """``y_true``'s and ``y_pred``'s indicator mappings name the same labels."""
    if "y_pred" in maps and set(maps["y_true"]) != set(maps["y_pred"]):
        only_true = sorted(set(maps["y_true"]) - set(maps["y_pred"]), key=repr)
        only_pred = sorted(set(maps["y_pred"]) - set(maps["y_true"]), key=repr)
        msg = (
            "`y_true` and `y_pred` must map the same labels to indicator columns; "
            f"only in y_true: {only_true}, only in y_pred: {only_pred}"
        )
        raise ValueError(msg)


def labels_among_keys(labels: Sequence[object], keys: Sequence[object]) -> None:
    """``labels=`` of a ``{label: indicator column}`` ``y_true``: some of its keys."""
    known = set(keys)
    unknown = [x for x in labels if x not in known]
    if unknown:
        msg = (
            f"`labels` {unknown!r} are not labels of the `y_true` mapping "
            f"(its labels: {list(keys)!r}); pass some of its keys"
        )
        raise ValueError(msg)


def refuse_for_multilabel(**options: object) -> None:
    """Refuse the options that have no multilabel meaning (given as not None; a
    ``multi_class`` other than ``"ovr"``)."""
    for option, value in options.items():
        refused = value != "ovr" if option == "multi_class" else value is not None
        if refused:
            msg = (
                f"`{option}` is not available for multilabel y_true: every label is its own "
                "binary problem (positive = the label is in the row's set); drop it"
            )
            if option == "ci":
                msg += " (the intervals resample single-label rows)"
            raise ValueError(msg)


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
        checks.check_column_name("models", column)
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


def column_list(columns: object, *, argument: str = "columns") -> list[str]:
    """``columns`` (the argument ``argument``: drift's ``columns``, html_report's
    ``drift_columns``) as a list of distinct column names."""
    chosen = [columns] if isinstance(columns, str) else columns
    if (
        not isinstance(chosen, Sequence)
        or not chosen
        or not all(isinstance(c, str) for c in chosen)
        or len(set(chosen)) != len(chosen)
    ):
        msg = f"`{argument}` must be a column name or a list of distinct names, got {columns!r}"
        raise TypeError(msg)
    return list(chosen)


def segment_columns(by: object) -> list[str]:
    """A chart's ``by``: None, a column name or a list of distinct column names."""
    if by is None:
        return []
    names = [by] if isinstance(by, str) else list(by)  # type: ignore[call-overload]
    if not all(isinstance(name, str) for name in names):
        msg = f"`by` must be a column name or a list of column names, got {by!r}"
        raise TypeError(msg)
    if len(set(names)) != len(names):
        msg = f"`by` names a column twice: {names!r}"
        raise ValueError(msg)
    return names


def drift_edges(edges: object, numeric: Sequence[str]) -> dict[str, list[float]] | None:
    """drift_counts' ``edges``: None, or ``{column: ascending finite edges}`` for every
    column of ``numeric`` (the compared columns that are numeric) and no other."""
    if edges is None:
        return None
    if not isinstance(edges, Mapping):
        msg = (
            "`edges` must be None or a mapping {column: [edges]} of the numeric columns "
            f"(drift_edges(reference_state) reads them from a reference's counts), got {edges!r}"
        )
        raise TypeError(msg)
    missing, extra = [c for c in numeric if c not in edges], [c for c in edges if c not in numeric]
    if missing or extra:
        msg = (
            f"`edges` must name every numeric column of `columns` and no other: "
            f"missing {missing}, not numeric or not compared {extra}"
        )
        raise ValueError(msg)
    out = {}
    for column in numeric:
        values = [float(e) for e in edges[column]]
        if any(not math.isfinite(e) for e in values) or values != sorted(set(values)):
            msg = f"`edges` of {column!r} must be finite and strictly ascending, got {values!r}"
            raise ValueError(msg)
        out[column] = values
    return out


def score_form(
    given: Sequence[str],
    y_score: object,
    *,
    one_column: Collection[str],
    class_scores: Collection[str],
    of_pos_label: Mapping[str, str | None],
    where: str = "`metrics`",
) -> None:
    """over_time's and check's metrics against the form of ``y_score``: the metrics of
    ``one_column`` (``estimated_f1``, ``roc_auc``: the score of ``pos_label``) read one
    score column, those of ``class_scores`` (``estimated_f1_macro``: averages over the
    classes) ``{label: column}`` scores, which take no ``pos_label``, so none of the
    realized metrics of the class ``pos_label`` either (``of_pos_label``: each one's
    average over the classes, to ask for instead; ``where``: what names them, for the
    message; a metric in none of them reads either form, or no score)."""
    if y_score is None:
        return
    if isinstance(y_score, Mapping):
        off = [m for m in given if m in one_column]
        if off:
            example = next((m for m in off if f"{m}_macro" in class_scores), None)
            msg = (
                f"{where}: {off} read one score column (the score of pos_label: binary), "
                "but `y_score` is {label: column} scores, whose estimated metrics are the "
                "averages over the classes estimated_<metric>_micro / _macro / _weighted"
                + (f" ({example}_macro, ...)" if example else "")
                + " and estimated_accuracy"
            )
            raise ValueError(msg)
        off = [m for m in given if m in of_pos_label]
        if off:
            averages = list(dict.fromkeys(a for m in off if (a := of_pos_label[m]) is not None))
            alone = f"{off} in a call without `y_score`"
            msg = (
                f"{where}: {off} are of the class `pos_label` (binary), but `y_score` is "
                "{label: column} scores, which take no `pos_label`: ask for "
                + (
                    f"their averages over the classes {averages} (or _micro / _weighted), "
                    f"or for {alone}"
                    if averages
                    else alone
                )
            )
            raise ValueError(msg)
    else:
        off = [m for m in given if m in class_scores]
        if off:
            binary = [m.rsplit("_", 1)[0] for m in off]
            msg = (
                f"{where}: {off} are averages over the classes of {{label: column}} scores, "
                f"but `y_score` is one score column ({y_score!r}, binary): ask for "
                f"{list(dict.fromkeys(binary))}, or pass `y_score` as {{label: column}}"
            )
            raise ValueError(msg)


__all__ = [
    "callables",
    "column_list",
    "drift_edges",
    "duration",
    "indicator_map",
    "is_stacked",
    "labels_among_keys",
    "model_columns",
    "multilabel_pair",
    "name_list",
    "refuse_for_multilabel",
    "rule_list",
    "rule_text",
    "same_indicator_labels",
    "score_form",
    "segment_columns",
]
