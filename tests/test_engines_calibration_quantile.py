"""Calibration's quantile bins on the engines (``pl_metrics/_engines/calibration_edges.py``):
each segment's edges from counts of all its rows, equal to the frame method on rows
split into Parquet files, over hypothesis-generated rows, partitions and weights (none,
fractional, whole, equal) and the hard cases (ties, a segment in one file, an empty
file, a null segment, many slices of the value range); weights whose quantile falls
within the rounding of a running sum are refused, never guessed.

The frame method is checked against scikit-learn in tests/test_probability*.py and
tests/test_calibration*.py; here it is the oracle (the engine law of
tests/registry/test_engines.py runs the registry's entries on Spark and Dask too).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from registry.entries import same

import pl_metrics.dask as pmd
from pl_metrics._drift import metrics as drift_metrics
from pl_metrics._engines import calibration_edges

MAPPING = {0: "q0", 1: "q1", 2: "q2"}


def _files(root: Path, parts: list[pl.DataFrame]) -> list[str]:
    paths = []
    for i, part in enumerate(parts):
        paths.append(str(root / f"part{i}.parquet"))
        part.write_parquet(paths[-1])
    return paths


def _calls(weight: str | None, n_bins: int) -> list[tuple[str, str, Any, dict[str, Any]]]:
    common = {"strategy": "quantile", "weight": weight, "n_bins": n_bins}
    return [
        ("calibration_curve", "yb", "s", {**common, "pos_label": 1}),
        ("calibration_error", "yb", "s", {**common, "pos_label": 1}),
        ("calibration_curve", "y", MAPPING, common),  # top label
        ("calibration_error", "y", MAPPING, {**common, "multi_class": "per_class"}),
    ]


def _check(root: Path, parts: list[pl.DataFrame], by: Any, weight: str | None, n_bins: int) -> None:
    paths = _files(root, parts)
    rows = pl.concat(parts)
    for method, y_true, y_prob, options in _calls(weight, n_bins):
        expected = getattr(rows.metrics, method)(y_true, y_prob, by=by, **options)
        same(getattr(pmd, method)(paths, y_true, y_prob, by=by, **options), expected)


@st.composite
def _rows(draw: st.DrawFn) -> tuple[pl.DataFrame, list[int]]:
    """Binary and class probabilities with ties, four kinds of weights, a null
    segment; cuts into files."""
    n = draw(st.integers(1, 50))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    decimals = draw(st.sampled_from([1, 2, 6]))
    raw = np.round(rng.random((n, 3)), decimals) + 0.01
    q = raw / raw.sum(axis=1, keepdims=True)
    frame = pl.DataFrame(
        {
            "y": rng.integers(0, 3, n),
            "yb": rng.integers(0, 2, n),
            "s": np.round(rng.random(n), decimals),
            "g": pl.Series([("a", "b", None)[k] for k in rng.integers(0, 3, n)], dtype=pl.String),
            "q0": q[:, 0],
            "q1": q[:, 1],
            "q2": 1.0 - q[:, 0] - q[:, 1],
            "wf": rng.random(n) * 10 + 0.01,  # fractional: the float positions
            "wi": rng.integers(1, 5, n).astype(np.float64),  # whole: exact in Int128
            "we": np.full(n, 0.3),  # equal: the rows' ranks
        }
    )
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    return frame, [0, *cuts, n]


@settings(
    max_examples=15,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # an example costs seconds
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    drawn=_rows(),
    by=st.sampled_from([None, "g"]),
    weight=st.sampled_from([None, "wf", "wi", "we"]),
    n_bins=st.sampled_from([2, 3, 5, 10]),
)
def test_quantile_bins_equal_the_frame_method(
    drawn: tuple[pl.DataFrame, list[int]],
    by: str | None,
    weight: str | None,
    n_bins: int,
    tmp_path: Path,
) -> None:
    """Uneven files (some empty: equal cuts): binary, top label and per class, the
    frame method's bins (its edges, to the bit: a row on the other side of an edge
    would move a bin's counts)."""
    frame, cuts = drawn
    parts = [frame[a:b] for a, b in itertools.pairwise(cuts)]
    _check(tmp_path, parts, by, weight, n_bins)


def _many(n: int = 400, seed: int = 5) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame(
        {
            "yb": rng.integers(0, 2, n),
            "s": np.round(rng.random(n), 3),
            "g": rng.choice(["a", "b", "c"], n),
            "wf": rng.random(n) + 0.1,
        }
    )


def test_the_values_are_read_in_slices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above ``drift_metrics.SLICE`` values the driver reads one slice of the value range at a time
    (bounds from a hashed sample, drift's): the same bins; a segment of one file."""
    frame = _many()
    monkeypatch.setattr(drift_metrics, "SLICE", 60)
    monkeypatch.setattr(drift_metrics, "SAMPLE", 50)
    made: list[tuple[str, float, float]] = []
    job = calibration_edges.jobs.job

    def spy(method: str, *args: Any, **kwargs: Any) -> Any:
        made.append((method, kwargs.get("low", 0.0), kwargs.get("high", 0.0)))
        return job(method, *args, **kwargs)

    monkeypatch.setattr(calibration_edges.jobs, "job", spy)
    paths = _files(tmp_path, [frame.filter(pl.col("g") == "c"), frame.filter(pl.col("g") != "c")])
    for weight in (None, "wf"):
        made.clear()
        options = {"strategy": "quantile", "n_bins": 6, "by": "g", "pos_label": 1, "weight": weight}
        same(
            pmd.calibration_curve(paths, "yb", "s", **options),
            frame.metrics.calibration_curve("yb", "s", **options),
        )
        slices = [m for m in made if m[0] == "calibration_values" and m[1] != m[2]]
        assert len(slices) > 2  # the sample, then several slices
        assert [m[0] for m in made][:1] == ["calibration_totals"]
        assert made[-1][0] == "calibration_sums"


def test_quantile_bins_differ_from_uniform_bins(tmp_path: Path) -> None:
    """The engines cut at the quantiles, not at the uniform edges (scores crowded low)."""
    frame = _many().with_columns(pl.col("s") ** 4)
    paths = _files(tmp_path, [frame[:150], frame[150:]])
    quantile = pmd.calibration_curve(paths, "yb", "s", strategy="quantile", pos_label=1)
    uniform = pmd.calibration_curve(paths, "yb", "s", pos_label=1)
    assert quantile["count"].to_list() != uniform["count"].to_list()
    same(quantile, frame.metrics.calibration_curve("yb", "s", strategy="quantile", pos_label=1))


def test_a_quantile_within_the_rounding_of_the_weights_is_refused(tmp_path: Path) -> None:
    """Weights 0.2, 0.1, 0.3 (in the order of their scores): the median's position 0.2
    x 3 equals the total 0.2 + 0.1 + 0.3 in floats, a tie that the frame method breaks
    by the rounding of its sums in its rows' order: refused, never guessed; whole
    weights of the same shape are exact."""
    frame = pl.DataFrame({"yb": [0, 1, 1], "s": [0.1, 0.5, 0.9], "w": [0.2, 0.1, 0.3]})
    assert 0.2 * 3 == 0.2 + 0.1 + 0.3  # the tie, in floats
    paths = _files(tmp_path, [frame[:1], frame[1:]])
    options = {"strategy": "quantile", "n_bins": 2, "pos_label": 1}
    with pytest.raises(NotImplementedError, match=r"pl_metrics engines: calibration_curve .*w"):
        pmd.calibration_curve(paths, "yb", "s", weight="w", **options)
    whole = frame.with_columns(pl.col("w") * 10)
    paths = _files(tmp_path, [whole[:1], whole[1:]])
    same(
        pmd.calibration_curve(paths, "yb", "s", weight="w", **options),
        whole.metrics.calibration_curve("yb", "s", weight="w", **options),
    )


def test_bad_rows_are_counted_over_all_files(tmp_path: Path) -> None:
    """A probability outside [0, 1] in each file: the frame method's error on all the
    rows (the counts summed), before the values are read."""
    parts = [
        pl.DataFrame({"yb": [0, 1, 1], "s": [0.1, 1.5, 0.3]}),
        pl.DataFrame({"yb": [1, 0], "s": [-0.5, 0.2]}),
    ]
    paths = _files(tmp_path, parts)
    options = {"strategy": "quantile", "pos_label": 1}
    with pytest.raises(Exception) as expected:  # noqa: PT011 - the frame method's
        pl.concat(parts).metrics.calibration_curve("yb", "s", **options)
    with pytest.raises(type(expected.value)) as got:
        pmd.calibration_curve(paths, "yb", "s", **options)
    assert str(got.value).endswith(f"part1.parquet: {expected.value}")
