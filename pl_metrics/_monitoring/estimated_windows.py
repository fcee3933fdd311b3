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

Of ``{label: column}`` scores (multiclass CBPE) a window's rows are
``estimated_performance``'s multiclass table on them, read the same way
(:func:`pl_metrics._monitoring.estimated_multiclass.estimated_multiclass` with the
same spread of lists): ``estimated_<m>_<average>`` is its ``<m>`` on the ``average``
row (``micro``, ``macro``, ``weighted``: the names of ``over_time``'s realized
averages, ``f1_macro``), ``estimated_accuracy`` the segment's (the same on the three
average rows); the per-class rows are not windowed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import polars as pl

from pl_metrics._core import catalogue, checks, inputs
from pl_metrics._groups import over_time
from pl_metrics._monitoring import estimated, estimated_multiclass, segment_sums

PREFIX = "estimated_"
#: Of one score column (binary): ``estimated_<m>`` for each metric of
#: ``estimated_performance``.
BINARY: tuple[str, ...] = tuple(f"{PREFIX}{m}" for m in estimated.METRICS)
#: Of ``{label: column}`` scores: ``estimated_<m>_<average>`` -> (``m``, ``average``),
#: each metric's rows of the multiclass table but accuracy's (a segment's, named as
#: the binary one) and the micro ROC AUC's (none): metric by metric, the averages in
#: the table's order, as ``over_time``'s realized averages.
AVERAGED: dict[str, tuple[str, str]] = {
    f"{PREFIX}{m}_{a}": (m, a)
    for m in estimated.METRICS
    if not catalogue.CATALOGUE[m].correct_share
    for a in estimated_multiclass.AVERAGES
    if not (a == "micro" and catalogue.CATALOGUE[m].ranked is catalogue.Ranked.AUC)
}
#: The names ``over_time`` takes for them (``_typing.OverTimeEstimatedMetric``): the
#: binary ones, then the averages; ``estimated_accuracy`` is of either form.
METRICS: tuple[str, ...] = (*BINARY, *AVERAGED)
#: The accuracy's name: the one estimated metric of both forms of scores.
ACCURACY = next(f"{PREFIX}{m}" for m in estimated.METRICS if catalogue.CATALOGUE[m].correct_share)
#: ``estimated_accuracy`` of ``{label: column}`` scores: ``estimated_performance``'s
#: accuracy on the macro row (the segment's, the same on the three average rows).
_ACCURACY_ROW = (ACCURACY.removeprefix(PREFIX), "macro")
#: The metrics of one score column (binary: the score of ``pos_label``), which
#: ``{label: column}`` scores do not give: the estimated ones but accuracy, and
#: ``over_time``'s realized metrics of the score (``over_time`` and ``check`` refuse
#: them with the other form, ``forms.score_form``).
ONE_COLUMN: tuple[str, ...] = (*(m for m in BINARY if m != ACCURACY), *over_time.SCORED)
#: The realized metrics of the class ``pos_label`` (the catalogue's binary family),
#: which ``{label: column}`` scores (no ``pos_label``: a class per label) do not go with
#: -> the average over the classes to ask for instead (None: none; ``forms.score_form``).
OF_POS_LABEL: dict[str, str | None] = {
    m: f"{m}_macro" if f"{m}_macro" in over_time.AVERAGED else None
    for m in catalogue.names_of("binary")
}


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
    y_score: str | Mapping[object, str],
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
    the spread of the realized metric under labels drawn Bernoulli(p)); of
    ``{label: column}`` scores, :func:`class_windows`."""
    if isinstance(y_score, Mapping):
        return class_windows(
            lf, y_pred, y_score, keys=keys, w=w, index=index, metrics=metrics,
            reference=reference, y_true=y_true, weight=weight, calibration=calibration, ci=ci,
        )  # fmt: skip
    wanted = [m.removeprefix(PREFIX) for m in metrics if m in BINARY]
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


def class_windows(
    lf: pl.LazyFrame,
    y_pred: str,
    y_score: Mapping[object, str],
    *,
    keys: list[str],
    w: over_time.Windows,
    index: str,
    metrics: list[str],
    reference: object,
    y_true: str,
    weight: str | None,
    calibration: str | None,
    ci: float | None,
) -> list[pl.LazyFrame]:
    """The estimated metrics of ``{label: column}`` scores per window: the multiclass
    ``estimated_performance`` with the window's end as the last segment key (its lists
    spread as the binary path's, :func:`spread`), one long frame per metric from its
    average row (:data:`AVERAGED`; ``estimated_accuracy`` from the macro row, the
    segment's accuracy; intervals: the averages' own, labels drawn Categorical(p))."""
    asked = class_metrics(metrics)
    wanted = list(dict.fromkeys(m for m, _ in asked.values()))
    frame = estimated_multiclass.estimated_multiclass(
        lf,
        y_pred,
        y_score,
        reference=reference,
        y_true=None if calibration is None else y_true,
        by=keys,
        weight=weight,
        calibration=calibration,
        metrics=wanted,
        ci=ci,
        windows=spread(w),
    )
    # a null index: its own bucket (a segment with a null end), refused
    frame = over_time.null_index_check(frame, over_time.WINDOW_END, index).cache()
    return class_rows(frame, keys, asked, ci=ci)


def class_metrics(metrics: list[str]) -> dict[str, tuple[str, str]]:
    """Each estimated metric of ``{label: column}`` scores in ``metrics`` -> (its metric
    of ``estimated_performance``, the average row it is read from): :data:`AVERAGED`'s,
    and ``estimated_accuracy`` the macro row's (the segment's accuracy)."""
    return {m: _ACCURACY_ROW if m == ACCURACY else AVERAGED[m] for m in metrics}


def class_rows(
    frame: pl.LazyFrame, keys: list[str], asked: dict[str, tuple[str, str]], *, ci: float | None
) -> list[pl.LazyFrame]:
    """``over_time``'s long frame of each metric of ``asked`` (:func:`class_metrics`)
    from the multiclass table of each (segment, window) (``frame``; ``keys``: the
    segments' columns, then the window's end)."""
    average = pl.col(estimated_multiclass.AVERAGE)
    return [
        over_time.long_rows(frame.filter(average == a), keys[:-1], name, m, ci is not None)
        for name, (m, a) in asked.items()
    ]


__all__ = [
    "ACCURACY",
    "AVERAGED",
    "BINARY",
    "METRICS",
    "OF_POS_LABEL",
    "ONE_COLUMN",
    "PREFIX",
    "class_metrics",
    "class_rows",
    "class_windows",
    "estimated_windows",
    "spread",
]
