"""Every metric formula, written once for polars expressions and numpy arrays.

Each function takes its counts as polars expressions (the frame methods, the
expressions, the threshold sweep) or as numpy arrays (the bootstrap
replicates) and returns the metric in the same kind; ``xp`` is :data:`POLARS`
or :data:`NUMPY`, the few operations whose spelling differs
(:mod:`pl_metrics._core.backends`, re-exported here with ``class_averages``).  A
formula's undefined cases (a zero denominator) are handled here, once.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

# the backends and the class averages, by their old names too (``fm.NUMPY``...)
from pl_metrics._core.backends import NUMPY, POLARS, Backend, class_averages  # noqa: F401
from pl_metrics._core.likelihood import likelihood_ratios  # noqa: F401 - a 2x2 formula


# --------------------------------------------------------------------------- one class
# tp, fp, fn, tn of one class against the rest; support = tp + fn, predicted = tp + fp.
def precision(tp: Any, predicted: Any, zero_division: float, xp: Backend = POLARS) -> Any:
    """tp / (tp + fp)."""
    return xp.ratio(tp, predicted, zero_division)


def recall(tp: Any, support: Any, zero_division: float, xp: Backend = POLARS) -> Any:
    """tp / (tp + fn)."""
    return xp.ratio(tp, support, zero_division)


def f_beta(  # noqa: PLR0917 - the counts, then the options, as every formula here
    tp: Any, support: Any, predicted: Any, beta: float, zero_division: float, xp: Backend = POLARS
) -> Any:
    """scikit-learn's (1 + b^2) tp / (b^2 (tp + fn) + (tp + fp))."""
    beta2 = beta * beta
    return xp.ratio(
        (1 + beta2) * xp.to_float(tp),
        beta2 * xp.to_float(support) + xp.to_float(predicted),
        zero_division,
    )


def jaccard(
    tp: Any, support: Any, predicted: Any, zero_division: float, xp: Backend = POLARS
) -> Any:
    """tp / (tp + fp + fn)."""
    return xp.ratio(tp, support + predicted - tp, zero_division)


def fowlkes_mallows(
    tp: Any, support: Any, predicted: Any, zero_division: float, xp: Backend = POLARS
) -> Any:
    """sqrt(precision x recall) = tp / sqrt((tp + fp) (tp + fn)), each of precision and
    recall ``zero_division`` where its denominator is 0 (so 0 when only one of them
    is undefined, with a finite ``zero_division``); taken as sqrt(precision) x
    sqrt(recall), which no product of large counts can overflow."""
    return xp.sqrt(precision(tp, predicted, zero_division, xp)) * xp.sqrt(
        recall(tp, support, zero_division, xp)
    )


def _rate_difference(  # noqa: PLR0917 - the counts, then the options, as every formula here
    hit: Any, hits: Any, miss: Any, misses: Any, zero_division: float, xp: Backend
) -> Any:
    """hit / hits - miss / misses: a rate of one set of rows less a rate of another,
    ``zero_division`` where either set is empty (the score is undefined: not a mix
    of one rate and ``zero_division``).  A difference of two rates, each within its
    own rows, in [-1, 1]: neither overflows nor moves with the weights' scale."""
    nan = float("nan")
    value = xp.ratio(hit, hits, nan) - xp.ratio(miss, misses, nan)
    return xp.where((hits == 0) | (misses == 0), zero_division, value)


def informedness(  # noqa: PLR0917 - the counts, then the options, as every formula here
    tp: Any, support: Any, predicted: Any, tn: Any, zero_division: float, xp: Backend = POLARS
) -> Any:
    """Youden's J, recall + specificity - 1 = tp / (tp + fn) - fp / (fp + tn): the true
    less the false positive rate; ``zero_division`` where tp + fn or fp + tn is 0.
    For two classes, the positive class's is scikit-learn's
    ``balanced_accuracy_score(adjusted=True)`` (2 x balanced accuracy - 1)."""
    fp = predicted - tp
    return _rate_difference(tp, support, fp, tn + fp, zero_division, xp)


def markedness(  # noqa: PLR0917 - the counts, then the options, as every formula here
    tp: Any, support: Any, predicted: Any, tn: Any, zero_division: float, xp: Backend = POLARS
) -> Any:
    """precision + negative predictive value - 1 = tp / (tp + fp) - fn / (fn + tn): the
    precision less the false omission rate; ``zero_division`` where tp + fp or
    fn + tn is 0.  Informedness with the actual and predicted labels swapped."""
    fn = support - tp
    return _rate_difference(tp, predicted, fn, tn + fn, zero_division, xp)


# The derivatives of each score by tp, fp, fn and tn (:func:`score_partials`): their
# numerators and their common denominator; a score that does not read tn has 0 there.
Partials = tuple[tuple[Any, Any, Any, Any], Any]


def _precision_partials(tp: Any, fp: Any, fn: Any, tn: Any, beta: float) -> Partials:
    """precision = tp / (tp + fp): (fp, -tp, 0, 0) / (tp + fp)^2."""
    den = tp + fp
    return (fp, -tp, 0.0 * tp, 0.0 * tp), den * den


def _recall_partials(tp: Any, fp: Any, fn: Any, tn: Any, beta: float) -> Partials:
    """recall = tp / (tp + fn): (fn, 0, -tp, 0) / (tp + fn)^2."""
    den = tp + fn
    return (fn, 0.0 * tp, -tp, 0.0 * tp), den * den


def _f_beta_partials(tp: Any, fp: Any, fn: Any, tn: Any, beta: float) -> Partials:
    """F-beta = A tp / D, A = 1 + b^2, D = A tp + b^2 fn + fp:
    (A (b^2 fn + fp), -A tp, -A b^2 tp, 0) / D^2."""
    a, b2 = 1 + beta * beta, beta * beta
    den = a * tp + b2 * fn + fp
    return (a * (b2 * fn + fp), -a * tp, -a * b2 * tp, 0.0 * tp), den * den


def _jaccard_partials(tp: Any, fp: Any, fn: Any, tn: Any, beta: float) -> Partials:
    """jaccard = tp / U, U = tp + fp + fn: (fp + fn, -tp, -tp, 0) / U^2."""
    den = tp + fp + fn
    return (fp + fn, -tp, -tp, 0.0 * tp), den * den


def _fowlkes_mallows_partials(tp: Any, fp: Any, fn: Any, tn: Any, beta: float) -> Partials:
    """FM = tp / sqrt(P S), P = tp + fp, S = tp + fn:
    (2 P S - tp (P + S), -tp S, -tp P, 0) / (2 (P S)^(3/2))."""
    p, s = tp + fp, tp + fn
    numerators = (2 * p * s - tp * (p + s), -tp * s, -tp * p, 0.0 * tp)
    return numerators, 2 * p * s * p**0.5 * s**0.5


def _informedness_partials(tp: Any, fp: Any, fn: Any, tn: Any, beta: float) -> Partials:
    """J = tp / S - fp / N, S = tp + fn, N = fp + tn: (fn / S^2, -tn / N^2, -tp / S^2,
    fp / N^2) = (fn N^2, -tn S^2, -tp N^2, fp S^2) / (S N)^2."""
    s2, n2 = (tp + fn) * (tp + fn), (fp + tn) * (fp + tn)
    return (fn * n2, -tn * s2, -tp * n2, fp * s2), s2 * n2


def _markedness_partials(tp: Any, fp: Any, fn: Any, tn: Any, beta: float) -> Partials:
    """MK = tp / P - fn / Q, P = tp + fp, Q = fn + tn: (fp / P^2, -tp / P^2, -tn / Q^2,
    fn / Q^2) = (fp Q^2, -tp Q^2, -tn P^2, fn P^2) / (P Q)^2."""
    p2, q2 = (tp + fp) * (tp + fp), (fn + tn) * (fn + tn)
    return (fp * q2, -tp * q2, -tn * p2, fn * p2), p2 * q2


@dataclass(frozen=True)
class Score:
    """A per-class score: a class's value from its counts, and the delta method's
    derivatives by them.

    ``value(tp, support, predicted, tn, beta, zero_division, xp)``: support = tp +
    fn, predicted = tp + fp, tn the rows of neither (a class's counts, or their sums
    over the classes for a micro average).  tn, not the rows' total: a class's tn is
    exactly 0 where no cell counts in it (``confusion.class_counts``), where a total
    minus the class's weighted rows could leave a residue of ~1e-17.  (It is still
    the rows' total less the class's, as scikit-learn's multilabel_confusion_matrix
    takes it: weights more than 2**53 times one another in a segment lose the
    smaller ones there.)
    ``partials(tp, fp, fn, tn, beta)`` (floats): the numerators of the derivatives
    by tp, fp, fn and tn and their common denominator (:func:`score_partials`; 0
    where the score is ``zero_division``).  ``reads_tn``: whether the score depends
    on tn (a caller may leave its tn term out where it does not); ``bounds``: the
    score's range.  A score that is a share of rows is also in :data:`PROPORTIONS`
    (its interval is then Wilson's, else the delta method's).
    """

    value: Callable[..., Any]
    partials: Callable[..., Partials]
    reads_tn: bool = False
    bounds: tuple[float, float] = (0.0, 1.0)
    #: ``(tp, fp, fn, tn) -> (a, b)``: a score that sums two proportions (informedness:
    #: recall and specificity) has the trials of the smaller of their denominators
    #: ``a``, ``b`` (:func:`score_trials`); None: the rows it reads
    trials_of: Callable[..., tuple[Any, Any]] | None = None
    #: its name at beta 1 where that is not its key (F-beta's, ``f1``): :func:`score_key`
    name: str = ""


#: The per-class scores, in output order (``f``: F-beta, whose column is
#: ``names.f_name(beta)``).  ``per_class``, ``averages`` and ``report`` (single-label
#: and multilabel), their expressions, their bootstrap replicates, their delta-method
#: intervals and the metrics taken by name (``catalogue``: each score averaged, and
#: binary) are all read from here: a new per-class score is an entry.
SCORES: dict[str, Score] = {
    "precision": Score(
        lambda tp, support, predicted, tn, beta, zd, xp=POLARS: precision(tp, predicted, zd, xp),
        _precision_partials,
    ),
    "recall": Score(
        lambda tp, support, predicted, tn, beta, zd, xp=POLARS: recall(tp, support, zd, xp),
        _recall_partials,
    ),
    "f": Score(
        lambda tp, support, predicted, tn, beta, zd, xp=POLARS: f_beta(
            tp, support, predicted, beta, zd, xp
        ),
        _f_beta_partials,
        name="f1",
    ),
    "jaccard": Score(
        lambda tp, support, predicted, tn, beta, zd, xp=POLARS: jaccard(
            tp, support, predicted, zd, xp
        ),
        _jaccard_partials,
    ),
    "fowlkes_mallows": Score(
        lambda tp, support, predicted, tn, beta, zd, xp=POLARS: fowlkes_mallows(
            tp, support, predicted, zd, xp
        ),
        _fowlkes_mallows_partials,
    ),
    "informedness": Score(
        lambda tp, support, predicted, tn, beta, zd, xp=POLARS: informedness(
            tp, support, predicted, tn, zd, xp
        ),
        _informedness_partials,
        reads_tn=True,
        bounds=(-1.0, 1.0),
        trials_of=lambda tp, fp, fn, tn: (tp + fn, tn + fp),  # recall's, specificity's
    ),
    "markedness": Score(
        lambda tp, support, predicted, tn, beta, zd, xp=POLARS: markedness(
            tp, support, predicted, tn, zd, xp
        ),
        _markedness_partials,
        reads_tn=True,
        bounds=(-1.0, 1.0),
        trials_of=lambda tp, fp, fn, tn: (tp + fp, tn + fn),  # precision's, npv's
    ),
}


#: The keys of the scores named otherwise (``f1``: ``f``).
_KEYS = {score.name: key for key, score in SCORES.items() if score.name}


def score_key(name: str) -> str:
    """The key in :data:`SCORES` of a per-class score as the calls name it: ``f1``
    (F-beta at beta 1, the metric ``f1`` / ``f1_macro``) is ``f`` (its ``Score.name``);
    every other name is its own key."""
    return _KEYS.get(name, name)


def score_name(key: str) -> str:
    """The name of a key of :data:`SCORES` at beta 1 (``f`` is ``f1``): the inverse of
    :func:`score_key`."""
    score = SCORES.get(key)
    return key if score is None or not score.name else score.name


def score_partials(  # noqa: PLR0917 - the counts, then the options, as every formula here
    name: str, tp: Any, fp: Any, fn: Any, tn: Any, beta: float, xp: Backend = POLARS
) -> tuple[Any, Any, Any, Any]:
    """The derivatives of per-class score ``name`` (of :data:`SCORES`) by its ``tp``,
    ``fp``, ``fn`` and ``tn`` counts: the delta method's gradient
    (:mod:`pl_metrics._intervals.analytic`); 0 where the score's denominator is 0
    (the score is then ``zero_division``, a constant).  Each score is homogeneous of
    degree 0 in the four counts (a ratio of counts), so that the gradient is
    orthogonal to them: ``sum count x derivative`` is 0."""
    tp, fp, fn, tn = (xp.to_float(x) for x in (tp, fp, fn, tn))
    parts, denominator = SCORES[name].partials(tp, fp, fn, tn, beta)
    d_tp, d_fp, d_fn, d_tn = (xp.ratio(part, denominator, 0.0) for part in parts)
    return d_tp, d_fp, d_fn, d_tn


def score_trials(  # noqa: PLR0917 - the counts, then the options, as every formula here
    name: str, tp: Any, fp: Any, fn: Any, tn: Any, xp: Backend = POLARS
) -> Any:
    """The rows per-class score ``name`` is a share of, where the delta method's
    interval falls back to Wilson's at them (the variance is 0: the score at a
    bound, ``wilson_at_variance``): tp + fp + fn; for a sum of two proportions
    (``Score.trials_of``) the smaller of their denominators (at informedness 1 both
    recall and specificity are 1: the interval is no narrower than the rarer one's
    allows; all the rows would be K times too many for a micro average), 0 where
    the score is ``zero_division`` (its derivatives' denominator is 0)."""
    score = SCORES[name]
    if not score.reads_tn:
        return tp + fp + fn
    cells = [xp.to_float(x) for x in (tp, fp, fn, tn)]
    _, denominator = score.partials(*cells, 1.0)
    rows = cells[0] + cells[1] + cells[2] + cells[3]
    if score.trials_of is not None:
        a, b = score.trials_of(*cells)
        rows = xp.where(a < b, a, b)
    return xp.where(denominator > 0, rows, 0.0)


def specificity(tn: Any, fp: Any, zero_division: float, xp: Backend = POLARS) -> Any:
    """tn / (tn + fp): the recall of the rows that are not the class."""
    return xp.ratio(tn, tn + fp, zero_division)


def accuracy(correct: Any, n: Any, zero_division: float, xp: Backend = POLARS) -> Any:
    """correct / n."""
    return xp.ratio(correct, n, zero_division)


def mcc_shares(  # noqa: PLR0917 - the counts, then the options, as every formula here
    tp: Any, fp: Any, fn: Any, tn: Any, xp: Backend = POLARS, total: Any = None
) -> tuple[Any, ...]:
    """The first step of a 2x2 matrix's Matthews correlation (:func:`mcc_of_shares`):
    tp, fp, fn, tn as Float64 shares of their total (1 where it is 0; ``total``: that
    total when it is already known, a threshold sweep's P + N).  MCC does not change,
    and products of weighted counts near 1e77 would overflow the four margins'
    product to infinity (MCC 0), or to NaN; a frame of many rows makes the shares
    columns first (one polars expression repeats the total in every share)."""
    tp, fp, fn, tn = (xp.to_float(x) for x in (tp, fp, fn, tn))
    n = tp + fp + fn + tn if total is None else xp.to_float(total)
    n = xp.where(n > 0, n, 1.0)
    return tp / n, fp / n, fn / n, tn / n


def mcc_of_shares(tp: Any, fp: Any, fn: Any, tn: Any, xp: Backend = POLARS) -> Any:
    """Matthews correlation of the shares of :func:`mcc_shares`; 0 when a margin is 0."""
    pos_margins = (tp + fp) * (tp + fn)
    neg_margins = (tn + fp) * (tn + fn)
    # 0 where a margin is 0: the shares are at most 1, so sqrt(0) * sqrt(m) is 0 (never
    # 0 * inf), and the denominator is 0 exactly then (or where it underflows)
    denominator = xp.sqrt(pos_margins) * xp.sqrt(neg_margins)
    return xp.ratio(tp * tn - fp * fn, denominator, 0.0)


#: The rates of a 2x2 confusion matrix, each as (numerator, denominator) of tp, fp,
#: fn, tn: fairlearn's selection / true / false positive / negative rates and the
#: rest of aequitas's crosstab.  ``rates`` is the one place they are computed.
RATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "selection_rate": (("tp", "fp"), ("tp", "fp", "fn", "tn")),
    "prevalence": (("tp", "fn"), ("tp", "fp", "fn", "tn")),
    "true_positive_rate": (("tp",), ("tp", "fn")),
    "false_positive_rate": (("fp",), ("fp", "tn")),
    "true_negative_rate": (("tn",), ("fp", "tn")),
    "false_negative_rate": (("fn",), ("tp", "fn")),
    "precision": (("tp",), ("tp", "fp")),
    "false_discovery_rate": (("fp",), ("tp", "fp")),
    "negative_predictive_value": (("tn",), ("fn", "tn")),
    "false_omission_rate": (("fn",), ("fn", "tn")),
}


#: The scores that are a proportion of rows, as (successes, trials) of the 2x2 counts
#: (the rates, and the per-class recall, specificity and Jaccard): their Wilson
#: intervals (``per_class``, ``over_time``) and ``compare``'s analytic comparison.
PROPORTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    **RATES,
    "recall": (("tp",), ("tp", "fn")),
    "specificity": (("tn",), ("fp", "tn")),
    "jaccard": (("tp",), ("tp", "fp", "fn")),
}


def rate(name: str, counts: dict[str, Any], zero_division: float, xp: Backend = POLARS) -> Any:
    """Rate ``name`` of :data:`RATES` from ``counts`` (``tp, fp, fn, tn``); ``zero_division``
    where its denominator is 0 (fairlearn: 0, from ``confusion_matrix(normalize=...)``)."""
    numerator, denominator = RATES[name]
    return xp.ratio(
        sum(xp.to_float(counts[c]) for c in numerator),
        sum(xp.to_float(counts[c]) for c in denominator),
        zero_division,
    )


#: The binary metrics of a 2x2 matrix that are neither a rate nor a per-class score:
#: ``(counts, zero_division, xp) -> value``.
OTHER_BINARY: dict[str, Callable[..., Any]] = {
    "specificity": lambda c, zd, xp: specificity(c["tn"], c["fp"], zd, xp),
}


def binary_metric(
    name: str, counts: dict[str, Any], zero_division: float, xp: Backend = POLARS
) -> Any:
    """A metric of a 2x2 matrix by name: a rate of :data:`RATES`, ``specificity`` or
    a score of :data:`SCORES` (F-beta as ``f1``) of ``counts`` (``tp, fp, fn, tn``)."""
    if name in RATES:
        return rate(name, counts, zero_division, xp)
    tp, support, predicted = counts["tp"], counts["tp"] + counts["fn"], counts["tp"] + counts["fp"]
    if name in OTHER_BINARY:
        return OTHER_BINARY[name](counts, zero_division, xp)
    score = SCORES.get(score_key(name))
    if score is not None:
        return score.value(tp, support, predicted, counts["tn"], 1.0, zero_division, xp)
    msg = f"no binary metric {name!r}"
    raise KeyError(msg)


# --------------------------------------------------------------------------- multiclass
def mcc_from_covariances(
    cov_tp: Any, cov_pp: Any, cov_tt: Any, n: Any, xp: Backend = POLARS
) -> Any:
    """scikit-learn's ``matthews_corrcoef``: cov(t, p) / sqrt(cov(p, p) cov(t, t)), 0 when a
    covariance is 0.  The covariances (times n^2) are c n - sum t_k p_k,
    n^2 - sum p_k^2 and n^2 - sum t_k^2; callers compute them exactly where the
    counts are integers (Int128), else by ``covariances.weighted_mcc_covariances``,
    and pass them as floats.  NaN without rows (``n`` 0: every row outside
    ``labels=``, where scikit-learn raises), as accuracy."""
    product = cov_pp * cov_tt
    value = xp.where(product == 0, 0.0, xp.ratio(cov_tp, xp.sqrt(product), 0.0))
    return xp.where(n == 0, float("nan"), value)


def chance_adjusted(score: Any, n_classes: Any, xp: Backend = POLARS) -> Any:
    """scikit-learn's ``balanced_accuracy_score(adjusted=True)``: (score - 1/K) / (1 - 1/K)
    over the K classes with actual rows, chance 0 and perfect 1; NaN where K = 1 (no
    chance level below a perfect score: scikit-learn divides by 0, -inf or NaN)."""
    chance = 1.0 / xp.to_float(n_classes)
    return xp.where(n_classes > 1, (score - chance) / (1.0 - chance), float("nan"))


def kappa_from_covariances(cov_tp: Any, expected: Any, xp: Backend = POLARS) -> Any:
    """scikit-learn's ``cohen_kappa_score`` (unweighted):
    1 - observed / expected disagreement = (c n - sum t_k p_k) / (n^2 - sum t_k p_k)."""
    return xp.ratio(cov_tp, expected, float("nan"))


def kappa_or_undefined(
    kappa: Any, n: Any, single: Any, replace_undefined_by: float, xp: Backend = POLARS
) -> Any:
    """Cohen's kappa (weighted or not), or ``replace_undefined_by`` where it is undefined:
    no rows (``n`` 0) or ``single``, one class that is all the actual and all the
    predicted labels; the expected disagreement is then 0 and kappa 0 / 0
    (scikit-learn's ``cohen_kappa_score(replace_undefined_by=np.nan)``).  The cases
    are found by counting classes, not by comparing float sums."""
    return xp.where((n == 0) | single, replace_undefined_by, kappa)


#: The disagreement weights of Cohen's kappa over float (weighted) counts: the
#: unweighted kappa as 1 - observed / expected disagreement, each a sum of terms >= 0
#: (scikit-learn's form).  The covariance form (c n - sum t_k p_k) / (n^2 - sum t_k p_k)
#: subtracts nearly equal products: exact for integer counts (Int128), but with one
#: weight 1e12 times the others it kept 5 digits, and from 1e20 gave NaN.
DISAGREEMENT = "disagreement"


def kappa_weight(kind: str, a: Any, b: Any, xp: Backend = POLARS) -> Any:
    """scikit-learn's disagreement weight of the class positions ``a`` and ``b``, as
    Float64: ``|a - b|`` (``"linear"``), ``(a - b)^2`` (``"quadratic"``), or 1 where
    they differ (:data:`DISAGREEMENT`, unweighted kappa)."""
    d = xp.to_float(a - b)
    if kind == "linear":
        return abs(d)
    if kind == "quadratic":
        return d * d
    return (d != 0) * 1.0


def weighted_kappa(disagreement: Any, expected: Any, xp: Backend = POLARS) -> Any:
    """scikit-learn's ``cohen_kappa_score(weights=...)``: 1 - sum w_ij C_ij / sum w_ij E_ij,
    with ``disagreement`` = n sum w_ij C_ij (the confusion counts C) and ``expected``
    = sum w_ij t_i p_j (n E_ij = row sum t_i x column sum p_j); NaN where the
    expected disagreement is 0."""
    return 1.0 - xp.ratio(disagreement, expected, float("nan"))


# --------------------------------------------------------------------------- probability
#: scikit-learn's log loss clips the probabilities to [EPS, 1 - EPS].
EPS = sys.float_info.epsilon


def log_loss_terms(outcomes: Sequence[Any], probabilities: Sequence[Any]) -> pl.Expr:
    """Per row, scikit-learn's log loss: ``-sum_k y_k log(clip(p_k, EPS, 1 - EPS))`` over
    the one-hot ``outcomes`` y_k and their ``probabilities`` (binary: ``[1 - y, y]``
    and ``[1 - p, p]``).  The one home of the formula: ``log_loss``, its D^2, its
    expression and over_time's buckets."""
    terms = [y * p.clip(EPS, 1 - EPS).log() for y, p in zip(outcomes, probabilities, strict=True)]
    return -pl.sum_horizontal(terms)


def brier_terms(outcomes: Sequence[Any], probabilities: Sequence[Any]) -> pl.Expr:
    """Per row, the Brier loss ``sum_k (y_k - p_k)^2`` (binary: the one term of the
    positive class; the caller halves a two-column multiclass sum, scikit-learn's
    ``scale_by_half="auto"``).  The one home of the formula, as :func:`log_loss_terms`."""
    return pl.sum_horizontal((y - p) ** 2 for y, p in zip(outcomes, probabilities, strict=True))


def d2_score(loss: Any, null_loss: Any, xp: Backend = POLARS) -> Any:
    """D^2 (scikit-learn's ``d2_log_loss_score`` / ``d2_brier_score``): the share of the
    null model's loss explained, 1 - loss / null_loss, for the (weighted) sums or means
    of the per-row losses of the model and of the class priors; NaN where the null
    loss is 0."""
    return 1.0 - xp.ratio(loss, null_loss, float("nan"))


def binary_margin(positive: pl.Expr, score: pl.Expr) -> pl.Expr:
    """The margin of a binary decision score: ``score`` for a row of ``pos_label``,
    ``-score`` for the others (scikit-learn's ``hinge_loss`` codes the classes +1 / -1).
    Polars only."""
    return pl.when(positive).then(score).otherwise(-score)


def hinge(margin: Any, xp: Backend = POLARS) -> Any:
    """scikit-learn's ``hinge_loss`` of one row: ``max(0, 1 - margin)``, with ``margin``
    the binary :func:`binary_margin`, or Crammer and Singer's multiclass margin (the
    actual class's score minus the largest score of the other classes)."""
    return xp.where(margin < 1, 1 - margin, 0.0)


# --------------------------------------------------------------------------- ranking
# Per distinct score, scores descending: pos / neg at the score, tps = cumulative
# positives, fps = cumulative negatives, P / N the totals.
def placement(beyond: Any, tied: Any, total: Any) -> Any:
    """The share of the other class that a score beats, ties counted one half
    (DeLong's placement value): ``(beyond + tied / 2) / total``.  Every ROC AUC
    here is an average of placements."""
    return (beyond + tied / 2) / total


def roc_auc_terms(pos: Any, neg: Any, tps: Any) -> Any:
    """The trapezoids under the ROC curve: each score's negatives times the positives
    above it, ties one half (``tps``: the positives down to the score).  Their sum
    is the Mann-Whitney U (in whatever unit the counts are: the caller passes each
    class's shares of its total, so that products of huge or tiny weights stay
    finite and normal); over the same sum with every positive above (``tps`` the
    last running sum, ``pos`` 0), the AUC.

    A ratio of two sums added alike, not one sum of terms each normalised (a
    perfect ranking summed to 0.9999999999999994 or 1.0000000000000007, above its
    own interval): where every positive is above every negative the two sums add
    the same floats, so the AUC is exactly 1.0."""
    return neg * (tps - pos / 2)


def roc_auc_of_sums(twice_u: Any, p_total: Any, n_total: Any) -> Any:
    """The ROC AUC from its integer Mann-Whitney sum: ``twice_u`` = sum over the
    scores of ``neg * (2 tps - pos)``, twice U (ties one half).  The terms of
    :func:`roc_auc_terms` summed before they are normalised: the bootstrap's
    replicates, whose counts are integers, sum them exactly in int64 and divide
    once."""
    return twice_u / (2.0 * p_total * n_total)


def delong_se(
    pos: Any, v10: Any, neg: Any, v01: Any, *, auc: Any, p_total: Any, n_total: Any, xp: Backend
) -> Any:
    """DeLong's standard error of the ROC AUC: ``sqrt(S10 / P + S01 / N)``, with S10 the
    sample variance (denominator P - 1) of the positives' placements ``v10`` (each
    counted ``pos`` times: a count per distinct score, or 1 per row) and S01 that of
    the negatives' placements ``v01`` (denominator N - 1)."""
    return delong_se_of_squares(
        (pos * (v10 - auc) ** 2).sum(),
        (neg * (v01 - auc) ** 2).sum(),
        p_total=p_total,
        n_total=n_total,
        xp=xp,
    )


def delong_se_of_squares(
    squares10: Any, squares01: Any, *, p_total: Any, n_total: Any, xp: Backend
) -> Any:
    """:func:`delong_se` from the sums of the squared deviations of the placements from
    the AUC (the positives' ``squares10``, the negatives' ``squares01``), summed by
    the caller (per segment: a grouped sum)."""
    s10 = squares10 / (p_total - 1)
    s01 = squares01 / (n_total - 1)
    return xp.sqrt(s10 / p_total + s01 / n_total)


def partial_roc_auc_terms(x0: Any, y0: Any, x1: Any, y1: Any, max_fpr: float) -> Any:
    """The trapezoids under the ROC curve left of ``fpr = max_fpr``: the step from
    ``(x0, y0)`` to ``(x1, y1)`` (fpr, tpr) clipped at ``max_fpr``, its end
    interpolated linearly there (scikit-learn's ``_binary_roc_auc_score``: the
    point ``(max_fpr, np.interp(max_fpr, ...))`` appended to the curve).  Polars only."""
    end = pl.min_horizontal(x1, pl.lit(max_fpr))
    width = (end - x0).clip(lower_bound=0.0)
    slope = pl.when(x1 > x0).then((y1 - y0) / (x1 - x0)).otherwise(0.0)
    y_end = pl.when(x1 <= max_fpr).then(y1).otherwise(y0 + slope * (max_fpr - x0))
    return pl.when(width > 0).then(width * (y0 + y_end) / 2).otherwise(0.0)


def mcclish(partial_area: Any, max_fpr: float) -> Any:
    """McClish's standardised partial AUC: 0.5 for a chance curve, 1 for a perfect one,
    ``0.5 (1 + (A - max_fpr^2 / 2) / (max_fpr - max_fpr^2 / 2))`` (as scikit-learn)."""
    min_area, max_area = 0.5 * max_fpr**2, max_fpr
    return 0.5 * (1 + (partial_area - min_area) / (max_area - min_area))


def average_precision_terms(pos: Any, tps: Any, fps: Any, xp: Backend = POLARS) -> Any:
    """scikit-learn's step-wise AP terms in the unit of ``pos``: the positives a
    threshold adds (rows, or shares of P) times the precision there (0 where it
    adds none).  Their sum over the sum of ``pos`` (added alike) is the AP
    (:func:`average_precision_of_sum`).

    Where every precision is 1 the two sums are the same float, so a perfect
    ranking's AP is exactly 1.0 (terms of 1 / P summed one by one, against no
    second sum, gave 0.9999999999980838 at P = 100,000, and a bootstrap point
    below its own interval)."""
    return xp.where(pos > 0, pos * xp.ratio(tps, tps + fps, 0.0), 0.0)


def average_precision_of_sum(terms_sum: Any, p_total: Any) -> Any:
    """The AP from the sum of :func:`average_precision_terms` and that of their
    ``pos`` (where every precision is 1 the two are equal: 1.0), clipped to
    [0, 1] (a sum may round a step above its bound); undefined (NaN) without
    positives, where each caller applies scikit-learn's 0.0."""
    return (terms_sum / p_total).clip(0.0, 1.0)


def ap_logit_bounds(ap: Any, n_pos: Any, z: float, xp: Backend) -> tuple[Any, Any]:
    """The logit interval of the average precision (Boyd, Eng & Page 2013): with
    AP = theta and P positives, ``eta = logit(theta)``, ``tau = 1 / sqrt(P theta
    (1 - theta))``, bounds ``expit(eta -+ z tau)``.

    At theta = 1 the bounds' limits, [0, 1] (as theta -> 1, tau grows faster than
    eta: the interval widens to the whole range; a float a step below 1 gives the
    same); NaN without positives (no AP to speak of; theta = 0 only then)."""
    defined = (ap > 0) & (ap < 1) & (n_pos > 0)
    theta = xp.where(defined, xp.to_float(ap), 0.5)  # no infinite logit computed
    eta = xp.log(theta / (1.0 - theta))
    tau = 1.0 / xp.sqrt(xp.to_float(n_pos) * theta * (1.0 - theta))
    low = 1.0 / (1.0 + xp.exp(z * tau - eta))
    high = 1.0 / (1.0 + xp.exp(-eta - z * tau))
    perfect = (ap >= 1) & (n_pos > 0)
    nan = float("nan")
    return (
        xp.where(defined, low, xp.where(perfect, 0.0, nan)),
        xp.where(defined, high, xp.where(perfect, 1.0, nan)),
    )


def weighted_mean(value: pl.Expr, weight: pl.Expr) -> pl.Expr:
    """``np.average(value, weights=weight)``, the weights divided by their largest
    first (the same mean): a sum of value x weight that would overflow (weights
    near 1e307) stays finite."""
    w = weight / weight.max()
    return (value * w).sum() / w.sum()


def total_cost(tp: Any, fp: Any, fn: Any, tn: Any, matrix: Any) -> Any:
    """``c00 tn + c01 fp + c10 fn + c11 tp``: the total cost of a 2 x 2 confusion
    matrix, ``matrix[actual][predicted]`` negative first (expected_cost)."""
    (c00, c01), (c10, c11) = matrix
    return c00 * tn + c01 * fp + c10 * fn + c11 * tp


#: A segment's weight total may reach 4.5e307 (``checks``' bound, below 2**1022),
#: where a product of two sums overflows (past 1.8e308).  A total at or above
#: 2**511 is brought below it by the smallest of the scales 2**-64,
#: 2**-128, ... that does, with every sum of the segment: a power of two, so exact,
#: and the products compare and divide as unscaled ones would.  (A fixed 2**-600
#: sent sums of 1e-130 beside a total of 1e154 to the subnormals, and their products
#: to 0; the smallest step scales that total by 2**-64.)
_SCALE_STEP = 64
#: A total below 1 (weights of 1e-200: products of two sums of 1e-400 underflow to
#: 0, or lose digits in the subnormals) is brought to [1, 2**256) by 2**256,
#: 2**512, 2**768 or 2**1022 (the totals start at 2**-1022: subnormal weights are
#: refused).  Then the larger of two sums that add up to the total is at least 1/2,
#: so its product with any other sum (a weight at least 2**-1022, scaled up) stays
#: normal.


def overflow_safe(values: Sequence[pl.Expr], total: pl.Expr) -> list[pl.Expr]:
    """Float ``values`` (sums of weights whose total is ``total``) scaled together by a
    power of two where ``total`` is large enough for a product of two to overflow,
    or small enough for one to underflow (below 1); unchanged (times 1.0)
    elsewhere.

    The scale's exponent is computed from the total's binary exponent ``e`` (its
    ``log2``, floored: one off next to a power of two, which moves the total a
    factor of two within the margins): ``-64 (floor((e - 511) / 64) + 1)`` at
    ``e >= 511``, ``min(256 ceil(-e / 256), 1022)`` below 1, the steps of the
    bounds above.  Arithmetic rather than a ladder of ``when``s: the ladder's
    twelve branches cost 2-3x a weighted AUC or AP by 10,000 segments."""
    e = total.cast(pl.Float64).log(2).floor()
    down = -_SCALE_STEP * (((e - 511) / _SCALE_STEP).floor() + 1)
    up = pl.min_horizontal(256 * (-e / 256).ceil(), 1022.0)
    exponent = pl.when(e >= 511).then(down).when(e < 0).then(up).otherwise(0.0)
    scale = pl.lit(2.0).pow(exponent)
    return [value * scale for value in values]


def ks_distance(tps: Any, fps: Any, p: Any, n: Any) -> Any:
    """``|tps N - fps P|``: the KS distance ``|tpr - fpr|`` times ``P N`` (exact in
    integers for counts, so equal distances tie exactly)."""
    return (tps * n - fps * p).abs()
