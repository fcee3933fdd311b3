"""The laws again with each internal strategy forced on: the sorted ranking paths
(search, keys; alone and vectorised) and the sorted curve points, where the
registry's few distinct scores would otherwise take the counted paths."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from registry import test_bad_input, test_laws
from registry.bad import BAD
from registry.entries import (
    DATA,
    METHODS,
    Cols,
    Entry,
    run,
    same,
)

# --------------------------------------------------------------------- sorting strategy
#: The entries whose un-weighted scores are sorted instead of counted when they look
#: continuous (``sorted_path``): the registry's scores have few distinct values, so
#: the laws are run again with the sorting forced on (``MIN_DISTINCT = -1``).
SORTING = [
    e
    for e in METHODS
    if e.name in ("roc_auc", "roc_auc[delong]", "roc_auc[ovr]", "average_precision")
]
SORTING_BAD = [p for p in BAD if p.values[0] in SORTING]


#: The two sorting strategies and the class that holds a segment's sorted scores in each.
SORTED = {"search": "_Searched", "keys": "_Keyed"}


def _force_sorting(monkeypatch: pytest.MonkeyPatch, how: str, chunk_rows: int = 10) -> list[str]:
    """Force a sorting strategy; the list names the class of every segment's sorted
    scores that a metric read, or ``"chunk"`` for a range of small segments
    vectorised (segments of at most ``chunk_rows`` rows; the strategy must be taken:
    the registry's scores are not negative, so ``"keys"`` applies)."""
    from pl_metrics._ranking import batches, placements, sorted_path

    calls: list[str] = []

    def counted(metric: Callable) -> Callable:
        def call(segment: object, *args: object) -> object:
            calls.append(type(segment).__name__)
            return metric(segment, *args)

        return call

    monkeypatch.setattr(sorted_path, "MIN_DISTINCT", -1)
    monkeypatch.setattr(sorted_path, "USE_KEYS", how == "keys")
    monkeypatch.setattr(batches, "BATCH_ROWS", 50)  # segments over several batches
    monkeypatch.setattr(placements, "_SEARCH_CHUNK", 8)  # large: halves on two threads
    monkeypatch.setattr(placements, "_SCAN_BLOCK", 3)  # keys scanned 3 rows at a time
    monkeypatch.setattr(batches, "CHUNK_ROWS", chunk_rows)
    for name, metric in placements._METRICS.items():
        monkeypatch.setitem(placements._METRICS, name, counted(metric))
    chunk = batches._chunk_metric

    def chunked(*args: object) -> object:
        calls.append("chunk")
        return chunk(*args)

    monkeypatch.setattr(batches, "_chunk_metric", chunked)
    return calls


def _by_and_pos_label_laws(entry: Entry, parquet_dir: Path) -> None:
    """The registry's ``by`` laws (names, expressions) and, where the entry reads
    ``pos_label``, the absent-``pos_label`` error, run again on a forced path."""
    test_laws.test_by_may_have_any_name_but_an_output_column(entry)
    for case in sorted(test_laws.BY_EXPRESSIONS):
        test_laws.test_by_expression_equals_materialised_column(entry, case, parquet_dir)
    if entry in test_bad_input.POS_LABEL:
        test_bad_input.test_absent_pos_label_is_an_error_on_every_path(entry)


@pytest.mark.parametrize("chunk_rows", [10, 1 << 20], ids=["alone", "vectorised"])
@pytest.mark.parametrize("how", sorted(SORTED))
@pytest.mark.parametrize("entry", SORTING, ids=[e.name for e in SORTING])
def test_sorting_strategy_obeys_the_laws(
    entry: Entry, how: str, chunk_rows: int, parquet_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = Cols()  # un-weighted: weights take the counting path
    counted = run(entry, DATA, c)
    sorting = _force_sorting(monkeypatch, how, chunk_rows)
    same(run(entry, DATA, c), counted)
    taken = SORTED[how] if chunk_rows < 15 else "chunk"  # the smallest segment: 15 rows
    assert set(sorting) <= {SORTED[how], "chunk"}
    assert taken in sorting, f"{entry.name}: the {how} path ({taken}) was not taken"
    same(run(entry, DATA.sample(fraction=1.0, shuffle=True, seed=3), c), counted)
    lazy = entry.call(DATA.lazy().metrics, c)
    same(lazy.collect(engine="streaming"), counted)
    same(lazy.collect(engine="in-memory"), counted)
    scanned = entry.call(pl.scan_parquet(parquet_dir / "*.parquet").metrics, c)
    same(scanned.collect(engine="streaming"), counted)
    for labels in (test_laws.REORDERS, test_laws.KEEPS_ORDER):
        test_laws.test_label_renaming(entry, labels)
    _by_and_pos_label_laws(entry, parquet_dir)


@pytest.mark.parametrize("how", sorted(SORTED))
@pytest.mark.parametrize(("entry", "case", "spoil", "error", "match"), SORTING_BAD)
def test_sorting_strategy_bad_input_is_the_documented_error(
    entry: Entry,
    case: str,
    spoil: Callable,
    error: type,
    match: str,
    how: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _force_sorting(monkeypatch, how)
    test_bad_input.test_bad_input_is_the_documented_error_on_every_path(
        entry, case, spoil, error, match, tmp_path
    )


# ---------------------------------------------------------------- sorted curve points
#: The entries whose curve points are found by sorting the rows when the scores look
#: continuous (``sorted_curve``); forced on here, where the registry's scores have
#: few distinct values (2 decimals: runs of tied scores).
SORTED_CURVES = [
    e
    for e in METHODS
    if e.name.split("[")[0]
    in (
        "roc_curve",
        "pr_curve",
        "det_curve",
        "thresholds",
        "best_threshold",
        "ks",
        "gains",
        "expected_cost",
        "cost_curve",
    )
    and "multiclass" not in e.name
    and "bins" not in e.name
]


def _force_sorted_curve(monkeypatch: pytest.MonkeyPatch, how: str) -> list[bool]:
    """Force the sorted curve (``"keys"``: one UInt64 key, else the rows); the list
    records each sort taken (True: keyed; KS and gains of keyed rows by segment sort
    in ``sorted_tables._read_segments``, the others in ``sorted_curve``)."""
    from pl_metrics._ranking import sorted_curve, sorted_path, sorted_tables

    taken: list[bool] = []
    sort, by_segment = sorted_curve.sorted_curve, sorted_tables._read_segments

    def counted(*args: object, keyed: bool) -> pl.DataFrame:
        taken.append(keyed)
        return sort(*args, keyed=keyed)  # type: ignore[arg-type]

    def segments(rows: object) -> object:
        taken.append(True)
        return by_segment(rows)  # type: ignore[arg-type]

    monkeypatch.setattr(sorted_path, "MIN_DISTINCT", -1)
    monkeypatch.setattr(sorted_path, "USE_KEYS", how == "keys")
    monkeypatch.setattr(sorted_curve, "sorted_curve", counted)
    monkeypatch.setattr(sorted_tables, "_read_segments", segments)
    return taken


@pytest.mark.parametrize("weighted", [False, True], ids=["counts", "weights"])
@pytest.mark.parametrize("how", ["keys", "rows"])
@pytest.mark.parametrize("entry", SORTED_CURVES, ids=[e.name for e in SORTED_CURVES])
def test_sorted_curve_equals_the_counted_one(
    entry: Entry, how: str, weighted: bool, parquet_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bit for bit with counts (integer sums); with weights tied scores are summed row by
    row (within 1e-12).  Segments with a null key, every row order, lazy, streaming and
    Parquet, by expressions, and the bad inputs' errors on the sorted path too."""
    c = Cols(w="w" if weighted else None)
    counted = run(entry, DATA, c)
    taken = _force_sorted_curve(monkeypatch, how)
    got = run(entry, DATA, c)
    assert taken, f"{entry.name}: the sorted path was not taken"
    assert set(taken) == {how == "keys" and not weighted}
    if weighted:
        same(got, counted)
    else:
        assert_frame_equal(got, counted, check_exact=True)
    same(run(entry, DATA.sample(fraction=1.0, shuffle=True, seed=3), c), counted)
    lazy = entry.call(DATA.lazy().metrics, c)
    same(lazy.collect(engine="streaming"), counted)
    scanned = entry.call(pl.scan_parquet(parquet_dir / "*.parquet").metrics, c)
    same(scanned.collect(engine="streaming"), counted)
    if not weighted:
        _by_and_pos_label_laws(entry, parquet_dir)


SORTED_CURVES_BAD = [p for p in BAD if p.values[0] in SORTED_CURVES]


@pytest.mark.parametrize("how", ["keys", "rows"])
@pytest.mark.parametrize(("entry", "case", "spoil", "error", "match"), SORTED_CURVES_BAD)
def test_sorted_curve_bad_input_is_the_documented_error(
    entry: Entry,
    case: str,
    spoil: Callable,
    error: type,
    match: str,
    how: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _force_sorted_curve(monkeypatch, how)
    test_bad_input.test_bad_input_is_the_documented_error_on_every_path(
        entry, case, spoil, error, match, tmp_path
    )
