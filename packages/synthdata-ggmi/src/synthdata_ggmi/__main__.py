import sys

from synthdata_ggmi.cli import main

sys.exit(main())
