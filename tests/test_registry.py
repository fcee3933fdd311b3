"""The invariance registry: every public method, and the laws each must obey.

Each entry of :data:`METHODS` calls one ``.metrics`` method (or a state finisher,
or an expression) on a frame whose columns are named by a :class:`Cols`.  The
tests below run *every* entry through the same invariances:

- the rows in another order give the same frame;
- labels renamed (``0/1/2`` -> strings, ``pos_label`` with them) give the same
  numbers, with the label columns renamed;
- eager = lazy (streaming) = lazy (in-memory) = ``scan_parquet`` over three
  files = the merged states of three shards (where a state exists);
- rows of weight 0 (holding labels, scores and segments seen nowhere else) are
  the rows removed; integer weights are the rows repeated;
- a ``by`` column may have any name: the method's own output columns are refused
  ("collides"), every other name (internal-looking ones included) is a segment;
- bad input (missing column, null label, negative weight, NaN score) is the
  documented error, naming the column, on every path.

- every ``pl-metrics`` command equals its frame method on the same files, and
  bad input is one line on stderr (exit 2) naming the column;
- every chart draws one segment per ``by`` key (null included) whatever the row
  order, and refuses a frame whose segment column it was not told about.

A completeness test fails when a public method, finisher, expression, command or
chart is added without an entry here.
Numbers themselves are checked against scikit-learn in the per-domain test files;
this file checks that every path gives the *same* number.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn import metrics as skm

import pl_metrics as plm
from pl_metrics import MetricsDataFrame, MetricsLazyFrame
from pl_metrics._core import names
from pl_metrics.state import CountsState, MultilabelCountsState, ScoreCountsState


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
        """The columns after ``*by`` (declared in ``names.OUTPUTS``, and the call's own)."""
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
            metrics=["precision", "recall", "f1", "jaccard", "specificity", "calibration_error"],
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
        outputs="compare_models",
        bootstrap=True,
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
    "summary": lambda st, c: st.summary(),
    "summary[replace_undefined_by]": lambda st, c: st.summary(replace_undefined_by=0.5),
    "roc_auc": lambda st, c: st.roc_auc(),
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


# -------------------------------------------------------------------------- completeness
def _public(cls: type) -> set[str]:
    return {n for n, _ in inspect.getmembers(cls) if not n.startswith("_")}


#: Methods that return a document, not a frame: every number in it is a registered
#: method's, and its own tests check the same invariances on the page (row order,
#: eager = lazy = scan_parquet, zero weights = rows removed, bad input).
DOCUMENTS = {"html_report": "tests/test_html_report.py"}


def test_every_public_method_is_in_the_registry() -> None:
    registered = {e.name.split("[")[0] for e in METHODS}
    assert _public(MetricsLazyFrame) == registered | set(DOCUMENTS)
    assert _public(MetricsDataFrame) == registered | set(DOCUMENTS)
    assert all((Path(__file__).parents[1] / test).is_file() for test in DOCUMENTS.values())
    assert set(names.OUTPUTS) == registered  # each method's schema declared once
    finishers = _public(CountsState) | _public(ScoreCountsState) | _public(MultilabelCountsState)
    assert finishers == {name.split("[")[0] for name in FINISHERS}
    # plm.metrics(frame) is the namespace itself (test_typing.py); drift_edges reads a
    # drift_counts state's edges (test_drift.py: merged states equal drift)
    expressions = {
        n
        for n in plm.__all__
        if inspect.isfunction(getattr(plm, n))
        and not n.startswith("from_")
        and n not in ("metrics", "drift_edges")
    }
    assert expressions == {n.split("[")[0] for n in EXPRESSIONS}


# ---------------------------------------------------------------------------- row order
@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_row_order(entry: Entry) -> None:
    c = Cols(w="w") if entry.weighted else Cols()
    shuffled = DATA.sample(fraction=1.0, shuffle=True, seed=11)
    same(run(entry, shuffled, c), run(entry, DATA, c))


# ------------------------------------------------------------------------ label renaming
#: Renamings of the labels: one that keeps their order, one that changes it.
KEEPS_ORDER = {0: "a0", 1: "b1", 2: "c2"}
REORDERS = {0: "zero", 1: "one", 2: "two"}  # sorts as one, two, zero
BINARY = {0: "neg", 1: "pos"}


def _renamed_labels(df: pl.DataFrame, labels: dict[int, str] = REORDERS) -> pl.DataFrame:
    relabel = {"y": labels, "p": labels, "p2": labels, "yb": BINARY, "pb": BINARY, "pb2": BINARY}
    return df.with_columns(
        pl.col(col).replace_strict(mapping, return_dtype=pl.String)
        for col, mapping in relabel.items()
    ).with_columns(
        pl.col("ml", "mlp").list.eval(pl.element().replace_strict(labels, return_dtype=pl.String))
    )


def _label_columns(entry: Entry) -> list[str]:
    """The output columns holding labels (``per_class.predicted`` is a count)."""
    name = entry.outputs or entry.name
    if name in ("confusion_matrix", "counts"):
        return ["actual", "predicted"]
    return ["label"] if "label" in names.OUTPUTS[name] else []


@pytest.mark.parametrize("labels", [REORDERS, KEEPS_ORDER], ids=["reorders", "keeps-order"])
@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_label_renaming(entry: Entry, labels: dict[int, str]) -> None:
    """Renamed labels give the same numbers.  Bootstrap replicates draw the
    confusion cells in label order, so their intervals are the same draws only
    when the renaming keeps the order (another order is another random draw)."""
    c = Cols(w="w") if entry.weighted else Cols()
    renamed = dataclasses.replace(
        c,
        q=tuple((labels[k], col) for k, col in c.q),
        rel=tuple((labels[k], col) for k, col in c.rel),
        mlmap=tuple((labels[k], col) for k, col in c.mlmap),
        mlpmap=tuple((labels[k], col) for k, col in c.mlpmap),
        mlfmap=tuple((labels[k], col) for k, col in c.mlfmap),
        oh=tuple((labels[k], col) for k, col in c.oh),
        pos="pos",
        neg="neg",
    )
    got = run(entry, _renamed_labels(DATA, labels), renamed)
    expected = run(entry, DATA, c)
    mapping = BINARY if entry.reads == ("binary",) else labels
    expected = expected.with_columns(
        pl.col(col).replace_strict(mapping, return_dtype=pl.String, default=None)
        for col in _label_columns(entry)
        if col in expected.columns  # "label" of the scores' methods: per-class views only
    )
    if entry.bootstrap and labels is REORDERS:
        drawn = [c for c in got.columns if c.endswith(("_low", "_high")) or c in ("low", "high")]
        drawn += [c for c in ("outside", "p_value", "p_adjusted") if c in got.columns]
        got, expected = got.drop(drawn), expected.drop(drawn)
    same(got, expected)


# ---------------------------------------------------------------------- paths agree
@pytest.fixture(scope="module")
def parquet_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("registry")
    for i, part in enumerate(
        DATA.with_columns(part=pl.int_range(pl.len()) % 3).partition_by("part")
    ):
        part.drop("part").write_parquet(root / f"part{i}.parquet")
    return root


@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_eager_lazy_streaming_parquet_agree(entry: Entry, parquet_dir: Path) -> None:
    c = Cols(w="w") if entry.weighted else Cols()
    eager = run(entry, DATA, c)
    lazy = entry.call(DATA.lazy().metrics, c)
    same(lazy.collect(engine="streaming"), eager)
    same(lazy.collect(engine="in-memory"), eager)
    scanned = entry.call(pl.scan_parquet(parquet_dir / "*.parquet").metrics, c)
    same(scanned.collect(engine="streaming"), eager)


STATEFUL = [e for e in METHODS if e.state]


@pytest.mark.parametrize("entry", STATEFUL, ids=[e.name for e in STATEFUL])
@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_merged_states_agree(entry: Entry, lazy: bool) -> None:
    c = Cols(w="w") if entry.weighted else Cols()  # intervals: states of un-weighted rows
    shards = DATA.with_columns(part=pl.int_range(pl.len()) % 3).partition_by("part")
    make = BY_NAME[entry.state]
    states = [run(make, shard.drop("part"), c) for shard in shards]
    state: pl.DataFrame | pl.LazyFrame = pl.concat(states)
    if lazy:
        state = state.lazy()
    finish = STATE_FINISH[entry.state]
    got = FINISHERS[entry.name](finish(state, by=c.by), c)
    assert isinstance(got, pl.LazyFrame) is lazy
    same(got, run(entry, DATA, c))


# ----------------------------------------------------------------------------- weights
def _zero_weight_rows(n: int = 30) -> pl.DataFrame:
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


@pytest.mark.parametrize("entry", WEIGHTED, ids=[e.name for e in WEIGHTED])
def test_zero_weights_are_rows_removed(entry: Entry) -> None:
    c = Cols(w="w")
    extra = _zero_weight_rows()
    if "multiclass" in entry.reads:  # a label with no score column is refused, as it must be
        extra = extra.with_columns(pl.col("y").mod(3))
    with_zeros = pl.concat([DATA, extra]).sample(fraction=1.0, shuffle=True, seed=2)
    same(run(entry, with_zeros, c), run(entry, DATA, c))


@pytest.mark.parametrize("entry", WEIGHTED, ids=[e.name for e in WEIGHTED])
def test_integer_weights_are_rows_repeated(entry: Entry) -> None:
    if entry.ci:
        pytest.skip("bootstrap replicates draw rows of the input: repetition is another input")
    repeated = DATA.select(pl.all().repeat_by("wi").explode()).drop("wi")
    got = run(entry, DATA, Cols(w="wi"))
    expected = run(entry, repeated.with_columns(pl.lit(1).alias("wi")), Cols())
    # weighted counts are Float64, row counts integers (zero_one_loss with
    # normalize=False: the number of rows wrong)
    for column in (*COUNT_COLUMNS, "zero_one_loss"):
        if column in got.columns and got.schema[column] != expected.schema.get(column):
            expected = expected.with_columns(pl.col(column).cast(got.schema[column]))
    same(got, expected)


#: The columns that count rows (``predicted`` but where it is a label column, beside
#: ``actual``; multilabel_counts' n_true .. n_common are set sizes, keys of its
#: histogram): Int64 without weights, Float64 sums of the weights with them.
COUNT_COLUMNS = (
    "n",
    "support",
    "predicted",
    "tp",
    "fp",
    "fn",
    "tn",
    "pos",
    "neg",
    "rows",
    "positives",
    "count",
)
COUNTING = [
    e for e in METHODS if set(COUNT_COLUMNS) & set(names.OUTPUTS[e.outputs or e.name.split("[")[0]])
]


@pytest.mark.parametrize("entry", COUNTING, ids=[e.name for e in COUNTING])
def test_counts_are_int64_without_weights(entry: Entry) -> None:
    """Issue 26: the thresholds tables' tp .. tn and calibration's count were Float64
    (the CLI printed 185.0000): row counts are integers in every method, as report's
    support; with ``weight=`` (even integer weights) Float64 sums."""

    def dtypes(frame: pl.DataFrame) -> dict[str, pl.DataType]:
        labels = {"predicted"} if "actual" in frame.columns else set()
        return {c: frame.schema[c] for c in set(COUNT_COLUMNS) - labels if c in frame.columns}

    plain = dtypes(run(entry, DATA, Cols()))
    assert plain, f"{entry.name}: none of its count columns"
    assert plain == dict.fromkeys(plain, pl.Int64), entry.name
    if entry.weighted:
        for w in ("w", "wi"):
            weighted = dtypes(run(entry, DATA, Cols(w=w)))
            assert weighted == dict.fromkeys(plain, pl.Float64), (entry.name, w)


# ------------------------------------------------------------------------------ by names
#: Names a ``by`` column might have: every output column of every method, the
#: internal names of earlier versions, and the internal prefix itself.
BY_CANDIDATES = sorted(
    {c for cols in names.OUTPUTS.values() for c in cols if "{" not in c}
    | {"f1", "f2", "P", "N", "tps", "fps", "part", "ord_a", "value_low", "low", "high"}
    | {f"{names.INTERNAL}by0", f"{names.INTERNAL}all", names.SCORE, names.COUNT}
)


@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_by_may_have_any_name_but_an_output_column(entry: Entry) -> None:
    c = Cols()
    baseline = run(entry, DATA, c)
    outputs = entry.output_columns()
    inputs = {"y", "p", "yb", "s", "pb", "q0", "q1", "q2", "w", "wi", "ts"}
    for name in BY_CANDIDATES:
        if name in inputs:
            continue
        df = DATA.rename({"g": name})
        cn = dataclasses.replace(c, by=name)
        if name in outputs or name.startswith(names.INTERNAL):
            why = "starts with" if name.startswith(names.INTERNAL) else "collides"
            with pytest.raises(ValueError, match=f"`by` column '{name}' {why}"):
                run(entry, df, cn)
            with pytest.raises(ValueError, match=f"`by` column '{name}' {why}"):
                run(entry, df, cn, lazy=True)
            continue
        got = run(entry, df, cn)
        assert got.columns[0] == name, f"{entry.name}: by={name!r} is not the first column"
        assert got.schema[name] == pl.String, f"{entry.name}: by={name!r} was overwritten"
        same(got, baseline.rename({"g": name}))


# ------------------------------------------------------------------------ by expressions
#: ``by`` expressions and the columns they make: each must equal materialising the
#: columns first (``with_columns``) and passing their names.
BY_EXPRESSIONS: dict[str, tuple[object, str | list[str]]] = {
    "expr": (pl.col("g").str.to_uppercase().alias("G"), "G"),
    # output name "g": the expression's value, not the input column of that name
    "expr-shadows": (pl.col("g").str.to_uppercase(), "g"),
    "name+expr": (["g", (pl.col("yb") + 10).alias("k")], ["g", "k"]),
    # not row-wise: evaluated on all the input rows, as with_columns does
    "over-all-rows": ((pl.col("s") > pl.col("s").median()).alias("above"), "above"),
}


@pytest.mark.parametrize("case", sorted(BY_EXPRESSIONS))
@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_by_expression_equals_materialised_column(
    entry: Entry, case: str, parquet_dir: Path
) -> None:
    by, columns = BY_EXPRESSIONS[case]
    base = Cols(w="w") if entry.weighted else Cols()
    c, named = dataclasses.replace(base, by=by), dataclasses.replace(base, by=columns)
    exprs = [e for e in (by if isinstance(by, list) else [by]) if isinstance(e, pl.Expr)]
    expected = run(entry, DATA.with_columns(exprs), named)
    keys = columns if isinstance(columns, list) else [columns]
    assert expected.columns[: len(keys)] == keys
    same(run(entry, DATA, c), expected)
    lazy = entry.call(DATA.lazy().metrics, c)
    assert isinstance(lazy, pl.LazyFrame)
    same(lazy.collect(engine="streaming"), expected)
    same(lazy.collect(engine="in-memory"), expected)
    scanned = entry.call(pl.scan_parquet(parquet_dir / "*.parquet").metrics, c)
    same(scanned.collect(engine="streaming"), expected)
    if entry.state and case != "over-all-rows":
        # states made with the expression, finished by its output names (a state
        # evaluates `by` on its shard's rows: a median is the shard's median)
        shards = DATA.with_columns(part=pl.int_range(pl.len()) % 3).partition_by("part")
        states = [run(BY_NAME[entry.state], s.drop("part"), c) for s in shards]
        finish = STATE_FINISH[entry.state]
        same(FINISHERS[entry.name](finish(pl.concat(states), by=columns), c), expected)


def test_by_expression_on_the_sorted_roc_auc_path() -> None:
    """DataFrame.roc_auc sorts continuous scores (``_ranking_sorted``): same by rules."""
    from pl_metrics import _ranking_sorted

    rng = np.random.default_rng(3)
    n = 6000
    df = pl.DataFrame(
        {"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n), "s": rng.random(n)}
    )
    assert _ranking_sorted.use_sorted_path(df, "s")
    by = [pl.col("g").str.to_uppercase().alias("G"), (pl.col("s") > 0.5).alias("hi")]
    expected = df.with_columns(by).metrics.roc_auc("y", "s", by=["G", "hi"])
    got = df.metrics.roc_auc("y", "s", by=by)
    same(got, expected)
    same(got, df.lazy().metrics.roc_auc("y", "s", by=by).collect(engine="streaming"))
    with pytest.raises(ValueError, match="`by` column 'roc_auc' collides"):
        df.metrics.roc_auc("y", "s", by=pl.col("g").alias("roc_auc"))


def _by_errors(entry: Entry) -> list[tuple[object, type, str]]:
    """(by, error type, message regex) of the ``by`` values refused at call time."""
    output = entry.output_columns()[-1]
    return [
        (pl.all(), ValueError, "`by` expression .* does not have a single output column name"),
        (pl.col("g", "y"), ValueError, "does not have a single output column name.*alias"),
        (["g", pl.col("g")], ValueError, "`by` lists a column more than once"),
        (
            [pl.col("g").alias("k"), pl.col("yb").alias("k")],
            ValueError,
            "`by` lists a column more than once: \\['k', 'k'\\]",
        ),
        (pl.col("g").alias(output), ValueError, f"`by` column '{output}' collides.*alias"),
        (pl.col("g").alias("__plm_by0"), ValueError, "`by` column '__plm_by0' starts with"),
        (pl.col("nope").alias("k"), pl.exceptions.ColumnNotFoundError, "`by` expression.*nope"),
        (pl.col("g") + 1, pl.exceptions.InvalidOperationError, "`by` expression"),
        (3, TypeError, "`by` must be a column name or a list"),
        (  # Python objects can be neither grouped nor sorted (was a Rust panic)
            pl.col("g").map_elements(lambda x: x, return_dtype=pl.Object).alias("k"),
            pl.exceptions.SchemaError,
            "`by` column 'k' holds Python objects",
        ),
    ]


@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_bad_by_expressions_are_refused_at_call_time(entry: Entry) -> None:
    c = Cols(w="w") if entry.weighted else Cols()
    for by, error, match in _by_errors(entry):
        cb = dataclasses.replace(c, by=by)
        with pytest.raises(error, match=match):
            run(entry, DATA, cb)
        with pytest.raises(error, match=match):
            entry.call(DATA.lazy().metrics, cb)  # lazy: refused before any collect


@pytest.mark.parametrize("kind", ["counts", "score_counts", "multilabel_counts"])
def test_state_finishers_take_names_not_expressions(kind: str) -> None:
    finish, state = STATE_FINISH[kind], run(BY_NAME[kind], DATA, Cols())
    with pytest.raises(TypeError, match="`by` of from_counts / from_score_counts names columns"):
        finish(state, by=pl.col("g"))
    with pytest.raises(TypeError, match="names columns of the state"):
        finish(state.lazy(), by=["g", pl.col("g").alias("G")])


# --------------------------------------------------------------------------- bad input
def _bad_inputs(
    entry: Entry,
) -> list[tuple[str, Callable[[pl.DataFrame], pl.DataFrame], type, str]]:
    """(case, how the data is spoiled, the error type, a regex its message matches)."""
    if entry.reads[0] == "columns":  # drift: a null is a bin of its own, not bad input
        return [
            ("missing column", lambda d: d.drop("s"), pl.exceptions.ColumnNotFoundError, "'s'"),
            ("missing by column", lambda d: d.drop("g"), pl.exceptions.ColumnNotFoundError, "g"),
        ]
    label = {
        "labels": "y",
        "binary": "yb",
        "binary_labels": "yb",
        "multiclass": "y",
        "multilabel": "ml",
        "multilabel_map": "mt0",
        "multilabel_float": "mf0",
        "one_hot": "oh0",
        "relevance": "rl",
        "relevance_map": "r0",
    }[entry.reads[0]]
    cases: list[tuple[str, Callable[[pl.DataFrame], pl.DataFrame], type, str]] = [
        ("missing label column", lambda d: d.drop(label), pl.exceptions.ColumnNotFoundError, label),
        ("missing by column", lambda d: d.drop("g"), pl.exceptions.ColumnNotFoundError, "g"),
        (
            "null label",
            lambda d: d.with_columns(
                pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(label).alias(label)
            ),
            plm.DataError,
            f"'{label}'.*null",
        ),
    ]
    cases.append(
        (
            "NaN label",
            lambda d: d.with_columns(
                pl.when(pl.int_range(pl.len()) == 6)
                .then(float("nan"))
                .otherwise(pl.col(label).cast(pl.Float64))
                .alias(label)
            ),
            plm.DataError,
            f"'{label}'.*not class labels",
        )
    )
    if entry.reads[0] in ("multilabel", "multilabel_map", "relevance", "relevance_map"):
        cases.pop()  # a List column holds no NaN label, a relevance is no label
    if entry.reads[0] in ("multilabel_float", "one_hot"):
        cases.pop()  # a float indicator: NaN, like 0.5, is not 0 or 1
        cases.extend(
            (
                f"{bad} indicator",
                lambda d, bad=bad: d.with_columns(
                    pl.when(pl.int_range(pl.len()) == 6).then(bad).otherwise(label).alias(label)
                ),
                plm.DataError,
                f"'{label}'.*not 0/1",
            )
            for bad in (float("nan"), 0.5, 2.0)
        )
    if entry.reads[0] == "one_hot":  # exactly one indicator set in each row
        cases.extend(
            (
                f"{what} indicators set",
                lambda d, value=value: d.with_columns(
                    pl.when(pl.int_range(pl.len()) == 7)
                    .then(pl.lit(value, pl.Int8))
                    .otherwise(c)
                    .alias(c)
                    for c in ("oh0", "oh1", "oh2")
                ),
                plm.DataError,
                "'oh0', 'oh1', 'oh2' \\(the one-hot indicator columns of `y_true`\\) have 1 rows",
            )
            for what, value in (("no", 0), ("three", 1))
        )
    if entry.weighted:
        cases.append(
            (
                "negative weight",
                lambda d: d.with_columns(
                    pl.when(pl.int_range(pl.len()) == 3).then(-1.0).otherwise("w").alias("w")
                ),
                plm.DataError,
                "'w'",
            )
        )
    if "binary" in entry.reads and entry.name not in ("threshold_report",):
        cases.append(
            (
                "NaN score",
                lambda d: d.with_columns(
                    pl.when(pl.int_range(pl.len()) == 4)
                    .then(float("nan"))
                    .otherwise("s")
                    .alias("s")
                ),
                plm.DataError,
                "'s'",
            )
        )
    return cases


BAD = [
    pytest.param(e, case, spoil, error, match, id=f"{e.name}-{case}")
    for e in METHODS
    for case, spoil, error, match in _bad_inputs(e)
]


@pytest.mark.parametrize(("entry", "case", "spoil", "error", "match"), BAD)
def test_bad_input_is_the_documented_error_on_every_path(
    entry: Entry, case: str, spoil: Callable, error: type, match: str, tmp_path: Path
) -> None:
    c = Cols(w="w") if entry.weighted else Cols()
    bad = spoil(DATA)
    with pytest.raises(error, match=match):
        run(entry, bad, c)
    for engine in ("streaming", "in-memory"):
        with pytest.raises(error, match=match):
            entry.call(bad.lazy().metrics, c).collect(engine=engine)
    bad.write_parquet(tmp_path / "bad.parquet")
    with pytest.raises(error, match=match):
        entry.call(pl.scan_parquet(tmp_path / "bad.parquet").metrics, c).collect()


#: The entries that read ``pos_label`` (Cols.pos), but for the state of one shard:
#: ``score_counts`` does not check presence (documented; its finisher does).
POS_LABEL = [e for e in METHODS if "binary" in e.reads[0] and e.name != "score_counts"]


@pytest.mark.parametrize("entry", POS_LABEL, ids=[e.name for e in POS_LABEL])
def test_absent_pos_label_is_an_error_on_every_path(entry: Entry) -> None:
    c = Cols(w="w" if entry.weighted else None, pos=7)  # 7 is in no label column
    with pytest.raises(plm.DataError, match="pos_label"):
        run(entry, DATA, c)
    with pytest.raises(plm.DataError, match="pos_label"):
        entry.call(DATA.lazy().metrics, c).collect(engine="streaming")


# ----------------------------------------------------------------------------- expressions
#: Each expression, and the frame method (entry, column, filter) whose value it equals.
EXPRESSIONS: dict[str, tuple[Callable[[Cols], pl.Expr], Callable[[Cols], pl.Expr] | None]] = {
    "accuracy": (lambda c: plm.accuracy(c.y, c.p, weight=c.w), None),
    "precision": (lambda c: plm.precision(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "recall": (lambda c: plm.recall(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "f1": (lambda c: plm.f1(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "f_beta": (lambda c: plm.f_beta(c.yb, c.p, beta=0.5, pos_label=c.pos, weight=c.w), None),
    "jaccard": (lambda c: plm.jaccard(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "specificity": (lambda c: plm.specificity(c.yb, c.p, pos_label=c.pos, weight=c.w), None),
    "roc_auc": (lambda c: plm.roc_auc(c.yb, c.s, pos_label=c.pos), None),
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
    "mcc": (lambda c: plm.mcc(c.y, c.p, weight=c.w), None),
    "balanced_accuracy": (lambda c: plm.balanced_accuracy(c.y, c.p, weight=c.w), None),
    "cohen_kappa": (lambda c: plm.cohen_kappa(c.y, c.p, weight=c.w), None),
    "hamming_loss": (lambda c: plm.hamming_loss(c.y, c.p, weight=c.w), None),
}
EXPR_IDS = list(EXPRESSIONS)
WEIGHTED_EXPRS = [
    n
    for n in EXPRESSIONS
    if "weight" in inspect.signature(getattr(plm, n.split("[")[0])).parameters
]
#: The expressions that compare y with p (both renamed alike).
MULTICLASS_EXPRS = {"accuracy", *(n for n in EXPRESSIONS if "[" in n)}
MULTICLASS_EXPRS |= {"mcc", "balanced_accuracy", "cohen_kappa", "hamming_loss"}


def _binary_preds(df: pl.DataFrame) -> pl.DataFrame:
    """``p`` as a binary prediction (0/1) for the binary expressions."""
    return df.with_columns((pl.col("p") == 1).cast(pl.Int64).alias("p"))


def agg(
    df: pl.DataFrame | pl.LazyFrame, expr: pl.Expr, *, engine: str = "streaming"
) -> pl.DataFrame:
    out = df.lazy().group_by("g").agg(expr.alias("value")).collect(engine=engine)
    return out.sort("g", nulls_last=True)


@pytest.mark.parametrize("name", EXPR_IDS)
def test_expression_invariances(name: str, parquet_dir: Path) -> None:
    make, _ = EXPRESSIONS[name]
    weighted = name in WEIGHTED_EXPRS
    c = Cols(w="w") if weighted else Cols()
    data = _binary_preds(DATA)
    base = agg(data, make(c))
    # row order, engines, scan_parquet, over()
    same(agg(data.sample(fraction=1.0, shuffle=True, seed=4), make(c)), base)
    same(agg(data, make(c), engine="in-memory"), base)
    scanned = pl.scan_parquet(parquet_dir / "*.parquet").with_columns(
        (pl.col("p") == 1).cast(pl.Int64).alias("p")
    )
    same(agg(scanned, make(c)), base)
    over = data.select("g", make(c).over("g").alias("value")).unique().sort("g", nulls_last=True)
    same(over, base)
    # label renaming (accuracy & co compare y with p: both renamed alike)
    if name in MULTICLASS_EXPRS:
        renamed = _renamed_labels(data)
    else:
        binary = {0: "neg", 1: "pos"}
        renamed = data.with_columns(
            pl.col("yb", "p").replace_strict(binary, return_dtype=pl.String)
        )
    same(agg(renamed, make(dataclasses.replace(c, pos="pos"))), base)
    # zero weights
    if weighted:
        extra = _binary_preds(_zero_weight_rows()).with_columns(pl.col("y").mod(3))
        with_zeros = pl.concat([data, extra.filter(pl.col("g") != "zz")])
        same(agg(with_zeros, make(c)), base)


@pytest.mark.parametrize("name", EXPR_IDS)
def test_expression_equals_the_frame_method(name: str) -> None:
    """Each expression's per-group value is the frame method's, for the same rows."""
    make, _ = EXPRESSIONS[name]
    c = Cols(w="w") if name in WEIGHTED_EXPRS else Cols()
    data = _binary_preds(DATA)
    got = agg(data, make(c)).rename({"value": name})
    m = data.metrics
    if name == "accuracy":
        expected = m.summary(c.y, c.p, by="g", weight=c.w).select("g", pl.col("accuracy"))
    elif name in ("roc_auc", "average_precision", "log_loss", "brier_score", "hinge_loss"):
        expected = getattr(m, name)(c.yb, c.s, by="g", weight=c.w, pos_label=1)
        expected = expected.select("g", name)
    elif name in ("mcc", "balanced_accuracy", "cohen_kappa"):
        expected = m.summary(c.y, c.p, by="g", weight=c.w).select("g", name)
    elif name == "hamming_loss":
        summary = m.summary(c.y, c.p, by="g", weight=c.w)
        expected = summary.select("g", (1 - pl.col("accuracy")).alias(name))
    elif "[" in name:
        metric, average = name.rstrip("]").split("[")
        beta = 0.5 if metric == "f_beta" else 1.0
        column = {"f_beta": "f0.5"}.get(metric, metric)
        expected = (
            m.averages(c.y, c.p, by="g", weight=c.w, beta=beta)
            .filter(pl.col("average") == average)
            .select("g", pl.col(column).alias(name))
        )
    else:
        beta = 0.5 if name == "f_beta" else 1.0
        column = {"f1": "f1", "f_beta": "f0.5"}.get(name, name)
        expected = (
            m.per_class(c.yb, c.p, by="g", weight=c.w, beta=beta)
            .filter(pl.col("label") == 1)
            .select("g", pl.col(column).alias(name))
        )
    same(got, expected)


# ------------------------------------------------------------------------------------ CLI
#: The arguments of the registry's calls, as ``pl-metrics`` options (``--by g`` and,
#: for a weighted entry, ``--weight w`` are added by :func:`_cli`).
_LABELS = ("--y-true", "y", "--y-pred", "p")
_BINARY_LABELS = ("--y-true", "yb", "--y-pred", "pb", "--pos-label", "1")
_SCORES = ("--y-true", "yb", "--score", "s", "--pos-label", "1")
_MULTICLASS = ("--y-true", "y", "--score-map", ",".join(f"{k}={v}" for k, v in Cols().q))
_MULTILABEL = ("--y-true", "ml", "--score-map", ",".join(f"{k}={v}" for k, v in Cols().q))
#: the labels y one-hot (the labels of both maps are text on the command line)
_ONE_HOT = (
    *("--y-true-map", ",".join(f"{k}={v}" for k, v in Cols().oh)),
    *("--score-map", _MULTICLASS[-1]),
)
_SETS = ("--y-true", "ml", "--y-pred", "mlp")  # multilabel List columns
_SET_MAPS = (  # the same sets as indicator columns
    *("--y-true-map", ",".join(f"{k}={v}" for k, v in Cols().mlmap)),
    *("--y-pred-map", ",".join(f"{k}={v}" for k, v in Cols().mlpmap)),
)
_RELEVANCE_LIST = ("--y-true", "rl", "--score-map", _MULTILABEL[-1], "--labels", "0,1,2")
_RELEVANCE = (
    "--y-true-map",
    ",".join(f"{k}={v}" for k, v in Cols().rel),
    "--score-map",
    ",".join(f"{k}={v}" for k, v in Cols().q),
)
_CI = ("--ci", str(CI["ci"]), "--n-boot", str(CI["n_boot"]), "--seed", str(CI["seed"]))
#: ``by=GROUPS, control=c.by``: the command line takes column names, so the group
#: column is made by ``--with-column`` (the SQL of GROUPS; a ``by`` expression equals
#: its materialised column: test_by_expression_equals_materialised_column).
_GROUPS = ("--with-column", "high_q0=q0 > 0.35", "--by", "high_q0", "--control", "g")
_DECISION_COSTS = json.dumps(
    {
        str(a): {str(j): float(a != j) * (1 + i) for j, _ in Cols().q}
        for i, (a, _) in enumerate(Cols().q)
    }
)


def _cli(
    command: str,
    name: str,
    *args: str,
    by: tuple[str, ...] = ("--by", "g"),
    weighted: bool | None = None,
) -> tuple[str, str, list[str]]:
    """(command, the entry it reproduces, its arguments): the call of the entry with
    ``Cols(w="w")`` when the entry is weighted (``weighted``: a document's), else
    ``Cols()``."""
    weighted = BY_NAME[name].weighted if weighted is None else weighted
    return command, name, [*args, *by, *(("--weight", "w") if weighted else ())]


#: Each ``pl-metrics`` command, with every registry entry of its method: the command
#: must write the frame that the entry's call (:func:`run`) returns on the same rows.
CLI: list[tuple[str, str, list[str]]] = [
    _cli("confusion-matrix", "confusion_matrix", *_LABELS),
    _cli("confusion-matrix", "confusion_matrix[normalize]", *_LABELS, "--normalize", "true"),
    _cli("counts", "counts", *_LABELS),
    _cli("per-class", "per_class", *_LABELS, "--beta", "2"),
    _cli("averages", "averages", *_LABELS, "--zero-division", "1"),
    _cli("report", "report", *_LABELS),
    _cli("report", "report[ci]", *_LABELS, *_CI),
    _cli("report", "report[bootstrap]", *_LABELS, *_CI, "--ci-method", "bootstrap"),
    _cli("summary", "summary", *_LABELS),
    _cli("summary", "summary[replace_undefined_by]", *_LABELS, "--replace-undefined-by", "0.5"),
    _cli(
        "summary",
        "summary[kappa_weights]",
        *_LABELS,
        "--labels",
        "0,1,2",
        "--kappa-weights",
        "quadratic",
    ),
    _cli("summary", "summary[ci]", *_LABELS, *_CI),
    _cli("summary", "summary[bootstrap]", *_LABELS, *_CI, "--ci-method", "bootstrap"),
    _cli("class-likelihood-ratios", "class_likelihood_ratios", *_BINARY_LABELS),
    _cli("selection-rate", "selection_rate", *_BINARY_LABELS),
    _cli("group-rates", "group_rates", *_BINARY_LABELS),
    _cli("fairness", "fairness", *_BINARY_LABELS, "--agg", "mean", by=_GROUPS),
    _cli("fairness", "fairness[ci]", *_BINARY_LABELS, "--method", "to_overall", *_CI, by=_GROUPS),
    _cli("reference-disparities", "reference_disparities", *_BINARY_LABELS, by=_GROUPS),
    _cli("disparity", "disparity", *_LABELS, "--metric", "accuracy,f1_macro", by=_GROUPS),
    _cli(
        "disparity",
        "disparity[scores]",
        *("--y-true", "yb", "--y-pred", "s", "--pos-label", "1"),
        *("--metric", "roc_auc", "--metric", "log_loss"),  # repeated: the same list
        by=_GROUPS,
    ),
    _cli("disparity", "disparity[ci]", *_BINARY_LABELS, "--metric", "f1", *_CI, by=_GROUPS),
    _cli(
        "compare",
        "compare[any metric]",
        *_BINARY_LABELS,
        *("--metric", "false_positive_rate", "--n-boot", "30", "--adjust", "bh"),
    ),
    _cli("compare", "compare", *_LABELS, "--metric", "accuracy", "--ci-method", "wilson"),
    _cli(
        "compare",
        "compare[bootstrap]",
        *_LABELS,
        *("--metric", "mcc", "--n-boot", "40", "--seed", "1"),
    ),
    _cli("roc-auc", "roc_auc", *_SCORES),
    _cli("roc-auc", "roc_auc[bins]", *_SCORES, "--bins", "8"),
    _cli("roc-auc", "roc_auc[ci]", *_SCORES, *_CI),
    _cli("roc-auc", "roc_auc[delong]", *_SCORES, "--ci", "0.9", "--ci-method", "delong"),
    _cli("roc-auc", "roc_auc[ovr]", *_MULTICLASS, "--average", "weighted"),
    _cli("roc-auc", "roc_auc[ovo]", *_MULTICLASS, "--multi-class", "ovo"),
    _cli("roc-auc", "roc_auc[ovr][delong]", *_MULTICLASS, "--average", "weighted", "--ci", "0.9"),
    _cli(
        "roc-auc",
        "roc_auc[ovr][delong][per_class]",
        *_MULTICLASS,
        *("--average", "none", "--ci", "0.9"),
    ),
    _cli(
        "roc-auc",
        "roc_auc[ovr][bootstrap][per_class]",
        *_MULTICLASS,
        *("--average", "none", *_CI, "--ci-method", "bootstrap"),
    ),
    _cli("roc-auc", "roc_auc[ovr][bootstrap]", *_MULTICLASS, *_CI, "--ci-method", "bootstrap"),
    _cli("roc-auc", "roc_auc[per_class]", *_MULTICLASS, "--average", "none"),
    _cli("roc-auc", "roc_auc[micro]", *_MULTICLASS, "--average", "micro"),
    _cli("roc-auc", "roc_auc[max_fpr]", *_SCORES, "--max-fpr", "0.3"),
    _cli("roc-auc", "roc_auc[multilabel]", *_MULTILABEL, "--average", "none"),
    _cli(
        "roc-auc",
        "roc_auc[multilabel-max_fpr]",
        *(*_MULTILABEL, "--average", "weighted", "--max-fpr", "0.4"),
    ),
    _cli(
        "roc-auc",
        "roc_auc[multilabel-samples-max_fpr]",
        *(*_MULTILABEL, "--average", "samples", "--max-fpr", "0.3"),
    ),
    _cli(
        "average-precision", "average_precision[multilabel]", *_MULTILABEL, "--average", "samples"
    ),
    _cli(
        "average-precision",
        "average_precision[multilabel-float]",
        *("--y-true-map", ",".join(f"{k}={v}" for k, v in Cols().mlfmap)),
        *("--score-map", _MULTILABEL[-1], "--average", "none"),
    ),
    _cli("coverage-error", "coverage_error", *_MULTILABEL),
    _cli("per-class", "per_class[multilabel]", *_SETS, "--beta", "2"),
    _cli("averages", "averages[multilabel]", *_SETS, "--zero-division", "1"),
    _cli("report", "report[multilabel]", *_SETS, "--labels", "2,0"),
    _cli("summary", "summary[multilabel]", *_SETS),
    _cli("report", "report[multilabel-map]", *_SET_MAPS),
    _cli("report", "report[multilabel-ci]", *_SETS, *_CI),
    _cli("summary", "summary[multilabel-ci]", *_SETS, *_CI),
    _cli("multilabel-confusion-matrix", "multilabel_confusion_matrix", *_SETS),
    _cli("multilabel-counts", "multilabel_counts", *_SETS),
    _cli("multilabel-counts", "multilabel_counts[labels]", *_SETS, "--labels", "2,0"),
    _cli("multilabel-counts", "multilabel_counts[map]", *_SET_MAPS),
    _cli("hamming-loss", "hamming_loss", *_LABELS),
    _cli("hamming-loss", "hamming_loss[multilabel]", *_SETS),
    _cli("zero-one-loss", "zero_one_loss", *_LABELS, "--no-normalize"),
    _cli("zero-one-loss", "zero_one_loss[multilabel]", *_SETS),
    _cli("label-ranking-average-precision", "label_ranking_average_precision", *_MULTILABEL),
    _cli(
        "label-ranking-average-precision",
        "label_ranking_average_precision[one-label]",
        *(
            "--y-true-map",
            "{}={}".format(*Cols().mlmap[0]),
            "--score-map",
            "{}={}".format(*Cols().q[0]),
        ),
    ),
    _cli("label-ranking-loss", "label_ranking_loss", *_MULTILABEL),
    _cli("ndcg", "ndcg", *_RELEVANCE_LIST, "--k", "2"),
    _cli("dcg", "dcg", *_RELEVANCE_LIST),
    _cli("dcg", "dcg[mapping]", *_RELEVANCE, "--log-base", "3"),
    _cli("average-precision", "average_precision", *_SCORES),
    _cli(
        "average-precision",
        "average_precision[multiclass]",
        *_MULTICLASS,
        *("--average", "weighted"),
    ),
    _cli("average-precision", "average_precision[per_class]", *_MULTICLASS, "--average", "none"),
    _cli("average-precision", "average_precision[ci]", *_SCORES, *_CI),
    _cli("roc-curve", "roc_curve", *_SCORES),
    _cli("roc-curve", "roc_curve[multiclass]", *_MULTICLASS),
    _cli("pr-curve", "pr_curve", *_SCORES),
    _cli("pr-curve", "pr_curve[multiclass]", *_MULTICLASS, "--drop-intermediate"),
    _cli("pr-curve", "pr_curve[drop_intermediate]", *_SCORES, "--drop-intermediate"),
    _cli("score-counts", "score_counts", *_SCORES),
    _cli(
        "drift",
        "drift",
        *("--columns", "s,s2", "--reference", "ts < DATE '2026-03-03'", "--bins", "4"),
    ),
    _cli(
        "drift-counts",
        "drift_counts",
        *("--columns", "s,s2", "--edges", '{"s": [0.2, 0.5], "s2": [0.4]}'),
    ),
    _cli(
        "drift-bins",
        "drift_bins",
        *("--columns", "s,s2", "--reference", "ts < DATE '2026-03-03'", "--bins", "4"),
    ),
    _cli(
        "custom",
        "custom",
        *_LABELS,
        "--metrics",
        "acc=sklearn.metrics:accuracy_score,mcc=sklearn.metrics:matthews_corrcoef",
    ),
    _cli(
        "over-time",
        "over_time[labels]",
        *_LABELS,
        *("--index", "ts", "--every", "1d", "--period", "3d"),
        *("--metrics", "n,accuracy,f1_macro,mcc"),
    ),
    _cli(
        "over-time",
        "over_time[scores]",
        *_SCORES,
        *("--index", "ts", "--every", "2d"),
        *("--metrics", "roc_auc,average_precision,ks,log_loss,brier_score"),
    ),
    _cli(
        "over-time",
        "over_time[positive]",
        *_BINARY_LABELS,
        *("--score", "s", "--index", "ts", "--every", "1d", "--period", "2d"),
        *("--metrics", "precision,recall,f1,jaccard,specificity,calibration_error"),
    ),
    _cli(
        "over-time",
        "over_time[ci]",
        *_LABELS,
        *("--index", "ts", "--every", "1d", "--period", "2d"),
        *_CI,
    ),
    _cli(
        "over-time",
        "over_time[bootstrap]",
        *_LABELS,
        *("--index", "ts", "--every", "1d", "--period", "2d"),
        *("--metrics", "accuracy,mcc,f1_macro", "--ci-method", "bootstrap"),
        *_CI,
    ),
    _cli("expected-cost", "expected_cost", *_SCORES, "--cost-matrix", "[[0, 1], [4, 0]]"),
    _cli(
        "expected-cost",
        "expected_cost[best]",
        *_SCORES,
        *("--cost-matrix", "0,2;3,0.5", "--best"),  # the a,b;c,d form
    ),
    _cli(
        "decision-cost",
        "decision_cost",
        *_MULTICLASS,
        "--cost-matrix",
        _DECISION_COSTS,
    ),
    _cli("cost-curve", "cost_curve", *_SCORES, "--points", "11"),
    _cli("ks", "ks", *_SCORES),
    _cli("ks", "ks[bins]", *_SCORES, "--bins", "10"),
    _cli("gains", "gains", *_SCORES, "--buckets", "7"),
    _cli("gains", "gains[shares]", *_SCORES, "--buckets", "0.05,0.1,0.5"),
    _cli("log-loss", "log_loss", *_SCORES),
    _cli("log-loss", "log_loss[multiclass]", *_MULTICLASS),
    _cli("brier-score", "brier_score", *_SCORES),
    _cli("d2-log-loss-score", "d2_log_loss_score", *_SCORES),
    _cli("d2-log-loss-score", "d2_log_loss_score[multiclass]", *_MULTICLASS),
    _cli("d2-brier-score", "d2_brier_score", *_SCORES),
    _cli("d2-brier-score", "d2_brier_score[multiclass]", *_MULTICLASS),
    _cli("log-loss", "log_loss[one-hot]", *_ONE_HOT),
    _cli("brier-score", "brier_score[one-hot]", *_ONE_HOT),
    _cli("d2-log-loss-score", "d2_log_loss_score[one-hot]", *_ONE_HOT),
    _cli("d2-brier-score", "d2_brier_score[one-hot]", *_ONE_HOT),
    _cli("calibration-curve", "calibration_curve", *_SCORES, "--n-bins", "4"),
    _cli("calibration-curve", "calibration_curve[quantile]", *_SCORES, "--strategy", "quantile"),
    _cli("calibration-curve", "calibration_curve[ci]", *_SCORES, "--n-bins", "4", "--ci", "0.9"),
    _cli("calibration-error", "calibration_error", *_SCORES, "--strategy", "quantile"),
    _cli(
        "calibration-curve",
        "calibration_curve[per_class]",
        *_MULTICLASS,
        *("--n-bins", "4", "--multi-class", "per_class"),
    ),
    _cli(
        "calibration-curve",
        "calibration_curve[top_label]",
        *_MULTICLASS,
        *("--strategy", "quantile"),
    ),
    _cli(
        "calibration-error",
        "calibration_error[per_class]",
        *_MULTICLASS,
        *("--strategy", "quantile", "--multi-class", "per_class"),
    ),
    _cli("calibration-error", "calibration_error[top_label]", *_MULTICLASS, "--n-bins", "6"),
    _cli("top-k-accuracy", "top_k_accuracy", *_MULTICLASS, "--k", "2"),
    _cli("top-k-accuracy", "top_k_accuracy[binary]", *_SCORES, "--k", "1"),
    _cli("hinge-loss", "hinge_loss", *_SCORES),
    _cli("hinge-loss", "hinge_loss[multiclass]", *_MULTICLASS, "--labels", "0,1,2"),
    _cli("thresholds", "thresholds", *_SCORES),
    _cli("best-threshold", "best_threshold", *_SCORES, "--metric", "mcc"),
    _cli("det-curve", "det_curve", *_SCORES),
    _cli(
        "threshold-report",
        "threshold_report",
        *("--y-true", "yb", "--score", "s"),
        *("--threshold", "0.45", "--pos-label", "1", "--neg-label", "0"),
    ),
    _cli(
        "compare-models",
        "compare_models",
        *("--y-true", "y", "--model", "p", "--model", "p2", "--n-boot", "40", "--seed", "2"),
    ),
    _cli(
        "compare-models",
        "compare_models[f1]",
        *("--y-true", "yb", "--model", "base=pb,new=pb2,same=pb", "--metric", "f1"),
        *("--pos-label", "1", "--n-boot", "40", "--adjust", "holm"),
    ),
    _cli(
        "compare-models",
        "compare_models[roc_auc]",
        *("--y-true", "yb", "--model", "s,s2", "--metric", "roc_auc"),
        *("--pos-label", "1", "--ci", "0.9"),
    ),
    _cli(
        "compare-models",
        "compare_models[average_precision]",
        *("--y-true", "yb", "--model", "s", "--model", "s2", "--metric", "average_precision"),
        *("--pos-label", "1"),
    ),
    _cli(
        "compare-models",
        "compare_models[average_precision, bootstrap]",
        *("--y-true", "yb", "--model", "s", "--model", "s2", "--metric", "average_precision"),
        *("--pos-label", "1", "--ci-method", "bootstrap", "--n-boot", "30"),
    ),
    _cli(  # on the stacked rows (CLI_INPUTS)
        "compare-models",
        "compare_models[stacked]",
        *("--y-true", "y", "--model", STACKED[2], "--model-column", STACKED[1]),
        *("--id", STACKED[0], "--n-boot", "40", "--seed", "2"),
    ),
    # a document (DOCUMENTS): compared with the method's page (DOCUMENT_CALLS); its
    # intervals are of un-weighted rows (a weight with ci is refused)
    _cli(
        "html",
        "html_report",
        *_BINARY_LABELS,
        *("--score", "s", "--ci", "none", "--title", "Registry"),
        weighted=True,
    ),
    _cli(
        "html",
        "html_report[ci]",
        *_MULTICLASS,
        *("--y-pred", "p", *_CI),
        weighted=False,
    ),
    _cli(
        "html",
        "html_report[drift]",
        *_BINARY_LABELS,
        *("--score", "s", "--ci", "none", "--reference", "ts < DATE '2026-03-03'"),
        *("--drift-columns", "s,s2"),
        weighted=False,
    ),
]

#: The document methods (DOCUMENTS) as the ``html`` command lines above call them:
#: the command's page must be the method's page on the same rows.
DOCUMENT_CALLS: dict[str, Call] = {
    "html_report": lambda m, c: m.html_report(
        c.yb, c.pb, y_score=c.s, by=c.by, pos_label=c.pos, weight=c.w, ci=None, title="Registry"
    ),
    "html_report[ci]": lambda m, c: m.html_report(
        c.y, c.p, y_score=c.qmap, by=c.by, weight=c.w, **CI
    ),
    "html_report[drift]": lambda m, c: m.html_report(
        c.yb,
        c.pb,
        y_score=c.s,
        by=c.by,
        pos_label=c.pos,
        ci=None,
        reference=pl.col("ts") < dt.date(2026, 3, 3),
        drift_columns=[c.s, c.s2],
    ),
}
CLI_IDS = [f"{command}:{name}" for command, name, _ in CLI]


def _commands() -> set[str]:
    from pl_metrics import cli

    sub = next(a for a in cli._parser()._actions if a.dest == "command")
    return set(sub.choices)


def test_every_cli_command_is_in_the_registry() -> None:
    assert _commands() == {command for command, _, _ in CLI}


def test_every_registry_entry_is_run_from_the_cli() -> None:
    """Each registry entry (each set of options of a method) has its command line,
    and each command its method's entries: a new entry needs a line in ``CLI``."""
    from pl_metrics import cli

    cases = {name for _, name, _ in CLI}
    assert cases == set(BY_NAME) | set(DOCUMENT_CALLS), "add the new entries to CLI"
    assert {name.split("[")[0] for name in DOCUMENT_CALLS} == set(DOCUMENTS)
    for command, name, _ in CLI:
        assert cli.commands()[command].method == name.split("[")[0], (command, name)


def _rounded(page: str) -> str:
    """The page with floats to 9 significant digits (sums over three files and over
    one frame differ in their last bits) and the charts' datasets, named by a hash
    of their rows (those bits included), numbered in the order they appear."""
    page = re.sub(r"\d+\.\d{9,}", lambda m: f"{float(m.group()):.9g}", page)
    page = re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "generated", page)  # the minute
    hashes: dict[str, int] = {}
    return re.sub(
        r"data-[0-9a-f]{32}", lambda m: f"data-{hashes.setdefault(m.group(), len(hashes))}", page
    )


@pytest.mark.parametrize(("command", "name", "args"), CLI, ids=CLI_IDS)
def test_cli_equals_the_frame_method(
    command: str, name: str, args: list[str], parquet_dir: Path, tmp_path: Path
) -> None:
    from pl_metrics import cli

    c = Cols(w="w") if "--weight" in args else Cols()
    files = str(parquet_dir / "*.parquet")
    if name in DOCUMENT_CALLS:
        out = tmp_path / "out.html"
        assert cli.main([command, files, *args, "-o", str(out)]) == 0
        page = DOCUMENT_CALLS[name](DATA.metrics, c)
        assert isinstance(page, str)
        assert _rounded(out.read_text(encoding="utf-8")) == _rounded(page)
        return
    if name in CLI_INPUTS:  # rows other than DATA's
        CLI_INPUTS[name](pl.scan_parquet(files), c).sink_parquet(tmp_path / "input.parquet")
        files = str(tmp_path / "input.parquet")
    out = tmp_path / "out.parquet"
    assert cli.main([command, files, *args, "-o", str(out)]) == 0
    expected = run(BY_NAME[name], DATA, c)
    if "--y-true-map" in args and "label" in expected.columns:
        # the labels of indicator maps are text on the command line: no label column
        # types them (the --y-true column types the labels of every other option)
        expected = expected.with_columns(pl.col("label").cast(pl.String))
    same(pl.read_parquet(out), expected)


#: The input of a command line that reads other rows than DATA's (made from them).
CLI_INPUTS: dict[str, Callable[[pl.LazyFrame, Cols], object]] = {"compare_models[stacked]": stack}


def test_stacked_compare_models_is_the_wide_entry() -> None:
    """The stacked entry's frame is the wide ``compare_models`` entry's (same names,
    same draws): every invariance above holds for the stacked rows too."""
    c = Cols()
    same(run(BY_NAME["compare_models[stacked]"], DATA, c), run(BY_NAME["compare_models"], DATA, c))


#: One command line per command (its first in ``CLI``) for the bad-input test.
FIRST_CLI = {command: (name, args) for command, name, args in reversed(CLI)}


@pytest.mark.parametrize("command", sorted(FIRST_CLI))
def test_cli_bad_input_is_one_line_naming_the_column(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A null in the ``--y-true`` column (every command but drift has one; drift: a
    missing column): status 2, one line on stderr naming the column, no output file."""
    from pl_metrics import cli

    name, args = FIRST_CLI[command]
    if "--y-true" in args:
        label = args[args.index("--y-true") + 1]
        bad = DATA.with_columns(
            pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(label).alias(label)
        )
        why = "null"
    else:  # drift reads no labels (a null is a bin): a missing column
        label = args[args.index("--columns") + 1].split(",")[0]
        bad, why = DATA.drop(label), "not found"
    bad.write_parquet(tmp_path / "bad.parquet")
    out = tmp_path / ("out.html" if name in DOCUMENT_CALLS else "out.parquet")
    assert cli.main([command, str(tmp_path / "bad.parquet"), *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # one line, no traceback
    assert f"'{label}'" in err
    assert why in err
    assert not out.exists()


# ---------------------------------------------------------------------------------- charts
@dataclasses.dataclass(frozen=True)
class Chart:
    """A chart of :mod:`pl_metrics.plot` and the registry entry whose frame it draws."""

    entry: str
    kwargs: dict[str, object] = dataclasses.field(default_factory=dict)  # besides by=
    #: The error of the frame drawn without its ``by`` column: "would merge segments"
    #: (a column the chart does not know), or, for forest (which reads only the
    #: metric's columns), its rows repeating with no segment to tell them apart.
    merged: str = "would merge segments"


#: Each chart and the frame it draws.
PLOTS: dict[str, Chart] = {
    "roc_curve": Chart("roc_curve"),
    "pr_curve": Chart("pr_curve"),
    "confusion_matrix": Chart("confusion_matrix"),
    "per_class": Chart("per_class", {"metrics": ("precision", "recall", "f2")}),
    "over_time": Chart("over_time[scores]"),
    "reliability": Chart("calibration_curve"),
    "threshold_metrics": Chart("thresholds"),
    "gains": Chart("gains"),
    "drift": Chart("drift_bins"),
    "forest": Chart(
        "summary[ci]",
        {"metric": "accuracy"},
        merged="'accuracy' has several rows per frame value: the frame holds several segments",
    ),
}


def _chart_rows(chart: object) -> pl.DataFrame:
    """The chart's segment data (the dataset with a segment column; the ROC
    chart's chance diagonal or the forest's reference line is a second dataset)."""
    datasets = chart.to_dict()["datasets"]  # type: ignore[attr-defined]
    segmented = [rows for rows in datasets.values() if "segment" in rows[0]]
    assert len(segmented) == 1
    return pl.DataFrame(segmented[0])


def test_every_chart_is_in_the_registry() -> None:
    plot = pytest.importorskip("pl_metrics.plot")
    public = {
        n
        for n, f in inspect.getmembers(plot, inspect.isfunction)
        if not n.startswith("_") and f.__module__ == plot.__name__
    }
    assert public == set(PLOTS)


@pytest.mark.parametrize("chart", sorted(PLOTS))
def test_chart_one_segment_per_key_and_row_order(chart: str) -> None:
    plot = pytest.importorskip("pl_metrics.plot")
    spec = PLOTS[chart]
    entry = BY_NAME[spec.entry]
    frame = run(entry, DATA, Cols(w="w") if entry.weighted else Cols())
    draw = getattr(plot, chart)
    rows = _chart_rows(draw(frame, by="g", **spec.kwargs))
    # one segment per key, null its own (a forest: one row each)
    assert rows["segment"].n_unique() == DATA["g"].n_unique()
    assert "null" in rows["segment"].to_list()
    if chart == "forest":
        assert rows.height == DATA["g"].n_unique()
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=9)
    same(
        _chart_rows(draw(shuffled, by="g", **spec.kwargs)).drop("segment_id"),
        rows.drop("segment_id"),
    )
    with pytest.raises(ValueError, match=re.escape(spec.merged)):
        draw(frame, **spec.kwargs)  # the segment column not named: refused, never one merged line


# ------------------------------------------------------------------------------- docs
def test_every_output_schema_is_in_the_docs() -> None:
    """docs/schemas.md has a row per method naming each of its output columns."""
    text = (Path(__file__).parents[1] / "docs" / "schemas.md").read_text()
    rows = {
        line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| `")
    }
    for method in names.OUTPUTS:
        row = next((r for k, r in rows.items() if k.split()[0] == f"`{method}`"), None)
        assert row is not None, f"docs/schemas.md has no row for {method}"
        if "| as `" in row:
            continue  # "as `thresholds`": the same schema as a method checked on its own row
        for column in names.output_columns(method):
            assert column in row, f"docs/schemas.md: {method} does not name {column!r}"


# --------------------------------------------------------------------- sorting strategy
#: The entries whose un-weighted scores are sorted instead of counted when they look
#: continuous (``_ranking_sorted``): the registry's scores have few distinct values, so
#: the laws are run again with the sorting forced on (``MIN_DISTINCT = -1``).
SORTING = [
    e
    for e in METHODS
    if e.name in ("roc_auc", "roc_auc[delong]", "roc_auc[ovr]", "average_precision")
]
SORTING_BAD = [p for p in BAD if p.values[0] in SORTING]


#: The two sorting strategies and the class that holds a segment's sorted scores in each.
SORTED = {"search": "_Searched", "keys": "_Keyed"}


def _force_sorting(monkeypatch: pytest.MonkeyPatch, how: str, chunk_rows: int = 10) -> list[str]:
    """Force a sorting strategy; the list names the class of every segment's sorted
    scores that a metric read, or ``"chunk"`` for a range of small segments
    vectorised (segments of at most ``chunk_rows`` rows; the strategy must be taken:
    the registry's scores are not negative, so ``"keys"`` applies)."""
    from pl_metrics import _ranking_batches, _ranking_placements, _ranking_sorted

    calls: list[str] = []

    def counted(metric: Callable) -> Callable:
        def call(segment: object, *args: object) -> object:
            calls.append(type(segment).__name__)
            return metric(segment, *args)

        return call

    monkeypatch.setattr(_ranking_sorted, "MIN_DISTINCT", -1)
    monkeypatch.setattr(_ranking_sorted, "USE_KEYS", how == "keys")
    monkeypatch.setattr(_ranking_batches, "BATCH_ROWS", 50)  # segments over several batches
    monkeypatch.setattr(_ranking_placements, "_SEARCH_CHUNK", 8)  # large: halves on two threads
    monkeypatch.setattr(_ranking_placements, "_SCAN_BLOCK", 3)  # keys scanned 3 rows at a time
    monkeypatch.setattr(_ranking_batches, "CHUNK_ROWS", chunk_rows)
    for name, metric in _ranking_placements._METRICS.items():
        monkeypatch.setitem(_ranking_placements._METRICS, name, counted(metric))
    chunk = _ranking_batches._chunk_metric

    def chunked(*args: object) -> object:
        calls.append("chunk")
        return chunk(*args)

    monkeypatch.setattr(_ranking_batches, "_chunk_metric", chunked)
    return calls


@pytest.mark.parametrize("chunk_rows", [10, 1 << 20], ids=["alone", "vectorised"])
@pytest.mark.parametrize("how", sorted(SORTED))
@pytest.mark.parametrize("entry", SORTING, ids=[e.name for e in SORTING])
def test_sorting_strategy_obeys_the_laws(
    entry: Entry, how: str, chunk_rows: int, parquet_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = Cols()  # un-weighted: weights take the counting path
    counted = run(entry, DATA, c)
    sorting = _force_sorting(monkeypatch, how, chunk_rows)
    same(run(entry, DATA, c), counted)
    taken = SORTED[how] if chunk_rows < 15 else "chunk"  # the smallest segment: 15 rows
    assert set(sorting) <= {SORTED[how], "chunk"}
    assert taken in sorting, f"{entry.name}: the {how} path ({taken}) was not taken"
    same(run(entry, DATA.sample(fraction=1.0, shuffle=True, seed=3), c), counted)
    lazy = entry.call(DATA.lazy().metrics, c)
    same(lazy.collect(engine="streaming"), counted)
    same(lazy.collect(engine="in-memory"), counted)
    scanned = entry.call(pl.scan_parquet(parquet_dir / "*.parquet").metrics, c)
    same(scanned.collect(engine="streaming"), counted)
    for labels in (REORDERS, KEEPS_ORDER):
        test_label_renaming(entry, labels)
    test_by_may_have_any_name_but_an_output_column(entry)
    for case in sorted(BY_EXPRESSIONS):
        test_by_expression_equals_materialised_column(entry, case, parquet_dir)
    if entry in POS_LABEL:
        test_absent_pos_label_is_an_error_on_every_path(entry)


@pytest.mark.parametrize("how", sorted(SORTED))
@pytest.mark.parametrize(("entry", "case", "spoil", "error", "match"), SORTING_BAD)
def test_sorting_strategy_bad_input_is_the_documented_error(
    entry: Entry,
    case: str,
    spoil: Callable,
    error: type,
    match: str,
    how: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _force_sorting(monkeypatch, how)
    test_bad_input_is_the_documented_error_on_every_path(entry, case, spoil, error, match, tmp_path)


# ---------------------------------------------------------------- sorted curve points
#: The entries whose curve points are found by sorting the rows when the scores look
#: continuous (``_sorted_curve``); forced on here, where the registry's scores have
#: few distinct values (2 decimals: runs of tied scores).
SORTED_CURVES = [
    e
    for e in METHODS
    if e.name.split("[")[0]
    in (
        "roc_curve",
        "pr_curve",
        "det_curve",
        "thresholds",
        "best_threshold",
        "ks",
        "gains",
        "expected_cost",
        "cost_curve",
    )
    and "multiclass" not in e.name
    and "bins" not in e.name
]


def _force_sorted_curve(monkeypatch: pytest.MonkeyPatch, how: str) -> list[bool]:
    """Force the sorted curve (``"keys"``: one UInt64 key, else the rows); the list
    records each sort taken (True: keyed)."""
    from pl_metrics import _ranking_sorted, _sorted_curve

    taken: list[bool] = []
    sort = _sorted_curve.sorted_curve

    def counted(*args: object, keyed: bool) -> pl.DataFrame:
        taken.append(keyed)
        return sort(*args, keyed=keyed)  # type: ignore[arg-type]

    monkeypatch.setattr(_ranking_sorted, "MIN_DISTINCT", -1)
    monkeypatch.setattr(_ranking_sorted, "USE_KEYS", how == "keys")
    monkeypatch.setattr(_sorted_curve, "sorted_curve", counted)
    return taken


@pytest.mark.parametrize("weighted", [False, True], ids=["counts", "weights"])
@pytest.mark.parametrize("how", ["keys", "rows"])
@pytest.mark.parametrize("entry", SORTED_CURVES, ids=[e.name for e in SORTED_CURVES])
def test_sorted_curve_equals_the_counted_one(
    entry: Entry, how: str, weighted: bool, parquet_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bit for bit with counts (integer sums); with weights tied scores are summed row by
    row (within 1e-12).  Segments with a null key, every row order, lazy, streaming and
    Parquet, by expressions, and the bad inputs' errors on the sorted path too."""
    c = Cols(w="w" if weighted else None)
    counted = run(entry, DATA, c)
    taken = _force_sorted_curve(monkeypatch, how)
    got = run(entry, DATA, c)
    assert taken, f"{entry.name}: the sorted path was not taken"
    assert set(taken) == {how == "keys" and not weighted}
    if weighted:
        same(got, counted)
    else:
        assert_frame_equal(got, counted, check_exact=True)
    same(run(entry, DATA.sample(fraction=1.0, shuffle=True, seed=3), c), counted)
    lazy = entry.call(DATA.lazy().metrics, c)
    same(lazy.collect(engine="streaming"), counted)
    scanned = entry.call(pl.scan_parquet(parquet_dir / "*.parquet").metrics, c)
    same(scanned.collect(engine="streaming"), counted)
    if weighted:
        return
    test_by_may_have_any_name_but_an_output_column(entry)
    for case in sorted(BY_EXPRESSIONS):
        test_by_expression_equals_materialised_column(entry, case, parquet_dir)
    if entry in POS_LABEL:
        test_absent_pos_label_is_an_error_on_every_path(entry)


SORTED_CURVES_BAD = [p for p in BAD if p.values[0] in SORTED_CURVES]


@pytest.mark.parametrize("how", ["keys", "rows"])
@pytest.mark.parametrize(("entry", "case", "spoil", "error", "match"), SORTED_CURVES_BAD)
def test_sorted_curve_bad_input_is_the_documented_error(
    entry: Entry,
    case: str,
    spoil: Callable,
    error: type,
    match: str,
    how: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _force_sorted_curve(monkeypatch, how)
    test_bad_input_is_the_documented_error_on_every_path(entry, case, spoil, error, match, tmp_path)
