"""The laws every registered method obeys: completeness of the registry, row order,
label renaming, eager = lazy = streaming = ``scan_parquet`` = merged states, zero
and integer weights, Int64 counts, ``by`` names and ``by`` expressions, and every
output schema in the docs."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import pl_metrics as plm
from pl_metrics import MetricsDataFrame, MetricsLazyFrame
from pl_metrics._core import names
from pl_metrics.state import CountsState, MultilabelCountsState, ScoreCountsState
from registry.entries import (
    BINARY,
    BY_NAME,
    DATA,
    DOCUMENTS,
    EXPRESSIONS,
    FINISHERS,
    IDS,
    KEEPS_ORDER,
    METHODS,
    REORDERS,
    STATE_FINISH,
    WEIGHTED,
    Cols,
    Entry,
    renamed_labels,
    run,
    same,
    zero_weight_rows,
)


# -------------------------------------------------------------------------- completeness
def _public(cls: type) -> set[str]:
    return {n for n, _ in inspect.getmembers(cls) if not n.startswith("_")}


def test_every_public_method_is_in_the_registry() -> None:
    registered = {e.name.split("[")[0] for e in METHODS}
    assert _public(MetricsLazyFrame) == registered | set(DOCUMENTS)
    assert _public(MetricsDataFrame) == registered | set(DOCUMENTS)
    assert all((Path(__file__).parents[2] / test).is_file() for test in DOCUMENTS.values())
    assert set(names.OUTPUTS) == registered  # each method's schema declared once
    finishers = _public(CountsState) | _public(ScoreCountsState) | _public(MultilabelCountsState)
    assert finishers == {name.split("[")[0] for name in FINISHERS}
    # plm.metrics(frame) is the namespace itself (test_typing.py); drift_edges reads a
    # drift_counts state's edges (test_drift.py: merged states equal drift);
    # metric_names lists the catalogue (test_gini.py)
    expressions = {
        n
        for n in plm.__all__
        if inspect.isfunction(getattr(plm, n))
        and not n.startswith("from_")
        and n not in ("metrics", "drift_edges", "metric_names")
    }
    assert expressions == {n.split("[")[0] for n in EXPRESSIONS}


# ---------------------------------------------------------------------------- row order
@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_row_order(entry: Entry) -> None:
    c = Cols(w="w") if entry.weighted else Cols()
    shuffled = DATA.sample(fraction=1.0, shuffle=True, seed=11)
    same(run(entry, shuffled, c), run(entry, DATA, c))


# ------------------------------------------------------------------------ label renaming
def _label_columns(entry: Entry) -> list[str]:
    """The output columns holding labels (``per_class.predicted`` is a count)."""
    name = entry.outputs or entry.name
    if name in ("confusion_matrix", "counts"):
        return ["actual", "predicted"]
    return ["label"] if "label" in names.OUTPUTS[name] else []


@pytest.mark.parametrize("labels", [REORDERS, KEEPS_ORDER], ids=["reorders", "keeps-order"])
@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_label_renaming(entry: Entry, labels: dict[int, str]) -> None:
    """Renamed labels give the same numbers.  Bootstrap replicates draw the
    confusion cells in label order, so their intervals are the same draws only
    when the renaming keeps the order (another order is another random draw)."""
    c = Cols(w="w") if entry.weighted else Cols()
    renamed = dataclasses.replace(
        c,
        q=tuple((labels[k], col) for k, col in c.q),
        rel=tuple((labels[k], col) for k, col in c.rel),
        mlmap=tuple((labels[k], col) for k, col in c.mlmap),
        mlpmap=tuple((labels[k], col) for k, col in c.mlpmap),
        mlfmap=tuple((labels[k], col) for k, col in c.mlfmap),
        oh=tuple((labels[k], col) for k, col in c.oh),
        pos="pos",
        neg="neg",
    )
    got = run(entry, renamed_labels(DATA, labels), renamed)
    expected = run(entry, DATA, c)
    mapping = BINARY if entry.reads == ("binary",) else labels
    expected = expected.with_columns(
        pl.col(col).replace_strict(mapping, return_dtype=pl.String, default=None)
        for col in _label_columns(entry)
        if col in expected.columns  # "label" of the scores' methods: per-class views only
    )
    if entry.bootstrap and labels is REORDERS:
        drawn = [c for c in got.columns if c.endswith(("_low", "_high")) or c in ("low", "high")]
        drawn += [c for c in ("outside", "p_value", "p_adjusted") if c in got.columns]
        got, expected = got.drop(drawn), expected.drop(drawn)
    same(got, expected)


# ---------------------------------------------------------------------- paths agree
@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_eager_lazy_streaming_parquet_agree(entry: Entry, parquet_dir: Path) -> None:
    c = Cols(w="w") if entry.weighted else Cols()
    eager = run(entry, DATA, c)
    lazy = entry.call(DATA.lazy().metrics, c)
    same(lazy.collect(engine="streaming"), eager)
    same(lazy.collect(engine="in-memory"), eager)
    scanned = entry.call(pl.scan_parquet(parquet_dir / "*.parquet").metrics, c)
    same(scanned.collect(engine="streaming"), eager)


STATEFUL = [e for e in METHODS if e.state]


@pytest.mark.parametrize("entry", STATEFUL, ids=[e.name for e in STATEFUL])
@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_merged_states_agree(entry: Entry, lazy: bool) -> None:
    c = Cols(w="w") if entry.weighted else Cols()  # intervals: states of un-weighted rows
    shards = DATA.with_columns(part=pl.int_range(pl.len()) % 3).partition_by("part")
    make = BY_NAME[entry.state]
    states = [run(make, shard.drop("part"), c) for shard in shards]
    state: pl.DataFrame | pl.LazyFrame = pl.concat(states)
    if lazy:
        state = state.lazy()
    finish = STATE_FINISH[entry.state]
    got = FINISHERS[entry.name](finish(state, by=c.by), c)
    assert isinstance(got, pl.LazyFrame) is lazy
    same(got, run(entry, DATA, c))


# ----------------------------------------------------------------------------- weights
@pytest.mark.parametrize("entry", WEIGHTED, ids=[e.name for e in WEIGHTED])
def test_zero_weights_are_rows_removed(entry: Entry) -> None:
    c = Cols(w="w")
    extra = zero_weight_rows()
    if "multiclass" in entry.reads:  # a label with no score column is refused, as it must be
        extra = extra.with_columns(pl.col("y").mod(3))
    with_zeros = pl.concat([DATA, extra]).sample(fraction=1.0, shuffle=True, seed=2)
    same(run(entry, with_zeros, c), run(entry, DATA, c))


@pytest.mark.parametrize("entry", WEIGHTED, ids=[e.name for e in WEIGHTED])
def test_integer_weights_are_rows_repeated(entry: Entry) -> None:
    if entry.ci:
        pytest.skip("bootstrap replicates draw rows of the input: repetition is another input")
    if entry.name in QUANTILE_BINS:  # their weights are scale-free (the law above) instead
        pytest.skip("quantile bins normalise the weights to the rows (docs/probability.md)")
    repeated = DATA.select(pl.all().repeat_by("wi").explode()).drop("wi")
    got = run(entry, DATA, Cols(w="wi"))
    expected = run(entry, repeated.with_columns(pl.lit(1).alias("wi")), Cols())
    # weighted counts are Float64, row counts integers (zero_one_loss with
    # normalize=False: the number of rows wrong)
    for column in (*COUNT_COLUMNS, "zero_one_loss"):
        if column in got.columns and got.schema[column] != expected.schema.get(column):
            expected = expected.with_columns(pl.col(column).cast(got.schema[column]))
    same(got, expected)


#: The methods with quantile calibration bins: linear-interpolated quantiles cannot be
#: both scale-free and repeated rows; they are scale-free (test_probability.py checks
#: them against the normalised definition computed in numpy).
QUANTILE_BINS = (
    "calibration_curve[quantile]",
    "calibration_curve[top_label]",
    "calibration_error",
    "calibration_error[per_class]",
)


@pytest.mark.parametrize("power", [-1000, -300, 300, 1000])
@pytest.mark.parametrize("entry", WEIGHTED, ids=[e.name for e in WEIGHTED])
def test_weights_times_a_power_of_two_change_nothing(entry: Entry, power: int) -> None:
    # a weighted metric is the same whatever the weights' scale: the weights times
    # 2**power (exact) give the same metrics, and sums of weights times 2**power. Tiny
    # weights underflowed the products of two sums (KS 0.0 and likelihood ratios NaN
    # at 1e-200) and quantile calibration bins moved with the scale (bins of weights
    # summing to 1 collapsed to two): found by an audit
    if entry.name in ("custom", "disparity[callables]"):
        pytest.skip("the user's callables see the weights as given (scikit-learn's MCC: 0.0)")
    scale = 2.0**power
    scaled = DATA.with_columns(pl.col("w") * scale)
    got = run(entry, scaled, Cols(w="w"))
    expected = run(entry, DATA, Cols(w="w"))
    # sums of weights: the counts, zero_one_loss with normalize=False, over_time's n
    sums = [c for c in COUNT_COLUMNS if c in got.columns and got.schema[c].is_float()]
    sums += ["zero_one_loss"] if entry.name == "zero_one_loss" else []
    got = got.with_columns(pl.col(sums) / scale)
    if entry.name.startswith("over_time"):
        value = pl.col("value")
        got = got.with_columns(
            pl.when(pl.col("metric") == "n").then(value / scale).otherwise(value)
        )
    same(got, expected)


#: The columns that count rows (``predicted`` but where it is a label column, beside
#: ``actual``; multilabel_counts' n_true .. n_common are set sizes, keys of its
#: histogram): Int64 without weights, Float64 sums of the weights with them.
COUNT_COLUMNS = (
    "n",
    "support",
    "predicted",
    "tp",
    "fp",
    "fn",
    "tn",
    "pos",
    "neg",
    "rows",
    "positives",
    "count",
)
COUNTING = [
    e for e in METHODS if set(COUNT_COLUMNS) & set(names.OUTPUTS[e.outputs or e.name.split("[")[0]])
]


@pytest.mark.parametrize("entry", COUNTING, ids=[e.name for e in COUNTING])
def test_counts_are_int64_without_weights(entry: Entry) -> None:
    """Issue 26: the thresholds tables' tp .. tn and calibration's count were Float64
    (the CLI printed 185.0000): row counts are integers in every method, as report's
    support; with ``weight=`` (even integer weights) Float64 sums."""

    def dtypes(frame: pl.DataFrame) -> dict[str, pl.DataType]:
        labels = {"predicted"} if "actual" in frame.columns else set()
        return {c: frame.schema[c] for c in set(COUNT_COLUMNS) - labels if c in frame.columns}

    plain = dtypes(run(entry, DATA, Cols()))
    assert plain, f"{entry.name}: none of its count columns"
    assert plain == dict.fromkeys(plain, pl.Int64), entry.name
    if entry.weighted:
        for w in ("w", "wi"):
            weighted = dtypes(run(entry, DATA, Cols(w=w)))
            assert weighted == dict.fromkeys(plain, pl.Float64), (entry.name, w)


# ------------------------------------------------------------------------------ by names
#: Names a ``by`` column might have: every output column of every method, the
#: internal names of earlier versions, and the internal prefix itself.
BY_CANDIDATES = sorted(
    {c for cols in names.OUTPUTS.values() for c in cols if "{" not in c}
    | {"f1", "f2", "P", "N", "tps", "fps", "part", "ord_a", "value_low", "low", "high"}
    | {f"{names.INTERNAL}by0", f"{names.INTERNAL}all", names.SCORE, names.COUNT}
)


@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_by_may_have_any_name_but_an_output_column(entry: Entry) -> None:
    """A ``by`` column named as an output is refused (eager and lazy), and one with
    the internal prefix; every other candidate name works.  The names that work
    are ``by`` columns all at once (copies of ``g``, each told apart by a suffix:
    the same segments), one run instead of one per name: a temporary of the
    method's that one of them shadowed would change the result or raise there as
    well.  The baseline has as many copies under neutral names (a bootstrap keys
    its draws by the segment's key values, so the baseline's key must have as
    many, and the same)."""
    c = Cols()
    outputs = entry.output_columns()
    inputs = {"y", "p", "yb", "s", "pb", "q0", "q1", "q2", "w", "wi", "ts"}
    allowed = []
    for name in BY_CANDIDATES:
        if name in inputs:
            continue
        if name not in outputs and not name.startswith(names.INTERNAL):
            allowed.append(name)
            continue
        df = DATA.rename({"g": name})
        cn = dataclasses.replace(c, by=name)
        why = "starts with" if name.startswith(names.INTERNAL) else "collides"
        with pytest.raises(ValueError, match=f"`by` column '{name}' {why}"):
            run(entry, df, cn)
        with pytest.raises(ValueError, match=f"`by` column '{name}' {why}"):
            run(entry, df, cn, lazy=True)

    def copies(named: list[str]) -> tuple[pl.DataFrame, Cols]:
        # copy i is g with "|i" appended (null where g is): the same segments, and
        # values that tell the copies apart in the output (a swapped column shows)
        df = DATA.with_columns(
            pl.concat_str(pl.col("g"), pl.lit(f"|{i}")).alias(n) for i, n in enumerate(named)
        ).drop("g")
        return df, dataclasses.replace(c, by=named)  # type: ignore[arg-type]

    neutral = [f"g{i}" for i in range(len(allowed))]
    assert not set(neutral) & set(BY_CANDIDATES)
    assert not set(allowed + neutral) & set(DATA.columns)  # with_columns would overwrite
    baseline = run(entry, *copies(neutral))
    got = run(entry, *copies(allowed))
    assert got.columns[: len(allowed)] == allowed, f"{entry.name}: the by columns are not first"
    assert all(got.schema[name] == pl.String for name in allowed), f"{entry.name}: by overwritten"
    same(got, baseline.rename(dict(zip(neutral, allowed, strict=True))))


# ------------------------------------------------------------------------ by expressions
#: ``by`` expressions and the columns they make: each must equal materialising the
#: columns first (``with_columns``) and passing their names.
BY_EXPRESSIONS: dict[str, tuple[object, str | list[str]]] = {
    "expr": (pl.col("g").str.to_uppercase().alias("G"), "G"),
    # output name "g": the expression's value, not the input column of that name
    "expr-shadows": (pl.col("g").str.to_uppercase(), "g"),
    "name+expr": (["g", (pl.col("yb") + 10).alias("k")], ["g", "k"]),
    # not row-wise: evaluated on all the input rows, as with_columns does
    "over-all-rows": ((pl.col("s") > pl.col("s").median()).alias("above"), "above"),
}


@pytest.mark.parametrize("case", sorted(BY_EXPRESSIONS))
@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_by_expression_equals_materialised_column(
    entry: Entry, case: str, parquet_dir: Path
) -> None:
    by, columns = BY_EXPRESSIONS[case]
    base = Cols(w="w") if entry.weighted else Cols()
    c, named = dataclasses.replace(base, by=by), dataclasses.replace(base, by=columns)
    exprs = [e for e in (by if isinstance(by, list) else [by]) if isinstance(e, pl.Expr)]
    expected = run(entry, DATA.with_columns(exprs), named)
    keys = columns if isinstance(columns, list) else [columns]
    assert expected.columns[: len(keys)] == keys
    same(run(entry, DATA, c), expected)
    lazy = entry.call(DATA.lazy().metrics, c)
    assert isinstance(lazy, pl.LazyFrame)
    same(lazy.collect(engine="streaming"), expected)
    same(lazy.collect(engine="in-memory"), expected)
    scanned = entry.call(pl.scan_parquet(parquet_dir / "*.parquet").metrics, c)
    same(scanned.collect(engine="streaming"), expected)
    if entry.state and case != "over-all-rows":
        # states made with the expression, finished by its output names (a state
        # evaluates `by` on its shard's rows: a median is the shard's median)
        shards = DATA.with_columns(part=pl.int_range(pl.len()) % 3).partition_by("part")
        states = [run(BY_NAME[entry.state], s.drop("part"), c) for s in shards]
        finish = STATE_FINISH[entry.state]
        same(FINISHERS[entry.name](finish(pl.concat(states), by=columns), c), expected)


def test_by_expression_on_the_sorted_roc_auc_path() -> None:
    """DataFrame.roc_auc sorts continuous scores (``sorted_path``): same by rules."""
    from pl_metrics._ranking import sorted_path

    rng = np.random.default_rng(3)
    n = 6000
    df = pl.DataFrame(
        {"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n), "s": rng.random(n)}
    )
    assert sorted_path.use_sorted_path(df, "s")
    by = [pl.col("g").str.to_uppercase().alias("G"), (pl.col("s") > 0.5).alias("hi")]
    expected = df.with_columns(by).metrics.roc_auc("y", "s", by=["G", "hi"])
    got = df.metrics.roc_auc("y", "s", by=by)
    same(got, expected)
    same(got, df.lazy().metrics.roc_auc("y", "s", by=by).collect(engine="streaming"))
    with pytest.raises(ValueError, match="`by` column 'roc_auc' collides"):
        df.metrics.roc_auc("y", "s", by=pl.col("g").alias("roc_auc"))


def _by_errors(entry: Entry) -> list[tuple[object, type, str]]:
    """(by, error type, message regex) of the ``by`` values refused at call time."""
    output = entry.output_columns()[-1]
    return [
        (pl.all(), ValueError, "`by` expression .* does not have a single output column name"),
        (pl.col("g", "y"), ValueError, "does not have a single output column name.*alias"),
        (["g", pl.col("g")], ValueError, "`by` lists a column more than once"),
        (
            [pl.col("g").alias("k"), pl.col("yb").alias("k")],
            ValueError,
            "`by` lists a column more than once: \\['k', 'k'\\]",
        ),
        (pl.col("g").alias(output), ValueError, f"`by` column '{output}' collides.*alias"),
        (pl.col("g").alias("__plm_by0"), ValueError, "`by` column '__plm_by0' starts with"),
        (pl.col("nope").alias("k"), pl.exceptions.ColumnNotFoundError, "`by` expression.*nope"),
        (pl.col("g") + 1, pl.exceptions.InvalidOperationError, "`by` expression"),
        (3, TypeError, "`by` must be a column name or a list"),
        (  # Python objects can be neither grouped nor sorted (was a Rust panic)
            pl.col("g").map_elements(lambda x: x, return_dtype=pl.Object).alias("k"),
            pl.exceptions.SchemaError,
            "`by` column 'k' holds Python objects",
        ),
    ]


@pytest.mark.parametrize("entry", METHODS, ids=IDS)
def test_bad_by_expressions_are_refused_at_call_time(entry: Entry) -> None:
    c = Cols(w="w") if entry.weighted else Cols()
    for by, error, match in _by_errors(entry):
        cb = dataclasses.replace(c, by=by)
        with pytest.raises(error, match=match):
            run(entry, DATA, cb)
        with pytest.raises(error, match=match):
            entry.call(DATA.lazy().metrics, cb)  # lazy: refused before any collect


@pytest.mark.parametrize("kind", ["counts", "score_counts", "multilabel_counts"])
def test_state_finishers_take_names_not_expressions(kind: str) -> None:
    finish, state = STATE_FINISH[kind], run(BY_NAME[kind], DATA, Cols())
    with pytest.raises(TypeError, match="`by` of from_counts / from_score_counts names columns"):
        finish(state, by=pl.col("g"))
    with pytest.raises(TypeError, match="names columns of the state"):
        finish(state.lazy(), by=["g", pl.col("g").alias("G")])


# ------------------------------------------------------------------------------- docs
def test_every_output_schema_is_in_the_docs() -> None:
    """docs/schemas.md has a row per method naming each of its output columns."""
    text = (Path(__file__).parents[2] / "docs" / "schemas.md").read_text()
    rows = {
        line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| `")
    }
    for method in names.OUTPUTS:
        row = next((r for k, r in rows.items() if k.split()[0] == f"`{method}`"), None)
        assert row is not None, f"docs/schemas.md has no row for {method}"
        if "| as `" in row:
            continue  # "as `thresholds`": the same schema as a method checked on its own row
        for column in names.output_columns(method):
            assert column in row, f"docs/schemas.md: {method} does not name {column!r}"
