import sys

from compositional_dnn.cli import main

sys.exit(main())
