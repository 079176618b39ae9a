"""The README's Python example runs as written and gives what it says."""

from __future__ import annotations

from pathlib import Path

from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs():
    ns = run_readme(README, blocks=1)
    assert 0.0 <= ns["acc"] <= 1.0
    assert ns["res"]["identical_fraction"] == 1.0
    assert ns["model"].n == 213
