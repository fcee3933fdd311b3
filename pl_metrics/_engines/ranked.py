"""The exact ROC AUC of continuous scores on an engine with the driver's memory bounded.

The per-score state of continuous scores has about one row per row, so merging it on
the driver needs the driver to hold all the rows' scores.  Instead the engine
range-partitions the rows by score (Spark's ``repartitionByRange``; on Dask, polars
splits each shard at boundaries sampled from the scores): equal scores meet in one
partition, and partition ``j``'s scores are all below partition ``j + 1``'s.  Each
partition computes its own per-score state (the frame method's, with all its checks)
and sends only, per segment, its positives
``P_j``, negatives ``N_j``, the pairs it orders right ``right_j`` and the pairs it ties
``tied_j`` (Int128 counts).  A negative of partition ``j`` is below every positive of
the partitions after it, so the segment's pairs ordered right are

    right = sum_j (right_j + N_j * sum_{i > j} P_i)

and the AUC is ``from_counts.pairs_auc`` of (right, tied, P, N): the integers the
merged state would sum, so the frame method's number to the bit.  The driver holds
partitions x segments rows.

The average precision needs, at each score, the positives and negatives above it,
which in partition ``j`` are its own running counts plus those of the partitions
after it: a second pass over the same partitions (persisted by the engine) receives
them (:func:`prefix`, partitions x segments rows) and sends each partition's sum of
the AP's terms per segment (:func:`ap_terms`); the driver adds them and divides by P
(``formulas.average_precision_of_sum``), as the merged state's AP.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pl_metrics._core import formulas as fm
from pl_metrics._core.names import INTERNAL
from pl_metrics._ranking.from_counts import pairs_auc

#: The summary's partition index (its score range's rank) and its counts.
PART = f"{INTERNAL}part"
COUNTS = ("P", "N", "right", "tied")
#: A partition of fewer rows sums its pairs in Int64 (at most 2^60 of them).
_INT64_ROWS = 2**31
#: The prefix of a partition: the positives and negatives of the higher score ranges.
_TP, _FP = f"{INTERNAL}tp_above", f"{INTERNAL}fp_above"
_ALL = f"{INTERNAL}all"  # the one segment without ``by``


def summary(state: pl.DataFrame, segments: Sequence[str], part: int) -> pl.DataFrame:
    """Partition ``part``'s per-score ``state`` as its counts per segment (the rows
    sorted by score once: each segment's rows keep that order in its group)."""
    # a segment's pairs are at most (its rows / 2)^2: Int64 sums below 2^31 rows
    rows = state.select(pl.col("pos", "neg").cast(pl.Int128).sum()).sum_horizontal().item()
    dtype = pl.Int64 if (rows or 0) < _INT64_ROWS else pl.Int128
    pos, neg = pl.col("pos").cast(dtype), pl.col("neg").cast(dtype)
    above = pos.cum_sum() - pos  # the positives above each score, in this partition
    aggs = [
        pos.sum().alias("P"),
        neg.sum().alias("N"),
        (neg * above).sum().alias("right"),
        (neg * pos).sum().alias("tied"),
    ]
    frame, keys = _keyed(state.sort("score", descending=True), segments)
    out = frame.group_by(keys).agg(aggs).with_columns(pl.lit(part, pl.Int64).alias(PART))
    out = out.with_columns(pl.col(COUNTS).cast(pl.Int128))
    return out if segments else out.drop(_ALL)


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
    frame, keys = _keyed(summaries, segments)  # without rows: no group, no row
    out = frame.group_by(keys).agg(auc.alias("roc_auc"))
    return out.sort(keys, nulls_last=True) if segments else out.drop(_ALL)


def _keyed(frame: pl.DataFrame, segments: Sequence[str]) -> tuple[pl.DataFrame, list[str]]:
    """``frame`` and its segment keys (a constant one without ``by``)."""
    if segments:
        return frame, list(segments)
    return frame.with_columns(pl.lit(0, pl.Int8).alias(_ALL)), [_ALL]


def prefix(summaries: pl.DataFrame, segments: Sequence[str]) -> pl.DataFrame:
    """Per partition and segment: the positives and negatives of the partitions of
    higher score ranges (Float64 counts, as the AP's running sums are)."""
    frame, keys = _keyed(summaries, segments)
    frame = frame.sort(PART, descending=True)
    p, n = pl.col("P").cast(pl.Float64), pl.col("N").cast(pl.Float64)
    above = [(p.cum_sum() - p).over(keys).alias(_TP), (n.cum_sum() - n).over(keys).alias(_FP)]
    return frame.select(*keys, PART, *above)


def ap_terms(
    state: pl.DataFrame, segments: Sequence[str], part: int, above: pl.DataFrame
) -> pl.DataFrame:
    """Partition ``part``'s sum of the AP's terms per segment (``above``: the
    :func:`prefix` of every partition)."""
    frame, keys = _keyed(state.sort("score", descending=True), segments)
    mine = above.filter(pl.col(PART) == part).drop(PART)
    frame = frame.join(mine, on=keys, how="left", nulls_equal=True, maintain_order="left")
    pos, neg = pl.col("pos").cast(pl.Float64), pl.col("neg").cast(pl.Float64)
    tps = pos.cum_sum() + pl.col(_TP).first().fill_null(0.0)
    fps = neg.cum_sum() + pl.col(_FP).first().fill_null(0.0)
    terms = fm.average_precision_terms(pos, tps, fps).sum().alias("terms")
    out = frame.group_by(keys).agg(terms).with_columns(pl.lit(part, pl.Int64).alias(PART))
    return out if segments else out.drop(_ALL)


def average_precision(
    summaries: pl.DataFrame, terms: pl.DataFrame, segments: Sequence[str]
) -> pl.DataFrame:
    """``*by, average_precision`` from the partitions' summaries and AP terms."""
    counted, keys = _keyed(summaries, segments)
    summed, _ = _keyed(terms, segments)
    p = counted.group_by(keys).agg(pl.col("P").sum().cast(pl.Float64))
    t = summed.group_by(keys).agg(pl.col("terms").sum())
    frame = p.join(t, on=keys, how="left", nulls_equal=True)
    ap = fm.average_precision_of_sum(pl.col("terms").fill_null(0.0), pl.col("P"))
    ap = pl.when(pl.col("P") > 0).then(ap).otherwise(0.0).alias("average_precision")
    out = frame.select(*keys, ap)
    return out.sort(keys, nulls_last=True) if segments else out.drop(_ALL)
