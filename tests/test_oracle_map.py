"""The oracle map: every public method, expression and state finisher, the outside
oracle its numbers are checked against (scikit-learn, fairlearn, SciPy, statsmodels,
or a brute force / a by-hand count written in the test), and the tests that check
it.  A newcomer looking for where a number is checked starts here.

Each value is ``(oracle, "file.py::test_function", ...)``.  The tests below fail
when a public name has no entry, or when an entry names a test that no longer
exists.  The invariances (row order, eager = lazy = streaming = Parquet, weights,
bad input) are the registry's (``tests/registry/``), for every method alike.
"""

# ruff: noqa: E501 - the map's oracle descriptions are one line each
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import pl_metrics as plm
from pl_metrics import MetricsDataFrame

ORACLES: dict[str, tuple[str, ...]] = {
    "average_precision": (
        "sklearn.metrics.average_precision_score",
        "test_ranking.py::test_average_precision_equals_sklearn",
        "test_multiclass_scores.py::test_average_precision_equals_sklearn",
        "test_multilabel_ranking.py::test_roc_auc_and_average_precision_equal_sklearn",
    ),
    "averages": (
        "sklearn.metrics.precision_recall_fscore_support + sklearn.metrics.jaccard_score",
        "test_classification.py::test_equals_sklearn",
        "test_multilabel.py::test_against_sklearn",
    ),
    "best_threshold": (
        "equal to thresholds (its best row under where=) + sklearn.metrics.matthews_corrcoef",
        "test_probability.py::test_best_threshold_with_a_constraint",
        "test_inputs_weights.py::test_threshold_mcc_does_not_overflow",
    ),
    "brier_score": (
        "sklearn.metrics.brier_score_loss",
        "test_probability.py::test_log_loss_and_brier_equal_sklearn",
        "test_probability.py::test_multiclass_log_loss_brier_top_k_equal_sklearn",
        "test_probability_one_hot.py::test_one_hot_y_true_equals_the_label_column_and_sklearn",
    ),
    "calibration_curve": (
        "sklearn.calibration.calibration_curve + statsmodels.stats.proportion.proportion_confint",
        "test_probability.py::test_calibration_curve_equals_sklearn",
        "test_multiclass_scores.py::test_calibration_equals_sklearn",
        "test_probability.py::test_calibration_curve_intervals_are_wilsons",
    ),
    "calibration_error": (
        "by hand: the count-weighted mean / max gap of sklearn.calibration.calibration_curve's bins; torchmetrics' multiclass_calibration_error transcribed in numpy",
        "test_probability.py::test_calibration_curve_equals_sklearn",
        "test_multiclass_scores.py::test_calibration_equals_sklearn",
        "test_multiclass_scores.py::test_top_label_error_equals_torchmetrics_off_the_edges",
    ),
    "class_likelihood_ratios": (
        "sklearn.metrics.class_likelihood_ratios",
        "test_practitioner.py::test_class_likelihood_ratios_equal_sklearn",
        "test_practitioner.py::test_class_likelihood_ratios_undefined_cases",
    ),
    "compare": (
        "sklearn.metrics / fairlearn.metrics.false_positive_rate + statsmodels.stats.multitest.multipletests + statsmodels.stats.proportion (Agresti-Caffo, Wilson)",
        "test_fairness_compare.py::test_compare_any_metric_values_and_adjustment",
        "test_fairness_compare.py::test_compare_adjustments_equal_statsmodels",
        "test_fairness_compare.py::test_compare_proportions_are_agresti_caffo",
    ),
    "compare_models": (
        "sklearn.metrics (accuracy, balanced accuracy, MCC, kappa, precision, recall, F1, ROC AUC, AP) + statsmodels.stats.contingency_tables.mcnemar + statsmodels.stats.multitest.multipletests + DeLong's test by brute force (numpy, scipy.stats.norm)",
        "test_compare_models.py::test_point_values_equal_sklearn",
        "test_compare_models.py::test_mcnemar_equals_statsmodels",
        "test_compare_models.py::test_adjust_equals_statsmodels",
        "test_compare_models_delong_bootstrap.py::test_delong_equals_the_brute_force",
    ),
    "confusion_matrix": (
        "sklearn.metrics.confusion_matrix",
        "test_classification.py::test_equals_sklearn",
        "test_practitioner.py::test_normalized_confusion_matrix_equals_sklearn",
    ),
    "cost_curve": (
        "sklearn.metrics.roc_curve + min((1 - tpr) pc + fpr (1 - pc)) in numpy",
        "test_gains.py::test_cost_curve_equals_brute_force",
    ),
    "counts": (
        "equal to report / per_class / averages / summary / confusion_matrix in one shot (via plm.from_counts)",
        "test_state.py::test_merged_counts_equal_one_shot",
    ),
    "coverage_error": (
        "sklearn.metrics.coverage_error",
        "test_multilabel_ranking.py::test_row_metrics_equal_sklearn",
    ),
    "custom": (
        "fairlearn.metrics.MetricFrame (by_group, overall)",
        "test_fairness.py::test_custom_metrics_equal_fairlearn_metric_frame",
    ),
    "d2_brier_score": (
        "sklearn.metrics.d2_brier_score (scikit-learn >= 1.8; else its definition written in the test)",
        "test_practitioner.py::test_binary_d2_scores_equal_sklearn",
        "test_practitioner.py::test_multiclass_d2_scores_equal_sklearn",
    ),
    "d2_log_loss_score": (
        "sklearn.metrics.d2_log_loss_score",
        "test_practitioner.py::test_binary_d2_scores_equal_sklearn",
        "test_practitioner.py::test_multiclass_d2_scores_equal_sklearn",
    ),
    "dcg": (
        "sklearn.metrics.dcg_score",
        "test_multilabel_ranking.py::test_dcg_and_ndcg_equal_sklearn",
    ),
    "decision_cost": (
        "by brute force in numpy: P @ C, the first argmin, the mean C[actual, decided]",
        "test_gains.py::test_decision_cost_equals_brute_force",
    ),
    "det_curve": (
        "sklearn.metrics.det_curve",
        "test_probability.py::test_det_curve_equals_sklearn",
    ),
    "disparity": (
        "fairlearn.metrics.MetricFrame (overall, group_min, group_max, difference, ratio) of sklearn.metrics scores",
        "test_fairness.py::test_disparity_equals_metric_frame",
        "test_fairness.py::test_disparity_of_scores_and_several_metrics",
    ),
    "check": (
        "statsmodels.stats.proportion (Wilson, Newcombe's interval of a difference) + sklearn.metrics.roc_auc_score with DeLong's variance by brute force over the pairs (numpy) + sklearn.metrics.log_loss + PSI by its definition on numpy.quantile bins",
        "test_check.py::test_each_status_from_the_delong_interval",
        "test_check.py::test_wilson_statuses_of_the_label_metrics",
        "test_check.py::test_non_inferiority_is_the_two_sample_delong_interval",
        "test_check.py::test_non_inferiority_of_a_proportion_is_newcombe",
        "test_check.py::test_psi_rule_is_drifts_psi",
    ),
    "estimated_performance": (
        "sklearn.isotonic.IsotonicRegression(out_of_bounds='clip', y_min=0, y_max=1, sample_weight) (one per class for {label: column}) + sklearn.metrics.roc_auc_score of the doubled rows (sample_weight w p, w (1 - p)) + the expected counts' ratios and the class averages by hand; the intervals against 10,000 Bernoulli(p) label draws (numpy)",
        "test_estimated_performance.py::test_isotonic_equals_the_definition_with_scikit_learn",
        "test_estimated_performance.py::test_weights_are_the_fits_sample_weight_and_the_rows_weights",
        "test_estimated_performance.py::test_probabilities_as_given_equal_the_definition",
        "test_estimated_performance.py::test_the_pav_fit_is_scikit_learns",
        "test_estimated_performance.py::test_the_interval_is_the_spread_of_drawn_labels",
        "test_estimated_multiclass.py::test_isotonic_per_class_equals_the_definition_with_scikit_learn",
        "test_estimated_multiclass.py::test_weights_are_each_fits_sample_weight_and_the_rows_weights",
        "test_estimated_multiclass.py::test_probabilities_as_given_are_divided_by_their_rows_sum",
    ),
    "drift": (
        "scipy.stats.ks_2samp + scipy.stats.wasserstein_distance + scipy.spatial.distance.jensenshannon + PSI by its definition on numpy.quantile bins",
        "test_drift.py::test_drift_equals_the_definitions_and_scipy",
        "test_drift.py::test_sorted_distances_in_chunks_are_scipys_and_a_segments_own",
    ),
    "drift_bins": (
        "numpy.quantile edges, numpy.searchsorted shares + scipy.spatial.distance.jensenshannon",
        "test_drift.py::test_drift_bins_are_the_definitions_bins",
    ),
    "drift_counts": (
        "equal to drift (via plm.from_drift_counts)",
        "test_drift.py::test_drift_from_merged_counts_is_drift",
    ),
    "expected_cost": (
        "sklearn.metrics.confusion_matrix at each threshold x the cost matrix",
        "test_gains.py::test_expected_cost_equals_brute_force",
    ),
    "fairness": (
        "fairlearn.metrics.MetricFrame (difference, ratio) + fairlearn.metrics demographic_parity_* / equalized_odds_* / equal_opportunity_*",
        "test_fairness.py::test_fairness_equals_fairlearn",
        "test_fairness.py::test_fairness_functions_without_control_equal_fairlearn",
    ),
    "gains": (
        "by brute force in the test (exact Fractions over the sorted rows) and a worked example",
        "test_gains.py::test_gains_equals_brute_force",
        "test_gains.py::test_gains_worked_example",
    ),
    "group_rates": (
        "fairlearn.metrics selection_rate / true_positive_rate / false_positive_rate / true_negative_rate / false_negative_rate + sklearn.metrics.confusion_matrix",
        "test_fairness.py::test_group_rates_equal_fairlearn",
    ),
    "hamming_loss": (
        "sklearn.metrics.hamming_loss",
        "test_multilabel.py::test_against_sklearn",
        "test_multilabel.py::test_single_label_losses_against_sklearn",
    ),
    "hinge_loss": (
        "sklearn.metrics.hinge_loss",
        "test_hinge_loss.py::test_binary_equals_sklearn_per_segment",
        "test_hinge_loss.py::test_multiclass_equals_sklearn_per_segment",
    ),
    "html_report": (
        "equal to its frame methods (summary, report, compare, fairness, group_rates, roc_auc, ...)",
        "test_html_report.py::test_every_table_equals_its_frame_method",
    ),
    "ks": (
        "scipy.stats.ks_2samp (integer weights as repeated rows) + a weighted ECDF by brute force (exact Fractions)",
        "test_gains.py::test_ks_equals_scipy_ks_2samp",
        "test_gains.py::test_ks_equals_brute_force",
        "test_ranking.py::test_continuous_scores_sort_the_curve_as_sklearn",
    ),
    "label_ranking_average_precision": (
        "sklearn.metrics.label_ranking_average_precision_score",
        "test_multilabel_ranking.py::test_row_metrics_equal_sklearn",
        "test_multilabel_ranking.py::test_label_ranking_average_precision_of_one_label_equals_sklearn",
    ),
    "label_ranking_loss": (
        "sklearn.metrics.label_ranking_loss",
        "test_multilabel_ranking.py::test_row_metrics_equal_sklearn",
    ),
    "log_loss": (
        "sklearn.metrics.log_loss",
        "test_probability.py::test_log_loss_and_brier_equal_sklearn",
        "test_probability.py::test_multiclass_log_loss_brier_top_k_equal_sklearn",
        "test_probability_one_hot.py::test_one_hot_y_true_equals_the_label_column_and_sklearn",
    ),
    "multilabel_confusion_matrix": (
        "sklearn.metrics.multilabel_confusion_matrix",
        "test_multilabel.py::test_against_sklearn",
    ),
    "multilabel_counts": (
        "equal to the multilabel frame methods (via plm.from_multilabel_counts)",
        "test_multilabel_state.py::test_merged_states_equal_the_frame_methods",
    ),
    "ndcg": (
        "sklearn.metrics.ndcg_score",
        "test_multilabel_ranking.py::test_dcg_and_ndcg_equal_sklearn",
    ),
    "over_time": (
        "each window's rows through the frame methods + sklearn.metrics precision_score / recall_score / f1_score / jaccard_score + the ECE in numpy",
        "test_over_time.py::test_over_time_equals_the_rows_of_each_window",
        "test_over_time_estimated.py::test_each_window_is_the_definition_with_scikit_learn",
        "test_over_time_estimated.py::test_each_window_is_estimated_performance_on_its_rows",
    ),
    "per_class": (
        "sklearn.metrics.precision_recall_fscore_support + multilabel_confusion_matrix + jaccard_score + recall_score",
        "test_classification.py::test_equals_sklearn",
        "test_multilabel.py::test_against_sklearn",
    ),
    "pr_curve": (
        "sklearn.metrics.precision_recall_curve",
        "test_ranking.py::test_pr_curve_equals_sklearn",
        "test_practitioner.py::test_pr_curve_drop_intermediate_equals_sklearn",
        "test_multiclass_scores.py::test_one_vs_rest_pr_curves_equal_sklearn",
    ),
    "reference_disparities": (
        "by hand: each group's group_rates over the reference group's (Aequitas' definition)",
        "test_fairness_compare.py::test_reference_disparities_divide_by_the_reference_group",
    ),
    "report": (
        "equal to per_class then averages; sklearn.metrics.classification_report's numbers (multilabel)",
        "test_classification.py::test_report_is_per_class_then_averages",
        "test_multilabel.py::test_against_sklearn",
    ),
    "gini": (
        "2 x sklearn.metrics.roc_auc_score - 1 (intervals, bins, over_time, compare, compare_models: roc_auc's mapped)",
        "test_gini.py::test_gini_is_twice_sklearns_auc_minus_one",
        "test_gini.py::test_one_vs_rest",
        "test_gini.py::test_partial_area_bins_and_intervals_are_rocs_mapped",
        "test_gini.py::test_over_time_compare_and_compare_models",
    ),
    "roc_auc": (
        "sklearn.metrics.roc_auc_score",
        "test_ranking.py::test_roc_auc_equals_sklearn",
        "test_ranking.py::test_multiclass_equals_sklearn",
        "test_multiclass_scores.py::test_roc_auc_per_class_equals_sklearn",
        "test_multiclass_scores.py::test_roc_auc_micro_equals_sklearn",
        "test_multiclass_scores.py::test_partial_auc_equals_sklearn",
        "test_multilabel_ranking.py::test_roc_auc_and_average_precision_equal_sklearn",
    ),
    "roc_curve": (
        "sklearn.metrics.roc_curve",
        "test_ranking.py::test_roc_curve_equals_sklearn",
        "test_multiclass_scores.py::test_one_vs_rest_roc_curves_equal_sklearn",
    ),
    "score_counts": (
        "equal to roc_auc / average_precision / roc_curve / pr_curve in one shot (via plm.from_score_counts)",
        "test_state.py::test_merged_score_counts_equal_one_shot",
        "test_multiclass_scores.py::test_partial_auc_equals_sklearn",
    ),
    "selection_rate": (
        "fairlearn.metrics.selection_rate (group_rates' selection_rate)",
        "test_fairness.py::test_group_rates_equal_fairlearn",
    ),
    "summary": (
        "sklearn.metrics accuracy_score + balanced_accuracy_score + matthews_corrcoef + cohen_kappa_score (multilabel: accuracy_score + hamming_loss + jaccard_score)",
        "test_classification.py::test_equals_sklearn",
        "test_practitioner.py::test_weighted_kappa_equals_sklearn",
        "test_classification.py::test_kappa_replace_undefined_by_equals_sklearn",
        "test_multilabel.py::test_against_sklearn",
        "test_expr_multiclass.py::test_adjusted_balanced_accuracy_equals_sklearn",
    ),
    "threshold_report": (
        "sklearn.metrics.precision_recall_fscore_support; equal to report of the thresholded predictions",
        "test_probability.py::test_threshold_report_infers_neg_label",
        "test_probability.py::test_threshold_report_equals_report_of_thresholded_predictions",
    ),
    "thresholds": (
        "sklearn.metrics confusion_matrix + precision_score + recall_score + fbeta_score + accuracy_score + matthews_corrcoef at each threshold",
        "test_probability.py::test_threshold_sweep_equals_metrics_at_each_threshold",
    ),
    "top_k_accuracy": (
        "sklearn.metrics.top_k_accuracy_score",
        "test_probability.py::test_multiclass_log_loss_brier_top_k_equal_sklearn",
        "test_probability.py::test_top_k_accuracy_of_one_score_column_equals_sklearn",
    ),
    "zero_one_loss": (
        "sklearn.metrics.zero_one_loss",
        "test_multilabel.py::test_against_sklearn",
        "test_multilabel.py::test_single_label_losses_against_sklearn",
    ),
    "plm.accuracy": (
        "sklearn.metrics.accuracy_score",
        "test_expr.py::test_group_by_agg_equals_sklearn",
    ),
    "plm.average_precision": (
        "sklearn.metrics.average_precision_score",
        "test_ranking.py::test_expressions_in_group_by_equal_sklearn",
    ),
    "plm.balanced_accuracy": (
        "sklearn.metrics.balanced_accuracy_score (adjusted=True too)",
        "test_expr_multiclass.py::test_summary_metrics_equal_sklearn_and_summary",
        "test_expr_multiclass.py::test_adjusted_balanced_accuracy_equals_sklearn",
    ),
    "plm.brier_score": (
        "sklearn.metrics.brier_score_loss",
        "test_probability.py::test_expressions_equal_sklearn",
    ),
    "plm.cohen_kappa": (
        "sklearn.metrics.cohen_kappa_score",
        "test_expr_multiclass.py::test_summary_metrics_equal_sklearn_and_summary",
        "test_classification.py::test_kappa_replace_undefined_by_equals_sklearn",
    ),
    "plm.f1": (
        "sklearn.metrics.f1_score",
        "test_expr.py::test_group_by_agg_equals_sklearn",
        "test_expr_multiclass.py::test_averages_equal_sklearn_per_group",
        "test_expr_multiclass.py::test_float_and_integer_labels_are_one_label",
    ),
    "plm.f_beta": (
        "sklearn.metrics.precision_recall_fscore_support (binary) + sklearn.metrics.fbeta_score",
        "test_expr.py::test_group_by_agg_equals_sklearn",
        "test_expr_multiclass.py::test_averages_equal_sklearn_per_group",
        "test_expr.py::test_select_with_string_labels_and_names",
    ),
    "plm.hamming_loss": (
        "sklearn.metrics.hamming_loss",
        "test_expr_multiclass.py::test_summary_metrics_equal_sklearn_and_summary",
    ),
    "plm.hinge_loss": (
        "sklearn.metrics.hinge_loss (binary scores)",
        "test_hinge_loss.py::test_binary_equals_sklearn_per_segment",
    ),
    "plm.fowlkes_mallows": (
        "sqrt(precision x recall) of sklearn.metrics.precision_score / recall_score "
        "(averages: their micro, or _nanaverage by hand)",
        "test_expr.py::test_group_by_agg_equals_sklearn",
        "test_expr_multiclass.py::test_averages_equal_sklearn_per_group",
    ),
    "plm.informedness": (
        "recall + specificity - 1 of sklearn.metrics.multilabel_confusion_matrix's cells; "
        "binary: sklearn.metrics.balanced_accuracy_score(adjusted=True)",
        "test_informedness.py::test_binary_informedness_is_adjusted_balanced_accuracy",
        "test_informedness.py::test_expressions_equal_the_oracle_per_group",
    ),
    "plm.markedness": (
        "precision + npv - 1 of sklearn.metrics.multilabel_confusion_matrix's cells; "
        "binary: balanced_accuracy_score(adjusted=True) of the labels swapped",
        "test_informedness.py::test_binary_informedness_is_adjusted_balanced_accuracy",
        "test_informedness.py::test_expressions_equal_the_oracle_per_group",
    ),
    "plm.jaccard": (
        "sklearn.metrics.jaccard_score (NaN zero_division: multilabel_confusion_matrix by hand)",
        "test_expr.py::test_group_by_agg_equals_sklearn",
        "test_expr_multiclass.py::test_averages_equal_sklearn_per_group",
    ),
    "plm.log_loss": (
        "sklearn.metrics.log_loss",
        "test_probability.py::test_expressions_equal_sklearn",
    ),
    "plm.mcc": (
        "sklearn.metrics.matthews_corrcoef",
        "test_expr_multiclass.py::test_summary_metrics_equal_sklearn_and_summary",
    ),
    "plm.precision": (
        "sklearn.metrics.precision_recall_fscore_support + sklearn.metrics.precision_score",
        "test_expr.py::test_group_by_agg_equals_sklearn",
        "test_expr_multiclass.py::test_averages_equal_sklearn_per_group",
    ),
    "plm.recall": (
        "sklearn.metrics.precision_recall_fscore_support + sklearn.metrics.recall_score",
        "test_expr.py::test_group_by_agg_equals_sklearn",
        "test_expr_multiclass.py::test_averages_equal_sklearn_per_group",
    ),
    "plm.gini": (
        "2 x sklearn.metrics.roc_auc_score - 1",
        "test_gini.py::test_gini_is_twice_sklearns_auc_minus_one",
    ),
    "plm.metric_names": (
        "the metric catalogue itself (each name accepted by the calls that take metrics by name)",
        "test_gini.py::test_metric_names",
    ),
    "plm.roc_auc": (
        "sklearn.metrics.roc_auc_score",
        "test_ranking.py::test_expressions_in_group_by_equal_sklearn",
    ),
    "plm.specificity": (
        "sklearn.metrics.recall_score (of 'not pos_label')",
        "test_expr.py::test_group_by_agg_equals_sklearn",
    ),
    "plm.from_counts": (
        "equal to report / per_class / averages / summary / confusion_matrix in one shot",
        "test_state.py::test_merged_counts_equal_one_shot",
        "test_practitioner.py::test_weighted_kappa_equals_sklearn",
        "test_practitioner.py::test_normalized_confusion_matrix_equals_sklearn",
    ),
    "plm.from_score_counts": (
        "equal to roc_auc / average_precision / roc_curve / pr_curve in one shot",
        "test_state.py::test_merged_score_counts_equal_one_shot",
        "test_practitioner.py::test_pr_curve_drop_intermediate_equals_sklearn",
        "test_multiclass_scores.py::test_partial_auc_equals_sklearn",
    ),
    "plm.from_multilabel_counts": (
        "equal to the multilabel frame methods + sklearn.metrics precision_recall_fscore_support / jaccard_score / accuracy_score / hamming_loss / zero_one_loss / multilabel_confusion_matrix",
        "test_multilabel_state.py::test_merged_states_equal_the_frame_methods",
        "test_multilabel_state.py::test_merged_states_against_sklearn",
    ),
    "plm.from_drift_counts": (
        "equal to drift",
        "test_drift.py::test_drift_from_merged_counts_is_drift",
    ),
    "plm.drift_edges": (
        "numpy.quantile (linear), to the bit",
        "test_drift.py::test_edges_are_numpys_quantiles_to_the_bit_and_finite",
        "test_drift.py::test_drift_from_merged_counts_is_drift",
    ),
}

TESTS = Path(__file__).parent


def _public_names() -> set[str]:
    methods = {
        n
        for n in dir(MetricsDataFrame)
        if not n.startswith("_") and callable(getattr(MetricsDataFrame, n))
    }
    # plm.metrics(frame) is the namespace itself
    functions = {
        f"plm.{n}" for n in plm.__all__ if inspect.isfunction(getattr(plm, n)) and n != "metrics"
    }
    return methods | functions


def test_every_public_name_has_an_oracle() -> None:
    assert set(ORACLES) == _public_names()


def _test_functions(file: str) -> set[str]:
    tree = ast.parse((TESTS / file).read_text())
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_each_named_test_exists(name: str) -> None:
    oracle, *tests = ORACLES[name]
    assert oracle, f"{name}: its oracle"
    assert tests, f"{name}: at least one test"
    for ref in tests:
        file, function = ref.split("::")
        assert function.startswith("test_"), ref
        assert function in _test_functions(file), f"{name}: {ref} does not exist"
