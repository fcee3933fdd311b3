"""The rows of the multilabel ranking metrics (:mod:`pl_metrics._multilabel.ranking`):
the options' checks, the truth and the scores read and checked, each row one List
of ``{t, s}`` structs (its truth and score for every label, in label order).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import polars as pl
from polars.exceptions import SchemaError

from pl_metrics._core import checks, indicators
from pl_metrics._core.names import INTERNAL
from pl_metrics._core.options import checked
from pl_metrics._multilabel import inputs
from pl_metrics.exceptions import DataError

#: The row's List of ``{t, s}`` structs (truth, score), one per label in label order.
PAIRS = f"{INTERNAL}ml_pairs"
#: The label's position in the label order (exploded rows).
J = f"{INTERNAL}ml_j"
_T, _S = "t", "s"
_SCORES = f"{INTERNAL}ml_scores"  # the row's scores, a List in label order
_RELEVANCES = f"{INTERNAL}ml_relevances"
_BAD_SCORE = f"{INTERNAL}ml_bad_score"
_BAD_LENGTH = f"{INTERNAL}ml_bad_length"
_INEXACT = f"{INTERNAL}ml_inexact"
_UNKNOWN = f"{INTERNAL}ml_unknown"
_NEGATIVE = f"{INTERNAL}ml_negative"
_OVERFLOW = f"{INTERNAL}ml_overflow"

#: The per-row metrics of the methods of their name.
ROW_METRICS = (
    "coverage_error",
    "label_ranking_average_precision",
    "label_ranking_loss",
    "ndcg",
    "dcg",
)

_Check = tuple[str, pl.Expr, Callable[[int], DataError]]


@dataclass(frozen=True)
class RankingRows:
    """Multilabel rows with their scores: ``*keys, PAIRS, [WEIGHT]`` + check flags."""

    ml: inputs.Multilabel
    frame: pl.LazyFrame
    labels: pl.Series  # in output order (the order of PAIRS)
    checks: tuple[_Check, ...]  # row flags of ``frame`` (column, flag column, error)

    @property
    def keys(self) -> list[str]:
        return self.ml.keys

    def check_aggs(self, row: pl.Expr | None = None) -> list[pl.Expr]:
        """Aggregations counting the bad rows; ``row``: which (exploded) entries are
        the row's own (each counted once)."""
        out = []
        for name, flag, _ in self.checks:
            f = flag if row is None else flag.filter(row)
            out.append(f.cast(pl.Int64).sum().alias(name))
        return out

    def raise_if_bad(self, frame: pl.LazyFrame) -> pl.LazyFrame:
        data_checks = [(name, error) for name, _, error in self.checks]
        return checks.raise_if_bad(frame, data_checks).drop([name for name, _, _ in self.checks])

    def finish(self, result: pl.LazyFrame, label: bool = False) -> pl.LazyFrame:
        """``by`` names restored (and the ``label`` column in the labels' output dtype)."""
        return self.ml.finish(result, [inputs.LABEL] if label else [])


# ------------------------------------------------------------------------- inputs
def _score_labels(
    y_score: object, labels: object, dtype: pl.DataType, column: str, at_least: int = 2
) -> tuple[pl.Series, dict[object, str] | None]:
    """The scored labels in output order (as ``dtype``) and the score mapping, if any
    (at least ``at_least`` labels)."""
    if isinstance(y_score, Mapping):
        mapping = checks.check_score_map("y_score", y_score, at_least=at_least)
        try:
            keys = [checks.label_value(k, dtype, "y_score", column) for k in mapping]
        except ValueError as exc:
            msg = f"the keys of `y_score` {list(mapping)!r} must be labels of {column!r}: {exc}"
            raise SchemaError(msg) from None
        by_key = dict(zip(keys, mapping.values(), strict=True))
        if labels is None:
            series = pl.Series(inputs.LABEL, keys, dtype=dtype).sort()
        else:
            series = checks.labels_series(labels, dtype, column).alias(inputs.LABEL)
            checked("scored labels", labels=series.to_list(), keys=keys)
        return series, {k: by_key[k] for k in series.to_list()}
    checks.check_column_name("y_score", y_score)
    checked("multilabel scores", y_score=y_score, labels=labels)
    series = checks.labels_series(labels, dtype, column).alias(inputs.LABEL)
    checked("multilabel scores", labels=series.to_list(), at_least=at_least)
    return series, None


def _score_exprs(
    schema: pl.Schema, y_score: str | dict[object, str] | object, labels: pl.Series, argument: str
) -> tuple[list[pl.Expr], list[_Check]]:
    """One Float64 expression per label (``-0.0`` as ``0.0``) and the row flags of the
    scores (null / NaN / infinite; integers beyond 2^53; List length)."""
    if isinstance(y_score, dict):
        columns = [y_score[k] for k in labels.to_list()]
        for column in columns:
            checks.check_numeric(schema, argument, column)
        exprs = [pl.col(c).cast(pl.Float64) for c in columns]
        integers = [pl.col(c) for c in columns if checks.ties_as_float(schema[c])]
        shown = list(dict.fromkeys(columns))
        length: list[_Check] = []
    else:
        column = str(y_score)
        checks.check_columns(schema, **{argument: column})
        dtype = schema[column]
        inner = dtype.inner if isinstance(dtype, pl.List) else None  # an Array: cast it
        if inner is None or not (inner.is_numeric() or inner == pl.Boolean):
            msg = (
                f"column {column!r} (argument `{argument}`) must be a List of numbers aligned "
                f"with `labels` (or a mapping {{label: column}}), got {dtype}"
                + (
                    f"; cast it with pl.col({column!r}).arr.to_list()"
                    if isinstance(dtype, pl.Array)
                    else ""
                )
            )
            raise SchemaError(msg)
        col = pl.col(column)
        n = labels.len()
        exprs = [col.list.get(i, null_on_oob=True).cast(pl.Float64) for i in range(n)]
        integers = (
            [col.list.get(i, null_on_oob=True) for i in range(n)]
            if checks.ties_as_float(inner)
            else []
        )
        shown = [column]
        wrong = (col.list.len() != n).fill_null(True)
        length = [
            (
                f"{_BAD_LENGTH}_{argument}",
                wrong,
                functools.partial(checks.Bad.list_length, column, argument, n_labels=n),
            )
        ]
    bad = pl.any_horizontal((~e.is_finite()).fill_null(True) for e in exprs)
    error = checks.Bad.bad_scores if argument == "y_score" else checks.Bad.bad_relevances
    data_checks: list[_Check] = [
        *length,
        (f"{_BAD_SCORE}_{argument}", bad, lambda k: error(shown, k)),
    ]
    if integers:
        big = pl.any_horizontal(checks.beyond_exact_float(e) for e in integers)
        data_checks.append(
            (f"{_INEXACT}_{argument}", big, lambda k: checks.Bad.inexact_scores(shown, k))
        )
    return [(e + 0.0) for e in exprs], data_checks


def _truth_checks(y_true: object, labels: pl.Series, ml: inputs.Multilabel) -> list[_Check]:
    """The mapping's labels must be the scored ones; a List row may not hold a label
    without a score (counted: a true label nobody scored is not a wrong guess)."""
    if isinstance(y_true, Mapping):
        keys = set(ml.labels.to_list()) if ml.labels is not None else set()
        checked("scored labels", truth=sorted(keys, key=repr), scored=labels.to_list())
        return []
    column, known = str(y_true), labels.to_list()
    unknown = (
        pl.col(inputs.TRUE)
        .list.eval(~pl.element().is_in(labels.implode()))
        .list.any()
        .fill_null(False)
    )
    return [(_UNKNOWN, unknown, lambda n: checks.Bad.unknown_classes(column, n, known))]


def _label_dtype(keys: list[object], argument: str) -> pl.DataType:
    """The dtype of labels given as mapping keys or ``labels=`` (as the inputs read them)."""
    return indicators.mapping_labels(dict.fromkeys(keys, ""), argument).dtype


def _free_name(schema: pl.Schema, name: str) -> str:
    while name in schema:
        name += "_"
    return name


def ranking_rows(
    lf: pl.LazyFrame,
    y_true: inputs.MultilabelColumn,
    y_score: object,
    *,
    labels: object,
    by: object,
    weight: str | None,
    reserved: Sequence[str],
    relevance: bool = False,
    nonnegative: bool = False,
    at_least: int = 2,
) -> RankingRows:
    """Check the options and the schema; the rows as ``*keys, PAIRS, [WEIGHT]``.

    ``relevance`` (dcg / ndcg): ``y_true`` is graded - ``{label: numeric column}`` or a
    List of numbers aligned with ``labels``, read as the scores are; ``t`` is then
    the relevance (Float64), else the truth (Boolean); ``nonnegative`` (ndcg): a
    negative relevance is a data error; ``at_least``: the fewest labels scored (1 for
    the label ranking average precision, which scikit-learn defines on one label).
    """
    schema = lf.collect_schema()
    if relevance:
        return _relevance_rows(
            lf,
            schema,
            y_true=y_true,
            y_score=y_score,
            labels=labels,
            by=by,
            weight=weight,
            reserved=reserved,
            nonnegative=nonnegative,
        )
    if isinstance(y_true, str):
        checks.check_column_name("y_true", y_true)
        checks.check_columns(schema, y_true=y_true)
        if not isinstance(schema[y_true], pl.List):
            msg = (
                f"column {y_true!r} (argument `y_true`) must be a List column of label sets "
                f"or a mapping {{label: indicator column}} for multilabel scores, got "
                f"{schema[y_true]}"
            )
            raise SchemaError(msg)
        column = y_true
        dtype = checks.single_label_types(
            pl.Schema({y_true: schema[y_true].inner}),  # type: ignore[attr-defined]
            y_true,
        ).compute
    elif isinstance(y_true, Mapping):
        column = "y_true"
        dtype = _label_dtype(list(y_true), "y_true")
    else:
        checked("multilabel scores", y_true=y_true)
        raise AssertionError  # refused: neither a column nor a mapping
    scored, mapping = _score_labels(y_score, labels, dtype, column, at_least)
    scores, score_checks = _score_exprs(schema, mapping or y_score, scored, "y_score")
    ml = inputs.multilabel_input(
        lf,
        y_true,
        None,
        by=by,
        labels=None,
        weight=weight,
        reserved=reserved,
        extra={_SCORES: pl.concat_list(scores), **{n: f for n, f, _ in score_checks}},
    )
    true = pl.col(inputs.TRUE)
    truth = [true.list.contains(pl.lit(x, scored.dtype)) for x in scored.to_list()]
    return _assemble(ml, scored, truth, score_checks, _truth_checks(y_true, scored, ml))


def _assemble(
    ml: inputs.Multilabel,
    labels: pl.Series,
    truth: list[pl.Expr],
    extra_checks: list[_Check],
    truth_checks: list[_Check],
) -> RankingRows:
    """``*keys, PAIRS, [WEIGHT]`` and every row flag (the input's, the truth's, the
    scores' - all computed on the input rows)."""
    schema = ml.rows.collect_schema()
    ml_checks = [(name, pl.col(name), err) for name, _, err in ml.checks if name in schema]
    scores = pl.col(_SCORES)
    pairs = pl.concat_list(
        pl.struct(t.alias(_T), (scores.list.get(j, null_on_oob=True) + 0.0).alias(_S))
        for j, t in enumerate(truth)
    )
    weight = [inputs.WEIGHT] if ml.weighted else []
    frame = ml.rows.select(
        *ml.group_keys,
        pairs.alias(PAIRS),
        *weight,
        *(name for name, _, _ in ml_checks),
        *(name for name, _, _ in extra_checks),
        *(flag.alias(name) for name, flag, _ in truth_checks),
    )
    own = [(name, pl.col(name), err) for name, _, err in (*truth_checks, *extra_checks)]
    return RankingRows(ml, frame, labels, (*ml_checks, *own))


def _relevance_rows(
    lf: pl.LazyFrame,
    schema: pl.Schema,
    *,
    y_true: object,
    y_score: object,
    labels: object,
    by: object,
    weight: str | None,
    reserved: Sequence[str],
    nonnegative: bool,
) -> RankingRows:
    """dcg / ndcg: graded ``y_true`` in the form of the scores (a mapping, or a List
    aligned with ``labels``)."""
    true_map: dict[object, str] | None = None
    if isinstance(y_true, Mapping):
        true_map = checks.check_score_map("y_true", y_true)
    else:
        checks.check_column_name("y_true", y_true)
        # the positions of a List of relevances stand for labels: never guessed from
        # the scores' mapping (its keys sorted would misalign a list in another order)
        checked("graded relevances", y_true=y_true, labels=labels)
    source = true_map or (y_score if isinstance(y_score, Mapping) else labels)
    dtype: pl.DataType = pl.String()
    if isinstance(source, (Mapping, Sequence, pl.Series)) and not isinstance(source, str):
        keys = list(source)
        dtype = _label_dtype(keys, "labels") if keys else dtype
    column = y_true if isinstance(y_true, str) else "y_true"
    scored, mapping = _score_labels(y_score, labels, dtype, column)
    true_arg: object = y_true
    if true_map is not None:
        given = {checks.label_value(k, dtype, "y_true", "y_true"): c for k, c in true_map.items()}
        checked("scored labels", truth=list(given), scored=scored.to_list())
        true_arg = {k: given[k] for k in scored.to_list()}
    relevances, true_checks = _score_exprs(schema, true_arg, scored, "y_true")
    if nonnegative:
        shown = list(dict.fromkeys(true_arg.values())) if isinstance(true_arg, dict) else [column]
        negative = pl.any_horizontal((r < 0).fill_null(False) for r in relevances)
        true_checks.append(
            (_NEGATIVE, negative, lambda n: checks.Bad.negative_relevances(shown, n))
        )
    scores, score_checks = _score_exprs(schema, mapping or y_score, scored, "y_score")
    # segments, weights and their checks as for every multilabel input; the truth is
    # the graded relevance read here (the placeholder List column is empty)
    placeholder = _free_name(schema, "relevance")
    ml = inputs.multilabel_input(
        lf.with_columns(pl.lit([], pl.List(pl.Int64)).alias(placeholder)),
        placeholder,
        None,
        by=by,
        labels=None,
        weight=weight,
        reserved=reserved,
        extra={
            _SCORES: pl.concat_list(scores),
            _RELEVANCES: pl.concat_list(relevances),
            **{n: f for n, f, _ in (*true_checks, *score_checks)},
        },
    )
    rel = pl.col(_RELEVANCES)
    truth = [rel.list.get(j, null_on_oob=True) + 0.0 for j in range(scored.len())]
    return _assemble(ml, scored, truth, [*true_checks, *score_checks], [])
