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

#: (name, query, baseline query): each metric against the bare streaming
#: group_by that forms its state over the same scan.
QUERIES = [
    (
        "roc_auc(y, s2, by=country), exact, 2-decimal scores",
        'lf.metrics.roc_auc("y", "s2", by="country")',
        'lf.group_by("country", "s2").len()',
    ),
    (
        "average_precision(y, s2, by=country)",
        'lf.metrics.average_precision("y", "s2", by="country")',
        'lf.group_by("country", "s2").len()',
    ),
    (
        "roc_auc(y, s, by=country, bins=1000), continuous scores",
        'lf.metrics.roc_auc("y", "s", by="country", bins=1000)',
        'lf.group_by("country", (pl.col("s") * 1000).floor()).len()',
    ),
    (
        "report(y_true, y_pred, by=[country, model_version])",
        'lf.metrics.report("y_true", "y_pred", by=["country", "model_version"])',
        'lf.group_by("country", "model_version", "y_true", "y_pred").len()',
    ),
    (
        "summary(y_true, y_pred, by=country)",
        'lf.metrics.summary("y_true", "y_pred", by="country")',
        'lf.group_by("country", "y_true", "y_pred").len()',
    ),
]


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
    print(f"dataset: {args.path}; median time and max peak RSS of {args.repeat} child runs\n")
    print(
        "| query (streaming engine, scan_parquet) | time (s) | bare group_by().len() (s) "
        "| ratio | peak RSS (MiB) | baseline peak RSS (MiB) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name, code, baseline in QUERIES:
        med = {}
        for key, query in (("q", code), ("b", baseline)):
            runs = [run(args.path, query) for _ in range(args.repeat)]
            med[key] = (
                sorted(r["seconds"] for r in runs)[len(runs) // 2],
                max(r["peak_rss_mib"] for r in runs),
            )
        (tq, mq), (tb, mb) = med["q"], med["b"]
        print(f"| {name} | {tq:.2f} | {tb:.2f} | {tq / tb:.2f}x | {mq:.0f} | {mb:.0f} |")


if __name__ == "__main__":
    main()
