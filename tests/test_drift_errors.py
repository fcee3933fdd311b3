"""drift's refusals say what was wrong and what to do (issue 49: a raw polars error
with internal plan text, a dtype named as if it could be compared, a pandas frame
named as a "DataFrame")."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import pl_metrics  # noqa: F401 - registers .metrics

FRAME = pl.DataFrame(
    {
        "x": [1.0, 2.0, 3.0, 4.0],
        "r": [1, 0, 1, 0],
        "d": [dt.date(2025, 1, i) for i in range(1, 5)],
        "t": [dt.datetime(2025, 1, 1, i) for i in range(4)],
        "l": [[1], [2], [3], [4]],
        "s": [{"a": 1}] * 4,
    }
)


def test_a_reference_expression_that_is_not_boolean_is_named() -> None:
    """An integer flag: was polars' InvalidOperationError with the plan's text."""
    with pytest.raises(TypeError, match=r"must be a Boolean expression .*col\(\"r\"\) is Int64"):
        FRAME.metrics.drift("x", reference=pl.col("r"))
    with pytest.raises(TypeError, match=r"is Int64, Float64 here"):
        FRAME.metrics.drift("x", reference=pl.col("r", "x"))
    # the flag as a comparison works: rows 0 and 2 against rows 1 and 3
    got = FRAME.metrics.drift("x", reference=pl.col("r") == 1)
    assert got.select("n_reference", "n_current", "ks").row(0) == (2, 2, 0.5)


@pytest.mark.parametrize(
    ("reference", "named", "hint"),
    [
        (FRAME.select("x").to_pandas(), "pandas.DataFrame", "pl.from_pandas(reference)"),
        (FRAME.select("x").to_arrow(), "pyarrow.", "pl.from_arrow(reference)"),
        ("train.parquet", "got str", None),
    ],
)
def test_a_reference_of_another_library_is_named_with_its_conversion(
    reference: object, named: str, hint: str | None
) -> None:
    """A pandas frame was 'got DataFrame', as if it were a polars one."""
    assert isinstance(FRAME.select("x").to_pandas(), pd.DataFrame)
    assert isinstance(FRAME.select("x").to_arrow(), pa.Table)
    with pytest.raises(TypeError) as caught:
        FRAME.metrics.drift("x", reference=reference)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "must be a polars DataFrame / LazyFrame" in message
    assert named in message
    assert (hint in message) if hint else "convert" not in message
    if hint == "pl.from_pandas(reference)":  # the conversion shown works
        got = FRAME.metrics.drift("x", reference=pl.from_pandas(reference))
        assert got["ks"].item() == 0.0
    with pytest.raises(TypeError, match=named):  # the report's reference, the same message
        FRAME.metrics.html_report("r", "r", reference=reference)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("column", "hint"),
    [
        ("d", "dt.epoch('d')"),
        ("t", "to_physical()"),
        ("l", ".explode('l')"),
        ("s", None),
    ],
)
def test_a_dtype_drift_does_not_compare_is_said_so(column: str, hint: str | None) -> None:
    """Was "is Date here and Date in the reference: ... of the same kind on both
    sides", as if the kinds differed."""
    with pytest.raises(pl.exceptions.SchemaError) as caught:
        FRAME.metrics.drift(column, reference=FRAME)
    message = str(caught.value)
    assert f"drift does not compare {FRAME.schema[column]} columns" in message
    assert "same kind" not in message
    assert (hint in message) if hint else "compare its" not in message
    if column == "d":  # the conversion shown works: days since 1970
        days = FRAME.with_columns(pl.col("d").dt.epoch("d"))
        assert days.metrics.drift("d", reference=days)["ks"].item() == 0.0
