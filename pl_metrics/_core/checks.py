"""Every argument, schema and data check, in the order they can be made, and every message.

1. options (no data): ``beta``, ``zero_division``, ``labels``, ``average`` ...
   (:func:`check_beta` ...); a method checks all of its options before it
   reads the schema, so a bad option is reported even when a column is missing;
2. schema (``collect_schema()``, no rows read): columns exist, dtypes fit,
   ``by`` does not collide with the output (:func:`check_by`), ``pos_label``
   can be a label of ``y_true`` (:func:`label_value`);
3. data (rows): nulls, NaN, labels that are not labels, negative weights.
   These are counted inside the one aggregation the metric needs anyway and
   checked on its small result (:func:`raise_if_bad`), so they cost no extra scan.

Every data message is written once, in :class:`~pl_metrics._core.messages.Bad`,
and used by every path (eager, lazy, expressions, the sorted in-memory AUC,
states, the CLI); the label dtype rules live in :mod:`pl_metrics._core.labels`.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial
from typing import TypeVar

import polars as pl
from polars.exceptions import ColumnNotFoundError, SchemaError

from pl_metrics._core import arguments
from pl_metrics._core.catalogue import CATALOGUE, analytic_ci
from pl_metrics._core.labels import (
    LabelTypes,
    check_one_label_per_row,
    is_int,
    is_real,
    label_types,
    label_value,
    labels_series,
    single_label_types,
)
from pl_metrics._core.messages import MAX_WEIGHT_TOTAL, Bad
from pl_metrics._core.names import BAD_WEIGHT, INTERNAL, ROWS, Segments
from pl_metrics.exceptions import DataError

# Re-exported: the callers read every check as ``checks.<name>`` (one import).
__all__ = [
    "BAD_WEIGHT",
    "INTERNAL",
    "ROWS",
    "Bad",
    "LabelTypes",
    "check_one_label_per_row",
    "label_types",
    "label_value",
    "labels_series",
    "single_label_types",
]

#: Integers up to this magnitude are exact in Float64 (scores are compared as Float64).
MAX_EXACT_FLOAT_INT = 2**53
_INT64_MAX = 2**63 - 1


# --------------------------------------------------------------------------- options
def _as_float(value: object) -> float:
    """A real number as the float the metric uses (NaN where it has none: not a real
    number, or too large for a float), so that a range is checked on the value used:
    ``Fraction(1, 10**400)`` is 0.0, not a number > 0.  Not for an option that
    takes NaN (``zero_division``)."""
    if not is_real(value):
        return math.nan
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:
        return math.nan


def check_beta(beta: float) -> float:
    """Return ``beta`` as a float, or raise if it is not finite and > 0."""
    b = _as_float(beta)
    if not (math.isfinite(b) and b > 0):
        msg = f"`beta` must be a finite float > 0, got {beta!r}"
        raise ValueError(msg)
    return b


def check_zero_division(zero_division: float) -> float:
    """Return ``zero_division`` as a float: one of 0.0, 1.0 or NaN."""
    nan = zero_division != zero_division  # noqa: PLR0124 - NaN, whatever its type
    if is_real(zero_division) and (nan or zero_division in (0, 1)):
        return float(zero_division)  # type: ignore[arg-type]
    msg = f"`zero_division` must be one of 0.0, 1.0 or float('nan'), got {zero_division!r}"
    raise ValueError(msg)


def check_choice(name: str, value: object, allowed: Collection[str]) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        msg = f"`{name}` must be one of {list(allowed)}, got {value!r}"
        if isinstance(value, list | tuple):  # e.g. compare_models(metric=["f1", "mcc"])
            msg += f": one `{name}` a call (call again for each)"
        raise ValueError(msg)


def check_seed(seed: object) -> None:
    """``seed``: None or an integer >= 0 (numpy's SeedSequence)."""
    if seed is not None and not (is_int(seed) and seed >= 0):
        msg = f"`seed` must be None or an integer >= 0, got {seed!r}"
        raise ValueError(msg)


def positive_int(name: str, value: object) -> int:
    """``value`` as an int >= 1 (numpy integers accepted)."""
    if not (is_int(value) and value >= 1):
        msg = f"`{name}` must be an integer >= 1, got {value!r}"
        raise ValueError(msg)
    return int(value)


def check_bins(bins: object) -> int | None:
    """``bins=``: None or an integer from 1 to 2**53 (beyond, the edges ``j * (1 /
    bins)`` are no longer distinct floats below their scores)."""
    if bins is None:
        return None
    if not (is_int(bins) and 1 <= bins <= MAX_EXACT_FLOAT_INT):
        msg = f"`bins` must be None or an integer >= 1 (at most 2**53), got {bins!r}"
        raise ValueError(msg)
    return int(bins)


def check_max_fpr(max_fpr: object) -> float | None:
    """``max_fpr=`` of ``roc_auc``: None or a number in (0, 1]; 1 is the whole area (None)."""
    if max_fpr is None:
        return None
    value = _as_float(max_fpr)
    if not 0 < value <= 1:
        msg = f"`max_fpr` must be None or a number in (0, 1], got {max_fpr!r}"
        raise ValueError(msg)
    return None if value == 1 else value


def check_log_base(log_base: object) -> float:
    """``log_base=`` of dcg: a finite number > 0 other than 1."""
    value = _as_float(log_base)
    if not (0 < value < math.inf and value != 1):
        msg = (
            "`log_base` must be a finite number > 0 other than 1 (the base of the "
            f"logarithmic discount, scikit-learn's default 2), got {log_base!r}"
        )
        raise ValueError(msg)
    return value


def check_eps(eps: object) -> float:
    """``eps=`` of the drift metrics: a number in (0, 1), what a zero share becomes."""
    value = _as_float(eps)
    if not 0 < value < 1:
        msg = f"`eps` must be a number in (0, 1), got {eps!r}"
        raise ValueError(msg)
    return value


def check_split_every(split_every: object) -> int:
    """``split_every=`` of the Dask functions: how many states one merge task sums, >= 2."""
    if not (is_int(split_every) and split_every >= 2):  # type: ignore[operator]
        msg = f"`split_every` must be an integer >= 2, got {split_every!r}"
        raise ValueError(msg)
    return int(split_every)  # type: ignore[call-overload]


def check_threshold(threshold: object) -> float:
    """A finite number."""
    value = _as_float(threshold)
    if not math.isfinite(value):
        msg = f"`threshold` must be a finite number, got {threshold!r}"
        raise ValueError(msg)
    return value


#: An option's string type (a ``Literal``): what ``check_optional_choice`` returns.
Choice = TypeVar("Choice", bound=str)


def check_optional_choice(
    name: str, value: Choice | None, allowed: Collection[str]
) -> Choice | None:
    """``value``: None or one of ``allowed`` (``normalize=``, ``kappa_weights=``)."""
    if value is None:
        return None
    if not isinstance(value, str) or value not in allowed:
        msg = f"`{name}` must be None or one of {list(allowed)}, got {value!r}"
        raise ValueError(msg)
    return value


def check_flag(name: str, value: object) -> bool:
    """``value``: True or False (a truthy string or number is refused, not guessed)."""
    if not isinstance(value, bool):
        msg = f"`{name}` must be True or False, got {value!r}"
        raise ValueError(msg)
    return value


def check_replace_undefined_by(value: object) -> tuple[float, float]:
    """``replace_undefined_by`` of ``class_likelihood_ratios``: NaN, 1.0 or
    ``{"LR+": v1, "LR-": v2}`` with ``v1`` in [1, inf] or NaN and ``v2`` in [0, 1]
    or NaN (scikit-learn's rule).  Returns the values for LR+ and LR-."""
    if is_real(value) and (math.isnan(value) or value == 1):
        return float(value), float(value)
    if isinstance(value, Mapping) and set(value) == {"LR+", "LR-"}:
        lr_pos, lr_neg = value["LR+"], value["LR-"]
        if (
            is_real(lr_pos)
            and is_real(lr_neg)
            and (math.isnan(lr_pos) or lr_pos >= 1)
            and (math.isnan(lr_neg) or 0 <= lr_neg <= 1)
        ):
            return float(lr_pos), float(lr_neg)
    msg = (
        "`replace_undefined_by` must be float('nan'), 1.0 or a dict "
        "{'LR+': value_1, 'LR-': value_2} with value_1 in [1, inf] or NaN and value_2 in "
        f"[0, 1] or NaN; got {value!r}"
    )
    raise ValueError(msg)


def check_kappa_undefined(value: object) -> float:
    """``replace_undefined_by`` of Cohen's kappa: NaN or a number in [-1, 1]
    (scikit-learn's rule)."""
    if is_real(value) and (math.isnan(value) or -1 <= value <= 1):
        return float(value)
    msg = f"`replace_undefined_by` must be float('nan') or a number in [-1, 1], got {value!r}"
    raise ValueError(msg)


def check_kappa_undefined_interval(replace_undefined_by: float, ci: bool) -> None:
    """``summary(replace_undefined_by=..., ci=...)``: the bootstrap's replicates keep
    NaN for an undefined kappa, so a replacement with an interval is refused."""
    if ci and not math.isnan(replace_undefined_by):
        msg = (
            "`replace_undefined_by` with `ci` is not supported: the bootstrap replicates "
            "of kappa keep NaN where it is undefined; drop one of them"
        )
        raise ValueError(msg)


def check_labels_are_keys(
    labels: object, keys: Collection[object], dtype: pl.DataType, y_true: str
) -> None:
    """``labels`` of a ``{label: column}`` method whose columns are the classes
    (``hinge_loss``): the same classes as the mapping's keys, in any order
    (scikit-learn's ``labels`` names the columns of its score matrix)."""
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, pl.Series)):
        msg = f"`labels` must be a sequence of labels, got {labels!r}"
        raise TypeError(msg)
    given = [label_value(label, dtype, "labels", y_true) for label in labels]
    if set(given) != set(keys):
        msg = (
            f"`labels` {list(labels)!r} must be the classes of `y_score`'s mapping "
            f"{list(keys)!r}: each class has its score column"
        )
        raise ValueError(msg)


def check_kappa_interval(kappa_weights: str | None, ci_method: str) -> None:
    """``summary(kappa_weights=..., ci=...)``: refused with the bootstrap, whose
    replicates keep per-class counts, not the cells a weighted kappa needs, and
    with the delta method (unweighted kappa's)."""
    if kappa_weights is not None and ci_method in ("bootstrap", "poisson", "delta"):
        msg = (
            f"`kappa_weights` with ci_method={ci_method!r} is not supported: the "
            "bootstrap replicates keep per-class counts, not the off-diagonal cells a "
            "weighted kappa needs, and the delta method is Cohen's (unweighted) kappa's; "
            "drop `ci`, or use ci_method='wilson' (accuracy only)"
        )
        raise ValueError(msg)


#: The modules of the ``plot`` extra: the charts (Altair) and their PNG / SVG export.
PLOT_EXTRA = ("altair", "vl_convert")


def require_plot_extra(what: str) -> None:
    """Raise ``ModuleNotFoundError`` naming the ``plot`` extra when one of its modules is
    missing (``what``: the feature that needs it, ``pl_metrics.plot``, html_report)."""
    missing = [m for m in PLOT_EXTRA if importlib.util.find_spec(m) is None]
    if missing:
        msg = f"{what} needs {' and '.join(missing)} (the charts): pip install 'pl_metrics[plot]'"
        raise ModuleNotFoundError(msg)


def check_ci(ci: object, n_boot: object, ci_method: object, methods: Sequence[str]) -> bool:
    """``ci`` in (0, 1) or None, ``n_boot >= 1``, ``ci_method`` one of ``methods``.

    Returns whether intervals are asked for.
    """
    if ci is None:
        return False
    if not (is_real(ci) and 0 < ci < 1):
        msg = f"`ci` must be None or a confidence level in (0, 1), e.g. 0.95; got {ci!r}"
        raise ValueError(msg)
    positive_int("n_boot", n_boot)
    check_choice("ci_method", ci_method, methods)
    return True


#: The ``ci_method`` values of each method with intervals (the first, the default),
#: for the frame methods and the state finishers alike.
CI_METHODS: dict[str, tuple[str, ...]] = {
    # analytic by default (a group_by's cost); the bootstrap when asked
    "per_class": ("delta", "bootstrap", "wilson", "poisson"),
    "averages": ("delta", "bootstrap", "poisson"),
    "report": ("delta", "bootstrap", "poisson"),
    "summary": ("delta", "bootstrap", "wilson", "poisson"),
    # the scores' analytic intervals by default (a sort's cost); the bootstrap when asked
    "roc_auc": ("delong", "bootstrap", "poisson"),
    "average_precision": ("logit", "bootstrap", "poisson", "boyd"),
}
# a metric computed from another one (gini from roc_auc) takes its base's methods
CI_METHODS |= {
    name: CI_METHODS[m.derived.base] for name, m in CATALOGUE.items() if m.derived is not None
}

#: The analytic ``ci_method`` values and the metrics each gives an interval (the
#: bootstrap gives every metric one): for the calls that take one method for
#: several metrics (``compare``, ``over_time``).
ANALYTIC_CI: dict[str, frozenset[str]] = analytic_ci()  # from the catalogue


def default_ci_method(metric: str) -> str:
    """A metric's default ``ci_method``: its own method's (:data:`CI_METHODS`' first:
    DeLong for roc_auc, the logit interval for average_precision), else the bootstrap."""
    return CI_METHODS.get(metric, ("bootstrap",))[0]


def wants_ci(
    ci: float | None,
    n_boot: int,
    ci_method: str,
    weight: str | None,
    *,
    seed: object,
    methods: tuple[str, ...],
    counts: Mapping[str, pl.DataType] | None = None,
) -> bool:
    """Check the interval options (before anything else); True when intervals are asked for.

    ``weight``: the frame method's weight column; ``counts``: a state finisher's
    count columns and their dtypes.  Intervals resample counts of rows: a weight,
    or a state whose counts are not integers (made with ``weight=``), is refused.
    """
    check_seed(seed)  # given or not with `ci`: a bad seed is a bad call
    if not check_ci(ci, n_boot, ci_method, methods):
        return False
    if ci_method in ("bootstrap", "poisson") and importlib.util.find_spec("numpy") is None:
        msg = (
            f"ci_method={ci_method!r} needs numpy: pip install numpy (or use an analytic ci_method)"
        )
        raise ModuleNotFoundError(msg)
    arguments.UNWEIGHTED_CI.check({"ci": ci, "weight": weight})
    for column, dtype in (counts or {}).items():
        if not dtype.is_integer():
            msg = (
                f"`ci` needs a state of un-weighted counts (the intervals resample counts "
                f"of rows), but state column {column!r} is {dtype}, not integers: a state "
                "made with `weight=` holds sums of weights. Make the states without "
                "`weight`, or drop `ci` for the weighted point estimate alone (counts "
                "of rows that were stored as floats: cast them to Int64 first)"
            )
            raise ValueError(msg)
    return True


def renamed_option(old: str, new: str, value: object, current: object) -> object:
    """The value of an option passed under its former name ``old``: returned with a
    ``DeprecationWarning`` naming ``new``; an error when ``new`` is given too."""
    import warnings

    if current is not None:
        msg = f"pass `{new}` only: `{old}` is its former name"
        raise TypeError(msg)
    msg = f"`{old}=` is deprecated: it is `{new}=` now (the same values)"
    warnings.warn(msg, DeprecationWarning, stacklevel=3)
    return value


def check_partial_auc(max_fpr: float | None, *, bound: str, bounded: bool, ci: bool) -> None:
    """``roc_auc(max_fpr=...)``: the partial AUC takes no error bound (``bounded``:
    asked for by the option named ``bound``, ``bins`` or ``error_bound``) and no ``ci``."""
    if max_fpr is not None and (bounded or ci):
        msg = (
            f"`max_fpr` takes neither `{bound}` (the error bound is of the whole area) "
            "nor `ci`: drop them for the partial AUC"
        )
        raise ValueError(msg)


def by_names(by: object) -> list[str]:
    """The output names of ``by`` (names or expressions): the segment columns of a
    state made with it, to finish the state by."""
    return list(normalize_by(by).names)


def normalize_by(by: object, *, expressions: bool = True) -> Segments:
    """Turn ``by=`` into :class:`~pl_metrics._core.names.Segments`: a column name, a
    polars expression, or a list of them, with distinct output names.

    An expression's output name is ``expr.meta.output_name()``; one without a
    single output name (``pl.all()``, ``pl.col("a", "b")``, a selector) is refused.
    ``expressions=False`` (the state finishers): column names only.
    """
    if by is None:
        items: list[str | pl.Expr] = []
    elif isinstance(by, (str, pl.Expr)):
        items = [by]
    elif isinstance(by, Sequence) and all(isinstance(item, (str, pl.Expr)) for item in by):
        items = list(by)
    else:
        msg = (
            f"`by` must be a column name or a list of names and polars expressions (or one "
            f"expression), got {by!r} ({type(by).__name__}); e.g. by='region', "
            "by=['region', 'day'] or by=['region', pl.col('ts').dt.date().alias('day')]"
        )
        raise TypeError(msg)
    expr = next((item for item in items if isinstance(item, pl.Expr)), None)
    if not expressions and expr is not None:
        msg = (
            "`by` of from_counts / from_score_counts names columns of the state, got the "
            f"expression {expr}; the state holds the segments already evaluated: pass "
            "their names, e.g. by='week' for a state made with "
            "by=pl.col('ts').dt.truncate('1w').alias('week')"
        )
        raise TypeError(msg)
    names = [item if isinstance(item, str) else _output_name(item) for item in items]
    if len(set(names)) != len(names):
        msg = (
            f"`by` lists a column more than once: {names!r} (the output names); "
            "give an expression another name with .alias('...')"
        )
        raise ValueError(msg)
    return Segments(tuple(items), tuple(names))


def _output_name(expr: pl.Expr) -> str:
    """The one output name of a ``by`` expression, or a ``ValueError`` saying what to do."""
    try:
        several = expr.meta.has_multiple_outputs()
        name = None if several else expr.meta.output_name()
    except pl.exceptions.PolarsError:
        name = None
    if name is None:
        msg = (
            f"`by` expression {expr} does not have a single output column name; pass one "
            "item per column (e.g. by=['a', 'b'] for pl.col('a', 'b')) and name a "
            "computed segment with .alias('segment')"
        )
        raise ValueError(msg)
    return name


def check_column_name(argument: str, name: object) -> str:
    """A column argument must be one column name (a str)."""
    if not isinstance(name, str):
        hint = ""
        if argument == "y_score" and isinstance(name, Mapping):
            hint = (
                "; this method is binary: pass the score column of pos_label (a "
                "{label: column} mapping is for roc_auc, log_loss, brier_score and "
                "top_k_accuracy)"
            )
        elif argument == "y_score" and isinstance(name, Sequence):
            hint = (
                "; for multiclass scores pass a mapping {label: column}, "
                "e.g. {'cat': 'p_cat', 'dog': 'p_dog'}"
            )
        msg = f"`{argument}` must be a column name (str), got {name!r}{hint}"
        raise TypeError(msg)
    check_not_internal(argument, name, f"`.rename({{{name!r}: 'x'}})`")
    return name


def check_not_internal(argument: str, name: str, hint: str) -> None:
    """A column (or ``by`` output) name may not start with :data:`INTERNAL`, the prefix of
    the library's temporary columns (``hint``: how to rename it)."""
    if name.startswith(INTERNAL):
        msg = (
            f"`{argument}` column {name!r} starts with {INTERNAL!r}, the prefix of "
            f"pl_metrics' own columns; rename it first, e.g. {hint}"
        )
        raise ValueError(msg)


def check_score_map(argument: str, y_score: object, *, at_least: int = 2) -> dict[object, str]:
    """A ``{label: column}`` mapping with at least two classes (``at_least``: 1 for the
    metrics that scikit-learn defines on a single label)."""
    if not isinstance(y_score, Mapping):
        msg = f"`{argument}` must be a column name or a mapping {{label: column}}, got {y_score!r}"
        raise TypeError(msg)
    if len(y_score) < at_least:
        wanted = "one class" if at_least == 1 else "two classes"
        msg = f"`{argument}` must map at least {wanted} to columns, got {dict(y_score)!r}"
        raise ValueError(msg)
    for column in y_score.values():
        check_column_name(argument, column)
    return dict(y_score)


# --------------------------------------------------------------------------- schema
def check_not_named(columns: Mapping[str, str | None], name: str) -> None:
    """No input column (``{argument: column}``) may have the name ``name``, a column
    the method makes for itself (``over_time``'s window end)."""
    for argument, column in columns.items():
        if column == name:
            msg = (
                f"`{argument}` column {column!r} has the name of a column this method "
                f"makes; rename it first, e.g. `.rename({{{column!r}: 'x'}})`"
            )
            raise ValueError(msg)


def check_columns(schema: pl.Schema, **columns: str | None) -> None:
    """Raise ``ColumnNotFoundError`` for the first argument naming a missing column."""
    check_found(schema, columns.items())


def check_found(
    schema: pl.Schema, given: Iterable[tuple[str, str | None]], where: str = ""
) -> None:
    """Raise ``ColumnNotFoundError`` for the first ``(argument, column)`` of ``given``
    whose column is not in ``schema`` (``where`` follows "not found": the reference's)."""
    for argument, name in given:
        if name is not None and name not in schema:
            msg = (
                f"column {name!r} (argument `{argument}`) not found{where}; "
                f"available columns: {list(schema.names())}"
            )
            raise ColumnNotFoundError(msg)


def check_by(schema: pl.Schema, by: Segments, reserved: Collection[str], where: str = "") -> None:
    """``by`` columns must exist, ``by`` expressions must evaluate on ``schema`` (read
    from an empty frame of that schema: no rows), and no output name may start with
    :data:`INTERNAL` or take the name of an output column (``where``: whose schema it
    is, as :func:`check_found` says it; "" the data's)."""
    for item, name in zip(by.given, by.names, strict=True):
        if isinstance(item, str):
            check_found(schema, [("by", name)], where)
            dtype = schema[name]
            hint = f"`.rename({{{name!r}: 'segment'}})`"
        else:
            dtype = _check_by_expression(schema, item, where)
            hint = f"`.alias('segment')` on the expression {item} whose output name it is"
        if dtype == pl.Object:  # polars can neither group nor sort Python objects
            msg = (
                f"`by` column {name!r} holds Python objects (dtype Object), which cannot be "
                f"grouped or sorted; cast it first, e.g. pl.col({name!r}).cast(pl.String)"
            )
            raise SchemaError(msg)
        check_not_internal("by", name, hint)
        if name in reserved:
            msg = (
                f"`by` column {name!r} collides with an output column of this method "
                f"({list(reserved)}); rename it first, e.g. {hint}"
            )
            raise ValueError(msg)


def _check_by_expression(schema: pl.Schema, expr: pl.Expr, where: str) -> pl.DataType:
    """A ``by`` expression must resolve on the frame's schema (polars' own error type,
    with a message naming ``by`` and ``where``); its output dtype."""
    try:
        return pl.LazyFrame(schema=schema).select(expr).collect_schema().dtypes()[0]
    except pl.exceptions.PolarsError as exc:
        reason = str(exc).strip().split("\n")[0]  # polars' first line; not its query plan
        msg = (
            f"`by` expression {expr} cannot be evaluated{where or ' on this frame'} "
            f"(columns: {list(schema.names())}): {reason}"
        )
        raise type(exc)(msg) from None


def ties_as_float(dtype: pl.DataType) -> bool:
    """Whether a score column of ``dtype`` can hold distinct values that Float64 ties
    (integers and decimals at or beyond +-2**53: :func:`beyond_exact_float`)."""
    return dtype.is_integer() or dtype.is_decimal()


def beyond_exact_float(x: pl.Expr) -> pl.Expr:
    """Row-wise: ``x`` (an integer or decimal column) at or beyond +-2**53, where
    Float64 would tie it with its neighbours; false for nulls (their own check)."""
    return (x.cast(pl.Float64).abs() >= MAX_EXACT_FLOAT_INT).fill_null(False)


def check_numeric(schema: pl.Schema, argument: str, name: str | None, where: str = "") -> None:
    """A weight or score column must be numeric (``SchemaError`` otherwise; ``where``:
    whose schema it is, as :func:`check_found` says it)."""
    if name is None:
        return
    check_found(schema, [(argument, name)], where)
    dtype = schema[name]
    if not dtype.is_numeric() and dtype != pl.Boolean:
        msg = f"column {name!r} (argument `{argument}`){where} must be numeric, got {dtype}"
        raise SchemaError(msg)


# --------------------------------------------------------------------------- data
#: A data check on an aggregated frame: (column of bad-row counts, error from the total).
Check = tuple[str, Callable[[int], DataError]]


def raise_if_bad(frame: pl.LazyFrame, checks: Sequence[Check]) -> pl.LazyFrame:
    """``frame`` (aggregated) that raises the first failing check's error at collect.

    Each check's column holds counts of bad rows; the check fails when they sum
    to more than 0.  The check columns stay in the frame (the caller selects).
    """

    def check(df: pl.DataFrame) -> pl.DataFrame:
        for column, error in checks:
            n_bad = df[column].sum()
            if n_bad:
                raise error(int(n_bad))
        return df

    return frame.map_batches(check)


def not_a_label(column: str | pl.Expr) -> pl.Expr:
    """Row-wise: a float label that is NaN, infinite or not a whole Int64 (null: False)."""
    x = pl.col(column) if isinstance(column, str) else column
    x = x.cast(pl.Float64)
    return (~x.is_finite() | (x != x.round()) | (x.abs() >= 2.0**63)).fill_null(False)


#: The smallest normal Float64: a positive weight below it (subnormal) has too few
#: bits to compute with (5e-324 is a single bit: ratios of such sums are garbage).
MIN_NORMAL_WEIGHT = 2.2250738585072014e-308


def weight_total_too_large(total: pl.Expr) -> pl.Expr:
    """1 where a segment's total weight is above :data:`MAX_WEIGHT_TOTAL` (or not
    finite), else 0 (Int64)."""
    return (~(total <= MAX_WEIGHT_TOTAL)).fill_null(False).cast(pl.Int64)


def weight_is_bad(w: pl.Expr) -> pl.Expr:
    """Row-wise: a weight that is null, NaN, infinite, negative or subnormal."""
    w = w.cast(pl.Float64)
    subnormal = (w > 0) & (w < MIN_NORMAL_WEIGHT)
    return (
        w.is_null()
        | ~w.is_finite().fill_null(False)
        | (w < 0).fill_null(False)
        | subnormal.fill_null(False)
    )


def weight_kept(w: pl.Expr) -> pl.Expr:
    """Row-wise: the row is read (its weight is not 0; a null, NaN or negative weight
    stays, for :func:`weight_is_bad` to report), in the frame and expression stages."""
    return (w.cast(pl.Float64) != 0).fill_null(True)


def weight_errors(column: str) -> tuple[Callable[[int], DataError], Callable[[int], DataError]]:
    """The errors of the weight's two row rules, naming ``column``: the count of rows
    of a bad weight (:func:`weight_is_bad`), a segment whose total is too large
    (:func:`weight_total_too_large`); one pair for the frame and expression stages."""
    return partial(Bad.bad_weights, column), lambda _: Bad.weight_overflow(column)


def bad_weight(weight: str) -> pl.Expr:
    """Aggregation: number of rows whose weight is bad (:func:`weight_is_bad`)."""
    return weight_is_bad(pl.col(weight)).sum()


def without_zero_weights(lf: pl.LazyFrame, weight: str | None) -> pl.LazyFrame:
    """The rows whose weight is not 0: rows of weight 0 are absent, as in scikit-learn's
    curves (they add no class, no threshold and no NaN).  Null, NaN and negative
    weights stay, for the weight check to report."""
    if weight is None:
        return lf
    return lf.filter(weight_kept(pl.col(weight)))


def labels_present(lf: pl.LazyFrame, column: str) -> list[object]:
    """The distinct non-null values of ``column`` (read only on an error path)."""
    values = lf.select(pl.col(column).drop_nulls().unique().sort()).collect()
    return values.get_column(column).to_list()
