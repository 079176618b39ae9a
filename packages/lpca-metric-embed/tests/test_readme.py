"""The README's Python examples run as written and give what they say (slow: a search and N = 10^5)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("torch_one_thread")

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.slow
def test_readme_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) == 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    res = namespace["res"]
    assert res.eed is not None and res.eed <= 16 and res.best.X.shape == (34, res.eed)
    assert namespace["m"].n_wrong == 0 and namespace["m"].missed.shape == (0, 2)
