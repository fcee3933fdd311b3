"""Calibration's quantile bins on the engines: each segment's inner edges from all its
rows, the frame method's to the bit, without the rows on the driver (:func:`exact`).

The frame method (``_probability._bin_of``) puts the edges of a segment's problem
(binary, top label, or each class) at numpy's linear quantiles of its probabilities:
order statistic ``k`` is the smallest value whose position passes ``k``, the
position of a value being its rows' count up to it, or with weights the smallest
``p`` with ``p W >= C n`` (``C`` the weight up to it, ``W`` the segment's, ``n`` its
rows).  So ``passed > k`` is ``C n > k W``, read here from counts:

1. :func:`.calibration.calibration_totals` per segment: the rows, the weight, the
   weights with a fraction and the smallest and largest weight (every data check of
   the rows), which choose the frame method's branch: equal weights count rows;
   whole weights summing below 2**53 compare ``C n`` and ``k W`` exactly (Int128);
   other weights compare them in floats, whose rounding the frame method takes in its
   rows' order, which partitions do not keep, so an order statistic within that
   rounding of a position is refused (``NotImplementedError``), never guessed;
2. :func:`.calibration.calibration_values` per segment, class and distinct value, in
   slices of the value range (drift's mechanism: one slice up to ``drift_metrics.SLICE`` values,
   else slices about half that from a hashed sample of the triples,
   :func:`.drift_states.in_slice`, :func:`.drift.slice_bounds`), read in ascending
   order with the counts of the slices below carried along: each order statistic's
   first value found, then the frame method's interpolation
   (``_probability._interpolated``);
3. :func:`.calibration.calibration_sums` with the edges handed to every shard: the
   bins' sums, finished as the uniform bins are.

The driver holds segments x classes (x chunks, for the weights' extremes) rows and
one slice of values at a time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from pl_metrics import _probability
from pl_metrics._core import checks, names
from pl_metrics._core.names import INTERNAL
from pl_metrics._drift import metrics as drift_metrics
from pl_metrics._engines import calibration, jobs
from pl_metrics._engines.drift import slice_bounds
from pl_metrics._engines.losses import WEIGHT

_N, _W, _MODE = f"{INTERNAL}n", f"{INTERNAL}w", f"{INTERNAL}mode"
_PRIOR_ROWS, _PRIOR_W, _MAX = f"{INTERNAL}prior_rows", f"{INTERNAL}prior_w", f"{INTERNAL}max"
_AMBIGUOUS = f"{INTERNAL}ambiguous"
#: The frame method's branches of a segment's positions (``_probability._passed``).
_COUNT, _EXACT, _FLOAT = 0, 1, 2
_EPS = 2.0**-52


def exact(  # noqa: PLR0917 - the engine call's parts, in order
    engine: Any,
    method: str,
    handle: Any,
    schema: pl.Schema,
    args: tuple[Any, ...],
    state_kw: dict[str, Any],
    finisher: dict[str, Any],
    options: dict[str, Any],
    ranking: Callable[..., pl.DataFrame],
) -> pl.DataFrame | None:
    """``calibration_curve`` / ``calibration_error`` with quantile bins: the edges of
    every segment's problems from counts, then the bins' sums; None for uniform bins
    (and one bin: no edge), which one job of the sums finishes."""
    del ranking
    n_bins = state_kw.get("n_bins", 5)
    if state_kw.get("strategy") != "quantile" or n_bins == 1:
        return None
    by = state_kw.get("by")
    segments = checks.by_names(by)
    common = {k: state_kw.get(k) for k in ("by", "pos_label", "weight")}
    chunk = engine.chunk_rows()

    def run(maker: str, **kwargs: Any) -> pl.DataFrame:
        job = jobs.job(maker, args, chunk_rows=chunk, **common, **kwargs)
        return engine.run(handle, job, schema, **options)

    totals = _segments(run("calibration_totals"), segments)
    multi_class = state_kw.get("multi_class", "top_label")
    per_class = multi_class == "per_class" and isinstance(args[1], Mapping)
    values = int(totals[_N].sum() or 0) * (len(args[1]) if per_class else 1)  # triples
    bounds: list[float] = []
    if values > drift_metrics.SLICE:  # slices of about SLICE / 2 triples, from a hashed sample
        step = max(1, values // drift_metrics.SAMPLE)
        sample = run("calibration_values", multi_class=multi_class, step=step)
        bounds = slice_bounds(sample[calibration.VALUE], step)
    picker = _Picker(totals, segments, n_bins)
    for low, high in zip([-math.inf, *bounds], [*bounds, math.inf], strict=True):
        picker.read(run("calibration_values", multi_class=multi_class, low=low, high=high))
    edges = picker.edges(method, state_kw.get("weight"))
    rest = {k: state_kw.get(k) for k in ("n_bins", "multi_class", "strategy")}
    merged = run("calibration_sums", **rest, edges=edges)
    state = calibration.CalibrationSums(merged, by=segments)
    result = calibration.CALIBRATION_FINISHERS[method](state, **finisher)
    return result.collect() if isinstance(result, pl.LazyFrame) else result


def _internal(frame: pl.DataFrame, segments: list[str]) -> pl.DataFrame:
    """``frame`` with its ``by`` columns under the rows' internal segment keys (no ``by``:
    the constant key ``ALL``, as ``_probability.Rows`` makes it)."""
    if segments:
        return frame.rename(dict(zip(segments, names.segment_keys(segments), strict=True)))
    return frame.with_columns(pl.lit(0, pl.Int8).alias(names.ALL))


def _segments(totals: pl.DataFrame, segments: list[str]) -> pl.DataFrame:
    """Per segment (internal keys): its rows ``_N``, weight ``_W`` and the frame
    method's branch of its positions ``_MODE``."""
    keys = names.segment_keys(segments)
    frame = _internal(totals, segments)
    low, high = pl.col(calibration.LOW_WEIGHT).min(), pl.col(calibration.HIGH_WEIGHT).max()
    whole = (pl.col(calibration.FRACTIONAL).sum() == 0) & (pl.col(WEIGHT).sum() < 2.0**53)
    mode = (
        pl.when(low.is_null() | (low == high))
        .then(_COUNT)
        .when(whole)
        .then(_EXACT)
        .otherwise(_FLOAT)
    )
    return frame.group_by(keys).agg(
        pl.col(calibration.ROWS).sum().alias(_N),
        pl.col(WEIGHT).sum().cast(pl.Float64).alias(_W),
        mode.cast(pl.Int8).alias(_MODE),
    )


class _Picker:
    """The order statistics of every segment's problems, read slice by slice (values
    ascending): for each quantile, the first value passing its two positions ``below``
    and ``below + 1`` (``_probability._order_statistics``)."""

    def __init__(self, totals: pl.DataFrame, segments: list[str], n_bins: int) -> None:
        self.segments, self.keys = segments, names.segment_keys(segments)
        self.totals = totals
        self.qs = _probability.quantile_levels(n_bins)
        self.found: pl.DataFrame | None = None  # *keys, CLASS, prior sums, statistics

    def _statistic(self, i: int, step: int) -> str:
        return f"{INTERNAL}q{i}_{step}"

    def read(self, values: pl.DataFrame) -> None:
        """One slice's ``*by, CLASS, VALUE, ROWS, WEIGHT`` (above every slice before)."""
        keys = [*self.keys, calibration.CLASS]
        frame = _internal(values, self.segments).join(self.totals, on=self.keys, nulls_equal=True)
        before = [_PRIOR_ROWS, _PRIOR_W, _MAX, _AMBIGUOUS]
        statistics = [self._statistic(i, s) for i in range(len(self.qs)) for s in (0, 1)]
        if self.found is not None:
            carried = self.found.select(*keys, *before, *statistics)
            frame = frame.join(carried, on=keys, how="left", nulls_equal=True)
        frame = frame.sort([*keys, calibration.VALUE], nulls_last=True)
        rows = pl.col(_PRIOR_ROWS).fill_null(0) if self.found is not None else pl.lit(0)
        weight = pl.col(_PRIOR_W).fill_null(0.0) if self.found is not None else pl.lit(0.0)
        c_rows = rows + pl.col(calibration.ROWS).cum_sum().over(keys)
        c_weight = weight + pl.col(WEIGHT).cast(pl.Float64).cum_sum().over(keys)
        frame = frame.with_columns(c_rows.alias(_PRIOR_ROWS), c_weight.alias(_PRIOR_W))
        n, w = pl.col(_N), pl.col(_W)
        aggs, ambiguous = [], []
        for i, q in enumerate(self.qs):
            below = ((n.cast(pl.Float64) - 1) * q).floor()
            for s in (0, 1):
                passes, unsure = _passes(below + s, n, w)
                first = pl.col(calibration.VALUE).filter(passes).min()
                name = self._statistic(i, s)
                if self.found is not None:  # a statistic found in a slice below stays
                    first = pl.coalesce(pl.col(name).first(), first)
                aggs.append(first.alias(name))
                ambiguous.append(unsure.any())
        value_max = pl.col(calibration.VALUE).max()
        if self.found is not None:
            value_max = pl.max_horizontal(pl.col(_MAX).first(), value_max)
            ambiguous.append(pl.col(_AMBIGUOUS).first().fill_null(False))
        read = frame.group_by(keys).agg(
            pl.col(_PRIOR_ROWS).last(),
            pl.col(_PRIOR_W).last(),
            value_max.alias(_MAX),
            pl.any_horizontal(ambiguous).alias(_AMBIGUOUS),
            *aggs,
        )
        if self.found is not None:  # the problems without a value in this slice
            kept = self.found.join(read.select(keys), on=keys, how="anti", nulls_equal=True)
            read = pl.concat([kept.select(read.columns), read], how="vertical_relaxed")
        self.found = read

    def edges(self, method: str, weight: str | None) -> pl.DataFrame:
        """``*keys, CLASS, edge(0), ...``: each problem's inner edges (numpy's linear
        interpolation between its order statistics, the frame method's)."""
        keys = [*self.keys, calibration.CLASS]
        columns = [calibration.edge(i) for i in range(len(self.qs))]
        if self.found is None or self.found.is_empty():
            empty = self.totals.select(self.keys).clear()
            return empty.with_columns(pl.lit(None, pl.Null).alias(calibration.CLASS)).with_columns(
                pl.lit(None, pl.Float64).alias(c) for c in columns
            )
        if self.found[_AMBIGUOUS].any():
            msg = (
                f"pl_metrics engines: {method} with strategy='quantile' and weights "
                f"(`weight`={weight!r}) is not computed on the engines for these rows: a "
                "quantile falls within the rounding of a running sum of the weights, which "
                "the frame method sums in its rows' order, which partitions do not keep; "
                "use whole-number weights, or the .metrics method on polars rows"
            )
            raise NotImplementedError(msg)
        frame = self.found.join(self.totals, on=self.keys, nulls_equal=True)
        top = pl.col(_MAX)
        return frame.select(
            *keys,
            *(
                _probability._interpolated(
                    pl.coalesce(pl.col(self._statistic(i, 0)), top),
                    pl.coalesce(pl.col(self._statistic(i, 1)), top),
                    pl.col(_N),
                    q,
                ).alias(calibration.edge(i))
                for i, q in enumerate(self.qs)
            ),
        )


def _passes(k: pl.Expr, n: pl.Expr, w: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Row-wise (a value's running counts ``_PRIOR_ROWS``, ``_PRIOR_W``): whether its
    position passes ``k`` (``C n > k W``, in the segment's branch), and whether that is
    within the rounding of the frame method's float sums (the float branch only)."""
    rows, c = pl.col(_PRIOR_ROWS), pl.col(_PRIOR_W)
    wide = pl.Int128
    exact_ = c.cast(wide, strict=False) * n.cast(wide) > k.cast(wide) * w.cast(wide, strict=False)
    left, right = c * n.cast(pl.Float64), k * w
    floats = left > right
    slack = 4 * (n.cast(pl.Float64) + 2) * _EPS * (left + right)
    mode = pl.col(_MODE)
    passes = (
        pl.when(mode == _COUNT).then(rows > k).when(mode == _EXACT).then(exact_).otherwise(floats)
    )
    unsure = (mode == _FLOAT) & ((left - right).abs() <= slack)
    return passes, unsure
