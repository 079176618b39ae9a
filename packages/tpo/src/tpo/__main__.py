import sys

from tpo.cli import main

sys.exit(main())
