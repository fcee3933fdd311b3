"""Confidence intervals from the sufficient statistics, not from the rows.

Bootstrap: a bootstrap sample of a segment's n rows (i.i.d., drawn with
replacement) has confusion counts distributed Multinomial(n, cell counts / n)
over the segment's cells — the (actual, predicted) pairs, or the (score, class)
pairs for the ranking metrics.  So each replicate is one multinomial draw per
segment (cost: the size of the state, not the number of rows), and the metric
of a replicate is computed by the same functions as the point estimate, with
the replicate number as one more segment key.  Intervals are the percentile
interval of the replicates (linear interpolation, as ``np.percentile``).

Determinism: the state is sorted before drawing and segments draw in that
order from ``numpy.random.default_rng(seed)``: the same seed gives the same
interval whatever the row order or the number of threads.  Segments are
resampled separately (stratified by segment).

Analytic intervals: Wilson's score interval for the metrics that are
proportions of counts; DeLong's variance for ROC AUC (its structural
components computed from the per-score counts, ties counted one half).
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

import polars as pl

from pl_metrics import _validate as v

REP = f"{v.INTERNAL}rep"
_CELL_POSITIVE = f"{v.INTERNAL}is_pos"


def check_ci(ci: float | None, n_boot: int, ci_method: str) -> None:
    """Options first: ``ci`` in (0, 1), ``n_boot >= 1``, a known ``ci_method``."""
    if ci is None:
        return
    if isinstance(ci, bool) or not isinstance(ci, (int, float)) or not 0 < ci < 1:
        msg = f"`ci` must be None or a confidence level in (0, 1), e.g. 0.95; got {ci!r}"
        raise ValueError(msg)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        msg = f"`n_boot` must be an integer >= 1, got {n_boot!r}"
        raise ValueError(msg)
    v.check_choice("ci_method", ci_method, ("bootstrap", "wilson", "delong"))


def replicates(
    state: pl.LazyFrame,
    keys: Sequence[str],
    cells: Sequence[str],
    count: str,
    *,
    n_boot: int,
    seed: int | None,
) -> pl.LazyFrame:
    """``*keys, REP, *cells, count``: ``n_boot`` multinomial redraws of each segment.

    Lazy: the draw happens at collect time on the small collected state.
    """
    schema = state.collect_schema()
    out_schema = {k: schema[k] for k in keys} | {REP: pl.Int64} | {c: schema[c] for c in cells}
    out_schema[count] = pl.Int64

    def draw(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np  # the bootstrap needs numpy (an optional dependency)

        if df[count].dtype.is_float():
            msg = "bootstrap intervals need un-weighted counts; drop `weight` to use `ci`"
            raise ValueError(msg)
        df = df.sort([*keys, *cells], nulls_last=True)
        rng = np.random.default_rng(seed)
        segment = df.select(pl.struct(keys).rle_id().alias("s"))["s"].to_numpy()
        bounds = np.flatnonzero(np.diff(segment)) + 1
        starts = np.concatenate([[0], bounds])
        ends = np.concatenate([bounds, [df.height]])
        counts = df[count].to_numpy().astype(np.int64)
        rows, reps, draws = [], [], []
        for a, b in zip(starts, ends, strict=True):
            c = counts[a:b]
            n = int(c.sum())
            k = b - a
            drawn = (
                rng.multinomial(n, c / n, size=n_boot)
                if n > 0
                else np.zeros((n_boot, k), dtype=np.int64)
            )
            rows.append(np.tile(np.arange(a, b), n_boot))
            reps.append(np.repeat(np.arange(n_boot), k))
            draws.append(drawn.ravel())
        if not rows:
            return pl.DataFrame(schema=out_schema)
        picked = df.select(*keys, *cells)[np.concatenate(rows)]
        return picked.with_columns(
            pl.Series(REP, np.concatenate(reps), pl.Int64),
            pl.Series(count, np.concatenate(draws), pl.Int64),
        ).select(list(out_schema))

    return state.map_batches(draw, schema=out_schema)


def percentile_interval(
    reps: pl.LazyFrame, keys: Sequence[str], metrics: Sequence[str], ci: float
) -> pl.LazyFrame:
    """``*keys, <metric>_low, <metric>_high``: percentiles of the replicates (NaN skipped)."""
    alpha = (1 - ci) / 2
    aggs = []
    for m in metrics:
        x = pl.col(m).cast(pl.Float64).fill_nan(None)
        aggs += [
            x.quantile(alpha, interpolation="linear").alias(f"{m}_low"),
            x.quantile(1 - alpha, interpolation="linear").alias(f"{m}_high"),
        ]
    return reps.group_by(list(keys)).agg(aggs)


def z_value(ci: float) -> float:
    return NormalDist().inv_cdf(0.5 + ci / 2)


def wilson(successes: pl.Expr, trials: pl.Expr, ci: float) -> tuple[pl.Expr, pl.Expr]:
    """Wilson's score interval of ``successes / trials`` (null when trials == 0)."""
    z = z_value(ci)
    n = trials.cast(pl.Float64)
    p = successes.cast(pl.Float64) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)).sqrt()) / (1 + z * z / n)
    valid = n > 0
    return pl.when(valid).then(centre - half), pl.when(valid).then(centre + half)


def interval_columns(metrics: Sequence[str]) -> list[str]:
    return [c for m in metrics for c in (f"{m}_low", f"{m}_high")]


def delong_exprs(ci: float) -> list[pl.Expr]:
    """Per-segment aggregations over the per-score counts (``score, pos, neg``):
    ``roc_auc_low`` / ``roc_auc_high`` from DeLong's variance, clipped to [0, 1].

    V10 of a positive at score s = (negatives below s + half those at s) / N;
    V01 of a negative at s = (positives above s + half those at s) / P;
    var = S10 / P + S01 / N with S the sample variances (denominators P - 1, N - 1).
    """
    z = z_value(ci)
    pos = pl.col("pos").sort_by("score").cast(pl.Float64)
    neg = pl.col("neg").sort_by("score").cast(pl.Float64)
    p_total, n_total = pos.sum(), neg.sum()
    neg_below = neg.cum_sum() - neg
    pos_above = p_total - pos.cum_sum()
    v10 = (neg_below + neg / 2) / n_total
    v01 = (pos_above + pos / 2) / p_total
    auc = (pos * v10).sum() / p_total
    s10 = (pos * (v10 - auc) ** 2).sum() / (p_total - 1)
    s01 = (neg * (v01 - auc) ** 2).sum() / (n_total - 1)
    se = (s10 / p_total + s01 / n_total).sqrt()
    valid = (p_total > 1) & (n_total > 1)
    return [
        pl.when(valid).then((auc - z * se).clip(0.0, 1.0)).alias("roc_auc_low"),
        pl.when(valid).then((auc + z * se).clip(0.0, 1.0)).alias("roc_auc_high"),
    ]


def score_cells(state: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Per-score counts as cells: ``*keys, score, is_pos, count``."""
    return pl.concat(
        [
            state.select(
                *keys, "score", pl.lit(True).alias(_CELL_POSITIVE), pl.col("pos").alias("count")
            ),
            state.select(
                *keys, "score", pl.lit(False).alias(_CELL_POSITIVE), pl.col("neg").alias("count")
            ),
        ]
    )


def score_replicates(
    state: pl.LazyFrame, keys: Sequence[str], *, n_boot: int, seed: int | None
) -> pl.LazyFrame:
    """``*keys, REP, score, pos, neg``: the per-score counts of each replicate."""
    cells = score_cells(state, keys)
    reps = replicates(cells, keys, ["score", _CELL_POSITIVE], "count", n_boot=n_boot, seed=seed)
    c, is_pos = pl.col("count"), pl.col(_CELL_POSITIVE)
    return reps.group_by(*keys, REP, "score").agg(
        c.filter(is_pos).sum().alias("pos"), c.filter(~is_pos).sum().alias("neg")
    )


__all__ = [
    "REP",
    "check_ci",
    "delong_exprs",
    "interval_columns",
    "percentile_interval",
    "replicates",
    "score_replicates",
    "wilson",
]
