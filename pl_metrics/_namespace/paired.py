"""Model comparisons on the same rows: ``compare_models``, paired tests of each model
against a baseline, per segment (the numerics in :mod:`pl_metrics._paired`)."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence

import polars as pl

from pl_metrics import _fairness as fair
from pl_metrics import _paired as pt
from pl_metrics._core import checks as v
from pl_metrics._core import multiple, names
from pl_metrics._core import scores as sc
from pl_metrics._ranking_sorted import use_sorted_path
from pl_metrics._typing import Adjust, By, PairedMetric

_METHOD = "compare_models"


def _models(models: object) -> list[tuple[str, str]]:
    """``models=`` as ``(name, column)`` pairs, the baseline first."""
    if isinstance(models, Mapping):
        items = list(models.items())
    elif isinstance(models, Sequence) and not isinstance(models, str):
        items = [(column, column) for column in models]
    else:
        msg = (
            "`models` must be a mapping {name: column} or a list of columns (the first is "
            f"the baseline), got {models!r}"
        )
        raise TypeError(msg)
    if len(items) < 2:
        msg = (
            "`models` needs at least two models, the baseline first and the models compared "
            f"with it, got {models!r}"
        )
        raise ValueError(msg)
    for name, column in items:
        if not isinstance(name, str):
            msg = f"`models` names must be strings, got {name!r}"
            raise TypeError(msg)
        v.check_column_name("models", column)
    given = [name for name, _ in items]
    repeated = sorted({name for name in given if given.count(name) > 1})
    if repeated:
        msg = f"`models` names a model more than once: {repeated!r}; give each model one name"
        raise ValueError(msg)
    return items


def _check_options(
    metric: object, pos_label: object, ci: object, n_boot: object, seed: object
) -> None:
    v.check_choice("metric", metric, pt.METRICS)
    if pos_label is not None and metric in pt.LABEL_METRICS:
        msg = (
            f"`pos_label` is for the binary metrics {[*pt.BINARY_METRICS, *pt.SCORE_METRICS]}; "
            f"{metric!r} counts every class alike: drop pos_label"
        )
        raise ValueError(msg)
    if ci is None:
        msg = "`ci` is required: compare_models gives every difference an interval (e.g. 0.95)"
        raise ValueError(msg)
    v.check_ci(ci, n_boot, "bootstrap", ("bootstrap",))
    v.check_seed(seed)
    if metric != "roc_auc" and importlib.util.find_spec("numpy") is None:
        msg = f"compare_models(metric={metric!r}) draws bootstrap replicates: pip install numpy"
        raise ModuleNotFoundError(msg)


class PairedMethods:
    """``compare_models`` on a LazyFrame."""

    _lf: pl.LazyFrame

    def compare_models(
        self,
        y_true: str,
        models: Mapping[str, str] | Sequence[str],
        *,
        by: By = None,
        metric: PairedMetric = "accuracy",
        pos_label: object = None,
        ci: float = 0.95,
        n_boot: int = 1000,
        seed: int | None = 0,
        adjust: Adjust | None = None,
    ) -> pl.LazyFrame:
        """Compare models scored on the same rows with a baseline: paired differences,
        their intervals and tests, per segment.

        Parameters
        ----------
        y_true
            Column of the actual labels.
        models
            The models' prediction columns (score columns for ``roc_auc`` /
            ``average_precision``): a mapping ``{name: column}`` or a list of columns
            (named by their columns); at least two, the first is the baseline.
        by
            Segment column(s) or expression(s), as in :meth:`confusion_matrix`.
        metric
            ``"accuracy"``, ``"balanced_accuracy"``, ``"mcc"``, ``"cohen_kappa"`` (as
            :meth:`summary`), ``"precision"``, ``"recall"``, ``"f1"`` of ``pos_label``
            against the one other label (binary only: a segment with two other
            labels is a ``DataError``, as scikit-learn's ``average="binary"``), or
            ``"roc_auc"``, ``"average_precision"`` (binary, as their methods).
        pos_label
            The positive class of the binary metrics; default 1 (True) for labels
            {0, 1} or {-1, 1} only, required for string labels.
        ci
            Level of the interval of each difference.
        n_boot, seed
            The paired bootstrap's replicates and seed (every metric but roc_auc; the
            same seed gives the same result whatever the row order or other segments).
        adjust
            Adjust the p-values of a model for the number of segments it is tested in:
            ``"holm"``, ``"bonferroni"``, ``"bh"``, ``"by"`` or None (``p_adjusted`` =
            ``p_value``), as :meth:`compare`.

        Returns
        -------
        LazyFrame
            ``*by, metric, model, baseline, value, baseline_value, diff, low, high,
            test, statistic, p_value, p_adjusted``: a row per segment and model other
            than the baseline, sorted by segment then model order.  ``value`` and
            ``baseline_value`` are the metric's method's values (null or NaN where it
            is undefined), ``diff = value - baseline_value``, ``low`` / ``high`` its
            interval at level ``ci``; ``test`` (String) is ``"mcnemar_exact"`` /
            ``"mcnemar_chi2"`` (accuracy), ``"delong"`` (roc_auc) or
            ``"paired_bootstrap"``; ``statistic`` (Float64) McNemar's (``min(b, c)``
            exact, the chi-square otherwise) or DeLong's z, null for the bootstrap;
            ``p_value`` the two-sided p-value of ``diff == 0``.  Where ``diff`` is
            undefined, or the test is (DeLong with fewer than two positives or
            negatives, or a variance of exactly 0 with the models ranking the rows
            differently), the interval and test are null; two models that rank
            every row alike get DeLong's statistic 0 and p-value 1.

        Notes
        -----
        The rows of a segment are the same for every model (a paired design):
        accuracy is tested with McNemar's test on the discordant rows ``b``
        (baseline right, model wrong) and ``c``: exact binomial when ``b + c < 25``,
        else chi-square with continuity correction (``statsmodels``' ``mcnemar``);
        roc_auc with DeLong's test of correlated AUCs (interval ``diff +- z se``);
        the other metrics, and accuracy's interval, with the paired bootstrap: a
        replicate redraws the segment's rows (its distinct ``(y_true, baseline,
        model)`` rows), both models are evaluated on it, the interval is the
        percentile interval of the replicate differences and the p-value
        ``min(1, 2 min((1 + #(d <= 0)) / (1 + B), (1 + #(d >= 0)) / (1 + B)))`` over
        the ``B`` defined replicate differences ``d``.  No ``weight=``: the tests and
        intervals resample rows, which weights are not.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 1, 1, 0, 1, 0, 1, 1],
        ...                    "old": [0, 0, 1, 1, 0, 0, 1, 0], "new": [0, 1, 1, 0, 1, 0, 1, 0]})
        >>> out = df.metrics.compare_models("y", ["old", "new"], n_boot=200)
        >>> out.select("model", "value", "baseline_value", "diff", "test", "p_value")
        shape: (1, 6)
        ┌───────┬───────┬────────────────┬───────┬───────────────┬─────────┐
        │ model ┆ value ┆ baseline_value ┆ diff  ┆ test          ┆ p_value │
        │ ---   ┆ ---   ┆ ---            ┆ ---   ┆ ---           ┆ ---     │
        │ str   ┆ f64   ┆ f64            ┆ f64   ┆ str           ┆ f64     │
        ╞═══════╪═══════╪════════════════╪═══════╪═══════════════╪═════════╡
        │ new   ┆ 0.875 ┆ 0.5            ┆ 0.375 ┆ mcnemar_exact ┆ 0.25    │
        └───────┴───────┴────────────────┴───────┴───────────────┴─────────┘
        >>> out["statistic"].to_list()  # McNemar's b = 0 (old right, new wrong), c = 3
        [0.0]
        """
        _check_options(metric, pos_label, ci, n_boot, seed)
        multiple.check_adjust(adjust)
        items = _models(models)
        segments = v.normalize_by(by)
        v.check_column_name("y_true", y_true)
        schema = self._lf.collect_schema()
        v.check_columns(schema, y_true=y_true)
        for _, column in items:
            v.check_columns(schema, models=column)
        v.check_by(schema, segments, names.output_columns(_METHOD))
        columns = list(dict.fromkeys(c for _, c in items))
        # The point values come from the metric's own method (its checks, its
        # number), which sees the segments under stand-in names (see compare).
        inner = names.stand_in_keys(segments, (y_true, *columns))
        rows = self._lf.select(
            y_true,
            *(c for c in columns if c != y_true),
            *(e.alias(k) for e, k in zip(segments.exprs, inner, strict=True)),
        )
        keys = inner or [names.ALL]
        values = {
            c: _values(rows, metric, inner, fair.Inputs(y_true, c, pos_label, None, 0.0, _METHOD))
            for c in columns
        }
        binary = metric not in pt.LABEL_METRICS
        pos = sc.resolve_pos_label(schema, y_true, pos_label) if binary else None
        if not inner:
            rows = rows.with_columns(pl.lit(0, pl.Int8).alias(names.ALL))
        (base, baseline), *others = items
        parts = []
        for order, (name, column) in enumerate(others, start=1):
            pair = (
                values[baseline]
                .rename({pt.VALUE: pt.BASE})
                .join(values[column], on=keys, how="left", nulls_equal=True)
                .with_columns(pl.lit(name).alias(pt.MODEL), pl.lit(order).alias(pt.ORDER))
            )
            seg = [*keys, pt.MODEL]
            labels = None  # the cells' label dtype and pos_label in it (label metrics)
            if metric in pt.SCORE_METRICS:
                positive = pl.col(y_true) == pl.lit(pos, schema[y_true])
                # continuous scores (roc_auc's sorted path): a cell per row, for DeLong
                counted = metric != "roc_auc" or not use_sorted_path(
                    rows, {baseline: baseline, column: column}
                )
                cells = pt.score_cells(
                    rows, keys, positive, baseline, column, schema=schema, counted=counted
                )
            else:
                types = pt.common_label_types(schema, y_true, baseline, column)
                cells = pt.label_cells(rows, keys, y_true, baseline, column, types=types)
                in_dtype = (
                    None if pos is None else v.label_value(pos, types.compute, "pos_label", y_true)
                )
                labels = (types.compute, in_dtype)
            cells = cells.with_columns(pl.lit(name).alias(pt.MODEL))
            if metric == "roc_auc":
                tests = pt.delong_se(cells, keys)  # one model: by the segments alone
                pair = pair.join(tests, on=keys, how="left", nulls_equal=True)
                diff = pl.col(pt.VALUE) - pl.col(pt.BASE)
                pair = pair.with_columns(pt.delong_columns(diff, pl.col(pt.SE), ci))
            else:
                # joined to the point values first: their methods' data checks run
                # before the replicates read the cells
                checked = cells.join(pair.select(seg), on=seg, how="inner", nulls_equal=True)
                tests = pt.bootstrap_tests(
                    checked, seg, metric=metric, labels=labels, ci=ci, n_boot=n_boot, seed=seed
                )
                pair = pair.join(tests, on=seg, how="left", nulls_equal=True)
            parts.append(pair.select(*keys, pt.MODEL, pt.ORDER, pt.VALUE, pt.BASE, *pt.TEST_SCHEMA))
        table = pl.concat(parts)
        diff = pl.col(pt.VALUE) - pl.col(pt.BASE)
        defined = diff.fill_nan(None).is_not_null()
        table = table.with_columns(
            diff.alias("diff"),
            *(pl.when(defined).then(pl.col(c)).alias(c) for c in (pt.LOW, pt.HIGH, pt.STAT, pt.P)),
        )
        table = multiple.adjusted(table, pt.P, "p_adjusted", [pt.ORDER], adjust)
        table = table.sort([*keys, pt.ORDER], nulls_last=True).select(
            *inner,
            pl.lit(metric).alias("metric"),
            pl.col(pt.MODEL).alias("model"),
            pl.lit(base).alias("baseline"),
            pl.col(pt.VALUE).alias("value"),
            pl.col(pt.BASE).alias("baseline_value"),
            "diff",
            pl.col(pt.LOW).alias("low"),
            pl.col(pt.HIGH).alias("high"),
            pl.col(pt.TEST).alias("test"),
            pl.col(pt.STAT).alias("statistic"),
            pl.col(pt.P).alias("p_value"),
            "p_adjusted",
        )
        return table.rename(dict(zip(inner, segments.names, strict=True)))


def _values(rows: pl.LazyFrame, metric: str, keys: list[str], x: fair.Inputs) -> pl.LazyFrame:
    """``*keys, VALUE`` (``ALL`` without segments): the metric of one model's column by
    its own method (``_fairness.evaluate``: the method's checks and number)."""
    frame = fair.evaluate(rows, [metric], keys, x).rename({metric: pt.VALUE})
    return frame if keys else frame.with_columns(pl.lit(0, pl.Int8).alias(names.ALL))
