"""Model comparisons on the same rows: ``compare_models``, paired tests of each model
against a baseline, per segment (the plan in :mod:`pl_metrics._groups.paired_models`,
the numerics in :mod:`pl_metrics._groups.paired`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from pl_metrics._groups import paired_models
from pl_metrics._typing import Adjust, By, PairedCiMethod, PairedMetric


class PairedMethods:
    """``compare_models`` on a LazyFrame."""

    _lf: pl.LazyFrame

    def compare_models(
        self,
        y_true: str,
        models: Mapping[str, str] | Sequence[str] | str,
        *,
        model: str | None = None,
        id: str | None = None,
        baseline: object = None,
        by: By = None,
        metric: PairedMetric = "accuracy",
        pos_label: object = None,
        ci: float = 0.95,
        ci_method: PairedCiMethod | None = None,
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
            (named by their columns); at least two, the first is the baseline.  Or,
            with ``model`` and ``id``, the one column of every model's predictions
            (scores) in stacked rows.
        model
            Stacked rows, one per ``(id, model)``: the column naming each row's
            model (its values, as text, are the output's ``model`` / ``baseline``).
            The result is the wide form's on the rows pivoted to one per id (a
            column per model, baseline first), so every number is the same.
        id
            Stacked rows: the column pairing the rows of the models (the row of the
            data they scored).  An id without a row of every model, or with two rows
            of a model, a null id or model, or an id whose rows differ in ``y_true``
            or in a ``by`` segment is a ``DataError``.
        baseline
            Stacked rows: the model compared with the others, a value of ``model``
            that fits its dtype as ``pos_label`` fits ``y_true``'s (``2`` is the model
            ``2.0`` of a Float64 column, ``True`` the model ``true`` of a Boolean
            one), or the model's name as the output writes it (``"2.0"``); default:
            the first model in sorted order.  The others follow in sorted order.
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
        ci_method
            How the intervals and tests are computed; None (default): the metric's
            own analytic test. ``"delong"`` (roc_auc, its only one), ``"delta"``
            (the default of average_precision, balanced_accuracy, mcc,
            cohen_kappa, precision, recall and f1: the delta method over the rows;
            a sort per model for average_precision, a few ``group_by``s of the
            joint labels for the others), ``"agresti_min"`` (accuracy's default:
            McNemar's test and the Agresti-Min interval of the difference, from
            the discordant rows), ``"poisson"`` (the paired Poisson
            bootstrap, each row's count Poisson(1)) or ``"bootstrap"`` (the paired
            bootstrap, when asked: for the label metrics 1,000 replicates per
            segment; for average_precision a redraw of every row per replicate,
            hundreds of times the delta method's cost on continuous scores).
        n_boot, seed
            The paired bootstrap's replicates and seed (the same seed gives the same
            result whatever the row order or other segments).
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
            ``"mcnemar_chi2"`` (accuracy), ``"delong"`` (roc_auc), ``"delta"``
            (the delta method's defaults), ``"paired_bootstrap"`` or
            ``"paired_poisson_bootstrap"`` (``ci_method="poisson"``); ``statistic`` (Float64)
            McNemar's (``min(b, c)`` exact, the chi-square otherwise) or the z of
            DeLong / the delta method, null for the bootstrap;
            ``p_value`` the two-sided p-value of ``diff == 0``.  Where ``diff`` is
            undefined, or the test is (DeLong or the delta method with fewer than
            two positives or negatives, or a variance of exactly 0 with the models
            ranking the rows differently; the label metrics' delta method where a
            denominator is 0 in either model, or where its variance is 0 but the
            difference is not: both models at an end of the metric's range), the
            interval and test are null; two models that rank (or predict) every
            row alike get the statistic 0 and p-value 1.

        Notes
        -----
        The rows of a segment are the same for every model (a paired design):
        accuracy is tested with McNemar's test on the discordant rows ``b``
        (baseline right, model wrong) and ``c``: exact binomial when ``b + c < 25``,
        else chi-square with continuity correction (``statsmodels``' ``mcnemar``);
        roc_auc with DeLong's test of correlated AUCs (interval ``diff +- z se``);
        average_precision by the delta method: the segment's rows are a
        multinomial sample of its (class, baseline score, model score) cells, the
        difference of the APs a function of the cells' counts ``x`` with gradient
        ``d`` (written out: one pass down each model's scores), its variance
        ``sum x d^2 - (sum x d)^2 / n``, the interval ``diff +- z se`` clipped to
        [-1, 1] and the p-value of ``z = diff / se`` (asymptotic, as DeLong's; the
        bootstrap when asked, for segments of a few positives);
        accuracy's interval by Agresti & Min (2005): the matched-pairs Wald
        interval of ``(c - b) / n`` with 1/2 added to each of the four cells
        (``docs/intervals.md``); the other label metrics by the delta method over
        the joint (actual, baseline, model) label cells, each model's metric a
        function of its confusion counts with its derivatives written out
        (``docs/intervals.md``), the interval ``diff +- z se`` clipped to the
        difference's range; with ``ci_method="bootstrap"``, the paired bootstrap: a
        replicate redraws the segment's rows (its distinct ``(y_true, baseline,
        model)`` rows), both models are evaluated on it, the interval is the
        percentile interval of the replicate differences and the p-value
        ``min(1, 2 min((1 + #(d <= 0)) / (1 + B), (1 + #(d >= 0)) / (1 + B)))`` over
        the ``B`` defined replicate differences ``d``.  No ``weight=``: the tests and
        intervals resample rows, which weights are not.

        Stacked rows (``model=``, ``id=``) are pivoted by one ``group_by(id)``
        after a small query reading the model names; at collect the pivot is
        made once, in memory (a row per id, a column per model), and the wide
        form runs on it: 200,000 ids x 2 models, ``roc_auc`` by 5 segments,
        about 2x the wide form's time (0.35 s against 0.15 s).

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

        The same predictions stacked, one row per (id, model):

        >>> stacked = df.with_row_index("id").unpivot(
        ...     ["old", "new"], index=["id", "y"], variable_name="version", value_name="pred"
        ... )
        >>> same = stacked.metrics.compare_models(
        ...     "y", "pred", model="version", id="id", baseline="old", n_boot=200
        ... )
        >>> same.equals(out)
        True
        """
        return paired_models.compare_models(
            self._lf,
            y_true,
            models,
            model=model,
            id=id,
            baseline=baseline,
            by=by,
            metric=metric,
            pos_label=pos_label,
            ci=ci,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
            adjust=adjust,
        )
