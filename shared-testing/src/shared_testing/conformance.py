"""The conformance battery every paper package runs (in the spirit of optax's common optimiser tests).

In a package's tests::

    from shared_testing.conformance import ConformanceSuite

    class TestConformance(ConformanceSuite):
        package = "rslqr"   # distribution and console-script name
        module = "rslqr"    # import name

It runs the real console script in subprocesses: ``--help``, ``--version`` (also through ``python -m``,
without importing ``light_start_without``, torch by default), ``reproduce --smoke`` (valid
results, at least one claim; a second in-process run with the same seed must give identical numbers),
bad arguments (exit 2, one line, no traceback), ``--device cuda`` without a GPU, import hygiene
(:mod:`shared_testing.hygiene`) and, under ``--run-slow``, ``reproduce --quick``.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar

import pytest

from shared_testing.determinism import assert_identical
from shared_testing.hygiene import hygiene_violations

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
RECORD_KEYS = {
    "package",
    "scale",
    "config",
    "seed",
    "device",
    "versions",
    "git_commit",
    "started_at",
    "wall_time_s",
    "metrics",
    "claims",
    "all_claims_passed",
}
CLAIM_KEYS = {"name", "statement", "quantity", "observed", "comparison", "passed", "paper"}
BAD_ARGS = [
    ["reproduce", "--seed", "-1"],
    ["reproduce", "--seed", "abc"],
    ["reproduce", "--device", "tpu"],
    ["reproduce", "--no-such-flag"],
    ["reproduce", "--quick", "--smoke"],
    ["no-such-command"],
    [],
]


def console_script(name: str) -> Path:
    """The installed console script ``name`` of the running interpreter's environment."""
    here = Path(sys.executable).parent / name
    found = here if here.exists() else (Path(p) if (p := shutil.which(name)) else None)
    if found is None:
        raise AssertionError(f"console script {name!r} is not installed in {Path(sys.executable).parent}")
    return found


def run_cli(
    name: str, *args: str | os.PathLike[str], timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [str(console_script(name)), *map(str, args)], capture_output=True, text=True, timeout=timeout, env=env
    )


def validate_results(out: Path, package: str) -> dict[str, Any]:
    """Assert ``out`` holds a complete, well-formed reproduce result; return results.json's content."""
    record = json.loads((out / "results.json").read_text())
    missing = RECORD_KEYS - set(record)
    assert not missing, f"results.json lacks {sorted(missing)}"
    assert record["package"] == package
    assert f"iclr25-{package}" in record["versions"] and "python" in record["versions"]
    assert record["wall_time_s"] > 0
    assert record["claims"], "a reproduction must check at least one claim"
    for claim in record["claims"]:
        assert set(claim) >= CLAIM_KEYS, f"claim lacks {sorted(CLAIM_KEYS - set(claim))}"
        assert isinstance(claim["passed"], bool)
    assert record["all_claims_passed"] == all(c["passed"] for c in record["claims"])
    md = (out / "results.md").read_text()
    for claim in record["claims"]:
        assert claim["name"] in md, f"results.md does not show claim {claim['name']!r}"
    pngs = sorted(out.glob("*.png"))
    assert pngs, "reproduce wrote no PNG plot"
    for png in pngs:
        assert png.read_bytes()[:8] == PNG_MAGIC, f"{png.name} is not a PNG"
        assert png.name in md, f"results.md does not link {png.name}"
    leftovers = [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    assert not leftovers, f"temporary files left behind: {leftovers}"
    return record


class ConformanceSuite:
    """Subclass as ``TestConformance`` and set ``package`` and ``module``."""

    package: ClassVar[str]
    module: ClassVar[str]
    #: Claims that fail honestly at quick scale (named in the README with their numbers). The slow quick-run
    #: test then expects ``--check`` to exit 1 with exactly these claims failing, so a new failure and a
    #: claim that starts to pass are both caught.
    known_failing_quick_claims: ClassVar[frozenset[str]] = frozenset()
    #: Modules that ``python -m <module> --help`` and ``--version`` must not import (the CLI answers at once).
    light_start_without: ClassVar[tuple[str, ...]] = ("torch",)
    #: Import-hygiene violations the package still has (lines of ``shared_testing.hygiene``), declared so that
    #: a new one and a fixed one are both caught. ``None`` (not yet declared) reports them as an expected
    #: failure instead; ``frozenset()`` is a clean package.
    known_hygiene_violations: ClassVar[frozenset[str] | None] = None

    @property
    def distribution(self) -> str:
        """The installed distribution: ``iclr25-<package>`` (the bare names are strangers' on PyPI)."""
        return f"iclr25-{self.package}"

    @pytest.fixture(scope="class")
    @classmethod
    def smoke_runs(
        cls, tmp_path_factory: pytest.TempPathFactory
    ) -> list[tuple[subprocess.CompletedProcess[str], Path]]:
        """``reproduce --smoke --seed 7`` twice: once through the installed console script, once in this
        process through ``<module>.cli.main`` (the same frame; it saves a second interpreter start-up,
        which is most of the cost for torch/transformers packages)."""
        args = ["reproduce", "--smoke", "--seed", "7", "--device", "cpu", "--out"]
        out0 = tmp_path_factory.mktemp(f"{cls.package}-smoke0")
        runs = [(run_cli(cls.package, *args, out0), out0)]
        out1 = tmp_path_factory.mktemp(f"{cls.package}-smoke1")
        stdout, stderr = io.StringIO(), io.StringIO()
        main = importlib.import_module(f"{cls.module}.cli").main
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main([*args, str(out1)])
        proc = subprocess.CompletedProcess([cls.package, *args], code, stdout.getvalue(), stderr.getvalue())
        runs.append((proc, out1))
        return runs

    def test_public_api_imports(self) -> None:
        mod = importlib.import_module(self.module)
        names = getattr(mod, "__all__", None)
        assert names, f"{self.module} must define a non-empty __all__"
        for name in names:
            assert hasattr(mod, name), f"{self.module}.__all__ names {name!r}, which does not exist"
        assert mod.__version__ == metadata.version(self.distribution)

    def test_help(self) -> None:
        top = run_cli(self.package, "--help")
        assert top.returncode == 0, top.stderr
        assert "reproduce" in top.stdout
        sub = run_cli(self.package, "reproduce", "--help")
        assert sub.returncode == 0, sub.stderr
        for flag in ("--quick", "--seed", "--device", "--out", "--check"):
            assert flag in sub.stdout

    def test_version(self) -> None:
        proc = run_cli(self.package, "--version")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == f"{self.package} {metadata.version(self.distribution)}"

    def test_module_entry_point_starts_light(self) -> None:
        # One interpreter answers --help, then --version, through ``python -m``; then lists what it loaded.
        code = (
            "import runpy, sys\n"
            "for flag in ('--help', '--version'):\n"
            f"    sys.argv = [{self.package!r}, flag]\n"
            "    try:\n"
            f"        runpy.run_module({self.module!r}, run_name='__main__')\n"
            "    except SystemExit as stop:\n"
            "        assert not stop.code, stop.code\n"
            f"print(sorted(m for m in {self.light_start_without!r} if m in sys.modules))"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        lines = proc.stdout.strip().splitlines()
        assert f"{self.package} {metadata.version(self.distribution)}" in lines, proc.stdout[-2000:]
        assert "reproduce" in proc.stdout
        assert lines[-1] == "[]", f"--help/--version imported {lines[-1]}"

    def test_smoke_run_writes_valid_results(
        self, smoke_runs: list[tuple[subprocess.CompletedProcess[str], Path]]
    ) -> None:
        proc, out = smoke_runs[0]
        assert proc.returncode == 0, f"reproduce --smoke failed:\n{proc.stderr[-3000:]}"
        record = validate_results(out, self.package)
        assert record["seed"] == 7 and record["scale"] == "smoke" and record["device"] == "cpu"
        assert record["claims"][0]["name"] in proc.stdout, "reproduce should print its claims table"

    def test_same_seed_same_numbers(
        self, smoke_runs: list[tuple[subprocess.CompletedProcess[str], Path]]
    ) -> None:
        (p1, o1), (p2, o2) = smoke_runs
        assert p1.returncode == 0 and p2.returncode == 0
        r1, r2 = (json.loads((o / "results.json").read_text()) for o in (o1, o2))
        assert_identical(r1["metrics"], r2["metrics"], "metrics")
        assert_identical(
            [c["observed"] for c in r1["claims"]], [c["observed"] for c in r2["claims"]], "claims"
        )

    @pytest.mark.parametrize("args", BAD_ARGS, ids=lambda a: " ".join(a) or "no-args")
    def test_bad_arguments_exit_2_with_one_line(self, args: list[str], tmp_path: Path) -> None:
        proc = (
            run_cli(self.package, *args, "--out", tmp_path)
            if args[:1] == ["reproduce"]
            else run_cli(self.package, *args)
        )
        assert proc.returncode == 2, f"exit {proc.returncode} for {args}: {proc.stderr}"
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0], f"expected one error line, got {proc.stderr!r}"
        assert "Traceback" not in proc.stderr
        assert not list(tmp_path.iterdir()), "a refused command must not write results"

    def test_cuda_without_gpu_is_a_clear_error(self, tmp_path: Path) -> None:
        from paperkit import cuda_available

        if cuda_available():
            pytest.skip("a GPU is present")
        proc = run_cli(self.package, "reproduce", "--smoke", "--device", "cuda", "--out", tmp_path)
        assert proc.returncode == 2
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
        assert "cuda" in proc.stderr.lower()

    @pytest.mark.slow
    def test_quick_run_checks_its_claims(self, tmp_path: Path) -> None:
        proc = run_cli(self.package, "reproduce", "--quick", "--check", "--device", "cpu", "--out", tmp_path)
        expected = 1 if self.known_failing_quick_claims else 0
        assert proc.returncode == expected, (
            f"reproduce --quick --check exited {proc.returncode}, expected {expected}:\n"
            f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
        record = validate_results(tmp_path, self.package)
        failing = {c["name"] for c in record["claims"] if not c["passed"]}
        assert failing == set(self.known_failing_quick_claims), (
            f"failing quick claims {sorted(failing)} differ from the declared "
            f"{sorted(self.known_failing_quick_claims)}"
        )

    def test_import_hygiene(self) -> None:
        found = hygiene_violations(self.module)
        if self.known_hygiene_violations is None:
            if found:
                pytest.xfail(
                    f"{len(found)} import-hygiene violation(s), not yet declared:\n" + "\n".join(found)
                )
            return
        new = sorted(set(found) - self.known_hygiene_violations)
        fixed = sorted(self.known_hygiene_violations - set(found))
        assert not new, "new import-hygiene violations:\n" + "\n".join(new)
        assert not fixed, "declared violations that are gone (remove them from the list):\n" + "\n".join(
            fixed
        )
