"""KS / gains and over_time benchmarks (issue 14), side by side in one run.

    .venv/bin/python benchmarks/bench_scoring.py [--rows N] [--days D] [--per-day N] [--repeat R]

1. ``ks`` and ``gains`` by 1,000 segments on 10M rows (2-decimal scores) against
   the bare ``group_by(seg, y, score).len()`` that forms their state (target
   <= 1.5x).
2. ``over_time`` with a 7-day rolling window over 365 days of 100k rows each
   (36.5M rows, Parquet files generated here, read with ``scan_parquet`` on the
   streaming engine) against the same metric computed by a loop over the windows
   (one ``scan_parquet`` query per window, filtered to its 7 days; target: at
   least 10x faster).  The loop's time is measured on the first ``--loop-windows``
   windows and scaled to all 365 (reported as such).
"""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl
from _common import print_table, side_by_side

import pl_metrics  # noqa: F401


def scoring(rows: int, repeat: int) -> list[tuple[str, float, str, float, float | None]]:
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, rows)
    df = pl.DataFrame(
        {
            "seg": rng.integers(0, 1000, rows),
            "y": y,
            "s": np.round(rng.random(rows) * 0.7 + 0.3 * y * rng.random(rows), 2),
        }
    )
    base = "bare group_by(seg, y, s).len()"
    t = side_by_side(
        {
            base: lambda: df.group_by("seg", "y", "s").len(),
            "ks": lambda: df.metrics.ks("y", "s", by="seg"),
            "gains": lambda: df.metrics.gains("y", "s", by="seg"),
        },
        repeat,
    )
    head = f"{rows:,} rows x 1,000 segments, 2-decimal scores"
    return [
        (f"ks(by=seg), {head}", t["ks"], base, t[base], 1.5),
        (f"gains(by=seg, deciles), {head}", t["gains"], base, t[base], 1.5),
    ]


def write_days(root: Path, days: int, per_day: int) -> None:
    """One Parquet file per 30 days: day, seg (10), y, p, s."""
    rng = np.random.default_rng(11)
    start = dt.date(2025, 1, 1)
    for first in range(0, days, 30):
        n_days = min(30, days - first)
        n = n_days * per_day
        day = np.repeat(np.arange(first, first + n_days), per_day)
        y = rng.integers(0, 2, n)
        frame = pl.DataFrame(
            {
                "day": pl.Series(
                    [start + dt.timedelta(days=int(d)) for d in range(first, first + n_days)]
                ).gather(pl.Series(day - first)),
                "seg": rng.integers(0, 10, n),
                "y": y,
                "p": np.where(rng.random(n) < 0.8, y, 1 - y),
                "s": np.round(rng.random(n) * 0.7 + 0.3 * y * rng.random(n), 3),
            }
        )
        frame.write_parquet(root / f"part{first:04d}.parquet")


def over_time(days: int, per_day: int, loop_windows: int, repeat: int) -> list:
    root = Path(tempfile.mkdtemp(prefix="plm_over_time_"))
    try:
        write_days(root, days, per_day)
        scan = lambda: pl.scan_parquet(root / "*.parquet")  # noqa: E731
        metrics = ["accuracy", "roc_auc"]

        def ours() -> pl.DataFrame:
            lf = scan().metrics.over_time(
                "y",
                y_pred="p",
                y_score="s",
                index="day",
                every="1d",
                period="7d",
                metrics=metrics,
                by="seg",
            )
            return lf.collect(engine="streaming")

        first = dt.date(2025, 1, 1)
        ends = [first + dt.timedelta(days=d) for d in range(1, days + 1)]

        def loop(n_windows: int) -> None:
            for end in ends[:n_windows]:
                rows = scan().filter(
                    (pl.col("day") >= end - dt.timedelta(days=7)) & (pl.col("day") < end)
                )
                rows.metrics.summary("y", "p", by="seg").collect(engine="streaming")
                rows.metrics.roc_auc("y", "s", by="seg").collect(engine="streaming")

        t_ours = side_by_side({"ours": ours}, repeat)["ours"]
        start = time.perf_counter()
        loop(loop_windows)
        t_loop = (time.perf_counter() - start) * days / loop_windows
        label = (
            f"over_time(7-day rolling, by 10 segments, accuracy + roc_auc), {days} days x "
            f"{per_day:,} rows = {days * per_day:,} rows, scan_parquet, streaming"
        )
        base = f"loop over the {days} windows (timed on {loop_windows}, scaled)"
        return [(label, t_ours, base, t_loop, 0.1)]
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--per-day", type=int, default=100_000)
    parser.add_argument("--loop-windows", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = scoring(args.rows, args.repeat)
    rows += over_time(args.days, args.per_day, args.loop_windows, 1)
    print_table(rows, f"polars {pl.__version__}, median of {args.repeat} interleaved runs")


if __name__ == "__main__":
    main()
