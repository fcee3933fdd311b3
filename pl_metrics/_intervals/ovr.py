"""The bootstrap of one-vs-rest ROC AUCs of class scores (``{label: column}``).

A replicate redraws a segment's rows (a multinomial of its rows, or Poisson
counts, as every bootstrap of the library: :mod:`pl_metrics._intervals.draws`); on it, class k's
AUC is that of the binary problem "the row is of class k" scored by column k
(``replicates.roc_auc`` of the per-score counts in that column's order, ties
summed), the macro mean the mean of the classes' AUCs that are defined in the
replicate and the weighted mean their mean weighted by the replicate's rows of
each class (scikit-learn's ``roc_auc_score(multi_class="ovr")`` on the redrawn
rows).  The interval is the percentile interval of the replicates with a value.

numpy is imported inside the functions (``ci_method="bootstrap"`` needs it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics._core import names, scores
from pl_metrics._intervals import draws, replicates

if TYPE_CHECKING:
    import numpy as np

_CLASS = f"{names.INTERNAL}ovr_class"
_SCORES = f"{names.INTERNAL}ovr_score"
_LOW, _HIGH = "roc_auc_low", "roc_auc_high"


def class_counters(
    cls: np.ndarray, scores: list[np.ndarray], segment: np.ndarray | None = None
) -> list[Any]:
    """Per class k (``cls``: each row's class position, -1 another label; ``scores[k]``
    its scores; ``segment``: each row's segment, 0, 1, ... in order, None: one):
    ``(counts, starts)``, ``counts(block)`` a block of redrawn rows (replicate x
    row) as the class's per-score positives and negatives, each segment's scores
    descending (ties summed), segments side by side from ``starts``."""
    return [draws.score_counts_of_block(cls == k, score, segment) for k, score in enumerate(scores)]


def auc_replicates(counters: list[Any], block: np.ndarray, average: str | None) -> np.ndarray:
    """Each replicate's (row of ``block``'s) AUC per segment and class (``average=None``:
    replicate x segment x class), or its macro / weighted mean over the classes
    with an AUC (replicate x segment; NaN without one)."""
    import numpy as np

    aucs, support = [], []
    for count, starts in counters:
        pos, neg = count(block)
        aucs.append(replicates.roc_auc(pos, neg, starts))
        support.append(np.add.reduceat(pos, starts, axis=1).astype(np.float64))
    auc, rows_of = np.stack(aucs, axis=-1), np.stack(support, axis=-1)
    if average is None:
        return auc
    defined = ~np.isnan(auc)
    weight = defined * (rows_of if average == "weighted" else 1.0)
    total = weight.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (np.where(defined, auc, 0.0) * weight).sum(axis=-1) / total
    return np.where(total > 0, value, np.nan)


def bootstrap(
    read: scores.RankingInput,
    *,
    average: str | None,
    ci: float,
    n_boot: int,
    seed: draws.Seed,
) -> pl.LazyFrame:
    """``*by, [label,] roc_auc_low, roc_auc_high``: the bootstrap interval of each
    class's one-vs-rest AUC (``average=None``: ``label`` the class's position in
    ``y_score``) or of their macro / weighted mean (un-weighted rows; the input
    resolved and checked by the point estimate's plan,
    :func:`pl_metrics._core.scores.classes_input`)."""
    assert read.classes is not None, "{label: column} scores"
    segments, y_true = read.given.segments, read.y_true
    dtype = read.schema[y_true]
    keys = names.segment_keys(segments) if segments else [names.ALL]
    # the rows with their segment keys (un-weighted: none dropped)
    rows = read.rows if segments else read.rows.with_columns(pl.lit(True).alias(names.ALL))
    classes = list(read.classes)
    # the row's class as its position in y_score (-1: another label); the scores as
    # compared by the point estimate (-0.0 is 0.0)
    position = pl.lit(-1, pl.Int64)
    for i, value in reversed(list(enumerate(classes))):
        position = pl.when(pl.col(y_true) == pl.lit(value, dtype)).then(i).otherwise(position)
    scores = [
        (pl.col(c).cast(pl.Float64) + 0.0).alias(f"{_SCORES}{i}") for i, c in enumerate(read.scores)
    ]
    selected = rows.select(*keys, position.alias(_CLASS), *scores)
    per_class = average is None
    out_schema = pl.Schema(
        {k: selected.collect_schema()[k] for k in keys}
        | ({"label": pl.Int64} if per_class else {})
        | {_LOW: pl.Float64, _HIGH: pl.Float64}
    )
    threads = pl.thread_pool_size()

    def reduce(
        chunk: draws.Chunk, blocks: draws.Blocks
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        import numpy as np

        cls = chunk.cells[_CLASS].to_numpy()
        scores = [chunk.cells[f"{_SCORES}{k}"].to_numpy() for k in range(len(classes))]
        counters = class_counters(cls, scores, chunk.segment)

        def reduced(block: np.ndarray) -> np.ndarray:
            return np.concatenate(
                draws.in_cache(lambda r: auc_replicates(counters, r, average), block)
            )

        values = np.concatenate(blocks.map(reduced))
        low, high = replicates.percentiles(values, ci)  # segment (x class)
        columns: dict[str, np.ndarray] = {_LOW: low.ravel(), _HIGH: high.ravel()}
        rows = np.arange(chunk.size)
        if per_class:
            columns["label"] = np.tile(np.arange(len(classes)), chunk.size)
            rows = np.repeat(rows, len(classes))
        return rows, columns

    def run(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np

        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        # the rows in an order of their values (a seed gives the same interval whatever
        # the input's order; equal rows are interchangeable)
        order = [*keys, _CLASS, *(f"{_SCORES}{k}" for k in range(len(classes)))]
        df = df.sort(order, nulls_last=True)
        counts = np.ones(df.height, dtype=np.int64)  # every row a cell
        out = draws.per_chunk(df, keys, counts, reduce, n_boot=n_boot, seed=seed, threads=threads)
        return out.select(list(out_schema)).cast(dict(out_schema))

    result = selected.map_batches(run, schema=out_schema)
    result = result.with_columns(pl.col(_LOW, _HIGH).fill_nan(None))
    return names.restore_keys(result, segments.names)


def attach(
    point: pl.LazyFrame, bounds: pl.LazyFrame, *, by: list[str], labels: list[object]
) -> pl.LazyFrame:
    """The point estimate with its bootstrap bounds (per class: joined on the class,
    ``bounds``' ``label`` being the class's position in ``labels``)."""
    on = list(by)
    if "label" in point.collect_schema():
        dtype = point.collect_schema()["label"]
        bounds = bounds.with_columns(
            pl.col("label").replace_strict(
                list(range(len(labels))), pl.Series(labels).cast(dtype), return_dtype=dtype
            )
        )
        on.append("label")
    if not on:
        return pl.concat([point, bounds], how="horizontal")
    return point.join(bounds, on=on, how="left", nulls_equal=True, maintain_order="left")


__all__ = ["attach", "bootstrap", "class_counters", "replicates"]
