"""The one error of the command line and the parser that raises it."""

from __future__ import annotations

import argparse
from typing import NoReturn


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 2, no usage dump
        raise UsageError(message)
