"""Bootstrap intervals of the multilabel set metrics (whole rows resampled).

No coverage simulation (too slow for the suite): the intervals hold the point
estimate, shrink with more rows, are the same on every path and for the same
seed, and agree with a direct numpy bootstrap of scikit-learn's metric (rows
resampled) within Monte-Carlo error.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
import sklearn.metrics as skm
from polars.testing import assert_frame_equal

import pl_metrics as plm

LABELS = ["a", "b", "c", "d"]
CI = {"ci": 0.9, "n_boot": 200, "seed": 5}


def _frame(n: int, seed: int = 0, groups: int = 2) -> pl.DataFrame:
    """Correlated label sets: the prediction keeps each true label with p 0.7 and adds
    each other label with p 0.2 (rows with no label, and all four, occur)."""
    rng = np.random.default_rng(seed)
    truth = rng.random((n, 4)) < 0.35
    pred = np.where(truth, rng.random((n, 4)) < 0.7, rng.random((n, 4)) < 0.2)
    sets = [[[LABELS[j] for j in range(4) if row[j]] for row in m] for m in (truth, pred)]
    return pl.DataFrame(
        {"t": sets[0], "p": sets[1], "g": rng.integers(0, groups, n), "w": rng.random(n)},
        schema={"t": pl.List(pl.String), "p": pl.List(pl.String), "g": pl.Int64, "w": pl.Float64},
    ).with_columns(
        *(pl.col("t").list.contains(pl.lit(x)).alias(f"t_{x}") for x in LABELS),
        *(pl.col("p").list.contains(pl.lit(x)).alias(f"p_{x}") for x in LABELS),
    )


METHODS = {
    "per_class": ["precision", "recall", "specificity", "f1", "jaccard", "fowlkes_mallows"],
    "averages": ["precision", "recall", "f1", "jaccard", "fowlkes_mallows"],
    "report": ["precision", "recall", "f1", "jaccard", "fowlkes_mallows"],
    "summary": ["subset_accuracy", "hamming_loss", "jaccard_samples"],
}


def _call(df: pl.DataFrame | pl.LazyFrame, method: str, **kw: object) -> pl.DataFrame:
    if method != "summary":  # the opt-in score's interval too
        kw["extra_scores"] = ["fowlkes_mallows"]
    frame = getattr(df.metrics, method)("t", "p", **kw)
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


@pytest.mark.parametrize("method", sorted(METHODS))
def test_intervals_hold_the_point_and_keep_the_schema(method: str) -> None:
    df = _frame(400)
    point = _call(df, method, by="g")
    got = _call(df, method, by="g", **CI)
    metrics = METHODS[method]
    assert got.columns == [*point.columns, *(f"{m}_{e}" for m in metrics for e in ("low", "high"))]
    assert_frame_equal(got.select(point.columns), point)
    for m in metrics:
        low, value, high = got[f"{m}_low"], got[m], got[f"{m}_high"]
        assert low.null_count() == 0, m
        assert ((low <= value + 1e-12) & (value <= high + 1e-12)).all(), m


def test_intervals_shrink_with_more_rows() -> None:
    small = _call(_frame(200, seed=1, groups=1), "averages", **CI)
    large = _call(_frame(3200, seed=2, groups=1), "averages", **CI)
    for m in METHODS["averages"]:
        width_small = small[f"{m}_high"] - small[f"{m}_low"]
        width_large = large[f"{m}_high"] - large[f"{m}_low"]
        assert (width_large < 0.5 * width_small).all(), m  # ~1/4 the width: 16x the rows


def test_same_seed_same_intervals_on_every_path_and_row_order() -> None:
    df = _frame(300, seed=3)
    for method in METHODS:
        eager = _call(df, method, by="g", **CI)
        extra = {} if method == "summary" else {"extra_scores": ["fowlkes_mallows"]}
        lazy = df.lazy().metrics.__getattribute__(method)("t", "p", by="g", **CI, **extra)
        assert isinstance(lazy, pl.LazyFrame)
        assert_frame_equal(lazy.collect(engine="streaming"), eager)
        assert_frame_equal(lazy.collect(engine="in-memory"), eager)
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=9)
        assert_frame_equal(_call(shuffled, method, by="g", **CI), eager)
        other = _call(df, method, by="g", **{**CI, "seed": 6})
        assert not other.equals(eager), method
        # the indicator form: the same rows, the same draws
        tmap, pmap = {x: f"t_{x}" for x in LABELS}, {x: f"p_{x}" for x in LABELS}
        mapped = getattr(df.metrics, method)(tmap, pmap, by="g", **CI, **extra)
        assert_frame_equal(mapped, eager)


def _numpy_bootstrap(
    yt: np.ndarray, yp: np.ndarray, metric: object, n_boot: int, ci: float, seed: int
) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    n = len(yt)
    values = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n_boot):
            i = rng.integers(0, n, n)
            values.append(metric(yt[i], yp[i]))  # type: ignore[operator]
    tail = (1 - ci) / 2
    low, high = np.percentile(values, [100 * tail, 100 * (1 - tail)])
    return float(low), float(high)


def test_agrees_with_a_numpy_row_bootstrap_of_sklearn() -> None:
    """Monte-Carlo error of a 90% percentile bound with 2000 replicates on 400 rows:
    about 0.1 x the interval's half-width; 0.25 x the width is a loose bound."""
    df = _frame(400, seed=4, groups=1)
    yt = df.select(pl.col(f"t_{x}").cast(pl.Int64) for x in LABELS).to_numpy()
    yp = df.select(pl.col(f"p_{x}").cast(pl.Int64) for x in LABELS).to_numpy()
    opts = {"ci": 0.9, "n_boot": 2000, "seed": 7}
    averages = _call(df, "averages", **opts)
    summary = _call(df, "summary", **opts)
    cases = {
        ("samples", "f1"): lambda t, p: skm.f1_score(t, p, average="samples", zero_division=0),
        ("macro", "recall"): lambda t, p: skm.recall_score(t, p, average="macro", zero_division=0),
        ("micro", "precision"): lambda t, p: skm.precision_score(t, p, average="micro"),
        ("summary", "hamming_loss"): skm.hamming_loss,
        ("summary", "subset_accuracy"): skm.accuracy_score,
    }
    for (average, metric), fn in cases.items():
        row = (
            summary.row(0, named=True)
            if average == "summary"
            else averages.filter(pl.col("average") == average).row(0, named=True)
        )
        low, high = _numpy_bootstrap(yt, yp, fn, 2000, 0.9, seed=11)
        width = high - low
        assert abs(row[f"{metric}_low"] - low) < 0.25 * width, (average, metric)
        assert abs(row[f"{metric}_high"] - high) < 0.25 * width, (average, metric)


def test_too_many_label_sets_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    # a multilabel bootstrap's cells are the distinct pairs of label sets (up to
    # 2^L x 2^L a segment, however few segments): the refusal says so, names the
    # arguments (not internal columns) and does not suggest fewer segments
    from pl_metrics._intervals import resample

    monkeypatch.setattr(resample, "MAX_ROWS", 100)
    with pytest.raises(ValueError, match="n_boot=20") as refused:
        _frame(300).metrics.averages("t", "p", ci=0.9, n_boot=20)
    message = str(refused.value)
    assert "(segment, y_true's label set, y_pred's label set) rows" in message
    assert message.endswith(
        "use fewer replicates (n_boot=): each distinct pair of label sets is a cell"
    )


def test_refusals() -> None:
    df = _frame(50)
    with pytest.raises(ValueError, match="`ci` needs un-weighted rows"):
        df.metrics.averages("t", "p", weight="w", ci=0.9)
    with pytest.raises(ValueError, match=r"ci_method='wilson'.*multilabel"):
        df.metrics.per_class("t", "p", ci=0.9, ci_method="wilson")
    with pytest.raises(ValueError, match=r"ci_method='wilson'.*multilabel"):
        df.metrics.summary("t", "p", ci=0.9, ci_method="wilson")
    with pytest.raises(ValueError, match="`by` column 'f1_low' collides"):
        df.rename({"g": "f1_low"}).metrics.averages("t", "p", by="f1_low", ci=0.9)
    with pytest.raises(ValueError, match="`by` column 'hamming_loss_high' collides"):
        df.rename({"g": "hamming_loss_high"}).metrics.summary(
            "t", "p", by="hamming_loss_high", ci=0.9
        )


def test_bad_rows_are_the_data_error_with_ci() -> None:
    df = _frame(50).with_columns(
        pl.when(pl.int_range(pl.len()) == 3).then(None).otherwise("t").alias("t")
    )
    for method in METHODS:
        with pytest.raises(plm.DataError, match="'t' has 1 null rows"):
            _call(df, method, **CI)
        with pytest.raises(plm.DataError, match="'t' has 1 null rows"):
            _call(df.lazy(), method, **CI)


def test_empty_frame_and_one_row() -> None:
    df = _frame(10)
    for method, metrics in METHODS.items():
        empty = _call(df.head(0), method, by="g", **CI)
        assert empty.height == 0
        assert empty.columns == _call(df, method, by="g", **CI).columns
        one = _call(df.head(1), method, **CI)  # every replicate is the one row
        for m in metrics:
            same = one[f"{m}_low"].eq_missing(one[m]) & one[f"{m}_high"].eq_missing(one[m])
            assert same.all(), (method, m)
