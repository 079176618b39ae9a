from pathlib import Path

import pytest
from shared_testing import readme_python_blocks, run_readme

DOC = """# pkg

```python
x = 2
```

Some prose and a shell block that must not run:

```bash
rm -rf /
```

```python
y = x * 21  # the second block sees the first block's names
```
"""


@pytest.fixture
def readme(tmp_path: Path) -> Path:
    path = tmp_path / "README.md"
    path.write_text(DOC)
    return path


def test_blocks_run_in_order_in_one_namespace(readme: Path) -> None:
    assert readme_python_blocks(readme) == [
        "x = 2\n",
        "y = x * 21  # the second block sees the first block's names\n",
    ]
    ns = run_readme(readme, blocks=2)
    assert ns["y"] == 42


def test_wrong_block_count_fails(readme: Path) -> None:
    with pytest.raises(AssertionError, match="2 python blocks, the test expects 1"):
        run_readme(readme, blocks=1)


def test_edit_rewrites_blocks_and_must_change_something(readme: Path) -> None:
    assert run_readme(readme, blocks=2, edit=lambda b: b.replace("x = 2", "x = 3"))["y"] == 63
    with pytest.raises(AssertionError, match="the edit changed no python block"):
        run_readme(readme, blocks=2, edit=lambda b: b.replace("nothing", "here"))


def test_a_failing_example_names_the_readme(readme: Path) -> None:
    readme.write_text("```python\n1 / 0\n```\n")
    with pytest.raises(ZeroDivisionError) as info:
        run_readme(readme, blocks=1)
    assert any(entry.path == readme for entry in info.traceback)
