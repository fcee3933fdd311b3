"""The exact ROC AUC and average precision of un-weighted multilabel scores per label
on the engines, with the driver's memory bounded (:func:`exact`).

Each label's values are its own binary problem (its truth against its score
column), so they come from partitions of that column's score ranges (:mod:`.ranked`,
``Engine.rank``), as the one-vs-rest classes of :mod:`.classes` do: a first job makes
:func:`.label_scores.label_totals` (every data check of the frame method on all rows,
each label's positives per segment), then one ranked job per label with positives
(:func:`.label_scores.label_scores`: the label's per-score state, checked with all
the row's scores); the driver holds partitions x segments rows per label and the
totals (segments x labels), never the rows.  The values are joined to the totals'
segments and labels (a label without positives: a null AUC, an AP of 0.0, as the
frame method) and averaged by the frame method's ``label_mean``.

Weights and the partial AUC (``max_fpr``) are finished from the merged per-label
state (:class:`.label_scores.LabelScores`), as for a score column.  What would bring
a row per distinct score to the driver is refused before any job: un-weighted
``average="micro"`` (every label's scores ranked together) and a List column of
scores (no column of each label's scores to partition the rows by).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import polars as pl

from pl_metrics._core import catalogue, checks, names
from pl_metrics._core.labels import label_value
from pl_metrics._core.names import POS
from pl_metrics._engines import jobs
from pl_metrics._engines.label_scores import LABEL, internal
from pl_metrics._multilabel import inputs, ranking
from pl_metrics._multilabel.ranking_rows import J, ranking_rows


def refused(method: str, what: str, why: str) -> NotImplementedError:
    """The error of an option the engines do not compute with the driver bounded."""
    return NotImplementedError(
        f"pl_metrics engines: {method} of multilabel input with {what} is not computed "
        f"on the engines yet ({why}); use the .metrics method on polars rows"
    )


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
    """``method`` (``roc_auc``, ``average_precision``) of un-weighted multilabel
    scores per label or their macro / weighted mean, from partitions of each label's
    score ranges (``ranking``: one ranked job); None where the merged state finishes
    it (weights, ``max_fpr``)."""
    average = finisher.get("average")
    by, weight, labels = state_kw.get("by"), state_kw.get("weight"), state_kw.get("labels")
    if weight is not None or finisher.get("max_fpr") is not None:
        return None
    y_true, y_score = args
    unbounded = "the merged state would bring a row per distinct score to the driver"
    if average == "micro":
        why = f"it ranks every label's scores together: {unbounded}"
        raise refused(method, "average='micro' (un-weighted rows)", why)
    if not isinstance(y_score, Mapping):
        why = (
            "the rows are partitioned by each label's score column: give `y_score` as "
            f"{{label: column}}; {unbounded}"
        )
        raise refused(method, "a List column of scores (un-weighted rows)", why)
    chunk = engine.chunk_rows()
    totals_job = jobs.job("label_totals", args, by=by, weight=None, labels=labels, chunk_rows=chunk)
    totals = engine.run(handle, totals_job, schema, **options)
    segments = checks.by_names(by)
    read = jobs.read_columns([y_true, y_score, *checks.normalize_by(by).given])
    held = totals.group_by(J).agg(pl.col(POS).sum())
    parts = []
    for index, column in enumerate(_columns(schema, y_true, y_score, labels)):
        if not held.filter(pl.col(J) == index)[POS].sum():  # a label true in no row
            continue
        job = jobs.job(
            "label_scores",
            (y_true, column),
            by=by,
            weight=None,
            y_score=y_score,
            index=index,
            labels=labels,
            chunk_rows=chunk,
        )
        job = replace(job, ranked=True, columns=read)
        value = ranking(engine, method, handle, job, schema, options=options)
        parts.append(value.with_columns(pl.lit(index, pl.Int64).alias(J)))
    return _averaged(totals, parts, segments, method, average)


def _columns(
    schema: pl.Schema, y_true: Any, y_score: Mapping[object, str], labels: object
) -> list[str]:
    """The score column of each label, in the frame method's label order (``J``)."""
    rows = ranking_rows(
        pl.LazyFrame(schema=schema), y_true, y_score, labels=labels, by=None, weight=None,
        reserved=(),
    )  # fmt: skip
    dtype = rows.labels.dtype
    column = y_true if isinstance(y_true, str) else "y_true"
    by_label = {label_value(k, dtype, "y_score", column): c for k, c in y_score.items()}
    return [by_label[label] for label in rows.labels.to_list()]


def _averaged(
    totals: pl.DataFrame,
    parts: list[pl.DataFrame],
    segments: list[str],
    metric: str,
    average: str | None,
) -> pl.DataFrame:
    """``*by, [label,] metric``: the labels' values joined to every (segment, label)
    with rows (null where none was ranked), averaged as the frame method does."""
    keys = [*segments, J]
    grid = totals.select(*keys, POS)
    values = (
        pl.concat(parts, how="vertical_relaxed").select(*keys, metric)
        if parts
        else grid.select(*keys).clear().with_columns(pl.lit(None, pl.Float64).alias(metric))
    )
    values = values.with_columns(pl.col(c).cast(grid.schema[c]) for c in keys)
    per_label = grid.join(values, on=keys, how="left", nulls_equal=True, maintain_order="left")
    if (
        catalogue.CATALOGUE[metric].ranked is catalogue.Ranked.AP
    ):  # no positives: 0.0, as scikit-learn
        per_label = per_label.with_columns(pl.col(metric).fill_null(0.0))
    frame = internal(per_label.lazy(), segments)
    inner = names.segment_keys(segments)
    support = frame.select(*inner, J, pl.col(POS).cast(pl.Float64))
    label_frame = totals.lazy().select(J, pl.col(LABEL).alias(inputs.LABEL)).unique(J)
    result = ranking.label_mean(
        frame.select(*inner, J, metric), support, inner, metric, average, label_frame
    )
    return names.restore_keys(result, segments).collect()
