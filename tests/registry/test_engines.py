"""The engine law: every registry entry whose method has an engine function
(``pl_metrics.spark.<m>``, ``pl_metrics.dask.<m>``) gives the frame method's frame on
the same rows split into uneven partitions (an empty one, a segment in one partition
only, a class absent from some), to ``rtol=1e-9``; and the engines cover every method
``../shared/API.md`` lists for them, or say here which are not yet.

One Spark session (``tests/conftest.py``); Dask on its default scheduler (threads:
``client=None`` and no ``distributed`` client), over a ``dask.dataframe`` and over the
same partitions as Parquet files.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import pl_metrics.dask as pmd
import pl_metrics.spark as pms
from pl_metrics import DataError
from pl_metrics._engines.class_scores import FINISHERS as CLASS_FINISHERS
from pl_metrics._engines.declared import DECLARED
from pl_metrics._engines.label_scores import FINISHERS as LABEL_FINISHERS
from registry.entries import DATA, METHODS, Cols, Entry, run, same

#: Entries whose options the engines refuse (``NotImplementedError`` naming what is not
#: computed from a merged state yet): the test checks that they are refused, so the
#: list shrinks when a state learns them.
REFUSED = {
    # multiclass scores (a mapping of score columns): the interval of the macro /
    # weighted mean (covariances summed over the rows) and the bootstrap (whole rows
    # redrawn) are no function of a merged state; one-vs-one of un-weighted rows ranks
    # each pair of classes on its own rows (no partitions of score ranges yet)
    "roc_auc[ovr][delong]",
    "roc_auc[ovr][bootstrap][per_class]",
    "roc_auc[ovr][bootstrap]",
    "roc_auc[ovo]",
    # multilabel intervals: the frame method's bootstrap redraws whole rows, which the
    # merged per-label state does not hold
    "report[multilabel-ci]",
    "summary[multilabel-ci]",
    # disparity of the user's callables: each is called on a group's rows
    "disparity[callables]",
    # calibration's quantile bins with these (decimal) weights: in segment "a" a
    # quantile's position falls exactly on a running sum (87 x 93.088 = 58 x
    # 139.632), a tie the frame method breaks by the rounding of its float sums in
    # its rows' order, which partitions do not keep: refused, not guessed (un-weighted
    # and whole weights: exact, test_quantile_bins_unweighted_equal_the_frame_method)
    "calibration_error",
    # the interval of the estimated ROC AUC's macro / weighted average of {label:
    # column} scores: it sums the products of each row's placements in two classes'
    # rankings (a join by row; the count metrics' intervals are sums, "check[estimated
    # multiclass counts]")
    "check[estimated multiclass]",
}

ENGINE_ENTRIES = [e for e in METHODS if e.name.split("[")[0] in DECLARED]
IDS = [e.name for e in ENGINE_ENTRIES]

#: The methods ../shared/API.md's "Engines" bullet lists, as frame methods (its
#: "curves", "costs" and "multilabel" spelled out).
API_ENGINES = (
    "confusion_matrix",
    "per_class",
    "averages",
    "report",
    "summary",
    "roc_auc",
    "average_precision",
    "roc_curve",
    "pr_curve",
    "det_curve",
    "ks",
    "gains",
    "thresholds",
    "best_threshold",
    "expected_cost",
    "cost_curve",
    "decision_cost",
    "log_loss",
    "brier_score",
    "calibration_curve",
    "calibration_error",
    "multilabel_confusion_matrix",
    "hamming_loss",
    "zero_one_loss",
    "coverage_error",
    "label_ranking_average_precision",
    "label_ranking_loss",
    "group_rates",
    "fairness",
    "disparity",
    "selection_rate",
    "drift",
    "over_time",
    "estimated_performance",
    "check",
)
#: Listed there, with no engine function yet: none of them is a function of a
#: mergeable state the library has (each needs a new state, or rows).
NOT_YET: set[str] = set()


def test_every_engine_method_of_the_contract_is_covered_or_listed() -> None:
    covered = {m for m in API_ENGINES if m in DECLARED}
    assert covered | NOT_YET == set(API_ENGINES)
    assert not covered & NOT_YET, "listed as not yet, but declared: drop it from NOT_YET"
    for module in (pms, pmd):
        assert set(DECLARED) <= set(module.__all__)
        assert set(DECLARED) <= set(dir(module))


def test_every_engine_function_has_the_frame_methods_parameters() -> None:
    from pl_metrics import MetricsLazyFrame

    for name in DECLARED:
        frame = list(inspect.signature(getattr(MetricsLazyFrame, name)).parameters)[1:]
        assert list(inspect.signature(getattr(pms, name)).parameters) == ["sdf", *frame]
        dask = ["data", *frame, "client", "split_every"]
        assert list(inspect.signature(getattr(pmd, name)).parameters) == dask
        for module, first in ((pms, "sdf"), (pmd, "data")):
            doc = getattr(module, name).__doc__
            assert f"\n{first}\n" in doc
            assert "Returns\n-------\nDataFrame" in doc


def test_the_type_stubs_are_current() -> None:
    """pl_metrics/spark.pyi and dask.pyi (what mypy reads of the functions made at
    import) are what ``python tools/engine_stubs.py`` writes."""
    from pl_metrics._engines.declared import stub

    for module in (pms, pmd):
        written = Path(module.__file__ or "").with_suffix(".pyi").read_text()
        assert written == stub(module._ENGINE), "run: python tools/engine_stubs.py"


def test_refused_entries_have_engine_functions() -> None:
    assert set(REFUSED) <= set(IDS)


# ------------------------------------------------------------------ partitions
def _partitions() -> list[pl.DataFrame]:
    """The registry's rows in four uneven partitions: one empty, segment "a" only in
    one, class 2 (``y``) absent from another."""
    rest = DATA.filter(pl.col("g").ne_missing("a"))
    half = rest.height // 3
    no_class_2 = rest.head(half).filter(pl.col("y") != 2)
    kept = rest.head(half).filter(pl.col("y") == 2)
    return [
        DATA.clear(),
        DATA.filter(pl.col("g") == "a"),
        no_class_2,
        pl.concat([kept, rest.tail(rest.height - half)]),
    ]


def test_the_partitions_hold_every_row_once() -> None:
    parts = _partitions()
    assert parts[0].height == 0
    assert sum(p.height for p in parts) == DATA.height
    same(pl.concat(parts), DATA)


class _Engine:
    """A stand-in for a frame's ``.metrics``: each method the engine's function of the
    same name on ``data`` (AttributeError where the engine has none)."""

    def __init__(self, module: Any, data: object, **options: object) -> None:
        self._module, self._data, self._options = module, data, options

    def __getattr__(self, name: str) -> Callable[..., pl.DataFrame]:
        if name not in DECLARED:
            raise AttributeError(name)
        return functools.partial(getattr(self._module, name), self._data, **self._options)


@pytest.fixture(scope="module")
def spark_rows(spark: Any) -> Any:
    """One Spark partition per partition of :func:`_partitions`: an RDD of 4 slices,
    slice i the rows of partition i (Spark folds a union of local frames into one
    partition), with the Spark types of the rows through Arrow."""
    parts = [p.rows() for p in _partitions()]
    schema = spark.createDataFrame(DATA.head(1).to_arrow()).schema
    slices = spark.sparkContext.parallelize(range(len(parts)), len(parts))
    rdd = slices.mapPartitionsWithIndex(lambda i, _: iter(parts[i]))
    sdf = spark.createDataFrame(rdd, schema=schema).cache()
    sizes = sdf.rdd.glom().map(len).collect()
    assert sizes == [len(p) for p in parts]
    return sdf


@pytest.fixture(scope="module")
def parquet_parts(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    root = tmp_path_factory.mktemp("engine_parts")
    paths = []
    for i, part in enumerate(_partitions()):
        paths.append(str(root / f"part{i}.parquet"))
        part.write_parquet(paths[-1])
    return paths


@pytest.fixture(scope="module")
def dask_rows(parquet_parts: list[str]) -> Any:
    """The partitions as users have them: ``dd.read_parquet`` (one partition a file,
    the empty one included), with a derived column (``pb``, as the registry makes it)."""
    import dask.dataframe as dd

    ddf = dd.read_parquet(parquet_parts)
    ddf = ddf.assign(pb=(ddf["s"] >= 0.5).astype("int64"))
    assert ddf.npartitions == 4
    return ddf


def _cols(entry: Entry) -> Cols:
    return Cols(w="w") if entry.weighted else Cols()


def _check(entry: Entry, namespace: _Engine) -> None:
    c = _cols(entry)
    if entry.name in REFUSED:
        with pytest.raises(NotImplementedError, match="pl_metrics engines"):
            entry.call(namespace, c)
        return
    same(entry.call(namespace, c), run(entry, DATA, c))


@pytest.mark.parametrize("entry", ENGINE_ENTRIES, ids=IDS)
def test_spark_equals_the_frame_method(entry: Entry, spark_rows: Any) -> None:
    _check(entry, _Engine(pms, spark_rows))


@pytest.mark.parametrize("entry", ENGINE_ENTRIES, ids=IDS)
def test_dask_frame_equals_the_frame_method(entry: Entry, dask_rows: Any) -> None:
    _check(entry, _Engine(pmd, dask_rows))


@pytest.mark.parametrize("entry", ENGINE_ENTRIES, ids=IDS)
def test_dask_files_equal_the_frame_method(entry: Entry, parquet_parts: list[str]) -> None:
    _check(entry, _Engine(pmd, parquet_parts, split_every=2))


#: The multiclass-score entries the engines compute, run again without weights: the
#: exact path of partitions of each class's score ranges (``_engines/classes.py``),
#: which the weighted entries (the merged state) do not take.
CLASS_SCORES = [
    e
    for e in ENGINE_ENTRIES
    if "multiclass" in e.reads
    and e.name.split("[")[0] in CLASS_FINISHERS
    and e.weighted
    and e.name not in REFUSED
]


@pytest.mark.parametrize("entry", CLASS_SCORES, ids=[e.name for e in CLASS_SCORES])
def test_class_scores_unweighted_equal_the_frame_method(
    entry: Entry, spark_rows: Any, dask_rows: Any, parquet_parts: list[str]
) -> None:
    """Un-weighted: each class's binary problem from partitions of its score ranges (a
    micro average, which ranks every class's scores together, is refused)."""
    refused = "micro" in entry.name
    for namespace in (
        _Engine(pms, spark_rows),
        _Engine(pmd, dask_rows),
        _Engine(pmd, parquet_parts, split_every=2),
    ):
        if refused:
            with pytest.raises(NotImplementedError, match=r"pl_metrics engines.*micro"):
                entry.call(namespace, Cols())
            continue
        same(entry.call(namespace, Cols()), run(entry, DATA, Cols()))


#: The multilabel-score entries the engines compute per label or per row, run again
#: without weights: per label, the exact path of partitions of each label's score
#: ranges (``_engines/label_ranked.py``; ``max_fpr``: the merged per-label state).
LABEL_SCORES = [
    e
    for e in ENGINE_ENTRIES
    if {"multilabel", "multilabel_float"} & set(e.reads)
    and e.name.split("[")[0] in LABEL_FINISHERS
    and e.weighted
    and e.name not in REFUSED
]


@pytest.mark.parametrize("entry", LABEL_SCORES, ids=[e.name for e in LABEL_SCORES])
def test_label_scores_unweighted_equal_the_frame_method(
    entry: Entry, spark_rows: Any, dask_rows: Any, parquet_parts: list[str]
) -> None:
    for namespace in (
        _Engine(pms, spark_rows),
        _Engine(pmd, dask_rows),
        _Engine(pmd, parquet_parts, split_every=2),
    ):
        same(entry.call(namespace, Cols()), run(entry, DATA, Cols()))


#: Calibration's quantile-bin entries, run again without weights (each segment's edges
#: from counts of all its rows: ``_engines/calibration_edges.py``).
QUANTILE_BINS = [
    e
    for e in ENGINE_ENTRIES
    if e.name
    in (
        "calibration_curve[quantile]",
        "calibration_curve[top_label]",
        "calibration_error",
        "calibration_error[per_class]",
    )
]


@pytest.mark.parametrize("entry", QUANTILE_BINS, ids=[e.name for e in QUANTILE_BINS])
def test_quantile_bins_unweighted_equal_the_frame_method(
    entry: Entry, spark_rows: Any, dask_rows: Any, parquet_parts: list[str]
) -> None:
    assert len(QUANTILE_BINS) == 4
    for namespace in (
        _Engine(pms, spark_rows),
        _Engine(pmd, dask_rows),
        _Engine(pmd, parquet_parts, split_every=2),
    ):
        same(entry.call(namespace, Cols()), run(entry, DATA, Cols()))


def test_a_by_expression_and_a_segment_of_one_partition(parquet_parts: list[str]) -> None:
    by = ["g", (pl.col("s") > 0.5).alias("high")]
    c = dataclasses.replace(Cols(), by=by)  # type: ignore[arg-type]
    for name in ("report", "roc_auc", "thresholds"):
        entry = next(e for e in METHODS if e.name == name)
        same(entry.call(_Engine(pmd, parquet_parts), c), run(entry, DATA, c))
    assert Path(parquet_parts[0]).is_file()


# ------------------------------------------------------------------ probability label sets
def _files(root: Path, parts: list[pl.DataFrame]) -> list[str]:
    paths = [str(root / f"part{i}.parquet") for i in range(len(parts))]
    for part, path in zip(parts, paths, strict=True):
        part.write_parquet(path)
    return paths


@pytest.mark.parametrize(
    "name", ["log_loss", "brier_score", "calibration_curve", "calibration_error"]
)
def test_probability_label_sets_are_checked_over_all_shards(name: str, tmp_path: Path) -> None:
    """{-1, 1} in one file and {0, 1} in the other: each file's own checks pass, and the
    frame method on all the rows refuses {-1, 0, 1} without a pos_label; a pos_label
    held by one file only (the other: two negative labels) is present.  The errors and
    frames are the frame method's on the files' rows."""
    p = [0.2, 0.7, 0.4, 0.9]
    paths = _files(
        tmp_path,
        [pl.DataFrame({"y": [-1, 1, -1, 1], "p": p}), pl.DataFrame({"y": [0, 1, 0, 0], "p": p})],
    )
    rows = pl.concat([pl.read_parquet(path) for path in paths])
    with pytest.raises(DataError) as expected:
        getattr(rows.metrics, name)("y", "p")
    with pytest.raises(DataError) as got:
        getattr(pmd, name)(paths, "y", "p")
    assert str(got.value) == str(expected.value)
    same(
        getattr(pmd, name)(paths, "y", "p", pos_label=1),
        getattr(rows.metrics, name)("y", "p", pos_label=1),
    )
    split = [
        pl.DataFrame({"y": ["m", "n"], "p": p[:2]}),
        pl.DataFrame({"y": ["yes", "n"], "p": p[2:]}),
    ]
    paths = _files(tmp_path, split)
    rows = pl.concat(split)
    kw = {"pos_label": "yes"}
    same(getattr(pmd, name)(paths, "y", "p", **kw), getattr(rows.metrics, name)("y", "p", **kw))
    with pytest.raises(DataError) as expected:
        getattr(split[0].metrics, name)("y", "p", **kw)
    with pytest.raises(DataError) as got:
        getattr(pmd, name)(paths[:1], "y", "p", **kw)
    assert str(got.value) == str(expected.value)


def test_log_loss_summed_and_weighted(parquet_parts: list[str], spark_rows: Any) -> None:
    """``normalize=False`` (no registry entry takes it): the weighted sum of the losses,
    the frame method's on the same rows, on both engines."""
    kw: dict[str, Any] = {"by": "g", "weight": "w", "pos_label": 1, "normalize": False}
    expected = DATA.metrics.log_loss("yb", "s", **kw)
    same(pmd.log_loss(parquet_parts, "yb", "s", **kw), expected)
    same(pms.log_loss(spark_rows, "yb", "s", **kw), expected)
