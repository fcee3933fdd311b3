"""Probability metrics: log loss, Brier score, calibration, top-k accuracy.

Each is one ``group_by(*by).agg(...)`` over the rows (calibration adds the bin
to the keys; quantile bins need one more pass for the edges).  The data checks
(nulls, probabilities outside [0, 1], rows not summing to 1) are counted in the
same aggregation and raised at collect time by :func:`_checked`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence

import polars as pl

from pl_metrics._core import checks as v
from pl_metrics._core import names
from pl_metrics._core import scores as sc
from pl_metrics._core.names import ALL, INTERNAL

#: scikit-learn clips probabilities to [eps, 1 - eps] with the float64 machine epsilon.
EPS = sys.float_info.epsilon
#: scikit-learn's tolerance for rows of probabilities summing to 1 (isclose, rtol sqrt(eps)).
SUM_TOLERANCE = 1e-8 + math.sqrt(EPS)

Check = tuple[pl.Expr, Callable[[int], v.DataError]]
_POSITIVES = f"{INTERNAL}positives"
_LOW, _HIGH = f"{INTERNAL}low", f"{INTERNAL}high"
_EDGE = f"{INTERNAL}edge"
_BIN = f"{INTERNAL}bin"


class Rows:
    """The validated inputs of a probability metric: the keys, the checks, the weight.

    At the root, as every method: the ``by`` columns become internal keys and
    rows of weight 0 are dropped; the data checks are counted in the metric's
    one aggregation (:meth:`aggregate`).
    """

    def __init__(
        self,
        lf: pl.LazyFrame,
        y_true: str,
        y_prob: object,
        *,
        by: object,
        pos_label: object,
        weight: str | None,
        reserved: Sequence[str],
        probabilities: bool = True,
        binary_only: bool = False,
        argument: str = "y_prob",
    ) -> None:
        if binary_only or isinstance(y_prob, str):
            v.check_column_name(argument, y_prob)
            columns = [y_prob]
        else:
            columns = list(v.check_score_map(argument, y_prob).values())
        schema, self.by, types = sc.prepare(
            lf, y_true, columns, by=by, weight=weight, reserved=reserved, argument=argument
        )
        keys = names.segment_keys(self.by) if self.by else []
        rows = v.without_zero_weights(names.with_segment_keys(lf, self.by), weight)
        self.lf = rows if self.by else rows.with_columns(pl.lit(0, pl.Int8).alias(ALL))
        self.keys = keys or [ALL]
        self.y_true = y_true
        self.weight = None if weight is None else pl.col(weight).cast(pl.Float64)
        self.columns = columns
        self.binary = isinstance(y_prob, str)
        dtype = schema[y_true]
        if self.binary:
            self.pos_label = sc.resolve_pos_label(schema, y_true, pos_label)
            self.positive = pl.col(y_true) == pl.lit(self.pos_label, dtype)
            self.classes: dict[object, str] = {}
        else:
            keys_ = [v.label_value(k, dtype, argument, y_true) for k in y_prob]
            self.classes = dict(zip(keys_, columns, strict=True))
            self.labels = pl.Series(keys_, dtype=dtype)
        true_aggs, true_checks = sc.true_checks(y_true, types)
        self.checks: dict[str, Check] = {
            name: (agg, error) for agg, (name, error) in zip(true_aggs, true_checks, strict=True)
        }
        bad = pl.sum_horizontal(_bad_value(c, probabilities=probabilities) for c in columns).sum()
        self.checks[f"{INTERNAL}bad_prob"] = (
            bad,
            (lambda n: v.Bad.bad_probabilities(columns, n))
            if probabilities
            else (lambda n: v.Bad.bad_scores(columns, n)),
        )
        if not self.binary:
            known = pl.col(y_true).is_in(self.labels.implode()) | pl.col(y_true).is_null()
            total = pl.sum_horizontal(pl.col(c).cast(pl.Float64) for c in columns)
            self.checks[f"{INTERNAL}unknown"] = (
                (~known).sum(),
                lambda n: v.Bad.unknown_classes(y_true, n, list(self.classes)),
            )
        if not self.binary and probabilities:
            names_ = ", ".join(repr(c) for c in columns)
            self.checks[f"{INTERNAL}sum"] = (
                ((total - 1).abs() > SUM_TOLERANCE).sum(),
                lambda n: v.DataError(
                    f"{n} rows of the probabilities {names_} do not sum to 1 "
                    f"(tolerance {SUM_TOLERANCE:.2g})"
                ),
            )
        if weight is not None:
            self.checks[v.BAD_WEIGHT] = (
                v.bad_weight(weight),
                lambda n: v.Bad.bad_weights(weight, n),
            )
            self.checks[f"{INTERNAL}weight_total"] = (
                (~self.weight.sum().is_finite()).cast(pl.Int64),
                lambda _: v.Bad.weight_overflow(weight),
            )

    def mean(self, value: pl.Expr) -> pl.Expr:
        """The (weighted) mean of a per-row value: ``np.average(value, weights=w)``."""
        if self.weight is None:
            return value.mean()
        return (value * self.weight).sum() / self.weight.sum()

    def aggregate(
        self,
        *aggs: pl.Expr,
        keys: Sequence[str] | None = None,
        frame: pl.LazyFrame | None = None,
    ) -> pl.LazyFrame:
        """``group_by(keys).agg(aggs)`` of the rows (or of ``frame``, the rows with
        extra columns) with the data checks, sorted by the keys."""
        keys = list(self.keys if keys is None else keys)
        check_aggs = [expr.alias(name) for name, (expr, _) in self.checks.items()]
        if self.binary:
            check_aggs += [
                self.positive.sum().alias(_POSITIVES),
                pl.col(self.y_true).min().alias(_LOW),
                pl.col(self.y_true).max().alias(_HIGH),
            ]
        frame = (self.lf if frame is None else frame).group_by(keys).agg(*aggs, *check_aggs)
        frame = v.raise_if_bad(frame, [(name, error) for name, (_, error) in self.checks.items()])
        if self.binary:
            frame = sc.check_pos_label(
                frame, self.lf, self.y_true, self.pos_label, _POSITIVES, distinct=(_LOW, _HIGH)
            )
        check_columns = [*self.checks, *([_POSITIVES, _LOW, _HIGH] if self.binary else [])]
        return frame.drop(check_columns).sort(keys, nulls_last=True)

    def finish(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """Restore the ``by`` names."""
        return names.restore_keys(frame, self.by)

    def true_probability(self) -> pl.Expr:
        """Multiclass: the probability given to each row's actual class."""
        branches = pl.when(pl.col(self.y_true) == pl.lit(self.labels[0]))
        expr = branches.then(pl.col(self.classes[self.labels[0]]).cast(pl.Float64))
        for label in self.labels[1:]:
            column = self.classes[label]
            expr = expr.when(pl.col(self.y_true) == pl.lit(label)).then(
                pl.col(column).cast(pl.Float64)
            )
        return expr


def _bad_value(column: str, *, probabilities: bool) -> pl.Expr:
    """1 for a null or non-finite value (or, for probabilities, one outside [0, 1])."""
    p = pl.col(column).cast(pl.Float64)
    bad = p.is_null() | ~p.is_finite()
    if probabilities:
        bad = bad | (p < 0) | (p > 1)
    return bad.fill_null(True).cast(pl.Int64)


def _clip(p: pl.Expr) -> pl.Expr:
    return p.clip(EPS, 1 - EPS)


def log_loss(rows: Rows, *, normalize: bool) -> pl.LazyFrame:
    """``*by, log_loss``: scikit-learn's ``log_loss`` (clipping to [eps, 1 - eps])."""
    if rows.binary:
        p = pl.col(rows.columns[0]).cast(pl.Float64)
        # sklearn clips the two columns [1 - p, p] and takes the actual one
        loss = -pl.when(rows.positive).then(_clip(p).log()).otherwise(_clip(1 - p).log())
    else:
        loss = -_clip(rows.true_probability()).log()
    if normalize:
        value = rows.mean(loss)
    else:
        value = loss.sum() if rows.weight is None else (loss * rows.weight).sum()
    return rows.finish(rows.aggregate(value.alias("log_loss")))


def brier_score(rows: Rows) -> pl.LazyFrame:
    """``*by, brier_score``: scikit-learn's ``brier_score_loss`` (``scale_by_half="auto"``)."""
    if rows.binary:
        p = pl.col(rows.columns[0]).cast(pl.Float64)
        loss = (rows.positive.cast(pl.Float64) - p) ** 2
    else:
        squared = [
            (
                (pl.col(rows.y_true) == pl.lit(label)).cast(pl.Float64)
                - pl.col(column).cast(pl.Float64)
            )
            ** 2
            for label, column in zip(rows.labels, rows.classes.values(), strict=True)
        ]
        loss = pl.sum_horizontal(squared)
        if len(rows.classes) < 3:  # two probability columns: halved, as scikit-learn
            loss = loss * 0.5
    return rows.finish(rows.aggregate(rows.mean(loss).alias("brier_score")))


def _uniform_edges(n_bins: int) -> list[float]:
    """The inner edges of ``np.linspace(0, 1, n_bins + 1)``, computed as numpy does."""
    step = 1.0 / n_bins
    return [i * step for i in range(1, n_bins)]


def _numpy_quantile(x: pl.Expr, q: float, weight: pl.Expr | None = None) -> pl.Expr:
    """``np.quantile(x, q)`` (method "linear") with numpy's own float steps.

    An edge next to a data value must equal numpy's to the last bit, or a row
    falls in the neighbouring bin; polars' ``quantile`` rounds differently (0.2
    where numpy has 0.19999999999999998, for 0.05, 0.2, 0.2, 0.2 at 1/3).
    numpy: virtual index ``(n - 1) q``; then ``a + (b - a) t``, or
    ``b - (b - a)(1 - t)`` when ``t >= 0.5``, between the order statistics around it.

    With ``weight``, the quantile of the rows repeated by their weights: ``n`` is
    the total weight and the order statistic ``k`` (0-based) is the first value
    whose cumulative weight exceeds ``k`` - for integer weights exactly
    ``np.quantile(np.repeat(x, weight), q)``, and the same rule for any weights.
    """
    ordered = x.sort()
    if weight is None:
        n = x.count().cast(pl.Float64)
        index = (n - 1) * q
        below = index.floor()
        t = index - below
        last = n - 1
        a = ordered.gather(below.clip(0, last).cast(pl.Int64))
        b = ordered.gather((below + 1).clip(0, last).cast(pl.Int64))
    else:
        cumulative = weight.sort_by(x).cum_sum()
        index = ((weight.sum() - 1) * q).clip(0)
        below = index.floor()
        t = index - below
        a = pl.coalesce(ordered.filter(cumulative > below).first(), ordered.last())
        b = pl.coalesce(ordered.filter(cumulative > below + 1).first(), ordered.last())
    diff = b - a
    return pl.when(t >= 0.5).then(b - diff * (1 - t)).otherwise(a + diff * t).first()


def _bin_of(rows: Rows, n_bins: int, strategy: str) -> tuple[pl.LazyFrame, pl.Expr]:
    """Rows with their bin: the number of inner edges strictly below the probability
    (``np.searchsorted(edges[1:-1], p)``, as ``sklearn.calibration.calibration_curve``)."""
    p = pl.col(rows.columns[0]).cast(pl.Float64)
    if n_bins == 1:  # no inner edge: one bin
        return rows.lf, pl.lit(0, pl.Int64)
    if strategy == "uniform":
        return rows.lf, pl.sum_horizontal(
            (p > edge).cast(pl.Int64) for edge in _uniform_edges(n_bins)
        )
    # numpy: np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100), q divided by 100 again
    step = 1.0 / n_bins
    qs = [((i * step) * 100) / 100 for i in range(1, n_bins)]
    edges = rows.lf.group_by(rows.keys).agg(
        _numpy_quantile(p, q, rows.weight).alias(f"{_EDGE}{i}") for i, q in enumerate(qs)
    )
    frame = rows.lf.join(edges, on=rows.keys, nulls_equal=True)
    return frame, pl.sum_horizontal(
        (p > pl.col(f"{_EDGE}{i}")).cast(pl.Int64) for i in range(len(qs))
    )


def _calibration_bins(rows: Rows, *, n_bins: int, strategy: str) -> pl.LazyFrame:
    """``*keys, bin, prob_true, prob_pred, count``: the non-empty bins, in order."""
    frame, bin_expr = _bin_of(rows, n_bins, strategy)
    p = pl.col(rows.columns[0]).cast(pl.Float64)
    count = pl.len().cast(pl.Float64) if rows.weight is None else rows.weight.sum()
    result = rows.aggregate(
        rows.mean(rows.positive.cast(pl.Float64)).alias("prob_true"),
        rows.mean(p).alias("prob_pred"),
        count.alias("count"),
        keys=[*rows.keys, _BIN],
        frame=frame.with_columns(bin_expr.alias(_BIN)),
    )
    return result.select(*rows.keys, pl.col(_BIN).alias("bin"), "prob_true", "prob_pred", "count")


def calibration_curve(rows: Rows, *, n_bins: int, strategy: str) -> pl.LazyFrame:
    """``*by, bin, prob_true, prob_pred, count``: the non-empty bins, in order."""
    return rows.finish(_calibration_bins(rows, n_bins=n_bins, strategy=strategy))


def calibration_error(rows: Rows, *, n_bins: int, strategy: str) -> pl.LazyFrame:
    """``*by, ece, mce``: the count-weighted mean and the max of |prob_true - prob_pred|."""
    bins = _calibration_bins(rows, n_bins=n_bins, strategy=strategy)
    gap = (pl.col("prob_true") - pl.col("prob_pred")).abs()
    share = pl.col("count") / pl.col("count").sum()
    agg = [(gap * share).sum().alias("ece"), gap.max().alias("mce")]
    result = bins.group_by(rows.keys).agg(agg).sort(rows.keys, nulls_last=True)
    return rows.finish(result)


def top_k_accuracy(rows: Rows, *, k: int) -> pl.LazyFrame:
    """``*by, top_k_accuracy``: the actual class is among the ``k`` highest scores.

    Ties rank the class that comes later in sorted label order first, as
    scikit-learn's stable ``argsort(...)[:, ::-1]``.
    """
    labels = rows.labels.sort()
    true_score = rows.true_probability()
    index = pl.when(pl.col(rows.y_true) == pl.lit(labels[0])).then(0)
    for i, label in enumerate(labels[1:], start=1):
        index = index.when(pl.col(rows.y_true) == pl.lit(label)).then(i)
    above = pl.sum_horizontal(
        (
            (pl.col(rows.classes[label]).cast(pl.Float64) > true_score)
            | ((pl.col(rows.classes[label]).cast(pl.Float64) == true_score) & (pl.lit(i) > index))
        ).cast(pl.Int64)
        for i, label in enumerate(labels)
    )
    hit = (above < k).cast(pl.Float64)
    return rows.finish(rows.aggregate(rows.mean(hit).alias("top_k_accuracy")))
