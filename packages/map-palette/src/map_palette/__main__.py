import sys

from map_palette.cli import main

sys.exit(main())
