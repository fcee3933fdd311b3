"""The one-page HTML evaluation report (``.metrics.html_report``, ``pl-metrics html``)."""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from pl_metrics._report import sections
from pl_metrics._report.checks import checks_section
from pl_metrics._report.over_time import estimates, over_time_section
from pl_metrics._report.page import Section, page_html
from pl_metrics._version import VERSION


def _vl_version() -> str | None:
    """The Vega-Lite version of the installed Altair (its specs' schema)."""
    import altair as alt

    version = getattr(alt, "SCHEMA_VERSION", None)  # "v6.1.0"
    if not version:
        return None
    return ".".join(version.split(".")[:2])  # vl_convert takes "v6.1"


def build(
    lf: pl.LazyFrame,
    spec: sections.Spec,
    *,
    title: str,
    progress: bool,
) -> str:
    """Compute every section on ``lf`` and return the page."""
    step = sections.Progress(progress)
    cards: list[str] = []
    found: list[Section] = []
    parts = []
    # with estimates, the realized metrics read the rows whose label has arrived
    labelled = lf.filter(pl.col(spec.y_true).is_not_null()) if estimates(spec) else lf
    # the quality gates first (check reads the reference rows itself)
    checks = [checks_section(labelled, spec, step)] if spec.rules else []
    # then: its data checks (a null in the reference flag) before the long sections
    drift = None if spec.reference is None else [sections.drift_section(lf, spec, step)]
    reference = spec.reference
    if isinstance(spec.reference, pl.Expr):  # the other sections read the current rows
        reference = lf.filter(spec.reference)
        lf, labelled = lf.filter(~spec.reference), labelled.filter(~spec.reference)
    if spec.y_pred is not None:
        parts.append(sections.label_sections(labelled, spec, step))
    if spec.y_score is not None:
        parts.append(sections.score_sections(labelled, spec, step))
    if spec.index is not None:
        estimated = reference if estimates(spec) else None
        parts.append([over_time_section(lf, estimated, spec, step)])
    if drift is not None:
        parts.append(drift)
    for part in parts:
        for item in part:
            if isinstance(item, Section):
                found.append(item)
            else:
                cards.extend(item)
    facts = [_inputs(spec), _versions()]
    page = page_html(
        title=title,
        facts=facts,
        cards=cards,
        sections=found,
        vl_version=_vl_version(),
        first=checks,
    )
    if progress:
        print(f"pl-metrics html: done, {len(page) / 1e6:.1f} MB", file=sys.stderr, flush=True)
    return page


def _inputs(spec: sections.Spec) -> str:
    parts = [f"y_true = {spec.y_true}"]
    if spec.y_pred is not None:
        parts.append(f"y_pred = {spec.y_pred}")
    if isinstance(spec.y_score, Mapping):
        parts.append(f"y_score = {{{', '.join(f'{k!r}: {v}' for k, v in spec.y_score.items())}}}")
    elif spec.y_score is not None:
        parts.append(f"y_score = {spec.y_score}")
    if spec.pos_label is not None:
        parts.append(f"pos_label = {spec.pos_label!r}")
    if spec.by_names:
        parts.append(f"segments by {', '.join(spec.by_names)}")
    if spec.weight is not None:
        parts.append(f"weight = {spec.weight}")
    if spec.ci is None:
        parts.append("no intervals" + (" (weighted rows)" if spec.weight is not None else ""))
    if spec.bins is not None:
        parts.append(f"scores binned into {spec.bins} bins (approximate ranking metrics)")
    if isinstance(spec.reference, pl.Expr):
        parts.append(f"reference rows {spec.reference} (drift); the other sections: the others")
    elif spec.reference is not None:
        parts.append(f"drift of {', '.join(spec.drift_columns)} against the reference rows")
    if spec.index is not None:
        parts.append(f"windows of {spec.every} by {spec.index}")
    if estimates(spec):
        parts.append(f"rows without a label ({spec.y_true} null): in the estimated metrics only")
    return "; ".join(parts)


def _versions() -> str:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"pl_metrics {VERSION}, polars {pl.__version__}; generated {now}"


def write(page: str, path: str | Path) -> None:
    Path(path).write_text(page, encoding="utf-8")
