"""Rows -> per-score counts: the only pass over the data for the ranking metrics.

:func:`binary_score_counts` turns the rows into ``*keys, SCORE, POS, NEG`` with one
``group_by(*keys, score).agg(...)``, which merges tied scores into one threshold
exactly as scikit-learn's ``_binary_clf_curve`` does; :func:`multiclass_score_counts`
into ``*keys, CLASS, SCORE, TRUE, N_ROWS``.  At the root, as for the confusion
counts: the ``by`` columns become internal keys, rows of weight 0 are dropped,
and the data checks are counted in the aggregation and raised on its result.
The metrics (:mod:`pl_metrics._ranking.from_counts`) are sums over these frames.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import polars as pl
from polars.exceptions import SchemaError

from pl_metrics._core import checks, inputs, names
from pl_metrics._core.labels import default_pos_label
from pl_metrics._core.names import ALL, NEG, POS, ROWS, SCORE

CLASS = f"{names.INTERNAL}class"  # the class whose score column is read
TRUE = f"{names.INTERNAL}true"  # the actual label (multiclass state)
OTHER = f"{names.INTERNAL}other"  # the other class of a one-vs-one pair
N_ROWS = f"{names.INTERNAL}n"
_NULL_TRUE = f"{names.INTERNAL}null_true"
_NAN_TRUE = f"{names.INTERNAL}nan_true"
_BAD_SCORE = f"{names.INTERNAL}bad_score"
_INEXACT = f"{names.INTERNAL}inexact_score"
_OUT_OF_BINS = f"{names.INTERNAL}out_of_bins"
_POSITIVE_ROWS = f"{names.INTERNAL}positive_rows"
#: Internal -> public names of the per-score state columns.
PUBLIC_STATE = {internal: public for public, internal in names.SCORE_STATE.items()}

__all__ = [
    "NEG",
    "POS",
    "SCORE",
    "RankingInput",
    "ScoreCounts",
    "as_score",
    "binary_input",
    "binary_score_counts",
    "class_score_counts",
    "classes_input",
    "multiclass_score_counts",
    "score_counts",
]


@dataclass(frozen=True)
class RankingInput:
    """A ranking method's input, resolved once (:func:`binary_input`,
    :func:`classes_input`): the schema stage's result, the rows, the score column(s)
    with their classes, and ``pos_label``.  The per-score counts
    (:func:`score_counts`, :func:`class_score_counts`), the sorted path
    (:mod:`pl_metrics._ranking.sorted_path`) and the sorted curve, KS and gains
    (:attr:`ScoreCounts.rows`) all read this one record, none resolves again."""

    given: inputs.Input[None]  # the schema stage: schema, segments, weight
    types: checks.LabelTypes  # of y_true
    rows: pl.LazyFrame  # the rows stage: segment keys added, zero weights dropped
    y_true: str
    scores: tuple[str, ...]  # the score column (binary), or one per class
    #: The classes of ``scores``, labels of y_true's dtype (``{label: column}``
    #: scores); None: a binary score column.
    classes: tuple[object, ...] | None
    pos_label: object  # of y_true's dtype (binary); None with classes
    default_pos: bool  # the default pos_label of numeric labels: {0, 1} or {-1, 1}
    pos_label_present: bool = True  # raise when no row of the input is pos_label

    @property
    def schema(self) -> pl.Schema:
        return self.given.schema

    @property
    def keys(self) -> list[str]:
        """The internal segment keys, [] for one segment."""
        return self.given.keys

    @property
    def by(self) -> list[str]:
        """The output names of the segments."""
        return self.given.by

    @property
    def weight(self) -> str | None:
        return self.given.weight

    @property
    def y_score(self) -> str:
        """The score column of a binary input."""
        assert self.classes is None, "a binary input's score column"
        return self.scores[0]


@dataclass(frozen=True)
class ScoreCounts:
    """Per-segment, per-distinct-score positive and negative counts (or weights)."""

    frame: pl.LazyFrame  # *keys, SCORE, POS, NEG
    by: list[str]  # the output names of the user's segments
    keys: list[str]  # internal names of ``by``, or [ALL]
    #: The input behind the counts, whose rows a curve may sort instead
    #: (:mod:`pl_metrics._ranking.sorted_curve`); None: the curve is counted.
    rows: RankingInput | None = None

    def finish(self, result: pl.LazyFrame) -> pl.LazyFrame:
        """Restore the ``by`` names."""
        return names.restore_keys(result, self.by)

    def count_type(self) -> type[pl.DataType]:
        """The dtype of the counts a method writes (tp, fp, rows, ...): Int64 for row
        counts, Float64 for weights (as ``report``'s support)."""
        return pl.Int64 if self.frame.collect_schema()[POS].is_integer() else pl.Float64


def per_segment(keys: Sequence[str]) -> Callable[[pl.Expr], pl.Expr]:
    """``expr.over(keys)``, or ``expr`` itself for one segment (no key, or the
    constant :data:`ALL`: a window over one group still groups every row).  Not for
    a total that divides (an aggregation is a broadcast scalar then, and polars
    divides by a scalar through its reciprocal: 49 * (1 / 49) is
    0.9999999999999999): keep its window."""
    if not keys or list(keys) == [ALL]:
        return lambda expr: expr
    return lambda expr: expr.over(keys)


def segment_edge(keys: Sequence[str], step: int) -> pl.Expr:
    """Row-wise, on rows sorted by segment: the first (``step`` 1) or the last (-1) row
    of its segment (a key differs from the row before / after; null keys compare as
    values).  No window: a comparison with the next row."""
    edge = pl.int_range(pl.len()) == (0 if step == 1 else pl.len() - 1)
    for key in keys:
        edge |= pl.col(key).ne_missing(pl.col(key).shift(step))
    return edge


def aggregate(frame: pl.LazyFrame, keys: Sequence[str], aggs: Sequence[pl.Expr]) -> pl.LazyFrame:
    """``frame.group_by(keys).agg(aggs)``; for one segment (the constant :data:`ALL`) a
    ``select`` of the aggregations, no row for no rows (as the ``group_by``): a
    ``group_by`` of one group still hashes every row."""
    if list(keys) != [ALL]:
        return frame.group_by(keys).agg(aggs)
    return (
        frame.select(pl.col(ALL).first(), *aggs, pl.len().alias(N_ROWS))
        .filter(pl.col(N_ROWS) > 0)
        .drop(N_ROWS)
    )


def resolve_pos_label(schema: pl.Schema, y_true: str, pos_label: object) -> object:
    """``pos_label`` as a label of ``y_true``'s dtype (exactly); default 1 for numbers,
    True for booleans; required for strings."""
    dtype = schema[y_true]
    if pos_label is None:
        return default_pos_label(dtype, y_true)
    return checks.label_value(pos_label, dtype, "pos_label", y_true)


_NOT_01 = f"{names.INTERNAL}not_01"
_NOT_11 = f"{names.INTERNAL}not_11"


def defaults_pos_label(schema: pl.Schema, y_true: str, pos_label: object) -> bool:
    """True when ``pos_label`` is the default 1 of a numeric label column: then the
    labels must be {0, 1} or {-1, 1} (:func:`default_pos_label_aggs`)."""
    dtype = schema[y_true]
    return pos_label is None and dtype != pl.Boolean and dtype.is_numeric()


def default_pos_label_aggs(*labels: pl.Expr, tag: str = "") -> list[pl.Expr]:
    """Aggregations counting the labels (of every column given) outside {0, 1} and
    outside {-1, 1}: the default pos_label's rule (:func:`check_default_pos_label`;
    the expressions take the smaller of the two per group).  ``tag`` suffixes the
    two names (a second column's counts beside the first's)."""
    ys = [y.cast(pl.Float64) for y in labels]  # any numeric dtype: no integer is lost as 0, 1, -1
    return [
        pl.sum_horizontal((~y.is_in(values)).fill_null(False).sum() for y in ys).alias(name + tag)
        for name, values in ((_NOT_01, [0.0, 1.0]), (_NOT_11, [-1.0, 1.0]))
    ]


_PRED = "_pred"


def default_pos_label_pair_aggs(y_true: pl.Expr, y_pred: pl.Expr) -> list[pl.Expr]:
    """:func:`default_pos_label_aggs` of the truth and, apart, of the predictions, so
    that :func:`check_default_pos_label` names the column holding the other labels."""
    return [*default_pos_label_aggs(y_true), *default_pos_label_aggs(y_pred, tag=_PRED)]


def check_default_pos_label(
    frame: pl.LazyFrame, rows: pl.LazyFrame, y_true: str, y_pred: str | None = None
) -> pl.LazyFrame:
    """Raise at collect when the default ``pos_label`` (1) meets labels other than
    {0, 1} or {-1, 1} anywhere in the input (scikit-learn's
    ``_check_pos_label_consistency``): with {1, 2}, is 1 or 2 the positive class?
    scikit-learn's own functions disagree, so the user must say.  Drops the check
    columns.  With ``y_pred`` (the counts of :func:`default_pos_label_pair_aggs`),
    the message names the column that holds the other labels: ``y_true`` when its
    own labels break the rule, else ``y_pred`` (alone, or beside ``y_true``'s)."""
    pair = [_NOT_01 + _PRED, _NOT_11 + _PRED] if y_pred is not None else []

    def check(df: pl.DataFrame) -> pl.DataFrame:
        if not df.height:
            return df
        not_01, not_11 = df[_NOT_01].sum(), df[_NOT_11].sum()
        if not_01 and not_11:
            raise checks.Bad.pos_label_needed(y_true, checks.labels_present(rows, y_true))
        if y_pred is not None:
            pred_01, pred_11 = df[pair[0]].sum(), df[pair[1]].sum()
            if (not_01 or pred_01) and (not_11 or pred_11):
                present = checks.labels_present(rows, y_pred)
                if pred_01 and pred_11:
                    raise checks.Bad.pos_label_needed(y_pred, present)
                beside = (y_true, checks.labels_present(rows, y_true))
                raise checks.Bad.pos_label_needed(y_pred, present, beside=beside)
        return df

    return frame.map_batches(check).drop(_NOT_01, _NOT_11, *pair)


def as_score(column: str, dtype: pl.DataType, bins: int | None = None) -> pl.Expr:
    """The score as Float64, with -0.0 turned into 0.0 (one threshold, as in numpy).

    With ``bins``, a score in [0, 1] becomes its bin index: the largest ``j`` whose
    lower edge ``j * (1 / bins)`` (a float, as :func:`_binary_counts` makes it) is at
    most the score (1.0 is bin ``bins``): at most ``bins + 1`` distinct values per
    segment.  ``floor(score * bins)`` is that index but for rounding (0.29 * 100 is
    28.999999999999996, where the edge 29 * 0.01 is the float 0.29: the score went
    to the bin below; 0.8999999999999999 * 10 is 9.0, above the edge 0.9); it is
    corrected by one where it misses, so that a score at an edge is in that edge's
    bin and the curves at the edges are the exact ones.  A score outside [0, 1]
    gets an index outside ``0 .. bins`` (the check refuses it).  The edges are products,
    not divisions: polars' streaming engine may divide by a constant through its
    reciprocal in some chunks, so a division can give two floats for one fraction
    (seen with polars 2.1).
    """
    score = pl.col(column).cast(pl.Float64) + 0.0
    if bins is not None:
        step = 1.0 / bins  # the edges, as _binary_counts makes them: index * step
        raw = (score * bins).floor()
        up = pl.when((raw + 1) * step <= score).then(raw + 1).otherwise(raw)
        index = pl.when(up * step > score).then(up - 1).otherwise(up)
        # finite but outside [0, 1] (a score just above 1 has floor(score * bins) =
        # bins): an index the bins check refuses (NaN, infinities: the score check's)
        finite = score.is_finite()
        score = (
            pl.when((score > 1) & finite)
            .then(bins + 1)
            .when((score < 0) & finite)
            .then(-1)
            .otherwise(index)
        )
    return score.alias(SCORE)


def score_checks(
    schema: pl.Schema, score_columns: Sequence[str]
) -> tuple[list[pl.Expr], list[checks.Check]]:
    """Aggregations counting bad scores: null / NaN / infinite, and integers beyond 2^53
    (which Float64 would tie)."""
    bad = pl.sum_horizontal(
        (~pl.col(c).cast(pl.Float64).is_finite()).fill_null(True) for c in score_columns
    )
    aggs = [bad.sum().alias(_BAD_SCORE)]
    data_checks: list[checks.Check] = [
        (_BAD_SCORE, lambda n: checks.Bad.bad_scores(score_columns, n))
    ]
    inexact = inexact_scores(schema, score_columns)
    if inexact is not None:
        aggs.append(inexact[0].alias(_INEXACT))
        data_checks.append((_INEXACT, inexact[1]))
    return aggs, data_checks


def inexact_scores(
    schema: pl.Schema, score_columns: Sequence[str]
) -> tuple[pl.Expr, Callable[[int], checks.DataError]] | None:
    """The count of integer (or decimal) scores at or beyond +-2**53, which Float64
    would tie, and its error; None when no column can hold one."""
    big = [c for c in score_columns if checks.ties_as_float(schema[c])]
    if not big:
        return None
    count = pl.sum_horizontal(checks.beyond_exact_float(pl.col(c)) for c in big).sum()
    return count, lambda n: checks.Bad.inexact_scores(big, n)


def _score_key_checks(
    frame: pl.LazyFrame, schema: pl.Schema, column: str
) -> tuple[pl.LazyFrame, list[checks.Check]]:
    """The checks of :func:`_score_checks` on the aggregated frame, whose group key
    SCORE is the score: a null / NaN / infinite score is its own group, and an
    integer at or beyond 2^53 a key of that size (no per-row aggregation)."""
    key = pl.col(SCORE)
    rows = pl.col(ROWS)
    frame = frame.with_columns(
        pl.when(key.is_null() | ~key.is_finite()).then(rows).otherwise(0).alias(_BAD_SCORE)
    )
    data_checks: list[checks.Check] = [(_BAD_SCORE, lambda n: checks.Bad.bad_scores([column], n))]
    if checks.ties_as_float(schema[column]):
        big = checks.beyond_exact_float(key)
        frame = frame.with_columns(pl.when(big).then(rows).otherwise(0).alias(_INEXACT))
        data_checks.append((_INEXACT, lambda n: checks.Bad.inexact_scores([column], n)))
    return frame, data_checks


def true_checks(
    y_true: str, types: checks.LabelTypes, column: pl.Expr | None = None
) -> tuple[list[pl.Expr], list[checks.Check]]:
    """Aggregations counting null labels and float labels that are not labels."""
    y = pl.col(y_true) if column is None else column
    aggs = [y.null_count().alias(_NULL_TRUE)]
    data_checks: list[checks.Check] = [(_NULL_TRUE, lambda n: checks.Bad.nulls(y_true, n))]
    if types.float_columns:
        aggs.append(checks.not_a_label(y).sum().alias(_NAN_TRUE))
        data_checks.append((_NAN_TRUE, lambda n: checks.Bad.not_labels(y_true, n)))
    return aggs, data_checks


def _binary_counts(
    lf: pl.LazyFrame,
    keys: list[str],
    schema: pl.Schema,
    y_true: str,
    score: str,
    *,
    pos_label: object,
    types: checks.LabelTypes,
    weight: str | None,
    bins: int | None = None,
    pos_label_present: bool = True,
    default_pos: bool = False,
) -> pl.LazyFrame:
    """``*keys, SCORE, POS, NEG`` (+ check columns) for one score column.

    ``default_pos``: ``pos_label`` was not given (see :func:`check_default_pos_label`).
    """
    positive = pl.col(y_true) == pl.lit(pos_label, schema[y_true])
    if weight is None:
        pos = positive.sum().cast(pl.Int64)
        neg = (~positive).sum().cast(pl.Int64)
        extra = []
    else:
        w = pl.col(weight).cast(pl.Float64)
        pos = (positive.cast(pl.Float64) * w).sum()
        neg = ((~positive).cast(pl.Float64) * w).sum()
        extra = [
            checks.bad_weight(weight).alias(checks.BAD_WEIGHT),
            positive.sum().alias(_POSITIVE_ROWS),
        ]
    true_aggs, label_checks = true_checks(y_true, types)
    frame = lf.group_by(*keys, as_score(score, schema[score], bins)).agg(
        pos.alias(POS),
        neg.alias(NEG),
        pl.len().alias(ROWS),
        *true_aggs,
        *extra,
        *(default_pos_label_aggs(pl.col(y_true)) if default_pos else []),
    )
    frame, data_checks = _score_key_checks(frame, schema, score)
    data_checks += label_checks
    if bins is not None:  # SCORE holds the bin index floor(score * bins) here
        frame = frame.with_columns(
            pl.when((pl.col(SCORE) < 0) | (pl.col(SCORE) > bins))
            .then(pl.col(ROWS))
            .otherwise(0)
            .alias(_OUT_OF_BINS)
        )
        data_checks.append(
            (
                _OUT_OF_BINS,
                lambda n: checks.DataError(
                    f"`bins` needs scores in [0, 1]: column {score!r} has {n} rows outside; "
                    "rescale the scores or drop `bins` for the exact result"
                ),
            )
        )
    if weight is not None:
        frame = frame.with_columns(inputs.segment_weight(keys, [POS, NEG]))
        data_checks += inputs.weight_checks(weight)
    frame = checks.raise_if_bad(frame, data_checks)
    if default_pos:
        frame = check_default_pos_label(frame, lf, y_true)
    if pos_label_present:
        positives = POS if weight is None else _POSITIVE_ROWS
        frame = check_pos_label(frame, lf, y_true, pos_label, positives)
    if bins is not None:  # from the bin index to the bin's lower edge; a product,
        # not a division, so every engine and shard computes the same float (as_score)
        frame = frame.with_columns(pl.col(SCORE) * (1.0 / bins))
    return frame


def check_pos_label(
    frame: pl.LazyFrame,
    rows: pl.LazyFrame,
    y_true: str,
    pos_label: object,
    positives: str,
    *,
    distinct: tuple[str, str] | None = None,
) -> pl.LazyFrame:
    """Raise at collect when no row of the whole input is ``pos_label`` (a segment
    without positives is fine: it has one class).  The labels present are read
    only then, for the message.  ``distinct``: columns of the per-group min and
    max label; then the input may hold a single (negative) label, and only two
    or more labels without ``pos_label`` are an error (scikit-learn's rule for
    the probability metrics)."""

    def check(df: pl.DataFrame) -> pl.DataFrame:
        if df.height and not df[positives].sum():
            several = True
            if distinct is not None:
                lows, highs = df[distinct[0]].drop_nulls(), df[distinct[1]].drop_nulls()
                several = lows.len() > 0 and lows.min() != highs.max()
            if several:
                raise checks.Bad.pos_label_absent(
                    pos_label, y_true, checks.labels_present(rows, y_true)
                )
        return df

    return frame.map_batches(check)


def prepare(
    lf: pl.LazyFrame,
    y_true: str,
    score_columns: Sequence[str],
    *,
    by: object,
    weight: str | None,
    reserved: Sequence[str],
    argument: str = "y_score",
    made_true: bool = False,
) -> tuple[inputs.Input[None], checks.LabelTypes]:
    """The schema stage of the ranking and probability methods (:mod:`inputs`), and
    the label types of ``y_true``.

    ``made_true``: ``y_true`` is an internal column made from the user's (the labels
    of a one-hot ``y_true``), whose name is not the user's to check."""
    true = {"y_true": y_true}
    given = inputs.schema_stage(
        lf,
        by=by,
        weight=weight,
        reserved=reserved,
        columns=None if made_true else true,
        made=true if made_true else None,
        numeric={argument: score_columns},
    )
    return given, checks.single_label_types(given.schema, y_true)


def binary_input(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: object,
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    reserved: Sequence[str],
    pos_label_present: bool = True,
) -> RankingInput:
    """The input of a binary score column, resolved once: ``y_score`` a column name,
    the schema stage (:func:`prepare`), then ``pos_label`` (:func:`resolve_pos_label`),
    in that order of errors.  ``pos_label_present``: raise when no row of the input is
    ``pos_label`` (a state of one shard may have none, and is not checked)."""
    y_score = checks.check_column_name("y_score", y_score)
    given, types = prepare(lf, y_true, [y_score], by=by, weight=weight, reserved=reserved)
    schema = given.schema
    label = resolve_pos_label(schema, y_true, pos_label)
    return RankingInput(
        given,
        types,
        given.rows(lf),
        y_true,
        (y_score,),
        None,
        label,
        defaults_pos_label(schema, y_true, pos_label),
        pos_label_present,
    )


def classes_input(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: object,
    *,
    by: object,
    weight: str | None,
    reserved: Sequence[str],
) -> RankingInput:
    """The input of ``{label: column}`` scores, resolved once: the mapping, the schema
    stage (:func:`prepare`), then its keys as labels of ``y_true``'s dtype."""
    mapping = checks.check_score_map("y_score", y_score)
    given, types = prepare(
        lf, y_true, list(mapping.values()), by=by, weight=weight, reserved=reserved
    )
    dtype = given.schema[y_true]
    try:
        classes = tuple(checks.label_value(k, dtype, "y_score", y_true) for k in mapping)
    except ValueError as exc:
        msg = (
            f"the keys of `y_score` {list(mapping)!r} must be labels of {y_true!r} ({dtype}): {exc}"
        )
        raise SchemaError(msg) from None
    rows = given.rows(lf)
    return RankingInput(given, types, rows, y_true, tuple(mapping.values()), classes, None, False)


def binary_score_counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: object,
    *,
    by: object,
    pos_label: object,
    weight: str | None,
    reserved: Sequence[str],
    bins: int | None = None,
    pos_label_present: bool = True,
    sortable: bool = False,
) -> ScoreCounts:
    """Validate and build the (lazy) per-score counts of a binary problem
    (:func:`binary_input`, then :func:`score_counts`).

    ``bins``: the approximate mode, see :func:`as_score`.  Options are checked
    by the caller first.  ``pos_label_present``: raise when no row of the input is
    ``pos_label`` (a state of one shard may have none, and is not checked).
    ``sortable``: keep the input (:attr:`ScoreCounts.rows`, not with ``bins``), so
    that the curve of continuous scores is found by sorting its rows
    (:mod:`pl_metrics._ranking.sorted_curve`).
    """
    read = binary_input(
        lf,
        y_true,
        y_score,
        by=by,
        pos_label=pos_label,
        weight=weight,
        reserved=reserved,
        pos_label_present=pos_label_present,
    )
    return score_counts(read, bins=bins, sortable=sortable)


def score_counts(
    read: RankingInput, *, bins: int | None = None, sortable: bool = False
) -> ScoreCounts:
    """The (lazy) per-score counts of a resolved binary input (see
    :func:`binary_score_counts`)."""
    keys = read.keys
    frame = _binary_counts(
        read.rows,
        keys,
        read.schema,
        read.y_true,
        read.y_score,
        pos_label=read.pos_label,
        types=read.types,
        weight=read.weight,
        bins=bins,
        pos_label_present=read.pos_label_present,
        default_pos=read.default_pos,
    )
    frame = frame.select(*keys, SCORE, POS, NEG).cache()
    if not keys:
        frame = frame.with_columns(pl.lit(0, pl.Int8).alias(ALL))
    kept = read if sortable and bins is None else None
    return ScoreCounts(frame, read.by, keys or [ALL], kept)


def multiclass_score_counts(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: Mapping[object, str],
    *,
    by: object,
    weight: str | None,
    reserved: Sequence[str],
) -> ScoreCounts:
    """``*keys, CLASS, SCORE, TRUE, N_ROWS``: for every score column (its class CLASS),
    the count (or weight) of rows per distinct score and actual label
    (:func:`classes_input`, then :func:`class_score_counts`).

    One-vs-rest and one-vs-one AUCs are both sums over this frame.
    """
    read = classes_input(lf, y_true, y_score, by=by, weight=weight, reserved=reserved)
    return class_score_counts(read)


def class_score_counts(read: RankingInput) -> ScoreCounts:
    """The multiclass state of a resolved ``{label: column}`` input (see
    :func:`multiclass_score_counts`)."""
    assert read.classes is not None, "{label: column} scores"
    schema, y_true, weight, types = read.schema, read.y_true, read.weight, read.types
    dtype = schema[y_true]
    classes = pl.Series(CLASS, list(read.classes), dtype=dtype)
    keys, rows = read.keys, read.rows
    n = pl.len().cast(pl.Int64) if weight is None else pl.col(weight).cast(pl.Float64).sum()
    extra = [] if weight is None else [checks.bad_weight(weight).alias(checks.BAD_WEIGHT)]
    parts = []
    for label, column in zip(classes, read.scores, strict=True):
        counts = rows.group_by(
            *keys, as_score(column, schema[column]), pl.col(y_true).alias(TRUE)
        ).agg(n.alias(N_ROWS), pl.len().alias(ROWS), *extra)
        counts, data_checks = _score_key_checks(counts, schema, column)
        if weight is not None:
            counts = counts.with_columns(inputs.segment_weight(keys, [N_ROWS]))
            data_checks += inputs.weight_checks(weight)
        counts = checks.raise_if_bad(counts, data_checks)
        parts.append(
            counts.select(*keys, pl.lit(label, dtype).alias(CLASS), SCORE, TRUE, N_ROWS, ROWS)
        )
    frame = _check_classes(pl.concat(parts), y_true, classes, types).drop(ROWS).cache()
    if not keys:
        frame = frame.with_columns(pl.lit(0, pl.Int8).alias(ALL))
    return ScoreCounts(frame, read.by, keys or [ALL])


def _check_classes(
    frame: pl.LazyFrame, y_true: str, classes: pl.Series, types: checks.LabelTypes
) -> pl.LazyFrame:
    """Fail at collect if ``y_true`` is null, not a label, or a class without a score column."""

    def check(df: pl.DataFrame) -> pl.DataFrame:
        first_class = df.filter(pl.col(CLASS) == classes[0])
        n_null = first_class.filter(pl.col(TRUE).is_null())[ROWS].sum()
        if n_null:
            raise checks.Bad.nulls(y_true, n_null)
        if types.float_columns:
            n_nan = first_class.filter(checks.not_a_label(TRUE))[ROWS].sum()
            if n_nan:
                raise checks.Bad.not_labels(y_true, n_nan)
        unknown = first_class.filter(~pl.col(TRUE).is_in(classes.implode()))
        if unknown.height:
            raise checks.Bad.unknown_classes(
                y_true, unknown[ROWS].sum(), classes.to_list(), unknown[TRUE].unique().sort()
            )
        return df

    return frame.map_batches(check)


# --------------------------------------------------------------------------- metrics
