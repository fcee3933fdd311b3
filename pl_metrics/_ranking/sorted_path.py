"""ROC AUC (and DeLong's interval) and average precision of continuous scores by sorting.

The per-score counts of :mod:`pl_metrics._ranking.from_counts` are exact, stream, and are
fastest when scores take few distinct values; on continuous scores every row is
its own group, and counting them costs several sorts.  There it is faster to
sort.  For every positive score s, the negatives below s plus half those equal
to s is its placement (DeLong's V10), and the mean placement is the ROC AUC -
the Mann-Whitney U / (P N) with ties one half, the same number as the trapezoid
under the ROC curve.  DeLong's variance needs the negatives' placements too.

Two ways to find the placements, both exact (:func:`strategy` picks one; both in
:mod:`pl_metrics._ranking.placements`):

- ``_Keyed`` (scores not negative: probabilities): each score's IEEE bits
  shifted left by one, its label in the freed lowest bit, sorted once per
  segment.  The bits of non-negative floats order as the floats do, so the
  sorted keys are the sorted scores with, among equal scores, the negatives
  first; a positive's placement is its position less its rank among the
  positives (less half the negatives tied with it).  One sort, no search; the
  keys are a polars expression (streamed, on polars' threads), and the sorted
  keys are scanned in cache-sized blocks, a large segment in two halves on two
  threads.
- ``_Searched`` (any sign): the positives' and the negatives' scores sorted
  apart (one query, both sorts in parallel), one binary-searched in the other.

By segment (:mod:`pl_metrics._ranking.batches`), the rows are read in batches:
each batch's keys (or scores) grouped by segment in memory, each segment's
pieces concatenated and sorted when it is finished.  A segment of more than
``CHUNK_ROWS`` rows is finished alone, as above; the smaller ones a range of
about that many rows at a time, all the range's segments in one numpy pass
(``_chunk_metric``: the same integer sums, by segment), never a Python step
per segment.  Polars' streaming ``group_by`` of lists would hold every column
the query reads until the end.

Average precision is a sum over the positives of the precision at their score:
the rows at or above it are the positives from its run of ties on, and the
negatives not below it.

Used by ``roc_auc`` (un-weighted, binary or the one-vs-rest macro / weighted
mean; ``ci_method="delong"`` too) and the binary ``average_precision`` (un-weighted,
no interval), on a DataFrame or a LazyFrame, when the first
rows' scores look continuous (:func:`strategy`).  The lazy result is a
LazyFrame like the counting path's: the rows are read when it is collected.
Memory: 8 bytes a row (the keys, or the scores), where counting holds one row
per distinct score; on continuous scores these are the same size.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

import polars as pl

from pl_metrics._core import checks, names, scores
from pl_metrics._ranking.batches import _MIN, Source, _in_batches, _lists, _Ready, _values
from pl_metrics._stats import normal

_POSITIVES = f"{names.INTERNAL}positives"
_UNKNOWN = f"{names.INTERNAL}unknown"

#: Distinct scores among the first rows above which the sorted path is used.
MIN_DISTINCT = 2_000
_SAMPLE = 10_000
#: Whether scores that are not negative are sorted with their labels as one key
#: (``_ranking.placements._Keyed``); False: always the two sorts and a search
#: (``_Searched``).
USE_KEYS = True

Strategy = Literal["count", "search", "keys"]


class MixedSigns(Exception):  # noqa: N818 - a signal, not an error: the plan falls back
    """Raised by a keyed plan that met a negative score (the keys need one sign)."""


def strategy(frame: pl.DataFrame | pl.LazyFrame, y_score: str | Mapping[object, str]) -> Strategy:
    """How to compute an un-weighted ranking metric, from the first 10,000 rows:

    - ``"count"``: per distinct score (:mod:`pl_metrics._ranking.from_counts`) when any score
      column has at most :data:`MIN_DISTINCT` distinct values there, or numpy (an
      optional dependency) is missing;
    - ``"keys"``: one sort of each score with its label
      (``_ranking.placements._Keyed``) when no score there is negative (a later
      negative one falls back to ``"search"``, :class:`MixedSigns`);
    - ``"search"``: sort the positives' and the negatives' scores, binary-search
      one in the other (``_Searched``).

    ``y_score`` is checked already (numeric columns of ``frame``).  On a LazyFrame
    this reads the first rows of the score columns (a Parquet scan: its first row
    group)."""
    if importlib.util.find_spec("numpy") is None:
        return "count"
    # a column may serve several classes (sklearn's score matrix may repeat a column)
    columns = [y_score] if isinstance(y_score, str) else list(dict.fromkeys(y_score.values()))
    head = frame.lazy().select(columns).head(_SAMPLE).collect()
    if not all(head.get_column(c).n_unique() > MIN_DISTINCT for c in columns):
        return "count"
    signs = head.select(pl.min_horizontal(pl.all().min()) >= 0).item()
    return "keys" if USE_KEYS and signs is not False else "search"


def use_sorted_path(
    frame: pl.DataFrame | pl.LazyFrame, y_score: str | Mapping[object, str]
) -> bool:
    """Whether :func:`strategy` sorts (``"keys"`` or ``"search"``)."""
    return strategy(frame, y_score) != "count"


def sorted_or(
    frame: pl.LazyFrame,
    counted: pl.LazyFrame,
    y_true: str,
    y_score: object,
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    bins: int | None = None,
    average: str = "macro",
    ci: float | None = None,
    metric: str = "roc_auc",
) -> pl.LazyFrame:
    """The ROC AUC (with ``ci``: and DeLong's interval) or average precision (with
    ``ci``: and its logit interval) of ``frame``'s rows: ``counted`` (the per-score
    counts' plan), or, for un-weighted rows without ``bins``, the same numbers by
    sorting the scores when, at collect, the first rows' scores look continuous
    (:func:`strategy`).  The rows' input is resolved then (:func:`sorted_metric`):
    for rows other than the counts' (``over_time``'s windows); the ranking methods
    hand their resolved input to :func:`sorted_or_input`."""
    if weight is not None or bins is not None:
        return counted
    assert isinstance(y_score, (str, Mapping))  # the counting path checked it

    def sorted_(keyed: bool) -> pl.LazyFrame:
        return sorted_metric(
            frame,
            y_true,
            y_score,
            by=by,
            pos_label=pos_label,
            average=average,
            reserved=names.output_columns(metric, ci=ci is not None),
            ci=ci,
            metric=metric,
            keyed=keyed,
        )

    return _deferred(frame, y_score, counted, sorted_)


def sorted_or_input(
    read: scores.RankingInput,
    counted: pl.LazyFrame,
    *,
    bins: int | None = None,
    average: str = "macro",
    ci: float | None = None,
    metric: str = "roc_auc",
) -> pl.LazyFrame:
    """:func:`sorted_or` of an input resolved once (:func:`pl_metrics._core.scores.binary_input`
    or ``classes_input``, the counts' own): ``counted``, or the same numbers by
    sorting its rows (:func:`sorted_input_metric`); nothing is resolved again."""
    if read.weight is not None or bins is not None:
        return counted
    # strategy reads the score columns (a mapping's values)
    columns: dict[object, str] = dict(enumerate(read.scores))
    y_score = read.y_score if read.classes is None else columns

    def sorted_(keyed: bool) -> pl.LazyFrame:
        return sorted_input_metric(read, average=average, ci=ci, metric=metric, keyed=keyed)

    return _deferred(read.rows, y_score, counted, sorted_)


def _deferred(
    frame: pl.LazyFrame,
    y_score: str | Mapping[object, str],
    counted: pl.LazyFrame,
    sorted_: Callable[[bool], pl.LazyFrame],
) -> pl.LazyFrame:
    """``counted``, or ``sorted_(keyed)``: picked at collect by :func:`strategy`."""

    def run() -> pl.DataFrame:
        how = strategy(frame, y_score)
        if how == "keys":
            try:
                return sorted_(True).collect()  # keyed
            except MixedSigns:  # a negative score after the first rows
                how = "search"
        return (sorted_(False) if how == "search" else counted).collect()

    return pl.defer(run, schema=counted.collect_schema())


def sorted_metric(
    frame: pl.DataFrame | pl.LazyFrame,
    y_true: str,
    y_score: str | Mapping[object, str],
    *,
    by: object,
    pos_label: object,
    average: str,
    reserved: Sequence[str],
    ci: float | None = None,
    metric: str = "roc_auc",
    keyed: bool = False,
) -> pl.LazyFrame:
    """``*by, roc_auc``: binary, or the one-vs-rest macro / weighted mean (un-weighted
    rows); with ``ci`` (binary): also DeLong's ``roc_auc_low``, ``roc_auc_high``.
    ``metric="average_precision"``: ``*by, average_precision`` (binary; with ``ci``:
    also its logit interval; or the one-vs-rest macro / weighted mean).

    The input resolved as the counting path resolves it
    (:func:`pl_metrics._core.scores.binary_input` or ``classes_input``), then
    :func:`sorted_input_metric`.
    """
    lf = frame.lazy()
    if isinstance(y_score, str):
        read = scores.binary_input(
            lf, y_true, y_score, by=by, pos_label=pos_label, weight=None, reserved=reserved
        )
    else:
        read = scores.classes_input(lf, y_true, y_score, by=by, weight=None, reserved=reserved)
    return sorted_input_metric(read, average=average, ci=ci, metric=metric, keyed=keyed)


def sorted_input_metric(
    read: scores.RankingInput,
    *,
    average: str,
    ci: float | None = None,
    metric: str = "roc_auc",
    keyed: bool = False,
) -> pl.LazyFrame:
    """:func:`sorted_metric` of a resolved, un-weighted input.

    The same checks and messages as the counting path (``from_counts``): only the
    way the AUC is summed differs.
    """
    binary = read.classes is None
    schema, segments, y_true, lf = read.schema, read.given.segments, read.y_true, read.rows
    dtype = schema[y_true]
    columns = list(read.scores)
    if binary:
        label = read.pos_label
        tasks = [(pl.col(y_true) == pl.lit(label, dtype), read.y_score)]
        known = None
    else:
        assert read.classes is not None
        tasks = [
            (pl.col(y_true) == pl.lit(k, dtype), c)
            for k, c in zip(read.classes, columns, strict=True)
        ]
        known = pl.Series(list(read.classes), dtype=dtype)
    score_aggs, data_checks = scores.score_checks(schema, list(dict.fromkeys(columns)))
    true_aggs, true_checks = scores.true_checks(y_true, read.types)
    scalars = [*score_aggs, *true_aggs]
    data_checks += true_checks
    default_pos = binary and read.default_pos
    if default_pos:
        scalars += scores.default_pos_label_aggs(pl.col(y_true))
    if known is None:
        scalars.append(tasks[0][0].sum().alias(_POSITIVES))
    else:
        unknown = pl.col(y_true).is_not_null() & ~pl.col(y_true).is_in(known.implode())
        scalars.append(unknown.sum().alias(_UNKNOWN))
        data_checks.append(
            (_UNKNOWN, lambda n: checks.Bad.unknown_classes(y_true, n, known.to_list()))
        )
    key_columns, lists, minima = _lists(tasks, keyed=keyed)
    keys = read.keys
    rows = lf.with_columns(key_columns)
    z = None if ci is None else normal.z_value(ci)
    metrics = [metric] if z is None else [metric, *names.interval_columns([metric])]

    def checked(grouped: pl.LazyFrame) -> pl.LazyFrame:
        grouped = checks.raise_if_bad(grouped, data_checks)
        return scores.check_default_pos_label(grouped, lf, y_true) if default_pos else grouped

    def finish(df: pl.DataFrame, lists: Source) -> pl.DataFrame:
        if known is None and df.height and not df[_POSITIVES].sum():
            raise checks.Bad.pos_label_absent(label, y_true, checks.labels_present(lf, y_true))
        if keyed and any((df[f"{_MIN}{i}"] < 0).any() for i in range(len(tasks))):
            raise MixedSigns
        out = _values(
            df.height,
            lists,
            len(tasks),
            metric,
            binary=binary,
            z=z,
            average=average,
            keyed=keyed,
        )
        out = [s.alias(m) for s, m in zip(out, metrics, strict=True)]
        return df.select(*keys).with_columns(out) if segments else pl.DataFrame(out)

    if not segments:
        grouped = rows.select(*(e.sort().implode() for e in lists), *scalars, *minima)
        return checked(grouped).map_batches(
            lambda df: finish(df, _Ready(df)), schema=dict.fromkeys(metrics, pl.Float64)
        )
    result = _in_batches(rows, keys, lists, [*scalars, *minima], checked, finish, metrics)
    return names.restore_keys(result.sort(keys, nulls_last=True), segments.names)
