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

What a metric does differently wherever it is computed is a field of its record
(``ranked``: its sorted-state statistic; ``row_loss``: the per-row loss it is the
mean of; ``correct_share``: a share of all the rows; ``paired_test``,
``cell_gradient``: compare_models' test and delta method; ``summary_interval``,
``bounds``, ``empty_mean``), read by the calls: none of them
compares a metric's name (``tests/test_registry_records.py``).

Adding a metric that one of these calls takes by name is an entry here (and the
formula it reads, if it is new).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from pl_metrics._core import formulas, paired_gradients

if TYPE_CHECKING:
    from collections.abc import Callable

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


class Ranked(Enum):
    """The statistic of the ranked scores a ranking metric is: which finisher of the
    sorted state (``_ranking.batches``, ``_multilabel.ranking``) or of the per-score
    counts (``_ranking.from_counts``) gives it."""

    AUC = "auc"  # the positives' placements among the negatives (roc_auc; gini maps it)
    AP = "ap"  # the precision at each positive, weighted by its recall step
    KS = "ks"  # the largest gap of the two classes' cumulative shares


class RowLoss(Enum):
    """The per-row loss of the probabilities that a probability metric is the
    (weighted) mean of (``_probability.row_log_loss`` / ``row_brier``, of
    ``formulas.log_loss_terms`` / ``brier_terms``): what ``over_time``'s buckets
    average and the engines' loss state sums (``_engines.losses.SUMMED``)."""

    LOG = "log"  # log_loss
    BRIER = "brier"  # brier_score


@dataclass(frozen=True)
class Metric:
    """How a metric of the catalogue is computed, and which way is better.

    The fields after ``derived`` carry what a metric does differently wherever it is
    computed, so that no call compares its name (``tests/test_registry_records.py``).
    """

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
    ranked: Ranked | None = None  # a ranking metric's statistic of the ranked scores
    row_loss: RowLoss | None = None  # a probability metric's per-row loss (its mean)
    # the weighted mean over labels of none with a positive (multilabel AP: 0,
    # scikit-learn's); None: null (the labels of an undefined value are left out)
    empty_mean: float | None = None
    # the share of the rows predicted right, over all of them (accuracy): its parts are
    # the confusion matrix's diagonal and n, and n is fixed when labels are drawn
    correct_share: bool = False
    # compare_models' test of the two models' difference where it is not the interval's
    # z test: "mcnemar" (the discordant rows; its p-value, not the bootstrap's)
    paired_test: str | None = None
    # the summary's ci_method="delta" interval: "wilson" (of n rows), "effective_wilson"
    # (Wilson's at the delta method's effective rows) or "wald" (+- z se, clipped to
    # ``bounds``); the last two read a delta-method standard error
    summary_interval: str | None = None
    bounds: tuple[float, float] = (0.0, 1.0)  # the metric's range (a difference: its width)
    # compare_models' delta method over the joint cells: the metric's derivative at a
    # cell and whether it is defined (``paired_gradients``); None: not offered
    cell_gradient: Callable[..., tuple[pl.Expr, pl.Expr]] | None = None

    @property
    def signed(self) -> bool:
        """Its range reaches below 0 (mcc, cohen_kappa, gini, ...): a ratio of two of
        its values means nothing, so ``disparity`` / ``compare`` leave it null."""
        return self.bounds[0] < 0


_DELTA = ("delta", "bootstrap", "poisson")
#: The summary's metrics and what each does differently.  accuracy: McNemar's test
#: and the Agresti-Min interval (compare_models), Wilson's (compare / over_time); the
#: others: the delta method over the joint cells; no replicates either way.
_SUMMARY: dict[str, dict[str, Any]] = {
    "accuracy": {
        "paired": ("agresti_min", "bootstrap", "poisson"),
        "analytic": "wilson",
        "correct_share": True,
        "paired_test": "mcnemar",
        "summary_interval": "wilson",
    },
    "balanced_accuracy": {
        "paired": _DELTA,
        "summary_interval": "effective_wilson",
        "cell_gradient": paired_gradients.balanced_accuracy,
    },
    "mcc": {
        "paired": _DELTA,
        "summary_interval": "wald",
        "bounds": (-1.0, 1.0),
        "cell_gradient": paired_gradients.mcc,
    },
    "cohen_kappa": {
        "paired": _DELTA,
        "summary_interval": "wald",
        "bounds": (-1.0, 1.0),
        "cell_gradient": paired_gradients.cohen_kappa,
    },
}
_NEUTRAL = ("selection_rate", "prevalence")
_LOWER = (
    "false_positive_rate",
    "false_negative_rate",
    "false_discovery_rate",
    "false_omission_rate",
)
#: The per-class scores of ``formulas.SCORES`` by their names at beta 1 (``f1``).
_SCORES = tuple(formulas.score_name(s) for s in formulas.SCORES)
#: The binary metrics over_time takes (the positive class's), and compare_models'.
_OVER_TIME_BINARY = (*_SCORES, "specificity")
#: compare_models' binary metrics and their derivatives at a joint cell.
_PAIRED_BINARY = {
    "precision": paired_gradients.precision,
    "recall": paired_gradients.recall,
    "f1": paired_gradients.f1,
}


def _binary(name: str) -> Metric:
    better = None if name in _NEUTRAL else name not in _LOWER
    score = formulas.SCORES.get(formulas.score_key(name))
    return Metric(
        "binary",
        name,
        higher_is_better=better,
        over_time=name in _OVER_TIME_BINARY,
        paired=_DELTA if name in _PAIRED_BINARY else (),
        bounds=(0.0, 1.0) if score is None else score.bounds,
        cell_gradient=_PAIRED_BINARY.get(name),
    )


#: Every metric a call takes by name, in the order the calls list them.
CATALOGUE: dict[str, Metric] = {
    # the group's size (weighted): over_time's first column; compare reads it internally
    "n": Metric(
        "binary",
        "n",
        "size",
        higher_is_better=None,
        compare=True,
        over_time=True,
        bounds=(0.0, float("inf")),
    ),
    **{m: Metric("summary", m, "summary", over_time=True, **f) for m, f in _SUMMARY.items()},
    **{
        f"{m}_{a}": Metric(
            "averages",
            m,
            "averaged",
            row=("average", a),
            over_time=True,
            bounds=formulas.SCORES[formulas.score_key(m)].bounds,
        )
        for m in _SCORES
        for a in AVERAGES
    },
    **{r: _binary(r) for r in formulas.RATES},
    # the positive class's scores (precision is a rate)
    **{m: _binary(m) for m in (*_SCORES, "specificity") if m not in formulas.RATES},
    "roc_auc": Metric(
        "roc_auc",
        "roc_auc",
        "ranking",
        scores=True,
        over_time=True,
        paired=("delong",),
        analytic="delong",
        ranked=Ranked.AUC,
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
        ranked=Ranked.AUC,
        bounds=(-1.0, 1.0),
    ),
    "average_precision": Metric(
        "average_precision",
        "average_precision",
        "ranking",
        scores=True,
        over_time=True,
        paired=_DELTA,
        analytic="logit",
        ranked=Ranked.AP,
        empty_mean=0.0,
    ),
    "ks": Metric("ks", "ks", "ranking", scores=True, over_time=True, ranked=Ranked.KS),
    "log_loss": Metric(
        "log_loss",
        "log_loss",
        "probability",
        scores=True,
        higher_is_better=False,
        over_time=True,
        row_loss=RowLoss.LOG,
        bounds=(0.0, float("inf")),
    ),
    "brier_score": Metric(
        "brier_score",
        "brier_score",
        "probability",
        scores=True,
        higher_is_better=False,
        over_time=True,
        row_loss=RowLoss.BRIER,
    ),
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
    from pl_metrics._core.options import checked  # the front door reads this module

    checked("metric_names", family=family)
    return [name for name, m in CATALOGUE.items() if family is None or m.family == family]


def base_of(name: str) -> str:
    """The metric that ``name`` is computed from: its ``derived`` base, else itself."""
    derived = CATALOGUE[name].derived if name in CATALOGUE else None
    return name if derived is None else derived.base


def derived_from(base: str) -> tuple[str, ...]:
    """The metrics computed from ``base`` (``roc_auc``: ``gini``), in catalogue order."""
    return tuple(
        name for name, m in CATALOGUE.items() if m.derived is not None and m.derived.base == base
    )


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
    "Ranked",
    "RowLoss",
    "analytic_ci",
    "base_of",
    "derive",
    "metric_names",
    "names_of",
]
