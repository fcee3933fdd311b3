"""drift's Wasserstein distance keeps its digits where values lie far apart: each
stretch's area comes from quantities local to it, not from differences of a
running integral that starts at the reference's smallest value (issue 49)."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import wasserstein_distance

import pl_metrics  # noqa: F401 - registers .metrics


def _wasserstein(ref: list[float], cur: list[float], *, sliced: bool = False) -> float | None:
    """drift's ``wasserstein`` of ``cur`` against ``ref``, all in memory or (``sliced``)
    out of core with slices of two values and chunks of two."""
    current = pl.DataFrame({"x": cur}, schema={"x": pl.Float64})
    reference = pl.DataFrame({"x": ref}, schema={"x": pl.Float64})
    if not sliced:
        return current.metrics.drift("x", reference=reference)["wasserstein"].item()
    from pl_metrics._drift import distances
    from pl_metrics._drift import metrics as drift_metrics

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(drift_metrics, "SLICE", 2)
        patch.setattr(drift_metrics, "SAMPLE", 2)
        patch.setattr(distances, "CHUNK", 2)
        got = current.lazy().metrics.drift("x", reference=reference).collect()
    return got["wasserstein"].item()


@pytest.mark.parametrize("sliced", [False, True])
@pytest.mark.parametrize(
    ("ref", "cur", "exact"),
    [
        # F_r = F_c = 1/5 from -1e15 to 0, then 2/5 against 1/5 up to 0.1: 0.2 x 0.1
        # (0.02125 before: the areas were read off a running integral of 2e14)
        ([-1e15, 0, 1, 2, 3], [-1e15, 0.1, 1, 2, 3], 0.02),
        # 2/3 against 1/3 on [0, 0.1]: 0.1 / 3 (0.0367 before)
        ([-1e14, 0, 1], [-1e14, 0.1, 1], 0.1 / 3),
        # a -1e9 sentinel among values in [0, 1): each of 10 current values 0.01 above
        # its reference value, F differs by 1/11 over 0.01 ten times: 0.1 / 11
        (
            [-1e9] + [i / 10 for i in range(10)],
            [-1e9] + [i / 10 + 0.01 for i in range(10)],
            0.1 / 11,
        ),
        # epoch milliseconds with one unset 0: 10 stretches of 7 ms at 1/11: 70 / 11
        (
            [0.0] + [1.7e12 + i * 1000.0 for i in range(10)],
            [0.0] + [1.7e12 + i * 1000.0 + 7 for i in range(10)],
            70 / 11,
        ),
    ],
)
def test_a_far_value_keeps_the_small_areas(
    ref: list[float], cur: list[float], exact: float, sliced: bool
) -> None:
    """The issue's cases, with the exact distance worked by hand in each comment."""
    assert wasserstein_distance(ref, cur) == pytest.approx(exact, rel=1e-12)
    assert _wasserstein(ref, cur, sliced=sliced) == pytest.approx(exact, rel=1e-12)


def _magnitudes() -> st.SearchStrategy[float]:
    """Values from 1e-300 to 1e15 on both sides of 0, and 0."""
    return st.one_of(
        st.just(0.0),
        st.builds(
            lambda sign, mantissa, exponent: sign * mantissa * 10.0**exponent,
            st.sampled_from([-1.0, 1.0]),
            st.floats(1, 9.99),
            st.integers(-300, 15),
        ),
        st.integers(-3, 3).map(float),  # ties
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ref=st.lists(_magnitudes(), min_size=1, max_size=12),
    cur=st.lists(_magnitudes(), min_size=1, max_size=12),
    shared=st.lists(_magnitudes(), max_size=3),
    sliced=st.booleans(),
)
def test_wasserstein_is_scipys_over_every_magnitude(
    ref: list[float], cur: list[float], shared: list[float], sliced: bool
) -> None:
    """Against SciPy (a sum of |F_r - F_c| times each gap between the merged values:
    local terms, all positive) with values spanning 1e-300 to 1e15 on both sides
    and far values ``shared`` by both samples (where the ECDFs are equal over a long
    stretch and the area is all in the small ones), in memory and sliced: to 1e-9,
    or to the running sums' own precision, a few units of 2**-104 (two floats, the
    sums and their errors) of the values' spread times the values' count (hypothesis
    found 2.4e-33 off 2.18e-24 with values at 1e-25 beside values at 1 and 2: the
    areas there are below what a running sum of 2 carries even in two floats)."""
    ref, cur = ref + shared, cur + shared
    want = wasserstein_distance(ref, cur)
    got = _wasserstein(ref, cur, sliced=sliced)
    assert math.isfinite(want)
    spread = max(ref + cur) - min(ref + cur)
    assert got == pytest.approx(want, rel=1e-9, abs=4 * len(ref + cur) * 2.0**-104 * spread)


def test_equal_shares_of_the_two_sides_are_equal_to_the_last_bit() -> None:
    """The same distribution on both sides (5 of 6 rows null, 1 'b'): psi and
    js_distance exactly 0, as scipy's (the reference's share once came from a division
    by a scalar, 5 * (1 / 6) = 0.8333333333333333 against the current's 5 / 6 =
    0.8333333333333334: js_distance 1.2e-8, found by hypothesis at the floor)."""
    ref = pl.DataFrame({"c": [None] * 5 + ["b"]}, schema={"c": pl.String})
    cur = pl.DataFrame({"c": [None, None, "b", None, None, None]}, schema={"c": pl.String})
    for by in (None, "s"):
        got = cur.with_columns(s=pl.lit("s")).metrics.drift(["c"], reference=ref, by=by)
        assert got.select("psi", "js_distance").rows() == [(0.0, 0.0)]
