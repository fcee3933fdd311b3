"""informedness (Youden's J) and markedness, the opt-in per-class scores (issue 50).

informedness = recall + specificity - 1 = tp / (tp + fn) - fp / (fp + tn) and
markedness = precision + npv - 1 = tp / (tp + fp) - fn / (fn + tn), each
``zero_division`` where either of its two denominators is 0.  The oracle:
scikit-learn's ``multilabel_confusion_matrix`` gives each class's tp, fp, fn, tn
(``_oracle.class_cells`` sums the same cells row by row, checked equal to it here)
and the two scores are taken from them by hand; for two classes the positive
class's informedness is also ``balanced_accuracy_score(adjusted=True)`` (2 x
balanced accuracy - 1), and its markedness that of the labels swapped.  The frame
methods over every option (labels, weights, segments, zero_division, beta) are in
``tests/test_classification.py``, whose oracle test asks for every opt-in score;
here: the binary cross-check, the expressions, multilabel (per label and the
samples average), the hard cases, the metrics taken by name and the intervals (the
delta method's against the bootstrap's, and its coverage in a simulation).
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn import metrics as skm
from sklearn.preprocessing import MultiLabelBinarizer

import pl_metrics as plm

SCORES = ["informedness", "markedness"]
AVERAGES = ("micro", "macro", "weighted")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ZERO_DIVISION = st.sampled_from([0.0, 1.0, math.nan])
#: Weights: zeros (rows absent), fractions, and huge ones (a segment's total stays
#: below the checks' bound; a rate does not move with the weights' scale).  Not
#: weights 2**53 times one another in a segment: a class's tn is the segment's weight
#: less the class's (scikit-learn's multilabel_confusion_matrix takes it so too),
#: where the smaller weights are lost.
WEIGHTS = st.sampled_from([None, [0.0, 0.5, 1.0, 3.0], [1e290, 2e290, 0.0]])


def _close(got: object, expected: object) -> None:
    """Equal within rtol 1e-9 (atol 1e-12: a score near 0), NaN equal to NaN."""
    np.testing.assert_allclose(
        np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64), 1e-9, 1e-12
    )


@st.composite
def label_frames(draw: st.DrawFn, n_classes: int = 4) -> dict:
    """Rows of classes 0 .. n_classes - 1 (some absent), up to two segments, weights."""
    n = draw(st.integers(1, 40))
    t = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    g = draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
    data: dict[str, list] = {"g": g, "t": t, "p": p}
    weights = draw(WEIGHTS)
    if weights is not None:
        data["w"] = draw(st.lists(st.sampled_from(weights), min_size=n, max_size=n))
    labels = draw(st.sampled_from([None, [0, 1], [3, 0, 5]]))  # 5: a class of no row
    return {"df": pl.DataFrame(data), "weight": "w" if weights else None, "labels": labels}


def _with_label(case: dict, label: int) -> pl.DataFrame:
    """The rows and one of ``label`` in each segment (``pos_label`` must occur in a
    segment of two or more labels), of the largest weight drawn."""
    df = case["df"]
    extra = pl.DataFrame({"g": ["a", "b"], "t": [label] * 2, "p": [label] * 2})
    if case["weight"]:
        extra = extra.with_columns(w=pl.lit(max(df["w"].max(), 1.0)))
    return pl.concat([df, extra], how="vertical_relaxed")


def _segments(case: dict) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    """Each segment's y_true, y_pred and weights, rows of weight 0 dropped (absent)."""
    df = case["df"]
    if case["weight"]:
        df = df.filter(pl.col("w") != 0)
    out = {}
    for (g,), seg in df.group_by("g"):
        w = seg["w"].to_numpy() if case["weight"] else None
        out[str(g)] = (seg["t"].to_numpy(), seg["p"].to_numpy(), w)
    return out


# ------------------------------------------------------------------------- the oracle
@SETTINGS
@given(case=label_frames())
def test_the_oracles_cells_are_scikit_learns_confusion_matrix(case: dict) -> None:
    for t, p, w in _segments(case).values():
        labels = case["labels"] or sorted(set(t) | set(p))
        mcm = skm.multilabel_confusion_matrix(t, p, labels=labels, sample_weight=w)
        tp, fp, fn, tn = oracle.class_cells(t, p, labels, w)
        # scikit-learn's tn is the weight total less the others: a residue of the total
        total = len(t) if w is None else w.sum()
        for got, cell in zip((tp, fp, fn, tn), ((1, 1), (0, 1), (1, 0), (0, 0)), strict=True):
            np.testing.assert_allclose(got, mcm[:, cell[0], cell[1]], 1e-9, 1e-12 * total)


def test_by_hand() -> None:
    # t = 0 1 2 2 0 1 1, p = 0 2 2 2 1 1 0; class 0: tp 1 (row 1), fn 1 (row 5: 0 -> 1),
    # fp 1 (row 7: 1 -> 0), tn 4: informedness 1/2 - 1/5 = 0.3, markedness 1/2 - 1/5;
    # class 1: tp 1, fn 2, fp 1, tn 3: 1/3 - 1/4 = 1/12, 1/2 - 2/5 = 0.1;
    # class 2: tp 2, fn 0, fp 1, tn 4: 1 - 1/5 = 0.8, 2/3 - 0 = 2/3
    df = pl.DataFrame({"t": [0, 1, 2, 2, 0, 1, 1], "p": [0, 2, 2, 2, 1, 1, 0]})
    per_class = df.metrics.per_class("t", "p", extra_scores=SCORES)
    _close(per_class["informedness"], [0.3, 1 / 12, 0.8])
    _close(per_class["markedness"], [0.3, 0.1, 2 / 3])
    # micro: tp 4, fp 3, fn 3, tn 11 (summed): 4/7 - 3/14 = 5/14, the same for markedness;
    # weighted: supports 2, 3, 2
    averages = df.metrics.averages("t", "p", extra_scores=SCORES)
    _close(averages["informedness"], [5 / 14, (0.3 + 1 / 12 + 0.8) / 3, (0.6 + 0.25 + 1.6) / 7])
    _close(averages["markedness"], [5 / 14, (0.3 + 0.1 + 2 / 3) / 3, (0.6 + 0.3 + 4 / 3) / 7])
    assert per_class.columns[-3:] == ["jaccard", "informedness", "markedness"]
    assert averages.columns[-3:] == ["informedness", "markedness", "support"]


# --------------------------------------------------------------------- binary, two oracles
@SETTINGS
@given(case=label_frames(n_classes=2), zero_division=ZERO_DIVISION)
def test_binary_informedness_is_adjusted_balanced_accuracy(
    case: dict, zero_division: float
) -> None:
    """The positive class's informedness is 2 x balanced accuracy - 1 (scikit-learn's
    ``adjusted=True``) where both classes have actual rows, its markedness that of
    the labels swapped (where both are predicted); the expression's per group too."""
    df, weight = _with_label(case, 1), case["weight"]
    frame = df.metrics.per_class(
        "t", "p", by="g", weight=weight, zero_division=zero_division, extra_scores=SCORES
    ).filter(pl.col("label") == 1)
    exprs = (
        df.group_by("g")
        .agg(
            plm.informedness("t", "p", weight=weight, zero_division=zero_division),
            plm.markedness("t", "p", weight=weight, zero_division=zero_division),
        )
        .sort("g")
    )
    for g, (t, p, w) in _segments({**case, "df": df}).items():
        got = frame.filter(pl.col("g") == g)
        expression = exprs.filter(pl.col("g") == g)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if len(set(t)) == 2:
                j = skm.balanced_accuracy_score(t, p, sample_weight=w, adjusted=True)
                _close(got["informedness"].item(), j)
                _close(expression["informedness"].item(), j)
            if len(set(p)) == 2:
                mk = skm.balanced_accuracy_score(p, t, sample_weight=w, adjusted=True)
                _close(got["markedness"].item(), mk)
                _close(expression["markedness"].item(), mk)


# ----------------------------------------------------------------------------- expressions
@SETTINGS
@given(case=label_frames(), zero_division=ZERO_DIVISION)
def test_expressions_equal_the_oracle_per_group(case: dict, zero_division: float) -> None:
    df, weight, labels = case["df"], case["weight"], case["labels"]
    opts = {"weight": weight, "zero_division": zero_division}
    exprs = [
        getattr(plm, m)("t", "p", average=a, labels=labels, **opts)
        for m in SCORES
        for a in ("micro", "macro", "weighted")
    ]
    exprs += [getattr(plm, m)("t", "p", pos_label=0, **opts).alias(f"{m}_0") for m in SCORES]
    df = _with_label(case, 0)
    got = df.group_by("g").agg(exprs).sort("g")
    for g, (t, p, w) in _segments({**case, "df": df}).items():
        row = got.filter(pl.col("g") == g)
        expected = oracle.averages(
            t, p, labels=labels, weight=w, beta=1.0, zero_division=zero_division,
            extra_scores=SCORES,
        )  # fmt: skip
        for m in SCORES:
            for i, a in enumerate(("micro", "macro", "weighted")):
                _close(row[f"{m}_{a}"].item(), expected[m][i])
        cells = oracle.class_cells(t, p, [0], w)
        informedness, markedness = oracle.informedness_markedness(*cells, zero_division)
        _close(row["informedness_0"].item(), informedness[0])
        _close(row["markedness_0"].item(), markedness[0])


# ------------------------------------------------------------------------------ multilabel
@st.composite
def label_sets(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 25))
    sets = st.lists(st.integers(0, 3), max_size=4, unique=True)
    t = draw(st.lists(sets, min_size=n, max_size=n))
    p = draw(st.lists(sets, min_size=n, max_size=n))
    w = draw(st.sampled_from([None, [1.0] * n, [float(i % 3) + 0.5 for i in range(n)]]))
    return {"t": t, "p": p, "w": w}


@SETTINGS
@given(case=label_sets(), zero_division=ZERO_DIVISION)
def test_multilabel_per_label_and_samples(case: dict, zero_division: float) -> None:
    """Per label: the oracle's scores of ``multilabel_confusion_matrix`` on the indicator
    matrix; micro / macro / weighted as single-label; samples: each row's score of its
    two sets with tn = the labels in neither (K - |T u P|), ``zero_division`` where the
    row's denominators are 0, the weighted mean of the rows (NaN ones skipped)."""
    t, p, w = case["t"], case["p"], case["w"]
    df = pl.DataFrame({"t": t, "p": p}, schema={"t": pl.List(pl.Int64), "p": pl.List(pl.Int64)})
    if w is not None:
        df = df.with_columns(pl.Series("w", w))
    labels = sorted({x for row in t + p for x in row})
    if not labels:
        return
    opts = {"weight": "w" if w else None, "zero_division": zero_division, "extra_scores": SCORES}
    binarizer = MultiLabelBinarizer(classes=labels)
    yt, yp = binarizer.fit_transform(t), binarizer.transform(p)
    weights = np.ones(len(t)) if w is None else np.asarray(w)
    # multilabel_confusion_matrix's cells, summed here: with one label scikit-learn
    # reads the indicator column as binary labels
    cells = tuple(weights @ (a & b) for a, b in ((yt, yp), (1 - yt, yp), (yt, 1 - yp)))
    cells = (*cells, weights @ ((1 - yt) & (1 - yp)))
    if len(labels) > 1:
        mcm = skm.multilabel_confusion_matrix(yt, yp, sample_weight=w)
        for got, cell in zip(cells, ((1, 1), (0, 1), (1, 0), (0, 0)), strict=True):
            np.testing.assert_allclose(got, mcm[:, cell[0], cell[1]], rtol=1e-9)
    informedness, markedness = oracle.informedness_markedness(*cells, zero_division)
    per_label = df.metrics.per_class("t", "p", **opts)
    _close(per_label["informedness"], informedness)
    _close(per_label["markedness"], markedness)
    averages = df.metrics.averages("t", "p", **opts)
    k = len(labels)
    common = (yt & yp).sum(axis=1)
    rows = common, yt.sum(axis=1), yp.sum(axis=1)
    tn = k - rows[1] - rows[2] + common
    samples = {
        "informedness": oracle.rate_difference(
            common, rows[1], rows[2] - common, tn + rows[2] - common, zero_division
        ),
        "markedness": oracle.rate_difference(
            common, rows[2], rows[1] - common, tn + rows[1] - common, zero_division
        ),
    }
    summed = [c.sum() for c in cells]
    for m, per_class in (("informedness", informedness), ("markedness", markedness)):
        micro = oracle.informedness_markedness(*summed, zero_division)[SCORES.index(m)]
        support = cells[0] + cells[2]
        kept = ~np.isnan(samples[m])
        mean = np.average(samples[m][kept], weights=weights[kept]) if kept.any() else math.nan
        expected = [
            micro,
            oracle.nanaverage(per_class, support, "macro"),
            oracle.nanaverage(per_class, support, "weighted"),
            mean,
        ]
        _close(averages[m], expected)


# ------------------------------------------------------------------------------ hard cases
@pytest.mark.parametrize("zero_division", [0.0, 1.0, math.nan])
def test_undefined_classes_take_zero_division(zero_division: float) -> None:
    """One class: no negatives (fp + tn = 0) nor predicted negatives: both undefined; a
    class of ``labels=`` without rows: no positives; the whole score, not a mix."""
    one = pl.DataFrame({"t": [4, 4, 4], "p": [4, 4, 4]})
    frame = one.metrics.per_class("t", "p", zero_division=zero_division, extra_scores=SCORES)
    _close(frame.select(SCORES).row(0), [zero_division] * 2)
    absent = pl.DataFrame({"t": [0, 1, 1, 0], "p": [0, 1, 0, 0]})
    frame = absent.metrics.per_class(
        "t", "p", labels=[0, 1, 5], zero_division=zero_division, extra_scores=SCORES
    )
    _close(frame.filter(pl.col("label") == 5).select(SCORES).row(0), [zero_division] * 2)
    # class 1 predicted for no row: its markedness (precision undefined) is zd, its
    # informedness defined: 0 / 1 - 0 / 3 = 0
    never = pl.DataFrame({"t": [0, 1, 0, 0], "p": [0, 0, 0, 0]})
    row = never.metrics.per_class("t", "p", zero_division=zero_division, extra_scores=SCORES)
    _close(row.filter(pl.col("label") == 1).select(SCORES).row(0), [0.0, zero_division])
    expression = never.select(plm.markedness("t", "p", zero_division=zero_division))
    _close(expression.item(), zero_division)


def test_empty_frames_zero_and_huge_weights() -> None:
    empty = pl.DataFrame({"t": [], "p": []}, schema={"t": pl.Int64, "p": pl.Int64})
    assert empty.metrics.per_class("t", "p", extra_scores=SCORES).height == 0
    assert empty.metrics.averages("t", "p", extra_scores=SCORES).height == 0
    assert empty.select(plm.informedness("t", "p"), plm.markedness("t", "p")).row(0) == (
        None,
        None,
    )
    df = pl.DataFrame({"t": [0, 1, 2, 2, 0, 1, 1], "p": [0, 2, 2, 2, 1, 1, 0]})
    plain = df.metrics.report("t", "p", extra_scores=SCORES)
    for w in (1e300, 2.0**-1000):  # the same rates at any scale of equal weights
        weighted = df.with_columns(w=pl.lit(w)).metrics.report(
            "t", "p", weight="w", extra_scores=SCORES
        )
        _close(weighted.select(SCORES).to_numpy(), plain.select(SCORES).to_numpy())
    zeros = pl.concat(
        [df.with_columns(w=pl.lit(1.0)), df.with_columns(w=pl.lit(0.0), t=pl.lit(5, pl.Int64))]
    )
    assert_frame_equal(
        zeros.metrics.report("t", "p", weight="w", extra_scores=SCORES).select(SCORES),
        plain.select(SCORES),
    )


# ----------------------------------------------------------------------------- by name
def test_the_metrics_by_name_equal_the_frame() -> None:
    """``compare`` / ``disparity`` / ``over_time`` read the positive class's score and
    the averages from the frame methods' columns."""
    df = pl.DataFrame(
        {
            "g": [0, 0, 0, 0, 1, 1, 1, 1, 1],
            "t": [0, 1, 1, 0, 1, 0, 1, 1, 0],
            "p": [0, 1, 0, 1, 1, 0, 1, 0, 0],
            "day": [1, 1, 2, 2, 1, 1, 2, 2, 2],
        }
    )
    per_class = df.metrics.per_class("t", "p", by="g", extra_scores=SCORES)
    averages = df.metrics.averages("t", "p", by="g", extra_scores=SCORES)
    for m in SCORES:
        compared = df.metrics.compare("t", "p", by="g", metric=m, pos_label=1)
        _close(compared.sort("g")["value"], per_class.filter(pl.col("label") == 1)[m])
        macro = df.metrics.disparity("t", "p", by="g", metric=f"{m}_macro")
        values = averages.filter(pl.col("average") == "macro")[m]
        _close(macro["difference"].item(), values.max() - values.min())
    timed = df.with_columns(pl.date(2024, 1, pl.col("day")).alias("ts"))
    over = timed.metrics.over_time("t", y_pred="p", index="ts", every="1d", metrics=SCORES)
    for day in (1, 2):
        seg = timed.filter(pl.col("day") == day)
        expected = seg.metrics.per_class("t", "p", extra_scores=SCORES).filter(pl.col("label") == 1)
        window = over.filter(pl.col("window_start").dt.day() == day).sort("metric")
        _close(window["value"], expected.select(SCORES).row(0))


# ------------------------------------------------------------------------------- intervals
#: A 3-class joint distribution of (actual, predicted): its rows the actual class.
JOINT = np.array([[0.20, 0.05, 0.05], [0.04, 0.24, 0.07], [0.03, 0.07, 0.25]])


def _true_values() -> dict[str, dict[str, float]]:
    """The scores of the distribution itself (its cells as the counts)."""
    tp = np.diag(JOINT)
    support, predicted = JOINT.sum(axis=1), JOINT.sum(axis=0)
    fp, fn = predicted - tp, support - tp
    tn = 1.0 - tp - fp - fn
    per_class = dict(zip(SCORES, oracle.informedness_markedness(tp, fp, fn, tn, 0.0), strict=True))
    micro = oracle.informedness_markedness(tp.sum(), fp.sum(), fn.sum(), tn.sum(), 0.0)
    return {
        m: {
            **{str(c): per_class[m][c] for c in range(3)},
            "micro": float(micro[i]),
            "macro": float(per_class[m].mean()),
            "weighted": float(np.average(per_class[m], weights=support)),
        }
        for i, m in enumerate(SCORES)
    }


def _draws(n_segments: int, rows: int, seed: int) -> pl.DataFrame:
    """``n_segments`` samples of ``rows`` rows of :data:`JOINT`, segment ``rep``."""
    rng = np.random.default_rng(seed)
    cell = rng.choice(9, size=(n_segments, rows), p=JOINT.ravel())
    return pl.DataFrame(
        {
            "rep": np.repeat(np.arange(n_segments), rows),
            "t": (cell // 3).ravel(),
            "p": (cell % 3).ravel(),
        }
    )


def test_delta_intervals_cover_at_their_level() -> None:
    """400 samples of 300 rows: the 90% delta-method intervals (per class and averaged)
    hold the distribution's own score in 90% of them.  With 400 samples the coverage
    of a correct interval is 0.90 +- 0.015 (one standard error, binomial); the bound
    0.05 is 3.3 of them, wide enough for 16 rates at once (seeded: the same draws
    every run) and narrow enough to catch a standard error off by a quarter (coverage
    0.80 or 0.96)."""
    df = _draws(400, 300, seed=11)
    truth = _true_values()
    opts = {"by": "rep", "ci": 0.9, "ci_method": "delta", "extra_scores": SCORES}
    per_class = df.metrics.per_class("t", "p", **opts)
    averages = df.metrics.averages("t", "p", **opts)
    for m in SCORES:
        for key, frame, column in [
            *((str(c), per_class.filter(pl.col("label") == c), m) for c in range(3)),
            *((a, averages.filter(pl.col("average") == a), m) for a in AVERAGES),
        ]:
            low, high = frame[f"{column}_low"].to_numpy(), frame[f"{column}_high"].to_numpy()
            assert ((low >= -1) & (high <= 1) & (low <= frame[m].to_numpy())).all()
            covered = ((low <= truth[m][key]) & (truth[m][key] <= high)).mean()
            assert abs(covered - 0.9) < 0.05, (m, key, covered)


def _of_shares(shares: np.ndarray, k: int, score: str, average: str | None) -> np.ndarray:
    """The oracle's score of a k x k matrix of cell shares (actual x predicted): per
    class (``average`` None), or its micro / macro / weighted average."""
    cm = shares.reshape(k, k)
    tp, support, predicted = np.diag(cm), cm.sum(axis=1), cm.sum(axis=0)
    fp, fn = predicted - tp, support - tp
    tn = cm.sum() - support - predicted + tp
    i = SCORES.index(score)
    per_class = oracle.informedness_markedness(tp, fp, fn, tn, 0.0)[i]
    if average is None:
        return per_class
    if average == "micro":
        return oracle.informedness_markedness(tp.sum(), fp.sum(), fn.sum(), tn.sum(), 0.0)[i]
    return np.average(per_class, weights=support if average == "weighted" else None)


def _mapped_wilson(value: float, se: float, z: float) -> tuple[float, float]:
    """Wilson's interval of a score in [-1, 1] at the delta method's variance: at the
    effective rows v (1 - v) / se^2 of v = (value + 1) / 2, se / 2, mapped back."""
    v, s = (value + 1) / 2, se / 2
    n = v * (1 - v) / (s * s)
    centre = (v + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(v * (1 - v) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return 2 * (centre - half) - 1, 2 * (centre + half) - 1


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(20, 300), k=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_delta_intervals_are_the_delta_method_by_hand(n: int, k: int, seed: int) -> None:
    """The standard error of each score (per class, micro, macro, weighted) by the
    multinomial delta method with numerical derivatives: var = (sum pi g^2 -
    (sum pi g)^2) / n, g the central difference of the oracle's score in a cell's
    share; the bounds Wilson's at that variance on the score mapped to [0, 1]."""
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.6, t, rng.integers(0, k, n))
    df = pl.DataFrame({"t": t, "p": p})
    labels = sorted(set(t) | set(p))
    size = len(labels)
    shares = skm.confusion_matrix(t, p, labels=labels).ravel() / n
    z = NormalDist().inv_cdf(0.95)
    opts = {"ci": 0.9, "ci_method": "delta", "extra_scores": SCORES}
    per_class = df.metrics.per_class("t", "p", **opts)
    averages = df.metrics.averages("t", "p", **opts)
    for score in SCORES:
        for average, frame in ((None, per_class), *((a, averages) for a in AVERAGES)):
            g = np.zeros((len(shares), size if average is None else 1))
            for c in np.flatnonzero(shares):  # an empty cell weighs nothing
                up, down = shares.copy(), shares.copy()
                up[c], down[c] = up[c] + 1e-6, down[c] - 1e-6
                difference = _of_shares(up, size, score, average)
                g[c] = (difference - _of_shares(down, size, score, average)) / 2e-6
            variance = (shares @ g**2 - (shares @ g) ** 2) / n
            rows = range(size) if average is None else [AVERAGES.index(average)]
            for row, var in zip(rows, np.atleast_1d(variance), strict=True):
                value = frame[score][row]
                if var < 1e-12 or abs(value) > 1 - 1e-9:  # no spread: the fallback rows
                    continue
                low, high = _mapped_wilson(value, math.sqrt(var), z)
                assert frame[f"{score}_low"][row] == pytest.approx(low, abs=1e-6)
                assert frame[f"{score}_high"][row] == pytest.approx(high, abs=1e-6)


def test_delta_standard_error_is_the_bootstraps() -> None:
    """One sample of 3,000 rows: the delta method's interval is as wide as the
    bootstrap's (2,000 replicates) within 10%: both estimate the same spread, the
    bootstrap's percentiles with a Monte Carlo error of about 3% at 2,000 draws."""
    df = _draws(1, 3000, seed=5)
    opts = {"ci": 0.9, "extra_scores": SCORES}
    for method in ("per_class", "averages"):
        delta = getattr(df.metrics, method)("t", "p", ci_method="delta", **opts)
        boot = getattr(df.metrics, method)(
            "t", "p", ci_method="bootstrap", n_boot=2000, seed=1, **opts
        )
        for m in SCORES:
            width_delta = (delta[f"{m}_high"] - delta[f"{m}_low"]).to_numpy()
            width_boot = (boot[f"{m}_high"] - boot[f"{m}_low"]).to_numpy()
            np.testing.assert_allclose(width_delta, width_boot, rtol=0.1, err_msg=f"{method} {m}")


def test_intervals_of_undefined_scores_are_null() -> None:
    """A class without actual rows (labels=): its informedness is zero_division, a
    constant, and has no interval; the bootstrap's and Poisson's replicates are those
    of the same formulas (the replicates' tn: each segment's rows less the class's)."""
    df = pl.DataFrame({"t": [0, 1, 1, 0, 1, 0], "p": [0, 1, 0, 0, 1, 1]})
    frame = df.metrics.per_class("t", "p", labels=[0, 1, 7], ci=0.9, extra_scores=SCORES)
    absent = frame.filter(pl.col("label") == 7)
    assert absent["informedness_low"].item() is None
    assert absent["markedness_high"].item() is None
    for ci_method in ("bootstrap", "poisson"):
        boot = df.metrics.report("t", "p", ci=0.9, ci_method=ci_method, extra_scores=SCORES)
        assert (boot["informedness_low"] <= boot["informedness"]).all()
        assert (boot["markedness"] <= boot["markedness_high"]).all()
