"""A/B of the ranking bootstrap, for the pl_metrics found at a given path (a worktree of
another commit, or this checkout): ``roc_auc(by=seg, ci=0.95, ci_method="bootstrap",
n_boot=200)`` on 10,000 segments x 100 rows (issue 25's target: under 2 s), best of
5; with ``--large``, ``roc_auc`` and ``average_precision`` with ``ci=0.95,
ci_method="bootstrap"`` (1,000 replicates) on ``bench_defaults``' 1,000,000 rows
beside the plain call (target for AUC: 100x), best of 3; with ``--paired``,
``compare_models`` of two models' average precision by the paired bootstrap on
those rows, best of 2; with ``--gil``, which numpy calls of the bootstrap run
faster on two threads than on one; with ``--poisson``, ``ci_method="poisson"``
beside ``"bootstrap"`` (200 replicates, best of 3 each, in one process); with
``--chunks``, the bootstraps reduced a chunk of segments at a time (the paired
bootstrap, one-vs-rest AUC, ``disparity``) by 1,000 segments, best of 3; with
``--segments``, the label bootstraps by 10,000 segments of 2M rows
(``bench_slow_defaults``' rows): ``compare_models`` of f1 with
``ci_method="bootstrap"`` and by its default (the delta method), of accuracy
with ``ci_method="bootstrap"``, and ``report(ci_method="bootstrap",
n_boot=200)``, best of 2; with ``--stages`` (run it with
``POLARS_MAX_THREADS=1``), ``--large``'s two bootstraps split into their stages,
milliseconds a replicate: the draws (``_Ranges.draw``), the reduction of the
drawn counts, or both at once where the tree folds the replicates as it draws
them (``_Ranges.fold``), and the draws' numpy calls alone (random bits, ``np.take`` of the
cells, ``np.bincount``: what any exact multinomial redraw of every row costs
here), beside the plain call.

    git worktree add /tmp/old aa920fc
    .venv/bin/python benchmarks/ab_bootstrap.py /tmp/old
    .venv/bin/python benchmarks/ab_bootstrap.py .
    POLARS_MAX_THREADS=1 .venv/bin/python benchmarks/ab_bootstrap.py /tmp/old
    POLARS_MAX_THREADS=1 .venv/bin/python benchmarks/ab_bootstrap.py .
    .venv/bin/python benchmarks/ab_bootstrap.py /tmp/old --large
    .venv/bin/python benchmarks/ab_bootstrap.py . --large
    .venv/bin/python benchmarks/ab_bootstrap.py /tmp/old --paired
    .venv/bin/python benchmarks/ab_bootstrap.py . --paired
    .venv/bin/python benchmarks/ab_bootstrap.py . --gil
    .venv/bin/python benchmarks/ab_bootstrap.py . --poisson
    .venv/bin/python benchmarks/ab_bootstrap.py /tmp/old --chunks
    .venv/bin/python benchmarks/ab_bootstrap.py . --chunks
    .venv/bin/python benchmarks/ab_bootstrap.py /tmp/old --segments
    .venv/bin/python benchmarks/ab_bootstrap.py . --segments
    POLARS_MAX_THREADS=1 .venv/bin/python benchmarks/ab_bootstrap.py . --stages
"""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any


def gil() -> None:
    """Each call 2,000 times (a sort 300) on one thread, twice, against twice side by
    side on two threads."""
    import numpy as np

    rng = np.random.default_rng(1)
    counts = rng.integers(0, 5, size=(200, 200))
    cells = rng.integers(0, 20_000, 20_000)
    segments = np.arange(0, 200, 4)
    local = threading.local()  # a generator per thread (a shared one takes a lock)
    calls: dict[str, Any] = {
        "np.cumsum(axis=1)": lambda: np.cumsum(counts, axis=1),
        "np.add.reduceat(axis=1)": lambda: np.add.reduceat(counts, segments, axis=1),
        "np.bincount (20,000 values)": lambda: np.bincount(cells, minlength=20_000),
        "np.add.at": lambda: np.add.at(np.zeros(20_000, np.int64), cells, 1),
        "Generator.integers (uint16)": lambda: local.rng.integers(0, 100, (200, 100), np.uint16),
        "np.take": lambda: np.take(counts.ravel(), cells % counts.size),
        "np.sort (uint16)": lambda: np.sort(cells.astype(np.uint16)),
        "element-wise multiply": lambda: counts * counts,
    }
    print("| numpy call (2,000 calls; a sort 300) | one thread, twice | two threads | speed-up |")
    print("|---|---:|---:|---:|")
    for name, call in calls.items():

        def work(_: object, call: Any = call, name: str = name) -> None:
            local.rng = np.random.default_rng(5)
            for _ in range(300 if "sort" in name else 2_000):
                call()

        start = time.perf_counter()
        work(None)
        work(None)
        one = time.perf_counter() - start
        start = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(work, range(2)))
        two = time.perf_counter() - start
        print(f"| `{name}` | {one:.3f} s | {two:.3f} s | {one / two:.2f} |")


def best(call: Any, repeat: int) -> tuple[float, list[float]]:
    """The best and all of ``repeat`` timed calls, after one untimed."""
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times), times


def _defaults_frame() -> Any:
    """``bench_defaults``' frame: 1M rows of continuous scores, 1,000 segments."""
    sys.path.insert(1, str(Path(__file__).parent))
    from bench_defaults import frame

    return frame(1_000_000, 1000)


def large() -> None:
    """1,000 replicates on 1M rows of continuous scores, beside the plain calls."""
    m = _defaults_frame().metrics
    for name in ("roc_auc", "average_precision"):
        method = getattr(m, name)
        plain, _ = best(lambda method=method: method("y", "s"), 5)
        boot, times = best(
            lambda method=method: method("y", "s", ci=0.95, ci_method="bootstrap"), 3
        )
        print(f"plain {name} {plain:.3f} s; bootstrap best of 3 {boot:.2f} s ({boot / plain:.0f}x)")
        print(f"  all: {', '.join(f'{t:.2f}' for t in times)}")


def stages() -> None:
    """``large()``'s bootstraps by stage, in ms a replicate (one thread: the stages'
    times add up to the call's)."""
    import numpy as np

    from pl_metrics._intervals import draws, sampling

    # a tree that folds a large segment's replicates as it draws them times the two
    # together ("folded"); an older one lays them out, then reduces them
    spent = {"draws": 0.0, "reduction": 0.0, "folded": 0.0}

    def timer(fn: Any, stage: str) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            out = fn(*args, **kwargs)
            spent[stage] += time.perf_counter() - start
            return out

        return timed

    draw = sampling._Ranges.draw
    sampling._Ranges.draw = timer(draw, "draws")  # type: ignore[method-assign]
    fold = getattr(sampling._Ranges, "fold", None)
    if fold is not None:
        sampling._Ranges.fold = timer(fold, "folded")  # type: ignore[attr-defined]
    for metric, (compute, positive_runs) in list(draws.SCORE_METRICS.items()):
        draws.SCORE_METRICS[metric] = (timer(compute, "reduction"), positive_runs)
    m = _defaults_frame().metrics
    n_boot = 1000
    for name in ("roc_auc", "average_precision"):
        plain, _ = best(lambda name=name: getattr(m, name)("y", "s"), 5)
        spent.update(draws=0.0, reduction=0.0, folded=0.0)
        start = time.perf_counter()
        getattr(m, name)("y", "s", ci=0.95, ci_method="bootstrap", n_boot=n_boot)
        total = time.perf_counter() - start
        ms = {stage: 1000 * t / n_boot for stage, t in spent.items()}
        rest = 1000 * total / n_boot - sum(ms.values())
        print(
            f"{name}: plain {plain:.3f} s; bootstrap {total:.2f} s ({total / plain:.0f}x); "
            f"a replicate: draws {ms['draws']:.2f} ms, reduction {ms['reduction']:.2f} ms, "
            f"draws folded {ms['folded']:.2f} ms, the rest {rest:.2f} ms"
        )
    sampling._Ranges.draw = draw  # type: ignore[method-assign]
    if fold is not None:
        sampling._Ranges.fold = fold  # type: ignore[attr-defined]
    # the draws' numpy calls alone, on 1M rows in ranges as _Ranges draws them
    rng = np.random.default_rng(0)
    n, size = 1_000_000, sampling._RANGE
    table = np.sort(rng.integers(0, 2 * size // 3, size)).astype(np.uint16)
    start = time.perf_counter()
    for _ in range(20):
        bits = sampling._bits16(rng, n)
        for lo in range(0, n, size):
            rows = bits[lo : lo + size].astype(np.intp)
            np.bincount(np.take(table, rows).astype(np.intp), minlength=2 * size // 3)
    primitives = 1000 * (time.perf_counter() - start) / 20
    print(
        f"numpy calls alone (bits, take, bincount of 1M rows): {primitives:.2f} ms a replicate, "
        f"{n_boot} replicates {primitives * n_boot / 1000:.1f} s on one thread"
    )


def paired() -> None:
    """The paired bootstrap of two models' average precision on the same 1M rows."""
    m = _defaults_frame().metrics
    fastest, times = best(
        lambda: m.compare_models(
            "y", ["s", "s2"], metric="average_precision", ci_method="bootstrap"
        ),
        2,
    )
    print(f"compare_models(average_precision, bootstrap): best of 2 {fastest:.2f} s")
    print(f"  all: {', '.join(f'{t:.2f}' for t in times)}")


def _small_segments() -> Any:
    """10,000 segments of 100 rows: a label, a prediction and a continuous score."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(1)
    n = 1_000_000
    return pl.DataFrame(
        {"seg": np.repeat(np.arange(10_000), 100), "y": rng.integers(0, 2, n), "s": rng.random(n)}
    ).with_columns(p=(pl.col("s") > 0.5).cast(pl.Int64))


def poisson() -> None:
    """The Poisson bootstrap beside the multinomial one, on the same frames (200
    replicates each, best of 3)."""
    big, small = _defaults_frame(), _small_segments()
    boot = {"ci": 0.95, "n_boot": 200, "seed": 1}
    calls = {
        "roc_auc, 1M continuous rows": lambda m: big.metrics.roc_auc("y", "s", **boot, ci_method=m),
        "roc_auc(by=seg), 10,000 x 100 rows": lambda m: small.metrics.roc_auc(
            "y", "s", by="seg", **boot, ci_method=m
        ),
        "report(by=seg), 10,000 x 100 rows": lambda m: small.metrics.report(
            "y", "p", by="seg", **boot, ci_method=m
        ),
    }
    print("| call (200 replicates) | bootstrap | poisson | ratio |")
    print("|---|---:|---:|---:|")
    for name, call in calls.items():
        multinomial, _ = best(lambda call=call: call("bootstrap"), 3)
        poisson_, _ = best(lambda call=call: call("poisson"), 3)
        ratio = poisson_ / multinomial
        print(f"| {name} | {multinomial:.2f} s | {poisson_:.2f} s | {ratio:.2f} |")


def chunks() -> None:
    """The bootstraps whose reductions take a chunk of segments at once, by 1,000
    segments of 200 rows (200 replicates), best of 3."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(1)
    n = 200_000
    df = pl.DataFrame(
        {
            "seg": rng.integers(0, 1000, n),
            "y": rng.integers(0, 2, n),
            "s": rng.random(n).round(2),
            "s2": rng.random(n).round(2),
            "t": rng.integers(0, 3, n),
            "p": rng.integers(0, 3, n),
            "p2": rng.integers(0, 3, n),
            **{f"c{k}": rng.random(n) for k in range(3)},
        }
    )
    m, boot = df.metrics, {"by": "seg", "n_boot": 200}
    calls = {
        "compare_models(metric='accuracy')": lambda: m.compare_models(
            "t", ["p", "p2"], metric="accuracy", **boot
        ),
        "compare_models(metric='mcc')": lambda: m.compare_models(
            "t", ["p", "p2"], metric="mcc", **boot
        ),
        "compare_models(metric='average_precision', ci_method='bootstrap')": lambda: (
            m.compare_models(
                "y", ["s", "s2"], metric="average_precision", ci_method="bootstrap", **boot
            )
        ),
        "roc_auc({label: column}, ci_method='bootstrap')": lambda: m.roc_auc(
            "t", {0: "c0", 1: "c1", 2: "c2"}, ci=0.95, ci_method="bootstrap", **boot
        ),
        "disparity(metric='accuracy', ci=0.95)": lambda: m.disparity(
            "t", "p", metric="accuracy", ci=0.95, **boot
        ),
    }
    for name, call in calls.items():
        fastest, times = best(call, 3)
        print(f"{name}: best of 3 {fastest:.2f} s; all: {', '.join(f'{t:.2f}' for t in times)}")


def segments() -> None:
    """The label bootstraps by 10,000 segments of 2M rows, best of 2."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(0)
    n = 2_000_000
    y = (rng.random(n) < 0.3).astype(np.int64)
    df = pl.DataFrame(
        {
            "y": y,
            "seg": rng.integers(0, 10_000, n),
            "a": (rng.random(n) < 0.3 + 0.4 * y).astype(np.int64),
            "b": (rng.random(n) < 0.3 + 0.3 * y).astype(np.int64),
        }
    )
    m = df.metrics
    calls = {
        "compare_models(metric='f1', ci_method='bootstrap', by=seg)": lambda: m.compare_models(
            "y", ["a", "b"], metric="f1", ci_method="bootstrap", by="seg"
        ),
        "compare_models(metric='f1', by=seg) (the delta method)": lambda: m.compare_models(
            "y", ["a", "b"], metric="f1", by="seg"
        ),
        "compare_models(metric='accuracy', ci_method='bootstrap', by=seg)": lambda: (
            m.compare_models("y", ["a", "b"], metric="accuracy", ci_method="bootstrap", by="seg")
        ),
        "report(by=seg, ci_method='bootstrap', n_boot=200)": lambda: m.report(
            "y", "a", by="seg", ci=0.95, ci_method="bootstrap", n_boot=200
        ),
    }
    for name, call in calls.items():
        fastest, times = best(call, 2)
        print(f"{name}: best of 2 {fastest:.2f} s; all: {', '.join(f'{t:.2f}' for t in times)}")


def main() -> None:
    sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
    if "--gil" in sys.argv:
        gil()
        return
    import polars as pl

    import pl_metrics

    print(pl_metrics.__file__, "polars threads:", pl.thread_pool_size())
    if "--large" in sys.argv:
        large()
        return
    if "--paired" in sys.argv:
        paired()
        return
    if "--poisson" in sys.argv:
        poisson()
        return
    if "--chunks" in sys.argv:
        chunks()
        return
    if "--segments" in sys.argv:
        segments()
        return
    if "--stages" in sys.argv:
        stages()
        return
    small = _small_segments()

    def call() -> pl.DataFrame:
        return small.metrics.roc_auc("y", "s", by="seg", ci=0.95, ci_method="bootstrap", n_boot=200)

    fastest, times = best(call, 5)
    print(f"best of 5: {fastest:.2f} s; all: {', '.join(f'{t:.2f}' for t in times)}")


if __name__ == "__main__":
    main()
