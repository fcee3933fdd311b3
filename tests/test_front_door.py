"""The front door for arguments: a ``ValueError`` / ``TypeError`` about an argument is
declared in ``_core/options.py`` (one option's value), ``_core/arguments.py`` (the
rules across a method's arguments, run by ``options.checked``), ``_core/stage_rules.py``
(the rules on what a stage has read: an argument against the schema, the input's
form; the ``Rule`` record in ``_core/rule.py``), ``_core/forms.py`` (the forms of
list, mapping and duration arguments), ``_core/labels.py`` (the label arguments
against the label column's dtype: ``pos_label``, ``neg_label``, ``labels=``),
``_core/checks.py`` (the shared checks and the schema) or ``_core/table_options.py``
(the scoring tables' options).  A raise elsewhere is listed below with its reason:
the rows decide, or it is a programming error.  A count may only shrink."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pl_metrics._core import arguments, options

ROOT = Path(__file__).resolve().parents[1] / "pl_metrics"

#: The front door's modules (paths below ``pl_metrics``).
FRONT_DOOR = {
    "_core/options.py",
    "_core/arguments.py",
    "_core/stage_rules.py",
    "_core/rule.py",
    "_core/forms.py",
    "_core/labels.py",
    "_core/checks.py",
    "_core/table_options.py",
}

#: Each file outside the front door that raises, how many raises at most, and why
#: each stays: the rows decide (the frame or state given is data, not an argument's
#: form), or a programming error.
ALLOWED: dict[str, tuple[int, str]] = {
    "_core/catalogue.py": (
        2,
        "programming errors: an Affine entry's scale (at import); a family names_of is "
        "asked by the library",
    ),
    "_groups/custom.py": (1, "rows: the value a custom metric returned on a segment"),
    "_groups/paired_models.py": (
        1,
        "rows: `baseline` among the models the model column holds (read by a group_by)",
    ),
    "_multilabel/state.py": (
        1,
        "rows: `labels` against the labels a multilabel state holds (checked at collect)",
    ),
    "_namespace/_common.py": (1, "programming error at import: an eager twin's docstring"),
    "cli/_commands.py": (1, "programming error: a signature the command line has no form for"),
    "plot/_base.py": (
        4,
        "the chart's frame (a method's output, the data drawn): its `by` columns, its "
        "required columns, columns that would merge segments, a point repeated in a segment",
    ),
    "plot/tables.py": (
        6,
        "forest's frame (the data drawn): <metric>_low / _high without <metric>, a "
        "compare_models frame's interval is diff's, no interval columns; the metric among "
        "its `metric` values, a segment in several rows, `overall` differing between rows",
    ),
    "_drift/state.py": (
        4,
        "drift_counts states (the counted rows): a state's columns (drift_edges, "
        "from_drift_counts), the columns two states count, current rows binned elsewhere",
    ),
}

_RAISE = re.compile(r"raise (ValueError|TypeError)\(")


def _raises() -> dict[str, int]:
    """The ``raise ValueError(`` / ``raise TypeError(`` statements per module outside
    the front door."""
    found = {}
    for path in ROOT.rglob("*.py"):
        name = path.relative_to(ROOT).as_posix()
        n = len(_RAISE.findall(path.read_text(encoding="utf-8")))
        if n and name not in FRONT_DOOR:
            found[name] = n
    return found


def test_no_argument_error_is_raised_outside_the_front_door_unlisted() -> None:
    found = _raises()
    assert set(found) <= set(ALLOWED), f"raises outside the front door: {set(found) - set(ALLOWED)}"
    grown = {name: (n, ALLOWED[name][0]) for name, n in found.items() if n > ALLOWED[name][0]}
    assert not grown, f"more raises than the allow-list (found, allowed): {grown}"
    assert sum(found.values()) <= 21  # the allow-list's total: it only shrinks


def test_the_allow_list_names_modules_that_exist() -> None:
    for name, (n, reason) in ALLOWED.items():
        assert (ROOT / name).is_file(), name
        assert n > 0
        assert reason


def test_the_rules_read_arguments_the_table_knows() -> None:
    # a name a rule reads is an option of the table or a declared read-only argument
    # (a stage's rules read the values its method checked); no read-only name
    # hides an option's check
    assert not arguments.READ_ONLY & set(options.OPTIONS)
    for method, rules in arguments.RULES.items():
        for rule in rules:
            for name in rule.reads:
                known = method in arguments.STAGES or name in arguments.READ_ONLY
                assert known or options.check_of(method, name), (method, name)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: options.checked("html_report", title=3),
            TypeError,
            "`title` must be a string, got 3",
        ),
        (
            lambda: options.checked("html_report", index="t", every=None),
            ValueError,
            "`index` and `every` go together",
        ),
        (
            lambda: options.checked("class scores", max_fpr=0.5),
            ValueError,
            "`max_fpr` (partial AUC) is for binary scores",
        ),
        (
            lambda: options.checked("compare_models", metric="accuracy", pos_label=1),
            ValueError,
            "`pos_label` is for the binary metrics",
        ),
        (
            lambda: options.checked(
                "estimated_performance", calibration=None, reference=None, y_true="y"
            ),
            ValueError,
            "calibration=None takes the scores as probabilities and reads no `reference`",
        ),
        (
            lambda: options.checked("estimated class scores", pos_label=1),
            ValueError,
            "`pos_label` is for binary scores (a column name as `y_score`)",
        ),
        (
            lambda: options.checked("fairness reference", reference={"g": 1}, by_names=["h"]),
            ValueError,
            "`reference` must name every `by` column ['h'], got ['g']",
        ),
        (
            lambda: options.checked("fairness reference", reference=(1, 2), by_names=["h"]),
            ValueError,
            "`reference` must be 'largest' or a key of 1 value(s)",
        ),
        (
            lambda: options.checked("drift shards", edges=None),
            ValueError,
            "`edges` is required on shards",
        ),
        (
            lambda: options.checked("threshold_metrics", metrics=["tp"], rates=("recall",)),
            ValueError,
            "threshold_metrics: metrics must be rates of the thresholds frame (recall or f<beta>)",
        ),
    ],
)
def test_a_rule_raises_its_error_naming_the_argument(
    call: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        call()  # type: ignore[operator]
    assert str(info.value).startswith(message)


def test_a_rule_runs_once_its_arguments_are_given() -> None:
    # index without every: the rule waits for every (not given: no error)
    assert options.checked("html_report", index="t") == ("t",)
    # the options among them are checked and returned as the table returns them
    assert options.checked("summary", multilabel=False, replace_undefined_by=0) == (False, 0.0)


def test_threshold_metrics_takes_rates_and_f_columns() -> None:
    assert options.checked("threshold_metrics", metrics=["recall", "f0.5", "f2"], rates=("recall",))
    with pytest.raises(ValueError, match="got \\[\\]"):
        options.checked("threshold_metrics", metrics=[], rates=("recall",))


def test_estimated_metrics_have_over_times_form() -> None:
    # one form of `metrics` (forms.name_list) for estimated_performance and over_time:
    # a list of non-names is a TypeError in both (estimated_performance's was a
    # ValueError from the choice check before the move)
    import polars as pl

    import pl_metrics  # noqa: F401  (the namespace)

    df = pl.DataFrame({"t": [1, 2], "pred": [0, 1], "s": [0.2, 0.7]})
    for call in (
        lambda: df.metrics.estimated_performance("pred", "s", calibration=None, metrics=[1]),
        lambda: df.metrics.over_time("pred", index="t", every="1d", y_score="s", metrics=[1]),
    ):
        with pytest.raises(TypeError, match=r"`metrics` must be a metric name or a non-empty"):
            call()


def test_a_stage_rule_raises_where_the_check_was() -> None:
    # over_time's buckets shorter than a day on a Date index: the "window index" stage,
    # run once the index column's dtype is read (no row)
    import datetime as dt

    import polars as pl

    import pl_metrics  # noqa: F401  (the namespace)

    df = pl.DataFrame({"t": [dt.date(2024, 1, 1), dt.date(2024, 1, 2)], "y": [0, 1]})
    with pytest.raises(ValueError, match=r"^`every` '6h' is shorter than a day but column 't'"):
        df.metrics.over_time("y", y_pred="y", index="t", every="6h")
