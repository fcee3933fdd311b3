"""The rules of ``check``: ``"<metric> <op> <number>"`` parsed (:func:`parse_rules`),
the metrics a rule may name, and the arguments each rule needs (:func:`check_needs`);
the rules' grammar and meaning: :mod:`pl_metrics._monitoring.check`."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pl_metrics._core import catalogue, forms, formulas
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._groups import over_time
from pl_metrics._monitoring import estimated_windows

#: ``drift``'s metrics, each of a column: ``psi(income)``.
DRIFT = ("psi", "js_distance", "ks", "wasserstein")
#: The rates of the 2x2 counts that ``compare`` takes and ``over_time`` does not
#: (``false_positive_rate`` ...): one binary table, Wilson's interval.
RATES = tuple(
    name
    for name, m in groups_fairness.METRICS.items()
    if name not in over_time.METRICS and m.method == "binary" and name in formulas.PROPORTIONS
)
#: Every catalogue metric a rule may name, in the catalogue's order.
METRICS = tuple(name for name in catalogue.CATALOGUE if name in over_time.METRICS or name in RATES)
#: The metrics read from ``y_score`` (the others read ``y_pred``).
SCORED = frozenset(name for name in METRICS if catalogue.CATALOGUE[name].scores)
#: The estimated metrics a rule may name (``over_time``'s ``estimated_<m>``, and of
#: ``{label: column}`` scores ``estimated_<m>_<average>``).
ESTIMATED = estimated_windows.METRICS
#: The estimated metrics a ``reference`` rule compares with the same metric realized
#: on the reference rows (``estimated_<m>`` with ``<m>``): those whose realized metric
#: is one of :data:`METRICS` (``estimated_f1_macro``: ``f1_macro``; not
#: ``estimated_roc_auc_macro``: ``over_time``'s ROC AUC is binary).
COMPARABLE = frozenset(m for m in ESTIMATED if m.removeprefix(estimated_windows.PREFIX) in METRICS)
#: The metrics of one score column (binary: ``pos_label``'s), and of ``{label: column}``
#: scores (the averages over the classes): ``check_needs`` refuses the other form.
ONE_COLUMN = tuple(
    m
    for m in (*ESTIMATED, *SCORED)
    if m not in estimated_windows.AVERAGED and m != estimated_windows.ACCURACY
)

_RULE = re.compile(r"\s*(?P<left>.+?)\s*(?P<op>>=|<=|>|<)\s*(?P<right>.+?)\s*")
_LEFT = re.compile(r"(?P<name>[A-Za-z_]\w*)(?:\s*\((?P<column>.+)\))?")
_RIGHT = re.compile(r"reference(?:\s*(?P<sign>[+-])\s*(?P<margin>.+))?")


@dataclass(frozen=True)
class Rule:
    """One parsed rule."""

    text: str  # as given
    name: str  # the catalogue's metric, or drift's
    column: str | None  # drift's column (None: a catalogue metric)
    op: str
    threshold: float  # the number; of a reference rule, its signed margin
    relative: bool  # against the reference: the value is the difference

    @property
    def metric(self) -> str:
        """The output's ``metric``: ``roc_auc``, ``psi(income)``, ``roc_auc - reference``."""
        if self.column is not None:
            return f"{self.name}({self.column})"
        return f"{self.name} - reference" if self.relative else self.name

    @property
    def has_interval(self) -> bool:
        """Whether the rule's value gets an interval (else its point decides)."""
        return self.column is None and self.name not in over_time.WITHOUT_INTERVAL


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


def parse_rule(text: object) -> Rule:
    """``text`` as a :class:`Rule`; a ``ValueError`` naming it when it is malformed or
    names an unknown metric (the message lists the known ones)."""
    if not isinstance(text, str):
        msg = f"a rule must be a string such as 'roc_auc >= 0.8', got {text!r}"
        raise TypeError(msg)
    whole = _RULE.fullmatch(text)
    left = _LEFT.fullmatch(whole["left"]) if whole else None
    if whole is None or left is None:
        raise _malformed(text)
    name, column = left["name"], left["column"]
    if column is not None and name not in DRIFT:
        msg = (
            f"rule {text!r}: {name}(...) names a column, which only the drift metrics "
            f"{', '.join(f'{d}(column)' for d in DRIFT)} do; known metrics: {', '.join(METRICS)}"
        )
        raise ValueError(msg)
    if column is None and name not in METRICS and name not in ESTIMATED:
        msg = (
            f"rule {text!r}: unknown metric {name!r}; known metrics: {', '.join(METRICS)}, "
            f"the estimated ones {', '.join(ESTIMATED)}, and the drift metrics of a "
            f"column {', '.join(f'{d}(column)' for d in DRIFT)}"
        )
        raise ValueError(msg)
    right = _RIGHT.fullmatch(whole["right"])
    if right is None:
        return Rule(text, name, column, whole["op"], _number(whole["right"], text), False)
    if column is not None or (name in ESTIMATED and name not in COMPARABLE):
        msg = (
            f"rule {text!r}: a drift metric already compares with the reference; "
            f"give a number, e.g. '{name}({column}) < 0.2'"
            if column is not None
            else f"rule {text!r}: {name} has no realized metric on the reference rows to "
            f"compare with ({name.removeprefix(estimated_windows.PREFIX)} is no metric of "
            f"check's); give a number, e.g. '{name} >= 0.7'"
        )
        raise ValueError(msg)
    margin = 0.0 if right["margin"] is None else _number(right["margin"], text)
    signed = -margin if right["sign"] == "-" else margin
    return Rule(text, name, None, whole["op"], signed, True)


def parse_rules(rules: object) -> list[Rule]:
    """``rules`` (a rule or a non-empty list of distinct rules), parsed."""
    items = [rules] if isinstance(rules, str) else rules
    if not isinstance(items, Sequence) or not items:
        msg = (
            f"`rules` must be a rule or a non-empty list of rules such as "
            f"'roc_auc >= 0.8', got {rules!r}"
        )
        raise TypeError(msg)
    parsed = [parse_rule(item) for item in items]
    seen: set[str] = set()
    for rule in parsed:
        if rule.text in seen:
            msg = f"`rules` gives rule {rule.text!r} twice"
            raise ValueError(msg)
        seen.add(rule.text)
    return parsed


@dataclass(frozen=True)
class Columns:
    """The columns and options the rules read."""

    y_true: str | None
    y_pred: str | None
    y_score: str | Mapping[object, str] | None  # {label: column}: the estimated metrics
    weight: str | None
    pos_label: object


def check_needs(rules: list[Rule], x: Columns, reference: object) -> None:
    """Each rule's column arguments (and the reference) are given, ``y_score`` of the
    form its metric reads (:func:`forms.score_form`): else an error naming the argument
    and the rule."""
    for rule in rules:
        forms.score_form(
            [rule.name],
            x.y_score,
            one_column=ONE_COLUMN,
            class_scores=estimated_windows.AVERAGED,
            where=f"rule {rule.text!r}",
        )
        needs: dict[str, object] = {}
        if rule.name in ESTIMATED:  # the reference's labels, the current rows' outputs
            needs |= {"y_true": x.y_true, "y_pred": x.y_pred, "y_score": x.y_score}
        elif rule.column is None:
            needs["y_true"] = x.y_true
            scored = rule.name in SCORED
            needs["y_score" if scored else "y_pred"] = x.y_score if scored else x.y_pred
        if rule.column is not None or rule.relative or rule.name in ESTIMATED:
            needs["reference"] = reference
        for argument, given in needs.items():
            if given is None:
                msg = f"rule {rule.text!r} needs `{argument}`"
                raise ValueError(msg)
        if rule.column is not None and x.weight is not None:
            msg = (
                f"rule {rule.text!r} takes no `weight`: drift compares rows (drop `weight`, "
                "or check the drift rules in a call of their own)"
            )
            raise ValueError(msg)


__all__ = [
    "COMPARABLE",
    "DRIFT",
    "ESTIMATED",
    "METRICS",
    "ONE_COLUMN",
    "RATES",
    "SCORED",
    "Columns",
    "Rule",
    "check_needs",
    "parse_rule",
    "parse_rules",
]
