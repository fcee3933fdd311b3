"""Charts render to non-trivial PNGs and carry the numbers of the frames they draw."""

from __future__ import annotations

import struct
from pathlib import Path

import polars as pl
import pytest

import pl_metrics.plot as plp  # needs the `plot` extra, part of the `test` extra

EXAMPLE = Path(__file__).parents[1] / "examples" / "predictions.parquet"


@pytest.fixture(scope="module")
def df() -> pl.DataFrame:
    return pl.read_parquet(EXAMPLE)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _rendered(chart, tmp_path: Path, name: str) -> Path:
    target = tmp_path / f"{name}.png"
    chart.save(target)
    width, height = _png_size(target)
    assert width > 200
    assert height > 200
    assert target.stat().st_size > 10_000  # lines, text and colours, not a blank canvas
    return target


def test_roc_curve_chart_has_auc_in_legend(df: pl.DataFrame, tmp_path: Path) -> None:
    curve = df.metrics.roc_curve("is_cat", "cat_score", by="region")
    chart = plp.roc_curve(curve, by="region")
    _rendered(chart, tmp_path, "roc")
    legend = pl.DataFrame(chart.layer[1].data)["legend"].unique().sort().to_list()
    auc = df.metrics.roc_auc("is_cat", "cat_score", by="region")
    expected = [f"{r} (AUC {round(a, 3)})" for r, a in auc.sort("region").iter_rows()]
    assert legend == expected


def test_pr_curve_chart_has_ap_in_legend(df: pl.DataFrame, tmp_path: Path) -> None:
    chart = plp.pr_curve(df.metrics.pr_curve("is_cat", "cat_score", by="region"), by="region")
    _rendered(chart, tmp_path, "pr")
    legend = pl.DataFrame(chart.data)["legend"].unique().sort().to_list()
    ap = df.metrics.average_precision("is_cat", "cat_score", by="region")
    assert legend == [f"{r} (AP {round(a, 3)})" for r, a in ap.sort("region").iter_rows()]


def test_confusion_and_per_class_charts(df: pl.DataFrame, tmp_path: Path) -> None:
    cm = df.metrics.confusion_matrix("y_true", "y_pred", by="region")
    _rendered(plp.confusion_matrix(cm, by="region"), tmp_path, "cm")
    _rendered(
        plp.confusion_matrix(df.metrics.confusion_matrix("y_true", "y_pred")), tmp_path, "cm1"
    )
    _rendered(
        plp.per_class(df.metrics.report("y_true", "y_pred", by="region"), by="region"),
        tmp_path,
        "pc",
    )
    html = tmp_path / "cm.html"
    plp.confusion_matrix(cm, by="region").save(html)
    assert "vega" in html.read_text()
