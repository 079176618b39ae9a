"""The README's Python example runs (on shorter sweeps) and gives what it says."""

from __future__ import annotations

from pathlib import Path

from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs():
    # as written but with 30 frames a sweep (the data set's 110 cost most of the test's CPU time)
    sweeps = "make_synthetic_sweeps(30, seed=0)"
    ns = run_readme(README, blocks=1, edit=lambda b: b.replace(sweeps, sweeps[:-1] + ", frames=30)"))
    assert 0.0 <= ns["acc"] <= 1.0
    assert ns["res"]["identical_fraction"] == 1.0
    assert ns["model"].n == 213
