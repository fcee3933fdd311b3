"""``estimated_performance`` (NannyML's CBPE) against its definition computed with
scikit-learn: the calibration map is ``IsotonicRegression(out_of_bounds="clip",
y_min=0, y_max=1)`` (``sample_weight`` the weights), the expected counts are sums of
p and 1 - p by hand, each metric their ratio by hand, and the expected ROC AUC is
``roc_auc_score`` of the rows doubled (a positive of weight w p, a negative of
weight w (1 - p)).  The intervals are checked against 10,000 drawn label sets."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score

import pl_metrics as plm
from pl_metrics._monitoring import calibration

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


# ------------------------------------------------------------------------------ oracle
def _ratio(num: float, den: float) -> float | None:
    return None if den == 0 else num / den


def expected(
    p: np.ndarray, pred: np.ndarray, w: np.ndarray, score: np.ndarray
) -> dict[str, float | None]:
    """The definitions of one segment (rows of weight 0 left out by the caller)."""
    tp, fp = (w * p * pred).sum(), (w * (1 - p) * pred).sum()
    fn, tn = (w * p * ~pred).sum(), (w * (1 - p) * ~pred).sum()
    pos, neg = w * p, w * (1 - p)
    auc = None
    if pos.sum() > 0 and neg.sum() > 0:
        doubled = np.r_[np.ones(len(p)), np.zeros(len(p))]
        auc = roc_auc_score(doubled, np.r_[score, score], sample_weight=np.r_[pos, neg])
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    fm = None if precision is None or recall is None else math.sqrt(precision * recall)
    return {
        "n": w.sum(),
        "roc_auc": auc,
        "precision": precision,
        "recall": recall,
        "f1": _ratio(2 * tp, 2 * tp + fp + fn),
        "jaccard": _ratio(tp, tp + fp + fn),
        "fowlkes_mallows": fm,
        "specificity": _ratio(tn, tn + fp),
        "accuracy": _ratio(tp + tn, tp + fp + fn + tn),
    }


def isotonic_map(reference: pl.DataFrame, weight: str | None) -> IsotonicRegression:
    """scikit-learn's fit on the reference rows of positive weight."""
    ref = reference if weight is None else reference.filter(pl.col(weight) > 0)
    return IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(
        ref["s"].to_numpy(),
        (ref["y"] == 1).to_numpy().astype(float),
        sample_weight=None if weight is None else ref[weight].to_numpy(),
    )


def oracle(
    current: pl.DataFrame, reference: pl.DataFrame | None, weight: str | None
) -> pl.DataFrame:
    """``g, n, <metric>...`` of the definitions, per segment ``g`` (sorted)."""
    fitted = None if reference is None else isotonic_map(reference, weight)
    rows = []
    for (g,), part in current.sort("g").group_by("g", maintain_order=True):
        w = np.ones(part.height) if weight is None else part[weight].to_numpy()
        keep = w > 0
        if not keep.any():
            continue
        score = part["s"].to_numpy()[keep]
        p = score if fitted is None else fitted.predict(score)
        pred = (part["pred"] == 1).to_numpy()[keep]
        rows.append({"g": g, **expected(p, pred, w[keep], score)})
    schema = {"g": current.schema["g"], "n": pl.Int64 if weight is None else pl.Float64}
    schema |= dict.fromkeys(ALL, pl.Float64)
    return pl.DataFrame(rows, schema=schema, orient="row")


def same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert_frame_equal(got, want, rel_tol=1e-9, abs_tol=1e-9)


# ------------------------------------------------------------------------- hypothesis
@st.composite
def frames(draw: st.DrawFn, *, weighted: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(reference, current): scores from a few values (ties, constant scores) or
    continuous ones; segments that predict no positive; weights with zeros."""
    n_ref = draw(st.integers(2, 40))
    n_cur = draw(st.integers(1, 40))
    grid = draw(st.sampled_from([1, 2, 5, 1000]))  # 1: one constant score

    def scores(n: int) -> list[float]:
        values = st.integers(0, grid - 1).map(lambda k: k / max(grid - 1, 1))
        return draw(st.lists(values, min_size=n, max_size=n))

    weights = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25])
    ref = pl.DataFrame(
        {
            "s": scores(n_ref),
            "y": draw(st.lists(st.integers(0, 1), min_size=n_ref, max_size=n_ref)),
            "w": draw(st.lists(weights, min_size=n_ref, max_size=n_ref)) if weighted else 1.0,
        }
    )
    # both classes among the rows of positive weight (else the documented error)
    ref = pl.concat([ref, pl.DataFrame({"s": [0.5, 0.5], "y": [0, 1], "w": [1.0, 1.0]})])
    cur = pl.DataFrame(
        {
            "s": scores(n_cur),
            "g": draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n_cur, max_size=n_cur)),
            "w": draw(st.lists(weights, min_size=n_cur, max_size=n_cur)) if weighted else 1.0,
        }
    )
    # segment "c" predicts no positive
    threshold = draw(st.sampled_from([0.0, 0.5, 0.75, 2.0]))
    cur = cur.with_columns(pred=((pl.col("s") >= threshold) & (pl.col("g") != "c")).cast(pl.Int64))
    return ref, cur


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(weighted=False))
def test_isotonic_equals_the_definition_with_scikit_learn(
    case: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    ref, cur = case
    got = cur.metrics.estimated_performance(
        "pred", "s", reference=ref, y_true="y", by="g", metrics=ALL
    )
    same(got, oracle(cur, ref, None))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(weighted=True))
def test_weights_are_the_fits_sample_weight_and_the_rows_weights(
    case: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    ref, cur = case
    got = cur.metrics.estimated_performance(
        "pred", "s", reference=ref, y_true="y", by="g", weight="w", metrics=ALL
    )
    same(got, oracle(cur, ref, "w"))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(weighted=True))
def test_probabilities_as_given_equal_the_definition(
    case: tuple[pl.DataFrame, pl.DataFrame],
) -> None:
    _, cur = case
    got = cur.metrics.estimated_performance(
        "pred", "s", by="g", weight="w", calibration=None, metrics=ALL
    )
    same(got, oracle(cur, None, "w"))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    positive=st.lists(st.integers(0, 5), min_size=1, max_size=60),
    extra=st.lists(st.integers(0, 5), min_size=1, max_size=60),
)
def test_the_pav_fit_is_scikit_learns(positive: list[int], extra: list[int]) -> None:
    """The hull's fit of per-score sums (k positives of k + extra rows)."""
    size = min(len(positive), len(extra))
    pos = np.array(positive[:size], dtype=float)
    weight = pos + np.array(extra[:size], dtype=float) + 1.0
    x = np.arange(size, dtype=float)
    want = IsotonicRegression(y_min=0, y_max=1).fit(x, pos / weight, sample_weight=weight)
    np.testing.assert_allclose(
        calibration.isotonic(pos, weight), want.predict(x), rtol=0, atol=1e-12
    )


def test_the_fit_finishes_a_long_cascade_on_the_stack(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deep dip pools a block that the vectorised passes eat two points a pass: with
    one pass allowed, the monotone chain finishes it (the same fit)."""
    rng = np.random.default_rng(4)
    pos = np.r_[np.ones(50), np.zeros(30), (rng.random(200) < np.linspace(0, 1, 200))]
    weight = np.ones(len(pos))
    want = (
        IsotonicRegression(y_min=0, y_max=1)
        .fit(np.arange(len(pos)), pos)
        .predict(np.arange(len(pos)))
    )
    monkeypatch.setattr(calibration, "PASSES", 1)
    np.testing.assert_allclose(calibration.isotonic(pos, weight), want, rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- the paths
def _rows(n: int = 600, seed: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(n), 3)
    return pl.DataFrame(
        {
            "s": s,
            "y": (rng.random(n) < s**1.5).astype(np.int64),
            "g": rng.choice(["a", "b", "c"], n),
            "w": np.round(rng.random(n) * 2, 2),
            "week": rng.integers(1, 5, n),
            "pred": (s >= 0.6).astype(np.int64),
        }
    )


ROWS = _rows()
REFERENCE = pl.col("week") == 1


def test_a_reference_expression_equals_the_reference_rows_as_a_frame() -> None:
    got = ROWS.metrics.estimated_performance(
        "pred", "s", reference=REFERENCE, y_true="y", by="g", weight="w", metrics=ALL
    )
    current, ref = ROWS.filter(~REFERENCE), ROWS.filter(REFERENCE)
    same(got, oracle(current, ref, "w"))
    as_frame = current.metrics.estimated_performance(
        "pred", "s", reference=ref.lazy(), y_true="y", by="g", weight="w", metrics=ALL
    )
    same(got, as_frame)


@pytest.mark.parametrize("ci", [None, 0.9])
def test_lazy_equals_eager_in_memory_streaming_and_parquet(ci: float | None, tmp_path) -> None:
    kwargs = {"reference": REFERENCE, "y_true": "y", "by": "g", "weight": "w", "ci": ci}
    eager = ROWS.metrics.estimated_performance("pred", "s", **kwargs)
    lazy = ROWS.lazy().metrics.estimated_performance("pred", "s", **kwargs)
    assert isinstance(lazy, pl.LazyFrame)
    same(lazy.collect(engine="streaming"), eager)
    same(lazy.collect(engine="in-memory"), eager)
    ROWS.write_parquet(tmp_path / "rows.parquet")
    scanned = pl.scan_parquet(tmp_path / "rows.parquet").metrics.estimated_performance(
        "pred", "s", **kwargs
    )
    same(scanned.collect(engine="streaming"), eager)


def test_a_segment_equals_the_frame_of_its_rows() -> None:
    ref = ROWS.filter(REFERENCE)
    kwargs = {"reference": ref, "y_true": "y", "weight": "w", "ci": 0.8, "metrics": ALL}
    whole = ROWS.metrics.estimated_performance("pred", "s", by="g", **kwargs)
    for g in ("a", "b", "c"):
        alone = ROWS.filter(pl.col("g") == g).metrics.estimated_performance("pred", "s", **kwargs)
        same(whole.filter(pl.col("g") == g).drop("g"), alone)


def test_the_output_schema_and_the_metrics_order() -> None:
    got = ROWS.metrics.estimated_performance(
        "pred", "s", reference=REFERENCE, y_true="y", metrics=["accuracy", "roc_auc"], ci=0.5
    )
    assert got.columns == ["n", "accuracy", "roc_auc", *plm_bounds(["accuracy", "roc_auc"])]
    assert got.schema["n"] == pl.Int64
    default = ROWS.metrics.estimated_performance("pred", "s", reference=REFERENCE, y_true="y")
    assert default.columns == [
        "n",
        "roc_auc",
        "precision",
        "recall",
        "f1",
        "specificity",
        "accuracy",
    ]


def plm_bounds(metrics: list[str]) -> list[str]:
    return [f"{m}_{side}" for m in metrics for side in ("low", "high")]


# ---------------------------------------------------------------------------- the edges
def test_undefined_metrics_are_null_and_a_constant_score_gives_half() -> None:
    """Counts by hand: scores 0 and 1 as probabilities, no positive prediction."""
    df = pl.DataFrame({"s": [0.0, 0.0, 0.3, 0.3], "pred": [0, 0, 0, 0], "g": [1, 1, 2, 2]})
    got = df.metrics.estimated_performance("pred", "s", by="g", calibration=None, metrics=ALL)
    # g 1: every p 0 -> tp = fp = fn = 0, tn = 2: recall, precision, f1, AUC undefined
    one = got.row(0, named=True)
    undefined = ["precision", "recall", "roc_auc", "f1", "jaccard", "fowlkes_mallows"]
    assert [one[m] for m in undefined] == [None] * len(undefined)
    assert (one["specificity"], one["accuracy"]) == (1.0, 1.0)
    # g 2: constant score 0.3: every pair tied -> 0.5; fn = 0.6, tn = 1.4
    two = got.row(1, named=True)
    assert (two["roc_auc"], two["precision"], two["recall"]) == (0.5, None, 0.0)
    assert two["accuracy"] == pytest.approx(0.7, abs=1e-15)


def test_zero_weight_rows_leave_no_trace() -> None:
    extra = ROWS.head(40).with_columns(pl.lit(0.0).alias("w"), pl.lit("zz").alias("g"), s=0.123)
    kwargs = {"reference": REFERENCE, "y_true": "y", "by": "g", "weight": "w", "ci": 0.9}
    with_zeros = pl.concat([ROWS, extra])
    same(
        with_zeros.metrics.estimated_performance("pred", "s", **kwargs),
        ROWS.metrics.estimated_performance("pred", "s", **kwargs),
    )


# --------------------------------------------------------------------------- the errors
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"reference": REFERENCE}, ValueError, "pass `reference`.*and `y_true`"),
        ({"y_true": "y"}, ValueError, "calibration='isotonic' fits"),
        ({"calibration": None, "reference": REFERENCE}, ValueError, "reads no `reference`"),
        (
            {"calibration": "platt"},
            ValueError,
            r"`calibration` must be None or one of \['isotonic'\]",
        ),
        ({"calibration": None, "metrics": ["auc"]}, ValueError, "`metrics` must be one of"),
        ({"calibration": None, "metrics": []}, TypeError, "non-empty list"),
        ({"calibration": None, "ci": 1.5}, ValueError, "`ci` must be None or a confidence"),
        ({"reference": REFERENCE, "y_true": "nope"}, pl.exceptions.ColumnNotFoundError, "'nope'"),
        ({"reference": pl.col("week"), "y_true": "y"}, TypeError, "Boolean expression"),
        ({"reference": "train.parquet", "y_true": "y"}, TypeError, "got str"),
        (
            {"reference": pl.DataFrame({"y": [0, 1]}), "y_true": "y"},
            pl.exceptions.ColumnNotFoundError,
            "'s' \\(argument `y_score`\\) not found in the reference",
        ),
    ],
)
def test_bad_arguments_are_refused_at_call_time(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ROWS.lazy().metrics.estimated_performance("pred", "s", **kwargs)


def _spoiled(column: str, value: object, rows: pl.Expr = REFERENCE) -> pl.DataFrame:
    return ROWS.with_columns(
        pl.when(rows).then(pl.lit(value)).otherwise(pl.col(column)).alias(column)
    )


@pytest.mark.parametrize(
    ("frame", "kwargs", "match"),
    [
        (ROWS.with_columns(y=0), {}, r"column 'y' \(argument `y_true`\) holds the labels \[0\]"),
        (_spoiled("y", None), {}, "column 'y' has .* null rows"),
        (
            _spoiled("y", 2, REFERENCE & (pl.col("g") == "a")),
            {"pos_label": 1},
            r"'y' \(argument `y_true`\) holds the labels \[0, 1, 2\]: two or more besides",
        ),
        (
            _spoiled("y", 2, REFERENCE & (pl.col("g") == "a")),
            {},
            r"column 'y' holds the labels \[0, 1, 2\].* pass `pos_label`",
        ),
        (_spoiled("s", None), {}, r"column 's' \(argument `y_score`\) has .* null"),
        (_spoiled("s", float("nan"), ~REFERENCE), {}, r"column 's' \(argument `y_score`\)"),
        (_spoiled("pred", None, ~REFERENCE), {}, "column 'pred' has .* null rows"),
        (
            _spoiled("pred", 2, ~REFERENCE & (pl.col("g") == "a")),
            {"pos_label": 1},
            r"'pred' \(argument `y_pred`\) holds the labels \[0, 1, 2\]: two or more",
        ),
        (_spoiled("w", -1.0), {"weight": "w"}, "column 'w' \\(argument `weight`\\)"),
        (_spoiled("week", None, pl.col("g") == "a"), {}, "`reference` is null on"),
        (ROWS, {"pos_label": 7}, "`pos_label`=7"),
    ],
)
def test_bad_data_is_a_data_error_naming_the_column(
    frame: pl.DataFrame, kwargs: dict, match: str
) -> None:
    call = {"reference": REFERENCE, "y_true": "y", "by": "g", **kwargs}
    with pytest.raises(plm.DataError, match=match):
        frame.metrics.estimated_performance("pred", "s", **call)
    lazy = frame.lazy().metrics.estimated_performance("pred", "s", **call)
    with pytest.raises(plm.DataError, match=match):
        lazy.collect(engine="streaming")


@pytest.mark.parametrize(
    ("frame", "column"),
    [(_spoiled("s", float("nan")), "s"), (_spoiled("s", None), "s"), (_spoiled("y", None), "y")],
)
def test_bad_reference_rows_are_said_to_be_the_references(frame: pl.DataFrame, column: str) -> None:
    """A NaN score of the reference rows and one of the current rows (same column
    name) said the same words: the reference's now say whose rows they are."""
    call = {"reference": REFERENCE, "y_true": "y", "by": "g"}
    with pytest.raises(plm.DataError, match=rf"^in the reference rows .*column '{column}'"):
        frame.metrics.estimated_performance("pred", "s", **call)
    as_frame = {**call, "reference": frame.filter(REFERENCE)}
    with pytest.raises(plm.DataError, match=rf"^in the reference rows .*column '{column}'"):
        frame.filter(~REFERENCE).metrics.estimated_performance("pred", "s", **as_frame)
    current = _spoiled("s", float("nan"), ~REFERENCE)
    with pytest.raises(plm.DataError, match=r"^column 's' \(argument `y_score`\)"):
        current.metrics.estimated_performance("pred", "s", **call)


def test_scores_outside_0_1_are_refused_without_calibration() -> None:
    df = pl.DataFrame({"s": [0.2, 1.5, -0.1], "pred": [0, 1, 1]})
    with pytest.raises(
        plm.DataError, match=r"column 's' \(argument `y_score`\) has 2 rows outside"
    ):
        df.metrics.estimated_performance("pred", "s", calibration=None)


def test_labels_other_than_0_1_need_pos_label() -> None:
    df = ROWS.with_columns(pred=pl.col("pred") + 1)  # 1 / 2
    with pytest.raises(plm.DataError, match=r"column 'pred' holds the labels .* pass `pos_label`"):
        df.metrics.estimated_performance("pred", "s", calibration=None)
    strings = ROWS.with_columns(
        pred=pl.col("pred").replace_strict({0: "no", 1: "yes"}, return_dtype=pl.String),
        y=pl.col("y").replace_strict({0: "no", 1: "yes"}, return_dtype=pl.String),
    )
    got = strings.metrics.estimated_performance(
        "pred", "s", reference=REFERENCE, y_true="y", pos_label="yes"
    )
    same(got, ROWS.metrics.estimated_performance("pred", "s", reference=REFERENCE, y_true="y"))


# ----------------------------------------------------------------------- the intervals
DRAWS = 10_000


def _realized(p: np.ndarray, pred: np.ndarray, w: np.ndarray, score: np.ndarray) -> dict:
    """Each metric of DRAWS label sets drawn Bernoulli(p) (numpy, seeded)."""
    rng = np.random.default_rng(12345)
    y = rng.random((DRAWS, len(p))) < p  # one row per draw
    d = pred.astype(float)
    tp, fn = (y * w * d).sum(axis=1), (y * w * (1 - d)).sum(axis=1)
    fp, tn = (w * d).sum() - tp, (w * (1 - d)).sum() - fn
    order = np.argsort(score, kind="stable")  # continuous scores: no ties
    ys, ws = y[:, order], w[order]
    negatives = (~ys) * ws
    below = np.cumsum(negatives, axis=1) - negatives  # negative weight ranked below
    auc = (ys * ws * below).sum(axis=1) / ((ys * ws).sum(axis=1) * negatives.sum(axis=1))
    return {
        "roc_auc": auc,
        "precision": tp / (tp + fp),
        "recall": tp / (tp + fn),
        "f1": 2 * tp / (2 * tp + fp + fn),
        "jaccard": tp / (tp + fp + fn),
        "fowlkes_mallows": np.sqrt(tp / (tp + fp) * tp / (tp + fn)),
        "specificity": tn / (tn + fp),
        "accuracy": (tp + tn) / w.sum(),
    }


@pytest.mark.parametrize("weighted", [False, True], ids=["rows", "weights"])
def test_the_interval_is_the_spread_of_drawn_labels(weighted: bool) -> None:
    """The delta method's standard error against the standard deviation of 10,000
    drawn label sets, and the 90% interval's coverage of them.

    Tolerances: the standard deviation of 10,000 draws is itself off by about
    1 / sqrt(2 x 10,000) = 0.7% (one standard error); the delta method is first order,
    off by O(1 / n) for n = 800 rows (the linear metrics, precision and accuracy,
    have no such term).  6% relative holds both with room; the coverage of 10,000
    draws has a standard error of sqrt(0.9 x 0.1 / 10,000) = 0.3%, and the interval
    is centred on the expected counts' metric, not the draws' mean: within 2.5%."""
    rng = np.random.default_rng(8)
    n = 800
    s = rng.random(n)
    df = pl.DataFrame(
        {
            "s": s,
            "pred": (s > 0.45).astype(np.int64),
            "w": rng.choice([0.5, 1.0, 3.0], n) if weighted else np.ones(n),
        }
    )
    metrics = ALL
    got = df.metrics.estimated_performance(
        "pred", "s", calibration=None, weight="w", ci=0.9, metrics=metrics
    ).row(0, named=True)
    drawn = _realized(s, df["pred"].to_numpy() == 1, df["w"].to_numpy(), s)
    z = NormalDist().inv_cdf(0.95)
    for m in metrics:
        low, high = got[f"{m}_low"], got[f"{m}_high"]
        assert 0 < low < got[m] < high < 1, m  # not clipped: the half-width is z se
        se = (high - low) / (2 * z)
        assert se == pytest.approx(drawn[m].std(), rel=0.06), m
        coverage = ((drawn[m] >= low) & (drawn[m] <= high)).mean()
        assert coverage == pytest.approx(0.9, abs=0.025), m


def test_rows_of_probability_0_or_1_have_no_spread() -> None:
    df = pl.DataFrame({"s": [0.0, 1.0, 1.0, 0.0], "pred": [0, 1, 0, 1]})
    got = df.metrics.estimated_performance("pred", "s", calibration=None, ci=0.95).row(
        0, named=True
    )
    for m in ("roc_auc", "precision", "recall", "f1", "specificity", "accuracy"):
        assert got[f"{m}_low"] == got[m] == got[f"{m}_high"], m


def test_boolean_labels_default_to_true() -> None:
    flags = ROWS.with_columns(pl.col("pred", "y").cast(pl.Boolean))
    kwargs = {"reference": REFERENCE, "y_true": "y", "by": "g", "weight": "w", "ci": 0.9}
    same(
        flags.metrics.estimated_performance("pred", "s", **kwargs),
        ROWS.metrics.estimated_performance("pred", "s", **kwargs),
    )


def test_a_small_segment_beside_large_ones_is_the_segment_alone() -> None:
    # small segments are summed in ranges of several: each segment's running sums
    # restart at its first run, so a segment of tiny scores (1e-10) beside 199 others
    # near 0.9 gets exactly its own AUC (a difference of sums over the range lost
    # 6e-5 of it). Oracle: the definition with scikit-learn (each row a positive of
    # weight p and a negative of weight 1 - p, p the score: calibration=None).
    rng = np.random.default_rng(0)
    tiny = 1e-10
    parts = [
        pl.DataFrame({"g": [0] * 4, "s": [tiny, 2 * tiny, 3 * tiny, 4 * tiny], "p": [0, 0, 1, 1]})
    ]
    for g in range(1, 200):
        parts.append(
            pl.DataFrame(
                {"g": [g] * 20, "s": rng.uniform(0.8, 1.0, 20), "p": rng.integers(0, 2, 20)}
            )
        )
    df = pl.concat(parts)
    options = {"calibration": None, "metrics": ["roc_auc"]}
    together = df.metrics.estimated_performance("p", "s", by="g", **options).filter(
        pl.col("g") == 0
    )
    alone = df.filter(pl.col("g") == 0).metrics.estimated_performance("p", "s", **options)
    assert together["roc_auc"].item() == alone["roc_auc"].item()
    s = np.array([tiny, 2 * tiny, 3 * tiny, 4 * tiny])
    expected = roc_auc_score(
        np.r_[np.ones(4), np.zeros(4)], np.r_[s, s], sample_weight=np.r_[s, 1 - s]
    )
    assert together["roc_auc"].item() == pytest.approx(expected, rel=1e-9)
