"""over_time against a brute-force oracle: every window recomputed from its rows
with the frame methods (themselves checked against scikit-learn)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import pl_metrics as plm

START = dt.datetime(2026, 3, 1)
METRICS = [
    "n",
    "accuracy",
    "mcc",
    "f1_macro",
    "recall_weighted",
    "roc_auc",
    "average_precision",
    "ks",
    "log_loss",
    "brier_score",
    "calibration_error",
]
#: The pos_label class's metrics (binary labels: drawn with a binary ``p``).
POSITIVE = ["precision", "recall", "f1", "jaccard", "fowlkes_mallows", "specificity"]


@st.composite
def frames(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 60))
    binary = draw(st.booleans())  # binary predictions: the positive class's metrics too
    hours = draw(st.lists(st.integers(0, 24 * 9), min_size=n, max_size=n))
    data = {
        "ts": [START + dt.timedelta(hours=h) for h in hours],
        "y": oracle.with_a_positive(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))),
        "p": draw(st.lists(st.integers(0, 1 if binary else 2), min_size=n, max_size=n)),
        "s": draw(st.lists(st.integers(0, 10).map(lambda i: i / 10), min_size=n, max_size=n)),
    }
    by = None
    if draw(st.booleans()):
        data["seg"] = draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n))
        by = "seg"
    weighted = draw(st.booleans())
    if weighted:
        data["w"] = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n))
    every = draw(st.sampled_from(["1d", "2d", "12h"]))
    k = draw(st.integers(1, 3))
    step = {"1d": 24, "2d": 48, "12h": 12}[every]
    period = f"{k * step}h" if every == "12h" else f"{k * int(every[0])}d"
    pool = METRICS + POSITIVE if binary else METRICS
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
    return {
        "df": pl.DataFrame(data),
        "by": by,
        "weight": "w" if weighted else None,
        "every": every,
        "period": period,
        "metrics": chosen,
    }


def _window_value(rows: pl.DataFrame, metric: str, weight: str | None) -> float | None:
    """The metric of one window's rows, from the frame methods."""
    m = rows.metrics
    if metric in ("n", "accuracy", "mcc"):
        return m.summary("y", "p", weight=weight)[metric].item()
    if metric in ("f1_macro", "recall_weighted"):
        name, average = metric.rsplit("_", 1)
        table = m.averages("y", "p", weight=weight)
        return table.filter(pl.col("average") == average)[name].item()
    if metric in ("log_loss", "brier_score"):
        return getattr(m, metric)("y", "s", weight=weight)[metric].item()
    if metric in POSITIVE:
        return _positive_class(rows, metric, weight)
    if metric == "calibration_error":
        return _expected_calibration_error(rows, weight)
    if (rows["y"] == 1).sum() == 0:  # a window without positives: one class
        # (the frame methods refuse an input without pos_label; over_time's input has it)
        return {"roc_auc": None, "average_precision": 0.0, "ks": None}[metric]
    if metric == "ks":
        return m.ks("y", "s", weight=weight)["ks"].item()
    return getattr(m, metric)("y", "s", weight=weight)[metric].item()


def _positive_class(rows: pl.DataFrame, metric: str, weight: str | None) -> float:
    """scikit-learn's score of class 1 (specificity: the recall of class 0), 0.0 where
    undefined (``zero_division=0``; ``labels=[c]`` so a window of one class is scored)."""
    y, p = rows["y"].to_numpy(), rows["p"].to_numpy()
    w = None if weight is None else rows[weight].to_numpy()
    if metric == "fowlkes_mallows":
        return float(oracle.fowlkes_mallows(y, p, labels=[1], zero_division=0, sample_weight=w)[0])
    score = {
        "precision": skm.precision_score,
        "recall": skm.recall_score,
        "specificity": skm.recall_score,
        "f1": skm.f1_score,
        "jaccard": skm.jaccard_score,
    }[metric]
    label = 0 if metric == "specificity" else 1
    kw = {"labels": [label], "average": None, "zero_division": 0, "sample_weight": w}
    return float(score(y, p, **kw)[0])


def _expected_calibration_error(rows: pl.DataFrame, weight: str | None) -> float:
    """ECE of 15 equal bins, by hand: scikit-learn's ``calibration_curve`` bins
    (``np.searchsorted(edges[1:-1], s)``: a score on an edge in the lower bin), each
    non-empty bin's |mean outcome - mean score| weighted by its share of the weight."""
    s, y = rows["s"].to_numpy(), rows["y"].to_numpy().astype(float)
    w = np.ones(s.size) if weight is None else rows[weight].to_numpy()
    bins = np.searchsorted(np.linspace(0.0, 1.0, 16)[1:-1], s)
    total = np.bincount(bins, weights=w, minlength=15)
    seen = total > 0
    true = np.bincount(bins, weights=w * y, minlength=15)[seen] / total[seen]
    pred = np.bincount(bins, weights=w * s, minlength=15)[seen] / total[seen]
    return float(np.sum(np.abs(true - pred) * total[seen] / total.sum()))


def brute_force(case: dict) -> pl.DataFrame:
    """Every window end on the bucket grid from the first to the last bucket; the
    rows of [end - period, end); windows without rows are absent."""
    df, every, period = case["df"], case["every"], case["period"]
    ends = df.select(pl.col("ts").dt.truncate(every).dt.offset_by(every)).to_series()
    first, last = ends.min(), ends.max()
    grid = pl.datetime_range(first, last, every, eager=True)
    segments = [None] if case["by"] is None else sorted(df[case["by"]].unique().to_list())
    out = []
    for seg in segments:
        rows_seg = df if seg is None else df.filter(pl.col(case["by"]) == seg)
        for end in grid:
            start = pl.select(pl.lit(end).dt.offset_by(f"-{period}")).item()
            rows = rows_seg.filter((pl.col("ts") >= start) & (pl.col("ts") < end))
            if case["weight"]:
                rows = rows.filter(pl.col(case["weight"]) != 0)
            if rows.height == 0:
                continue
            for metric in case["metrics"]:
                value = _window_value(rows, metric, case["weight"])
                row = {"window_start": start, "window_end": end, "metric": metric, "value": value}
                out.append(({case["by"]: seg} if case["by"] else {}) | row)
    schema = ({case["by"]: pl.String} if case["by"] else {}) | {
        "window_start": pl.Datetime("us"),
        "window_end": pl.Datetime("us"),
        "metric": pl.String,
        "value": pl.Float64,
    }
    return pl.DataFrame(out, schema=schema)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(), how=st.sampled_from(oracle.RANKING_STRATEGIES))
def test_over_time_equals_the_rows_of_each_window(case: dict, how: str) -> None:
    # how: un-weighted roc_auc / average_precision from the buckets' per-score
    # counts, or from each window's rows sorted (the path of continuous scores)
    with oracle.ranking_strategy(how):
        got = case["df"].metrics.over_time(
            "y",
            y_pred="p",
            y_score="s",
            index="ts",
            every=case["every"],
            period=case["period"],
            metrics=case["metrics"],
            by=case["by"],
            weight=case["weight"],
        )
    oracle.assert_close(got, brute_force(case))


@pytest.mark.parametrize("ci_method", [None, "delong", "logit"])
def test_rolling_windows_of_continuous_scores_equal_the_frame_methods(
    ci_method: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Continuous scores take the frame methods' sorted path in each window (its rows
    # repeated for the windows that hold them): a new user's 7-day windows of 2M rows
    # with ci=0.95 took 21-32 s from the summed per-score counts, 1.6 s now. Each
    # window equals the frame method on its rows (and so scikit-learn).
    from pl_metrics._ranking import sorted_path

    sorted_metric, calls = sorted_path.sorted_metric, []

    def spy(*args: object, **kwargs: object) -> pl.LazyFrame:
        calls.append(kwargs["metric"])
        return sorted_metric(*args, **kwargs)  # type: ignore[arg-type]

    rng = np.random.default_rng(8)
    n = 6_000
    y = rng.integers(0, 2, n)
    df = pl.DataFrame(
        {
            "ts": [START + dt.timedelta(hours=int(h)) for h in rng.integers(0, 24 * 6, n)],
            "seg": rng.choice(["a", "b"], n),
            "y": y,
            "s": rng.random(n) + 0.3 * y,
        }
    )
    assert sorted_path.use_sorted_path(df, "s")
    metric = {"delong": ["roc_auc"], "logit": ["average_precision"]}.get(
        str(ci_method), ["roc_auc", "average_precision"]
    )
    with monkeypatch.context() as patch:
        patch.setattr(sorted_path, "sorted_metric", spy)
        got = df.metrics.over_time(
            "y",
            y_score="s",
            index="ts",
            every="1d",
            period="3d",
            metrics=metric,
            by="seg",
            ci=0.95,
            ci_method=ci_method,
        )
    assert sorted(set(calls)) == sorted(metric)  # the windows' rows were sorted
    assert got.height == 2 * 6 * len(metric)  # two segments, six windows ending each day
    for row in got.iter_rows(named=True):
        rows = df.filter(
            (pl.col("seg") == row["seg"])
            & (pl.col("ts") >= row["window_start"])
            & (pl.col("ts") < row["window_end"])
        )
        name = row["metric"]
        expected = getattr(rows.metrics, name)("y", "s", ci=0.95).row(0)
        assert [row["value"], row["low"], row["high"]] == pytest.approx(expected, rel=1e-12)
        sk = skm.roc_auc_score if name == "roc_auc" else skm.average_precision_score
        assert row["value"] == pytest.approx(sk(rows["y"], rows["s"]), rel=1e-12)


def test_worked_example_rolling_two_days() -> None:
    # day 1: (1,1) (0,0) -> 2/2; days 1-2: + (1,0) (1,1) -> 3/4;
    # days 2-3: (1,0) (1,1) (0,0) (0,1) -> 2/4
    df = pl.DataFrame(
        {
            "day": [dt.date(2026, 1, d) for d in (1, 1, 2, 2, 3, 3)],
            "y": [1, 0, 1, 1, 0, 0],
            "p": [1, 0, 0, 1, 0, 1],
        }
    )
    got = df.metrics.over_time("y", y_pred="p", index="day", every="1d", period="2d")
    assert got["value"].to_list() == [1.0, 0.75, 0.5]
    assert got["window_end"].to_list() == [dt.date(2026, 1, d) for d in (2, 3, 4)]
    assert got["window_start"].to_list() == [
        dt.date(2025, 12, 31),
        dt.date(2026, 1, 1),
        dt.date(2026, 1, 2),
    ]


def test_streaming_and_intervals_per_window() -> None:
    rng = np.random.default_rng(4)
    n = 2000
    df = pl.DataFrame(
        {
            "ts": [START + dt.timedelta(minutes=int(m)) for m in rng.integers(0, 60 * 24 * 6, n)],
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "s": rng.random(n).round(3),
        }
    )
    args = {"y_pred": "p", "y_score": "s", "index": "ts", "every": "1d", "period": "3d"}
    args |= {"metrics": ["accuracy", "roc_auc"], "ci": 0.9, "n_boot": 50}
    eager = df.metrics.over_time("y", **args)
    lazy = df.lazy().metrics.over_time("y", **args).collect(engine="streaming")
    oracle.assert_close(lazy, eager)
    # the interval of a window is the interval of the frame method on its rows
    row = eager.filter(pl.col("metric") == "roc_auc").row(2, named=True)
    rows = df.filter((pl.col("ts") >= row["window_start"]) & (pl.col("ts") < row["window_end"]))
    # the same segment key (the window's end), so the same seeded draws
    rows = rows.with_columns(pl.lit(row["window_end"]).alias("window_end"))
    direct = rows.metrics.roc_auc("y", "s", by="window_end", ci=0.9, n_boot=50)
    assert (row["value"], row["low"], row["high"]) == pytest.approx(direct.row(0)[1:], rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"every": "1d", "period": "36h"}, ValueError, "whole number of `every`"),
        ({"every": "1d", "period": "1mo"}, ValueError, "whole number of `every`"),
        ({"every": "1d2h"}, ValueError, "one unit"),
        ({"every": "1d", "metrics": ["roc_auc"]}, ValueError, "`y_score` is required"),
        ({"every": "1d", "metrics": ["bogus"]}, ValueError, "`metrics` must be one of"),
        ({"every": "1d", "index": "y"}, pl.exceptions.SchemaError, "Date or Datetime"),
        ({"every": "1d", "ci": 0.9, "ci_method": "delong"}, ValueError, "delong"),
    ],
)
def test_bad_options(kwargs: dict, error: type, match: str) -> None:
    df = pl.DataFrame({"ts": [START], "y": [1], "p": [1]})
    args = {"y_pred": "p", "index": "ts"} | kwargs
    with pytest.raises(error, match=match):
        df.metrics.over_time("y", **args).lazy().collect()


def test_null_index_is_refused() -> None:
    df = pl.DataFrame({"ts": [START, None], "y": [1, 0], "p": [1, 0]})
    with pytest.raises(plm.DataError, match="'ts' \\(argument `index`\\) has null"):
        df.metrics.over_time("y", y_pred="p", index="ts", every="1d")


def _check_windows(
    df: pl.DataFrame, got: pl.DataFrame, index: str, labels: list | None = None
) -> None:
    """Each window's n and accuracy are those of summary() on its rows [start, end)."""
    for row in got.filter(pl.col("metric") == "n").iter_rows(named=True):
        rows = df.filter(
            (pl.col(index) >= row["window_start"]) & (pl.col(index) < row["window_end"])
        )
        expected = rows.metrics.summary("y", "p", labels=labels)
        assert row["value"] == expected["n"].item(), row
    for row in got.filter(pl.col("metric") == "accuracy").iter_rows(named=True):
        rows = df.filter(
            (pl.col(index) >= row["window_start"]) & (pl.col(index) < row["window_end"])
        )
        expected = rows.metrics.summary("y", "p", labels=labels)["accuracy"].item()
        assert row["value"] == pytest.approx(expected, rel=1e-12), row


@pytest.mark.parametrize(
    ("every", "period"), [("1h", None), ("6h", None), ("6h", "24h"), ("1d", None), ("1d", "2d")]
)
@pytest.mark.parametrize("day", [dt.datetime(2026, 3, 8), dt.datetime(2026, 11, 1)])
def test_time_zone_aware_windows_across_daylight_saving(
    every: str, period: str | None, day
) -> None:
    # New York's clocks jump on 2026-03-08 and 2026-11-01: local truncation with
    # absolute offsets counted rows outside [window_start, window_end) (n 7 for 6)
    utc = pl.datetime_range(
        day - dt.timedelta(hours=14),
        day + dt.timedelta(hours=30),
        "30m",
        eager=True,
        time_zone="UTC",
    )
    rng = np.random.default_rng(2)
    df = pl.DataFrame(
        {"ts": utc.dt.convert_time_zone("America/New_York"), "y": rng.integers(0, 2, len(utc))}
    ).with_columns(p=pl.Series(rng.integers(0, 2, len(utc))))
    got = df.metrics.over_time(
        "y", y_pred="p", index="ts", every=every, period=period, metrics=["n", "accuracy"]
    )
    _check_windows(df, got, "ts")
    if period is None:  # tumbling windows: every row in exactly one
        assert got.filter(pl.col("metric") == "n")["value"].sum() == df.height


@pytest.mark.parametrize(
    ("every", "period"), [("1w", None), ("1w", "2w"), ("1mo", None), ("1mo", "3mo"), ("1q", None)]
)
def test_calendar_windows_on_dates_with_labels(every: str, period: str | None) -> None:
    rng = np.random.default_rng(3)
    n = 400
    df = pl.DataFrame(
        {
            "day": [
                dt.date(2025, 11, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 200, n)
            ],
            "y": rng.integers(0, 3, n),
            "p": rng.integers(0, 3, n),
        }
    )
    labels = [0, 1]  # rows with class 2 are outside the labels: not counted by summary
    got = df.metrics.over_time(
        "y",
        y_pred="p",
        index="day",
        every=every,
        period=period,
        metrics=["n", "accuracy"],
        labels=labels,
    )
    _check_windows(df, got, "day", labels)


@pytest.mark.parametrize("how", oracle.RANKING_STRATEGIES)
@pytest.mark.parametrize("period", [None, "2d"])
@pytest.mark.parametrize("metric", ["accuracy", "roc_auc", "average_precision", "log_loss"])
def test_null_index_is_refused_for_every_family(metric: str, period: str | None, how: str) -> None:
    # the null-index row is a negative: a check on the positives' count missed it;
    # how: the per-score counts, or the rows sorted per window (a null bucket end
    # there is a segment of its own, refused after)
    df = pl.DataFrame(
        {"ts": [START, START, None], "y": [1, 0, 0], "p": [1, 0, 0], "s": [0.9, 0.2, 0.3]}
    )
    with (
        oracle.ranking_strategy(how),
        pytest.raises(plm.DataError, match="'ts' \\(argument `index`\\) has null"),
    ):
        df.metrics.over_time(
            "y", y_pred="p", y_score="s", index="ts", every="1d", period=period, metrics=metric
        )


def _transitions(zone: str, year: int) -> list[dt.datetime]:
    """The UTC instants of the zone's clock changes in ``year`` (a 15-minute scan)."""
    tz = ZoneInfo(zone)
    t = dt.datetime(year, 1, 1, tzinfo=dt.timezone.utc)
    found, offset = [], t.astimezone(tz).utcoffset()
    while t.year == year:
        t += dt.timedelta(minutes=15)
        if t.astimezone(tz).utcoffset() != offset:
            found.append(t.replace(tzinfo=None))
            offset = t.astimezone(tz).utcoffset()
    return found


def _first_instant(day: dt.date, zone: str) -> dt.datetime:
    """Brute force: the first 15-minute UTC instant whose local date is ``day``."""
    tz = ZoneInfo(zone)
    t = dt.datetime.combine(day, dt.time(), dt.timezone.utc) - dt.timedelta(hours=15)
    while t.astimezone(tz).date() < day:
        t += dt.timedelta(minutes=15)
    return t.astimezone(tz)


MIDNIGHT_ZONES = ["America/Havana", "America/Santiago", "Africa/Cairo", "Asia/Beirut"]


@pytest.mark.parametrize(
    ("every", "period"), [("1d", None), ("1d", "2d"), ("1d", "3d"), ("1w", None), ("1w", "2w")]
)
@pytest.mark.parametrize("change", [0, 1])  # the spring and the autumn change of 2025
@pytest.mark.parametrize("zone", [*MIDNIGHT_ZONES, "Atlantic/Azores", "America/New_York"])
def test_local_calendar_buckets_where_clocks_change_at_midnight(
    zone: str, change: int, every: str, period: str | None
) -> None:
    # Santiago's 2025-09-07 starts at 01:00 (midnight skipped), Havana's 2025-11-02
    # has two midnights: shifting aware instants by a calendar day put window ends
    # at 01:00 of days that have a midnight (2026-09-07 01:00 -03: windows in
    # pieces, 23 rows where the day holds 47, overlapping labels).  A bucket holds
    # exactly the rows of its local dates, labelled by its first day's first instant.
    at = _transitions(zone, 2025)[change]
    utc = pl.datetime_range(
        at - dt.timedelta(days=9), at + dt.timedelta(days=9), "30m", eager=True, time_zone="UTC"
    )
    rng = np.random.default_rng(7)
    df = pl.DataFrame(
        {"ts": utc.dt.convert_time_zone(zone), "y": rng.integers(0, 2, len(utc))}
    ).with_columns(p=pl.Series(rng.integers(0, 2, len(utc))))
    got = df.metrics.over_time(
        "y", y_pred="p", index="ts", every=every, period=period, metrics=["n", "accuracy"]
    )
    _check_windows(df, got, "ts")  # n and accuracy of the rows in [start, end)
    n = got.filter(pl.col("metric") == "n")
    span = {"1d": 1, "2d": 2, "3d": 3, "1w": 7, "2w": 14}
    for row in n.iter_rows(named=True):
        start, end = row["window_start"], row["window_end"]
        # each bound is the first instant of its local day, found by brute force
        assert start == _first_instant(start.date(), zone), row
        assert end == _first_instant(end.date(), zone), row
        assert (end.date() - start.date()).days == span[period or every], row
    if period is None:  # tumbling: every row in exactly one window, no gap, no overlap
        assert n["value"].sum() == df.height
        assert n["window_start"][1:].to_list() == n["window_end"][:-1].to_list()


def test_positive_class_intervals_per_window() -> None:
    """The positive class's intervals per window: the bootstrap (the default) is
    ``per_class``'s on the window's rows (the same segment key: the same draws), row
    ``pos_label``; ``ci_method="wilson"`` is statsmodels' Wilson interval of the
    window's counts; f1 has no Wilson interval (refused, naming the bootstrap)."""
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(7)
    n = 600
    df = pl.DataFrame(
        {
            "ts": [START + dt.timedelta(minutes=int(m)) for m in rng.integers(0, 60 * 24 * 4, n)],
            "y": rng.choice(["no", "yes"], n),
            "p": rng.choice(["no", "yes"], n),
        }
    )
    args = {"y_pred": "p", "index": "ts", "every": "1d", "period": "2d", "pos_label": "yes"}
    got = df.metrics.over_time("y", metrics=POSITIVE, ci=0.9, n_boot=60, **args)
    window = got.filter(pl.col("window_end") == got["window_end"].unique().sort()[2])
    start, end = window["window_start"][0], window["window_end"][0]
    rows = df.filter((pl.col("ts") >= start) & (pl.col("ts") < end))
    rows = rows.with_columns(pl.lit(end).alias("window_end"))
    extra = {"extra_scores": "fowlkes_mallows"}  # an opt-in column of per_class
    direct = rows.metrics.per_class("y", "p", by="window_end", ci=0.9, **extra)  # the delta method
    direct = direct.filter(pl.col("label") == "yes").row(0, named=True)
    for metric in POSITIVE:
        row = window.filter(pl.col("metric") == metric).row(0, named=True)
        column = metric
        expected = (direct[column], direct[f"{column}_low"], direct[f"{column}_high"])
        assert (row["value"], row["low"], row["high"]) == pytest.approx(expected, rel=1e-12)

    wilson = df.metrics.over_time(
        "y", metrics=["precision", "recall", "specificity"], ci=0.9, ci_method="wilson", **args
    )
    y, p = rows["y"] == "yes", rows["p"] == "yes"
    tp, fp, fn, tn = (y & p).sum(), (~y & p).sum(), (y & ~p).sum(), (~y & ~p).sum()
    for metric, (hits, trials) in {
        "precision": (tp, tp + fp),
        "recall": (tp, tp + fn),
        "specificity": (tn, tn + fp),
    }.items():
        row = wilson.filter((pl.col("metric") == metric) & (pl.col("window_end") == end))
        low, high = proportion_confint(hits, trials, alpha=0.1, method="wilson")
        assert row.select("low", "high").row(0) == pytest.approx((low, high), rel=1e-9)
    with pytest.raises(ValueError, match="use ci_method='bootstrap' for \\['f1'\\]"):
        df.metrics.over_time("y", metrics=["f1"], ci=0.9, ci_method="wilson", **args)


def test_positive_class_needs_binary_labels_and_names_pos_label() -> None:
    """As the binary methods: three labels are refused; string labels need pos_label."""
    df = pl.DataFrame({"ts": [START] * 4, "y": ["a", "b", "c", "a"], "p": ["a", "b", "c", "c"]})
    args = {"y_pred": "p", "index": "ts", "every": "1d", "metrics": ["precision"]}
    with pytest.raises(ValueError, match="`pos_label` is required"):
        df.metrics.over_time("y", **args)
    with pytest.raises(plm.DataError, match=r"over_time is binary: 1 segment"):
        df.metrics.over_time("y", pos_label="a", **args)


@pytest.mark.parametrize("period", ["1w", "2w"])
def test_ks_of_continuous_scores_sorts_each_windows_rows(period: str) -> None:
    """KS of continuous scores (more than MIN_DISTINCT distinct) per segment and
    window equals the frame method on the window's rows: tumbling windows sort
    their rows (issue 49: summing the buckets' per-score counts took 10.3 s for
    roc_auc's 0.67 s on 5M rows), rolling windows and weights sum the counts."""
    rng = np.random.default_rng(3)
    n = 12_000
    y = rng.integers(0, 2, n)
    df = pl.DataFrame(
        {
            "t": np.datetime64("2025-01-06") + rng.integers(0, 28, n).astype("timedelta64[D]"),
            "g": rng.integers(0, 2, n),
            "y": y,
            "s": 1 / (1 + np.exp(-(rng.normal(size=n) + y))),
            "w": rng.random(n),
        }
    )
    for weight in (None, "w"):
        got = df.metrics.over_time(
            "y", index="t", every="1w", period=period, metrics=["ks", "roc_auc"],
            y_score="s", by="g", weight=weight,
        )  # fmt: skip
        ks = got.filter(pl.col("metric") == "ks")
        assert ks.height == 2 * 4  # 2 segments, 4 windows ending at each week's end
        for g, start, end, value in ks.select("g", "window_start", "window_end", "value").rows():
            rows = df.filter((pl.col("g") == g) & (pl.col("t") >= start) & (pl.col("t") < end))
            want = rows.metrics.ks("y", "s", weight=weight)["ks"].item()
            if weight is None:  # integer counts: the same number, bit for bit
                assert value == want, (g, start, weight)
            else:  # weights summed per score or row by row: in another order (polars
                # 2.2: 0.38841535454288983 against 0.38841535454289006)
                assert value == pytest.approx(want, rel=1e-12, abs=1e-15), (g, start, weight)


@pytest.mark.parametrize("period", [None, "3w"])
def test_ks_counts_each_bad_row_once(period: str | None) -> None:
    """A rolling window repeats each row for its k windows: the rows' checks count a
    null label once (2 here, by hand), tumbling or rolling (the review found 4 with
    period="3w" when KS sorted the repeated rows)."""
    rng = np.random.default_rng(4)
    n = 400
    df = pl.DataFrame(
        {
            "t": np.datetime64("2025-01-06") + rng.integers(0, 28, n).astype("timedelta64[D]"),
            "y": rng.integers(0, 2, n),
            "s": rng.random(n),
        }
    ).with_columns(pl.when(pl.int_range(pl.len()) < 2).then(None).otherwise("y").alias("y"))
    for metrics in (["ks"], ["ks", "roc_auc"]):
        with pytest.raises(plm.DataError, match="has 2 null rows"):
            df.metrics.over_time(
                "y", index="t", every="1w", period=period, metrics=metrics, y_score="s"
            )
