"""The rules of ``check``: ``"<metric> <op> <number>"`` parsed (:func:`parse_rules`),
the metrics a rule may name, and the arguments each rule needs (:func:`check_needs`);
the rules' meaning: :mod:`pl_metrics._monitoring.check`.  Their checks are the front
door's, run at call time before any query: the grammar :func:`forms.rule_text` and
:func:`forms.rule_list`, what a rule needs the stage rule ``"check rule"``
(:mod:`pl_metrics._core.stage_rules`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pl_metrics._core import catalogue, forms, formulas
from pl_metrics._core.options import checked
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


def parse_rule(text: object) -> Rule:
    """``text`` as a :class:`Rule`; a ``ValueError`` naming it when it is malformed or
    names an unknown metric (the message lists the known ones): the grammar is the
    front door's (:func:`forms.rule_text`)."""
    parsed = forms.rule_text(
        text,
        metrics=METRICS,
        estimated=ESTIMATED,
        comparable=COMPARABLE,
        prefix=estimated_windows.PREFIX,
        drift=DRIFT,
    )
    return Rule(str(text), *parsed)


def parse_rules(rules: object) -> list[Rule]:
    """``rules`` (a rule or a non-empty list of distinct rules), parsed."""
    return forms.rule_list(rules, parse_rule)


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
            one_column=estimated_windows.ONE_COLUMN,
            class_scores=estimated_windows.AVERAGED,
            of_pos_label=estimated_windows.OF_POS_LABEL,
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
        drift = rule.column is not None
        checked("check rule", rule=rule.text, needs=needs, drift=drift, weight=x.weight)


__all__ = [
    "COMPARABLE",
    "DRIFT",
    "ESTIMATED",
    "METRICS",
    "RATES",
    "SCORED",
    "Columns",
    "Rule",
    "check_needs",
    "parse_rule",
    "parse_rules",
]
