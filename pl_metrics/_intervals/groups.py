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
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics._core import formulas as fm
from pl_metrics._core.names import ACTUAL, COUNT, INTERNAL, NEG, POS, PREDICTED, SCORE
from pl_metrics._intervals import draws as bs
from pl_metrics._intervals import replicates as rp
from pl_metrics._intervals import resample as rs

if TYPE_CHECKING:
    import numpy as np

#: The metrics of the summary and averages frames, by name, from per-class counts.
_AVERAGES = {
    f"{m}_{a}": (a, m) for m in ("precision", "recall", "f1", "jaccard") for a in rp.AVERAGES
}
SUMMARY = bs.LABEL_METRICS["summary"]
SCORE_METRICS = {"roc_auc": rp.roc_auc, "average_precision": rp.average_precision}


def label_metric_values(
    metrics: Sequence[str],
    binary: Callable[[str, dict[str, Any]], Any],
    drawn: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
    *,
    pos: int,
    zero_division: float,
) -> list[dict[str, np.ndarray]]:
    """Each metric of each member's replicate counts ``(tp, support, predicted, seen)``
    (replicate x class; ``seen`` its classes): summary and averages over the seen
    classes, binary metrics (``binary(name, counts)``) of class ``pos``.  Members with
    as many seen classes are reduced together (replicate x member x class)."""
    import numpy as np

    out: list[dict[str, np.ndarray]] = [{} for _ in drawn]
    if any(m in SUMMARY or m in _AVERAGES for m in metrics):
        by_size: dict[int, list[int]] = {}
        for i, member in enumerate(drawn):
            by_size.setdefault(int(member[3].sum()), []).append(i)
        for members in by_size.values():
            t, s, p = (
                np.stack([drawn[i][j][:, drawn[i][3]] for i in members], axis=1) for j in range(3)
            )
            summary = rp.summary(t, s, p, [m for m in metrics if m in SUMMARY])
            averages = (
                rp.averages(t, s, p, beta=1.0, zero_division=zero_division)
                if any(m in _AVERAGES for m in metrics)
                else {}
            )
            for m in metrics:
                if m in SUMMARY:
                    values = summary[m]
                elif m in _AVERAGES:
                    average, score = _AVERAGES[m]
                    values = averages[average]["f" if score == "f1" else score]
                else:
                    continue
                for column, i in enumerate(members):
                    out[i][m] = values[:, column]
    binary_metrics = [m for m in metrics if m not in SUMMARY and m not in _AVERAGES]
    if binary_metrics:
        tp, support, predicted = (
            np.stack([x[j][:, pos] if pos >= 0 else np.zeros(x[j].shape[0]) for x in drawn], axis=1)
            for j in range(3)
        )
        n = np.stack([x[1].sum(axis=1) for x in drawn], axis=1)
        counts = {"tp": tp, "fp": predicted - tp, "fn": support - tp}
        counts["tn"] = n - tp - counts["fp"] - counts["fn"]
        for m in binary_metrics:
            values = np.asarray(binary(m, counts), dtype=np.float64)
            for column, member in enumerate(out):
                member[m] = values[:, column]
    return out


def overall_column(metric: str) -> str:
    """The column of a replicate's overall value (of the group's stratum) of ``metric``."""
    return f"{INTERNAL}overall_{metric}"


def _frame(
    df: pl.DataFrame,
    keys: list[str],
    *,
    rows: list[tuple[int, dict[str, np.ndarray], dict[str, np.ndarray]]],
    metrics: Sequence[str],
    n_boot: int,
) -> pl.DataFrame:
    """``*keys, REP, *metrics, *overall columns``: a row per group and replicate, from
    ``(first row of the group, its values, its stratum's values)``."""
    import numpy as np

    first = np.repeat(np.array([r for r, _, _ in rows]), n_boot)
    return df.select(keys)[first].with_columns(
        pl.Series(rs.REP, np.tile(np.arange(n_boot, dtype=np.int64), len(rows))),
        *(pl.Series(m, np.concatenate([v[m] for _, v, _ in rows]), pl.Float64) for m in metrics),
        *(
            pl.Series(overall_column(m), np.concatenate([o[m] for _, _, o in rows]), pl.Float64)
            for m in metrics
        ),
    )


def _chunks(members: list[int], cells: int) -> list[list[int]]:
    """``members`` in chunks of about 2**24 replicate cells (memory, and a batch to reduce)."""
    size = max(1, (1 << 24) // max(cells, 1))
    return [members[i : i + size] for i in range(0, len(members), size)]


def _strata_runs(
    segments: list[tuple[int, int, tuple[Any, ...]]], n_strata: int
) -> list[list[int]]:
    """The positions of the segments of each stratum (segments sorted by stratum)."""
    runs: list[list[int]] = []
    previous: object = object()
    for i, (_, _, key) in enumerate(segments):
        if key[:n_strata] != previous:
            runs.append([])
            previous = key[:n_strata]
        runs[-1].append(i)
    return runs


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
    seed: int | None,
) -> pl.LazyFrame:
    """Replicates of label metrics from the confusion cells ``*strata, *groups, ACTUAL,
    PREDICTED, COUNT`` (un-weighted): ``*strata, *groups, REP, *metrics`` and each
    metric's overall value of the replicate of the group's stratum (``overall_column``)."""
    strata, keys = list(strata), [*strata, *groups]
    schema = cells.collect_schema()
    threads = pl.thread_pool_size()  # read outside the query (inside a streaming one: 1)
    out_schema = pl.Schema(
        {k: schema[k] for k in keys}
        | {rs.REP: pl.Int64}
        | dict.fromkeys(metrics, pl.Float64)
        | dict.fromkeys(map(overall_column, metrics), pl.Float64)
    )

    def run(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np

        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        if df.height * n_boot > rs.MAX_ROWS:
            raise rs.too_many(df.height, n_boot, columns)
        df = df.sort([*keys, ACTUAL, PREDICTED], nulls_last=True)
        classes = pl.concat([df[ACTUAL], df[PREDICTED]]).unique().sort()
        k = len(classes)
        a = classes.search_sorted(df[ACTUAL]).to_numpy()
        p = classes.search_sorted(df[PREDICTED]).to_numpy()
        found = (classes == pos_label).arg_true() if pos_label is not None else []
        pos = int(found[0]) if len(found) else -1
        counts = df[COUNT].to_numpy().astype(np.int64)
        root = np.random.SeedSequence(seed)
        segments = bs._segments(df, keys)
        opts = {"pos": pos, "zero_division": zero_division}

        def one(i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
            start, end, key = segments[i]
            drawn = bs.draw_segment(counts[start:end], n_boot, bs.generator(root.entropy, key))
            a_g, p_g = a[start:end], p[start:end]
            diagonal = np.flatnonzero(a_g == p_g)
            tp = np.zeros((n_boot, k))
            tp[:, a_g[diagonal]] = drawn[:, diagonal]
            seen = np.zeros(k, dtype=bool)
            seen[a_g] = seen[p_g] = True
            return tp, bs.grouper(a_g, k)(drawn), bs.grouper(p_g, k)(drawn), seen

        rows = []
        with ThreadPoolExecutor(max(1, threads)) as pool:
            for run_ in _strata_runs(segments, len(strata)):
                total = [np.zeros((n_boot, k)) for _ in range(3)]
                seen_all = np.zeros(k, dtype=bool)
                stratum = []
                for chunk in _chunks(run_, n_boot * k):
                    drawn = list(pool.map(one, chunk))
                    for member in drawn:
                        for j in range(3):
                            total[j] += member[j]
                        seen_all |= member[3]
                    values = label_metric_values(metrics, binary, drawn, **opts)
                    stratum += [(segments[i][0], v) for i, v in zip(chunk, values, strict=True)]
                overall = label_metric_values(metrics, binary, [(*total, seen_all)], **opts)[0]
                rows += [(first, values, overall) for first, values in stratum]
        out = _frame(df, keys, rows=rows, metrics=metrics, n_boot=n_boot)
        return out.select(list(out_schema)).cast(dict(out_schema))

    return cells.map_batches(run, schema=out_schema)


def score_replicates(
    cells: pl.LazyFrame,
    strata: Sequence[str],
    groups: Sequence[str],
    metric: str,
    *,
    column: str,
    n_boot: int,
    seed: int | None,
) -> pl.LazyFrame:
    """Replicates of ROC AUC or AP from the per-score counts ``*strata, *groups, SCORE,
    POS, NEG``: ``*strata, *groups, REP, metric`` and the stratum's (``overall_column``)."""
    strata, keys = list(strata), [*strata, *groups]
    compute = SCORE_METRICS[metric]
    schema = cells.collect_schema()
    out_schema = pl.Schema(
        {k: schema[k] for k in keys}
        | {rs.REP: pl.Int64, metric: pl.Float64, overall_column(metric): pl.Float64}
    )

    def run(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np

        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        if 2 * df.height * n_boot > rs.MAX_ROWS:
            raise rs.too_many(df.height, n_boot, [column])
        df = df.sort([*keys, SCORE], descending=[False] * len(keys) + [True], nulls_last=True)
        score = df[SCORE].to_numpy()
        pos_n, neg_n = df[POS].to_numpy().astype(np.int64), df[NEG].to_numpy().astype(np.int64)
        root = np.random.SeedSequence(seed)
        segments = bs._segments(df, keys)
        rows = []
        for run_ in _strata_runs(segments, len(strata)):
            first, last = segments[run_[0]][0], segments[run_[-1]][1]
            stratum = []
            levels = -np.unique(-score[first:last])  # the stratum's scores, descending
            total_pos, total_neg = np.zeros((n_boot, len(levels))), np.zeros((n_boot, len(levels)))
            for i in run_:
                start, end, key = segments[i]
                cells_ = np.concatenate([pos_n[start:end], neg_n[start:end]])
                drawn = bs.draw_segment(cells_, n_boot, bs.generator(root.entropy, key))
                pos_d, neg_d = np.split(drawn, 2, axis=1)
                at = np.searchsorted(-levels, -score[start:end])
                total_pos[:, at] += pos_d
                total_neg[:, at] += neg_d
                stratum.append((start, {metric: compute(pos_d, neg_d)}))
            overall = {metric: compute(total_pos, total_neg)}
            rows += [(start, values, overall) for start, values in stratum]
        out = _frame(df, keys, rows=rows, metrics=[metric], n_boot=n_boot)
        return out.select(list(out_schema)).cast(dict(out_schema))

    return cells.map_batches(run, schema=out_schema)


def binary_numpy(name: str, counts: dict[str, Any], zero_division: float) -> Any:
    """A binary metric of numpy counts (``formulas.binary_metric``)."""
    return fm.binary_metric(name, counts, zero_division, fm.NUMPY)


__all__ = [
    "SCORE_METRICS",
    "SUMMARY",
    "binary_numpy",
    "label_metric_values",
    "label_replicates",
    "overall_column",
    "score_replicates",
]
