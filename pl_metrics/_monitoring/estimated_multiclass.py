"""``estimated_performance`` of multiclass scores ``{label: column}`` (NannyML's
multiclass CBPE).

Each class c has its own calibration map, fitted one-vs-rest on the reference rows
(isotonic regression of ``[y_true = c]`` on the score of c, :mod:`.calibration`);
a row's calibrated probabilities (or its scores, ``calibration=None``) are divided
by their sum over the classes, so that they sum to 1 (a row whose probabilities
are all 0 gets 1 / K each): NannyML's ``_calibrate_predicted_probabilities``.
With p_c that probability and w the row's weight, class c's expected counts are

    tp_c = sum w p_c [y_pred = c],  fp_c = sum w (1 - p_c) [y_pred = c],
    fn_c = sum w p_c [y_pred != c], tn_c = sum w (1 - p_c) [y_pred != c],

and its expected one-vs-rest ROC AUC the weighted AUC of every row counted once as
a positive of weight w p_c and once as a negative of weight w (1 - p_c), ranked by
the raw score of c.  Each class's sums are the binary path's numpy pass
(:func:`segment_sums.segment_sums` with the rows' own probabilities), a loop over
the classes of vectorised work; the per-class rows and their averages are then
one polars query over the small frame of sums (:func:`_table`).

With ``ci`` each row's label is drawn Categorical(p_1 .. p_K): a class's variances
are the binary path's with each row's p_c (:func:`segment_sums.segment_sums` with
``ci``, :func:`estimated._metrics`' bounds), the averages' take the covariances of
the classes within a row (:mod:`pl_metrics._intervals.class_draws`, from each
class's sums and each row's AUC derivative).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import polars as pl
from polars.exceptions import SchemaError

from pl_metrics._core import catalogue, checks, formulas, inputs, names, scores
from pl_metrics._core.names import ALL, INTERNAL
from pl_metrics._core.options import checked
from pl_metrics._intervals import class_draws, label_draws
from pl_metrics._intervals.analytic import z_value
from pl_metrics._monitoring import calibration, estimated, segment_sums
from pl_metrics.exceptions import DataError

METHOD = "estimated_performance"
LABEL, AVERAGE = "label", "average"
#: The average rows after the per-class rows, in this order (``averages``').
AVERAGES = ("micro", "macro", "weighted")

_CLASS = f"{INTERNAL}class"  # a row's class: its index among the sorted classes
_UNKNOWN = f"{INTERNAL}unknown_labels"
_OUTSIDE = f"{INTERNAL}outside_01"
_ROWS = f"{INTERNAL}rows"
_ORDER = f"{INTERNAL}order"  # the rows' order in a segment: the classes, then the averages
_TP, _FP, _FN, _TN = (f"{INTERNAL}{c}" for c in ("tp", "fp", "fn", "tn"))


def check_options(*, pos_label: object) -> None:
    """Refuse the binary options: every class is the positive class of its own
    one-vs-rest problem."""
    checked("estimated class scores", pos_label=pos_label)


def _labels(keys: list[object], dtype: pl.DataType, column: str) -> pl.Series:
    """The mapping's keys as labels of ``column`` (``dtype``), in the order given."""
    try:
        labels = [checks.label_value(k, dtype, "y_score", column) for k in keys]
    except ValueError as exc:
        msg = f"the keys of `y_score` {keys!r} must be labels of {column!r} ({dtype}): {exc}"
        raise SchemaError(msg) from None
    return pl.Series(LABEL, labels, dtype=dtype)


def _class_index(column: str, classes: pl.Series) -> pl.Expr:
    """Each row's class as its index among ``classes`` (Int32; null for a null label or
    one that is not a class, which the checks count)."""
    index = pl.Series(range(classes.len()), dtype=pl.Int32)
    return pl.col(column).replace_strict(classes, index, default=None, return_dtype=pl.Int32)


def _label_checks(
    schema: pl.Schema, column: str, classes: pl.Series, rows: pl.LazyFrame
) -> tuple[list[pl.Expr], list[checks.Check]]:
    """Nulls, NaN labels and labels without a score column in the mapping."""
    aggs, data_checks = scores.true_checks(column, checks.single_label_types(schema, column))
    unknown = pl.col(column).is_not_null() & ~pl.col(column).is_in(classes.implode())
    if schema[column].is_float():  # a NaN is no label (true_checks counts it)
        unknown = unknown & pl.col(column).is_not_nan()
    aggs.append(unknown.sum().alias(_UNKNOWN))

    def unknown_error(n: int) -> DataError:
        present = checks.labels_present(rows.filter(unknown), column)
        return checks.Bad.unknown_classes(column, n, classes.to_list(), present)

    data_checks.append((_UNKNOWN, unknown_error))
    return aggs, data_checks


def _scores_weights(
    schema: pl.Schema, columns: list[str], weight: str | None
) -> tuple[list[pl.Expr], list[pl.Expr], list[checks.Check]]:
    """(the lists of the rows' scores (and weights), the checks' aggregations, the
    checks): bad scores, bad weights."""
    lists = [
        scores.as_score(c, schema[c]).alias(f"{INTERNAL}score_{i}") for i, c in enumerate(columns)
    ]
    aggs, data_checks = scores.score_checks(schema, columns)
    if weight is not None:
        lists.append(pl.col(weight).cast(pl.Float64).alias(segment_sums.WEIGHTS))
        aggs.append(checks.bad_weight(weight).alias(checks.BAD_WEIGHT))
        data_checks += inputs.weight_checks(weight)
    return lists, aggs, data_checks


class Reference:
    """The reference rows of the per-class calibration maps (fitted at collect)."""

    def __init__(
        self,
        lf: pl.LazyFrame,
        reference: object,
        *,
        y_true: str,
        keys: list[object],
        columns: list[str],
        weight: str | None,
    ) -> None:
        """Check the reference's schema (call time), as the binary reference's."""
        self.side = inputs.reference_rows(lf, reference)
        self.flag, self.schema = self.side.flag, self.side.schema
        self.columns = columns
        given = [("y_true", y_true), *(("y_score", c) for c in self.columns), ("weight", weight)]
        self.side.check_found(given)
        for column in self.columns:
            checks.check_numeric(self.schema, "y_score", column, self.side.where)
        checks.check_numeric(self.schema, "weight", weight, self.side.where)
        self.classes = _labels(keys, self.schema[y_true], y_true)  # the current rows' order
        self.rows = checks.without_zero_weights(self.side.rows, weight)
        self.lf, self.y_true, self.weight = lf, y_true, weight

    def _read(self) -> pl.DataFrame:
        """The reference's scores, classes (and weights) as lists, its checks raised."""
        lists, aggs, data_checks = _scores_weights(self.schema, self.columns, self.weight)
        label_aggs, label_checks = _label_checks(self.schema, self.y_true, self.classes, self.rows)
        lists.append(_class_index(self.y_true, self.classes).alias(_CLASS))
        if self.weight is not None:
            total = checks.weight_total_too_large(pl.col(self.weight).cast(pl.Float64).sum())
            aggs.append(total.alias(inputs.SEGMENT_WEIGHT))
        read = self.rows.select(*(e.implode() for e in lists), *aggs, *label_aggs).collect()
        checks.raise_if_bad(read.lazy(), [*label_checks, *data_checks]).collect()
        return read

    def fit(self) -> list[tuple[Any, Any]]:
        """Each class's map (:func:`calibration.knots`): its reference scores against
        "is the row of this class" (``DataError`` where the rows are bad or none)."""
        self.side.raise_flag_nulls(self.lf)
        try:  # the current rows' columns have the same names: say whose rows are bad
            read = self._read()
        except DataError as error:
            raise checks.Bad.in_reference(error) from None
        index = read.get_column(_CLASS).explode().to_numpy()
        if not index.size:
            raise checks.Bad.reference_empty(self.y_true)
        weights = (
            None
            if self.weight is None
            else read.get_column(segment_sums.WEIGHTS).explode().to_numpy()
        )
        maps = []
        for i in range(self.classes.len()):
            scores = read.get_column(f"{INTERNAL}score_{i}").explode().to_numpy()
            distinct, positive, total = segment_sums.score_sums(scores, index == i, weights)
            maps.append(calibration.knots(distinct, calibration.isotonic(positive, total)))
        return maps


def probabilities(scores: Any, maps: list[tuple[Any, Any]] | None) -> Any:
    """The rows' probabilities (rows x classes): each class's score calibrated by its
    map (``maps`` None: the scores as they are), divided by the row's sum; 1 / K
    each where that sum is 0 (NannyML's rule)."""
    import numpy as np

    if maps is not None:
        scores = np.column_stack(
            [calibration.calibrate(scores[:, i], *m) for i, m in enumerate(maps)]
        )
    total = scores.sum(axis=1, keepdims=True)
    uniform = np.full_like(scores, 1.0 / scores.shape[1])
    return np.divide(scores, total, out=uniform, where=total != 0)


def _outside(column: str) -> Callable[[int], DataError]:
    """The error of ``column``'s scores outside [0, 1] (calibration=None)."""
    return lambda n: checks.Bad.scores_not_probabilities(column, n)


def _current(
    rows: pl.LazyFrame,
    keys: list[str],
    schema: pl.Schema,
    *,
    y_pred: str,
    columns: list[str],
    classes: pl.Series,
    weight: str | None,
    probabilities_given: bool,
) -> tuple[pl.LazyFrame, pl.LazyFrame, list[checks.Check]]:
    """(lists, counts, checks): each segment's scores, predicted classes (and
    weights) as lists, and the data checks counted over all the rows."""
    lists, aggs, data_checks = _scores_weights(schema, columns, weight)
    lists.append(_class_index(y_pred, classes).alias(_CLASS))
    label_aggs, label_checks = _label_checks(schema, y_pred, classes, rows)
    aggs += label_aggs
    data_checks = [*label_checks, *data_checks]
    if probabilities_given:  # calibration=None: the scores are probabilities
        for i, column in enumerate(columns):
            score = pl.col(column).cast(pl.Float64)
            aggs.append(((score < 0) | (score > 1)).sum().alias(f"{_OUTSIDE}_{i}"))
            data_checks.append((f"{_OUTSIDE}_{i}", _outside(column)))
    totals = []
    if weight is not None:
        total = pl.col(weight).cast(pl.Float64).sum()
        totals.append(checks.weight_total_too_large(total).alias(inputs.SEGMENT_WEIGHT))
    listed = [e.meta.output_name() for e in lists]
    if keys:
        grouped = rows.with_columns(lists).group_by(keys).agg(*listed, *totals)
    else:  # one segment: a select (no row for no rows)
        grouped = (
            rows.select(*(e.implode() for e in lists), *totals, pl.len().alias(_ROWS))
            .filter(pl.col(_ROWS) > 0)
            .drop(_ROWS)
            .with_columns(pl.lit(0, pl.Int8).alias(ALL))
        )
    return grouped, rows.select(aggs), data_checks


def _sums(
    lists: pl.LazyFrame,
    counts: pl.LazyFrame,
    data_checks: list[checks.Check],
    *,
    keys: list[str],
    n_classes: int,
    fit: Callable[[], list[tuple[Any, Any]]] | None,
    weighted: bool,
    ci_metrics: list[str] | None,
) -> pl.LazyFrame:
    """``*keys, _CLASS, n, _TP, _FP, _FN, _TN, roc_auc``: each segment's sums of each
    class (its index), at collect: the maps fitted beside the current rows' query,
    the checks raised, then one numpy pass per class.  With ``ci_metrics`` (the
    metrics of ``ci``): each class's variances of the binary path (``estimated._VAR_TP``,
    ``estimated._VAR_FN``, ``estimated._VAR_AUC``) and each average's variance of each metric
    (:func:`_variance`, the segment's on every class row: :mod:`.class_draws`)."""
    given = lists.collect_schema()
    averaged = [] if ci_metrics is None else _averaged(ci_metrics)
    variances = (
        [] if ci_metrics is None else [estimated._VAR_TP, estimated._VAR_FN, estimated._VAR_AUC]
    )
    variances += [_variance(average, m) for average, m in averaged]
    schema = pl.Schema(
        {
            **{k: given[k] for k in keys},
            _CLASS: pl.Int32(),
            "n": pl.Float64() if weighted else pl.Int64(),
            **dict.fromkeys([_TP, _FP, _FN, _TN, "roc_auc", *variances], pl.Float64()),
        }
    )

    def run() -> pl.DataFrame:
        import numpy as np

        with ThreadPoolExecutor(1) as pool:  # the fit beside the current rows' query
            fitting = None if fit is None else pool.submit(fit)
            try:
                found, df = pl.collect_all([counts, lists])
            except Exception:
                if fitting is not None:
                    fitting.result()  # the reference's errors first
                raise
            maps = None if fitting is None else fitting.result()
        if weighted:
            too_large = df.get_column(inputs.SEGMENT_WEIGHT).sum()
            found = found.with_columns(pl.lit(too_large, pl.Int64).alias(inputs.SEGMENT_WEIGHT))
        checks.raise_if_bad(found.lazy(), data_checks).collect()
        sizes = df.get_column(_CLASS).list.len().to_numpy().astype(np.int64)

        def flat(name: str) -> Any:
            return df.get_column(name).explode().to_numpy()

        scores = np.column_stack([flat(f"{INTERNAL}score_{i}") for i in range(n_classes)])
        p = probabilities(scores, maps)
        predicted, weights = flat(_CLASS), flat(segment_sums.WEIGHTS) if weighted else None
        ci = ci_metrics is not None
        outs = [
            segment_sums.segment_sums(
                sizes, scores[:, i], predicted == i, weights, None, ci=ci, probabilities=p[:, i]
            )
            for i in range(n_classes)
        ]
        spreads = {} if not ci else _average_spreads(outs, averaged, (sizes, predicted, p, weights))
        parts = []
        for i, out in enumerate(outs):
            sums = {_CLASS: np.full(sizes.size, i, dtype=np.int32), "n": out["n"]}
            sums |= {_TP: out["tp"], _FP: out["fp"], _FN: out["fn"], _TN: out["tn"]}
            sums["roc_auc"] = out["roc_auc"]
            if ci:
                sums |= {estimated._VAR_TP: out["var_tp"], estimated._VAR_FN: out["var_fn"]}
                sums |= {estimated._VAR_AUC: out["var_auc"], **spreads}
            columns = [pl.Series(k, c, dtype=schema[k]) for k, c in sums.items()]
            parts.append(df.select(keys).with_columns(columns))
        return pl.concat(parts) if parts else pl.DataFrame(schema=schema)

    return pl.defer(run, schema=schema)


def _averaged(metrics: list[str]) -> list[tuple[str, str]]:
    """(average, metric) of each interval on an average row: every metric on the
    three (accuracy the segment's), the ROC AUC on macro and weighted."""
    ranked = {m for m in metrics if catalogue.CATALOGUE[m].ranked is catalogue.Ranked.AUC}
    return [(a, m) for m in metrics for a in AVERAGES if not (a == "micro" and m in ranked)]


def _variance(average: str, metric: str) -> str:
    """The column of ``metric``'s variance on the ``average`` row."""
    return f"{INTERNAL}var_{average}_{metric}"


def _average_spreads(
    outs: list[dict[str, Any]],
    averaged: list[tuple[str, str]],
    rows: tuple[Any, Any, Any, Any],
) -> dict[str, Any]:
    """``{_variance(average, metric): Var per segment}`` (:mod:`.class_draws`) from
    the classes' sums (``outs``: :func:`segment_sums.segment_sums`' with ``ci``, each
    row's AUC derivative among them) and the rows (``rows``: the segments' sizes, the
    predicted classes, the probabilities and the weights, segment after segment)."""
    import numpy as np

    sizes, predicted, p, weights = rows

    def stacked(key: str) -> Any:
        return np.column_stack([out[key] for out in outs])

    segment = np.repeat(np.arange(sizes.size), sizes)
    n = outs[0]["n"].astype(np.float64)  # the rows, or the summed weights
    u = 1.0 / n[segment] if weights is None else weights / n[segment]
    metrics = list(dict.fromkeys(m for _, m in averaged))
    ranked = [m for m in metrics if catalogue.CATALOGUE[m].ranked is catalogue.Ranked.AUC]
    found = class_draws.average_variances(
        metrics,
        (stacked("tp"), stacked("fp"), stacked("fn"), stacked("tn")),
        stacked("roc_auc"),
        (segment, u, predicted, p),
        stacked("auc_change") if ranked else None,
    )
    return {_variance(a, m): found[a, m] for a, m in averaged}


def _metric(name: str, tp: pl.Expr, fp: pl.Expr, fn: pl.Expr, tn: pl.Expr) -> pl.Expr:
    """A count metric of the (expected) counts; NaN where undefined."""
    return formulas.binary_metric(name, {"tp": tp, "fp": fp, "fn": fn, "tn": tn}, float("nan"))


def _table(
    sums: pl.LazyFrame,
    keys: list[str],
    classes: pl.Series,
    metrics: list[str],
    ci: float | None,
) -> pl.LazyFrame:
    """``*keys, label, average, n, <metric>...`` (+ ``<metric>_low, <metric>_high``
    with ``ci``): per segment, each class's row (average null), then the micro,
    macro and weighted rows (label null).  A class's interval is the binary path's
    (:func:`estimated._metrics`' bounds of its counts and variances); an average's
    the normal interval of its variance (:func:`_sums`')."""
    tp, fp, fn, tn = (pl.col(c) for c in (_TP, _FP, _FN, _TN))
    counted = [m for m in metrics if catalogue.CATALOGUE[m].ranked is not catalogue.Ranked.AUC]
    ranked = [m for m in metrics if m not in counted]
    shares = [m for m in counted if catalogue.CATALOGUE[m].correct_share]  # accuracy
    per_class = sums.with_columns(
        *(_metric(m, tp, fp, fn, tn).alias(m) for m in counted if m not in shares),
        *(pl.lit(None, pl.Float64).alias(m) for m in shares),  # a segment's, not a class's
        pl.col(_CLASS).cast(pl.Int64).alias(_ORDER),
    )
    bounds = (
        [] if ci is None else estimated._metrics([m for m in metrics if m not in shares], ci)[1]
    )
    none = pl.lit(None, pl.Float64)
    bounds += [none.alias(f"{m}_{side}") for m in shares if ci for side in ("low", "high")]
    support = tp + fn  # the expected rows of the class: the weighted mean's weights
    averaged = []
    for m in counted + ranked:
        if m in shares:
            continue
        macro, weighted = formulas.class_averages(pl.col(m), support, skip_nan=True, integer=False)
        averaged += [macro.alias(f"macro_{m}"), weighted.alias(f"weighted_{m}")]
    totals = [c.sum().alias(name) for c, name in ((tp, _TP), (fp, _FP), (fn, _FN), (tn, _TN))]
    spreads = [] if ci is None else [pl.col(_variance(a, m)).first() for a, m in _averaged(metrics)]
    grouped = per_class.group_by(keys).agg(pl.col("n").first(), *totals, *averaged, *spreads)
    s_tp, s_fp, s_fn, s_tn = (pl.col(c) for c in (_TP, _FP, _FN, _TN))
    accuracy = formulas.accuracy(s_tp, s_tp + s_fp, float("nan"))  # each row predicts one class
    rows = []
    intervals = set(_averaged(metrics))
    for order, average in enumerate(AVERAGES, start=classes.len()):
        values = []
        for m in metrics:
            if m in shares:
                value = accuracy
            elif average == "micro":
                value = (
                    pl.lit(None, pl.Float64) if m in ranked else _metric(m, s_tp, s_fp, s_fn, s_tn)
                )
            else:
                value = pl.col(f"{average}_{m}")
            values.append(value.alias(m))
            if ci is not None:
                spread = (average, m) in intervals
                variance = pl.col(_variance(average, m)) if spread else none
                values += label_draws.normal_bounds(value.fill_nan(None), variance, z_value(ci), m)
        rows.append(
            grouped.select(
                *keys,
                pl.lit(average).alias(AVERAGE),
                pl.lit(order, pl.Int64).alias(_ORDER),
                "n",
                *values,
            )
        )
    labelled = per_class.with_columns(
        pl.col(_CLASS)
        .replace_strict(
            pl.Series(range(classes.len()), dtype=pl.Int32), classes, return_dtype=classes.dtype
        )
        .alias(LABEL),
        pl.lit(None, pl.String).alias(AVERAGE),
    )
    outputs = [*metrics, *names.interval_columns(metrics if ci is not None else [])]
    columns = [*keys, LABEL, AVERAGE, _ORDER, "n", *outputs]
    averages = [r.with_columns(pl.lit(None, classes.dtype).alias(LABEL)) for r in rows]
    labelled = labelled.with_columns(pl.col(metrics).fill_nan(None)).with_columns(bounds)
    table = pl.concat([labelled.select(columns), *(r.select(columns) for r in averages)])
    return table.with_columns(pl.col(outputs).fill_nan(None))


def sorted_classes(
    mapping: Mapping[object, str], dtype: pl.DataType, column: str
) -> tuple[pl.Series, list[object], list[str]]:
    """(the classes sorted: the rows' order and the class index; the mapping's keys and
    score columns in that order) of ``{label: column}`` scores, labels of ``column``."""
    given_labels = _labels(list(mapping), dtype, column)
    order = given_labels.arg_sort().to_list()
    keys, columns = list(mapping), list(mapping.values())
    return given_labels.gather(order), [keys[i] for i in order], [columns[i] for i in order]


def estimated_multiclass(
    lf: pl.LazyFrame,
    y_pred: str,
    y_score: Mapping[object, str],
    *,
    reference: object,
    y_true: str | None,
    by: object,
    weight: str | None,
    calibration: str | None,
    metrics: list[str],
    ci: float | None,
    windows: Callable[[pl.LazyFrame, list[str]], pl.LazyFrame] | None = None,
) -> pl.LazyFrame:
    """``*by, label, average, n, <metric>...`` (+ ``<metric>_low, <metric>_high``
    with ``ci``) of ``{label: column}`` scores (the options checked by the caller).
    ``windows(lists, keys)``: the segments' lists made those of other segments, as the
    binary path's (``over_time``'s rolling windows: :mod:`.estimated_windows`)."""
    mapping = checks.check_score_map("y_score", y_score)
    columns = list(mapping.values())
    reserved = names.output_columns(METHOD, ci=ci is not None)  # label, average among them
    given: inputs.Input[None] = inputs.schema_stage(
        lf,
        by=by,
        weight=weight,
        reserved=reserved,
        columns={"y_pred": y_pred},
        numeric={"y_score": columns},
    )
    schema = given.schema
    classes, keys_sorted, ordered = sorted_classes(mapping, schema[y_pred], y_pred)
    ref = None
    if calibration is not None:
        assert y_true is not None  # check_arguments
        checks.check_column_name("y_true", y_true)
        ref = Reference(
            lf, reference, y_true=y_true, keys=keys_sorted, columns=ordered, weight=weight
        )
    current = given.current_rows(lf, None if ref is None else ref.flag)
    keys = given.keys or [ALL]
    lists, counts, data_checks = _current(
        current,
        given.keys,
        schema,
        y_pred=y_pred,
        columns=ordered,
        classes=classes,
        weight=weight,
        probabilities_given=ref is None,
    )
    if windows is not None:
        lists = windows(lists, keys)
    sums = _sums(
        lists,
        counts,
        data_checks,
        keys=keys,
        n_classes=classes.len(),
        fit=None if ref is None else ref.fit,
        weighted=weight is not None,
        ci_metrics=None if ci is None else metrics,
    )
    table = _table(sums, keys, classes, metrics, ci)
    table = table.sort([*keys, _ORDER], nulls_last=True).drop(_ORDER)
    return names.restore_keys(table, given.by)


__all__ = [
    "AVERAGES",
    "Reference",
    "check_options",
    "estimated_multiclass",
    "probabilities",
    "sorted_classes",
]
