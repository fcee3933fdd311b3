"""Segment comparisons: each segment's metric against the overall value and the best.

``compare`` answers "is segment A really worse, or is it noise?" for any metric
of the catalogue (:data:`pl_metrics._groups.fairness.METRICS`): the segment's value
with its confidence interval, the overall value (of the segment's control
stratum), the difference and ratio to overall and to the best segment
(fairlearn's ``difference`` / ``ratio``, per segment), the interval of the
difference to overall and its p-value (analytic for proportions, else
bootstrapped), adjusted for the number of segments compared (``adjust=``).
"""

from __future__ import annotations

import polars as pl

from pl_metrics._core import checks, multiple, names
from pl_metrics._core.options import checked
from pl_metrics._core.scores import per_segment
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._intervals import analytic, groups, resample
from pl_metrics._intervals.sampling import resampling
from pl_metrics._namespace.fairness_rows import Groups, prepare
from pl_metrics._typing import Adjust, By, CiMethod, FairnessMetric


class CompareMethods:
    """``compare`` on a LazyFrame."""

    _lf: pl.LazyFrame

    def compare(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By,
        metric: FairnessMetric = "accuracy",
        control: By = None,
        ci: float = 0.95,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod | None = None,
        pos_label: object = None,
        zero_division: float = 0.0,
        adjust: Adjust | None = None,
    ) -> pl.LazyFrame:
        """Compare each segment's metric with the overall value and the best segment.

        Parameters
        ----------
        y_true
            Column of the actual labels.
        y_pred
            Column of the predicted labels, or of the scores for ``roc_auc``,
            ``average_precision``, ``ks``, ``log_loss``, ``brier_score``.
        by
            The segment column(s) or expression(s) (required), as in :meth:`confusion_matrix`.
        metric
            Any metric of :meth:`disparity` (``accuracy``, ``mcc``, ``f1_macro``, the
            binary ``f1`` / ``recall`` / ``false_positive_rate`` ..., ``roc_auc``,
            ``log_loss`` ...).
        control
            Control feature column(s): segments are compared inside each stratum,
            with the stratum's overall value.
        ci, n_boot, seed
            The level of the intervals; the bootstrap's replicates and seed
            (unused by the analytic comparison of proportions).
        ci_method
            ``"wilson"`` (the default for the proportions: ``accuracy`` and the
            rates of a 2x2 matrix, ``recall``, ``specificity``, ``jaccard``):
            every interval and the p-value analytic, a ``group_by``'s cost —
            Wilson's interval for the segment, and for ``diff`` / ``ratio`` the
            normal approximation with the segments independent (the overall value
            is the segments' trials-weighted mean) and Agresti & Caffo's
            proportions (x + 1) / (m + 2) (with two segments, statsmodels'
            ``test_proportions_2indep(method="agresti-caffo")``); the ratio's
            interval is 1 + the difference's / the overall value.  A segment
            with no trials (a recall without positives) gets null bounds and
            p-value (left out of ``adjust``'s family).
            ``"bootstrap"``: percentile intervals and the bootstrap p-value, any
            metric; ``"poisson"``: the same from the Poisson bootstrap (each row's
            count Poisson(1); docs/intervals.md).  ``"delong"`` (``roc_auc``'s
            default) / ``"logit"`` (``average_precision``'s): the segment's own
            interval analytic, the difference's interval and p-value bootstrapped.  Other metrics
            (F1, MCC, kappa, log loss ...): the bootstrap.
        pos_label, zero_division
            As the metric's own method.
        adjust
            Adjust the p-values for the number of segments compared (per stratum):
            ``"holm"``, ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg), ``"by"``
            (Benjamini-Yekutieli) or None (``p_adjusted`` = ``p_value``).

        Returns
        -------
        LazyFrame
            ``*control, *by, metric, value, low, high, overall, diff, ratio, best,
            diff_best, ratio_best, outside, diff_low, diff_high, ratio_low, ratio_high,
            p_value, p_adjusted``:
            ``diff = value - overall``, ``ratio = value / overall`` (null, with its
            interval, for a metric whose range holds negative values: mcc,
            cohen_kappa, informedness, markedness), ``best`` the best
            segment value of the stratum (the highest; the lowest for losses and
            error rates; null for ``selection_rate`` / ``prevalence``, which have no
            better side), ``outside`` whether the overall value lies outside the
            segment's interval, ``diff_low`` / ``diff_high`` (``ratio_low`` /
            ``ratio_high``) the interval of ``diff`` (``ratio``) and ``p_value``
            the two-sided p-value of ``diff == 0``: analytic (``ci_method``), or
            bootstrapped (each replicate's overall value is that of the union of
            its segments' replicates).  Sorted by stratum and segment.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4,
        ...                    "t": [0, 1, 0, 1, 0, 1, 0, 1], "p": [0, 1, 0, 1, 1, 0, 0, 1]})
        >>> out = df.metrics.compare("t", "p", by="g", ci_method="wilson")
        >>> out.select("g", "value", "overall", "diff")
        shape: (2, 4)
        ┌─────┬───────┬─────────┬───────┐
        │ g   ┆ value ┆ overall ┆ diff  │
        │ --- ┆ ---   ┆ ---     ┆ ---   │
        │ str ┆ f64   ┆ f64     ┆ f64   │
        ╞═════╪═══════╪═════════╪═══════╡
        │ a   ┆ 1.0   ┆ 0.75    ┆ 0.25  │
        │ b   ┆ 0.5   ┆ 0.75    ┆ -0.25 │
        └─────┴───────┴─────────┴───────┘
        """
        m = groups_fairness.check_metric(metric)
        checked("compare", ci=ci)
        proportion = metric in groups_fairness.PROPORTIONS
        if ci_method is None:
            ci_method = "wilson" if proportion else checks.default_ci_method(str(metric))
        checks.check_ci(ci, n_boot, ci_method, ("bootstrap", "poisson", *checks.ANALYTIC_CI))
        allowed = checks.ANALYTIC_CI.get(ci_method, frozenset())
        if ci_method == "wilson":
            allowed = frozenset(groups_fairness.PROPORTIONS)
        checked("compare", metric=metric, ci_method=ci_method, analytic=allowed)
        adjust, seed, zd = checked("compare", adjust=adjust, seed=seed, zero_division=zero_division)
        ci_method, seed = resampling(ci_method, seed)  # "poisson": the bootstrap, its seed
        g = prepare(
            self._lf,
            y_true,
            y_pred,
            by=by,
            control=control,
            weight=None,
            reserved=names.output_columns("compare"),
            method="compare",
        )
        keys = [*g.strata, *g.groups]
        x = groups_fairness.Inputs(y_true, y_pred, pos_label, None, zd, "compare")
        name = str(metric)
        value = groups_fairness.evaluate(g.lf, [name], keys, x)
        overall = groups_fairness.evaluate(g.lf, [name], g.strata, x)
        table = groups_fairness.with_overall(value, overall, g.strata, [name])
        table = table.rename({name: "value", groups.overall_column(name): "overall"})
        if ci_method == "wilson":  # a proportion: every interval and the p-value analytic
            parts = groups_fairness.proportion_parts(g.lf, name, keys, x)  # keys: `by` is required
            table = table.join(parts, on=keys, how="left", nulls_equal=True)
            for stage in analytic.compare_to_overall(list(g.strata), ci):
                table = table.with_columns(stage)
        else:
            table = _bootstrapped(
                table,
                g=g,
                value=value,
                name=name,
                m=m,
                x=x,
                ci=ci,
                n_boot=n_boot,
                seed=seed,
                ci_method=ci_method,
            )
        return _finish(table, g=g, m=m, name=name, adjust=adjust)


def _finish(
    table: pl.LazyFrame, *, g: Groups, m: groups_fairness.Metric, name: str, adjust: str | None
) -> pl.LazyFrame:
    """The columns after the intervals: best, the differences, outside, p_adjusted."""
    keys = [*g.strata, *g.groups]
    val, total = pl.col("value"), pl.col("overall")
    if m.higher_is_better is None:
        best = pl.lit(None, pl.Float64)
    else:
        best = val.fill_nan(None).max() if m.higher_is_better else val.fill_nan(None).min()
        best = per_segment(g.strata)(best)
    # a ratio of values of two signs says nothing (disparity's rule, docs/fairness.md):
    # null for a metric whose range holds negative values, intervals included
    signed = m.signed
    nothing = pl.lit(None, pl.Float64)
    table = table.with_columns(
        pl.lit(name).alias("metric"),
        groups_fairness.difference(val, total).alias("diff"),
        (nothing if signed else val / total).alias("ratio"),
        best.alias("best"),
    ).with_columns(
        (val - pl.col("best")).alias("diff_best"),
        (nothing if signed else val / pl.col("best")).alias("ratio_best"),
        ((total < pl.col("low")) | (total > pl.col("high"))).alias("outside"),
        *((nothing.alias("ratio_low"), nothing.alias("ratio_high")) if signed else ()),
    )
    table = multiple.adjusted(table, "p_value", "p_adjusted", g.strata, adjust)
    return g.restore(table.select(*keys, *names.output_columns("compare")))


def _bootstrapped(
    table: pl.LazyFrame,
    *,
    g: Groups,
    value: pl.LazyFrame,
    name: str,
    m: groups_fairness.Metric,
    x: groups_fairness.Inputs,
    ci: float,
    n_boot: int,
    seed: int | None,
    ci_method: str,
) -> pl.LazyFrame:
    """The bootstrap's ``diff`` / ``ratio`` intervals and p-value (and the segment's
    interval: the bootstrap's, or the metric's own analytic method's)."""
    y_true, y_pred, pos_label = x.y_true, x.y_pred, x.pos_label
    keys = [*g.strata, *g.groups]
    table_r, _ = groups_fairness.replicate_tables(
        g.lf, g.strata, g.groups, [name], x, point=value, n_boot=n_boot, seed=seed
    )
    v_, o_ = f"{names.INTERNAL}v", f"{names.INTERNAL}o"
    rep = table_r.rename({name: v_, groups.overall_column(name): o_})
    d = groups_fairness.difference(pl.col(v_), pl.col(o_))
    diff_low, diff_high = resample.percentile_bounds(d, ci)
    ratio_low, ratio_high = resample.percentile_bounds(pl.col(v_) / pl.col(o_), ci)
    aggs = [
        diff_low.alias("diff_low"),
        diff_high.alias("diff_high"),
        ratio_low.alias("ratio_low"),
        ratio_high.alias("ratio_high"),
        resample.p_value(d).alias("p_value"),
    ]
    if ci_method == "bootstrap":
        low, high = resample.percentile_bounds(pl.col(v_), ci)
        aggs += [low.alias("low"), high.alias("high")]
    stats = rep.group_by(keys).agg(aggs)
    table = table.join(stats, on=keys, how="left", nulls_equal=True)
    if ci_method != "bootstrap":
        method = getattr(g.lf.metrics, m.method)
        options = {"pos_label": pos_label} if m.scores else {}
        own = method(y_true, y_pred, by=keys, ci=ci, ci_method=ci_method, **options)
        bounds = [f"{name}_low", f"{name}_high"]
        table = table.join(
            own.select(
                *keys,
                *(pl.col(b).alias(e) for b, e in zip(bounds, ("low", "high"), strict=True)),
            ),
            on=keys,
            how="left",
            nulls_equal=True,
        )
    return table
