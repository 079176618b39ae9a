"""Public names of a package imported on first use (PEP 562), so that its console script starts fast."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Args:
        package: the package's import name (pass ``__name__`` from its ``__init__``).
        where: public name -> the submodule that defines it, relative to ``package``
            (``{"Config": "reproduce", "SAC": "agents.sac"}``).

    The first access to ``package.<name>`` imports ``package.<where[name]>`` and stores the value in the
    package's namespace, so later lookups are plain attribute reads. Keep an ``if TYPE_CHECKING:`` block
    with the same imports beside the call: type checkers read that, not this table::

        __getattr__, __dir__ = paperkit.lazy_exports(__name__, {"Config": "reproduce"})
    """
    table = dict(where)

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
