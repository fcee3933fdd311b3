"""A copy of ``pl_metrics/`` without its functions' parameter lists and one-line
keyword forwarding, for counting the repeated code outside them (issue 28).

    python3 tools/outside_signatures.py /tmp/outside && duplicates --repo /tmp/outside

CONTRIBUTING.md ("How the code is written") asks for explicit, typed public
methods, and the same operation is offered on a LazyFrame, a DataFrame, a state,
Dask, Spark and as an expression:
their parameter lists (``by: By = None, weight: str | None = None, ...``) and the
calls that hand those parameters on (``by=by,``) repeat by design, and a
duplicate finder counts each pair of them.  This copy blanks exactly those lines
(a blank line in their place, so line numbers are the originals'): the lines
between a ``def`` and its body, and a line that is nothing but ``name=name,``.
Everything else (bodies, docstrings, messages) is kept and counted.
"""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "pl_metrics"


def blanked_lines(source: str) -> set[int]:
    """The 0-based numbers of the lines to blank in ``source``."""
    lines = source.splitlines()
    blank: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # the parameter lines: after the ``def`` line, before the body (or docstring)
            blank.update(range(node.lineno, node.body[0].lineno - 1))
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                forwarded = isinstance(keyword.value, ast.Name) and keyword.value.id == keyword.arg
                line = keyword.lineno - 1
                if forwarded and lines[line].strip() == f"{keyword.arg}={keyword.arg},":
                    blank.add(line)
    return blank


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1]) / "pl_metrics"
    if out.exists():
        shutil.rmtree(out)
    for path in sorted(ROOT.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        blank = blanked_lines(source)
        kept = ["" if i in blank else line for i, line in enumerate(source.splitlines())]
        target = out / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n".join(kept) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
