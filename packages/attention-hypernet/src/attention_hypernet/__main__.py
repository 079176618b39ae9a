import sys

from attention_hypernet.cli import main

sys.exit(main())
