"""Running the metrics elsewhere than on one polars frame: shard -> state -> merge ->
finish.

- :mod:`.declared`: every engine function, declared once from the state finishers
  (``pl_metrics.spark.<m>``, ``pl_metrics.dask.<m>`` are made from it);
- :mod:`.jobs`: the engine-neutral half (the job, one shard's result, the shards'
  errors and label sets on the driver, the merged state's dtypes);
- :mod:`.finishers`: the threshold tables from a merged per-score state;
- :mod:`.shards`: the label-set checks of per-shard score states;
- :mod:`.spark`, :mod:`.dask`: the shard providers (Spark's ``mapInArrow``; Dask's
  Parquet files or ``dask.dataframe`` partitions).
"""
