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

from pl_metrics._core import checks as v
from pl_metrics._core import formulas as fm
from pl_metrics._core import names
from pl_metrics._core import scores as sc

_POS, _NEG = f"{names.INTERNAL}pos", f"{names.INTERNAL}neg"
_POSITIVES = f"{names.INTERNAL}positives"
_UNKNOWN = f"{names.INTERNAL}unknown"

#: Distinct scores among the first rows above which the sorted path is used.
MIN_DISTINCT = 2_000
_SAMPLE = 10_000


def use_sorted_path(df: pl.DataFrame, y_score: str | Mapping[object, str]) -> bool:
    """Whether the scores look continuous (many distinct values among the first rows)
    and numpy (an optional dependency, for its binary search) is installed."""
    if importlib.util.find_spec("numpy") is None:
        return False
    if not isinstance(y_score, (str, Mapping)):
        return False  # let the general path raise its error
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
    beyond = below.sum(dtype=np.float64)
    ties = at_or_below.sum(dtype=np.float64) - beyond
    # the mean placement of the positives among the negatives
    return float(fm.placement(beyond, ties, float(n.size)) / float(p.size))


def roc_auc_sorted(
    df: pl.DataFrame,
    y_true: str,
    y_score: str | Mapping[object, str],
    *,
    by: object,
    pos_label: object,
    average: str,
    reserved: Sequence[str],
) -> pl.DataFrame:
    """``*by, roc_auc``: binary, or the one-vs-rest macro / weighted mean (un-weighted rows).

    The same checks and messages as the counting path (``_ranking``): only the
    way the AUC is summed differs.
    """
    mapping = None if isinstance(y_score, str) else v.check_score_map("y_score", y_score)
    columns = [y_score] if mapping is None else list(mapping.values())
    lf = df.lazy()
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
    grouped = grouped.collect()
    if known is None and grouped.height and not grouped[_POSITIVES].sum():
        raise v.Bad.pos_label_absent(label, y_true, v.labels_present(lf, y_true))

    aucs = [
        [
            _mann_whitney(p, n)
            for p, n in zip(grouped[f"{_POS}{i}"], grouped[f"{_NEG}{i}"], strict=True)
        ]
        for i in range(len(tasks))
    ]
    positives = [grouped[f"{_POS}{i}"].list.len().cast(pl.Float64) for i in range(len(tasks))]
    values = [
        _average([a[r] for a in aucs], [p[r] for p in positives], average)
        for r in range(grouped.height)
    ]
    result = pl.Series("roc_auc", values, pl.Float64)
    if not segments:
        return result.to_frame()
    out = grouped.select(*keys).with_columns(result).sort(keys, nulls_last=True)
    return names.restore_keys(out.lazy(), segments.names).collect()


def _average(aucs: list[float | None], positives: list[float], average: str) -> float | None:
    """Mean of the defined AUCs: plain (macro) or weighted by the positives (prevalence)."""
    kept = [(a, p) for a, p in zip(aucs, positives, strict=True) if a is not None]
    if not kept:
        return None
    if average == "weighted":
        total = sum(p for _, p in kept)
        return sum(a * p for a, p in kept) / total
    return sum(a for a, _ in kept) / len(kept)
