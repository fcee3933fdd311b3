"""What the interval tests (``tests/test_intervals*.py``) share: their frame and DeLong by hand."""

from __future__ import annotations

import math

import numpy as np
import polars as pl


def _frame(n: int, rng: np.random.Generator) -> pl.DataFrame:
    y_true = rng.integers(0, 3, n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, rng.integers(0, 3, n))
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 2)
    return pl.DataFrame({"t": y_true, "p": y_pred, "y": y, "s": s})


def _delong_by_hand(y: np.ndarray, s: np.ndarray, z: float) -> tuple[float, float, float]:
    """DeLong, DeLong & Clarke-Pearson (1988) over every (positive, negative) pair:
    psi = 1 if the positive scores higher, 1/2 if tied; V10 the positives' row means,
    V01 the negatives' column means; var = S10 / P + S01 / N (sample variances)."""
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    auc = psi.mean()
    if pos.size < 2 or neg.size < 2:
        return auc, math.nan, math.nan
    se = (v10.var(ddof=1) / pos.size + v01.var(ddof=1) / neg.size) ** 0.5
    return auc, max(auc - z * se, 0.0), min(auc + z * se, 1.0)
