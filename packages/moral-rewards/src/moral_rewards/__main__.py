import sys

from moral_rewards.cli import main

sys.exit(main())
