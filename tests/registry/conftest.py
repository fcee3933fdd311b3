"""The registry's shared fixture: its frame written as three Parquet files."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from registry.entries import DATA


@pytest.fixture(scope="session")
def parquet_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("registry")
    for i, part in enumerate(
        DATA.with_columns(part=pl.int_range(pl.len()) % 3).partition_by("part")
    ):
        part.drop("part").write_parquet(root / f"part{i}.parquet")
    return root
