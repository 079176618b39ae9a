import sys

from bandit_neural.cli import main

if __name__ == "__main__":  # guarded: spawned worker processes import the parent's main module
    sys.exit(main())
