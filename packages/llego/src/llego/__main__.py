import sys

from llego.cli import main

sys.exit(main())
