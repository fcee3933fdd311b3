"""What the input-rule tests (``tests/test_inputs*.py``) share."""

from __future__ import annotations

import polars as pl

DF = pl.DataFrame(
    {"y_true": [0, 1, 1], "y_pred": [0, 1, 0], "s": ["a", "b", "c"], "w": [1.0, 2.0, 0.5]}
)


METHODS = ["report", "per_class", "averages", "summary", "confusion_matrix"]


CURVES = pl.DataFrame(
    {"y": [1, 1, 0, 1, 0, 0, 1, 0], "s": [0.9, 0.8, 0.7, 0.3, 0.1, 0.5, 0.6, 0.2]}
).with_columns(seg=pl.Series([1, 1, 1, 1, 2, 2, 2, 2]))


RANKING = ["roc_auc", "average_precision", "roc_curve", "pr_curve", "det_curve", "thresholds"]


def _state(cells: dict[tuple[int, int], int]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "actual": [a for a, _ in cells],
            "predicted": [p for _, p in cells],
            "count": list(cells.values()),
        }
    )
