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
