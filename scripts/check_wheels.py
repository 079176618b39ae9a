"""Check built wheels: every distribution is ours (``iclr25-`` prefix, a local version label) and every
requirement on a workspace package names our distribution with an upper bound, never a bare name that a
stranger's project on PyPI could satisfy.

python scripts/check_wheels.py DIST_DIR        (exit 1 with one line per finding)
"""

from __future__ import annotations

import re
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "iclr25-"


def workspace_names(root: Path = ROOT) -> set[str]:
    """The bare folder names of the workspace (paperkit, rslqr, ..., shared-testing)."""
    return {p.parent.name for p in root.glob("packages/*/pyproject.toml")} | {"shared-testing"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def findings(wheel: Path, bare: set[str]) -> list[str]:
    """What is wrong with one wheel's metadata (empty when nothing)."""
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(zf.read(meta_name).decode())
    name, version = _normal(meta["Name"]), meta["Version"]
    out = []
    if not name.startswith(PREFIX):
        out.append(f"{wheel.name}: distribution {name!r} lacks the {PREFIX!r} prefix")
    if "+" not in version:
        out.append(f"{wheel.name}: version {version} has no local label (+g<commit>)")
    for req in meta.get_all("Requires-Dist") or []:
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)", req)
        if m is None:
            continue
        dep, spec = _normal(m.group(1)), m.group(3).split(";")[0]
        if dep in bare:
            out.append(f"{wheel.name}: requires bare {dep!r}, which is another project's name on PyPI")
        elif dep.startswith(PREFIX) and dep.removeprefix(PREFIX) in bare and "<" not in spec:
            out.append(f"{wheel.name}: requires {dep} without an upper bound ({req!r})")
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: check_wheels.py DIST_DIR", file=sys.stderr)
        return 2
    wheels = sorted(Path(args[0]).glob("*.whl"))
    if not wheels:
        print(f"error: no wheels in {args[0]}", file=sys.stderr)
        return 1
    bare = workspace_names()
    problems = [line for w in wheels for line in findings(w, bare)]
    for line in problems:
        print(f"error: {line}", file=sys.stderr)
    if not problems:
        print(f"{len(wheels)} wheels: every name ours, every workspace requirement bounded")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
