import sys

from video_brain_rsa.cli import main

sys.exit(main())
