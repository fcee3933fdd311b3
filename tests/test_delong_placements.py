"""DeLong's placements in numpy hold their counts in Int32 where twice the rows
counted fit (half the memory), else in Int64: both equal the polars query's
integers (issue 49: compare_models' peak memory)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pl_metrics._groups import paired, paired_delong


@pytest.mark.parametrize("scale", [1, 2**29])  # 2**29: 2 x the rows counted pass 2**31
def test_numpy_placements_equal_polars_in_either_width(scale: int) -> None:
    rng = np.random.default_rng(2)
    n = 60
    df = pl.DataFrame(
        {
            "k": rng.integers(0, 3, n),
            paired.Y: rng.random(n) < 0.4,
            paired.A: rng.integers(0, 5, n).astype(float),  # ties across the classes
            paired.B: rng.normal(size=n),
            paired.COUNT: rng.integers(1, 4, n) * scale,
        }
    )
    assert (2 * df[paired.COUNT].sum() + 1 < 2**31) is (scale == 1)
    polars_path = df.lazy()
    for score in (paired.A, paired.B):
        polars_path = paired_delong._placements(polars_path, ["k"], score)
    polars_path = polars_path.with_columns(
        (pl.col(paired_delong._K + paired.B) - pl.col(paired_delong._K + paired.A)).alias(
            paired_delong._D
        )
    )
    numpy_in = df.with_row_index(paired_delong._GROUP).with_columns(
        pl.col(paired_delong._GROUP).first().over("k")
    )
    numpy_path = paired_delong._differences_numpy(numpy_in)
    columns = ["k", paired.Y, paired.A, paired.B, paired.COUNT, paired_delong._D]
    assert_frame_equal(
        numpy_path.select(columns).sort(columns),
        polars_path.collect().select(columns).sort(columns),
    )
    assert numpy_path[paired_delong._D].abs().max() > (2**31 if scale > 1 else 0) // 8
