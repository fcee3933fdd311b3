"""A rule on a method's arguments: the record that :mod:`pl_metrics._core.arguments`
(the methods' rules) and :mod:`pl_metrics._core.stage_rules` (the stages') declare, and
that :func:`pl_metrics._core.options.checked` runs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """A rule on arguments ``reads`` of a method: ``breaks`` (called with their values,
    in that order) says whether a call breaks it, ``message`` (a text, or called like
    ``breaks``) says why, naming them; ``error``: ``ValueError``, or ``TypeError`` for a wrong
    kind of value."""

    reads: tuple[str, ...]
    breaks: Callable[..., bool]
    message: str | Callable[..., str]
    error: type[ValueError] | type[TypeError] = ValueError

    def check(self, values: Mapping[str, object]) -> None:
        """Raise when ``values`` (holding every argument the rule reads) break it."""
        given = [values[name] for name in self.reads]
        if self.breaks(*given):
            msg = self.message if isinstance(self.message, str) else self.message(*given)
            raise self.error(msg)


__all__ = ["Rule"]
