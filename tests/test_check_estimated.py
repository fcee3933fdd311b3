"""``check`` with the estimated metrics (issue 52: a weekly job checks the estimated AUC
of the unlabelled weeks per region against its reference and fails the pipeline).

An estimated rule's value and interval are ``estimated_performance``'s on the current
rows, calibrated on the reference rows (that method is checked against the definitions
with scikit-learn and against NannyML in its own tests); ``reference - m`` compares the
estimate with the metric realized on the reference rows, computed here by
scikit-learn.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.metrics import recall_score, roc_auc_score

from pl_metrics._monitoring.check import difference_bounds


def _rows(n: int = 4_000, seed: int = 0) -> pl.DataFrame:
    """``g, y, s, p, ref``: scores whose probability of ``y = 1`` is ``s ** 2``; the
    first half of the rows the labelled reference."""
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "y": (rng.uniform(size=n) < s**2).astype(np.int64),
            "s": s,
            "p": (s >= 0.6).astype(np.int64),
            "ref": np.arange(n) < n // 2,
        }
    )


ROWS = _rows()
CURRENT = ROWS.filter(~pl.col("ref")).drop("y", "ref")  # unlabelled
REFERENCE = ROWS.filter(pl.col("ref")).drop("ref")
COLUMNS = {"y_true": "y", "y_pred": "p", "y_score": "s", "by": "g"}


def _estimated(ci: float | None = 0.95) -> pl.DataFrame:
    return CURRENT.metrics.estimated_performance(
        "p", "s", reference=REFERENCE, y_true="y", by="g", metrics=["roc_auc", "recall"], ci=ci
    ).sort("g")


@pytest.mark.parametrize("ci", [0.95, None])
@pytest.mark.parametrize("form", ["frame", "expression"])
def test_an_estimated_rule_is_estimated_performance_on_the_current_rows(
    form: str, ci: float | None
) -> None:
    rules = ["estimated_roc_auc >= 0.85", "estimated_recall < 0.7"]
    if form == "frame":  # the current rows hold no label at all
        got = CURRENT.metrics.check(rules, reference=REFERENCE, ci=ci, **COLUMNS)
    else:
        got = ROWS.metrics.check(rules, reference=pl.col("ref"), ci=ci, **COLUMNS)
    expected = _estimated(ci)
    for metric in ("roc_auc", "recall"):
        rows = got.filter(pl.col("metric") == f"estimated_{metric}").sort("g")
        assert rows["value"].to_list() == pytest.approx(expected[metric].to_list(), abs=1e-12)
        if ci is None:
            assert "low" not in got.columns
            continue
        for side in ("low", "high"):
            want = expected[f"{metric}_{side}"].to_list()
            assert rows[side].to_list() == pytest.approx(want, abs=1e-12)
    statuses = dict(zip(got["rule"] + got["g"], got["status"], strict=True))
    for g, (auc, recall) in zip(
        expected["g"], expected.select("roc_auc", "recall").rows(), strict=True
    ):
        if ci is None:  # the point decides
            assert statuses[f"{rules[0]}{g}"] == ("pass" if auc >= 0.85 else "fail")
            assert statuses[f"{rules[1]}{g}"] == ("pass" if recall < 0.7 else "fail")


def test_estimated_against_the_reference_is_the_estimate_less_the_realized() -> None:
    """``estimated_recall >= reference - 0.05``: the segment's estimated recall less
    its recall realized on the reference rows (scikit-learn's), the interval of the
    difference from both intervals (MOVER, as every reference rule)."""
    rule = "estimated_recall >= reference - 0.05"
    got = ROWS.metrics.check(rule, reference=pl.col("ref"), **COLUMNS).sort("g")
    estimated = _estimated()
    assert got["metric"].to_list() == ["estimated_recall - reference"] * 2
    assert got["threshold"].to_list() == [-0.05, -0.05]
    for row, est in zip(got.rows(named=True), estimated.rows(named=True), strict=True):
        part = REFERENCE.filter(pl.col("g") == row["g"])
        realized = recall_score(part["y"].to_numpy(), part["p"].to_numpy())
        assert row["value"] == pytest.approx(est["recall"] - realized, abs=1e-12)
        assert row["low"] <= row["value"] <= row["high"]
    # the reference side's interval is the realized recall's, as the plain rule has it
    plain = REFERENCE.metrics.check("recall >= 0", y_true="y", y_pred="p", by="g").sort("g")
    current = (pl.lit(v) for v in (estimated["recall"][0], estimated["recall_low"][0]))
    low, _ = difference_bounds(
        (*current, pl.lit(estimated["recall_high"][0])),
        (pl.lit(plain["value"][0]), pl.lit(plain["low"][0]), pl.lit(plain["high"][0])),
    )
    assert got["low"][0] == pytest.approx(pl.select(low).item(), abs=1e-12)


def test_estimated_auc_against_the_reference_auc() -> None:
    got = CURRENT.metrics.check(
        "estimated_roc_auc >= reference - 0.02", reference=REFERENCE, **COLUMNS
    ).sort("g")
    estimated = _estimated()
    for row, est in zip(got.rows(named=True), estimated.rows(named=True), strict=True):
        part = REFERENCE.filter(pl.col("g") == row["g"])
        realized = roc_auc_score(part["y"].to_numpy(), part["s"].to_numpy())
        assert row["value"] == pytest.approx(est["roc_auc"] - realized, abs=1e-12)


@pytest.mark.parametrize(
    ("missing", "match"),
    [
        ({"reference": None}, r"rule 'estimated_roc_auc >= 0.8' needs `reference`"),
        ({"y_pred": None}, r"rule 'estimated_roc_auc >= 0.8' needs `y_pred`"),
        ({"y_true": None}, r"rule 'estimated_roc_auc >= 0.8' needs `y_true`"),
    ],
)
def test_an_estimated_rule_names_what_it_misses(missing: dict, match: str) -> None:
    call = {**COLUMNS, "reference": REFERENCE, **missing}
    with pytest.raises(ValueError, match=match):
        CURRENT.metrics.check("estimated_roc_auc >= 0.8", **call)


def test_an_unknown_estimated_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown metric 'estimated_mcc'.*estimated_roc_auc"):
        CURRENT.metrics.check("estimated_mcc >= 0.8", reference=REFERENCE, **COLUMNS)


def test_the_cli_checks_an_estimated_rule(tmp_path: Path) -> None:
    """The line a scheduler runs on the unlabelled week: the training rows as
    ``--reference-file``; the same frame as the method's."""
    from pl_metrics import cli

    week, train = tmp_path / "week.parquet", tmp_path / "train.parquet"
    CURRENT.write_parquet(week)
    REFERENCE.write_parquet(train)
    out = tmp_path / "gate.parquet"
    rule = "estimated_roc_auc >= reference - 0.02"
    args = ["--y-true", "y", "--y-pred", "p", "--score", "s", "--by", "g"]
    code = cli.main(
        ["check", str(week), "--rule", rule, *args, "--reference-file", str(train), "-o", str(out)]
    )
    expected = CURRENT.metrics.check(rule, reference=REFERENCE, **COLUMNS)
    assert_frame_equal(pl.read_parquet(out), expected)
    assert code == (1 if (expected["status"] == "fail").any() else 0)
