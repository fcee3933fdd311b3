"""The sections of the evaluation report, each made of ``.metrics`` frames and charts.

Every number of the report is the output of a public frame method called on
the caller's LazyFrame (no formula is written here), so the report inherits
the methods' checks, their agreement with scikit-learn and their invariances.
A section is one or a few streaming queries over the input; nothing but the
small result frames is held in memory.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import polars as pl

from pl_metrics import _probability
from pl_metrics._core import names
from pl_metrics._core.catalogue import derive, derived_from, names_of
from pl_metrics._ranking import thresholds as ranking_thresholds
from pl_metrics._report.page import Chart, Section, Table, card_html

#: The headline label metrics, in the order of the cards (the catalogue's summary family).
_SUMMARY = names_of("summary")


@dataclasses.dataclass(frozen=True)
class Spec:
    """What the caller asked for (checked by the namespace method)."""

    y_true: str
    y_pred: str | None
    y_score: str | Mapping[object, str] | None
    by: list[str | pl.Expr]
    by_names: list[str]
    pos_label: object
    weight: str | None
    ci: float | None
    n_boot: int
    seed: int | None
    ci_method: str | None  # None: each method's default; "bootstrap" or "poisson"
    bins: int | None
    n_bins: int
    alpha: float
    #: ``lf.metrics`` of a frame: the namespace, handed in by the caller (the report
    #: reads the library through it; it imports no namespace module, not even to type
    #: it: the namespace is a layer above)
    metrics: Callable[[pl.LazyFrame], Any]
    #: The drift section: the reference rows (a frame, or an expression marking them:
    #: the other sections then read the other rows) and the columns compared.
    reference: pl.DataFrame | pl.LazyFrame | pl.Expr | None = None
    drift_columns: tuple[str, ...] = ()
    #: The quality gates at the top of the page (``check``'s rules).
    rules: tuple[str, ...] = ()
    #: Performance over time: the time column and the windows' length (with a
    #: reference: the estimated metrics beside the realized ones).
    index: str | None = None
    every: str | None = None

    @property
    def binary_score(self) -> bool:
        return isinstance(self.y_score, str)

    @property
    def opts(self) -> dict[str, Any]:
        """The interval options of the methods that take them."""
        if self.ci is None:
            return {}
        method = {} if self.ci_method is None else {"ci_method": self.ci_method}
        return {"ci": self.ci, "n_boot": self.n_boot, "seed": self.seed, **method}

    @property
    def bootstrap(self) -> str:
        """The bootstrap asked for, as the page names it."""
        return "Poisson bootstrap" if self.ci_method == "poisson" else "bootstrap"

    def intervals(self, analytic: str) -> str:
        """The sentence naming a section's intervals (``analytic``: the defaults')."""
        if self.ci is None:
            return ""
        how = analytic if self.ci_method is None else f"{self.bootstrap} percentile intervals"
        return f" In brackets: {self.ci:.0%} {how}."


class Progress:
    """Prints one line per step on stderr (``progress=True``)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.step = 0
        self.start = time.perf_counter()

    def __call__(self, what: str) -> None:
        self.step += 1
        if self.enabled:
            elapsed = time.perf_counter() - self.start
            print(
                f"pl-metrics html: step {self.step}: {what} (at {elapsed:.1f} s)",
                file=sys.stderr,
                flush=True,
            )


#: Segments drawn as curves at most (one colour each); with more, the curves are
#: those of all rows and the segments' values are in their tables.
MAX_CURVES = 10

#: Segments above which the per-segment gains table holds each segment's top decile
#: alone: ten rows a segment made 78 MB of a page by 10,000 segments (119 MB in all).
MAX_GAINS_SEGMENTS = 100


def _spec(chart: Any) -> dict[str, Any]:
    """The chart's Vega-Lite spec, JSON-safe (NaN / inf as null: not drawn).  Its
    data is what :mod:`pl_metrics.plot` drew: long series are thinned there, once
    (``plot._thin``: a curve keeps its area, the AUC / AP of its legend; thinning
    it again here by position drew a jagged PR curve's area 5e-4 off its AP)."""
    import altair as alt

    def finite(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: finite(v) for k, v in value.items()}
        if isinstance(value, list):
            return [finite(v) for v in value]
        return value

    with alt.data_transformers.disable_max_rows():
        # not validated against the Vega-Lite schema here (1.6 s of a report of eight
        # charts): tests/test_plot.py and tests/test_plot_new_charts.py validate every
        # chart function's output
        spec: dict[str, Any] = chart.to_dict(validate=False)
    out: dict[str, Any] = finite(spec)
    return out


def _collect(frame: pl.LazyFrame) -> pl.DataFrame:
    return frame.collect()


# ------------------------------------------------------------------------ sections
def label_sections(
    lf: pl.LazyFrame, s: Spec, step: Callable[[str], None]
) -> Iterator[Section | list[str]]:
    """Summary cards, segments, comparison, per-class table, confusion matrix."""
    from pl_metrics import plot

    assert s.y_pred is not None
    m = s.metrics(lf)
    step("summary")
    overall = _collect(m.summary(s.y_true, s.y_pred, weight=s.weight, **s.opts))
    yield cards_of(overall, _SUMMARY)
    parts: list[Table | Chart] = [
        Table("summary", overall, "All rows: summary (accuracy, balanced accuracy, MCC, kappa).")
    ]
    if s.by:
        step("summary per segment")
        segments = _collect(m.summary(s.y_true, s.y_pred, by=s.by, weight=s.weight, **s.opts))
        parts.append(Table("summary_by", segments, "Per segment: summary."))
        if s.ci is not None:
            parts.append(
                Chart(
                    "forest_accuracy",
                    _spec(plot.forest(segments, metric="accuracy", by=s.by_names)),
                    f"Accuracy per segment with its {s.ci:.0%} interval.",
                )
            )
            step("segment comparison")
            compared = _collect(
                m.compare(s.y_true, s.y_pred, by=s.by, metric="accuracy", adjust="holm", **s.opts)
            ).select(*s.by_names, *COMPARE_SHOWN, differs=flagged(s.alpha))
            tests = "Agresti-Caffo z-tests" if s.ci_method is None else f"{s.bootstrap} tests"
            parts.append(
                Table(
                    "compare",
                    compared,
                    f"Each segment against all rows ({tests}; Holm-adjusted p-values). "
                    f"Highlighted: p_adjusted < {s.alpha:g}.",
                    flag="differs",
                )
            )
    yield Section(
        "summary-section",
        "Summary",
        "Accuracy, balanced accuracy, Matthews correlation and Cohen's kappa of the predicted "
        "labels, over all rows and per segment."
        + s.intervals("intervals: Wilson's for accuracy, the delta method's for the others"),
        parts,
    )

    step("per-class report")
    report = _collect(m.report(s.y_true, s.y_pred, weight=s.weight, **s.opts))
    cm = _collect(m.confusion_matrix(s.y_true, s.y_pred, weight=s.weight))
    yield Section(
        "classes",
        "Per class",
        "The scores of each class, then their micro, macro and weighted averages "
        "(scikit-learn's classification_report, with Jaccard and Fowlkes-Mallows)."
        + s.intervals(
            "intervals: Wilson's for the per-class proportions (precision, recall, "
            "Jaccard), the delta method's for the other scores and the averages"
        ),
        [
            Table("report", report, "All rows: per-class report."),
            Chart(
                "confusion",
                _spec(plot.confusion_matrix(cm)),
                "Confusion matrix: rows are the actual class, columns the predicted one.",
            ),
        ],
    )
    if s.by and _is_binary(report):
        step("fairness across segments")
        fair = _collect(
            m.fairness(s.y_true, s.y_pred, by=s.by, pos_label=s.pos_label, weight=s.weight)
        )
        rates = _collect(
            m.group_rates(s.y_true, s.y_pred, by=s.by, pos_label=s.pos_label, weight=s.weight)
        )
        yield Section(
            "fairness",
            "Fairness across segments",
            "fairlearn's disparity metrics between the segments (difference: largest minus "
            "smallest rate; ratio: smallest over largest), and each segment's rates.",
            [Table("fairness", fairness_rows(fair), ""), Table("group_rates", rates, "")],
        )


#: The criteria of ``fairness``: each a ``<criterion>_difference`` and ``_ratio`` column.
CRITERIA = ("demographic_parity", "equalized_odds", "equal_opportunity")


def fairness_rows(fair: pl.DataFrame) -> pl.DataFrame:
    """``fairness``' one wide row as a row per criterion: ``criterion, difference,
    ratio`` (three columns fit any window; six long names did not)."""
    return pl.concat(
        fair.select(
            pl.lit(c).alias("criterion"),
            pl.col(f"{c}_difference").alias("difference"),
            pl.col(f"{c}_ratio").alias("ratio"),
        )
        for c in CRITERIA
    )


#: The frame methods whose frames the report shows (its ``by`` may take none of
#: their output names: the tables would have two columns of one name).
METHODS = (
    "summary",
    "compare",
    "report",
    "confusion_matrix",
    "fairness",
    "group_rates",
    "roc_auc",
    "average_precision",
    "log_loss",
    "brier_score",
    "roc_curve",
    "pr_curve",
    "calibration_curve",
    "calibration_error",
    "thresholds",
    "best_threshold",
    "gains",
    "ks",
)
#: The columns of the comparison table shown (compare's others: best, ratios, outside).
COMPARE_SHOWN = (
    "metric",
    "value",
    "low",
    "high",
    "overall",
    "diff",
    "diff_low",
    "diff_high",
    "p_value",
    "p_adjusted",
)


def table_columns() -> tuple[str, ...]:
    """Every output column of the report's tables (and its own ``differs`` and ``label``)."""
    columns = [c for m in METHODS for c in names.output_columns(m, ci=True)]
    return tuple(dict.fromkeys([*columns, "differs", "label"]))


def cards_of(frame: pl.DataFrame, metrics: tuple[str, ...]) -> list[str]:
    """The headline cards of a one-row frame (with its intervals when it has them)."""
    if not frame.height:
        return []
    row = frame.row(0, named=True)
    return [card_html(m, row[m], row.get(f"{m}_low"), row.get(f"{m}_high")) for m in metrics]


def flagged(alpha: float) -> pl.Expr:
    """A segment that differs: its adjusted p-value is below ``alpha``."""
    return pl.col("p_adjusted") < alpha


def _is_binary(report: pl.DataFrame) -> bool:
    return report.filter(pl.col("label").is_not_null()).height == 2


def score_sections(
    lf: pl.LazyFrame, s: Spec, step: Callable[[str], None]
) -> Iterator[Section | list[str]]:
    """Ranking and probability metrics, curves, calibration, thresholds, gains."""
    yield from _ranking(lf, s, step)
    if s.binary_score:
        yield _calibration(lf, s, step)
        yield _thresholds(lf, s, step)
        yield _gains(lf, s, step)


def _curves(m: Any, s: Spec, binary: dict[str, Any], *, segments: int) -> list[Chart]:
    """The ROC and PR curves of a binary score: a line per segment up to
    :data:`MAX_CURVES`; beyond, no one can tell the lines apart (and the page
    grows by a curve per segment): the curves of all rows."""
    from pl_metrics import plot

    assert isinstance(s.y_score, str)
    each = bool(s.by) and segments <= MAX_CURVES
    by = s.by if each else None
    roc = _collect(m.roc_curve(s.y_true, s.y_score, by=by, bins=s.bins, **binary))
    pr = _collect(m.pr_curve(s.y_true, s.y_score, by=by, bins=s.bins, **binary))
    names = s.by_names if each else None
    whose = "per segment" if each else "of all rows"
    many = f"; {segments} segments are too many lines to tell apart: their values are above"
    many = many if s.by and not each else ""
    return [
        Chart(
            "roc", _spec(plot.roc_curve(roc, by=names)), f"ROC curve {whose} (legend: AUC){many}."
        ),
        Chart("pr", _spec(plot.pr_curve(pr, by=names)), f"PR curve {whose} (legend: AP){many}."),
    ]


def _ranking(
    lf: pl.LazyFrame, s: Spec, step: Callable[[str], None]
) -> Iterator[Section | list[str]]:
    from pl_metrics import plot

    assert s.y_score is not None
    m = s.metrics(lf)
    step("ROC AUC")
    if s.binary_score:
        binary: dict[str, Any] = {"pos_label": s.pos_label, "weight": s.weight}
        auc_opts: dict[str, Any] = {"bins": s.bins, **s.opts}
    else:  # one-vs-rest: DeLong's interval of the macro mean, or the bootstrap's
        binary, auc_opts = {"weight": s.weight}, {"bins": s.bins, **s.opts}
    auc = _collect(m.roc_auc(s.y_true, s.y_score, **binary, **auc_opts))
    cards = cards_of(auc, ("roc_auc",))
    for name in derived_from("roc_auc"):  # gini: the same frame mapped, no second pass
        cards += cards_of(derive(auc.lazy(), name).collect(), (name,))
    parts: list[Table | Chart] = [Table("roc_auc", auc, "All rows: ROC AUC.")]
    if s.by:
        step("ROC AUC per segment")
        auc_by = _collect(m.roc_auc(s.y_true, s.y_score, by=s.by, **binary, **auc_opts))
        parts.append(Table("roc_auc_by", auc_by, "Per segment: ROC AUC."))
        if "roc_auc_low" in auc_by.columns:
            chart = plot.forest(auc_by, metric="roc_auc", by=s.by_names)
            caption = f"ROC AUC per segment with its {s.ci:.0%} interval."
            parts.append(Chart("forest_roc_auc", _spec(chart), caption))
    if not isinstance(s.y_score, str):
        yield cards
        yield from _one_vs_rest(lf, s, step, parts)
        return
    score = s.y_score
    step("average precision, log loss, Brier score")
    ap_opts = {"bins": s.bins, **s.opts}  # the logit interval by default: the AP's cost
    ap = _collect(m.average_precision(s.y_true, score, by=s.by, **binary, **ap_opts))
    loss = _collect(m.log_loss(s.y_true, score, by=s.by, **binary))
    brier = _collect(m.brier_score(s.y_true, score, by=s.by, **binary))
    if not s.by:
        for name, frame in (("average_precision", ap), ("log_loss", loss), ("brier_score", brier)):
            cards += cards_of(frame, (name,))
    yield cards
    parts += [
        Table("average_precision", ap, "Average precision."),
        Table("log_loss", loss, "Log loss."),
        Table("brier_score", brier, "Brier score."),
    ]
    step("ROC and precision-recall curves")
    parts += _curves(m, s, binary, segments=ap.height)
    yield Section(
        "ranking",
        "Ranking and probabilities",
        "How well the score ranks positives above negatives (ROC AUC, average precision) and "
        "how good it is as a probability (log loss, Brier score)."
        + s.intervals("DeLong intervals of the ROC AUC, logit intervals of the AP"),
        parts,
    )


def _one_vs_rest(
    lf: pl.LazyFrame, s: Spec, step: Callable[[str], None], parts: list[Table | Chart]
) -> Iterator[Section]:
    """The ranking section of class scores (``parts``: its ROC AUC tables so far) and,
    when they are probabilities, the calibration of the top label."""
    from pl_metrics import plot

    assert isinstance(s.y_score, Mapping)
    m = s.metrics(lf)
    step("one-vs-rest curves")
    ovr: dict[str, Any] = {"weight": s.weight}
    roc = _collect(m.roc_curve(s.y_true, s.y_score, **ovr))
    pr = _collect(m.pr_curve(s.y_true, s.y_score, **ovr))
    per_class = _collect(m.roc_auc(s.y_true, s.y_score, average=None, **ovr, **s.opts)).join(
        _collect(m.average_precision(s.y_true, s.y_score, average=None, **ovr)),
        on="label",
        how="left",
        maintain_order="left",
    )
    parts += [
        Table("classes_ranking", per_class, "Each class against the rest: ROC AUC and AP."),
        Chart("roc", _spec(plot.roc_curve(roc)), "One-vs-rest ROC curve per class."),
        Chart("pr", _spec(plot.pr_curve(pr)), "One-vs-rest PR curve per class."),
    ]
    intro = (
        "One-vs-rest ROC AUC of the class scores (macro average), and each class's "
        "curves against the rest (legends: its AUC / AP)."
    )
    off = _not_probabilities(lf, s.y_score)
    if off:  # scores, not probabilities: no log loss, Brier score or calibration
        intro += (
            f" The class scores are not probabilities ({off:,} rows do not sum to 1): "
            "no log loss, Brier score or calibration."
        )
    else:
        step("log loss, Brier score")
        loss = _collect(m.log_loss(s.y_true, s.y_score, by=s.by, **ovr))
        brier = _collect(m.brier_score(s.y_true, s.y_score, by=s.by, **ovr))
        parts += [Table("log_loss", loss, "Log loss."), Table("brier_score", brier, "Brier.")]
        intro += " Log loss and Brier score of the class probabilities."
    if s.ci is not None and s.ci_method is None:
        intro += (
            f" Intervals at {s.ci:.0%}: DeLong's, per class and for the macro mean "
            "(its classes' covariances from the rows' placements)."
        )
    elif s.ci is not None:
        intro += f" Intervals at {s.ci:.0%}: the {s.bootstrap}'s, per class and for the macro mean."
    yield Section("ranking", "Ranking" if off else "Ranking and probabilities", intro, parts)
    if not off:
        yield _calibration(lf, s, step)


def _not_probabilities(lf: pl.LazyFrame, y_score: Mapping[object, str]) -> int:
    """The rows whose class scores do not sum to 1 (the methods' own rule)."""
    off, _ = _probability.rows_not_summing_to_1(list(y_score.values()), lf.collect_schema())
    return int(lf.select(off).collect().item() or 0)


def _calibration(lf: pl.LazyFrame, s: Spec, step: Callable[[str], None]) -> Section:
    """The reliability diagram and calibration error: of the binary score, or of the
    top label (the largest class probability) of class probabilities."""
    from pl_metrics import plot

    assert s.y_score is not None
    binary: dict[str, Any] = {
        "by": s.by,
        "weight": s.weight,
        "n_bins": s.n_bins,
        **({"pos_label": s.pos_label} if s.binary_score else {}),
    }
    step("calibration")
    error = _collect(s.metrics(lf).calibration_error(s.y_true, s.y_score, **binary))
    each = bool(s.by) and error.height <= MAX_CURVES  # a line per segment, as _curves
    drawn = binary | {"by": s.by if each else None}
    interval = {} if s.ci is None else {"ci": s.ci}  # Wilson's, of each bin's frequency
    curve = _collect(s.metrics(lf).calibration_curve(s.y_true, s.y_score, **drawn, **interval))
    chart = plot.reliability(curve, by=s.by_names if each else None)
    caption = "Reliability diagram" + ("" if each or not s.by else " of all rows")
    if s.by and not each:
        caption += f": {error.height} segments are too many lines to tell apart"
    what = (
        "the observed rate of positives against the mean score"
        if s.binary_score
        else "the accuracy of the top label (the class of largest probability) against its "
        "mean probability"
    )
    return Section(
        "calibration",
        "Calibration",
        f"Reliability diagram: {what}, in "
        f"{s.n_bins} equal-width score bins (a point's size: the bin's rows; hollow: fewer "
        f"than {plot.FEW_ROWS}"
        + ("" if s.ci is None else f"; a line: the rate's {s.ci:.0%} Wilson interval")
        + "); ECE / MCE: expected / maximum calibration error.",
        [
            Chart("reliability", _spec(chart), caption + "."),
            Table("calibration_error", error),
        ],
    )


def _thresholds(lf: pl.LazyFrame, s: Spec, step: Callable[[str], None]) -> Section:
    from pl_metrics import plot

    assert isinstance(s.y_score, str)
    binary: dict[str, Any] = {"pos_label": s.pos_label, "weight": s.weight, "bins": s.bins}
    step("thresholds")
    thresholds = _collect(s.metrics(lf).thresholds(s.y_true, s.y_score, **binary))
    # the best F1 of the sweep just collected (best_threshold's rule): no second sort
    best = ranking_thresholds.best(thresholds.lazy(), [], metric="f1", where=None).collect()
    chart = plot.threshold_metrics(thresholds)
    return Section(
        "thresholds",
        "Thresholds",
        "Precision, recall and F1 of the rule score >= threshold, over all rows, and the "
        "threshold of the best F1.",
        [
            Chart("threshold_metrics", _spec(chart), "Precision, recall and F1 by threshold."),
            Table("best_threshold", best, "Best F1."),
        ],
    )


def _gains(lf: pl.LazyFrame, s: Spec, step: Callable[[str], None]) -> Section:
    from pl_metrics import plot

    assert isinstance(s.y_score, str)
    binary: dict[str, Any] = {"pos_label": s.pos_label, "weight": s.weight, "bins": s.bins}
    step("gains and KS")
    m = s.metrics(lf)
    gains = _collect(m.gains(s.y_true, s.y_score, buckets=10, **binary))
    ks = _collect(m.ks(s.y_true, s.y_score, by=s.by, **binary))
    parts: list[Table | Chart] = [
        Chart(
            "gains_chart", _spec(plot.gains(gains)), "Cumulative gain against the share of rows."
        ),
        Table("gains", gains, "All rows: gains by decile."),
    ]
    if s.by:
        by_segment = _collect(m.gains(s.y_true, s.y_score, by=s.by, buckets=10, **binary))
        segments = by_segment.select(s.by_names).n_unique()
        if segments <= MAX_CURVES:  # a line per segment, as the other curves
            parts.append(
                Chart(
                    "gains_by_chart",
                    _spec(plot.gains(by_segment, by=s.by_names)),
                    "Cumulative gain per segment.",
                )
            )
        if segments <= MAX_GAINS_SEGMENTS:
            parts.append(Table("gains_by", by_segment, "Per segment: gains by decile."))
        else:
            top = by_segment.filter(pl.col("bucket") == 1)
            caption = (
                f"Per segment: the top decile ({segments:,} segments; the page holds every "
                f"decile of up to {MAX_GAINS_SEGMENTS}: all of them with "
                "`.metrics.gains(..., by=...)`)."
            )
            parts.append(Table("gains_by", top, caption))
    parts.append(Table("ks", ks, "KS."))
    return Section(
        "gains",
        "Gains, lift and KS",
        "Rows sorted by score, highest first, in ten equal shares (tied scores together): "
        "positives captured (gain) and lift of each decile, over all rows and per segment; "
        "Kolmogorov-Smirnov statistic.",
        parts,
    )


#: The PSI at and above which the drift section highlights a row (a common reading:
#: below 0.1 stable, 0.1 to 0.25 worth watching, above 0.25 a shift to act on).
PSI_FLAG = 0.25


def drift_section(lf: pl.LazyFrame, s: Spec, step: Callable[[str], None]) -> Section:
    """Drift of ``s.drift_columns`` between the reference rows and ``lf`` (all rows, per
    segment), and the bins of all rows."""
    from pl_metrics import plot

    assert s.reference is not None
    step("drift against the reference")
    m = s.metrics(lf)
    columns = list(s.drift_columns)
    flag = f"psi >= {PSI_FLAG:g}"

    def flagged_psi(by: list[str | pl.Expr]) -> pl.DataFrame:
        table = _collect(m.drift(columns, reference=s.reference, by=by or None))
        return table.with_columns((pl.col("psi") >= PSI_FLAG).fill_null(value=False).alias(flag))

    what = (
        "PSI and Jensen-Shannon over the bins, KS and Wasserstein of the numeric columns' "
        f"values. Highlighted: PSI >= {PSI_FLAG:g}."
    )
    parts: list[Table | Chart] = [Table("drift", flagged_psi([]), f"All rows: {what}", flag=flag)]
    if s.by:
        parts.append(Table("drift_by", flagged_psi(s.by), "Per segment.", flag=flag))
    bins = _collect(m.drift_bins(columns, reference=s.reference))
    parts.append(
        Chart(
            "drift_bins",
            _spec(plot.drift(bins)),
            "Share of rows per bin: the reference (grey) and all rows here.",
        )
    )
    return Section(
        "drift",
        "Drift against the reference",
        "Each column's distribution here against the reference rows: numeric columns in "
        "ten bins cut at the reference's deciles, a bin per category, nulls a bin of "
        "their own (PSI: below 0.1 is commonly read as stable, 0.1 to 0.25 as a shift "
        "worth watching, above 0.25 as one to act on).",
        parts,
    )
