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

``disparity`` of score metrics (``roc_auc``, ``ks``, ``log_loss``...) is no function of
the confusion counts: :func:`scored_disparity` runs the same frame method's body with
each metric's values per group and per stratum from the engine's own function of its
method (:class:`_OnEngine`; the groups' expressions evaluated on the shards), and the
bootstrap of one ROC AUC / AP from the merged per-score state, as the frame method
draws it from its own; what needs the rows (a callable, the other score metrics'
bootstrap) is refused before any job.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import polars as pl

from pl_metrics._core import checks, scores
from pl_metrics._core.names import ACTUAL, COUNT, PREDICTED, segment_keys
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._namespace import fairness_rows
from pl_metrics._typing import By, DisparityMethod, FairnessAgg, FairnessMetric
from pl_metrics.state import CountsState, from_counts, from_score_counts

#: The metric families of ``disparity`` that are functions of the confusion counts.
_FROM_COUNTS = ("binary", "summary", "averages")
#: ``disparity``'s score metrics (no function of the confusion counts), in the
#: catalogue's order; those whose ``ci`` the engines draw (alone) from each group's
#: merged per-score counts (:func:`groups_fairness.of_score_counts`).
_SCORE_METRICS = tuple(
    name for name, m in groups_fairness.METRICS.items() if m.method not in _FROM_COUNTS
)
_SCORE_COUNTS_CI = tuple(m for m in _SCORE_METRICS if groups_fairness.of_score_counts([m]))


def _either(names: Sequence[str], quote: str = "") -> str:
    """``a, b or c`` (each name between ``quote``)."""
    quoted = [f"{quote}{n}{quote}" for n in names]
    return " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)


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


def _metrics(values: Mapping[str, Any]) -> list[str]:
    """disparity's metrics of the catalogue, by name; none for the user's callables."""
    metric = values.get("metric")
    if isinstance(metric, Mapping):
        return []
    return [metric] if isinstance(metric, str) else list(metric or [])


def _scored(values: Mapping[str, Any]) -> list[str]:
    """disparity's metrics that are no function of the confusion counts (of scores:
    roc_auc, log_loss...), by name."""
    return [m for m in _metrics(values) if groups_fairness.METRICS[m].method not in _FROM_COUNTS]


def _disparity_refused(values: Mapping[str, Any]) -> None:
    """What disparity cannot compute without the rows is refused before any job: the
    user's callables (each called on a group's rows) and the bootstrap interval of
    score metrics (the frame method redraws each group's rows)."""
    scored = _scored(values)
    if isinstance(values.get("metric"), Mapping):
        what = "custom metrics (callables of each group's rows)"
        fix = "give metrics of the catalogue (accuracy, f1, roc_auc, log_loss...)"
    elif (
        scored
        and values.get("ci") is not None
        and not groups_fairness.of_score_counts(_metrics(values))
    ):
        what = f"the metric(s) {scored} with `ci` (the bootstrap redraws each group's rows)"
        fix = (
            f"leave `ci` at None for their values ({_either(_SCORE_COUNTS_CI)} alone take "
            "it: drawn from each group's per-score counts)"
        )
    else:
        return
    msg = (
        f"pl_metrics engines: disparity of {what} is not computed on the engines; "
        f"{fix}, or use the .metrics method on polars rows"
    )
    raise NotImplementedError(msg)


@dataclass
class _OnEngine:
    """:class:`fairness_rows.Values` from the engine's functions (``run(method, *args,
    **options)``, a polars frame): each score metric from its own method's function
    (``roc_auc``, ``log_loss``...: exact, the driver bounded as theirs is), the label
    metrics beside them from one merged ``counts`` state by every key; the groups'
    and strata's expressions (under their stand-in names) evaluated on the shards."""

    run: Callable[..., pl.DataFrame]
    cells: tuple[pl.LazyFrame, str | None, str | None] | None = None

    def __call__(
        self,
        g: fairness_rows.Groups,
        x: groups_fairness.Inputs,
        metrics: Sequence[str],
        keys: Sequence[str],
    ) -> pl.LazyFrame:
        labels = [m for m in metrics if groups_fairness.METRICS[m].method in _FROM_COUNTS]
        parts = []
        if labels:
            cells, weights, count = self._cells(g, x)
            of_cells = replace(x, weight=weights, count=count)
            parts.append(groups_fairness.evaluate(cells, labels, keys, of_cells))
        scored = [m for m in metrics if m not in labels]
        if scored:
            frame_of = partial(self._frame, g)
            parts.append(groups_fairness.evaluate(pl.LazyFrame(), scored, keys, x, frame_of))
        return groups_fairness.joined(parts, keys, metrics)

    def _frame(
        self,
        g: fairness_rows.Groups,
        method: str,
        *args: object,
        by: list[str] | None,
        **options: object,
    ) -> pl.LazyFrame:
        exprs = [g.exprs[k] for k in by or ()]
        return self.run(method, *args, by=exprs or None, **options).lazy()

    def score_counts(
        self, g: fairness_rows.Groups, x: groups_fairness.Inputs, keys: Sequence[str]
    ) -> scores.ScoreCounts:
        """The merged un-weighted ``score_counts`` state by ``keys`` (ROC AUC / AP's
        bootstrap: a row per segment and distinct score on the driver, as the engines'
        ``roc_auc(ci_method="bootstrap")``)."""
        by = [g.exprs[k] for k in keys] or None
        merged = self.run("score_counts", x.y_true, x.y_pred, by=by, pos_label=x.pos_label)
        return from_score_counts(merged, by=list(keys))._state

    def _cells(
        self, g: fairness_rows.Groups, x: groups_fairness.Inputs
    ) -> tuple[pl.LazyFrame, str | None, str | None]:
        if self.cells is None:
            keys = [*g.strata, *g.groups]
            by = [g.exprs[k] for k in keys] or None
            merged = self.run("counts", x.y_true, x.y_pred, by=by, weight=x.weight)
            self.cells = _cells(from_counts(merged, by=keys), x.y_true, x.y_pred, x.weight)
        return self.cells


def scored_disparity(
    run: Callable[..., pl.DataFrame], schema: pl.Schema, values: Mapping[str, Any]
) -> pl.DataFrame | None:
    """disparity of score metrics (None without one: the counts state's path): the
    frame method's body (:func:`fairness_rows.disparity_of`, ``schema`` its rows' schema)
    with each metric's values per group and per stratum from the engine's functions
    (:class:`_OnEngine`)."""
    if not _scored(values):
        return None
    out = fairness_rows.disparity_of(
        pl.LazyFrame(schema=schema),
        values["y_true"],
        values["y_pred"],
        by=values["by"],
        metric=values["metric"],
        control=values["control"],
        method=values["method"],
        pos_label=values["pos_label"],
        weight=values["weight"],
        zero_division=values["zero_division"],
        ci=values["ci"],
        n_boot=values["n_boot"],
        seed=values["seed"],
        values=_OnEngine(run),
    )
    return out.collect()


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
#: The methods computed from the engine's other functions where their arguments ask
#: (``f(run, schema, values)``; None: from their counts state), and what their
#: docstring says of it.
FROM_FUNCTIONS: dict[str, Callable[..., pl.DataFrame | None]] = {"disparity": scored_disparity}
FROM_FUNCTIONS_NOTE = (
    "On {engine}, the score metrics ("
    + ", ".join(f"``{m}``" for m in _SCORE_METRICS)
    + ") are each computed per group and per stratum by the {engine} function of their "
    "own method (the groups and strata evaluated on every partition), and the label "
    "metrics beside them from the merged counts state; ``ci`` with score metrics takes "
    f"one {_either(_SCORE_COUNTS_CI, '``')}, drawn from the merged per-score state (a "
    "row per group and distinct score on the driver); with other score metrics it is "
    "refused (the bootstrap redraws each group's rows), and so are callables."
)
