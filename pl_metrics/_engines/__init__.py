"""Running the metrics elsewhere than on one polars frame.

- :mod:`.shards`: computing states per shard and merging them (Dask, Spark);
- :mod:`.spark`: the Spark side (partitions to Arrow, the jobs).
"""
