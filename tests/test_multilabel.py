"""Multilabel input (both forms) and the set-based metrics, against scikit-learn."""

from __future__ import annotations

import math
import warnings
from typing import Any

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.exceptions import ColumnNotFoundError, SchemaError
from polars.testing import assert_frame_equal

import pl_metrics as plm
from pl_metrics._multilabel import inputs

LISTS = pl.DataFrame(
    {
        "t": [["a", "b"], [], ["c"], ["b"]],
        "p": [["b"], ["c"], [], ["a", "b", "c"]],
        "g": [1, 1, 2, 2],
        "w": [1.0, 2.0, 0.0, 3.0],
    }
)


def _indicators(df: pl.DataFrame, column: str, labels: list[str], prefix: str) -> pl.DataFrame:
    return df.with_columns(
        pl.col(column).list.contains(pl.lit(x)).cast(pl.Int64).alias(f"{prefix}{x}") for x in labels
    )


def _rows(ml: inputs.Multilabel) -> pl.DataFrame:
    agg = ml.rows.group_by(ml.group_keys or [pl.lit(0).alias("k")]).agg(ml.check_aggs())
    ml.raise_if_bad(agg).collect()
    return ml.rows.select(inputs.TRUE, inputs.PRED).collect()


# ------------------------------------------------------------------------------ inputs
def test_inputs_both_forms_give_the_same_sets() -> None:
    df = _indicators(_indicators(LISTS, "t", ["a", "b", "c"], "t_"), "p", ["a", "b", "c"], "p_")
    lists = inputs.multilabel_input(
        df.lazy(), "t", "p", by=None, labels=None, weight=None, reserved=()
    )
    tmap = {x: f"t_{x}" for x in "cab"}
    pmap = {x: f"p_{x}" for x in "abc"}
    maps = inputs.multilabel_input(
        df.lazy(), tmap, pmap, by=None, labels=None, weight=None, reserved=()
    )
    sort = [pl.col(c).list.sort() for c in (inputs.TRUE, inputs.PRED)]
    assert _rows(lists).select(sort).equals(_rows(maps).select(sort))
    assert lists.label_set().collect()["label"].to_list() == ["a", "b", "c"]
    assert maps.label_set().collect()["label"].to_list() == ["a", "b", "c"]
    assert maps.labels is not None
    assert maps.labels.to_list() == ["a", "b", "c"]


@pytest.mark.parametrize("dtype", [pl.Float64, pl.Float32])
def test_inputs_float_indicators_are_the_integer_ones(dtype: pl.DataType) -> None:
    """0.0 / 1.0 (and -0.0) float indicators are the sets of the 0/1 integer ones, in the
    set-based and the ranking methods alike."""
    df = _indicators(_indicators(LISTS, "t", ["a", "b", "c"], "t_"), "p", ["a", "b", "c"], "p_")
    df = df.with_columns(s_a=pl.Series([0.9, 0.1, 0.4, 0.3]), s_b=0.5, s_c=pl.col("w") / 4)
    floats = df.with_columns(pl.col("^[tp]_.$").cast(dtype)).with_columns(
        pl.when(pl.col("t_a") == 0).then(-0.0).otherwise("t_a").cast(dtype).alias("t_a")
    )
    tmap, pmap = {x: f"t_{x}" for x in "abc"}, {x: f"p_{x}" for x in "abc"}
    smap = {x: f"s_{x}" for x in "abc"}
    for frame in (df, floats):
        assert frame.metrics.report(tmap, pmap, by="g", weight="w").equals(
            df.metrics.report("t", "p", by="g", weight="w")
        )
    for method in ("average_precision", "roc_auc"):
        got = getattr(floats.metrics, method)(tmap, smap, average=None)
        assert_frame_equal(got, getattr(df.metrics, method)(tmap, smap, average=None))
    assert_frame_equal(
        floats.metrics.label_ranking_average_precision(tmap, smap, weight="w"),
        df.metrics.label_ranking_average_precision("t", smap, weight="w"),
    )


@pytest.mark.parametrize("bad", [0.5, float("nan"), 2.0, float("inf"), -1.0, None])
def test_inputs_float_indicators_other_than_0_or_1_are_refused(bad: float | None) -> None:
    df = pl.DataFrame(
        {"ta": [1.0, 0.0, 1.0], "tb": [0.0, 1.0, 1.0], "sa": [0.2, 0.7, 0.4], "sb": [0.1, 0.3, 0.9]}
    )
    df = df.with_columns(pl.Series("tb", [0.0, bad, 1.0], dtype=pl.Float64))
    tmap, smap = {"a": "ta", "b": "tb"}, {"a": "sa", "b": "sb"}
    message = r"column 'tb' \(an indicator column of `y_true`\) has 1 rows that are not 0/1"
    with pytest.raises(plm.DataError, match=message):
        df.metrics.average_precision(tmap, smap)
    with pytest.raises(plm.DataError, match=message):
        df.lazy().metrics.report(tmap, {"a": "ta", "b": "ta"}).collect(engine="streaming")


def test_inputs_labels_restrict_the_sets_in_their_order() -> None:
    ml = inputs.multilabel_input(
        LISTS.lazy(), "t", "p", by=None, labels=["c", "b", "z"], weight=None, reserved=()
    )
    assert ml.label_set().collect()["label"].to_list() == ["c", "b", "z"]
    rows = _rows(ml)
    assert rows[inputs.TRUE].to_list() == [["b"], [], ["c"], ["b"]]
    assert rows[inputs.PRED].to_list() == [["b"], ["c"], [], ["b", "c"]]


@pytest.mark.parametrize(
    ("t", "message"),
    [
        ([["a", "a"], ["b"]], "1 rows listing a label more than once"),
        ([None, ["b"]], "1 null rows"),
        ([["a", None], ["b"]], "1 rows whose list holds a null label"),
    ],
)
def test_inputs_bad_lists_are_data_errors(t: list[object], message: str) -> None:
    df = pl.DataFrame(
        {"t": t, "p": [["a"], []]}, schema={"t": pl.List(pl.String), "p": pl.List(pl.String)}
    )
    ml = inputs.multilabel_input(
        df.lazy(), "t", "p", by=None, labels=None, weight=None, reserved=()
    )
    with pytest.raises(plm.DataError, match=message):
        _rows(ml)


def test_inputs_bad_indicators_and_schemas() -> None:
    df = pl.DataFrame(
        {"ta": [0, 2], "tb": [True, None], "pa": [1, 0], "pb": [0.0, 1.0], "l": [[1], [2]]}
    )
    ml = inputs.multilabel_input(
        df.lazy(), {"a": "ta"}, {"a": "pa"}, by=None, labels=None, weight=None, reserved=()
    )
    with pytest.raises(plm.DataError, match=r"'ta' .* 1 rows that are not 0/1"):
        _rows(ml)
    ml = inputs.multilabel_input(
        df.lazy(), {"b": "tb"}, {"b": "pa"}, by=None, labels=None, weight=None, reserved=()
    )
    with pytest.raises(plm.DataError, match=r"'tb' .* 1 rows"):
        _rows(ml)
    with pytest.raises(SchemaError, match=r"'ps' .* must be Boolean or 0/1 integers or floats"):
        inputs.multilabel_input(
            df.with_columns(ps=pl.lit("1")).lazy(),
            {"b": "tb"},
            {"b": "ps"},
            by=None,
            labels=None,
            weight=None,
            reserved=(),
        )
    with pytest.raises(ValueError, match="same labels"):
        inputs.multilabel_input(
            df.lazy(), {"a": "ta"}, {"b": "pa"}, by=None, labels=None, weight=None, reserved=()
        )
    with pytest.raises(TypeError, match="same multilabel form"):
        inputs.multilabel_input(
            df.lazy(), {"a": "ta"}, "l", by=None, labels=None, weight=None, reserved=()
        )
    with pytest.raises(SchemaError, match=r"'ta' .* must be a List column"):
        inputs.multilabel_input(
            df.lazy(), "l", "ta", by=None, labels=None, weight=None, reserved=()
        )
    with pytest.raises(ColumnNotFoundError, match="'nope'"):
        inputs.multilabel_input(
            df.lazy(), {"a": "nope"}, {"a": "pa"}, by=None, labels=None, weight=None, reserved=()
        )
    with pytest.raises(ValueError, match=r"`labels` \['z'\] are not labels"):
        inputs.multilabel_input(
            df.lazy(), {"a": "ta"}, {"a": "pa"}, by=None, labels=["z"], weight=None, reserved=()
        )
    strings = pl.DataFrame({"s": [["x"]], "l": [[1]]})
    with pytest.raises(SchemaError, match="incompatible"):
        inputs.multilabel_input(
            strings.lazy(), "s", "l", by=None, labels=None, weight=None, reserved=()
        )


def test_inputs_float_labels_must_be_whole_numbers() -> None:
    df = pl.DataFrame({"t": [[1.0, -0.0], [0.5]], "p": [[0.0], [1.0]]})
    ml = inputs.multilabel_input(
        df.lazy(), "t", "p", by=None, labels=None, weight=None, reserved=()
    )
    with pytest.raises(plm.DataError, match="1 rows that are not class labels"):
        _rows(ml)


def test_inputs_weights_drop_zero_rows_and_check_the_rest() -> None:
    ml = inputs.multilabel_input(
        LISTS.lazy(), "t", "p", by="g", labels=None, weight="w", reserved=()
    )
    assert _rows(ml).height == 3
    bad = LISTS.with_columns(w=pl.Series([1.0, -1.0, None, 1.0]))
    ml = inputs.multilabel_input(bad.lazy(), "t", "p", by="g", labels=None, weight="w", reserved=())
    with pytest.raises(plm.DataError, match="2 rows with a null, NaN"):
        _rows(ml)


# ------------------------------------------------------------------- scikit-learn oracle
LABELS = ["a", "b", "c", "d"]


def _case(
    t_sets: list[list[str]],
    p_sets: list[list[str]],
    w: list[float] | None = None,
    g: list[int] | None = None,
) -> pl.DataFrame:
    """A frame with both input forms: List columns t, p and indicators t_a .. p_d."""
    n = len(t_sets)
    df = pl.DataFrame(
        {
            "t": t_sets,
            "p": p_sets,
            "w": w if w is not None else [1.0] * n,
            "g": g if g is not None else [0] * n,
        },
        schema={"t": pl.List(pl.String), "p": pl.List(pl.String), "w": pl.Float64, "g": pl.Int64},
    )
    return _indicators(_indicators(df, "t", LABELS, "t_"), "p", LABELS, "p_")


TMAP = {x: f"t_{x}" for x in LABELS}
PMAP = {x: f"p_{x}" for x in LABELS}


def _matrix(df: pl.DataFrame, prefix: str, labels: list[str]) -> np.ndarray:
    return df.select(f"{prefix}{x}" for x in labels).to_numpy().astype(int)


def _seen(df: pl.DataFrame) -> list[str]:
    """The List form's label set: the sorted union over all rows."""
    both = pl.concat([df["t"].explode(), df["p"].explode()]).drop_nulls()
    return sorted(both.unique().to_list())


def _sk_prfs(
    yt: np.ndarray,
    yp: np.ndarray,
    average: str | None,
    *,
    beta: float,
    zero_division: float,
    sample_weight: np.ndarray | None,
    labels: list[int] | None = None,
) -> tuple[Any, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skm.precision_recall_fscore_support(
            yt,
            yp,
            average=average,
            beta=beta,
            zero_division=zero_division,
            sample_weight=sample_weight,
            labels=labels,
        )


def _sk_jaccard(
    yt: np.ndarray,
    yp: np.ndarray,
    average: str | None,
    *,
    zero_division: float,
    sample_weight: np.ndarray | None,
    labels: list[int] | None = None,
) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return skm.jaccard_score(
            yt,
            yp,
            average=average,
            zero_division=zero_division,
            sample_weight=sample_weight,
            labels=labels,
        )


def _fowlkes_mallows(
    yt: np.ndarray,
    yp: np.ndarray,
    average: str,
    *,
    zero_division: float,
    sample_weight: np.ndarray | None,
    labels: list[int],
) -> float:
    """sqrt(precision) x sqrt(recall): micro of scikit-learn's micro averages; macro /
    weighted the NaN-skipping mean (``_nanaverage``, weights the supports) of the
    labels' values; samples the NaN-skipping mean of each row's value (weights the
    rows')."""
    if average != "samples":
        return oracle.fowlkes_mallows(
            yt,
            yp,
            average=average,
            labels=labels,
            zero_division=zero_division,
            sample_weight=sample_weight,
        )
    # by hand, each row's precision |T & P| / |P| and recall |T & P| / |T| over the
    # chosen labels, zero_division where the denominator is 0 (scikit-learn's samples)
    yt, yp = np.asarray(yt)[:, labels], np.asarray(yp)[:, labels]
    common, n_pred, n_true = (yt & yp).sum(axis=1), yp.sum(axis=1), yt.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n_pred > 0, common / n_pred, zero_division)
        r = np.where(n_true > 0, common / n_true, zero_division)
    values = np.sqrt(p) * np.sqrt(r)
    values = np.asarray(values, float)
    weights = np.ones(len(yt)) if sample_weight is None else np.asarray(sample_weight, float)
    kept = ~np.isnan(values)
    if not kept.any() or weights[kept].sum() == 0:
        return math.nan
    return float(np.average(values[kept], weights=weights[kept]))


def _close(a: object, b: object) -> bool:
    return bool(np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-9, equal_nan=True))


def _check_against_sklearn(
    df: pl.DataFrame,
    *,
    form: str,
    beta: float,
    zero_division: float,
    weighted: bool,
    labels: list[str] | None,
) -> None:
    """per_class, averages (all four), report, confusion, losses and summary of one
    segment, against scikit-learn on the indicator matrix of the label set."""
    y_true, y_pred = ("t", "p") if form == "lists" else (TMAP, PMAP)
    universe = _seen(df) if form == "lists" else LABELS
    if labels is not None and form == "lists":
        universe = sorted(set(universe) | set(labels))
    if len(universe) < 2:  # scikit-learn reads one indicator column as binary labels
        return
    chosen = labels if labels is not None else universe
    idx = [universe.index(x) for x in chosen]
    yt, yp = _matrix(df, "t_", universe), _matrix(df, "p_", universe)
    w = df["w"].to_numpy() if weighted else None
    kw: dict[str, Any] = {"weight": "w" if weighted else None, "labels": labels}
    f = "f1" if beta == 1 else f"f{beta:g}"

    kw["extra_scores"] = ["fowlkes_mallows"]  # the opt-in score too
    per = df.metrics.per_class(y_true, y_pred, beta=beta, zero_division=zero_division, **kw)
    assert per["label"].to_list() == chosen
    p, r, fs, s = _sk_prfs(
        yt, yp, None, beta=beta, zero_division=zero_division, sample_weight=w, labels=idx
    )
    assert _close(per["precision"], p)
    assert _close(per["recall"], r)
    assert _close(per[f], fs)
    assert _close(per["support"], s)
    per_fm = np.sqrt(p) * np.sqrt(r)  # Fowlkes-Mallows: sqrt(precision x recall)
    assert _close(per["fowlkes_mallows"], per_fm)
    if not np.isnan(zero_division):  # jaccard_score has no zero_division=nan
        jac = _sk_jaccard(yt, yp, None, zero_division=zero_division, sample_weight=w, labels=idx)
        assert _close(per["jaccard"], jac)
    mcm = skm.multilabel_confusion_matrix(yt, yp, sample_weight=w, labels=idx)
    cm = df.metrics.multilabel_confusion_matrix(y_true, y_pred, weight=kw["weight"], labels=labels)
    assert _close(cm["tp"], mcm[:, 1, 1])
    assert _close(cm["fp"], mcm[:, 0, 1])
    assert _close(cm["fn"], mcm[:, 1, 0])
    assert _close(cm["tn"], mcm[:, 0, 0])
    assert _close(per.select("tp", "fp", "fn", "tn").to_numpy(), cm.drop("label").to_numpy())

    avg = df.metrics.averages(y_true, y_pred, beta=beta, zero_division=zero_division, **kw)
    assert avg["average"].to_list() == ["micro", "macro", "weighted", "samples"]
    for row in avg.iter_rows(named=True):
        average = row["average"]
        p, r, fs, _ = _sk_prfs(
            yt, yp, average, beta=beta, zero_division=zero_division, sample_weight=w, labels=idx
        )
        assert _close([row["precision"], row["recall"], row[f]], [p, r, fs]), average
        fm_options = {"zero_division": zero_division, "sample_weight": w, "labels": idx}
        assert _close(row["fowlkes_mallows"], _fowlkes_mallows(yt, yp, average, **fm_options))
        if not np.isnan(zero_division):
            jac = _sk_jaccard(
                yt, yp, average, zero_division=zero_division, sample_weight=w, labels=idx
            )
            assert _close(row["jaccard"], jac), average
        assert _close(row["support"], per["support"].sum())

    rep = df.metrics.report(y_true, y_pred, beta=beta, zero_division=zero_division, **kw)
    assert _close(rep.filter(pl.col("average").is_null())["precision"], per["precision"])
    assert _close(rep.filter(pl.col("average").is_not_null())[f], avg[f])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk_rep = skm.classification_report(
            yt,
            yp,
            labels=idx,
            sample_weight=w,
            zero_division=zero_division,
            output_dict=True,
        )
    for row in rep.filter(pl.col("average").is_not_null()).iter_rows(named=True):
        sk_row = sk_rep[f"{row['average']} avg"]
        if beta == 1:
            assert _close(
                [row["precision"], row["recall"], row["f1"], row["support"]],
                [sk_row["precision"], sk_row["recall"], sk_row["f1-score"], sk_row["support"]],
            ), row["average"]

    if labels is not None:
        return
    # no labels= in scikit-learn's set losses: the whole label set
    ham = df.metrics.hamming_loss(y_true, y_pred, weight=kw["weight"])["hamming_loss"]
    assert _close(ham, skm.hamming_loss(yt, yp, sample_weight=w))
    for normalize in (True, False):
        zol = df.metrics.zero_one_loss(y_true, y_pred, weight=kw["weight"], normalize=normalize)
        sk = skm.zero_one_loss(yt, yp, normalize=normalize, sample_weight=w)
        assert _close(zol["zero_one_loss"], sk)
    summ = df.metrics.summary(y_true, y_pred, weight=kw["weight"])
    assert summ.columns == ["n", "subset_accuracy", "hamming_loss", "jaccard_samples"]
    assert _close(summ["n"], w.sum() if w is not None else len(df))
    assert _close(summ["subset_accuracy"], skm.accuracy_score(yt, yp, sample_weight=w))
    assert _close(summ["hamming_loss"], ham)
    assert _close(
        summ["jaccard_samples"],
        _sk_jaccard(yt, yp, "samples", zero_division=0.0, sample_weight=w),
    )
    sw = df.metrics.multilabel_confusion_matrix(
        y_true, y_pred, weight=kw["weight"], samplewise=True
    )
    mcm = skm.multilabel_confusion_matrix(yt, yp, sample_weight=w, samplewise=True)
    assert sw["sample"].to_list() == list(range(len(df)))
    assert _close(sw.select("tn", "fp", "fn", "tp").to_numpy(), mcm.reshape(-1, 4))


label_sets = st.lists(st.sampled_from(LABELS), unique=True, max_size=4)


@st.composite
def cases(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(1, 12))
    t = [draw(label_sets) for _ in range(n)]
    p = [draw(label_sets) for _ in range(n)]
    w = [draw(st.sampled_from([0.5, 1.0, 2.0, 3.25])) for _ in range(n)]
    return _case(t, p, w)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    df=cases(),
    form=st.sampled_from(["lists", "mapping"]),
    beta=st.sampled_from([1.0, 0.5, 2.0]),
    zero_division=st.sampled_from([0.0, 1.0, float("nan")]),
    weighted=st.booleans(),
    labels=st.sampled_from([None, ["c", "a"], ["d", "b", "a", "c"]]),
)
def test_against_sklearn(
    df: pl.DataFrame,
    form: str,
    beta: float,
    zero_division: float,
    weighted: bool,
    labels: list[str] | None,
) -> None:
    _check_against_sklearn(
        df, form=form, beta=beta, zero_division=zero_division, weighted=weighted, labels=labels
    )


EMPTY_ROWS = _case([[], ["a"], [], ["b", "c"]], [[], [], ["c"], ["b"]], [1.0, 2.0, 1.0, 0.5])


@pytest.mark.parametrize("form", ["lists", "mapping"])
@pytest.mark.parametrize("zero_division", [0.0, 1.0, float("nan")])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "df",
    [
        EMPTY_ROWS,  # empty true / predicted sets, a label never predicted, one never true
        _case([[]], [[]]),  # one row, no labels at all
        _case([["a"]], [["a"]]),  # one label
        _case([["a", "b"], ["a"]], [["a", "b"], ["a"]], [1e-300, 1e300]),  # huge weights
        _case([["d"], ["a"]], [["c"], ["b"]]),  # nothing right
    ],
    ids=["empty-rows", "no-labels", "one-label", "huge-weights", "all-wrong"],
)
def test_hard_cases_against_sklearn(
    df: pl.DataFrame, form: str, zero_division: float, weighted: bool
) -> None:
    for labels in (None, ["c", "a"]):
        _check_against_sklearn(
            df, form=form, beta=1.0, zero_division=zero_division, weighted=weighted, labels=labels
        )


@pytest.mark.parametrize("form", ["lists", "mapping"])
def test_segments_are_sklearn_per_segment(form: str) -> None:
    rng = np.random.default_rng(3)
    n = 60
    t = [sorted(rng.choice(LABELS, rng.integers(0, 3), replace=False).tolist()) for _ in range(n)]
    p = [sorted(rng.choice(LABELS, rng.integers(0, 3), replace=False).tolist()) for _ in range(n)]
    df = _case(t, p, rng.choice([0.0, 1.0, 2.5], n).tolist(), rng.integers(0, 3, n).tolist())
    y_true, y_pred = ("t", "p") if form == "lists" else (TMAP, PMAP)
    universe = _seen(df) if form == "lists" else LABELS
    for by in ("g", pl.col("g").alias("segment"), ["g", (pl.col("g") * 0).alias("zero")]):
        rep = df.metrics.report(y_true, y_pred, by=by, weight="w")
        ham = df.metrics.hamming_loss(y_true, y_pred, by=by, weight="w")
        for g in range(3):
            part = df.filter(pl.col("g") == g, pl.col("w") > 0)
            yt, yp, w = _matrix(part, "t_", universe), _matrix(part, "p_", universe), part["w"]
            key = pl.col(rep.columns[0]) == g
            got = rep.filter(key, pl.col("average") == "samples")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                p_s, r_s, f_s, _ = skm.precision_recall_fscore_support(
                    yt, yp, average="samples", sample_weight=w.to_numpy(), zero_division=0.0
                )
            assert _close(got.select("precision", "recall", "f1").row(0), [p_s, r_s, f_s])
            assert rep.filter(key, pl.col("average").is_null())["label"].to_list() == universe
            sk_ham = skm.hamming_loss(yt, yp, sample_weight=w.to_numpy())
            assert _close(ham.filter(pl.col(ham.columns[0]) == g)["hamming_loss"], sk_ham)


@pytest.mark.parametrize(
    ("t", "p"),
    [([0, 1, 1, 2, 2, 2], [0, 2, 1, 2, 0, 2]), (["x", "y", "y"], ["x", "x", "x"])],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_single_label_losses_against_sklearn(
    t: list[object], p: list[object], weighted: bool
) -> None:
    w = [1.0, 0.5, 2.0, 3.0, 0.0, 1.0][: len(t)]
    df = pl.DataFrame({"t": t, "p": p, "w": w})
    sample_weight = np.array(w) if weighted else None
    weight = "w" if weighted else None
    ham = df.metrics.hamming_loss("t", "p", weight=weight)["hamming_loss"]
    assert _close(ham, skm.hamming_loss(t, p, sample_weight=sample_weight))
    for normalize in (True, False):
        zol = df.metrics.zero_one_loss("t", "p", weight=weight, normalize=normalize)
        sk = skm.zero_one_loss(t, p, normalize=normalize, sample_weight=sample_weight)
        assert _close(zol["zero_one_loss"], sk)
    assert df.metrics.zero_one_loss("t", "p", normalize=False)["zero_one_loss"].dtype == pl.Int64


def test_both_forms_give_the_same_frames() -> None:
    df = EMPTY_ROWS
    for method in ("per_class", "averages", "report", "summary", "multilabel_confusion_matrix"):
        kw: dict[str, Any] = {"by": "g", "weight": "w"}
        lists = getattr(df.metrics, method)("t", "p", labels=LABELS, **kw)
        maps = getattr(df.metrics, method)(TMAP, PMAP, **kw)
        assert_frame_equal(lists, maps)


def test_eager_lazy_streaming() -> None:
    df = EMPTY_ROWS
    for method in ("per_class", "averages", "report", "summary", "hamming_loss", "zero_one_loss"):
        eager = getattr(df.metrics, method)("t", "p", by="g", weight="w")
        lazy = getattr(df.lazy().metrics, method)("t", "p", by="g", weight="w")
        assert isinstance(lazy, pl.LazyFrame)
        assert_frame_equal(eager, lazy.collect(engine="streaming"))


def test_options_and_errors_of_the_multilabel_methods() -> None:
    df = EMPTY_ROWS
    # ci is a bootstrap of whole rows (test_multilabel_intervals.py); Wilson is refused
    with pytest.raises(ValueError, match="is not available for multilabel input"):
        df.metrics.per_class("t", "p", ci=0.9, ci_method="wilson")
    with pytest.raises(ValueError, match="`kappa_weights` is for single-label"):
        df.metrics.summary("t", "p", kappa_weights="linear")
    with pytest.raises(ValueError, match="`samplewise` must be True or False"):
        df.metrics.multilabel_confusion_matrix("t", "p", samplewise="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="same multilabel form"):
        df.metrics.report("t", PMAP)
    with pytest.raises(ValueError, match="collides with an output column"):
        df.rename({"g": "label"}).metrics.per_class("t", "p", by="label")
    with pytest.raises(ValueError, match="collides with an output column"):
        df.rename({"g": "subset_accuracy"}).metrics.summary("t", "p", by="subset_accuracy")
    bad = pl.DataFrame({"t": [["a", "a"], ["b"]], "p": [["a"], []]})
    for method in ("per_class", "summary", "hamming_loss", "multilabel_confusion_matrix"):
        with pytest.raises(plm.DataError, match="'t' has 1 rows listing a label more than once"):
            getattr(bad.metrics, method)("t", "p")
    with pytest.raises(plm.DataError, match="more than once"):
        bad.metrics.multilabel_confusion_matrix("t", "p", samplewise=True)


def test_empty_frame() -> None:
    df = EMPTY_ROWS.clear()
    assert df.metrics.per_class("t", "p").height == 0
    assert df.metrics.averages(TMAP, PMAP, by="g").height == 0
    assert df.metrics.summary("t", "p").height == 0


@pytest.mark.parametrize(
    "method",
    ["averages", "summary", "hamming_loss", "multilabel_confusion_matrix", "per_class", "report"],
)
def test_one_list_column_as_both_truth_and_predictions(method: str) -> None:
    # averages("t", "t") raised a raw DuplicateError (the column's checks made twice);
    # it equals the same call on a copy of the column (checked against sklearn above)
    df = EMPTY_ROWS.select("t", "w")
    got = getattr(df.metrics, method)("t", "t", weight="w")
    assert_frame_equal(got, getattr(df.with_columns(u="t").metrics, method)("t", "u", weight="w"))
    sets = _matrix(EMPTY_ROWS, "t_", LABELS)
    if method == "summary":
        assert got["hamming_loss"].item() == skm.hamming_loss(sets, sets)  # 0.0
        assert got["subset_accuracy"].item() == skm.accuracy_score(sets, sets)  # 1.0
    bad = df.with_columns(t=pl.when(pl.int_range(pl.len()) > 0).then("t"))  # a null list
    with pytest.raises(plm.DataError, match="column 't'"):  # one error, naming the column
        pl.DataFrame(getattr(bad.metrics, method)("t", "t"))
