"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "allam"
    module = "allam"
    known_hygiene_violations = frozenset()
    # Quick scale (RESULTS.md section 15): the full run's lrs (1.6e-2) over half its CPT steps. B facts
    # are not yet answered (the transfer gate), A facts are lost on seed 1 even with replay, random rows
    # lead at step 20, parallel data do not transfer, DPO trails SFT.
    known_failing_quick_claims = frozenset({
        "gate-b-learned", "replay-no-forgetting", "replay-keeps-a-knowledge", "init-mean-beats-random",
        "parallel-data-transfers", "dpo-beats-sft",
    })  # fmt: skip
