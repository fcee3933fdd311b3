"""Intervals from merged states: for a seed, the frame method's interval on all the rows.

The bootstrap redraws a segment's cells (a multinomial of its counts), drawn from a
generator seeded by ``seed`` and the segment's key: a merged state of un-weighted
counts holds everything it reads, so the state finished with ``ci`` must equal
the frame method on the concatenated rows *exactly* (the analytic intervals too,
but DeLong's, which the frame method may compute from sorted scores: ~1e-12).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import pl_metrics as plm

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def sharded(draw: st.DrawFn) -> dict:
    """Un-weighted rows, a split of them into 2-3 shards (some maybe empty), options."""
    n = draw(st.integers(1, 80))
    k = draw(st.integers(1, 4))
    rows = st.lists(st.integers(0, k), min_size=n, max_size=n)
    data = {
        "seg": draw(st.lists(st.sampled_from(["a", "b", None]), min_size=n, max_size=n)),
        "t": draw(rows),
        "p": draw(rows),
        "y": oracle.with_a_positive(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))),
        "s": draw(st.lists(st.integers(0, 20).map(lambda i: i / 20), min_size=n, max_size=n)),
    }
    df = pl.DataFrame(data)
    if draw(st.booleans()):  # string labels: other dtypes, the same draws
        df = df.with_columns(pl.col("t", "p").cast(pl.String))
    n_shards = draw(st.integers(2, 3))
    shard = pl.Series(draw(st.lists(st.integers(0, n_shards - 1), min_size=n, max_size=n)))
    return {
        "df": df,
        "shards": [df.filter(shard == i) for i in range(n_shards)],
        "by": draw(st.sampled_from([None, "seg"])),
        "seed": draw(st.integers(0, 2**32)),
        "lazy": draw(st.booleans()),
    }


def _merged(case: dict, make: Callable[[pl.DataFrame], pl.DataFrame]) -> pl.DataFrame:
    state = pl.concat([make(shard) for shard in case["shards"]])
    return state.lazy() if case["lazy"] else state  # type: ignore[return-value]


def _collected(frame: pl.DataFrame | pl.LazyFrame, lazy: bool) -> pl.DataFrame:
    assert isinstance(frame, pl.LazyFrame) is lazy
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


@SETTINGS
@given(case=sharded(), data=st.data())
def test_confusion_intervals_from_merged_states_equal_the_frame_methods(
    case: dict, data: st.DataObject
) -> None:
    df, by = case["df"], case["by"]
    state = plm.from_counts(_merged(case, lambda s: s.metrics.counts("t", "p", by=by)), by=by)
    ci = {"ci": data.draw(st.sampled_from([0.8, 0.95])), "n_boot": 60, "seed": case["seed"]}
    labels = data.draw(st.sampled_from([None, [2, 0, 7]]))
    if labels is not None and df.schema["t"] == pl.String:
        labels = [str(label) for label in labels]
    options = {
        "labels": labels,
        "beta": data.draw(st.sampled_from([1.0, 2.0])),
        "zero_division": data.draw(st.sampled_from([0.0, 1.0, math.nan])),
    }
    calls: list[tuple[str, dict[str, object]]] = [
        ("per_class", options),  # the delta method (the default)
        ("per_class", {**options, "ci_method": "wilson"}),
        ("per_class", {**options, "ci_method": "bootstrap"}),
        ("averages", options),
        ("report", options),
        ("report", {**options, "ci_method": "bootstrap"}),
        ("summary", {"labels": labels}),
        ("summary", {"labels": labels, "ci_method": "wilson", "kappa_weights": "quadratic"}),
    ]
    for method, kw in calls:
        got = _collected(getattr(state, method)(**kw, **ci), case["lazy"])
        expected = getattr(df.metrics, method)("t", "p", by=by, **kw, **ci)
        assert_frame_equal(got, expected, check_exact=True)


@SETTINGS
@given(case=sharded(), data=st.data())
def test_ranking_intervals_from_merged_states_equal_the_frame_methods(
    case: dict, data: st.DataObject
) -> None:
    df, by = case["df"], case["by"]
    bins = data.draw(st.sampled_from([None, 4]))
    state = plm.from_score_counts(
        _merged(case, lambda s: s.metrics.score_counts("y", "s", by=by, bins=bins)), by=by
    )
    ci = {"ci": 0.9, "n_boot": 60, "seed": case["seed"]}
    bound = {"error_bound": bins is not None}
    lazy = df.lazy()  # the counting path, as the state (the DataFrame may sort the scores)
    for method, kw in [
        ("roc_auc", bound),
        ("roc_auc", {**bound, "ci_method": "delong"}),
        ("average_precision", {}),
    ]:
        got = _collected(getattr(state, method)(**kw, **ci), case["lazy"])
        frame_kw = {k: v for k, v in kw.items() if k != "error_bound"}
        expected = getattr(lazy.metrics, method)("y", "s", by=by, bins=bins, **frame_kw, **ci)
        expected = expected.collect()
        # the binned error bound: float sums in the state's row order
        exact = [c for c in expected.columns if not c.endswith("_error_bound")]
        assert_frame_equal(got.select(exact), expected.select(exact), check_exact=True)
        assert_frame_equal(got, expected, rel_tol=1e-12, abs_tol=1e-15)


def test_delong_from_a_state_equals_the_sorted_frame_method() -> None:
    # continuous scores: the DataFrame method sorts them (_ranking.sorted_path), the state counts
    rng = np.random.default_rng(4)
    n = 6000
    df = pl.DataFrame(
        {"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n), "s": rng.random(n)}
    )
    shards = [df[:2500], df[2500:]]
    state = pl.concat([shard.metrics.score_counts("y", "s", by="g") for shard in shards])
    got = plm.from_score_counts(state, by="g").roc_auc(ci=0.95, ci_method="delong")
    expected = df.metrics.roc_auc("y", "s", by="g", ci=0.95, ci_method="delong")
    assert_frame_equal(got, expected, rel_tol=1e-12, abs_tol=1e-12)
    got = plm.from_score_counts(state, by="g").roc_auc(ci=0.95, n_boot=50, seed=9)
    assert_frame_equal(got, df.metrics.roc_auc("y", "s", by="g", ci=0.95, n_boot=50, seed=9))


# ------------------------------------------------------------------------------ errors
ROWS = pl.DataFrame(
    {"t": [0, 1, 1, 0, 2], "p": [0, 1, 0, 0, 2], "y": [0, 1, 1, 0, 1], "w": [1.0, 2.0, 1.0, 1, 1]}
).with_columns(s=pl.Series([0.1, 0.5, 0.3, 0.2, 0.9]))

WEIGHTED = "`ci` needs a state of un-weighted counts .* made with `weight=`"


@pytest.mark.parametrize("lazy", [False, True])
def test_a_state_made_with_weights_has_no_interval(lazy: bool) -> None:
    counts = ROWS.metrics.counts("t", "p", weight="w")
    scores = ROWS.metrics.score_counts("y", "s", weight="w")
    assert counts.schema["count"] == pl.Float64
    assert scores.schema["pos"] == scores.schema["neg"] == pl.Float64
    if lazy:
        counts, scores = counts.lazy(), scores.lazy()  # type: ignore[assignment]
    weighted_counts = plm.from_counts(counts)
    weighted_scores = plm.from_score_counts(scores)
    calls: list[Callable[[], object]] = [
        lambda: weighted_counts.per_class(ci=0.9),
        lambda: weighted_counts.per_class(ci=0.9, ci_method="wilson"),
        lambda: weighted_counts.averages(ci=0.9),
        lambda: weighted_counts.report(ci=0.9),
        lambda: weighted_counts.summary(ci=0.9, ci_method="wilson"),
        lambda: weighted_scores.roc_auc(ci=0.9),
        lambda: weighted_scores.roc_auc(ci=0.9, ci_method="delong"),
        lambda: weighted_scores.average_precision(ci=0.9),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=WEIGHTED):
            call()
    # the point estimates stay (the weighted point estimate alone)
    assert weighted_counts.report() is not None


def test_mixed_and_float_states_have_no_interval() -> None:
    plain = ROWS.metrics.counts("t", "p")
    weighted = ROWS.metrics.counts("t", "p", weight="w")
    with pytest.raises(pl.exceptions.SchemaError):  # polars refuses the mix itself
        pl.concat([plain, weighted])
    # a relaxed concat makes every count a float: refused, whatever the values
    relaxed = pl.concat([plain, weighted], how="vertical_relaxed")
    with pytest.raises(ValueError, match="state column 'count' is Float64"):
        plm.from_counts(relaxed).report(ci=0.9)
    # counts of rows stored as floats (or decimals): cast back to integers to get intervals
    for dtype in (pl.Float64, pl.Decimal(10, 0)):
        floated = plain.with_columns(pl.col("count").cast(dtype))
        with pytest.raises(ValueError, match="cast them to Int64"):
            plm.from_counts(floated).summary(ci=0.9)
        casted = floated.with_columns(pl.col("count").cast(pl.Int64))
        assert_frame_equal(
            plm.from_counts(casted).summary(ci=0.9), ROWS.metrics.summary("t", "p", ci=0.9)
        )
    one_float = ROWS.metrics.score_counts("y", "s").with_columns(pl.col("neg").cast(pl.Float32))
    with pytest.raises(ValueError, match="state column 'neg' is Float32"):
        plm.from_score_counts(one_float).average_precision(ci=0.9)
    # integer counts of any width are counts
    narrow = plain.with_columns(pl.col("count").cast(pl.UInt16))
    assert_frame_equal(
        plm.from_counts(narrow).report(ci=0.9, n_boot=50),
        ROWS.metrics.report("t", "p", ci=0.9, n_boot=50),
    )


def _same_error(state_call: Callable[[], object], frame_call: Callable[[], object]) -> None:
    with pytest.raises(Exception) as expected:  # noqa: PT011 - any error, compared below
        frame_call()
    with pytest.raises(type(expected.value)) as got:
        state_call()
    assert type(got.value) is type(expected.value)
    assert str(got.value) == str(expected.value)


BAD_OPTIONS: list[tuple[str, dict[str, object]]] = [
    ("report", {"ci": 1.5}),
    ("report", {"ci": 0}),
    ("report", {"ci": "0.9"}),
    ("report", {"ci": 0.9, "n_boot": 0}),
    ("report", {"ci": 0.9, "seed": -1}),
    ("report", {"ci": 0.9, "seed": 1.5}),
    ("report", {"ci": 0.9, "ci_method": "wilson"}),  # Wilson: per_class and summary only
    ("averages", {"ci": 0.9, "ci_method": "delong"}),
    ("per_class", {"ci": 0.9, "ci_method": "percentile"}),
    ("per_class", {"beta": 0, "ci": 2}),  # the options in the frame method's order
    ("summary", {"ci": 0.9, "kappa_weights": "linear"}),  # delta: no weighted kappa
    ("summary", {"ci": 0.9, "kappa_weights": "cubic"}),
    ("summary", {"ci": 0.9, "ci_method": "delong"}),
    ("roc_auc", {"ci": 0.9, "ci_method": "wilson"}),
    ("roc_auc", {"ci": 0.9, "n_boot": 2.5}),
    ("roc_auc", {"ci": 0.9, "max_fpr": 1.5}),
    ("average_precision", {"ci": 0.9, "ci_method": "delong"}),
    ("average_precision", {"ci": -0.1}),
]


@pytest.mark.parametrize(("method", "options"), BAD_OPTIONS)
def test_bad_interval_options_are_the_frame_methods_errors(
    method: str, options: dict[str, object]
) -> None:
    if method in ("roc_auc", "average_precision"):
        state: object = plm.from_score_counts(ROWS.metrics.score_counts("y", "s"))
        args = ("y", "s")
    else:
        state = plm.from_counts(ROWS.metrics.counts("t", "p"))
        args = ("t", "p")
    _same_error(
        lambda: getattr(state, method)(**options),
        lambda: getattr(ROWS.metrics, method)(*args, **options),
    )


def test_partial_auc_with_an_error_bound_or_an_interval_is_refused() -> None:
    # one message, naming the option that asks for the bound: `bins` or `error_bound`
    state = plm.from_score_counts(ROWS.metrics.score_counts("y", "s", bins=4))
    for options in ({"error_bound": True}, {"ci": 0.9}, {"error_bound": True, "ci": 0.9}):
        with pytest.raises(ValueError, match=r"`max_fpr` takes neither `error_bound`.* nor `ci`"):
            state.roc_auc(max_fpr=0.5, **options)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"`max_fpr` takes neither `bins`.* nor `ci`"):
        ROWS.metrics.roc_auc("y", "s", max_fpr=0.5, ci=0.9)


def test_a_by_column_named_like_an_interval_column_is_refused_with_ci() -> None:
    rows = ROWS.with_columns(pl.lit("x").alias("recall_low"))
    state = plm.from_counts(rows.metrics.counts("t", "p", by="recall_low"), by="recall_low")
    state.report()  # a segment column without ci: no collision
    for call in (
        lambda: state.report(ci=0.9),
        lambda: rows.metrics.report("t", "p", by="recall_low", ci=0.9),
    ):
        with pytest.raises(ValueError, match="`by` column 'recall_low' collides"):
            call()
    scored = ROWS.with_columns(pl.lit("x").alias("roc_auc_high"))
    scores = scored.metrics.score_counts("y", "s", by="roc_auc_high")
    with pytest.raises(ValueError, match="`by` column 'roc_auc_high' collides"):
        plm.from_score_counts(scores, by="roc_auc_high").roc_auc(ci=0.9, ci_method="delong")
