"""``python -m lpca_metric_embed``: the console script."""

import sys

from lpca_metric_embed.cli import main

sys.exit(main())
