"""scikit-learn's ``class_likelihood_ratios`` of a 2x2 matrix (re-exported by
:mod:`pl_metrics._core.formulas`, the formulas' home, as ``fm.likelihood_ratios``)."""

from __future__ import annotations

from typing import Any

from pl_metrics._core.backends import POLARS, Backend


def likelihood_ratios(  # noqa: PLR0917 - the counts, then the options, as every formula here
    tp: Any,
    fp: Any,
    fn: Any,
    tn: Any,
    undefined_pos: float,
    undefined_neg: float,
    xp: Backend = POLARS,
) -> tuple[Any, Any]:
    """scikit-learn's ``class_likelihood_ratios``: LR+ = recall / (1 - specificity) =
    tp (tn + fp) / (fp (tp + fn)) and LR- = (1 - recall) / specificity =
    fn (tn + fp) / (tn (tp + fn)).  LR+ is ``undefined_pos`` where fp = 0, LR-
    ``undefined_neg`` where tn = 0; otherwise, without positives (tp + fn = 0),
    both are NaN (scikit-learn's order of its three cases)."""
    tp, fp, fn, tn = (xp.to_float(x) for x in (tp, fp, fn, tn))
    support_pos, support_neg = tp + fn, tn + fp
    nan = float("nan")
    # a ratio of two rates, each within one class (in [0, 1]), not of two products:
    # tp (tn + fp) underflowed for weights [tp, fn, fp, tn] = [1e-162, 1e-162,
    # 1e-162, 1] (NaN, where the same weights times 2**-300 gave 5e161), and rates
    # neither overflow nor move with the weights' scale
    recall, miss = xp.ratio(tp, support_pos, nan), xp.ratio(fn, support_pos, nan)
    false_alarm, specificity = xp.ratio(fp, support_neg, nan), xp.ratio(tn, support_neg, nan)
    lr_pos = xp.where(fp == 0, undefined_pos, xp.ratio(recall, false_alarm, nan))
    lr_neg = xp.where(tn == 0, undefined_neg, xp.ratio(miss, specificity, nan))
    return lr_pos, lr_neg


__all__ = ["likelihood_ratios"]
