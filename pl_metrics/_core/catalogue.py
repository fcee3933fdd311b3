"""The metric catalogue: every metric that a call takes by name, declared once.

``compare`` / ``disparity`` (``metric=``), ``over_time`` (``metrics=``) and
``compare_models`` (``metric=``) take metrics by name (scikit-learn's scorer names:
``f1_macro`` is ``averages``' macro F1, ``f1`` the binary F1 of ``pos_label``).  Each
name's :class:`Metric` says how it is computed (the frame method and its column,
or a reduction of the 2x2 counts: ``formulas.RATES`` / ``PROPORTIONS``), its
family, which way is better, whether it reads scores, which calls offer it and
with which interval methods.  The lists those calls check and dispatch on are read
from here (:func:`names_of`): ``_groups.fairness.METRICS``, ``_groups.over_time``'s families,
``_groups.paired.METRICS`` and ``CI_METHODS``, ``checks.ANALYTIC_CI``, the summary's
columns (``names.SUMMARY_LABELS``), the bootstrap's summary and averaged
metrics, the report's headline cards and the CLI's choice of label columns; the
``Literal`` aliases of ``_typing`` are tested equal to them.  The per-class
scores (precision, recall, F-beta, Jaccard, Fowlkes-Mallows) are declared in
``formulas.SCORES``,
their formulas' home: each is averaged here (``f1_macro``) and taken as a binary
metric (``f1``), and ``per_class`` / ``averages`` / ``report``, their expressions,
replicates and intervals read them from there.

Adding a metric that one of these calls takes by name is an entry here (and the
formula it reads, if it is new).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pl_metrics._core import formulas as fm

if TYPE_CHECKING:
    import polars as pl

#: The families, in the order the catalogue lists them.
FAMILIES = (
    "size",  # the rows counted (weighted): n
    "summary",  # one value per segment of the confusion matrix (summary's columns)
    "averaged",  # the micro / macro / weighted average of a per-class score
    "binary",  # the pos_label class against the rest, from the 2x2 counts
    "ranking",  # from the ranked scores of the positives and negatives
    "probability",  # a loss of the predicted probabilities
    "calibration",  # the probabilities' calibration
)
#: The averages of a per-class score, in output order.
AVERAGES = ("micro", "macro", "weighted")


@dataclass(frozen=True)
class Affine:
    """A metric that is ``scale x base + shift`` of another one's (``gini`` = 2 AUC - 1).

    Its value, its interval's bounds (``scale`` > 0 keeps their order), its
    replicates and its error bound follow from the base metric's, and a difference
    of two of its values is ``scale`` times the base's: every call that offers the
    base offers it by computing the base and mapping the result (:func:`derive`).
    """

    base: str
    scale: float
    shift: float

    def __post_init__(self) -> None:
        # bounds are mapped as they are (low to low): a negative scale would swap them
        if not self.scale > 0:
            msg = f"an Affine metric's scale must be positive (its bounds keep their order): {self}"
            raise ValueError(msg)

    def value(self, base: object) -> object:
        """The metric of a base value (a number, an array or an expression)."""
        return self.scale * base + self.shift  # type: ignore[operator]

    def difference(self, base: object) -> object:
        """The difference of two values of the metric from the base's difference."""
        return self.scale * base  # type: ignore[operator]


@dataclass(frozen=True)
class Metric:
    """How a metric of the catalogue is computed, and which way is better."""

    method: str  # the frame method (or "binary": from the 2x2 counts)
    column: str  # its output column
    family: str = "binary"  # one of FAMILIES
    scores: bool = False  # reads y_score (pos_label applies), not y_pred
    row: tuple[str, str] | None = None  # (column, value) of the method's row to read
    higher_is_better: bool | None = True  # None: neither (a rate such as selection_rate)
    compare: bool = True  # compare / disparity take it ("n" only internally)
    over_time: bool = False  # over_time takes it
    paired: tuple[str, ...] = ()  # compare_models' ci_method values (the default first)
    analytic: str | None = None  # the analytic ci_method of compare / over_time, if any
    derived: Affine | None = None  # computed from another metric of the catalogue


_SUMMARY = ("accuracy", "balanced_accuracy", "mcc", "cohen_kappa")
_NEUTRAL = ("selection_rate", "prevalence")
_LOWER = (
    "false_positive_rate",
    "false_negative_rate",
    "false_discovery_rate",
    "false_omission_rate",
)
#: The per-class scores of ``formulas.SCORES`` by their names at beta 1 (``f1``).
_SCORES = tuple(fm.score_name(s) for s in fm.SCORES)
#: The binary metrics over_time takes (the positive class's), and compare_models'.
_OVER_TIME_BINARY = (*_SCORES, "specificity")
_PAIRED_BINARY = ("precision", "recall", "f1")


def _binary(name: str) -> Metric:
    better = None if name in _NEUTRAL else name not in _LOWER
    return Metric(
        "binary",
        name,
        higher_is_better=better,
        over_time=name in _OVER_TIME_BINARY,
        paired=("delta", "bootstrap", "poisson") if name in _PAIRED_BINARY else (),
    )


#: Every metric a call takes by name, in the order the calls list them.
CATALOGUE: dict[str, Metric] = {
    # the group's size (weighted): over_time's first column; compare reads it internally
    "n": Metric("binary", "n", "size", higher_is_better=None, compare=True, over_time=True),
    **{
        m: Metric(
            "summary",
            m,
            "summary",
            over_time=True,
            # accuracy: McNemar's test and the Agresti-Min interval; the others: the
            # delta method over the joint cells; no replicates either way
            paired=("agresti_min", "bootstrap", "poisson")
            if m == "accuracy"
            else ("delta", "bootstrap", "poisson"),
            analytic="wilson" if m == "accuracy" else None,
        )
        for m in _SUMMARY
    },
    **{
        f"{m}_{a}": Metric("averages", m, "averaged", row=("average", a), over_time=True)
        for m in _SCORES
        for a in AVERAGES
    },
    **{r: _binary(r) for r in fm.RATES},
    # the positive class's scores (precision is a rate)
    **{m: _binary(m) for m in (*_SCORES, "specificity") if m not in fm.RATES},
    "roc_auc": Metric(
        "roc_auc",
        "roc_auc",
        "ranking",
        scores=True,
        over_time=True,
        paired=("delong",),
        analytic="delong",
    ),
    # Somers' D: credit scoring's headline, roc_auc's every path mapped (``derive``)
    "gini": Metric(
        "gini",
        "gini",
        "ranking",
        scores=True,
        over_time=True,
        paired=("delong",),
        analytic="delong",
        derived=Affine("roc_auc", 2.0, -1.0),
    ),
    "average_precision": Metric(
        "average_precision",
        "average_precision",
        "ranking",
        scores=True,
        over_time=True,
        paired=("delta", "bootstrap", "poisson"),
        analytic="logit",
    ),
    "ks": Metric("ks", "ks", "ranking", scores=True, over_time=True),
    **{
        m: Metric(m, m, "probability", scores=True, higher_is_better=False, over_time=True)
        for m in ("log_loss", "brier_score")
    },
    # the expected calibration error of 15 equal bins (calibration_error's ``ece``)
    "calibration_error": Metric(
        "calibration_error",
        "ece",
        "calibration",
        scores=True,
        higher_is_better=False,
        compare=False,
        over_time=True,
    ),
}


def names_of(
    *families: str,
    compare: bool | None = None,
    over_time: bool | None = None,
    paired: bool | None = None,
) -> tuple[str, ...]:
    """The catalogue's names of ``families`` (all when none is given), in catalogue
    order, that the calls given as True offer (as False: do not offer)."""
    unknown = set(families) - set(FAMILIES)
    if unknown:
        msg = f"unknown metric families {sorted(unknown)}"
        raise ValueError(msg)
    return tuple(
        name
        for name, m in CATALOGUE.items()
        if (not families or m.family in families)
        and (compare is None or m.compare is compare)
        and (over_time is None or m.over_time is over_time)
        and (paired is None or bool(m.paired) is paired)
    )


def metric_names(family: str | None = None) -> list[str]:
    """The metrics that the calls taking metrics by name accept (``compare``,
    ``disparity``, ``over_time``, ``compare_models``, ``check``): every name of the
    catalogue, or those of one family, in the catalogue's order.

    Families: ``"size"``, ``"summary"``, ``"averaged"``, ``"binary"``,
    ``"ranking"``, ``"probability"``, ``"calibration"``.  (scikit-learn's
    ``get_scorer_names``.)

    >>> import pl_metrics as plm
    >>> plm.metric_names("ranking")
    ['roc_auc', 'gini', 'average_precision', 'ks']
    """
    if family is not None and family not in FAMILIES:
        msg = f"`family` must be None or one of {list(FAMILIES)}; got {family!r}"
        raise ValueError(msg)
    return [name for name, m in CATALOGUE.items() if family is None or m.family == family]


def base_of(name: str) -> str:
    """The metric that ``name`` is computed from: its ``derived`` base, else itself."""
    derived = CATALOGUE[name].derived if name in CATALOGUE else None
    return name if derived is None else derived.base


def derive(frame: pl.LazyFrame, name: str, *, base: str | None = None) -> pl.LazyFrame:
    """``frame`` (a result of ``name``'s base metric: its column ``base``, and
    ``base_low`` / ``base_high`` / ``base_error_bound`` where present) as a result of
    the derived metric ``name``: each of those columns mapped and renamed (``roc_auc``
    -> ``gini``: 2 x - 1, the error bound 2 x); other columns unchanged, in place.
    ``base``: the base's column when it is not the base's name (``compare``'s
    ``value``).  A metric that is not derived is returned as it is."""
    import polars as pl

    derived = CATALOGUE[name].derived
    if derived is None:
        return frame
    column = derived.base if base is None else base
    mapped: list[pl.Expr] = []
    for c in frame.collect_schema().names():
        if c in (column, f"{column}_low", f"{column}_high"):
            new = c.replace(column, name, 1) if base is None else c
            mapped.append(derived.value(pl.col(c)).alias(new))  # type: ignore[union-attr]
        elif c == f"{column}_error_bound":
            bound = abs(derived.scale) * pl.col(c)
            mapped.append(bound.alias(c.replace(column, name, 1)))
        else:
            mapped.append(pl.col(c))
    return frame.select(mapped)


def analytic_ci() -> dict[str, frozenset[str]]:
    """Each analytic ``ci_method`` of ``compare`` / ``over_time`` and the metrics it
    gives an interval (the bootstrap gives every metric one)."""
    methods = dict.fromkeys(m.analytic for m in CATALOGUE.values() if m.analytic is not None)
    return {
        method: frozenset(n for n, m in CATALOGUE.items() if m.analytic == method)
        for method in methods
    }


__all__ = [
    "AVERAGES",
    "CATALOGUE",
    "FAMILIES",
    "Affine",
    "Metric",
    "analytic_ci",
    "base_of",
    "derive",
    "metric_names",
    "names_of",
]
