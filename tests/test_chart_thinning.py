"""Charts draw a few hundred points of a long curve, and keep its shape and area.

Issue 49: ``pl-metrics roc-curve big.parquet --by region --plot roc.png`` on 5M rows
(1.35M ROC points) ran 132 s and died in vl-convert's JavaScript engine (out of
memory, exit 133); ``plot.pr_curve`` of 200k points took 11.7 s.  The charts now
draw about ``MAX_POINTS`` points a curve (``pl_metrics/plot/_thin.py``), the ends
exact and the trapezoid area of the points drawn within ``AREA_TOLERANCE`` of the
number in the legend, which scikit-learn gives from every row.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import pl_metrics  # noqa: F401  (registers .metrics)
import pl_metrics.plot as plp
from pl_metrics.plot import _thin


def _scores(n: int, *, seed: int, positives: float = 0.3, shift: float = 1.5) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < positives
    score = 1 / (1 + np.exp(-(rng.normal(size=n) + shift * y)))
    return pl.DataFrame({"y": y, "s": score, "seg": rng.choice(["a", "b"], n)})


def _drawn(chart, area: str) -> pl.DataFrame:
    data = chart.layer[1].data if area == "auc" else chart.data
    return pl.DataFrame(data).sort("segment_id", "order")


def _areas(drawn: pl.DataFrame, x: str, y: str) -> dict[str, float]:
    return {
        part["segment"][0]: abs(np.trapezoid(part[y].to_numpy(), part[x].to_numpy()))
        for part in drawn.partition_by("segment_id", maintain_order=True)
    }


@pytest.mark.parametrize(
    ("method", "chart", "area", "x", "y", "oracle"),
    [
        ("roc_curve", plp.roc_curve, "auc", "fpr", "tpr", roc_auc_score),
        ("pr_curve", plp.pr_curve, "ap", "recall", "precision", average_precision_score),
    ],
)
def test_a_long_curve_is_drawn_from_a_few_hundred_points_of_the_same_area(
    method, chart, area, x, y, oracle
) -> None:
    """200,000 rows: 27,000 ROC points, 100,000 PR points a segment (all drawn before:
    the PR chart took 14 s to save); now at most MAX_POINTS, the first and the last
    those of the curve, the area drawn within AREA_TOLERANCE of the legend's, the
    legend scikit-learn's on the segment's rows."""
    frame = _scores(200_000, seed=1)
    curve = getattr(frame.metrics, method)("y", "s", by="seg")
    drawn = _drawn(chart(curve, by="seg"), area)
    areas = _areas(drawn, x, y)
    for part in drawn.partition_by("segment_id", maintain_order=True):
        segment = part["segment"][0]
        rows = frame.filter(pl.col("seg") == segment)
        expected = oracle(rows["y"].to_numpy(), rows["s"].to_numpy())
        assert part[area][0] == pytest.approx(expected, rel=1e-12)  # every point's number
        assert part["legend"][0].endswith(f"({area.upper()} {expected:.3f})")
        assert abs(areas[segment] - expected) <= plp.AREA_TOLERANCE
        assert part.height <= plp.MAX_POINTS  # of tens of thousands
        whole = curve.filter(pl.col("seg") == segment)
        ends = [(part[x][i], part[y][i]) for i in (0, -1)]
        if method == "roc_curve":  # fpr, tpr from (0, 0) to (1, 1)
            assert ends == [(0.0, 0.0), (1.0, 1.0)]
        else:  # recall 1 at the prevalence, recall 0 at precision 1 (the curve's ends)
            first = whole.filter(pl.col("recall") == 1).sort("precision")["precision"][0]
            assert ends == [(1.0, first), (0.0, 1.0)]
            assert first == pytest.approx(rows["y"].mean(), rel=1e-12)


def test_a_jagged_curve_gets_the_points_its_area_needs() -> None:
    """1,000 rows, weak scores: the precision-recall staircase is jagged, and its
    MAX_POINTS points spread along it draw an area 5.0e-4 off the AP (more than
    AREA_TOLERANCE): the chart draws more of them, till the area is within it."""
    frame = _scores(1000, seed=0, shift=0.5)
    curve = frame.metrics.pr_curve("y", "s")
    drawn = _drawn(plp.pr_curve(curve), "ap")
    ap = average_precision_score(frame["y"].to_numpy(), frame["s"].to_numpy())
    assert drawn["ap"][0] == pytest.approx(ap, rel=1e-12)
    assert abs(_areas(drawn, "recall", "precision")["all"] - ap) <= plp.AREA_TOLERANCE
    # the staircase's corners, thinned without the check of the area: too far off
    points = curve.sort("recall", "precision", descending=[True, False], maintain_order=True)
    r, p = points["recall"].to_numpy(), points["precision"].to_numpy()
    x = np.empty(2 * len(r) - 1)
    y = np.empty(2 * len(r) - 1)
    x[0::2], y[0::2], x[1::2], y[1::2] = r, p, r[1:], p[:-1]  # (r[i + 1], p[i]) after i
    assert abs(np.trapezoid(y, x)) == pytest.approx(ap, rel=1e-12)  # the steps' area
    once = _thin.along_curve(x, [y], plp.MAX_POINTS)
    assert abs(abs(np.trapezoid(y[once], x[once])) - ap) > plp.AREA_TOLERANCE
    assert drawn.height > len(once)


def test_thresholds_are_drawn_evenly_with_their_ends() -> None:
    """5,000 distinct thresholds a segment (drawn whole before): MAX_POINTS of each
    metric's line, the highest and the lowest threshold kept, each row the frame's."""
    frame = _scores(10_000, seed=2)
    table = frame.metrics.thresholds("y", "s", by="seg")
    chart = plp.threshold_metrics(table, by="seg")
    data = pl.DataFrame(chart.data)
    for (segment, metric), part in data.group_by("segment", "metric", maintain_order=True):
        rows = table.filter(pl.col("seg") == segment)
        assert part.height == plp.MAX_POINTS
        finite = rows.filter(pl.col("threshold").is_finite())["threshold"]
        assert part["threshold"][0] == finite[0]
        assert part["threshold"][-1] == finite[-1]
        joined = part.join(rows, on="threshold", how="left")
        assert joined["value"].equals(joined[metric].fill_nan(None), check_names=False)


def test_evenly_keeps_the_first_of_equal_spans_and_the_last() -> None:
    """The rule for a series without an area (the HTML report's before it drew
    what the charts draw): the first of each of limit - 1 equal spans of
    positions, ceil(j (n - 1) / (limit - 1)), and the last."""
    for n in (1, 2, 399, 400, 401, 1000, 12_345):
        for limit in (2, 3, 10, 400):
            want = (
                list(range(n))
                if n <= limit
                else [-(-j * (n - 1) // (limit - 1)) for j in range(limit - 1)] + [n - 1]
            )
            assert _thin.evenly(n, limit).tolist() == want
    # by hand: 10 rows, 4 kept: spans of 3 positions start at 0, 3, 6; and the last, 9
    assert _thin.evenly(10, 4).tolist() == [0, 3, 6, 9]


def test_along_curve_keeps_both_ends_of_a_long_straight_step() -> None:
    """1,000 points on a quarter circle from (0, 1) to (1, 0), with one long straight
    step across the middle: the step's two ends are kept (no chord cuts the
    corner), and so are the curve's ends."""
    t = np.linspace(0, np.pi / 2, 1000)
    x, y = np.sin(t), np.cos(t)
    x = np.concatenate([x[:500] * 0.1, 0.9 + x[500:] * 0.1])  # a jump from 0.1 to 0.9
    kept = _thin.along_curve(x, [y], 50)
    assert len(kept) <= 50
    assert {0, 499, 500, 999} <= set(kept.tolist())
    assert _thin.along_curve(x[:40], [y[:40]], 50).tolist() == list(range(40))  # all


def test_charts_accept_the_reports_thinned_curves() -> None:
    """A curve thinned by position by the user (``_thin.evenly``, the HTML report's
    rule before it drew what the charts draw) is still a frame of the charts,
    drawn with its own area in the legend (the trapezoid of its points for the ROC
    curve)."""
    MAX_POINTS = plp.MAX_POINTS

    def thinned(part: pl.DataFrame, limit: int) -> pl.DataFrame:
        return part[_thin.evenly(part.height, limit)]

    frame = _scores(20_000, seed=3)
    for method, chart in (
        ("roc_curve", plp.roc_curve),
        ("pr_curve", plp.pr_curve),
        ("thresholds", plp.threshold_metrics),
    ):
        curve = getattr(frame.metrics, method)("y", "s", by="seg")
        short = pl.concat([thinned(part, MAX_POINTS) for part in curve.partition_by("seg")])
        spec = chart(short, by="seg").to_dict()  # no error; rows under Altair's 5,000
        assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    roc = frame.metrics.roc_curve("y", "s")
    short = thinned(roc, MAX_POINTS)
    drawn = _drawn(plp.roc_curve(short), "auc")
    assert drawn["auc"][0] == pytest.approx(
        abs(np.trapezoid(short["tpr"].to_numpy(), short["fpr"].to_numpy())), rel=1e-12
    )
