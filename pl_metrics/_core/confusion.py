"""Rows -> counts: the only pass over the data for the confusion-matrix metrics.

:func:`confusion_counts` turns the rows into the tidy counts frame
``*keys, ACTUAL, PREDICTED, COUNT`` with a single ``group_by().agg()``; everything
else (per-class counts, metrics, averages, summary) is computed from that small
frame by :func:`class_counts` and the pure functions of ``_classification``.

At the root: the ``by`` columns / expressions become internal keys
(``names.with_segment_keys``),
rows of weight 0 are dropped (``checks.without_zero_weights``), and the data
checks (null labels, float labels that are not whole numbers, bad weights) are
counted in the one aggregation and raised on its small result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from pl_metrics._core import checks, formulas, inputs, names
from pl_metrics._core.names import ACTUAL, ALL, COUNT, ORD, PREDICTED, ROWS

LABEL = "label"
_NOT_LABEL = f"{names.INTERNAL}not_label"
_CELLS = f"{names.INTERNAL}cells_"  # + the count it goes with: its number of cells

__all__ = [
    "ACTUAL",
    "ALL",
    "COUNT",
    "LABEL",
    "ORD",
    "PREDICTED",
    "Counts",
    "confusion_counts",
    "label_key",
]


@dataclass(frozen=True)
class Counts:
    """The confusion counts of a frame and what is needed to finish the metrics."""

    frame: pl.LazyFrame  # *keys, ACTUAL, PREDICTED, COUNT   (checked at collect)
    by: list[str]  # the output names of the user's segments
    keys: list[str]  # their internal names, or ``[ALL]`` when ``by`` is empty
    types: checks.LabelTypes
    labels: pl.Series | None  # ``labels=`` in the compute dtype, in order

    def finish(self, result: pl.LazyFrame, label_columns: Sequence[str] = ()) -> pl.LazyFrame:
        """Restore the ``by`` names and give label columns the output dtype."""
        if label_columns and self.types.output != self.types.compute:
            result = result.with_columns(pl.col(*label_columns).cast(self.types.output))
        return names.restore_keys(result, self.by)


def confusion_counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_pred: str,
    *,
    by: object,
    labels: object,
    weight: str | None,
    reserved: Sequence[str],
    count: str | None = None,
) -> Counts:
    """Validate the schema and build the (lazy) confusion counts of ``lf``.

    ``reserved`` are the output columns of the calling method, which ``by``
    columns may not take.  Options are checked by the caller first.  ``count``
    (internal, without ``weight``): a column of integer multiplicities, each row
    standing for that many rows (the cells of a merged counts state, which the
    engines finish with the frame methods' own code).
    """
    given = inputs.schema_stage(
        lf, by=by, weight=weight, reserved=reserved, columns={"y_true": y_true, "y_pred": y_pred}
    )
    types = checks.label_types(given.schema, y_true, y_pred)
    labels_s = None if labels is None else checks.labels_series(labels, types.compute, y_true)

    keys, rows = given.keys, given.rows(lf)
    data_checks: list[checks.Check] = []
    if weight is None:
        rows_of = pl.len() if count is None else pl.col(count).sum()
        aggs = [rows_of.cast(pl.Int64).alias(COUNT)]
    else:
        aggs = [
            pl.col(weight).cast(pl.Float64).sum().alias(COUNT),
            pl.len().alias(ROWS),
            checks.bad_weight(weight).alias(checks.BAD_WEIGHT),
        ]
    frame = rows.group_by(
        *keys, label_key(y_true, ACTUAL, types), label_key(y_pred, PREDICTED, types)
    ).agg(aggs)
    if weight is None:  # the count is the number of rows
        frame = frame.with_columns(pl.col(COUNT).alias(ROWS))
    # the checks run on the small counts frame: a null label is its own group, a
    # float label that is not a whole number is a group key we can test
    for key, column in ((ACTUAL, y_true), (PREDICTED, y_pred)):
        frame = frame.with_columns(
            pl.when(pl.col(key).is_null()).then(pl.col(ROWS)).otherwise(0).alias(f"{key}_null")
        )
        data_checks.append((f"{key}_null", lambda n, c=column: checks.Bad.nulls(c, n)))
        if column in types.float_columns:
            frame = frame.with_columns(
                pl.when(checks.not_a_label(key)).then(pl.col(ROWS)).otherwise(0).alias(f"{key}_nan")
            )
            data_checks.append((f"{key}_nan", lambda n, c=column: checks.Bad.not_labels(c, n)))
    if weight is not None:
        frame = frame.with_columns(inputs.segment_weight(keys, [COUNT]))
        data_checks += inputs.weight_checks(weight)
    frame = checks.raise_if_bad(frame, data_checks)
    # after the checks: float labels become the (lossless) compute dtype
    frame = frame.select(
        *keys,
        pl.col(ACTUAL).cast(types.compute),
        pl.col(PREDICTED).cast(types.compute),
        COUNT,
    )
    # The counts feed several small joins; cache them so the rows are read once
    # (polars' common-subplan elimination does not see through the check above).
    frame = frame.cache()
    if not keys:
        frame = frame.with_columns(pl.lit(0, pl.Int8).alias(ALL))
    return Counts(frame, given.by, keys or [ALL], types, labels_s)


def label_key(column: str, alias: str, types: checks.LabelTypes) -> pl.Expr:
    """A label column as a group key: floats keep their values (checked after the
    aggregation; -0.0 is 0.0), the others are cast to the compute dtype (lossless)."""
    if column in types.float_columns:
        return (pl.col(column).cast(pl.Float64) + 0.0).alias(alias)
    return pl.col(column).cast(types.compute).alias(alias)


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
        pl.col(ACTUAL).is_in(counts.labels.implode())
        & pl.col(PREDICTED).is_in(counts.labels.implode())
    )


def class_counts(
    counts: Counts, *, restrict: bool, order: bool = True, misses: bool = False
) -> pl.LazyFrame:
    """``*keys, label, ORD, support, predicted, tp, fp, fn, tn`` per segment and class.

    ``misses``: also ``miss``, the class's rows predicted as another class, summed
    over those cells (``fn`` is ``support - tp``: with weights, a difference that
    loses the small cells beside a large one; kappa's disagreement needs them).

    ``order=False``: with ``labels=None``, ORD is null (not computed: a rank within
    each segment, ~10% of ``report(by=)`` with 100,000 segments); callers that only
    sort the class rows sort by the label, which orders them as ORD does.

    With ``restrict=False`` (precision, recall... as scikit-learn's
    ``precision_recall_fscore_support``) rows whose labels lie outside
    ``labels=`` still count as false negatives / positives of the chosen classes
    and in ``tn``; with ``restrict=True`` (summary, as ``confusion_matrix``)
    they are dropped first.
    """
    keys = counts.keys
    frame = restricted(counts) if restrict else counts.frame
    key_label = [*keys, LABEL]
    # Weighted counts are float sums: fp = predicted - tp (and fn, tn) can leave a
    # residue of ~1e-17 where no cell contributes (a specificity of 1.0 where
    # tn + fp is 0 and scikit-learn's is undefined).  The number of contributing
    # cells, an exact integer, says where the difference is exactly 0.
    dtype = frame.collect_schema()[COUNT]
    weighted = not dtype.is_integer()
    count, zero, hit = pl.col(COUNT), pl.lit(0, dtype), pl.col(ACTUAL) == pl.col(PREDICTED)

    def part(label: str, support: bool, predicted: bool, tp: pl.Expr) -> pl.LazyFrame:
        columns = {"support": support, "predicted": predicted}
        values = [(count if on else zero).alias(c) for c, on in columns.items()]
        values.append(pl.when(tp).then(count).otherwise(zero).alias("tp"))
        if misses:  # the actual class's cells predicted as another class
            miss = pl.when(tp).then(zero).otherwise(count) if support else zero
            values.append(miss.alias("miss"))
        if weighted:
            values += [pl.lit(int(on)).alias(f"{_CELLS}{c}") for c, on in columns.items()]
            values.append(tp.cast(pl.Int64).alias(f"{_CELLS}tp"))
        return frame.select(*keys, pl.col(label).alias(LABEL), *values)

    # each cell counts for its actual class (support; tp where it is a hit) and for
    # its predicted class: one group_by gives every class seen in the segment
    sums = ["support", "predicted", "tp"]
    sums += [f"{_CELLS}{c}" for c in sums] if weighted else []
    sums += ["miss"] if misses else []
    per_label = (
        pl.concat([part(ACTUAL, True, False, hit), part(PREDICTED, False, True, pl.lit(False))])
        .group_by(key_label)
        .agg(pl.col(sums).sum())
    )
    n = [pl.col("support").sum().over(keys).alias("n")]
    n += [pl.col(f"{_CELLS}support").sum().over(keys).alias(f"{_CELLS}n")] if weighted else []
    if counts.labels is None:  # the sorted union of the labels seen in the segment
        rank = pl.col(LABEL).rank("dense").over(keys) - 1 if order else pl.lit(None)
        joined = per_label.with_columns(*n, rank.cast(pl.Int64).alias(ORD))
    else:  # the given labels, absent ones with zero counts; n counts every row
        totals = per_label.group_by(keys).agg(
            pl.col("support").sum().alias("n"),
            *([pl.col(f"{_CELLS}support").sum().alias(f"{_CELLS}n")] if weighted else []),
        )
        joined = (
            label_set(counts)
            .join(per_label, on=key_label, how="left", nulls_equal=True)
            .join(totals, on=keys, how="left", nulls_equal=True)
            .with_columns(pl.col(*sums[:3], *(["miss"] if misses else []), "n").fill_null(0))
        )
    differences = {
        "fp": (["predicted"], ["tp"]),
        "fn": (["support"], ["tp"]),
        "tn": (["n", "tp"], ["support", "predicted"]),
    }

    def difference(name: str) -> pl.Expr:
        plus, minus = differences[name]
        value = pl.sum_horizontal(*plus) - pl.sum_horizontal(*minus)
        if not weighted:
            return value.alias(name)
        n_cells = pl.sum_horizontal(
            pl.col(f"{_CELLS}{c}").fill_null(0) for c in plus
        ) - pl.sum_horizontal(pl.col(f"{_CELLS}{c}").fill_null(0) for c in minus)
        return pl.when(n_cells == 0).then(0.0).otherwise(value).alias(name)

    return joined.select(
        *key_label,
        ORD,
        "support",
        "predicted",
        "tp",
        *(difference(name) for name in differences),
        *(["miss"] if misses else []),
    )


#: The classes with actual rows of a segment (:func:`chance_adjusted_summary`).
_CLASSES = f"{names.INTERNAL}actual_classes"
_BALANCED = ("balanced_accuracy", "balanced_accuracy_low", "balanced_accuracy_high")


def chance_adjusted_summary(summary: pl.LazyFrame, counts: Counts) -> pl.LazyFrame:
    """``summary``'s ``balanced_accuracy`` adjusted for chance (``summary(adjusted=True)``,
    ``formulas.chance_adjusted``) by each segment's classes with actual rows (in the
    matrix ``summary`` reads: rows outside ``labels=`` dropped).  Its interval's bounds
    go through the same map (linear and increasing in the score) with the segment's
    classes: the bootstrap's replicates are adjusted by the point's classes, not by
    those a replicate happens to draw."""
    present = restricted(counts).filter(pl.col(COUNT) > 0)
    if counts.by:
        classes = present.group_by(counts.keys).agg(pl.col(ACTUAL).n_unique().alias(_CLASSES))
        joined = summary.join(
            counts.finish(classes),
            on=counts.by,
            how="left",
            nulls_equal=True,
            maintain_order="left",
        )
    else:  # one row (a summary row even without rows)
        classes = present.select(pl.col(ACTUAL).n_unique().alias(_CLASSES))
        joined = summary.join(classes, how="cross", maintain_order="left")
    adjusted = [c for c in _BALANCED if c in summary.collect_schema()]
    return joined.with_columns(
        formulas.chance_adjusted(pl.col(c), pl.col(_CLASSES)).alias(c) for c in adjusted
    ).drop(_CLASSES)
