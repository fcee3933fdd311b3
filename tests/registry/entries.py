"""The registry's entries: every public method called once on the registry's frame.

To register a method: add an :class:`Entry` to ``METHODS`` of ``entries_labels.py``
or ``entries_scores.py`` (their concatenation is :data:`METHODS`; the frame, ``Cols``
and ``Entry`` are in ``entries_base.py``), a state finisher to :data:`FINISHERS`.
The laws in this package's ``test_*`` modules then run it: row order, label
renaming, eager = lazy = streaming = ``scan_parquet`` = merged states, zero /
integer weights, ``by`` names and expressions, bad input, the CLI and the charts.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

import pl_metrics as plm
from registry.entries_base import (  # noqa: F401 - the entries' names, imported from here
    CI,
    DATA,
    ESTIMATE_REFERENCE,
    EXTRA,
    GROUPS,
    STACKED,
    Call,
    Cols,
    Entry,
    _b,
    _bl,
    _frame,
    _m,
    _stacked,
    stack,
)
from registry.entries_labels import METHODS as LABEL_METHODS
from registry.entries_scores import METHODS as SCORE_METHODS

METHODS: list[Entry] = [*LABEL_METHODS, *SCORE_METHODS]
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
