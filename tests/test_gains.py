"""KS statistic and gains / lift tables against brute force and scipy (issue 14).

Oracles: ``scipy.stats.ks_2samp`` (unweighted; integer weights as repeated rows),
a brute-force weighted-ECDF KS in exact fractions, and a brute-force gains table
recomputed from the sorted rows of each segment.
"""

from __future__ import annotations

from fractions import Fraction

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy import stats
from test_ranking import SCORE_KINDS

import pl_metrics as plm


@st.composite
def frames(draw: st.DrawFn, *, integer_weights: bool = False) -> dict:
    n = draw(st.integers(1, 40))
    kind = draw(st.sampled_from(list(SCORE_KINDS)))
    scores = draw(st.lists(SCORE_KINDS[kind], min_size=n, max_size=n))
    y = oracle.with_a_positive(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    data: dict = {"y": y, "s": scores}
    by: list[str] = []
    if draw(st.booleans()):
        data["seg"] = draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n))
        by = ["seg"]
    weighted = draw(st.booleans())
    if weighted:
        values = [0, 1, 2, 3] if integer_weights else [0.0, 0.25, 0.5, 1.0, 2.0, 7.5]
        data["w"] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
    return {"df": pl.DataFrame(data), "by": by, "weight": "w" if weighted else None}


def _kw(case: dict) -> dict:
    return {"by": case["by"] or None, "weight": case["weight"]}


def _refused_without_positive(case: dict, method: str, **options: object) -> bool:
    """Handled here: no row of non-zero weight (an empty table), or no positive one
    (pos_label absent from the input: a DataError, as documented)."""
    df, w = case["df"], case["weight"]
    if w is None:
        return False
    call = lambda: getattr(df.metrics, method)("y", "s", **_kw(case), **options)  # noqa: E731
    if df[w].sum() == 0:
        assert call().height == 0
        return True
    if df.filter(pl.col("y") == 1)[w].sum() > 0:
        return False
    with pytest.raises(plm.DataError, match="pos_label"):
        call()
    return True


def _expected(case: dict, build) -> pl.DataFrame:
    expected = oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])
    if expected is None or not case["by"]:  # None: every row weighs 0
        return expected
    return expected.sort(case["by"], nulls_last=True, maintain_order=True)


def _weights(seg: pl.DataFrame, weight: str | None) -> list:
    return [1] * seg.height if weight is None else seg[weight].to_list()


# -------------------------------------------------------------------------------- KS
def brute_ks(y: list[int], s: list[float], w: list) -> tuple[float | None, float | None]:
    """max over thresholds t (score >= t positive) of |tpr - fpr|, in exact fractions;
    the highest t reaching it."""
    p = sum(Fraction(wi) for yi, wi in zip(y, w, strict=True) if yi == 1)
    n = sum(Fraction(wi) for yi, wi in zip(y, w, strict=True) if yi != 1)
    if p == 0 or n == 0:
        return None, None
    best, at = Fraction(-1), None
    for t in sorted(set(s), reverse=True):
        tp = sum(Fraction(wi) for yi, si, wi in zip(y, s, w, strict=True) if yi == 1 and si >= t)
        fp = sum(Fraction(wi) for yi, si, wi in zip(y, s, w, strict=True) if yi != 1 and si >= t)
        d = abs(tp / p - fp / n)
        if d > best:
            best, at = d, t
    return float(best), at


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(), how=st.sampled_from(oracle.RANKING_STRATEGIES))
def test_ks_equals_brute_force(case: dict, how: str) -> None:
    """Each way to the curve (``how``: counted, or sorted - by segment, the keys'
    group_by sort read in numpy, ``sorted_tables._read_segments``)."""
    if _refused_without_positive(case, "ks"):
        return

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        value, at = brute_ks(seg["y"].to_list(), seg["s"].to_list(), _weights(seg, case["weight"]))
        return pl.DataFrame(
            {"ks": [value], "threshold": [at]}, schema={"ks": pl.Float64, "threshold": pl.Float64}
        )

    expected = _expected(case, build)
    with oracle.ranking_strategy(how):
        got = case["df"].metrics.ks("y", "s", **_kw(case))
    oracle.assert_close(got, expected)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(integer_weights=True))
def test_ks_equals_scipy_ks_2samp(case: dict) -> None:
    """scipy's two-sample statistic; integer weights as repeated rows."""
    if _refused_without_positive(case, "ks"):
        return
    df = case["df"]
    if case["weight"]:
        df = df.select(pl.all().repeat_by(case["weight"]).explode()).drop_nulls(case["weight"])
    got = case["df"].metrics.ks("y", "s", **_kw(case))
    for key, seg in df.group_by(case["by"]) if case["by"] else [((), df)]:
        pos, neg = seg.filter(pl.col("y") == 1)["s"], seg.filter(pl.col("y") != 1)["s"]
        row = (
            got.filter(*[pl.col(c).eq_missing(k) for c, k in zip(case["by"], key, strict=True)])
            if case["by"]
            else got
        )
        if pos.len() == 0 or neg.len() == 0:
            assert row.height == 0 or row["ks"].item() is None
            continue
        assert row["ks"].item() == pytest.approx(stats.ks_2samp(pos, neg).statistic, rel=1e-12)


def test_ks_worked_example() -> None:
    # positives 0.3, 0.8, 0.9; negatives 0.1, 0.2, 0.4.  At t = 0.8: tpr 2/3, fpr 0;
    # at t = 0.3: tpr 1, fpr 1/3 -- both 2/3 (exactly): the highest threshold is given.
    df = pl.DataFrame({"y": [0, 0, 1, 0, 1, 1], "s": [0.1, 0.2, 0.3, 0.4, 0.8, 0.9]})
    assert df.metrics.ks("y", "s").row(0) == (2 / 3, 0.8)
    assert stats.ks_2samp([0.3, 0.8, 0.9], [0.1, 0.2, 0.4]).statistic == pytest.approx(2 / 3)


def test_ks_one_class_is_null() -> None:
    df = pl.DataFrame({"seg": ["a", "a", "b", "b"], "y": [1, 1, 0, 1], "s": [0.1, 0.2, 0.3, 0.4]})
    got = df.metrics.ks("y", "s", by="seg")
    assert got.to_dicts() == [
        {"seg": "a", "ks": None, "threshold": None},
        {"seg": "b", "ks": 1.0, "threshold": 0.4},
    ]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(), bins=st.integers(1, 20))
def test_ks_bins_bound_holds(case: dict, bins: int) -> None:
    if _refused_without_positive(case, "ks"):
        return
    df = case["df"].with_columns(pl.col("s").clip(0, 1), pl.lit(0).alias("all"))
    by = case["by"] or ["all"]
    exact = df.metrics.ks("y", "s", by=by, weight=case["weight"])
    binned = df.metrics.ks("y", "s", by=by, weight=case["weight"], bins=bins)
    both = exact.join(binned, on=by, nulls_equal=True, suffix="_binned")
    assert both.height == exact.height == binned.height
    for row in both.iter_rows(named=True):
        if row["ks"] is None:
            assert row["ks_binned"] is None
            continue
        assert row["ks_binned"] <= row["ks"] + 1e-12
        assert row["ks"] <= row["ks_binned"] + row["ks_error_bound"] + 1e-12


# ----------------------------------------------------------------------------- gains
def brute_gains(y: list[int], s: list[float], w: list, cuts: list[Fraction]) -> pl.DataFrame:
    """Sort by score descending; a tied block goes to the bucket of its first row
    (1 + the number of cuts q with position >= q * total); sum per bucket."""
    order = sorted(range(len(s)), key=lambda i: -s[i])
    total = sum(Fraction(x) for x in w)
    blocks: dict[float, list[int]] = {}
    for i in order:
        blocks.setdefault(s[i], []).append(i)
    rows: dict[int, dict] = {}
    before = Fraction(0)
    for score, members in blocks.items():
        bucket = 1 + sum(before >= q * total for q in cuts)
        r = rows.setdefault(bucket, {"threshold": score, "rows": Fraction(0), "pos": Fraction(0)})
        r["threshold"] = min(r["threshold"], score)
        r["rows"] += sum(Fraction(w[i]) for i in members)
        r["pos"] += sum(Fraction(w[i]) for i in members if y[i] == 1)
        before += sum(Fraction(w[i]) for i in members)
    all_pos = sum(Fraction(w[i]) for i in range(len(y)) if y[i] == 1)
    out, cum_rows, cum_pos = [], Fraction(0), Fraction(0)
    for bucket in sorted(rows):
        r = rows[bucket]
        cum_rows += r["rows"]
        cum_pos += r["pos"]
        base = all_pos / total
        nan = float("nan")
        out.append(
            {
                "bucket": bucket,
                "threshold": r["threshold"],
                "rows": float(r["rows"]),
                "positives": float(r["pos"]),
                "rate": float(r["pos"] / r["rows"]),
                "cum_share": float(cum_rows / total),
                "gain": float(cum_pos / all_pos) if all_pos else nan,
                "lift": float(r["pos"] / r["rows"] / base) if all_pos else nan,
                "cum_lift": float(cum_pos / cum_rows / base) if all_pos else nan,
            }
        )
    return pl.DataFrame(out, schema_overrides={"bucket": pl.Int64})


BUCKETS = st.one_of(
    st.integers(1, 12),
    st.lists(
        st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.25, 0.5, 0.9, 1.0]),
        min_size=1,
        max_size=5,
        unique=True,
    ).map(sorted),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(), buckets=BUCKETS, how=st.sampled_from(oracle.RANKING_STRATEGIES))
def test_gains_equals_brute_force(case: dict, buckets: int | list[float], how: str) -> None:
    # the cuts as exact fractions: j/m, or a share as written (0.2 = 1/5)
    if isinstance(buckets, int):
        cuts = [Fraction(j, buckets) for j in range(1, buckets)]
    else:
        cuts = [Fraction(str(q)) for q in buckets if q != 1]
    if _refused_without_positive(case, "gains", buckets=buckets):
        return

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        return brute_gains(
            seg["y"].to_list(), seg["s"].to_list(), _weights(seg, case["weight"]), cuts
        )

    expected = _expected(case, build)
    with oracle.ranking_strategy(how):  # counted, or sorted (as ks)
        got = case["df"].metrics.gains("y", "s", buckets=buckets, **_kw(case))
    oracle.assert_close(got.with_columns(pl.col("rows", "positives").cast(pl.Float64)), expected)
    if case["weight"] is None:
        assert got.schema["rows"] == pl.Int64


def test_gains_worked_example() -> None:
    # 10 rows, scores 1.0 .. 0.1, positives at 1.0, 0.9, 0.7, 0.4: base rate 0.4.
    # Buckets of 2 (buckets=5): positives 2, 1, 0, 1, 0 -> lift 2/2/0.4 = 2.5, 1.25, 0,
    # 1.25, 0; gain 0.5, 0.75, 0.75, 1, 1; cum_lift 2.5, 1.875, 1.25, 1.25, 1.
    df = pl.DataFrame(
        {
            "y": [1, 1, 0, 1, 0, 0, 1, 0, 0, 0],
            "s": [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1],
        }
    )
    got = df.metrics.gains("y", "s", buckets=5)
    assert got["positives"].to_list() == [2, 1, 0, 1, 0]
    assert got["lift"].to_list() == pytest.approx([2.5, 1.25, 0.0, 1.25, 0.0])
    assert got["gain"].to_list() == pytest.approx([0.5, 0.75, 0.75, 1.0, 1.0])
    assert got["cum_lift"].to_list() == pytest.approx([2.5, 1.875, 1.25, 1.25, 1.0])
    assert got["threshold"].to_list() == [0.9, 0.7, 0.5, 0.3, 0.1]


def test_gains_ties_stay_in_one_bucket() -> None:
    # 6 of 10 rows tie at 0.9: the block starts at position 0 -> bucket 1 holds all six;
    # buckets 2 and 3 (positions 0.2 .. 0.6) are skipped, the next block starts at 0.6.
    df = pl.DataFrame({"y": [1] * 6 + [0] * 4, "s": [0.9] * 6 + [0.4, 0.3, 0.2, 0.1]})
    got = df.metrics.gains("y", "s", buckets=5)
    assert got["bucket"].to_list() == [1, 4, 5]
    assert got["rows"].to_list() == [6, 2, 2]


@pytest.mark.parametrize(
    "buckets",
    [
        *(0, -1, 1.5, True, [], [0.5, 0.2], [0.0, 0.5], [0.5, 1.2], "10"),
        # a NaN or infinite share: a raw Fraction error before
        *([float("nan"), 0.5], [0.2, float("inf")], [float("-inf"), 0.5], [0.5, float("nan")]),
    ],
)
def test_gains_bad_buckets(buckets: object) -> None:
    df = pl.DataFrame({"y": [0, 1], "s": [0.1, 0.9]})
    with pytest.raises(ValueError, match="`buckets` must be"):
        df.metrics.gains("y", "s", buckets=buckets)


@pytest.mark.parametrize("tiny", [1e-40, 1e-300, 5e-324, 1.2345678901234567e-10])
def test_gains_tiny_shares(tiny: float) -> None:
    # 1e-40 is 1 / 10**40: its products overflowed Int128 (a raw polars error).  On
    # 10 rows a share below 1 / 10 ends bucket 1 after the top block, whatever its
    # size: rows ranked above a block, 0 or at least 1 of 10, are below or above it.
    # So the table equals that of the share 0.05 (hand count: bucket 1 the block at
    # 0.9, then the 0.5 cut after 5 rows of 10: 0.9 x2, 0.8, 0.7, 0.6 | the rest)
    df = pl.DataFrame(
        {
            "y": [1, 0, 1, 1, 0, 0, 1, 0, 0, 0],
            "s": [0.9, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1],
        }
    )
    got = df.metrics.gains("y", "s", buckets=[tiny, 0.5])
    assert got["rows"].to_list() == [2, 3, 5]
    assert_frame_equal(got, df.metrics.gains("y", "s", buckets=[0.05, 0.5]))
    weighted = df.with_columns(w=pl.lit(2.0)).metrics.gains(
        "y", "s", buckets=[tiny, 0.5], weight="w"
    )
    assert weighted["rows"].to_list() == [4.0, 6.0, 10.0]


def test_share_above_int64_denominators_compares_as_the_exact_decimal() -> None:
    # table_options._share: a share whose decimal denominator is above the largest row count
    # is replaced by its upper neighbour among fractions of denominator <= that count;
    # brute force with the count set to 60: for every total <= 60 and every number of
    # rows before, the cut is reached for the neighbour exactly when for the decimal
    from pl_metrics._core import table_options

    for q in [1e-40, 0.1234567, 0.333, 0.9999, 2 / 3, 0.015625, 1 / 7]:
        exact = Fraction(repr(q))
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(table_options, "_MOST_ROWS", 60)
            near = table_options._share(q)
        assert near.denominator <= 60 or near == exact
        for total in range(1, 61):
            for before in range(total + 1):
                assert (Fraction(before, total) >= exact) == (Fraction(before, total) >= near)


def test_merged_state_gives_the_same_tables() -> None:
    rng = np.random.default_rng(0)
    df = pl.DataFrame(
        {"g": rng.integers(0, 3, 300), "y": rng.integers(0, 2, 300), "s": rng.random(300).round(2)}
    )
    parts = [df[i::3] for i in range(3)]
    state = plm.from_score_counts(
        pl.concat([p.metrics.score_counts("y", "s", by="g") for p in parts]), by="g"
    )
    oracle.assert_close(state.ks(), df.metrics.ks("y", "s", by="g"))
    oracle.assert_close(state.gains(buckets=4), df.metrics.gains("y", "s", by="g", buckets=4))


# ----------------------------------------------------------------------- expected cost
COSTS = st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0, 10.0]), min_size=4, max_size=4).map(
    lambda c: [[c[0], c[1]], [c[2], c[3]]]
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(integer_weights=True), matrix=COSTS, best=st.booleans())
def test_expected_cost_equals_brute_force(case: dict, matrix: list, best: bool) -> None:
    """Every threshold (+inf, then each distinct score): scikit-learn's confusion
    matrix of ``score >= t`` times the cost matrix, over the rows."""
    from sklearn.metrics import confusion_matrix

    if _refused_without_positive(case, "expected_cost", cost_matrix=matrix):
        return

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y = (seg["y"] == 1).to_numpy()
        s = seg["s"].to_numpy()
        w = np.asarray(_weights(seg, case["weight"]), dtype=float)
        rows = []
        for t in [float("inf"), *sorted(set(s.tolist()), reverse=True)]:
            cm = confusion_matrix(y, s >= t, labels=[False, True], sample_weight=w)
            (tn, fp), (fn, tp) = cm
            cost = float((np.asarray(matrix) * cm).sum() / cm.sum())
            rows.append({"threshold": t, "tp": tp, "fp": fp, "fn": fn, "tn": tn, "cost": cost})
        table = pl.DataFrame(rows)
        if best:
            table = table.filter(pl.col("cost") == pl.col("cost").min()).head(1)
        return table

    got = case["df"].metrics.expected_cost("y", "s", cost_matrix=matrix, best=best, **_kw(case))
    oracle.assert_close(got, _expected(case, build))


@pytest.mark.parametrize(
    "matrix", [[[0, 1]], [[0, 1], [1]], [[0, 1], [1, float("nan")]], "x", [[0, "a"], [1, 0]]]
)
def test_expected_cost_bad_matrix(matrix: object) -> None:
    df = pl.DataFrame({"y": [0, 1], "s": [0.1, 0.9]})
    with pytest.raises(ValueError, match="`cost_matrix` must be 2 x 2"):
        df.metrics.expected_cost("y", "s", cost_matrix=matrix)


# ----------------------------------------------------------------------- decision cost
@st.composite
def multiclass_frames(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 30))
    k = draw(st.integers(2, 4))
    labels = ["a", "b", "c", "d"][:k]
    raw = draw(
        st.lists(st.lists(st.integers(1, 9), min_size=k, max_size=k), min_size=n, max_size=n)
    )
    probs = np.asarray(raw, dtype=float)
    probs /= probs.sum(axis=1, keepdims=True)
    data = {"y": draw(st.lists(st.sampled_from(labels), min_size=n, max_size=n))}
    data |= {f"p{label}": probs[:, i] for i, label in enumerate(labels)}
    by = []
    if draw(st.booleans()):
        data["seg"] = draw(st.lists(st.sampled_from([1, 2]), min_size=n, max_size=n))
        by = ["seg"]
    weighted = draw(st.booleans())
    if weighted:
        data["w"] = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    costs = draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 5.0]), min_size=k * k, max_size=k * k))
    matrix = {a: {j: costs[i * k + m] for m, j in enumerate(labels)} for i, a in enumerate(labels)}
    return {
        "df": pl.DataFrame(data),
        "by": by,
        "weight": "w" if weighted else None,
        "labels": labels,
        "costs": matrix,
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=multiclass_frames())
def test_decision_cost_equals_brute_force(case: dict) -> None:
    """numpy: expected costs P @ C, the first argmin, then the mean C[actual, decided]."""
    labels = case["labels"]
    matrix = np.array([[case["costs"][a][j] for j in labels] for a in labels])

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        probs = seg.select(f"p{label}" for label in labels).to_numpy()
        expected = probs @ matrix
        least = expected.min(axis=1, keepdims=True)
        # the documented tie rule: within 1e-12 (relative) of the least, the first class
        decided = np.argmax(expected <= least + np.abs(least) * 1e-12, axis=1)
        actual = np.array([labels.index(y) for y in seg["y"]])
        w = np.asarray(_weights(seg, case["weight"]), dtype=float)
        return pl.DataFrame({"cost": [float(np.average(matrix[actual, decided], weights=w))]})

    got = case["df"].metrics.decision_cost(
        "y", {label: f"p{label}" for label in labels}, cost_matrix=case["costs"], **_kw(case)
    )
    expected = _expected(case, build)
    if expected is None:  # every row weighs 0: no rows
        assert got.height == 0
        return
    oracle.assert_close(got, expected)


def test_decision_cost_bad_matrix() -> None:
    df = pl.DataFrame({"y": ["a", "b"], "pa": [0.5, 0.5], "pb": [0.5, 0.5]})
    with pytest.raises(ValueError, match="`cost_matrix` must map every class"):
        df.metrics.decision_cost("y", {"a": "pa", "b": "pb"}, cost_matrix={"a": {"a": 0}})


# --------------------------------------------------------------------------- cost curve
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(), points=st.integers(1, 12))
def test_cost_curve_equals_brute_force(case: dict, points: int) -> None:
    """scikit-learn's ROC points (all of them), then the least (1 - tpr) pc + fpr (1 - pc)."""
    from sklearn.metrics import roc_curve

    if _refused_without_positive(case, "cost_curve", points=points):
        return
    grid = [i / (points - 1) for i in range(points)] if points > 1 else [0.5]

    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y = (seg["y"] == 1).to_numpy()
        schema = {"probability_cost": pl.Float64, "normalized_cost": pl.Float64}
        if y.all() or not y.any():
            return pl.DataFrame(schema=schema)
        w = np.asarray(_weights(seg, case["weight"]), dtype=float)
        fpr, tpr, _ = roc_curve(y, seg["s"].to_numpy(), sample_weight=w, drop_intermediate=False)
        costs = [float(np.min((1 - tpr) * pc + fpr * (1 - pc))) for pc in grid]
        return pl.DataFrame({"probability_cost": grid, "normalized_cost": costs}, schema=schema)

    got = case["df"].metrics.cost_curve("y", "s", points=points, **_kw(case))
    expected = _expected(case, build)
    if expected is None or expected.height == 0:
        assert got.height == 0
        return
    oracle.assert_close(got, expected)


def test_expected_cost_ties_are_exact() -> None:
    # +inf: 7 missed positives x 0.1 = 0.7; 0.5: 1 false alarm x 0.7 = 0.7 -> both 0.07
    # per row (as floats 0.07 and 0.06999999999999999): the highest threshold, +inf
    df = pl.DataFrame({"y": [1] * 7 + [0] * 3, "s": [0.5] * 7 + [0.6, 0.1, 0.1]})
    got = df.metrics.expected_cost("y", "s", cost_matrix=[[0, 0.7], [0.1, 0]], best=True)
    assert got["threshold"].to_list() == [float("inf")]
