"""What every namespace method shares: the eager twins (the interval options are
:func:`pl_metrics._core.checks.wants_ci`, shared with the state finishers)."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

import polars as pl

P = ParamSpec("P")
L = TypeVar("L")
L_co = TypeVar("L_co", covariant=True)
R = TypeVar("R")


class Eager(Protocol[L_co]):
    """A DataFrame namespace: the same rows as a LazyFrame namespace, ``_lazy``."""

    @property
    def _lazy(self) -> L_co: ...


def eager(
    lazy_method: Callable[Concatenate[L, P], pl.LazyFrame],
) -> Callable[Concatenate[Eager[L], P], pl.DataFrame]:
    """The DataFrame twin of a LazyFrame method: ``df.lazy().metrics.<m>(...).collect()``.

    The one mechanism for every eager method: same parameters, same checks,
    same docstring but for its Returns section, which names a DataFrame
    (:func:`eager_doc`).  Typed with the lazy method's parameters (``ParamSpec``),
    so that a type checker sees ``plm.metrics(df).report(...)`` take what
    ``report`` takes and return a DataFrame.
    """

    @functools.wraps(lazy_method)
    def method(self: Eager[L], /, *args: P.args, **kwargs: P.kwargs) -> pl.DataFrame:
        return lazy_method(self._lazy, *args, **kwargs).collect()

    method.__doc__ = eager_doc(lazy_method.__doc__, lazy_method.__qualname__)

    # what runtime introspection reads (inspect.signature, typing.get_type_hints)
    signature = inspect.signature(lazy_method)
    method.__signature__ = signature.replace(return_annotation="pl.DataFrame")  # type: ignore[attr-defined]
    method.__annotations__ = {**lazy_method.__annotations__, "return": "pl.DataFrame"}
    return method


#: A numpy docstring's Returns section whose type is a LazyFrame (the indentation of
#: the heading repeated on its underline and its type line).
_RETURNS_LAZY = re.compile(r"(^([ \t]*)Returns\n\2-+\n\2)LazyFrame$", re.MULTILINE)


def eager_doc(doc: str | None, name: str) -> str | None:
    """The docstring of a LazyFrame method with its Returns section's type a DataFrame
    (``help(df.metrics.drift)`` said "LazyFrame" where a DataFrame comes back).

    Every method made eager returns a LazyFrame and says so in one Returns section
    (a ``TypeError`` at import otherwise: a twin whose help would be wrong); no
    docstring (``python -OO``) stays none.
    """
    if doc is None:
        return None
    eager_text, found = _RETURNS_LAZY.subn(r"\1DataFrame", doc)
    if found != 1:
        msg = f"{name}: its docstring needs one 'Returns' section whose type is LazyFrame"
        raise TypeError(msg)
    return eager_text


def same_result(
    lazy_method: Callable[Concatenate[L, P], R],
) -> Callable[Concatenate[Eager[L], P], R]:
    """A DataFrame method whose result is the LazyFrame method's (not a frame).

    For a method such as an HTML page: ``df.metrics.<m>(...)`` is
    ``df.lazy().metrics.<m>(...)``, typed with its parameters and its result.
    """

    @functools.wraps(lazy_method)
    def method(self: Eager[L], /, *args: P.args, **kwargs: P.kwargs) -> R:
        return lazy_method(self._lazy, *args, **kwargs)

    method.__signature__ = inspect.signature(lazy_method)  # type: ignore[attr-defined]
    return method


def derived(
    lf: pl.LazyFrame,
    name: str,
    by: object,
    call: Callable[[object], pl.LazyFrame],
    *,
    ci: bool,
) -> pl.LazyFrame:
    """Metric ``name`` of the catalogue that is computed from another one
    (``catalogue.Affine``: ``gini`` from ``roc_auc``): ``call(by)`` runs the base's
    method, whose columns :func:`~pl_metrics._core.catalogue.derive` maps.

    ``by`` keeps the derived method's own rules: a name among ``name``'s outputs is
    refused (as the base's own outputs are by the base's method), and one among the
    base's outputs only (``roc_auc`` for ``gini``) is a segment like any other: the
    segments run under stand-in names (``names.stand_in_keys``, as compare's and
    the state finisher's), renamed back after."""
    from pl_metrics._core import catalogue, checks, names

    segments = checks.normalize_by(by)
    schema = lf.collect_schema()
    checks.check_by(schema, segments, names.output_columns(name, ci=ci))
    taken = [
        *schema.names(),
        *segments.names,
        *names.output_columns(catalogue.base_of(name), ci=True),
    ]
    inner = names.stand_in_keys(segments, taken)
    given = [e.alias(k) for e, k in zip(segments.exprs, inner, strict=True)]
    result = catalogue.derive(call(given if by is not None else None), name)
    return result.rename(dict(zip(inner, segments.names, strict=True)))
