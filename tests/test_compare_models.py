"""compare_models: paired tests of models on the same rows against scikit-learn,
statsmodels, a brute-force DeLong and simulations (size and coverage)."""

from __future__ import annotations

import math
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy.stats import norm
from sklearn import metrics as skm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

import pl_metrics as plm
from pl_metrics._core.names import ALL
from pl_metrics._groups import paired as pt
from pl_metrics._groups import paired_ap as pap
from pl_metrics._groups import paired_delong
from pl_metrics._intervals import draws as bs

LABEL_ORACLES = {
    "accuracy": skm.accuracy_score,
    "balanced_accuracy": skm.balanced_accuracy_score,
    "mcc": skm.matthews_corrcoef,
    "cohen_kappa": skm.cohen_kappa_score,
}
BINARY_ORACLES = {
    "precision": lambda y, p: skm.precision_score(y, p, pos_label=1, zero_division=0),
    "recall": lambda y, p: skm.recall_score(y, p, pos_label=1, zero_division=0),
    "f1": lambda y, p: skm.f1_score(y, p, pos_label=1, zero_division=0),
}


def _roc_auc(y: np.ndarray, s: np.ndarray) -> float | None:
    return skm.roc_auc_score(y, s) if len(set(y)) == 2 else None  # scikit-learn raises


SCORE_ORACLES = {"roc_auc": _roc_auc, "average_precision": skm.average_precision_score}
ORACLES = {**LABEL_ORACLES, **BINARY_ORACLES, **SCORE_ORACLES}


# ------------------------------------------------------------------------ point values
@st.composite
def paired(draw: st.DrawFn, metric: str) -> pl.DataFrame:
    """Rows of up to three segments (one may hold a single class) and three models."""
    n = draw(st.integers(1, 40))
    labels = [0, 1, 2] if metric in LABEL_ORACLES else [0, 1]
    y = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    data: dict[str, list] = {"g": draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n))}
    if metric in SCORE_ORACLES:
        data["y"] = oracle.with_a_positive(y)  # pos_label absent everywhere is an error
        scores = st.sampled_from([0.0, 0.2, 0.5, 0.8, 1.0])  # few values: ties
        for m in ("m0", "m1", "m2"):
            data[m] = draw(st.lists(scores, min_size=n, max_size=n))
    else:
        data["y"] = y
        for m in ("m0", "m1", "m2"):
            data[m] = draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))
    return pl.DataFrame(data)


def _expected(df: pl.DataFrame, metric: str, models: dict[str, str]) -> pl.DataFrame:
    """scikit-learn's value of each model per segment, the baseline's beside it."""
    rows = []
    for (g,), seg in df.group_by(["g"]):
        y = seg["y"].to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = {m: ORACLES[metric](y, seg[c].to_numpy()) for m, c in models.items()}
        base = next(iter(models))
        rows += [
            {"g": g, "model": m, "value": values[m], "baseline_value": values[base]}
            for m in list(models)[1:]
        ]
    return pl.DataFrame(rows, schema_overrides={"value": pl.Float64, "baseline_value": pl.Float64})


def _check_point_values(df: pl.DataFrame, metric: str) -> None:
    models = {"base": "m0", "one": "m1", "two": "m2"}
    got = df.metrics.compare_models("y", models, by="g", metric=metric, n_boot=20)
    expected = _expected(df, metric, models)
    key = ["g", "model"]
    assert_frame_equal(
        got.select(*key, "value", "baseline_value").sort(key),
        expected.sort(key),
        rel_tol=1e-9,
        abs_tol=1e-12,
    )
    assert got["baseline"].unique().to_list() == ["base"]
    # the same number as the metric's own method
    if metric in LABEL_ORACLES:
        own = df.metrics.summary("y", "m1", by="g").select("g", metric)
    elif metric in BINARY_ORACLES:
        own = df.metrics.per_class("y", "m1", by="g", labels=[1])
        own = own.select("g", metric)
    else:
        own = getattr(df.metrics, metric)("y", "m1", by="g").select("g", metric)
    mine = got.filter(pl.col("model") == "one").select("g", pl.col("value").alias(metric))
    assert_frame_equal(mine, own)
    # undefined differences have no test; defined ones have their test's columns
    undefined = got["diff"].fill_nan(None).is_null()
    for column in ("low", "high", "p_value", "p_adjusted", "statistic"):
        assert got.filter(undefined)[column].null_count() == undefined.sum()
    assert (got["diff"] - (got["value"] - got["baseline_value"])).fill_nan(0).abs().max() in (
        None,
        0.0,
    )


@pytest.mark.parametrize("metric", sorted(ORACLES))
def test_point_values_equal_sklearn(metric: str) -> None:
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(df=paired(metric))
    def run(df: pl.DataFrame) -> None:
        _check_point_values(df, metric)

    run()


def test_one_class_segments() -> None:
    """A segment of one class: roc_auc and kappa undefined (null / NaN, no test), the
    other metrics defined and tested (scikit-learn's values)."""
    df = pl.DataFrame(
        {
            "g": ["a"] * 4 + ["b"] * 4,
            "y": [1, 1, 1, 1, 0, 1, 0, 1],
            "s0": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
            "s1": [0.4, 0.3, 0.2, 0.1, 0.5, 0.5, 0.5, 0.5],
            "p0": [1, 1, 1, 1, 0, 1, 1, 1],
            "p1": [1, 1, 1, 1, 0, 0, 0, 1],
        }
    )
    auc = df.metrics.compare_models("y", ["s0", "s1"], by="g", metric="roc_auc")
    assert auc.row(0, named=True) | {"g": "a"} == {
        "g": "a",
        "metric": "roc_auc",
        "model": "s1",
        "baseline": "s0",
        "value": None,
        "baseline_value": None,
        "diff": None,
        "low": None,
        "high": None,
        "test": "delong",
        "statistic": None,
        "p_value": None,
        "p_adjusted": None,
    }
    kappa = df.metrics.compare_models("y", ["p0", "p1"], by="g", metric="cohen_kappa", n_boot=50)
    assert math.isnan(kappa["value"][0])  # as summary: NaN
    assert kappa.row(0, named=True)["p_value"] is None
    for metric in ("accuracy", "f1", "average_precision"):
        cols = ["s0", "s1"] if metric == "average_precision" else ["p0", "p1"]
        out = df.metrics.compare_models("y", cols, by="g", metric=metric, n_boot=50)
        assert out["p_value"].null_count() == 0, metric


# ----------------------------------------------------------------------------- McNemar
def _mcnemar_frame(tables: list[tuple[int, int, int, int]]) -> pl.DataFrame:
    """Rows with the given (both right, baseline right only, model right only, both
    wrong) counts, a segment per table."""
    rows = []
    for g, (n11, b, c, n00) in enumerate(tables):
        for base, model, count in ((1, 1, n11), (1, 0, b), (0, 1, c), (0, 0, n00)):
            rows += [{"g": g, "y": 1, "base": base, "model": model}] * count
    return pl.DataFrame(rows)


def test_mcnemar_equals_statsmodels() -> None:
    tables = [(5, 0, 0, 3), (2, 3, 0, 1), (0, 7, 4, 2), (1, 12, 12, 0), (3, 10, 14, 2)]
    tables += [(6, 12, 13, 1), (4, 13, 12, 5), (0, 30, 14, 9), (9, 40, 41, 3), (2, 0, 60, 1)]
    df = _mcnemar_frame(tables)
    out = df.metrics.compare_models("y", ["base", "model"], by="g", n_boot=50).sort("g")
    for (n11, b, c, n00), row in zip(tables, out.iter_rows(named=True), strict=True):
        exact = b + c < 25
        expected = mcnemar([[n11, b], [c, n00]], exact=exact, correction=True)
        assert row["test"] == ("mcnemar_exact" if exact else "mcnemar_chi2")
        assert row["statistic"] == pytest.approx(expected.statistic, rel=1e-12)
        assert row["p_value"] == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-15)
        n = n11 + b + c + n00
        assert row["diff"] == pytest.approx((c - b) / n, rel=1e-12, abs=1e-15)
        # the default interval, Agresti & Min (2005): the matched-pairs Wald interval
        # with 1/2 added to each cell, by hand
        gained, lost = (c + 0.5) / (n + 2), (b + 0.5) / (n + 2)
        d = gained - lost
        half = norm.ppf(0.975) * math.sqrt((gained + lost - d**2) / (n + 2))
        assert row["low"] == pytest.approx(max(-1.0, d - half), rel=1e-12, abs=1e-15)
        assert row["high"] == pytest.approx(min(1.0, d + half), rel=1e-12, abs=1e-15)
    # with ci_method="bootstrap", the same test and the paired bootstrap's interval
    boot = df.metrics.compare_models(
        "y", ["base", "model"], by="g", n_boot=50, ci_method="bootstrap"
    ).sort("g")
    assert boot.select("test", "statistic", "p_value").equals(
        out.select("test", "statistic", "p_value")
    )
    assert not boot.select("low", "high").equals(out.select("low", "high"))


def test_accuracy_default_interval_by_hand() -> None:
    # (both right, baseline right only, model right only, both wrong); by hand for the
    # first: n = 20, b = 2, c = 6, g = 6.5 / 22, l = 2.5 / 22, d = 4 / 22 =
    # 0.181818..., se = sqrt((9 / 22 - (4 / 22)^2) / 22) = sqrt(0.376033 / 22) =
    # 0.130738, bounds d -+ 1.959964 se = (-0.074423, 0.438060)
    df = _mcnemar_frame([(0, 0, 0, 0), (10, 2, 6, 2), (0, 0, 30, 0)]).filter(pl.col("g") > 0)
    out = df.metrics.compare_models("y", ["base", "model"], by="g").sort("g")
    assert out["low"][0] == pytest.approx(-0.074423, abs=1e-6)
    assert out["high"][0] == pytest.approx(0.438060, abs=1e-6)
    # the model right on every row, the baseline on none: the upper bound clipped to 1
    assert out["diff"][1] == 1.0
    assert out["high"][1] == 1.0
    assert out["low"][1] == pytest.approx(
        # g + l = 31 / 32, d = 30 / 32
        30 / 32 - norm.ppf(0.975) * math.sqrt((31 / 32 - (30 / 32) ** 2) / 32),
        rel=1e-12,
    )


def test_mcnemar_unit() -> None:
    assert pt.mcnemar(0, 0) == ("mcnemar_exact", 0.0, 1.0)
    assert pt.mcnemar(12, 12)[0] == "mcnemar_exact"  # 24 discordant rows
    assert pt.mcnemar(12, 13)[0] == "mcnemar_chi2"  # 25


# ------------------------------------------------------------------------------ DeLong
def delong_reference(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """DeLong, DeLong & Clarke-Pearson (1988) the long way, O(P x N): the kernel
    psi(x, z) = 1 if a positive's score x beats a negative's z, 1/2 if tied; the
    placement of a positive is its mean kernel over the negatives (V10), of a
    negative the mean over the positives (V01); AUC = mean V10; the covariance
    matrix S = S10 / P + S01 / N of the two models' placements; var(AUC_b - AUC_a)
    = L S L' with L = (-1, 1).  Returns (z, two-sided p)."""
    pos, neg = y == 1, y == 0
    v10, v01 = [], []
    for s in (a, b):
        kernel = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
        v10.append(kernel.mean(axis=1))
        v01.append(kernel.mean(axis=0))
    cov = np.cov(np.vstack(v10)) / pos.sum() + np.cov(np.vstack(v01)) / neg.sum()
    contrast = np.array([-1.0, 1.0])
    z = (v10[1].mean() - v10[0].mean()) / math.sqrt(contrast @ cov @ contrast)
    return z, 2 * norm.sf(abs(z))


@pytest.mark.parametrize("decimals", [0, 1, 2])  # 0: heavy ties
def test_delong_equals_the_brute_force(decimals: int) -> None:
    rng = np.random.default_rng(decimals)
    n = 600
    y = rng.integers(0, 2, n)
    df = pl.DataFrame(
        {
            "g": rng.choice(["a", "b", "c"], n),
            "y": y,
            "a": np.round(rng.normal(size=n) + y, decimals),
            "b": np.round(rng.normal(size=n) + 1.3 * y, decimals),
        }
    )
    out = df.metrics.compare_models("y", ["a", "b"], by="g", metric="roc_auc", ci=0.9)
    z90 = norm.ppf(0.95)
    for row in out.iter_rows(named=True):
        seg = df.filter(pl.col("g") == row["g"])
        z, p = delong_reference(*(seg[c].to_numpy() for c in ("y", "a", "b")))
        assert row["statistic"] == pytest.approx(z, rel=1e-9)
        assert row["p_value"] == pytest.approx(p, rel=1e-9)
        se = row["diff"] / row["statistic"]
        assert row["low"] == pytest.approx(row["diff"] - z90 * se, rel=1e-9)
        assert row["high"] == pytest.approx(row["diff"] + z90 * se, rel=1e-9)


def test_delong_on_continuous_scores_equals_the_brute_force() -> None:
    """Continuous scores (over 2,000 distinct in the first rows: roc_auc's sorted path)
    take DeLong's placements from a cell per row, sorted in numpy, all segments
    at once; the same z and p-value as the brute force, ties across the classes
    included."""
    rng = np.random.default_rng(7)
    n = 6000
    y = rng.integers(0, 2, n)
    a = rng.normal(size=n) + y
    a[:300] = np.round(a[:300], 1)  # some runs of equal scores shared by the classes
    df = pl.DataFrame(
        {"g": rng.choice(["a", "b", "c"], n), "y": y, "a": a, "b": rng.normal(size=n) + 1.2 * y}
    )
    out = df.metrics.compare_models("y", ["a", "b"], by="g", metric="roc_auc")
    assert out.height == 3
    for row in out.iter_rows(named=True):
        seg = df.filter(pl.col("g") == row["g"])
        z, p = delong_reference(*(seg[c].to_numpy() for c in ("y", "a", "b")))
        assert row["statistic"] == pytest.approx(z, rel=1e-9)
        assert row["p_value"] == pytest.approx(p, rel=1e-9, abs=1e-300)
    # the row order, the engine: the same within a summation order
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=3).lazy()
    for engine in ("in-memory", "streaming"):
        again = shuffled.metrics.compare_models("y", ["a", "b"], by="g", metric="roc_auc")
        assert_frame_equal(again.collect(engine=engine), out, check_exact=False, rel_tol=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from([None, 0, 1]),  # segment (a null key too)
            st.booleans(),
            st.integers(0, 4),  # few distinct scores: ties across the classes
            st.integers(-2, 2),
            st.integers(1, 3),  # rows of the cell
        ),
        max_size=40,
    ),
    st.booleans(),
)
def test_delong_placements_numpy_equal_polars(cells: list, one_segment: bool) -> None:
    """The two homes of DeLong's placements, numpy's (one vectorised call) and the polars
    query (without numpy), give the same integers on the same cells; and a cell
    repeated as rows of count 1 the same standard error as the counted cell."""
    keys = [ALL] if one_segment else ["k"]
    df = pl.DataFrame(
        cells,
        schema={
            "k": pl.Int64,
            pt.Y: pl.Boolean,
            pt.A: pl.Float64,
            pt.B: pl.Float64,
            pt.COUNT: pl.Int64,
        },
        orient="row",
    ).with_columns(pl.lit(0, pl.Int8).alias(ALL), pl.col(pt.A) / 2)
    segment = [] if one_segment else keys
    by_polars = df.lazy()
    for score in (pt.A, pt.B):
        by_polars = paired_delong._placements(by_polars, segment, score)
    by_polars = by_polars.with_columns(
        (pl.col(paired_delong._K + pt.B) - pl.col(paired_delong._K + pt.A)).alias(paired_delong._D)
    )
    numpy_in = (
        df
        if one_segment
        else df.with_row_index(paired_delong._GROUP).with_columns(
            pl.col(paired_delong._GROUP).first().over(keys)
        )
    )
    by_numpy = paired_delong._differences_numpy(numpy_in)
    columns = [*keys, pt.Y, pt.A, pt.B, pt.COUNT, paired_delong._D]
    sort = [*keys, pt.Y, pt.A, pt.B, pt.COUNT]
    assert_frame_equal(
        by_numpy.select(columns).sort(sort, nulls_last=True),
        by_polars.collect().select(columns).sort(sort, nulls_last=True),
    )
    rows = df.select(pl.all().repeat_by(pt.COUNT).explode()).with_columns(
        pl.lit(1, pl.Int64).alias(pt.COUNT)
    )
    se = {}
    for name, frame in (("cells", df), ("rows", rows)):
        for use_numpy in (True, False):
            paired_delong.USE_NUMPY = use_numpy
            try:
                got = paired_delong.delong_se(frame.lazy(), keys).collect()
                se[name, use_numpy] = got.sort(keys, nulls_last=True)
            finally:
                paired_delong.USE_NUMPY = True
    first = se["cells", True]
    for other in se.values():
        assert_frame_equal(other, first, check_exact=False, rel_tol=1e-12, abs_tol=1e-15)


def test_delong_undefined_cases() -> None:
    df = pl.DataFrame(
        {
            "g": ["same"] * 6 + ["one_pos"] * 4,
            "y": [0, 1, 0, 1, 1, 0, 0, 0, 0, 1],
            "a": [0.1, 0.9, 0.3, 0.7, 0.7, 0.2, 0.1, 0.2, 0.3, 0.4],
        }
    ).with_columns(b=pl.col("a") * 2)  # the same order: every placement alike
    out = df.metrics.compare_models("y", ["a", "b"], by="g", metric="roc_auc")
    assert out["g"].to_list() == ["one_pos", "same"]
    assert out["diff"].to_list() == [0.0, 0.0]
    # one positive: DeLong's variance is undefined (P - 1 = 0)
    assert out.row(0, named=True)["statistic"] is None
    assert out.row(0, named=True)["p_value"] is None
    # the same ranking: every placement difference 0, no difference (as McNemar's
    # and the bootstrap's p-value 1 for the same predictions)
    same = out.row(1, named=True)
    assert (same["statistic"], same["p_value"], same["low"], same["high"]) == (0, 1, 0, 0)


# ---------------------------------------------------------------------------- bootstrap
def _f1(y: np.ndarray, p: np.ndarray) -> float:
    return 2 * (y & p).sum() / (y.sum() + p.sum())


def _mcc(y: np.ndarray, p: np.ndarray) -> float:
    tp, tn, fp, fn = (y & p).sum(), (~y & ~p).sum(), (~y & p).sum(), (y & ~p).sum()
    return (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


#: metric -> (its value on resampled rows, replicates): written out for the labels
#: (fast), scikit-learn's for average precision.
ROW_BOOTSTRAP = {
    "f1": (_f1, 4000),
    "mcc": (_mcc, 4000),
    "average_precision": (skm.average_precision_score, 1000),
}


@pytest.mark.parametrize("metric", sorted(ROW_BOOTSTRAP))
def test_paired_bootstrap_equals_the_row_bootstrap(metric: str) -> None:
    """The multinomial redraw of the joint cells is the row bootstrap of the pairs:
    its interval is that of the metric on resampled rows (width and centre within
    Monte-Carlo tolerance)."""
    rng = np.random.default_rng(4)
    n = 1500
    y = rng.integers(0, 2, n)
    s = [np.round(rng.normal(size=n) + k * y, 2) for k in (0.8, 1.1)]
    df = pl.DataFrame({"y": y, "a": s[0], "b": s[1], "pa": s[0] > 0.4, "pb": s[1] > 0.5})
    df = df.with_columns(pl.col("pa", "pb").cast(pl.Int64))
    columns = ("a", "b") if metric == "average_precision" else ("pa", "pb")
    out = df.metrics.compare_models(
        "y", list(columns), metric=metric, ci_method="bootstrap", n_boot=4000, seed=5
    )
    value, reps = ROW_BOOTSTRAP[metric]
    y_, a, b = (df[c].to_numpy() for c in ("y", *columns))
    if metric != "average_precision":
        y_, a, b = y_ == 1, a == 1, b == 1
    draws = np.random.default_rng(9).integers(0, n, (reps, n))
    diffs = np.array([value(y_[i], b[i]) - value(y_[i], a[i]) for i in draws])
    r_low, r_high = np.percentile(diffs, [2.5, 97.5])
    width = r_high - r_low
    low, high = out["low"][0], out["high"][0]
    assert abs((high - low) - width) < 0.1 * width
    assert abs((high + low) / 2 - (r_high + r_low) / 2) < 0.1 * width


@pytest.mark.parametrize("take", [False, True], ids=["fancy", "take"])
@pytest.mark.parametrize("decimals", [None, 1])  # None: every cell its own score
def test_ap_replicate_counts_per_score(
    decimals: int | None, take: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A block of redrawn cells as one model's per-score positives and negatives,
    scores descending: the gather of distinct scores and the sums of tied ones
    equal a count written out (bincount of each replicate by score position),
    with the columns gathered by fancy indexing (a small block) or by ``np.take``
    (a block of ``_TAKE_CELLS`` cells and more; made 1 here)."""
    if take:
        monkeypatch.setattr(bs, "_TAKE_CELLS", 1)
    rng = np.random.default_rng(11)
    n = 300
    positive = rng.random(n) < 0.4
    score = rng.normal(size=n)
    if decimals is not None:
        score = np.round(score, decimals)
    block = rng.integers(0, 3, (5, n))
    distinct = np.unique(score)
    position = len(distinct) - 1 - np.searchsorted(distinct, score)  # descending
    count, starts = pt.score_counts_of_block(positive, score)
    pos, neg = count(block)
    np.testing.assert_array_equal(starts, [0])
    for r in range(block.shape[0]):
        for got, rows in ((pos, positive), (neg, ~positive)):
            expected = np.bincount(position[rows], weights=block[r, rows], minlength=len(distinct))
            np.testing.assert_array_equal(got[r], expected.astype(np.int64))
    # three segments side by side (cells in segment order): each segment's counts,
    # its own scores descending, from its first score on
    segment = np.repeat([0, 1, 2], [100, 150, 50])
    count, starts = pt.score_counts_of_block(positive, score, segment)
    pos, neg = count(block)
    bounds = [0, 100, 250, 300]
    for i in range(3):
        part = slice(bounds[i], bounds[i + 1])
        alone, _ = pt.score_counts_of_block(positive[part], score[part])
        own_pos, own_neg = alone(block[:, part])
        end = starts[i + 1] if i < 2 else pos.shape[1]
        np.testing.assert_array_equal(pos[:, starts[i] : end], own_pos)
        np.testing.assert_array_equal(neg[:, starts[i] : end], own_neg)


def test_seeded_per_segment_and_pair() -> None:
    """The same seed gives the same draws whatever the row order, the other segments
    and the other models."""
    rng = np.random.default_rng(2)
    n = 400
    y = rng.integers(0, 2, n)
    df = pl.DataFrame(
        {
            "g": rng.choice(["a", "b"], n),
            "y": y,
            "m0": np.where(rng.random(n) < 0.7, y, 1 - y),
            "m1": np.where(rng.random(n) < 0.75, y, 1 - y),
            "m2": np.where(rng.random(n) < 0.8, y, 1 - y),
        }
    )
    kw = {"by": "g", "metric": "mcc", "ci_method": "bootstrap", "n_boot": 200, "seed": 3}
    full = df.metrics.compare_models("y", ["m0", "m1", "m2"], **kw)
    alone = df.filter(pl.col("g") == "a").metrics.compare_models("y", ["m0", "m1"], **kw)
    assert_frame_equal(full.filter((pl.col("g") == "a") & (pl.col("model") == "m1")), alone)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=1)
    assert_frame_equal(shuffled.metrics.compare_models("y", ["m0", "m1", "m2"], **kw), full)
    other = df.metrics.compare_models("y", ["m0", "m1", "m2"], **(kw | {"seed": 4}))
    assert not other["low"].equals(full["low"])


# ------------------------------------------------------------- average precision: delta
def _ap_difference(y: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray) -> float:
    """scikit-learn's AP(b) - AP(a) of the cells ``(y, a, b)`` weighted by ``w``."""
    return float(
        skm.average_precision_score(y, b, sample_weight=w)
        - skm.average_precision_score(y, a, sample_weight=w)
    )


def ap_delta_reference(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The delta method's se of AP(b) - AP(a) from numerical derivatives of
    scikit-learn: the distinct (y, a, b) cells with their row counts x, the
    difference as a function of x (``sample_weight``), its gradient d by central
    differences, and var = sum x d^2 - (sum x d)^2 / n (the multinomial's
    covariance diag(x) - x x' / n)."""
    cells, x = np.unique(np.c_[y, a, b], axis=0, return_counts=True)
    yc, ac, bc = cells[:, 0] == 1, cells[:, 1], cells[:, 2]
    x = x.astype(float)
    h = 1e-6
    d = np.empty(len(x))
    for i in range(len(x)):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        d[i] = (_ap_difference(yc, ac, bc, up) - _ap_difference(yc, ac, bc, down)) / (2 * h)
    variance = (x * d * d).sum() - (x * d).sum() ** 2 / x.sum()
    return math.sqrt(max(variance, 0.0))


def test_ap_delta_of_rankings_alike_above_every_negative() -> None:
    # found by the property test below: the models' rankings differ only among
    # positives above the one negative, so AP is the same in every resample; the
    # two gradients, summed in their own orders, differed by 4e-17 (of 0.012), and
    # with one negative the test was null instead of statistic 0, p-value 1
    df = pl.DataFrame(
        {
            "y": [1, 1, 1, 1, 0, 1],
            "a": [0.1, 0.1, 0.1, 0.1, 0.0, 0.0],
            "b": [0.1, 0.1, 0.1, 0.35, 0.0, 0.0],
        }
    )
    out = df.metrics.compare_models("y", ["a", "b"], metric="average_precision", ci=0.9)
    # AP = 4/5 + 1/5 x 5/6 for both (every positive above the negative at precision 1)
    assert out["value"][0] == pytest.approx(0.8 + 1 / 6, rel=1e-15)
    assert out["diff"][0] == pytest.approx(0.0, abs=1e-15)
    assert (out["statistic"][0], out["p_value"][0]) == (0.0, 1.0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_ap_delta_equals_the_delta_method_on_scikit_learn(data: st.DataObject) -> None:
    """The delta method's se, interval and test of AP(model) - AP(baseline) per segment
    equal those built from numerical derivatives of scikit-learn's AP (ties, repeated
    cells, segments of one class)."""
    n = data.draw(st.integers(4, 40))
    values = st.sampled_from([0.0, 0.1, 0.35, 0.5, 0.8, 1.0])
    df = pl.DataFrame(
        {
            "g": data.draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n)),
            "y": oracle.with_a_positive(
                data.draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
            ),
            "a": data.draw(st.lists(values, min_size=n, max_size=n)),
            "b": data.draw(st.lists(values, min_size=n, max_size=n)),
        }
    )
    out = df.metrics.compare_models("y", ["a", "b"], by="g", metric="average_precision", ci=0.9)
    z = norm.ppf(0.95)
    checked: set[str] = set()
    for row in out.iter_rows(named=True):
        part = df.filter(pl.col("g") == row["g"])
        y, a, b = (part[c].to_numpy() for c in ("y", "a", "b"))
        assert row["test"] == "delta"
        if y.sum() == 0:  # AP undefined: no test
            assert row["p_value"] is None
            continue
        se = ap_delta_reference(y == 1, a, b)
        assert row["diff"] == pytest.approx(_ap_difference(y == 1, a, b, np.ones(len(y))))
        if se < 1e-6:  # a variance of 0: every derivative 0 (the same ranking, no negatives)
            # the two APs summed in their own orders may differ in the last bit (-1.1e-16)
            assert row["diff"] == pytest.approx(0.0, abs=1e-15)
            assert (row["statistic"], row["p_value"]) == (0.0, 1.0)
            checked.add("same")
            continue
        if y.sum() < 2 or (y == 0).sum() < 2:  # as DeLong: no test
            assert (row["statistic"], row["p_value"], row["low"]) == (None, None, None)
            continue
        checked.add("z")
        expected_z = row["diff"] / se
        assert row["statistic"] == pytest.approx(expected_z, rel=1e-5, abs=1e-6)
        assert row["p_value"] == pytest.approx(2 * norm.sf(abs(expected_z)), rel=1e-5, abs=1e-9)
        assert row["low"] == pytest.approx(max(-1.0, row["diff"] - z * se), rel=1e-6, abs=1e-8)
        assert row["high"] == pytest.approx(min(1.0, row["diff"] + z * se), rel=1e-6, abs=1e-8)
    AP_DELTA_CASES.update(checked)


#: The cases the hypothesis test met (a variance of 0, a z statistic): see the next test.
AP_DELTA_CASES: set[str] = set()


def test_ap_delta_cases_were_met() -> None:
    """The hypothesis test above compared z statistics, not only undefined tests (it
    runs first in this module's order; on its own, it is run here)."""
    if not AP_DELTA_CASES:
        test_ap_delta_equals_the_delta_method_on_scikit_learn()
    assert sorted(AP_DELTA_CASES) == ["same", "z"]


def test_ap_gradient_equals_numerical_derivatives() -> None:
    """Each cell's derivative of its segment's AP (written out in _groups.paired) equals
    scikit-learn's AP differentiated by that cell's weight, and the counts times
    the derivatives sum to 0 (AP is homogeneous of degree 0 in the counts)."""
    rng = np.random.default_rng(7)
    for trial in range(30):
        n = int(rng.integers(3, 30))
        y = rng.integers(0, 2, n).astype(bool)
        y[0] = True
        score = np.round(rng.normal(size=n), 1)  # ties
        count = rng.integers(1, 4, n)
        group = rng.integers(0, 3, n) if trial % 2 else None
        grad, _ = pap._ap_gradient_numpy(group, y, score, count)
        for g in [None] if group is None else range(3):
            rows = np.ones(n, dtype=bool) if g is None else group == g
            if not y[rows].any():
                continue
            w = count[rows].astype(float)
            expected = np.empty(int(rows.sum()))
            for i in range(len(expected)):
                up, down = w.copy(), w.copy()
                up[i] += 1e-6
                down[i] -= 1e-6
                ap = (
                    skm.average_precision_score(y[rows], score[rows], sample_weight=x)
                    for x in (up, down)
                )
                expected[i] = (next(ap) - next(ap)) / 2e-6
            np.testing.assert_allclose(grad[rows], expected, rtol=1e-5, atol=1e-7)
            assert abs((w * grad[rows]).sum()) < 1e-12


def test_ap_delta_edge_cases() -> None:
    """The same ranking: se 0, statistic 0, p-value 1; fewer than two positives or
    negatives: no test (as DeLong); the bootstrap's interval and the delta
    method's agree on 20,000 rows."""
    rng = np.random.default_rng(3)
    n = 20_000
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    df = pl.DataFrame({"y": y, "a": s, "b": 2 * s + 1, "c": rng.normal(size=n) + 0.8 * y})
    same = df.metrics.compare_models("y", ["a", "b"], metric="average_precision").row(0, named=True)
    assert (same["diff"], same["statistic"], same["p_value"]) == (0.0, 0.0, 1.0)
    assert same["low"] == same["high"] == 0.0
    one = pl.DataFrame({"y": [1, 0, 0, 0], "a": [0.9, 0.1, 0.2, 0.3], "b": [0.2, 0.1, 0.9, 0.3]})
    row = one.metrics.compare_models("y", ["a", "b"], metric="average_precision").row(0, named=True)
    assert row["diff"] == pytest.approx(1 / 3 - 1.0)
    assert row["statistic"] is None
    assert row["p_value"] is None
    kw = {"metric": "average_precision", "n_boot": 2000, "seed": 1}
    delta = df.metrics.compare_models("y", ["a", "c"], **kw).row(0, named=True)
    boot = df.metrics.compare_models("y", ["a", "c"], ci_method="bootstrap", **kw)
    width = delta["high"] - delta["low"]
    assert abs(boot["high"][0] - boot["low"][0] - width) < 0.1 * width
    assert abs(boot["low"][0] - delta["low"]) < 0.1 * width


# --------------------------------------------------------------------------- simulation
N_SEG = 400


def _exchangeable(rng: np.random.Generator, n: int, effect: float = 0.0) -> pl.DataFrame:
    """N_SEG segments of ``n`` rows; two models with independent errors, equal in
    distribution (``effect`` 0) or the second better."""
    g = np.repeat(np.arange(N_SEG), n)
    y = rng.integers(0, 2, g.size)
    noise = rng.normal(size=(2, g.size))
    s0 = np.round(y + noise[0], 1)
    s1 = np.round((1 + effect) * y + noise[1], 1)
    return pl.DataFrame(
        {"g": g, "y": y, "s0": s0, "s1": s1, "p0": (s0 > 0.5), "p1": (s1 > 0.5 + effect / 2)}
    ).with_columns(pl.col("p0", "p1").cast(pl.Int64))


#: (metric, ci_method) -> the score or label columns of the two models
SIMULATED = {
    ("accuracy", None): ("p0", "p1"),  # McNemar's test, the Agresti-Min interval
    ("accuracy", "bootstrap"): ("p0", "p1"),
    ("f1", None): ("p0", "p1"),  # the delta method, as the other label metrics
    ("f1", "bootstrap"): ("p0", "p1"),
    ("mcc", None): ("p0", "p1"),
    ("cohen_kappa", None): ("p0", "p1"),
    ("balanced_accuracy", None): ("p0", "p1"),
    ("roc_auc", None): ("s0", "s1"),
    ("average_precision", None): ("s0", "s1"),  # the delta method
    ("average_precision", "bootstrap"): ("s0", "s1"),
}


def test_size_and_coverage_under_the_null() -> None:
    """Exchangeable models: p < 0.05 in about 5 % of the segments and the intervals
    cover the true difference 0 in about 95 % (binomial 99.9 % bounds, 400 segments)."""
    df = _exchangeable(np.random.default_rng(11), 120)
    for (metric, method), columns in SIMULATED.items():
        out = df.metrics.compare_models(
            "y", list(columns), by="g", metric=metric, ci_method=method, n_boot=200, seed=1
        )
        rejected = (out["p_value"] < 0.05).mean()
        covered = ((out["low"] <= 0) & (out["high"] >= 0)).mean()
        assert 0.014 <= rejected <= 0.086, (metric, method, rejected)
        assert 0.914 <= covered <= 0.986, (metric, method, covered)


def test_power_against_a_better_model() -> None:
    df = _exchangeable(np.random.default_rng(12), 300, effect=0.8)
    for (metric, method), columns in SIMULATED.items():
        out = df.filter(pl.col("g") < 40).metrics.compare_models(
            "y", list(columns), by="g", metric=metric, ci_method=method, n_boot=200, seed=1
        )
        assert (out["diff"] > 0).all(), metric
        assert (out["p_value"] < 0.05).mean() > 0.9, (metric, method)
        assert (out["low"] > 0).mean() > 0.9, (metric, method)


# ------------------------------------------------------------------------------ adjust
@pytest.mark.parametrize(
    ("adjust", "method"),
    [("bonferroni", "bonferroni"), ("holm", "holm"), ("bh", "fdr_bh"), ("by", "fdr_by")],
)
def test_adjust_equals_statsmodels(adjust: str, method: str) -> None:
    df = _exchangeable(np.random.default_rng(5), 60, effect=0.3).filter(pl.col("g") < 30)
    df = df.with_columns(p2=pl.col("p0").shift(3).fill_null(0))
    out = df.metrics.compare_models("y", ["p0", "p1", "p2"], by="g", adjust=adjust, n_boot=20)
    for model in ("p1", "p2"):
        part = out.filter(pl.col("model") == model)
        expected = multipletests(part["p_value"].to_numpy(), method=method)[1]
        np.testing.assert_allclose(part["p_adjusted"].to_numpy(), expected, rtol=1e-12)
    assert out["model"].to_list() == ["p1", "p2"] * 30  # segment, then model order
    plain = df.metrics.compare_models("y", ["p0", "p1", "p2"], by="g", n_boot=20)
    assert plain["p_adjusted"].equals(plain["p_value"])


# --------------------------------------------------------------------------- bad input
DF = pl.DataFrame({"g": ["a", "b"] * 3, "y": [0, 1, 1, 0, 1, 0], "m": [0, 1, 0, 0, 1, 1]})
DF = DF.with_columns(n=1 - pl.col("m"), s=pl.col("m") * 0.5, t=pl.col("y") * 0.3)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"models": ["m"]}, ValueError, "at least two models"),
        ({"models": ["m", "m"]}, ValueError, r"more than once: \['m'\]"),
        ({"models": "m"}, TypeError, r"one column \('m'\).*model='model', id='id'.* pass a list"),
        ({"models": {"a": "m", "b": "nope"}}, pl.exceptions.ColumnNotFoundError, "'nope'.*models"),
        ({"models": {"a": "m", 3: "n"}}, TypeError, "names must be strings"),
        ({"by": pl.col("g").alias("model")}, ValueError, "`by` column 'model' collides"),
        ({"by": pl.col("g").alias("p_value")}, ValueError, "'p_value' collides"),
        ({"metric": "auc"}, ValueError, "`metric` must be one of"),
        ({"metric": ["f1", "mcc"]}, ValueError, r"got \['f1', 'mcc'\]: one `metric` a call"),
        ({"adjust": "fdr"}, ValueError, "`adjust` must be one of"),
        ({"ci": None}, ValueError, "`ci` is required"),
        ({"ci": 1.5}, ValueError, "`ci` must be"),
        ({"n_boot": 0}, ValueError, "`n_boot`"),
        ({"seed": -1}, ValueError, "`seed`"),
        ({"pos_label": 1}, ValueError, "`pos_label` is for the binary metrics"),
        (
            {"ci_method": "delta"},
            ValueError,
            r"`ci_method`.*'accuracy'.*\['agresti_min', 'bootstrap', 'poisson'\]",
        ),
        (
            {"metric": "roc_auc", "models": ["s", "t"], "ci_method": "bootstrap"},
            ValueError,
            r"`ci_method`.*\['delong'\]; got 'bootstrap'",
        ),
        (
            {"metric": "average_precision", "models": ["s", "t"], "ci_method": "delong"},
            ValueError,
            r"\['delta', 'bootstrap', 'poisson'\]",
        ),
        ({"metric": "roc_auc", "models": ["m", "g"]}, pl.exceptions.SchemaError, "'g'"),
    ],
)
def test_bad_input(kwargs: dict, error: type, match: str) -> None:
    kw = {"models": ["m", "n"]} | kwargs
    models = kw.pop("models")
    for frame in (DF, DF.lazy()):
        with pytest.raises(error, match=match):
            frame.metrics.compare_models("y", models, **kw)


def test_scores_under_the_default_metric_point_to_roc_auc() -> None:
    # a new user's first call compares two score columns with the default metric
    # (accuracy): the error names the column and the call that compares scores
    df = pl.DataFrame({"y": [0, 1, 0, 1], "m1": [0.1, 0.8, 0.3, 0.6], "m2": [0.2, 0.7, 0.4, 0.9]})
    with pytest.raises(plm.DataError, match=r"'m\d' has \d rows .*metric='roc_auc'"):
        df.metrics.compare_models("y", ["m1", "m2"])


def test_bad_data_is_the_methods_error() -> None:
    nulls = DF.with_columns(pl.when(pl.col("y") == 1).then(None).otherwise("n").alias("n"))
    with pytest.raises(plm.DataError, match="'n' has 3 null rows"):
        nulls.metrics.compare_models("y", ["m", "n"])
    multiclass = DF.with_columns(pl.col("n") + pl.col("y"))
    with pytest.raises(plm.DataError, match="pass `pos_label`"):  # the default needs {0, 1}
        multiclass.metrics.compare_models("y", ["m", "n"], metric="f1")
    with pytest.raises(plm.DataError, match="compare_models is binary"):
        multiclass.metrics.compare_models("y", ["m", "n"], metric="f1", pos_label=1)
    nan = DF.with_columns(pl.when(pl.col("y") == 1).then(float("nan")).otherwise("t").alias("t"))
    with pytest.raises(plm.DataError, match="'t'"):
        nan.metrics.compare_models("y", ["s", "t"], metric="average_precision").lazy().collect()
    with pytest.raises(plm.DataError, match="pos_label"):
        DF.metrics.compare_models("y", ["s", "t"], metric="roc_auc", pos_label=7)
    strings = DF.with_columns(pl.col("y", "m", "n").cast(pl.String))
    with pytest.raises(ValueError, match="`pos_label` is required"):
        strings.metrics.compare_models("y", ["m", "n"], metric="recall")


def test_labels_of_several_dtypes() -> None:
    """Float labels (whole numbers), integers of two widths and booleans compare as
    labels, as in the single-model methods."""
    df = DF.with_columns(
        pl.col("m").cast(pl.Float64), pl.col("n").cast(pl.Int8), b=pl.col("y") == 1
    )
    for metric in ("accuracy", "mcc", "f1"):
        got = df.metrics.compare_models("y", ["m", "n"], by="g", metric=metric, n_boot=30)
        same = DF.metrics.compare_models("y", ["m", "n"], by="g", metric=metric, n_boot=30)
        assert_frame_equal(got, same)
    flags = df.with_columns(pl.col("m", "n").cast(pl.Boolean))
    got = flags.metrics.compare_models("b", ["m", "n"], by="g", metric="f1", n_boot=30)
    assert_frame_equal(
        got, DF.metrics.compare_models("y", ["m", "n"], by="g", metric="f1", n_boot=30)
    )


# ------------------------------------------------------------------------- stacked rows
def _stack(df: pl.DataFrame, models: dict[str, str], seed: int = 0) -> pl.DataFrame:
    """The models' columns of ``df`` as stacked rows: one per (row, model), shuffled."""
    rows = df.with_row_index("id")
    parts = [
        rows.select("id", "y", "g", pl.lit(name).alias("model"), pl.col(col).alias("pred"))
        for name, col in models.items()
    ]
    return pl.concat(parts).sample(fraction=1.0, shuffle=True, seed=seed)


@pytest.mark.parametrize("metric", sorted(ORACLES))
def test_stacked_equals_wide(metric: str) -> None:
    """Stacked rows (any row order) give the wide form's frame, every number the same:
    models in sorted order, or the baseline first then the others sorted.  DeLong's
    se and the label metrics' delta-method se sum the cells in the order the pivot
    or the group_by gives them (as the wide form on its rows shuffled): within
    1e-12; AP's delta method (its cells sorted), McNemar's counts and the
    bootstrap's draws and counts are exact."""
    summed = metric not in ("accuracy", "average_precision")
    tol = {"rel_tol": 1e-12, "abs_tol": 1e-12} if summed else {"check_exact": True}

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(df=paired(metric), seed=st.integers(0, 2**16), by=st.booleans())
    def run(df: pl.DataFrame, seed: int, by: bool) -> None:
        stacked = _stack(df, {"two": "m2", "base": "m0", "one": "m1"}, seed)
        kw = {"by": "g" if by else None, "metric": metric, "n_boot": 20, "seed": 5}
        wide = df.metrics.compare_models("y", {"base": "m0", "one": "m1", "two": "m2"}, **kw)
        got = stacked.metrics.compare_models("y", "pred", model="model", id="id", **kw)
        assert_frame_equal(got, wide, **tol)
        wide = df.metrics.compare_models(
            "y", {"one": "m1", "base": "m0", "two": "m2"}, adjust="holm", **kw
        )
        lazy = stacked.lazy().metrics.compare_models(
            "y", "pred", model="model", id="id", baseline="one", adjust="holm", **kw
        )
        assert_frame_equal(lazy.collect(engine="streaming"), wide, **tol)

    run()


def test_stacked_by_expressions_and_model_dtype() -> None:
    """``by`` expressions are evaluated on the stacked rows; integer model names sort
    as numbers (2 before 10) and are the output's names as text."""
    rng = np.random.default_rng(4)
    n = 200
    df = pl.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "g": rng.choice(["a", "b"], n),
            "m0": rng.integers(0, 2, n),
            "m1": rng.integers(0, 2, n),
        }
    )
    rows = df.with_row_index("id")
    stacked = pl.concat(
        [
            rows.select("id", "y", "g", pl.lit(m, pl.Int64).alias("version"), pl.col(c).alias("p"))
            for m, c in ((10, "m1"), (2, "m0"))
        ]
    )
    by = pl.col("g").str.to_uppercase().alias("G")
    got = stacked.metrics.compare_models("y", "p", model="version", id="id", by=by, n_boot=30)
    wide = df.metrics.compare_models("y", {"2": "m0", "10": "m1"}, by=by, n_boot=30)
    assert_frame_equal(got, wide, check_exact=True)
    assert got["baseline"].unique().to_list() == ["2"]


ST = pl.DataFrame(
    {
        "id": [1, 1, 2, 2, 3, 3],
        "v": ["a", "b"] * 3,
        "y": [0, 0, 1, 1, 1, 1],
        "p": [0, 1, 1, 1, 0, 1],
        "g": ["x", "x", "y", "y", "x", "x"],
    }
)


@pytest.mark.parametrize(
    ("frame", "kwargs", "error", "match"),
    [
        (
            ST,
            {"model": None, "id": None},
            TypeError,
            r"`models` is one column \('p'\).*model=.*id=",
        ),
        (ST, {"id": None}, ValueError, r"^`id` is missing: model='v' is given.*--model-column"),
        (ST, {"model": None}, ValueError, r"^`model` is missing: id='id' is given.*id='id'"),
        (ST, {"models": ["p", "y"], "id": "id"}, ValueError, "are for models stacked in rows"),
        (ST, {"models": ["p", "y"], "baseline": "a"}, ValueError, "are for models stacked"),
        (ST, {"id": "v"}, ValueError, "four different columns"),
        (ST, {"id": "nope"}, pl.exceptions.ColumnNotFoundError, "'nope' .argument `id`"),
        (ST, {"model": "nope"}, pl.exceptions.ColumnNotFoundError, "'nope' .argument `model`"),
        (ST, {"baseline": "c"}, ValueError, r"`baseline` 'c' is not a model .*\['a', 'b'\]"),
        # a 7th row: model a of id 1 again (counts: 1 id)
        (
            pl.concat([ST, ST.head(1)]),
            {},
            plm.DataError,
            r"'id' \(argument `id`\) has 1 ids with more than one row of the same model",
        ),
        # id 3 without model b, id 2 without model a (counts: 2 ids)
        (
            ST.filter(~pl.int_range(pl.len()).is_in([2, 5])),
            {},
            plm.DataError,
            r"'id' \(argument `id`\) has 2 ids without a row of every model \['a', 'b'\]",
        ),
        (
            ST.with_columns(y=pl.Series([0, 1, 1, 1, 1, 0])),  # ids 1 and 3 disagree
            {},
            plm.DataError,
            r"column 'y' \(argument `y_true`\) differs between the models' rows of 2 ids",
        ),
        (
            ST.with_columns(g=pl.Series(["x", "z", "y", "y", "x", "x"])),
            {"by": "g"},
            plm.DataError,
            r"segment \(`by`\) 'g' differs between the models' rows of 1 ids",
        ),
        (
            ST.with_columns(id=pl.Series([1, None, 2, 2, 3, None])),
            {},
            plm.DataError,
            r"'id' \(argument `id`\) has 2 null rows",
        ),
        (
            ST.with_columns(v=pl.Series(["a", None] * 3)),
            {},
            plm.DataError,
            r"'v' \(argument `model`\) has 3 null rows",
        ),
        (ST.with_columns(v=pl.lit("a")), {}, plm.DataError, r"holds 1 model\(s\) \['a'\]"),
        (
            ST.with_columns(p=pl.Series([0, None, 1, None, 0, 1])),
            {},
            plm.DataError,
            "column 'p' has 2 null rows",
        ),
        (
            ST.with_columns(y=pl.Series([0, 0, None, None, 1, 1])),
            {},
            plm.DataError,
            "column 'y' has 2 null rows",
        ),
        (  # the wide form's own checks name the user's column and the model
            ST.with_columns(p=pl.Series([0.0, float("nan"), 1.0, 1.0, 0.0, 1.0])),
            {},
            plm.DataError,
            r"column 'p' \(model 'b'\) has 1 rows that are not class labels",
        ),
    ],
)
def test_stacked_bad_input(frame: pl.DataFrame, kwargs: dict, error: type, match: str) -> None:
    kw = {"models": "p", "model": "v", "id": "id", "n_boot": 10} | kwargs
    models = kw.pop("models")
    with pytest.raises(error, match=match):
        frame.metrics.compare_models("y", models, **kw)
    for engine in ("streaming", "in-memory"):
        with pytest.raises(error, match=match):
            frame.lazy().metrics.compare_models("y", models, **kw).collect(engine=engine)


@pytest.mark.parametrize("call", ["compare_models_ap", "roc_auc_ovr", "compare_models_mcc"])
def test_chunk_reductions_do_not_depend_on_how_replicates_are_grouped(
    call: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reductions of a chunk of segments take its replicates a few at a time (so
    their copies stay in the cache): one replicate at a time gives the same frame."""
    rng = np.random.default_rng(17)
    n = 3000
    df = pl.DataFrame(
        {
            "g": rng.integers(0, 40, n),
            "y": rng.integers(0, 2, n),
            "s": rng.random(n).round(1),
            "s2": rng.random(n),
            "t": rng.integers(0, 3, n),
            "p": rng.integers(0, 3, n),
            "p2": rng.integers(0, 3, n),
            **{f"c{k}": rng.random(n).round(2) for k in range(3)},
        }
    )

    def run() -> pl.DataFrame:
        m, boot = df.metrics, {"by": "g", "n_boot": 50, "seed": 3}
        if call == "roc_auc_ovr":
            out = m.roc_auc("t", {0: "c0", 1: "c1", 2: "c2"}, ci=0.9, ci_method="bootstrap", **boot)
        elif call == "compare_models_ap":
            out = m.compare_models(
                "y", ["s", "s2"], metric="average_precision", ci_method="bootstrap", **boot
            )
        else:
            out = m.compare_models("t", ["p", "p2"], metric="mcc", **boot)
        return out.sort("g")

    grouped = run()
    lows = grouped.select(pl.col("^.*low$").is_not_null().mean())
    assert lows.width == 1
    assert lows.item() > 0.5  # intervals, not nulls, are compared
    monkeypatch.setattr(bs, "_GROUP_CELLS", 1)  # one replicate at a time
    assert_frame_equal(run(), grouped)


# --------------------------------------------------------------- label metrics: delta
#: The label metrics with the delta method's test (their default), scikit-learn's by
#: sample weights, and whether each model's metric is a smooth function of its
#: confusion counts there (no denominator 0).
LABEL_DELTA = {
    "balanced_accuracy": skm.balanced_accuracy_score,
    "mcc": skm.matthews_corrcoef,
    "cohen_kappa": skm.cohen_kappa_score,
    "precision": lambda y, p, **w: skm.precision_score(y, p, zero_division=0, **w),
    "recall": lambda y, p, **w: skm.recall_score(y, p, zero_division=0, **w),
    "f1": lambda y, p, **w: skm.f1_score(y, p, zero_division=0, **w),
}


def _smooth(metric: str, y: np.ndarray, p: np.ndarray) -> bool:
    """Whether ``metric`` of the predictions ``p`` has a non-zero denominator."""
    n = len(y)
    classes = np.union1d(y, p)
    t = np.array([(y == k).sum() for k in classes], dtype=float)
    q = np.array([(p == k).sum() for k in classes], dtype=float)
    tp, fp, fn = (
        ((y == 1) & (p == 1)).sum(),
        ((y != 1) & (p == 1)).sum(),
        ((y == 1) & (p != 1)).sum(),
    )
    return {
        "balanced_accuracy": True,
        "mcc": (n * n - (t * t).sum()) * (n * n - (q * q).sum()) > 0,
        "cohen_kappa": n * n - (t * q).sum() != 0,
        "precision": tp + fp > 0,
        "recall": tp + fn > 0,
        "f1": 2 * tp + fp + fn > 0,
    }[metric]


def label_delta_reference(metric: str, y: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The delta method's se of metric(b) - metric(a), from numerical derivatives of
    scikit-learn's metric by each joint cell's weight (central differences) and the
    multinomial's covariance: sum x d^2 - (sum x d)^2 / n."""
    fn = LABEL_DELTA[metric]
    cells, inverse = np.unique(np.c_[y, a, b], axis=0, return_inverse=True)
    x = np.bincount(inverse.ravel()).astype(float)
    ys, as_, bs_ = cells.T

    def diff(w: np.ndarray) -> float:
        return fn(ys, bs_, sample_weight=w) - fn(ys, as_, sample_weight=w)

    eps = 1e-6
    d = np.array([(diff(x + eps * e) - diff(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])
    return math.sqrt(max(x @ d**2 - (x @ d) ** 2 / x.sum(), 0.0))


@pytest.mark.parametrize("metric", sorted(LABEL_DELTA))
def test_label_delta_equals_the_delta_method_on_scikit_learn(metric: str) -> None:
    """The default test of a label metric (accuracy aside): the delta method over the
    joint cells, its se equal to one from numerical derivatives of scikit-learn's
    metric (to 1e-6 relative: the differences' error), per segment, two and three
    classes (the binary metrics: two), repeated cells, segments where a
    denominator is 0 (no test) or where the models predict alike (se 0)."""
    binary = metric in ("precision", "recall", "f1")

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        n = data.draw(st.integers(2, 40))
        labels = st.sampled_from([0, 1] if binary else [0, 1, 2])
        draw = lambda: data.draw(st.lists(labels, min_size=n, max_size=n))  # noqa: E731
        y, a = draw(), draw()
        b = a if data.draw(st.integers(0, 9)) == 0 else draw()  # alike, now and then
        g = data.draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n))
        df = pl.DataFrame({"g": g, "y": y, "a": a, "b": b})
        out = df.metrics.compare_models("y", ["a", "b"], by="g", metric=metric, ci=0.9)
        z = norm.ppf(0.95)
        for row in out.iter_rows(named=True):
            part = df.filter(pl.col("g") == row["g"])
            y_, a_, b_ = (part[c].to_numpy() for c in ("y", "a", "b"))
            assert row["test"] == "delta"
            expected = LABEL_DELTA[metric](y_, b_) - LABEL_DELTA[metric](y_, a_)
            if math.isnan(expected):  # kappa of one label: undefined, no test
                assert row["diff"] is None or math.isnan(row["diff"])
                assert row["statistic"] is None
                continue
            assert row["diff"] == pytest.approx(expected, abs=1e-12)
            if (a_ == b_).all():  # the same predictions: the same value in every resample
                assert (row["statistic"], row["p_value"]) == (0.0, 1.0)
                continue
            if not (_smooth(metric, y_, a_) and _smooth(metric, y_, b_)):
                assert row["statistic"] is None
                assert row["low"] is None
                continue
            se = label_delta_reference(metric, y_, a_, b_)
            if se < 1e-9:  # the gradients agree at every cell: se 0
                if abs(row["diff"]) <= 1e-12:  # no difference: statistic 0, p-value 1
                    assert (row["statistic"], row["p_value"]) == (0.0, 1.0)
                else:  # both models at an end of the range: no interval, no test
                    assert row["statistic"] is None
                    assert row["p_value"] is None
                    assert row["low"] is None
                continue
            bound = 2.0 if metric in ("mcc", "cohen_kappa") else 1.0
            low, high = max(row["diff"] - z * se, -bound), min(row["diff"] + z * se, bound)
            assert row["low"] == pytest.approx(low, rel=1e-6, abs=1e-9)
            assert row["high"] == pytest.approx(high, rel=1e-6, abs=1e-9)
            assert row["statistic"] == pytest.approx(row["diff"] / se, rel=1e-6, abs=1e-9)
            assert row["p_value"] == pytest.approx(
                2 * norm.sf(abs(row["diff"] / se)), rel=1e-5, abs=1e-9
            )

    run()


def test_label_delta_says_nothing_at_the_ends_of_the_range() -> None:
    # found by a review helper: at an end of the metric's range every derivative is
    # 0 (recall 1 against 0, a perfect model against a constant one), so se is 0
    # while the difference is not: the test was statistic 0, p-value 1 beside a
    # difference of -1.  No interval and no test now (the bootstrap has them)
    df = pl.DataFrame({"y": [1] * 30 + [0] * 70, "all_pos": [1] * 100, "all_neg": [0] * 100})
    out = df.metrics.compare_models("y", ["all_pos", "all_neg"], metric="recall", ci=0.95)
    assert out.select("value", "baseline_value", "diff").row(0) == (0.0, 1.0, -1.0)
    assert out.select("low", "high", "statistic", "p_value").row(0) == (None,) * 4
    df = pl.DataFrame({"y": [0, 1, 2] * 20, "const": [0] * 60, "perfect": [0, 1, 2] * 20})
    for metric in ("balanced_accuracy", "mcc", "cohen_kappa"):
        out = df.metrics.compare_models("y", ["const", "perfect"], metric=metric, ci=0.95)
        assert out["diff"][0] > 0.5, metric
        assert out.select("low", "high", "statistic", "p_value").row(0) == (None,) * 4, metric
    # identical models: no difference, statistic 0 and p-value 1, the interval (0, 0)
    df = df.with_columns(twin=pl.col("perfect"))
    out = df.metrics.compare_models("y", ["perfect", "twin"], metric="mcc", ci=0.95)
    assert out.select("diff", "low", "high", "statistic", "p_value").row(0) == (0, 0, 0, 0, 1)


def test_label_delta_covers_like_the_bootstrap() -> None:
    # the delta method's interval of a difference of F1 / MCC on 1,500 paired rows is
    # the paired bootstrap's (4,000 replicates) within Monte-Carlo tolerance: width
    # within 10%, centre within a tenth of the width
    rng = np.random.default_rng(4)
    n = 1500
    y = rng.integers(0, 3, n)
    df = pl.DataFrame(
        {
            "y": y,
            "a": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)),
            "b": np.where(rng.random(n) < 0.75, y, rng.integers(0, 3, n)),
        }
    )
    for metric in ("mcc", "cohen_kappa", "balanced_accuracy"):
        kw = {"metric": metric, "ci": 0.95}
        delta = df.metrics.compare_models("y", ["a", "b"], **kw)
        boot = df.metrics.compare_models("y", ["a", "b"], ci_method="bootstrap", n_boot=4000, **kw)
        width = boot["high"][0] - boot["low"][0]
        assert abs((delta["high"][0] - delta["low"][0]) - width) < 0.1 * width, metric
        centre = (boot["high"][0] + boot["low"][0]) / 2
        assert abs((delta["high"][0] + delta["low"][0]) / 2 - centre) < 0.1 * width, metric
