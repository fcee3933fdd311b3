"""The HTML report on a Parquet dataset, side by side with the single methods.

    .venv/bin/python benchmarks/make_data.py --rows 10_000_000 --out benchmarks/data/d10m
    .venv/bin/python benchmarks/bench_html_report.py benchmarks/data/d10m --repeat 3

Each case runs in a fresh process (its peak RSS is that process's); times are
medians of interleaved runs.  Cases: the report of the label columns per
country (10 classes, 100 segments, intervals), of the binary 2-decimal score per
country (intervals), of the continuous score binned (``bins=1000``); baselines:
one ``report(by="country")`` and the bare ``group_by(country, y_true,
y_pred).len()`` over the same files, both streaming.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

CASES = {
    "group_by(country, y_true, y_pred).len()": (
        "lf.group_by('country', 'y_true', 'y_pred').len().collect()"
    ),
    "report(by=country)": "lf.metrics.report('y_true', 'y_pred', by='country').collect()",
    "html_report labels by country, ci": (
        "lf.metrics.html_report('y_true', 'y_pred', by='country', n_boot=200)"
    ),
    "html_report 2-decimal score by country, ci": (
        "lf.metrics.html_report('y', y_score='s2', by='country', n_boot=200)"
    ),
    "html_report continuous score, bins=1000": (
        "lf.metrics.html_report('y', y_score='s', bins=1000, ci=None)"
    ),
}

_RUN = """
import json, resource, sys, time
import polars as pl, pl_metrics
lf = pl.scan_parquet(sys.argv[1] + "/**/*.parquet")
start = time.perf_counter()
{code}
elapsed = time.perf_counter() - start
print(json.dumps({{"s": elapsed, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}}))
"""


def run(code: str, data: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _RUN.format(code=code), str(data)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in CASES}
    for _ in range(args.repeat):
        for name, code in CASES.items():
            samples[name].append(run(code, args.data))
    base = statistics.median(s["s"] for s in samples["report(by=country)"])
    floor = statistics.median(s["s"] for s in samples["group_by(country, y_true, y_pred).len()"])
    print(f"data: {args.data}, {args.repeat} interleaved runs, fresh process each\n")
    print("| case | time (s) | / report(by) | / group_by.len() | peak RSS (MB) |")
    print("|---|---:|---:|---:|---:|")
    for name, runs in samples.items():
        t = statistics.median(r["s"] for r in runs)
        rss = max(r["rss"] for r in runs) / 1024
        print(f"| {name} | {t:.2f} | {t / base:.2f}x | {t / floor:.2f}x | {rss:,.0f} |")


if __name__ == "__main__":
    main()
