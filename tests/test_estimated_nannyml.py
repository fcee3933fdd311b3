"""``estimated_performance`` against NannyML's CBPE, the method it implements (issue 52:
"NannyML (an optional, test-only oracle if it installs cleanly) uses these definitions").

NannyML fits its isotonic calibrator on the reference rows when its own test says the
scores need it (``CBPE.needs_calibration``: the reference's calibration error falls);
the data here are made miscalibrated (a score of ``x`` has probability ``x ** 2``), so
it does, and each test asserts that it did.  One NannyML chunk is one segment: the
rows sorted by segment, the segments of equal size, ``chunk_size`` that size.

NannyML installs on Python 3.9-3.12 (its ``Requires-Python``): the test extra asks for
it on 3.11 and 3.12, where this suite runs it (the floor run, on 3.10, deselects this
module with the other environment tests).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import polars as pl
import pytest

import pl_metrics  # noqa: F401  (registers .metrics)

pytestmark = [
    pytest.mark.skipif(
        not (3, 11) <= sys.version_info[:2] < (3, 13),
        reason="NannyML installs on Python 3.9-3.12; the test extra asks for it on 3.11-3.12",
    ),
    # NannyML's own deprecation and chunking warnings (pandas 3), not the library's
    pytest.mark.filterwarnings("ignore::Warning:nannyml"),
]

METRICS = ["roc_auc", "precision", "recall", "f1", "specificity", "accuracy"]


def _rows(n: int, seed: int, *, segments: int = 1, decimals: int | None = None) -> pl.DataFrame:
    """``seg, y, s, pred``: scores whose probability of ``y = 1`` is ``s ** 2`` (so
    isotonic calibration changes them), ``decimals``: rounded (ties)."""
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    if decimals is not None:
        s = np.round(s, decimals)
    y = (rng.uniform(size=n) < s**2).astype(np.int64)
    return pl.DataFrame(
        {
            "seg": np.repeat(np.arange(segments), n // segments),
            "y": y,
            "s": s,
            "pred": (s >= 0.6).astype(np.int64),
        }
    )


def _cbpe(reference: pl.DataFrame, current: pl.DataFrame, chunk_size: int) -> pl.DataFrame:
    """NannyML's estimates per chunk: ``seg`` (the chunk's index), then the metrics."""
    os.environ.setdefault("NML_DISABLE_USAGE_LOGGING", "1")  # no network calls
    import nannyml as nml

    estimator = nml.CBPE(
        y_pred_proba="s",
        y_pred="pred",
        y_true="y",
        metrics=METRICS,
        chunk_size=chunk_size,
        problem_type="classification_binary",
    )
    estimator.fit(reference.to_pandas())
    assert estimator.needs_calibration  # its isotonic map, as calibration="isotonic"
    result = estimator.estimate(current.drop("y").to_pandas()).filter(period="analysis")
    table = result.to_df()
    values = {m: table[(m, "value")].to_numpy() for m in METRICS}
    return pl.DataFrame({"seg": np.arange(len(table)), **values})


@pytest.mark.parametrize(
    ("seed", "segments", "decimals"),
    [(0, 1, None), (1, 4, None), (2, 3, 2), (3, 2, 1)],
)
def test_estimated_performance_equals_nannyml_cbpe(
    seed: int, segments: int, decimals: int | None
) -> None:
    size = 1_500
    current = _rows(size * segments, seed, segments=segments, decimals=decimals)
    reference = _rows(4_000, seed + 100, decimals=decimals).drop("seg")
    ours = current.metrics.estimated_performance(
        "pred", "s", reference=reference, y_true="y", by="seg", metrics=METRICS
    ).sort("seg")
    theirs = _cbpe(reference, current, chunk_size=size)
    assert ours["seg"].to_list() == theirs["seg"].to_list()
    for metric in METRICS:
        # the counts' metrics agree to the last bits.  NannyML's estimate_roc_auc rounds
        # its running sums of p and 1 - p to 5 decimals (np.round(tps, 5)) before the
        # trapezoids: each rate off by at most 0.5e-5 / total, the area by at most
        # 1e-5 / min(total p, total 1 - p) (about 1e-8 here; ours is the definition's,
        # scikit-learn's weighted AUC, to 1e-12: test_estimated_performance.py)
        tolerance = 1e-7 if metric == "roc_auc" else 1e-12
        np.testing.assert_allclose(ours[metric], theirs[metric], rtol=0, atol=tolerance)


# ------------------------------------------------------------------------ multiclass
CLASSES = ["a", "b", "c"]


def _multiclass_rows(n: int, seed: int, *, segments: int = 1) -> pl.DataFrame:
    """``seg, y, pred, q_a, q_b, q_c``: softmax-like scores whose class probabilities
    are the scores squared and normalised (so each class's isotonic map changes them)."""
    rng = np.random.default_rng(seed)
    q = rng.dirichlet([1.0, 1.0, 1.0], size=n)
    truth = q**2 / (q**2).sum(axis=1, keepdims=True)
    y = (rng.uniform(size=(n, 1)) > truth.cumsum(axis=1)).sum(axis=1)
    return pl.DataFrame(
        {
            "seg": np.repeat(np.arange(segments), n // segments),
            "y": np.array(CLASSES)[y],
            "pred": np.array(CLASSES)[q.argmax(axis=1)],
            **{f"q_{c}": q[:, i] for i, c in enumerate(CLASSES)},
        }
    )


def _multiclass_cbpe(
    reference: pl.DataFrame, current: pl.DataFrame, chunk_size: int
) -> pl.DataFrame:
    """NannyML's multiclass estimates per chunk (each its mean over the classes)."""
    os.environ.setdefault("NML_DISABLE_USAGE_LOGGING", "1")  # no network calls
    import nannyml as nml

    estimator = nml.CBPE(
        y_pred_proba={c: f"q_{c}" for c in CLASSES},
        y_pred="pred",
        y_true="y",
        metrics=METRICS,
        chunk_size=chunk_size,
        problem_type="classification_multiclass",
    )
    estimator.fit(reference.to_pandas())
    # each class's isotonic map, as calibration="isotonic" (not its no-op calibrator)
    kinds = {type(c).__name__ for c in estimator._calibrators.values()}
    assert kinds == {"IsotonicCalibrator"}, kinds
    result = estimator.estimate(current.drop("y").to_pandas()).filter(period="analysis")
    table = result.to_df()
    values = {m: table[(m, "value")].to_numpy() for m in METRICS}
    return pl.DataFrame({"seg": np.arange(len(table)), **values})


@pytest.mark.parametrize(("seed", "segments"), [(0, 1), (1, 3)])
def test_multiclass_macro_rows_equal_nannyml_multiclass_cbpe(seed: int, segments: int) -> None:
    """NannyML's multiclass metrics are the plain means over the classes of the
    per-class binary estimates (its ``np.mean(ovr_estimates)``): our ``macro`` rows
    (every class defined here, so no class is skipped); its accuracy, the mean
    probability of the predicted class, is our accuracy."""
    size = 2_000
    current = _multiclass_rows(size * segments, seed, segments=segments)
    reference = _multiclass_rows(5_000, seed + 100).drop("seg")
    mapping = {c: f"q_{c}" for c in CLASSES}
    ours = (
        current.metrics.estimated_performance(
            "pred", mapping, reference=reference, y_true="y", by="seg", metrics=METRICS
        )
        .filter(pl.col("average") == "macro")
        .sort("seg")
    )
    theirs = _multiclass_cbpe(reference, current, chunk_size=size)
    assert ours["seg"].to_list() == theirs["seg"].to_list()
    for metric in METRICS:
        # roc_auc: NannyML rounds its running sums to 5 decimals (see above)
        tolerance = 1e-7 if metric == "roc_auc" else 1e-12
        np.testing.assert_allclose(ours[metric], theirs[metric], rtol=0, atol=tolerance)
