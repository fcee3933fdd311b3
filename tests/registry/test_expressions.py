"""The expressions (``plm.f1`` & co in ``group_by().agg()``): the same invariances,
and each equal to the frame method it mirrors."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import polars as pl
import pytest

import pl_metrics as plm
from pl_metrics._core import names
from registry.entries import (
    DATA,
    EXPRESSIONS,
    Cols,
    renamed_labels,
    same,
    zero_weight_rows,
)

# ----------------------------------------------------------------------------- expressions
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
        renamed = renamed_labels(data)
    else:
        binary = {0: "neg", 1: "pos"}
        renamed = data.with_columns(
            pl.col("yb", "p").replace_strict(binary, return_dtype=pl.String)
        )
    same(agg(renamed, make(dataclasses.replace(c, pos="pos"))), base)
    # zero weights
    if weighted:
        extra = _binary_preds(zero_weight_rows()).with_columns(pl.col("y").mod(3))
        with_zeros = pl.concat([data, extra.filter(pl.col("g") != "zz")])
        same(agg(with_zeros, make(c)), base)


#: The opt-in columns of per_class / averages (an expression of each: plm.fowlkes_mallows).
EXTRA = list(names.EXTRA_SCORES)


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
    elif name in ("roc_auc", "gini", "average_precision", "log_loss", "brier_score", "hinge_loss"):
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
            m.averages(c.y, c.p, by="g", weight=c.w, beta=beta, extra_scores=EXTRA)
            .filter(pl.col("average") == average)
            .select("g", pl.col(column).alias(name))
        )
    else:
        beta = 0.5 if name == "f_beta" else 1.0
        column = {"f1": "f1", "f_beta": "f0.5"}.get(name, name)
        expected = (
            m.per_class(c.yb, c.p, by="g", weight=c.w, beta=beta, extra_scores=EXTRA)
            .filter(pl.col("label") == 1)
            .select("g", pl.col(column).alias(name))
        )
    same(got, expected)
