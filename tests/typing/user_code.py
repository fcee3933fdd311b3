"""User code that ``mypy --strict`` checks with no error (``tests/test_typing.py``).

Each ``reveal_type`` line ends with the type mypy must reveal (``revealed:``).  The code also runs
(``main()``), so that what the checker accepts is what the library accepts.
"""

from __future__ import annotations

import datetime as dt

import polars as pl
from typing_extensions import reveal_type

import pl_metrics as plm


def frame() -> pl.DataFrame:
    n = 40
    return pl.DataFrame(
        {
            "y": [i % 3 for i in range(n)],
            "p": [(i * 7) % 3 for i in range(n)],
            "yb": [i % 2 for i in range(n)],
            "s": [((i * 37) % 100) / 100 for i in range(n)],
            "pb": [int((i * 37) % 100 >= 50) for i in range(n)],
            "g": ["a", "b"] * (n // 2),
            "day": [dt.date(2026, 1, 1) + dt.timedelta(days=i % 5) for i in range(n)],
        }
    )


def main() -> None:
    df = frame()
    lf = df.lazy()
    m = plm.metrics(df)
    reveal_type(m)  # revealed: MetricsDataFrame
    reveal_type(plm.metrics(lf))  # revealed: MetricsLazyFrame

    # the DataFrame twins return DataFrames, the LazyFrame methods LazyFrames
    report = m.report("y", "p", by="g")
    reveal_type(report)  # revealed: DataFrame
    lazy_report = plm.metrics(lf).report("y", "p", by="g")
    reveal_type(lazy_report)  # revealed: LazyFrame
    summary = m.summary("y", "p", ci=0.9, ci_method="wilson", n_boot=20)
    reveal_type(summary)  # revealed: DataFrame
    auc = m.roc_auc("yb", "s", by="g", ci=0.9, ci_method="delong")
    reveal_type(auc)  # revealed: DataFrame
    ovo = plm.metrics(lf).roc_auc("y", {0: "s", 1: "s", 2: "s"}, average="weighted")
    reveal_type(ovo)  # revealed: LazyFrame
    reveal_type(m.confusion_matrix("y", "p", normalize="true"))  # revealed: DataFrame
    best = m.best_threshold("yb", "s", metric="precision", where=pl.col("recall") >= 0.5)
    reveal_type(best)  # revealed: DataFrame
    reveal_type(m.calibration_curve("yb", "s", strategy="quantile"))  # revealed: DataFrame
    compared = m.compare("y", "p", by="g", metric="f1_macro", adjust="holm", n_boot=20)
    reveal_type(compared)  # revealed: DataFrame
    spread = m.disparity("yb", "pb", by="g", metric=["accuracy", "selection_rate"])
    reveal_type(spread)  # revealed: DataFrame
    fair = m.fairness("yb", "pb", by="g", method="to_overall", agg="mean")
    reveal_type(fair)  # revealed: DataFrame
    models = m.compare_models("yb", ["yb", "pb"], metric="accuracy", n_boot=20)
    reveal_type(models)  # revealed: DataFrame
    over_time = plm.metrics(lf).over_time(
        "yb", y_score="s", index="day", every="1d", metrics=["roc_auc", "log_loss"]
    )
    reveal_type(over_time)  # revealed: LazyFrame

    # a metric name held in a variable: annotate it with the exported Literal
    names: list[plm.FairnessMetric] = ["accuracy", "mcc"]
    for name in names:
        m.compare("y", "p", by="g", metric=name, n_boot=20)

    # expressions and states keep their types
    per_group = df.group_by("g").agg(plm.accuracy("y", "p"), plm.f1("yb", "pb"))
    reveal_type(per_group)  # revealed: DataFrame
    reveal_type(plm.roc_auc("yb", "s"))  # revealed: Expr
    state = plm.from_counts(m.counts("y", "p", by="g"), by="g")
    reveal_type(state.report())  # revealed: DataFrame
    # intervals from a state, with the frame methods' options
    reveal_type(state.per_class(ci=0.9, ci_method="wilson"))  # revealed: DataFrame
    reveal_type(state.summary(ci=0.9, n_boot=20, seed=None))  # revealed: DataFrame
    scores = plm.from_score_counts(plm.metrics(lf).score_counts("yb", "s"))
    reveal_type(scores.roc_auc(ci=0.9, ci_method="delong"))  # revealed: LazyFrame
    reveal_type(scores.average_precision(ci=0.9, n_boot=20))  # revealed: LazyFrame

    # the two spellings give the same frame
    assert report.equals(df.metrics.report("y", "p", by="g"))  # type: ignore[attr-defined]
    assert lazy_report.collect().equals(report)
    assert over_time.collect().height > 0


if __name__ == "__main__":
    main()
