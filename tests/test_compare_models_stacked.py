"""Stacked ``compare_models`` (one row per id and model) in the user's terms (issue
49): the baseline is a value of the model column's dtype, as ``pos_label`` is of
``y_true``'s, and errors name the user's column and the model, not the wide form's
internal columns."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics as plm

N = 60


def _stacked(names: list[object], dtype: pl.DataType) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(stacked rows, the same models side by side: columns ``m0``, ``m1``)."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, N)
    scores = [np.round(rng.random(N), 2) for _ in names]
    stacked = pl.concat(
        pl.DataFrame({"id": np.arange(N), "y": y, "model": [name] * N, "s": s})
        for name, s in zip(names, scores, strict=True)
    ).with_columns(pl.col("model").cast(dtype))
    wide = pl.DataFrame({"y": y} | {f"m{i}": s for i, s in enumerate(scores)})
    return stacked, wide


@pytest.mark.parametrize(
    ("names", "dtype", "baseline", "text"),
    [
        ([1.0, 2.0], pl.Float64, 2, "2.0"),  # was refused: '2' is not '2.0'
        ([1.0, 2.0], pl.Float64, 2.0, "2.0"),
        ([1.0, 2.0], pl.Float64, "2.0", "2.0"),  # the name as the output writes it
        ([False, True], pl.Boolean, True, "true"),  # was refused: 'True' is not 'true'
        ([1, 2], pl.Int32, np.int64(2), "2"),
        (["a", "b"], pl.String, "b", "b"),
    ],
)
def test_the_baseline_is_a_value_of_the_model_columns_dtype(
    names: list[object], dtype: pl.DataType, baseline: object, text: str
) -> None:
    """The second model as the baseline: the numbers of the wide form with its column
    first (the wide form's models named by their columns, renamed here)."""
    stacked, wide = _stacked(names, dtype)
    got = stacked.metrics.compare_models(
        "y", "s", model="model", id="id", baseline=baseline, metric="roc_auc"
    )
    assert got.select("baseline", "model").row(0) == (text, str(got["model"][0]))
    assert got["baseline"].to_list() == [text]
    expected = wide.metrics.compare_models("y", ["m1", "m0"], metric="roc_auc").with_columns(
        pl.col("baseline").replace({"m1": text}), pl.col("model").replace({"m0": got["model"][0]})
    )
    assert_frame_equal(got, expected)


def test_a_baseline_that_is_no_model_or_does_not_fit_is_named() -> None:
    stacked, _ = _stacked([1.0, 2.0], pl.Float64)
    with pytest.raises(ValueError, match=r"`baseline` 3 is not a model of column 'model'"):
        stacked.metrics.compare_models("y", "s", model="model", id="id", baseline=3)
    with pytest.raises(ValueError, match=r"`baseline`='x' cannot be a label of column 'model'"):
        stacked.metrics.compare_models("y", "s", model="model", id="id", baseline="x")


def test_errors_name_the_users_column_and_the_model() -> None:
    """Scores where labels are expected (the default metric is accuracy): the message
    named the internal column 's[model=1.0]'."""
    stacked, _ = _stacked([1.0, 2.0], pl.Float64)
    with pytest.raises(plm.DataError) as caught:
        stacked.metrics.compare_models("y", "s", model="model", id="id")
    message = str(caught.value)
    assert re.search(r"column 's' \(model '[12]\.0'\) has 60 rows that are not class", message)
    assert "[model=" not in message
    # a null score of one model: named with its model, the code shown is the user's
    nulls = stacked.with_columns(
        pl.when((pl.col("model") == 2.0) & (pl.col("id") < 3)).then(None).otherwise("s").alias("s")
    )
    with pytest.raises(plm.DataError, match=r"column 's' has 3 null rows") as caught:
        nulls.metrics.compare_models("y", "s", model="model", id="id", metric="roc_auc")
    assert "[model=" not in str(caught.value)
