"""Finishers of the merged per-score state for the frame methods that
:class:`pl_metrics.state.ScoreCountsState` does not finish itself: the threshold
tables.  Each is the frame method's own computation (``_ranking.thresholds``) on the
merged counts, its options checked by the same table; the engines declare them
beside the state's own finishers (:mod:`.declared`)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pl_metrics._core import table_options
from pl_metrics._core.options import checked
from pl_metrics._ranking import thresholds as ranking_thresholds
from pl_metrics._typing import ThresholdMetric
from pl_metrics.state import ScoreCountsState


def thresholds(
    state: ScoreCountsState[pl.DataFrame], *, beta: float = 1.0, zero_division: float = 0.0
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.thresholds`, of a merged per-score state."""
    b, zd = checked("thresholds", beta=beta, zero_division=zero_division)
    return ranking_thresholds.sweep(state._counts("thresholds"), beta=b, zero_division=zd)


def best_threshold(
    state: ScoreCountsState[pl.DataFrame],
    *,
    metric: ThresholdMetric = "f1",
    where: pl.Expr | None = None,
    beta: float = 1.0,
    zero_division: float = 0.0,
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.best_threshold` (its options and ``where`` checked
    on the engine's schema first), of a merged per-score state."""
    table = thresholds(state, beta=beta, zero_division=zero_division)
    return ranking_thresholds.best(table, list(state._by.names), metric=metric, where=where)


def det_curve(
    state: ScoreCountsState[pl.DataFrame], *, drop_intermediate: bool = False
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.det_curve`, of a merged per-score state."""
    (drop_intermediate,) = checked("det_curve", drop_intermediate=drop_intermediate)
    return ranking_thresholds.det_curve(
        state._counts("det_curve"), drop_intermediate=drop_intermediate
    )


def expected_cost(
    state: ScoreCountsState[pl.DataFrame],
    *,
    cost_matrix: Sequence[Sequence[float]],
    best: bool = False,
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.expected_cost`, of a merged per-score state."""
    matrix = table_options.check_cost_matrix(cost_matrix)
    (best,) = checked("expected_cost", best=best)
    return ranking_thresholds.expected_cost(
        state._counts("expected_cost"), matrix=matrix, best=best
    )


def cost_curve(state: ScoreCountsState[pl.DataFrame], *, points: int = 101) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.cost_curve`, of a merged per-score state."""
    (n,) = checked("cost_curve", points=points)
    return ranking_thresholds.cost_curve(state._counts("cost_curve"), points=n)


#: The finishers above, by the frame method they equal.
SCORE_FINISHERS = {
    f.__name__: f for f in (thresholds, best_threshold, det_curve, expected_cost, cost_curve)
}
