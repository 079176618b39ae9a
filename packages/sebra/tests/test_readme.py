"""The README's example runs as written (at a smaller data size) and its numbers mean what it says."""

from __future__ import annotations

from pathlib import Path

from shared_testing.readme import run_readme

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs():
    ns = run_readme(
        README, blocks=1, edit=lambda b: b.replace("(2000, 400, 1000, seed=0)", "(32, 8, 8, seed=0)")
    )
    assert ns["rank"].ranks.shape == (32,) and int(ns["rank"].ranks.min()) >= 1
    assert ns["fit"].val_proba.shape == (8, 2)
