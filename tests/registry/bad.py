"""The registry's bad-input table: for every entry, each way its input can be bad
(a missing column, a null label, a negative weight, a NaN score, ...), the error
it must raise and a regex its message matches."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

import pl_metrics as plm
from registry.entries import (
    METHODS,
    Entry,
)


def _bad_inputs(
    entry: Entry,
) -> list[tuple[str, Callable[[pl.DataFrame], pl.DataFrame], type, str]]:
    """(case, how the data is spoiled, the error type, a regex its message matches)."""
    if entry.reads[0] == "columns":  # drift: a null is a bin of its own, not bad input
        return [
            ("missing column", lambda d: d.drop("s"), pl.exceptions.ColumnNotFoundError, "'s'"),
            ("missing by column", lambda d: d.drop("g"), pl.exceptions.ColumnNotFoundError, "g"),
        ]
    label = {
        "labels": "y",
        "binary": "yb",
        "binary_labels": "yb",
        "multiclass": "y",
        "predictions": "pb",  # estimated_performance without a reference: y_pred
        "multilabel": "ml",
        "multilabel_map": "mt0",
        "multilabel_float": "mf0",
        "one_hot": "oh0",
        "relevance": "rl",
        "relevance_map": "r0",
    }[entry.reads[0]]
    cases: list[tuple[str, Callable[[pl.DataFrame], pl.DataFrame], type, str]] = [
        ("missing label column", lambda d: d.drop(label), pl.exceptions.ColumnNotFoundError, label),
        ("missing by column", lambda d: d.drop("g"), pl.exceptions.ColumnNotFoundError, "g"),
        (
            "null label",
            lambda d: d.with_columns(
                pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(label).alias(label)
            ),
            plm.DataError,
            f"'{label}'.*null",
        ),
    ]
    cases.append(
        (
            "NaN label",
            lambda d: d.with_columns(
                pl.when(pl.int_range(pl.len()) == 6)
                .then(float("nan"))
                .otherwise(pl.col(label).cast(pl.Float64))
                .alias(label)
            ),
            plm.DataError,
            f"'{label}'.*not class labels",
        )
    )
    if entry.reads[0] in ("multilabel", "multilabel_map", "relevance", "relevance_map"):
        cases.pop()  # a List column holds no NaN label, a relevance is no label
    if entry.reads[0] in ("multilabel_float", "one_hot"):
        cases.pop()  # a float indicator: NaN, like 0.5, is not 0 or 1
        cases.extend(
            (
                f"{bad} indicator",
                lambda d, bad=bad: d.with_columns(
                    pl.when(pl.int_range(pl.len()) == 6).then(bad).otherwise(label).alias(label)
                ),
                plm.DataError,
                f"'{label}'.*not 0/1",
            )
            for bad in (float("nan"), 0.5, 2.0)
        )
    if entry.reads[0] == "one_hot":  # exactly one indicator set in each row
        cases.extend(
            (
                f"{what} indicators set",
                lambda d, value=value: d.with_columns(
                    pl.when(pl.int_range(pl.len()) == 7)
                    .then(pl.lit(value, pl.Int8))
                    .otherwise(c)
                    .alias(c)
                    for c in ("oh0", "oh1", "oh2")
                ),
                plm.DataError,
                "'oh0', 'oh1', 'oh2' \\(the one-hot indicator columns of `y_true`\\) have 1 rows",
            )
            for what, value in (("no", 0), ("three", 1))
        )
    if entry.weighted:
        cases.append(
            (
                "negative weight",
                lambda d: d.with_columns(
                    pl.when(pl.int_range(pl.len()) == 3).then(-1.0).otherwise("w").alias("w")
                ),
                plm.DataError,
                "'w'",
            )
        )
    if "binary" in entry.reads and entry.name not in ("threshold_report",):
        cases.append(
            (
                "NaN score",
                lambda d: d.with_columns(
                    pl.when(pl.int_range(pl.len()) == 4)
                    .then(float("nan"))
                    .otherwise("s")
                    .alias("s")
                ),
                plm.DataError,
                "'s'",
            )
        )
    return cases


BAD = [
    pytest.param(e, case, spoil, error, match, id=f"{e.name}-{case}")
    for e in METHODS
    for case, spoil, error, match in _bad_inputs(e)
]
