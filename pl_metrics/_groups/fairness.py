"""Group disparities of any metric: fairlearn's ``MetricFrame`` vocabulary, exact.

A metric of the catalogue (:data:`METRICS`: ``_core.catalogue``'s entries that
compare / disparity take) is evaluated per group by the frame method that
computes it (or, for the rates of a 2x2 matrix, from the binary counts with
:data:`pl_metrics._core.formulas.RATES`), so a group's value is the method's
value.  :func:`spread` turns the per-group values and the
overall value of each stratum (``control=``) into fairlearn's ``group_min``,
``group_max``, ``difference`` and ``ratio`` (``method="between_groups"`` or
``"to_overall"``), from the point estimates or from the bootstrap replicates of
:func:`replicate_tables` (:mod:`pl_metrics._intervals.groups`, or the weighted-rows
fallback of :func:`replicated`) for the intervals and p-values.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from functools import partial

import polars as pl

from pl_metrics import _classification
from pl_metrics._core import checks, formulas, names, scores
from pl_metrics._core.catalogue import CATALOGUE, Metric, base_of, derive
from pl_metrics._core.confusion import Counts, confusion_counts
from pl_metrics._core.names import INTERNAL
from pl_metrics._intervals import analytic, groups, resample

#: The value of a metric in the frames handed between the functions here.
VALUE = f"{INTERNAL}value"
OVERALL = f"{INTERNAL}overall"


#: Every metric ``compare`` / ``disparity`` know, by name: the catalogue's entries that
#: they take (``n``, the group's size, is read internally only).
METRICS: dict[str, Metric] = {name: m for name, m in CATALOGUE.items() if m.compare}


def ratio_or_null(value: pl.Expr, reference: pl.Expr) -> pl.Expr:
    """``value / reference``: infinite where only the reference is 0, null where both are."""
    return pl.when((value == 0) & (reference == 0)).then(None).otherwise(value / reference)


def check_reference(table: pl.LazyFrame, column: str, reference: object) -> pl.LazyFrame:
    """``table`` that raises at collect when ``column`` (1 on the first row of each
    stratum without the reference group) sums to more than 0."""
    return checks.raise_if_bad(table, [(column, partial(checks.Bad.no_reference, reference))])


def check_metric(metric: object) -> Metric:
    checks.check_choice("metric", metric, [n for n, m in METRICS.items() if m.family != "size"])
    return METRICS[str(metric)]


# --------------------------------------------------------------------------- binary counts
def binary_confusion(
    lf: pl.LazyFrame,
    y_true: str,
    y_pred: str,
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    reserved: Collection[str],
    count: str | None = None,
) -> tuple[Counts, object]:
    """The confusion counts of a binary method and its ``pos_label`` (compute dtype):
    the default 1 only for labels {0, 1} / {-1, 1}, as every binary method
    (``count``: the rows' multiplicities, :func:`confusion_counts`)."""
    counts = confusion_counts(
        lf, y_true, y_pred, by=by, labels=None, weight=weight, reserved=reserved, count=count
    )
    schema = lf.collect_schema()
    pos = scores.resolve_pos_label(schema, y_true, pos_label)
    pos = checks.label_value(pos, counts.types.compute, "pos_label", y_true)
    if scores.defaults_pos_label(schema, y_true, pos_label):
        data_checks = scores.default_pos_label_pair_aggs(
            pl.col(names.ACTUAL), pl.col(names.PREDICTED)
        )
        frame = scores.check_default_pos_label(
            counts.frame.with_columns(data_checks), lf, y_true, y_pred
        )
        counts = replace(counts, frame=frame)
    return counts, pos


def binary_table(
    counts: Counts, pos: object, method: str, y_true: str, y_pred: str
) -> pl.LazyFrame:
    """``*keys, tp, fp, fn, tn`` of ``pos`` against the one other label (else a DataError)."""
    error = partial(checks.Bad.not_binary, method, y_true, y_pred, pos)
    return _classification.binary_counts(counts, pos_label=pos, error=error)


#: The metrics that are a proportion of rows, as (successes, trials) of the 2x2
#: counts (``formulas.PROPORTIONS``; a share of all the rows, accuracy: of the
#: confusion cells, ``Metric.correct_share``): ``compare``'s analytic comparison.
PROPORTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    **formulas.PROPORTIONS,
    **{name: ((), ()) for name, m in CATALOGUE.items() if m.correct_share},
}


def proportion_parts(lf: pl.LazyFrame, name: str, keys: Sequence[str], x: Inputs) -> pl.LazyFrame:
    """``*keys, SUCCESSES, TRIALS`` of the proportion ``name`` (:data:`PROPORTIONS`)."""
    by = list(keys) or None
    if CATALOGUE[name].correct_share:  # the diagonal of the confusion matrix, of n
        counts = confusion_counts(
            lf, x.y_true, x.y_pred, by=by, labels=None, weight=None, reserved=()
        )
        count, hit = pl.col(names.COUNT), pl.col(names.ACTUAL) == pl.col(names.PREDICTED)
        table = counts.frame.group_by(counts.keys).agg(
            count.filter(hit).sum().alias(analytic.SUCCESSES), count.sum().alias(analytic.TRIALS)
        )
        return counts.finish(table)
    counts, pos = binary_confusion(
        lf, x.y_true, x.y_pred, by=by, pos_label=x.pos_label, weight=None, reserved=()
    )
    successes, trials = PROPORTIONS[name]
    table = binary_table(counts, pos, x.method, x.y_true, x.y_pred).select(
        *counts.keys,
        pl.sum_horizontal(successes).alias(analytic.SUCCESSES),
        pl.sum_horizontal(trials).alias(analytic.TRIALS),
    )
    return counts.finish(table)


def binary_value(name: str, zero_division: float) -> pl.Expr:
    """Metric ``name`` of the columns ``tp, fp, fn, tn`` (``formulas.binary_metric``;
    ``n``: their total, the group's size)."""
    c = {k: pl.col(k) for k in ("tp", "fp", "fn", "tn")}
    if CATALOGUE[name].family == "size":
        return (c["tp"] + c["fp"] + c["fn"] + c["tn"]).cast(pl.Float64)
    return formulas.binary_metric(name, c, zero_division)


# --------------------------------------------------------------------------- per group
@dataclass(frozen=True)
class Inputs:
    """The columns and options every evaluation of a metric shares."""

    y_true: str
    y_pred: str
    pos_label: object
    weight: str | None
    zero_division: float
    method: str  # the public method (for its messages)
    #: Un-weighted rows standing for several rows each (a merged counts state's cells:
    #: the engines), their multiplicities in this column; None: each row is one row.
    count: str | None = None

    @property
    def weights(self) -> str | None:
        """The column a frame method weighs the rows by: the user's weight, or the
        rows' multiplicities (integer weights are rows repeated, the same values)."""
        return self.weight if self.count is None else self.count


#: A metric's method of the catalogue run elsewhere than on rows:
#: ``frame_of(method, y_true, y_pred, by=keys, **options)``, its frame (the engines'
#: functions of the same name, the keys evaluated on the shards).
FrameOf = Callable[..., pl.LazyFrame]


def evaluate(
    lf: pl.LazyFrame,
    metrics: Sequence[str],
    keys: Sequence[str],
    x: Inputs,
    frame_of: FrameOf | None = None,
) -> pl.LazyFrame:
    """``*keys, *metrics``: each metric of ``lf``'s rows per ``keys`` (sorted by ``keys``).

    The rates of a 2x2 matrix share one table of binary counts; every other
    metric is its frame method's column (``frame_of``'s where given).
    """
    keys = list(keys)
    by = keys or None
    if frame_of is None:
        frame_of = partial(_frame_method, lf)
    parts: list[pl.LazyFrame] = []
    binary = [m for m in metrics if METRICS[m].method == "binary"]
    if binary:
        counts, pos = binary_confusion(
            lf,
            x.y_true,
            x.y_pred,
            by=by,
            pos_label=x.pos_label,
            weight=x.weight,
            reserved=(),
            count=x.count,
        )
        table = binary_table(counts, pos, x.method, x.y_true, x.y_pred)
        values = [binary_value(m, x.zero_division).alias(m) for m in binary]
        parts.append(counts.finish(table.select(*counts.keys, *values)))
    for name in metrics:
        metric = METRICS[name]
        if metric.method == "binary":
            continue
        options: dict[str, object] = {"by": by, "weight": x.weights}
        if metric.scores:
            options["pos_label"] = x.pos_label
        if metric.method == "averages":
            options["zero_division"] = x.zero_division
            # an opt-in score's column (fowlkes_mallows_macro) is asked for
            options["extra_scores"] = [c for c in names.EXTRA_SCORES if c == metric.column]
        frame = frame_of(metric.method, x.y_true, x.y_pred, **options)
        if metric.row is not None:
            frame = frame.filter(pl.col(metric.row[0]) == metric.row[1])
        parts.append(frame.select(*keys, pl.col(metric.column).cast(pl.Float64).alias(name)))
    return joined(parts, keys, metrics)


def _frame_method(lf: pl.LazyFrame, method: str, *args: object, **options: object) -> pl.LazyFrame:
    """``lf.metrics.<method>(*args, **options)``."""
    return getattr(lf.metrics, method)(*args, **options)


def joined(
    parts: Sequence[pl.LazyFrame], keys: Sequence[str], metrics: Sequence[str]
) -> pl.LazyFrame:
    """``*keys, *metrics`` of the ``parts`` (each ``*keys`` and some of the metrics),
    joined on the keys (every key seen in any part), sorted by them."""
    keys = list(keys)
    out = parts[0]
    for part in parts[1:]:
        if keys:
            out = out.join(part, on=keys, how="full", coalesce=True, nulls_equal=True)
        else:
            out = pl.concat([out, part], how="horizontal")
    out = out.select(*keys, *metrics)
    return out.sort(keys, nulls_last=True) if keys else out


def _defined(x: pl.Expr) -> pl.Expr:
    return x.fill_nan(None)


def with_overall(
    values: pl.LazyFrame, overall: pl.LazyFrame, strata: Sequence[str], metrics: Sequence[str]
) -> pl.LazyFrame:
    """``values`` (``*strata, *groups, *metrics``) with each metric's overall value of the
    row's stratum (``overall``: ``*strata, *metrics``) in ``groups.overall_column(metric)``."""
    strata = list(strata)
    overall = overall.select(*strata, *(pl.col(m).alias(groups.overall_column(m)) for m in metrics))
    if not strata:
        return values.join(overall, how="cross")
    return values.join(overall, on=strata, how="left", nulls_equal=True)


def per_stratum(
    table: pl.LazyFrame, strata: Sequence[str], aggs: Sequence[pl.Expr]
) -> pl.LazyFrame:
    """``aggs`` of ``table``'s rows per stratum; without strata, one row of the whole
    table, and none when it has no rows (an empty input has no rows, as in every
    method; a ``select`` of aggregations has one row of nulls there)."""
    if strata:
        return table.group_by(list(strata)).agg(aggs)
    rows = f"{INTERNAL}stratum_rows"
    return table.select(*aggs, pl.len().alias(rows)).filter(pl.col(rows) > 0).drop(rows)


def spread(
    table: pl.LazyFrame,
    strata: Sequence[str],
    metrics: Sequence[str],
    method: str,
    *,
    registered: bool = True,
) -> pl.LazyFrame:
    """``*strata, metric, overall, group_min, group_max, difference, ratio`` (fairlearn's
    ``MetricFrame`` methods, a row per metric) from the per-group values with their
    stratum's overall values (:func:`with_overall`, or replicates).

    Undefined group values (null, NaN) are skipped, as pandas skips NaN.
    ``between_groups``: max - min and min / max; ``to_overall``: the largest
    ``|value - overall|`` and the smallest ratio to overall with ratios above 1
    inverted (``x / 0`` is infinite, inverted 0; ``0 / 0`` undefined).  The ratio is
    null for a metric whose range holds values below 0 (its record's ``bounds``: mcc,
    cohen_kappa, gini, informedness, markedness; ``registered``: the ``metrics`` are
    the catalogue's, not custom callables of any name), and where a value below 0
    enters it: a ratio of values of two signs is negative, one of two
    negative values above 1 however unequal they are (fairlearn divides them all the
    same), and a bootstrap replicate's ratio would be defined or not with the signs;
    the difference stays.
    """
    strata = list(strata)
    stats = ("overall", "group_min", "group_max", "difference", "ratio")
    aggs = []
    for i, name in enumerate(metrics):
        value, total = _defined(pl.col(name)), pl.col(groups.overall_column(name))
        signed = registered and CATALOGUE[name].signed
        if method == "between_groups":
            difference = value.max() - value.min()
            ratio = pl.when(value.min() >= 0).then(value.min() / value.max())
        else:
            difference = (value - total).abs().max()
            r = _defined(value / total)
            signs = (value.min() >= 0) & (total.min() >= 0)
            ratio = pl.when(signs).then(pl.when(r > 1).then(1.0 / r).otherwise(r).min())
        if signed:
            ratio = pl.lit(None, pl.Float64)
        exprs = (total.first(), value.min(), value.max(), difference, _defined(ratio))
        aggs += [e.alias(f"{VALUE}{i}_{s}") for e, s in zip(exprs, stats, strict=True)]
    wide = per_stratum(table, strata, aggs).cache()
    return pl.concat(
        [
            wide.select(
                *strata,
                pl.lit(name).alias("metric"),
                *(pl.col(f"{VALUE}{i}_{s}").alias(s) for s in stats),
            )
            for i, name in enumerate(metrics)
        ]
    )


# --------------------------------------------------------------------------- replicates
@dataclass(frozen=True)
class Replicates:
    """The bootstrap replicates of a frame as weighted rows, ready for :func:`evaluate`."""

    frame: pl.LazyFrame
    rep: str  # the replicate's key column
    inputs: Inputs  # the inputs with weight = the drawn count


def replicated(
    lf: pl.LazyFrame,
    keys: Sequence[str],
    x: Inputs,
    *,
    n_boot: int,
    seed: int | None,
    scores: bool,
) -> Replicates:
    """``n_boot`` bootstrap replicates of each segment ``keys`` of ``lf`` (stand-in names);
    ``scores``: ``x.y_pred`` holds scores (the refusal of too many cells says to
    round them)."""
    taken = {*keys, x.y_true, x.y_pred}
    rep, count = free_name("replicate", taken), free_name("count", taken)
    frame = resample.replicates(
        lf,
        keys,
        [x.y_true, x.y_pred],
        n_boot=n_boot,
        seed=seed,
        scores=[x.y_pred] if scores else [],
    )
    frame = frame.rename(
        {resample.REP: rep, resample.COUNT: count}
    ).cache()  # drawn once, read twice
    return Replicates(frame, rep, replace(x, weight=count))


def of_score_counts(metrics: Sequence[str]) -> bool:
    """Whether the replicates of ``metrics`` are drawn from each group's per-score
    counts (:func:`replicate_tables`): one ROC AUC or AP, or a metric derived from one
    (gini); every other metric's from the rows."""
    return len(metrics) == 1 and base_of(metrics[0]) in groups.SCORE_METRICS


def replicate_tables(
    lf: pl.LazyFrame,
    strata: Sequence[str],
    group_columns: Sequence[str],
    metrics: Sequence[str],
    x: Inputs,
    *,
    point: pl.LazyFrame,
    n_boot: int,
    seed: int | None,
    score_counts: Callable[[Sequence[str]], scores.ScoreCounts] | None = None,
) -> tuple[pl.LazyFrame, str]:
    """``(table, rep)``: every metric of each bootstrap replicate per group with the
    replicate's overall value of the group's stratum (``*strata, *groups, rep, *metrics,
    *groups.overall_column(metric)``; :func:`spread` reads it).

    Label metrics and ROC AUC / AP are drawn and reduced in numpy
    (:mod:`pl_metrics._intervals.groups`); the others are evaluated by their frame
    method on the replicates as weighted rows (:func:`replicated`), drawn from the
    groups of ``point`` (the point estimates per group, :func:`evaluate`).
    ``score_counts``: ROC AUC / AP's per-score counts by the keys where they are not
    counted from ``lf``'s rows (an engine's merged state); nothing else is drawn then.
    """
    strata, group_columns, metrics = list(strata), list(group_columns), list(metrics)
    keys = [*strata, *group_columns]
    kinds = {METRICS[m].method for m in metrics}
    ranked = of_score_counts(metrics)
    assert score_counts is None or ranked, "only ROC AUC / AP are drawn from score counts"
    if kinds <= {"summary", "averages", "binary"}:
        if "binary" in kinds:
            counts, pos = binary_confusion(
                lf,
                x.y_true,
                x.y_pred,
                by=keys,
                pos_label=x.pos_label,
                weight=None,
                reserved=(),
                count=x.count,
            )
        else:
            counts = confusion_counts(
                lf,
                x.y_true,
                x.y_pred,
                by=keys,
                labels=None,
                weight=None,
                reserved=(),
                count=x.count,
            )
            pos = None
        binary = partial(groups.binary_numpy, zero_division=x.zero_division)
        reps = groups.label_replicates(
            counts.frame,
            counts.keys[: len(strata)],
            counts.keys[len(strata) :],
            metrics,
            binary=binary,
            columns=(x.y_true, x.y_pred),
            pos_label=pos,
            zero_division=x.zero_division,
            n_boot=n_boot,
            seed=seed,
        )
        reps = counts.finish(reps)
    elif ranked:
        # ROC AUC / AP, or a metric derived from one (gini): the base's replicates mapped
        name, base = metrics[0], base_of(metrics[0])
        scored = (
            score_counts(keys)
            if score_counts is not None
            else scores.binary_score_counts(
                lf, x.y_true, x.y_pred, by=keys, pos_label=x.pos_label, weight=None, reserved=()
            )
        )
        reps = groups.score_replicates(
            scored.frame,
            scored.keys[: len(strata)],
            scored.keys[len(strata) :],
            base,
            column=x.y_pred,
            n_boot=n_boot,
            seed=seed,
        )
        reps = derive(reps, name).rename({groups.overall_column(base): groups.overall_column(name)})
        derived = CATALOGUE[name].derived
        if derived is not None:
            overall = pl.col(groups.overall_column(name))
            reps = reps.with_columns(derived.value(overall).alias(groups.overall_column(name)))
        reps = scored.finish(reps)
    else:
        # the rows the point estimates checked (their errors, counted in rows, come
        # first: a replicate's check would count weighted replicate rows)
        lf = lf.join(point.select(keys), on=keys, how="semi", nulls_equal=True)
        scored = any(METRICS[m].scores for m in metrics)
        drawn = replicated(lf, keys, x, n_boot=n_boot, seed=seed, scores=scored)
        rep_strata = [*strata, drawn.rep]
        per_group = evaluate(drawn.frame, metrics, [*rep_strata, *group_columns], drawn.inputs)
        overall = evaluate(drawn.frame, metrics, rep_strata, drawn.inputs)
        return with_overall(per_group, overall, rep_strata, metrics), drawn.rep
    return reps, resample.REP


def difference(value: pl.Expr, other: pl.Expr) -> pl.Expr:
    """``value - other``, exactly 0 within a relative 1e-12: two routes to the same
    rational (a segment and the overall value of a replicate) may differ in the last
    bits, and the sign of a replicate's difference decides its p-value.  An undefined
    value (NaN, null) stays undefined: it is skipped, never a tie."""
    d = value - other
    tie = d.is_not_nan() & (d.abs() <= 1e-12 * (value.abs() + other.abs()))
    return pl.when(tie).then(0.0).otherwise(d)  # NaN (undefined) stays NaN


def free_name(stem: str, taken: Collection[str]) -> str:
    """``stem`` with ``_`` appended until no column in ``taken`` has it."""
    while stem in taken:
        stem += "_"
    return stem


def interval_aggs(columns: Sequence[str], ci: float) -> list[pl.Expr]:
    """``<c>_low, <c>_high`` of each replicate column (percentile interval)."""
    out = []
    for c, (low, high) in zip(
        columns, (resample.percentile_bounds(pl.col(c), ci) for c in columns), strict=True
    ):
        out += [low.alias(f"{c}_low"), high.alias(f"{c}_high")]
    return out


__all__ = [
    "METRICS",
    "OVERALL",
    "VALUE",
    "FrameOf",
    "Inputs",
    "Metric",
    "Replicates",
    "binary_confusion",
    "binary_table",
    "binary_value",
    "check_metric",
    "check_reference",
    "difference",
    "evaluate",
    "free_name",
    "interval_aggs",
    "joined",
    "of_score_counts",
    "per_stratum",
    "ratio_or_null",
    "replicate_tables",
    "replicated",
    "spread",
    "with_overall",
]
