"""``estimated_performance`` of ``{label: column}`` scores (multiclass CBPE) on the
engines, with the driver's memory bounded: the binary plan (:mod:`.estimated`) once
per class.

1. **The calibration maps** (``calibration="isotonic"``): class c's map is the isotonic
   fit of ``[y_true = c]`` on the score of c, so the reference rows are
   range-partitioned by the score of c (one job per class) and each partition sends
   the PAV blocks of its per-score sums of ``[y_true = c]`` (:func:`.estimated.
   _blocks`, read with the frame method's reader and checks: :class:`pl_metrics.
   _monitoring.estimated_multiclass.Reference`); the driver's PAV over the blocks
   gives the frame method's knots (:func:`.estimated.knots`).
2. **The current rows' sums**: each shard calibrates its rows' K scores with the
   knots (sent with the job), divides them by their sum per row (1 / K each where it
   is 0: :func:`~pl_metrics._monitoring.estimated_multiclass.probabilities`) and sums
   per segment, class c and distinct score of c the weight ``w p_c`` and ``w (1 -
   p_c)`` (each row a positive and a negative of class c) and the expected counts
   ``tp_c .. tn_c``.  Each shard sends per segment and class the expected counts and,
   where ``roc_auc`` is asked for, the rows range-partitioned by the score of c (one
   job per class), the one-vs-rest AUC's summary (its positive and negative weight,
   the pairs it orders right and wrong within itself); the driver merges the ranges
   as the binary plan (:func:`.estimated._finish`, keyed by segment and class).  The
   driver holds partitions x segments x classes rows.

With ``ci`` (count metrics: no ``roc_auc``) each row's label is drawn Categorical(p)
as the frame method draws it (:mod:`pl_metrics._intervals.class_draws`): a class row's
variances are the binary plan's sums (``w^2 p_c (1 - p_c)`` of the rows predicting c
and of the rest), and an average's variance is a function of the merged expected
counts and, per segment and predicted class, the sums of ``w^2 p_c p_d`` over each
pair of classes (:func:`~pl_metrics._intervals.class_draws.pair_sums`; each shard
sends them on a row of null score per segment and predicted class: no current row
has a null score, the checks refuse it).  ``ci`` with ``roc_auc`` is refused
(``NotImplementedError``, :func:`refuse_ranked_ci`): the averages' variance of the
ROC AUC holds the products of each row's placements in two classes' rankings, no
sum over score ranges.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from pl_metrics import metrics as _metrics
from pl_metrics._core import catalogue, checks, inputs, names
from pl_metrics._core.names import ALL, INTERNAL
from pl_metrics._engines import estimated as engine_estimated
from pl_metrics._engines import jobs
from pl_metrics._intervals import class_draws
from pl_metrics._monitoring import estimated, estimated_multiclass, segment_sums
from pl_metrics.exceptions import DataError

METHOD = engine_estimated.METHOD
PART = engine_estimated.PART
_SCORE, _POSITIVE, _WEIGHT, _NULLS = (
    engine_estimated._SCORE,
    engine_estimated._POSITIVE,
    engine_estimated._WEIGHT,
    engine_estimated._NULLS,
)
_CLASS = f"{INTERNAL}class"
#: The current rows' per-score state of a class: its expected positive and negative
#: weight, its expected counts, the rows and their weight.
_STATE = tuple(f"{INTERNAL}{c}" for c in ("pos", "neg", "tp", "fp", "fn", "tn", "rows", "w"))
#: With ``ci``: ``w^2 p_c (1 - p_c)`` of the rows predicting the class, and of the rest.
_SQUARES = (f"{INTERNAL}sq_tp", f"{INTERNAL}sq_fn")


def _pair_columns(classes: int) -> list[str]:
    """The columns of :func:`class_draws.pair_sums`' pairs of classes c < d."""
    first, second = class_draws.pairs(classes)
    return [f"{INTERNAL}pair_{c}_{d}" for c, d in zip(first, second, strict=True)]


def summed(classes: int, *, ci: bool) -> list[str]:
    """The current rows' state's summed columns: :data:`_STATE` (with ``ci``, the
    class rows' squares and the pairs' sums too)."""
    return [*_STATE, *((*_SQUARES, *_pair_columns(classes)) if ci else ())]


# ------------------------------------------------------------------ the reference
@dataclass(frozen=True)
class ReferenceJob(jobs.Job):
    """Class ``kwargs["index"]``'s reference job: per distinct score of its column, the
    weight of its rows of that class and of all (the frame method's reader, its checks
    raised as the reference's), sent as each score range's PAV blocks."""

    def state(self, lf: pl.LazyFrame) -> pl.DataFrame:
        import numpy as np

        flag, weight = self.kwargs["flag"], self.kwargs["weight"]
        ref = estimated_multiclass.Reference(
            lf, lf if flag is None else flag, y_true=self.args[0], keys=self.kwargs["keys"],
            columns=self.kwargs["columns"], weight=weight,
        )  # fmt: skip
        try:
            read = ref._read()
        except DataError as error:
            raise checks.Bad.in_reference(error) from None
        index = read.get_column(_CLASS).explode().to_numpy()
        i = self.kwargs["index"]
        scores = read.get_column(f"{INTERNAL}score_{i}").explode().to_numpy()
        weights = (
            None if weight is None else read.get_column(segment_sums.WEIGHTS).explode().to_numpy()
        )
        distinct, positive, total = segment_sums.score_sums(scores, index == i, weights)
        frame = pl.DataFrame(
            {_SCORE: distinct, _POSITIVE: positive, _WEIGHT: total,
             _NULLS: np.zeros(distinct.size)},
            schema={_SCORE: pl.Float64, _POSITIVE: pl.Float64, _WEIGHT: pl.Float64,
                    _NULLS: pl.Int64},
        )  # fmt: skip
        nulls = 0 if flag is None else lf.select(flag.null_count()).collect().item()
        if nulls:
            row = pl.DataFrame({_SCORE: [None], _POSITIVE: [0.0], _WEIGHT: [0.0], _NULLS: [nulls]})
            frame = pl.concat([frame, row], how="vertical_relaxed")
        return frame

    def summary(self, state: pl.DataFrame, index: int) -> pl.DataFrame:
        return engine_estimated._blocks(state, index)


def class_maps(
    engine: Any,
    values: dict[str, Any],
    on: tuple[Any, pl.Schema | None],
    ordered: tuple[list[object], list[str]],
    options: dict[str, Any],
) -> list[engine_estimated.Knots]:
    """Each class's knots: fitted here on a polars reference (the frame method's
    :meth:`~pl_metrics._monitoring.estimated_multiclass.Reference.fit`), else from the
    score ranges' PAV blocks of the engine's reference rows, one job per class."""
    reference, y_true, weight = values["reference"], values["y_true"], values["weight"]
    keys, columns = ordered
    handle, schema = on
    if schema is None:  # polars rows
        return estimated_multiclass.Reference(
            pl.LazyFrame(), reference, y_true=y_true, keys=keys, columns=columns, weight=weight
        ).fit()
    flag = reference if isinstance(reference, pl.Expr) else None
    read = jobs.read_columns([y_true, *columns, weight, flag])
    maps = []
    for i, column in enumerate(columns):
        job = ReferenceJob(
            "estimated_reference", (y_true, column),
            {"flag": flag, "weight": weight, "keys": keys, "columns": columns, "index": i},
            [_SCORE], [_POSITIVE, _WEIGHT, _NULLS], read, engine.chunk_rows(), ranked=True,
        )  # fmt: skip
        ranges = engine.rank(handle, job, 1, **options)
        try:
            summaries = engine.run(ranges, job, schema, **options)
        finally:
            engine.release(ranges)
        ranged = PART in summaries.columns and summaries.height > 0
        nulls = int(summaries.get_column(_NULLS).sum()) if ranged else 0
        if nulls:
            raise checks.Bad.reference_nulls(nulls)
        if not ranged or not summaries.get_column(_WEIGHT).explode().drop_nulls().len():
            raise checks.Bad.reference_empty(y_true)  # no rows (each class's job reads them all)
        maps.append(engine_estimated.knots(summaries))
    return maps


# ------------------------------------------------------------------ the current rows
@dataclass(frozen=True)
class CurrentJob(jobs.Job):
    """The current rows' job of the classes ``kwargs["which"]`` (each class's, ranked
    by its score, or all of them on the shards as they are): per segment, class and
    distinct score of the class, the expected weights and counts (:data:`_STATE`);
    with ``kwargs["ci"]`` also the squares, and per segment and predicted class the
    pairs' sums (:func:`summed`) on a row of null score."""

    def state(self, lf: pl.LazyFrame) -> pl.DataFrame:
        import numpy as np

        k = self.kwargs
        y_pred, columns, weight, flag = self.args[0], k["columns"], k["weight"], k["flag"]
        given: inputs.Input[None] = inputs.schema_stage(
            lf, by=k["by"], weight=weight, reserved=(), columns={"y_pred": y_pred},
            numeric={"y_score": columns},
        )  # fmt: skip
        schema = given.schema
        classes = estimated_multiclass._labels(k["keys"], schema[y_pred], y_pred)
        current = given.current_rows(lf, flag)
        lists, counts, data_checks = estimated_multiclass._current(
            current, given.keys, schema, y_pred=y_pred, columns=columns, classes=classes,
            weight=weight, probabilities_given=k["maps"] is None,
        )  # fmt: skip
        found, df = pl.collect_all([counts, lists])
        if weight is not None:
            too_large = df.get_column(inputs.SEGMENT_WEIGHT).sum()
            found = found.with_columns(pl.lit(too_large, pl.Int64).alias(inputs.SEGMENT_WEIGHT))
        checks.raise_if_bad(found.lazy(), data_checks).collect()
        keys = given.keys or [ALL]
        sizes = df.get_column(_CLASS).list.len().to_numpy().astype(np.int64)
        segment = np.repeat(np.arange(sizes.size), sizes)

        def flat(name: str) -> Any:
            return df.get_column(name).explode().to_numpy()

        scores = np.column_stack([flat(f"{INTERNAL}score_{i}") for i in range(len(columns))])
        p = estimated_multiclass.probabilities(scores.reshape(-1, len(columns)), k["maps"])
        predicted = flat(_CLASS)
        w = np.ones(segment.size) if weight is None else flat(segment_sums.WEIGHTS)
        pos_name, neg_name, tp, fp, fn, tn, n_rows, w_name = _STATE
        ci, values = k["ci"], summed(len(columns), ci=k["ci"])
        parts = []
        for i in k["which"]:
            mine, pos, neg = predicted == i, w * p[:, i], w * (1.0 - p[:, i])
            zero = np.zeros_like(pos)
            part = {
                "seg": segment,
                _CLASS: np.full(segment.size, i, dtype=np.int32),
                _SCORE: scores[:, i] + 0.0,  # -0.0 and 0.0: one score
                pos_name: pos,
                neg_name: neg,
                tp: np.where(mine, pos, zero),
                fp: np.where(mine, neg, zero),
                fn: np.where(mine, zero, pos),
                tn: np.where(mine, zero, neg),
                n_rows: np.ones(segment.size, dtype=np.int64),
                w_name: w,
            }
            if ci:  # the binary plan's squares with the row's p_c (inf: refused on the driver)
                with np.errstate(over="ignore"):
                    square = pos * neg
                part |= {_SQUARES[0]: np.where(mine, square, zero)}
                part |= {_SQUARES[1]: np.where(mine, zero, square)}
                part |= dict.fromkeys(_pair_columns(len(columns)), zero)
            parts.append(pl.DataFrame(part))
        if ci:  # per segment and predicted class, on a row of null score
            weights = None if weight is None else w
            pairs = class_draws.pair_sums((segment, weights, predicted, p), sizes.size)
            n_segments, n_classes, n_pairs = pairs.shape
            cells = n_segments * n_classes
            frame = {
                "seg": np.repeat(np.arange(n_segments), n_classes),
                _CLASS: np.tile(np.arange(n_classes, dtype=np.int32), n_segments),
                **{c: np.zeros(cells) for c in [*_STATE, *_SQUARES]},
                **dict(zip(_pair_columns(n_classes), pairs.reshape(cells, n_pairs).T, strict=True)),
            }
            null_score = pl.DataFrame(frame).with_columns(
                pl.lit(None, pl.Float64).alias(_SCORE), pl.col(n_rows).cast(pl.Int64)
            )
            parts.append(null_score.select(parts[0].columns))
        state = pl.concat(parts).group_by("seg", _CLASS, _SCORE).agg(pl.col(values).sum())
        segments = df.select(keys).with_row_index("seg")
        joined = state.join(segments.with_columns(pl.col("seg").cast(pl.Int64)), on="seg")
        return joined.select(*keys, _CLASS, _SCORE, *values)

    def summary(self, state: pl.DataFrame, index: int) -> pl.DataFrame:
        return _summary(state, index, self.keys[:-2])


def _summary(state: pl.DataFrame, index: int, keys: list[str]) -> pl.DataFrame:
    """A shard's per-score state as its summary per segment and class, in the columns
    of :func:`.estimated._finish` (the AUC's interval sums 0): the expected counts, the
    one-vs-rest AUC's (meaningful where the rows are ranged by the class's score) and,
    with the interval's sums, the class's squares and the pairs' sums."""
    grouped = [*keys, _CLASS]
    frame = state.sort([*grouped, _SCORE], descending=[False] * len(grouped) + [True])
    pos_name, neg_name, tp, fp, fn, tn, n_rows, w_name = _STATE
    pos, neg = pl.col(pos_name), pl.col(neg_name)
    tps = pos.cum_sum()
    tied = (neg * pos).sum() / 2
    zero = pl.lit(0.0, pl.Float64)
    ci = _SQUARES[0] in state.columns
    pairs = [c for c in state.columns if c.startswith(f"{INTERNAL}pair_")]
    out = frame.group_by(grouped, maintain_order=True).agg(
        pl.col(n_rows).sum().cast(pl.Int64).alias("n"),
        pl.col(w_name).sum().alias("w"),
        *(
            pl.col(c).sum().alias(name)
            for c, name in zip((tp, fp, fn, tn), engine_estimated._SUMS[2:6], strict=True)
        ),
        (pl.col(_SQUARES[0]).sum() if ci else zero).alias("s_tp"),
        (pl.col(_SQUARES[1]).sum() if ci else zero).alias("s_fn"),
        *(pl.col(c).sum() for c in pairs),
        pos.sum().alias("P"),
        neg.sum().alias("N"),
        ((neg * tps).sum() - tied).alias("right"),
        ((neg * (pos.sum() - tps)).sum() + tied).alias("wrong"),
        zero.alias("V"),
        zero.alias("u0"),
        zero.alias("m2"),
    )
    return out.with_columns(pl.lit(index, pl.Int64).alias(PART))


# ------------------------------------------------------------------ the driver
def current_job(
    engine: Any,
    y_pred: str,
    ordered: tuple[list[object], list[str]],
    keys: list[str],
    *,
    kwargs: dict[str, Any],
    read: list[str],
) -> CurrentJob:
    """The current rows' job of every class (``ordered``: the sorted classes' keys and
    score columns) per segment (``keys``: the internal segment keys); ``kwargs``: the
    rows' ``by``, ``weight``, ``flag``, ``maps`` and ``ci`` (the interval's sums)."""
    classes, columns = ordered
    every = {"keys": classes, "columns": columns, "which": list(range(len(columns)))}
    return CurrentJob(
        METHOD, (y_pred, columns[0]), kwargs | every, [*keys, _CLASS, _SCORE],
        summed(len(columns), ci=kwargs["ci"]), read, engine.chunk_rows(), ranked=True,
    )  # fmt: skip


def current_summaries(
    engine: Any,
    handle: Any,
    schema: pl.Schema,
    job: CurrentJob,
    *,
    auc: bool,
    options: dict[str, Any],
) -> pl.DataFrame:
    """Every shard's summaries of ``job``: one job of all the classes on the shards as
    they are, or with ``auc`` one job per class, its rows range-partitioned by the
    class's score."""
    columns = job.kwargs["columns"]
    per_job = [[i] for i in range(len(columns))] if auc else [list(range(len(columns)))]
    found = []
    for which in per_job:
        one = replace(
            job, args=(job.args[0], columns[which[0]]), kwargs=job.kwargs | {"which": which}
        )
        ranges = engine.rank(handle, one, 1, **options) if auc else handle
        try:
            found.append(engine.run(ranges, one, schema, **options))
        finally:
            if auc:
                engine.release(ranges)
    return pl.concat(found, how="diagonal_relaxed")


def _with_pairs(
    sums: pl.DataFrame, summaries: pl.DataFrame, keys: list[str], classes: int
) -> pl.DataFrame:
    """``sums`` (a row per segment and class) with the pairs' sums of every shard's
    ``summaries`` merged (:func:`class_draws.pair_sums`' columns)."""
    pairs, grouped = _pair_columns(classes), [*keys, _CLASS]
    if PART not in summaries.columns:  # no shard had rows
        return sums.with_columns(pl.lit(0.0).alias(c) for c in pairs)
    merged = summaries.group_by(grouped).agg(pl.col(pairs).sum())
    merged = merged.with_columns(pl.col(_CLASS).cast(pl.Int32))
    return sums.join(merged, on=grouped, how="left", nulls_equal=True, maintain_order="left")


def _with_variances(sums: pl.DataFrame, classes: int, chosen: list[str]) -> pl.DataFrame:
    """``sums`` (:func:`_with_pairs`', sorted by segment and class) with each average's
    variance of each of ``chosen`` (``estimated_multiclass._variance``'s columns, the
    segment's on its class rows): :func:`class_draws.summed_variances` of the merged
    counts and pairs' sums."""
    import numpy as np

    pairs = _pair_columns(classes)
    segments = sums.height // classes  # every segment has a row of each class

    def grid(column: str) -> Any:
        return sums.get_column(column).cast(pl.Float64).to_numpy().reshape(segments, classes)

    counts = (grid(estimated._TP), grid(estimated._FP), grid(estimated._FN), grid(estimated._TN))
    squares = sums.select(pairs).to_numpy().reshape(segments, classes, len(pairs))
    averaged = estimated_multiclass._averaged(chosen)
    metrics = list(dict.fromkeys(m for _, m in averaged))
    found = class_draws.summed_variances(metrics, counts, squares, grid("n")[:, 0])
    spreads = [
        pl.Series(estimated_multiclass._variance(a, m), np.repeat(found[a, m], classes))
        for a, m in averaged
    ]
    return sums.with_columns(spreads).drop(pairs)


def finished(
    summaries: pl.DataFrame,
    keys: list[str],
    classes: pl.Series,
    chosen: list[str],
    *,
    ci: float | None,
    auc: bool,
    weighted: bool,
    method: str,
) -> pl.LazyFrame:
    """The frame method's table (``estimated_multiclass._table``, sorted) by ``keys``
    (the internal segment keys) from every shard's summaries: the merged sums of each
    segment and class (:func:`.estimated._finish`; the AUC from score ranges where
    ``auc``) and with ``ci`` the averages' variances (:func:`_with_variances`); sums
    that overflow refused (:func:`.estimated.raise_if_overflowed`, as ``method``'s)."""
    grouped = [*keys, _CLASS]
    sums = engine_estimated._finish(
        summaries, grouped, by_ranges=auc, weighted=weighted, method=method, segments=keys
    )  # the pairs' sums checked there too, as the shards sent them
    sums = sums.with_columns(pl.col(_CLASS).cast(pl.Int32)).sort(grouped, nulls_last=True)
    if ci is not None:
        sums = _with_pairs(sums, summaries, keys, classes.len())
        engine_estimated.raise_if_overflowed(sums, keys, method)
        sums = _with_variances(sums, classes.len(), chosen)
    table = estimated_multiclass._table(sums.lazy(), keys, classes, chosen, ci)
    return table.sort([*keys, estimated_multiclass._ORDER], nulls_last=True).drop(
        estimated_multiclass._ORDER
    )


def refuse_ranked_ci(method: str, ranked: list[str], ci: float | None) -> None:
    """``ci`` of ``{label: column}`` scores with ROC AUC metrics (``ranked``: their
    names as the caller takes them) is refused before any job (``NotImplementedError``):
    the averages' variance of the ROC AUC holds each row's placements in two classes'
    rankings (:mod:`pl_metrics._intervals.class_draws`), a join by row, no sum over
    partitions."""
    if ci is None or not ranked:
        return
    msg = (
        f"pl_metrics engines: {method} of {{label: column}} scores with ci and "
        f"{', '.join(ranked)} has no engine plan (the interval of the ROC AUC's macro / "
        "weighted average sums the products of each row's placements in two classes' "
        "rankings, a join by row); leave them out (the other estimated metrics' "
        "intervals run on the engines) or ci out, or compute it with the .metrics "
        "method on polars rows"
    )
    raise NotImplementedError(msg)


def ranked_metrics(chosen: list[str]) -> list[str]:
    """The ROC AUC metrics of ``chosen`` (``estimated_performance``'s names)."""
    return [m for m in chosen if catalogue.CATALOGUE[m].ranked is catalogue.Ranked.AUC]


# ------------------------------------------------------------------ the call
def call(engine: Any, data: Any, values: dict[str, Any], options: dict[str, Any]) -> pl.DataFrame:
    """``pl_metrics.<engine>.estimated_performance`` of ``{label: column}`` scores
    (``values``: the frame method's arguments)."""
    y_pred, mapping, reference = values["y_pred"], values["y_score"], values["reference"]
    y_true, weight, by, ci = values["y_true"], values["weight"], values["by"], values["ci"]
    columns = list(checks.check_score_map("y_score", mapping).values())
    flag = reference if isinstance(reference, pl.Expr) else None
    segments = checks.normalize_by(by).given
    read = [y_pred, *columns, weight, *segments, flag, y_true if flag is not None else None]
    handle, schema, where = engine.prepare(data, jobs.read_columns(read))
    expected_schema, ref_handle, ref_schema = engine_estimated.on_no_rows(
        engine, _metrics(pl.LazyFrame(schema=schema)).estimated_performance, values,
        where=where, reference_columns=[y_true, *columns, weight],
    )  # fmt: skip
    chosen = estimated.check_metrics(values["metrics"])
    refuse_ranked_ci(METHOD, ranked_metrics(chosen), ci)
    classes, keys_sorted, ordered = estimated_multiclass.sorted_classes(
        mapping, schema[y_pred], y_pred
    )
    maps = None
    if values["calibration"] is not None:
        on = (handle, schema) if flag is not None else (ref_handle, ref_schema)
        maps = class_maps(engine, values, on, (keys_sorted, ordered), options)
    keys = names.segment_keys(segments)
    auc = bool(ranked_metrics(chosen))
    kwargs = {"by": list(segments) or None, "weight": weight, "flag": flag, "maps": maps}
    job = current_job(
        engine, y_pred, (keys_sorted, ordered), keys, kwargs=kwargs | {"ci": ci is not None},
        read=jobs.read_columns([y_pred, *ordered, weight, *segments, flag]),
    )  # fmt: skip
    summaries = current_summaries(engine, handle, schema, job, auc=auc, options=options)
    table = finished(
        summaries, keys, classes, chosen, ci=ci, auc=auc, weighted=weight is not None,
        method=METHOD,
    )  # fmt: skip
    out = names.restore_keys(table, checks.normalize_by(by).names).collect()
    return out.select(expected_schema.names()).cast(expected_schema)


__all__ = [
    "CurrentJob",
    "ReferenceJob",
    "call",
    "class_maps",
    "current_job",
    "current_summaries",
    "finished",
    "ranked_metrics",
    "refuse_ranked_ci",
    "summed",
]
