"""Generate a partitioned Parquet dataset for the out-of-core benchmarks.

    .venv/bin/python benchmarks/make_data.py --rows 50_000_000 --out benchmarks/data/d50m

One file per chunk of ``--chunk`` rows under ``day=<d>/`` folders, written one
chunk at a time (memory stays small).  Columns: ``day``, ``country`` (100
segments), ``model_version`` (4), ``y_true`` / ``y_pred`` (10 classes), ``y``
(binary), ``s2`` (a 2-decimal score), ``s`` (a continuous score), ``w`` (weight).
Seeded; never committed (``benchmarks/data/`` is git-ignored).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl


def chunk(n: int, rng: np.random.Generator) -> pl.DataFrame:
    y_true = rng.integers(0, 10, n, dtype=np.int8)
    wrong = rng.random(n) < 0.3
    y_pred = np.where(wrong, rng.integers(0, 10, n, dtype=np.int8), y_true)
    y = rng.integers(0, 2, n, dtype=np.int8)
    s = rng.random(n) * 0.7 + 0.3 * y * rng.random(n)
    return pl.DataFrame(
        {
            "country": rng.integers(0, 100, n, dtype=np.int16),
            "model_version": rng.integers(0, 4, n, dtype=np.int8),
            "y_true": y_true,
            "y_pred": y_pred,
            "y": y,
            "s2": np.round(s, 2),
            "s": s,
            "w": rng.random(n) + 0.5,
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=50_000_000)
    parser.add_argument("--chunk", type=int, default=2_000_000)
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/data/d50m"))
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    written = 0
    i = 0
    while written < args.rows:
        n = min(args.chunk, args.rows - written)
        folder = args.out / f"day={i % args.days}"
        folder.mkdir(parents=True, exist_ok=True)
        chunk(n, rng).write_parquet(folder / f"part-{i:04d}.parquet")
        written += n
        i += 1
    print(f"wrote {written:,} rows in {i} files under {args.out}")


if __name__ == "__main__":
    main()
