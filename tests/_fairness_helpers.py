"""What the fairness tests (``tests/test_fairness*.py``) share."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
import sklearn.metrics as skm
from hypothesis import strategies as st


@st.composite
def cases(draw: st.DrawFn) -> dict[str, object]:
    n = draw(st.integers(4, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    groups = draw(st.integers(1, 4))
    control = draw(st.booleans())
    base = draw(st.floats(0.0, 1.0))
    y = (rng.random(n) < base).astype(np.int64)
    p = np.where(rng.random(n) < 0.7, y, 1 - y)
    g = rng.choice([f"g{i}" for i in range(groups)], n)
    if draw(st.booleans()):  # a group without positive rows (its TPR is 0 / 0)
        y[g == "g0"] = 0
    df = pl.DataFrame(
        {
            "y": y,
            "p": p,
            "g": g,
            "c": rng.choice(["x", "y"], n) if control else ["x"] * n,
            "w": np.round(rng.random(n) * 3 + 0.05, 2),
        }
    )
    return {
        "df": df,
        "control": control,
        "weight": "w" if draw(st.booleans()) else None,
        "method": draw(st.sampled_from(["between_groups", "to_overall"])),
        "agg": draw(st.sampled_from(["worst_case", "mean"])),
    }


def _same(got: object, expected: object) -> None:
    """Equal numbers; null (pl_metrics) where fairlearn gives NaN."""
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        assert got is None or (isinstance(got, float) and math.isnan(got)), (got, expected)
    else:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (got, expected)


def fair_ratio(
    metric: str,
    ratio: float,
    group_min: float,
    overall: float,
    method: str,
    registered: bool = True,
) -> object:
    """fairlearn's ``ratio``, or None where pl_metrics leaves the ratio out: a registered
    metric whose range holds values below 0 (the catalogue record's ``bounds``: mcc,
    cohen_kappa...), or a value below 0 entering the ratio (``_groups.fairness.spread``):
    fairlearn's min / max of -0.5 and -0.1 is 5.0, of -0.3 and 0.7 is -0.43."""
    from pl_metrics._core.catalogue import CATALOGUE

    if registered and CATALOGUE[metric].bounds[0] < 0:
        return None
    if group_min < 0 or (method == "to_overall" and overall < 0):
        return None
    return ratio


SKLEARN = {
    "accuracy": skm.accuracy_score,
    "balanced_accuracy": skm.balanced_accuracy_score,
    "f1_macro": lambda y, p, **kw: skm.f1_score(y, p, average="macro", zero_division=0, **kw),
    "f1": lambda y, p, **kw: skm.f1_score(y, p, zero_division=0, **kw),
    "recall": lambda y, p, **kw: skm.recall_score(y, p, zero_division=0, **kw),
    "mcc": skm.matthews_corrcoef,
}
