"""The ``pl-metrics`` entry point, driven in a subprocess: the subcommands against the
Python API, input by glob and directory, help, version and ``python -m``."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from _cli_helpers import BASE, EXAMPLE, _main
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.metrics import roc_auc_score

import pl_metrics
from pl_metrics import cli


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "pl_metrics.cli", *args], capture_output=True, check=False
    )


@pytest.mark.parametrize(
    "command", ["report", "per-class", "averages", "summary", "confusion-matrix"]
)
def test_every_subcommand_as_csv_equals_the_python_api(command: str) -> None:
    out = run(command, str(EXAMPLE), *BASE, "--by", "region", "--format", "csv")
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(io.BytesIO(out.stdout))
    method = getattr(pl.read_parquet(EXAMPLE).metrics, command.replace("-", "_"))
    expected = method("y_true", "y_pred", by="region")
    assert got.columns == expected.columns
    assert got.height == expected.height


def test_table_json_parquet_and_output_file(tmp_path: Path) -> None:
    table = run("report", str(EXAMPLE), *BASE)
    assert table.returncode == 0
    assert b"weighted" in table.stdout
    js = run("summary", str(EXAMPLE), *BASE, "--format", "json")
    assert pl.read_json(io.BytesIO(js.stdout)).columns[0] == "n"
    target = tmp_path / "out.parquet"
    pq = run(
        "summary", str(EXAMPLE), *BASE, "--by", "region", "--format", "parquet", "-o", str(target)
    )
    assert pq.returncode == 0
    assert pl.read_parquet(target).height == 4


def test_glob_csv_and_directory(tmp_path: Path) -> None:
    df = pl.read_parquet(EXAMPLE)
    df.head(2000).write_csv(tmp_path / "a.csv")
    df.tail(2000).write_csv(tmp_path / "b.csv")
    (tmp_path / "pq").mkdir()
    df.write_parquet(tmp_path / "pq" / "x.parquet")
    df.write_ndjson(tmp_path / "x.ndjson")
    df.write_ipc(tmp_path / "x.arrow")
    paths = [str(tmp_path / "*.csv"), str(tmp_path / "pq"), str(tmp_path / "x.ndjson")]
    for path in [*paths, str(tmp_path / "x.arrow")]:
        out = run("summary", path, *BASE, "--format", "csv")
        assert out.returncode == 0, out.stderr
        assert pl.read_csv(io.BytesIO(out.stdout))["n"][0] == 4000


SCORE = ["--y-true", "is_cat", "--score", "cat_score"]


@pytest.mark.parametrize(
    ("command", "method", "extra"),
    [
        ("roc-auc", "roc_auc", {}),
        ("average-precision", "average_precision", {}),
        ("roc-curve", "roc_curve", {}),
        ("pr-curve", "pr_curve", {}),
    ],
)
def test_score_subcommands_equal_the_python_api(command: str, method: str, extra: dict) -> None:
    out = run(command, str(EXAMPLE), *SCORE, "--by", "region", "--format", "parquet")
    assert out.returncode == 0, out.stderr
    got = pl.read_parquet(io.BytesIO(out.stdout))
    df = pl.read_parquet(EXAMPLE)
    expected = getattr(df.lazy().metrics, method)("is_cat", "cat_score", by="region", **extra)
    assert_frame_equal(got, expected.collect())


def test_multiclass_roc_auc_and_options() -> None:
    out = run(
        "roc-auc",
        str(EXAMPLE),
        "--y-true",
        "y_true",
        "--format",
        "csv",
        *(f"--score-map={c}=p_{c}" for c in ("bird", "cat", "dog", "fish")),
        "--multi-class",
        "ovo",
        "--average",
        "weighted",
    )
    assert out.returncode == 0, out.stderr
    got = pl.read_csv(io.BytesIO(out.stdout))["roc_auc"][0]
    df = pl.read_parquet(EXAMPLE)
    mapping = {c: f"p_{c}" for c in ("bird", "cat", "dog", "fish")}
    expected = df.metrics.roc_auc("y_true", mapping, multi_class="ovo", average="weighted")
    assert got == pytest.approx(expected["roc_auc"][0], rel=1e-12)
    binned = run("roc-auc", str(EXAMPLE), *SCORE, "--bins", "50", "--format", "csv")
    assert "roc_auc_error_bound" in binned.stdout.decode()
    engine = run("summary", str(EXAMPLE), *BASE, "--engine", "in-memory", "--format", "csv")
    assert engine.returncode == 0


def test_help_has_an_example_for_every_subcommand() -> None:
    for command in (
        "report",
        "per-class",
        "averages",
        "summary",
        "confusion-matrix",
        "roc-auc",
        "average-precision",
        "roc-curve",
        "pr-curve",
    ):
        out = run(command, "--help")
        assert out.returncode == 0
        assert b"example: pl-metrics " + command.encode() in out.stdout


def test_plot_option_writes_a_chart(tmp_path: Path) -> None:
    pytest.importorskip("vl_convert")
    for command, args in (
        ("roc-curve", SCORE),
        ("pr-curve", SCORE),
        ("confusion-matrix", BASE),
        ("per-class", BASE),
    ):
        target = tmp_path / f"{command}.png"
        out = run(command, str(EXAMPLE), *args, "--by", "region", "--plot", str(target))
        assert out.returncode == 0, out.stderr
        assert target.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "missing.parquet", *BASE], b"no such file: missing.parquet"),
        (["report", str(EXAMPLE), "--y-true", "nope", "--y-pred", "y_pred"], b"column 'nope'"),
        (["report", str(EXAMPLE), *BASE, "--beta", "-1"], b"`beta` must be a finite float > 0"),
        (["report", str(EXAMPLE), *BASE, "--labels", ""], b"`labels` must not be empty"),
        (["report", str(EXAMPLE), "--y-true", "y_true"], b"--y-pred is required (or --y-pred-map)"),
        (["roc-auc", str(EXAMPLE), "--y-true", "is_cat"], b"--score is required"),
        (["roc-auc", str(EXAMPLE), *SCORE, "--bins", "0"], b"`bins` must be None or an integer"),
        (["roc-auc", str(EXAMPLE), "--y-true", "y_true", "--score", "y_pred"], b"must be numeric"),
        (["nope", str(EXAMPLE)], b"invalid choice"),
        (["summary", "x.txt", *BASE], b"no such file"),
    ],
)
def test_bad_input_is_one_line_and_status_2(args: list[str], message: bytes) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert message in out.stderr
    assert b"Traceback" not in out.stderr
    assert out.stderr.count(b"\n") == 1


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"pl-metrics {pl_metrics.__version__}\n"


@pytest.mark.parametrize("module", ["pl_metrics", "pl_metrics.cli"])
def test_python_dash_m_runs_the_command(module: str) -> None:
    # `python -m pl_metrics` was "No module named pl_metrics.__main__"
    out = subprocess.run(
        [sys.executable, "-m", module, "summary", str(EXAMPLE), *BASE, "--format", "csv"],
        capture_output=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == run("summary", str(EXAMPLE), *BASE, "--format", "csv").stdout


def test_a_pattern_or_directory_without_files_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pattern = str(tmp_path / "*.parquet")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.csv").write_text("a\n1\n")
    for path, message in (
        (pattern, f"no files match {pattern}"),
        (str(empty), f"no Parquet files in directory {empty}"),
    ):
        status, _, err = _main(capsys, "summary", path, *BASE)
        assert (status, err) == (2, f"pl-metrics: error: {message}\n")


def test_plot_with_several_by_columns_draws_one_line_per_segment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "roc.json"  # the Vega-Lite spec: its data carries the legend
    by = ["--by", "region", "--by", "model_version"]
    status, _, err = _main(capsys, "roc-curve", str(EXAMPLE), *SCORE, *by, "--plot", str(target))
    assert (status, err) == (0, "")
    spec = json.loads(target.read_text())
    legends = {
        row["legend"] for rows in spec["datasets"].values() for row in rows if "legend" in row
    }
    df = pl.read_parquet(EXAMPLE)
    expected = set()
    for (region, version), seg in df.group_by("region", "model_version"):
        auc = roc_auc_score(seg["is_cat"].to_numpy(), seg["cat_score"].to_numpy())
        expected.add(f"{region} / {version} (AUC {auc:.3f})")
    assert legends == expected


def test_csv_integer_labels_written_two_ways_are_refused_or_read_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "01" and "1" read as the integer 1 gave accuracy 1.0; as strings it is 0.4
    path = tmp_path / "labels.csv"
    path.write_text("y,p\n01,1\n1,1\n02,2\n2,02\n1,2\n")
    assert cli.main(["summary", str(path), "--y-true", "y", "--y-pred", "p"]) == 2
    assert "--labels-as-text" in capsys.readouterr().err
    out = cli.run(["summary", str(path), "--y-true", "y", "--y-pred", "p", "--labels-as-text"])
    y, p = ["01", "1", "02", "2", "1"], ["1", "1", "2", "02", "2"]
    assert out["accuracy"].item() == skm.accuracy_score(y, p)


@pytest.mark.parametrize(
    "body",
    [
        "y,p\n0,-0\n-0,0\n1,1\n",  # -0 and 0: one integer
        "y,p\n1,1.0\n1.0,1\n0,0\n",  # 1 and 1.0: one float
        "y,p\ntrue,True\nTrue,true\nfalse,false\n",  # True and true: one boolean
    ],
)
def test_csv_labels_written_two_ways_of_any_parsed_type(
    body: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # each gave accuracy 1.0 with no error; as text (scikit-learn on the strings) 1/3
    path = tmp_path / "labels.csv"
    path.write_text(body)
    assert cli.main(["summary", str(path), "--y-true", "y", "--y-pred", "p"]) == 2
    assert "several ways" in capsys.readouterr().err
    out = cli.run(["summary", str(path), "--y-true", "y", "--y-pred", "p", "--labels-as-text"])
    rows = [line.split(",") for line in body.strip().splitlines()[1:]]
    expected = skm.accuracy_score([r[0] for r in rows], [r[1] for r in rows])
    assert out["accuracy"].item() == pytest.approx(expected)
