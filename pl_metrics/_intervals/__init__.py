"""``ci=``: confidence intervals from the sufficient statistics, not from the rows.

- :mod:`~pl_metrics._intervals.draws`: the multinomial bootstrap of a state,
  segment by segment (seeds, blocks of replicates, threads);
- :mod:`~pl_metrics._intervals.replicates`: the replicates' metrics in numpy
  (the formulas of :mod:`pl_metrics._core.formulas`) and their percentiles;
- :mod:`~pl_metrics._intervals.analytic`: Wilson's and DeLong's intervals;
- :mod:`~pl_metrics._intervals.attach`: the ``<metric>_low`` / ``<metric>_high``
  columns joined to the point estimates.
"""
