"""Dask distributed: a LocalCluster of 2 worker processes equals one machine."""

from __future__ import annotations

from pathlib import Path

import distributed  # the `dask` extra, part of the `test` extra
import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics.dask as pmd


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


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


def test_roc_auc_equals_one_machine(client, dataset) -> None:
    root, df = dataset
    got = pmd.roc_auc(root, "y", "s2", by="country", client=client, split_every=2)
    assert_frame_equal(got, df.metrics.roc_auc("y", "s2", by="country"), check_exact=True)


def test_no_files_is_a_clear_error(client, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no Parquet files found"):
        pmd.report(str(tmp_path / "*.parquet"), "y_true", "y_pred", client=client)
