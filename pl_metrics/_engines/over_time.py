"""``over_time`` on the engines, with the driver's memory bounded by partitions,
segments and windows.

Each family's state is made on the shards by ``[*by, bucket end]``: the segments
under the frame method's stand-in names and the bucket end as a ``by`` expression
made exactly as ``over_time`` makes it (:func:`pl_metrics._groups.over_time.bucket_end`),
evaluated on every shard.  On the driver each family is finished by the frame
method's own window code:

- **label metrics** (``summary``, ``averages``, the ``pos_label`` class's): the merged
  ``counts`` state read back as the frame method's confusion counts (each cell a row
  standing for its count: ``confusion_counts(count=)``), then ``label_windows`` and
  ``finish_labels`` / ``finish_positive`` (intervals and the bootstrap included);
- **log loss, Brier score, calibration error**: the engines' loss / calibration sums
  per bucket (:mod:`.losses`, :mod:`.calibration`) as the per-bucket frames of
  ``loss_buckets`` / ``calibration_buckets``, then ``loss_windows`` /
  ``calibration_windows``;
- **ranking**: ``roc_auc`` / ``average_precision`` (``gini``) and ``ks``, of counts or
  weights, without an interval or with the analytic one (DeLong's, the logit
  interval) from partitions of score ranges (:mod:`.ranked`), each shard's per-score
  state summed into its windows there (a bucket's state in the ``k`` windows that
  hold it) and sent as its summary per (segment, window); the bootstrap's intervals
  from the merged per-score state by bucket through ``score_windows`` /
  ``finish_scores``: that state holds a row per distinct score of each segment and
  bucket;
- **estimated metrics**: :mod:`.estimated`'s plan by ``[*by, window]`` (of
  ``{label: column}`` scores :mod:`.estimated_classes`', each metric read from its
  average row as the frame method reads it), each shard's per-score sums summed into
  its windows before its summary; of every current row, labelled or not (the realized
  metrics beside them read the labelled rows).  The intervals of the ROC AUC's
  averages over classes are refused (:func:`refuse_class_intervals`).

A window of ``k`` buckets ends after the input's last bucket is left out, as the
frame method leaves it: the shards' summaries carry their last bucket end.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import polars as pl

from pl_metrics import metrics as _metrics
from pl_metrics._core import catalogue, checks, names
from pl_metrics._core.confusion import confusion_counts
from pl_metrics._core.messages import Bad
from pl_metrics._core.names import INTERNAL
from pl_metrics._engines import calibration, estimated_classes, jobs, losses, ranked
from pl_metrics._engines import estimated as engine_estimated
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._groups import over_time
from pl_metrics._intervals.sampling import resampling
from pl_metrics._monitoring import estimated, estimated_multiclass, estimated_windows
from pl_metrics._namespace.monitoring import interval_wanted, score_columns
from pl_metrics.state import ScoreCountsState

METHOD = "over_time"
#: How the engine function computes it (its docstring).
HOW = (
    "each family's state per segment and bucket made on every shard, merged and "
    "windowed on the driver by the frame method's own code; un-weighted roc_auc and "
    "average_precision, and the estimated metrics, from each shard's summary per "
    "segment and window"
)

#: A shard's last bucket end, beside its summary (windows ending after the input's
#: last bucket are left out on the driver).
_LAST = f"{INTERNAL}last_bucket"


def _spread(state: pl.DataFrame, end: str, w: over_time.Windows, keys: list[str]) -> pl.DataFrame:
    """A shard's per-bucket state (``end``: its bucket end key) summed into the ``k``
    windows that hold each bucket (every column but ``keys`` summed); the windows
    ending after the input's last bucket are dropped on the driver."""
    if w.k == 1:
        return state
    values = [c for c in state.columns if c not in keys]
    shifted = [state.with_columns(pl.col(end).dt.offset_by(w.shift(j))) for j in range(w.k)]
    return pl.concat(shifted).group_by(keys, maintain_order=True).agg(pl.col(values).sum())


def _with_last(summary: pl.DataFrame, state: pl.DataFrame, end: str) -> pl.DataFrame:
    last = state.get_column(end).max()
    return summary.with_columns(pl.lit(last, state.schema[end]).alias(_LAST))


def _windows_only(summaries: pl.DataFrame, end: str) -> pl.DataFrame:
    """The summaries of the windows ending at the input's last bucket or before."""
    if _LAST not in summaries.columns:
        return summaries
    last = summaries.get_column(_LAST).max()
    keep = pl.col(end).is_null() | (pl.col(end) <= pl.lit(last, summaries.schema[end]))
    return summaries.filter(keep).drop(_LAST)


@dataclass(frozen=True)
class Rows:
    """The rows of each shard that a call reads: ``made`` columns added (expressions
    evaluated on the shard's rows: ``check``'s one window, a constant day), then those
    ``where`` marks (a Boolean expression evaluated on each shard; None: all)."""

    where: pl.Expr | None = None
    made: tuple[pl.Expr, ...] = ()

    @property
    def names(self) -> list[str]:
        """The made columns' names (no column of the data: never read from it)."""
        return [e.meta.output_name() for e in self.made]

    def of(self, frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
        lf = frame.lazy().with_columns(self.made) if self.made else frame.lazy()
        return lf if self.where is None else lf.filter(self.where)

    def read(self, items: list[object]) -> list[str]:
        """The data's columns that ``items`` (and ``where``) name: not the made ones."""
        return [c for c in jobs.read_columns([*items, self.where]) if c not in self.names]

    def and_where(self, keep: pl.Expr | None) -> Rows:
        """These rows, of them those ``keep`` marks too."""
        if keep is None:
            return self
        return replace(self, where=keep if self.where is None else self.where & keep)


@dataclass(frozen=True)
class _InWindows(jobs.Job):
    """A job of ``over_time``'s rows (``rows``: the rows of each shard it reads); ranked:
    each shard's per-bucket state summed into its windows (``windows``) before its
    summary.  The bucket end is the key :data:`_END` places before the last."""

    rows: Rows = Rows()
    windows: over_time.Windows | None = None
    #: The bucket end's place among the keys: [*segments, bucket end, score].
    _END: ClassVar[int] = -2

    def state(self, lf: pl.LazyFrame) -> pl.DataFrame:
        return super().state(self.rows.of(lf))

    def sample(self, frame: pl.DataFrame | pl.LazyFrame) -> pl.Series:
        return super().sample(self.rows.of(frame))

    def summary(self, state: pl.DataFrame, index: int) -> pl.DataFrame:
        assert self.windows is not None
        end = self.keys[self._END]
        spread = _spread(state, end, self.windows, self.keys)
        return _with_last(super().summary(spread, index), state, end)


@dataclass(frozen=True)
class WindowJob(_InWindows):
    """A state job of ``over_time``'s rows (of them those whose label arrived beside
    estimated metrics) in its windows."""


@dataclass(frozen=True)
class CurrentWindowJob(_InWindows, engine_estimated.CurrentJob):
    """:class:`.estimated.CurrentJob` of over_time's windows: each shard's per-score
    sums by (segment, bucket) summed into its windows before its summary."""


@dataclass(frozen=True)
class ClassWindowJob(_InWindows, estimated_classes.CurrentJob):
    """:class:`.estimated_classes.CurrentJob` of over_time's windows: each shard's sums
    by (segment, bucket, class, score) summed into its windows before its summary."""

    _END: ClassVar[int] = -3  # [*segments, bucket end, class, score]


# ------------------------------------------------------------------ the families
@dataclass(frozen=True)
class _Call:
    """What every family reads: the engine, its data, the frame method's arguments."""

    engine: Any
    handle: Any
    schema: pl.Schema
    options: dict[str, Any]
    values: dict[str, Any]
    by: list[pl.Expr]  # the segments under their stand-in names, then the bucket end
    keys: list[str]  # their names
    w: over_time.Windows
    rows: Rows

    def job(self, method: str, args: tuple[Any, ...], **kwargs: Any) -> WindowJob:
        """State ``method``'s job of the kept rows by ``[*by, bucket end]``."""
        job = jobs.job(method, args, by=self.by, chunk_rows=self.engine.chunk_rows(), **kwargs)
        fields = {f.name: getattr(job, f.name) for f in dataclasses.fields(jobs.Job)}
        fields["columns"] = self.rows.read([job.columns, *self.by])
        return WindowJob(**fields, rows=self.rows, windows=self.w)

    def run(self, method: str, args: tuple[Any, ...], **kwargs: Any) -> pl.DataFrame:
        """The merged state of :meth:`job` (no null bucket end)."""
        job = self.job(method, args, **kwargs)
        merged = self.engine.run(self.handle, job, self.schema, **self.options)
        if merged.get_column(over_time.WINDOW_END).null_count():
            raise Bad.null_index(self.values["index"])
        return merged


def counted_rows(
    merged: pl.DataFrame, keys: list[str], y_true: str, y_pred: str, weight: str | None
) -> tuple[pl.LazyFrame, dict[str, str | None]]:
    """A merged ``counts`` state (by ``keys``) as rows the frame method's confusion counts
    read: each cell a row standing for its count (or its summed weight), under a name
    no other column has; and the ``weight`` / ``count`` arguments that say so."""
    count = weight or "count" + "_" * max(len(k) for k in [*keys, y_true, y_pred])
    proxy = merged.lazy().rename({"actual": y_true, "predicted": y_pred, "count": count})
    plain: dict[str, str | None] = {"weight": None, "count": count}
    return proxy, plain if weight is None else {"weight": count}


def _labels(c: _Call, chosen: list[str], options: dict[str, Any]) -> list[pl.LazyFrame]:
    """The label metrics: the merged counts state as the frame method's counts."""
    values = c.values
    y_true, y_pred, weight = values["y_true"], values["y_pred"], values["weight"]
    merged = c.run("counts", (y_true, y_pred), weight=weight)
    proxy, plain = counted_rows(merged, c.keys, y_true, y_pred, weight)
    parts = []
    if any(m in over_time.SUMMARY or m in over_time.AVERAGED for m in chosen):
        counts = confusion_counts(
            proxy, y_true, y_pred, by=c.keys, labels=values["labels"], reserved=[], **plain
        )
        parts += over_time.finish_labels(
            over_time.label_windows(counts, c.w, values["index"]), chosen, **options
        )
    if any(m in over_time.POSITIVE for m in chosen):
        binary, pos = groups_fairness.binary_confusion(
            proxy, y_true, y_pred, by=c.keys, pos_label=values["pos_label"], reserved=[], **plain
        )
        windows = over_time.label_windows(binary, c.w, values["index"])
        parts += over_time.finish_positive(
            windows, pos, chosen, columns=(y_true, y_pred), **options
        )
    return parts


def _label_set(c: _Call, state: pl.DataFrame, metric: str) -> None:
    """The frame method's binary label-set checks (the default ``pos_label``'s rule,
    ``pos_label`` present, two labels) on a row per label of all the rows."""
    values = c.values
    y_true, y_score = values["y_true"], values["y_score"]
    labels = state.select(pl.col(losses.LABEL).unique().alias(y_true))
    proxy = labels.with_columns(
        pl.lit(0.5).alias(y_score), pl.date(2000, 1, 1).alias(values["index"])
    )
    chosen: Any = [metric]
    _metrics(proxy.lazy()).over_time(
        y_true, index=values["index"], every="1d", y_score=y_score, metrics=chosen,
        pos_label=values["pos_label"],
    ).collect()  # fmt: skip


def _probabilities(c: _Call, chosen: list[str], ci: float | None) -> list[pl.LazyFrame]:
    """log loss, Brier score, calibration error: the engines' sums per bucket."""
    values = c.values
    y_true, y_score, index = values["y_true"], values["y_score"], values["index"]
    kw = {"pos_label": values["pos_label"], "weight": values["weight"]}
    segments = c.keys[:-1]
    parts = []
    wanted = [m for m in chosen if m in over_time.PROBABILITY]
    if wanted:
        state = c.run("loss_sums", (y_true, y_score), **kw)
        _label_set(c, state, wanted[0])
        sums = state.group_by(c.keys).agg(
            pl.col(losses.LOG_LOSS, losses.BRIER, losses.WEIGHT).sum()
        )
        total = pl.col(losses.WEIGHT).cast(pl.Float64)
        for m in wanted:
            frame = sums.lazy().select(
                *c.keys,
                (pl.col(losses.SUMMED[over_time.row_loss(m)]) / total).alias(over_time.MEAN),
                total.alias(over_time.WEIGHT),
            )
            point = over_time.loss_windows(frame, m, c.keys, c.w, index, ci=ci)
            parts.append(over_time.long_rows(point, segments, m, m, ci is not None))
    if "calibration_error" in chosen:
        state = c.run(
            "calibration_sums", (y_true, y_score), n_bins=over_time.CALIBRATION_BINS, **kw
        )
        _label_set(c, state, "calibration_error")
        cal = calibration
        bins = state.group_by([*c.keys, cal.BIN]).agg(
            pl.col(cal.OUTCOME, cal.PROBABILITY, cal.WEIGHT).sum()
        )
        total = pl.col(cal.WEIGHT).cast(pl.Float64)
        frame = bins.lazy().select(
            *c.keys,
            pl.col(cal.BIN).alias(over_time.BIN),
            (pl.col(cal.OUTCOME) / total).alias(over_time.TRUE),
            (pl.col(cal.PROBABILITY) / total).alias(over_time.PRED),
            total.alias(over_time.WEIGHT),
        )
        point = over_time.calibration_windows(frame, c.keys, c.w, index, ci=ci)
        name = over_time.CALIBRATION[0]
        parts.append(over_time.long_rows(point, segments, name, name, ci is not None))
    return parts


def _statistics(chosen: list[str]) -> list[catalogue.Ranked | None]:
    """The ranked statistic of each ranking metric asked for (gini's: the AUC)."""
    return [
        catalogue.CATALOGUE[catalogue.base_of(m)].ranked for m in chosen if m in over_time.RANKING
    ]


def _ranked_path(chosen: list[str], options: dict[str, Any]) -> bool:
    """Every ranking metric asked for is an AUC, AP or KS (or gini), of counts or
    weights, without an interval or with its analytic one (each metric's default or
    the ``ci_method`` given): from partitions of score ranges (:mod:`.ranked`)."""
    ci, ci_method = options["ci"], options["ci_method"]
    for statistic in _statistics(chosen):
        if statistic not in ranked.INTERVALS:
            return False
        if ci is None or statistic is catalogue.Ranked.KS:  # KS: no interval
            continue
        method = ci_method or ranked.INTERVALS[statistic][0]
        if method not in ranked.INTERVALS[statistic]:
            return False
    return True


def _ranking(c: _Call, chosen: list[str], options: dict[str, Any]) -> list[pl.LazyFrame]:
    values = c.values
    y_true, y_score = values["y_true"], values["y_score"]
    kw = {"pos_label": values["pos_label"], "weight": values["weight"], "bins": None}
    wanted = [m for m in chosen if m in over_time.RANKING]
    segments = c.keys[:-1]
    if not _ranked_path(chosen, options):
        merged = c.run("score_counts", (y_true, y_score), **kw)
        counts = ScoreCountsState(merged, by=c.keys)._state
        windows = over_time.score_windows(counts, c.w, values["index"])
        return over_time.finish_scores(windows, wanted, **options)
    ci = options["ci"]
    statistics = [s for s in _statistics(chosen) if s is not None]
    ap_method = options["ci_method"] or ranked.INTERVALS[catalogue.Ranked.AP][0]
    asked = ranked.asked(statistics, ci=ci, ci_method=ap_method)
    job = replace(c.job("score_counts", (y_true, y_score), **kw), ranked=True, asked=asked)
    ranged = c.engine.rank(c.handle, job, asked.passes, **c.options)
    end = over_time.WINDOW_END
    try:
        summaries = c.engine.run(ranged, job, c.schema, **c.options)
        if ranked.PART not in summaries.columns:  # no shard had rows
            summaries = ranked.summary(summaries, c.keys, 0, asked)
        summaries = _windows_only(summaries, end)
        if summaries.get_column(end).null_count():
            raise Bad.null_index(values["index"])
        ranked.check_totals(summaries, c.keys, values["weight"])
        points: dict[catalogue.Ranked, pl.DataFrame] = {}
        if catalogue.Ranked.AUC in statistics:
            points[catalogue.Ranked.AUC] = ranked.roc_auc(summaries, c.keys, ci=ci)
        if asked.passes == 2:
            prefix = ranked.prefix(summaries, c.keys)
            sums = c.engine.run(ranged, replace(job, prefix=prefix), c.schema, **c.options)
            if ranked.PART not in sums.columns:  # no shard had rows
                sums = ranked.second(sums, c.keys, 0, prefix, asked)
            sums = _windows_only(sums, end)
            if asked.ap:
                points[catalogue.Ranked.AP] = ranked.average_precision(
                    summaries, sums, c.keys, ci=ci, ci_method=ap_method
                )
            if asked.ks:  # no interval: null bounds, as the frame method's
                nulls = [pl.lit(None, pl.Float64).alias(b) for b in names.interval_columns(["ks"])]
                points[catalogue.Ranked.KS] = ranked.ks(summaries, sums, c.keys).with_columns(nulls)
    finally:
        c.engine.release(ranged)
    parts = []
    for m in wanted:
        base = catalogue.base_of(m)
        point = catalogue.derive(points[catalogue.CATALOGUE[base].ranked].lazy(), m)  # type: ignore[index]
        parts.append(over_time.long_rows(point, segments, m, m, ci is not None))
    return parts


def _estimated(
    c: _Call, data_values: dict[str, Any], asked: list[str], ci: float | None,
    reference: tuple[Any, pl.Schema | None],
) -> list[pl.LazyFrame]:  # fmt: skip
    """The estimated metrics of one score column: :mod:`.estimated`'s plan by
    ``[*by, window]`` (``c.rows``: every row of the call, labelled or not)."""
    values = c.values
    y_pred, y_score = values["y_pred"], values["y_score"]
    weight, calibration = values["weight"], values["calibration"]
    ref = values["reference"]
    flag = ref if isinstance(ref, pl.Expr) else None
    wanted = [m.removeprefix(estimated_windows.PREFIX) for m in asked]
    found = None
    if calibration is not None:
        on = (c.handle, c.schema) if flag is not None else reference
        found = engine_estimated._calibration_map(c.engine, data_values, on, c.options)
    keys = names.segment_keys(c.keys)
    auc = any(catalogue.CATALOGUE[m].ranked is catalogue.Ranked.AUC for m in wanted)
    kwargs = {"by": c.by, "weight": weight, "pos_label": values["pos_label"]}
    kwargs |= {"flag": flag, "probabilities": calibration is None, "knots": found}
    job = CurrentWindowJob(
        engine_estimated.METHOD, (y_pred, y_score), kwargs, [*keys, engine_estimated._SCORE],
        [engine_estimated._PRED, engine_estimated._REST, engine_estimated._PRED_SQ,
         engine_estimated._REST_SQ, engine_estimated._ROWS],
        c.rows.read([y_pred, y_score, weight, *c.by, flag]), c.engine.chunk_rows(),
        ranked=True, label_dtype=c.schema.get(y_pred), windows=c.w, rows=c.rows,
    )  # fmt: skip
    ranges = c.engine.rank(c.handle, job, 1, **c.options) if auc else c.handle
    try:
        summaries = c.engine.run(ranges, job, c.schema, **c.options)
    finally:
        if auc:
            c.engine.release(ranges)
    summaries = _windows_only(summaries, keys[-1])
    if engine_estimated.PART in summaries.columns and summaries.get_column(keys[-1]).null_count():
        raise Bad.null_index(values["index"])
    sums = engine_estimated._finish(
        summaries, keys, by_ranges=auc, weighted=weight is not None, method=METHOD
    )
    columns, bounds = estimated._metrics(wanted, ci)
    frame = sums.lazy().with_columns(columns).with_columns(bounds)
    frame = names.restore_keys(frame, c.keys)
    return [
        over_time.long_rows(frame, c.keys[:-1], estimated_windows.PREFIX + m, m, ci is not None)
        for m in wanted
    ]


def _class_estimated(
    c: _Call, data_values: dict[str, Any], asked: list[str], ci: float | None,
    reference: tuple[Any, pl.Schema | None],
) -> list[pl.LazyFrame]:  # fmt: skip
    """The estimated metrics of ``{label: column}`` scores: :mod:`.estimated_classes`'
    plan by ``[*by, window]`` (``c.rows``: every row of the call, labelled or not), each
    read from its average row (:func:`~pl_metrics._monitoring.estimated_windows.
    class_rows`, as the frame method reads it)."""
    values = c.values
    y_pred, mapping, weight = values["y_pred"], values["y_score"], values["weight"]
    ref = values["reference"]
    flag = ref if isinstance(ref, pl.Expr) else None
    chosen = estimated_windows.class_metrics(asked)
    wanted = list(dict.fromkeys(m for m, _ in chosen.values()))
    classes, keys_sorted, ordered = estimated_multiclass.sorted_classes(
        mapping, c.schema[y_pred], y_pred
    )
    maps = None
    if values["calibration"] is not None:
        on = (c.handle, c.schema) if flag is not None else reference
        maps = estimated_classes.class_maps(
            c.engine, data_values, on, (keys_sorted, ordered), c.options
        )
    keys = names.segment_keys(c.keys)
    auc = bool(estimated_classes.ranked_metrics(wanted))
    kwargs = {"by": c.by, "weight": weight, "flag": flag, "maps": maps, "ci": ci is not None}
    job = estimated_classes.current_job(
        c.engine, y_pred, (keys_sorted, ordered), keys, kwargs=kwargs,
        read=c.rows.read([y_pred, *ordered, weight, *c.by, flag]),
    )  # fmt: skip
    fields = {f.name: getattr(job, f.name) for f in dataclasses.fields(job)}
    windowed = ClassWindowJob(**fields, rows=c.rows, windows=c.w)
    summaries = estimated_classes.current_summaries(
        c.engine, c.handle, c.schema, windowed, auc=auc, options=c.options
    )
    end = keys[-1]
    summaries = _windows_only(summaries, end)
    if engine_estimated.PART in summaries.columns and summaries.get_column(end).null_count():
        raise Bad.null_index(values["index"])
    table = estimated_classes.finished(
        summaries, keys, classes, wanted, ci=ci, auc=auc, weighted=weight is not None,
        method=METHOD,
    )  # fmt: skip
    frame = names.restore_keys(table, c.keys)
    return estimated_windows.class_rows(frame, c.keys, chosen, ci=ci)


def refuse_class_intervals(
    method: str, y_score: object, estimated: list[str], ci: float | None
) -> None:
    """The estimated ROC AUC averages of ``{label: column}`` scores with ``ci`` are
    refused before any job (``NotImplementedError``:
    :func:`.estimated_classes.refuse_ranked_ci`); the other estimated metrics' intervals
    are sums over the rows."""
    if not isinstance(y_score, Mapping):
        return
    asked = estimated_windows.class_metrics(estimated)
    ranked = set(estimated_classes.ranked_metrics([m for m, _ in asked.values()]))
    estimated_classes.refuse_ranked_ci(
        method, [n for n, (m, _) in asked.items() if m in ranked], ci
    )


# ------------------------------------------------------------------ the call
def call(
    engine: Any,
    data: Any,
    values: dict[str, Any],
    options: dict[str, Any],
    *,
    rows: Rows = Rows(),
) -> pl.DataFrame:
    """``pl_metrics.<engine>.over_time`` (``values``: the frame method's arguments) of
    ``rows`` of each shard (``check``'s: a constant day made, the current rows)."""
    y_true, y_pred, y_score = values["y_true"], values["y_pred"], values["y_score"]
    weight, index, reference = values["weight"], values["index"], values["reference"]
    segments = checks.normalize_by(values["by"])
    flag = reference if isinstance(reference, pl.Expr) else None
    read = [y_true, y_pred, y_score, weight, index, *segments.given, flag]
    handle, schema, where = engine.prepare(data, rows.read(read))
    if rows.made:  # the made columns, as each shard has them
        made = pl.LazyFrame(schema=schema).with_columns(rows.made).collect_schema()
        schema = pl.Schema({**schema, **{n: made[n] for n in rows.names}})
    expected_schema, ref_handle, ref_schema = engine_estimated.on_no_rows(
        engine, _metrics(pl.LazyFrame(schema=schema)).over_time, values,
        where=where, reference_columns=[y_true, y_score, weight],
    )  # fmt: skip
    chosen = over_time.check_metrics(
        values["metrics"], y_pred=y_pred, y_score=y_score, estimated=estimated_windows.METRICS
    )
    w = over_time.windows(values["every"], values["period"])
    asked = [m for m in chosen if m in estimated_windows.METRICS]
    realized = [m for m in chosen if m not in estimated_windows.METRICS]
    ci, n_boot = values["ci"], values["n_boot"]
    wants_ci = interval_wanted(
        realized, ci=ci, n_boot=n_boot, ci_method=values["ci_method"], weight=weight,
        seed=values["seed"],
    )  # fmt: skip
    refuse_class_intervals(METHOD, y_score, asked, ci if wants_ci else None)
    ci_method, seed = resampling(values["ci_method"], values["seed"])
    end, time_zone = over_time.bucket_end(pl.LazyFrame(schema=schema), index, w)
    taken = (y_true, y_pred, *score_columns(y_score), weight, index, over_time.WINDOW_END)
    stand_ins = names.stand_in_keys(segments, [c for c in taken if c is not None])
    by = [
        *(e.alias(k) for e, k in zip(segments.exprs, stand_ins, strict=True)),
        end.alias(over_time.WINDOW_END),
    ]
    keys = [*stand_ins, over_time.WINDOW_END]
    c = _Call(engine, handle, schema, options, values, by, keys, w, rows)
    fam_options: dict[str, Any] = {"ci": ci if wants_ci else None, "ci_method": ci_method}
    fam_options |= {"n_boot": n_boot, "seed": seed}
    parts: list[pl.LazyFrame] = []
    if asked:
        of_scores = _class_estimated if isinstance(y_score, Mapping) else _estimated
        parts += of_scores(c, values, asked, fam_options["ci"], (ref_handle, ref_schema))
    if asked and realized:  # the realized metrics: of the rows whose label arrived
        c = replace(c, rows=rows.and_where(pl.col(y_true).is_not_null()))
    if any(
        m in over_time.SUMMARY or m in over_time.AVERAGED or m in over_time.POSITIVE for m in chosen
    ):
        parts += _labels(c, chosen, fam_options)
    if any(m in over_time.PROBABILITY or m in over_time.CALIBRATION for m in chosen):
        parts += _probabilities(c, chosen, fam_options["ci"])
    if any(m in over_time.RANKING for m in chosen):
        parts += _ranking(c, chosen, fam_options)
    result = over_time.assemble(parts, stand_ins, chosen, w, time_zone)
    result = result.rename(dict(zip(stand_ins, segments.names, strict=True)))
    return result.collect().select(expected_schema.names()).cast(expected_schema)


__all__ = [
    "HOW",
    "ClassWindowJob",
    "CurrentWindowJob",
    "Rows",
    "WindowJob",
    "call",
    "counted_rows",
    "refuse_class_intervals",
]
