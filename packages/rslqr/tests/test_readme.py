"""The README's Python examples run as written and give what they say."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    namespace = run_readme(README, blocks=2)
    assert namespace["curves"].shape == (3, 1024)
    assert namespace["log"].regret.shape == (256,)
    assert np.all(namespace["log"].regret >= -1e-10)
    assert namespace["K"].shape == (10, 1, 2) and np.isfinite(namespace["J"])
