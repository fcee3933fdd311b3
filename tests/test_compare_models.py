"""compare_models: point values against scikit-learn, McNemar against statsmodels, the
p-value adjustment, bad input and the stacked (long) form of the models.  DeLong and
the paired bootstrap are in ``tests/test_compare_models_delong_bootstrap.py``, the
delta method in ``tests/test_compare_models_delta.py``."""

from __future__ import annotations

import math
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from _compare_models_helpers import _exchangeable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy.stats import norm
from sklearn import metrics as skm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

import pl_metrics as plm
from pl_metrics._groups import paired

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
def paired_rows(draw: st.DrawFn, metric: str) -> pl.DataFrame:
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
    @given(df=paired_rows(metric))
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
    assert paired.mcnemar(0, 0) == ("mcnemar_exact", 0.0, 1.0)
    assert paired.mcnemar(12, 12)[0] == "mcnemar_exact"  # 24 discordant rows
    assert paired.mcnemar(12, 13)[0] == "mcnemar_chi2"  # 25


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
    @given(df=paired_rows(metric), seed=st.integers(0, 2**16), by=st.booleans())
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
