"""The console script, through the shared conformance battery."""

from __future__ import annotations

import subprocess
import sys

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "bandit-neural"
    module = "bandit_neural"


def test_module_entry_point_prints_the_version_without_importing_torch():
    code = (
        "import sys, runpy; sys.argv = ['bandit-neural', '--version'];\n"
        "try:\n    runpy.run_module('bandit_neural', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('torch' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("bandit-neural 0.1.0")
    assert proc.stdout.strip().endswith("False")
