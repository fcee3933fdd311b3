"""The HTML evaluation report: its numbers are the frame methods', on every path.

Without a browser: the page's tables, read back from the HTML, equal the frame
methods called directly (every cell carries its value's ``repr``); the same page
from a DataFrame, a LazyFrame, ``scan_parquet`` and shuffled rows; zero weights =
rows removed; bad input → a clear error; no external resource in the page.  The
report's charts, in a browser, are in ``tests/test_html_report_charts.py``."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import pl_metrics as plm  # registers .metrics

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

from _html_report_helpers import (
    SCORES,
    _report,
    as_frame,
    assert_same,
    expected_tables,
    page_tables,
)
from _html_report_helpers import df as example_frame  # noqa: F401


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
