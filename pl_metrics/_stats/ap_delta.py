"""The average precision's analytic interval (``ci_method="logit"``, the default).

A segment's rows are a multinomial sample of its cells (a class at a score), and
the AP is a smooth function of the cells' counts: its variance over the rows is,
to first order, ``sum x d^2`` (the delta method), ``d`` each row's derivative of
the AP by its cell's count (``paired_ap._ap_gradient_numpy`` writes the same
derivatives for two models).  With the runs of equal scores descending, ``pos_r``
/ ``neg_r`` their rows, ``TP_r`` / ``A_r`` the positives / rows down to run r and
P the positives (AP = sum_r pos_r TP_r / A_r / P):

- a positive of run q: ``d = (TP_q / A_q + U_q - AP) / P``,
  ``U_q = sum_{r >= q} pos_r (A_r - TP_r) / A_r^2``;
- a negative of run q: ``d = -W_q / P``, ``W_q = sum_{r >= q} pos_r TP_r / A_r^2``

(the sums over run q and the lower ones).  AP is homogeneous of degree 0 in the
counts, so ``sum x d = 0`` and the multinomial's ``- (sum x d)^2 / n`` vanishes.

The interval is on the logit scale, ``expit(logit AP -+ t se / (AP (1 - AP)))``,
``t`` Student's quantile at Satterthwaite's degrees of freedom of the variance,
``2 S2^2 / (S4 - S2^2 / n)`` with ``S_k = sum x d^k`` and n the rows: near
AP = 1 a few negatives ranked among the positives carry the whole variance,
which is then itself uncertain (few degrees of freedom), and the normal quantile
undercovers.  Where the variance is 0 (a perfect ranking: every derivative is
0) the interval is Wilson's for the AP with P (P + 1) trials, the AP's
resolution (one negative ranked among the lowest positives costs 1 / (P (P +
1))): ``[P (P + 1) / (P (P + 1) + z^2), 1]`` at AP = 1.  ``docs/intervals.md``
gives the simulation behind the choice (``benchmarks/sim_ap_interval.py``).

The moments come from the per-score counts in polars (:func:`moments`) or from
the sorted positives in numpy (:func:`sorted_moments`); the bounds from numpy
(:func:`bounds`), one formula for every path.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics._core.names import INTERNAL, NEG, POS, SCORE

if TYPE_CHECKING:
    import numpy as np

#: The internal columns of :func:`moments` (per segment).
S2, S4, ROWS, POSITIVES = (f"{INTERNAL}ap_{m}" for m in ("s2", "s4", "rows", "positives"))

#: Below these degrees of freedom the t quantile's first guess (Hill's) is refined
#: by Newton steps on the exact distribution function (above, it is within 1e-9).
_REFINE_BELOW = 100.0
#: The continued fraction's terms (it converges in about sqrt(df) of them).
_FRACTION_TERMS = 200
_TINY = 1e-300
#: The fraction has converged when a term changes it by less than this share.
_CONVERGED = 1e-15
#: Degrees of freedom at and above which t is z (closer than 1e-12).
_NORMAL_ABOVE = 1e12


def moments() -> list[pl.Expr]:
    """Per-segment aggregations over the per-score counts (``score, pos, neg``):
    ``S2`` / ``S4`` (the delta method's ``sum x d^2`` / ``sum x d^4``), the rows and
    the positives.  Counts only (intervals refuse weights)."""
    order = {"by": SCORE, "descending": True}
    pos = pl.col(POS).sort_by(**order).cast(pl.Float64)
    neg = pl.col(NEG).sort_by(**order).cast(pl.Float64)
    tp, rows = pos.cum_sum(), (pos + neg).cum_sum()
    p_total = tp.last()
    precision = tp / rows
    ap = (pos * precision).sum() / p_total
    below_pos = (pos * (rows - tp) / rows**2).cum_sum(reverse=True)  # U
    below_neg = (pos * tp / rows**2).cum_sum(reverse=True)  # W
    d_pos = (precision + below_pos - ap) / p_total
    d_neg = below_neg / p_total  # its sign squares away
    return [
        (pos * d_pos**2 + neg * d_neg**2).sum().alias(S2),
        (pos * d_pos**4 + neg * d_neg**4).sum().alias(S4),
        rows.last().alias(ROWS),
        p_total.alias(POSITIVES),
    ]


def _segmented_cumsums(segment: np.ndarray, *values: np.ndarray) -> list[np.ndarray]:
    """Running sums of each of ``values``, restarting at each segment (contiguous),
    each segment's its own: no other segment's rounding carried in (one query)."""
    if segment[0] == segment[-1]:  # one segment
        import numpy as np

        return [np.cumsum(v) for v in values]
    frame = pl.DataFrame({"s": segment, **{f"x{i}": v for i, v in enumerate(values)}})
    summed = frame.select(pl.all().exclude("s").cum_sum().over("s"))
    return [summed[c].to_numpy() for c in summed.columns]


def sorted_moments(  # noqa: PLR0917 - the sorted positives' arrays, in _chunk_ap's order
    tps: np.ndarray,
    fps: np.ndarray,
    new: np.ndarray,
    segment: np.ndarray,
    ap: np.ndarray,
    n_pos: np.ndarray,
    n_segments: int,
) -> tuple[np.ndarray, np.ndarray]:
    """``S2`` and ``S4`` of :func:`moments` per segment, from its positives sorted
    ascending (segments one after the other): ``tps`` / ``fps`` the positives /
    negatives at or above each one's score, ``new`` whether it opens a run of
    equal scores of its segment, ``segment`` its segment (0 .. n_segments - 1),
    ``ap`` / ``n_pos`` per segment.

    A run's U and W sum the positives up to the run's last (the runs at or below
    it); the negatives whose W is a run's are those from its score up to the next
    positive run's: its ``fps`` less the next one's (the top run's: all of its
    ``fps``)."""
    import numpy as np

    size = tps.size
    if not size:
        return np.zeros(n_segments), np.zeros(n_segments)
    one = n_segments == 1  # scalars, not gathers, for one segment (a large one alone)
    t, f = tps.astype(np.float64), fps.astype(np.float64)
    rows = t + f
    squared = rows * rows
    run = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:] - 1, size - 1]  # each run's last positive
    below_pos, below_neg = (
        c[ends][run] for c in _segmented_cumsums(segment, f / squared, t / squared)
    )
    del squared
    p_total = float(n_pos[0]) if one else n_pos[segment].astype(np.float64)
    d_pos = (t / rows + below_pos - (ap[0] if one else ap[segment])) / p_total
    del below_pos, rows
    d_neg = below_neg / p_total
    last = np.zeros(size, dtype=bool)  # a run's last positive holds its negatives
    last[ends] = True
    next_fps = np.r_[f[1:], 0.0]
    next_fps[np.r_[segment[1:] != segment[:-1], True]] = 0.0  # a segment's top positive
    negatives = np.where(last, f - next_fps, 0.0)
    pos2, neg2 = d_pos * d_pos, d_neg * d_neg  # (products: ** is a slow power call)
    second, fourth = pos2 + negatives * neg2, pos2 * pos2 + negatives * (neg2 * neg2)
    if one:
        return np.array([second.sum()]), np.array([fourth.sum()])
    s2 = np.bincount(segment, weights=second, minlength=n_segments)
    s4 = np.bincount(segment, weights=fourth, minlength=n_segments)
    return s2, s4


def _log_beta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    import numpy as np

    lgamma = np.frompyfunc(math.lgamma, 1, 1)
    return (lgamma(a) + lgamma(b) - lgamma(a + b)).astype(np.float64)


def _beta_fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The continued fraction of the regularized incomplete beta function (Lentz's
    method, as Numerical Recipes' ``betacf``): ``I_x(a, b) = x^a (1 - x)^b / (a
    B(a, b))`` times it, for ``x < (a + 1) / (a + b + 2)``."""
    import numpy as np

    def floor(v: np.ndarray) -> np.ndarray:
        return np.where(np.abs(v) < _TINY, _TINY, v)

    c = np.ones_like(x)
    d = 1.0 / floor(1.0 - (a + b) * x / (a + 1.0))
    h = d.copy()
    for m in range(1, _FRACTION_TERMS + 1):
        factor = np.ones_like(x)
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 / floor(1.0 + numerator * d)
            c = floor(1.0 + numerator / c)
            factor = factor * d * c
        h = h * factor
        if np.all(np.abs(factor - 1.0) < _CONVERGED):
            break
    return h


def _t_tail(t: np.ndarray, df: np.ndarray, log_beta: np.ndarray) -> np.ndarray:
    """P(T > t) of Student's t with ``df`` degrees of freedom, t >= 0: half the
    regularized incomplete beta ``I_{df / (df + t^2)}(df / 2, 1 / 2)`` (``log_beta``:
    log B(df / 2, 1 / 2))."""
    import numpy as np

    a, b = df / 2.0, np.full_like(df, 0.5)
    x = df / (df + t * t)
    direct = x < (a + 1.0) / (a + b + 2.0)
    # the fraction converges on the side of the smaller x: I_x(a, b) = 1 - I_{1-x}(b, a)
    aa, bb, xx = np.where(direct, a, b), np.where(direct, b, a), np.where(direct, x, 1.0 - x)
    front = np.exp(aa * np.log(xx) + bb * np.log1p(-xx) - log_beta) / aa
    part = front * _beta_fraction(aa, bb, xx)
    return 0.5 * np.where(direct, part, 1.0 - part)


def _t_density(t: np.ndarray, df: np.ndarray, log_beta: np.ndarray) -> np.ndarray:
    import numpy as np

    log_norm = -0.5 * np.log(df) - log_beta
    return np.exp(log_norm - (df + 1.0) / 2.0 * np.log1p(t * t / df))


def t_quantile(z: float, df: np.ndarray) -> np.ndarray:
    """Student's t quantile with the upper tail of the standard normal's ``z``
    (``z_value(ci)``: the two-sided level ci), ``df >= 2`` degrees of freedom (inf:
    ``z``).  Hill's approximation (1970, CACM Algorithm 396, as R's ``qt``), then,
    below :data:`_REFINE_BELOW` degrees, two second-order Newton steps on the
    exact distribution function (the incomplete beta function): within 1e-10 of
    ``scipy.stats.t.ppf`` (``tests/test_ap_interval.py``)."""
    import numpy as np

    df = np.asarray(df, dtype=np.float64)
    tail = math.erfc(z / math.sqrt(2.0))  # two-sided: 1 - ci
    finite = df < _NORMAL_ABOVE
    v = np.where(finite, df, _NORMAL_ABOVE)
    a = 1.0 / (v - 0.5)
    b = 48.0 / (a * a)
    c = ((20700.0 * a / b - 98.0) * a - 16.0) * a + 96.36
    d = ((94.5 / (b + c) - 3.0) / b + 1.0) * np.sqrt(a * math.pi / 2.0) * v
    y = (d * tail) ** (2.0 / v)
    # the expansion about the normal (x: the lower quantile, -z)
    x = -z
    c_far = np.where(v < 5.0, c + 0.3 * (v - 4.5) * (x + 0.6), c)
    c_far = (((0.05 * d * x - 5.0) * x - 7.0) * x - 2.0) * x + b + c_far
    x2 = x * x
    far = (((((0.4 * x2 + 6.3) * x2 + 36.0) * x2 + 94.5) / c_far - x2 - 3.0) / b + 1.0) * x
    q_far = np.sqrt(v * np.expm1(a * far * far))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        near = ((1.0 / (((v + 6.0) / (v * y) - 0.089 * d - 0.822) * (v + 2.0) * 3.0)
                 + 0.5 / (v + 4.0)) * y - 1.0) * (v + 1.0) / (v + 2.0) + 1.0 / y  # fmt: skip
        # R's qt: the expansion also for df < 2.1 at levels below 0.5
        use_far = (y > 0.05 + a) | ((v < 2.1) & (tail > 0.5))
        q = np.where(use_far, q_far, np.sqrt(v * near))
    refine = finite & (v < _REFINE_BELOW)
    if refine.any():
        r, dr = q[refine], v[refine]
        log_beta = _log_beta(dr / 2.0, np.full_like(dr, 0.5))
        for _ in range(2):
            step = (_t_tail(r, dr, log_beta) - tail / 2.0) / _t_density(r, dr, log_beta)
            r = r + step * (1.0 + step * r * (dr + 1.0) / (2.0 * (r * r + dr)))
        q[refine] = r
    return np.where(finite, q, z)


def bounds(  # noqa: PLR0917 - the moments, then the level
    ap: Any, s2: Any, s4: Any, rows: Any, positives: Any, z: float
) -> tuple[np.ndarray, np.ndarray]:
    """``average_precision_low`` / ``_high`` (NaN without positives): the logit
    interval of the delta method's variance ``s2`` with Student's t at
    Satterthwaite's degrees of freedom (of ``s2``, ``s4`` and the ``rows``);
    where ``s2`` is 0 (exactly where AP = 1: a perfect ranking), Wilson's interval
    of AP = 1 with ``m = positives (positives + 1)`` trials, ``[m / (m + z^2), 1]``.
    ``z``: the normal quantile of the level."""
    import numpy as np

    ap, s2, s4 = (np.asarray(x, dtype=np.float64) for x in (ap, s2, s4))
    rows, p_total = (np.asarray(x, dtype=np.float64) for x in (rows, positives))
    defined = p_total > 0
    spread = (s2 > 0) & (ap < 1) & defined
    theta = np.where(spread, ap, 0.5)  # no infinite logit computed
    s2_ = np.where(spread, s2, 1.0)
    excess = s4 - s2_ * s2_ / np.where(spread, rows, 1.0)
    with np.errstate(divide="ignore"):
        df = np.where(spread & (excess > 0), 2.0 * s2_ * s2_ / excess, np.inf)
    q = t_quantile(z, np.maximum(df, 2.0))  # df >= 2 in exact arithmetic
    eta = np.log(theta / (1.0 - theta))
    tau = np.sqrt(s2_) / (theta * (1.0 - theta))
    low, high = 1.0 / (1.0 + np.exp(q * tau - eta)), 1.0 / (1.0 + np.exp(-eta - q * tau))
    # a perfect ranking: Wilson's interval of AP = 1 with m = P (P + 1) trials
    trials = p_total * (p_total + 1.0)
    perfect_low = np.minimum(trials / (trials + z * z), ap)
    nan = float("nan")
    return (
        np.where(spread, np.minimum(low, ap), np.where(defined, perfect_low, nan)),
        np.where(spread, np.maximum(high, ap), np.where(defined, 1.0, nan)),
    )


__all__ = ["POSITIVES", "ROWS", "S2", "S4", "bounds", "moments", "sorted_moments", "t_quantile"]
