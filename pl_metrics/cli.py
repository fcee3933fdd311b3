"""The ``pl-metrics`` command: evaluate a Parquet / CSV file from the shell.

    pl-metrics report preds/*.parquet --y-true y_true --y-pred y_pred --by region

Inputs are read lazily (``scan_parquet`` / ``scan_csv`` / ``scan_ndjson`` /
``scan_ipc``); globs and directories of Parquet files work.  Bad input prints one
line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import polars as pl

import pl_metrics  # noqa: F401  (registers .metrics)

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


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


def scan(path: str) -> pl.LazyFrame:
    """A LazyFrame over a file, a glob or a directory of Parquet files."""
    p = Path(path)
    if p.is_dir():
        return pl.scan_parquet(p / "**" / "*.parquet")
    has_glob = any(ch in path for ch in "*?[")
    if not has_glob and not p.exists():
        msg = f"no such file: {path}"
        raise UsageError(msg)
    suffix = p.suffix.lower()
    if suffix not in _SCANNERS:
        msg = f"cannot read {path!r}: unknown extension {suffix!r} (use one of {sorted(_SCANNERS)})"
        raise UsageError(msg)
    return _SCANNERS[suffix](path)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pl-metrics",
        description="Classification metrics of a Parquet / CSV file, per segment.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_text in [
        ("report", "per-class and averaged precision, recall, F, Jaccard"),
        ("per-class", "per-class counts and scores"),
        ("averages", "micro / macro / weighted averages"),
        ("summary", "accuracy, balanced accuracy, MCC, Cohen's kappa"),
        ("confusion-matrix", "confusion counts, long form"),
    ]:
        cmd = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=(
                f"example: pl-metrics {name} preds.parquet "
                "--y-true y_true --y-pred y_pred --by region"
            ),
        )
        cmd.add_argument("path", help="a Parquet/CSV/NDJSON/IPC file, a glob or a directory")
        cmd.add_argument("--y-true", required=True, help="column of actual labels")
        cmd.add_argument("--y-pred", required=True, help="column of predicted labels")
        cmd.add_argument("--by", action="append", default=None, help="segment column (repeatable)")
        cmd.add_argument("--weight", default=None, help="column of sample weights")
        cmd.add_argument("--labels", default=None, help="comma-separated classes, in order")
        if name in ("report", "per-class", "averages"):
            cmd.add_argument("--beta", type=float, default=1.0, help="F-beta's beta (default 1)")
            cmd.add_argument(
                "--zero-division",
                type=float,
                default=0.0,
                help="value of a ratio with a zero denominator: 0, 1 or nan",
            )
        cmd.add_argument(
            "--format",
            choices=["table", "csv", "json", "parquet"],
            default="table",
            help="output format (default: a readable table)",
        )
        cmd.add_argument(
            "--output", "-o", default=None, help="write to this file instead of stdout"
        )
    return parser


def _labels(text: str | None, lf: pl.LazyFrame, column: str) -> list[object] | None:
    if text is None:
        return None
    items = [item.strip() for item in text.split(",") if item.strip()]
    dtype = lf.collect_schema().get(column)
    if dtype is not None and dtype.is_integer():
        try:
            return [int(item) for item in items]
        except ValueError:
            msg = f"--labels {text!r}: column {column!r} holds integers"
            raise UsageError(msg) from None
    if dtype == pl.Boolean:
        return [item.lower() == "true" for item in items]
    return items


def run(argv: Sequence[str] | None = None) -> pl.DataFrame:
    """Parse ``argv``, compute the table and write it; return it."""
    args = _parser().parse_args(argv)
    lf = scan(args.path)
    method = getattr(lf.metrics, args.command.replace("-", "_"))
    kwargs: dict[str, object] = {
        "by": args.by,
        "weight": args.weight,
        "labels": _labels(args.labels, lf, args.y_true),
    }
    if hasattr(args, "beta"):
        kwargs |= {"beta": args.beta, "zero_division": args.zero_division}
    result = method(args.y_true, args.y_pred, **kwargs).collect()
    _write(result, args.format, args.output)
    return result


def _write(df: pl.DataFrame, fmt: str, output: str | None) -> None:
    if fmt == "parquet":
        if output is None:
            df.write_parquet(sys.stdout.buffer)
        else:
            df.write_parquet(output)
        return
    if fmt == "csv":
        text = df.write_csv()
    elif fmt == "json":
        text = df.write_json()
    else:
        with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, float_precision=4):
            text = str(df)
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(output).write_text(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: 0 on success, 2 on bad input (one line on stderr, no traceback)."""
    try:
        run(argv)
    except (UsageError, ValueError, TypeError, pl.exceptions.PolarsError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"pl-metrics: error: {first}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
