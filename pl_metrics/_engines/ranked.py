"""The exact ROC AUC of continuous scores on an engine with the driver's memory bounded.

The per-score state of continuous scores has about one row per row, so merging it on
the driver needs the driver to hold all the rows' scores.  Instead the engine
range-partitions the rows by score (Spark's ``repartitionByRange``, Dask's
``sort_values``): equal scores meet in one partition, and partition ``j``'s scores are
all below partition ``j + 1``'s.  Each partition computes its own per-score state
(the frame method's, with all its checks) and sends only, per segment, its positives
``P_j``, negatives ``N_j``, the pairs it orders right ``right_j`` and the pairs it ties
``tied_j`` (Int128 counts).  A negative of partition ``j`` is below every positive of
the partitions after it, so the segment's pairs ordered right are

    right = sum_j (right_j + N_j * sum_{i > j} P_i)

and the AUC is ``from_counts.pairs_auc`` of (right, tied, P, N): the integers the
merged state would sum, so the frame method's number to the bit.  The driver holds
partitions x segments rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pl_metrics._core.names import INTERNAL
from pl_metrics._ranking.from_counts import pairs_auc

#: The summary's partition index (its score range's rank) and its counts.
PART = f"{INTERNAL}part"
COUNTS = ("P", "N", "right", "tied")


def summary(state: pl.DataFrame, segments: Sequence[str], part: int) -> pl.DataFrame:
    """Partition ``part``'s per-score ``state`` as its counts per segment."""
    pos = pl.col("pos").sort_by("score", descending=True).cast(pl.Int128)
    neg = pl.col("neg").sort_by("score", descending=True).cast(pl.Int128)
    above = pos.cum_sum() - pos  # the positives above each score, in this partition
    aggs = [
        pos.sum().alias("P"),
        neg.sum().alias("N"),
        (neg * above).sum().alias("right"),
        (neg * pos).sum().alias("tied"),
    ]
    keys = list(segments) or [pl.lit(0).alias(PART)]  # one group, none without rows
    out = state.group_by(keys).agg(aggs)
    return out.with_columns(pl.lit(part, pl.Int64).alias(PART))


def merge(summaries: list[pl.DataFrame]) -> pl.DataFrame:
    """Summaries of several partitions: concatenated (each keeps its partition index)."""
    return pl.concat(summaries, how="vertical_relaxed")


def roc_auc(summaries: pl.DataFrame, segments: Sequence[str]) -> pl.DataFrame:
    """``*by, roc_auc`` from every partition's summary."""
    order = pl.col(PART)

    def down(column: str) -> pl.Expr:  # in descending score ranges
        return pl.col(column).sort_by(order, descending=True)

    p_above = down("P").cum_sum() - down("P")  # the positives of higher score ranges
    right = (down("right") + down("N") * p_above).sum()
    auc = pairs_auc(right, pl.col("tied").sum(), pl.col("P").sum(), pl.col("N").sum())
    if not segments:  # one row, none without rows
        return summaries.group_by(pl.lit(0).alias("_")).agg(auc.alias("roc_auc")).drop("_")
    keys = list(segments)
    return summaries.group_by(keys).agg(auc.alias("roc_auc")).sort(keys, nulls_last=True)
