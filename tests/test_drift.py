"""drift against SciPy and the definitions (``../shared/API.md``): PSI and the
Jensen-Shannon distance of the binned proportions, the two-sample KS statistic and
the Wasserstein distance of the values, per segment of the current rows."""

from __future__ import annotations

import datetime as dt
import math

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy.spatial.distance import jensenshannon
from scipy.stats import ks_2samp, wasserstein_distance

import pl_metrics as plm


def _js(p: object, q: object) -> float:
    """SciPy's ``jensenshannon(p, q, base=2)``; where its divergence rounds below 0
    (the same shares, e.g. [0.6, 0.4] twice, found by hypothesis) it takes the
    square root of a negative number and gives NaN: the distance is 0 there."""
    d = float(jensenshannon(p, q, base=2))
    if math.isnan(d):
        p_, q_ = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
        np.testing.assert_allclose(p_ / p_.sum(), q_ / q_.sum(), rtol=0, atol=1e-12)
        return 0.0
    return d


def _expected(ref: list, cur: list, numeric: bool, bins: int, eps: float) -> dict:
    """One column of one segment, by the definitions:

    - numeric bins: edges = np.quantile(reference's non-null values, j / bins) for j = 1
      ... bins - 1 (numpy's default: linear), duplicates dropped; a value's bin is the
      first whose upper edge is >= it, ``np.searchsorted(edges, x, side="left")``;
    - categories: a bin per value of either side; nulls (and NaN): one more bin;
    - p, q the proportions over every row; psi = sum (q - p) ln(q / p), a proportion
      of 0 replaced by eps; js = scipy's jensenshannon(p, q, base=2);
    - ks / wasserstein: scipy on the non-null values (None for categories or an
      empty side)."""

    def missing(x: object) -> bool:
        return x is None or (isinstance(x, float) and math.isnan(x))

    if numeric:
        values = np.array([x for x in ref if not missing(x)], dtype=float)
        # no edge with one bin, or no reference value: every value in one bin
        qs = [j / bins for j in range(1, bins)]
        edges = np.unique(np.quantile(values, qs)) if qs and values.size else np.array([])

        def key(x: object) -> object:
            return None if missing(x) else int(np.searchsorted(edges, x, side="left"))
    else:

        def key(x: object) -> object:
            return None if missing(x) else x

    ref_keys, cur_keys = [key(x) for x in ref], [key(x) for x in cur]
    bins_ = sorted(set(ref_keys) | set(cur_keys), key=repr)
    p = np.array([ref_keys.count(b) for b in bins_]) / len(ref)
    q = np.array([cur_keys.count(b) for b in bins_]) / len(cur)
    BINS.clear()  # the bins, for drift_bins' test: (key, p, q, current rows), edges
    BINS.update(
        rows=[(b, p[i], q[i], cur_keys.count(b)) for i, b in enumerate(bins_)],
        edges=edges if numeric else None,
    )
    p_, q_ = np.where(p == 0, eps, p), np.where(q == 0, eps, q)
    out = {
        "n_reference": len(ref),
        "n_current": len(cur),
        "psi": float(np.sum((q_ - p_) * np.log(q_ / p_))),
        "js_distance": _js(p, q),
        "ks": None,
        "wasserstein": None,
    }
    r = [x for x in ref if not missing(x)]
    c = [x for x in cur if not missing(x)]
    if numeric and r and c:
        out["ks"] = float(ks_2samp(r, c).statistic)
        out["wasserstein"] = float(wasserstein_distance(r, c))
    return out


#: The bins of the last ``_expected`` call.
BINS: dict = {}


def _close(got: dict, expected: dict) -> None:
    for name, want in expected.items():
        value = got[name]
        if want is None:
            assert value is None, (name, value)
        elif name.startswith("n_"):
            assert value == want, (name, value, want)
        else:
            assert value == pytest.approx(want, rel=1e-9, abs=1e-12), (name, value, want)


NUMBERS = st.one_of(
    st.integers(-3, 3).map(float),  # ties
    st.floats(-5, 5, allow_nan=False, allow_infinity=False),
    st.just(None),
    st.just(float("nan")),
)
WORDS = st.one_of(st.sampled_from(["a", "b", "c", "d"]), st.just(None))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=st.lists(st.tuples(NUMBERS, WORDS), min_size=1, max_size=40),
    cur=st.lists(st.tuples(NUMBERS, WORDS, st.sampled_from(["s", "t"])), min_size=1, max_size=50),
    # beyond 64 edges a value's bin is a binary search (metrics._FEW_EDGES): with 40
    # reference values, bins of 66 and more cut up to bins - 1 interpolated edges
    bins=st.integers(1, 6) | st.integers(66, 300),
    eps=st.sampled_from([1e-4, 1e-2]),
    as_expression=st.booleans(),
)
def test_drift_equals_the_definitions_and_scipy(
    ref: list, cur: list, bins: int, eps: float, as_expression: bool
) -> None:
    schema = {"x": pl.Float64, "w": pl.String, "g": pl.String}
    reference = pl.DataFrame([(*r, "s") for r in ref], schema=schema, orient="row")
    current = pl.DataFrame(cur, schema=schema, orient="row")
    if as_expression:  # one frame, the reference rows marked
        both = pl.concat([reference.with_columns(ref=True), current.with_columns(ref=False)])
        got = both.metrics.drift(["x", "w"], reference=pl.col("ref"), by="g", bins=bins, eps=eps)
    else:
        got = current.metrics.drift(["x", "w"], reference=reference, by="g", bins=bins, eps=eps)
    segments = sorted(set(current["g"]))
    assert got.select("g", "column").rows() == [(g, c) for g in segments for c in ("x", "w")]
    for row in got.iter_rows(named=True):
        rows = current.filter(pl.col("g") == row["g"])
        column = row["column"]
        expected = _expected(
            reference[column].to_list(), rows[column].to_list(), column == "x", bins, eps
        )
        _close(row, expected)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=st.lists(st.tuples(NUMBERS, WORDS), min_size=1, max_size=40),
    cur=st.lists(st.tuples(NUMBERS, WORDS, st.sampled_from(["s", "t"])), min_size=1, max_size=50),
    bins=st.integers(1, 6) | st.integers(66, 300),  # both ways of binning
)
# two edges alike at 6 digits (0.99999 and 0.9999902): their labels take a 7th
@example(ref=[(0.99999, None), (1.0, None)], cur=[(float("nan"), None, "t")], bins=66)
def test_drift_bins_are_the_definitions_bins(ref: list, cur: list, bins: int) -> None:
    """Each segment's bins of each column, in order (numbers ascending, categories
    sorted, the null bin last), with the definitions' shares (``_expected``), the
    numeric bins' edges (-inf and inf at the ends) and the current rows; PSI and JS
    summed over them are drift's."""
    schema = {"x": pl.Float64, "w": pl.String, "g": pl.String}
    reference = pl.DataFrame([(*r, "s") for r in ref], schema=schema, orient="row")
    current = pl.DataFrame(cur, schema=schema, orient="row")
    got = current.metrics.drift_bins(["x", "w"], reference=reference, by="g", bins=bins)
    drift = current.metrics.drift(["x", "w"], reference=reference, by="g", bins=bins)
    for (g, column), part in got.group_by(["g", "column"], maintain_order=True):
        rows = current.filter(pl.col("g") == g)
        _expected(reference[column].to_list(), rows[column].to_list(), column == "x", bins, 1e-4)
        want = sorted(
            BINS["rows"], key=lambda r: (r[0] is None, r[0] or 0 if column == "x" else r[0] or "")
        )
        assert len(part) == len(want)
        for row, (key, p, q, n) in zip(part.iter_rows(named=True), want, strict=True):
            assert row["reference_share"] == pytest.approx(p, rel=1e-12)
            assert row["current_share"] == pytest.approx(q, rel=1e-12)
            assert row["current_rows"] == n
            if key is None:
                assert (row["bin"], row["lower"], row["upper"]) == (None, None, None)
            elif column == "w":
                assert (row["bin"], row["lower"], row["upper"]) == (key, None, None)
            else:
                bounds = [-math.inf, *BINS["edges"], math.inf]
                # numpy's quantile, to the bit (a -0.0 edge may read 0.0: equal)
                assert row["lower"] == bounds[key]
                assert row["upper"] == bounds[key + 1]
                # 6 significant digits, or the fewest more that tell every two edges
                # apart (drift_bins' docstring: each bin's name is its own)
                digits = next(
                    (d for d in range(6, 18) if len({f"{b:.{d}g}" for b in bounds}) == len(bounds)),
                    None,
                )
                lower, upper = row["lower"], row["upper"]
                if digits is None:
                    assert row["bin"] == f"({lower!r}, {upper!r}]"
                else:
                    assert row["bin"] == f"({lower:.{digits}g}, {upper:.{digits}g}]"
        expected = drift.filter((pl.col("g") == g) & (pl.col("column") == column)).row(
            0, named=True
        )
        p, q = part["reference_share"].to_numpy(), part["current_share"].to_numpy()
        assert _js(p, q) == pytest.approx(expected["js_distance"], abs=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=st.lists(st.tuples(NUMBERS, WORDS), min_size=1, max_size=40),
    cur=st.lists(
        st.tuples(NUMBERS, WORDS, st.sampled_from(["s", "t"]), st.booleans()),
        min_size=1,
        max_size=50,
    ),
    bins=st.integers(1, 6),
    eps=st.sampled_from([1e-4, 1e-2]),
)
def test_drift_from_merged_counts_is_drift(ref: list, cur: list, bins: int, eps: float) -> None:
    """The reference counted once (its own edges), the current rows in two shards at
    the reference's edges, the shards' states concatenated: from_drift_counts gives
    drift's n_reference, n_current, psi and js_distance; a state's edges are the
    ones drift_bins shows."""
    schema = {"x": pl.Float64, "w": pl.String}
    reference = pl.DataFrame(ref, schema=schema, orient="row")
    current = pl.DataFrame(cur, schema=schema | {"g": pl.String, "shard": pl.Boolean}, orient="row")
    ref_state = reference.metrics.drift_counts(["x", "w"], bins=bins)
    edges = plm.drift_edges(ref_state)
    shards = [
        current.filter(pl.col("shard") == side).metrics.drift_counts(
            ["x", "w"], edges=edges, by="g"
        )
        for side in (True, False)
    ]
    got = plm.from_drift_counts(ref_state, pl.concat(shards), by="g", eps=eps)
    expected = current.metrics.drift(["x", "w"], reference=reference, by="g", bins=bins, eps=eps)
    columns = ["g", "column", "n_reference", "n_current", "psi", "js_distance"]
    assert_frame_equal(
        got, expected.select(columns), check_exact=False, rel_tol=1e-12, abs_tol=1e-12
    )
    # the edges are the reference's quantiles (the definitions', numpy's, to the bit)
    _expected(reference["x"].to_list(), current["x"].to_list(), True, bins, eps)
    np.testing.assert_array_equal(edges["x"], BINS["edges"])


def test_close_edges_keep_their_bins_apart() -> None:
    """Values spread over 1e-6 around 1: ten edges equal to 6 significant digits.
    Each bin keeps its own name (more digits where needed), so drift_bins shows ten
    bins and the merged states give drift's numbers (a name shared by several bins
    joined each bin to several: 3,327 current rows out of 800)."""
    x = 1 + np.random.default_rng(0).random(1600) * 1e-6
    ref, cur = pl.DataFrame({"x": x[:800]}), pl.DataFrame({"x": x[800:]})
    shown = cur.metrics.drift_bins("x", reference=ref)
    assert shown["bin"].n_unique() == shown.height == 10
    state = ref.metrics.drift_counts("x")
    merged = plm.from_drift_counts(
        state, cur.metrics.drift_counts("x", edges=plm.drift_edges(state))
    )
    expected = cur.metrics.drift("x", reference=ref)
    assert merged["n_current"].item() == 800
    assert merged["psi"].item() == pytest.approx(expected["psi"].item(), rel=1e-12)
    assert merged["js_distance"].item() == pytest.approx(expected["js_distance"].item(), rel=1e-12)


def test_drift_counts_refusals() -> None:
    """Edges missing, not ascending or not numeric; the current rows counted at other
    edges; a reference state with segments; edges required on shards."""
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0], "w": ["a", "b", "a"], "g": [0, 0, 1]})
    with pytest.raises(ValueError, match=r"every numeric column.*missing \['x'\]"):
        df.metrics.drift_counts(["x", "w"], edges={})
    with pytest.raises(ValueError, match=r"not numeric or not compared \['w'\]"):
        df.metrics.drift_counts(["x", "w"], edges={"x": [1.5], "w": [1.0]})
    with pytest.raises(ValueError, match="strictly ascending"):
        df.metrics.drift_counts("x", edges={"x": [2.0, 1.0]})
    with pytest.raises(TypeError, match="`edges` must be None or a mapping"):
        df.metrics.drift_counts("x", edges=[1.0])
    ref = df.metrics.drift_counts("x", bins=2)
    other = df.metrics.drift_counts("x", edges={"x": [1.2]})
    with pytest.raises(ValueError, match="not binned at the reference's edges"):
        plm.from_drift_counts(ref, other)
    with pytest.raises(ValueError, match="the reference is one sample"):
        plm.from_drift_counts(df.metrics.drift_counts("x", by="g"), ref)
    # the same columns, of the same kind, on both sides (as drift)
    both = df.metrics.drift_counts(["x", "w"], bins=2)
    with pytest.raises(ValueError, match="must count the same columns"):
        plm.from_drift_counts(both, df.metrics.drift_counts("x", edges={"x": [1.5]}))
    text = df.with_columns(pl.col("x").cast(pl.String))
    with pytest.raises(pl.exceptions.SchemaError, match=r"'x' is text .* numeric in the reference"):
        plm.from_drift_counts(ref, text.metrics.drift_counts("x"))
    from pl_metrics._drift import state as drift_state

    with pytest.raises(ValueError, match="`edges` is required on shards"):
        drift_state.shard_job("x", None, None)


def test_drift_by_week_eager_lazy_streaming_and_parquet(tmp_path: object) -> None:
    """Weekly drift with ``by=`` an expression: the same on every path, and each
    week's row the drift of that week's rows alone."""
    rng = np.random.default_rng(3)
    n = 3000
    day = [dt.date(2026, 1, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 60, n)]
    df = pl.DataFrame(
        {
            "day": day,
            "x": rng.normal(size=n) + np.array([d.toordinal() for d in day]) / 200,
            "k": rng.choice(["a", "b", "c"], n),
        }
    )
    reference = pl.col("day") < dt.date(2026, 1, 15)
    week = pl.col("day").dt.truncate("1w").alias("week")
    args = {"reference": reference, "by": week, "bins": 8}
    eager = df.metrics.drift(["x", "k"], **args)
    path = tmp_path / "d.parquet"  # type: ignore[operator]
    df.write_parquet(path)
    for other in (
        df.lazy().metrics.drift(["x", "k"], **args).collect(engine="streaming"),
        df.lazy().metrics.drift(["x", "k"], **args).collect(engine="in-memory"),
        pl.scan_parquet(path).metrics.drift(["x", "k"], **args).collect(),
    ):
        oracle.assert_close(other, eager)  # sums over the bins: any order, 1e-9
    ref = df.filter(reference)
    for row in eager.iter_rows(named=True):
        rows = df.filter(~reference & (pl.col("day").dt.truncate("1w") == row["week"]))
        column = row["column"]
        expected = _expected(ref[column].to_list(), rows[column].to_list(), column == "x", 8, 1e-4)
        _close(row, expected)
    # the drifting column drifts more every week: a sanity check of the example data
    psi = eager.filter(pl.col("column") == "x")["psi"].to_list()
    assert psi[-1] > psi[0]


def test_drift_integer_and_boolean_columns() -> None:
    ref = pl.DataFrame({"i": [1, 2, 2, 3, 9], "b": [True, False, True, None, True]})
    cur = pl.DataFrame({"i": [2, 3, 3, 4], "b": [False, False, None, True]})
    got = cur.metrics.drift(["i", "b"], reference=ref.lazy(), bins=3)
    for row in got.iter_rows(named=True):
        column = row["column"]
        numeric = column == "i"
        _close(row, _expected(ref[column].to_list(), cur[column].to_list(), numeric, 3, 1e-4))


def test_drift_refuses_what_it_cannot_compare() -> None:
    df = pl.DataFrame({"x": [1.0, 2.0, 3.0], "s": ["a", "b", "a"], "ref": [True, None, False]})
    with pytest.raises(plm.DataError, match="`reference` is null on 1 rows"):
        df.metrics.drift("x", reference=pl.col("ref"))
    with pytest.raises(plm.DataError, match="`reference` has no rows"):
        df.metrics.drift("x", reference=pl.col("x") > 5)
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"'x'.*not found in the reference"):
        df.metrics.drift("x", reference=pl.DataFrame({"y": [1.0]}))
    with pytest.raises(pl.exceptions.SchemaError, match=r"'s'.*String here and Int64 in the ref"):
        df.metrics.drift("s", reference=pl.DataFrame({"s": [1]}))
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="'nope'"):
        df.metrics.drift("nope", reference=df)
    with pytest.raises(TypeError, match="`reference` must be a polars DataFrame"):
        df.metrics.drift("x", reference="train.parquet")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="`columns` must be a column name or a list"):
        df.metrics.drift(["x", "x"], reference=df)
    with pytest.raises(ValueError, match="`eps` must be a number in"):
        df.metrics.drift("x", reference=df, eps=0)
    with pytest.raises(ValueError, match="`bins`"):
        df.metrics.drift("x", reference=df, bins=0)
    with pytest.raises(ValueError, match="`by` column 'psi' collides"):
        df.rename({"s": "psi"}).metrics.drift("x", reference=df, by="psi")


def test_drift_infinities_and_integers_beyond_exact_floats() -> None:
    """KS with infinite values is SciPy's; the Wasserstein distance is then null (SciPy:
    inf or nan); integers beyond 2**53 are refused (as Float64 they would tie: KS 0.25
    where SciPy gives 0.5 on the integers)."""
    ref = pl.DataFrame({"x": [1.0, 2.0, float("inf"), float("-inf"), 3.0, 4.0]})
    cur = pl.DataFrame({"x": [1.0, 2.0, 5.0, 0.5], "g": ["a", "a", "b", "b"]})
    got = cur.metrics.drift("x", reference=ref, by="g")
    for g, ks, w in got.select("g", "ks", "wasserstein").iter_rows():
        values = cur.filter(pl.col("g") == g)["x"].to_list()
        assert ks == pytest.approx(ks_2samp(ref["x"].to_list(), values).statistic, abs=1e-15)
        assert w is None
    big = pl.DataFrame({"x": [2**62, 2**62 + 1, 2**62 + 2, 5]})
    with pytest.raises(plm.DataError, match=r"'x' \(argument `columns`\) has 4 integer values"):
        pl.DataFrame({"x": [2**62 + 1, 5]}).metrics.drift("x", reference=big)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=st.lists(
        st.one_of(st.integers(-3, 3).map(float), st.floats(-5, 5)), min_size=1, max_size=40
    ),
    cur=st.lists(
        st.tuples(st.one_of(st.integers(-3, 3).map(float), st.floats(-5, 5)), st.integers(0, 3)),
        min_size=1,
        max_size=60,
    ),
    chunk=st.integers(1, 7),
)
def test_sorted_distances_in_chunks_are_scipys_and_a_segments_own(
    ref: list, cur: list, chunk: int
) -> None:
    """KS and Wasserstein are worked out in chunks of the sorted current values (a
    segment may span several, a chunk several segments; ties run across cuts): each
    segment's equal SciPy's, and equal, bit for bit, the same segment's alone (its
    chunks are cut from its own start, whatever the other segments)."""
    from pl_metrics._drift import distances

    reference = pl.DataFrame({"x": ref}, schema={"x": pl.Float64})
    current = pl.DataFrame(cur, schema={"x": pl.Float64, "g": pl.Int64}, orient="row")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(distances, "CHUNK", chunk)
        got = current.metrics.drift("x", reference=reference, by="g")
        alone = {
            g: current.filter(pl.col("g") == g).metrics.drift("x", reference=reference)
            for g in got["g"]
        }
    for g, ks, w in got.select("g", "ks", "wasserstein").iter_rows():
        values = current.filter(pl.col("g") == g)["x"].to_list()
        assert ks == pytest.approx(ks_2samp(ref, values).statistic, rel=1e-12, abs=1e-15)
        assert w == pytest.approx(wasserstein_distance(ref, values), rel=1e-9, abs=1e-12)
        assert (ks, w) == alone[g].select("ks", "wasserstein").row(0)


def _slices_of(current: object, **kwargs: object) -> tuple[pl.DataFrame, list[int]]:
    """``current.metrics.drift("x", **kwargs)`` and how many distinct values of the
    reference and (segment, value) pairs of the current rows each slice handed the
    sweep."""
    from pl_metrics._drift import distances

    sizes: list[int] = []
    add = distances.Sweep.add

    def spy(self: object, *args: object) -> None:
        sizes.append(args[2].size + args[6].size)  # type: ignore[attr-defined]
        add(self, *args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(distances.Sweep, "add", spy)
        got = current.metrics.drift("x", **kwargs)  # type: ignore[attr-defined]
        if isinstance(got, pl.LazyFrame):
            got = got.collect()
    return got, sizes


VALUES = st.one_of(
    st.integers(-3, 3).map(float),  # ties, also across the slices' bounds
    st.floats(-5, 5),
    st.sampled_from([-math.inf, math.inf, -0.0, None]),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=st.lists(
        st.one_of(
            st.integers(-3, 3).map(float), st.floats(-5, 5), st.sampled_from([0.0, -0.0, None])
        ),
        min_size=1,
        max_size=30,
    ),
    infinite=st.sampled_from([None, -math.inf, math.inf]),
    cur=st.lists(st.tuples(VALUES, st.sampled_from([0, 1, 2, None])), min_size=1, max_size=60),
    slice_=st.integers(1, 9),
    sample=st.integers(1, 9),
    chunk=st.integers(1, 5),
    bins=st.integers(1, 5),
)
def test_sorted_distances_in_slices_are_scipys_and_in_memorys(
    ref: list, infinite: float | None, cur: list, slice_: int, sample: int, chunk: int, bins: int
) -> None:
    """Above ``SLICE`` rows, KS and Wasserstein read both sides' values in slices of
    their range, one streamed query each (ties across the bounds, segments and
    reference values missing from slices, null keys, -0.0, infinities): the same KS
    and bins as all in memory, bit for bit, the same Wasserstein to 1e-12 (its sums
    are added in another order), and SciPy's."""
    from pl_metrics._drift import distances
    from pl_metrics._drift import metrics as drift_metrics

    if infinite is not None:
        ref = [*ref, infinite]
    reference = pl.DataFrame({"x": ref}, schema={"x": pl.Float64})
    current = pl.DataFrame(cur, schema={"x": pl.Float64, "g": pl.Int64}, orient="row")
    whole = current.metrics.drift("x", reference=reference, by="g", bins=bins)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(drift_metrics, "SLICE", slice_)
        patch.setattr(drift_metrics, "SAMPLE", sample)
        patch.setattr(distances, "CHUNK", chunk)
        got, sizes = _slices_of(current.lazy(), reference=reference, by="g", bins=bins)
    reference_values = reference["x"].drop_nulls()
    every = reference_values.n_unique() + current.drop_nulls("x").n_unique(["x", "g"])
    if len(reference_values) and reference.height + current.height > slice_:  # sliced
        assert sum(sizes) >= every  # every value was read
    columns = ["g", "n_current", "psi", "js_distance", "ks"]
    assert_frame_equal(got.select(columns), whole.select(columns), check_row_order=False)
    ref_values = reference_values.to_list()
    for g, ks, w in got.select("g", "ks", "wasserstein").iter_rows():
        values = [x for x in current.filter(pl.col("g").eq_missing(g))["x"] if x is not None]
        want_w = whole.filter(pl.col("g").eq_missing(g))["wasserstein"].item()
        if not ref_values or not values:
            assert (ks, w) == (None, None)
            continue
        assert ks == pytest.approx(ks_2samp(ref_values, values).statistic, rel=1e-12, abs=1e-15)
        if want_w is None:  # an infinite value (SciPy: inf or nan)
            assert w is None
            continue
        assert w == pytest.approx(want_w, rel=1e-12, abs=1e-15)
        assert w == pytest.approx(wasserstein_distance(ref_values, values), rel=1e-9, abs=1e-12)


def test_the_slices_hold_a_bounded_number_of_values(tmp_path: object) -> None:
    """Out of core: with ``SLICE`` = 64, 3,000 distinct reference values and 3,000
    current ones of 3 segments, read from Parquet, go to the sweep in slices of at
    most 64 (about 32) distinct values and (segment, value) pairs; 60,000 rows of 5
    values each side in one slice of at most 20 (the counts, not the rows).  The
    numbers, and the bins' edges, are those of the values all in memory; so are
    ``drift_bins``' and ``drift_counts``' edges, read from slices of the
    reference."""
    from pl_metrics._drift import metrics as drift_metrics

    rng = np.random.default_rng(7)
    spread = (
        pl.DataFrame({"x": rng.normal(size=3000)}),
        pl.DataFrame({"x": rng.normal(size=3000) + 0.2, "g": rng.integers(0, 3, 3000)}),
    )
    tied = (
        pl.DataFrame({"x": rng.integers(0, 5, 60_000) * 0.5}),
        pl.DataFrame({"x": rng.integers(0, 5, 60_000) * 0.5, "g": rng.integers(0, 3, 60_000)}),
    )
    for (reference, current), most, least in ((spread, 64, 60), (tied, 20, 1)):
        ref_path = tmp_path / "reference.parquet"  # type: ignore[operator]
        path = tmp_path / "current.parquet"  # type: ignore[operator]
        reference.write_parquet(ref_path)
        current.write_parquet(path)
        whole = current.metrics.drift("x", reference=reference, by="g")
        bins = current.metrics.drift_bins("x", reference=reference, by="g")
        counts = reference.metrics.drift_counts("x")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(drift_metrics, "SLICE", 64)
            got, sizes = _slices_of(
                pl.scan_parquet(path), reference=pl.scan_parquet(ref_path), by="g"
            )
            got_bins = pl.scan_parquet(path).metrics.drift_bins(
                "x", reference=pl.scan_parquet(ref_path), by="g"
            )
            got_counts = pl.scan_parquet(ref_path).metrics.drift_counts("x")
            got_bins, got_counts = got_bins.collect(), got_counts.collect()
        assert max(sizes) <= most, sizes
        assert len(sizes) >= least
        assert_frame_equal(got.sort("g"), whole.sort("g"), rel_tol=1e-12, abs_tol=1e-15)
        assert_frame_equal(got_bins, bins, check_row_order=False)
        assert_frame_equal(got_counts, counts, check_row_order=False)


def test_sliced_areas_beyond_the_reference_are_exact_at_large_values() -> None:
    """Slices' stretches above the reference's largest value: F_r = 1 there, so after
    segment a's last value (F_c = 1) the area is 0 exactly.  Worked out as H's
    increase less the length up to a bound near 1e14 it lost 0.016 a slice to
    rounding (a's distance read 0.5656 for SciPy's 0.575)."""
    from pl_metrics._drift import metrics as drift_metrics

    ref, a = [0.1, 1.3, 2.2, 3.7], [0.4, 1.9, 2.8]
    b = [1.1e14 / 3, 2.9e14 / 7, 5.3e14 / 11, 7.7e14 / 13]
    reference = pl.DataFrame({"x": ref})
    current = pl.DataFrame({"x": a + b, "g": ["a"] * 3 + ["b"] * 4})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(drift_metrics, "SLICE", 4)
        patch.setattr(drift_metrics, "SAMPLE", 1000)
        got, sizes = _slices_of(current, reference=reference, by="g")
    assert len(sizes) >= 3  # several slices, bounds among b's values
    w = got.sort("g")["wasserstein"].to_list()
    assert w[0] == pytest.approx(wasserstein_distance(ref, a), rel=1e-12)
    assert w[1] == pytest.approx(wasserstein_distance(ref, b), rel=1e-12)


def test_sweep_counts_of_billions_of_rows() -> None:
    """The rank where F_r reaches F_c, ceil(k n / m), for counts of 4e9 rows a side
    (an out-of-core table): k n is 1.6e19, beyond int64, where it wrapped (0.4 for
    SciPy's 0.5).  The sweep here is driven directly, with counts as weights, in two
    slices cut at 2.7 and in one."""
    from pl_metrics._drift.distances import Sweep

    scale = 10**9
    ref, ref_tied = np.array([0.0, 1.0, 2.0, 3.0]), np.array([1, 1, 1, 1]) * scale
    cur, cur_w = np.array([0.5, 1.5, 2.5]), np.array([1, 1, 2]) * scale
    want = wasserstein_distance([0, 1, 2, 3], [0.5, 1.5, 2.5, 2.5])
    assert want == pytest.approx(0.5)
    for cut in (2.7, math.inf):
        sweep = Sweep(int(ref_tied.sum()), np.array([int(cur_w.sum())]))
        for low, high in ((-math.inf, cut), (cut, math.inf)):
            if low == high:
                continue
            r, c = (ref > low) & (ref <= high), (cur > low) & (cur <= high)
            ids, counts = np.array([0]), np.array([c.sum()])
            sweep.add(low, high, ref[r], ref_tied[r], ids, counts, cur[c], cur_w[c])
        ks, w = sweep.result()
        assert w[0] == pytest.approx(want, rel=1e-12)
        assert ks[0] == pytest.approx(ks_2samp([0, 1, 2, 3], [0.5, 1.5, 2.5, 2.5]).statistic)


def test_minus_zero_is_zero_in_the_bins() -> None:
    """-0.0 and 0.0 are one value: the edges read 0 whichever comes first, all in
    memory or in slices (polars' group_by kept the first one's sign, a sort the
    rows' order)."""
    from pl_metrics._drift import metrics as drift_metrics

    for values in ([0.0, -0.0, -0.0, 1.0], [-0.0, 0.0, 0.0, 1.0]):
        reference = pl.DataFrame({"x": values})
        whole = reference.metrics.drift_bins("x", reference=reference, bins=2)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(drift_metrics, "SLICE", 1)
            sliced = reference.metrics.drift_bins("x", reference=reference, bins=2)
        for got in (whole, sliced):
            assert got.select("bin", "upper").row(0) == ("(-inf, 0]", 0.0)
            assert math.copysign(1.0, got["upper"][0]) == 1.0


def test_edges_are_numpys_quantiles_to_the_bit_and_finite() -> None:
    """The edges are numpy's ``quantile`` (method "linear"): on [0, 5e-324, 1] at 1/4,
    numpy's b - (b - a)(1 - t) = 5e-324 - 5e-324 / 2 = 5e-324 (a + (b - a) t would
    give 0); an infinite quantile (numpy: NaN) is no edge."""
    ref = pl.DataFrame({"x": [5e-324, 0.0, 1.0]})
    edges = plm.drift_edges(ref.metrics.drift_counts("x", bins=4))["x"]
    assert edges == np.unique(np.quantile([0.0, 5e-324, 1.0], [0.25, 0.5, 0.75])).tolist()
    assert edges == [5e-324, 0.5]
    # (n - 1) q = 4 q between the sorted values: 0.4 and 0.8 lie between -inf and 1
    # (no edge), 1.2 is 1 + 0.2 (2 - 1), ..., 3.6
    ref = pl.DataFrame({"x": [-math.inf, 1.0, 2.0, 3.0, 4.0]})
    edges = plm.drift_edges(ref.metrics.drift_counts("x"))["x"]
    assert edges == pytest.approx([1.2, 1.6, 2.0, 2.4, 2.8, 3.2, 3.6], rel=1e-15)
    got = pl.DataFrame({"x": [-math.inf, 0.5, 5.0]}).metrics.drift_bins("x", reference=ref)
    assert got.select("bin", "current_rows").rows() == [
        ("(-inf, 1.2]", 2),  # -inf and 0.5
        ("(1.6, 2]", 0),
        ("(2.8, 3.2]", 0),
        ("(3.6, inf]", 1),
    ]


def test_equal_samples_are_at_distance_zero() -> None:
    """The same values on both sides: KS 0 and Wasserstein 0 (SciPy's), not the
    -1.1e-16 that the stretches' areas summed to before they were clipped at 0."""
    x = pl.DataFrame({"x": [0.0, 0.0, 2.0, 3.0, 3.0, 3.0]})
    got = x.metrics.drift("x", reference=x).select("ks", "wasserstein").row(0)
    assert got == (0.0, 0.0)
    assert wasserstein_distance(x["x"], x["x"]) == 0.0


def test_an_area_that_overflows_is_null_not_zero() -> None:
    """Values near the ends of the float range: where the area overflows (3.4e308
    here, SciPy: inf) the Wasserstein distance is null, never the 0 that clipping a
    negative sum at 0 would give; where it does not (1e308: 2/3 of 1e308 below the
    reference, 1/3 above it, about 1.5 between), it is SciPy's number (before the
    local stretches it was null there: H less t times the length overflowed)."""
    ref = pl.DataFrame({"x": [-1.0, 0.0, 0.5, 1.0]})
    cur = pl.DataFrame({"x": [-1e308, -1e308, 1e308]})
    ks, w = cur.metrics.drift("x", reference=ref).select("ks", "wasserstein").row(0)
    assert w == pytest.approx(wasserstein_distance(ref["x"], cur["x"]), rel=1e-12)
    assert w == pytest.approx(1e308, rel=1e-12)
    assert ks == pytest.approx(ks_2samp(ref["x"], cur["x"]).statistic)
    far = pl.DataFrame({"x": [-1.7e308]}).metrics.drift(
        "x", reference=pl.DataFrame({"x": [1.7e308]})
    )
    assert far["wasserstein"].item() is None
    assert wasserstein_distance([1.7e308], [-1.7e308]) == math.inf


def test_rows_that_change_between_reads_are_refused() -> None:
    """Sliced, each slice is its own query: a reference that gives other rows on
    each read (here a deferred frame, a row more on every call) would mix several
    samples into one number, so the slices are checked against the counts read
    first.  A value past 1.7e308 (the area above the reference's largest value, t =
    1) stays a number."""
    from pl_metrics._drift import metrics as drift_metrics

    calls = [0]

    def changing() -> pl.DataFrame:
        calls[0] += 1
        return pl.DataFrame({"x": [float(i) for i in range(5 + calls[0])]})

    reference = pl.defer(changing, schema={"x": pl.Float64})
    current = pl.DataFrame({"x": [0.5, 2.5, 4.5, 6.5]})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(drift_metrics, "SLICE", 2)
        with pytest.raises(plm.DataError, match="do not add up to the rows counted"):
            current.metrics.drift("x", reference=reference)
        with pytest.raises(plm.DataError, match="do not add up to the rows counted"):
            reference.metrics.drift_counts("x").collect()
        ref = [-1.5e308, -1.4e308]
        far = pl.DataFrame({"x": [-1.6e308, 1.5e308, 1.6e308], "g": ["a", "b", "b"]})
        patch.setattr(drift_metrics, "SAMPLE", 1000)
        got = far.metrics.drift("x", reference=pl.DataFrame({"x": ref}), by="g").sort("g")
    assert got["wasserstein"][0] == pytest.approx(wasserstein_distance(ref, [-1.6e308]))
