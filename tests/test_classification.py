"""Confusion-matrix metrics against scikit-learn, per segment, over every option."""

from __future__ import annotations

import inspect
import math
import warnings

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics  # noqa: F401  (registers .metrics)

ZERO_DIVISIONS = [0.0, 1.0, math.nan]
LABEL_KINDS = ["int", "str", "bool", "categorical", "enum", "float"]
_CLASS_NAMES = {
    "int": [0, 1, 2, 3, 4, 5],
    "str": ["ant", "bee", "cat", "dog", "eel", "fox"],
    "bool": [False, True],
    "categorical": ["ant", "bee", "cat", "dog", "eel", "fox"],
    "enum": ["ant", "bee", "cat", "dog", "eel", "fox"],
    "float": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0],  # scikit-learn takes integral floats only
}


def _dtype(kind: str) -> pl.DataType:
    return {
        "int": pl.Int64(),
        "str": pl.String(),
        "bool": pl.Boolean(),
        "categorical": pl.Categorical(),
        "enum": pl.Enum(_CLASS_NAMES["enum"]),
        "float": pl.Float64(),
    }[kind]


@st.composite
def frames(draw: st.DrawFn) -> dict:
    """A random predictions frame and a random set of options."""
    kind = draw(st.sampled_from(LABEL_KINDS))
    names = _CLASS_NAMES[kind]
    k = draw(st.integers(1, len(names)))
    classes = names[:k]
    n = draw(st.integers(1, 60))
    y_true = draw(st.lists(st.sampled_from(classes), min_size=n, max_size=n))
    # y_pred may miss classes of y_true and hold classes y_true lacks
    pred_classes = draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names)))
    y_pred = draw(st.lists(st.sampled_from(pred_classes), min_size=n, max_size=n))
    n_seg = draw(st.integers(0, 3))
    data = {"y_true": y_true, "y_pred": y_pred}
    by: list[str] = []
    if n_seg:
        data["seg"] = draw(st.lists(st.integers(0, n_seg - 1), min_size=n, max_size=n))
        by = ["seg"]
    if draw(st.booleans()):
        data["w"] = draw(
            st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n)
        )
    df = pl.DataFrame(data).with_columns(pl.col("y_true", "y_pred").cast(_dtype(kind)))
    if "w" in data:
        # scikit-learn refuses all-zero weights; such a segment is tested on its own
        total = pl.col("w").sum().over(by) if by else pl.col("w").sum()
        df = df.with_columns(pl.when(total == 0).then(1.0).otherwise(pl.col("w")).alias("w"))
    labels_mode = draw(st.sampled_from(["none", "given"]))
    labels = None
    if labels_mode == "given":
        # any order, absent classes allowed, a subset allowed
        labels = draw(
            st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True)
        )
    return {
        "df": df,
        "by": by,
        "labels": labels,
        "weight": "w" if "w" in data else None,
        "beta": draw(st.sampled_from([1.0, 0.5, 2.0, 3.7])),
        "zero_division": draw(st.sampled_from(ZERO_DIVISIONS)),
    }


def _arrays(seg: pl.DataFrame, weight: str | None) -> tuple:
    y_true = (
        seg["y_true"]
        .cast(
            pl.String if seg["y_true"].dtype in (pl.Categorical, pl.Enum) else seg["y_true"].dtype
        )
        .to_numpy()
    )
    y_pred = (
        seg["y_pred"]
        .cast(
            pl.String if seg["y_pred"].dtype in (pl.Categorical, pl.Enum) else seg["y_pred"].dtype
        )
        .to_numpy()
    )
    w = None if weight is None else seg[weight].to_numpy()
    return y_true, y_pred, w


#: The opt-in scores the oracle test asks for (every one of ``names.EXTRA_SCORES``).
EXTRA = ("fowlkes_mallows", "informedness", "markedness")


def _expected(case: dict, method: str) -> pl.DataFrame | None:
    def build(seg: pl.DataFrame) -> pl.DataFrame:
        y_true, y_pred, w = _arrays(seg, case["weight"])
        if method in ("confusion_matrix", "summary"):
            return getattr(oracle, method)(y_true, y_pred, labels=case["labels"], weight=w)
        return getattr(oracle, method)(
            y_true,
            y_pred,
            labels=case["labels"],
            weight=w,
            beta=case["beta"],
            zero_division=case["zero_division"],
            extra_scores=EXTRA,
        )

    return oracle.by_segment(case["df"], case["by"], build, weight=case["weight"])


def _actual(case: dict, method: str) -> pl.DataFrame:
    kwargs = {"by": case["by"] or None, "labels": case["labels"], "weight": case["weight"]}
    if method in ("per_class", "averages"):  # the opt-in scores too, against the oracle
        kwargs |= {"beta": case["beta"], "zero_division": case["zero_division"]}
        kwargs["extra_scores"] = EXTRA
    out = getattr(case["df"].metrics, method)("y_true", "y_pred", **kwargs)
    # compare labels as strings (the oracle sees Categorical / Enum as str)
    return out.with_columns(
        pl.col(c).cast(pl.String)
        for c in ("label", "actual", "predicted")
        if c in out.columns and out[c].dtype in (pl.Categorical, pl.Enum)
    )


@pytest.mark.parametrize("method", ["per_class", "averages", "confusion_matrix", "summary"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames())
def test_equals_sklearn(method: str, case: dict) -> None:
    expected = _expected(case, method)
    actual = _actual(case, method)
    oracle.assert_close(actual, expected)


@settings(max_examples=60, deadline=None)
@given(case=frames())
def test_report_is_per_class_then_averages(case: dict) -> None:
    df, by = case["df"], case["by"] or None
    kw = {
        "by": by,
        "labels": case["labels"],
        "weight": case["weight"],
        "beta": case["beta"],
        "zero_division": case["zero_division"],
    }
    report = df.metrics.report("y_true", "y_pred", **kw)
    f = "f1" if case["beta"] == 1 else f"f{case['beta']:g}"
    cols = [*(case["by"]), "precision", "recall", f, "jaccard", "support"]
    per_class = df.metrics.per_class("y_true", "y_pred", **kw)
    averages = df.metrics.averages("y_true", "y_pred", **kw)
    oracle.assert_close(
        report.filter(pl.col("average").is_null()).select(
            *case["by"], "label", *cols[len(case["by"]) :]
        ),
        per_class.select(*case["by"], "label", *cols[len(case["by"]) :]),
    )
    oracle.assert_close(
        report.filter(pl.col("label").is_null()).select(
            *case["by"], "average", *cols[len(case["by"]) :]
        ),
        averages.select(*case["by"], "average", *cols[len(case["by"]) :]),
    )


@settings(max_examples=60, deadline=None)
@given(case=frames(), seed=st.integers(0, 2**32 - 1))
def test_invariant_to_row_order(case: dict, seed: int) -> None:
    df = case["df"]
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    kw = {"by": case["by"] or None, "labels": case["labels"], "weight": case["weight"]}
    for method in ("report", "summary", "confusion_matrix"):
        a = getattr(df.metrics, method)("y_true", "y_pred", **kw)
        b = getattr(shuffled.metrics, method)("y_true", "y_pred", **kw)
        oracle.assert_close(a, b)


@settings(max_examples=40, deadline=None)
@given(case=frames())
def test_lazy_equals_eager_and_engines(case: dict) -> None:
    df = case["df"]
    kw = {"by": case["by"] or None, "labels": case["labels"], "weight": case["weight"]}
    eager = df.metrics.report("y_true", "y_pred", **kw)
    lazy = df.lazy().metrics.report("y_true", "y_pred", **kw)
    assert isinstance(lazy, pl.LazyFrame)
    oracle.assert_close(lazy.collect(engine="streaming"), eager)
    oracle.assert_close(lazy.collect(engine="in-memory"), eager)


def test_scan_parquet_over_several_files(tmp_path) -> None:
    rng = np.random.default_rng(7)
    n = 3000
    df = pl.DataFrame(
        {
            "seg": rng.choice(["de", "fr", "us"], n),
            "y_true": rng.integers(0, 4, n),
            "y_pred": rng.integers(0, 4, n),
            "w": rng.random(n),
        }
    )
    for i in range(4):
        df.slice(i * 750, 750).write_parquet(tmp_path / f"part-{i}.parquet")
    scanned = pl.scan_parquet(tmp_path / "*.parquet")
    for method in ("report", "summary", "per_class", "confusion_matrix", "averages"):
        got = getattr(scanned.metrics, method)("y_true", "y_pred", by="seg", weight="w")
        oracle.assert_close(
            got.collect(engine="streaming"),
            getattr(df.metrics, method)("y_true", "y_pred", by="seg", weight="w"),
        )


def test_multiple_by_columns_and_null_segment() -> None:
    df = pl.DataFrame(
        {
            "country": ["de", "de", None, None, "fr", "fr"],
            "model": [1, 2, 1, 1, 1, 1],
            "y_true": [0, 1, 1, 0, 2, 2],
            "y_pred": [0, 1, 0, 0, 2, 1],
        }
    )
    got = df.metrics.summary("y_true", "y_pred", by=["country", "model"])
    assert got.columns[:2] == ["country", "model"]
    # sorted by the segments, the null segment last
    assert got.select("country", "model").rows() == [("de", 1), ("de", 2), ("fr", 1), (None, 1)]
    expected = oracle.by_segment(
        df,
        ["country", "model"],
        lambda s: oracle.summary(
            s["y_true"].to_numpy(), s["y_pred"].to_numpy(), labels=None, weight=None
        ),
    ).sort(["country", "model"], nulls_last=True)
    oracle.assert_close(got, expected)


def test_mcc_on_three_million_rows_does_not_overflow() -> None:
    # products of counts above 2**32: must be computed in Float64
    rng = np.random.default_rng(0)
    n = 3_000_000
    y_true = rng.integers(0, 2, n)
    flip = rng.random(n) < 0.2
    y_pred = np.where(flip, 1 - y_true, y_true)
    df = pl.DataFrame({"y_true": y_true, "y_pred": y_pred})
    got = df.metrics.summary("y_true", "y_pred")
    expected = oracle.summary(y_true, y_pred, labels=None, weight=None)
    oracle.assert_close(got, expected)


def test_sklearn_docstring_examples() -> None:
    # the examples of sklearn's precision_recall_fscore_support / cohen_kappa docs
    y_true = ["cat", "dog", "pig", "cat", "dog", "pig"]
    y_pred = ["cat", "pig", "dog", "cat", "cat", "dog"]
    df = pl.DataFrame({"y_true": y_true, "y_pred": y_pred})
    for zd in ZERO_DIVISIONS:
        exp = oracle.averages(
            np.array(y_true), np.array(y_pred), labels=None, weight=None, beta=0.5, zero_division=zd
        )
        got = df.metrics.averages("y_true", "y_pred", beta=0.5, zero_division=zd)
        oracle.assert_close(got, exp)


def test_one_class_only() -> None:
    df = pl.DataFrame({"y_true": [3, 3, 3], "y_pred": [3, 3, 3]})
    got = df.metrics.summary("y_true", "y_pred")
    oracle.assert_close(
        got, oracle.summary(np.array([3, 3, 3]), np.array([3, 3, 3]), labels=None, weight=None)
    )
    pc = df.metrics.per_class("y_true", "y_pred", zero_division=math.nan)
    oracle.assert_close(
        pc,
        oracle.per_class(
            np.array([3, 3, 3]),
            np.array([3, 3, 3]),
            labels=None,
            weight=None,
            beta=1.0,
            zero_division=math.nan,
        ),
    )


def test_empty_frame_gives_empty_result() -> None:
    df = pl.DataFrame(
        {"y_true": [], "y_pred": [], "seg": []},
        schema={"y_true": pl.Int64, "y_pred": pl.Int64, "seg": pl.String},
    )
    for method in ("report", "per_class", "averages", "summary", "confusion_matrix"):
        for by in (None, "seg"):
            got = getattr(df.metrics, method)("y_true", "y_pred", by=by)
            assert got.height == 0, (method, by)
    # the schema is the same as for a non-empty frame
    full = pl.DataFrame({"y_true": [1], "y_pred": [1], "seg": ["a"]})
    assert (
        df.metrics.report("y_true", "y_pred", by="seg").schema
        == full.metrics.report("y_true", "y_pred", by="seg").schema
    )


def test_enum_keeps_dtype_and_order() -> None:
    enum = pl.Enum(["low", "mid", "high"])
    df = pl.DataFrame(
        {"y_true": ["high", "low", "mid", "high"], "y_pred": ["high", "mid", "mid", "low"]}
    ).cast(enum)
    pc = df.metrics.per_class("y_true", "y_pred")
    assert pc["label"].dtype == enum
    assert pc["label"].to_list() == ["low", "mid", "high"]
    cm = df.metrics.confusion_matrix("y_true", "y_pred")
    assert cm["actual"].dtype == enum
    assert cm["actual"].to_list()[:3] == ["low", "low", "low"]


def test_string_labels_vs_categorical_prediction() -> None:
    df = pl.DataFrame({"y_true": ["a", "b", "b"], "y_pred": ["a", "a", "b"]}).with_columns(
        pl.col("y_pred").cast(pl.Categorical)
    )
    got = df.metrics.per_class("y_true", "y_pred")
    assert got["label"].dtype == pl.String
    exp = oracle.per_class(
        np.array(["a", "b", "b"]),
        np.array(["a", "a", "b"]),
        labels=None,
        weight=None,
        beta=1.0,
        zero_division=0.0,
    )
    oracle.assert_close(got, exp)


def test_int32_vs_int64_labels() -> None:
    df = pl.DataFrame(
        {"y_true": [1, 2, 2], "y_pred": [1, 1, 2]}, schema={"y_true": pl.Int32, "y_pred": pl.Int64}
    )
    got = df.metrics.averages("y_true", "y_pred")
    exp = oracle.averages(
        np.array([1, 2, 2]),
        np.array([1, 1, 2]),
        labels=None,
        weight=None,
        beta=1.0,
        zero_division=0.0,
    )
    oracle.assert_close(got, exp)


def test_f_column_name_follows_beta() -> None:
    df = pl.DataFrame({"y_true": [0, 1], "y_pred": [0, 1]})
    assert "f2" in df.metrics.per_class("y_true", "y_pred", beta=2).columns
    assert "f0.5" in df.metrics.averages("y_true", "y_pred", beta=0.5).columns
    assert "f1" in df.metrics.report("y_true", "y_pred").columns


def test_weighted_counts_are_float() -> None:
    df = pl.DataFrame({"y_true": [0, 1], "y_pred": [0, 1], "w": [1, 2]})
    assert df.metrics.confusion_matrix("y_true", "y_pred", weight="w")["count"].dtype == pl.Float64
    assert df.metrics.confusion_matrix("y_true", "y_pred")["count"].dtype == pl.Int64


@pytest.mark.parametrize("replace", [float("nan"), 0.0, -1.0, 0.5, 1.0])
@pytest.mark.parametrize("kappa_weights", [None, "linear", "quadratic"])
def test_kappa_replace_undefined_by_equals_sklearn(
    replace: float, kappa_weights: str | None
) -> None:
    """Segments whose kappa is undefined (one class, all actual and all predicted; rows
    only outside labels= are a segment of n = 0, where scikit-learn raises) and defined
    ones: the frame method, the merged state and the expression equal
    ``cohen_kappa_score(..., replace_undefined_by=)`` per segment."""
    import warnings

    from sklearn import metrics as skm

    import pl_metrics as plm

    df = pl.DataFrame(
        {
            "g": ["one", "one", "one", "two", "two", "two", "w", "w"],
            "t": [2, 2, 2, 0, 1, 2, 1, 1],
            "p": [2, 2, 2, 0, 2, 2, 1, 1],
            "w": [1.0, 0.5, 3.0, 1.0, 1.0, 2.0, 0.0, 0.0],  # segment "w": weight 0 only
        }
    )
    kw = {"replace_undefined_by": replace, "kappa_weights": kappa_weights}
    got = df.metrics.summary("t", "p", by="g", weight="w", **kw)
    state = plm.from_counts(df.metrics.counts("t", "p", by="g", weight="w"), by="g")
    merged = state.summary(**kw)
    expr = (
        df.lazy()
        .filter(pl.col("w") > 0)
        .group_by("g")
        .agg(
            plm.cohen_kappa(
                "t", "p", weights=kappa_weights, weight="w", replace_undefined_by=replace
            )
        )
        .sort("g")
        .collect()
    )
    assert got["g"].to_list() == ["one", "two"]
    for i, part in enumerate(df.filter(pl.col("w") > 0).partition_by("g", maintain_order=True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # UndefinedMetricWarning, one label
            sk = {"weights": kappa_weights, "sample_weight": part["w"]}
            if "replace_undefined_by" in inspect.signature(skm.cohen_kappa_score).parameters:
                expected = skm.cohen_kappa_score(
                    part["t"], part["p"], **sk, replace_undefined_by=replace
                )
            else:  # scikit-learn < 1.8 (the floor's): its NaN, replaced as 1.8 documents
                expected = skm.cohen_kappa_score(part["t"], part["p"], **sk)
                expected = replace if math.isnan(expected) else expected
        for value in (got, merged, expr):
            assert value["cohen_kappa"][i] == pytest.approx(expected, rel=1e-12, nan_ok=True)
    # segment "one" is undefined (by hand: one class 2, all actual and predicted)
    assert got["cohen_kappa"][0] == pytest.approx(replace, nan_ok=True)
    assert not math.isnan(got["cohen_kappa"][1])  # segment "two" is defined
    # n = 0: every row outside labels= (scikit-learn raises; the same rule)
    empty = df.metrics.summary("t", "p", labels=[5, 6], replace_undefined_by=replace)
    assert empty["cohen_kappa"][0] == pytest.approx(replace, nan_ok=True)


def test_kappa_replace_undefined_by_is_checked() -> None:
    import pl_metrics as plm

    df = pl.DataFrame({"t": [0, 1], "p": [0, 1]})
    for bad in (1.5, -2, "0", None):
        with pytest.raises(ValueError, match="replace_undefined_by"):
            df.metrics.summary("t", "p", replace_undefined_by=bad)
        with pytest.raises(ValueError, match="replace_undefined_by"):
            plm.cohen_kappa("t", "p", replace_undefined_by=bad)
    with pytest.raises(ValueError, match="replace_undefined_by"):
        df.metrics.summary("t", "p", replace_undefined_by=0.0, ci=0.9)


@settings(max_examples=80, deadline=None)
@given(
    data=st.data(),
    segments=st.integers(1, 4),
    classes=st.integers(1, 5),
    skip_nan=st.booleans(),
    integer=st.booleans(),
)
def test_class_averages_are_one_helper_on_both_backends(
    data: st.DataObject, segments: int, classes: int, skip_nan: bool, integer: bool
) -> None:
    # formulas.class_averages, the macro and support-weighted means over classes of
    # the frame methods, the expressions and the bootstrap replicates: on the same
    # values and supports, polars over class rows (group_by) and over a list's
    # elements (list.eval) agree bit for bit (exact sums), numpy (the replicates)
    # within the last bits, and each is scikit-learn's _nanaverage: NaN values
    # skipped (zero_division=nan), the macro mean where the kept supports sum to 0
    from sklearn.utils.extmath import _nanaverage

    from pl_metrics._core import formulas

    score = st.one_of(st.floats(0.0, 1.0), st.just(math.nan)) if skip_nan else st.floats(0, 1)
    weight = st.integers(0, 10**6) if integer else st.floats(0.0, 1e6)
    shape = (segments, classes)
    values = np.array(
        data.draw(st.lists(score, min_size=segments * classes, max_size=segments * classes))
    ).reshape(shape)
    support = np.array(
        data.draw(st.lists(weight, min_size=segments * classes, max_size=segments * classes))
    ).reshape(shape)
    rows = pl.DataFrame(
        {
            "seg": np.repeat(np.arange(segments), classes),
            "x": values.ravel(),
            "s": support.ravel(),
        },
        schema={"seg": pl.Int64, "x": pl.Float64, "s": pl.Int64 if integer else pl.Float64},
    )
    macro, weighted = formulas.class_averages(
        pl.col("x"), pl.col("s"), skip_nan=skip_nan, integer=integer
    )
    by_rows = rows.group_by("seg").agg(macro.alias("macro"), weighted.alias("weighted")).sort("seg")
    f = pl.element().struct
    in_list = formulas.class_averages(
        f.field("x"), f.field("s"), skip_nan=skip_nan, integer=integer
    )
    listed = (
        rows.group_by("seg")
        .agg(pl.struct("x", "s").alias("v"))
        .sort("seg")
        .select(
            *(
                pl.col("v").list.eval(e).list.first().alias(n)
                for e, n in zip(in_list, ("macro", "weighted"), strict=True)
            )
        )
    )
    assert_frame_equal(by_rows.drop("seg"), listed)
    np_macro, np_weighted = formulas.class_averages(
        values, support, skip_nan=skip_nan, xp=formulas.NUMPY
    )
    for i in range(segments):
        x, s = values[i], support[i].astype(float)
        kept = ~np.isnan(x)
        expected_macro = x[kept].mean() if kept.any() else math.nan
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = _nanaverage(x, weights=s) if s[kept].sum() > 0 else expected_macro
        for got in (np_macro[i], by_rows["macro"][i]):
            assert got == pytest.approx(expected_macro, rel=1e-12, abs=1e-15, nan_ok=True)
        for got in (np_weighted[i], by_rows["weighted"][i]):
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-15, nan_ok=True)


#: ../shared/API.md's columns (after ``*by``): scikit-learn's report plus Jaccard.
CONTRACT = {
    "report": ["label", "average", "precision", "recall", "f1", "jaccard", "support"],
    "averages": ["average", "precision", "recall", "f1", "jaccard", "support"],
    "per_class": [
        *("label", "support", "predicted", "tp", "fp", "fn", "tn"),
        *("precision", "recall", "specificity", "f1", "jaccard"),
    ],
}


@pytest.mark.parametrize("method", sorted(CONTRACT))
def test_the_default_columns_are_the_contracts_and_further_scores_opt_in(method: str) -> None:
    """The default report gained a ``fowlkes_mallows`` column (issue 49): ``report``,
    ``averages`` and ``per_class`` keep the contract's columns on every path (frame,
    lazy, merged state, multilabel), and ``extra_scores=`` adds the opt-in score
    before ``support`` (after ``jaccard`` in ``per_class``), equal to the oracle's
    sqrt(precision_score x recall_score)."""
    from sklearn import metrics as skm

    import pl_metrics as plm

    df = pl.DataFrame({"g": [0, 0, 0, 1, 1, 1], "t": [0, 1, 1, 2, 2, 0], "p": [0, 1, 2, 2, 0, 0]})
    expected = ["g", *CONTRACT[method]]
    state = plm.from_counts(df.metrics.counts("t", "p", by="g"), by="g")
    ml = pl.DataFrame({"t": [[0], [1], [0, 1]], "p": [[0], [0, 1], [1]], "g": [0, 0, 1]})
    ml_state = plm.from_multilabel_counts(ml.metrics.multilabel_counts("t", "p", by="g"), by="g")
    for frame in (
        getattr(df.metrics, method)("t", "p", by="g"),
        getattr(df.lazy().metrics, method)("t", "p", by="g").collect(),
        getattr(state, method)(),
        getattr(ml.metrics, method)("t", "p", by="g"),
        getattr(ml_state, method)(),
    ):
        assert frame.columns == expected
    extra = getattr(df.metrics, method)("t", "p", by="g", extra_scores=["fowlkes_mallows"])
    after = expected.index("jaccard") + 1
    assert extra.columns == [*expected[:after], "fowlkes_mallows", *expected[after:]]
    assert_frame_equal(extra.drop("fowlkes_mallows"), getattr(df.metrics, method)("t", "p", by="g"))
    assert_frame_equal(getattr(state, method)(extra_scores="fowlkes_mallows"), extra)
    with_ci = getattr(df.metrics, method)("t", "p", ci=0.9, extra_scores="fowlkes_mallows")
    assert {"fowlkes_mallows_low", "fowlkes_mallows_high"} <= set(with_ci.columns)
    assert "fowlkes_mallows_low" not in getattr(df.metrics, method)("t", "p", ci=0.9).columns
    allowed = r"\['fowlkes_mallows', 'informedness', 'markedness'\]"
    with pytest.raises(ValueError, match=rf"`extra_scores` must be one of {allowed}"):
        getattr(df.metrics, method)("t", "p", extra_scores=["specificity_macro"])
    if method == "per_class":  # the oracle: per class, sqrt(precision x recall)
        seg = df.filter(pl.col("g") == 0)
        t, p = seg["t"].to_numpy(), seg["p"].to_numpy()
        precision = skm.precision_score(t, p, average=None, labels=[0, 1, 2], zero_division=0)
        recall = skm.recall_score(t, p, average=None, labels=[0, 1, 2], zero_division=0)
        got = extra.filter(pl.col("g") == 0)["fowlkes_mallows"].to_numpy()
        np.testing.assert_allclose(got, np.sqrt(precision * recall), rtol=1e-12)
