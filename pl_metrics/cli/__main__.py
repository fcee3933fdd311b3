"""``python -m pl_metrics.cli``: the ``pl-metrics`` command."""

import sys

from pl_metrics.cli import main

sys.exit(main())
