"""Each method's docstring says the columns it returns (issue 50: "a test checks each
method's docstring ``Returns`` against its outputs").

The columns after ``*by`` of each frame method are declared once, in
:data:`pl_metrics._core.names.OUTPUTS`; the ``Returns`` section of its docstring (what
``help()`` and the API page show) names each of them, so that a column added to a
method's output without a word in its documentation fails here.
"""

from __future__ import annotations

import inspect
import re

import pytest

from pl_metrics import MetricsLazyFrame
from pl_metrics._core import names


def _returns_section(doc: str | None) -> str:
    """The text of a numpy docstring's ``Returns`` section (to the next section)."""
    text = inspect.cleandoc(doc or "")
    found = re.search(r"^Returns\n-+\n(.*?)(?=^\w[\w ]*\n-+\n|\Z)", text, re.MULTILINE | re.DOTALL)
    return found.group(1) if found else ""


def _methods() -> list[str]:
    return sorted(m for m in names.OUTPUTS if hasattr(MetricsLazyFrame, m))


@pytest.mark.parametrize("method", _methods())
def test_the_returns_section_names_each_output_column(method: str) -> None:
    section = _returns_section(getattr(MetricsLazyFrame, method).__doc__)
    assert section, f"{method}: no Returns section"
    missing = [
        column
        for column in names.OUTPUTS[method]
        if "{" not in column and not re.search(rf"(?<![\w]){re.escape(column)}(?![\w])", section)
    ]
    assert not missing, f"{method}'s docstring Returns does not name {missing}"


def test_the_section_reader_reads_only_the_returns_section() -> None:
    doc = """Summary.

    Returns
    -------
    LazyFrame
        ``*by, a, b``.

    Notes
    -----
    c is here.
    """
    assert "a, b" in _returns_section(doc)
    assert "c is here" not in _returns_section(doc)
