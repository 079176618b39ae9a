import sys

from tta_attack.cli import main

sys.exit(main())
