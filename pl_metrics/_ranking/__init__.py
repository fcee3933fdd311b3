"""Ranking metrics of scores: ROC AUC, average precision, KS, the curves, the threshold
sweep and the gains table.

- :mod:`.from_counts`: the metrics and curves from per-score counts (the polars
  path: ``group_by(*by, score)``, then cumulative sums);
- :mod:`.sorted_path` (the plan), :mod:`.placements` (one segment's sorted
  scores) and :mod:`.batches` (by segment, small segments vectorised): exact ROC
  AUC and AP of continuous scores from the sorted values;
- :mod:`.sorted_curve`: the curves of continuous scores the same way;
- :mod:`.multiclass`: one-vs-rest and one-vs-one;
- :mod:`.thresholds` (the sweep, the best threshold) and :mod:`.gains` (the
  scoring tables: gains, lift, KS per bucket).
"""
