"""Paired comparison of two models scored on the same rows: McNemar, DeLong, paired bootstrap.

Two models evaluated on the same rows are not independent samples: their
errors are correlated, and a test that ignores it (two intervals that
overlap) has little power.  The paired tests here use the joint state of a
segment, the counts of its distinct ``(y_true, baseline, model)`` rows
(:func:`label_cells`, :func:`score_cells`), built with one ``group_by``:

- accuracy: McNemar's test on the discordant rows, ``b`` (baseline right,
  model wrong) and ``c`` (the reverse): the exact binomial test
  (``statistic = min(b, c)``, ``p = min(1, 2 P(Bin(b + c, 1/2) <= min(b, c)))``)
  when ``b + c <`` :data:`EXACT_BELOW`, else the chi-square test with
  continuity correction (``statistic = (|b - c| - 1)^2 / (b + c)``, 1 degree
  of freedom), as ``statsmodels.stats.contingency_tables.mcnemar`` with
  ``exact=True`` / ``exact=False``; the rule is the usual one (the normal
  approximation of Bin(n, 1/2) is poor below 25 trials).
- roc_auc: DeLong, DeLong & Clarke-Pearson's (1988) test of two correlated
  AUCs, from the placements of every positive and negative under each model
  (their mid-ranks, Sun & Xu 2014: one sort of the cells per model, no pair
  loop, no join): ``z = diff / se``, ``se^2 = S10 / P + S01 / N`` with S10 / S01 the
  sample variances (denominators P - 1, N - 1) of the placement differences
  of the positives / negatives (the contrast of DeLong's covariance matrix,
  ``L S L'``); interval ``diff +- z_ci se``, clipped to [-1, 1].  The
  placements come from one vectorised numpy call over all segments
  (``paired_delong._placements_numpy``), or without numpy from one polars query
  (``paired_delong._placements``); on continuous scores the cells are the rows
  themselves (``score_cells(counted=False)``).
- every other metric: the paired bootstrap.  A replicate is one multinomial (or,
  ``ci_method="poisson"``, Poisson) redraw of the segment's joint cells
  (:func:`pl_metrics._intervals.draws.per_chunk`: seeded by ``seed`` and a
  stable hash of the segment's key and the model's name, so the same whatever
  the row order, the other segments and the other models), both models'
  metric computed on it by the replicate formulas of
  :mod:`pl_metrics._intervals.replicates`.  The replicate differences (0
  within a relative 1e-12: ``fairness.difference``) give the percentile
  interval (``resample.percentile_bounds``) and the p-value
  ``min(1, 2 min((1 + #(d <= 0)) / (1 + B), (1 + #(d >= 0)) / (1 + B)))`` over
  the B defined replicates (``resample.p_value``), as ``compare``'s.

Accuracy's interval is the paired bootstrap's too (McNemar's test has none).
numpy is imported inside the functions (the bootstrap needs it; DeLong uses it where installed).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from pl_metrics._core import catalogue, checks, formulas, scores
from pl_metrics._core.confusion import label_key
from pl_metrics._core.names import INTERNAL
from pl_metrics._groups import fairness as groups_fairness
from pl_metrics._intervals import analytic, draws, replicates, resample
from pl_metrics._intervals.draws import score_counts_of_block

if TYPE_CHECKING:
    import numpy as np

#: compare_models' metrics by family, in the catalogue's order (``_core.catalogue``)
LABEL_METRICS = catalogue.names_of("summary", paired=True)
BINARY_METRICS = catalogue.names_of("binary", paired=True)
SCORE_METRICS = catalogue.names_of("ranking", paired=True)
METRICS = catalogue.names_of(paired=True)
#: The ``ci_method`` values of each metric (the first, the default): DeLong's test of
#: correlated AUCs, the delta method for average precision (a sort per model; the
#: paired bootstrap redraws every row), McNemar's test and the Agresti-Min interval
#: for accuracy, the delta method over the joint cells for the other label metrics
#: (their paired bootstrap: 9 s by 10,000 segments of 2M rows).
CI_METHODS: dict[str, tuple[str, ...]] = {m: catalogue.CATALOGUE[m].paired for m in METRICS}
#: The discordant rows below which McNemar's test is the exact binomial one.
EXACT_BELOW = 25
#: The binary metrics' zero_division and beta (those of per_class's defaults).
ZERO_DIVISION = 0.0

#: The model's name (a key of the draws' seed) and its position in ``models``.
MODEL = f"{INTERNAL}model"
ORDER = f"{INTERNAL}model_ord"
#: The joint cells: the actual label (or "is positive"), the two models' labels
#: (or scores), and the number of rows.
Y, A, B = f"{INTERNAL}y", f"{INTERNAL}a", f"{INTERNAL}b"
COUNT = f"{INTERNAL}cell_count"
#: The point values and the test's columns.
VALUE, BASE = f"{INTERNAL}value", f"{INTERNAL}baseline_value"
LOW, HIGH, TEST, STAT, P = (f"{INTERNAL}{c}" for c in ("low", "high", "test", "stat", "p"))
SE = f"{INTERNAL}se"
_ORDS = {c: f"{c}_class" for c in (Y, A, B)}  # class positions
_POS_ORD = f"{INTERNAL}pos_ord"
_LABEL = f"{INTERNAL}label"
_N, _LO, _HI = (f"{INTERNAL}{c}" for c in ("n", "lo", "hi"))  # McNemar's cells
#: A replicate's value of the baseline and of the model.
_VALUES = (f"{INTERNAL}baseline_rep", f"{INTERNAL}model_rep")

TEST_SCHEMA = {LOW: pl.Float64, HIGH: pl.Float64, TEST: pl.String, STAT: pl.Float64, P: pl.Float64}


# --------------------------------------------------------------------------- the tests
def mcnemar(b: int, c: int) -> tuple[str, float, float]:
    """``(test, statistic, p_value)`` of McNemar's test on the discordant counts."""
    n = b + c
    if n < EXACT_BELOW:
        k = min(b, c)
        tail = sum(math.comb(n, i) for i in range(k + 1))  # exact integers
        return "mcnemar_exact", float(k), min(1.0, 2 * tail / 2**n)
    statistic = (abs(b - c) - 1) ** 2 / n
    return "mcnemar_chi2", statistic, math.erfc(math.sqrt(statistic / 2))  # chi2(1).sf


#: A difference within this is none (two values summed in their own orders).
_NO_DIFFERENCE = 1e-12


def delong_columns(
    diff: pl.Expr, se: pl.Expr, ci: float, test: str = "delong", bound: float = 1.0
) -> list[pl.Expr]:
    """``LOW, HIGH, TEST, STAT, P`` of a z test (DeLong's, or ``test``) from the
    difference and its se (the interval clipped to [-bound, bound]: [-1, 1], the
    range of a difference of AUCs, of average precisions or of rates; 2 for MCC and
    Cohen's kappa).  A se of 0: statistic 0 and p-value 1 without a difference, else
    null (the interval too)."""
    z = analytic.z_value(ci)
    # se 0 and no difference (within rounding): the two models rank / predict every
    # row alike: statistic 0, p-value 1.  se 0 with a difference (both models at an
    # end of the metric's range, e.g. recalls 0 and 1): the variance says nothing,
    # so no interval and no test (the bootstrap, when asked, has them)
    degenerate = (se == 0) & (diff.abs() > _NO_DIFFERENCE)
    statistic = pl.when(se == 0).then(0.0).otherwise(diff / se)
    statistic = pl.when(~degenerate).then(statistic)
    return [
        pl.when(~degenerate).then((diff - z * se).clip(-bound, bound)).alias(LOW),
        pl.when(~degenerate).then((diff + z * se).clip(-bound, bound)).alias(HIGH),
        pl.lit(test).alias(TEST),
        statistic.alias(STAT),
        statistic.map_batches(analytic.normal_p_value, return_dtype=pl.Float64).alias(P),
    ]


# --------------------------------------------------------------------------- joint cells
def common_label_types(schema: pl.Schema, y_true: str, a: str, b: str) -> checks.LabelTypes:
    """The label dtype of three label columns: the lossless common dtype of the two
    pairs' (``checks.label_types``), and the float columns among them."""
    ta, tb = checks.label_types(schema, y_true, a), checks.label_types(schema, y_true, b)
    both = pl.Schema({"a": ta.compute, "b": tb.compute})
    dtype = checks.label_types(both, "a", "b").compute
    floats = tuple(dict.fromkeys(c for c in (y_true, a, b) if schema[c].is_float()))
    return checks.LabelTypes(compute=dtype, output=dtype, float_columns=floats)


def label_cells(
    lf: pl.LazyFrame, keys: Sequence[str], y_true: str, a: str, b: str, *, types: checks.LabelTypes
) -> pl.LazyFrame:
    """``*keys, Y, A, B, COUNT``: the rows of each distinct (actual, baseline, model)
    labels; float labels stay Float64 here (cast after the data checks)."""
    return lf.group_by(
        *keys, label_key(y_true, Y, types), label_key(a, A, types), label_key(b, B, types)
    ).agg(pl.len().cast(pl.Int64).alias(COUNT))


def score_cells(
    lf: pl.LazyFrame,
    keys: Sequence[str],
    positive: pl.Expr,
    a: str,
    b: str,
    *,
    schema: pl.Schema,
    counted: bool = True,
) -> pl.LazyFrame:
    """``*keys, Y, A, B, COUNT``: the rows of each distinct (is positive, baseline score,
    model score), the scores as the ranking methods compare them (``scores.as_score``).

    ``counted=False``: a cell per row (``COUNT`` 1), for :func:`delong_se`, which takes
    repeated cells: on continuous scores every row is its own cell, and counting
    them would cost a ``group_by`` for nothing.  Not for the bootstrap, which
    redraws the distinct cells."""
    columns = (
        positive.alias(Y),
        scores.as_score(a, schema[a]).alias(A),
        scores.as_score(b, schema[b]).alias(B),
    )
    if not counted:
        return lf.select(*keys, *columns, pl.lit(1, pl.Int64).alias(COUNT))
    return lf.group_by(*keys, *columns).agg(pl.len().cast(pl.Int64).alias(COUNT))


# --------------------------------------------------------------------------- bootstrap


def _label_reduce(metric: str) -> draws.Reduce:
    """A chunk's replicate values of a label metric, baseline and model (and McNemar's
    test): ``*keys, VALUES, TEST, STAT, P`` rows, a segment's replicates in order.

    The cells carry the class positions of their labels (``_ORDS``), the number
    of classes and the position of pos_label.  Each model's cells are the joint
    cells merged by (segment, actual, its prediction); their per-class counts
    (``draws.class_counter``, the chunk's segments side by side) give the metric
    by ``replicates.summary`` or ``replicates.scores`` (the bootstrap intervals'
    formulas), segments with as many classes at once.
    """
    import numpy as np

    mcnemar_test = catalogue.CATALOGUE[metric].paired_test == "mcnemar"

    def value(tp: np.ndarray, support: np.ndarray, predicted: np.ndarray, pos: np.ndarray) -> Any:
        """replicate x segment, from counts replicate x segment x class."""
        if metric in LABEL_METRICS:
            return replicates.summary(tp, support, predicted)[metric]
        name = formulas.score_key(metric)
        scores = replicates.scores(tp, support, predicted, 1.0, ZERO_DIVISION)[name]
        return np.take_along_axis(scores, pos[None, :, None], axis=2)[..., 0]

    def reduce(
        chunk: draws.Chunk, blocks: draws.Blocks
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        y, a, b = (chunk.cells[_ORDS[c]].to_numpy() for c in (Y, A, B))
        seg, m = chunk.segment, chunk.size
        k, pos = chunk.first(draws.N_LABELS).astype(np.int64), chunk.first(_POS_ORD)
        first = np.cumsum(k) - k  # each segment's first class slot
        width = int(k.max())
        models = []  # per model: how the joint cells sum into its cells, and their counts
        for model in (a, b):
            pairs, cell = np.unique((seg * width + y) * width + model, return_inverse=True)
            own = pairs // (width * width)
            merge = draws.grouper(cell.ravel(), len(pairs))
            count = draws.class_counter(
                (pairs // width) % width,
                pairs % width,
                first[own],
                own,
                int(k.sum()),
                restrict=True,
                fixed_total=blocks.fixed_total,
            )
            models.append((merge, count))
        sizes = [(size, np.flatnonzero(k == size)) for size in np.unique(k)]

        def both(block: np.ndarray) -> list[np.ndarray]:
            out = []
            for merge, count in models:
                tp, support, predicted, n = count(merge(block))
                values = np.empty((len(block), m))
                for size, members in sizes:  # segments with as many classes together
                    at = first[members][:, None] + np.arange(size)  # segment x class
                    values[:, members] = value(
                        tp[:, at], support[:, at], predicted[:, at], pos[members]
                    )
                out.append(draws.defined(values, blocks, n))  # a Poisson replicate without rows
            return out

        base, other = (np.concatenate(v) for v in zip(*blocks.map(both), strict=True))
        columns = {_VALUES[0]: base.T.ravel(), _VALUES[1]: other.T.ravel()}  # segment, replicate
        count = chunk.cells[COUNT].to_numpy()
        if mcnemar_test:
            discordant = [
                np.bincount(seg, weights=count * ((y == a) & (y != b)), minlength=m),
                np.bincount(seg, weights=count * ((y != a) & (y == b)), minlength=m),
            ]
            names, stat, p = mcnemar_many(*(d.astype(np.int64) for d in discordant))
            # each distinct name's position, not a Python call per segment
            distinct, inverse = np.unique(names, return_inverse=True)
            codes = np.array([_TESTS.index(str(t)) for t in distinct], dtype=np.uint8)[inverse]
            tests = (codes, stat, p)
        else:
            code = np.full(m, _test_code(blocks), dtype=np.uint8)
            tests = (code, np.full(m, math.nan), np.full(m, math.nan))
        n_boot = len(base)
        for name, column in zip((TEST, STAT, P), tests, strict=True):
            columns[name] = np.repeat(column, n_boot)
        return np.repeat(np.arange(m), n_boot), columns

    return reduce


#: The ``test`` names of the paired bootstrap's rows, carried per replicate row by their
#: position here (a string a replicate row: 10,000,000 strings by 10,000 segments).
_TESTS = ("paired_bootstrap", "paired_poisson_bootstrap", "mcnemar_exact", "mcnemar_chi2")


def _test_code(blocks: draws.Blocks) -> int:
    """The ``test`` of the paired bootstrap (its position in :data:`_TESTS`): which
    bootstrap drew the replicates."""
    return _TESTS.index("paired_bootstrap" if blocks.fixed_total else "paired_poisson_bootstrap")


def mcnemar_many(b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`mcnemar` of each segment's discordant counts (computed once per distinct
    pair: segments of a chunk often share one)."""
    import numpy as np

    pairs, inverse = np.unique(np.stack([b, c], axis=1), axis=0, return_inverse=True)
    tests = [mcnemar(int(x), int(y)) for x, y in pairs]
    inverse = inverse.ravel()
    return (
        np.array([t[0] for t in tests], dtype=object)[inverse].astype(str),
        np.array([t[1] for t in tests], dtype=np.float64)[inverse],
        np.array([t[2] for t in tests], dtype=np.float64)[inverse],
    )


def _ap_reduce(
    chunk: draws.Chunk, blocks: draws.Blocks
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A chunk's replicate values of average precision, baseline and model: each one's
    redrawn per-score counts (:func:`score_counts_of_block`, segments side by side)
    and ``replicates.average_precision`` per segment."""
    import numpy as np

    positive = chunk.cells[Y].to_numpy()
    counts = [
        score_counts_of_block(positive, chunk.cells[score].to_numpy(), chunk.segment)
        for score in (A, B)
    ]

    def both(block: np.ndarray) -> list[np.ndarray]:
        values = [replicates.average_precision(*count(block), starts) for count, starts in counts]
        # each segment's rows, for the Poisson replicates without any (undefined)
        rows = functools.cache(lambda: np.add.reduceat(block, chunk.starts[:-1], axis=1))
        return [draws.defined(v, blocks, rows) for v in values]

    def reduced(block: np.ndarray) -> list[np.ndarray]:
        return [np.concatenate(v) for v in zip(*draws.in_cache(both, block), strict=True)]

    base, other = (np.concatenate(v) for v in zip(*blocks.map(reduced), strict=True))
    m, n_boot = chunk.size, len(base)
    columns = {_VALUES[0]: base.T.ravel(), _VALUES[1]: other.T.ravel()}  # segment, replicate
    columns |= {
        TEST: np.full(m * n_boot, _test_code(blocks), dtype=np.uint8),
        STAT: np.full(m * n_boot, math.nan),
        P: np.full(m * n_boot, math.nan),
    }
    return np.repeat(np.arange(m), n_boot), columns


def _with_label_positions(
    df: pl.DataFrame, keys: list[str], dtype: pl.DataType, pos: Any
) -> pl.DataFrame:
    """The cells with the class position of each label in its segment (the sorted
    union of the three columns' labels and pos_label), and the number of classes."""
    df = df.with_columns(pl.col(Y, A, B).cast(dtype))
    union = [df.select(*keys, pl.col(c).alias(_LABEL)) for c in (Y, A, B)]
    if pos is not None:
        union.append(df.select(keys).with_columns(pl.lit(pos, dtype).alias(_LABEL)))
    labels = pl.concat(union).unique()
    ords = pl.col(_LABEL).rank("dense").over(keys).cast(pl.Int64) - 1
    labels = labels.with_columns(ords.alias(_ORDS[Y]))
    for column in (Y, A, B):
        df = df.join(
            labels.select(
                *keys, pl.col(_LABEL).alias(column), pl.col(_ORDS[Y]).alias(_ORDS[column])
            ),
            on=[*keys, column],
            how="left",
            nulls_equal=True,
        )
    sizes = labels.group_by(keys).agg(
        pl.len().cast(pl.Int64).alias(draws.N_LABELS),
        (pl.col(_ORDS[Y]).filter(pl.col(_LABEL) == pos).first() if pos is not None else pl.lit(0))
        .fill_null(0)
        .cast(pl.Int64)
        .alias(_POS_ORD),
    )
    return df.join(sizes, on=keys, how="left", nulls_equal=True)


def mcnemar_tests(cells: pl.LazyFrame, keys: Sequence[str], ci: float) -> pl.LazyFrame:
    """``*keys, LOW, HIGH, TEST, STAT, P`` of accuracy without replicates, from the joint
    cells ``*keys, Y, A, B, COUNT``: McNemar's test on the discordant rows and the
    Agresti-Min interval of the difference of the two accuracies
    (``analytic.paired_difference_bounds``), the model's accuracy less the
    baseline's, ``(c - b) / n``."""
    keys = list(keys)
    right_a, right_b = pl.col(A) == pl.col(Y), pl.col(B) == pl.col(Y)
    count = pl.col(COUNT)
    discordant = cells.group_by(keys).agg(
        count.filter(right_a & ~right_b).sum().alias(_LO),  # b: baseline right, model wrong
        count.filter(~right_a & right_b).sum().alias(_HI),  # c: the model right alone
        count.sum().alias(_N),
    )
    low, high = analytic.paired_difference_bounds(pl.col(_HI), pl.col(_LO), pl.col(_N), ci)
    schema = {TEST: pl.String, STAT: pl.Float64, P: pl.Float64}

    def tests(df: pl.DataFrame) -> pl.DataFrame:
        if df.height == 0:
            return df.with_columns(pl.lit(None, dtype).alias(c) for c, dtype in schema.items())
        test, stat, p = mcnemar_many(df[_LO].to_numpy(), df[_HI].to_numpy())
        return df.with_columns(
            pl.Series(TEST, test, pl.String), pl.Series(STAT, stat), pl.Series(P, p)
        )

    return (
        discordant.with_columns(low.alias(LOW), high.alias(HIGH))
        .map_batches(
            tests, schema=discordant.collect_schema() | {LOW: pl.Float64, HIGH: pl.Float64} | schema
        )
        .select(*keys, *TEST_SCHEMA)
    )


def bootstrap_tests(
    cells: pl.LazyFrame,
    keys: Sequence[str],
    *,
    metric: str,
    labels: tuple[pl.DataType, Any] | None,
    ci: float,
    n_boot: int,
    seed: int | None,
) -> pl.LazyFrame:
    """``*keys, LOW, HIGH, TEST, STAT, P`` of the paired bootstrap (McNemar's test for
    accuracy) from the joint cells ``*keys, Y, A, B, COUNT`` (``keys`` end with MODEL).

    ``labels``: the label dtype of the cells and pos_label in it (label metrics),
    None for average precision.  The cells must come checked (joined to the
    point values, whose methods check the data): the cast of float labels and
    the class positions need labels that are labels.
    """
    keys = list(keys)
    schema = cells.collect_schema()
    # a row per replicate: both models' values, and McNemar's test (accuracy); the
    # test's name by its position in _TESTS
    rep_schema = pl.Schema(
        {k: schema[k] for k in keys}
        | {_VALUES[0]: pl.Float64, _VALUES[1]: pl.Float64}
        | {TEST: pl.UInt8, STAT: pl.Float64, P: pl.Float64}
    )
    threads = pl.thread_pool_size()
    reduce = _ap_reduce if labels is None else _label_reduce(metric)

    def run(df: pl.DataFrame) -> pl.DataFrame:
        if df.height == 0:
            return pl.DataFrame(schema=rep_schema)
        if labels is not None:
            df = _with_label_positions(df, keys, *labels)
        df = df.sort([*keys, Y, A, B], nulls_last=True)
        out = draws.per_chunk(
            df, keys, df[COUNT].to_numpy(), reduce, n_boot=n_boot, seed=seed, threads=threads
        )
        return out.select(list(rep_schema)).cast(dict(rep_schema))

    d = groups_fairness.difference(
        pl.col(_VALUES[1]), pl.col(_VALUES[0])
    )  # 0 within a relative 1e-12
    low, high = resample.percentile_bounds(d, ci)
    mcnemar_test = catalogue.CATALOGUE[metric].paired_test == "mcnemar"
    p = pl.col(P).first() if mcnemar_test else resample.p_value(d)
    tests = (
        cells.map_batches(run, schema=rep_schema)
        .group_by(keys)
        .agg(low.alias(LOW), high.alias(HIGH), pl.col(TEST, STAT).first(), p.alias(P))
        .with_columns(pl.col(TEST).replace_strict(dict(enumerate(_TESTS)), return_dtype=pl.String))
    )
    return tests.with_columns(pl.col(LOW, HIGH, STAT, P).fill_nan(None))


__all__ = [
    "BINARY_METRICS",
    "CI_METHODS",
    "EXACT_BELOW",
    "LABEL_METRICS",
    "METRICS",
    "SCORE_METRICS",
    "bootstrap_tests",
    "common_label_types",
    "delong_columns",
    "label_cells",
    "mcnemar",
    "mcnemar_many",
    "mcnemar_tests",
    "score_cells",
]
