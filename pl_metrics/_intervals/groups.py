"""Bootstrap replicates of a metric per group *and* per stratum, reduced in numpy.

A disparity needs, in every replicate, each group's metric and the overall
value of its stratum (the union of the stratum's groups, resampled separately:
the overall counts of a replicate are the sum of its groups' drawn counts).
Each group's cells are redrawn with the seeding of
:mod:`pl_metrics._intervals.draws` (by the group's key); for the label metrics
they are also the same cells in the same order, so a group's replicates are
those of its own method's interval (``summary(ci=)``, ``averages(ci=)``; the
ranking intervals merge runs of scores first, so their draws differ), and the
metric of every replicate is computed
from the drawn counts by the replicate formulas of
:mod:`pl_metrics._intervals.replicates` and :mod:`pl_metrics._core.formulas`:
no frame with a row per replicate and cell is built.

Labels: a group's replicate keeps the group's classes (those seen in its
rows), as every bootstrap of pl_metrics; the stratum's the union of its
groups'.  Scores (ROC AUC, AP): a stratum's replicate sums its groups' drawn
counts per distinct score of the stratum.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics._core import catalogue, formulas
from pl_metrics._core.names import ACTUAL, COUNT, INTERNAL, NEG, POS, PREDICTED, SCORE
from pl_metrics._intervals import draws, replicates, resample

if TYPE_CHECKING:
    import numpy as np

#: The metrics of the summary and averages frames, by name, from per-class counts.
_AVERAGES = {
    name: (m.row[1], m.column)
    for name, m in catalogue.CATALOGUE.items()
    if m.family == "averaged" and m.row is not None
}
SUMMARY = draws.LABEL_METRICS["summary"]
#: The ranking metrics' replicates (the statistic of ``Metric.ranked``; not derived).
SCORE_METRICS = {
    name: {
        catalogue.Ranked.AUC: replicates.roc_auc,
        catalogue.Ranked.AP: replicates.average_precision,
    }[m.ranked]
    for name, m in catalogue.CATALOGUE.items()
    if m.derived is None and m.ranked in {catalogue.Ranked.AUC, catalogue.Ranked.AP}
}


def label_metric_values(
    metrics: Sequence[str],
    binary: Callable[[str, dict[str, Any]], Any],
    counts: tuple[np.ndarray, np.ndarray, np.ndarray],
    seen: np.ndarray,
    *,
    pos: int,
    zero_division: float,
) -> dict[str, np.ndarray]:
    """Each metric (replicate x member) of the members' replicate counts ``(tp, support,
    predicted)`` (replicate x member x class; ``seen`` (member x class) their classes):
    summary and averages over the seen classes, binary metrics (``binary(name,
    counts)``) of class ``pos``.  Members with as many seen classes are reduced
    together (replicate x member x seen class)."""
    import numpy as np

    tp, support = counts[:2]
    n_rep, n_members = tp.shape[:2]
    out = {m: np.full((n_rep, n_members), np.nan) for m in metrics}
    if any(m in SUMMARY or m in _AVERAGES for m in metrics):
        sizes = seen.sum(axis=1)
        for size in np.unique(sizes):
            members = np.flatnonzero(sizes == size)
            if size == seen.shape[1]:  # every class seen: no gather (no copy if all members)
                every = len(members) == n_members
                t, s, p = (x if every else x[:, members] for x in counts)
            else:  # each member's seen classes, ascending (member x seen class)
                at = np.nonzero(seen[members])[1].reshape(len(members), int(size))
                t, s, p = (np.take_along_axis(x[:, members], at[None], axis=2) for x in counts)
            summary = replicates.summary(t, s, p, [m for m in metrics if m in SUMMARY])
            averages = (
                replicates.averages(t, s, p, beta=1.0, zero_division=zero_division)
                if any(m in _AVERAGES for m in metrics)
                else {}
            )
            for m in metrics:
                if m in SUMMARY:
                    out[m][:, members] = summary[m]
                elif m in _AVERAGES:
                    average, score = _AVERAGES[m]
                    out[m][:, members] = averages[average][formulas.score_key(score)]
    binary_metrics = [m for m in metrics if m not in SUMMARY and m not in _AVERAGES]
    if binary_metrics:
        zeros = np.zeros((n_rep, n_members))
        tp_, support_, predicted_ = (x[:, :, pos] if pos >= 0 else zeros for x in counts)
        n = support.sum(axis=2)
        binary_counts = {"tp": tp_, "fp": predicted_ - tp_, "fn": support_ - tp_}
        binary_counts["tn"] = n - tp_ - binary_counts["fp"] - binary_counts["fn"]
        for m in binary_metrics:
            out[m] = np.asarray(binary(m, binary_counts), dtype=np.float64)
    return out


def overall_column(metric: str) -> str:
    """The column of a replicate's overall value (of the group's stratum) of ``metric``."""
    return f"{INTERNAL}overall_{metric}"


def label_replicates(
    cells: pl.LazyFrame,
    strata: Sequence[str],
    groups: Sequence[str],
    metrics: Sequence[str],
    *,
    binary: Callable[[str, dict[str, Any]], Any],
    columns: tuple[str, str],
    pos_label: object,
    zero_division: float,
    n_boot: int,
    seed: draws.Seed,
) -> pl.LazyFrame:
    """Replicates of label metrics from the confusion cells ``*strata, *groups, ACTUAL,
    PREDICTED, COUNT`` (un-weighted): ``*strata, *groups, REP, *metrics`` and each
    metric's overall value of the replicate of the group's stratum (``overall_column``)."""
    strata, keys = list(strata), [*strata, *groups]
    schema = cells.collect_schema()
    threads = pl.thread_pool_size()  # read outside the query (inside a streaming one: 1)
    out_schema = pl.Schema(
        {k: schema[k] for k in keys}
        | {resample.REP: pl.Int64}
        | dict.fromkeys(metrics, pl.Float64)
        | dict.fromkeys(map(overall_column, metrics), pl.Float64)
    )

    def run(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np

        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        if df.height * n_boot > resample.MAX_ROWS:
            raise resample.too_many(df.height, n_boot, columns, scores=[])
        df = df.sort([*keys, ACTUAL, PREDICTED], nulls_last=True)
        classes = pl.concat([df[ACTUAL], df[PREDICTED]]).unique().sort()
        k = len(classes)
        a = classes.search_sorted(df[ACTUAL]).to_numpy()
        p = classes.search_sorted(df[PREDICTED]).to_numpy()
        found = (classes == pos_label).arg_true() if pos_label is not None else []
        pos = int(found[0]) if len(found) else -1
        counts = df[COUNT].to_numpy().astype(np.int64)
        starts, segment_keys = draws._starts(df, keys)
        n_segments = len(segment_keys)
        segment_of = np.repeat(np.arange(n_segments), np.diff(starts))
        seen = np.zeros((n_segments, k), dtype=bool)  # each segment's classes
        seen[segment_of, a] = seen[segment_of, p] = True
        # each segment's stratum: 0, 1, ... (segments are sorted by stratum)
        stratum_of = np.zeros(n_segments, dtype=np.int64)
        if strata:
            stratum_of = df.select(pl.struct(strata).rle_id())[:, 0].to_numpy()[starts[:-1]]
        n_strata = int(stratum_of.max()) + 1
        opts = {"pos": pos, "zero_division": zero_division}
        sums: list[tuple[np.ndarray, list[np.ndarray]]] = []  # (strata, tp / support / predicted)

        def work(lo: int, hi: int, blocks: draws.Blocks) -> tuple[np.ndarray, dict]:
            # the chunk's segments side by side, each with the k class slots
            cells = slice(int(starts[lo]), int(starts[hi]))
            local = segment_of[cells] - lo
            width = (hi - lo) * k
            count = draws.class_counter(
                a[cells],
                p[cells],
                local * k,
                local,
                width,
                restrict=False,
                fixed_total=blocks.fixed_total,
            )
            tp, support, predicted, n = (
                np.concatenate(x) for x in zip(*blocks.map(count), strict=True)
            )
            shape = (len(tp), hi - lo, k)
            drawn = (
                tp.reshape(shape).astype(np.float64),
                support.reshape(shape),
                predicted.reshape(shape),
            )
            values = label_metric_values(metrics, binary, drawn, seen[lo:hi], **opts)
            values = {m: draws.defined(x, blocks, n) for m, x in values.items()}
            # the chunk's sums per stratum (integers: exact in any order)
            own = stratum_of[lo:hi]
            runs = np.flatnonzero(np.r_[True, own[1:] != own[:-1]])
            sums.append((own[runs], [np.add.reduceat(x, runs, axis=1) for x in drawn]))
            return np.arange(lo, hi), {m: values[m].T for m in metrics}  # segment x replicate

        segment, values = draws.redraw(
            counts, starts, segment_keys, work, n_boot=n_boot, seed=seed, threads=threads
        )
        total = [np.zeros((n_boot, n_strata, k)) for _ in range(3)]
        for own, parts in sums:
            for j in range(3):
                total[j][:, own] += parts[j]
        seen_all = np.zeros((n_strata, k), dtype=bool)
        np.logical_or.at(seen_all, stratum_of, seen)
        overall = {  # a stratum's rows: its support; none (a Poisson replicate's): undefined
            m: replicates.undefined_without_rows(x, total[1].sum(axis=-1))
            for m, x in label_metric_values(metrics, binary, tuple(total), seen_all, **opts).items()
        }
        stratum = stratum_of[segment]
        out = df.select(keys)[np.repeat(starts[segment], n_boot)].with_columns(
            pl.Series(resample.REP, np.tile(np.arange(n_boot, dtype=np.int64), len(segment))),
            *(pl.Series(m, values[m].ravel(), pl.Float64) for m in metrics),
            *(
                pl.Series(overall_column(m), overall[m][:, stratum].T.ravel(), pl.Float64)
                for m in metrics
            ),
        )
        return out.select(list(out_schema)).cast(dict(out_schema))

    return cells.map_batches(run, schema=out_schema)


def _segment_cells(
    df: pl.DataFrame, starts: np.ndarray, segment_of: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The draws' cells of the per-score counts ``df`` (segments from ``starts``): each
    segment's positives, then its negatives; their counts, and each score's
    positive and negative cell."""
    import numpy as np

    size = np.diff(starts)[segment_of]  # each score's segment's scores
    place = np.arange(df.height) - starts[segment_of]  # the score's place in its segment
    pos_cell = 2 * starts[segment_of] + place
    neg_cell = pos_cell + size
    counts = np.empty(2 * df.height, dtype=np.int64)
    counts[pos_cell], counts[neg_cell] = df[POS].to_numpy(), df[NEG].to_numpy()
    return counts, pos_cell, neg_cell


def _levels(score: np.ndarray, stratum: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each score's level, its place among its stratum's distinct scores (descending),
    strata side by side, and each stratum's first level."""
    import numpy as np

    order = np.lexsort((-score, stratum))
    new_stratum = np.r_[True, stratum[order][1:] != stratum[order][:-1]]
    new = new_stratum | np.r_[True, score[order][1:] != score[order][:-1]]
    rank = np.cumsum(new) - 1
    level = np.empty(len(score), dtype=np.int64)
    level[order] = rank
    return level, rank[new_stratum]


def score_replicates(
    cells: pl.LazyFrame,
    strata: Sequence[str],
    groups: Sequence[str],
    metric: str,
    *,
    column: str,
    n_boot: int,
    seed: draws.Seed,
) -> pl.LazyFrame:
    """Replicates of ROC AUC or AP from the per-score counts ``*strata, *groups, SCORE,
    POS, NEG``: ``*strata, *groups, REP, metric`` and the stratum's (``overall_column``)."""
    strata, keys = list(strata), [*strata, *groups]
    compute = SCORE_METRICS[metric]
    schema = cells.collect_schema()
    threads = pl.thread_pool_size()  # read outside the query (inside a streaming one: 1)
    out_schema = pl.Schema(
        {k: schema[k] for k in keys}
        | {resample.REP: pl.Int64, metric: pl.Float64, overall_column(metric): pl.Float64}
    )

    def run(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np

        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        if 2 * df.height * n_boot > resample.MAX_ROWS:
            raise resample.too_many(df.height, n_boot, [column], scores=[column], per_row=2)
        df = draws.sorted_by_score(df, keys)
        score = df[SCORE].to_numpy()
        starts, segment_keys = draws._starts(df, keys)
        n_segments = len(segment_keys)
        segment_of = np.repeat(np.arange(n_segments), np.diff(starts))
        stratum_of = np.zeros(n_segments, dtype=np.int64)
        if strata:  # each segment's stratum: 0, 1, ... (segments are sorted by stratum)
            stratum_of = df.select(pl.struct(strata).rle_id())[:, 0].to_numpy()[starts[:-1]]
        level, stratum_starts = _levels(score, stratum_of[segment_of])
        cell_starts = 2 * starts
        counts, pos_cell, neg_cell = _segment_cells(df, starts, segment_of)
        sums: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (levels, pos, neg)

        def work(lo: int, hi: int, blocks: draws.Blocks) -> tuple[np.ndarray, dict]:
            rows = slice(int(starts[lo]), int(starts[hi]))
            first = int(cell_starts[lo])
            pos_at, neg_at = pos_cell[rows] - first, neg_cell[rows] - first
            local_starts = starts[lo:hi] - starts[lo]
            levels, inverse = np.unique(level[rows], return_inverse=True)
            by_level = draws.grouper(inverse.ravel(), len(levels))

            def reduced(block: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
                pos_d, neg_d = draws.take_columns(block, pos_at), draws.take_columns(block, neg_at)
                value = draws.defined(  # replicate x segment; a Poisson one without rows: NaN
                    compute(pos_d, neg_d, local_starts),
                    blocks,
                    lambda: np.add.reduceat(block, cell_starts[lo:hi] - first, axis=1),
                )
                return value, by_level(pos_d), by_level(neg_d)

            # a large segment's blocks on the threads, as the intervals' (Blocks.map)
            values, pos_sums, neg_sums = zip(*blocks.map(reduced), strict=True)
            sums.append((levels, np.concatenate(pos_sums), np.concatenate(neg_sums)))
            return np.arange(lo, hi), {metric: np.concatenate(values).T}  # segment x replicate

        segment, columns = draws.redraw(
            counts, cell_starts, segment_keys, work, n_boot=n_boot, seed=seed, threads=threads
        )
        total_pos = np.zeros((n_boot, int(level.max()) + 1), dtype=np.int64)
        total_neg = np.zeros_like(total_pos)
        for levels, pos_sums, neg_sums in sums:  # integers: exact in any order
            total_pos[:, levels] += pos_sums
            total_neg[:, levels] += neg_sums
        overall = replicates.undefined_without_rows(  # replicate x stratum; no rows: undefined
            compute(total_pos, total_neg, stratum_starts),
            np.add.reduceat(total_pos + total_neg, stratum_starts, axis=1),
        )
        out = df.select(keys)[np.repeat(starts[segment], n_boot)].with_columns(
            pl.Series(resample.REP, np.tile(np.arange(n_boot, dtype=np.int64), len(segment))),
            pl.Series(metric, columns[metric].ravel(), pl.Float64),
            pl.Series(
                overall_column(metric), overall[:, stratum_of[segment]].T.ravel(), pl.Float64
            ),
        )
        return out.select(list(out_schema)).cast(dict(out_schema))

    return cells.map_batches(run, schema=out_schema)


def binary_numpy(name: str, counts: dict[str, Any], zero_division: float) -> Any:
    """A binary metric of numpy counts (``formulas.binary_metric``)."""
    return formulas.binary_metric(name, counts, zero_division, formulas.NUMPY)


__all__ = [
    "SCORE_METRICS",
    "SUMMARY",
    "binary_numpy",
    "label_metric_values",
    "label_replicates",
    "overall_column",
    "score_replicates",
]
