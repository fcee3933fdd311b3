"""The one entry for a method's input rows, in named stages.

The methods that check the rows they read go through the same three stages, in
this order, so that a bad option is reported before a missing column, and a
missing column before a bad value (the order of :mod:`pl_metrics._core.checks`):

1. **options**: :func:`pl_metrics._core.options.checked`, by the method, before it
   calls this module (no data);
2. **schema** (:func:`schema_stage`, ``collect_schema()`` only): the argument names,
   the columns and their dtypes, the method's own column rules (``read``), ``by``
   (not one of the method's output columns) and a numeric ``weight``;
3. **rows** (:meth:`Input.rows`): the ``by`` items evaluated under their internal
   keys, the rows of weight 0 dropped.  The data checks (nulls, NaN labels, bad
   weights, the weight total) are counted by each method in its one aggregation
   (:func:`weight_checks`, :func:`segment_weight`) and raised at collect.

Built on it: the confusion counts (:func:`pl_metrics._core.confusion.confusion_counts`),
the score counts (:mod:`pl_metrics._core.scores`), the probabilities
(:class:`pl_metrics._probability.Rows`), multilabel input
(:func:`pl_metrics._multilabel.inputs.multilabel_input`), ``custom`` and
``threshold_report``.  The ``pos_label`` rules are
:func:`pl_metrics._core.scores.resolve_pos_label` and ``defaults_pos_label``.  Not
here: the second readers of rows a method has already checked (the one-vs-rest
bootstrap and DeLong covariance of :mod:`pl_metrics._ranking.multiclass` and
:mod:`pl_metrics._intervals.ovr`), the two segment sets of the fairness methods
(``by`` and ``control``), and drift (columns of any dtype, a reference).

The ``reference`` of the monitoring calls (``drift``, ``estimated_performance``,
``check``) is read here once: :func:`reference_rows`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import polars as pl

from pl_metrics._core import checks, names

Read = TypeVar("Read")


@dataclass(frozen=True)
class Input(Generic[Read]):
    """A method's input after the schema stage."""

    schema: pl.Schema
    segments: names.Segments
    weight: str | None
    read: Read  # what the method's own schema rules returned (``read=``)

    @property
    def by(self) -> list[str]:
        """The output names of the ``by`` items."""
        return list(self.segments.names)

    @property
    def keys(self) -> list[str]:
        """The internal names of the ``by`` items (none without ``by``)."""
        return names.segment_keys(self.segments) if self.segments else []

    def rows(self, lf: pl.LazyFrame) -> pl.LazyFrame:
        """The rows stage: ``lf`` with the segment keys, without the rows of weight 0."""
        return checks.without_zero_weights(names.with_segment_keys(lf, self.segments), self.weight)

    def current_rows(self, lf: pl.LazyFrame, flag: pl.Expr | None) -> pl.LazyFrame:
        """The rows stage of ``lf``'s current rows: those a reference ``flag`` does not
        mark (evaluated on all of ``lf``'s rows, before the rows stage drops any, as
        :func:`reference_rows` evaluates it), or all of them."""
        if flag is None:
            return self.rows(lf)
        marked = self.rows(lf.with_columns(flag.alias(IS_REFERENCE)))
        return marked.filter(~pl.col(IS_REFERENCE))


def _none(schema: pl.Schema) -> None:
    return None


def schema_stage(
    lf: pl.LazyFrame,
    *,
    by: object,
    weight: str | None,
    reserved: Sequence[str],
    columns: Mapping[str, object] | None = None,
    made: Mapping[str, str] | None = None,
    numeric: Mapping[str, Sequence[str]] | None = None,
    read: Callable[[pl.Schema], Read] = _none,  # type: ignore[assignment]
) -> Input[Read]:
    """The schema stage (at call time, no rows read).

    ``columns``: ``{argument: column}`` that must be column names and exist;
    ``made``: ``{argument: column}`` the method made from the user's columns (a
    one-hot ``y_true``'s labels), which must exist; ``numeric``: ``{argument:
    columns}`` that must be names of numeric columns; ``read``: the method's own
    rules on the schema (a multilabel form), run after those and before ``by``;
    ``reserved``: the method's output columns, which ``by`` may not take.
    """
    segments = checks.normalize_by(by)
    given = {a: checks.check_column_name(a, c) for a, c in (columns or {}).items()}
    for argument, names_ in (numeric or {}).items():
        for column in names_:
            checks.check_column_name(argument, column)
    if weight is not None:
        checks.check_column_name("weight", weight)
    schema = lf.collect_schema()
    checks.check_columns(schema, **given, **(made or {}))
    for argument, names_ in (numeric or {}).items():
        for column in names_:
            checks.check_numeric(schema, argument, column)
    own = read(schema)
    checks.check_by(schema, segments, reserved)
    checks.check_numeric(schema, "weight", weight)
    return Input(schema, segments, weight, own)


# ------------------------------------------------- the standard weight checks (rows)
#: 1 on the rows of a segment whose weight total is too large (:func:`segment_weight`)
SEGMENT_WEIGHT = f"{names.INTERNAL}segment_weight"


def segment_weight(keys: Sequence[str], values: Sequence[str]) -> pl.Expr:
    """On a frame of counts per segment: 1 on the rows of a segment whose total of the
    (weighted) count columns ``values`` is too large (``checks.weight_total_too_large``)."""
    total = pl.sum_horizontal(pl.col(c) for c in values)
    total = total.sum().over(keys) if keys else total.sum()
    return checks.weight_total_too_large(total).alias(SEGMENT_WEIGHT)


def weight_checks(weight: str | None) -> list[checks.Check]:
    """The checks of a weighted aggregation: bad weights (``checks.bad_weight``,
    counted as :data:`checks.BAD_WEIGHT`) and a segment total that is too large
    (:func:`segment_weight`); none without ``weight``."""
    if weight is None:
        return []
    return list(zip((checks.BAD_WEIGHT, SEGMENT_WEIGHT), checks.weight_errors(weight), strict=True))


# ------------------------------------------------ the reference of the monitoring calls
#: what a missing column of a reference frame is said to be "not found" in
IN_REFERENCE = " in the reference"
#: the reference flag's column among all the rows (:meth:`Input.current_rows`)
IS_REFERENCE = f"{names.INTERNAL}is_reference"


@dataclass(frozen=True)
class ReferenceRows:
    """The reference rows of a monitoring call (:func:`reference_rows`)."""

    rows: pl.LazyFrame  # the reference rows (those the flag marks, or the frame's)
    flag: pl.Expr | None  # the Boolean expression marking them; None for a frame
    schema: pl.Schema  # the schema their columns are read from
    where: str  # where a missing column is "not found": "" (the data), IN_REFERENCE

    def check_found(self, given: Iterable[tuple[str, str | None]]) -> None:
        """``ColumnNotFoundError`` for the first ``(argument, column)`` of ``given``
        whose column is not among the reference's (call time)."""
        checks.check_found(self.schema, given, self.where)

    def raise_flag_nulls(self, lf: pl.LazyFrame) -> None:
        """At collect: a flag that is null on some of ``lf``'s rows (neither reference
        nor current) is a ``DataError``; nothing for a frame."""
        if self.flag is not None and (nulls := lf.select(self.flag.null_count()).collect().item()):
            raise checks.Bad.reference_nulls(nulls)


def reference_rows(lf: pl.LazyFrame, reference: object) -> ReferenceRows:
    """The rows of ``reference`` (call time, from the schemas only): a Boolean
    expression marks them among ``lf``'s rows (``Bad.reference_not_boolean`` otherwise;
    their columns are ``lf``'s), a polars DataFrame / LazyFrame holds them; anything
    else is ``Bad.reference_type``."""
    if isinstance(reference, pl.Expr):
        dtypes = list(lf.select(reference).collect_schema().dtypes())
        if dtypes != [pl.Boolean]:
            raise checks.Bad.reference_not_boolean(reference, dtypes)
        return ReferenceRows(lf.filter(reference), reference, lf.collect_schema(), "")
    if isinstance(reference, (pl.DataFrame, pl.LazyFrame)):
        rows = reference.lazy()
        return ReferenceRows(rows, None, rows.collect_schema(), IN_REFERENCE)
    raise checks.Bad.reference_type(reference)
