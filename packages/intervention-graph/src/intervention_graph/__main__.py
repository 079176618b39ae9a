import sys

from intervention_graph.cli import main

sys.exit(main())
