"""How many points a chart draws: the one home of the thinning of long series.

A curve of 5M distinct scores has millions of points; drawn whole, a PNG took
minutes and vl-convert's JavaScript engine ran out of memory (1.35M ROC points).
A chart draws about :data:`MAX_POINTS` points per series, chosen here:

- :func:`evenly`: rows evenly spaced in their order, the first and the last kept
  (a series without an area: metrics by threshold);
- :func:`along_curve`: points evenly spaced along the curve's length, both ends of
  every long straight stretch kept (no corner cut);
- :func:`keeping_area`: :func:`along_curve`, with more points where needed, until
  the trapezoid area of the points drawn is within :data:`AREA_TOLERANCE` of the
  whole curve's: the AUC / AP printed in a legend (3 decimals) is the area drawn.

Every number (legends, tables) is computed from every point; only the drawing
is thinned.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Points drawn per series (a curve, a metric's line), before :func:`keeping_area`
#: adds more for the area: a curve of 5M scores is drawn from about this many.
MAX_POINTS = 400
#: The largest difference between the area of the points drawn and the area of
#: the whole curve (the number in the legend, printed with 3 decimals: a fifth of
#: the half-unit of the last digit printed).
AREA_TOLERANCE = 1e-4


def evenly(n: int, limit: int = MAX_POINTS) -> np.ndarray:
    """Positions of at most ``limit`` of ``n`` rows, evenly spaced in row order:
    the first row of each of the ``limit - 1`` equal spans of positions, and the
    last row (exactly ``limit`` rows when ``n > limit``; all rows otherwise)."""
    if n <= limit:
        return np.arange(n)
    spans = np.arange(limit - 1, dtype=np.int64)
    first = -((-spans * (n - 1)) // (limit - 1))  # ceil(j (n - 1) / (limit - 1))
    return np.append(first, n - 1)


def along_curve(x: np.ndarray, ys: Sequence[np.ndarray], limit: int = MAX_POINTS) -> np.ndarray:
    """Positions of at most ``limit`` points of a curve, sorted: all of them when
    there are at most ``limit``; otherwise the first and the last, the first point at
    or past each of ``m`` marks evenly spaced along the curve's length (the sum of
    ``|dx|`` and each ``|dy|``, in the axes' units; a NaN step counts 0), and both
    ends of every step longer than the marks' spacing, ``m`` the most marks that
    keep ``limit`` points or fewer.

    Points are dense where the curve turns and sparse where it runs straight; a
    long straight step is drawn from its own two ends.
    """
    n = len(x)
    if n <= limit:
        return np.arange(n)
    steps = np.abs(np.diff(x))
    for y in ys:
        steps = steps + np.nan_to_num(np.abs(np.diff(y)), nan=0.0)
    length = np.concatenate([[0.0], np.cumsum(steps)])
    marks = limit
    while True:
        kept = _marked(length, steps, marks)
        if len(kept) <= limit or marks <= 2:
            return kept if len(kept) <= limit else np.array([0, n - 1])
        marks -= len(kept) - limit


def _marked(length: np.ndarray, steps: np.ndarray, marks: int) -> np.ndarray:
    """The ends, the first point at or past each of ``marks`` marks evenly spaced
    along ``length``, and both ends of each step longer than their spacing."""
    n = len(length)
    if length[-1] == 0.0:  # a curve of one point, repeated
        return np.array([0, n - 1])
    spacing = length[-1] / (marks - 1)
    at = np.searchsorted(length, np.linspace(0.0, length[-1], marks), side="left")
    long = np.flatnonzero(steps > spacing)
    return np.unique(np.concatenate([[0, n - 1], at.clip(max=n - 1), long, long + 1]))


def trapezoid(x: np.ndarray, y: np.ndarray) -> float:
    """The area under the polyline through the points, in their order (``x``
    increasing or decreasing): the sum of ``|dx| (y[i] + y[i + 1]) / 2``."""
    return abs(float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2)))


def keeping_area(
    x: np.ndarray,
    y: np.ndarray,
    limit: int = MAX_POINTS,
    tolerance: float = AREA_TOLERANCE,
) -> np.ndarray:
    """Positions of the points drawn of a curve whose number is its trapezoid area
    (``x`` monotonic): :func:`along_curve` with ``limit`` points, ``limit`` doubled
    until the trapezoid area of the points kept is within ``tolerance`` of the whole
    curve's (at worst every point is kept).

    Kept: the first and the last point (exact endpoints), the points of
    :func:`along_curve`, and so the area: a ROC curve's AUC, or a precision-recall
    curve's AP when its steps are given as their corners.  A smooth curve of
    millions of points needs ``limit`` (the trapezoid's error is second order); a
    jagged one of a few thousand, a few times more.
    """
    whole = trapezoid(x, y)
    while True:
        kept = along_curve(x, [y], limit)
        if len(kept) == len(x) or abs(trapezoid(x[kept], y[kept]) - whole) <= tolerance:
            return kept
        limit *= 2
