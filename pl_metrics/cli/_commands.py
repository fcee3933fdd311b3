"""One command per ``.metrics`` method: options from its signature, examples, charts."""

from __future__ import annotations

import argparse
import functools
import inspect
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

import pl_metrics  # registers .metrics
from pl_metrics._core.catalogue import CATALOGUE
from pl_metrics._typing import FairnessMetric, ThresholdMetric
from pl_metrics.cli._errors import UsageError
from pl_metrics.cli._values import (
    Convert,
    _as_buckets,
    _as_callables,
    _as_columns,
    _as_cost_mapping,
    _as_edges,
    _as_expr,
    _as_float_or_pairs,
    _as_group_key,
    _as_label,
    _as_labels,
    _as_matrix,
    _as_models,
    _as_rows,
    _as_score_map,
    _as_strings,
    _Context,
    _items,
    _optional,
)

# ----------------------------------------------------------------- the options


@dataclass(frozen=True)
class _Form:
    """How one parameter appears on the command line."""

    argparse: dict[str, Any]  # add_argument's keywords: type, action, choices, metavar
    convert: Convert | None = None  # after parsing, with the input's schema
    note: str = ""  # appended to the help


_COLUMNS = _Form({"action": "append", "metavar": "COLUMN"}, _as_columns, "repeatable")
_STRINGS = _Form({"action": "append"}, _as_strings, "comma-separated or repeated")
_SCORE_MAP = _Form(
    {"action": "append", "metavar": "LABEL=COLUMN"},
    _as_score_map,
    "the score column of each class: repeat for every class; labels typed like --y-true",
)

#: ``y_true`` / ``y_pred`` as ``{label: indicator column}`` (multilabel, or a one-hot
#: ``y_true`` of the probability losses): their flags.
_TARGET_MAPS = {"y_true": ("--y-true-map",), "y_pred": ("--y-pred-map",)}
_TARGET_MAP = _Form(
    {"action": "append", "metavar": "LABEL=COLUMN"},
    _as_score_map,
    "the 0/1 indicator column of each label (multilabel sets, or one-hot: one set per "
    "row), repeat for every label (a column of labels is given as the column itself)",
)


def _float_or_auto(text: str) -> float | str:
    """A number, or the word ``auto``."""
    return "auto" if text.strip().lower() == "auto" else float(text)


#: Parameter type hint (its members other than None) -> its form on the command line.
_FORMS: list[tuple[frozenset[Any], _Form]] = [
    (frozenset({str, pl.Expr, Sequence[str | pl.Expr]}), _COLUMNS),  # By
    (
        frozenset({Sequence[object], pl.Series}),  # Labels
        _Form(
            {"action": "append", "metavar": "LABEL,..."},
            _as_labels,
            "comma-separated or repeated, typed like --y-true",
        ),
    ),
    (frozenset({Mapping[object, str]}), _SCORE_MAP),
    (
        frozenset({Mapping[str, Callable[..., Any]]}),
        _Form(
            {"action": "append", "metavar": "NAME=module:function"},
            _as_callables,
            "importable scikit-learn-shaped functions fn(y_true, y_pred), comma-separated "
            "or repeated",
        ),
    ),
    (
        frozenset({Mapping[str, str], Sequence[str], str}),
        _Form(
            {"action": "append", "metavar": "[NAME=]COLUMN"},
            _as_models,
            "repeat (or comma-separate) for every model, the baseline first; one column "
            "with --model-column and --id: the models' rows stacked",
        ),
    ),
    (
        frozenset({object}),
        _Form({"metavar": "LABEL"}, _as_label, "typed like --y-true"),
    ),
    (frozenset({pl.Expr}), _Form({"metavar": "SQL"}, _as_expr, "a SQL expression")),
    (
        frozenset({Sequence[Sequence[float]]}),
        _Form({"metavar": "MATRIX"}, _as_matrix, "JSON [[a, b], [c, d]] or a,b;c,d"),
    ),
    (
        frozenset({Mapping[object, Mapping[object, float]]}),
        _Form(
            {"metavar": "JSON"},
            _as_cost_mapping,
            '{"actual": {"decided": cost}} in JSON',
        ),
    ),
    (
        frozenset({Mapping[str, Sequence[float]]}),
        _Form({"metavar": "JSON"}, _as_edges, '{"column": [edge, ...]} in JSON'),
    ),
    (
        frozenset({float, dict[str, float]}),
        _Form({"metavar": "X|KEY=X,..."}, _as_float_or_pairs, "a number or KEY=NUMBER,..."),
    ),
    (frozenset({str, list[str]}), _STRINGS),
    (frozenset({str, Sequence[str]}), _STRINGS),
    (
        frozenset({int, Sequence[float]}),
        _Form(
            {"metavar": "N|SHARE,..."},
            _as_buckets,
            "a count, or comma-separated shares",
        ),
    ),
    (
        frozenset({float, typing.Literal["auto"]}),  # html_report's ci
        _Form({"type": _float_or_auto, "metavar": "X|auto"}, None, "a level such as 0.95, or auto"),
    ),
    (frozenset({int}), _Form({"type": int, "metavar": "N"})),
    (frozenset({float}), _Form({"type": float, "metavar": "X"})),
    (frozenset({str}), _Form({})),
    (frozenset({bool}), _Form({"action": argparse.BooleanOptionalAction})),
]

#: Flags other than ``--<parameter-name>`` (the first is the one shown).
_FLAGS: dict[str, tuple[str, ...]] = {
    "y_score": ("--score", "--y-score"),
    "y_prob": ("--score", "--y-prob"),
    "models": ("--model", "--models"),
    "model": ("--model-column",),  # compare_models' stacked rows (--model is `models`)
    "rules": ("--rule", "--rules"),  # check's: one rule a flag
}

#: The help of a parameter whose docstring entry points elsewhere ("As the frame
#: methods") or is shared with others ("ci, n_boot, seed").
_HELP = {
    "y_true": "Column of the actual labels",
    "y_pred": "Column of the predicted labels",
    "y_score": "Column of the scores of the positive class",
    "y_prob": "Column of the probabilities of the positive class",
    "by": "Segment column",
    "control": "Control feature column: the groups are compared inside each stratum",
    "weight": "Column of non-negative sample weights",
    "labels": "Classes and their order (default: the sorted labels seen)",
    "pos_label": "The positive class (default 1 / True)",
    "zero_division": "Value of a ratio with a zero denominator: 0, 1 or nan",
    "ci": "Level of the intervals (e.g. 0.95): adds their bounds",
    "n_boot": "Bootstrap replicates",
    "seed": "Bootstrap seed (none: random)",
    "ci_method": "How the intervals are computed",
    "bins": "Approximate mode: scores in [0, 1] counted in N bins",
}

#: Extra flags of a (method, parameter): (flags, add_argument keywords).
_EXTRA_FLAGS: dict[tuple[str, str], tuple[tuple[str, ...], dict[str, Any]]] = {
    ("roc_curve", "drop_intermediate"): (
        ("--keep-intermediate",),
        {
            "action": "store_false",
            "help": "keep every distinct threshold (--no-drop-intermediate)",
        },
    ),
}


#: Parameters of a (method, parameter) read in another way than their type says.
def _metrics_or_custom(values: list[str], flag: str, ctx: _Context) -> object:
    """``disparity --metric``: names of :data:`FairnessMetric`, or ``NAME=module:function``."""
    if any("=" in i or ":" in i for i in _items(values)):
        return _as_callables(values, flag, ctx)
    convert = _choices_form(list(typing.get_args(FairnessMetric))).convert
    assert convert is not None
    return convert(values, flag, ctx)


def _as_reference_file(path: str, flag: str, ctx: _Context) -> pl.LazyFrame:
    """The reference rows of another file, read as the input is (its CSV options for
    a CSV file)."""
    from pl_metrics.cli._inputs import _CSV_SUFFIXES, scan

    csv = ctx.csv if path.lower().endswith(_CSV_SUFFIXES) else None
    return scan(path, csv)


#: The reference rows (drift, html_report): a Boolean SQL expression over the input's
#: rows (``--reference``), or another file (``--reference-file``), one of the two.
_REFERENCE_FILE = _Form(
    {"metavar": "PATH"},
    _as_reference_file,
    "the reference rows in another file (Parquet/CSV/NDJSON/IPC, a glob or a directory; "
    "the training data, say), read as the input is; or --reference",
)
_REFERENCE_ROWS = _Form(
    {"metavar": "SQL"},
    _as_rows,
    "a Boolean SQL expression marking the reference rows (the others are the current "
    "ones), e.g. \"model_version = 'v1'\" or \"date < '2025-04-01'\" (a date-like "
    "text compared with a date column is the date); or --reference-file",
)

#: The reference rows of any method (``drift``, ``check`` ...): the type says it.
_FORMS.append((frozenset({pl.DataFrame, pl.LazyFrame, pl.Expr}), _REFERENCE_ROWS))

#: Quality gates (check, html): a rule a flag, never split at commas.
_RULES = _Form(
    {"action": "append", "metavar": "RULE"},
    None,
    "repeat for every rule, e.g. --rule 'roc_auc >= 0.8' --rule 'psi(income) < 0.2' "
    "--rule 'roc_auc >= reference - 0.02' (check exits 1 when a row fails)",
)

_SPECIAL_FORMS: dict[tuple[str, str], _Form] = {
    ("reference_disparities", "reference"): _Form(
        {"metavar": "KEY"},
        _as_group_key,
        "'largest', or the --by values, comma-separated",
    ),
    # the reference rows: a Boolean expression over the input's rows
    ("drift", "reference"): _REFERENCE_ROWS,
    ("html_report", "reference"): _Form(
        {"metavar": "SQL"},
        _as_rows,
        "a Boolean SQL expression marking the reference rows of the drift section, e.g. "
        "\"model_version = 'v1'\"; or --reference-file",
    ),
    ("drift_bins", "reference"): _REFERENCE_ROWS,
    ("check", "rules"): _RULES,
    ("html_report", "rules"): _RULES,
    # metric names, or custom metrics NAME=module:function
    ("disparity", "metric"): _Form(
        {"action": "append", "metavar": "NAME,...|NAME=module:function,..."},
        _metrics_or_custom,
        "metric names, or custom metrics as NAME=module:function; comma-separated or repeated",
    ),
    # a column of thresholds: f1 ... or f<beta> (f2 with --beta 2), not only the Literal's
    ("best_threshold", "metric"): _Form(
        {"metavar": "COLUMN"},
        None,
        f"{', '.join(typing.get_args(ThresholdMetric))} or f<beta>",
    ),
}

#: Parameters naming a column (their metavar).
_COLUMN_PARAMS = {"y_true", "y_pred", "y_score", "y_prob", "weight", "index", "model", "id"}

#: Command names other than the method's name in kebab-case.
_NAMES = {"html_report": "html"}


def _members(hint: Any) -> tuple[frozenset[Any], bool]:
    """The members of a union other than None, and whether None is one."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = typing.get_args(hint)
    else:
        members = (hint,)
    return frozenset(m for m in members if m is not type(None)), type(None) in members


def _form(method: str, name: str, hint: Any) -> _Form:
    """The form of ``method``'s parameter ``name`` of type ``hint``."""
    if (method, name) in _SPECIAL_FORMS:
        return _SPECIAL_FORMS[method, name]
    members, optional = _members(hint)
    literals = [m for m in members if typing.get_origin(m) is typing.Literal]
    sequence: Any = Sequence  # of a Literal known at run time only
    if len(literals) == 1 and members <= {literals[0], sequence[literals[0]]}:
        choices = list(typing.get_args(literals[0]))
        if len(members) == 1 and optional:  # one of them, or None as "none"
            choices.append("none")
            return _Form(
                {"choices": choices, "metavar": "{" + ",".join(choices) + "}"}, _none_or_choice
            )
        if len(members) == 1:  # one of them
            return _Form({"choices": choices, "metavar": "{" + ",".join(choices) + "}"})
        return _choices_form(choices)  # one or several of them
    for known, form in _FORMS:
        if members == known:
            return form
    msg = f"pl-metrics has no command-line form for {method}({name}: {hint}): add it to _FORMS"
    raise TypeError(msg)


def _none_or_choice(value: str, flag: str, ctx: _Context) -> str | None:
    """A choice of an option that also takes None (``--average none``)."""
    return None if value == "none" else value


def _choices_form(choices: list[str]) -> _Form:
    """Names among ``choices``, comma-separated or repeated."""

    def convert(values: list[str], flag: str, ctx: _Context) -> str | list[str]:
        names = _items(values)
        for name in names:
            if name not in choices:
                msg = f"{flag} {name!r}: expected one of {', '.join(choices)}"
                raise UsageError(msg)
        return names[0] if len(names) == 1 else names

    return _Form(
        {"action": "append", "metavar": "NAME,..."},
        convert,
        "comma-separated or repeated",
    )


@dataclass(frozen=True)
class _Option:
    """One command-line option: the method parameter it gives."""

    param: str
    flags: tuple[str, ...]
    form: _Form
    required: bool
    help: str
    optional: bool = False  # the parameter takes None

    @property
    def metavar(self) -> str:
        if "metavar" in self.form.argparse or "action" in self.form.argparse:
            return str(self.form.argparse.get("metavar", ""))
        return "COLUMN" if self.param in _COLUMN_PARAMS else self.param.upper()

    @property
    def dest(self) -> str:
        return f"opt_{self.flags[0].lstrip('-').replace('-', '_')}"

    def add(self, cmd: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
        kwargs = dict(self.form.argparse)
        if self.metavar:
            kwargs["metavar"] = self.metavar
        if self.optional and "type" in kwargs:
            kwargs["type"] = _optional(kwargs["type"])
        cmd.add_argument(
            *self.flags,
            dest=self.dest,
            default=argparse.SUPPRESS,
            required=self.required,
            help=self.help.replace("%", "%%"),
            **kwargs,
        )


@dataclass(frozen=True)
class Command:
    """A subcommand: its method and the options of the method's parameters."""

    name: str
    method: str
    description: str
    options: tuple[_Option, ...]
    returns_text: bool = False  # the method writes a document to ``path`` (-o)
    extra: tuple[tuple[tuple[str, ...], dict[str, Any], str], ...] = field(default=())

    def raw(self, args: argparse.Namespace, param: str) -> object:
        """The raw value of ``param`` (before conversion), or None."""
        for option in self.options:
            if option.param == param and hasattr(args, option.dest):
                return getattr(args, option.dest)
        return None

    def kwargs(self, args: argparse.Namespace, ctx: _Context) -> dict[str, object]:
        """The method's keyword arguments given on the command line."""
        kwargs: dict[str, object] = {}
        given: dict[str, str] = {}
        for option in self.options:
            if not hasattr(args, option.dest):
                continue
            if option.param in given:
                msg = f"give either {given[option.param]} or {option.flags[0]}, not both"
                raise UsageError(msg)
            value = getattr(args, option.dest)
            convert = option.form.convert
            if convert is not None and value is not None:
                value = convert(value, option.flags[0], ctx)
            kwargs[option.param] = value
            given[option.param] = option.flags[0]
        for option in self.options:  # a parameter given by one of two options
            others = [o.flags[0] for o in self.options if o.param == option.param]
            missing = option.param not in kwargs and _is_required(self.method, option.param)
            if missing and len(others) > 1:
                msg = f"{others[0]} is required (or {' '.join(others[1:])})"
                raise UsageError(msg)
        return kwargs


def _is_required(method: str, param: str) -> bool:
    parameter = inspect.signature(getattr(pl_metrics.MetricsLazyFrame, method)).parameters
    return parameter[param].default is inspect.Parameter.empty


def _options(method: str) -> list[_Option]:
    """The options of ``method``'s parameters (``path`` of a document is ``-o``)."""
    func = getattr(pl_metrics.MetricsLazyFrame, method)
    hints = typing.get_type_hints(func)
    docs = _param_docs(method)
    options = []
    for name, parameter in inspect.signature(func).parameters.items():
        if name == "self" or (name == "path" and _returns_text(method)):
            continue
        members, optional = _members(hints[name])
        required = parameter.default is inspect.Parameter.empty
        flags = _FLAGS.get(name, (f"--{name.replace('_', '-')}",))
        text = docs.get(name) or _HELP.get(name, "")
        default = parameter.default
        if not required and default is not None and default is not False:
            text += f" (default: {default}{'; none: None' if optional else ''})"
        if Mapping[object, str] in members and name in _TARGET_MAPS:  # multilabel indicators
            options.append(_Option(name, flags, _form(method, name, str), False, text))
            map_help = f"{text}; {_TARGET_MAP.note}"
            options.append(_Option(name, _TARGET_MAPS[name], _TARGET_MAP, False, map_help))
            continue
        if Mapping[object, str] in members:  # {label: column}: --score-map, or --score
            if str in members:
                column = "the score column of the positive class (binary)"
                options.append(_Option(name, flags, _form(method, name, str), False, column))
            map_help = f"{text}; {_SCORE_MAP.note}"
            only_map = required and str not in members
            options.append(_Option(name, ("--score-map",), _SCORE_MAP, only_map, map_help))
            continue
        form = _form(method, name, hints[name])
        if name == "reference" and form.convert is _as_rows:  # rows: SQL, or another file
            options.append(_Option(name, flags, form, False, form.note))
            options.append(
                _Option(name, ("--reference-file",), _REFERENCE_FILE, False, _REFERENCE_FILE.note)
            )
            continue
        if form.note:
            text = f"{text}; {form.note}" if text else form.note
        options.append(_Option(name, flags, form, required, text, optional))
    return options


def _returns_text(method: str) -> bool:
    """The method returns a document (text) and writes it to its ``path`` argument."""
    func = getattr(pl_metrics.MetricsLazyFrame, method)
    return typing.get_type_hints(func).get("return") is str


def _param_docs(method: str, depth: int = 0) -> dict[str, str]:
    """Each parameter's description in the method's numpy docstring, cleaned of markup;
    an entry "As :meth:`other`" is other's entry."""
    doc = inspect.getdoc(getattr(pl_metrics.MetricsLazyFrame, method, None)) or ""
    lines = doc.splitlines()
    entries: dict[str, str] = {}
    if "Parameters" not in lines:
        return entries
    names: list[str] = []
    text: list[str] = []
    start = lines.index("Parameters") + 2
    for i, line in enumerate(lines[start:], start):
        if line and not line[0].isspace():
            if i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
                break  # the next section
            entries |= _entries(names, text)
            names, text = [n.strip() for n in line.split(",")], []
        elif line.strip():
            text.append(line.strip())
    entries |= _entries(names, text)
    for name, entry in entries.items():
        pointer = re.match(r"As :meth:`(\w+)`", entry)
        if pointer and depth < 3:
            entries[name] = _param_docs(pointer.group(1), depth + 1).get(name, "")
        else:
            entries[name] = "" if entry.startswith("As ") else _plain(entry)
    return entries


def _entries(names: list[str], text: list[str]) -> dict[str, str]:
    """An entry of several parameters is the help of those without one of their own."""
    shared = len(names) > 1
    return {n: "" if shared and n in _HELP else " ".join(text) for n in names}


def _plain(text: str) -> str:
    """Docstring text without reST markup, its first sentence(s) up to ~200 characters."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text).replace("``", "")
    sentences = re.split(r"(?<=[.;])\s+(?=[A-Z(])", text)
    out = sentences[0]
    for sentence in sentences[1:]:
        if len(out) + len(sentence) > 200:
            break
        out += " " + sentence
    return out.rstrip(".")


@functools.cache
def commands() -> dict[str, Command]:
    """Every subcommand, by name: one per public method of ``MetricsLazyFrame``."""
    out = {}
    for method in dir(pl_metrics.MetricsLazyFrame):
        if method.startswith("_"):
            continue
        doc = inspect.getdoc(getattr(pl_metrics.MetricsLazyFrame, method)) or method
        name = _NAMES.get(method, method.replace("_", "-"))
        extra = tuple(
            (flags, kwargs, param)
            for (m, param), (flags, kwargs) in _EXTRA_FLAGS.items()
            if m == method
        )
        out[name] = Command(
            name=name,
            method=method,
            description=_plain(doc.split("\n\n")[0].replace("\n", " ")),
            options=tuple(_options(method)),
            returns_text=_returns_text(method),
            extra=extra,
        )
    return out


# ------------------------------------------------------------------ examples, charts

_LABELS = "--y-true y_true --y-pred y_pred"
_BINARY = "--y-true is_cat --score cat_score"
_CAT_PRED = """--with-column "cat_pred=y_pred = 'cat'" --y-true is_cat --y-pred cat_pred"""
_MAP = "--score-map bird=p_bird,cat=p_cat,dog=p_dog,fish=p_fish"
#: Multilabel truth (one indicator column per class) and the class scores.
_TAGS = (
    " ".join(f"""--with-column "t_{c}=y_true = '{c}'\"""" for c in ("bird", "cat", "dog", "fish"))
    + " --y-true-map bird=t_bird,cat=t_cat,dog=t_dog,fish=t_fish "
    + _MAP
)

#: An example of each command on ``examples/predictions.parquet`` (the arguments after
#: the path; ``over-time`` needs a date column ``day``); ``--help`` shows it, the
#: tests run each one.
EXAMPLES: dict[str, str] = {
    "average-precision": f"{_BINARY} --by region",
    "averages": f"{_LABELS} --by region --ci 0.95 --n-boot 200",
    "best-threshold": f"{_BINARY} --metric precision --where 'recall >= 0.9' --by region",
    "brier-score": f"{_BINARY} --by region",
    "check": (
        f"{_BINARY} --rule 'roc_auc >= 0.8' --rule 'psi(cat_score) < 0.2' "
        "--rule 'roc_auc >= reference - 0.05' --reference \"model_version = 'v1'\" --by region"
    ),
    "calibration-curve": f"{_BINARY} --n-bins 10 --strategy quantile",
    "calibration-error": f"{_BINARY} --by region",
    "class-likelihood-ratios": f"{_CAT_PRED} --by region",
    "estimated-performance": (
        """--with-column "cat_pred=y_pred = 'cat'" --y-pred cat_pred --score cat_score """
        "--y-true is_cat --reference \"model_version = 'v1'\" --by region --ci 0.9"
    ),
    "compare": f"{_LABELS} --by region --metric f1_macro --n-boot 200 --adjust holm",
    "compare-models": (
        """--with-column "coarse=round(cat_score, 1)" --y-true is_cat """
        "--model cat_score --model coarse --metric roc_auc --by region"
    ),
    "confusion-matrix": f"{_LABELS} --by region --normalize true",
    "cost-curve": f"{_BINARY} --points 11",
    "counts": f"{_LABELS} --by region",
    "coverage-error": f"{_TAGS} --by region",
    "d2-brier-score": f"{_BINARY} --by region",
    "d2-log-loss-score": f"{_BINARY} --by region",
    "dcg": f"{_TAGS} --k 2 --by region",
    "decision-cost": (
        """--with-column "not_cat=1 - cat_score" --y-true is_cat """
        "--score-map true=cat_score,false=not_cat --cost-matrix "
        """\'{"true": {"true": 0, "false": 5}, "false": {"true": 1, "false": 0}}\' --by region"""
    ),
    "det-curve": f"{_BINARY} --by region",
    "drift": ("--columns cat_score,p_bird,y_pred --reference \"model_version = 'v1'\" --by region"),
    "drift-counts": "--columns cat_score,y_pred --by region",
    "drift-bins": ("--columns cat_score,y_pred --reference \"model_version = 'v1'\" --by region"),
    "custom": f"{_LABELS} --by region --metrics mcc=sklearn.metrics:matthews_corrcoef",
    "disparity": f"{_LABELS} --by region --metric accuracy,f1_macro",
    "expected-cost": f"{_BINARY} --cost-matrix '[[0, 1], [10, 0]]' --best --by region",
    "fairness": f"{_CAT_PRED} --by region",
    "gains": f"{_BINARY} --buckets 0.1,0.2,0.5",
    "group-rates": f"{_CAT_PRED} --by region",
    "hamming-loss": f"{_LABELS} --by region",
    "html": f"{_LABELS} {_MAP} --by region --ci none -o report.html",
    "ks": f"{_BINARY} --by region",
    "label-ranking-average-precision": f"{_TAGS} --by region",
    "label-ranking-loss": f"{_TAGS} --by region",
    "hinge-loss": f"{_BINARY} --by region",
    "log-loss": f"{_BINARY} --by region",
    "ndcg": f"{_TAGS} --k 2 --by region",
    "multilabel-confusion-matrix": (
        """--with-column "t_cat=y_true = 'cat'" --with-column "t_dog=y_true = 'dog'" """
        """--with-column "p_cat=y_pred = 'cat'" --with-column "p_dog=y_pred = 'dog'" """
        "--y-true-map cat=t_cat,dog=t_dog --y-pred-map cat=p_cat,dog=p_dog --by region"
    ),
    "multilabel-counts": (
        """--with-column "t_cat=y_true = 'cat'" --with-column "t_dog=y_true = 'dog'" """
        """--with-column "p_cat=y_pred = 'cat'" --with-column "p_dog=y_pred = 'dog'" """
        "--y-true-map cat=t_cat,dog=t_dog --y-pred-map cat=p_cat,dog=p_dog --by region"
    ),
    "over-time": f"{_LABELS} --index day --every 1d --period 7d --metrics accuracy,f1_macro",
    "per-class": f"{_LABELS} --by region --ci 0.95 --ci-method wilson",
    "pr-curve": f"{_BINARY} --by region",
    "reference-disparities": f"{_CAT_PRED} --by region --reference eu",
    "report": f"{_LABELS} --by region",
    "roc-auc": f"{_BINARY} --by region --ci 0.95 --ci-method delong",
    "roc-curve": f"{_BINARY} --by region",
    "score-counts": f"{_BINARY} --bins 20",
    "selection-rate": f"{_CAT_PRED} --by region",
    "summary": f"{_LABELS} --by region --by model_version",
    "threshold-report": f"{_BINARY} --threshold 0.3 --pos-label true --neg-label false",
    "thresholds": f"{_BINARY} --by region",
    "top-k-accuracy": f"--y-true y_true {_MAP} --k 2 --by region",
    "zero-one-loss": f"{_LABELS} --by region --no-normalize",
}


@dataclass(frozen=True)
class _Chart:
    """The chart of a command's frame: a function of :mod:`pl_metrics.plot`."""

    function: str
    metric: str | None = None  # forest: the metric drawn (None: the frame's `metric`)
    by: tuple[str, ...] = ()  # columns telling rows apart besides --control / --by


#: The chart of each command's frame (``--plot``); ``forest`` draws intervals (``--ci``).
CHARTS = {
    "roc-curve": _Chart("roc_curve"),
    "pr-curve": _Chart("pr_curve"),
    "confusion-matrix": _Chart("confusion_matrix"),
    "per-class": _Chart("per_class"),
    "over-time": _Chart("over_time"),
    "calibration-curve": _Chart("reliability"),
    "thresholds": _Chart("threshold_metrics"),
    "gains": _Chart("gains"),
    "summary": _Chart("forest", "accuracy"),
    "roc-auc": _Chart("forest", "roc_auc"),
    "average-precision": _Chart("forest", "average_precision"),
    "compare": _Chart("forest"),
    "compare-models": _Chart("forest", "diff", by=("model",)),
    "drift-bins": _Chart("drift"),
}

# a metric computed from another (gini from roc_auc): its base's example, and its
# base's chart of its own column
for _name, _metric in CATALOGUE.items():
    if _metric.derived is not None and _metric.method == _name:
        _command, _base = _name.replace("_", "-"), _metric.derived.base.replace("_", "-")
        EXAMPLES.setdefault(_command, EXAMPLES[_base])
        CHARTS.setdefault(_command, replace(CHARTS[_base], metric=_name))
