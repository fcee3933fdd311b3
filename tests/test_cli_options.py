"""The ``pl-metrics`` options: the output format from the extension, the CSV options
(separators, header, quotes, encoding) and bad options, one line and status 2."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from _cli_helpers import BASE, BINARY, EXAMPLE, LABELS, _main
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics  # noqa: F401 - registers .metrics
from pl_metrics import cli


def _tsv(path: Path) -> pl.DataFrame:
    return pl.read_csv(path, separator="\t")


@pytest.mark.parametrize(
    ("name", "read"),
    [
        ("out.parquet", pl.read_parquet),
        ("out.pq", pl.read_parquet),
        ("out.csv", pl.read_csv),
        ("out.tsv", _tsv),
        ("out.json", pl.read_json),
        ("out.ndjson", pl.read_ndjson),
        ("out.JSONL", pl.read_ndjson),
    ],
)
def test_output_format_follows_the_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, read
) -> None:
    target = tmp_path / name
    args = ["--by", "region", "-o", str(target)]
    assert _main(capsys, "summary", str(EXAMPLE), *BASE, *args) == (0, "", "")
    expected = pl.read_parquet(EXAMPLE).metrics.summary("y_true", "y_pred", by="region")
    assert_frame_equal(read(target), expected, rel_tol=1e-12)


@pytest.mark.parametrize("name", ["out.txt", "out"])
def test_txt_or_no_extension_is_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    target = tmp_path / name
    assert _main(capsys, "summary", str(EXAMPLE), *BASE, "-o", str(target))[0] == 0
    assert target.read_text().startswith("shape: (1, 5)\n")


def test_no_extension_with_an_explicit_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out"
    args = ["--format", "csv", "-o", str(target)]
    assert _main(capsys, "summary", str(EXAMPLE), *BASE, *args) == (0, "", "")
    assert pl.read_csv(target).columns[0] == "n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "csv", "-o", "x.parquet"], "--format csv contradicts the extension"),
        (["--format", "parquet", "-o", "x.json"], "--format parquet contradicts the extension"),
        (["-o", "x.xlsx"], "cannot tell the output format of"),
    ],
)
def test_output_format_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    *options, name = args
    target = tmp_path / name
    status, _, err = _main(capsys, "summary", str(EXAMPLE), *BASE, *options, str(target))
    assert status == 2
    assert message in err
    assert err.count("\n") == 1
    assert not target.exists()


PARQUET = ["--format", "parquet"]


def test_parquet_to_a_terminal_is_refused() -> None:
    leader, follower = pty.openpty()
    try:
        out = subprocess.run(
            [sys.executable, "-m", "pl_metrics.cli", "summary", str(EXAMPLE), *BASE, *PARQUET],
            stdout=follower,
            stderr=subprocess.PIPE,
            check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert out.returncode == 2
    assert out.stderr == (
        b"pl-metrics: error: binary output to a terminal; use -o FILE or redirect\n"
    )


def test_csv_output_with_another_separator(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    args = ["summary", str(EXAMPLE), *BASE, "--by", "region", "-o", str(target)]
    got = cli.run([*args, "--output-separator", ";"])
    assert_frame_equal(pl.read_csv(target, separator=";"), got)


# --------------------------------------------------------------------- CSV options


def test_csv_options_round_trip(tmp_path: Path) -> None:
    # ';'-separated, decimal commas, a comment line, "NA" for null regions
    df = pl.read_parquet(EXAMPLE).with_columns(
        region=pl.when(pl.int_range(pl.len()) % 7 == 0).then(None).otherwise("region")
    )
    path = tmp_path / "preds.csv"
    body = df.write_csv(separator=";", null_value="NA", decimal_comma=True)
    path.write_text("# exported by a spreadsheet\n" + body)
    options = ["--separator", ";", "--comment-prefix", "#", "--null-value", "NA"]
    options += ["--decimal-comma", "--infer-schema-length", "all"]
    got = cli.run(
        [
            "roc-auc",
            str(path),
            "--y-true",
            "is_cat",
            "--score",
            "cat_score",
            "--by",
            "region",
            *options,
        ]
    )
    assert_frame_equal(got, df.metrics.roc_auc("is_cat", "cat_score", by="region"))
    assert got["region"].null_count() == 1
    # the label check of CSV label columns reads with the same options
    got = cli.run(["summary", str(path), *BASE, "--by", "region", *options])
    assert_frame_equal(got, df.metrics.summary("y_true", "y_pred", by="region"))
    # without them the file is not read as the same table: one line, status 2
    assert cli.main(["roc-auc", str(path), "--y-true", "is_cat", "--score", "cat_score"]) == 2


def test_csv_without_header_quotes_and_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    df = pl.read_parquet(EXAMPLE).select("region", "y_true", "y_pred")
    path = tmp_path / "preds.csv"
    text = df.write_csv(include_header=False, quote_style="always", quote_char="'")
    path.write_bytes(text.replace("'eu'", "'e\xe9u'").encode("latin-1"))  # not UTF-8
    options = ["--no-header", "--quote-char", "'", "--y-true", "column_1", "--y-pred", "column_2"]
    assert cli.main(["summary", str(path), *options]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    got = cli.run(["summary", str(path), *options, "--encoding", "utf8-lossy", "--by", "column_0"])
    expected = df.metrics.summary("y_true", "y_pred", by="region")
    assert got["column_0"].to_list() == ["apac", "e\ufffdu", "latam", "us"]
    assert_frame_equal(got.drop("column_0"), expected.drop("region"))


def test_tsv_and_labels_as_text_with_csv_options(tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("y|p\n01|1\n1|1\n02|2\n2|02\n1|2\n")
    args = ["summary", str(path), "--y-true", "y", "--y-pred", "p", "--separator", "|"]
    with pytest.raises(cli.UsageError, match="several ways"):
        cli.run(args)
    out = cli.run([*args, "--labels-as-text"])
    y, p = ["01", "1", "02", "2", "1"], ["1", "1", "2", "02", "2"]
    assert out["accuracy"].item() == skm.accuracy_score(y, p)
    tsv = tmp_path / "preds.tsv"
    pl.read_parquet(EXAMPLE).write_csv(tsv, separator="\t")
    got = cli.run(["summary", str(tsv), *BASE, "--skip-rows", "0"])
    assert_frame_equal(got, pl.read_parquet(EXAMPLE).metrics.summary("y_true", "y_pred"))


def test_the_summary_of_the_counts_csv_is_the_summary_of_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # the claim of docs/cli.md
    monkeypatch.chdir(tmp_path)
    counts = ["counts", str(EXAMPLE), *BASE, "--by", "region", "-o", "counts.csv"]
    assert cli.main([*counts, "--output-separator=;"]) == 0
    got = cli.run(
        [
            "summary",
            "counts.csv",
            "--separator=;",
            "--y-true",
            "actual",
            "--y-pred",
            "predicted",
            "--weight",
            "count",
            "--by",
            "region",
        ]
    )
    expected = pl.read_parquet(EXAMPLE).metrics.summary("y_true", "y_pred", by="region")
    # n is the sum of the count weights: a Float64 (it was compared across dtypes,
    # which polars' assert_frame_equal does not always do)
    expected = expected.with_columns(pl.col("n").cast(pl.Float64))
    assert_frame_equal(got, expected, rel_tol=1e-12)


# -------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # numbers and choices
        (["report", *LABELS, "--n-boot", "many"], "argument --n-boot: invalid int value"),
        (["report", *LABELS, "--beta", "x"], "argument --beta: invalid float value"),
        (["roc-auc", *BINARY, "--ci-method", "wilson"], "argument --ci-method: invalid choice"),
        (["summary", *LABELS, "--ci", "0.9", "--seed", "x"], "argument --seed: invalid int value"),
        (
            ["disparity", *LABELS, "--by", "region", "--metric", "accuracy,nope"],
            "--metric 'nope': expected one of accuracy",
        ),
        # labels typed like --y-true
        (
            ["roc-auc", *BINARY, "--pos-label", "maybe"],
            "--pos-label 'maybe': the label column holds booleans",
        ),
        (
            [
                "summary",
                str(EXAMPLE),
                "--y-true",
                "is_cat",
                "--y-pred",
                "is_cat",
                "--labels",
                "true,maybe",
            ],
            "--labels 'maybe': the label column holds booleans",
        ),
        # columns and mappings
        (["roc-auc", *BINARY, "--score-map", "cat=p_cat"], "give either --score or --score-map"),
        (
            ["roc-auc", str(EXAMPLE), "--y-true", "y_true", "--score-map", "bird"],
            "expected LABEL=COLUMN",
        ),
        (
            ["top-k-accuracy", str(EXAMPLE), "--y-true", "y_true"],
            "--score is required (or --score-map)",
        ),
        (
            [
                "compare-models",
                str(EXAMPLE),
                "--y-true",
                "y_true",
                "--model",
                "a=y_pred",
                "--model",
                "region",
            ],
            "give every model as NAME=COLUMN, or every one as COLUMN",
        ),
        (["summary", *LABELS, "--by", "nope"], "nope"),
        # expressions, matrices, buckets, keys
        (
            ["best-threshold", *BINARY, "--where", "recall >=="],
            "--where 'recall >==': not a SQL expression",
        ),
        (
            ["expected-cost", *BINARY, "--cost-matrix", "[[0, 1], [10"],
            "--cost-matrix '[[0, 1], [10': expected",
        ),
        (
            ["expected-cost", *BINARY, "--cost-matrix", "0,1;x,0"],
            "--cost-matrix 'x': expected a number",
        ),
        (
            [
                "decision-cost",
                str(EXAMPLE),
                "--y-true",
                "is_cat",
                "--score-map",
                "true=cat_score",
                "--cost-matrix",
                "[1]",
            ],
            'expected {"ACTUAL"',
        ),
        (["gains", *BINARY, "--buckets", "0.1,top"], "--buckets 'top': expected a number"),
        (
            ["reference-disparities", *LABELS, "--by", "region", "--reference", "eu,v1"],
            "expected 'largest' or 1 comma-separated value(s)",
        ),
        (
            ["class-likelihood-ratios", *LABELS, "--replace-undefined-by", "LR+"],
            "expected a number",
        ),
        (["summary", *LABELS, "--with-column", "x"], "--with-column 'x': expected NAME=SQL"),
        # input and output
        (["summary", *LABELS, "--separator", ";"], "--separator: CSV/TSV options, but"),
        (["summary", *LABELS, "--separator", "ab"], "argument --separator: expected one"),
        (
            ["summary", *LABELS, "--format", "json", "--output-separator", ";"],
            "--output-separator is for CSV output",
        ),
        (
            ["summary", *LABELS, "--by", "region", "--plot", "x.png"],
            "--plot draws the intervals of summary: give --ci",
        ),
        (["html", *LABELS], "the following arguments are required: --output"),
    ],
)
def test_bad_options_are_one_line_and_status_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("pl-metrics: error: ")
    assert message in err
    assert err.count("\n") == 1
