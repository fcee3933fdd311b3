"""The two backends of the formulas, and the class averages written once for both.

A formula of :mod:`pl_metrics._core.formulas` takes its counts as polars
expressions or numpy arrays and ``xp``, :data:`POLARS` or :data:`NUMPY`: the few
operations whose spelling differs (a ratio with its undefined case, a choice, a
square root...) and :func:`class_averages`, the macro and weighted means of a
per-class score over the classes.  ``formulas`` re-exports every name here.
"""

from __future__ import annotations

from typing import Any, Protocol

import polars as pl


class Backend(Protocol):
    """What a formula needs beyond arithmetic."""

    def ratio(self, numerator: Any, denominator: Any, zero_division: float) -> Any:
        """``numerator / denominator`` as float, ``zero_division`` where the denominator is 0."""

    def where(self, condition: Any, then: Any, otherwise: Any) -> Any:
        """Element-wise choice."""

    def sqrt(self, x: Any) -> Any:
        """Square root."""

    def to_float(self, x: Any) -> Any:
        """Counts as Float64 (before products: integer counts may overflow)."""

    def log(self, x: Any) -> Any:
        """Natural logarithm."""

    def exp(self, x: Any) -> Any:
        """Exponential."""

    def class_averages(
        self, values: Any, support: Any, skip_nan: bool, integer: bool
    ) -> tuple[Any, Any]:
        """:func:`class_averages` in this backend."""


class _Polars:
    def ratio(self, numerator: pl.Expr, denominator: pl.Expr, zero_division: float) -> pl.Expr:
        den = self.to_float(denominator)
        return (
            pl.when(den == 0)
            .then(pl.lit(zero_division, pl.Float64))
            .otherwise(self.to_float(numerator) / den)
        )

    def where(self, condition: pl.Expr, then: Any, otherwise: Any) -> pl.Expr:
        return pl.when(condition).then(then).otherwise(otherwise)

    def sqrt(self, x: pl.Expr) -> pl.Expr:
        return x.sqrt()

    def to_float(self, x: Any) -> pl.Expr:
        return x.cast(pl.Float64) if isinstance(x, pl.Expr) else pl.lit(float(x), pl.Float64)

    def log(self, x: pl.Expr) -> pl.Expr:
        return x.log()

    def exp(self, x: pl.Expr) -> pl.Expr:
        return x.exp()

    def class_averages(
        self, values: pl.Expr, support: pl.Expr, skip_nan: bool, integer: bool
    ) -> tuple[pl.Expr, pl.Expr]:
        kept = values.fill_nan(None) if skip_nan else values
        weights = pl.when(kept.is_not_null()).then(support) if skip_nan else support
        fixed = _fixed(kept)
        n = kept.count()
        macro = pl.when(n > 0).then(fixed.sum().cast(pl.Float64) / _SCALE / n).otherwise(_NAN)
        if integer:
            weighted_sum = (fixed * weights.cast(pl.Int128)).sum().cast(pl.Float64) / _SCALE
        else:
            weighted_sum = (kept * weights).sum()
        total = weights.sum().cast(pl.Float64)
        return macro, pl.when(total > 0).then(weighted_sum / total).otherwise(macro)


class _Numpy:
    def ratio(self, numerator: Any, denominator: Any, zero_division: float) -> Any:
        import numpy as np

        numerator, denominator = np.broadcast_arrays(numerator, denominator)
        out = np.full(numerator.shape, zero_division, dtype=np.float64)
        return np.divide(numerator, denominator, out=out, where=denominator != 0)

    def where(self, condition: Any, then: Any, otherwise: Any) -> Any:
        import numpy as np

        return np.where(condition, then, otherwise)

    def sqrt(self, x: Any) -> Any:
        import numpy as np

        return np.sqrt(np.maximum(x, 0.0))

    def to_float(self, x: Any) -> Any:
        import numpy as np

        return np.asarray(x, dtype=np.float64)

    def log(self, x: Any) -> Any:
        import numpy as np

        return np.log(x)

    def exp(self, x: Any) -> Any:
        import numpy as np

        with np.errstate(over="ignore"):  # inf: the limit the formulas here expect
            return np.exp(x)

    def class_averages(
        self, values: Any, support: Any, skip_nan: bool, integer: bool
    ) -> tuple[Any, Any]:
        import numpy as np

        if skip_nan:
            kept = ~np.isnan(values)
            values = np.where(kept, values, 0.0)
            n = kept.sum(axis=-1)
            support = np.where(kept, support, 0)
        else:
            n = values.shape[-1]
        total = support.sum(axis=-1)
        macro = self.ratio(values.sum(axis=-1), n, _NAN)
        weighted = self.ratio((values * support).sum(axis=-1), total, 0.0)
        return macro, np.where(total > 0, weighted, macro)


POLARS: Backend = _Polars()
NUMPY: Backend = _Numpy()
_NAN = float("nan")
#: polars sums a score over classes exactly: each score (in [-1, 1]) as an Int128 count
#: of 2^-62 (within 2^-63 of it), whole counts multiplied in Int128, so that a
#: segment's averages do not depend on the order of its class rows (row order,
#: threads, merged states) and carry one rounding, at the end.
_SCALE = 2.0**62


def _fixed(score: pl.Expr) -> pl.Expr:
    """A score in [-1, 1] as an Int128 count of 2^-62.  A NaN (a score of counts that
    a data check refuses, e.g. weights whose sums overflow) is null here, so that the
    check's error is the one raised, not the cast's."""
    return (score * _SCALE).round().fill_nan(None).cast(pl.Int128)


def class_averages(
    values: Any, support: Any, *, skip_nan: bool, integer: bool = True, xp: Backend = POLARS
) -> tuple[Any, Any]:
    """The macro and the support-weighted mean of a per-class score over the classes:
    scikit-learn's ``_nanaverage``.  With ``skip_nan`` (``zero_division=nan``, the
    only way a score is NaN) the NaN values are left out; the macro mean is NaN
    without values, the weighted mean is the macro mean where the kept classes'
    supports sum to 0.

    polars: ``values`` and ``support`` are expressions over a segment's classes (its
    class rows in ``group_by().agg()``, or a list's elements in ``list.eval``), the
    means aggregations, the sums exact (``_SCALE``; ``integer``: ``support`` holds
    whole counts, multiplied in Int128; else the weighted sum in Float64).  numpy:
    arrays with the classes on the last axis, summed in their order (``integer``
    unused).  One home for the averages of the frame methods, the expressions and
    the bootstrap replicates; the two backends agree to the last bits
    (``tests/test_classification.py``).
    """
    return xp.class_averages(values, support, skip_nan, integer)
