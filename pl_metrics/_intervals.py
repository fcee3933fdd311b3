"""``ci=``: add ``<metric>_low`` / ``<metric>_high`` columns to the metric frames.

The point estimates come from the usual functions; the intervals from
:mod:`pl_metrics._bootstrap` (multinomial bootstrap of the state, Wilson,
DeLong).  Every function takes the state and the finished point-estimate frame
and returns that frame with the interval columns appended.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from pl_metrics import _bootstrap as bs
from pl_metrics import _classification as cls
from pl_metrics import _ranking as rk
from pl_metrics._counts import ACTUAL, ALL, COUNT, LABEL, ORD, PREDICTED, Counts, label_set

#: The metric columns of each frame that get an interval.
CLASS_METRICS = ("precision", "recall", "specificity", "jaccard")
SUMMARY_METRICS = ("accuracy", "balanced_accuracy", "mcc", "cohen_kappa")


def _join(point: pl.LazyFrame, intervals: pl.LazyFrame, on: list[str]) -> pl.LazyFrame:
    if not on:
        return pl.concat([point, intervals], how="horizontal")
    return point.join(intervals, on=on, how="left", nulls_equal=True, maintain_order="left")


def _class_replicates(
    counts: Counts, *, restrict: bool, n_boot: int, seed: int | None
) -> pl.LazyFrame:
    """``*keys, REP, label, ORD, support, predicted, tp, fp, fn, tn`` of every replicate.

    The same frame as :func:`pl_metrics._counts.class_counts` with the replicate
    as one more key, computed from the multinomial draws of each segment's
    confusion cells without building a frame of replicate cells.
    """
    keys = counts.keys
    labels = label_set(counts).cache()
    sizes = labels.group_by(keys).agg(pl.len().cast(pl.Int64).alias(bs.N_LABELS))
    cells = (
        counts.frame.join(
            labels.rename({LABEL: ACTUAL, ORD: bs.A_ORD}),
            on=[*keys, ACTUAL],
            how="left",
            nulls_equal=True,
        )
        .join(
            labels.rename({LABEL: PREDICTED, ORD: bs.P_ORD}),
            on=[*keys, PREDICTED],
            how="left",
            nulls_equal=True,
        )
        .join(sizes, on=keys, how="left", nulls_equal=True)
        .with_columns(pl.col(bs.A_ORD, bs.P_ORD).fill_null(-1))
    )
    schema = cells.collect_schema()
    stats = ("support", "predicted", "tp", "n")
    out_schema = pl.Schema(
        {k: schema[k] for k in keys}
        | {bs.REP: pl.Int64, ORD: pl.Int64}
        | dict.fromkeys(stats, pl.Int64)
    )
    reduce = bs.class_stats(restrict)
    threads = pl.thread_pool_size()

    def draw(df: pl.DataFrame) -> pl.DataFrame:
        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        df = df.sort([*keys, ACTUAL, PREDICTED], nulls_last=True)
        out = bs.per_segment(
            df,
            keys,
            reduce,
            lambda part: part[COUNT].to_numpy(),
            n_boot=n_boot,
            seed=seed,
            threads=threads,
        )
        return out.select(list(out_schema)).cast(dict(out_schema))

    tp, support, predicted = pl.col("tp"), pl.col("support"), pl.col("predicted")
    return (
        cells.map_batches(draw, schema=out_schema)
        .join(labels, on=[*keys, ORD], how="left", nulls_equal=True)
        .select(
            *keys,
            bs.REP,
            LABEL,
            ORD,
            support,
            predicted,
            tp,
            (predicted - tp).alias("fp"),
            (support - tp).alias("fn"),
            (pl.col("n") - support - predicted + tp).alias("tn"),
        )
        .cache()  # report reads it twice (class rows and averages): draw once
    )


@dataclass(frozen=True)
class _Replicates(Counts):
    """The counts of ``n_boot`` bootstrap replicates: the replicate is one more key.

    Only the per-class counts exist (what per_class, averages, report and
    summary read); they are drawn from ``source``.
    """

    source: Counts | None = None
    n_boot: int = 1
    seed: int | None = 0

    def class_counts(self, *, restrict: bool) -> pl.LazyFrame:
        assert self.source is not None
        return _class_replicates(self.source, restrict=restrict, n_boot=self.n_boot, seed=self.seed)


def _replicate_counts(counts: Counts, n_boot: int, seed: int | None) -> Counts:
    return _Replicates(
        counts.frame,
        [*counts.by, bs.REP],
        [*counts.keys, bs.REP],
        counts.types,
        counts.labels,
        source=counts,
        n_boot=n_boot,
        seed=seed,
    )


def bootstrap_labels(
    counts: Counts,
    point: pl.LazyFrame,
    compute: Callable[[Counts], pl.LazyFrame],
    *,
    row_keys: Sequence[str],
    metrics: Sequence[str],
    ci: float,
    n_boot: int,
    seed: int | None,
) -> pl.LazyFrame:
    """Bootstrap interval of a confusion-metric frame (``compute`` = per_class, summary...)."""
    reps = compute(_replicate_counts(counts, n_boot, seed))
    if not counts.by:
        reps = reps.drop(ALL)
    keys = [*counts.by, *row_keys]
    intervals = bs.percentile_interval(reps, keys, metrics, ci)
    return _join(point, intervals, keys).select(
        *point.collect_schema().names(), *bs.interval_columns(metrics)
    )


def wilson_per_class(point: pl.LazyFrame, ci: float, beta: float) -> pl.LazyFrame:
    """Wilson intervals of the per-class proportions (F-beta, not a proportion: null)."""
    tp, fp, fn, tn = (pl.col(c) for c in ("tp", "fp", "fn", "tn"))
    pairs = {
        "precision": (tp, tp + fp),
        "recall": (tp, tp + fn),
        "specificity": (tn, tn + fp),
        "jaccard": (tp, tp + fp + fn),
    }
    columns = []
    for name in ("precision", "recall", "specificity", cls.f_name(beta), "jaccard"):
        if name in pairs:
            low, high = bs.wilson(*pairs[name], ci)
        else:
            low = high = pl.lit(None, pl.Float64)
        columns += [low.alias(f"{name}_low"), high.alias(f"{name}_high")]
    return point.with_columns(columns)


def wilson_accuracy(point: pl.LazyFrame, ci: float) -> pl.LazyFrame:
    """Wilson interval of the accuracy; the other summary metrics get null."""
    low, high = bs.wilson(pl.col("accuracy") * pl.col("n"), pl.col("n"), ci)
    nulls = [
        pl.lit(None, pl.Float64).alias(c)
        for m in SUMMARY_METRICS[1:]
        for c in (f"{m}_low", f"{m}_high")
    ]
    return point.with_columns(low.alias("accuracy_low"), high.alias("accuracy_high"), *nulls)


def bootstrap_scores(
    counts: rk.ScoreCounts,
    point: pl.LazyFrame,
    metric: str,
    *,
    ci: float,
    n_boot: int,
    seed: int | None,
) -> pl.LazyFrame:
    """Bootstrap interval of a ranking metric (``roc_auc``, ``average_precision``)."""
    reps = bs.score_replicates(counts.frame, counts.keys, metric, n_boot=n_boot, seed=seed)
    if not counts.by:
        reps = reps.drop(ALL)
    intervals = bs.percentile_interval(reps, counts.by, [metric], ci)
    return _join(point, intervals, counts.by).select(
        *point.collect_schema().names(), *bs.interval_columns([metric])
    )


def delong(counts: rk.ScoreCounts, point: pl.LazyFrame, ci: float) -> pl.LazyFrame:
    """DeLong interval of the binary ROC AUC."""
    intervals = counts.frame.group_by(counts.keys).agg(bs.delong_exprs(ci))
    if not counts.by:
        intervals = intervals.drop(ALL)
    return _join(point, intervals, counts.by).select(
        *point.collect_schema().names(), "roc_auc_low", "roc_auc_high"
    )


__all__ = [
    "CLASS_METRICS",
    "SUMMARY_METRICS",
    "bootstrap_labels",
    "bootstrap_scores",
    "delong",
    "wilson_accuracy",
    "wilson_per_class",
]
