"""Write the type stubs of the engine modules, pl_metrics/spark.pyi and dask.pyi.

Their functions are made at import (``pl_metrics/_engines/declared.py``), so a type
checker reads their signatures from these stubs::

    .venv/bin/python tools/engine_stubs.py

``tests/registry/test_engines.py`` checks the stubs are current.
"""

from __future__ import annotations

from pathlib import Path

import pl_metrics.dask
import pl_metrics.spark
from pl_metrics._engines.declared import stub


def main() -> None:
    for module in (pl_metrics.spark, pl_metrics.dask):
        path = Path(module.__file__ or "").with_suffix(".pyi")
        path.write_text(stub(module._ENGINE))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
