"""Probability metrics: log loss, Brier score, calibration, top-k accuracy.

Each is one ``group_by(*by).agg(...)`` over the rows (calibration adds the bin
to the keys; quantile bins need one more pass for the edges).  The data checks
(nulls, probabilities outside [0, 1], rows not summing to 1) are counted in the
same aggregation and raised at collect time by :func:`_checked`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import polars as pl

from pl_metrics._core import checks, forms, formulas, indicators, names, scores
from pl_metrics._core.names import ALL, INTERNAL
from pl_metrics._core.options import checked
from pl_metrics._stats import normal

#: The float64 machine epsilon (log loss clips with it: ``formulas.EPS``).
EPS = formulas.EPS
#: scikit-learn's tolerance for rows of probabilities summing to 1 (isclose, atol
#: 1e-8, rtol sqrt(eps) of the probabilities' dtype: Float64 here, see sum_tolerance).
SUM_TOLERANCE = 1e-8 + math.sqrt(EPS)
_EPS32 = 2.0**-23


def sum_tolerance(dtypes: Sequence[pl.DataType]) -> float:
    """The tolerance for the columns' dtypes: Float32 (or Float16) probabilities,
    the usual output of predict_proba on GPU models, sum to 1 only to float32's
    precision (scikit-learn uses that dtype's eps too)."""
    if any(d.is_float() and d != pl.Float64 for d in dtypes):
        return 1e-8 + math.sqrt(_EPS32)
    return SUM_TOLERANCE


def rows_not_summing_to_1(columns: Sequence[str], schema: pl.Schema) -> tuple[pl.Expr, float]:
    """The number of rows whose probabilities ``columns`` do not sum to 1 (an
    aggregation), and the tolerance (:func:`sum_tolerance`)."""
    tolerance = sum_tolerance([schema[c] for c in columns])
    total = pl.sum_horizontal(pl.col(c).cast(pl.Float64) for c in columns)
    return ((total - 1).abs() > tolerance).sum(), tolerance


Check = tuple[pl.Expr, Callable[[int], checks.DataError]]
_POSITIVES = f"{INTERNAL}positives"
_LOW, _HIGH = f"{INTERNAL}low", f"{INTERNAL}high"
_EDGE = f"{INTERNAL}edge"
_BIN = f"{INTERNAL}bin"
_CLASS = f"{INTERNAL}class"
_BIN_POSITIVES = f"{INTERNAL}bin_positives"
_WEIGHT_TOTAL = f"{INTERNAL}weight_total"
#: The label column made of a one-hot ``y_true`` (:func:`_one_hot`).
_ONE_HOT = f"{INTERNAL}one_hot"
#: Each row's count of quantile order statistics passed: its rank, or :func:`_passed`.
_PASSED = f"{INTERNAL}passed"
#: A segment's rows, for its quantile edges.
_ROWS = f"{INTERNAL}rows"
#: Whole weights summing below this are summed exactly in floats (their quantile
#: positions are then compared in Int128).
_EXACT_WEIGHTS = 2.0**53


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
        one_hot: bool = False,
    ) -> None:
        one_hot_checks: dict[str, Check] = {}
        if one_hot and isinstance(y_true, Mapping):
            lf, y_prob, one_hot_checks = _one_hot(lf, y_true, y_prob, argument)
            y_true = _ONE_HOT
        if binary_only or isinstance(y_prob, str):
            checks.check_column_name(argument, y_prob)
            columns = [y_prob]
        else:
            columns = list(checks.check_score_map(argument, y_prob).values())
        given, types = scores.prepare(
            lf,
            y_true,
            columns,
            by=by,
            weight=weight,
            reserved=reserved,
            argument=argument,
            made_true=bool(one_hot_checks),
        )
        schema = given.schema
        self.by = given.by
        keys, rows = given.keys, given.rows(lf)
        self.lf = rows if self.by else rows.with_columns(pl.lit(0, pl.Int8).alias(ALL))
        self.keys = keys or [ALL]
        self.y_true = y_true
        self.weight = None if weight is None else pl.col(weight).cast(pl.Float64)
        self.columns = columns
        self.binary = isinstance(y_prob, str)
        dtype = schema[y_true]
        self.default_pos = self.binary and scores.defaults_pos_label(schema, y_true, pos_label)
        if self.binary:
            self.pos_label = scores.resolve_pos_label(schema, y_true, pos_label)
            self.positive = pl.col(y_true) == pl.lit(self.pos_label, dtype)
            self.classes: dict[object, str] = {}
        else:
            keys_ = [checks.label_value(k, dtype, argument, y_true) for k in y_prob]
            self.classes = dict(zip(keys_, columns, strict=True))
            self.labels = pl.Series(keys_, dtype=dtype)
        true_aggs, true_checks = scores.true_checks(y_true, types)
        self.checks: dict[str, Check] = one_hot_checks  # first: a bad row has no label
        self.checks |= {
            name: (agg, error) for agg, (name, error) in zip(true_aggs, true_checks, strict=True)
        }
        bad = pl.sum_horizontal(_bad_value(c, probabilities=probabilities) for c in columns).sum()
        self.checks[f"{INTERNAL}bad_prob"] = (
            bad,
            (lambda n: checks.Bad.bad_probabilities(columns, n))
            if probabilities
            else (lambda n: checks.Bad.bad_scores(columns, n)),
        )
        inexact = None if probabilities else scores.inexact_scores(schema, columns)
        if inexact is not None:  # scores (top_k_accuracy) are compared as Float64
            self.checks[f"{INTERNAL}inexact"] = inexact
        if not self.binary:
            known = pl.col(y_true).is_in(self.labels.implode()) | pl.col(y_true).is_null()
            self.checks[f"{INTERNAL}unknown"] = (
                (~known).sum(),
                lambda n: checks.Bad.unknown_classes(y_true, n, list(self.classes)),
            )
        if not self.binary and probabilities:
            off, tolerance = rows_not_summing_to_1(columns, schema)
            self.checks[f"{INTERNAL}sum"] = (
                off,
                lambda n: checks.Bad.probabilities_not_summing_to_1(columns, n, tolerance),
            )
        if weight is not None:
            bad, overflow = checks.weight_errors(weight)
            self.checks[checks.BAD_WEIGHT] = (checks.bad_weight(weight), bad)
            # the weight of each aggregated group here; in `aggregate`, 1 on every
            # group of a segment whose total weight is not finite (a calibration bin
            # is a group: each bin can be finite while the segment overflows)
            self.checks[_WEIGHT_TOTAL] = (self.weight.sum(), overflow)

    def mean(self, value: pl.Expr) -> pl.Expr:
        """The (weighted) mean of a per-row value (:func:`formulas.weighted_mean`)."""
        if self.weight is None:
            return value.mean()
        return formulas.weighted_mean(value, self.weight)

    def aggregate(
        self,
        *aggs: pl.Expr,
        keys: Sequence[str] | None = None,
        frame: pl.LazyFrame | None = None,
        label_sets: bool = True,
    ) -> pl.LazyFrame:
        """``group_by(keys).agg(aggs)`` of the rows (or of ``frame``, the rows with
        extra columns) with the data checks, sorted by the keys; ``label_sets``:
        False where the binary label set of all rows is checked later (a shard's state)."""
        keys = list(self.keys if keys is None else keys)
        check_aggs = [expr.alias(name) for name, (expr, _) in self.checks.items()]
        binary = self.binary and label_sets
        if binary:
            check_aggs += [
                self.positive.sum().alias(_POSITIVES),
                pl.col(self.y_true).min().alias(_LOW),
                pl.col(self.y_true).max().alias(_HIGH),
                *(scores.default_pos_label_aggs(pl.col(self.y_true)) if self.default_pos else []),
            ]
        frame = (self.lf if frame is None else frame).group_by(keys).agg(*aggs, *check_aggs)
        if _WEIGHT_TOTAL in self.checks:
            total = pl.col(_WEIGHT_TOTAL).sum().over(self.keys)
            frame = frame.with_columns(checks.weight_total_too_large(total).alias(_WEIGHT_TOTAL))
        frame = checks.raise_if_bad(
            frame, [(name, error) for name, (_, error) in self.checks.items()]
        )
        if self.default_pos and binary:
            frame = scores.check_default_pos_label(frame, self.lf, self.y_true)
        if binary:
            frame = scores.check_pos_label(
                frame, self.lf, self.y_true, self.pos_label, _POSITIVES, distinct=(_LOW, _HIGH)
            )
        check_columns = [*self.checks, *([_POSITIVES, _LOW, _HIGH] if binary else [])]
        return frame.drop(check_columns).sort(keys, nulls_last=True)

    def finish(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        """Restore the ``by`` names."""
        return names.restore_keys(frame, self.by)

    def true_probability(self, probabilities: Sequence[pl.Expr] | None = None) -> pl.Expr:
        """Multiclass: the probability given to each row's actual class (of the
        ``probabilities``, one per class in mapping order; default the columns)."""
        probs = self.probabilities() if probabilities is None else probabilities
        expr = pl.when(pl.col(self.y_true) == pl.lit(self.labels[0])).then(probs[0])
        for label, p in zip(self.labels[1:], probs[1:], strict=True):
            expr = expr.when(pl.col(self.y_true) == pl.lit(label)).then(p)
        return expr

    def probabilities(self) -> list[pl.Expr]:
        """The model's probabilities: binary ``[p of pos_label]``; multiclass one per
        class, in mapping order."""
        return [pl.col(c).cast(pl.Float64) for c in self.columns]

    def outcomes(self) -> list[pl.Expr]:
        """Per row, 1.0 / 0.0: binary ``[is pos_label]``; multiclass ``[is class k]``
        per class (the one-hot rows scikit-learn's losses compare with)."""
        if self.binary:
            return [self.positive.cast(pl.Float64)]
        return [(pl.col(self.y_true) == pl.lit(k)).cast(pl.Float64) for k in self.labels]

    def priors(self) -> list[pl.Expr]:
        """Aggregation: the null model of D^2, the (weighted) share of each outcome of
        :meth:`outcomes` in the segment (scikit-learn's ``np.average(labels, weights)``)."""
        return [self.mean(outcome) for outcome in self.outcomes()]

    def classes_present(self) -> pl.Expr:
        """Aggregation: the number of classes of the segment's rows (binary: 1 or 2)."""
        if self.binary:
            return self.positive.any().cast(pl.Int64) + (~self.positive).any().cast(pl.Int64)
        return pl.col(self.y_true).n_unique()


def _one_hot(
    lf: pl.LazyFrame, y_true: Mapping[object, str], y_prob: object, argument: str
) -> tuple[pl.LazyFrame, dict[object, str], dict[str, Check]]:
    """A one-hot ``y_true`` as the label column :data:`_ONE_HOT` of ``lf``; ``y_prob``
    keyed by ``y_true``'s labels; the indicator checks, counted in the aggregation."""
    checked("one-hot y_true", scores=y_prob, argument=argument)
    probs = checks.check_score_map(argument, y_prob)
    truth = forms.indicator_map("y_true", y_true)
    checked("one-hot y_true", truth=truth, scores=probs, argument=argument)
    label, data_checks = indicators.one_hot_label("y_true", truth, lf.collect_schema())
    counted = {name: (flag.cast(pl.Int64).sum(), error) for name, flag, error in data_checks}
    return lf.with_columns(label.alias(_ONE_HOT)), {k: probs[k] for k in truth}, counted


def _bad_value(column: str, *, probabilities: bool) -> pl.Expr:
    """1 for a null or non-finite value (or, for probabilities, one outside [0, 1])."""
    p = pl.col(column).cast(pl.Float64)
    bad = p.is_null() | ~p.is_finite()
    if probabilities:
        bad = bad | (p < 0) | (p > 1)
    return bad.fill_null(True).cast(pl.Int64)


def _log_losses(rows: Rows, probabilities: Sequence[pl.Expr]) -> pl.Expr:
    """Per row, scikit-learn's log loss of ``probabilities`` (as :meth:`Rows.probabilities`):
    ``formulas.log_loss_terms`` over the one-hot outcomes (binary: the two columns
    ``[1 - p, p]``), the one formula of log_loss and D^2."""
    outcomes, probs = rows.outcomes(), list(probabilities)
    if rows.binary:
        outcomes, probs = [1 - outcomes[0], outcomes[0]], [1 - probs[0], probs[0]]
    return formulas.log_loss_terms(outcomes, probs)


def _squared_errors(rows: Rows, probabilities: Sequence[pl.Expr]) -> pl.Expr:
    """Per row, the Brier loss of ``probabilities``: the squared differences from the
    outcomes (multiclass: summed over the classes, halved for two columns as
    ``scale_by_half="auto"``): the one formula of brier_score and D^2."""
    loss = formulas.brier_terms(rows.outcomes(), probabilities)
    if not rows.binary and len(rows.classes) < 3:  # two probability columns: halved
        loss = loss * 0.5
    return loss


def row_log_loss(rows: Rows) -> pl.Expr:
    """Per row, the log loss of the rows' probabilities (over_time's buckets)."""
    return _log_losses(rows, rows.probabilities())


def row_brier(rows: Rows) -> pl.Expr:
    """Per row, the Brier loss of the rows' probabilities (over_time's buckets)."""
    return _squared_errors(rows, rows.probabilities())


def log_loss(rows: Rows, *, normalize: bool) -> pl.LazyFrame:
    """``*by, log_loss``: scikit-learn's ``log_loss`` (clipping to [eps, 1 - eps])."""
    loss = _log_losses(rows, rows.probabilities())
    if normalize:
        value = rows.mean(loss)
    else:
        value = loss.sum() if rows.weight is None else (loss * rows.weight).sum()
    return rows.finish(rows.aggregate(value.alias("log_loss")))


def brier_score(rows: Rows) -> pl.LazyFrame:
    """``*by, brier_score``: scikit-learn's ``brier_score_loss`` (``scale_by_half="auto"``)."""
    loss = _squared_errors(rows, rows.probabilities())
    return rows.finish(rows.aggregate(rows.mean(loss).alias("brier_score")))


#: D^2's losses: the per-row loss of some probabilities, for each metric.
_D2_LOSSES = {"d2_log_loss_score": _log_losses, "d2_brier_score": _squared_errors}


def d2_score(rows: Rows, metric: str) -> pl.LazyFrame:
    """``*by, <metric>``: scikit-learn's ``d2_log_loss_score`` / ``d2_brier_score``.

    1 - loss / null loss (:func:`formulas.d2_score`): the (weighted) mean per-row
    loss of the model's probabilities and of the class priors of the segment
    (:meth:`Rows.priors`), by the same per-row formula.  NaN for a segment with
    one class: the priors are then a perfect model (a null loss of 0, or of
    -log(1 - eps) for the clipped log loss), and D^2 says nothing (scikit-learn
    returns NaN below two rows and raises or divides by ~0 for one class).
    """
    per_row = _D2_LOSSES[metric]
    loss = rows.mean(per_row(rows, rows.probabilities()))
    null_loss = rows.mean(per_row(rows, rows.priors()))
    d2 = pl.when(rows.classes_present() >= 2).then(formulas.d2_score(loss, null_loss))
    return rows.finish(rows.aggregate(d2.otherwise(float("nan")).alias(metric)))


def _uniform_edges(n_bins: int) -> list[float]:
    """The inner edges of ``np.linspace(0, 1, n_bins + 1)``, computed as numpy does."""
    step = 1.0 / n_bins
    return [i * step for i in range(1, n_bins)]


def _order_statistics(x: pl.Expr, q: float, passed: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The two order statistics around ``np.quantile(x, q)``'s virtual index
    ``(n - 1) q`` (method "linear"): aggregations, evaluated once each and then
    interpolated by :func:`_interpolated` (inside one expression polars computed
    each of them three times).

    ``passed``: per row, how many order statistics ``k`` (0, 1, ...) it passes,
    growing with ``x``: its 1-based rank among the rows (``cum_count`` of the rows
    sorted by ``x``), or :func:`_passed` for weighted rows.  Order statistic ``k``
    is the smallest value whose count passes ``k`` (no sort per quantile: the
    counts are computed once, over the segment).
    """
    below = ((x.count().cast(pl.Float64) - 1) * q).floor()
    a = pl.coalesce(x.filter(passed > below).min(), x.max())
    b = pl.coalesce(x.filter(passed > below + 1).min(), x.max())
    return a, b


def _interpolated(a: pl.Expr, b: pl.Expr, n: pl.Expr, q: float) -> pl.Expr:
    """``np.quantile``'s "linear" step between the order statistics ``a`` and ``b``
    around the virtual index ``(n - 1) q``, with numpy's own float steps.

    An edge next to a data value must equal numpy's to the last bit, or a row
    falls in the neighbouring bin; polars' ``quantile`` rounds differently (0.2
    where numpy has 0.19999999999999998, for 0.05, 0.2, 0.2, 0.2 at 1/3).
    numpy: ``a + (b - a) t``, or ``b - (b - a)(1 - t)`` when ``t >= 0.5``.
    """
    index = (n.cast(pl.Float64) - 1) * q
    t = index - index.floor()
    diff = b - a
    return pl.when(t >= 0.5).then(b - diff * (1 - t)).otherwise(a + diff * t)


def _passed(x: pl.Expr, weight: pl.Expr) -> pl.Expr:
    """Per row of a segment sorted by ``x``: how many order statistics ``k`` (0, 1, ...)
    its cumulative weight passes, ``ceil(C n / W)``, for quantiles of the rows
    repeated by their weights normalised to sum to ``n``, the segment's rows
    (``w n / W``).  Evaluated over the segment.

    The order statistic ``k`` is the first value whose cumulative normalised weight
    ``C n / W`` exceeds ``k``, compared as ``C n > k W`` (no quotient to round:
    ``C / W * n`` gave 7.000000000000001 for C = 14, W = 20, n = 10, and put two
    rows in the next bin).  Equal weights: ``cum_count``, 1, 2, ..., n, the
    unweighted positions.  Whole weights summing below 2**53 (``C`` and ``W``
    exact): in Int128, exactly.  Other weights: ``C`` and ``W`` are float sums and
    the two products are rounded once each (exact while they fit in 53 bits).

    Scale-free: weights times a power of two give the same bins (other constants
    too, but for the rounding of float sums), and equal weights the unweighted
    ones.  Integer weights are not exactly repeated rows here:
    linear interpolation cannot be both (the repeated rows' ``(W - 1) q`` moves
    with the weights' scale, and weights summing to 1 put every edge at the
    smallest value).
    """
    n = x.count().cast(pl.Float64)
    cumulative = weight.cum_sum()
    total = weight.sum()
    wide_total = total.cast(pl.Int128, strict=False)
    exact = cumulative.cast(pl.Int128, strict=False) * n.cast(pl.Int128) + wide_total - 1
    # floats: the smallest p with p W >= C n, both products rounded once (scaled
    # together by a power of two, exact, so that they neither overflow nor
    # underflow): the quotient's ceiling, then one step either way where rounding
    # put it off (a power of two times the weights changes no product's rounding)
    c, w = formulas.overflow_safe([cumulative, total], total)
    guess = (c / w * n).ceil()
    position = c * n
    rounded = (
        pl.when((guess - 1) * w >= position)
        .then(guess - 1)
        .when(guess * w < position)
        .then(guess + 1)
        .otherwise(guess)
    ).clip(1)  # C > 0 (rows of weight 0 are gone) passes k = 0, even where C n underflows
    return (
        pl.when(weight.min() == weight.max())
        .then(x.cum_count().cast(pl.Float64))
        .when((weight == weight.floor()).all() & (total < _EXACT_WEIGHTS))
        .then((exact // wide_total).cast(pl.Float64))
        .otherwise(rounded)
    )


def uniform_bin(p: pl.Expr, n_bins: int) -> pl.Expr:
    """The bin of the probability ``p`` among ``n_bins`` equal bins of [0, 1]: the number
    of inner edges strictly below it (a probability on an edge: the lower bin)."""
    if n_bins == 1:
        return pl.lit(0, pl.Int64)
    return pl.sum_horizontal((p > edge).cast(pl.Int64) for edge in _uniform_edges(n_bins))


def quantile_levels(n_bins: int) -> list[float]:
    """The quantiles of the inner edges of ``n_bins`` quantile bins, as scikit-learn
    computes them: ``np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)``, each
    ``q`` divided by 100 again (also the engines' edges, ``_engines.calibration_edges``)."""
    step = 1.0 / n_bins
    return [((i * step) * 100) / 100 for i in range(1, n_bins)]


def _bin_of(rows: Rows, p: pl.Expr, n_bins: int, strategy: str) -> tuple[pl.LazyFrame, pl.Expr]:
    """Rows with the bin of the probability ``p``: the number of inner edges strictly
    below it (``np.searchsorted(edges[1:-1], p)``, as
    ``sklearn.calibration.calibration_curve``)."""
    if n_bins == 1:  # no inner edge: one bin
        return rows.lf, pl.lit(0, pl.Int64)
    if strategy == "uniform":
        return rows.lf, uniform_bin(p, n_bins)
    qs = quantile_levels(n_bins)
    # each row's count of order statistics passed, computed once (:func:`_passed`)
    # weighted, stable: tied values keep their input order, so the float cumulative
    # weights (whose rounding depends on the order of the terms) are the same every
    # run; unweighted, tied rows are alike (a stable sort cost the plan 1.6x)
    stable = rows.weight is not None
    by_value = rows.lf.sort([*rows.keys, p], maintain_order=stable, nulls_last=True)
    passed = p.cum_count() if rows.weight is None else _passed(p, rows.weight)
    positions = by_value.with_columns(passed.over(rows.keys).alias(_PASSED))
    statistics = [_order_statistics(p, q, pl.col(_PASSED)) for q in qs]
    around = positions.group_by(rows.keys).agg(
        p.count().alias(_ROWS),
        *(a.alias(f"{_EDGE}a{i}") for i, (a, _) in enumerate(statistics)),
        *(b.alias(f"{_EDGE}b{i}") for i, (_, b) in enumerate(statistics)),
    )
    edges = around.select(
        *rows.keys,
        *(
            _interpolated(pl.col(f"{_EDGE}a{i}"), pl.col(f"{_EDGE}b{i}"), pl.col(_ROWS), q).alias(
                f"{_EDGE}{i}"
            )
            for i, q in enumerate(qs)
        ),
    )
    frame = rows.lf.join(edges, on=rows.keys, nulls_equal=True)
    return frame, pl.sum_horizontal(
        (p > pl.col(f"{_EDGE}{i}")).cast(pl.Int64) for i in range(len(qs))
    )


def top_label(rows: Rows) -> tuple[pl.Expr, pl.Expr]:
    """Multiclass: per row, the confidence (the largest probability) and whether the
    class of that probability is the actual class (1.0 / 0.0); ties: the first class
    in sorted label order, as ``argmax`` over columns in that order."""
    labels = rows.labels.sort()
    probs = [pl.col(rows.classes[label]).cast(pl.Float64) for label in labels]
    confidence = pl.max_horizontal(probs)
    # the first class whose probability is the largest
    predicted = pl.coalesce(
        pl.when(p == confidence).then(pl.lit(label, labels.dtype))
        for label, p in zip(labels, probs, strict=True)
    )
    return confidence, (predicted == pl.col(rows.y_true)).cast(pl.Float64)


def problems(rows: Rows, multi_class: str) -> list[tuple[object, pl.Expr, pl.Expr]]:
    """The reliability problems of the rows: (class, probability, outcome), the class
    None but for ``per_class``.  Binary: ``pos_label``'s probability and outcome;
    ``top_label``: :func:`top_label`; ``per_class``: each class's probability against
    "the row is of that class" (one-vs-rest), in sorted label order."""
    if rows.binary:
        p = rows.probabilities()[0]
        return [(None, p, rows.positive.cast(pl.Float64))]
    if multi_class == "top_label":
        return [(None, *top_label(rows))]
    return [
        (label, pl.col(rows.classes[label]).cast(pl.Float64), outcome)
        for label, outcome in zip(rows.labels, rows.outcomes(), strict=True)
    ]


def _calibration_bins(
    rows: Rows, *, n_bins: int, strategy: str, multi_class: str, ci: float | None = None
) -> tuple[pl.LazyFrame, list[str]]:
    """``*keys, bin, prob_true, prob_pred, count`` (per class: ``*keys, CLASS, bin, ...``):
    the non-empty bins, in order, and the keys of one curve; with ``ci`` (un-weighted
    rows) also ``prob_true_low``, ``prob_true_high``: Wilson's interval of the bin's
    positives among its rows."""
    # rows as Int64 (as report's support), weights as Float64
    count = pl.len().cast(pl.Int64) if rows.weight is None else rows.weight.sum()
    parts = []
    for label, p, outcome in problems(rows, multi_class):
        frame, bin_expr = _bin_of(rows, p, n_bins, strategy)
        positives = [] if ci is None else [outcome.cast(pl.Int64).sum().alias(_BIN_POSITIVES)]
        bins = rows.aggregate(
            rows.mean(outcome).alias("prob_true"),
            rows.mean(p).alias("prob_pred"),
            count.alias("count"),
            *positives,
            keys=[*rows.keys, _BIN],
            frame=frame.with_columns(bin_expr.alias(_BIN)),
        )
        bounds = []
        if ci is not None:
            low, high = normal.wilson(pl.col(_BIN_POSITIVES), pl.col("count"), ci)
            bounds = [low.alias("prob_true_low"), high.alias("prob_true_high")]
        label_column = [] if label is None else [pl.lit(label, rows.labels.dtype).alias(_CLASS)]
        parts.append(
            bins.select(
                *rows.keys,
                *label_column,
                pl.col(_BIN).alias("bin"),
                "prob_true",
                "prob_pred",
                "count",
                *bounds,
            )
        )
    if rows.binary or multi_class == "top_label":
        return parts[0], list(rows.keys)
    keys = [*rows.keys, _CLASS]
    return pl.concat(parts).sort([*keys, "bin"], nulls_last=True), keys


def _labelled(rows: Rows, frame: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """The result with its ``by`` names, and the class of a per-class row as ``label``."""
    frame = rows.finish(frame)
    return frame.rename({_CLASS: "label"}) if _CLASS in keys else frame


def calibration_curve(
    rows: Rows,
    *,
    n_bins: int,
    strategy: str,
    multi_class: str = "top_label",
    ci: float | None = None,
) -> pl.LazyFrame:
    """``*by, [label,] bin, prob_true, prob_pred, count[, prob_true_low, prob_true_high]``:
    the non-empty bins, in order."""
    bins, keys = _calibration_bins(
        rows, n_bins=n_bins, strategy=strategy, multi_class=multi_class, ci=ci
    )
    return _labelled(rows, bins, keys)


def calibration_error(
    rows: Rows, *, n_bins: int, strategy: str, multi_class: str = "top_label"
) -> pl.LazyFrame:
    """``*by, [label,] ece, mce``: the count-weighted mean and the max of
    |prob_true - prob_pred| over the non-empty bins of each curve."""
    bins, keys = _calibration_bins(rows, n_bins=n_bins, strategy=strategy, multi_class=multi_class)
    return _labelled(rows, bin_errors(bins, keys), keys)


def bin_errors(bins: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """``*keys, ece, mce`` of the bins ``*keys, bin, prob_true, prob_pred, count``."""
    gap = (pl.col("prob_true") - pl.col("prob_pred")).abs()
    share = pl.col("count") / pl.col("count").sum()
    agg = [(gap * share).sum().alias("ece"), gap.max().alias("mce")]
    return bins.group_by(keys).agg(agg).sort(keys, nulls_last=True)


def top_k_accuracy(rows: Rows, *, k: int) -> pl.LazyFrame:
    """``*by, top_k_accuracy``: the actual class is among the ``k`` highest scores.

    Ties rank the class that comes later in sorted label order first, as
    scikit-learn's stable ``argsort(...)[:, ::-1]``.  One score column (binary,
    the score of ``pos_label``): scikit-learn's rule for a 1-D ``y_score``, with
    ``k = 1`` the prediction ``score > 0.5`` when the segment's scores all lie in
    [0, 1], else ``score > 0``, and a hit when it is the row's class; with
    ``k >= 2`` both classes are in the top k, every row a hit.
    """
    if rows.binary:
        score = rows.probabilities()[0]
        if k >= 2:
            hit = pl.lit(1.0, pl.Float64)
        else:
            inside = (score.min() >= 0) & (score.max() <= 1)
            threshold = pl.when(inside).then(0.5).otherwise(0.0)
            hit = ((score > threshold) == rows.positive).cast(pl.Float64)
        return rows.finish(rows.aggregate(rows.mean(hit).alias("top_k_accuracy")))
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


def hinge_loss(rows: Rows, *, labels_given: bool) -> pl.LazyFrame:
    """``*by, hinge_loss``: scikit-learn's ``hinge_loss``, the (weighted) mean of
    :func:`formulas.hinge` of each row's margin.

    Binary: the decision score of ``pos_label``, its rows +1 and the others -1
    (:func:`formulas.binary_margin`).  Multiclass (Crammer and Singer): the actual
    class's score minus the largest score of the other classes.  Without
    ``labels``, scikit-learn needs every class of the mapping in each segment's
    ``y_true``: a segment lacking one is an error (with ``labels_given`` they may be
    absent).
    """
    if rows.binary:
        margin = formulas.binary_margin(rows.positive, rows.probabilities()[0])
    else:
        others = [
            pl.when(pl.col(rows.y_true) == pl.lit(label)).then(None).otherwise(score)
            for label, score in zip(rows.labels, rows.probabilities(), strict=True)
        ]
        margin = rows.true_probability() - pl.max_horizontal(others)
        if not labels_given:
            absent = pl.sum_horizontal(
                (~(pl.col(rows.y_true) == pl.lit(label)).any()).cast(pl.Int64)
                for label in rows.labels
            )
            classes = list(rows.classes)
            rows.checks[f"{INTERNAL}absent"] = (
                (absent > 0).cast(pl.Int64),
                lambda n: checks.Bad.absent_classes(rows.y_true, n, classes),
            )
    loss = rows.mean(formulas.hinge(margin))
    return rows.finish(rows.aggregate(loss.alias("hinge_loss")))


#: Relative tolerance under which two expected costs are a tie (decision_cost).
_TIE = 1e-12


def decision_cost(rows: Rows, *, costs: dict[object, dict[object, float]]) -> pl.LazyFrame:
    """``*by, cost``: the (weighted) mean of :func:`row_decision_cost`."""
    return rows.finish(rows.aggregate(rows.mean(row_decision_cost(rows, costs)).alias("cost")))


def row_decision_cost(rows: Rows, costs: dict[object, dict[object, float]]) -> pl.Expr:
    """Per row, the cost ``C[actual][decision]`` of deciding the class of least expected
    cost under its probabilities, ``argmin_j sum_i p_i C[i][j]`` (the Bayes decision;
    ties, within a relative 1e-12: the first class in sorted label order)."""
    labels = rows.labels.sort().to_list()
    prob = {label: pl.col(rows.classes[label]).cast(pl.Float64) for label in labels}
    expected = [
        pl.sum_horizontal(prob[i] * costs[i][j] for i in labels).alias(f"{INTERNAL}e{n}")
        for n, j in enumerate(labels)
    ]
    # expected costs within 1e-12 (relative) of the least are ties, decided by the
    # label order: exact ties (equal costs, rational probabilities) must not be
    # decided by the last bit of a float sum
    least = pl.min_horizontal(expected)
    tied = [e <= least + least.abs() * _TIE for e in expected]
    decision = pl.concat_list(tied).list.arg_max()
    cost = pl.lit(None, pl.Float64)
    for a in labels:
        for n, j in enumerate(labels):
            hit = (pl.col(rows.y_true) == pl.lit(a, rows.labels.dtype)) & (decision == n)
            cost = pl.when(hit).then(pl.lit(costs[a][j], pl.Float64)).otherwise(cost)
    return cost
