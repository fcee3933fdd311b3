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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

import polars as pl

from pl_metrics._core import catalogue, checks, formulas, inputs, names
from pl_metrics._core.names import INTERNAL
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._groups import over_time
from pl_metrics._intervals import analytic
from pl_metrics._monitoring import estimated_windows
from pl_metrics._monitoring.check_rules import (
    DRIFT,
    ESTIMATED,
    METRICS,
    RATES,
    SCORED,
    Columns,
    Rule,
    check_needs,
    parse_rule,
    parse_rules,
)

if TYPE_CHECKING:
    from pl_metrics._typing import OverTimeAnyMetric

#: The output columns after ``*by`` (``low`` / ``high`` only with ``ci``).
RULE, METRIC, VALUE, LOW, HIGH, THRESHOLD, STATUS = names.OUTPUTS["check"]
STATUSES = ("pass", "fail", "inconclusive")
OPERATORS = (">=", ">", "<=", "<")
_NAME = f"{INTERNAL}check_metric"  # the rule's metric column while values are joined
_ORDER = f"{INTERNAL}check_order"
_OP = f"{INTERNAL}check_op"
_INTERVAL = f"{INTERNAL}check_interval"
_OK = f"{INTERNAL}check_defined"  # a binary metric's denominator is not 0
_NULLS = f"{INTERNAL}check_reference_nulls"
_REFERENCE = f"{INTERNAL}check_reference"


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


class Side(Protocol):
    """One side's rows (the current ones, or the reference's), each segment under its
    stand-in key: what the values are read from (polars rows: :class:`PolarsSide`; an
    engine's: ``pl_metrics._engines.check``)."""

    def one_window(
        self, metrics: list[str], x: Columns, ci: float | None, reference: object
    ) -> pl.LazyFrame:
        """``over_time``'s frame of ``metrics`` with every row in one window (a window
        per segment; ``reference``: the estimated metrics' calibration rows)."""
        ...

    def counted(self, x: Columns) -> tuple[pl.LazyFrame, dict[str, str | None]]:
        """Rows that ``groups_fairness.binary_confusion`` reads as these rows, and its ``weight`` /
        ``count`` arguments."""
        ...


@dataclass(frozen=True)
class PolarsSide:
    """A side of polars rows (the segments evaluated under their stand-in keys)."""

    rows: pl.LazyFrame
    keys: list[str]

    def one_window(
        self, metrics: list[str], x: Columns, ci: float | None, reference: object
    ) -> pl.LazyFrame:
        assert x.y_true is not None  # check_needs
        day = groups_fairness.free_name("day", self.rows.collect_schema().names())
        one_day = self.rows.with_columns(pl.lit(dt.date(1970, 1, 1)).alias(day))
        return _metrics(one_day).over_time(
            x.y_true, **window_arguments(metrics, x, ci, day=day, by=self.keys, reference=reference)
        )

    def counted(self, x: Columns) -> tuple[pl.LazyFrame, dict[str, str | None]]:
        return self.rows, {"weight": x.weight}


def window_arguments(
    metrics: list[str],
    x: Columns,
    ci: float | None,
    *,
    day: str,
    by: list[str] | list[pl.Expr],
    reference: object,
) -> dict[str, Any]:
    """``over_time``'s keyword arguments of ``metrics`` in one window: every row on
    ``day``, ``every="1d"`` (``by``: the segments under their stand-in keys)."""
    return {
        "index": day,
        "every": "1d",
        "metrics": cast("list[OverTimeAnyMetric]", metrics),  # over_time's names
        "y_pred": x.y_pred,
        "y_score": x.y_score,
        "by": by or None,
        "weight": x.weight,
        "pos_label": x.pos_label,
        "ci": ci,
        "reference": reference,
    }


def metric_values(
    side: Side,
    metrics: list[str],
    keys: list[str],
    x: Columns,
    ci: float | None,
    *,
    calibration: object = None,
) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high``: each catalogue metric of the ``side``'s rows
    per segment (``keys``), in as few queries as its families take.

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
        parts.append(_window_values(side.one_window(estimated, x, ci, calibration), keys, ci))
    windowed = [m for m in metrics if m in over_time.METRICS]
    binary = [m for m in metrics if m in RATES or m in over_time.POSITIVE]
    wide = None
    if binary:
        assert x.y_true is not None  # check_needs
        assert x.y_pred is not None
        rows, weighted = side.counted(x)
        counts, pos = groups_fairness.binary_confusion(
            rows, x.y_true, x.y_pred, by=keys or None, pos_label=x.pos_label, reserved=(),
            **weighted,
        )  # fmt: skip
        table = groups_fairness.binary_table(counts, pos, "check", x.y_true, x.y_pred)
        c = {k: pl.col(k) for k in ("tp", "fp", "fn", "tn")}
        # zero_division NaN: NaN exactly where the metric is undefined
        exprs = [formulas.binary_metric(m, c, float("nan")).alias(m) for m in binary]
        for m in (m for m in binary if m in RATES and ci is not None):
            low, high = analytic.proportion_bounds(m, ci)
            exprs += [low.alias(f"{m}_low"), high.alias(f"{m}_high")]
        wide = counts.finish(table.select(*counts.keys, *exprs)).cache()
    if windowed:
        values = _window_values(side.one_window(windowed, x, ci, None), keys, ci)
        positive = [m for m in windowed if m in over_time.POSITIVE]
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


def _window_values(frame: pl.LazyFrame, keys: list[str], ci: float | None) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high`` of ``over_time``'s frame of one window per
    segment."""
    bounds = [pl.col(LOW), pl.col(HIGH)] if ci is not None else [pl.lit(None, pl.Float64)] * 2
    return frame.select(
        *keys, pl.col("metric").alias(_NAME), VALUE, bounds[0].alias(LOW), bounds[1].alias(HIGH)
    )


def drift_values(
    drift: Callable[[list[str]], pl.LazyFrame], rules: list[Rule], keys: list[str]
) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high`` of each drift rule's metric (one ``drift``
    query over all its columns and segments, ``drift(columns)``; no interval)."""
    columns = list(dict.fromkeys(r.column for r in rules if r.column is not None))
    frame = drift(columns).cache()
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
    ref_rows: Side, metrics: list[str], keys: list[str], x: Columns, ci: float | None
) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high`` of each metric on the reference rows, an
    estimated one as the same metric realized there (the reference holds labels):
    ``estimated_roc_auc - reference`` is the estimate less the reference's AUC."""
    realized = {
        m: m.removeprefix(estimated_windows.PREFIX) if m in ESTIMATED else m for m in metrics
    }
    values = metric_values(ref_rows, list(dict.fromkeys(realized.values())), keys, x, ci)
    values = values.cache()
    return pl.concat(
        [
            values.filter(pl.col(_NAME) == base).with_columns(pl.lit(m).alias(_NAME))
            for m, base in realized.items()
        ],
        how="vertical_relaxed",
    )


def _check_reference_columns(schema: pl.Schema, metrics: list[str], x: Columns) -> None:
    """A reference frame (``schema``: its own) holds the columns that ``metrics``,
    realized on its rows (:func:`_realized_on_reference`), read: ``y_true``, ``y_pred``
    or ``y_score`` (numeric), ``weight`` (numeric); else the error says it is the
    reference's and lists its columns (not those the rows are given on the way)."""
    realized = [m.removeprefix(estimated_windows.PREFIX) if m in ESTIMATED else m for m in metrics]
    scores = x.y_score.values() if isinstance(x.y_score, Mapping) else [x.y_score]
    numeric = [("y_score", c) for c in scores] if any(m in SCORED for m in realized) else []
    numeric.append(("weight", x.weight))
    labels = [("y_pred", x.y_pred)] if any(m not in SCORED for m in realized) else []
    checks.check_found(schema, [("y_true", x.y_true), *labels, *numeric], inputs.IN_REFERENCE)
    for argument, column in numeric:
        checks.check_numeric(schema, argument, column, inputs.IN_REFERENCE)


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
    side = inputs.reference_rows(lf, reference)
    if side.flag is not None:
        nulls = lf.select(side.flag.null_count().cast(pl.Int64).alias(_NULLS))
        flag = checks.raise_if_bad(nulls, [(_NULLS, checks.Bad.reference_nulls)])
        return keyed.filter(~side.flag), keyed.filter(side.flag), flag
    if not relative:  # drift reads the frame as one sample
        return keyed, None, None
    checks.check_by(side.schema, segments, names.output_columns("check"), side.where)
    return keyed, _keyed(side.rows, segments, keys), None


@dataclass(frozen=True)
class Plan:
    """What a call of ``check`` computes, read from its arguments and the schemas only
    (no rows): its rules, columns, segments (under their stand-in ``keys``) and level."""

    rules: list[Rule]
    x: Columns
    segments: names.Segments
    keys: list[str]
    wants_ci: bool
    level: float | None  # the intervals' level (None: the value decides)

    @property
    def labelled(self) -> list[Rule]:
        """The rules of a catalogue or an estimated metric (not drift's)."""
        return [r for r in self.rules if r.column is None]

    @property
    def drifts(self) -> list[Rule]:
        return [r for r in self.rules if r.column is not None]

    @property
    def relative(self) -> bool:
        return any(r.relative for r in self.rules)


def plan(
    rules: object,
    *,
    x: Columns,
    by: object,
    reference: object,
    ci: float | None,
    schema: pl.Schema,
    reference_schema: pl.Schema | None,
) -> Plan:
    """The rules parsed, each one's arguments given, the interval options and ``by``
    checked (``schema``: the rows'; ``reference_schema``: a reference frame's)."""
    parsed = parse_rules(rules)
    check_needs(parsed, x, reference)
    labelled = [r for r in parsed if r.column is None]
    # the interval options as every method checks them ("delta": the label metrics'
    # analytic default stands for each metric's own); a weight refuses intervals
    wants_ci = checks.wants_ci(
        ci, 1, "delta", x.weight if labelled else None, seed=0, methods=("delta",)
    )
    segments = checks.normalize_by(by)
    checks.check_by(schema, segments, names.output_columns("check"))
    # the segments under stand-in names (no column of either side has them) that the
    # inner methods take as plain columns (a `by` named "metric" is just a segment)
    taken = [*schema.names(), *(reference_schema.names() if reference_schema else [])]
    keys = names.stand_in_keys(segments, taken)
    return Plan(parsed, x, segments, keys, wants_ci, ci if wants_ci else None)


@dataclass(frozen=True)
class Sources:
    """Where the values are read from: the current rows, the reference rows keyed by
    the segments (the ``reference`` rules), the estimated metrics' calibration rows
    (as ``over_time`` takes them), drift's frame of columns, and a one-row check of the
    flag's nulls (None: none, or checked already)."""

    current: Side
    reference: Side | None
    calibration: object
    drift: Callable[[list[str]], pl.LazyFrame]
    flag: pl.LazyFrame | None = None
    #: a reference frame's own schema, checked for the columns the reference rules
    #: read there (:func:`_check_reference_columns`; None: the rows of an expression
    #: or an engine's, whose frame method checks them)
    reference_schema: pl.Schema | None = None


def values(p: Plan, sources: Sources) -> pl.LazyFrame:
    """``*keys, _NAME, value, low, high`` of every rule's metric per segment."""
    labelled, keys, x, level = p.labelled, p.keys, p.x, p.level
    parts = []
    wanted = list(dict.fromkeys(r.name for r in labelled))
    if wanted:
        found = metric_values(
            sources.current, wanted, keys, x, level, calibration=sources.calibration
        ).cache()
        absolute = {r.name for r in labelled if not r.relative}
        parts.append(found.filter(pl.col(_NAME).is_in(list(absolute))))
        against = [r for r in labelled if r.relative]
        if against:
            assert sources.reference is not None  # check_needs
            names_ = list(dict.fromkeys(r.name for r in against))
            if sources.reference_schema is not None:  # after the current rows' checks
                _check_reference_columns(sources.reference_schema, names_, x)
            on_reference = _realized_on_reference(sources.reference, names_, keys, x, level)
            parts.append(relative_values(found, on_reference, against, keys))
    if p.drifts:
        parts.append(drift_values(sources.drift, p.drifts, keys))
    return pl.concat(parts, how="vertical_relaxed")


def judge(p: Plan, found: pl.LazyFrame, flag: pl.LazyFrame | None) -> pl.LazyFrame:
    """``*by, rule, metric, value[, low, high], threshold, status``: each rule per
    segment of ``found`` (:func:`values`), decided (:func:`status`)."""
    keys = p.keys
    table = _rules_frame(p.rules, p.wants_ci)
    if keys:
        segments_seen = found.select(keys).unique()
        table = segments_seen.join(table, how="cross")
    out = table.join(found, on=[*keys, _NAME], how="left", nulls_equal=True)
    # no rows (an empty frame without `by`): n is 0, so that `n >= 1000` fails there
    counted = pl.col(_NAME).is_in(catalogue.names_of("size"))
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
    if flag is not None and p.labelled:  # drift checks its own flag
        out = out.join(flag, how="cross").drop(_NULLS)
    columns: list[str | pl.Expr] = [RULE, pl.col(_NAME).alias(METRIC), VALUE]
    columns += [LOW, HIGH] if p.wants_ci else []
    out = out.sort([*keys, _ORDER], nulls_last=True).select(*keys, *columns, THRESHOLD, STATUS)
    return out.rename(dict(zip(keys, p.segments.names, strict=True)))


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
    reference_schema = None
    if isinstance(reference, (pl.DataFrame, pl.LazyFrame)):
        reference_schema = reference.lazy().collect_schema()
    p = plan(
        rules, x=x, by=by, reference=reference, ci=ci, schema=lf.collect_schema(),
        reference_schema=reference_schema,
    )  # fmt: skip
    keyed = _keyed(lf, p.segments, p.keys)
    current, ref_rows, flag = _sides(keyed, lf, reference, p.segments, p.keys, relative=p.relative)
    keys = p.keys

    def drift(columns: list[str]) -> pl.LazyFrame:
        return _metrics(keyed).drift(columns, reference=reference, by=keys or None)

    sources = Sources(
        PolarsSide(current, keys),
        None if ref_rows is None else PolarsSide(ref_rows, keys),
        _calibration_rows(reference, ref_rows),
        drift,
        flag,
        reference_schema,
    )
    return judge(p, values(p, sources), sources.flag)


__all__ = [
    "DRIFT",
    "ESTIMATED",
    "METRICS",
    "OPERATORS",
    "RATES",
    "SCORED",
    "STATUSES",
    "Columns",
    "Plan",
    "PolarsSide",
    "Rule",
    "Side",
    "Sources",
    "check",
    "check_needs",
    "difference_bounds",
    "judge",
    "metric_values",
    "parse_rule",
    "parse_rules",
    "plan",
    "status",
    "values",
    "window_arguments",
]
