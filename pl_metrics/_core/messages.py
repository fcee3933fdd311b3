"""Every data error's message, written once: :class:`Bad`.

Each path (eager, lazy, expressions, the sorted in-memory AUC, states, the CLI)
raises these same errors, so a message never differs between paths.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import Any

from polars import Date, Datetime, Struct
from polars.exceptions import SchemaError

from pl_metrics.exceptions import DataError

#: The temporal dtypes whose numbers ``.dt.epoch`` gives.
DATES = (Date, Datetime)

#: The largest total weight of a segment: a quarter of the largest float, so that the
#: sums the metrics take of a segment's weighted counts (tp + fp + fn, n + tp,
#: (1 + b^2) tp, P + N, ...) stay finite.  Checked by ``checks.weight_total_too_large``;
#: here because the messages state it.
MAX_WEIGHT_TOTAL = 2.0**1022
#: Why a larger total is refused, and what to do (the weight messages' common part).
_TOO_HEAVY = (
    "more than "
    + f"{MAX_WEIGHT_TOTAL:.2g}".replace("e+", "e")
    + " in {where} (a quarter of the largest float: the metrics add up to four such "
    "totals, which would overflow); rescale {what}, e.g. divide by their maximum"
)


#: A message's polars idiom for dropping a column's nulls (:meth:`Bad.nulls` and its
#: kin), and each engine's own, where the user's rows are Spark or Dask ones.
_DROP_NULLS = re.compile(r"`\.drop_nulls\((.+?)\)`")
_ENGINE_DROP_NULLS = {
    "spark": "`sdf.dropna(subset=[{}])`",
    "dask": "`ddf.dropna(subset=[{}])` on the files' rows (`dd.read_parquet`), written again",
}


def retyped(exc: Exception, text: str) -> Exception:
    """``exc``'s type with the message ``text`` (an error said in other words: the
    user's columns, an engine's idiom, a file's path in front); ``exc`` itself
    where the type cannot be built from one message."""
    try:
        return type(exc)(text)
    except Exception:  # a type that cannot be built from one message
        return exc


def in_engine_terms(exc: Exception, engine: str) -> Exception:
    """``exc`` (raised by a frame method on an engine's rows) with the polars idiom
    its message suggests replaced by the ``engine``'s own (``"spark"``, ``"dask"``);
    the same type, or ``exc`` itself where nothing changes or the type cannot be
    built from one message."""
    text = _DROP_NULLS.sub(lambda m: _ENGINE_DROP_NULLS[engine].format(m.group(1)), str(exc))
    return exc if text == str(exc) else retyped(exc, text)


class Bad:
    """The data errors, each message written once (every path raises these)."""

    @staticmethod
    def nulls(column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} has {n} null rows; drop or fill them first, "
            f"e.g. `.drop_nulls({column!r})`"
        )

    @staticmethod
    def reference_nulls(n: int) -> DataError:
        return DataError(
            f"`reference` is null on {n} rows: each row is a reference row or a current "
            "one; fill the expression's nulls, e.g. `.fill_null(False)`"
        )

    @staticmethod
    def in_reference(error: DataError) -> DataError:
        """A data error of the reference rows (``estimated_performance``'s calibration
        data): the same message, saying that the bad rows are the reference's (the
        current rows' columns have the same names)."""
        return DataError(f"in the reference rows (argument `reference`): {error}")

    @staticmethod
    def reference_type(reference: object) -> TypeError:
        """``reference`` is neither polars rows nor an expression (its type named with
        its module, and the conversion of a pandas or Arrow frame)."""
        kind = type(reference)
        module, top = kind.__module__, kind.__module__.split(".")[0]
        # the name its library exports it by (pandas 2: pandas.core.frame.DataFrame is
        # pandas.DataFrame)
        public = getattr(sys.modules.get(top), kind.__qualname__, None) is kind
        where = top if public else module
        name = kind.__qualname__ if module == "builtins" else f"{where}.{kind.__qualname__}"
        convert = {"pandas": "pl.from_pandas(reference)", "pyarrow": "pl.from_arrow(reference)"}
        hint = convert.get(top)
        return TypeError(
            "`reference` must be a polars DataFrame / LazyFrame of reference rows, or a "
            f"Boolean expression marking them in this frame, got {name}"
            + (f"; convert it first: `{hint}`" if hint else "")
        )

    @staticmethod
    def reference_not_boolean(reference: object, dtypes: Sequence[object]) -> TypeError:
        found = ", ".join(str(d) for d in dtypes) or "no column"
        return TypeError(
            "`reference` must be a Boolean expression marking the reference rows (or "
            f"their rows as a DataFrame / LazyFrame); {reference} is {found} here, e.g. "
            "`pl.col('week') < 10` or `pl.col('is_reference') == 1`"
        )

    @staticmethod
    def drift_dtype(column: str, dtype: Any, side: str) -> SchemaError:
        """A column of a dtype drift does not compare, with what to compare instead."""
        hint = ""
        if dtype.is_temporal():
            epoch = f"`pl.col({column!r}).dt.epoch('d')` (days), " if dtype in DATES else ""
            hint = f"; compare its numbers instead, e.g. {epoch}`pl.col({column!r}).to_physical()`"
        elif dtype.is_nested() and not isinstance(dtype, Struct):
            hint = f"; compare its elements (`.explode({column!r})`) or lengths (`.list.len()`)"
        return SchemaError(
            f"column {column!r} (argument `columns`) is {dtype} {side}: drift does not compare "
            f"{dtype} columns, only numeric ones, or text / categorical / boolean ones{hint}"
        )

    @staticmethod
    def no_reference_rows() -> DataError:
        return DataError("`reference` has no rows: drift needs reference rows to compare with")

    @staticmethod
    def reference_one_class(column: str, pos_label: object, present: Sequence[object]) -> DataError:
        """The reference rows of ``estimated_performance`` lack ``pos_label`` or every
        other label: no calibration map can be fitted."""
        shown = list(present[:20]) + (["..."] if len(present) > 20 else [])
        return DataError(
            f"the reference rows' column {column!r} (argument `y_true`) holds the labels "
            f"{shown} (rows of weight 0 left out): calibration needs both `pos_label`="
            f"{pos_label!r} and another label; pass reference rows with both classes, "
            "or calibration=None to take the scores as probabilities"
        )

    @staticmethod
    def reference_empty(column: str) -> DataError:
        """The reference rows of ``estimated_performance`` (``{label: column}`` scores)
        are none: no calibration map can be fitted."""
        return DataError(
            f"the reference rows (argument `reference`, labels in {column!r}) are none "
            "(rows of weight 0 left out): calibration='isotonic' fits each class's map on "
            "them; pass reference rows, or calibration=None to take the scores as "
            "probabilities"
        )

    @staticmethod
    def scores_not_probabilities(column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} (argument `y_score`) has {n} rows outside [0, 1]: "
            "calibration=None takes the scores as probabilities; pass `reference` rows "
            "with labels to calibrate them (calibration='isotonic')"
        )

    @staticmethod
    def not_binary_labels(
        column: str, argument: str, pos_label: object, present: Sequence[object]
    ) -> DataError:
        shown = list(present[:20]) + (["..."] if len(present) > 20 else [])
        return DataError(
            f"column {column!r} (argument `{argument}`) holds the labels {shown}: two or "
            f"more besides `pos_label`={pos_label!r}; estimated_performance is binary: map "
            "the labels to pos_label and one other label first, e.g. "
            f"`pl.col({column!r}) == pos_label`"
        )

    @staticmethod
    def not_labels(column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} has {n} rows that are not class labels (NaN, infinite or "
            "not a whole number); labels must be integers, booleans or strings. If these "
            "are scores or probabilities, use the ranking methods (roc_auc, "
            "average_precision, thresholds; to compare models: "
            "compare_models(..., metric='roc_auc')) or threshold them first "
            "(threshold_report)"
        )

    @staticmethod
    def bad_weights(column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} (argument `weight`) has {n} rows with a null, NaN, "
            "infinite, negative or subnormal (< 2.2e-308) weight; weights must be "
            "finite and >= 0 (rescale tiny weights, e.g. divide by their maximum)"
        )

    @staticmethod
    def weight_overflow(column: str) -> DataError:
        return DataError(
            f"the weights of column {column!r} (argument `weight`) sum to "
            + _TOO_HEAVY.format(where="a segment", what="them")
        )

    @staticmethod
    def engine_sum_overflow(method: str, n: int) -> DataError:
        """An engine's merged sums of weighted per-row values overflow Float64 (weights
        near the largest float), where the frame method scales the weights first."""
        return DataError(
            f"the weighted sums of {method} overflow Float64 in {n} "
            f"segment{'' if n == 1 else 's'} (argument `weight`: weights near the largest "
            "float); rescale the weights, e.g. divide by their maximum (the method on one "
            "machine scales them itself)"
        )

    @staticmethod
    def state_weight_overflow(column: str, n: int) -> DataError:
        return DataError(
            f"state column {column!r} sums to "
            + _TOO_HEAVY.format(
                where=f"{n} segment{'' if n == 1 else 's'}",
                what="the weights the state was made with",
            )
        )

    @staticmethod
    def bad_scores(columns: Sequence[str], n: int) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        where = (
            f"column {names} (argument `y_score`) has"
            if len(columns) == 1
            else f"columns {names} (argument `y_score`) have, in one of them or more,"
        )
        return DataError(f"{where} {n} null, NaN or infinite rows; drop or fill them first")

    @staticmethod
    def inexact_scores(
        columns: Sequence[str], n: int, argument: str = "y_score", what: str = "scores"
    ) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        return DataError(
            f"column {names} (argument `{argument}`) has {n} integer {what} at or beyond "
            "+-2**53, which cannot be compared exactly as Float64; rescale them"
        )

    @staticmethod
    def bad_probabilities(columns: Sequence[str], n: int) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        return DataError(
            f"column {names} has {n} null, NaN, infinite or out-of-[0, 1] probabilities"
        )

    @staticmethod
    def probabilities_not_summing_to_1(
        columns: Sequence[str], n: int, tolerance: float
    ) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        return DataError(
            f"{n} rows of the probabilities {names} do not sum to 1 (tolerance "
            f"{tolerance:.2g}); renormalise them (docs/faq.md): "
            f"`df.with_columns(pl.col({list(columns)!r}) / pl.sum_horizontal({list(columns)!r}))`"
        )

    @staticmethod
    def pos_label_needed(
        column: str,
        present: Sequence[object],
        *,
        beside: tuple[str, Sequence[object]] | None = None,
    ) -> DataError:
        """The default ``pos_label`` meets labels other than {0, 1} / {-1, 1} in
        ``column`` (``beside``: only together with another column's labels)."""

        def show(labels: Sequence[object]) -> list[object]:
            return list(labels[:20]) + (["..."] if len(labels) > 20 else [])

        if beside is not None:
            other, labels = beside
            return DataError(
                f"column {column!r} holds the labels {show(present)}, which with the "
                f"labels {show(labels)} of column {other!r} are other than {{0, 1}} or "
                "{-1, 1}; pass `pos_label` to say which one is positive"
            )
        holds = f"the labels {show(present)}; with labels" if present else "labels in a group"
        return DataError(
            f"column {column!r} holds {holds} other than {{0, 1}} or {{-1, 1}}, "
            "pass `pos_label` to say which one is positive"
        )

    @staticmethod
    def null_index(column: str) -> DataError:
        return DataError(
            f"column {column!r} (argument `index`) has null values: a row without a "
            f"time belongs to no window; drop or fill them first, e.g. "
            f"`.drop_nulls({column!r})`"
        )

    @staticmethod
    def state_without_positives() -> DataError:
        return DataError(
            "the per-score state has no positive row (column 'pos' is 0 everywhere): "
            "was pos_label right when it was made? A state of only negatives has no "
            "ranking metric"
        )

    @staticmethod
    def neg_label_needed(column: str, present: Sequence[object], pos_label: object) -> DataError:
        shown = list(present[:20]) + (["..."] if len(present) > 20 else [])
        return DataError(
            f"`neg_label` is not given and column {column!r} holds the labels {shown}: it is "
            f"inferred only where they are pos_label={pos_label!r} and one other label; "
            "pass neg_label, the label a score below the threshold predicts"
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
    def absent_classes(column: str, n: int, keys: Sequence[object]) -> DataError:
        return DataError(
            f"column {column!r} lacks some classes of the mapping (keys: {list(keys)!r}) in "
            f"{n} segments; pass labels={list(keys)!r} to score them (scikit-learn needs "
            "every class in y_true, or labels)"
        )

    @staticmethod
    def state(column: str, n: int, what: str) -> DataError:
        return DataError(
            f"state column {column!r} has {n} rows that are {what}; a state holds the "
            "output of .metrics.counts / .metrics.score_counts, concatenated"
        )

    @staticmethod
    def not_binary(method: str, y_true: str, y_pred: str, pos_label: object, n: int) -> DataError:
        return DataError(
            f"{method} is binary: {n} segment(s) of columns {y_true!r} and "
            f"{y_pred!r} hold two or more labels besides `pos_label`={pos_label!r} (scikit-learn's "
            "binary metrics raise too); map the labels to pos_label and one negative "
            "label first, e.g. pl.col(y) == pos_label"
        )

    @staticmethod
    def no_reference(reference: object, n: int) -> DataError:
        return DataError(
            f"the reference group {reference!r} has no rows in {n} stratum(s) (each "
            "`control` stratum, or the whole input without `control`): pass a group "
            "present in every stratum, or reference='largest'"
        )

    @staticmethod
    def multilabel_state(n: int, what: str) -> DataError:
        return DataError(
            f"the multilabel state has {n} rows or segments where {what}; a multilabel "
            "state holds the output of .metrics.multilabel_counts (its 'label' and "
            "'rows' parts, unchanged), concatenated"
        )

    @staticmethod
    def count_overflow(n: int) -> DataError:
        return DataError(
            f"the merged counts of {n} segment(s) pass 2**63 - 1 and cannot be summed "
            "exactly as Int64; merge fewer states or cast the counts to Float64 (weights)"
        )

    @staticmethod
    def duplicate_labels(column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} has {n} rows listing a label more than once; a multilabel "
            "row is a set of labels: drop the repeats first, e.g. "
            f"`pl.col({column!r}).list.unique()`"
        )

    @staticmethod
    def null_in_lists(column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} has {n} rows whose list holds a null label; drop them "
            f"from the lists first, e.g. `pl.col({column!r}).list.drop_nulls()`"
        )

    @staticmethod
    def not_indicators(argument: str, column: str, n: int) -> DataError:
        return DataError(
            f"column {column!r} (an indicator column of `{argument}`) has {n} rows that "
            "are not 0/1 or True/False (null included); fill or fix them first"
        )

    @staticmethod
    def not_one_hot(argument: str, columns: Sequence[str], n: int) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        return DataError(
            f"columns {names} (the one-hot indicator columns of `{argument}`) have {n} rows "
            "with no indicator set or more than one; each row must set exactly one class "
            "(pass the label column instead, or drop those rows)"
        )

    @staticmethod
    def list_length(column: str, argument: str, n: int, n_labels: int) -> DataError:
        return DataError(
            f"column {column!r} (argument `{argument}`) has {n} rows whose list is null or "
            f"does not hold one value per label of `labels` ({n_labels}); the lists must be "
            "aligned with `labels`"
        )

    @staticmethod
    def bad_relevances(columns: Sequence[str], n: int) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        return DataError(
            f"column {names} (argument `y_true`: relevances) has {n} rows with a null, NaN "
            "or infinite relevance; drop or fill them first"
        )

    @staticmethod
    def negative_relevances(columns: Sequence[str], n: int) -> DataError:
        names = ", ".join(repr(c) for c in columns)
        return DataError(
            f"column {names} (argument `y_true`: relevances) has {n} rows with a negative "
            "relevance; ndcg needs relevances >= 0 (as scikit-learn's ndcg_score); use dcg "
            "for signed gains"
        )

    @staticmethod
    def stacked_nulls(column: str, argument: str, n: int) -> DataError:
        """A null in the ``model`` or ``id`` column of stacked models (no model or no id)."""
        return DataError(
            f"column {column!r} (argument `{argument}`) has {n} null rows: a stacked row "
            f"needs its model and its id; drop or fill them first, e.g. `.drop_nulls({column!r})`"
        )

    @staticmethod
    def one_model(column: str, models: Sequence[object]) -> DataError:
        return DataError(
            f"column {column!r} (argument `model`) holds {len(models)} model(s) "
            f"{list(models)!r}; compare_models needs at least two: a baseline and a model "
            "compared with it"
        )

    @staticmethod
    def repeated_ids(id_column: str, n: int, model: str) -> DataError:
        return DataError(
            f"column {id_column!r} (argument `id`) has {n} ids with more than one row of the "
            f"same model (column {model!r}); each model scores an id once: drop the repeats "
            f"first, e.g. `.unique([{id_column!r}, {model!r}])`"
        )

    @staticmethod
    def unpaired_ids(id_column: str, n: int, models: Sequence[object]) -> DataError:
        shown = list(models[:20]) + (["..."] if len(models) > 20 else [])
        return DataError(
            f"column {id_column!r} (argument `id`) has {n} ids without a row of every model "
            f"{shown!r}; compare_models pairs the models' rows by id: drop those ids, or "
            "compare the models on the ids they share"
        )

    @staticmethod
    def differs_within_ids(what: str, id_column: str, n: int) -> DataError:
        """``what`` (``y_true``'s column, or a ``by`` segment) is not the same in the
        stacked rows of one id."""
        return DataError(
            f"{what} differs between the models' rows of {n} ids (column {id_column!r}, "
            "argument `id`); an id is one row scored by every model: its rows must agree"
        )
