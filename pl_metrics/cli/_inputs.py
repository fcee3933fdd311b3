"""Reading the input: files, globs, directories; CSV options; label columns read as text."""

from __future__ import annotations

import argparse
import glob
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from pl_metrics.cli._errors import UsageError

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
    add(
        "--null-value",
        "null_values",
        action="append",
        help="text read as null (repeatable)",
    )
    add(
        "--no-header",
        "has_header",
        action="store_false",
        help="no header row: columns polars names the columns column_0, column_1...",
    )
    add(
        "--comment-prefix",
        "comment_prefix",
        help="skip lines starting with this text (e.g. '#')",
    )
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
