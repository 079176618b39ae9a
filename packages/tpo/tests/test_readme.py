"""The README's Python examples run as written and give what they say."""

from __future__ import annotations

import math
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    assert math.isfinite(float(namespace["loss"])) and namespace["extras"]["rewards"].shape == (2, 5)
    assert len(namespace["losses"]) == 5 and -1 <= namespace["tau"] <= 1
