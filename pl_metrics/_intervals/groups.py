"""Bootstrap replicates of a metric per group *and* per stratum, reduced in numpy.

A disparity needs, in every replicate, each group's metric and the overall
value of its stratum (the union of the stratum's groups, resampled separately:
the overall counts of a replicate are the sum of its groups' drawn counts).
Each group's cells are redrawn exactly as :mod:`pl_metrics._intervals.draws`
redraws them for a single method's interval (same cells, same order, same
seeding by the group's key), and the metric of every replicate is computed
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

from pl_metrics._core import formulas as fm
from pl_metrics._core.names import ACTUAL, COUNT, INTERNAL, NEG, POS, PREDICTED, SCORE
from pl_metrics._intervals import draws as bs
from pl_metrics._intervals import replicates as rp
from pl_metrics._intervals import resample as rs

if TYPE_CHECKING:
    import numpy as np

#: Whether a row of the replicate frame is a stratum's overall value (not a group's).
OVERALL = f"{INTERNAL}is_overall"

#: The metrics of the summary and averages frames, by name, from per-class counts.
_AVERAGES = {
    f"{m}_{a}": (a, m) for m in ("precision", "recall", "f1", "jaccard") for a in rp.AVERAGES
}
SUMMARY = ("accuracy", "balanced_accuracy", "mcc", "cohen_kappa")
SCORE_METRICS = {"roc_auc": rp.roc_auc, "average_precision": rp.average_precision}


def label_metric_values(
    metrics: Sequence[str],
    binary: Callable[[str, dict[str, Any]], Any],
    tp: np.ndarray,
    support: np.ndarray,
    predicted: np.ndarray,
    *,
    seen: np.ndarray,
    pos: int,
    zero_division: float,
) -> dict[str, np.ndarray]:
    """Each metric of replicate counts (replicate x class): summary and averages over
    the ``seen`` classes, binary metrics (``binary(name, counts)``) of class ``pos``."""
    import numpy as np

    out: dict[str, np.ndarray] = {}
    t, s, p = tp[:, seen], support[:, seen], predicted[:, seen]
    if any(m in SUMMARY for m in metrics):
        summary = rp.summary(t, s, p)
    if any(m in _AVERAGES for m in metrics):
        f_name = {"f1": "f"}
        averages = rp.averages(t, s, p, beta=1.0, zero_division=zero_division)
    n = support.sum(axis=1)
    if pos >= 0:
        c_tp, c_sup, c_pred = tp[:, pos], support[:, pos], predicted[:, pos]
    else:  # the positive class is not in the group
        c_tp = c_sup = c_pred = np.zeros_like(n)
    counts = {"tp": c_tp, "fp": c_pred - c_tp, "fn": c_sup - c_tp}
    counts["tn"] = n - counts["tp"] - counts["fp"] - counts["fn"]
    for m in metrics:
        if m in SUMMARY:
            out[m] = summary[m]
        elif m in _AVERAGES:
            average, score = _AVERAGES[m]
            out[m] = averages[average][f_name.get(score, score)]
        else:
            out[m] = np.asarray(binary(m, counts), dtype=np.float64)
    return out


def _frame(
    df: pl.DataFrame,
    keys: list[str],
    *,
    groups: list[tuple[int, dict[str, np.ndarray]]],
    strata: list[tuple[int, dict[str, np.ndarray]]],
    stratum_keys: list[str],
    metrics: Sequence[str],
    n_boot: int,
) -> pl.DataFrame:
    """``*keys, REP, *metrics, OVERALL``: a row per group (or stratum) and replicate."""
    import numpy as np

    parts = []
    for rows, overall in ((groups, False), (strata, True)):
        if not rows:
            continue
        first = np.repeat(np.array([r for r, _ in rows]), n_boot)
        key_frame = df.select(keys)[first]
        if overall:
            key_frame = key_frame.with_columns(
                pl.lit(None, df.schema[k]).alias(k) for k in keys if k not in stratum_keys
            )
        parts.append(
            key_frame.with_columns(
                pl.Series(rs.REP, np.tile(np.arange(n_boot, dtype=np.int64), len(rows))),
                *(
                    pl.Series(m, np.concatenate([v[m] for _, v in rows]), pl.Float64)
                    for m in metrics
                ),
                pl.lit(overall).alias(OVERALL),
            )
        )
    return pl.concat(parts)


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
    pos_label: object,
    zero_division: float,
    n_boot: int,
    seed: int | None,
) -> pl.LazyFrame:
    """Replicates of label metrics from the confusion cells ``*strata, *groups, ACTUAL,
    PREDICTED, COUNT`` (un-weighted): ``*strata, *groups, REP, *metrics, OVERALL``."""
    strata, keys = list(strata), [*strata, *groups]
    schema = cells.collect_schema()
    out_schema = pl.Schema(
        {k: schema[k] for k in keys}
        | {rs.REP: pl.Int64}
        | dict.fromkeys(metrics, pl.Float64)
        | {OVERALL: pl.Boolean}
    )

    def run(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np

        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        if df.height * n_boot > rs.MAX_ROWS:
            raise rs.too_many(df.height, n_boot, [ACTUAL, PREDICTED])
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
        group_rows, strata_rows = [], []
        for run_ in _strata_runs(segments, len(strata)):
            total = [np.zeros((n_boot, k)) for _ in range(3)]
            seen_all = np.zeros(k, dtype=bool)
            for i in run_:
                start, end, key = segments[i]
                rng = np.random.default_rng(
                    np.random.SeedSequence(root.entropy, spawn_key=(bs._stable_hash(key),))
                )
                drawn = np.concatenate(list(bs._draw_blocks(counts[start:end], n_boot, rng)))
                a_g, p_g = a[start:end], p[start:end]
                diagonal = np.flatnonzero(a_g == p_g)
                tp = np.zeros((n_boot, k))
                tp[:, a_g[diagonal]] = drawn[:, diagonal]
                sums = (tp, bs.grouper(a_g, k)(drawn), bs.grouper(p_g, k)(drawn))
                seen = np.zeros(k, dtype=bool)
                seen[a_g] = seen[p_g] = True
                seen_all |= seen
                for j, x in enumerate(sums):
                    total[j] += x
                values = label_metric_values(metrics, binary, *sums, seen=seen, **opts)
                group_rows.append((start, values))
            values = label_metric_values(metrics, binary, *total, seen=seen_all, **opts)
            strata_rows.append((segments[run_[0]][0], values))
        out = _frame(
            df,
            keys,
            groups=group_rows,
            strata=strata_rows,
            stratum_keys=strata,
            metrics=metrics,
            n_boot=n_boot,
        )
        return out.select(list(out_schema)).cast(dict(out_schema))

    return cells.map_batches(run, schema=out_schema)


def score_replicates(
    cells: pl.LazyFrame,
    strata: Sequence[str],
    groups: Sequence[str],
    metric: str,
    *,
    n_boot: int,
    seed: int | None,
) -> pl.LazyFrame:
    """Replicates of ROC AUC or AP from the per-score counts ``*strata, *groups, SCORE,
    POS, NEG``: ``*strata, *groups, REP, metric, OVERALL``."""
    strata, keys = list(strata), [*strata, *groups]
    compute = SCORE_METRICS[metric]
    schema = cells.collect_schema()
    out_schema = pl.Schema(
        {k: schema[k] for k in keys} | {rs.REP: pl.Int64, metric: pl.Float64, OVERALL: pl.Boolean}
    )

    def run(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np

        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        if 2 * df.height * n_boot > rs.MAX_ROWS:
            raise rs.too_many(df.height, n_boot, [SCORE])
        df = df.sort([*keys, SCORE], descending=[False] * len(keys) + [True], nulls_last=True)
        score = df[SCORE].to_numpy()
        pos_n, neg_n = df[POS].to_numpy().astype(np.int64), df[NEG].to_numpy().astype(np.int64)
        root = np.random.SeedSequence(seed)
        segments = bs._segments(df, keys)
        group_rows, strata_rows = [], []
        for run_ in _strata_runs(segments, len(strata)):
            first, last = segments[run_[0]][0], segments[run_[-1]][1]
            levels = -np.unique(-score[first:last])  # the stratum's scores, descending
            total_pos, total_neg = np.zeros((n_boot, len(levels))), np.zeros((n_boot, len(levels)))
            for i in run_:
                start, end, key = segments[i]
                rng = np.random.default_rng(
                    np.random.SeedSequence(root.entropy, spawn_key=(bs._stable_hash(key),))
                )
                cells_ = np.concatenate([pos_n[start:end], neg_n[start:end]])
                drawn = np.concatenate(list(bs._draw_blocks(cells_, n_boot, rng)))
                pos_d, neg_d = np.split(drawn, 2, axis=1)
                at = np.searchsorted(-levels, -score[start:end])
                total_pos[:, at] += pos_d
                total_neg[:, at] += neg_d
                group_rows.append((start, {metric: compute(pos_d, neg_d)}))
            strata_rows.append((first, {metric: compute(total_pos, total_neg)}))
        out = _frame(
            df,
            keys,
            groups=group_rows,
            strata=strata_rows,
            stratum_keys=strata,
            metrics=[metric],
            n_boot=n_boot,
        )
        return out.select(list(out_schema)).cast(dict(out_schema))

    return cells.map_batches(run, schema=out_schema)


def binary_numpy(name: str, counts: dict[str, Any], zero_division: float) -> Any:
    """A binary metric of numpy counts (``formulas``; see ``_fairness.binary_value``)."""
    xp = fm.NUMPY
    if name in fm.RATES:
        return fm.rate(name, counts, zero_division, xp)
    tp, support, predicted = counts["tp"], counts["tp"] + counts["fn"], counts["tp"] + counts["fp"]
    if name == "recall":
        return fm.recall(tp, support, zero_division, xp)
    if name == "specificity":
        return fm.specificity(counts["tn"], counts["fp"], zero_division, xp)
    if name == "f1":
        return fm.f_beta(tp, support, predicted, 1.0, zero_division, xp)
    return fm.jaccard(tp, support, predicted, zero_division, xp)


__all__ = [
    "OVERALL",
    "SCORE_METRICS",
    "SUMMARY",
    "binary_numpy",
    "label_metric_values",
    "label_replicates",
    "score_replicates",
]
