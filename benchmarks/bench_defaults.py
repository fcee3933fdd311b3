"""Issue 25's rows in one run: each public call with its defaults, beside its floor or peer.

    .venv/bin/python benchmarks/bench_defaults.py [--rows 1_000_000] [--segments 1000]
        [--repeat 3] [--slow] [--html] [--memory]

    # issue 49's scale: 5M rows, 6 segments, the report and the peak memory too
    .venv/bin/python benchmarks/bench_defaults.py --rows 5_000_000 --segments 6 --html --memory

One process, continuous scores (``s``, ``s2``: two models), binary labels ``y``,
three-class labels / probabilities for the multiclass rows, ``seg`` with
``--segments`` values.  Each row is (call, its time, the floor or peer, its
time, ratio, the issue's target).  Times are medians of ``--repeat``
interleaved runs; the calls marked slow (the bootstraps, tens of seconds to
minutes on 1M rows) run once, and only with ``--slow``.  ``--memory``: the peak
memory of a few calls, each in a fresh child process (its peak RSS during the call,
the frame held included, beside a child that only holds the frame).
POLARS_MAX_THREADS sets the threads.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator

import numpy as np
import polars as pl
from _common import print_table, side_by_side, timed
from bench_ranking import rank_formula

import pl_metrics  # noqa: F401  (registers .metrics)
from pl_metrics._intervals import draws

AP = "average_precision"
BOOT_SUMMARY = "summary(by=seg, ci=0.95, ci_method='bootstrap')"
RANK_BY = "rank formula in group_by().agg()"
DRAWS = "its bootstrap draws alone"
BOOT_AP = "compare_models(average_precision, ci_method='bootstrap')"


SMALL_SEGMENTS = "roc_auc bootstrap, 10,000 segments x 100 rows x 200 replicates"


def frame(rows: int, segments: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows)
    t = rng.integers(0, 3, rows)
    logits = rng.normal(size=(rows, 3)) + np.eye(3)[t] * 1.5
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return pl.DataFrame(
        {
            "seg": rng.integers(0, segments, rows),
            "y": y,
            "p": np.where(rng.random(rows) < 0.8, y, 1 - y),
            # probabilities (html_report reads them as such), continuous
            "s": 1 / (1 + np.exp(-(rng.normal(size=rows) + y))),
            "s2": 1 / (1 + np.exp(-(rng.normal(size=rows) + 0.8 * y))),
            "t": t,
            "tp": np.where(rng.random(rows) < 0.7, t, rng.integers(0, 3, rows)),
            "q0": prob[:, 0],
            "q1": prob[:, 1],
            "q2": prob[:, 2],
            # 13 weeks of days, for over_time
            "date": np.datetime64("2025-01-06")
            + rng.integers(0, 91, rows).astype("timedelta64[D]"),
        }
    )


#: Peak memory (``--memory``): each call in a child of its own, against the child
#: that only builds the frame.
_MEMORY_CHILD = r"""
import gc, json, sys
sys.path.insert(0, "benchmarks")
from bench_defaults import frame
df = frame(int(sys.argv[1]), int(sys.argv[2]))
m = df.metrics
gc.collect()

def status(field):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(field + ":")) / 1024

held = status("VmRSS")
with open("/proc/self/clear_refs", "w") as f:  # the peak (VmHWM) from here on
    f.write("5")
exec(sys.argv[3])
print(json.dumps({"held_mib": held, "peak_mib": status("VmHWM")}))
"""
MEMORY = {
    "frame only": "pass",
    "roc_auc(by=seg)": 'm.roc_auc("y", "s", by="seg")',
    "compare_models(roc_auc, by=seg)": (
        'm.compare_models("y", ["s", "s2"], metric="roc_auc", by="seg")'
    ),
    "report(by=seg)": 'm.report("y", "p", by="seg")',
    "html_report(by=seg, scores)": (
        'm.html_report("y", "p", y_score="s", by="seg", path="/tmp/bench_defaults_m.html")'
    ),
}


def peak_memory(rows: int, segments: int) -> dict[str, float]:
    """Each call of :data:`MEMORY`: its child's peak RSS during the call (MiB, the
    frame held included, as the issue measured it; the peak reset after the frame is
    built, Linux's ``/proc/self/clear_refs``)."""
    out = {}
    for name, code in MEMORY.items():
        done = subprocess.run(
            [sys.executable, "-c", _MEMORY_CHILD, str(rows), str(segments), code],
            capture_output=True,
            text=True,
            check=True,
        )
        read = json.loads(done.stdout.strip().splitlines()[-1])
        out[name] = read["peak_mib"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=1_000_000)
    parser.add_argument("--segments", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--slow", action="store_true", help="also the bootstraps (minutes)")
    parser.add_argument("--html", action="store_true", help="also html_report, once")
    parser.add_argument("--memory", action="store_true", help="also peak memory, in children")
    args = parser.parse_args()
    df = frame(args.rows, args.segments)
    m = df.metrics
    q = {0: "q0", 1: "q1", 2: "q2"}

    def sort() -> object:
        return df.select(pl.col("s").sort())

    def rank_by() -> object:
        return df.group_by("seg").agg(rank_formula("y", "s"))

    def html(path: str = "/tmp/bench_defaults.html") -> object:
        return m.html_report("y", "p", y_score="s", by="seg", path=path)

    def summary_draws() -> object:
        # the bootstrap draws of summary(by=seg, ci=0.95) alone: its confusion cells
        # counted, sorted as the interval code sorts them, redrawn (the same seeds),
        # nothing reduced: the floor of the multinomial path
        cells = df.group_by("seg", "t", "tp").len().sort("seg", "t", "tp")
        starts, keys = draws._starts(cells, ["seg"])

        def nothing(lo: int, hi: int, blocks: Iterator[np.ndarray]) -> tuple[np.ndarray, dict]:
            for _ in blocks:
                pass
            return np.arange(lo, hi), {}

        counts = cells["len"].to_numpy()
        threads = pl.thread_pool_size()
        return draws.redraw(counts, starts, keys, nothing, n_boot=1000, seed=0, threads=threads)

    def html_sections() -> object:
        # the calls html_report(by=seg, scores) makes, each on its own
        lazy = df.lazy().metrics
        calls = [
            lazy.summary("y", "p", ci=0.95),
            lazy.summary("y", "p", by="seg", ci=0.95),
            lazy.compare("y", "p", by="seg", metric="accuracy", adjust="holm", ci=0.95),
            lazy.report("y", "p", ci=0.95),
            lazy.confusion_matrix("y", "p"),
            lazy.fairness("y", "p", by="seg"),
            lazy.group_rates("y", "p", by="seg"),
            lazy.roc_auc("y", "s", ci=0.95),
            lazy.roc_auc("y", "s", by="seg", ci=0.95),
            lazy.average_precision("y", "s", by="seg", ci=0.95),
            lazy.log_loss("y", "s", by="seg"),
            lazy.brier_score("y", "s", by="seg"),
            lazy.roc_curve("y", "s", by="seg"),
            lazy.pr_curve("y", "s", by="seg"),
            lazy.calibration_error("y", "s", by="seg"),
            lazy.calibration_curve("y", "s", by="seg", ci=0.95),
            lazy.thresholds("y", "s"),
            lazy.gains("y", "s"),
            lazy.ks("y", "s", by="seg"),
            lazy.gains("y", "s", by="seg"),
        ]
        return [c.collect() for c in calls]

    def report_and_scores() -> object:
        return (
            m.report("y", "p", by="seg"),
            m.roc_auc("y", "s", by="seg"),
            m.average_precision("y", "s", by="seg"),
        )

    fast: dict[str, Callable[[], object]] = {
        "polars sort": sort,
        RANK_BY: rank_by,
        "roc_auc": lambda: m.roc_auc("y", "s"),
        "roc_auc(ci=0.95)": lambda: m.roc_auc("y", "s", ci=0.95),
        "average_precision": lambda: m.average_precision("y", "s"),
        "average_precision(ci=0.95)": lambda: m.average_precision("y", "s", ci=0.95),
        "roc_auc(by=seg)": lambda: m.roc_auc("y", "s", by="seg"),
        "roc_auc(by=seg, ci=0.95)": lambda: m.roc_auc("y", "s", by="seg", ci=0.95),
        "average_precision(by=seg)": lambda: m.average_precision("y", "s", by="seg"),
        "average_precision(by=seg, ci=0.95)": (
            lambda: m.average_precision("y", "s", by="seg", ci=0.95)
        ),
        "two roc_auc": lambda: (m.roc_auc("y", "s"), m.roc_auc("y", "s2")),
        "compare_models(roc_auc)": (lambda: m.compare_models("y", ["s", "s2"], metric="roc_auc")),
        "two average_precision": (
            lambda: (m.average_precision("y", "s"), m.average_precision("y", "s2"))
        ),
        "compare_models(average_precision)": (
            lambda: m.compare_models("y", ["s", "s2"], metric="average_precision")
        ),
        "compare_models(average_precision, by=seg)": (
            lambda: m.compare_models("y", ["s", "s2"], metric="average_precision", by="seg")
        ),
        "two average_precision(by=seg)": (
            lambda: (
                m.average_precision("y", "s", by="seg"),
                m.average_precision("y", "s2", by="seg"),
            )
        ),
        "roc_auc, 3 classes": lambda: m.roc_auc("t", q),
        "average_precision, 3 classes": lambda: m.average_precision("t", q),
        "roc_curve": lambda: m.roc_curve("y", "s"),
        "pr_curve": lambda: m.pr_curve("y", "s"),
        "det_curve": lambda: m.det_curve("y", "s"),
        "thresholds": lambda: m.thresholds("y", "s"),
        "best_threshold": lambda: m.best_threshold("y", "s"),
        "ks": lambda: m.ks("y", "s"),
        "gains": lambda: m.gains("y", "s"),
        "expected_cost": lambda: m.expected_cost("y", "s", cost_matrix=[[0, 1], [5, 0]]),
        "cost_curve": lambda: m.cost_curve("y", "s"),
        "summary(by=seg)": lambda: m.summary("t", "tp", by="seg"),
        "report(by=seg)": lambda: m.report("t", "tp", by="seg"),
        "report(by=seg, ci=0.95)": lambda: m.report("t", "tp", by="seg", ci=0.95),
        "summary(by=seg, ci=0.95)": lambda: m.summary("t", "tp", by="seg", ci=0.95),
        BOOT_SUMMARY: lambda: m.summary("t", "tp", by="seg", ci=0.95, ci_method="bootstrap"),
        "compare(by=seg)": lambda: m.compare("t", "tp", by="seg"),
        DRAWS: summary_draws,
        "report + roc_auc + AP by seg": report_and_scores,
        "over_time(roc_auc)": lambda: m.over_time(
            "y", index="date", every="1w", metrics=["roc_auc"], y_score="s", by="seg"
        ),
        "over_time(ks)": lambda: m.over_time(
            "y", index="date", every="1w", metrics=["ks"], y_score="s", by="seg"
        ),
        "ks(by=seg)": lambda: m.ks("y", "s", by="seg"),
        "gains(by=seg)": lambda: m.gains("y", "s", by="seg"),
        "two roc_auc(by=seg)": lambda: (
            m.roc_auc("y", "s", by="seg"),
            m.roc_auc("y", "s2", by="seg"),
        ),
        "compare_models(roc_auc, by=seg)": (
            lambda: m.compare_models("y", ["s", "s2"], metric="roc_auc", by="seg")
        ),
    }
    try:
        from sklearn.metrics import roc_curve as sk_roc_curve

        y, s = df["y"].to_numpy(), df["s"].to_numpy()
        fast["scikit-learn roc_curve"] = lambda: sk_roc_curve(y, s)
    except ImportError:
        pass
    try:
        from scipy.stats import ks_2samp

        y, s = df["y"].to_numpy(), df["s"].to_numpy()
        fast["scipy ks_2samp"] = lambda: ks_2samp(s[y == 1], s[y == 0])
    except ImportError:
        pass
    t = side_by_side(fast, args.repeat)
    rows = [
        ("roc_auc(ci=0.95) (DeLong by default)", "roc_auc(ci=0.95)", "roc_auc", None),
        (
            "average_precision(ci=0.95) (logit)",
            "average_precision(ci=0.95)",
            "average_precision",
            None,
        ),
        ("roc_auc(by=seg, ci=0.95)", "roc_auc(by=seg, ci=0.95)", "roc_auc(by=seg)", None),
        (
            "average_precision(by=seg, ci=0.95)",
            "average_precision(by=seg, ci=0.95)",
            "average_precision(by=seg)",
            None,
        ),
        ("compare_models(roc_auc)", "compare_models(roc_auc)", "two roc_auc", 5.0),
        (
            "compare_models(roc_auc, by=seg)",
            "compare_models(roc_auc, by=seg)",
            "two roc_auc(by=seg)",
            5.0,
        ),
        ("over_time(ks)", "over_time(ks)", "over_time(roc_auc)", 2.0),
        ("ks(by=seg)", "ks(by=seg)", "polars sort", 5.0),
        ("gains(by=seg)", "gains(by=seg)", "polars sort", 5.0),
        (
            "compare_models(average_precision) (delta)",
            "compare_models(average_precision)",
            "two average_precision",
            50.0,
        ),
        (
            "compare_models(average_precision, by=seg) (delta)",
            "compare_models(average_precision, by=seg)",
            "two average_precision(by=seg)",
            50.0,
        ),
        ("average_precision, 3 classes", "average_precision, 3 classes", "roc_auc, 3 classes", 2.0),
        *(
            (name, name, "polars sort", 5.0)
            for name in (
                "roc_curve",
                "pr_curve",
                "det_curve",
                "thresholds",
                "best_threshold",
                "ks",
                "gains",
                "expected_cost",
                "cost_curve",
            )
        ),
        ("roc_curve", "roc_curve", "scikit-learn roc_curve", 1.0),
        ("ks", "ks", "scipy ks_2samp", 1.0),
        ("roc_auc(by=seg)", "roc_auc(by=seg)", RANK_BY, 1.5),
        (
            "average_precision(by=seg)",
            "average_precision(by=seg)",
            "rank formula in group_by().agg()",
            2.0,
        ),
        ("summary(by=seg, ci=0.95) (delta)", "summary(by=seg, ci=0.95)", "summary(by=seg)", 10.0),
        ("compare(by=seg)", "compare(by=seg)", "summary(by=seg)", 10.0),
        ("report(by=seg, ci=0.95) (delta)", "report(by=seg, ci=0.95)", "report(by=seg)", None),
        (BOOT_SUMMARY, BOOT_SUMMARY, "summary(by=seg)", None),
        (BOOT_SUMMARY, BOOT_SUMMARY, DRAWS, 1.3),
    ]
    table = [(name, t[a], b, t[b], target) for name, a, b, target in rows if a in t and b in t]
    if args.html or args.slow:
        page = timed(html, 1)
        table += [
            (
                "html_report(by=seg, scores)",
                page,
                "report + roc_auc + AP by seg",
                t["report + roc_auc + AP by seg"],
                25.0,
            ),
            (
                "html_report(by=seg, scores)",
                page,
                "its sections' calls",
                timed(html_sections, 1),
                1.5,
            ),
        ]
    if args.slow:
        once = {
            "roc_auc(ci_method='bootstrap', n_boot=1000)": (
                lambda: m.roc_auc("y", "s", ci=0.95, ci_method="bootstrap")
            ),
            BOOT_AP: (
                lambda: m.compare_models(
                    "y", ["s", "s2"], metric="average_precision", ci_method="bootstrap"
                )
            ),
        }
        # the small-segment case: 10,000 segments x 100 rows x 200 replicates < 2 s
        rng = np.random.default_rng(1)
        small = pl.DataFrame(
            {
                "seg": np.repeat(np.arange(10_000), 100),
                "y": rng.integers(0, 2, 1_000_000),
                "s": rng.random(1_000_000),
            }
        )
        once[SMALL_SEGMENTS] = lambda: small.metrics.roc_auc(
            "y", "s", by="seg", ci=0.95, ci_method="bootstrap", n_boot=200
        )
        slow = {name: timed(fn, 1) for name, fn in once.items()}
        table += [
            (
                "roc_auc(ci_method='bootstrap', n_boot=1000)",
                slow["roc_auc(ci_method='bootstrap', n_boot=1000)"],
                "roc_auc",
                t["roc_auc"],
                100.0,
            ),
            (BOOT_AP, slow[BOOT_AP], "two average_precision", t["two average_precision"], None),
            (SMALL_SEGMENTS, slow[SMALL_SEGMENTS], "2 seconds (the target)", 2.0, 1.0),
        ]
    if args.memory:
        mib = peak_memory(args.rows, args.segments)
        table += [
            (
                f"peak MiB: {name}",
                mib[name],
                "peak MiB: roc_auc(by=seg)",
                mib["roc_auc(by=seg)"],
                2.0 if name.startswith("compare_models") else None,
            )
            for name in mib
            if name != "roc_auc(by=seg)"
        ]
    threads = os.environ.get("POLARS_MAX_THREADS", str(pl.thread_pool_size()))
    print_table(
        table,
        f"### Defaults: {args.rows:,} rows, {args.segments:,} segments, "
        f"continuous scores, {threads} polars threads, median of {args.repeat}",
    )


if __name__ == "__main__":
    main()
