"""``custom(..., weight=)`` passes ``sample_weight=`` to every callable: one that takes
none is named (issue 49: was a bare TypeError from inside the lambda, at collect)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import accuracy_score

import pl_metrics  # noqa: F401 - registers .metrics

DF = pl.DataFrame(
    {"g": [0, 0, 1, 1, 1], "y": [0, 1, 1, 0, 1], "p": [0, 1, 0, 0, 1], "w": [1.0, 2, 1, 1, 3]}
)


def test_a_callable_without_sample_weight_is_named_before_any_row_is_read() -> None:
    metrics = {"acc": accuracy_score, "ones": lambda y, p: float(np.mean(p))}
    with pytest.raises(TypeError, match=r"custom metric 'ones' takes no `sample_weight`"):
        DF.lazy().metrics.custom(metrics, "y", "p", weight="w")  # at once, lazily
    with pytest.raises(TypeError, match=r"`weight=` passes .* `sample_weight=`"):
        DF.metrics.disparity("y", "p", by="g", metric=metrics, weight="w")


def test_callables_taking_sample_weight_or_kwargs_are_weighted() -> None:
    """The values: scikit-learn's weighted accuracy per group (group 0: rows weights 1,
    2, both right: 1.0; group 1: right on weights 1 and 3 of 5: 0.8)."""

    def keywords(y: object, p: object, **kw: object) -> float:
        return float(accuracy_score(y, p, **kw))

    metrics = {"acc": accuracy_score, "kw": keywords}
    got = DF.metrics.custom(metrics, "y", "p", by="g", weight="w").sort("g")
    assert got["acc"].to_list() == pytest.approx([1.0, 0.8])
    assert got["kw"].to_list() == pytest.approx([1.0, 0.8])
    # without weight=, a callable taking none is fine
    plain = DF.metrics.custom({"ones": lambda y, p: float(np.mean(p))}, "y", "p")
    assert math.isclose(plain["ones"].item(), 2 / 5)


def test_a_builtin_without_a_signature_is_named_when_it_refuses() -> None:
    """``inspect.signature`` cannot read every callable (a numpy ufunc here): it is
    called, and its TypeError over ``sample_weight`` names the metric."""
    with pytest.raises(TypeError, match=r"custom metric 'max' takes no `sample_weight`"):
        DF.metrics.custom({"max": np.maximum}, "y", "p", weight="w")
