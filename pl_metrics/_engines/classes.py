"""Single-label losses of a merged confusion-counts state on the engines.

``hamming_loss`` and ``zero_one_loss`` of single-label rows are functions of the
confusion counts: the (weighted) rows off the diagonal, over the rows (or their
number, ``zero_one_loss(normalize=False)``).  Each finisher is the frame method's own
computation (``_multilabel.metrics.label_hamming_loss`` / ``label_zero_one_loss``) on
the merged counts; the engines declare them beside the counts state's own finishers
(:mod:`.declared`), and multilabel input keeps the multilabel state's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from pl_metrics._core.options import checked
from pl_metrics._multilabel import metrics as mm
from pl_metrics.state import CountsState


def hamming_loss(state: CountsState[pl.DataFrame]) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.hamming_loss` of single-label rows, of a merged
    confusion-counts state: 1 - accuracy."""
    return mm.label_hamming_loss(state._counts(None, "hamming_loss"))


def zero_one_loss(state: CountsState[pl.DataFrame], *, normalize: bool = True) -> pl.LazyFrame:
    """As :meth:`MetricsLazyFrame.zero_one_loss` of single-label rows, of a merged
    confusion-counts state: the share (or number, ``normalize=False``) of rows
    predicted wrong."""
    (normalize,) = checked("zero_one_loss", normalize=normalize)
    counts = state._counts(None, "zero_one_loss")
    return mm.label_zero_one_loss(counts, normalize=normalize)


#: The finishers above, by the frame method they equal.
COUNTS_FINISHERS: dict[str, Callable[..., Any]] = {
    f.__name__: f for f in (hamming_loss, zero_one_loss)
}
