"""The engines' exact ranking from partitions of score ranges (``_engines/ranked.py``)
beyond un-weighted AUC / AP: weighted roc_auc / gini / average_precision, DeLong's
interval (roc_auc, gini), the AP's logit intervals (``"logit"``, ``"boyd"``) and ``ks``,
equal to the frame method on the same rows however they are partitioned (uneven
partitions, an empty one, a segment in one partition only, ties across the partition
boundaries, -0.0 beside 0.0, zero, tiny and huge weights), with the driver holding
partitions x segments rows (every frame the engine hands it, spied).

The frame method is the oracle (itself checked against scikit-learn in the ranking
tests; ``ks`` against scipy's ``ks_2samp``).  Dask on its default scheduler (threads);
Spark where a test says so (one session: tests/conftest.py).
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics  # noqa: F401  (registers the .metrics namespace)
import pl_metrics.dask as pmd
from pl_metrics import DataError
from pl_metrics._engines import declared

#: (method, options): every bounded path beyond the un-weighted point values.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("roc_auc", {"weight": "w"}),
    ("gini", {"weight": "w"}),
    ("average_precision", {"weight": "w"}),
    ("ks", {"weight": "w"}),
    ("ks", {}),
    ("roc_auc", {"ci": 0.9}),
    ("gini", {"ci": 0.95}),
    ("average_precision", {"ci": 0.9}),
    ("average_precision", {"ci": 0.9, "ci_method": "boyd"}),
]


def _rows(seed: int, n: int = 1500, *, ties: bool = False) -> pl.DataFrame:
    """Segments of uneven sizes ("d": a handful of rows, put in one partition by
    :func:`_uneven`), continuous or heavily tied scores with -0.0 beside 0.0, weights
    spanning 1e-3 .. 1e3 and zero."""
    rng = np.random.default_rng(seed)
    score = rng.random(n)
    if ties:
        score = np.round(score, 1) - 0.3  # 11 values, 0.0 among them
        score = np.where((np.abs(score) < 1e-9) & (rng.random(n) < 0.5), -0.0, score)
        score = np.where(np.abs(score) < 1e-9, score * 0.0, score)
    label = (rng.random(n) < np.clip(score + 0.3, 0, 1)).astype(np.int64)
    weight = 10.0 ** rng.uniform(-3, 3, n)
    weight[rng.random(n) < 0.05] = 0.0
    segment = rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.17, 0.03])
    return pl.DataFrame({"g": segment, "y": label, "s": score, "w": weight})


def _uneven(df: pl.DataFrame, seed: int) -> list[pl.DataFrame]:
    """``df`` in uneven partitions: an empty one, segment "d" in one only, the rest cut
    at random points."""
    rng = np.random.default_rng(seed)
    rest = df.filter(pl.col("g") != "d")
    cuts = np.sort(rng.integers(0, rest.height, 3)).tolist()
    bounds = [0, *cuts, rest.height]
    pieces = [rest.slice(a, b - a) for a, b in itertools.pairwise(bounds)]
    return [df.clear(), df.filter(pl.col("g") == "d"), *pieces]


def _files(root: Path, parts: list[pl.DataFrame]) -> list[str]:
    paths = [str(root / f"part{i}.parquet") for i in range(len(parts))]
    for part, path in zip(parts, paths, strict=True):
        part.write_parquet(path)
    return paths


def _spied(method: str) -> tuple[Any, list[int]]:
    """Dask's ``method`` with every frame its engine hands the driver counted."""
    sizes: list[int] = []
    engine = pmd._ENGINE

    def run(*args: Any, **kw: Any) -> pl.DataFrame:
        out = engine.run(*args, **kw)
        sizes.append(out.height)
        return out

    return declared.function(replace(engine, run=run), declared.DECLARED[method]), sizes


def _same(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    assert_frame_equal(got, expected, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize(("method", "options"), CALLS)
def test_dask_equals_the_frame_method_with_the_driver_bounded(
    method: str, options: dict[str, Any], ties: bool, tmp_path: Path
) -> None:
    df = _rows(len(options) + 7 * ties, ties=ties)
    parts = _uneven(df, 3)
    paths = _files(tmp_path, parts)
    function, sizes = _spied(method)
    for by in ("g", None):
        expected = getattr(df.metrics, method)("y", "s", by=by, **options)
        _same(function(paths, "y", "s", by=by, **options), expected)
    # partitions x segments: the merged per-score state would hold a row per score
    bound = len(parts) * df.get_column("g").n_unique()
    assert sizes
    assert max(sizes) <= bound
    assert ties or bound < df.get_column("s").n_unique()


@st.composite
def _cases(draw: st.DrawFn) -> tuple[pl.DataFrame, list[int]]:
    """Small rows: scores from a few values (ties across partitions' cut points, -0.0
    and 0.0), weights from zero to large, segments, cut into 1-4 partitions."""
    n = draw(st.integers(0, 40))
    values = st.sampled_from([-0.0, 0.0, 0.1, 0.25, 0.5, 0.75, 1.0])
    rows = pl.DataFrame(
        {
            "g": draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n)),
            "y": draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)),
            "s": draw(st.lists(values, min_size=n, max_size=n)),
            "w": draw(
                st.lists(st.sampled_from([0.0, 1e-3, 0.5, 1.0, 3.0, 1e4]), min_size=n, max_size=n)
            ),
        },
        schema={"g": pl.String, "y": pl.Int64, "s": pl.Float64, "w": pl.Float64},
    )
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    return rows, [0, *cuts, n]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=_cases(), call=st.sampled_from(CALLS), by=st.sampled_from(["g", None]))
def test_random_partitions_equal_the_frame_method(
    case: tuple[pl.DataFrame, list[int]],
    call: tuple[str, dict[str, Any]],
    by: str | None,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    rows, bounds = case
    method, options = call
    paths = _files(
        tmp_path_factory.mktemp("parts"),
        [rows.slice(a, b - a) for a, b in itertools.pairwise(bounds)],
    )
    refused: Exception | None = None
    try:
        expected = getattr(rows.metrics, method)("y", "s", by=by, **options)
    except (DataError, ValueError) as error:  # one class, say: the same error
        refused = error
    if refused is not None:
        with pytest.raises(type(refused)) as got:
            getattr(pmd, method)(paths, "y", "s", by=by, **options)
        assert str(got.value) == str(refused)
        return
    _same(getattr(pmd, method)(paths, "y", "s", by=by, **options), expected)


def test_perfect_rankings_are_exactly_one(tmp_path: Path) -> None:
    """Every positive above every negative, over partitions: AUC, AP and KS exactly
    1.0 as the frame method (weighted too), DeLong's upper bound 1.0."""
    n = 600
    s = np.linspace(0.0, 1.0, n)
    df = pl.DataFrame({"y": (s > 0.37).astype(np.int64), "s": s, "w": np.linspace(0.1, 9.0, n)})
    paths = _files(
        tmp_path, [df.sample(fraction=1.0, seed=1).slice(i * 150, 150) for i in range(4)]
    )
    for method, options in CALLS:
        got = getattr(pmd, method)(paths, "y", "s", **options)
        expected = getattr(df.metrics, method)("y", "s", **options)
        assert_frame_equal(got, expected, check_exact=True)
        value = got.item(0, 0)
        assert value == 1.0


def test_huge_and_tiny_weights(tmp_path: Path) -> None:
    """Weights near 1e300 (their segment's total below the frame method's bound) and
    near 1e-300: the shares keep every product finite and normal, as the frame
    method's; a segment whose weights sum past the bound is its error."""
    rng = np.random.default_rng(4)
    n = 400
    s = rng.random(n)
    y = (rng.random(n) < s).astype(np.int64)
    for scale in (1e300, 1e-300):
        df = pl.DataFrame({"y": y, "s": s, "w": rng.uniform(1.0, 10.0, n) * scale})
        paths = _files(tmp_path, _uneven(df.with_columns(g=pl.lit("a")), 2))
        for method in ("roc_auc", "average_precision", "ks"):
            expected = getattr(df.metrics, method)("y", "s", weight="w")
            _same(getattr(pmd, method)(paths, "y", "s", weight="w"), expected)
    heavy = pl.DataFrame({"y": [1, 0, 1, 0], "s": [0.3, 0.2, 0.5, 0.9], "w": [1e308] * 4})
    paths = _files(tmp_path, [heavy.head(2), heavy.tail(2)])  # each partition's sum finite
    for method in ("roc_auc", "average_precision", "ks"):
        with pytest.raises(DataError) as expected:
            getattr(heavy.metrics, method)("y", "s", weight="w")
        with pytest.raises(DataError) as got:
            getattr(pmd, method)(paths, "y", "s", weight="w")
        assert str(got.value) == str(expected.value)


def test_no_rows_and_one_class(tmp_path: Path) -> None:
    """No rows give no row; a segment of one class its null AUC / KS, scikit-learn's AP
    (1.0 / 0.0) and no interval, as the frame method."""
    one = pl.DataFrame(
        {"g": ["a", "a", "b"], "y": [1, 1, 0], "s": [0.5, 0.2, 0.1], "w": [1.0, 2.0, 0.5]}
    )
    for name, rows in (("empty", one.clear()), ("one", one)):
        (tmp_path / name).mkdir()
        paths = _files(tmp_path / name, [rows])
        for method, options in CALLS:
            for by in ("g", None):
                expected = getattr(rows.metrics, method)("y", "s", by=by, **options)
                _same(getattr(pmd, method)(paths, "y", "s", by=by, **options), expected)


def test_the_bootstrap_and_bins_stay_on_the_merged_state(tmp_path: Path) -> None:
    """What the partitions do not compute (the bootstrap's interval, binned scores, the
    partial AUC) is finished from the merged state, still equal to the frame method."""
    df = _rows(9, n=300)
    paths = _files(tmp_path, _uneven(df, 9))
    for method, options in (
        ("roc_auc", {"ci": 0.9, "ci_method": "bootstrap", "n_boot": 30}),
        ("ks", {"bins": 20}),
        ("roc_auc", {"max_fpr": 0.3}),
    ):
        expected = getattr(df.metrics, method)("y", "s", by="g", **options)
        _same(getattr(pmd, method)(paths, "y", "s", by="g", **options), expected)


def test_spark_equals_the_frame_method(spark: Any) -> None:
    """Spark's range partitions: weighted, DeLong's and the logit intervals, KS."""
    df = _rows(5, n=600, ties=True)
    parts = _uneven(df, 5)
    schema = spark.createDataFrame(df.head(1).to_arrow()).schema
    rows = [p.rows() for p in parts]
    slices = spark.sparkContext.parallelize(range(len(rows)), len(rows))
    sdf = spark.createDataFrame(slices.mapPartitionsWithIndex(lambda i, _: iter(rows[i])), schema)
    import pl_metrics.spark as pms

    for method, options in CALLS:
        expected = getattr(df.metrics, method)("y", "s", by="g", **options)
        _same(getattr(pms, method)(sdf, "y", "s", by="g", **options), expected)


def test_ks_reports_the_highest_threshold_of_the_largest_distance(tmp_path: Path) -> None:
    """KS of positives at 0.9, 0.7 and negatives at 0.8, 0.6 (by hand: |tps N - fps P|
    is 2, 0, 2, 0 at the thresholds 0.9, 0.8, 0.7, 0.6; KS = 2 / (2 x 2) = 0.5 at the
    highest of the two, 0.9), in one partition and across several (each threshold in
    its own score range); weighted alike (weights 1: the same)."""
    df = pl.DataFrame({"y": [1, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.6], "w": [1.0] * 4})
    expected = pl.DataFrame({"ks": [0.5], "threshold": [0.9]})
    rows = [df.slice(i, 1) for i in range(4)]  # four score ranges: 0.9 and 0.7 apart
    for i, parts in enumerate(([df], [df.head(2), df.tail(2)], rows)):
        (tmp_path / str(i)).mkdir()
        paths = _files(tmp_path / str(i), parts)
        for options in ({}, {"weight": "w"}):
            assert_frame_equal(df.metrics.ks("y", "s", **options), expected)
            assert_frame_equal(pmd.ks(paths, "y", "s", **options), expected)


def test_over_time_takes_the_bounded_path_for_ks_weights_and_intervals(tmp_path: Path) -> None:
    """over_time's ranking metrics with weights, ``ks`` and DeLong's / the logit
    interval over rolling windows: every frame the engine hands the driver has at most
    partitions x segments x windows rows, equal to the frame method."""
    import datetime as dt

    from pl_metrics._engines import over_time

    df = _rows(13, n=2000)
    start = dt.date(2026, 3, 1)
    days = np.random.default_rng(13).integers(0, 8, df.height)
    df = df.with_columns(day=pl.Series([start + dt.timedelta(days=int(d)) for d in days]))
    parts = _uneven(df, 13)
    paths = _files(tmp_path, parts)
    sizes: list[int] = []
    engine = pmd._ENGINE

    def run(*args: Any, **kw: Any) -> pl.DataFrame:
        out = engine.run(*args, **kw)
        sizes.append(out.height)
        return out

    spy = replace(engine, run=run)
    metrics = ["roc_auc", "gini", "average_precision", "ks"]
    for extra in ({"weight": "w"}, {"ci": 0.9}):
        kw: dict[str, Any] = {"index": "day", "every": "1d", "period": "3d", "by": "g"}
        kw |= {"y_score": "s", "metrics": metrics, **extra}
        expected = df.metrics.over_time("y", **kw)
        bound = pmd.over_time.__signature__.bind(paths, "y", **kw)
        bound.apply_defaults()
        values = dict(bound.arguments)
        data = values.pop("data")
        options = {"client": values.pop("client"), "split_every": values.pop("split_every")}
        _same(over_time.call(spy, data, values, options), expected)
    windows = df.get_column("day").n_unique() + 2  # at most every bucket's k windows
    limit = len(parts) * df.get_column("g").n_unique() * windows
    assert sizes
    assert max(sizes) <= limit < df.height
