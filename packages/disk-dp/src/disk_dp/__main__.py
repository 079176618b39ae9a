import sys

from disk_dp.cli import main

if __name__ == "__main__":
    sys.exit(main())
