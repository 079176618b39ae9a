"""The console script, through the shared conformance battery."""

from __future__ import annotations

import subprocess
import sys

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "aihf"
    module = "aihf"


def test_module_entry_point_prints_the_version():
    proc = subprocess.run(
        [sys.executable, "-m", "aihf", "--version"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and proc.stdout.startswith("aihf ")
