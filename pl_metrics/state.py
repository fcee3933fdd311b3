"""Mergeable sufficient statistics: compute them anywhere, concatenate, finish here.

``df.metrics.counts(...)`` (confusion counts) and ``df.metrics.score_counts(...)``
(per distinct score: positive and negative counts) are small tidy frames.
States of several shards, days or workers are merged by concatenating them;
:func:`from_counts` / :func:`from_score_counts` sum equal keys and compute the
same frames as the methods run on all rows at once::

    state = pl.concat([yesterday_state, today.metrics.counts("y_true", "y_pred", by="country")])
    plm.from_counts(state, by="country").report()

Counts (integers) merge exactly, so the results are bit-for-bit equal; weighted
sums are equal up to the order of float additions (~1e-15 relative).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

import polars as pl

from pl_metrics import _classification as cls
from pl_metrics import _ranking as rk
from pl_metrics import _validate as v
from pl_metrics._counts import ACTUAL, ALL, COUNT, PREDICTED, Counts
from pl_metrics._typing import By, Labels

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

#: The columns of a confusion-counts state besides the ``by`` columns.
COUNTS_COLUMNS = (ACTUAL, PREDICTED, COUNT)
#: The columns of a score-counts state besides the ``by`` columns.
SCORE_COUNTS_COLUMNS = (rk.SCORE, rk.POS, rk.NEG)


def sum_states(state: FrameT, keys: Sequence[str], values: Sequence[str]) -> FrameT:
    """The merge of concatenated states: the ``values`` summed over equal ``keys``."""
    return state.group_by(list(keys)).agg(pl.col(c).sum() for c in values)


def _merged(
    state: pl.LazyFrame, by: list[str], keys: Sequence[str], values: Sequence[str]
) -> pl.LazyFrame:
    """Check the state's columns and sum equal keys (the merge of concatenated states)."""
    schema = state.collect_schema()
    v.check_columns(schema, **{f"state column {c}": c for c in [*by, *keys, *values]})
    for column in values:
        if not schema[column].is_numeric():
            msg = f"state column {column!r} must be numeric, got {schema[column]}"
            raise pl.exceptions.SchemaError(msg)
    merged = sum_states(state, [*by, *keys], values)
    if not by:
        merged = merged.with_columns(pl.lit(0, pl.Int8).alias(ALL))
    return merged


def _collect(frame: pl.LazyFrame, eager: bool) -> pl.DataFrame | pl.LazyFrame:
    return frame.collect() if eager else frame


class CountsState(Generic[FrameT]):
    """A merged confusion-counts state; its methods return what ``.metrics`` returns.

    Results are DataFrames when the state was a DataFrame, LazyFrames otherwise.
    """

    def __init__(self, state: FrameT, *, by: By = None) -> None:
        self._eager = isinstance(state, pl.DataFrame)
        self._by = v.normalize_by(by)
        lazy = state.lazy()
        self._frame = _merged(lazy, self._by, (ACTUAL, PREDICTED), (COUNT,))
        self._types = v.label_types(lazy.collect_schema(), ACTUAL, PREDICTED)

    def _counts(self, labels: Labels) -> Counts:
        frame = self._frame.with_columns(pl.col(ACTUAL, PREDICTED).cast(self._types.compute))
        labels_s = None if labels is None else v.labels_series(labels, self._types.compute)
        return Counts(frame.cache(), self._by, self._by or [ALL], self._types, labels_s)

    def confusion_matrix(self, *, labels: Labels = None) -> FrameT:
        """As :meth:`MetricsLazyFrame.confusion_matrix`."""
        return _collect(cls.confusion_matrix(self._counts(labels)), self._eager)  # type: ignore[return-value]

    def per_class(
        self, *, labels: Labels = None, beta: float = 1.0, zero_division: float = 0.0
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.per_class`."""
        b, zd = v.check_beta(beta), v.check_zero_division(zero_division)
        result = cls.per_class(self._counts(labels), beta=b, zero_division=zd)
        return _collect(result, self._eager)  # type: ignore[return-value]

    def averages(
        self, *, labels: Labels = None, beta: float = 1.0, zero_division: float = 0.0
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.averages`."""
        b, zd = v.check_beta(beta), v.check_zero_division(zero_division)
        result = cls.averages(self._counts(labels), beta=b, zero_division=zd)
        return _collect(result, self._eager)  # type: ignore[return-value]

    def report(
        self, *, labels: Labels = None, beta: float = 1.0, zero_division: float = 0.0
    ) -> FrameT:
        """As :meth:`MetricsLazyFrame.report`."""
        b, zd = v.check_beta(beta), v.check_zero_division(zero_division)
        result = cls.report(self._counts(labels), beta=b, zero_division=zd)
        return _collect(result, self._eager)  # type: ignore[return-value]

    def summary(self, *, labels: Labels = None) -> FrameT:
        """As :meth:`MetricsLazyFrame.summary`."""
        return _collect(cls.summary(self._counts(labels)), self._eager)  # type: ignore[return-value]


class ScoreCountsState(Generic[FrameT]):
    """A merged per-score state (binary); its methods return what ``.metrics`` returns."""

    def __init__(self, state: FrameT, *, by: By = None) -> None:
        self._eager = isinstance(state, pl.DataFrame)
        self._by = v.normalize_by(by)
        merged = _merged(state.lazy(), self._by, (rk.SCORE,), (rk.POS, rk.NEG))
        self._counts = rk.ScoreCounts(merged.cache(), self._by, self._by or [ALL])

    def roc_auc(self, *, error_bound: bool = False) -> FrameT:
        """As :meth:`MetricsLazyFrame.roc_auc` (binary); ``error_bound=True`` adds the
        ``roc_auc_error_bound`` column of a binned state (``bins=``)."""
        result = rk.roc_auc(self._counts, error_bound=error_bound)
        return _collect(result, self._eager)  # type: ignore[return-value]

    def average_precision(self) -> FrameT:
        """As :meth:`MetricsLazyFrame.average_precision`."""
        return _collect(rk.average_precision(self._counts), self._eager)  # type: ignore[return-value]

    def roc_curve(self, *, drop_intermediate: bool = True) -> FrameT:
        """As :meth:`MetricsLazyFrame.roc_curve`."""
        result = rk.roc_curve(self._counts, drop_intermediate=drop_intermediate)
        return _collect(result, self._eager)  # type: ignore[return-value]

    def pr_curve(self) -> FrameT:
        """As :meth:`MetricsLazyFrame.pr_curve`."""
        return _collect(rk.pr_curve(self._counts), self._eager)  # type: ignore[return-value]


def from_counts(state: FrameT, *, by: By = None) -> CountsState[FrameT]:
    """Finish metrics from a (concatenation of) ``.metrics.counts(...)`` frame(s).

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
