"""The README's Python example runs as written and gives what it says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"

pytestmark = pytest.mark.usefixtures("torch_one_thread")


def test_readme_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) == 1
    namespace: dict = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    assert 0.9 < namespace["eps"] <= 1.0
    assert namespace["opt"].steps == 50 and namespace["opt"].gradients_per_step == 2
