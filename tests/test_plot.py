"""Charts render to non-trivial PNGs and carry the numbers of the frames they draw."""

from __future__ import annotations

import struct
from pathlib import Path

import polars as pl
import pytest
from sklearn.metrics import (
    average_precision_score,
    confusion_matrix,
    recall_score,
    roc_auc_score,
)

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


def _sklearn_per_segment(df: pl.DataFrame, by: list[str], score) -> dict[str, float]:
    """scikit-learn's ``score(is_cat, cat_score)`` of each segment's rows, by its chart name."""
    out = {}
    for key, seg in df.group_by(by):
        name = " / ".join("null" if k is None else str(k) for k in key)
        out[name] = score(seg["is_cat"].to_numpy(), seg["cat_score"].to_numpy())
    return out


def _legends(data: pl.DataFrame, column: str) -> dict[str, tuple[str, float]]:
    rows = data.unique("segment_id").select("segment", "legend", column).rows()
    return {segment: (legend, value) for segment, legend, value in rows}


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
    assert spec["facet"]["row"]["field"] == "segment"
    assert spec["facet"]["row"]["sort"] == keys
    bars = pl.DataFrame(pc.data)
    assert bars.height == len(keys) * 4 * 3  # segments x classes x metrics, nothing stacked
    seg = df.filter(pl.col("region") == "eu", pl.col("model_version") == "v2")
    got = bars.filter(pl.col("segment") == "eu / v2", pl.col("metric") == "recall").sort("label")
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
