"""Drift between a reference and the current rows.

- :mod:`.metrics`: PSI, Jensen-Shannon, KS and Wasserstein per column and
  segment, the bins and their counts (in memory, or in slices of the value
  range above a row threshold);
- :mod:`.distances`: KS and Wasserstein from the sorted values (the sweep);
- :mod:`.state`: the mergeable bin counts (``drift_counts``, shards, Dask, Spark).
"""
