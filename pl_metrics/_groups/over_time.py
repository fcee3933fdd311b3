"""Quality over time: any metric per time window, from per-bucket states.

The rows are read once, into the state of each (segment, ``every`` bucket): the
confusion counts for the label metrics, the per-score counts for the ranking
metrics.  A window of ``period = k * every`` is the sum of the states of its
``k`` buckets: each bucket's state is repeated for the ``k`` windows that hold
it and summed per window (a 7-day window costs 7 daily states, not the rows),
then finished by the same code as every frame method.  Exact, lazy, streaming,
with the same intervals.  On continuous scores the per-score counts hold a row
per row: there un-weighted ROC AUC and average precision sort each window's rows
(each row repeated for its k windows), as the frame methods do
(:func:`ranking_windows`).

Windows are trailing and labelled by ``window_start`` (inclusive) and
``window_end`` (exclusive): a window ends at the end of every bucket from the
first bucket of the input to the last (a bucket without rows still ends a
window when earlier buckets of the window have rows); windows without rows in a
segment are absent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import polars as pl

from pl_metrics import _classification, _probability
from pl_metrics._core import catalogue, checks, forms, formulas, names, scores
from pl_metrics._core.confusion import LABEL, Counts
from pl_metrics._core.names import COUNT, INTERNAL, NEG, POS
from pl_metrics._core.options import checked
from pl_metrics._core.scores import ScoreCounts
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._intervals import analytic, attach
from pl_metrics._ranking import from_counts as ranking_from_counts
from pl_metrics._ranking import gains, sorted_path

#: The output columns (declared in ``_core.names``).  WINDOW_END also holds each
#: row's bucket end while the states are built (an output column, so no user
#: column can take its name).
WINDOW_START, WINDOW_END, METRIC, VALUE, LOW, HIGH = names.OUTPUTS["over_time"]
_LAST_END = f"{INTERNAL}last_end"
_ORDER = f"{INTERNAL}metric_order"

#: over_time's metrics by family, in the catalogue's order (``_core.catalogue``)
SUMMARY = catalogue.names_of("size", "summary", over_time=True)  # over_time is single-label
AVERAGED = catalogue.names_of("averaged", over_time=True)
#: the metrics of the ``pos_label`` class (binary labels, as the binary methods)
POSITIVE = catalogue.names_of("binary", over_time=True)
#: the positive-class metrics that are proportions: Wilson's interval (``ci_method="wilson"``)
WILSON = frozenset(m for m in POSITIVE if m in formulas.PROPORTIONS)
RANKING = catalogue.names_of("ranking", over_time=True)
PROBABILITY = catalogue.names_of("probability", over_time=True)
#: the expected calibration error of 15 equal bins (``calibration_error``'s ``ece``)
CALIBRATION = catalogue.names_of("calibration", over_time=True)
CALIBRATION_BINS = 15
#: the metrics that read ``y_score`` (a binary score / probability of pos_label)
SCORED = (*RANKING, *PROBABILITY, *CALIBRATION)
METRICS = catalogue.names_of(over_time=True)
#: the metrics without an interval (null bounds with ``ci``)
WITHOUT_INTERVAL = frozenset({"n", "ks", *PROBABILITY, *CALIBRATION})

_UNITS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}
_CALENDAR = {"d": ("d", 1), "w": ("d", 7), "mo": ("mo", 1), "q": ("mo", 3), "y": ("mo", 12)}


@dataclass(frozen=True)
class Windows:
    """``every`` and ``period`` as a count ``n`` of one ``unit``, and ``k = period / every``."""

    every: str
    period: str
    step: int  # every, in `unit`
    unit: str  # a polars duration unit: ns (fixed length), d (calendar days) or mo (months)
    k: int

    def shift(self, steps: int) -> str:
        """The duration of ``steps`` buckets, for ``dt.offset_by``."""
        return f"{steps * self.step}{self.unit}"


def _parse(argument: str, text: object) -> tuple[int, str]:
    """A single-unit polars duration (``"1d"``, ``"7d"``, ``"1mo"``, ``"6h"``) as (n, unit)."""
    n, unit = forms.duration(argument, text)
    if unit in _UNITS:
        return n * _UNITS[unit], "ns"
    base, factor = _CALENDAR[unit]
    return n * factor, base


def windows(every: object, period: object) -> Windows:
    """Check ``every`` / ``period``: the period must be a whole number of buckets."""
    step, unit = _parse("every", every)
    length, period_unit = _parse("period", every if period is None else period)
    exact = period_unit == unit and not length % step
    checked("windows", every=every, period=period, exact=exact)
    return Windows(str(every), str(every if period is None else period), step, unit, length // step)


def check_metrics(
    metrics: object, *, y_pred: str | None, y_score: object, estimated: Sequence[str] = ()
) -> list[str]:
    """``metrics``: names from :data:`METRICS` (and ``estimated``: the estimated metrics,
    which read ``y_pred`` and ``y_score``), with the column each family reads."""
    names_ = forms.name_list("metrics", metrics, (*METRICS, *estimated))
    checked(
        "over_time",
        y_pred=y_pred,
        label_metrics=any(m not in SCORED for m in names_),
        y_score=y_score,
        score_metrics=any(m in SCORED or m in estimated for m in names_),
    )
    return names_


def bucket_end(lf: pl.LazyFrame, index: str, w: Windows) -> tuple[pl.Expr, str | None]:
    """Each row's bucket end (``dt.truncate(every)`` then one ``every`` later), and
    the time zone that :func:`assemble` gives it back (None: the key is the label).

    Day, week and month buckets of a time-zone-aware index are cut on the local
    calendar: the key is the local wall clock's bucket end, naive, so that
    truncation, the windows' shifts and ``window_start`` are calendar arithmetic
    on dates, and a bucket holds exactly the rows whose local date falls in it.
    Truncating and shifting the aware instants went wrong in zones whose clocks
    change at midnight (Santiago, Havana, Cairo, Beirut, the Azores): a day that
    starts at 01:00 shifted by a day lands on 01:00 of a day that has a midnight,
    splitting the windows and counting rows outside the window their label names.
    """
    checks.check_column_name("index", index)
    schema = lf.collect_schema()
    checks.check_columns(schema, index=index)
    dtype = schema[index]
    if not (dtype == pl.Date or isinstance(dtype, pl.Datetime)):
        msg = f"column {index!r} (argument `index`) must be a Date or Datetime column, got {dtype}"
        raise pl.exceptions.SchemaError(msg)
    checked("window index", every=w.every, unit=w.unit, index=index, dtype=dtype)
    time_zone = getattr(dtype, "time_zone", None)
    if time_zone is not None and w.unit == "ns":
        # Buckets shorter than a day are cut on the UTC clock: a local clock has an
        # hour that repeats and one that never happens at a daylight-saving change,
        # and local truncation with absolute offsets would give buckets that
        # overlap or leave gaps.
        utc = pl.col(index).dt.convert_time_zone("UTC")
        end = utc.dt.truncate(w.every).dt.offset_by(w.every)
        return end.dt.convert_time_zone(time_zone), None
    if time_zone is not None:
        local = pl.col(index).dt.replace_time_zone(None)
        return local.dt.truncate(w.every).dt.offset_by(w.every), time_zone
    return pl.col(index).dt.truncate(w.every).dt.offset_by(w.every), None


def first_instant(midnight: pl.Expr, time_zone: str) -> pl.Expr:
    """The first instant of the local day that starts at the naive ``midnight``.

    Midnight itself where it happens (the earlier one where it happens twice: a
    clock set back from 01:00 to 00:00); where the clock jumps over it (00:00 to
    01:00), the jump: midnight on the clock before it, the previous midnight plus
    24 hours (a fixed duration).  A jump that starts before midnight and ends after
    it is labelled by the instant the earlier clock reads midnight; tzdata has none
    since 2011 (Samoa skipped a whole day from its midnight).
    """
    aware = {"ambiguous": "earliest", "non_existent": "null"}
    here = midnight.dt.replace_time_zone(time_zone, **aware)
    before = midnight.dt.offset_by("-1d").dt.replace_time_zone(time_zone, **aware)
    return pl.coalesce(here, before + pl.duration(days=1))


def repeated(frame: pl.LazyFrame, key: str, w: Windows) -> pl.LazyFrame:
    """Each row of ``frame`` repeated for the k windows that hold it: its bucket end
    ``key`` shifted by 0 .. k - 1 buckets, the end of each window; windows ending
    after the input's last bucket are left out (a null end is kept, for
    :func:`null_index_check`)."""
    if w.k == 1:
        return frame
    last = frame.select(pl.col(key).max().alias(_LAST_END))
    copies = [frame.with_columns(pl.col(key).dt.offset_by(w.shift(j))) for j in range(w.k)]
    end = pl.col(key)
    return (
        pl.concat(copies)
        .join(last, how="cross")
        .filter((end <= pl.col(_LAST_END)) | end.is_null())
        .drop(_LAST_END)
    )


def _spread(frame: pl.LazyFrame, key: str, w: Windows, combine: dict[str, pl.Expr]) -> pl.LazyFrame:
    """Each bucket's state repeated for the k windows that hold it and combined per
    window (``combine``: each state column's aggregation; the other columns are
    the group)."""
    if w.k == 1:
        return frame
    other = [c for c in frame.collect_schema().names() if c not in combine]
    return repeated(frame, key, w).group_by(other).agg(agg.alias(c) for c, agg in combine.items())


def null_index_check(frame: pl.LazyFrame, key: str, index: str) -> pl.LazyFrame:
    """A null ``index`` is its own bucket (a state row with a null key): refused,
    never a window of its own."""
    bad = pl.col(key).is_null().sum()
    check = f"{INTERNAL}null_index"
    data_checks: list[checks.Check] = [(check, lambda _: checks.Bad.null_index(index))]
    return checks.raise_if_bad(
        frame.with_columns(bad.cast(pl.Int64).alias(check)), data_checks
    ).drop(check)


def label_windows(counts: Counts, w: Windows, index: str) -> Counts:
    """The confusion counts of each window (the last key is the bucket end)."""
    key = counts.keys[-1]
    frame = null_index_check(counts.frame, key, index)
    return replace(counts, frame=_spread(frame, key, w, {COUNT: pl.col(COUNT).sum()}).cache())


def score_windows(counts: ScoreCounts, w: Windows, index: str) -> ScoreCounts:
    """The per-score counts of each window (the last key is the bucket end)."""
    key = counts.keys[-1]
    frame = null_index_check(counts.frame, key, index)
    frame = _spread(frame, key, w, {c: pl.col(c).sum() for c in (POS, NEG)}).cache()
    return replace(counts, frame=frame)


def long_rows(
    frame: pl.LazyFrame, by: list[str], metric: str, column: str, ci: bool
) -> pl.LazyFrame:
    """A metric's rows of the output (``*by, window_end, metric, value[, low, high]``)
    from a wide frame of windows (``column`` and its bounds)."""
    low, high = names.interval_columns([column])
    interval = [pl.col(low).alias(LOW), pl.col(high).alias(HIGH)]
    return frame.select(
        *by,
        WINDOW_END,
        pl.lit(metric).alias(METRIC),
        pl.col(column).cast(pl.Float64).alias(VALUE),
        *(interval if ci else []),
    )


def finish_labels(
    counts: Counts,
    metrics: list[str],
    *,
    ci: float | None,
    ci_method: str | None,
    n_boot: int,
    seed: int | None,
) -> list[pl.LazyFrame]:
    """The label metrics of each window, one long frame per metric (``ci_method``
    None: their methods' default, the delta method of :meth:`summary` and
    :meth:`averages`)."""
    by = counts.by  # the user's by, then WINDOW_END
    out = []
    wanted = [m for m in metrics if m in SUMMARY]
    if wanted:
        point = _classification.summary(counts)
        if ci is not None:
            if ci_method == "wilson":
                point = attach.wilson_accuracy(point, ci)
            elif ci_method is None:
                point = attach.delta_summary(counts, point, ci)
            else:
                point = attach.bootstrap_labels(
                    counts, point, "summary", ci=ci, n_boot=n_boot, seed=seed
                )
        for m in wanted:
            size = catalogue.CATALOGUE[m].family == "size"  # n: a count, no interval
            has_ci = ci is not None and not size
            out.append(long_rows(point, by[:-1], m, m, has_ci))
            if ci is not None and size:
                out[-1] = out[-1].with_columns(
                    pl.lit(None, pl.Float64).alias(LOW), pl.lit(None, pl.Float64).alias(HIGH)
                )
    averaged = [m for m in metrics if m in AVERAGED]
    if averaged:
        point = _classification.averages(counts, beta=1.0, zero_division=0.0)
        if ci is not None and ci_method is None:
            point = attach.delta_labels(
                counts, point, "averages", beta=1.0, zero_division=0.0, ci=ci
            )
        elif ci is not None:
            point = attach.bootstrap_labels(
                counts,
                point,
                "averages",
                beta=1.0,
                zero_division=0.0,
                ci=ci,
                n_boot=n_boot,
                seed=seed,
            )
        for m in averaged:
            metric, average = m.rsplit("_", 1)
            rows = point.filter(pl.col("average") == average)
            out.append(long_rows(rows, by[:-1], m, metric, ci is not None))
    return out


def finish_positive(
    counts: Counts,
    pos: object,
    metrics: list[str],
    *,
    columns: tuple[str, str],
    ci: float | None,
    ci_method: str | None,
    n_boot: int,
    seed: int | None,
) -> list[pl.LazyFrame]:
    """The metrics of the ``pos`` class (compute dtype) of each window, one long frame
    per metric, from its 2x2 counts against the one other label
    (``fairness.binary_table``: more labels are refused, as by the binary methods;
    ``columns``: y_true, y_pred, for that message); a window without ``pos`` gets
    the zero-division values (0.0; specificity from its negatives), as
    scikit-learn's binary scores with ``zero_division=0``.  Intervals: those of
    ``per_class`` (its default, the delta method, or the bootstrap; null where the
    window lacks ``pos``), or (``ci_method="wilson"``) Wilson's for the
    proportions (:data:`WILSON`)."""
    wanted = [m for m in metrics if m in POSITIVE]
    table = groups_fairness.binary_table(counts, pos, "over_time", *columns)
    c = {k: pl.col(k) for k in ("tp", "fp", "fn", "tn")}
    values = [formulas.binary_metric(m, c, 0.0).alias(m) for m in wanted]
    intervals: list[pl.Expr] = []
    if ci is not None and ci_method == "wilson":
        for m in wanted:  # f1 is refused with wilson by the caller
            low, high = analytic.proportion_bounds(m, ci)
            intervals += [low.alias(f"{m}_low"), high.alias(f"{m}_high")]
    point = counts.finish(table.select(*counts.keys, *values, *intervals))
    if ci is not None and ci_method != "wilson":
        per_class = _classification.per_class(counts, beta=1.0, zero_division=0.0)
        if ci_method is None:
            per_class = attach.delta_labels(
                counts, per_class, "per_class", beta=1.0, zero_division=0.0, ci=ci
            )
        else:
            per_class = attach.bootstrap_labels(
                counts, per_class, "per_class", ci=ci, n_boot=n_boot, seed=seed
            )
        label = pl.lit(pos, counts.types.compute).cast(counts.types.output)
        bounds = per_class.filter(pl.col(LABEL) == label).select(
            *counts.by, pl.col(names.interval_columns(wanted))
        )
        point = point.join(bounds, on=counts.by, how="left", nulls_equal=True)
    return [long_rows(point, counts.by[:-1], m, m, ci is not None) for m in wanted]


#: ``(metric, counted, ci)`` -> the same point and interval from the window's rows
#: (``_ranking.sorted_path.sorted_or``: by sorting, on continuous scores).
Sorted = Callable[[str, pl.LazyFrame, float | None], pl.LazyFrame]


def finish_scores(
    counts: ScoreCounts,
    metrics: list[str],
    *,
    ci: float | None,
    ci_method: str | None,
    n_boot: int,
    seed: int | None,
    sorted_point: Sorted | None = None,
    window_ks: Callable[[], pl.LazyFrame] | None = None,
) -> list[pl.LazyFrame]:
    """The ranking metrics of each window, one long frame per metric (``ci_method``
    None: each metric's default).  ``sorted_point``: ROC AUC and average precision
    (with an analytic interval, or none) as the frame methods compute them, by
    sorting each window's rows where the scores look continuous (the per-score
    counts of a window summed from its buckets' then hold a row per row, and their
    sums cost 10x a sort); None: from the counts.  ``window_ks``: the KS of each
    tumbling window from its rows, as the frame method computes it (sorting
    continuous scores: on 5M rows KS from the summed counts took 10.3 s, roc_auc's
    sorting 0.67 s); None: from the counts (rolling windows, weights)."""
    by = counts.by
    out = []
    for m in (m for m in metrics if m in RANKING):
        if catalogue.CATALOGUE[m].ranked is catalogue.Ranked.KS:
            # from the windows' rows (window_ks: continuous scores sorted, as the
            # frame method sorts them), else from the windows' summed counts
            frame = gains.ks(counts) if window_ks is None else window_ks()
            point = frame.with_columns(
                *(pl.lit(None, pl.Float64).alias(c) for c in names.interval_columns(["ks"]))
            )
        else:  # roc_auc, average_precision, or a metric derived from one (gini)
            base = catalogue.base_of(m)
            auc = catalogue.CATALOGUE[base].ranked is catalogue.Ranked.AUC
            point = (
                ranking_from_counts.roc_auc(counts)
                if auc
                else ranking_from_counts.average_precision(counts)
            )
            method = checks.default_ci_method(base) if ci_method is None else ci_method
            if ci is not None and method == "delong":
                point = attach.delong(counts, point, ci)
            elif ci is not None and method == "logit":
                point = attach.logit(counts, point, ci)
            elif ci is not None:
                point = attach.bootstrap_scores(
                    counts, point, base, ci=ci, n_boot=n_boot, seed=seed
                )
            if sorted_point is not None and (ci is None or method in ("delong", "logit")):
                point = sorted_point(base, point, ci)
            point = catalogue.derive(point, m)
        out.append(long_rows(point, by[:-1], m, m, ci is not None))
    return out


def ranking_windows(
    lf: pl.LazyFrame,
    y_true: str,
    y_score: str,
    *,
    keys: list[str],
    w: Windows,
    index: str,
    metrics: list[str],
    pos_label: object,
    weight: str | None,
    reserved: list[str],
    ci: float | None,
    ci_method: str | None,
    n_boot: int,
    seed: int | None,
) -> list[pl.LazyFrame]:
    """The ranking metrics of each window of ``lf`` (``keys``: the segments, then the
    bucket end), one long frame per metric: from the buckets' per-score counts
    summed per window (:func:`finish_scores`), or, for ROC AUC and average
    precision of continuous scores, from each window's rows sorted as the frame
    methods sort them (each row repeated for its k windows)."""
    counts = scores.binary_score_counts(
        lf, y_true, y_score, by=keys, pos_label=pos_label, weight=weight, reserved=reserved
    )
    rows = repeated(lf.select(y_true, y_score, *keys), WINDOW_END, w)

    def sorted_point(metric: str, counted: pl.LazyFrame, ci: float | None) -> pl.LazyFrame:
        point = sorted_path.sorted_or(
            rows, counted, y_true, y_score, by=keys, pos_label=pos_label,
            weight=None, ci=ci, metric=metric,
        )  # fmt: skip
        # a null bucket end makes a segment of its own there: refused
        return null_index_check(point, WINDOW_END, index)

    windows = score_windows(counts, w, index)
    options = {"ci": ci, "ci_method": ci_method, "n_boot": n_boot, "seed": seed}
    # weights: the counts alone (sorting is for un-weighted rows; the counts'
    # plan checks the null index already)
    unweighted = sorted_point if weight is None else None

    def window_ks() -> pl.LazyFrame:
        counted = scores.binary_score_counts(
            rows, y_true, y_score, by=keys, pos_label=pos_label, weight=None,
            reserved=reserved, sortable=True,
        )  # fmt: skip
        return null_index_check(gains.ks(counted), WINDOW_END, index)

    parts = finish_scores(
        windows,
        metrics,
        sorted_point=unweighted,
        # tumbling windows: each row once, so the rows' checks count them once (a
        # rolling window's repeated rows would count a bad row k times: the counts')
        window_ks=window_ks if weight is None and w.k == 1 else None,
        **options,
    )
    return parts


def assemble(
    parts: list[pl.LazyFrame],
    by: list[str],
    metrics: list[str],
    w: Windows,
    time_zone: str | None = None,
) -> pl.LazyFrame:
    """One long frame: ``*by, window_start, window_end, metric, value[, low, high]``,
    sorted by segment, window and the order of ``metrics``; with ``time_zone``
    (:func:`bucket_end`'s local keys) both bounds are the first instants of their
    local days."""
    order = pl.col(METRIC).replace_strict(metrics, list(range(len(metrics))), return_dtype=pl.Int64)
    frame = pl.concat(parts, how="vertical_relaxed").with_columns(order.alias(_ORDER))
    end = pl.col(WINDOW_END)
    start = end.dt.offset_by(f"-{w.period}")
    if time_zone is not None:
        end, start = first_instant(end, time_zone), first_instant(start, time_zone)
    columns = frame.collect_schema().names()
    rest = [c for c in columns if c not in (*by, WINDOW_END, _ORDER)]
    return frame.sort([*by, WINDOW_END, _ORDER], nulls_last=True).select(
        *by, start.alias(WINDOW_START), end.alias(WINDOW_END), *rest
    )


def finish_probabilities(
    rows: _probability.Rows, metrics: list[str], w: Windows, index: str, *, ci: float | None
) -> list[pl.LazyFrame]:
    """log loss / Brier score of each window: per bucket the (weighted) mean loss and
    the bucket's weight (:func:`loss_buckets`), windowed by :func:`loss_windows`."""
    out = []
    for m in (m for m in metrics if m in PROBABILITY):
        frame = loss_buckets(rows, m)
        point = loss_windows(frame, m, rows.keys, w, index, ci=ci)
        out.append(long_rows(rows.finish(point), rows.by[:-1], m, m, ci is not None))
    return out


#: A bucket's (weighted) mean and its weight: the per-bucket frames of the losses
#: and of the calibration bins (:func:`loss_buckets`, :func:`calibration_buckets`),
#: which the engines make from their merged sums.
MEAN = f"{INTERNAL}mean"
WEIGHT = f"{INTERNAL}weight"
_MEAN, _WEIGHT = MEAN, WEIGHT


#: The frame method's per-row loss of each :class:`catalogue.RowLoss`.
ROW_LOSSES = {
    catalogue.RowLoss.LOG: _probability.row_log_loss,
    catalogue.RowLoss.BRIER: _probability.row_brier,
}


def row_loss(metric: str) -> catalogue.RowLoss:
    """The per-row loss whose (weighted) mean ``metric`` is (:data:`PROBABILITY`'s)."""
    found = catalogue.CATALOGUE[metric].row_loss
    assert found is not None, metric  # each probability metric of over_time has one
    return found


def loss_buckets(rows: _probability.Rows, metric: str) -> pl.LazyFrame:
    """``*keys, MEAN, WEIGHT``: per bucket the (weighted) mean of ``metric``'s per-row
    loss and the bucket's weight (rows, or summed weights), the rows' data checks."""
    total = pl.len().cast(pl.Float64) if rows.weight is None else rows.weight.sum()
    loss = ROW_LOSSES[row_loss(metric)](rows)
    return rows.aggregate(rows.mean(loss).alias(_MEAN), total.alias(_WEIGHT))


def loss_windows(
    frame: pl.LazyFrame, metric: str, keys: list[str], w: Windows, index: str, *, ci: float | None
) -> pl.LazyFrame:
    """``*keys, <metric>[, bounds]`` of each window from :func:`loss_buckets`' frame (the
    last key the bucket end): a window's mean is the buckets' means weighted by their
    weights (``formulas.weighted_mean``); null bounds with ``ci``."""
    key = keys[-1]
    frame = null_index_check(frame, key, index)
    mean = formulas.weighted_mean(pl.col(_MEAN), pl.col(_WEIGHT))
    frame = _spread(frame, key, w, {_MEAN: mean, _WEIGHT: pl.col(_WEIGHT).sum()})
    point = frame.select(*keys, pl.col(_MEAN).alias(metric))
    if ci is not None:
        nulls = [pl.lit(None, pl.Float64).alias(c) for c in names.interval_columns([metric])]
        point = point.with_columns(nulls)
    return point


TRUE = f"{INTERNAL}prob_true"
PRED = f"{INTERNAL}prob_pred"
BIN = f"{INTERNAL}bin"
_TRUE, _PRED, _BIN = TRUE, PRED, BIN


def finish_calibration(
    rows: _probability.Rows, w: Windows, index: str, *, ci: float | None
) -> list[pl.LazyFrame]:
    """The expected calibration error of each window (``calibration_error``'s ``ece``,
    :data:`CALIBRATION_BINS` equal bins): :func:`calibration_buckets`, windowed by
    :func:`calibration_windows`.  No interval (null bounds with ``ci``)."""
    point = calibration_windows(calibration_buckets(rows), rows.keys, w, index, ci=ci)
    name = CALIBRATION[0]
    return [long_rows(rows.finish(point), rows.by[:-1], name, name, ci is not None)]


def calibration_buckets(rows: _probability.Rows) -> pl.LazyFrame:
    """``*keys, BIN, TRUE, PRED, WEIGHT``: per bucket and bin the (weighted) mean
    outcome, mean probability and the bin's weight, the rows' data checks."""
    p = rows.probabilities()[0]
    outcome = rows.outcomes()[0]
    total = pl.len().cast(pl.Float64) if rows.weight is None else rows.weight.sum()
    return rows.aggregate(
        rows.mean(outcome).alias(_TRUE),
        rows.mean(p).alias(_PRED),
        total.alias(_WEIGHT),
        keys=[*rows.keys, _BIN],
        frame=rows.lf.with_columns(_probability.uniform_bin(p, CALIBRATION_BINS).alias(_BIN)),
    )


def calibration_windows(
    frame: pl.LazyFrame, keys: list[str], w: Windows, index: str, *, ci: float | None
) -> pl.LazyFrame:
    """``*keys, calibration_error[, bounds]`` of each window from
    :func:`calibration_buckets`' frame (the last key the bucket end): a window's bin
    sums its buckets' (means weighted by their weights, ``formulas.weighted_mean``),
    and its ECE is the weighted mean over its non-empty bins of ``|prob_true -
    prob_pred|``."""
    key = keys[-1]
    frame = null_index_check(frame, key, index)
    weight = pl.col(_WEIGHT)
    combine = {
        _TRUE: formulas.weighted_mean(pl.col(_TRUE), weight),
        _PRED: formulas.weighted_mean(pl.col(_PRED), weight),
        _WEIGHT: weight.sum(),
    }
    frame = _spread(frame, key, w, combine)
    gap = (pl.col(_TRUE) - pl.col(_PRED)).abs()
    ece = frame.group_by(keys).agg((gap * (weight / weight.sum())).sum().alias("ece"))
    point = ece.select(*keys, pl.col("ece").alias(CALIBRATION[0]))
    if ci is not None:
        nulls = [pl.lit(None, pl.Float64).alias(c) for c in names.interval_columns(CALIBRATION)]
        point = point.with_columns(nulls)
    return point
