"""Drift's KS and Wasserstein over Parquet current rows: time and peak RSS, in
slices or all in memory (issue 27, "out of core").

    .venv/bin/python benchmarks/bench_drift_out_of_core.py [--rows 100_000_000]
        [--reference 1_000_000] [--segments 10] [--slice 33554432] [--repeat 1]

Writes ``--rows`` current rows (20 Parquet files: a segment ``seg``, a continuous
column ``x`` shifted by 0.1) and ``--reference`` reference rows to a temporary
folder (generated, never committed), then runs, each in a fresh child process (its
peak RSS is the child's ``ru_maxrss``), side by side:

- ``drift("x", reference=..., by="seg")`` on ``pl.scan_parquet`` as shipped: above
  ``_drift.metrics.SLICE`` (``--slice``) rows of both sides together their values are read
  in slices of the value range;
- the same with ``SLICE`` above the row count: every current value in memory at
  once (the path below the threshold);
- the floor: the current column read into memory and sorted (and the reference's).

The first two give the same KS and Wasserstein (printed: the largest difference,
over the segments).  ``--reference`` rows are written the same way (one file).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
import polars as pl
import pl_metrics
from pl_metrics._drift import metrics as _drift
kind, folder, slice_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
current = pl.scan_parquet(folder + "/current/*.parquet")
reference = pl.scan_parquet(folder + "/reference.parquet")
start = time.perf_counter()
if kind == "floor":
    for side in (current, reference):
        side.select(pl.col("x")).collect(engine="streaming").select(pl.col("x").sort())
    values = []
else:
    _drift.SLICE = slice_ if kind == "slices" else 1 << 62
    out = current.metrics.drift("x", reference=reference, by="seg").collect()
    values = out.sort("seg")["ks"].to_list() + out.sort("seg")["wasserstein"].to_list()
elapsed = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
print(json.dumps({"seconds": elapsed, "peak_rss_mib": rss, "values": values}))
"""


def write(folder: Path, rows: int, reference: int, segments: int) -> None:
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(0)
    (folder / "current").mkdir()
    files = 20
    for i in range(files):
        n = rows // files + (i < rows % files)
        pl.DataFrame(
            {"seg": rng.integers(0, segments, n), "x": rng.normal(0.1, 1.0, n)}
        ).write_parquet(folder / "current" / f"part-{i:02d}.parquet")
    pl.DataFrame({"x": rng.normal(0.0, 1.0, reference)}).write_parquet(folder / "reference.parquet")


def run(kind: str, folder: Path, slice_: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(folder), str(slice_)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    number = lambda s: int(s.replace("_", ""))  # noqa: E731
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=number, default=100_000_000)
    parser.add_argument("--reference", type=number, default=1_000_000)
    parser.add_argument("--segments", type=int, default=10)
    parser.add_argument("--slice", type=number, default=1 << 25)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write(folder, args.rows, args.reference, args.segments)
        kinds = ("slices", "in memory", "floor")
        runs: dict[str, list[dict]] = {k: [] for k in kinds}
        for _ in range(args.repeat):  # interleaved
            for kind in kinds:
                runs[kind].append(run(kind.replace("in memory", "memory"), folder, args.slice))
    floor = statistics.median(r["seconds"] for r in runs["floor"])
    print(
        f"### drift KS / Wasserstein: {args.rows:,} current rows in {args.segments} "
        f"segments (Parquet), {args.reference:,} reference rows, SLICE = {args.slice:,}, "
        f"median of {args.repeat}\n"
    )
    print("| run | seconds | x the floor | peak RSS (MiB) |")
    print("|---|---:|---:|---:|")
    for kind in kinds:
        seconds = statistics.median(r["seconds"] for r in runs[kind])
        rss = max(r["peak_rss_mib"] for r in runs[kind])
        print(f"| {kind} | {seconds:.2f} | {seconds / floor:.2f}x | {rss:,.0f} |")
    a, b = runs["slices"][0]["values"], runs["in memory"][0]["values"]
    worst = max(abs(x - y) for x, y in zip(a, b, strict=True))
    print(f"\nlargest |slices - in memory| over the segments' KS and Wasserstein: {worst:.3g}")


if __name__ == "__main__":
    main()
