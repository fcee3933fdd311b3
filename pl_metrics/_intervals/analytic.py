"""Analytic intervals: Wilson's score interval for proportions of counts, DeLong's
variance for ROC AUC (its structural components from the per-score counts,
ties counted one half), Boyd, Eng & Page's logit interval of the average precision
(the default one is :mod:`pl_metrics._stats.ap_delta`'s)."""

from __future__ import annotations

import operator
from functools import reduce

import polars as pl

from pl_metrics._core import catalogue, formulas, names
from pl_metrics._core.confusion import ACTUAL, LABEL, PREDICTED, Counts, class_counts, restricted
from pl_metrics._core.names import COUNT, INTERNAL
from pl_metrics._core.scores import per_segment
from pl_metrics._stats.normal import (  # noqa: F401 - the intervals read them here too
    delong_bounds,
    delong_se,
    normal_p_value,
    wilson,
    z_value,
)


def paired_difference_bounds(
    gained: pl.Expr, lost: pl.Expr, n: pl.Expr, ci: float
) -> tuple[pl.Expr, pl.Expr]:
    """The Agresti-Min interval of a difference of two paired proportions (Agresti &
    Min 2005, Statistics in Medicine 24: 729-740): the matched-pairs Wald interval
    with 1/2 added to each of the four cells.  ``gained`` / ``lost``: the pairs the
    second has and the first has not / the reverse (the discordant cells), ``n``
    all pairs.  With ``g = (gained + 1/2) / (n + 2)`` and ``l = (lost + 1/2) / (n +
    2)``: ``(g - l) -+ z sqrt((g + l - (g - l)^2) / (n + 2))``, clipped to [-1, 1];
    null without pairs."""
    z = z_value(ci)
    total = n.cast(pl.Float64) + 2.0
    g, lost_share = (gained.cast(pl.Float64) + 0.5) / total, (lost.cast(pl.Float64) + 0.5) / total
    d = g - lost_share
    se = ((g + lost_share - d * d) / total).sqrt()
    valid = n > 0
    return (
        pl.when(valid).then((d - z * se).clip(-1.0, 1.0)),
        pl.when(valid).then((d + z * se).clip(-1.0, 1.0)),
    )


def proportion_bounds(name: str, ci: float) -> tuple[pl.Expr, pl.Expr]:
    """Wilson's interval of the proportion ``name`` of the 2x2 counts (columns ``tp,
    fp, fn, tn``; ``formulas.PROPORTIONS``)."""
    successes, trials = (
        reduce(operator.add, (pl.col(c) for c in part)) for part in formulas.PROPORTIONS[name]
    )
    return wilson(successes, trials, ci)


def ap_logit(ap: pl.Expr, positives: pl.Expr, ci: float) -> list[pl.Expr]:
    """``average_precision_low`` / ``_high``: Boyd, Eng & Page's logit interval
    (``formulas.ap_logit_bounds``, ``ci_method="boyd"``); null without positives.
    The default, ``"logit"``, is :mod:`.ap_delta`'s."""
    low, high = formulas.ap_logit_bounds(ap, positives, z_value(ci), xp=formulas.POLARS)
    return [
        low.fill_nan(None).alias("average_precision_low"),
        high.fill_nan(None).alias("average_precision_high"),
    ]


#: The standard errors of :func:`summary_delta` (internal columns): the summary's
#: metrics whose interval reads one (``Metric.summary_interval``).
_SE = {
    m: f"{INTERNAL}se_{m}"
    for m, metric in catalogue.CATALOGUE.items()
    if metric.summary_interval in {"effective_wilson", "wald"}
}
_BA_N = f"{INTERNAL}ba_n_design"


def _ordered_sum(x: pl.Expr, by: str | list[str]) -> pl.Expr:
    """``x.sum()`` as one running sum in the order of ``by``: the same bits on every
    engine (their sums may add in other orders).  Nulls count 0, as in ``sum()`` (a
    running sum's last value is null where the last row is: a class predicted but
    never actual, sorted last, left the balanced accuracy's cap null)."""
    return x.fill_null(0).sort_by(by).cum_sum().last()


def summary_delta(counts: Counts) -> pl.LazyFrame:
    """``*keys`` and the delta-method standard errors of the balanced accuracy, MCC
    and Cohen's kappa of each segment's confusion matrix (integer counts).

    Each metric is a smooth function f of the cell proportions pi_ij (actual i,
    predicted j) of n multinomial rows; its variance is, to first order,
    (sum pi g^2 - (sum pi g)^2) / n with g_ij = df / dpi_ij.  For these metrics
    g_ij = gamma_i [i = j] + alpha_i + beta_j, with a_i, b_j the actual and
    predicted shares, r_i the recalls, P_o the accuracy, P_e = sum a b,
    u = 1 - sum b^2, v = 1 - sum a^2, K the classes with actual rows:

    - balanced accuracy: gamma = 1 / (K a), alpha = -r / (K a), beta = 0
      (the variance is sum r (1 - r) / (K^2 n_i));
    - kappa: gamma = 1 / (1 - P_e), alpha_i = -b_i c, beta_j = -a_j c with
      c = (1 - P_o) / (1 - P_e)^2 (Fleiss, Cohen & Everitt 1969: statsmodels'
      ``cohens_kappa().std_kappa``);
    - MCC = (P_o - P_e) / sqrt(u v): gamma = 1 / sqrt(u v),
      alpha_i = -b_i / sqrt(u v) + mcc a_i / v, beta_j = -a_j / sqrt(u v) + mcc b_j / u.

    The variance is summed over the cells as sum pi (g - sum pi g)^2.  Null where
    the metric has no derivative (MCC with one actual or predicted class, kappa
    with P_e = 1) or n < 2.  Also
    ``_BA_N``: K^2 / sum(1 / n_i), the rows a proportion with the balanced
    accuracy's variance would have if every recall were equal.
    """
    keys = counts.keys
    f64, i128 = pl.Float64, pl.Int128
    classes = class_counts(counts, restrict=True, order=False)
    t, p, d = (pl.col(c) for c in ("support", "predicted", "tp"))
    present = t > 0

    segment = classes.group_by(keys).agg(
        t.sum().alias(f"{INTERNAL}n"),
        d.sum().alias(f"{INTERNAL}correct"),
        *(
            (x.cast(i128) * y.cast(i128)).sum().alias(f"{INTERNAL}{name}")
            for name, x, y in (("tp", t, p), ("pp", p, p), ("tt", t, t))
        ),
        present.sum().alias(f"{INTERNAL}actual_classes"),
        (p > 0).sum().alias(f"{INTERNAL}predicted_classes"),
        (present & (p > 0)).sum().alias(f"{INTERNAL}both"),
        _ordered_sum(pl.when(present).then(1.0 / t.cast(f64)), LABEL).alias(f"{INTERNAL}inverse"),
    )
    n_ = pl.col(f"{INTERNAL}n")
    n, square = n_.cast(f64), n_.cast(i128) * n_.cast(i128)

    def share_of_square(name: str) -> pl.Expr:  # 1 - sum / n^2, from an exact difference
        return (square - pl.col(f"{INTERNAL}{name}")).cast(f64) / (n * n)

    po = pl.col(f"{INTERNAL}correct").cast(f64) / n
    one_minus_pe, u, v = (share_of_square(x) for x in ("tp", "pp", "tt"))
    root = (u * v).sqrt()
    mcc = (po - (1.0 - one_minus_pe)) / root
    k = pl.col(f"{INTERNAL}actual_classes").cast(f64)
    a, b = t.cast(f64) / n, p.cast(f64) / n
    c = (1.0 - po) / one_minus_pe**2
    coefficients = {  # metric: (gamma, alpha, beta)
        "balanced_accuracy": (
            pl.when(present).then(1.0 / (k * a)).otherwise(0.0),
            pl.when(present).then(-(d.cast(f64) / t.cast(f64)) / (k * a)).otherwise(0.0),
            pl.lit(0.0),
        ),
        "mcc": (1.0 / root, -b / root + mcc * a / v, -a / root + mcc * b / u),
        "cohen_kappa": (1.0 / one_minus_pe, -b * c, -a * c),
    }
    per_class = (
        classes.join(segment, on=keys, how="left", nulls_equal=True)
        .with_columns(gamma.alias(f"{INTERNAL}g_{m}") for m, (gamma, _, _) in coefficients.items())
        .with_columns(
            *(alpha.alias(f"{INTERNAL}a_{m}") for m, (_, alpha, _) in coefficients.items()),
            *(beta.alias(f"{INTERNAL}b_{m}") for m, (_, _, beta) in coefficients.items()),
        )
    )
    gammas = [f"{INTERNAL}g_{m}" for m in coefficients]
    alphas = [f"{INTERNAL}a_{m}" for m in coefficients]
    betas = [f"{INTERNAL}b_{m}" for m in coefficients]
    cells = (
        restricted(counts)
        .join(
            per_class.select(*keys, pl.col(LABEL).alias(ACTUAL), *gammas, *alphas),
            on=[*keys, ACTUAL],
            how="left",
            nulls_equal=True,
        )
        .join(
            per_class.select(*keys, pl.col(LABEL).alias(PREDICTED), *betas),
            on=[*keys, PREDICTED],
            how="left",
            nulls_equal=True,
        )
    )
    share = pl.col(COUNT).cast(f64) / pl.col(COUNT).sum().cast(f64)
    hit = (pl.col(ACTUAL) == pl.col(PREDICTED)).cast(f64)
    variances = []
    for m in coefficients:
        # sum pi (g - mean g)^2 over the cells: no difference of large sums (a perfect
        # classifier's g is one value, its variance exactly 0)
        g = (
            pl.col(f"{INTERNAL}g_{m}") * hit
            + pl.col(f"{INTERNAL}a_{m}")
            + pl.col(f"{INTERNAL}b_{m}")
        )
        mean = _ordered_sum(share * g, [ACTUAL, PREDICTED])
        variances.append(
            _ordered_sum(share * (g - mean) ** 2, [ACTUAL, PREDICTED]).alias(f"{INTERNAL}v_{m}")
        )
    moments = (
        cells.group_by(keys).agg(variances).join(segment, on=keys, how="left", nulls_equal=True)
    )
    actual_n, predicted_n, both_n = (
        pl.col(f"{INTERNAL}{x}") for x in ("actual_classes", "predicted_classes", "both")
    )
    valid = {
        "balanced_accuracy": (n_ > 1) & (actual_n > 0),
        "mcc": (n_ > 1) & (actual_n > 1) & (predicted_n > 1),
        # P_e = 1 iff one class is all the actual and all the predicted labels
        "cohen_kappa": (n_ > 1) & ~((actual_n == 1) & (predicted_n == 1) & (both_n == 1)),
    }
    ses = [
        pl.when(valid[m]).then((pl.col(f"{INTERNAL}v_{m}") / n).sqrt()).alias(_SE[m])
        for m in coefficients
    ]
    design = (k * k / pl.col(f"{INTERNAL}inverse")).alias(_BA_N)
    return moments.select(*keys, design, *ses)


def summary_bounds(ci: float) -> list[pl.Expr]:
    """The ``_low`` / ``_high`` columns of ``ci_method="delta"`` over the summary
    joined to :func:`summary_delta`'s standard errors: Wilson for the accuracy; for
    the balanced accuracy, Wilson's interval with the delta method's effective rows
    BA (1 - BA) / var (capped at, and where the variance is 0 equal to, ``_BA_N``:
    one class gives the Wilson interval of its recall); Wald (the estimate +- z se,
    clipped to [-1, 1]) for MCC and kappa (statsmodels' ``cohens_kappa`` interval)."""
    z = z_value(ci)
    out = []
    for m, metric in catalogue.CATALOGUE.items():
        value = pl.col(m)
        if metric.summary_interval == "wilson":  # of the n rows
            low, high = wilson(value * pl.col("n"), pl.col("n"), ci)
            out += [low.alias(f"{m}_low"), high.alias(f"{m}_high")]
        elif metric.summary_interval == "effective_wilson":
            se, design = pl.col(_SE[m]), pl.col(_BA_N)
            from_variance = pl.min_horizontal(value * (1.0 - value) / (se * se), design)
            effective = pl.when(se > 0).then(from_variance).otherwise(design)
            low, high = wilson(value * effective, effective, ci)
            valid = se.is_not_null()
            out += [
                pl.when(valid).then(low).alias(f"{m}_low"),
                pl.when(valid).then(high).alias(f"{m}_high"),
            ]
        elif metric.summary_interval == "wald":
            se = pl.col(_SE[m])
            out += [
                (value - z * se).clip(*metric.bounds).alias(f"{m}_low"),
                (value + z * se).clip(*metric.bounds).alias(f"{m}_high"),
            ]
    return out


#: Stages of columns: each a ``with_columns`` over the previous one's output.  An
#: interval built in stages names its intermediate values as (internal) columns once,
#: where one expression would repeat them in every use (the F-beta interval was a
#: 140 KB expression: 0.14 s of query planning on any frame).
Stages = list[list[pl.Expr]]


def with_stages(frame: pl.LazyFrame, stages: Stages) -> pl.LazyFrame:
    """``frame`` with each stage's columns added in turn."""
    for stage in stages:
        frame = frame.with_columns(stage)
    return frame


def _merge(*parts: Stages) -> Stages:
    """The stages of several intervals side by side (stage i of each in one)."""
    depth = max((len(p) for p in parts), default=0)
    return [[e for p in parts if i < len(p) for e in p[i]] for i in range(depth)]


def wilson_at_variance(  # noqa: PLR0917 - the value, its spread, then the options
    value: pl.Expr,
    se: pl.Expr,
    trials: pl.Expr,
    ci: float,
    name: str,
    bounds: tuple[float, float] = (0.0, 1.0),
) -> Stages:
    """``{name}_low`` / ``{name}_high``: Wilson's interval of a score in [0, 1] with
    the delta method's standard error ``se``: at the effective rows value (1 -
    value) / se^2, those of a proportion with that variance; where the variance is
    0 (the score at 0 or 1) at ``trials``, the rows the score is a share of (an
    interval that is not zero-width at 0 or 1).  Null where ``se`` is, or where
    there are no trials.  In two stages (the value, its standard error, its trials
    and its effective rows are columns of the first).

    A score in other ``bounds`` (lo, hi) (informedness: [-1, 1]) is mapped to [0, 1]
    first, (value - lo) / (hi - lo) with its standard error over hi - lo, and its
    bounds back."""
    low_end, high_end = bounds
    width, mapped = high_end - low_end, bounds != (0.0, 1.0)
    if mapped:
        value, se = (value.cast(pl.Float64) - low_end) / width, se.cast(pl.Float64) / width
    v_, se_, t_, n_ = (f"{INTERNAL}w_{name}_{part}" for part in ("v", "se", "t", "n"))
    v, s = value.cast(pl.Float64), se.cast(pl.Float64)
    spread = v * (1.0 - v)
    effective = (
        pl.when((s > 0) & (spread > 0)).then(spread / (s * s)).otherwise(trials.cast(pl.Float64))
    )
    first = [v.alias(v_), s.alias(se_), trials.alias(t_), effective.alias(n_)]
    v, s, n = pl.col(v_), pl.col(se_), pl.col(n_)
    low, high = wilson(v * n, n, ci)
    if mapped:
        low, high = low_end + width * low, low_end + width * high
    valid = s.is_not_null() & v.is_not_nan() & (pl.col(t_) > 0)
    ends = [pl.when(valid).then(low).alias(f"{name}_low")]
    return [first, [*ends, pl.when(valid).then(high).alias(f"{name}_high")]]


def per_class_delta(columns: dict[str, str], beta: float, ci: float) -> Stages:
    """The stages of the ``_low`` / ``_high`` columns of ``per_class(ci_method="delta")``
    over its rows (``tp, fp, fn, tn`` and the scores; ``columns``: each score's
    column by its name in ``formulas.SCORES``): Wilson's interval for the
    proportions (precision, recall, specificity, Jaccard: tp among tp + fp, tp + fn,
    tn + fp, tp + fp + fn); for the others (F-beta), :func:`wilson_at_variance` with
    the delta method's variance sum over its cells of count x derivative^2
    (``formulas.score_partials``: tp, fp, fn and tn each a sum of multinomial cells;
    the multinomial variance sum N_i d_i^2 - (sum N_i d_i)^2 / n, whose second term
    is 0 for a ratio of counts), at ``formulas.score_trials`` where it is 0."""
    tp, fp, fn, tn = (pl.col(c) for c in ("tp", "fp", "fn", "tn"))
    out = []
    for name in names.PER_CLASS:
        if name in formulas.PROPORTIONS:
            low, high = proportion_bounds(name, ci)
            out += [low.alias(f"{name}_low"), high.alias(f"{name}_high")]
    stages = [out]
    f64 = pl.Float64
    for name, column in columns.items():
        if name in formulas.PROPORTIONS:
            continue
        score = formulas.SCORES[name]
        d_tp, d_fp, d_fn, d_tn = formulas.score_partials(name, tp, fp, fn, tn, beta)
        variance = tp.cast(f64) * d_tp**2 + fp.cast(f64) * d_fp**2 + fn.cast(f64) * d_fn**2
        if score.reads_tn:
            variance += tn.cast(f64) * d_tn**2
        trials = formulas.score_trials(name, tp, fp, fn, tn)
        interval = wilson_at_variance(
            pl.col(column), variance.sqrt(), trials, ci, column, score.bounds
        )
        stages = _merge(stages, interval)
    return stages


def _holding_rows(name: str, partials: tuple[pl.Expr, ...]) -> tuple[pl.Expr, ...]:
    """The derivatives of score ``name`` by tp, fp and fn holding the rows fixed (tn
    moving the other way: each less the derivative by tn), for a score that reads tn;
    a score that does not has 0 there: its derivatives by tp, fp and fn as they are."""
    d_tp, d_fp, d_fn, d_tn = partials
    if not formulas.SCORES[name].reads_tn:
        return d_tp, d_fp, d_fn
    return d_tp - d_tn, d_fp - d_tn, d_fn - d_tn


def _avg(name: str, part: str) -> str:
    """An internal column of :func:`averages_delta` (score ``name``, ``part``)."""
    return f"{INTERNAL}avg_{part}_{name}"


def averages_delta(
    counts: Counts,
    classes: pl.LazyFrame,
    columns: dict[str, str],
    *,
    beta: float,
) -> pl.LazyFrame:
    """``*keys, average`` and, for each averaged score, the delta method's standard
    error and fallback trials (see :func:`averages_bounds`) of its micro, macro and
    weighted averages.

    ``classes``: the per-class rows (``tp, support, predicted`` and the scores,
    ``columns``: each score's column by its formula name); ``counts.frame``: the
    segment's multinomial cells (actual a, predicted p).  An average M is a smooth
    function of the cells; its variance is n sum pi (d - sum pi d)^2 with d the
    derivative by a cell's count: d(a, p) = G_tp(a) [a = p] + (G_fn(a) +
    G_fp(p)) [a != p] + E(a), where for a class c (``formulas.score_partials``
    gives each score's derivatives by its tp, fp, fn):

    - micro (the score of the summed counts): G the derivatives at the sums;
    - macro (the mean over the K kept classes, kept: not NaN): G(c) = the class's
      derivatives / K;
    - weighted (support-weighted mean W over the kept classes, S their support):
      G(c) = s_c / S x the class's derivatives, and E(c) = (M_c - W) / S (a row
      of actual class c moves the weights); the macro mean's where S is 0.

    Classes outside ``labels=`` have G = E = 0: their rows count as false
    negatives / positives of the listed classes only.  A score that reads tn: a
    cell is a tn of every listed class but a and p, so its derivative also has
    sum_c G_tn(c) - G_tn(a) - G_tn(p) [a != p] (micro: the summed tn's derivative
    times K - [a listed] - [p listed, a != p]); the sum is the same for every cell
    and drops out of the centred variance, so G_tp, G_fp and G_fn are taken less
    G_tn of their class (the derivatives holding the class's rows fixed).
    """
    keys = counts.keys
    f64 = pl.Float64
    tp, support, predicted = (pl.col(c).cast(f64) for c in ("tp", "support", "predicted"))
    fp, fn, tn = predicted - tp, support - tp, pl.col("tn").cast(f64)
    kept = {m: pl.col(c).is_not_nan() for m, c in columns.items()}  # NaN: zero_division=nan

    def t(name: str) -> str:
        return f"{INTERNAL}d_{name}"

    # counts of rows and of classes: whole numbers, so their sums are exact in any
    # order; the one sum of fractions (support x score) is added in the labels' order
    sums = [x.sum().alias(t(name)) for name, x in (("tp", tp), ("fp", fp), ("fn", fn), ("tn", tn))]
    for m, c in columns.items():
        sums += [
            kept[m].cast(f64).sum().alias(t(f"k_{m}")),
            pl.when(kept[m]).then(support).otherwise(0.0).sum().alias(t(f"s_{m}")),
            _ordered_sum(pl.when(kept[m]).then(support * pl.col(c)).otherwise(0.0), LABEL).alias(
                t(f"sx_{m}")
            ),
        ]
    segment = classes.group_by(keys).agg(sums)
    totals = [pl.col(t(x)) for x in ("tp", "fp", "fn", "tn")]
    coefficients = []  # per class: G_tp, G_fp, G_fn, E of each (average, score)
    for m, c in columns.items():
        parts = _holding_rows(m, formulas.score_partials(m, tp, fp, fn, tn, beta))
        micro = _holding_rows(m, formulas.score_partials(m, *totals, beta))
        k, s, sx = (pl.col(t(f"{x}_{m}")) for x in ("k", "s", "sx"))
        macro_scale = pl.when(kept[m]).then(1.0 / k).otherwise(0.0)
        weighted_scale = pl.when(s > 0).then(pl.when(kept[m]).then(support / s).otherwise(0.0))
        spread = pl.when(kept[m] & (s > 0)).then((pl.col(c) - sx / s) / s).otherwise(0.0)
        scales = {"macro": macro_scale, "weighted": weighted_scale.otherwise(macro_scale)}
        for name, d_micro in zip(("tp", "fp", "fn"), micro, strict=True):
            coefficients.append(d_micro.alias(_avg(m, f"micro_{name}")))
        for average, scale in scales.items():
            for name, d in zip(("tp", "fp", "fn"), parts, strict=True):
                coefficients.append((scale * d).alias(_avg(m, f"{average}_{name}")))
        coefficients.append(spread.alias(_avg(m, "weighted_e")))
    per_class = classes.join(segment, on=keys, how="left", nulls_equal=True).select(
        *keys, LABEL, *coefficients
    )
    averages = ("micro", "macro", "weighted")
    at_actual = [_avg(m, f"{a}_{x}") for m in columns for a in averages for x in ("tp", "fn")]
    at_actual += [_avg(m, "weighted_e") for m in columns]
    at_predicted = [_avg(m, f"{a}_fp") for m in columns for a in averages]
    cells = counts.frame.join(
        per_class.select(*keys, pl.col(LABEL).alias(ACTUAL), *at_actual),
        on=[*keys, ACTUAL],
        how="left",
        nulls_equal=True,
    ).join(
        per_class.select(*keys, pl.col(LABEL).alias(PREDICTED), *at_predicted),
        on=[*keys, PREDICTED],
        how="left",
        nulls_equal=True,
    )
    hit = pl.col(ACTUAL) == pl.col(PREDICTED)
    share = pl.col(COUNT).cast(f64) / pl.col(COUNT).sum().cast(f64)
    order = [ACTUAL, PREDICTED]
    variances = []
    for m in columns:
        for a in averages:
            g = (
                pl.when(hit)
                .then(pl.col(_avg(m, f"{a}_tp")).fill_null(0.0))
                .otherwise(
                    pl.col(_avg(m, f"{a}_fn")).fill_null(0.0)
                    + pl.col(_avg(m, f"{a}_fp")).fill_null(0.0)
                )
            )
            if a == "weighted":
                g = g + pl.col(_avg(m, "weighted_e")).fill_null(0.0)
            mean = _ordered_sum(share * g, order)
            variances.append(_ordered_sum(share * (g - mean) ** 2, order).alias(_avg(m, f"{a}_v")))
    n_ = pl.col(COUNT).sum().alias(f"{INTERNAL}avg_n")
    moments = (
        cells.group_by(keys)
        .agg(n_, *variances)
        .join(segment, on=keys, how="left", nulls_equal=True)
    )
    n = pl.col(f"{INTERNAL}avg_n")
    tp_, fp_, fn_, tn_ = totals
    micro_trials = {m: formulas.score_trials(m, tp_, fp_, fn_, tn_) for m in columns} | {
        "precision": tp_ + fp_,
        "recall": tp_ + fn_,
    }
    # macro / weighted: the segment's rows, unless no listed class has a row (the
    # average is then the constant zero_division: no interval)
    counted = pl.when(tp_ + fp_ + fn_ > 0).then(n.cast(f64)).otherwise(0.0)
    rows = []  # one struct per average, exploded: the moments' plan read once
    for a in averages:
        fields = [pl.lit(a).alias("average")]
        for m in columns:
            se = (pl.col(_avg(m, f"{a}_v")) * n.cast(f64)).sqrt()
            trials = micro_trials[m] if a == "micro" else counted
            fields += [se.alias(_avg(m, "se")), trials.cast(f64).alias(_avg(m, "trials"))]
        rows.append(pl.struct(fields))
    row = f"{INTERNAL}avg_row"
    return moments.select(*keys, pl.concat_list(rows).alias(row)).explode(row).unnest(row)


def averages_bounds(columns: dict[str, str], ci: float, prefix: str = "") -> Stages:
    """The stages of the ``_low`` / ``_high`` columns of the averages (named
    ``{prefix}{column}_low``) over their rows joined to :func:`averages_delta`:
    :func:`wilson_at_variance` of each score (the micro precision and recall:
    exactly Wilson's interval of the summed tp among the summed predicted / actual
    rows)."""
    return _merge(
        *(
            wilson_at_variance(
                pl.col(c),
                pl.col(_avg(m, "se")),
                pl.col(_avg(m, "trials")),
                ci,
                f"{prefix}{c}",
                formulas.SCORES[m].bounds,
            )
            for m, c in columns.items()
        )
    )


#: The columns :func:`compare_to_overall` reads: a segment's successes and trials.
SUCCESSES, TRIALS = f"{INTERNAL}successes", f"{INTERNAL}trials"


def compare_to_overall(strata: list[str], ci: float) -> list[list[pl.Expr]]:
    """``compare``'s analytic columns for a proportion x / m, in three stages (each a
    ``with_columns`` over the segment rows ``*strata, *groups, SUCCESSES, TRIALS``):
    ``low, high, diff_low, diff_high, ratio_low, ratio_high, p_value``.

    The segment's interval is Wilson's.  The overall value of a stratum is
    sum x / sum m = sum w_t v_t (w_t = m_t / M): with the segments independent and
    their trials fixed, diff = v_s - o has variance (1 - 2 w_s) var_s + W, W =
    sum_t w_t^2 var_t, computed with Agresti & Caffo's proportions (x + 1) / (m + 2)
    and var = v (1 - v) / (m + 2) (never 0 at 0 or 1); the interval is
    (v~_s - o~) +- z se, the p-value erfc(|z| / sqrt 2) with z = (v~_s - o~) / se
    (two segments: statsmodels' ``test_proportions_2indep(method="agresti-caffo")``,
    its interval times the other segment's share).  The ratio's interval is the
    difference's over the overall value, 1 + (v~_s - o~ +- z se) / o~ (at least 0):
    it holds 1 exactly when the difference's holds 0, as the p-value says (a
    delta-method interval of log v~_s - log o~ did not, at 0 of 8).  Null where the
    segment has no trials.
    """
    z = z_value(ci)
    x, m = pl.col(SUCCESSES).cast(pl.Float64), pl.col(TRIALS).cast(pl.Float64)
    over = per_segment(strata)  # a window per stratum, none without strata
    w_, v_, var_ = (f"{INTERNAL}{c}" for c in ("w", "v", "var"))
    o_, big_w = f"{INTERNAL}o", f"{INTERNAL}big_w"
    low, high = wilson(pl.col(SUCCESSES), pl.col(TRIALS), ci)
    adjusted = (x + 1.0) / (m + 2.0)
    first = [
        low.alias("low"),
        high.alias("high"),
        (m / over(m.sum())).alias(w_),
        adjusted.alias(v_),
        (adjusted * (1.0 - adjusted) / (m + 2.0)).alias(var_),
    ]
    w, v, var = pl.col(w_), pl.col(v_), pl.col(var_)
    second = [over((w * v).sum()).alias(o_), over((w * w * var).sum()).alias(big_w)]
    o, big = pl.col(o_), pl.col(big_w)
    d = v - o
    se = ((1.0 - 2.0 * w) * var + big).clip(lower_bound=0.0).sqrt()
    defined = m > 0
    third = [
        pl.when(defined).then(d - z * se).alias("diff_low"),
        pl.when(defined).then(d + z * se).alias("diff_high"),
        pl.when(defined).then((1.0 + (d - z * se) / o).clip(lower_bound=0.0)).alias("ratio_low"),
        pl.when(defined).then(1.0 + (d + z * se) / o).alias("ratio_high"),
        pl.when(defined & (se > 0))
        .then(d / se)
        .when(defined & (d == 0))  # one segment: its own overall value, exactly
        .then(0.0)
        .map_batches(normal_p_value, return_dtype=pl.Float64, is_elementwise=True)
        .alias("p_value"),
    ]
    return [first, second, third]
