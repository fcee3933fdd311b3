"""Dask distributed: a LocalCluster of 2 worker processes equals one machine."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import distributed  # the `dask` extra, part of the `test` extra
import numpy as np
import polars as pl
import pytest
from conftest import library_warnings_as_errors
from polars.testing import assert_frame_equal
from sklearn.metrics import accuracy_score, matthews_corrcoef, recall_score

import pl_metrics
import pl_metrics.dask as pmd


@pytest.fixture(scope="module")
def client():
    with pytest.MonkeyPatch.context() as env:
        # the worker processes start with this environment: the suite's warning filter
        env.setenv("PYTHONWARNINGS", library_warnings_as_errors())
        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster) as c,
        ):
            yield c


def _warn_from_the_library() -> None:
    warnings.warn_explicit(
        "seen", DeprecationWarning, "x.py", 1, module="pl_metrics._engines.shards"
    )


def test_a_library_warning_is_an_error_on_the_workers(client: distributed.Client) -> None:
    # a polars DeprecationWarning from pl_metrics._engines.shards went unseen through Dask:
    # the workers did not have the suite's filter
    with pytest.raises(DeprecationWarning, match="seen"):
        client.submit(_warn_from_the_library, pure=False).result()


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pl.DataFrame]:
    root = tmp_path_factory.mktemp("preds")
    rng = np.random.default_rng(4)
    n = 20_000
    df = pl.DataFrame(
        {
            "country": rng.choice(["de", "fr", "us"], n),
            "y_true": rng.integers(0, 4, n),
            "y_pred": rng.integers(0, 4, n),
            "y": rng.integers(0, 2, n),
            "s2": np.round(rng.random(n), 2),
            "w": rng.random(n),
        }
    )
    for i in range(7):  # uneven files, one of them empty
        part = df.slice(i * 3000, 3000 if i < 6 else 0)
        (root / f"day={i}").mkdir()
        part.write_parquet(root / f"day={i}" / "part.parquet")
    df.slice(18_000).write_parquet(root / "day=0" / "tail.parquet")
    return root, df


def test_report_and_summary_equal_one_machine(client, dataset) -> None:
    root, df = dataset
    got = pmd.report(root, "y_true", "y_pred", by="country", client=client)
    assert_frame_equal(got, df.metrics.report("y_true", "y_pred", by="country"), check_exact=True)
    got = pmd.summary(str(root / "**" / "*.parquet"), "y_true", "y_pred", client=client)
    assert_frame_equal(got, df.metrics.summary("y_true", "y_pred"), check_exact=True)
    weighted = pmd.report(root, "y_true", "y_pred", by="country", weight="w", client=client)
    expected = df.metrics.report("y_true", "y_pred", by="country", weight="w")
    assert_frame_equal(weighted, expected, rel_tol=1e-12, abs_tol=1e-12)
    # the opt-in scores, and the chance-adjusted balanced accuracy, as the frame's
    extra = {"by": "country", "extra_scores": ["fowlkes_mallows"]}
    got = pmd.report(root, "y_true", "y_pred", client=client, **extra)
    assert_frame_equal(got, df.metrics.report("y_true", "y_pred", **extra), check_exact=True)
    got = pmd.summary(root, "y_true", "y_pred", by="country", adjusted=True, client=client)
    expected = df.metrics.summary("y_true", "y_pred", by="country", adjusted=True)
    assert_frame_equal(got, expected, check_exact=True)


def test_roc_auc_equals_one_machine(client, dataset) -> None:
    root, df = dataset
    got = pmd.roc_auc(root, "y", "s2", by="country", client=client, split_every=2)
    assert_frame_equal(got, df.metrics.roc_auc("y", "s2", by="country"), check_exact=True)


def test_drift_counts_equal_one_machine(client, dataset) -> None:
    """The current rows' drift state of every file, at the reference's edges, is the
    one machine's; finished against the reference's state it is drift's PSI / JS."""
    root, df = dataset
    reference = df.head(5000).with_columns(pl.col("s2") ** 2)  # the reference: another law
    ref_state = reference.metrics.drift_counts(["s2", "country"], bins=5)
    edges = pl_metrics.drift_edges(ref_state)
    got = pmd.drift_counts(root, ["s2", "country"], edges=edges, by="y", client=client)
    expected = df.metrics.drift_counts(["s2", "country"], edges=edges, by="y")
    order = ["y", "column", "lower", "bin"]
    assert_frame_equal(got, expected.sort(order, nulls_last=True))
    drift = pl_metrics.from_drift_counts(ref_state, got, by="y")
    one = df.metrics.drift(["s2", "country"], reference=reference, by="y", bins=5)
    columns = ["y", "column", "n_reference", "n_current", "psi", "js_distance"]
    assert_frame_equal(drift, one.select(columns), rel_tol=1e-12, abs_tol=1e-12)
    with pytest.raises(ValueError, match="`edges` is required on shards"):
        pmd.drift_counts(root, "s2", edges=None, client=client)  # type: ignore[arg-type]


def test_by_expressions_are_evaluated_on_the_workers(client, dataset) -> None:
    root, df = dataset
    upper = pl.col("country").str.to_uppercase().alias("C")
    got = pmd.summary(root, "y_true", "y_pred", by=upper, client=client)
    assert_frame_equal(got, df.metrics.summary("y_true", "y_pred", by=upper), check_exact=True)
    by = ["country", (pl.col("s2") > 0.5).alias("high")]
    got = pmd.roc_auc(root, "y", "s2", by=by, client=client)
    assert_frame_equal(got, df.metrics.roc_auc("y", "s2", by=by), check_exact=True)


def test_a_file_named_twice_is_read_once(client, dataset, monkeypatch) -> None:
    """A directory and a file in it, a glob over them and the file again by a relative
    path: each file once (the support was 12,000 for 8,000 when a file was counted
    twice), as one machine on the rows."""
    root, df = dataset
    file = root / "day=0" / "part.parquet"
    monkeypatch.chdir(root)
    paths = [root, file, str(root / "day=0" / "*.parquet"), "day=0/part.parquet"]
    assert len(pmd.expand(paths)) == len(pmd.expand(root)) == 8
    got = pmd.report(paths, "y_true", "y_pred", by="country", client=client)
    assert_frame_equal(got, df.metrics.report("y_true", "y_pred", by="country"), check_exact=True)


def test_no_files_is_a_clear_error(client, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no Parquet files found"):
        pmd.report(str(tmp_path / "*.parquet"), "y_true", "y_pred", client=client)


def test_a_bad_file_is_named_in_the_error(client, dataset, tmp_path: Path) -> None:
    root, df = dataset
    good = str(root / "day=1" / "part.parquet")
    corrupt = tmp_path / "corrupt.parquet"
    corrupt.write_bytes(b"PAR1 this is not a parquet file")
    with pytest.raises(pl.exceptions.ComputeError, match=re.escape(str(corrupt))):
        pmd.report([good, corrupt], "y_true", "y_pred", client=client)
    partial = tmp_path / "no_y_pred.parquet"
    df.head(10).drop("y_pred").write_parquet(partial)
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=re.escape(str(partial))):
        pmd.summary([good, partial], "y_true", "y_pred", client=client)


def test_states_of_files_with_different_dtypes_are_merged(client, tmp_path: Path) -> None:
    # y_true / y_pred Int32 in one file and Int64 in the other; country Categorical / String
    a = pl.DataFrame(
        {"country": ["de", "de", "fr"], "y_true": [0, 1, 2], "y_pred": [0, 2, 2]},
        schema={"country": pl.Categorical, "y_true": pl.Int32, "y_pred": pl.Int32},
    )
    b = pl.DataFrame({"country": ["fr", "de"], "y_true": [2, 1], "y_pred": [1, 1]})
    a.write_parquet(tmp_path / "a.parquet")
    b.write_parquet(tmp_path / "b.parquet")
    got = pmd.summary(tmp_path, "y_true", "y_pred", client=client)
    y_true, y_pred = [0, 1, 2, 2, 1], [0, 2, 2, 1, 1]
    assert got["n"].to_list() == [5]
    assert got["accuracy"][0] == pytest.approx(accuracy_score(y_true, y_pred))
    assert got["mcc"][0] == pytest.approx(matthews_corrcoef(y_true, y_pred))
    per_country = pmd.report(tmp_path, "y_true", "y_pred", by="country", client=client)
    assert per_country["country"].dtype == pl.String
    fr = per_country.filter(pl.col("country") == "fr", pl.col("average") == "macro")
    # fr: y_true [2, 2], y_pred [2, 1]
    expected = recall_score([2, 2], [2, 1], labels=[1, 2], average="macro", zero_division=0)
    assert fr["recall"][0] == pytest.approx(expected)


def test_states_that_cannot_meet_are_a_schema_error(client, tmp_path: Path) -> None:
    pl.DataFrame({"y_true": [0, 1], "y_pred": [0, 1]}).write_parquet(tmp_path / "ints.parquet")
    pl.DataFrame({"y_true": ["0", "1"], "y_pred": ["0", "0"]}).write_parquet(
        tmp_path / "strings.parquet"
    )
    with pytest.raises(pl.exceptions.SchemaError) as error:
        pmd.report(tmp_path, "y_true", "y_pred", client=client)
    message = str(error.value)
    for part in ("'actual'", "Int64", "String", "ints.parquet", "strings.parquet"):
        assert part in message


def _two_files(tmp_path: Path, first: list[int], second: list[int]) -> list[str]:
    paths = []
    for name, y in (("a", first), ("b", second)):
        path = tmp_path / f"{name}.parquet"
        pl.DataFrame({"y": y, "s": np.linspace(0.1, 0.9, len(y))}).write_parquet(path)
        paths.append(str(path))
    return paths


def test_label_sets_are_checked_over_all_files(client, tmp_path: Path) -> None:
    """{-1, 1} in one file and {0, 1} in the other: each file's checks pass, and the
    merged state forgot the labels, so roc_auc gave 0.84 with 0 and -1 both negatives
    where the frame method on all the rows refuses {-1, 0, 1} without a pos_label."""
    paths = _two_files(tmp_path, [-1, 1, -1, 1, 1], [0, 1, 0, 0, 1])
    frame = pl.concat([pl.read_parquet(p) for p in paths])
    with pytest.raises(pl_metrics.DataError) as expected:
        frame.metrics.roc_auc("y", "s")
    with pytest.raises(pl_metrics.DataError) as got:
        pmd.roc_auc(paths, "y", "s", client=client)
    assert str(got.value) == str(expected.value)
    # with pos_label, the same rows are scored as the frame method scores them
    assert_frame_equal(
        pmd.roc_auc(paths, "y", "s", client=client, pos_label=1),
        frame.metrics.roc_auc("y", "s", pos_label=1),
    )


def test_a_pos_label_absent_from_every_file_is_the_frame_methods_error(client, tmp_path) -> None:
    """It was the finisher's "the per-score state has no positive row"; the frame
    method names pos_label and the labels there are."""
    paths = _two_files(tmp_path, [0, 1, 0, 1, 1], [0, 1, 0, 0, 1])
    frame = pl.concat([pl.read_parquet(p) for p in paths])
    with pytest.raises(pl_metrics.DataError) as expected:
        frame.metrics.roc_auc("y", "s", pos_label=5)
    with pytest.raises(pl_metrics.DataError) as got:
        pmd.roc_auc(paths, "y", "s", client=client, pos_label=5)
    assert str(got.value) == str(expected.value)


def test_float_labels_and_small_weights_across_files(client, tmp_path: Path) -> None:
    """Float y_true crashed the shards' label sample (is_in of an Int64 list); and with
    weights below 1, the positives' total weight was rounded to 0, so a pos_label
    outside the first labels was called absent.  Both equal the frame method."""
    floats = pl.DataFrame({"y": [0.0, 1.0, 0.0, 1.0], "s": [0.2, 0.8, 0.4, 0.7]})
    many = pl.DataFrame({"y": list(range(30)), "s": [i / 30 for i in range(30)], "w": [0.1] * 30})
    for name, frame, kwargs in (
        ("floats", floats, {}),
        ("many", many, {"pos_label": 29, "weight": "w"}),
    ):
        paths = []
        for i, part in enumerate(frame.iter_slices(frame.height // 2)):
            path = tmp_path / f"{name}{i}.parquet"
            part.write_parquet(path)
            paths.append(str(path))
        assert_frame_equal(
            pmd.roc_auc(paths, "y", "s", client=client, **kwargs),
            frame.metrics.roc_auc("y", "s", **kwargs),
        )


def test_states_have_the_frame_methods_dtypes_and_order(client, dataset) -> None:
    """The states came back as unsorted Int128 sums, so the docs' incremental example
    (``pl.concat`` with a polars state) raised a SchemaError (issue 49): now Int64
    counts (Float64 weights) as ``.metrics.counts`` / ``.score_counts`` give them,
    sorted by their keys (as Spark's), and they concatenate with a polars state."""
    root, df = dataset
    keys = ["country", "actual", "predicted"]
    for weight in (None, "w"):
        got = pmd.counts(root, "y_true", "y_pred", by="country", weight=weight, client=client)
        one = df.metrics.counts("y_true", "y_pred", by="country", weight=weight)
        assert got.schema == one.schema
        assert got["count"].dtype == (pl.Int64 if weight is None else pl.Float64)
        assert got.equals(got.sort(keys))
        assert_frame_equal(got, one.sort(keys), check_exact=weight is None)
        scores = pmd.score_counts(root, "y", "s2", by="country", weight=weight, client=client)
        one = df.metrics.score_counts("y", "s2", by="country", weight=weight)
        assert scores.schema == one.schema
        assert_frame_equal(scores, one.sort("country", "score"), check_exact=weight is None)
    # the docs' incremental example: yesterday's Dask state + today's polars rows
    today = df.head(100)
    state = pl.concat(
        [
            pmd.counts(root, "y_true", "y_pred", client=client),
            today.metrics.counts("y_true", "y_pred"),
        ]
    )
    both = pl.concat([df, today])
    assert_frame_equal(
        pl_metrics.from_counts(state).report(),
        both.metrics.report("y_true", "y_pred"),
        check_exact=True,
    )


def test_a_data_error_counts_the_bad_rows_of_every_file(client, tmp_path: Path) -> None:
    """Null labels in two files (2 and 3 rows, by hand) and none in a third: 5 bad rows,
    the frame method's count on all the rows, with both files named (it was the
    first file's 2); in Dask's idiom (not polars' drop_nulls)."""
    frames = [
        pl.DataFrame({"y_true": [0, None, 1, None], "y_pred": [0, 1, 1, 0]}),
        pl.DataFrame({"y_true": [1, 1, 0], "y_pred": [0, 1, 1]}),
        pl.DataFrame({"y_true": [None, None, 0, None], "y_pred": [1, 1, 0, 0]}),
    ]
    paths = []
    for i, frame in enumerate(frames):
        paths.append(str(tmp_path / f"part{i}.parquet"))
        frame.write_parquet(paths[-1])
    with pytest.raises(pl_metrics.DataError) as expected:
        pl.concat(frames).metrics.report("y_true", "y_pred")
    assert "has 5 null rows" in str(expected.value)
    for call in (pmd.report, pmd.summary, pmd.counts):
        with pytest.raises(pl_metrics.DataError) as got:
            call(paths, "y_true", "y_pred", client=client)
        message = str(got.value)
        assert message.startswith(f"{paths[0]}, {paths[2]}: column 'y_true' has 5 null rows")
        assert "drop_nulls" not in message
        assert "ddf.dropna(subset=['y_true'])" in message
    # one file alone: its own count, its path in front
    with pytest.raises(pl_metrics.DataError, match=re.escape(f"{paths[2]}: column 'y_true' has 3")):
        pmd.report(paths[1:], "y_true", "y_pred", client=client)


# ---------------------------------------------------------------- dask.dataframe input
def test_a_dask_dataframe_with_a_derived_column_equals_one_machine(client, dataset) -> None:
    """``dd.read_parquet`` with a column derived in Dask (each partition converted to
    polars on its worker): the frame method's numbers on the same rows, intervals too."""
    import dask.dataframe as dd

    root, _ = dataset
    ddf = dd.read_parquet(str(root / "**" / "*.parquet"))
    ddf = ddf.assign(y_hat=(ddf["s2"] >= 0.5).astype("int64"))
    rows = pl.concat(
        [pl.read_parquet(p) for p in pmd.expand(str(root / "**" / "*.parquet"))]
    ).with_columns((pl.col("s2") >= 0.5).cast(pl.Int64).alias("y_hat"))
    for method, args, options in (
        ("report", ("y", "y_hat"), {"by": "country", "ci": 0.9, "ci_method": "bootstrap"}),
        ("roc_auc", ("y", "s2"), {"by": "country", "ci": 0.9}),
        ("thresholds", ("y", "s2"), {"weight": "w"}),
    ):
        got = getattr(pmd, method)(ddf, *args, client=client, **options)
        expected = getattr(rows.metrics, method)(*args, **options)
        assert_frame_equal(got, expected, rel_tol=1e-12, abs_tol=1e-12)


def test_without_a_client_the_current_one_runs_it(client, dataset, monkeypatch) -> None:
    """``client=None`` inside a ``distributed`` client's context: that client (the
    default scheduler's path is not taken)."""
    from pl_metrics._engines import dask as dask_engine

    def refused(self: object, tasks: object) -> None:
        raise AssertionError("the default scheduler ran it")

    monkeypatch.setattr(dask_engine._Local, "start", refused)
    root, df = dataset
    got = pmd.summary(root, "y_true", "y_pred", by="country")
    assert_frame_equal(got, df.metrics.summary("y_true", "y_pred", by="country"), check_exact=True)


def test_a_data_error_of_a_dask_dataframe_in_dasks_idiom(client) -> None:
    import dask.dataframe as dd

    frame = pl.DataFrame({"y_true": [0, None, 1, None, 1, 0], "y_pred": [0, 1, 1, 0, 1, 1]})
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=3)
    with pytest.raises(pl_metrics.DataError) as got:
        pmd.report(ddf, "y_true", "y_pred", client=client)
    assert str(got.value).startswith("column 'y_true' has 2 null rows")
    assert "ddf.dropna(subset=['y_true'])" in str(got.value)


def test_exact_ranking_sends_only_partition_summaries(client, dataset, monkeypatch) -> None:
    """The exact AUC and AP of un-weighted rows: the rows sorted by score on the
    workers, each partition's counts per segment to the client (partitions x segments
    rows, not a row per distinct score; the AP's second pass its terms), the frame
    method's AUC to the bit and AP to 1e-12 (its terms summed in another order)."""
    from pl_metrics._engines import ranked

    root, df = dataset
    seen: list[int] = []
    auc, ap = ranked.roc_auc, ranked.average_precision

    def spy_auc(summaries: pl.DataFrame, segments: list[str], **kw: Any) -> pl.DataFrame:
        seen.append(summaries.height)
        return auc(summaries, segments, **kw)

    def spy_ap(
        summaries: pl.DataFrame, terms: pl.DataFrame, segments: list[str], **kw: Any
    ) -> pl.DataFrame:
        seen.extend([summaries.height, terms.height])
        return ap(summaries, terms, segments, **kw)

    monkeypatch.setattr(ranked, "roc_auc", spy_auc)
    monkeypatch.setattr(ranked, "average_precision", spy_ap)
    continuous = df.with_columns(s=pl.Series(np.random.default_rng(9).random(df.height)))
    continuous.write_parquet(root.parent / "continuous.parquet")
    for data, rows, score in (
        (root, df, "s2"),  # 8 files, tied scores
        (root.parent / "continuous.parquet", continuous, "s"),
    ):
        for by in ("country", None):
            got = pmd.roc_auc(data, "y", score, by=by, client=client)
            assert_frame_equal(got, rows.metrics.roc_auc("y", score, by=by), check_exact=True)
            got = pmd.average_precision(data, "y", score, by=by, client=client)
            expected = rows.metrics.average_precision("y", score, by=by)
            assert_frame_equal(got, expected, rel_tol=1e-12, abs_tol=0)
            # gini (catalogue: 2 x AUC - 1) takes the AUC's bounded path, mapped
            got = pmd.gini(data, "y", score, by=by, client=client)
            assert_frame_equal(got, rows.metrics.gini("y", score, by=by), check_exact=True)
    assert len(seen) == 4 * 4
    assert max(seen) <= 8 * 3  # partitions x segments


def test_exact_ranking_of_no_rows_and_of_one_class(tmp_path: Path) -> None:
    """Dask's default scheduler (no client): no rows give no row (as the frame method),
    a segment of one class its null AUC and scikit-learn's AP (1.0 / 0.0)."""
    empty = pl.DataFrame({"g": ["a"], "y": [1], "s": [0.5]}).clear()
    one = pl.DataFrame({"g": ["a", "a", "b"], "y": [1, 1, 0], "s": [0.5, 0.2, 0.1]})
    for name, rows in (("empty", empty), ("one", one)):
        rows.write_parquet(tmp_path / f"{name}.parquet")
        for method in ("roc_auc", "average_precision"):
            for by in ("g", None):
                got = getattr(pmd, method)(tmp_path / f"{name}.parquet", "y", "s", by=by)
                assert_frame_equal(got, getattr(rows.metrics, method)("y", "s", by=by))


def test_log_loss_sums_overflowing_with_huge_weights_are_refused(client, tmp_path) -> None:
    """Weights near 1e307: the frame method scales them first and stays finite; the
    engine's sums of loss x weight overflow to inf: a DataError naming `weight`, never
    an infinite (or NaN) loss."""
    # the two positives' losses -log(1e-12) = 27.6 times 1e307 each: 5.5e308 > 1.8e308
    df = pl.DataFrame({"y": [1, 1, 0, 0], "p": [1e-12, 1e-12, 0.5, 0.5], "w": [1e307] * 4})
    path = tmp_path / "rows.parquet"
    df.write_parquet(path)
    one_machine = df.metrics.log_loss("y", "p", weight="w")["log_loss"][0]
    assert np.isfinite(one_machine)
    with pytest.raises(pl_metrics.DataError, match=r"overflow Float64 in 1 segment .*`weight`"):
        pmd.log_loss(path, "y", "p", weight="w", client=client)
