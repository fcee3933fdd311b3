"""Multilabel rows -> the two small counts frames every set-based metric is made of.

:func:`multilabel_counts` reads the rows of :mod:`.inputs` and forms, per segment:

- the **label counts** ``*keys, label, ORD, support, predicted, tp, fp, fn, tn``:
  the 2x2 confusion counts of each label of the label set against its absence
  (zero rows included; scikit-learn's ``multilabel_confusion_matrix``).  They
  give ``per_class`` and the micro, macro and weighted averages;
- the **row histogram** ``*keys, n_true, n_pred, n_common, count``: the number
  (or weight) of rows whose true set has ``n_true`` labels, whose predicted set
  ``n_pred`` and whose intersection ``n_common``.  Every per-row (samplewise)
  metric is a function of that triple, so this small frame gives the
  ``samples`` averages, the subset accuracy (``n_true = n_pred = n_common``),
  the Hamming loss (``n_true + n_pred - 2 n_common`` labels wrong) and the
  number of rows ``n`` (hence ``tn``).

Both are sums over rows, so they are mergeable states: the states of shards
concatenated and summed over equal keys are the state of all rows.  What makes
``samples`` different from the other averages is that it averages a ratio per
*row*: the per-label counts lose which labels shared a row, so ``samples``
needs the per-row quantities; the triple histogram keeps exactly those (any
``beta`` and ``zero_division`` can be finished from it, unlike sums of per-row
scores, which fix both).

The data checks of the rows are counted in the histogram's aggregation (one
group per row pattern, every row in exactly one group).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import polars as pl

from pl_metrics._core.names import INTERNAL, ORD
from pl_metrics._multilabel.inputs import LABEL, PRED, TRUE, WEIGHT, Multilabel

#: Columns of the row histogram (the public state uses the same names).
N_TRUE, N_PRED, N_COMMON, COUNT = "n_true", "n_pred", "n_common", "count"
#: The size of the label set (one row; cross-joined into frames of rows).
N_LABELS = f"{INTERNAL}n_labels"
_COMMON = f"{INTERNAL}ml_common"
_PARTS = ("support", "predicted", "tp")
_N = f"{INTERNAL}ml_n"


@dataclass(frozen=True)
class MultilabelCounts:
    """The label counts and the row histogram of a multilabel input (both lazy)."""

    ml: Multilabel
    labels: pl.LazyFrame  # *keys, label, ORD, support, predicted, tp, fp, fn, tn
    rows: pl.LazyFrame  # *keys, n_true, n_pred, n_common, count
    n_labels: pl.LazyFrame  # one row, column ``n_labels``: the size of the label set

    @property
    def keys(self) -> list[str]:
        return self.ml.keys


def _with_common(ml: Multilabel) -> pl.LazyFrame:
    """The rows with the intersection of their two sets (computed once, cached: the
    histogram and the label sums both read it)."""
    return ml.rows.with_columns(
        pl.col(TRUE).list.set_intersection(pl.col(PRED)).alias(_COMMON)
    ).cache()


def row_histogram(ml: Multilabel, rows: pl.LazyFrame | None = None) -> pl.LazyFrame:
    """``*keys, n_true, n_pred, n_common, count``, checked at collect (see module)."""
    rows = _with_common(ml) if rows is None else rows
    sizes = rows.with_columns(
        pl.col(TRUE).list.len().cast(pl.Int64).alias(N_TRUE),
        pl.col(PRED).list.len().cast(pl.Int64).alias(N_PRED),
        pl.col(_COMMON).list.len().cast(pl.Int64).alias(N_COMMON),
    )
    hist = sizes.group_by(*ml.group_keys, N_TRUE, N_PRED, N_COMMON).agg(
        ml.total().alias(COUNT), *ml.check_aggs()
    )
    return ml.with_all(ml.raise_if_bad(hist))


def label_sums(ml: Multilabel, rows: pl.LazyFrame | None = None) -> pl.LazyFrame:
    """``*keys, label, support, predicted, tp``: the labels that occur in a segment.

    Each of the three lists exploded and counted on its own, then joined (a null
    label - a null list or a null in a list, refused by the checks - is dropped from
    the small result: a filter on the exploded rows costs a pass over them)."""
    rows = _with_common(ml) if rows is None else rows
    keys = [*ml.group_keys, LABEL]
    weight = [WEIGHT] if ml.weighted else []
    counted = [
        rows.select(*ml.group_keys, pl.col(column).alias(LABEL), *weight)
        .explode(LABEL)
        .group_by(keys)
        .agg(ml.total().alias(part))
        for column, part in zip((TRUE, PRED, _COMMON), _PARTS, strict=True)
    ]
    sums = functools.reduce(
        lambda left, right: left.join(right, on=keys, how="full", coalesce=True, nulls_equal=True),
        counted,
    )
    zero = 0.0 if ml.weighted else 0
    sums = sums.filter(pl.col(LABEL).is_not_null()).with_columns(pl.col(*_PARTS).fill_null(zero))
    return ml.with_all(sums)


def multilabel_counts(ml: Multilabel) -> MultilabelCounts:
    """The label counts (every label of the set in every segment) and the row histogram."""
    rows = _with_common(ml)
    return from_parts(ml, label_sums(ml, rows), row_histogram(ml, rows))


def from_parts(ml: Multilabel, sums: pl.LazyFrame, hist: pl.LazyFrame) -> MultilabelCounts:
    """The counts from the label sums (``*keys, label, support, predicted, tp``, labels
    that occur) and the row histogram (a state's two parts, or the rows')."""
    keys = ml.keys
    # cached before their first use: the label set, the row totals and the finishers
    # read them again (uncached, the optimizer formed each again from the rows)
    sums, hist = sums.cache(), hist.cache()
    label_set = ml.label_set(sums.select(LABEL))
    n = hist.group_by(keys).agg(pl.col(COUNT).sum().alias(_N))
    counts = (
        n.join(label_set, how="cross")
        .join(sums, on=[*keys, LABEL], how="left", nulls_equal=True)
        .with_columns(pl.col("support", "predicted", "tp").fill_null(0))
        .select(
            *keys,
            LABEL,
            ORD,
            "support",
            "predicted",
            "tp",
            (pl.col("predicted") - pl.col("tp")).alias("fp"),
            (pl.col("support") - pl.col("tp")).alias("fn"),
            (pl.col(_N) - pl.col("support") - pl.col("predicted") + pl.col("tp")).alias("tn"),
        )
    )
    if not ml.weighted:
        counts = counts.with_columns(
            pl.col("support", "predicted", "tp", "fp", "fn", "tn").cast(pl.Int64)
        )
    n_labels = label_set.select(pl.len().cast(pl.Int64).alias(N_LABELS))
    # each finisher reads these frames several times (per label, averages, samples):
    # cached, the rows are read and counted once per query
    return MultilabelCounts(ml, counts.cache(), hist, n_labels)
