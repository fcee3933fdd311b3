"""Fairness and group disparities of ``.metrics``: selection_rate, group_rates,
fairness (fairlearn's six disparity metrics) and disparity (any metric's
``MetricFrame`` summary), per control stratum, with bootstrap intervals."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from pl_metrics._core import formulas, names
from pl_metrics._core.labels import group_value
from pl_metrics._core.options import checked
from pl_metrics._groups import custom
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._namespace.fairness_rows import (
    Groups,
    disparity_of,
    fairness_of,
    prepare,
    rates,
)
from pl_metrics._typing import By, DisparityMethod, FairnessAgg, FairnessMetric


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
        return rates(
            self._lf,
            y_true,
            y_pred,
            by=by,
            pos_label=pos_label,
            weight=weight,
            method="selection_rate",
        )

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
        return rates(
            self._lf,
            y_true,
            y_pred,
            by=by,
            pos_label=pos_label,
            weight=weight,
            zero_division=zero_division,
            method="group_rates",
        )

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
        x = groups_fairness.Inputs(y_true, y_pred, pos_label, weight, zd, method)
        rates = list(formulas.RATES)
        table = groups_fairness.evaluate(g.lf, [*rates, "n"], [*g.strata, *g.groups], x)
        is_ref = _reference(g, reference, self._lf.collect_schema())
        missing = f"{names.INTERNAL}missing"
        over = (lambda e: e.over(g.strata)) if g.strata else (lambda e: e)
        first_of_stratum = over(pl.int_range(pl.len())) == 0
        table = table.with_columns(is_ref.alias("reference")).with_columns(
            (first_of_stratum & ~over(pl.col("reference").any())).cast(pl.Int64).alias(missing)
        )
        table = groups_fairness.check_reference(table, missing, reference)
        ref = table.filter(pl.col("reference")).select(
            *g.strata, *(pl.col(r).alias(f"{groups_fairness.OVERALL}{r}") for r in rates)
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
                groups_fairness.ratio_or_null(
                    pl.col(r), pl.col(f"{groups_fairness.OVERALL}{r}")
                ).alias(f"{r}_disparity")
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
        return fairness_of(
            self._lf,
            y_true,
            y_pred,
            by=by,
            control=control,
            pos_label=pos_label,
            weight=weight,
            method=method,
            agg=agg,
            zero_division=zero_division,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
        )

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
        return custom.custom(
            self._lf, custom.check_metrics("metrics", metrics), y_true, y_pred, by=by, weight=weight
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
            Undefined group values are skipped (as pandas skips NaN).  The ratio
            is null for a metric whose range holds negative values (mcc,
            cohen_kappa, gini, informedness, markedness) and where a value below 0
            enters it (fairlearn divides them all the same: docs/fairness.md).
        """
        return disparity_of(
            self._lf,
            y_true,
            y_pred,
            by=by,
            metric=metric,
            control=control,
            method=method,
            pos_label=pos_label,
            weight=weight,
            zero_division=zero_division,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
        )


def _reference(g: Groups, reference: object, schema: pl.Schema) -> pl.Expr:
    """Row-wise: whether the row's group is the reference group."""
    if isinstance(reference, str) and reference == "largest":
        n = pl.col("n")
        first = pl.int_range(pl.len()) == (n == n.max()).arg_true().first()
        return first.over(g.strata) if g.strata else first
    by_names = [g.names[k] for k in g.groups]
    checked("fairness reference", reference=reference, by_names=by_names)
    if isinstance(reference, dict):
        values = [reference[name] for name in by_names]
    else:
        values = list(reference) if isinstance(reference, tuple) else [reference]
    dtypes = g.lf.collect_schema()
    conditions = []
    for key, value in zip(g.groups, values, strict=True):
        literal = group_value(value, dtypes[key], g.names[key])
        conditions.append(pl.col(key).eq_missing(pl.lit(literal)))
    del schema
    return pl.all_horizontal(conditions)


__all__ = ["FairnessMethods", "Groups", "prepare"]
