"""The console script, through the shared conformance battery and rslqr's own bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from shared_testing import run_cli
from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "rslqr"
    module = "rslqr"
    known_hygiene_violations = frozenset()


def test_module_entry_point_prints_the_version():
    proc = subprocess.run(
        [sys.executable, "-m", "rslqr", "--version"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and proc.stdout.startswith("rslqr ")


def test_smoke_run_reports_regret_table_and_plots(tmp_path: Path):
    proc = run_cli("rslqr", "reproduce", "--smoke", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "| A | 0.05 | alg1 |" in proc.stdout
    assert {p.name for p in tmp_path.glob("*.png")} == {"regret_loglog_A_gamma0.05.png", "regret_semilog.png"}
    assert "Regret by learner" in (tmp_path / "results.md").read_text()
