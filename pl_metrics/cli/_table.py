"""The readable table of the command line (``--format table``, the default).

Drawn like polars' own table (its box, the column's name, ``---``, its type), with
three differences for a reader at a terminal:

- **significant digits**: a float shows :data:`DIGITS` significant digits
  (``0.857143``, a PSI of ``1.2e-05``, a whole number such as a weighted count
  ``1803000`` in full), not 4 fixed decimals (a PSI of 1e-5 read ``0.0000``, two
  thresholds 0.99094 and 0.99087 both ``0.9909``);
- **an empty cell for null**: the label of ``report``'s average rows, the average of
  its class rows, the interval of a count (a ``by`` column's null still reads
  ``null``: that is a segment, the rows whose key is null);
- **nothing cut**: every name and value whole; a table wider than the width is
  wrapped into blocks of columns, each repeating the key columns (the leading ones
  that are not floats: segments, labels, windows), instead of cutting the names
  to ``demograph…``; a wide table of one row (``fairness --ci``: 18 columns) is
  turned, a line per column.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

#: Significant digits of a float.
DIGITS = 6
#: The width of a table written to a file or a pipe (a terminal's own width is used).
WIDTH = 200


def float_text(value: float) -> str:
    """``value`` with :data:`DIGITS` significant digits; a whole number below 1e15
    in full (``1803000``), NaN as ``NaN``, infinities as ``inf`` / ``-inf``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and abs(value) < 1e15:
        return f"{value:.0f}"
    return f"{value:.{DIGITS}g}"


def _cells(series: pl.Series, null: str) -> list[str]:
    """The text of each value of ``series`` (``null`` for a null)."""
    dtype = series.dtype
    if dtype.is_float():
        return [null if v is None else float_text(v) for v in series.to_list()]
    if dtype == pl.String:
        text = series
    else:
        try:
            text = series.cast(pl.String)
        except pl.exceptions.PolarsError:  # lists, structs: as Python writes them
            return [null if v is None else str(v) for v in series.to_list()]
    if isinstance(dtype, pl.Datetime):  # no fraction of zeros: 2025-01-06 00:00:00
        text = text.str.replace(r"\.0+(\D|$)", "$1")
    escaped = text.str.replace_all("\n", "\\n", literal=True)
    return escaped.fill_null(null).to_list()


def _type(dtype: pl.DataType) -> str:
    short = getattr(dtype, "_string_repr", None)  # polars' own: f64, str, datetime[μs]
    return str(short()) if callable(short) else str(dtype)


def _box(columns: list[list[str]], widths: list[int], header: int = 3) -> list[str]:
    """The lines of one table of ``columns`` (each: its ``header`` lines - name,
    ``---``, type - then its values)."""

    def line(left: str, fill: str, middle: str, right: str) -> str:
        return left + middle.join(fill * (w + 2) for w in widths) + right

    padded = [[cell.ljust(w) for cell in column] for column, w in zip(columns, widths, strict=True)]
    rows = ["│ " + " ┆ ".join(cells) + " │" for cells in zip(*padded, strict=True)]
    top, middle, bottom = (
        line("┌", "─", "┬", "┐"),
        line("╞", "═", "╪", "╡"),
        line("└", "─", "┴", "┘"),
    )
    return [top, *rows[:header], middle, *rows[header:], bottom]


def table(frame: pl.DataFrame, *, keys: Sequence[str] = (), width: int = WIDTH) -> str:
    """``frame`` as text: ``shape: (rows, columns)``, then the table, wrapped into
    blocks of columns no wider than ``width`` where it is wider (each block with
    the leading non-float columns again).  ``keys``: the ``by`` columns, whose
    nulls read ``null``; other nulls are empty cells."""
    shape = f"shape: ({frame.height:_}, {frame.width})"
    if frame.width == 0:
        return shape
    columns = [
        [
            name,
            "---",
            _type(frame.schema[name]),
            *_cells(frame[name], "null" if name in keys else ""),
        ]
        for name in frame.columns
    ]
    widths = [max(len(cell) for cell in column) for column in columns]
    if frame.height == 1 and sum(w + 3 for w in widths) + 1 > width:  # one row: a column
        names, types, values = zip(*((c[0], c[2], c[3]) for c in columns), strict=True)
        turned = [["column", "---", *names], ["type", "---", *types], ["value", "---", *values]]
        lines = _box(turned, [max(len(c) for c in column) for column in turned], header=2)
        return shape + " (one row, turned: a line per column)\n" + "\n".join(lines)
    blocks = _blocks(frame, widths, width)
    parts = [
        "\n".join(_box([columns[i] for i in block], [widths[i] for i in block])) for block in blocks
    ]
    return "\n\n".join([shape + "\n" + parts[0], *parts[1:]])


def _blocks(frame: pl.DataFrame, widths: list[int], width: int) -> list[list[int]]:
    """The columns of each block: all of them when the table fits in ``width``; else
    the leading non-float columns (where they take at most half the width) in every
    block, and the others in order, as many as fit."""

    def size(block: list[int]) -> int:  # "│ a ┆ b │": each column and 3 characters
        return sum(widths[i] + 3 for i in block) + 1

    every = list(range(frame.width))
    if size(every) <= width:
        return [every]
    leading: list[int] = []
    for i, dtype in enumerate(frame.schema.values()):
        if dtype.is_float() or size([*leading, i]) > width // 2:
            break
        leading.append(i)
    blocks: list[list[int]] = []
    for i in every[len(leading) :]:
        if blocks and size([*leading, *blocks[-1], i]) <= width:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    return [[*leading, *block] for block in blocks] or [leading]
