"""The probability and threshold methods of ``.metrics``: log_loss, brier_score,
calibration_curve / _error, top_k_accuracy, hinge_loss, thresholds, best_threshold, det_curve,
threshold_report."""

from __future__ import annotations

import math
from functools import partial
from typing import get_args

import polars as pl

from pl_metrics import _probability as prob
from pl_metrics import _ranking_multiclass as mc
from pl_metrics import _thresholds as th
from pl_metrics._core import checks as v
from pl_metrics._core import names
from pl_metrics._core import scores as sc
from pl_metrics._typing import (
    BinStrategy,
    By,
    CalibrationMultiClass,
    Labels,
    Score,
    ThresholdMetric,
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
    ) -> prob.Rows:
        if one_hot and not isinstance(y_true, str):
            mc.check_options(pos_label=pos_label)
        return prob.Rows(
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
        if not isinstance(normalize, bool):
            msg = f"`normalize` must be True or False, got {normalize!r}"
            raise ValueError(msg)
        rows = self._rows(
            y_true,
            y_prob,
            by=by,
            pos_label=pos_label,
            weight=weight,
            method="log_loss",
            one_hot=True,
        )
        return prob.log_loss(rows, normalize=normalize)

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
        return prob.brier_score(rows)

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
            edges of the rows repeated by their weights).
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
        v.check_choice("strategy", strategy, ("uniform", "quantile"))
        v.check_choice("multi_class", multi_class, get_args(CalibrationMultiClass))
        n_bins = v.positive_int("n_bins", n_bins)
        wilson = v.wants_ci(ci, 1, "wilson", weight, seed=0, methods=("wilson",))
        rows = self._calibration_rows(
            y_true,
            y_prob,
            by=by,
            pos_label=pos_label,
            weight=weight,
            method="calibration_curve",
            ci=wilson,
        )
        return prob.calibration_curve(
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
    ) -> prob.Rows:
        if not isinstance(y_prob, str):
            mc.check_options(pos_label=pos_label)
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
        v.check_choice("strategy", strategy, ("uniform", "quantile"))
        v.check_choice("multi_class", multi_class, get_args(CalibrationMultiClass))
        n_bins = v.positive_int("n_bins", n_bins)
        rows = self._calibration_rows(
            y_true, y_prob, by=by, pos_label=pos_label, weight=weight, method="calibration_error"
        )
        return prob.calibration_error(
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
        k = v.positive_int("k", k)
        if not isinstance(y_score, str):
            mc.check_options(pos_label=pos_label)
            y_score = v.check_score_map("y_score", y_score)
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
        return prob.top_k_accuracy(rows, k=k)

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
            mc.check_options(pos_label=pos_label)
            n_classes = len(v.check_score_map("y_score", y_score))
            if n_classes < 3:
                msg = (
                    f"`y_score` maps {n_classes} classes: the multiclass hinge loss needs "
                    "three or more; for two classes pass one column of decision scores "
                    "(the positive class's) and pos_label"
                )
                raise ValueError(msg)
        elif labels is not None:
            msg = (
                "`labels` is for {label: column} scores: a single column of decision "
                "scores is of `pos_label` against the rest"
            )
            raise ValueError(msg)
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
            v.check_labels_are_keys(labels, rows.classes, dtype, y_true)
        return prob.hinge_loss(rows, labels_given=labels is not None)

    def thresholds(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        bins: int | None = None,
    ) -> pl.LazyFrame:
        """Threshold sweep: the binary metrics at every distinct score (``score >= t``).

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_curve`.
        beta, zero_division
            As :meth:`per_class`.

        Returns
        -------
        LazyFrame
            ``*by, threshold, tp, fp, fn, tn, precision, recall, f1, specificity,
            accuracy, mcc``, thresholds descending; the same numbers as
            thresholding the scores and calling scikit-learn's binary metrics.
            ``tp`` .. ``tn`` are Int64 (Float64 sums with ``weight``).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.thresholds("y", "s").select("threshold", "tp", "fp", "precision")
        shape: (4, 4)
        ┌───────────┬─────┬─────┬───────────┐
        │ threshold ┆ tp  ┆ fp  ┆ precision │
        │ ---       ┆ --- ┆ --- ┆ ---       │
        │ f64       ┆ i64 ┆ i64 ┆ f64       │
        ╞═══════════╪═════╪═════╪═══════════╡
        │ 0.8       ┆ 1   ┆ 0   ┆ 1.0       │
        │ 0.4       ┆ 1   ┆ 1   ┆ 0.5       │
        │ 0.35      ┆ 2   ┆ 1   ┆ 0.666667  │
        │ 0.1       ┆ 2   ┆ 2   ┆ 0.5       │
        └───────────┴─────┴─────┴───────────┘
        """
        b, zd = v.check_beta(beta), v.check_zero_division(zero_division)
        counts = sc.binary_score_counts(
            self._lf,
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            reserved=names.output_columns("thresholds", beta=b),
            bins=v.check_bins(bins),
            sortable=True,
        )
        return th.sweep(counts, beta=b, zero_division=zd)

    def best_threshold(
        self,
        y_true: str,
        y_score: str,
        *,
        metric: ThresholdMetric = "f1",
        where: pl.Expr | None = None,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        bins: int | None = None,
    ) -> pl.LazyFrame:
        """The threshold that maximises ``metric`` per segment, optionally under a constraint.

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, beta, zero_division, bins
            As :meth:`thresholds`.
        metric
            A column of :meth:`thresholds` to maximise (``"f1"``, ``"precision"``,
            ``"mcc"``, ...).
        where
            An expression over those columns that a threshold must satisfy, e.g.
            ``pl.col("recall") >= 0.9`` (the best precision at recall >= 0.9).

        Returns
        -------
        LazyFrame
            The row of :meth:`thresholds` chosen for each segment (the highest
            threshold among ties); a segment where no threshold satisfies
            ``where`` has no row.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.best_threshold("y", "s", metric="precision",
        ...     where=pl.col("recall") >= 0.9)["threshold"].to_list()
        [0.35]
        """
        b = v.check_beta(beta)
        v.check_choice("metric", metric, names.output_columns("thresholds", beta=b)[1:])
        if where is not None and not isinstance(where, pl.Expr):
            msg = (
                "`where` must be a polars expression such as pl.col('recall') >= 0.9, "
                f"got {where!r}"
            )
            raise TypeError(msg)
        table = self.thresholds(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            beta=b,
            zero_division=zero_division,
            bins=bins,
        )
        if where is not None:
            _check_where(table.collect_schema(), where)
        return th.best(table, v.by_names(by), metric=metric, where=where)

    def det_curve(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        drop_intermediate: bool = False,
        bins: int | None = None,
    ) -> pl.LazyFrame:
        """Detection error tradeoff curve: the points of ``sklearn.metrics.det_curve``.

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_curve`.
        drop_intermediate
            Drop thresholds where the number of true positives does not change
            on either side (scikit-learn's option, default False).

        Returns
        -------
        LazyFrame
            ``*by, threshold, fpr, fnr``, thresholds ascending; a segment whose
            ``y_true`` has a single class has no rows (scikit-learn raises).
        """
        counts = sc.binary_score_counts(
            self._lf,
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            reserved=names.output_columns("det_curve"),
            bins=v.check_bins(bins),
            sortable=True,
        )
        return th.det_curve(counts, drop_intermediate=drop_intermediate)

    def threshold_report(
        self,
        y_true: str,
        y_score: str,
        *,
        threshold: float = 0.5,
        pos_label: object = None,
        neg_label: object = None,
        by: By = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
    ) -> pl.LazyFrame:
        """:meth:`report` of the predictions ``pos_label if score >= threshold else neg_label``.

        Parameters
        ----------
        y_true, y_score, by, weight, beta, zero_division
            As :meth:`report` and :meth:`roc_auc`.
        threshold
            A row is predicted ``pos_label`` when its score is ``>= threshold``.
        pos_label, neg_label
            The two classes.  ``pos_label``: default 1 for numbers (then the labels
            must be {0, 1} or {-1, 1}), True for booleans, required for strings.
            ``neg_label``: default False for booleans, else the label of ``y_true``
            other than ``pos_label`` (every other label is the negative class, as in
            the binary methods); required when ``y_true`` holds more than two labels
            (``DataError``) or only ``pos_label`` (numbers: then 0; with
            ``pos_label`` 0 required).

        Returns
        -------
        LazyFrame
            As :meth:`report`.
        """
        threshold = v.check_threshold(threshold)
        b = v.check_beta(beta)
        v.check_zero_division(zero_division)
        segments = v.normalize_by(by)
        v.check_column_name("y_true", y_true)
        v.check_column_name("y_score", y_score)
        schema = self._lf.collect_schema()
        v.check_columns(schema, y_true=y_true)
        v.check_numeric(schema, "y_score", y_score)
        v.check_by(schema, segments, names.output_columns("threshold_report", beta=b))
        pos = sc.resolve_pos_label(schema, y_true, pos_label)
        dtype = schema[y_true]
        inferred = neg_label is None and dtype != pl.Boolean
        if neg_label is None:
            negative = _inferred_neg_label(y_true, weight, pos, dtype)
        else:
            neg_label = v.label_value(neg_label, dtype, "neg_label", y_true)
            if neg_label == pos:
                msg = f"`neg_label` must differ from `pos_label`, both are {pos!r}"
                raise ValueError(msg)
            negative = pl.lit(neg_label)
        # the predicted label replaces the score column (so a null, NaN or infinite
        # score is reported as a null row of that column, never as a negative)
        score = pl.col(y_score).cast(pl.Float64)
        above = score >= threshold
        if schema[y_score].is_integer():  # exactly: Float64 rounds integers beyond 2**53
            at_least = max(min(math.ceil(threshold), 2**100), -(2**100))  # within Int128
            above = pl.col(y_score).cast(pl.Int128) >= pl.lit(at_least, pl.Int128)
        rule = (
            pl.when(score.is_null() | ~score.is_finite())
            .then(None)
            .when(above)
            .then(pl.lit(pos))
            .otherwise(negative)
        )
        # the segments are evaluated on the input rows (a `by` expression may read
        # the score), in the same with_columns, under stand-in names
        read = [y_true, y_score, *([weight] if isinstance(weight, str) else [])]
        keys = names.stand_in_keys(segments, read)
        lf = self._lf.with_columns(
            rule.cast(schema[y_true]).alias(y_score),
            *(e.alias(k) for e, k in zip(segments.exprs, keys, strict=True)),
        )
        report = lf.metrics.report(
            y_true,
            y_score,
            by=keys or None,
            weight=weight,
            beta=beta,
            zero_division=zero_division,
            labels=None,
        )
        default_pos = pos_label is None and inferred
        check = partial(_check_report_labels, self._lf, y_true, pos, inferred, default_pos)
        report = report.map_batches(check)
        return report.rename(dict(zip(keys, segments.names, strict=True)))


def _check_where(schema: pl.Schema, where: pl.Expr) -> None:
    """``where`` must evaluate on the thresholds table to a Boolean (checked on its
    schema, no rows: the error names ``where`` and the columns it may read)."""
    try:
        dtype = pl.LazyFrame(schema=schema).select(where).collect_schema().dtypes()[0]
    except pl.exceptions.PolarsError as exc:
        reason = str(exc).strip().split("\n")[0]  # polars' first line, not its plan
        msg = (
            f"`where` expression {where} cannot be evaluated on the thresholds table "
            f"(columns: {list(schema.names())}): {reason}"
        )
        raise type(exc)(msg) from None
    if dtype != pl.Boolean:
        msg = f"`where` must be a Boolean condition such as pl.col('recall') >= 0.9, got {dtype}"
        raise TypeError(msg)


def _inferred_neg_label(
    y_true: str, weight: str | None, pos: object, dtype: pl.DataType
) -> pl.Expr:
    """threshold_report's ``neg_label`` when not given: False against True; else the label
    of ``y_true`` other than ``pos_label`` (on the rows of non-zero weight), as the binary
    methods take every other label as the negative class.  :class:`_ReportLabels` refuses
    more than one such label.  With none (``y_true`` holds only ``pos_label``): 0 for
    numbers (1 against ``pos_label`` 0 is no default: refused), else refused."""
    if dtype == pl.Boolean:
        return pl.lit(not pos)
    label = pl.col(y_true)
    other = label != pl.lit(pos)
    if weight is not None:
        other &= pl.col(weight) != 0
    fallback = pl.lit(0) if dtype.is_numeric() and pos != 0 else pl.lit(pos)  # pos: refused
    return label.filter(other).first().fill_null(fallback.cast(dtype))


def _check_report_labels(  # noqa: PLR0917 - partial()'s arguments, then the frame
    lf: pl.LazyFrame,
    y_true: str,
    pos: object,
    inferred: bool,
    default_pos: bool,
    df: pl.DataFrame,
) -> pl.DataFrame:
    """threshold_report's data checks, on its small result: ``pos_label`` must occur in
    ``y_true`` (as for the ranking methods); with ``neg_label`` inferred (``inferred``),
    ``y_true`` must hold one label other than ``pos_label`` (numbers: at most one, see
    :func:`_inferred_neg_label`), and with the default ``pos_label`` 1 (``default_pos``)
    that label must be 0 or -1 (labels {1, 2}: which is positive?)."""
    if not df.height:
        return df
    classes = df.filter(pl.col("average").is_null() & (pl.col("support") > 0))["label"]
    labels = classes.to_list()
    if pos not in labels:
        raise v.Bad.pos_label_absent(pos, y_true, v.labels_present(lf, y_true))
    if not inferred:
        return df
    others = [label for label in labels if label != pos]
    if len(others) > 1 or (not others and (not classes.dtype.is_numeric() or pos == 0)):
        raise v.Bad.neg_label_needed(y_true, v.labels_present(lf, y_true), pos)
    if default_pos and others and others[0] not in {0, -1}:
        raise v.Bad.pos_label_needed(y_true, v.labels_present(lf, y_true))
    return df
