"""The README's Python example runs (at a smaller data scale and fewer epochs) and gives an edited copy."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest
import torch

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.slow  # ~5-9 s: trains and unlearns a model; the API it uses is covered by the fast tests
def test_readme_example_runs():
    (block,) = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    small = "tm.DataConfig(n_main=60, n_extra=10, n_test=10, n_noise=8, max_ctx=48, n_ft_extra=4)"
    code = block.replace("tm.DataConfig()", small).replace("epochs=40", "epochs=2")
    assert code != block
    ns: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, str(README), "exec"), ns)
    assert 0.0 <= ns["mem"].percent_memorized <= 100.0
    assert isinstance(ns["edited"], torch.nn.Module) and ns["edited"] is not ns["model"]
