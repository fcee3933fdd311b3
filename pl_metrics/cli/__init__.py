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
import inspect
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

import pl_metrics  # registers .metrics
from pl_metrics._core import names
from pl_metrics._core.catalogue import CATALOGUE
from pl_metrics.cli import _table
from pl_metrics.cli._commands import _NAMES as _NAMES  # read by the tests
from pl_metrics.cli._commands import CHARTS, EXAMPLES, Command, _Chart, commands
from pl_metrics.cli._errors import UsageError, _Parser, first_line
from pl_metrics.cli._inputs import _csv_arguments, _csv_options, _separator, _text_labels, scan
from pl_metrics.cli._values import _Context, _items, _pairs, with_sql_column

#: The methods whose ``y_true`` holds graded relevances, not labels.
_RELEVANCE = ("dcg", "ndcg")

__all__ = ["CHARTS", "EXAMPLES", "Command", "UsageError", "commands", "main", "run", "scan"]


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
        lf = with_sql_column(lf, name, sql)
    by = command.raw(args, "by")
    ctx = _Context(
        schema=lf.collect_schema(),
        # labels are typed like y_true's; dcg / ndcg's y_true holds relevances (numbers),
        # not labels: theirs are read as text
        y_true=labels[0] if labels and command.method not in _RELEVANCE else None,
        by=list(by) if isinstance(by, list) else [],
        csv=dict(csv) if csv else None,
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
    control = command.raw(args, "control")
    by = [*(control if isinstance(control, list) else []), *ctx.by]
    _write(frame, fmt, args.output, separator=args.output_separator, keys=by)
    if getattr(args, "plot", None):
        _plot(
            frame,
            CHARTS[command.name],
            by,
            args.plot,
            getattr(args, "plot_metric", None),
        )
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
    scores = any(m in CATALOGUE and CATALOGUE[m].scores for m in metrics)  # they read scores
    y_pred = command.raw(args, "y_pred")
    if isinstance(y_pred, str) and not scores:
        columns.append(y_pred)
    models = command.raw(args, "models")
    if isinstance(models, list) and not scores:
        columns += [item.partition("=")[2] or item for item in _items(models)]
    return columns


def _plot(
    frame: pl.DataFrame, chart: _Chart, by: list[str], target: str, metric: str | None
) -> None:
    try:
        from pl_metrics import plot
    except ImportError as exc:
        msg = f"--plot: {exc}"  # names the extra (checks.require_plot_extra)
        raise UsageError(msg) from None
    kwargs: dict[str, Any] = {"by": [*by, *chart.by] or None}
    if chart.function == "forest":
        kwargs["metric"] = metric or chart.metric or frame["metric"][0]
    try:
        getattr(plot, chart.function)(frame, **kwargs).save(target)
    except Exception as exc:  # Altair's, vl-convert's, the file's: one line, status 2
        msg = f"--plot {target}: the chart was not saved ({first_line(exc)})"
        raise UsageError(msg) from None


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


def _write(
    df: pl.DataFrame,
    fmt: str,
    output: str | None,
    *,
    separator: str | None = None,
    keys: Sequence[str] = (),
) -> None:
    """``df`` in ``fmt`` to ``output`` (stdout when None); a table (``_table``) is as
    wide as the terminal it is printed on, else :data:`_table.WIDTH`; ``keys``: its
    ``by`` columns (their nulls read ``null``, other nulls are empty)."""
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
        terminal = output is None and _is_terminal(sys.stdout)
        width = shutil.get_terminal_size((_table.WIDTH, 24)).columns if terminal else _table.WIDTH
        text = _table.table(df, keys=keys, width=width)
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(output).write_text(text if text.endswith("\n") else text + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: 0 on success, 2 on bad input (one line on stderr, no traceback),
    1 when a quality gate fails (a ``check`` row whose ``status`` is ``"fail"``)."""
    try:
        result = run(argv)
    except (
        UsageError,
        ValueError,
        TypeError,
        pl.exceptions.PolarsError,
        OSError,
    ) as exc:
        print(f"pl-metrics: error: {first_line(exc)}", file=sys.stderr)
        return 2
    return 1 if _failed(result) else 0


def _failed(result: pl.DataFrame | str) -> bool:
    """Whether ``result`` is ``check``'s table with a failing row."""
    if not isinstance(result, pl.DataFrame):
        return False
    gate = names.OUTPUTS["check"]  # low and high only with --ci
    columns = [c for c in result.columns if c in gate]
    if columns not in (list(gate), [c for c in gate if c not in ("low", "high")]):
        return False
    return bool((result["status"] == "fail").any())
