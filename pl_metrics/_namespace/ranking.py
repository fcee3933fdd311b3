"""The ranking methods of ``.metrics``: roc_auc, gini, average_precision, roc_curve, pr_curve
and their mergeable state, score_counts."""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pl_metrics._core import scores
from pl_metrics._core.options import checked
from pl_metrics._intervals import ranked_scores
from pl_metrics._namespace._common import derived
from pl_metrics._ranking import from_counts as ranking_from_counts
from pl_metrics._ranking import multiclass
from pl_metrics._typing import (
    ApCiMethod,
    AucAverage,
    AucCiMethod,
    By,
    Labels,
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
        sortable: bool = False,
    ) -> scores.ScoreCounts:
        return ranked_scores.binary_counts(
            self._lf,
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            method=method,
            bins=bins,
            ci=ci,
            pos_label_present=pos_label_present,
            sortable=sortable,
        )

    def roc_auc(
        self,
        y_true: str | Mapping[object, str],
        y_score: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        labels: Labels = None,
        bins: int | None = None,
        multi_class: MultiClass = "ovr",
        average: AucAverage | None = "macro",
        max_fpr: float | None = None,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: AucCiMethod = "delong",
    ) -> pl.LazyFrame:
        """Area under the ROC curve, per segment.

        Parameters
        ----------
        y_true
            Column of the actual labels.  Multilabel: a List column of each row's
            labels, or ``{label: indicator column}`` (see :meth:`coverage_error`).
        y_score
            Binary: the column of scores of ``pos_label``.  Multiclass: a mapping
            ``{label: column}`` of per-class score columns (one-vs-rest).
            Multilabel: ``{label: column}`` or a List column of scores aligned with
            ``labels``.
        by
            Segment column(s) or expression(s), as in :meth:`confusion_matrix`.
        pos_label
            The positive class (binary); default 1 for numbers, True for booleans,
            required for string labels.
        weight
            Column of non-negative sample weights.
        labels
            Multilabel: the labels of a List column of scores, in its order
            (required then), or None with a mapping.
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
            (by the (weighted) prevalence of the class, or of the pair); one-vs-rest
            only: ``"micro"`` (the label-binarized ``y_true`` and the scores
            raveled into one binary problem) or None (one row per class, with a
            ``label`` column: each class's AUC against the rest).  Ignored for
            binary scores, as in scikit-learn.  Multilabel: ``"micro"`` (every
            (row, label) cell one binary problem), ``"macro"``, ``"weighted"`` (by
            each label's (weighted) number of positives), ``"samples"`` (the mean
            over the rows of each row's AUC over its labels) or None (one row per
            label); a label (row) of one class has no AUC (null) and is left out of
            the mean, as torchmetrics' macro AUROC does - **unlike scikit-learn**,
            whose mean is then NaN (with a warning): a mean over the defined labels
            instead of no number.
        max_fpr
            Binary: the partial AUC over ``fpr <= max_fpr`` (in (0, 1]), McClish's
            standardisation ``0.5 (1 + (A - m^2/2) / (m - m^2/2))`` (0.5 for a
            chance curve, 1 for a perfect one), as ``roc_auc_score(max_fpr=m)``.
            Multilabel: each label's standardised partial AUC (``average=None``),
            averaged as the full AUC, or that of the micro cells, or (``"samples"``)
            each row's over its labels, averaged over the rows, as scikit-learn.
            Refused for multiclass scores
            (scikit-learn raises), with ``bins`` and with ``ci``.
        ci, n_boot, seed, ci_method
            Un-weighted: ``roc_auc_low`` / ``roc_auc_high`` at level ``ci``.
            Multiclass (one-vs-rest, DeLong only): per class with
            ``average=None``; for the macro / weighted mean, DeLong's variance
            of each class's AUC and the covariances between the classes from
            the rows' placements (each row a positive of its class and a
            negative of the others; see docs/intervals.md).
            ``ci_method="delong"`` (the default: DeLong's variance of the
            Mann-Whitney statistic, a normal interval clipped to [0, 1], about the
            cost of the AUC itself; null with fewer than two positives or
            negatives; zero-width at an AUC of 0 or 1, where every placement is
            equal) or ``"bootstrap"`` (``n_boot`` percentile replicates of the
            rows, seeded by ``seed``; for small segments or AUCs near 0 or 1,
            where the normal approximation is poor) or ``"poisson"`` (the Poisson
            bootstrap: each row's count Poisson(1)).  See docs/intervals.md.

        Returns
        -------
        LazyFrame
            ``*by, roc_auc`` (Float64); null for a segment whose ``y_true`` holds a
            single class (scikit-learn returns NaN there).  With ``average=None``:
            ``*by, label, roc_auc``, one row per class of ``y_score`` (sorted),
            null for a class absent from the segment.  With ``bins``: also
            ``roc_auc_error_bound``; with ``ci``: also ``roc_auc_low``,
            ``roc_auc_high``.

        Notes
        -----
        Tied scores form one threshold; the value equals the trapezoid under
        ``sklearn.metrics.roc_curve`` and the Mann-Whitney U / (P N) with ties
        counted one half.  Multiclass: a class absent from a segment is left out
        of that segment's average (scikit-learn raises or returns NaN there).

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
        return ranked_scores.roc_auc(
            self._lf,
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            labels=labels,
            bins=bins,
            multi_class=multi_class,
            average=average,
            max_fpr=max_fpr,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        )

    def gini(
        self,
        y_true: str | Mapping[object, str],
        y_score: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        labels: Labels = None,
        bins: int | None = None,
        multi_class: MultiClass = "ovr",
        average: AucAverage | None = "macro",
        max_fpr: float | None = None,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: AucCiMethod = "delong",
    ) -> pl.LazyFrame:
        """The Gini coefficient (Somers' D), 2 x ROC AUC - 1, per segment: credit
        scoring's headline, 0 for a score that ranks at random, 1 for a perfect one.

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, labels, bins, multi_class, average, max_fpr
            As :meth:`roc_auc`, whose area this maps (with ``max_fpr``: 2 x
            McClish's standardised partial area - 1).
        ci, n_boot, seed, ci_method
            As :meth:`roc_auc`: ``gini_low`` / ``gini_high`` are its bounds
            mapped (DeLong's by default), ``gini_error_bound`` (``bins``) twice
            its bound.

        Returns
        -------
        LazyFrame
            ``*by, gini`` (Float64), and every other column as :meth:`roc_auc`
            writes it (``label`` with ``average=None``; ``gini_error_bound`` with
            ``bins``: twice the AUC's; ``gini_low``, ``gini_high`` with ``ci``);
            null where the AUC is.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.gini("y", "s")["gini"].item()
        0.5
        """

        def auc(segments: object) -> pl.LazyFrame:
            return self.roc_auc(
                y_true,
                y_score,
                by=segments,  # type: ignore[arg-type]
                pos_label=pos_label,
                weight=weight,
                labels=labels,
                bins=bins,
                multi_class=multi_class,
                average=average,
                max_fpr=max_fpr,
                ci=ci,
                n_boot=n_boot,
                seed=seed,
                ci_method=ci_method,
            )

        return derived(self._lf, "gini", by, auc, ci=ci is not None)

    def average_precision(
        self,
        y_true: str | Mapping[object, str],
        y_score: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        labels: Labels = None,
        bins: int | None = None,
        average: AucAverage | None = "macro",
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: ApCiMethod = "logit",
    ) -> pl.LazyFrame:
        """Average precision (scikit-learn's step-wise sum, no interpolation).

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_auc`: binary, or ``{label: column}`` (one-vs-rest).
        average
            Multiclass (``{label: column}``), as ``average_precision_score`` of the
            label-binarized ``y_true``: ``"macro"`` (mean over the classes of
            ``y_score``), ``"weighted"`` (by their (weighted) prevalence),
            ``"micro"`` (the indicator matrix and the scores raveled) or None (one
            row per class).  Ignored for binary scores.  Multilabel (a List or
            mapping ``y_true``): as :meth:`roc_auc`; every label has its value
            (0 without positives, scikit-learn's), ``"weighted"`` is 0 when no
            label has a positive, ``"samples"`` averages each row's AP (0 for a
            row without true labels).
        ci, n_boot, seed, ci_method
            Binary, un-weighted: ``average_precision_low`` / ``_high`` at level
            ``ci``.  ``ci_method="logit"`` (the default: with AP = theta,
            ``expit(logit(theta) -+ t se / (theta (1 - theta)))``, se the delta
            method's standard error of the AP over the rows, t Student's quantile
            at its Satterthwaite degrees of freedom; where se is 0, a perfect
            ranking, Wilson's interval with P (P + 1) trials, P the positives;
            null without positives: docs/intervals.md) or ``"bootstrap"``
            (``n_boot`` percentile replicates of the rows, seeded by ``seed``)
            or ``"poisson"`` (the Poisson bootstrap: each row's count
            Poisson(1)) or ``"boyd"`` (Boyd, Eng & Page 2013, the default
            before: ``expit(logit(theta) -+ z / sqrt(P theta (1 - theta)))``;
            far too wide near theta = 1, [0, 1] at 1).

        Returns
        -------
        LazyFrame
            ``*by, average_precision``: sum over thresholds of
            (recall_i - recall_{i-1}) x precision_i; 0.0 for a segment without
            positives, 1.0 for one without negatives (scikit-learn's values).
            With ``average=None``: ``*by, label, average_precision``, one row per
            class.  A class (or label) without positives in a segment has the AP
            0.0 in every form, counted in the macro mean: scikit-learn's value for
            such a column of a ``{label: indicator}`` ``y_true`` (for multiclass
            ``y_true`` it refuses a score column of an absent class), so the
            multiclass and the multilabel form of the same data agree.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.average_precision("y", "s")["average_precision"].round(6).to_list()
        [0.833333]
        >>> three = pl.DataFrame(
        ...     {"y": ["a", "b", "c", "a"], "pa": [0.6, 0.2, 0.1, 0.3],
        ...      "pb": [0.3, 0.5, 0.3, 0.3], "pc": [0.1, 0.3, 0.6, 0.4]}
        ... )
        >>> three.metrics.average_precision(
        ...     "y", {"a": "pa", "b": "pb", "c": "pc"}, average=None
        ... )["average_precision"].round(6).to_list()
        [1.0, 1.0, 1.0]
        """
        return ranked_scores.average_precision(
            self._lf,
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            labels=labels,
            bins=bins,
            average=average,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        )

    def roc_curve(
        self,
        y_true: str,
        y_score: Score,
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
            As :meth:`roc_auc`: binary, or ``{label: column}`` for the one-vs-rest
            curve of every class.
        drop_intermediate
            Drop the thresholds that lie on a straight segment of the curve
            (scikit-learn's default); False keeps every distinct score.

        Returns
        -------
        LazyFrame
            ``*by, threshold, fpr, tpr``, thresholds descending, the first +inf
            (fpr = tpr = 0).  fpr (tpr) is NaN for a segment without negatives
            (positives), as in scikit-learn.  With ``{label: column}``:
            ``*by, label, threshold, fpr, tpr``, each class's curve against the
            rest (``roc_curve(y_true == label, score)``); :func:`pl_metrics.plot.roc_curve`
            draws one line per class.

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
        bins, drop_intermediate = checked(
            "roc_curve", bins=bins, drop_intermediate=drop_intermediate
        )
        if not isinstance(y_score, str):
            multiclass.check_options(pos_label=pos_label, bins=bins)
            state = multiclass.counts(
                self._lf, y_true, y_score, by=by, weight=weight, method="roc_curve"
            )
            return multiclass.roc_curve(state, drop_intermediate=drop_intermediate)
        counts = self._binary(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            method="roc_curve",
            sortable=True,
        )
        return ranking_from_counts.roc_curve(counts, drop_intermediate=drop_intermediate)

    def pr_curve(
        self,
        y_true: str,
        y_score: Score,
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
            As :meth:`roc_curve`: binary, or ``{label: column}`` (one-vs-rest).
        drop_intermediate
            Keep only the first and last threshold of each run of thresholds with
            equal true positives (equal recall: a vertical segment of the curve),
            and the curve's first and last threshold (scikit-learn's option,
            default False).

        Returns
        -------
        LazyFrame
            ``*by, threshold, precision, recall``: thresholds ascending, then the
            final (precision 1, recall 0) point with a null threshold.  With
            ``{label: column}``: ``*by, label, threshold, precision, recall``, each
            class's curve against the rest (recall 1 for a class absent from the
            segment, as scikit-learn's binary curve without positives).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.pr_curve("y", "s")["recall"].to_list()
        [1.0, 1.0, 0.5, 0.5, 0.0]
        """
        bins, drop_intermediate = checked(
            "pr_curve", bins=bins, drop_intermediate=drop_intermediate
        )
        if not isinstance(y_score, str):
            multiclass.check_options(pos_label=pos_label, bins=bins)
            state = multiclass.counts(
                self._lf, y_true, y_score, by=by, weight=weight, method="pr_curve"
            )
            return multiclass.pr_curve(state, drop_intermediate=drop_intermediate)
        counts = self._binary(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            method="pr_curve",
            sortable=True,
        )
        return ranking_from_counts.pr_curve(counts, drop_intermediate=drop_intermediate)

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

        Returns
        -------
        LazyFrame
            ``*by, score, pos, neg``: ``score`` Float64 (the lower edge of its bin
            with ``bins``), ``pos`` / ``neg`` the rows of ``pos_label`` and of the
            other labels, Int64 (Float64, the summed weights, with ``weight``).
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
        return counts.finish(counts.frame).rename(scores.PUBLIC_STATE)
