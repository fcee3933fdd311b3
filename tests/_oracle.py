"""scikit-learn as the oracle: the expected frames, one segment at a time.

Every expected number here comes from a scikit-learn call on the segment's rows
(or, where scikit-learn has no such option, from its per-class output combined
by hand as the comment says).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import warnings
from collections.abc import Iterator, Sequence
from fractions import Fraction

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.utils.multiclass import unique_labels

RTOL = 1e-9

#: How an un-weighted ranking metric can be computed (``pl_metrics._ranking.sorted_path``).
RANKING_STRATEGIES = ("count", "search", "keys", "keys, one batch")


@contextlib.contextmanager
def ranking_strategy(how: str) -> Iterator[None]:
    """Force how the un-weighted ROC AUC / AP are computed, whatever the scores look
    like: ``"count"`` per distinct score; ``"search"``: two sorts and a binary search;
    ``"keys"``: one sort of the scores with their labels, chosen on the first row
    alone, so that a negative score in a later row takes the fallback to the search
    (``MixedSigns``); ``"keys, one batch"`` the same with the rows read in one batch
    (the lists sorted by the grouping query, ``batches._in_batches``' first way).
    Otherwise segments are grouped in batches of 3 rows (``BATCH_ROWS``),
    so that every segment's lists and every check's count are merged over batches;
    a segment of more than 4 rows is sorted as a large one (``_SEARCH_CHUNK``: the
    keys scanned in two halves on two threads, the search split over threads),
    its keys scanned 2 rows at a time (``_SCAN_BLOCK``: ties across the blocks);
    segments of at most 5 rows are finished a range of them at a time, vectorised
    (``CHUNK_ROWS``), a larger one alone."""
    from pl_metrics._ranking import batches, placements, sorted_path

    keys = how.startswith("keys")
    forced = {
        (sorted_path, "MIN_DISTINCT"): 10**9 if how == "count" else -1,
        (sorted_path, "USE_KEYS"): keys,
        (sorted_path, "_SAMPLE"): 1 if keys else sorted_path._SAMPLE,
        (batches, "BATCH_ROWS"): 1 << 20 if how == "keys, one batch" else 3,
        (placements, "_SEARCH_CHUNK"): 4,
        (placements, "_SCAN_BLOCK"): 2,
        (batches, "CHUNK_ROWS"): 5,
    }
    old = {(module, name): getattr(module, name) for module, name in forced}
    for (module, name), value in forced.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for (module, name), value in old.items():
            setattr(module, name, value)


def assert_close(left: pl.DataFrame, right: pl.DataFrame) -> None:
    """Frames equal: same columns and rows, floats within rtol 1e-9, NaN == NaN."""
    assert left.columns == right.columns, (left.columns, right.columns)
    assert_frame_equal(left, right, check_dtypes=False, rel_tol=RTOL, abs_tol=1e-12)


def _labels(y_true: np.ndarray, y_pred: np.ndarray, labels: Sequence[object] | None) -> list:
    return list(unique_labels(y_true, y_pred)) if labels is None else list(labels)


def _sw(weight: np.ndarray | None) -> dict:
    return {} if weight is None else {"sample_weight": weight}


def sample_weight(seg: pl.DataFrame, weight: str | None) -> dict:
    """scikit-learn's ``sample_weight=`` keyword for a segment's weight column, if any."""
    return _sw(None if weight is None else seg[weight].to_numpy())


def fowlkes_mallows(
    y_true, y_pred, *, average=None, labels=None, zero_division=0.0, sample_weight=None, **kw
):
    """The Fowlkes-Mallows index of each class, sqrt(precision) x sqrt(recall) of
    scikit-learn's ``precision_score`` / ``recall_score`` (``average=None``, the same
    ``zero_division``); micro: of their micro averages; macro / weighted: by hand,
    scikit-learn's ``_nanaverage`` of the classes' values (weights: the classes'
    supports), as its averages of precision, recall and F.  ``kw``: ``pos_label``
    (ignored with ``average=None``, as by scikit-learn)."""
    options = {"labels": labels, "zero_division": zero_division, "sample_weight": sample_weight}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if average == "micro":
            p = skm.precision_score(y_true, y_pred, average="micro", **options)
            r = skm.recall_score(y_true, y_pred, average="micro", **options)
            return math.sqrt(p) * math.sqrt(r)
        p = skm.precision_score(y_true, y_pred, average=None, **options)
        r = skm.recall_score(y_true, y_pred, average=None, **options)
        values = np.sqrt(p) * np.sqrt(r)
        if average is None:
            return values
        mcm = skm.multilabel_confusion_matrix(
            y_true, y_pred, labels=labels, sample_weight=sample_weight
        )
        support = mcm[:, 1, 1] + mcm[:, 1, 0]
        kept = ~np.isnan(values)
        if not kept.any():
            return math.nan
        if average == "weighted" and support[kept].sum() > 0:
            return float(np.average(values[kept], weights=support[kept]))
        return float(values[kept].mean())


#: The opt-in per-class scores, in their columns' order.
EXTRA_SCORES = ("fowlkes_mallows", "informedness", "markedness")


def rate_difference(hit, hits, miss, misses, zero_division):
    """hit / hits - miss / misses by hand, ``zero_division`` where hits or misses is 0:
    informedness (tp, tp + fn, fp, fp + tn) = recall + specificity - 1, markedness
    (tp, tp + fp, fn, fn + tn) = precision + npv - 1 (numpy arrays or floats)."""
    hit, hits, miss, misses = (np.asarray(x, dtype=np.float64) for x in (hit, hits, miss, misses))
    defined = (hits != 0) & (misses != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = hit / np.where(defined, hits, 1.0) - miss / np.where(defined, misses, 1.0)
    return np.where(defined, value, zero_division)


def informedness_markedness(tp, fp, fn, tn, zero_division):
    """(informedness, markedness) of the counts of a 2x2 table (or arrays of them)."""
    return (
        rate_difference(tp, tp + fn, fp, fp + tn, zero_division),
        rate_difference(tp, tp + fp, fn, fn + tn, zero_division),
    )


def class_cells(y_true, y_pred, labels, weight) -> tuple[np.ndarray, ...]:
    """tp, fp, fn, tn of each of ``labels`` against the rest: scikit-learn's
    ``multilabel_confusion_matrix`` cells, each summed over its own rows (scikit-learn
    takes tn as the weight total less the others, a residue of ~1e-17 with float
    weights where no row is of neither label: a rate of 0 / 1e-17 there, not
    ``zero_division``).  ``tests/test_informedness.py`` checks them against it."""
    t, p = np.asarray(y_true), np.asarray(y_pred)
    w = np.ones(len(t)) if weight is None else np.asarray(weight, dtype=np.float64)
    cells = []
    for actual, predicted in ((True, True), (False, True), (True, False), (False, False)):
        cells.append(
            np.array([w[((t == c) == actual) & ((p == c) == predicted)].sum() for c in labels])
        )
    return tuple(cells)


def nanaverage(values, support, average: str) -> float:
    """scikit-learn's ``_nanaverage`` of per-class values (NaN ones skipped; weighted:
    by the kept classes' supports, their mean where those sum to 0)."""
    values, support = np.asarray(values, dtype=np.float64), np.asarray(support)
    kept = ~np.isnan(values)
    if not kept.any():
        return math.nan
    if average == "weighted" and support[kept].sum() > 0:
        return float(np.average(values[kept], weights=support[kept]))
    return float(values[kept].mean())


def per_class(
    y_true, y_pred, *, labels, weight, beta, zero_division, extra_scores=()
) -> pl.DataFrame:
    """Expected ``per_class`` rows of one segment (``extra_scores``: the opt-in scores
    asked for: ``fowlkes_mallows``; informedness and markedness by hand from
    ``multilabel_confusion_matrix``'s tp, fp, fn, tn)."""
    labs = _labels(y_true, y_pred, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f, _ = skm.precision_recall_fscore_support(
            y_true,
            y_pred,
            labels=labs,
            beta=beta,
            zero_division=zero_division,
            average=None,
            **_sw(weight),
        )
        mcm = skm.multilabel_confusion_matrix(y_true, y_pred, labels=labs, **_sw(weight))
        # jaccard_score has no NaN option: take it with 0, then put NaN where
        # tp + fp + fn == 0 (its only undefined case).
        jz = 0.0 if math.isnan(zero_division) else zero_division
        j = skm.jaccard_score(
            y_true, y_pred, labels=labs, average=None, zero_division=jz, **_sw(weight)
        )
        spec = [
            # specificity = recall of "not this class"
            skm.recall_score(
                np.asarray(y_true) != lab,
                np.asarray(y_pred) != lab,
                pos_label=True,
                zero_division=zero_division,
                **_sw(weight),
            )
            for lab in labs
        ]
    tn, fp, fn, tp = mcm[:, 0, 0], mcm[:, 0, 1], mcm[:, 1, 0], mcm[:, 1, 1]
    j = np.where(tp + fp + fn == 0, zero_division, j)
    fm = fowlkes_mallows(y_true, y_pred, labels=labs, zero_division=zero_division, **_sw(weight))
    cells = class_cells(y_true, y_pred, labs, weight)
    informedness, markedness = informedness_markedness(*cells, zero_division)
    f_col = "f1" if beta == 1 else f"f{beta:g}"
    frame = pl.DataFrame(
        {
            "label": labs,
            "support": tp + fn,
            "predicted": tp + fp,
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
            "precision": p,
            "recall": r,
            "specificity": spec,
            f_col: f,
            "jaccard": j,
            "fowlkes_mallows": fm,
            "informedness": informedness,
            "markedness": markedness,
        },
        strict=False,
    )
    return frame.drop(c for c in EXTRA_SCORES if c not in extra_scores)


def averages(
    y_true, y_pred, *, labels, weight, beta, zero_division, extra_scores=()
) -> pl.DataFrame:
    """Expected ``averages`` rows of one segment (``extra_scores``: the opt-in scores
    asked for; informedness and markedness: micro of the counts summed over the
    classes, macro / weighted :func:`_nanaverage`)."""
    options = {"labels": labels, "weight": weight, "beta": beta, "zero_division": zero_division}
    classes = per_class(y_true, y_pred, **options, extra_scores=EXTRA_SCORES)
    summed = [c.sum() for c in class_cells(y_true, y_pred, _labels(y_true, y_pred, labels), weight)]
    micro_values = informedness_markedness(*summed, zero_division)
    micro = dict(zip(EXTRA_SCORES[1:], micro_values, strict=True))
    labs = _labels(y_true, y_pred, labels)
    f_col = "f1" if beta == 1 else f"f{beta:g}"
    rows = []
    for average in ("micro", "macro", "weighted"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p, r, f, _ = skm.precision_recall_fscore_support(
                y_true,
                y_pred,
                labels=labs,
                beta=beta,
                zero_division=zero_division,
                average=average,
                **_sw(weight),
            )
            if not math.isnan(zero_division):
                j = skm.jaccard_score(
                    y_true,
                    y_pred,
                    labels=labs,
                    average=average,
                    zero_division=zero_division,
                    **_sw(weight),
                )
            elif average == "micro":
                tp, sup, pred = (classes[c].sum() for c in ("tp", "support", "predicted"))
                j = tp / (sup + pred - tp) if sup + pred - tp else math.nan
            else:
                # by hand: the NaN-skipping average of the per-class Jaccard
                # (scikit-learn's _nanaverage, as for precision/recall/F)
                jj, ww = classes["jaccard"].to_numpy(), classes["support"].to_numpy()
                keep = ~np.isnan(jj)
                if not keep.any():
                    j = math.nan
                elif average == "weighted" and ww[keep].sum() > 0:
                    j = np.average(jj[keep], weights=ww[keep])
                else:
                    j = jj[keep].mean()
        rows.append(
            {
                "average": average,
                "precision": p,
                "recall": r,
                f_col: f,
                "jaccard": j,
                "fowlkes_mallows": fowlkes_mallows(
                    y_true,
                    y_pred,
                    average=average,
                    labels=labs,
                    zero_division=zero_division,
                    **_sw(weight),
                ),
                **{
                    m: float(micro[m])
                    if average == "micro"
                    else nanaverage(classes[m], classes["support"], average)
                    for m in EXTRA_SCORES[1:]
                },
                "support": classes["support"].sum(),
            }
        )
    frame = pl.DataFrame(rows, strict=False)
    return frame.drop(c for c in EXTRA_SCORES if c not in extra_scores)


def confusion_matrix(y_true, y_pred, *, labels, weight) -> pl.DataFrame:
    """Expected ``confusion_matrix`` rows (long form) of one segment."""
    labs = _labels(y_true, y_pred, labels)
    keep = np.isin(y_true, labs) & np.isin(y_pred, labs)
    if labels is not None and not np.isin(labs, np.asarray(y_true)[keep]).any():
        # scikit-learn refuses ("At least one label specified must be in
        # y_true"); the matrix of the kept rows is then all zeros except for
        # rows whose y_true is absent, i.e. zeros everywhere.
        cm = np.zeros((len(labs), len(labs)))
    else:
        cm = skm.confusion_matrix(y_true, y_pred, labels=labs, **_sw(weight))
    actual = [a for a in labs for _ in labs]
    predicted = [p for _ in labs for p in labs]
    return pl.DataFrame(
        {"actual": actual, "predicted": predicted, "count": cm.ravel()}, strict=False
    )


def summary(y_true, y_pred, *, labels, weight) -> pl.DataFrame:
    """Expected ``summary`` row of one segment (rows outside ``labels`` dropped)."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if labels is not None:
        keep = np.isin(y_true, list(labels)) & np.isin(y_pred, list(labels))
        y_true, y_pred = y_true[keep], y_pred[keep]
        weight = None if weight is None else weight[keep]
    n = float(len(y_true)) if weight is None else float(np.sum(weight))
    if len(y_true) == 0 or n == 0:
        # nothing to score (no rows, or only zero weights, after dropping the
        # labels outside `labels`): scikit-learn raises; we give NaN (MCC too: it
        # was 0, its value when a covariance is 0, a number made up for no rows).
        return pl.DataFrame(
            {
                "n": [n],
                "accuracy": [math.nan],
                "balanced_accuracy": [math.nan],
                "mcc": [math.nan],
                "cohen_kappa": [math.nan],
            }
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = skm.accuracy_score(y_true, y_pred, **_sw(weight)) if n > 0 else math.nan
        bal = skm.balanced_accuracy_score(y_true, y_pred, **_sw(weight))
        mcc = skm.matthews_corrcoef(y_true, y_pred, **_sw(weight))
        kappa = skm.cohen_kappa_score(y_true, y_pred, **_sw(weight))
    return pl.DataFrame(
        {
            "n": [n],
            "accuracy": [acc],
            "balanced_accuracy": [bal],
            "mcc": [mcc],
            "cohen_kappa": [kappa],
        }
    )


def by_segment(
    df: pl.DataFrame, by: list[str], build, *, weight: str | None = None
) -> pl.DataFrame:
    """Run ``build(segment_frame)`` on every segment and stack with the ``by`` columns.

    Rows of weight 0 are dropped first: pl_metrics' documented rule is that such a
    row is absent (scikit-learn drops them from its curves, but keeps their labels
    in the label set of the confusion-matrix metrics; on the remaining rows the two
    agree).
    """
    if weight is not None:
        df = df.filter(pl.col(weight) != 0)
    if not by:
        return build(df) if df.height else None
    parts = []
    for key, seg in df.group_by(by):
        out = build(seg)
        parts.append(
            out.select(*[pl.lit(k).alias(c) for c, k in zip(by, key, strict=True)], pl.all())
        )
    if not parts:
        return None
    return pl.concat(parts, how="vertical_relaxed").sort(by, maintain_order=True)


def calibration_bins(
    y: np.ndarray, p: np.ndarray, w: np.ndarray | None, n_bins: int, strategy: str
) -> pl.DataFrame:
    """``bin, prob_true, prob_pred, count`` of the calibration bins, by hand in numpy.

    Unweighted: ``sklearn.calibration.calibration_curve``'s bins (edges
    ``np.percentile`` or ``np.linspace``, ``np.searchsorted`` of the inner ones).
    Weighted quantile edges (docs/probability.md): the rows repeated by their
    weights normalised to sum to the rows; order statistic k is the first value
    whose cumulative normalised weight passes k, in exact rationals (equal weights:
    1, 2, ..., n), the edge interpolated with numpy's "linear" float steps.  Means
    and counts weighted.
    """
    weights = np.ones(len(p)) if w is None else np.asarray(w, dtype=float)
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    elif w is None:
        edges = np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)[1:-1]
    else:
        order = np.argsort(p, kind="stable")
        x = p[order]
        # the cumulative normalised weights C n / W in exact rationals (the floats'
        # own values, no rounding): C n / W > k exactly when it is mathematically
        cumulative = list(itertools.accumulate(Fraction(v) for v in weights[order]))
        normalised = np.array([c * len(p) / cumulative[-1] for c in cumulative])
        edges = []
        for i in range(1, n_bins):
            h = (len(p) - 1) * (((i * (1.0 / n_bins)) * 100) / 100)
            k = math.floor(h)
            t = h - k
            a = x[np.argmax(normalised > k)] if (normalised > k).any() else x[-1]
            b = x[np.argmax(normalised > k + 1)] if (normalised > k + 1).any() else x[-1]
            edges.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    ids = np.searchsorted(np.asarray(edges), p)
    count = np.bincount(ids, weights=weights, minlength=n_bins)
    bins = np.flatnonzero(np.bincount(ids, minlength=n_bins))
    true = np.bincount(ids, weights=weights * y, minlength=n_bins)
    pred = np.bincount(ids, weights=weights * p, minlength=n_bins)
    return pl.DataFrame(
        {
            "bin": bins,
            "prob_true": true[bins] / count[bins],
            "prob_pred": pred[bins] / count[bins],
            "count": count[bins] if w is not None else count[bins].astype(np.int64),
        }
    )


def with_a_positive(y: list[int]) -> list[int]:
    """``y`` with at least one 1: pos_label absent from the whole input is an error
    (tested on its own); a segment without positives stays possible."""
    return y if 1 in y else [1, *y[1:]]
