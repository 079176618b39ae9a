import sys

from allam.cli import main

sys.exit(main())
