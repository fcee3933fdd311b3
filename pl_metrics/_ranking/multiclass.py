"""The per-class view of multiclass scores ``{label: column}`` (one-vs-rest).

Every function reads the multiclass state of
:func:`pl_metrics._core.scores.multiclass_score_counts` (``*keys, CLASS, SCORE,
TRUE, N_ROWS``: one pass over the rows per score column) and turns it into
binary per-score counts (:func:`pl_metrics._ranking.from_counts.one_vs_rest`), then reuses the
binary metrics of :mod:`pl_metrics._ranking.from_counts` unchanged:

- per class (:func:`per_class_counts`): the class's score against "is the row of
  that class", keyed by segment and class - scikit-learn's
  ``label_binarize(y_true, classes)[:, k]`` against ``y_score[:, k]``;
- micro (:func:`micro_counts`): the same counts summed over the classes - the
  label-binarized ``y_true`` and the scores raveled, as scikit-learn's
  ``average="micro"``.

A class absent from a segment's ``y_true`` has no positives there: its ROC AUC is
null (scikit-learn refuses a ``y_score`` column of a class absent from ``y_true``),
left out of the macro and weighted means (and weighs 0 in the weighted mean
anyway); its average precision is 0.0 and counts in the macro mean, as in the
multilabel form and scikit-learn's ``average_precision_score`` of the
``{label: indicator}`` matrix (:func:`pl_metrics._ranking.from_counts.ap_exprs`); its curves
are the binary curves of a problem without positives (tpr NaN, recall 1, as
scikit-learn's binary curves).
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pl_metrics._core import formulas, names, scores
from pl_metrics._core.options import checked
from pl_metrics._core.scores import CLASS, NEG, POS, SCORE, ScoreCounts
from pl_metrics._ranking import from_counts as ranking_from_counts
from pl_metrics._stats import normal

#: A class's number (or weight) of positives, the weight of the weighted average.
_POSITIVES = f"{names.INTERNAL}positives"

#: The output column naming the class of a per-class row.
LABEL = "label"


# --------------------------------------------------------------------------- options
def binary_only(option: str) -> ValueError:
    """The error of an option that binary scores take and ``{label: column}`` does not."""
    return ValueError(
        f"`{option}` is for binary scores (a column name as `y_score`), not for "
        "{label: column} scores: drop it"
    )


def check_options(
    *,
    pos_label: object = None,
    bins: int | None = None,
    ci: float | None = None,
    max_fpr: float | None = None,
) -> None:
    """Refuse the binary options given with ``{label: column}`` scores: every class is
    the positive class of its own one-vs-rest problem (scikit-learn: ``pos_label`` is
    fixed for multiclass ``y_true``; ``max_fpr`` raises "Partial AUC computation not
    available in multiclass setting")."""
    for option, value in (("pos_label", pos_label), ("bins", bins), ("ci", ci)):
        if value is not None:
            raise binary_only(option)
    checked("class scores", max_fpr=max_fpr)


def check_average(average: str | None, multi_class: str) -> None:
    """One-vs-one has neither a per-class view nor a micro average (scikit-learn:
    ``average=None`` raises NotImplementedError, ``"micro"`` is refused)."""
    checked("class scores", multi_class=multi_class, average=average)


# ---------------------------------------------------------------------------- counts
def counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: Mapping[object, str],
    *,
    by: object,
    weight: str | None,
    method: str,
    ci: bool = False,
) -> ScoreCounts:
    """The multiclass state of ``method``'s rows (checks as every multiclass method;
    ``ci``: the interval columns are the method's output columns too)."""
    reserved = names.output_columns(method, ci=ci)
    return scores.multiclass_score_counts(
        lf, y_true, y_score, by=by, weight=weight, reserved=reserved
    )


def per_class_counts(state: ScoreCounts) -> ScoreCounts:
    """``*keys, CLASS, SCORE, POS, NEG``: each class's score against the rest."""
    return ScoreCounts(ranking_from_counts.one_vs_rest(state), state.by, [*state.keys, CLASS])


def micro_counts(state: ScoreCounts) -> ScoreCounts:
    """``*keys, SCORE, POS, NEG``: the one-vs-rest counts summed over the classes (the
    raveled indicator matrix against the raveled scores)."""
    frame = (
        ranking_from_counts.one_vs_rest(state)
        .group_by(*state.keys, SCORE)
        .agg(pl.col(POS).sum(), pl.col(NEG).sum())
    )
    return ScoreCounts(frame, state.by, state.keys)


def _labelled(per_class: ScoreCounts, result: pl.LazyFrame) -> pl.LazyFrame:
    """A per-class result with its ``by`` names and the class as ``label``."""
    return per_class.finish(result).rename({CLASS: LABEL})


# --------------------------------------------------------------------------- metrics
def roc_auc(state: ScoreCounts, *, multi_class: str, average: str | None) -> pl.LazyFrame:
    """``*by, label, roc_auc`` (``average=None``) or ``*by, roc_auc``: per class,
    micro, or the macro / weighted mean
    (:func:`pl_metrics._ranking.from_counts.roc_auc_multiclass`)."""
    if average is None:
        ovr = per_class_counts(state)
        result = ovr.frame.group_by(ovr.keys).agg(
            ranking_from_counts.auc_exprs(integer=ranking_from_counts.integer_counts(ovr.frame))
        )
        return _labelled(ovr, result.select(*ovr.keys, "roc_auc").sort(ovr.keys, nulls_last=True))
    if average == "micro":
        return ranking_from_counts.roc_auc(micro_counts(state))
    return ranking_from_counts.roc_auc_multiclass(state, multi_class=multi_class, average=average)


def roc_auc_delong_per_class(state: ScoreCounts, ci: float) -> pl.LazyFrame:
    """``*by, label, roc_auc, roc_auc_low, roc_auc_high``: each class's AUC against the
    rest and DeLong's interval of that binary problem (null for a class with fewer
    than two positives or negatives in the segment)."""
    ovr = per_class_counts(state)
    exprs = ranking_from_counts.auc_exprs(integer=ranking_from_counts.integer_counts(ovr.frame))
    result = ovr.frame.group_by(ovr.keys).agg(*exprs, normal.delong_se().alias(SE))
    bounds = normal.delong_bounds(pl.col("roc_auc"), pl.col(SE), ci)
    return _labelled(
        ovr, result.select(*ovr.keys, "roc_auc", *bounds).sort(ovr.keys, nulls_last=True)
    )


#: The standard error column of :func:`delong_mean_se`.
SE = f"{names.INTERNAL}se"


def delong_mean_se(read: scores.RankingInput, *, average: str) -> pl.LazyFrame:
    """``*by, SE``: the standard error of the macro / weighted mean of the one-vs-rest
    ROC AUCs (un-weighted rows; the input resolved and checked by the point
    estimate's plan, :func:`pl_metrics._core.scores.classes_input`).

    Each class k is a binary problem on the same rows (its positives the rows of
    class k, its negatives the others), its AUC A_k the mean of DeLong's
    placements.  The mean sum_k c_k A_k (macro: c_k = 1 / K over the classes with
    an AUC; weighted: their share of the positives) has the variance
    ``sum_k sum_l c_k c_l C_kl``: C_kk is DeLong's variance of A_k; C_kl the
    covariance of the two AUCs' influence functions over the rows, the sum over
    the rows of psi_k psi_l, with psi_k = (placement_k - A_k) / P_k for a positive
    of k and / N_k for a negative (DeLong's covariance of two AUCs on the same
    rows, where each row is a positive of its class and a negative of the
    others).  Computed as ``sum_rows (sum_k c_k psi_k)^2`` plus, per class,
    ``c_k^2 (C_kk - sum_rows psi_k^2)``.  Null when a class of the mean has fewer
    than two positives or negatives."""
    assert read.classes is not None, "{label: column} scores"
    segments, y_true = read.given.segments, read.y_true
    dtype = read.schema[y_true]
    keys = names.segment_keys(segments)
    # the rows with their segment keys (un-weighted: none dropped)
    rows = read.rows if segments else read.rows.with_columns(pl.lit(True).alias(names.ALL))
    rows = rows.select(*keys, y_true, *dict.fromkeys(read.scores))
    classes = []
    for i, (label, column) in enumerate(zip(read.classes, read.scores, strict=True)):
        pos = pl.col(y_true) == pl.lit(label, dtype)
        score = pl.col(column).cast(pl.Float64) + 0.0  # -0.0 is 0.0
        p = pos.sum().over(keys).cast(pl.Float64)
        n = pl.len().over(keys).cast(pl.Float64) - p
        # the other class's rows below + half those tied: its rank less its rank in its class
        m = score.rank("average").over(keys) - score.rank("average").over([*keys, pos])
        placement = (
            pl.when(pos)
            .then(formulas.placement(m, 0.0, n))
            .otherwise(formulas.placement(p - m, 0.0, p))
        )
        classes.append(
            [
                placement.alias(f"{SE}v{i}"),
                pos.alias(f"{SE}pos{i}"),
                p.alias(f"{SE}p{i}"),
                n.alias(f"{SE}n{i}"),
            ]
        )
    rows = rows.with_columns(e for c in classes for e in c)
    terms = []
    for i in range(len(classes)):
        v_, pos = pl.col(f"{SE}v{i}"), pl.col(f"{SE}pos{i}")
        p, n = pl.col(f"{SE}p{i}"), pl.col(f"{SE}n{i}")
        auc = v_.filter(pos).sum().over(keys) / p
        size = pl.when(pos).then(p).otherwise(n)
        terms += [
            ((v_ - auc) / size).alias(f"{SE}psi{i}"),
            # DeLong's variance, summed per segment: (v - A)^2 / (P (P - 1)) or N (N - 1)
            ((v_ - auc) ** 2 / (size * (size - 1))).alias(f"{SE}dev{i}"),
            ((p > 0) & (n > 0)).alias(f"{SE}def{i}"),
        ]
    rows = rows.with_columns(terms)
    defined = [pl.col(f"{SE}def{i}") for i in range(len(classes))]
    share = [
        pl.col(f"{SE}p{i}") if average == "weighted" else pl.lit(1.0) for i in range(len(classes))
    ]
    total = pl.sum_horizontal(
        pl.when(d).then(w).otherwise(0.0) for d, w in zip(defined, share, strict=True)
    )
    weights = [
        pl.when(d).then(w / total).otherwise(0.0) for d, w in zip(defined, share, strict=True)
    ]
    rows = rows.with_columns(w.alias(f"{SE}c{i}") for i, w in enumerate(weights))
    c = [pl.col(f"{SE}c{i}") for i in range(len(classes))]
    psi = [pl.col(f"{SE}psi{i}").fill_nan(0.0).fill_null(0.0) for i in range(len(classes))]
    g = pl.sum_horizontal(ci * x for ci, x in zip(c, psi, strict=True))
    corrections = [
        ci.first() ** 2 * (pl.col(f"{SE}dev{i}").sum() - (x**2).sum())
        for i, (ci, x) in enumerate(zip(c, psi, strict=True))
    ]
    enough = [
        (pl.col(f"{SE}p{i}") > 1) & (pl.col(f"{SE}n{i}") > 1) | ~pl.col(f"{SE}def{i}")
        for i in range(len(classes))
    ]
    valid = pl.all_horizontal(e.first() for e in enough) & pl.any_horizontal(
        d.first() for d in defined
    )
    variance = (g**2).sum() + pl.sum_horizontal(
        pl.when(ci.first() > 0).then(x).otherwise(0.0) for ci, x in zip(c, corrections, strict=True)
    )
    se = pl.when(valid).then(variance.clip(lower_bound=0.0).sqrt())
    result = rows.group_by(keys).agg(se.alias(SE))
    return names.restore_keys(result, segments.names)


def average_precision(state: ScoreCounts, *, average: str | None) -> pl.LazyFrame:
    """``*by, label, average_precision`` (``average=None``) or ``*by, average_precision``:
    scikit-learn's ``average_precision_score`` of the label-binarized ``y_true``.

    Per class, 0.0 for a class without positives in the segment (the rule of every
    form: :func:`pl_metrics._ranking.from_counts.ap_exprs`); macro: the mean over the classes of
    ``y_score``; weighted: by their (weighted) prevalence; micro: the raveled
    indicator matrix (a class absent from a segment adds negatives only).
    """
    if average == "micro":
        return ranking_from_counts.average_precision(micro_counts(state))
    ovr = per_class_counts(state)
    p_total, ap = ranking_from_counts.ap_exprs(ranking_from_counts.integer_counts(ovr.frame))
    per_class = ovr.frame.group_by(ovr.keys).agg(
        p_total.alias(_POSITIVES), ap.alias("average_precision")
    )
    if average is None:
        result = per_class.select(*ovr.keys, "average_precision")
        return _labelled(ovr, result.sort(ovr.keys, nulls_last=True))
    mean = ranking_from_counts.class_mean(
        per_class, state.keys, "average_precision", pl.col(_POSITIVES), average
    )
    return state.finish(mean)


def roc_curve(state: ScoreCounts, *, drop_intermediate: bool) -> pl.LazyFrame:
    """``*by, label, threshold, fpr, tpr``: scikit-learn's ``roc_curve`` of each class
    against the rest (each class's curve starts at +inf)."""
    ovr = per_class_counts(state)
    return ranking_from_counts.roc_curve(ovr, drop_intermediate=drop_intermediate).rename(
        {CLASS: LABEL}
    )


def pr_curve(state: ScoreCounts, *, drop_intermediate: bool) -> pl.LazyFrame:
    """``*by, label, threshold, precision, recall``: scikit-learn's
    ``precision_recall_curve`` of each class against the rest."""
    ovr = per_class_counts(state)
    return ranking_from_counts.pr_curve(ovr, drop_intermediate=drop_intermediate).rename(
        {CLASS: LABEL}
    )


__all__ = [
    "LABEL",
    "average_precision",
    "binary_only",
    "check_average",
    "check_options",
    "counts",
    "delong_mean_se",
    "micro_counts",
    "per_class_counts",
    "pr_curve",
    "roc_auc",
    "roc_auc_delong_per_class",
    "roc_curve",
]
