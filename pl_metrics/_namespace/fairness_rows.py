"""The fairness methods' bodies, of rows: their groups and strata (:func:`prepare`),
the disparities of any metric (:func:`disparities`) and their bootstrap replicates,
selection_rate / group_rates (:func:`rates`), fairness and disparity.

Each body also takes ``count``: rows standing for several rows each (the cells of
a merged counts state, their multiplicities in that column), which is how the
engines finish these methods from a counts state with the very same code
(:mod:`pl_metrics._engines.fairness`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import polars as pl

from pl_metrics._core import checks, formulas, names, scores
from pl_metrics._core.checks import wants_ci
from pl_metrics._core.options import checked
from pl_metrics._groups import custom
from pl_metrics._groups import fairness as groups_fairness
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
    #: stand-in -> the expression evaluated on the input rows under that name (an
    #: engine evaluates them on its shards)
    exprs: dict[str, pl.Expr] = field(default_factory=dict)

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
    count: str | None = None,
) -> Groups:
    """Check the columns, ``by`` (required) and ``control``; evaluate both on the rows
    (``count``: the rows' multiplicities, :class:`groups_fairness.Inputs`)."""
    groups = checks.normalize_by(by)
    checked("fairness groups", groups=groups, caller=method)
    strata = checks.normalize_by(control)
    schema = lf.collect_schema()
    if weight is not None:
        checks.check_column_name("weight", weight)
    checks.check_columns(schema, y_true=y_true, y_pred=y_pred)
    if weight is not None:
        checks.check_columns(schema, weight=weight)
    checks.check_by(schema, groups, reserved)
    checks.check_by(schema, strata, reserved)
    checked("fairness groups", groups=groups, strata=strata)
    read = (y_true, y_pred, *([weight] if weight else []), *([count] if count else []))
    keys = names.stand_in_keys(range(len(strata) + len(groups)), read)
    strata_keys, group_keys = keys[: len(strata)], keys[len(strata) :]
    given = [*strata.exprs, *groups.exprs]
    exprs = {k: e.alias(k) for e, k in zip(given, keys, strict=True)}
    rows = lf.select(*dict.fromkeys(read), *exprs.values())
    out_names = dict(zip(keys, [*strata.names, *groups.names], strict=True))
    return Groups(rows, strata_keys, group_keys, out_names, exprs)


class Values(Protocol):
    """Where a method's metrics per group come from where not from the groups' rows
    (:attr:`Groups.lf`; the engines: its schema only)."""

    def __call__(
        self, g: Groups, x: groups_fairness.Inputs, metrics: Sequence[str], keys: Sequence[str]
    ) -> pl.LazyFrame:
        """``*keys, *metrics``: each metric per ``keys`` (stand-in names), sorted by them."""
        ...

    def score_counts(
        self, g: Groups, x: groups_fairness.Inputs, keys: Sequence[str]
    ) -> scores.ScoreCounts:
        """The un-weighted per-score counts by ``keys`` (the ranked metrics' bootstrap)."""
        ...


def disparities(
    g: Groups,
    metrics: list[str],
    x: groups_fairness.Inputs,
    method: str,
    callables: Mapping[str, custom.Metric] | None = None,
    *,
    values: Values | None = None,
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """``(per_group, spread)``: each metric per group and its spread per stratum
    (``callables``: the custom metrics, by name; ``values``: where the metrics' values
    per group and per stratum come from, if not from the rows)."""
    if callables is None:
        keys = [*g.strata, *g.groups]
        if values is None:
            per_group = groups_fairness.evaluate(g.lf, metrics, keys, x)
            overall = groups_fairness.evaluate(g.lf, metrics, g.strata, x)
        else:
            per_group, overall = values(g, x, metrics, keys), values(g, x, metrics, g.strata)
    else:
        rows = checks.without_zero_weights(g.lf, x.weight)
        per_group, overall = (
            custom.evaluate(rows, callables, x.y_true, x.y_pred, keys=keys, weight=x.weight)
            for keys in ([*g.strata, *g.groups], g.strata)
        )
    table = groups_fairness.with_overall(per_group, overall, g.strata, metrics)
    spread = groups_fairness.spread(table, g.strata, metrics, method, registered=callables is None)
    return per_group, spread


def replicate_spread(
    g: Groups,
    metrics: list[str],
    x: groups_fairness.Inputs,
    method: str,
    *,
    point: pl.LazyFrame,
    n_boot: int,
    seed: int | None,
    score_counts: Callable[[Sequence[str]], scores.ScoreCounts] | None = None,
) -> tuple[pl.LazyFrame, str]:
    """The spread of every bootstrap replicate: ``*strata, rep, metric, ...`` and ``rep``
    (``point``: the point estimates per group, of :func:`disparities`; ``score_counts``:
    as :func:`groups_fairness.replicate_tables`)."""
    table, rep = groups_fairness.replicate_tables(
        g.lf,
        g.strata,
        g.groups,
        metrics,
        x,
        point=point,
        n_boot=n_boot,
        seed=seed,
        score_counts=score_counts,
    )
    return groups_fairness.spread(table, [*g.strata, rep], metrics, method), rep


def rates(
    lf: pl.LazyFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By,
    pos_label: object,
    weight: str | None,
    method: str,
    zero_division: float = 0.0,
    count: str | None = None,
) -> pl.LazyFrame:
    """selection_rate / group_rates (``method``) of ``lf``'s rows."""
    (zd,) = checked(method, zero_division=zero_division)
    counts, pos = groups_fairness.binary_confusion(
        lf,
        y_true,
        y_pred,
        by=by,
        pos_label=pos_label,
        weight=weight,
        reserved=names.output_columns(method),
        count=count,
    )
    table = groups_fairness.binary_table(counts, pos, method, y_true, y_pred)
    columns = [c for c in names.output_columns(method) if c not in formulas.RATES]
    values = [
        groups_fairness.binary_value(r, zd).alias(r)
        for r in names.output_columns(method)
        if r in formulas.RATES
    ]
    out = table.select(*counts.keys, *columns, *values).sort(counts.keys, nulls_last=True)
    return counts.finish(out)


def fairness_of(
    lf: pl.LazyFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By,
    control: By,
    pos_label: object,
    weight: str | None,
    method: DisparityMethod,
    agg: FairnessAgg,
    zero_division: float,
    ci: float | None,
    n_boot: int,
    seed: int | None,
    count: str | None = None,
) -> pl.LazyFrame:
    """:meth:`FairnessMethods.fairness` of ``lf``'s rows."""
    method, agg, seed, zd = checked(
        "fairness", method=method, agg=agg, seed=seed, zero_division=zero_division
    )
    with_ci = wants_ci(ci, n_boot, "bootstrap", weight, seed=seed, methods=("bootstrap",))
    g = prepare(
        lf,
        y_true,
        y_pred,
        by=by,
        control=control,
        weight=weight,
        reserved=names.output_columns("fairness", ci=with_ci),
        method="fairness",
        count=count,
    )
    x = groups_fairness.Inputs(y_true, y_pred, pos_label, weight, zd, "fairness", count)
    rates = ["selection_rate", "true_positive_rate", "false_positive_rate"]
    per_group, spread = disparities(g, rates, x, method)
    out = _fairness_table(spread, g.strata, agg)
    if with_ci:
        assert ci is not None
        reps, rep = replicate_spread(g, rates, x, method, point=per_group, n_boot=n_boot, seed=seed)
        table = _fairness_table(reps, [*g.strata, rep], agg)
        columns = list(names.output_columns("fairness"))
        aggs = groups_fairness.interval_aggs(columns, ci)
        bounds = groups_fairness.per_stratum(table, g.strata, aggs)
        out = _join_on(out, bounds, g.strata)
    return g.restore(out)


def disparity_of(
    lf: pl.LazyFrame,
    y_true: str,
    y_pred: str,
    *,
    by: By,
    metric: FairnessMetric | Sequence[FairnessMetric] | Mapping[str, Callable[..., Any]],
    control: By,
    method: DisparityMethod,
    pos_label: object,
    weight: str | None,
    zero_division: float,
    ci: float | None,
    n_boot: int,
    seed: int | None,
    count: str | None = None,
    values: Values | None = None,
) -> pl.LazyFrame:
    """:meth:`FairnessMethods.disparity` of ``lf``'s rows (``values``: the metrics'
    values per group and stratum, and the per-score counts of the bootstrap, computed
    elsewhere, the engines': ``lf`` then gives the schema only)."""
    callables = None
    if isinstance(metric, Mapping):
        callables = custom.check_metrics("metric", metric)
        metrics = list(callables)
        checked("disparity", metric=metric, ci=ci)
    else:
        checked("disparity", metric=metric)
        metrics = [metric] if isinstance(metric, str) else list(metric)
        for m in metrics:
            groups_fairness.check_metric(m)
    method, seed, zd = checked("disparity", method=method, seed=seed, zero_division=zero_division)
    with_ci = wants_ci(ci, n_boot, "bootstrap", weight, seed=seed, methods=("bootstrap",))
    g = prepare(
        lf,
        y_true,
        y_pred,
        by=by,
        control=control,
        weight=weight,
        reserved=names.output_columns("disparity", ci=with_ci),
        method="disparity",
        count=count,
    )
    x = groups_fairness.Inputs(y_true, y_pred, pos_label, weight, zd, "disparity", count)
    per_group, out = disparities(g, metrics, x, method, callables, values=values)
    if with_ci:
        assert ci is not None
        score_counts = None if values is None else partial(values.score_counts, g, x)
        reps, _ = replicate_spread(
            g,
            metrics,
            x,
            method,
            point=per_group,
            n_boot=n_boot,
            seed=seed,
            score_counts=score_counts,
        )
        bounds = reps.group_by([*g.strata, "metric"]).agg(
            groups_fairness.interval_aggs(["difference", "ratio"], ci)
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
    table = groups_fairness.per_stratum(spread, strata, parts)
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


def _join_on(left: pl.LazyFrame, right: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    if not keys:
        return pl.concat([left, right], how="horizontal")
    return left.join(right, on=keys, how="left", nulls_equal=True, maintain_order="left")


__all__ = [
    "Groups",
    "Values",
    "disparities",
    "disparity_of",
    "fairness_of",
    "prepare",
    "rates",
    "replicate_spread",
]
