"""Single-label losses of a merged confusion-counts state on the engines.

``hamming_loss`` and ``zero_one_loss`` of single-label rows are functions of the
confusion counts: the (weighted) rows off the diagonal, over the rows (or their
number, ``zero_one_loss(normalize=False)``).  Each finisher is the frame method's own
computation (``_multilabel.metrics.label_hamming_loss`` / ``label_zero_one_loss``) on
the merged counts; the engines declare them beside the counts state's own finishers
(:mod:`.declared`), and multilabel input keeps the multilabel state's.

The exact one-vs-rest ROC AUC and average precision of un-weighted ``{label: column}``
scores (:func:`exact`) are each class's binary problem (its column's scores, its rows
the positives) computed from partitions of that column's score ranges
(:mod:`.ranked`, ``Engine.rank``): a first job makes :func:`.class_scores.class_totals`
(every data check of the frame method on all rows, each class's positives per
segment), then one ranked binary job per class with positives; the driver holds
partitions x segments rows per class and the totals (segments x classes x labels),
never the rows.  The per-class values are joined to the totals' segments and classes
(a class without positives: a null AUC, an AP of 0.0, as the frame method) and
averaged by ``_ranking.from_counts.class_mean``, the frame method's mean.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from pl_metrics._core import catalogue, checks
from pl_metrics._core.labels import label_value
from pl_metrics._core.names import INTERNAL
from pl_metrics._core.options import checked
from pl_metrics._core.scores import CLASS, N_ROWS, TRUE
from pl_metrics._engines import class_scores, jobs
from pl_metrics._multilabel import metrics as multilabel_metrics
from pl_metrics._ranking.from_counts import class_mean
from pl_metrics.state import CountsState


def hamming_loss(state: CountsState[pl.DataFrame]) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.hamming_loss` of single-label rows, of a merged
    confusion-counts state: 1 - accuracy."""
    return multilabel_metrics.label_hamming_loss(state._counts(None, "hamming_loss"))


def zero_one_loss(state: CountsState[pl.DataFrame], *, normalize: bool = True) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.zero_one_loss` of single-label rows, of a merged
    confusion-counts state: the share (or number, ``normalize=False``) of rows
    predicted wrong."""
    (normalize,) = checked("zero_one_loss", normalize=normalize)
    counts = state._counts(None, "zero_one_loss")
    return multilabel_metrics.label_zero_one_loss(counts, normalize=normalize)


#: The finishers above, by the frame method they equal.
COUNTS_FINISHERS: dict[str, Callable[..., Any]] = {
    f.__name__: f for f in (hamming_loss, zero_one_loss)
}


# ------------------------------------------------------------------ exact one-vs-rest
#: The statistics partitions of score ranges compute (``declared._exact_ranking``).
_RANKED = (catalogue.Ranked.AUC, catalogue.Ranked.AP)
_POSITIVES = f"{INTERNAL}positives"
_ONE = f"{INTERNAL}one_segment"


def exact(  # noqa: PLR0917 - the engine call's parts, in order
    engine: Any,
    method: str,
    handle: Any,
    schema: pl.Schema,
    args: tuple[Any, ...],
    state_kw: dict[str, Any],
    finisher: dict[str, Any],
    options: dict[str, Any],
    ranking: Callable[..., pl.DataFrame],
) -> pl.DataFrame | None:
    """``method`` (``roc_auc``, ``gini``, ``average_precision``) of un-weighted
    ``{label: column}`` scores without an interval, one-vs-rest, from partitions of
    each class's score ranges (``ranking``: one binary ranked job); None where the
    merged state finishes it (weights, DeLong's per-class interval, the curves, a
    ``by`` taking gini's base name).  The intervals the merged state cannot give,
    and the un-weighted averages that rank several columns' scores together
    (``micro``, one-vs-one), are refused here, before any job."""
    average, ci = finisher.get("average"), finisher.get("ci")
    class_scores.check_interval(method, average, ci, finisher.get("ci_method", "delong"))
    base = catalogue.base_of(method)
    by, weight = state_kw.get("by"), state_kw.get("weight")
    segments = checks.by_names(by)
    statistic = catalogue.CATALOGUE[base].ranked if base in catalogue.CATALOGUE else None
    if statistic not in _RANKED or weight is not None or ci is not None:
        return None
    if base != method and base in segments:  # gini by a column named roc_auc
        return None
    unbounded = "the merged state would bring a row per distinct score to the driver"
    if finisher.get("multi_class", "ovr") == "ovo":
        why = f"each pair of classes is ranked on its own rows: {unbounded}"
        raise class_scores.refused(method, "multi_class='ovo' (un-weighted rows)", why)
    if average == "micro":
        why = f"it ranks every class's scores together: {unbounded}"
        raise class_scores.refused(method, "average='micro' (un-weighted rows)", why)
    totals_job = jobs.job("class_totals", args, by=by, weight=None, chunk_rows=engine.chunk_rows())
    totals = engine.run(handle, totals_job, schema, **options)
    per_class = _per_class(engine, base, handle, schema, args, by, totals, options, ranking)
    if statistic is catalogue.Ranked.AP:  # a class without positives: 0.0, as scikit-learn
        per_class = per_class.with_columns(pl.col(base).fill_null(0.0))
    result = _averaged(per_class, segments, base, average)
    return catalogue.derive(result.lazy(), method).collect() if base != method else result


def _per_class(  # noqa: PLR0917 - the engine call's parts, in order
    engine: Any,
    metric: str,
    handle: Any,
    schema: pl.Schema,
    args: tuple[Any, ...],
    by: object,
    totals: pl.DataFrame,
    options: dict[str, Any],
    ranking: Callable[..., pl.DataFrame],
) -> pl.DataFrame:
    """``*by, CLASS, POSITIVES, metric``: each class's value in each segment with rows,
    from one ranked binary job per class with positives (positives: the rows of the
    class, ``pos_label``); null for a class without any."""
    y_true, y_score = args
    segments = checks.by_names(by)
    keys = [*segments, CLASS]
    is_class = pl.col(TRUE) == pl.col(CLASS)
    grid = totals.group_by(keys, maintain_order=True).agg(
        pl.col(N_ROWS).filter(is_class).sum().alias(_POSITIVES)
    )
    class_dtype = grid.schema[CLASS]
    positives = grid.group_by(CLASS).agg(pl.col(_POSITIVES).sum())
    parts = []
    for key, column in _classes(y_score, schema[y_true], y_true):
        held = positives.filter(pl.col(CLASS) == pl.lit(key, class_dtype))[_POSITIVES].sum()
        if not held:  # no row of the class: nothing to rank (a null AUC, an AP of 0.0)
            continue
        job = jobs.job(
            "score_counts",
            (y_true, column),
            by=by,
            weight=None,
            pos_label=key,
            bins=None,
            chunk_rows=engine.chunk_rows(),
        )
        value = ranking(engine, metric, handle, replace(job, ranked=True), schema, options=options)
        parts.append(value.with_columns(pl.lit(key).cast(class_dtype).alias(CLASS)))
    values = (
        pl.concat(parts, how="vertical_relaxed").select(*keys, metric)
        if parts
        else grid.select(*keys).clear().with_columns(pl.lit(None, pl.Float64).alias(metric))
    )
    values = values.with_columns(pl.col(c).cast(grid.schema[c]) for c in keys)
    return grid.join(values, on=keys, how="left", nulls_equal=True, maintain_order="left")


def _classes(
    y_score: Mapping[object, str], dtype: pl.DataType, y_true: str
) -> list[tuple[object, str]]:
    """Each class as a label of ``y_true`` (the frame method's conversion) and its column."""
    return [(label_value(k, dtype, "y_score", y_true), c) for k, c in y_score.items()]


def _averaged(
    per_class: pl.DataFrame, segments: Sequence[str], metric: str, average: str | None
) -> pl.DataFrame:
    """``*by, label, metric`` (``average=None``) or ``*by, metric``: the macro or the
    positives-weighted mean of the classes with a value (the frame method's)."""
    if average is None:
        out = per_class.select(*segments, pl.col(CLASS).alias("label"), metric)
        return out.sort([*segments, "label"], nulls_last=True, maintain_order=True)
    keys = list(segments) or [_ONE]
    frame = per_class.with_columns(pl.lit(0, pl.Int8).alias(_ONE)) if not segments else per_class
    mean = class_mean(frame.lazy(), keys, metric, pl.col(_POSITIVES), average).collect()
    return mean.drop(_ONE) if not segments else mean
