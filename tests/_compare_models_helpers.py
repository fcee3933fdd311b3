"""What the compare_models tests (``tests/test_compare_models.py``,
``tests/test_compare_models_delong_bootstrap.py``) share: the simulated frame of
exchangeable models."""

from __future__ import annotations

import numpy as np
import polars as pl

# --------------------------------------------------------------------------- simulation
N_SEG = 400


def _exchangeable(rng: np.random.Generator, n: int, effect: float = 0.0) -> pl.DataFrame:
    """N_SEG segments of ``n`` rows; two models with independent errors, equal in
    distribution (``effect`` 0) or the second better."""
    g = np.repeat(np.arange(N_SEG), n)
    y = rng.integers(0, 2, g.size)
    noise = rng.normal(size=(2, g.size))
    s0 = np.round(y + noise[0], 1)
    s1 = np.round((1 + effect) * y + noise[1], 1)
    return pl.DataFrame(
        {"g": g, "y": y, "s0": s0, "s1": s1, "p0": (s0 > 0.5), "p1": (s1 > 0.5 + effect / 2)}
    ).with_columns(pl.col("p0", "p1").cast(pl.Int64))
