"""The values of options: labels typed like ``--y-true``, pairs, JSON, SQL expressions."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from pl_metrics._core.names import INTERNAL
from pl_metrics.cli._errors import UsageError, first_line

# ------------------------------------------------------------- values of options


@dataclass(frozen=True)
class _Context:
    """What converting an option needs: the input's schema and the column options."""

    schema: pl.Schema
    y_true: str | None
    by: list[str]
    csv: dict[str, Any] | None = None  # the input's CSV options (another CSV file's too)


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
        truth = {
            "true": True,
            "1": True,
            "yes": True,
            "false": False,
            "0": False,
            "no": False,
        }
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
    dtype = ctx.schema.get(ctx.y_true) if ctx.y_true is not None else None
    return dtype.inner if isinstance(dtype, pl.List) else dtype  # multilabel: a list's labels


#: A converter: (the parsed value, its flag, the context) -> the method's argument.
Convert = Callable[[Any, str, _Context], object]


def _as_label(value: str, flag: str, ctx: _Context) -> object:
    return _typed(value, _label_dtype(ctx), flag)


def _as_labels(values: list[str], flag: str, ctx: _Context) -> list[object]:
    return [_typed(i, _label_dtype(ctx), flag) for i in _items(values)]


def _as_score_map(values: list[str], flag: str, ctx: _Context) -> dict[object, str]:
    pairs = _pairs(_items(values), flag, "LABEL=COLUMN")
    return {_typed(label, _label_dtype(ctx), f"{flag} label"): col for label, col in pairs}


def _as_models(values: list[str], flag: str, ctx: _Context) -> dict[str, str] | list[str] | str:
    """Several models' columns (``[NAME=]COLUMN``), or one column: the stacked rows'."""
    items = _items(values)
    if len(items) == 1 and "=" not in items[0]:
        return items[0]
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
        msg = f"{flag} {text!r}: not a SQL expression ({first_line(exc)})"
        raise UsageError(msg) from None


#: A text literal that reads as a date, or a date and a time (ISO 8601), not already
#: typed (``DATE '...'``, ``'...'::date``).
_DATED = re.compile(
    r"(?<![\w'])(?<!DATE )(?<!TIMESTAMP )"  # not after a name, a quote or the type
    r"'(\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?)'"  # the date, the time
    r"(?!\s*::)",  # not cast
    re.IGNORECASE,
)


def _dated(text: str) -> str:
    """``text`` with each date-like text literal typed: ``'2025-04-01'`` as
    ``DATE '2025-04-01'``, ``'2025-04-01 10:00'`` as ``TIMESTAMP '2025-04-01 10:00'``."""

    def typed(match: re.Match[str]) -> str:
        kind = "TIMESTAMP" if match.group(2) else "DATE"
        return f"{kind} '{match.group(1)}'"

    return _DATED.sub(typed, text)


def _as_rows(text: str, flag: str, ctx: _Context) -> pl.Expr:
    """A Boolean SQL expression over the input's rows (``--reference``), checked on
    the input's schema now (an empty frame of it), not at the end of the read.

    Polars' SQL compares a date column with a date, not with text: ``date <
    '2025-04-01'`` fails there, so a date-like text literal is read as the date
    (``DATE '2025-04-01'``) when the expression fails as written and works so.
    """
    expr = _as_expr(text, flag, ctx)
    error = _fails(expr, ctx.schema)
    if error is None:
        return expr
    dated = _dated(text)
    if dated != text:
        typed = _as_expr(dated, flag, ctx)
        still = _fails(typed, ctx.schema)
        if still is None:
            return typed
        error += f"; with the dates typed, {dated!r}: {still}"
    elif "'date/datetime/time'" in error:  # polars: cannot compare a date to a string
        error += "; a date is written DATE '2025-04-01' (a time TIMESTAMP '2025-04-01 10:00')"
    msg = f"{flag} {text!r}: {error}"
    raise UsageError(msg)


def _fails(expr: pl.Expr, schema: pl.Schema) -> str | None:
    """Why ``expr`` cannot mark rows of ``schema`` (the first line), or None."""
    try:
        out = pl.LazyFrame(schema=schema).select(expr.alias("rows")).collect()
    except Exception as exc:  # polars raises several kinds
        return first_line(exc)
    if out.schema["rows"] != pl.Boolean:
        return f"a {out.schema['rows']} expression, not a Boolean one (true: a reference row)"
    return None


def with_sql_column(lf: pl.LazyFrame, name: str, sql: str) -> pl.LazyFrame:
    """``lf`` with the column ``name`` (replaced where ``lf`` has it) computed by the
    SQL expression ``sql`` over ``lf``'s columns (``--with-column NAME=SQL``).

    Through polars' SQL on the frame (``LazyFrame.sql``), which knows the columns'
    types: ``date_trunc('week', date)`` and ``date < '2025-04-01'`` work there, not
    in ``pl.sql_expr`` (which cannot tell a date column from another).
    """
    temporary = f"{INTERNAL}with_column"  # no column of the user's has the prefix
    try:
        out = lf.sql(f'SELECT *, ({sql}) AS "{temporary}" FROM self')
        out.collect_schema()
    except Exception as exc:  # polars raises several kinds for bad SQL
        msg = f"--with-column {f'{name}={sql}'!r}: not a SQL expression ({first_line(exc)})"
        raise UsageError(msg) from None
    value = pl.col(temporary).alias(name)
    columns = lf.collect_schema().names()
    kept = [value if c == name else pl.col(c) for c in columns]
    return out.select(*kept, *([] if name in columns else [value]))


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


def _as_edges(text: str, flag: str, ctx: _Context) -> dict[str, list[float]]:
    """``{"column": [edge, ...], ...}`` (JSON): the bins' edges of each numeric column."""
    form = '{"COLUMN": [EDGE, ...], ...} (JSON)'
    edges = _json(text, flag, form)
    if not isinstance(edges, dict) or not all(
        isinstance(row, list)
        and all(isinstance(e, (int, float)) and not isinstance(e, bool) for e in row)
        for row in edges.values()
    ):
        msg = f"{flag}: expected {form}"
        raise UsageError(msg)
    return {str(column): [float(e) for e in row] for column, row in edges.items()}


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


def _as_callables(values: list[str], flag: str, ctx: _Context) -> dict[str, Callable[..., Any]]:
    """``NAME=module:function`` (or ``module:function``, named after the function), comma-
    separated or repeated: each function imported."""
    import importlib

    out: dict[str, Callable[..., Any]] = {}
    for item in _items(values):
        name, sep, path = item.partition("=")
        if not sep:
            name, path = item.rpartition(":")[2], item
        module, colon, attribute = path.strip().partition(":")
        if not colon or not module or not attribute:
            example = "acc=sklearn.metrics:accuracy_score"
            msg = f"{flag} {item!r}: expected NAME=module:function, e.g. {example}"
            raise UsageError(msg)
        try:
            function = getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError) as exc:
            msg = f"{flag} {item!r}: cannot import {attribute!r} from {module!r} ({exc})"
            raise UsageError(msg) from None
        out[name.strip()] = function
    return out
