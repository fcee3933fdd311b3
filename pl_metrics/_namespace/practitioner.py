"""The practitioner's methods of ``.metrics``: class_likelihood_ratios (from the
confusion counts), d2_log_loss_score and d2_brier_score (from the probability rows)."""

from __future__ import annotations

from functools import partial

import polars as pl

from pl_metrics import _classification, _probability
from pl_metrics._core import checks, names
from pl_metrics._core.options import checked
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._namespace.probability import ProbabilityMethods
from pl_metrics._typing import By, Score


class PractitionerMethods(ProbabilityMethods):
    """Likelihood ratios and D^2 scores on a LazyFrame."""

    _lf: pl.LazyFrame

    def class_likelihood_ratios(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        replace_undefined_by: float | dict[str, float] = float("nan"),
    ) -> pl.LazyFrame:
        """Positive and negative likelihood ratios of binary predictions, per segment.

        Parameters
        ----------
        y_true, y_pred
            Columns of the actual and predicted labels: per segment, ``pos_label``
            and (at most) one other label.
        by, weight
            As :meth:`confusion_matrix`.
        pos_label
            The positive class; default 1 for numbers, True for booleans; required
            for string labels.
        replace_undefined_by
            The value of LR+ where fp = 0 and of LR- where tn = 0: ``nan``
            (default), ``1.0`` (both 1, a useless test) or ``{"LR+": v1, "LR-": v2}``
            (``v1`` in [1, inf] or NaN, ``v2`` in [0, 1] or NaN), as scikit-learn.

        Returns
        -------
        LazyFrame
            ``*by, positive_likelihood_ratio, negative_likelihood_ratio``:
            ``sklearn.metrics.class_likelihood_ratios`` with ``labels=[negative,
            pos_label]``.  LR+ = tp (tn + fp) / (fp (tp + fn)), LR- = fn (tn + fp) /
            (tn (tp + fn)); a segment without positive rows has NaN where the
            replacement does not apply (scikit-learn's cases, in its order).  A
            segment with two labels besides ``pos_label`` is a ``DataError``
            (scikit-learn: "only supports binary"), never a one-vs-rest merge.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": [0, 1, 0, 1, 0], "p": [1, 1, 0, 0, 0]})
        >>> df.metrics.class_likelihood_ratios("t", "p")
        shape: (1, 2)
        ┌───────────────────────────┬───────────────────────────┐
        │ positive_likelihood_ratio ┆ negative_likelihood_ratio │
        │ ---                       ┆ ---                       │
        │ f64                       ┆ f64                       │
        ╞═══════════════════════════╪═══════════════════════════╡
        │ 1.5                       ┆ 0.75                      │
        └───────────────────────────┴───────────────────────────┘
        """
        (undefined,) = checked("class_likelihood_ratios", replace_undefined_by=replace_undefined_by)
        counts, pos = groups_fairness.binary_confusion(
            self._lf,
            y_true,
            y_pred,
            by=by,
            pos_label=pos_label,
            weight=weight,
            reserved=names.output_columns("class_likelihood_ratios"),
        )
        return _classification.likelihood_ratios(
            counts,
            pos_label=pos,
            undefined=undefined,
            error=partial(checks.Bad.not_binary, "class_likelihood_ratios", y_true, y_pred, pos),
        )

    def _d2(
        self,
        metric: str,
        y_true: Score,
        y_prob: Score,
        *,
        by: By,
        pos_label: object,
        weight: str | None,
    ) -> pl.LazyFrame:
        rows = self._rows(
            y_true, y_prob, by=by, pos_label=pos_label, weight=weight, method=metric, one_hot=True
        )
        return _probability.d2_score(rows, metric)

    def d2_log_loss_score(
        self,
        y_true: Score,
        y_prob: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """D^2 of the log loss: the share of the class priors' log loss explained.

        Parameters
        ----------
        y_true, y_prob, by, pos_label, weight
            As :meth:`log_loss` (binary: the probability column of ``pos_label``;
            multiclass: ``{label: column}``, the mapping's keys being the classes;
            ``y_true`` also one-hot, ``{label: indicator column}``).

        Returns
        -------
        LazyFrame
            ``*by, d2_log_loss_score``: ``sklearn.metrics.d2_log_loss_score``,
            1 - log loss / log loss of the (weighted) class priors of the segment,
            the same clipped log loss as :meth:`log_loss`.  NaN for a segment with
            one class (the priors are then perfect; scikit-learn raises, or
            returns NaN below two rows).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 1, 1, 0], "p": [0.2, 0.7, 0.9, 0.4]})
        >>> round(df.metrics.d2_log_loss_score("y", "p")["d2_log_loss_score"][0], 6)
        0.568633
        """
        return self._d2(
            "d2_log_loss_score", y_true, y_prob, by=by, pos_label=pos_label, weight=weight
        )

    def d2_brier_score(
        self,
        y_true: Score,
        y_prob: Score,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """D^2 of the Brier score: the share of the class priors' Brier score explained.

        Parameters
        ----------
        y_true, y_prob, by, pos_label, weight
            As :meth:`brier_score` (``y_true`` also one-hot).

        Returns
        -------
        LazyFrame
            ``*by, d2_brier_score``: ``sklearn.metrics.d2_brier_score``, 1 - Brier
            score / Brier score of the (weighted) class priors of the segment.
            NaN for a segment with one class (its priors' Brier score is 0).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 1, 1, 0], "p": [0.2, 0.7, 0.9, 0.4]})
        >>> df.metrics.d2_brier_score("y", "p")["d2_brier_score"].to_list()
        [0.7]
        """
        return self._d2("d2_brier_score", y_true, y_prob, by=by, pos_label=pos_label, weight=weight)
