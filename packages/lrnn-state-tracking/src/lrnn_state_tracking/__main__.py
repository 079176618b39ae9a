import sys

from lrnn_state_tracking.cli import main

if __name__ == "__main__":
    sys.exit(main())
