"""Every ``pl-metrics`` command equals its frame method on the same files, and bad
input is one line on stderr (exit 2) naming the column."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from registry.entries import (
    BY_NAME,
    CI,
    DATA,
    DOCUMENTS,
    STACKED,
    Call,
    Cols,
    run,
    same,
    stack,
)

# ------------------------------------------------------------------------------------ CLI
#: The arguments of the registry's calls, as ``pl-metrics`` options (``--by g`` and,
#: for a weighted entry, ``--weight w`` are added by :func:`_cli`).
_LABELS = ("--y-true", "y", "--y-pred", "p")
_BINARY_LABELS = ("--y-true", "yb", "--y-pred", "pb", "--pos-label", "1")
_SCORES = ("--y-true", "yb", "--score", "s", "--pos-label", "1")
_MULTICLASS = ("--y-true", "y", "--score-map", ",".join(f"{k}={v}" for k, v in Cols().q))
_MULTILABEL = ("--y-true", "ml", "--score-map", ",".join(f"{k}={v}" for k, v in Cols().q))
#: the labels y one-hot (the labels of both maps are text on the command line)
_ONE_HOT = (
    *("--y-true-map", ",".join(f"{k}={v}" for k, v in Cols().oh)),
    *("--score-map", _MULTICLASS[-1]),
)
_SETS = ("--y-true", "ml", "--y-pred", "mlp")  # multilabel List columns
_SET_MAPS = (  # the same sets as indicator columns
    *("--y-true-map", ",".join(f"{k}={v}" for k, v in Cols().mlmap)),
    *("--y-pred-map", ",".join(f"{k}={v}" for k, v in Cols().mlpmap)),
)
_RELEVANCE_LIST = ("--y-true", "rl", "--score-map", _MULTILABEL[-1], "--labels", "0,1,2")
_RELEVANCE = (
    "--y-true-map",
    ",".join(f"{k}={v}" for k, v in Cols().rel),
    "--score-map",
    ",".join(f"{k}={v}" for k, v in Cols().q),
)
_CI = ("--ci", str(CI["ci"]), "--n-boot", str(CI["n_boot"]), "--seed", str(CI["seed"]))
#: ``by=GROUPS, control=c.by``: the command line takes column names, so the group
#: column is made by ``--with-column`` (the SQL of GROUPS; a ``by`` expression equals
#: its materialised column: test_by_expression_equals_materialised_column).
_GROUPS = ("--with-column", "high_q0=q0 > 0.35", "--by", "high_q0", "--control", "g")
_DECISION_COSTS = json.dumps(
    {
        str(a): {str(j): float(a != j) * (1 + i) for j, _ in Cols().q}
        for i, (a, _) in enumerate(Cols().q)
    }
)


def _cli(
    command: str,
    name: str,
    *args: str,
    by: tuple[str, ...] = ("--by", "g"),
    weighted: bool | None = None,
) -> tuple[str, str, list[str]]:
    """(command, the entry it reproduces, its arguments): the call of the entry with
    ``Cols(w="w")`` when the entry is weighted (``weighted``: a document's), else
    ``Cols()``."""
    weighted = BY_NAME[name].weighted if weighted is None else weighted
    return command, name, [*args, *by, *(("--weight", "w") if weighted else ())]


#: Each ``pl-metrics`` command, with every registry entry of its method: the command
#: must write the frame that the entry's call (:func:`run`) returns on the same rows.
CLI: list[tuple[str, str, list[str]]] = [
    _cli("confusion-matrix", "confusion_matrix", *_LABELS),
    _cli("confusion-matrix", "confusion_matrix[normalize]", *_LABELS, "--normalize", "true"),
    _cli("counts", "counts", *_LABELS),
    _cli("per-class", "per_class", *_LABELS, "--beta", "2"),
    _cli("averages", "averages", *_LABELS, "--zero-division", "1"),
    _cli("report", "report", *_LABELS),
    _cli(
        "report",
        "report[extra_scores]",
        *_LABELS,
        "--extra-scores",
        "fowlkes_mallows,informedness,markedness",
        "--beta",
        "0.5",
    ),
    _cli(
        "per-class",
        "per_class[ci-extra_scores]",
        *_LABELS,
        *_CI,
        "--extra-scores",
        "fowlkes_mallows,informedness,markedness",
    ),
    _cli("report", "report[ci]", *_LABELS, *_CI),
    _cli("report", "report[bootstrap]", *_LABELS, *_CI, "--ci-method", "bootstrap"),
    _cli("summary", "summary", *_LABELS),
    _cli("summary", "summary[replace_undefined_by]", *_LABELS, "--replace-undefined-by", "0.5"),
    _cli(
        "summary",
        "summary[kappa_weights]",
        *_LABELS,
        "--labels",
        "0,1,2",
        "--kappa-weights",
        "quadratic",
    ),
    _cli("summary", "summary[ci]", *_LABELS, *_CI),
    _cli("summary", "summary[bootstrap]", *_LABELS, *_CI, "--ci-method", "bootstrap"),
    _cli("class-likelihood-ratios", "class_likelihood_ratios", *_BINARY_LABELS),
    _cli("selection-rate", "selection_rate", *_BINARY_LABELS),
    _cli("group-rates", "group_rates", *_BINARY_LABELS),
    _cli("fairness", "fairness", *_BINARY_LABELS, "--agg", "mean", by=_GROUPS),
    _cli("fairness", "fairness[ci]", *_BINARY_LABELS, "--method", "to_overall", *_CI, by=_GROUPS),
    _cli("reference-disparities", "reference_disparities", *_BINARY_LABELS, by=_GROUPS),
    _cli("disparity", "disparity", *_LABELS, "--metric", "accuracy,f1_macro", by=_GROUPS),
    _cli(
        "disparity",
        "disparity[scores]",
        *("--y-true", "yb", "--y-pred", "s", "--pos-label", "1"),
        *("--metric", "roc_auc", "--metric", "log_loss"),  # repeated: the same list
        by=_GROUPS,
    ),
    _cli("disparity", "disparity[ci]", *_BINARY_LABELS, "--metric", "f1", *_CI, by=_GROUPS),
    _cli(
        "disparity",
        "disparity[callables]",
        *_LABELS,
        "--metric",
        "acc=sklearn.metrics:accuracy_score,mcc=sklearn.metrics:matthews_corrcoef",
        by=_GROUPS,
    ),
    _cli(
        "compare",
        "compare[any metric]",
        *_BINARY_LABELS,
        *("--metric", "false_positive_rate", "--n-boot", "30", "--adjust", "bh"),
    ),
    _cli("compare", "compare", *_LABELS, "--metric", "accuracy", "--ci-method", "wilson"),
    _cli(
        "compare",
        "compare[bootstrap]",
        *_LABELS,
        *("--metric", "mcc", "--n-boot", "40", "--seed", "1"),
    ),
    _cli("gini", "gini", *_SCORES),
    _cli("gini", "gini[bins]", *_SCORES, "--bins", "8"),
    _cli("gini", "gini[delong]", *_SCORES, "--ci", "0.9", "--ci-method", "delong"),
    _cli("gini", "gini[ovr]", *_MULTICLASS, "--average", "none"),
    _cli("roc-auc", "roc_auc", *_SCORES),
    _cli("roc-auc", "roc_auc[bins]", *_SCORES, "--bins", "8"),
    _cli("roc-auc", "roc_auc[ci]", *_SCORES, *_CI),
    _cli("roc-auc", "roc_auc[delong]", *_SCORES, "--ci", "0.9", "--ci-method", "delong"),
    _cli("roc-auc", "roc_auc[ovr]", *_MULTICLASS, "--average", "weighted"),
    _cli("roc-auc", "roc_auc[ovo]", *_MULTICLASS, "--multi-class", "ovo"),
    _cli("roc-auc", "roc_auc[ovr][delong]", *_MULTICLASS, "--average", "weighted", "--ci", "0.9"),
    _cli(
        "roc-auc",
        "roc_auc[ovr][delong][per_class]",
        *_MULTICLASS,
        *("--average", "none", "--ci", "0.9"),
    ),
    _cli(
        "roc-auc",
        "roc_auc[ovr][bootstrap][per_class]",
        *_MULTICLASS,
        *("--average", "none", *_CI, "--ci-method", "bootstrap"),
    ),
    _cli("roc-auc", "roc_auc[ovr][bootstrap]", *_MULTICLASS, *_CI, "--ci-method", "bootstrap"),
    _cli("roc-auc", "roc_auc[per_class]", *_MULTICLASS, "--average", "none"),
    _cli("roc-auc", "roc_auc[micro]", *_MULTICLASS, "--average", "micro"),
    _cli("roc-auc", "roc_auc[max_fpr]", *_SCORES, "--max-fpr", "0.3"),
    _cli("roc-auc", "roc_auc[multilabel]", *_MULTILABEL, "--average", "none"),
    _cli(
        "roc-auc",
        "roc_auc[multilabel-max_fpr]",
        *(*_MULTILABEL, "--average", "weighted", "--max-fpr", "0.4"),
    ),
    _cli(
        "roc-auc",
        "roc_auc[multilabel-samples-max_fpr]",
        *(*_MULTILABEL, "--average", "samples", "--max-fpr", "0.3"),
    ),
    _cli(
        "average-precision", "average_precision[multilabel]", *_MULTILABEL, "--average", "samples"
    ),
    _cli(
        "average-precision",
        "average_precision[multilabel-float]",
        *("--y-true-map", ",".join(f"{k}={v}" for k, v in Cols().mlfmap)),
        *("--score-map", _MULTILABEL[-1], "--average", "none"),
    ),
    _cli("coverage-error", "coverage_error", *_MULTILABEL),
    _cli("per-class", "per_class[multilabel]", *_SETS, "--beta", "2"),
    _cli("averages", "averages[multilabel]", *_SETS, "--zero-division", "1"),
    _cli(
        "averages",
        "averages[multilabel-extra_scores]",
        *_SETS,
        *("--extra-scores", "fowlkes_mallows,informedness,markedness"),
    ),
    _cli("report", "report[multilabel]", *_SETS, "--labels", "2,0"),
    _cli("summary", "summary[multilabel]", *_SETS),
    _cli("report", "report[multilabel-map]", *_SET_MAPS),
    _cli("report", "report[multilabel-ci]", *_SETS, *_CI),
    _cli("summary", "summary[multilabel-ci]", *_SETS, *_CI),
    _cli("multilabel-confusion-matrix", "multilabel_confusion_matrix", *_SETS),
    _cli("multilabel-counts", "multilabel_counts", *_SETS),
    _cli("multilabel-counts", "multilabel_counts[labels]", *_SETS, "--labels", "2,0"),
    _cli("multilabel-counts", "multilabel_counts[map]", *_SET_MAPS),
    _cli("hamming-loss", "hamming_loss", *_LABELS),
    _cli("hamming-loss", "hamming_loss[multilabel]", *_SETS),
    _cli("zero-one-loss", "zero_one_loss", *_LABELS, "--no-normalize"),
    _cli("zero-one-loss", "zero_one_loss[multilabel]", *_SETS),
    _cli("label-ranking-average-precision", "label_ranking_average_precision", *_MULTILABEL),
    _cli(
        "label-ranking-average-precision",
        "label_ranking_average_precision[one-label]",
        *(
            "--y-true-map",
            "{}={}".format(*Cols().mlmap[0]),
            "--score-map",
            "{}={}".format(*Cols().q[0]),
        ),
    ),
    _cli("label-ranking-loss", "label_ranking_loss", *_MULTILABEL),
    _cli("ndcg", "ndcg", *_RELEVANCE_LIST, "--k", "2"),
    _cli("dcg", "dcg", *_RELEVANCE_LIST),
    _cli("dcg", "dcg[mapping]", *_RELEVANCE, "--log-base", "3"),
    _cli("average-precision", "average_precision", *_SCORES),
    _cli(
        "average-precision",
        "average_precision[multiclass]",
        *_MULTICLASS,
        *("--average", "weighted"),
    ),
    _cli("average-precision", "average_precision[per_class]", *_MULTICLASS, "--average", "none"),
    _cli("average-precision", "average_precision[ci]", *_SCORES, *_CI),
    _cli("roc-curve", "roc_curve", *_SCORES),
    _cli("roc-curve", "roc_curve[multiclass]", *_MULTICLASS),
    _cli("pr-curve", "pr_curve", *_SCORES),
    _cli("pr-curve", "pr_curve[multiclass]", *_MULTICLASS, "--drop-intermediate"),
    _cli("pr-curve", "pr_curve[drop_intermediate]", *_SCORES, "--drop-intermediate"),
    _cli("score-counts", "score_counts", *_SCORES),
    _cli(
        "drift",
        "drift",
        *("--columns", "s,s2", "--reference", "ts < DATE '2026-03-03'", "--bins", "4"),
    ),
    _cli(
        "drift-counts",
        "drift_counts",
        *("--columns", "s,s2", "--edges", '{"s": [0.2, 0.5], "s2": [0.4]}'),
    ),
    _cli(
        "drift-bins",
        "drift_bins",
        *("--columns", "s,s2", "--reference", "ts < DATE '2026-03-03'", "--bins", "4"),
    ),
    _cli(
        "estimated-performance",
        "estimated_performance",
        *("--y-pred", "pb", "--score", "s", "--y-true", "yb", "--pos-label", "1"),
        *("--reference", "ts IN (DATE '2026-03-02', DATE '2026-03-04', DATE '2026-03-06')"),
    ),
    _cli(
        "estimated-performance",
        "estimated_performance[ci]",
        *("--y-pred", "pb", "--score", "s", "--pos-label", "1", "--calibration", "none"),
        *("--metrics", "accuracy,roc_auc,f1,specificity", "--ci", "0.9"),
    ),
    _cli(
        "estimated-performance",
        "estimated_performance[multiclass]",
        *(
            "--y-pred",
            "p",
            "--y-true",
            "y",
            "--score-map",
            ",".join(f"{k}={v}" for k, v in Cols().q),
        ),
        *("--metrics", "roc_auc,precision,recall,f1,specificity,accuracy"),
        *("--reference", "ts IN (DATE '2026-03-02', DATE '2026-03-04', DATE '2026-03-06')"),
    ),
    _cli(
        "custom",
        "custom",
        *_LABELS,
        "--metrics",
        "acc=sklearn.metrics:accuracy_score,mcc=sklearn.metrics:matthews_corrcoef",
    ),
    _cli(
        "over-time",
        "over_time[labels]",
        *_LABELS,
        *("--index", "ts", "--every", "1d", "--period", "3d"),
        *("--metrics", "n,accuracy,f1_macro,mcc"),
    ),
    _cli(
        "over-time",
        "over_time[scores]",
        *_SCORES,
        *("--index", "ts", "--every", "2d"),
        *("--metrics", "roc_auc,average_precision,ks,log_loss,brier_score"),
    ),
    _cli(
        "over-time",
        "over_time[positive]",
        *_BINARY_LABELS,
        *("--score", "s", "--index", "ts", "--every", "1d", "--period", "2d"),
        *(
            "--metrics",
            "precision,recall,f1,jaccard,fowlkes_mallows,informedness,markedness,specificity,"
            "calibration_error",
        ),
    ),
    _cli(
        "over-time",
        "over_time[estimated]",
        *_BINARY_LABELS,
        *("--score", "s", "--index", "ts", "--every", "1d", "--period", "2d"),
        *("--metrics", "roc_auc,estimated_roc_auc,f1,estimated_f1"),
        *("--reference", "ts IN (DATE '2026-03-02', DATE '2026-03-04', DATE '2026-03-06')"),
    ),
    _cli(
        "over-time",
        "over_time[estimated multiclass]",
        *_LABELS,
        *("--score-map", ",".join(f"{k}={v}" for k, v in Cols().q)),
        *("--index", "ts", "--every", "1d", "--period", "2d"),
        *(
            "--metrics",
            "f1_macro,estimated_f1_macro,estimated_roc_auc_weighted,estimated_precision_micro,"
            "estimated_accuracy",
        ),
        *("--reference", "ts IN (DATE '2026-03-02', DATE '2026-03-04', DATE '2026-03-06')"),
    ),
    _cli(
        "over-time",
        "over_time[ci]",
        *_LABELS,
        *("--index", "ts", "--every", "1d", "--period", "2d"),
        *_CI,
    ),
    _cli(
        "over-time",
        "over_time[bootstrap]",
        *_LABELS,
        *("--index", "ts", "--every", "1d", "--period", "2d"),
        *("--metrics", "accuracy,mcc,f1_macro", "--ci-method", "bootstrap"),
        *_CI,
    ),
    _cli(
        "check",
        "check",
        *_BINARY_LABELS,
        *("--score", "s", "--ci", "none"),
        *("--rule", "accuracy >= 0.3", "--rule", "recall > 0.1"),
        *("--rule", "false_positive_rate <= 0.9", "--rule", "roc_auc >= 0.5"),
        *("--rule", "log_loss < 5"),
    ),
    _cli(
        "check",
        "check[ci]",
        *_BINARY_LABELS,
        *("--score", "s", "--ci", "0.9", "--reference", "ts < DATE '2026-03-03'"),
        *("--rule", "roc_auc >= reference - 0.5", "--rule", "psi(s) < 5"),
        *("--rule", "recall >= 0.05", "--rule", "average_precision > 0.1"),
        *("--rule", "selection_rate < 0.99"),
    ),
    _cli(
        "check",
        "check[estimated multiclass]",
        *_LABELS,
        *("--score-map", ",".join(f"{k}={v}" for k, v in Cols().q), "--ci", "0.9"),
        *("--reference", "ts IN (DATE '2026-03-02', DATE '2026-03-04', DATE '2026-03-06')"),
        *("--rule", "estimated_f1_macro >= 0.1", "--rule", "estimated_roc_auc_macro > 0.2"),
        *("--rule", "estimated_accuracy >= reference - 0.9"),
    ),
    _cli(
        "check",
        "check[estimated multiclass counts]",
        *_LABELS,
        *("--score-map", ",".join(f"{k}={v}" for k, v in Cols().q), "--ci", "0.9"),
        *("--reference", "ts IN (DATE '2026-03-02', DATE '2026-03-04', DATE '2026-03-06')"),
        *("--rule", "estimated_f1_macro >= 0.1", "--rule", "estimated_precision_weighted > 0.2"),
        *("--rule", "estimated_jaccard_weighted <= reference + 0.5"),
        *("--rule", "estimated_accuracy >= reference - 0.9"),
    ),
    _cli("expected-cost", "expected_cost", *_SCORES, "--cost-matrix", "[[0, 1], [4, 0]]"),
    _cli(
        "expected-cost",
        "expected_cost[best]",
        *_SCORES,
        *("--cost-matrix", "0,2;3,0.5", "--best"),  # the a,b;c,d form
    ),
    _cli(
        "decision-cost",
        "decision_cost",
        *_MULTICLASS,
        "--cost-matrix",
        _DECISION_COSTS,
    ),
    _cli("cost-curve", "cost_curve", *_SCORES, "--points", "11"),
    _cli("ks", "ks", *_SCORES),
    _cli("ks", "ks[bins]", *_SCORES, "--bins", "10"),
    _cli("gains", "gains", *_SCORES, "--buckets", "7"),
    _cli("gains", "gains[shares]", *_SCORES, "--buckets", "0.05,0.1,0.5"),
    _cli("log-loss", "log_loss", *_SCORES),
    _cli("log-loss", "log_loss[multiclass]", *_MULTICLASS),
    _cli("brier-score", "brier_score", *_SCORES),
    _cli("d2-log-loss-score", "d2_log_loss_score", *_SCORES),
    _cli("d2-log-loss-score", "d2_log_loss_score[multiclass]", *_MULTICLASS),
    _cli("d2-brier-score", "d2_brier_score", *_SCORES),
    _cli("d2-brier-score", "d2_brier_score[multiclass]", *_MULTICLASS),
    _cli("log-loss", "log_loss[one-hot]", *_ONE_HOT),
    _cli("brier-score", "brier_score[one-hot]", *_ONE_HOT),
    _cli("d2-log-loss-score", "d2_log_loss_score[one-hot]", *_ONE_HOT),
    _cli("d2-brier-score", "d2_brier_score[one-hot]", *_ONE_HOT),
    _cli("calibration-curve", "calibration_curve", *_SCORES, "--n-bins", "4"),
    _cli("calibration-curve", "calibration_curve[quantile]", *_SCORES, "--strategy", "quantile"),
    _cli("calibration-curve", "calibration_curve[ci]", *_SCORES, "--n-bins", "4", "--ci", "0.9"),
    _cli("calibration-error", "calibration_error", *_SCORES, "--strategy", "quantile"),
    _cli(
        "calibration-curve",
        "calibration_curve[per_class]",
        *_MULTICLASS,
        *("--n-bins", "4", "--multi-class", "per_class"),
    ),
    _cli(
        "calibration-curve",
        "calibration_curve[top_label]",
        *_MULTICLASS,
        *("--strategy", "quantile"),
    ),
    _cli(
        "calibration-error",
        "calibration_error[per_class]",
        *_MULTICLASS,
        *("--strategy", "quantile", "--multi-class", "per_class"),
    ),
    _cli("calibration-error", "calibration_error[top_label]", *_MULTICLASS, "--n-bins", "6"),
    _cli("top-k-accuracy", "top_k_accuracy", *_MULTICLASS, "--k", "2"),
    _cli("top-k-accuracy", "top_k_accuracy[binary]", *_SCORES, "--k", "1"),
    _cli("hinge-loss", "hinge_loss", *_SCORES),
    _cli("hinge-loss", "hinge_loss[multiclass]", *_MULTICLASS, "--labels", "0,1,2"),
    _cli("thresholds", "thresholds", *_SCORES),
    _cli("best-threshold", "best_threshold", *_SCORES, "--metric", "mcc"),
    _cli("det-curve", "det_curve", *_SCORES),
    _cli(
        "threshold-report",
        "threshold_report",
        *("--y-true", "yb", "--score", "s"),
        *("--threshold", "0.45", "--pos-label", "1", "--neg-label", "0"),
    ),
    _cli(
        "compare-models",
        "compare_models",
        *("--y-true", "y", "--model", "p", "--model", "p2", "--n-boot", "40", "--seed", "2"),
    ),
    _cli(
        "compare-models",
        "compare_models[f1]",
        *("--y-true", "yb", "--model", "base=pb,new=pb2,same=pb", "--metric", "f1"),
        *("--pos-label", "1", "--n-boot", "40", "--adjust", "holm"),
    ),
    _cli(
        "compare-models",
        "compare_models[mcc]",
        *("--y-true", "y", "--model", "p", "--model", "p2", "--metric", "mcc"),
    ),
    _cli(
        "compare-models",
        "compare_models[roc_auc]",
        *("--y-true", "yb", "--model", "s,s2", "--metric", "roc_auc"),
        *("--pos-label", "1", "--ci", "0.9"),
    ),
    _cli(
        "compare-models",
        "compare_models[average_precision]",
        *("--y-true", "yb", "--model", "s", "--model", "s2", "--metric", "average_precision"),
        *("--pos-label", "1"),
    ),
    _cli(
        "compare-models",
        "compare_models[average_precision, bootstrap]",
        *("--y-true", "yb", "--model", "s", "--model", "s2", "--metric", "average_precision"),
        *("--pos-label", "1", "--ci-method", "bootstrap", "--n-boot", "30"),
    ),
    _cli(  # on the stacked rows (CLI_INPUTS)
        "compare-models",
        "compare_models[stacked]",
        *("--y-true", "y", "--model", STACKED[2], "--model-column", STACKED[1]),
        *("--id", STACKED[0], "--n-boot", "40", "--seed", "2"),
    ),
    # a document (DOCUMENTS): compared with the method's page (DOCUMENT_CALLS); its
    # intervals are of un-weighted rows (a weight with ci is refused)
    _cli(
        "html",
        "html_report",
        *_BINARY_LABELS,
        *("--score", "s", "--ci", "none", "--title", "Registry"),
        weighted=True,
    ),
    _cli(
        "html",
        "html_report[ci]",
        *_MULTICLASS,
        *("--y-pred", "p", *_CI),
        weighted=False,
    ),
    _cli(
        "html",
        "html_report[drift]",
        *_BINARY_LABELS,
        *("--score", "s", "--ci", "none", "--reference", "ts < DATE '2026-03-03'"),
        *("--drift-columns", "s,s2"),
        weighted=False,
    ),
]

#: The document methods (DOCUMENTS) as the ``html`` command lines above call them:
#: the command's page must be the method's page on the same rows.
DOCUMENT_CALLS: dict[str, Call] = {
    "html_report": lambda m, c: m.html_report(
        c.yb, c.pb, y_score=c.s, by=c.by, pos_label=c.pos, weight=c.w, ci=None, title="Registry"
    ),
    "html_report[ci]": lambda m, c: m.html_report(
        c.y, c.p, y_score=c.qmap, by=c.by, weight=c.w, **CI
    ),
    "html_report[drift]": lambda m, c: m.html_report(
        c.yb,
        c.pb,
        y_score=c.s,
        by=c.by,
        pos_label=c.pos,
        ci=None,
        reference=pl.col("ts") < dt.date(2026, 3, 3),
        drift_columns=[c.s, c.s2],
    ),
}
CLI_IDS = [f"{command}:{name}" for command, name, _ in CLI]


def _commands() -> set[str]:
    from pl_metrics import cli

    sub = next(a for a in cli._parser()._actions if a.dest == "command")
    return set(sub.choices)


def test_every_cli_command_is_in_the_registry() -> None:
    assert _commands() == {command for command, _, _ in CLI}


def test_every_registry_entry_is_run_from_the_cli() -> None:
    """Each registry entry (each set of options of a method) has its command line,
    and each command its method's entries: a new entry needs a line in ``CLI``."""
    from pl_metrics import cli

    cases = {name for _, name, _ in CLI}
    assert cases == set(BY_NAME) | set(DOCUMENT_CALLS), "add the new entries to CLI"
    assert {name.split("[")[0] for name in DOCUMENT_CALLS} == set(DOCUMENTS)
    for command, name, _ in CLI:
        assert cli.commands()[command].method == name.split("[")[0], (command, name)


def _rounded(page: str) -> str:
    """The page with floats to 9 significant digits (sums over three files and over
    one frame differ in their last bits) and the charts' datasets, named by a hash
    of their rows (those bits included), numbered in the order they appear."""
    page = re.sub(r"\d+\.\d{9,}", lambda m: f"{float(m.group()):.9g}", page)
    page = re.sub(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "generated", page)  # the minute
    hashes: dict[str, int] = {}
    return re.sub(
        r"data-[0-9a-f]{32}", lambda m: f"data-{hashes.setdefault(m.group(), len(hashes))}", page
    )


@pytest.mark.parametrize(("command", "name", "args"), CLI, ids=CLI_IDS)
def test_cli_equals_the_frame_method(
    command: str, name: str, args: list[str], parquet_dir: Path, tmp_path: Path
) -> None:
    from pl_metrics import cli

    c = Cols(w="w") if "--weight" in args else Cols()
    files = str(parquet_dir / "*.parquet")
    if name in DOCUMENT_CALLS:
        out = tmp_path / "out.html"
        assert cli.main([command, files, *args, "-o", str(out)]) == 0
        page = DOCUMENT_CALLS[name](DATA.metrics, c)
        assert isinstance(page, str)
        assert _rounded(out.read_text(encoding="utf-8")) == _rounded(page)
        return
    if name in CLI_INPUTS:  # rows other than DATA's
        CLI_INPUTS[name](pl.scan_parquet(files), c).sink_parquet(tmp_path / "input.parquet")
        files = str(tmp_path / "input.parquet")
    out = tmp_path / "out.parquet"
    assert cli.main([command, files, *args, "-o", str(out)]) == 0
    expected = run(BY_NAME[name], DATA, c)
    if "--y-true-map" in args and "label" in expected.columns:
        # the labels of indicator maps are text on the command line: no label column
        # types them (the --y-true column types the labels of every other option)
        expected = expected.with_columns(pl.col("label").cast(pl.String))
    same(pl.read_parquet(out), expected)


#: The input of a command line that reads other rows than DATA's (made from them).
CLI_INPUTS: dict[str, Callable[[pl.LazyFrame, Cols], object]] = {"compare_models[stacked]": stack}


def test_stacked_compare_models_is_the_wide_entry() -> None:
    """The stacked entry's frame is the wide ``compare_models`` entry's (same names,
    same draws): every invariance above holds for the stacked rows too."""
    c = Cols()
    same(run(BY_NAME["compare_models[stacked]"], DATA, c), run(BY_NAME["compare_models"], DATA, c))


#: One command line per command (its first in ``CLI``) for the bad-input test.
FIRST_CLI = {command: (name, args) for command, name, args in reversed(CLI)}


@pytest.mark.parametrize("command", sorted(FIRST_CLI))
def test_cli_bad_input_is_one_line_naming_the_column(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A null in the ``--y-true`` column (every command but drift has one; drift: a
    missing column): status 2, one line on stderr naming the column, no output file."""
    from pl_metrics import cli

    name, args = FIRST_CLI[command]
    if "--y-true" in args:
        label = args[args.index("--y-true") + 1]
        bad = DATA.with_columns(
            pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(label).alias(label)
        )
        why = "null"
    else:  # drift reads no labels (a null is a bin): a missing column
        label = args[args.index("--columns") + 1].split(",")[0]
        bad, why = DATA.drop(label), "not found"
    bad.write_parquet(tmp_path / "bad.parquet")
    out = tmp_path / ("out.html" if name in DOCUMENT_CALLS else "out.parquet")
    assert cli.main([command, str(tmp_path / "bad.parquet"), *args, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # one line, no traceback
    assert f"'{label}'" in err
    assert why in err
    assert not out.exists()
