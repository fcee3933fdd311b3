"""The ranking methods resolve their input once (issue 50, item 2).

``roc_auc`` and ``average_precision`` tell the inputs apart in one dispatcher
(``_intervals/ranked_scores.py``), which resolves the schema stage, the segments
and ``pos_label`` once (``_core/scores.py::binary_input`` / ``classes_input``); the
per-score counts and the sorted path (``_ranking/sorted_path.py``) both read that
one record.  Spies count the resolutions of one call, from the call to its
collect, on every way the number is computed (the counted plan, the sorted path
with keys, with the search, and the keys' fallback to the search), and the
numbers stay scikit-learn's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import _oracle as oracle
import numpy as np
import polars as pl
import pytest
from sklearn import metrics as skm

from pl_metrics._core import checks, inputs, scores
from pl_metrics._ranking import sorted_path

N = 400


@contextmanager
def _counting(
    monkeypatch: pytest.MonkeyPatch, *targets: tuple[Any, str]
) -> Iterator[dict[str, int]]:
    """Count the calls of each ``(module, name)`` while the block runs."""
    calls = dict.fromkeys((name for _, name in targets), 0)

    def spy(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: object, **kwargs: object) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return counted

    with monkeypatch.context() as patch:
        for module, name in targets:
            patch.setattr(module, name, spy(name, getattr(module, name)))
        yield calls


def _frame(labels: str, *, signed: bool) -> tuple[pl.DataFrame, object, np.ndarray]:
    """Continuous scores (a later negative one when ``signed``: the keys' fallback),
    two segments, labels as ints (default pos_label), booleans or strings; the
    ``pos_label`` to pass and the positives as 0 / 1."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, N)
    score = rng.random(N) + 0.4 * y
    if signed:
        score[N // 2 :] -= 0.7
    truth: object = {"int": y, "bool": y.astype(bool), "str": np.where(y == 1, "yes", "no")}[labels]
    pos_label = "yes" if labels == "str" else None
    df = pl.DataFrame({"y": truth, "s": score, "g": rng.choice(["a", "b"], N)})
    return df, pos_label, y


def _sklearn(metric: str, df: pl.DataFrame, y: np.ndarray, by: bool) -> list[float]:
    score = skm.roc_auc_score if metric == "roc_auc" else skm.average_precision_score
    if not by:
        return [score(y, df["s"].to_numpy())]
    g = df["g"].to_numpy()
    return [score(y[g == k], df["s"].to_numpy()[g == k]) for k in ("a", "b")]


CALLS = [
    ("roc_auc", {}),
    ("roc_auc", {"ci": 0.95}),  # DeLong's, sorted
    ("roc_auc", {"ci": 0.95, "ci_method": "bootstrap", "n_boot": 20}),
    ("average_precision", {}),
    ("average_precision", {"ci": 0.9, "ci_method": "logit"}),
]


@pytest.mark.parametrize("how", oracle.RANKING_STRATEGIES)
@pytest.mark.parametrize(("metric", "options"), CALLS)
@pytest.mark.parametrize("labels", ["int", "bool", "str"])
@pytest.mark.parametrize("by", [False, True])
def test_binary_call_resolves_pos_label_once(
    how: str,
    metric: str,
    options: dict,
    labels: str,
    by: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    df, pos_label, y = _frame(labels, signed=how.startswith("keys"))
    kwargs = {"pos_label": pos_label, "by": "g" if by else None, **options}
    targets = [
        (scores, "resolve_pos_label"),
        (scores, "prepare"),
        (inputs, "schema_stage"),
        (checks, "normalize_by"),
        (sorted_path, "sorted_input_metric"),
        (sorted_path, "sorted_metric"),
    ]
    with oracle.ranking_strategy(how), _counting(monkeypatch, *targets) as calls:
        plan = getattr(df.lazy().metrics, metric)("y", "s", **kwargs)
        got = plan.collect().sort("g") if by else plan.collect()
    assert calls["resolve_pos_label"] == 1
    assert calls["prepare"] == calls["schema_stage"] == 1  # the schema stage, once
    assert calls["normalize_by"] == 1  # the segments, once
    assert calls["sorted_metric"] == 0  # the sorted path took the resolved input
    # the sorted path ran where it sorts (the keys: then the search too, after the
    # later negative score); counted otherwise
    assert calls["sorted_input_metric"] == {"count": 0, "search": 1}.get(how, 2)
    np.testing.assert_allclose(got[metric].to_list(), _sklearn(metric, df, y, by), rtol=1e-9)


@pytest.mark.parametrize("how", ["count", "search"])
@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("roc_auc", {"average": "macro"}),
        ("roc_auc", {"average": "weighted"}),
        ("roc_auc", {"average": "macro", "ci": 0.95}),
        ("roc_auc", {"average": "weighted", "ci": 0.95, "ci_method": "bootstrap", "n_boot": 20}),
        ("average_precision", {"average": "macro"}),
    ],
)
def test_class_scores_resolve_their_classes_once(
    how: str, metric: str, options: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, N)
    logits = rng.normal(size=(N, 3))
    logits[np.arange(N), y] += 1.0
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    df = pl.DataFrame({"y": y} | {f"p{k}": proba[:, k] for k in range(3)})
    mapping = {k: f"p{k}" for k in range(3)}
    targets = [
        (scores, "resolve_pos_label"),
        (scores, "prepare"),
        (scores, "classes_input"),
        (inputs, "schema_stage"),
        (checks, "normalize_by"),
        (sorted_path, "sorted_input_metric"),
    ]
    with oracle.ranking_strategy(how), _counting(monkeypatch, *targets) as calls:
        got = getattr(df.lazy().metrics, metric)("y", mapping, **options).collect()
    assert calls["resolve_pos_label"] == 0  # no pos_label with {label: column} scores
    assert calls["prepare"] == calls["schema_stage"] == calls["classes_input"] == 1
    assert calls["normalize_by"] == 1  # the segments, once (the intervals' too)
    assert calls["sorted_input_metric"] == (how == "search")
    if metric == "roc_auc":
        expected = skm.roc_auc_score(y, proba, multi_class="ovr", average=options["average"])
    else:  # scikit-learn's multiclass AP: one-vs-rest, averaged
        expected = skm.average_precision_score(y, proba, average="macro")
    assert got[metric][0] == pytest.approx(expected, rel=1e-9)
