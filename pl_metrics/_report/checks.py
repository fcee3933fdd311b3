"""The report's quality gates: ``check``'s failing and inconclusive rows at the top."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from pl_metrics._report.page import Section, Table
from pl_metrics._report.sections import Spec


def checks_section(lf: pl.LazyFrame, s: Spec, step: Callable[[str], None]) -> Section:
    """``check(s.rules)`` on ``lf`` (its reference rows as the report's): the rows that
    fail, then the inconclusive ones, in a table; the passing ones folded below."""
    step("quality gates")
    table = s.metrics(lf).check(
        list(s.rules),
        y_true=s.y_true,
        y_pred=s.y_pred,
        y_score=s.y_score if isinstance(s.y_score, str) else None,
        by=s.by or None,
        reference=s.reference,
        weight=s.weight,
        pos_label=s.pos_label,
        ci=s.ci,
    )
    frame = table.collect()
    status = pl.col("status")
    open_ = frame.filter(status != "pass").sort(status != "fail", maintain_order=True)
    passed = frame.filter(status == "pass")
    n = {k: int((frame["status"] == k).sum()) for k in ("fail", "inconclusive", "pass")}
    how = (
        f"passes where its whole {s.ci:.0%} interval satisfies it, fails where none of it "
        "does, and is inconclusive where the interval straddles the threshold or the "
        "metric is undefined (metrics without an interval, and drift: the value decides)"
        if s.ci is not None
        else "is decided by the value (no intervals)"
    )
    segments = f" per segment ({', '.join(s.by_names)})" if s.by_names else ""
    intro = (
        f"{len(s.rules)} rule{'s' if len(s.rules) != 1 else ''}{segments}: "
        f"<strong>{n['fail']} failing</strong>, {n['inconclusive']} inconclusive, "
        f"{n['pass']} passing checks. A rule {how}."
    )
    caption = (
        "Failing checks, then inconclusive ones."
        if open_.height
        else "No check fails or is inconclusive."
    )
    return Section(
        "checks",
        "Quality gates",
        intro,
        [
            Table("checks", open_, caption),
            Table("checks_passed", passed, f"{passed.height} passing checks", collapsed=True),
        ],
    )
