"""All argument, schema and data checks, in the order they can be made.

1. options (no data): ``beta``, ``zero_division``, ``labels``, ``average`` ...
2. schema (``collect_schema()``, no rows read): columns exist, dtypes fit;
3. data (rows): nulls, NaN, negative weights.  These are counted inside the one
   aggregation the metric needs anyway and checked on its small result, so they
   cost no extra scan (see :func:`check_counts`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
from polars.exceptions import ColumnNotFoundError, SchemaError

from pl_metrics.exceptions import DataError

#: Prefix of every internal column; user columns may not start with it.
INTERNAL = "__plm_"
#: Row count of a counts frame (un-weighted), used by the data checks.
ROWS = f"{INTERNAL}rows"
#: Number of rows whose weight is null, NaN, infinite or negative.
BAD_WEIGHT = f"{INTERNAL}bad_weight"

_STRINGY = (pl.String, pl.Categorical)


# --------------------------------------------------------------------------- options
def check_beta(beta: float) -> float:
    """Return ``beta`` as a float, or raise if it is not finite and > 0."""
    if isinstance(beta, bool) or not isinstance(beta, (int, float)):
        msg = f"`beta` must be a finite float > 0, got {beta!r}"
        raise ValueError(msg)
    if not (math.isfinite(beta) and beta > 0):
        msg = f"`beta` must be a finite float > 0, got {beta!r}"
        raise ValueError(msg)
    return float(beta)


def check_zero_division(zero_division: float) -> float:
    """Return ``zero_division`` as a float: one of 0.0, 1.0 or NaN."""
    ok = isinstance(zero_division, (int, float)) and not isinstance(zero_division, bool)
    if ok and (math.isnan(zero_division) or zero_division in (0, 1)):
        return float(zero_division)
    msg = f"`zero_division` must be one of 0.0, 1.0 or float('nan'), got {zero_division!r}"
    raise ValueError(msg)


def check_choice(name: str, value: object, allowed: Collection[str]) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        msg = f"`{name}` must be one of {sorted(allowed)}, got {value!r}"
        raise ValueError(msg)


def normalize_by(by: str | Sequence[str] | None) -> list[str]:
    """Turn ``by=`` into a list of distinct column names."""
    if by is None:
        return []
    names = [by] if isinstance(by, str) else list(by)
    for name in names:
        if not isinstance(name, str):
            msg = f"`by` must be a column name or a list of column names, got {by!r}"
            raise TypeError(msg)
    if len(set(names)) != len(names):
        msg = f"`by` lists a column more than once: {names!r}"
        raise ValueError(msg)
    return names


# --------------------------------------------------------------------------- schema
def check_columns(schema: pl.Schema, **columns: str | None) -> None:
    """Raise ``ColumnNotFoundError`` for the first argument naming a missing column."""
    for argument, name in columns.items():
        if name is not None and name not in schema:
            msg = (
                f"column {name!r} (argument `{argument}`) not found; "
                f"available columns: {list(schema.names())}"
            )
            raise ColumnNotFoundError(msg)


def check_by(schema: pl.Schema, by: list[str], reserved: Iterable[str]) -> None:
    """``by`` columns must exist and must not collide with the output columns."""
    for name in by:
        check_columns(schema, by=name)
        if name in reserved or name.startswith(INTERNAL):
            msg = (
                f"`by` column {name!r} collides with an output column of this method "
                f"({sorted(reserved)}); rename it first, e.g. "
                f"`.rename({{{name!r}: 'segment'}})`"
            )
            raise ValueError(msg)


def _family(dtype: pl.DataType) -> str:
    if isinstance(dtype, pl.Enum):
        return "enum"
    if isinstance(dtype, _STRINGY):
        return "string"
    if dtype == pl.Boolean or dtype.is_numeric():
        return "numeric"
    return repr(dtype)


@dataclass(frozen=True)
class LabelTypes:
    """How the two label columns are compared, and the dtype of ``label`` out."""

    compute: pl.DataType  # both columns are cast to this before grouping
    output: pl.DataType  # the result's label columns are cast back to this


def label_types(schema: pl.Schema, y_true: str, y_pred: str) -> LabelTypes:
    """Resolve a common dtype for ``y_true`` and ``y_pred`` or raise ``SchemaError``.

    int / float / bool mix to their supertype; String and Categorical compare as
    String and come back as ``y_true``'s dtype; an Enum keeps its dtype (and its
    order) and the other column is cast to it.
    """
    dt_true, dt_pred = schema[y_true], schema[y_pred]
    fam_true, fam_pred = _family(dt_true), _family(dt_pred)
    incompatible = (
        f"columns {y_true!r} ({dt_true}) and {y_pred!r} ({dt_pred}) hold labels of "
        "incompatible dtypes; cast one of them so both are numeric or both are strings"
    )
    if "enum" in (fam_true, fam_pred):
        if fam_true == fam_pred and dt_true != dt_pred:
            msg = f"{incompatible} (two different Enum dtypes)"
            raise SchemaError(msg)
        enum = dt_true if fam_true == "enum" else dt_pred
        if {fam_true, fam_pred} <= {"enum", "string"}:
            return LabelTypes(compute=enum, output=enum)
        raise SchemaError(incompatible)
    if fam_true != fam_pred:
        raise SchemaError(incompatible)
    if fam_true == "string":
        return LabelTypes(compute=pl.String(), output=dt_true)
    if fam_true == "numeric":
        both = pl.LazyFrame(schema={"a": dt_true, "b": dt_pred})
        common = both.select(pl.coalesce("a", "b")).collect_schema()["a"]
        return LabelTypes(compute=common, output=common)
    if dt_true != dt_pred:
        raise SchemaError(incompatible)
    return LabelTypes(compute=dt_true, output=dt_true)


def check_numeric(schema: pl.Schema, argument: str, name: str | None) -> None:
    """A weight or score column must be numeric (``SchemaError`` otherwise)."""
    if name is None:
        return
    check_columns(schema, **{argument: name})
    dtype = schema[name]
    if not dtype.is_numeric() and dtype != pl.Boolean:
        msg = f"column {name!r} (argument `{argument}`) must be numeric, got {dtype}"
        raise SchemaError(msg)


def labels_series(labels: Sequence[Any] | pl.Series, dtype: pl.DataType) -> pl.Series:
    """The ``labels=`` option as a Series of the compute dtype (checked, in order)."""
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, pl.Series)):
        msg = f"`labels` must be a sequence of class labels, got {labels!r}"
        raise ValueError(msg)
    if len(labels) == 0:
        msg = "`labels` must not be empty; pass None to use the labels in the data"
        raise ValueError(msg)
    try:
        series = pl.Series("label", list(labels), dtype=dtype, strict=True)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        msg = f"`labels` {list(labels)!r} cannot be read as the label dtype {dtype}: {exc}"
        raise ValueError(msg) from None
    if series.null_count():
        msg = f"`labels` must not contain None, got {list(labels)!r}"
        raise ValueError(msg)
    if series.n_unique() != series.len():
        msg = f"`labels` must not repeat a class, got {list(labels)!r}"
        raise ValueError(msg)
    return series


# --------------------------------------------------------------------------- data
def null_rows(column: str, n_null: int) -> DataError:
    """The error for ``n_null`` null labels in ``column`` (one wording everywhere)."""
    msg = (
        f"column {column!r} has {n_null} null rows; drop or fill them first, "
        f"e.g. `.drop_nulls({column!r})`"
    )
    return DataError(msg)


def bad_weight(weight: str) -> pl.Expr:
    """Aggregation: number of rows whose weight is null, NaN, infinite or negative."""
    w = pl.col(weight).cast(pl.Float64)
    return (w.is_null() | ~w.is_finite().fill_null(False) | (w < 0).fill_null(False)).sum()


def check_counts(
    counts: pl.LazyFrame,
    null_columns: Mapping[str, str],
    weight: str | None,
    *,
    rows: str,
) -> pl.LazyFrame:
    """Raise :class:`DataError` at collect time if the counted rows had bad values.

    ``counts`` is the small aggregated frame; ``null_columns`` maps its key
    columns (``actual``...) to the user's column names; ``rows`` is its
    un-weighted row-count column.  Rows with a null label form their own group,
    so their number is read off that column.
    """

    def check(df: pl.DataFrame) -> pl.DataFrame:
        for key, user_name in null_columns.items():
            n_null = df.filter(pl.col(key).is_null())[rows].sum()
            if n_null:
                raise null_rows(user_name, n_null)
        if weight is not None:
            n_bad = df[BAD_WEIGHT].sum()
            if n_bad:
                msg = (
                    f"column {weight!r} (argument `weight`) has {n_bad} rows with a null, "
                    "NaN, infinite or negative weight; weights must be finite and >= 0"
                )
                raise DataError(msg)
        return df

    return counts.map_batches(check)
