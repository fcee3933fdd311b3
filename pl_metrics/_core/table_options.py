"""The options of the scoring tables: ``gains``' ``buckets`` and the costs'
``cost_matrix`` (option checks: no data; the others are in :mod:`checks`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

from pl_metrics._core.labels import is_int, is_real

#: the largest row count (or total) a cut is compared with: an Int64
_MOST_ROWS = 2**63 - 1


def _share(q: float) -> Fraction:
    """A cumulative share as the decimal it was written as, or, where that decimal's
    denominator is above :data:`_MOST_ROWS` (``1e-40``: its Int128 products would
    overflow), the smallest fraction above it with a denominator at most
    :data:`_MOST_ROWS`: no share of rows ``before / total`` (``total`` an Int64) lies
    strictly between the two, so every comparison is the same, and the products
    ``before * den`` stay below 2**126."""
    share = Fraction(repr(float(q)))
    if share.denominator <= _MOST_ROWS or share <= 0:
        return share
    # the two neighbours of `share` among the fractions of denominator <= _MOST_ROWS
    # (the continued-fraction walk of Fraction.limit_denominator, both bounds kept)
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = share.numerator, share.denominator
    while q0 + (n // d) * q1 <= _MOST_ROWS:
        a = n // d
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q0 + a * q1
        n, d = d, n - a * d
    k = (_MOST_ROWS - q0) // q1
    return max(Fraction(p0 + k * p1, q0 + k * q1), Fraction(p1, q1))


def check_buckets(buckets: object) -> list[tuple[int, int]]:
    """``buckets=`` of ``gains``: an integer >= 1 (equal shares of rows) or increasing
    cumulative shares in (0, 1] (the last share, 1, may be left out).

    Returns the inner cuts as exact fractions ``(numerator, denominator)``: ``j/m``
    for ``m`` buckets, and a share as the decimal it was written as (0.2 is 1/5,
    not the binary float just above it), so a block at exactly 20 % of the rows
    is placed by exact integer arithmetic.
    """
    if is_int(buckets) and buckets >= 1:
        m = int(buckets)
        return [(j, m) for j in range(1, m)]
    if isinstance(buckets, Sequence) and not isinstance(buckets, str) and buckets:
        shares = [_share(q) for q in buckets if is_real(q) and math.isfinite(q)]
        ordered = all(a < b for a, b in itertools.pairwise(shares))
        if len(shares) == len(buckets) and ordered and shares[0] > 0 and shares[-1] <= 1:
            inner = shares[:-1] if shares[-1] == 1 else shares
            return [(q.numerator, q.denominator) for q in inner]
    msg = (
        "`buckets` must be an integer >= 1 (equal shares of rows, 10 = deciles) or "
        f"increasing cumulative shares in (0, 1] such as [0.01, 0.05, 0.1, 0.5], got {buckets!r}"
    )
    raise ValueError(msg)


def check_cost_matrix(matrix: object) -> list[list[float]]:
    """``cost_matrix=``: 2 x 2 finite numbers, ``[[c(neg, neg), c(neg, pos)],
    [c(pos, neg), c(pos, pos)]]`` (rows: the actual class, negative first)."""
    rows = list(matrix) if isinstance(matrix, Sequence) and not isinstance(matrix, str) else []
    ok = len(rows) == 2 and all(
        isinstance(r, Sequence) and not isinstance(r, str) and len(r) == 2 for r in rows
    )
    if ok and all(is_real(c) and math.isfinite(c) for r in rows for c in r):
        return [[float(c) for c in r] for r in rows]
    msg = (
        "`cost_matrix` must be 2 x 2 finite numbers [[cost(neg->neg), cost(neg->pos)], "
        f"[cost(pos->neg), cost(pos->pos)]] (rows: the actual class), got {matrix!r}"
    )
    raise ValueError(msg)


def check_cost_table(costs: object, classes: Sequence[object]) -> dict[object, dict[object, float]]:
    """Multiclass ``cost_matrix=``: ``{actual: {decided: cost}}`` with a finite cost
    for every pair of the score mapping's classes (and no other class)."""
    want = set(classes)
    ok = isinstance(costs, Mapping) and set(costs) == want
    ok = ok and all(isinstance(row, Mapping) and set(row) == want for row in costs.values())
    if ok and all(is_real(c) and math.isfinite(c) for row in costs.values() for c in row.values()):
        return {a: {j: float(c) for j, c in row.items()} for a, row in costs.items()}
    msg = (
        "`cost_matrix` must map every class of `y_score` to a mapping of every class to a "
        f"finite cost, {{actual: {{decided: cost}}}}, for the classes {sorted(want, key=repr)}; "
        f"got {costs!r}"
    )
    raise ValueError(msg)
