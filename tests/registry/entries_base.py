"""The registry's frame, its columns (:class:`Cols`), the :class:`Entry` record and
the helpers the entries are written with (``entries_labels``, ``entries_scores``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable

import numpy as np
import polars as pl

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
