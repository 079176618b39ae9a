"""The README's Python example runs (at a smaller data scale and fewer epochs) and gives an edited copy."""

from __future__ import annotations

import warnings
from pathlib import Path

import torch
from shared_testing import run_readme

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs():
    small = "tm.DataConfig(n_main=60, n_extra=10, n_test=10, n_noise=8, max_ctx=48, n_ft_extra=4)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ns = run_readme(
            README,
            blocks=1,
            edit=lambda b: b.replace("tm.DataConfig()", small).replace("epochs=40", "epochs=2"),
        )
    assert 0.0 <= ns["mem"].percent_memorized <= 100.0
    assert isinstance(ns["edited"], torch.nn.Module) and ns["edited"] is not ns["model"]
