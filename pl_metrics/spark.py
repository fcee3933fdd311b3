"""Distributed evaluation on Spark: states per partition on the executors, finished here.

Every ``.metrics`` method whose result is a function of a mergeable state has a
function here of the same name and arguments, the Spark frame first
(:mod:`pl_metrics._engines.declared` makes them from the state finishers): the
confusion family, multilabel, the binary ranking and threshold tables, and the states
themselves (``counts``, ``score_counts``, ``multilabel_counts``, ``drift_counts``).

Needs the optional extra ``pl_metrics[spark]`` (and ``pl_metrics`` installed on
the executors).  Only the columns a metric reads are selected; each partition's
Arrow batches become Polars frames (``mapInArrow``) and one small mergeable
state (``.metrics.counts`` or ``.metrics.score_counts``); the driver collects
the states, sums them (:func:`pl_metrics.state.sum_states`) and finishes the
metrics with :func:`pl_metrics.from_counts` / :func:`pl_metrics.from_score_counts`
- the same functions as on one machine::

    import pl_metrics.spark as pms

    sdf = spark.read.parquet("s3://bucket/preds/")
    pms.report(sdf, "y_true", "y_pred", by="country")

The confusion counts of named label and ``by`` columns are Spark's own
``groupBy(labels, *by)`` (no Python worker): the frame method's ``counts`` reads
its groups, one weighted row each, so its checks see every key; a failing check
falls back to the partitions' polars states for the error with its rows counted.
Why the other states meet on the driver (not in a Spark ``groupBy``): the
finishing step needs the whole merged state there anyway, and a ``groupBy`` only
removes keys repeated across partitions.  The confusion state has at most segments x
K^2 rows per partition and a binned (``bins=``) or rounded score state at most
segments x (bins + 1); for exact continuous scores the distinct scores are
about the rows, so the merged state is as large as the partitions' states
together.  The states travel as Arrow IPC, so their dtypes are exactly those
of Polars (no Spark type mapping of the labels and counts).

Intervals (``ci=``, ``n_boot``, ``seed``, ``ci_method``) of ``per_class``,
``averages``, ``report``, ``summary``, ``roc_auc`` and ``average_precision`` come
from the merged state on the driver: the bootstrap redraws the merged counts, so
for a seed the interval is the frame method's on the same rows, however they
are partitioned.  As the frame methods, they need un-weighted rows (``weight``
with ``ci`` is refused before any job).

Errors: the columns, dtypes and options are checked on the driver before any
job runs (the checks of the frame methods, on an empty frame of the Spark
schema).  Bad rows (nulls, NaN scores, negative weights, ...) are found on the
executors; their errors come back to the driver as the same exception, with
the rows counted over all partitions: the message is the one the frame method
gives on all rows (not a Py4J stack trace).
"""

from __future__ import annotations

import inspect

from pl_metrics._engines import declared
from pl_metrics._engines import spark as spark_engine

#: Rows of Arrow batches gathered into one Polars frame on an executor (read on the
#: driver when a function is called).
CHUNK_ROWS = 1_000_000

_ENGINE = declared.Engine(
    name="Spark",
    module=__name__,
    data=inspect.Parameter(
        "sdf", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="pyspark.sql.DataFrame"
    ),
    data_doc=(
        "sdf\n"
        "    The Spark frame: only the columns read are selected; each partition's Arrow\n"
        "    batches become Polars frames on the executors (``mapInArrow``)."
    ),
    prepare=lambda sdf, columns: (sdf, spark_engine.schema(sdf, columns), None),
    run=spark_engine.run,
    chunk_rows=lambda: CHUNK_ROWS,
    rank=spark_engine.ranked,
    release=spark_engine.release,
    stub_lines=("CHUNK_ROWS: int", "__all__: list[str]"),
)
globals().update(declared.functions(_ENGINE))

#: The public functions and the executors' chunk size (``from pl_metrics.spark import
#: *``, ``dir``, ``help``): not the names this module imports.
__all__ = ["CHUNK_ROWS"]
__all__ += list(declared.DECLARED)


def __dir__() -> list[str]:
    """``dir(pl_metrics.spark)``: :data:`__all__` (PEP 562)."""
    return sorted(__all__)
