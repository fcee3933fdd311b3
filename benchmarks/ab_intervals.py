"""A/B of the ``ci=`` cost: the intervals bench's first two cases, for the pl_metrics
found at a given path (a worktree of another commit, or this checkout).

    git worktree add /tmp/old 41630f5
    .venv/bin/python benchmarks/ab_intervals.py /tmp/old
    .venv/bin/python benchmarks/ab_intervals.py .
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
    sys.path.insert(0, str(Path(__file__).parent))
    import numpy as np
    import polars as pl
    from _common import side_by_side

    import pl_metrics

    print(pl_metrics.__file__)
    rng = np.random.default_rng(11)
    n = 10_000_000
    t = rng.integers(0, 10, n)
    p = np.where(rng.random(n) < 0.7, t, rng.integers(0, 10, n))
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) * 0.7 + 0.3 * y * rng.random(n), 2)
    df = pl.DataFrame({"segment": rng.integers(0, 100, n), "t": t, "p": p, "y": y, "s": s})
    m = df.metrics
    r = side_by_side(
        {
            "plain_report": lambda: m.report("t", "p", by="segment"),
            "ci_report": lambda: m.report("t", "p", by="segment", ci=0.95, n_boot=1000),
            "plain_auc": lambda: m.roc_auc("y", "s", by="segment"),
            "ci_auc": lambda: m.roc_auc("y", "s", by="segment", ci=0.95, n_boot=1000),
        },
        7,
    )
    print({k: round(v, 3) for k, v in r.items()})
    print(
        f"report {r['ci_report'] / r['plain_report']:.2f}x, "
        f"roc_auc {r['ci_auc'] / r['plain_auc']:.2f}x"
    )


if __name__ == "__main__":
    main()
