"""Type aliases shared by the public API (one place for every ``Literal``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypeAlias

import polars as pl

#: Averages produced by :meth:`averages` / :meth:`report`, in output order.
Average = Literal["micro", "macro", "weighted"]
#: Averages accepted by the multiclass ROC AUC.
AucAverage = Literal["macro", "weighted"]
#: How ``ci=`` intervals are computed.
CiMethod = Literal["bootstrap", "wilson", "delong"]
#: Multiclass ROC AUC strategies.
MultiClass = Literal["ovr", "ovo"]

#: A column given by name or as an expression.
IntoColumn: TypeAlias = str | pl.Expr
#: The ``by=`` argument: nothing, one column name or expression, or several.
By: TypeAlias = str | pl.Expr | Sequence[str | pl.Expr] | None
#: The ``labels=`` argument.
Labels: TypeAlias = Sequence[object] | pl.Series | None
#: The ``y_score=`` argument: one column (binary) or ``{label: column}`` (multiclass).
Score: TypeAlias = str | Mapping[object, str]
