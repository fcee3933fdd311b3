"""What the chart tests (``tests/test_plot.py``, ``tests/test_plot_new_charts.py``)
share: the example frame (the ``df`` fixture) and the readers of a chart's data."""

from __future__ import annotations

import struct
from pathlib import Path

import polars as pl
import pytest

EXAMPLE = Path(__file__).parents[1] / "examples" / "predictions.parquet"


@pytest.fixture(scope="module", name="df")  # name=: imported under another name
def df() -> pl.DataFrame:
    return pl.read_parquet(EXAMPLE)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _rendered(chart, tmp_path: Path, name: str, *, least: int = 200) -> Path:
    target = tmp_path / f"{name}.png"
    chart.save(target)
    width, height = _png_size(target)
    assert width > 200
    assert height > least
    assert target.stat().st_size > 10_000  # lines, text and colours, not a blank canvas
    return target


def _legends(data: pl.DataFrame, column: str) -> dict[str, tuple[str, float]]:
    rows = data.unique("segment_id").select("segment", "legend", column).rows()
    return {segment: (legend, value) for segment, legend, value in rows}


def _table_keys(table: pl.DataFrame, by: list[str]) -> list[str]:
    return [
        " / ".join("null" if v is None else str(v) for v in row) for row in table.select(by).rows()
    ]


def _method_values(table: pl.DataFrame, by: list[str], column: str) -> dict[str, float]:
    return dict(zip(_table_keys(table, by), table[column].to_list(), strict=True))


CLASSES = ["bird", "cat", "dog", "fish"]
