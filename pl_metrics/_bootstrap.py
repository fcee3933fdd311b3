"""Confidence intervals from the sufficient statistics, not from the rows.

Bootstrap: a bootstrap sample of a segment's n rows (i.i.d., drawn with
replacement) has confusion counts distributed Multinomial(n, cell counts / n)
over the segment's cells — the (actual, predicted) pairs, or the (score, class)
pairs for the ranking metrics.  So each replicate is one multinomial draw per
segment: its cost is the size of the state, not the number of rows.  The draws
are reduced in numpy, a block of replicates at a time, straight to what the
metrics need (per-class ``support / predicted / tp / n`` of each replicate, or
each replicate's AUC / AP), so no frame of replicate cells is ever built.
Intervals are the percentile interval of the replicates (linear
interpolation, as ``np.percentile``); replicates where a metric is undefined
(NaN) are skipped.

Determinism: each segment draws from its own generator, seeded by ``seed`` and
a stable hash of the segment's key, over its cells in sorted order.  The same
seed gives the same interval whatever the row order, the number of threads
(segments are drawn in parallel) or the other segments in the frame.  Segments
are resampled separately (stratified by segment).

Analytic intervals: Wilson's score interval for the metrics that are
proportions of counts; DeLong's variance for ROC AUC (its structural
components computed from the per-score counts, ties counted one half).
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics import _validate as v
from pl_metrics._counts import ORD

if TYPE_CHECKING:
    import numpy as np

REP = f"{v.INTERNAL}rep"

#: Columns of the confusion cells handed to :func:`class_stats`.
A_ORD = f"{v.INTERNAL}a_ord"
P_ORD = f"{v.INTERNAL}p_ord"
N_LABELS = f"{v.INTERNAL}n_labels"
#: Replicates drawn at once per segment are capped so a block holds ~4M cells.
_BLOCK_CELLS = 1 << 22


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
    if ci_method == "bootstrap" and importlib.util.find_spec("numpy") is None:
        msg = "ci_method='bootstrap' needs numpy: pip install numpy (or use an analytic ci_method)"
        raise ModuleNotFoundError(msg)


# --------------------------------------------------------------------------- drawing
def _stable_hash(key: tuple[Any, ...]) -> int:
    """A hash of a segment's key that is the same in every process and version."""
    return int.from_bytes(hashlib.blake2b(repr(key).encode(), digest_size=8).digest(), "little")


def _segments(df: pl.DataFrame, keys: Sequence[str]) -> list[tuple[int, int, tuple[Any, ...]]]:
    """``(start, end, key)`` of each segment of ``df`` (sorted by ``keys``)."""
    if df.height == 0:
        return []
    bounds = (
        df.select(pl.struct(keys).rle_id().alias("s"))
        .with_row_index("i")
        .group_by("s", maintain_order=True)
        .agg(pl.col("i").first().alias("a"), (pl.col("i").last() + 1).alias("b"))
    )
    key_rows = df.select(keys)[bounds["a"].to_list()].rows()
    return list(zip(bounds["a"].to_list(), bounds["b"].to_list(), key_rows, strict=True))


def _draw_blocks(counts: np.ndarray, n_boot: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """``n_boot`` multinomial redraws of ``counts`` (float64 rows), a block at a time."""
    import numpy as np

    n = int(counts.sum())
    kept = np.flatnonzero(counts)
    block = max(1, _BLOCK_CELLS // max(len(counts), 1))
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        out = np.zeros((size, len(counts)))
        if n > 0:
            out[:, kept] = rng.multinomial(n, counts[kept] / n, size=size)
        yield out


def per_segment(
    df: pl.DataFrame,
    keys: Sequence[str],
    reduce: Callable[[pl.DataFrame, Iterator[np.ndarray]], dict[str, np.ndarray]],
    counts: Callable[[pl.DataFrame], np.ndarray],
    *,
    n_boot: int,
    seed: int | None,
    threads: int,
) -> pl.DataFrame:
    """Draw every segment of ``df`` (sorted by ``keys`` then its cells) and reduce.

    ``counts(segment)`` gives the cell counts to redraw, ``reduce(segment, blocks)``
    turns the blocks of draws into columns of equal length (a row per replicate,
    or per replicate and class).  Returns ``*keys``, the reduced columns.
    Segments are drawn on ``threads`` threads (numpy releases the GIL): pass
    ``pl.thread_pool_size()`` read outside the query, as inside a streaming
    query it is 1.
    """
    import numpy as np

    root = np.random.SeedSequence(seed)
    segments = _segments(df, keys)

    def one(segment: tuple[int, int, tuple[Any, ...]]) -> dict[str, np.ndarray]:
        start, end, key = segment
        rng = np.random.default_rng(
            np.random.SeedSequence(root.entropy, spawn_key=(_stable_hash(key),))
        )
        part = df[start:end]
        return reduce(part, _draw_blocks(counts(part).astype(np.int64), n_boot, rng))

    with ThreadPoolExecutor(max(1, min(threads, len(segments)))) as pool:
        parts = list(pool.map(one, segments))
    lengths = np.array([len(next(iter(p.values()))) for p in parts])
    first_rows = np.array([a for a, _, _ in segments])
    out = df.select(keys)[np.repeat(first_rows, lengths)]
    return out.with_columns(
        pl.Series(name, np.concatenate([p[name] for p in parts])) for name in parts[0]
    )


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


# --------------------------------------------------------------------------- reductions
def class_stats(restrict: bool) -> Callable[[pl.DataFrame, Iterator[np.ndarray]], dict]:
    """Reduce a segment's redrawn confusion cells to per-class counts of each replicate.

    The segment's cells carry ``a_ord`` / ``p_ord`` (position of the actual /
    predicted label in the class list, -1 outside ``labels=``) and ``n_labels``.
    Returns ``REP, ORD, support, predicted, tp, n`` (a row per replicate and
    class).  ``restrict`` drops the cells outside ``labels=`` (as
    ``confusion_matrix``); otherwise they still count in ``n``.
    """
    import numpy as np

    def reduce(part: pl.DataFrame, blocks: Iterator[np.ndarray]) -> dict[str, np.ndarray]:
        a, p = part[A_ORD].to_numpy(), part[P_ORD].to_numpy()
        k = int(part[N_LABELS][0])
        kept = (a >= 0) & (p >= 0) if restrict else np.ones(len(a), dtype=bool)
        cells = np.arange(len(a))
        actual, predicted = np.zeros((len(a), k)), np.zeros((len(a), k))
        actual[cells[kept & (a >= 0)], a[kept & (a >= 0)]] = 1
        predicted[cells[kept & (p >= 0)], p[kept & (p >= 0)]] = 1
        diagonal = actual * (a == p)[:, None]
        sums: dict[str, list[np.ndarray]] = {"support": [], "predicted": [], "tp": [], "n": []}
        for draws in blocks:
            sums["support"].append(draws @ actual)
            sums["predicted"].append(draws @ predicted)
            sums["tp"].append(draws @ diagonal)
            sums["n"].append(np.repeat(draws @ kept, k).reshape(-1, k))
        out = {name: np.concatenate(s).ravel().astype(np.int64) for name, s in sums.items()}
        n_boot = len(out["n"]) // k
        return {
            REP: np.repeat(np.arange(n_boot, dtype=np.int64), k),
            ORD: np.tile(np.arange(k, dtype=np.int64), n_boot),
            **out,
        }

    return reduce


def _auc(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """ROC AUC of each row (scores descending): sum neg * (tps - pos / 2) / (P N)."""
    import numpy as np

    tps = np.cumsum(pos, axis=1)
    pn = tps[:, -1] * neg.sum(axis=1)
    area = (neg * (tps - pos / 2)).sum(axis=1)
    return np.divide(area, pn, out=np.full(len(pn), np.nan), where=pn > 0)


def _average_precision(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """AP of each row (scores descending); 0.0 without positives (scikit-learn)."""
    import numpy as np

    tps, fps = np.cumsum(pos, axis=1), np.cumsum(neg, axis=1)
    precision = np.divide(tps, tps + fps, out=np.zeros_like(tps), where=pos > 0)
    p_total = tps[:, -1]
    ap = np.divide(
        (pos * precision).sum(axis=1), p_total, out=np.zeros(len(p_total)), where=p_total > 0
    )
    return np.clip(ap, 0.0, None)


#: Ranking metrics of a block of redrawn per-score counts.
SCORE_METRICS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "roc_auc": _auc,
    "average_precision": _average_precision,
}


def score_replicates(
    state: pl.LazyFrame, keys: Sequence[str], metric: str, *, n_boot: int, seed: int | None
) -> pl.LazyFrame:
    """``*keys, REP, <metric>``: the ranking metric of each replicate of each segment.

    ``state`` is the per-score counts ``*keys, score, pos, neg``; a replicate is a
    multinomial redraw of its ``(score, positive)`` and ``(score, negative)`` cells.
    """
    schema = state.collect_schema()
    out_schema = pl.Schema({k: schema[k] for k in keys} | {REP: pl.Int64, metric: pl.Float64})
    compute = SCORE_METRICS[metric]
    threads = pl.thread_pool_size()

    def reduce(part: pl.DataFrame, blocks: Iterator[np.ndarray]) -> dict[str, np.ndarray]:
        import numpy as np

        s = part.height
        values = np.concatenate([compute(d[:, :s], d[:, s:]) for d in blocks])
        return {REP: np.arange(len(values), dtype=np.int64), metric: values}

    def draw(df: pl.DataFrame) -> pl.DataFrame:
        import numpy as np

        if df.height == 0:
            return pl.DataFrame(schema=out_schema)
        df = df.sort([*keys, "score"], descending=[False] * len(keys) + [True], nulls_last=True)
        cells = lambda part: np.concatenate([part["pos"].to_numpy(), part["neg"].to_numpy()])  # noqa: E731
        out = per_segment(df, keys, reduce, cells, n_boot=n_boot, seed=seed, threads=threads)
        return out.select(list(out_schema)).cast(dict(out_schema))

    return state.map_batches(draw, schema=out_schema)


__all__ = [
    "A_ORD",
    "N_LABELS",
    "P_ORD",
    "REP",
    "SCORE_METRICS",
    "check_ci",
    "class_stats",
    "delong_exprs",
    "interval_columns",
    "per_segment",
    "percentile_interval",
    "score_replicates",
    "wilson",
]
