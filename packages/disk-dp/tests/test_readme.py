"""The README's Python example runs as written and gives what it says."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"

pytestmark = pytest.mark.usefixtures("torch_one_thread")


def test_readme_example_runs():
    namespace = run_readme(README, blocks=1)
    assert 0.9 < namespace["eps"] <= 1.0
    assert namespace["opt"].steps == 50 and namespace["opt"].gradients_per_step == 2
