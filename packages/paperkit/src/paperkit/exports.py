"""Public names of a package imported on first use (PEP 562), so that its console script starts fast.

A package's ``__init__`` writes its public names once, as one table name -> submodule, and derives the rest::

    PUBLIC = {"leqr_gains": "riccati", "LEQRSystem": "systems"}
    __getattr__, __dir__, __all__ = paperkit.public_api(__name__, PUBLIC)

    if TYPE_CHECKING:  # what type checkers read; shared-testing checks it equals PUBLIC exactly
        from rslqr.riccati import leqr_gains
        from rslqr.systems import LEQRSystem
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

_TABLES: dict[str, Mapping[str, str]] = {}  # package -> its registered table, read by public_table()


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
    table = _checked_table(package, where)

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


def _checked_table(package: str, where: Mapping[str, str]) -> Mapping[str, str]:
    if not isinstance(package, str) or not package:
        raise ValueError(f"package must be a non-empty module name, got {package!r}")
    table: dict[str, str] = {}
    for name, module in where.items():
        if not (isinstance(name, str) and name.isidentifier()):
            raise ValueError(f"public names must be identifiers, got {name!r}")
        if not (isinstance(module, str) and module and all(p.isidentifier() for p in module.split("."))):
            raise ValueError(f"{name!r} must map to a submodule path such as 'riccati', got {module!r}")
        table[name] = module
    frozen = MappingProxyType(table)
    _TABLES[package] = frozen
    return frozen


def public_api(
    package: str, where: Mapping[str, str], *, eager: tuple[str, ...] = ("__version__",)
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` of a package, all from one table name -> submodule.

    Args:
        package: the package's import name (``__name__``).
        where: public name -> submodule (relative to ``package``) that defines it; the names load on
            first use (see :func:`lazy_exports`).
        eager: names the ``__init__`` defines itself (``__version__``, a constant) that belong in
            ``__all__`` too.

    ``__all__`` is the sorted union of both. The table is registered, so that tests can read it back
    with :func:`public_table` and compare it with the ``if TYPE_CHECKING:`` imports.
    """
    getattr_, dir_ = lazy_exports(package, where)
    overlap = sorted(set(eager) & set(where))
    if overlap:
        raise ValueError(f"names {overlap} are both eager and lazy; list each in one place")
    return getattr_, dir_, sorted(set(where) | set(eager))


def public_table(package: str) -> Mapping[str, str]:
    """The table name -> submodule that ``package`` registered through :func:`public_api` or
    :func:`lazy_exports` (imports the package first); empty when it registered none."""
    importlib.import_module(package)
    return _TABLES.get(package, MappingProxyType({}))
