"""The scoring-model tables of ``.metrics``: the KS statistic and the gains / lift table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from pl_metrics import _probability
from pl_metrics._core import table_options
from pl_metrics._core.options import checked
from pl_metrics._namespace.probability import ProbabilityMethods
from pl_metrics._namespace.ranking import RankingMethods
from pl_metrics._ranking import gains
from pl_metrics._ranking import thresholds as ranking_thresholds
from pl_metrics._typing import By


class ScoringMethods(RankingMethods, ProbabilityMethods):
    """KS and gains of a binary score, on a LazyFrame (from the per-score counts)."""

    def ks(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        bins: int | None = None,
    ) -> pl.LazyFrame:
        """The Kolmogorov-Smirnov statistic of the positive vs the negative scores.

        ``max |F_pos(x) - F_neg(x)|`` over the score distributions of the
        positives and the negatives (``scipy.stats.ks_2samp(pos, neg).statistic``;
        the weighted distributions with ``weight``), which is the largest
        ``|tpr - fpr|`` over the ROC points.

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight
            As :meth:`roc_auc` (binary).
        bins
            Approximate mode (scores in [0, 1], ``bins`` equal-width bins): adds
            ``ks_error_bound``; the exact statistic lies in
            ``[ks, ks + ks_error_bound]``.

        Returns
        -------
        LazyFrame
            ``*by, ks, threshold`` (with ``bins``: and ``ks_error_bound``):
            ``threshold`` is the highest threshold (a row is positive when its
            score is ``>= threshold``) where the maximum is reached.  Null for a
            segment without positives or negatives.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 0, 1, 1], "s": [0.1, 0.2, 0.3, 0.4, 0.8, 0.9]})
        >>> df.metrics.ks("y", "s").row(0)  # tpr - fpr = 2/3 - 0 at 0.8 (and 1 - 1/3 at 0.3)
        (0.6666666666666666, 0.8)
        """
        counts = self._binary(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            method="ks",
            sortable=True,
        )
        return gains.ks(counts, error_bound=bins is not None)

    def gains(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        buckets: int | Sequence[float] = 10,
        bins: int | None = None,
    ) -> pl.LazyFrame:
        """The cumulative gains and lift table, by buckets of score (deciles by default).

        The rows are sorted by score, highest first, and cut into ``buckets``
        equal shares of rows (or at the given cumulative shares).  **Tied scores
        stay together**: a block of equal scores goes to the bucket in which its
        first row falls, so buckets are equal only up to ties, and a bucket that
        a large tied block skips over is absent from the table.

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_auc` (binary); with ``weight``, shares are shares of the
            total weight.
        buckets
            The number of equal shares (10: deciles), or increasing cumulative
            shares in (0, 1] such as ``[0.01, 0.05, 0.1, 0.2, 0.5]`` (top 1 %,
            5 %, ...; a last share of 1 is implied).

        Returns
        -------
        LazyFrame
            ``*by, bucket, threshold, rows, positives, rate, cum_share, gain, lift,
            cum_lift``: ``bucket`` 1 holds the highest scores; ``threshold`` the
            bucket's lowest score; ``rate`` = positives / rows; ``cum_share`` and
            ``gain`` the shares of all rows and of all positives in buckets 1..b;
            ``lift`` = rate / the segment's positive rate; ``cum_lift`` the same
            for buckets 1..b (NaN without positives).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [1, 1, 0, 1, 0, 0], "s": [0.9, 0.8, 0.7, 0.3, 0.2, 0.1]})
        >>> out = df.metrics.gains("y", "s", buckets=3)  # 2 rows per bucket, base rate 1/2
        >>> out["positives"].to_list(), out["gain"].round(4).to_list(), out["lift"].to_list()
        ([2, 1, 0], [0.6667, 1.0, 1.0], [2.0, 1.0, 0.0])
        """
        (cuts,) = checked("gains", buckets=buckets)
        counts = self._binary(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            method="gains",
            sortable=True,
        )
        return gains.gains(counts, cuts=cuts)

    def expected_cost(
        self,
        y_true: str,
        y_score: str,
        *,
        cost_matrix: Sequence[Sequence[float]],
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        best: bool = False,
        bins: int | None = None,
    ) -> pl.LazyFrame:
        """The expected cost per row of thresholding the score, at every threshold.

        A row is predicted positive when its score is ``>= threshold``; its cost
        is ``cost_matrix[actual][predicted]`` (negative first, as the rows and
        columns of ``confusion_matrix(labels=[negative, positive])``).

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_auc` (binary).
        cost_matrix
            ``[[cost(neg -> neg), cost(neg -> pos)], [cost(pos -> neg), cost(pos -> pos)]]``,
            e.g. ``[[0, 1], [10, 0]]``: a missed positive costs ten false alarms.
        best
            Only the threshold of least cost per segment (the highest among ties).

        Returns
        -------
        LazyFrame
            ``*by, threshold, tp, fp, fn, tn, cost``: thresholds descending, the
            first ``+inf`` (every row predicted negative), then every distinct
            score; ``cost`` = ``(c00 tn + c01 fp + c10 fn + c11 tp) / rows``.
            ``tp`` .. ``tn`` are Int64 (Float64 sums with ``weight``).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.expected_cost("y", "s", cost_matrix=[[0, 1], [5, 0]])["cost"].to_list()
        [2.5, 1.25, 1.5, 0.25, 0.5]
        """
        matrix = table_options.check_cost_matrix(cost_matrix)
        (best,) = checked("expected_cost", best=best)
        counts = self._binary(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            method="expected_cost",
            sortable=True,
        )
        return ranking_thresholds.expected_cost(counts, matrix=matrix, best=best)

    def decision_cost(
        self,
        y_true: str,
        y_prob: Mapping[object, str],
        *,
        cost_matrix: Mapping[object, Mapping[object, float]],
        by: By = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Multiclass expected cost of the decisions of least expected cost.

        Each row is decided as the class ``j`` that minimises its expected cost
        under its probabilities, ``sum_i p_i cost_matrix[i][j]`` (the Bayes
        decision: with calibrated probabilities no rule costs less on average);
        the result is the mean cost ``cost_matrix[actual][decided]`` of those
        decisions, the multiclass counterpart of
        ``expected_cost(..., best=True)``.

        Parameters
        ----------
        y_true, by, weight
            As :meth:`log_loss`.
        y_prob
            ``{label: column}`` of the classes' probabilities (each row sums to 1).
        cost_matrix
            ``{actual: {decided: cost}}`` for every pair of the mapping's classes.

        Returns
        -------
        LazyFrame
            ``*by, cost``.  Ties between decisions (expected costs within a
            relative 1e-12 of each other, so that the last bit of a float sum
            never decides) go to the first class in sorted label order.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": ["a", "b", "c"], "pa": [0.6, 0.3, 0.2],
        ...                    "pb": [0.3, 0.4, 0.2], "pc": [0.1, 0.3, 0.6]})
        >>> costs = {"a": {"a": 0, "b": 1, "c": 1}, "b": {"a": 1, "b": 0, "c": 1},
        ...          "c": {"a": 10, "b": 10, "c": 0}}
        >>> # a missed c costs 10: row 1 expects 1.3 (a), 1.6 (b), 0.9 (c), and every row
        >>> # is decided c; the actual a, b, c then cost 1, 1, 0
        >>> df.metrics.decision_cost("y", {"a": "pa", "b": "pb", "c": "pc"}, cost_matrix=costs)[
        ...     "cost"
        ... ].item()
        0.6666666666666666
        """
        rows = self._rows(
            y_true, y_prob, by=by, pos_label=None, weight=weight, method="decision_cost"
        )
        checked("decision_cost", y_prob=y_prob)
        costs = table_options.check_cost_table(cost_matrix, rows.labels.to_list())
        return _probability.decision_cost(rows, costs=costs)

    def cost_curve(
        self,
        y_true: str,
        y_score: str,
        *,
        by: By = None,
        pos_label: object = None,
        weight: str | None = None,
        points: int = 101,
        bins: int | None = None,
    ) -> pl.LazyFrame:
        """Drummond and Holte's cost curve: the least normalised expected cost per
        probability cost.

        For a probability cost ``pc`` (the share of the cost of the positives,
        ``p(+) c(fn) / (p(+) c(fn) + p(-) c(fp))``), each threshold's normalised
        expected cost is ``(1 - tpr) pc + fpr (1 - pc)``; the curve is its
        minimum over all thresholds (the trivial "all negative" and "all
        positive" included), at ``points`` equally spaced ``pc`` in [0, 1].

        Parameters
        ----------
        y_true, y_score, by, pos_label, weight, bins
            As :meth:`roc_auc` (binary).
        points
            The number of probability costs, ``0, 1/(points-1), ..., 1``.

        Returns
        -------
        LazyFrame
            ``*by, probability_cost, normalized_cost``; a segment without
            positives or negatives has no rows.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.cost_curve("y", "s", points=3)["normalized_cost"].to_list()
        [0.0, 0.25, 0.0]
        """
        (n,) = checked("cost_curve", points=points)
        counts = self._binary(
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            bins=bins,
            method="cost_curve",
            sortable=True,
        )
        return ranking_thresholds.cost_curve(counts, points=n)
