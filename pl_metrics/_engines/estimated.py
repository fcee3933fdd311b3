"""``estimated_performance`` on the engines, with the driver's memory bounded.

Two jobs, each of its own state made by polars on every shard (a Spark partition, a
Dask partition or file), with the frame method's own checks (:mod:`pl_metrics.
_monitoring.estimated`: its reference reader and its current rows' lists):

1. **The calibration map** (``calibration="isotonic"``), fitted on the reference rows
   (an expression marking rows of the data, or a second frame of the same engine; a
   polars frame is fitted here, as the frame method fits it).  The rows are
   range-partitioned by score (:mod:`.ranked`'s partitions: equal scores meet in one
   partition, the partitions in ascending score ranges); each partition sums its
   labels per distinct score (the frame method's reader), fits PAV on its own scores
   and sends its blocks (first and last score, summed positive weight and weight of
   each run of equal fitted values).  The isotonic fit of all the rows is constant on
   each partition's blocks (pooling adjacent violators in any order ends at the one
   solution), so PAV over the blocks in score order (:func:`.calibration.isotonic`)
   is the fit of all the rows, and its knots (:func:`.calibration.knots`: the first
   and last score of each run of equal fitted values) the frame method's map.  The
   driver holds the partitions' blocks and the map's knots, never a row.
2. **The current rows' sums**: each shard sums its rows per segment and distinct score
   (the weight predicted positive, the rest, their squares), calibrates each score
   with the knots (sent with the job) and sends per segment the expected counts ``tp,
   fp, fn, tn``, the interval's sums ``sum w^2 p (1 - p)`` over the rows predicted
   positive and the rest, and, where ``roc_auc`` is asked for, the rows
   range-partitioned by score: its expected AUC's summary (the weighted AUC of each
   row counted as a positive of weight ``w p`` and a negative of weight ``w (1 - p)``):
   its expected positive and negative weight ``P_j``, ``N_j``, the pairs it orders
   right and wrong within itself (ties one half), and the moments of DeLong's
   placements that the variance needs.  A negative of partition ``j`` is below every
   positive of the partitions after it, so

       right = sum_j (right_j + N_j sum_{i > j} P_i),
       wrong = sum_j (wrong_j + N_j sum_{i < j} P_i),

   and the AUC is ``right / (right + wrong)``, as the frame method sums it.  The
   variance (:mod:`pl_metrics._intervals.label_draws`) is ``sum_k v_k (Y - u_k)^2 /
   (P N)^2`` over the distinct scores ``k`` (``v_k = p (1 - p) sum w^2``, ``u_k`` the
   weight above the score in its partition plus half its own, ``Y = N - A_j - R (N -
   P)`` with ``A_j`` the weight of the partitions above): each partition sends
   ``sum v``, the ``v``-weighted mean ``u0`` of its ``u`` and ``sum v (u - u0)^2``, and
   ``sum_k v_k (Y - u_k)^2 = (Y - u0)^2 sum v + sum v (u - u0)^2`` (two sums of
   squares: nothing cancels).  The driver holds partitions x segments rows.

The label-set checks of all the rows (the default ``pos_label``'s {0, 1} / {-1, 1},
a third label, a reference of one class) are the frame method's on the shards' label
samples (:mod:`.shards`), raised on the driver.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from pl_metrics import metrics as _metrics
from pl_metrics._core import catalogue, checks, inputs, names, scores
from pl_metrics._core.messages import Bad
from pl_metrics._core.names import ALL, INTERNAL
from pl_metrics._engines import jobs, ranked
from pl_metrics._engines.shards import label_sample
from pl_metrics._monitoring import calibration, estimated, segment_sums
from pl_metrics.exceptions import DataError

METHOD = "estimated_performance"
#: How the engine function computes it (its docstring).
HOW = (
    "the calibration map fitted from each score range's PAV blocks of the reference "
    "rows, then each shard's expected counts per segment (and, for roc_auc, each score "
    "range's summary), merged and finished on the driver"
)

PART = ranked.PART
_SCORE = f"{INTERNAL}score"
# the reference's per-score state and its blocks
_POSITIVE, _WEIGHT, _NULLS = (f"{INTERNAL}{c}" for c in ("positive", "weight", "flag_nulls"))
_LOW, _HIGH = f"{INTERNAL}low", f"{INTERNAL}high"
# the current rows' per-score state: weight predicted positive, the rest, their squares
_PRED, _REST, _PRED_SQ, _REST_SQ, _ROWS = (
    f"{INTERNAL}{c}" for c in ("pred", "rest", "pred_sq", "rest_sq", "rows")
)
#: A partition's summary per segment (:func:`_current_summary`).
_SUMS = ("n", "w", "tp", "fp", "fn", "tn", "s_tp", "s_fn")
_AUC = ("P", "N", "right", "wrong", "V", "u0", "m2")
_INFINITE = f"{INTERNAL}infinite"

Knots = tuple[Any, Any]


# ------------------------------------------------------------------ the reference
def reference_sums(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: str,
    *,
    flag: pl.Expr | None,
    weight: str | None,
    pos_label: object,
) -> pl.LazyFrame:
    """A shard's reference rows (those ``flag`` marks, or all) as the frame method reads
    them: per distinct score, the summed weight of its ``pos_label`` rows and of all its
    rows, its data checks raised (as the reference's errors); the rows whose ``flag`` is
    null counted (:data:`_NULLS`, on a row of null score: the driver refuses them)."""
    ref = estimated.Reference(
        lf, lf if flag is None else flag, y_true=y_true, y_score=y_score, weight=weight,
        pos_label=pos_label,
    )  # fmt: skip
    try:
        read = ref._read()[2]
        scores, positive, total = ref._counts(read)
    except DataError as error:
        raise Bad.in_reference(error) from None
    frame = pl.DataFrame(
        {_SCORE: scores, _POSITIVE: positive, _WEIGHT: total},
        schema={_SCORE: pl.Float64, _POSITIVE: pl.Float64, _WEIGHT: pl.Float64},
    ).with_columns(pl.lit(0, pl.Int64).alias(_NULLS))
    nulls = 0 if flag is None else lf.select(flag.null_count()).collect().item()
    if nulls:
        row = pl.DataFrame({_SCORE: [None], _POSITIVE: [0.0], _WEIGHT: [0.0], _NULLS: [nulls]})
        frame = pl.concat([frame, row], how="vertical_relaxed")
    return frame.lazy()


def _blocks(state: pl.DataFrame, index: int) -> pl.DataFrame:
    """A score range's per-score sums as PAV blocks: one row, the blocks as lists (the
    first and last score of each run of equal fitted values, its summed positive weight
    and weight), the rows of null ``flag``."""
    import numpy as np

    nulls = int(state.get_column(_NULLS).sum())
    rows = state.filter(pl.col(_SCORE).is_not_null()).sort(_SCORE)
    scores = rows.get_column(_SCORE).to_numpy()
    positive = rows.get_column(_POSITIVE).cast(pl.Float64).to_numpy()
    weight = rows.get_column(_WEIGHT).cast(pl.Float64).to_numpy()
    if rows.height:
        fitted = calibration.isotonic(positive, weight)
        starts = np.flatnonzero(np.r_[True, fitted[1:] != fitted[:-1]])
        ends = np.r_[starts[1:], scores.size] - 1
        blocks = [scores[starts], scores[ends]]
        blocks += [np.add.reduceat(positive, starts), np.add.reduceat(weight, starts)]
    else:
        blocks = [np.zeros(0)] * 4
    listed = pl.List(pl.Float64)
    return pl.DataFrame(
        {
            PART: [index],
            **{
                c: [b.tolist()]
                for c, b in zip((_LOW, _HIGH, _POSITIVE, _WEIGHT), blocks, strict=True)
            },
            _NULLS: [nulls],
        },
        schema={PART: pl.Int64, _LOW: listed, _HIGH: listed, _POSITIVE: listed, _WEIGHT: listed,
                _NULLS: pl.Int64},
    )  # fmt: skip


@dataclass(frozen=True)
class ReferenceJob(jobs.Job):
    """The reference rows' job: per-score label sums, sent as each score range's PAV
    blocks; their labels sampled for the checks of all of them."""

    label_dtype: pl.DataType | None = None

    @property
    def labelled(self) -> bool:
        return True

    def state(self, lf: pl.LazyFrame) -> pl.DataFrame:
        return reference_sums(lf, *self.args, **self.kwargs).collect()

    def sample(self, frame: pl.DataFrame | pl.LazyFrame) -> pl.Series:
        rows = frame.lazy()
        flag = self.kwargs["flag"]
        rows = rows if flag is None else rows.filter(flag)
        rows = checks.without_zero_weights(rows, self.kwargs["weight"])
        return label_sample(rows.select(self.y_true).collect().to_series())

    def check_samples(
        self, samples: list[pl.Series], positives: float | None, score_dtype: pl.DataType
    ) -> None:
        """The frame method's fit on a few rows holding the labels of all the reference
        rows: a third label, the default ``pos_label``'s rule, one class."""
        y_true, y_score = self.args
        proxy = _proxy(
            samples, column=y_true, dtype=self.label_dtype, y_score=y_score,
            score_dtype=score_dtype, kwargs=self.kwargs,
        )  # fmt: skip
        weight, pos_label = self.kwargs["weight"], self.kwargs["pos_label"]
        estimated.Reference(
            proxy, proxy, y_true=y_true, y_score=y_score, weight=weight, pos_label=pos_label
        ).fit()

    def summary(self, state: pl.DataFrame, index: int) -> pl.DataFrame:
        return _blocks(state, index)


def _proxy(
    samples: list[pl.Series],
    *,
    column: str,
    dtype: pl.DataType | None,
    y_score: str,
    score_dtype: pl.DataType,
    kwargs: dict[str, Any],
) -> pl.LazyFrame:
    """A few rows holding the shards' label samples of ``column``, a valid score (0.5)
    and weight 1: the frame method's label-set checks read them as all the rows."""
    given = [s.rename(column).to_frame() for s in samples if s.len()]
    if given:
        labels = pl.concat(given, how="vertical_relaxed").unique()
    else:
        labels = pl.DataFrame(schema={column: dtype or pl.Int64()})
    score = pl.lit(0.5, pl.Float64).cast(score_dtype, strict=False).fill_null(0)
    proxy = labels.lazy().with_columns(score.alias(y_score))
    if kwargs["weight"] is not None:
        proxy = proxy.with_columns(pl.lit(1.0).alias(kwargs["weight"]))
    return proxy


def knots(summaries: pl.DataFrame) -> Knots:
    """The calibration map's knots from every score range's blocks (in range order):
    PAV over the blocks, then the first and last score of each run of equal fitted
    values (:func:`.calibration.knots`'s points)."""
    import numpy as np

    if PART in summaries.columns and summaries.height:
        nulls = int(summaries.get_column(_NULLS).sum())
        if nulls:
            raise checks.Bad.reference_nulls(nulls)
        ordered = summaries.sort(PART)

        def flat(column: str) -> Any:
            return ordered.get_column(column).explode().drop_nulls().to_numpy()

        low, high, positive, weight = (flat(c) for c in (_LOW, _HIGH, _POSITIVE, _WEIGHT))
    else:
        low = high = positive = weight = np.zeros(0)
    fitted = calibration.isotonic(positive, weight)
    starts = np.flatnonzero(np.r_[True, fitted[1:] != fitted[:-1]])
    ends = np.r_[starts[1:], fitted.size] - 1
    # each run: its first score, and its last where that is another score
    x = np.stack([low[starts], high[ends]], axis=1)
    y = np.stack([fitted[starts], fitted[ends]], axis=1)
    keep = np.ones(x.shape, dtype=bool)
    keep[:, 1] = x[:, 1] != x[:, 0]
    return x[keep], y[keep]


# ------------------------------------------------------------------ the current rows
def current_sums(
    lf: pl.LazyFrame,
    y_pred: str,
    y_score: str,
    *,
    by: object,
    weight: str | None,
    pos_label: object,
    flag: pl.Expr | None,
    probabilities: bool,
    knots: Knots | None,
) -> pl.LazyFrame:
    """A shard's current rows (those ``flag`` does not mark, or all) per segment and
    distinct score: the weight predicted ``pos_label`` and the rest, their squares and
    the rows; the frame method's data checks of the rows raised (its lists and
    counts: :func:`pl_metrics._monitoring.estimated._current_state`).  ``knots``:
    read by the summary."""
    del knots
    given: inputs.Input[None] = inputs.schema_stage(
        lf, by=by, weight=weight, reserved=(), columns={"y_pred": y_pred, "y_score": y_score},
        numeric={"y_score": [y_score]},
    )  # fmt: skip
    schema = given.schema
    current = given.current_rows(lf, flag)
    lists, counts, check = estimated._current_state(
        current,
        given.keys,
        schema,
        y_pred,
        y_score,
        pos_label=scores.resolve_pos_label(schema, y_pred, pos_label),
        default_pos=scores.defaults_pos_label(schema, y_pred, pos_label),
        weight=weight,
        probabilities=probabilities,
        keyed=False,
    )
    found, df = pl.collect_all([counts, lists])
    check(found, df)
    keys = given.keys or [ALL]
    listed = [
        segment_sums.SCORES,
        segment_sums.PREDICTED,
        *([segment_sums.WEIGHTS] if weight is not None else []),
    ]
    flat = df.select(*keys, *listed).explode(listed)
    w = pl.col(segment_sums.WEIGHTS) if weight is not None else pl.lit(1.0)
    predicted = pl.col(segment_sums.PREDICTED)
    pred, rest = (
        pl.when(predicted).then(w).otherwise(0.0),
        pl.when(predicted).then(0.0).otherwise(w),
    )
    return (
        flat.lazy()
        .group_by(*keys, pl.col(segment_sums.SCORES).alias(_SCORE))
        .agg(
            pred.sum().alias(_PRED),
            rest.sum().alias(_REST),
            (pred * pred).sum().alias(_PRED_SQ),
            (rest * rest).sum().alias(_REST_SQ),
            pl.len().cast(pl.Int64).alias(_ROWS),
        )
    )


def _current_summary(
    state: pl.DataFrame, index: int, keys: Sequence[str], knots: Knots | None
) -> pl.DataFrame:
    """A shard's per-score sums as its summary per segment (:data:`_SUMS`, :data:`_AUC`;
    the AUC's only meaningful where the rows are range-partitioned by score)."""
    score = state.get_column(_SCORE).to_numpy()
    p = score if knots is None else calibration.calibrate(score, *knots)
    frame = state.with_columns(pl.Series("p", p, pl.Float64)).sort(
        [*keys, _SCORE], descending=[False] * len(keys) + [True], nulls_last=True
    )
    p_, q = pl.col("p"), 1.0 - pl.col("p")
    pred, rest = pl.col(_PRED), pl.col(_REST)
    total = pred + rest
    pos, neg = p_ * total, q * total
    tps = pos.cum_sum()
    tied = (neg * pos).sum() / 2

    def spread_of(squares: pl.Expr) -> pl.Expr:  # p (1 - p) w^2: 0, not NaN, for inf w^2
        return pl.when(p_ * q > 0).then(p_ * q * squares).otherwise(0.0)

    spread = spread_of(pl.col(_PRED_SQ) + pl.col(_REST_SQ))
    u = total.cum_sum() - total / 2  # the weight above the score, and half its own
    mass = spread.sum()
    u0 = pl.when(mass > 0).then((spread * u).sum() / mass).otherwise(0.0)
    aggs = [
        pl.col(_ROWS).sum().cast(pl.Int64).alias("n"),
        total.sum().alias("w"),
        (p_ * pred).sum().alias("tp"),
        (q * pred).sum().alias("fp"),
        (p_ * rest).sum().alias("fn"),
        (q * rest).sum().alias("tn"),
        spread_of(pl.col(_PRED_SQ)).sum().alias("s_tp"),
        spread_of(pl.col(_REST_SQ)).sum().alias("s_fn"),
        pos.sum().alias("P"),
        neg.sum().alias("N"),
        ((neg * tps).sum() - tied).alias("right"),
        ((neg * (pos.sum() - tps)).sum() + tied).alias("wrong"),
        mass.alias("V"),
        u0.alias("u0"),
        (spread * (u - u0) * (u - u0)).sum().alias("m2"),
    ]
    out = frame.group_by(keys, maintain_order=True).agg(aggs)
    return out.with_columns(pl.lit(index, pl.Int64).alias(PART))


@dataclass(frozen=True)
class CurrentJob(jobs.Job):
    """The current rows' job: per-score sums, sent as each shard's summary per
    segment; the predictions' labels sampled for the checks of all of them."""

    label_dtype: pl.DataType | None = None

    @property
    def labelled(self) -> bool:
        return True

    def state(self, lf: pl.LazyFrame) -> pl.DataFrame:
        return current_sums(lf, *self.args, **self.kwargs).collect()

    def sample(self, frame: pl.DataFrame | pl.LazyFrame) -> pl.Series:
        rows = frame.lazy()
        flag = self.kwargs["flag"]
        rows = rows if flag is None else rows.filter(~flag)
        rows = checks.without_zero_weights(rows, self.kwargs["weight"])
        return label_sample(rows.select(self.y_true).collect().to_series())

    def check_samples(
        self, samples: list[pl.Series], positives: float | None, score_dtype: pl.DataType
    ) -> None:
        """The frame method's checks of ``y_pred``'s labels on a few rows holding every
        shard's: a third label, the default ``pos_label``'s rule."""
        y_pred, y_score = self.args
        if not any(s.len() for s in samples):
            return
        proxy = _proxy(
            samples, column=y_pred, dtype=self.label_dtype, y_score=y_score,
            score_dtype=score_dtype, kwargs=self.kwargs,
        )  # fmt: skip
        _metrics(proxy).estimated_performance(
            y_pred, y_score, calibration=None, pos_label=self.kwargs["pos_label"],
            weight=self.kwargs["weight"], metrics="accuracy",
        ).collect()  # fmt: skip

    def summary(self, state: pl.DataFrame, index: int) -> pl.DataFrame:
        return _current_summary(state, index, self.keys[:-1], self.kwargs["knots"])


def _finish(
    summaries: pl.DataFrame,
    keys: list[str],
    *,
    by_ranges: bool,
    weighted: bool,
    method: str,
    segments: list[str] | None = None,
) -> pl.DataFrame:
    """The frame method's sums per ``keys`` (``estimated._TP`` ..., ``roc_auc``, the
    variances) from every shard's summary; the AUC from score ranges (``by_ranges``),
    else NaN (not asked for).  Sums that overflow Float64, the shards' or the merged
    ones (weights near the largest float, which the frame method scales first), are
    refused as ``method``'s, counting the ``segments`` (default: ``keys``):
    :func:`raise_if_overflowed`."""
    segments = keys if segments is None else segments
    if PART not in summaries.columns:  # no shard had rows
        summaries = pl.DataFrame(
            schema={**{k: summaries.schema[k] for k in keys}, **dict.fromkeys(_SUMS, pl.Float64),
                    **dict.fromkeys(_AUC, pl.Float64), PART: pl.Int64},
        )  # fmt: skip
    unranked = () if by_ranges else _AUC  # not asked for: not read
    raise_if_overflowed(summaries.drop(PART, *unranked), segments, method)
    frame = summaries.sort([*keys, PART], descending=[False] * len(keys) + [True])

    def within(expr: pl.Expr) -> pl.Expr:
        return expr.over(keys)

    p_part, n_part = pl.col("P"), pl.col("N")
    p_above = within(p_part.cum_sum()) - p_part  # the positives of higher score ranges
    above = within(pl.col("w").cum_sum()) - pl.col("w")
    frame = frame.with_columns(
        p_above.alias("p_above"),
        above.alias("above"),
        within(p_part.sum()).alias("p_total"),
        within(n_part.sum()).alias("n_total"),
    )
    p_below = pl.col("p_total") - pl.col("p_above") - p_part
    right = (pl.col("right") + n_part * pl.col("p_above")).sum()
    wrong = (pl.col("wrong") + n_part * p_below).sum()
    w_total = pl.col("w").sum()
    sums = frame.group_by(keys, maintain_order=True).agg(
        (pl.col("n").sum() if not weighted else w_total).alias("n"),
        *(
            pl.col(c).sum().alias(getattr(estimated, f"_{c.upper()}"))
            for c in ("tp", "fp", "fn", "tn")
        ),
        (pl.col("s_tp").sum() / w_total / w_total).alias(estimated._VAR_TP),
        (pl.col("s_fn").sum() / w_total / w_total).alias(estimated._VAR_FN),
        pl.col("p_total").first(),
        pl.col("n_total").first(),
        right.alias("right"),
        wrong.alias("wrong"),
    )
    defined = (pl.col("p_total") > 0) & (pl.col("n_total") > 0)
    auc = pl.col("right") / (pl.col("right") + pl.col("wrong"))
    nan = pl.lit(float("nan"))
    sums = sums.with_columns(
        pl.when(defined & pl.lit(by_ranges)).then(auc).otherwise(nan).alias("roc_auc")
    )
    # the variance: sum over ranges of (Y - u0)^2 V + m2, Y = N - A - R (N - P)
    joined = frame.join(
        sums.select(*keys, "roc_auc"), on=keys, how="left", nulls_equal=True, maintain_order="left"
    )
    y = (
        pl.col("n_total")
        - pl.col("above")
        - pl.col("roc_auc") * (pl.col("n_total") - pl.col("p_total"))
    )
    gap = y - pl.col("u0")
    var = joined.group_by(keys, maintain_order=True).agg(
        ((gap * gap * pl.col("V") + pl.col("m2")).sum()).alias("moments"),
    )
    sums = sums.join(var, on=keys, how="left", nulls_equal=True, maintain_order="left")
    # of a defined AUC the moments are finite but where a product overflowed (inf - inf)
    lost = defined & pl.lit(by_ranges) & ~pl.col("moments").is_finite()
    moments = pl.when(lost).then(float("inf")).otherwise(pl.col("moments"))
    pn = pl.col("p_total") * pl.col("n_total")
    sums = sums.with_columns((moments / pn / pn).alias(estimated._VAR_AUC))
    ranked_only = () if by_ranges else ("right", "wrong", "moments", estimated._VAR_AUC)
    raise_if_overflowed(sums.drop(*ranked_only), segments, method)
    return sums.drop("p_total", "n_total", "right", "wrong", "moments")


def raise_if_overflowed(sums: pl.DataFrame, keys: list[str], method: str) -> None:
    """Refuse merged sums of weighted per-row values (``sums``: rows by the segment
    ``keys``, and maybe by more) where a Float64 sum is infinite: weights near the
    largest float, which the frame method scales first (``Bad.engine_sum_overflow``,
    the segments counted, as ``method``'s)."""
    if not sums.height:
        return
    infinite = pl.any_horizontal(pl.col(pl.Float64).exclude(keys).is_infinite())
    per_segment = sums.group_by(keys).agg(infinite.any().alias(_INFINITE))
    overflowed = int(per_segment.get_column(_INFINITE).sum())
    if overflowed:
        raise Bad.engine_sum_overflow(method, overflowed)


# ------------------------------------------------------------------ the call
def _reference_of(
    engine: Any, reference: object, columns: list[str]
) -> tuple[Any, pl.Schema | None, str | None]:
    """A reference of the engine's (not an expression, not polars rows): its handle,
    schema and the shard the schema was read from; else (None, None, None)."""
    if reference is None or isinstance(reference, (pl.Expr, pl.DataFrame, pl.LazyFrame)):
        return None, None, None
    try:
        return engine.prepare(reference, columns)
    except (AttributeError, TypeError, FileNotFoundError) as exc:
        raise checks.Bad.reference_type(reference) from exc


def on_no_rows(
    engine: Any,
    method: Callable[..., pl.LazyFrame],
    values: dict[str, Any],
    *,
    where: str | None,
    reference_columns: list[Any],
) -> tuple[pl.Schema, Any, pl.Schema | None]:
    """The frame method ``method`` (of no rows of the data's schema) called with
    ``values``, before any job: its options', rules' and schema's checks, and its
    output schema.  An engine's reference (read for ``reference_columns``) stands in
    as no rows of its schema.  Returns (the output schema, the engine reference's
    handle and schema; None, None for polars rows or an expression).  A missing
    column or a wrong dtype is named with the shard its schema was read from: the
    reference's where the message says it is the reference's, else ``where``."""
    reference = values["reference"]
    ref_handle, ref_schema, ref_where = _reference_of(
        engine, reference, jobs.read_columns(reference_columns)
    )
    proxy = reference if ref_schema is None else pl.LazyFrame(schema=ref_schema)
    try:
        expected_schema = method(**(values | {"reference": proxy})).collect_schema()
    except (pl.exceptions.ColumnNotFoundError, pl.exceptions.SchemaError) as exc:
        in_reference = ref_schema is not None and inputs.IN_REFERENCE in str(exc)
        raise jobs.named(exc, [ref_where if in_reference else where]) from exc
    return expected_schema, ref_handle, ref_schema


def _calibration_map(
    engine: Any,
    values: dict[str, Any],
    on: tuple[Any, pl.Schema | None],
    options: dict[str, Any],
) -> Knots:
    """The knots of the isotonic map: fitted here on a polars reference, else from the
    score ranges' PAV blocks of the engine's reference rows (``on``: their handle and
    schema, the data's for an expression)."""
    reference, y_true, y_score = values["reference"], values["y_true"], values["y_score"]
    weight, pos_label = values["weight"], values["pos_label"]
    handle, schema = on
    if schema is None:  # polars rows
        return estimated.Reference(
            pl.LazyFrame(), reference, y_true=y_true, y_score=y_score, weight=weight,
            pos_label=pos_label,
        ).fit()  # fmt: skip
    flag = reference if isinstance(reference, pl.Expr) else None
    job = ReferenceJob(
        "estimated_reference", (y_true, y_score),
        {"flag": flag, "weight": weight, "pos_label": pos_label},
        [_SCORE], [_POSITIVE, _WEIGHT, _NULLS],
        jobs.read_columns([y_true, y_score, weight, flag]), engine.chunk_rows(),
        ranked=True, label_dtype=schema.get(y_true),
    )  # fmt: skip
    ranges = engine.rank(handle, job, 1, **options)
    try:
        return knots(engine.run(ranges, job, schema, **options))
    finally:
        engine.release(ranges)


def call(engine: Any, data: Any, values: dict[str, Any], options: dict[str, Any]) -> pl.DataFrame:
    """``pl_metrics.<engine>.estimated_performance`` (``values``: the frame method's
    arguments)."""
    y_pred, y_score, reference = values["y_pred"], values["y_score"], values["reference"]
    y_true, weight, by = values["y_true"], values["weight"], values["by"]
    if isinstance(y_score, Mapping):  # {label: column}: the plan once per class
        from pl_metrics._engines import estimated_classes

        return estimated_classes.call(engine, data, values, options)
    flag = reference if isinstance(reference, pl.Expr) else None
    segments = checks.normalize_by(by).given
    read = [y_pred, y_score, weight, *segments, flag, y_true if flag is not None else None]
    handle, schema, where = engine.prepare(data, jobs.read_columns(read))
    expected_schema, ref_handle, ref_schema = on_no_rows(
        engine, _metrics(pl.LazyFrame(schema=schema)).estimated_performance, values,
        where=where, reference_columns=[y_true, y_score, weight],
    )  # fmt: skip
    chosen = estimated.check_metrics(values["metrics"])
    ci = values["ci"]
    pos_label, calibration = values["pos_label"], values["calibration"]
    found = None
    if calibration is not None:
        on = (handle, schema) if flag is not None else (ref_handle, ref_schema)
        found = _calibration_map(engine, values, on, options)
    keys = names.segment_keys(segments)
    auc = any(catalogue.CATALOGUE[m].ranked is catalogue.Ranked.AUC for m in chosen)
    kwargs = {"by": list(segments) or None, "weight": weight, "pos_label": pos_label}
    kwargs |= {"flag": flag, "probabilities": calibration is None, "knots": found}
    job = CurrentJob(
        METHOD, (y_pred, y_score), kwargs, [*keys, _SCORE],
        [_PRED, _REST, _PRED_SQ, _REST_SQ, _ROWS],
        jobs.read_columns([y_pred, y_score, weight, *segments, flag]), engine.chunk_rows(),
        ranked=True, label_dtype=schema.get(y_pred),
    )  # fmt: skip
    ranges = engine.rank(handle, job, 1, **options) if auc else handle
    try:
        summaries = engine.run(ranges, job, schema, **options)
    finally:
        if auc:
            engine.release(ranges)
    sums = _finish(summaries, keys, by_ranges=auc, weighted=weight is not None, method=METHOD)
    columns, bounds = estimated._metrics(chosen, ci)
    result = sums.lazy().with_columns(columns).with_columns(bounds)
    result = result.select(*keys, "n", *chosen, *names.interval_columns(chosen if ci else []))
    result = names.restore_keys(result.sort(keys, nulls_last=True), checks.normalize_by(by).names)
    out = result.collect()
    return out.select(expected_schema.names()).cast(expected_schema)


__all__ = [
    "HOW",
    "CurrentJob",
    "ReferenceJob",
    "call",
    "current_sums",
    "knots",
    "on_no_rows",
    "raise_if_overflowed",
    "reference_sums",
]
