"""The sums of ``estimated_performance`` from each segment's rows sorted by score.

The segments' rows (one ``group_by`` of lists, one after the other) are taken a
range at a time (:func:`ranges`: a large segment alone, small ones together, about
:data:`CHUNK_ROWS` rows: arrays that stay in the cache, two ranges at once on two
threads, numpy releasing the GIL).  Each range is sorted by score within its
segments and summed in one vectorised pass, never a Python step per segment: the
runs of equal scores (a run: a distinct score of a segment) get their weight
predicted positive and the rest, and their calibrated probability p (the scores
themselves, or one ``np.interp`` over the runs' scores on the map's knots); per
segment the pass sums

- the expected counts ``tp, fp, fn, tn`` (:mod:`.estimated`'s module docstring);
- the expected ROC AUC: each run's expected positive and negative weight, the
  positives' running sum from the highest score down (``tps``), and the
  trapezoids ``neg (tps - pos / 2)`` (:func:`formulas.roc_auc_terms`) over the
  same sum with every positive above, as the pairs ordered right and the rest
  (a perfect ranking is exactly 1.0);
- with ``ci``: the variances of :mod:`pl_metrics._intervals.label_draws`, the
  weights of each run scaled by its largest (``M``) and squared.

Un-weighted rows whose scores are not negative are sorted as one key each, the
score's bits shifted left by one with the prediction in the freed lowest bit (as
:mod:`pl_metrics._ranking.placements` keys the labels): one numpy sort of 8 bytes
a row, no gather.  Weighted rows, or scores of both signs, are sorted by an
``argsort`` and the predictions and weights gathered with it.  Weights are taken
times a power of two per segment (exact), so that no product of sums overflows.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import polars as pl

from pl_metrics._core.names import INTERNAL
from pl_metrics._intervals import label_draws

KEY = f"{INTERNAL}sort_key"  # un-weighted, scores not negative: bits << 1 | predicted
SCORES = f"{INTERNAL}scores"  # else: the scores, the predictions (and the weights)
PREDICTED = f"{INTERNAL}predicted"
WEIGHTS = f"{INTERNAL}weights"
LEAST = f"{INTERNAL}least_score"  # the least score (the keys need no sign)

_NO_SIGN = (1 << 63) - 1


def sort_key(score: pl.Expr, predicted: pl.Expr) -> pl.Expr:
    """The key of an un-weighted row: the score's IEEE bits less the sign bit, times
    two, plus 1 where ``y_pred`` is ``pos_label``.  Non-negative floats order as their
    bits do, so the sorted keys are the sorted scores, among equal scores the rows
    predicted negative first; -0.0 and 0.0 get one key; a negative score gets a wrong
    one (the caller checks :data:`LEAST`).  Null or bad scores (refused by the checks
    before the keys are read) get a key all the same."""
    bits = score.reinterpret(dtype=pl.UInt64) & pl.lit(_NO_SIGN, pl.UInt64)
    flag = predicted.fill_null(value=False).cast(pl.UInt64)
    return (bits * pl.lit(2, pl.UInt64) + flag).fill_null(0)


def _order(sizes: Any, values: Any) -> Any:
    """The order sorting a range's rows by value within each segment (``sizes``): by
    value, then by segment (stable: a radix sort of small integers)."""
    import numpy as np

    order = np.argsort(values)
    if sizes.size > 1:
        small = np.int16 if sizes.size < 1 << 15 else np.int32
        segment = np.repeat(np.arange(sizes.size, dtype=small), sizes)
        order = order[np.argsort(segment[order], kind="stable")]
    return order


def _sorted(sizes: Any, values: Any, predicted: Any, weights: Any) -> tuple[Any, Any, Any]:
    """(scores, predicted, weights) of a range's rows sorted by score within each
    segment: ``values`` the keys (``predicted`` None: :func:`sort_key`; one numpy
    sort of a segment alone) or the scores (an ``argsort`` and the gathers).  A
    range of several segments is sorted by score, then by segment (stable: a radix
    sort of small integers)."""
    import numpy as np

    if predicted is None and sizes.size == 1:
        keys = np.sort(values)
    else:
        order = _order(sizes, values)
        if predicted is not None:
            gathered = None if weights is None else weights[order]
            return values[order], predicted[order].astype(bool), gathered
        keys = values[order]
    return (keys >> np.uint64(1)).view(np.float64), (keys & np.uint64(1)).astype(bool), None


def score_sums(scores: Any, flags: Any, weights: Any) -> tuple[Any, Any, Any]:
    """(distinct scores, ascending; the summed weights of the flagged rows of each;
    of all its rows) of one set of rows (the reference of the isotonic fit): sorted
    as a segment's rows (:func:`_sorted`: the keys of un-weighted scores that are
    not negative, else an argsort), summed over the runs of equal scores."""
    import numpy as np

    scores = scores + 0.0  # -0.0 is 0.0
    if weights is None and not (scores < 0).any():
        keys = (scores.view(np.uint64) << np.uint64(1)) | flags.astype(np.uint64)
        scores, flags, _ = _sorted(np.array([keys.size]), keys, None, None)
    else:
        scores, flags, weights = _sorted(np.array([scores.size]), scores, flags, weights)
    new = np.empty(scores.size, dtype=bool)
    new[:1] = True
    np.not_equal(scores[1:], scores[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    if weights is None:
        flagged = np.add.reduceat(flags.astype(np.float64), starts) if starts.size else starts
        total = np.diff(np.append(starts, scores.size)).astype(np.float64)
    else:
        flagged = np.add.reduceat(np.where(flags, weights, 0.0), starts) if starts.size else starts
        total = np.add.reduceat(weights, starts) if starts.size else starts
    return scores[starts], flagged * 1.0, total * 1.0


#: Segments of at most this many rows are summed together, a range of them at a
#: time (one vectorised numpy pass, arrays that stay in the cache); a larger segment
#: on its own.
CHUNK_ROWS = 1 << 12


def ranges(sizes: Any) -> list[tuple[int, int]]:
    """The segments (``sizes``: their rows) in ranges summed together: consecutive
    segments starting within the same :data:`CHUNK_ROWS` rows (a segment of more
    rows alone)."""
    import numpy as np

    if not sizes.size:
        return []
    before = np.cumsum(sizes) - sizes
    large = sizes > CHUNK_ROWS
    new = np.ones(sizes.size, dtype=bool)
    new[1:] = (before[1:] // CHUNK_ROWS != before[:-1] // CHUNK_ROWS) | large[1:] | large[:-1]
    starts = np.flatnonzero(new).tolist()
    return list(zip(starts, [*starts[1:], sizes.size], strict=True))


def _running(values: Any, first: Any, last: Any) -> Any:
    """The running sum of ``values`` over each segment's runs from the highest score
    down (the runs ascending by score within each segment; ``first`` / ``last``: each
    segment's first run and the run after its last), restarted at each segment: the
    same floats as each segment summed alone (numpy's sequential cumulative sum from
    the end, of one segment, or of each row of a matrix holding a range's segments,
    padded with zeros).  Not one sum over the range less its value at the next
    segment: beside larger segments that difference lost a small segment's digits
    (its AUC moved by 6e-5 with scores of 1e-10, found by review).  The matrix of a
    range (:func:`ranges`: at most :data:`CHUNK_ROWS` runs, or one segment) holds
    at most about twice its runs.  Where the values are 0 (no positive below a
    score) the sums stay the same float."""
    import numpy as np

    if first.size == 1:
        return np.cumsum(values[::-1])[::-1]
    lengths = last - first
    row = np.repeat(np.arange(first.size), lengths)
    column = lengths[row] - 1 - (np.arange(values.size) - first[row])  # from the top
    matrix = np.zeros((first.size, int(lengths.max())), dtype=values.dtype)
    matrix[row, column] = values
    return np.cumsum(matrix, axis=1)[row, column]


def _per_segment(first: Any, last: Any, scalar: Any) -> Any:
    """A per-segment value on each run of the segment (a scalar for one segment)."""
    import numpy as np

    return scalar[0] if first.size == 1 else np.repeat(scalar, last - first)


def _scaled(sizes: Any, weights: Any) -> tuple[Any, Any]:
    """(n, w): each segment's summed weights, and the weights times a power of two per
    segment (its total then in [0.5, 1): the same ratios, no product of sums overflows)."""
    import numpy as np

    begins = np.cumsum(sizes) - sizes
    n = np.add.reduceat(weights, begins)
    power = np.ldexp(1.0, -np.frexp(n)[1])
    return n, weights * _per_segment(begins, np.append(begins[1:], weights.size), power)


def _probability_weights(
    sizes: Any, predicted: Any, weights: Any, probabilities: Any, starts: Any
) -> tuple[Any, ...]:
    """(n, tp, fp, fn, tn per run): with a probability per row (not one per score: the
    multiclass probabilities, normalised over each row's classes), each run's sums of
    w p and w (1 - p) over its rows predicted positive and the rest (the weights scaled
    as :func:`_scaled`; 1 without ``weights``)."""
    import numpy as np

    def per_run(values: Any) -> Any:
        return values if starts is None else np.add.reduceat(values, starts)

    n: Any
    w: Any
    if weights is None:
        n, w = sizes.astype(np.int64), 1.0
    else:
        n, w = _scaled(sizes, weights)
    positive, negative = w * probabilities, w * (1.0 - probabilities)
    return (
        n,
        per_run(np.where(predicted, positive, 0.0)),
        per_run(np.where(predicted, negative, 0.0)),
        per_run(np.where(predicted, 0.0, positive)),
        per_run(np.where(predicted, 0.0, negative)),
    )


def _run_weights(
    sizes: Any, predicted: Any, weights: Any, new: Any, starts: Any, *, ci: bool
) -> tuple[Any, ...]:
    """(n, pred, rest, total, M, Q_pred, Q_rest): each segment's rows (or summed
    weights), each run's weight predicted positive and the rest and their total
    (None without ties or weights: 1 a run), and with ``ci`` the largest weight of
    the run and the squares of the weights over it (label_draws' ``M`` and ``Q``).
    Weights are taken times a power of two per segment, its total then in [0.5, 1):
    exactly the same ratios, and no product of sums overflows."""
    import numpy as np

    def per_run(values: Any) -> Any:
        return values if starts is None else np.add.reduceat(values, starts)

    flags = predicted.astype(np.float64)
    if weights is None:
        pred, rest = per_run(flags), per_run(1.0 - flags)
        total = None if starts is None else pred + rest
        return sizes.astype(np.int64), pred, rest, total, np.ones(1), pred, rest
    n, w = _scaled(sizes, weights)
    pred, rest = per_run(w * flags), per_run(np.where(predicted, 0.0, w))
    if not ci:
        return n, pred, rest, pred + rest, None, None, None
    if starts is None:  # a row a run: M = w, Q = 1 on the row's side
        return n, pred, rest, pred + rest, w, flags, 1.0 - flags
    scale = np.maximum.reduceat(w, starts)
    share = (w / scale[np.cumsum(new) - 1]) ** 2
    return n, pred, rest, pred + rest, scale, per_run(share * flags), per_run(share - share * flags)


def _auc(pos: Any, neg: Any, first: Any, last: Any, products: Any) -> tuple[Any, ...]:
    """(the expected AUC of each segment, NaN where undefined; each segment's positive
    and negative total) from each run's
    expected positive and negative weight (the runs ascending by score within each
    segment; ``products``: each segment's sum of a product)."""
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        tps = _running(pos, first, last)
        p_total, n_total = tps[first], np.add.reduceat(neg, first)
        # the trapezoids (formulas.roc_auc_terms) sum(neg (tps - pos / 2)) over their
        # sum with every positive above, sum(neg P), split into the pairs ordered right
        # and the rest, sum(neg (P - tps + pos / 2)): where every positive is above
        # every negative the rest is exactly 0 and the AUC exactly 1.0 (where every
        # one is below, the first is 0)
        tied = products(neg, pos) / 2
        right = products(neg, tps) - tied
        wrong = products(neg, _per_segment(first, last, p_total) - tps) + tied
        auc = np.where((p_total > 0) & (n_total > 0), right / (right + wrong), np.nan)
    return auc, p_total, n_total


def _range_sums(
    sizes: Any,
    scores: Any,
    predicted: Any,
    weights: Any,
    calibrate: Any,
    *,
    ci: bool,
    probabilities: Any = None,
) -> dict[str, Any]:
    """:func:`segment_sums` of the segments of one range (``probabilities``: the
    rows' own, sorted with them, in place of ``calibrate``'s of each score)."""
    import numpy as np

    begins = np.cumsum(sizes) - sizes  # each segment's first row
    new = np.empty(scores.size, dtype=bool)  # each row: whether it starts a run
    new[:1] = True
    np.not_equal(scores[1:], scores[:-1], out=new[1:])
    new[begins] = True  # no segment is empty
    ties = not new.all()
    starts = np.flatnonzero(new) if ties else None
    first = begins if starts is None else np.searchsorted(starts, begins)
    last = np.append(first[1:], scores.size if starts is None else starts.size)

    def per_segment(values: Any) -> Any:
        return np.add.reduceat(values, first)

    def products(*factors: Any) -> Any:
        """Each segment's sum of the factors' product: one pass (einsum: no BLAS
        threads, no temporary) for a segment alone."""
        if first.size == 1:
            return np.einsum(",".join("i" * len(factors)) + "->", *factors)[None]
        product = factors[0]
        for factor in factors[1:]:
            product = product * factor
        return per_segment(product)

    if probabilities is not None:
        runs = (new, starts, first, last)
        return _probability_sums(sizes, predicted, weights, probabilities, runs, products, ci=ci)
    n, pred, other, total, scale, pred_sq, rest_sq = _run_weights(
        sizes, predicted, weights, new, starts, ci=ci
    )
    p = calibrate(scores if starts is None else scores[starts])
    q = 1.0 - p
    pos, neg = (p, q) if total is None else (p * total, q * total)
    out = {
        "n": n,
        "tp": products(p, pred),
        "fp": products(q, pred),
        "fn": products(p, other),
        "tn": products(q, other),
    }
    auc, p_total, n_total = _auc(pos, neg, first, last, products)
    out["roc_auc"] = auc
    if ci:
        sums = _ci_sums(
            p * q,
            (pred_sq, rest_sq, total, scale),
            (sizes, weights, first, last),
            (auc, p_total, n_total, pos.size),
            products,
        )
        out |= {k: sums[k] for k in ("var_tp", "var_fn", "var_auc")}
    return out


def _probability_sums(  # noqa: PLR0917 - the rows, then how they are summed
    sizes: Any,
    predicted: Any,
    weights: Any,
    probabilities: Any,
    runs: tuple[Any, Any, Any, Any],
    products: Any,
    *,
    ci: bool,
) -> dict[str, Any]:
    """:func:`_range_sums` of rows with their own probabilities (sorted by score
    within each segment; ``runs``: each row's start of a run, the runs' starts (None:
    a row a run), each segment's first run and the run after its last).  With ``ci``
    the binary path's variances (:func:`_ci_sums`) with each row's p: a run's
    squares are its rows' sums of (w / M)^2 p (1 - p) and its spread 1; and
    ``auc_change``, each row's derivative of the AUC by its label (its run's times
    w / M: the same for every row of a run without weights)."""
    import numpy as np

    new, starts, first, last = runs

    def per_segment(values: Any) -> Any:
        return np.add.reduceat(values, first)

    n, tp, fp, fn, tn = _probability_weights(sizes, predicted, weights, probabilities, starts)
    out = {"n": n, "tp": per_segment(tp), "fp": per_segment(fp)}
    out |= {"fn": per_segment(fn), "tn": per_segment(tn)}
    pos, neg = tp + fn, fp + tn
    auc, p_total, n_total = _auc(pos, neg, first, last, products)
    out["roc_auc"] = auc
    if not ci:
        return out
    _, _, _, total, scale, pred_sq, rest_sq = _run_weights(
        sizes, predicted, weights, new, starts, ci=True
    )
    rows_spread = probabilities * (1.0 - probabilities)
    if starts is None:  # a row a run: the binary path's sums with each row's p
        spread = rows_spread
    else:  # each run's sums of (w / M)^2 p (1 - p) over its rows of each side
        if weights is None:
            share = rows_spread
        else:
            w = _scaled(sizes, weights)[1]
            share = rows_spread * (w / scale[np.cumsum(new) - 1]) ** 2
        pred_sq = np.add.reduceat(np.where(predicted, share, 0.0), starts)
        rest_sq = np.add.reduceat(np.where(predicted, 0.0, share), starts)
        spread = np.ones(starts.size)  # 1.0 x: the same floats
    sums = _ci_sums(
        spread,
        (pred_sq, rest_sq, total, scale),
        (sizes, weights, first, last),
        (auc, p_total, n_total, pos.size),
        products,
    )
    out |= sums
    # each row's derivative: its run's times w / M (1 a row a run, or unweighted)
    if starts is not None:
        run = np.cumsum(new) - 1
        ratio = 1.0 if weights is None else _scaled(sizes, weights)[1] / scale[run]
        out["auc_change"] = sums["auc_change"][run] * ratio
    return out


def _ci_sums(
    spread: Any,
    run_weights: tuple[Any, Any, Any, Any],
    segments: tuple[Any, Any, Any, Any],
    auc: tuple[Any, Any, Any, int],
    products: Any,
) -> dict[str, Any]:
    """label_draws' variances of a range's segments (``var_tp, var_fn, var_auc``) and
    ``auc_change``, the AUC's derivative by each run's labels (times M / w_k).

    ``spread``: each run's p (1 - p) (one p a run), or 1 where ``run_weights``' squares
    already hold it (each row's own p: sum (w / M)^2 p (1 - p) over the run's rows of
    each side); ``run_weights``: :func:`_run_weights`' squares, total and M;
    ``segments``: the rows, the weights and each segment's first run and the run after
    its last; ``auc``: :func:`_auc`'s values and the number of runs."""
    import numpy as np

    pred_sq, rest_sq, total, scale = run_weights
    sizes, weights, first, last = segments
    value, p_total, n_total, runs = auc
    on_runs = lambda x: _per_segment(first, last, x)  # noqa: E731
    with np.errstate(divide="ignore", invalid="ignore"):
        # label_draws' variances: Var TP = sum p (1 - p) w^2 over the rows predicted
        # positive (M^2 Q per run), as shares of the segment's total weight
        seg_total = sizes.astype(np.float64) if weights is None else np.add.reduceat(total, first)
        if weights is None:  # M = 1: the share is the segment's
            share, unit = spread, 1.0 / (seg_total * seg_total)
        else:
            share, unit = spread * (scale / on_runs(seg_total)) ** 2, 1.0
        out = {
            "var_tp": products(share, pred_sq) * unit,
            "var_fn": products(share, rest_sq) * unit,
        }
        if total is None:  # a row a run, weight 1: the rows from the top, exactly
            weight, running = 1.0, on_runs(last) - np.arange(runs, dtype=np.float64)
        else:
            weight, running = total, _running(total, first, last)
        slopes = label_draws.auc_slopes(
            (weight, running),
            (on_runs(p_total), on_runs(n_total), scale[0] if weights is None else scale),
        )
        change = label_draws.auc_derivative(slopes, on_runs(value))
        squares = spread if total is None else spread * (pred_sq + rest_sq)
        out["var_auc"] = products(squares, change, change)
    out["auc_change"] = change
    return out


def segment_sums(
    sizes: Any,
    values: Any,
    predicted: Any,
    weights: Any,
    calibrate: Any,
    *,
    ci: bool,
    probabilities: Any = None,
) -> dict[str, Any]:
    """Per segment (``sizes``: its rows, none empty, the segments' rows one after the
    other; ``values``: their :func:`sort_key` with ``predicted`` None, else their
    scores): ``n`` (summed weights; the rows without
    ``weights``), ``tp, fp, fn, tn``, ``roc_auc`` (NaN where undefined) and with
    ``ci`` ``var_tp, var_fn, var_auc``.  ``calibrate``: the probabilities of distinct
    scores; or ``probabilities``, each row's own (the scores, ``predicted`` given,
    are then only the ranking; with ``ci`` also ``auc_change``, each row's
    derivative of its segment's AUC by its label, in the rows' order).  A range of
    segments at a time
    (:func:`ranges`), two at once (numpy releases the GIL)."""
    import numpy as np

    bounds = ranges(sizes)
    rows = np.cumsum(np.append(0, sizes))

    def one(bound: tuple[int, int]) -> dict[str, Any]:
        a, b = bound
        lo, hi = rows[a], rows[b]
        w = None if weights is None else weights[lo:hi]
        pred = None if predicted is None else predicted[lo:hi]
        if probabilities is not None:  # the rows' own probabilities gathered too
            assert pred is not None  # the scores' order, not the keys'
            order = _order(sizes[a:b], values[lo:hi])
            gathered = (values[lo:hi][order], pred[order], None if w is None else w[order])
            p = probabilities[lo:hi][order]
            out = _range_sums(sizes[a:b], *gathered, calibrate, ci=ci, probabilities=p)
            if ci:  # each row's AUC derivative in the rows' own order
                change = np.empty(order.size)
                change[order] = out["auc_change"]
                out["auc_change"] = change
            return out
        rows_sorted = _sorted(sizes[a:b], values[lo:hi], pred, w)
        return _range_sums(sizes[a:b], *rows_sorted, calibrate, ci=ci)

    with ThreadPoolExecutor(2 if len(bounds) > 1 else 1) as pool:
        done = list(pool.map(one, bounds))
    names = [
        "n",
        "tp",
        "fp",
        "fn",
        "tn",
        "roc_auc",
        *(("var_tp", "var_fn", "var_auc") if ci else ()),
        *(("auc_change",) if ci and probabilities is not None else ()),
    ]
    empty = np.zeros(0, dtype=np.int64 if weights is None else np.float64)
    return {k: np.concatenate([d[k] for d in done]) if done else empty for k in names}


__all__ = ["segment_sums", "sort_key"]
