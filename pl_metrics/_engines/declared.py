"""Every engine function declared once, for Spark and Dask alike.

An engine function is a ``.metrics`` method run as shard -> state -> merge -> finish:
each shard (a Spark partition, a Dask partition or file) computes the frame method's
own mergeable state with polars, the driver merges the states and finishes them with
the state's finisher (:mod:`pl_metrics.state`; the threshold tables:
:mod:`.finishers`; the fairness family, from a counts state segmented by the groups:
:mod:`.fairness`). Where no ``.metrics`` state holds what a method needs, the engines
have their own states of sums (:attr:`StateKind.make`: :mod:`.losses`,
:mod:`.calibration`, :mod:`.row_means`). :data:`DECLARED` says which states each
method is finished from; it is read from the finishers themselves, so that a new
finisher appears on both engines with no edit to either module. :func:`functions`
makes an engine's public functions from it: the frame method's parameters (the
engine's data first, its own options last) as a real ``__signature__``, its docstring
with the engine's parameters, and a call that

1. reads the data's schema (no job) and runs the frame method itself on an empty
   frame of it: the options and schema checks, their messages, before any job;
2. chooses the state from the input's form (multilabel ``y_true``: the multilabel
   counts), hands the state method's arguments to the engine's shards, and the
   finisher's to the finisher; an argument neither reads must keep its default
   (``NotImplementedError`` naming it: multiclass scores, say, have no engine state yet).
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from pl_metrics import metrics
from pl_metrics._core import catalogue, checks
from pl_metrics._drift import state as drift_state
from pl_metrics._engines import (
    calibration,
    calibration_edges,
    check,
    class_scores,
    classes,
    fairness,
    jobs,
    label_ranked,
    label_scores,
    losses,
    over_time,
    ranked,
    row_means,
)
from pl_metrics._engines import drift as engine_drift
from pl_metrics._engines import estimated as engine_estimated
from pl_metrics._engines.finishers import SCORE_FINISHERS
from pl_metrics._namespace import MetricsLazyFrame
from pl_metrics.state import (
    CountsState,
    MultilabelCountsState,
    ScoreCountsState,
    from_counts,
    from_multilabel_counts,
    from_score_counts,
)


@dataclass(frozen=True)
class StateKind:
    """A mergeable state: the frame method that makes it, the function that finishes
    it, and the finishers (``name -> function(state, **options)``)."""

    method: str
    finish: Callable[..., Any]
    finishers: dict[str, Callable[..., Any]]
    #: The function making it from rows, where it is the engines' own (no ``.metrics``
    #: method); ``any_form``: it takes every input form of its methods.
    make: Callable[..., Any] | None = None
    any_form: bool = False
    #: The input form it takes, where it is one form of its methods' input:
    #: ``form(values, schema)`` (multiclass scores, multilabel samples: :mod:`.class_scores`).
    form: Callable[[dict[str, Any], pl.Schema], bool] | None = None
    #: Its own path before any merged state, where it takes one (un-weighted rows from
    #: partitions of score ranges: :func:`.classes.exact`; calibration's quantile edges
    #: first: :func:`.calibration_edges.exact`); None from it: the merged state.
    exact: Callable[..., pl.DataFrame | None] | None = None

    @property
    def parameters(self) -> list[inspect.Parameter]:
        """The state method's parameters (its frame or rows first: left out)."""
        if self.make is not None:
            return list(inspect.signature(self.make).parameters.values())[1:]
        return _frame_parameters(self.method)

    @property
    def functions(self) -> dict[str, Callable[..., Any]]:
        """The finishers as written (their signatures), by name: the state class's
        methods, or the engines' own finishers of the merged state."""
        owner = {
            "counts": CountsState,
            "score_counts": ScoreCountsState,
            "multilabel_counts": MultilabelCountsState,
        }.get(self.method)
        return {name: getattr(owner, name, None) or f for name, f in self.finishers.items()}


def _methods(cls: type) -> dict[str, Callable[..., Any]]:
    return {
        name: (lambda state, /, _n=name, **kw: getattr(state, _n)(**kw))
        for name, _ in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_")
    }


def _signature_of(kind: str, name: str) -> inspect.Signature:
    return inspect.signature(STATES[kind].functions[name])


STATES: dict[str, StateKind] = {
    "counts": StateKind(
        "counts",
        from_counts,
        {**_methods(CountsState), **fairness.COUNTS_FINISHERS, **classes.COUNTS_FINISHERS},
    ),
    "score_counts": StateKind(
        "score_counts", from_score_counts, {**_methods(ScoreCountsState), **SCORE_FINISHERS}
    ),
    "multilabel_counts": StateKind(
        "multilabel_counts", from_multilabel_counts, _methods(MultilabelCountsState)
    ),
    "loss_sums": StateKind(
        "loss_sums", losses.LossSums, losses.LOSS_FINISHERS, make=losses.loss_sums, any_form=True
    ),
    "calibration_sums": StateKind(
        "calibration_sums",
        calibration.CalibrationSums,
        calibration.CALIBRATION_FINISHERS,
        make=calibration.calibration_sums,
        any_form=True,
        exact=calibration_edges.exact,  # quantile bins: the edges first
    ),
    "cost_sums": StateKind(
        "cost_sums", losses.LossSums, losses.COST_FINISHERS, make=losses.cost_sums, any_form=True
    ),
    **{
        kind: StateKind(kind, row_means.RowSums, finishers, make=make, any_form=True)
        for (kind, finishers), make in zip(
            row_means.FINISHERS.items(), row_means.MAKERS.values(), strict=True
        )
    },
    # {label: column} scores (one-vs-rest): the frame method's multiclass state
    "class_score_counts": StateKind(
        "class_score_counts",
        class_scores.ClassScores,
        class_scores.FINISHERS,
        make=class_scores.class_score_counts,
        form=class_scores.is_class_scores,
        exact=classes.exact,
    ),
    # multilabel scores, average="samples": the per-row values' sums (:mod:`.row_means`)
    **{
        kind: StateKind(
            kind,
            row_means.RowSums,
            finishers,
            make=class_scores.MAKERS[kind],
            form=class_scores.SAMPLES_FORMS[kind],
        )
        for kind, finishers in class_scores.SAMPLES_FINISHERS.items()
    },
    # multilabel scores per label (their means, micro): the frame method's per-label state
    "label_score_counts": StateKind(
        "label_score_counts",
        label_scores.LabelScores,
        label_scores.FINISHERS,
        make=label_scores.label_score_counts,
        form=class_scores.is_label_scores,
        exact=label_ranked.exact,
    ),
}
#: A finisher's parameters that the frame method has not: their values from its own.
DERIVED: dict[str, Callable[[dict[str, Any]], Any]] = {
    "error_bound": lambda values: values.get("bins") is not None,
}


@dataclass(frozen=True)
class Declared:
    """One engine function: the frame method it equals and the states (in order of
    preference) it is finished from; ``state_only``: the merged state itself."""

    method: str
    states: tuple[str, ...]
    state_only: bool = False


def _declared() -> dict[str, Declared]:
    table: dict[str, list[str]] = {}
    for kind, state in STATES.items():
        for name in state.finishers:
            table.setdefault(name, []).append(kind)
    out = {name: Declared(name, tuple(kinds)) for name, kinds in table.items()}
    for kind, state in STATES.items():
        if state.make is None:  # a .metrics method: the state itself
            out[kind] = Declared(kind, (kind,), state_only=True)
    out["drift_counts"] = Declared("drift_counts", (), state_only=True)
    out |= {name: Declared(name, ()) for name in OWN}
    return dict(sorted(out.items()))


#: The methods with a call of their own (several jobs of their own states, not one
#: state finished): their module's ``call(engine, data, values, options)`` and ``HOW``.
OWN: dict[str, Any] = {
    "check": check,
    "drift": engine_drift,
    "estimated_performance": engine_estimated,
    "over_time": over_time,
}


#: Every engine function, by the frame method it equals.
DECLARED = _declared()


# ------------------------------------------------------------------ the engines
@dataclass(frozen=True)
class Engine:
    """A shard provider: how it reads a schema and runs a job, its data parameter and
    its own options (Dask's ``client``), their documentation."""

    name: str
    module: str
    data: inspect.Parameter
    data_doc: str
    prepare: Callable[[Any, list[str]], tuple[Any, pl.Schema, str | None]]
    run: Callable[..., pl.DataFrame]
    options: tuple[inspect.Parameter, ...] = ()
    options_doc: str = ""
    chunk_rows: Callable[[], int] = field(default=lambda: 0)
    #: The rows range-partitioned by a job's score, and those partitions dropped
    #: (the exact ranking of :mod:`.ranked`): ``rank(handle, job, passes, **options)``.
    rank: Callable[..., Any] = field(default=lambda handle, job, passes, **options: handle)
    release: Callable[[Any], None] = field(default=lambda handle: None)
    #: The module's other public names, as lines of its type stub (:func:`stub`), and
    #: the standard library's imports they need.
    stub_lines: tuple[str, ...] = ()
    stub_imports: tuple[str, ...] = ()


def _is_default(value: object, default: object) -> bool:
    if value is default:
        return True
    if isinstance(value, pl.Expr) or type(value) is not type(default):
        return False
    try:
        return bool(value == default) or (value != value and default != default)  # NaN  # noqa: PLR0124
    except Exception:
        return False


def _frame_parameters(method: str) -> list[inspect.Parameter]:
    return list(inspect.signature(getattr(MetricsLazyFrame, method)).parameters.values())[1:]


def _engine_defaults(declared: Declared) -> dict[str, Any]:
    """The frame method's defaults, but where it has None and its first state's
    finisher a value (``ci_method``: None there means "by the input's form"; an engine
    finishes single-label input from counts): the finisher's."""
    out: dict[str, Any] = {}
    finisher = (
        _signature_of(declared.states[0], declared.method).parameters
        if declared.states and not declared.state_only
        else {}
    )
    for p in _frame_parameters(declared.method):
        default = p.default
        own = finisher.get(p.name)
        if default is None and own is not None and own.default not in (None, p.empty):
            default = own.default
        out[p.name] = default
    return out


def signature(engine: Engine, declared: Declared) -> inspect.Signature:
    """The engine function's signature: the data, the frame method's parameters (the
    engine's defaults), the engine's own options; a polars DataFrame returned."""
    defaults = _engine_defaults(declared)
    params = [engine.data]
    for p in _frame_parameters(declared.method):
        params.append(p.replace(default=defaults[p.name]) if p.default is not p.empty else p)
    params += list(engine.options)
    return inspect.Signature(params, return_annotation="pl.DataFrame")


# ------------------------------------------------------------------ one call
def _is_multilabel(y_true: object, schema: pl.Schema) -> bool:
    if isinstance(y_true, Mapping):
        return True
    dtype = schema.get(y_true) if isinstance(y_true, str) else None
    return isinstance(dtype, (pl.List, pl.Array))


def _choose(declared: Declared, values: dict[str, Any], schema: pl.Schema) -> str:
    """The state that finishes this call, from the input's form."""
    first = _frame_parameters(declared.method)[0].name
    multilabel = _is_multilabel(values.get(first), schema)
    for kind in declared.states:
        if STATES[kind].form is not None:  # one form of the input: that form only
            if STATES[kind].form(values, schema):  # type: ignore[misc]
                return kind
            continue
        if STATES[kind].any_form:
            return kind
        if (kind == "multilabel_counts") == multilabel and (
            kind != "score_counts" or isinstance(values.get("y_score"), str)
        ):
            return kind
    form = "multilabel" if multilabel else "multiclass (a mapping of score columns)"
    msg = (
        f"pl_metrics engines: {declared.method} of {form} input has no mergeable state "
        "yet; compute it with the .metrics method on polars rows"
    )
    raise NotImplementedError(msg)


def _split(
    declared: Declared, kind: str, values: dict[str, Any], defaults: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any], dict[str, Any]]:
    """The state method's positional and keyword arguments and the finisher's; an
    argument neither reads must keep its default."""
    state_params = STATES[kind].parameters
    positional = tuple(values[p.name] for p in state_params if p.kind is p.POSITIONAL_OR_KEYWORD)
    state_kw = {
        p.name: values.get(p.name, p.default) for p in state_params if p.kind is p.KEYWORD_ONLY
    }
    finisher: dict[str, Any] = {}
    if not declared.state_only:
        names = [
            p.name
            for p in _signature_of(kind, declared.method).parameters.values()
            if p.kind is p.KEYWORD_ONLY
        ]
        finisher = {n: values[n] for n in names if n in values}
        finisher |= {n: DERIVED[n](values) for n in names if n not in values and n in DERIVED}
    read = {p.name for p in state_params} | set(finisher)
    for name, value in values.items():
        if name not in read and not _is_default(value, defaults[name]):
            msg = (
                f"pl_metrics engines: {declared.method}'s `{name}` ({value!r}) is not "
                f"computed from the merged {STATES[kind].method} state yet; leave it at its "
                f"default ({defaults[name]!r}) or use the .metrics method on polars rows"
            )
            raise NotImplementedError(msg)
    return positional, state_kw, finisher


def _check(
    declared: Declared,
    values: dict[str, Any],
    defaults: dict[str, Any],
    schema: pl.Schema,
    where: str | None,
) -> None:
    """The frame method on no rows of ``schema``: its option and schema checks, its
    messages (a schema error named by the shard it was read from)."""
    params = _frame_parameters(declared.method)
    positional = [values[p.name] for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    keywords = {
        p.name: values[p.name]
        for p in params
        if p.kind is p.KEYWORD_ONLY and not _is_default(values[p.name], defaults[p.name])
    }
    try:
        getattr(metrics(pl.LazyFrame(schema=schema)), declared.method)(*positional, **keywords)
    except (pl.exceptions.ColumnNotFoundError, pl.exceptions.SchemaError) as exc:
        raise jobs.named(exc, [where]) from exc


#: The exact ranking statistics computed from partitions of score ranges (the
#: catalogue record's ``ranked``) and their analytic intervals (:mod:`.ranked`).
_BOUNDED = ranked.INTERVALS


def _base(method: str) -> str:
    """The ranked metric a method is computed from: gini's roc_auc (``catalogue``)."""
    return catalogue.base_of(method) if method in catalogue.CATALOGUE else method


def _statistic(method: str) -> catalogue.Ranked | None:
    """The statistic of the ranked scores ``method`` (or its base) is, where the
    partitions of score ranges compute it (AUC, AP, KS); else None."""
    base = _base(method)
    ranked_ = catalogue.CATALOGUE[base].ranked if base in catalogue.CATALOGUE else None
    return ranked_ if ranked_ in _BOUNDED else None


def _ranked(declared: Declared, kind: str, values: dict[str, Any]) -> bool:
    """The exact AUC, AP or KS (or a metric derived from one, gini), of counts or
    weights, without an interval or with an analytic one (DeLong's, the logit ones):
    from the partitions of score ranges (:mod:`.ranked`; the driver holds partitions x
    segments rows).  Binned scores, the partial AUC and the bootstrap are finished from
    the merged state, and so is a derived metric whose ``by`` takes its base's name
    (a segment named roc_auc of gini)."""
    base = _base(declared.method)
    statistic = _statistic(base)
    if statistic is None or kind != "score_counts":
        return False
    plain = all(values.get(n) is None for n in ("bins", "max_fpr"))
    analytic = values.get("ci") is None or values.get("ci_method") in _BOUNDED[statistic]
    clash = base != declared.method and base in checks.by_names(values.get("by"))
    return plain and analytic and not clash


def _exact_ranking(
    engine: Engine,
    method: str,
    handle: Any,
    job: jobs.Job,
    schema: pl.Schema,
    *,
    options: dict[str, Any],
    finisher: dict[str, Any] | None = None,
) -> pl.DataFrame:
    """``*by, roc_auc`` / ``average_precision`` / ``ks, threshold`` (with ``finisher``'s
    ``ci``: the analytic interval) from the partitions of score ranges: their
    summaries (and for the AP and KS, a second pass with each partition's prefix)."""
    segments = job.keys[:-1]
    statistic = _statistic(method)
    assert statistic is not None  # _ranked
    ci, ci_method = (finisher or {}).get("ci"), (finisher or {}).get("ci_method")
    asked = ranked.asked([statistic], ci=ci, ci_method=ci_method)
    job = replace(job, asked=asked)
    ranged = engine.rank(handle, job, asked.passes, **options)
    try:
        summaries = engine.run(ranged, job, schema, **options)
        if ranked.PART not in summaries.columns:  # no shard had rows
            summaries = ranked.summary(summaries, segments, 0, asked)
        ranked.check_totals(summaries, segments, job.kwargs.get("weight"))
        if statistic is catalogue.Ranked.AUC:  # or gini: the AUC mapped
            auc = ranked.roc_auc(summaries, segments, ci=ci)
            return catalogue.derive(auc.lazy(), method).collect()
        prefix = ranked.prefix(summaries, segments)
        sums = engine.run(ranged, replace(job, prefix=prefix), schema, **options)
        if ranked.PART not in sums.columns:  # no shard had rows
            sums = ranked.second(sums, segments, 0, prefix, asked)
        if statistic is catalogue.Ranked.KS:
            return ranked.ks(summaries, sums, segments)
        return ranked.average_precision(summaries, sums, segments, ci=ci, ci_method=ci_method)
    finally:
        engine.release(ranged)


def _function_call(
    engine: Engine, data: Any, options: dict[str, Any], method: str, *args: Any, **kwargs: Any
) -> pl.DataFrame:
    """The engine's function ``method`` of ``data`` (a call of one engine function
    computed from others')."""
    return function(engine, DECLARED[method])(data, *args, **kwargs, **options)


def call(
    engine: Engine,
    declared: Declared,
    data: Any,
    values: dict[str, Any],
    options: dict[str, Any],
) -> pl.DataFrame:
    """One engine function's call (``values``: the frame method's arguments)."""
    if declared.method in OWN:
        return OWN[declared.method].call(engine, data, values, options)
    defaults = _engine_defaults(declared)
    params = _frame_parameters(declared.method)
    positional = [values[p.name] for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    segments = [*checks.normalize_by(values.get("by")).given]
    segments += checks.normalize_by(values.get("control")).given  # the strata of fairness
    columns = jobs.read_columns([*positional, values.get("weight"), *segments])
    handle, schema, where = engine.prepare(data, columns)
    _check(declared, values, defaults, schema, where)
    if declared.method in fairness.REFUSE:
        fairness.REFUSE[declared.method](values)
    if declared.method in fairness.FROM_FUNCTIONS:  # disparity of scores: their functions
        run = functools.partial(_function_call, engine, data, options)
        done = fairness.FROM_FUNCTIONS[declared.method](run, schema, values)
        if done is not None:
            return done
    if declared.method == "drift_counts":
        chosen, kwargs, keys, read = drift_state.shard_job(
            values["columns"], values["edges"], values["by"]
        )
        job = jobs.Job("drift_counts", (chosen,), kwargs, keys, ["rows"], read, engine.chunk_rows())
        return drift_state.in_bin_order(engine.run(handle, job, schema, **options), keys)
    kind = _choose(declared, values, schema)
    args, state_kw, finisher = _split(declared, kind, values, defaults)
    if declared.method in fairness.STATE_BY:  # the groups are segments of the state
        state_kw["by"] = fairness.STATE_BY[declared.method](values) or None
    if STATES[kind].exact is not None:  # from partitions of score ranges, where it can
        exact = STATES[kind].exact(  # type: ignore[misc]
            engine,
            declared.method,
            handle,
            schema,
            args,
            state_kw,
            finisher,
            options,
            _exact_ranking,
        )
        if exact is not None:
            return exact
    job = jobs.job(kind, args, chunk_rows=engine.chunk_rows(), **state_kw)
    if _ranked(declared, kind, values):
        job = replace(job, ranked=True)
        return _exact_ranking(
            engine, declared.method, handle, job, schema, options=options, finisher=finisher
        )
    merged = engine.run(handle, job, schema, **options)
    if declared.state_only:
        return merged
    state = STATES[kind].finish(merged, by=checks.by_names(state_kw.get("by")))
    result = STATES[kind].finishers[declared.method](state, **finisher)
    return result.collect() if isinstance(result, pl.LazyFrame) else result


# ------------------------------------------------------------------ the functions
_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}\n", re.MULTILINE)


def _sections(doc: str) -> tuple[str, dict[str, str]]:
    """A numpy docstring's summary and its sections (title -> body)."""
    text = inspect.cleandoc(doc or "")
    found = list(_SECTION.finditer(text))
    summary = text[: found[0].start()] if found else text
    sections = {}
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        sections[m.group(1)] = text[m.end() : end].strip("\n")
    return summary.strip(), sections


def docstring(engine: Engine, declared: Declared) -> str:
    """The frame method's docstring for the engine: its summary, the engine's data
    parameter first and its options last, its Returns as a DataFrame, its Notes and
    how the engine computes it (its examples run on polars rows: left out)."""
    summary, sections = _sections(getattr(MetricsLazyFrame, declared.method).__doc__ or "")
    if declared.method in OWN:
        how = OWN[declared.method].HOW
    elif declared.state_only:
        how = f"the merged ``.metrics.{declared.method}`` state of all shards, sorted by its keys"
    else:
        states = " or ".join(f"``{STATES[k].method}``" for k in declared.states)
        how = f"each shard's {states} state, merged, then finished on the driver"
    head = f"``.metrics.{declared.method}`` of all rows of the {engine.name} data ({how})."
    head += f"\n\n{summary}"
    params = "\n".join(
        s for s in (engine.data_doc, sections.get("Parameters", ""), engine.options_doc) if s
    )
    returns = sections.get("Returns", "DataFrame").replace("LazyFrame", "DataFrame")
    parts = [head, f"Parameters\n----------\n{params}", f"Returns\n-------\n{returns}"]
    notes = [sections["Notes"]] if "Notes" in sections else []
    if _statistic(declared.method) is not None:
        notes.append(
            f"On {engine.name}, the exact value (of counts or weights, with ``ci``'s "
            "analytic interval; not with ``bins``, ``max_fpr`` or the bootstrap) comes "
            "from partitions of score ranges, not from the merged per-score state: the "
            "driver holds partitions x segments rows, whatever the number of distinct "
            "scores (docs/scaling.md)."
        )
    if declared.method in fairness.FROM_FUNCTIONS:
        notes.append(fairness.FROM_FUNCTIONS_NOTE.format(engine=engine.name))
    if notes:
        parts.append("Notes\n-----\n" + "\n\n".join(notes))
    return "\n\n".join(parts) + "\n"


def function(engine: Engine, declared: Declared) -> Callable[..., pl.DataFrame]:
    """The engine's public function for ``declared``."""
    sig = signature(engine, declared)
    data_name = engine.data.name
    own = [p.name for p in engine.options]

    def run(*args: Any, **kwargs: Any) -> pl.DataFrame:
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        values = dict(bound.arguments)
        data = values.pop(data_name)
        options = {name: values.pop(name) for name in own}
        return call(engine, declared, data, values, options)

    run.__name__ = run.__qualname__ = declared.method
    run.__module__ = engine.module
    run.__doc__ = docstring(engine, declared)
    run.__signature__ = sig  # type: ignore[attr-defined]
    return run


def functions(engine: Engine) -> dict[str, Callable[..., pl.DataFrame]]:
    """Every declared function of ``engine``, by name."""
    return {name: function(engine, d) for name, d in DECLARED.items()}


# ------------------------------------------------------------------ the type stubs
_STUB_IMPORTS = (
    "from collections.abc import Callable, Mapping, Sequence",
    "from typing import Any",
)


def stub(engine: Engine) -> str:
    """The engine module's type stub (``pl_metrics/<module>.pyi``): its functions are
    made at import, so a type checker reads their signatures here.  Written by
    ``python tools/engine_stubs.py``; a test checks it is current."""
    from pl_metrics import _typing

    functions = []
    used: set[str] = set()
    for name, declared in DECLARED.items():
        params = []
        star = False
        for p in signature(engine, declared).parameters.values():
            if p.kind is p.KEYWORD_ONLY and not star:
                params.append("*")
                star = True
            engine_own = p.name in (engine.data.name, "client")
            annotation = "Any" if engine_own else str(p.annotation)
            used |= set(re.findall(r"\b[A-Z]\w*", annotation))
            default = "" if p.default is p.empty else " = ..."
            params.append(f"{p.name}: {annotation}{default}")
        body = "".join(f"    {p},\n" for p in params)
        functions.append(f"def {name}(\n{body}) -> pl.DataFrame: ...")
    abc = {"Callable", "Mapping", "Sequence"}
    names = sorted(n for n in used if hasattr(_typing, n) and n not in abc)
    head = [
        f'"""Type stub of pl_metrics.{engine.module.rsplit(".", 1)[-1]}: written by '
        '``python tools/engine_stubs.py``."""',
        "",
        *sorted([*_STUB_IMPORTS, *engine.stub_imports]),
        "",
        "import polars as pl",
        "",
        "from pl_metrics._typing import (",
        *(f"    {n}," for n in names),
        ")",
        "",
        *engine.stub_lines,
        "",
    ]
    return "\n".join([*head, "\n".join(functions), ""])
