"""DeLong's numpy placements with more than 65,536 segments (their numbers Int64, not
UInt16): the sort key takes them (a TypeError from np.copyto before the fix), and the
integers equal the polars query's."""

from __future__ import annotations

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

from pl_metrics._groups import paired, paired_delong


def test_numpy_placements_with_more_than_65536_segments() -> None:
    rng = np.random.default_rng(5)
    n = 140_000  # 70,000 segments of 2 cells
    df = pl.DataFrame(
        {
            "k": np.repeat(np.arange(70_000), 2),
            paired.Y: rng.random(n) < 0.5,
            paired.A: rng.random(n),
            paired.B: rng.integers(0, 3, n).astype(float),  # ties
            paired.COUNT: np.ones(n, dtype=np.int64),
        }
    )
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


def test_numpy_placements_with_a_narrow_key_equal_polars(monkeypatch) -> None:
    """With the sort key narrowed (``_KEY_BITS``), distinct scores share a prefix: the
    runs re-sorted by score (or the argsort's way where they are many) still give the
    polars query's integers."""
    rng = np.random.default_rng(6)
    for bits in (64, 40, 30, 26):
        monkeypatch.setattr(paired_delong, "_KEY_BITS", bits)
        for _ in range(40):
            n = int(rng.integers(2, 200))
            spread = np.where(
                rng.random(n) < 0.1, rng.integers(0, 5, n), rng.integers(0, 1 << 40, n)
            )
            df = pl.DataFrame(
                {
                    "k": rng.integers(0, 3, n),
                    paired.Y: rng.random(n) < 0.5,
                    paired.A: 0.5 + spread * 2.0**-52,  # close scores: one prefix when shifted
                    paired.B: rng.normal(size=n),
                    paired.COUNT: rng.integers(1, 3, n),
                }
            )
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
            columns = ["k", paired.Y, paired.A, paired.B, paired.COUNT, paired_delong._D]
            assert_frame_equal(
                paired_delong._differences_numpy(numpy_in).select(columns).sort(columns),
                polars_path.collect().select(columns).sort(columns),
            )
