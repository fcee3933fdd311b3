"""ROC AUC of an in-memory frame by sorting each class's scores once.

The per-score counts of :mod:`pl_metrics._ranking` are exact, stream, and are
fastest when scores take few distinct values; on continuous scores every row is
its own group.  Then, for rows already in memory, it is faster to sort the
positives' and the negatives' scores and binary-search: for every positive
score s, the negatives below s plus half those equal to s sum to the
Mann-Whitney U (ties one half), the same number as the trapezoid under the ROC
curve.  Used by ``DataFrame.metrics.roc_auc`` (un-weighted) when the scores look
continuous.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence

import polars as pl

from pl_metrics import _validate as v
from pl_metrics._ranking import _prepare, resolve_pos_label
from pl_metrics.exceptions import DataError

#: Distinct scores among the first rows above which the sorted path is used.
MIN_DISTINCT = 2_000
_SAMPLE = 10_000


def use_sorted_path(df: pl.DataFrame, y_score: str | Mapping[object, str]) -> bool:
    """Whether the scores look continuous (many distinct values among the first rows)
    and numpy (an optional dependency, for its binary search) is installed."""
    if importlib.util.find_spec("numpy") is None:
        return False
    columns = [y_score] if isinstance(y_score, str) else list(y_score.values())
    if not all(isinstance(c, str) and c in df.columns for c in columns):
        return False  # let the general path raise its error
    head = df.head(_SAMPLE)
    return all(head.get_column(c).n_unique() > MIN_DISTINCT for c in columns)


def _mann_whitney(pos: pl.Series, neg: pl.Series) -> float | None:
    """AUC from the sorted scores of the positives and the negatives (None: one class)."""
    import numpy as np  # only this in-memory path needs numpy

    if pos.len() == 0 or neg.len() == 0:
        return None
    p, n = pos.to_numpy(), neg.to_numpy()
    below = np.searchsorted(n, p, side="left")
    # ties are rare for continuous scores: search again only where one exists
    tied = n[np.minimum(below, n.size - 1)] == p
    at_or_below = below.copy()
    if tied.any():
        at_or_below[tied] = np.searchsorted(n, p[tied], side="right")
    u = (below.sum(dtype=np.float64) + at_or_below.sum(dtype=np.float64)) / 2
    return float(u / (float(p.size) * float(n.size)))


def roc_auc_sorted(
    df: pl.DataFrame,
    y_true: str,
    y_score: str | Mapping[object, str],
    *,
    by: str | Sequence[str] | None,
    pos_label: object,
    average: str,
    reserved: Sequence[str],
) -> pl.DataFrame:
    """``*by, roc_auc``: binary, or the one-vs-rest macro / weighted mean (un-weighted rows)."""
    columns = [y_score] if isinstance(y_score, str) else list(y_score.values())
    schema, by_list = _prepare(df.lazy(), y_true, columns, by=by, weight=None, reserved=reserved)
    if isinstance(y_score, str):
        tasks = [(pl.col(y_true) == pl.lit(resolve_pos_label(schema, y_true, pos_label)), y_score)]
        known = None
    else:
        dtype = schema[y_true]
        tasks = [(pl.col(y_true) == pl.lit(k, dtype), c) for k, c in y_score.items()]
        known = pl.Series(list(y_score), dtype=dtype)
    lists, scalars = (
        [],
        [
            pl.col(y_true).null_count().alias("null_true"),
            pl.sum_horizontal(
                (~(pl.col(c).cast(pl.Float64)).is_finite()).fill_null(True).sum() for c in columns
            ).alias("bad_score"),
        ],
    )
    if known is not None:
        unknown = pl.col(y_true).is_not_null() & ~pl.col(y_true).is_in(known.implode())
        scalars.append(unknown.sum().alias("unknown"))
    for i, (positive, column) in enumerate(tasks):
        score = pl.col(column).cast(pl.Float64) + 0.0  # -0.0 and 0.0 are one threshold
        lists += [
            score.filter(positive).sort().alias(f"pos{i}"),
            score.filter(~positive).sort().alias(f"neg{i}"),
        ]
    if by_list:
        grouped = df.group_by(by_list).agg(*lists, *scalars)
    else:
        grouped = df.select(*(e.implode() for e in lists), *scalars)
    _check(grouped, y_true, columns, known)

    aucs = [
        [_mann_whitney(p, n) for p, n in zip(grouped[f"pos{i}"], grouped[f"neg{i}"], strict=True)]
        for i in range(len(tasks))
    ]
    positives = [grouped[f"pos{i}"].list.len().cast(pl.Float64) for i in range(len(tasks))]
    values = [
        _average([a[r] for a in aucs], [p[r] for p in positives], average)
        for r in range(grouped.height)
    ]
    result = pl.Series("roc_auc", values, pl.Float64)
    if not by_list:
        return result.to_frame()
    return grouped.select(*by_list).with_columns(result).sort(by_list, nulls_last=True)


def _average(aucs: list[float | None], positives: list[float], average: str) -> float | None:
    """Mean of the defined AUCs: plain (macro) or weighted by the positives (prevalence)."""
    kept = [(a, p) for a, p in zip(aucs, positives, strict=True) if a is not None]
    if not kept:
        return None
    if average == "weighted":
        total = sum(p for _, p in kept)
        return sum(a * p for a, p in kept) / total
    return sum(a for a, _ in kept) / len(kept)


def _check(grouped: pl.DataFrame, y_true: str, columns: list[str], known: pl.Series | None) -> None:
    n_bad = grouped["bad_score"].sum()
    if n_bad:
        names = ", ".join(repr(c) for c in columns)
        msg = f"column {names} (argument `y_score`) has {n_bad} null, NaN or infinite values"
        raise DataError(msg)
    n_null = grouped["null_true"].sum()
    if n_null:
        raise v.null_rows(y_true, n_null)
    if known is not None and grouped["unknown"].sum():
        msg = (
            f"column {y_true!r} holds labels that have no score column in `y_score` "
            f"(keys: {known.to_list()!r})"
        )
        raise DataError(msg)
