"""``over_time``'s estimated metrics: ``estimated_performance`` per time window.

``estimated_<m>`` of a window is ``estimated_performance``'s ``<m>`` on the window's
current rows (the rows that are not the reference's), with the one calibration map
fitted on the reference rows.  It is ``estimated_performance`` with the window's end
as the last segment key: the current rows are read once into the lists of each
(segment, ``every`` bucket), the data checks counted once over the rows; a rolling
window of ``k`` buckets concatenates its buckets' lists (each bucket's lists
repeated for the ``k`` windows that hold it, as ``over_time`` spreads the other
states: :func:`pl_metrics._groups.over_time.repeated`); then one vectorised numpy
pass sums every window of every segment (:mod:`.segment_sums`).  One query, no
step per window.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from pl_metrics._core import checks, inputs
from pl_metrics._groups import over_time
from pl_metrics._monitoring import estimated, segment_sums

PREFIX = "estimated_"
#: The names ``over_time`` takes for them: ``estimated_<m>`` for each metric of
#: ``estimated_performance`` (``_typing.OverTimeEstimatedMetric``).
METRICS: tuple[str, ...] = tuple(f"{PREFIX}{m}" for m in estimated.METRICS)


def spread(w: over_time.Windows) -> Callable[[pl.LazyFrame, list[str]], pl.LazyFrame]:
    """The lists of each (segment, bucket) made those of each (segment, window): a
    bucket's lists in the ``w.k`` windows that hold it, concatenated per window (the
    last key: the bucket's end, then the window's); a window's weight total checked
    again (its buckets' may each be below the limit).  Tumbling windows: as they are."""

    def windows(lists: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
        if w.k == 1:
            return lists
        columns = lists.collect_schema().names()
        listed = [c for c in columns if c not in keys and c != inputs.SEGMENT_WEIGHT]
        aggs = [pl.col(c).explode() for c in listed]
        if inputs.SEGMENT_WEIGHT in columns:  # weighted: the window's total
            total = pl.col(segment_sums.WEIGHTS).explode().sum()
            aggs.append(checks.weight_total_too_large(total).alias(inputs.SEGMENT_WEIGHT))
        spread_ = over_time.repeated(lists, keys[-1], w).group_by(keys).agg(aggs)
        return spread_.select(columns)

    return windows


def estimated_windows(
    lf: pl.LazyFrame,
    y_pred: str,
    y_score: str,
    *,
    keys: list[str],
    w: over_time.Windows,
    index: str,
    metrics: list[str],
    reference: object,
    y_true: str,
    pos_label: object,
    weight: str | None,
    calibration: str | None,
    ci: float | None,
) -> list[pl.LazyFrame]:
    """The ``estimated_*`` metrics of ``metrics`` per window of ``lf`` (``keys``: the
    segments' columns, then :data:`over_time.WINDOW_END`, the bucket's end), one long
    frame per metric as ``over_time``'s parts (intervals: ``estimated_performance``'s,
    the spread of the realized metric under labels drawn Bernoulli(p))."""
    wanted = [m.removeprefix(PREFIX) for m in metrics if m in METRICS]
    frame = estimated.estimated_performance(
        lf,
        y_pred,
        y_score,
        reference=reference,
        y_true=None if calibration is None else y_true,
        by=keys,
        pos_label=pos_label,
        weight=weight,
        calibration=calibration,
        metrics=wanted,
        ci=ci,
        windows=spread(w),
    )
    # a null index: its own bucket (a segment with a null end), refused
    frame = over_time.null_index_check(frame, over_time.WINDOW_END, index).cache()
    return [over_time.long_rows(frame, keys[:-1], PREFIX + m, m, ci is not None) for m in wanted]


__all__ = ["METRICS", "PREFIX", "estimated_windows", "spread"]
