"""Threshold tables of a binary score: the sweep, the best threshold, the DET curve
and the threshold report."""

from __future__ import annotations

import math
from functools import partial

import polars as pl

from pl_metrics._core import checks, inputs, names, scores
from pl_metrics._core.labels import negative_label
from pl_metrics._core.options import checked
from pl_metrics._ranking import thresholds as ranking_thresholds
from pl_metrics._typing import By, ThresholdMetric


class ThresholdMethods:
    """``thresholds``, ``best_threshold``, ``det_curve`` and ``threshold_report`` on a
    LazyFrame."""

    _lf: pl.LazyFrame

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
        b, zd, bins = checked("thresholds", beta=beta, zero_division=zero_division, bins=bins)
        counts = scores.binary_score_counts(
            self._lf,
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            reserved=names.output_columns("thresholds", beta=b),
            bins=bins,
            sortable=True,
        )
        return ranking_thresholds.sweep(counts, beta=b, zero_division=zd)

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
            threshold among ties), ``*by, threshold, tp, fp, fn, tn, precision,
            recall, f1`` (the F column of ``beta``) ``, specificity, accuracy,
            mcc``; a segment where no threshold satisfies ``where`` has no row.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
        >>> df.metrics.best_threshold("y", "s", metric="precision",
        ...     where=pl.col("recall") >= 0.9)["threshold"].to_list()
        [0.35]
        """
        (b,) = checked("best_threshold", beta=beta)
        checks.check_choice("metric", metric, names.output_columns("thresholds", beta=b)[1:])
        checked("best_threshold", where=where)
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
        return ranking_thresholds.best(table, checks.by_names(by), metric=metric, where=where)

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
        bins, drop_intermediate = checked(
            "det_curve", bins=bins, drop_intermediate=drop_intermediate
        )
        counts = scores.binary_score_counts(
            self._lf,
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            weight=weight,
            reserved=names.output_columns("det_curve"),
            bins=bins,
            sortable=True,
        )
        return ranking_thresholds.det_curve(counts, drop_intermediate=drop_intermediate)

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
            As :meth:`report`: ``*by, label, average, precision, recall, f1,
            jaccard, support``, of the predictions ``pos_label if score >=
            threshold else neg_label``.
        """
        threshold, b, _ = checked(
            "threshold_report", threshold=threshold, beta=beta, zero_division=zero_division
        )
        given = inputs.schema_stage(
            self._lf,
            by=by,
            weight=None,  # the report of the labels checks it
            reserved=names.output_columns("threshold_report", beta=b),
            columns={"y_true": y_true},
            numeric={"y_score": [y_score]},
        )
        segments, schema = given.segments, given.schema
        pos = scores.resolve_pos_label(schema, y_true, pos_label)
        dtype = schema[y_true]
        inferred = neg_label is None and dtype != pl.Boolean
        if neg_label is None:
            negative = _inferred_neg_label(y_true, weight, pos, dtype)
        else:
            negative = pl.lit(negative_label(neg_label, pos, dtype, y_true))
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
    checked("where on the table", where=where, dtype=dtype)


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
        raise checks.Bad.pos_label_absent(pos, y_true, checks.labels_present(lf, y_true))
    if not inferred:
        return df
    others = [label for label in labels if label != pos]
    if len(others) > 1 or (not others and (not classes.dtype.is_numeric() or pos == 0)):
        raise checks.Bad.neg_label_needed(y_true, checks.labels_present(lf, y_true), pos)
    if default_pos and others and others[0] not in {0, -1}:
        raise checks.Bad.pos_label_needed(y_true, checks.labels_present(lf, y_true))
    return df
