import sys

from sebra.cli import main

sys.exit(main())
