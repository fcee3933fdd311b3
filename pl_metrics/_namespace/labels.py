"""The confusion-matrix methods of ``.metrics``: confusion_matrix, per_class, averages,
report, summary and their mergeable state, counts."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pl_metrics import _classification
from pl_metrics._core import checks, names
from pl_metrics._core.checks import wants_ci as _wants_ci
from pl_metrics._core.confusion import Counts, chance_adjusted_summary, confusion_counts
from pl_metrics._core.names import COUNTS_STATE
from pl_metrics._core.options import checked
from pl_metrics._intervals import attach
from pl_metrics._intervals.sampling import resampling
from pl_metrics._namespace import multilabel
from pl_metrics._typing import (
    AverageCiMethod,
    By,
    CiMethod,
    ExtraScore,
    KappaWeights,
    LabelCiMethod,
    Labels,
    Normalize,
    SummaryCiMethod,
    Target,
)


class LabelMethods:
    """Metrics of predicted labels, on a LazyFrame."""

    _lf: pl.LazyFrame

    def _counts(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By,
        labels: Labels,
        weight: str | None,
        method: str,
        beta: float = 1.0,
        ci: bool = False,
    ) -> Counts:
        reserved = names.output_columns(method, beta=beta, ci=ci)
        return confusion_counts(
            self._lf, y_true, y_pred, by=by, labels=labels, weight=weight, reserved=reserved
        )

    def _label_scores(
        self,
        method: str,
        y_true: Target,
        y_pred: Target,
        *,
        by: By,
        labels: Labels,
        weight: str | None,
        beta: float,
        zero_division: float,
        extra_scores: ExtraScore | Sequence[ExtraScore],
        ci: float | None,
        n_boot: int,
        seed: int | None,
        ci_method: CiMethod | None,
    ) -> pl.LazyFrame:
        """per_class / averages / report: options, counts, point estimates, intervals;
        the opt-in scores not asked for left out before the intervals (multilabel: at
        the end)."""
        b, zd, extra = checked(
            method, beta=beta, zero_division=zero_division, extra_scores=extra_scores
        )
        methods = checks.CI_METHODS[method]
        is_multilabel = multilabel.is_multilabel(self._lf, y_true)
        if ci_method is None:  # the multilabel intervals are bootstraps of rows
            ci_method = "bootstrap" if is_multilabel else methods[0]
        wants_ci = _wants_ci(ci, n_boot, ci_method, weight, seed=seed, methods=methods)
        ci_method, seed = resampling(ci_method, seed)  # "poisson": the bootstrap, its seed
        if is_multilabel:
            multilabel.refuse_ci(ci, method, ci_method)
            scores = multilabel.label_scores(
                self._lf,
                method,
                y_true,
                y_pred,
                by=by,
                labels=labels,
                weight=weight,
                beta=b,
                zero_division=zd,
                ci=ci if wants_ci else None,
                n_boot=n_boot,
                seed=seed,
            )
            return names.without_scores(scores, method, extra, ci=wants_ci)
        counts = self._counts(
            checks.check_column_name("y_true", y_true),
            checks.check_column_name("y_pred", y_pred),
            by=by,
            labels=labels,
            weight=weight,
            method=method,
            beta=b,
            ci=wants_ci,
        )
        scores = attach.finish_labels(
            counts,
            method,
            beta=b,
            zero_division=zd,
            ci=ci if wants_ci else None,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
            extra_scores=extra,
        )
        return scores

    def confusion_matrix(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        normalize: Normalize | None = None,
    ) -> pl.LazyFrame:
        """Confusion counts, one row per (actual, predicted) pair, zero cells included.

        Parameters
        ----------
        y_true, y_pred
            Columns of the actual and predicted class labels.
        by
            Segment column(s): a name, a polars expression, or a list of them, as
            in ``group_by`` (e.g. ``pl.col("ts").dt.truncate("1w")``, evaluated on
            the input rows).  The result starts with them, each named by its
            output name (name a computed one with ``.alias``), and is sorted by them.
        labels
            Classes and their order; ``None`` is the sorted union of the labels seen
            in each segment.  Rows with a label outside ``labels`` are not counted
            (as ``sklearn.metrics.confusion_matrix``).
        weight
            Column of non-negative sample weights; counts become Float64 sums.
        normalize
            ``None``, ``"true"``, ``"pred"`` or ``"all"``: also a ``normalized``
            column, the count divided by its row's (actual), column's (predicted)
            or the segment's total; 0.0 where that total is 0 (scikit-learn's
            ``normalize``).  ``count`` stays the count.

        Returns
        -------
        LazyFrame
            ``*by, actual, predicted, count`` (count: Int64, Float64 with weights)
            [``, normalized``], sorted by segment, then actual and predicted in label
            order.  Pivoting gives ``sklearn.metrics.confusion_matrix``.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": ["a", "b", "b"], "p": ["a", "a", "b"]})
        >>> df.metrics.confusion_matrix("t", "p")
        shape: (4, 3)
        ┌────────┬───────────┬───────┐
        │ actual ┆ predicted ┆ count │
        │ ---    ┆ ---       ┆ ---   │
        │ str    ┆ str       ┆ i64   │
        ╞════════╪═══════════╪═══════╡
        │ a      ┆ a         ┆ 1     │
        │ a      ┆ b         ┆ 0     │
        │ b      ┆ a         ┆ 1     │
        │ b      ┆ b         ┆ 1     │
        └────────┴───────────┴───────┘
        >>> df.metrics.confusion_matrix("t", "p", normalize="true")["normalized"].to_list()
        [1.0, 0.0, 0.5, 0.5]
        """
        (normalize,) = checked("confusion_matrix", normalize=normalize)
        return _classification.confusion_matrix(
            self._counts(
                y_true, y_pred, by=by, labels=labels, weight=weight, method="confusion_matrix"
            ),
            normalize=normalize,
        )

    def per_class(
        self,
        y_true: Target,
        y_pred: Target,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        extra_scores: ExtraScore | Sequence[ExtraScore] = (),
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: LabelCiMethod | None = None,
    ) -> pl.LazyFrame:
        """Counts and scores of each class against the rest.

        Parameters
        ----------
        y_true, y_pred, by, labels, weight
            As :meth:`confusion_matrix`, except that rows whose labels lie outside
            ``labels`` still count as false negatives / positives of the listed
            classes and in ``tn`` (``sklearn.metrics.precision_recall_fscore_support``).
            Multilabel input: two List columns of label sets, or two mappings
            ``{label: indicator column}`` (see :meth:`multilabel_confusion_matrix`);
            one row per label, its counts against the rows without it.
        beta
            F-beta's beta, finite and > 0.
        zero_division
            Value of a ratio whose denominator is 0: 0.0, 1.0 or NaN.
        extra_scores
            Opt-in scores, columns after the default ones: ``"fowlkes_mallows"``,
            ``"informedness"``, ``"markedness"`` (one name or a list of them; the
            default columns are the contract's, scikit-learn's report and Jaccard).

        Returns
        -------
        LazyFrame
            ``*by, label, support, predicted, tp, fp, fn, tn`` (Int64, Float64 with
            weights) and ``precision, recall, specificity, f1, jaccard`` (Float64;
            the F column is ``f{beta:g}`` when beta != 1), then ``extra_scores``'
            (``fowlkes_mallows, informedness, markedness``, in that order).

        Notes
        -----
        precision = tp / (tp + fp), recall = tp / (tp + fn), specificity = tn / (tn + fp),
        F-beta = (1 + b^2) tp / (b^2 (tp + fn) + tp + fp), jaccard = tp / (tp + fp + fn);
        ``zero_division`` where a denominator is 0.  fowlkes_mallows =
        sqrt(precision x recall) (each ``zero_division`` where undefined);
        informedness (Youden's J) = recall + specificity - 1 = tp / (tp + fn) -
        fp / (fp + tn), markedness = precision + npv - 1 = tp / (tp + fp) -
        fn / (fn + tn), both in [-1, 1] and ``zero_division`` where either of
        their two denominators is 0; their delta-method intervals are Wilson's at
        the delta method's variance on the score mapped to [0, 1], (v + 1) / 2.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": [0, 1, 1, 2], "p": [0, 1, 2, 2]})
        >>> df.metrics.per_class("t", "p").select("label", "support", "precision", "recall")
        shape: (3, 4)
        ┌───────┬─────────┬───────────┬────────┐
        │ label ┆ support ┆ precision ┆ recall │
        │ ---   ┆ ---     ┆ ---       ┆ ---    │
        │ i64   ┆ i64     ┆ f64       ┆ f64    │
        ╞═══════╪═════════╪═══════════╪════════╡
        │ 0     ┆ 1       ┆ 1.0       ┆ 1.0    │
        │ 1     ┆ 2       ┆ 1.0       ┆ 0.5    │
        │ 2     ┆ 1       ┆ 0.5       ┆ 1.0    │
        └───────┴─────────┴───────────┴────────┘
        """
        return self._label_scores(
            "per_class",
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            beta=beta,
            zero_division=zero_division,
            extra_scores=extra_scores,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        )

    def averages(
        self,
        y_true: Target,
        y_pred: Target,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        extra_scores: ExtraScore | Sequence[ExtraScore] = (),
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: AverageCiMethod | None = None,
    ) -> pl.LazyFrame:
        """Micro, macro and support-weighted averages of the per-class scores.

        Parameters
        ----------
        y_true, y_pred, by, labels, weight, beta, zero_division, extra_scores
            As :meth:`per_class`.

        Returns
        -------
        LazyFrame
            ``*by, average, precision, recall, f1, jaccard, support`` (the
            ``extra_scores`` asked for - ``fowlkes_mallows``, ``informedness``,
            ``markedness`` - before ``support``); ``average`` is
            ``"micro"``, ``"macro"``, ``"weighted"`` in that order, then ``"samples"``
            for multilabel input.

        Notes
        -----
        micro: the ratios of the summed counts.  macro / weighted: the mean /
        support-weighted mean of the per-class scores; with ``zero_division=nan``
        they skip the NaN classes (scikit-learn's ``_nanaverage``; its
        ``jaccard_score`` has no NaN option, and Jaccard follows the same rule
        here).  ``support`` is the total support of the classes.  samples
        (multilabel only): the mean over rows (weighted by ``weight``) of each
        row's scores (precision, recall, F, Jaccard, Fowlkes-Mallows, and
        informedness / markedness with the row's tn = the labels in neither set) of
        its two label sets, a row with
        an empty denominator taking ``zero_division`` (NaN rows skipped).  Unlike
        the others it is not a function of the per-label counts: it needs each
        row's set sizes (its state keeps the histogram of them).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": [0, 1, 1, 2], "p": [0, 1, 2, 2]})
        >>> df.metrics.averages("t", "p").select("average", "precision", "recall")
        shape: (3, 3)
        ┌──────────┬───────────┬──────────┐
        │ average  ┆ precision ┆ recall   │
        │ ---      ┆ ---       ┆ ---      │
        │ str      ┆ f64       ┆ f64      │
        ╞══════════╪═══════════╪══════════╡
        │ micro    ┆ 0.75      ┆ 0.75     │
        │ macro    ┆ 0.833333  ┆ 0.833333 │
        │ weighted ┆ 0.875     ┆ 0.75     │
        └──────────┴───────────┴──────────┘
        """
        return self._label_scores(
            "averages",
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            beta=beta,
            zero_division=zero_division,
            extra_scores=extra_scores,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        )

    def report(
        self,
        y_true: Target,
        y_pred: Target,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        extra_scores: ExtraScore | Sequence[ExtraScore] = (),
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: AverageCiMethod | None = None,
    ) -> pl.LazyFrame:
        """The classification report: per-class rows, then the three averages.

        Parameters
        ----------
        y_true, y_pred, by, labels, weight, beta, zero_division, extra_scores
            As :meth:`per_class`.

        Returns
        -------
        LazyFrame
            ``*by, label, average, precision, recall, f1, jaccard, support``
            (the ``extra_scores`` asked for - ``fowlkes_mallows``,
            ``informedness``, ``markedness`` - before ``support``): the
            per-class rows (``average`` null) then micro, macro, weighted (``label``
            null), per segment; multilabel input also a ``samples`` row
            (:meth:`averages`).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": ["x", "y", "y"], "p": ["x", "y", "x"]})
        >>> df.metrics.report("t", "p").drop("jaccard")
        shape: (5, 6)
        ┌───────┬──────────┬───────────┬──────────┬──────────┬─────────┐
        │ label ┆ average  ┆ precision ┆ recall   ┆ f1       ┆ support │
        │ ---   ┆ ---      ┆ ---       ┆ ---      ┆ ---      ┆ ---     │
        │ str   ┆ str      ┆ f64       ┆ f64      ┆ f64      ┆ i64     │
        ╞═══════╪══════════╪═══════════╪══════════╪══════════╪═════════╡
        │ x     ┆ null     ┆ 0.5       ┆ 1.0      ┆ 0.666667 ┆ 1       │
        │ y     ┆ null     ┆ 1.0       ┆ 0.5      ┆ 0.666667 ┆ 2       │
        │ null  ┆ micro    ┆ 0.666667  ┆ 0.666667 ┆ 0.666667 ┆ 3       │
        │ null  ┆ macro    ┆ 0.75      ┆ 0.75     ┆ 0.666667 ┆ 3       │
        │ null  ┆ weighted ┆ 0.833333  ┆ 0.666667 ┆ 0.666667 ┆ 3       │
        └───────┴──────────┴───────────┴──────────┴──────────┴─────────┘
        """
        return self._label_scores(
            "report",
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            beta=beta,
            zero_division=zero_division,
            extra_scores=extra_scores,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        )

    def summary(
        self,
        y_true: Target,
        y_pred: Target,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: SummaryCiMethod | None = None,
        kappa_weights: KappaWeights | None = None,
        replace_undefined_by: float = float("nan"),
        adjusted: bool = False,
    ) -> pl.LazyFrame:
        """Accuracy, balanced accuracy, MCC and Cohen's kappa, one row per segment.

        Parameters
        ----------
        y_true, y_pred, by, labels, weight
            As :meth:`confusion_matrix`; the numbers are computed on that
            confusion matrix (with ``labels``, rows outside them are dropped).
        kappa_weights
            ``None`` (Cohen's kappa), ``"linear"`` or ``"quadratic"``: the weighted
            kappa of ``sklearn.metrics.cohen_kappa_score(weights=...)``, a
            disagreement between the i-th and j-th label weighing ``|i - j|`` or
            ``(i - j)^2`` in the segment's label order (the sorted labels, or
            ``labels``: pass it when the sorted order is not the classes' order).
            Its interval: ``ci_method="wilson"`` only (the accuracy's).
        replace_undefined_by
            Kappa where it is undefined (no rows, or one class that is all the
            actual and all the predicted labels: 0 / 0): NaN (default) or a number
            in [-1, 1], scikit-learn's ``cohen_kappa_score(replace_undefined_by=)``.
            Not with ``ci``.
        adjusted
            Balanced accuracy adjusted for chance, scikit-learn's
            ``balanced_accuracy_score(adjusted=True)``: (score - 1/K) / (1 - 1/K)
            with K the segment's classes present in ``y_true``, so that chance
            scores 0 and a perfect prediction 1; NaN with one class (K = 1, where
            scikit-learn divides by 0).  Its interval: the unadjusted one's bounds
            through the same map (the bootstrap's replicates keep the segment's K).
            Single-label rows only.
        ci, n_boot, seed, ci_method
            Intervals ``<metric>_low`` / ``<metric>_high`` at level ``ci`` (counts
            of rows: not with ``weight``).  ``ci_method``:

            - ``"delta"`` (the default for single-label rows; a ``group_by``'s
              cost): Wilson's score interval for the accuracy; for the others the
              delta method on the confusion cells (n rows drawn i.i.d.: the
              variance of each metric to first order in the cell shares):
              balanced accuracy by Wilson's interval with the delta method's
              effective rows (one class: the Wilson interval of its recall); MCC
              and kappa by estimate +- z se, clipped to [-1, 1] (kappa's se is
              Fleiss, Cohen & Everitt's: statsmodels' ``cohens_kappa``).  Null
              where the metric has no derivative (MCC with one actual or one
              predicted class; kappa where one class is every actual and
              predicted label) or fewer than 2 rows.  Large-sample intervals:
              zero-width where every row is classified right (and kappa's with
              one actual class: 0 whatever the predictions).
            - ``"bootstrap"`` (multilabel rows' default): the
              percentile interval of ``n_boot`` multinomial redraws of each
              segment's cells, seeded by ``seed`` and the segment's key; ask for
              it with small segments, or to avoid the normal approximation.
            - ``"poisson"``: the Poisson bootstrap, each row's count Poisson(1)
              (a replicate's size varies; docs/intervals.md), drawn as cheaply.
            - ``"wilson"``: the accuracy only (the others null).

        Returns
        -------
        LazyFrame
            ``*by, n, accuracy, balanced_accuracy, mcc, cohen_kappa``; ``n`` is the
            number (or weight) of rows counted.  Multilabel input (List columns or
            ``{label: indicator column}`` mappings) has other columns,
            ``*by, n, subset_accuracy, hamming_loss, jaccard_samples``:
            scikit-learn's ``accuracy_score`` (exact set match), ``hamming_loss``
            and ``jaccard_score(average="samples")`` (0 for a row with two empty
            sets).  Balanced accuracy, MCC and kappa have no multilabel definition
            there (scikit-learn refuses such input), so the columns differ rather
            than hold NaN; ``kappa_weights`` is single-label only, and ``ci`` is a
            bootstrap of whole rows (``subset_accuracy_low`` ...).

        Notes
        -----
        As scikit-learn: balanced accuracy is the mean recall over the classes
        present in ``y_true``; MCC is 0 when a covariance is 0; kappa is
        ``replace_undefined_by`` when the expected disagreement is 0.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": [0, 0, 1, 1], "p": [0, 1, 1, 1]})
        >>> df.metrics.summary("t", "p")
        shape: (1, 5)
        ┌─────┬──────────┬───────────────────┬─────────┬─────────────┐
        │ n   ┆ accuracy ┆ balanced_accuracy ┆ mcc     ┆ cohen_kappa │
        │ --- ┆ ---      ┆ ---               ┆ ---     ┆ ---         │
        │ i64 ┆ f64      ┆ f64               ┆ f64     ┆ f64         │
        ╞═════╪══════════╪═══════════════════╪═════════╪═════════════╡
        │ 4   ┆ 0.75     ┆ 0.75              ┆ 0.57735 ┆ 0.5         │
        └─────┴──────────┴───────────────────┴─────────┴─────────────┘
        """
        kappa_weights, undefined, adjusted = checked(
            "summary",
            kappa_weights=kappa_weights,
            replace_undefined_by=replace_undefined_by,
            adjusted=adjusted,
        )
        is_multilabel = multilabel.is_multilabel(self._lf, y_true)
        if ci_method is None:  # the multilabel summary's intervals are bootstraps of rows
            ci_method = "bootstrap" if is_multilabel else checks.CI_METHODS["summary"][0]
        wants_ci = _wants_ci(
            ci, n_boot, ci_method, weight, seed=seed, methods=checks.CI_METHODS["summary"]
        )
        if wants_ci:
            checks.check_kappa_interval(kappa_weights, ci_method)
        checks.check_kappa_undefined_interval(undefined, wants_ci)
        ci_method, seed = resampling(ci_method, seed)  # "poisson": the bootstrap, its seed
        if is_multilabel:
            multilabel.refuse_ci(ci, "summary", ci_method)
            checked(
                "summary",
                multilabel=is_multilabel,
                replace_undefined_by=undefined,
                kappa_weights=kappa_weights,
                adjusted=adjusted,
            )
            return multilabel.summary(
                self._lf,
                y_true,
                y_pred,
                by=by,
                labels=labels,
                weight=weight,
                ci=ci if wants_ci else None,
                n_boot=n_boot,
                seed=seed,
            )
        counts = self._counts(
            checks.check_column_name("y_true", y_true),
            checks.check_column_name("y_pred", y_pred),
            by=by,
            labels=labels,
            weight=weight,
            method="summary",
            ci=wants_ci,
        )
        result = attach.finish_summary(
            counts,
            kappa_weights=kappa_weights,
            replace_undefined_by=undefined,
            ci=ci if wants_ci else None,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
        )
        return chance_adjusted_summary(result, counts) if adjusted else result

    def counts(
        self, y_true: str, y_pred: str, *, by: By = None, weight: str | None = None
    ) -> pl.LazyFrame:
        """The confusion counts as a mergeable state: ``*by, actual, predicted, count``.

        One row per (segment, actual, predicted) pair seen (no zero cells).
        States of several shards or days are merged by concatenating them;
        :func:`pl_metrics.from_counts` finishes any metric of this namespace.

        Returns
        -------
        LazyFrame
            ``*by, actual, predicted, count``: the two labels in the labels' dtype,
            ``count`` Int64 (Float64, the summed weights, with ``weight``).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": ["a", "b", "b"], "p": ["a", "a", "b"]})
        >>> df.metrics.counts("t", "p").sort("actual", "predicted")
        shape: (3, 3)
        ┌────────┬───────────┬───────┐
        │ actual ┆ predicted ┆ count │
        │ ---    ┆ ---       ┆ ---   │
        │ str    ┆ str       ┆ i64   │
        ╞════════╪═══════════╪═══════╡
        │ a      ┆ a         ┆ 1     │
        │ b      ┆ a         ┆ 1     │
        │ b      ┆ b         ┆ 1     │
        └────────┴───────────┴───────┘
        """
        counts = self._counts(y_true, y_pred, by=by, labels=None, weight=weight, method="counts")
        public = {internal: name for name, internal in COUNTS_STATE.items()}
        frame = counts.frame.select(*counts.keys, *public)
        # only the two label columns take the labels' output dtype; `count` stays a count
        labels = [c for c, name in public.items() if name != "count"]
        return counts.finish(frame, labels).rename(public)
