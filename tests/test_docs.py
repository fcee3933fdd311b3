"""Every code block of README.md and docs/*.md runs as written.

The rules a page follows (and this file checks):

- A block is fenced and says what it is: ```python (runs), ```console / ```bash
  (shell commands), ```text (output, schemas, anything that is not code). An
  indented (4-space) code block, a fence without a language or another language
  fails: the harness could not tell whether it runs.
- The ```python blocks of a page run in order, in one namespace, with the
  current directory a fresh temporary one holding ``examples/`` (the repository's
  examples: ``examples/predictions.parquet``). As in a REPL, the value of a block's
  final expression is printed. When a ```text block follows a ```python block
  (nothing but blank lines between), the block prints exactly that text.
- Shell blocks: in ```console, the lines starting with ``$ `` are commands (a
  trailing backslash continues one); in ```bash, every line that is not blank or a
  comment. ``pl-metrics ...`` runs as ``pl_metrics.cli.main(shlex.split(...))`` at
  its place in the page and must return 0. Any other command cannot run inside the
  suite (it builds environments, runs the suite or the benchmarks) and must match
  one pattern of ``NOT_RUN``; a command matching none fails, and so does a pattern
  no page uses.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from pl_metrics.cli import main as cli_main

ROOT = Path(__file__).parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Shell commands the docs show that cannot run inside the test suite: each one
# builds a virtual environment, installs packages, runs the suite or a benchmark.
NOT_RUN: dict[str, str] = {
    r"make (demo|test|docs|bench|bench-big)": "builds venvs, runs the suite or benchmarks",
    r"pip install \S+": "installs packages",
    r"(POLARS_MAX_THREADS=\d+ )?\.venv/bin/python benchmarks/[a-z_]+\.py( .*)?": (
        "benchmarks take minutes"
    ),
    r"python docs/make_images\.py": "renders the site's images (the suite runs charts.md itself)",
}

PYTHON = "python"
TEXT = "text"
SHELL = ("console", "bash")


@dataclass
class Block:
    """One fenced block of a page."""

    kind: str
    code: str
    line: int  # 1-based line of the opening fence
    output: str | None = None  # the ```text block right after a python block


def _fences(page: Path) -> list[Block]:
    lines = page.read_text().splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = re.match(r"^(\s*)```(.*)$", lines[i])
        if opening is None:
            i += 1
            continue
        indent, kind = opening.group(1), opening.group(2).strip()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        if j == len(lines):
            msg = f"{page.name}:{i + 1}: a ``` fence is never closed"
            raise AssertionError(msg)
        blocks.append(Block(kind, "\n".join(body) + "\n", i + 1))
        i = j + 1
    return blocks


def _indented_code(page: Path) -> list[int]:
    """Lines opening a 4-space indented code block (outside fences)."""
    found: list[int] = []
    inside = False
    previous = ""
    for number, line in enumerate(page.read_text().splitlines(), start=1):
        if line.lstrip().startswith("```"):
            inside = not inside
        elif not inside and line.startswith("    ") and line.strip() and not previous.strip():
            found.append(number)
        previous = line
    return found


def _blocks(page: Path) -> list[Block]:
    """The page's blocks, each ```text block right after a python one as its output."""
    text = page.read_text().splitlines()
    blocks: list[Block] = []
    for block in _fences(page):
        last = blocks[-1] if blocks else None
        if block.kind == TEXT and last is not None and last.kind == PYTHON:
            end = last.line + last.code.count("\n") + 1  # 1-based line of its closing fence
            between = text[end : block.line - 1]
            if all(not line.strip() for line in between) and last.output is None:
                last.output = block.code
                continue
        blocks.append(block)
    return blocks


def _run_python(code: str, namespace: dict[str, object], name: str) -> str:
    tree = ast.parse(code, name)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        body = tree.body
        if body and isinstance(body[-1], ast.Expr):
            exec(compile(ast.Module(body[:-1], []), name, "exec"), namespace)
            value = eval(compile(ast.Expression(body[-1].value), name, "eval"), namespace)
            if value is not None:
                print(value)
        else:
            exec(compile(tree, name, "exec"), namespace)
    return out.getvalue()


def _commands(block: Block) -> list[str]:
    """The commands of a shell block, continuation lines joined."""
    commands: list[str] = []
    pending: str | None = None
    for raw in block.code.splitlines():
        line = raw.rstrip()
        if pending is not None:
            line = pending + " " + line.strip()
            pending = None
        elif block.kind == "console":
            if not line.startswith("$ "):
                continue  # output shown under a command
            line = line[2:]
        elif not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        commands.append(shlex.join(shlex.split(line, comments=True)))
    assert pending is None, f"a shell block ends with a continuation line:\n{block.code}"
    return commands


def _not_run_pattern(command: str) -> str | None:
    for pattern in NOT_RUN:
        if re.fullmatch(pattern, command):
            return pattern
    return None


def _run_command(command: str, where: str) -> None:
    argv = shlex.split(command)
    if argv[0] != "pl-metrics":
        assert _not_run_pattern(command) is not None, (
            f"{where}: the command {command!r} neither runs here (pl-metrics ...) nor is "
            "in NOT_RUN of tests/test_docs.py; add it there only if it cannot run in the suite"
        )
        return
    assert not {"|", ">", "<", "&&", ";"} & set(argv), f"{where}: shell operators in {command!r}"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli_main(argv[1:])
    assert status == 0, f"{where}: {command!r} exited {status}: {err.getvalue()}"


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.fixture
def in_example_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_block_is_fenced_and_says_what_it_is(page: Path) -> None:
    assert not _indented_code(page), (
        f"{_page_id(page)}: indented code blocks at lines {_indented_code(page)}: fence them "
        "(```python, ```console or ```text)"
    )
    for block in _fences(page):
        assert block.kind in (PYTHON, TEXT, *SHELL), (
            f"{_page_id(page)}:{block.line}: a ```{block.kind} block: the harness runs "
            "```python, ```console and ```bash blocks; anything else is ```text"
        )


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_block_runs_and_prints_what_the_page_shows(page: Path, in_example_dir: Path) -> None:
    blocks = _blocks(page)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    with pl.Config(restore_defaults=True):
        for number, block in enumerate(blocks, start=1):
            where = f"{_page_id(page)}, block {number} (line {block.line})"
            if block.kind == PYTHON:
                printed = _run_python(block.code, namespace, f"<{where}>")
                if block.output is not None:
                    assert printed.rstrip("\n") == block.output.rstrip("\n"), (
                        f"{where} prints\n{printed}\nbut the page shows\n{block.output}"
                    )
            elif block.kind in SHELL:
                for command in _commands(block):
                    _run_command(command, where)


def test_every_not_run_pattern_is_used_and_no_other_command_is_skipped() -> None:
    used: set[str] = set()
    for page in PAGES:
        for block in _blocks(page):
            if block.kind in SHELL:
                for command in _commands(block):
                    if not command.startswith("pl-metrics"):
                        pattern = _not_run_pattern(command)
                        assert pattern is not None, f"{_page_id(page)}:{block.line}: {command!r}"
                        used.add(pattern)
    assert set(NOT_RUN) == used, f"NOT_RUN patterns no page uses: {set(NOT_RUN) - used}"


def test_the_harness_compares_outputs_and_fails_on_unknown_commands(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nx = 1 + 1\nx\n```\n\n```text\n3\n```\n\nprose\n\n"
        "```console\n$ rm -rf \\\n    build\n```\n\n    indented\n"
    )
    (python,) = [b for b in _blocks(page) if b.kind == PYTHON]
    assert python.output == "3\n"
    assert _run_python(python.code, {}, "<t>") == "2\n"
    (shell,) = [b for b in _blocks(page) if b.kind in SHELL]
    assert _commands(shell) == ["rm -rf build"]
    with pytest.raises(AssertionError, match="NOT_RUN"):
        _run_command("rm -rf build", "t")
    assert _indented_code(page) == [len(page.read_text().splitlines())]
