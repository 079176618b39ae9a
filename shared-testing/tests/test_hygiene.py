import sys
import textwrap
from pathlib import Path

import pytest
from shared_testing import hygiene

INIT = """
from typing import TYPE_CHECKING

import paperkit

if TYPE_CHECKING:
    from toyhyg.core import solve
    from toyhyg.core import extra_in_block
    from .other import moved

__getattr__, __dir__, __all__ = paperkit.public_api(
    __name__, {"solve": "core", "missing": "core", "moved": "core"}
)
from toyhyg import reproduce as _r  # the experiment, imported by the root
"""


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A package ``toyhyg`` (src layout, with tests/) that breaks every rule once."""
    src = tmp_path / "src" / "toyhyg"
    (src / "sub").mkdir(parents=True)
    files = {
        "__init__.py": INIT,
        "core.py": "def solve():\n    return 1\n\n\ndef _kernel():\n    return 2\n\n\nmissing = 3\n"
        "moved = 4\n",
        "_linalg.py": "def helper():\n    return 0\n\n\ndef _tiny():\n    return 0\n",
        "other.py": "moved = 5\n",
        "reproduce.py": "Config = object\n",
        # violations: a relative and an absolute underscore import, and attribute use on a module
        "user.py": (
            "from .core import _kernel\nfrom toyhyg.core import solve, __doc__\nfrom . import core\n"
            "from toyhyg._linalg import helper\nimport toyhyg.core as tc\nimport os\n\n\n"
            "def f():\n    return _kernel() + core._kernel() + tc._kernel() + os._exit.__name__.__len__()\n"
        ),
        "sub/__init__.py": "",
        "sub/deep.py": "from .._linalg import _tiny\nfrom ..core import solve\n\n\nclass A:\n    _x = 1\n\n"
        "    def g(self):\n        return self._x\n",
    }
    for name, text in files.items():
        (src / name).write_text(textwrap.dedent(text))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_toy.py").write_text("from toyhyg.core import _kernel\nimport toyhyg\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    yield
    for name in [m for m in sys.modules if m == "toyhyg" or m.startswith("toyhyg.")]:
        del sys.modules[name]


def test_underscore_names_across_modules_are_found(toy: None) -> None:
    assert hygiene.underscore_violations("toyhyg") == [
        "src/toyhyg/sub/deep.py: imports _tiny from toyhyg._linalg",
        "src/toyhyg/user.py: imports _kernel from toyhyg.core",
        "src/toyhyg/user.py: uses toyhyg.core._kernel",
        "tests/test_toy.py: imports _kernel from toyhyg.core",
    ]


def test_root_importing_the_experiment_is_found(toy: None) -> None:
    found = hygiene.experiment_imports("toyhyg")
    assert found == [
        "src/toyhyg/__init__.py: the package root imports the experiment (toyhyg.reproduce, line 14)"
    ]


def test_public_table_is_compared_with_type_checking_imports(toy: None) -> None:
    assert hygiene.type_checking_imports("toyhyg") == {
        "solve": "core",
        "extra_in_block": "core",
        "moved": "other",
    }
    assert hygiene.public_table_violations("toyhyg") == [
        "src/toyhyg/__init__.py: extra_in_block is imported under TYPE_CHECKING but not in the public table",
        "src/toyhyg/__init__.py: missing is in the public table but not imported under TYPE_CHECKING",
        "src/toyhyg/__init__.py: moved is from 'core' in the table, 'other' under TYPE_CHECKING",
    ]
    assert len(hygiene.hygiene_violations("toyhyg")) == 8


def test_a_clean_package_has_no_violations() -> None:
    assert hygiene.hygiene_violations("shared_testing") == []
