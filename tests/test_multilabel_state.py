"""The multilabel mergeable state: multilabel_counts + from_multilabel_counts.

Merged states of shards must give the frame methods' frames on all rows, and the
frame methods (hence the merged states) scikit-learn's numbers on the indicator
matrix; a corrupted state is refused with a DataError naming what is wrong.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
import sklearn.metrics as skm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics as plm

LABELS = ["a", "b", "c", "d"]
TMAP = {x: f"t_{x}" for x in LABELS}
PMAP = {x: f"p_{x}" for x in LABELS}


def _case(
    t: list[list[str]], p: list[list[str]], w: list[float] | None = None, g: list[int] | None = None
) -> pl.DataFrame:
    """List columns t, p, indicator columns t_a .. p_d, weights w, segments g."""
    n = len(t)
    df = pl.DataFrame(
        {"t": t, "p": p, "w": w or [1.0] * n, "g": g or [0] * n},
        schema={"t": pl.List(pl.String), "p": pl.List(pl.String), "w": pl.Float64, "g": pl.Int64},
    )
    return df.with_columns(
        *(pl.col("t").list.contains(pl.lit(x)).alias(f"t_{x}") for x in LABELS),
        *(pl.col("p").list.contains(pl.lit(x)).cast(pl.Int8).alias(f"p_{x}") for x in LABELS),
    )


#: (finisher on the state, the frame method on the rows) for each of the state's finishers.
Pair = tuple[Callable[[plm.MultilabelCountsState], object], Callable[..., object]]


def _pairs(beta: float, zero_division: float, labels: list[str] | None) -> dict[str, Pair]:
    opts = {"beta": beta, "zero_division": zero_division}
    return {
        "per_class": (
            lambda s: s.per_class(labels=labels, **opts),
            lambda m, t, p, **kw: m.per_class(t, p, **kw, **opts),
        ),
        "averages": (
            lambda s: s.averages(labels=labels, **opts),
            lambda m, t, p, **kw: m.averages(t, p, **kw, **opts),
        ),
        "report": (
            lambda s: s.report(labels=labels, **opts),
            lambda m, t, p, **kw: m.report(t, p, **kw, **opts),
        ),
        "summary": (lambda s: s.summary(), lambda m, t, p, **kw: m.summary(t, p, **kw)),
        "multilabel_confusion_matrix": (
            lambda s: s.multilabel_confusion_matrix(labels=labels),
            lambda m, t, p, **kw: m.multilabel_confusion_matrix(t, p, **kw),
        ),
        "hamming_loss": (
            lambda s: s.hamming_loss(),
            lambda m, t, p, **kw: m.hamming_loss(t, p, by=kw["by"], weight=kw["weight"]),
        ),
        "zero_one_loss": (
            lambda s: s.zero_one_loss(normalize=False),
            lambda m, t, p, **kw: m.zero_one_loss(
                t, p, by=kw["by"], weight=kw["weight"], normalize=False
            ),
        ),
    }


def _merged(
    df: pl.DataFrame, shard: list[int], form: str, *, by: str | None, weight: str | None
) -> plm.MultilabelCountsState[pl.DataFrame]:
    t, p = ("t", "p") if form == "lists" else (TMAP, PMAP)
    parts = df.with_columns(pl.Series("shard", shard)).partition_by(
        "shard", include_key=False, maintain_order=True
    )
    states = [s.metrics.multilabel_counts(t, p, by=by, weight=weight) for s in parts]
    state = pl.concat(states).sample(fraction=1.0, shuffle=True, seed=1)
    return plm.from_multilabel_counts(state, by=by)


def _check_merged(
    df: pl.DataFrame,
    shard: list[int],
    *,
    form: str,
    weighted: bool,
    segmented: bool,
    beta: float = 1.0,
    zero_division: float = 0.0,
) -> None:
    by, weight = ("g" if segmented else None), ("w" if weighted else None)
    t, p = ("t", "p") if form == "lists" else (TMAP, PMAP)
    merged = _merged(df, shard, form, by=by, weight=weight)
    for name, (finish, method) in _pairs(beta, zero_division, None).items():
        expected = method(df.metrics, t, p, by=by, weight=weight)
        assert isinstance(expected, pl.DataFrame)
        got = finish(merged)
        assert isinstance(got, pl.DataFrame)
        assert got.columns == expected.columns, name
        assert_frame_equal(got, expected, rel_tol=1e-9, abs_tol=1e-12)


def _indicator(df: pl.DataFrame, prefix: str) -> np.ndarray:
    return df.select(pl.col(f"{prefix}{x}").cast(pl.Int64) for x in LABELS).to_numpy()


def _check_sklearn(merged: plm.MultilabelCountsState[pl.DataFrame], df: pl.DataFrame) -> None:
    """The merged state of the mapping form (label set: LABELS) against scikit-learn."""
    yt, yp, w = _indicator(df, "t_"), _indicator(df, "p_"), df["w"].to_numpy()
    avg = merged.averages()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for row in avg.iter_rows(named=True):
            prf = skm.precision_recall_fscore_support(
                yt, yp, average=row["average"], sample_weight=w, zero_division=0.0
            )
            got = [row["precision"], row["recall"], row["f1"]]
            np.testing.assert_allclose(got, prf[:3], rtol=1e-9)
            jac = skm.jaccard_score(yt, yp, average=row["average"], sample_weight=w)
            np.testing.assert_allclose(row["jaccard"], jac, rtol=1e-9)
    summary = merged.summary().row(0, named=True)
    np.testing.assert_allclose(summary["n"], w.sum(), rtol=1e-12)
    np.testing.assert_allclose(
        summary["subset_accuracy"], skm.accuracy_score(yt, yp, sample_weight=w), rtol=1e-9
    )
    np.testing.assert_allclose(
        summary["hamming_loss"], skm.hamming_loss(yt, yp, sample_weight=w), rtol=1e-9
    )
    np.testing.assert_allclose(
        merged.zero_one_loss()["zero_one_loss"][0],
        skm.zero_one_loss(yt, yp, sample_weight=w),
        rtol=1e-9,
    )
    mcm = skm.multilabel_confusion_matrix(yt, yp, sample_weight=w)
    cm = merged.multilabel_confusion_matrix()
    np.testing.assert_allclose(cm.select("tn", "fp", "fn", "tp").to_numpy(), mcm.reshape(-1, 4))


label_sets = st.lists(st.sampled_from(LABELS), unique=True, max_size=4)


@st.composite
def sharded(draw: st.DrawFn) -> tuple[pl.DataFrame, list[int]]:
    n = draw(st.integers(1, 14))
    t = [draw(label_sets) for _ in range(n)]
    p = [draw(label_sets) for _ in range(n)]
    w = [draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25])) for _ in range(n)]
    g = [draw(st.integers(0, 2)) for _ in range(n)]
    shard = [draw(st.integers(0, 2)) for _ in range(n)]
    return _case(t, p, w, g), shard


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=sharded(),
    form=st.sampled_from(["lists", "mapping"]),
    weighted=st.booleans(),
    segmented=st.booleans(),
    beta=st.sampled_from([1.0, 2.0]),
    zero_division=st.sampled_from([0.0, 1.0, float("nan")]),
)
def test_merged_states_equal_the_frame_methods(
    case: tuple[pl.DataFrame, list[int]],
    form: str,
    weighted: bool,
    segmented: bool,
    beta: float,
    zero_division: float,
) -> None:
    df, shard = case
    _check_merged(
        df,
        shard,
        form=form,
        weighted=weighted,
        segmented=segmented,
        beta=beta,
        zero_division=zero_division,
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=sharded())
def test_merged_states_against_sklearn(case: tuple[pl.DataFrame, list[int]]) -> None:
    df, shard = case
    if df["w"].sum() == 0:  # scikit-learn divides by the total weight
        return
    _check_sklearn(_merged(df, shard, "mapping", by=None, weight="w"), df)


HARD = {
    # empty sets, a label never predicted (d), one never true (c in p only)
    "empty-rows": _case([[], ["a"], [], ["b", "c"]], [[], [], ["c"], ["b"]]),
    "no-labels": _case([[]], [[]]),
    "one-label": _case([["a"]], [["a"]]),
    "huge-weights": _case([["a", "b"], ["a"]], [["a", "b"], ["a"]], [1e-300, 1e300]),
}


@pytest.mark.parametrize("form", ["lists", "mapping"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", sorted(HARD))
def test_hard_cases(name: str, form: str, weighted: bool) -> None:
    df = HARD[name]
    shard = [i % 2 for i in range(df.height)]
    for zero_division in (0.0, float("nan")):
        _check_merged(
            df, shard, form=form, weighted=weighted, segmented=True, zero_division=zero_division
        )
    if weighted and form == "mapping":
        _check_sklearn(_merged(df, shard, "mapping", by=None, weight="w"), df)


def test_mapping_labels_never_set_stay_in_the_state() -> None:
    df = _case([["a"], ["b"]], [["a"], []])
    state = df.metrics.multilabel_counts(TMAP, PMAP)
    labels = state.filter(part="label")
    assert labels["label"].to_list() == LABELS
    assert labels.filter(pl.col("label").is_in(["c", "d"]))["support"].to_list() == [0, 0]
    merged = plm.from_multilabel_counts(pl.concat([state, state.head(0)]))
    assert merged.per_class()["label"].to_list() == LABELS


def test_state_schema_and_labels_subset() -> None:
    df = _case([["a", "b"], ["c"], []], [["b"], ["c", "d"], ["a"]], g=[1, 1, 2])
    state = df.metrics.multilabel_counts("t", "p", by="g", labels=["c", "a"])
    assert state.columns == [
        "g",
        "part",
        "label",
        "support",
        "predicted",
        "tp",
        "n_true",
        "n_pred",
        "n_common",
        "count",
    ]
    assert state.schema["count"] == pl.Int64
    assert set(state.filter(part="label")["label"]) == {"a", "c"}
    merged = plm.from_multilabel_counts(state, by="g")
    expected = df.metrics.report("t", "p", by="g", labels=["c", "a"])
    assert_frame_equal(merged.report(labels=["c", "a"]), expected)
    # the default order is sorted; a finisher's labels= reorders (all of them)
    assert merged.per_class()["label"].to_list() == ["a", "c", "a", "c"]
    with pytest.raises(ValueError, match=r"`labels` must be the labels of the multilabel state"):
        merged.per_class(labels=["a"])
    with pytest.raises(ValueError, match=r"not in the state: \['b'\]"):
        merged.per_class(labels=["a", "c", "b"])
    weighted = df.metrics.multilabel_counts("t", "p", weight="w")
    assert weighted.schema["count"] == pl.Float64
    assert weighted.schema["support"] == pl.Float64


def test_lazy_state_gives_lazy_frames_and_streams() -> None:
    df = _case([["a", "b"], ["c"], []], [["b"], ["c", "d"], ["a"]], g=[1, 1, 2])
    lazy_state = df.lazy().metrics.multilabel_counts("t", "p", by="g")
    assert isinstance(lazy_state, pl.LazyFrame)
    merged = plm.from_multilabel_counts(pl.concat([lazy_state, lazy_state]), by="g")
    got = merged.averages()
    assert isinstance(got, pl.LazyFrame)
    doubled = pl.concat([df, df])
    expected = doubled.metrics.averages("t", "p", by="g")
    assert_frame_equal(got.collect(engine="streaming"), expected)
    assert_frame_equal(got.collect(engine="in-memory"), expected)


def test_unweighted_state_gives_the_rows_numbers_to_the_last_bit() -> None:
    """Unweighted counts are integers, so a merged state must give exactly the rows'
    floats: the samples means add the histogram in one order on every path (the
    streaming engine's ``sum`` in ``agg`` added partial sums in whichever order its
    threads finished, so two calls on one state differed in the last bit)."""
    rng = np.random.default_rng(3)
    n = 6000
    t = [list(rng.choice(LABELS, rng.integers(0, 4), replace=False)) for _ in range(n)]
    p = [list(rng.choice(LABELS, rng.integers(0, 4), replace=False)) for _ in range(n)]
    df = _case(t, p, g=list(rng.integers(0, 3, n)))
    halves = df.with_columns(half=pl.int_range(pl.len()) % 2).partition_by("half")
    states = [h.metrics.multilabel_counts("t", "p", by="g") for h in halves]
    merged = plm.from_multilabel_counts(pl.concat(states), by="g")
    expected_report = df.metrics.report("t", "p", by="g", zero_division=float("nan"))
    expected_summary = df.metrics.summary("t", "p", by="g")
    for _ in range(15):
        assert merged.report(zero_division=float("nan")).equals(expected_report)
        assert merged.summary().equals(expected_summary)


def test_empty_frame() -> None:
    df = _case([["a"]], [["a"]]).head(0)
    state = df.metrics.multilabel_counts("t", "p", by="g")
    assert state.height == 0
    merged = plm.from_multilabel_counts(state, by="g")
    for name, (finish, method) in _pairs(1.0, 0.0, None).items():
        expected = method(df.metrics, "t", "p", by="g", weight=None)
        got = finish(merged)  # type: ignore[arg-type]
        assert isinstance(got, pl.DataFrame), name
        assert_frame_equal(got, expected)


# ------------------------------------------------------------------------ bad states
STATE = _case([["a", "b"], ["c"], [], ["a"]], [["b"], ["c", "d"], ["a"], []], g=[1, 1, 2, 2])


def _state() -> pl.DataFrame:
    return STATE.metrics.multilabel_counts("t", "p", by="g")


def _at(df: pl.DataFrame, part: str, column: str, value: object) -> pl.DataFrame:
    """The state with ``column`` set to ``value`` in the first row of ``part``."""
    first = (pl.col("part") == part) & (pl.int_range(pl.len()).over("part") == 0)
    return df.with_columns(
        pl.when(first).then(pl.lit(value)).otherwise(pl.col(column)).alias(column)
    )


BAD_STATES: dict[str, tuple[Callable[[pl.DataFrame], pl.DataFrame], str]] = {
    "unknown part": (lambda s: _at(s, "rows", "part", "row"), "neither 'label' nor 'rows'"),
    "null part": (lambda s: _at(s, "rows", "part", None), "neither 'label' nor 'rows'"),
    "null n_true": (lambda s: _at(s, "rows", "n_true", None), "n_true, n_pred, n_common"),
    "negative n_pred": (lambda s: _at(s, "rows", "n_pred", -1), "n_true, n_pred, n_common"),
    "n_common too big": (lambda s: _at(s, "rows", "n_common", 5), "n_common"),
    "negative count": (lambda s: _at(s, "rows", "count", -1), "'count'.*negative"),
    "null count": (lambda s: _at(s, "rows", "count", None), "'count'.*null"),
    "null label": (lambda s: _at(s, "label", "label", None), "'label'.*null"),
    "tp above support": (
        lambda s: _at(s, "label", "tp", 9),
        "'tp' exceeds|does not sum to the 'rows' part",
    ),
    "a part dropped": (
        lambda s: s.filter((pl.col("part") == "label") | (pl.col("n_true") != 2)),
        "does not sum to the 'rows' part",
    ),
    "a label's count moved": (
        lambda s: _at(_at(s, "label", "support", 0), "label", "tp", 0),
        "does not sum to the 'rows' part",
    ),
    "more rows with a label than rows": (
        lambda s: _at(s, "label", "predicted", 4),
        "'predicted' - 'tp' exceeds the segment's rows|does not sum",
    ),
}


def _collected(frame: object) -> object:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


@pytest.mark.parametrize("case", sorted(BAD_STATES))
@pytest.mark.parametrize("lazy", [False, True])
def test_corrupted_states_are_refused(case: str, lazy: bool) -> None:
    spoil, match = BAD_STATES[case]
    bad = spoil(_state())
    state: pl.DataFrame | pl.LazyFrame = bad.lazy() if lazy else bad
    for finish in (
        lambda s: s.per_class(),
        lambda s: s.averages(),
        lambda s: s.summary(),
        lambda s: s.hamming_loss(),
    ):
        with pytest.raises(plm.DataError, match=match):
            _collected(finish(plm.from_multilabel_counts(state, by="g")))


def test_schema_errors_of_a_state() -> None:
    state = _state()
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="n_common"):
        plm.from_multilabel_counts(state.drop("n_common"), by="g")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="'h'"):
        plm.from_multilabel_counts(state, by="h").summary()
    with pytest.raises(pl.exceptions.SchemaError, match="'n_true' must be integers"):
        plm.from_multilabel_counts(state.with_columns(pl.col("n_true").cast(pl.Float64)), by="g")
    with pytest.raises(pl.exceptions.SchemaError, match="'count' must be numeric"):
        plm.from_multilabel_counts(state.with_columns(pl.col("count").cast(pl.String)), by="g")
    with pytest.raises(TypeError, match="names columns of the state"):
        plm.from_multilabel_counts(state, by=pl.col("g"))
    with pytest.raises(ValueError, match="`by` column 'n' collides"):
        plm.from_multilabel_counts(state.rename({"g": "n"}), by="n").summary()


def test_weighted_states_merge_within_float_tolerance() -> None:
    rng = np.random.default_rng(4)
    n = 300
    t = [sorted(rng.choice(LABELS, rng.integers(0, 4), replace=False)) for _ in range(n)]
    p = [sorted(rng.choice(LABELS, rng.integers(0, 4), replace=False)) for _ in range(n)]
    w = (rng.random(n) * 1e3).round(6).tolist()
    df = _case(t, p, w, rng.integers(0, 3, n).tolist())
    shard = rng.integers(0, 5, n).tolist()
    _check_merged(df, shard, form="lists", weighted=True, segmented=True)
