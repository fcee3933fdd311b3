"""Finishers of the merged confusion-counts state for the fairness family:
selection_rate, group_rates, fairness and disparity.

Each is a function of the confusion counts per group: the engine's shards make the
``counts`` state with the sensitive column(s) (``by``) added to the segment keys
(after ``control``'s strata: :data:`STATE_BY`), and the driver finishes the merged
state with the frame method's own body (:mod:`pl_metrics._namespace.fairness_rows`)
run on the state's cells as rows, each standing for its count of rows (``count=``:
integer counts stay integers, so the 2x2 counts, the rates and the bootstrap's draws
of the cells are those of the rows; with ``weight``, the cells' summed weights).
The engines declare them beside the state's own finishers (:mod:`.declared`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from pl_metrics._core import checks
from pl_metrics._core.names import ACTUAL, COUNT, PREDICTED, segment_keys
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._namespace import fairness_rows
from pl_metrics._typing import By, DisparityMethod, FairnessAgg, FairnessMetric
from pl_metrics.state import CountsState

#: The metric families of ``disparity`` that are functions of the confusion counts.
_FROM_COUNTS = ("binary", "summary", "averages")


def _cells(
    state: CountsState[pl.DataFrame], y_true: str, y_pred: str, weight: str | None
) -> tuple[pl.LazyFrame, str | None, str | None]:
    """The merged state's cells as rows: its segment columns under their names, the
    labels under ``y_true`` / ``y_pred``'s names (the frame method's messages name
    them), and the cell's count; ``(rows, weight, count)``: the column the rows are
    weighted by (a state of summed weights) or counted by (integer counts)."""
    segments = list(state._by.names)
    clash = sorted({y_true, y_pred} & set(segments))
    if clash:
        msg = (
            f"pl_metrics engines: the label column(s) {clash} also segment the rows "
            "(`by` / `control`); this is not computed from the merged counts state "
            "yet: use the .metrics method on polars rows"
        )
        raise NotImplementedError(msg)
    taken = {*segments, y_true, y_pred}
    weighted = state._schema["count"].is_float()
    column = weight if weighted and weight is not None and weight not in taken else None
    column = column or groups_fairness.free_name("count", taken)
    keys = segment_keys(state._by) if segments else []
    labels = [pl.col(ACTUAL).alias(y_true)]
    if y_pred != y_true:
        labels.append(pl.col(PREDICTED).alias(y_pred))
    cells = state._frame.select(
        *(pl.col(k).alias(n) for k, n in zip(keys, segments, strict=True)),
        *labels,
        pl.col(COUNT).alias(column),
    )
    return cells, (column if weighted else None), (None if weighted else column)


def _names(by: By) -> list[str] | None:
    return checks.by_names(by) or None


def _rates(  # noqa: PLR0917 - the finishers' own arguments, in order
    state: CountsState[pl.DataFrame],
    method: str,
    y_true: str,
    y_pred: str,
    pos_label: object,
    weight: str | None,
    zero_division: float = 0.0,
) -> pl.LazyFrame:
    cells, weights, count = _cells(state, y_true, y_pred, weight)
    return fairness_rows.rates(
        cells,
        y_true,
        y_pred,
        by=list(state._by.names) or None,
        pos_label=pos_label,
        weight=weights,
        zero_division=zero_division,
        method=method,
        count=count,
    )


def selection_rate(
    state: CountsState[pl.DataFrame],
    *,
    y_true: str,
    y_pred: str,
    pos_label: object = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.selection_rate`, of a merged counts state."""
    return _rates(state, "selection_rate", y_true, y_pred, pos_label, weight)


def group_rates(
    state: CountsState[pl.DataFrame],
    *,
    y_true: str,
    y_pred: str,
    pos_label: object = None,
    weight: str | None = None,
    zero_division: float = 0.0,
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.group_rates`, of a merged counts state."""
    return _rates(state, "group_rates", y_true, y_pred, pos_label, weight, zero_division)


def fairness(
    state: CountsState[pl.DataFrame],
    *,
    y_true: str,
    y_pred: str,
    by: By,
    control: By = None,
    pos_label: object = None,
    weight: str | None = None,
    method: DisparityMethod = "between_groups",
    agg: FairnessAgg = "worst_case",
    zero_division: float = 0.0,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.fairness`, of a merged counts state segmented by
    ``control`` and ``by`` (their names; the bootstrap redraws the cells' counts)."""
    cells, weights, count = _cells(state, y_true, y_pred, weight)
    return fairness_rows.fairness_of(
        cells,
        y_true,
        y_pred,
        by=_names(by),
        control=_names(control),
        pos_label=pos_label,
        weight=weights,
        method=method,
        agg=agg,
        zero_division=zero_division,
        ci=ci,
        n_boot=n_boot,
        seed=seed,
        count=count,
    )


def disparity(
    state: CountsState[pl.DataFrame],
    *,
    y_true: str,
    y_pred: str,
    by: By,
    metric: FairnessMetric | Sequence[FairnessMetric] = "accuracy",
    control: By = None,
    method: DisparityMethod = "between_groups",
    pos_label: object = None,
    weight: str | None = None,
    zero_division: float = 0.0,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.disparity` of label metrics (those of the confusion
    counts: :func:`refuse` says which), of a merged counts state segmented by
    ``control`` and ``by``."""
    cells, weights, count = _cells(state, y_true, y_pred, weight)
    return fairness_rows.disparity_of(
        cells,
        y_true,
        y_pred,
        by=_names(by),
        metric=metric,
        control=_names(control),
        method=method,
        pos_label=pos_label,
        weight=weights,
        zero_division=zero_division,
        ci=ci,
        n_boot=n_boot,
        seed=seed,
        count=count,
    )


def _disparity_refused(values: Mapping[str, Any]) -> None:
    """disparity's metrics that are no function of the confusion counts (scores, the
    user's callables) are refused before any job."""
    metric = values.get("metric")
    if isinstance(metric, Mapping):
        what = "custom metrics (callables of each group's rows)"
    else:
        names = [metric] if isinstance(metric, str) else list(metric or [])
        scores = [m for m in names if groups_fairness.METRICS[m].method not in _FROM_COUNTS]
        if not scores:
            return
        what = f"the metric(s) {scores} (of scores, or of each row)"
    msg = (
        f"pl_metrics engines: disparity of {what} is not computed from the merged "
        "counts state yet; give metrics of the labels (accuracy, f1, the rates of "
        "group_rates...) or use the .metrics method on polars rows"
    )
    raise NotImplementedError(msg)


def _groups_after_strata(values: Mapping[str, Any]) -> list[Any]:
    """The state's segments: the strata (``control``) then the groups (``by``)."""
    return [
        *checks.normalize_by(values.get("control")).given,
        *checks.normalize_by(values["by"]).given,
    ]


#: The finishers above, by the frame method they equal.
COUNTS_FINISHERS: dict[str, Callable[..., Any]] = {
    f.__name__: f for f in (selection_rate, group_rates, fairness, disparity)
}
#: The methods whose state is segmented otherwise than by their ``by``: the state's
#: ``by`` from the call's arguments.
STATE_BY: dict[str, Callable[[Mapping[str, Any]], list[Any]]] = {
    "fairness": _groups_after_strata,
    "disparity": _groups_after_strata,
}
#: The methods that refuse some of their arguments before any job (NotImplementedError).
REFUSE: dict[str, Callable[[Mapping[str, Any]], None]] = {"disparity": _disparity_refused}
