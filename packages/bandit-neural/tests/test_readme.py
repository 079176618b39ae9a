"""The README's Python examples run as written and give what they say."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    namespace = run_readme(README, blocks=2)
    log, blog = namespace["log"], namespace["blog"]
    assert log.regret.shape == (60,) and np.all(log.regret >= 0)
    assert log.total == pytest.approx(np.cumsum(log.regret)[-1], rel=1e-12)
    assert namespace["algo"].data.n == int(namespace["i"] != namespace["j"])
    assert namespace["width"] >= 0
    assert blog.regret.shape == (40,)
