"""``html_report(index=, every=)``: the section of performance over time, realized
and, with ``reference``, estimated per window (one ``over_time`` call and its
chart); with estimates, the page's realized numbers read the labelled rows."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import pl_metrics  # noqa: F401 - registers .metrics

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

from _html_report_helpers import EXAMPLE, as_frame, assert_same, page_tables

V1 = pl.col("model_version") == "v1"
LAST_WEEK = dt.date(2026, 3, 23)


@pytest.fixture(scope="module", name="late")
def late_labels() -> pl.DataFrame:
    """The example rows over four weeks (a day per row, in turn), v2's labels of the
    last week not arrived yet (null)."""
    df = pl.read_parquet(EXAMPLE).with_columns(flag=pl.col("cat_score") >= 0.5)
    day = pl.lit(dt.date(2026, 3, 2)) + pl.duration(days=pl.int_range(pl.len()) % 28)
    df = df.with_columns(day.alias("day"))
    arrived = V1 | (pl.col("day") < LAST_WEEK)
    return df.with_columns(is_cat=pl.when(arrived).then("is_cat"))


def _page(frame: pl.DataFrame, **kw: Any) -> str:
    return frame.metrics.html_report(
        "is_cat", "flag", y_score="cat_score", by="region", index="day", every="1w", **kw
    )


def test_the_section_is_over_time_with_estimates_beside(late: pl.DataFrame) -> None:
    page = _page(late, reference=V1)
    tables = page_tables(page)
    current = late.filter(~V1)
    want = current.metrics.over_time(
        "is_cat", y_pred="flag", y_score="cat_score", index="day", every="1w",
        metrics=["roc_auc", "f1", "estimated_roc_auc", "estimated_f1"],
        reference=late.filter(V1), ci=0.95, by="region",
    )  # fmt: skip
    assert_same(as_frame(tables["over_time"], want.schema), want, "over_time")
    # the realized lines stop a week before the estimated ones
    ends = want.group_by("metric").agg(pl.col("window_end").max()).sort("metric")
    # per region: four segments, all drawn (at most MAX_SEGMENTS)
    assert "per segment of region: realized" in page
    assert ends["window_end"].to_list() == [LAST_WEEK + dt.timedelta(days=7)] * 2 + [LAST_WEEK] * 2
    assert '<div class="vega" id="over_time_chart"' in page
    assert "Performance over time: estimated and realized" in page
    # every other realized number: of the labelled current rows
    labelled = current.filter(pl.col("is_cat").is_not_null())
    summary = labelled.metrics.summary("is_cat", "flag", ci=0.95)
    assert_same(as_frame(tables["summary"], summary.schema), summary, "summary")
    auc = labelled.metrics.roc_auc("is_cat", "cat_score", by="region", ci=0.95)
    assert_same(as_frame(tables["roc_auc_by"], auc.schema), auc, "roc_auc_by")
    assert "rows without a label (is_cat null): in the estimated metrics only" in page


def test_without_a_reference_the_realized_metrics_alone(late: pl.DataFrame) -> None:
    labelled = late.filter(pl.col("is_cat").is_not_null())
    page = _page(labelled, ci=None)
    want = labelled.metrics.over_time(
        "is_cat", y_pred="flag", y_score="cat_score", index="day", every="1w",
        metrics=["roc_auc", "f1"], by="region",
    )  # fmt: skip
    assert_same(as_frame(page_tables(page)["over_time"], want.schema), want, "over_time")
    assert "estimated" not in page.split("<script")[0].lower()


def test_no_index_no_section(late: pl.DataFrame) -> None:
    labelled = late.filter(pl.col("is_cat").is_not_null())
    page = labelled.metrics.html_report("is_cat", "flag", y_score="cat_score", ci=None)
    assert "over_time" not in page_tables(page)
    assert 'id="over-time"' not in page


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"index": "day"}, "`index` and `every` go together"),
        ({"every": "1w"}, "`index` and `every` go together"),
        ({"index": "day", "every": "1 week"}, "`every` must be a positive polars duration"),
        (
            {"index": "day", "every": "1w", "y_pred": None, "y_score": {True: "cat_score"}},
            "class scores alone have none per window",
        ),
    ],
)
def test_bad_windows_name_the_argument(
    late: pl.DataFrame, options: dict[str, Any], match: str
) -> None:
    given: dict[str, Any] = {"y_pred": "flag", "y_score": "cat_score", **options}
    with pytest.raises(ValueError, match=match):
        late.metrics.html_report("is_cat", **given)


@pytest.mark.skipif(
    shutil.which("chromium") is None or shutil.which("chromedriver") is None,
    reason="no Chromium / chromedriver on PATH (tests/test_html_report_charts.py)",
)
def test_the_chart_renders_in_chromium(late: pl.DataFrame, tmp_path: Path) -> None:
    """Drawn offline without a JavaScript error or warning: a line and a band per
    kind (realized, estimated) in each metric's panel; a screenshot to look at."""
    import os

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    path = tmp_path / "late.html"
    _page(late, reference=V1, path=path)
    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which("chromium"))
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=str(shutil.which("chromedriver")))
    browser = webdriver.Chrome(options=options, service=service)
    try:
        browser.get(path.as_uri())
        WebDriverWait(browser, 60).until(
            lambda d: d.execute_script(
                "return document.body.dataset.rendered || document.body.dataset.error"
            )
        )
        assert browser.execute_script("return document.body.dataset.error || null") is None
        section = browser.find_element(By.CSS_SELECTOR, "section#over-time")
        chart = section.find_element(By.CSS_SELECTOR, "div.vega#over_time_chart")
        marks = chart.find_elements(By.CSS_SELECTOR, "svg [role=graphics-symbol]")
        assert len(marks) > 10
        legend = chart.text
        assert "estimated" in legend
        assert "realized" in legend
        logs = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert logs == [], f"JavaScript errors or warnings: {logs}"
        root = Path(__file__).parents[1]
        out = Path(os.environ.get("PLM_SCREENSHOT_DIR", root / "build" / "report-screenshots"))
        out.mkdir(parents=True, exist_ok=True)
        browser.execute_script("arguments[0].scrollIntoView()", section)
        section.screenshot(str(out / "estimated-over-time.png"))
    finally:
        browser.quit()


def test_the_section_is_one_over_time_call(
    late: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its cost (issue 49: the page at most 1.5x its sections' own calls): one
    ``over_time`` call, realized and estimated together, and no other call more
    than the page without the section makes."""
    from pl_metrics._namespace import MetricsLazyFrame

    calls: list[str] = []
    for name in ("over_time", "estimated_performance", "summary", "roc_auc", "drift"):
        original = getattr(MetricsLazyFrame, name)

        def counted(self: Any, *args: Any, _name: str = name, _f: Any = original, **kw: Any) -> Any:
            calls.append(_name)
            return _f(self, *args, **kw)

        monkeypatch.setattr(MetricsLazyFrame, name, counted)
    labelled = late.filter(pl.col("is_cat").is_not_null())
    labelled.metrics.html_report("is_cat", "flag", y_score="cat_score", by="region", reference=V1)
    without = sorted(calls)
    calls.clear()
    _page(late, reference=V1)
    assert sorted(calls) == sorted([*without, "over_time"])


def test_with_many_segments_the_lowest_latest_estimates_are_drawn() -> None:
    """Over MAX_SEGMENTS segments, the chart draws those whose latest estimate is
    lowest: here segments s0..s7, latest estimated_roc_auc 0.9 - 0.1 x i except s2
    (its latest window has none: NaN, so its earlier 0.1 counts), realized values
    higher. By hand, lowest first: s2 0.1, s7 0.2, s6 0.3, s5 0.4, s4 0.5, s3 0.6."""
    from pl_metrics._report.over_time import MAX_SEGMENTS, _drawn_segments

    assert MAX_SEGMENTS == 6
    rows = []
    for i in range(8):
        latest = float("nan") if i == 2 else 0.9 - 0.1 * i
        for end, value in (
            (dt.date(2026, 1, 8), 0.1 if i == 2 else 0.5),
            (dt.date(2026, 1, 15), latest),
        ):
            rows.append(
                {
                    "seg": f"s{i}",
                    "window_end": end,
                    "metric": "roc_auc",
                    "value": value,
                    "kind": "estimated",
                }
            )
            rows.append(
                {
                    "seg": f"s{i}",
                    "window_end": end,
                    "metric": "roc_auc",
                    "value": 0.99,
                    "kind": "realized",
                }
            )
    frame = pl.DataFrame(rows).sample(fraction=1.0, shuffle=True, seed=3)
    drawn, whose = _drawn_segments(frame, ["seg"], "estimated_roc_auc", "kind")
    assert sorted(drawn["seg"].unique()) == ["s2", "s3", "s4", "s5", "s6", "s7"]
    assert drawn.height == 6 * 4  # every row of a drawn segment, realized ones too
    assert "the 6 of 8 segments whose latest estimated_roc_auc is lowest" in whose
    few = frame.filter(pl.col("seg").is_in(["s0", "s1"]))
    drawn, whose = _drawn_segments(few, ["seg"], "estimated_roc_auc", "kind")
    assert drawn is few
    assert whose == "per segment of seg"


def test_class_scores_estimate_the_accuracy_beside_the_realized(late: pl.DataFrame) -> None:
    """A ``{label: column}`` mapping: the estimated accuracy (one map per class) beside
    the realized one, over_time's own rows; the realized numbers of the labelled rows."""
    scores = {c: f"p_{c}" for c in ("bird", "cat", "dog", "fish")}
    arrived = V1 | (pl.col("day") < LAST_WEEK)
    rows = late.with_columns(y_true=pl.when(arrived).then("y_true"))
    page = rows.metrics.html_report(
        "y_true", "y_pred", y_score=scores, by="region", index="day", every="1w", reference=V1
    )
    current = rows.filter(~V1)
    want = current.metrics.over_time(
        "y_true", y_pred="y_pred", y_score=scores, index="day", every="1w",
        metrics=["accuracy", "estimated_accuracy"], reference=rows.filter(V1), ci=0.95,
        by="region",
    )  # fmt: skip
    tables = page_tables(page)
    assert_same(as_frame(tables["over_time"], want.schema), want, "over_time")
    # the realized accuracy stops a week before the estimated one
    ends = want.group_by("metric").agg(pl.col("window_end").max()).sort("metric")
    assert ends["window_end"].to_list() == [LAST_WEEK, LAST_WEEK + dt.timedelta(days=7)]
    assert "Performance over time: estimated and realized" in page
    assert "one map per class, one-vs-rest" in page
    assert "drawn Categorical(p)" in page
    labelled = current.filter(pl.col("y_true").is_not_null())
    summary = labelled.metrics.summary("y_true", "y_pred", ci=0.95)
    assert_same(as_frame(tables["summary"], summary.schema), summary, "summary")
