"""The console script, through the shared conformance battery and tpo's own checks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "tpo"
    module = "tpo"
    # fail honestly at quick scale (RESULTS.md): TPO ties the official DPO pairing, stays below its SFT
    # start, and the τ proxy gap's CI is far from +0.05
    known_failing_quick_claims = frozenset(
        {"tpo-accuracy-above-dpo-best-vs-worst", "tpo-accuracy-above-sft", "tau-proxy-tpo-above-dpo"}
    )

    def test_smoke_results_carry_every_method_and_the_pair_check(
        self, smoke_runs: list[tuple[subprocess.CompletedProcess[str], Path]]
    ) -> None:
        proc, out = smoke_runs[0]
        assert proc.returncode == 0, proc.stderr
        record = json.loads((out / "results.json").read_text())
        assert set(record["metrics"]["methods"]) == {"dpo", "dpo_best_vs_worst", "tpo"}
        assert record["metrics"]["pair_check"]["abs_diff_lambda_off"] <= 1e-6
        assert "| tpo-equals-dpo-on-pairs |" in proc.stdout and (out / "methods.png").exists()
        assert record["tables"]["Methods (mean over seeds)"][0]["method"] == "SFT reference"
