"""The ``pl-metrics`` charts and HTML report: every chart of the table a plot function,
written by ``--plot``, and ``html`` writing the method's report."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from _cli_helpers import BASE, BINARY, EXAMPLE, LABELS, MAP, _rounded
from _cli_helpers import with_day as day_example  # noqa: F401

import pl_metrics  # noqa: F401 - registers .metrics
from pl_metrics import cli

# -------------------------------------------------------------------- charts, html


def test_every_chart_of_the_table_is_a_plot_function() -> None:
    plot = pytest.importorskip("pl_metrics.plot")
    for chart in cli.CHARTS.values():
        assert callable(getattr(plot, chart.function))


CHART_ARGS = {
    "roc-curve": [*BINARY, "--by", "region"],
    "pr-curve": [*BINARY, "--by", "region"],
    "confusion-matrix": [*LABELS, "--by", "region"],
    "per-class": [*LABELS, "--ci", "0.9", "--n-boot", "20"],
    "calibration-curve": [*BINARY, "--by", "region"],
    "thresholds": [*BINARY, "--by", "region"],
    "gains": [*BINARY, "--by", "region"],
    "summary": [*LABELS, "--by", "region", "--ci", "0.9", "--ci-method", "wilson"],
    "roc-auc": [*BINARY, "--by", "region", "--ci", "0.9", "--ci-method", "delong"],
    "gini": [*BINARY, "--by", "region", "--ci", "0.9"],
    "average-precision": [*BINARY, "--by", "region", "--ci", "0.9", "--n-boot", "20"],
    "compare": [*LABELS, "--by", "region", "--n-boot", "20"],
    "compare-models": [
        str(EXAMPLE),
        "--y-true",
        "is_cat",
        "--models",
        "cat_score,p_dog",
        "--metric",
        "roc_auc",
        "--by",
        "region",
    ],
    "drift-bins": [
        str(EXAMPLE),
        *("--columns", "cat_score,y_pred", "--reference", "model_version = 'v1'"),
        *("--by", "region"),
    ],
}


@pytest.mark.parametrize("command", sorted(cli.CHARTS))
def test_plot_writes_the_chart_of_every_command(
    command: str, tmp_path: Path, with_day: Path
) -> None:
    pytest.importorskip("vl_convert")
    target = tmp_path / "chart.png"
    if command == "over-time":
        args = [str(with_day), *BASE, "--index", "day", "--every", "7d", "--by", "region"]
    else:
        args = CHART_ARGS[command]
    cli.run([command, *args, "--plot", str(target), "-o", str(tmp_path / "out.csv")])
    assert target.read_bytes()[:4] == b"\x89PNG"


def test_compare_plot_draws_the_metric_given(tmp_path: Path) -> None:
    target = tmp_path / "forest.json"  # the Vega-Lite spec holds the rows drawn
    args = [*LABELS, "--by", "region", "--metric", "mcc", "--n-boot", "20"]
    frame = cli.run(["compare", *args, "--plot", str(target), "-o", str(tmp_path / "o.csv")])
    spec = json.loads(target.read_text())
    values = sorted(
        row["value"] for rows in spec["datasets"].values() for row in rows if "value" in row
    )
    assert values == sorted(frame["value"].to_list())


def test_html_writes_the_report_to_the_output(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    args = [*LABELS, "--score-map", "bird=p_bird,cat=p_cat,dog=p_dog,fish=p_fish", "--ci", "none"]
    page = cli.run(["html", *args, "--by", "region", "--title", "Animals", "-o", str(target)])
    assert isinstance(page, str)
    assert target.read_text(encoding="utf-8") == page
    expected = pl.scan_parquet(EXAMPLE).metrics.html_report(
        "y_true", "y_pred", y_score=MAP, by="region", ci=None, title="Animals"
    )
    assert "<title>Animals" in page
    # the same page as the method's, up to the last bits of floats (threaded sums)
    assert _rounded(page) == _rounded(expected)
