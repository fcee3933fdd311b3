"""The ``pl-metrics`` command: every ``.metrics`` frame method, from the shell.

    pl-metrics report "preds/*.parquet" --y-true y_true --y-pred y_pred --by region
    pl-metrics roc-auc preds.parquet --y-true clicked --score p_click --by country --ci 0.95
    pl-metrics roc-curve preds.parquet --y-true clicked --score p_click --plot roc.png

One subcommand per public method of :class:`pl_metrics.MetricsLazyFrame` (its name
in kebab-case).  Its options are read from the method's signature: each parameter's
type hint gives the option's form (:data:`_FORMS`: a ``Literal`` is a choice, a
``by=`` a repeatable column, a label is typed like the ``--y-true`` column, an
expression is SQL, ``{label: column}`` is ``--score-map LABEL=COLUMN``...) and its
docstring entry the help; :data:`_FLAGS` renames a few.  A parameter of a form
that the table does not know stops the parser from being built, so a new method
cannot go without a command.

Inputs are read lazily (``scan_parquet`` / ``scan_csv`` / ``scan_ndjson`` /
``scan_ipc``); globs and directories of Parquet files work.  The output format is
``--format``, else the one of ``-o FILE``'s extension, else a readable table.  Bad
input prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import functools
import glob
import inspect
import json
import re
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import polars as pl

import pl_metrics  # registers .metrics
from pl_metrics import _fairness, _paired
from pl_metrics._typing import ThresholdMetric


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2, no usage dump
        raise UsageError(message)


# --------------------------------------------------------------------------- input

_CSV_SUFFIXES = (".csv", ".tsv")
_SCANNERS: dict[str, Callable[..., pl.LazyFrame]] = {
    ".parquet": pl.scan_parquet,
    ".pq": pl.scan_parquet,
    ".csv": pl.scan_csv,
    ".tsv": pl.scan_csv,
    ".ndjson": pl.scan_ndjson,
    ".jsonl": pl.scan_ndjson,
    ".arrow": pl.scan_ipc,
    ".ipc": pl.scan_ipc,
    ".feather": pl.scan_ipc,
}


def scan(path: str, csv: Mapping[str, Any] | None = None) -> pl.LazyFrame:
    """A LazyFrame over a file, a glob or a directory of Parquet files.

    ``csv`` holds ``pl.scan_csv`` options (``separator``, ``null_values``...) for a
    CSV / TSV input; it is refused for any other input rather than ignored.
    """
    p = Path(path)
    if p.is_dir():
        if not any(f.is_file() for f in p.rglob("*.parquet")):
            msg = f"no Parquet files in directory {path}"
            raise UsageError(msg)
        _no_csv_options(path, csv)
        return pl.scan_parquet(p / "**" / "*.parquet")
    has_glob = any(ch in path for ch in "*?[")
    if not has_glob and not p.exists():
        msg = f"no such file: {path}"
        raise UsageError(msg)
    suffix = p.suffix.lower()
    if suffix not in _SCANNERS:
        msg = f"cannot read {path!r}: unknown extension {suffix!r} (use one of {sorted(_SCANNERS)})"
        raise UsageError(msg)
    if has_glob and not any(Path(f).is_file() for f in glob.iglob(path, recursive=True)):
        msg = f"no files match {path}"
        raise UsageError(msg)
    if suffix in _CSV_SUFFIXES:
        return pl.scan_csv(path, **_csv_kwargs(path, csv))
    _no_csv_options(path, csv)
    return _SCANNERS[suffix](path)


def _csv_kwargs(path: str, csv: Mapping[str, Any] | None) -> dict[str, Any]:
    """``pl.scan_csv`` options of a CSV / TSV path: a TSV's separator is a tab."""
    kwargs = dict(csv or {})
    if Path(path).suffix.lower() == ".tsv":
        kwargs.setdefault("separator", "\t")
    return kwargs


def _no_csv_options(path: str, csv: Mapping[str, Any] | None) -> None:
    if csv:
        flags = ", ".join(_CSV_FLAGS[k] for k in csv)
        msg = f"{flags}: CSV/TSV options, but {path!r} is not a .csv or .tsv input"
        raise UsageError(msg)


def _separator(text: str) -> str:
    """One character; ``\\t`` or ``tab`` is a tab."""
    text = "\t" if text in ("\\t", "tab") else text
    if len(text.encode()) != 1:
        msg = f"expected one (ASCII) character, or \\t, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return text


def _quote_char(text: str) -> str | None:
    """One character, or the empty string: no quoting."""
    return None if text == "" else _separator(text)


def _schema_length(text: str) -> int | None:
    """``N`` rows, or ``all``: read every row to infer the types."""
    if text.lower() in ("all", "none"):
        return None
    return _non_negative(text)


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        msg = f"expected an integer >= 0, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


#: The CSV/TSV reading options: ``scan_csv`` keyword -> flag (``_csv_options``).
_CSV_FLAGS = {
    "separator": "--separator",
    "quote_char": "--quote-char",
    "null_values": "--null-value",
    "has_header": "--no-header",
    "comment_prefix": "--comment-prefix",
    "skip_rows": "--skip-rows",
    "infer_schema_length": "--infer-schema-length",
    "encoding": "--encoding",
    "try_parse_dates": "--try-parse-dates",
    "decimal_comma": "--decimal-comma",
}


def _csv_arguments(cmd: argparse.ArgumentParser) -> None:
    group = cmd.add_argument_group("CSV/TSV input (passed to polars.scan_csv)")

    def add(flag: str, dest: str, **kwargs: Any) -> None:  # dest: scan_csv's keyword
        assert _CSV_FLAGS[dest] == flag
        group.add_argument(flag, dest=dest, default=argparse.SUPPRESS, **kwargs)

    add(
        "--separator",
        "separator",
        type=_separator,
        help="field separator (default ',', '\\t' for .tsv)",
    )
    add(
        "--quote-char",
        "quote_char",
        type=_quote_char,
        help="quote character (default '\"'; '' for none)",
    )
    add("--null-value", "null_values", action="append", help="text read as null (repeatable)")
    add(
        "--no-header",
        "has_header",
        action="store_false",
        help="no header row: columns polars names the columns column_0, column_1...",
    )
    add("--comment-prefix", "comment_prefix", help="skip lines starting with this text (e.g. '#')")
    add(
        "--skip-rows",
        "skip_rows",
        type=_non_negative,
        help="skip this many lines before the header",
    )
    add(
        "--infer-schema-length",
        "infer_schema_length",
        type=_schema_length,
        help="rows read to infer the column types (default 100; 'all': every row)",
    )
    add(
        "--encoding",
        "encoding",
        choices=["utf8", "utf8-lossy"],
        help="text encoding (default utf8)",
    )
    add(
        "--try-parse-dates",
        "try_parse_dates",
        action="store_true",
        help="read date/datetime text as dates",
    )
    add(
        "--decimal-comma",
        "decimal_comma",
        action="store_true",
        help="numbers written with a decimal comma",
    )


def _csv_options(args: argparse.Namespace) -> dict[str, Any]:
    """The CSV options given on the command line, as ``scan_csv`` keywords."""
    return {k: getattr(args, k) for k in _CSV_FLAGS if hasattr(args, k)}


def _text_labels(
    path: str, labels: list[str], *, as_text: bool, csv: Mapping[str, Any] | None = None
) -> pl.LazyFrame:
    """The input; for CSV/TSV, label columns that the reader takes for numbers or
    booleans are checked to write each label one way only: "01" and "1" (or "1"
    and "1.0", "-0" and "0", "True" and "true") would become one label.

    With ``as_text``, CSV/TSV label columns are read as text instead.  ``csv``:
    the reading options, the same on every read.
    """
    lf = scan(path, csv)
    if Path(path).suffix.lower() not in _CSV_SUFFIXES:
        return lf
    kwargs = _csv_kwargs(path, csv)
    schema = lf.collect_schema()
    present = [c for c in dict.fromkeys(labels) if c in schema]
    if as_text:
        return pl.scan_csv(path, **kwargs, schema_overrides=dict.fromkeys(present, pl.String))
    parsed = [c for c in present if schema[c] != pl.String]
    if not parsed:
        return lf
    text_kwargs = {
        k: v for k, v in kwargs.items() if k not in ("infer_schema_length", "try_parse_dates")
    }
    text = pl.scan_csv(path, **text_kwargs, infer_schema=False).select(parsed)
    comma = bool(kwargs.get("decimal_comma"))
    # per column: the most ways one parsed label is written (1 when each is written once)
    ways = text.select(
        pl.col(c).n_unique().over(_parsed_label(pl.col(c), schema[c], decimal_comma=comma)).max()
        for c in parsed
    ).collect()
    for column in parsed:
        if (ways[column].item() or 0) > 1:
            msg = (
                f"column {column!r} writes one {schema[column]} label in several ways "
                "(e.g. '01' and '1', '1' and '1.0', 'True' and 'true'): read as "
                f"{schema[column]}, they would be one label; pass --labels-as-text to keep "
                "them apart, or fix the file"
            )
            raise UsageError(msg)
    return lf


def _parsed_label(text: pl.Expr, dtype: pl.DataType, *, decimal_comma: bool = False) -> pl.Expr:
    """The value the CSV reader gives ``text`` for a column of ``dtype``."""
    if dtype == pl.Boolean:
        return text.str.strip_chars().str.to_lowercase()
    if decimal_comma and dtype.is_float():
        text = text.str.replace(",", ".", literal=True)
    return text.str.strip_chars().cast(dtype, strict=False)


# ------------------------------------------------------------- values of options


@dataclass(frozen=True)
class _Context:
    """What converting an option needs: the input's schema and the column options."""

    schema: pl.Schema
    y_true: str | None
    by: list[str]


def _typed(text: str, dtype: pl.DataType | None, what: str) -> object:
    """A label typed like the label column (text for a text or absent column)."""
    text = text.strip()
    if dtype is not None and dtype.is_integer():
        try:
            return int(text)
        except ValueError:
            msg = f"{what} {text!r}: the label column holds integers"
            raise UsageError(msg) from None
    if dtype is not None and dtype.is_float():
        try:
            return float(text)
        except ValueError:
            msg = f"{what} {text!r}: the label column holds numbers"
            raise UsageError(msg) from None
    if dtype == pl.Boolean:
        truth = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
        if text.lower() not in truth:
            msg = f"{what} {text!r}: the label column holds booleans (true or false)"
            raise UsageError(msg)
        return truth[text.lower()]
    return text


def _items(values: str | Sequence[str]) -> list[str]:
    """Comma-separated and/or repeated values, as one list."""
    values = [values] if isinstance(values, str) else values
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def _pairs(items: Sequence[str], flag: str, form: str) -> list[tuple[str, str]]:
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            msg = f"{flag} {item!r}: expected {form}"
            raise UsageError(msg)
        pairs.append((key.strip(), value.strip()))
    return pairs


def _number(text: str, flag: str) -> float:
    try:
        return float(text)
    except ValueError:
        msg = f"{flag} {text!r}: expected a number"
        raise UsageError(msg) from None


def _json(text: str, flag: str, form: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        msg = f"{flag} {text!r}: expected {form}"
        raise UsageError(msg) from None


def _label_dtype(ctx: _Context) -> pl.DataType | None:
    return ctx.schema.get(ctx.y_true) if ctx.y_true is not None else None


#: A converter: (the parsed value, its flag, the context) -> the method's argument.
Convert = Callable[[Any, str, _Context], object]


def _as_label(value: str, flag: str, ctx: _Context) -> object:
    return _typed(value, _label_dtype(ctx), flag)


def _as_labels(values: list[str], flag: str, ctx: _Context) -> list[object]:
    return [_typed(i, _label_dtype(ctx), flag) for i in _items(values)]


def _as_score_map(values: list[str], flag: str, ctx: _Context) -> dict[object, str]:
    pairs = _pairs(_items(values), flag, "LABEL=COLUMN")
    return {_typed(label, _label_dtype(ctx), f"{flag} label"): col for label, col in pairs}


def _as_models(values: list[str], flag: str, ctx: _Context) -> dict[str, str] | list[str]:
    items = _items(values)
    named = ["=" in i for i in items]
    if any(named) and not all(named):
        msg = f"{flag}: give every model as NAME=COLUMN, or every one as COLUMN, not both"
        raise UsageError(msg)
    return dict(_pairs(items, flag, "NAME=COLUMN")) if any(named) else items


def _as_columns(values: list[str], flag: str, ctx: _Context) -> list[str]:
    return list(values)


def _as_strings(values: list[str], flag: str, ctx: _Context) -> str | list[str]:
    items = _items(values)
    return items[0] if len(items) == 1 else items


def _as_expr(text: str, flag: str, ctx: _Context | None) -> pl.Expr:
    try:
        return pl.sql_expr(text)
    except Exception as exc:  # polars raises several kinds for bad SQL
        msg = f"{flag} {text!r}: not a SQL expression ({str(exc).strip().splitlines()[0]})"
        raise UsageError(msg) from None


def _as_buckets(text: str, flag: str, ctx: _Context) -> int | list[float]:
    items = _items(text)
    if len(items) == 1 and re.fullmatch(r"[+-]?\d+", items[0]):
        return int(items[0])
    return [_number(i, flag) for i in items]


def _as_matrix(text: str, flag: str, ctx: _Context) -> list[list[float]]:
    """``[[a, b], [c, d]]`` (JSON) or ``a,b;c,d`` (rows separated by ``;``)."""
    if text.lstrip().startswith("["):
        return _json(text, flag, "[[a, b], [c, d]] or a,b;c,d")  # type: ignore[no-any-return]
    return [[_number(v, flag) for v in row.split(",")] for row in text.split(";")]


def _as_cost_mapping(text: str, flag: str, ctx: _Context) -> dict[object, dict[object, float]]:
    """``{"actual": {"decided": cost, ...}, ...}`` (JSON), labels typed like ``--y-true``."""
    form = '{"ACTUAL": {"DECIDED": COST, ...}, ...} (JSON)'
    costs = _json(text, flag, form)
    if not isinstance(costs, dict) or not all(isinstance(row, dict) for row in costs.values()):
        msg = f"{flag}: expected {form}"
        raise UsageError(msg)
    dtype = _label_dtype(ctx)
    return {
        _typed(actual, dtype, f"{flag} label"): {
            _typed(decided, dtype, f"{flag} label"): cost for decided, cost in row.items()
        }
        for actual, row in costs.items()
    }


def _as_float_or_pairs(text: str, flag: str, ctx: _Context) -> float | dict[str, float]:
    """A number, or ``KEY=NUMBER,KEY=NUMBER``."""
    if "=" not in text:
        return _number(text, flag)
    return {k: _number(v, flag) for k, v in _pairs(_items(text), flag, "KEY=NUMBER")}


def _as_group_key(text: str, flag: str, ctx: _Context) -> object:
    """``largest``, or a group's key: values of the ``--by`` columns, comma-separated."""
    if text == "largest":
        return text
    values = [v.strip() for v in text.split(",")]
    if len(values) != len(ctx.by):
        msg = (
            f"{flag} {text!r}: expected 'largest' or {len(ctx.by)} comma-separated "
            "value(s), one per --by column"
        )
        raise UsageError(msg)
    typed = tuple(
        _typed(v, ctx.schema.get(c), f"{flag} value") for v, c in zip(values, ctx.by, strict=True)
    )
    return typed[0] if len(typed) == 1 else typed


def _optional(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse``, with ``none`` for None."""

    def parse_or_none(text: str) -> Any:
        return None if text.strip().lower() == "none" else parse(text)

    parse_or_none.__name__ = parse.__name__  # argparse names it in "invalid int value"
    return parse_or_none


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
        frozenset({Mapping[str, str], Sequence[str]}),
        _Form(
            {"action": "append", "metavar": "[NAME=]COLUMN"},
            _as_models,
            "repeat (or comma-separate) for every model, the baseline first",
        ),
    ),
    (frozenset({object}), _Form({"metavar": "LABEL"}, _as_label, "typed like --y-true")),
    (frozenset({pl.Expr}), _Form({"metavar": "SQL"}, _as_expr, "a SQL expression")),
    (
        frozenset({Sequence[Sequence[float]]}),
        _Form({"metavar": "MATRIX"}, _as_matrix, "JSON [[a, b], [c, d]] or a,b;c,d"),
    ),
    (
        frozenset({Mapping[object, Mapping[object, float]]}),
        _Form({"metavar": "JSON"}, _as_cost_mapping, '{"actual": {"decided": cost}} in JSON'),
    ),
    (
        frozenset({float, dict[str, float]}),
        _Form({"metavar": "X|KEY=X,..."}, _as_float_or_pairs, "a number or KEY=NUMBER,..."),
    ),
    (frozenset({str, list[str]}), _STRINGS),
    (frozenset({str, Sequence[str]}), _STRINGS),
    (
        frozenset({int, Sequence[float]}),
        _Form({"metavar": "N|SHARE,..."}, _as_buckets, "a count, or comma-separated shares"),
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
        {"action": "store_false", "help": "keep every distinct threshold (--no-drop-intermediate)"},
    ),
}

#: Parameters of a (method, parameter) read in another way than their type says.
_SPECIAL_FORMS: dict[tuple[str, str], _Form] = {
    ("reference_disparities", "reference"): _Form(
        {"metavar": "KEY"}, _as_group_key, "'largest', or the --by values, comma-separated"
    ),
    # a column of thresholds: f1 ... or f<beta> (f2 with --beta 2), not only the Literal's
    ("best_threshold", "metric"): _Form(
        {"metavar": "COLUMN"}, None, f"{', '.join(typing.get_args(ThresholdMetric))} or f<beta>"
    ),
}

#: Parameters naming a column (their metavar).
_COLUMN_PARAMS = {"y_true", "y_pred", "y_score", "y_prob", "weight", "index"}

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
    members, _ = _members(hint)
    literals = [m for m in members if typing.get_origin(m) is typing.Literal]
    sequence: Any = Sequence  # of a Literal known at run time only
    if len(literals) == 1 and members <= {literals[0], sequence[literals[0]]}:
        choices = list(typing.get_args(literals[0]))
        if len(members) == 1:  # one of them
            return _Form({"choices": choices, "metavar": "{" + ",".join(choices) + "}"})
        return _choices_form(choices)  # one or several of them
    for known, form in _FORMS:
        if members == known:
            return form
    msg = f"pl-metrics has no command-line form for {method}({name}: {hint}): add it to _FORMS"
    raise TypeError(msg)


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
        {"action": "append", "metavar": "NAME,..."}, convert, "comma-separated or repeated"
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
        if Mapping[object, str] in members:  # {label: column}: --score-map, or --score
            if str in members:
                column = "the score column of the positive class (binary)"
                options.append(_Option(name, flags, _form(method, name, str), False, column))
            map_help = f"{text}; {_SCORE_MAP.note}"
            only_map = required and str not in members
            options.append(_Option(name, ("--score-map",), _SCORE_MAP, only_map, map_help))
            continue
        form = _form(method, name, hints[name])
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

#: An example of each command on ``examples/predictions.parquet`` (the arguments after
#: the path; ``over-time`` needs a date column ``day``); ``--help`` shows it, the
#: tests run each one.
EXAMPLES: dict[str, str] = {
    "average-precision": f"{_BINARY} --by region",
    "averages": f"{_LABELS} --by region --ci 0.95 --n-boot 200",
    "best-threshold": f"{_BINARY} --metric precision --where 'recall >= 0.9' --by region",
    "brier-score": f"{_BINARY} --by region",
    "calibration-curve": f"{_BINARY} --n-bins 10 --strategy quantile",
    "calibration-error": f"{_BINARY} --by region",
    "class-likelihood-ratios": f"{_CAT_PRED} --by region",
    "compare": f"{_LABELS} --by region --metric f1_macro --n-boot 200 --adjust holm",
    "compare-models": (
        """--with-column "coarse=round(cat_score, 1)" --y-true is_cat """
        "--model cat_score --model coarse --metric roc_auc --by region"
    ),
    "confusion-matrix": f"{_LABELS} --by region --normalize true",
    "cost-curve": f"{_BINARY} --points 11",
    "counts": f"{_LABELS} --by region",
    "d2-brier-score": f"{_BINARY} --by region",
    "d2-log-loss-score": f"{_BINARY} --by region",
    "decision-cost": (
        """--with-column "not_cat=1 - cat_score" --y-true is_cat """
        "--score-map true=cat_score,false=not_cat --cost-matrix "
        """\'{"true": {"true": 0, "false": 5}, "false": {"true": 1, "false": 0}}\' --by region"""
    ),
    "det-curve": f"{_BINARY} --by region",
    "disparity": f"{_LABELS} --by region --metric accuracy,f1_macro",
    "expected-cost": f"{_BINARY} --cost-matrix '[[0, 1], [10, 0]]' --best --by region",
    "fairness": f"{_CAT_PRED} --by region",
    "gains": f"{_BINARY} --buckets 0.1,0.2,0.5",
    "group-rates": f"{_CAT_PRED} --by region",
    "html": f"{_LABELS} {_MAP} --by region --ci none -o report.html",
    "ks": f"{_BINARY} --by region",
    "log-loss": f"{_BINARY} --by region",
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
}


# -------------------------------------------------------------------------- parser

_OUTPUT_FORMATS = ["table", "csv", "tsv", "json", "ndjson", "parquet"]


def _common(cmd: argparse.ArgumentParser, command: Command) -> None:
    cmd.add_argument("path", help="a Parquet/CSV/NDJSON/IPC file, a glob or a directory")
    cmd.add_argument(
        "--with-column",
        action="append",
        default=[],
        metavar="NAME=SQL",
        help="add a column computed by a SQL expression before the metrics, e.g. "
        "\"cat_pred=y_pred = 'cat'\" (repeatable; later ones see earlier ones)",
    )
    cmd.add_argument(
        "--labels-as-text",
        action="store_true",
        help="CSV/TSV: read the label columns as text ('01' and '1' stay two labels)",
    )
    out = cmd.add_argument_group("output")
    if command.returns_text:
        out.add_argument("--output", "-o", required=True, help="the file to write")
        return
    out.add_argument(
        "--format",
        choices=_OUTPUT_FORMATS,
        default=None,
        help="output format (default: from the extension of -o, else a readable table)",
    )
    out.add_argument(
        "--output",
        "-o",
        default=None,
        help="write to this file instead of stdout (.parquet/.pq, .csv, .tsv, .json, "
        ".ndjson/.jsonl, .txt or no extension: a table)",
    )
    out.add_argument(
        "--output-separator",
        type=_separator,
        default=None,
        help="CSV output: the field separator (default ',')",
    )
    out.add_argument(
        "--engine",
        choices=["streaming", "in-memory"],
        default="streaming",
        help="polars engine for collect() (default: streaming)",
    )
    chart = CHARTS.get(command.name)
    if chart is not None:
        out.add_argument(
            "--plot",
            default=None,
            metavar="FILE",
            help=f"also save the chart, plot.{chart.function} (.png/.svg/.html/.json; "
            "needs the plot extra)" + (": the intervals of --ci" if chart.metric else ""),
        )
    if chart is not None and chart.function == "forest":
        out.add_argument(
            "--plot-metric",
            default=None,
            metavar="NAME",
            help=f"the metric of --plot (default: {chart.metric or 'the --metric'})",
        )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pl-metrics",
        description="Classification metrics of a Parquet / CSV file, per segment, "
        "equal to scikit-learn's: one command per .metrics method.",
    )
    parser.add_argument(
        "--version", action="version", version=f"pl-metrics {pl_metrics.__version__}"
    )
    sub = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser, metavar="COMMAND"
    )
    for name, command in commands().items():
        example = EXAMPLES.get(name, "")
        cmd = sub.add_parser(
            name,
            help=command.description.replace("%", "%%"),
            description=f"{command.description} (.metrics.{command.method}).".replace("%", "%%"),
            epilog=f"example: pl-metrics {name} predictions.parquet {example}".replace("%", "%%"),
        )
        _common(cmd, command)
        group = cmd.add_argument_group(f"arguments of .metrics.{command.method}")
        for option in command.options:
            option.add(group)
        for flags, kwargs, param in command.extra:
            owner = next(o for o in command.options if o.param == param)
            group.add_argument(*flags, dest=owner.dest, default=argparse.SUPPRESS, **kwargs)
        _csv_arguments(cmd)
    return parser


# ---------------------------------------------------------------------------- run


def run(argv: Sequence[str] | None = None) -> pl.DataFrame | str:
    """Parse ``argv``, compute the table, write it (and the chart); return it.

    A command whose method writes a document (``html``) returns its text.
    """
    args = _parser().parse_args(argv)
    command = commands()[args.command]
    fmt = None if command.returns_text else _format(args.format, args.output)
    if fmt is not None and args.output_separator is not None and fmt != "csv":
        msg = f"--output-separator is for CSV output, not {fmt}"
        raise UsageError(msg)
    csv = _csv_options(args)
    labels = _label_columns(command, args)
    lf = _text_labels(args.path, labels, as_text=args.labels_as_text, csv=csv)
    for name, sql in _pairs(args.with_column, "--with-column", "NAME=SQL"):
        lf = lf.with_columns(_as_expr(sql, "--with-column", None).alias(name))
    by = command.raw(args, "by")
    ctx = _Context(
        schema=lf.collect_schema(),
        y_true=labels[0] if labels else None,
        by=list(by) if isinstance(by, list) else [],
    )
    kwargs = command.kwargs(args, ctx)
    if getattr(args, "plot", None) and CHARTS[command.name].function == "forest":
        ci = inspect.signature(getattr(pl_metrics.MetricsLazyFrame, command.method)).parameters
        if kwargs.get("ci", ci["ci"].default) is None:
            msg = f"--plot draws the intervals of {command.name}: give --ci (e.g. --ci 0.95)"
            raise UsageError(msg)
    method = getattr(pl_metrics.metrics(lf), command.method)
    if command.returns_text:
        text: str = method(**kwargs, path=args.output)
        return text
    frame: pl.DataFrame = method(**kwargs).collect(engine=args.engine)
    assert fmt is not None
    _write(frame, fmt, args.output, separator=args.output_separator)
    if getattr(args, "plot", None):
        control = command.raw(args, "control")
        by = [*(control if isinstance(control, list) else []), *ctx.by]
        _plot(frame, CHARTS[command.name], by, args.plot, getattr(args, "plot_metric", None))
    return frame


def _label_columns(command: Command, args: argparse.Namespace) -> list[str]:
    """The columns of labels (y_true first): CSV text read as text or checked.

    ``y_pred`` and the models' columns hold scores for the score metrics.
    """
    columns = []
    y_true = command.raw(args, "y_true")
    if isinstance(y_true, str):
        columns.append(y_true)
    metric = command.raw(args, "metric")
    metrics = _items(metric) if isinstance(metric, (str, list)) else []
    scores = any(m in _fairness.METRICS and _fairness.METRICS[m].scores for m in metrics)
    y_pred = command.raw(args, "y_pred")
    if isinstance(y_pred, str) and not scores:
        columns.append(y_pred)
    models = command.raw(args, "models")
    if isinstance(models, list) and not any(m in _paired.SCORE_METRICS for m in metrics):
        columns += [item.partition("=")[2] or item for item in _items(models)]
    return columns


def _plot(
    frame: pl.DataFrame, chart: _Chart, by: list[str], target: str, metric: str | None
) -> None:
    try:
        from pl_metrics import plot
    except ImportError as exc:
        msg = f"--plot needs the plot extra: pip install 'pl_metrics[plot]' ({exc})"
        raise UsageError(msg) from None
    kwargs: dict[str, Any] = {"by": [*by, *chart.by] or None}
    if chart.function == "forest":
        kwargs["metric"] = metric or chart.metric or frame["metric"][0]
    getattr(plot, chart.function)(frame, **kwargs).save(target)


#: Output format of an ``-o`` file's extension (when ``--format`` is not given).
_FORMATS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "tsv",
    ".json": "json",
    ".ndjson": "ndjson",
    ".jsonl": "ndjson",
    ".txt": "table",
    "": "table",
}


def _format(fmt: str | None, output: str | None) -> str:
    """The output format: ``--format``, else the one of ``-o``'s extension, else a table.

    Refuses a ``--format`` that contradicts the extension, an unknown extension
    without ``--format``, and binary output to a terminal.
    """
    if output is not None:
        suffix = Path(output).suffix.lower()
        implied = _FORMATS.get(suffix)
        if fmt is None:
            if implied is None:
                known = ", ".join(s for s in _FORMATS if s)
                msg = (
                    f"cannot tell the output format of {output!r} from its extension "
                    f"{suffix!r}: use {known} or give --format"
                )
                raise UsageError(msg)
            fmt = implied
        elif suffix and implied is not None and implied != fmt:
            msg = f"--format {fmt} contradicts the extension of -o {output!r} ({implied})"
            raise UsageError(msg)
    fmt = fmt or "table"
    if fmt == "parquet" and output is None and _is_terminal(sys.stdout):
        msg = "binary output to a terminal; use -o FILE or redirect"
        raise UsageError(msg)
    return fmt


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def _write(df: pl.DataFrame, fmt: str, output: str | None, *, separator: str | None = None) -> None:
    if fmt == "parquet":
        df.write_parquet(sys.stdout.buffer if output is None else output)
        return
    if fmt == "csv":
        text = df.write_csv(separator=separator or ",")
    elif fmt == "tsv":
        text = df.write_csv(separator="\t")
    elif fmt == "json":
        text = df.write_json()
    elif fmt == "ndjson":
        text = df.write_ndjson()
    else:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4):
            text = str(df)
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(output).write_text(text if text.endswith("\n") else text + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: 0 on success, 2 on bad input (one line on stderr, no traceback)."""
    try:
        run(argv)
    except (UsageError, ValueError, TypeError, pl.exceptions.PolarsError, OSError) as exc:
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        print(f"pl-metrics: error: {first}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
