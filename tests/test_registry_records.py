"""No metric is chosen by comparing its name outside the registry (issue 50, point 1).

What a metric does differently (which sorted-state statistic it is, whether it is
a share of all the rows, which paired test it has, how its summary interval is
built...) is a field of its record in ``pl_metrics/_core/catalogue.py`` (or of its
``formulas.SCORES`` entry), and the code reads the record: a new metric is then an
entry, not a hunt for every ``if metric == "accuracy"``.  This walks the library's
syntax trees for a comparison (``==``, ``!=``, ``in``, ``not in``, ``is``) or a
``match`` case whose constant is a metric's name (``plm.metric_names()``, and the
per-class scores' names).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pl_metrics._core import catalogue, formulas

ROOT = Path(__file__).resolve().parents[1] / "pl_metrics"
#: The registry itself: where a metric's name is declared, and its record built.
REGISTRY = {"_core/catalogue.py"}
#: Files whose comparisons are being moved into the record by another change in
#: flight (remove a file here once its comparisons are gone).
PENDING: set[str] = set()
#: Every name a call takes a metric by, and the per-class scores (``f1``, ``fbeta``).
NAMES = (
    frozenset(catalogue.metric_names())
    | {formulas.score_name(k) for k in formulas.SCORES}
    | {"fbeta"}
)


def _constants(node: ast.AST) -> list[str]:
    """The string constants of ``node``: itself, or the elements of a literal
    tuple / list / set."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [c for e in node.elts for c in _constants(e)]
    return []


def _comparisons(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, name)`` of each metric name compared (or matched)."""
    found = []
    for node in ast.walk(tree):
        operands: list[ast.expr] = []
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, sides, sides[1:], strict=False):
                if isinstance(op, (ast.In, ast.NotIn)):
                    # ``x in ("mcc", ...)`` chooses by name; ``"mcc" in asked`` asks
                    # whether a caller's list holds the metric whose column follows
                    operands.append(right)
                else:
                    operands += [left, right]
        elif isinstance(node, ast.MatchValue):
            operands = [node.value]
        found += [(o.lineno, c) for o in operands for c in _constants(o) if c in NAMES]
    return found


def _files() -> list[Path]:
    return sorted(
        p for p in ROOT.rglob("*.py") if str(p.relative_to(ROOT)) not in REGISTRY | PENDING
    )


def test_the_names_are_the_catalogues() -> None:
    assert {"accuracy", "roc_auc", "average_precision", "f1", "mcc", "specificity"} <= NAMES


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_metric_name_is_compared_outside_the_registry(path: Path) -> None:
    found = _comparisons(ast.parse(path.read_text(encoding="utf-8")))
    assert found == [], (
        f"{path.relative_to(ROOT)} chooses by a metric's name at (line, name) {found}: "
        "give the metric's record in _core/catalogue.py the field that carries the "
        "behaviour, and read it here"
    )


def test_the_per_row_loss_of_each_loss_is_its_records() -> None:
    """over_time's losses (log loss, Brier score) are each the (weighted) mean of the
    per-row loss their record names (``row_loss``): the frame method's buckets average
    it and the engines' loss state sums it, each by the loss, never by the metric."""
    from pl_metrics._engines import losses
    from pl_metrics._groups import over_time

    probability = catalogue.names_of("probability", over_time=True)
    assert set(probability) == {"log_loss", "brier_score"}
    rows = {m: over_time.row_loss(m) for m in probability}
    assert rows == {"log_loss": catalogue.RowLoss.LOG, "brier_score": catalogue.RowLoss.BRIER}
    assert set(losses.SUMMED) == set(over_time.ROW_LOSSES) == set(catalogue.RowLoss)
    assert losses.SUMMED[catalogue.RowLoss.LOG] == losses.LOG_LOSS
    assert losses.SUMMED[catalogue.RowLoss.BRIER] == losses.BRIER


def test_the_walk_finds_each_spelling() -> None:
    source = (
        'if m == "accuracy": pass\n'
        'if m in ("mcc", "cohen_kappa"): pass\n'
        'x = [m for m in names if m != "roc_auc"]\n'
        'match m:\n    case "f1": pass\n'
        'if m == "threshold": pass\n'
        'if "mcc" in asked: pass\n'
    )
    lines = sorted({line for line, _ in _comparisons(ast.parse(source))})
    assert lines == [1, 2, 3, 5]
