"""The README's Python example runs as written and gives what it says."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) == 1
    ns: dict = {}
    exec(compile(blocks[0], str(README), "exec"), ns)
    assert 0.0 <= ns["acc"] <= 1.0
    assert ns["res"]["identical_fraction"] == 1.0
    assert ns["model"].n == 213
