"""The multilabel methods of ``.metrics`` and the multilabel branch of the label methods.

``per_class``, ``averages``, ``report`` and ``summary`` hand multilabel input
(a List column, or a ``{label: indicator column}`` mapping) to
:func:`label_scores` / :func:`summary`; ``multilabel_confusion_matrix`` is
multilabel only; ``hamming_loss`` and ``zero_one_loss`` take both kinds.
"""

from __future__ import annotations

import functools

import polars as pl

from pl_metrics._core import names
from pl_metrics._core.confusion import Counts, confusion_counts
from pl_metrics._core.options import checked
from pl_metrics._intervals import multilabel
from pl_metrics._multilabel import counts
from pl_metrics._multilabel import metrics as multilabel_metrics
from pl_metrics._multilabel import state as multilabel_state
from pl_metrics._multilabel.inputs import is_multilabel, multilabel_input
from pl_metrics._typing import By, Labels, Target


def refuse_ci(ci: float | None, method: str, ci_method: str = "bootstrap") -> None:
    """Multilabel intervals are bootstrap intervals of whole rows (a row's labels are
    drawn together: :mod:`pl_metrics._intervals.multilabel`); the analytic methods
    (Wilson) are single-label only."""
    checked("multilabel input", ci=ci, ci_method=ci_method, caller=method)


def ml_counts(
    lf: pl.LazyFrame,
    y_true: Target,
    y_pred: Target,
    *,
    by: By,
    labels: Labels,
    weight: str | None,
    method: str,
    beta: float = 1.0,
    ci: bool = False,
) -> counts.MultilabelCounts:
    """Check the multilabel input and build its (lazy) counts (``ci``: the interval
    columns are reserved too)."""
    reserved = list(names.output_columns(method, beta=beta))
    if ci:
        f = names.f_name(beta)
        metrics = multilabel.METRICS[method][0]
        reserved += names.interval_columns([f if m == "{f}" else m for m in metrics])
    ml = multilabel_input(
        lf, y_true, y_pred, by=by, labels=labels, weight=weight, reserved=reserved
    )
    return counts.multilabel_counts(ml)


def label_scores(
    lf: pl.LazyFrame,
    method: str,
    y_true: Target,
    y_pred: Target,
    *,
    by: By,
    labels: Labels,
    weight: str | None,
    beta: float,
    zero_division: float,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
) -> pl.LazyFrame:
    """per_class / averages / report of multilabel input (options checked by the
    caller; ``ci``: bootstrap intervals of whole rows, un-weighted)."""
    counts = ml_counts(
        lf,
        y_true,
        y_pred,
        by=by,
        labels=labels,
        weight=weight,
        method=method,
        beta=beta,
        ci=ci is not None,
    )
    metric = {
        "per_class": multilabel_metrics.per_class,
        "averages": multilabel_metrics.averages,
        "report": multilabel_metrics.report,
    }[method]
    finish = functools.partial(metric, beta=beta, zero_division=zero_division)
    point = finish(counts)
    if ci is None:
        return point
    return multilabel.bootstrap(
        counts.ml, point, method, finish, beta=beta, ci=ci, n_boot=n_boot, seed=seed
    )


def summary(
    lf: pl.LazyFrame,
    y_true: Target,
    y_pred: Target,
    *,
    by: By,
    labels: Labels,
    weight: str | None,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = 0,
) -> pl.LazyFrame:
    """``summary`` of multilabel input: ``*by, n, subset_accuracy, hamming_loss,
    jaccard_samples`` (``ci``: with their bootstrap intervals, whole rows resampled)."""
    counts = ml_counts(
        lf,
        y_true,
        y_pred,
        by=by,
        labels=labels,
        weight=weight,
        method="summary",
        ci=ci is not None,
    )
    point = multilabel_metrics.summary(counts)
    if ci is None:
        return point
    return multilabel.bootstrap(
        counts.ml,
        point,
        "summary",
        multilabel_metrics.summary,
        beta=1.0,
        ci=ci,
        n_boot=n_boot,
        seed=seed,
    )


class MultilabelMethods:
    """Multilabel confusion matrices and the set losses, on a LazyFrame."""

    _lf: pl.LazyFrame

    def multilabel_confusion_matrix(
        self,
        y_true: Target,
        y_pred: Target,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
        samplewise: bool = False,
    ) -> pl.LazyFrame:
        """The 2x2 confusion counts of each label (or of each row) of multilabel input.

        Parameters
        ----------
        y_true, y_pred
            The actual and predicted label sets: two List columns (an empty list is a
            row without labels; a label twice in a row is an error), or two mappings
            ``{label: column}`` of Boolean / 0-1 indicator columns with the same labels.
        by
            Segment column(s) or expressions, as in :meth:`confusion_matrix`.
        labels
            The labels and their order; ``None``: the mapping's labels, or the sorted
            union of the labels of both List columns over all rows (every segment has
            the same labels).  Labels outside ``labels`` are left out of every row
            (scikit-learn's ``labels=`` selects indicator columns).
        weight
            Column of non-negative sample weights; counts become Float64 sums.
        samplewise
            One row per input row instead of per label: the counts of the row over
            the labels (times its weight), as ``samplewise=True``.

        Returns
        -------
        LazyFrame
            ``*by, label, tp, fp, fn, tn`` in label order (Int64, Float64 with weights);
            with ``samplewise``: ``*by, sample, tp, fp, fn, tn``, ``sample`` the row's
            position in the input (Int64; rows of weight 0 are absent, scikit-learn
            gives them zero counts).  ``sklearn.metrics.multilabel_confusion_matrix``'s
            ``[[tn, fp], [fn, tp]]``, tidy.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": [["cat", "dog"], ["dog"], []], "p": [["cat"], [], ["dog"]]})
        >>> df.metrics.multilabel_confusion_matrix("t", "p")
        shape: (2, 5)
        ┌───────┬─────┬─────┬─────┬─────┐
        │ label ┆ tp  ┆ fp  ┆ fn  ┆ tn  │
        │ ---   ┆ --- ┆ --- ┆ --- ┆ --- │
        │ str   ┆ i64 ┆ i64 ┆ i64 ┆ i64 │
        ╞═══════╪═════╪═════╪═════╪═════╡
        │ cat   ┆ 1   ┆ 0   ┆ 0   ┆ 2   │
        │ dog   ┆ 0   ┆ 1   ┆ 2   ┆ 0   │
        └───────┴─────┴─────┴─────┴─────┘
        >>> df.metrics.multilabel_confusion_matrix("t", "p", samplewise=True)["fn"].to_list()
        [1, 1, 0]
        """
        (samplewise,) = checked("multilabel_confusion_matrix", samplewise=samplewise)
        method = "multilabel_confusion_matrix"
        reserved = names.output_columns(method)
        ml = multilabel_input(
            self._lf,
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            reserved=reserved,
            row_index=samplewise,
        )
        if samplewise:
            n_labels = ml.label_set().select(pl.len().cast(pl.Int64).alias(counts.N_LABELS))
            return multilabel_metrics.samplewise_confusion_matrix(ml, n_labels)
        return multilabel_metrics.confusion_matrix(counts.multilabel_counts(ml))

    def multilabel_counts(
        self,
        y_true: Target,
        y_pred: Target,
        *,
        by: By = None,
        labels: Labels = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """The multilabel counts as a mergeable state (finished by
        :func:`pl_metrics.from_multilabel_counts`).

        Parameters
        ----------
        y_true, y_pred, by, labels, weight
            As :meth:`multilabel_confusion_matrix`.  ``labels=`` restricts every row to
            those labels: a merged state holds them all (choose a subset here).

        Returns
        -------
        LazyFrame
            ``*by, part, label, support, predicted, tp, n_true, n_pred, n_common, count``
            in two parts, one tidy frame (concatenate the states of shards):

            - ``part == "label"``: one row per segment and label of the label set (zero
              rows too), its ``support``, ``predicted`` and ``tp`` (Int64, Float64 with
              weights; ``n_true .. count`` null);
            - ``part == "rows"``: the row histogram, one row per segment and
              ``(n_true, n_pred, n_common)`` seen (Int64: the sizes of a row's true and
              predicted sets and of their intersection), ``count`` the number (weight)
              of such rows (``label .. tp`` null).

        Notes
        -----
        Per-label counts give ``per_class`` and the micro, macro and weighted averages;
        the ``samples`` average (a mean over rows of each row's precision, recall,
        F-beta, Jaccard), the subset accuracy and the losses are functions of the
        rows' ``(n_true, n_pred, n_common)``, which per-label counts lose (they do not
        say which labels shared a row).  Both parts are sums over rows, so the states
        of shards, concatenated, are the state of all rows.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": [["cat", "dog"], ["dog"], []], "p": [["cat"], [], ["dog"]]})
        >>> state = df.metrics.multilabel_counts("t", "p")
        >>> state.filter(part="label").select("label", "support", "predicted", "tp")
        shape: (2, 4)
        ┌───────┬─────────┬───────────┬─────┐
        │ label ┆ support ┆ predicted ┆ tp  │
        │ ---   ┆ ---     ┆ ---       ┆ --- │
        │ str   ┆ i64     ┆ i64       ┆ i64 │
        ╞═══════╪═════════╪═══════════╪═════╡
        │ cat   ┆ 1       ┆ 1         ┆ 1   │
        │ dog   ┆ 2       ┆ 1         ┆ 0   │
        └───────┴─────────┴───────────┴─────┘
        >>> state.filter(part="rows").select("n_true", "n_pred", "n_common", "count")
        shape: (3, 4)
        ┌────────┬────────┬──────────┬───────┐
        │ n_true ┆ n_pred ┆ n_common ┆ count │
        │ ---    ┆ ---    ┆ ---      ┆ ---   │
        │ i64    ┆ i64    ┆ i64      ┆ i64   │
        ╞════════╪════════╪══════════╪═══════╡
        │ 0      ┆ 1      ┆ 0        ┆ 1     │
        │ 1      ┆ 0      ┆ 0        ┆ 1     │
        │ 2      ┆ 1      ┆ 1        ┆ 1     │
        └────────┴────────┴──────────┴───────┘
        """
        counts = ml_counts(
            self._lf,
            y_true,
            y_pred,
            by=by,
            labels=labels,
            weight=weight,
            method="multilabel_counts",
        )
        return multilabel_state.state_frame(counts)

    def hamming_loss(
        self,
        y_true: Target,
        y_pred: Target,
        *,
        by: By = None,
        weight: str | None = None,
    ) -> pl.LazyFrame:
        """The Hamming loss: the (weighted) share of wrong labels.

        Parameters
        ----------
        y_true, y_pred
            Single-label columns, or multilabel input as in
            :meth:`multilabel_confusion_matrix`.
        by, weight
            As :meth:`confusion_matrix`.

        Returns
        -------
        LazyFrame
            ``*by, hamming_loss`` (Float64).

        Notes
        -----
        ``sklearn.metrics.hamming_loss``: single-label, the share of rows predicted
        wrong (1 - accuracy); multilabel, the mean over rows and labels of
        ``label in true set xor label in predicted set``, i.e. the symmetric
        differences' sizes over ``n_rows x n_labels`` (rows weighted by
        ``weight``).  The labels are the mapping's, or the union of the List
        columns' over all rows: a label no row holds counts only in the mapping form.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": [["a", "b"], ["b"]], "p": [["a"], ["b", "c"]]})
        >>> df.metrics.hamming_loss("t", "p")["hamming_loss"].to_list()
        [0.3333333333333333]
        """
        method = "hamming_loss"
        if is_multilabel(self._lf, y_true):
            counts = ml_counts(
                self._lf, y_true, y_pred, by=by, labels=None, weight=weight, method=method
            )
            return multilabel_metrics.hamming_loss(counts)
        return multilabel_metrics.label_hamming_loss(
            self._single(y_true, y_pred, by, weight, method)
        )

    def zero_one_loss(
        self,
        y_true: Target,
        y_pred: Target,
        *,
        by: By = None,
        weight: str | None = None,
        normalize: bool = True,
    ) -> pl.LazyFrame:
        """The zero-one loss: the (weighted) share of rows not predicted exactly.

        Parameters
        ----------
        y_true, y_pred
            Single-label columns, or multilabel input as in
            :meth:`multilabel_confusion_matrix` (a row counts as right only when its
            predicted set is its true set: 1 - the subset accuracy).
        by, weight
            As :meth:`confusion_matrix`.
        normalize
            ``False``: the number (or weight) of the rows predicted wrong instead of
            their share (``sklearn.metrics.zero_one_loss(normalize=False)``).

        Returns
        -------
        LazyFrame
            ``*by, zero_one_loss`` (Float64; Int64 with ``normalize=False`` and no weights).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"t": [0, 1, 1, 2], "p": [0, 1, 2, 2]})
        >>> df.metrics.zero_one_loss("t", "p")["zero_one_loss"].to_list()
        [0.25]
        """
        (normalize,) = checked("zero_one_loss", normalize=normalize)
        method = "zero_one_loss"
        if is_multilabel(self._lf, y_true):
            counts = ml_counts(
                self._lf, y_true, y_pred, by=by, labels=None, weight=weight, method=method
            )
            return multilabel_metrics.zero_one_loss(counts, normalize=normalize)
        counts_1 = self._single(y_true, y_pred, by, weight, method)
        return multilabel_metrics.label_zero_one_loss(counts_1, normalize=normalize)

    def _single(
        self, y_true: Target, y_pred: Target, by: By, weight: str | None, method: str
    ) -> Counts:
        checked("multilabel input", y_true=y_true, y_pred=y_pred, multilabel=False)
        return confusion_counts(
            self._lf,
            str(y_true),  # a mapping is multilabel
            y_pred,
            by=by,
            labels=None,
            weight=weight,
            reserved=names.output_columns(method),
        )
