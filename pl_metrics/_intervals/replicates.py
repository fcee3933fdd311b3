"""The metrics of bootstrap replicates, in numpy, and their percentile intervals.

A segment's replicates arrive as arrays with a row per replicate and, last, a
column per class; segments with as many classes are stacked in between
(replicate x segment x class), so that one call serves them all.  Each function
here computes, for every replicate at once, what its polars counterpart in
:mod:`pl_metrics._classification` or :mod:`pl_metrics._ranking.from_counts` computes for
one segment: the same formulas and the same undefined cases.  Thousands of
replicates then cost a few vectorized numpy operations instead of a polars
query over a frame with a row per replicate and class.
``tests/test_intervals_replicates.py`` checks every function against its polars
counterpart on the same counts, and the ranking ones against scikit-learn.

numpy is imported inside the functions: it is an optional dependency, needed by
``ci_method="bootstrap"`` only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from pl_metrics._core import formulas
from pl_metrics._core.catalogue import AVERAGES, names_of

if TYPE_CHECKING:
    import numpy as np

#: The per-class scores that are averaged (``formulas.SCORES``).
SCORES = tuple(formulas.SCORES)


def _ratio(numerator: np.ndarray, denominator: np.ndarray, zero_division: float) -> np.ndarray:
    """``numerator / denominator``, ``zero_division`` where the denominator is 0."""
    return formulas.NUMPY.ratio(numerator, denominator, zero_division)


def scores(
    tp: np.ndarray,
    support: np.ndarray,
    predicted: np.ndarray,
    beta: float,
    zero_division: float,
    *,
    tn: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The per-class scores of ``formulas.SCORES`` (``_classification._scores``); ``tn``:
    each class's rows of neither label, by default :func:`negatives` of the rows the
    classes' support counts (every row's actual label is one of the classes)."""
    if tn is None:
        tn = negatives(tp, support, predicted, support.sum(axis=-1))
    return {
        name: score.value(tp, support, predicted, tn, beta, zero_division, formulas.NUMPY)
        for name, score in formulas.SCORES.items()
    }


def negatives(
    tp: np.ndarray, support: np.ndarray, predicted: np.ndarray, n: np.ndarray
) -> np.ndarray:
    """Each class's tn (classes on the last axis), of the segments' ``n`` rows: n -
    support - predicted + tp."""
    return n[..., None] - support - predicted + tp


def per_class(
    tp: np.ndarray,
    support: np.ndarray,
    predicted: np.ndarray,
    n: np.ndarray,
    *,
    beta: float,
    zero_division: float,
    specificity: bool = True,
) -> dict[str, np.ndarray]:
    """The per-class scores and (``specificity``) specificity; ``n`` is the segment's
    row count."""
    tn = negatives(tp, support, predicted, n)
    out = scores(tp, support, predicted, beta, zero_division, tn=tn)
    if specificity:
        out["specificity"] = formulas.specificity(tn, predicted - tp, zero_division, formulas.NUMPY)
    return out


def averages(
    tp: np.ndarray,
    support: np.ndarray,
    predicted: np.ndarray,
    *,
    beta: float,
    zero_division: float,
    per_class_scores: dict[str, np.ndarray] | None = None,
    n: np.ndarray | None = None,
) -> dict[str, dict[str, np.ndarray]]:
    """micro, macro and weighted averages of :func:`scores` over the classes (last axis).

    micro: the scores of the summed counts (tn too).  macro: the mean of the non-NaN
    values, NaN if none.  weighted: the support-weighted mean of the non-NaN
    values, the macro mean if their supports sum to 0 (scikit-learn's
    ``_nanaverage``).  ``per_class_scores``: :func:`scores` of these counts, if
    already computed; ``n``: the segments' rows (by default the support's sum).
    """

    tn = negatives(tp, support, predicted, support.sum(axis=-1) if n is None else n)
    sums = [x.sum(axis=-1) for x in (tp, support, predicted)]
    micro = scores(*sums, beta, zero_division, tn=tn.sum(axis=-1))
    out = {"micro": micro, "macro": {}, "weighted": {}}
    if per_class_scores is None:
        per_class_scores = scores(tp, support, predicted, beta, zero_division, tn=tn)
    # a score is NaN only with zero_division=NaN; otherwise every class is kept
    skip_nan = math.isnan(zero_division)
    for name in SCORES:
        macro, weighted = formulas.class_averages(
            per_class_scores[name], support, skip_nan=skip_nan, xp=formulas.NUMPY
        )
        out["macro"][name], out["weighted"][name] = macro, weighted
    return out


def summary(
    tp: np.ndarray,
    support: np.ndarray,
    predicted: np.ndarray,
    metrics: Collection[str] = names_of("summary"),
) -> dict[str, np.ndarray]:
    """accuracy, balanced accuracy, MCC and Cohen's kappa (``_classification.summary``);
    only those in ``metrics``."""
    import numpy as np

    t, p = support.astype("float64"), predicted.astype("float64")
    n, correct = t.sum(axis=-1), tp.sum(axis=-1).astype("float64")
    seen = (t > 0).sum(axis=-1)
    out = {}
    if "accuracy" in metrics:
        out["accuracy"] = formulas.accuracy(correct, n, np.nan, formulas.NUMPY)
    if "balanced_accuracy" in metrics:
        recall = np.where(t > 0, _ratio(tp, t, 0.0), 0.0)
        out["balanced_accuracy"] = _ratio(recall.sum(axis=-1), seen, np.nan)
    if "mcc" in metrics or "cohen_kappa" in metrics:
        t_dot_p = (t * p).sum(axis=-1)
        predicted_n = (p > 0).sum(axis=-1)
        cov_tp = correct * n - t_dot_p
        cov_pp = np.where(predicted_n <= 1, 0.0, n * n - (p * p).sum(axis=-1))
        cov_tt = np.where(seen <= 1, 0.0, n * n - (t * t).sum(axis=-1))
        out["mcc"] = formulas.mcc_from_covariances(cov_tp, cov_pp, cov_tt, n, formulas.NUMPY)
        single = (seen == 1) & (predicted_n == 1) & (((t > 0) & (p > 0)).sum(axis=-1) == 1)
        kappa = formulas.kappa_from_covariances(cov_tp, n * n - t_dot_p, formulas.NUMPY)
        out["cohen_kappa"] = formulas.kappa_or_undefined(kappa, n, single, np.nan, formulas.NUMPY)
    return out


#: The replicates are reduced about this many cells at a time: a few arrays of it fit
#: in a core's cache, where numpy's passes over them cost half what they cost in memory.
_CACHE_CELLS = 1 << 17


def _in_groups(
    fn: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    pos: np.ndarray,
    neg: np.ndarray,
    starts: np.ndarray | None,
) -> np.ndarray:
    """``fn(pos, neg, segments)`` over groups of replicates (rows) of about
    :data:`_CACHE_CELLS` cells; ``(replicate,)`` when ``starts`` is None, else
    ``(replicate, segment)``."""
    import numpy as np

    pos, neg = pos.astype(np.int64, copy=False), neg.astype(np.int64, copy=False)
    segments = np.zeros(1, dtype=np.int64) if starts is None else np.asarray(starts)
    step = max(1, _CACHE_CELLS // max(pos.shape[1], 1))
    parts = [fn(pos[i : i + step], neg[i : i + step], segments) for i in range(0, len(pos), step)]
    out = np.concatenate(parts) if parts else np.zeros((0, len(segments)))
    return out[:, 0] if starts is None else out


def _running(x: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The running sums of ``x`` (replicate x score, integer counts) within each segment
    (``segments``: the first score of each)."""
    import numpy as np

    total = np.cumsum(x, axis=1)
    if len(segments) > 1:
        before = total[:, segments[1:] - 1]
        total -= np.repeat(
            np.c_[np.zeros(len(x), dtype=total.dtype), before],
            np.diff(np.r_[segments, x.shape[1]]),
            axis=1,
        )
    return total


def _auc(pos: np.ndarray, neg: np.ndarray, segments: np.ndarray) -> np.ndarray:
    import numpy as np

    tps = np.cumsum(pos, axis=1)
    n_total = np.add.reduceat(neg, segments, axis=1)
    # the positives of the segments to the left, before each segment's first score
    before = np.where(segments > 0, tps[:, np.maximum(segments - 1, 0)], 0)
    tps *= 2
    tps -= pos
    tps *= neg
    twice_u = np.add.reduceat(tps, segments, axis=1) - 2 * before * n_total
    p_total = np.add.reduceat(pos, segments, axis=1)
    return _auc_of(twice_u, p_total, n_total)


def _auc_of(twice_u: np.ndarray, p_total: np.ndarray, n_total: np.ndarray) -> np.ndarray:
    """The AUC of twice U and the class totals (integers); NaN with a single class."""
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        area = formulas.roc_auc_of_sums(twice_u, p_total, n_total)
    return np.where((p_total > 0) & (n_total > 0), area, np.nan)


def roc_auc(pos: np.ndarray, neg: np.ndarray, starts: np.ndarray | None = None) -> np.ndarray:
    """ROC AUC of each row (scores descending): twice U = sum neg * (2 tps - pos), over
    2 P N (:func:`pl_metrics._core.formulas.roc_auc_of_sums`).

    ``starts``: the first score of each segment of a row (segments side by
    side): the AUC of each (row, segment); None: one segment, the AUC of each row.
    The counts are integers, so the sums are exact (int64): within a segment,
    sum neg * 2 (tps - before) = sum neg * 2 tps - 2 before N, with ``before``
    the positives of the segments to its left.
    """
    return _in_groups(_auc, pos, neg, starts)


def _ap(pos: np.ndarray, neg: np.ndarray, segments: np.ndarray) -> np.ndarray:
    import numpy as np

    terms = _ap_terms(_running(pos, segments), _running(pos + neg, segments), pos)
    p_total = np.add.reduceat(pos, segments, axis=1)
    return _ap_of(np.add.reduceat(terms, segments, axis=1), p_total)


def _ap_terms(tps: np.ndarray, seen: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """:func:`formulas.average_precision_terms`, in place over the running positives
    ``tps`` and rows ``seen`` (integers): ``pos tps / (tps + fps)``; a score
    without positives adds 0 (and may have seen 0 rows)."""
    import numpy as np

    np.maximum(seen, 1, out=seen)
    tps *= pos
    return tps / seen


def _ap_of(terms: np.ndarray, p_total: np.ndarray) -> np.ndarray:
    """The AP of its summed terms and the positives; 0.0 without positives."""
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        ap = terms / p_total
    return np.clip(np.where(p_total > 0, ap, 0.0), 0.0, None)


def average_precision(
    pos: np.ndarray, neg: np.ndarray, starts: np.ndarray | None = None
) -> np.ndarray:
    """AP of each row (scores descending); 0.0 without positives (scikit-learn).
    ``starts``: as :func:`roc_auc`.  Each segment's terms are summed, then divided
    by its positives."""
    return _in_groups(_ap, pos, neg, starts)


class _Fold:
    """A ranking metric of ``size`` replicates of one segment, folded in a replicate's
    runs of scores (descending) a few at a time (:meth:`add`), as
    :meth:`pl_metrics._intervals.sampling._Ranges.fold` draws them: no replicate's
    counts are ever whole in memory.  The running positives and rows carry from one
    call to the next (Python integers: exact)."""

    #: Whether the sums are floats (else exact integers).
    floats = False
    #: Whether :meth:`_sum` reads the running rows (else only their total is kept).
    running_rows = False

    def __init__(self, size: int) -> None:
        import numpy as np

        self.tps, self.seen = [0] * size, [0] * size
        self.sums = np.zeros(size, dtype=np.float64 if self.floats else np.int64)

    def add(self, r: int, pos: np.ndarray, neg: np.ndarray) -> None:
        """The next runs of replicate ``r``: their positive and negative counts."""
        import numpy as np

        tps = np.cumsum(pos)
        tps += self.tps[r]
        seen = None
        if self.running_rows:
            seen = np.cumsum(pos + neg)
            seen += self.seen[r]
        if len(tps):
            self.tps[r] = int(tps[-1])
            self.seen[r] = (
                int(seen[-1]) if seen is not None else self.seen[r] + int(pos.sum() + neg.sum())
            )
        self.sums[r] += self._sum(tps, seen, pos, neg)

    def _sum(
        self, tps: np.ndarray, seen: np.ndarray | None, pos: np.ndarray, neg: np.ndarray
    ) -> object:
        raise NotImplementedError

    def values(self) -> np.ndarray:
        """Each replicate's metric; NaN where a (Poisson) replicate drew no row, as
        :func:`undefined_without_rows` makes it for the drawn counts."""
        import numpy as np

        p_total, seen = np.array(self.tps, dtype=np.int64), np.array(self.seen, dtype=np.int64)
        return np.where(seen > 0, self._of(p_total, seen - p_total), np.nan)

    def _of(self, p_total: np.ndarray, n_total: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class AucFold(_Fold):
    """:func:`roc_auc` folded: twice U summed exactly (int64), the same number."""

    def _sum(
        self, tps: np.ndarray, seen: np.ndarray | None, pos: np.ndarray, neg: np.ndarray
    ) -> object:
        import numpy as np

        tps *= 2
        tps -= pos
        return int(np.dot(tps, neg))

    def _of(self, p_total: np.ndarray, n_total: np.ndarray) -> np.ndarray:
        return _auc_of(self.sums, p_total, n_total)


class ApFold(_Fold):
    """:func:`average_precision` folded: the terms summed a run of scores at a time
    (equal to within a few units in the last place: another summation order)."""

    floats = running_rows = True

    def _sum(
        self, tps: np.ndarray, seen: np.ndarray | None, pos: np.ndarray, neg: np.ndarray
    ) -> object:
        assert seen is not None  # running_rows
        return float(_ap_terms(tps, seen, pos).sum())

    def _of(self, p_total: np.ndarray, n_total: np.ndarray) -> np.ndarray:
        return _ap_of(self.sums, p_total)


def undefined_without_rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values`` (replicate x segment x ...) NaN where the replicate holds no row of the
    segment (``rows``: replicate x segment).  A Poisson replicate may draw none
    (probability e^-n): every metric is undefined there and the percentiles skip
    it, rather than read the ``zero_division`` value (or AP's 0) of no rows."""
    import numpy as np

    rows = rows.reshape(rows.shape + (1,) * (values.ndim - rows.ndim))
    return np.where(rows > 0, values, np.nan)


def percentiles(values: np.ndarray, ci: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``ci`` percentile interval over the replicates (axis 0), NaN skipped.

    Linear interpolation between order statistics (``np.percentile``'s
    default, and polars' ``quantile(interpolation="linear")``); NaN where there
    is no value.  The bounds have the shape of ``values[0]``.  The order
    statistics come from one sort of each row of replicates (numpy's vectorised
    sort: several times faster than ``np.partition`` on rows of a few hundred).
    """
    import numpy as np

    ordered = np.sort(np.moveaxis(values, 0, -1), axis=-1)  # replicates last, NaN last
    alpha = (1 - ci) / 2
    last = np.maximum((~np.isnan(ordered)).sum(axis=-1) - 1, 0)
    bounds = []
    for q in (alpha, 1 - alpha):
        position = q * last
        below = np.floor(position).astype(np.int64)
        low = np.take_along_axis(ordered, below[..., None], axis=-1)[..., 0]
        above = np.minimum(below + 1, last)[..., None]
        high = np.take_along_axis(ordered, above, axis=-1)[..., 0]
        value = low + (high - low) * (position - below)
        bounds.append(np.where(np.isnan(ordered[..., 0]), np.nan, value))
    return bounds[0], bounds[1]


__all__ = [
    "AVERAGES",
    "SCORES",
    "ApFold",
    "AucFold",
    "average_precision",
    "averages",
    "per_class",
    "percentiles",
    "roc_auc",
    "scores",
    "summary",
    "undefined_without_rows",
]
