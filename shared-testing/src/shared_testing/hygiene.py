"""Import hygiene of a package, read from its source with ``ast`` (nothing is executed but the root).

Three rules from the repository's conventions, each reported as one line naming the file:

- **No module uses another module's underscore names**: ``from .x import _name``,
  ``from pkg.x import _name`` and ``x._name`` on an imported first-party module are refused, in the
  package's sources and in its tests. Underscore *modules* (``pkg._linalg``) are fine: they are the
  package's shared internals; their public names are what siblings use. Dunder names are fine.
- **The package root never imports the experiment**: ``pkg/__init__.py`` neither imports
  ``pkg.reproduce`` (nor a module below it) nor lists a public name that lives there.
- **Public names written once**: the table a package registers with ``paperkit.public_api`` /
  ``paperkit.lazy_exports`` equals its ``if TYPE_CHECKING:`` imports exactly (``public_api`` derives it
  from them), and every table name is in ``__all__``.

``hygiene_violations(module)`` returns the sorted list; ConformanceSuite compares it with the package's
declared ``known_hygiene_violations``.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "experiment_imports",
    "hygiene_violations",
    "package_root",
    "public_table_violations",
    "type_checking_imports",
    "underscore_violations",
]

EXPERIMENT = "reproduce"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def package_root(module: str) -> tuple[Path, Path]:
    """(the package's source directory ``src/<module>``, the distribution folder holding ``tests/``)."""
    mod = importlib.import_module(module)
    init = Path(mod.__file__ or "")
    src = init.parent
    return src, src.parent.parent


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` reads, for a module named ``importer`` (dotted)."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    # ``from . import x`` in pkg/a.py is relative to pkg; in pkg/__init__.py also to pkg.
    parent = base[: len(base) - node.level]
    return ".".join([*parent, node.module] if node.module else parent)


def _module_name(path: Path, src: Path, module: str) -> str:
    rel = path.relative_to(src).with_suffix("")
    parts = [module, *rel.parts]
    if parts[-1] == "__init__":
        parts = [*parts[:-1], "__init__"]  # relative imports resolve against the package itself
    return ".".join(parts)


def _is_submodule(src: Path, module: str, dotted: str) -> bool:
    """Whether ``dotted`` (absolute) is a module or package file of this package."""
    if dotted != module and not dotted.startswith(module + "."):
        return False
    rel = Path(*dotted.split(".")[1:])
    return (src / rel).with_suffix(".py").exists() or (src / rel / "__init__.py").exists()


def _files(src: Path, tests: Path) -> Iterator[tuple[Path, bool]]:
    for path in sorted(src.rglob("*.py")):
        yield path, True
    if tests.is_dir():
        for path in sorted(tests.rglob("*.py")):
            yield path, False


def underscore_violations(module: str) -> list[str]:
    """Uses of another module's underscore names in the package's sources and tests (see module doc)."""
    src, folder = package_root(module)
    out: list[str] = []
    for path, in_src in _files(src, folder / "tests"):
        importer = _module_name(path, src, module) if in_src else f"{module}_tests.{path.stem}"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        rel = path.relative_to(folder).as_posix()
        module_aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                origin = _resolve(importer, node) if in_src else (node.module or "")
                if origin != module and not origin.startswith(module + "."):
                    continue
                for alias in node.names:
                    full = f"{origin}.{alias.name}"
                    if _is_submodule(src, module, full):
                        module_aliases[alias.asname or alias.name] = full
                    elif _private(alias.name):
                        out.append(f"{rel}: imports {alias.name} from {origin}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == module or alias.name.startswith(module + "."):
                        module_aliases[alias.asname or alias.name] = alias.name
        out += _attribute_violations(tree, module_aliases, rel)
    return sorted(set(out))


def _attribute_violations(tree: ast.AST, aliases: dict[str, str], rel: str) -> list[str]:
    """``alias._name`` (and ``pkg.sub._name``) where ``alias`` is an imported first-party module."""
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        dotted = _dotted(node.value)
        if dotted is None:
            continue
        head, _, rest = dotted.partition(".")
        if head in aliases:
            target = aliases[head] + (f".{rest}" if rest else "")
            out.append(f"{rel}: uses {target}.{node.attr}")
    return out


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def type_checking_imports(module: str) -> dict[str, str]:
    """name -> submodule (relative to ``module``) of the ``if TYPE_CHECKING:`` imports in its root
    (``paperkit.type_checking_table``: the list ``paperkit.public_api`` derives the public names from)."""
    from paperkit.exports import type_checking_table

    return type_checking_table(module)


def experiment_imports(module: str) -> list[str]:
    """Places where the package root imports (or exports a name of) its experiment module."""
    src, folder = package_root(module)
    rel = (src / "__init__.py").relative_to(folder).as_posix()
    tree = ast.parse((src / "__init__.py").read_text(encoding="utf-8"))
    experiment = f"{module}.{EXPERIMENT}"
    out = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if not isinstance(node, (ast.ImportFrom, ast.Import)):
            continue
        if isinstance(node, ast.ImportFrom):
            origin = _resolve(f"{module}.__init__", node)
            targets = [origin] + [f"{origin}.{a.name}" for a in node.names]
        else:
            targets = [a.name for a in node.names]
        if any(t == experiment or t.startswith(experiment + ".") for t in targets):
            out.append(f"{rel}: the package root imports the experiment ({experiment}, line {node.lineno})")
    from paperkit.exports import public_table

    for name, sub in sorted(public_table(module).items()):
        if sub == EXPERIMENT or sub.startswith(EXPERIMENT + "."):
            out.append(f"{rel}: the public name {name} comes from the experiment ({module}.{sub})")
    return out


def public_table_violations(module: str) -> list[str]:
    """Differences between the registered public-name table, the TYPE_CHECKING imports and ``__all__``."""
    from paperkit.exports import public_table

    table = dict(public_table(module))
    if not table:
        return []
    src, folder = package_root(module)
    rel = (src / "__init__.py").relative_to(folder).as_posix()
    checked = type_checking_imports(module)
    out = []
    for name in sorted(set(table) | set(checked)):
        if name not in checked:
            out.append(f"{rel}: {name} is in the public table but not imported under TYPE_CHECKING")
        elif name not in table:
            out.append(f"{rel}: {name} is imported under TYPE_CHECKING but not in the public table")
        elif checked[name] != table[name]:
            out.append(
                f"{rel}: {name} is from {table[name]!r} in the table, {checked[name]!r} under TYPE_CHECKING"
            )
    exported = set(getattr(importlib.import_module(module), "__all__", ()))
    out += [
        f"{rel}: {name} is in the public table but not in __all__" for name in sorted(set(table) - exported)
    ]
    return out


def hygiene_violations(module: str) -> list[str]:
    """Every violation of the three rules (see the module docstring), sorted."""
    return sorted(
        set(underscore_violations(module) + experiment_imports(module) + public_table_violations(module))
    )
