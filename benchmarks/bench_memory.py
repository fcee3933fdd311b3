"""Peak memory and time of the metrics over a Parquet dataset on the streaming engine.

    .venv/bin/python benchmarks/make_data.py --rows 50_000_000 --out benchmarks/data/d50m
    .venv/bin/python benchmarks/bench_memory.py benchmarks/data/d50m

Each query runs in a fresh child process; its peak RSS is the child's
``ru_maxrss`` (so nothing of this process is counted).  Each is compared with a
bare streaming ``group_by(...).len()`` over the same scan.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import polars as pl
import pl_metrics
path, code = sys.argv[1], sys.argv[2]
lf = pl.scan_parquet(path + "/**/*.parquet", hive_partitioning=True)
start = time.perf_counter()
out = eval(code).collect(engine="streaming")
elapsed = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
print(json.dumps({"seconds": elapsed, "peak_rss_mib": rss, "rows_out": out.height}))
"""

QUERIES = {
    "bare group_by(country, y, s2).len()": 'lf.group_by("country", "y", "s2").len()',
    "roc_auc(y, s2, by=country)": 'lf.metrics.roc_auc("y", "s2", by="country")',
    "average_precision(y, s2, by=country)": 'lf.metrics.average_precision("y", "s2", by="country")',
    "bare group_by(country, y_true, y_pred).len()": (
        'lf.group_by("country", "y_true", "y_pred").len()'
    ),
    "report(by=country)": 'lf.metrics.report("y_true", "y_pred", by="country")',
    "summary(by=country)": 'lf.metrics.summary("y_true", "y_pred", by="country")',
}


def run(path: str, code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path, code], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| query (streaming, scan_parquet) | time (s), median | peak RSS (MiB), max |")
    print("|---|---:|---:|")
    for name, code in QUERIES.items():
        runs = [run(args.path, code) for _ in range(args.repeat)]
        seconds = sorted(r["seconds"] for r in runs)[len(runs) // 2]
        rss = max(r["peak_rss_mib"] for r in runs)
        print(f"| {name} | {seconds:.2f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
