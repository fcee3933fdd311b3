"""The HTML evaluation report: its numbers are the frame methods', on every path.

Two kinds of tests:

- without a browser: the page's tables, read back from the HTML, equal the frame
  methods called directly (every cell carries its value's ``repr``);
  the same page from a DataFrame, a LazyFrame, ``scan_parquet`` and shuffled
  rows; zero weights = rows removed; bad input → a clear error; no external
  resource in the page;
- in a real browser (Debian's Chromium, headless, driven by selenium and
  chromedriver): no JavaScript error, every chart drawn (an SVG with marks), the
  numbers in the rendered page equal the methods', tables sort on click, and a
  screenshot of each section is saved (``PLM_SCREENSHOT_DIR``, default
  ``build/report-screenshots``).  CI (``.ci/run``) installs Chromium and sets
  ``PLM_REQUIRE_BROWSER=1``, where a missing browser fails instead of skipping;
  elsewhere the skip is reported plainly at the end of the run (conftest.py).
"""

from __future__ import annotations

import math
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import pl_metrics as plm  # registers .metrics

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

from pl_metrics.plot._thin import MAX_POINTS

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


@pytest.fixture(scope="module")
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


def _stable(page: str) -> str:
    """The page without its time of generation."""
    return re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "generated (time)", page)


def _close(a: str | None, b: str | None) -> bool:
    if a == b:
        return True
    try:
        x, y = float(a or "nan"), float(b or "nan")
    except ValueError:
        return False
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


def assert_same_page(page: str, other: str) -> None:
    """The same tables (numbers equal to 1e-9: float sums in another order), the same
    sections and charts, the same text."""
    numbers = re.compile(r'(data-(?:value|low|high)="[^"]*")|(>-?[\d,.]+(?: <span)?)')
    assert numbers.sub("", _stable(page).split("<script")[0]) == numbers.sub(
        "", _stable(other).split("<script")[0]
    )
    tables, others = page_tables(page), page_tables(other)
    assert tables.keys() == others.keys()
    for name, rows in tables.items():
        assert len(rows) == len(others[name]), name
        for row, row2 in zip(rows, others[name], strict=True):
            for cell, cell2 in zip(row, row2, strict=True):
                assert cell.keys() == cell2.keys(), name
                for key in ("data-value", "data-low", "data-high"):
                    assert _close(cell.get(key), cell2.get(key)), (name, cell, cell2)
    charts = re.findall(r'<div class="vega" id="([^"]+)"', page)
    assert charts == re.findall(r'<div class="vega" id="([^"]+)"', other)


# ---------------------------------------------------------------- without a browser
def test_every_table_equals_its_frame_method(df: pl.DataFrame) -> None:
    tables = page_tables(_report(df))
    expected = expected_tables(df, "region")
    assert sorted(tables) == sorted(expected)
    for name, frame in expected.items():
        assert_same(as_frame(tables[name], frame.schema), frame, name)
    assert expected["compare"]["differs"].any(), "the example should flag a segment"


def test_a_null_is_an_empty_cell(df: pl.DataFrame) -> None:
    """The average rows' label (and the class rows' average) printed "null" (issue 49):
    an empty cell, still marked ``data-null``; the rows' other cells keep their text."""
    from pl_metrics._report.page import Table, table_html

    # by hand: x, y class rows (average null), then micro / macro / weighted (label null)
    report = pl.DataFrame({"t": ["x", "y", "y"], "p": ["x", "y", "x"]}).metrics.report("t", "p")
    rows = re.findall(r"<tr>(<td.*?)</tr>", table_html(Table("report", report)))
    cells = [re.findall(r'<td data-col="(\w+)"[^>]*>(.*?)</td>', row) for row in rows]
    assert [dict(row)["label"] for row in cells] == ["x", "y", "", "", ""]
    assert [dict(row)["average"] for row in cells] == ["", "", "micro", "macro", "weighted"]
    assert [dict(row)["support"] for row in cells] == ["1", "2", "3", "3", "3"]
    assert 'data-col="label" data-kind="text" data-null=""></td>' in rows[2]
    page = _report(df)  # its labels are Booleans
    assert ">null<" not in page
    assert re.search(r'data-col="label" data-kind="bool" data-null=""></td>', page)


@pytest.mark.parametrize("ci_method", ["bootstrap", "poisson"])
def test_ci_method_bootstrap_is_every_methods_bootstrap(df: pl.DataFrame, ci_method: str) -> None:
    # html_report(ci_method="bootstrap" or "poisson"): each table with intervals is its
    # method's with that ci_method (the same replicates and seed), and the page says so
    page = _report(df, ci_method=ci_method)
    tables = page_tables(page)
    expected = expected_tables(df, "region", ci_method=ci_method)
    for name in ("summary", "summary_by", "compare", "report", "roc_auc", "average_precision"):
        assert_same(as_frame(tables[name], expected[name].schema), expected[name], name)
    default = expected_tables(df, "region")
    assert not expected["summary"].equals(default["summary"])  # another interval
    named = "Poisson bootstrap" if ci_method == "poisson" else "bootstrap"
    assert f"{named} percentile intervals" in page
    assert f"({named} tests; Holm-adjusted" in page
    assert ("Poisson" in page) == (ci_method == "poisson")
    with pytest.raises(ValueError, match="ci_method"):
        _report(df, ci_method="delta")


def test_the_drift_section_is_drift_and_drift_bins(df: pl.DataFrame) -> None:
    """reference= adds the drift section: its tables are drift's (all rows, then per
    segment, PSI >= 0.25 flagged); with an expression, the other sections are those
    of the other rows (the same page as the report of those rows alone, plus the
    section); drift_columns= chooses the columns."""
    v1 = pl.col("model_version") == "v1"
    # a drifting score in v2 of one region, so that a row is flagged
    shifted = df.with_columns(
        pl.when(~v1 & (pl.col("region") == "eu"))
        .then(pl.col("cat_score") ** 4)
        .otherwise(pl.col("cat_score"))
        .alias("cat_score")
    )
    page = _report(shifted, reference=v1)
    tables = page_tables(page)
    m = shifted.lazy().metrics
    flag = (pl.col("psi") >= 0.25).fill_null(value=False).alias("psi >= 0.25")
    columns = ["is_cat", "flag", "cat_score"]  # the report's own, by default
    expected = {
        "drift": m.drift(columns, reference=v1).with_columns(flag).collect(),
        "drift_by": m.drift(columns, reference=v1, by="region").with_columns(flag).collect(),
    }
    for name, frame in expected.items():
        assert_same(as_frame(tables[name], frame.schema), frame, name)
    assert expected["drift_by"]["psi >= 0.25"].any()
    assert 'id="drift_bins"' in page
    # the other sections: the report of the current rows alone
    current = page_tables(_report(shifted.filter(~v1)))
    for name, rows in current.items():
        assert len(tables[name]) == len(rows), name
        for row, row2 in zip(tables[name], rows, strict=True):
            for cell, cell2 in zip(row, row2, strict=True):
                assert _close(cell.get("data-value"), cell2.get("data-value")), (name, cell)
    assert sorted(tables) == sorted([*current, "drift", "drift_by"])
    # a frame of reference rows; the columns chosen
    reference = shifted.filter(v1)
    chosen = page_tables(_report(shifted, reference=reference, drift_columns="p_cat"))
    frame = m.drift("p_cat", reference=reference).with_columns(flag).collect()
    assert_same(as_frame(chosen["drift"], frame.schema), frame, "drift_columns")
    with pytest.raises(ValueError, match="`drift_columns` needs `reference`"):
        _report(shifted, drift_columns="p_cat")
    with pytest.raises(TypeError, match="`drift_columns` must be a column name"):
        _report(shifted, reference=v1, drift_columns=["p_cat", "p_cat"])
    with pytest.raises(TypeError, match="`reference` must be"):
        _report(shifted, reference="v1")
    with pytest.raises(plm.DataError, match="null"):  # a null in the flag: drift's error
        _report(shifted, reference=pl.when(v1).then(True))


def test_the_flagged_segments_are_the_compare_rows_below_alpha(df: pl.DataFrame) -> None:
    page = _report(df)
    flagged = re.findall(r'<tr class="flagged"><td data-col="region"[^>]*>([^<]+)</td>', page)
    compared = expected_tables(df, "region")["compare"]
    assert flagged == compared.filter(pl.col("p_adjusted") < 0.05)["region"].to_list()


def test_eager_lazy_parquet_and_row_order_give_the_same_page(
    df: pl.DataFrame, tmp_path: Path
) -> None:
    page = _stable(_report(df))
    assert "generated (time)" in page
    for i, part in enumerate(df.with_columns(k=pl.int_range(pl.len()) % 3).partition_by("k")):
        part.drop("k").write_parquet(tmp_path / f"part{i}.parquet")
    assert_same_page(_report(df.lazy()), page)
    assert_same_page(_report(pl.scan_parquet(tmp_path / "*.parquet")), page)
    assert_same_page(_report(df.sample(fraction=1.0, shuffle=True, seed=5)), page)


def test_zero_weights_are_rows_removed(df: pl.DataFrame) -> None:
    w = df.with_columns(w=pl.when(pl.int_range(pl.len()) % 7 == 0).then(0.0).otherwise(1.0))
    kept = w.filter(pl.col("w") > 0)
    weighted = _report(w, weight="w", ci=None)
    unweighted = weighted.replace("; weight = w", "").replace(" (weighted rows)", "")
    assert_same_page(unweighted, _report(kept, ci=None))
    # with weights, the default gives no intervals (and says so); asked for, an error
    default = _stable(_report(w, weight="w"))
    assert_same_page(default, weighted)
    assert "weight = w; no intervals (weighted rows)" in default


def test_multiclass_scores_and_labels(df: pl.DataFrame) -> None:
    page = df.metrics.html_report(
        "y_true", "y_pred", y_score=SCORES, by=["region", "model_version"], ci=None
    )
    tables = page_tables(page)
    m = df.lazy().metrics
    expected = {
        "summary_by": m.summary("y_true", "y_pred", by=["region", "model_version"]),
        "report": m.report("y_true", "y_pred"),
        "roc_auc": m.roc_auc("y_true", SCORES),
        "roc_auc_by": m.roc_auc("y_true", SCORES, by=["region", "model_version"]),
        "classes_ranking": m.roc_auc("y_true", SCORES, average=None).join(
            m.average_precision("y_true", SCORES, average=None),
            on="label",
            how="left",
            maintain_order="left",
        ),
    }
    for name, frame in expected.items():
        collected = frame.collect()
        assert_same(as_frame(tables[name], collected.schema), collected, name)
    assert "fairness" not in tables  # four classes: no binary rates
    # the legends of the one-vs-rest curves: each class's AUC / AP against the rest
    specs = page.split('id="plm-charts">')[1].split("</script>")[0]
    for label, column in SCORES.items():
        auc = df.metrics.roc_auc("y_true", column, pos_label=label)["roc_auc"][0]
        ap = df.metrics.average_precision("y_true", column, pos_label=label)
        assert f"{label} (AUC {auc:.3f})" in specs
        assert f"{label} (AP {ap['average_precision'][0]:.3f})" in specs
    # the example's class scores do not sum to 1: no probability tables, and it says so
    off = df.select(((pl.sum_horizontal(SCORES.values()) - 1).abs() > 1e-8 + 2**-26).sum()).item()
    assert off > 0
    assert f"({off:,} rows do not sum to 1): no log loss, Brier score or calibration" in page
    assert "log_loss" not in tables
    assert "calibration_error" not in tables


def test_multiclass_probabilities_get_log_loss_brier_and_calibration(df: pl.DataFrame) -> None:
    """Class probabilities (rows summing to 1): log loss and Brier score per segment,
    and the calibration of the top label (its reliability diagram with intervals, its
    ECE / MCE), each its method's."""
    columns = list(SCORES.values())
    probabilities = df.with_columns(pl.col(columns) / pl.sum_horizontal(columns))
    page = probabilities.metrics.html_report("y_true", "y_pred", y_score=SCORES, by="region")
    tables = page_tables(page)
    m = probabilities.lazy().metrics
    expected = {
        "log_loss": m.log_loss("y_true", SCORES, by="region"),
        "brier_score": m.brier_score("y_true", SCORES, by="region"),
        "calibration_error": m.calibration_error("y_true", SCORES, by="region", n_bins=10),
    }
    for name, frame in expected.items():
        collected = frame.collect()
        assert_same(as_frame(tables[name], collected.schema), collected, name)
    assert "Ranking and probabilities" in page
    assert 'id="reliability"' in page
    assert "top label" in page


def test_the_page_is_self_contained(df: pl.DataFrame, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    page = _report(df, ci=None, path=out)
    assert out.read_text(encoding="utf-8") == page
    markup = page.split('<script type="application/json"')[0]  # before the data and code
    assert re.search(r"<(script|img|iframe)[^>]+src=", markup) is None
    assert re.search(r"<link[^>]+href=", markup) is None
    assert page.count("<script") == 3  # the chart specs, the Vega bundle, the page's code
    assert "vegaEmbed" in page  # the browser test checks that nothing is fetched


def test_progress_lines_on_stderr(df: pl.DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    df.metrics.html_report("is_cat", y_score="cat_score", ci=None, progress=True)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("pl-metrics html: step 1: ROC AUC")
    assert err[-1].startswith("pl-metrics html: done")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({}, ValueError, "needs `y_pred`"),
        ({"y_pred": "flag", "weight": "weight", "ci": 0.9}, ValueError, "un-weighted rows"),
        ({"y_pred": "flag", "seed": -1}, ValueError, "`seed` must be"),
        ({"y_pred": "flag", "by": "p_adjusted"}, ValueError, "collides with an output column"),
        ({"y_score": "cat_score", "by": "label"}, ValueError, "collides with an output column"),
        ({"y_pred": "flag", "ci": 1.5}, ValueError, "ci"),
        ({"y_pred": "flag", "n_bins": 0}, ValueError, "n_bins"),
        ({"y_pred": "flag", "title": 3}, TypeError, "title"),
        ({"y_pred": "nope"}, pl.exceptions.ColumnNotFoundError, "nope"),
        ({"y_score": "nope", "ci": None}, pl.exceptions.ColumnNotFoundError, "nope"),
        ({"y_pred": "flag", "by": "__plm_x"}, pl.exceptions.ColumnNotFoundError, "__plm_x"),
        ({"y_pred": "y_pred", "y_score": "cat_score"}, Exception, "is_cat|y_pred|label"),
    ],
)
def test_bad_input_is_refused_with_a_clear_error(
    df: pl.DataFrame, kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    named = df.with_columns(p_adjusted=pl.col("region"), label=pl.col("region"))
    with pytest.raises(error, match=match):
        named.metrics.html_report("is_cat", **kwargs)


# ---------------------------------------------------------------------- in a browser
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
REQUIRED = os.environ.get("PLM_REQUIRE_BROWSER") == "1"
NO_BROWSER = (
    "the browser test of the HTML report did NOT run: no Chromium / chromedriver on PATH "
    "(Debian: apt-get install chromium chromium-driver; CI installs them)"
)

#: The charts of each report, in page order.
CHARTS = {
    "binary": [
        "forest_accuracy",
        "confusion",
        "forest_roc_auc",
        "roc",
        "pr",
        "reliability",
        "threshold_metrics",
        "gains_chart",
        "gains_by_chart",
    ],
    "multiclass": ["forest_accuracy", "confusion", "forest_roc_auc", "roc", "pr"],
}
CHARTS["drift"] = [*CHARTS["binary"], "drift_bins"]

#: Every cell of every sortable table, as the rendered page holds it.
_READ_TABLES = """
const out = {};
document.querySelectorAll("table.sortable").forEach(t => {
  out[t.id] = Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells)
    .filter(td => td.hasAttribute("data-col"))
    .map(td => Object.fromEntries(Array.from(td.attributes).map(a => [a.name, a.value]))))
    .filter(r => r.length);
});
return out;
"""


@pytest.fixture(scope="module")
def browser() -> Any:
    if CHROMIUM is None or CHROMEDRIVER is None:
        if REQUIRED:
            pytest.fail(NO_BROWSER.replace("did NOT run", "cannot run (PLM_REQUIRE_BROWSER=1)"))
        pytest.skip(NO_BROWSER)
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    yield driver
    driver.quit()


def _screenshots() -> Path:
    out = Path(os.environ.get("PLM_SCREENSHOT_DIR", ROOT / "build" / "report-screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.mark.parametrize("kind", ["binary", "multiclass", "drift"])
def test_the_report_renders_in_chromium(
    browser: Any, df: pl.DataFrame, tmp_path: Path, kind: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    path = tmp_path / f"{kind}.html"
    if kind == "binary":
        _report(df, path=path)
        expected = expected_tables(df, "region")
    elif kind == "drift":  # the binary report of v2's rows, and their drift from v1's
        v1 = pl.col("model_version") == "v1"
        _report(df, path=path, reference=v1)
        m = df.lazy().metrics
        flag = (pl.col("psi") >= 0.25).fill_null(value=False).alias("psi >= 0.25")
        columns = ["is_cat", "flag", "cat_score"]
        expected = {
            "drift": m.drift(columns, reference=v1).with_columns(flag).collect(),
            "drift_by": m.drift(columns, reference=v1, by="region").with_columns(flag).collect(),
        }
    else:
        df.metrics.html_report(
            "y_true", "y_pred", y_score=SCORES, by="region", n_boot=200, path=path
        )
        expected = {"report": df.metrics.report("y_true", "y_pred", **BOOT)}
    browser.get(path.as_uri())
    WebDriverWait(browser, 60).until(
        lambda d: d.execute_script(
            "return document.body.dataset.rendered || document.body.dataset.error"
        )
    )
    error = browser.execute_script("return document.body.dataset.error || null")
    assert error is None, f"a chart failed to render: {error}"
    logs = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert logs == [], f"JavaScript errors or warnings: {logs}"

    # nothing fetched: the page opens offline
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert fetched == []

    # every chart is drawn: an SVG with marks
    charts = browser.find_elements(By.CSS_SELECTOR, "div.vega")
    assert [c.get_attribute("id") for c in charts] == CHARTS[kind]
    assert browser.execute_script("return document.body.dataset.rendered") == str(len(charts))
    for chart in charts:
        name = chart.get_attribute("id")
        marks = chart.find_elements(By.CSS_SELECTOR, "svg [role=graphics-symbol]")
        assert len(marks) > 3, f"chart {name} drew no marks"

    # at a 1,400 px window every column of every table is in view (no table scrolls)
    cut = browser.execute_script(
        "return Array.from(document.querySelectorAll('.table-wrap'))"
        ".filter(w => w.scrollWidth > w.clientWidth + 1)"
        ".map(w => w.querySelector('table').id)"
    )
    assert cut == [], f"tables wider than a 1,400 px window: {cut}"

    # the numbers the browser shows are the methods'
    shown = browser.execute_script(_READ_TABLES)
    for name, frame in expected.items():
        assert_same(as_frame(shown[name], frame.schema), frame, f"{kind}: {name} in Chromium")

    # a click sorts a table on its exact values (descending on the second click)
    table = "report" if kind == "multiclass" else "summary_by"
    header = browser.find_element(By.CSS_SELECTOR, f"#{table} th:nth-child(3)")
    column = header.text.split(" [")[0]
    header.click()
    header.click()
    rows = browser.execute_script(_READ_TABLES)[table]
    values = [float(next(c for c in r if c["data-col"] == column)["data-value"]) for r in rows]
    assert values == sorted(values, reverse=True)

    # a screenshot of each section, to look at
    out = _screenshots()
    browser.set_window_size(1300, 1000)
    for section in browser.find_elements(By.CSS_SELECTOR, "section"):
        browser.execute_script("arguments[0].scrollIntoView()", section)
        section.screenshot(str(out / f"{kind}-{section.get_attribute('id')}.png"))
    browser.find_element(By.CSS_SELECTOR, "header").screenshot(str(out / f"{kind}-header.png"))


def test_many_segments_and_many_points_stay_a_readable_page() -> None:
    # 1M scores by 1,000 segments drew 1,000 ROC / PR lines of 1,000 points each and
    # a threshold chart of 3M points: 150 MB and a minute and a half.  Beyond
    # MAX_CURVES segments the curves are those of all rows; every series of every
    # chart holds at most MAX_POINTS points, the first and the last kept; the
    # legends and tables keep the exact values.
    import json

    import numpy as np

    from pl_metrics._report import sections

    rng = np.random.default_rng(5)
    n = 6000
    y = rng.integers(0, 2, n)
    frame = pl.DataFrame(
        {
            "y": y,
            "p": rng.integers(0, 2, n),
            "s": 1 / (1 + np.exp(-(rng.normal(size=n) + y))),
            "seg": rng.integers(0, sections.MAX_CURVES + 1, n),
        }
    )
    page = frame.metrics.html_report("y", "p", y_score="s", by="seg", ci=None)
    charts = json.loads(page.split('id="plm-charts">')[1].split("</script>")[0])
    text = json.dumps(charts)
    auc = frame.metrics.roc_auc("y", "s")["roc_auc"][0]  # the legend: all rows' AUC
    assert f"AUC {auc:.3f}" in text
    assert "ROC curve of all rows (legend: AUC); 11 segments are too many" in page
    assert "Reliability diagram of all rows: 11 segments are too many" in page
    for dataset in (d for c in charts.values() for d in c.get("datasets", {}).values()):
        series: dict[tuple, list[dict]] = {}
        for row in dataset:
            series.setdefault((row.get("segment_id"), row.get("metric")), []).append(row)
        assert all(len(rows) <= MAX_POINTS for rows in series.values())
    thresholds = frame.metrics.thresholds("y", "s")  # 6,000 distinct scores
    drawn = charts["threshold_metrics"]["datasets"].values()
    f1 = [row for d in drawn for row in d if row["metric"] == "f1"]
    assert len(f1) == MAX_POINTS
    assert f1[0]["threshold"] == thresholds["threshold"][0]  # the ends kept
    assert f1[-1]["threshold"] == thresholds["threshold"][-1]
    few = frame.filter(pl.col("seg") < 3)  # a line per segment
    assert "ROC curve per segment" in few.metrics.html_report(
        "y", "p", y_score="s", by="seg", ci=None
    )


def test_many_segments_keep_the_top_decile_of_gains(monkeypatch: pytest.MonkeyPatch) -> None:
    # by 10,000 segments the ten deciles of each made 78 MB of a 119 MB page (a new
    # user's report): beyond MAX_GAINS_SEGMENTS the page keeps each segment's top
    # decile, the same rows as gains(by=)'s bucket 1
    import numpy as np

    from pl_metrics._report import sections

    monkeypatch.setattr(sections, "MAX_GAINS_SEGMENTS", 5)
    rng = np.random.default_rng(6)
    n = 3000
    frame = pl.DataFrame(
        {"y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n), "s": rng.random(n)}
    ).with_columns(seg=pl.Series(rng.integers(0, 8, n)))
    page = frame.metrics.html_report("y", "p", y_score="s", by="seg", ci=None)
    expected = frame.metrics.gains("y", "s", by="seg", buckets=10)
    shown = as_frame(page_tables(page)["gains_by"], expected.schema)
    assert_same(shown, expected.filter(pl.col("bucket") == 1), "gains_by")
    assert "Per segment: the top decile (8 segments" in page
    few = frame.filter(pl.col("seg") < 5)  # every decile
    shown = as_frame(
        page_tables(few.metrics.html_report("y", "p", y_score="s", by="seg", ci=None))["gains_by"],
        expected.schema,
    )
    assert_same(shown, few.metrics.gains("y", "s", by="seg", buckets=10), "gains_by, 5 segments")


def test_every_chart_of_a_report_is_valid_vega_lite(
    df: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the report writes its specs unvalidated (a second of jsonschema per report):
    # here each chart it builds is validated first, labels with segments and scores
    from pl_metrics._report import sections

    validated: list[str] = []
    unvalidated = sections._spec

    def checked(chart: Any) -> dict[str, Any]:
        import altair as alt

        with alt.data_transformers.disable_max_rows():
            chart.to_dict()  # altair validates against the Vega-Lite schema (raises if not)
        validated.append(type(chart).__name__)
        return unvalidated(chart)

    monkeypatch.setattr(sections, "_spec", checked)
    df.metrics.html_report("is_cat", "flag", y_score="cat_score", by="region", n_boot=50)
    assert len(validated) >= 8, validated


# ------------------------------------------------------------- the Vega bundle cache
@pytest.fixture
def fake_bundler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """vl_convert's bundler replaced by a counter (the real one takes seconds), the
    cache in ``tmp_path / "cache"``, the in-process memo cleared."""
    import vl_convert

    from pl_metrics._report import page

    calls: list[str] = []

    def bundle(snippet: str, version: str | None = None) -> str:
        calls.append(snippet)
        return f"/* vega {version} */ var a = '</script>';"

    monkeypatch.setattr(vl_convert, "javascript_bundle", bundle)
    monkeypatch.setenv("PL_METRICS_CACHE", str(tmp_path / "cache"))
    page.vega_bundle.cache_clear()
    yield calls
    page.vega_bundle.cache_clear()


def _cached_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").glob("*"))


def test_the_vega_bundle_is_cached_whole_and_read_back(
    fake_bundler: list[str], tmp_path: Path
) -> None:
    from pl_metrics._report import page

    first = page.vega_bundle("v6")
    assert "<\\/script>" in first
    assert "</script" not in first
    (cached,) = _cached_files(tmp_path)  # no temporary file left
    page.vega_bundle.cache_clear()  # a new process
    assert page.vega_bundle("v6") == first
    assert len(fake_bundler) == 1  # bundled once, read back after
    # a cut file (no end line), a file that is not text: bundled again, never an error
    for broken in (cached.read_bytes()[:10], b"\xff\xfe\x00broken"):
        cached.write_bytes(broken)
        page.vega_bundle.cache_clear()
        assert page.vega_bundle("v6") == first
    assert len(fake_bundler) == 3
    assert cached.read_text(encoding="utf-8").startswith(first)  # rewritten whole


def test_an_unusable_cache_directory_is_no_error(
    fake_bundler: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pl_metrics._report import page

    blocker = tmp_path / "a file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("PL_METRICS_CACHE", str(blocker / "cache"))  # mkdir fails
    assert page.vega_bundle("v6").startswith("/* vega v6 */")
    assert blocker.read_text() == "not a directory"
