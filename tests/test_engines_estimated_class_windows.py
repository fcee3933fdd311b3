"""over_time and check with the estimated metrics of ``{label: column}`` scores
(multiclass CBPE per window and in gates) on the engines: equal to the frame method
on the same rows however they are partitioned (an empty partition, a segment and a
bucket in one partition only, a class predicted in one partition only, uneven cuts),
with weights, rolling windows, the reference as an expression or a second frame, and
the count metrics' intervals; the ROC AUC averages' intervals refused before any job.

The frame method is the oracle (itself checked window by window against
estimated_performance and scikit-learn in tests/test_estimated_multiclass_windows.py
and tests/test_check_estimated.py).  Dask on its default scheduler (threads); Spark
in one test (one session: tests/conftest.py).
"""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from test_engines_estimated import no_jobs  # noqa: F401  (a fixture)
from test_engines_estimated_classes import _files, _uneven

import pl_metrics  # noqa: F401  (registers the .metrics namespace)
import pl_metrics.dask as pmd
import pl_metrics.spark as pms
from pl_metrics import DataError
from pl_metrics._engines import estimated as engine_estimated

START = dt.date(2026, 3, 1)
DAYS = 12
#: The reference rows: the first four days (labelled).
REFERENCE = pl.col("day") < START + dt.timedelta(days=4)
#: The mapping's keys out of order (the frame method sorts them); class 3 has a score
#: column, no true row and three predicted rows (the first partition's).
SCORES = {2: "s2", 0: "s0", 3: "s3", 1: "s1"}


def _rows(seed: int, n: int = 500, *, ties: bool = False) -> pl.DataFrame:
    """Rows over :data:`DAYS` days: scores that are probabilities (some rows all 0:
    1 / K each), the label drawn from them, unlabelled (null) on the last three days;
    segments of uneven sizes ("d": a handful of rows, all on the last day, so a
    segment and a bucket of one partition), weights spanning 1e-3 .. 1e3 and zero."""
    rng = np.random.default_rng(seed)
    s = rng.dirichlet([1.0, 1.0, 1.0, 0.2], n)
    if ties:
        s = np.round(s, 1)
    s[rng.random(n) < 0.02] = 0.0
    y = np.array([rng.choice(3, p=r[:3] / r[:3].sum()) if r[:3].sum() else 0 for r in s])
    pred = s[:, :3].argmax(axis=1)
    pred[:3] = 3
    segment = rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.17, 0.03])
    day = rng.integers(0, DAYS - 1, n)
    day[segment == "d"] = DAYS - 1
    weight = 10.0 ** rng.uniform(-3, 3, n)
    weight[rng.random(n) < 0.05] = 0.0
    df = pl.DataFrame(
        {
            "day": [START + dt.timedelta(days=int(d)) for d in day],
            "g": segment,
            "y": y,
            "pred": pred,
            **{f"s{i}": s[:, i] for i in range(4)},
            "w": weight,
        }
    )
    unlabelled = pl.col("day") >= START + dt.timedelta(days=DAYS - 3)
    return df.with_columns(pl.when(unlabelled).then(None).otherwise(pl.col("y")).alias("y"))


def _same(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    assert_frame_equal(got, expected, rel_tol=1e-9, abs_tol=1e-12)


COLUMNS: dict[str, Any] = {"y_pred": "pred", "y_score": SCORES, "index": "day"}
COUNTED = [
    "estimated_f1_macro",
    "estimated_jaccard_weighted",
    "estimated_specificity_micro",
    "estimated_fowlkes_mallows_macro",
    "estimated_accuracy",
]
CASES: list[dict[str, Any]] = [
    # beside the realized average (of the labelled days), rolling, by segment
    {"metrics": ["f1_macro", "estimated_f1_macro", "estimated_roc_auc_weighted",
                 "estimated_precision_micro", "estimated_accuracy"],
     "reference": REFERENCE, "every": "1d", "period": "2d", "by": "g"},
    # weights, the ROC AUC's averages from each class's score ranges
    {"metrics": ["estimated_roc_auc_macro", "estimated_recall_weighted", "estimated_accuracy"],
     "reference": REFERENCE, "every": "1d", "weight": "w"},
    # the count metrics' intervals (over_time's take un-weighted rows), the scores as
    # probabilities
    {"metrics": COUNTED, "calibration": None, "every": "1d", "period": "3d", "by": "g",
     "ci": 0.9},
    # ... calibrated, beside the realized metric's interval
    {"metrics": ["f1_macro", "estimated_precision_macro", "estimated_accuracy"],
     "reference": REFERENCE, "every": "2d", "by": "g", "ci": 0.8},
]  # fmt: skip


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_over_time_equals_the_frame_method_on_uneven_partitions(
    case: int, ties: bool, tmp_path: Path
) -> None:
    df = _rows(case, ties=ties)
    kw = COLUMNS | CASES[case]
    expected = df.metrics.over_time("y", **kw)
    estimated = expected.filter(pl.col("metric").str.starts_with("estimated_"))
    # the unlabelled days are estimated too
    assert estimated.get_column("window_end").max() > START + dt.timedelta(days=DAYS - 2)
    if "ci" in kw:
        assert (estimated["high"] - estimated["low"]).drop_nulls().gt(1e-3).any()
    paths = _files(tmp_path, _uneven(df, case))
    _same(pmd.over_time(paths, "y", **kw), expected)


def test_the_driver_holds_partitions_x_segments_x_windows_x_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the driver merges: a summary row per partition, segment, window and class
    (one job of all classes without the ROC AUC), never a row per score."""
    seen: list[int] = []
    finish = engine_estimated._finish

    def spy(summaries: pl.DataFrame, *args: Any, **kw: Any) -> pl.DataFrame:
        seen.append(summaries.height)
        return finish(summaries, *args, **kw)

    monkeypatch.setattr(engine_estimated, "_finish", spy)
    df = _rows(5, n=3000)
    kw = COLUMNS | CASES[2]
    parts = _uneven(df, 5)
    _same(pmd.over_time(_files(tmp_path, parts), "y", **kw), df.metrics.over_time("y", **kw))
    windows = df.get_column("day").n_unique() + 2  # rolling: two windows past the first day
    assert len(seen) == 1
    assert 0 < seen[0] <= len(parts) * df.get_column("g").n_unique() * windows * len(SCORES)
    assert seen[0] < df.height


CHECKS: dict[str, dict[str, Any]] = {
    "point estimates, the ROC AUC's average": {
        "rules": ["estimated_f1_macro >= 0.5", "estimated_roc_auc_macro > 0.7",
                  "estimated_accuracy >= reference - 0.05", "estimated_recall_weighted < 0.9"],
        "by": "g", "reference": REFERENCE, "ci": None,
    },
    "the count metrics' intervals": {
        "rules": ["estimated_f1_macro >= 0.5", "estimated_precision_weighted > 0.6",
                  "estimated_jaccard_micro <= reference + 0.05", "estimated_accuracy > 0.6"],
        "by": "g", "reference": REFERENCE, "ci": 0.9,
    },
    "no by, another reference": {
        "rules": ["estimated_fowlkes_mallows_macro >= 0.55", "estimated_accuracy > 0.6"],
        "reference": pl.col("day").dt.day().is_between(5, 8), "ci": 0.8,
    },
}  # fmt: skip


@pytest.mark.parametrize("case", list(CHECKS))
def test_check_equals_the_frame_method(case: str, tmp_path: Path) -> None:
    df = _rows(7)
    kw = {"y_true": "y", "y_pred": "pred", "y_score": SCORES} | CHECKS[case]
    expected = df.metrics.check(**kw)
    assert expected.height
    _same(pmd.check(_files(tmp_path, _uneven(df, 7)), **kw), expected)


def test_check_with_the_reference_in_files_of_its_own(tmp_path: Path) -> None:
    """The reference rows a second frame of the engine: the maps fitted on them, the
    reference rules' values read from them."""
    df = _rows(8)
    current, reference = df.filter(~REFERENCE), df.filter(REFERENCE)
    kw = {"y_true": "y", "y_pred": "pred", "y_score": SCORES} | CHECKS[
        "the count metrics' intervals"
    ]
    kw.pop("reference")
    expected = current.metrics.check(**kw, reference=reference)
    refs = _files(tmp_path, [reference.head(40), reference.clear(), reference.tail(-40)], "ref")
    _same(pmd.check(_files(tmp_path, _uneven(current, 8)), **kw, reference=refs), expected)


@pytest.mark.usefixtures("no_jobs")
def test_the_roc_auc_averages_intervals_are_refused_before_any_job(tmp_path: Path) -> None:
    """The interval of the ROC AUC's macro / weighted average holds each row's
    placements in two classes' rankings: refused on the driver, naming the metric and
    what to do."""
    paths = _files(tmp_path, [_rows(0, n=40)])
    refused = r"pl_metrics engines: {} of {{label: column}} scores with ci and {} .*leave"
    with pytest.raises(
        NotImplementedError, match=refused.format("over_time", "estimated_roc_auc_weighted")
    ):
        pmd.over_time(
            paths, "y", **COLUMNS, every="1d", reference=REFERENCE, ci=0.9,
            metrics=["estimated_f1_macro", "estimated_roc_auc_weighted"],
        )  # fmt: skip
    with pytest.raises(
        NotImplementedError, match=refused.format("check", "estimated_roc_auc_macro")
    ):
        pmd.check(
            paths, ["estimated_f1_macro > 0.5", "estimated_roc_auc_macro > 0.5"], y_true="y",
            y_pred="pred", y_score=SCORES, reference=REFERENCE, ci=0.9,
        )  # fmt: skip


@given(
    seed=st.integers(0, 2**16),
    n=st.integers(20, 120),
    cuts=st.lists(st.integers(0, 120), max_size=4),
    weighted=st.booleans(),
    calibrated=st.booleans(),
    ci=st.sampled_from([None, 0.9]),
)
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_hypothesis_rows_partitions_and_windows(
    seed: int,
    n: int,
    cuts: list[int],
    weighted: bool,
    calibrated: bool,
    ci: float | None,
    tmp_path: Path,
) -> None:
    """Any rows cut anywhere: the frame method's windows, or its error (a reference
    without rows of a class, say)."""
    df = _rows(seed, n=n, ties=seed % 2 == 0)
    kw = COLUMNS | {"every": "1d", "period": "2d", "by": "g", "weight": "w" if weighted else None}
    kw |= {"metrics": ["f1_macro", *COUNTED], "ci": None if weighted else ci}
    kw |= {"reference": REFERENCE} if calibrated else {"calibration": None}
    bounds = [0, *sorted(min(c, n) for c in cuts), n]
    folder = tmp_path / f"{seed}_{n}_{len(cuts)}"
    folder.mkdir(exist_ok=True)
    paths = _files(folder, [df.slice(a, b - a) for a, b in itertools.pairwise(bounds)])
    try:
        expected = df.metrics.over_time("y", **kw)
    except DataError:
        with pytest.raises(DataError):
            pmd.over_time(paths, "y", **kw)
        return
    _same(pmd.over_time(paths, "y", **kw), expected)


def test_spark_equals_the_frame_method(spark: Any) -> None:
    """over_time's count intervals and a gate, on Spark partitions."""
    df = _rows(9, n=300)
    sdf = spark.createDataFrame(df.to_arrow()).repartition(3)
    kw = COLUMNS | CASES[2]
    _same(pms.over_time(sdf, "y", **kw), df.metrics.over_time("y", **kw))
    gate = {"y_true": "y", "y_pred": "pred", "y_score": SCORES} | CHECKS[
        "point estimates, the ROC AUC's average"
    ]
    _same(pms.check(sdf, **gate), df.metrics.check(**gate))
