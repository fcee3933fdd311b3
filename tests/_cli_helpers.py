"""What the command-line tests (``tests/test_cli.py``, ``tests/test_cli_commands.py``,
``tests/test_cli_options.py``, ``tests/test_cli_plot.py``) share: the example and its
columns, the in-process entry point and the ``with_day`` fixture."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from pl_metrics import cli

EXAMPLE = Path(__file__).parents[1] / "examples" / "predictions.parquet"
BASE = ["--y-true", "y_true", "--y-pred", "y_pred"]


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module", name="with_day")  # name=: imported under another name
def with_day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example with a date column ``day`` (30 days) for over-time."""
    path = tmp_path_factory.mktemp("day") / "predictions.parquet"
    day = pl.date(2026, 1, 1) + pl.duration(days=pl.int_range(pl.len()) % 30)
    pl.read_parquet(EXAMPLE).with_columns(day=day).write_parquet(path)
    return path


MAP = {c: f"p_{c}" for c in ("bird", "cat", "dog", "fish")}


LABELS = [str(EXAMPLE), *BASE]
BINARY = [str(EXAMPLE), "--y-true", "is_cat", "--score", "cat_score"]


def _rounded(text: str) -> str:
    """Floats to 9 digits, and without the minute the page was generated at."""
    text = re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "generated", text)
    return re.sub(r"\d+\.\d{9,}", lambda m: f"{float(m.group()):.9g}", text)
