"""Generate ``examples/predictions.parquet``: the bundled example of ``make demo``.

A few thousand rows of real-looking predictions of an animal classifier in four
regions and two model versions: class frequencies and error rates differ by
region, one class is rare, and each row has the model's probability for every
class (``p_<class>``) and a binary "is it a cat" score.  Run once; the file is
committed.  ``python examples/make_example.py``
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

CLASSES = ["bird", "cat", "dog", "fish"]
REGIONS = {"eu": 0.85, "us": 0.8, "apac": 0.7, "latam": 0.6}  # skill of the model


def make(n: int = 4000, seed: int = 2026) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.choice(list(REGIONS), size=n, p=[0.35, 0.3, 0.2, 0.15])
    version = rng.choice(["v1", "v2"], size=n)
    y_true = rng.choice(len(CLASSES), size=n, p=[0.15, 0.4, 0.4, 0.05])
    skill = np.array([REGIONS[r] for r in region]) + np.where(version == "v2", 0.05, 0.0)
    logits = rng.normal(0.0, 1.0, size=(n, len(CLASSES)))
    logits[np.arange(n), y_true] += 2.2 * skill / 0.7
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    proba = np.round(proba, 4)
    y_pred = proba.argmax(axis=1)
    frame = {
        "region": region,
        "model_version": version,
        "y_true": np.array(CLASSES)[y_true],
        "y_pred": np.array(CLASSES)[y_pred],
        "weight": np.round(rng.uniform(0.5, 2.0, size=n), 2),
    }
    for i, name in enumerate(CLASSES):
        frame[f"p_{name}"] = proba[:, i]
    frame["is_cat"] = y_true == 1
    frame["cat_score"] = proba[:, 1]
    return pl.DataFrame(frame)


if __name__ == "__main__":
    out = Path(__file__).with_name("predictions.parquet")
    make().write_parquet(out)
    print(f"wrote {out}")
