"""The console script, through the shared conformance battery (plus checks on its smoke output)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
from ols_certify import certify
from shared_testing import run_cli
from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "ols-certify"
    module = "ols_certify"

    def test_smoke_output_reports_certificates_and_plots(
        self, smoke_runs: list[tuple[subprocess.CompletedProcess[str], Path]]
    ) -> None:
        proc, out = smoke_runs[0]
        assert proc.returncode == 0, proc.stderr
        assert "| diabetes bmi (sign) | 442 | 11 |" in proc.stdout
        assert {p.name for p in out.glob("*.png")} == {
            "bounds_gaussian_d10.png",
            "bounds_diabetes_bmi.png",
            "soundness_tiny.png",
        }
        record = json.loads((out / "results.json").read_text())
        assert [c["name"] for c in record["claims"]] == [
            "soundness-vs-brute-force",
            "non-trivial-certificates",
            "tightness-vs-kzc21",
            "acre-dominates-fh23",
        ]
        assert record["metrics"]["tiny"]["fraction_sound"] == 1.0
        assert "Certificates and candidate sets" in (out / "results.md").read_text()


def _write_csv(path: Path, header: list[str], rows: np.ndarray) -> Path:
    np.savetxt(path, rows, delimiter=",", header=",".join(header), comments="")
    return path


def test_audit_command_prints_the_certificate_of_a_csv(tmp_path: Path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = 0.3 * X[:, 0] + rng.normal(size=300)
    csv = _write_csv(tmp_path / "d.csv", ["a", "b", "out"], np.column_stack([X, y]))
    proc = run_cli(
        "ols-certify",
        "audit",
        csv,
        "--y",
        "out",
        "--coef",
        "a",
        "--threshold",
        "se:2",
        "--plot",
        tmp_path / "p.png",
    )
    assert proc.returncode == 0, proc.stderr
    k_lb = certify(np.column_stack([np.ones(300), X]), y, 1, ("se", 2.0)).k_lb
    assert f"ACRE k_LB = {k_lb}" in proc.stdout and "coefficient 'a'" in proc.stdout
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_audit_command_bad_input_is_one_line_exit_2(tmp_path: Path):
    rng = np.random.default_rng(1)
    a = rng.normal(size=40)
    csv = _write_csv(tmp_path / "d.csv", ["a", "b", "out"], np.column_stack([a, 2 * a, rng.normal(size=40)]))
    for args, match in [
        (["--y", "out", "--coef", "a"], "'b' (index 2) is a linear combination of 'a'"),
        (["--y", "out", "--coef", "zz"], "not in the header"),
        (["--y", "out", "--coef", "a", "--threshold", "flip"], "--threshold must be"),
    ]:
        proc = run_cli("ols-certify", "audit", csv, *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and match in lines[0], proc.stderr
