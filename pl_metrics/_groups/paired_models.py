"""Model comparisons on the same rows, the plan behind ``.metrics.compare_models``: the
models read (a list or mapping of columns, or stacked rows of one prediction column
with ``model=`` / ``id=``, pivoted once), the options checked, and each model's paired
difference with the baseline per segment (the numerics: :mod:`pl_metrics._groups.paired`,
:mod:`~pl_metrics._groups.paired_ap`, :mod:`~pl_metrics._groups.paired_delong`,
:mod:`~pl_metrics._groups.paired_labels`)."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import polars as pl
from polars.exceptions import SchemaError

from pl_metrics._core import checks, forms, labels, multiple, names, scores
from pl_metrics._core.catalogue import CATALOGUE
from pl_metrics._core.messages import retyped
from pl_metrics._core.options import checked
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._groups import paired, paired_ap, paired_delong, paired_labels
from pl_metrics._intervals.sampling import resampling
from pl_metrics._ranking.sorted_path import use_sorted_path
from pl_metrics._typing import Adjust

_METHOD = "compare_models"


#: The stacked rows' temporaries: the model as text, and the id's null flag.
_MODEL = f"{names.INTERNAL}stacked_model"
_NULL_ID = f"{names.INTERNAL}null_id"


def _unstack(
    lf: pl.LazyFrame,
    y_true: str,
    column: str,
    *,
    model: str,
    id_: str,
    baseline: object,
    by: names.Segments,
) -> tuple[pl.LazyFrame, list[tuple[str, str]], list[str]]:
    """Stacked rows (one per ``(id, model)``) as the wide form: ``(frame, models, keys)``,
    the frame one row per id with ``y_true``, a column per model (``column[model=name]``)
    and the segments under stand-in names ``keys``; ``models`` its ``(name, column)``
    pairs, the baseline first, then the others in sorted order.

    One ``group_by(id)`` pivots the rows and counts in the same pass what would make
    the pairing wrong (checked on its result, ``checks.raise_if_bad``): null ids or
    values, an id with two rows of a model or none, ``y_true`` or a segment that
    differs between an id's rows.  The model names are read first (a small
    ``group_by(model)`` query, as the labels are)."""
    for argument, name in (("models", column), ("model", model), ("id", id_)):
        checks.check_column_name(argument, name)
    given = {"y_true": y_true, "models": column, "model": model, "id": id_}
    checked(_METHOD, y_true=y_true, models=column, model=model, id=id_)
    schema = lf.collect_schema()
    checks.check_columns(schema, **given)
    checks.check_by(schema, by, names.output_columns(_METHOD))
    if schema[model].is_nested() or schema[model] == pl.Object:
        msg = f"column {model!r} (argument `model`) must hold model names, got {schema[model]}"
        raise SchemaError(msg)
    found = lf.group_by(model).agg(pl.len()).sort(model, nulls_last=True).collect()
    null_rows = found.filter(pl.col(model).is_null()).get_column("len").sum()
    if null_rows:
        raise checks.Bad.stacked_nulls(model, "model", int(null_rows))
    models = found.get_column(model).cast(pl.String).to_list()
    if len(models) < 2:
        raise checks.Bad.one_model(model, models)
    if baseline is not None:
        # a value of the model column's dtype, as pos_label is of y_true's (2 is the
        # model 2.0 of a Float64 column, True the model true of a Boolean one), or the
        # model's name as the output writes it (its text: the CLI's --baseline)
        name = baseline
        if not (isinstance(baseline, str) and baseline in models):
            value = labels.label_value(baseline, schema[model], "baseline", model)
            name = pl.Series([value], dtype=schema[model]).cast(pl.String)[0]
        if name not in models:
            msg = f"`baseline` {baseline!r} is not a model of column {model!r}: {models!r}"
            raise ValueError(msg)
        models = [name, *(m for m in models if m != name)]
    taken = {y_true, column, id_}
    wide = {}
    for name in models:
        wide[name] = f"{column}[model={name}]"
        while wide[name] in taken:
            wide[name] += "_"
        taken.add(wide[name])
    keys = names.stand_in_keys(by, taken)
    rows = lf.select(
        id_,
        y_true,
        column,
        pl.col(model).cast(pl.String).alias(_MODEL),
        pl.col(id_).is_null().alias(_NULL_ID),
        *(e.alias(k) for e, k in zip(by.exprs, keys, strict=True)),
    )
    check = [f"{names.INTERNAL}check{i}" for i in range(6 + len(keys))]
    of = {name: (pl.col(_MODEL) == name).sum() for name in models}
    pivoted = rows.group_by(id_).agg(
        pl.col(y_true).first(),
        *(pl.col(column).filter(pl.col(_MODEL) == m).first().alias(wide[m]) for m in models),
        *(pl.col(k).first() for k in keys),
        pl.col(_NULL_ID).sum().alias(check[0]),
        pl.col(y_true).null_count().alias(check[1]),
        pl.col(column).null_count().alias(check[2]),
        pl.any_horizontal(*(n > 1 for n in of.values())).cast(pl.Int64).alias(check[3]),
        pl.any_horizontal(*(n == 0 for n in of.values())).cast(pl.Int64).alias(check[4]),
        (pl.col(y_true).n_unique() > 1).cast(pl.Int64).alias(check[5]),
        *(
            (pl.col(k).n_unique() > 1).cast(pl.Int64).alias(check[6 + i])
            for i, k in enumerate(keys)
        ),
    )
    data_checks: list[checks.Check] = [
        (check[0], lambda n: checks.Bad.stacked_nulls(id_, "id", n)),
        (check[1], lambda n: checks.Bad.nulls(y_true, n)),
        (check[2], lambda n: checks.Bad.nulls(column, n)),
        (check[3], lambda n: checks.Bad.repeated_ids(id_, n, model)),
        (check[4], lambda n: checks.Bad.unpaired_ids(id_, n, models)),
        (
            check[5],
            lambda n: checks.Bad.differs_within_ids(
                f"column {y_true!r} (argument `y_true`)", id_, n
            ),
        ),
    ]
    data_checks += [
        (
            check[6 + i],
            functools.partial(checks.Bad.differs_within_ids, f"the segment (`by`) {name!r}", id_),
        )
        for i, name in enumerate(by.names)
    ]
    # collected once by compare_models (the wide form reads its rows in several
    # branches and collects, which would each pivot the stacked rows again)
    frame = checks.raise_if_bad(pivoted, data_checks).select(y_true, *wide.values(), *keys)
    return frame, [(m, wide[m]) for m in models], keys


@contextlib.contextmanager
def _named_as_stacked(column: str, items: list[tuple[str, str]]) -> Iterator[None]:
    """Errors of the wide form of stacked rows in the user's terms: its column
    ``'s[model=b]'`` is ``column 's' (model 'b')``, and ``'s'`` in the code shown."""
    try:
        yield
    except (ValueError, TypeError, pl.exceptions.PolarsError) as exc:
        text = str(exc)
        for name, wide in items:
            text = text.replace(f"column {wide!r}", f"column {column!r} (model {name!r})")
            text = text.replace(repr(wide), repr(column))
        renamed = exc if text == str(exc) else retyped(exc, text)
        if renamed is exc:
            raise
        raise renamed from exc


def _check_options(
    metric: object,
    pos_label: object,
    ci: object,
    *,
    n_boot: object,
    seed: object,
    ci_method: object,
) -> str:
    """Check the options; returns the ``ci_method`` (None: the metric's default)."""
    checks.check_choice("metric", metric, paired.METRICS)
    checked(_METHOD, metric=metric, pos_label=pos_label, ci=ci)
    assert isinstance(metric, str)
    methods = paired.CI_METHODS[metric]
    if ci_method is not None:
        checks.check_choice(
            "ci_method", ci_method, tuple(dict.fromkeys(sum(paired.CI_METHODS.values(), ())))
        )
    checked(_METHOD, metric=metric, ci_method=ci_method, ci_methods=methods)
    method = methods[0] if ci_method is None else str(ci_method)
    checks.check_ci(ci, n_boot, method, methods)
    checked("compare_models", seed=seed)
    polars_only = method == "delong" or (method == "delta" and metric not in paired.SCORE_METRICS)
    if not polars_only and importlib.util.find_spec("numpy") is None:
        bootstrap = method in ("bootstrap", "poisson")
        what = "draws bootstrap replicates" if bootstrap else "sorts in numpy"
        msg = f"compare_models(metric={metric!r}, ci_method={method!r}) {what}: pip install numpy"
        raise ModuleNotFoundError(msg)
    return method


def compare_models(
    lf_: pl.LazyFrame,
    y_true: str,
    models: Mapping[str, str] | Sequence[str] | str,
    *,
    model: str | None,
    id: str | None,
    baseline: object,
    by: object,
    metric: str,
    pos_label: object,
    ci: float,
    ci_method: str | None,
    n_boot: int,
    seed: int | None,
    adjust: str | None,
) -> pl.LazyFrame:
    """:meth:`pl_metrics.MetricsLazyFrame.compare_models`."""
    method = _check_options(metric, pos_label, ci, n_boot=n_boot, seed=seed, ci_method=ci_method)
    method, seed = resampling(method, seed)  # "poisson": the bootstrap, its seed
    (adjust,) = checked("compare_models", adjust=adjust)
    segments = checks.normalize_by(by)
    checks.check_column_name("y_true", y_true)
    lf, items, keys = lf_, None, segments
    if forms.is_stacked(models, model, id, baseline):
        assert isinstance(models, str)
        assert model is not None
        assert id is not None
        # the stacked rows pivoted to the wide form (one row per id), whose
        # segments are stand-in columns: every number is the wide form's
        lf, items, stand_ins = _unstack(
            lf, y_true, models, model=model, id_=id, baseline=baseline, by=segments
        )
        keys = checks.normalize_by(stand_ins or None)
    options = {"metric": metric, "pos_label": pos_label, "ci": ci, "ci_method": method}
    options |= {"n_boot": n_boot}
    options |= {"seed": seed, "adjust": adjust}
    chosen = forms.model_columns(models) if items is None else items
    if items is None:
        table = _compare(lf, y_true, chosen, keys, **options)
    else:  # stacked: the pivot made once, then the wide plan on it
        assert isinstance(models, str)
        column, pivoted = models, lf
        with _named_as_stacked(column, chosen):
            table = _compare(lf, y_true, chosen, keys, **options)

        def run() -> pl.DataFrame:
            with _named_as_stacked(column, chosen):
                wide = pivoted.collect().lazy()  # the wide plan collects several times
                return _compare(wide, y_true, chosen, keys, **options).collect()

        table = pl.defer(run, schema=table.collect_schema())
    return table.rename(dict(zip(keys.names, segments.names, strict=True)))


def _compare(
    lf: pl.LazyFrame,
    y_true: str,
    items: list[tuple[str, str]],
    segments: names.Segments,
    *,
    metric: str,
    **options: Any,
) -> pl.LazyFrame:
    """:func:`_compare_wide`, or for a metric derived from another (gini from
    roc_auc: ``catalogue.Affine``) the base's comparison with its values and
    differences mapped (the test and its p-value are the base's)."""
    derived = CATALOGUE[metric].derived
    if derived is None:
        return _compare_wide(lf, y_true, items, segments, metric=metric, **options)
    table = _compare_wide(lf, y_true, items, segments, metric=derived.base, **options)
    values = [derived.value(pl.col(c)).alias(c) for c in ("value", "baseline_value")]
    diffs = [derived.difference(pl.col(c)).alias(c) for c in ("diff", "low", "high")]
    return table.with_columns(pl.lit(metric).alias("metric"), *values, *diffs)


def _compare_wide(
    lf: pl.LazyFrame,
    y_true: str,
    items: list[tuple[str, str]],
    segments: names.Segments,
    *,
    metric: str,
    pos_label: object,
    ci: float,
    ci_method: str,
    n_boot: int,
    seed: int | None,
    adjust: Adjust | None,
) -> pl.LazyFrame:
    """The wide form: ``items`` the ``(name, column)`` of each model, the baseline first."""
    schema = lf.collect_schema()
    checks.check_columns(schema, y_true=y_true)
    for _, column in items:
        checks.check_columns(schema, models=column)
    checks.check_by(schema, segments, names.output_columns(_METHOD))
    columns = list(dict.fromkeys(c for _, c in items))
    # The point values come from the metric's own method (its checks, its
    # number), which sees the segments under stand-in names (see compare).
    inner = names.stand_in_keys(segments, (y_true, *columns))
    rows = lf.select(
        y_true,
        *(c for c in columns if c != y_true),
        *(e.alias(k) for e, k in zip(segments.exprs, inner, strict=True)),
    )
    keys = inner or [names.ALL]
    values = {
        c: _values(
            rows, metric, inner, groups_fairness.Inputs(y_true, c, pos_label, None, 0.0, _METHOD)
        )
        for c in columns
    }
    binary = metric not in paired.LABEL_METRICS
    pos = scores.resolve_pos_label(schema, y_true, pos_label) if binary else None
    if not inner:
        rows = rows.with_columns(pl.lit(0, pl.Int8).alias(names.ALL))
    (base, baseline), *others = items
    parts = []
    for order, (name, column) in enumerate(others, start=1):
        pair = (
            values[baseline]
            .rename({paired.VALUE: paired.BASE})
            .join(values[column], on=keys, how="left", nulls_equal=True)
            .with_columns(pl.lit(name).alias(paired.MODEL), pl.lit(order).alias(paired.ORDER))
        )
        seg = [*keys, paired.MODEL]
        labels = None  # the cells' label dtype and pos_label in it (label metrics)
        if metric in paired.SCORE_METRICS:
            positive = pl.col(y_true) == pl.lit(pos, schema[y_true])
            # continuous scores (roc_auc's sorted path): a cell per row, for DeLong
            counted = ci_method == "bootstrap" or not use_sorted_path(
                rows, {baseline: baseline, column: column}
            )
            cells = paired.score_cells(
                rows, keys, positive, baseline, column, schema=schema, counted=counted
            )
        else:
            types = paired.common_label_types(schema, y_true, baseline, column)
            cells = paired.label_cells(rows, keys, y_true, baseline, column, types=types)
            in_dtype = (
                None if pos is None else checks.label_value(pos, types.compute, "pos_label", y_true)
            )
            labels = (types.compute, in_dtype)
        cells = cells.with_columns(pl.lit(name).alias(paired.MODEL))
        if ci_method == "agresti_min":  # accuracy: from the discordant counts
            pair = pair.join(
                paired.mcnemar_tests(cells, keys, ci), on=keys, how="left", nulls_equal=True
            )
        elif ci_method != "bootstrap":  # one model: by the segments alone
            tests = _standard_error(cells, keys, metric, ci_method, labels)
            pair = pair.join(tests, on=keys, how="left", nulls_equal=True)
            diff = pl.col(paired.VALUE) - pl.col(paired.BASE)
            bound = paired_labels.BOUNDS.get(metric, 1.0)
            pair = pair.with_columns(
                paired.delong_columns(diff, pl.col(paired.SE), ci, ci_method, bound)
            )
        else:
            # joined to the point values first: their methods' data checks run
            # before the replicates read the cells
            checked = cells.join(pair.select(seg), on=seg, how="inner", nulls_equal=True)
            tests = paired.bootstrap_tests(
                checked, seg, metric=metric, labels=labels, ci=ci, n_boot=n_boot, seed=seed
            )
            pair = pair.join(tests, on=seg, how="left", nulls_equal=True)
        parts.append(
            pair.select(
                *keys, paired.MODEL, paired.ORDER, paired.VALUE, paired.BASE, *paired.TEST_SCHEMA
            )
        )
    table = pl.concat(parts)
    diff = pl.col(paired.VALUE) - pl.col(paired.BASE)
    defined = diff.fill_nan(None).is_not_null()
    table = table.with_columns(
        diff.alias("diff"),
        *(
            pl.when(defined).then(pl.col(c)).alias(c)
            for c in (paired.LOW, paired.HIGH, paired.STAT, paired.P)
        ),
    )
    table = multiple.adjusted(table, paired.P, "p_adjusted", [paired.ORDER], adjust)
    table = table.sort([*keys, paired.ORDER], nulls_last=True).select(
        *inner,
        pl.lit(metric).alias("metric"),
        pl.col(paired.MODEL).alias("model"),
        pl.lit(base).alias("baseline"),
        pl.col(paired.VALUE).alias("value"),
        pl.col(paired.BASE).alias("baseline_value"),
        "diff",
        pl.col(paired.LOW).alias("low"),
        pl.col(paired.HIGH).alias("high"),
        pl.col(paired.TEST).alias("test"),
        pl.col(paired.STAT).alias("statistic"),
        pl.col(paired.P).alias("p_value"),
        "p_adjusted",
    )
    return table.rename(dict(zip(inner, segments.names, strict=True)))


def _standard_error(
    cells: pl.LazyFrame,
    keys: list[str],
    metric: str,
    ci_method: str,
    labels: tuple[pl.DataType, Any] | None,
) -> pl.LazyFrame:
    """``*keys, SE`` of the difference by the analytic ``ci_method``: DeLong's (ROC AUC),
    the delta method's (average precision, the label metrics but accuracy)."""
    if ci_method == "delong":
        return paired_delong.delong_se(cells, keys)
    if metric in paired.SCORE_METRICS:
        return paired_ap.ap_delta_se(cells, keys)
    assert labels is not None  # label metrics: their dtype and pos_label
    return paired_labels.label_delta_se(cells, keys, metric, labels)


def _values(
    rows: pl.LazyFrame, metric: str, keys: list[str], x: groups_fairness.Inputs
) -> pl.LazyFrame:
    """``*keys, VALUE`` (``ALL`` without segments): the metric of one model's column by
    its own method (``_groups.fairness.evaluate``: the method's checks and number)."""
    frame = groups_fairness.evaluate(rows, [metric], keys, x).rename({metric: paired.VALUE})
    return frame if keys else frame.with_columns(pl.lit(0, pl.Int8).alias(names.ALL))
