"""The derivative of a label metric at a joint cell of two models' predictions.

``compare_models``' delta method over the joint cells
(:mod:`pl_metrics._groups.paired_labels`, whose docstring derives them) needs, for
each cell (its actual label and one model's prediction), the model's metric's
partial derivative by that cell's count, and whether it is defined (the metric's
denominator is not 0).  Each label metric's record (``catalogue.Metric.cell_gradient``)
names its function here; the caller builds the cell's sums, as expressions:
:class:`BinaryCell` for a metric of the positive class's 2x2 counts,
:class:`SummaryCell` for one of the whole confusion matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class BinaryCell:
    """The positive class's counts of the cell's segment (one model's) and whether
    the cell's actual / predicted label is the positive class."""

    tp: pl.Expr
    fp: pl.Expr
    fn: pl.Expr
    actual: pl.Expr
    predicted: pl.Expr


@dataclass(frozen=True)
class SummaryCell:
    """One model's sums at a cell (actual class i, predicted class j): ``same`` [i = j];
    the segment's rows ``n``, classes with actual rows ``k``, sum of t_k^2 ``t2``,
    diagonal ``trace``, sum of t_k p_k ``tp`` and of p_k^2 ``p2``; class i's actual
    rows ``t_i``, predicted rows ``p_i`` and diagonal cell ``diag_i``; class j's
    actual rows ``t_j`` and predicted rows ``p_j``."""

    same: pl.Expr
    n: pl.Expr
    k: pl.Expr
    t2: pl.Expr
    trace: pl.Expr
    tp: pl.Expr
    p2: pl.Expr
    t_i: pl.Expr
    p_i: pl.Expr
    diag_i: pl.Expr
    t_j: pl.Expr
    p_j: pl.Expr


Gradient = tuple[pl.Expr, pl.Expr]


def precision(c: BinaryCell) -> Gradient:
    """(FP, -TP) / (TP + FP)^2 by (TP, FP)."""
    den = c.tp + c.fp
    grad = pl.when(c.predicted).then(pl.when(c.actual).then(c.fp).otherwise(-c.tp)).otherwise(0.0)
    return grad / den.pow(2), den > 0


def recall(c: BinaryCell) -> Gradient:
    """(FN, -TP) / (TP + FN)^2 by (TP, FN)."""
    den = c.tp + c.fn
    grad = pl.when(c.actual).then(pl.when(c.predicted).then(c.fn).otherwise(-c.tp)).otherwise(0.0)
    return grad / den.pow(2), den > 0


def f1(c: BinaryCell) -> Gradient:
    """By TP 2 (FP + FN), by FP or FN -2 TP, over (2 TP + FP + FN)^2."""
    tp, fp, fn = c.tp, c.fp, c.fn
    den = 2 * tp + fp + fn
    on_tp = pl.when(c.predicted).then(2 * (fp + fn)).otherwise(-2 * tp)
    grad = (
        pl.when(c.actual).then(on_tp).otherwise(pl.when(c.predicted).then(-2 * tp).otherwise(0.0))
    )
    return grad / den.pow(2), den > 0


def balanced_accuracy(c: SummaryCell) -> Gradient:
    """([i = j] t_i - C_ii) / (K t_i^2); defined everywhere."""
    grad = (c.same * c.t_i - c.diag_i) / (c.k * c.t_i.pow(2))
    return grad, pl.lit(value=True)


def _u(c: SummaryCell) -> tuple[pl.Expr, pl.Expr]:
    """U = c n - sum t_k p_k and dU = [i = j] n + c - p_i - t_j."""
    return c.trace * c.n - c.tp, c.same * c.n + c.trace - c.p_i - c.t_j


def mcc(c: SummaryCell) -> Gradient:
    """dU / sqrt(V_t V_p) - U (dV_t V_p + V_t dV_p) / (2 (V_t V_p)^(3/2))."""
    u, du = _u(c)
    n = c.n
    vt, vp = n.pow(2) - c.t2, n.pow(2) - c.p2
    dvt, dvp = 2 * n - 2 * c.t_i, 2 * n - 2 * c.p_j
    grad = du / (vt * vp).sqrt() - u * (dvt * vp + vt * dvp) / (2 * (vt * vp).pow(1.5))
    return grad, vt * vp > 0


def cohen_kappa(c: SummaryCell) -> Gradient:
    """(dU W - U dW) / W^2, W = n^2 - sum t_k p_k, dW = 2 n - p_i - t_j."""
    u, du = _u(c)
    n = c.n
    w = n.pow(2) - c.tp
    grad = (du * w - u * (2 * n - c.p_i - c.t_j)) / w.pow(2)
    return grad, w != 0


__all__ = [
    "BinaryCell",
    "Gradient",
    "SummaryCell",
    "balanced_accuracy",
    "cohen_kappa",
    "f1",
    "mcc",
    "precision",
    "recall",
]
