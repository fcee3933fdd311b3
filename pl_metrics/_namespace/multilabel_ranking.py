"""The multilabel ranking methods of ``.metrics``: coverage_error,
label_ranking_average_precision, label_ranking_loss, ndcg and dcg.

Each reads a multilabel ``y_true`` and one score per label (``{label: column}``
or a List column aligned with ``labels=``), computes the metric of every row
with list expressions and averages the rows of each segment
(:mod:`pl_metrics._multilabel.ranking`): lazy, streaming, one aggregation.
"""

from __future__ import annotations

import polars as pl

from pl_metrics._core import names
from pl_metrics._core.options import checked
from pl_metrics._multilabel import ranking
from pl_metrics._multilabel.ranking_rows import RankingRows
from pl_metrics._typing import By, Labels, Score


def per_row_rows(
    lf: pl.LazyFrame,
    method: str,
    y_true: Score,
    y_score: Score,
    *,
    labels: Labels,
    by: By,
    weight: str | None,
    relevance: bool = False,
    reserved: tuple[str, ...] = (),
) -> RankingRows:
    """The checked rows of per-row ranking metric ``method`` (the engines' shards make
    their state of them too: :mod:`pl_metrics._engines.row_means`)."""
    return ranking.ranking_rows(
        lf,
        y_true,
        y_score,
        labels=labels,
        by=by,
        weight=weight,
        reserved=reserved,
        relevance=relevance,
        nonnegative=method == "ndcg",
        # scikit-learn's LRAP of one label is 1 (a row all true or all false)
        at_least=1 if method == "label_ranking_average_precision" else 2,
    )


class MultilabelRankingMethods:
    """Ranking metrics of multilabel scores, on a LazyFrame."""

    _lf: pl.LazyFrame

    def _per_row(
        self,
        method: str,
        y_true: Score,
        y_score: Score,
        *,
        labels: Labels,
        by: By,
        weight: str | None,
        relevance: bool = False,
        **options: object,
    ) -> pl.LazyFrame:
        rows = per_row_rows(
            self._lf,
            method,
            y_true,
            y_score,
            labels=labels,
            by=by,
            weight=weight,
            relevance=relevance,
            reserved=names.output_columns(method),
        )
        return ranking.row_metric(rows, method, method, **options)

    def coverage_error(
        self,
        y_true: Score,
        y_score: Score,
        *,
        labels: Labels = None,
        by: By = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Coverage error: how far down each row's ranking of labels all its true labels
        are covered (scikit-learn's ``coverage_error``), per segment.

        Parameters
        ----------
        y_true
            Multilabel truth: a List column of each row's labels (an empty list: no
            label), or ``{label: indicator column}`` (Boolean, 0/1 integer or 0.0/1.0
            float columns).
        y_score
            The score of every label: ``{label: score column}``, or a List column of
            scores aligned with ``labels`` (one number per label, in that order).
        labels
            The labels of a List column of scores, in its order (required then); with
            a mapping, None (the mapping's labels) or the same labels in output order.
        by
            Segment column(s) or expression(s), as in :meth:`confusion_matrix`.
        weight
            Column of non-negative sample weights (the rows' mean is weighted).

        Returns
        -------
        LazyFrame
            ``*by, coverage_error`` (Float64): the (weighted) mean over the rows of
            the number of labels scored at least as high as the row's lowest-scored
            true label (ties: all tied labels count, scikit-learn's rule); 0 for a
            row without true labels.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame(
        ...     {"tags": [["a"], ["b", "c"]], "s": [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]}
        ... )
        >>> df.metrics.coverage_error("tags", "s", labels=["a", "b", "c"])
        shape: (1, 1)
        ┌────────────────┐
        │ coverage_error │
        │ ---            │
        │ f64            │
        ╞════════════════╡
        │ 1.5            │
        └────────────────┘
        """
        return self._per_row("coverage_error", y_true, y_score, labels=labels, by=by, weight=weight)

    def label_ranking_average_precision(
        self,
        y_true: Score,
        y_score: Score,
        *,
        labels: Labels = None,
        by: By = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Label ranking average precision (LRAP, scikit-learn's
        ``label_ranking_average_precision_score``), per segment.

        Parameters
        ----------
        y_true, y_score, labels, by, weight
            As :meth:`coverage_error`.

        Returns
        -------
        LazyFrame
            ``*by, label_ranking_average_precision`` (Float64): the (weighted) mean
            over the rows of: for each true label, the share of true labels among
            the labels scored at least as high, averaged over the row's true
            labels; 1 for a row whose labels are all true or all false (so 1.0
            with a single label, as scikit-learn).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [[0], [2]], "s": [[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]]})
        >>> df.metrics.label_ranking_average_precision("y", "s", labels=[0, 1, 2])[
        ...     "label_ranking_average_precision"
        ... ].round(6).to_list()
        [0.416667]
        """
        return self._per_row(
            "label_ranking_average_precision",
            y_true,
            y_score,
            labels=labels,
            by=by,
            weight=weight,
        )

    def label_ranking_loss(
        self,
        y_true: Score,
        y_score: Score,
        *,
        labels: Labels = None,
        by: By = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Label ranking loss (scikit-learn's ``label_ranking_loss``), per segment.

        Parameters
        ----------
        y_true, y_score, labels, by, weight
            As :meth:`coverage_error`.

        Returns
        -------
        LazyFrame
            ``*by, label_ranking_loss`` (Float64): the (weighted) mean over the rows
            of the share of (true, false) label pairs ordered wrongly - the false
            label scored at least as high as the true one (a tie is an error);
            0 for a row whose labels are all true or all false.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [[0], [2]], "s": [[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]]})
        >>> df.metrics.label_ranking_loss("y", "s", labels=[0, 1, 2])
        shape: (1, 1)
        ┌────────────────────┐
        │ label_ranking_loss │
        │ ---                │
        │ f64                │
        ╞════════════════════╡
        │ 0.75               │
        └────────────────────┘
        """
        return self._per_row(
            "label_ranking_loss", y_true, y_score, labels=labels, by=by, weight=weight
        )

    def dcg(
        self,
        y_true: Score,
        y_score: Score,
        *,
        labels: Labels = None,
        k: int | None = None,
        log_base: float = 2.0,
        ignore_ties: bool = False,
        by: By = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Discounted cumulative gain (scikit-learn's ``dcg_score``), per segment.

        Parameters
        ----------
        y_true
            Graded relevance of every label, in the form of the scores:
            ``{label: column}`` (numbers or Booleans) or a List column of numbers
            aligned with ``labels``.  (A List of label *sets* is not relevance;
            turn it into indicators first.)
        y_score
            As :meth:`coverage_error`.
        labels
            The labels of the List columns, in their order (required with a List
            column); with mappings, None or the same labels.
        k
            Only the ``k`` highest-scored positions count (None: every position).
        log_base
            Base of the logarithm of the discount ``1 / log(position + 1)``.
        ignore_ties
            Rank tied scores in an arbitrary order (faster; for scores without
            ties) instead of averaging the gains of tied labels.
        by, weight
            As :meth:`coverage_error`.

        Returns
        -------
        LazyFrame
            ``*by, dcg`` (Float64): the (weighted) mean over the rows of
            ``sum relevance / log_base(position + 1)`` over the positions of the
            labels ranked by descending score (the first position is 1); tied
            scores share the mean discount of the positions they span (McSherry &
            Najork, as scikit-learn).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"rel": [[10, 0, 0, 1, 5]], "s": [[0.1, 0.2, 0.3, 4.0, 70.0]]})
        >>> df.metrics.dcg("rel", "s", labels=list("abcde"))["dcg"].round(4).to_list()
        [9.4995]
        """
        k, log_base, ignore_ties = checked("dcg", k=k, log_base=log_base, ignore_ties=ignore_ties)
        return self._per_row(
            "dcg",
            y_true,
            y_score,
            labels=labels,
            by=by,
            weight=weight,
            relevance=True,
            k=k,
            log_base=log_base,
            ignore_ties=ignore_ties,
        )

    def ndcg(
        self,
        y_true: Score,
        y_score: Score,
        *,
        labels: Labels = None,
        k: int | None = None,
        ignore_ties: bool = False,
        by: By = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """Normalized discounted cumulative gain (scikit-learn's ``ndcg_score``), per segment.

        Parameters
        ----------
        y_true
            Non-negative graded relevance, as :meth:`dcg` (a negative relevance is
            a data error, as in scikit-learn).
        y_score, labels, k, ignore_ties, by, weight
            As :meth:`dcg`.

        Returns
        -------
        LazyFrame
            ``*by, ndcg`` (Float64): the (weighted) mean over the rows of DCG@k
            divided by the ideal DCG@k (the relevances sorted); 0 for a row
            without a relevant label (ideal DCG 0).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"rel": [[10, 0, 0, 1, 5]], "s": [[0.05, 1.1, 1.0, 0.5, 0.0]]})
        >>> df.metrics.ndcg("rel", "s", labels=list("abcde"), k=4)["ndcg"].round(2).to_list()
        [0.35]
        """
        k, ignore_ties = checked("ndcg", k=k, ignore_ties=ignore_ties)
        return self._per_row(
            "ndcg",
            y_true,
            y_score,
            labels=labels,
            by=by,
            weight=weight,
            relevance=True,
            k=k,
            ignore_ties=ignore_ties,
        )
