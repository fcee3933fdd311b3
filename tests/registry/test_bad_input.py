"""Bad input is the documented error, naming the argument and the column, on every
path (the registry's bad-input table: :data:`BAD`); an absent ``pos_label`` too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

import pl_metrics as plm
from registry.bad import BAD
from registry.entries import (
    DATA,
    METHODS,
    Cols,
    Entry,
    run,
)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("entry", "case", "spoil", "error", "match"), BAD)
def test_bad_input_is_the_documented_error_on_every_path(
    entry: Entry, case: str, spoil: Callable, error: type, match: str, tmp_path: Path
) -> None:
    c = Cols(w="w") if entry.weighted else Cols()
    bad = spoil(DATA)
    with pytest.raises(error, match=match):
        run(entry, bad, c)
    for engine in ("streaming", "in-memory"):
        with pytest.raises(error, match=match):
            entry.call(bad.lazy().metrics, c).collect(engine=engine)
    bad.write_parquet(tmp_path / "bad.parquet")
    with pytest.raises(error, match=match):
        entry.call(pl.scan_parquet(tmp_path / "bad.parquet").metrics, c).collect()


#: The entries that read ``pos_label`` (Cols.pos), but for the state of one shard:
#: ``score_counts`` does not check presence (documented; its finisher does).
POS_LABEL = [e for e in METHODS if "binary" in e.reads[0] and e.name != "score_counts"]


@pytest.mark.parametrize("entry", POS_LABEL, ids=[e.name for e in POS_LABEL])
def test_absent_pos_label_is_an_error_on_every_path(entry: Entry) -> None:
    c = Cols(w="w" if entry.weighted else None, pos=7)  # 7 is in no label column
    with pytest.raises(plm.DataError, match="pos_label"):
        run(entry, DATA, c)
    with pytest.raises(plm.DataError, match="pos_label"):
        entry.call(DATA.lazy().metrics, c).collect(engine="streaming")
