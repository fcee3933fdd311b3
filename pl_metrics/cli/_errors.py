"""The one error of the command line and the parser that raises it."""

from __future__ import annotations

import argparse
from typing import NoReturn


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


def first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (its type's name if it has none): what the
    command prints of an error, never a traceback."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2, no usage dump
        raise UsageError(message)
