"""A/B of the analytic (delta-method) intervals' cost: ``report`` / ``averages`` /
``per_class`` / ``summary`` with ``ci=0.95`` (their default ``ci_method``) against the
same call without ``ci``, for the pl_metrics found at a given path (a worktree of
another commit, or this checkout), on a small frame (240 rows, 100 segments: the
fixed cost of the query) and on 1,000,000 rows x 10,000 segments of 100 rows.

    git worktree add /tmp/old 9412687
    .venv/bin/python benchmarks/ab_delta.py /tmp/old
    .venv/bin/python benchmarks/ab_delta.py .
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
    from bench_intervals import data

    import pl_metrics

    print(pl_metrics.__file__)
    rng = np.random.default_rng(11)
    small = data(240, rng)
    many = data(1_000_000, rng).with_columns(
        pl.Series("segment", rng.permutation(np.repeat(np.arange(10_000), 100)))
    )
    for label, df, repeat in (("240 rows", small, 9), ("1M rows x 10,000 segments", many, 3)):
        m = df.metrics
        cases = {}
        for method in ("report", "averages", "per_class", "summary"):
            call = getattr(m, method)
            cases[method] = lambda call=call: call("t", "p", by="segment")
            cases[f"{method}(ci)"] = lambda call=call: call("t", "p", by="segment", ci=0.95)
        t = side_by_side(cases, repeat)
        print(f"\n{label} (median of {repeat}, seconds):")
        for method in ("report", "averages", "per_class", "summary"):
            ci, plain = t[f"{method}(ci)"], t[method]
            print(f"  {method}(ci=0.95): {ci:.3f}  plain: {plain:.3f}  ratio {ci / plain:.1f}x")


if __name__ == "__main__":
    main()
