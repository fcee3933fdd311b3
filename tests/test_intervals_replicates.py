"""Bootstrap replicates: each replicate's metrics (numpy) equal the frame's (polars),
labels= and segments in the replicates, compare's replicates."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from _interval_helpers import _frame
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

from pl_metrics._intervals import draws, replicates, sampling


# ----------------------------------------------------------- the replicate metrics
# The bootstrap computes each replicate's metrics in numpy (pl_metrics._replicates),
# the point estimates in polars: both must be the same functions of the counts.
def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    matrix=st.integers(1, 4).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(0, 4), min_size=k, max_size=k), min_size=k, max_size=k
        )
    ),
    beta=st.sampled_from([0.5, 1.0, 2.0]),
    zero_division=st.sampled_from([0.0, 1.0, math.nan]),
)
def test_replicate_metrics_equal_the_frame_metrics(
    matrix: list[list[int]], beta: float, zero_division: float
) -> None:
    cm = np.array(matrix)
    rows = [(a, p) for a in range(len(cm)) for p in range(len(cm)) for _ in range(cm[a, p])]
    assume(rows)
    df = pl.DataFrame(rows, schema=["t", "p"], orient="row")
    seen = (cm.sum(axis=0) + cm.sum(axis=1)) > 0  # the label set: labels seen in t or p
    cm = cm[seen][:, seen]
    tp, support, predicted = (x[None, :] for x in (np.diag(cm), cm.sum(1), cm.sum(0)))
    n = np.array([cm.sum()])
    f = "f1" if beta == 1 else f"f{beta:g}"
    opts = {"beta": beta, "zero_division": zero_division}

    frame = df.metrics.per_class("t", "p", **opts)
    ours = replicates.per_class(tp, support, predicted, n, **opts)
    for name, column in (("precision",) * 2, ("recall",) * 2, ("f", f), ("jaccard",) * 2):
        assert all(map(_same, ours[name][0], frame[column]))
    assert all(map(_same, ours["specificity"][0], frame["specificity"]))

    frame = df.metrics.averages("t", "p", **opts)
    ours = replicates.averages(tp, support, predicted, **opts)
    for i, average in enumerate(replicates.AVERAGES):
        for name, column in (("precision",) * 2, ("recall",) * 2, ("f", f), ("jaccard",) * 2):
            assert _same(ours[average][name][0], frame[column][i]), (average, name)

    frame = df.metrics.summary("t", "p")
    for name, value in replicates.summary(tp, support, predicted).items():
        assert _same(value[0], frame[name][0]), name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    counts=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3)).filter(lambda c: sum(c) > 0),
        min_size=1,
        max_size=12,
    )
)
def test_replicate_auc_and_ap_equal_scikit_learn_and_survive_merging(
    counts: list[tuple[int, int]],
) -> None:
    pos, neg = (np.array(c, dtype=np.int64) for c in zip(*counts, strict=True))
    scores = -np.arange(len(pos), dtype=float)  # the state's scores, descending
    y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
    s, w = np.r_[scores, scores], np.r_[pos, neg]
    auc = replicates.roc_auc(pos[None, :], neg[None, :])[0]
    ap = replicates.average_precision(pos[None, :], neg[None, :])[0]
    if pos.sum() and neg.sum():
        assert auc == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    else:
        assert math.isnan(auc)
    if pos.sum():
        assert ap == pytest.approx(skm.average_precision_score(y, s, sample_weight=w), rel=1e-12)
    else:
        assert ap == 0.0
    # merging one-class runs of scores leaves each metric as it was
    merged = draws.merge_runs(pos, neg, positive_runs=True)[:2]
    assert _same(replicates.roc_auc(*(x[None, :] for x in merged))[0], auc)
    merged = draws.merge_runs(pos, neg, positive_runs=False)[:2]
    assert _same(replicates.average_precision(*(x[None, :] for x in merged))[0], ap)


def test_percentiles_are_numpys_skipping_nan() -> None:
    rng = np.random.default_rng(4)
    values = rng.normal(size=(101, 4))
    values[rng.random((101, 4)) < 0.2] = np.nan
    values[:, 3] = np.nan  # no value at all
    values[:100, 2] = np.nan  # a single value
    low, high = replicates.percentiles(values, 0.9)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanpercentile(values, [5, 95], axis=0)
    np.testing.assert_allclose(low, expected[0], rtol=1e-12)
    np.testing.assert_allclose(high, expected[1], rtol=1e-12)


def test_labels_option_bootstraps_like_the_rows() -> None:
    # labels= keeps rows outside the labels as FP/FN and in tn (per_class), drops
    # them (summary), and keeps a label absent from the data: each replicate must too
    rng = np.random.default_rng(3)
    df = _frame(3000, rng)
    labels = [2, 0, 7]
    boot = {"ci": 0.95, "n_boot": 2000, "seed": 2, "ci_method": "bootstrap"}
    pc = df.metrics.per_class("t", "p", labels=labels, **boot)
    sm = df.metrics.summary("t", "p", labels=labels, **boot)
    assert pc["label"].to_list() == labels
    assert pc.filter(pl.col("label") == 7)["recall_low"].to_list() == [0.0]  # zero_division
    t, p = df["t"].to_numpy(), df["p"].to_numpy()
    spec2, rec0, acc = [], [], []
    for _ in range(500):
        i = rng.integers(0, len(t), len(t))
        _, rec, _, _ = skm.precision_recall_fscore_support(
            t[i], p[i], labels=labels, zero_division=0.0
        )
        rec0.append(rec[1])
        negatives = t[i] != 2  # every row whose actual label is not 2, labelled or not
        spec2.append((negatives & (p[i] != 2)).sum() / negatives.sum())
        kept = np.isin(t[i], labels) & np.isin(p[i], labels)
        acc.append((t[i][kept] == p[i][kept]).mean())
    for row_reps, low, high in (
        (rec0, pc["recall_low"][1], pc["recall_high"][1]),
        (spec2, pc["specificity_low"][0], pc["specificity_high"][0]),
        (acc, sm["accuracy_low"][0], sm["accuracy_high"][0]),
    ):
        r_low, r_high = np.percentile(row_reps, [2.5, 97.5])
        width = r_high - r_low
        assert abs((high - low) - width) < 0.2 * width
        assert abs((high + low) / 2 - (r_high + r_low) / 2) < 0.2 * width


def test_a_segments_interval_does_not_depend_on_the_other_segments() -> None:
    # each segment draws from its own generator (seed + its key), and segments
    # are stacked for the metrics: filtering to one segment changes nothing
    rng = np.random.default_rng(8)
    df = _frame(3000, rng).with_columns(pl.Series("g", rng.choice(["x", "y", "z"], 3000)))
    z = pl.col("g") == "z"  # two classes in "z", three elsewhere
    df = df.with_columns(pl.when(z).then(pl.col(c) % 2).otherwise(c).alias(c) for c in ("t", "p"))
    for method, args in (("report", ("t", "p")), ("summary", ("t", "p")), ("roc_auc", ("y", "s"))):
        run = getattr(df.metrics, method)
        boot = {"ci": 0.9, "n_boot": 200, "seed": 4, "ci_method": "bootstrap"}
        every = run(*args, by="g", **boot)
        for g in ("x", "z"):
            alone = getattr(df.filter(pl.col("g") == g).metrics, method)
            one = alone(*args, by="g", **boot)
            assert_frame_equal(every.filter(pl.col("g") == g), one)


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision", "f1_macro"])
def test_compare_replicates_do_not_depend_on_the_chunks(
    metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # compare's replicates (a segment's, and its stratum's overall one summed over
    # its segments' redrawn counts) are reduced a chunk of segments at a time; the
    # strata's sums gathered from every chunk: chunks of one segment give the same
    rng = np.random.default_rng(19)
    df = _frame(4000, rng).with_columns(
        pl.Series("g", rng.integers(0, 30, 4000)), pl.Series("c", rng.integers(0, 3, 4000))
    )
    y, pred = ("t", "p") if metric == "f1_macro" else ("y", "s")
    kwargs = {"by": "g", "control": "c", "metric": metric, "ci": 0.9, "n_boot": 100}
    every = df.metrics.compare(y, pred, **kwargs, ci_method="bootstrap").sort("c", "g")
    assert every["diff_low"].is_not_null().mean() > 0.5  # intervals, not nulls, compared
    monkeypatch.setattr(sampling, "_CHUNK_CELLS", 1)
    one_by_one = df.metrics.compare(y, pred, **kwargs, ci_method="bootstrap").sort("c", "g")
    assert_frame_equal(every, one_by_one)


def test_a_poisson_replicate_without_rows_is_skipped() -> None:
    # a Poisson replicate of a 2-row segment holds no row with probability e^-2
    # (13.5 %): every metric is undefined there and skipped, as a 0/0 is, not its
    # zero_division value (or AP's 0), which would put the lower bound of a 90 %
    # interval at 0.  The segment's one class is always right: every replicate with
    # a row has precision, recall, F1 and AP 1
    tiny = pl.DataFrame({"g": ["tiny"] * 2, "t": [1, 1], "p": [1, 1], "s": [0.9, 0.8]})
    rng = np.random.default_rng(23)
    big = pl.DataFrame(
        {"g": ["big"] * 200, "t": rng.integers(0, 2, 200), "p": rng.integers(0, 2, 200)}
    ).with_columns(s=pl.col("p") * 0.5 + 0.2)
    df = pl.concat([tiny, big])
    boot = {"ci": 0.9, "n_boot": 2000, "seed": 1, "ci_method": "poisson"}
    kinds = {
        "per_class": df.metrics.per_class("t", "p", by="g", **boot),
        "report": df.metrics.report("t", "p", by="g", **boot),
        "averages": df.metrics.averages("t", "p", by="g", **boot),
    }
    for kind, out in kinds.items():
        row = out.filter(pl.col("g") == "tiny")
        for m in ("precision", "recall", "f1"):
            bounds = row.select(f"{m}_low", f"{m}_high")
            assert bounds.height, (kind, m)
            assert (bounds.to_numpy() == 1.0).all(), (kind, m, bounds)
    ap = df.metrics.average_precision("t", "s", by="g", **boot).filter(pl.col("g") == "tiny")
    assert (ap["average_precision_low"][0], ap["average_precision_high"][0]) == (1.0, 1.0)
    compared = df.metrics.compare("t", "p", by="g", metric="f1_macro", **boot)
    row = compared.filter(pl.col("g") == "tiny")
    assert (row["low"][0], row["high"][0]) == (1.0, 1.0)


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
def test_a_nan_control_is_one_stratum(metric: str) -> None:
    # segments whose control value is NaN form one stratum, as any other value: a
    # segment's difference to its stratum's overall value varies over the
    # replicates (it was always 0 when each NaN segment was a stratum of its own,
    # its own overall value)
    rng = np.random.default_rng(29)
    n = 3000
    df = pl.DataFrame(
        {
            "g": rng.integers(0, 6, n),
            "y": rng.integers(0, 2, n),
            "s": rng.random(n).round(2),
        }
    ).with_columns(c=pl.when(pl.col("g") < 3).then(float("nan")).otherwise(1.0))
    df = df.with_columns(s=pl.col("s") + 0.3 * pl.col("y") * (pl.col("g") == 0))
    out = df.metrics.compare(
        "y", "s", by="g", control="c", metric=metric, ci=0.9, n_boot=200, ci_method="bootstrap"
    )
    nan_stratum = out.filter(pl.col("c").is_nan())
    assert nan_stratum.height == 3
    assert (nan_stratum["diff_high"] > nan_stratum["diff_low"]).all()
    # segment 0 scores its positives higher: it differs from its stratum
    top = nan_stratum.filter(pl.col("g") == 0)
    assert top["diff_low"][0] > 0
