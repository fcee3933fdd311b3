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
        # a PR curve: each segment ends with a null threshold (recall 0): one pass
        (
            pl.DataFrame({"g": ["a", "a", "a", "b", "b"], "t": [0.9, 0.5, None, 0.7, None]}),
            ["g"],
            False,
        ),
        (pl.DataFrame({"g": ["a", "a", "a"], "t": [0.9, None, 0.5]}), ["g"], False),  # hashed
        (pl.DataFrame({"g": ["a", "a", "a"], "t": [0.9, None, None]}), ["g"], True),
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


def test_a_pr_curve_is_read_in_one_pass() -> None:
    """The library's PR curve (a null threshold closing each segment) takes the one
    pass, not the hash (the review found every PR chart hashed)."""
    import numpy as np

    import pl_metrics  # noqa: F401 - registers .metrics
    from pl_metrics.plot import _base

    rng = np.random.default_rng(1)
    n = 500
    frame = pl.DataFrame(
        {"y": rng.integers(0, 2, n), "s": rng.random(n), "g": rng.integers(0, 3, n)}
    )
    curve = frame.metrics.pr_curve("y", "s", by="g")
    assert curve["threshold"].null_count() == 3
    hashed = []
    original = pl.DataFrame.select

    def spy(self: pl.DataFrame, *args: object, **kwargs: object) -> pl.DataFrame:
        if any("is_duplicated" in str(a) for a in args):
            hashed.append(True)
        return original(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pl.DataFrame, "select", spy)
        assert _base._repeats(curve, ["g"], ["threshold"]) is False
    assert not hashed
