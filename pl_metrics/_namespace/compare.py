"""Segment comparisons: each segment's metric against the overall value and the best.

``compare`` answers "is segment A really worse, or is it noise?": the
segment's value with its confidence interval, the overall value, the
difference and ratio to overall and to the best segment (fairlearn's
``difference`` / ``ratio``, per segment), and whether the overall value lies
outside the segment's interval.
"""

from __future__ import annotations

import polars as pl

from pl_metrics._core import checks as v
from pl_metrics._core import names
from pl_metrics._typing import By, CiMethod

_LABEL_METRICS = ("accuracy", "balanced_accuracy", "mcc", "cohen_kappa")
_SCORE_METRICS = ("roc_auc", "average_precision")


class CompareMethods:
    """``compare`` on a LazyFrame."""

    _lf: pl.LazyFrame

    def compare(
        self,
        y_true: str,
        y_pred: str,
        *,
        by: By,
        metric: str = "accuracy",
        ci: float = 0.95,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: CiMethod = "bootstrap",
        pos_label: object = None,
    ) -> pl.LazyFrame:
        """Compare each segment's metric with the overall value and the best segment.

        Parameters
        ----------
        y_true
            Column of the actual labels.
        y_pred
            Column of the predicted labels, or of the scores for ``roc_auc`` /
            ``average_precision``.
        by
            The segment column(s) or expression(s) (required), as in :meth:`confusion_matrix`.
        metric
            ``"accuracy"``, ``"balanced_accuracy"``, ``"mcc"``, ``"cohen_kappa"``
            (from :meth:`summary`), or ``"roc_auc"``, ``"average_precision"``.
        ci, n_boot, seed, ci_method
            The segment's interval, as in :meth:`summary` / :meth:`roc_auc`.
        pos_label
            The positive class of the ranking metrics.

        Returns
        -------
        LazyFrame
            ``*by, metric, value, low, high, overall, diff, ratio, best, diff_best,
            ratio_best, outside``: ``diff = value - overall``, ``ratio = value /
            overall``, ``best`` the highest segment value, and ``outside`` whether
            the overall value lies outside the segment's interval. Sorted by segment.

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4,
        ...                    "t": [0, 1, 0, 1, 0, 1, 0, 1], "p": [0, 1, 0, 1, 1, 0, 0, 1]})
        >>> out = df.metrics.compare("t", "p", by="g", ci_method="wilson")
        >>> out.select("g", "value", "overall", "diff")
        shape: (2, 4)
        ┌─────┬───────┬─────────┬───────┐
        │ g   ┆ value ┆ overall ┆ diff  │
        │ --- ┆ ---   ┆ ---     ┆ ---   │
        │ str ┆ f64   ┆ f64     ┆ f64   │
        ╞═════╪═══════╪═════════╪═══════╡
        │ a   ┆ 1.0   ┆ 0.75    ┆ 0.25  │
        │ b   ┆ 0.5   ┆ 0.75    ┆ -0.25 │
        └─────┴───────┴─────────┴───────┘
        """
        segments = v.normalize_by(by)
        if not segments:
            msg = "`by` is required: compare needs segments to compare"
            raise ValueError(msg)
        v.check_choice("metric", metric, (*_LABEL_METRICS, *_SCORE_METRICS))
        v.check_ci(ci, n_boot, ci_method, ("bootstrap", "wilson", "delong"))
        v.check_by(self._lf.collect_schema(), segments, names.output_columns("compare"))
        v.check_columns(self._lf.collect_schema(), y_true=y_true, y_pred=y_pred)
        options = {"ci": ci, "n_boot": n_boot, "seed": seed, "ci_method": ci_method}
        # The inner method sees the segments under names made here, so only
        # compare's own output columns are refused as `by` names (not those of
        # summary / roc_auc); y_true and y_pred keep theirs (for the messages).
        keys = names.stand_in_keys(segments, (y_true, y_pred))
        lf = self._lf.select(
            y_true,
            y_pred,
            *(e.alias(k) for e, k in zip(segments.exprs, keys, strict=True)),
        )
        if metric in _LABEL_METRICS:
            per_segment = lf.metrics.summary(y_true, y_pred, by=keys, **options)
            overall = lf.metrics.summary(y_true, y_pred)
        else:
            method = getattr(lf.metrics, metric)
            per_segment = method(y_true, y_pred, by=keys, pos_label=pos_label, **options)
            overall = method(y_true, y_pred, pos_label=pos_label)
        value, overall_value = pl.col("value"), pl.col("overall")
        table = per_segment.select(
            *keys,
            pl.lit(metric).alias("metric"),
            pl.col(metric).alias("value"),
            *(
                pl.col(c).alias(e)
                for c, e in zip(names.interval_columns([metric]), ("low", "high"), strict=True)
            ),
        ).join(overall.select(pl.col(metric).alias("overall")), how="cross")
        best = value.max()
        table = table.with_columns(
            (value - overall_value).alias("diff"),
            (value / overall_value).alias("ratio"),
            best.alias("best"),
            (value - best).alias("diff_best"),
            (value / best).alias("ratio_best"),
            ((overall_value < pl.col("low")) | (overall_value > pl.col("high"))).alias("outside"),
        )
        return table.sort(keys, nulls_last=True).rename(
            dict(zip(keys, segments.names, strict=True))
        )
