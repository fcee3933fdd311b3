"""Multilabel input (both forms) and the set-based metrics, against scikit-learn."""

from __future__ import annotations

import polars as pl
import pytest
from polars.exceptions import ColumnNotFoundError, SchemaError

import pl_metrics as plm
from pl_metrics._multilabel import inputs as mi

LISTS = pl.DataFrame(
    {
        "t": [["a", "b"], [], ["c"], ["b"]],
        "p": [["b"], ["c"], [], ["a", "b", "c"]],
        "g": [1, 1, 2, 2],
        "w": [1.0, 2.0, 0.0, 3.0],
    }
)


def _indicators(df: pl.DataFrame, column: str, labels: list[str], prefix: str) -> pl.DataFrame:
    return df.with_columns(
        pl.col(column).list.contains(pl.lit(x)).cast(pl.Int64).alias(f"{prefix}{x}") for x in labels
    )


def _rows(ml: mi.Multilabel) -> pl.DataFrame:
    agg = ml.rows.group_by(ml.group_keys or [pl.lit(0).alias("k")]).agg(ml.check_aggs())
    ml.raise_if_bad(agg).collect()
    return ml.rows.select(mi.TRUE, mi.PRED).collect()


# ------------------------------------------------------------------------------ inputs
def test_inputs_both_forms_give_the_same_sets() -> None:
    df = _indicators(_indicators(LISTS, "t", ["a", "b", "c"], "t_"), "p", ["a", "b", "c"], "p_")
    lists = mi.multilabel_input(df.lazy(), "t", "p", by=None, labels=None, weight=None, reserved=())
    tmap = {x: f"t_{x}" for x in "cab"}
    pmap = {x: f"p_{x}" for x in "abc"}
    maps = mi.multilabel_input(
        df.lazy(), tmap, pmap, by=None, labels=None, weight=None, reserved=()
    )
    sort = [pl.col(c).list.sort() for c in (mi.TRUE, mi.PRED)]
    assert _rows(lists).select(sort).equals(_rows(maps).select(sort))
    assert lists.label_set().collect()["label"].to_list() == ["a", "b", "c"]
    assert maps.label_set().collect()["label"].to_list() == ["a", "b", "c"]
    assert maps.labels is not None
    assert maps.labels.to_list() == ["a", "b", "c"]


def test_inputs_labels_restrict_the_sets_in_their_order() -> None:
    ml = mi.multilabel_input(
        LISTS.lazy(), "t", "p", by=None, labels=["c", "b", "z"], weight=None, reserved=()
    )
    assert ml.label_set().collect()["label"].to_list() == ["c", "b", "z"]
    rows = _rows(ml)
    assert rows[mi.TRUE].to_list() == [["b"], [], ["c"], ["b"]]
    assert rows[mi.PRED].to_list() == [["b"], ["c"], [], ["b", "c"]]


@pytest.mark.parametrize(
    ("t", "message"),
    [
        ([["a", "a"], ["b"]], "1 rows listing a label more than once"),
        ([None, ["b"]], "1 null rows"),
        ([["a", None], ["b"]], "1 rows whose list holds a null label"),
    ],
)
def test_inputs_bad_lists_are_data_errors(t: list[object], message: str) -> None:
    df = pl.DataFrame(
        {"t": t, "p": [["a"], []]}, schema={"t": pl.List(pl.String), "p": pl.List(pl.String)}
    )
    ml = mi.multilabel_input(df.lazy(), "t", "p", by=None, labels=None, weight=None, reserved=())
    with pytest.raises(plm.DataError, match=message):
        _rows(ml)


def test_inputs_bad_indicators_and_schemas() -> None:
    df = pl.DataFrame(
        {"ta": [0, 2], "tb": [True, None], "pa": [1, 0], "pb": [0.0, 1.0], "l": [[1], [2]]}
    )
    ml = mi.multilabel_input(
        df.lazy(), {"a": "ta"}, {"a": "pa"}, by=None, labels=None, weight=None, reserved=()
    )
    with pytest.raises(plm.DataError, match=r"'ta' .* 1 rows that are not 0/1"):
        _rows(ml)
    ml = mi.multilabel_input(
        df.lazy(), {"b": "tb"}, {"b": "pa"}, by=None, labels=None, weight=None, reserved=()
    )
    with pytest.raises(plm.DataError, match=r"'tb' .* 1 rows"):
        _rows(ml)
    with pytest.raises(SchemaError, match=r"'pb' .* must be Boolean or 0/1 integers"):
        mi.multilabel_input(
            df.lazy(), {"b": "tb"}, {"b": "pb"}, by=None, labels=None, weight=None, reserved=()
        )
    with pytest.raises(ValueError, match="same labels"):
        mi.multilabel_input(
            df.lazy(), {"a": "ta"}, {"b": "pa"}, by=None, labels=None, weight=None, reserved=()
        )
    with pytest.raises(TypeError, match="same multilabel form"):
        mi.multilabel_input(
            df.lazy(), {"a": "ta"}, "l", by=None, labels=None, weight=None, reserved=()
        )
    with pytest.raises(SchemaError, match=r"'ta' .* must be a List column"):
        mi.multilabel_input(df.lazy(), "l", "ta", by=None, labels=None, weight=None, reserved=())
    with pytest.raises(ColumnNotFoundError, match="'nope'"):
        mi.multilabel_input(
            df.lazy(), {"a": "nope"}, {"a": "pa"}, by=None, labels=None, weight=None, reserved=()
        )
    with pytest.raises(ValueError, match=r"`labels` \['z'\] are not labels"):
        mi.multilabel_input(
            df.lazy(), {"a": "ta"}, {"a": "pa"}, by=None, labels=["z"], weight=None, reserved=()
        )
    strings = pl.DataFrame({"s": [["x"]], "l": [[1]]})
    with pytest.raises(SchemaError, match="incompatible"):
        mi.multilabel_input(
            strings.lazy(), "s", "l", by=None, labels=None, weight=None, reserved=()
        )


def test_inputs_float_labels_must_be_whole_numbers() -> None:
    df = pl.DataFrame({"t": [[1.0, -0.0], [0.5]], "p": [[0.0], [1.0]]})
    ml = mi.multilabel_input(df.lazy(), "t", "p", by=None, labels=None, weight=None, reserved=())
    with pytest.raises(plm.DataError, match="1 rows that are not class labels"):
        _rows(ml)


def test_inputs_weights_drop_zero_rows_and_check_the_rest() -> None:
    ml = mi.multilabel_input(LISTS.lazy(), "t", "p", by="g", labels=None, weight="w", reserved=())
    assert _rows(ml).height == 3
    bad = LISTS.with_columns(w=pl.Series([1.0, -1.0, None, 1.0]))
    ml = mi.multilabel_input(bad.lazy(), "t", "p", by="g", labels=None, weight="w", reserved=())
    with pytest.raises(plm.DataError, match="2 rows with a null, NaN"):
        _rows(ml)
