"""``check`` on the engines: the frame method's own plan, values and judgement
(:mod:`pl_metrics._monitoring.check`: the rules parsed, each segment's values, each
rule decided), the values read from the engines' functions instead of polars rows.

- **the catalogue's metrics**: the engines' ``over_time`` (:mod:`.over_time`) of the
  side's rows with every row in one window, as the frame method reads them from
  ``over_time``: a constant day made on each shard (:class:`.over_time.Rows`), the
  segments as ``by`` expressions under the frame method's stand-in names, evaluated on
  each shard;
- **the rates only ``compare`` takes** (and whether a binary metric is defined): the
  merged ``counts`` state of the side's rows by segment, read back as the frame
  method's binary confusion counts (:func:`.over_time.counted_rows`);
- **the estimated metrics**: ``over_time``'s estimated metrics on the engine
  (:mod:`.estimated`'s plan; of ``{label: column}`` scores :mod:`.estimated_classes`',
  the ROC AUC averages' intervals refused before any job), calibrated on the
  reference rows;
- **drift**: the engines' ``drift`` (:mod:`.drift`) by the same segments.

A side is the rows of the data, or of them those a Boolean ``reference`` expression
marks (the reference rows) or does not (the current ones), the expression evaluated on
each shard; a second frame of the engine is the reference rows (a polars frame: read
here, as the frame method reads it).  The frame method's option, rule and schema checks
run first on no rows of the engine's schema, before any job; the flag's nulls are
counted over all shards.  The driver holds what those functions hold: partitions x
segments rows (the score ranges' summaries), the merged counts per segment, drift's
bins and one slice of values.
"""

from __future__ import annotations

import datetime as dt
import inspect
from dataclasses import dataclass
from typing import Any

import polars as pl

from pl_metrics import metrics as _metrics
from pl_metrics._core import checks
from pl_metrics._engines import drift as engine_drift
from pl_metrics._engines import estimated as engine_estimated
from pl_metrics._engines import jobs, over_time
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._monitoring import check
from pl_metrics._namespace import MetricsLazyFrame

METHOD = "check"
#: How the engine function computes it (its docstring).
HOW = (
    "the frame method's rules planned and judged on the driver, their values from the "
    "engines' over_time (one window per segment), drift and estimated_performance plans "
    "and the merged confusion counts, of the current rows and the reference rows"
)
#: The day every row is on (``over_time`` with one window per segment).
_DAY = dt.date(1970, 1, 1)


def _arguments(method: str, **given: Any) -> dict[str, Any]:
    """The frame method ``method``'s arguments: its defaults, then ``given``."""
    params = list(inspect.signature(getattr(MetricsLazyFrame, method)).parameters.values())
    defaults = {p.name: p.default for p in params[1:] if p.default is not p.empty}
    return defaults | given


@dataclass(frozen=True)
class EngineSide:
    """A side of an engine's rows (:class:`pl_metrics._monitoring.check.Side`): its data,
    the rows of each shard it reads (``where``; None: all) and the segments as ``by``
    expressions under their stand-in names."""

    engine: Any
    data: Any
    options: dict[str, Any]
    by: list[pl.Expr]
    where: pl.Expr | None
    taken: list[str]  # the data's columns: the made day takes another name

    def one_window(
        self, metrics: list[str], x: check.Columns, ci: float | None, reference: object
    ) -> pl.LazyFrame:
        assert x.y_true is not None  # check_needs
        day = groups_fairness.free_name("day", self.taken)
        given = check.window_arguments(
            metrics, x, ci, day=day, by=self.by, reference=reference
        )  # fmt: skip
        values = _arguments("over_time", y_true=x.y_true, **given)
        rows = over_time.Rows(self.where, (pl.lit(_DAY).alias(day),))
        frame = over_time.call(self.engine, self.data, values, self.options, rows=rows)
        return frame.lazy()

    def counted(self, x: check.Columns) -> tuple[pl.LazyFrame, dict[str, str | None]]:
        assert x.y_true is not None  # check_needs
        assert x.y_pred is not None
        rows = over_time.Rows(self.where)
        handle, schema, _ = self.engine.prepare(
            self.data, rows.read([x.y_true, x.y_pred, x.weight, *self.by])
        )
        job = jobs.job(
            "counts", (x.y_true, x.y_pred), by=self.by or None, weight=x.weight,
            chunk_rows=self.engine.chunk_rows(),
        )  # fmt: skip
        fields = {f: getattr(job, f) for f in jobs.Job.__dataclass_fields__}
        fields["columns"] = rows.read([job.columns])
        merged = self.engine.run(
            handle, over_time.WindowJob(**fields, rows=rows), schema, **self.options
        )
        keys = [e.meta.output_name() for e in self.by]
        return over_time.counted_rows(merged, keys, x.y_true, x.y_pred, x.weight)


def _flag_nulls(
    engine: Any, data: Any, flag: pl.Expr, column: str, options: dict[str, Any]
) -> None:
    """The frame method's refusal of a null ``reference`` flag, its rows counted over
    all shards (drift's rows state: :func:`.drift_states.side_rows`)."""
    job = jobs.job("drift_rows", ([column], flag, True, [], []), chunk_rows=engine.chunk_rows())
    handle, schema, _ = engine.prepare(data, job.columns)
    counted = engine.run(handle, job, schema, **options)
    nulls = int(counted["flag_nulls"].sum()) if counted.height else 0
    if nulls:
        raise checks.Bad.reference_nulls(nulls)


def call(engine: Any, data: Any, values: dict[str, Any], options: dict[str, Any]) -> pl.DataFrame:
    """``pl_metrics.<engine>.check`` (``values``: the frame method's arguments)."""
    reference, by, ci = values["reference"], values["by"], values["ci"]
    x = check.Columns(
        values["y_true"], values["y_pred"], values["y_score"], values["weight"],
        values["pos_label"],
    )  # fmt: skip
    rules = check.parse_rules(values["rules"])  # the frame method's messages, first
    segments = checks.normalize_by(by)
    flag = reference if isinstance(reference, pl.Expr) else None
    drifted = [r.column for r in rules if r.column is not None]
    columns = [x.y_true, x.y_pred, x.y_score, x.weight, *segments.given, *drifted]
    handle, schema, where = engine.prepare(data, jobs.read_columns([*columns, flag]))
    del handle  # each function reads the data again: a schema here, no job
    polars_reference = isinstance(reference, (pl.DataFrame, pl.LazyFrame))
    expected_schema, _, ref_schema = engine_estimated.on_no_rows(
        engine, _metrics(pl.LazyFrame(schema=schema)).check, values,
        where=where, reference_columns=columns,
    )  # fmt: skip
    estimated = [r.name for r in rules if r.name in check.ESTIMATED]
    over_time.refuse_class_intervals(METHOD, x.y_score, list(dict.fromkeys(estimated)), ci)
    if drifted and flag is None and ref_schema is None:  # drift takes the engine's rows
        raise engine_drift._reference_type(engine, reference)
    reference_schema = ref_schema
    if polars_reference:
        reference_schema = reference.lazy().collect_schema()  # type: ignore[union-attr]
    p = check.plan(
        values["rules"], x=x, by=by, reference=reference, ci=ci, schema=schema,
        reference_schema=reference_schema,
    )  # fmt: skip
    stand_ins = [e.alias(k) for e, k in zip(p.segments.exprs, p.keys, strict=True)]
    taken = list(schema.names())
    current = EngineSide(
        engine, data, options, stand_ins, None if flag is None else ~flag, taken
    )  # fmt: skip
    reference_side: check.Side | None = None
    if flag is not None:
        reference_side = EngineSide(engine, data, options, stand_ins, flag, taken)
        if p.labelled:
            assert x.y_true is not None  # check_needs
            _flag_nulls(engine, data, flag, x.y_true, options)
    elif polars_reference and p.relative:
        keyed = reference.lazy().with_columns(stand_ins)  # type: ignore[union-attr]
        reference_side = check.PolarsSide(keyed, p.keys)
    elif ref_schema is not None and p.relative:
        assert reference_schema is not None
        ref_taken = list(reference_schema.names())
        reference_side = EngineSide(engine, reference, options, stand_ins, None, ref_taken)

    def drift(columns: list[str]) -> pl.LazyFrame:
        given = _arguments("drift", columns=columns, reference=reference, by=stand_ins or None)
        return engine_drift.call(engine, data, given, options).lazy()

    sources = check.Sources(current, reference_side, reference, drift)
    out = check.judge(p, check.values(p, sources), None).collect()
    return out.select(expected_schema.names()).cast(expected_schema)


__all__ = ["HOW", "EngineSide", "call"]
