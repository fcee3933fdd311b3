"""``python -m pl_metrics``: the ``pl-metrics`` command (as ``python -m pl_metrics.cli``)."""

import sys

from pl_metrics.cli import main

sys.exit(main())
