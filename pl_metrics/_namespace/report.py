"""``html_report``: the one-page HTML evaluation report of a frame."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import polars as pl

from pl_metrics._core import checks
from pl_metrics._core.options import checked
from pl_metrics._drift import metrics as drift_metrics
from pl_metrics._groups import over_time
from pl_metrics._monitoring import check
from pl_metrics._report import build, sections, write
from pl_metrics._typing import BootstrapCiMethod, By, Score


class ReportMethods:
    _lf: pl.LazyFrame

    def html_report(
        self,
        y_true: str,
        y_pred: str | None = None,
        *,
        y_score: Score | None = None,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        ci: float | Literal["auto"] | None = "auto",
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: BootstrapCiMethod | None = None,
        bins: int | None = None,
        n_bins: int = 10,
        title: str = "Evaluation report",
        path: str | Path | None = None,
        progress: bool = False,
        reference: pl.DataFrame | pl.LazyFrame | pl.Expr | None = None,
        drift_columns: str | Sequence[str] | None = None,
        rules: str | Sequence[str] | None = None,
        index: str | None = None,
        every: str | None = None,
    ) -> str:
        """A self-contained HTML page of every evaluation of the rows, per segment.

        One file that opens offline (the Vega JavaScript is inlined): headline
        numbers with intervals; per-segment tables (sortable; the segments whose
        accuracy differs from all rows' after Holm's adjustment highlighted) and
        an interval "forest" chart; the per-class report and the confusion
        matrix; with scores, ROC AUC per segment, ROC and precision-recall
        curves, the reliability diagram and calibration error, precision /
        recall / F1 against the threshold, gains / lift and KS; with binary
        labels and segments, fairlearn's disparity metrics between segments.

        Every number is a frame method's (``summary``, ``compare``, ``report``,
        ``confusion_matrix``, ``fairness``, ``group_rates``, ``roc_auc``,
        ``average_precision``, ``log_loss``, ``brier_score``, ``roc_curve``,
        ``pr_curve``, ``calibration_curve``, ``calibration_error``,
        ``thresholds``, ``best_threshold``, ``gains``, ``ks``; with ``index``,
        ``over_time``) with the same
        arguments, computed by streaming queries over the input: a LazyFrame
        over Parquet larger than memory works (each section reads the input once).

        Parameters
        ----------
        y_true
            Column of the actual labels.
        y_pred
            Column of the predicted labels (the label sections), or None.
        y_score
            Column of the scores of ``pos_label`` (binary: the ranking,
            calibration, threshold and gains sections), or ``{label: column}``
            (multiclass: one-vs-rest ROC AUC), or None.  At least one of
            ``y_pred`` and ``y_score`` is needed.
        by
            Segment column(s) or expression(s), as in every method.
        pos_label, weight, bins
            As in the methods (``bins``: approximate ranking metrics).
        ci, n_boot, seed, ci_method
            Intervals of the headline and per-segment numbers and the segment
            comparison.  ``ci_method=None`` (default): each method's default, a
            ``group_by``'s or a sort's cost (Wilson / the delta method for the
            summary and the per-class table, DeLong and logit for the scores,
            Agresti-Caffo for the comparison of accuracy); ``"bootstrap"``: the
            bootstrap (``n_boot`` replicates, ``seed``) wherever a method offers
            it; ``"poisson"``: the Poisson bootstrap there.  ``ci="auto"``
            (default): 95% intervals without ``weight``, none with it (the
            intervals count un-weighted rows; the page says so); ``None``: none.
        n_bins
            Bins of the reliability diagram and the calibration error.
        title
            The page's title.
        path
            Also write the page to this file (UTF-8).
        progress
            Print one line per step on stderr (for long inputs).
        reference
            Add a drift section (:meth:`drift` and :meth:`drift_bins`, per segment
            and over all rows): the reference rows as a DataFrame / LazyFrame (the
            training data, say), or a Boolean expression marking them in this frame
            (``pl.col("model_version") == "v1"``): then every other section
            evaluates the other rows only.  None (default): no drift section.
        drift_columns
            The columns the drift section compares (they must be in the reference
            too); default: the report's own columns (``y_true``, ``y_pred``, the
            score column(s)).
        rules
            Quality gates at the top of the page: :meth:`check`'s rules
            (``"roc_auc >= 0.8"``, ``"psi(income) < 0.2"``, ``"recall >= reference -
            0.05"``) on the report's columns, ``by``, ``reference`` and ``ci``; the
            failing and inconclusive checks in a table, the passing ones folded.
        index, every
            Add a section of performance over time (:meth:`over_time`, tumbling
            windows of ``every``, ``"1w"``, of the Date / Datetime column ``index``,
            over all rows): the ROC AUC of a binary score and the F1 of
            ``pos_label`` (the accuracy without a binary score) per window, drawn
            against the window's end.  With ``reference`` (and ``y_pred`` and a
            binary ``y_score``), the estimated metrics beside the realized ones
            (``estimated_roc_auc``, ``estimated_f1``: the scores calibrated on the
            reference rows, as :meth:`estimated_performance`), and every realized
            number of the page reads the rows whose ``y_true`` has arrived (not
            null): the rows without a label count in the estimates only.

        Returns
        -------
        str
            The HTML page.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 1, 1, 0, 1, 0], "s": [0.1, 0.8, 0.6, 0.4, 0.3, 0.2]})
        >>> page = df.metrics.html_report("y", y_score="s", ci=None)
        >>> page.startswith("<!DOCTYPE html>") and "ROC AUC" in page
        True
        """
        spec = _spec(
            self._lf,
            type(self),
            y_true,
            y_pred,
            y_score=y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
            bins=bins,
            n_bins=n_bins,
            reference=reference,
            drift_columns=drift_columns,
            rules=rules,
            index=index,
            every=every,
        )
        checked("html_report", title=title, progress=progress)
        page = build(self._lf, spec, title=title, progress=progress)
        if path is not None:
            write(page, path)
        return page


def _spec(
    lf: pl.LazyFrame,
    metrics: Callable[[pl.LazyFrame], Any],
    y_true: str,
    y_pred: str | None,
    *,
    y_score: Score | None,
    by: By,
    pos_label: object,
    weight: str | None,
    ci: float | Literal["auto"] | None,
    n_boot: int,
    seed: int | None,
    ci_method: str | None,
    bins: int | None,
    n_bins: int,
    reference: object = None,
    drift_columns: object = None,
    rules: object = None,
    index: str | None = None,
    every: str | None = None,
) -> sections.Spec:
    """Check what needs no data (the methods check the rest) and normalise ``by``."""
    checks.require_plot_extra("html_report")
    checked("html_report", y_pred=y_pred, y_score=y_score, y_true=y_true, ci=ci, weight=weight)
    if isinstance(ci, str):
        ci = 0.95 if weight is None else None
    checks.check_ci(
        ci, n_boot, "bootstrap" if ci_method is None else ci_method, ("bootstrap", "poisson")
    )
    _, n_bins = checked("html_report", seed=seed, n_bins=n_bins)
    segments = checks.normalize_by(by)
    schema = lf.collect_schema()
    checks.check_by(schema, segments, reserved=sections.table_columns())
    for column in (y_true, y_pred):
        if column is not None and column in schema:  # missing: the methods name it
            checks.check_one_label_per_row(column, schema[column])  # single-label sections
    drifted = _drift_columns(reference, drift_columns, (y_true, y_pred, y_score))
    return sections.Spec(
        y_true=y_true,
        y_pred=y_pred,
        y_score=y_score,
        by=list(segments.given),
        by_names=list(segments.names),
        pos_label=pos_label,
        weight=weight,
        ci=ci,
        n_boot=n_boot,
        seed=seed,
        ci_method=ci_method,
        bins=bins,
        n_bins=n_bins,
        alpha=1.0 - ci if ci is not None else 0.05,
        metrics=metrics,
        reference=reference,  # type: ignore[arg-type]
        drift_columns=drifted,
        rules=() if rules is None else tuple(r.text for r in check.parse_rules(rules)),
        index=index,
        every=_windows(index, every, drawn=y_pred is not None or isinstance(y_score, str)),
    )


def _windows(index: str | None, every: str | None, *, drawn: bool) -> str | None:
    """``index`` and ``every`` go together (the over-time section); ``every`` checked as
    :meth:`over_time` checks it; ``drawn``: the section has a metric to draw (predicted
    labels, or a binary score)."""
    checked("html_report", index=index, every=every)
    if every is not None:
        checks.check_column_name("index", index)
        over_time.windows(every, None)
        checked("html_report", every=every, drawn=drawn)
    return every


def _drift_columns(
    reference: object, drift_columns: object, own: tuple[str, str | None, Score | None]
) -> tuple[str, ...]:
    """The drift section's columns (``own``: the report's y_true, y_pred, y_score by
    default); none without ``reference``."""
    checked("html_report", reference=reference, drift_columns=drift_columns)
    if reference is None:
        return ()
    if not isinstance(reference, (pl.DataFrame, pl.LazyFrame, pl.Expr)):
        raise checks.Bad.reference_type(reference)
    if drift_columns is None:
        y_true, y_pred, y_score = own
        scores = y_score.values() if isinstance(y_score, Mapping) else [y_score]
        drift_columns = [c for c in dict.fromkeys([y_true, y_pred, *scores]) if c is not None]
    return tuple(drift_metrics.check_column_list(drift_columns, argument="drift_columns"))
