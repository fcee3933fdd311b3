"""The mergeable state of calibration_curve and calibration_error with uniform bins
on the engines: per segment, class (``multi_class="per_class"``), bin and ``y_true``
label, the sums of the rows' outcomes, probabilities and weights.

Each shard bins the frame method's own reliability problems
(``_probability.problems``: binary, top label or per class) into its uniform bins
(``_probability.uniform_bin``, a probability on an edge in the lower bin) with its data
checks; the sums merge by addition.  On the driver a bin's observed frequency and mean
probability are its sums over its weight, Wilson's interval (``ci``) is of its
positives (the outcomes' sum of un-weighted rows) among its rows, the errors are
``_probability.bin_errors`` of the bins, and the binary label-set checks are the frame
method's on a row per label (:func:`.losses.check_label_set`).  Quantile bins
(``strategy="quantile"``) cut each segment's problem at the edges found before from
all its rows (:mod:`.calibration_edges`, with the states :func:`calibration_totals`
and :func:`calibration_values`), handed to every shard (``edges``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import polars as pl

from pl_metrics import _probability
from pl_metrics._core.names import INTERNAL
from pl_metrics._engines.drift_states import in_slice
from pl_metrics._engines.losses import LABEL, WEIGHT, check_label_set
from pl_metrics._stats import normal
from pl_metrics._typing import BinStrategy, By, CalibrationMultiClass, Score

CLASS = f"{INTERNAL}class"
BIN = f"{INTERNAL}bin"
OUTCOME = f"{INTERNAL}outcome"
PROBABILITY = f"{INTERNAL}probability"
#: The state's keys after ``*by``, its summed columns, those summing to the weight.
SHAPE = ((CLASS, BIN, LABEL), (OUTCOME, PROBABILITY, WEIGHT), (WEIGHT,))
_ONE = f"{INTERNAL}one_curve"
#: A segment's rows, the weights' smallest and largest (keys: each chunk's own, the
#: driver takes their min and max), the weights with a fraction; a problem's value.
ROWS = f"{INTERNAL}rows"
LOW_WEIGHT, HIGH_WEIGHT = f"{INTERNAL}low_weight", f"{INTERNAL}high_weight"
FRACTIONAL = f"{INTERNAL}fractional"
VALUE = f"{INTERNAL}value"
TOTALS_SHAPE = ((LOW_WEIGHT, HIGH_WEIGHT), (ROWS, WEIGHT, FRACTIONAL), (WEIGHT,))
VALUES_SHAPE = ((CLASS, VALUE), (ROWS, WEIGHT), (WEIGHT,))


def edge(i: int) -> str:
    """The column of a quantile bin's ``i``-th inner edge (:func:`calibration_sums`)."""
    return f"{INTERNAL}edge{i}"


def calibration_sums(
    lf: pl.LazyFrame,
    y_true: str,
    y_prob: Score,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    n_bins: int = 5,
    multi_class: CalibrationMultiClass = "top_label",
    strategy: BinStrategy = "uniform",
    edges: pl.DataFrame | None = None,
) -> pl.LazyFrame:
    """``*by, CLASS, BIN, LABEL, OUTCOME, PROBABILITY, WEIGHT`` of ``lf``'s rows (CLASS
    null but per class): the state a shard sends.  Quantile bins: cut at ``edges``
    (``*keys, CLASS, edge(0), ...``: each segment's and class's inner edges, under the
    rows' internal segment keys; :mod:`.calibration_edges`)."""
    rows = _probability.Rows(
        lf, y_true, y_prob, by=by, pos_label=pos_label, weight=weight, reserved=()
    )
    w = rows.weight
    parts = []
    for label, p, outcome in _probability.problems(rows, multi_class):
        sums = [
            (outcome if w is None else outcome * w).sum().alias(OUTCOME),
            (p if w is None else p * w).sum().alias(PROBABILITY),
            (pl.len().cast(pl.Int64) if w is None else w.sum()).alias(WEIGHT),
        ]
        frame, bin_of = rows.lf, _probability.uniform_bin(p, n_bins)
        if strategy == "quantile" and n_bins > 1:
            assert edges is not None  # found by calibration_edges before this job
            mine = edges if label is None else edges.filter(pl.col(CLASS) == label)
            frame = frame.join(mine.drop(CLASS).lazy(), on=rows.keys, nulls_equal=True)
            above = ((p > pl.col(edge(i))).cast(pl.Int64) for i in range(n_bins - 1))
            bin_of = pl.sum_horizontal(above)
        frame = frame.with_columns(
            _class(label, rows),
            bin_of.alias(BIN),
            pl.col(rows.y_true).alias(LABEL),
        )
        keys = [*rows.keys, CLASS, BIN, LABEL]
        parts.append(rows.aggregate(*sums, keys=keys, frame=frame, label_sets=False))
    return rows.finish(pl.concat(parts))


def _class(label: object, rows: _probability.Rows) -> pl.Expr:
    """The problem's class (null but per class) as the state's CLASS column."""
    return pl.lit(label, pl.Null() if label is None else rows.labels.dtype).alias(CLASS)


def calibration_totals(
    lf: pl.LazyFrame,
    y_true: str,
    y_prob: Score,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
) -> pl.LazyFrame:
    """``*by, LOW_WEIGHT, HIGH_WEIGHT, ROWS, WEIGHT, FRACTIONAL``: per segment the rows,
    their weight (or number), the weights with a fraction, and the chunk's smallest and
    largest weight (null without weights): what the frame method's quantile positions
    read of a segment's weights (``_probability._passed``), with every data check of
    the rows."""
    rows = _probability.Rows(
        lf, y_true, y_prob, by=by, pos_label=pos_label, weight=weight, reserved=()
    )
    w = rows.weight
    none = pl.lit(None, pl.Float64)
    aggs = [
        pl.len().cast(pl.Int64).alias(ROWS),
        (pl.len().cast(pl.Int64) if w is None else w.sum()).alias(WEIGHT),
        (pl.lit(0, pl.Int64) if w is None else (w != w.floor()).sum().cast(pl.Int64)).alias(
            FRACTIONAL
        ),
        (none if w is None else w.min()).alias(LOW_WEIGHT),
        (none if w is None else w.max()).alias(HIGH_WEIGHT),
    ]
    found = rows.aggregate(*aggs, label_sets=False)
    return rows.finish(found.select(*rows.keys, LOW_WEIGHT, HIGH_WEIGHT, *TOTALS_SHAPE[1]))


def calibration_values(
    lf: pl.LazyFrame,
    y_true: str,
    y_prob: Score,
    *,
    by: By = None,
    pos_label: object = None,
    weight: str | None = None,
    multi_class: CalibrationMultiClass = "top_label",
    low: float = -math.inf,
    high: float = math.inf,
    step: int = 1,
) -> pl.LazyFrame:
    """``*by, CLASS, VALUE, ROWS, WEIGHT``: per segment, class (null but per class) and
    distinct probability of each reliability problem in the slice (low, high] (``step``
    > 1: the (segment, class, value) triples whose hash is a multiple of it, drift's
    sample of a slice's bounds: :func:`.drift_states.in_slice`), its rows and their
    weight (or number)."""
    rows = _probability.Rows(
        lf, y_true, y_prob, by=by, pos_label=pos_label, weight=weight, reserved=()
    )
    w = rows.weight
    sums = [
        pl.len().cast(pl.Int64).alias(ROWS),
        (pl.len().cast(pl.Int64) if w is None else w.sum()).alias(WEIGHT),
    ]
    parts = []
    x = pl.col(VALUE)
    for label, p, _ in _probability.problems(rows, multi_class):
        frame = rows.lf.with_columns(_class(label, rows), p.alias(VALUE))
        hashed = pl.struct(*rows.keys, CLASS, VALUE).hash(seed=0)
        frame = frame.filter(in_slice(x, low, high, step, hashed))
        keys = [*rows.keys, CLASS, VALUE]
        parts.append(rows.aggregate(*sums, keys=keys, frame=frame, label_sets=False))
    return rows.finish(pl.concat(parts))


class CalibrationSums:
    """A merged :func:`calibration_sums` state and its segments (``by`` names)."""

    def __init__(self, state: pl.DataFrame, *, by: list[str]) -> None:
        self.state, self.by = state, by

    def bins(
        self, y_true: str, y_prob: Score, pos_label: object, method: str, ci: float | None = None
    ) -> tuple[pl.LazyFrame, list[str]]:
        """``*by, [CLASS,] bin, prob_true, prob_pred, count[, bounds]``: the non-empty
        bins in order (the frame method's), and the keys of one curve."""
        check_label_set(self.state, y_true, y_prob, pos_label, method)
        per_class = self.state.schema[CLASS] != pl.Null  # a curve per class
        keys = [*self.by, CLASS] if per_class else list(self.by)
        weight = pl.col(WEIGHT)
        sums = (
            self.state.lazy().group_by([*keys, BIN]).agg(pl.col(OUTCOME, PROBABILITY, WEIGHT).sum())
        )
        bounds = []
        if ci is not None:  # un-weighted rows: the outcomes sum to the bin's positives
            low, high = normal.wilson(pl.col(OUTCOME).round().cast(pl.Int64), weight, ci)
            bounds = [low.alias("prob_true_low"), high.alias("prob_true_high")]
        bins = sums.select(
            *keys,
            pl.col(BIN).alias("bin"),
            (pl.col(OUTCOME) / weight).alias("prob_true"),
            (pl.col(PROBABILITY) / weight).alias("prob_pred"),
            weight.alias("count"),
            *bounds,
        )
        return bins.sort([*keys, "bin"], nulls_last=True, maintain_order=True), keys


def _labelled(frame: pl.LazyFrame, keys: list[str]) -> pl.DataFrame:
    return frame.rename({CLASS: "label"} if CLASS in keys else {}).collect()


def calibration_curve(
    sums: CalibrationSums,
    *,
    y_true: str,
    y_prob: Score,
    pos_label: object = None,
    ci: float | None = None,
) -> pl.DataFrame:
    """As :meth:`MetricsLazyFrame.calibration_curve` with uniform bins, of a merged
    :func:`calibration_sums` state."""
    bins, keys = sums.bins(y_true, y_prob, pos_label, "calibration_curve", ci)
    return _labelled(bins, keys)


def calibration_error(
    sums: CalibrationSums, *, y_true: str, y_prob: Score, pos_label: object = None
) -> pl.DataFrame:
    """As :meth:`MetricsLazyFrame.calibration_error` with uniform bins, of a merged
    :func:`calibration_sums` state."""
    bins, keys = sums.bins(y_true, y_prob, pos_label, "calibration_error")
    curve = keys or [_ONE]  # one curve without segments: a constant key
    bins = bins.with_columns(pl.lit(0, pl.Int8).alias(_ONE)) if not keys else bins
    errors = _probability.bin_errors(bins, curve)
    return _labelled(errors.drop(_ONE) if not keys else errors, keys)


#: The finishers above, by the frame method they equal.
CALIBRATION_FINISHERS: dict[str, Callable[..., Any]] = {
    f.__name__: f for f in (calibration_curve, calibration_error)
}
