"""Suite-wide hooks: say plainly when the browser test of the HTML report did not run."""

from __future__ import annotations

import pytest


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
