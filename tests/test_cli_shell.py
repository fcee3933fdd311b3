"""The command line as a shell user meets it (issue 49): dates in SQL, weekly
segments, tables a reader can read, charts of long curves, no traceback."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import average_precision_score, brier_score_loss, roc_auc_score

import pl_metrics  # noqa: F401  (registers .metrics)
from pl_metrics import cli

EXAMPLE = Path(__file__).parents[1] / "examples" / "predictions.parquet"


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def dated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example rows, each on one of 180 days from 2025-01-01 (row i: day i % 180)."""
    frame = pl.read_parquet(EXAMPLE).with_columns(
        date=pl.date(2025, 1, 1) + pl.duration(days=pl.int_range(pl.len()) % 180)
    )
    path = tmp_path_factory.mktemp("dated") / "dated.parquet"
    frame.write_parquet(path)
    return path


# --- dates in SQL -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reference",
    [
        "date < '2025-04-01'",  # failed: "cannot compare 'date/datetime/time' to a string"
        "date < DATE '2025-04-01'",
        "date < '2025-04-01'::date",
        "date BETWEEN '2025-01-01' AND '2025-03-31'",
        "date < '2025-04-01 00:00'",  # a time: TIMESTAMP '2025-04-01 00:00'
    ],
)
def test_a_date_written_as_text_marks_the_reference_rows(
    dated: Path, capsys: pytest.CaptureFixture[str], reference: str
) -> None:
    """``--reference "date < '2025-04-01'"`` is the method's ``pl.col("date") <
    date(2025, 4, 1)``: days 0 to 89 of every 180 (Jan 1 - Mar 31: 31 + 28 + 31 = 90
    days) are the reference rows."""
    args = ["drift", str(dated), "--columns", "cat_score,y_pred", "--by", "region"]
    status, out, err = _main(capsys, *args, "--reference", reference, "--format", "csv")
    assert (status, err) == (0, "")
    frame = pl.read_parquet(dated)
    expected = frame.metrics.drift(
        ["cat_score", "y_pred"], reference=pl.col("date") < dt.date(2025, 4, 1), by="region"
    )
    got = pl.read_csv(out.encode())
    assert_frame_equal(got, expected, check_dtypes=False)
    # the reference rows, in every segment's row: 4,000 rows = 22 x 180 + 40, days
    # 0-89 of each full 180 and the 40 of the last: 22 x 90 + 40 = 2,020
    assert set(got["n_reference"]) == {2020}


def test_a_date_that_cannot_be_read_says_how_to_write_one(
    dated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _main(
        capsys, "drift", str(dated), "--columns", "cat_score", "--reference", "date < 'soon'"
    )
    assert (status, out) == (2, "")
    assert err.count("\n") == 1  # one line, no traceback
    assert err.startswith("pl-metrics: error: --reference \"date < 'soon'\": cannot compare")
    assert err.endswith(
        "a date is written DATE '2025-04-01' (a time TIMESTAMP '2025-04-01 10:00')\n"
    )


def test_a_reference_that_is_not_boolean_is_refused_before_reading(
    dated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = _main(
        capsys, "drift", str(dated), "--columns", "cat_score", "--reference", "cat_score * 2"
    )
    assert status == 2
    assert "a Float64 expression, not a Boolean one" in err


def _has_date_trunc() -> bool:
    """Whether this polars' SQL has ``date_trunc`` (2.1 and newer; not 2.0, the floor)."""
    frame = pl.DataFrame({"d": [dt.date(2025, 1, 8)]})
    try:
        frame.sql("SELECT date_trunc('week', d) AS w FROM self")
    except pl.exceptions.SQLInterfaceError:
        return False
    return True


@pytest.mark.parametrize(
    "week", ["date_trunc('week', date)", "CAST(date_trunc('week', date) AS DATE)"]
)
def test_weekly_segments_from_the_shell(
    dated: Path, capsys: pytest.CaptureFixture[str], week: str
) -> None:
    """``--with-column "week=date_trunc('week', date)"`` (failed: "DATE_TRUNC cannot
    determine the type of col("date")"): one AUC per week starting on Monday, each
    scikit-learn's on the week's rows (grouped here by Python's ISO calendar)."""
    args = ["roc-auc", str(dated), "--y-true", "is_cat", "--score", "cat_score", "--by", "week"]
    status, out, err = _main(capsys, *args, "--with-column", f"week={week}", "--format", "csv")
    if not _has_date_trunc():  # polars 2.0's SQL (the floor): one clear line, status 2
        assert status == 2
        assert len(err.strip().splitlines()) == 1
        assert "date_trunc" in err
        return
    assert (status, err) == (0, "")
    got = pl.read_csv(out.encode(), try_parse_dates=True)
    frame = pl.read_parquet(dated)
    weeks: dict[dt.date, list[int]] = {}
    for i, day in enumerate(frame["date"]):
        weeks.setdefault(day - dt.timedelta(days=day.weekday()), []).append(i)
    assert [w.date() if isinstance(w, dt.datetime) else w for w in got["week"]] == sorted(weeks)
    y, s = frame["is_cat"].to_numpy(), frame["cat_score"].to_numpy()
    for auc, monday in zip(got["roc_auc"], sorted(weeks), strict=True):
        rows = weeks[monday]
        assert auc == pytest.approx(roc_auc_score(y[rows], s[rows]), rel=1e-12)


def test_a_column_replaced_by_sql_keeps_its_place(capsys: pytest.CaptureFixture[str]) -> None:
    """``--with-column NAME=SQL`` of an existing column replaces it: the AUC of
    ``1 - cat_score`` is 1 - the AUC of ``cat_score`` (the order reversed)."""
    args = ["roc-auc", str(EXAMPLE), "--y-true", "is_cat", "--score", "cat_score"]
    status, out, _ = _main(
        capsys, *args, "--with-column", "cat_score=1 - cat_score", "--format", "csv"
    )
    assert status == 0
    frame = pl.read_parquet(EXAMPLE)
    auc = roc_auc_score(frame["is_cat"].to_numpy(), frame["cat_score"].to_numpy())
    assert pl.read_csv(out.encode())["roc_auc"][0] == pytest.approx(1 - auc, rel=1e-12)


# --- tables -------------------------------------------------------------------------------


def test_a_small_number_prints_its_significant_digits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Brier score of 1e-6 printed ``0.0000``: (0.001^2 + 0.001^2) / 2 = 1e-6 by hand
    (y = [1, 0], p = [0.999, 0.001])."""
    path = tmp_path / "near.parquet"
    pl.DataFrame({"y": [1, 0], "p": [0.999, 0.001]}).write_parquet(path)
    status, out, _ = _main(capsys, "brier-score", str(path), "--y-true", "y", "--score", "p")
    assert status == 0
    assert brier_score_loss([1, 0], [0.999, 0.001]) == pytest.approx(1e-6)
    row = out.splitlines()[6]  # after the shape, the top, the name, --- and the type
    assert row.split("│")[1].strip() == "1e-06"
    assert "0.0000" not in out


def test_a_wide_table_of_one_row_is_turned_and_nothing_is_cut(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``fairness --ci``: 18 columns cut to ``demograph…`` in a 200-character table;
    now a line per column, every name and value whole."""
    args = ["fairness", str(EXAMPLE), "--with-column", "cat_pred=y_pred = 'cat'"]
    args += ["--y-true", "is_cat", "--y-pred", "cat_pred", "--by", "region", "--ci", "0.95"]
    status, out, _ = _main(capsys, *args, "--n-boot", "50", "--seed", "0")
    assert status == 0
    frame = pl.read_parquet(EXAMPLE).with_columns(cat_pred=pl.col("y_pred") == "cat")
    expected = frame.metrics.fairness("is_cat", "cat_pred", by="region", ci=0.95, n_boot=50, seed=0)
    assert expected.shape == (1, 18)
    assert "…" not in out
    assert all(len(line) <= 200 for line in out.splitlines())
    rows = [line.strip("│").split("┆") for line in out.splitlines() if line.startswith("│ ")]
    cells = {name.strip(): value.strip() for name, _, value in rows[2:]}  # after column, ---
    assert len(cells) == 18
    for name in expected.columns:
        assert float(cells[name]) == pytest.approx(expected[name][0], rel=1e-5)  # 6 digits


def test_a_wide_table_is_wrapped_with_its_keys(capsys: pytest.CaptureFixture[str]) -> None:
    """Several rows wider than 200 characters: blocks of columns, each starting
    with the key columns; every column once besides them."""
    args = ["fairness", str(EXAMPLE), "--with-column", "cat_pred=y_pred = 'cat'"]
    args += ["--y-true", "is_cat", "--y-pred", "cat_pred", "--by", "region"]
    args += ["--control", "model_version", "--ci", "0.95", "--n-boot", "50", "--seed", "0"]
    status, out, _ = _main(capsys, *args)
    assert status == 0
    assert all(len(line) <= 200 for line in out.splitlines())
    blocks = out.split("\n", 1)[1].split("\n\n")  # after the shape
    headers = [
        [cell.strip() for cell in block.splitlines()[1].strip("│").split("┆")] for block in blocks
    ]
    assert len(headers) > 1
    assert all(header[0] == "model_version" for header in headers)
    names = [name for header in headers for name in header[1:]]
    assert len(names) == 18
    assert len(set(names)) == 18


def test_the_average_rows_have_an_empty_label_and_a_null_segment_reads_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``report``: the label of the micro / macro / weighted rows printed ``null``;
    an empty cell now.  A null ``--by`` value is a segment, and reads ``null``."""
    path = tmp_path / "nulls.parquet"
    frame = pl.read_parquet(EXAMPLE).with_columns(
        pl.when(pl.col("region") != "eu").then(pl.col("region")).alias("region")
    )
    frame.write_parquet(path)
    args = ["report", str(path), "--y-true", "y_true", "--y-pred", "y_pred", "--by", "region"]
    status, out, _ = _main(capsys, *args)
    assert status == 0
    rows = [
        [c.strip() for c in line.strip("│").split("┆")]
        for line in out.splitlines()
        if line.startswith("│ ")
    ][3:]  # after the name, the --- and the type
    table = frame.metrics.report("y_true", "y_pred", by="region")
    assert len(rows) == table.height  # 4 segments x (4 classes + 3 averages)
    for row, (region, label, average) in zip(
        rows, table.select("region", "label", "average").rows(), strict=True
    ):
        assert row[:3] == [region or "null", label or "", average or ""]
    assert sum(row[0] == "null" for row in rows) == 7


# --- charts -------------------------------------------------------------------------------


@pytest.mark.parametrize(("command", "area"), [("roc-curve", "auc"), ("pr-curve", "ap")])
def test_a_long_curve_is_drawn_thinned_from_the_shell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, area: str
) -> None:
    """100,000 rows in two segments (13,000 ROC and 50,000 PR points each): the
    chart's data holds at most MAX_POINTS of each curve, the legend scikit-learn's."""
    import pl_metrics.plot as plp

    rng = np.random.default_rng(0)
    n = 100_000
    y = rng.random(n) < 0.3
    frame = pl.DataFrame(
        {
            "y": y,
            "s": 1 / (1 + np.exp(-(rng.normal(size=n) + 1.5 * y))),
            "seg": rng.choice(["a", "b"], n),
        }
    )
    path, target = tmp_path / "big.parquet", tmp_path / "chart.json"
    frame.write_parquet(path)
    args = [command, str(path), "--y-true", "y", "--score", "s", "--by", "seg"]
    status, _, err = _main(
        capsys, *args, "-o", str(tmp_path / "out.parquet"), "--plot", str(target)
    )
    assert (status, err) == (0, "")
    spec = json.loads(target.read_text())
    rows = [row for data in spec["datasets"].values() for row in data if "legend" in row]
    oracle = roc_auc_score if area == "auc" else average_precision_score
    for segment in ("a", "b"):
        drawn = [row for row in rows if row["segment"] == segment]
        assert 2 <= len(drawn) <= plp.MAX_POINTS
        part = frame.filter(pl.col("seg") == segment)
        expected = oracle(part["y"].to_numpy(), part["s"].to_numpy())
        assert drawn[0]["legend"] == f"{segment} ({area.upper()} {expected:.3f})"


def test_an_error_of_the_chart_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the chart's saving raises (here a RuntimeError, which went through
    as a traceback): one line, status 2; the table was written before."""
    import pl_metrics.plot as plp

    class Chart:
        def save(self, target: str) -> None:
            raise RuntimeError("Fatal JavaScript out of memory\nstack trace ...")

    monkeypatch.setattr(plp, "roc_curve", lambda frame, **kwargs: Chart())
    args = ["roc-curve", str(EXAMPLE), "--y-true", "is_cat", "--score", "cat_score"]
    status, out, err = _main(capsys, *args, "--plot", "roc.png")
    assert status == 2
    assert out.startswith("shape: (")
    assert err == (
        "pl-metrics: error: --plot roc.png: the chart was not saved "
        "(Fatal JavaScript out of memory)\n"
    )
