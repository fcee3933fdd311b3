"""The ranking methods of ``.metrics``: roc_auc, average_precision, roc_curve, pr_curve
and their mergeable state, score_counts."""

from __future__ import annotations

import polars as pl

from pl_metrics import _ranking as rk
from pl_metrics._core import checks as v
from pl_metrics._core import names
from pl_metrics._core import scores as sc
from pl_metrics._intervals import attach as iv
from pl_metrics._namespace._common import wants_ci as _wants_ci
from pl_metrics._typing import (
    AucAverage,
    AucCiMethod,
    BootstrapCiMethod,
    By,
    MultiClass,
    Score,
)


class RankingMethods:
    """Metrics of scores, on a LazyFrame."""

    _lf: pl.LazyFrame

    def _binary(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By,
        pos_label: object,
        weight: str | None,
        method: str,
        bins: int | None = None,
        ci: bool = False,
        pos_label_present: bool = True,
    ) -> sc.ScoreCounts:
        return sc.binary_score_counts(
            self._lf,
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            reserved=names.output_columns(method, ci=ci),
            bins=v.check_bins(bins),
            pos_label_present=pos_label_present,
        )

    def roc_auc(
        self,
        y_true: str,
        y_score: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        bins: int | None = None,
        multi_class: MultiClass = "ovr",
        average: AucAverage = "macro",
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: AucCiMethod = "bootstrap",
    ) -> pl.LazyFrame:
        """Area under the ROC curve, per segment.

        Parameters
        ----------
        y_true
            Column of the actual labels.
        y_score
            Binary: the column of scores of ``pos_label``.  Multiclass: a mapping
            ``{label: column}`` of per-class score columns (one-vs-rest).
        by
            Segment column(s) or expression(s), as in :meth:`confusion_matrix`.
        pos_label
            The positive class (binary); default 1 for numbers, True for booleans,
            required for string labels.
        weight
            Column of non-negative sample weights.
        bins
            Approximate mode (binary, scores in [0, 1]): count scores in ``bins``
            equal bins, so the state has at most ``bins + 1`` rows per segment
            whatever the number of rows.  Adds ``roc_auc_error_bound``, a
            guaranteed bound on ``|approximate - exact|`` (within-bin pairs of a
            positive and a negative, counted one half, are the only error).
            The curves are then the exact curves at the bin edges.
        multi_class
            ``"ovr"`` (one-vs-rest) or ``"ovo"`` (one-vs-one, Hand & Till; no weights).
        average
            Multiclass: ``"macro"`` (mean over classes, or pairs) or ``"weighted"``
            (by the (weighted) prevalence of the class, or of the pair).

        Returns
        -------
        LazyFrame
            ``*by, roc_auc`` (Float64); null for a segment whose ``y_true`` holds a
            single class (scikit-learn raises there).

        Notes
        -----
        Tied scores form one threshold; the value equals the trapezoid under
        ``sklearn.metrics.roc_curve`` and the Mann-Whitney U / (P N) with ties
        counted one half.  Multiclass: a class absent from a segment is left out
        of that segment's average (scikit-learn raises).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.roc_auc("y", "s")
        shape: (1, 1)
        ┌─────────┐
        │ roc_auc │
        │ ---     │
        │ f64     │
        ╞═════════╡
        │ 0.75    │
        └─────────┘
        """
        v.check_choice("multi_class", multi_class, ("ovr", "ovo"))
        v.check_choice("average", average, ("macro", "weighted"))
        v.check_bins(bins)
        if isinstance(y_score, str):
            wants_ci = _wants_ci(
                ci, n_boot, ci_method, weight, seed=seed, methods=("bootstrap", "delong")
            )
            counts = self._binary(
                y_true,
                y_score,
                by=by,
                pos_label=pos_label,
                weight=weight,
                bins=bins,
                method="roc_auc",
                ci=wants_ci,
            )
            point = rk.roc_auc(counts, error_bound=bins is not None)
            if wants_ci:
                if ci_method == "delong":
                    return iv.delong(counts, point, ci)
                return iv.bootstrap_scores(
                    counts, point, "roc_auc", ci=ci, n_boot=n_boot, seed=seed
                )
            return point
        if ci is not None:
            msg = "`ci` is for binary ROC AUC (a column name as `y_score`)"
            raise ValueError(msg)
        if bins is not None:
            msg = "`bins` is for binary scores (a column name as `y_score`)"
            raise ValueError(msg)
        if multi_class == "ovo" and weight is not None:
            msg = "`weight` is not supported with multi_class='ovo' (as in scikit-learn)"
            raise ValueError(msg)
        counts = sc.multiclass_score_counts(
            self._lf,
            y_true,
            v.check_score_map("y_score", y_score),
            by=by,
            weight=weight,
            reserved=names.output_columns("roc_auc"),
        )
        return rk.roc_auc_multiclass(counts, multi_class=multi_class, average=average)

    def average_precision(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        bins: int | None = None,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: BootstrapCiMethod = "bootstrap",
    ) -> pl.LazyFrame:
        """Average precision (scikit-learn's step-wise sum, no interpolation).

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_auc` (binary).

        Returns
        -------
        LazyFrame
            ``*by, average_precision``: sum over thresholds of
            (recall_i - recall_{i-1}) x precision_i; 0.0 for a segment without
            positives, 1.0 for one without negatives (scikit-learn's values).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.average_precision("y", "s")["average_precision"].round(6).to_list()
        [0.833333]
        """
        wants_ci = _wants_ci(ci, n_boot, ci_method, weight, seed=seed, methods=("bootstrap",))
        counts = self._binary(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            method="average_precision",
            ci=wants_ci,
        )
        point = rk.average_precision(counts)
        if wants_ci:
            return iv.bootstrap_scores(
                counts,
                point,
                "average_precision",
                ci=ci,
                n_boot=n_boot,
                seed=seed,
            )
        return point

    def roc_curve(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        bins: int | None = None,
        drop_intermediate: bool = True,
    ) -> pl.LazyFrame:
        """The ROC curve: the points of ``sklearn.metrics.roc_curve``, per segment.

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_auc` (binary).
        drop_intermediate
            Drop the thresholds that lie on a straight segment of the curve
            (scikit-learn's default); False keeps every distinct score.

        Returns
        -------
        LazyFrame
            ``*by, threshold, fpr, tpr``, thresholds descending, the first +inf
            (fpr = tpr = 0).  fpr (tpr) is NaN for a segment without negatives
            (positives), as in scikit-learn.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.roc_curve("y", "s")
        shape: (5, 3)
        ┌───────────┬─────┬─────┐
        │ threshold ┆ fpr ┆ tpr │
        │ ---       ┆ --- ┆ --- │
        │ f64       ┆ f64 ┆ f64 │
        ╞═══════════╪═════╪═════╡
        │ inf       ┆ 0.0 ┆ 0.0 │
        │ 0.8       ┆ 0.0 ┆ 0.5 │
        │ 0.4       ┆ 0.5 ┆ 0.5 │
        │ 0.35      ┆ 0.5 ┆ 1.0 │
        │ 0.1       ┆ 1.0 ┆ 1.0 │
        └───────────┴─────┴─────┘
        """
        counts = self._binary(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            method="roc_curve",
        )
        return rk.roc_curve(counts, drop_intermediate=drop_intermediate)

    def pr_curve(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        bins: int | None = None,
        drop_intermediate: bool = False,
    ) -> pl.LazyFrame:
        """The precision-recall curve: the points of ``sklearn.metrics.precision_recall_curve``.

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_auc` (binary).
        drop_intermediate
            Keep only the first and last threshold of each run of thresholds with
            equal true positives (equal recall: a vertical segment of the curve),
            and the curve's first and last threshold (scikit-learn's option,
            default False).

        Returns
        -------
        LazyFrame
            ``*by, threshold, precision, recall``: thresholds ascending, then the
            final (precision 1, recall 0) point with a null threshold.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.pr_curve("y", "s")["recall"].to_list()
        [1.0, 1.0, 0.5, 0.5, 0.0]
        """
        drop_intermediate = v.check_flag("drop_intermediate", drop_intermediate)
        counts = self._binary(
            y_true, y_score, by=by, pos_label=pos_label, weight=weight, bins=bins, method="pr_curve"
        )
        return rk.pr_curve(counts, drop_intermediate=drop_intermediate)

    def score_counts(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        bins: int | None = None,
    ) -> pl.LazyFrame:
        """Per-score positive / negative counts as a mergeable state: ``*by, score, pos, neg``.

        One row per (segment, distinct score); with ``bins`` at most ``bins + 1``
        rows per segment.  Merge by concatenating; finish with
        :func:`pl_metrics.from_score_counts`.
        """
        counts = self._binary(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            method="score_counts",
            pos_label_present=False,
        )
        return counts.finish(counts.frame).rename(sc.PUBLIC_STATE)
