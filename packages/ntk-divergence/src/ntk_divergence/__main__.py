import sys

from ntk_divergence.cli import main

sys.exit(main())
