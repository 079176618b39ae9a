import sys

from rslqr.cli import main

sys.exit(main())
