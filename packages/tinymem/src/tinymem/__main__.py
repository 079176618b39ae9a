"""``python -m tinymem``: the console script."""

from tinymem.cli import main

raise SystemExit(main())
