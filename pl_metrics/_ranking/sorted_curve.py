"""The curve points of continuous scores by one sort of the rows.

:func:`pl_metrics._ranking.from_counts.curve_points` is ``*keys, score, pos, neg, tps, fps,
P, N, ORD``: one row per segment and distinct score, highest first, with the
cumulative positives and negatives at that threshold.  From the per-score counts
(:mod:`pl_metrics._core.scores`) it costs a ``group_by`` of every distinct score
and then a sort of the groups; on continuous scores every row is its own group,
and that is several sorts.  Here the rows are sorted once by (segment, score
descending), the cumulative sums run over the sorted rows, and the last row of
each run of equal scores is the curve point (a comparison with the next row).
Row counts are summed as Int64 (exact), so the points are the counting path's
bit for bit; weights are summed row by row in the sorted order (scikit-learn's
``_binary_clf_curve`` does the same), which differs from the counting path's
per-score sums only where weighted scores tie (in the last bits).

- **keys** (scores not negative, no weight): each score's IEEE bits times two,
  its label in the lowest bit, sorted as one UInt64 column (as
  :func:`pl_metrics._ranking.placements._key`) - a sort of one column, no payload.
  A negative score met at collect falls back to the next way
  (:class:`~pl_metrics._ranking.sorted_path.MixedSigns`).
- **rows**: the score sorted with its label (and weight) as payload.

By segment, each segment's rows are sorted apart in one ``group_by`` and exploded
in the keys' order (a sort by the keys and the score encodes every row: several
times slower), and the segments' running counts are the running counts of all
rows less their value before the segment (no window); weights restart their sum
in a window per segment.

The data checks (bad scores, labels, weights, the default ``pos_label``, a
``pos_label`` present) are one aggregation over the rows, collected with the
sort (``collect_all``) and raised with the counting path's messages.
:func:`deferred` picks the way at collect from the first rows, as the sorted
ROC AUC does (:func:`pl_metrics._ranking.sorted_path.strategy`): few distinct scores
are counted (a ``group_by`` of few groups beats a sort of every row).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import polars as pl

from pl_metrics._core import checks, names, scores
from pl_metrics._core.names import ALL, NEG, ORD, POS, ROWS, SCORE
from pl_metrics._core.scores import RankingInput
from pl_metrics._ranking import placements, sorted_path

_KEY = f"{names.INTERNAL}curve_key"
_P, _N = f"{names.INTERNAL}row_pos", f"{names.INTERNAL}row_neg"
_MIN = f"{names.INTERNAL}min_score"
_ALONE = f"{names.INTERNAL}alone"
_POSITIVES = f"{names.INTERNAL}positive_rows"

Way = Literal["count", "keys", "rows"]


def way(rows: RankingInput) -> Way:
    """``"count"`` when the first rows' scores take at most
    :data:`~pl_metrics._ranking.sorted_path.MIN_DISTINCT` values; else ``"keys"``
    (un-weighted, none of them negative,
    :data:`~pl_metrics._ranking.sorted_path.USE_KEYS`) or ``"rows"``."""
    head = rows.rows.select(rows.y_score).head(sorted_path._SAMPLE).collect()
    scores = head.get_column(rows.y_score)
    if scores.n_unique() <= sorted_path.MIN_DISTINCT:
        return "count"
    low = scores.min()
    keyed = sorted_path.USE_KEYS and rows.weight is None
    if keyed and low is not None and low >= 0:  # type: ignore[operator]
        return "keys"
    return "rows"


def deferred(
    rows: RankingInput,
    counted: pl.LazyFrame,
    columns: Sequence[str] | None = None,
    then: Callable[[pl.LazyFrame], pl.LazyFrame] | None = None,
) -> pl.LazyFrame:
    """The curve points: ``counted`` (the counting plan), or the same points by sorting
    the rows (:func:`sorted_curve`), picked at collect (:func:`way`); ``columns``: only
    these (P and N among them); with ``then``, the table ``then`` builds from them
    (applied to the points in memory, inside the deferred step: the streaming engine
    runs what follows a deferred frame on one thread, 2.4x slower for a threshold
    sweep)."""
    schema = counted.collect_schema()
    columns = list(schema) if columns is None else list(columns)
    counted = counted.select(columns)

    def table(points: pl.LazyFrame) -> pl.LazyFrame:
        return points if then is None else then(points)

    def run() -> pl.DataFrame:
        how = way(rows)
        if how == "keys":
            try:
                return table(sorted_curve(rows, schema, columns, keyed=True).lazy()).collect()
            except sorted_path.MixedSigns:  # a negative score after the first rows
                how = "rows"
        if how == "rows":
            return table(sorted_curve(rows, schema, columns, keyed=False).lazy()).collect()
        return table(counted).collect()

    return pl.defer(run, schema=table(counted).collect_schema()).cache()


def _gate(
    rows: RankingInput, positive: pl.Expr, *, keyed: bool
) -> tuple[pl.LazyFrame, list[checks.Check]]:
    """One row of check counts over every row (none for an empty input)."""
    score_aggs, data_checks = scores.score_checks(rows.schema, [rows.y_score])
    true_aggs, label_checks = scores.true_checks(rows.y_true, rows.types)
    aggs = [pl.len().alias(ROWS), *score_aggs, *true_aggs, positive.sum().alias(_POSITIVES)]
    data_checks += label_checks
    weight = rows.weight
    if weight is not None:
        aggs.append(checks.bad_weight(weight).alias(checks.BAD_WEIGHT))
        data_checks.append((checks.BAD_WEIGHT, lambda n: checks.Bad.bad_weights(weight, n)))
    if rows.default_pos:
        aggs += scores.default_pos_label_aggs(pl.col(rows.y_true))
    if keyed:
        aggs.append(scores.as_score(rows.y_score, rows.schema[rows.y_score]).min().alias(_MIN))
    gate = rows.rows.select(aggs).filter(pl.col(ROWS) > 0)
    return checks.raise_if_bad(gate, data_checks), data_checks


def _sorted_rows(rows: RankingInput, positive: pl.Expr, *, keyed: bool) -> pl.LazyFrame:
    """The rows sorted by segment, then score descending: ``*keys, _KEY`` (``keyed``:
    the score's bits and the label, :func:`pl_metrics._ranking.placements._key`), else
    ``*keys, SCORE, _P, _N`` (the row's positive and negative count or weight)."""
    score = scores.as_score(rows.y_score, rows.schema[rows.y_score])
    if keyed:
        columns = [placements._key(score, positive).alias(_KEY)]
    elif rows.weight is None:
        columns = [score, positive.cast(pl.Int64).alias(_P), (~positive).cast(pl.Int64).alias(_N)]
    else:
        w = pl.col(rows.weight).cast(pl.Float64)
        columns = [
            score,
            (positive.cast(pl.Float64) * w).alias(_P),
            ((~positive).cast(pl.Float64) * w).alias(_N),
        ]
    ordered = _by_segment_descending(
        rows.rows.select(*rows.keys, *columns),
        rows.keys,
        _KEY if keyed else SCORE,
        # stable with weights: ties are summed in the input's order, the same every run
        stable=rows.weight is not None,
    )
    return ordered


def _by_segment_descending(
    frame: pl.LazyFrame, keys: list[str], column: str, *, stable: bool
) -> pl.LazyFrame:
    """``frame`` sorted by segment (nulls last), then ``column`` descending.

    By segment, each segment's rows are sorted apart in a ``group_by`` (on polars'
    threads) and exploded in the order of the keys: a sort by the keys and the
    column together encodes every row (several times slower)."""
    if not keys:
        return frame.sort(column, descending=True, maintain_order=stable)
    values = [c for c in frame.collect_schema().names() if c not in keys]
    order = pl.col(column)
    return (
        frame.group_by(keys)
        .agg(pl.col(values).sort_by(order, descending=True, maintain_order=stable))
        .sort(keys, nulls_last=True)
        .explode(values)
    )


def sorted_curve(
    rows: RankingInput, schema: pl.Schema, columns: Sequence[str], *, keyed: bool
) -> pl.DataFrame:
    """The curve points (``schema``: the counting plan's) by one sort of the rows; only
    ``columns`` of them.

    Raises the checks' errors, and :class:`~pl_metrics._ranking.sorted_path.MixedSigns`
    when ``keyed`` meets a negative score."""
    positive = pl.col(rows.y_true) == pl.lit(rows.pos_label, rows.schema[rows.y_true])
    gate, _ = _gate(rows, positive, keyed=keyed)
    tps, fps = pl.col("tps"), pl.col("fps")
    ordered = _sorted_rows(rows, positive, keyed=keyed)
    if keyed:  # the score's bits order as the scores do: compared as they are
        key = pl.col(_KEY)
        score, row_pos = key // 2, (key % 2).cast(pl.Int64)
    else:
        score, row_pos = pl.col(SCORE), pl.col(_P)
    keys = rows.keys
    first, last = scores.segment_edge(keys, 1), scores.segment_edge(keys, -1)
    if rows.weight is None:
        # exact integers: the running positives and rows of all segments; the
        # curve's are these less their values before the segment's first run
        running = [row_pos.cum_sum(), pl.int_range(1, pl.len() + 1, dtype=pl.Int64)]
    else:  # a float sum restarts in each segment (a window)
        over = scores.per_segment(keys)
        running = [over(pl.col(c).cum_sum()) for c in (_P, _N)]
    # the last row of each run of equal scores (and of each segment)
    end = last | score.ne_missing(score.shift(-1))
    runs = ordered.with_columns(running[0].alias("tps"), running[1].alias("fps"))
    if rows.weight is not None:  # a run of one row: its weight is its count, exactly
        alone = first | score.ne_missing(score.shift(1))
        runs = runs.with_columns(alone.alias(_ALONE))
    runs = runs.filter(end)
    if rows.weight is None:

        def in_segment(c: pl.Expr) -> pl.Expr:
            return c - pl.when(first).then(c.shift(1, fill_value=0)).forward_fill() if keys else c

        runs = runs.with_columns(in_segment(tps).alias("tps"), in_segment(fps).alias("fps"))
        runs = runs.with_columns(fps - tps)  # the rows seen less the positives
    if keyed:
        runs = runs.with_columns((key // 2).reinterpret(dtype=pl.Float64).alias(SCORE))
    if not keys:
        runs = runs.with_columns(pl.lit(0, schema[ALL]).alias(ALL))
    position = pl.int_range(pl.len()).cast(schema[ORD])
    count_type = schema[POS]

    def run_count(cum: pl.Expr, own: str) -> pl.Expr:
        """The run's own count: a difference of the running sums (exact for counts);
        with weights the row's own where the run is one row (the counting path's
        sum), else the difference (tied weights: summed in another order)."""
        if not keys:
            count = cum - cum.shift(1, fill_value=0)
        else:
            count = pl.when(first).then(cum).otherwise(cum - cum.shift(1))
        if rows.weight is not None:
            count = pl.when(pl.col(_ALONE)).then(pl.col(own)).otherwise(count)
        return count.cast(count_type)

    def total(cum: pl.Expr) -> pl.Expr:
        """The segment's last cumulative sum, on each of its rows (a column, as
        curve_points' window; the window itself for one segment)."""
        if not keys:
            return cum.last().over(ALL)
        return pl.when(last).then(cum).backward_fill()

    curve = (
        runs.with_columns(
            run_count(tps, _P).alias(POS),
            run_count(fps, _N).alias(NEG),
            tps.cast(pl.Float64),
            fps.cast(pl.Float64),
            (position - pl.when(first).then(position).forward_fill() if keys else position).alias(
                ORD
            ),
        )
        # the totals as in curve_points: the last cumulative sums of the segment (a
        # column, as curve_points' window)
        .with_columns(total(tps).alias("P"), total(fps).alias("N"))
    )
    # in memory: the order-dependent steps after the sort cost a third less than streamed
    checked, points = pl.collect_all([gate, curve.select(columns)], engine="in-memory")
    _raise(rows, checked, points, keyed=keyed)
    return points


def _raise(rows: RankingInput, checked: pl.DataFrame, points: pl.DataFrame, *, keyed: bool) -> None:
    """The checks read after the sort, in the counting path's order: weights summing
    to infinity, the default ``pos_label``'s labels, ``pos_label`` absent; then a
    negative score of a keyed sort (:class:`~pl_metrics._ranking.sorted_path.MixedSigns`)."""
    if (
        rows.weight is not None
        and points.select(checks.weight_total_too_large(pl.col("P") + pl.col("N")).max()).item()
    ):
        raise checks.Bad.weight_overflow(rows.weight)
    later = checked.lazy()
    if rows.default_pos:
        later = scores.check_default_pos_label(later, rows.rows, rows.y_true)
    if rows.pos_label_present:
        later = scores.check_pos_label(later, rows.rows, rows.y_true, rows.pos_label, _POSITIVES)
    later.collect()
    if keyed and checked.height and checked[_MIN][0] < 0:
        raise sorted_path.MixedSigns
