"""The machinery behind noxfile.py's ``ci`` and ``wheels`` sessions (tested by scripts/test_ci_runner.py).

- :func:`run_sessions`: nox sessions N at a time, each logged to its own file and timed (CPU and wall);
  all run to their end, then a table and the tail of every failed log.
- :func:`build_wheels`: every workspace wheel from a staged copy whose versions carry a local label
  (``0.2.0+g<commit>``, ``.dirty.<hash>`` for uncommitted changes), so no cache can serve a stale wheel.
- :func:`install_ours_then_deps`, :func:`smoke_in_one_process`: install built wheels into a venv (ours from
  the wheels alone, with no index) and run the papers' ``--smoke`` reproduce.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

Run = Callable[..., object]
PREFIX = "iclr25-"


def slug(name: str) -> str:
    """A file-name-safe form of a session name: ``tests(iclr25-rslqr-cpu)`` -> ``tests-iclr25-rslqr-cpu``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")


def _runs(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "pass"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def find_python(version: str) -> str | None:
    """The interpreter of ``version`` ("3.12"): this one, pyenv's, or one on PATH that starts (a pyenv shim
    of a version that is not active does not); None when absent."""
    if f"{sys.version_info[0]}.{sys.version_info[1]}" == version:
        return sys.executable
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = sorted(root.glob(f"{version}.*/bin/python{version}"), key=lambda p: p.parent.parent.name)
    candidates = [str(p) for p in reversed(found)] + [w for w in [shutil.which(f"python{version}")] if w]
    return next((c for c in candidates if _runs(c)), None)


# ---------------------------------------------------------------------------------------------- wheels
def _files(root: Path) -> list[str]:
    """The workspace files a build needs: tracked and untracked-not-ignored, from git when it can."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "--", "packages", "shared-testing"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        skip = {".venv", ".nox", "results", "__pycache__", "dist", "build"}
        listed = [
            str(p.relative_to(root))
            for top in ("packages", "shared-testing")
            for p in (root / top).rglob("*")
            if p.is_file() and not skip.intersection(p.relative_to(root).parts)
        ]
    return [f for f in [*listed, "pyproject.toml", "uv.lock"] if (root / f).is_file()]


def local_label(root: Path, files: Sequence[str]) -> str:
    """``g<commit>`` for a clean checkout, ``g<commit>.dirty.<hash>`` with uncommitted changes, and
    ``h<hash>`` outside git; the hash is over the staged files' names and contents."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    content = digest.hexdigest()[:10]

    def git(*args: str) -> str | None:
        try:
            return subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None

    commit = git("rev-parse", "--short=10", "HEAD")
    if commit is None:
        return f"h{content}"
    dirty = git("status", "--porcelain", "--", "packages", "shared-testing", "pyproject.toml")
    return f"g{commit}.dirty.{content}" if dirty else f"g{commit}"


def stage(root: Path, dest: Path) -> str:
    """Copy the workspace to ``dest`` with every member's version given a local label; return the label."""
    files = _files(root)
    label = local_label(root, files)
    shutil.rmtree(dest, ignore_errors=True)
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target)
    for pp in [*dest.glob("packages/*/pyproject.toml"), dest / "shared-testing" / "pyproject.toml"]:
        text = pp.read_text()
        new, n = re.subn(r'(?m)^version = "([^"+]+)"', rf'version = "\1+{label}"', text, count=1)
        if n != 1:
            raise RuntimeError(f"{pp}: no static [project] version to label")
        pp.write_text(new)
    return label


def build_wheels(root: Path, tmp: Path, members: Sequence[str], *, run: Run) -> tuple[Path, str]:
    """Every workspace member's sdist and wheel, locally labelled, in ``tmp/dist``: (that folder, label)."""
    src, out = (tmp / "stage").resolve(), (tmp / "dist").resolve()
    shutil.rmtree(out, ignore_errors=True)
    label = stage(root, src)
    run("uv", "build", "--no-progress", "--directory", str(src), "--all-packages", "--out-dir", str(out),
        external=True)  # fmt: skip
    wheels = {w.name.split("-")[0] for w in out.glob("*.whl")}
    missing = [m for m in members if (PREFIX + m).replace("-", "_") not in wheels]
    if missing:
        raise RuntimeError(f"no wheel was built for {missing}")
    return out, label


def wheel_of(out: Path, distribution: str) -> Path:
    found = sorted(out.glob(f"{distribution.replace('-', '_')}-*.whl"))
    if len(found) != 1:
        raise RuntimeError(f"expected one wheel of {distribution} in {out}, found {[p.name for p in found]}")
    return found[0]


def install_ours_then_deps(venv: Path, out: Path, distributions: Sequence[str], *, run: Run) -> None:
    """Our wheels first, from ``out`` alone (``--no-index --no-deps``: nothing on an index can stand in for
    them); then the same wheels again with PyPI allowed, which adds only the third-party requirements."""
    ours = [str(wheel_of(out, d)) for d in dict.fromkeys([*distributions, PREFIX + "paperkit"])]
    python = str(venv / "bin" / "python")
    common = ["uv", "pip", "install", "--no-progress", "-q", "--python", python]
    env = {"UV_NO_CONFIG": "1"}
    run(*common, "--no-index", "--no-deps", *ours, external=True, env=env)
    run(*common, "--find-links", str(out), *ours, external=True, env=env)


# The papers' smoke runs in one interpreter of the venv; it also checks that our runtime is the one built.
_SMOKE = """
import json, sys
from importlib import metadata
packages, out, label = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
for name in ["iclr25-paperkit", *("iclr25-" + p for p in packages)]:
    version = metadata.version(name)
    assert version.endswith("+" + label), f"{name} {version} is not the wheel just built (+{label})"
for package in packages:
    (script,) = metadata.entry_points(group="console_scripts", name=package)
    code = script.load()(["reproduce", "--smoke", "--out", f"{out}/{package}"])
    assert code == 0, f"{package} reproduce --smoke exited {code}"
    print(f"{package}: smoke run passed")
"""


def smoke_in_one_process(
    venv: Path, packages: Sequence[str], out: Path, label: str, *, run: Run, env: Mapping[str, str]
) -> None:
    """Each paper's ``reproduce --smoke`` in one interpreter of ``venv`` (one torch start-up for all)."""
    python = str(venv / "bin" / "python")
    run(
        python,
        "-c",
        _SMOKE,
        ",".join(packages),
        str(out),
        label,
        external=True,
        env={**env, "MPLBACKEND": "Agg"},
    )


# -------------------------------------------------------------------------------------------- sessions
@dataclass(frozen=True)
class Outcome:
    name: str
    returncode: int
    wall_s: float
    cpu_s: float
    tests_cpu_s: float | None
    log: Path
    counts: Mapping[str, int]


_SUMMARY = re.compile(
    r"^=*\s*(\d+ (?:passed|failed|skipped|errors?|deselected|xfailed|xpassed)\b.*?) in [\d.]+s"
)


def test_counts(log_text: str) -> dict[str, int]:
    """Totals over every pytest summary line in a session's log ("3 passed, 1 skipped in 2.0s")."""
    counts: dict[str, int] = {}
    for line in log_text.splitlines():
        m = _SUMMARY.match(line.strip())
        if m is None:
            continue
        for n, kind in re.findall(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)", m.group(1)):
            key = "failed" if kind.startswith("error") else kind
            counts[key] = counts.get(key, 0) + int(n)
    return counts


def _one(root: Path, name: str, logs: Path, records: Path, env: Mapping[str, str]) -> Outcome:
    log = logs / f"{slug(name)}.log"
    t0 = time.perf_counter()
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "nox", "--no-color", "-s", name],
            cwd=root,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env, "CI_RECORD_DIR": str(records)},
        )
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    record = records / f"{slug(name)}.json"
    tests_cpu = json.loads(record.read_text())["cpu_s"] if record.exists() else None
    cpu = usage.ru_utime + usage.ru_stime
    counts = test_counts(log.read_text(errors="replace"))
    return Outcome(name, proc.returncode, time.perf_counter() - t0, cpu, tests_cpu, log, counts)


def table(outcomes: Sequence[Outcome], budget: float, wall_total: float) -> str:
    """The closing table: one row a session, then the totals."""
    rows = ["| session | result | wall s | CPU s | test-run CPU s | tests |", "|---|---|---:|---:|---:|---|"]
    for o in outcomes:
        over = o.tests_cpu_s is not None and o.tests_cpu_s > budget
        tests = "" if o.tests_cpu_s is None else f"{o.tests_cpu_s:.1f}" + (" (over)" if over else "")
        result = "passed" if o.returncode == 0 else f"FAILED ({o.returncode})"
        counted = " ".join(f"{n} {k}" for k, n in sorted(o.counts.items()))
        rows.append(f"| {o.name} | {result} | {o.wall_s:.1f} | {o.cpu_s:.1f} | {tests} | {counted} |")
    cpu = sum(o.cpu_s for o in outcomes)
    rows.append(
        f"| total ({len(outcomes)} sessions) | | {wall_total:.1f} elapsed | {cpu:.1f} | budget {budget:g} |"
    )
    return "\n".join(rows)


def run_sessions(
    root: Path, names: Sequence[str], *, jobs: int, budget: float, env: Mapping[str, str]
) -> bool:
    """Run nox sessions ``jobs`` at a time; print progress, the table and failed logs' tails; all passed?"""
    logs = Path(tempfile.mkdtemp(prefix="ci-logs-", dir=root / ".nox" if (root / ".nox").is_dir() else None))
    records = logs / "records"
    records.mkdir()
    lock, done = threading.Lock(), []
    t0 = time.perf_counter()

    def job(name: str) -> Outcome:
        outcome = _one(root, name, logs, records, env)
        with lock:
            done.append(outcome)
            state = "passed" if outcome.returncode == 0 else "FAILED"
            print(f"[{len(done)}/{len(names)}] {name}: {state} in {outcome.wall_s:.0f} s wall, "
                  f"{outcome.cpu_s:.0f} CPU-s", flush=True)  # fmt: skip
        return outcome

    print(f"ci: {len(names)} sessions, {jobs} at a time; logs in {logs}", flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = list(pool.map(job, names))
    failed = [o for o in outcomes if o.returncode != 0]
    for o in failed:
        tail = o.log.read_text(errors="replace").splitlines()[-150:]
        print(f"\n===== {o.name} failed (exit {o.returncode}); last lines of {o.log} =====", flush=True)
        print("\n".join(tail), flush=True)
    print("\n" + table(outcomes, budget, time.perf_counter() - t0), flush=True)
    total: dict[str, int] = {}
    for o in outcomes:
        for k, n in o.counts.items():
            total[k] = total.get(k, 0) + n
    print(f"\nsessions: {len(outcomes) - len(failed)} of {len(outcomes)} without failure", flush=True)
    # pytest's counts over every session, in the plain closing-line form CI reads.
    line = f"tests: {total.get('passed', 0)} passed, {total.get('failed', 0)} failed"
    print(line + (f", {total['skipped']} skipped" if total.get("skipped") else ""), flush=True)
    return not failed
