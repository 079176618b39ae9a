"""The console script, through the shared conformance battery."""

from __future__ import annotations

import subprocess
import sys

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "disk-dp"
    module = "disk_dp"
    # fail honestly at quick scale (README: DiSK ties DP-SGD on digits and on the quadratic)
    known_failing_quick_claims = frozenset({"disk-sgd-beats-dp-sgd-eps1", "quadratic-disk-vs-dp-sgd"})


def test_module_entry_point_prints_the_version_without_importing_torch():
    code = (
        "import sys, runpy; sys.argv = ['disk-dp', '--version'];\n"
        "try:\n    runpy.run_module('disk_dp', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('torch' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("disk-dp 0.1.0")
    assert proc.stdout.strip().endswith("False")
