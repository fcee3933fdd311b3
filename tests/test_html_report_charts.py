"""The HTML evaluation report's charts: in a real browser (Debian's Chromium, headless,
driven by selenium and chromedriver): no JavaScript error, every chart drawn (an SVG
with marks), the numbers in the rendered page equal the methods', tables sort on
click, and a screenshot of each section is saved (``PLM_SCREENSHOT_DIR``, default
``build/report-screenshots``).  CI (``.ci/run``) installs Chromium and sets
``PLM_REQUIRE_BROWSER=1``, where a missing browser fails instead of skipping;
elsewhere the skip is reported plainly at the end of the run (conftest.py).  Also:
many segments and points stay a readable page, every chart is valid Vega-Lite, and
the Vega bundle's cache."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import pl_metrics  # noqa: F401 - registers .metrics

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

from _html_report_helpers import (
    BOOT,
    ROOT,
    SCORES,
    _report,
    as_frame,
    assert_same,
    expected_tables,
    page_tables,
)
from _html_report_helpers import df as example_frame  # noqa: F401

from pl_metrics.plot._thin import MAX_POINTS

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
