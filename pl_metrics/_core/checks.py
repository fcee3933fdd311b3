"""Every argument, schema and data check, in the order they can be made, and every message.

1. options (no data): ``beta``, ``zero_division``, ``labels``, ``average`` ...
   (:func:`check_beta` ...); a method checks all of its options before it
   reads the schema, so a bad option is reported even when a column is missing;
2. schema (``collect_schema()``, no rows read): columns exist, dtypes fit,
   ``by`` does not collide with the output (:func:`check_by`), ``pos_label``
   can be a label of ``y_true`` (:func:`label_value`);
3. data (rows): nulls, NaN, labels that are not labels, negative weights.
   These are counted inside the one aggregation the metric needs anyway and
   checked on its small result (:func:`raise_if_bad`), so they cost no extra scan.

Every data message is written once, in :class:`Bad`, and used by every path
(eager, lazy, expressions, the sorted in-memory AUC, states, the CLI).
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import polars as pl
from polars.exceptions import ColumnNotFoundError, SchemaError

from pl_metrics._core.names import BAD_WEIGHT, INTERNAL, ROWS
from pl_metrics.exceptions import DataError

__all__ = ["BAD_WEIGHT", "INTERNAL", "ROWS"]

_STRINGY = (pl.String, pl.Categorical)
#: Integers up to this magnitude are exact in Float64 (scores are compared as Float64).
MAX_EXACT_FLOAT_INT = 2**53
_INT64_MAX = 2**63 - 1


# --------------------------------------------------------------------------- options
def _is_real(value: object) -> bool:
    """A real number (numpy scalars included), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_beta(beta: float) -> float:
    """Return ``beta`` as a float, or raise if it is not finite and > 0."""
    if not (_is_real(beta) and math.isfinite(beta) and beta > 0):
        msg = f"`beta` must be a finite float > 0, got {beta!r}"
        raise ValueError(msg)
    return float(beta)


def check_zero_division(zero_division: float) -> float:
    """Return ``zero_division`` as a float: one of 0.0, 1.0 or NaN."""
    if _is_real(zero_division) and (math.isnan(zero_division) or zero_division in (0, 1)):
        return float(zero_division)
    msg = f"`zero_division` must be one of 0.0, 1.0 or float('nan'), got {zero_division!r}"
    raise ValueError(msg)


def check_choice(name: str, value: object, allowed: Collection[str]) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        msg = f"`{name}` must be one of {list(allowed)}, got {value!r}"
        raise ValueError(msg)


def positive_int(name: str, value: object) -> int:
    """``value`` as an int >= 1 (numpy integers accepted)."""
    if not (_is_int(value) and value >= 1):
        msg = f"`{name}` must be an integer >= 1, got {value!r}"
        raise ValueError(msg)
    return int(value)


def check_bins(bins: object) -> int | None:
    """``bins=``: None or an integer >= 1."""
    if bins is None:
        return None
    if not (_is_int(bins) and bins >= 1):
        msg = f"`bins` must be None or an integer >= 1, got {bins!r}"
        raise ValueError(msg)
    return int(bins)


def check_buckets(buckets: object) -> list[tuple[int, int]]:
    """``buckets=`` of ``gains``: an integer >= 1 (equal shares of rows) or increasing
    cumulative shares in (0, 1] (the last share, 1, may be left out).

    Returns the inner cuts as exact fractions ``(numerator, denominator)``: ``j/m``
    for ``m`` buckets, and a share as the decimal it was written as (0.2 is 1/5,
    not the binary float just above it), so a block at exactly 20 % of the rows
    is placed by exact integer arithmetic.
    """
    if _is_int(buckets) and buckets >= 1:
        m = int(buckets)
        return [(j, m) for j in range(1, m)]
    if isinstance(buckets, Sequence) and not isinstance(buckets, str) and buckets:
        shares = [Fraction(repr(float(q))) for q in buckets if _is_real(q)]
        ordered = all(a < b for a, b in itertools.pairwise(shares))
        if len(shares) == len(buckets) and ordered and shares[0] > 0 and shares[-1] <= 1:
            inner = shares[:-1] if shares[-1] == 1 else shares
            return [(q.numerator, q.denominator) for q in inner]
    msg = (
        "`buckets` must be an integer >= 1 (equal shares of rows, 10 = deciles) or "
        f"increasing cumulative shares in (0, 1] such as [0.01, 0.05, 0.1, 0.5], got {buckets!r}"
    )
    raise ValueError(msg)


def check_threshold(threshold: object) -> float:
    """A finite number."""
    if not (_is_real(threshold) and math.isfinite(threshold)):
        msg = f"`threshold` must be a finite number, got {threshold!r}"
        raise ValueError(msg)
    return float(threshold)


def check_ci(ci: object, n_boot: object, ci_method: object, methods: Sequence[str]) -> bool:
    """``ci`` in (0, 1) or None, ``n_boot >= 1``, ``ci_method`` one of ``methods``.

    Returns whether intervals are asked for.
    """
    if ci is None:
        return False
    if not (_is_real(ci) and 0 < ci < 1):
        msg = f"`ci` must be None or a confidence level in (0, 1), e.g. 0.95; got {ci!r}"
        raise ValueError(msg)
    positive_int("n_boot", n_boot)
    check_choice("ci_method", ci_method, methods)
    return True


def normalize_by(by: object) -> list[str]:
    """Turn ``by=`` into a list of distinct column names."""
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    if not isinstance(by, Sequence) or not all(isinstance(name, str) for name in by):
        msg = (
            f"`by` must be a column name or a list of column names, got {by!r} "
            f"({type(by).__name__}); e.g. by='region' or by=['region', 'day']"
        )
        raise TypeError(msg)
    names = list(by)
    if len(set(names)) != len(names):
        msg = f"`by` lists a column more than once: {names!r}"
        raise ValueError(msg)
    return names


def check_column_name(argument: str, name: object) -> str:
    """A column argument must be one column name (a str)."""
    if not isinstance(name, str):
        hint = ""
        if argument == "y_score" and isinstance(name, (Sequence, Mapping)):
            hint = (
                "; for multiclass scores pass a mapping {label: column}, "
                "e.g. {'cat': 'p_cat', 'dog': 'p_dog'}"
            )
        msg = f"`{argument}` must be a column name (str), got {name!r}{hint}"
        raise TypeError(msg)
    return name


def check_score_map(argument: str, y_score: object) -> dict[object, str]:
    """A multiclass ``{label: column}`` mapping with at least two classes."""
    if not isinstance(y_score, Mapping):
        msg = f"`{argument}` must be a column name or a mapping {{label: column}}, got {y_score!r}"
        raise TypeError(msg)
    if len(y_score) < 2:
        msg = f"`{argument}` must map at least two classes to columns, got {dict(y_score)!r}"
        raise ValueError(msg)
    for column in y_score.values():
        check_column_name(argument, column)
    return dict(y_score)


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


def check_by(schema: pl.Schema, by: list[str], reserved: Collection[str]) -> None:
    """``by`` columns must exist and must not take the name of an output column."""
    for name in by:
        check_columns(schema, by=name)
        if name.startswith(INTERNAL):
            msg = (
                f"`by` column {name!r} starts with {INTERNAL!r}, the prefix of "
                f"pl_metrics' own columns; rename it first, e.g. "
                f"`.rename({{{name!r}: 'segment'}})`"
            )
            raise ValueError(msg)
        if name in reserved:
            msg = (
                f"`by` column {name!r} collides with an output column of this method "
                f"({list(reserved)}); rename it first, e.g. "
                f"`.rename({{{name!r}: 'segment'}})`"
            )
            raise ValueError(msg)


def _family(dtype: pl.DataType) -> str:
    if isinstance(dtype, pl.Enum):
        return "enum"
    if isinstance(dtype, _STRINGY):
        return "string"
    if dtype == pl.Boolean or dtype.is_integer():
        return "integer"
    if dtype.is_float():
        return "float"
    return repr(dtype)


@dataclass(frozen=True)
class LabelTypes:
    """How the two label columns are compared, and the dtype of ``label`` out.

    ``float_columns``: the label columns holding floats, whose values must be
    whole numbers (checked on the data; :class:`Bad`.``not_labels``).
    """

    compute: pl.DataType  # both columns are cast to this before comparing
    output: pl.DataType  # the result's label columns are cast back to this
    float_columns: tuple[str, ...] = ()


def _integer_supertype(dtypes: Sequence[pl.DataType]) -> pl.DataType:
    """The smallest integer dtype holding every value of ``dtypes`` (bool, ints) exactly."""
    ints = [pl.Int64 if d == pl.Boolean else d for d in dtypes]
    if any(d == pl.UInt64 for d in ints) and any(d.is_signed_integer() for d in ints):
        return pl.Int128()
    frame = pl.LazyFrame(schema={f"c{i}": d for i, d in enumerate(ints)})
    common = frame.select(pl.coalesce(frame.collect_schema().names())).collect_schema()
    dtype = next(iter(common.values()))
    return dtype if dtype.is_integer() else pl.Int128()


def label_types(schema: pl.Schema, y_true: str, y_pred: str) -> LabelTypes:
    """Resolve a lossless common dtype for ``y_true`` and ``y_pred`` or raise ``SchemaError``.

    Integers (and booleans) compare as their integer supertype; floats must hold
    whole numbers (a data check) and compare as Float64 when both columns are
    floats, else as integers; String and Categorical compare as String and come
    back as ``y_true``'s dtype; an Enum keeps its dtype (and its order) and the
    other column is cast to it.  No cast can merge two different labels.
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
    numeric = {"integer", "float"}
    if fam_true in numeric and fam_pred in numeric:
        floats = tuple(dict.fromkeys(c for c in (y_true, y_pred) if schema[c].is_float()))
        if len(floats) == 2 or (floats and y_true == y_pred):
            return LabelTypes(compute=pl.Float64(), output=pl.Float64(), float_columns=floats)
        ints = [schema[c] for c in (y_true, y_pred) if c not in floats]
        common = _integer_supertype(ints if not floats else [*ints, pl.Int64()])
        return LabelTypes(compute=common, output=common, float_columns=floats)
    if fam_true != fam_pred:
        raise SchemaError(incompatible)
    if fam_true == "string":
        return LabelTypes(compute=pl.String(), output=dt_true)
    if dt_true != dt_pred:
        raise SchemaError(incompatible)
    return LabelTypes(compute=dt_true, output=dt_true)


def single_label_types(schema: pl.Schema, y_true: str) -> LabelTypes:
    """The label types of one column (ranking and probability metrics)."""
    return label_types(schema, y_true, y_true)


def check_numeric(schema: pl.Schema, argument: str, name: str | None) -> None:
    """A weight or score column must be numeric (``SchemaError`` otherwise)."""
    if name is None:
        return
    check_columns(schema, **{argument: name})
    dtype = schema[name]
    if not dtype.is_numeric() and dtype != pl.Boolean:
        msg = f"column {name!r} (argument `{argument}`) must be numeric, got {dtype}"
        raise SchemaError(msg)


def label_value(value: object, dtype: pl.DataType, argument: str, column: str) -> Any:
    """``value`` (``pos_label``, a ``labels=`` entry, a mapping key) as a label of ``dtype``.

    The conversion must be exact: ``pos_label=1`` fits an Int32 or a Float64
    column, ``1.5`` does not fit an integer column, ``"1"`` does not fit a
    numeric one (``ValueError`` naming the argument, the column and its dtype).
    """
    target = pl.String() if isinstance(dtype, pl.Categorical) else dtype
    converted: Any = None
    if target == pl.Boolean:
        ok = isinstance(value, bool) or (_is_int(value) and value in (0, 1))
        converted = bool(value) if ok else None
    elif target.is_numeric():
        ok = _is_real(value) or isinstance(value, bool)
        if ok and target.is_integer() and isinstance(value, numbers.Real):
            as_float = float(value)
            value = int(as_float) if as_float.is_integer() else value  # 1.0 is the label 1
        if ok:
            try:
                converted = pl.Series([value], dtype=target, strict=True)[0]
            except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
                ok = False
        ok = ok and converted == value
    else:
        ok = isinstance(value, str)
        if ok:
            try:
                converted = pl.Series([value], dtype=target, strict=True)[0]
            except (TypeError, ValueError, pl.exceptions.PolarsError):
                ok = False
    if not ok:
        msg = (
            f"`{argument}`={value!r} cannot be a label of column {column!r} ({dtype}); "
            f"pass a value of that dtype"
        )
        raise ValueError(msg)
    return converted


def labels_series(labels: object, dtype: pl.DataType, column: str) -> pl.Series:
    """The ``labels=`` option as a Series of the compute dtype (checked, in order)."""
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, pl.Series)):
        msg = f"`labels` must be a sequence of class labels, got {labels!r}"
        raise ValueError(msg)
    if len(labels) == 0:
        msg = "`labels` must not be empty; pass None to use the labels in the data"
        raise ValueError(msg)
    values = list(labels)
    if any(v is None for v in values):
        msg = f"`labels` must not contain None, got {values!r}"
        raise ValueError(msg)
    converted = [label_value(v, dtype, "labels", column) for v in values]
    series = pl.Series("label", converted, dtype=dtype)
    if series.n_unique() != series.len():
        msg = f"`labels` must not repeat a class, got {values!r}"
        raise ValueError(msg)
    return series


# --------------------------------------------------------------------------- data
class Bad:
    """The data errors, each message written once (every path raises these)."""

    @staticmethod
    def nulls(column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} has {n} null rows; drop or fill them first, "
            f"e.g. `.drop_nulls({column!r})`"
        )

    @staticmethod
    def not_labels(column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} has {n} rows that are not class labels (NaN, infinite or "
            "not a whole number); labels must be integers, booleans or strings. If these "
            "are scores or probabilities, use the ranking methods (roc_auc, "
            "average_precision, thresholds) or threshold them first (threshold_report)"
        )

    @staticmethod
    def bad_weights(column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} (argument `weight`) has {n} rows with a null, NaN, "
            "infinite or negative weight; weights must be finite and >= 0"
        )

    @staticmethod
    def weight_overflow(column: str) -> DataError:
        return DataError(
            f"the weights of column {column!r} (argument `weight`) sum to infinity in a "
            "segment; rescale them, e.g. divide by their maximum"
        )

    @staticmethod
    def bad_scores(columns: Sequence[str], n: int) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        return DataError(
            f"column {names} (argument `y_score`) has {n} null, NaN or infinite rows; "
            "drop or fill them first"
        )

    @staticmethod
    def inexact_scores(columns: Sequence[str], n: int) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        return DataError(
            f"column {names} (argument `y_score`) has {n} integer scores at or beyond +-2**53, "
            "which cannot be compared exactly as Float64; rescale them"
        )

    @staticmethod
    def bad_probabilities(columns: Sequence[str], n: int) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        return DataError(
            f"column {names} has {n} null, NaN, infinite or out-of-[0, 1] probabilities"
        )

    @staticmethod
    def pos_label_absent(pos_label: object, column: str, present: Sequence[object]) -> DataError:
        shown = list(present[:20]) + (["..."] if len(present) > 20 else [])
        return DataError(
            f"`pos_label`={pos_label!r} does not occur in column {column!r}; "
            f"its labels are {shown}; pass one of them as pos_label"
        )

    @staticmethod
    def unknown_classes(
        column: str, n: int, keys: Sequence[object], unknown: Sequence[object] = ()
    ) -> DataError:
        which = f" ({list(unknown)!r})" if len(unknown) else ""
        return DataError(
            f"column {column!r} has {n} rows whose label{which} has no score column in the "
            f"mapping (keys: {list(keys)!r}); add the missing classes or drop those rows"
        )

    @staticmethod
    def state(column: str, n: int, what: str) -> DataError:
        return DataError(
            f"state column {column!r} has {n} rows that are {what}; a state holds the "
            "output of .metrics.counts / .metrics.score_counts, concatenated"
        )

    @staticmethod
    def count_overflow(n: int) -> DataError:
        return DataError(
            f"the merged counts of {n} segment(s) pass 2**63 - 1 and cannot be summed "
            "exactly as Int64; merge fewer states or cast the counts to Float64 (weights)"
        )


#: A data check on an aggregated frame: (column of bad-row counts, error from the total).
Check = tuple[str, Callable[[int], DataError]]


def raise_if_bad(frame: pl.LazyFrame, checks: Sequence[Check]) -> pl.LazyFrame:
    """``frame`` (aggregated) that raises the first failing check's error at collect.

    Each check's column holds counts of bad rows; the check fails when they sum
    to more than 0.  The check columns stay in the frame (the caller selects).
    """

    def check(df: pl.DataFrame) -> pl.DataFrame:
        for column, error in checks:
            n_bad = df[column].sum()
            if n_bad:
                raise error(int(n_bad))
        return df

    return frame.map_batches(check)


def not_a_label(column: str | pl.Expr) -> pl.Expr:
    """Row-wise: a float label that is NaN, infinite or not a whole Int64 (null: False)."""
    x = pl.col(column) if isinstance(column, str) else column
    x = x.cast(pl.Float64)
    return (~x.is_finite() | (x != x.round()) | (x.abs() >= 2.0**63)).fill_null(False)


def bad_weight(weight: str) -> pl.Expr:
    """Aggregation: number of rows whose weight is null, NaN, infinite or negative."""
    w = pl.col(weight).cast(pl.Float64)
    return (w.is_null() | ~w.is_finite().fill_null(False) | (w < 0).fill_null(False)).sum()


def without_zero_weights(lf: pl.LazyFrame, weight: str | None) -> pl.LazyFrame:
    """The rows whose weight is not 0: rows of weight 0 are absent, as in scikit-learn's
    curves (they add no class, no threshold and no NaN).  Null, NaN and negative
    weights stay, for the weight check to report."""
    if weight is None:
        return lf
    return lf.filter((pl.col(weight).cast(pl.Float64) != 0).fill_null(True))


def labels_present(lf: pl.LazyFrame, column: str) -> list[object]:
    """The distinct non-null values of ``column`` (read only on an error path)."""
    values = lf.select(pl.col(column).drop_nulls().unique().sort()).collect()
    return values.get_column(column).to_list()
