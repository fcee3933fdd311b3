"""The charts' check that a frame holds one curve per segment reads the library's
curves in one pass (their segments' rows together, the threshold strictly
monotonic), and hashes any other frame: the same answer either way."""

from __future__ import annotations

import polars as pl
import pytest

from pl_metrics.plot._base import _repeats


@pytest.mark.parametrize(
    ("frame", "names", "repeats"),
    [
        (pl.DataFrame({"g": ["a", "a", "b", "b"], "t": [3.0, 2.0, 5.0, 4.0]}), ["g"], False),
        # segment a in two runs, no threshold twice within it: hashed, no repeat
        (
            pl.DataFrame({"g": ["a", "a", "b", "b", "a"], "t": [3.0, 2.0, 5.0, 4.0, 1.0]}),
            ["g"],
            False,
        ),
        # ... and with 2.0 twice in a
        (
            pl.DataFrame({"g": ["a", "a", "b", "b", "a"], "t": [3.0, 2.0, 5.0, 4.0, 2.0]}),
            ["g"],
            True,
        ),
        (pl.DataFrame({"g": ["a", "a", "b"], "t": [3.0, 3.0, 5.0]}), ["g"], True),
        (pl.DataFrame({"t": [float("inf"), 3.0, 1.0]}), [], False),
        (pl.DataFrame({"t": [1.0, 2.0, 2.5]}), [], False),  # ascending
        (pl.DataFrame({"t": [1.0, None, None]}), [], True),  # nulls: hashed
        (pl.DataFrame({"t": [float("nan"), float("nan")]}), [], True),
        (pl.DataFrame({"label": ["x", "y", "z"]}), [], False),  # text
        (pl.DataFrame({"t": [2.0, 1.0, 3.0]}), [], False),  # neither way: hashed
        (pl.DataFrame({"t": [2.0, 1.0, 2.0]}), [], True),
        (pl.DataFrame({"t": []}, schema={"t": pl.Float64}), [], False),
    ],
)
def test_repeats_are_found_either_way(frame: pl.DataFrame, names: list[str], repeats: bool) -> None:
    point = [frame.columns[-1]]
    hashed = frame.select(pl.struct(*names, *point).is_duplicated().any()).item()
    assert bool(hashed) is repeats  # the definition
    assert _repeats(frame, names, point) is repeats
