"""``ci=``: add ``<metric>_low`` / ``<metric>_high`` columns to the metric frames.

The point estimates come from the usual functions; the intervals from
:mod:`pl_metrics._intervals.draws` (multinomial bootstrap of the state) and
:mod:`pl_metrics._intervals.analytic` (Wilson, DeLong).  The ``finish_*``
functions are a method's whole result from its counts, the point estimates
and, with ``ci``, their intervals: the frame methods and the state finishers
(``from_counts`` / ``from_score_counts``, so Dask and Spark) call them with
the same counts, so the same seed gives the same interval on every path.
The others take the state and the finished point-estimate frame and return
that frame with the interval columns appended.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

import polars as pl

from pl_metrics import _classification
from pl_metrics._core import formulas, names, scores
from pl_metrics._core.confusion import ACTUAL, LABEL, ORD, PREDICTED, Counts, label_set
from pl_metrics._core.names import INTERNAL
from pl_metrics._intervals import analytic, draws
from pl_metrics._intervals.sampling import resampling
from pl_metrics._ranking import from_counts as ranking_from_counts
from pl_metrics._stats import ap_delta

#: The columns besides the segment that identify a row of each frame.
_ROW_KEYS = {"per_class": [LABEL], "averages": ["average"], "report": [LABEL, "average"]}


def _join(point: pl.LazyFrame, intervals: pl.LazyFrame, on: list[str]) -> pl.LazyFrame:
    if not on:
        return pl.concat([point, intervals], how="horizontal")
    return point.join(intervals, on=on, how="left", nulls_equal=True, maintain_order="left")


def _present(point: pl.LazyFrame, metrics: Sequence[str], beta: float) -> tuple[str, ...]:
    """The ``metrics`` (names of ``formulas.SCORES``, ``specificity``...) whose column
    ``point`` holds: the intervals of the opt-in scores that were asked for only."""
    held = set(point.collect_schema().names())
    return tuple(m for m in metrics if names.score_column(m, beta) in held)


def _cells(counts: Counts, labels: pl.LazyFrame) -> pl.LazyFrame:
    """The confusion cells with the positions of their labels (``draws.label_intervals``)."""
    keys = counts.keys
    sizes = labels.group_by(keys).agg(pl.len().cast(pl.Int64).alias(draws.N_LABELS))
    return (
        counts.frame.join(
            labels.rename({LABEL: ACTUAL, ORD: draws.A_ORD}),
            on=[*keys, ACTUAL],
            how="left",
            nulls_equal=True,
        )
        .join(
            labels.rename({LABEL: PREDICTED, ORD: draws.P_ORD}),
            on=[*keys, PREDICTED],
            how="left",
            nulls_equal=True,
        )
        .join(sizes, on=keys, how="left", nulls_equal=True)
        .with_columns(pl.col(draws.A_ORD, draws.P_ORD).fill_null(-1))
    )


def bootstrap_labels(
    counts: Counts,
    point: pl.LazyFrame,
    kind: str,
    *,
    beta: float = 1.0,
    zero_division: float = 0.0,
    ci: float,
    n_boot: int,
    seed: draws.Seed,
) -> pl.LazyFrame:
    """Bootstrap intervals of a confusion-metric frame (``kind``: per_class, averages,
    report or summary), joined to its point estimates ``point``."""
    keys = counts.keys
    labels = label_set(counts).cache()  # read three times
    f_column = names.f_name(beta)
    metrics = _present(point, draws.LABEL_METRICS[kind], beta)
    columns = names.interval_columns([names.score_column(m, beta) for m in metrics])
    schema = counts.frame.collect_schema()
    out_schema = pl.Schema(
        {k: schema[k] for k in keys}
        | {ORD: pl.Int64, draws.AVG: pl.Int64}
        | dict.fromkeys(columns, pl.Float64)
    )
    threads = pl.thread_pool_size()

    def draw(df: pl.DataFrame) -> pl.DataFrame:
        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        df = df.sort([*keys, ACTUAL, PREDICTED], nulls_last=True)
        out = draws.label_intervals(
            df,
            keys,
            kind,
            beta=beta,
            zero_division=zero_division,
            ci=ci,
            f_column=f_column,
            n_boot=n_boot,
            seed=seed,
            threads=threads,
            metrics=metrics,
        )
        return out.select(list(out_schema)).cast(dict(out_schema))

    intervals = _cells(counts, labels).map_batches(draw, schema=out_schema)
    row_keys = _ROW_KEYS.get(kind, [])
    if LABEL in row_keys:
        intervals = intervals.join(labels, on=[*keys, ORD], how="left", nulls_equal=True)
    if "average" in row_keys:
        average_names = dict(enumerate(_classification.AVERAGES))
        average = pl.col(draws.AVG).replace_strict(
            average_names, default=None, return_dtype=pl.String
        )
        intervals = intervals.with_columns(average.alias("average"))
    intervals = intervals.select(*keys, *row_keys, pl.col(columns).fill_nan(None))
    intervals = counts.finish(intervals, [LABEL] if LABEL in row_keys else [])
    return _join(point, intervals, [*counts.by, *row_keys]).select(
        *point.collect_schema().names(), *columns
    )


def delta_labels(
    counts: Counts,
    point: pl.LazyFrame,
    kind: str,
    *,
    beta: float,
    zero_division: float,
    ci: float,
) -> pl.LazyFrame:
    """The analytic intervals of per_class / averages / report (``kind``,
    ``ci_method="delta"``) joined to its point estimates ``point``: Wilson's for the
    per-class proportions, the delta method's for F-beta and the averages
    (:func:`analytic.per_class_delta`, :func:`analytic.averages_delta`); of the scores
    ``point`` holds (the opt-in ones asked for)."""
    scores = {m: names.score_column(m, beta) for m in _present(point, names.SCORES, beta)}
    metrics = _present(point, draws.LABEL_METRICS[kind], beta)
    columns = names.interval_columns([names.score_column(m, beta) for m in metrics])
    output = [*point.collect_schema().names(), *columns]
    if kind == "per_class":
        return analytic.with_stages(point, analytic.per_class_delta(scores, beta, ci)).select(
            output
        )
    classes = _classification.per_class_with_ord(
        counts, beta=beta, zero_division=zero_division, order=False
    )
    errors = analytic.averages_delta(counts, classes, scores, beta=beta)
    errors = counts.finish(errors)
    if kind == "averages":
        joined = _join(point, errors, [*counts.by, "average"])
        return analytic.with_stages(joined, analytic.averages_bounds(scores, ci)).select(output)
    # report: its class rows' intervals from the per-class rows, its average rows'
    # from the averages
    class_rows = analytic.with_stages(classes, analytic.per_class_delta(scores, beta, ci)).select(
        *counts.keys, LABEL, pl.lit(None, pl.String).alias("average"), *columns
    )
    joined = _join(point, counts.finish(class_rows, [LABEL]), [*counts.by, LABEL, "average"])
    joined = _join(joined, errors, [*counts.by, "average"])
    averaged = analytic.averages_bounds(scores, ci, prefix=INTERNAL)
    return (
        analytic.with_stages(joined, averaged)
        .with_columns(pl.coalesce(c, f"{INTERNAL}{c}").alias(c) for c in columns)
        .select(output)
    )


def wilson_per_class(point: pl.LazyFrame, ci: float, beta: float) -> pl.LazyFrame:
    """Wilson intervals of the per-class proportions (the other scores, F-beta and
    Fowlkes-Mallows, are not proportions: null)."""
    columns = []
    held = set(point.collect_schema().names())  # the opt-in scores asked for
    for name in names.interval_metrics("per_class", beta=beta):
        if name not in held:
            continue
        if name in formulas.PROPORTIONS:
            low, high = analytic.proportion_bounds(name, ci)
        else:
            low = high = pl.lit(None, pl.Float64)
        columns += [low.alias(f"{name}_low"), high.alias(f"{name}_high")]
    return point.with_columns(columns)


def wilson_accuracy(point: pl.LazyFrame, ci: float) -> pl.LazyFrame:
    """Wilson interval of the accuracy; the other summary metrics get null."""
    low, high = analytic.wilson(pl.col("accuracy") * pl.col("n"), pl.col("n"), ci)
    nulls = [
        pl.lit(None, pl.Float64).alias(c)
        for m in draws.LABEL_METRICS["summary"][1:]
        for c in (f"{m}_low", f"{m}_high")
    ]
    return point.with_columns(low.alias("accuracy_low"), high.alias("accuracy_high"), *nulls)


def delta_summary(counts: Counts, point: pl.LazyFrame, ci: float) -> pl.LazyFrame:
    """The summary's analytic intervals (``ci_method="delta"``): Wilson for the accuracy,
    the delta method for the others (:func:`analytic.summary_delta`)."""
    errors = analytic.summary_delta(counts)
    if counts.by:
        joined = _join(point, counts.finish(errors), counts.by)
    else:  # the summary's row (none without rows), even where no cell is left (labels=)
        only = pl.LazyFrame({names.ALL: [0]}, schema={names.ALL: pl.Int8})
        errors = only.join(errors, on=names.ALL, how="left").drop(names.ALL)
        joined = point.join(errors, how="cross")
    columns = names.interval_columns(list(draws.LABEL_METRICS["summary"]))
    return joined.with_columns(analytic.summary_bounds(ci)).select(
        *point.collect_schema().names(), *columns
    )


def bootstrap_scores(
    counts: scores.ScoreCounts,
    point: pl.LazyFrame,
    metric: str,
    *,
    ci: float,
    n_boot: int,
    seed: draws.Seed,
) -> pl.LazyFrame:
    """Bootstrap interval of a ranking metric (``roc_auc``, ``average_precision``)."""
    intervals = draws.score_intervals(
        counts.frame, counts.keys, metric, ci=ci, n_boot=n_boot, seed=seed
    )
    return _join(point, counts.finish(intervals), counts.by).select(
        *point.collect_schema().names(), *names.interval_columns([metric])
    )


def delong(counts: scores.ScoreCounts, point: pl.LazyFrame, ci: float) -> pl.LazyFrame:
    """DeLong interval of the binary ROC AUC, around the point."""
    se = f"{names.INTERNAL}se"
    errors = counts.finish(counts.frame.group_by(counts.keys).agg(analytic.delong_se().alias(se)))
    return _join(point, errors, counts.by).select(
        *point.collect_schema().names(), *analytic.delong_bounds(pl.col("roc_auc"), pl.col(se), ci)
    )


def logit(counts: scores.ScoreCounts, point: pl.LazyFrame, ci: float) -> pl.LazyFrame:
    """The logit interval of the binary average precision: the delta method's
    variance, Student's t at its degrees of freedom (:mod:`.ap_delta`)."""
    moments = counts.frame.group_by(counts.keys).agg(ap_delta.moments())
    joined = _join(point, counts.finish(moments), counts.by)
    columns = names.interval_columns(["average_precision"])
    z = analytic.z_value(ci)

    def bounds(frame: pl.DataFrame) -> pl.DataFrame:
        low, high = ap_delta.bounds(
            frame["average_precision"].to_numpy(),
            *(frame[c].to_numpy() for c in (ap_delta.S2, ap_delta.S4, ap_delta.ROWS)),
            frame[ap_delta.POSITIVES].fill_null(0).to_numpy(),
            z,
        )
        return frame.with_columns(
            pl.Series(name, values, dtype=pl.Float64).fill_nan(None)
            for name, values in zip(columns, (low, high), strict=True)
        )

    schema = joined.collect_schema()
    schema.update(dict.fromkeys(columns, pl.Float64))
    return joined.map_batches(bounds, schema=schema).select(
        *point.collect_schema().names(), *columns
    )


def boyd(counts: scores.ScoreCounts, point: pl.LazyFrame, ci: float) -> pl.LazyFrame:
    """Boyd, Eng & Page's logit interval of the binary average precision (its
    positives per segment; ``ci_method="boyd"``, the default before the delta
    method's)."""
    positives = f"{names.INTERNAL}positives"
    total = counts.frame.group_by(counts.keys).agg(pl.col(names.POS).sum().alias(positives))
    joined = _join(point, counts.finish(total), counts.by)
    bounds = analytic.ap_logit(pl.col("average_precision"), pl.col(positives), ci)
    return joined.with_columns(bounds).select(
        *point.collect_schema().names(), *names.interval_columns(["average_precision"])
    )


def normal_bounds(
    point: pl.LazyFrame, se: pl.LazyFrame, metric: str, column: str, ci: float
) -> pl.LazyFrame:
    """``point`` (``*by, metric``) with ``<metric>_low`` / ``_high``: the normal interval
    ``metric -+ z se`` clipped to [0, 1], ``se`` the ``column`` of ``se`` (``*by,
    column``; null: no interval)."""
    by = [c for c in point.collect_schema().names() if c != metric]
    joined = _join(point, se, by)  # the point's row order kept
    z = analytic.z_value(ci)
    value, error = pl.col(metric), pl.col(column)
    low, high = (value - z * error).clip(0.0, 1.0), (value + z * error).clip(0.0, 1.0)
    return joined.with_columns(low.alias(f"{metric}_low"), high.alias(f"{metric}_high")).drop(
        column
    )


def _bootstrap(ci_method: str) -> None:
    """The last branch of a finisher: the bootstrap (``"poisson"`` made one by
    :func:`~pl_metrics._intervals.sampling.resampling`), never another method
    falling through."""
    if ci_method != "bootstrap":
        msg = f"internal: ci_method={ci_method!r} reached the bootstrap"
        raise AssertionError(msg)


def finish_labels(
    counts: Counts,
    kind: str,
    *,
    beta: float,
    zero_division: float,
    ci: float | None,
    ci_method: str,
    n_boot: int,
    seed: draws.Seed,
    extra_scores: Collection[str] | None = None,
) -> pl.LazyFrame:
    """per_class / averages / report (``kind``) of ``counts``; with ``ci`` (options
    checked: :func:`~pl_metrics._core.checks.wants_ci`), their intervals.
    ``extra_scores``: the opt-in scores asked for (None: all), the others left out
    before the intervals, which are then not computed for them."""
    point = getattr(_classification, kind)(counts, beta=beta, zero_division=zero_division)
    if extra_scores is not None:
        point = names.without_scores(point, kind, extra_scores, ci=False)
    if ci is None:
        return point
    ci_method, seed = resampling(ci_method, seed)
    if ci_method == "wilson":
        return wilson_per_class(point, ci, beta)
    if ci_method == "delta":
        return delta_labels(counts, point, kind, beta=beta, zero_division=zero_division, ci=ci)
    _bootstrap(ci_method)
    return bootstrap_labels(
        counts,
        point,
        kind,
        beta=beta,
        zero_division=zero_division,
        ci=ci,
        n_boot=n_boot,
        seed=seed,
    )


def finish_summary(
    counts: Counts,
    *,
    kappa_weights: str | None,
    ci: float | None,
    ci_method: str,
    n_boot: int,
    seed: draws.Seed,
    replace_undefined_by: float = math.nan,
) -> pl.LazyFrame:
    """summary of ``counts``; with ``ci``, its intervals (``"delta"``: Wilson for the
    accuracy, the delta method for the others; ``"wilson"``: accuracy only)."""
    point = _classification.summary(
        counts, kappa_weights=kappa_weights, replace_undefined_by=replace_undefined_by
    )
    if ci is None:
        return point
    ci_method, seed = resampling(ci_method, seed)
    if ci_method == "wilson":
        return wilson_accuracy(point, ci)
    if ci_method == "delta":
        return delta_summary(counts, point, ci)
    _bootstrap(ci_method)
    return bootstrap_labels(counts, point, "summary", ci=ci, n_boot=n_boot, seed=seed)


def finish_roc_auc(
    counts: scores.ScoreCounts,
    *,
    error_bound: bool,
    max_fpr: float | None,
    ci: float | None,
    ci_method: str,
    n_boot: int,
    seed: draws.Seed,
) -> pl.LazyFrame:
    """Binary ROC AUC of the per-score ``counts``; with ``ci``, its interval."""
    point = ranking_from_counts.roc_auc(counts, error_bound=error_bound, max_fpr=max_fpr)
    return _with_score_interval(counts, point, "roc_auc", ci, ci_method, n_boot, seed)


def finish_average_precision(
    counts: scores.ScoreCounts,
    *,
    ci: float | None,
    ci_method: str,
    n_boot: int,
    seed: draws.Seed,
) -> pl.LazyFrame:
    """Binary average precision of the per-score ``counts``; with ``ci``, its interval."""
    point = ranking_from_counts.average_precision(counts)
    return _with_score_interval(counts, point, "average_precision", ci, ci_method, n_boot, seed)


#: Each ranking metric's analytic intervals: DeLong's for the AUC, the logit ones for AP.
_ANALYTIC_SCORE_INTERVALS = {
    "roc_auc": {"delong": delong},
    "average_precision": {"logit": logit, "boyd": boyd},
}


def _with_score_interval(  # noqa: PLR0917 - the point, then the interval options
    counts: scores.ScoreCounts,
    point: pl.LazyFrame,
    metric: str,
    ci: float | None,
    ci_method: str,
    n_boot: int,
    seed: draws.Seed,
) -> pl.LazyFrame:
    """``point`` (of ``metric``), with ``ci`` its interval: the metric's analytic one
    or the (Poisson) bootstrap's."""
    if ci is None:
        return point
    ci_method, seed = resampling(ci_method, seed)
    analytic = _ANALYTIC_SCORE_INTERVALS[metric]
    if ci_method in analytic:
        return analytic[ci_method](counts, point, ci)
    _bootstrap(ci_method)
    return bootstrap_scores(counts, point, metric, ci=ci, n_boot=n_boot, seed=seed)


__all__ = [
    "bootstrap_labels",
    "bootstrap_scores",
    "boyd",
    "delong",
    "delta_labels",
    "finish_average_precision",
    "finish_labels",
    "finish_roc_auc",
    "finish_summary",
    "logit",
    "normal_bounds",
    "wilson_accuracy",
    "wilson_per_class",
]
