"""The label-set checks of a binary ranking state made shard by shard (Spark's
partitions, Dask's files), on the driver.

A state of per-score counts forgets the labels: each shard's own checks pass for
``y_true`` in {-1, 1} in one shard and {0, 1} in another, where the frame method on
all the rows refuses {-1, 0, 1} with the default ``pos_label``.  So each shard
reports a sample of its labels (:func:`label_sample`), and the driver runs the frame
method's own checks on the union (:func:`check_label_sets`): the same errors, with the
same messages, as on all the rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pl_metrics import metrics

#: The smallest distinct labels each shard reports (a message shows the first 20).
SAMPLE = 21
#: The labels of the default ``pos_label``'s rule ({0, 1} or {-1, 1}), always reported.
SPECIAL = (-1, 0, 1)


def label_sample(labels: pl.Series) -> pl.Series:
    """The labels a label-set check reads: the smallest :data:`SAMPLE` distinct ones
    (the union over shards holds the first 20 of all labels, as a message shows)
    and whichever of -1, 0, 1 occur (the default ``pos_label``'s rule)."""
    distinct = labels.drop_nulls().unique().sort()
    if distinct.dtype.is_numeric() and distinct.dtype != pl.Boolean:
        wanted = pl.Series(SPECIAL).cast(distinct.dtype, strict=False)  # -1: null in UInt
        special = distinct.filter(distinct.is_in(wanted.drop_nulls().implode()))
        return pl.concat([distinct.head(SAMPLE), special]).unique()
    return distinct.head(SAMPLE)


def check_label_sets(
    samples: Sequence[pl.Series],
    positives: float | None,
    *,
    y_true: str,
    y_score: str,
    score_dtype: pl.DataType,
    pos_label: object,
    bins: int | None,
) -> None:
    """Raise what the frame method raises on all the rows for their label set: the
    default ``pos_label`` meeting labels other than {0, 1} and {-1, 1}, and (with
    ``positives`` 0: the merged state's positive count or weight is 0) a ``pos_label`` that
    occurs nowhere.  The frame method's own checks, on a few rows holding the shards'
    label samples (they decide these checks as all the rows would)."""
    samples = [s.rename(y_true).to_frame() for s in samples if s.len()]
    if not samples:
        return
    union = pl.concat(samples, how="vertical_relaxed").unique()
    proxy = union.lazy().with_columns(pl.lit(0).cast(score_dtype).alias(y_score))
    metrics(proxy).score_counts(y_true, y_score, pos_label=pos_label, bins=bins).collect()
    if positives == 0:  # no row is pos_label: the finisher's error, with the labels
        metrics(proxy).roc_auc(y_true, y_score, pos_label=pos_label).collect()
