"""What the expressions of :mod:`pl_metrics.expr` are built from.

- :mod:`.inputs`: the input checks inside an aggregation (one Python call per
  query), the binary counts;
- :mod:`.multiclass`: the per-class counts of a group inside one aggregation,
  and the averaged and summary metrics of them.
"""
