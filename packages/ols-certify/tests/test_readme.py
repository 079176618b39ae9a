"""The README's Python examples run as written and give what they say."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) == 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["cert"].k_lb == 30  # as the comment in the README says
    res = namespace["res"]
    assert res.certificate.k_lb == 15  # the table's diabetes bmi row
    assert "k_LB = 15" in res.summary()
    assert namespace["fig"].axes[0].get_legend() is not None
