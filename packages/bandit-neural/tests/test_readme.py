"""The README's Python examples run as written and give what they say."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) == 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    log, blog = namespace["log"], namespace["blog"]
    assert log.regret.shape == (60,) and np.all(log.regret >= 0)
    assert log.total == pytest.approx(np.cumsum(log.regret)[-1], rel=1e-12)
    assert namespace["algo"].data.n == int(namespace["i"] != namespace["j"])
    assert namespace["width"] >= 0
    assert blog.regret.shape == (40,)
