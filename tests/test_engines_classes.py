"""Multiclass scores (``{label: column}``, one-vs-rest) on the engines
(``pl_metrics/_engines/class_scores.py``, ``classes.py``): equal to the frame method on
rows split into Parquet files, over hypothesis-generated rows and partitions and the
hard cases (ties, a class absent from a partition or from all rows, one class, string
labels, a null segment, an empty file); the exact path of un-weighted rows never makes
the per-score state; what no merged state holds is refused before any job.

The frame method is checked against scikit-learn in tests/test_multiclass*.py; here
it is the oracle (the engine law of tests/registry/test_engines.py runs the registry's
entries on Spark and Dask too).
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
from pl_metrics._engines import classes

MAPPING = {0: "q0", 1: "q1", 2: "q2"}
#: (method, options) run on every example: per class, the means, the curves, weighted.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("roc_auc", {"average": None}),
    ("roc_auc", {}),
    ("roc_auc", {"average": "weighted"}),
    ("average_precision", {"average": None}),
    ("average_precision", {}),
    ("average_precision", {"average": "weighted"}),
    ("gini", {"average": None}),
    ("roc_auc", {"average": None, "weight": "w"}),
    ("roc_auc", {"average": "micro", "weight": "w"}),
    ("average_precision", {"average": "micro", "weight": "w"}),
    ("roc_auc", {"average": None, "ci": 0.9}),  # DeLong's per class, from the merged state
    ("roc_curve", {}),
    ("pr_curve", {"weight": "w"}),
]


def _files(root: Path, parts: list[pl.DataFrame]) -> list[str]:
    paths = []
    for i, part in enumerate(parts):
        paths.append(str(root / f"part{i}.parquet"))
        part.write_parquet(paths[-1])
    return paths


def _check(root: Path, parts: list[pl.DataFrame], mapping: dict[Any, str], by: Any) -> None:
    paths = _files(root, parts)
    rows = pl.concat(parts)
    for method, options in CALLS:
        expected = getattr(rows.metrics, method)("y", mapping, by=by, **options)
        got = getattr(pmd, method)(paths, "y", mapping, by=by, **options)
        same(got, expected)


@st.composite
def _rows(draw: st.DrawFn) -> tuple[pl.DataFrame, list[int]]:
    n = draw(st.integers(2, 60))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    classes_ = draw(st.sampled_from([[0, 1, 2], [0, 1], [0, 2], [1]]))  # absent classes
    decimals = draw(st.sampled_from([1, 2, 6]))  # ties
    frame = pl.DataFrame(
        {
            "y": rng.choice(classes_, n),
            "g": pl.Series([("a", "b", None)[k] for k in rng.integers(0, 3, n)], dtype=pl.String),
            **{c: np.round(rng.random(n), decimals) for c in MAPPING.values()},
            "w": rng.random(n) * 10,
        }
    )
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    return frame, [0, *cuts, n]


@settings(
    max_examples=15,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # an example costs ~1 s: no shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(drawn=_rows(), by=st.sampled_from([None, "g"]))
def test_class_scores_equal_the_frame_method(
    drawn: tuple[pl.DataFrame, list[int]], by: str | None, tmp_path: Path
) -> None:
    """Uneven files (some empty: equal cuts), every class's scores with ties; a class
    absent from all rows has a null AUC and an AP of 0.0, as the frame method."""
    frame, cuts = drawn
    parts = [frame[a:b] for a, b in itertools.pairwise(cuts)]
    _check(tmp_path, parts, MAPPING, by)


def test_string_labels_a_class_in_one_file_only(tmp_path: Path) -> None:
    """String labels, class "c" only in the second file, a null segment."""
    first = pl.DataFrame(
        {
            "y": ["a", "b", "a", "b"],
            "g": ["x", None, "x", None],
            "qa": [0.9, 0.2, 0.6, 0.6],
            "qb": [0.1, 0.8, 0.3, 0.3],
            "qc": [0.0, 0.0, 0.1, 0.1],
            "w": [1.0, 2.0, 0.5, 4.0],
        }
    )
    second = pl.DataFrame(
        {
            "y": ["c", "c", "a", "b"],
            "g": ["x", "y", "y", None],
            "qa": [0.2, 0.1, 0.7, 0.3],
            "qb": [0.2, 0.3, 0.2, 0.5],
            "qc": [0.6, 0.6, 0.1, 0.2],
            "w": [1.0, 3.0, 1.0, 1.0],
        }
    )
    mapping = {"a": "qa", "b": "qb", "c": "qc"}
    for by in (None, "g"):
        _check(tmp_path, [first.clear(), first, second], mapping, by)


def test_the_exact_path_never_makes_the_per_score_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Un-weighted AUC / AP: a job of each class's totals, then one ranked binary job
    per class with rows (class 2 has none: no job); never the merged per-score state."""
    rng = np.random.default_rng(1)
    n = 200
    frame = pl.DataFrame(
        {
            "y": rng.choice([0, 1], n),
            "g": rng.choice(["a", "b"], n),
            **{c: rng.random(n) for c in MAPPING.values()},
        }
    )
    paths = _files(tmp_path, [frame[:70], frame[70:]])
    made: list[str] = []
    job = classes.jobs.job

    def spy(method: str, *args: Any, **kwargs: Any) -> Any:
        made.append(method)
        return job(method, *args, **kwargs)

    monkeypatch.setattr(classes.jobs, "job", spy)
    for method in ("roc_auc", "average_precision"):
        made.clear()
        same(
            getattr(pmd, method)(paths, "y", MAPPING, by="g", average="weighted"),
            getattr(frame.metrics, method)("y", MAPPING, by="g", average="weighted"),
        )
        assert made == ["class_totals", "score_counts", "score_counts"]


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        ({"average": "micro"}, "average='micro'"),
        ({"multi_class": "ovo"}, "multi_class='ovo'"),
        ({"ci": 0.9}, "ci and average='macro'"),
        ({"ci": 0.9, "average": None, "ci_method": "bootstrap"}, "ci_method='bootstrap'"),
        ({"ci": 0.9, "average": None, "ci_method": "poisson"}, "ci_method='poisson'"),
    ],
)
def test_refused_before_any_job(
    options: dict[str, Any], refused: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What no merged state holds (or holds only with a row per score on the driver)
    is a NotImplementedError naming it, raised before any job is made."""
    paths = _files(
        tmp_path,
        [pl.DataFrame({"y": [0, 1, 2], "q0": [0.1] * 3, "q1": [0.2] * 3, "q2": [0.3] * 3})],
    )

    def no_job(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a job was made")

    monkeypatch.setattr(classes.jobs, "job", no_job)
    with pytest.raises(NotImplementedError, match=f"pl_metrics engines: roc_auc .*{refused}"):
        pmd.roc_auc(paths, "y", MAPPING, **options)


def test_bad_rows_are_counted_over_all_files(tmp_path: Path) -> None:
    """A label without a score column in two files, a NaN score: the frame method's
    errors on all the rows (the counts summed), on the exact path and the weighted one."""
    parts = [
        pl.DataFrame({"y": [0, 3], "q0": [0.1, 0.2], "q1": [0.3, 0.4], "q2": [0.5, 0.6], "w": 1.0}),
        pl.DataFrame({"y": [3, 1], "q0": [0.1, 0.2], "q1": [0.3, 0.4], "q2": [0.5, 0.6], "w": 1.0}),
    ]
    nan = [  # a NaN score in each file
        parts[0].with_columns(y=pl.lit(2, pl.Int64), q1=pl.Series([0.3, float("nan")])),
        parts[1].with_columns(y=pl.lit(1, pl.Int64), q1=pl.Series([float("nan"), 0.1])),
    ]
    for bad in (parts, nan):
        paths = _files(tmp_path, bad)
        rows = pl.concat(bad)
        for options in ({}, {"weight": "w"}):
            with pytest.raises(Exception) as expected:  # noqa: PT011 - the frame method's
                rows.metrics.roc_auc("y", MAPPING, **options)
            with pytest.raises(type(expected.value)) as got:
                pmd.roc_auc(paths, "y", MAPPING, **options)
            assert str(got.value).endswith(f"part1.parquet: {expected.value}")  # the files named


# ------------------------------------------------------------------ multilabel samples
@st.composite
def _label_sets(draw: st.DrawFn) -> tuple[pl.DataFrame, list[int]]:
    """Multilabel rows: each row's true set (some empty, some full: an undefined AUC),
    its scores with ties, a weight; cuts into files."""
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    truth = rng.integers(0, 2, (n, len(MAPPING)))
    decimals = draw(st.sampled_from([1, 6]))
    frame = pl.DataFrame(
        {
            "ml": [[k for k in MAPPING if row[k]] for row in truth],
            "g": pl.Series([("a", "b", None)[k] for k in rng.integers(0, 3, n)], dtype=pl.String),
            **{c: np.round(rng.random(n), decimals) for c in MAPPING.values()},
            **{f"t{k}": truth[:, k] for k in MAPPING},
            "w": rng.random(n) * 10,
        },
        schema_overrides={"ml": pl.List(pl.Int64)},
    )
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    return frame, [0, *cuts, n]


@settings(
    max_examples=12,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(drawn=_label_sets(), by=st.sampled_from([None, "g"]), weight=st.sampled_from([None, "w"]))
def test_multilabel_samples_equal_the_frame_method(
    drawn: tuple[pl.DataFrame, list[int]], by: str | None, weight: str | None, tmp_path: Path
) -> None:
    """``average="samples"`` of a List ``y_true`` and of ``{label: indicator}``: the mean
    of the rows' own AUC / AP (the engines' per-row sums), the frame method's."""
    frame, cuts = drawn
    paths = _files(tmp_path, [frame[a:b] for a, b in itertools.pairwise(cuts)])
    indicators = {k: f"t{k}" for k in MAPPING}
    for method in ("roc_auc", "average_precision"):
        for y_true in ("ml", indicators):
            options = {"by": by, "weight": weight, "average": "samples"}
            expected = getattr(frame.metrics, method)(y_true, MAPPING, **options)
            same(getattr(pmd, method)(paths, y_true, MAPPING, **options), expected)
