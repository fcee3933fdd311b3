"""Quality gates: rules such as ``roc_auc >= 0.8`` decided per segment, with intervals.

A rule is ``"<metric> <op> <number>"`` (``op`` one of ``>=``, ``>``, ``<=``, ``<``):

- a metric of the catalogue (:data:`METRICS`: every name ``over_time`` takes, and
  the rates of the 2x2 counts that ``compare`` takes), computed on the current rows
  per segment: ``over_time``'s metrics by ``over_time`` itself, the rows of each
  segment taken as one window (its families' queries over all segments, its
  intervals: DeLong's, the logit interval, the delta method), the other rates from
  one table of binary counts with Wilson's interval;
- a drift metric of a column, ``psi(income)`` (:data:`DRIFT`), by ``drift`` against
  the reference rows (one sample, as ``drift`` takes it), no interval;
- an estimated metric, ``estimated_roc_auc`` (:data:`ESTIMATED`: ``over_time``'s
  names for ``estimated_performance``'s metrics), estimated from the current rows'
  scores alone (no labels needed there), calibrated on the reference rows (isotonic,
  ``estimated_performance``'s default), with its interval;
- ``"<metric> <op> reference [+-] <number>"``: the difference of the segment's
  metric and the same segment's metric on the reference rows, with the interval of
  a difference of two independent estimates from their own intervals (MOVER,
  :func:`difference_bounds`); for an estimated metric, the same metric realized on
  the reference rows (their labels): ``estimated_roc_auc >= reference - 0.05``.

Each rule is decided per segment from its interval (:func:`status`): ``pass`` when
the whole interval satisfies it, ``fail`` when none of it does, ``inconclusive``
otherwise and where the value or a bound is undefined.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from pl_metrics._core import catalogue as cat
from pl_metrics._core import checks as v
from pl_metrics._core import formulas as fm
from pl_metrics._core import names
from pl_metrics._core.names import INTERNAL
from pl_metrics._groups import fairness as fair
from pl_metrics._groups import over_time as ot
from pl_metrics._intervals import analytic as an
from pl_metrics._monitoring import estimated_windows as ew

if TYPE_CHECKING:
    from pl_metrics._typing import OverTimeAnyMetric

#: The output columns after ``*by`` (``low`` / ``high`` only with ``ci``).
RULE, METRIC, VALUE, LOW, HIGH, THRESHOLD, STATUS = names.OUTPUTS["check"]
STATUSES = ("pass", "fail", "inconclusive")
OPERATORS = (">=", ">", "<=", "<")
#: ``drift``'s metrics, each of a column: ``psi(income)``.
DRIFT = ("psi", "js_distance", "ks", "wasserstein")
#: The rates of the 2x2 counts that ``compare`` takes and ``over_time`` does not
#: (``false_positive_rate`` ...): one binary table, Wilson's interval.
RATES = tuple(
    name
    for name, m in fair.METRICS.items()
    if name not in ot.METRICS and m.method == "binary" and name in fm.PROPORTIONS
)
#: Every catalogue metric a rule may name, in the catalogue's order.
METRICS = tuple(name for name in cat.CATALOGUE if name in ot.METRICS or name in RATES)
#: The metrics read from ``y_score`` (the others read ``y_pred``).
SCORED = frozenset(name for name in METRICS if cat.CATALOGUE[name].scores)
#: The estimated metrics a rule may name (``over_time``'s ``estimated_<m>``).
ESTIMATED = ew.METRICS

_NAME = f"{INTERNAL}check_metric"  # the rule's metric column while values are joined
_ORDER = f"{INTERNAL}check_order"
_OP = f"{INTERNAL}check_op"
_INTERVAL = f"{INTERNAL}check_interval"
_OK = f"{INTERNAL}check_defined"  # a binary metric's denominator is not 0
_NULLS = f"{INTERNAL}check_reference_nulls"
_REFERENCE = f"{INTERNAL}check_reference"

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
        return self.column is None and self.name not in ot.WITHOUT_INTERVAL


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
    if column is not None:
        msg = (
            f"rule {text!r}: a drift metric already compares with the reference; "
            f"give a number, e.g. '{name}({column}) < 0.2'"
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
    y_score: str | None
    weight: str | None
    pos_label: object


def check_needs(rules: list[Rule], x: Columns, reference: object) -> None:
    """Each rule's column arguments (and the reference) are given: else an error
    naming the argument and the rule."""
    for rule in rules:
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


def difference_bounds(
    current: tuple[pl.Expr, pl.Expr, pl.Expr], reference: tuple[pl.Expr, pl.Expr, pl.Expr]
) -> tuple[pl.Expr, pl.Expr]:
    """The interval of ``value - reference``, two independent estimates given as
    ``(value, low, high)`` each, from their own intervals: the method of variance
    estimates recovery (MOVER; Zou & Donner 2008, Statistics in Medicine 27:
    1693-1702; Newcombe's 1998 interval of a difference of proportions when both
    are Wilson's):
    ``d - sqrt((value - low)^2 + (reference_high - reference)^2)`` and
    ``d + sqrt((high - value)^2 + (reference - reference_low)^2)``.  For two
    symmetric intervals ``x -+ z se`` (DeLong's, the delta method's) it is the
    two-sample interval ``d -+ z sqrt(se^2 + se_ref^2)``; for asymmetric ones it keeps
    each side's own spread.  Null where a bound is."""
    (value, low, high), (reference_value, reference_low, reference_high) = current, reference
    d = value - reference_value
    below = ((value - low) ** 2 + (reference_high - reference_value) ** 2).sqrt()
    above = ((high - value) ** 2 + (reference_value - reference_low) ** 2).sqrt()
    return d - below, d + above


def status(value: pl.Expr, low: pl.Expr, high: pl.Expr, op: pl.Expr, threshold: pl.Expr) -> pl.Expr:
    """``pass`` when every point of ``[low, high]`` satisfies ``<op> threshold``, ``fail``
    when none does, else ``inconclusive`` (an undefined value or bound: null, NaN).
    The point decides where ``low`` and ``high`` are ``value`` itself."""
    lo, hi = low.fill_nan(None), high.fill_nan(None)
    defined = value.fill_nan(None).is_not_null()
    passed = (
        pl.when(op == ">=")
        .then(lo >= threshold)
        .when(op == ">")
        .then(lo > threshold)
        .when(op == "<=")
        .then(hi <= threshold)
        .otherwise(hi < threshold)
    )
    failed = (
        pl.when(op == ">=")
        .then(hi < threshold)
        .when(op == ">")
        .then(hi <= threshold)
        .when(op == "<=")
        .then(lo > threshold)
        .otherwise(lo >= threshold)
    )
    return (
        pl.when(defined & passed)
        .then(pl.lit("pass"))
        .when(defined & failed)
        .then(pl.lit("fail"))
        .otherwise(pl.lit("inconclusive"))
    )


def _metrics(lf: pl.LazyFrame) -> Any:
    """``lf.metrics``: the namespace that importing pl_metrics registers (not imported
    here: it is a layer above, and imports this module)."""
    return lf.metrics  # type: ignore[attr-defined]


def _long(frame: pl.LazyFrame, keys: list[str], metric: str, column: str) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high`` of one metric column of a wide frame
    (``<column>_low`` / ``_high`` where the frame has them, else null)."""
    schema = frame.collect_schema().names()
    bounds = [
        pl.col(b).cast(pl.Float64) if b in schema else pl.lit(None, pl.Float64)
        for b in names.interval_columns([column])
    ]
    return frame.select(
        *keys,
        pl.lit(metric).alias(_NAME),
        pl.col(column).cast(pl.Float64).alias(VALUE),
        bounds[0].alias(LOW),
        bounds[1].alias(HIGH),
    )


def metric_values(
    rows: pl.LazyFrame,
    metrics: list[str],
    keys: list[str],
    x: Columns,
    ci: float | None,
    *,
    calibration: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high``: each catalogue metric of ``rows`` per
    segment (``keys``), in as few queries as its families take.

    ``over_time``'s metrics come from ``over_time`` with every row in one day (one
    window per segment: its families' one query each over all segments, its
    intervals); the other rates from one table of binary counts, Wilson's interval.
    A binary metric whose denominator is 0 in a segment (the false positive rate of
    a segment without negatives: ``over_time`` and scikit-learn say 0.0) is NaN,
    its bounds null: undefined, so its rules are inconclusive, never a pass.
    The estimated metrics: ``over_time`` too, in a call of their own (their rows need
    no label), calibrated on the ``calibration`` rows.
    """
    parts = []
    estimated = [m for m in metrics if m in ESTIMATED]
    if estimated:
        assert x.y_true is not None  # check_needs
        parts.append(_one_window(rows, estimated, keys, x, ci, reference=calibration))
    windowed = [m for m in metrics if m in ot.METRICS]
    binary = [m for m in metrics if m in RATES or m in ot.POSITIVE]
    wide = None
    if binary:
        assert x.y_true is not None  # check_needs
        assert x.y_pred is not None
        counts, pos = fair.binary_confusion(
            rows,
            x.y_true,
            x.y_pred,
            by=keys or None,
            pos_label=x.pos_label,
            weight=x.weight,
            reserved=(),
        )
        table = fair.binary_table(counts, pos, "check", x.y_true, x.y_pred)
        c = {k: pl.col(k) for k in ("tp", "fp", "fn", "tn")}
        # zero_division NaN: NaN exactly where the metric is undefined
        exprs = [fm.binary_metric(m, c, float("nan")).alias(m) for m in binary]
        for m in (m for m in binary if m in RATES and ci is not None):
            low, high = an.proportion_bounds(m, ci)
            exprs += [low.alias(f"{m}_low"), high.alias(f"{m}_high")]
        wide = counts.finish(table.select(*counts.keys, *exprs)).cache()
    if windowed:
        values = _one_window(rows, windowed, keys, x, ci)
        positive = [m for m in windowed if m in ot.POSITIVE]
        if positive:
            assert wide is not None
            defined = pl.concat(
                [
                    wide.select(*keys, pl.lit(m).alias(_NAME), pl.col(m).is_not_nan().alias(_OK))
                    for m in positive
                ]
            )
            ok = pl.col(_OK).fill_null(True)
            values = values.join(defined, on=[*keys, _NAME], how="left", nulls_equal=True).select(
                *keys,
                _NAME,
                pl.when(ok).then(pl.col(VALUE)).otherwise(float("nan")).alias(VALUE),
                pl.when(ok).then(pl.col(LOW)).alias(LOW),
                pl.when(ok).then(pl.col(HIGH)).alias(HIGH),
            )
        parts.append(values)
    rates = [m for m in binary if m in RATES]
    if rates:
        assert wide is not None
        parts += [_long(wide, keys, m, m) for m in rates]
    return pl.concat(parts, how="vertical_relaxed")


def _one_window(
    rows: pl.LazyFrame,
    metrics: list[str],
    keys: list[str],
    x: Columns,
    ci: float | None,
    *,
    reference: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high`` of ``over_time``'s metrics with every row in
    one day (a window per segment); the estimated ones calibrated on ``reference``."""
    assert x.y_true is not None  # check_needs
    day = fair.free_name("day", rows.collect_schema().names())
    frame = _metrics(rows.with_columns(pl.lit(dt.date(1970, 1, 1)).alias(day))).over_time(
        x.y_true,
        index=day,
        every="1d",
        metrics=cast("list[OverTimeAnyMetric]", metrics),  # over_time's names
        y_pred=x.y_pred,
        y_score=x.y_score,
        by=keys or None,
        weight=x.weight,
        pos_label=x.pos_label,
        ci=ci,
        reference=reference,
    )
    bounds = [pl.col(LOW), pl.col(HIGH)] if ci is not None else [pl.lit(None, pl.Float64)] * 2
    return frame.select(
        *keys, pl.col("metric").alias(_NAME), VALUE, bounds[0].alias(LOW), bounds[1].alias(HIGH)
    )


def drift_values(
    lf: pl.LazyFrame, rules: list[Rule], keys: list[str], reference: Any
) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high`` of each drift rule's metric (one ``drift``
    query over all its columns and segments; no interval)."""
    columns = list(dict.fromkeys(r.column for r in rules if r.column is not None))
    frame = _metrics(lf).drift(columns, reference=reference, by=keys or None).cache()
    parts = []
    for metric, (name, column) in {r.metric: (r.name, r.column) for r in rules}.items():
        rows = frame.filter(pl.col("column") == column)
        parts.append(_long(rows, keys, metric, name))
    return pl.concat(parts, how="vertical_relaxed")


def _calibration_rows(reference: object, ref_rows: pl.LazyFrame | None) -> pl.LazyFrame | None:
    """The estimated metrics' calibration rows: the reference frame, or the rows the
    reference expression marks (None without a reference)."""
    if isinstance(reference, pl.Expr):
        return ref_rows
    if isinstance(reference, (pl.DataFrame, pl.LazyFrame)):
        return reference.lazy()
    return None


def _realized_on_reference(
    ref_rows: pl.LazyFrame, metrics: list[str], keys: list[str], x: Columns, ci: float | None
) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high`` of each metric on the reference rows, an
    estimated one as the same metric realized there (the reference holds labels):
    ``estimated_roc_auc - reference`` is the estimate less the reference's AUC."""
    realized = {m: m.removeprefix(ew.PREFIX) if m in ESTIMATED else m for m in metrics}
    values = metric_values(ref_rows, list(dict.fromkeys(realized.values())), keys, x, ci)
    values = values.cache()
    return pl.concat(
        [
            values.filter(pl.col(_NAME) == base).with_columns(pl.lit(m).alias(_NAME))
            for m, base in realized.items()
        ],
        how="vertical_relaxed",
    )


def relative_values(
    current: pl.LazyFrame, reference: pl.LazyFrame, rules: list[Rule], keys: list[str]
) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high`` of each reference rule: the segment's value
    minus the same segment's on the reference rows, its interval from both
    intervals (:func:`difference_bounds`; null without ``ci``, and null where the
    reference has no such segment)."""
    metrics = {r.name: r.metric for r in rules}
    ref = reference.select(
        *keys,
        pl.col(_NAME),
        *(pl.col(c).alias(f"{_REFERENCE}{c}") for c in (VALUE, LOW, HIGH)),
    )
    joined = current.filter(pl.col(_NAME).is_in(list(metrics))).join(
        ref, on=[*keys, _NAME], how="left", nulls_equal=True
    )
    value, low, high = pl.col(VALUE), pl.col(LOW), pl.col(HIGH)
    r_value, r_low, r_high = (pl.col(f"{_REFERENCE}{c}") for c in (VALUE, LOW, HIGH))
    d_low, d_high = difference_bounds((value, low, high), (r_value, r_low, r_high))
    return joined.select(
        *keys,
        pl.col(_NAME).replace_strict(metrics, return_dtype=pl.String),
        (value - r_value).alias(VALUE),
        d_low.alias(LOW),
        d_high.alias(HIGH),
    )


def _rules_frame(rules: list[Rule], wants_ci: bool) -> pl.LazyFrame:
    return pl.LazyFrame(
        {
            RULE: [r.text for r in rules],
            _NAME: [r.metric for r in rules],
            _OP: [r.op for r in rules],
            THRESHOLD: [r.threshold for r in rules],
            _INTERVAL: [wants_ci and r.has_interval for r in rules],
            _ORDER: list(range(len(rules))),
        },
        schema={
            RULE: pl.String,
            _NAME: pl.String,
            _OP: pl.String,
            THRESHOLD: pl.Float64,
            _INTERVAL: pl.Boolean,
            _ORDER: pl.Int64,
        },
    )


def _keyed(lf: pl.LazyFrame, segments: names.Segments, keys: list[str]) -> pl.LazyFrame:
    """``lf`` with each segment evaluated on its rows under its stand-in name."""
    return lf.with_columns(e.alias(k) for e, k in zip(segments.exprs, keys, strict=True))


def _sides(
    keyed: pl.LazyFrame,
    lf: pl.LazyFrame,
    reference: object,
    segments: names.Segments,
    keys: list[str],
    *,
    relative: bool,
) -> tuple[pl.LazyFrame, pl.LazyFrame | None, pl.LazyFrame | None]:
    """(the current rows, the reference rows, a one-row check of the reference
    flag's nulls), segment keys evaluated on each; a Boolean expression splits
    ``lf``'s rows (the others are the current ones), a frame is the reference rows
    (keyed by the segments for the ``relative`` rules only: it must then hold the
    ``by`` columns)."""
    if reference is None:
        return keyed, None, None
    if isinstance(reference, pl.Expr):
        dtypes = list(lf.select(reference).collect_schema().dtypes())
        if dtypes != [pl.Boolean]:
            raise v.Bad.reference_not_boolean(reference, dtypes)
        nulls = lf.select(reference.null_count().cast(pl.Int64).alias(_NULLS))
        flag = v.raise_if_bad(nulls, [(_NULLS, v.Bad.reference_nulls)])
        return keyed.filter(~reference), keyed.filter(reference), flag
    if isinstance(reference, (pl.DataFrame, pl.LazyFrame)):
        if not relative:  # drift reads the frame as one sample
            return keyed, None, None
        ref = reference.lazy()
        v.check_by(ref.collect_schema(), segments, names.output_columns("check"))
        return keyed, _keyed(ref, segments, keys), None
    raise v.Bad.reference_type(reference)


def check(
    lf: pl.LazyFrame,
    rules: object,
    *,
    x: Columns,
    by: object,
    reference: object,
    ci: float | None,
) -> pl.LazyFrame:
    """``*by, rule, metric, value[, low, high], threshold, status``: each rule per
    segment of the current rows (rules in the order given), lazily."""
    parsed = parse_rules(rules)
    check_needs(parsed, x, reference)
    labelled = [r for r in parsed if r.column is None]
    # the interval options as every method checks them ("delta": the label metrics'
    # analytic default stands for each metric's own); a weight refuses intervals
    wants_ci = v.wants_ci(
        ci, 1, "delta", x.weight if labelled else None, seed=0, methods=("delta",)
    )
    segments = v.normalize_by(by)
    schema = lf.collect_schema()
    v.check_by(schema, segments, names.output_columns("check"))
    # the segments under stand-in names (no column of either side has them) that the
    # inner methods take as plain columns (a `by` named "metric" is just a segment)
    taken = list(schema.names())
    if isinstance(reference, (pl.DataFrame, pl.LazyFrame)):
        taken += reference.lazy().collect_schema().names()
    keys = names.stand_in_keys(segments, taken)
    keyed = _keyed(lf, segments, keys)
    relative = any(r.relative for r in parsed)
    current, ref_rows, flag = _sides(keyed, lf, reference, segments, keys, relative=relative)
    level = ci if wants_ci else None
    parts = []
    wanted = list(dict.fromkeys(r.name for r in labelled))
    if wanted:
        calibration = _calibration_rows(reference, ref_rows)
        values = metric_values(current, wanted, keys, x, level, calibration=calibration)
        values = values.cache()
        absolute = {r.name for r in labelled if not r.relative}
        parts.append(values.filter(pl.col(_NAME).is_in(list(absolute))))
        against = [r for r in labelled if r.relative]
        if against:
            assert ref_rows is not None  # check_needs
            names_ = list(dict.fromkeys(r.name for r in against))
            on_reference = _realized_on_reference(ref_rows, names_, keys, x, level)
            parts.append(relative_values(values, on_reference, against, keys))
    drifts = [r for r in parsed if r.column is not None]
    if drifts:
        parts.append(drift_values(keyed, drifts, keys, reference))
    values = pl.concat(parts, how="vertical_relaxed")
    table = _rules_frame(parsed, wants_ci)
    if keys:
        segments_seen = values.select(keys).unique()
        table = segments_seen.join(table, how="cross")
    out = table.join(values, on=[*keys, _NAME], how="left", nulls_equal=True)
    # no rows (an empty frame without `by`): n is 0, so that `n >= 1000` fails there
    counted = pl.col(_NAME).is_in(cat.names_of("size"))
    out = out.with_columns(
        pl.when(counted).then(pl.col(VALUE).fill_null(0.0)).otherwise(pl.col(VALUE)).alias(VALUE)
    )
    interval = pl.col(_INTERVAL)
    low = pl.when(interval).then(pl.col(LOW)).otherwise(pl.col(VALUE))
    high = pl.when(interval).then(pl.col(HIGH)).otherwise(pl.col(VALUE))
    out = out.with_columns(
        status(pl.col(VALUE), low, high, pl.col(_OP), pl.col(THRESHOLD)).alias(STATUS),
        pl.when(interval).then(pl.col(LOW)).alias(LOW),
        pl.when(interval).then(pl.col(HIGH)).alias(HIGH),
    )
    if flag is not None and labelled:  # drift checks its own flag
        out = out.join(flag, how="cross").drop(_NULLS)
    columns: list[str | pl.Expr] = [RULE, pl.col(_NAME).alias(METRIC), VALUE]
    columns += [LOW, HIGH] if wants_ci else []
    out = out.sort([*keys, _ORDER], nulls_last=True).select(*keys, *columns, THRESHOLD, STATUS)
    return out.rename(dict(zip(keys, segments.names, strict=True)))
