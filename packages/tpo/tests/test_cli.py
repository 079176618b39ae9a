"""The console script, through the shared conformance battery and tpo's own checks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "tpo"
    module = "tpo"
    # fail honestly at quick scale (RESULTS.md): TPO ties the official DPO pairing, stays below its SFT
    # start, and the τ proxy gap's CI is far from +0.05
    known_failing_quick_claims = frozenset(
        {"tpo-accuracy-above-dpo-best-vs-worst", "tpo-accuracy-above-sft", "tau-proxy-tpo-above-dpo"}
    )

    # The battery's smoke-run checks import torch and transformers in a second interpreter and run the
    # reproduction twice (tuning included): most of this package's test CPU time. They run under
    # --run-slow (README "Tests"); test_reproduce.py checks the same wiring in-process by default.
    @pytest.mark.slow
    def test_smoke_run_writes_valid_results(
        self, smoke_runs: list[tuple[subprocess.CompletedProcess[str], Path]]
    ) -> None:
        super().test_smoke_run_writes_valid_results(smoke_runs)

    @pytest.mark.slow
    def test_same_seed_same_numbers(
        self, smoke_runs: list[tuple[subprocess.CompletedProcess[str], Path]]
    ) -> None:
        super().test_same_seed_same_numbers(smoke_runs)

    @pytest.mark.slow
    def test_cuda_without_gpu_is_a_clear_error(
        self, tmp_path: Path, smoke_runs: list[tuple[subprocess.CompletedProcess[str], Path]]
    ) -> None:
        super().test_cuda_without_gpu_is_a_clear_error(tmp_path, smoke_runs)

    @pytest.mark.slow
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
