"""Exceptions raised by pl_metrics for bad data.

Bad *options* raise :class:`ValueError`; bad *schemas* raise polars'
:class:`~polars.exceptions.ColumnNotFoundError` / :class:`~polars.exceptions.SchemaError`;
bad *rows* (nulls, NaN or infinite scores, negative weights) raise :class:`DataError`.
"""

from __future__ import annotations


class DataError(ValueError):
    """Rows that no metric can be computed from (nulls, NaN, negative weights).

    The message names the column and how many rows are bad.  It is a
    :class:`ValueError`, so ``except ValueError`` catches it too.
    """
