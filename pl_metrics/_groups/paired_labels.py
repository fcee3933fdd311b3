"""Label metrics of two models on the same rows: the delta method's test.

The rows of a segment are a multinomial sample of its joint cells (a row's
actual label and both models' labels).  The difference of a metric between the
two models is a function of the cells' counts ``x``: each model's confusion
matrix sums them (cell (i, j, l) adds to the baseline's (i, j) and the model's
(i, l)), so the gradient of the difference at a cell is the model's partial
derivative at its confusion cell less the baseline's.  Its variance is the
multinomial's, ``sum x d^2 - (sum x d)^2 / n`` (``Cov(x) = diag(x) - x x' / n``),
as for average precision (:mod:`pl_metrics._groups.paired_ap`).

The partial derivatives of each metric by a confusion count C_ij (actual i,
predicted j), with n the rows, t_k / p_k the actual / predicted rows of class k
and c the diagonal's sum (scikit-learn's definitions):

- precision, recall, F1 of the positive class, from its TP, FP, FN:
  d precision = (FP, -TP) / (TP + FP)^2 by (TP, FP); d recall = (FN, -TP) /
  (TP + FN)^2 by (TP, FN); d F1 = (2 (FP + FN), -2 TP, -2 TP) / (2 TP + FP +
  FN)^2 by (TP, FP, FN);
- balanced accuracy, the mean of the recalls of the K classes present:
  ([i = j] t_i - C_ii) / (K t_i^2);
- MCC = U / sqrt(V_t V_p), with U = c n - sum_k t_k p_k, V_t = n^2 - sum_k t_k^2,
  V_p = n^2 - sum_k p_k^2: dU = [i = j] n + c - p_i - t_j, dV_t = 2 n - 2 t_i,
  dV_p = 2 n - 2 p_j, d MCC = dU / sqrt(V_t V_p) - U (dV_t V_p + V_t dV_p) /
  (2 (V_t V_p)^(3/2));
- Cohen's kappa = U / W, W = n^2 - sum_k t_k p_k: dW = 2 n - p_i - t_j, d kappa =
  (dU W - U dW) / W^2.

Each is homogeneous of degree 0 in the counts, so ``sum x d`` is 0 up to
rounding (Euler); it is kept in the variance all the same.  Where a metric's
denominator is 0 in either model (no predicted positives for precision, one
class for MCC...) its value is a convention (``zero_division``), not a smooth
function of the counts: the standard error is null there.  All in one polars
query: joins of the cells to their segment's per-class sums, no numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from pl_metrics._core import catalogue, paired_gradients
from pl_metrics._core.names import INTERNAL
from pl_metrics._groups.paired import COUNT, LABEL_METRICS, SE, A, B, Y

#: Per-class sums of a segment: the class, its actual rows, and by model its
#: predicted rows and its diagonal cell.
_CLASS, _T = f"{INTERNAL}class", f"{INTERNAL}t"
_P = {A: f"{INTERNAL}p_a", B: f"{INTERNAL}p_b"}
_DIAG = {A: f"{INTERNAL}diag_a", B: f"{INTERNAL}diag_b"}
_GRAD = {A: f"{INTERNAL}grad_a", B: f"{INTERNAL}grad_b"}
_OK = {A: f"{INTERNAL}ok_a", B: f"{INTERNAL}ok_b"}
#: Two derivatives of a cell within this share of their size are the same (rounding).
_SAME_WITHIN = 1e-12
#: The bound of a difference of the metric (its range's width): the interval's clip;
#: the summary's metrics of the delta method (``Metric.bounds``).
BOUNDS = {
    m: catalogue.CATALOGUE[m].bounds[1] - catalogue.CATALOGUE[m].bounds[0]
    for m in LABEL_METRICS
    if catalogue.CATALOGUE[m].cell_gradient is not None
}


def _gradient(
    metric: str, cell: paired_gradients.BinaryCell | paired_gradients.SummaryCell
) -> paired_gradients.Gradient:
    """The partial derivative of ``metric`` at a cell, and whether it is defined (its
    denominator is not 0): the metric's ``cell_gradient`` (``_core.paired_gradients``)."""
    gradient = catalogue.CATALOGUE[metric].cell_gradient
    if gradient is None:
        msg = f"compare_models has no delta method over the joint cells for {metric!r}"
        raise KeyError(msg)
    return gradient(cell)


def _binary_gradients(cells: pl.LazyFrame, keys: list[str], metric: str, pos: Any) -> pl.LazyFrame:
    c = pl.col(COUNT).cast(pl.Float64)
    actual = pl.col(Y) == pos
    out = cells
    for model in (A, B):
        predicted = pl.col(model) == pos
        tp = c.filter(actual & predicted).sum().over(keys)
        fp = c.filter(~actual & predicted).sum().over(keys)
        fn = c.filter(actual & ~predicted).sum().over(keys)
        grad, ok = _gradient(metric, paired_gradients.BinaryCell(tp, fp, fn, actual, predicted))
        out = out.with_columns(grad.alias(_GRAD[model]), ok.alias(_OK[model]))
    return out


def _class_sums(cells: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """``*keys, CLASS, T, P_A, P_B, DIAG_A, DIAG_B``: each class's rows of the segment
    (every label of the three columns, 0 where absent)."""
    c = pl.col(COUNT).cast(pl.Float64)
    actual = cells.group_by(*keys, pl.col(Y).alias(_CLASS)).agg(
        c.sum().alias(_T),
        *(c.filter(pl.col(m) == pl.col(Y)).sum().alias(_DIAG[m]) for m in (A, B)),
    )
    on = [*keys, _CLASS]
    for model in (A, B):
        predicted = cells.group_by(*keys, pl.col(model).alias(_CLASS)).agg(c.sum().alias(_P[model]))
        actual = actual.join(predicted, on=on, how="full", coalesce=True, nulls_equal=True)
    return actual.with_columns(pl.col(_T, *_P.values(), *_DIAG.values()).fill_null(0.0))


def _summary_gradients(cells: pl.LazyFrame, keys: list[str], metric: str) -> pl.LazyFrame:
    classes = _class_sums(cells, keys)
    name = {
        k: f"{INTERNAL}{k}" for k in ("n", "k", "t2", "t_i", "p_i_a", "p_i_b", "d_i_a", "d_i_b")
    }
    name |= {f"{s}{m}": f"{INTERNAL}{s}{m}" for s in ("c", "tp", "p2", "t_j", "p_j") for m in "ab"}
    t = pl.col(_T)
    # the segment's sums
    segment = classes.group_by(keys).agg(
        t.sum().alias(name["n"]),
        (t > 0).sum().cast(pl.Float64).alias(name["k"]),
        t.pow(2).sum().alias(name["t2"]),
        *(pl.col(_DIAG[m]).sum().alias(name[f"c{x}"]) for m, x in ((A, "a"), (B, "b"))),
        *((t * pl.col(_P[m])).sum().alias(name[f"tp{x}"]) for m, x in ((A, "a"), (B, "b"))),
        *(pl.col(_P[m]).pow(2).sum().alias(name[f"p2{x}"]) for m, x in ((A, "a"), (B, "b"))),
    )
    # each cell's actual class's sums (i), and its predicted class's by model (j)
    at_actual = classes.select(
        *keys,
        pl.col(_CLASS).alias(Y),
        t.alias(name["t_i"]),
        pl.col(_P[A]).alias(name["p_i_a"]),
        pl.col(_P[B]).alias(name["p_i_b"]),
        pl.col(_DIAG[A]).alias(name["d_i_a"]),
        pl.col(_DIAG[B]).alias(name["d_i_b"]),
    )
    out = cells.join(at_actual, on=[*keys, Y], how="left", nulls_equal=True)
    out = out.join(segment, on=keys, how="left", nulls_equal=True)
    for model, x in ((A, "a"), (B, "b")):
        at_predicted = classes.select(
            *keys,
            pl.col(_CLASS).alias(model),
            t.alias(name[f"t_j{x}"]),
            pl.col(_P[model]).alias(name[f"p_j{x}"]),
        )
        out = out.join(at_predicted, on=[*keys, model], how="left", nulls_equal=True)
    for model, x in ((A, "a"), (B, "b")):
        cell = paired_gradients.SummaryCell(
            same=(pl.col(Y) == pl.col(model)).cast(pl.Float64),
            n=pl.col(name["n"]),
            k=pl.col(name["k"]),
            t2=pl.col(name["t2"]),
            trace=pl.col(name[f"c{x}"]),
            tp=pl.col(name[f"tp{x}"]),
            p2=pl.col(name[f"p2{x}"]),
            t_i=pl.col(name["t_i"]),
            p_i=pl.col(name[f"p_i_{x}"]),
            diag_i=pl.col(name[f"d_i_{x}"]),
            t_j=pl.col(name[f"t_j{x}"]),
            p_j=pl.col(name[f"p_j{x}"]),
        )
        grad, ok = _gradient(metric, cell)
        out = out.with_columns(grad.alias(_GRAD[model]), ok.alias(_OK[model]))
    return out


def label_delta_se(
    cells: pl.LazyFrame, keys: Sequence[str], metric: str, labels: tuple[pl.DataType, Any]
) -> pl.LazyFrame:
    """``*keys, SE``: the delta method's standard error of ``metric(B) - metric(A)`` per
    segment, from the joint cells ``*keys, Y, A, B, COUNT`` (a label metric of
    ``compare_models``; ``labels``: the labels' common dtype and the positive class
    in it, for precision / recall / F1).  SE is 0 where the two models predict
    alike or their gradients agree at every cell (within rounding: both models at
    an end of the metric's range), else null where a denominator is 0 in either
    model.  ``cells`` may repeat a ``(Y, A, B)``."""
    keys = list(keys)
    dtype, pos = labels
    # the three columns as one dtype, to join on (a float label that is not a whole
    # number becomes null: the point value's check raises its error)
    cells = cells.select(*keys, pl.col(Y, A, B).cast(dtype, strict=False), COUNT)
    if catalogue.CATALOGUE[metric].family == "summary":
        graded = _summary_gradients(cells, keys, metric)
    else:
        graded = _binary_gradients(cells, keys, metric, pos)
    c = pl.col(COUNT).cast(pl.Float64)
    d = pl.col(_GRAD[B]) - pl.col(_GRAD[A])
    n = c.sum()
    variance = (c * d.pow(2)).sum() - (c * d).sum().pow(2) / n
    # the same predictions, or derivatives equal but for rounding: the same
    # difference in every resample, se 0 (statistic 0 and p-value 1 where that
    # difference is 0, else no test: ``paired.delong_columns``)
    size = pl.col(_GRAD[A]).abs() + pl.col(_GRAD[B]).abs()
    # (polars compares NaN, an undefined derivative, as equal to NaN: not alike)
    alike = d.is_finite() & (d.abs() <= _SAME_WITHIN * size)
    same = (pl.col(A) == pl.col(B)).all() | alike.all()
    defined = pl.col(_OK[A]).all() & pl.col(_OK[B]).all()
    se = pl.when(defined).then(variance.clip(lower_bound=0.0).sqrt())
    return graded.group_by(keys).agg(pl.when(same).then(0.0).otherwise(se).alias(SE))


__all__ = ["BOUNDS", "label_delta_se"]
