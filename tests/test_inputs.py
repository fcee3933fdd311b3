"""The input rules, stage by stage: options -> schema -> rows -> states, and the
expressions' own.  A file a stage: ``test_inputs_options.py``, ``test_inputs_schema.py``,
the rows' labels and ``pos_label`` (``test_inputs_labels.py``) and weights
(``test_inputs_weights.py``), ``test_inputs_expressions.py``; here the merged states
and the runtime dependencies.

Every bad input is a clear error naming the argument or the column that holds
the bad values (``test_errors.py`` before), and every class of input that once
gave a wrong number without an error (issue 11; ``test_never_silently_wrong.py``
before) now gives the right number or an error: each of those tests failed on
the code before its fix, and its expected numbers come from scikit-learn or from
a hand computation in a comment.  The registry (``tests/registry/``) runs the
common bad inputs through every method and path (``registry/bad.py``).
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from _inputs_helpers import _state

import pl_metrics as plm


# --------------------------------------------- states: bad or inconsistent merged states
@pytest.mark.parametrize(
    ("state", "match"),
    [
        (
            _state({(0, 0): -5, (1, 1): 3}),
            "'count' has 1 rows that are null, NaN, infinite or negative",
        ),
        (
            pl.DataFrame({"actual": [0, None], "predicted": [0, 1], "count": [1, 1]}),
            "'actual' has 1 rows that are null labels",
        ),
        (
            pl.DataFrame({"actual": [0, 1], "predicted": [0, 1], "count": [1, None]}),
            "'count' has 1 rows that are null",
        ),
    ],
)
def test_bad_counts_states_are_refused(state: pl.DataFrame, match: str) -> None:
    with pytest.raises(plm.DataError, match=match):
        plm.from_counts(state).summary()


@pytest.mark.parametrize(
    ("column", "value", "match"),
    [("score", math.nan, "'score' has 1 rows"), ("pos", -1, "'pos' has 1 rows")],
)
def test_bad_score_states_are_refused(column: str, value: float, match: str) -> None:
    state = pl.DataFrame({"score": [0.1, 0.9], "pos": [1, 1], "neg": [1, 0]}).with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(value).otherwise(pl.col(column)).alias(column)
    )
    with pytest.raises(plm.DataError, match=match):
        plm.from_score_counts(state).roc_auc()


def test_a_state_without_any_positive_is_refused() -> None:
    # every shard made with a mistyped pos_label: AP 0.0 and a null AUC
    df = pl.DataFrame({"y": ["no", "yes", "no"], "s": [0.1, 0.9, 0.3]})
    state = pl.concat([df.metrics.score_counts("y", "s", pos_label="Yes")] * 2)
    with pytest.raises(plm.DataError, match="no positive row"):
        plm.from_score_counts(state).average_precision()


# ------------------------------------------------- dependencies: polars alone at runtime
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


def test_a_nan_label_is_refused_as_nan() -> None:
    # labels=[nan, 1.0]: the expression said "cannot be a label of column 'labels'
    # (Float64)" (its call-time check has no column yet), the frame method "of column
    # 'y' (Int64)"; NaN is no label of any column (NaN labels are refused in the data)
    df = pl.DataFrame({"y": [0, 1, 1], "p": [0, 1, 0]})
    calls = [
        lambda: df.select(plm.f1("y", "p", average="macro", labels=[math.nan, 1.0])),
        lambda: df.select(plm.mcc("y", "p", labels=[1.0, math.nan])),
        lambda: df.metrics.averages("y", "p", labels=[math.nan, 1.0]),
        lambda: df.metrics.summary("y", "p", labels=[0, float("nan")]),
        lambda: plm.from_counts(df.metrics.counts("y", "p")).summary(labels=[math.nan]),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="`labels` must not contain NaN"):
            call()
