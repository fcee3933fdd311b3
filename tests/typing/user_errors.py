"""User code with mistakes that ``mypy --strict`` must report (``tests/test_typing.py``).

Each line ending in ``# E: <code>`` must give one mypy error of that code, and no
other line any.  Nothing here runs (the functions are never called).
"""

from __future__ import annotations

import polars as pl

import pl_metrics as plm


def misspelled_options(df: pl.DataFrame) -> None:
    m = plm.metrics(df)
    m.compare("y", "p", by="g", metric="f1_macr")  # E: arg-type
    m.best_threshold("y", "s", metric="f1_macro")  # E: arg-type
    m.roc_auc("y", "s", average="macr")  # E: arg-type
    m.report("y", "p", ci=0.9, ci_method="wilson")  # E: arg-type
    m.over_time("y", index="t", every="1d", metrics=["roc_aux"])  # E: list-item
    m.fairness("y", "p", by="g", agg="max")  # E: arg-type
    m.compare_models("y", ["a", "b"], adjust="holms")  # E: arg-type
    m.html_report("y", "p", n_bin=5)  # E: call-arg


def misspelled_state_options(df: pl.DataFrame) -> None:
    state = plm.from_counts(df, by="g")
    state.report(ci=0.9, ci_method="wilson")  # E: arg-type
    state.summary(ci=0.9, kappa_weights="cubic")  # E: arg-type
    plm.from_score_counts(df).roc_auc(ci=0.9, ci_method="wilson")  # E: arg-type


def wrong_types(df: pl.DataFrame, lf: pl.LazyFrame) -> pl.DataFrame:
    plm.metrics(df).report("y", 3)  # E: arg-type
    plm.metrics(df).summary("y", "p", bogus=True)  # E: call-arg
    plm.metrics(lf).per_class("y", "p", "g")  # E: call-arg
    plm.metrics(pl.Series([1]))  # E: call-overload
    metric = "accuracy"  # a str: not a Literal without an annotation
    plm.metrics(df).compare("y", "p", by="g", metric=metric)  # E: arg-type
    return plm.metrics(lf).report("y", "p")  # E: return-value
