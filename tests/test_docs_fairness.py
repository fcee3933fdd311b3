"""docs/fairness.md runs as written: each ```python block, in order and in one
namespace (the value of a final expression is printed, as in a REPL), prints
exactly the ```text block that follows it.  The page can never drift from the
library's numbers."""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).parents[1] / "docs" / "fairness.md"


def _blocks() -> list[tuple[str, str | None]]:
    """(code, the text block right after it, or None) of every python block."""
    parts = re.split(r"(```(?:python|text)\n.*?```\n)", PAGE.read_text(), flags=re.S)
    blocks: list[tuple[str, str | None]] = []
    for part in parts:
        if part.startswith("```python\n"):
            blocks.append((part[len("```python\n") : -4], None))
        elif part.startswith("```text\n") and blocks and blocks[-1][1] is None:
            blocks[-1] = (blocks[-1][0], part[len("```text\n") : -4])
        elif part.strip() and blocks and blocks[-1][1] is None:
            blocks[-1] = (blocks[-1][0], "")  # prose between: the block prints nothing
    return blocks


def _run(code: str, namespace: dict[str, object]) -> str:
    tree = ast.parse(code)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        body = tree.body
        if body and isinstance(body[-1], ast.Expr):
            exec(compile(ast.Module(body[:-1], []), "<docs>", "exec"), namespace)
            value = eval(compile(ast.Expression(body[-1].value), "<docs>", "eval"), namespace)
            if value is not None:
                print(value)
        else:
            exec(compile(tree, "<docs>", "exec"), namespace)
    return out.getvalue()


def test_every_block_of_the_fairness_page_prints_what_the_page_shows() -> None:
    pytest.importorskip("sklearn")
    blocks = _blocks()
    assert len(blocks) > 10
    namespace: dict[str, object] = {}
    for i, (code, shown) in enumerate(blocks):
        printed = _run(code, namespace).rstrip("\n")
        expected = (shown or "").rstrip("\n")
        assert printed == expected, f"block {i} of docs/fairness.md:\n{code}"
