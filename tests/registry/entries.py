"""The registry's entries: every public method called once on the registry's frame.

To register a method: add an :class:`Entry` to :data:`METHODS` (a state finisher to
:data:`FINISHERS`).  The laws in this package's ``test_*`` modules then run it:
row order, label renaming, eager = lazy = streaming = ``scan_parquet`` = merged
states, zero / integer weights, ``by`` names and expressions, bad input, the CLI
and the charts.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics as plm
from pl_metrics import MetricsDataFrame, MetricsLazyFrame
from pl_metrics._core import names


@dataclasses.dataclass(frozen=True)
class Cols:
    """The column names (and label values) an entry reads."""

    y: str = "y"  # multiclass labels 0/1/2
    p: str = "p"  # multiclass predictions 0/1/2
    yb: str = "yb"  # binary labels 0/1
    s: str = "s"  # binary score in [0, 1], 2 decimals (ties)
    pb: str = "pb"  # binary predictions 0/1 of yb
    p2: str = "p2"  # a second model: multiclass predictions 0/1/2
    s2: str = "s2"  # ... its binary score (2 decimals)
    pb2: str = "pb2"  # ... and binary predictions 0/1
    q: tuple[tuple[object, str], ...] = ((0, "q0"), (1, "q1"), (2, "q2"))  # class probs
    ml: str = "ml"  # multilabel: a List of the labels 0/1/2 of each row (scores: q)
    mlp: str = "mlp"  # multilabel predictions: a List of labels 0/1/2 (the two models')
    # the same multilabel sets as {label: indicator column} (Boolean truth, 0/1 predictions)
    mlmap: tuple[tuple[object, str], ...] = ((0, "mt0"), (1, "mt1"), (2, "mt2"))
    mlpmap: tuple[tuple[object, str], ...] = ((0, "mp0"), (1, "mp1"), (2, "mp2"))
    # ... and the truth as 0.0 / 1.0 Float64 indicator columns
    mlfmap: tuple[tuple[object, str], ...] = ((0, "mf0"), (1, "mf1"), (2, "mf2"))
    # the multiclass labels y one-hot: {label: 0/1 Int8 column}, one set per row
    oh: tuple[tuple[object, str], ...] = ((0, "oh0"), (1, "oh1"), (2, "oh2"))
    rl: str = "rl"  # graded relevances of the labels 0/1/2, a List aligned with q
    rel: tuple[tuple[object, str], ...] = ((0, "r0"), (1, "r1"), (2, "r2"))  # relevances
    w: str | None = None
    by: str | None = "g"
    pos: object = 1  # the positive label of yb
    neg: object = 0

    @property
    def qmap(self) -> dict[object, str]:
        return dict(self.q)

    @property
    def relmap(self) -> dict[object, str]:
        return dict(self.rel)


def _frame(n: int = 240, seed: int = 7) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    raw = rng.random((n, 3)) + 0.5 * np.eye(3)[y]  # the true class not always on top
    q = raw / raw.sum(axis=1, keepdims=True)
    yb = (rng.random(n) < 0.4).astype(np.int64)
    s = np.round(np.clip(0.3 * yb + rng.random(n) * 0.7, 0, 1), 2)
    frame = pl.DataFrame(
        {
            "g": rng.choice(["a", "b", "c"], n),
            "y": y,
            "p": p,
            "yb": yb,
            "s": s,
            "pb": (s >= 0.5).astype(np.int64),
            "q0": q[:, 0],
            "q1": q[:, 1],
            "q2": q[:, 2],
            "w": np.round(rng.random(n) * 3 + 0.1, 3),
            "wi": rng.integers(1, 4, n),
            "ts": [dt.date(2026, 3, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 6, n)],
        }
    )
    # a second model (compare_models), drawn after every column above: they stay as they were
    p2 = np.where(rng.random(n) < 0.65, y, rng.integers(0, 3, n))
    s2 = np.round(np.clip(0.35 * yb + rng.random(n) * 0.65, 0, 1), 2)
    frame = frame.with_columns(p2=p2, s2=s2, pb2=(s2 >= 0.5).astype(np.int64))
    # multilabel, from the columns above (no draw): the actual and the predicted class,
    # every 11th row no label, every 13th all three; graded relevances 2 x actual + predicted
    i = pl.int_range(pl.len())
    ml = pl.concat_list("y", "p").list.unique().list.sort()
    ml = pl.when(i % 11 == 0).then(pl.lit([], pl.List(pl.Int64))).otherwise(ml)
    ml = pl.when(i % 13 == 0).then(pl.lit([0, 1, 2], pl.List(pl.Int64))).otherwise(ml)
    frame = frame.with_columns(
        ml.alias("ml"),
        *(
            (2 * (pl.col("y") == j).cast(pl.Float64) + (pl.col("p") == j)).alias(f"r{j}")
            for j in range(3)
        ),
    )
    frame = frame.with_columns(pl.concat_list("r0", "r1", "r2").cast(pl.List(pl.Int64)).alias("rl"))
    # multilabel predictions (no draw): both models' classes, every 7th row none
    mlp = pl.concat_list("p", "p2").list.unique().list.sort()
    mlp = pl.when(i % 7 == 0).then(pl.lit([], pl.List(pl.Int64))).otherwise(mlp)
    frame = frame.with_columns(mlp.alias("mlp"))
    frame = frame.with_columns(
        *(pl.col("ml").list.contains(j).alias(f"mt{j}") for j in range(3)),
        *(pl.col("mlp").list.contains(j).cast(pl.Int8).alias(f"mp{j}") for j in range(3)),
        *(pl.col("ml").list.contains(j).cast(pl.Float64).alias(f"mf{j}") for j in range(3)),
        *((pl.col("y") == j).cast(pl.Int8).alias(f"oh{j}") for j in range(3)),
    )
    return frame.with_columns(
        pl.when(pl.int_range(pl.len()) % 17 == 0).then(None).otherwise("g").alias("g")
    )


DATA = _frame()
Call = Callable[[object, Cols], object]


@dataclasses.dataclass(frozen=True)
class Entry:
    """One public method: how to call it and what it reads."""

    name: str
    call: Call  # (namespace or state, cols) -> frame
    reads: tuple[str, ...]  # the Cols it reads: "labels", "binary", "multilabel_map", ...
    weighted: bool = True  # takes weight=
    state: str | None = None  # "counts" / "score_counts": also finished from merged states
    outputs: str | None = None  # key of names.OUTPUTS (default: name)
    beta: float = 1.0
    ci: bool = False  # adds the *_low / *_high columns
    bootstrap: bool = False  # its intervals are random draws (from a seed)
    columns: tuple[str, ...] = ()  # output columns named by the call (custom's metrics)

    def output_columns(self) -> tuple[str, ...]:
        """The columns after ``*by`` (declared in ``names.OUTPUTS``, and the call's own):
        every column the method can write (its opt-in ones too), the names ``by`` may
        not take."""
        declared = names.output_columns(self.outputs or self.name, beta=self.beta, ci=self.ci)
        return (*declared, *self.columns)


def _m(name: str, **kw: object) -> Call:
    """A call of ``.metrics.<name>`` on the label columns."""
    return lambda m, c: getattr(m, name)(c.y, c.p, by=c.by, weight=c.w, **kw)


def _bl(name: str, **kw: object) -> Call:
    """A call of ``.metrics.<name>`` on the binary predicted labels."""
    return lambda m, c: getattr(m, name)(c.yb, c.pb, by=c.by, weight=c.w, pos_label=c.pos, **kw)


def _b(name: str, **kw: object) -> Call:
    """A call of ``.metrics.<name>`` on the binary score."""
    return lambda m, c: getattr(m, name)(c.yb, c.s, by=c.by, weight=c.w, pos_label=c.pos, **kw)


CI = {"ci": 0.9, "n_boot": 40, "seed": 3}
#: The opt-in per-class scores (``extra_scores=``).
EXTRA = ("fowlkes_mallows", "informedness", "markedness")
#: The columns of the stacked rows of compare_models[stacked]: id, model, prediction.
STACKED = ("stack_id", "stack_model", "stack_pred")


def stack(frame: pl.DataFrame | pl.LazyFrame, c: Cols) -> pl.DataFrame | pl.LazyFrame:
    """The two models' predictions ``c.p``, ``c.p2`` of each row as two stacked rows
    (``STACKED``: the row's index, the model named by its column, the prediction)."""
    rows = frame.with_row_index(STACKED[0])
    return pl.concat(
        rows.with_columns(pl.lit(p).alias(STACKED[1]), pl.col(p).alias(STACKED[2]))
        for p in (c.p, c.p2)
    )


def _stacked(m: object, c: Cols) -> object:
    """The namespace of the stacked rows of the frame of namespace ``m`` (lazy stays lazy)."""
    if isinstance(m, MetricsDataFrame):
        return stack(m._df, c).metrics
    assert isinstance(m, MetricsLazyFrame)
    return stack(m._lf, c).metrics


#: The reference rows of estimated_performance: the even days (the CLI's
#: ``ts IN (DATE '2026-03-02', DATE '2026-03-04', DATE '2026-03-06')``).
ESTIMATE_REFERENCE = pl.col("ts").dt.day() % 2 == 0

#: The groups of the disparity methods, whose output is per control stratum: the
#: registry's ``by`` is their ``control=`` (a column of the output), these the groups.
GROUPS = (pl.col("q0") > 0.35).alias("high_q0")

METHODS: list[Entry] = [
    Entry("confusion_matrix", _m("confusion_matrix"), ("labels",), state="counts"),
    Entry("counts", _m("counts"), ("labels",)),
    Entry("per_class", _m("per_class", beta=2.0), ("labels",), state="counts", beta=2.0),
    Entry("averages", _m("averages", zero_division=1.0), ("labels",), state="counts"),
    Entry("report", _m("report"), ("labels",), state="counts"),
    Entry(
        "report[extra_scores]",  # the opt-in scores: fowlkes_mallows, informedness, markedness
        _m("report", extra_scores=list(EXTRA), beta=0.5),
        ("labels",),
        outputs="report",
        state="counts",
        beta=0.5,
    ),
    Entry(
        "per_class[ci-extra_scores]",  # the delta method's intervals of the opt-in scores
        _m("per_class", extra_scores=list(EXTRA), **CI),
        ("labels",),
        outputs="per_class",
        ci=True,
        weighted=False,
        state="counts",
    ),
    Entry(
        "report[ci]",  # the delta method (the default): no draws
        _m("report", **CI),
        ("labels",),
        outputs="report",
        ci=True,
        weighted=False,
        state="counts",
    ),
    Entry(
        "report[bootstrap]",
        _m("report", **CI, ci_method="bootstrap"),
        ("labels",),
        outputs="report",
        ci=True,
        weighted=False,
        bootstrap=True,
        state="counts",
    ),
    Entry("summary", _m("summary"), ("labels",), state="counts"),
    Entry(
        "summary[kappa_weights]",
        # the weights depend on the label order: given, so that renaming keeps it
        lambda m, c: m.summary(
            c.y, c.p, by=c.by, weight=c.w, labels=[k for k, _ in c.q], kappa_weights="quadratic"
        ),
        ("labels",),
        outputs="summary",
    ),
    Entry(
        "summary[replace_undefined_by]",
        _m("summary", replace_undefined_by=0.5),
        ("labels",),
        state="counts",
        outputs="summary",
    ),
    Entry(
        "confusion_matrix[normalize]",
        _m("confusion_matrix", normalize="true"),
        ("labels",),
        outputs="confusion_matrix",
    ),
    Entry(
        "class_likelihood_ratios",
        lambda m, c: m.class_likelihood_ratios(c.yb, c.pb, by=c.by, weight=c.w, pos_label=c.pos),
        ("binary_labels",),
    ),
    Entry("selection_rate", _bl("selection_rate"), ("binary_labels",)),
    Entry("group_rates", _bl("group_rates"), ("binary_labels",)),
    Entry(
        "fairness",
        lambda m, c: m.fairness(
            c.yb, c.pb, by=GROUPS, control=c.by, weight=c.w, pos_label=c.pos, agg="mean"
        ),
        ("binary_labels",),
    ),
    Entry(
        "fairness[ci]",
        lambda m, c: m.fairness(
            c.yb, c.pb, by=GROUPS, control=c.by, pos_label=c.pos, method="to_overall", **CI
        ),
        ("binary_labels",),
        outputs="fairness",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "reference_disparities",
        lambda m, c: m.reference_disparities(
            c.yb, c.pb, by=GROUPS, control=c.by, weight=c.w, pos_label=c.pos
        ),
        ("binary_labels",),
    ),
    Entry(
        "disparity",
        lambda m, c: m.disparity(
            c.y, c.p, by=GROUPS, control=c.by, weight=c.w, metric=["accuracy", "f1_macro"]
        ),
        ("labels",),
    ),
    Entry(  # scikit-learn-shaped callables (custom's), once per group in Python
        "disparity[callables]",
        lambda m, c: m.disparity(
            c.y,
            c.p,
            by=GROUPS,
            control=c.by,
            weight=c.w,
            metric={"acc": skm.accuracy_score, "mcc": skm.matthews_corrcoef},
        ),
        ("labels",),
        outputs="disparity",
    ),
    Entry(
        "disparity[scores]",
        lambda m, c: m.disparity(
            c.yb,
            c.s,
            by=GROUPS,
            control=c.by,
            weight=c.w,
            pos_label=c.pos,
            metric=["roc_auc", "log_loss"],
        ),
        ("binary",),
        outputs="disparity",
    ),
    Entry(
        "disparity[ci]",
        lambda m, c: m.disparity(
            c.yb, c.pb, by=GROUPS, control=c.by, pos_label=c.pos, metric="f1", **CI
        ),
        ("binary_labels",),
        outputs="disparity",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "compare[any metric]",
        lambda m, c: m.compare(
            c.yb,
            c.pb,
            by=c.by,
            pos_label=c.pos,
            metric="false_positive_rate",
            n_boot=30,
            adjust="bh",
        ),
        ("binary_labels",),
        weighted=False,
        outputs="compare",
        bootstrap=True,
    ),
    Entry(
        "summary[ci]",  # the delta method (the default): no draws
        _m("summary", **CI),
        ("labels",),
        outputs="summary",
        ci=True,
        weighted=False,
        state="counts",
    ),
    Entry(
        "summary[bootstrap]",
        _m("summary", **CI, ci_method="bootstrap"),
        ("labels",),
        outputs="summary",
        ci=True,
        weighted=False,
        bootstrap=True,
        state="counts",
    ),
    Entry("roc_auc", _b("roc_auc"), ("binary",), state="score_counts"),
    Entry("roc_auc[bins]", _b("roc_auc", bins=8), ("binary",), outputs="roc_auc"),
    Entry(
        "roc_auc[ci]",
        _b("roc_auc", **CI),
        ("binary",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
        bootstrap=True,
        state="score_counts",
    ),
    Entry(
        "roc_auc[delong]",
        _b("roc_auc", ci=0.9, ci_method="delong"),
        ("binary",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
        state="score_counts",
    ),
    # gini: roc_auc mapped (catalogue.derive), with its own output names
    Entry("gini", _b("gini"), ("binary",), state="score_counts"),
    Entry("gini[bins]", _b("gini", bins=8), ("binary",), outputs="gini"),
    Entry(
        "gini[delong]",
        _b("gini", ci=0.9, ci_method="delong"),
        ("binary",),
        outputs="gini",
        ci=True,
        weighted=False,
        state="score_counts",
    ),
    Entry(
        "gini[ovr]",
        lambda m, c: m.gini(c.y, c.qmap, by=c.by, weight=c.w, average=None),
        ("multiclass",),
        outputs="gini",
    ),
    Entry(
        "roc_auc[ovr]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, weight=c.w, average="weighted"),
        ("multiclass",),
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[ovr][delong]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, average="weighted", ci=0.9),
        ("multiclass",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
    ),
    Entry(
        "roc_auc[ovr][delong][per_class]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, average=None, ci=0.9),
        ("multiclass",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
    ),
    Entry(  # the bootstrap of the rows: per class, and of the macro mean
        "roc_auc[ovr][bootstrap][per_class]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, average=None, ci_method="bootstrap", **CI),
        ("multiclass",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "roc_auc[ovr][bootstrap]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, ci_method="bootstrap", **CI),
        ("multiclass",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "roc_auc[ovo]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, multi_class="ovo"),
        ("multiclass",),
        weighted=False,
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[per_class]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, weight=c.w, average=None),
        ("multiclass",),
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[micro]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, weight=c.w, average="micro"),
        ("multiclass",),
        outputs="roc_auc",
    ),
    Entry("roc_auc[max_fpr]", _b("roc_auc", max_fpr=0.3), ("binary",), outputs="roc_auc"),
    Entry(
        "roc_auc[multilabel]",
        lambda m, c: m.roc_auc(c.ml, c.qmap, by=c.by, weight=c.w, average=None),
        ("multilabel",),
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[multilabel-max_fpr]",
        lambda m, c: m.roc_auc(c.ml, c.qmap, by=c.by, weight=c.w, average="weighted", max_fpr=0.4),
        ("multilabel",),
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[multilabel-samples-max_fpr]",
        lambda m, c: m.roc_auc(c.ml, c.qmap, by=c.by, weight=c.w, average="samples", max_fpr=0.3),
        ("multilabel",),
        outputs="roc_auc",
    ),
    Entry(
        "average_precision[multilabel]",
        lambda m, c: m.average_precision(c.ml, c.qmap, by=c.by, weight=c.w, average="samples"),
        ("multilabel",),
        outputs="average_precision",
    ),
    Entry(
        "average_precision[multilabel-float]",  # 0.0 / 1.0 float indicators of the truth
        lambda m, c: m.average_precision(dict(c.mlfmap), c.qmap, by=c.by, weight=c.w, average=None),
        ("multilabel_float",),
        outputs="average_precision",
    ),
    Entry(
        "coverage_error",
        lambda m, c: m.coverage_error(c.ml, c.qmap, by=c.by, weight=c.w),
        ("multilabel",),
    ),
    # multilabel set-based metrics (List columns; the mapping form: test_multilabel.py)
    Entry(
        "per_class[multilabel]",
        lambda m, c: m.per_class(c.ml, c.mlp, by=c.by, weight=c.w, beta=2.0),
        ("multilabel",),
        outputs="per_class",
        state="multilabel_counts",
        beta=2.0,
    ),
    Entry(
        "averages[multilabel]",
        lambda m, c: m.averages(c.ml, c.mlp, by=c.by, weight=c.w, zero_division=1.0),
        ("multilabel",),
        outputs="averages",
        state="multilabel_counts",
    ),
    Entry(
        "averages[multilabel-extra_scores]",
        lambda m, c: m.averages(c.ml, c.mlp, by=c.by, weight=c.w, extra_scores=list(EXTRA)),
        ("multilabel",),
        outputs="averages",
        state="multilabel_counts",
    ),
    Entry(
        "report[multilabel]",
        # a subset of the labels, in another order (renamed with the data: c.q's keys)
        lambda m, c: m.report(c.ml, c.mlp, by=c.by, weight=c.w, labels=[c.q[2][0], c.q[0][0]]),
        ("multilabel",),
        outputs="report",
        state="multilabel_counts[labels]",
    ),
    Entry(
        "report[multilabel-map]",  # the indicator form: the List form's numbers
        lambda m, c: m.report(dict(c.mlmap), dict(c.mlpmap), by=c.by, weight=c.w),
        ("multilabel_map",),
        outputs="report",
        state="multilabel_counts[map]",
    ),
    Entry(
        "summary[multilabel]",
        lambda m, c: m.summary(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
        outputs="summary",
        state="multilabel_counts",
    ),
    Entry(
        "report[multilabel-ci]",  # bootstrap of whole rows
        lambda m, c: m.report(c.ml, c.mlp, by=c.by, **CI),
        ("multilabel",),
        outputs="report",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "summary[multilabel-ci]",
        lambda m, c: m.summary(c.ml, c.mlp, by=c.by, **CI),
        ("multilabel",),
        outputs="summary",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "multilabel_confusion_matrix",
        lambda m, c: m.multilabel_confusion_matrix(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
        state="multilabel_counts",
    ),
    # the multilabel state (all labels; and a subset, for report[multilabel]'s labels=)
    Entry(
        "multilabel_counts",
        lambda m, c: m.multilabel_counts(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
    ),
    Entry(
        "multilabel_counts[map]",
        lambda m, c: m.multilabel_counts(dict(c.mlmap), dict(c.mlpmap), by=c.by, weight=c.w),
        ("multilabel_map",),
        outputs="multilabel_counts",
    ),
    Entry(
        "multilabel_counts[labels]",
        lambda m, c: m.multilabel_counts(
            c.ml, c.mlp, by=c.by, weight=c.w, labels=[c.q[2][0], c.q[0][0]]
        ),
        ("multilabel",),
        outputs="multilabel_counts",
    ),
    Entry("hamming_loss", _m("hamming_loss"), ("labels",)),
    Entry(
        "hamming_loss[multilabel]",
        lambda m, c: m.hamming_loss(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
        outputs="hamming_loss",
        state="multilabel_counts",
    ),
    Entry("zero_one_loss", _m("zero_one_loss", normalize=False), ("labels",)),
    Entry(
        "zero_one_loss[multilabel]",
        lambda m, c: m.zero_one_loss(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
        outputs="zero_one_loss",
        state="multilabel_counts",
    ),
    Entry(
        "label_ranking_average_precision",
        lambda m, c: m.label_ranking_average_precision(c.ml, c.qmap, by=c.by, weight=c.w),
        ("multilabel",),
    ),
    Entry(
        "label_ranking_average_precision[one-label]",  # scikit-learn's 1 per row
        lambda m, c: m.label_ranking_average_precision(
            dict(c.mlmap[:1]), dict(c.q[:1]), by=c.by, weight=c.w
        ),
        ("multilabel_map",),
        outputs="label_ranking_average_precision",
    ),
    Entry(
        "label_ranking_loss",
        lambda m, c: m.label_ranking_loss(c.ml, c.qmap, by=c.by, weight=c.w),
        ("multilabel",),
    ),
    Entry(
        "ndcg",
        lambda m, c: m.ndcg(c.rl, c.qmap, labels=[k for k, _ in c.q], k=2, by=c.by, weight=c.w),
        ("relevance",),
    ),
    Entry(
        "dcg",
        lambda m, c: m.dcg(c.rl, c.qmap, labels=[k for k, _ in c.q], by=c.by, weight=c.w),
        ("relevance",),
    ),
    Entry(
        "dcg[mapping]",
        lambda m, c: m.dcg(c.relmap, c.qmap, log_base=3, by=c.by, weight=c.w),
        ("relevance_map",),
        outputs="dcg",
    ),
    Entry("average_precision", _b("average_precision"), ("binary",), state="score_counts"),
    Entry(
        "average_precision[multiclass]",
        lambda m, c: m.average_precision(c.y, c.qmap, by=c.by, weight=c.w, average="weighted"),
        ("multiclass",),
        outputs="average_precision",
    ),
    Entry(
        "average_precision[per_class]",
        lambda m, c: m.average_precision(c.y, c.qmap, by=c.by, weight=c.w, average=None),
        ("multiclass",),
        outputs="average_precision",
    ),
    Entry(
        "average_precision[ci]",
        _b("average_precision", **CI),
        ("binary",),
        outputs="average_precision",
        ci=True,
        weighted=False,
        bootstrap=True,
        state="score_counts",
    ),
    Entry("roc_curve", _b("roc_curve"), ("binary",), state="score_counts"),
    Entry(
        "roc_curve[multiclass]",
        lambda m, c: m.roc_curve(c.y, c.qmap, by=c.by, weight=c.w),
        ("multiclass",),
        outputs="roc_curve",
    ),
    Entry("pr_curve", _b("pr_curve"), ("binary",), state="score_counts"),
    Entry(
        "pr_curve[multiclass]",
        lambda m, c: m.pr_curve(c.y, c.qmap, by=c.by, weight=c.w, drop_intermediate=True),
        ("multiclass",),
        outputs="pr_curve",
    ),
    Entry(
        "pr_curve[drop_intermediate]",
        _b("pr_curve", drop_intermediate=True),
        ("binary",),
        outputs="pr_curve",
    ),
    Entry("score_counts", _b("score_counts"), ("binary",)),
    Entry(
        "drift",
        lambda m, c: m.drift(
            [c.s, c.s2], reference=pl.col("ts") < dt.date(2026, 3, 3), by=c.by, bins=4
        ),
        ("columns",),
        weighted=False,
    ),
    Entry(  # the current rows' state at fixed edges (the reference's: drift_edges)
        "drift_counts",
        lambda m, c: m.drift_counts([c.s, c.s2], edges={c.s: [0.2, 0.5], c.s2: [0.4]}, by=c.by),
        ("columns",),
        weighted=False,
    ),
    Entry(
        "drift_bins",
        lambda m, c: m.drift_bins(
            [c.s, c.s2], reference=pl.col("ts") < dt.date(2026, 3, 3), by=c.by, bins=4
        ),
        ("columns",),
        weighted=False,
    ),
    Entry(  # calibrated on the even days' rows (rows 5 and 6, which bad.py spoils, are some)
        "estimated_performance",
        lambda m, c: m.estimated_performance(
            c.pb,
            c.s,
            reference=ESTIMATE_REFERENCE,
            y_true=c.yb,
            by=c.by,
            weight=c.w,
            pos_label=c.pos,
        ),
        ("binary",),
    ),
    Entry(  # the scores as probabilities: reads the predictions and the scores only
        "estimated_performance[ci]",
        lambda m, c: m.estimated_performance(
            c.pb,
            c.s,
            calibration=None,
            by=c.by,
            weight=c.w,
            pos_label=c.pos,
            metrics=["accuracy", "roc_auc", "f1", "specificity"],
            ci=0.9,
        ),
        ("predictions", "binary"),
        outputs="estimated_performance",
        ci=True,
    ),
    Entry(
        "custom",
        lambda m, c: m.custom(
            {"acc": skm.accuracy_score, "mcc": skm.matthews_corrcoef}, c.y, c.p, by=c.by, weight=c.w
        ),
        ("labels",),
        columns=("acc", "mcc"),
    ),
    Entry(
        "over_time[labels]",
        lambda m, c: m.over_time(
            c.y,
            y_pred=c.p,
            index="ts",
            every="1d",
            period="3d",
            metrics=["n", "accuracy", "f1_macro", "mcc"],
            by=c.by,
            weight=c.w,
        ),
        ("labels",),
        outputs="over_time",
    ),
    Entry(
        "over_time[scores]",
        lambda m, c: m.over_time(
            c.yb,
            y_score=c.s,
            pos_label=c.pos,
            index="ts",
            every="2d",
            metrics=["roc_auc", "average_precision", "ks", "log_loss", "brier_score"],
            by=c.by,
            weight=c.w,
        ),
        ("binary",),
        outputs="over_time",
    ),
    Entry(
        "over_time[positive]",
        lambda m, c: m.over_time(
            c.yb,
            y_pred=c.pb,
            y_score=c.s,
            pos_label=c.pos,
            index="ts",
            every="1d",
            period="2d",
            metrics=[
                "precision",
                "recall",
                "f1",
                "jaccard",
                "fowlkes_mallows",
                "informedness",
                "markedness",
                "specificity",
                "calibration_error",
            ],
            by=c.by,
            weight=c.w,
        ),
        ("binary",),
        outputs="over_time",
    ),
    Entry(
        "over_time[ci]",  # the label metrics' analytic default: no draws
        lambda m, c: m.over_time(
            c.y, y_pred=c.p, index="ts", every="1d", period="2d", by=c.by, **CI
        ),
        ("labels",),
        outputs="over_time",
        weighted=False,
    ),
    Entry(
        "over_time[bootstrap]",
        lambda m, c: m.over_time(
            c.y,
            y_pred=c.p,
            index="ts",
            every="1d",
            period="2d",
            by=c.by,
            metrics=["accuracy", "mcc", "f1_macro"],
            ci_method="bootstrap",
            **CI,
        ),
        ("labels",),
        outputs="over_time",
        weighted=False,
        bootstrap=True,
    ),
    Entry(  # the point decides (weights: no interval); no rule fails (the CLI exits 0)
        "check",
        lambda m, c: m.check(
            [
                "accuracy >= 0.3",
                "recall > 0.1",
                "false_positive_rate <= 0.9",
                "roc_auc >= 0.5",
                "log_loss < 5",
            ],
            y_true=c.yb,
            y_pred=c.pb,
            y_score=c.s,
            by=c.by,
            weight=c.w,
            pos_label=c.pos,
            ci=None,
        ),
        ("binary",),
    ),
    Entry(  # intervals, drift and the reference rows: no draws
        "check[ci]",
        lambda m, c: m.check(
            [
                "roc_auc >= reference - 0.5",
                "psi(s) < 5",
                "recall >= 0.05",
                "average_precision > 0.1",
                "selection_rate < 0.99",
            ],
            y_true=c.yb,
            y_pred=c.pb,
            y_score=c.s,
            by=c.by,
            pos_label=c.pos,
            reference=pl.col("ts") < dt.date(2026, 3, 3),
            ci=0.9,
        ),
        ("binary",),
        outputs="check",
        weighted=False,
    ),
    Entry("expected_cost", _b("expected_cost", cost_matrix=[[0, 1], [4, 0]]), ("binary",)),
    Entry(
        "expected_cost[best]",
        _b("expected_cost", cost_matrix=[[0, 2], [3, 0.5]], best=True),
        ("binary",),
        outputs="expected_cost",
    ),
    Entry(
        "decision_cost",
        lambda m, c: m.decision_cost(
            c.y,
            c.qmap,
            cost_matrix={
                a: {j: float(a != j) * (1 + i) for j, _ in c.q} for i, (a, _) in enumerate(c.q)
            },
            by=c.by,
            weight=c.w,
        ),
        ("multiclass",),
    ),
    Entry("cost_curve", _b("cost_curve", points=11), ("binary",)),
    Entry("ks", _b("ks"), ("binary",), state="score_counts"),
    Entry("ks[bins]", _b("ks", bins=10), ("binary",), outputs="ks"),
    Entry("gains", _b("gains", buckets=7), ("binary",), state="score_counts"),
    Entry("gains[shares]", _b("gains", buckets=[0.05, 0.1, 0.5]), ("binary",), outputs="gains"),
    Entry("log_loss", _b("log_loss"), ("binary",)),
    Entry(
        "log_loss[multiclass]",
        lambda m, c: m.log_loss(c.y, c.qmap, by=c.by, weight=c.w),
        ("multiclass",),
        outputs="log_loss",
    ),
    Entry(
        "log_loss[one-hot]",
        lambda m, c: m.log_loss(dict(c.oh), c.qmap, by=c.by, weight=c.w),
        ("one_hot",),
        outputs="log_loss",
    ),
    Entry("brier_score", _b("brier_score"), ("binary",)),
    Entry(
        "brier_score[one-hot]",
        lambda m, c: m.brier_score(dict(c.oh), c.qmap, by=c.by, weight=c.w),
        ("one_hot",),
        outputs="brier_score",
    ),
    Entry("d2_log_loss_score", _b("d2_log_loss_score"), ("binary",)),
    Entry(
        "d2_log_loss_score[multiclass]",
        lambda m, c: m.d2_log_loss_score(c.y, c.qmap, by=c.by, weight=c.w),
        ("multiclass",),
        outputs="d2_log_loss_score",
    ),
    Entry(
        "d2_log_loss_score[one-hot]",
        lambda m, c: m.d2_log_loss_score(dict(c.oh), c.qmap, by=c.by, weight=c.w),
        ("one_hot",),
        outputs="d2_log_loss_score",
    ),
    Entry("d2_brier_score", _b("d2_brier_score"), ("binary",)),
    Entry(
        "d2_brier_score[multiclass]",
        lambda m, c: m.d2_brier_score(c.y, c.qmap, by=c.by, weight=c.w),
        ("multiclass",),
        outputs="d2_brier_score",
    ),
    Entry(
        "d2_brier_score[one-hot]",
        lambda m, c: m.d2_brier_score(dict(c.oh), c.qmap, by=c.by, weight=c.w),
        ("one_hot",),
        outputs="d2_brier_score",
    ),
    Entry("calibration_curve", _b("calibration_curve", n_bins=4), ("binary",)),
    Entry(
        "calibration_curve[quantile]",
        _b("calibration_curve", strategy="quantile"),
        ("binary",),
        outputs="calibration_curve",
    ),
    Entry("calibration_error", _b("calibration_error", strategy="quantile"), ("binary",)),
    Entry(
        "calibration_curve[per_class]",
        lambda m, c: m.calibration_curve(
            c.y, c.qmap, by=c.by, weight=c.w, n_bins=4, multi_class="per_class"
        ),
        ("multiclass",),
        outputs="calibration_curve",
    ),
    Entry(
        "calibration_curve[top_label]",
        lambda m, c: m.calibration_curve(c.y, c.qmap, by=c.by, weight=c.w, strategy="quantile"),
        ("multiclass",),
        outputs="calibration_curve",
    ),
    Entry(  # Wilson's interval of each bin's frequency
        "calibration_curve[ci]",
        lambda m, c: m.calibration_curve(c.yb, c.s, by=c.by, pos_label=c.pos, n_bins=4, ci=0.9),
        ("binary",),
        outputs="calibration_curve",
        weighted=False,
        ci=True,
    ),
    Entry(
        "calibration_error[per_class]",
        lambda m, c: m.calibration_error(
            c.y, c.qmap, by=c.by, weight=c.w, strategy="quantile", multi_class="per_class"
        ),
        ("multiclass",),
        outputs="calibration_error",
    ),
    Entry(
        "calibration_error[top_label]",
        lambda m, c: m.calibration_error(c.y, c.qmap, by=c.by, weight=c.w, n_bins=6),
        ("multiclass",),
        outputs="calibration_error",
    ),
    Entry(
        "top_k_accuracy",
        lambda m, c: m.top_k_accuracy(c.y, c.qmap, k=2, by=c.by, weight=c.w),
        ("multiclass",),
    ),
    Entry(
        "top_k_accuracy[binary]",
        _b("top_k_accuracy", k=1),
        ("binary",),
        outputs="top_k_accuracy",
    ),
    Entry("hinge_loss", _b("hinge_loss"), ("binary",)),
    Entry(
        # labels=: a small segment of the registry's rows lacks a class (an error without)
        "hinge_loss[multiclass]",
        lambda m, c: m.hinge_loss(c.y, c.qmap, by=c.by, weight=c.w, labels=[k for k, _ in c.q]),
        ("multiclass",),
        outputs="hinge_loss",
    ),
    Entry("thresholds", _b("thresholds"), ("binary",)),
    Entry("best_threshold", _b("best_threshold", metric="mcc"), ("binary",)),
    Entry("det_curve", _b("det_curve"), ("binary",)),
    Entry(
        "threshold_report",
        lambda m, c: m.threshold_report(
            c.yb, c.s, threshold=0.45, pos_label=c.pos, neg_label=c.neg, by=c.by, weight=c.w
        ),
        ("binary",),
    ),
    Entry(
        "compare",
        lambda m, c: m.compare(c.y, c.p, by=c.by, metric="accuracy", ci_method="wilson"),
        ("labels",),
        weighted=False,  # accuracy: every interval and p-value analytic, no draws
    ),
    Entry(
        "compare[bootstrap]",
        lambda m, c: m.compare(c.y, c.p, by=c.by, metric="mcc", n_boot=40, seed=1),
        ("labels",),
        weighted=False,
        outputs="compare",
        bootstrap=True,
    ),
    Entry(
        "compare_models",
        lambda m, c: m.compare_models(c.y, [c.p, c.p2], by=c.by, n_boot=40, seed=2),
        ("labels",),
        weighted=False,
        bootstrap=True,  # accuracy's interval (McNemar's test is exact)
    ),
    Entry(
        "compare_models[f1]",
        lambda m, c: m.compare_models(
            c.yb,
            {"base": c.pb, "new": c.pb2, "same": c.pb},
            by=c.by,
            metric="f1",
            pos_label=c.pos,
            n_boot=40,
            adjust="holm",
        ),
        ("binary_labels",),
        weighted=False,
        outputs="compare_models",  # the delta method (the default): no draws
    ),
    Entry(  # the delta method over several classes
        "compare_models[mcc]",
        lambda m, c: m.compare_models(c.y, [c.p, c.p2], by=c.by, metric="mcc"),
        ("labels",),
        weighted=False,
        outputs="compare_models",
    ),
    Entry(
        "compare_models[roc_auc]",
        lambda m, c: m.compare_models(
            c.yb, [c.s, c.s2], by=c.by, metric="roc_auc", pos_label=c.pos, ci=0.9
        ),
        ("binary",),
        weighted=False,
        outputs="compare_models",
    ),
    Entry(  # the delta method (the default)
        "compare_models[average_precision]",
        lambda m, c: m.compare_models(
            c.yb, [c.s, c.s2], by=c.by, metric="average_precision", pos_label=c.pos
        ),
        ("binary",),
        weighted=False,
        outputs="compare_models",
    ),
    Entry(
        "compare_models[average_precision, bootstrap]",
        lambda m, c: m.compare_models(
            c.yb,
            [c.s, c.s2],
            by=c.by,
            metric="average_precision",
            pos_label=c.pos,
            ci_method="bootstrap",
            n_boot=30,
        ),
        ("binary",),
        weighted=False,
        outputs="compare_models",
        bootstrap=True,
    ),
    Entry(  # the models' rows stacked (_stacked): the "compare_models" entry's frame
        "compare_models[stacked]",
        lambda m, c: _stacked(m, c).compare_models(
            c.y, STACKED[2], model=STACKED[1], id=STACKED[0], by=c.by, n_boot=40, seed=2
        ),
        ("labels",),
        weighted=False,
        outputs="compare_models",
        bootstrap=True,
    ),
]
BY_NAME = {e.name: e for e in METHODS}

#: The state finishers: (state kind, finisher) -> the frame method it equals.
FINISHERS: dict[str, Callable[[object, Cols], object]] = {
    "confusion_matrix": lambda st, c: st.confusion_matrix(),
    "per_class": lambda st, c: st.per_class(beta=2.0),
    "averages": lambda st, c: st.averages(zero_division=1.0),
    "report": lambda st, c: st.report(),
    "report[extra_scores]": lambda st, c: st.report(extra_scores=list(EXTRA), beta=0.5),
    "per_class[ci-extra_scores]": lambda st, c: st.per_class(extra_scores=list(EXTRA), **CI),
    "summary": lambda st, c: st.summary(),
    "summary[replace_undefined_by]": lambda st, c: st.summary(replace_undefined_by=0.5),
    "roc_auc": lambda st, c: st.roc_auc(),
    "gini": lambda st, c: st.gini(),
    "gini[delong]": lambda st, c: st.gini(ci=0.9, ci_method="delong"),
    "average_precision": lambda st, c: st.average_precision(),
    # intervals from a merged state of un-weighted counts: the frame method's draws
    "report[ci]": lambda st, c: st.report(**CI),
    "summary[ci]": lambda st, c: st.summary(**CI),
    "summary[bootstrap]": lambda st, c: st.summary(**CI, ci_method="bootstrap"),
    "report[bootstrap]": lambda st, c: st.report(**CI, ci_method="bootstrap"),
    "roc_auc[ci]": lambda st, c: st.roc_auc(**CI),
    "roc_auc[delong]": lambda st, c: st.roc_auc(ci=0.9, ci_method="delong"),
    "average_precision[ci]": lambda st, c: st.average_precision(**CI),
    "roc_curve": lambda st, c: st.roc_curve(),
    "pr_curve": lambda st, c: st.pr_curve(),
    "ks": lambda st, c: st.ks(),
    "gains": lambda st, c: st.gains(buckets=7),
    # multilabel (from_multilabel_counts): keyed by the entry they equal
    "per_class[multilabel]": lambda st, c: st.per_class(beta=2.0),
    "averages[multilabel]": lambda st, c: st.averages(zero_division=1.0),
    "averages[multilabel-extra_scores]": lambda st, c: st.averages(extra_scores=list(EXTRA)),
    "report[multilabel]": lambda st, c: st.report(labels=[c.q[2][0], c.q[0][0]]),
    "summary[multilabel]": lambda st, c: st.summary(),
    "report[multilabel-map]": lambda st, c: st.report(),
    "multilabel_confusion_matrix": lambda st, c: st.multilabel_confusion_matrix(),
    "hamming_loss[multilabel]": lambda st, c: st.hamming_loss(),
    "zero_one_loss[multilabel]": lambda st, c: st.zero_one_loss(),
}
#: Each state entry's finishing function.
STATE_FINISH: dict[str, Callable[..., object]] = {
    "counts": plm.from_counts,
    "score_counts": plm.from_score_counts,
    "multilabel_counts": plm.from_multilabel_counts,
    "multilabel_counts[labels]": plm.from_multilabel_counts,
    "multilabel_counts[map]": plm.from_multilabel_counts,
}


# ------------------------------------------------------------------------------ helpers
def canon(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """The frame in one row order (every column, nulls last), whatever the path."""
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    return frame.sort(frame.columns, nulls_last=True)


def same(left: pl.DataFrame | pl.LazyFrame, right: pl.DataFrame | pl.LazyFrame) -> None:
    assert_frame_equal(canon(left), canon(right), rel_tol=1e-9, abs_tol=1e-12)


def run(entry: Entry, df: pl.DataFrame, c: Cols, *, lazy: bool = False) -> pl.DataFrame:
    frame = entry.call(df.lazy().metrics if lazy else df.metrics, c)
    if lazy:
        assert isinstance(frame, pl.LazyFrame), f"{entry.name}: the lazy method collected"
        return frame.collect()
    assert isinstance(frame, pl.DataFrame), f"{entry.name}: the eager method is lazy"
    return frame


WEIGHTED = [e for e in METHODS if e.weighted]
IDS = [e.name for e in METHODS]


#: Methods that return a document, not a frame: every number in it is a registered
#: method's, and its own tests check the same invariances on the page (row order,
#: eager = lazy = scan_parquet, zero weights = rows removed, bad input).
DOCUMENTS = {"html_report": "tests/test_html_report.py"}


# ------------------------------------------------------------------------- expressions
#: Each expression, and the frame method (entry, column, filter) whose value it equals.
EXPRESSIONS: dict[str, tuple[Callable[[Cols], pl.Expr], Callable[[Cols], pl.Expr] | None]] = {
    "accuracy": (lambda c: plm.accuracy(c.y, c.p, weight=c.w), None),
    "precision": (lambda c: plm.precision(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "recall": (lambda c: plm.recall(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "f1": (lambda c: plm.f1(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "f_beta": (lambda c: plm.f_beta(c.yb, c.p, beta=0.5, pos_label=c.pos, weight=c.w), None),
    "jaccard": (lambda c: plm.jaccard(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "fowlkes_mallows": (
        lambda c: plm.fowlkes_mallows(c.yb, c.p, pos_label=c.pos, weight=c.w),
        None,
    ),
    "informedness": (lambda c: plm.informedness(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "markedness": (lambda c: plm.markedness(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "specificity": (lambda c: plm.specificity(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "roc_auc": (lambda c: plm.roc_auc(c.yb, c.s, pos_label=c.pos), None),
    "gini": (lambda c: plm.gini(c.yb, c.s, pos_label=c.pos), None),
    "average_precision": (lambda c: plm.average_precision(c.yb, c.s, pos_label=c.pos), None),
    "log_loss": (lambda c: plm.log_loss(c.yb, c.s, pos_label=c.pos, weight=c.w), None),
    "brier_score": (lambda c: plm.brier_score(c.yb, c.s, pos_label=c.pos, weight=c.w), None),
    "hinge_loss": (lambda c: plm.hinge_loss(c.yb, c.s, pos_label=c.pos, weight=c.w), None),
    # multiclass (y against p): averages() / summary()'s columns per group
    "precision[macro]": (lambda c: plm.precision(c.y, c.p, average="macro", weight=c.w), None),
    "recall[weighted]": (lambda c: plm.recall(c.y, c.p, average="weighted", weight=c.w), None),
    "f1[macro]": (lambda c: plm.f1(c.y, c.p, average="macro", weight=c.w), None),
    "f_beta[weighted]": (
        lambda c: plm.f_beta(c.y, c.p, beta=0.5, average="weighted", weight=c.w),
        None,
    ),
    "jaccard[micro]": (lambda c: plm.jaccard(c.y, c.p, average="micro", weight=c.w), None),
    "fowlkes_mallows[macro]": (
        lambda c: plm.fowlkes_mallows(c.y, c.p, average="macro", weight=c.w),
        None,
    ),
    "informedness[weighted]": (
        lambda c: plm.informedness(c.y, c.p, average="weighted", weight=c.w),
        None,
    ),
    "markedness[micro]": (lambda c: plm.markedness(c.y, c.p, average="micro", weight=c.w), None),
    "mcc": (lambda c: plm.mcc(c.y, c.p, weight=c.w), None),
    "balanced_accuracy": (lambda c: plm.balanced_accuracy(c.y, c.p, weight=c.w), None),
    "cohen_kappa": (lambda c: plm.cohen_kappa(c.y, c.p, weight=c.w), None),
    "hamming_loss": (lambda c: plm.hamming_loss(c.y, c.p, weight=c.w), None),
}


# ----------------------------------------------------------------- shared by the laws
#: Renamings of the labels: one that keeps their order, one that changes it.
KEEPS_ORDER = {0: "a0", 1: "b1", 2: "c2"}
REORDERS = {0: "zero", 1: "one", 2: "two"}  # sorts as one, two, zero
BINARY = {0: "neg", 1: "pos"}


def renamed_labels(df: pl.DataFrame, labels: dict[int, str] = REORDERS) -> pl.DataFrame:
    relabel = {"y": labels, "p": labels, "p2": labels, "yb": BINARY, "pb": BINARY, "pb2": BINARY}
    return df.with_columns(
        pl.col(col).replace_strict(mapping, return_dtype=pl.String)
        for col, mapping in relabel.items()
    ).with_columns(
        pl.col("ml", "mlp").list.eval(pl.element().replace_strict(labels, return_dtype=pl.String))
    )


def zero_weight_rows(n: int = 30) -> pl.DataFrame:
    """Rows that must leave no trace: weight 0, unseen labels, scores and a segment.

    Their multiclass label is a class that occurs nowhere else (3), their score a
    value that occurs nowhere else, their segment a new one: any trace of them
    (a class, a threshold, a segment row, a NaN) changes the frame.
    """
    rng = np.random.default_rng(5)
    base = DATA.head(n)
    return base.with_columns(
        pl.Series("g", rng.choice(["a", "zz"], n)),
        pl.lit(3, pl.Int64).alias("y"),
        pl.lit(3, pl.Int64).alias("p"),
        pl.Series("yb", rng.integers(0, 2, n)),
        pl.lit(0.123456).alias("s"),
        pl.lit([3], pl.List(pl.Int64)).alias("mlp"),  # a label seen nowhere else
        pl.lit(0.0).alias("w"),
    )
