"""The probability and threshold methods of ``.metrics``: log_loss, brier_score,
calibration_curve / _error, top_k_accuracy, hinge_loss, thresholds, best_threshold, det_curve,
threshold_report."""

from __future__ import annotations

import polars as pl

from pl_metrics import _probability
from pl_metrics._core import checks, names
from pl_metrics._core.options import checked
from pl_metrics._ranking import multiclass
from pl_metrics._typing import (
    BinStrategy,
    By,
    CalibrationMultiClass,
    Labels,
    Score,
)


class ProbabilityMethods:
    """Probability metrics and threshold analysis on a LazyFrame."""

    _lf: pl.LazyFrame

    def _rows(
        self,
        y_true: Score,
        y_prob: Score,
        *,
        by: By,
        pos_label: object,
        weight: str | None,
        method: str,
        probabilities: bool = True,
        binary_only: bool = False,
        argument: str = "y_prob",
        one_hot: bool = False,
        ci: bool = False,
    ) -> _probability.Rows:
        if one_hot and not isinstance(y_true, str):
            multiclass.check_options(pos_label=pos_label)
        return _probability.Rows(
            self._lf,
            y_true,
            y_prob,
            by=by,
            pos_label=pos_label,
            weight=weight,
            reserved=names.output_columns(method, ci=ci),
            probabilities=probabilities,
            binary_only=binary_only,
            argument=argument,
            one_hot=one_hot,
        )

    def log_loss(
        self,
        y_true: Score,
        y_prob: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        normalize: bool = True,
    ) -> pl.LazyFrame:
        """Log loss (cross-entropy) of predicted probabilities, per segment.

        Parameters
        ----------
        y_true
            Column of the actual labels; or, with ``{label: column}`` probabilities,
            the same labels one-hot: ``{label: indicator column}`` (Boolean, 0/1 or
            0.0/1.0), exactly one set in each row (scikit-learn's label indicator
            ``y_true``); any other row is a ``DataError`` naming the columns.  The
            result is that of the column of the labels whose indicator is set.
        y_prob
            Binary: the column of the probability of ``pos_label``.  Multiclass: a
            mapping ``{label: column}`` of per-class probabilities, each row
            summing to 1 (tolerance ``1e-8 + sqrt(eps)``, as scikit-learn).
        by, pos_label, weight
            As :meth:`roc_auc` (``pos_label``: with one probability column only).
        normalize
            Mean (default) or sum of the per-row losses.

        Returns
        -------
        LazyFrame
            ``*by, log_loss``: ``sklearn.metrics.log_loss``, probabilities
            clipped to ``[eps, 1 - eps]`` (float64 eps).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> # by hand: -(ln 0.9 + ln 0.8 + ln 0.6) / 3 = 0.279777
        >>> df = pl.DataFrame({"y": [0, 1, 1], "p": [0.1, 0.8, 0.6]})
        >>> round(df.metrics.log_loss("y", "p")["log_loss"][0], 6)
        0.279777
        """
        (normalize,) = checked("log_loss", normalize=normalize)
        rows = self._rows(
            y_true,
            y_prob,
            by=by,
            pos_label=pos_label,
            weight=weight,
            method="log_loss",
            one_hot=True,
        )
        return _probability.log_loss(rows, normalize=normalize)

    def brier_score(
        self,
        y_true: Score,
        y_prob: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Brier score: mean squared difference of probabilities and outcomes.

        Parameters
        ----------
        y_true, y_prob, by, pos_label, weight
            As :meth:`log_loss` (``y_true`` also one-hot).

        Returns
        -------
        LazyFrame
            ``*by, brier_score``: ``sklearn.metrics.brier_score_loss`` (multiclass:
            the sum over classes, halved for two classes as its
            ``scale_by_half="auto"``).
        """
        rows = self._rows(
            y_true,
            y_prob,
            by=by,
            pos_label=pos_label,
            weight=weight,
            method="brier_score",
            one_hot=True,
        )
        return _probability.brier_score(rows)

    def calibration_curve(
        self,
        y_true: str,
        y_prob: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        n_bins: int = 5,
        strategy: BinStrategy = "uniform",
        multi_class: CalibrationMultiClass = "top_label",
        ci: float | None = None,
    ) -> pl.LazyFrame:
        """Reliability diagram points: observed frequency vs mean probability per bin.

        Parameters
        ----------
        y_true, y_prob, by, pos_label, weight
            As :meth:`log_loss`: binary, or ``{label: column}`` of per-class
            probabilities (each row summing to 1).
        n_bins
            Number of bins of [0, 1].
        strategy
            ``"uniform"`` (equal widths) or ``"quantile"`` (equal counts, edges
            from the segment's probabilities; with ``weight``, equal weights: the
            edges of the rows repeated by their weights normalised to sum to the
            rows, so that the weights' scale changes nothing; see
            docs/probability.md).
        multi_class
            Multiclass (``{label: column}``): ``"top_label"`` (default) bins each
            row's confidence, its largest probability, against whether that class
            (ties: the first in sorted label order) is the actual one - the
            reliability diagram of Guo et al. (2017) and torchmetrics'
            ``MulticlassCalibrationError``; ``"per_class"`` bins each class's
            probability against "the row is of that class" (one-vs-rest), one
            curve per class with a ``label`` column.  Ignored for binary scores.
        ci
            Level of Wilson's interval of each bin's observed frequency (its
            positives among its rows: ``prob_true_low``, ``prob_true_high``); None
            (default): none.  Un-weighted rows only.

        Returns
        -------
        LazyFrame
            ``*by, bin, prob_true, prob_pred, count`` for the non-empty bins:
            ``sklearn.calibration.calibration_curve`` (a probability on an edge
            goes to the lower bin); ``count`` is the number of rows (Int64), with
            ``weight`` their total weight (Float64).
            Top label: ``calibration_curve(argmax == y_true, max probability)``
            (``prob_true`` is the accuracy of the bin, ``prob_pred`` its mean
            confidence).  Per class: ``*by, label, bin, prob_true, prob_pred,
            count``, ``calibration_curve(y_true == label, probability of label)``
            for every class (sorted).  With ``ci``: also ``prob_true_low``,
            ``prob_true_high`` (exactly 0 / 1 at a frequency of 0 / 1, never
            zero-width: a bin of 3 rows all positive has [0.44, 1] at 95 %).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame(
        ...     {"y": ["a", "b", "b", "c"], "pa": [0.7, 0.2, 0.55, 0.1],
        ...      "pb": [0.2, 0.7, 0.35, 0.1], "pc": [0.1, 0.1, 0.1, 0.8]}
        ... )
        >>> df.metrics.calibration_curve("y", {"a": "pa", "b": "pb", "c": "pc"}, n_bins=2)
        shape: (1, 4)
        ┌─────┬───────────┬───────────┬───────┐
        │ bin ┆ prob_true ┆ prob_pred ┆ count │
        │ --- ┆ ---       ┆ ---       ┆ ---   │
        │ i64 ┆ f64       ┆ f64       ┆ i64   │
        ╞═════╪═══════════╪═══════════╪═══════╡
        │ 1   ┆ 0.75      ┆ 0.6875    ┆ 4     │
        └─────┴───────────┴───────────┴───────┘
        """
        strategy, multi_class, n_bins = checked(
            "calibration_curve", strategy=strategy, multi_class=multi_class, n_bins=n_bins
        )
        wilson = checks.wants_ci(ci, 1, "wilson", weight, seed=0, methods=("wilson",))
        rows = self._calibration_rows(
            y_true,
            y_prob,
            by=by,
            pos_label=pos_label,
            weight=weight,
            method="calibration_curve",
            ci=wilson,
        )
        return _probability.calibration_curve(
            rows,
            n_bins=n_bins,
            strategy=strategy,
            multi_class=multi_class,
            ci=ci if wilson else None,
        )

    def _calibration_rows(
        self,
        y_true: str,
        y_prob: Score,
        *,
        by: By,
        pos_label: object,
        weight: str | None,
        method: str,
        ci: bool = False,
    ) -> _probability.Rows:
        if not isinstance(y_prob, str):
            multiclass.check_options(pos_label=pos_label)
        return self._rows(
            y_true, y_prob, by=by, pos_label=pos_label, weight=weight, method=method, ci=ci
        )

    def calibration_error(
        self,
        y_true: str,
        y_prob: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        n_bins: int = 15,
        strategy: BinStrategy = "uniform",
        multi_class: CalibrationMultiClass = "top_label",
    ) -> pl.LazyFrame:
        """Expected (ECE) and maximum (MCE) calibration error.

        Parameters
        ----------
        y_true, y_prob, by, pos_label, weight, n_bins, strategy, multi_class
            As :meth:`calibration_curve` (default 15 bins, as torchmetrics).

        Returns
        -------
        LazyFrame
            ``*by, ece, mce``: the count-weighted mean and the maximum over the
            non-empty bins of ``|prob_true - prob_pred|``.  Multiclass top label:
            torchmetrics' ``multiclass_calibration_error`` with ``norm="l1"``
            (ECE) and ``norm="max"`` (MCE), confidence = the largest probability,
            accuracy = whether its class is the actual one; the bins are
            scikit-learn's (a confidence on an edge goes to the lower bin, where
            torchmetrics puts it in the upper one).  Per class: ``*by, label,
            ece, mce``, each class's one-vs-rest reliability (the classwise ECE of
            Kull et al. (2019) is the mean of its ``ece`` column).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame(
        ...     {"y": ["a", "b", "b", "c"], "pa": [0.7, 0.2, 0.55, 0.1],
        ...      "pb": [0.2, 0.7, 0.35, 0.1], "pc": [0.1, 0.1, 0.1, 0.8]}
        ... )
        >>> # by hand: one bin (0.5, 1], accuracy 3/4, mean confidence 2.75 / 4
        >>> df.metrics.calibration_error(
        ...     "y", {"a": "pa", "b": "pb", "c": "pc"}, n_bins=2
        ... )["ece"].round(6).to_list()
        [0.0625]
        """
        strategy, multi_class, n_bins = checked(
            "calibration_error", strategy=strategy, multi_class=multi_class, n_bins=n_bins
        )
        rows = self._calibration_rows(
            y_true, y_prob, by=by, pos_label=pos_label, weight=weight, method="calibration_error"
        )
        return _probability.calibration_error(
            rows, n_bins=n_bins, strategy=strategy, multi_class=multi_class
        )

    def top_k_accuracy(
        self,
        y_true: str,
        y_score: Score,
        *,
        k: int = 2,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Fraction of rows whose actual class is among the ``k`` highest scores.

        Parameters
        ----------
        y_true
            Column of the actual labels.
        y_score
            ``{label: column}`` of per-class scores (any real numbers), or one
            column: the score of ``pos_label`` (binary).
        k
            How many of the highest-scored classes count as a hit.
        by, pos_label, weight
            As :meth:`roc_auc` (``pos_label``: with one score column only).

        Returns
        -------
        LazyFrame
            ``*by, top_k_accuracy``: ``sklearn.metrics.top_k_accuracy_score``
            with ``labels`` = the sorted mapping keys (ties: the later label first).
            One column (scikit-learn's 1-D ``y_score``, the score of the greater
            label, here of ``pos_label``): with ``k=1`` a row is predicted
            ``pos_label`` when its score is above 0.5 if all the segment's scores
            lie in [0, 1], else above 0 (the scores of rows of weight 0 are not
            read: a weight-0 row is a row removed, where scikit-learn still reads
            its score); with ``k >= 2`` every row is a hit (1.0).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> # by hand: scores in [0, 1], threshold 0.5: predicted 0, 1, 0: 2 hits of 3
        >>> df = pl.DataFrame({"y": [0, 1, 1], "s": [0.2, 0.7, 0.5]})
        >>> round(df.metrics.top_k_accuracy("y", "s", k=1)["top_k_accuracy"].item(), 6)
        0.666667
        """
        (k,) = checked("top_k_accuracy", k=k)
        if not isinstance(y_score, str):
            multiclass.check_options(pos_label=pos_label)
            y_score = checks.check_score_map("y_score", y_score)
        rows = self._rows(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            method="top_k_accuracy",
            probabilities=False,
            argument="y_score",
        )
        return _probability.top_k_accuracy(rows, k=k)

    def hinge_loss(
        self,
        y_true: str,
        y_score: Score,
        *,
        by: By = None,
        labels: Labels = None,
        pos_label: object = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Average hinge loss of decision scores (the margin's shortfall from 1), per segment.

        Parameters
        ----------
        y_true
            Column of the actual labels.
        y_score
            Binary: the column of the decision score of ``pos_label`` (any real
            numbers, positive for ``pos_label``, as ``decision_function``).
            Multiclass: a mapping ``{label: column}`` of per-class decision
            scores, three classes or more.
        labels
            Multiclass: the classes of the mapping (in any order).  Without it,
            every class of the mapping must occur in each segment's ``y_true``
            (scikit-learn's rule); with it, classes may be absent.  Not for a
            single score column (``pos_label`` names its class).
        by, pos_label, weight
            As :meth:`roc_auc`.

        Returns
        -------
        LazyFrame
            ``*by, hinge_loss``: ``sklearn.metrics.hinge_loss``, the (weighted)
            mean of ``max(0, 1 - margin)``.  Binary: margin = the score for a row
            of ``pos_label``, minus the score for the others.  Multiclass (Crammer
            and Singer): the actual class's score minus the largest score of the
            other classes.

        Notes
        -----
        scikit-learn codes the greater of two labels +1; here ``pos_label`` does
        (as :meth:`roc_auc`: default 1 for labels {0, 1} or {-1, 1}), the same for
        the default.  A segment whose rows are all ``pos_label`` counts them as +1,
        where scikit-learn, called on one class, codes every row -1.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> # by hand: max(0, 1 + 0.5) = 1.5, max(0, 1 - 2) = 0, max(0, 1 - 0.25) = 0.75
        >>> df = pl.DataFrame({"y": [0, 1, 1], "s": [0.5, 2.0, 0.25]})
        >>> df.metrics.hinge_loss("y", "s")["hinge_loss"].to_list()
        [0.75]
        """
        if not isinstance(y_score, str):
            multiclass.check_options(pos_label=pos_label)
            checks.check_score_map("y_score", y_score)
        checked("hinge_loss", y_score=y_score, labels=labels)
        rows = self._rows(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            method="hinge_loss",
            probabilities=False,
            argument="y_score",
        )
        if labels is not None:
            dtype = self._lf.collect_schema()[y_true]
            checks.check_labels_are_keys(labels, rows.classes, dtype, y_true)
        return _probability.hinge_loss(rows, labels_given=labels is not None)
