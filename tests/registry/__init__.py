"""The invariance registry: every public method, and the laws each must obey.

Each entry of :data:`METHODS` calls one ``.metrics`` method (or a state finisher,
or an expression) on a frame whose columns are named by a :class:`Cols`
(``entries.py``).  The ``test_*`` modules of this package run *every* entry
through the same invariances:

- the rows in another order give the same frame;
- labels renamed (``0/1/2`` -> strings, ``pos_label`` with them) give the same
  numbers, with the label columns renamed;
- eager = lazy (streaming) = lazy (in-memory) = ``scan_parquet`` over three
  files = the merged states of three shards (where a state exists);
- rows of weight 0 (holding labels, scores and segments seen nowhere else) are
  the rows removed; integer weights are the rows repeated;
- a ``by`` column may have any name: the method's own output columns are refused
  ("collides"), every other name (internal-looking ones included) is a segment;
- bad input (missing column, null label, negative weight, NaN score) is the
  documented error, naming the column, on every path.

- every ``pl-metrics`` command equals its frame method on the same files, and
  bad input is one line on stderr (exit 2) naming the column;
- every chart draws one segment per ``by`` key (null included) whatever the row
  order, and refuses a frame whose segment column it was not told about.

A completeness test fails when a public method, finisher, expression, command or
chart is added without an entry in ``entries.py``.  Numbers themselves are
checked against scikit-learn in the per-domain test files (``tests/test_oracle_map.py``
names them); this package checks that every path gives the *same* number.
"""
