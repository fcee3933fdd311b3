"""The isotonic calibration map of ``estimated_performance``, fitted on reference rows.

scikit-learn's ``IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1)`` of the
reference's labels (1 for ``pos_label``) on its scores, ``sample_weight`` the
weights: the rows of one score pooled (their weighted mean label), then the
non-decreasing fit of least weighted squares over the distinct scores (pool
adjacent violators), clipped to [0, 1]; a score is mapped by linear
interpolation between the distinct reference scores, clipped to the first and
last outside them.

The fit is the slope of the greatest convex minorant of the cumulative sum
diagram (the points (sum of weights, sum of weighted labels) up to each distinct
score): each pooled block of PAV is one segment of that lower hull, its mean the
segment's slope.  The hull is found by vectorised passes that drop every point
lying on or above the chord of its neighbours (such a point is no vertex of the
hull, so the passes drop them all at once); the few points left after
:data:`PASSES` passes (if any: a long cascade) are finished by the stack of the
monotone chain.  A 1M-row reference of continuous scores takes a fraction of a
second (numpy; the per-score sums are one polars ``group_by``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: Vectorised passes before the remaining points go through the stack.
PASSES = 64


def _lower_hull(cum_weight: np.ndarray, cum_positive: np.ndarray) -> np.ndarray:
    """The indices of the vertices of the lower convex hull of the points
    (``cum_weight``, ``cum_positive``), ``cum_weight`` increasing (collinear points
    dropped: they change no slope)."""
    import numpy as np

    w, s = cum_weight, cum_positive
    kept = np.arange(len(w))
    for done in range(PASSES):
        if len(kept) < 3:
            return kept
        if done:
            a, b, c = kept[:-2], kept[1:-1], kept[2:]
            s_a, s_b, s_c, w_a, w_b, w_c = s[a], s[b], s[c], w[a], w[b], w[c]
        else:  # every point: the neighbours are slices (no gather)
            s_a, s_b, s_c, w_a, w_b, w_c = s[:-2], s[1:-1], s[2:], w[:-2], w[1:-1], w[2:]
        # b on or above the chord from a to c:
        # (s_b - s_a) / (w_b - w_a) >= (s_c - s_b) / (w_c - w_b)
        above = (s_b - s_a) * (w_c - w_b) >= (s_c - s_b) * (w_b - w_a)
        if not above.any():
            return kept
        keep = np.ones(len(kept), dtype=bool)
        keep[1:-1] = ~above
        kept = kept[keep]
    hull: list[int] = []  # the monotone chain over what is left
    for i in kept.tolist():
        while len(hull) >= 2:
            first, last = hull[-2], hull[-1]
            rise, run = s[last] - s[first], w[last] - w[first]
            if rise * (w[i] - w[last]) < (s[i] - s[last]) * run:
                break
            hull.pop()
        hull.append(i)
    return np.asarray(hull)


def isotonic(positive: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """The isotonic (non-decreasing) least-squares fit at each distinct score, in score
    order, from its summed weights of positive rows (``positive``) and of all rows
    (``weight``, > 0), clipped to [0, 1]: scikit-learn's ``isotonic_regression``
    with ``y_min=0, y_max=1`` of the pooled means.  The hull reads the running sums
    scaled to at most 1 (no overflow of its products)."""
    import numpy as np

    # the sums scaled by a power of two (exact: counts of rows stay whole numbers)
    scale = 2.0 ** -np.frexp(weight.sum())[1]
    cum_weight = np.concatenate(([0.0], np.cumsum(weight * scale)))
    cum_positive = np.concatenate(([0.0], np.cumsum(positive * scale)))
    hull = _lower_hull(cum_weight, cum_positive)
    # each hull segment's slope, its pooled block's mean: summed over the block (not a
    # difference of running sums, which would cancel in a short block)
    slopes = np.add.reduceat(positive, hull[:-1]) / np.add.reduceat(weight, hull[:-1])
    # distinct score j is the step from point j to j + 1: in the hull segment that starts
    # at the last vertex at or before j (the hull runs from point 0 to the last one)
    return np.repeat(np.clip(slopes, 0.0, 1.0), np.diff(hull))


def knots(thresholds: np.ndarray, fitted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same map on fewer points: the first and last distinct score of each run of
    equal fitted values (each pooled block).  Inside a run the interpolation is that
    value exactly (a slope of 0); between runs it joins the same two points as
    before; outside, the same end values: :func:`calibrate` gives the same floats,
    with a search over a few points instead of every distinct reference score."""
    import numpy as np

    change = fitted[1:] != fitted[:-1]
    keep = np.ones(fitted.size, dtype=bool)
    keep[1:-1] = change[:-1] | change[1:]  # a run's last point, or the next one's first
    return thresholds[keep], fitted[keep]


def calibrate(scores: np.ndarray, thresholds: np.ndarray, fitted: np.ndarray) -> np.ndarray:
    """The calibrated probability of each score: linear interpolation between the
    distinct reference scores ``thresholds`` (ascending) and their fitted values,
    the first / last value outside them (``out_of_bounds="clip"``)."""
    import numpy as np

    return np.interp(scores, thresholds, fitted)


__all__ = ["calibrate", "isotonic", "knots"]
