"""ROC AUC (and DeLong's interval) of continuous scores by sorting each class's scores once.

The per-score counts of :mod:`pl_metrics._ranking` are exact, stream, and are
fastest when scores take few distinct values; on continuous scores every row is
its own group, and counting them costs several sorts.  There it is faster to
sort the positives' and the negatives' scores (one query, both sorts in
parallel) and binary-search: for every positive score s, the negatives below s
plus half those equal to s is its placement (DeLong's V10), and the mean
placement is the ROC AUC - the Mann-Whitney U / (P N) with ties one half, the
same number as the trapezoid under the ROC curve.  DeLong's variance needs the
negatives' placements too: one more search.

Average precision is a sum over the positives of the precision at their score:
the rows at or above it are the positives from its run of ties on, and the
negatives from the same search on.

Used by ``roc_auc`` (un-weighted, binary or the one-vs-rest macro / weighted
mean; ``ci_method="delong"`` too) and the binary ``average_precision`` (un-weighted,
no interval), on a DataFrame or a LazyFrame, when the first
rows' scores look continuous (:func:`use_sorted_path`).  The lazy result is a
LazyFrame like the counting path's: the rows are read when it is collected.
Memory: the scores of every row (8 bytes each), where counting holds one row per
distinct score; on continuous scores these are the same size.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import polars as pl

from pl_metrics._core import checks as v
from pl_metrics._core import formulas as fm
from pl_metrics._core import names
from pl_metrics._core import scores as sc
from pl_metrics._intervals import analytic as an

_POS, _NEG = f"{names.INTERNAL}pos", f"{names.INTERNAL}neg"
_POSITIVES = f"{names.INTERNAL}positives"
_UNKNOWN = f"{names.INTERNAL}unknown"

#: Distinct scores among the first rows above which the sorted path is used.
MIN_DISTINCT = 2_000
_SAMPLE = 10_000


def use_sorted_path(
    frame: pl.DataFrame | pl.LazyFrame, y_score: str | Mapping[object, str]
) -> bool:
    """Whether the scores look continuous (more than :data:`MIN_DISTINCT` distinct values
    among the first 10,000 rows) and numpy (an optional dependency, for its binary
    search) is installed.  ``y_score`` is checked already (numeric columns of
    ``frame``).  On a LazyFrame this reads the first rows of the score columns (a
    Parquet scan reads its first row group)."""
    if importlib.util.find_spec("numpy") is None:
        return False
    columns = [y_score] if isinstance(y_score, str) else list(y_score.values())
    head = frame.lazy().select(columns).head(_SAMPLE).collect()
    return all(head.get_column(c).n_unique() > MIN_DISTINCT for c in columns)


#: Scores searched at once; more are split over the threads (numpy releases the GIL).
_SEARCH_CHUNK = 1 << 20


def _search(others: Any, mine: Any, side: Literal["left", "right"]) -> Any:
    """``np.searchsorted(others, mine, side)``, in parallel chunks when ``mine`` is large."""
    import numpy as np

    threads = min(os.cpu_count() or 1, -(-mine.size // _SEARCH_CHUNK))
    if threads <= 1:
        return np.searchsorted(others, mine, side=side)
    chunks = np.array_split(mine, threads)
    with ThreadPoolExecutor(threads) as pool:
        found = list(pool.map(lambda c: np.searchsorted(others, c, side=side), chunks))
    return np.concatenate(found)


def _beyond_and_tied(mine: Any, others: Any) -> tuple[Any, Any]:
    """For each of the sorted scores ``mine``: how many of the sorted ``others`` are
    strictly below it, and how many equal it."""
    import numpy as np  # only this path needs numpy

    below = _search(others, mine, "left")
    # ties are rare for continuous scores: search again only where one exists
    tied = np.zeros(mine.size, dtype=np.int64)
    maybe = others[np.minimum(below, others.size - 1)] == mine
    if maybe.any():
        tied[maybe] = np.searchsorted(others, mine[maybe], side="right") - below[maybe]
    return below, tied


def _auc(pos: pl.Series, neg: pl.Series, z: float | None) -> tuple[float | None, ...]:
    """AUC (and with ``z``: DeLong's interval) from the sorted scores of the positives and
    the negatives; None where undefined (one class; the interval: fewer than 2 of one)."""
    import numpy as np

    n_pos, n_neg = pos.len(), neg.len()
    if n_pos == 0 or n_neg == 0:
        return (None,) if z is None else (None, None, None)
    p, n = pos.to_numpy(), neg.to_numpy()
    below, tied = _beyond_and_tied(p, n)
    p_total, n_total = float(n_pos), float(n_neg)
    # the mean placement of the positives (summed first: exact integers)
    beyond, ties = float(below.sum(dtype=np.float64)), float(tied.sum(dtype=np.float64))
    auc = float(fm.placement(beyond, ties, n_total) / p_total)
    if z is None:
        return (auc,)
    if n_pos < 2 or n_neg < 2:
        return auc, None, None
    v10 = fm.placement(below.astype(np.float64), tied, n_total)
    # a negative's placement: the positives above it, plus half those tied
    below_n, tied_n = _beyond_and_tied(n, p)
    v01 = fm.placement(p_total - below_n - tied_n, tied_n, p_total)
    se = float(
        fm.delong_se(1.0, v10, 1.0, v01, auc=auc, p_total=p_total, n_total=n_total, xp=fm.NUMPY)
    )
    return auc, min(max(auc - z * se, 0.0), 1.0), min(max(auc + z * se, 0.0), 1.0)


def _ap(pos: pl.Series, neg: pl.Series, z: float | None) -> tuple[float | None, ...]:
    """Average precision from the sorted scores of the positives and the negatives: each
    positive adds 1 / P times the precision at its score's threshold (the rows scoring
    at least as high), so tied positives add their threshold's term together as
    scikit-learn's step-wise sum does; 0.0 without positives (as scikit-learn)."""
    import numpy as np

    n_pos = pos.len()
    if n_pos == 0:
        return (0.0,)
    p, n = pos.to_numpy(), neg.to_numpy()
    # positives at or above each positive's score: P minus the first index of its run
    index = np.arange(n_pos)
    first = np.maximum.accumulate(np.where(np.r_[True, p[1:] != p[:-1]], index, 0))
    tps = (n_pos - first).astype(np.float64)
    fps = (n.size - _search(n, p, "left")).astype(np.float64)
    terms = fm.average_precision_terms(1.0, tps, fps, float(n_pos), xp=fm.NUMPY)
    return (max(float(terms.sum()), 0.0),)


#: The metric of the sorted scores of a segment's positives and negatives.
_METRICS = {"roc_auc": _auc, "average_precision": _ap}


def sorted_metric(
    frame: pl.DataFrame | pl.LazyFrame,
    y_true: str,
    y_score: str | Mapping[object, str],
    *,
    by: object,
    pos_label: object,
    average: str,
    reserved: Sequence[str],
    ci: float | None = None,
    metric: str = "roc_auc",
) -> pl.LazyFrame:
    """``*by, roc_auc``: binary, or the one-vs-rest macro / weighted mean (un-weighted
    rows); with ``ci`` (binary): also DeLong's ``roc_auc_low``, ``roc_auc_high``.
    ``metric="average_precision"``: ``*by, average_precision`` (binary).

    The same checks and messages as the counting path (``_ranking``): only the
    way the AUC is summed differs.
    """
    mapping = None if isinstance(y_score, str) else v.check_score_map("y_score", y_score)
    columns = [y_score] if mapping is None else list(mapping.values())
    lf = frame.lazy()
    schema, segments, types = sc.prepare(lf, y_true, columns, by=by, weight=None, reserved=reserved)
    dtype = schema[y_true]
    if mapping is None:
        label = sc.resolve_pos_label(schema, y_true, pos_label)
        tasks = [(pl.col(y_true) == pl.lit(label, dtype), y_score)]
        known = None
    else:
        keys_ = [v.label_value(k, dtype, "y_score", y_true) for k in mapping]
        tasks = [
            (pl.col(y_true) == pl.lit(k, dtype), c) for k, c in zip(keys_, columns, strict=True)
        ]
        known = pl.Series(keys_, dtype=dtype)
    score_aggs, checks = sc.score_checks(schema, columns)
    true_aggs, true_checks = sc.true_checks(y_true, types)
    scalars = [*score_aggs, *true_aggs]
    checks += true_checks
    default_pos = mapping is None and sc.defaults_pos_label(schema, y_true, pos_label)
    if default_pos:
        scalars += sc.default_pos_label_aggs(pl.col(y_true))
    if known is None:
        scalars.append(tasks[0][0].sum().alias(_POSITIVES))
    else:
        unknown = pl.col(y_true).is_not_null() & ~pl.col(y_true).is_in(known.implode())
        scalars.append(unknown.sum().alias(_UNKNOWN))
        checks.append((_UNKNOWN, lambda n: v.Bad.unknown_classes(y_true, n, known.to_list())))
    lists = []
    for i, (positive, column) in enumerate(tasks):
        score = pl.col(column).cast(pl.Float64) + 0.0  # -0.0 and 0.0 are one threshold
        lists += [
            score.filter(positive).sort().alias(f"{_POS}{i}"),
            score.filter(~positive).sort().alias(f"{_NEG}{i}"),
        ]
    keys = names.segment_keys(segments)
    if segments:
        grouped = names.with_segment_keys(lf, segments).group_by(keys).agg(*lists, *scalars)
    else:
        grouped = lf.select(*(e.implode() for e in lists), *scalars)
    grouped = v.raise_if_bad(grouped, checks)
    if default_pos:
        grouped = sc.check_default_pos_label(grouped, lf, y_true)
    z = None if ci is None else an.z_value(ci)
    metrics = [metric] if z is None else [metric, *names.interval_columns([metric])]
    key_schema = {k: t for k, t in grouped.collect_schema().items() if k in keys}

    def finish(df: pl.DataFrame) -> pl.DataFrame:
        if known is None and df.height and not df[_POSITIVES].sum():
            raise v.Bad.pos_label_absent(label, y_true, v.labels_present(lf, y_true))
        out = _values(df, len(tasks), metric, binary=mapping is None, z=z, average=average)
        out = [s.alias(m) for s, m in zip(out, metrics, strict=True)]
        return df.select(*key_schema).with_columns(out) if segments else pl.DataFrame(out)

    out_schema = {**(key_schema if segments else {}), **dict.fromkeys(metrics, pl.Float64)}
    result = grouped.map_batches(finish, schema=out_schema)
    if not segments:
        return result
    return names.restore_keys(result.sort(keys, nulls_last=True), segments.names)


def _values(
    df: pl.DataFrame, n_tasks: int, metric: str, *, binary: bool, z: float | None, average: str
) -> list[pl.Series]:
    """The metric (binary; the AUC with ``z``: and DeLong's bounds) or the mean of the
    one-vs-rest AUCs of each row (segment) of the sorted score lists."""
    lists = [(df[f"{_POS}{i}"], df[f"{_NEG}{i}"]) for i in range(n_tasks)]
    value = _METRICS[metric]
    if binary:
        rows = [value(p, n, z) for p, n in zip(*lists[0], strict=True)]
    else:  # the mean over the classes of each segment's one-vs-rest AUCs
        aucs = [[value(p, n, None)[0] for p, n in zip(*pn, strict=True)] for pn in lists]
        positives = [pn[0].list.len().to_list() for pn in lists]
        rows = [
            (_average([a[r] for a in aucs], [p[r] for p in positives], average),)
            for r in range(df.height)
        ]
    width = 1 if z is None else 3
    values = list(zip(*rows, strict=True)) if rows else [()] * width
    return [pl.Series(values=list(c), dtype=pl.Float64) for c in values]


def _average(aucs: list[float | None], positives: list[int], average: str) -> float | None:
    """Mean of the defined AUCs: plain (macro) or weighted by the positives (prevalence)."""
    kept = [(a, p) for a, p in zip(aucs, positives, strict=True) if a is not None]
    if not kept:
        return None
    if average == "weighted":
        total = sum(p for _, p in kept)
        return sum(a * p for a, p in kept) / total
    return sum(a for a, _ in kept) / len(kept)
