"""The newer charts (reliability, threshold metrics, gains, forest, over time,
drift) and facets: they render and carry the numbers of the frames they draw."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import numpy as np
import polars as pl
import pytest
from _plot_helpers import CLASSES, EXAMPLE, _legends, _method_values, _rendered, _table_keys
from _plot_helpers import df as example_frame  # noqa: F401 - the fixture `df`

import pl_metrics.plot as plp  # needs the `plot` extra, part of the `test` extra


def _layer_data(chart, i: int) -> pl.DataFrame:
    """The data of layer ``i`` (Altair lifts data shared by all layers to the top)."""
    data = chart.layer[i].data
    return pl.DataFrame(chart.data if data is alt.Undefined else data)


# --- the new charts ---------------------------------------------------------------------


@pytest.mark.parametrize("by", [["region"], ["region", "model_version"]])
def test_reliability_points_are_the_calibration_curve(df: pl.DataFrame, by) -> None:
    curve = df.metrics.calibration_curve("is_cat", "cat_score", by=by, n_bins=8)
    chart = plp.reliability(curve, by=by)
    spec = chart.to_dict()
    # the diagonal, the lines, the bins' points, a bin of few rows hollow (its outline)
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["line", "line", "circle", "point"]
    assert spec["layer"][3]["mark"]["filled"] is False
    points = spec["layer"][2]["encoding"]
    assert points["size"]["field"] == "count"
    assert points["color"]["sort"] == _table_keys(curve.unique(by, maintain_order=True), by)
    assert points["detail"]["field"] == "segment_id"  # one line per segment
    data = pl.DataFrame(chart.layer[1].data).sort("segment_id", "bin")
    expected = curve.with_columns(segment=pl.concat_str(by, separator=" / "))
    assert data.select("segment", "bin", "prob_true", "prob_pred", "count").equals(
        expected.select("segment", "bin", "prob_true", "prob_pred", "count")
    )
    diagonal = pl.DataFrame(chart.layer[0].data)
    assert diagonal.rows() == [(0.0, 0.0), (1.0, 1.0)]


def test_reliability_intervals_and_bins_of_few_rows(df: pl.DataFrame) -> None:
    """calibration_curve(ci=): a rule from each bin's low to high bound; the bins of
    fewer than FEW_ROWS rows (and only they) are the hollow layer's, and say so."""
    curve = df.head(400).metrics.calibration_curve("is_cat", "cat_score", n_bins=10, ci=0.95)
    chart = plp.reliability(curve)
    spec = chart.to_dict()
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["line", "line", "rule", "circle", "point"]
    rule = spec["layer"][2]["encoding"]
    assert (rule["y"]["field"], rule["y2"]["field"]) == ("prob_true_low", "prob_true_high")
    assert spec["layer"][3]["transform"] == [{"filter": "datum.note == null"}]
    assert spec["layer"][4]["transform"] == [{"filter": "datum.note != null"}]
    data = pl.DataFrame(chart.layer[1].data).sort("bin")
    few = curve["count"] < plp.FEW_ROWS
    assert few.any()  # both kinds of bins in this example
    assert not few.all()
    assert data["note"].is_not_null().to_list() == few.to_list()
    assert data.select("prob_true_low", "prob_true_high").equals(
        curve.select("prob_true_low", "prob_true_high")
    )
    assert "hollow: fewer than 30 rows" in str(spec["title"])
    # weights: count is a total weight, not rows: no bin is marked as one of few rows
    weighted = (
        df.head(400)
        .with_columns(w=pl.lit(0.01))
        .metrics.calibration_curve("is_cat", "cat_score", n_bins=10, weight="w")
    )
    marks = [layer["mark"]["type"] for layer in plp.reliability(weighted).to_dict()["layer"]]
    assert marks == ["line", "line", "circle"]


@pytest.mark.parametrize("chart", ["roc_curve", "pr_curve"])
def test_facet_small_multiples(df: pl.DataFrame, chart: str) -> None:
    """facet=: a panel per facet value (table order), a colour per class, the same in
    every panel, each curve's area (the method's number) in its panel."""
    small = df.head(800)
    classes = {c: f"p_{c}" for c in CLASSES}
    frame = getattr(small.metrics, chart)("y_true", classes, by="model_version")
    drawn = getattr(plp, chart)(frame, by="model_version", facet="model_version")
    spec = drawn.to_dict()
    assert spec["facet"]["field"] == "__plm_panel"
    assert spec["facet"]["sort"] == ["v1", "v2"]
    colour = spec["spec"]["layer"][-1]["encoding"]["color"]
    assert colour["field"] == "__plm_series"
    assert colour["scale"]["domain"] == list(CLASSES)  # one colour per class, every panel
    data = pl.DataFrame(drawn.data)
    area = "auc" if chart == "roc_curve" else "ap"
    method = "roc_auc" if chart == "roc_curve" else "average_precision"
    data = data.rename({"__plm_panel": "panel", "__plm_series": "series"})
    per_curve = data.group_by("panel", "series").agg(pl.col(area).first())
    assert per_curve.height == 2 * len(CLASSES)
    expected = getattr(small.metrics, method)("y_true", classes, by="model_version", average=None)
    joined = per_curve.join(
        expected.rename({"model_version": "panel", "label": "series"}), on=["panel", "series"]
    )
    assert joined.height == per_curve.height
    for got, want in joined.select(area, method).rows():
        assert got == pytest.approx(want, rel=1e-9)
    with pytest.raises(ValueError, match="not in the frame"):
        getattr(plp, chart)(frame, by="model_version", facet="nope")
    # the chart's own columns do not collide with a user's named like them
    named = frame.rename({"model_version": "panel"})
    assert getattr(plp, chart)(named, by="panel", facet="panel").to_dict()["facet"]


@pytest.mark.parametrize(
    ("chart", "method", "point", "values"),
    [
        ("reliability", "calibration_curve", "bin", ["prob_pred", "prob_true"]),
        ("gains", "gains", "bucket", ["cum_share", "gain"]),
    ],
)
def test_facet_of_reliability_and_gains(
    df: pl.DataFrame, chart: str, method: str, point: str, values: list[str]
) -> None:
    """facet=: a panel per model version (table order), a colour per region (the same
    in every panel), each line the frame's points of its (version, region)."""
    by = ["model_version", "region"]
    frame = getattr(df.head(2000).metrics, method)("is_cat", "cat_score", by=by)
    drawn = getattr(plp, chart)(frame, by=by, facet="model_version")
    spec = drawn.to_dict()
    assert spec["facet"]["field"] == "__plm_panel"
    assert spec["facet"]["sort"] == ["v1", "v2"]
    colour = spec["spec"]["layer"][-1]["encoding"]["color"]
    assert colour["field"] == "__plm_series"
    assert colour["scale"]["domain"] == sorted(frame["region"].unique().to_list())
    data = pl.DataFrame(drawn.data).filter(pl.col(point).is_not_null())
    got = data.select(
        pl.col("__plm_panel").alias("model_version"),
        pl.col("__plm_series").alias("region"),
        point,
        *values,
    ).sort([*by, point])
    assert got.equals(frame.select(*by, point, *values).sort([*by, point]))


@pytest.mark.parametrize("by", [["region"], ["region", "model_version"]])
def test_threshold_metrics_one_line_per_metric_per_segment(df: pl.DataFrame, by) -> None:
    table = df.head(600).metrics.thresholds("is_cat", "cat_score", by=by)
    chart = plp.threshold_metrics(table, by=by, metrics=["precision", "recall", "mcc"])
    spec = chart.to_dict()
    keys = _table_keys(table.unique(by, maintain_order=True), by)
    assert spec["facet"]["field"] == "segment"
    assert spec["facet"]["sort"] == keys  # one panel per combined key
    encoding = spec["spec"]["encoding"]
    assert encoding["color"]["field"] == "metric"
    assert encoding["y"]["scale"]["domain"] == [-1, 1]  # mcc: from -1, the same in every panel
    assert spec["spec"]["mark"]["interpolate"] == "step-before"
    data = pl.DataFrame(chart.data)
    assert data.height == table.height * 3
    for metric in ("precision", "recall", "mcc"):
        got = data.filter(pl.col("metric") == metric).sort("segment_id", "threshold")
        want = table.with_columns(segment=pl.concat_str(by, separator=" / ")).sort(
            [*by, "threshold"]
        )
        assert got["segment"].to_list() == want["segment"].to_list()
        assert got["value"].to_list() == want[metric].to_list()
    unsegmented = plp.threshold_metrics(df.head(300).metrics.thresholds("is_cat", "cat_score"))
    assert unsegmented.to_dict()["encoding"]["y"]["scale"]["domain"] == [0, 1]
    with pytest.raises(ValueError, match=r"metrics must be rates.*'tp'"):
        plp.threshold_metrics(table, by=by, metrics=["tp"])


def test_gains_chart_starts_at_the_origin(df: pl.DataFrame) -> None:
    table = df.metrics.gains("is_cat", "cat_score", by="region")
    chart = plp.gains(table, by="region")
    data = pl.DataFrame(chart.layer[1].data)
    for region in ["apac", "eu", "latam", "us"]:
        line = data.filter(pl.col("segment") == region)
        rows = table.filter(pl.col("region") == region)
        assert line["cum_share"].to_list() == [0.0, *rows["cum_share"].to_list()]
        assert line["gain"].to_list() == [0.0, *rows["gain"].to_list()]


@pytest.mark.parametrize("by", [["region"], ["region", "model_version"]])
def test_forest_rows_are_the_frames_intervals(df: pl.DataFrame, by) -> None:
    table = df.metrics.summary("y_true", "y_pred", by=by, ci=0.95)
    chart = plp.forest(table, metric="mcc", by=by)
    spec = chart.to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["rule", "point"]  # no reference
    assert spec["layer"][0]["encoding"]["x"]["scale"] == {"zero": False}
    data = _layer_data(chart, 0)
    assert data["segment"].to_list() == _table_keys(table, by)  # one row per key, table order
    assert data["value"].to_list() == table["mcc"].to_list()
    assert data["low"].to_list() == table["mcc_low"].to_list()
    assert data["high"].to_list() == table["mcc_high"].to_list()


def test_forest_reference_line(df: pl.DataFrame) -> None:
    compared = df.metrics.compare("y_true", "y_pred", by="region", metric="accuracy", n_boot=200)
    chart = plp.forest(compared, metric="accuracy", by="region")
    reference = pl.DataFrame(chart.layer[0].data)["reference"].to_list()
    overall = df.metrics.summary("y_true", "y_pred")["accuracy"][0]
    assert reference == [pytest.approx(overall, rel=1e-12)]
    data = pl.DataFrame(chart.layer[1].data)
    assert data["low"].to_list() == compared["low"].to_list()
    given = plp.forest(
        df.metrics.summary("y_true", "y_pred", by="region", ci=0.9),
        metric="accuracy",
        by="region",
        overall=0.5,
    )
    assert pl.DataFrame(given.layer[0].data)["reference"].to_list() == [0.5]
    models = df.metrics.compare_models(
        "is_cat", ["cat_score", "p_cat"], by="region", metric="roc_auc"
    )
    diffs = plp.forest(models, metric="diff", by="region")
    assert pl.DataFrame(diffs.layer[0].data)["reference"].to_list() == [0.0]
    assert pl.DataFrame(diffs.layer[1].data)["value"].to_list() == models["diff"].to_list()
    with pytest.raises(ValueError, match="interval of `diff`"):
        plp.forest(models, metric="roc_auc", by="region")


def test_forest_refusals(df: pl.DataFrame) -> None:
    with pytest.raises(ValueError, match=r"no interval of 'accuracy'.*ci="):
        plp.forest(
            df.metrics.summary("y_true", "y_pred", by="region"), metric="accuracy", by="region"
        )
    averages = df.metrics.averages("y_true", "y_pred", by="region", ci=0.95)
    with pytest.raises(ValueError, match=r"several segments.*by=\['region', 'average'\]"):
        plp.forest(averages, metric="f1", by="region")
    chart = plp.forest(averages, metric="f1", by=["region", "average"])
    assert _layer_data(chart, 0).height == averages.height
    with pytest.raises(ValueError, match=r"metric 'mcc' is not in the frame's `metric` column"):
        plp.forest(
            df.metrics.compare("y_true", "y_pred", by="region", n_boot=50),
            metric="mcc",
            by="region",
        )
    with pytest.raises(ValueError, match=r"by column\(s\) \['nope'\]"):
        plp.forest(averages, metric="f1", by="nope")


def test_per_class_dots_with_intervals(df: pl.DataFrame) -> None:
    table = df.metrics.per_class("y_true", "y_pred", by="region", ci=0.95)
    chart = plp.per_class(table, by="region", metrics=["recall"])
    spec = chart.to_dict()["spec"]
    rules, dots = spec["layer"]
    assert rules["mark"]["type"] == "rule"
    assert dots["mark"]["type"] == "point"
    assert dots["encoding"]["x"]["scale"] == {"zero": False}  # not bars from 0
    data = pl.DataFrame(chart.data)
    assert (
        data.select("segment", "label", "value", "low", "high").rows()
        == table.select("region", "label", "recall", "recall_low", "recall_high").rows()
    )
    plain = plp.per_class(df.metrics.per_class("y_true", "y_pred")).to_dict()["spec"]
    assert plain["mark"]["type"] == "point"  # no interval columns: no lines


def test_over_time_band_is_the_interval() -> None:
    import datetime as dt

    frame = pl.DataFrame(
        {
            "day": [dt.date(2026, 1, 1 + i % 6) for i in range(240)],
            "g": ["a", None] * 120,
            "y": [i % 3 == 0 for i in range(240)],
            "s": [((i * 7919) % 101) / 100 for i in range(240)],
        }
    )
    table = frame.metrics.over_time(
        "y",
        y_score="s",
        index="day",
        every="2d",
        period="2d",
        metrics=["roc_auc"],
        by="g",
        ci=0.9,
        n_boot=50,
    )
    chart = plp.over_time(table, by="g")
    spec = chart.to_dict()
    band, line = spec["spec"]["layer"]
    assert (
        band["mark"]["type"],
        band["encoding"]["y"]["field"],
        band["encoding"]["y2"]["field"],
    ) == ("area", "low", "high")
    assert line["encoding"]["color"]["sort"] == ["a", "null"]
    data = pl.DataFrame(chart.data)
    assert data.select("value", "low", "high").rows() == table.select("value", "low", "high").rows()


def test_over_time_dash_draws_one_by_column_as_the_line_dash() -> None:
    """The report's realized and estimated lines: one colour per segment, the kind as
    the dash; each (segment, kind) its own line (``detail``), values as in the frame."""
    import datetime as dt

    ends = [dt.date(2026, 1, d) for d in (8, 15)]
    frame = pl.DataFrame(
        {
            "region": ["eu"] * 4 + ["us"] * 4,
            "kind": ["realized", "realized", "estimated", "estimated"] * 2,
            "window_start": [e - dt.timedelta(days=7) for e in ends] * 4,
            "window_end": ends * 4,
            "metric": ["roc_auc"] * 8,
            "value": [0.9, 0.8, 0.85, 0.75, 0.7, 0.6, 0.65, 0.55],
        }
    )
    chart = plp.over_time(frame, by=["region", "kind"], dash="kind")
    spec = chart.to_dict()["spec"]
    encoding = spec["encoding"]
    (line,) = spec.get("layer", [spec])  # no band: no interval in the frame
    assert line["encoding"]["strokeDash"]["field"] == "kind"
    assert line["encoding"]["strokeDash"]["sort"] == ["realized", "estimated"]
    assert encoding["color"]["sort"] == ["eu", "us"]
    assert {d["field"] for d in encoding["detail"]} >= {"kind"}
    data = pl.DataFrame(chart.data)
    assert sorted(data.select("kind", "value").rows()) == sorted(
        frame.select("kind", "value").rows()
    )
    realized = frame.filter(pl.col("kind") == "realized").drop("kind")
    with pytest.raises(ValueError, match=r"`dash` \('kind'\) must be one of the `by` columns"):
        plp.over_time(realized, by="region", dash="kind")


def test_new_charts_render(df: pl.DataFrame, tmp_path: Path) -> None:
    small = df.head(800)
    charts = {
        "reliability": plp.reliability(
            small.metrics.calibration_curve("is_cat", "cat_score", by="region"), by="region"
        ),
        "thresholds": plp.threshold_metrics(small.metrics.thresholds("is_cat", "cat_score")),
        "gains": plp.gains(small.metrics.gains("is_cat", "cat_score", by="region"), by="region"),
        "forest": plp.forest(
            small.metrics.summary("y_true", "y_pred", by="region", ci=0.95, n_boot=50),
            metric="accuracy",
            by="region",
        ),
    }
    for name, chart in charts.items():
        _rendered(chart, tmp_path, name, least=120)


@pytest.mark.parametrize(
    ("function", "method", "args"),
    [
        (plp.reliability, "calibration_curve", ("is_cat", "cat_score")),
        (plp.threshold_metrics, "thresholds", ("is_cat", "cat_score")),
        (plp.gains, "gains", ("is_cat", "cat_score")),
    ],
)
def test_new_charts_refuse_merged_segments(df: pl.DataFrame, function, method, args) -> None:
    table = getattr(df.head(500).metrics, method)(*args, by=["region", "model_version"])
    with pytest.raises(ValueError, match=r"model_version.*pass them as by="):
        function(table, by="region")
    with pytest.raises(ValueError, match="several segments"):
        function(table.drop("region", "model_version"))
    with pytest.raises(ValueError, match=r"has no column"):
        function(pl.DataFrame({"region": ["a"]}), by="region")


def test_by_columns_named_like_the_chart_data(df: pl.DataFrame) -> None:
    renamed = df.head(600).rename({"region": "segment", "model_version": "value"})
    by = ["segment", "value"]
    chart = plp.roc_curve(renamed.metrics.roc_curve("is_cat", "cat_score", by=by), by=by)
    aucs = _method_values(renamed.metrics.roc_auc("is_cat", "cat_score", by=by), by, "roc_auc")
    got = _legends(pl.DataFrame(chart.layer[1].data), "auc")
    assert {key: value for key, (_, value) in got.items()} == pytest.approx(aucs, rel=1e-12)
    table = renamed.metrics.summary("y_true", "y_pred", by=by, ci=0.9, n_boot=50)
    data = _layer_data(plp.forest(table, metric="accuracy", by=by), 0)
    assert data["segment"].to_list() == _table_keys(table, by)
    assert data["value"].to_list() == table["accuracy"].to_list()


def test_a_segment_without_a_curve_keeps_its_legend_entry_and_colours_stay() -> None:
    """A segment without positives has no ROC curve: it stays in the legend, marked,
    and every segment has the same colour (the same place in the colour domain) in the
    ROC and the PR chart (it was dropped, shifting the colours of the others)."""
    df = pl.read_parquet(EXAMPLE).with_columns(
        pl.when(pl.col("region") == "eu").then(False).otherwise(pl.col("is_cat")).alias("is_cat")
    )
    roc = plp.roc_curve(df.metrics.roc_curve("is_cat", "cat_score", by="region"), by="region")
    pr = plp.pr_curve(df.metrics.pr_curve("is_cat", "cat_score", by="region"), by="region")

    def domain(chart: object) -> list[str]:
        spec = chart.to_dict()  # type: ignore[attr-defined]
        layers = spec.get("layer", [spec])
        return next(
            layer["encoding"]["color"]["scale"]["domain"]
            for layer in layers
            if "color" in layer.get("encoding", {})
        )

    roc_domain, pr_domain = domain(roc), domain(pr)
    assert [d.split(" (")[0] for d in roc_domain] == ["apac", "eu", "latam", "us"]
    assert [d.split(" (")[0] for d in pr_domain] == ["apac", "eu", "latam", "us"]
    assert roc_domain[1] == "eu (no curve: AUC undefined)"


@pytest.mark.parametrize("columns", [["x", "c"], ["c", "x"]])
def test_drift_by_segment_titles_each_column_over_its_own_bins(
    columns: list[str], tmp_path: Path
) -> None:
    """``drift(bins, by=)``: a column of panels per drifted column, in the order
    given, each titled with its name and holding that column's bins only, a row per
    segment (the row labels once, on the left).  The grid of both facets it
    replaces put "c" over x's bins when the columns' panels differ in width."""
    rng = np.random.default_rng(0)
    n = 400
    reference = pl.DataFrame({"x": rng.normal(size=n), "c": rng.choice(["a", "b"], n)})
    current = pl.DataFrame(
        {
            "x": rng.normal(size=n) + 0.3,
            "c": rng.choice(["a", "b", "z"], n),
            "seg": rng.choice(["s1", "s2"], n),
        }
    )
    bins = current.metrics.drift_bins(columns, reference=reference, by="seg")
    chart = plp.drift(bins, by="seg")
    spec = chart.to_dict()
    panels = spec["hconcat"]
    assert [p["title"]["text"] for p in panels] == columns
    (rows,) = [r for r in spec["datasets"].values() if "segment" in r[0]]
    for i, (panel, column) in enumerate(zip(panels, columns, strict=True)):
        assert panel["spec"]["transform"] == [{"filter": f"(datum.column === '{column}')"}]
        shown = {r["bin"] for r in rows if r["column"] == column}
        assert shown == set(bins.filter(pl.col("column") == column)["bin"].fill_null("(null)"))
        assert panel["facet"]["row"]["sort"] == ["s1", "s2"]
        assert panel["facet"]["row"]["header"]["labels"] is (i == 0)
    _rendered(chart, tmp_path, "drift_by", least=300)


def test_confusion_counts_read_as_counts() -> None:
    """Issue 49: the cells of 1,803,000 rows read ``1.803e+6`` (Vega's ``,.4~g``; 12,345
    read ``1.235e+4``); they read ``1.8M`` and ``12,345`` now, a weighted 12.5 as itself."""
    frame = pl.DataFrame(
        {
            "actual": [0, 0, 1, 1],
            "predicted": [0, 1, 0, 1],
            "count": [1_803_000.0, 12_345.0, 12.5, 999_999_999.0],
        }
    )
    chart = plp.confusion_matrix(frame)
    data = pl.DataFrame(chart.data).sort("actual", "predicted")
    assert data["shown"].to_list() == ["1.8M", "12,345", "12.5", "1B"]
    assert chart.to_dict()["layer"][1]["encoding"]["text"] == {"field": "shown", "type": "nominal"}
    assert plp.confusion_matrix.__module__ == "pl_metrics.plot"
    from pl_metrics.plot.tables import readable_count

    cases = {0: "0", 999_999: "999,999", 1_000_000: "1M", -2_500_000: "-2.5M", 3.4e13: "34T"}
    assert {v: readable_count(v) for v in cases} == cases
    assert readable_count(None) == readable_count(float("nan")) == ""
