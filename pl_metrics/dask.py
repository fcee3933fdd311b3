"""Distributed evaluation on Dask: states per partition (or Parquet file) on the
workers, merged in a tree, finished here.

Needs the optional extra ``pl_metrics[dask]``.  Every ``.metrics`` method whose result
is a function of a mergeable state has a function here of the same name and
arguments, the data first and ``client`` / ``split_every`` last
(:mod:`pl_metrics._engines.declared` makes them from the state finishers, as
:mod:`pl_metrics.spark`'s).  The data is a ``dask.dataframe.DataFrame`` (derived
columns included: each partition is converted to polars on its worker) or Parquet
path(s) (each file read by polars on a worker).  Each shard computes the small
mergeable state (``.metrics.counts``, ``.metrics.score_counts``,
``.metrics.multilabel_counts``); the states are merged ``split_every`` at a time where
they were made; the client finishes the metrics with the state finishers - the same
functions as on one machine::

    import dask.dataframe as dd
    import pl_metrics.dask as pmd

    ddf = dd.read_parquet("s3://bucket/preds/")
    ddf["y_pred"] = (ddf["score"] > 0.5).astype("int64")
    pmd.report(ddf, "y_true", "y_pred", by="country")

``client=None`` uses the current ``distributed`` client when there is one
(``distributed.get_client()``), else Dask's default scheduler (``dask.compute``).
"""

from __future__ import annotations

import inspect

from pl_metrics._engines import dask as dask_engine
from pl_metrics._engines import declared
from pl_metrics._engines.dask import expand

_P = inspect.Parameter
_ENGINE = declared.Engine(
    name="Dask",
    module=__name__,
    data=_P(
        "data",
        _P.POSITIONAL_OR_KEYWORD,
        annotation="dask.dataframe.DataFrame | str | Path | Sequence[str | Path]",
    ),
    data_doc=(
        "data\n"
        "    A ``dask.dataframe.DataFrame`` (each partition converted to polars on its\n"
        "    worker; only the columns read are computed), or Parquet path(s): a file, a\n"
        "    glob, a directory (its ``**/*.parquet``) or a list of those, each file once."
    ),
    prepare=dask_engine.prepare,
    run=dask_engine.run,
    rank=dask_engine.ranked,
    release=dask_engine.release,
    stub_lines=(
        "Paths = str | Path | Sequence[str | Path]",
        "__all__: list[str]",
        "",
        "def expand(paths: Paths) -> list[str]: ...",
    ),
    stub_imports=("from pathlib import Path",),
    options=(
        _P("client", _P.KEYWORD_ONLY, default=None, annotation="distributed.Client | None"),
        _P("split_every", _P.KEYWORD_ONLY, default=8, annotation="int"),
    ),
    options_doc=(
        "client\n"
        "    A ``distributed.Client``; None: the current client if there is one\n"
        "    (``distributed.get_client()``), else Dask's default scheduler.\n"
        "split_every\n"
        "    How many states one merge task sums (a tree of merges)."
    ),
)
globals().update(declared.functions(_ENGINE))

#: The public functions (``from pl_metrics.dask import *``, ``dir``, ``help``): not the
#: names this module imports.
__all__ = ["expand"]
__all__ += list(declared.DECLARED)


def __dir__() -> list[str]:
    """``dir(pl_metrics.dask)``: :data:`__all__` (PEP 562)."""
    return sorted(__all__)
