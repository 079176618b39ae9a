"""Plan CI from a diff, and check release tags. Used by .github/workflows; tested by scripts/test_ci_plan.py.

python scripts/ci_plan.py matrix --event pull_request < changed_paths.txt
    -> {"packages": ["rslqr"]}   (JSON on stdout, for a job matrix)
python scripts/ci_plan.py release-tag rslqr-v0.1.0
    -> rslqr                      (exit 1 with one line when the tag, pyproject and CHANGELOG disagree)
python scripts/ci_plan.py changelog
    -> exit 1 naming each package whose code changed since its last tag without an "Unreleased" entry
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A change under any of these can break every package, so it tests all of them.
SHARED = (
    "packages/paperkit/",
    "shared-testing/",
    "uv.lock",
    "pyproject.toml",
    "noxfile.py",
    "scripts/",
    ".github/",
    ".ci/",
)


def all_packages(root: Path = ROOT) -> list[str]:
    """Every tested workspace member by folder name (the distribution is ``iclr25-<folder>``)."""
    names = [p.parent.name for p in sorted(root.glob("packages/*/pyproject.toml"))]
    return [*names, "shared-testing"]


def packages_to_test(event: str, changed: Iterable[str], root: Path = ROOT) -> list[str]:
    """The packages a CI run must test.

    Pull requests test only the packages they touch, or all of them when shared machinery changed;
    every other event (push to main, nightly, manual) tests everything.
    """
    everything = all_packages(root)
    if event != "pull_request":
        return everything
    paths = [p.strip() for p in changed if p.strip()]
    if any(p == s or p.startswith(s) for p in paths for s in SHARED):
        return everything
    touched = {m.group(1) for p in paths if (m := re.match(r"packages/([^/]+)/", p))}
    return [name for name in everything if name in touched]


def release_package(tag: str, root: Path = ROOT) -> str:
    """The package a ``<pkg>-v<version>`` tag releases; ValueError unless its pyproject has that version."""
    m = re.fullmatch(r"(?P<pkg>[a-z0-9][a-z0-9-]*?)-v(?P<ver>\d+\.\d+\.\d+(?:[abrc.post0-9]*)?)", tag)
    if m is None:
        raise ValueError(f"tag {tag!r} is not of the form <package>-v<version>, e.g. rslqr-v0.1.0")
    pkg, ver = m["pkg"], m["ver"]
    pp = root / "packages" / pkg / "pyproject.toml"
    if not pp.exists():
        raise ValueError(f"tag {tag!r} names {pkg!r}, which is not a package under packages/")
    actual = tomllib.loads(pp.read_text())["project"]["version"]
    if actual != ver:
        raise ValueError(f"tag {tag!r} says version {ver} but packages/{pkg}/pyproject.toml says {actual}")
    sections = changelog_sections(pp.parent / "CHANGELOG.md")
    if not sections.get(ver):
        raise ValueError(f"tag {tag!r}: packages/{pkg}/CHANGELOG.md has no '## {ver}' entry with its changes")
    if sections.get("Unreleased"):
        raise ValueError(
            f"tag {tag!r}: packages/{pkg}/CHANGELOG.md still lists Unreleased changes; move them to {ver}"
        )
    return pkg


def changelog_sections(path: Path) -> dict[str, list[str]]:
    """``## heading`` -> its non-blank lines, in order; empty when the file is missing."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text().splitlines() if path.exists() else []:
        if line.startswith("## "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None and line.strip():
            current.append(line)
    return sections


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def changelog_problems(root: Path = ROOT) -> list[str]:
    """Packages whose code changed since their last ``<pkg>-v*`` tag but whose CHANGELOG says nothing
    under "Unreleased" (a rebuilt wheel must be told apart from the released one), and missing CHANGELOGs."""
    problems = []
    for name in all_packages(root):
        folder = Path("shared-testing" if name == "shared-testing" else f"packages/{name}")
        sections = changelog_sections(root / folder / "CHANGELOG.md")
        if not sections:
            problems.append(f"{folder}/CHANGELOG.md is missing or has no '## ' sections")
            continue
        if next(iter(sections)) != "Unreleased":
            problems.append(f"{folder}/CHANGELOG.md must start with an '## Unreleased' section")
        tags = _git(root, "tag", "--list", f"{name}-v*", "--sort=-v:refname").splitlines()
        if not tags:
            continue  # never released: nothing to confuse a build with
        changed = _git(root, "diff", "--name-only", tags[0], "HEAD", "--", str(folder / "src"))
        if changed and not sections.get("Unreleased"):
            problems.append(
                f"{folder}: code changed since {tags[0]} but CHANGELOG.md has no Unreleased entry"
            )
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    mat = sub.add_parser("matrix", help="changed paths on stdin -> JSON package list")
    mat.add_argument("--event", required=True)
    rel = sub.add_parser("release-tag", help="check a release tag against the package's version")
    rel.add_argument("tag")
    sub.add_parser("changelog", help="every package changed since its last tag has an Unreleased entry")
    args = parser.parse_args(argv)
    if args.cmd == "changelog":
        problems = changelog_problems()
        for line in problems:
            print(f"error: {line}", file=sys.stderr)
        return 1 if problems else 0
    if args.cmd == "matrix":
        changed = sys.stdin.read().splitlines() if args.event == "pull_request" else []
        print(json.dumps({"packages": packages_to_test(args.event, changed)}))
        return 0
    try:
        print(release_package(args.tag))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
