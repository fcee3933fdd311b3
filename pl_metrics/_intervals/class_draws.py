"""The spread of a multiclass average whose labels are not known yet: each row's
label drawn Categorical(p_1 .. p_K) given its calibrated probabilities
(``estimated_performance(y_score={label: column}, ci=)``).

Per class c the one-vs-rest indicators Y_kc = [y_k = c] are Bernoulli(p_kc), and a
class's own metric is the binary one (:mod:`.label_draws`); but within a row the
indicators covary, Cov(Y_kc, Y_kd) = -p_kc p_kd for c != d (one of them is 1), so
an average over the classes is not the sum of the classes' variances.  The delta
method: an average A of the classes' metrics moves with the drawn labels by

    dA = sum_k sum_c H_kc dY_kc,

H_kc = dA / dY_kc at Y = p, and as the rows are independent and the row's
indicators one-hot,

    Var A = sum_k Var(sum_c H_kc Y_kc) = sum_k sum_c p_kc (H_kc - h_k)^2,
    h_k = sum_c p_kc H_kc

(the variance of a value drawn H_kc with probability p_kc: never negative, no
cancellation).  With u_k = w_k / n the row's share of the segment's weight,

- a count metric m_c of class c moves with Y_kc by u_k g_tp,c where row k predicts
  c and u_k g_fn,c where it does not (:func:`label_draws.count_gradient`: FP = A - TP,
  TN = B - FN per class, the predictions fixed);
- class c's ROC AUC moves with Y_kc by D_kc, its DeLong-style derivative
  (:func:`label_draws.auc_derivative`, per row);
- macro = mean over the K' classes whose metric is defined: dA = sum_c dm_c / K';
- weighted = sum_c s_c m_c / S over those classes, s_c the class's (drawn) support
  share sum_k u_k Y_kc, S = sum_c s_c: dA = sum_c (s_c dm_c + (m_c - A) ds_c) / S
  (the macro mean where S is 0, as the value);
- micro = m(sum_c tp_c, ...): H_kc = u_k g_tp where c is row k's prediction, else
  u_k g_fn, g the gradient of the summed counts; accuracy, sum w [y = prediction] / n,
  H_kc = u_k where c is row k's prediction, else 0.

So every H is ``u_k (U_c if row k predicts c else V_c) + A_c D_kc`` with per
segment and class coefficients (U, V, A) (:func:`count_coefficients`,
:func:`auc_coefficients`), and :func:`variances` sums it over the rows, a chunk of
rows at a time (one vectorised pass each; the segments' sums by ``bincount``).

Without an AUC (A = 0) a row's H is ``u_k G_mc``, G_m the coefficients of the rows
predicting class m (U_m in place m, V elsewhere), and the variance of a value drawn
G_mc with probability p_kc is half the mean squared difference of two draws,
``sum_{c < d} p_kc p_kd (G_mc - G_md)^2`` (p_k sums to 1), so

    Var A = sum_m sum_{c < d} T_mcd (G_mc - G_md)^2 / n^2,
    T_mcd = sum over the rows predicting m of w_k^2 p_kc p_kd:

sums over the rows that shards can add up (:func:`pair_sums`; the engines), every
term non-negative (:func:`pair_variances`).  The ROC AUC's D_kc is the row's
placement among all the rows' scores of c, and Var A holds the products
D_kc D_kd of a row's placements in two classes' rankings: no such sums.
"""

from __future__ import annotations

from typing import Any

from pl_metrics._core import catalogue, formulas
from pl_metrics._intervals import label_draws

#: (U, V, A): per segment and class (segments x classes), the derivative of an
#: average by a row's class indicator is u (U where the row predicts the class, else
#: V) + A times the class's AUC derivative at the row.
Coefficients = tuple[Any, Any, Any]

#: Rows summed at a time by :func:`variances` (each a few arrays of rows x classes).
CHUNK_ROWS = 1 << 15


def _average_weights(values: Any, support: Any, average: str) -> tuple[Any, Any]:
    """(a, e): the derivative of a class average by each class's metric (a) and by
    each class's support share (e), segments x classes; ``values`` NaN where the
    class's metric is undefined (left out, as :func:`formulas.class_averages`)."""
    import numpy as np

    kept = ~np.isnan(values)
    count = kept.sum(axis=1, keepdims=True)
    macro = np.where(kept, 1.0 / np.maximum(count, 1), 0.0)
    if average == "macro":
        return macro, np.zeros_like(macro)
    shares = np.where(kept, support, 0.0)
    total = shares.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (np.where(kept, values, 0.0) * shares).sum(axis=1, keepdims=True) / total
        a = np.where(total > 0, shares / total, macro)
        e = np.where(kept & (total > 0), (values - mean) / total, 0.0)
    return a, e


def count_coefficients(name: str, shares: tuple[Any, Any, Any, Any], average: str) -> Coefficients:
    """(U, V, A) of count metric ``name``'s ``average`` (``micro``, ``macro``,
    ``weighted``) from the classes' expected counts as shares of their segment's
    weight (``shares``: tp, fp, fn, tn, segments x classes); ``accuracy`` is the
    segment's on every average."""
    import numpy as np

    tp, fp, fn, tn = shares
    zero = np.zeros_like(tp)
    if catalogue.CATALOGUE[name].correct_share:  # sum w [y = prediction] / n: the predicted class
        predicted = (tp + fp).sum(axis=1, keepdims=True)  # 1: each row predicts a class
        return zero + formulas.NUMPY.ratio(1.0, predicted, 0.0), zero, zero
    if average == "micro":
        s_tp, s_fp, s_fn, s_tn = (x.sum(axis=1, keepdims=True) for x in shares)
        g_tp, g_fn = label_draws.count_gradient(name, s_tp, s_fp, s_fn, s_tn, xp=formulas.NUMPY)
        return zero + g_tp, zero + g_fn, zero
    counts = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
    values = formulas.binary_metric(name, counts, float("nan"), formulas.NUMPY)
    g_tp, g_fn = label_draws.count_gradient(name, tp, fp, fn, tn, xp=formulas.NUMPY)
    a, e = _average_weights(values, tp + fn, average)
    return a * g_tp + e, a * g_fn + e, zero


def auc_coefficients(values: Any, support: Any, average: str) -> Coefficients:
    """(U, V, A) of the ROC AUC's ``average`` (``macro``, ``weighted``) from the
    classes' AUCs (NaN where undefined) and support shares, segments x classes."""
    a, e = _average_weights(values, support, average)
    return e, e, a


def variances(
    coefficients: list[Coefficients],
    rows: tuple[Any, Any, Any, Any],
    change: Any,
    segments: int,
) -> list[Any]:
    """Var A per segment for each of ``coefficients`` (the module's formula).

    ``rows``: each row's segment (its index), share of the segment's weight u,
    predicted class (its index) and probabilities (rows x classes; each row's sum 1);
    ``change``: each row's derivative of each class's AUC (rows x classes; read
    where A is not 0, None without an AUC).  A chunk of :data:`CHUNK_ROWS` rows at a
    time, every average of the chunk in one vectorised pass each."""
    import numpy as np

    segment, u, predicted, p = rows
    out = [np.zeros(segments) for _ in coefficients]
    classes = np.arange(p.shape[1])
    for lo in range(0, segment.size, CHUNK_ROWS):
        hi = lo + CHUNK_ROWS
        seg, share, chunk = segment[lo:hi], u[lo:hi, None], p[lo:hi]
        mine = predicted[lo:hi, None] == classes
        for i, (upper, lower, auc) in enumerate(coefficients):
            h = share * np.where(mine, upper[seg], lower[seg])
            if change is not None and auc.any():
                a = auc[seg]
                with np.errstate(invalid="ignore", over="ignore"):  # undefined: a = 0
                    h += np.where(a != 0, a * change[lo:hi], 0.0)
            deviation = h - (chunk * h).sum(axis=1, keepdims=True)
            spread = (chunk * deviation * deviation).sum(axis=1)
            out[i] += np.bincount(seg, weights=spread, minlength=segments)
    return out


def pairs(classes: int) -> tuple[Any, Any]:
    """The pairs of classes c < d (two index arrays, in numpy's ``triu`` order): the
    last axis of :func:`pair_sums`."""
    import numpy as np

    return np.triu_indices(classes, 1)


def pair_sums(rows: tuple[Any, Any, Any, Any], segments: int) -> Any:
    """T (segments x classes x pairs): per segment and predicted class m, the sums of
    ``w^2 p_c p_d`` over its rows predicting m, for each pair c < d (:func:`pairs`).
    ``rows``: each row's segment (its index), weight (None: 1), predicted class (its
    index) and probabilities (rows x classes, each row's sum 1).  Weights above 1e154
    may make a sum infinite, never NaN (the caller refuses it)."""
    import numpy as np

    segment, weight, predicted, p = rows
    classes = p.shape[1]
    first, second = pairs(classes)
    cell = segment * classes + predicted
    share = p if weight is None else weight[:, None] * p  # w p_c: finite
    out = np.zeros((segments * classes, first.size))
    with np.errstate(over="ignore"):
        for j, (c, d) in enumerate(zip(first, second, strict=True)):
            out[:, j] = np.bincount(
                cell, weights=share[:, c] * share[:, d], minlength=segments * classes
            )
    return out.reshape(segments, classes, first.size)


def pair_variances(coefficients: list[Coefficients], sums: Any, n: Any) -> list[Any]:
    """Var A per segment for each of ``coefficients`` without an AUC (A = 0) from the
    rows' :func:`pair_sums` (``sums``) and each segment's weight ``n`` (the rows
    without weights): the module's ``sum_m sum_{c < d} T_mcd (G_mc - G_md)^2 / n^2``."""
    import numpy as np

    segments, classes, _ = sums.shape
    first, second = pairs(classes)
    own = np.eye(classes, dtype=bool)  # G_m: U in place m, V elsewhere
    out = []
    for upper, lower, auc in coefficients:
        assert not np.any(auc), "the ROC AUC's variance takes the rows (variances)"
        g = np.where(own, upper[:, None, :], lower[:, None, :])
        gap = g[:, :, first] - g[:, :, second]
        out.append((sums * gap * gap).sum(axis=(1, 2)) / (n * n) if segments else np.zeros(0))
    return out


def _chosen(
    metrics: list[str], counts: tuple[Any, Any, Any, Any], auc: Any
) -> dict[tuple[str, str], Coefficients]:
    """``{(average, metric): (U, V, A)}`` of each of ``metrics`` on the ``micro``,
    ``macro`` and ``weighted`` rows (the ROC AUC: ``macro`` and ``weighted``; ``micro``
    has no AUC), from the classes' expected counts (segments x classes, any unit:
    taken as shares of their segment's total) and AUCs (NaN where undefined)."""
    import numpy as np

    total = sum(counts)  # every class's four counts sum to the segment's weight
    with np.errstate(divide="ignore", invalid="ignore"):
        tp, fp, fn, tn = (np.where(total > 0, c / total, 0.0) for c in counts)
    shares = (tp, fp, fn, tn)
    support = tp + fn
    chosen: dict[tuple[str, str], Coefficients] = {}
    for name in metrics:
        if catalogue.CATALOGUE[name].ranked is catalogue.Ranked.AUC:
            for average in ("macro", "weighted"):
                chosen[average, name] = auc_coefficients(auc, support, average)
        else:
            for average in ("micro", "macro", "weighted"):
                chosen[average, name] = count_coefficients(name, shares, average)
    return chosen


def average_variances(
    metrics: list[str],
    counts: tuple[Any, Any, Any, Any],
    auc: Any,
    rows: tuple[Any, Any, Any, Any],
    change: Any,
) -> dict[tuple[str, str], Any]:
    """``{(average, metric): Var per segment}`` of each of ``metrics`` on the
    ``micro``, ``macro`` and ``weighted`` rows (the ROC AUC: ``macro`` and
    ``weighted``; ``micro`` has no AUC).  ``counts``: the classes' expected tp, fp,
    fn, tn (segments x classes, any unit: taken as shares of their segment's
    total); ``auc``: the classes' expected AUCs (NaN where undefined); ``rows`` and
    ``change``: :func:`variances`'."""
    chosen = _chosen(metrics, counts, auc)
    found = variances(list(chosen.values()), rows, change, counts[0].shape[0])
    return dict(zip(chosen, found, strict=True))


def summed_variances(
    metrics: list[str], counts: tuple[Any, Any, Any, Any], sums: Any, n: Any
) -> dict[tuple[str, str], Any]:
    """:func:`average_variances` of count metrics (no ROC AUC) from the rows'
    :func:`pair_sums` (``sums``, merged over shards) and each segment's weight ``n``:
    :func:`pair_variances`."""
    import numpy as np

    chosen = _chosen(metrics, counts, np.full(counts[0].shape, np.nan))
    found = pair_variances(list(chosen.values()), sums, n)
    return dict(zip(chosen, found, strict=True))


__all__ = [
    "Coefficients",
    "auc_coefficients",
    "average_variances",
    "count_coefficients",
    "pair_sums",
    "pair_variances",
    "pairs",
    "summed_variances",
    "variances",
]
