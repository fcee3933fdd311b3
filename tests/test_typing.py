"""Typed access (issue 15): ``plm.metrics(frame)``, the ``Literal`` types, what mypy sees.

- ``plm.metrics(df)`` / ``plm.metrics(lf)`` is the namespace ``.metrics`` (same
  class, same frames);
- every ``Literal`` of ``pl_metrics._typing`` equals the runtime catalogue that
  lists the same names, and every ``Literal`` parameter of the namespace lists
  exactly the values its method accepts (read from the method's own error);
- ``mypy --strict`` on user code (``tests/typing/``): no error in correct code, the
  revealed types are DataFrame / LazyFrame, and misspelled options and wrong
  argument types are errors.
"""

from __future__ import annotations

import ast
import datetime as dt
import importlib
import inspect
import os
import pydoc
import re
import runpy
import subprocess
import sys
import typing
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pl_metrics as plm
from pl_metrics import MetricsDataFrame, MetricsLazyFrame, _classification, _typing
from pl_metrics._core import catalogue, checks, names
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._groups import over_time, paired
from pl_metrics._namespace._common import eager, eager_doc
from pl_metrics.state import CountsState, ScoreCountsState

ROOT = Path(__file__).resolve().parents[1]
USER = ROOT / "tests" / "typing"
DOCS_PAGE = ROOT / "docs" / "typing.md"
EXAMPLE = pl.read_parquet(ROOT / "examples" / "predictions.parquet")
PROBS = {c: f"p_{c}" for c in ("bird", "cat", "dog", "fish")}


# ---------------------------------------------------------------------- plm.metrics
def test_metrics_is_the_namespace() -> None:
    df = EXAMPLE
    assert type(plm.metrics(df)) is type(df.metrics) is MetricsDataFrame
    assert type(plm.metrics(df.lazy())) is type(df.lazy().metrics) is MetricsLazyFrame


@pytest.mark.parametrize("lazy", [False, True], ids=["DataFrame", "LazyFrame"])
@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.report("y_true", "y_pred", by="region", weight="weight"),
        lambda m: m.summary("y_true", "y_pred", by=["region", "model_version"]),
        lambda m: m.roc_auc("is_cat", "cat_score", by="region"),
        lambda m: m.roc_auc("y_true", PROBS, multi_class="ovo"),
        lambda m: m.best_threshold("is_cat", "cat_score", metric="precision"),
        lambda m: m.calibration_error("is_cat", "cat_score", strategy="quantile"),
        lambda m: m.compare("y_true", "y_pred", by="region", metric="f1_macro", n_boot=30),
    ],
    ids=["report", "summary", "roc_auc", "roc_auc[ovo]", "best_threshold", "ece", "compare"],
)
def test_both_spellings_give_the_same_frame(lazy: bool, call: typing.Any) -> None:
    frame: pl.DataFrame | pl.LazyFrame = EXAMPLE.lazy() if lazy else EXAMPLE
    typed = call(plm.metrics(frame))
    registered = call(frame.metrics)
    assert isinstance(typed, pl.LazyFrame if lazy else pl.DataFrame)
    assert type(typed) is type(registered)
    if isinstance(typed, pl.LazyFrame):
        typed, registered = typed.collect(), registered.collect()
    assert_frame_equal(typed, registered)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (pl.Series("y", [0, 1]), "polars.series.series.Series"),
        ({"y": [0, 1]}, "builtins.dict"),
        (None, "builtins.NoneType"),
        (plm.from_counts(EXAMPLE.metrics.counts("y_true", "y_pred")), "CountsState"),
    ],
)
def test_metrics_refuses_what_is_not_a_frame(value: object, kind: str) -> None:
    with pytest.raises(TypeError, match=r"`frame` must be a polars DataFrame or LazyFrame, got .*"):
        plm.metrics(value)  # type: ignore[call-overload]
    with pytest.raises(TypeError) as info:
        plm.metrics(value)  # type: ignore[call-overload]
    assert kind in str(info.value)


def test_metrics_points_pandas_to_from_pandas() -> None:
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match=r"got pandas\..*DataFrame; .*pl\.from_pandas"):
        plm.metrics(pd.DataFrame({"y": [0, 1]}))  # type: ignore[call-overload]


def test_metrics_is_exported() -> None:
    assert "metrics" in plm.__all__
    for alias in ("FairnessMetric", "PairedMetric", "ThresholdMetric", "OverTimeMetric", "Adjust"):
        assert alias in plm.__all__
        assert getattr(plm, alias) is getattr(_typing, alias)


@pytest.mark.parametrize("module_name", ["pl_metrics.dask", "pl_metrics.spark"])
def test_the_engines_show_their_own_functions_only(module_name: str) -> None:
    """``dir(pl_metrics.dask)`` listed ``Any``, ``glob``, ``pl`` and every other import
    (issue 49): ``dir`` and ``import *`` show the public functions defined there (and
    Spark's ``CHUNK_ROWS`` setting), each of which is reachable."""
    module = importlib.import_module(module_name)
    own = {
        name
        for name, f in inspect.getmembers(module, inspect.isfunction)
        if f.__module__ == module_name and not name.startswith("_")
    }
    # Spark's CHUNK_ROWS setting; Dask's expand (the Parquet paths a call reads: the
    # engine layer's function, re-exported)
    constants = {"CHUNK_ROWS"} if module_name.endswith("spark") else {"expand"}
    assert set(module.__all__) == own | constants
    assert dir(module) == sorted(module.__all__)
    for imported in ("Any", "pl", "glob", "Sequence", "from_counts"):
        assert imported not in dir(module)
    namespace: dict[str, object] = {}
    exec(f"from {module_name} import *", namespace)  # the star import's names
    assert set(namespace) - {"__builtins__"} == set(module.__all__)


# ------------------------------------------------------------- Literals vs catalogues
PAIRED = catalogue.names_of(paired=True)


@pytest.mark.parametrize(
    ("alias", "catalogue"),
    [
        (_typing.FairnessMetric, tuple(m for m in catalogue.names_of(compare=True) if m != "n")),
        (_typing.PairedMetric, catalogue.names_of(paired=True)),
        (_typing.OverTimeMetric, catalogue.names_of(over_time=True)),
        (_typing.ThresholdMetric, names.output_columns("thresholds")[1:]),
        (_typing.Average, _classification.AVERAGES),
        (
            _typing.PairedCiMethod,
            tuple(dict.fromkeys(m for n in PAIRED for m in catalogue.CATALOGUE[n].paired)),
        ),
        (_typing.ExtraScore, names.EXTRA_SCORES),
    ],
    ids=["Fairness", "Paired", "OverTime", "Threshold", "Average", "PairedCiMethod", "Extra"],
)
def test_literal_equals_its_catalogue(alias: object, catalogue: tuple[str, ...]) -> None:
    # the same names in the same order (the order of the docs and of the CLI's choices)
    assert typing.get_args(alias) == tuple(catalogue)


def test_the_calls_lists_are_the_catalogues() -> None:
    """compare / disparity, over_time and compare_models check and dispatch on lists
    read from the metric catalogue (``_core.catalogue``), one entry per metric."""
    # each call's families partition its list, in the catalogue's order
    assert (
        *over_time.SUMMARY,
        *over_time.AVERAGED,
        *over_time.POSITIVE,
        *over_time.SCORED,
    ) == over_time.METRICS
    assert (*paired.LABEL_METRICS, *paired.BINARY_METRICS, *paired.SCORE_METRICS) == paired.METRICS
    assert catalogue.names_of("size", "summary", over_time=True) == names.SUMMARY_LABELS
    # an analytic interval method's metrics are metrics compare offers
    assert {m for ms in checks.ANALYTIC_CI.values() for m in ms} <= set(groups_fairness.METRICS)
    for m in catalogue.CATALOGUE.values():
        assert m.family in catalogue.FAMILIES
        assert m.scores is (m.family in ("ranking", "probability", "calibration"))


def _literals(hint: object) -> set[str]:
    """Every ``Literal`` value inside a type hint (``X | None``, ``X | Sequence[X]``)."""
    if typing.get_origin(hint) is typing.Literal:
        return {str(a) for a in typing.get_args(hint)}
    return set().union(*(_literals(a) for a in typing.get_args(hint)))


#: The rows the probes call each method on, and each method's required arguments.
_ROWS = pl.LazyFrame(
    {
        "y": [0, 1, 2, 1],
        "p": [0, 1, 1, 1],
        "s": [0.1, 0.8, 0.4, 0.7],
        "g": ["a", "a", "b", "b"],
        "t": [dt.date(2026, 1, d) for d in (1, 1, 2, 2)],
    }
)
_ARGS: dict[str, tuple[tuple[object, ...], dict[str, object]]] = {
    "roc_auc": (("y", "s"), {}),
    "average_precision": (("y", "s"), {}),
    "best_threshold": (("y", "s"), {}),
    "calibration_curve": (("y", "s"), {}),
    "calibration_error": (("y", "s"), {}),
    "compare": (("y", "p"), {"by": "g"}),
    "disparity": (("y", "p"), {"by": "g"}),
    "fairness": (("y", "p"), {"by": "g"}),
    "compare_models": (("y", ["p", "p"]), {}),
    "over_time": (("y",), {"y_pred": "p", "index": "t", "every": "1d"}),
}
_LITERAL_PARAMS = [
    (name, param, _literals(hint))
    for name, method in inspect.getmembers(MetricsLazyFrame, inspect.isfunction)
    if not name.startswith("_")
    for param, hint in typing.get_type_hints(method).items()
    if param != "return" and _literals(hint)
]


def test_the_probes_cover_the_options() -> None:
    probed = {(name, param) for name, param, _ in _LITERAL_PARAMS}
    for option in ("metric", "metrics", "adjust", "method", "agg", "strategy", "ci_method"):
        assert any(param == option for _, param in probed), option
    assert ("compare", "metric") in probed
    assert ("over_time", "metrics") in probed


@pytest.mark.parametrize(
    ("name", "param", "values"),
    _LITERAL_PARAMS,
    ids=[f"{n}.{p}" for n, p, _ in _LITERAL_PARAMS],
)
def test_literal_lists_what_the_method_accepts(name: str, param: str, values: set[str]) -> None:
    args, kwargs = _ARGS.get(name, (("y", "p"), {}))
    kwargs = {**kwargs, param: "__misspelled__"}
    if param == "ci_method":  # the interval options are checked when intervals are asked for
        kwargs["ci"] = 0.9
    with pytest.raises(ValueError, match=rf"`{param}` must be") as info:
        getattr(MetricsLazyFrame(_ROWS), name)(*args, **kwargs)
    accepted = re.search(r"one of (\[.*?\])", str(info.value))
    assert accepted is not None, str(info.value)
    assert set(ast.literal_eval(accepted.group(1))) == values


#: The state finishers' ``Literal`` parameters: ``ci_method`` and ``kappa_weights``.
_STATES = {
    CountsState: plm.from_counts(_ROWS.collect().metrics.counts("y", "p")),
    ScoreCountsState: plm.from_score_counts(_ROWS.collect().metrics.score_counts("p", "s")),
}
_STATE_LITERAL_PARAMS = [
    (cls_, name, param, _literals(hint))
    for cls_ in _STATES
    for name, method in inspect.getmembers(cls_, inspect.isfunction)
    if not name.startswith("_")
    for param, hint in typing.get_type_hints(method).items()
    if param != "return" and _literals(hint)
]


@pytest.mark.parametrize(
    ("cls_", "name", "param", "values"),
    _STATE_LITERAL_PARAMS,
    ids=[f"{c.__name__}.{n}.{p}" for c, n, p, _ in _STATE_LITERAL_PARAMS],
)
def test_state_literal_lists_what_the_finisher_accepts(
    cls_: type, name: str, param: str, values: set[str]
) -> None:
    kwargs: dict[str, object] = {param: "__misspelled__"}
    if param == "ci_method":
        kwargs["ci"] = 0.9
    with pytest.raises(ValueError, match=rf"`{param}` must be") as info:
        getattr(_STATES[cls_], name)(**kwargs)
    accepted = re.search(r"one of (\[.*?\])", str(info.value))
    assert accepted is not None, str(info.value)
    assert set(ast.literal_eval(accepted.group(1))) == values


def test_the_state_probes_cover_the_interval_options() -> None:
    probed = {(c.__name__, n, p) for c, n, p, _ in _STATE_LITERAL_PARAMS}
    for name in ("per_class", "averages", "report", "summary"):
        assert ("CountsState", name, "ci_method") in probed
    assert ("CountsState", "summary", "kappa_weights") in probed
    for name in ("roc_auc", "average_precision"):
        assert ("ScoreCountsState", name, "ci_method") in probed


def _key(p: inspect.Parameter) -> tuple[object, ...]:
    return (p.name, p.kind, p.annotation, repr(p.default))


@pytest.mark.parametrize("name", sorted(n for n in dir(MetricsLazyFrame) if not n.startswith("_")))
def test_dataframe_twin_has_the_lazy_parameters(name: str) -> None:
    lazy, eager = getattr(MetricsLazyFrame, name), getattr(MetricsDataFrame, name)
    lazy_sig, eager_sig = inspect.signature(lazy), inspect.signature(eager)
    # (name, kind, annotation, default): the defaults by repr (NaN != NaN)
    assert [_key(p) for p in eager_sig.parameters.values()] == [
        _key(p) for p in lazy_sig.parameters.values()
    ]
    if lazy_sig.return_annotation == "pl.LazyFrame":
        assert eager_sig.return_annotation == "pl.DataFrame"
        # what get_type_hints reads (Python 3.10 adds Optional from the defaults)
        assert eager.__annotations__ == {**lazy.__annotations__, "return": "pl.DataFrame"}
        assert typing.get_type_hints(eager)["return"] is pl.DataFrame
    else:
        assert eager_sig.return_annotation == lazy_sig.return_annotation


def _returns(doc: str | None) -> list[str]:
    """The type line of each numpy Returns section of a docstring."""
    return re.findall(r"^Returns\n-+\n(.*)$", inspect.cleandoc(doc or ""), re.MULTILINE)


@pytest.mark.parametrize("name", sorted(n for n in dir(MetricsLazyFrame) if not n.startswith("_")))
def test_each_method_says_what_it_returns(name: str) -> None:
    """``help(df.metrics.drift)`` said "Returns LazyFrame" (issue 49): each DataFrame
    method's docstring names a DataFrame, its LazyFrame method's a LazyFrame, and the
    two are otherwise the same text; the page (not a frame) says ``str`` on both."""
    lazy, eager = getattr(MetricsLazyFrame, name), getattr(MetricsDataFrame, name)
    if inspect.signature(lazy).return_annotation != "pl.LazyFrame":
        assert _returns(lazy.__doc__) == _returns(eager.__doc__) == ["str"]
        return
    assert _returns(lazy.__doc__) == ["LazyFrame"]
    assert _returns(eager.__doc__) == ["DataFrame"]
    assert eager.__doc__.replace("DataFrame", "LazyFrame") == lazy.__doc__.replace(
        "DataFrame", "LazyFrame"
    )
    # what help() shows: the bound method of a frame's namespace
    shown = pydoc.render_doc(getattr(pl.DataFrame().metrics, name), renderer=pydoc.plaintext)
    assert re.search(r"Returns\n\s*-+\n\s*DataFrame\n", shown)


def test_a_twin_of_a_method_that_does_not_say_it_returns_a_lazyframe_is_refused() -> None:
    def undocumented(self: object) -> pl.LazyFrame:
        """No Returns section."""
        raise NotImplementedError

    with pytest.raises(TypeError, match="undocumented: its docstring needs one 'Returns'"):
        eager(undocumented)
    assert eager_doc(None, "stripped by python -OO") is None


# --------------------------------------------------------------------- mypy --strict
#: The short names of the fixture's ``# revealed:`` comments.
_REVEALED = {
    "DataFrame": "polars.dataframe.frame.DataFrame",
    "LazyFrame": "polars.lazyframe.frame.LazyFrame",
    "Expr": "polars.expr.expr.Expr",
    "MetricsDataFrame": "pl_metrics._namespace.MetricsDataFrame",
    "MetricsLazyFrame": "pl_metrics._namespace.MetricsLazyFrame",
}
_LINE = re.compile(
    r"^(?P<path>[^:]+\.py):(?P<line>\d+): (?P<kind>error|note): (?P<msg>.*?)"
    r"(?:  \[(?P<code>[a-z-]+)\])?$"
)


def _marked(path: Path, marker: str) -> dict[int, str]:
    """``{line: word}`` of the lines of ``path`` that end in ``# <marker> <word>``."""
    pattern = re.compile(rf"#\s*{marker}\s*([\w-]+)\s*$")
    found = {i: pattern.search(ln) for i, ln in enumerate(path.read_text().splitlines(), 1)}
    return {i: m.group(1) for i, m in found.items() if m is not None}


def _docs_code(folder: Path) -> Path:
    """The ```python blocks of docs/typing.md, in order, as one module in ``folder``."""
    blocks = re.findall(r"^```python\n(.*?)^```", DOCS_PAGE.read_text(), flags=re.S | re.M)
    assert len(blocks) >= 5
    path = folder / "docs_typing.py"
    path.write_text("\n".join(blocks))
    return path


#: The tests reading one mypy run: on one pytest-xdist worker (`--dist loadgroup`), so
#: mypy runs once.
MYPY = pytest.mark.xdist_group("mypy")


@pytest.fixture(scope="module")
def mypy_output(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """One ``mypy --strict`` run over both fixture files and the code of docs/typing.md
    (a warm cache when pytest has one).

    ``--follow-imports=silent`` reads pl_metrics as a user's installed copy is read:
    its types are used, its own errors are not the user's.
    """
    cache = getattr(request.config, "cache", None)
    # one cache per pytest-xdist worker: two mypy runs writing one cache crash
    # ("INTERNAL ERROR", seen in CI with `pytest -n auto`)
    name = f"mypy-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    cache_dir = cache.mkdir(name) if cache is not None else tmp_path_factory.mktemp(name)
    docs = _docs_code(tmp_path_factory.mktemp("docs"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--no-color-output",
            "--no-error-summary",
            "--show-error-codes",
            "--cache-dir",
            str(cache_dir),
            "tests/typing/user_code.py",
            "tests/typing/user_errors.py",
            str(docs),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # 1: errors found (2: crashed)
    return done.stdout


def _parsed(output: str, file: str) -> list[re.Match[str]]:
    found = [_LINE.match(line) for line in output.splitlines()]
    assert all(m is not None for m in found), output
    return [m for m in found if m is not None and m["path"].endswith(file)]


@MYPY
def test_mypy_reports_only_the_fixture_files(mypy_output: str) -> None:
    paths = {m["path"] for m in map(_LINE.match, mypy_output.splitlines()) if m is not None}
    assert {Path(p).name for p in paths} == {"user_code.py", "user_errors.py", "docs_typing.py"}
    assert len(paths) == 3, mypy_output


@MYPY
def test_mypy_accepts_correct_code_and_reveals_frames(mypy_output: str) -> None:
    found = _parsed(mypy_output, "user_code.py")
    assert [m.group(0) for m in found if m["kind"] == "error"] == []
    revealed = {int(m["line"]): m["msg"] for m in found if m["msg"].startswith("Revealed type is")}
    expected = _marked(USER / "user_code.py", "revealed:")
    assert len(expected) >= 15
    assert revealed == {
        line: f'Revealed type is "{_REVEALED[short]}"' for line, short in expected.items()
    }


@MYPY
def test_mypy_reports_misspelled_options_and_wrong_types(mypy_output: str) -> None:
    errors = [m for m in _parsed(mypy_output, "user_errors.py") if m["kind"] == "error"]
    expected = _marked(USER / "user_errors.py", "E:")
    assert len(expected) >= 10
    # one error per marked line, of the marked code, and none elsewhere
    assert sorted((int(m["line"]), m["code"]) for m in errors) == sorted(expected.items())
    by_line = {int(m["line"]): m["msg"] for m in errors}
    lines = (USER / "user_errors.py").read_text().splitlines()
    misspelled = next(i for i, ln in enumerate(lines, 1) if '"f1_macr"' in ln)
    assert "'f1_macro'" in by_line[misspelled]  # the message lists the right names


def test_user_code_runs() -> None:
    # what the checker accepts is what the library accepts (main() asserts that
    # plm.metrics(df) and df.metrics give the same frame)
    runpy.run_path(str(USER / "user_code.py"), run_name="__main__")


@MYPY
def test_mypy_accepts_the_docs_page(mypy_output: str) -> None:
    # the page's examples are strict-clean, and what it says mypy reveals is what it reveals
    found = _parsed(mypy_output, "docs_typing.py")
    assert [m.group(0) for m in found if m["kind"] == "error"] == []
    revealed = [m["msg"] for m in found if m["msg"].startswith("Revealed type is")]
    assert revealed[:3] == [
        'Revealed type is "pl_metrics._namespace.MetricsDataFrame"',
        'Revealed type is "polars.dataframe.frame.DataFrame"',
        'Revealed type is "polars.lazyframe.frame.LazyFrame"',
    ]
    assert len(revealed) == 4
    start = 'Revealed type is "def (y_true: str | typing.Mapping[object, str], y_pred: str'
    assert revealed[3].startswith(start)  # a column, or {label: indicator column} (multilabel)
    end = (
        "ci_method: Literal['delta'] | Literal['bootstrap'] | Literal['poisson'] | None =) "
        '-> polars.dataframe.frame.DataFrame"'
    )
    assert revealed[3].endswith(end)
    page = DOCS_PAGE.read_text()
    for note in revealed[:3]:
        assert f"note: {note}" in page
