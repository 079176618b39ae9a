"""The README's Python examples run as written and give what they say."""

from __future__ import annotations

import math
from pathlib import Path

from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    namespace = run_readme(README, blocks=2)
    assert math.isfinite(float(namespace["loss"])) and namespace["extras"]["rewards"].shape == (2, 5)
    assert len(namespace["losses"]) == 5 and -1 <= namespace["tau"] <= 1
