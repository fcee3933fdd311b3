"""The installed package's version, from its metadata (``pyproject.toml``'s, once
installed): one home for it, read by ``pl_metrics.__version__``, the CLI and the
HTML report's footer."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def _installed() -> str:
    try:
        return version("pl_metrics")
    except PackageNotFoundError:  # a source tree on sys.path, not installed
        return "0+unknown"


VERSION = _installed()
