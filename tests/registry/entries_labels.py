"""The registry's entries of the label methods (confusion matrix, per-class scores,
summaries, fairness, multilabel, ...): the first part of ``entries.METHODS``."""

from __future__ import annotations

from sklearn import metrics as skm

from registry.entries_base import (
    CI,
    EXTRA,
    GROUPS,
    Entry,
    _b,
    _bl,
    _m,
)

METHODS: list[Entry] = [
    Entry("confusion_matrix", _m("confusion_matrix"), ("labels",), state="counts"),
    Entry("counts", _m("counts"), ("labels",)),
    Entry("per_class", _m("per_class", beta=2.0), ("labels",), state="counts", beta=2.0),
    Entry("averages", _m("averages", zero_division=1.0), ("labels",), state="counts"),
    Entry("report", _m("report"), ("labels",), state="counts"),
    Entry(
        "report[extra_scores]",  # the opt-in scores: fowlkes_mallows, informedness, markedness
        _m("report", extra_scores=list(EXTRA), beta=0.5),
        ("labels",),
        outputs="report",
        state="counts",
        beta=0.5,
    ),
    Entry(
        "per_class[ci-extra_scores]",  # the delta method's intervals of the opt-in scores
        _m("per_class", extra_scores=list(EXTRA), **CI),
        ("labels",),
        outputs="per_class",
        ci=True,
        weighted=False,
        state="counts",
    ),
    Entry(
        "report[ci]",  # the delta method (the default): no draws
        _m("report", **CI),
        ("labels",),
        outputs="report",
        ci=True,
        weighted=False,
        state="counts",
    ),
    Entry(
        "report[bootstrap]",
        _m("report", **CI, ci_method="bootstrap"),
        ("labels",),
        outputs="report",
        ci=True,
        weighted=False,
        bootstrap=True,
        state="counts",
    ),
    Entry("summary", _m("summary"), ("labels",), state="counts"),
    Entry(
        "summary[kappa_weights]",
        # the weights depend on the label order: given, so that renaming keeps it
        lambda m, c: m.summary(
            c.y, c.p, by=c.by, weight=c.w, labels=[k for k, _ in c.q], kappa_weights="quadratic"
        ),
        ("labels",),
        outputs="summary",
    ),
    Entry(
        "summary[replace_undefined_by]",
        _m("summary", replace_undefined_by=0.5),
        ("labels",),
        state="counts",
        outputs="summary",
    ),
    Entry(
        "confusion_matrix[normalize]",
        _m("confusion_matrix", normalize="true"),
        ("labels",),
        outputs="confusion_matrix",
    ),
    Entry(
        "class_likelihood_ratios",
        lambda m, c: m.class_likelihood_ratios(c.yb, c.pb, by=c.by, weight=c.w, pos_label=c.pos),
        ("binary_labels",),
    ),
    Entry("selection_rate", _bl("selection_rate"), ("binary_labels",)),
    Entry("group_rates", _bl("group_rates"), ("binary_labels",)),
    Entry(
        "fairness",
        lambda m, c: m.fairness(
            c.yb, c.pb, by=GROUPS, control=c.by, weight=c.w, pos_label=c.pos, agg="mean"
        ),
        ("binary_labels",),
    ),
    Entry(
        "fairness[ci]",
        lambda m, c: m.fairness(
            c.yb, c.pb, by=GROUPS, control=c.by, pos_label=c.pos, method="to_overall", **CI
        ),
        ("binary_labels",),
        outputs="fairness",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "reference_disparities",
        lambda m, c: m.reference_disparities(
            c.yb, c.pb, by=GROUPS, control=c.by, weight=c.w, pos_label=c.pos
        ),
        ("binary_labels",),
    ),
    Entry(
        "disparity",
        lambda m, c: m.disparity(
            c.y, c.p, by=GROUPS, control=c.by, weight=c.w, metric=["accuracy", "f1_macro"]
        ),
        ("labels",),
    ),
    Entry(  # scikit-learn-shaped callables (custom's), once per group in Python
        "disparity[callables]",
        lambda m, c: m.disparity(
            c.y,
            c.p,
            by=GROUPS,
            control=c.by,
            weight=c.w,
            metric={"acc": skm.accuracy_score, "mcc": skm.matthews_corrcoef},
        ),
        ("labels",),
        outputs="disparity",
    ),
    Entry(
        "disparity[scores]",
        lambda m, c: m.disparity(
            c.yb,
            c.s,
            by=GROUPS,
            control=c.by,
            weight=c.w,
            pos_label=c.pos,
            metric=["roc_auc", "log_loss"],
        ),
        ("binary",),
        outputs="disparity",
    ),
    Entry(
        "disparity[ci]",
        lambda m, c: m.disparity(
            c.yb, c.pb, by=GROUPS, control=c.by, pos_label=c.pos, metric="f1", **CI
        ),
        ("binary_labels",),
        outputs="disparity",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "compare[any metric]",
        lambda m, c: m.compare(
            c.yb,
            c.pb,
            by=c.by,
            pos_label=c.pos,
            metric="false_positive_rate",
            n_boot=30,
            adjust="bh",
        ),
        ("binary_labels",),
        weighted=False,
        outputs="compare",
        bootstrap=True,
    ),
    Entry(
        "summary[ci]",  # the delta method (the default): no draws
        _m("summary", **CI),
        ("labels",),
        outputs="summary",
        ci=True,
        weighted=False,
        state="counts",
    ),
    Entry(
        "summary[bootstrap]",
        _m("summary", **CI, ci_method="bootstrap"),
        ("labels",),
        outputs="summary",
        ci=True,
        weighted=False,
        bootstrap=True,
        state="counts",
    ),
    Entry("roc_auc", _b("roc_auc"), ("binary",), state="score_counts"),
    Entry("roc_auc[bins]", _b("roc_auc", bins=8), ("binary",), outputs="roc_auc"),
    Entry(
        "roc_auc[ci]",
        _b("roc_auc", **CI),
        ("binary",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
        bootstrap=True,
        state="score_counts",
    ),
    Entry(
        "roc_auc[delong]",
        _b("roc_auc", ci=0.9, ci_method="delong"),
        ("binary",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
        state="score_counts",
    ),
    # gini: roc_auc mapped (catalogue.derive), with its own output names
    Entry("gini", _b("gini"), ("binary",), state="score_counts"),
    Entry("gini[bins]", _b("gini", bins=8), ("binary",), outputs="gini"),
    Entry(
        "gini[delong]",
        _b("gini", ci=0.9, ci_method="delong"),
        ("binary",),
        outputs="gini",
        ci=True,
        weighted=False,
        state="score_counts",
    ),
    Entry(
        "gini[ovr]",
        lambda m, c: m.gini(c.y, c.qmap, by=c.by, weight=c.w, average=None),
        ("multiclass",),
        outputs="gini",
    ),
    Entry(
        "roc_auc[ovr]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, weight=c.w, average="weighted"),
        ("multiclass",),
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[ovr][delong]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, average="weighted", ci=0.9),
        ("multiclass",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
    ),
    Entry(
        "roc_auc[ovr][delong][per_class]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, average=None, ci=0.9),
        ("multiclass",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
    ),
    Entry(  # the bootstrap of the rows: per class, and of the macro mean
        "roc_auc[ovr][bootstrap][per_class]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, average=None, ci_method="bootstrap", **CI),
        ("multiclass",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "roc_auc[ovr][bootstrap]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, ci_method="bootstrap", **CI),
        ("multiclass",),
        outputs="roc_auc",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "roc_auc[ovo]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, multi_class="ovo"),
        ("multiclass",),
        weighted=False,
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[per_class]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, weight=c.w, average=None),
        ("multiclass",),
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[micro]",
        lambda m, c: m.roc_auc(c.y, c.qmap, by=c.by, weight=c.w, average="micro"),
        ("multiclass",),
        outputs="roc_auc",
    ),
    Entry("roc_auc[max_fpr]", _b("roc_auc", max_fpr=0.3), ("binary",), outputs="roc_auc"),
    Entry(
        "roc_auc[multilabel]",
        lambda m, c: m.roc_auc(c.ml, c.qmap, by=c.by, weight=c.w, average=None),
        ("multilabel",),
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[multilabel-max_fpr]",
        lambda m, c: m.roc_auc(c.ml, c.qmap, by=c.by, weight=c.w, average="weighted", max_fpr=0.4),
        ("multilabel",),
        outputs="roc_auc",
    ),
    Entry(
        "roc_auc[multilabel-samples-max_fpr]",
        lambda m, c: m.roc_auc(c.ml, c.qmap, by=c.by, weight=c.w, average="samples", max_fpr=0.3),
        ("multilabel",),
        outputs="roc_auc",
    ),
    Entry(
        "average_precision[multilabel]",
        lambda m, c: m.average_precision(c.ml, c.qmap, by=c.by, weight=c.w, average="samples"),
        ("multilabel",),
        outputs="average_precision",
    ),
    Entry(
        "average_precision[multilabel-float]",  # 0.0 / 1.0 float indicators of the truth
        lambda m, c: m.average_precision(dict(c.mlfmap), c.qmap, by=c.by, weight=c.w, average=None),
        ("multilabel_float",),
        outputs="average_precision",
    ),
    Entry(
        "coverage_error",
        lambda m, c: m.coverage_error(c.ml, c.qmap, by=c.by, weight=c.w),
        ("multilabel",),
    ),
    # multilabel set-based metrics (List columns; the mapping form: test_multilabel.py)
    Entry(
        "per_class[multilabel]",
        lambda m, c: m.per_class(c.ml, c.mlp, by=c.by, weight=c.w, beta=2.0),
        ("multilabel",),
        outputs="per_class",
        state="multilabel_counts",
        beta=2.0,
    ),
    Entry(
        "averages[multilabel]",
        lambda m, c: m.averages(c.ml, c.mlp, by=c.by, weight=c.w, zero_division=1.0),
        ("multilabel",),
        outputs="averages",
        state="multilabel_counts",
    ),
    Entry(
        "averages[multilabel-extra_scores]",
        lambda m, c: m.averages(c.ml, c.mlp, by=c.by, weight=c.w, extra_scores=list(EXTRA)),
        ("multilabel",),
        outputs="averages",
        state="multilabel_counts",
    ),
    Entry(
        "report[multilabel]",
        # a subset of the labels, in another order (renamed with the data: c.q's keys)
        lambda m, c: m.report(c.ml, c.mlp, by=c.by, weight=c.w, labels=[c.q[2][0], c.q[0][0]]),
        ("multilabel",),
        outputs="report",
        state="multilabel_counts[labels]",
    ),
    Entry(
        "report[multilabel-map]",  # the indicator form: the List form's numbers
        lambda m, c: m.report(dict(c.mlmap), dict(c.mlpmap), by=c.by, weight=c.w),
        ("multilabel_map",),
        outputs="report",
        state="multilabel_counts[map]",
    ),
    Entry(
        "summary[multilabel]",
        lambda m, c: m.summary(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
        outputs="summary",
        state="multilabel_counts",
    ),
    Entry(
        "report[multilabel-ci]",  # bootstrap of whole rows
        lambda m, c: m.report(c.ml, c.mlp, by=c.by, **CI),
        ("multilabel",),
        outputs="report",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "summary[multilabel-ci]",
        lambda m, c: m.summary(c.ml, c.mlp, by=c.by, **CI),
        ("multilabel",),
        outputs="summary",
        ci=True,
        weighted=False,
        bootstrap=True,
    ),
    Entry(
        "multilabel_confusion_matrix",
        lambda m, c: m.multilabel_confusion_matrix(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
        state="multilabel_counts",
    ),
    # the multilabel state (all labels; and a subset, for report[multilabel]'s labels=)
    Entry(
        "multilabel_counts",
        lambda m, c: m.multilabel_counts(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
    ),
    Entry(
        "multilabel_counts[map]",
        lambda m, c: m.multilabel_counts(dict(c.mlmap), dict(c.mlpmap), by=c.by, weight=c.w),
        ("multilabel_map",),
        outputs="multilabel_counts",
    ),
    Entry(
        "multilabel_counts[labels]",
        lambda m, c: m.multilabel_counts(
            c.ml, c.mlp, by=c.by, weight=c.w, labels=[c.q[2][0], c.q[0][0]]
        ),
        ("multilabel",),
        outputs="multilabel_counts",
    ),
    Entry("hamming_loss", _m("hamming_loss"), ("labels",)),
    Entry(
        "hamming_loss[multilabel]",
        lambda m, c: m.hamming_loss(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
        outputs="hamming_loss",
        state="multilabel_counts",
    ),
    Entry("zero_one_loss", _m("zero_one_loss", normalize=False), ("labels",)),
    Entry(
        "zero_one_loss[multilabel]",
        lambda m, c: m.zero_one_loss(c.ml, c.mlp, by=c.by, weight=c.w),
        ("multilabel",),
        outputs="zero_one_loss",
        state="multilabel_counts",
    ),
    Entry(
        "label_ranking_average_precision",
        lambda m, c: m.label_ranking_average_precision(c.ml, c.qmap, by=c.by, weight=c.w),
        ("multilabel",),
    ),
    Entry(
        "label_ranking_average_precision[one-label]",  # scikit-learn's 1 per row
        lambda m, c: m.label_ranking_average_precision(
            dict(c.mlmap[:1]), dict(c.q[:1]), by=c.by, weight=c.w
        ),
        ("multilabel_map",),
        outputs="label_ranking_average_precision",
    ),
    Entry(
        "label_ranking_loss",
        lambda m, c: m.label_ranking_loss(c.ml, c.qmap, by=c.by, weight=c.w),
        ("multilabel",),
    ),
    Entry(
        "ndcg",
        lambda m, c: m.ndcg(c.rl, c.qmap, labels=[k for k, _ in c.q], k=2, by=c.by, weight=c.w),
        ("relevance",),
    ),
    Entry(
        "dcg",
        lambda m, c: m.dcg(c.rl, c.qmap, labels=[k for k, _ in c.q], by=c.by, weight=c.w),
        ("relevance",),
    ),
    Entry(
        "dcg[mapping]",
        lambda m, c: m.dcg(c.relmap, c.qmap, log_base=3, by=c.by, weight=c.w),
        ("relevance_map",),
        outputs="dcg",
    ),
]
