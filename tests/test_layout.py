"""The library's layout (issue 28): small modules and no import circle.

- no module of ``pl_metrics`` is over :data:`MOST_LINES` lines (CONTRIBUTING.md, "How
  the code is written": modules small and named for what they hold);
- the modules' import-time imports (top level, outside ``if TYPE_CHECKING:``; those
  inside functions run later and are left out) make no circle: each module can be
  read, and imported, after the ones it names;
- every Markdown page the project cites is in the repository (issue 49: the code
  and CONTRIBUTING.md cited a style page of the task's shared folder, which
  contributors do not have).
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "pl_metrics"
MOST_LINES = 700


def _modules() -> dict[str, Path]:
    """``{dotted name: file}`` of every module and package of ``pl_metrics``."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports_at_import_time(name: str, path: Path) -> set[str]:
    """The modules of ``pl_metrics`` that ``name`` imports when it is imported: a
    ``from package import module`` names the module, ``from module import x`` the
    module (relative imports resolved)."""
    named: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    package = name.split(".")[: -node.level]
                    if path.name == "__init__.py":  # a package's own name is its level 1
                        package = name.split(".")[: len(name.split(".")) - node.level + 1]
                    base = ".".join([*package, *([node.module] if node.module else [])])
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    named.add(full if full in MODULES else base)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return {m for m in named if m in MODULES and m != name}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start, children_of_start in graph.items():
        if start in index:
            continue
        work = [(start, iter(sorted(children_of_start)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_the_line_limit(name: str) -> None:
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MOST_LINES, f"{MODULES[name]} has {lines} lines (at most {MOST_LINES})"


def test_the_imports_make_no_circle() -> None:
    graph = {name: _imports_at_import_time(name, path) for name, path in MODULES.items()}
    assert sum(map(len, graph.values())) > 100  # the imports were read
    assert graph["pl_metrics._namespace.scoring"] >= {
        "pl_metrics._core.table_options",
        "pl_metrics._ranking.gains",
    }
    assert _circles(graph) == []


def test_a_circle_is_found() -> None:
    # the finder itself: a -> b -> c -> a is one circle, d -> a none
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [["a", "b", "c"]]


# ------------------------------------------------------------------------------ layers
#: The layers, lowest first: a part of the library (a top-level module or package of
#: ``pl_metrics``) imports only from lower layers or its own part, at import time, in
#: a function or for types alike (issue 50).  Declarations and the row stage at the
#: bottom (``_core``), the statistics the domains share (``_stats``: z, Wilson, DeLong,
#: the AP's delta moments), the domains' metrics above them (the multilabel domain on the
#: single-label ones), intervals above the domains, the calls built of several
#: metrics (``compare``, ``over_time``, ``check``, the report) above those, the
#: façade and the public modules on top.
LAYERS: dict[str, float] = {
    **dict.fromkeys(("exceptions", "_typing", "_version"), 0),
    "_core": 1,
    "_stats": 1.5,
    **dict.fromkeys(("_classification", "_probability", "_ranking", "_drift", "_expr"), 2),
    "plot": 2,
    "_multilabel": 2.5,
    "_intervals": 3,
    **dict.fromkeys(("_groups", "_report"), 4),
    "_monitoring": 4.5,
    **dict.fromkeys(("_namespace", "state", "expr"), 5),
    "pl_metrics": 6,  # the package itself: pl_metrics/__init__.py
    **dict.fromkeys(("cli", "_engines"), 7),
    **dict.fromkeys(("__main__", "spark", "dask"), 8),
}
#: The arrows that still go up, each with its reason: the list only shrinks (none
#: left: the report and check reach the namespace through ``lf.metrics``, handed in).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pl_metrics"


def _every_import(name: str, path: Path) -> set[str]:
    """The parts of ``pl_metrics`` that module ``name`` imports anywhere (at import
    time, inside functions, under ``TYPE_CHECKING``)."""
    parts = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == "pl_metrics":
                parts |= {
                    a.name if f"pl_metrics.{a.name}" in MODULES else "pl_metrics"
                    for a in node.names
                }
            elif node.module.startswith("pl_metrics."):
                parts.add(_part(node.module))
        elif isinstance(node, ast.Import):
            parts |= {_part(a.name) for a in node.names if a.name.startswith("pl_metrics.")}
    return parts - {_part(name)}


def test_every_part_has_a_layer() -> None:
    assert {_part(name) for name in MODULES} == set(LAYERS)


def test_imports_go_down_the_layers() -> None:
    upward = set()
    for name, path in MODULES.items():
        if name == "pl_metrics":
            continue
        for part in _every_import(name, path):
            if LAYERS[part] >= LAYERS[_part(name)]:
                upward.add((name, part))
    assert upward - KNOWN_UPWARD == set(), "an import up the layers (tests/test_layout.py)"
    assert KNOWN_UPWARD - upward == set(), "a known arrow is gone: drop it from KNOWN_UPWARD"


# ------------------------------------------------------------------------- import names
#: The one alias of a module of ``pl_metrics`` that is not imported under its own name
#: (issue 50: one name per module).  Every other module is imported under its name
#: (``from pl_metrics._core import checks`` then ``checks.by_names(...)``); a module
#: listed here under its name or this alias, never another.  Each entry says why its
#: name cannot be used everywhere.
MODULE_ALIASES = {
    # the public modules: the names the documentation teaches users (README, docs/)
    "pl_metrics": "plm",
    "pl_metrics.plot": "plp",
    "pl_metrics.spark": "pms",  # `spark` is the SparkSession in the Spark tests
    "pl_metrics.dask": "pmd",
    # a public name in a module that imports it is the module's name
    "pl_metrics._ranking.from_counts": "ranking_from_counts",  # pl_metrics.state.from_counts
    "pl_metrics._ranking.thresholds": "ranking_thresholds",  # the engines' `thresholds`
    "pl_metrics._groups.fairness": "groups_fairness",  # the engines' `fairness`
    "pl_metrics._multilabel.state": "multilabel_state",  # MultilabelCountsState(state)
    # two modules of one name, each also a public name (the module pl_metrics.state and
    # the merged `state` argument of the engines; the `metrics=` argument)
    "pl_metrics._drift.state": "drift_state",
    "pl_metrics._drift.metrics": "drift_metrics",  # over_time(metrics=) imports it
    "pl_metrics._multilabel.metrics": "multilabel_metrics",
    # `spark` is the SparkSession of the Spark tests; both are the public modules' names
    "pl_metrics._engines.spark": "spark_engine",
    "pl_metrics._engines.dask": "dask_engine",
    # the engines' public `drift` function is the module's name
    "pl_metrics._engines.drift": "engine_drift",
    # two modules named `estimated` (the engines' plan, the frame method's): the engines'
    # is the one renamed
    "pl_metrics._engines.estimated": "engine_estimated",
}


def _module_imports(path: Path, package: str = "") -> list[tuple[int, str, str]]:
    """``(line, module, bound name)`` of each import in ``path`` (anywhere: at the top,
    in a function, under ``TYPE_CHECKING``) that binds a module of ``pl_metrics``: a
    ``from package import module [as name]``, relative ones resolved, or an
    ``import pl_metrics.x.y as name`` (a plain ``import pl_metrics.x`` binds
    ``pl_metrics``).  ``package``: the file's package (by default, from its path)."""
    if not package:
        package = ".".join(path.resolve().relative_to(ROOT.parent).parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, a.asname) for a in node.names if a.asname]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([node.module] if node.module else [])])
            found += [(node.lineno, f"{base}.{a.name}", a.asname or a.name) for a in node.names]
    return [(line, module, bound) for line, module, bound in found if module in MODULES]


def _misnamed_imports(files: list[Path], package: str = "") -> list[str]:
    """The imports of a module of ``pl_metrics`` under another name than its own (the
    file's name) and its one alias of :data:`MODULE_ALIASES`."""
    wrong = []
    for path in files:
        for line, module, bound in _module_imports(path, package):
            allowed = sorted(filter(None, {module.rsplit(".", 1)[-1], MODULE_ALIASES.get(module)}))
            if bound not in allowed:
                wrong.append(f"{path.name}:{line}: {module} as {bound} (allowed: {allowed})")
    return wrong


def _python_files() -> list[Path]:
    return sorted([*ROOT.rglob("*.py"), *(ROOT.parent / "tests").rglob("*.py")])


def test_each_module_is_imported_under_its_one_name() -> None:
    """One module, one name (issue 50): ``from pl_metrics._core import checks`` then
    ``checks.by_names(...)``, in the library and the tests alike, or the module's one
    alias listed in :data:`MODULE_ALIASES`."""
    imports = [i for path in _python_files() for i in _module_imports(path)]
    assert len(imports) > 300  # the imports were read
    assert _misnamed_imports(_python_files()) == []


def test_the_alias_table_is_one_to_one_and_in_use() -> None:
    assert set(MODULE_ALIASES) <= set(MODULES)
    aliases = list(MODULE_ALIASES.values())
    assert len(set(aliases)) == len(aliases), "one alias names two modules"
    names = {m.rsplit(".", 1)[-1] for m in MODULES}
    assert not names & set(aliases), "an alias is another module's name"
    used = {(m, bound) for path in _python_files() for _, m, bound in _module_imports(path)}
    unused = {m for m, alias in MODULE_ALIASES.items() if (m, alias) not in used}
    assert unused == set(), "an alias no import uses: drop it from MODULE_ALIASES"


def test_a_misnamed_import_is_found(tmp_path: Path) -> None:
    # the finder itself, on a file of pl_metrics/_core's
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from pl_metrics._core import checks as v\n"  # an alias: wrong
        "from pl_metrics._core import formulas\n"  # its name
        "from . import scores as sc\n"  # relative, an alias: wrong
        "from pl_metrics import spark as pms\n"  # the listed alias
        "import pl_metrics.plot as pp\n"  # not the listed alias: wrong
        "from pl_metrics._core.checks import by_names as bn\n"  # a function, not a module
        "def f():\n    from pl_metrics._ranking import gains as _gains\n",  # in a function
        encoding="utf-8",
    )
    got = _misnamed_imports([probe], package="pl_metrics._core")
    assert sorted(g.split(": ", 1)[1].split(" (")[0] for g in got) == [
        "pl_metrics._core.checks as v",
        "pl_metrics._core.scores as sc",
        "pl_metrics._ranking.gains as _gains",
        "pl_metrics.plot as pp",
    ]


#: Pages the files name that are not meant to be in the repository: ``page.md`` is the
#: file tests/test_docs.py writes; ``../shared/`` is outside the project (the task's
#: contract, cited as the origin of a rule).
NOT_PAGES = {"page.md"}
#: Files that record the project's history, where a page that is gone may be named.
HISTORY = {"docs/changelog.md"}


def test_every_page_cited_is_in_the_repository() -> None:
    """A page cited by name (``CONTRIBUTING.md``, ``docs/scaling.md``, ``faq.md#bins``) is a
    tracked Markdown file: what contributors need lives where they can read it."""
    repo = ROOT.parent
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.split()
    pages = {Path(f).name for f in tracked if f.endswith(".md")}
    assert {"CONTRIBUTING.md", "scaling.md"} <= pages
    missing = set()
    for file in tracked:
        if not file.endswith((".py", ".md", ".toml", ".cfg", ".txt")) or file.startswith("shared/"):
            continue
        if file in HISTORY:
            continue
        text = (repo / file).read_text(encoding="utf-8", errors="replace")
        for cited in re.findall(r"(?<![\w/.])((?:\.\./)?[\w./-]*?[\w-]+\.md)\b", text):
            if cited.startswith("../") or Path(cited).name in NOT_PAGES:
                continue
            if Path(cited).name not in pages:
                missing.add((file, cited))
    assert not missing, sorted(missing)
