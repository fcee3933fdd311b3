"""The mergeable state of the multilabel per-row ranking metrics on the engines
(coverage_error, label_ranking_average_precision, label_ranking_loss): per segment,
the sums of the rows' values and weights where the value is defined, and how many.

Each shard computes the frame method's own per-row value (``_multilabel.ranking.
row_value``, of the rows :func:`pl_metrics._namespace.multilabel_ranking.per_row_rows`
checks as the frame method does: counted, combined over all shards); a row's value
reads that row alone, so the sums merge by addition, and the finisher's (weighted) mean
over the defined rows is the frame method's (null where no row is defined).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import polars as pl

from pl_metrics._core.names import INTERNAL
from pl_metrics._multilabel import inputs, ranking
from pl_metrics._namespace.multilabel_ranking import per_row_rows
from pl_metrics._typing import By, Labels, Score

#: A constant key (a state without segments has one group).
ONE = f"{INTERNAL}one"
VALUE = f"{INTERNAL}value"
#: The defined rows' count (Int64), or their summed weights.
WEIGHT = f"{INTERNAL}weight"
DEFINED = f"{INTERNAL}defined"
#: The state's keys after ``*by``, its summed columns, those summing to the weight.
SHAPE = ((ONE,), (VALUE, WEIGHT, DEFINED), (WEIGHT,))
#: The metrics, each its own state (the value read per row differs).
METRICS = ("coverage_error", "label_ranking_average_precision", "label_ranking_loss")


def row_sums(
    lf: pl.LazyFrame,
    y_true: Score,
    y_score: Score,
    *,
    metric: str,
    labels: Labels = None,
    by: By = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, ONE, VALUE, WEIGHT, DEFINED`` of ``lf``'s rows: the state a shard sends."""
    rows = per_row_rows(lf, metric, y_true, y_score, labels=labels, by=by, weight=weight)
    sums = _sums(ranking.row_value(metric), weighted=rows.ml.weighted)
    frame = rows.ml.with_all(rows.frame)
    result = frame.group_by(rows.keys).agg(
        *sums, *rows.check_aggs(), *ranking._aggregate_checks(rows)
    )
    result = ranking._raise(rows, result).select(
        *rows.keys, pl.lit(0, pl.Int8).alias(ONE), *SHAPE[1]
    )
    return rows.finish(result)


def partial_auc_sums(
    lf: pl.LazyFrame,
    y_true: Score,
    y_score: Score,
    *,
    max_fpr: float,
    labels: Labels = None,
    by: By = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, ONE, VALUE, WEIGHT, DEFINED``: :func:`row_sums` of each row's partial
    ROC AUC up to ``max_fpr`` (``roc_auc(average="samples", max_fpr=)``: the frame
    method's per-row value, ``_multilabel.ranking.row_partial_aucs``, of its checked
    rows)."""
    rows = per_row_rows(lf, "roc_auc", y_true, y_score, labels=labels, by=by, weight=weight)
    sums = _sums(pl.col("roc_auc"), weighted=rows.ml.weighted)
    result = ranking.row_partial_aucs(rows, max_fpr, *sums)
    return rows.finish(result.select(*rows.keys, pl.lit(0, pl.Int8).alias(ONE), *SHAPE[1]))


def _sums(value: pl.Expr, *, weighted: bool) -> list[pl.Expr]:
    """The state's sums of the rows' ``value`` where defined (weighted by the row's weight)."""
    defined = value.is_not_null()
    w = pl.col(inputs.WEIGHT) if weighted else None
    return [
        (value if w is None else value * w).filter(defined).sum().alias(VALUE),
        (defined.sum().cast(pl.Int64) if w is None else w.filter(defined).sum()).alias(WEIGHT),
        defined.sum().cast(pl.Int64).alias(DEFINED),
    ]


class RowSums:
    """A merged :func:`row_sums` state and its segments (``by`` names)."""

    def __init__(self, state: pl.DataFrame, *, by: list[str]) -> None:
        self.state, self.by = state, by

    def mean(self, name: str) -> pl.DataFrame:
        """``*by, name``: each segment's mean over its defined rows (null: none)."""
        mean = pl.col(VALUE).sum() / pl.col(WEIGHT).sum()
        value = pl.when(pl.col(DEFINED).sum() > 0).then(mean).alias(name)
        out = self.state.group_by([*self.by, ONE]).agg(value).select(*self.by, name)
        return out.sort(self.by, nulls_last=True, maintain_order=True) if self.by else out


def _finisher(name: str) -> Callable[[RowSums], pl.DataFrame]:
    def finish(sums: RowSums) -> pl.DataFrame:
        return sums.mean(name)

    finish.__name__ = name
    finish.__doc__ = f"As :meth:`MetricsLazyFrame.{name}`, of a merged :func:`row_sums` state."
    return finish


#: Each metric's state: its maker (the metric bound) and its finisher.
MAKERS: dict[str, Callable[..., pl.LazyFrame]] = {
    f"{m}_sums": functools.partial(row_sums, metric=m) for m in METRICS
}
FINISHERS: dict[str, dict[str, Callable[..., Any]]] = {
    f"{m}_sums": {m: _finisher(m)} for m in METRICS
}
