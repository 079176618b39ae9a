import sys

from multitp.cli import main

sys.exit(main())
