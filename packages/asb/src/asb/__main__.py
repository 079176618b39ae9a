import sys

from asb.cli import main

sys.exit(main())
