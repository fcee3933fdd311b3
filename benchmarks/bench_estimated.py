"""Issue 52's speed target in one run: ``estimated_performance`` beside ``roc_auc(by=)``.

    .venv/bin/python benchmarks/bench_estimated.py [--rows 5_000_000] [--segments 6]
        [--reference 1_000_000] [--repeat 3] [--stages]

One process, seeded data made here (never committed): ``--rows`` current rows with a
continuous probability ``s`` (a logistic of a normal plus the label), the label
``y``, the prediction ``pred = s >= 0.5`` and ``seg`` with ``--segments`` values;
a labelled reference of ``--reference`` rows drawn alike.  Each row is
(call, its time, ``roc_auc("y", "s", by="seg")`` on the same rows, its time,
ratio, the issue's target of 2x).  Times are medians of ``--repeat`` interleaved
runs, so load on the machine hits every column alike: read the ratios.

The isotonic rows fit the map on the reference (PAV over its distinct scores)
before they estimate; scikit-learn's ``IsotonicRegression`` fit on the same
reference is shown beside them when scikit-learn imports (a test dependency).
NannyML's ``CBPE`` (fit on the reference, estimate on the rows sorted by segment
in ``--segments`` chunks) is timed when ``import nannyml`` works, and the row is
left out (with a note) when it does not: it is not a dependency of this project.
``--stages``: also the state alone (the segments' lists and the checks' counts,
one query) and the isotonic fit alone (beside scikit-learn's).
POLARS_MAX_THREADS sets the threads.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Callable

import numpy as np
import polars as pl
from _common import print_table, side_by_side

import pl_metrics  # noqa: F401  (registers .metrics)

BASE = 'roc_auc("y", "s", by="seg")'
METRICS = ["roc_auc", "precision", "recall", "f1", "specificity", "accuracy"]


def frame(rows: int, segments: int, seed: int) -> pl.DataFrame:
    """``seg, y, s, pred``: continuous probabilities ``s``, informative of ``y``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows)
    s = 1 / (1 + np.exp(-(rng.normal(size=rows) + y)))
    return pl.DataFrame(
        {
            "seg": rng.integers(0, segments, rows),
            "y": y,
            "s": s,
            "pred": (s >= 0.5).astype(np.int64),
        }
    )


def nannyml_case(
    df: pl.DataFrame, reference: pl.DataFrame, segments: int
) -> Callable[[], object] | None:
    """NannyML's CBPE on the same rows (sorted by segment, one chunk per segment),
    fitted on the reference; None when nannyml does not import."""
    if importlib.util.find_spec("nannyml") is None:
        return None
    # NannyML sends usage statistics over the network unless told not to
    os.environ.setdefault("NML_DISABLE_USAGE_LOGGING", "1")
    import nannyml as nml

    analysis = df.sort("seg").drop("y").to_pandas()
    ref = reference.to_pandas()

    def run() -> object:
        estimator = nml.CBPE(
            y_pred_proba="s",
            y_pred="pred",
            y_true="y",
            metrics=["roc_auc", "precision", "recall", "f1", "specificity", "accuracy"],
            chunk_number=segments,
            problem_type="classification_binary",
        )
        estimator.fit(ref)
        return estimator.estimate(analysis)

    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    number = lambda s: int(s.replace("_", ""))  # noqa: E731
    parser.add_argument("--rows", type=number, default=5_000_000)
    parser.add_argument("--segments", type=int, default=6)
    parser.add_argument("--reference", type=number, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stages", action="store_true", help="also the state, the fit alone")
    args = parser.parse_args()
    df = frame(args.rows, args.segments, seed=0)
    reference = frame(args.reference, 1, seed=1).drop("seg")
    m = df.metrics

    def estimated_case(**options: object) -> Callable[[], object]:
        return lambda: m.estimated_performance("pred", "s", by="seg", metrics=METRICS, **options)

    isotonic = {"calibration": "isotonic", "reference": reference, "y_true": "y"}
    cases: dict[str, Callable[[], object]] = {
        BASE: lambda: m.roc_auc("y", "s", by="seg"),
        "estimated_performance(calibration=None)": estimated_case(calibration=None),
        "estimated_performance(calibration=None, ci=0.95)": estimated_case(
            calibration=None, ci=0.95
        ),
        "estimated_performance(isotonic)": estimated_case(**isotonic),
        "estimated_performance(isotonic, ci=0.95)": estimated_case(**isotonic, ci=0.95),
    }
    if importlib.util.find_spec("sklearn") is not None:
        from sklearn.isotonic import IsotonicRegression

        ref_y, ref_s = reference["y"].to_numpy(), reference["s"].to_numpy()

        def sklearn_fit() -> object:
            fit = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1)
            return fit.fit(ref_s, ref_y)

        cases["scikit-learn IsotonicRegression fit on the reference"] = sklearn_fit
    if args.stages:
        from pl_metrics._monitoring import estimated

        def state() -> object:
            lists, counts, _ = estimated._current_state(
                df.lazy(),
                ["seg"],
                df.schema,
                "pred",
                "s",
                pos_label=1,
                default_pos=True,
                weight=None,
                probabilities=True,
                keyed=True,
            )
            return pl.collect_all([counts, lists])

        def fit() -> object:
            given = estimated.Reference(
                reference.lazy(), reference, y_true="y", y_score="s", weight=None, pos_label=None
            )
            return given.fit()

        cases["its state alone (calibration=None)"] = state
        cases["its isotonic fit alone (Reference.fit)"] = fit
    nanny = nannyml_case(df, reference, args.segments)
    if nanny is not None:
        cases["NannyML CBPE (chunks = segments)"] = nanny
    t = side_by_side(cases, args.repeat)
    rows = [
        (name, t[name], BASE, t[BASE], 2.0 if name.startswith("estimated") else None)
        for name in t
        if name != BASE
    ]
    if nanny is not None:  # issue 52: faster than NannyML's CBPE on the same rows and chunks
        peer = "NannyML CBPE (chunks = segments)"
        rows += [
            (name, t[name], peer, t[peer], 1.0)
            for name in (
                "estimated_performance(isotonic)",
                "estimated_performance(isotonic, ci=0.95)",
            )
        ]
    where = f"{args.rows:,} rows x {args.segments} segments, reference {args.reference:,} rows"
    print_table(
        rows,
        f"{where}; polars {pl.__version__}, {pl.thread_pool_size()} threads, "
        f"median of {args.repeat} interleaved runs",
    )
    if nanny is None:
        print("\nNannyML: not installed (`import nannyml` failed): its row is left out.")


if __name__ == "__main__":
    main()
