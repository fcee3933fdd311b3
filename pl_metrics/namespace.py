"""The ``.metrics`` namespace on :class:`polars.LazyFrame` and :class:`polars.DataFrame`.

The LazyFrame methods build a query and never collect (they read the schema
only); the DataFrame methods are ``self._df.lazy().metrics.<m>(...).collect()``,
except un-weighted binary / one-vs-rest ``roc_auc`` on continuous scores, which
sorts the in-memory rows instead of counting every distinct score (same number,
faster; see ``_ranking_sorted``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import TypeVar

import polars as pl

from pl_metrics import _classification as cls
from pl_metrics import _intervals as iv
from pl_metrics import _ranking as rk
from pl_metrics import _ranking_sorted as sorted_path
from pl_metrics._compare import CompareEagerMethods, CompareLazyMethods
from pl_metrics._core import checks as v
from pl_metrics._core import names
from pl_metrics._core.names import COUNTS_STATE
from pl_metrics._counts import Counts, confusion_counts
from pl_metrics._namespace_proba import ProbabilityEagerMethods, ProbabilityLazyMethods
from pl_metrics._typing import AucAverage, By, CiMethod, Labels, MultiClass, Score

_F = TypeVar("_F", bound=Callable[..., object])


def _wants_ci(
    ci: float | None,
    n_boot: int,
    ci_method: str,
    weight: str | None,
    *,
    methods: tuple[str, ...],
) -> bool:
    """Check the interval options (before anything else); True when intervals are asked for."""
    if not v.check_ci(ci, n_boot, ci_method, methods):
        return False
    if ci_method == "bootstrap" and importlib.util.find_spec("numpy") is None:
        msg = "ci_method='bootstrap' needs numpy: pip install numpy (or use an analytic ci_method)"
        raise ModuleNotFoundError(msg)
    if weight is not None:
        msg = (
            "`ci` needs un-weighted rows (the intervals resample counts of rows); "
            "drop `weight` or compute the weighted point estimate alone"
        )
        raise ValueError(msg)
    return True


@pl.api.register_lazyframe_namespace("metrics")
class MetricsLazyFrame(ProbabilityLazyMethods, CompareLazyMethods):
    """Classification metrics of a LazyFrame's rows, as lazy tidy frames."""

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

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

    def confusion_matrix(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Confusion counts, one row per (actual, predicted) pair, zero cells included.

        Parameters
        ----------
        y_true, y_pred
            Columns of the actual and predicted class labels.
        by
            Segment column(s); the result starts with them and is sorted by them.
        labels
            Classes and their order; ``None`` is the sorted union of the labels seen
            in each segment.  Rows with a label outside ``labels`` are not counted
            (as ``sklearn.metrics.confusion_matrix``).
        weight
            Column of non-negative sample weights; counts become Float64 sums.

        Returns
        -------
        LazyFrame
            ``*by, actual, predicted, count`` (count: Int64, Float64 with weights),
            sorted by segment, then actual and predicted in label order.  Pivoting
            gives ``sklearn.metrics.confusion_matrix``.

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
        """
        return cls.confusion_matrix(
            self._counts(
                y_true, y_pred, by=by, labels=labels, weight=weight, method="confusion_matrix"
            )
        )

    def per_class(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod = "bootstrap",
    ) -> pl.LazyFrame:
        """Counts and scores of each class against the rest.

        Parameters
        ----------
        y_true, y_pred, by, labels, weight
            As :meth:`confusion_matrix`, except that rows whose labels lie outside
            ``labels`` still count as false negatives / positives of the listed
            classes and in ``tn`` (``sklearn.metrics.precision_recall_fscore_support``).
        beta
            F-beta's beta, finite and > 0.
        zero_division
            Value of a ratio whose denominator is 0: 0.0, 1.0 or NaN.

        Returns
        -------
        LazyFrame
            ``*by, label, support, predicted, tp, fp, fn, tn`` (Int64, Float64 with
            weights) and ``precision, recall, specificity, f1, jaccard`` (Float64;
            the F column is ``f{beta:g}`` when beta != 1).

        Notes
        -----
        precision = tp / (tp + fp), recall = tp / (tp + fn), specificity = tn / (tn + fp),
        F-beta = (1 + b^2) tp / (b^2 (tp + fn) + tp + fp), jaccard = tp / (tp + fp + fn);
        ``zero_division`` where a denominator is 0.

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
        b, zd = v.check_beta(beta), v.check_zero_division(zero_division)
        wants_ci = _wants_ci(ci, n_boot, ci_method, weight, methods=("bootstrap", "wilson"))
        counts = self._counts(
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            method="per_class",
            beta=b,
            ci=wants_ci,
        )
        point = cls.per_class(counts, beta=b, zero_division=zd)
        if wants_ci:
            if ci_method == "wilson":
                return iv.wilson_per_class(point, ci, b)
            return iv.bootstrap_labels(
                counts,
                point,
                "per_class",
                beta=b,
                zero_division=zd,
                ci=ci,
                n_boot=n_boot,
                seed=seed,
            )
        return point

    def averages(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod = "bootstrap",
    ) -> pl.LazyFrame:
        """Micro, macro and support-weighted averages of the per-class scores.

        Parameters
        ----------
        y_true, y_pred, by, labels, weight, beta, zero_division
            As :meth:`per_class`.

        Returns
        -------
        LazyFrame
            ``*by, average, precision, recall, f1, jaccard, support``; ``average`` is
            ``"micro"``, ``"macro"``, ``"weighted"`` in that order.

        Notes
        -----
        micro: the ratios of the summed counts.  macro / weighted: the mean /
        support-weighted mean of the per-class scores; with ``zero_division=nan``
        they skip the NaN classes (scikit-learn's ``_nanaverage``; its
        ``jaccard_score`` has no NaN option, and Jaccard follows the same rule
        here).  ``support`` is the total support of the classes.

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
        b, zd = v.check_beta(beta), v.check_zero_division(zero_division)
        wants_ci = _wants_ci(ci, n_boot, ci_method, weight, methods=("bootstrap",))
        counts = self._counts(
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            method="averages",
            beta=b,
            ci=wants_ci,
        )
        point = cls.averages(counts, beta=b, zero_division=zd)
        if wants_ci:
            return iv.bootstrap_labels(
                counts,
                point,
                "averages",
                beta=b,
                zero_division=zd,
                ci=ci,
                n_boot=n_boot,
                seed=seed,
            )
        return point

    def report(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod = "bootstrap",
    ) -> pl.LazyFrame:
        """The classification report: per-class rows, then the three averages.

        Parameters
        ----------
        y_true, y_pred, by, labels, weight, beta, zero_division
            As :meth:`per_class`.

        Returns
        -------
        LazyFrame
            ``*by, label, average, precision, recall, f1, jaccard, support``: the
            per-class rows (``average`` null) then micro, macro, weighted (``label``
            null), per segment.

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
        b, zd = v.check_beta(beta), v.check_zero_division(zero_division)
        wants_ci = _wants_ci(ci, n_boot, ci_method, weight, methods=("bootstrap",))
        counts = self._counts(
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            method="report",
            beta=b,
            ci=wants_ci,
        )
        point = cls.report(counts, beta=b, zero_division=zd)
        if wants_ci:
            return iv.bootstrap_labels(
                counts,
                point,
                "report",
                beta=b,
                zero_division=zd,
                ci=ci,
                n_boot=n_boot,
                seed=seed,
            )
        return point

    def summary(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod = "bootstrap",
    ) -> pl.LazyFrame:
        """Accuracy, balanced accuracy, MCC and Cohen's kappa, one row per segment.

        Parameters
        ----------
        y_true, y_pred, by, labels, weight
            As :meth:`confusion_matrix`; the numbers are computed on that
            confusion matrix (with ``labels``, rows outside them are dropped).

        Returns
        -------
        LazyFrame
            ``*by, n, accuracy, balanced_accuracy, mcc, cohen_kappa``; ``n`` is the
            number (or weight) of rows counted.

        Notes
        -----
        As scikit-learn: balanced accuracy is the mean recall over the classes
        present in ``y_true``; MCC is 0 when a covariance is 0; kappa is NaN when
        the expected disagreement is 0.

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
        wants_ci = _wants_ci(ci, n_boot, ci_method, weight, methods=("bootstrap", "wilson"))
        counts = self._counts(
            y_true, y_pred, by=by, labels=labels, weight=weight, method="summary", ci=wants_ci
        )
        point = cls.summary(counts)
        if wants_ci:
            if ci_method == "wilson":
                return iv.wilson_accuracy(point, ci)
            return iv.bootstrap_labels(
                counts,
                point,
                "summary",
                ci=ci,
                n_boot=n_boot,
                seed=seed,
            )
        return point

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
    ) -> rk.ScoreCounts:
        return rk.binary_score_counts(
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
        ci_method: CiMethod = "bootstrap",
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
            Segment column(s).
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
            wants_ci = _wants_ci(ci, n_boot, ci_method, weight, methods=("bootstrap", "delong"))
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
        counts = rk.multiclass_score_counts(
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
        ci_method: CiMethod = "bootstrap",
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
        wants_ci = _wants_ci(ci, n_boot, ci_method, weight, methods=("bootstrap",))
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
    ) -> pl.LazyFrame:
        """The precision-recall curve: the points of ``sklearn.metrics.precision_recall_curve``.

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_auc` (binary).

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
        counts = self._binary(
            y_true, y_score, by=by, pos_label=pos_label, weight=weight, bins=bins, method="pr_curve"
        )
        return rk.pr_curve(counts)

    def counts(
        self, y_true: str, y_pred: str, *, by: By = None, weight: str | None = None
    ) -> pl.LazyFrame:
        """The confusion counts as a mergeable state: ``*by, actual, predicted, count``.

        One row per (segment, actual, predicted) pair seen (no zero cells).
        States of several shards or days are merged by concatenating them;
        :func:`pl_metrics.from_counts` finishes any metric of this namespace.

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
        return counts.finish(frame, list(public)).rename(public)

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
        return counts.finish(counts.frame).rename(rk.PUBLIC_STATE)


def _eager(method: _F) -> _F:
    """Give a DataFrame method the docstring of its LazyFrame twin."""
    method.__doc__ = getattr(MetricsLazyFrame, method.__name__).__doc__
    return method


@pl.api.register_dataframe_namespace("metrics")
class MetricsDataFrame(ProbabilityEagerMethods, CompareEagerMethods):
    """Classification metrics of a DataFrame's rows, as tidy DataFrames.

    Each method is ``df.lazy().metrics.<method>(...).collect()`` (un-weighted
    ``roc_auc`` on continuous scores sorts instead; same number).
    """

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df

    @property
    def _lazy(self) -> MetricsLazyFrame:
        return MetricsLazyFrame(self._df.lazy())

    @_eager
    def confusion_matrix(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
    ) -> pl.DataFrame:
        return self._lazy.confusion_matrix(
            y_true, y_pred, by=by, labels=labels, weight=weight
        ).collect()

    @_eager
    def per_class(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod = "bootstrap",
    ) -> pl.DataFrame:
        return self._lazy.per_class(
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            beta=beta,
            zero_division=zero_division,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        ).collect()

    @_eager
    def averages(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod = "bootstrap",
    ) -> pl.DataFrame:
        return self._lazy.averages(
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            beta=beta,
            zero_division=zero_division,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        ).collect()

    @_eager
    def report(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod = "bootstrap",
    ) -> pl.DataFrame:
        return self._lazy.report(
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            beta=beta,
            zero_division=zero_division,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        ).collect()

    @_eager
    def summary(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod = "bootstrap",
    ) -> pl.DataFrame:
        return self._lazy.summary(
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        ).collect()

    @_eager
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
        ci_method: CiMethod = "bootstrap",
    ) -> pl.DataFrame:
        # The rows are in memory: continuous binary scores are faster sorted than
        # counted (the same number; see _ranking_sorted).
        v.check_choice("multi_class", multi_class, ("ovr", "ovo"))
        v.check_choice("average", average, ("macro", "weighted"))
        if (
            weight is None
            and bins is None
            and ci is None
            and (isinstance(y_score, str) or multi_class == "ovr")
            and sorted_path.use_sorted_path(self._df, y_score)
        ):
            return sorted_path.roc_auc_sorted(
                self._df,
                y_true,
                y_score,
                by=by,
                pos_label=pos_label,
                average=average,
                reserved=names.output_columns("roc_auc"),
            )
        return self._lazy.roc_auc(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            multi_class=multi_class,
            average=average,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        ).collect()

    @_eager
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
        ci_method: CiMethod = "bootstrap",
    ) -> pl.DataFrame:
        return self._lazy.average_precision(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        ).collect()

    @_eager
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
    ) -> pl.DataFrame:
        return self._lazy.roc_curve(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            drop_intermediate=drop_intermediate,
        ).collect()

    @_eager
    def pr_curve(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        bins: int | None = None,
    ) -> pl.DataFrame:
        return self._lazy.pr_curve(
            y_true, y_score, by=by, pos_label=pos_label, weight=weight, bins=bins
        ).collect()

    @_eager
    def counts(
        self, y_true: str, y_pred: str, *, by: By = None, weight: str | None = None
    ) -> pl.DataFrame:
        return self._lazy.counts(y_true, y_pred, by=by, weight=weight).collect()

    @_eager
    def score_counts(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        bins: int | None = None,
    ) -> pl.DataFrame:
        return self._lazy.score_counts(
            y_true, y_score, by=by, pos_label=pos_label, weight=weight, bins=bins
        ).collect()


__all__ = ["MetricsDataFrame", "MetricsLazyFrame"]
