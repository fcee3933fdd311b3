"""The HTML of the evaluation report: one self-contained file (styles, data, Vega).

Every table of the page is a frame returned by a ``.metrics`` method, written
cell by cell: each cell carries its exact value (``data-value``, Python's
``repr`` of the float) beside the rounded text, so the numbers in the page can be
checked against the methods', and the tables sort on the exact values.  Charts
are Vega-Lite specs (from :mod:`pl_metrics.plot`) rendered in the browser by the
Vega JavaScript that :mod:`vl_convert` bundles, inlined: the file opens offline.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import html
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

#: Digits shown for a float (the exact value is in ``data-value``).
DIGITS = 4


@dataclasses.dataclass(frozen=True)
class Table:
    """A frame shown as a sortable table; ``flag`` names a Boolean column whose
    true rows are highlighted (the column itself is shown as a badge)."""

    id: str
    frame: pl.DataFrame
    caption: str = ""
    flag: str | None = None
    collapsed: bool = False  # folded under its caption (a <details> element)


@dataclasses.dataclass(frozen=True)
class Chart:
    """A chart (a Vega-Lite spec) with the text that says how to read it."""

    id: str
    spec: dict[str, Any]
    caption: str = ""


@dataclasses.dataclass(frozen=True)
class Section:
    id: str
    title: str
    intro: str
    parts: Sequence[Table | Chart]


# ------------------------------------------------------------------------- cells
def _text(value: object) -> str:
    """The value as shown: floats to DIGITS decimals, whole numbers from 2 on (counts,
    weighted or not) with thousands separators."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value == int(value) and abs(value) >= 2:  # a (weighted) count: 1,522 not 1522.0000
            return f"{value:,.0f}"
        return f"{value:.{DIGITS}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _exact(value: object) -> str:
    """The exact value (what the tests and the sort read)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _cell(value: object, column: str, kind: str, bounds: tuple[object, object] | None) -> str:
    attrs = f' data-col="{html.escape(column)}" data-kind="{kind}"'
    if value is None:
        attrs += ' data-null=""'
    else:
        attrs += f' data-value="{html.escape(_exact(value))}"'
    # a null is an empty cell (the label of an average row, the average of a class
    # row): ``data-null`` marks it for the sort and the tests
    text = "" if value is None else html.escape(_text(value))
    if bounds is not None:
        low, high = bounds
        attrs += f' data-low="{html.escape(_exact(low))}" data-high="{html.escape(_exact(high))}"'
        if low is not None or high is not None:
            shown = html.escape(f"[{_text(low)}, {_text(high)}]")
            text += f' <span class="ci">{shown}</span>'
    return f"<td{attrs}>{text}</td>"


def _kind(dtype: pl.DataType) -> str:
    if dtype.is_numeric():
        return "num"
    return "bool" if dtype == pl.Boolean else "text"


def interval_columns(columns: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Columns shown with their interval in one cell: ``x`` with ``x_low`` / ``x_high``,
    and ``value`` with ``low`` / ``high``."""
    present = set(columns)
    out = {}
    for column in columns:
        low, high = ("low", "high") if column == "value" else (f"{column}_low", f"{column}_high")
        if low in present and high in present:
            out[column] = (low, high)
    return out


def table_html(table: Table) -> str:
    frame = table.frame
    intervals = interval_columns(frame.columns)
    hidden = {b for pair in intervals.values() for b in pair}
    shown = [c for c in frame.columns if c not in hidden]
    kinds = {c: _kind(frame.schema[c]) for c in frame.columns}
    head = "".join(
        # a long name breaks after its underscores: every column fits a 1,400 px window
        f'<th data-kind="{kinds[c]}" title="click to sort">'
        + html.escape(c).replace("_", "_<wbr>")
        + (' <span class="ci">[interval]</span>' if c in intervals else "")
        + "</th>"
        for c in shown
    )
    rows = []
    flags = frame[table.flag].to_list() if table.flag else [False] * frame.height
    for row, flagged in zip(frame.iter_rows(named=True), flags, strict=True):
        cells = "".join(
            _cell(
                row[c],
                c,
                kinds[c],
                (row[intervals[c][0]], row[intervals[c][1]]) if c in intervals else None,
            )
            for c in shown
        )
        cls = ' class="flagged"' if flagged else ""
        rows.append(f"<tr{cls}>{cells}</tr>")
    caption = f'<p class="caption">{html.escape(table.caption)}</p>' if table.caption else ""
    empty = "" if rows else f'<tr><td colspan="{len(shown)}">(no rows)</td></tr>'
    body = (
        f'<div class="table-wrap"><table class="sortable" id="{table.id}">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}{empty}</tbody></table></div>"
    )
    if table.collapsed:
        return f"<details><summary>{html.escape(table.caption)}</summary>{body}</details>"
    return caption + body


def chart_html(chart: Chart) -> str:
    caption = f"<figcaption>{html.escape(chart.caption)}</figcaption>" if chart.caption else ""
    return f'<figure class="chart"><div class="vega" id="{chart.id}"></div>{caption}</figure>'


# --------------------------------------------------------------------------- page
def _cache_dir() -> Path:
    """Where the Vega bundle is kept between runs: ``$PL_METRICS_CACHE``, else
    ``$XDG_CACHE_HOME/pl_metrics``, else ``~/.cache/pl_metrics``."""
    if os.environ.get("PL_METRICS_CACHE"):
        return Path(os.environ["PL_METRICS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pl_metrics"


#: What the cached bundle is made of besides vl_convert's versions: the script it
#: bundles, and a format number to raise when the escaping below changes (either
#: names another file).
_BUNDLE_SNIPPET = "window.vegaEmbed = vegaEmbed;"
_BUNDLE_FORMAT = 1
#: The line that closes a whole cached bundle (a cut file lacks it).
_BUNDLE_END = "// pl_metrics: end of the Vega bundle"
#: Whatever a cache directory or file can raise: missing, unwritable, not text, no home.
_CACHE_ERRORS = (OSError, ValueError, RuntimeError)


def _bundle_path(vl_version: str | None) -> Path | None:
    import hashlib

    import vl_convert

    version = getattr(vl_convert, "__version__", "unknown")
    recipe = f"{_BUNDLE_FORMAT}|{version}|{vl_version}|{_BUNDLE_SNIPPET}".encode()
    digest = hashlib.blake2b(recipe, digest_size=8).hexdigest()
    try:
        return _cache_dir() / f"vega-bundle-{version}-{vl_version or 'default'}-{digest}.js"
    except _CACHE_ERRORS:
        return None


@functools.lru_cache(maxsize=4)
def vega_bundle(vl_version: str | None) -> str:
    """Vega, Vega-Lite and vega-embed in one script (from vl_convert, offline).

    Bundling takes vl_convert about 4 s: the bundle is kept on disk
    (:func:`_cache_dir`; the file named by vl_convert's and Vega-Lite's versions
    and a hash of what is bundled, written to a temporary file then renamed, and
    read back only when whole) for the next process.  A cache that cannot be
    found, read or written is bundled again: never an error.
    """
    import vl_convert

    path = _bundle_path(vl_version)
    if path is not None:
        try:
            cached = path.read_text(encoding="utf-8")
            if cached.endswith(_BUNDLE_END + "\n"):
                return cached.removesuffix(_BUNDLE_END + "\n")
        except _CACHE_ERRORS:
            pass
    bundle: str = vl_convert.javascript_bundle(_BUNDLE_SNIPPET, vl_version)
    # inlined in a <script> element: "</script" inside would end it early
    bundle = bundle.replace("</script", "<\\/script")
    if path is not None:
        _write_cache(path, bundle + _BUNDLE_END + "\n")
    return bundle


def _write_cache(path: Path, text: str) -> None:
    """``text`` to ``path`` whole (a temporary file of its own, renamed), or nothing."""
    import tempfile

    partial: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(partial, path)
        partial = None
    except _CACHE_ERRORS:
        pass
    finally:
        if partial is not None:
            with contextlib.suppress(OSError):
                os.unlink(partial)


def _json(value: object) -> str:
    text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    return text.replace("</", "<\\/")


_STYLE = """
:root { --fg:#1b1f24; --muted:#59636e; --line:#d1d9e0; --bg:#f6f8fa; --flag:#fff4d6;
        --accent:#0b62c4; }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: var(--fg); margin: 0; }
header { padding: 1.2rem 2rem; border-bottom: 1px solid var(--line); background: var(--bg); }
header h1 { margin: 0 0 .3rem; font-size: 1.5rem; }
header p { margin: .1rem 0; color: var(--muted); }
nav { margin-top: .6rem; }
nav a { margin-right: 1rem; color: var(--accent); text-decoration: none; }
main { padding: 0 2rem 3rem; }
section { margin-top: 2rem; }
section h2 { font-size: 1.2rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
.intro { color: var(--muted); max-width: 70em; }
.cards { display: flex; flex-wrap: wrap; gap: .8rem; margin: .8rem 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .9rem;
        min-width: 10rem; }
.card .name { color: var(--muted); font-size: .85rem; }
.card .value { font-size: 1.4rem; font-variant-numeric: tabular-nums; }
.card .interval { color: var(--muted); font-size: .8rem; }
.table-wrap { overflow-x: auto; margin: .6rem 0 1rem; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.caption { color: var(--muted); margin: .8rem 0 0; }
th, td { padding: .25rem .6rem; border-bottom: 1px solid var(--line); text-align: right;
         white-space: nowrap; }
th { cursor: pointer; background: var(--bg); user-select: none; white-space: normal;
     vertical-align: bottom; }
th[data-kind="text"], td[data-kind="text"] { text-align: left; }
th.asc::after { content: " \\25B2"; } th.desc::after { content: " \\25BC"; }
tr.flagged td { background: var(--flag); font-weight: 600; }
td[data-null] { color: var(--muted); font-style: italic; }
.ci { color: var(--muted); font-size: .85em; font-weight: normal; }
figure.chart { margin: .8rem 0 1.4rem; overflow-x: auto; }
figcaption { color: var(--muted); max-width: 70em; }
.error { color: #b42318; font-weight: 600; }
td[data-col="status"][data-value="fail"] { color: #b42318; font-weight: 600; }
td[data-col="status"][data-value="inconclusive"] { color: #9a6700; font-weight: 600; }
details { margin: .6rem 0 1rem; } summary { cursor: pointer; color: var(--muted); }
"""

# Tables sort on the exact values (nulls last); charts render with vega-embed.
# document.body.dataset.rendered / .error tell a driver when the charts are done.
_SCRIPT = """
(function () {
  function key(td) {
    if (td.hasAttribute("data-null")) return null;
    var v = td.getAttribute("data-value");
    if (td.getAttribute("data-kind") === "num") {
      var x = Number(v);
      return isNaN(x) ? null : x;
    }
    return v;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th").forEach(function (th, col) {
      th.addEventListener("click", function () {
        var asc = !th.classList.contains("asc");
        table.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(asc ? "asc" : "desc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          if (x === null && y === null) return 0;
          if (x === null) return 1;
          if (y === null) return -1;
          var c = x < y ? -1 : x > y ? 1 : 0;
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  var specs = JSON.parse(document.getElementById("plm-charts").textContent);
  var done = Object.keys(specs).map(function (id) {
    return vegaEmbed("#" + id, specs[id], {renderer: "svg", actions: false});
  });
  Promise.all(done).then(function () {
    document.body.dataset.rendered = String(done.length);
  }).catch(function (err) {
    document.body.dataset.error = String(err);
    var p = document.createElement("p");
    p.className = "error";
    p.textContent = "A chart failed to render: " + err;
    document.querySelector("main").prepend(p);
  });
})();
"""


def card_html(name: str, value: object, low: object = None, high: object = None) -> str:
    interval = ""
    if low is not None or high is not None:
        interval = f'<div class="interval">[{_text(low)}, {_text(high)}]</div>'
    return (
        f'<div class="card" data-metric="{html.escape(name)}" '
        f'data-value="{html.escape(_exact(value))}" data-low="{html.escape(_exact(low))}" '
        f'data-high="{html.escape(_exact(high))}"><div class="name">{html.escape(name)}</div>'
        f'<div class="value">{html.escape(_text(value))}</div>{interval}</div>'
    )


def page_html(
    *,
    title: str,
    facts: Sequence[str],
    cards: Sequence[str],
    sections: Sequence[Section],
    vl_version: str | None,
    first: Sequence[Section] = (),
) -> str:
    """The whole page (``first``: sections above the headline cards, the quality gates)."""
    sections = [*first, *sections]
    charts = {p.id: p.spec for s in sections for p in s.parts if isinstance(p, Chart)}
    nav = "".join(f'<a href="#{s.id}">{html.escape(s.title)}</a>' for s in sections)
    body = []
    for section in sections:
        parts = "".join(
            table_html(p) if isinstance(p, Table) else chart_html(p) for p in section.parts
        )
        body.append(
            f'<section id="{section.id}"><h2>{html.escape(section.title)}</h2>'
            f'<p class="intro">{section.intro}</p>{parts}</section>'
        )
    headline = f'<div class="cards" id="headline">{"".join(cards)}</div>' if cards else ""
    fact_lines = "".join(f"<p>{html.escape(f)}</p>" for f in facts)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<header><h1>{html.escape(title)}</h1>{fact_lines}<nav>{nav}</nav></header>"
        f"<main>{''.join(body[: len(first)])}{headline}{''.join(body[len(first) :])}</main>"
        f'<script type="application/json" id="plm-charts">{_json(charts)}</script>'
        f"<script>{vega_bundle(vl_version)}</script>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )
