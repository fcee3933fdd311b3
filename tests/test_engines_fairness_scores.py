"""``disparity`` of score metrics on the engines (``pl_metrics/_engines/fairness.py``:
``scored_disparity``): each metric per group and per stratum from the engine's own
function of its method (``roc_auc``, ``log_loss``...), finished by the frame method's
body (``fairness_rows.disparity_of``).  Equal to the frame method on the same rows to
a relative 1e-9, over hypothesis-generated rows and partitions and the hard cases:
uneven partitions, an empty one, a group in one partition only, a group of one class
(its AUC undefined: skipped, as the frame method skips it), a null group, weights
(zero ones too), ``control`` strata, label metrics beside the score metrics, stand-in
names as column names, no rows at all.  ``ci`` of one ``roc_auc`` / ``gini`` /
``average_precision`` (the frame method draws it from each group's per-score counts)
is the frame method's for the seed; the other score metrics' ``ci`` (rows redrawn)
and callables are refused before any job.

The frame method is checked against fairlearn in tests/test_fairness.py; here it is
the oracle (the registry's engine law runs ``disparity[scores]`` on Spark and Dask too).
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from registry.entries import same

import pl_metrics.dask as pmd
import pl_metrics.spark as pms
from pl_metrics import exceptions, state
from pl_metrics._core.catalogue import CATALOGUE, Ranked

#: Every score metric disparity takes.
SCORES = ["roc_auc", "gini", "average_precision", "ks", "log_loss", "brier_score"]

#: Group "one" holds one class (its AUC, AP, KS undefined), group "solo" is in the
#: last partition only, a null group, a zero weight, tied scores within and across
#: partitions.
ROWS = pl.DataFrame(
    {
        "y": [0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1],
        "s": [0.1, 0.8, 0.4, 0.4, 0.3, 0.9, 0.2, 0.6, 0.7, 0.2, 0.5, 0.5, 0.4, 0.8],
        "g": ["a", "a", "b", "b", "one", "one", "one", "a", "b", "solo", "solo", "a", None, None],
        "c": ["x", "y", "x", "y", "x", "x", "y", "y", "x", "y", "y", "x", "x", "y"],
        "w": [1.0, 2.0, 0.5, 3.0, 1.0, 1.0, 2.0, 4.0, 1.0, 1.0, 2.0, 0.0, 1e6, 1e-6],
    }
)
#: Uneven partitions, the first one empty.
CUTS = [0, 0, 4, 7, 14]


def _files(root: Path, frame: pl.DataFrame, cuts: list[int]) -> list[str]:
    paths = []
    for i, (a, b) in enumerate(itertools.pairwise(cuts)):
        paths.append(str(root / f"part{i}.parquet"))
        frame[a:b].write_parquet(paths[-1])
    return paths


@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("control", [None, "c"])
def test_every_score_metric_equals_the_frame_method(
    method: str, weight: str | None, control: str | None, tmp_path: Path
) -> None:
    paths = _files(tmp_path, ROWS, CUTS)
    kw: dict[str, Any] = {"by": "g", "metric": SCORES, "control": control, "method": method}
    kw["weight"] = weight
    expected = ROWS.metrics.disparity("y", "s", **kw)
    # the one-class group's AUC is undefined in the frame method: skipped there
    assert ROWS.metrics.roc_auc("y", "s", by="g").filter(pl.col("g") == "one")["roc_auc"][0] is None
    same(pmd.disparity(paths, "y", "s", **kw), expected)


def test_a_dask_frame_with_a_derived_group(tmp_path: Path) -> None:
    """``dd.read_parquet`` partitions (an empty one), the groups an expression."""
    import dask.dataframe as dd

    ddf = dd.read_parquet(_files(tmp_path, ROWS, CUTS))
    assert ddf.npartitions == len(CUTS) - 1
    kw: dict[str, Any] = {"by": (pl.col("s") > 0.45).alias("high"), "control": "g"}
    kw |= {"metric": ["roc_auc", "log_loss"], "weight": "w"}
    same(pmd.disparity(ddf, "y", "s", **kw), ROWS.metrics.disparity("y", "s", **kw))


def test_spark(spark: Any) -> None:
    """One Spark partition per partition of :data:`CUTS` (an empty one); KS and the
    Brier score, weighted, by stratum (the registry's engine law runs ROC AUC and the
    log loss on Spark; a Spark call costs seconds even on these rows)."""
    parts = [ROWS[a:b].rows() for a, b in itertools.pairwise(CUTS)]
    schema = spark.createDataFrame(ROWS.head(1).to_arrow()).schema
    slices = spark.sparkContext.parallelize(range(len(parts)), len(parts))
    sdf = spark.createDataFrame(slices.mapPartitionsWithIndex(lambda i, _: iter(parts[i])), schema)
    assert sdf.rdd.glom().map(len).collect() == [len(p) for p in parts]
    kw: dict[str, Any] = {"by": "g", "metric": ["ks", "brier_score"], "control": "c", "weight": "w"}
    same(pms.disparity(sdf, "y", "s", **kw), ROWS.metrics.disparity("y", "s", **kw))


def test_label_metrics_beside_score_metrics(tmp_path: Path) -> None:
    """Predictions of 0 / 1 read as scores and as labels: the label metrics from the
    merged counts state, the score metrics from their functions, one table."""
    frame = ROWS.with_columns(p=(pl.col("s") >= 0.5).cast(pl.Int64))
    paths = _files(tmp_path, frame, CUTS)
    for weight in (None, "w"):
        kw: dict[str, Any] = {"by": "g", "control": "c", "weight": weight}
        kw["metric"] = ["accuracy", "roc_auc", "f1", "false_positive_rate", "brier_score"]
        same(pmd.disparity(paths, "y", "p", **kw), frame.metrics.disparity("y", "p", **kw))


def test_stand_in_names_as_columns(tmp_path: Path) -> None:
    """Columns named as the frame method's stand-in keys (``segment0``...), the groups
    and strata crossed over them, a label column named ``count``."""
    frame = ROWS.rename({"g": "segment0", "c": "segment1", "y": "count"})
    frame = frame.with_columns(p=(pl.col("s") >= 0.5).cast(pl.Int64))
    paths = _files(tmp_path, frame, CUTS)
    for by, control in (("segment1", "segment0"), ("segment0", "segment1")):
        kw: dict[str, Any] = {"by": by, "control": control, "metric": ["ks", "gini", "accuracy"]}
        same(pmd.disparity(paths, "count", "p", **kw), frame.metrics.disparity("count", "p", **kw))


def test_no_rows(tmp_path: Path) -> None:
    paths = _files(tmp_path, ROWS.clear(), [0, 0, 0])
    for control in (None, "c"):
        kw: dict[str, Any] = {"by": "g", "control": control, "metric": SCORES}
        expected = ROWS.clear().metrics.disparity("y", "s", **kw)
        assert expected.height == 0
        same(pmd.disparity(paths, "y", "s", **kw), expected)


@pytest.mark.parametrize("metric", ["roc_auc", "gini", "average_precision"])
def test_the_bootstrap_of_one_ranked_metric(metric: str, tmp_path: Path) -> None:
    """Drawn from each group's merged per-score counts, as the frame method draws it
    from its own: the same intervals for a seed."""
    rng = np.random.default_rng(3)
    n = 120
    frame = pl.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "s": rng.random(n).round(1),
            "g": rng.choice(["a", "b", "c"], n),
            "c": rng.choice(["x", "y"], n),
        }
    )
    paths = _files(tmp_path, frame, [0, 10, 10, 70, n])
    for kw in ({}, {"control": "c", "method": "to_overall"}):
        kw |= {"metric": metric, "ci": 0.9, "n_boot": 60, "seed": 11}
        expected = frame.metrics.disparity("y", "s", by="g", **kw)
        assert expected["difference_low"].null_count() == 0
        same(pmd.disparity(paths, "y", "s", by="g", **kw), expected)


def test_the_point_estimates_never_make_the_per_score_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``ci`` each ranked metric comes from partitions of score ranges (the
    driver holds partitions x segments rows); with one ranked metric's ``ci``, the
    merged per-score state once, for the bootstrap."""
    made: list[object] = []
    init = state.ScoreCountsState.__init__

    def spy(self: Any, *args: Any, **kwargs: Any) -> None:
        made.append(kwargs.get("by"))
        init(self, *args, **kwargs)

    monkeypatch.setattr(state.ScoreCountsState, "__init__", spy)
    paths = _files(tmp_path, ROWS, CUTS)
    for weight in (None, "w"):
        pmd.disparity(paths, "y", "s", by="g", control="c", metric=SCORES, weight=weight)
    assert made == []
    pmd.disparity(paths, "y", "s", by="g", metric="roc_auc", ci=0.9, n_boot=20)
    assert made == [["segment0"]]


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        ({"metric": ["roc_auc", "ks"], "ci": 0.9}, r"\['roc_auc', 'ks'\] with `ci`"),
        ({"metric": "log_loss", "ci": 0.9}, r"\['log_loss'\] with `ci`"),
        ({"metric": ["roc_auc", "accuracy"], "ci": 0.9}, r"\['roc_auc'\] with `ci`"),
        ({"metric": {"hits": lambda t, p: 1.0}}, "custom metrics"),
    ],
)
def test_refused_before_any_job(
    options: dict[str, Any], refused: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What needs the rows (the bootstrap redrawing them, a callable of them): a
    NotImplementedError naming it, before any job."""
    from pl_metrics._engines import jobs

    def no_job(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a job was made")

    monkeypatch.setattr(jobs, "job", no_job)
    paths = _files(tmp_path, ROWS, CUTS)
    with pytest.raises(NotImplementedError, match=f"pl_metrics engines: disparity of .*{refused}"):
        pmd.disparity(paths, "y", "s", by="g", **options)


def test_the_refusal_and_the_note_name_the_catalogue_s_score_metrics(tmp_path: Path) -> None:
    """The score metrics and those whose ``ci`` the engines draw, as the refusal and
    the engines' docstring name them, are the catalogue's: those of scores that
    ``disparity`` takes, of them those ranked by an AUC or an AP (one of them alone is
    drawn from the per-score counts: test_the_bootstrap_of_one_ranked_metric)."""
    scored = [name for name, m in CATALOGUE.items() if m.compare and m.scores]
    assert scored == SCORES
    ranked = [n for n in scored if CATALOGUE[n].ranked in (Ranked.AUC, Ranked.AP)]
    assert ranked == ["roc_auc", "gini", "average_precision"]
    with pytest.raises(NotImplementedError) as refused:
        pmd.disparity(_files(tmp_path, ROWS, CUTS), "y", "s", by="g", metric="ks", ci=0.9)
    assert f"({', '.join(ranked[:-1])} or {ranked[-1]} alone take it:" in str(refused.value)
    note = " ".join(str(pmd.disparity.__doc__).split())
    assert f"the score metrics ({', '.join(f'``{m}``' for m in scored)})" in note
    assert f"takes one ``{ranked[0]}``, ``{ranked[1]}`` or ``{ranked[2]}``, drawn" in note


def test_bad_scores_are_counted_over_all_partitions(tmp_path: Path) -> None:
    """A NaN score in two partitions: the frame method's DataError kind, the rows
    counted over both."""
    frame = ROWS.with_columns(
        s=pl.when(pl.int_range(pl.len()).is_in([1, 9])).then(float("nan")).otherwise("s")
    )
    paths = _files(tmp_path, frame, CUTS)
    # roc_auc's check ("... has 2 null, NaN or infinite rows") or log_loss's ("... has
    # 2 null, NaN, infinite or out-of-[0, 1] probabilities"), whichever metric's rows
    # are checked first (at polars 2.0 the engine met log_loss's first)
    message = r"column 's' (\(argument `y_score`\) )?has 2 null, NaN"
    with pytest.raises(exceptions.DataError, match=message):
        frame.metrics.disparity("y", "s", by="g", metric=["roc_auc", "log_loss"])
    with pytest.raises(exceptions.DataError, match=message):
        pmd.disparity(paths, "y", "s", by="g", metric=["roc_auc", "log_loss"])


@st.composite
def _drawn(draw: st.DrawFn) -> tuple[pl.DataFrame, list[int]]:
    """Binary rows with tied scores (one or two decimals), groups (a null one, some
    of one class), strata, weights (zero ones too); cuts into files."""
    n = draw(st.integers(1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    decimals = draw(st.sampled_from([1, 2]))
    weights = rng.random(n) * 10
    weights[rng.random(n) < 0.1] = 0.0
    frame = pl.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "s": np.round(rng.random(n), decimals),
            "g": pl.Series([("a", "b", "c", None)[k] for k in rng.integers(0, 4, n)]),
            "c": rng.choice(["x", "y"], n),
            "w": weights,
        }
    )
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    return frame, [0, *cuts, n]


@settings(
    max_examples=12,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # an example costs seconds
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    drawn=_drawn(),
    metrics=st.lists(st.sampled_from(SCORES), min_size=1, max_size=3, unique=True),
    method=st.sampled_from(["between_groups", "to_overall"]),
    weight=st.sampled_from([None, "w"]),
    control=st.sampled_from([None, "c"]),
)
def test_hypothesis_equal_to_the_frame_method(
    drawn: tuple[pl.DataFrame, list[int]],
    metrics: list[str],
    method: str,
    weight: str | None,
    control: str | None,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Any rows cut anywhere (empty files included): the frame method's table, or its
    error's kind (no positive row at all, say)."""
    frame, cuts = drawn
    paths = _files(tmp_path_factory.mktemp("parts"), frame, cuts)
    kw: dict[str, Any] = {"by": "g", "metric": metrics, "method": method}
    kw |= {"weight": weight, "control": control}
    try:
        expected = frame.metrics.disparity("y", "s", **kw)
    except exceptions.DataError:
        with pytest.raises(exceptions.DataError):
            pmd.disparity(paths, "y", "s", **kw)
        return
    same(pmd.disparity(paths, "y", "s", **kw), expected)
