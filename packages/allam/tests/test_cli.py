"""The console script through the shared conformance battery."""

from __future__ import annotations

from shared_testing.conformance import ConformanceSuite


class TestConformance(ConformanceSuite):
    package = "allam"
    module = "allam"
    known_hygiene_violations = frozenset()
    # Quick scale (RESULTS.md sections 18-19): the full run's lrs (tuned for 240 CPT steps) over 80 steps.
    # B facts are not yet answered (the transfer gate fails, so the transfer claim is not judged), A facts
    # are lost on seed 1 even with replay (and its held-out A bits rise), random rows lead at step 20, DPO
    # trails SFT.
    known_failing_quick_claims = frozenset({
        "gate-b-learned", "parallel-data-transfers", "replay-no-forgetting", "replay-keeps-a-knowledge",
        "init-mean-beats-random", "dpo-beats-sft",
    })  # fmt: skip
