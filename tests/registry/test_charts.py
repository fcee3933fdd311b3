"""Every chart draws one segment per ``by`` key (null included) whatever the row
order, and refuses a frame whose segment column it was not told about."""

from __future__ import annotations

import dataclasses
import inspect
import re

import polars as pl
import pytest

from registry.entries import (
    BY_NAME,
    DATA,
    Cols,
    run,
    same,
)


# ---------------------------------------------------------------------------------- charts
@dataclasses.dataclass(frozen=True)
class Chart:
    """A chart of :mod:`pl_metrics.plot` and the registry entry whose frame it draws."""

    entry: str
    kwargs: dict[str, object] = dataclasses.field(default_factory=dict)  # besides by=
    #: The error of the frame drawn without its ``by`` column: "would merge segments"
    #: (a column the chart does not know), or, for forest (which reads only the
    #: metric's columns), its rows repeating with no segment to tell them apart.
    merged: str = "would merge segments"


#: Each chart and the frame it draws.
PLOTS: dict[str, Chart] = {
    "roc_curve": Chart("roc_curve"),
    "pr_curve": Chart("pr_curve"),
    "confusion_matrix": Chart("confusion_matrix"),
    "per_class": Chart("per_class", {"metrics": ("precision", "recall", "f2")}),
    "over_time": Chart("over_time[scores]"),
    "reliability": Chart("calibration_curve"),
    "threshold_metrics": Chart("thresholds"),
    "gains": Chart("gains"),
    "drift": Chart("drift_bins"),
    "forest": Chart(
        "summary[ci]",
        {"metric": "accuracy"},
        merged="'accuracy' has several rows per frame value: the frame holds several segments",
    ),
}


def _chart_rows(chart: object) -> pl.DataFrame:
    """The chart's segment data (the dataset with a segment column; the ROC
    chart's chance diagonal or the forest's reference line is a second dataset)."""
    datasets = chart.to_dict()["datasets"]  # type: ignore[attr-defined]
    segmented = [rows for rows in datasets.values() if "segment" in rows[0]]
    assert len(segmented) == 1
    return pl.DataFrame(segmented[0])


def test_every_chart_is_in_the_registry() -> None:
    plot = pytest.importorskip("pl_metrics.plot")
    public = {
        n
        for n, f in inspect.getmembers(plot, inspect.isfunction)
        if not n.startswith("_") and f.__module__ == plot.__name__
    }
    assert public == set(PLOTS)


@pytest.mark.parametrize("chart", sorted(PLOTS))
def test_chart_one_segment_per_key_and_row_order(chart: str) -> None:
    plot = pytest.importorskip("pl_metrics.plot")
    spec = PLOTS[chart]
    entry = BY_NAME[spec.entry]
    frame = run(entry, DATA, Cols(w="w") if entry.weighted else Cols())
    draw = getattr(plot, chart)
    rows = _chart_rows(draw(frame, by="g", **spec.kwargs))
    # one segment per key, null its own (a forest: one row each)
    assert rows["segment"].n_unique() == DATA["g"].n_unique()
    assert "null" in rows["segment"].to_list()
    if chart == "forest":
        assert rows.height == DATA["g"].n_unique()
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=9)
    same(
        _chart_rows(draw(shuffled, by="g", **spec.kwargs)).drop("segment_id"),
        rows.drop("segment_id"),
    )
    with pytest.raises(ValueError, match=re.escape(spec.merged)):
        draw(frame, **spec.kwargs)  # the segment column not named: refused, never one merged line
