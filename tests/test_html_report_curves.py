"""The HTML report draws what the charts draw: a curve thinned once, keeping its
area (the AUC / AP printed), not thinned again by position (issue 49: a jagged PR
curve of 1,000 points was drawn from 969 by the chart, 400 by the page, its area
then off the AP)."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import pl_metrics  # noqa: F401 - registers .metrics

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

from pl_metrics.plot._thin import AREA_TOLERANCE


def _drawn(charts: dict, name: str, x: str, y: str) -> tuple[np.ndarray, np.ndarray]:
    """The points of a chart's curve: its largest dataset with both fields (not the
    chance diagonal's two points)."""
    found = [d for d in charts[name].get("datasets", {}).values() if d and x in d[0] and y in d[0]]
    rows = [r for r in max(found, key=len) if r[x] is not None and r[y] is not None]
    return np.array([r[x] for r in rows]), np.array([r[y] for r in rows])


def test_the_pages_curves_keep_their_area() -> None:
    """1,000 rows of weak scores (test_chart_thinning's jagged curve): the PR chart
    draws about 970 points to keep its area; the page kept 400 by position."""
    rng = np.random.default_rng(0)
    n = 1000
    y = rng.random(n) < 0.3
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + 0.5 * y)))
    frame = pl.DataFrame({"y": y.astype(int), "p": (s > 0.5).astype(int), "s": s})
    page = frame.metrics.html_report("y", "p", y_score="s", ci=None)
    charts = json.loads(page.split('id="plm-charts">')[1].split("</script>")[0])
    fpr, tpr = _drawn(charts, "roc", "fpr", "tpr")
    assert abs(np.trapezoid(tpr, fpr) - roc_auc_score(y, s)) <= AREA_TOLERANCE
    recall, precision = _drawn(charts, "pr", "recall", "precision")
    area = -np.trapezoid(precision, recall)  # drawn from recall 1 down to 0
    assert abs(abs(area) - average_precision_score(y, s)) <= AREA_TOLERANCE
