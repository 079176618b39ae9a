"""Run a package README's Python examples as written, so that a test can check what they claim."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

_PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def readme_python_blocks(readme: Path | str) -> list[str]:
    """The README's fenced ```` ```python ```` blocks, in order."""
    return _PYTHON_BLOCK.findall(Path(readme).read_text())


def run_readme(
    readme: Path | str, *, blocks: int, edit: Callable[[str], str] | None = None
) -> dict[str, Any]:
    """Execute the README's ``blocks`` Python blocks in order in one namespace and return it.

    ``edit`` rewrites each block before it runs (e.g. a smaller data scale for a fast test); it must change
    at least one block, so an example that drifted from the edit fails instead of running at full size.
    Tracebacks name the README, so a failing example points at the document.
    """
    found = readme_python_blocks(readme)
    assert len(found) == blocks, f"{readme}: {len(found)} python blocks, the test expects {blocks}"
    code = [edit(block) for block in found] if edit is not None else found
    assert edit is None or code != found, f"{readme}: the edit changed no python block"
    namespace: dict[str, Any] = {}
    for block in code:
        exec(compile(block, str(readme), "exec"), namespace)
    return namespace
