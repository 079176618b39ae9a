import sys

from arat.cli import main

sys.exit(main())
