"""Indicator mappings ``{label: 0/1 column}``, checked once for every method that takes them.

Two forms read them: a multilabel target (``_multilabel.inputs``: any set of labels
per row) and a one-hot ``y_true`` of the probability losses (:func:`one_hot_label`:
exactly one label per row).  Both accept Boolean columns, integers 0/1 and floats
exactly 0.0 / 1.0 (-0.0 included); a null or any other value (0.5, NaN, 2) is a
:class:`~pl_metrics.DataError` naming the column and the argument.

A check is ``(flag column name, row-wise flag, error from the number of flagged rows)``:
the caller counts the flags in its own aggregation (no extra scan).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

import polars as pl
from polars.exceptions import SchemaError

from pl_metrics._core import checks, forms
from pl_metrics._core.names import INTERNAL
from pl_metrics._core.options import checked
from pl_metrics.exceptions import DataError

#: A data check of the rows: (flag column, row-wise flag, error from the count).
Check = tuple[str, pl.Expr, Callable[[int], DataError]]


def mapping_labels(mapping: Mapping[object, str], argument: str, name: str = "label") -> pl.Series:
    """The mapping's labels as a sorted Series of one dtype (integers, strings or booleans)."""
    keys = list(mapping)
    try:
        series = pl.Series(name, keys, strict=True)
    except (TypeError, ValueError, pl.exceptions.PolarsError):
        series = None
    checked("indicator labels", argument=argument, keys=keys, series=series)
    assert series is not None  # checked
    return series.sort()


def is_set(column: str, dtype: pl.DataType) -> pl.Expr:
    """Row-wise: the indicator is set (True, 1 or 1.0); null for a null."""
    return pl.col(column) if dtype == pl.Boolean else pl.col(column) == 1


def indicator_checks(
    argument: str, mapping: Mapping[object, str], schema: pl.Schema
) -> list[Check]:
    """One check per indicator column: a null or a value other than 0/1 (True/False,
    0.0/1.0).  A column of another dtype is a ``SchemaError`` now."""
    data_checks: list[Check] = []
    for i, column in enumerate(dict.fromkeys(mapping.values())):
        dtype = schema[column]
        if dtype == pl.Boolean:
            bad = pl.col(column).is_null()
        elif dtype.is_integer():
            bad = ~pl.col(column).is_in([0, 1]).fill_null(False)
        elif dtype.is_float():  # exactly 0.0 (-0.0) or 1.0: not a probability, not NaN
            col = pl.col(column)
            bad = ~((col == 0.0) | (col == 1.0)).fill_null(False)
        else:
            msg = (
                f"column {column!r} (an indicator column of `{argument}`) must be Boolean or "
                f"0/1 integers or floats, got {dtype}; cast it, e.g. `pl.col({column!r}) > 0.5`"
            )
            raise SchemaError(msg)
        name = f"{INTERNAL}ind_bad_{argument}_{i}"
        data_checks.append(
            (name, bad, functools.partial(checks.Bad.not_indicators, argument, column))
        )
    return data_checks


def one_hot_label(
    argument: str, mapping: Mapping[object, str], schema: pl.Schema
) -> tuple[pl.Expr, list[Check]]:
    """A one-hot ``{label: indicator column}`` as one label column: the label whose
    indicator is set (an expression of the labels' dtype), and its checks - each column's
    (:func:`indicator_checks`), then exactly one indicator set in each row (the first to
    fail is raised: a row with a null is reported as the column's, not as "none set").
    """
    mapping = forms.indicator_map(argument, mapping)
    checks.check_columns(schema, **{f"{argument}[{k!r}]": c for k, c in mapping.items()})
    labels = mapping_labels(mapping, argument)
    data_checks = indicator_checks(argument, mapping, schema)
    flags = {label: is_set(mapping[label], schema[mapping[label]]) for label in labels}
    n_set = pl.sum_horizontal(f.cast(pl.Int32) for f in flags.values())
    columns = list(dict.fromkeys(mapping.values()))
    data_checks.append(
        (
            f"{INTERNAL}ind_not_one_{argument}",
            (n_set != 1).fill_null(True),
            functools.partial(checks.Bad.not_one_hot, argument, columns),
        )
    )
    label = pl.lit(None, labels.dtype)  # a bad row (refused by the checks)
    for key, flag in flags.items():
        label = pl.when(flag).then(pl.lit(key, labels.dtype)).otherwise(label)
    return label, data_checks
