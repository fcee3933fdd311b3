"""Bootstrap intervals of the multilabel set metrics: whole rows resampled.

The labels of one row go together (a row's true and predicted *sets* decide its
samples scores, its exact match, its Hamming errors), so the per-label 2x2
counts cannot be redrawn label by label as the single-label intervals redraw
confusion cells.  A replicate is a multinomial (or Poisson) redraw of each segment's rows:
:func:`pl_metrics._intervals.resample.replicates` draws the distinct ``(true
set, predicted set)`` rows of a segment (the same seeding as every bootstrap of
pl_metrics: the same draws whatever the row order), and returns them as
weighted rows.  Each replicate is then one more segment of the same
computation as the point estimate (:mod:`.counts` -> :mod:`.metrics`, the
drawn count as the weight), and the interval of a metric is the percentile
interval of its replicates (undefined ones skipped), as everywhere in
pl_metrics.  The label set is the input's (a label that a replicate misses is
still a label of it: zero support, and it counts in the Hamming loss).

Un-weighted rows only (``ci`` refuses ``weight``: a weight is not a count of
rows to resample).  The cost is the number of distinct (segment, true set,
predicted set) rows times ``n_boot`` (at most
:data:`~pl_metrics._intervals.resample.MAX_ROWS`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from pl_metrics._core import names
from pl_metrics._intervals import resample
from pl_metrics._multilabel import counts
from pl_metrics._multilabel.inputs import LABEL, PRED, TRUE, WEIGHT, Multilabel

#: The output name of the replicate's key while the replicates are finished.
_REP = f"{names.INTERNAL}ml_rep"

#: The metric columns of each method with intervals (``{f}``: the F column) and the
#: columns that tell its rows apart besides ``by``.
METRICS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "per_class": (names.PER_CLASS_SCORES, (LABEL,)),
    "averages": (names.SCORE_COLUMNS, ("average",)),
    "report": (names.SCORE_COLUMNS, (LABEL, "average")),
    "summary": (("subset_accuracy", "hamming_loss", "jaccard_samples"), ()),
}


@dataclass(frozen=True)
class _Replicated(Multilabel):
    """The replicates as multilabel rows, with the input's label set."""

    original: Multilabel | None = None

    def label_set(self, seen: pl.LazyFrame | None = None) -> pl.LazyFrame:
        assert self.original is not None
        return self.original.label_set()


def _replicates(ml: Multilabel, *, n_boot: int, seed: int | None) -> Multilabel:
    """The bootstrap replicates of ``ml``'s rows, each one more segment (key ``_REP``)."""
    keys = ml.keys  # [ALL] without by: the draws are per segment
    # the rows checked (their errors are the point estimate's, counted in rows)
    checked = ml.raise_if_bad(
        ml.rows.select(*ml.check_aggs(), pl.lit(0, pl.Int8).alias(_REP))
    ).select(pl.col(_REP))
    rows = ml.with_all(ml.rows).select(*keys, TRUE, PRED).join(checked, how="cross").drop(_REP)
    drawn = resample.replicates(rows, keys, [TRUE, PRED], n_boot=n_boot, seed=seed, label_sets=True)
    by = [*ml.by, _REP]
    rep_key = names.segment_keys(by)[-1]
    frame = drawn.select(
        *ml.group_keys,
        pl.col(resample.REP).alias(rep_key),
        TRUE,
        PRED,
        pl.col(resample.COUNT).cast(pl.Float64).alias(WEIGHT),
    )
    return _Replicated(
        rows=frame,
        by=by,
        keys=names.segment_keys(by),
        types=ml.types,
        labels=ml.labels,
        weighted=True,
        checks=(),
        original=ml,
    )


def bootstrap(
    ml: Multilabel,
    point: pl.LazyFrame,
    method: str,
    finish: Callable[[counts.MultilabelCounts], pl.LazyFrame],
    *,
    beta: float,
    ci: float,
    n_boot: int,
    seed: int | None,
) -> pl.LazyFrame:
    """``point`` (the method's frame) with ``<metric>_low`` / ``<metric>_high`` columns.

    ``finish``: the method's finisher (options bound) applied to the replicates'
    counts; its frame has the columns of ``point`` plus the replicate key.
    """
    metrics, row_keys = METRICS[method]
    columns = [names.f_name(beta) if m == "{f}" else m for m in metrics]
    replicated = finish(counts.multilabel_counts(_replicates(ml, n_boot=n_boot, seed=seed)))
    on = [*ml.by, *row_keys]
    bounds = []
    for c in columns:
        low, high = resample.percentile_bounds(pl.col(c), ci)
        bounds += [low.alias(f"{c}_low"), high.alias(f"{c}_high")]
    intervals = replicated.group_by(on).agg(bounds) if on else replicated.select(bounds)
    if not on:
        return point.join(intervals, how="cross")
    order = point.collect_schema().names()
    with_index = point.with_row_index(_REP)
    joined = with_index.join(intervals, on=on, how="left", nulls_equal=True)
    return joined.sort(_REP).select(*order, *names.interval_columns(columns))
