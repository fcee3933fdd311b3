"""Label dtypes: how ``y_true`` and ``y_pred`` are compared, and label values.

The schema rules of the labels, in one place: the lossless common dtype of two
label columns (:func:`label_types`; no cast may merge two labels), and a label
given as an argument (``pos_label``, ``labels=``) converted exactly to a column's
dtype (:func:`label_value`, :func:`labels_series`).

A module of the front door for arguments (``tests/test_front_door.py``): the one home
of the rules of the label arguments checked against the label column's dtype, read
from the schema before any row: ``pos_label`` and its default
(:func:`default_pos_label`), ``neg_label`` (:func:`negative_label`), ``labels=``, a
mapping's label keys, a ``baseline`` model, and a ``reference`` group's value of a
``by`` column (:func:`group_value`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
from polars.exceptions import SchemaError

_STRINGY = (pl.String, pl.Categorical)


def is_real(value: object) -> bool:
    """A real number (numpy scalars included), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_int(value: object) -> bool:
    """An integer (numpy integers included), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


#: The label families that compare across dtypes (:func:`label_types`).
_FAMILIES = frozenset({"enum", "string", "integer", "float"})


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


def check_one_label_per_row(column: str, dtype: pl.DataType) -> None:
    """A single-label path refuses a List / Array / Struct column: a set of labels
    would be taken for one label (``["a", "b"]`` a class of its own), a wrong number."""
    if isinstance(dtype, (pl.List, pl.Array, pl.Struct)):
        msg = (
            f"column {column!r} holds {dtype} values, not one label per row: multilabel "
            "input (a List column of label sets, or a {label: indicator column} mapping) is "
            "read by per_class, averages, report, summary, multilabel_confusion_matrix, "
            "hamming_loss, zero_one_loss and the multilabel ranking metrics, not by this one"
        )
        raise SchemaError(msg)


def label_types(schema: pl.Schema, y_true: str, y_pred: str) -> LabelTypes:
    """Resolve a lossless common dtype for ``y_true`` and ``y_pred`` or raise ``SchemaError``.

    Integers (and booleans) compare as their integer supertype; floats must hold
    whole numbers (a data check) and compare as Float64 when both columns are
    floats, else as integers; String and Categorical compare as String and come
    back as ``y_true``'s dtype; two columns of one Enum keep it (and its order);
    an Enum beside a String or Categorical column compares as String (the other
    column may hold values outside the Enum).  No cast can merge two labels.
    """
    dt_true, dt_pred = schema[y_true], schema[y_pred]
    check_one_label_per_row(y_true, dt_true)
    check_one_label_per_row(y_pred, dt_pred)
    fam_true, fam_pred = _family(dt_true), _family(dt_pred)
    incompatible = (
        f"columns {y_true!r} ({dt_true}) and {y_pred!r} ({dt_pred}) hold labels of "
        "incompatible dtypes; cast one of them so both are numeric or both are strings"
    )
    if not {fam_true, fam_pred} <= _FAMILIES:  # Decimal, temporal, ...: one dtype only
        incompatible = (
            f"columns {y_true!r} ({dt_true}) and {y_pred!r} ({dt_pred}) hold labels of "
            f"incompatible dtypes: a {dt_true if fam_true not in _FAMILIES else dt_pred} "
            "label column compares only with a column of the same dtype; cast both to "
            "one dtype that holds every label exactly (for Decimals: one precision and "
            "scale, the larger scale of the two)"
        )
    if "enum" in (fam_true, fam_pred):
        if fam_true == fam_pred and dt_true != dt_pred:
            msg = f"{incompatible} (two different Enum dtypes)"
            raise SchemaError(msg)
        if fam_true == fam_pred:
            return LabelTypes(compute=dt_true, output=dt_true)
        if {fam_true, fam_pred} <= {"enum", "string"}:
            # the String / Categorical column may hold values that are not
            # categories of the Enum (a prediction outside them): compare as
            # String, as scikit-learn compares strings
            return LabelTypes(compute=pl.String(), output=pl.String())
        raise SchemaError(incompatible)
    numeric = {"integer", "float"}
    if fam_true in numeric and fam_pred in numeric:
        floats = tuple(dict.fromkeys(c for c in (y_true, y_pred) if schema[c].is_float()))
        if len(floats) == 2 or (floats and y_true == y_pred):
            return LabelTypes(compute=pl.Float64(), output=pl.Float64(), float_columns=floats)
        ints = [schema[c] for c in (y_true, y_pred) if c not in floats]
        common = _integer_supertype(ints if not floats else [*ints, pl.Int64()])
        # two Boolean columns (or one, for the ranking methods): compared as 0 / 1,
        # reported as the booleans they are
        both_bool = dt_true == pl.Boolean and dt_pred == pl.Boolean
        return LabelTypes(
            compute=common, output=pl.Boolean() if both_bool else common, float_columns=floats
        )
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


def label_value(value: object, dtype: pl.DataType, argument: str, column: str) -> Any:
    """``value`` (``pos_label``, a ``labels=`` entry, a mapping key) as a label of ``dtype``.

    The conversion must be exact: ``pos_label=1`` fits an Int32 or a Float64
    column, ``1.5`` does not fit an integer column, ``"1"`` does not fit a
    numeric one (``ValueError`` naming the argument, the column and its dtype).
    """
    check_one_label_per_row(column, dtype)
    target = pl.String() if isinstance(dtype, pl.Categorical) else dtype
    converted: Any = None
    if target == pl.Boolean:
        ok = isinstance(value, bool) or (is_int(value) and value in (0, 1))
        converted = bool(value) if ok else None
    elif target.is_numeric():
        ok = is_real(value) or isinstance(value, bool)
        if ok and isinstance(value, numbers.Rational) and value.denominator == 1:
            # a whole number kept exact (numpy integers, Fraction(k, 1) too), compared
            # as a Python int below: 2**53 + 1 is neither 2**53 nor 2.0**53
            value = int(value)
        elif ok and target.is_integer() and isinstance(value, numbers.Real):
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
    if any(is_real(v) and math.isnan(v) for v in values):  # not a label of any column
        msg = f"`labels` must not contain NaN (a NaN label is refused in the data), got {values!r}"
        raise ValueError(msg)
    converted = [label_value(v, dtype, "labels", column) for v in values]
    series = pl.Series("label", converted, dtype=dtype)
    if series.n_unique() != series.len():
        msg = f"`labels` must not repeat a class, got {values!r}"
        raise ValueError(msg)
    return series


def default_pos_label(dtype: pl.DataType, y_true: str) -> object:
    """The default ``pos_label`` of a label column of ``dtype`` (the frame methods' and
    the expressions' one rule): True for booleans, 1 for numbers; required for the
    other dtypes (strings: which is positive cannot be guessed)."""
    if dtype == pl.Boolean:
        return True
    if dtype.is_numeric():
        return label_value(1, dtype, "pos_label", y_true)
    msg = (
        f"`pos_label` is required when {y_true!r} holds {dtype} labels: "
        f"pass the positive class, e.g. pos_label='yes'"
    )
    raise ValueError(msg)


def negative_label(value: object, pos_label: object, dtype: pl.DataType, column: str) -> Any:
    """``neg_label`` as a label of ``dtype`` (:func:`label_value`) other than
    ``pos_label`` (already one)."""
    converted = label_value(value, dtype, "neg_label", column)
    if converted == pos_label:
        msg = f"`neg_label` must differ from `pos_label`, both are {pos_label!r}"
        raise ValueError(msg)
    return converted


def group_value(value: object, dtype: pl.DataType, column: str) -> pl.Series:
    """A ``reference`` group's value of the ``by`` column ``column`` (of ``dtype``) as a
    one-value Series of ``dtype``: exactly the value, no float truncated to an
    integer, no bool as a number."""
    try:
        literal = pl.Series([value]).cast(dtype, strict=True)
        exact = literal.to_list()[0] == value and isinstance(value, bool) == (dtype == pl.Boolean)
    except (pl.exceptions.PolarsError, TypeError, ValueError):
        exact = False
    if not exact:
        msg = f"`reference` value {value!r} is not a value of the `by` column {column!r} ({dtype})"
        raise ValueError(msg)
    return literal
