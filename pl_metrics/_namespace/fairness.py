"""Fairness and group disparities of ``.metrics``: selection_rate, group_rates,
fairness (fairlearn's six disparity metrics) and disparity (any metric's
``MetricFrame`` summary), per control stratum, with bootstrap intervals."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from pl_metrics._core import checks as v
from pl_metrics._core import formulas as fm
from pl_metrics._core import names
from pl_metrics._core.checks import wants_ci
from pl_metrics._core.options import checked
from pl_metrics._groups import custom as cu
from pl_metrics._groups import fairness as fair
from pl_metrics._typing import By, DisparityMethod, FairnessAgg, FairnessMetric

#: fairness's disparities: (output stem, the rate(s) they are taken of).
_FAIRNESS = (
    ("demographic_parity", ("selection_rate",)),
    ("equalized_odds", ("true_positive_rate", "false_positive_rate")),
    ("equal_opportunity", ("true_positive_rate",)),
)


@dataclass(frozen=True)
class Groups:
    """A method's rows with its strata and groups under stand-in names."""

    lf: pl.LazyFrame  # y_true, y_pred, [weight], *strata, *groups
    strata: list[str]  # stand-in keys of control=
    groups: list[str]  # stand-in keys of by=
    names: dict[str, str]  # stand-in -> output name

    def restore(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        keys = [k for k in (*self.strata, *self.groups) if k in frame.collect_schema()]
        if not keys:
            return frame
        ordered = frame.sort(keys, nulls_last=True, maintain_order=True)
        return ordered.rename({k: self.names[k] for k in keys})


def prepare(
    lf: pl.LazyFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By,
    control: By,
    weight: str | None,
    reserved: tuple[str, ...],
    method: str,
) -> Groups:
    """Check the columns, ``by`` (required) and ``control``; evaluate both on the rows."""
    groups = v.normalize_by(by)
    if not groups:
        msg = f"`by` is required: {method} needs the groups (sensitive features) to compare"
        raise ValueError(msg)
    strata = v.normalize_by(control)
    schema = lf.collect_schema()
    if weight is not None:
        v.check_column_name("weight", weight)
    v.check_columns(schema, y_true=y_true, y_pred=y_pred)
    if weight is not None:
        v.check_columns(schema, weight=weight)
    v.check_by(schema, groups, reserved)
    v.check_by(schema, strata, reserved)
    shared = set(groups.names) & set(strata.names)
    if shared:
        msg = (
            f"`by` and `control` share the column(s) {sorted(shared)}: a column is one or the other"
        )
        raise ValueError(msg)
    read = (y_true, y_pred, *([weight] if weight else []))
    keys = names.stand_in_keys(range(len(strata) + len(groups)), read)
    strata_keys, group_keys = keys[: len(strata)], keys[len(strata) :]
    given = [*strata.exprs, *groups.exprs]
    rows = lf.select(*dict.fromkeys(read), *(e.alias(k) for e, k in zip(given, keys, strict=True)))
    out_names = dict(zip(keys, [*strata.names, *groups.names], strict=True))
    return Groups(rows, strata_keys, group_keys, out_names)


def disparities(
    g: Groups,
    metrics: list[str],
    x: fair.Inputs,
    method: str,
    callables: Mapping[str, cu.Metric] | None = None,
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """``(per_group, spread)``: each metric per group and its spread per stratum
    (``callables``: the custom metrics, by name)."""
    if callables is None:
        per_group = fair.evaluate(g.lf, metrics, [*g.strata, *g.groups], x)
        overall = fair.evaluate(g.lf, metrics, g.strata, x)
    else:
        rows = v.without_zero_weights(g.lf, x.weight)
        per_group, overall = (
            cu.evaluate(rows, callables, x.y_true, x.y_pred, keys=keys, weight=x.weight)
            for keys in ([*g.strata, *g.groups], g.strata)
        )
    table = fair.with_overall(per_group, overall, g.strata, metrics)
    return per_group, fair.spread(table, g.strata, metrics, method)


def replicate_spread(
    g: Groups,
    metrics: list[str],
    x: fair.Inputs,
    method: str,
    *,
    point: pl.LazyFrame,
    n_boot: int,
    seed: int | None,
) -> tuple[pl.LazyFrame, str]:
    """The spread of every bootstrap replicate: ``*strata, rep, metric, ...`` and ``rep``
    (``point``: the point estimates per group, of :func:`disparities`)."""
    table, rep = fair.replicate_tables(
        g.lf, g.strata, g.groups, metrics, x, point=point, n_boot=n_boot, seed=seed
    )
    return fair.spread(table, [*g.strata, rep], metrics, method), rep


class FairnessMethods:
    """Fairness metrics and group disparities on a LazyFrame."""

    _lf: pl.LazyFrame

    def selection_rate(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """The share of rows predicted ``pos_label``, per segment (fairlearn's ``selection_rate``).

        Parameters
        ----------
        y_true, y_pred
            Columns of the actual and predicted labels: ``pos_label`` and (at most)
            one other label (``y_true`` is read for the label checks only).
        by, weight
            As :meth:`confusion_matrix`.
        pos_label
            The positive (selected) class; default 1 for labels {0, 1} / {-1, 1}.

        Returns
        -------
        LazyFrame
            ``*by, selection_rate`` (Float64), sorted by segment.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "t": [0, 1, 0, 1], "p": [1, 1, 0, 1]})
        >>> df.metrics.selection_rate("t", "p", by="g")
        shape: (2, 2)
        ┌─────┬────────────────┐
        │ g   ┆ selection_rate │
        │ --- ┆ ---            │
        │ str ┆ f64            │
        ╞═════╪════════════════╡
        │ a   ┆ 1.0            │
        │ b   ┆ 0.5            │
        └─────┴────────────────┘
        """
        return self._rates(y_true, y_pred, by, pos_label, weight, 0.0, "selection_rate")

    def group_rates(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        zero_division: float = 0.0,
    ) -> pl.LazyFrame:
        """The 2x2 counts and every rate of binary predictions, per group (aequitas's crosstab).

        Parameters
        ----------
        y_true, y_pred
            Columns of the actual and predicted labels: ``pos_label`` and (at most)
            one other label; more is a ``DataError`` (scikit-learn's binary metrics
            raise too; fairlearn's ``selection_rate`` counts the other labels as
            negatives, which would merge them silently here).
        by, weight
            As :meth:`confusion_matrix`.
        pos_label
            The positive class; default 1 for labels {0, 1} / {-1, 1}.
        zero_division
            A rate whose denominator is 0: 0.0 (fairlearn's value), 1.0 or NaN.

        Returns
        -------
        LazyFrame
            ``*by, tp, fp, fn, tn, selection_rate, prevalence, true_positive_rate,
            false_positive_rate, true_negative_rate, false_negative_rate, precision,
            false_discovery_rate, negative_predictive_value, false_omission_rate``,
            sorted by segment.  Divide two groups' rates for aequitas's disparities.
        """
        return self._rates(y_true, y_pred, by, pos_label, weight, zero_division, "group_rates")

    def _rates(  # noqa: PLR0917 - the public methods' options, checked here once
        self,
        y_true: str,
        y_pred: str,
        by: By,
        pos_label: object,
        weight: str | None,
        zero_division: float,
        method: str,
    ) -> pl.LazyFrame:
        (zd,) = checked(method, zero_division=zero_division)
        counts, pos = fair.binary_confusion(
            self._lf,
            y_true,
            y_pred,
            by=by,
            pos_label=pos_label,
            weight=weight,
            reserved=names.output_columns(method),
        )
        table = fair.binary_table(counts, pos, method, y_true, y_pred)
        columns = [c for c in names.output_columns(method) if c not in fm.RATES]
        rates = [
            fair.binary_value(r, zd).alias(r) for r in names.output_columns(method) if r in fm.RATES
        ]
        out = table.select(*counts.keys, *columns, *rates).sort(counts.keys, nulls_last=True)
        return counts.finish(out)

    def reference_disparities(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By,
        reference: object = "largest",
        control: By = None,
        pos_label: object = None,
        weight: str | None = None,
        zero_division: float = 0.0,
    ) -> pl.LazyFrame:
        """Each group's rates divided by a reference group's (aequitas's disparities).

        Parameters
        ----------
        y_true, y_pred, pos_label, weight, zero_division
            As :meth:`group_rates`.
        by
            The group column(s) or expression(s) (required).
        reference
            The reference group: ``"largest"`` (the group with the most rows, or
            the largest weight; aequitas's "majority"; ties: the first in sort
            order), or its key: a value of the ``by`` column, a tuple of values
            of several, or a dict ``{by name: value}``.
        control
            Control feature column(s): a reference per stratum (the largest group
            of the stratum, or the group of the given key in every stratum).

        Returns
        -------
        LazyFrame
            ``*control, *by, reference, <rate>_disparity`` for every rate of
            :meth:`group_rates` (``selection_rate_disparity``,
            ``prevalence_disparity``, ``true_positive_rate_disparity``,
            ``false_positive_rate_disparity``, ``true_negative_rate_disparity``,
            ``false_negative_rate_disparity``, ``precision_disparity``,
            ``false_discovery_rate_disparity``,
            ``negative_predictive_value_disparity``,
            ``false_omission_rate_disparity``; ``selection_rate_disparity`` is aequitas's
            ``pprev_disparity``, ``false_positive_rate_disparity`` its
            ``fpr_disparity``...): ``rate / reference's rate``, 1.0 on the
            reference row (``reference`` True) unless its rate is 0, infinite
            where only the reference's rate is 0, null where both are 0.  A stratum without the
            reference group is a ``DataError``.
        """
        method = "reference_disparities"
        (zd,) = checked(method, zero_division=zero_division)
        g = prepare(
            self._lf,
            y_true,
            y_pred,
            by=by,
            control=control,
            weight=weight,
            reserved=names.output_columns(method),
            method=method,
        )
        x = fair.Inputs(y_true, y_pred, pos_label, weight, zd, method)
        rates = list(fm.RATES)
        table = fair.evaluate(g.lf, [*rates, "n"], [*g.strata, *g.groups], x)
        is_ref = _reference(g, reference, self._lf.collect_schema())
        missing = f"{names.INTERNAL}missing"
        over = (lambda e: e.over(g.strata)) if g.strata else (lambda e: e)
        first_of_stratum = over(pl.int_range(pl.len())) == 0
        table = table.with_columns(is_ref.alias("reference")).with_columns(
            (first_of_stratum & ~over(pl.col("reference").any())).cast(pl.Int64).alias(missing)
        )
        table = fair.check_reference(table, missing, reference)
        ref = table.filter(pl.col("reference")).select(
            *g.strata, *(pl.col(r).alias(f"{fair.OVERALL}{r}") for r in rates)
        )
        if g.strata:
            table = table.join(ref, on=g.strata, how="left", nulls_equal=True)
        else:
            table = table.join(ref, how="cross")
        out = table.select(
            *g.strata,
            *g.groups,
            "reference",
            *(
                fair.ratio_or_null(pl.col(r), pl.col(f"{fair.OVERALL}{r}")).alias(f"{r}_disparity")
                for r in rates
            ),
        )
        return g.restore(out)

    def fairness(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By,
        control: By = None,
        pos_label: object = None,
        weight: str | None = None,
        method: DisparityMethod = "between_groups",
        agg: FairnessAgg = "worst_case",
        zero_division: float = 0.0,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
    ) -> pl.LazyFrame:
        """fairlearn's six disparity metrics of binary predictions, per control stratum.

        Parameters
        ----------
        y_true, y_pred
            Columns of the actual and predicted labels (``pos_label`` and one other).
        by
            The sensitive feature column(s) or expression(s) (required): the groups.
        control
            Control feature column(s) or expression(s): the disparities are taken
            between the groups inside each stratum (fairlearn's ``control_features``).
        pos_label, weight, zero_division
            As :meth:`group_rates` (fairlearn: ``pos_label`` 1, rates 0 when undefined).
        method
            ``"between_groups"`` (largest minus smallest group, smallest over largest)
            or ``"to_overall"`` (each group against the stratum's overall value).
        agg
            How equalized odds combines its true and false positive rate disparities:
            ``"worst_case"`` (the larger difference, the smaller ratio) or ``"mean"``.
        ci, n_boot, seed
            Bootstrap intervals of every disparity (un-weighted rows): each group's
            rows are resampled (stratified), the disparity recomputed per replicate.

        Returns
        -------
        LazyFrame
            ``*control, demographic_parity_difference, demographic_parity_ratio,
            equalized_odds_difference, equalized_odds_ratio,
            equal_opportunity_difference, equal_opportunity_ratio`` (equal to
            fairlearn's functions of the same names), then ``<column>_low`` /
            ``<column>_high`` with ``ci``.  A ratio of two zero rates (every
            group's rate 0) is null; equalized odds' worst case is null when a
            part is (fairlearn's is NaN when the first part is, and the other part
            when the second is), its mean skips an undefined part (as fairlearn's).
        """
        method, agg, seed, zd = checked(
            "fairness", method=method, agg=agg, seed=seed, zero_division=zero_division
        )
        with_ci = wants_ci(ci, n_boot, "bootstrap", weight, seed=seed, methods=("bootstrap",))
        g = prepare(
            self._lf,
            y_true,
            y_pred,
            by=by,
            control=control,
            weight=weight,
            reserved=names.output_columns("fairness", ci=with_ci),
            method="fairness",
        )
        x = fair.Inputs(y_true, y_pred, pos_label, weight, zd, "fairness")
        rates = ["selection_rate", "true_positive_rate", "false_positive_rate"]
        per_group, spread = disparities(g, rates, x, method)
        out = _fairness_table(spread, g.strata, agg)
        if with_ci:
            assert ci is not None
            reps, rep = replicate_spread(
                g, rates, x, method, point=per_group, n_boot=n_boot, seed=seed
            )
            table = _fairness_table(reps, [*g.strata, rep], agg)
            columns = list(names.output_columns("fairness"))
            aggs = fair.interval_aggs(columns, ci)
            bounds = fair.per_stratum(table, g.strata, aggs)
            out = _join_on(out, bounds, g.strata)
        return g.restore(out)

    def custom(
        self,
        metrics: Mapping[str, Callable[..., Any]],
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Your own metrics per segment, as fairlearn's ``MetricFrame`` ``by_group``.

        Parameters
        ----------
        metrics
            ``{name: callable}``: scikit-learn-shaped functions ``fn(y_true,
            y_pred)`` (``fn(y_true, y_pred, sample_weight=w)`` with ``weight``)
            of numpy arrays, returning one number.  Each runs in Python once
            per segment (the built-in methods compute every segment in one
            polars query: use them where one exists).
        y_true, y_pred
            Columns passed as the callables' first two arguments (labels, or
            scores for a score metric).
        by
            Segment column(s) or expression(s), as in :meth:`confusion_matrix`.
        weight
            Column passed as ``sample_weight``; rows of weight 0 are dropped, as
            by every method (fairlearn passes them: the same number unless they
            alone hold a class of the segment).

        Returns
        -------
        LazyFrame
            ``*by, <name>...`` (Float64; a callable's None or NaN is null), one
            row per segment, sorted by segment; no rows: no row.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y": [1, 0, 1], "p": [1, 1, 1]})
        >>> def hits(y_true, y_pred):
        ...     return float((y_true == y_pred).sum())
        >>> df.metrics.custom({"hits": hits}, "y", "p", by="g")["hits"].to_list()
        [1.0, 1.0]
        """
        return cu.custom(
            self._lf, cu.check_metrics("metrics", metrics), y_true, y_pred, by=by, weight=weight
        )

    def disparity(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By,
        metric: FairnessMetric | Sequence[FairnessMetric] | Mapping[str, Callable[..., Any]] = (
            "accuracy"
        ),
        control: By = None,
        method: DisparityMethod = "between_groups",
        pos_label: object = None,
        weight: str | None = None,
        zero_division: float = 0.0,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
    ) -> pl.LazyFrame:
        """fairlearn's ``MetricFrame`` summary of any metric: overall, group min / max,
        difference and ratio between the groups, per control stratum.

        Parameters
        ----------
        y_true, y_pred
            Columns of the actual labels and of the predicted labels (or the scores,
            for ``roc_auc``, ``average_precision``, ``ks``, ``log_loss``, ``brier_score``).
        by, control, method, ci, n_boot, seed
            As :meth:`fairness`.
        metric
            ``{name: callable}`` (custom metrics, as :meth:`custom`; no ``ci``), or
            a metric name or a list of them: ``accuracy``, ``balanced_accuracy``,
            ``mcc``, ``cohen_kappa``; ``<score>_{micro,macro,weighted}`` of each score
            column of :meth:`averages` (``precision_macro``, ``f1_weighted``...); the
            binary ``specificity``, each score of :meth:`averages` of ``pos_label``
            (``precision``, ``f1``...) and every rate of :meth:`group_rates`;
            ``roc_auc``, ``average_precision``, ``ks``, ``log_loss``, ``brier_score``.
        pos_label, weight, zero_division
            As the metric's own method.

        Returns
        -------
        LazyFrame
            ``*control, metric, overall, group_min, group_max, difference, ratio``
            (a row per stratum and metric; fairlearn's ``overall``, ``group_min()``,
            ``group_max()``, ``difference(method)``, ``ratio(method)``), then
            ``difference_low, difference_high, ratio_low, ratio_high`` with ``ci``.
            Undefined group values are skipped (as pandas skips NaN).
        """
        callables = None
        if isinstance(metric, Mapping):
            callables = cu.check_metrics("metric", metric)
            metrics = list(callables)
            if ci is not None:
                msg = (
                    "`ci` is not offered with custom metrics (each replicate would call "
                    "them once per group): give ci=None"
                )
                raise ValueError(msg)
        else:
            metrics = [metric] if isinstance(metric, str) else list(metric)
            if not metrics or len(set(metrics)) != len(metrics):
                msg = f"`metric` must be a metric name or a list of distinct names, got {metric!r}"
                raise ValueError(msg)
            for m in metrics:
                fair.check_metric(m)
        method, seed, zd = checked(
            "disparity", method=method, seed=seed, zero_division=zero_division
        )
        with_ci = wants_ci(ci, n_boot, "bootstrap", weight, seed=seed, methods=("bootstrap",))
        g = prepare(
            self._lf,
            y_true,
            y_pred,
            by=by,
            control=control,
            weight=weight,
            reserved=names.output_columns("disparity", ci=with_ci),
            method="disparity",
        )
        x = fair.Inputs(y_true, y_pred, pos_label, weight, zd, "disparity")
        per_group, out = disparities(g, metrics, x, method, callables)
        if with_ci:
            assert ci is not None
            reps, _ = replicate_spread(
                g, metrics, x, method, point=per_group, n_boot=n_boot, seed=seed
            )
            bounds = reps.group_by([*g.strata, "metric"]).agg(
                fair.interval_aggs(["difference", "ratio"], ci)
            )
            out = _join_on(out, bounds, [*g.strata, "metric"])
        order = pl.col("metric").replace_strict(metrics, list(range(len(metrics))))
        return g.restore(out.sort([*g.strata, order], nulls_last=True))


def _worst(parts: list[pl.Expr], pick: pl.Expr) -> pl.Expr:
    """``pick`` (the worst of the ``parts``), null when a part is undefined (a ratio
    0 / 0): the worst case is then unknown, never the other part alone (a ratio of
    1.0, "fair", from the false positive rates where the true positive rates say
    nothing; fairlearn's ``min`` of the two gives NaN there too)."""
    return pl.when(pl.any_horizontal(p.is_null() for p in parts)).then(None).otherwise(pick)


def _fairness_table(spread: pl.LazyFrame, strata: list[str], agg: str) -> pl.LazyFrame:
    """fairness's columns from the spread of its three rates (a row per stratum)."""
    metric = pl.col("metric")
    parts = [
        pl.col(column).filter(metric == rate).first().alias(f"{names.INTERNAL}{rate}_{column[0]}")
        for rate in ("selection_rate", "true_positive_rate", "false_positive_rate")
        for column in ("difference", "ratio")
    ]
    table = fair.per_stratum(spread, strata, parts)
    columns = []
    for stem, rates in _FAIRNESS:
        d = [pl.col(f"{names.INTERNAL}{r}_d") for r in rates]
        r_ = [pl.col(f"{names.INTERNAL}{r}_r") for r in rates]
        if len(rates) == 1:
            diff, ratio = d[0], r_[0]
        elif agg == "worst_case":
            diff, ratio = _worst(d, pl.max_horizontal(d)), _worst(r_, pl.min_horizontal(r_))
        else:
            diff, ratio = pl.mean_horizontal(d), pl.mean_horizontal(r_)
        columns += [diff.alias(f"{stem}_difference"), ratio.alias(f"{stem}_ratio")]
    return table.select(*strata, *columns)


def _reference(g: Groups, reference: object, schema: pl.Schema) -> pl.Expr:
    """Row-wise: whether the row's group is the reference group."""
    if isinstance(reference, str) and reference == "largest":
        n = pl.col("n")
        first = pl.int_range(pl.len()) == (n == n.max()).arg_true().first()
        return first.over(g.strata) if g.strata else first
    by_names = [g.names[k] for k in g.groups]
    if isinstance(reference, dict):
        if sorted(map(str, reference)) != sorted(by_names):
            msg = f"`reference` must name every `by` column {by_names}, got {list(reference)}"
            raise ValueError(msg)
        values = [reference[name] for name in by_names]
    elif isinstance(reference, tuple):
        values = list(reference)
    else:
        values = [reference]
    if len(values) != len(g.groups):
        msg = (
            f"`reference` must be 'largest' or a key of {len(g.groups)} value(s) for the "
            f"`by` columns {by_names}, got {reference!r}"
        )
        raise ValueError(msg)
    dtypes = g.lf.collect_schema()
    conditions = []
    for key, value in zip(g.groups, values, strict=True):
        try:
            literal = pl.Series([value]).cast(dtypes[key], strict=True)
            # exactly the value: no float truncated to an integer, no bool as a number
            exact = literal.to_list()[0] == value and isinstance(value, bool) == (
                dtypes[key] == pl.Boolean
            )
        except (pl.exceptions.PolarsError, TypeError, ValueError):
            exact = False
        if not exact:
            msg = (
                f"`reference` value {value!r} is not a value of the `by` column "
                f"{g.names[key]!r} ({dtypes[key]})"
            )
            raise ValueError(msg) from None
        conditions.append(pl.col(key).eq_missing(pl.lit(literal)))
    del schema
    return pl.all_horizontal(conditions)


def _join_on(left: pl.LazyFrame, right: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    if not keys:
        return pl.concat([left, right], how="horizontal")
    return left.join(right, on=keys, how="left", nulls_equal=True, maintain_order="left")


__all__ = ["FairnessMethods", "Groups", "prepare"]
