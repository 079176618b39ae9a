import sys

from barrel_snn.cli import main

if __name__ == "__main__":
    sys.exit(main())
