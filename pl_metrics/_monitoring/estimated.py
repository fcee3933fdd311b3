"""``estimated_performance``: the metrics expected from calibrated scores, per segment.

NannyML's confidence-based performance estimation (CBPE).  With p the calibrated
probability of ``pos_label`` at a row's score and w its weight (1 without
``weight``), the expected confusion counts of a segment are

    tp = sum w p [y_pred = pos],  fp = sum w (1 - p) [y_pred = pos],
    fn = sum w p [y_pred != pos], tn = sum w (1 - p) [y_pred != pos],

each metric its formula (:mod:`pl_metrics._core.formulas`) on them, and the expected
ROC AUC the weighted AUC of every row counted once as a positive of weight w p and
once as a negative of weight w (1 - p), ranked by the raw score (ties one half).

p is a function of the score, so the rows are read once into each segment's
scores (one ``group_by`` of lists, its data checks counted there), sorted per
segment, and summed in one numpy pass (:mod:`.segment_sums`) over runs of equal
scores: the calibration map (:mod:`.calibration`, fitted on the reference's
per-score label sums at collect) gives each distinct score its p, and the pass
sums the expected counts, the trapezoids of the weighted AUC (as
:mod:`pl_metrics._ranking.from_counts` sums them) and the intervals' squares
(:mod:`pl_metrics._intervals.label_draws`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, get_args

import polars as pl

from pl_metrics._core import catalogue, checks, forms, formulas, inputs, names, scores
from pl_metrics._core.names import ALL, INTERNAL, NEG, POS, ROWS, SCORE
from pl_metrics._core.options import checked
from pl_metrics._intervals import label_draws
from pl_metrics._intervals.analytic import z_value
from pl_metrics._monitoring import calibration, segment_sums
from pl_metrics._typing import EstimatedMetric
from pl_metrics.exceptions import DataError

METHOD = "estimated_performance"
#: The metrics it gives, in the order of the docs (``EstimatedMetric``).
METRICS: tuple[str, ...] = get_args(EstimatedMetric)

_LOW = f"{INTERNAL}other_low"  # the least and largest label besides pos_label
_HIGH = f"{INTERNAL}other_high"
_POSITIVE_ROWS = f"{INTERNAL}positive_rows"
_NEGATIVE_ROWS = f"{INTERNAL}negative_rows"
_OUTSIDE = f"{INTERNAL}outside_01"
# the sums of a segment
_TP, _FP, _FN, _TN = (f"{INTERNAL}{c}" for c in ("tp", "fp", "fn", "tn"))
_VAR_TP, _VAR_FN, _VAR_AUC = (f"{INTERNAL}var_{c}" for c in ("tp", "fn", "auc"))


def check_metrics(metrics: object) -> list[str]:
    """``metrics``: one name of :data:`METRICS` or a non-empty list of them, each once."""
    return forms.name_list("metrics", metrics, METRICS)


def check_arguments(calibration: str | None, reference: object, y_true: str | None) -> None:
    """The calibration's arguments go together: ``"isotonic"`` fits on ``reference``'s
    ``y_true`` (numpy's), ``None`` reads neither (the rules: ``_core/arguments.py``)."""
    checked(METHOD, calibration=calibration, reference=reference, y_true=y_true)
    if calibration is not None and importlib.util.find_spec("numpy") is None:
        msg = "calibration='isotonic' needs numpy: pip install numpy (or calibration=None)"
        raise ModuleNotFoundError(msg)


def _binary_check(
    frame: pl.LazyFrame, rows: pl.LazyFrame, column: str, argument: str, pos_label: object
) -> pl.LazyFrame:
    """Raise at collect when ``column`` holds two or more labels besides ``pos_label``
    (the per-group least and largest other label, :data:`_LOW` / :data:`_HIGH`)."""

    def check(df: pl.DataFrame) -> pl.DataFrame:
        lows, highs = df[_LOW].drop_nulls(), df[_HIGH].drop_nulls()
        if lows.len() and lows.min() != highs.max():
            present = checks.labels_present(rows, column)
            raise checks.Bad.not_binary_labels(column, argument, pos_label, present)
        return df

    return frame.map_batches(check)


def _label_aggs(
    column: str, positive: pl.Expr, types: checks.LabelTypes, default_pos: bool
) -> tuple[list[pl.Expr], list[checks.Check]]:
    """The aggregations checking a label column: nulls, NaN, the other labels, the
    default ``pos_label``'s {0, 1} / {-1, 1}."""
    aggs, checks = scores.true_checks(column, types)
    other = pl.col(column).filter(~positive)
    aggs += [other.min().alias(_LOW), other.max().alias(_HIGH)]
    aggs += scores.default_pos_label_aggs(pl.col(column)) if default_pos else []
    return aggs, checks


def _labels_checked(
    frame: pl.LazyFrame,
    rows: pl.LazyFrame,
    data_checks: list[checks.Check],
    *,
    column: str,
    argument: str,
    pos_label: object,
    default_pos: bool,
) -> pl.LazyFrame:
    """``frame`` raising its counted checks, then the label rules, at collect."""
    frame = checks.raise_if_bad(frame, data_checks)
    if default_pos:
        frame = scores.check_default_pos_label(frame, rows, column)
    return _binary_check(frame, rows, column, argument, pos_label).drop(_LOW, _HIGH)


def _current_state(
    rows: pl.LazyFrame,
    keys: list[str],
    schema: pl.Schema,
    y_pred: str,
    y_score: str,
    *,
    pos_label: object,
    default_pos: bool,
    weight: str | None,
    probabilities: bool,
    keyed: bool,
) -> tuple[pl.LazyFrame, pl.LazyFrame, Callable[[pl.DataFrame, pl.DataFrame], None]]:
    """(lists, counts, check): ``*keys`` and each segment's rows as lists (the sort
    keys when ``keyed``, else the scores and the predictions; the weights; no row for
    no rows), the data checks counted over all the rows (one ``select``: a
    ``group_by`` would evaluate them group by group) with the least score, and
    ``check(counts, lists)``, which raises the first failing check."""
    predicted = pl.col(y_pred) == pl.lit(pos_label, schema[y_pred])
    score = scores.as_score(y_score, schema[y_score])
    if keyed:
        lists = [segment_sums.sort_key(score, predicted).alias(segment_sums.KEY)]
    else:
        lists = [
            score.alias(segment_sums.SCORES),
            predicted.fill_null(value=False).alias(segment_sums.PREDICTED),
        ]
    aggs, data_checks = scores.score_checks(schema, [y_score])
    aggs.append(score.min().alias(segment_sums.LEAST))
    if probabilities:  # calibration=None: the scores are the probabilities
        outside = (score < 0) | (score > 1)
        aggs.append(outside.sum().alias(_OUTSIDE))
        data_checks.append((_OUTSIDE, lambda n: checks.Bad.scores_not_probabilities(y_score, n)))
    label_aggs, label_checks = _label_aggs(
        y_pred, predicted, checks.single_label_types(schema, y_pred), default_pos
    )
    aggs += label_aggs
    data_checks += label_checks
    totals: list[pl.Expr] = []
    if weight is not None:
        w = pl.col(weight).cast(pl.Float64)
        lists.append(w.alias(segment_sums.WEIGHTS))
        aggs.append(checks.bad_weight(weight).alias(checks.BAD_WEIGHT))
        totals.append(checks.weight_total_too_large(w.sum()).alias(inputs.SEGMENT_WEIGHT))
        data_checks += inputs.weight_checks(weight)
    listed = [e.meta.output_name() for e in lists]
    if keys:  # the lists' columns made first: plain columns aggregate fastest
        grouped = rows.with_columns(lists).group_by(keys).agg(*listed, *totals)
    else:  # one segment: a select (a group_by of one group hashes every row)
        grouped = (
            rows.select(*(e.implode() for e in lists), *totals, pl.len().alias(ROWS))
            .filter(pl.col(ROWS) > 0)
            .drop(ROWS)
            .with_columns(pl.lit(0, pl.Int8).alias(ALL))
        )

    def check(counts: pl.DataFrame, lists: pl.DataFrame) -> None:
        frame = counts.lazy()
        if weight is not None:  # any segment's total too large
            too_large = lists.get_column(inputs.SEGMENT_WEIGHT).sum()
            frame = frame.with_columns(pl.lit(too_large, pl.Int64).alias(inputs.SEGMENT_WEIGHT))
        checked = _labels_checked(
            frame,
            rows,
            data_checks,
            column=y_pred,
            argument="y_pred",
            pos_label=pos_label,
            default_pos=default_pos,
        )
        checked.collect()

    return grouped, rows.select(aggs), check


class Reference:
    """The reference rows and how their calibration map is fitted (at collect)."""

    def __init__(
        self,
        lf: pl.LazyFrame,
        reference: object,
        *,
        y_true: str,
        y_score: str,
        weight: str | None,
        pos_label: object,
    ) -> None:
        """Check the reference's schema (call time): an expression is Boolean, a frame
        holds ``y_true``, ``y_score`` (numeric) and ``weight``."""
        self.side = inputs.reference_rows(lf, reference)
        self.flag, self.schema = self.side.flag, self.side.schema
        self.side.check_found([("y_true", y_true), ("y_score", y_score), ("weight", weight)])
        checks.check_numeric(self.schema, "y_score", y_score, self.side.where)
        checks.check_numeric(self.schema, "weight", weight, self.side.where)
        self.pos_label = scores.resolve_pos_label(self.schema, y_true, pos_label)
        self.default_pos = scores.defaults_pos_label(self.schema, y_true, pos_label)
        self.rows = checks.without_zero_weights(self.side.rows, weight)
        self.lf, self.y_true, self.y_score, self.weight = lf, y_true, y_score, weight

    def _read(self) -> tuple[int, int, pl.DataFrame]:
        """The reference's rows of ``pos_label`` and of the other label, and its scores,
        labels (and weights) as lists: one ``select`` over its rows, its label and
        weight checks raised (the score checks are :meth:`_counts`')."""
        schema, y_true = self.schema, self.y_true
        positive = pl.col(y_true) == pl.lit(self.pos_label, schema[y_true])
        aggs, data_checks = _label_aggs(
            y_true, positive, checks.single_label_types(schema, y_true), self.default_pos
        )
        aggs += [positive.sum().alias(_POSITIVE_ROWS), (~positive).sum().alias(_NEGATIVE_ROWS)]
        score = scores.as_score(self.y_score, schema[self.y_score])
        aggs += [score.implode(), positive.fill_null(value=False).implode().alias(POS)]
        score_aggs, self._score_checks = scores.score_checks(schema, [self.y_score])
        aggs += score_aggs
        if self.weight is not None:
            w = pl.col(self.weight).cast(pl.Float64)
            aggs += [
                checks.bad_weight(self.weight).alias(checks.BAD_WEIGHT),
                w.implode().alias(NEG),
            ]
            aggs.append(checks.weight_total_too_large(w.sum()).alias(inputs.SEGMENT_WEIGHT))
            data_checks += inputs.weight_checks(self.weight)
        read = self.rows.select(aggs).collect()
        checked = _labels_checked(
            read.lazy().drop(SCORE, POS, *([NEG] if self.weight else [])),
            self.rows,
            data_checks,
            column=y_true,
            argument="y_true",
            pos_label=self.pos_label,
            default_pos=self.default_pos,
        )
        classes = checked.select(_POSITIVE_ROWS, _NEGATIVE_ROWS).collect()
        return classes.item(0, 0), classes.item(0, 1), read

    def _counts(self, read: pl.DataFrame) -> tuple[Any, Any, Any]:
        """(scores, positive, weight): each distinct reference score, ascending, with
        the summed weights of its positive rows and of all its rows (bad scores
        raised; sorted and summed by :func:`segment_sums.score_sums`)."""
        checks.raise_if_bad(read.lazy(), self._score_checks).collect()

        def flat(name: str) -> Any:
            return read.get_column(name).explode().to_numpy()

        weights = None if self.weight is None else flat(NEG)
        return segment_sums.score_sums(flat(SCORE), flat(POS).astype(bool), weights)

    def fit(self) -> tuple[Any, Any]:
        """(the distinct reference scores, their isotonic fit), as
        :func:`calibration.knots`: collects the reference's checks and per-score sums
        (``DataError`` where its rows are bad or of one class)."""
        self.side.raise_flag_nulls(self.lf)
        try:  # the current rows' columns have the same names: say whose rows are bad
            positives, negatives, read = self._read()
        except DataError as error:
            raise checks.Bad.in_reference(error) from None
        if not (positives and negatives):
            present = checks.labels_present(self.rows, self.y_true)
            raise checks.Bad.reference_one_class(self.y_true, self.pos_label, present)
        try:
            scores, positive, weight = self._counts(read)
        except DataError as error:
            raise checks.Bad.in_reference(error) from None
        return calibration.knots(scores, calibration.isotonic(positive, weight))


def _segment_sums(
    state: Callable[[bool], tuple[pl.LazyFrame, pl.LazyFrame, Any]],
    keys: list[str],
    fit: Callable[[], tuple[Any, Any]] | None,
    *,
    keyed: bool,
    weighted: bool,
    ci: bool,
) -> pl.LazyFrame:
    """``*keys, n, _TP, _FP, _FN, _TN, roc_auc`` (+ the variances with ``ci``), at
    collect: the calibration map fitted (``fit``, on a thread beside the query; the
    reference's errors first), the segments' lists and the checks' counts
    (``state(keyed)``, one query; keys
    met with a negative score read the rows again, unkeyed) summed in numpy
    (:func:`segment_sums.segment_sums`)."""
    given = state(keyed)[0].collect_schema()
    sums = [_TP, _FP, _FN, _TN, "roc_auc", *((_VAR_TP, _VAR_FN, _VAR_AUC) if ci else ())]
    schema = pl.Schema(
        {
            **{k: given[k] for k in keys},
            "n": pl.Float64() if weighted else pl.Int64(),
            **dict.fromkeys(sums, pl.Float64()),
        }
    )

    def run() -> pl.DataFrame:
        import numpy as np

        lists, counts, check = state(keyed)
        with ThreadPoolExecutor(1) as pool:  # the fit beside the current rows' query
            fitting = None if fit is None else pool.submit(fit)
            try:
                found, df = pl.collect_all([counts, lists])
            except Exception:
                if fitting is not None:
                    fitting.result()  # the reference's errors first
                raise
            fitted = None if fitting is None else fitting.result()
        check(found, df)
        sorted_keys = keyed
        if keyed and bool((found.get_column(segment_sums.LEAST) < 0).any()):
            df, sorted_keys = state(False)[0].collect(), False  # the keys need one sign
        values = df.get_column(segment_sums.KEY if sorted_keys else segment_sums.SCORES)
        sizes = values.list.len().to_numpy().astype(np.int64)

        def flat(name: str) -> Any:
            return df.get_column(name).explode().to_numpy()

        def calibrate(scores: Any) -> Any:
            return scores if fitted is None else calibration.calibrate(scores, *fitted)

        out = segment_sums.segment_sums(
            sizes,
            flat(segment_sums.KEY if sorted_keys else segment_sums.SCORES),
            None if sorted_keys else flat(segment_sums.PREDICTED),
            flat(segment_sums.WEIGHTS) if weighted else None,
            calibrate,
            ci=ci,
        )
        columns = {"n": out["n"], _TP: out["tp"], _FP: out["fp"], _FN: out["fn"]}
        columns |= {_TN: out["tn"], "roc_auc": out["roc_auc"]}
        if ci:
            columns |= {_VAR_TP: out["var_tp"], _VAR_FN: out["var_fn"], _VAR_AUC: out["var_auc"]}
        values = [
            pl.Series(name, columns[name], dtype=schema[name])
            for name in schema.names()[len(keys) :]
        ]
        return df.select(keys).with_columns(values)

    return pl.defer(run, schema=schema)


def _metrics(chosen: list[str], ci: float | None) -> tuple[list[pl.Expr], list[pl.Expr]]:
    """The metric columns (and their bounds with ``ci``) from a segment's sums; an
    undefined metric (a zero denominator) is null."""
    tp, fp, fn, tn = (pl.col(c) for c in (_TP, _FP, _FN, _TN))
    nan = float("nan")
    counts = {"tp": tp, "fp": fp, "fn": fn, "tn": tn}
    values: dict[str, pl.Expr] = {}
    for name in chosen:
        metric = catalogue.CATALOGUE[name]
        if metric.ranked is catalogue.Ranked.AUC:  # the segment sums' column
            values[name] = pl.col(name)
        elif metric.correct_share:
            values[name] = formulas.accuracy(tp + tn, tp + fp + fn + tn, nan)
        else:
            values[name] = formulas.binary_metric(name, counts, nan)
    columns = [values[name].fill_nan(None).alias(name) for name in chosen]
    if ci is None:
        return columns, []
    z = z_value(ci)
    total = tp + fp + fn + tn
    shares = [c / total for c in (tp, fp, fn, tn)]
    bounds = []
    for name in chosen:
        value = pl.col(name)
        if catalogue.CATALOGUE[name].ranked is catalogue.Ranked.AUC:
            variance = pl.col(_VAR_AUC)
        else:
            gradient = label_draws.count_gradient(name, *shares)
            variance = label_draws.count_variance(gradient, (pl.col(_VAR_TP), pl.col(_VAR_FN)))
        bounds += label_draws.normal_bounds(value, variance, z, name)
    return columns, bounds


def estimated_performance(
    lf: pl.LazyFrame,
    y_pred: str,
    y_score: str,
    *,
    reference: object,
    y_true: str | None,
    by: object,
    pos_label: object,
    weight: str | None,
    calibration: str | None,
    metrics: list[str],
    ci: float | None,
    windows: Callable[[pl.LazyFrame, list[str]], pl.LazyFrame] | None = None,
) -> pl.LazyFrame:
    """``*by, n, <metric>...`` (+ ``<metric>_low, <metric>_high`` with ``ci``); the
    options checked by the caller (:func:`check_metrics`, :func:`check_arguments`).
    ``windows(lists, keys)``: the segments' lists (their rows, the data checks counted
    once over the rows) made those of other segments: ``over_time``'s rolling windows,
    each bucket's lists in the windows that hold it (:mod:`.estimated_windows`)."""
    reserved = names.output_columns(METHOD, ci=ci is not None)
    given: inputs.Input[None] = inputs.schema_stage(
        lf,
        by=by,
        weight=weight,
        reserved=reserved,
        columns={"y_pred": y_pred, "y_score": y_score},
        numeric={"y_score": [y_score]},
    )
    schema = given.schema
    ref = None
    if calibration is not None:
        assert y_true is not None  # check_arguments
        checks.check_column_name("y_true", y_true)
        ref = Reference(
            lf, reference, y_true=y_true, y_score=y_score, weight=weight, pos_label=pos_label
        )
    current = given.current_rows(lf, None if ref is None else ref.flag)
    pos = scores.resolve_pos_label(schema, y_pred, pos_label)
    keys = given.keys or [ALL]

    def state(keyed: bool) -> tuple[pl.LazyFrame, pl.LazyFrame, Any]:
        lists, counts, check = _current_state(
            current,
            given.keys,
            schema,
            y_pred,
            y_score,
            pos_label=pos,
            default_pos=scores.defaults_pos_label(schema, y_pred, pos_label),
            weight=weight,
            probabilities=ref is None,
            keyed=keyed,
        )
        return lists if windows is None else windows(lists, keys), counts, check

    sums = _segment_sums(
        state,
        keys,
        None if ref is None else ref.fit,
        keyed=weight is None,
        weighted=weight is not None,
        ci=ci is not None,
    )
    columns, bounds = _metrics(metrics, ci)
    result = sums.with_columns(columns).with_columns(bounds)
    result = result.select(*keys, "n", *metrics, *names.interval_columns(metrics if ci else []))
    return names.restore_keys(result.sort(keys, nulls_last=True), given.by)


__all__ = ["METRICS", "check_arguments", "check_metrics", "estimated_performance"]
