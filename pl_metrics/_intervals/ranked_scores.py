"""ROC AUC and average precision of every kind of input, with their intervals: what
``.metrics.roc_auc`` and ``.metrics.average_precision`` run (issue 50: a namespace
method is its signature, its docstring and one call).

Each tells the three kinds of input apart once, in this order: multilabel (a List
``y_true``, or ``{label: indicator column}``: :mod:`pl_metrics._multilabel.ranking`),
binary (a score column: the per-score counts of :func:`binary_counts`, or the sorted
path on continuous scores, :mod:`pl_metrics._ranking.sorted_path`), and one-vs-rest
classes (``{label: column}`` scores: :mod:`pl_metrics._ranking.multiclass`).  The
intervals: DeLong's and the AP's analytic ones from the counts
(:mod:`pl_metrics._intervals.attach`), the bootstrap after the point
(:func:`with_bootstrap`), the classes' from :mod:`pl_metrics._intervals.ovr`.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pl_metrics._core import checks, names, scores
from pl_metrics._core.checks import wants_ci as _wants_ci
from pl_metrics._core.options import checked
from pl_metrics._intervals import attach, ovr
from pl_metrics._intervals.sampling import Seed, resampling
from pl_metrics._multilabel import ranking
from pl_metrics._ranking import multiclass, sorted_path


def binary_input(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: object,
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    method: str,
    ci: bool = False,
    pos_label_present: bool = True,
) -> scores.RankingInput:
    """The input of a binary score column for ``method``, resolved once (its output
    columns reserved from ``by``; the segments, ``pos_label``): what its counts, its
    sorted path and its sorted curve read."""
    return scores.binary_input(
        lf,
        y_true,
        y_score,
        by=by,
        pos_label=pos_label,
        weight=weight,
        reserved=names.output_columns(method, ci=ci),
        pos_label_present=pos_label_present,
    )


def classes_input(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: object,
    *,
    by: object,
    weight: str | None,
    method: str,
    ci: bool = False,
) -> scores.RankingInput:
    """The input of ``{label: column}`` scores for ``method``, resolved once (the
    segments, the classes of the keys)."""
    reserved = names.output_columns(method, ci=ci)
    return scores.classes_input(lf, y_true, y_score, by=by, weight=weight, reserved=reserved)


def binary_counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: str,
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    method: str,
    bins: int | None = None,
    ci: bool = False,
    pos_label_present: bool = True,
    sortable: bool = False,
) -> scores.ScoreCounts:
    """The per-score counts of a binary score column for ``method`` (``bins`` checked,
    then :func:`binary_input`)."""
    bins = checked(method, bins=bins)[0]
    read = binary_input(
        lf,
        y_true,
        y_score,
        by=by,
        pos_label=pos_label,
        weight=weight,
        method=method,
        ci=ci,
        pos_label_present=pos_label_present,
    )
    return scores.score_counts(read, bins=bins, sortable=sortable)


def with_bootstrap(  # noqa: PLR0917 - the callers' own arguments, in order
    counts: scores.ScoreCounts,
    point: pl.LazyFrame,
    metric: str,
    ci: float | None,
    n_boot: int,
    seed: Seed,
    bootstrap: bool,
) -> pl.LazyFrame:
    """``point`` with the bootstrap interval of ``metric`` drawn from the per-score
    ``counts`` when ``bootstrap``: the point is the plain call's (by sorting
    continuous scores, a tenth of the per-score counts' cost), so only the
    interval reads the counts; else ``point`` as it is."""
    if not bootstrap:
        return point
    return attach.bootstrap_scores(counts, point, metric, ci=ci, n_boot=n_boot, seed=seed)


def roc_auc(
    lf: pl.LazyFrame,
    y_true: str | Mapping[object, str],
    y_score: object,
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    labels: object,
    bins: int | None,
    multi_class: str,
    average: str | None,
    max_fpr: float | None,
    ci: float | None,
    n_boot: int,
    seed: int | None,
    ci_method: str,
) -> pl.LazyFrame:
    """:meth:`pl_metrics.MetricsLazyFrame.roc_auc`."""
    multi_class, average, bins, max_fpr = checked(
        "roc_auc", multi_class=multi_class, average=average, bins=bins, max_fpr=max_fpr
    )
    if ranking.is_multilabel_call(lf, y_true):
        ranking.check_options(pos_label=pos_label, bins=bins, ci=ci, multi_class=multi_class)
        return ranking.ranking_metric(
            lf,
            "roc_auc",
            y_true,
            y_score,
            labels=labels,
            by=by,
            weight=weight,
            average=average,
            max_fpr=max_fpr,
        )
    ranking.check_single_label(average, labels)
    y_true = checks.check_column_name("y_true", y_true)
    wants_ci = _wants_ci(
        ci, n_boot, ci_method, weight, seed=seed, methods=checks.CI_METHODS["roc_auc"]
    )
    ci_method, seed = resampling(ci_method, seed)  # "poisson": the bootstrap, its seed
    options = {
        "by": by,
        "pos_label": pos_label,
        "weight": weight,
        "bins": bins,
        "max_fpr": max_fpr,
        "ci": ci if wants_ci else None,
        "n_boot": n_boot,
        "seed": seed,
        "ci_method": ci_method,
    }
    if isinstance(y_score, str):
        return _binary_roc_auc(lf, y_true, y_score, **options)
    return _classes_roc_auc(
        lf, y_true, y_score, multi_class=multi_class, average=average, **options
    )


def _binary_roc_auc(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: str,
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    bins: int | None,
    max_fpr: float | None,
    ci: float | None,
    n_boot: int,
    seed: Seed,
    ci_method: str,
) -> pl.LazyFrame:
    """The ROC AUC of a score column (``average`` is ignored, as scikit-learn does):
    from the per-score counts (``bins``, weights, ``max_fpr``, the analytic
    intervals), or by sorting continuous scores; the bootstrap drawn from the counts
    after the point."""
    checks.check_partial_auc(max_fpr, bound="bins", bounded=bins is not None, ci=ci is not None)
    bins = checked("roc_auc", bins=bins)[0]
    read = binary_input(
        lf,
        y_true,
        y_score,
        by=by,
        pos_label=pos_label,
        weight=weight,
        method="roc_auc",
        ci=ci is not None,
    )
    counts = scores.score_counts(read, bins=bins)
    bootstrap = ci is not None and ci_method == "bootstrap"
    analytic = None if bootstrap else ci  # the bootstrap's bounds come after the point
    counted = attach.finish_roc_auc(
        counts,
        error_bound=bins is not None,
        max_fpr=max_fpr,
        ci=analytic,
        ci_method=ci_method,
        n_boot=n_boot,
        seed=seed,
    )
    if max_fpr is not None:  # the partial AUC: counted only, and no interval
        return counted
    point = sorted_path.sorted_or_input(read, counted, bins=bins, ci=analytic)
    return with_bootstrap(counts, point, "roc_auc", ci, n_boot, seed, bootstrap)


def _classes_roc_auc(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: Mapping[object, str],
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    bins: int | None,
    multi_class: str,
    average: str | None,
    max_fpr: float | None,
    ci: float | None,
    n_boot: int,
    seed: Seed,
    ci_method: str,
) -> pl.LazyFrame:
    """The one-vs-rest (or one-vs-one) ROC AUC of ``{label: column}`` scores, its
    intervals DeLong's (per class, or of the macro / weighted mean) or the rows'
    bootstrap."""
    checked("class scores", ci=ci, multi_class=multi_class, average=average, bins=bins)
    checked("class scores", multi_class=multi_class, weight=weight)
    multiclass.check_options(pos_label=pos_label, max_fpr=max_fpr)
    multiclass.check_average(average, multi_class)
    read = classes_input(
        lf, y_true, y_score, by=by, weight=weight, method="roc_auc", ci=ci is not None
    )
    state = scores.class_score_counts(read)
    boot = ci is not None and ci_method == "bootstrap"
    if ci is not None and average is None and not boot:
        return multiclass.roc_auc_delong_per_class(state, ci)
    counted = multiclass.roc_auc(state, multi_class=multi_class, average=average)
    if multi_class == "ovr" and average in ("macro", "weighted"):
        counted = sorted_path.sorted_or_input(read, counted, average=average)
        if ci is not None and not boot:
            assert average is not None
            se = multiclass.delong_mean_se(read, average=average)
            return attach.normal_bounds(counted, se, "roc_auc", multiclass.SE, ci)
    if boot:  # the bootstrap of the rows, each class's AUC on each replicate
        assert ci is not None
        bounds = ovr.bootstrap(read, average=average, ci=ci, n_boot=n_boot, seed=seed)
        return ovr.attach(counted, bounds, by=read.by, labels=list(y_score))
    return counted


def average_precision(
    lf: pl.LazyFrame,
    y_true: str | Mapping[object, str],
    y_score: object,
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    labels: object,
    bins: int | None,
    average: str | None,
    ci: float | None,
    n_boot: int,
    seed: int | None,
    ci_method: str,
) -> pl.LazyFrame:
    """:meth:`pl_metrics.MetricsLazyFrame.average_precision`."""
    (average,) = checked("average_precision", average=average)
    if ranking.is_multilabel_call(lf, y_true):
        ranking.check_options(pos_label=pos_label, bins=bins, ci=ci)
        return ranking.ranking_metric(
            lf,
            "average_precision",
            y_true,
            y_score,
            labels=labels,
            by=by,
            weight=weight,
            average=average,
        )
    ranking.check_single_label(average, labels)
    y_true = checks.check_column_name("y_true", y_true)
    if not isinstance(y_score, str):
        multiclass.check_options(pos_label=pos_label, bins=bins, ci=ci)
        read = classes_input(lf, y_true, y_score, by=by, weight=weight, method="average_precision")
        counted = multiclass.average_precision(scores.class_score_counts(read), average=average)
        if average in ("macro", "weighted"):  # the mean of the sorted classes' APs
            return sorted_path.sorted_or_input(
                read, counted, average=average, metric="average_precision"
            )
        return counted
    methods = checks.CI_METHODS["average_precision"]
    wants_ci = _wants_ci(ci, n_boot, ci_method, weight, seed=seed, methods=methods)
    ci_method, seed = resampling(ci_method, seed)  # "poisson": the bootstrap, its seed
    bins = checked("average_precision", bins=bins)[0]
    read = binary_input(
        lf,
        y_true,
        y_score,
        by=by,
        pos_label=pos_label,
        weight=weight,
        method="average_precision",
        ci=wants_ci,
    )
    counts = scores.score_counts(read, bins=bins)
    ci = ci if wants_ci else None
    bootstrap = ci is not None and ci_method == "bootstrap"
    analytic = None if bootstrap else ci  # the bootstrap's bounds come after the point
    counted = attach.finish_average_precision(
        counts, ci=analytic, ci_method=ci_method, n_boot=n_boot, seed=seed
    )
    if analytic is not None and ci_method == "boyd":  # counted only
        return counted
    point = sorted_path.sorted_or_input(
        read, counted, bins=bins, ci=analytic, metric="average_precision"
    )
    return with_bootstrap(counts, point, "average_precision", ci, n_boot, seed, bootstrap)


__all__ = [
    "average_precision",
    "binary_counts",
    "binary_input",
    "classes_input",
    "roc_auc",
    "with_bootstrap",
]
