"""The README's Python examples run as written and give what they say (slow: a search and N = 10^5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_testing import run_readme

pytestmark = pytest.mark.usefixtures("torch_one_thread")

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.slow
def test_readme_examples_run():
    namespace = run_readme(README, blocks=2)
    res = namespace["res"]
    assert res.eed is not None and res.eed <= 16 and res.best.X.shape == (34, res.eed)
    assert namespace["m"].n_wrong == 0 and namespace["m"].missed.shape == (0, 2)
