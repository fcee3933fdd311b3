"""compare_models' DeLong test against a brute-force DeLong and the paired bootstrap
against the row bootstrap, with simulations (size and coverage under the null, power)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from _compare_models_helpers import _exchangeable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy.stats import norm
from sklearn import metrics as skm

import pl_metrics  # noqa: F401 - registers .metrics
from pl_metrics._core.names import ALL
from pl_metrics._groups import paired, paired_delong
from pl_metrics._intervals import draws


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
            paired.Y: pl.Boolean,
            paired.A: pl.Float64,
            paired.B: pl.Float64,
            paired.COUNT: pl.Int64,
        },
        orient="row",
    ).with_columns(pl.lit(0, pl.Int8).alias(ALL), pl.col(paired.A) / 2)
    segment = [] if one_segment else keys
    by_polars = df.lazy()
    for score in (paired.A, paired.B):
        by_polars = paired_delong._placements(by_polars, segment, score)
    by_polars = by_polars.with_columns(
        (pl.col(paired_delong._K + paired.B) - pl.col(paired_delong._K + paired.A)).alias(
            paired_delong._D
        )
    )
    numpy_in = (
        df
        if one_segment
        else df.with_row_index(paired_delong._GROUP).with_columns(
            pl.col(paired_delong._GROUP).first().over(keys)
        )
    )
    by_numpy = paired_delong._differences_numpy(numpy_in)
    columns = [*keys, paired.Y, paired.A, paired.B, paired.COUNT, paired_delong._D]
    sort = [*keys, paired.Y, paired.A, paired.B, paired.COUNT]
    assert_frame_equal(
        by_numpy.select(columns).sort(sort, nulls_last=True),
        by_polars.collect().select(columns).sort(sort, nulls_last=True),
    )
    rows = df.select(pl.all().repeat_by(paired.COUNT).explode()).with_columns(
        pl.lit(1, pl.Int64).alias(paired.COUNT)
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
        monkeypatch.setattr(draws, "_TAKE_CELLS", 1)
    rng = np.random.default_rng(11)
    n = 300
    positive = rng.random(n) < 0.4
    score = rng.normal(size=n)
    if decimals is not None:
        score = np.round(score, decimals)
    block = rng.integers(0, 3, (5, n))
    distinct = np.unique(score)
    position = len(distinct) - 1 - np.searchsorted(distinct, score)  # descending
    count, starts = paired.score_counts_of_block(positive, score)
    pos, neg = count(block)
    np.testing.assert_array_equal(starts, [0])
    for r in range(block.shape[0]):
        for got, rows in ((pos, positive), (neg, ~positive)):
            expected = np.bincount(position[rows], weights=block[r, rows], minlength=len(distinct))
            np.testing.assert_array_equal(got[r], expected.astype(np.int64))
    # three segments side by side (cells in segment order): each segment's counts,
    # its own scores descending, from its first score on
    segment = np.repeat([0, 1, 2], [100, 150, 50])
    count, starts = paired.score_counts_of_block(positive, score, segment)
    pos, neg = count(block)
    bounds = [0, 100, 250, 300]
    for i in range(3):
        part = slice(bounds[i], bounds[i + 1])
        alone, _ = paired.score_counts_of_block(positive[part], score[part])
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
    monkeypatch.setattr(draws, "_GROUP_CELLS", 1)  # one replicate at a time
    assert_frame_equal(run(), grouped)
