"""The per-class view of multiclass scores ``{label: column}`` (one-vs-rest).

Every function reads the multiclass state of
:func:`pl_metrics._core.scores.multiclass_score_counts` (``*keys, CLASS, SCORE,
TRUE, N_ROWS``: one pass over the rows per score column) and turns it into
binary per-score counts (:func:`pl_metrics._ranking.one_vs_rest`), then reuses the
binary metrics of :mod:`pl_metrics._ranking` unchanged:

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
``{label: indicator}`` matrix (:func:`pl_metrics._ranking.ap_exprs`); its curves
are the binary curves of a problem without positives (tpr NaN, recall 1, as
scikit-learn's binary curves).
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pl_metrics import _ranking as rk
from pl_metrics._core import names
from pl_metrics._core import scores as sc
from pl_metrics._core.scores import CLASS, NEG, POS, SCORE, ScoreCounts

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
    if max_fpr is not None:
        msg = (
            "`max_fpr` (partial AUC) is for binary scores, as in scikit-learn: with "
            "{label: column} scores, drop it, or pass one class's score column with "
            "its pos_label"
        )
        raise ValueError(msg)


def check_average(average: str | None, multi_class: str) -> None:
    """One-vs-one has neither a per-class view nor a micro average (scikit-learn:
    ``average=None`` raises NotImplementedError, ``"micro"`` is refused)."""
    if multi_class == "ovo" and average not in ("macro", "weighted"):
        msg = (
            f"`average={average!r}` is for multi_class='ovr' (one-vs-rest); with "
            "multi_class='ovo' use 'macro' or 'weighted', as scikit-learn"
        )
        raise ValueError(msg)


# ---------------------------------------------------------------------------- counts
def counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: Mapping[object, str],
    *,
    by: object,
    weight: str | None,
    method: str,
) -> ScoreCounts:
    """The multiclass state of ``method``'s rows (checks as every multiclass method)."""
    return sc.multiclass_score_counts(
        lf, y_true, y_score, by=by, weight=weight, reserved=names.output_columns(method)
    )


def per_class_counts(state: ScoreCounts) -> ScoreCounts:
    """``*keys, CLASS, SCORE, POS, NEG``: each class's score against the rest."""
    return ScoreCounts(rk.one_vs_rest(state), state.by, [*state.keys, CLASS])


def micro_counts(state: ScoreCounts) -> ScoreCounts:
    """``*keys, SCORE, POS, NEG``: the one-vs-rest counts summed over the classes (the
    raveled indicator matrix against the raveled scores)."""
    frame = (
        rk.one_vs_rest(state).group_by(*state.keys, SCORE).agg(pl.col(POS).sum(), pl.col(NEG).sum())
    )
    return ScoreCounts(frame, state.by, state.keys)


def _labelled(per_class: ScoreCounts, result: pl.LazyFrame) -> pl.LazyFrame:
    """A per-class result with its ``by`` names and the class as ``label``."""
    return per_class.finish(result).rename({CLASS: LABEL})


# --------------------------------------------------------------------------- metrics
def roc_auc(state: ScoreCounts, *, multi_class: str, average: str | None) -> pl.LazyFrame:
    """``*by, label, roc_auc`` (``average=None``) or ``*by, roc_auc``: per class,
    micro, or the macro / weighted mean (:func:`pl_metrics._ranking.roc_auc_multiclass`)."""
    if average is None:
        ovr = per_class_counts(state)
        result = ovr.frame.group_by(ovr.keys).agg(rk.auc_exprs())
        return _labelled(ovr, result.select(*ovr.keys, "roc_auc").sort(ovr.keys, nulls_last=True))
    if average == "micro":
        return rk.roc_auc(micro_counts(state))
    return rk.roc_auc_multiclass(state, multi_class=multi_class, average=average)


def average_precision(state: ScoreCounts, *, average: str | None) -> pl.LazyFrame:
    """``*by, label, average_precision`` (``average=None``) or ``*by, average_precision``:
    scikit-learn's ``average_precision_score`` of the label-binarized ``y_true``.

    Per class, 0.0 for a class without positives in the segment (the rule of every
    form: :func:`pl_metrics._ranking.ap_exprs`); macro: the mean over the classes of
    ``y_score``; weighted: by their (weighted) prevalence; micro: the raveled
    indicator matrix (a class absent from a segment adds negatives only).
    """
    if average == "micro":
        return rk.average_precision(micro_counts(state))
    ovr = per_class_counts(state)
    p_total, ap = rk.ap_exprs()
    per_class = ovr.frame.group_by(ovr.keys).agg(
        p_total.alias(_POSITIVES), ap.alias("average_precision")
    )
    if average is None:
        result = per_class.select(*ovr.keys, "average_precision")
        return _labelled(ovr, result.sort(ovr.keys, nulls_last=True))
    mean = rk.class_mean(per_class, state.keys, "average_precision", pl.col(_POSITIVES), average)
    return state.finish(mean)


def roc_curve(state: ScoreCounts, *, drop_intermediate: bool) -> pl.LazyFrame:
    """``*by, label, threshold, fpr, tpr``: scikit-learn's ``roc_curve`` of each class
    against the rest (each class's curve starts at +inf)."""
    ovr = per_class_counts(state)
    return rk.roc_curve(ovr, drop_intermediate=drop_intermediate).rename({CLASS: LABEL})


def pr_curve(state: ScoreCounts, *, drop_intermediate: bool) -> pl.LazyFrame:
    """``*by, label, threshold, precision, recall``: scikit-learn's
    ``precision_recall_curve`` of each class against the rest."""
    ovr = per_class_counts(state)
    return rk.pr_curve(ovr, drop_intermediate=drop_intermediate).rename({CLASS: LABEL})


__all__ = [
    "LABEL",
    "average_precision",
    "binary_only",
    "check_average",
    "check_options",
    "counts",
    "micro_counts",
    "per_class_counts",
    "pr_curve",
    "roc_auc",
    "roc_curve",
]
