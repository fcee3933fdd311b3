"""Coverage and width of the average precision's intervals (issue 49), by simulation.

Each cell of the table: ``--reps`` segments of i.i.d. rows, each row positive with
probability ``--prevalence`` (``positives / prevalence`` rows: ``positives`` on
average), scores binormal (negatives N(0, 1), positives N(mu, 1)), mu set so that
the population's AP is the cell's (the AP of the population: the mean over the
positives' scores of the precision at their threshold, by quadrature).  Every
segment gets the 95 % interval of ``average_precision(by=...)`` with
``ci_method="logit"`` (the default), ``"boyd"`` (Boyd, Eng & Page's, the default
before) and, on the first ``--boot-reps`` segments, ``"bootstrap"`` (``--n-boot``
replicates): the share of segments whose interval holds the population's AP
(coverage) and the median width.  ``perfect``: the share of segments whose
positives all rank above every negative (AP = 1).

    .venv/bin/python benchmarks/sim_ap_interval.py            # the docs' table
    .venv/bin/python benchmarks/sim_ap_interval.py --prevalence 0.01 --reps 300

scipy (installed with scikit-learn, the ``bench`` extra) gives the normal's log tail.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl
from scipy.special import log_ndtr

import pl_metrics  # noqa: F401 - registers .metrics

LEVEL = 0.95


def population_ap(mu: float, prevalence: float) -> float:
    """The AP of the binormal population: E over a positive's score s of the precision
    at s, ``pi S1(s) / (pi S1(s) + (1 - pi) S0(s))`` (S the upper tails), by the
    trapezoid rule over mu -+ 12 (the tails in logs: no underflow)."""
    s = np.linspace(mu - 12.0, mu + 12.0, 400_001)
    log_ratio = log_ndtr(-s) - log_ndtr(-(s - mu))  # log S0(s) - log S1(s)
    precision = 1.0 / (1.0 + (1.0 - prevalence) / prevalence * np.exp(log_ratio))
    density = np.exp(-0.5 * (s - mu) ** 2) / np.sqrt(2.0 * np.pi)
    return float(np.trapezoid(precision * density, s))


def separation(target: float, prevalence: float) -> float:
    """The mu whose population AP is ``target`` (bisection: the AP grows with mu)."""
    low, high = 0.0, 20.0
    for _ in range(80):
        mid = (low + high) / 2
        low, high = (mid, high) if population_ap(mid, prevalence) < target else (low, mid)
    return (low + high) / 2


def segments(
    mu: float, prevalence: float, rows: int, reps: int, rng: np.random.Generator
) -> pl.DataFrame:
    """``reps`` segments (``rep``) of ``rows`` i.i.d. rows."""
    y = rng.random(reps * rows) < prevalence
    score = rng.standard_normal(reps * rows) + mu * y
    rep = np.repeat(np.arange(reps, dtype=np.int32), rows)
    return pl.DataFrame({"rep": rep, "y": y, "s": score})


def summary(frame: pl.DataFrame, truth: float) -> tuple[float, float]:
    """Coverage of ``truth`` and median width of the frame's intervals."""
    low, high = pl.col("average_precision_low"), pl.col("average_precision_high")
    return frame.select(((low <= truth) & (truth <= high)).mean(), (high - low).median()).row(0)


def cell(
    target: float, positives: int, args: argparse.Namespace, rng: np.random.Generator
) -> dict[str, object]:
    mu = separation(target, args.prevalence)
    truth = population_ap(mu, args.prevalence)
    rows = round(positives / args.prevalence)
    reps = args.reps if positives < 5000 else args.reps // 2
    df = segments(mu, args.prevalence, rows, reps, rng)
    df = df.filter(pl.col("y").any().over("rep"))  # a segment without positives has no AP
    m = df.metrics
    start = time.perf_counter()
    logit = m.average_precision("y", "s", by="rep", ci=LEVEL)
    boyd = m.average_precision("y", "s", by="rep", ci=LEVEL, ci_method="boyd")
    boot_reps = args.boot_reps if positives < 5000 else args.boot_reps // 3
    first = df.filter(pl.col("rep") < boot_reps).metrics
    boot = first.average_precision(
        "y", "s", by="rep", ci=LEVEL, ci_method="bootstrap", n_boot=args.n_boot, seed=1
    )
    return {
        "target": target,
        "positives": positives,
        "truth": truth,
        "perfect": logit.select((pl.col("average_precision") == 1).mean()).item(),
        "reps": logit.height,
        "boot_reps": boot.height,
        "logit": summary(logit, truth),
        "boyd": summary(boyd, truth),
        "bootstrap": summary(boot, truth),
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--reps", type=int, default=1000, help="segments per cell (half at 5,000 positives)"
    )
    parser.add_argument(
        "--boot-reps", type=int, default=300, help="segments bootstrapped (a third at 5,000)"
    )
    parser.add_argument("--n-boot", type=int, default=200)
    parser.add_argument("--prevalence", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--levels", type=float, nargs="+", default=[0.5, 0.9, 0.99, 0.999])
    parser.add_argument("--positives", type=int, nargs="+", default=[50, 500, 5000])
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        f"95 % intervals of the AP: coverage of the population's AP / median width; "
        f"prevalence {args.prevalence}, seed {args.seed}, bootstrap of {args.n_boot} replicates\n"
    )
    print(
        "| AP | positives | population AP | perfect | segments (bootstrap) "
        "| logit (default) | bootstrap | logit / bootstrap width | boyd (before) |"
    )
    print("|---:|---:|---:|---:|---:|---|---|---:|---|")
    for target in args.levels:
        for positives in args.positives:
            r = cell(target, positives, args, rng)
            (lc, lw), (bc, bw), (oc, ow) = r["logit"], r["bootstrap"], r["boyd"]
            ratio = f"{lw / bw:.2f}" if bw > 0 else "(bootstrap 0)"
            print(
                f"| {target} | {positives:,} | {r['truth']:.6f} | {r['perfect']:.2f} "
                f"| {r['reps']} ({r['boot_reps']}) | {lc:.3f} / {lw:.2e} | {bc:.3f} / {bw:.2e} "
                f"| {ratio} | {oc:.3f} / {ow:.2e} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
