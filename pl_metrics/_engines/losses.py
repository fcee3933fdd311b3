"""The mergeable states of log_loss, brier_score and decision_cost on the engines: per
segment and ``y_true`` label, the sums of the rows' loss terms (or decision costs) and
of their weights.

Each shard sums the frame method's own per-row losses (``_probability.row_log_loss``
/ ``row_brier``: ``formulas.log_loss_terms`` / ``brier_terms``, clipped at ``EPS``)
with its data checks (bad probabilities, rows not summing to 1, unknown classes,
bad weights: counted, combined over all shards by :mod:`.jobs`); the sums merge by
addition.  The label is a key so that the driver holds every label of the rows:
the binary label-set checks (the default ``pos_label``'s {0, 1} / {-1, 1} rule,
``pos_label`` present), which one shard cannot decide, are the frame method's own
on a row per label (:func:`check_label_set`).  The finishers divide the sums: the
mean loss (``normalize``) or the sum, as the frame methods.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from pl_metrics import _probability, metrics
from pl_metrics._core import catalogue, table_options
from pl_metrics._core.messages import Bad
from pl_metrics._core.names import INTERNAL
from pl_metrics._core.options import checked
from pl_metrics._typing import By, Score

LABEL = f"{INTERNAL}label"
LOG_LOSS = f"{INTERNAL}log_loss"
BRIER = f"{INTERNAL}brier_score"
#: The rows of a segment's label: their count (Int64), or their summed weights.
WEIGHT = f"{INTERNAL}weight"
#: The state's keys after ``*by``, its summed columns, those summing to the weight
#: (:data:`pl_metrics._engines.jobs._STATES`' shape).
SHAPE = ((LABEL,), (LOG_LOSS, BRIER, WEIGHT), (WEIGHT,))
#: The summed column of each per-row loss (a metric's ``row_loss``: ``over_time``'s
#: windows read them).
SUMMED = {catalogue.RowLoss.LOG: LOG_LOSS, catalogue.RowLoss.BRIER: BRIER}
COST = f"{INTERNAL}cost"
#: ... and of :func:`cost_sums`.
COST_SHAPE = ((LABEL,), (COST, WEIGHT), (WEIGHT,))


def loss_sums(
    lf: pl.LazyFrame,
    y_true: Score,
    y_prob: Score,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, LABEL, LOG_LOSS, BRIER, WEIGHT`` of ``lf``'s rows: the state a shard sends."""
    rows = _probability.Rows(
        lf, y_true, y_prob, by=by, pos_label=pos_label, weight=weight, reserved=(), one_hot=True
    )
    return _sums(
        rows, {LOG_LOSS: _probability.row_log_loss(rows), BRIER: _probability.row_brier(rows)}
    )


def cost_sums(
    lf: pl.LazyFrame,
    y_true: str,
    y_prob: Mapping[object, str],
    *,
    cost_matrix: Mapping[object, Mapping[object, float]],
    by: By = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, LABEL, COST, WEIGHT`` of ``lf``'s rows (decision_cost's per-row costs,
    ``_probability.row_decision_cost``): the state a shard sends."""
    rows = _probability.Rows(lf, y_true, y_prob, by=by, pos_label=None, weight=weight, reserved=())
    costs = table_options.check_cost_table(cost_matrix, rows.labels.to_list())
    return _sums(rows, {COST: _probability.row_decision_cost(rows, costs)})


def _sums(rows: _probability.Rows, values: Mapping[str, pl.Expr]) -> pl.LazyFrame:
    """``*by, LABEL, *values, WEIGHT``: the per-row ``values`` (weighted) and the
    weights summed per segment and label, with the rows' data checks."""
    w = rows.weight
    sums = [(x if w is None else x * w).sum().alias(name) for name, x in values.items()]
    sums.append((pl.len().cast(pl.Int64) if w is None else w.sum()).alias(WEIGHT))
    frame = rows.lf.with_columns(pl.col(rows.y_true).alias(LABEL))
    out = rows.aggregate(*sums, keys=[*rows.keys, LABEL], frame=frame, label_sets=False)
    return rows.finish(out)


def check_label_set(
    state: pl.DataFrame, y_true: Score, y_prob: Score, pos_label: object, method: str
) -> None:
    """The frame method's label-set checks of binary probabilities on a row per label
    of the merged state (the labels all the rows hold: the same errors, the same
    messages); per-row checks (one-hot, multiclass) were the shards'."""
    if not isinstance(y_true, str) or not isinstance(y_prob, str) or y_true == y_prob:
        return
    labels = state.select(pl.col(LABEL).unique().alias(y_true))
    proxy = labels.with_columns(pl.lit(0.5).alias(y_prob))
    getattr(metrics(proxy.lazy()), method)(y_true, y_prob, pos_label=pos_label).collect()


def _finished(
    state: pl.DataFrame, by: list[str], column: str, name: str, *, mean: bool
) -> pl.DataFrame:
    """``*by, name``: each segment's summed ``column``, divided by its weight (``mean``).
    The per-row values are finite (log loss clipped at ``EPS``): an infinite sum is
    an overflow of huge weights, refused (``DataError``), never returned."""
    total = pl.col(column).sum()
    value = (total / pl.col(WEIGHT).sum()) if mean else total
    if by:
        out = state.group_by(by).agg(value.alias(name), total.alias(column))
        out = out.sort(by, nulls_last=True, maintain_order=True)
    else:
        out = state.select(value.alias(name), total.alias(column))
        out = out.filter(pl.lit(state.height > 0))
    overflowed = out.select(pl.col(column).is_infinite().sum()).item()
    if overflowed:
        raise Bad.engine_sum_overflow(name, overflowed)
    return out.drop(column)


class LossSums:
    """A merged :func:`loss_sums` state and its segments (``by`` names)."""

    def __init__(self, state: pl.DataFrame, *, by: list[str]) -> None:
        self.state, self.by = state, by

    def _checked(self, values: Mapping[str, Any], method: str) -> pl.DataFrame:
        check_label_set(
            self.state, values["y_true"], values["y_prob"], values.get("pos_label"), method
        )
        return self.state


def log_loss(
    sums: LossSums,
    *,
    y_true: Score,
    y_prob: Score,
    pos_label: object = None,
    normalize: bool = True,
) -> pl.DataFrame:
    """As :meth:`MetricsLazyFrame.log_loss`, of a merged :func:`loss_sums` state."""
    (normalize,) = checked("log_loss", normalize=normalize)
    state = sums._checked({"y_true": y_true, "y_prob": y_prob, "pos_label": pos_label}, "log_loss")
    return _finished(state, sums.by, LOG_LOSS, "log_loss", mean=normalize)


def brier_score(
    sums: LossSums, *, y_true: Score, y_prob: Score, pos_label: object = None
) -> pl.DataFrame:
    """As :meth:`MetricsLazyFrame.brier_score`, of a merged :func:`loss_sums` state."""
    values = {"y_true": y_true, "y_prob": y_prob, "pos_label": pos_label}
    state = sums._checked(values, "brier_score")
    return _finished(state, sums.by, BRIER, "brier_score", mean=True)


def decision_cost(sums: LossSums) -> pl.DataFrame:
    """As :meth:`MetricsLazyFrame.decision_cost`, of a merged :func:`cost_sums` state
    (multiclass: its label checks are per row, the shards')."""
    return _finished(sums.state, sums.by, COST, "cost", mean=True)


#: The finishers above, by the frame method they equal, and their state's.
LOSS_FINISHERS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (log_loss, brier_score)}
COST_FINISHERS: dict[str, Callable[..., Any]] = {"decision_cost": decision_cost}
