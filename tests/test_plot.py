"""Charts render to non-trivial PNGs and carry the numbers of the frames they draw:
the ROC and PR curves, the confusion matrix and per-class charts, the segments'
order and the legends (the newer charts: ``test_plot_new_charts.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from _plot_helpers import CLASSES, _legends, _method_values, _rendered, _table_keys
from _plot_helpers import df as example_frame  # noqa: F401 - the fixture `df`
from sklearn.metrics import (
    average_precision_score,
    confusion_matrix,
    recall_score,
    roc_auc_score,
)

import pl_metrics.plot as plp  # needs the `plot` extra, part of the `test` extra


@pytest.mark.parametrize("absent", ["altair", "vl_convert"])
def test_without_the_plot_extra_the_error_names_it(absent: str) -> None:
    """Issue 26: `import pl_metrics.plot` without Altair said only "No module named
    'altair'"; it names the extra, with html_report's message (one home; the CLI's
    --plot shows it too)."""
    code = f"""
import sys
sys.modules[{absent!r}] = None  # the module absent
import polars as pl
import pl_metrics
df = pl.DataFrame({{"y": [0, 1], "p": [0, 1]}})
for call in (lambda: __import__("pl_metrics.plot"), lambda: df.metrics.html_report("y", "p")):
    try:
        call()
    except ModuleNotFoundError as exc:
        print(exc)
    else:
        raise AssertionError("no error without " + {absent!r})
"""
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"pl_metrics.plot needs {absent} (the charts): pip install 'pl_metrics[plot]'",
        f"html_report needs {absent} (the charts): pip install 'pl_metrics[plot]'",
    ]


def _sklearn_per_segment(df: pl.DataFrame, by: list[str], score) -> dict[str, float]:
    """scikit-learn's ``score(is_cat, cat_score)`` of each segment's rows, by its chart name."""
    out = {}
    for key, seg in df.group_by(by):
        name = " / ".join("null" if k is None else str(k) for k in key)
        out[name] = score(seg["is_cat"].to_numpy(), seg["cat_score"].to_numpy())
    return out


@pytest.mark.parametrize("by", [["region"], ["region", "model_version"]])
def test_roc_curve_chart_has_auc_in_legend(df: pl.DataFrame, tmp_path: Path, by) -> None:
    curve = df.metrics.roc_curve("is_cat", "cat_score", by=by)
    chart = plp.roc_curve(curve, by=by if len(by) > 1 else by[0])
    _rendered(chart, tmp_path, "roc")
    data = pl.DataFrame(chart.layer[1].data)
    expected = _sklearn_per_segment(df, by, roc_auc_score)
    got = _legends(data, "auc")
    assert sorted(got) == sorted(expected)  # one line per combined key, none merged
    for segment, auc in expected.items():
        assert got[segment][1] == pytest.approx(auc, rel=1e-12)
        assert got[segment][0] == f"{segment} (AUC {auc:.3f})"
    assert chart.to_dict()["layer"][1]["encoding"]["color"]["title"] == " / ".join(by)


@pytest.mark.parametrize("by", [["region"], ["region", "model_version"]])
def test_pr_curve_chart_has_ap_in_legend(df: pl.DataFrame, tmp_path: Path, by) -> None:
    chart = plp.pr_curve(df.metrics.pr_curve("is_cat", "cat_score", by=by), by=by)
    _rendered(chart, tmp_path, "pr")
    expected = _sklearn_per_segment(df, by, average_precision_score)
    got = _legends(pl.DataFrame(chart.data), "ap")
    assert sorted(got) == sorted(expected)
    for segment, ap in expected.items():
        assert got[segment][1] == pytest.approx(ap, rel=1e-12)
        assert got[segment][0] == f"{segment} (AP {ap:.3f})"


def test_curve_areas_do_not_depend_on_row_order(df: pl.DataFrame) -> None:
    by = ["region", "model_version"]
    roc = df.metrics.roc_curve("is_cat", "cat_score", by=by).sample(
        fraction=1.0, shuffle=True, seed=1
    )
    pr = df.metrics.pr_curve("is_cat", "cat_score", by=by).sample(
        fraction=1.0, shuffle=True, seed=2
    )
    rocs = _legends(pl.DataFrame(plp.roc_curve(roc, by=by).layer[1].data), "auc")
    prs = _legends(pl.DataFrame(plp.pr_curve(pr, by=by).data), "ap")
    for segment, auc in _sklearn_per_segment(df, by, roc_auc_score).items():
        assert rocs[segment][1] == pytest.approx(auc, rel=1e-12)
    for segment, ap in _sklearn_per_segment(df, by, average_precision_score).items():
        assert prs[segment][1] == pytest.approx(ap, rel=1e-12)


def test_areas_of_a_hand_computed_curve() -> None:
    # y = [0, 0, 1, 1], scores [0.1, 0.4, 0.35, 0.8]: sklearn's ROC points (0,0), (0,.5),
    # (.5,.5), (.5,1), (1,1): AUC = .5 * .5 + .5 * 1 = 0.75.  PR points (recall, precision)
    # in curve order: (1, 1/2), (1, 2/3), (.5, 1/2), (.5, 1), (0, 1): AP = sum of
    # (recall[i] - recall[i+1]) * precision[i] = 0 + .5 * 2/3 + 0 + .5 * 1 = 5/6.
    frame = pl.DataFrame({"y": [0, 0, 1, 1], "s": [0.1, 0.4, 0.35, 0.8]})
    roc = plp.roc_curve(frame.metrics.roc_curve("y", "s").reverse())
    assert pl.DataFrame(roc.layer[1].data)["auc"][0] == pytest.approx(0.75)
    pr = plp.pr_curve(frame.metrics.pr_curve("y", "s").reverse())
    assert pl.DataFrame(pr.data)["ap"][0] == pytest.approx(5 / 6)
    assert pl.DataFrame(pr.data)["legend"][0] == "all (AP 0.833)"


def _frames(df: pl.DataFrame, by: list[str]) -> dict:
    return {
        plp.roc_curve: df.metrics.roc_curve("is_cat", "cat_score", by=by),
        plp.pr_curve: df.metrics.pr_curve("is_cat", "cat_score", by=by),
        plp.confusion_matrix: df.metrics.confusion_matrix("y_true", "y_pred", by=by),
        plp.per_class: df.metrics.report("y_true", "y_pred", by=by),
    }


@pytest.mark.parametrize("given", [None, "region", ["region"]])
def test_segment_columns_not_in_by_are_refused(df: pl.DataFrame, given) -> None:
    for function, frame in _frames(df, ["region", "model_version"]).items():
        with pytest.raises(ValueError, match=r"model_version.*pass them as by="):
            function(frame, by=given)


def test_segments_merged_before_the_call_are_refused(df: pl.DataFrame) -> None:
    for function, frame in _frames(df, ["region"]).items():
        with pytest.raises(ValueError, match="several segments"):
            function(frame.drop("region"))
    with pytest.raises(ValueError, match=r"by column\(s\) \['nope'\] not in the frame"):
        plp.roc_curve(_frames(df, ["region"])[plp.roc_curve], by=["region", "nope"])


def test_confusion_and_per_class_facet_per_combined_key(df: pl.DataFrame) -> None:
    by = ["region", "model_version"]
    keys = [f"{r} / {v}" for r, v in df.select(by).unique().sort(by).rows()]
    cm = plp.confusion_matrix(df.metrics.confusion_matrix("y_true", "y_pred", by=by), by=by)
    spec = cm.to_dict()
    assert spec["facet"]["field"] == "segment"
    assert spec["facet"]["sort"] == keys
    assert spec["facet"]["title"] == "region / model_version"
    data = pl.DataFrame(cm.data)
    # each panel holds one segment's 4 x 4 cells, its counts those of sklearn on its rows
    for (region, version), seg in df.group_by(by):
        cells = data.filter(pl.col("segment") == f"{region} / {version}").sort(
            "actual", "predicted"
        )
        labels = sorted(set(seg["y_true"]) | set(seg["y_pred"]))
        expected = confusion_matrix(seg["y_true"], seg["y_pred"], labels=labels)
        assert cells["count"].to_list() == expected.ravel().tolist()
        rates = cells.group_by("actual").agg(pl.col("rate").sum())["rate"]
        assert rates.to_list() == pytest.approx([1.0] * len(labels))  # row-normalised
    pc = plp.per_class(df.metrics.report("y_true", "y_pred", by=by), by=by)
    spec = pc.to_dict()
    assert spec["facet"]["column"] == {
        "field": "metric",
        "sort": ["precision", "recall", "f1"],
        "title": None,
        "type": "nominal",
    }
    color = spec["spec"]["encoding"]["color"]
    assert (color["field"], color["sort"]) == ("segment", keys)  # one colour per combined key
    dots = pl.DataFrame(pc.data)
    assert dots.height == len(keys) * 4 * 3  # segments x classes x metrics, nothing merged
    seg = df.filter(pl.col("region") == "eu", pl.col("model_version") == "v2")
    got = dots.filter(pl.col("segment") == "eu / v2", pl.col("metric") == "recall").sort("label")
    labels = sorted(set(seg["y_true"]))
    expected = recall_score(seg["y_true"], seg["y_pred"], labels=labels, average=None)
    assert got["value"].to_list() == pytest.approx(expected.tolist(), rel=1e-12)


def test_null_segment_reads_null_everywhere(df: pl.DataFrame) -> None:
    region = pl.when(pl.col("region") != "eu").then(pl.col("region"))  # eu -> null
    nulls = df.with_columns(region.alias("region"))
    roc = plp.roc_curve(nulls.metrics.roc_curve("is_cat", "cat_score", by="region"), by="region")
    expected = _sklearn_per_segment(nulls, ["region"], roc_auc_score)
    assert _legends(pl.DataFrame(roc.layer[1].data), "auc")["null"][0] == (
        f"null (AUC {expected['null']:.3f})"
    )
    cm = plp.confusion_matrix(
        nulls.metrics.confusion_matrix("y_true", "y_pred", by="region"), by="region"
    )
    pc = plp.per_class(nulls.metrics.per_class("y_true", "y_pred", by="region"), by="region")
    for chart in (cm, pc):
        assert set(pl.DataFrame(chart.data)["segment"]) == {"apac", "latam", "us", "null"}
        assert None not in pl.DataFrame(chart.data)["segment"].to_list()


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


# --- the order of the tables, nulls and keys that read alike ---------------------------


def _with_null_region(df: pl.DataFrame) -> pl.DataFrame:
    """eu -> null, rows shuffled: the charts' order cannot come from the rows' order."""
    region = pl.when(pl.col("region") != "eu").then(pl.col("region"))
    return df.with_columns(region.alias("region")).sample(fraction=1.0, shuffle=True, seed=3)


@pytest.mark.parametrize("by", [["region"], ["model_version", "region"]])
def test_segments_in_the_order_of_the_tables_null_last(df: pl.DataFrame, by) -> None:
    nulls = _with_null_region(df)
    keys = _table_keys(nulls.metrics.summary("y_true", "y_pred", by=by), by)
    assert "null" in keys[-1]  # the tables put the null segment last
    shuffled = {"fraction": 1.0, "shuffle": True, "seed": 4}
    roc = plp.roc_curve(
        nulls.metrics.roc_curve("is_cat", "cat_score", by=by).sample(**shuffled), by=by
    )
    legend = roc.to_dict()["layer"][1]["encoding"]["color"]["sort"]
    assert [name.split(" (AUC")[0] for name in legend] == keys
    cm = plp.confusion_matrix(nulls.metrics.confusion_matrix("y_true", "y_pred", by=by), by=by)
    assert cm.to_dict()["facet"]["sort"] == keys
    pc = plp.per_class(nulls.metrics.per_class("y_true", "y_pred", by=by).sample(**shuffled), by=by)
    assert pc.to_dict()["spec"]["encoding"]["color"]["sort"] == keys
    summary = nulls.metrics.summary("y_true", "y_pred", by=by, ci=0.95).sample(**shuffled)
    fp = plp.forest(summary, metric="accuracy", by=by)
    assert fp.to_dict()["layer"][0]["encoding"]["y"]["sort"] == keys
    rel = plp.reliability(nulls.metrics.calibration_curve("is_cat", "cat_score", by=by), by=by)
    assert rel.to_dict()["layer"][1]["encoding"]["color"]["sort"] == keys


def test_keys_that_read_alike_stay_apart() -> None:
    frame = pl.DataFrame(
        {
            "a": ["x / y", "x / y", "x", "x"],
            "b": ["z", "z", "y / z", "y / z"],
            "y": [0, 1, 0, 1],
            "s": [0.2, 0.8, 0.7, 0.3],
        }
    )
    chart = plp.roc_curve(
        pl.concat(
            [
                part.metrics.roc_curve("y", "s").with_columns(a=pl.lit(a), b=pl.lit(b))
                for (a, b), part in frame.group_by("a", "b", maintain_order=True)
            ]
        ),
        by=["a", "b"],
    )
    data = pl.DataFrame(chart.layer[1].data)
    assert data["segment"].unique().sort().to_list() == ["x / y / z", "x / y / z [2]"]
    assert data["legend"].n_unique() == 2  # two colours, two legend entries
    assert sorted(data.unique("segment_id")["auc"].to_list()) == [0.0, 1.0]


# --- legends: the numbers of the frame methods ------------------------------------------


@pytest.mark.parametrize("by", [["region"], ["region", "model_version"]])
def test_legends_equal_the_methods(df: pl.DataFrame, by) -> None:
    nulls = _with_null_region(df)
    roc = plp.roc_curve(nulls.metrics.roc_curve("is_cat", "cat_score", by=by), by=by)
    pr = plp.pr_curve(nulls.metrics.pr_curve("is_cat", "cat_score", by=by), by=by)
    aucs = _method_values(nulls.metrics.roc_auc("is_cat", "cat_score", by=by), by, "roc_auc")
    aps = _method_values(
        nulls.metrics.average_precision("is_cat", "cat_score", by=by), by, "average_precision"
    )
    for chart, expected, name, column in ((roc, aucs, "AUC", "auc"), (pr, aps, "AP", "ap")):
        spec = chart.to_dict()
        layer = spec["layer"][1] if "layer" in spec else spec
        shown = layer["encoding"]["color"]["sort"]
        assert shown == [f"{key} ({name} {value:.3f})" for key, value in expected.items()]
        got = _legends(pl.DataFrame(chart.layer[1].data if "layer" in spec else chart.data), column)
        for key, value in expected.items():
            assert got[key][1] == pytest.approx(value, rel=1e-12, abs=1e-15)


def _one_vs_rest(df: pl.DataFrame, method: str, by: list[str]) -> pl.DataFrame:
    return pl.concat(
        [
            getattr(df.with_columns(pl.col("y_true") == c).metrics, method)(
                "y_true", f"p_{c}", **({"by": by} if by else {})
            ).with_columns(label=pl.lit(c))
            for c in CLASSES
        ]
    )


@pytest.mark.parametrize("by", [[], ["region"]])
def test_one_vs_rest_curves_one_per_class(df: pl.DataFrame, by) -> None:
    small = df.head(1200)
    roc = plp.roc_curve(_one_vs_rest(small, "roc_curve", by), by=by or None)
    pr = plp.pr_curve(_one_vs_rest(small, "pr_curve", by), by=by or None)
    keys = [*by, "label"]
    ovr = small.with_columns(pl.col("y_true").alias("_y"))
    for chart, method, column, area in (
        (roc, "roc_auc", "roc_auc", "auc"),
        (pr, "average_precision", "average_precision", "ap"),
    ):
        expected = {}
        for c in CLASSES:
            table = getattr(ovr.with_columns(pl.col("_y") == c).metrics, method)(
                "_y", f"p_{c}", **({"by": by} if by else {})
            ).with_columns(label=pl.lit(c))
            expected |= _method_values(table, keys, column)
        data = pl.DataFrame(chart.layer[1].data if area == "auc" else chart.data)
        got = _legends(data, area)
        assert sorted(got) == sorted(expected)  # one curve per class (and segment)
        for key, value in expected.items():
            assert got[key][1] == pytest.approx(value, rel=1e-12)
            assert got[key][0] == f"{key} ({area.upper()} {value:.3f})"
