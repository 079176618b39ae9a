import sys

from plnl.cli import main

sys.exit(main())
