"""Performance before the labels arrive: ``.metrics.estimated_performance`` (CBPE)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from pl_metrics._core import checks
from pl_metrics._core.options import checked
from pl_metrics._monitoring import estimated, estimated_multiclass
from pl_metrics._typing import By, Calibration, EstimatedMetric, Score


class EstimatedMethods:
    """Metrics expected from calibrated scores, on a LazyFrame."""

    _lf: pl.LazyFrame

    def estimated_performance(
        self,
        y_pred: str,
        y_score: Score,
        *,
        reference: pl.DataFrame | pl.LazyFrame | pl.Expr | None = None,
        y_true: str | None = None,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        calibration: Calibration | None = "isotonic",
        metrics: EstimatedMetric | Sequence[EstimatedMetric] = (
            "roc_auc",
            "precision",
            "recall",
            "f1",
            "specificity",
            "accuracy",
        ),
        ci: float | None = None,
    ) -> pl.LazyFrame:
        """Binary metrics estimated without labels, from calibrated scores (NannyML's CBPE).

        The labels of production rows arrive weeks late; their scores, calibrated
        on labelled reference rows, say what the labels are likely to be.  Each
        row's calibrated probability p of ``pos_label`` makes the expected confusion
        counts, and each metric is its formula on them.

        Parameters
        ----------
        y_pred
            Column of the predicted labels: ``pos_label`` and (at most) one other.
        y_score
            Column of the score of ``pos_label`` (higher: more likely positive); or a
            mapping ``{label: column}`` of each class's score (multiclass: one map per
            class fitted one-vs-rest, the row's probabilities divided by their sum,
            1 / K each where it is 0; ``pos_label`` refused).
        reference
            The labelled rows the calibration map is fitted on: a DataFrame /
            LazyFrame holding ``y_true``, ``y_score`` (and ``weight``), or a Boolean
            expression marking them in this frame (``pl.col("week") < 10``; the
            other rows are the current ones, whose ``y_true`` is not read; a null
            is refused), as :meth:`drift`.  Required with ``calibration="isotonic"``.
        y_true
            Column of the reference rows' actual labels: ``pos_label`` and one other.
        by
            Segments of the current rows (column(s) or expression(s)); the
            reference is one sample, its map the same for every segment.
        pos_label
            The positive class of ``y_pred`` and ``y_true``; default 1 for numbers
            (the labels then {0, 1} or {-1, 1}), True for booleans; required for
            string labels.
        weight
            Column of row weights (of the reference rows too: the fit's
            ``sample_weight``); rows of weight 0 are left out on both sides.
        calibration
            ``"isotonic"`` (default): p is scikit-learn's
            ``IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1)`` fitted
            on the reference's labels (1 for ``pos_label``) and scores, at the row's
            score (linear between the reference's distinct scores, clipped outside
            them).  None: the scores are the probabilities (a score outside
            [0, 1] is an error naming the column); no reference.
        metrics
            Names, in the order of the columns: ``roc_auc``, ``precision``,
            ``recall``, ``f1``, ``jaccard``, ``fowlkes_mallows``, ``specificity``,
            ``accuracy``.
        ci
            A confidence level in (0, 1): ``<metric>_low`` / ``<metric>_high``, the
            spread of the realized metric when each current row's label is drawn
            Bernoulli(p), the rows independent (given the map: the reference's own
            sampling error is not in it).  The delta method's variance of the
            drawn counts (Poisson-binomial sums; DeLong's placements for the AUC,
            the rows counted as both classes), a normal interval around the
            estimate clipped to [0, 1].  Weighted rows are fine (the weights are
            fixed, the labels drawn).  With ``{label: column}`` scores each row's
            label is drawn Categorical(p_1 .. p_K): a class's interval is the binary
            one of its one-vs-rest problem, the averages' take the covariances of
            the classes within a row (the delta method of the average; the micro
            ROC AUC and a class row's accuracy have none).

        Returns
        -------
        LazyFrame
            ``*by, n, <metric>...`` (the ``metrics`` asked for, in their order,
            among ``roc_auc``, ``precision``, ``recall``, ``f1``, ``jaccard``,
            ``fowlkes_mallows``, ``specificity``, ``accuracy``; + ``<metric>_low,
            <metric>_high`` per metric with ``ci``), one row per segment of the
            current rows, sorted by ``by``
            (nulls last).  ``n``: the segment's rows (Int64; the summed weights,
            Float64, with ``weight``); the metrics Float64.  With ``{label:
            column}`` scores: ``*by, label, average, n, <metric>...``, per segment
            each class's row (``average`` null; ``accuracy`` null), then the
            ``micro``, ``macro`` and ``weighted`` rows (``label`` null; macro and
            weighted skip a class whose metric is undefined, weighted by its
            expected rows tp + fn; ``roc_auc`` null on ``micro``; ``accuracy`` the
            segment's, sum w p of the predicted class / n).

        Notes
        -----
        With w the row's weight (1 without ``weight``) and p its calibrated
        probability: tp = sum w p [y_pred = pos], fp = sum w (1 - p) [y_pred = pos],
        fn = sum w p [y_pred != pos], tn = sum w (1 - p) [y_pred != pos];
        precision = tp / (tp + fp), recall = tp / (tp + fn), f1 = 2 tp / (2 tp +
        fp + fn), jaccard = tp / (tp + fp + fn), fowlkes_mallows = sqrt(precision
        recall), specificity = tn / (tn + fp), accuracy = (tp + tn) / n.  The
        expected ROC AUC is the weighted AUC of every row counted once as a
        positive of weight w p and once as a negative of weight w (1 - p), ranked
        by the raw score, ties one half (``roc_auc_score`` of the doubled rows
        with ``sample_weight``): a constant score gives 0.5.

        An undefined metric is null: precision where the segment predicts no
        positive (tp + fp = 0), recall and the AUC where every p is 0 (the AUC
        also where every p is 1), specificity where every p is 1 (tn + fp = 0),
        f1, jaccard, fowlkes_mallows where their denominator is 0.  The reference
        must hold both classes (a ``DataError`` otherwise).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({
        ...     "week": [1, 1, 1, 1, 2, 2, 2, 2],
        ...     "y": [0, 1, 0, 1, None, None, None, None],  # week 2: no labels yet
        ...     "score": [0.2, 0.4, 0.6, 0.8] * 2,
        ... }).with_columns(pred=(pl.col("score") >= 0.5).cast(pl.Int64))
        >>> df.metrics.estimated_performance(
        ...     "pred", "score", reference=pl.col("week") == 1, y_true="y",
        ...     metrics=["roc_auc", "precision", "accuracy"],
        ... )  # p = 0, 0.5, 0.5, 1: tp = 1.5, fp = 0.5, fn = 0.5, tn = 1.5
        shape: (1, 4)
        ┌─────┬─────────┬───────────┬──────────┐
        │ n   ┆ roc_auc ┆ precision ┆ accuracy │
        │ --- ┆ ---     ┆ ---       ┆ ---      │
        │ i64 ┆ f64     ┆ f64       ┆ f64      │
        ╞═════╪═════════╪═══════════╪══════════╡
        │ 4   ┆ 0.875   ┆ 0.75      ┆ 0.75     │
        └─────┴─────────┴───────────┴──────────┘
        """
        (calibration,) = checked("estimated_performance", calibration=calibration)
        chosen = estimated.check_metrics(metrics)
        # the interval options' check (a level in (0, 1)); no resampling, so no method
        wants = checks.check_ci(ci, 1, "delta", ("delta",))
        estimated.check_arguments(calibration, reference, y_true)
        if isinstance(y_score, Mapping):  # {label: column}: one-vs-rest per class
            estimated_multiclass.check_options(pos_label=pos_label)
            return estimated_multiclass.estimated_multiclass(
                self._lf,
                y_pred,
                y_score,
                reference=reference,
                y_true=y_true,
                by=by,
                weight=weight,
                calibration=calibration,
                metrics=chosen,
                ci=ci if wants else None,
            )
        return estimated.estimated_performance(
            self._lf,
            y_pred,
            y_score,
            reference=reference,
            y_true=y_true,
            by=by,
            pos_label=pos_label,
            weight=weight,
            calibration=calibration,
            metrics=chosen,
            ci=ci if wants else None,
        )
