"""``over_time``'s estimated metrics (``estimated_<m>``): each window's value is
``estimated_performance`` on the window's current rows, and the definitions computed
with scikit-learn (``IsotonicRegression`` fitted on the reference, ``roc_auc_score``
of the doubled rows with ``sample_weight``: ``test_estimated_performance.oracle``);
the realized metrics beside them read the rows whose label has arrived."""

from __future__ import annotations

import datetime as dt

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from test_estimated_performance import ALL, frames, oracle

from pl_metrics._monitoring import segment_sums

ESTIMATED = [f"estimated_{m}" for m in ALL]
DAY0 = dt.date(2026, 3, 1)


def frame(seed: int, *, grid: int = 7, days: int = 9) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(reference, production): scores on a grid (ties), three segments ("c" predicts
    no positive), weights with zeros; production's labels missing from day 6 on."""
    rng = np.random.default_rng(seed)
    n = 400
    ref_s = rng.integers(0, grid, 120) / (grid - 1)
    reference = pl.DataFrame(
        {
            "s": ref_s,
            "y": (rng.random(120) < ref_s).astype(np.int64),
            "w": rng.choice([0.0, 0.5, 1.0, 2.0], 120),
        }
    ).vstack(pl.DataFrame({"s": [0.5, 0.5], "y": [0, 1], "w": [1.0, 1.0]}))
    s = rng.integers(0, grid, n) / (grid - 1)
    production = pl.DataFrame(
        {
            "day": [DAY0 + dt.timedelta(days=int(d)) for d in rng.integers(0, days, n)],
            "g": rng.choice(["a", "b", "c"], n),
            "s": s,
            "w": rng.choice([0.0, 0.5, 1.0, 2.0], n),
            "y": (rng.random(n) < s).astype(np.int64),
        }
    ).with_columns(
        pred=((pl.col("s") >= 0.5) & (pl.col("g") != "c")).cast(pl.Int64),
        y=pl.when(pl.col("day") < DAY0 + dt.timedelta(days=6)).then("y"),
    )
    return reference, production


def windows_of(production: pl.DataFrame, period_days: int) -> list[tuple[dt.date, dt.date]]:
    """Every window (start, end) of daily buckets: one ending at each bucket end from
    the first day's to the last day's (``over_time``'s windows)."""
    first, last = production["day"].min(), production["day"].max()
    if not isinstance(first, dt.date) or not isinstance(last, dt.date):
        return []  # no rows
    ends = [first + dt.timedelta(days=1 + d) for d in range((last - first).days + 1)]
    return [(e - dt.timedelta(days=period_days), e) for e in ends]


def wide(got: pl.DataFrame, ci: bool = False) -> pl.DataFrame:
    """over_time's estimated rows as ``g, window_start, window_end, <metric>...``."""
    estimated = got.filter(pl.col("metric").str.starts_with("estimated_")).with_columns(
        pl.col("metric").str.strip_prefix("estimated_")
    )
    values = ["value", "low", "high"] if ci else "value"
    return estimated.pivot("metric", index=["g", "window_start", "window_end"], values=values)


@pytest.mark.parametrize("period", [1, 3])
@pytest.mark.parametrize("weight", [None, "w"])
def test_each_window_is_the_definition_with_scikit_learn(period: int, weight: str | None) -> None:
    reference, production = frame(period + (weight is not None))
    got = production.metrics.over_time(
        "y", y_pred="pred", y_score="s", index="day", every="1d", period=f"{period}d",
        by="g", weight=weight, metrics=ESTIMATED, reference=reference,
    )  # fmt: skip
    want = []
    weighted = production if weight is None else production.filter(pl.col(weight) > 0)
    for start, end in windows_of(weighted, period):
        rows = production.filter(pl.col("day").is_between(start, end, closed="left"))
        if rows.height:
            want.append(
                oracle(rows, reference.with_columns(w=pl.col("w") if weight else 1.0), weight)
                .drop("n")
                .with_columns(window_start=pl.lit(start), window_end=pl.lit(end))
            )
    expected = pl.concat(want).select("g", "window_start", "window_end", *ALL)
    expected = expected.sort("g", "window_end")
    assert_frame_equal(wide(got), expected, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(weighted=True), data=st.data())
def test_hypothesis_windows_are_the_definition(
    case: tuple[pl.DataFrame, pl.DataFrame], data: st.DataObject
) -> None:
    """estimated_performance's hypothesis frames (ties, constant scores, a segment
    without positive predictions, zero weights) spread over a few days, 2-day windows."""
    reference, current = case
    days = data.draw(st.lists(st.integers(0, 3), min_size=current.height, max_size=current.height))
    current = current.with_columns(day=pl.Series([DAY0 + dt.timedelta(days=d) for d in days]))
    got = current.metrics.over_time(
        "y", y_pred="pred", y_score="s", index="day", every="1d", period="2d", by="g",
        weight="w", metrics=ESTIMATED, reference=reference.with_columns(y=pl.col("y")),
    )  # fmt: skip
    want = []
    # windows from the first to the last bucket of rows of positive weight (rows of
    # weight 0 are no rows: the registry's law)
    for start, end in windows_of(current.filter(pl.col("w") > 0), 2):
        rows = current.filter(pl.col("day").is_between(start, end, closed="left"))
        want.append(oracle(rows, reference, "w").drop("n").with_columns(
            window_start=pl.lit(start), window_end=pl.lit(end)))  # fmt: skip
    if not want:  # every row of weight 0: no window
        assert got.height == 0
        return
    expected = pl.concat(want).select("g", "window_start", "window_end", *ALL)
    assert_frame_equal(wide(got), expected.sort("g", "window_end"), rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("period", ["1d", "4d"])
def test_each_window_is_estimated_performance_on_its_rows(period: str) -> None:
    """With intervals, a reference marked by an expression (its rows in no window), a
    calibration map fitted once: each window equals the method on its current rows."""
    reference, production = frame(5)
    both = pl.concat(
        [
            reference.with_columns(day=pl.lit(DAY0), g=pl.lit("a"), pred=pl.lit(0, pl.Int64)),
            production,
        ],
        how="diagonal",
    ).with_columns(is_reference=pl.Series([True] * reference.height + [False] * production.height))
    flag = pl.col("is_reference")
    got = both.metrics.over_time(
        "y", y_pred="pred", y_score="s", index="day", every="1d", period=period, by="g",
        metrics=ESTIMATED, reference=flag, ci=0.9,
    )  # fmt: skip
    days = int(period[:-1])
    parts = []
    for start, end in windows_of(production, days):
        rows = production.filter(pl.col("day").is_between(start, end, closed="left"))
        if rows.height:
            one = rows.metrics.estimated_performance(
                "pred", "s", reference=both.filter(flag), y_true="y", by="g", metrics=ALL, ci=0.9
            )
            parts.append(one.with_columns(window_start=pl.lit(start), window_end=pl.lit(end)))
    want = pl.concat(parts).drop("n").sort("g", "window_end")
    got_wide = wide(got, ci=True).rename(
        {f"{kind}_{m}": (m if kind == "value" else f"{m}_{kind}") for m in ALL
         for kind in ("value", "low", "high")}
    )  # fmt: skip
    assert_frame_equal(got_wide, want, check_column_order=False, rel_tol=1e-12, abs_tol=1e-12)


def test_realized_metrics_beside_read_the_labelled_rows() -> None:
    """The realized metrics of the same call: those of ``over_time`` on the rows whose
    label has arrived (their windows stop with the labels); the estimated ones cover
    every window."""
    reference, production = frame(3)
    realized = ["roc_auc", "f1", "accuracy"]
    got = production.metrics.over_time(
        "y", y_pred="pred", y_score="s", index="day", every="1d", period="2d", by="g",
        metrics=[*realized, "estimated_roc_auc"], reference=reference, ci=0.95,
    )  # fmt: skip
    labelled = production.filter(pl.col("y").is_not_null()).metrics.over_time(
        "y", y_pred="pred", y_score="s", index="day", every="1d", period="2d", by="g",
        metrics=realized, ci=0.95,
    )  # fmt: skip
    assert_frame_equal(got.filter(pl.col("metric") != "estimated_roc_auc"), labelled)
    ends = got.filter(pl.col("metric") == "estimated_roc_auc")["window_end"]
    assert ends.max() == DAY0 + dt.timedelta(days=9)
    assert labelled["window_end"].max() == DAY0 + dt.timedelta(days=6)


def test_every_window_and_segment_in_one_numpy_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """One query over the windows x segments: the segments' sums are called once."""
    calls = []
    original = segment_sums.segment_sums

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args[0])  # the segments' sizes
        return original(*args, **kwargs)

    monkeypatch.setattr(segment_sums, "segment_sums", counted)
    reference, production = frame(1)
    got = production.metrics.over_time(
        "y", y_pred="pred", y_score="s", index="day", every="1d", period="3d", by="g",
        metrics=["estimated_f1", "estimated_roc_auc"], reference=reference,
    )  # fmt: skip
    assert len(calls) == 1
    assert len(calls[0]) == got.height // 2  # a segment per (g, window)
    assert got.select("window_end").n_unique() == 9


def test_bad_rows_are_counted_once_in_rolling_windows() -> None:
    """A null score in a 3-day window's bucket is one row, as estimated_performance says."""
    reference, production = frame(2)
    production = production.with_columns(s=pl.when(pl.int_range(pl.len()) != 5).then("s"))
    with pytest.raises(plm_data_error()) as direct:
        production.metrics.estimated_performance("pred", "s", reference=reference, y_true="y")
    with pytest.raises(plm_data_error()) as windowed:
        production.metrics.over_time(
            "y", y_pred="pred", y_score="s", index="day", every="1d", period="3d",
            metrics="estimated_f1", reference=reference,
        )  # fmt: skip
    assert str(windowed.value) == str(direct.value)


def plm_data_error() -> type[Exception]:
    import pl_metrics as plm

    return plm.DataError


def test_a_null_index_is_refused() -> None:
    reference, production = frame(4)
    production = production.with_columns(day=pl.when(pl.int_range(pl.len()) != 3).then("day"))
    with pytest.raises(plm_data_error(), match="index"):
        production.metrics.over_time(
            "y", y_pred="pred", y_score="s", index="day", every="1d",
            metrics="estimated_f1", reference=reference,
        )  # fmt: skip


def test_probabilities_as_given_need_no_reference() -> None:
    _, production = frame(6)
    got = production.metrics.over_time(
        "y", y_pred="pred", y_score="s", index="day", every="1d", by="g",
        metrics=ESTIMATED, calibration=None,
    )  # fmt: skip
    want = []
    for start, end in windows_of(production, 1):
        rows = production.filter(pl.col("day").is_between(start, end, closed="left"))
        want.append(oracle(rows, None, None).drop("n").with_columns(
            window_start=pl.lit(start), window_end=pl.lit(end)))  # fmt: skip
    expected = pl.concat(want).select("g", "window_start", "window_end", *ALL)
    assert_frame_equal(wide(got), expected.sort("g", "window_end"), rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"metrics": "roc_auc", "reference": pl.col("g") == "a"}, ValueError, "name one in"),
        ({"metrics": "estimated_f1"}, ValueError, "calibration='isotonic' fits"),
        ({"metrics": "estimated_f1", "calibration": None, "reference": pl.col("g") == "a"},
         ValueError, "calibration=None"),
        ({"metrics": "estimated_f1", "reference": pl.col("g") == "a", "ci": 0.9,
          "ci_method": "bootstrap"}, ValueError, "their own interval"),
        ({"metrics": "estimated_f", "reference": pl.col("g") == "a"}, ValueError, "estimated_f1"),
        ({"metrics": "estimated_f1", "calibration": "platt"}, ValueError, "calibration"),
    ],
)  # fmt: skip
def test_bad_options_name_the_argument(
    options: dict[str, object], error: type[Exception], match: str
) -> None:
    _, production = frame(0)
    with pytest.raises(error, match=match):
        production.lazy().metrics.over_time(
            "y",
            y_pred="pred",
            y_score="s",
            index="day",
            every="1d",
            **options,  # type: ignore[arg-type]
        )


def test_estimated_metrics_need_predictions_and_scores() -> None:
    _, production = frame(0)
    with pytest.raises(ValueError, match="`y_score` is required"):
        production.metrics.over_time(
            "y", y_pred="pred", index="day", every="1d", metrics="estimated_f1", calibration=None
        )
    with pytest.raises(ValueError, match="`y_pred` is required"):
        production.metrics.over_time(
            "y", y_score="s", index="day", every="1d", metrics="estimated_roc_auc",
            calibration=None,
        )  # fmt: skip


def test_the_literal_lists_the_names() -> None:
    import typing

    import pl_metrics as plm
    from pl_metrics._monitoring import estimated_windows

    assert typing.get_args(plm.OverTimeEstimatedMetric) == estimated_windows.METRICS
    # the binary names; then the averages of {label: column} scores
    # (tests/test_estimated_multiclass_windows.py)
    assert tuple(ESTIMATED) == estimated_windows.BINARY
    assert (*ESTIMATED, *estimated_windows.AVERAGED) == estimated_windows.METRICS


def test_the_labels_column_is_read_by_the_realized_metrics_only() -> None:
    """Labels not in at all: the estimated metrics read no label column of these rows;
    a realized metric beside them names the missing column at call time."""
    reference, production = frame(7)
    unlabelled = production.drop("y")
    got = unlabelled.metrics.over_time(
        "y", y_pred="pred", y_score="s", index="day", every="1d", by="g",
        metrics=ESTIMATED, reference=reference,
    )  # fmt: skip
    want = production.metrics.over_time(
        "y", y_pred="pred", y_score="s", index="day", every="1d", by="g",
        metrics=ESTIMATED, reference=reference,
    )  # fmt: skip
    assert_frame_equal(got, want)
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="argument `y_true`"):
        unlabelled.lazy().metrics.over_time(
            "y", y_pred="pred", y_score="s", index="day", every="1d",
            metrics=["roc_auc", "estimated_roc_auc"], reference=reference,
        )  # fmt: skip
