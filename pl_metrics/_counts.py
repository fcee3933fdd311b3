"""Rows -> counts: the only pass over the data for the confusion-matrix metrics.

:func:`confusion_counts` turns the rows into the tidy counts frame
``*by, actual, predicted, count`` with a single ``group_by().agg()``; everything
else (per-class counts, metrics, averages, summary) is computed from that small
frame by :func:`class_counts` and the pure functions of ``_classification``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from pl_metrics import _validate as v

ACTUAL = "actual"
PREDICTED = "predicted"
COUNT = "count"
LABEL = "label"
#: Constant segment key used internally when ``by`` is empty.
ALL = f"{v.INTERNAL}all"
#: Position of a label in the output order (sorted, or the order of ``labels=``).
ORD = f"{v.INTERNAL}ord"


@dataclass(frozen=True)
class Counts:
    """The confusion counts of a frame and what is needed to finish the metrics."""

    frame: pl.LazyFrame  # *keys, actual, predicted, count   (checked at collect)
    by: list[str]  # the user's segment columns
    keys: list[str]  # ``by``, or ``[ALL]`` when ``by`` is empty
    types: v.LabelTypes
    labels: pl.Series | None  # ``labels=`` in the compute dtype, in order

    def finish(self, result: pl.LazyFrame, label_columns: Sequence[str] = ()) -> pl.LazyFrame:
        """Drop the internal key and give label columns the output dtype."""
        if not self.by:
            result = result.drop(ALL)
        if label_columns and self.types.output != self.types.compute:
            result = result.with_columns(pl.col(*label_columns).cast(self.types.output))
        return result


def confusion_counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_pred: str,
    *,
    by: str | Sequence[str] | None,
    labels: Sequence[object] | pl.Series | None,
    weight: str | None,
    reserved: Sequence[str],
) -> Counts:
    """Validate the schema and build the (lazy) confusion counts of ``lf``.

    ``reserved`` are the output columns of the calling method, which ``by``
    columns may not shadow.
    """
    schema = lf.collect_schema()
    by_list = v.normalize_by(by)
    v.check_columns(schema, y_true=y_true, y_pred=y_pred)
    v.check_by(schema, by_list, reserved)
    v.check_numeric(schema, "weight", weight)
    types = v.label_types(schema, y_true, y_pred)
    labels_s = None if labels is None else v.labels_series(labels, types.compute)

    if weight is None:
        aggs = [pl.len().cast(pl.Int64).alias(COUNT)]
        rows = COUNT
    else:
        aggs = [
            pl.col(weight).cast(pl.Float64).sum().alias(COUNT),
            pl.len().alias(v.ROWS),
            v.bad_weight(weight).alias(v.BAD_WEIGHT),
        ]
        rows = v.ROWS
    frame = lf.group_by(
        *by_list,
        pl.col(y_true).cast(types.compute).alias(ACTUAL),
        pl.col(y_pred).cast(types.compute).alias(PREDICTED),
    ).agg(aggs)
    frame = v.check_counts(frame, {ACTUAL: y_true, PREDICTED: y_pred}, weight, rows=rows)
    # The counts feed several small joins; cache them so the rows are read once
    # (polars' common-subplan elimination does not see through the check above).
    frame = frame.select(*by_list, ACTUAL, PREDICTED, COUNT).cache()
    if not by_list:
        frame = frame.with_columns(pl.lit(0, pl.Int8).alias(ALL))
    return Counts(frame, by_list, by_list or [ALL], types, labels_s)


def label_set(counts: Counts) -> pl.LazyFrame:
    """``*keys, label, ORD``: the classes of each segment, in output order.

    ``labels=None``: the sorted union of the labels seen in the segment (what
    scikit-learn uses on that segment's rows); otherwise the given labels.
    """
    keys, frame = counts.keys, counts.frame
    if counts.labels is None:
        seen = pl.concat(
            [
                frame.select(*keys, pl.col(ACTUAL).alias(LABEL)),
                frame.select(*keys, pl.col(PREDICTED).alias(LABEL)),
            ]
        ).unique()
        return seen.with_columns(
            (pl.col(LABEL).rank("dense").over(keys) - 1).cast(pl.Int64).alias(ORD)
        )
    given = pl.LazyFrame({LABEL: counts.labels}).with_row_index(ORD).cast({ORD: pl.Int64})
    return frame.select(keys).unique().join(given, how="cross")


def restricted(counts: Counts) -> pl.LazyFrame:
    """The counts without rows whose actual or predicted label is outside ``labels=``.

    This is what ``sklearn.metrics.confusion_matrix(labels=...)`` counts.
    """
    if counts.labels is None:
        return counts.frame
    return counts.frame.filter(
        pl.col(ACTUAL).is_in(counts.labels) & pl.col(PREDICTED).is_in(counts.labels)
    )


def class_counts(counts: Counts, *, restrict: bool) -> pl.LazyFrame:
    """``*keys, label, ORD, support, predicted, tp, fp, fn, tn`` per segment and class.

    With ``restrict=False`` (precision, recall... as scikit-learn's
    ``precision_recall_fscore_support``) rows whose labels lie outside
    ``labels=`` still count as false negatives / positives of the chosen classes
    and in ``tn``; with ``restrict=True`` (summary, as ``confusion_matrix``)
    they are dropped first.
    """
    keys = counts.keys
    frame = restricted(counts) if restrict else counts.frame
    key_label = [*keys, LABEL]
    total = pl.col(COUNT).sum()
    support = frame.group_by(*keys, pl.col(ACTUAL).alias(LABEL)).agg(total.alias("support"))
    predicted = frame.group_by(*keys, pl.col(PREDICTED).alias(LABEL)).agg(total.alias("predicted"))
    tp = frame.filter(pl.col(ACTUAL) == pl.col(PREDICTED)).select(
        *keys, pl.col(ACTUAL).alias(LABEL), pl.col(COUNT).alias("tp")
    )
    n = frame.group_by(keys).agg(total.alias("n"))
    joined = (
        label_set(counts)
        .join(support, on=key_label, how="left", nulls_equal=True)
        .join(predicted, on=key_label, how="left", nulls_equal=True)
        .join(tp, on=key_label, how="left", nulls_equal=True)
        .join(n, on=keys, how="left", nulls_equal=True)
        .with_columns(pl.col("support", "predicted", "tp", "n").fill_null(0))
    )
    return joined.select(
        *key_label,
        ORD,
        "support",
        "predicted",
        "tp",
        (pl.col("predicted") - pl.col("tp")).alias("fp"),
        (pl.col("support") - pl.col("tp")).alias("fn"),
        (pl.col("n") - pl.col("support") - pl.col("predicted") + pl.col("tp")).alias("tn"),
    )
