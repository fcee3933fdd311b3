"""Bootstrap replicates as weighted rows, for metrics of *several* segments at once.

A disparity (the largest gap between groups, a group against the overall
value) is a function of every group's metric in the same replicate, so its
interval needs the replicates themselves, not each group's interval.  A
replicate of a group is a multinomial (or, ``ci_method="poisson"``, Poisson)
redraw of its distinct ``(y_true, y_pred)`` rows (:mod:`pl_metrics._intervals.draws`:
the same seeding, so the same draws whatever the row order and the other groups).
The replicates are returned as rows ``*keys, REP, y_true, y_pred, COUNT``: a replicate *is* a
weighted frame, so every metric of a replicate is computed by the frame
method that computes the point estimate, with ``weight=COUNT`` (integer
weights are rows repeated: the registry checks it) — no formula is written a
second time, and the overall value of a replicate is the same method over
the union of its groups (the groups are resampled separately, as everywhere
in pl_metrics).

The cost is the number of distinct ``(segment, y_true, y_pred)`` cells times
``n_boot``; past :data:`MAX_ROWS` it is refused with what to do (fewer replicates or
segments; continuous scores have a cell per row: round them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from pl_metrics._core.names import INTERNAL
from pl_metrics._intervals import draws

if TYPE_CHECKING:
    import numpy as np

#: The replicate's number (0 .. n_boot - 1) and its rows' drawn count.
REP = f"{INTERNAL}rep"
COUNT = f"{INTERNAL}rep_count"
_ROW = f"{INTERNAL}cell"
#: The most replicate rows (cells x n_boot) drawn at once.
MAX_ROWS = 50_000_000


def too_many(
    cells: int,
    n_boot: int,
    columns: Sequence[str],
    *,
    scores: Sequence[str] | None = None,
    label_sets: bool = False,
    per_row: int = 1,
) -> ValueError:
    """The refusal of more than :data:`MAX_ROWS` replicate cells, with what to do.

    ``cells`` distinct (segment, ``columns``) rows, each ``per_row`` cells a replicate
    (the score bootstrap: a positive and a negative one).  ``scores``: the columns
    among ``columns`` that hold scores (continuous ones have a cell per row:
    rounding them helps, fewer segments would not); ``[]`` for labels only (a
    segment has few cells: the segments are many); None when unknown.
    ``label_sets``: ``columns`` are multilabel ``y_true`` and ``y_pred`` (a cell per
    distinct pair of label sets)."""
    fewer = "use fewer replicates (n_boot=) or fewer segments"
    if label_sets:
        shown = "y_true's label set, y_pred's label set"
        remedy = "use fewer replicates (n_boot=): each distinct pair of label sets is a cell"
    else:
        shown = ", ".join(map(repr, columns))
        if scores is None:
            remedy = f"{fewer}; a column of continuous scores has a cell per row: round it"
            remedy += " (e.g. pl.col(score).round(3))"
        elif scores:  # a cell a distinct score: fewer segments would not help
            remedy = f"round the scores (e.g. pl.col({scores[0]!r}).round(3)) or use fewer"
            remedy += " replicates (n_boot=)"
        else:
            remedy = fewer
    each = f" x {per_row} cells each" if per_row > 1 else ""
    return ValueError(
        f"the bootstrap needs {cells:,} distinct (segment, {shown}) rows{each} x "
        f"n_boot={n_boot} = {cells * per_row * n_boot:,} replicate cells, more than "
        f"{MAX_ROWS:,}: {remedy}"
    )


def replicates(
    lf: pl.LazyFrame,
    keys: Sequence[str],
    columns: Sequence[str],
    *,
    n_boot: int,
    seed: draws.Seed,
    scores: Sequence[str] | None = None,
    label_sets: bool = False,
) -> pl.LazyFrame:
    """``*keys, REP, *columns, COUNT``: ``n_boot`` redraws (multinomial, or Poisson with a
    Poisson ``seed``) of each segment's distinct ``columns`` rows (cells of count 0
    left out: a Poisson replicate without rows has none, and no metric).

    ``scores``, ``label_sets``: what the columns hold, for the refusal of too many
    cells (:func:`too_many`)."""
    keys, columns = list(keys), list(columns)
    cells = lf.group_by([*keys, *columns]).agg(pl.len().alias(COUNT))
    schema = cells.collect_schema()
    out_schema = pl.Schema(
        {k: schema[k] for k in keys}
        | {REP: pl.Int64}
        | {c: schema[c] for c in columns}
        | {COUNT: pl.Int64}
    )
    threads = pl.thread_pool_size()

    def reduce(
        chunk: draws.Chunk, blocks: draws.Blocks
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        import numpy as np

        # rows by segment, replicate, then cell: the whole chunk in a few gathers
        order = draws.replicate_rows(chunk, n_boot)
        cells = len(chunk.segment)
        cell = order % cells
        columns = {
            _ROW: chunk.cells[_ROW].to_numpy()[cell],
            REP: order // cells,
            COUNT: np.concatenate(list(blocks)).ravel()[order],
        }
        return chunk.segment[cell], columns

    def expand(df: pl.DataFrame) -> pl.DataFrame:
        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        if df.height * n_boot > MAX_ROWS:
            raise too_many(df.height, n_boot, columns, scores=scores, label_sets=label_sets)
        df = df.sort([*keys, *columns], nulls_last=True).with_row_index(_ROW)
        out = draws.per_chunk(
            df, keys, df[COUNT].to_numpy(), reduce, n_boot=n_boot, seed=seed, threads=threads
        )
        out = out.filter(pl.col(COUNT) > 0)
        rows = out[_ROW]
        return out.select(
            *keys, REP, *(df[c].gather(rows) for c in columns), pl.col(COUNT).cast(pl.Int64)
        )

    return cells.map_batches(expand, schema=out_schema)


def percentile_bounds(values: pl.Expr, ci: float) -> tuple[pl.Expr, pl.Expr]:
    """The percentile interval of a replicate column (linear, as ``np.percentile``),
    undefined replicates (null, NaN) skipped."""
    x = values.fill_nan(None).drop_nulls()
    tail = (1 - ci) / 2
    return x.quantile(tail, "linear"), x.quantile(1 - tail, "linear")


def p_value(diff: pl.Expr) -> pl.Expr:
    """Two-sided bootstrap p-value of ``diff == 0`` from a replicate column:
    ``min(1, 2 min((1 + #(d <= 0)) / (1 + B), (1 + #(d >= 0)) / (1 + B)))``, B the
    defined replicates (the add-one form never gives 0: Davison & Hinkley 1997, 4.4)."""
    d = diff.fill_nan(None).drop_nulls()
    b = d.len().cast(pl.Float64) + 1.0
    below = ((d <= 0).sum().cast(pl.Float64) + 1.0) / b
    above = ((d >= 0).sum().cast(pl.Float64) + 1.0) / b
    return pl.when(d.len() > 0).then(pl.min_horizontal(2.0 * pl.min_horizontal(below, above), 1.0))


__all__ = ["COUNT", "MAX_ROWS", "REP", "p_value", "percentile_bounds", "replicates"]
