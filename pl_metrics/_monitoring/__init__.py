"""Monitoring a model in production: quality gates, and performance before the labels arrive.

- :mod:`.check`: quality gates, rules such as ``roc_auc >= 0.8`` decided per
  segment with intervals (``pass``, ``fail``, ``inconclusive``);
- :mod:`.calibration`: the isotonic calibration map fitted on reference rows
  (scikit-learn's ``IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1)``);
- :mod:`.estimated`: ``estimated_performance``, the metrics expected from calibrated
  scores (NannyML's CBPE), per segment, with the spread of the realized metric
  (:mod:`pl_metrics._intervals.label_draws`); its sums over each segment's sorted
  rows in :mod:`.segment_sums`.
"""
