"""Suite-wide hooks: the environment tests marked (run once, at the newest polars); say
plainly when the browser test of the HTML report did not run."""

from __future__ import annotations

import os

import pytest

#: Tests of the environment more than of the library: Spark local mode, mypy on user
#: code, the docs' examples, the CLI in subprocesses, the report in a browser, NannyML
#: (a peer installed on Python 3.11-3.12 only).  They
#: run once, at the newest polars: ``make test-floor`` deselects them
#: (``-m "not environment"``); the library suite runs at both.
ENVIRONMENT_MODULES = frozenset(
    {
        "test_spark.py",
        "test_engines.py",
        "test_typing.py",
        "test_docs.py",
        "test_cli.py",
        "test_cli_commands.py",
        "test_cli_options.py",
        "test_cli_plot.py",
        "test_estimated_nannyml.py",
    }
)


def pytest_configure(config: pytest.Config) -> None:
    """The report's Vega bundle cache in a directory of this run, not the user's
    ``~/.cache`` (the processes the suite starts inherit it)."""
    import tempfile

    del config
    os.environ.setdefault("PL_METRICS_CACHE", tempfile.mkdtemp(prefix="pl_metrics_cache_"))


#: ``make test-floor`` sets it: the fraction of each property test's examples drawn at
#: the floor polars (at least :data:`FLOOR_MIN_EXAMPLES`).  Every hard case and every
#: fixed test runs in full there; the search for new inputs runs in full at the
#: newest, where the examples find the library's bugs, and the floor run checks the
#: same code on the older polars.
FLOOR_EXAMPLES = "PLM_FLOOR_EXAMPLES"
FLOOR_MIN_EXAMPLES = 10


@pytest.hookimpl(tryfirst=True)  # before xdist's loadgroup reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            # one worker holds the Spark session (one JVM): the tests that use it, and
            # only those, share that worker (--dist loadgroup); a file's Dask tests
            # spread over the other workers.  pytest 9.2 with xdist 3.8 ignores the
            # groups (pytest-xdist#1386: the group rides on a node id pytest no longer
            # reads), so each worker may start a session of its own until xdist mends it
            item.add_marker(pytest.mark.xdist_group("spark"))
        browser = item.name.startswith("test_the_report_renders_in_chromium")
        if item.path.name in ENVIRONMENT_MODULES or browser:
            item.add_marker(pytest.mark.environment)
    fraction = os.environ.get(FLOOR_EXAMPLES)
    if fraction:
        _fewer_examples(items, float(fraction))


def _fewer_examples(items: list[pytest.Item], fraction: float) -> None:
    """Each hypothesis test's ``max_examples`` times ``fraction`` (once per function:
    a parametrized test's items share it).  Hypothesis reads a test's settings from
    the attribute its ``@settings`` decorator sets, when the test runs."""
    from hypothesis import settings

    done = set()
    for item in items:
        test = getattr(item, "obj", None)
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        if current is None or id(test) in done:
            continue
        done.add(id(test))
        fewer = max(FLOOR_MIN_EXAMPLES, round(current.max_examples * fraction))
        if fewer < current.max_examples:
            test._hypothesis_internal_use_settings = settings(current, max_examples=fewer)  # type: ignore[union-attr]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    skipped = terminalreporter.stats.get("skipped", [])
    browser = [r for r in skipped if "test_the_report_renders_in_chromium" in r.nodeid]
    if browser:
        terminalreporter.write_line(
            "NOTE: the browser test of the HTML report did NOT run (no Chromium / "
            "chromedriver; Debian: apt-get install chromium chromium-driver)",
            yellow=True,
            bold=True,
        )


def library_warnings_as_errors() -> str:
    """``PYTHONWARNINGS`` for the processes the suite starts (Dask's workers, Spark's
    Python workers): any warning raised from a ``pl_metrics`` module is an error
    there too, as ``filterwarnings`` makes it in this process.  The variable takes
    exact module names (no pattern), so every module is listed."""
    import pkgutil

    import pl_metrics

    modules = ["pl_metrics"] + [
        m.name for m in pkgutil.walk_packages(pl_metrics.__path__, prefix="pl_metrics.")
    ]
    return ",".join(f"error::Warning:{m}" for m in modules)


@pytest.fixture(scope="session")
def spark():  # type: ignore[no-untyped-def]
    """One Spark local session for every test that needs one (tests/test_spark.py, the
    registry's engine law): a second session in one process would stop the first.

    The executors' Python is this interpreter, importing this checkout's pl_metrics,
    with the suite's warning filter (a library warning is an error there too).
    """
    import sys
    from pathlib import Path

    from pyspark.sql import SparkSession

    with pytest.MonkeyPatch.context() as env:
        env.setenv("PYSPARK_PYTHON", sys.executable)
        env.setenv("PYTHONPATH", str(Path(__file__).parents[1]), prepend=os.pathsep)
        env.setenv("PYTHONWARNINGS", library_warnings_as_errors())
        # a session another test left (the docs' Spark example) has workers started
        # without the warning filter: a new one, with the filter in its workers' env
        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()
        session = (
            SparkSession.builder.master("local[2]")
            .config("spark.executorEnv.PYTHONWARNINGS", library_warnings_as_errors())
            .appName("pl_metrics tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.default.parallelism", "2")
            .getOrCreate()
        )
        # runtime settings: they hold even when a session was already running
        session.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "500")
        session.conf.set("spark.sql.shuffle.partitions", "4")
        session.sparkContext.setLogLevel("ERROR")
        yield session
        session.stop()
