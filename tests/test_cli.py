"""The ``pl-metrics`` entry point, driven in a subprocess."""

from __future__ import annotations

import inspect
import io
import json
import os
import pty
import re
import shlex
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.metrics import roc_auc_score

import pl_metrics
from pl_metrics import cli

EXAMPLE = Path(__file__).parents[1] / "examples" / "predictions.parquet"
BASE = ["--y-true", "y_true", "--y-pred", "y_pred"]


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


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


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


# ------------------------------------------------- every method, one general mechanism

PUBLIC = sorted(m for m in dir(pl_metrics.MetricsLazyFrame) if not m.startswith("_"))
COMMANDS = sorted(cli.commands())


def test_every_public_method_has_a_command() -> None:
    # a method added later without a command fails here (and one whose parameter has a
    # type the CLI cannot read fails in cli.commands(), so in every test)
    assert sorted(c.method for c in cli.commands().values()) == PUBLIC
    for name, command in cli.commands().items():
        assert name == cli._NAMES.get(command.method, command.method.replace("_", "-"))


@pytest.mark.parametrize("method", PUBLIC)
def test_every_parameter_of_every_method_is_an_option(method: str) -> None:
    command = next(c for c in cli.commands().values() if c.method == method)
    params = set(inspect.signature(getattr(pl_metrics.MetricsLazyFrame, method)).parameters)
    expected = params - {"self"} - ({"path"} if command.returns_text else set())
    assert {o.param for o in command.options} == expected
    flags = [f for o in command.options for f in o.flags]
    assert len(flags) == len(set(flags))


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main([command, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert f"example: pl-metrics {command} predictions.parquet" in out
    assert "--ci" in out or "ci" not in _params(command)


def _params(command: str) -> set[str]:
    method = cli.commands()[command].method
    return set(inspect.signature(getattr(pl_metrics.MetricsLazyFrame, method)).parameters)


@pytest.fixture(scope="module")
def with_day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example with a date column ``day`` (30 days) for over-time."""
    path = tmp_path_factory.mktemp("day") / "predictions.parquet"
    day = pl.date(2026, 1, 1) + pl.duration(days=pl.int_range(pl.len()) % 30)
    pl.read_parquet(EXAMPLE).with_columns(day=day).write_parquet(path)
    return path


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_an_example_that_runs(
    command: str, with_day: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # html writes report.html
    path = with_day if command == "over-time" else EXAMPLE
    argv = [command, str(path), *shlex.split(cli.EXAMPLES[command])]
    if not cli.commands()[command].returns_text:
        argv += ["-o", "out.parquet"]
    out = cli.run(argv)
    if isinstance(out, str):
        assert out == (tmp_path / "report.html").read_text()
    else:
        assert out.height > 0
        assert_frame_equal(pl.read_parquet(tmp_path / "out.parquet"), out)


def test_the_docs_list_every_command() -> None:
    page = (Path(__file__).parents[1] / "docs" / "cli.md").read_text()
    rows = re.findall(r"^\| `([a-z][a-z0-9-]*)` \| `([a-z0-9_]+)` \|", page, flags=re.MULTILINE)
    assert sorted(rows) == sorted((n, c.method) for n, c in cli.commands().items())
    charts = re.findall(
        r"^\| `([a-z][a-z0-9-]*)` \|.*\| `?([a-z_]+)`?(?: \(with `--ci`\))? \|$",
        page,
        flags=re.MULTILINE,
    )
    assert dict(charts) == {n: c.function for n, c in cli.CHARTS.items()}


# ----------------------------------------- the CLI's frame is the method's frame


def _cat_pred(lf: pl.LazyFrame) -> pl.LazyFrame:
    return lf.with_columns(cat_pred=pl.col("y_pred") == "cat")


MAP = {c: f"p_{c}" for c in ("bird", "cat", "dog", "fish")}

# (command line after the path, the frame method on the same rows); one or more per
# namespace mixin: labels, ranking, probability, scoring, practitioner, compare,
# fairness, paired, monitoring
SAME_AS_METHOD = {
    "labels-report": (
        "report --y-true y_true --y-pred y_pred --by region --labels cat,dog,bird "
        "--beta 2 --zero-division 1 --weight weight",
        lambda lf: lf.metrics.report(
            "y_true",
            "y_pred",
            by="region",
            labels=["cat", "dog", "bird"],
            beta=2.0,
            zero_division=1.0,
            weight="weight",
        ),
    ),
    "labels-summary-ci": (
        "summary --y-true y_true --y-pred y_pred --by region --by model_version --ci 0.9 "
        "--n-boot 50 --seed 3 --ci-method wilson",
        lambda lf: lf.metrics.summary(
            "y_true",
            "y_pred",
            by=["region", "model_version"],
            ci=0.9,
            n_boot=50,
            seed=3,
            ci_method="wilson",
        ),
    ),
    "labels-confusion": (
        "confusion-matrix --y-true y_true --y-pred y_pred --normalize pred",
        lambda lf: lf.metrics.confusion_matrix("y_true", "y_pred", normalize="pred"),
    ),
    "ranking-roc-auc": (
        "roc-auc --y-true is_cat --score cat_score --by region --ci 0.95 --ci-method delong",
        lambda lf: lf.metrics.roc_auc(
            "is_cat", "cat_score", by="region", ci=0.95, ci_method="delong"
        ),
    ),
    "ranking-multiclass": (
        "roc-auc --y-true y_true --score-map bird=p_bird --score-map cat=p_cat,dog=p_dog "
        "--score-map fish=p_fish --average weighted",
        lambda lf: lf.metrics.roc_auc("y_true", MAP, average="weighted"),
    ),
    "ranking-roc-curve": (
        "roc-curve --y-true is_cat --score cat_score --keep-intermediate --pos-label false",
        lambda lf: lf.metrics.roc_curve(
            "is_cat", "cat_score", drop_intermediate=False, pos_label=False
        ),
    ),
    "probability-calibration": (
        "calibration-curve --y-true is_cat --y-prob cat_score --n-bins 7 --strategy quantile "
        "--by model_version",
        lambda lf: lf.metrics.calibration_curve(
            "is_cat", "cat_score", n_bins=7, strategy="quantile", by="model_version"
        ),
    ),
    "probability-best-threshold": (
        "best-threshold --y-true is_cat --score cat_score --metric f2 --beta 2 "
        "--where 'recall >= 0.9 AND precision > 0.5' --by region",
        lambda lf: lf.metrics.best_threshold(
            "is_cat",
            "cat_score",
            metric="f2",
            beta=2.0,
            where=(pl.col("recall") >= 0.9) & (pl.col("precision") > 0.5),
            by="region",
        ),
    ),
    "probability-top-k": (
        "top-k-accuracy --y-true y_true --score-map bird=p_bird,cat=p_cat,dog=p_dog,fish=p_fish "
        "--k 3",
        lambda lf: lf.metrics.top_k_accuracy("y_true", MAP, k=3),
    ),
    "probability-threshold-report": (
        "threshold-report --y-true is_cat --score cat_score --threshold 0.4 --pos-label true "
        "--neg-label false --by region",
        lambda lf: lf.metrics.threshold_report(
            "is_cat", "cat_score", threshold=0.4, pos_label=True, neg_label=False, by="region"
        ),
    ),
    "scoring-gains": (
        "gains --y-true is_cat --score cat_score --buckets 0.05,0.2,0.5 --by region",
        lambda lf: lf.metrics.gains("is_cat", "cat_score", buckets=[0.05, 0.2, 0.5], by="region"),
    ),
    "scoring-gains-int": (
        "gains --y-true is_cat --score cat_score --buckets 4",
        lambda lf: lf.metrics.gains("is_cat", "cat_score", buckets=4),
    ),
    "scoring-expected-cost": (
        "expected-cost --y-true is_cat --score cat_score --cost-matrix 0,1;5,0 --best",
        lambda lf: lf.metrics.expected_cost(
            "is_cat", "cat_score", cost_matrix=[[0, 1], [5, 0]], best=True
        ),
    ),
    "scoring-decision-cost": (
        "decision-cost --with-column 'not_cat=1 - cat_score' --y-true is_cat "
        "--score-map true=cat_score,false=not_cat "
        """--cost-matrix '{"true": {"true": 0, "false": 3}, "false": {"true": 1, "false": 0}}'""",
        lambda lf: lf.with_columns(not_cat=1 - pl.col("cat_score")).metrics.decision_cost(
            "is_cat",
            {True: "cat_score", False: "not_cat"},
            cost_matrix={True: {True: 0, False: 3}, False: {True: 1, False: 0}},
        ),
    ),
    "practitioner-likelihood-ratios": (
        "class-likelihood-ratios --with-column \"cat_pred=y_pred = 'cat'\" --y-true is_cat "
        "--y-pred cat_pred --by region --replace-undefined-by LR+=1,LR-=1",
        lambda lf: _cat_pred(lf).metrics.class_likelihood_ratios(
            "is_cat", "cat_pred", by="region", replace_undefined_by={"LR+": 1.0, "LR-": 1.0}
        ),
    ),
    "practitioner-d2": (
        "d2-log-loss-score --y-true is_cat --score cat_score --by region --pos-label true",
        lambda lf: lf.metrics.d2_log_loss_score("is_cat", "cat_score", by="region", pos_label=True),
    ),
    "compare": (
        "compare --y-true y_true --y-pred y_pred --by region --control model_version "
        "--metric recall_macro --n-boot 40 --seed 1 --adjust bh --ci 0.8",
        lambda lf: lf.metrics.compare(
            "y_true",
            "y_pred",
            by="region",
            control="model_version",
            metric="recall_macro",
            n_boot=40,
            seed=1,
            adjust="bh",
            ci=0.8,
        ),
    ),
    "fairness": (
        "fairness --with-column \"cat_pred=y_pred = 'cat'\" --y-true is_cat --y-pred cat_pred "
        "--by region --method to_overall --agg mean --ci 0.9 --n-boot 30",
        lambda lf: _cat_pred(lf).metrics.fairness(
            "is_cat", "cat_pred", by="region", method="to_overall", agg="mean", ci=0.9, n_boot=30
        ),
    ),
    "fairness-disparity-list": (
        "disparity --y-true y_true --y-pred y_pred --by region --metric accuracy "
        "--metric f1_macro,mcc --control model_version",
        lambda lf: lf.metrics.disparity(
            "y_true",
            "y_pred",
            by="region",
            metric=["accuracy", "f1_macro", "mcc"],
            control="model_version",
        ),
    ),
    "fairness-disparity-scores": (
        "disparity --y-true is_cat --y-pred cat_score --by region --metric roc_auc",
        lambda lf: lf.metrics.disparity("is_cat", "cat_score", by="region", metric="roc_auc"),
    ),
    "fairness-reference": (
        "reference-disparities --with-column \"cat_pred=y_pred = 'cat'\" --y-true is_cat "
        "--y-pred cat_pred --by region --by model_version --reference us,v2",
        lambda lf: _cat_pred(lf).metrics.reference_disparities(
            "is_cat", "cat_pred", by=["region", "model_version"], reference=("us", "v2")
        ),
    ),
    "paired": (
        "compare-models --y-true y_true --model base=y_pred --model other=region "
        "--by model_version --n-boot 30 --adjust holm",
        lambda lf: lf.metrics.compare_models(
            "y_true",
            {"base": "y_pred", "other": "region"},
            by="model_version",
            n_boot=30,
            adjust="holm",
        ),
    ),
    "paired-columns": (
        "compare-models --y-true is_cat --models cat_score,p_dog --metric roc_auc",
        lambda lf: lf.metrics.compare_models("is_cat", ["cat_score", "p_dog"], metric="roc_auc"),
    ),
}


@pytest.mark.parametrize("case", sorted(SAME_AS_METHOD))
def test_the_command_gives_the_methods_frame(case: str, tmp_path: Path) -> None:
    line, method = SAME_AS_METHOD[case]
    command, *options = shlex.split(line)
    target = tmp_path / "out.parquet"
    got = cli.run([command, str(EXAMPLE), *options, "-o", str(target)])
    expected = method(pl.scan_parquet(EXAMPLE)).collect()
    assert isinstance(got, pl.DataFrame)
    assert_frame_equal(got, expected)
    assert_frame_equal(pl.read_parquet(target), expected)


def test_over_time_gives_the_methods_frame(with_day: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    line = (
        "--y-true is_cat --score cat_score --index day --every 1d --period 3d "
        "--metrics roc_auc --metrics brier_score,ks --by region --pos-label true"
    )
    got = cli.run(["over-time", str(with_day), *shlex.split(line), "-o", str(target)])
    expected = pl.scan_parquet(with_day).metrics.over_time(
        "is_cat",
        y_score="cat_score",
        index="day",
        every="1d",
        period="3d",
        metrics=["roc_auc", "brier_score", "ks"],
        by="region",
        pos_label=True,
    )
    assert_frame_equal(got, expected.collect())
    written = pl.read_csv(target, try_parse_dates=True)
    assert_frame_equal(written, expected.collect(), check_dtypes=False)


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

LABELS = [str(EXAMPLE), *BASE]
BINARY = [str(EXAMPLE), "--y-true", "is_cat", "--score", "cat_score"]


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


# -------------------------------------------------------------------- charts, html


def test_every_chart_of_the_table_is_a_plot_function() -> None:
    plot = pytest.importorskip("pl_metrics.plot")
    for chart in cli.CHARTS.values():
        assert callable(getattr(plot, chart.function))


CHART_ARGS = {
    "roc-curve": [*BINARY, "--by", "region"],
    "pr-curve": [*BINARY, "--by", "region"],
    "confusion-matrix": [*LABELS, "--by", "region"],
    "per-class": [*LABELS, "--ci", "0.9", "--n-boot", "20"],
    "calibration-curve": [*BINARY, "--by", "region"],
    "thresholds": [*BINARY, "--by", "region"],
    "gains": [*BINARY, "--by", "region"],
    "summary": [*LABELS, "--by", "region", "--ci", "0.9", "--ci-method", "wilson"],
    "roc-auc": [*BINARY, "--by", "region", "--ci", "0.9", "--ci-method", "delong"],
    "gini": [*BINARY, "--by", "region", "--ci", "0.9"],
    "average-precision": [*BINARY, "--by", "region", "--ci", "0.9", "--n-boot", "20"],
    "compare": [*LABELS, "--by", "region", "--n-boot", "20"],
    "compare-models": [
        str(EXAMPLE),
        "--y-true",
        "is_cat",
        "--models",
        "cat_score,p_dog",
        "--metric",
        "roc_auc",
        "--by",
        "region",
    ],
    "drift-bins": [
        str(EXAMPLE),
        *("--columns", "cat_score,y_pred", "--reference", "model_version = 'v1'"),
        *("--by", "region"),
    ],
}


@pytest.mark.parametrize("command", sorted(cli.CHARTS))
def test_plot_writes_the_chart_of_every_command(
    command: str, tmp_path: Path, with_day: Path
) -> None:
    pytest.importorskip("vl_convert")
    target = tmp_path / "chart.png"
    if command == "over-time":
        args = [str(with_day), *BASE, "--index", "day", "--every", "7d", "--by", "region"]
    else:
        args = CHART_ARGS[command]
    cli.run([command, *args, "--plot", str(target), "-o", str(tmp_path / "out.csv")])
    assert target.read_bytes()[:4] == b"\x89PNG"


def test_compare_plot_draws_the_metric_given(tmp_path: Path) -> None:
    target = tmp_path / "forest.json"  # the Vega-Lite spec holds the rows drawn
    args = [*LABELS, "--by", "region", "--metric", "mcc", "--n-boot", "20"]
    frame = cli.run(["compare", *args, "--plot", str(target), "-o", str(tmp_path / "o.csv")])
    spec = json.loads(target.read_text())
    values = sorted(
        row["value"] for rows in spec["datasets"].values() for row in rows if "value" in row
    )
    assert values == sorted(frame["value"].to_list())


def test_html_writes_the_report_to_the_output(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    args = [*LABELS, "--score-map", "bird=p_bird,cat=p_cat,dog=p_dog,fish=p_fish", "--ci", "none"]
    page = cli.run(["html", *args, "--by", "region", "--title", "Animals", "-o", str(target)])
    assert isinstance(page, str)
    assert target.read_text(encoding="utf-8") == page
    expected = pl.scan_parquet(EXAMPLE).metrics.html_report(
        "y_true", "y_pred", y_score=MAP, by="region", ci=None, title="Animals"
    )
    assert "<title>Animals" in page
    # the same page as the method's, up to the last bits of floats (threaded sums)
    assert _rounded(page) == _rounded(expected)


def _rounded(text: str) -> str:
    """Floats to 9 digits, and without the minute the page was generated at."""
    text = re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "generated", text)
    return re.sub(r"\d+\.\d{9,}", lambda m: f"{float(m.group()):.9g}", text)


def test_ndcg_labels_are_text_not_typed_like_the_relevances(tmp_path: Path) -> None:
    """dcg / ndcg's y_true holds relevances (numbers): their --labels / --score-map
    labels are not numbers ('z' was refused as 'the label column holds numbers')."""
    frame = pl.DataFrame(
        {"rel": [[3.0, 0.0], [0.0, 1.0]], "sz": [0.9, 0.2], "sa": [0.1, 0.8]}
    ).with_columns(s=pl.concat_list("sz", "sa"))
    frame.write_parquet(tmp_path / "r.parquet")
    got = cli.run(
        ["ndcg", str(tmp_path / "r.parquet"), "--y-true", "rel", "--score", "s", "--labels", "z,a"]
    )
    expected = frame.metrics.ndcg("rel", "s", labels=["z", "a"])
    assert_frame_equal(got, expected)


def test_the_reference_rows_from_another_file(tmp_path: Path) -> None:
    """``--reference-file``: drift against the training data in another file (a CSV
    read with the input's CSV options, or Parquet beside a CSV input), equal to the
    method's ``reference=`` frame; ``--reference`` or ``--reference-file``, not both,
    and one of them for drift; in the report, the drift section against that file."""
    frame = pl.read_parquet(EXAMPLE)
    train, production = frame.filter(pl.col("model_version") == "v1"), frame
    columns = ["cat_score", "y_pred"]
    train.write_csv(tmp_path / "train.csv", separator=";")
    train.write_parquet(tmp_path / "train.parquet")
    production.write_csv(tmp_path / "prod.csv", separator=";")
    expected = production.metrics.drift(columns, reference=train, by="region")
    args = ["drift", str(tmp_path / "prod.csv"), "--separator", ";", "--columns", ",".join(columns)]
    for reference in ("train.csv", "train.parquet"):
        got = cli.run([*args, "--reference-file", str(tmp_path / reference), "--by", "region"])
        assert isinstance(got, pl.DataFrame)
        assert_frame_equal(got, expected, check_row_order=False, rel_tol=1e-12)
    for extra, message in (
        ([], "--reference is required (or --reference-file)"),
        (
            ["--reference", "model_version = 'v1'", "--reference-file", str(tmp_path / "x.pq")],
            "give either --reference or --reference-file, not both",
        ),
    ):
        with pytest.raises(cli.UsageError, match=re.escape(message)):
            cli.run([*args, *extra])
    reference = ["--reference-file", str(tmp_path / "train.parquet")]
    page = cli.run(
        ["html", str(EXAMPLE), *BASE, "--ci", "none", "-o", str(tmp_path / "r.html"), *reference]
    )
    want = pl.scan_parquet(EXAMPLE).metrics.html_report(
        "y_true", "y_pred", ci=None, reference=train
    )
    assert "Drift" in want
    assert _rounded(page) == _rounded(want)  # type: ignore[arg-type]
