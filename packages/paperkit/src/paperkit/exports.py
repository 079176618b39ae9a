"""Public names of a package imported on first use (PEP 562), so that its console script starts fast.

A package's ``__init__`` writes its public names once, as the imports type checkers read, and derives
the lazy table, ``__getattr__``, ``__dir__`` and ``__all__`` from them::

    from typing import TYPE_CHECKING

    import paperkit

    if TYPE_CHECKING:  # the one list of public names: type checkers read it, public_api parses it
        from mypkg.core import solve
        from mypkg.systems import System

    __getattr__, __dir__, __all__ = paperkit.public_api(__name__)

The ``if TYPE_CHECKING:`` block never runs; :func:`type_checking_table` reads it from the package's
source with ``ast`` (about a millisecond), so nothing is imported before first use.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
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
    package: str, where: Mapping[str, str] | None = None, *, eager: tuple[str, ...] = ("__version__",)
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` of a package, all from one list of public names.

    Args:
        package: the package's import name (``__name__``).
        where: public name -> submodule (relative to ``package``) that defines it. ``None`` (the usual
            call) derives it from the ``if TYPE_CHECKING:`` imports of the package's ``__init__`` with
            :func:`type_checking_table`, so the names are written once. The names load on first use
            (see :func:`lazy_exports`).
        eager: names the ``__init__`` defines itself (``__version__``, a constant) that belong in
            ``__all__`` too.

    ``__all__`` is the sorted union of both. The table is registered, so that tests can read it back
    with :func:`public_table`.
    """
    table = type_checking_table(package) if where is None else where
    getattr_, dir_ = lazy_exports(package, table)
    overlap = sorted(set(eager) & set(table))
    if overlap:
        raise ValueError(f"names {overlap} are both eager and lazy; list each in one place")
    return getattr_, dir_, sorted(set(table) | set(eager))


def type_checking_table(package: str) -> dict[str, str]:
    """name -> submodule (relative to ``package``) of the ``if TYPE_CHECKING:`` imports in its ``__init__``.

    Reads the source of the package's ``__init__`` (already in ``sys.modules`` while it runs, or
    importable). Only imports from the package's own submodules are public names; an import from
    elsewhere or under another name (``as``) is refused, since the lazy loader reads the attribute of
    that name from that submodule.
    """
    if not isinstance(package, str) or not package:
        raise ValueError(f"package must be a non-empty module name, got {package!r}")
    module = sys.modules.get(package) or importlib.import_module(package)
    init = Path(getattr(module, "__file__", None) or "")
    if init.name != "__init__.py" or not init.is_file():
        raise ValueError(f"package {package!r} has no __init__.py source to read its public names from")
    tree = ast.parse(init.read_text(encoding="utf-8"), filename=str(init))
    table: dict[str, str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for stmt in ast.walk(node):
            if isinstance(stmt, ast.Import):
                raise ValueError(f"{init}: line {stmt.lineno}: public names come from 'from ... import'")
            if isinstance(stmt, ast.ImportFrom):
                sub = _submodule(package, stmt, init)
                for alias in stmt.names:
                    if alias.asname not in (None, alias.name):
                        raise ValueError(
                            f"{init}: line {stmt.lineno}: {alias.name} as {alias.asname}: a public name is "
                            "the submodule's own name (rename it there)"
                        )
                    table[alias.name] = sub
    return table


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _submodule(package: str, stmt: ast.ImportFrom, init: Path) -> str:
    """The submodule path (relative to ``package``) an import in the package's ``__init__`` reads."""
    if stmt.level:
        parts = package.split(".")
        base = parts[: len(parts) - stmt.level + 1]
        origin = ".".join([*base, stmt.module] if stmt.module else base)
    else:
        origin = stmt.module or ""
    if not origin.startswith(package + "."):
        raise ValueError(
            f"{init}: line {stmt.lineno}: public names must come from a submodule of {package!r}, "
            f"not {origin!r}"
        )
    return origin[len(package) + 1 :]


def public_table(package: str) -> Mapping[str, str]:
    """The table name -> submodule that ``package`` registered through :func:`public_api` or
    :func:`lazy_exports` (imports the package first); empty when it registered none."""
    importlib.import_module(package)
    return _TABLES.get(package, MappingProxyType({}))
