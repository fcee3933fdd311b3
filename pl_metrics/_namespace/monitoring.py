"""Quality over time: ``.metrics.over_time``, any metric per rolling or tumbling window."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from pl_metrics import _probability
from pl_metrics._core import checks, forms, names
from pl_metrics._core.checks import wants_ci as _wants_ci
from pl_metrics._core.confusion import confusion_counts
from pl_metrics._core.options import checked
from pl_metrics._drift import metrics as drift_metrics
from pl_metrics._drift import state as drift_state
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._groups import over_time
from pl_metrics._intervals.sampling import resampling
from pl_metrics._monitoring import estimated, estimated_multiclass, estimated_windows
from pl_metrics._typing import (
    By,
    Calibration,
    CiMethod,
    Labels,
    OverTimeAnyMetric,
    Score,
)


class MonitoringMethods:
    """Metrics per time window and drift, on a LazyFrame."""

    _lf: pl.LazyFrame

    def drift(
        self,
        columns: str | Sequence[str],
        *,
        reference: pl.DataFrame | pl.LazyFrame | pl.Expr,
        by: By = None,
        bins: int = 10,
        eps: float = 1e-4,
    ) -> pl.LazyFrame:
        """Drift of each column between the reference rows and the current ones.

        Parameters
        ----------
        columns
            The columns to compare: numeric, or text / categorical / boolean.
        reference
            The reference rows: a DataFrame / LazyFrame with ``columns`` (the
            training data, say), or a Boolean expression over this frame marking
            them (``pl.col("day") < date``; the other rows are the current
            ones; a null is refused).
        by
            Segments of the current rows (column(s) or expression(s):
            ``pl.col("ts").dt.truncate("1w")`` gives weekly drift); the
            reference is one sample.
        bins
            Numeric columns: the bins of ``psi`` / ``js_distance`` are cut at the
            reference's quantiles j / bins (``numpy.quantile``'s, to the bit;
            duplicate and infinite edges dropped); a value falls in the first bin
            whose upper edge is >= it.
            Text / categorical / boolean columns: a bin per value of either
            side.  Nulls (and NaN) are one more bin on both sides.
        eps
            The proportion that replaces 0 in ``psi`` (only there).

        Returns
        -------
        LazyFrame
            ``*by, column, n_reference, n_current, psi, js_distance, ks,
            wasserstein``, one row per segment and column (columns in the order
            given): the rows of each side (nulls included); the population
            stability index sum (q - p) ln(q / p) over the bins (p the
            reference's proportions, q the current's); SciPy's
            ``jensenshannon(p, q, base=2)``; and, for numeric columns, SciPy's
            two-sample KS statistic and ``wasserstein_distance`` of the non-null
            values (null for the other columns, and ``wasserstein`` where a
            value is infinite).  Integer values at or beyond +-2**53 are refused.
            KS and Wasserstein read every value: a column at a time, its values
            of both sides are held in memory, sorted, with a few working numbers
            per value (the rest of the frame is not held).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 2.0, 3.0, 4.0, 5.0],
        ...                    "new": [False] * 4 + [True] * 4})
        >>> out = df.metrics.drift("x", reference=~pl.col("new"), bins=2)
        >>> out.select("n_reference", "n_current", "ks", "wasserstein").row(0)
        (4, 4, 0.25, 1.0)
        """
        chosen = drift_metrics.check_column_list(columns)
        bins, eps = checked("drift", bins=bins, eps=eps)
        return drift_metrics.drift(self._lf, chosen, reference=reference, by=by, bins=bins, eps=eps)

    def drift_bins(
        self,
        columns: str | Sequence[str],
        *,
        reference: pl.DataFrame | pl.LazyFrame | pl.Expr,
        by: By = None,
        bins: int = 10,
    ) -> pl.LazyFrame:
        """The bins of :meth:`drift`: each side's share of the rows per bin, to look at.

        Parameters
        ----------
        columns, reference, by, bins
            As :meth:`drift` (the same bins).

        Returns
        -------
        LazyFrame
            ``*by, column, bin, lower, upper, reference_share, current_share,
            current_rows``: a row per segment, column and bin that the reference
            or the segment has rows in (the bins ``psi`` and ``js_distance`` sum
            over), in order: a numeric column's bins ascending, ``bin`` named
            ``"(lower, upper]"`` (the first ``lower`` -inf, the last ``upper``
            inf); a text / categorical / boolean column's values sorted (``bin``
            the value as text, no edges); the null bin (nulls and NaN) last, its
            ``bin`` null.  The shares are of every row of the side, nulls included
            (``drift``'s p and q); ``current_rows`` the segment's rows in the bin.
            ``plot.drift`` draws it.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 2.0, 3.0, 4.0, None],
        ...                    "new": [False] * 4 + [True] * 4})
        >>> df.metrics.drift_bins("x", reference=~pl.col("new"), bins=2).drop("column")
        shape: (3, 6)
        ┌─────────────┬───────┬───────┬─────────────────┬───────────────┬──────────────┐
        │ bin         ┆ lower ┆ upper ┆ reference_share ┆ current_share ┆ current_rows │
        │ ---         ┆ ---   ┆ ---   ┆ ---             ┆ ---           ┆ ---          │
        │ str         ┆ f64   ┆ f64   ┆ f64             ┆ f64           ┆ i64          │
        ╞═════════════╪═══════╪═══════╪═════════════════╪═══════════════╪══════════════╡
        │ (-inf, 2.5] ┆ -inf  ┆ 2.5   ┆ 0.5             ┆ 0.25          ┆ 1            │
        │ (2.5, inf]  ┆ 2.5   ┆ inf   ┆ 0.5             ┆ 0.5           ┆ 2            │
        │ null        ┆ null  ┆ null  ┆ 0.0             ┆ 0.25          ┆ 1            │
        └─────────────┴───────┴───────┴─────────────────┴───────────────┴──────────────┘
        """
        chosen = drift_metrics.check_column_list(columns)
        (bins,) = checked("drift_bins", bins=bins)
        return drift_metrics.drift_bins(self._lf, chosen, reference=reference, by=by, bins=bins)

    def drift_counts(
        self,
        columns: str | Sequence[str],
        *,
        edges: Mapping[str, Sequence[float]] | None = None,
        by: By = None,
        bins: int = 10,
    ) -> pl.LazyFrame:
        """The mergeable state of :meth:`drift`: the rows per bin of each column.

        Count the reference rows once (their own quantile edges), then the current
        rows of any shard at the reference's edges; states of shards merge by
        summing ``rows`` (concatenate them), and
        :func:`pl_metrics.from_drift_counts` gives ``drift``'s ``psi`` and
        ``js_distance`` from them, the same numbers as on all the rows.
        ``pl_metrics.dask.drift_counts`` and ``pl_metrics.spark.drift_counts``
        count files and partitions on the workers.

        Parameters
        ----------
        columns, by, bins
            As :meth:`drift` (``by``: segments of these rows; the reference's
            state has none).
        edges
            ``{column: edges}`` of every numeric column, ascending: the bins
            ``(-inf, e1], (e1, e2], ..., (ek, inf)``; ``pl_metrics.drift_edges(
            reference_state)`` reads them from the reference's state.  None
            (default): the quantiles j / ``bins`` of these rows (for the reference).

        Returns
        -------
        LazyFrame
            ``*by, column, bin, lower, upper, rows``: per segment, column and bin,
            the rows (Int64); a numeric column has every bin (empty ones with 0
            rows, so that the state carries its edges), named ``"(lower,
            upper]"``; a text / categorical / boolean column a bin per value with
            rows (``bin`` the value, no edges); the null bin (``bin`` null) where
            there are nulls.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> train = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
        >>> week = pl.DataFrame({"x": [3.0, 4.0, 5.0, None]})
        >>> ref = train.metrics.drift_counts("x", bins=2)
        >>> cur = week.metrics.drift_counts("x", edges=plm.drift_edges(ref))
        >>> plm.from_drift_counts(ref, cur).select(pl.col("psi", "js_distance").round(4)).row(0)
        (6.3143, 0.627)
        """
        chosen = drift_metrics.check_column_list(columns)
        (bins,) = checked("drift_counts", bins=bins)
        return drift_state.drift_counts(self._lf, chosen, edges=edges, by=by, bins=bins)

    def over_time(
        self,
        y_true: str,
        *,
        index: str,
        every: str,
        period: str | None = None,
        metrics: OverTimeAnyMetric | Sequence[OverTimeAnyMetric] = ("accuracy",),
        y_pred: str | None = None,
        y_score: Score | None = None,
        by: By = None,
        weight: str | None = None,
        labels: Labels = None,
        pos_label: object = None,
        reference: pl.DataFrame | pl.LazyFrame | pl.Expr | None = None,
        calibration: Calibration | None = "isotonic",
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod | None = None,
    ) -> pl.LazyFrame:
        """Metrics per time window: tumbling (``period`` = ``every``) or rolling.

        The rows are read once into a state per (segment, ``every`` bucket); a
        window of ``period`` (a whole number ``k`` of buckets) sums the states of
        its ``k`` buckets, so a 7-day rolling window costs 7 daily states, not the
        rows.  Un-weighted ``roc_auc`` and ``average_precision`` of continuous
        scores (without the bootstrap) sort each window's rows instead, as the
        frame methods do.  Every value and analytic interval equals the frame
        method on the window's rows; bootstrap intervals are drawn from the
        window's summed states (replicates of the same rows, other draws than
        the frame method's).

        Parameters
        ----------
        y_true
            Column of the actual labels.
        index
            Date or Datetime column placing each row in time.
        every
            Bucket length and window step, a polars duration of one unit: ``"1h"``,
            ``"1d"``, ``"1w"``, ``"1mo"``...  Buckets start at ``dt.truncate(every)``.
        period
            Window length, a whole number of ``every`` in a unit of the same kind
            (``every="1d", period="7d"``: trailing 7-day windows, one per day).
            Default: ``every`` (tumbling windows).
        metrics
            Names from ``summary`` (``n``, ``accuracy``, ``balanced_accuracy``,
            ``mcc``, ``cohen_kappa``), ``averages`` (``precision_macro``,
            ``f1_weighted``, ... : ``<score>_{micro,macro,weighted}`` of each score
            column of :meth:`averages`; they read ``y_pred``), the ``pos_label``
            class's scores (``precision``, ``recall``, ``f1``, ... each score column
            of :meth:`averages`) and ``specificity`` (binary labels, as
            ``selection_rate``; they read ``y_pred``; a window without
            ``pos_label`` gets 0.0, specificity its negatives' share, as
            scikit-learn's ``zero_division=0``), ranking (``roc_auc``,
            ``average_precision``, ``ks``) and probability (``log_loss``,
            ``brier_score``, ``calibration_error``: :meth:`calibration_error`'s
            ``ece`` of 15 equal bins; binary): these read the score /
            probability of ``pos_label``, ``y_score``.  And the estimated ones,
            ``estimated_<m>`` for each metric of :meth:`estimated_performance`
            (``estimated_roc_auc``, ``estimated_precision``, ``estimated_recall``,
            ``estimated_f1``, ``estimated_jaccard``, ``estimated_fowlkes_mallows``,
            ``estimated_specificity``, ``estimated_accuracy``): a window's is
            :meth:`estimated_performance` on its current rows (labels not read), with
            the map fitted on ``reference``; they read ``y_pred`` and ``y_score``.
            Of ``{label: column}`` scores (multiclass) the estimated metrics are
            the averages over the classes of :meth:`estimated_performance`'s
            multiclass rows, named as the realized averages:
            ``estimated_<m>_micro`` / ``_macro`` / ``_weighted`` (``estimated_f1_macro``,
            ``estimated_roc_auc_macro``; no micro ROC AUC), and
            ``estimated_accuracy``.
            With an estimated metric, the realized metrics read the rows whose
            ``y_true`` is not null (the labels that have arrived): their windows
            stop where the labels do.
        y_pred, y_score
            Column of the predicted labels / of the score of ``pos_label``; or,
            for the estimated metrics alone, ``{label: column}`` scores of the
            classes (``pos_label`` refused there), as :meth:`estimated_performance`.
        by, weight, labels, pos_label
            As the frame methods.
        reference, calibration
            The estimated metrics' calibration, as :meth:`estimated_performance`'s:
            the labelled rows the isotonic map is fitted on (a DataFrame / LazyFrame
            holding ``y_true``, ``y_score``; or a Boolean expression marking them
            in this frame: they are then in no estimated window, and in the
            realized ones), or ``calibration=None`` (the scores are probabilities;
            no reference).  Only with estimated metrics.
        ci, n_boot, seed, ci_method
            Intervals per window, as :meth:`summary` / :meth:`averages` /
            :meth:`roc_auc` / :meth:`average_precision`.  ``ci_method`` None (the
            default): each metric's own default, DeLong for ``roc_auc``, the logit
            interval for ``average_precision``, Wilson / the delta method for the
            label metrics (as :meth:`summary`, :meth:`averages` and
            :meth:`per_class`); ``"bootstrap"`` or ``"poisson"`` (the Poisson
            bootstrap): every metric; ``"wilson"``: accuracy and the positive
            class's precision, recall, specificity and jaccard;
            ``"delong"``: roc_auc only; ``"logit"``: average_precision only.
            ``n``, ``ks``, ``log_loss``, ``brier_score`` and ``calibration_error``
            have none.  The estimated metrics' is their own, with ``ci_method``
            None: :meth:`estimated_performance`'s (the spread of the realized metric
            when each label is drawn Bernoulli(p), Categorical(p_1 .. p_K) of
            ``{label: column}`` scores).

        Returns
        -------
        LazyFrame
            ``*by, window_start, window_end, metric, value`` (+ ``low, high`` with
            ``ci``): one row per segment, window and metric, sorted by them
            (metrics in the order given).  ``value`` is Float64 for every metric,
            ``n`` too (a whole number of rows, exact below 2**53; cast it where a
            count is wanted: docs/schemas.md).  ``window_start`` is inclusive,
            ``window_end`` exclusive; windows end at the end of every bucket from
            the input's first to its last; a window without rows in a segment
            has no row.

        Examples
        --------
        >>> import datetime as dt, polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({
        ...     "day": [dt.date(2026, 1, d) for d in (1, 1, 2, 2, 3, 3)],
        ...     "y": [1, 0, 1, 1, 0, 0], "p": [1, 0, 0, 1, 0, 1],
        ... })
        >>> df.metrics.over_time("y", y_pred="p", index="day", every="1d", period="2d")[
        ...     "value"
        ... ].to_list()  # day 1 alone, days 1-2, days 2-3
        [1.0, 0.75, 0.5]
        """
        chosen = check_metrics(metrics, y_pred=y_pred, y_score=y_score)
        (calibration,) = checked("over_time", calibration=calibration)
        estimated = [m for m in chosen if m in estimated_windows.METRICS]
        _check_estimated(
            estimated, reference, calibration, y_true=y_true, ci=ci, ci_method=ci_method,
            class_scores=isinstance(y_score, Mapping), pos_label=pos_label,
        )  # fmt: skip
        w = over_time.windows(every, period)
        realized = [m for m in chosen if m not in estimated_windows.METRICS]
        wants_ci = interval_wanted(
            realized, ci=ci, n_boot=n_boot, ci_method=ci_method, weight=weight, seed=seed
        )
        ci_method, seed = resampling(ci_method, seed)  # "poisson": the bootstrap, its seed
        scored = score_columns(y_score)
        columns = {"y_true": y_true, "y_pred": y_pred, "weight": weight, "index": index}
        checks.check_not_named(columns, over_time.WINDOW_END)
        for column in scored:
            checks.check_not_named({"y_score": column}, over_time.WINDOW_END)
        segments = checks.normalize_by(by)
        checks.check_by(self._lf.collect_schema(), segments, names.output_columns("over_time"))
        end, time_zone = over_time.bucket_end(self._lf, index, w)
        # the inner code sees the segments under stand-in names (so a `by` named like
        # a summary column, "accuracy", is just a segment) and the bucket end
        taken = (y_true, y_pred, *scored, weight, index, over_time.WINDOW_END)
        stand_ins = names.stand_in_keys(segments, [c for c in taken if c is not None])
        lf = self._lf.with_columns(
            *(e.alias(k) for e, k in zip(segments.exprs, stand_ins, strict=True)),
            end.alias(over_time.WINDOW_END),
        )
        keys = [*stand_ins, over_time.WINDOW_END]
        reserved: list[str] = []
        options = {"ci": ci if wants_ci else None, "ci_method": ci_method}
        options |= {"n_boot": n_boot, "seed": seed}
        parts = []
        if estimated:
            assert y_pred is not None  # check_metrics
            assert y_score is not None
            parts += estimated_windows.estimated_windows(
                lf, y_pred, y_score, keys=keys, w=w, index=index, metrics=estimated,
                reference=reference, y_true=y_true, pos_label=pos_label, weight=weight,
                calibration=calibration, ci=options["ci"],
            )  # fmt: skip
            if len(estimated) < len(chosen):  # the realized: of the rows whose label arrived
                checks.check_columns(lf.collect_schema(), y_true=y_true)
                lf = lf.filter(pl.col(y_true).is_not_null())
        if any(m in over_time.SUMMARY or m in over_time.AVERAGED for m in chosen):
            checks.check_column_name("y_pred", y_pred)
            counts = confusion_counts(
                lf, y_true, y_pred, by=keys, labels=labels, weight=weight, reserved=reserved
            )
            parts += over_time.finish_labels(
                over_time.label_windows(counts, w, index), chosen, **options
            )
        if any(m in over_time.POSITIVE for m in chosen):
            assert y_pred is not None  # check_metrics
            binary, pos = groups_fairness.binary_confusion(
                lf, y_true, y_pred, by=keys, pos_label=pos_label, weight=weight, reserved=reserved
            )
            parts += over_time.finish_positive(
                over_time.label_windows(binary, w, index),
                pos,
                chosen,
                columns=(y_true, y_pred),
                **options,
            )
        if any(m in over_time.PROBABILITY or m in over_time.CALIBRATION for m in chosen):
            assert isinstance(y_score, str)  # check_metrics: one score column
            rows = _probability.Rows(
                lf,
                y_true,
                y_score,
                by=keys,
                pos_label=pos_label,
                weight=weight,
                reserved=reserved,
                binary_only=True,
                argument="y_score",
            )
            parts += over_time.finish_probabilities(rows, chosen, w, index, ci=options["ci"])
            if "calibration_error" in chosen:
                parts += over_time.finish_calibration(rows, w, index, ci=options["ci"])
        if any(m in over_time.RANKING for m in chosen):
            assert isinstance(y_score, str)  # check_metrics: one score column
            parts += over_time.ranking_windows(
                lf, y_true, y_score, keys=keys, w=w, index=index, metrics=chosen,
                pos_label=pos_label, weight=weight, reserved=reserved, **options,
            )  # fmt: skip
        result = over_time.assemble(parts, stand_ins, chosen, w, time_zone)
        return result.rename(dict(zip(stand_ins, segments.names, strict=True)))


def score_columns(y_score: object) -> list[str]:
    """The columns of ``y_score``: one, a ``{label: column}`` mapping's, or none."""
    if isinstance(y_score, Mapping):
        return [c for c in y_score.values() if isinstance(c, str)]
    return [] if y_score is None else [y_score]  # type: ignore[list-item]


def check_metrics(
    metrics: object, *, y_pred: str | None, y_score: object, where: str = "`metrics`"
) -> list[str]:
    """``over_time``'s ``metrics`` (:func:`over_time.check_metrics`, the estimated ones
    among them), each read from the form of ``y_score`` that gives it: one score column
    (binary) for ``estimated_<m>`` and the realized score metrics, ``{label: column}``
    scores for the averages over the classes ``estimated_<m>_<average>``."""
    chosen = over_time.check_metrics(
        metrics, y_pred=y_pred, y_score=y_score, estimated=estimated_windows.METRICS
    )
    forms.score_form(
        chosen,
        y_score,
        one_column=estimated_windows.ONE_COLUMN,
        class_scores=estimated_windows.AVERAGED,
        of_pos_label=estimated_windows.OF_POS_LABEL,
        where=where,
    )
    return chosen


def _check_estimated(
    chosen: list[str],
    reference: object,
    calibration: str | None,
    *,
    y_true: str,
    ci: float | None,
    ci_method: str | None,
    class_scores: bool,
    pos_label: object,
) -> None:
    """``over_time``'s options of the estimated metrics: ``reference`` / ``calibration``
    as :meth:`estimated_performance`'s, and only with estimated metrics; their
    intervals are their own (``ci_method`` None); of ``{label: column}`` scores
    (``class_scores``) no ``pos_label``, as :meth:`estimated_performance`'s."""
    checked("over_time", estimated=chosen, reference=reference)
    if not chosen:
        return
    if class_scores:  # each class is the positive one of its one-vs-rest problem
        estimated_multiclass.check_options(pos_label=pos_label)
    estimated.check_arguments(calibration, reference, y_true if calibration is not None else None)
    checked("over_time", estimated=chosen, ci=ci, ci_method=ci_method)


def interval_wanted(
    realized: list[str],
    *,
    ci: float | None,
    n_boot: int,
    ci_method: str | None,
    weight: str | None,
    seed: int | None,
) -> bool:
    """``over_time``'s interval options checked against its realized metrics (each
    ``ci_method`` gives intervals of some of them); True when intervals are asked for."""
    # metrics without intervals (n, ks, the losses, calibration_error) go with any method
    free = set(over_time.WITHOUT_INTERVAL)
    allowed = checks.ANALYTIC_CI.get(str(ci_method))
    if allowed is not None:
        allowed |= free  # a new set
    if ci_method == "wilson":  # and the positive class's proportions
        allowed |= over_time.WILSON
    checked("over_time", realized=realized, ci=ci, ci_method=ci_method, analytic=allowed, free=free)
    # None: each metric's default (the label metrics' the delta method); checked
    # as the bootstrap if one of them is
    scored = [m for m in realized if m in checks.CI_METHODS]  # roc_auc, average_precision
    defaults = {checks.default_ci_method(m) for m in scored} or {"delta"}
    method = ci_method or ("bootstrap" if "bootstrap" in defaults else defaults.pop())
    # "delta" only as the label metrics' default (explicitly: not a choice here)
    methods = ("bootstrap", "poisson", *checks.ANALYTIC_CI)
    methods += ("delta",) if ci_method is None else ()
    return _wants_ci(ci, n_boot, method, weight, seed=seed, methods=methods)
