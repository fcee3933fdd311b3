"""The options of the public functions, declared once: argument name -> its check.

An option is an argument that is neither a column nor data (``beta``,
``zero_division``, ``normalize``, ``bins``, ``drop_intermediate`` ...).  Its check
returns the value to use (``beta=2`` -> ``2.0``) or raises ``ValueError`` naming the
argument, before any row is read.

- :data:`OPTIONS`: the check of each option name;
- :data:`BY_METHOD`: the few names whose allowed values depend on the method
  (``normalize`` is a choice for ``confusion_matrix`` and a flag elsewhere; ``bins``
  is a bin count for drift and the approximate scores' bins for ranking; the
  expressions' ``average`` has ``"binary"``);
- :func:`checked`: the values of a method's options, checked.

The frame methods, the state finishers, the expressions and Dask call
:func:`checked` with the method's name (Spark runs the frame method itself on an
empty frame of its schema before any job), so a bad value gets one message
wherever it is given; ``tests/test_options.py`` checks that for every entry.  The
allowed strings are the ``Literal`` aliases of :mod:`pl_metrics._typing` (the
names a type checker sees).  Not here: the interval options (``ci``, ``n_boot``,
``ci_method``: :func:`checks.wants_ci`, which methods from the catalogue); the
options checked against the data or one another (``labels``, ``pos_label``,
``cost_matrix``, a ``metric`` among a method's outputs), which stay with the
stage that knows what they are checked against.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from types import MappingProxyType
from typing import Any, get_args

from pl_metrics._core import arguments, checks, table_options
from pl_metrics._typing import (
    Adjust,
    AucAverage,
    BinStrategy,
    Calibration,
    CalibrationMultiClass,
    DisparityMethod,
    ExprAverage,
    ExtraScore,
    FairnessAgg,
    KappaWeights,
    MultiClass,
    Normalize,
)

#: An option's check: the value to use, or ``ValueError`` naming the argument.
Check = Callable[[Any], Any]


def _choice(name: str, alias: object) -> Check:
    allowed = get_args(alias)

    def check(value: object) -> object:
        checks.check_choice(name, value, allowed)
        return value

    return check


def _optional_choice(name: str, alias: object) -> Check:
    return partial(checks.check_optional_choice, name, allowed=get_args(alias))


def _optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _seed(seed: object) -> object:
    checks.check_seed(seed)
    return seed


def _extra_scores(value: object) -> tuple[str, ...]:
    """``extra_scores=``: one opt-in score or a sequence of them (``ExtraScore``), as a
    tuple in the columns' order."""
    allowed = get_args(ExtraScore)
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, Sequence) or not all(n in allowed for n in names):
        msg = f"`extra_scores` must be one of {list(allowed)} or a list of them, got {value!r}"
        raise ValueError(msg)
    return tuple(n for n in allowed if n in names)


#: Every option name and its check (where the check depends on the method,
#: :data:`BY_METHOD` has it).
OPTIONS: Mapping[str, Check] = MappingProxyType(
    {
        "adjust": _optional(_choice("adjust", Adjust)),
        "adjusted": partial(checks.check_flag, "adjusted"),
        "agg": _choice("agg", FairnessAgg),
        "average": _optional_choice("average", AucAverage),
        "best": partial(checks.check_flag, "best"),
        "beta": checks.check_beta,
        "bins": checks.check_bins,
        "buckets": table_options.check_buckets,
        "calibration": _optional_choice("calibration", Calibration),
        "drop_intermediate": partial(checks.check_flag, "drop_intermediate"),
        "eps": checks.check_eps,
        "error_bound": partial(checks.check_flag, "error_bound"),
        "extra_scores": _extra_scores,
        "ignore_ties": partial(checks.check_flag, "ignore_ties"),
        "k": _optional(partial(checks.positive_int, "k")),
        "kappa_weights": _optional_choice("kappa_weights", KappaWeights),
        "log_base": checks.check_log_base,
        "max_fpr": checks.check_max_fpr,
        "method": _choice("method", DisparityMethod),
        "multi_class": _choice("multi_class", MultiClass),
        "n_bins": partial(checks.positive_int, "n_bins"),
        "normalize": partial(checks.check_flag, "normalize"),
        "points": partial(checks.positive_int, "points"),
        "replace_undefined_by": checks.check_kappa_undefined,
        "samplewise": partial(checks.check_flag, "samplewise"),
        "seed": _seed,
        "split_every": checks.check_split_every,
        "strategy": _choice("strategy", BinStrategy),
        "threshold": checks.check_threshold,
        "weights": _optional_choice("weights", KappaWeights),
        "zero_division": checks.check_zero_division,
    }
)

_CALIBRATION = {"multi_class": _choice("multi_class", CalibrationMultiClass)}
_DRIFT_BINS = {"bins": partial(checks.positive_int, "bins")}

#: Where an option's check depends on the method: method -> name -> check (the
#: expressions ``plm.*``, all alike, are the method ``"expressions"``).
BY_METHOD: Mapping[str, Mapping[str, Check]] = MappingProxyType(
    {
        "confusion_matrix": {"normalize": _optional_choice("normalize", Normalize)},
        "class_likelihood_ratios": {"replace_undefined_by": checks.check_replace_undefined_by},
        "calibration_curve": _CALIBRATION,
        "calibration_error": _CALIBRATION,
        "top_k_accuracy": {"k": partial(checks.positive_int, "k")},
        "drift": _DRIFT_BINS,
        "drift_bins": _DRIFT_BINS,
        "drift_counts": _DRIFT_BINS,
        "expressions": {"average": _choice("average", ExprAverage)},
    }
)


def check_of(method: str, name: str) -> Check:
    """The check of option ``name`` of ``method``."""
    own = BY_METHOD.get(method, {})
    if name in own:
        return own[name]
    if name not in OPTIONS:  # a programming error: every option is in the table
        msg = f"option {name!r} of {method!r} is not in pl_metrics._core.options.OPTIONS"
        raise KeyError(msg)
    return OPTIONS[name]


def checked(method: str, /, **values: object) -> tuple[Any, ...]:
    """The values of ``method``'s options, each checked by the table, in the order given
    (``b, zd = checked("per_class", beta=beta, zero_division=zero_division)``).

    The one entry point of the declarations: each option's check (:data:`OPTIONS`,
    :data:`BY_METHOD`), and ``method``'s rules across arguments
    (:data:`arguments.RULES`), each run as soon as every argument it reads is
    given (those that are no option, :data:`arguments.READ_ONLY`, and the values a
    stage of :data:`arguments.STAGES` reads, come back as given).
    """
    seen: dict[str, object] = {}
    pending = list(arguments.rules_of(method))
    for name, value in values.items():
        read_only = method in arguments.STAGES or name in arguments.READ_ONLY
        seen[name] = value if read_only else check_of(method, name)(value)
        for rule in [r for r in pending if seen.keys() >= set(r.reads)]:
            rule.check(seen)
            pending.remove(rule)
    return tuple(seen.values())
