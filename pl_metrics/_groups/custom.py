"""Custom metrics: scikit-learn-shaped callables per segment, as fairlearn's ``MetricFrame``.

A callable ``fn(y_true, y_pred[, sample_weight=])`` runs in Python once per
segment, on the segment's rows as numpy arrays: its cost is the callable's,
times the number of segments (the built-in methods run every segment in one
polars query; use them where one exists).  Rows of weight 0 are dropped, as
by every method here (fairlearn passes them: the same number for a metric
that weighs its rows, unless they alone hold a class).
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from pl_metrics._core import checks, forms, inputs, names

#: A custom metric: ``fn(y_true, y_pred, **kw) -> number``.
Metric = Callable[..., Any]


#: ``metrics`` as ``{name: callable}`` (a non-empty mapping of text names).
check_metrics = forms.callables


def _check_weighted(metrics: Mapping[str, Metric]) -> None:
    """With ``weight=``, each callable must take ``sample_weight=`` (a parameter of
    that name, or ``**kwargs``): else a TypeError naming the metric, before any row
    is read.  A callable whose signature cannot be read is called as it is
    (:func:`_weighted_call`)."""
    for name, fn in metrics.items():
        try:
            parameters = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):  # a builtin without a readable signature
            continue
        if not any(
            p.name == "sample_weight" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters
        ):
            raise _no_sample_weight(name)


def _no_sample_weight(name: str) -> TypeError:
    return TypeError(
        f"custom metric {name!r} takes no `sample_weight`: `weight=` passes each "
        "segment's weights to every metric as `sample_weight=`; give a function that "
        "takes it (e.g. `lambda y, p, sample_weight=None: ...`), or leave `weight` out"
    )


def _weighted_call(name: str, fn: Metric, y: Any, p: Any, kwargs: dict[str, Any]) -> Any:
    """``fn(y, p, **kwargs)``; a TypeError over ``sample_weight`` names the metric."""
    try:
        return fn(y, p, **kwargs)
    except TypeError as exc:
        if kwargs and "sample_weight" in str(exc):
            raise _no_sample_weight(name) from exc
        raise


def _number(name: str, value: object, segment: tuple[object, ...]) -> float | None:
    """A callable's result as a float (None and NaN: null), else a ValueError naming it."""
    if value is None:
        return None
    if hasattr(value, "ndim") and getattr(value, "ndim", 1) == 0:
        value = value.item()  # type: ignore[attr-defined]  # a numpy scalar
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        msg = (
            f"custom metric {name!r} returned {value!r} on the segment {segment}: it must "
            "return one number per segment (e.g. average= for a per-class scikit-learn score)"
        )
        raise ValueError(msg)
    number = float(value)
    return None if math.isnan(number) else number


def evaluate(
    rows: pl.LazyFrame,
    metrics: Mapping[str, Metric],
    y_true: str,
    y_pred: str,
    *,
    keys: Sequence[str],
    weight: str | None,
) -> pl.LazyFrame:
    """``*keys, *metrics``: each callable on each ``keys`` group of ``rows`` (sorted by the
    keys; no key: one row of all the rows; no rows: no row).  Null ``y_true`` /
    ``y_pred`` values, ``y_true`` floats that are not labels (NaN, 0.5) and bad
    weights (null, NaN, negative...) are refused, naming the column; rows of weight
    0 are dropped, as by every method."""
    keys = list(keys)
    if weight is not None:
        _check_weighted(metrics)
    read = list(dict.fromkeys([*keys, y_true, y_pred, *([weight] if weight else [])]))
    schema = rows.collect_schema()
    out_schema = {k: schema[k] for k in keys} | dict.fromkeys(metrics, pl.Float64)

    def run() -> pl.DataFrame:
        df = rows.select(read).collect()
        for column in (y_true, y_pred):
            if df.get_column(column).null_count():
                raise checks.Bad.nulls(column, df.get_column(column).null_count())
        if schema[y_true].is_float() and (
            bad := df.select(checks.not_a_label(y_true).sum()).item()
        ):
            raise checks.Bad.not_labels(y_true, bad)
        if weight is not None and (bad := df.select(checks.bad_weight(weight)).item()):
            raise checks.Bad.bad_weights(weight, bad)
        if not df.height:
            return pl.DataFrame(schema=out_schema)
        groups = df.partition_by(keys, as_dict=True) if keys else {(): df}
        out = []
        for key, part in groups.items():
            kwargs = {} if weight is None else {"sample_weight": part.get_column(weight).to_numpy()}
            y, p = part.get_column(y_true).to_numpy(), part.get_column(y_pred).to_numpy()
            values = [
                _number(n, _weighted_call(n, fn, y, p, kwargs), key) for n, fn in metrics.items()
            ]
            out.append([*key, *values])
        frame = pl.DataFrame(out, schema=out_schema, orient="row")
        return frame.sort(keys, nulls_last=True) if keys else frame

    return pl.defer(run, schema=out_schema)


def custom(
    lf: pl.LazyFrame,
    metrics: Mapping[str, Metric],
    y_true: str,
    y_pred: str,
    *,
    by: object,
    weight: str | None,
) -> pl.LazyFrame:
    """``*by, *metrics`` (the frame method :meth:`custom`)."""
    given = inputs.schema_stage(
        lf,
        by=by,
        weight=weight,
        reserved=list(metrics),
        columns={"y_true": y_true, "y_pred": y_pred},
    )
    checks.single_label_types(given.schema, y_true)  # labels: numbers, booleans or text
    result = evaluate(given.rows(lf), metrics, y_true, y_pred, keys=given.keys, weight=weight)
    return names.restore_keys(result, given.by) if given.keys else result


__all__ = ["Metric", "check_metrics", "custom", "evaluate"]
