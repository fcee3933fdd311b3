"""The options table (``pl_metrics._core.options``): every option of every public
function is in it, and a bad value gets the same message from the frame method, the
state finisher, Dask and the expressions (Spark runs the frame method itself on an
empty frame of its schema: ``test_spark``)."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest

import pl_metrics as plm
import pl_metrics.dask as pmd
import pl_metrics.spark as pms
from pl_metrics import state
from pl_metrics._core import options
from pl_metrics._namespace import MetricsLazyFrame

#: Keyword arguments that are not options of the table, and why: columns and their
#: values (checked against the schema and the rows), the interval options (checked
#: together by ``checks.wants_ci``, their methods from the catalogue), the options
#: checked against the data or a method's outputs, and the engines' own handles.
NOT_OPTIONS = {
    # columns, segments and the values of a column
    "by": "segments",
    "weight": "a column",
    "labels": "values of the label column",
    "pos_label": "a value of the label column",
    "neg_label": "a value of the label column",
    "y_true": "a column (keyword-only where reference rows hold it)",
    "y_pred": "a column",
    "y_score": "a column",
    "index": "a column",
    "control": "segments",
    "reference": "an expression or frame of rows",
    "model": "a column",
    "id": "a column",
    "baseline": "a value of the model column",
    "drift_columns": "columns",
    "edges": "bin edges of the reference's columns",
    # the interval options: checks.wants_ci / check_ci with the catalogue's methods
    "ci": "interval",
    "n_boot": "interval",
    "ci_method": "interval",
    # checked against the classes or the method's outputs
    "cost_matrix": "keyed by the classes",
    "metric": "a name among the method's outputs",
    "metrics": "names among the method's outputs",
    "where": "an expression over the method's outputs",
    "rules": "check's rules, parsed against the catalogue by the check itself",
    "every": "a polars duration, checked by polars with the index column",
    "period": "a polars duration, checked by polars with the index column",
    # the engines' and the report's own handles
    "client": "a Dask client",
    "path": "where html_report writes",
    "title": "html_report's text",
    "progress": "html_report's callback",
}


def _keyword_options() -> list[tuple[str, str, str]]:
    """(where, method, option) for every keyword-only argument of the public functions."""
    found: list[tuple[str, str, str]] = []

    def add(where: str, method: str, f: Callable[..., object]) -> None:
        for p in inspect.signature(f).parameters.values():
            if p.kind == p.KEYWORD_ONLY and p.name not in NOT_OPTIONS:
                found.append((where, method, p.name))

    for name, f in inspect.getmembers(MetricsLazyFrame, inspect.isfunction):
        if not name.startswith("_"):
            add("namespace", name, f)
    for cls in (state.CountsState, state.ScoreCountsState, state.MultilabelCountsState):
        for name, f in inspect.getmembers(cls, inspect.isfunction):
            if not name.startswith("_"):
                add(cls.__name__, name, f)
    for module in (pmd, pms):
        for name, f in inspect.getmembers(module, inspect.isfunction):
            if f.__module__ == module.__name__ and not name.startswith("_"):
                add(module.__name__, name, f)
    for name in plm.__all__:
        f = getattr(plm, name)
        if inspect.isfunction(f) and f.__module__ == "pl_metrics.expr":
            add("expressions", "expressions", f)
    add("from_drift_counts", "from_drift_counts", plm.from_drift_counts)
    return found


def test_every_option_of_every_public_function_is_in_the_table() -> None:
    found = _keyword_options()
    assert len(found) > 150  # the introspection found the functions
    missing = []
    for where, method, name in found:
        try:
            options.check_of(method, name)
        except KeyError:
            missing.append((where, method, name))
    assert not missing, f"options not in pl_metrics._core.options: {missing}"


def test_the_table_holds_no_stale_option() -> None:
    found = _keyword_options()
    used = {name for _, _, name in found}
    assert set(options.OPTIONS) <= used
    for method, table in options.BY_METHOD.items():
        # each method's own entry is an option of that method (a misspelt method
        # would fall back to the general check unnoticed)
        assert set(table) <= {name for _, m, name in found if m == method}, method


#: (method, option, a value its own check refuses and the general one takes): a
#: public call of each method entry of ``BY_METHOD`` with that value must refuse it,
#: so that an entry deleted or misspelt fails here (the general check would let the
#: value through: ``top_k_accuracy(k=None)`` would be a null score)
PINNED: list[tuple[str, str, object, Callable[[dict], object]]] = [
    (
        "confusion_matrix",
        "normalize",
        True,
        lambda f: f["labels"].metrics.confusion_matrix("y", "p", normalize=True),
    ),
    (
        "class_likelihood_ratios",
        "replace_undefined_by",
        0.5,
        lambda f: f["scores"].metrics.class_likelihood_ratios(
            "y", "yp", pos_label=1, replace_undefined_by=0.5
        ),
    ),
    *(
        (
            method,
            "multi_class",
            "ovr",
            lambda f, m=method: getattr(f["scores"].metrics, m)("y", "s", multi_class="ovr"),
        )
        for method in ("calibration_curve", "calibration_error")
    ),
    (
        "top_k_accuracy",
        "k",
        None,
        lambda f: f["labels"].metrics.top_k_accuracy("y", f["probabilities"], k=None),
    ),
    (
        "drift",
        "bins",
        None,
        lambda f: f["scores"].metrics.drift("s", reference=pl.col("y") == 0, bins=None),
    ),
    (
        "drift_bins",
        "bins",
        None,
        lambda f: f["scores"].metrics.drift_bins("s", reference=pl.col("y") == 0, bins=None),
    ),
    ("drift_counts", "bins", None, lambda f: f["scores"].metrics.drift_counts("s", bins=None)),
    (
        "expressions",
        "average",
        "samples",
        lambda f: f["labels"].select(plm.f1("y", "p", average="samples")),
    ),
]


def test_every_method_entry_of_the_table_is_pinned_by_a_call() -> None:
    pinned = {(method, name) for method, name, _, _ in PINNED}
    assert pinned == {(m, n) for m, table in options.BY_METHOD.items() for n in table}


@pytest.mark.parametrize(
    ("method", "name", "value", "call"), PINNED, ids=[f"{m}-{n}" for m, n, _, _ in PINNED]
)
def test_a_method_entry_refuses_what_the_general_check_takes(
    frames: dict[str, object], method: str, name: str, value: object, call: Callable
) -> None:
    options.OPTIONS[name](value)  # the general check takes it
    want = _message(method, **{name: value})
    with pytest.raises(ValueError, match=f"`{name}`") as info:
        call(frames)
    assert str(info.value) == want


def _message(method: str, /, **bad: object) -> str:
    """The table's message for the bad value (what every path must raise)."""
    ((name, value),) = bad.items()
    with pytest.raises(ValueError, match=f"`{name}`") as info:
        options.check_of(method, name)(value)
    return str(info.value)


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    labels = pl.DataFrame(
        {
            "y": [0, 1, 2, 1, 0, 2],
            "p": [0, 2, 2, 1, 0, 1],
            **{f"q{k}": [0.5, 0.2, 0.2, 0.3, 0.6, 0.1] for k in range(3)},
        }
    )
    scores = pl.DataFrame(
        {
            "y": [0, 1, 0, 1, 1, 0],
            "yp": [0, 1, 1, 1, 0, 0],
            "s": [0.1, 0.4, 0.35, 0.8, 0.7, 0.2],
            "g": ["a", "b", "a", "b", "a", "b"],
        }
    )
    multilabel = pl.DataFrame(
        {"t": [[0], [1, 2], [], [2]], "q": [[0], [1], [2], [2]]},
        schema={"t": pl.List(pl.Int64), "q": pl.List(pl.Int64)},
    )
    path = tmp_path_factory.mktemp("options") / "rows.parquet"
    labels.with_columns(yb=scores["y"], s=scores["s"]).write_parquet(path)
    return {
        "labels": labels,
        "scores": scores,
        "multilabel": multilabel,
        "counts": state.from_counts(labels.metrics.counts("y", "p")),
        "score_counts": state.from_score_counts(scores.metrics.score_counts("y", "s")),
        "multilabel_counts": state.from_multilabel_counts(
            multilabel.metrics.multilabel_counts("t", "q")
        ),
        "path": str(Path(path)),
        "probabilities": {k: f"q{k}" for k in range(3)},
    }


#: (method, the bad option, the calls that must refuse it with the table's message)
CASES: list[tuple[str, dict[str, object], dict[str, Callable[[dict], object]]]] = [
    *(
        (
            method,
            bad,
            {
                "frame": lambda f, m=method, b=bad: getattr(f["labels"].metrics, m)("y", "p", **b),
                "multilabel frame": lambda f, m=method, b=bad: getattr(f["multilabel"].metrics, m)(
                    "t", "q", **b
                ),
                "state": lambda f, m=method, b=bad: getattr(f["counts"], m)(**b),
                "multilabel state": lambda f, m=method, b=bad: getattr(f["multilabel_counts"], m)(
                    **b
                ),
            },
        )
        for method in ("per_class", "averages", "report")
        for bad in ({"beta": 0}, {"beta": math.inf}, {"zero_division": 0.5})
    ),
    (
        "report",
        {"beta": -1.0},
        {"dask": lambda f: pmd.report(f["path"], "y", "p", client=None, beta=-1.0)},
    ),
    (
        "confusion_matrix",
        {"normalize": "rows"},
        {
            "frame": lambda f: f["labels"].metrics.confusion_matrix("y", "p", normalize="rows"),
            "state": lambda f: f["counts"].confusion_matrix(normalize="rows"),
        },
    ),
    *(
        (
            "summary",
            bad,
            {
                "frame": lambda f, b=bad: f["labels"].metrics.summary("y", "p", **b),
                "state": lambda f, b=bad: f["counts"].summary(**b),
            },
        )
        for bad in ({"kappa_weights": "cubic"}, {"replace_undefined_by": 2.0})
    ),
    (
        "roc_auc",
        {"max_fpr": 0},
        {
            "frame": lambda f: f["scores"].metrics.roc_auc("y", "s", max_fpr=0),
            "state": lambda f: f["score_counts"].roc_auc(max_fpr=0),
        },
    ),
    (
        "roc_auc",
        {"error_bound": "no"},  # was taken as True
        {"state": lambda f: f["score_counts"].roc_auc(error_bound="no")},
    ),
    (
        "ks",
        {"error_bound": "no"},  # was taken as True
        {"state": lambda f: f["score_counts"].ks(error_bound="no")},
    ),
    *(
        (
            curve,
            {"drop_intermediate": "yes"},  # roc_curve took it as True
            {
                "frame": lambda f, c=curve: getattr(f["scores"].metrics, c)(
                    "y", "s", drop_intermediate="yes"
                ),
                "state": lambda f, c=curve: getattr(f["score_counts"], c)(drop_intermediate="yes"),
            },
        )
        for curve in ("roc_curve", "pr_curve")
    ),
    (
        "det_curve",
        {"drop_intermediate": 1},  # was taken as True
        {"frame": lambda f: f["scores"].metrics.det_curve("y", "s", drop_intermediate=1)},
    ),
    (
        "gains",
        {"buckets": 0},
        {
            "frame": lambda f: f["scores"].metrics.gains("y", "s", buckets=0),
            "state": lambda f: f["score_counts"].gains(buckets=0),
        },
    ),
    (
        "zero_one_loss",
        {"normalize": "yes"},
        {
            "frame": lambda f: f["labels"].metrics.zero_one_loss("y", "p", normalize="yes"),
            "multilabel frame": lambda f: f["multilabel"].metrics.zero_one_loss(
                "t", "q", normalize="yes"
            ),
            "multilabel state": lambda f: f["multilabel_counts"].zero_one_loss(normalize="yes"),
        },
    ),
    (
        "score_counts",
        {"bins": 0},
        {
            "frame": lambda f: f["scores"].metrics.score_counts("y", "s", bins=0),
            "dask": lambda f: pmd.score_counts(f["path"], "yb", "s", client=None, bins=0),
        },
    ),
    (
        "counts",
        {"split_every": 1},
        {"dask": lambda f: pmd.counts(f["path"], "y", "p", client=None, split_every=1)},
    ),
    *(
        (
            "expressions",
            bad,
            {
                "f1": lambda f, b=bad: f["labels"].select(plm.f1("y", "p", pos_label=1, **b)),
                "precision": lambda f, b=bad: f["labels"].select(
                    plm.precision("y", "p", pos_label=1, **b)
                ),
            },
        )
        for bad in ({"zero_division": 2}, {"average": "samples"})
    ),
    (
        "dcg",
        {"log_base": 1},
        {"frame": lambda f: f["multilabel"].metrics.dcg("t", {0: "s0"}, log_base=1)},
    ),
    (
        "drift",
        {"eps": 0},
        {"frame": lambda f: f["scores"].metrics.drift("s", reference=pl.col("y") == 0, eps=0)},
    ),
    (
        "from_drift_counts",
        {"eps": 1.5},
        {
            "from_drift_counts": lambda f: plm.from_drift_counts(
                f["scores"].metrics.drift_counts("s"),
                f["scores"].metrics.drift_counts(
                    "s", edges=plm.drift_edges(f["scores"].metrics.drift_counts("s"))
                ),
                eps=1.5,
            )
        },
    ),
    (
        "log_loss",
        {"normalize": "yes"},
        {"frame": lambda f: f["scores"].metrics.log_loss("y", "s", normalize="yes")},
    ),
    (
        "fairness",
        {"method": "ratio"},
        {"frame": lambda f: f["scores"].metrics.fairness("y", "yp", by="g", method="ratio")},
    ),
    (
        "per_class",
        {"seed": -1},  # without ci too, as fairness and html_report
        {
            "frame": lambda f: f["labels"].metrics.per_class("y", "p", seed=-1),
            "state": lambda f: f["counts"].per_class(seed=-1),
        },
    ),
    (
        "expressions",
        {"replace_undefined_by": 2},
        {
            "cohen_kappa": lambda f: f["labels"].select(
                plm.cohen_kappa("y", "p", replace_undefined_by=2)
            )
        },
    ),
    (
        "expressions",
        {"kappa_weights": "cubic"},
        {
            "cohen_kappa": lambda f: f["labels"].select(
                plm.cohen_kappa("y", "p", kappa_weights="cubic")  # type: ignore[arg-type]
            )
        },
    ),
]


@pytest.mark.parametrize(
    ("method", "bad", "calls"),
    CASES,
    ids=[f"{m}-{next(iter(b))}={next(iter(b.values()))!r}" for m, b, _ in CASES],
)
def test_a_bad_option_gets_the_tables_message_on_every_path(
    frames: dict[str, object],
    method: str,
    bad: dict[str, object],
    calls: dict[str, Callable[[dict], object]],
) -> None:
    want = _message(method, **bad)  # names the argument
    for where, call in calls.items():
        with pytest.raises(ValueError, match=f"`{next(iter(bad))}`") as info:
            call(frames)
        assert str(info.value) == want, where


def test_a_range_is_checked_on_the_float_the_metric_uses(frames: dict[str, object]) -> None:
    # Fraction(1, 10**400) is > 0 but is 0.0 as a float: eps 0.0 made drift's PSI inf,
    # beta 0.0 an F-score of recall alone; both are refused like 0.0 itself
    tiny, huge = Fraction(1, 10**400), Fraction(10**400)
    scores, labels = frames["scores"], frames["labels"]
    with pytest.raises(ValueError, match="`eps` must be a number in"):
        scores.metrics.drift("s", reference=pl.col("y") == 0, eps=tiny)
    with pytest.raises(ValueError, match="`beta` must be a finite float > 0"):
        labels.metrics.per_class("y", "p", beta=tiny)
    with pytest.raises(ValueError, match="`beta` must be a finite float > 0"):
        labels.metrics.per_class("y", "p", beta=huge)  # inf as a float (was OverflowError)
    with pytest.raises(ValueError, match="`zero_division` must be one of"):
        labels.metrics.per_class("y", "p", zero_division=huge)
    with pytest.raises(ValueError, match="`max_fpr` must be None or a number in"):
        scores.metrics.roc_auc("y", "s", max_fpr=tiny)
    # and a number that is its float exactly is taken as that float
    assert labels.metrics.per_class("y", "p", beta=Fraction(1, 2)).equals(
        labels.metrics.per_class("y", "p", beta=0.5)
    )
