"""Every bad input gets a clear exception naming the argument or column."""

from __future__ import annotations

import datetime as dt
import math

import polars as pl
import pytest
from polars.exceptions import ColumnNotFoundError, SchemaError
from polars.testing import assert_frame_equal

import pl_metrics as plm

DF = pl.DataFrame(
    {"y_true": [0, 1, 1], "y_pred": [0, 1, 0], "s": ["a", "b", "c"], "w": [1.0, 2.0, 0.5]}
)
METHODS = ["report", "per_class", "averages", "summary", "confusion_matrix"]


@pytest.mark.parametrize("method", METHODS)
def test_missing_column_names_it_and_the_available_ones(method: str) -> None:
    with pytest.raises(ColumnNotFoundError, match=r"'nope'.*available columns.*y_true"):
        getattr(DF.metrics, method)("nope", "y_pred")
    with pytest.raises(ColumnNotFoundError, match="'zz'"):
        getattr(DF.metrics, method)("y_true", "y_pred", by="zz")
    with pytest.raises(ColumnNotFoundError, match="'ww'"):
        getattr(DF.metrics, method)("y_true", "y_pred", weight="ww")


@pytest.mark.parametrize("method", METHODS)
def test_lazy_errors_at_the_call_when_the_schema_shows_it(method: str) -> None:
    with pytest.raises(ColumnNotFoundError):
        getattr(DF.lazy().metrics, method)("nope", "y_pred")  # no collect


def test_incompatible_label_dtypes_name_both_columns() -> None:
    with pytest.raises(
        SchemaError,
        match=r"columns 'y_true' \(Int64\) and 's' \(String\) hold labels of incompatible",
    ):
        DF.metrics.report("y_true", "s")
    enum_a = pl.Enum(["x", "y"])
    enum_b = pl.Enum(["y", "x", "z"])
    df = pl.DataFrame({"a": ["x"], "b": ["x"]}).cast({"a": enum_a, "b": enum_b})
    with pytest.raises(SchemaError, match="Enum"):
        df.metrics.report("a", "b")


def test_non_numeric_weight_is_a_schema_error() -> None:
    with pytest.raises(SchemaError, match=r"'s'.*weight.*numeric"):
        DF.metrics.report("y_true", "y_pred", weight="s")


@pytest.mark.parametrize("beta", [0, -1.0, math.inf, math.nan, "2", True])
def test_bad_beta(beta: object) -> None:
    with pytest.raises(ValueError, match="`beta` must be a finite float > 0, got"):
        DF.metrics.report("y_true", "y_pred", beta=beta)


@pytest.mark.parametrize("zd", [0.5, -1, "warn", None, 2])
def test_bad_zero_division(zd: object) -> None:
    with pytest.raises(
        ValueError, match=r"`zero_division` must be one of 0.0, 1.0 or float\('nan'\)"
    ):
        DF.metrics.per_class("y_true", "y_pred", zero_division=zd)


def test_bad_labels() -> None:
    with pytest.raises(ValueError, match="`labels` must not be empty"):
        DF.metrics.report("y_true", "y_pred", labels=[])
    with pytest.raises(ValueError, match="`labels` must not repeat"):
        DF.metrics.report("y_true", "y_pred", labels=[0, 1, 0])
    with pytest.raises(ValueError, match=r"`labels`.*cannot be a label of column"):
        DF.metrics.report("y_true", "y_pred", labels=["cat"])
    with pytest.raises(ValueError, match="`labels` must be a sequence"):
        DF.metrics.report("y_true", "y_pred", labels="01")


@pytest.mark.parametrize("method", METHODS)
def test_nulls_in_labels_name_the_column_and_count(method: str) -> None:
    df = pl.DataFrame({"y_true": [0, None, None, 1], "y_pred": [0, 1, 1, None]})
    with pytest.raises(plm.DataError, match="column 'y_true' has 2 null rows"):
        getattr(df.metrics, method)("y_true", "y_pred")
    lazy = df.lazy().metrics.report("y_true", "y_pred")  # no error before collect
    with pytest.raises(plm.DataError, match="column 'y_true' has 2 null rows"):
        lazy.collect()
    with pytest.raises(plm.DataError, match="column 'y_pred' has 1 null rows"):
        df.drop_nulls("y_true").metrics.report("y_true", "y_pred")


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf, None])
def test_bad_weights_are_counted(bad: float | None) -> None:
    df = pl.DataFrame({"y_true": [0, 1, 1], "y_pred": [0, 1, 0], "w": [1.0, bad, bad]})
    with pytest.raises(plm.DataError, match=r"column 'w' \(argument `weight`\) has 2 rows"):
        df.metrics.report("y_true", "y_pred", weight="w")


@pytest.mark.parametrize("name", ["label", "precision", "support", "tp", "f2"])
def test_by_column_colliding_with_output(name: str) -> None:
    df = DF.with_columns(pl.col("s").alias(name))
    method = "per_class"
    with pytest.raises(ValueError, match=f"`by` column '{name}' collides"):
        getattr(df.metrics, method)("y_true", "y_pred", by=name, beta=2.0)


@pytest.mark.parametrize("name", ["count", "actual", "n", "score", "pos", "P", "part"])
def test_by_column_named_like_an_internal_column_is_just_a_segment(name: str) -> None:
    # not an output column of per_class: the segments are computed as with any name
    df = DF.with_columns(pl.col("s").alias(name))
    got = df.metrics.per_class("y_true", "y_pred", by=name, beta=2.0)
    expected = df.rename({name: "seg"}).metrics.per_class("y_true", "y_pred", by="seg", beta=2.0)
    assert_frame_equal(got, expected.rename({"seg": name}))


def test_by_listing_a_column_twice() -> None:
    with pytest.raises(ValueError, match="more than once"):
        DF.metrics.report("y_true", "y_pred", by=["s", "s"])


def test_expression_nulls_fail_with_the_column_and_count() -> None:
    # one bad column at a time: with nulls in both, either message may come first
    df = pl.DataFrame({"t": [1, None, 0], "p": [1, 1, 0]})
    with pytest.raises(plm.DataError, match="column 't' has 1 null rows"):
        df.select(plm.precision("t", "p"))
    df = pl.DataFrame({"t": [1, 1, 0], "p": [1, 1, None]})
    with pytest.raises(plm.DataError, match="column 'p' has 1 null rows"):
        df.select(plm.accuracy("t", "p"))
    w = pl.DataFrame({"t": [1, 0], "p": [1, 1], "w": [-1.0, 1.0]})
    with pytest.raises(plm.DataError, match=r"column 'w' \(argument `weight`\) has 1"):
        w.select(plm.recall("t", "p", weight="w"))


def test_expression_bad_options() -> None:
    with pytest.raises(ValueError, match="`beta`"):
        plm.f_beta("t", "p", beta=-2)
    with pytest.raises(ValueError, match="`zero_division`"):
        plm.precision("t", "p", zero_division=3)


#: A call of every method that draws random replicates, with a bad ``seed``.
_SEEDED = {
    "average_precision": lambda m, kw: m.average_precision("y", "s", **kw),
    "averages": lambda m, kw: m.averages("y", "p", **kw),
    "compare": lambda m, kw: m.compare("y", "p", by="g", **kw),
    "compare_models": lambda m, kw: m.compare_models("y", ["s", "s2"], **kw),
    "disparity": lambda m, kw: m.disparity("y", "p", by="g", **kw),
    "fairness": lambda m, kw: m.fairness("y", "p", by="g", **kw),
    "html_report": lambda m, kw: m.html_report("y", "p", **kw),
    "over_time": lambda m, kw: m.over_time("y", y_pred="p", index="t", every="1d", **kw),
    "per_class": lambda m, kw: m.per_class("y", "p", **kw),
    "report": lambda m, kw: m.report("y", "p", **kw),
    "roc_auc": lambda m, kw: m.roc_auc("y", "s", **kw),
    "summary": lambda m, kw: m.summary("y", "p", **kw),
}


def test_every_seeded_method_is_listed() -> None:
    import inspect

    seeded = {
        name
        for name, method in inspect.getmembers(plm.MetricsLazyFrame)
        if not name.startswith("_") and "seed" in inspect.signature(method).parameters
    }
    assert seeded == set(_SEEDED)


@pytest.mark.parametrize("seed", [-1, 1.5, "a", True])
@pytest.mark.parametrize("method", sorted(_SEEDED))
def test_a_bad_seed_is_refused_at_the_call(method: str, seed: object) -> None:
    """A bad ``seed`` names ``seed`` before anything is computed (was numpy's
    'expected non-negative integer' for some methods)."""
    df = pl.DataFrame(
        {
            "y": [0, 1, 1, 0],
            "p": [0, 1, 0, 0],
            "s": [0.1, 0.9, 0.4, 0.3],
            "s2": [0.2, 0.8, 0.6, 0.1],
            "g": ["a", "a", "b", "b"],
            "t": [dt.date(2026, 1, d) for d in (1, 1, 2, 2)],
        }
    )
    with pytest.raises(ValueError, match=r"`seed` must be None or an integer >= 0"):
        _SEEDED[method](df.lazy().metrics, {"ci": 0.9, "seed": seed})


def test_import_and_frame_methods_need_polars_only() -> None:
    """The runtime dependency is polars: `import pl_metrics` and the frame methods work
    without numpy (a module-level numpy import once broke `make demo` in a fresh clone);
    an expression that needs numpy says so."""
    import subprocess
    import sys

    code = """
import sys
sys.modules["numpy"] = None  # numpy absent
import polars as pl
import pl_metrics as plm
df = pl.DataFrame({"y": ["a", "b", "a"], "p": ["a", "a", "a"]})
assert df.metrics.report("y", "p").height == 5
assert df.select(plm.f1("y", "p", pos_label="a")).item() > 0
try:
    df.select(plm.f1("y", "p", average="macro"))
except ModuleNotFoundError as exc:
    assert "pip install numpy" in str(exc)
else:
    raise AssertionError("no error without numpy")
"""
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
