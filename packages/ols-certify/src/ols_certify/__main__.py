import sys

from ols_certify.cli import main

sys.exit(main())
