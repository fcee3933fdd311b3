"""The ``pl-metrics`` commands: one for every public method and option, each with an
example that runs, and the command's frame equal to the method's."""

from __future__ import annotations

import inspect
import re
import shlex
from pathlib import Path

import polars as pl
import pytest
from _cli_helpers import BASE, EXAMPLE, MAP, _rounded
from _cli_helpers import with_day as day_example  # noqa: F401
from polars.testing import assert_frame_equal

import pl_metrics
from pl_metrics import cli

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
