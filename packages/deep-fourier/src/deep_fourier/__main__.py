"""``python -m deep_fourier``: the console script."""

import sys

from deep_fourier.cli import main

sys.exit(main())
