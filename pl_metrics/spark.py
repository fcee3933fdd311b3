"""Distributed evaluation on Spark: states per partition on the executors, finished here.

Needs the optional extra ``pl_metrics[spark]`` (and ``pl_metrics`` installed on
the executors).  Only the columns a metric reads are selected; each partition's
Arrow batches become Polars frames (``mapInArrow``) and one small mergeable
state (``.metrics.counts`` or ``.metrics.score_counts``); the driver collects
the states, sums them (:func:`pl_metrics.state.sum_states`) and finishes the
metrics with :func:`pl_metrics.from_counts` / :func:`pl_metrics.from_score_counts`
- the same functions as on one machine::

    import pl_metrics.spark as pms

    sdf = spark.read.parquet("s3://bucket/preds/")
    pms.report(sdf, "y_true", "y_pred", by="country")

Why the states meet on the driver (not in a Spark ``groupBy``): the finishing
step needs the whole merged state there anyway, and a ``groupBy`` only removes
keys repeated across partitions.  The confusion state has at most segments x
K^2 rows per partition and a binned (``bins=``) or rounded score state at most
segments x (bins + 1); for exact continuous scores the distinct scores are
about the rows, so the merged state is as large as the partitions' states
together.  The states travel as Arrow IPC, so their dtypes are exactly those
of Polars (no Spark type mapping of the labels and counts).

Intervals (``ci=``, ``n_boot``, ``seed``, ``ci_method``) of ``per_class``,
``averages``, ``report``, ``summary``, ``roc_auc`` and ``average_precision`` come
from the merged state on the driver: the bootstrap redraws the merged counts, so
for a seed the interval is the frame method's on the same rows, however they
are partitioned.  As the frame methods, they need un-weighted rows (``weight``
with ``ci`` is refused before any job).

Errors: the columns, dtypes and options are checked on the driver before any
job runs (the checks of the frame methods, on an empty frame of the Spark
schema).  Bad rows (nulls, NaN scores, negative weights, ...) are found on the
executors; their errors come back to the driver as the same exception, with
the rows counted over all partitions: the message is the one the frame method
gives on all rows (not a Py4J stack trace).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics import metrics
from pl_metrics._core import checks as v
from pl_metrics._drift import state as ds
from pl_metrics._drift.state import shard_job as drift_shard_job
from pl_metrics._engines.spark import _Job, _run
from pl_metrics._typing import (
    ApCiMethod,
    AucCiMethod,
    AverageCiMethod,
    By,
    ExtraScore,
    KappaWeights,
    LabelCiMethod,
    Labels,
    SummaryCiMethod,
)
from pl_metrics.state import (
    COUNTS_COLUMNS,
    SCORE_COUNTS_COLUMNS,
    from_counts,
    from_score_counts,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkFrame

#: Rows of Arrow batches gathered into one Polars frame on an executor (read on the
#: driver when a function is called).
CHUNK_ROWS = 1_000_000


def _job(
    method: str, args: tuple[str, str], by: By = None, weight: str | None = None, **kwargs: Any
) -> _Job:
    segments = v.normalize_by(by)
    state_columns = COUNTS_COLUMNS if method == "counts" else SCORE_COUNTS_COLUMNS
    n_keys = 2 if method == "counts" else 1
    columns: list[str] = []
    for item in [*args, weight, *segments.given]:
        roots = item.meta.root_names() if isinstance(item, pl.Expr) else [item]
        columns += [c for c in roots if isinstance(c, str) and c not in columns]
    return _Job(
        method,
        args,
        {"by": list(segments.given) or None, "weight": weight, **kwargs},
        [*segments.names, *state_columns[:n_keys]],
        list(state_columns[n_keys:]),
        columns,
        CHUNK_ROWS,
    )


# ---------------------------------------------------------------- public functions
def _confusion(
    sdf: SparkFrame,
    method: str,
    y_true: str,
    y_pred: str,
    *,
    by: By,
    weight: str | None,
    options: dict[str, Any],
) -> pl.DataFrame:
    """A confusion method: the merged counts state finished by ``from_counts``."""
    job = _job("counts", (y_true, y_pred), by, weight)

    def check(lf: pl.LazyFrame) -> object:
        return getattr(metrics(lf), method)(y_true, y_pred, by=by, weight=weight, **options)

    state = _run(sdf, job, check)
    return getattr(from_counts(state, by=v.by_names(by)), method)(**options)


def _ranking(
    sdf: SparkFrame,
    method: str,
    y_true: str,
    y_score: str,
    *,
    common: dict[str, Any],
    options: dict[str, Any],
    finish: dict[str, Any],
) -> pl.DataFrame:
    """A ranking method: the merged per-score state finished by ``from_score_counts``
    (``common``: by, pos_label, weight, bins; ``options``: the frame method's other
    options; ``finish``: the finisher's)."""
    by = common["by"]
    job = _job("score_counts", (y_true, y_score), **common)

    def check(lf: pl.LazyFrame) -> object:
        return getattr(metrics(lf), method)(y_true, y_score, **common, **options)

    state = _run(sdf, job, check)
    return getattr(from_score_counts(state, by=v.by_names(by)), method)(**finish)


def counts(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    weight: str | None = None,
) -> pl.DataFrame:
    """The merged confusion-counts state of all partitions (``*by, actual, predicted,
    count``): ``.metrics.counts`` on all rows, sorted by its keys."""
    job = _job("counts", (y_true, y_pred), by, weight)
    return _run(sdf, job, job.state)


def score_counts(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
) -> pl.DataFrame:
    """The merged per-score state of all partitions (``*by, score, pos, neg``):
    ``.metrics.score_counts`` on all rows, sorted by its keys."""
    job = _job("score_counts", (y_true, y_score), by, weight, pos_label=pos_label, bins=bins)
    return _run(sdf, job, job.state)


def confusion_matrix(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    normalize: str | None = None,
) -> pl.DataFrame:
    """``.metrics.confusion_matrix`` of all rows of the Spark frame."""
    options = {"labels": labels, "normalize": normalize}
    return _confusion(
        sdf, "confusion_matrix", y_true, y_pred, by=by, weight=weight, options=options
    )


def per_class(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    extra_scores: ExtraScore | Sequence[ExtraScore] = (),
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: LabelCiMethod = "delta",
) -> pl.DataFrame:
    """``.metrics.per_class`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_pred, by, labels, weight, beta, zero_division, extra_scores
        As :meth:`MetricsLazyFrame.per_class`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.per_class` (``"delta"``, ``"bootstrap"``,
        ``"wilson"`` or ``"poisson"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.per_class`` of all rows of the Spark frame.
    """
    options = {"labels": labels, "beta": beta, "zero_division": zero_division}
    options |= {"extra_scores": extra_scores}
    options |= {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    return _confusion(sdf, "per_class", y_true, y_pred, by=by, weight=weight, options=options)


def averages(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    extra_scores: ExtraScore | Sequence[ExtraScore] = (),
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: AverageCiMethod = "delta",
) -> pl.DataFrame:
    """``.metrics.averages`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_pred, by, labels, weight, beta, zero_division, extra_scores
        As :meth:`MetricsLazyFrame.averages`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.averages` (``"delta"``, ``"bootstrap"`` or
        ``"poisson"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.averages`` of all rows of the Spark frame.
    """
    options = {"labels": labels, "beta": beta, "zero_division": zero_division}
    options |= {"extra_scores": extra_scores}
    options |= {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    return _confusion(sdf, "averages", y_true, y_pred, by=by, weight=weight, options=options)


def report(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
    extra_scores: ExtraScore | Sequence[ExtraScore] = (),
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: AverageCiMethod = "delta",
) -> pl.DataFrame:
    """``.metrics.report`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_pred, by, labels, weight, beta, zero_division, extra_scores
        As :meth:`MetricsLazyFrame.report`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.report` (``"delta"``, ``"bootstrap"`` or
        ``"poisson"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.report`` of all rows of the Spark frame.
    """
    options = {"labels": labels, "beta": beta, "zero_division": zero_division}
    options |= {"extra_scores": extra_scores}
    options |= {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    return _confusion(sdf, "report", y_true, y_pred, by=by, weight=weight, options=options)


def summary(
    sdf: SparkFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By = None,
    labels: Labels = None,
    weight: str | None = None,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: SummaryCiMethod = "delta",
    kappa_weights: KappaWeights | None = None,
    replace_undefined_by: float = float("nan"),
    adjusted: bool = False,
) -> pl.DataFrame:
    """``.metrics.summary`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_pred, by, labels, weight, kappa_weights, replace_undefined_by, adjusted
        As :meth:`MetricsLazyFrame.summary`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.summary` (``"delta"``, the default,
        ``"bootstrap"``, ``"wilson"`` or ``"poisson"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.summary`` of all rows of the Spark frame.
    """
    options = {"labels": labels, "kappa_weights": kappa_weights}
    options |= {"replace_undefined_by": replace_undefined_by, "adjusted": adjusted}
    options |= {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    return _confusion(sdf, "summary", y_true, y_pred, by=by, weight=weight, options=options)


def roc_auc(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    max_fpr: float | None = None,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: AucCiMethod = "delong",
) -> pl.DataFrame:
    """Binary ``.metrics.roc_auc`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_score, by, pos_label, weight, bins, max_fpr
        As :meth:`MetricsLazyFrame.roc_auc`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.roc_auc` (``"delong"``, the default,
        ``"bootstrap"`` or ``"poisson"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.roc_auc`` of all rows of the Spark frame; with ``bins``, also
        ``roc_auc_error_bound``.
    """
    options = {"max_fpr": max_fpr, "ci": ci, "n_boot": n_boot, "seed": seed}
    options |= {"ci_method": ci_method}
    finish = {"error_bound": bins is not None, **options}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(sdf, "roc_auc", y_true, y_score, common=common, options=options, finish=finish)


def average_precision(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
    ci_method: ApCiMethod = "logit",
) -> pl.DataFrame:
    """Binary ``.metrics.average_precision`` of all rows of the Spark frame.

    Parameters
    ----------
    sdf
        The Spark frame.
    y_true, y_score, by, pos_label, weight, bins
        As :meth:`MetricsLazyFrame.average_precision`.
    ci, n_boot, seed, ci_method
        As :meth:`MetricsLazyFrame.average_precision` (``"logit"``, the default,
        ``"boyd"``, ``"bootstrap"`` or ``"poisson"``):
        computed on the driver from the merged state; for a seed, the frame
        method's interval on the same rows.  Not with ``weight`` (refused before
        any Spark job).

    Returns
    -------
    DataFrame
        ``.metrics.average_precision`` of all rows of the Spark frame.
    """
    options = {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(
        sdf, "average_precision", y_true, y_score, common=common, options=options, finish=options
    )


def roc_curve(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    drop_intermediate: bool = True,
) -> pl.DataFrame:
    """``.metrics.roc_curve`` of all rows of the Spark frame."""
    options = {"drop_intermediate": drop_intermediate}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(
        sdf, "roc_curve", y_true, y_score, common=common, options=options, finish=options
    )


def pr_curve(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    drop_intermediate: bool = False,
) -> pl.DataFrame:
    """``.metrics.pr_curve`` of all rows of the Spark frame."""
    options = {"drop_intermediate": drop_intermediate}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(
        sdf, "pr_curve", y_true, y_score, common=common, options=options, finish=options
    )


def ks(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
) -> pl.DataFrame:
    """``.metrics.ks`` of all rows of the Spark frame; with ``bins``, also
    ``ks_error_bound``."""
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(
        sdf,
        "ks",
        y_true,
        y_score,
        common=common,
        options={},
        finish={"error_bound": bins is not None},
    )


def gains(
    sdf: SparkFrame,
    y_true: str,
    y_score: str,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    bins: int | None = None,
    buckets: int | Sequence[float] = 10,
) -> pl.DataFrame:
    """``.metrics.gains`` of all rows of the Spark frame."""
    options = {"buckets": buckets}
    common = {"by": by, "pos_label": pos_label, "weight": weight, "bins": bins}
    return _ranking(sdf, "gains", y_true, y_score, common=common, options=options, finish=options)


def drift_counts(
    sdf: SparkFrame,
    columns: str | Sequence[str],
    *,
    edges: Mapping[str, Sequence[float]],
    by: By = None,
) -> pl.DataFrame:
    """The merged ``.metrics.drift_counts`` state of all partitions (``*by, column, bin,
    lower, upper, rows``), counted at the reference's ``edges``
    (``pl_metrics.drift_edges(reference_state)``); :func:`pl_metrics.from_drift_counts`
    finishes it."""
    chosen, kwargs, keys, read = drift_shard_job(columns, edges, by)
    job = _Job("drift_counts", (chosen,), kwargs, keys, ["rows"], read, CHUNK_ROWS)
    return ds.in_bin_order(_run(sdf, job, job.state), keys)


#: The public functions and the executors' chunk size (``from pl_metrics.spark import
#: *``, ``dir``, ``help``): not the names this module imports (``pl``, ``Any`` ...).
__all__ = [
    "CHUNK_ROWS",
    "average_precision",
    "averages",
    "confusion_matrix",
    "counts",
    "drift_counts",
    "gains",
    "ks",
    "per_class",
    "pr_curve",
    "report",
    "roc_auc",
    "roc_curve",
    "score_counts",
    "summary",
]


def __dir__() -> list[str]:
    """``dir(pl_metrics.spark)``: :data:`__all__` (PEP 562)."""
    return sorted(__all__)
