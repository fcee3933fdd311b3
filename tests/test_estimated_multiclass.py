"""``estimated_performance`` of ``{label: column}`` scores (NannyML's multiclass CBPE)
against its definition computed with scikit-learn: one
``IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1)`` per class fitted on
the reference's ``[y_true = c]`` and score of c (``sample_weight`` the weights), the
calibrated probabilities divided by their row's sum (1 / K each where it is 0), the
expected counts of each class summed by hand, each metric their ratio by hand, the
expected one-vs-rest ROC AUC ``roc_auc_score`` of the rows doubled (a positive of
weight w p_c, a negative of weight w (1 - p_c)) ranked by the raw score of c, and the
averages over the classes by hand (macro and weighted skipping undefined classes)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.exceptions import SchemaError
from polars.testing import assert_frame_equal
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score

import pl_metrics as plm

ALL = [
    "roc_auc",
    "precision",
    "recall",
    "f1",
    "jaccard",
    "fowlkes_mallows",
    "specificity",
    "accuracy",
]
CLASSES = [0, 1, 2]
MAP = {c: f"q{c}" for c in CLASSES}
COUNTED = [m for m in ALL if m not in ("roc_auc", "accuracy")]


# ------------------------------------------------------------------------------ oracle
def _ratio(num: float, den: float) -> float:
    return math.nan if den == 0 else num / den


def _metrics(tp: float, fp: float, fn: float, tn: float) -> dict[str, float]:
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    return {
        "precision": precision,
        "recall": recall,
        "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        "jaccard": _ratio(tp, tp + fp + fn),
        "fowlkes_mallows": math.sqrt(precision * recall),
        "specificity": _ratio(tn, tn + fp),
    }


def _probabilities(
    current: pl.DataFrame, reference: pl.DataFrame | None, weight: str | None
) -> np.ndarray:
    """The rows' probabilities: scikit-learn's map per class, then the row's sum."""
    scores = current.select(MAP.values()).to_numpy()
    if reference is not None:
        ref = reference if weight is None else reference.filter(pl.col(weight) > 0)
        sample_weight = None if weight is None else ref[weight].to_numpy()
        columns = []
        for c, column in MAP.items():
            fitted = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(
                ref[column].to_numpy(),
                (ref["y"] == c).to_numpy().astype(float),
                sample_weight=sample_weight,
            )
            columns.append(fitted.predict(scores[:, c]))
        scores = np.column_stack(columns)
    total = scores.sum(axis=1, keepdims=True)
    return np.where(total == 0, 1 / len(CLASSES), scores / np.where(total == 0, 1, total))


def _segment(p: np.ndarray, pred: np.ndarray, w: np.ndarray, s: np.ndarray) -> list[dict]:
    """The per-class rows and the micro / macro / weighted rows of one segment."""
    rows, counts, support = [], [], []
    for c in CLASSES:
        yes = pred == c
        pc = p[:, c]
        tp, fp = (w * pc * yes).sum(), (w * (1 - pc) * yes).sum()
        fn, tn = (w * pc * ~yes).sum(), (w * (1 - pc) * ~yes).sum()
        pos, neg = w * pc, w * (1 - pc)
        auc = math.nan
        if pos.sum() > 0 and neg.sum() > 0:
            doubled = np.r_[np.ones(len(pc)), np.zeros(len(pc))]
            auc = roc_auc_score(doubled, np.r_[s[:, c], s[:, c]], sample_weight=np.r_[pos, neg])
        values = {"roc_auc": auc, **_metrics(tp, fp, fn, tn), "accuracy": math.nan}
        rows.append({"label": c, "average": None, **values})
        counts.append((tp, fp, fn, tn))
        support.append(tp + fn)
    tp, fp, fn, tn = (sum(x) for x in zip(*counts, strict=True))
    accuracy = _ratio(tp, tp + fp)
    micro = {"roc_auc": math.nan, **_metrics(tp, fp, fn, tn), "accuracy": accuracy}
    macro, weighted = {"accuracy": accuracy}, {"accuracy": accuracy}
    for m in ["roc_auc", *COUNTED]:
        values = np.array([r[m] for r in rows])
        kept = ~np.isnan(values)
        macro[m] = values[kept].mean() if kept.any() else math.nan
        weights = np.array(support)[kept]
        weighted[m] = (values[kept] * weights).sum() / weights.sum() if weights.sum() else macro[m]
    rows += [
        {"label": None, "average": a, **v}
        for a, v in (("micro", micro), ("macro", macro), ("weighted", weighted))
    ]
    return [{"n": w.sum(), **r} for r in rows]


def oracle(
    current: pl.DataFrame, reference: pl.DataFrame | None, weight: str | None
) -> pl.DataFrame:
    """``g, label, average, n, <metric>...`` of the definitions, per segment ``g``."""
    probabilities = _probabilities(current, reference, weight)
    rows = []
    keys = current["g"].to_numpy()
    for g in sorted(set(keys.tolist())):
        mine = keys == g
        w = np.ones(current.height) if weight is None else current[weight].to_numpy()
        keep = mine & (w > 0)
        if not keep.any():
            continue
        scores = current.select(MAP.values()).to_numpy()[keep]
        pred = current["pred"].to_numpy()[keep]
        rows += [{"g": g, **r} for r in _segment(probabilities[keep], pred, w[keep], scores)]
    schema = {"g": pl.String, "label": pl.Int64, "average": pl.String}
    schema |= {"n": pl.Int64 if weight is None else pl.Float64} | dict.fromkeys(ALL, pl.Float64)
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return frame.with_columns(pl.col(ALL).fill_nan(None))


def same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert_frame_equal(got, want, rel_tol=1e-9, abs_tol=1e-9)


# ------------------------------------------------------------------------- hypothesis
@st.composite
def frames(draw: st.DrawFn, *, weighted: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(reference, current): scores on a grid (ties; 1: constant scores) or near
    continuous; a class maybe absent from the reference, maybe never predicted;
    weights with zeros; segments."""
    n_ref = draw(st.integers(1, 30))
    n_cur = draw(st.integers(1, 40))
    grid = draw(st.sampled_from([1, 2, 5, 1000]))
    ref_classes = draw(st.sampled_from([[0, 1, 2], [0, 1], [2]]))
    predicted = draw(st.sampled_from([[0, 1, 2], [0, 2], [1]]))
    weights = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25])

    def column(n: int, values: st.SearchStrategy) -> list:
        return draw(st.lists(values, min_size=n, max_size=n))

    def scores(n: int) -> dict[str, list[float]]:
        values = st.integers(0, grid - 1).map(lambda k: k / max(grid - 1, 1))
        return {q: column(n, values) for q in MAP.values()}

    ref = pl.DataFrame(
        {
            **scores(n_ref),
            "y": column(n_ref, st.sampled_from(ref_classes)),
            "w": column(n_ref, weights) if weighted else [1.0] * n_ref,
        }
    )
    # one row of positive weight at least (else the documented error)
    first = {"q0": 0.5, "q1": 0.5, "q2": 0.5, "y": ref_classes[0], "w": 1.0}
    ref = pl.concat([ref, pl.DataFrame([first], schema=ref.schema)])
    cur = pl.DataFrame(
        {
            **scores(n_cur),
            "g": column(n_cur, st.sampled_from(["a", "b", "c"])),
            "pred": column(n_cur, st.sampled_from(predicted)),
            "w": column(n_cur, weights) if weighted else [1.0] * n_cur,
        }
    )
    return ref, cur


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(weighted=False))
def test_isotonic_per_class_equals_the_definition_with_scikit_learn(
    case: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    ref, cur = case
    got = cur.metrics.estimated_performance(
        "pred", MAP, reference=ref, y_true="y", by="g", metrics=ALL
    )
    same(got, oracle(cur, ref, None))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(weighted=True))
def test_weights_are_each_fits_sample_weight_and_the_rows_weights(
    case: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    ref, cur = case
    got = cur.metrics.estimated_performance(
        "pred", MAP, reference=ref, y_true="y", by="g", weight="w", metrics=ALL
    )
    same(got, oracle(cur, ref, "w"))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(weighted=True))
def test_probabilities_as_given_are_divided_by_their_rows_sum(
    case: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    _, cur = case
    got = cur.metrics.estimated_performance(
        "pred", MAP, by="g", weight="w", calibration=None, metrics=ALL
    )
    same(got, oracle(cur, None, "w"))


# ---------------------------------------------------------------------------- the edges
ROWS = pl.DataFrame(
    {
        "q0": [0.7, 0.2, 0.1, 0.0, 0.5, 0.3],
        "q1": [0.2, 0.5, 0.3, 0.0, 0.25, 0.3],
        "q2": [0.1, 0.3, 0.6, 0.0, 0.25, 0.4],
        "y": [0, 1, 2, 0, 1, 2],
        "pred": [0, 1, 2, 0, 0, 2],
        "ref": [True, True, True, False, False, False],
    }
)


def test_a_row_of_zeros_is_uniform_and_the_layout_is_classes_then_averages() -> None:
    """calibration=None; the current rows 3-5, by hand: row 3's scores are all 0, so
    its probabilities are 1/3 each. Class 1 is never predicted: precision undefined
    (null), skipped by macro; recall of class 1 = 0 / (1/3 + 0.25 + 0.3)."""
    got = ROWS.filter(~pl.col("ref")).metrics.estimated_performance(
        "pred", MAP, calibration=None, metrics=["precision", "recall", "accuracy"]
    )
    assert got.columns == ["label", "average", "n", "precision", "recall", "accuracy"]
    assert got["label"].to_list() == [0, 1, 2, None, None, None]
    assert got["average"].to_list() == [None, None, None, "micro", "macro", "weighted"]
    assert got["precision"][1] is None
    assert got["recall"][1] == 0.0
    # class 0 predicted on rows 3 (p 1/3) and 4 (p 0.5): precision (1/3 + 0.5) / 2
    assert got["precision"][0] == pytest.approx((1 / 3 + 0.5) / 2, rel=1e-12)
    # class 2 predicted on row 5 (p 0.4): precision 0.4; macro skips class 1
    assert got["precision"][4] == pytest.approx(((1 / 3 + 0.5) / 2 + 0.4) / 2, rel=1e-12)
    # accuracy: (1/3 + 0.5 + 0.4) / 3 rows, on the average rows only
    assert got["accuracy"].to_list()[:3] == [None] * 3
    assert got["accuracy"][3:].to_list() == pytest.approx([(1 / 3 + 0.9) / 3] * 3, rel=1e-12)


@pytest.mark.parametrize(
    ("frame", "kwargs", "error", "match"),
    [
        (ROWS, {"pos_label": 1}, ValueError, "`pos_label` is for binary scores"),
        (ROWS.with_columns(pred=pl.lit(7)), {}, plm.DataError, r"'pred' has 6 rows .*\[7\]"),
        (ROWS.with_columns(q1=pl.lit(1.5)), {}, plm.DataError, "'q1' .* outside"),
        (ROWS.with_columns(pred=pl.lit("a")), {}, SchemaError, "keys of `y_score`"),
    ],
)
def test_bad_input_is_refused_naming_the_argument(
    frame: pl.DataFrame, kwargs: dict, error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        frame.metrics.estimated_performance("pred", MAP, calibration=None, **kwargs)


def test_reference_errors_say_they_are_the_references() -> None:
    call = {"reference": pl.col("ref"), "y_true": "y"}
    spoiled = ROWS.with_columns(y=pl.when(pl.col("ref")).then(5).otherwise("y"))
    with pytest.raises(plm.DataError, match=r"^in the reference rows .*'y' has 3 rows"):
        spoiled.metrics.estimated_performance("pred", MAP, **call)
    with pytest.raises(plm.DataError, match=r"the reference rows .* are none"):
        ROWS.metrics.estimated_performance("pred", MAP, reference=pl.lit(value=False), y_true="y")
