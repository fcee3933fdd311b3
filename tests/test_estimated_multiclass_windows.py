"""``over_time`` and ``check`` with the estimated metrics of ``{label: column}`` scores
(multiclass CBPE, issue 52): ``estimated_<m>_<average>`` is ``estimated_performance``'s
``<m>`` on its ``average`` row (micro / macro / weighted), ``estimated_accuracy`` the
segment's accuracy.

The oracle is the frame method ``estimated_performance`` run on each window's rows
(itself checked against scikit-learn's isotonic regression and ``roc_auc_score`` in
tests/test_estimated_multiclass.py, against NannyML in tests/test_estimated_nannyml.py,
its intervals against 10,000 drawn label sets in tests/test_estimated_multiclass_ci.py);
the hypothesis cases also take that file's scikit-learn definitions directly.  The
realized metrics beside the estimates: scikit-learn's ``f1_score`` / ``accuracy_score``
on the labelled rows of each window.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from sklearn.metrics import accuracy_score, f1_score
from test_estimated_multiclass import MAP, frames
from test_estimated_multiclass import oracle as sklearn_oracle

import pl_metrics  # noqa: F401  (registers the .metrics namespace)
from pl_metrics._monitoring.check import difference_bounds

DAY0 = dt.date(2026, 3, 2)
AVERAGES = ("micro", "macro", "weighted")
COUNTED = ["precision", "recall", "f1", "jaccard", "fowlkes_mallows", "specificity"]
#: every estimated metric of {label: column} scores, written out (not read from the
#: library): each counted metric's three averages, the AUC's macro / weighted, accuracy
NAMES = [
    "estimated_roc_auc_macro",
    "estimated_roc_auc_weighted",
    *(f"estimated_{m}_{a}" for m in COUNTED for a in AVERAGES),
    "estimated_accuracy",
]


def split(name: str) -> tuple[str, str]:
    """(the metric of estimated_performance, the average row it is read from)."""
    base = name.removeprefix("estimated_")
    metric, _, average = base.rpartition("_")
    return (metric, average) if average in AVERAGES else (base, "macro")


def _scores(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores rounded to 0.05: ties; labels drawn from the true probabilities)."""
    p = rng.dirichlet([1.0, 1.0, 1.0], n)
    q = np.clip(np.round(p + rng.normal(0, 0.08, p.shape), 2) // 0.05 * 0.05, 0, 1)
    y = np.array([rng.choice(3, p=row) for row in p])
    return q, y


def reference_rows(
    seed: int, *, n: int = 300, classes: tuple[int, ...] = (0, 1, 2)
) -> pl.DataFrame:
    """Labelled reference rows ``q0, q1, q2, y, w`` (only ``classes`` among the labels)."""
    rng = np.random.default_rng(seed)
    q, y = _scores(rng, n)
    keep = np.isin(y, classes)
    frame = pl.DataFrame(
        {"q0": q[:, 0], "q1": q[:, 1], "q2": q[:, 2], "y": y, "w": rng.choice([0.5, 1.0, 2.0], n)}
    )
    return frame.filter(pl.Series(keep))


def production(seed: int, *, n: int = 700, days: int = 7) -> pl.DataFrame:
    """``day, g, q0, q1, q2, pred, y, w``: no row at all on day 3; segment "b" on the
    first three days only; "c" never predicts class 2; weights with zeros; the labels
    missing from day 5 on."""
    rng = np.random.default_rng(seed)
    q, y = _scores(rng, n)
    day = rng.choice([d for d in range(days) if d != 3], n)
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.2, 0.3])
    day[g == "b"] = day[g == "b"] % 3
    pred = np.where(g == "c", q[:, :2].argmax(axis=1), q.argmax(axis=1))
    return pl.DataFrame(
        {
            "day": [DAY0 + dt.timedelta(days=int(d)) for d in day],
            "g": g,
            "q0": q[:, 0],
            "q1": q[:, 1],
            "q2": q[:, 2],
            "pred": pred,
            "y": y,
            "w": rng.choice([0.0, 0.5, 1.0, 3.0], n),
        }
    ).with_columns(y=pl.when(pl.col("day") < DAY0 + dt.timedelta(days=5)).then("y"))


def windows_of(rows: pl.DataFrame, period: int) -> list[tuple[dt.date, dt.date]]:
    """over_time's daily windows: one ending at each day's end from the first day of
    ``rows`` to the last (those of rows of weight 0 are no rows: filter them first)."""
    if rows.height == 0:
        return []
    first, last = rows["day"].min(), rows["day"].max()
    assert isinstance(first, dt.date)
    assert isinstance(last, dt.date)
    ends = [first + dt.timedelta(days=1 + d) for d in range((last - first).days + 1)]
    return [(end - dt.timedelta(days=period), end) for end in ends]


def expected(
    current: pl.DataFrame,
    reference: pl.DataFrame,
    names: list[str],
    *,
    period: int,
    weight: str | None = None,
    ci: float | None = None,
    calibration: str | None = "isotonic",
) -> pl.DataFrame:
    """``g, window_start, window_end, metric, value[, low, high]``: estimated_performance
    on each window's rows, read from its average rows, in over_time's order."""
    kept = current if weight is None else current.filter(pl.col(weight) > 0)
    bases = list(dict.fromkeys(split(name)[0] for name in names))
    fit = {"reference": reference, "y_true": "y"} if calibration else {"calibration": None}
    parts = []
    for start, end in windows_of(kept, period):
        rows = current.filter(pl.col("day").is_between(start, end, closed="left"))
        if rows.height == 0:
            continue
        table = rows.metrics.estimated_performance(
            "pred", MAP, by="g", weight=weight, metrics=bases, ci=ci, **fit
        )
        for order, name in enumerate(names):
            metric, average = split(name)
            bounds = [pl.col(f"{metric}_low").alias("low"), pl.col(f"{metric}_high").alias("high")]
            parts.append(
                table.filter(pl.col("average") == average).select(
                    "g",
                    pl.lit(start).alias("window_start"),
                    pl.lit(end).alias("window_end"),
                    pl.lit(name).alias("metric"),
                    pl.col(metric).alias("value"),
                    *(bounds if ci is not None else []),
                    pl.lit(order).alias("order"),
                )
            )
    if not parts:
        return pl.DataFrame()
    return pl.concat(parts).sort("g", "window_end", "order").drop("order")


def same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert_frame_equal(got, want, rel_tol=1e-9, abs_tol=1e-12)


# ------------------------------------------------------------------------ over_time
@pytest.mark.parametrize(
    ("period", "weight", "ci"),
    [(1, None, None), (3, None, 0.9), (1, "w", None), (2, "w", None), (1, None, 0.95)],
)
def test_each_window_is_estimated_performance_on_its_rows(
    period: int, weight: str | None, ci: float | None
) -> None:
    reference, current = reference_rows(1), production(2)
    got = current.metrics.over_time(
        "y", y_pred="pred", y_score=MAP, index="day", every="1d", period=f"{period}d",
        by="g", weight=weight, metrics=NAMES, reference=reference, ci=ci,
    )  # fmt: skip
    want = expected(current, reference, NAMES, period=period, weight=weight, ci=ci)
    same(got, want)
    # the day without rows: no tumbling window; "b"'s windows stop after its days
    ends = got.filter(pl.col("g") == "b")["window_end"]
    assert ends.max() == DAY0 + dt.timedelta(days=2 + period)
    if period == 1:
        assert DAY0 + dt.timedelta(days=4) not in got["window_end"].to_list()


def test_the_scores_as_probabilities_without_a_reference() -> None:
    current = production(3).with_columns(
        (pl.col(q) / pl.sum_horizontal("q0", "q1", "q2")).fill_nan(0.0) for q in MAP.values()
    )
    names = ["estimated_f1_macro", "estimated_roc_auc_weighted", "estimated_accuracy"]
    got = current.metrics.over_time(
        "y", y_pred="pred", y_score=MAP, index="day", every="1d", period="2d", by="g",
        metrics=names, calibration=None, ci=0.9,
    )  # fmt: skip
    same(got, expected(current, pl.DataFrame(), names, period=2, ci=0.9, calibration=None))


def test_a_reference_expression_and_the_realized_metrics_beside() -> None:
    """The reference rows marked in the frame: in no estimated window, in the realized
    ones; the realized multiclass metrics read the rows whose label has arrived."""
    reference = reference_rows(4).with_columns(
        day=pl.lit(DAY0), g=pl.lit("a"), pred=pl.col("y"), ref=pl.lit(True)
    )
    current = production(5).with_columns(ref=pl.lit(False))
    rows = pl.concat([current, reference.select(current.columns)])
    names = ["f1_macro", "estimated_f1_macro", "accuracy", "estimated_accuracy"]
    got = rows.metrics.over_time(
        "y", y_pred="pred", y_score=MAP, index="day", every="1d", by="g", metrics=names,
        reference=pl.col("ref"), weight="w",
    )  # fmt: skip
    estimates = expected(current, reference, names[1::2], period=1, weight="w")
    same(got.filter(pl.col("metric").str.starts_with("estimated_")), estimates)
    realized = []
    labelled = rows.filter(pl.col("y").is_not_null() & (pl.col("w") > 0))
    for (g, day), part in labelled.group_by("g", "day"):
        y, p, w = part["y"], part["pred"], part["w"]
        f1 = f1_score(y, p, average="macro", sample_weight=w, zero_division=0)
        accuracy = accuracy_score(y, p, sample_weight=w)
        end = day + dt.timedelta(days=1)  # type: ignore[operator]
        realized += [(g, end, "f1_macro", f1), (g, end, "accuracy", accuracy)]
    want = pl.DataFrame(realized, schema=["g", "window_end", "metric", "value"], orient="row")
    got_realized = got.filter(~pl.col("metric").str.starts_with("estimated_"))
    keys = ["g", "window_end", "metric"]
    same(got_realized.select(*keys, "value").sort(keys), want.sort(keys))
    # the labels stop after day 4; the estimates go on
    assert got_realized["window_end"].max() == DAY0 + dt.timedelta(days=5)
    assert got["window_end"].max() == DAY0 + dt.timedelta(days=7)


def test_a_class_absent_from_the_reference() -> None:
    """Class 2 never in the reference: its map is 0 everywhere (estimated_performance's
    documented rule): its expected rows are 0, its metrics undefined and skipped by the
    macro / weighted averages; over_time reads the same rows."""
    reference, current = reference_rows(6, classes=(0, 1)), production(7)
    got = current.metrics.over_time(
        "y", y_pred="pred", y_score=MAP, index="day", every="1d", period="2d", by="g",
        metrics=NAMES, reference=reference, ci=0.9,
    )  # fmt: skip
    same(got, expected(current, reference, NAMES, period=2, ci=0.9))


def test_empty_frames_and_windows() -> None:
    reference, current = reference_rows(8), production(9)
    empty = current.clear().metrics.over_time(
        "y", y_pred="pred", y_score=MAP, index="day", every="1d", metrics=NAMES[:3],
        reference=reference,
    )  # fmt: skip
    assert empty.height == 0
    assert empty.columns == ["window_start", "window_end", "metric", "value"]
    # every row of weight 0 but one day's: one window
    one_day = current.with_columns(w=pl.when(pl.col("day") == DAY0).then("w").otherwise(0.0))
    got = one_day.metrics.over_time(
        "y", y_pred="pred", y_score=MAP, index="day", every="1d", by="g", weight="w",
        metrics=["estimated_recall_weighted"], reference=reference,
    )  # fmt: skip
    assert got["window_end"].unique().to_list() == [DAY0 + dt.timedelta(days=1)]
    same(got, expected(one_day, reference, ["estimated_recall_weighted"], period=1, weight="w"))


def test_odd_column_names() -> None:
    """Columns named as the outputs and the inner stand-in names (over_time's
    ``segment0``, estimated_performance's ``label`` / ``average`` / ``n``) and with
    spaces: the same numbers as under plain names."""
    reference, current = reference_rows(10), production(11)
    odd = {"q0": "segment0", "q1": "n", "q2": "q 2", "pred": "average", "y": "value"}
    odd_map = {0: "segment0", 1: "n", 2: "q 2"}
    names = ["estimated_f1_macro", "estimated_accuracy", "estimated_roc_auc_macro"]
    got = current.rename(odd | {"g": "label"}).metrics.over_time(
        "value", y_pred="average", y_score=odd_map, index="day", every="1d", period="2d",
        by="label", metrics=names, reference=reference.rename(odd, strict=False), ci=0.9,
    )  # fmt: skip
    want = expected(current, reference, names, period=2, ci=0.9)
    same(got, want.rename({"g": "label"}))
    with pytest.raises(ValueError, match="`y_score` column 'window_end' has the name"):
        current.rename({"q1": "window_end"}).metrics.over_time(
            "y", y_pred="pred", y_score={0: "q0", 1: "window_end", 2: "q2"}, index="day",
            every="1d", metrics=["estimated_f1_macro"], reference=reference,
        )  # fmt: skip


def test_the_form_of_the_scores_and_the_names_go_together() -> None:
    reference, current = reference_rows(12), production(13)
    args = {"index": "day", "every": "1d", "y_pred": "pred", "reference": reference}
    with pytest.raises(ValueError, match=r"\['estimated_f1'\] read one score column"):
        current.metrics.over_time("y", y_score=MAP, metrics=["estimated_f1"], **args)
    with pytest.raises(ValueError, match=r"\['roc_auc'\] read one score column"):
        current.metrics.over_time(
            "y", y_score=MAP, metrics=["roc_auc", "estimated_f1_macro"], **args
        )
    with pytest.raises(ValueError, match=r"are averages over the classes.*\['estimated_f1'\]"):
        current.metrics.over_time(
            "y", y_score="q0", metrics=["estimated_f1_macro"], pos_label=1, **args
        )
    with pytest.raises(ValueError, match="`pos_label` is for binary scores"):
        current.metrics.over_time(
            "y", y_score=MAP, metrics=["estimated_f1_macro"], pos_label=1, **args
        )
    with pytest.raises(ValueError, match="no_such"):
        current.metrics.over_time("y", y_score=MAP, metrics=["estimated_f1_no_such"], **args)


@pytest.mark.parametrize("pos_label", [None, 1])
def test_binary_realized_metrics_refused_beside_class_scores(pos_label: int | None) -> None:
    """The metrics of the class ``pos_label`` (f1, specificity, check's rates) with
    ``{label: column}`` scores, which take no ``pos_label``: one message, with
    ``pos_label`` or without (before: "pass `pos_label`" without it, "drop it" with it),
    naming the averages over the classes where there are some."""
    reference, current = reference_rows(12), production(13)
    args = {"y_pred": "pred", "y_score": MAP, "reference": reference, "pos_label": pos_label}
    said = (
        r"\['f1', 'specificity'\] are of the class `pos_label` \(binary\), but `y_score` is "
        r"\{label: column\} scores, which take no `pos_label`: ask for their averages over "
        r"the classes \['f1_macro'\] \(or _micro / _weighted\), or for \['f1', "
        r"'specificity'\] in a call without `y_score`"
    )
    names = ["f1", "specificity", "estimated_f1_macro", "f1_macro"]
    with pytest.raises(ValueError, match=f"^`metrics`: {said}$"):
        current.metrics.over_time("y", index="day", every="1d", metrics=names, **args)
    with pytest.raises(ValueError, match=r"^rule 'f1 > 0.5': \['f1'\] .* \['f1_macro'\]"):
        current.metrics.check(["estimated_f1_macro > 0.5", "f1 > 0.5"], y_true="y", **args)
    rate = r"^rule 'false_positive_rate < 0.5': .*: ask for \['false_positive_rate'\] in a"
    with pytest.raises(ValueError, match=rate):
        current.metrics.check("false_positive_rate < 0.5", y_true="y", **args)
    # without them, the same calls run (pos_label: only without, as before)
    if pos_label is None:
        current.metrics.over_time("y", index="day", every="1d", metrics=names[2:], **args)


def test_a_binary_name_past_the_form_check_is_no_accuracy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only ``estimated_accuracy`` is read from the macro row beside the averages: a
    binary name that got past the form check (switched off here) is a KeyError, not
    the accuracy under its name."""
    from pl_metrics._core import forms

    monkeypatch.setattr(forms, "score_form", lambda *args, **kwargs: None)
    reference, current = reference_rows(12), production(13)
    with pytest.raises(KeyError, match="estimated_f1"):
        current.metrics.over_time(
            "y", y_pred="pred", y_score=MAP, index="day", every="1d", reference=reference,
            metrics=["estimated_f1"],
        )  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=frames(weighted=True), data=st.data())
def test_hypothesis_windows(case: tuple[pl.DataFrame, pl.DataFrame], data: st.DataObject) -> None:
    """test_estimated_multiclass's frames (ties, constant scores, a class absent from the
    reference or never predicted, zero weights, segments) over a few days, 2-day
    windows: each window is the frame method on its rows and scikit-learn's
    definitions (that file's oracle)."""
    reference, current = case
    days = data.draw(st.lists(st.integers(0, 3), min_size=current.height, max_size=current.height))
    current = current.with_columns(
        day=pl.Series([DAY0 + dt.timedelta(days=d) for d in days]), y=pl.lit(None, pl.Int64)
    )
    got = current.metrics.over_time(
        "y", y_pred="pred", y_score=MAP, index="day", every="1d", period="2d", by="g",
        weight="w", metrics=NAMES, reference=reference,
    )  # fmt: skip
    want = expected(current, reference, NAMES, period=2, weight="w")
    if want.is_empty():  # every row of weight 0: no window
        assert got.height == 0
        return
    same(got, want)
    for start, end in windows_of(current.filter(pl.col("w") > 0), 2):
        rows = current.filter(pl.col("day").is_between(start, end, closed="left"))
        if rows.filter(pl.col("w") > 0).is_empty():  # between the rows' days: no window
            assert got.filter(pl.col("window_end") == end).height == 0
            continue
        table = sklearn_oracle(rows, reference, "w")
        for name in ("estimated_f1_macro", "estimated_roc_auc_weighted", "estimated_accuracy"):
            metric, average = split(name)
            mine = got.filter((pl.col("window_end") == end) & (pl.col("metric") == name))
            theirs = table.filter(pl.col("average") == average).select("g", pl.col(metric))
            joined = mine.join(theirs, on="g", how="full", coalesce=True)
            assert joined.height == theirs.height
            for value, truth in joined.select("value", metric).iter_rows():
                assert (value is None and truth is None) or math.isclose(
                    value, truth, rel_tol=1e-9, abs_tol=1e-12
                )


# ---------------------------------------------------------------------------- check
def status(value: float | None, low: float | None, high: float | None, op: str, t: float) -> str:
    """By hand: pass where the whole interval satisfies ``op t``, fail where none does."""
    if value is None or low is None or high is None:
        return "inconclusive"
    passes = {">=": low >= t, ">": low > t, "<=": high <= t, "<": high < t}[op]
    fails = {">=": high < t, ">": high <= t, "<=": low > t, "<": low >= t}[op]
    return "pass" if passes else "fail" if fails else "inconclusive"


def _estimates(current: pl.DataFrame, reference: pl.DataFrame, **options: object) -> dict:
    """``{(g, name): (value, low, high)}`` of estimated_performance's average rows."""
    table = current.metrics.estimated_performance(
        "pred", MAP, reference=reference, y_true="y", by="g", metrics=["f1", "roc_auc", "accuracy"],
        **options,
    )  # fmt: skip
    out = {}
    for name in ("estimated_f1_macro", "estimated_roc_auc_macro", "estimated_accuracy"):
        metric, average = split(name)
        rows = table.filter(pl.col("average") == average)
        bounds = [f"{metric}_low", f"{metric}_high"] if "ci" in options else [metric, metric]
        low, high = pl.col(bounds[0]).alias("low"), pl.col(bounds[1]).alias("high")
        for g, value, lo, hi in rows.select("g", metric, low, high).iter_rows():
            out[g, name] = (value, lo, hi)
    return out


@pytest.mark.parametrize("ci", [0.95, None])
def test_check_decides_each_segment_from_the_estimate(ci: float | None) -> None:
    reference = reference_rows(14)
    current = production(15).drop("y")  # no label at all
    found = _estimates(current, reference, **({"ci": ci} if ci else {}))
    lows = [v[1] for v in found.values()]
    highs = [v[2] for v in found.values()]
    a_accuracy = found["a", "estimated_accuracy"][0]
    rules = [
        ("estimated_f1_macro", ">=", round(min(lows) - 0.01, 4)),  # every segment passes
        ("estimated_roc_auc_macro", ">", round(max(highs) + 0.01, 4)),  # every one fails
        ("estimated_accuracy", "<=", round(a_accuracy, 4)),  # "a" straddles it
    ]
    got = current.metrics.check(
        [f"{m} {op} {t}" for m, op, t in rules], y_true="y", y_pred="pred", y_score=MAP,
        by="g", reference=reference, ci=ci,
    )  # fmt: skip
    statuses = set()
    for g in ("a", "b", "c"):
        for m, op, t in rules:
            value, low, high = found[g, m]
            row = got.filter((pl.col("g") == g) & (pl.col("metric") == m)).row(0, named=True)
            assert math.isclose(row["value"], value, rel_tol=1e-9)
            if ci is not None:
                assert math.isclose(row["low"], low, rel_tol=1e-9)
                assert math.isclose(row["high"], high, rel_tol=1e-9)
            assert row["status"] == status(value, low, high, op, t)
            statuses.add(row["status"])
    assert statuses == ({"pass", "fail", "inconclusive"} if ci else {"pass", "fail"})


def test_check_weighted_and_against_the_reference() -> None:
    """With weights (the point decides); ``estimated_f1_macro >= reference - 0.05``:
    the estimate less the macro F1 realized on the reference rows (scikit-learn), its
    interval MOVER's of the two intervals (the realized one: ``averages``' delta method)."""
    reference = reference_rows(16)
    reference = reference.with_columns(
        g=pl.Series(np.resize(["a", "b", "c"], reference.height)),
        pred=pl.concat_list("q0", "q1", "q2").list.arg_max().cast(pl.Int64),
    )
    current = production(17)
    weighted = current.metrics.check(
        "estimated_f1_weighted >= 0.3", y_true="y", y_pred="pred", y_score=MAP, by="g",
        weight="w", reference=reference, ci=None,
    )  # fmt: skip
    table = current.metrics.estimated_performance(
        "pred", MAP, reference=reference, y_true="y", by="g", weight="w", metrics=["f1"]
    ).filter(pl.col("average") == "weighted")
    same(weighted.select("g", "value"), table.select("g", pl.col("f1").alias("value")))
    assert weighted["status"].to_list() == ["pass" if v >= 0.3 else "fail" for v in table["f1"]]

    got = current.metrics.check(
        "estimated_f1_macro >= reference - 0.05", y_true="y", y_pred="pred", y_score=MAP,
        by="g", reference=reference, ci=0.9,
    ).sort("g")  # fmt: skip
    estimate = current.metrics.estimated_performance(
        "pred", MAP, reference=reference, y_true="y", by="g", metrics=["f1"], ci=0.9
    ).filter(pl.col("average") == "macro")
    realized = reference.metrics.averages("y", "pred", by="g", zero_division=0.0, ci=0.9).filter(
        pl.col("average") == "macro"
    )
    for g, value, low, high in got.select("g", "value", "low", "high").iter_rows():
        part = reference.filter(pl.col("g") == g)
        truth = f1_score(part["y"], part["pred"], average="macro", zero_division=0)
        e = estimate.filter(pl.col("g") == g).row(0, named=True)
        r = realized.filter(pl.col("g") == g).row(0, named=True)
        assert math.isclose(value, e["f1"] - truth, rel_tol=1e-9)
        bounds = difference_bounds(
            (pl.lit(e["f1"]), pl.lit(e["f1_low"]), pl.lit(e["f1_high"])),
            (pl.lit(r["f1"]), pl.lit(r["f1_low"]), pl.lit(r["f1_high"])),
        )
        want_low, want_high = pl.select(*(b.alias(str(i)) for i, b in enumerate(bounds))).row(0)
        assert math.isclose(low, want_low, rel_tol=1e-9)
        assert math.isclose(high, want_high, rel_tol=1e-9)


def test_check_refuses_what_it_cannot_decide() -> None:
    reference, current = reference_rows(18), production(19)
    args = {"y_true": "y", "y_pred": "pred", "reference": reference}
    with pytest.raises(
        ValueError, match=r"rule 'estimated_roc_auc >= 0.5'.*estimated_roc_auc_macro"
    ):
        current.metrics.check("estimated_roc_auc >= 0.5", y_score=MAP, **args)
    with pytest.raises(ValueError, match=r"rule 'roc_auc >= 0.5': \['roc_auc'\] read one"):
        current.metrics.check("roc_auc >= 0.5", y_score=MAP, **args)
    with pytest.raises(ValueError, match=r"rule 'estimated_f1_macro > 0.5'.*\['estimated_f1'\]"):
        current.metrics.check("estimated_f1_macro > 0.5", y_score="q0", **args)
    for metric in ("estimated_roc_auc_macro", "estimated_specificity_weighted"):
        with pytest.raises(ValueError, match=f"rule '{metric} >= reference - 0.1'.*a number"):
            current.metrics.check(f"{metric} >= reference - 0.1", y_score=MAP, **args)


# -------------------------------------------------------------------------- engines
def test_the_engines_give_the_estimates_beside_the_realized(tmp_path: Path) -> None:
    """over_time's and check's estimates of {label: column} scores on the engines are
    the frame method's (partitions, weights and intervals:
    tests/test_engines_estimated_class_windows.py), the realized multiclass metrics
    beside them too; the interval of the ROC AUC's average is refused before any job
    (it multiplies each row's placements in two classes' rankings)."""
    import pl_metrics.dask as pmd

    current = production(20).filter(pl.col("y").is_not_null())  # the realized read them
    paths = []
    for i in range(2):  # every other row
        paths.append(str(tmp_path / f"part{i}.parquet"))
        current.gather_every(2, offset=i).write_parquet(paths[-1])
    reference = reference_rows(21)
    kw = {"y_pred": "pred", "y_score": MAP, "index": "day", "every": "1d", "by": "g"}
    metrics = ["f1_macro", "estimated_f1_macro", "estimated_roc_auc_weighted"]
    got = pmd.over_time(paths, "y", metrics=metrics, reference=reference, **kw)
    same(got, current.metrics.over_time("y", metrics=metrics, reference=reference, **kw))
    gate = {"y_true": "y", "y_pred": "pred", "y_score": MAP, "reference": reference}
    rules = ["estimated_accuracy > 0.2", "estimated_f1_macro > 0.5"]
    same(pmd.check(paths, rules, **gate), current.metrics.check(rules, **gate))
    with pytest.raises(NotImplementedError, match=r"check of .* with ci and estimated_roc_auc"):
        pmd.check(paths, "estimated_roc_auc_macro > 0.5", ci=0.9, **gate)
    got = pmd.over_time(paths, "y", metrics=["f1_macro", "accuracy"], **kw)
    same(got, current.metrics.over_time("y", metrics=["f1_macro", "accuracy"], **kw))
