"""Drift between a reference and the current rows: PSI, Jensen-Shannon, KS, Wasserstein.

Per column and per segment of the current rows (``by`` splits the current rows
only; the reference is one sample):

- **bins** (PSI, Jensen-Shannon): a numeric column's bins are cut at the
  reference's quantiles j / bins, j = 1 ... bins - 1 (numpy's linear
  interpolation, to the bit; duplicates and infinite ones dropped); a value
  falls in the first bin whose upper edge is >= it (the last bin is open).  A
  text, categorical or boolean column has a bin per value of either side.
  Nulls (and NaN) are one more bin on both sides.  The bin counts are one
  ``group_by`` of each side (streamed); proportions p (reference) and q
  (current) are over every row, nulls included.
- ``psi`` = sum (q - p) ln(q / p), zero proportions replaced by ``eps``;
  ``js_distance`` = SciPy's ``jensenshannon(p, q, base=2)`` on the raw
  proportions.  Every bin the reference or the segment has rows in counts.
- **sorted values** (numeric columns, the non-null values): ``ks`` the
  two-sample Kolmogorov-Smirnov statistic and ``wasserstein`` the first
  Wasserstein distance (SciPy's ``ks_2samp(...).statistic`` and
  ``wasserstein_distance``; null where a value is infinite, where SciPy gives
  inf or nan).  Integers at or beyond +-2**53 are refused (as Float64 they
  would tie).  Each current value finds its place in the sorted reference by
  binary search (vectorised numpy over chunks of the segments, in parallel):
  the ECDFs differ most at a current value or just before one, and between two
  current values the area between the ECDFs comes from the reference's running
  integral (:mod:`pl_metrics._drift.distances`).
  Memory: up to :data:`SLICE` rows of the reference and the current together,
  both sides' values sorted in memory, one column at a time; above it, out of
  core: both sides are read in slices of the value range, one streamed query per
  side and slice counting its distinct values (per segment), about SLICE / 2 of
  them (:func:`_sliced_distances`), and the reference's quantile edges are read
  from the same slices (:func:`_edges` too), so no side is held at once.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import polars as pl

from pl_metrics._core import checks, forms, inputs, names
from pl_metrics._drift.distances import Sweep, distances
from pl_metrics.exceptions import DataError

_BIN = f"{names.INTERNAL}bin"
_REF = f"{names.INTERNAL}ref"
_CUR = f"{names.INTERNAL}cur"
_SEG = f"{names.INTERNAL}seg"
_VALUE = f"{names.INTERNAL}value"
_CUR_ROWS = f"{names.INTERNAL}cur_rows"
_COUNT = f"{names.INTERNAL}count"
_ID = f"{names.INTERNAL}id"
COLUMNS = names.OUTPUTS["drift"]
BIN_COLUMNS = names.OUTPUTS["drift_bins"]
COUNT_COLUMNS = names.OUTPUTS["drift_counts"]


def _kind(dtype: pl.DataType) -> str | None:
    """``"numeric"``, ``"categorical"`` (text, categories, booleans) or None."""
    if dtype == pl.Boolean or dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return "categorical"
    if dtype.is_numeric():
        return "numeric"
    return None


#: ``columns`` (or ``argument=``) as a list of distinct names (the form's home: forms)
check_column_list = forms.column_list


def _value(column: str, kind: str) -> pl.Expr:
    """The column as compared: numbers as Float64 (NaN as null, -0.0 as 0.0: one
    value, whichever comes first), categories as text."""
    if kind == "numeric":
        x = pl.col(column).cast(pl.Float64)
        return pl.when(x.is_nan()).then(None).when(x == 0).then(0.0).otherwise(x)
    return pl.col(column).cast(pl.String)


#: Up to this many edges a value's bin is counted by one comparison with each edge
#: (vectorised: 0.04 s for 5M values and 9 edges, against 0.16 s for a binary
#: search); above, by a binary search (0.28 against 0.38 s at 99 edges; at
#: bins=10_000 the comparisons took 1.8 s and 570 MB on 20 rows)
_FEW_EDGES = 64


def _bin(value: pl.Expr, edges: list[float] | None) -> pl.Expr:
    """A value's bin: the number of edges below it (numbers) or the value (categories);
    null: the null bin."""
    if edges is None:
        return value
    if not edges:
        return pl.when(value.is_not_null()).then(pl.lit(0, pl.Int64))
    if len(edges) > _FEW_EDGES:  # a binary search per value: log(edges) steps
        below = pl.lit(pl.Series(edges, dtype=pl.Float64)).search_sorted(value, side="left")
        return pl.when(value.is_not_null()).then(below.cast(pl.Int64))
    return pl.when(value.is_not_null()).then(
        pl.sum_horizontal((value > e).cast(pl.Int64) for e in edges)
    )


def _sorted_values(rows: pl.LazyFrame, value: pl.Expr) -> pl.Series:
    """The column's non-null values, sorted (one sort: its quantiles and the sorted
    distances read it)."""
    return rows.select(value.drop_nulls().sort().alias(_VALUE)).collect().get_column(_VALUE)


def _reader(ordered: pl.Series, bins: int) -> Callable[[int], float]:
    """The value of a rank of the sorted ``ordered``, for the quantiles j / bins: the
    ranks they read gathered in one call (a Series read a value at a time costs
    microseconds each, bins x 2 of them)."""
    ranks = sorted(_ranks(ordered.len(), bins))
    values = dict(zip(ranks, ordered.gather(ranks).cast(pl.Float64).to_list(), strict=True))
    return values.__getitem__


def _ranks(n: int, bins: int) -> set[int]:
    """The ranks (from 0) of the sorted values that :func:`_quantile` reads for the
    quantiles j / bins of n values."""
    ranks: set[int] = set()

    def at(rank: int) -> float:
        ranks.add(rank)
        return 0.0

    _edges_of(at, n, bins)
    return ranks


def _edges_of(at: Callable[[int], float], n: int, bins: int) -> list[float]:
    """The finite quantiles j / bins (:func:`_quantile`) of n sorted values, the value
    of rank k being ``at(k)``: distinct, ascending (an infinite value falls in the
    first or the last bin)."""
    if bins == 1 or not n:
        return []
    found = (_quantile(at, n, j / bins) for j in range(1, bins))
    return sorted({x for x in found if math.isfinite(x)})


def _quantile(at: Callable[[int], float], n: int, q: float) -> float:
    """numpy's ``quantile(values, q)`` (method "linear"), to the bit where its two
    neighbours are finite: at (n - 1) q between the sorted values a and b, a + (b -
    a) t, or b - (b - a)(1 - t) from t = 1/2.  Next to an infinite value (numpy:
    NaN) the limit: a at t = 0 or where a = b, else infinite (NaN here: no edge)."""
    virtual = (n - 1) * q
    if virtual >= n - 1:
        return at(n - 1)
    below = math.floor(virtual)
    t = virtual - below
    a, b = at(below), at(below + 1)
    if math.isinf(a) or math.isinf(b):
        return a if t == 0 or a == b else math.nan
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def _edges(
    reference: pl.LazyFrame, value: pl.Expr, bins: int, rows: int | None = None
) -> list[float]:
    """The reference's quantiles j / bins (linear), distinct, ascending: from its
    sorted values, or above :data:`SLICE` rows slice by slice (:func:`_slices`).
    ``rows``: the reference's rows, when the caller has counted them (else counted
    here)."""
    if bins == 1:
        return []
    if rows is None:
        rows = reference.select(pl.len()).collect().item()
    if rows <= SLICE:
        ordered = _sorted_values(reference, value)
        return _edges_of(_reader(ordered, bins), ordered.len(), bins)
    ref = reference.select(value.alias(_VALUE))
    n = ref.select(pl.col(_VALUE).count()).collect().item()
    picked = _Picked(_ranks(n, bins))
    for _, _, ref_values, ref_tied in _slices(ref, None, [], n):
        picked.read(ref_values, ref_tied)
    _read_whole(picked.seen == n)
    return _edges_of(picked.at, n, bins)


def _read_whole(whole: bool) -> None:
    """The slices, each read by its own query, add up to the counts read first: a
    query that gives other rows on each read (a shuffle, ``unique(keep="any")``)
    would mix several samples into one number."""
    if not whole:
        msg = (
            "drift read its rows in slices (above 2**25 rows), and the slices do not add "
            "up to the rows counted before them: the reference or the current rows change "
            "from one read to the next (a shuffle, a sample, unique(keep='any')); collect "
            "them first"
        )
        raise DataError(msg)


class _Picked:
    """The values of some ranks of the sorted reference, read slice by slice."""

    def __init__(self, ranks: set[int]) -> None:
        self.ranks = sorted(ranks)
        self.values: dict[int, float] = {}
        self.seen = 0  # the reference's values in the slices read

    def read(self, values: Any, tied: Any) -> None:
        """A slice's distinct values (ascending, above every earlier slice's), counted."""
        import numpy as np

        ends = self.seen + np.cumsum(tied)
        for rank in self.ranks:
            if self.seen <= rank < (ends[-1] if ends.size else self.seen):
                self.values[rank] = float(values[np.searchsorted(ends, rank, side="right")])
        self.seen = int(ends[-1]) if ends.size else self.seen

    def at(self, rank: int) -> float:
        """The value of rank ``rank`` (from 0), read by :meth:`read`."""
        return self.values[rank]


def _divergences(p: pl.Expr, q: pl.Expr, eps: float) -> tuple[pl.Expr, pl.Expr]:
    """Aggregations over a segment's bins: PSI and the Jensen-Shannon distance (base 2)."""
    p_, q_ = (pl.when(x == 0).then(eps).otherwise(x) for x in (p, q))
    psi = ((q_ - p_) * (q_ / p_).log()).sum()
    m = (p + q) / 2

    def rel_entr(x: pl.Expr) -> pl.Expr:
        return pl.when(x > 0).then(x * (x / m).log()).otherwise(0.0)

    js = ((rel_entr(p).sum() + rel_entr(q).sum()) / 2 / math.log(2)).clip(lower_bound=0.0).sqrt()
    return psi, js


def _kinds(columns: list[str], schema: pl.Schema, ref_schema: pl.Schema) -> dict[str, str]:
    """Each column's kind, the same on both sides (else a ``SchemaError``)."""
    kinds = {}
    for column in columns:
        checks.check_columns(schema, columns=column)
        checks.check_found(ref_schema, [("columns", column)], inputs.IN_REFERENCE)
        kind, ref_kind = _kind(schema[column]), _kind(ref_schema[column])
        for dtype, side in ((schema[column], "here"), (ref_schema[column], "in the reference")):
            if _kind(dtype) is None:
                raise checks.Bad.drift_dtype(column, dtype, side)
        if kind != ref_kind:
            msg = (
                f"column {column!r} (argument `columns`) is {schema[column]} here and "
                f"{ref_schema[column]} in the reference: drift compares numeric columns, or "
                "text / categorical / boolean columns, of the same kind on both sides"
            )
            raise pl.exceptions.SchemaError(msg)
        kinds[column] = kind
    return kinds


def _bin_counts(
    ref_rows: pl.LazyFrame,
    current: pl.LazyFrame,
    keys: list[str],
    value: pl.Expr,
    edges: list[float] | None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Each side's rows per bin: ``_BIN, _REF`` and ``*keys, _BIN, _CUR`` (one
    ``group_by`` each, collected together)."""
    binned = _bin(value, edges)
    ref_bins = ref_rows.group_by(binned.alias(_BIN)).agg(pl.len().alias(_REF))
    cur_bins = current.group_by(*keys, binned.alias(_BIN)).agg(pl.len().alias(_CUR))
    ref_df, cur_df = pl.collect_all([ref_bins, cur_bins])
    return ref_df, cur_df


def _shares(
    ref_df: pl.DataFrame, cur_df: pl.DataFrame, keys: list[str]
) -> tuple[pl.DataFrame, int]:
    """``*keys, _BIN, _REF, _CUR, n_current, _CUR_ROWS`` from each side's rows per bin
    (:func:`_bin_counts`, or merged states): each side's proportion of rows per bin,
    every segment against every bin of the reference or of its own rows; and the
    reference's rows."""
    n_ref = int(ref_df.get_column(_REF).sum())
    grid = cur_df.select(keys).unique().join(ref_df, how="cross")
    table = grid.join(cur_df, on=[*keys, _BIN], how="full", coalesce=True, nulls_equal=True)
    table = table.with_columns(pl.col(_REF, _CUR).fill_null(0))
    n_cur = pl.col(_CUR).sum().over(keys)
    # both shares divided by a column: polars divides by a scalar as a product with its
    # reciprocal (5 / 6 -> 0.8333333333333333, not ...334), so equal shares of the two
    # sides would differ by an ulp (js_distance 1e-8 for identical distributions)
    p = pl.col(_REF).cast(pl.Float64) / pl.col(_REF).sum().over(keys)
    q = pl.col(_CUR).cast(pl.Float64) / n_cur
    shares = table.with_columns(
        pl.col(_CUR).alias(_CUR_ROWS), p.alias(_REF), q.alias(_CUR), n_cur.alias("n_current")
    )
    return shares, n_ref


def _bin_table(
    ref_rows: pl.LazyFrame,
    current: pl.LazyFrame,
    keys: list[str],
    value: pl.Expr,
    edges: list[float] | None,
) -> tuple[pl.DataFrame, int]:
    """:func:`_shares` of the rows (:func:`_bin_counts`)."""
    return _shares(*_bin_counts(ref_rows, current, keys, value, edges), keys)


def _divergence_table(table: pl.DataFrame, keys: list[str], n_ref: int, eps: float) -> pl.DataFrame:
    """``*keys, n_current, psi, js_distance, n_reference`` of a table of shares."""
    psi, js = _divergences(pl.col(_REF), pl.col(_CUR), eps)
    result = table.group_by(keys).agg(
        pl.col("n_current").first(), psi.alias("psi"), js.alias("js_distance")
    )
    return result.with_columns(pl.lit(n_ref, pl.Int64).alias("n_reference"))


def _binned(  # noqa: PLR0917 - the sides, then the column and the options
    ref_rows: pl.LazyFrame,
    current: pl.LazyFrame,
    keys: list[str],
    value: pl.Expr,
    edges: list[float] | None,
    eps: float,
) -> pl.DataFrame:
    """``*keys, n_reference, n_current, psi, js_distance`` of one column, from its bins
    (:func:`_bin_table`)."""
    table, n_ref = _bin_table(ref_rows, current, keys, value, edges)
    return _divergence_table(table, keys, n_ref, eps)


def _bin_names(edges: list[float] | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """``bin, lower, upper`` of the bin ``_BIN`` (:func:`_bin`): a numeric bin is
    ``(lower, upper]`` (its first lower edge -inf, its last upper edge inf), named
    so; a category's bin is its value (no edges); the null bin's name is null (a
    category may be "null")."""
    nothing = pl.lit(None, pl.Float64)
    b = pl.col(_BIN)
    if edges is None:
        return b.cast(pl.String), nothing, nothing
    bounds = [-math.inf, *edges, math.inf]
    index = list(range(len(bounds) - 1))
    lower = b.replace_strict(index, bounds[:-1], default=None, return_dtype=pl.Float64)
    upper = b.replace_strict(index, bounds[1:], default=None, return_dtype=pl.Float64)
    return (
        b.replace_strict(index, _labels(bounds), default=None, return_dtype=pl.String),
        lower,
        upper,
    )


def _labels(bounds: list[float]) -> list[str]:
    """``"(lower, upper]"`` of each bin, its edges to 6 significant digits, or more
    where two edges read alike at 6 (up to ``repr``'s, which tells every two floats
    apart): each bin's name is its own."""
    for digits in range(6, 18):
        shown = [f"{x:.{digits}g}" for x in bounds]
        if len(set(shown)) == len(bounds):
            break
    else:
        shown = [repr(x) for x in bounds]
    return [f"({shown[i]}, {shown[i + 1]}]" for i in range(len(bounds) - 1)]


def _labelled(table: pl.DataFrame, keys: list[str], edges: list[float] | None) -> pl.DataFrame:
    """The bins of :func:`_bin_table` as ``*keys, bin, lower, upper, reference_share,
    current_share, current_rows``, each segment's bins in order (numbers ascending,
    categories sorted, the null bin last; :func:`_bin_names`)."""
    name, lower, upper = _bin_names(edges)
    ordered = table.sort([*keys, _BIN], nulls_last=True)
    return ordered.select(
        *keys,
        name.alias("bin"),
        lower.alias("lower"),
        upper.alias("upper"),
        pl.col(_REF).alias("reference_share"),
        pl.col(_CUR).alias("current_share"),
        pl.col(_CUR_ROWS).cast(pl.Int64).alias("current_rows"),
    )


#: Values of one numeric column held at once (a few tens of bytes each): above this
#: many rows of the reference and the current together, both sides' values are read
#: in slices of the value range, each slice's distinct values (per segment) counted
#: by one streamed query (:func:`_slices`).
SLICE = 1 << 25
#: About how many distinct values (per segment) the slices' bounds are read from.
SAMPLE = 1 << 17


def _distances(  # noqa: PLR0917 - the sides, the column, then the options
    ref_rows: pl.LazyFrame,
    current: pl.LazyFrame,
    keys: list[str],
    value: pl.Expr,
    bins: int,
    rows: int,
) -> tuple[list[float], pl.DataFrame]:
    """(the reference's quantile edges, ``*keys, ks, wasserstein``) of one numeric
    column (``_drift.distances``): from both sides' sorted values (polars sorts each
    segment's list in parallel), then one numpy pass; above :data:`SLICE` ``rows``
    (both sides'), slice by slice (:func:`_sliced_distances`)."""
    import numpy as np

    if rows > SLICE:
        return _sliced_distances(ref_rows, current, keys, value, bins)
    ordered = _sorted_values(ref_rows, value)
    edges = _edges_of(_reader(ordered, bins), ordered.len(), bins)
    cur = (
        current.select(*keys, value.alias(_VALUE))
        .group_by(keys)
        .agg(pl.col(_VALUE).drop_nulls())
        .collect()
    )
    lists = cur.get_column(_VALUE).list.eval(pl.element().sort())
    counts = lists.list.len().to_numpy().astype(np.int64)
    flat = lists.explode().drop_nulls().to_numpy().astype(np.float64)
    ks, w = distances(ordered.to_numpy().astype(np.float64), flat, counts)
    return edges, cur.select(keys).with_columns(
        pl.Series("ks", ks).fill_nan(None), pl.Series("wasserstein", w).fill_nan(None)
    )


def _sliced_distances(
    ref_rows: pl.LazyFrame, current: pl.LazyFrame, keys: list[str], value: pl.Expr, bins: int
) -> tuple[list[float], pl.DataFrame]:
    """:func:`_distances` out of core: the reference's count of values and each
    segment's (streamed ``group_by``), then slices of both sides (:func:`_slices`)
    handed to the sweep, lowest values first; the reference's quantiles read from
    the same slices."""
    import numpy as np

    rows = current.select(*keys, value.alias(_VALUE))
    ref = ref_rows.select(value.alias(_VALUE))
    x = pl.col(_VALUE)
    segments, count = pl.collect_all(
        [rows.group_by(keys).agg(x.count().alias(_COUNT)), ref.select(x.count())],
        engine="streaming",
    )
    segments = segments.with_row_index(_ID)
    sizes = segments.get_column(_COUNT).to_numpy().astype(np.int64)
    n = int(count.item())
    sweep = Sweep(n, sizes)
    picked = _Picked(_ranks(n, bins) if n else set())
    ids = segments.select(*keys, _ID).lazy()
    slices = _slices(ref, (rows, ids), keys, n + int(sizes.sum()))
    for (low, high, ref_values, ref_tied), pairs in slices:  # type: ignore[misc]
        picked.read(ref_values, ref_tied)
        present, counts = np.unique(pairs.get_column(_ID).to_numpy(), return_counts=True)
        values = pairs.get_column(_VALUE).to_numpy().astype(np.float64)
        weights = pairs.get_column(_COUNT).to_numpy()
        sweep.add(low, high, ref_values, ref_tied, present, counts, values, weights)
    # (without reference values the sweep counts nothing: every distance is null)
    _read_whole(picked.seen == n and (n == 0 or bool((sweep.below == sweep.size).all())))
    ks, w = sweep.result()
    edges = _edges_of(picked.at, n, bins)
    return edges, segments.select(keys).with_columns(
        pl.Series("ks", ks).fill_nan(None), pl.Series("wasserstein", w).fill_nan(None)
    )


def _slices(
    ref: pl.LazyFrame,
    current: tuple[pl.LazyFrame, pl.LazyFrame] | None,
    keys: list[str],
    values: int,
) -> Iterator[Any]:
    """The slices (-inf, b_1], (b_1, b_2], ..., (b_k, inf] of the values, ascending,
    each of about :data:`SLICE` / 2 distinct values of the reference and distinct
    (segment, value) pairs of the current rows (``current``: the rows and their
    segments' ids; None: the reference alone): each ``(low, high, the reference's
    distinct values there, their counts)``, and with ``current`` its pairs there
    (``_ID, _VALUE, _COUNT`` sorted), one streamed query per side and slice.  Equal
    values are never split between slices."""
    import numpy as np

    x = pl.col(_VALUE)
    sides = [(ref, [])] if current is None else [(ref, []), (current[0], keys)]
    bounds = _slice_bounds(sides, values)
    for low, high in itertools.pairwise([-math.inf, *bounds, math.inf]):
        inside = x.is_not_null() if low == -math.inf else x > low
        if high != math.inf:
            inside &= x <= high
        queries = [ref.filter(inside).group_by(_VALUE).agg(pl.len().alias(_COUNT)).sort(_VALUE)]
        if current is not None:
            rows, ids = current
            queries.append(
                rows.filter(inside)
                .group_by([*keys, _VALUE])
                .agg(pl.len().alias(_COUNT))
                .join(ids, on=keys, nulls_equal=True)
                .select(_ID, _VALUE, _COUNT)
                .sort(_ID, _VALUE)
            )
        found = pl.collect_all(queries, engine="streaming")
        ref_values = found[0].get_column(_VALUE).to_numpy().astype(np.float64)
        ref_tied = found[0].get_column(_COUNT).to_numpy().astype(np.int64)
        if ref_values.size > 1:  # -0.0 and 0.0 may be counted apart: one value
            first = np.flatnonzero(np.r_[True, ref_values[1:] != ref_values[:-1]])
            ref_values, ref_tied = ref_values[first], np.add.reduceat(ref_tied, first)
        part = (low, high, ref_values, ref_tied)
        yield part if current is None else (part, found[1])


def _slice_bounds(sides: list[tuple[pl.LazyFrame, list[str]]], values: int) -> list[float]:
    """Ascending bounds b_1 < ... < b_k of slices of about :data:`SLICE` / 2 distinct
    (segment, value) pairs of the ``sides`` (a side: its rows and segment keys), read
    from a sample of the pairs (those whose hash is a multiple of ``values`` //
    :data:`SAMPLE`: every pair when they are few)."""
    import numpy as np

    step = max(1, values // SAMPLE)
    x = pl.col(_VALUE)
    samples = [
        rows.filter(x.is_not_null() & (pl.struct(*keys, _VALUE).hash(seed=0) % step == 0))
        .unique([*keys, _VALUE])
        .select(x)
        for rows, keys in sides
    ]
    sample = np.sort(
        pl.concat(pl.collect_all(samples, engine="streaming"))
        .get_column(_VALUE)
        .to_numpy()
        .astype(np.float64)
    )
    slices = -(-sample.size * step // max(1, SLICE // 2))
    if slices <= 1:
        return []
    at = np.arange(1, slices) * sample.size // slices
    bounds = np.unique(sample[at])
    return bounds[np.isfinite(bounds)].tolist()  # -inf / inf: in the first / last slice


def _check_exact(ref_rows: pl.LazyFrame, current: pl.LazyFrame, numeric: list[str]) -> None:
    """Integers (or decimals) at or beyond +-2**53 are refused, as by the ranking
    methods: as Float64 they would tie with their neighbours."""
    sides = (ref_rows, current)
    exact = [c for c in numeric if not all(side.collect_schema()[c].is_float() for side in sides)]
    if not exact:
        return
    counts = [  # one scan of each side for all the columns
        side.select(checks.beyond_exact_float(pl.col(c)).sum() for c in exact).collect().row(0)
        for side in sides
    ]
    for column, n in zip(exact, map(sum, zip(*counts, strict=True)), strict=True):
        if n:
            raise checks.Bad.inexact_scores([column], n, argument="columns", what="values")


def _setup(
    lf: pl.LazyFrame, columns: list[str], reference: object, by: object, outputs: Sequence[str]
) -> tuple[Any, list[str], pl.LazyFrame, pl.LazyFrame, dict[str, str], pl.Schema, Any]:
    """(segments, keys, reference rows, current rows, each column's kind, the current
    rows' schema, the checks run at collect) of :func:`drift` and :func:`drift_bins`."""
    segments = checks.normalize_by(by)
    schema = lf.collect_schema()
    checks.check_by(schema, segments, outputs)
    keys = names.segment_keys(segments) if segments else [names.ALL]
    if segments:
        keyed = names.with_segment_keys(lf, segments)
    else:
        keyed = lf.with_columns(pl.lit(True).alias(names.ALL))
    side = inputs.reference_rows(lf, reference)  # segment keys evaluated over all rows
    ref_rows, current = side.rows, keyed if side.flag is None else keyed.filter(~side.flag)
    kinds = _kinds(columns, schema, side.schema)

    def check() -> tuple[int, int]:
        """The checks; the reference's rows and the current rows."""
        side.raise_flag_nulls(lf)
        _check_exact(ref_rows, current, [c for c in columns if kinds[c] == "numeric"])
        n_ref, n_cur = pl.collect_all([ref_rows.select(pl.len()), current.select(pl.len())])
        if not n_ref.item():
            raise checks.Bad.no_reference_rows()
        return int(n_ref.item()), int(n_cur.item())

    return segments, keys, ref_rows, current, kinds, current.collect_schema(), check


def _in_order(out: pl.DataFrame, keys: list[str], columns: list[str]) -> pl.DataFrame:
    """Segments, then the columns in the order given (stable: a column's rows keep theirs)."""
    order = pl.col("column").replace_strict(columns, list(range(len(columns))))
    return out.sort([*keys, order], nulls_last=True, maintain_order=True)


def drift(
    lf: pl.LazyFrame,
    columns: list[str],
    *,
    reference: pl.DataFrame | pl.LazyFrame | pl.Expr,
    by: object,
    bins: int,
    eps: float,
) -> pl.LazyFrame:
    """``*by, column, n_reference, n_current, psi, js_distance, ks, wasserstein``."""
    segments, keys, ref_rows, current, kinds, current_schema, check = _setup(
        lf, columns, reference, by, COLUMNS
    )
    out_schema = pl.Schema(
        {k: current_schema[k] for k in keys}
        | {"column": pl.String, "n_reference": pl.Int64, "n_current": pl.Int64}
        | dict.fromkeys(("psi", "js_distance", "ks", "wasserstein"), pl.Float64)
    )

    def one(column: str, rows: int) -> pl.DataFrame:
        value = _value(column, kinds[column])
        numeric = kinds[column] == "numeric"
        edges, distances = (
            _distances(ref_rows, current, keys, value, bins, rows) if numeric else (None, None)
        )
        result = _binned(ref_rows, current, keys, value, edges, eps)
        if distances is not None:
            result = result.join(distances, on=keys, how="left", nulls_equal=True)
        else:
            nothing = pl.lit(None, pl.Float64)
            result = result.with_columns(nothing.alias("ks"), nothing.alias("wasserstein"))
        result = result.with_columns(pl.lit(column).alias("column"))
        return result.select(list(out_schema)).cast(dict(out_schema))

    def run() -> pl.DataFrame:
        rows = sum(check())  # both sides together: the distances hold both
        out = pl.concat([one(column, rows) for column in columns], how="vertical_relaxed")
        return _in_order(out, keys, columns)

    return names.restore_keys(pl.defer(run, schema=out_schema), segments.names)


def drift_bins(
    lf: pl.LazyFrame,
    columns: list[str],
    *,
    reference: pl.DataFrame | pl.LazyFrame | pl.Expr,
    by: object,
    bins: int,
) -> pl.LazyFrame:
    """``*by, column, bin, lower, upper, reference_share, current_share, current_rows``:
    the bins :func:`drift`'s ``psi`` and ``js_distance`` sum over (:func:`_labelled`)."""
    segments, keys, ref_rows, current, kinds, current_schema, check = _setup(
        lf, columns, reference, by, BIN_COLUMNS
    )
    out_schema = pl.Schema(
        {k: current_schema[k] for k in keys}
        | {"column": pl.String, "bin": pl.String, "lower": pl.Float64, "upper": pl.Float64}
        | {"reference_share": pl.Float64, "current_share": pl.Float64, "current_rows": pl.Int64}
    )

    def one(column: str, ref_count: int) -> pl.DataFrame:
        value = _value(column, kinds[column])
        numeric = kinds[column] == "numeric"
        edges = _edges(ref_rows, value, bins, ref_count) if numeric else None
        table, _ = _bin_table(ref_rows, current, keys, value, edges)
        result = _labelled(table, keys, edges).with_columns(pl.lit(column).alias("column"))
        return result.select(list(out_schema)).cast(dict(out_schema))

    def run() -> pl.DataFrame:
        ref_count, _ = check()  # counted once, not again for each column's edges
        out = pl.concat([one(column, ref_count) for column in columns], how="vertical_relaxed")
        return _in_order(out, keys, columns)

    return names.restore_keys(pl.defer(run, schema=out_schema), segments.names)


__all__ = ["BIN_COLUMNS", "COLUMNS", "COUNT_COLUMNS", "check_column_list", "drift", "drift_bins"]
