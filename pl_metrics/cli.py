"""The ``pl-metrics`` command: evaluate a Parquet / CSV / NDJSON / IPC file from the shell.

    pl-metrics report "preds/*.parquet" --y-true y_true --y-pred y_pred --by region
    pl-metrics roc-auc preds.parquet --y-true clicked --score p_click --by country
    pl-metrics roc-curve preds.parquet --y-true clicked --score p_click --plot roc.png

Inputs are read lazily (``scan_parquet`` / ``scan_csv`` / ``scan_ndjson`` /
``scan_ipc``); globs and directories of Parquet files work.  The output format is
``--format``, else the one of ``-o FILE``'s extension, else a readable table.  Bad
input prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import glob
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import polars as pl

import pl_metrics  # registers .metrics

_SCANNERS = {
    ".parquet": pl.scan_parquet,
    ".pq": pl.scan_parquet,
    ".csv": pl.scan_csv,
    ".tsv": lambda p: pl.scan_csv(p, separator="\t"),
    ".ndjson": pl.scan_ndjson,
    ".jsonl": pl.scan_ndjson,
    ".arrow": pl.scan_ipc,
    ".ipc": pl.scan_ipc,
    ".feather": pl.scan_ipc,
}

_LABEL_COMMANDS = {
    "report": "per-class and micro/macro/weighted precision, recall, F-beta, Jaccard",
    "per-class": "per-class support, tp/fp/fn/tn, precision, recall, specificity, F, Jaccard",
    "averages": "micro / macro / weighted averages",
    "summary": "accuracy, balanced accuracy, MCC, Cohen's kappa per segment",
    "confusion-matrix": "confusion counts, long form (one row per actual/predicted pair)",
}
_SCORE_COMMANDS = {
    "roc-auc": "area under the ROC curve (binary, or multiclass with --score-map)",
    "average-precision": "average precision (binary)",
    "roc-curve": "ROC curve points (binary)",
    "pr-curve": "precision-recall curve points (binary)",
}
_PLOTTABLE = ("confusion-matrix", "roc-curve", "pr-curve", "per-class")

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


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2, no usage dump
        raise UsageError(message)


def scan(path: str) -> pl.LazyFrame:
    """A LazyFrame over a file, a glob or a directory of Parquet files."""
    p = Path(path)
    if p.is_dir():
        if not any(f.is_file() for f in p.rglob("*.parquet")):
            msg = f"no Parquet files in directory {path}"
            raise UsageError(msg)
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
    return _SCANNERS[suffix](path)


def _common(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("path", help="a Parquet/CSV/NDJSON/IPC file, a glob or a directory")
    cmd.add_argument("--y-true", required=True, help="column of actual labels")
    cmd.add_argument("--by", action="append", default=None, help="segment column (repeatable)")
    cmd.add_argument("--weight", default=None, help="column of non-negative sample weights")
    cmd.add_argument(
        "--labels-as-text",
        action="store_true",
        help="CSV/TSV: read the label columns as text ('01' and '1' stay two labels)",
    )
    cmd.add_argument(
        "--format",
        choices=["table", "csv", "tsv", "json", "ndjson", "parquet"],
        default=None,
        help="output format (default: from the extension of -o, else a readable table)",
    )
    cmd.add_argument(
        "--output",
        "-o",
        default=None,
        help="write to this file instead of stdout (.parquet/.pq, .csv, .tsv, .json, "
        ".ndjson/.jsonl, .txt or no extension: a table)",
    )
    cmd.add_argument(
        "--engine",
        choices=["streaming", "in-memory"],
        default="streaming",
        help="polars engine for collect() (default: streaming)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pl-metrics",
        description="Classification metrics of a Parquet / CSV file, per segment, "
        "equal to scikit-learn's.",
    )
    parser.add_argument(
        "--version", action="version", version=f"pl-metrics {pl_metrics.__version__}"
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, help_text in _LABEL_COMMANDS.items():
        cmd = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=f"example: pl-metrics {name} preds.parquet --y-true y_true --y-pred y_pred "
            "--by region --format csv",
        )
        _common(cmd)
        cmd.add_argument("--y-pred", required=True, help="column of predicted labels")
        cmd.add_argument("--labels", default=None, help="comma-separated classes, in order")
        if name in ("report", "per-class", "averages"):
            cmd.add_argument("--beta", type=float, default=1.0, help="F-beta's beta (default 1)")
            cmd.add_argument(
                "--zero-division",
                type=float,
                default=0.0,
                help="value of a ratio with a zero denominator: 0, 1 or nan",
            )
        if name in _PLOTTABLE:
            cmd.add_argument("--plot", default=None, help="also save a chart (.png/.svg/.html)")
    for name, help_text in _SCORE_COMMANDS.items():
        cmd = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=f"example: pl-metrics {name} preds.parquet --y-true clicked --score p_click "
            "--by country",
        )
        _common(cmd)
        cmd.add_argument("--score", default=None, help="column of scores of the positive class")
        cmd.add_argument("--pos-label", default=None, help="the positive class (default 1/True)")
        cmd.add_argument(
            "--bins", type=int, default=None, help="approximate mode: scores in [0, 1], N bins"
        )
        if name == "roc-auc":
            cmd.add_argument(
                "--score-map",
                action="append",
                default=None,
                metavar="LABEL=COLUMN",
                help="multiclass: the score column of a class (repeat for every class)",
            )
            cmd.add_argument("--multi-class", choices=["ovr", "ovo"], default="ovr")
            cmd.add_argument("--average", choices=["macro", "weighted"], default="macro")
        if name == "roc-curve":
            cmd.add_argument(
                "--keep-intermediate",
                action="store_true",
                help="keep every distinct threshold (drop_intermediate=False)",
            )
        if name in _PLOTTABLE:
            cmd.add_argument("--plot", default=None, help="also save a chart (.png/.svg/.html)")
    return parser


def _typed(text: str, dtype: pl.DataType | None, what: str) -> object:
    """A label typed like the label column."""
    if dtype is not None and dtype.is_integer():
        try:
            return int(text)
        except ValueError:
            msg = f"{what} {text!r}: the label column holds integers"
            raise UsageError(msg) from None
    if dtype is not None and dtype.is_float():
        return float(text)
    if dtype == pl.Boolean:
        return text.strip().lower() in ("true", "1", "yes")
    return text


def _label_kwargs(args: argparse.Namespace, schema: pl.Schema) -> dict[str, object]:
    dtype = schema.get(args.y_true)
    kwargs: dict[str, object] = {"by": args.by, "weight": args.weight}
    if args.labels is not None:
        items = [i.strip() for i in args.labels.split(",") if i.strip()]
        kwargs["labels"] = [_typed(i, dtype, "--labels") for i in items]
    if hasattr(args, "beta"):
        kwargs |= {"beta": args.beta, "zero_division": args.zero_division}
    return kwargs


def _score_kwargs(args: argparse.Namespace, schema: pl.Schema) -> tuple[object, dict[str, object]]:
    dtype = schema.get(args.y_true)
    kwargs: dict[str, object] = {"by": args.by, "weight": args.weight, "bins": args.bins}
    score_map = getattr(args, "score_map", None)
    if score_map:
        if args.score is not None:
            msg = "give either --score (binary) or --score-map (multiclass), not both"
            raise UsageError(msg)
        mapping = {}
        for item in score_map:
            label, sep, column = item.partition("=")
            if not sep or not column:
                msg = f"--score-map {item!r}: expected LABEL=COLUMN"
                raise UsageError(msg)
            mapping[_typed(label, dtype, "--score-map label")] = column
        kwargs |= {"multi_class": args.multi_class, "average": args.average}
        return mapping, kwargs
    if args.score is None:
        msg = "--score is required (or --score-map LABEL=COLUMN for multiclass roc-auc)"
        raise UsageError(msg)
    if args.pos_label is not None:
        kwargs["pos_label"] = _typed(args.pos_label, dtype, "--pos-label")
    if args.command == "roc-curve":
        kwargs["drop_intermediate"] = not args.keep_intermediate
    return args.score, kwargs


def run(argv: Sequence[str] | None = None) -> pl.DataFrame:
    """Parse ``argv``, compute the table, write it (and the chart); return it."""
    args = _parser().parse_args(argv)
    fmt = _format(args.format, args.output)
    labels = [args.y_true, *([args.y_pred] if args.command in _LABEL_COMMANDS else [])]
    lf = _text_labels(args.path, labels, as_text=args.labels_as_text)
    schema = lf.collect_schema()
    method = getattr(lf.metrics, args.command.replace("-", "_"))
    if args.command in _LABEL_COMMANDS:
        result = method(args.y_true, args.y_pred, **_label_kwargs(args, schema))
    else:
        score, kwargs = _score_kwargs(args, schema)
        result = method(args.y_true, score, **kwargs)
    frame = result.collect(engine=args.engine)
    _write(frame, fmt, args.output)
    if getattr(args, "plot", None):
        _plot(frame, args.command, args.by, args.plot)
    return frame


def _text_labels(path: str, labels: list[str], *, as_text: bool) -> pl.LazyFrame:
    """The input; for CSV/TSV, label columns that the reader takes for numbers or
    booleans are checked to write each label one way only: "01" and "1" (or "1"
    and "1.0", "-0" and "0", "True" and "true") would become one label.

    With ``as_text``, CSV/TSV label columns are read as text instead.
    """
    lf = scan(path)
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".tsv"):
        return lf
    schema = lf.collect_schema()
    present = [c for c in dict.fromkeys(labels) if c in schema]
    separator = "\t" if suffix == ".tsv" else ","
    if as_text:
        return pl.scan_csv(
            path, separator=separator, schema_overrides=dict.fromkeys(present, pl.String)
        )
    parsed = [c for c in present if schema[c] != pl.String]
    if not parsed:
        return lf
    text = pl.scan_csv(path, separator=separator, infer_schema=False).select(parsed)
    # per column: the most ways one parsed label is written (1 when each is written once)
    ways = text.select(
        pl.col(c).n_unique().over(_parsed_label(pl.col(c), schema[c])).max() for c in parsed
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


def _parsed_label(text: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """The value the CSV reader gives ``text`` for a column of ``dtype``."""
    if dtype == pl.Boolean:
        return text.str.strip_chars().str.to_lowercase()
    return text.str.strip_chars().cast(dtype, strict=False)


def _plot(frame: pl.DataFrame, command: str, by: list[str] | None, target: str) -> None:
    try:
        from pl_metrics import plot
    except ImportError as exc:
        msg = f"--plot needs the plot extra: pip install 'pl_metrics[plot]' ({exc})"
        raise UsageError(msg) from None
    chart = {
        "roc-curve": plot.roc_curve,
        "pr-curve": plot.pr_curve,
        "confusion-matrix": plot.confusion_matrix,
        "per-class": plot.per_class,
    }[command](frame, by=by)
    chart.save(target)


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


def _write(df: pl.DataFrame, fmt: str, output: str | None) -> None:
    if fmt == "parquet":
        df.write_parquet(sys.stdout.buffer if output is None else output)
        return
    if fmt == "csv":
        text = df.write_csv()
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
