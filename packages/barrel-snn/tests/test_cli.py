"""The console script through the shared conformance battery, and the module entry point."""

from __future__ import annotations

import subprocess
import sys

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "barrel-snn"
    module = "barrel_snn"


def test_version_without_importing_torch_or_brian2():
    code = (
        "import sys, runpy; sys.argv = ['barrel-snn', '--version'];\n"
        "try:\n    runpy.run_module('barrel_snn', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('torch' in sys.modules or 'brian2' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("barrel-snn 0.1.0")
    assert proc.stdout.strip().endswith("False")
