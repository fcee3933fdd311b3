"""``estimated_performance(y_score={label: column}, ci=)``: the interval of each
class's metric and of each average is the spread of the realized metric when each
row's label is drawn Categorical(p_1 .. p_K) given its calibrated probabilities.

Oracle: 10,000 label sets drawn with numpy (seeded) from the probabilities the
method uses (``calibration=None``: the scores divided by their row's sum; isotonic:
scikit-learn's maps, as tests/test_estimated_multiclass.py's oracle), each realized
metric computed from the drawn labels by hand (per class one-vs-rest, the macro mean
and the mean weighted by the drawn support over the classes whose metric is defined,
the micro metric of the summed counts, the accuracy, each class's weighted ROC AUC
ranked by its raw score), and their standard deviation against the interval's
half-width / z.  And each class's interval equals the binary method's on the same
one-vs-rest problem with the same probabilities."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from test_estimated_multiclass import ALL, _probabilities

DRAWS = 10_000
Z = NormalDist().inv_cdf(0.95)  # ci=0.9
#: The standard deviation of 10,000 draws is itself off by about 1 / sqrt(2 x 10,000)
#: = 0.7% (one standard error); the delta method is first order, off by O(1 / n) at
#: the n >= 1,500 rows a segment has here (measured: within 1.3% at 2,000 rows, the
#: linear ones, precision and accuracy, with no such term).  5% relative is seven
#: standard errors of the simulation with room for the first-order term.
REL = 0.05


# ------------------------------------------------------------------------------ oracle
def _counts_metrics(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> dict:
    """Each count metric of drawn counts (arrays over the draws), NaN where undefined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision, recall = tp / (tp + fp), tp / (tp + fn)
        return {
            "precision": precision,
            "recall": recall,
            "f1": 2 * tp / (2 * tp + fp + fn),
            "jaccard": tp / (tp + fp + fn),
            "fowlkes_mallows": np.sqrt(precision * recall),
            "specificity": tn / (tn + fp),
        }


def _auc(y: np.ndarray, score: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The weighted ROC AUC of each draw's labels (draws x rows), ties one half."""
    order = np.argsort(score, kind="stable")
    s, ys, ws = score[order], y[:, order], w[order]
    new = np.r_[True, s[1:] != s[:-1]]
    run = np.cumsum(new) - 1
    pos, neg = ys * ws, (~ys) * ws
    pos_run = np.zeros((y.shape[0], run[-1] + 1))
    neg_run = np.zeros_like(pos_run)
    np.add.at(pos_run.T, run, pos.T)
    np.add.at(neg_run.T, run, neg.T)
    below = np.cumsum(neg_run, axis=1) - neg_run
    with np.errstate(divide="ignore", invalid="ignore"):
        right = (pos_run * (below + neg_run / 2)).sum(axis=1)
        return right / (pos_run.sum(axis=1) * neg_run.sum(axis=1))


def drawn_metrics(
    p: np.ndarray, pred: np.ndarray, w: np.ndarray, scores: np.ndarray, seed: int
) -> dict[tuple[object, str], np.ndarray]:
    """``{(label or average, metric): realized values over DRAWS label sets}`` of one
    segment's rows (``p`` rows x classes, each row summing to 1)."""
    rng = np.random.default_rng(seed)
    k = p.shape[1]
    cumulative = np.cumsum(p, axis=1)
    cumulative[:, -1] = 1.0
    found: dict[tuple[object, str], list[np.ndarray]] = {}
    for _ in range(DRAWS // 1000):
        labels = (rng.random((1000, p.shape[0], 1)) >= cumulative[None]).sum(axis=2)
        per, support, counts = [], [], []
        for c in range(k):
            y, d = labels == c, pred == c
            tp, fn = (y * w * d).sum(axis=1), (y * w * ~d).sum(axis=1)
            fp, tn = (w * d).sum() - tp, (w * ~d).sum() - fn
            values = _counts_metrics(tp, fp, fn, tn) | {"roc_auc": _auc(y, scores[:, c], w)}
            per.append(values)
            support.append(tp + fn)
            counts.append((tp, fp, fn, tn))
        out = {(c, m): v for c in range(k) for m, v in per[c].items()}
        summed = [sum(x[i] for x in counts) for i in range(4)]
        out |= {("micro", m): v for m, v in _counts_metrics(*summed).items()}
        shares = np.array(support)
        for m in ["roc_auc", *_counts_metrics(*summed)]:
            values = np.array([per[c][m] for c in range(k)])
            kept = ~np.isnan(values)
            out["macro", m] = np.where(kept, values, 0).sum(axis=0) / kept.sum(axis=0)
            weights = np.where(kept, shares, 0.0)
            out["weighted", m] = (np.where(kept, values, 0) * weights).sum(axis=0) / weights.sum(
                axis=0
            )
        accuracy = summed[0] / w.sum()
        out |= {(a, "accuracy"): accuracy for a in ("micro", "macro", "weighted")}
        for key, v in out.items():
            found.setdefault(key, []).append(v)
    return {key: np.concatenate(v) for key, v in found.items()}


def check_spread(got: pl.DataFrame, drawn: dict, rel: float = REL) -> tuple[int, int]:
    """Each interval of ``got`` (one segment's rows) against the drawn metrics'
    standard deviation; returns (the intervals compared, those of zero width where
    the metric is the same in every draw), which the tests count."""
    compared = still = 0
    for row in got.iter_rows(named=True):
        key = row["label"] if row["average"] is None else row["average"]
        for m in ALL:
            low, value, high = row[f"{m}_low"], row[m], row[f"{m}_high"]
            if value is None:  # undefined, or no interval (micro roc_auc, class accuracy)
                assert (low, high) == (None, None), (key, m)
                continue
            assert low <= value <= high, (key, m)
            sd = drawn[key, m].std()
            assert not np.isnan(sd), (key, m)  # defined in expectation: in every draw
            # the same value in every draw: no spread (numpy's std of equal floats can
            # be 1e-17, not 0, by the rounding of their mean: seen at the floor's numpy)
            if sd <= 1e-12:
                assert low == value == high, (key, m)
                still += 1
                continue
            assert low > 0, (key, m)  # not clipped: the half-width is z se
            assert high < 1, (key, m)
            se = (high - low) / (2 * Z)
            assert se == pytest.approx(sd, rel=rel), (key, m, se, sd)
            compared += 1
    return compared, still


def _frame(p: np.ndarray, pred: np.ndarray, w: np.ndarray, g: list[str]) -> pl.DataFrame:
    return pl.DataFrame(
        {f"q{c}": p[:, c] for c in range(p.shape[1])} | {"pred": pred, "w": w, "g": g}
    )


def _segments(got: pl.DataFrame, frame: pl.DataFrame, p: np.ndarray, seed: int) -> tuple[int, int]:
    """check_spread per segment ``g``, the drawn labels of each segment's rows."""
    compared = still = 0
    k = p.shape[1]
    scores = frame.select(f"q{c}" for c in range(k)).to_numpy()
    for g in frame["g"].unique().sort().to_list():
        mine = (frame["g"] == g).to_numpy()
        drawn = drawn_metrics(
            p[mine], frame["pred"].to_numpy()[mine], frame["w"].to_numpy()[mine], scores[mine], seed
        )
        one, none = check_spread(got.filter(pl.col("g") == g).drop("g"), drawn)
        compared, still = compared + one, still + none
    return compared, still


# --------------------------------------------------------------------------- by hand
def test_a_class_never_predicted_weights_and_segments_against_drawn_labels() -> None:
    """Four classes, class 3 never predicted (its precision undefined: null, left out
    of macro and weighted; its recall 0 in every draw: a zero-width interval), rare
    class 2, weights, two segments of 2,000 and 1,600 rows; calibration=None (the
    scores, not summing to 1, divided by their row's sum)."""
    rng = np.random.default_rng(52)
    n = 3600
    raw = rng.dirichlet([4.0, 2.0, 1.0, 1.5], n) * rng.uniform(0.5, 1.0, (n, 1))
    pred = np.argmax(raw[:, :3] + rng.normal(0, 0.15, (n, 3)), axis=1)
    w = rng.choice([0.5, 1.0, 3.0], n)
    frame = _frame(raw, pred, w, ["a"] * 2000 + ["b"] * 1600)
    got = frame.metrics.estimated_performance(
        "pred",
        {c: f"q{c}" for c in range(4)},
        calibration=None,
        weight="w",
        by="g",
        metrics=ALL,
        ci=0.9,
    )
    three = got.filter(pl.col("label") == 3)
    assert three["precision"].is_null().all()
    assert (three["recall_low"] == 0).all()
    assert (three["recall_high"] == 0).all()
    p = raw / raw.sum(axis=1, keepdims=True)
    # per segment: classes 0-2 seven each (accuracy is the averages'), class 3 its
    # AUC (recall, f1, jaccard 0 and specificity 1 in every draw: zero width; its
    # precision and fowlkes_mallows null), micro 7 (no AUC), macro and weighted 8
    assert _segments(got, frame, p, seed=1) == (2 * (3 * 7 + 1 + 7 + 8 + 8), 2 * 4)


def test_isotonic_maps_and_a_class_absent_from_the_reference() -> None:
    """calibration='isotonic' with class 2 absent from the reference: its map is 0, so
    its p is 0 in every row (recall, AUC undefined: null, skipped by the averages; its
    precision 0 in every draw)."""
    rng = np.random.default_rng(7)
    n_ref, n = 3000, 2500
    scores = rng.dirichlet([2.0, 2.0, 1.0], n_ref + n)
    truth = np.array([rng.choice(2, p=s[:2] / s[:2].sum()) for s in scores[:n_ref]])
    ref = pl.DataFrame({f"q{c}": scores[:n_ref, c] for c in range(3)} | {"y": truth})
    pred = np.argmax(scores[n_ref:], axis=1)
    cur = _frame(scores[n_ref:], pred, np.ones(n), ["a"] * n)
    got = cur.metrics.estimated_performance(
        "pred",
        {c: f"q{c}" for c in range(3)},
        reference=ref,
        y_true="y",
        by="g",
        metrics=ALL,
        ci=0.9,
    )
    p = _probabilities(cur, ref.with_columns(w=pl.lit(1.0)), None)
    assert (p[:, 2] == 0).all()
    two = got.filter(pl.col("label") == 2)
    assert two["recall"].is_null().all()
    assert two["roc_auc"].is_null().all()
    assert two["precision_low"].item() == two["precision"].item() == 0.0
    # compared: classes 0, 1 (7 each), micro 7, macro 8, weighted 8; class 2 (its
    # precision, f1, jaccard 0 and specificity B / n in every draw: zero width)
    assert _segments(got, cur, p, seed=2) == (2 * 7 + 7 + 8 + 8, 4)


# ------------------------------------------------------------------------- hypothesis
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    k=st.integers(3, 5),
    alpha=st.lists(st.floats(1.0, 4.0), min_size=5, max_size=5),
    noise=st.sampled_from([0.0, 0.1, 0.3]),
    weighted=st.booleans(),
    grid=st.sampled_from([0, 20]),  # 20: scores on a grid (ties)
    seed=st.integers(0, 2**16),
)
def test_intervals_are_the_spread_of_drawn_labels(
    k: int, alpha: list[float], noise: float, weighted: bool, grid: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    n = 2000
    raw = rng.dirichlet(alpha[:k], n)
    if grid:
        raw = np.maximum(np.round(raw * grid), 1) / grid
    pred = np.argmax(raw + rng.normal(0, noise, raw.shape), axis=1)
    w = rng.choice([0.5, 1.0, 3.0], n) if weighted else np.ones(n)
    frame = _frame(raw, pred, w, ["a"] * n)
    got = frame.metrics.estimated_performance(
        "pred",
        {c: f"q{c}" for c in range(k)},
        calibration=None,
        weight="w",
        by="g",
        metrics=ALL,
        ci=0.9,
    )
    p = raw / raw.sum(axis=1, keepdims=True)
    compared, _ = _segments(got, frame, p, seed=seed)
    assert compared >= 3 * 8 + k  # each average's metrics at least, and each AUC


# ------------------------------------------------- each class is the binary method's
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    k=st.integers(2, 4),
    n=st.integers(1, 60),
    weighted=st.booleans(),
    data=st.data(),
)
def test_each_class_is_the_binary_method_on_its_one_vs_rest_problem(
    k: int, n: int, weighted: bool, data: st.DataObject
) -> None:
    """Scores in 64ths summing to exactly 1 (so the row's division leaves them as
    they are: the same p as the binary method's calibration=None), ties, weights,
    segments; each class's row and interval against the binary method on y_pred ==
    class and the class's score.  rel 1e-12: the same formulas, the sums taken in
    another order (the binary path sums each score's rows first)."""
    cuts = data.draw(
        st.lists(
            st.lists(st.integers(0, 64), min_size=k - 1, max_size=k - 1), min_size=n, max_size=n
        )
    )
    edges = np.sort(np.array(cuts, dtype=float).reshape(n, k - 1), axis=1)
    bounds = np.column_stack([np.zeros(n), edges, np.full(n, 64.0)])
    p = np.diff(bounds, axis=1) / 64
    pred = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    w = (
        np.array(
            data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n))
        )
        if weighted
        else np.ones(n)
    )
    g = data.draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
    frame = _frame(p, pred, w, g)
    metrics = [m for m in ALL if m != "accuracy"]
    got = frame.metrics.estimated_performance(
        "pred",
        {c: f"q{c}" for c in range(k)},
        calibration=None,
        weight="w",
        by="g",
        metrics=metrics,
        ci=0.9,
    )
    columns = ["g", "n", *metrics, *(f"{m}_{s}" for m in metrics for s in ("low", "high"))]
    for c in range(k):
        binary = frame.with_columns(mine=pl.col("pred") == c).metrics.estimated_performance(
            "mine", f"q{c}", calibration=None, weight="w", by="g", metrics=metrics, ci=0.9
        )
        mine = got.filter(pl.col("label") == c).select(columns)
        assert_frame_equal(mine, binary.select(columns), rel_tol=1e-12, abs_tol=1e-14)


# ----------------------------------------------------------------------------- edges
def test_the_layout_with_ci_and_rows_of_certain_labels() -> None:
    """Probabilities of 0 and 1 only: every label is certain, every interval has zero
    width; the micro ROC AUC and the class rows' accuracy have no value, no interval."""
    frame = pl.DataFrame(
        {
            "q0": [1.0, 0.0, 0.0, 1.0],
            "q1": [0.0, 1.0, 0.0, 0.0],
            "q2": [0.0, 0.0, 1.0, 0.0],
            "pred": [0, 1, 1, 2],
        }
    )
    got = frame.metrics.estimated_performance(
        "pred",
        {0: "q0", 1: "q1", 2: "q2"},
        calibration=None,
        metrics=["roc_auc", "accuracy"],
        ci=0.95,
    )
    assert got.columns == [
        "label",
        "average",
        "n",
        "roc_auc",
        "accuracy",
        "roc_auc_low",
        "roc_auc_high",
        "accuracy_low",
        "accuracy_high",
    ]
    micro = got.filter(pl.col("average") == "micro")
    assert micro["roc_auc_low"].item() is None
    assert micro["roc_auc_high"].item() is None
    assert got["accuracy_low"][:3].to_list() == [None] * 3
    for m in ("roc_auc", "accuracy"):
        kept = got.filter(pl.col(m).is_not_null())
        assert (kept[f"{m}_low"] == kept[m]).all(), m
        assert (kept[f"{m}_high"] == kept[m]).all(), m
    # accuracy by hand: rows 0 and 2 right (p = 1 of their predicted class), 1 and 3 not
    assert got["accuracy"][3] == 0.5
    assert math.isclose(got["roc_auc"][0], 1.0)


def test_a_column_named_like_an_interval_column_is_refused_as_by() -> None:
    frame = pl.DataFrame({"q0": [0.5], "q1": [0.5], "pred": [0], "recall_low": [1]})
    with pytest.raises(ValueError, match=r"`by` column 'recall_low' collides"):
        frame.metrics.estimated_performance(
            "pred",
            {0: "q0", 1: "q1"},
            calibration=None,
            by="recall_low",
            ci=0.9,
            metrics=["recall"],
        )
