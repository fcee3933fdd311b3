"""Mergeable sufficient statistics: compute them anywhere, concatenate, finish here.

``df.metrics.counts(...)`` (confusion counts) and ``df.metrics.score_counts(...)``
(per distinct score: positive and negative counts) are small tidy frames.
States of several shards, days or workers are merged by concatenating them;
:func:`from_counts` / :func:`from_score_counts` sum equal keys and compute the
same frames as the methods run on all rows at once::

    state = pl.concat([yesterday_state, today.metrics.counts("y_true", "y_pred", by="country")])
    plm.from_counts(state, by="country").report()

Counts (integers) merge exactly, so the results are bit-for-bit equal (the
ROC AUC of continuous scores too: its pairs are counted as integers; the average
precision, a sum of float precisions, within a last bit of the frame method's
sorted path, docs/scaling.md); weighted sums are equal up to the order of float
additions (~1e-15 relative).

Intervals (``ci=``) come from the merged state too: the bootstrap redraws the
state's cells (a multinomial of its counts), so a merged state of un-weighted
counts gives, for a seed, the interval the frame method gives on all the rows.
A state made with ``weight=`` (float sums) has no interval.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Generic, TypeVar

import polars as pl

from pl_metrics import _classification
from pl_metrics._core import checks, names, scores
from pl_metrics._core.catalogue import derive
from pl_metrics._core.confusion import Counts, chance_adjusted_summary
from pl_metrics._core.merging import merged as _merged
from pl_metrics._core.merging import sum_states  # noqa: F401 - the engines merge with it
from pl_metrics._core.names import ACTUAL, COUNTS_STATE, PREDICTED, SCORE_STATE
from pl_metrics._core.options import checked
from pl_metrics._intervals import attach
from pl_metrics._multilabel import counts
from pl_metrics._multilabel import metrics as multilabel_metrics
from pl_metrics._multilabel import state as multilabel_state
from pl_metrics._ranking import from_counts as ranking_from_counts
from pl_metrics._ranking import gains
from pl_metrics._typing import (
    ApCiMethod,
    AucCiMethod,
    AverageCiMethod,
    By,
    ExtraScore,
    KappaWeights,
    LabelCiMethod,
    Labels,
    SummaryCiMethod,
)

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

#: The columns of a confusion-counts state besides the ``by`` columns.
COUNTS_COLUMNS = tuple(COUNTS_STATE)
#: The columns of a score-counts state besides the ``by`` columns.
SCORE_COUNTS_COLUMNS = tuple(SCORE_STATE)


def _wants_ci(  # noqa: PLR0917 - a finisher's own arguments, in order
    schema: pl.Schema,
    values: Sequence[str],
    method: str,
    ci: float | None,
    n_boot: int,
    ci_method: str,
    seed: object,
) -> bool:
    """The frame method's interval checks (its options, in its order), and a state of
    integer counts (``values``: the state's count columns)."""
    return checks.wants_ci(
        ci,
        n_boot,
        ci_method,
        None,
        seed=seed,
        methods=checks.CI_METHODS[method],
        counts={c: schema[c] for c in values},
    )


def _collect(frame: pl.LazyFrame, eager: bool) -> pl.DataFrame | pl.LazyFrame:
    return frame.collect() if eager else frame


class CountsState(Generic[FrameT]):
    """A merged confusion-counts state; its methods return what ``.metrics`` returns.

    Results are DataFrames when the state was a DataFrame, LazyFrames otherwise.
    ``per_class``, ``averages``, ``report`` and ``summary`` take the frame
    methods' ``ci``, ``n_boot``, ``seed`` and ``ci_method``: for a seed, the
    interval is the frame method's on the rows the states were made of (the
    bootstrap redraws the merged counts), whatever the shards.  Intervals need
    a state of un-weighted (integer) counts: one made with ``weight=`` is
    refused (``ValueError``).
    """

    def __init__(self, state: FrameT, *, by: By = None) -> None:
        self._eager = isinstance(state, pl.DataFrame)
        self._by = checks.normalize_by(by, expressions=False)
        lazy = state.lazy()
        schema = lazy.collect_schema()
        checks.check_columns(schema, **{f"state column {c}": c for c in COUNTS_STATE})
        self._types = checks.label_types(schema, "actual", "predicted")
        self._schema = schema
        self._frame = _merged(
            lazy.with_columns(_label_key(c, self._types) for c in ("actual", "predicted")),
            self._by,
            COUNTS_STATE,
            ("count",),
            label_columns=self._types.float_columns,
        )

    def _wants_ci(
        self, method: str, ci: float | None, n_boot: int, ci_method: str, seed: object
    ) -> bool:
        return _wants_ci(self._schema, ("count",), method, ci, n_boot, ci_method, seed)

    def _counts(self, labels: Labels, method: str, beta: float = 1.0, ci: bool = False) -> Counts:
        checks.check_by(self._schema, self._by, names.output_columns(method, beta=beta, ci=ci))
        frame = self._frame.with_columns(pl.col(ACTUAL, PREDICTED).cast(self._types.compute))
        labels_s = (
            None if labels is None else checks.labels_series(labels, self._types.compute, "actual")
        )
        keys = names.segment_keys(self._by)
        return Counts(frame.cache(), list(self._by.names), keys, self._types, labels_s)

    def confusion_matrix(self, *, labels: Labels = None, normalize: str | None = None) -> FrameT:
        """As :meth:`MetricsLazyFrame.confusion_matrix`."""
        (normalize,) = checked("confusion_matrix", normalize=normalize)
        counts = self._counts(labels, "confusion_matrix")
        return _collect(_classification.confusion_matrix(counts, normalize=normalize), self._eager)  # type: ignore[return-value]

    def _label_scores(
        self,
        method: str,
        *,
        labels: Labels,
        beta: float,
        zero_division: float,
        extra_scores: ExtraScore | Sequence[ExtraScore],
        ci: float | None,
        n_boot: int,
        seed: int | None,
        ci_method: str,
    ) -> FrameT:
        """per_class / averages / report: options (the frame method's order), counts,
        point estimates, intervals, the opt-in scores asked for."""
        b, zd, extra = checked(
            method, beta=beta, zero_division=zero_division, extra_scores=extra_scores
        )
        with_ci = self._wants_ci(method, ci, n_boot, ci_method, seed)
        result = attach.finish_labels(
            self._counts(labels, method, b, ci=with_ci),
            method,
            beta=b,
            zero_division=zd,
            ci=ci if with_ci else None,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
            extra_scores=extra,
        )
        return _collect(result, self._eager)  # type: ignore[return-value]

    def per_class(
        self,
        *,
        labels: Labels = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        extra_scores: ExtraScore | Sequence[ExtraScore] = (),
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: LabelCiMethod = "delta",
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.per_class`, ``ci`` included (integer counts only)."""
        return self._label_scores(
            "per_class",
            labels=labels,
            beta=beta,
            zero_division=zero_division,
            extra_scores=extra_scores,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        )

    def averages(
        self,
        *,
        labels: Labels = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        extra_scores: ExtraScore | Sequence[ExtraScore] = (),
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: AverageCiMethod = "delta",
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.averages`, ``ci`` included (integer counts only)."""
        return self._label_scores(
            "averages",
            labels=labels,
            beta=beta,
            zero_division=zero_division,
            extra_scores=extra_scores,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        )

    def report(
        self,
        *,
        labels: Labels = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        extra_scores: ExtraScore | Sequence[ExtraScore] = (),
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: AverageCiMethod = "delta",
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.report`, ``ci`` included (integer counts only).

        Examples
        --------
        >>> import polars as pl, pl_metrics as plm
        >>> rows = pl.DataFrame({"t": [0, 1, 1, 0, 1, 1] * 5, "p": [0, 1, 0, 0, 1, 1] * 5})
        >>> shards = [rows[:12], rows[12:]]
        >>> state = pl.concat([shard.metrics.counts("t", "p") for shard in shards])
        >>> from_state = plm.from_counts(state).report(ci=0.95, n_boot=200, seed=1)
        >>> from_state.equals(rows.metrics.report("t", "p", ci=0.95, n_boot=200, seed=1))
        True
        """
        return self._label_scores(
            "report",
            labels=labels,
            beta=beta,
            zero_division=zero_division,
            extra_scores=extra_scores,
            ci=ci,
            n_boot=n_boot,
            seed=seed,
            ci_method=ci_method,
        )

    def summary(
        self,
        *,
        labels: Labels = None,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: SummaryCiMethod = "delta",
        kappa_weights: KappaWeights | None = None,
        replace_undefined_by: float = float("nan"),
        adjusted: bool = False,
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.summary`, ``ci`` included (integer counts only)."""
        kappa_weights, undefined, adjusted = checked(
            "summary",
            kappa_weights=kappa_weights,
            replace_undefined_by=replace_undefined_by,
            adjusted=adjusted,
        )
        with_ci = self._wants_ci("summary", ci, n_boot, ci_method, seed)
        if with_ci:
            checks.check_kappa_interval(kappa_weights, ci_method)
        checks.check_kappa_undefined_interval(undefined, with_ci)
        counts = self._counts(labels, "summary", ci=with_ci)
        result = attach.finish_summary(
            counts,
            kappa_weights=kappa_weights,
            replace_undefined_by=undefined,
            ci=ci if with_ci else None,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
        )
        result = chance_adjusted_summary(result, counts) if adjusted else result
        return _collect(result, self._eager)  # type: ignore[return-value]


class ScoreCountsState(Generic[FrameT]):
    """A merged per-score state (binary); its methods return what ``.metrics`` returns.

    ``roc_auc`` and ``average_precision`` take the frame methods' ``ci``,
    ``n_boot``, ``seed`` and ``ci_method``, as :class:`CountsState`'s methods do
    (integer ``pos`` / ``neg`` only: a state made with ``weight=`` is refused).
    """

    def __init__(self, state: FrameT, *, by: By = None) -> None:
        self._eager = isinstance(state, pl.DataFrame)
        self._by = checks.normalize_by(by, expressions=False)
        lazy = state.lazy()
        schema = lazy.collect_schema()
        checks.check_columns(schema, **{f"state column {c}": c for c in SCORE_STATE})
        checks.check_numeric(schema, "state column score", "score")
        merged = _merged(lazy, self._by, SCORE_STATE, ("pos", "neg"))
        # as the frame methods: pos_label absent from the whole input is an error
        # (a state whose every shard was made with a mistyped pos_label)
        merged = merged.map_batches(_has_positives)
        self._schema = schema
        keys = names.segment_keys(self._by)
        self._state = scores.ScoreCounts(merged.cache(), list(self._by.names), keys)

    def _counts(self, method: str, ci: bool = False) -> scores.ScoreCounts:
        checks.check_by(self._schema, self._by, names.output_columns(method, ci=ci))
        return self._state

    def _wants_ci(
        self, method: str, ci: float | None, n_boot: int, ci_method: str, seed: object
    ) -> bool:
        return _wants_ci(self._schema, ("pos", "neg"), method, ci, n_boot, ci_method, seed)

    def roc_auc(
        self,
        *,
        error_bound: bool = False,
        max_fpr: float | None = None,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: AucCiMethod = "delong",
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.roc_auc` (binary); ``error_bound=True`` adds the
        ``roc_auc_error_bound`` column of a binned state (``bins=``); ``max_fpr``: the
        standardised partial AUC (not with ``error_bound`` nor ``ci``); ``ci``
        (integer counts only): the interval of the AUC of the state's scores (of a
        binned state: of the binned AUC, as the frame method with ``bins``)."""
        result = self._auc("roc_auc", error_bound, max_fpr, ci, n_boot, seed, ci_method)
        return _collect(result, self._eager)  # type: ignore[return-value]

    def gini(
        self,
        *,
        error_bound: bool = False,
        max_fpr: float | None = None,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: AucCiMethod = "delong",
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.gini`: :meth:`roc_auc` mapped, 2 x AUC - 1 (its
        bounds alike, ``gini_error_bound`` twice the AUC's)."""
        result = self._auc("gini", error_bound, max_fpr, ci, n_boot, seed, ci_method)
        return _collect(result, self._eager)  # type: ignore[return-value]

    def _auc(  # noqa: PLR0917 - the finishers' own arguments, in order
        self,
        method: str,
        error_bound: bool,
        max_fpr: float | None,
        ci: float | None,
        n_boot: int,
        seed: int | None,
        ci_method: str,
    ) -> pl.LazyFrame:
        """The AUC of the state, or a metric derived from it (``catalogue.derive``:
        gini), whose segments the AUC sees under stand-in names (a ``by`` named
        ``roc_auc`` is a segment of gini's)."""
        max_fpr, error_bound = checked("roc_auc", max_fpr=max_fpr, error_bound=error_bound)
        with_ci = self._wants_ci(method, ci, n_boot, ci_method, seed)
        checks.check_partial_auc(max_fpr, bound="error_bound", bounded=error_bound, ci=with_ci)
        counts = self._counts(method, ci=with_ci)
        inner = names.stand_in_keys(counts.by, names.output_columns("roc_auc", ci=True))
        result = attach.finish_roc_auc(
            dataclasses.replace(counts, by=inner),
            error_bound=error_bound,
            max_fpr=max_fpr,
            ci=ci if with_ci else None,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
        )
        return derive(result, method).rename(dict(zip(inner, counts.by, strict=True)))

    def average_precision(
        self,
        *,
        ci: float | None = None,
        n_boot: int = 1000,
        seed: int | None = 0,
        ci_method: ApCiMethod = "logit",
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.average_precision`, ``ci`` included (integer
        counts only)."""
        with_ci = self._wants_ci("average_precision", ci, n_boot, ci_method, seed)
        result = attach.finish_average_precision(
            self._counts("average_precision", ci=with_ci),
            ci=ci if with_ci else None,
            ci_method=ci_method,
            n_boot=n_boot,
            seed=seed,
        )
        return _collect(result, self._eager)  # type: ignore[return-value]

    def roc_curve(self, *, drop_intermediate: bool = True) -> FrameT:
        """As :meth:`MetricsLazyFrame.roc_curve`."""
        (drop_intermediate,) = checked("roc_curve", drop_intermediate=drop_intermediate)
        result = ranking_from_counts.roc_curve(
            self._counts("roc_curve"), drop_intermediate=drop_intermediate
        )
        return _collect(result, self._eager)  # type: ignore[return-value]

    def pr_curve(self, *, drop_intermediate: bool = False) -> FrameT:
        """As :meth:`MetricsLazyFrame.pr_curve`."""
        (drop_intermediate,) = checked("pr_curve", drop_intermediate=drop_intermediate)
        result = ranking_from_counts.pr_curve(
            self._counts("pr_curve"), drop_intermediate=drop_intermediate
        )
        return _collect(result, self._eager)  # type: ignore[return-value]

    def ks(self, *, error_bound: bool = False) -> FrameT:
        """As :meth:`MetricsLazyFrame.ks`; ``error_bound=True`` adds ``ks_error_bound``
        (for a binned state, ``bins=``)."""
        (error_bound,) = checked("ks", error_bound=error_bound)
        return _collect(gains.ks(self._counts("ks"), error_bound=error_bound), self._eager)  # type: ignore[return-value]

    def gains(self, *, buckets: int | Sequence[float] = 10) -> FrameT:
        """As :meth:`MetricsLazyFrame.gains`."""
        (cuts,) = checked("gains", buckets=buckets)
        return _collect(gains.gains(self._counts("gains"), cuts=cuts), self._eager)  # type: ignore[return-value]


class MultilabelCountsState(Generic[FrameT]):
    """A merged multilabel state; its methods return what ``.metrics`` returns on the
    multilabel rows (DataFrames when the state was a DataFrame, else LazyFrames).

    ``labels=`` of a finisher orders the labels; it must name every label of the
    state (the ``samples`` average and the losses count every label of the state,
    so a subset must be chosen when the states are made).
    """

    def __init__(self, state: FrameT, *, by: By = None) -> None:
        self._eager = isinstance(state, pl.DataFrame)
        self._by = checks.normalize_by(by, expressions=False)
        lazy = state.lazy()
        schema = lazy.collect_schema()
        checks.check_columns(schema, **{f"state column {c}": c for c in names.MULTILABEL_STATE})
        multilabel_state.check_schema(schema)
        self._types = checks.label_types(schema, "label", "label")
        self._schema = schema
        self._lazy = lazy

    def _counts(self, labels: Labels, method: str, beta: float = 1.0) -> counts.MultilabelCounts:
        checks.check_by(self._schema, self._by, names.output_columns(method, beta=beta))
        fixed = multilabel_state.public_labels(labels, self._types)
        ml, sums, hist = multilabel_state.read_state(
            self._lazy, self._by, self._types, fixed, _merged
        )
        return counts.from_parts(ml, sums, hist)

    def _out(self, frame: pl.LazyFrame) -> FrameT:
        return _collect(frame, self._eager)  # type: ignore[return-value]

    def _label_scores(
        self, method: str, labels: Labels, beta: float, zero_division: float, extra: object
    ) -> FrameT:
        """per_class / averages / report of the state, the opt-in scores asked for."""
        b, zd, extra = checked(method, beta=beta, zero_division=zero_division, extra_scores=extra)
        scores = getattr(multilabel_metrics, method)(
            self._counts(labels, method, b), beta=b, zero_division=zd
        )
        return self._out(names.without_scores(scores, method, extra, ci=False))

    def per_class(
        self,
        *,
        labels: Labels = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        extra_scores: ExtraScore | Sequence[ExtraScore] = (),
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.per_class` on multilabel input."""
        return self._label_scores("per_class", labels, beta, zero_division, extra_scores)

    def averages(
        self,
        *,
        labels: Labels = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        extra_scores: ExtraScore | Sequence[ExtraScore] = (),
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.averages` on multilabel input (with ``samples``)."""
        return self._label_scores("averages", labels, beta, zero_division, extra_scores)

    def report(
        self,
        *,
        labels: Labels = None,
        beta: float = 1.0,
        zero_division: float = 0.0,
        extra_scores: ExtraScore | Sequence[ExtraScore] = (),
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.report` on multilabel input (with ``samples``)."""
        return self._label_scores("report", labels, beta, zero_division, extra_scores)

    def summary(self) -> FrameT:
        """As :meth:`MetricsLazyFrame.summary` on multilabel input."""
        return self._out(multilabel_metrics.summary(self._counts(None, "summary")))

    def multilabel_confusion_matrix(self, *, labels: Labels = None) -> FrameT:
        """As :meth:`MetricsLazyFrame.multilabel_confusion_matrix` (per label)."""
        counts = self._counts(labels, "multilabel_confusion_matrix")
        return self._out(multilabel_metrics.confusion_matrix(counts))

    def hamming_loss(self) -> FrameT:
        """As :meth:`MetricsLazyFrame.hamming_loss` on multilabel input."""
        return self._out(multilabel_metrics.hamming_loss(self._counts(None, "hamming_loss")))

    def zero_one_loss(self, *, normalize: bool = True) -> FrameT:
        """As :meth:`MetricsLazyFrame.zero_one_loss` on multilabel input."""
        (normalize,) = checked("zero_one_loss", normalize=normalize)
        counts = self._counts(None, "zero_one_loss")
        return self._out(multilabel_metrics.zero_one_loss(counts, normalize=normalize))


def _has_positives(df: pl.DataFrame) -> pl.DataFrame:
    """A non-empty per-score state must hold a positive somewhere."""
    if df.height and not df[scores.POS].sum():
        raise checks.Bad.state_without_positives()
    return df


def _label_key(column: str, types: checks.LabelTypes) -> pl.Expr:
    """A state's label column, floats kept (checked whole numbers before the cast)."""
    if column in types.float_columns:
        return pl.col(column).cast(pl.Float64) + 0.0
    return pl.col(column).cast(types.compute)


def from_counts(state: FrameT, *, by: By = None) -> CountsState[FrameT]:
    """Finish metrics from a (concatenation of) ``.metrics.counts(...)`` frame(s).

    ``by``: the state's segment columns, by name (the output names of the ``by``
    the state was made with); an expression is refused (``TypeError``): the state
    holds the segments already evaluated.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> day1 = pl.DataFrame({"t": [0, 1, 1], "p": [0, 1, 0]})
    >>> day2 = pl.DataFrame({"t": [1, 0], "p": [1, 1]})
    >>> state = pl.concat([d.metrics.counts("t", "p") for d in (day1, day2)])
    >>> plm.from_counts(state).summary().select("n", "accuracy")
    shape: (1, 2)
    ┌─────┬──────────┐
    │ n   ┆ accuracy │
    │ --- ┆ ---      │
    │ i64 ┆ f64      │
    ╞═════╪══════════╡
    │ 5   ┆ 0.6      │
    └─────┴──────────┘
    """
    return CountsState(state, by=by)


def from_score_counts(state: FrameT, *, by: By = None) -> ScoreCountsState[FrameT]:
    """Finish ranking metrics from a (concatenation of) ``.metrics.score_counts(...)`` frame(s).

    ``by``: the state's segment columns, by name, as in :func:`from_counts`.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> a = pl.DataFrame({"y": [0, 1], "s": [0.1, 0.35]})
    >>> b = pl.DataFrame({"y": [0, 1], "s": [0.4, 0.8]})
    >>> state = pl.concat([d.metrics.score_counts("y", "s") for d in (a, b)])
    >>> plm.from_score_counts(state).roc_auc()["roc_auc"].to_list()
    [0.75]
    """
    return ScoreCountsState(state, by=by)


def from_multilabel_counts(state: FrameT, *, by: By = None) -> MultilabelCountsState[FrameT]:
    """Finish multilabel metrics from a (concatenation of) ``.metrics.multilabel_counts(...)``
    frame(s).

    ``by``: the state's segment columns, by name, as in :func:`from_counts`.  The
    state is the per-label 2x2 counts plus the histogram of the rows'
    ``(n_true, n_pred, n_common)``: the ``samples`` average is a mean over rows of
    a per-row ratio, which the per-label counts cannot give (they lose which labels
    shared a row); the histogram keeps exactly what it needs, for any ``beta`` and
    ``zero_division``.

    Examples
    --------
    >>> import polars as pl, pl_metrics as plm
    >>> a = pl.DataFrame({"t": [["x", "y"], ["y"]], "p": [["x"], ["x", "y"]]})
    >>> b = pl.DataFrame({"t": [[], ["x"]], "p": [["y"], ["x"]]})
    >>> state = pl.concat([d.metrics.multilabel_counts("t", "p") for d in (a, b)])
    >>> plm.from_multilabel_counts(state).averages().select("average", "f1")
    shape: (4, 2)
    ┌──────────┬──────────┐
    │ average  ┆ f1       │
    │ ---      ┆ ---      │
    │ str      ┆ f64      │
    ╞══════════╪══════════╡
    │ micro    ┆ 0.666667 │
    │ macro    ┆ 0.65     │
    │ weighted ┆ 0.65     │
    │ samples  ┆ 0.583333 │
    └──────────┴──────────┘
    """
    return MultilabelCountsState(state, by=by)
