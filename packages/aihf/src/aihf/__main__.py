import sys

from aihf.cli import main

sys.exit(main())
