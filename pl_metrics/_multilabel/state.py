"""The multilabel mergeable state: both counts frames of :mod:`.counts` in one tidy frame.

``.metrics.multilabel_counts(...)`` writes (after ``*by``)::

    part, label, support, predicted, tp, n_true, n_pred, n_common, count

- ``part = "label"`` rows: one per (segment, label of the label set), zero rows
  included (so a merged state knows every label, also one no row holds in the
  mapping form): ``support``, ``predicted``, ``tp`` of the label; the other
  counts null;
- ``part = "rows"`` rows: the row histogram, one per (segment, ``n_true``,
  ``n_pred``, ``n_common``) seen, ``count`` its rows (or weight); ``label``,
  ``support``, ``predicted``, ``tp`` null.

Both parts are sums over rows, so concatenated states of shards are the state
of all rows; :func:`read_state` sums equal keys (``pl_metrics.state``'s merge)
and checks what must hold of any state made by the frame method (at collect):
the part's name, the histogram's triple (``0 <= n_common <= n_true, n_pred``),
each label's counts (``tp <= support, predicted``; ``support + predicted - tp <=
n``) and the two parts' agreement per segment (the labels' ``support``,
``predicted``, ``tp`` sum to the rows' ``n_true``, ``n_pred``, ``n_common``
times ``count``).  A corrupted state is refused (:class:`~pl_metrics.DataError`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl

from pl_metrics._core import checks, names
from pl_metrics._core.names import INTERNAL
from pl_metrics._multilabel.counts import COUNT, N_COMMON, N_PRED, N_TRUE, MultilabelCounts
from pl_metrics._multilabel.inputs import LABEL, Multilabel

PART = "part"
LABEL_PART, ROWS_PART = "label", "rows"
_LABEL_SUMS = ("support", "predicted", "tp")
_TRIPLE = (N_TRUE, N_PRED, N_COMMON)
_N = f"{INTERNAL}mls_n"
_GUARD = f"{INTERNAL}mls_guard"
#: Relative tolerance of the checks on weighted (Float64) sums: the order of float
#: additions differs between the parts and between merges.
_RTOL = 1e-9

#: ``pl_metrics.state._merged``: check, rename and sum a state (passed in: no cycle).
Merge = Callable[..., pl.LazyFrame]


def state_frame(counts: MultilabelCounts) -> pl.LazyFrame:
    """The public state of multilabel rows (see the module docstring)."""
    ml = counts.ml
    keys = ml.keys
    count_dtype = pl.Float64 if ml.weighted else pl.Int64
    label_rows = counts.labels.sort([*keys, names.ORD], nulls_last=True).select(
        *keys,
        pl.lit(LABEL_PART).alias(PART),
        LABEL,
        *(pl.col(c).cast(count_dtype) for c in _LABEL_SUMS),
        *(pl.lit(None, pl.Int64).alias(c) for c in _TRIPLE),
        pl.lit(None, count_dtype).alias(COUNT),
    )
    hist_rows = counts.rows.sort([*keys, *_TRIPLE], nulls_last=True).select(
        *keys,
        pl.lit(ROWS_PART).alias(PART),
        pl.lit(None, ml.types.compute).alias(LABEL),
        *(pl.lit(None, count_dtype).alias(c) for c in _LABEL_SUMS),
        *(pl.col(c).cast(pl.Int64) for c in _TRIPLE),
        pl.col(COUNT).cast(count_dtype),
    )
    return ml.finish(pl.concat([label_rows, hist_rows]), [LABEL])


def _raise(data_checks: Sequence[tuple[pl.Expr, str]]) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """A batch function raising the first check (an aggregation counting bad rows)."""

    def check(df: pl.DataFrame) -> pl.DataFrame:
        counts = df.select(expr.alias(f"c{i}") for i, (expr, _) in enumerate(data_checks))
        for i, (_, what) in enumerate(data_checks):
            n = int(counts[f"c{i}"].sum() or 0)
            if n:
                raise checks.Bad.multilabel_state(n, what)
        return df

    return check


def _exceeds(left: pl.Expr, right: pl.Expr, weighted: bool) -> pl.Expr:
    """``left > right`` (Float64 sums: beyond the order of additions)."""
    if not weighted:
        return left > right
    return left > right + _RTOL * pl.max_horizontal(left.abs(), right.abs())


def _differ(left: pl.Expr, right: pl.Expr, weighted: bool) -> pl.Expr:
    return _exceeds(left, right, weighted) | _exceeds(right, left, weighted)


def _checked_parts(
    sums: pl.LazyFrame, hist: pl.LazyFrame, keys: list[str], weighted: bool
) -> pl.LazyFrame:
    """``hist`` raising at collect when the merged parts do not fit together."""
    wide = pl.Float64 if weighted else pl.Int128
    n = hist.group_by(keys).agg(
        pl.col(COUNT).cast(wide).sum().alias(_N),
        *((pl.col(t).cast(wide) * pl.col(COUNT).cast(wide)).sum().alias(t) for t in _TRIPLE),
    )
    totals = sums.group_by(keys).agg(pl.col(c).cast(wide).sum() for c in _LABEL_SUMS)
    both = totals.join(n, on=keys, how="full", coalesce=True, nulls_equal=True).with_columns(
        pl.col(*_LABEL_SUMS, *_TRIPLE, _N).fill_null(0)
    )
    per_label = sums.join(n.select(*keys, _N), on=keys, how="left", nulls_equal=True).with_columns(
        pl.col(_N).fill_null(0)
    )
    s, p, tp = (pl.col(c).cast(wide) for c in _LABEL_SUMS)
    label_checks = [
        (
            (_exceeds(tp, s, weighted) | _exceeds(tp, p, weighted)).sum(),
            "a label's 'tp' exceeds its 'support' or 'predicted'",
        ),
        (
            _exceeds(s + p - tp, pl.col(_N), weighted).sum(),
            "a label's 'support' + 'predicted' - 'tp' exceeds the segment's rows "
            "(the 'count' of its 'rows' part)",
        ),
    ]
    agree = pl.any_horizontal(
        _differ(pl.col(c), pl.col(t), weighted) for c, t in zip(_LABEL_SUMS, _TRIPLE, strict=True)
    )
    segment_check = [
        (
            agree.sum(),
            "the 'label' part does not sum to the 'rows' part (support, predicted, tp "
            "against n_true, n_pred, n_common times count: parts of different states?)",
        )
    ]
    # one row holding 0, computed from both checked frames (a literal alone would be
    # folded away by the optimizer, and the checks with it)
    checked_labels = per_label.map_batches(_raise(label_checks)).select(pl.len().alias(_N))
    checked_segments = both.map_batches(_raise(segment_check)).select(pl.len().alias(_GUARD))
    guard = checked_labels.join(checked_segments, how="cross").select(
        (pl.col(_N) * 0 + pl.col(_GUARD) * 0).alias(_GUARD)
    )
    return hist.join(guard, how="cross").select(hist.collect_schema().names())


def check_schema(schema: pl.Schema) -> None:
    """The dtypes of a state's own columns (the counts': in the merge)."""
    for column in _TRIPLE:
        if not schema[column].is_integer():
            msg = f"state column {column!r} must be integers, got {schema[column]}"
            raise pl.exceptions.SchemaError(msg)
    for column in (*_LABEL_SUMS, COUNT):
        if not (schema[column].is_numeric() and schema[column] != pl.Boolean):
            msg = f"state column {column!r} must be numeric, got {schema[column]}"
            raise pl.exceptions.SchemaError(msg)
    if schema[PART] not in (pl.String, pl.Categorical):
        msg = f"state column {PART!r} must be strings ('label' or 'rows'), got {schema[PART]}"
        raise pl.exceptions.SchemaError(msg)


def read_state(
    lazy: pl.LazyFrame,
    by: names.Segments,
    types: checks.LabelTypes,
    labels: pl.Series | None,
    merge: Merge,
) -> tuple[Multilabel, pl.LazyFrame, pl.LazyFrame]:
    """The state's :class:`Multilabel` (no rows), its merged label sums and row histogram.

    ``labels``: the output order of the labels (the state's labels, every one of
    them: checked at collect), or ``None`` (sorted).
    """
    schema = lazy.collect_schema()
    check_schema(schema)
    weighted = any(schema[c].is_float() for c in (*_LABEL_SUMS, COUNT))
    part = pl.col(PART).cast(pl.String)
    triple = [pl.col(c) for c in _TRIPLE]
    row_checks = [
        (
            (part.is_null() | ~part.is_in([LABEL_PART, ROWS_PART])).sum(),
            "column 'part' is neither 'label' nor 'rows'",
        ),
        (
            (
                (part == ROWS_PART)
                & (
                    pl.any_horizontal(t.is_null() | (t < 0) for t in triple)
                    | (pl.col(N_COMMON) > pl.min_horizontal(pl.col(N_TRUE), pl.col(N_PRED)))
                ).fill_null(True)
            ).sum(),
            "a 'rows' row's n_true, n_pred, n_common are null, negative or n_common "
            "exceeds n_true or n_pred",
        ),
    ]
    checked = lazy.map_batches(_raise(row_checks))
    label_cast = (
        pl.col(LABEL).cast(pl.Float64) + 0.0
        if LABEL in types.float_columns
        else pl.col(LABEL).cast(types.compute)
    )
    label_part = checked.filter(part == LABEL_PART).with_columns(label_cast)
    sums = merge(
        label_part,
        by,
        {LABEL: LABEL, **{c: c for c in _LABEL_SUMS}},
        _LABEL_SUMS,
        label_columns=[LABEL] if types.float_columns else (),
    ).with_columns(pl.col(LABEL).cast(types.compute))
    hist = merge(
        checked.filter(part == ROWS_PART).with_columns(pl.col(*_TRIPLE).cast(pl.Int64)),
        by,
        {c: c for c in (*_TRIPLE, COUNT)},
        (COUNT,),
    )
    keys = names.segment_keys(by)
    sums = sums.cache()
    hist = _checked_parts(sums, hist, keys, weighted).cache()
    if labels is not None:
        sums = _same_labels(sums, labels)
    ml = Multilabel(
        rows=pl.LazyFrame(),
        by=list(by.names),
        keys=keys,
        types=types,
        labels=labels,
        weighted=weighted,
        checks=(),
    )
    return ml, sums, hist


def _same_labels(sums: pl.LazyFrame, labels: pl.Series) -> pl.LazyFrame:
    """``sums`` raising at collect unless ``labels=`` are the state's labels (any order)."""
    given = set(labels.to_list())

    def check(df: pl.DataFrame) -> pl.DataFrame:
        seen = set(df[LABEL].unique().to_list())
        if seen and seen != given:
            missing = sorted(given - seen, key=repr)
            extra = sorted(seen - given, key=repr)
            msg = (
                "`labels` must be the labels of the multilabel state, in any order (the "
                "samples average and the losses count every label of the state): not in "
                f"the state: {missing!r}; in the state but not in `labels`: {extra!r}. "
                "Make the states with `labels=` to use fewer labels"
            )
            raise ValueError(msg)
        return df

    return sums.map_batches(check)


def public_labels(labels: object, types: checks.LabelTypes) -> pl.Series | None:
    """A finisher's ``labels=`` as a Series of the compute dtype, or ``None``."""
    if labels is None:
        return None
    return checks.labels_series(labels, types.compute, LABEL)
