"""The conformance battery every paper package runs (in the spirit of optax's common optimiser tests).

In a package's tests::

    from shared_testing.conformance import ConformanceSuite

    class TestConformance(ConformanceSuite):
        package = "rslqr"   # folder and console-script name (the distribution is iclr25-rslqr)
        module = "rslqr"    # import name

It pays for at most two interpreter start-ups: one light one answers ``--help``, ``--version`` and every
refused argument list through ``python -m <module>`` (exit 2, one line, no traceback, nothing written)
and must not import ``light_start_without`` (torch by default); one runs ``reproduce --smoke`` through
the installed console script (valid results, at least one claim). In this process a second smoke run
with the same seed must give identical numbers, and ``--device cuda`` without a GPU must be one clear
line. Import hygiene (:mod:`shared_testing.hygiene`) is checked too. Under ``--run-slow``:
``reproduce --quick``.
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


# Runs in a fresh interpreter: each case through ``python -m <module>`` (runpy), streams captured per case.
_LIGHT_HARNESS = """
import contextlib, io, json, runpy, sys
module, cases, watch = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
runs = []
for args in cases:
    out, err = io.StringIO(), io.StringIO()
    sys.argv = [module, *args]
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    runs.append({"args": args, "code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
print(json.dumps({"runs": runs, "loaded": sorted(m for m in watch if m in sys.modules)}))
"""


def _in_process(module: str, args: list[str]) -> tuple[int, str, str]:
    """``<module>.cli.main(args)`` in this interpreter: (exit code, stdout, stderr)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    main = importlib.import_module(f"{module}.cli").main
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = main(args)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    return int(code), stdout.getvalue(), stderr.getvalue()


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
    #: a new one and a fixed one are both caught. The default, ``frozenset()``, is a clean package (every
    #: package is clean now); ``None`` would report them as one expected failure instead.
    known_hygiene_violations: ClassVar[frozenset[str] | None] = frozenset()

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
        code, stdout, stderr = _in_process(cls.module, [*args, str(out1)])
        proc = subprocess.CompletedProcess([cls.package, *args], code, stdout, stderr)
        runs.append((proc, out1))
        return runs

    def test_public_api_imports(self) -> None:
        mod = importlib.import_module(self.module)
        names = getattr(mod, "__all__", None)
        assert names, f"{self.module} must define a non-empty __all__"
        for name in names:
            assert hasattr(mod, name), f"{self.module}.__all__ names {name!r}, which does not exist"
        assert mod.__version__ == metadata.version(self.distribution)

    @pytest.fixture(scope="class")
    @classmethod
    def light_runs(cls, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
        """``--help``, ``reproduce --help``, ``--version`` and every refused argument list, answered by ONE
        interpreter through ``python -m <module>``; it then lists which of ``light_start_without`` it loaded.
        None of these may import torch, so the whole battery costs one light start-up."""
        out = tmp_path_factory.mktemp(f"{cls.package}-refused")
        cases = [["--help"], ["reproduce", "--help"], ["--version"]]
        cases += [[*a, "--out", str(out)] if a[:1] == ["reproduce"] else a for a in BAD_ARGS]
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                _LIGHT_HARNESS,
                cls.module,
                json.dumps(cases),
                json.dumps(cls.light_start_without),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "MPLBACKEND": "Agg", "PYTHONWARNINGS": "ignore"},
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        answer: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
        answer["out"] = out
        return answer

    def test_help(self, light_runs: dict[str, Any]) -> None:
        top, sub = light_runs["runs"][0], light_runs["runs"][1]
        assert top["code"] == 0, top["stderr"]
        assert "reproduce" in top["stdout"]
        assert sub["code"] == 0, sub["stderr"]
        for flag in ("--quick", "--seed", "--device", "--out", "--check"):
            assert flag in sub["stdout"]

    def test_version(self, light_runs: dict[str, Any]) -> None:
        run = light_runs["runs"][2]
        assert run["code"] == 0, run["stderr"]
        assert run["stdout"].strip() == f"{self.package} {metadata.version(self.distribution)}"

    def test_module_entry_point_starts_light(self, light_runs: dict[str, Any]) -> None:
        assert light_runs["loaded"] == [], (
            f"--help/--version/refused arguments imported {light_runs['loaded']}"
        )

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

    @pytest.mark.parametrize("index", range(len(BAD_ARGS)), ids=[" ".join(a) or "no-args" for a in BAD_ARGS])
    def test_bad_arguments_exit_2_with_one_line(self, index: int, light_runs: dict[str, Any]) -> None:
        run = light_runs["runs"][3 + index]
        args = BAD_ARGS[index]
        assert run["code"] == 2, f"exit {run['code']} for {args}: {run['stderr']}"
        lines = run["stderr"].strip().splitlines()
        assert len(lines) == 1 and lines[0], f"expected one error line, got {run['stderr']!r}"
        assert "Traceback" not in run["stderr"]
        assert not list(light_runs["out"].iterdir()), "a refused command must not write results"

    def test_cuda_without_gpu_is_a_clear_error(
        self, tmp_path: Path, smoke_runs: list[tuple[subprocess.CompletedProcess[str], Path]]
    ) -> None:
        # In this process, after the in-process smoke run has paid for torch: no third interpreter.
        from paperkit import cuda_available

        if cuda_available():
            pytest.skip("a GPU is present")
        code, _, stderr = _in_process(
            self.module, ["reproduce", "--smoke", "--device", "cuda", "--out", str(tmp_path)]
        )
        assert code == 2
        assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1
        assert "cuda" in stderr.lower()
        assert not list(tmp_path.iterdir())

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
