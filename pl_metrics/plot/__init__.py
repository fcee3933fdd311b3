"""Charts of the tidy frames (optional extra ``pl_metrics[plot]``: Altair + vl-convert).

Each function takes a frame returned by ``.metrics`` and returns an Altair chart;
``chart.save("x.png")`` / ``.svg`` / ``.html`` writes it.

    import pl_metrics.plot as plp
    plp.roc_curve(df.metrics.roc_curve("y", "score", by="country"), by="country").save("roc.png")

``by`` is a column name or a list of names: one line (or panel, or row) per
combination of their values, labelled ``"north / v1"`` (a null value reads
``"null"``), in the order of the tables (keys sorted, nulls last).  A frame column
that is neither one the chart expects nor named in ``by`` is an error, and so is a
frame whose points repeat within a segment: a chart never merges segments silently.

Charts: :func:`roc_curve` and :func:`pr_curve` (AUC / AP in the legend; one curve
per class of one-vs-rest frames with a ``label`` column), :func:`confusion_matrix`,
:func:`per_class` (dots and intervals on an axis that shows differences),
:func:`reliability`, :func:`threshold_metrics`, :func:`gains`, :func:`forest`
(intervals per segment), :func:`over_time` (with the interval as a band) and
:func:`drift` (the reference's and the current rows' shares per bin).

Long series are thinned for drawing (``_thin``): a curve or a metric's line of
more than :data:`MAX_POINTS` points is drawn from about that many, its ends
exact; a ROC / precision-recall curve keeps its area (within
:data:`AREA_TOLERANCE` of the AUC / AP in its legend, which uses every point).
"""

from __future__ import annotations

from pl_metrics._core.checks import require_plot_extra

require_plot_extra("pl_metrics.plot")  # the error names the extra to install

from pl_metrics.plot._thin import AREA_TOLERANCE, MAX_POINTS  # noqa: E402
from pl_metrics.plot.curves import (  # noqa: E402
    FEW_ROWS,
    gains,
    pr_curve,
    reliability,
    roc_curve,
    threshold_metrics,
)
from pl_metrics.plot.tables import (  # noqa: E402
    confusion_matrix,
    drift,
    forest,
    over_time,
    per_class,
)

__all__ = [
    "AREA_TOLERANCE",
    "FEW_ROWS",
    "MAX_POINTS",
    "confusion_matrix",
    "drift",
    "forest",
    "gains",
    "over_time",
    "per_class",
    "pr_curve",
    "reliability",
    "roc_curve",
    "threshold_metrics",
]

for _chart in (
    confusion_matrix,
    drift,
    forest,
    gains,
    over_time,
    per_class,
    pr_curve,
    reliability,
    roc_curve,
    threshold_metrics,
):
    _chart.__module__ = __name__  # documented and listed as pl_metrics.plot.<name>
del _chart
