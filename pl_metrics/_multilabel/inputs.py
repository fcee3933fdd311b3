"""Multilabel input, normalised once: both forms become one pair of List columns.

A multilabel target is given in one of two forms (the same form for ``y_true``
and ``y_pred``):

- **List columns**: ``y_true = ["cat", "outdoor"]``, ``y_pred = ["cat"]``; any
  label dtype (the two inner dtypes must be comparable, as two single-label
  columns: :func:`~pl_metrics._core.labels.label_types`).  An empty list is a
  row with no label; a null list, a null inside a list and a label listed twice
  in a row are data errors (:class:`~pl_metrics.DataError` counting the rows).
- **Indicator mappings**: ``{label: column}`` of Boolean, 0/1 integer or 0.0/1.0
  float columns, the same keys for ``y_true`` and ``y_pred``; a null or another
  value (0.5, NaN, 2.0) is a data error naming the column.

:func:`multilabel_input` checks the options and the schema and returns a
:class:`Multilabel`: its ``rows`` frame has one row per input row (rows of
weight 0 dropped) with the internal columns

``*keys, [ROW], TRUE, [PRED], [WEIGHT]``

- ``keys``: the ``by`` segments under their internal names (``names.segment_keys``;
  none when ``by`` is empty: the aggregations add :data:`~names.ALL`);
- ``ROW``: the row's position in the input (Int64), with ``row_index=True``;
- ``TRUE`` / ``PRED``: the row's label sets as ``List(types.compute)``, restricted
  to ``labels=`` when given (scikit-learn's ``labels=`` selects indicator
  columns), the mapping form's labels in sorted order;
- ``WEIGHT``: the row's weight as Float64, only with ``weight=``.

The rows are **not checked yet**: put :meth:`Multilabel.check_aggs` into an
aggregation over the rows (not exploded: each row must fall into exactly one
group) and pass its result through :meth:`Multilabel.raise_if_bad`; the checks
then cost no extra scan and fail at collect.

The label set (``label_set``): ``labels=`` in its order, else the mapping's keys
sorted, else the sorted union of the labels of both columns over **all rows**
(not per segment: the columns of scikit-learn's ``MultiLabelBinarizer`` fitted on
the whole frame, so every segment reports the same labels).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import polars as pl
from polars.exceptions import SchemaError

from pl_metrics._core import checks, forms, indicators, inputs, names
from pl_metrics._core.names import ALL, INTERNAL, ORD
from pl_metrics.exceptions import DataError

#: The internal columns of :attr:`Multilabel.rows`.
TRUE = f"{INTERNAL}ml_true"
PRED = f"{INTERNAL}ml_pred"
WEIGHT = f"{INTERNAL}ml_weight"
ROW = f"{INTERNAL}ml_row"
LABEL = "label"

#: A multilabel column argument: a List column's name or ``{label: indicator column}``.
MultilabelColumn = str | Mapping[object, str]

__all__ = [
    "LABEL",
    "ORD",
    "PRED",
    "ROW",
    "TRUE",
    "WEIGHT",
    "Multilabel",
    "MultilabelColumn",
    "is_multilabel",
    "multilabel_input",
]


@dataclass(frozen=True)
class Multilabel:
    """Multilabel rows in the one internal form (see the module docstring)."""

    rows: pl.LazyFrame  # *keys, [ROW], TRUE, [PRED], [WEIGHT]   (unchecked: see check_aggs)
    by: list[str]  # the output names of the user's segments
    keys: list[str]  # their internal names, or ``[ALL]`` when ``by`` is empty
    types: checks.LabelTypes  # compute: the lists' inner dtype; output: the label column's
    labels: pl.Series | None  # the fixed label set (``labels=`` or the mapping's keys)
    weighted: bool
    checks: tuple[tuple[str, pl.Expr, Callable[[int], DataError]], ...]

    @property
    def segmented(self) -> bool:
        """Whether ``by`` was given (else ``keys`` is ``[ALL]``, not a column of ``rows``)."""
        return bool(self.by)

    @property
    def group_keys(self) -> list[str]:
        """The keys to group ``rows`` by (``[]`` when there is no ``by``)."""
        return self.keys if self.by else []

    def total(self, expr: pl.Expr | None = None) -> pl.Expr:
        """Aggregation: the (weighted) number of rows where ``expr`` (a row-wise count or
        indicator; ``None``: every row) - Int64 without weights, Float64 with."""
        if self.weighted:
            w = pl.col(WEIGHT)
            return (w if expr is None else expr.cast(pl.Float64) * w).sum()
        return pl.len().cast(pl.Int64) if expr is None else expr.cast(pl.Int64).sum()

    def check_aggs(self) -> list[pl.Expr]:
        """Aggregations counting the bad rows of each data check (one column each)."""
        return [expr.sum().cast(pl.Int64).alias(name) for name, expr, _ in self.checks]

    def raise_if_bad(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """``frame`` (holding :meth:`check_aggs`' columns) raising the first failing
        check at collect, without the check columns."""
        data_checks = [(name, error) for name, _, error in self.checks]
        return checks.raise_if_bad(frame, data_checks).drop([name for name, _, _ in self.checks])

    def with_all(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """An aggregated frame with the constant key :data:`ALL` when there is no ``by``."""
        return frame if self.by else frame.with_columns(pl.lit(0, pl.Int8).alias(ALL))

    def label_set(self, seen: pl.LazyFrame | None = None) -> pl.LazyFrame:
        """``label, ORD``: the labels and their output order.

        ``seen``: a frame with a ``label`` column of the labels that occur (e.g.
        per-label counts); used only without a fixed label set (sorted union).
        """
        if self.labels is not None:
            frame = pl.LazyFrame({LABEL: self.labels})
            return frame.with_row_index(ORD).cast({ORD: pl.Int64}).select(LABEL, ORD)
        if seen is None:
            seen = pl.concat(
                [
                    self.rows.select(pl.col(c).explode().alias(LABEL))
                    for c in (TRUE, PRED)
                    if c in self.rows.collect_schema()
                ]
            )
        return (
            seen.select(LABEL)
            .unique()
            .drop_nulls()
            .sort(LABEL)
            .with_row_index(ORD)
            .cast({ORD: pl.Int64})
            .select(LABEL, ORD)
        )

    def finish(self, result: pl.LazyFrame, label_columns: Sequence[str] = ()) -> pl.LazyFrame:
        """Restore the ``by`` names and give the label columns the output dtype."""
        if label_columns and self.types.output != self.types.compute:
            result = result.with_columns(pl.col(*label_columns).cast(self.types.output))
        return names.restore_keys(result, self.by)


def is_multilabel(lf: pl.LazyFrame, y_true: object) -> bool:
    """Whether ``y_true`` is multilabel: a mapping, or the name of a List column of
    ``lf`` (reads the schema only; a missing column is not multilabel)."""
    if isinstance(y_true, Mapping):
        return True
    return isinstance(y_true, str) and isinstance(lf.collect_schema().get(y_true), pl.List)


def _list_checks(
    column: str, inner: pl.DataType, col: pl.Expr
) -> list[tuple[str, pl.Expr, Callable[[int], DataError]]]:
    """Row-wise flags of a List label column: null list, null label, repeated label,
    float label that is not a whole number."""
    tag = f"{INTERNAL}ml_bad_{column}"
    data_checks: list[tuple[str, pl.Expr, Callable[[int], DataError]]] = [
        (f"{tag}_null", col.is_null(), lambda n: checks.Bad.nulls(column, n)),
        (
            f"{tag}_null_label",
            # (list.drop_nulls().list.len() was 25x slower on 5M rows)
            col.list.eval(pl.element().is_null()).list.any().fill_null(False),
            lambda n: checks.Bad.null_in_lists(column, n),
        ),
        (
            f"{tag}_repeat",
            (col.list.n_unique() != col.list.len()).fill_null(False),
            lambda n: checks.Bad.duplicate_labels(column, n),
        ),
    ]
    if inner.is_float():
        not_label = col.list.eval(checks.not_a_label(pl.element())).list.any().fill_null(False)
        data_checks.append((f"{tag}_nan", not_label, lambda n: checks.Bad.not_labels(column, n)))
    return data_checks


def _as_list(mapping: Mapping[object, str], labels: pl.Series) -> pl.Expr:
    """The indicator columns as a List of the labels whose indicator is set (sorted)."""
    items = [
        pl.when(pl.col(mapping[key]).cast(pl.Boolean)).then(pl.lit(key, labels.dtype))
        for key in labels.to_list()
    ]
    return pl.concat_list(items).list.drop_nulls()


def _restricted(col: pl.Expr, labels: pl.Series) -> pl.Expr:
    """A label list without the labels outside ``labels=``."""
    return col.list.eval(pl.element().filter(pl.element().is_in(labels.implode())))


#: A data check of the rows: (flag column, row-wise flag or aggregate, error from the count).
_Check = tuple[str, pl.Expr, Callable[[int], DataError]]
#: The normalised label lists ({argument: expression}), label types, fixed labels, checks.
_Lists = tuple[dict[str, pl.Expr], checks.LabelTypes, pl.Series | None, list[_Check]]


def _from_mappings(maps: dict[str, dict[object, str]], schema: pl.Schema, labels: object) -> _Lists:
    """Indicator mappings -> label lists (sorted labels), their dtype and checks."""
    forms.same_indicator_labels(maps)
    for argument, mapping in maps.items():
        checks.check_columns(schema, **{f"{argument}[{k!r}]": c for k, c in mapping.items()})
    keys_s = indicators.mapping_labels(maps["y_true"], "y_true", LABEL)
    types = checks.LabelTypes(compute=keys_s.dtype, output=keys_s.dtype)
    fixed = keys_s
    if labels is not None:
        fixed = checks.labels_series(labels, keys_s.dtype, "y_true")
        forms.labels_among_keys(fixed.to_list(), keys_s.to_list())
    kept = fixed.sort()
    lists = {a: _as_list(m, kept) for a, m in maps.items()}
    data_checks = [c for a, m in maps.items() for c in indicators.indicator_checks(a, m, schema)]
    return lists, types, fixed, data_checks


def _from_lists(columns: dict[str, str], schema: pl.Schema, labels: object) -> _Lists:
    """List columns -> label lists in the compute dtype, their dtype and checks."""
    for argument, column in columns.items():
        checks.check_columns(schema, **{argument: column})
        if not isinstance(schema[column], pl.List):
            msg = (
                f"column {column!r} (argument `{argument}`) must be a List column of "
                f"labels for multilabel input, got {schema[column]}; pass both y_true "
                "and y_pred as List columns (or both as {label: indicator column})"
            )
            raise SchemaError(msg)
    inner: dict[str, pl.DataType] = {
        a: schema[c].inner  # type: ignore[attr-defined]
        for a, c in columns.items()
    }
    fake = pl.Schema({columns[a]: inner[a] for a in columns})
    t_col = columns["y_true"]
    types = checks.label_types(fake, t_col, columns.get("y_pred", t_col))
    fixed = None if labels is None else checks.labels_series(labels, types.compute, t_col)
    lists, data_checks = {}, []
    for argument, column in columns.items():
        col = pl.col(column)
        if argument == "y_true" or column != columns["y_true"]:  # one column: checked once
            data_checks += _list_checks(column, inner[argument], col)
        if inner[argument].is_float():  # -0.0 is the label 0.0
            col = col.list.eval(pl.element().cast(pl.Float64) + 0.0)
        as_compute = col.cast(pl.List(types.compute))
        lists[argument] = as_compute if fixed is None else _restricted(as_compute, fixed)
    return lists, types, fixed, data_checks


def _form(
    y_true: MultilabelColumn, y_pred: MultilabelColumn | None, schema: pl.Schema, labels: object
) -> _Lists:
    """Both arguments in one form (lists or mappings), normalised."""
    pair = {"y_true": y_true} if y_pred is None else {"y_true": y_true, "y_pred": y_pred}
    mappings = {a: c for a, c in pair.items() if isinstance(c, Mapping)}
    forms.multilabel_pair(y_true, y_pred)
    if mappings:
        maps = {a: forms.indicator_map(a, m) for a, m in mappings.items()}
        return _from_mappings(maps, schema, labels)
    columns = {a: checks.check_column_name(a, c) for a, c in pair.items()}
    return _from_lists(columns, schema, labels)


def multilabel_input(
    lf: pl.LazyFrame,
    y_true: MultilabelColumn,
    y_pred: MultilabelColumn | None,
    *,
    by: object,
    labels: object,
    weight: str | None,
    reserved: Sequence[str],
    row_index: bool = False,
    extra: Mapping[str, pl.Expr] | None = None,
) -> Multilabel:
    """Check the options and the schema of a multilabel input; the rows in the one form.

    ``y_pred`` may be ``None`` (a method of ``y_true`` and scores).  ``reserved``:
    the calling method's output columns, which ``by`` may not take.  ``labels``:
    ``None`` or the labels to keep, in output order (with a mapping: some of its
    keys).  ``row_index``: also the column :data:`ROW`, the row's position.
    ``extra``: the caller's own columns, ``{name: expression}`` of the input rows
    (the scores of the ranking metrics), kept in ``rows`` (names internal).
    """
    given = inputs.schema_stage(
        lf,
        by=by,
        weight=weight,
        reserved=reserved,
        read=lambda schema: _form(y_true, y_pred, schema, labels),
    )
    lists, types, fixed, data_checks = given.read
    keys = given.keys
    frame = given.rows(lf.with_row_index(ROW).cast({ROW: pl.Int64}) if row_index else lf)
    exprs = [pl.col(c) for c in [*keys, *([ROW] if row_index else [])]]
    exprs.append(lists["y_true"].alias(TRUE))
    if y_pred is not None:
        exprs.append(lists["y_pred"].alias(PRED))
    if weight is not None:
        exprs.append(pl.col(weight).cast(pl.Float64).alias(WEIGHT))
        bad_w = f"{INTERNAL}ml_bad_weight"
        data_checks.append(
            (bad_w, checks.weight_is_bad(pl.col(weight)), checks.weight_errors(weight)[0])
        )
    # the flags are computed on the input rows; the checks sum their columns
    own = [expr.alias(name) for name, expr in (extra or {}).items()]
    rows = frame.select(*exprs, *own, *(expr.alias(name) for name, expr, _ in data_checks))
    row_checks = [(name, pl.col(name), error) for name, _, error in data_checks]
    if weight is not None:
        overflow = checks.weight_total_too_large(pl.col(WEIGHT).sum())
        row_checks.append(
            (f"{INTERNAL}ml_weight_overflow", overflow, checks.weight_errors(weight)[1])
        )
    return Multilabel(
        rows=rows,
        by=given.by,
        keys=keys or [ALL],
        types=types,
        labels=fixed,
        weighted=weight is not None,
        checks=tuple(row_checks),
    )
