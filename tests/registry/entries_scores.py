"""The registry's entries of the score methods (ranking, probability, thresholds,
comparisons, ...): the second part of ``entries.METHODS``."""

from __future__ import annotations

import datetime as dt

import polars as pl
from sklearn import metrics as skm

from registry.entries_base import (
    CI,
    ESTIMATE_REFERENCE,
    STACKED,
    Entry,
    _b,
    _stacked,
)

METHODS: list[Entry] = [
    Entry("average_precision", _b("average_precision"), ("binary",), state="score_counts"),
    Entry(
        "average_precision[multiclass]",
        lambda m, c: m.average_precision(c.y, c.qmap, by=c.by, weight=c.w, average="weighted"),
        ("multiclass",),
        outputs="average_precision",
    ),
    Entry(
        "average_precision[per_class]",
        lambda m, c: m.average_precision(c.y, c.qmap, by=c.by, weight=c.w, average=None),
        ("multiclass",),
        outputs="average_precision",
    ),
    Entry(
        "average_precision[ci]",
        _b("average_precision", **CI),
        ("binary",),
        outputs="average_precision",
        ci=True,
        weighted=False,
        bootstrap=True,
        state="score_counts",
    ),
    Entry("roc_curve", _b("roc_curve"), ("binary",), state="score_counts"),
    Entry(
        "roc_curve[multiclass]",
        lambda m, c: m.roc_curve(c.y, c.qmap, by=c.by, weight=c.w),
        ("multiclass",),
        outputs="roc_curve",
    ),
    Entry("pr_curve", _b("pr_curve"), ("binary",), state="score_counts"),
    Entry(
        "pr_curve[multiclass]",
        lambda m, c: m.pr_curve(c.y, c.qmap, by=c.by, weight=c.w, drop_intermediate=True),
        ("multiclass",),
        outputs="pr_curve",
    ),
    Entry(
        "pr_curve[drop_intermediate]",
        _b("pr_curve", drop_intermediate=True),
        ("binary",),
        outputs="pr_curve",
    ),
    Entry("score_counts", _b("score_counts"), ("binary",)),
    Entry(
        "drift",
        lambda m, c: m.drift(
            [c.s, c.s2], reference=pl.col("ts") < dt.date(2026, 3, 3), by=c.by, bins=4
        ),
        ("columns",),
        weighted=False,
    ),
    Entry(  # the current rows' state at fixed edges (the reference's: drift_edges)
        "drift_counts",
        lambda m, c: m.drift_counts([c.s, c.s2], edges={c.s: [0.2, 0.5], c.s2: [0.4]}, by=c.by),
        ("columns",),
        weighted=False,
    ),
    Entry(
        "drift_bins",
        lambda m, c: m.drift_bins(
            [c.s, c.s2], reference=pl.col("ts") < dt.date(2026, 3, 3), by=c.by, bins=4
        ),
        ("columns",),
        weighted=False,
    ),
    Entry(  # calibrated on the even days' rows (rows 5 and 6, which bad.py spoils, are some)
        "estimated_performance",
        lambda m, c: m.estimated_performance(
            c.pb,
            c.s,
            reference=ESTIMATE_REFERENCE,
            y_true=c.yb,
            by=c.by,
            weight=c.w,
            pos_label=c.pos,
        ),
        ("binary",),
    ),
    Entry(  # the scores as probabilities: reads the predictions and the scores only
        "estimated_performance[ci]",
        lambda m, c: m.estimated_performance(
            c.pb,
            c.s,
            calibration=None,
            by=c.by,
            weight=c.w,
            pos_label=c.pos,
            metrics=["accuracy", "roc_auc", "f1", "specificity"],
            ci=0.9,
        ),
        ("predictions", "binary"),
        outputs="estimated_performance",
        ci=True,
    ),
    Entry(  # {label: column}: one map per class, fitted on the even days' rows
        "estimated_performance[multiclass]",
        lambda m, c: m.estimated_performance(
            c.p,
            c.qmap,
            reference=ESTIMATE_REFERENCE,
            y_true=c.y,
            by=c.by,
            weight=c.w,
            metrics=["roc_auc", "precision", "recall", "f1", "specificity", "accuracy"],
        ),
        ("multiclass",),
        outputs="estimated_performance",
    ),
    Entry(
        "custom",
        lambda m, c: m.custom(
            {"acc": skm.accuracy_score, "mcc": skm.matthews_corrcoef}, c.y, c.p, by=c.by, weight=c.w
        ),
        ("labels",),
        columns=("acc", "mcc"),
    ),
    Entry(
        "over_time[labels]",
        lambda m, c: m.over_time(
            c.y,
            y_pred=c.p,
            index="ts",
            every="1d",
            period="3d",
            metrics=["n", "accuracy", "f1_macro", "mcc"],
            by=c.by,
            weight=c.w,
        ),
        ("labels",),
        outputs="over_time",
    ),
    Entry(
        "over_time[scores]",
        lambda m, c: m.over_time(
            c.yb,
            y_score=c.s,
            pos_label=c.pos,
            index="ts",
            every="2d",
            metrics=["roc_auc", "average_precision", "ks", "log_loss", "brier_score"],
            by=c.by,
            weight=c.w,
        ),
        ("binary",),
        outputs="over_time",
    ),
    Entry(
        "over_time[positive]",
        lambda m, c: m.over_time(
            c.yb,
            y_pred=c.pb,
            y_score=c.s,
            pos_label=c.pos,
            index="ts",
            every="1d",
            period="2d",
            metrics=[
                "precision",
                "recall",
                "f1",
                "jaccard",
                "fowlkes_mallows",
                "informedness",
                "markedness",
                "specificity",
                "calibration_error",
            ],
            by=c.by,
            weight=c.w,
        ),
        ("binary",),
        outputs="over_time",
    ),
    Entry(  # estimated beside realized: calibrated on the even days' rows (as
        # estimated_performance's entry), the odd days' windows estimated
        "over_time[estimated]",
        lambda m, c: m.over_time(
            c.yb,
            y_pred=c.pb,
            y_score=c.s,
            pos_label=c.pos,
            index="ts",
            every="1d",
            period="2d",
            metrics=["roc_auc", "estimated_roc_auc", "f1", "estimated_f1"],
            reference=ESTIMATE_REFERENCE,
            by=c.by,
            weight=c.w,
        ),
        ("binary",),
        outputs="over_time",
    ),
    Entry(  # {label: column}: each window's multiclass estimate (the maps fitted on the
        # even days' rows) read from its average rows, beside the realized averages
        "over_time[estimated multiclass]",
        lambda m, c: m.over_time(
            c.y,
            y_pred=c.p,
            y_score=c.qmap,
            index="ts",
            every="1d",
            period="2d",
            metrics=[
                "f1_macro",
                "estimated_f1_macro",
                "estimated_roc_auc_weighted",
                "estimated_precision_micro",
                "estimated_accuracy",
            ],
            reference=ESTIMATE_REFERENCE,
            by=c.by,
            weight=c.w,
        ),
        ("multiclass",),
        outputs="over_time",
    ),
    Entry(
        "over_time[ci]",  # the label metrics' analytic default: no draws
        lambda m, c: m.over_time(
            c.y, y_pred=c.p, index="ts", every="1d", period="2d", by=c.by, **CI
        ),
        ("labels",),
        outputs="over_time",
        weighted=False,
    ),
    Entry(
        "over_time[bootstrap]",
        lambda m, c: m.over_time(
            c.y,
            y_pred=c.p,
            index="ts",
            every="1d",
            period="2d",
            by=c.by,
            metrics=["accuracy", "mcc", "f1_macro"],
            ci_method="bootstrap",
            **CI,
        ),
        ("labels",),
        outputs="over_time",
        weighted=False,
        bootstrap=True,
    ),
    Entry(  # the point decides (weights: no interval); no rule fails (the CLI exits 0)
        "check",
        lambda m, c: m.check(
            [
                "accuracy >= 0.3",
                "recall > 0.1",
                "false_positive_rate <= 0.9",
                "roc_auc >= 0.5",
                "log_loss < 5",
            ],
            y_true=c.yb,
            y_pred=c.pb,
            y_score=c.s,
            by=c.by,
            weight=c.w,
            pos_label=c.pos,
            ci=None,
        ),
        ("binary",),
    ),
    Entry(  # intervals, drift and the reference rows: no draws
        "check[ci]",
        lambda m, c: m.check(
            [
                "roc_auc >= reference - 0.5",
                "psi(s) < 5",
                "recall >= 0.05",
                "average_precision > 0.1",
                "selection_rate < 0.99",
            ],
            y_true=c.yb,
            y_pred=c.pb,
            y_score=c.s,
            by=c.by,
            pos_label=c.pos,
            reference=pl.col("ts") < dt.date(2026, 3, 3),
            ci=0.9,
        ),
        ("binary",),
        outputs="check",
        weighted=False,
    ),
    Entry(  # estimated rules of {label: column} scores, with their intervals (no draws)
        "check[estimated multiclass]",
        lambda m, c: m.check(
            [
                "estimated_f1_macro >= 0.1",
                "estimated_roc_auc_macro > 0.2",
                "estimated_accuracy >= reference - 0.9",
            ],
            y_true=c.y,
            y_pred=c.p,
            y_score=c.qmap,
            by=c.by,
            reference=ESTIMATE_REFERENCE,
            ci=0.9,
        ),
        ("multiclass",),
        outputs="check",
        weighted=False,
    ),
    Entry(  # ... of the count metrics only: their intervals are sums over the rows (the
        # engines compute them; the ROC AUC's average needs the rows' placements)
        "check[estimated multiclass counts]",
        lambda m, c: m.check(
            [
                "estimated_f1_macro >= 0.1",
                "estimated_precision_weighted > 0.2",
                "estimated_jaccard_weighted <= reference + 0.5",
                "estimated_accuracy >= reference - 0.9",
            ],
            y_true=c.y,
            y_pred=c.p,
            y_score=c.qmap,
            by=c.by,
            reference=ESTIMATE_REFERENCE,
            ci=0.9,
        ),
        ("multiclass",),
        outputs="check",
        weighted=False,
    ),
    Entry("expected_cost", _b("expected_cost", cost_matrix=[[0, 1], [4, 0]]), ("binary",)),
    Entry(
        "expected_cost[best]",
        _b("expected_cost", cost_matrix=[[0, 2], [3, 0.5]], best=True),
        ("binary",),
        outputs="expected_cost",
    ),
    Entry(
        "decision_cost",
        lambda m, c: m.decision_cost(
            c.y,
            c.qmap,
            cost_matrix={
                a: {j: float(a != j) * (1 + i) for j, _ in c.q} for i, (a, _) in enumerate(c.q)
            },
            by=c.by,
            weight=c.w,
        ),
        ("multiclass",),
    ),
    Entry("cost_curve", _b("cost_curve", points=11), ("binary",)),
    Entry("ks", _b("ks"), ("binary",), state="score_counts"),
    Entry("ks[bins]", _b("ks", bins=10), ("binary",), outputs="ks"),
    Entry("gains", _b("gains", buckets=7), ("binary",), state="score_counts"),
    Entry("gains[shares]", _b("gains", buckets=[0.05, 0.1, 0.5]), ("binary",), outputs="gains"),
    Entry("log_loss", _b("log_loss"), ("binary",)),
    Entry(
        "log_loss[multiclass]",
        lambda m, c: m.log_loss(c.y, c.qmap, by=c.by, weight=c.w),
        ("multiclass",),
        outputs="log_loss",
    ),
    Entry(
        "log_loss[one-hot]",
        lambda m, c: m.log_loss(dict(c.oh), c.qmap, by=c.by, weight=c.w),
        ("one_hot",),
        outputs="log_loss",
    ),
    Entry("brier_score", _b("brier_score"), ("binary",)),
    Entry(
        "brier_score[one-hot]",
        lambda m, c: m.brier_score(dict(c.oh), c.qmap, by=c.by, weight=c.w),
        ("one_hot",),
        outputs="brier_score",
    ),
    Entry("d2_log_loss_score", _b("d2_log_loss_score"), ("binary",)),
    Entry(
        "d2_log_loss_score[multiclass]",
        lambda m, c: m.d2_log_loss_score(c.y, c.qmap, by=c.by, weight=c.w),
        ("multiclass",),
        outputs="d2_log_loss_score",
    ),
    Entry(
        "d2_log_loss_score[one-hot]",
        lambda m, c: m.d2_log_loss_score(dict(c.oh), c.qmap, by=c.by, weight=c.w),
        ("one_hot",),
        outputs="d2_log_loss_score",
    ),
    Entry("d2_brier_score", _b("d2_brier_score"), ("binary",)),
    Entry(
        "d2_brier_score[multiclass]",
        lambda m, c: m.d2_brier_score(c.y, c.qmap, by=c.by, weight=c.w),
        ("multiclass",),
        outputs="d2_brier_score",
    ),
    Entry(
        "d2_brier_score[one-hot]",
        lambda m, c: m.d2_brier_score(dict(c.oh), c.qmap, by=c.by, weight=c.w),
        ("one_hot",),
        outputs="d2_brier_score",
    ),
    Entry("calibration_curve", _b("calibration_curve", n_bins=4), ("binary",)),
    Entry(
        "calibration_curve[quantile]",
        _b("calibration_curve", strategy="quantile"),
        ("binary",),
        outputs="calibration_curve",
    ),
    Entry("calibration_error", _b("calibration_error", strategy="quantile"), ("binary",)),
    Entry(
        "calibration_curve[per_class]",
        lambda m, c: m.calibration_curve(
            c.y, c.qmap, by=c.by, weight=c.w, n_bins=4, multi_class="per_class"
        ),
        ("multiclass",),
        outputs="calibration_curve",
    ),
    Entry(
        "calibration_curve[top_label]",
        lambda m, c: m.calibration_curve(c.y, c.qmap, by=c.by, weight=c.w, strategy="quantile"),
        ("multiclass",),
        outputs="calibration_curve",
    ),
    Entry(  # Wilson's interval of each bin's frequency
        "calibration_curve[ci]",
        lambda m, c: m.calibration_curve(c.yb, c.s, by=c.by, pos_label=c.pos, n_bins=4, ci=0.9),
        ("binary",),
        outputs="calibration_curve",
        weighted=False,
        ci=True,
    ),
    Entry(
        "calibration_error[per_class]",
        lambda m, c: m.calibration_error(
            c.y, c.qmap, by=c.by, weight=c.w, strategy="quantile", multi_class="per_class"
        ),
        ("multiclass",),
        outputs="calibration_error",
    ),
    Entry(
        "calibration_error[top_label]",
        lambda m, c: m.calibration_error(c.y, c.qmap, by=c.by, weight=c.w, n_bins=6),
        ("multiclass",),
        outputs="calibration_error",
    ),
    Entry(
        "top_k_accuracy",
        lambda m, c: m.top_k_accuracy(c.y, c.qmap, k=2, by=c.by, weight=c.w),
        ("multiclass",),
    ),
    Entry(
        "top_k_accuracy[binary]",
        _b("top_k_accuracy", k=1),
        ("binary",),
        outputs="top_k_accuracy",
    ),
    Entry("hinge_loss", _b("hinge_loss"), ("binary",)),
    Entry(
        # labels=: a small segment of the registry's rows lacks a class (an error without)
        "hinge_loss[multiclass]",
        lambda m, c: m.hinge_loss(c.y, c.qmap, by=c.by, weight=c.w, labels=[k for k, _ in c.q]),
        ("multiclass",),
        outputs="hinge_loss",
    ),
    Entry("thresholds", _b("thresholds"), ("binary",)),
    Entry("best_threshold", _b("best_threshold", metric="mcc"), ("binary",)),
    Entry("det_curve", _b("det_curve"), ("binary",)),
    Entry(
        "threshold_report",
        lambda m, c: m.threshold_report(
            c.yb, c.s, threshold=0.45, pos_label=c.pos, neg_label=c.neg, by=c.by, weight=c.w
        ),
        ("binary",),
    ),
    Entry(
        "compare",
        lambda m, c: m.compare(c.y, c.p, by=c.by, metric="accuracy", ci_method="wilson"),
        ("labels",),
        weighted=False,  # accuracy: every interval and p-value analytic, no draws
    ),
    Entry(
        "compare[bootstrap]",
        lambda m, c: m.compare(c.y, c.p, by=c.by, metric="mcc", n_boot=40, seed=1),
        ("labels",),
        weighted=False,
        outputs="compare",
        bootstrap=True,
    ),
    Entry(
        "compare_models",
        lambda m, c: m.compare_models(c.y, [c.p, c.p2], by=c.by, n_boot=40, seed=2),
        ("labels",),
        weighted=False,
        bootstrap=True,  # accuracy's interval (McNemar's test is exact)
    ),
    Entry(
        "compare_models[f1]",
        lambda m, c: m.compare_models(
            c.yb,
            {"base": c.pb, "new": c.pb2, "same": c.pb},
            by=c.by,
            metric="f1",
            pos_label=c.pos,
            n_boot=40,
            adjust="holm",
        ),
        ("binary_labels",),
        weighted=False,
        outputs="compare_models",  # the delta method (the default): no draws
    ),
    Entry(  # the delta method over several classes
        "compare_models[mcc]",
        lambda m, c: m.compare_models(c.y, [c.p, c.p2], by=c.by, metric="mcc"),
        ("labels",),
        weighted=False,
        outputs="compare_models",
    ),
    Entry(
        "compare_models[roc_auc]",
        lambda m, c: m.compare_models(
            c.yb, [c.s, c.s2], by=c.by, metric="roc_auc", pos_label=c.pos, ci=0.9
        ),
        ("binary",),
        weighted=False,
        outputs="compare_models",
    ),
    Entry(  # the delta method (the default)
        "compare_models[average_precision]",
        lambda m, c: m.compare_models(
            c.yb, [c.s, c.s2], by=c.by, metric="average_precision", pos_label=c.pos
        ),
        ("binary",),
        weighted=False,
        outputs="compare_models",
    ),
    Entry(
        "compare_models[average_precision, bootstrap]",
        lambda m, c: m.compare_models(
            c.yb,
            [c.s, c.s2],
            by=c.by,
            metric="average_precision",
            pos_label=c.pos,
            ci_method="bootstrap",
            n_boot=30,
        ),
        ("binary",),
        weighted=False,
        outputs="compare_models",
        bootstrap=True,
    ),
    Entry(  # the models' rows stacked (_stacked): the "compare_models" entry's frame
        "compare_models[stacked]",
        lambda m, c: _stacked(m, c).compare_models(
            c.y, STACKED[2], model=STACKED[1], id=STACKED[0], by=c.by, n_boot=40, seed=2
        ),
        ("labels",),
        weighted=False,
        outputs="compare_models",
        bootstrap=True,
    ),
]
