"""What the HTML report tests (``tests/test_html_report.py``,
``tests/test_html_report_charts.py``) share: the example frame (the ``df`` fixture),
the reader of the page's tables and the frames they must equal."""

from __future__ import annotations

import math
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import pl_metrics  # noqa: F401 - registers .metrics

ROOT = Path(__file__).parents[1]
EXAMPLE = ROOT / "examples" / "predictions.parquet"
BOOT = {"ci": 0.95, "n_boot": 200, "seed": 0}
#: The comparison table shows compare's columns but its best / ratio / outside ones.
COMPARE_SHOWN = (
    "metric",
    "value",
    "low",
    "high",
    "overall",
    "diff",
    "diff_low",
    "diff_high",
    "p_value",
    "p_adjusted",
)
SCORES = {c: f"p_{c}" for c in ("bird", "cat", "dog", "fish")}


@pytest.fixture(scope="module", name="df")  # name=: imported under another name
def df() -> pl.DataFrame:
    return pl.read_parquet(EXAMPLE).with_columns(flag=pl.col("cat_score") >= 0.5)


# ------------------------------------------------------------------ reading the page
Cell = dict[str, Any]


class _Tables(HTMLParser):
    """Every ``table.sortable`` of a page: id → rows of cells (the data-* attributes)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[Cell]]] = {}
        self._table: str | None = None
        self._row: list[Cell] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and "sortable" in (a.get("class") or ""):
            self._table = a["id"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag == "td" and self._row is not None and "data-col" in a:
            self._row.append(a)

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self._table is not None and self._row:
            self.tables[self._table].append(self._row)
        if tag == "tr":
            self._row = None
        elif tag == "table":
            self._table = None


def page_tables(page: str) -> dict[str, list[list[Cell]]]:
    parser = _Tables()
    parser.feed(page)
    return parser.tables


def _parse(text: str | None, dtype: pl.DataType) -> object:
    """A cell's exact value back as the frame's Python value."""
    if text is None or text == "":
        return None
    if dtype.is_float():
        return float(text)
    if dtype.is_integer():
        return int(text)
    if dtype == pl.Boolean:
        return {"True": True, "False": False}[text]
    return text


def as_frame(rows: list[list[Cell]], schema: pl.Schema) -> pl.DataFrame:
    """The frame a table shows, its interval cells split back into ``_low`` / ``_high``."""
    columns: dict[str, list[object]] = {name: [] for name in schema}
    for row in rows:
        for cell in row:
            col = cell["data-col"]
            value = None if "data-null" in cell else cell.get("data-value")
            columns[col].append(_parse(value, schema[col]))
            if "data-low" in cell:
                low, high = ("low", "high") if col == "value" else (f"{col}_low", f"{col}_high")
                columns[low].append(_parse(cell["data-low"], schema[low]))
                columns[high].append(_parse(cell["data-high"], schema[high]))
    return pl.DataFrame(columns, schema=schema)


def assert_same(shown: pl.DataFrame, expected: pl.DataFrame, what: str) -> None:
    """Equal cell by cell (NaN equals NaN; floats to 1e-12: polars' threaded float sums
    vary in the last bits from one run to the next)."""
    assert shown.columns == expected.columns, what
    assert shown.height == expected.height, what
    for name in expected.columns:
        for i, (a, b) in enumerate(zip(shown[name], expected[name], strict=True)):
            same = a == b or (
                isinstance(a, float)
                and isinstance(b, float)
                and (math.isclose(a, b, rel_tol=1e-12) or (math.isnan(a) and math.isnan(b)))
            )
            assert same, f"{what}: column {name!r} row {i}: page {a!r}, method {b!r}"


def expected_tables(
    df: pl.DataFrame | pl.LazyFrame, by: str, **ci_method: str
) -> dict[str, pl.DataFrame]:
    """The tables of ``_report(df, **ci_method)``, each from its frame method called
    directly."""
    m = df.lazy().metrics
    boot = {**BOOT, **ci_method}
    y, p, s = "is_cat", "flag", "cat_score"
    b = {"pos_label": None, "weight": None}
    tables = {
        "summary": m.summary(y, p, **boot),
        "summary_by": m.summary(y, p, by=by, **boot),
        "compare": m.compare(y, p, by=by, metric="accuracy", adjust="holm", **boot).select(
            by, *COMPARE_SHOWN, differs=pl.col("p_adjusted") < 0.05
        ),
        "report": m.report(y, p, **boot),
        # a row per criterion (its difference and ratio), as the page shows it
        "fairness": m.fairness(y, p, by=by)
        .unpivot()
        .with_columns(
            pl.col("variable").str.extract(r"^(.*)_(difference|ratio)$", 1).alias("criterion"),
            pl.col("variable").str.extract(r"_(difference|ratio)$", 1).alias("stat"),
        )
        .collect()
        .pivot("stat", index="criterion", values="value")
        .lazy(),
        "group_rates": m.group_rates(y, p, by=by),
        "roc_auc": m.roc_auc(y, s, **b, **boot),
        "roc_auc_by": m.roc_auc(y, s, by=by, **b, **boot),
        "average_precision": m.average_precision(y, s, by=by, **b, **boot),
        "log_loss": m.log_loss(y, s, by=by, **b),
        "brier_score": m.brier_score(y, s, by=by, **b),
        "calibration_error": m.calibration_error(y, s, by=by, n_bins=10, **b),
        "best_threshold": m.best_threshold(y, s, metric="f1", **b),
        "gains": m.gains(y, s, buckets=10, **b),
        "gains_by": m.gains(y, s, by=by, buckets=10, **b),
        "ks": m.ks(y, s, by=by, **b),
    }
    return {k: v.collect() for k, v in tables.items()}


def _report(frame: pl.DataFrame | pl.LazyFrame, **kw: Any) -> str:
    return frame.metrics.html_report(
        "is_cat", "flag", y_score="cat_score", by="region", n_boot=200, **kw
    )
