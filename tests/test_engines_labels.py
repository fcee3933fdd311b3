"""Multilabel scores per label on the engines (``pl_metrics/_engines/label_scores.py``,
``label_ranked.py``) and each row's partial AUC (``average="samples"`` with
``max_fpr``, ``row_means.partial_auc_sums``): equal to the frame method on rows split
into Parquet files, over hypothesis-generated rows and partitions and the hard cases
(ties, a label true in no row or in one file only, rows of one class, string labels,
a null segment, an empty file); the exact path of un-weighted rows never makes the
per-score state; what would bring a row per score to the driver is refused before
any job.

The frame method is checked against scikit-learn in tests/test_multilabel_ranking*.py;
here it is the oracle (the engine law of tests/registry/test_engines.py runs the
registry's entries on Spark and Dask too).
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
from pl_metrics._engines import label_ranked

MAPPING = {0: "q0", 1: "q1", 2: "q2"}
INDICATORS = {k: f"t{k}" for k in MAPPING}
#: (method, options) run on every example: per label, the means, micro, max_fpr, weights.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("roc_auc", {"average": None}),
    ("roc_auc", {}),
    ("roc_auc", {"average": "weighted"}),
    ("roc_auc", {"average": None, "weight": "w"}),
    ("roc_auc", {"average": "micro", "weight": "w"}),
    ("roc_auc", {"average": "weighted", "max_fpr": 0.4}),
    ("roc_auc", {"average": None, "max_fpr": 0.3, "weight": "w"}),
    ("roc_auc", {"average": "samples", "max_fpr": 0.3}),
    ("roc_auc", {"average": "samples", "max_fpr": 0.5, "weight": "w"}),
    ("average_precision", {"average": None}),
    ("average_precision", {"average": "weighted"}),
    ("average_precision", {"weight": "w"}),
    ("average_precision", {"average": "micro", "weight": "w"}),
]


def _files(root: Path, parts: list[pl.DataFrame]) -> list[str]:
    paths = []
    for i, part in enumerate(parts):
        paths.append(str(root / f"part{i}.parquet"))
        part.write_parquet(paths[-1])
    return paths


def _check(
    root: Path, parts: list[pl.DataFrame], y_true: Any, mapping: dict[Any, str], by: Any
) -> None:
    paths = _files(root, parts)
    rows = pl.concat(parts)
    for method, options in CALLS:
        expected = getattr(rows.metrics, method)(y_true, mapping, by=by, **options)
        got = getattr(pmd, method)(paths, y_true, mapping, by=by, **options)
        same(got, expected)


@st.composite
def _label_sets(draw: st.DrawFn) -> tuple[pl.DataFrame, list[int]]:
    """Multilabel rows: each row's true set (some empty, some full), its scores with
    ties, a weight; label 2 sometimes true in no row; cuts into files."""
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    truth = rng.integers(0, 2, (n, len(MAPPING)))
    if draw(st.booleans()):
        truth[:, 2] = 0  # a label true in no row: a null AUC, an AP of 0.0
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
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # an example costs seconds
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(drawn=_label_sets(), by=st.sampled_from([None, "g"]), indicators=st.booleans())
def test_label_scores_equal_the_frame_method(
    drawn: tuple[pl.DataFrame, list[int]], by: str | None, indicators: bool, tmp_path: Path
) -> None:
    """Uneven files (some empty: equal cuts), a List ``y_true`` or ``{label:
    indicator}``: every call of :data:`CALLS` is the frame method's."""
    frame, cuts = drawn
    parts = [frame[a:b] for a, b in itertools.pairwise(cuts)]
    _check(tmp_path, parts, INDICATORS if indicators else "ml", MAPPING, by)


def test_string_labels_a_label_in_one_file_only(tmp_path: Path) -> None:
    """String labels, "c" true only in the second file, a null segment, an empty file,
    a segment whose rows all hold label "a" (its AUC undefined there)."""
    first = pl.DataFrame(
        {
            "ml": [["a"], ["b"], ["a", "b"], ["a"]],
            "g": ["x", None, "x", "z"],
            "qa": [0.9, 0.2, 0.6, 0.6],
            "qb": [0.1, 0.8, 0.3, 0.3],
            "qc": [0.0, 0.0, 0.1, 0.1],
            "w": [1.0, 2.0, 0.5, 4.0],
        }
    )
    second = pl.DataFrame(
        {
            "ml": [["c"], ["c", "a"], [], ["b"]],
            "g": ["x", "y", "y", None],
            "qa": [0.2, 0.1, 0.7, 0.3],
            "qb": [0.2, 0.3, 0.2, 0.5],
            "qc": [0.6, 0.6, 0.1, 0.2],
            "w": [1.0, 3.0, 1.0, 1.0],
        }
    )
    mapping = {"a": "qa", "b": "qb", "c": "qc"}
    for by in (None, "g"):
        _check(tmp_path, [first.clear(), first, second], "ml", mapping, by)


def test_the_exact_path_never_makes_the_per_score_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Un-weighted per label and their means: a job of each label's totals, then one
    ranked job per label with positives (label 2 has none: no job); never the merged
    per-score state."""
    rng = np.random.default_rng(1)
    n = 200
    frame = pl.DataFrame(
        {
            "ml": [[k for k in (0, 1) if rng.random() < 0.5] for _ in range(n)],
            "g": rng.choice(["a", "b"], n),
            **{c: rng.random(n) for c in MAPPING.values()},
        },
        schema_overrides={"ml": pl.List(pl.Int64)},
    )
    paths = _files(tmp_path, [frame[:70], frame[70:]])
    made: list[str] = []
    job = label_ranked.jobs.job

    def spy(method: str, *args: Any, **kwargs: Any) -> Any:
        made.append(method)
        return job(method, *args, **kwargs)

    monkeypatch.setattr(label_ranked.jobs, "job", spy)
    for method in ("roc_auc", "average_precision"):
        for average in (None, "weighted"):
            made.clear()
            same(
                getattr(pmd, method)(paths, "ml", MAPPING, by="g", average=average),
                getattr(frame.metrics, method)("ml", MAPPING, by="g", average=average),
            )
            assert made == ["label_totals", "label_scores", "label_scores"]


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        ({"average": "micro"}, "average='micro'"),
        ({"y_score": "scores", "labels": [0, 1, 2]}, "a List column of scores"),
    ],
)
def test_refused_before_any_job(
    options: dict[str, Any], refused: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Un-weighted micro (every label's scores ranked together) and a List of scores (no
    column to partition the rows by): a NotImplementedError naming it, before any job."""
    frame = pl.DataFrame(
        {"ml": [[0], [1, 2], []], "q0": [0.1, 0.2, 0.3], "q1": [0.3, 0.4, 0.1]}
    ).with_columns(q2=pl.lit(0.5), scores=pl.concat_list("q0", "q1", pl.lit(0.5)))
    paths = _files(tmp_path, [frame])

    def no_job(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a job was made")

    monkeypatch.setattr(label_ranked.jobs, "job", no_job)
    kw = {"y_score": MAPPING, **options}
    with pytest.raises(NotImplementedError, match=f"pl_metrics engines: roc_auc .*{refused}"):
        pmd.roc_auc(paths, "ml", **kw)


def test_a_list_of_scores_with_weights_or_max_fpr(tmp_path: Path) -> None:
    """A List column of scores aligned with ``labels``: weighted, and with ``max_fpr``,
    from the merged per-label state, the frame method's numbers."""
    rng = np.random.default_rng(3)
    n = 60
    frame = pl.DataFrame(
        {
            "ml": [[k for k in (0, 1, 2) if rng.random() < 0.4] for _ in range(n)],
            "scores": [list(np.round(rng.random(3), 1)) for _ in range(n)],
            "w": rng.random(n) + 0.1,
        },
        schema_overrides={"ml": pl.List(pl.Int64)},
    )
    paths = _files(tmp_path, [frame[:25], frame[25:25], frame[25:]])
    for options in (
        {"weight": "w", "average": None},
        {"average": "weighted", "max_fpr": 0.5},
        {"average": "samples", "max_fpr": 0.5},
    ):
        kw = {"labels": [2, 0, 1], **options}
        same(pmd.roc_auc(paths, "ml", "scores", **kw), frame.metrics.roc_auc("ml", "scores", **kw))


def test_bad_rows_are_counted_over_all_files(tmp_path: Path) -> None:
    """A NaN score in each file, a true label without a score in each file: the frame
    method's errors on all the rows (the counts summed), on the exact path, the
    weighted one and each row's partial AUC."""
    base = pl.DataFrame(
        {"ml": [[0], [1]], "q0": [0.1, 0.2], "q1": [0.3, 0.4], "q2": [0.5, 0.6], "w": 1.0},
        schema_overrides={"ml": pl.List(pl.Int64)},
    )
    nan = [
        base.with_columns(q1=pl.Series([0.3, float("nan")])),
        base.with_columns(q1=pl.Series([float("nan"), 0.1])),
    ]
    unknown = [
        base.with_columns(ml=pl.Series([[0, 3], [1]])),
        base.with_columns(ml=pl.Series([[3], [1]])),
    ]
    for bad in (nan, unknown):
        paths = _files(tmp_path, bad)
        rows = pl.concat(bad)
        for options in (
            {"average": None},
            {"weight": "w"},
            {"average": "samples", "max_fpr": 0.5},
        ):
            with pytest.raises(Exception) as expected:  # noqa: PT011 - the frame method's
                rows.metrics.roc_auc("ml", MAPPING, **options)
            with pytest.raises(type(expected.value)) as got:
                pmd.roc_auc(paths, "ml", MAPPING, **options)
            assert str(got.value).endswith(f"part1.parquet: {expected.value}")  # files named
