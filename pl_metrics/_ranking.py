"""Ranking metrics from per-score counts: ROC AUC, average precision, ROC and PR curves.

The only pass over the rows is :func:`score_counts`: one
``group_by(*by, score).agg(pos, neg)``, which merges tied scores into one
threshold exactly as scikit-learn's ``_binary_clf_curve`` does.  Sorting that
frame by descending score and taking cumulative sums per segment gives the
curve (``tps``, ``fps`` at every distinct threshold); AUC and AP are sums over it.

AUC = sum_i neg_i * (tps_i - pos_i / 2) / (P * N): the trapezoid under the ROC
curve, i.e. the Mann-Whitney statistic with ties counted one half.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl
from polars.exceptions import SchemaError

from pl_metrics import _validate as v
from pl_metrics._counts import ALL, ORD
from pl_metrics.exceptions import DataError

SCORE = "score"
POS = "pos"
NEG = "neg"
CLASS = f"{v.INTERNAL}class"  # the class whose score column is read
TRUE = f"{v.INTERNAL}true"  # the actual label (multiclass state)
OTHER = f"{v.INTERNAL}other"  # the other class of a one-vs-one pair
N_ROWS = "n"
_NULL_TRUE = f"{v.INTERNAL}null_true"


@dataclass(frozen=True)
class ScoreCounts:
    """Per-segment, per-distinct-score positive and negative counts (or weights)."""

    frame: pl.LazyFrame  # *keys, score, pos, neg
    by: list[str]
    keys: list[str]  # by, or [ALL]; multiclass adds CLASS

    def finish(self, result: pl.LazyFrame) -> pl.LazyFrame:
        """Drop the internal segment key."""
        return result if self.by else result.drop(ALL)


def resolve_pos_label(schema: pl.Schema, y_true: str, pos_label: object) -> object:
    """Default ``pos_label``: 1 for numbers, True for booleans; required for strings."""
    dtype = schema[y_true]
    if pos_label is not None:
        return pos_label
    if dtype == pl.Boolean:
        return True
    if dtype.is_numeric():
        return 1
    msg = (
        f"`pos_label` is required when {y_true!r} holds {dtype} labels: "
        f"pass the positive class, e.g. pos_label='yes'"
    )
    raise ValueError(msg)


def _check_scores(
    frame: pl.LazyFrame,
    y_true: str,
    score_columns: Sequence[str],
    weight: str | None,
    *,
    bins: int | None = None,
) -> pl.LazyFrame:
    """Raise :class:`DataError` at collect for null/NaN/inf scores or null labels
    (and, with ``bins``, scores outside [0, 1])."""
    names = ", ".join(repr(c) for c in score_columns)

    def check(df: pl.DataFrame) -> pl.DataFrame:
        bad = df.filter(pl.col(SCORE).is_null() | ~pl.col(SCORE).is_finite())
        if bad.height:
            n_bad = bad[v.ROWS].sum()
            msg = f"column {names} (argument `y_score`) has {n_bad} null, NaN or infinite rows"
            raise DataError(msg)
        if bins is not None:  # SCORE holds the bin index floor(score * bins) here
            n_out = df.filter((pl.col(SCORE) < 0) | (pl.col(SCORE) > bins))[v.ROWS].sum()
            if n_out:
                msg = (
                    f"`bins` needs scores in [0, 1]: column {names} has {n_out} rows outside; "
                    "rescale the scores or drop `bins` for the exact result"
                )
                raise DataError(msg)
        n_null = df[_NULL_TRUE].sum()
        if n_null:
            raise v.null_rows(y_true, n_null)
        if weight is not None and df[v.BAD_WEIGHT].sum():
            msg = (
                f"column {weight!r} (argument `weight`) has {df[v.BAD_WEIGHT].sum()} rows with "
                "a null, NaN, infinite or negative weight; weights must be finite and >= 0"
            )
            raise DataError(msg)
        return df

    return frame.map_batches(check)


def _as_score(column: str, bins: int | None = None) -> pl.Expr:
    """The score as Float64, with -0.0 turned into 0.0 (one threshold, as in numpy).

    With ``bins``, a score in [0, 1] becomes its bin index ``floor(score * bins)``
    (1.0 is bin ``bins``): at most ``bins + 1`` distinct values per segment.
    :func:`_binary_counts` turns the index into the bin's lower edge
    ``index * (1 / bins)`` after grouping: polars' streaming engine may divide by a
    constant through its reciprocal in some chunks, so a key computed with a
    division can split one value into two groups (seen with polars 2.1).
    """
    score = pl.col(column).cast(pl.Float64) + 0.0
    if bins is not None:
        score = (score * bins).floor()
    return score.alias(SCORE)


def _binary_counts(
    lf: pl.LazyFrame,
    by: list[str],
    y_true: str,
    score: str,
    *,
    positive: pl.Expr,
    weight: str | None,
    bins: int | None = None,
) -> pl.LazyFrame:
    """``*by, score, pos, neg`` (+ check columns) for one score column."""
    if weight is None:
        pos = positive.sum().cast(pl.Int64)
        neg = (~positive).sum().cast(pl.Int64)
        extra = []
    else:
        w = pl.col(weight).cast(pl.Float64)
        pos = (positive.cast(pl.Float64) * w).sum()
        neg = ((~positive).cast(pl.Float64) * w).sum()
        extra = [v.bad_weight(weight).alias(v.BAD_WEIGHT)]
    frame = lf.group_by(*by, _as_score(score, bins)).agg(
        pos.alias(POS),
        neg.alias(NEG),
        pl.len().alias(v.ROWS),
        pl.col(y_true).null_count().alias(_NULL_TRUE),
        *extra,
    )
    frame = _check_scores(frame, y_true, [score], weight, bins=bins)
    if bins is not None:  # from the bin index to the bin's lower edge; a product,
        # not a division, so every engine and shard computes the same float
        frame = frame.with_columns(pl.col(SCORE) * (1.0 / bins))
    return frame


def _prepare(
    lf: pl.LazyFrame,
    y_true: str,
    score_columns: Sequence[str],
    *,
    by: str | Sequence[str] | None,
    weight: str | None,
    reserved: Sequence[str],
) -> tuple[pl.Schema, list[str]]:
    schema = lf.collect_schema()
    by_list = v.normalize_by(by)
    v.check_columns(schema, y_true=y_true)
    for column in score_columns:
        v.check_numeric(schema, "y_score", column)
    v.check_by(schema, by_list, reserved)
    v.check_numeric(schema, "weight", weight)
    return schema, by_list


def binary_score_counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: str,
    *,
    by: str | Sequence[str] | None,
    pos_label: object,
    weight: str | None,
    reserved: Sequence[str],
    bins: int | None = None,
) -> ScoreCounts:
    """Validate and build the (lazy) per-score counts of a binary problem.

    ``bins``: the approximate mode, see :func:`_as_score`.
    """
    if bins is not None and (isinstance(bins, bool) or not isinstance(bins, int) or bins < 1):
        msg = f"`bins` must be None or an integer >= 1, got {bins!r}"
        raise ValueError(msg)
    if not isinstance(y_score, str):
        msg = f"`y_score` must be a column name for this method, got {y_score!r}"
        raise TypeError(msg)
    schema, by_list = _prepare(lf, y_true, [y_score], by=by, weight=weight, reserved=reserved)
    label = resolve_pos_label(schema, y_true, pos_label)
    positive = pl.col(y_true) == pl.lit(label)
    frame = _binary_counts(
        lf, by_list, y_true, y_score, positive=positive, weight=weight, bins=bins
    )
    frame = frame.select(*by_list, SCORE, POS, NEG).cache()
    if not by_list:
        frame = frame.with_columns(pl.lit(0, pl.Int8).alias(ALL))
    return ScoreCounts(frame, by_list, by_list or [ALL])


def multiclass_score_counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: Mapping[object, str],
    *,
    by: str | Sequence[str] | None,
    weight: str | None,
    reserved: Sequence[str],
) -> ScoreCounts:
    """``*keys, CLASS, score, TRUE, n``: for every score column (its class CLASS),
    the count (or weight) of rows per distinct score and actual label.

    One-vs-rest and one-vs-one AUCs are both sums over this frame.
    """
    if len(y_score) < 2:
        msg = f"`y_score` must map at least two classes to score columns, got {dict(y_score)!r}"
        raise ValueError(msg)
    schema, by_list = _prepare(
        lf, y_true, list(y_score.values()), by=by, weight=weight, reserved=reserved
    )
    dtype = schema[y_true]
    try:
        classes = pl.Series(CLASS, list(y_score), dtype=dtype, strict=True)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        msg = (
            f"the keys of `y_score` {list(y_score)!r} must be labels of {y_true!r} ({dtype}): {exc}"
        )
        raise SchemaError(msg) from None
    n = pl.len().cast(pl.Int64) if weight is None else pl.col(weight).cast(pl.Float64).sum()
    extra = [] if weight is None else [v.bad_weight(weight).alias(v.BAD_WEIGHT)]
    parts = []
    for label, column in zip(classes, y_score.values(), strict=True):
        counts = lf.group_by(*by_list, _as_score(column), pl.col(y_true).alias(TRUE)).agg(
            n.alias(N_ROWS),
            pl.len().alias(v.ROWS),
            pl.lit(0).alias(_NULL_TRUE),  # null labels are a group of TRUE, checked below
            *extra,
        )
        counts = _check_scores(counts, y_true, [column], weight)
        parts.append(
            counts.select(*by_list, pl.lit(label, dtype).alias(CLASS), SCORE, TRUE, N_ROWS, v.ROWS)
        )
    frame = _check_classes(pl.concat(parts), y_true, classes).drop(v.ROWS).cache()
    if not by_list:
        frame = frame.with_columns(pl.lit(0, pl.Int8).alias(ALL))
    return ScoreCounts(frame, by_list, by_list or [ALL])


def _check_classes(frame: pl.LazyFrame, y_true: str, classes: pl.Series) -> pl.LazyFrame:
    """Fail at collect if ``y_true`` is null or holds a class without a score column."""

    def check(df: pl.DataFrame) -> pl.DataFrame:
        first_class = df.filter(pl.col(CLASS) == classes[0])
        n_null = first_class.filter(pl.col(TRUE).is_null())[v.ROWS].sum()
        if n_null:
            raise v.null_rows(y_true, n_null)
        unknown = df.filter(~pl.col(TRUE).is_in(classes.implode()))[TRUE].unique().sort()
        if unknown.len():
            msg = (
                f"column {y_true!r} holds labels {unknown.to_list()!r} that have no score "
                f"column in `y_score` (keys: {classes.to_list()!r})"
            )
            raise DataError(msg)
        return df

    return frame.map_batches(check)


# --------------------------------------------------------------------------- metrics
def _sorted(column: str) -> pl.Expr:
    return pl.col(column).sort_by(SCORE, descending=True)


def _auc_exprs() -> list[pl.Expr]:
    """Per-group aggregations: P, N and the ROC AUC (null with a single class)."""
    pos, neg = _sorted(POS).cast(pl.Float64), _sorted(NEG).cast(pl.Float64)
    tps = pos.cum_sum()
    # exact for counts; with float weights in whatever order polars sums (it drops
    # a sort before an order-independent aggregation such as sum)
    p_total, n_total = pos.sum(), neg.sum()
    area = (neg * (tps - pos / 2)).sum()
    auc = pl.when((p_total > 0) & (n_total > 0)).then(area / (p_total * n_total))
    return [p_total.alias("P"), n_total.alias("N"), auc.alias("roc_auc")]


def roc_auc(counts: ScoreCounts, *, error_bound: bool = False) -> pl.LazyFrame:
    """``*by, roc_auc`` for a binary problem.

    With ``error_bound`` (binned scores) also ``roc_auc_error_bound``: the pairs
    of a positive and a negative in one bin count one half, their true share is
    between 0 and 1, so ``|binned - exact| <= sum_b pos_b neg_b / (2 P N)``.
    """
    exprs = _auc_exprs()
    columns = [*counts.keys, "roc_auc"]
    if error_bound:
        pos, neg = pl.col(POS).cast(pl.Float64), pl.col(NEG).cast(pl.Float64)
        bound = (pos * neg).sum() / (2 * pos.sum() * neg.sum())
        exprs.append(pl.when(pos.sum() * neg.sum() > 0).then(bound).alias("roc_auc_error_bound"))
        columns.append("roc_auc_error_bound")
    result = counts.frame.group_by(counts.keys).agg(exprs).sort(counts.keys, nulls_last=True)
    return counts.finish(result.select(columns))


def _one_vs_rest(counts: ScoreCounts) -> pl.LazyFrame:
    """``*keys, CLASS, score, pos, neg`` from the multiclass state."""
    n, is_class = pl.col(N_ROWS), pl.col(TRUE) == pl.col(CLASS)
    return counts.frame.group_by(*counts.keys, CLASS, SCORE).agg(
        n.filter(is_class).sum().alias(POS), n.filter(~is_class).sum().alias(NEG)
    )


def _one_vs_one(counts: ScoreCounts) -> pl.LazyFrame:
    """``*keys, CLASS, OTHER, score, pos, neg``: CLASS's score on the rows of CLASS
    (positives) and OTHER (negatives), for every ordered pair of classes present."""
    keys, frame = counts.keys, counts.frame
    own = frame.filter(pl.col(TRUE) == pl.col(CLASS))
    present = own.select(*keys, CLASS).unique()
    pairs = present.join(present.rename({CLASS: OTHER}), on=keys, nulls_equal=True).filter(
        pl.col(CLASS) != pl.col(OTHER)
    )
    zero = pl.lit(0).cast(frame.collect_schema()[N_ROWS])
    positives = pairs.join(own, on=[*keys, CLASS], nulls_equal=True).select(
        *keys, CLASS, OTHER, SCORE, pl.col(N_ROWS).alias(POS), zero.alias(NEG)
    )
    # rows of OTHER scored by CLASS's column (the join keeps TRUE, equal to OTHER)
    negatives = frame.join(
        pairs, left_on=[*keys, CLASS, TRUE], right_on=[*keys, CLASS, OTHER], nulls_equal=True
    ).select(
        *keys, CLASS, pl.col(TRUE).alias(OTHER), SCORE, zero.alias(POS), pl.col(N_ROWS).alias(NEG)
    )
    return (
        pl.concat([positives, negatives])
        .group_by(*keys, CLASS, OTHER, SCORE)
        .agg(pl.col(POS).sum(), pl.col(NEG).sum())
    )


def roc_auc_multiclass(counts: ScoreCounts, *, multi_class: str, average: str) -> pl.LazyFrame:
    """``*by, roc_auc``: macro or prevalence-weighted mean of the one-vs-rest AUCs, or of
    the one-vs-one pair AUCs (Hand & Till: the mean of AUC(a|b) and AUC(b|a)).

    Classes absent from a segment's ``y_true`` are left out of its mean
    (scikit-learn refuses such input for one-vs-rest and skips them for one-vs-one).
    """
    keys = counts.keys
    auc = pl.col("roc_auc")
    if multi_class == "ovr":
        per_class = _one_vs_rest(counts).group_by(*keys, CLASS).agg(_auc_exprs())
        weight = pl.col("P")
    else:
        directed = _one_vs_one(counts).group_by(*keys, CLASS, OTHER).agg(_auc_exprs())
        lo = pl.min_horizontal(CLASS, OTHER).alias("lo")
        hi = pl.max_horizontal(CLASS, OTHER).alias("hi")
        # pair prevalence: the rows of a or b (P + N of either direction)
        per_class = directed.group_by(*keys, lo, hi).agg(
            auc.mean(), (pl.col("P") + pl.col("N")).first().alias("P")
        )
        weight = pl.col("P")
    if average == "macro":
        mean = auc.mean()
    else:
        w = pl.when(auc.is_not_null()).then(weight)
        mean = (auc * w).sum() / w.sum()
    result = per_class.group_by(keys).agg(
        pl.when(auc.is_not_null().any()).then(mean).alias("roc_auc")
    )
    return counts.finish(result.sort(keys, nulls_last=True))


def average_precision(counts: ScoreCounts) -> pl.LazyFrame:
    """``*by, average_precision``: sum over thresholds of delta-recall x precision.

    scikit-learn's values for one class: 0.0 without positives, 1.0 without negatives.
    """
    pos, neg = _sorted(POS).cast(pl.Float64), _sorted(NEG).cast(pl.Float64)
    tps, fps = pos.cum_sum(), neg.cum_sum()
    p_total = pos.sum()
    ap = pl.when(p_total > 0).then((pos / p_total * (tps / (tps + fps))).sum()).otherwise(0.0)
    result = (
        counts.frame.group_by(counts.keys)
        .agg(ap.clip(lower_bound=0.0).alias("average_precision"))
        .sort(counts.keys, nulls_last=True)
    )
    return counts.finish(result)


def _curve(counts: ScoreCounts) -> pl.LazyFrame:
    """``*keys, score, tps, fps, P, N, ORD`` with ORD 0 at the highest score."""
    keys = counts.keys
    return counts.frame.sort(
        [*keys, SCORE], descending=[False] * len(keys) + [True], nulls_last=True
    ).with_columns(
        pl.col(POS).cast(pl.Float64).cum_sum().over(keys).alias("tps"),
        pl.col(NEG).cast(pl.Float64).cum_sum().over(keys).alias("fps"),
        pl.col(POS).cast(pl.Float64).sum().over(keys).alias("P"),
        pl.col(NEG).cast(pl.Float64).sum().over(keys).alias("N"),
        pl.int_range(pl.len()).over(keys).alias(ORD),
    )


def _rate(num: str, den: str) -> pl.Expr:
    return pl.when(pl.col(den) > 0).then(pl.col(num) / pl.col(den)).otherwise(float("nan"))


def with_start(curve: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """The curve with its (threshold +inf, tps 0, fps 0) point first (ORD -1), sorted."""
    start = curve.group_by(keys).agg(
        pl.lit(float("inf")).alias(SCORE),
        pl.lit(0.0).alias("tps"),
        pl.lit(0.0).alias("fps"),
        pl.col("P").first(),
        pl.col("N").first(),
        pl.lit(-1, pl.Int64).alias(ORD),
    )
    columns = [*keys, SCORE, "tps", "fps", "P", "N", ORD]
    return pl.concat([start.select(columns), curve.select(columns).cast({ORD: pl.Int64})]).sort(
        [*keys, ORD], nulls_last=True
    )


def roc_curve(counts: ScoreCounts, *, drop_intermediate: bool) -> pl.LazyFrame:
    """``*by, threshold, fpr, tpr``: sklearn's points, the first at threshold +inf."""
    keys = counts.keys
    curve = _curve(counts)
    if drop_intermediate:
        # sklearn: keep the ends and every point where the slope changes
        # (np.diff(fps, 2) or np.diff(tps, 2) non-zero), computed the same way.
        def bend(c: str) -> pl.Expr:
            col = pl.col(c)
            nxt, prv = col.shift(-1).over(keys), col.shift(1).over(keys)
            return ((nxt - col) - (col - prv)) != 0

        last = pl.col(ORD) == pl.len().over(keys) - 1
        curve = curve.filter((pl.col(ORD) == 0) | last | bend("fps") | bend("tps"))
    result = with_start(curve, keys).select(
        *keys,
        pl.col(SCORE).alias("threshold"),
        _rate("fps", "N").alias("fpr"),
        _rate("tps", "P").alias("tpr"),
    )
    return counts.finish(result)


def pr_curve(counts: ScoreCounts) -> pl.LazyFrame:
    """``*by, threshold, precision, recall``: sklearn's points, thresholds ascending,
    then the (precision 1, recall 0) point with a null threshold."""
    keys = counts.keys
    curve = _curve(counts).with_columns(
        pl.when(pl.col("tps") + pl.col("fps") != 0)
        .then(pl.col("tps") / (pl.col("tps") + pl.col("fps")))
        .otherwise(0.0)
        .alias("precision"),
        pl.when(pl.col("P") > 0).then(pl.col("tps") / pl.col("P")).otherwise(1.0).alias("recall"),
    )
    end = curve.group_by(keys).agg(
        pl.lit(None, pl.Float64).alias(SCORE),
        pl.lit(1.0).alias("precision"),
        pl.lit(0.0).alias("recall"),
        pl.lit(-1, pl.Int64).alias(ORD),
    )
    columns = [*keys, SCORE, "precision", "recall", ORD]
    result = (
        pl.concat([end.select(columns), curve.select(columns).cast({ORD: pl.Int64})])
        .sort([*keys, ORD], descending=[False] * len(keys) + [True], nulls_last=True)
        .select(*keys, pl.col(SCORE).alias("threshold"), "precision", "recall")
    )
    return counts.finish(result)
